/* Cross-backend kernel test, part 1 of 2: pool, reduce, softmax, resize,
 * remap and shape_gather (matmul and the convolutions are in
 * test_gpu_kernels_cross_conv.c). Each kernel
 * (shaders/kernels/NAME.lgk) runs on the OpenCL backend (PoCL here) and on
 * the Vulkan backend (lavapipe here, with the
 * Khronos validation layer on) with the same defines, arguments and
 * global/local sizes, on the same seeded inputs; the downloads must agree
 * element by element: |vk - cl| <= 1e-5 * max(1, |cl|) (NaN matches NaN).
 * The define and size variants are ones the lowerings really pass
 * (delegates/gpu/lower_*.c). Outputs start filled with a sentinel and have
 * guard words after them, so an element one backend writes and the other
 * does not, or a write past the end, fails too. The harness (backends,
 * run_cross, test_report: the largest differences per kernel, run last)
 * is gpu_cross_test_support.{h,c}.
 * Small cases with hand-derived results check pool, reduce, softmax,
 * remap and gather on both backends.
 *
 * No OpenCL or Vulkan device is a FAILURE, not a skip: CI installs PoCL,
 * lavapipe and the validation layer. Any validation error fails. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/support/vulkan_hold.h"
#include "tests/unit/gpu_cross_test_support.h"

/* ---- pool --------------------------------------------------------------- */

typedef struct pool_spec {
  const char* label;
  bool max, same, tanh_act;
  int batch, in_h, in_w, channels;
  int filter_h, filter_w, stride_h, stride_w;
  float lo, hi;
} pool_spec;

/* TFLite's output size, as lower_reduce.c takes it (pool_pad: the
 * padding before). */
static int pool_out(bool same, int in, int filter, int stride) {
  return same ? ceil_div(in, stride) : (in - filter) / stride + 1;
}

/* One pool.lgk dispatch as lower_pool makes it; got[b] (may be NULL) gets
 * each backend's output. */
static void run_pool(const pool_spec* s, const float* input,
                     float* got[kBackends]) {
  const int out_h = pool_out(s->same, s->in_h, s->filter_h, s->stride_h);
  const int out_w = pool_out(s->same, s->in_w, s->filter_w, s->stride_w);
  const int vec = s->channels % 4 == 0 ? 4 : 1;
  char defines[64];
  snprintf(defines, sizeof(defines), "-DLG_MAX=%d -DLG_VEC=%d %s",
           s->max ? 1 : 0, vec, s->tanh_act ? "-DLG_ACT_TANH" : "");
  const size_t in_n = (size_t)s->batch * s->in_h * s->in_w * s->channels;
  const size_t out_n = (size_t)s->batch * out_h * out_w * s->channels;
  xarg args[] = {
      XBUF(input, in_n * sizeof(float)),
      XOUT(out_n * sizeof(float)),
      XINT(s->in_h),
      XINT(s->in_w),
      XINT(s->channels / vec),
      XINT(out_h),
      XINT(out_w),
      XINT(s->batch * out_h),
      XINT(s->stride_h),
      XINT(s->stride_w),
      XINT(s->filter_h),
      XINT(s->filter_w),
      XINT(pool_pad(s->in_h, s->filter_h, s->stride_h, out_h)),
      XINT(pool_pad(s->in_w, s->filter_w, s->stride_w, out_w)),
      XFLOAT(s->lo),
      XFLOAT(s->hi),
  };
  if (got != NULL) capture(&args[1], got);
  const xcall call =
      make_call("pool", defines, s->label, (size_t)(s->channels / vec),
                (size_t)out_w, (size_t)s->batch * out_h);
  run_cross(&call, args, NARGS(args));
}

static void test_pool(void** state) {
  (void)state;
  static const pool_spec specs[] = {
      {"avg 3x3/2 SAME relu6 vec4", false, true, false, 2, 7, 9, 8, 3, 3, 2, 2,
       0.0f, 6.0f},
      {"avg 5x5/1 SAME tanh vec1", false, true, true, 1, 5, 5, 5, 5, 5, 1, 1,
       -FLT_MAX, FLT_MAX},
      {"max 3x2/1 SAME n1to1 tanh vec4", true, true, true, 3, 4, 4, 12, 3, 2, 1,
       1, -1.0f, 1.0f},
      {"avg 2x3/3x2 VALID vec1", false, false, false, 2, 11, 7, 1, 2, 3, 3, 2,
       -FLT_MAX, FLT_MAX},
  };
  for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); ++i) {
    const pool_spec* s = &specs[i];
    const size_t n = (size_t)s->batch * s->in_h * s->in_w * s->channels;
    float* input = random_floats(n, 4.0f, 100 + (uint32_t)i);
    run_pool(s, input, NULL);
    free(input);
  }
}

/* 3x3 image 1..9: SAME 3x3 averages count only the valid window elements;
 * a 2x2 maximum skips NaN. */
static void test_pool_hand(void** state) {
  (void)state;
  const float image[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  float avg[kBackends][9];
  float* got[kBackends] = {avg[0], avg[1]};
  const pool_spec avg_spec = {"hand avg", false, true,     false,  1,
                              3,          3,     1,        3,      3,
                              1,          1,     -FLT_MAX, FLT_MAX};
  run_pool(&avg_spec, image, got);
  /* e.g. corner (0,0): (1+2+4+5)/4; edge (0,1): (1+2+3+4+5+6)/6. */
  const float want_avg[9] = {3.0f, 3.5f, 4.0f, 4.5f, 5.0f,
                             5.5f, 6.0f, 6.5f, 7.0f};
  expect_values("pool avg", got, want_avg, 9, 1e-6f);

  const float with_nan[9] = {1, 2, 3, 4, NAN, 6, 7, 8, 9};
  float max[kBackends][4];
  float* got_max[kBackends] = {max[0], max[1]};
  const pool_spec max_spec = {"hand max", true, false, false, 1, 3,    3,
                              1,          2,    2,     1,     1, 0.0f, 8.5f};
  run_pool(&max_spec, with_nan, got_max);
  /* Windows {1,2,4,nan} {2,3,nan,6} {4,nan,7,8} {nan,6,8,9}; the clamp's
   * hi 8.5 cuts the last. */
  const float want_max[4] = {4.0f, 6.0f, 8.0f, 8.5f};
  expect_values("pool max", got_max, want_max, 4, 0.0f);
}

/* ---- reduce ------------------------------------------------------------- */

/* A reduce.lgk dispatch: the plan written by hand as lower_reduce.c merges
 * the dims (kept sizes, kept strides, reduced sizes, reduced strides; each
 * padded at the front with 1 / 0). */
typedef struct reduce_spec {
  const char* label;
  int op; /* 0 SUM, 1 MEAN, 2 REDUCE_MAX, 3 REDUCE_MIN, 4 REDUCE_PROD */
  int layout, vec;
  int in_n;
  int32_t plan[16];
  int outputs, inner, out_n;
  float count;
} reduce_spec;

/* The lowerings' fixed work-group size (lower_reduce.c's group_size): a
 * power of two within 128 and the device's limit, here on both devices so
 * that both run the same variant. */
static size_t group_size(void) {
  size_t limit = 128;
  for (int b = 0; b < kBackends; ++b) {
    if (g_be[b]->device.max_work_group_size < limit) {
      limit = g_be[b]->device.max_work_group_size;
    }
  }
  size_t n = 1;
  while (n * 2 <= limit) n *= 2;
  return n;
}

static void run_reduce(const reduce_spec* s, const float* input,
                       float* got[kBackends]) {
  char defines[96];
  /* reduce.lgk's LG_RED: 0 sum (and mean), 1 max, 2 min, 3 product. */
  snprintf(defines, sizeof(defines), "-DLG_RED=%d -DLG_LAYOUT=%d -DLG_VEC=%d",
           s->op >= 2 ? s->op - 1 : 0, s->layout, s->vec);
  xcall call = make_call("reduce", defines, s->label, (size_t)s->outputs, 0, 0);
  if (s->layout == 2) {
    const size_t wg = group_size();
    snprintf(defines + strlen(defines), sizeof(defines) - strlen(defines),
             " -DLG_WG=%zu", wg);
    call.global[0] = (size_t)s->outputs * wg;
    call.local[0] = wg;
  } else if (s->layout == 0) {
    call.dims = 2;
    call.global[0] = (size_t)(s->inner / s->vec);
    call.global[1] = (size_t)s->outputs;
  }
  xarg args[] = {
      XBUF(input, (size_t)s->in_n * sizeof(float)),
      XOUT((size_t)s->out_n * sizeof(float)),
      XBUF(s->plan, sizeof(s->plan)),
      XINT(s->outputs),
      XINT(s->inner),
      XINT(s->op == 1),
      XFLOAT(s->count),
  };
  if (got != NULL) capture(&args[1], got);
  run_cross(&call, args, NARGS(args));
}

static void test_reduce(void** state) {
  (void)state;
  /* label, op, layout, vec, in_n, plan, outputs, inner, out_n, count */
  /* clang-format off */
  static const reduce_spec specs[] = {
      /* [2,5,8] axis 1: kept 2 (stride 40), reduced 5 (stride 8), inner 8
       * kept: layout 0, vec 4. */
      {"mean [2,5,8] axis 1", 1, 0, 4, 80,
       {1, 1, 1, 2, 0, 0, 0, 40, 1, 1, 1, 5, 0, 0, 0, 8}, 2, 8, 16, 5.0f},
      /* [3,7,6] axis 2: kept 21 (stride 6), inner 6 reduced: layout 1. */
      {"sum [3,7,6] axis 2", 0, 1, 1, 126,
       {1, 1, 1, 21, 0, 0, 0, 6, 1, 1, 1, 1, 0, 0, 0, 0}, 21, 6, 21, 6.0f},
      /* [4,5,3] axes 0,2: reduced 4 (stride 15), kept 5 (stride 3), inner
       * 3 reduced: layout 1. */
      {"max [4,5,3] axes 0,2", 2, 1, 1, 60,
       {1, 1, 1, 5, 0, 0, 0, 3, 1, 1, 1, 4, 0, 0, 0, 15}, 5, 3, 5, 12.0f},
      /* [2,3,4,5,6] axes 1,3: kept 2 (360), 4 (30), 6 inner; reduced 3
       * (120), 5 (6): layout 0 over two reduced groups. */
      {"mean [2,3,4,5,6] axes 1,3", 1, 0, 1, 720,
       {1, 1, 2, 4, 0, 0, 360, 30, 1, 1, 3, 5, 0, 0, 120, 6}, 8, 6, 48, 15.0f},
      /* [3,2000] axis 1, REDUCE_MAX of long runs: a work group per output. */
      {"max [3,2000] axis 1 grouped", 2, 2, 1, 6000,
       {1, 1, 1, 3, 0, 0, 0, 2000, 1, 1, 1, 1, 0, 0, 0, 0}, 3, 2000, 3, 2000.0f},
  };
  /* clang-format on */
  for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); ++i) {
    float* input =
        random_floats((size_t)specs[i].in_n, 3.0f, 200 + (uint32_t)i);
    run_reduce(&specs[i], input, NULL);
    free(input);
  }
}

/* [2,3] = {{1,2,3},{4,5,6}}: per row (layout 1) and per column (layout 0),
 * and a NaN that REDUCE_MAX skips. */
static void test_reduce_hand(void** state) {
  (void)state;
  const float x[6] = {1, 2, 3, 4, 5, 6};
  float r[kBackends][3];
  float* got[kBackends] = {r[0], r[1]};
  /* clang-format off */
  reduce_spec rows = {"hand row sum", 0, 1, 1, 6,
      {1, 1, 1, 2, 0, 0, 0, 3, 1, 1, 1, 1, 0, 0, 0, 0}, 2, 3, 2, 3.0f};
  const reduce_spec cols = {"hand column sum", 0, 0, 1, 6,
      {1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 2, 0, 0, 0, 3}, 1, 3, 3, 2.0f};
  /* clang-format on */
  run_reduce(&rows, x, got);
  expect_values("reduce sum rows", got, (const float[]){6.0f, 15.0f}, 2, 0.0f);
  rows.op = 1;
  run_reduce(&rows, x, got);
  expect_values("reduce mean rows", got, (const float[]){2.0f, 5.0f}, 2, 0.0f);
  const float with_nan[6] = {1, NAN, 3, 4, 5, -6};
  rows.op = 2;
  run_reduce(&rows, with_nan, got);
  expect_values("reduce max rows", got, (const float[]){3.0f, 5.0f}, 2, 0.0f);
  rows.op = 3;
  run_reduce(&rows, with_nan, got);
  expect_values("reduce min rows", got, (const float[]){1.0f, -6.0f}, 2, 0.0f);
  rows.op = 4;
  run_reduce(&rows, x, got);
  expect_values("reduce prod rows", got, (const float[]){6.0f, 120.0f}, 2,
                0.0f);

  run_reduce(&cols, x, got);
  expect_values("reduce sum columns", got, (const float[]){5.0f, 7.0f, 9.0f}, 3,
                0.0f);
  reduce_spec cols_min = cols;
  cols_min.op = 3;
  run_reduce(&cols_min, x, got);
  expect_values("reduce min columns", got, (const float[]){1.0f, 2.0f, 3.0f}, 3,
                0.0f);
  cols_min.op = 4;
  run_reduce(&cols_min, x, got);
  expect_values("reduce prod columns", got, (const float[]){4.0f, 10.0f, 18.0f},
                3, 0.0f);
}

/* ---- softmax ------------------------------------------------------------ */

/* A softmax.lgk dispatch as lower_softmax makes it: one invocation per row
 * below 128 elements, else a work group per row. */
static void run_softmax(const char* label, const float* input, int rows,
                        int depth, float beta, float* got[kBackends]) {
  char defines[32] = "";
  xcall call = make_call("softmax", NULL, label, (size_t)rows, 0, 0);
  if (depth >= 128) {
    const size_t wg = group_size();
    snprintf(defines, sizeof(defines), "-DLG_WG=%zu", wg);
    call.defines = defines;
    call.global[0] = (size_t)rows * wg;
    call.local[0] = wg;
  }
  const size_t n = (size_t)rows * (size_t)depth;
  xarg args[] = {
      XBUF(input, n * sizeof(float)),
      XOUT(n * sizeof(float)),
      XINT(rows),
      XINT(depth),
      XFLOAT(beta),
  };
  if (got != NULL) capture(&args[1], got);
  run_cross(&call, args, NARGS(args));
}

static void test_softmax(void** state) {
  (void)state;
  static const struct {
    const char* label;
    int rows, depth;
    float beta, scale;
  } cases[] = {
      {"softmax 7x10", 7, 10, 1.0f, 4.0f},
      {"softmax 2x33 beta 0.3", 2, 33, 0.3f, 20.0f},
      {"softmax 3x300 grouped", 3, 300, 1.0f, 6.0f},
      {"softmax 2x1000 grouped beta 2", 2, 1000, 2.0f, 5.0f},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    const size_t n = (size_t)cases[i].rows * (size_t)cases[i].depth;
    float* input = random_floats(n, cases[i].scale, 300 + (uint32_t)i);
    run_softmax(cases[i].label, input, cases[i].rows, cases[i].depth,
                cases[i].beta, NULL);
    free(input);
  }
}

/* exp(x - max) / sum: {0, ln 3} gives {1/3, 1} / (4/3); with beta 2,
 * {0, ln 2} gives {1/4, 1} / (5/4); a row of one element is 1; a row of
 * 200 equal values (grouped) is 1/200 each. */
static void test_softmax_hand(void** state) {
  (void)state;
  float r[kBackends][200];
  float* got[kBackends] = {r[0], r[1]};
  run_softmax("hand ln3", (const float[]){0.0f, logf(3.0f)}, 1, 2, 1.0f, got);
  expect_values("softmax ln3", got, (const float[]){0.25f, 0.75f}, 2, 1e-6f);
  run_softmax("hand beta 2", (const float[]){0.0f, logf(2.0f), 5.0f, 5.0f}, 2,
              2, 2.0f, got);
  expect_values("softmax beta 2", got, (const float[]){0.2f, 0.8f, 0.5f, 0.5f},
                4, 1e-6f);
  run_softmax("hand depth 1", (const float[]){-3.0f, 7.0f}, 2, 1, 1.0f, got);
  expect_values("softmax depth 1", got, (const float[]){1.0f, 1.0f}, 2, 0.0f);
  float same[200], want[200];
  for (int i = 0; i < 200; ++i) {
    same[i] = 2.5f;
    want[i] = 1.0f / 200.0f;
  }
  run_softmax("hand grouped", same, 1, 200, 1.0f, got);
  expect_values("softmax grouped", got, want, 200, 1e-8f);
}

/* ---- resize ------------------------------------------------------------- */

/* The coordinate table as lower_reduce.c computes it (the CPU kernel's
 * float arithmetic): per output position of each dim, bilinear (lower,
 * upper, weight bits) or nearest (source index). */
static float resize_scale(int in, int out, bool align) {
  if (align && out > 1) return (float)(in - 1) / (float)(out - 1);
  return (float)in / (float)out;
}

static void resize_entries(bool nearest, int in, int out, bool align, bool half,
                           int32_t* t) {
  const float scale = resize_scale(in, out, align);
  for (int v = 0; v < out; ++v) {
    if (nearest) {
      const float src = ((float)v + (half ? 0.5f : 0.0f)) * scale;
      int index = align ? (int)roundf(src) : (int)floorf(src);
      if (index > in - 1) index = in - 1;
      if (half && index < 0) index = 0;
      t[v] = index;
      continue;
    }
    const float src =
        half ? ((float)v + 0.5f) * scale - 0.5f : (float)v * scale;
    const int lo = (int)floorf(src) > 0 ? (int)floorf(src) : 0;
    const int hi = (int)ceilf(src) < in - 1 ? (int)ceilf(src) : in - 1;
    const float d = src - (float)lo;
    t[3 * v] = lo;
    t[3 * v + 1] = hi;
    memcpy(&t[3 * v + 2], &d, sizeof(d));
  }
}

static void test_resize(void** state) {
  (void)state;
  static const struct {
    const char* label;
    bool nearest, align, half;
    int batch, in_h, in_w, out_h, out_w, channels;
  } cases[] = {
      {"bilinear half-pixel vec4", false, false, true, 1, 4, 5, 7, 3, 8},
      {"bilinear align vec1", false, true, false, 2, 3, 3, 6, 6, 3},
      {"nearest vec4", true, false, false, 1, 5, 4, 3, 8, 4},
      {"nearest half-pixel vec1", true, false, true, 1, 3, 3, 7, 5, 1},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    const int per = cases[i].nearest ? 1 : 3;
    const int oh = cases[i].out_h, ow = cases[i].out_w, c = cases[i].channels;
    int32_t table[3 * 32];
    resize_entries(cases[i].nearest, cases[i].in_h, oh, cases[i].align,
                   cases[i].half, table);
    resize_entries(cases[i].nearest, cases[i].in_w, ow, cases[i].align,
                   cases[i].half, table + per * oh);
    const int vec = c % 4 == 0 ? 4 : 1;
    char defines[48];
    snprintf(defines, sizeof(defines), "-DLG_VEC=%d%s", vec,
             cases[i].nearest ? " -DLG_NEAREST" : "");
    const size_t in_n =
        (size_t)cases[i].batch * cases[i].in_h * cases[i].in_w * c;
    const size_t out_n = (size_t)cases[i].batch * oh * ow * c;
    float* input = random_floats(in_n, 10.0f, 400 + (uint32_t)i);
    xarg args[] = {
        XBUF(input, in_n * sizeof(float)),
        XOUT(out_n * sizeof(float)),
        XBUF(table, (size_t)per * (oh + ow) * sizeof(int32_t)),
        XINT(cases[i].in_h),
        XINT(cases[i].in_w),
        XINT(c / vec),
        XINT(oh),
        XINT(ow),
        XINT(cases[i].batch * oh),
    };
    const xcall call =
        make_call("resize", defines, cases[i].label, (size_t)(c / vec),
                  (size_t)ow, (size_t)cases[i].batch * oh);
    run_cross(&call, args, NARGS(args));
    free(input);
  }
}

/* ---- remap -------------------------------------------------------------- */

/* One dim of a remap job (remap.lgk's 7 fields). */
typedef struct remap_dim {
  int size, src_stride, dst_stride, start, step, src_dim, mode;
} remap_dim;

/* Writes a job's table (header + 6 dims, outermost first; dims[0..n) are
 * the innermost n, the rest size 1) at t and returns its global size. */
static void remap_table(int32_t* t, int src_base, int dst_base,
                        const remap_dim* dims, int n, size_t global[3]) {
  remap_dim all[6];
  for (int d = 0; d < 6; ++d) {
    all[d] = (remap_dim){1, 0, 0, 0, 1, 1, 0};
    if (d >= 6 - n) all[d] = dims[d - (6 - n)];
  }
  t[0] = src_base;
  t[1] = dst_base;
  t[2] = all[0].size * all[1].size * all[2].size * all[3].size;
  for (int d = 0; d < 6; ++d) {
    const int32_t f[7] = {all[d].size,  all[d].src_stride, all[d].dst_stride,
                          all[d].start, all[d].step,       all[d].src_dim,
                          all[d].mode};
    memcpy(&t[3 + 7 * d], f, sizeof(f));
  }
  global[0] = (size_t)ceil_div(all[5].size, 8);
  global[1] = (size_t)all[4].size;
  global[2] = (size_t)t[2];
}

#define REMAP_INTS 45

static void run_remap(const char* label, const char* defines, const float* src,
                      int src_n, int dst_n, const int32_t* table,
                      int table_ints, int job, const size_t global[3],
                      float value, float lo, float hi, float* got[kBackends]) {
  xarg args[] = {
      XBUF(src, (size_t)src_n * sizeof(float)),
      XOUT((size_t)dst_n * sizeof(float)),
      XBUF(table, (size_t)table_ints * sizeof(int32_t)),
      XINT(job),
      XFLOAT(value),
      XFLOAT(lo),
      XFLOAT(hi),
  };
  if (got != NULL) capture(&args[1], got);
  const xcall call =
      make_call("remap", defines, label, global[0], global[1], global[2]);
  run_cross(&call, args, NARGS(args));
}

static void test_remap(void** state) {
  (void)state;
  int32_t table[REMAP_INTS];
  size_t global[3];
  /* TRANSPOSE [2,3,4,5] by (0,2,3,1): out[a][b][c][d] = in[a][d][b][c]. */
  const remap_dim perm[4] = {{2, 60, 60, 0, 1, 2, 0},
                             {4, 5, 15, 0, 1, 4, 0},
                             {5, 1, 3, 0, 1, 5, 0},
                             {3, 20, 1, 0, 1, 3, 0}};
  float* src = random_floats(400, 5.0f, 500);
  remap_table(table, 0, 0, perm, 4, global);
  run_remap("transpose 4-D", NULL, src, 120, 120, table, REMAP_INTS, 0, global,
            0.0f, 0.0f, 0.0f, NULL);
  /* STRIDED_SLICE of [10,40]: rows 1,3,..,9, columns 39 down by 3 (start
   * folded into the base, a negative stride), clamped to [-1, 2]. */
  const remap_dim slice[2] = {{5, 80, 14, 0, 1, 10, 0},
                              {14, -3, 1, 0, 1, 40, 0}};
  remap_table(table, 79, 0, slice, 2, global);
  run_remap("strided slice clamp", "-DLG_CLAMP", src, 400, 70, table,
            REMAP_INTS, 0, global, 0.0f, -1.0f, 2.0f, NULL);
  /* TILE x2 of MIRROR_PAD of [2,6,17]: rows reflect (2, 3), columns
   * symmetric (3, 4), rows of 24 (three chunks), clamped. */
  const remap_dim mirror[3] = {{4, 102, 264, 0, 1, 2, 4},
                               {11, 17, 24, -2, 1, 6, 2},
                               {24, 1, 1, -3, 1, 17, 3}};
  remap_table(table, 0, 0, mirror, 3, global);
  run_remap("tile mirror pad clamp", "-DLG_MODES -DLG_CLAMP", src, 204, 1056,
            table, REMAP_INTS, 0, global, 0.0f, -4.0f, 4.5f, NULL);
  /* PAD [3,4,5] with a constant on every side. */
  const remap_dim pad[3] = {
      {5, 20, 42, -1, 1, 3, 1}, {6, 5, 7, -2, 1, 4, 1}, {7, 1, 1, -1, 1, 5, 1}};
  remap_table(table, 0, 0, pad, 3, global);
  run_remap("pad constant", "-DLG_MODES", src, 60, 210, table, REMAP_INTS, 0,
            global, 0.75f, 0.0f, 0.0f, NULL);
  free(src);
}

/* A 2x3 transpose, then four 1-D jobs on {1,2,3} in one table (job
 * offsets): pad 2 + 2 with 9, reflect, symmetric, tile. */
static void test_remap_hand(void** state) {
  (void)state;
  float r[kBackends][28];
  float* got[kBackends] = {r[0], r[1]};
  int32_t table[4 * REMAP_INTS];
  size_t global[3];
  const float m[6] = {0, 1, 2, 3, 4, 5};
  const remap_dim transpose[2] = {{3, 1, 2, 0, 1, 3, 0}, {2, 3, 1, 0, 1, 2, 0}};
  remap_table(table, 0, 0, transpose, 2, global);
  run_remap("hand transpose", NULL, m, 6, 6, table, REMAP_INTS, 0, global, 0.0f,
            0.0f, 0.0f, got);
  expect_values("remap transpose", got, (const float[]){0, 3, 1, 4, 2, 5}, 6,
                0.0f);

  const float v[3] = {1, 2, 3};
  static const float want[4][7] = {{9, 9, 1, 2, 3, 9, 9},
                                   {3, 2, 1, 2, 3, 2, 1},
                                   {2, 1, 1, 2, 3, 3, 2},
                                   {1, 2, 3, 1, 2, 3, 1}};
  for (int j = 0; j < 4; ++j) {
    const int mode = j + 1;
    const remap_dim d = {7, 1, 1, mode == 4 ? 0 : -2, 1, 3, mode};
    remap_table(table + j * REMAP_INTS, 0, 7 * j, &d, 1, global);
  }
  for (int j = 0; j < 4; ++j) {
    char label[32];
    snprintf(label, sizeof(label), "hand mode %d", j + 1);
    run_remap(label, "-DLG_MODES", v, 3, 28, table, 4 * REMAP_INTS,
              j * REMAP_INTS, global, 9.0f, 0.0f, 0.0f, got);
    float* row[kBackends] = {r[0] + 7 * j, r[1] + 7 * j};
    expect_values(label, row, want[j], 7, 0.0f);
  }
}

/* ---- shape_gather ------------------------------------------------------- */

static void run_gather(const char* label, const float* params,
                       const int32_t* indices, int inner, int coords, int outer,
                       int axis_size, float* got[kBackends]) {
  const size_t out_n = (size_t)inner * coords * outer;
  xarg args[] = {
      XBUF(params, (size_t)inner * axis_size * outer * sizeof(float)),
      XBUF(indices, (size_t)coords * sizeof(int32_t)),
      XOUT(out_n * sizeof(float)),
      XINT(inner),
      XINT(coords),
      XINT(outer),
      XINT(axis_size),
  };
  if (got != NULL) capture(&args[2], got);
  const xcall call = make_call("shape_gather", NULL, label, (size_t)inner,
                               (size_t)coords, (size_t)outer);
  run_cross(&call, args, NARGS(args));
}

static void test_shape_gather(void** state) {
  (void)state;
  float* params = random_floats(3 * 9 * 17, 2.0f, 600);
  const int32_t indices[6] = {8, 0, 3, 3, 12, -4}; /* the last two clamp */
  run_gather("gather 3x9x17 axis 1", params, indices, 17, 6, 3, 9, NULL);
  run_gather("gather last axis", params, indices, 1, 6, 27, 17, NULL);
  free(params);
  /* {{1,2},{3,4},{5,6}} by {2, 0, 7, -1}: out-of-range indices clamp. */
  float r[kBackends][8];
  float* got[kBackends] = {r[0], r[1]};
  run_gather("hand gather", (const float[]){1, 2, 3, 4, 5, 6},
             (const int32_t[]){2, 0, 7, -1}, 2, 4, 1, 3, got);
  expect_values("gather", got, (const float[]){5, 6, 1, 2, 5, 6, 1, 2}, 8,
                0.0f);
}

/* ---- Main --------------------------------------------------------------- */

int main(void) {
  lg_test_hold_vulkan_libraries(); /* see tests/support/vulkan_hold.h */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pool_hand),    cmocka_unit_test(test_pool),
      cmocka_unit_test(test_reduce_hand),  cmocka_unit_test(test_reduce),
      cmocka_unit_test(test_softmax_hand), cmocka_unit_test(test_softmax),
      cmocka_unit_test(test_resize),       cmocka_unit_test(test_remap_hand),
      cmocka_unit_test(test_remap),        cmocka_unit_test(test_shape_gather),
      cmocka_unit_test(test_report),
  };
  const int failed =
      cmocka_run_group_tests(tests, setup_backends, teardown_backends);
  return failed;
}
