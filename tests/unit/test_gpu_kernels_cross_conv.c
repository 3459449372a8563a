/* Cross-backend kernel test, part 2 of 2: matmul_pack, matmul,
 * transpose_conv, conv_1x1, conv_general and depthwise_conv (the other
 * kernels are in test_gpu_kernels_cross.c). Each kernel
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
 * Small cases with hand-derived results check matmul and matmul_pack on
 * both backends.
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

/* ---- matmul_pack, matmul ------------------------------------------------ */

/* The packed B layout (matmul_pack.lgk), on the host: per matrix npad / vec
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

/* One matmul.lgk dispatch as emit_matmul makes it (B given packed). */
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
  /* lg_nn_pad_before(out, k, s, 1, in), as lower_conv_matmul.c: 0 for VALID. */
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
  /* lower_conv.c's fill_lanes block (where the device has lanes and too
   * few pixel or column blocks fill them): one 4-channel quad per work
   * item, quads on dimension 0 (LG_W=4 LG_NV=1 LG_OC_FAST). */
  bool quads;
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
  d->zeros_n = 0; /* depthwise_conv reads 0.0 for outside taps itself */
}

/* The output geometry and the input. */
static void conv_data_init(const conv_spec* s, uint32_t seed, conv_data* d) {
  memset(d, 0, sizeof(*d));
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
  assert_non_null(d->bias);
  if (d->zeros_n > 0) {
    d->zeros = calloc(d->zeros_n, sizeof(float));
    assert_non_null(d->zeros);
  }
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
  conv_blk blk = conv_block(s->out_c, pointwise ? pixels : d.out_w,
                            s->kh * s->kw * s->in_c);
  int width = 16;
  if (!pointwise) blk.oc_fast = false; /* conv_general: columns first */
  if (s->quads) {
    width = 4;
    blk.nv = 1;
    blk.oc_fast = true;
  }
  const int block = width * blk.nv, padded = round_up(s->out_c, block);
  const char* aligned = s->out_c % width == 0 ? " -DLG_ALIGNED" : "";
  conv_make(s, block, seed, &d);
  conv_finish_buffers(s, seed, &d);
  const char* act = s->tanh_act ? "-DLG_ACT_TANH" : "";
  char defines[192];
  if (pointwise) {
    snprintf(defines, sizeof(defines),
             "-DLG_W=%d -DLG_NV=%d -DLG_PIX=%d%s%s%s %s", width, blk.nv,
             blk.pix, blk.oc_fast ? " -DLG_OC_FAST" : "", aligned,
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
  snprintf(defines, sizeof(defines),
           "-DLG_W=%d -DLG_NV=%d -DLG_PIX=%d%s%s%s %s", width, blk.nv, blk.pix,
           blk.oc_fast ? " -DLG_OC_FAST" : "", fixed, aligned, act);
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
  const size_t column_blocks = (size_t)ceil_div(d.out_w, blk.pix);
  xcall call = make_call(
      "conv_general", defines, s->label,
      blk.oc_fast ? (size_t)oc_blocks : column_blocks, (size_t)d.out_h,
      (size_t)s->batch * (blk.oc_fast ? column_blocks : (size_t)oc_blocks));
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
   * sh, sw, dh, dw, lo, hi, residual, quads */
  static const conv_spec specs[] = {
      {"1x1 oc5 nv1", false, true, false, 2, 5, 7, 13, 5, 1, 1, 1, 1, 1, 1,
       -FLT_MAX, FLT_MAX, false, false},
      {"1x1 oc64 oc_fast relu6 tanh", false, true, true, 1, 3, 9, 6, 64, 1, 1,
       1, 1, 1, 1, 0.0f, 6.0f, false, false},
      {"1x1 oc40 nv3 residual relu", false, true, false, 1, 4, 4, 11, 40, 1, 1,
       1, 1, 1, 1, 0.0f, FLT_MAX, true, false},
      {"3x3/1 SAME ic7 oc17 nv2", false, true, false, 1, 6, 11, 7, 17, 3, 3, 1,
       1, 1, 1, -FLT_MAX, FLT_MAX, false, false},
      {"3x3/2 SAME ic3 fixed relu", false, true, false, 1, 9, 13, 3, 5, 3, 3, 2,
       2, 1, 1, 0.0f, FLT_MAX, false, false},
      {"3x2 dil2 VALID ic9 oc48 tanh", false, false, true, 2, 8, 10, 9, 48, 3,
       2, 1, 2, 2, 2, -FLT_MAX, FLT_MAX, false, false},
      /* Many work items in several groups: 3 channel blocks x 36 pixel
       * blocks over 24 input channels. */
      {"1x1 ic24 oc96 b2 12x12", false, true, false, 2, 12, 12, 24, 96, 1, 1, 1,
       1, 1, 1, -FLT_MAX, FLT_MAX, false, false},
      /* Quads first: kws_cnn's first conv (10x4/2 SAME, 25x5x64 outputs
       * from 49x10x1), with batch 2 and 62 channels (a partial last quad);
       * a 3x3 one with 37 channels, relu6; and a 1x1 one (the 7x7 layers
       * of MobileNetV2) with 36 channels. */
      {"10x4/2 SAME ic1 oc62 b2 quads", false, true, false, 2, 49, 10, 1, 62,
       10, 4, 2, 2, 1, 1, -FLT_MAX, FLT_MAX, false, true},
      {"3x3/1 SAME ic5 oc37 quads relu6", false, true, false, 1, 4, 3, 5, 37, 3,
       3, 1, 1, 1, 1, 0.0f, 6.0f, false, true},
      {"1x1 ic9 oc36 7x7 quads", false, true, false, 1, 7, 7, 9, 36, 1, 1, 1, 1,
       1, 1, -FLT_MAX, FLT_MAX, false, true},
  };
  for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); ++i) {
    run_conv(&specs[i], 1000 + 10 * (uint32_t)i);
  }
}

static void test_depthwise_conv(void** state) {
  (void)state;
  static const conv_spec specs[] = {
      {"dw 3x3/1 SAME c17 scalar", true, true, false, 1, 6, 7, 17, 17, 3, 3, 1,
       1, 1, 1, -FLT_MAX, FLT_MAX, false, false},
      {"dw 3x3/2 SAME c8 relu", true, true, false, 2, 9, 9, 8, 8, 3, 3, 2, 2, 1,
       1, 0.0f, FLT_MAX, false, false},
      {"dw 5x5 dil2 SAME c32", true, true, false, 1, 7, 40, 32, 32, 5, 5, 1, 1,
       2, 2, -FLT_MAX, FLT_MAX, false, false},
      {"dw 3x3/1 VALID broadcast m5", true, false, false, 1, 6, 6, 1, 5, 3, 3,
       1, 1, 1, 1, -FLT_MAX, FLT_MAX, false, false},
      {"dw 3x3/2 VALID m2 tanh", true, false, true, 1, 8, 7, 3, 6, 3, 3, 2, 1,
       1, 1, -1.0f, 1.0f, false, false},
      {"dw 3x3/1 SAME c12 wide", true, true, false, 1, 3, 70, 12, 12, 3, 3, 1,
       1, 1, 1, -FLT_MAX, FLT_MAX, false, false},
      /* 4-channel vectors (36 channels), 9 of them along dimension 0. */
      {"dw 3x3/2 SAME c36 relu6", true, true, false, 2, 11, 12, 36, 36, 3, 3, 2,
       2, 1, 1, 0.0f, 6.0f, false, false},
  };
  for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); ++i) {
    run_depthwise(&specs[i], 1100 + 10 * (uint32_t)i);
  }
}

/* ---- Main --------------------------------------------------------------- */

int main(void) {
  lg_test_hold_vulkan_libraries(); /* see tests/support/vulkan_hold.h */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matmul_pack), cmocka_unit_test(test_matmul_hand),
      cmocka_unit_test(test_matmul),      cmocka_unit_test(test_transpose_conv),
      cmocka_unit_test(test_conv),        cmocka_unit_test(test_depthwise_conv),
      cmocka_unit_test(test_report),
  };
  const int failed =
      cmocka_run_group_tests(tests, setup_backends, teardown_backends);
  return failed;
}
