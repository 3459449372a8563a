/* Cross-backend kernel test: every GPU-delegate kernel runs on the OpenCL
 * backend (shaders/opencl/NAME.cl, PoCL here) and on the Vulkan backend
 * (shaders/vulkan/NAME.comp, lavapipe here, with the Khronos validation
 * layer on) with the same defines, arguments and global/local sizes, on
 * the same seeded inputs; the downloads must agree element by element:
 * |vk - cl| <= 1e-5 * max(1, |cl|) (NaN matches NaN). The define and size
 * variants are ones the lowerings really pass (delegates/gpu/lower_*.c).
 * Outputs start filled with a sentinel and have guard words after them, so
 * an element one backend writes and the other does not, or a write past
 * the end, fails too. Small cases with hand-derived results check pool,
 * reduce, softmax, remap, matmul (and gather, pack) on both backends.
 *
 * No OpenCL or Vulkan device is a FAILURE, not a skip: CI installs PoCL,
 * lavapipe and the validation layer. Any validation error fails. */
#include <dlfcn.h>
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

#include "delegates/opencl/opencl_backend.h"
#include "delegates/opencl/opencl_internal.h"
#include "delegates/vulkan/vulkan_backend.h"
#include "delegates/vulkan/vulkan_internal.h"

/* ---- Backends ----------------------------------------------------------- */

enum { kCl = 0, kVk = 1, kBackends = 2 };
static const char* const kBackendName[kBackends] = {"opencl", "vulkan"};

static lg_gpu_backend* g_be[kBackends];
static long g_layer_errors_at_start;

static int setup_backends(void** state) {
  (void)state;
  lg_gpu_error error = {{0}};
  if (lg_opencl_backend_create(NULL, &g_be[kCl], &error) != kTfLiteOk) {
    fprintf(stderr, "no OpenCL device (install PoCL): %s\n", error.message);
    return -1;
  }
  const lg_vulkan_options vk = {.validation = true};
  if (lg_vulkan_backend_create_ex(NULL, &vk, &g_be[kVk], &error) != kTfLiteOk) {
    fprintf(stderr,
            "no Vulkan device with validation (install mesa-vulkan-drivers "
            "and vulkan-validationlayers): %s\n",
            error.message);
    lg_gpu_backend_destroy(g_be[kCl]);
    g_be[kCl] = NULL;
    return -1;
  }
  g_layer_errors_at_start = lg_vulkan_layer_errors();
  return 0;
}

static int teardown_backends(void** state) {
  (void)state;
  for (int b = 0; b < kBackends; ++b) {
    lg_gpu_backend_destroy(g_be[b]);
    g_be[b] = NULL;
  }
  int failed = 0;
  if (lg_vulkan_layer_errors() != g_layer_errors_at_start) {
    fprintf(stderr, "validation errors while destroying the backend\n");
    failed = -1;
  }
  if (lg_vulkan_live_objects() != 0 || lg_opencl_live_objects() != 0) {
    fprintf(stderr, "leaked objects: %ld Vk, %ld CL\n",
            lg_vulkan_live_objects(), lg_opencl_live_objects());
    failed = -1;
  }
  return failed;
}

/* ---- Seeded inputs ------------------------------------------------------ */

static uint32_t rng_next(uint32_t* s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* n floats uniform in [-scale, scale), from `seed`; the caller frees. */
static float* random_floats(size_t n, float scale, uint32_t seed) {
  float* v = malloc((n > 0 ? n : 1) * sizeof(float));
  assert_non_null(v);
  uint32_t s = seed * 2654435761u + 1u;
  for (size_t i = 0; i < n; ++i) {
    v[i] = scale * ((float)(rng_next(&s) >> 8) / 8388608.0f - 1.0f);
  }
  return v;
}

/* ---- One kernel on both backends ---------------------------------------- */

#define MAX_ARGS 24
/* Words after each output that no kernel may write. */
#define GUARD_WORDS 16
static const float kSentinel = -12345.5f;

/* One argument: a buffer (`data` uploaded, or an output when `data` is
 * NULL), an int or a float. */
typedef struct xarg {
  lg_gpu_arg_kind kind;
  int32_t i;
  float f;
  const void* data;
  size_t bytes;
  float* result[kBackends]; /* outputs: where each download goes (or NULL) */
} xarg;

#define XBUF(p, n) \
  ((xarg){.kind = LG_GPU_ARG_KIND_BUFFER, .data = (p), .bytes = (n)})
#define XOUT(n) ((xarg){.kind = LG_GPU_ARG_KIND_BUFFER, .bytes = (n)})
#define XINT(x) ((xarg){.kind = LG_GPU_ARG_KIND_INT, .i = (int32_t)(x)})
#define XFLOAT(x) ((xarg){.kind = LG_GPU_ARG_KIND_FLOAT, .f = (float)(x)})

/* The dispatch: kernel, defines, global and (optional) local sizes. */
typedef struct xcall {
  const char* kernel;
  const char* defines;
  const char* label;
  int dims;
  size_t global[3];
  size_t local[3]; /* all 0: the backend chooses */
} xcall;

/* A call over global {g0, g1, g2} (dims 3, or fewer when the later
 * sizes are 0), the local size left to the backend. */
static xcall make_call(const char* kernel, const char* defines,
                       const char* label, size_t g0, size_t g1, size_t g2) {
  xcall c = {.kernel = kernel, .defines = defines, .label = label};
  c.dims = g2 > 0 ? 3 : (g1 > 0 ? 2 : 1);
  c.global[0] = g0;
  c.global[1] = g1 > 0 ? g1 : 1;
  c.global[2] = g2 > 0 ? g2 : 1;
  return c;
}

/* The largest differences seen per kernel (reported at the end). */
typedef struct diff_row {
  const char* kernel;
  int cases;
  double abs_diff, rel_diff;
} diff_row;
static diff_row g_diffs[32];
static int g_num_diffs;

static void record_diff(const char* kernel, double abs_diff, double rel_diff) {
  int i = 0;
  while (i < g_num_diffs && strcmp(g_diffs[i].kernel, kernel) != 0) ++i;
  if (i == g_num_diffs) {
    assert_true(g_num_diffs < (int)(sizeof(g_diffs) / sizeof(g_diffs[0])));
    g_diffs[g_num_diffs++] = (diff_row){kernel, 0, 0.0, 0.0};
  }
  g_diffs[i].cases++;
  if (abs_diff > g_diffs[i].abs_diff) g_diffs[i].abs_diff = abs_diff;
  if (rel_diff > g_diffs[i].rel_diff) g_diffs[i].rel_diff = rel_diff;
}

/* Runs the call on backend `b`: buffers made and filled, one dispatch,
 * outputs (with their guards) downloaded into out[k] for output k. */
static void run_on(int b, const xcall* call, const xarg* args, int n,
                   float** out) {
  lg_gpu_backend* be = g_be[b];
  const lg_gpu_backend_ops* ops = be->ops;
  lg_gpu_error error = {{0}};
  lg_gpu_buffer* buffers[MAX_ARGS] = {NULL};
  lg_gpu_arg gpu_args[MAX_ARGS];
  float* fill[MAX_ARGS] = {NULL};
  for (int a = 0, k = 0; a < n; ++a) {
    if (args[a].kind == LG_GPU_ARG_KIND_INT) {
      gpu_args[a] = LG_GPU_ARG_INT(args[a].i);
      continue;
    }
    if (args[a].kind == LG_GPU_ARG_KIND_FLOAT) {
      gpu_args[a] = LG_GPU_ARG_FLOAT(args[a].f);
      continue;
    }
    const size_t words = (args[a].bytes + 3) / 4 + GUARD_WORDS;
    if (ops->buffer_create(be, words * 4, &buffers[a], &error) != kTfLiteOk) {
      fail_msg("%s on %s: %s", call->label, kBackendName[b], error.message);
    }
    fill[a] = malloc(words * 4);
    assert_non_null(fill[a]);
    for (size_t w = 0; w < words; ++w) fill[a][w] = kSentinel;
    if (args[a].data != NULL) memcpy(fill[a], args[a].data, args[a].bytes);
    assert_int_equal(
        ops->buffer_upload(be, buffers[a], 0, fill[a], words * 4, &error),
        kTfLiteOk);
    gpu_args[a] = LG_GPU_ARG_BUFFER(buffers[a]);
    if (args[a].data == NULL) out[k++] = fill[a]; /* downloaded into below */
  }
  lg_gpu_kernel* kernel = NULL;
  if (ops->kernel_create(be, call->kernel, call->defines, &kernel, &error) !=
      kTfLiteOk) {
    fail_msg("%s on %s: %s", call->label, kBackendName[b], error.message);
  }
  const bool has_local = call->local[0] != 0;
  if (ops->dispatch(be, kernel, gpu_args, n, call->dims, call->global,
                    has_local ? call->local : NULL, &error) != kTfLiteOk ||
      ops->finish(be, &error) != kTfLiteOk) {
    fail_msg("%s on %s: %s", call->label, kBackendName[b], error.message);
  }
  for (int a = 0; a < n; ++a) {
    if (buffers[a] == NULL) continue;
    if (args[a].data == NULL) {
      const size_t words = (args[a].bytes + 3) / 4 + GUARD_WORDS;
      assert_int_equal(
          ops->buffer_download(be, buffers[a], 0, fill[a], words * 4, &error),
          kTfLiteOk);
    } else {
      free(fill[a]);
    }
    ops->buffer_release(be, buffers[a]);
  }
  ops->kernel_release(be, kernel);
}

/* Compares output `k` of the two backends and its guard words. */
static void compare_output(const xcall* call, int k, const float* cl,
                           const float* vk, size_t count) {
  double max_abs = 0.0, max_rel = 0.0;
  for (size_t i = 0; i < count; ++i) {
    if (cl[i] == vk[i] || (isnan(cl[i]) && isnan(vk[i]))) continue;
    const double d = fabs((double)vk[i] - (double)cl[i]);
    const double scale = fmax(1.0, fabs((double)cl[i]));
    if (!(d <= 1e-5 * scale)) {
      fail_msg("%s (%s %s), output %d element %zu: vulkan %.9g, opencl %.9g",
               call->label, call->kernel,
               call->defines != NULL ? call->defines : "", k, i, (double)vk[i],
               (double)cl[i]);
    }
    if (d > max_abs) max_abs = d;
    if (d / scale > max_rel) max_rel = d / scale;
  }
  for (size_t i = count; i < count + GUARD_WORDS; ++i) {
    if (cl[i] != kSentinel || vk[i] != kSentinel) {
      fail_msg("%s: output %d guard word %zu written (opencl %g, vulkan %g)",
               call->label, k, i - count, (double)cl[i], (double)vk[i]);
    }
  }
  record_diff(call->kernel, max_abs, max_rel);
}

/* Runs the call on both backends and compares every output; an output
 * argument with result[b] set gets backend b's values. */
static void run_cross(const xcall* call, xarg* args, int n) {
  assert_true(n <= MAX_ARGS);
  float* out[kBackends][MAX_ARGS] = {{NULL}};
  for (int b = 0; b < kBackends; ++b) run_on(b, call, args, n, out[b]);
  for (int a = 0, k = 0; a < n; ++a) {
    if (args[a].kind != LG_GPU_ARG_KIND_BUFFER || args[a].data != NULL) {
      continue;
    }
    const size_t count = args[a].bytes / sizeof(float);
    compare_output(call, k, out[kCl][k], out[kVk][k], count);
    for (int b = 0; b < kBackends; ++b) {
      if (args[a].result[b] != NULL) {
        memcpy(args[a].result[b], out[b][k], args[a].bytes);
      }
      free(out[b][k]);
    }
    ++k;
  }
  lg_vulkan_stats stats;
  assert_int_equal(lg_vulkan_backend_stats(g_be[kVk], &stats), kTfLiteOk);
  if (stats.validation_errors != 0) {
    fail_msg("%s: %llu validation error(s); first: %s", call->label,
             (unsigned long long)stats.validation_errors,
             stats.first_validation_error);
  }
}

/* Checks both backends' results against hand-derived values. */
static void expect_values(const char* label, float* const got[kBackends],
                          const float* want, size_t count, float tolerance) {
  for (int b = 0; b < kBackends; ++b) {
    for (size_t i = 0; i < count; ++i) {
      const float g = got[b][i];
      if (isnan(want[i]) ? isnan(g) : fabsf(g - want[i]) <= tolerance) {
        continue;
      }
      fail_msg("%s on %s, element %zu: got %.9g, want %.9g", label,
               kBackendName[b], i, (double)g, (double)want[i]);
    }
  }
}

/* Output argument `a` returns both backends' values into got[b]. */
static void capture(xarg* a, float* got[kBackends]) {
  for (int b = 0; b < kBackends; ++b) a->result[b] = got[b];
}

#define NARGS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int ceil_div(int x, int y) { return (x + y - 1) / y; }
static int round_up(int x, int m) { return ceil_div(x, m) * m; }
/* The lowerings' blocks: 8 or 4 rows/columns once there are that many. */
static int block_of(int count) { return count >= 8 ? 8 : (count >= 4 ? 4 : 1); }

/* ---- pool --------------------------------------------------------------- */

typedef struct pool_spec {
  const char* label;
  bool max, same, tanh_act;
  int batch, in_h, in_w, channels;
  int filter_h, filter_w, stride_h, stride_w;
  float lo, hi;
} pool_spec;

/* TFLite's output size and padding before, as lower_reduce.c takes them. */
static int pool_out(bool same, int in, int filter, int stride) {
  return same ? ceil_div(in, stride) : (in - filter) / stride + 1;
}
static int pool_pad(int in, int filter, int stride, int out) {
  const int total = (out - 1) * stride + filter - in;
  return total > 0 ? total / 2 : 0;
}

/* One pool.cl dispatch as lower_pool makes it; got[b] (may be NULL) gets
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

/* A reduce.cl dispatch: the plan written by hand as lower_reduce.c merges
 * the dims (kept sizes, kept strides, reduced sizes, reduced strides; each
 * padded at the front with 1 / 0). */
typedef struct reduce_spec {
  const char* label;
  int op; /* 0 SUM, 1 MEAN, 2 REDUCE_MAX */
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
  snprintf(defines, sizeof(defines), "-DLG_MAX=%d -DLG_LAYOUT=%d -DLG_VEC=%d",
           s->op == 2 ? 1 : 0, s->layout, s->vec);
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

  run_reduce(&cols, x, got);
  expect_values("reduce sum columns", got, (const float[]){5.0f, 7.0f, 9.0f}, 3,
                0.0f);
}

/* ---- softmax ------------------------------------------------------------ */

/* A softmax.cl dispatch as lower_softmax makes it: one invocation per row
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

/* One dim of a remap job (remap.cl's 7 fields). */
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

/* ---- matmul_pack, matmul ------------------------------------------------ */

/* The packed B layout (matmul_pack.cl), on the host: per matrix npad / vec
 * column blocks of k vectors of vec columns, zeros past n. */
static float* pack_b(const float* src, int batches, int k, int n,
                     bool transposed, int npad, int vec) {
  float* dst = calloc((size_t)batches * k * npad + 1, sizeof(float));
  assert_non_null(dst);
  for (int b = 0; b < batches; ++b) {
    const float* m = src + (size_t)b * k * n;
    for (int j = 0; j < n; ++j) {
      for (int p = 0; p < k; ++p) {
        dst[(size_t)b * k * npad + (size_t)(j / vec) * k * vec +
            (size_t)p * vec + j % vec] =
            transposed ? m[(size_t)j * k + p] : m[(size_t)p * n + j];
      }
    }
  }
  return dst;
}

static void run_pack(const char* label, const float* src, int batches, int k,
                     int n, bool transposed, int vec, float* got[kBackends]) {
  const int npad = round_up(n, vec);
  char defines[48];
  snprintf(defines, sizeof(defines), "-DLG_VEC=%d -DLG_TRANSPOSED=%d", vec,
           transposed ? 1 : 0);
  xarg args[] = {
      XBUF(src, (size_t)batches * k * n * sizeof(float)),
      XOUT((size_t)batches * k * npad * sizeof(float)),
      XINT(n),
      XINT(k),
      XINT(npad),
      XINT(batches),
  };
  if (got != NULL) capture(&args[1], got);
  const xcall call = make_call("matmul_pack", defines, label, (size_t)k,
                               (size_t)(npad / vec), (size_t)batches);
  run_cross(&call, args, NARGS(args));
}

static void test_matmul_pack(void** state) {
  (void)state;
  static const struct {
    const char* label;
    int batches, k, n, vec;
    bool transposed;
  } cases[] = {
      {"pack vec4", 2, 5, 7, 4, false},
      {"pack vec8 transposed", 1, 9, 13, 8, true},
      {"pack vec4 transposed batches", 2, 17, 3, 4, true},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    const int b = cases[i].batches, k = cases[i].k, n = cases[i].n;
    const int vec = cases[i].vec, npad = round_up(n, vec);
    float* src = random_floats((size_t)b * k * n, 1.0f, 700 + (uint32_t)i);
    float* want = pack_b(src, b, k, n, cases[i].transposed, npad, vec);
    const size_t count = (size_t)b * k * npad;
    float* r[kBackends] = {malloc(count * sizeof(float)),
                           malloc(count * sizeof(float))};
    assert_non_null(r[0]);
    assert_non_null(r[1]);
    run_pack(cases[i].label, src, b, k, n, cases[i].transposed, vec, r);
    expect_values(cases[i].label, r, want, count, 0.0f); /* a copy: exact */
    free(r[0]);
    free(r[1]);
    free(want);
    free(src);
  }
}

/* One matmul.cl dispatch as emit_matmul makes it (B given packed). */
typedef struct matmul_spec {
  const char* label;
  int m, n, k;
  int batches, d1, sa0, sa1, sb0, sb1;
  int a_mats, b_mats;
  bool adj_x, bias, tanh_act;
  float lo, hi;
} matmul_spec;

static void run_matmul(const matmul_spec* s, const float* a,
                       const float* packed, const float* bias,
                       float* got[kBackends]) {
  const int vec = (s->n >= 32 || s->n % 8 == 0) ? 8 : 4;
  const int npad = round_up(s->n, vec), rows = block_of(s->m);
  char defines[128];
  snprintf(defines, sizeof(defines),
           "-DLG_VEC=%d -DLG_ROWS=%d -DLG_ADJ_X=%d %s", vec, rows,
           s->adj_x ? 1 : 0, s->tanh_act ? "-DLG_ACT_TANH" : "");
  const size_t a_bytes = (size_t)s->a_mats * s->m * s->k * sizeof(float);
  xarg args[] = {
      XBUF(a, a_bytes),
      XBUF(packed, (size_t)s->b_mats * s->k * npad * sizeof(float)),
      bias != NULL ? XBUF(bias, (size_t)s->n * sizeof(float))
                   : XBUF(a, a_bytes), /* not read without a bias */
      XINT(bias != NULL ? 1 : 0),
      XOUT((size_t)s->batches * s->m * s->n * sizeof(float)),
      XINT(s->m),
      XINT(s->n),
      XINT(s->k),
      XINT(npad),
      XINT(s->batches),
      XINT(s->d1),
      XINT(s->sa0),
      XINT(s->sa1),
      XINT(s->sb0),
      XINT(s->sb1),
      XFLOAT(s->lo),
      XFLOAT(s->hi),
  };
  if (got != NULL) capture(&args[4], got);
  const xcall call =
      make_call("matmul", defines, s->label, (size_t)(npad / vec),
                (size_t)ceil_div(s->m, rows), (size_t)s->batches);
  run_cross(&call, args, NARGS(args));
}

static void test_matmul(void** state) {
  (void)state;
  static const matmul_spec specs[] = {
      /* FULLY_CONNECTED: weights [n][k] (transposed B), relu. */
      {"fc 5x10x7 relu bias", 5, 10, 7, 1, 1, 0, 0, 0, 0, 1, 1, false, true,
       false, 0.0f, FLT_MAX},
      {"fc 1x3x33 tanh", 1, 3, 33, 1, 1, 0, 0, 0, 0, 1, 1, false, false, true,
       -FLT_MAX, FLT_MAX},
      /* BATCH_MATMUL [2,1,k,m] adj_x x [1,3,k,n]: both broadcast. */
      {"bmm 9x40x16 adj_x broadcast", 9, 40, 16, 6, 3, 1, 0, 0, 1, 2, 3, true,
       false, false, -INFINITY, INFINITY},
      {"bmm 3x8x5 batches 2x2", 3, 8, 5, 4, 2, 2, 1, 2, 1, 4, 4, false, false,
       false, -INFINITY, INFINITY},
  };
  for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); ++i) {
    const matmul_spec* s = &specs[i];
    const int vec = (s->n >= 32 || s->n % 8 == 0) ? 8 : 4;
    const bool fc = s->lo != -INFINITY;
    float* a =
        random_floats((size_t)s->a_mats * s->m * s->k, 1.0f, 800 + (uint32_t)i);
    float* b =
        random_floats((size_t)s->b_mats * s->k * s->n, 1.0f, 850 + (uint32_t)i);
    float* bias = random_floats((size_t)s->n, 1.0f, 880 + (uint32_t)i);
    float* packed =
        pack_b(b, s->b_mats, s->k, s->n, fc, round_up(s->n, vec), vec);
    run_matmul(s, a, packed, s->bias ? bias : NULL, NULL);
    free(packed);
    free(bias);
    free(b);
    free(a);
  }
}

/* [[1,2,3],[4,5,6]] x [[1,0],[0,1],[1,1]] = [[4,5],[10,11]], + bias
 * {0.5, -1}, relu6: [[4.5,4],[6,6]]; the same A as adj_x ([k][m]). */
static void test_matmul_hand(void** state) {
  (void)state;
  float r[kBackends][4];
  float* got[kBackends] = {r[0], r[1]};
  const float a[6] = {1, 2, 3, 4, 5, 6};
  const float packed[12] = {1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0};
  const matmul_spec s = {"hand fc", 2, 2, 3,     1,    1,     0,    0,   0,
                         0,         1, 1, false, true, false, 0.0f, 6.0f};
  run_matmul(&s, a, packed, (const float[]){0.5f, -1.0f}, got);
  expect_values("matmul", got, (const float[]){4.5f, 4.0f, 6.0f, 6.0f}, 4,
                0.0f);
  const float at[6] = {1, 4, 2, 5, 3, 6};
  matmul_spec adj = s;
  adj.label = "hand adj_x";
  adj.adj_x = true;
  adj.lo = -INFINITY;
  adj.hi = INFINITY;
  run_matmul(&adj, at, packed, NULL, got);
  expect_values("matmul adj_x", got, (const float[]){4.0f, 5.0f, 10.0f, 11.0f},
                4, 0.0f);
  /* matmul_pack of [[1,2,3],[4,5,6]] (k 2, n 3, vec 4). */
  float p[kBackends][8];
  float* got_p[kBackends] = {p[0], p[1]};
  run_pack("hand pack", a, 1, 2, 3, false, 4, got_p);
  expect_values("matmul_pack", got_p, (const float[]){1, 2, 3, 0, 4, 5, 6, 0},
                8, 0.0f);
}

/* ---- transpose_conv ----------------------------------------------------- */

typedef struct tconv_spec {
  const char* label;
  bool same, bias, tanh_act;
  int batch, out_h, out_w, out_c, in_c, kh, kw, sh, sw;
  float lo, hi;
} tconv_spec;

static void run_tconv(const tconv_spec* s, uint32_t seed) {
  const int in_h = s->same ? ceil_div(s->out_h, s->sh)
                           : ceil_div(s->out_h - s->kh + 1, s->sh);
  const int in_w = s->same ? ceil_div(s->out_w, s->sw)
                           : ceil_div(s->out_w - s->kw + 1, s->sw);
  /* lg_nn_pad_before(out, k, s, 1, in), as lower_matmul.c: 0 for VALID. */
  const int pad_top = pool_pad(s->out_h, s->kh, s->sh, in_h);
  const int pad_left = pool_pad(s->out_w, s->kw, s->sw, in_w);
  const int vec = (s->out_c >= 32 || s->out_c % 8 == 0) ? 8 : 4;
  const int ocpad = round_up(s->out_c, vec);
  const int taps = s->kh * s->kw * s->in_c;
  const int per_phase = ceil_div(s->out_w, s->sw);
  const int cols = block_of(per_phase);
  const int x_blocks = ceil_div(per_phase, cols);
  char defines[128];
  snprintf(defines, sizeof(defines), "-DLG_VEC=%d -DLG_COLS=%d %s", vec, cols,
           s->tanh_act ? "-DLG_ACT_TANH" : "");
  const size_t in_n = (size_t)s->batch * in_h * in_w * s->in_c;
  float* input = random_floats(in_n, 1.0f, seed);
  float* w = random_floats((size_t)s->out_c * taps, 1.0f, seed + 1);
  float* packed = pack_b(w, 1, taps, s->out_c, true, ocpad, vec);
  float* bias = random_floats((size_t)s->out_c, 1.0f, seed + 2);
  xarg args[] = {
      XBUF(input, in_n * sizeof(float)),
      XBUF(packed, (size_t)ocpad * taps * sizeof(float)),
      s->bias ? XBUF(bias, (size_t)s->out_c * sizeof(float))
              : XBUF(input, in_n * sizeof(float)),
      XINT(s->bias ? 1 : 0),
      XOUT((size_t)s->batch * s->out_h * s->out_w * s->out_c * sizeof(float)),
      XINT(in_h),
      XINT(in_w),
      XINT(s->in_c),
      XINT(s->out_h),
      XINT(s->out_w),
      XINT(s->out_c),
      XINT(ocpad),
      XINT(s->kh),
      XINT(s->kw),
      XINT(s->sh),
      XINT(s->sw),
      XINT(pad_top),
      XINT(pad_left),
      XINT(x_blocks),
      XINT(s->batch * s->out_h),
      XFLOAT(s->lo),
      XFLOAT(s->hi),
  };
  const xcall call =
      make_call("transpose_conv", defines, s->label, (size_t)(ocpad / vec),
                (size_t)x_blocks * s->sw, (size_t)s->batch * s->out_h);
  run_cross(&call, args, NARGS(args));
  free(bias);
  free(packed);
  free(w);
  free(input);
}

static void test_transpose_conv(void** state) {
  (void)state;
  static const tconv_spec specs[] = {
      {"tconv 3x3/2 SAME relu bias cols4", true, true, false, 1, 7, 9, 5, 3, 3,
       3, 2, 2, 0.0f, FLT_MAX},
      {"tconv 4x4/2 SAME tanh cols8", true, false, true, 2, 8, 16, 12, 6, 4, 4,
       2, 2, -FLT_MAX, FLT_MAX},
      {"tconv 2x2/1 VALID cols1", false, false, false, 1, 5, 3, 2, 4, 2, 2, 1,
       1, -1.0f, 1.0f},
      {"tconv 5x3/1x2 SAME vec8 40ch", true, true, false, 1, 6, 11, 40, 3, 5, 3,
       1, 2, -FLT_MAX, FLT_MAX},
  };
  for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); ++i) {
    run_tconv(&specs[i], 900 + 10 * (uint32_t)i);
  }
}

/* ---- conv_1x1, conv_general, depthwise_conv ----------------------------- */

typedef struct conv_spec {
  const char* label;
  bool depthwise, same, tanh_act;
  int batch, in_h, in_w, in_c, out_c, kh, kw, sh, sw, dh, dw;
  float lo, hi;
  bool residual; /* 1x1: a residual ADD fused (LG_RESIDUAL) */
} conv_spec;

/* Output size and padding before (TFLite's SAME / VALID), as lower_conv.c
 * reads them from the context. */
static int conv_out(bool same, int in, int k, int stride, int dilation) {
  const int effective = (k - 1) * dilation + 1;
  return same ? ceil_div(in, stride) : (in + stride - effective) / stride;
}
static int conv_pad(bool same, int in, int k, int stride, int dilation,
                    int out) {
  const int total = (out - 1) * stride + (k - 1) * dilation + 1 - in;
  return same && total > 0 ? total / 2 : 0;
}

/* lower_conv.c's block: vectors of 16 channels, one, two or three per
 * invocation, the pixel count that wastes the fewest slots on `count`,
 * channel blocks first (oc_fast) when the weights are small. */
typedef struct conv_blk {
  int nv, pix;
  bool oc_fast;
} conv_blk;

static int best_pix(int count, const int* pix, int n) {
  int best = pix[0], best_waste = INT32_MAX;
  for (int i = 0; i < n; ++i) {
    const int waste = round_up(count, pix[i]) - count;
    if (waste < best_waste) {
      best = pix[i];
      best_waste = waste;
    }
  }
  return best;
}

static conv_blk conv_block(int out_c, int count, int k) {
  static const int kPix1[] = {16, 14, 12, 15, 13};
  static const int kPix2[] = {8, 7, 6};
  static const int kPix3[] = {7, 6, 5};
  const int vectors = ceil_div(out_c, 16);
  conv_blk b = {2, best_pix(count, kPix2, 3), false};
  if (vectors == 1) {
    b = (conv_blk){1, best_pix(count, kPix1, 5), false};
  } else if (vectors % 2 != 0 && vectors % 3 == 0) {
    b = (conv_blk){3, best_pix(count, kPix3, 3), false};
  }
  b.oc_fast = vectors > b.nv &&
              (int64_t)k * round_up(out_c, 16 * b.nv) * 4 <= 1024 * 1024;
  return b;
}

/* lower_conv.c's work groups: up to 16 invocations along dimension 0. */
static void conv_local(xcall* call) {
  call->local[0] = call->global[0] < 16 ? call->global[0] : 16;
  call->local[1] = call->local[2] = 1;
}

/* The inputs of one convolution (seeded) and their device layouts. */
typedef struct conv_data {
  int out_h, out_w, pad_top, pad_left;
  size_t in_n, out_n;
  float *input, *packed, *bias, *zeros;
  size_t packed_n, bias_n, zeros_n;
} conv_data;

static void conv_data_free(conv_data* d) {
  free(d->input);
  free(d->packed);
  free(d->bias);
  free(d->zeros);
}

/* CONV_2D: filter [oc][kh][kw][ic] packed [oc_pad / block][k][block]. */
static void conv_make(const conv_spec* s, int block, uint32_t seed,
                      conv_data* d) {
  const int k = s->kh * s->kw * s->in_c, padded = round_up(s->out_c, block);
  float* filter = random_floats((size_t)s->out_c * k, 0.5f, seed + 1);
  d->packed_n = (size_t)padded * k + 16;
  d->packed = calloc(d->packed_n, sizeof(float));
  assert_non_null(d->packed);
  for (int o = 0; o < s->out_c; ++o) {
    for (int i = 0; i < k; ++i) {
      d->packed[(size_t)(o / block) * k * block + (size_t)i * block +
                o % block] = filter[(size_t)o * k + i];
    }
  }
  free(filter);
  d->bias_n = (size_t)padded + 16;
  d->zeros_n = (size_t)s->in_c + 16;
}

/* DEPTHWISE_CONV_2D: filter [kh * kw][out_c] padded to [kh * kw][c_pad]. */
static void depthwise_make(const conv_spec* s, int c_pad, uint32_t seed,
                           conv_data* d) {
  const int taps = s->kh * s->kw;
  float* filter = random_floats((size_t)taps * s->out_c, 0.5f, seed + 1);
  d->packed_n = (size_t)taps * c_pad + 16;
  d->packed = calloc(d->packed_n, sizeof(float));
  assert_non_null(d->packed);
  for (int t = 0; t < taps; ++t) {
    memcpy(d->packed + (size_t)t * c_pad, filter + (size_t)t * s->out_c,
           sizeof(float) * (size_t)s->out_c);
  }
  free(filter);
  d->bias_n = (size_t)c_pad + 16;
  d->zeros_n = (size_t)s->in_w * s->in_c + 32;
}

/* Input, bias (zeros past out_c) and the zero buffer. */
static void conv_data_init(const conv_spec* s, uint32_t seed, conv_data* d) {
  d->out_h = conv_out(s->same, s->in_h, s->kh, s->sh, s->dh);
  d->out_w = conv_out(s->same, s->in_w, s->kw, s->sw, s->dw);
  d->pad_top = conv_pad(s->same, s->in_h, s->kh, s->sh, s->dh, d->out_h);
  d->pad_left = conv_pad(s->same, s->in_w, s->kw, s->sw, s->dw, d->out_w);
  d->in_n = (size_t)s->batch * s->in_h * s->in_w * s->in_c;
  d->out_n = (size_t)s->batch * d->out_h * d->out_w * s->out_c;
  d->input = random_floats(d->in_n, 1.0f, seed);
}

static void conv_finish_buffers(const conv_spec* s, uint32_t seed,
                                conv_data* d) {
  float* b = random_floats((size_t)s->out_c, 1.0f, seed + 2);
  d->bias = calloc(d->bias_n, sizeof(float));
  d->zeros = calloc(d->zeros_n, sizeof(float));
  assert_non_null(d->bias);
  assert_non_null(d->zeros);
  memcpy(d->bias, b, sizeof(float) * (size_t)s->out_c);
  free(b);
}

/* One CONV_2D as lower_conv makes it: conv_1x1 for a pointwise window,
 * else conv_general (with the fixed defines for small first layers). */
static void run_conv(const conv_spec* s, uint32_t seed) {
  conv_data d;
  conv_data_init(s, seed, &d);
  const bool pointwise = s->kh == 1 && s->kw == 1 && s->sh == 1 && s->sw == 1 &&
                         d.out_h == s->in_h && d.out_w == s->in_w;
  const int pixels = s->batch * s->in_h * s->in_w;
  const conv_blk blk = conv_block(s->out_c, pointwise ? pixels : d.out_w,
                                  s->kh * s->kw * s->in_c);
  const int block = 16 * blk.nv, padded = round_up(s->out_c, block);
  const char* aligned = s->out_c % 16 == 0 ? " -DLG_ALIGNED" : "";
  conv_make(s, block, seed, &d);
  conv_finish_buffers(s, seed, &d);
  const char* act = s->tanh_act ? "-DLG_ACT_TANH" : "";
  char defines[192];
  if (pointwise) {
    snprintf(defines, sizeof(defines),
             "-DLG_W=16 -DLG_NV=%d -DLG_PIX=%d%s%s%s %s", blk.nv, blk.pix,
             blk.oc_fast ? " -DLG_OC_FAST" : "", aligned,
             s->residual ? " -DLG_RESIDUAL" : "", act);
    float* res = random_floats(d.out_n, 2.0f, seed + 3);
    xarg args[] = {
        XBUF(d.input, d.in_n * sizeof(float)),
        XBUF(d.packed, d.packed_n * sizeof(float)),
        XBUF(d.bias, d.bias_n * sizeof(float)),
        XOUT(d.out_n * sizeof(float)),
        XINT(pixels),
        XINT(s->in_c),
        XINT(s->out_c),
        XFLOAT(s->lo),
        XFLOAT(s->hi),
        /* Not read without LG_RESIDUAL: the bias stands in. */
        s->residual ? XBUF(res, d.out_n * sizeof(float))
                    : XBUF(d.bias, d.bias_n * sizeof(float)),
    };
    const size_t pixel_blocks = (size_t)ceil_div(pixels, blk.pix);
    const size_t oc_blocks = (size_t)(padded / block);
    xcall call = make_call("conv_1x1", defines, s->label,
                           blk.oc_fast ? oc_blocks : pixel_blocks,
                           blk.oc_fast ? pixel_blocks : oc_blocks, 0);
    conv_local(&call);
    run_cross(&call, args, NARGS(args));
    free(res);
    conv_data_free(&d);
    return;
  }
  char fixed[96] = "";
  if (s->in_c <= 4 && s->kh * s->kw * s->in_c <= 32) {
    snprintf(fixed, sizeof(fixed),
             " -DLG_IC=%d -DLG_KH=%d -DLG_KW=%d -DLG_SW=%d -DLG_DW=%d", s->in_c,
             s->kh, s->kw, s->sw, s->dw);
  }
  snprintf(defines, sizeof(defines), "-DLG_W=16 -DLG_NV=%d -DLG_PIX=%d%s%s %s",
           blk.nv, blk.pix, fixed, aligned, act);
  const int oc_blocks = padded / block;
  xarg args[] = {
      XBUF(d.input, d.in_n * sizeof(float)),
      XBUF(d.packed, d.packed_n * sizeof(float)),
      XBUF(d.bias, d.bias_n * sizeof(float)),
      XBUF(d.zeros, d.zeros_n * sizeof(float)),
      XOUT(d.out_n * sizeof(float)),
      XINT(s->batch),
      XINT(s->in_h),
      XINT(s->in_w),
      XINT(s->in_c),
      XINT(d.out_h),
      XINT(d.out_w),
      XINT(s->out_c),
      XINT(s->sh),
      XINT(s->sw),
      XINT(s->dh),
      XINT(s->dw),
      XINT(d.pad_top),
      XINT(d.pad_left),
      XINT(s->kh),
      XINT(s->kw),
      XINT(oc_blocks),
      XFLOAT(s->lo),
      XFLOAT(s->hi),
  };
  xcall call = make_call("conv_general", defines, s->label,
                         (size_t)ceil_div(d.out_w, blk.pix), (size_t)d.out_h,
                         (size_t)s->batch * (size_t)oc_blocks);
  conv_local(&call);
  run_cross(&call, args, NARGS(args));
  conv_data_free(&d);
}

/* lower_conv.c's channel vector: a width dividing the channels (mult 1),
 * one input channel broadcast, else scalar. */
static int depthwise_width(int in_c, int out_c, bool* broadcast) {
  *broadcast = in_c == 1 && out_c > 1;
  if (*broadcast) return out_c >= 16 ? 16 : (out_c >= 8 ? 8 : 4);
  if (in_c != out_c) return 1;
  return out_c % 16 == 0 ? 16 : (out_c % 8 == 0 ? 8 : (out_c % 4 == 0 ? 4 : 1));
}

/* One DEPTHWISE_CONV_2D as lower_depthwise makes it. */
static void run_depthwise(const conv_spec* s, uint32_t seed) {
  conv_data d;
  conv_data_init(s, seed, &d);
  bool broadcast = false;
  const int cv = depthwise_width(s->in_c, s->out_c, &broadcast);
  const int c_pad = round_up(s->out_c, cv), pix = 4;
  depthwise_make(s, c_pad, seed, &d);
  conv_finish_buffers(s, seed, &d);
  const int chunk = round_up(d.out_w < 32 ? d.out_w : 32, pix);
  char defines[192];
  snprintf(defines, sizeof(defines),
           "-DLG_CV=%d -DLG_PIX=%d -DLG_KH=%d -DLG_KW=%d -DLG_SH=%d "
           "-DLG_SW=%d -DLG_DH=%d -DLG_DW=%d%s%s %s",
           cv, pix, s->kh, s->kw, s->sh, s->sw, s->dh, s->dw,
           broadcast ? " -DLG_DW_BCAST" : "",
           s->out_c % cv == 0 ? " -DLG_ALIGNED" : "",
           s->tanh_act ? "-DLG_ACT_TANH" : "");
  const int rows = s->batch * d.out_h;
  xarg args[] = {
      XBUF(d.input, d.in_n * sizeof(float)),
      XBUF(d.packed, d.packed_n * sizeof(float)),
      XBUF(d.bias, d.bias_n * sizeof(float)),
      XBUF(d.zeros, d.zeros_n * sizeof(float)),
      XOUT(d.out_n * sizeof(float)),
      XINT(rows),
      XINT(s->in_h),
      XINT(s->in_w),
      XINT(s->in_c),
      XINT(d.out_h),
      XINT(d.out_w),
      XINT(s->out_c),
      XINT(c_pad),
      XINT(s->out_c / s->in_c),
      XINT(d.pad_top),
      XINT(d.pad_left),
      XINT(chunk),
      XFLOAT(s->lo),
      XFLOAT(s->hi),
  };
  xcall call =
      make_call("depthwise_conv", defines, s->label, (size_t)(c_pad / cv),
                (size_t)ceil_div(d.out_w, chunk), (size_t)rows);
  conv_local(&call);
  run_cross(&call, args, NARGS(args));
  conv_data_free(&d);
}

static void test_conv(void** state) {
  (void)state;
  /* label, depthwise, same, tanh, batch, in_h, in_w, in_c, out_c, kh, kw,
   * sh, sw, dh, dw, lo, hi, residual */
  static const conv_spec specs[] = {
      {"1x1 oc5 nv1", false, true, false, 2, 5, 7, 13, 5, 1, 1, 1, 1, 1, 1,
       -FLT_MAX, FLT_MAX, false},
      {"1x1 oc64 oc_fast relu6 tanh", false, true, true, 1, 3, 9, 6, 64, 1, 1,
       1, 1, 1, 1, 0.0f, 6.0f, false},
      {"1x1 oc40 nv3 residual relu", false, true, false, 1, 4, 4, 11, 40, 1, 1,
       1, 1, 1, 1, 0.0f, FLT_MAX, true},
      {"3x3/1 SAME ic7 oc17 nv2", false, true, false, 1, 6, 11, 7, 17, 3, 3, 1,
       1, 1, 1, -FLT_MAX, FLT_MAX, false},
      {"3x3/2 SAME ic3 fixed relu", false, true, false, 1, 9, 13, 3, 5, 3, 3, 2,
       2, 1, 1, 0.0f, FLT_MAX, false},
      {"3x2 dil2 VALID ic9 oc48 tanh", false, false, true, 2, 8, 10, 9, 48, 3,
       2, 1, 2, 2, 2, -FLT_MAX, FLT_MAX, false},
      /* Many work items in several groups: 3 channel blocks x 36 pixel
       * blocks over 24 input channels. */
      {"1x1 ic24 oc96 b2 12x12", false, true, false, 2, 12, 12, 24, 96, 1, 1, 1,
       1, 1, 1, -FLT_MAX, FLT_MAX, false},
  };
  for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); ++i) {
    run_conv(&specs[i], 1000 + 10 * (uint32_t)i);
  }
}

static void test_depthwise_conv(void** state) {
  (void)state;
  static const conv_spec specs[] = {
      {"dw 3x3/1 SAME c17 scalar", true, true, false, 1, 6, 7, 17, 17, 3, 3, 1,
       1, 1, 1, -FLT_MAX, FLT_MAX, false},
      {"dw 3x3/2 SAME c8 relu", true, true, false, 2, 9, 9, 8, 8, 3, 3, 2, 2, 1,
       1, 0.0f, FLT_MAX, false},
      {"dw 5x5 dil2 SAME c32", true, true, false, 1, 7, 40, 32, 32, 5, 5, 1, 1,
       2, 2, -FLT_MAX, FLT_MAX, false},
      {"dw 3x3/1 VALID broadcast m5", true, false, false, 1, 6, 6, 1, 5, 3, 3,
       1, 1, 1, 1, -FLT_MAX, FLT_MAX, false},
      {"dw 3x3/2 VALID m2 tanh", true, false, true, 1, 8, 7, 3, 6, 3, 3, 2, 1,
       1, 1, -1.0f, 1.0f, false},
      {"dw 3x3/1 SAME c12 wide", true, true, false, 1, 3, 70, 12, 12, 3, 3, 1,
       1, 1, 1, -FLT_MAX, FLT_MAX, false},
      /* 4-channel vectors (36 channels), 9 of them along dimension 0. */
      {"dw 3x3/2 SAME c36 relu6", true, true, false, 2, 11, 12, 36, 36, 3, 3, 2,
       2, 1, 1, 0.0f, 6.0f, false},
  };
  for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); ++i) {
    run_depthwise(&specs[i], 1100 + 10 * (uint32_t)i);
  }
}

/* ---- Report ------------------------------------------------------------- */

/* Prints the largest differences seen per kernel (runs last). */
static void test_report(void** state) {
  (void)state;
  assert_true(g_num_diffs > 0);
  for (int i = 0; i < g_num_diffs; ++i) {
    print_message(
        "%-16s %3d outputs compared, max |vk - cl| %.3g, max "
        "relative %.3g\n",
        g_diffs[i].kernel, g_diffs[i].cases, g_diffs[i].abs_diff,
        g_diffs[i].rel_diff);
  }
}

int main(void) {
  /* The loader unloads the validation layer with each instance; keeping
   * it loaded lets LeakSanitizer attribute what the layer keeps (see
   * tests/lsan_gpu_both.supp). */
  void* layer = dlopen("libVkLayer_khronos_validation.so", RTLD_NOW);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pool_hand),
      cmocka_unit_test(test_pool),
      cmocka_unit_test(test_reduce_hand),
      cmocka_unit_test(test_reduce),
      cmocka_unit_test(test_softmax_hand),
      cmocka_unit_test(test_softmax),
      cmocka_unit_test(test_resize),
      cmocka_unit_test(test_remap_hand),
      cmocka_unit_test(test_remap),
      cmocka_unit_test(test_shape_gather),
      cmocka_unit_test(test_matmul_pack),
      cmocka_unit_test(test_matmul_hand),
      cmocka_unit_test(test_matmul),
      cmocka_unit_test(test_transpose_conv),
      cmocka_unit_test(test_conv),
      cmocka_unit_test(test_depthwise_conv),
      cmocka_unit_test(test_report),
  };
  const int failed =
      cmocka_run_group_tests(tests, setup_backends, teardown_backends);
  (void)layer; /* kept loaded until exit, when LeakSanitizer runs */
  return failed;
}
