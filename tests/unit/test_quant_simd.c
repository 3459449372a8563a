/* runtime/kernels/quant_simd: the INT8 kernels' scalar and vector paths
 * bit for bit against a direct reference written from TFLite's formula
 * (the depthwise pixel, the packed AVX-512 rescale, the VNNI convolution
 * kernel). Depthwise:
 * (sum over the window's taps inside the input of filter * (input +
 * input_offset), + bias, MultiplyByQuantizedMultiplier, + zero point,
 * clamp), on seeded random sizes with remainders of every vector width,
 * random zero points, shifts and padding taps; and hand-derived values.
 * Each vector path runs only where this CPU has it (AVX2; AVX-512 BW; and
 * VNNI); the scalar path runs everywhere. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/kernels/gemm.h"
#include "runtime/kernels/quant_simd.h"
#include "runtime/kernels/quant_util.h"

static uint32_t rng_next(uint32_t* state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

static int rng_int(uint32_t* state, int lo, int hi) {
  return lo + (int)(rng_next(state) % (uint32_t)(hi - lo + 1));
}

typedef void (*dw_pixel_fn)(const lg_dw_int8_params*, const int8_t* const*,
                            int8_t*);

typedef struct dw_path {
  const char* name;
  dw_pixel_fn fn;
  bool available;
} dw_path;

static int dw_paths(dw_path* paths) {
  int n = 0;
  paths[n++] = (dw_path){"scalar", lg_dw_int8_pixel_scalar, true};
#if LG_GEMM_HAVE_X86
  paths[n++] = (dw_path){"avx2", lg_dw_int8_pixel_avx2,
                         lg_gemm_isa_supported(LG_GEMM_ISA_AVX2)};
  paths[n++] =
      (dw_path){"avx512", lg_dw_int8_pixel_avx512, lg_int8_avx512_supported()};
  paths[n++] =
      (dw_path){"vnni", lg_dw_int8_pixel_vnni, lg_int8_vnni_supported()};
#endif
  return n;
}

/* One depthwise pixel: `taps` taps of `channels` channels; tap t is in the
 * padding when pad[t]. Every path's output is compared with the direct
 * reference, with guard bytes after the output. */
typedef struct dw_case {
  int channels, taps;
  int32_t input_zp, output_zp, lo, hi;
  int8_t* x;     /* [taps][channels] */
  bool* pad;     /* [taps] */
  int8_t* w;     /* [taps][channels] */
  int32_t* bias; /* [channels] */
  int32_t* mult; /* [channels] */
  int* shift;    /* [channels] */
} dw_case;

static void dw_reference(const dw_case* k, int8_t* out) {
  const int32_t input_offset = -k->input_zp;
  for (int c = 0; c < k->channels; ++c) {
    int64_t acc = 0;
    for (int t = 0; t < k->taps; ++t) {
      if (k->pad[t]) continue; /* TFLite skips taps outside the input */
      acc += (int64_t)k->w[t * k->channels + c] *
             ((int64_t)k->x[t * k->channels + c] + input_offset);
    }
    acc += k->bias[c];
    /* TFLite's int32 accumulator wraps. */
    const int32_t acc32 = (int32_t)(uint32_t)(uint64_t)acc;
    int32_t v =
        lg_multiply_by_quantized_multiplier(acc32, k->mult[c], k->shift[c]) +
        k->output_zp;
    v = v < k->lo ? k->lo : (v > k->hi ? k->hi : v);
    out[c] = (int8_t)v;
  }
}

/* The row kernels on DW_ROW_PIXELS pixels `step` bytes apart: pixel 0
 * reads the case's inputs, the others altered copies (a kernel that
 * moves its taps wrongly reads other values); each pixel's output against
 * the reference on its own inputs, with guard bytes after the row. */
#define DW_ROW_PIXELS 3
static void dw_check_rows(const dw_case* k, const lg_dw_int8_params* p) {
#if LG_GEMM_HAVE_X86
  typedef void (*row_fn)(const lg_dw_int8_params*, const int8_t* const*,
                         ptrdiff_t, int, int8_t*);
  const struct {
    const char* name;
    row_fn fn;
    bool available;
  } rows[] = {
      {"avx512 row", lg_dw_int8_row_avx512, lg_int8_avx512_supported()},
      {"vnni row", lg_dw_int8_row_vnni, lg_int8_vnni_supported()},
  };
  const int channels = k->channels, count = 2 * p->pairs;
  const size_t image = (size_t)k->taps * channels;
  const ptrdiff_t step = 2 * channels + 5;
  int8_t* xs = malloc(DW_ROW_PIXELS * image + 1);
  int8_t* strip = malloc((size_t)count * DW_ROW_PIXELS * (size_t)step);
  int8_t* want = malloc((size_t)DW_ROW_PIXELS * channels);
  int8_t* got = malloc((size_t)DW_ROW_PIXELS * channels + 32);
  assert_true(xs && strip && want && got);
  const int8_t* taps[2 * 64];
  for (int x = 0; x < DW_ROW_PIXELS; ++x) {
    int8_t* px = xs + x * image;
    for (size_t i = 0; i < image; ++i) {
      px[i] = (int8_t)(uint8_t)((uint8_t)k->x[i] ^ (uint8_t)(0x35 * x));
    }
    dw_case kx = *k;
    kx.x = px;
    dw_reference(&kx, want + x * channels);
    for (int t = 0; t < count; ++t) {
      int8_t* dst = strip + ((size_t)t * DW_ROW_PIXELS + x) * step;
      if (t >= k->taps || k->pad[t]) {
        memset(dst, k->input_zp, (size_t)channels);
      } else {
        memcpy(dst, px + t * channels, (size_t)channels);
      }
    }
  }
  for (int t = 0; t < count; ++t) {
    taps[t] = strip + (size_t)t * DW_ROW_PIXELS * step;
  }
  for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); ++r) {
    if (!rows[r].available) continue;
    memset(got, 0x5a, (size_t)DW_ROW_PIXELS * channels + 32);
    rows[r].fn(p, taps, step, DW_ROW_PIXELS, got);
    for (int i = 0; i < DW_ROW_PIXELS * channels; ++i) {
      if (got[i] != want[i]) {
        fail_msg("%s: pixel %d, channel %d of %d (%d taps): %d, want %d",
                 rows[r].name, i / channels, i % channels, channels, k->taps,
                 got[i], want[i]);
      }
    }
    for (int g = 0; g < 32; ++g) {
      assert_int_equal(got[DW_ROW_PIXELS * channels + g], 0x5a);
    }
  }
  free(xs);
  free(strip);
  free(want);
  free(got);
#else
  (void)k;
  (void)p;
#endif
}

static void dw_check(const dw_case* k) {
  const int channels = k->channels;
  const int pairs = (k->taps + 1) / 2;
  /* The packed form quant_simd.h documents. */
  int16_t* weights = calloc((size_t)pairs * channels * 2, sizeof(int16_t));
  int32_t* fused = calloc((size_t)channels, sizeof(int32_t));
  int8_t* zp_row = malloc((size_t)channels);
  assert_non_null(weights);
  assert_non_null(fused);
  assert_non_null(zp_row);
  memset(zp_row, k->input_zp, (size_t)channels);
  for (int c = 0; c < channels; ++c) {
    uint32_t sum = 0;
    for (int t = 0; t < k->taps; ++t) {
      const int8_t v = k->w[t * channels + c];
      weights[((size_t)(t / 2) * channels + c) * 2 + t % 2] = v;
      sum += (uint32_t)(int32_t)v;
    }
    fused[c] = (int32_t)((uint32_t)k->bias[c] - (uint32_t)k->input_zp * sum);
  }
  const int8_t* taps[2 * 64];
  for (int t = 0; t < 2 * pairs; ++t) {
    taps[t] = t >= k->taps || k->pad[t] ? zp_row : k->x + t * channels;
  }
  lg_requant16* rq = malloc((size_t)(channels + 15) / 16 * sizeof(*rq));
  assert_non_null(rq);
  lg_requant16_pack(k->mult, k->shift, channels, rq);
  /* The AVX-512 path's permuted 32-channel blocks, as quant_simd.h
   * documents them. */
  const int blocks32 = channels / 32;
  int16_t* weights32 =
      calloc((size_t)pairs * (blocks32 + 1) * 64, sizeof(int16_t));
  int32_t* bias32 = calloc((size_t)(blocks32 + 1) * 32, sizeof(int32_t));
  lg_requant16* rq32 = calloc((size_t)(blocks32 + 1) * 2, sizeof(*rq32));
  assert_true(weights32 && bias32 && rq32);
  for (int b = 0; b < blocks32; ++b) {
    int32_t mult[32];
    int shift[32];
    for (int m = 0; m < 32; ++m) {
      const int c = b * 32 + lg_dw_int8_perm32(m);
      mult[m] = k->mult[c];
      shift[m] = k->shift[c];
      bias32[b * 32 + m] = fused[c];
      for (int t = 0; t < k->taps; ++t) {
        weights32[(((size_t)(t / 2) * blocks32 + b) * 32 + m) * 2 + t % 2] =
            k->w[t * channels + c];
      }
    }
    lg_requant16_pack(mult, shift, 32, rq32 + 2 * b);
  }
  const lg_dw_int8_params p = {
      .channels = channels,
      .pairs = pairs,
      .weights = weights,
      .bias = fused,
      .multipliers = k->mult,
      .shifts = k->shift,
      .rq = rq,
      .blocks32 = blocks32,
      .weights32 = weights32,
      .bias32 = bias32,
      .rq32 = rq32,
      .zero_point = k->output_zp,
      .lo = k->lo,
      .hi = k->hi,
  };
  int8_t* want = malloc((size_t)channels);
  int8_t* got = malloc((size_t)channels + 16);
  assert_non_null(want);
  assert_non_null(got);
  dw_reference(k, want);
  dw_path paths[4];
  const int n = dw_paths(paths);
  for (int i = 0; i < n; ++i) {
    if (!paths[i].available) continue;
    memset(got, 0x5a, (size_t)channels + 16);
    paths[i].fn(&p, taps, got);
    for (int c = 0; c < channels; ++c) {
      if (got[c] != want[c]) {
        fail_msg("%s: channel %d of %d (%d taps): %d, want %d", paths[i].name,
                 c, channels, k->taps, got[c], want[c]);
      }
    }
    for (int g = 0; g < 16; ++g) assert_int_equal(got[channels + g], 0x5a);
  }
  dw_check_rows(k, &p);
  free(weights);
  free(weights32);
  free(bias32);
  free(rq32);
  free(rq);
  free(fused);
  free(zp_row);
  free(want);
  free(got);
}

static dw_case dw_alloc(int channels, int taps) {
  dw_case k = {.channels = channels, .taps = taps, .lo = -128, .hi = 127};
  k.x = calloc((size_t)taps * channels, 1);
  k.pad = calloc((size_t)taps, sizeof(bool));
  k.w = calloc((size_t)taps * channels, 1);
  k.bias = calloc((size_t)channels, sizeof(int32_t));
  k.mult = calloc((size_t)channels, sizeof(int32_t));
  k.shift = calloc((size_t)channels, sizeof(int));
  assert_true(k.x && k.pad && k.w && k.bias && k.mult && k.shift);
  return k;
}

static void dw_release(dw_case* k) {
  free(k->x);
  free(k->pad);
  free(k->w);
  free(k->bias);
  free(k->mult);
  free(k->shift);
}

static void test_dw_hand_values(void** state) {
  (void)state;
  /* 1 channel, 3 taps (the third in the padding), input zero point -1
   * (offset 1): acc = 2 * (3 + 1) + -1 * (5 + 1) + 10 = 12; multiplier
   * 2^30 with shift 0 halves it: 6; + output zero point 4 = 10. */
  dw_case k = dw_alloc(1, 3);
  k.input_zp = -1;
  k.output_zp = 4;
  k.x[0] = 3;
  k.x[1] = 5;
  k.x[2] = 100; /* in the padding: never read */
  k.pad[2] = true;
  k.w[0] = 2;
  k.w[1] = -1;
  k.w[2] = 7;
  k.bias[0] = 10;
  k.mult[0] = 1 << 30;
  k.shift[0] = 0;
  int8_t want;
  dw_reference(&k, &want);
  assert_int_equal(want, 10);
  dw_check(&k);
  dw_release(&k);
}

/* Extremes: -128 * -128 products (a pair sums to 2^15), sums that wrap
 * int32 through the bias, results clamped at both ends and by a fused
 * activation's range. */
static void test_dw_extremes(void** state) {
  (void)state;
  const int channels = 40; /* 2 x 16 + 8: every width's step and none left */
  dw_case k = dw_alloc(channels, 9);
  k.input_zp = 127; /* offset -127 */
  k.output_zp = -3;
  for (int t = 0; t < 9; ++t) {
    for (int c = 0; c < channels; ++c) {
      k.x[t * channels + c] = (int8_t)(c % 2 ? -128 : 127);
      k.w[t * channels + c] = (int8_t)(c % 3 ? -128 : 127);
    }
  }
  for (int c = 0; c < channels; ++c) {
    k.bias[c] = c % 4 == 0 ? INT32_MAX - c : (c % 4 == 1 ? INT32_MIN + c : c);
    k.mult[c] = (int32_t)(1u << 30) + c * 1000003;
    k.shift[c] = c % 5 - 3;
  }
  dw_check(&k);
  k.lo = -20;
  k.hi = 6; /* a RELU6-like range */
  for (int c = 0; c < channels; ++c) k.shift[c] = -12 - c % 7;
  dw_check(&k);
  dw_release(&k);
}

static void test_dw_random(void** state) {
  (void)state;
  uint32_t seed = 20261127u;
  static const int channel_counts[] = {1,  3,  7,  8,  9,  15, 16, 17,
                                       24, 31, 32, 33, 40, 47, 72, 100};
  static const int tap_counts[] = {1, 2, 4, 9, 25};
  for (size_t ci = 0; ci < sizeof(channel_counts) / sizeof(int); ++ci) {
    for (size_t ti = 0; ti < sizeof(tap_counts) / sizeof(int); ++ti) {
      const int channels = channel_counts[ci], taps = tap_counts[ti];
      dw_case k = dw_alloc(channels, taps);
      k.input_zp = rng_int(&seed, -128, 127);
      k.output_zp = rng_int(&seed, -128, 127);
      k.lo = rng_int(&seed, -128, 0);
      k.hi = rng_int(&seed, k.lo, 127);
      for (int i = 0; i < taps * channels; ++i) {
        k.x[i] = (int8_t)rng_int(&seed, -128, 127);
        k.w[i] = (int8_t)rng_int(&seed, -127, 127);
      }
      for (int t = 0; t < taps; ++t) k.pad[t] = rng_next(&seed) % 4 == 0;
      for (int c = 0; c < channels; ++c) {
        k.bias[c] = (int32_t)rng_next(&seed) >> rng_int(&seed, 8, 20);
        k.mult[c] = (int32_t)((1u << 30) + (rng_next(&seed) >> 2));
        k.shift[c] = rng_int(&seed, -14, 1);
      }
      dw_check(&k);
      dw_release(&k);
    }
  }
}

/* ---- Requantization ------------------------------------------------------ */

static int8_t requant_reference(int32_t acc, int32_t m, int shift, int32_t zp,
                                int32_t lo, int32_t hi) {
  int32_t v = lg_multiply_by_quantized_multiplier(acc, m, shift) + zp;
  v = v < lo ? lo : (v > hi ? hi : v);
  return (int8_t)v;
}

/* The packed AVX-512 rescale (one floor for both roundings) against the
 * scalar MultiplyByQuantizedMultiplier: every shift in [-31, 31], the
 * rounding boundaries, int32's extremes, n with a partial last block. */
static void test_requant_packed(void** state) {
  (void)state;
  if (!lg_int8_avx512_supported()) {
    printf("no AVX-512: the packed rescale is not run\n");
    return;
  }
  uint32_t seed = 77u;
  enum { N = 16 * 63 + 5 };
  static int32_t acc[N], mult[N];
  static int shift[N];
  static int8_t got[N + 16];
  static lg_requant16 rq[(N + 15) / 16];
  static const int32_t specials[] = {0,
                                     1,
                                     -1,
                                     2,
                                     -2,
                                     3,
                                     -3,
                                     INT32_MAX,
                                     INT32_MIN,
                                     INT32_MIN + 1,
                                     INT32_MAX - 1,
                                     1 << 30,
                                     -(1 << 30),
                                     (1 << 30) + 1,
                                     -(1 << 30) - 1,
                                     1 << 15,
                                     -(1 << 15) - 1};
  for (int round = 0; round < 8; ++round) {
    const int32_t zp = rng_int(&seed, -128, 127);
    const int32_t lo = round % 2 ? -128 : rng_int(&seed, -128, 0);
    const int32_t hi = round % 2 ? 127 : rng_int(&seed, lo, 127);
    for (int i = 0; i < N; ++i) {
      shift[i] = -31 + i % 63;
      /* Multipliers in [2^30, 2^31) (lg_quantize_multiplier's) and a few
       * odd ones (0, 1, 2^31 - 1). */
      mult[i] = i % 97 == 0   ? 0
                : i % 89 == 0 ? 1
                : i % 83 == 0 ? INT32_MAX
                              : (int32_t)((1u << 30) + (rng_next(&seed) >> 2));
      const uint32_t kind = rng_next(&seed) % 4;
      if (kind == 0) {
        acc[i] = specials[rng_next(&seed) % (sizeof(specials) / 4)];
      } else if (kind == 1) {
        /* Near a rounding boundary of the right shift. */
        const int r = shift[i] < 0 ? -shift[i] : 0;
        acc[i] = (int32_t)((rng_next(&seed) % 64) << (r > 24 ? 24 : r)) *
                     (rng_next(&seed) % 2 ? 1 : -1) +
                 rng_int(&seed, -2, 2);
      } else if (kind == 2) {
        acc[i] = rng_int(&seed, -100000, 100000);
      } else {
        acc[i] = (int32_t)rng_next(&seed);
      }
    }
    lg_requant16_pack(mult, shift, N, rq);
    memset(got, 0x5a, sizeof(got));
    const int n = round < 4 ? N : N - 5; /* a partial last block */
    lg_requantize_int8_packed_avx512(acc, n, rq, zp, lo, hi, got);
    for (int i = 0; i < n; ++i) {
      const int8_t want =
          requant_reference(acc[i], mult[i], shift[i], zp, lo, hi);
      if (got[i] != want) {
        fail_msg("acc %d, multiplier %d, shift %d: %d, want %d", acc[i],
                 mult[i], shift[i], got[i], want);
      }
    }
    for (int i = n; i < N + 16; ++i) assert_int_equal(got[i], 0x5a);
  }
}

/* ---- The VNNI convolution kernel ----------------------------------------- */

/* 1 to 4 pixels, each reading ntaps rows of k_tap bytes (padded to 4 *
 * c4 with zeros), against out_c channels, against the direct sum. */
static void conv_vnni_check(int pixels, int ntaps, int k_tap, int out_c,
                            uint32_t* seed) {
  const int c4 = (k_tap + 3) / 4, k4 = ntaps * c4;
  const int blocks = (out_c + 15) / 16;
  uint8_t* rows = calloc((size_t)4 * ntaps * c4 * 4, 1);
  int8_t* w = calloc((size_t)out_c * ntaps * k_tap, 1);
  int8_t* packed = calloc((size_t)blocks * k4 * 64, 1);
  int32_t* init = calloc((size_t)blocks * 16, sizeof(int32_t));
  int32_t* mult = calloc((size_t)out_c, sizeof(int32_t));
  int* shift = calloc((size_t)out_c, sizeof(int));
  lg_requant16* rq = malloc((size_t)blocks * sizeof(*rq));
  int8_t* out = malloc((size_t)4 * (out_c + 16));
  const uint8_t** taps = malloc((size_t)4 * ntaps * sizeof(*taps));
  assert_true(rows && w && packed && init && mult && shift && rq && out &&
              taps);
  for (int p = 0; p < 4; ++p) {
    for (int t = 0; t < ntaps; ++t) {
      /* Rows of a pixel's taps in reverse order: taps need not be
       * adjacent or ordered in memory. */
      uint8_t* row = rows + ((size_t)p * ntaps + (ntaps - 1 - t)) * c4 * 4;
      taps[p * ntaps + t] = row;
      if (p >= pixels) continue;
      for (int i = 0; i < k_tap; ++i) row[i] = (uint8_t)rng_int(seed, 0, 255);
    }
  }
  for (int o = 0; o < out_c; ++o) {
    for (int t = 0; t < ntaps; ++t) {
      for (int i = 0; i < k_tap; ++i) {
        const int8_t v = (int8_t)rng_int(seed, -128, 127);
        const int k = t * c4 * 4 + i; /* the depth index in the rows */
        w[((size_t)o * ntaps + t) * k_tap + i] = v;
        packed[(((size_t)(o / 16) * k4 + k / 4) * 16 + o % 16) * 4 + k % 4] = v;
      }
    }
    init[o] = rng_int(seed, -1000000, 1000000);
    mult[o] = (int32_t)((1u << 30) + (rng_next(seed) >> 2));
    shift[o] = rng_int(seed, -12, 0);
  }
  lg_requant16_pack(mult, shift, out_c, rq);
  /* A fused activation's range now and then: the two-block finish clamps
   * in int16 after saturating there. */
  const int32_t zp = rng_int(seed, -128, 127);
  const int32_t lo = rng_next(seed) % 2 ? -128 : rng_int(seed, -128, 0);
  const int32_t hi = rng_next(seed) % 2 ? 127 : rng_int(seed, lo, 127);
  int8_t* outs[4];
  for (int p = 0; p < 4; ++p) outs[p] = out + p * (out_c + 16);
  memset(out, 0x5a, (size_t)4 * (out_c + 16));
  lg_uint8_conv_vnni(taps, ntaps, c4, pixels, packed, out_c, init, rq, zp, lo,
                     hi, outs);
  for (int p = 0; p < 4; ++p) {
    for (int o = 0; o < out_c + 16; ++o) {
      if (p >= pixels || o >= out_c) {
        assert_int_equal(outs[p][o], 0x5a);
        continue;
      }
      int32_t acc = init[o];
      for (int t = 0; t < ntaps; ++t) {
        for (int i = 0; i < k_tap; ++i) {
          acc +=
              taps[p * ntaps + t][i] * w[((size_t)o * ntaps + t) * k_tap + i];
        }
      }
      const int8_t want = requant_reference(acc, mult[o], shift[o], zp, lo, hi);
      if (outs[p][o] != want) {
        fail_msg("pixel %d of %d, channel %d of %d, %d taps of %d: %d, want %d",
                 p, pixels, o, out_c, ntaps, k_tap, outs[p][o], want);
      }
    }
  }
  free(rows);
  free(w);
  free(packed);
  free(init);
  free(mult);
  free(shift);
  free(rq);
  free(out);
  free(taps);
}

static void test_conv_vnni(void** state) {
  (void)state;
  if (!lg_int8_vnni_supported()) {
    printf("no AVX-512 VNNI: the convolution kernel is not run\n");
    return;
  }
  uint32_t seed = 4242u;
  /* One gathered row (any depth: padded to 4), and windows read tap by
   * tap (depths per tap multiples of 4, odd and even group counts). */
  static const int shapes[][2] = {{1, 1},  {1, 3},  {1, 4},   {1, 5},
                                  {1, 27}, {1, 64}, {1, 161}, {9, 4},
                                  {9, 8},  {9, 12}, {4, 16},  {25, 4}};
  static const int channels[] = {1, 8, 16, 17, 24, 32, 40, 48, 100};
  for (int pixels = 1; pixels <= 4; ++pixels) {
    for (size_t d = 0; d < sizeof(shapes) / sizeof(shapes[0]); ++d) {
      for (size_t c = 0; c < sizeof(channels) / sizeof(int); ++c) {
        conv_vnni_check(pixels, shapes[d][0], shapes[d][1], channels[c], &seed);
      }
    }
  }
}

/* The VNNI rows' byte flip: every length 0 to 200 (whole 64-byte steps and
 * masked tails), nothing written past n. */
static void test_flip_bytes(void** state) {
  (void)state;
  if (!lg_int8_vnni_supported()) return;
  uint8_t src[200], dst[200 + 64];
  for (int i = 0; i < 200; ++i) src[i] = (uint8_t)(i * 37 + 11);
  for (int n = 0; n <= 200; ++n) {
    memset(dst, 0x5a, sizeof(dst));
    lg_flip_bytes_avx512(src, (size_t)n, dst);
    for (int i = 0; i < n; ++i) assert_int_equal(dst[i], src[i] ^ 0x80);
    for (int i = n; i < (int)sizeof(dst); ++i) assert_int_equal(dst[i], 0x5a);
  }
}

/* The in-place taps' flip with each pixel padded to whole 4-byte groups:
 * 3 channels (the 4-pixel shuffle, which must stop before its 16-byte
 * load passes the input: the input is allocated to its exact size, so
 * ASan sees an overread) and the one-by-one path (5 channels in 8, 1 in
 * 4), every pixel count 0 to 40, nothing written past the pixels. */
static void test_flip_pad_bytes(void** state) {
  (void)state;
  if (!lg_gemm_isa_supported(LG_GEMM_ISA_AVX2)) return;
  const int depths[][2] = {{3, 4}, {5, 8}, {1, 4}};
  for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); ++d) {
    const int in_c = depths[d][0], flip_c = depths[d][1];
    for (int pixels = 0; pixels <= 40; ++pixels) {
      const size_t in_bytes = (size_t)pixels * in_c;
      uint8_t* src = malloc(in_bytes > 0 ? in_bytes : 1);
      uint8_t dst[40 * 8 + 16];
      assert_non_null(src);
      for (size_t i = 0; i < in_bytes; ++i) src[i] = (uint8_t)(i * 53 + 7);
      memset(dst, 0x5a, sizeof(dst));
      lg_flip_pad_bytes_avx2(src, (size_t)pixels, in_c, flip_c, dst);
      for (int p = 0; p < pixels; ++p) {
        for (int c = 0; c < in_c; ++c) {
          assert_int_equal(dst[p * flip_c + c], src[p * in_c + c] ^ 0x80);
        }
      }
      for (size_t i = (size_t)pixels * flip_c; i < sizeof(dst); ++i) {
        assert_int_equal(dst[i], 0x5a);
      }
      free(src);
    }
  }
}

/* ---- INT8 ADD / SUB / SQUARED_DIFFERENCE rows -----------------------------
 */

/* TFLite's integer ADD of one element (the scalar formula the kernels
 * implement), sign 1 add, -1 subtract, 2 squared difference. */
static int8_t add_reference(int8_t a, int8_t b, int sign,
                            const lg_int8_add_params* p) {
  const int32_t x = lg_multiply_by_quantized_multiplier(
      (int32_t)((uint32_t)(a + p->in1_offset) << p->left_shift),
      p->in1_multiplier, p->in1_shift);
  const int32_t y = lg_multiply_by_quantized_multiplier(
      (int32_t)((uint32_t)(b + p->in2_offset) << p->left_shift),
      p->in2_multiplier, p->in2_shift);
  const int32_t d = sign == 1 ? x + y : x - y;
  /* d * d fits int32 with TFLite's parameters (and the test's): int64
   * only keeps a wrong parameter choice from being undefined. */
  const int32_t dd = (int32_t)(uint32_t)(uint64_t)((int64_t)d * d);
  int32_t v = lg_multiply_by_quantized_multiplier(
                  sign == 2 ? dd : d, p->out_multiplier, p->out_shift) +
              p->out_offset;
  v = v < p->min ? p->min : (v > p->max ? p->max : v);
  return (int8_t)v;
}

/* TFLite's INT8 MUL of one element (the output rescale only). */
static int8_t mul_reference(int8_t a, int8_t b, const lg_int8_add_params* p) {
  int32_t v = lg_multiply_by_quantized_multiplier(
                  (a + p->in1_offset) * (b + p->in2_offset), p->out_multiplier,
                  p->out_shift) +
              p->out_offset;
  v = v < p->min ? p->min : (v > p->max ? p->max : v);
  return (int8_t)v;
}

/* Rows of every length 0 to 70 of a and b through the AVX2 and (where
 * the CPU has it) AVX-512 kernels of `sign` (0 MUL; 1, -1, 2: ADD, SUB,
 * SQUARED_DIFFERENCE) against the reference, guard bytes after. */
static void check_rows(const int8_t* a, const int8_t* b, int sign,
                       const lg_int8_add_params* p) {
  int8_t got[70 + 16];
  for (int n = 0; n <= 70; ++n) {
    for (int path = 0; path < 2; ++path) {
      if (path == 1 && !lg_int8_avx512_supported()) continue;
      memset(got, 0x5a, sizeof(got));
      if (sign == 0) {
        (path ? lg_mul_int8_avx512 : lg_mul_int8_avx2)(a, b, n, p, got);
      } else {
        (path ? lg_add_int8_avx512 : lg_add_int8_avx2)(a, b, n, sign, p, got);
      }
      for (int i = 0; i < n; ++i) {
        const int8_t want = sign == 0 ? mul_reference(a[i], b[i], p)
                                      : add_reference(a[i], b[i], sign, p);
        if (got[i] != want) {
          fail_msg("%s sign %d, n %d, element %d: %d, want %d",
                   path ? "avx512" : "avx2", sign, n, i, got[i], want);
        }
      }
      for (int i = n; i < (int)sizeof(got); ++i) {
        assert_int_equal(got[i], 0x5a);
      }
    }
  }
}

/* The AVX2 and AVX-512 rows against the formula: random scales (as
 * TFLite's PrepareGeneralSubOp makes them: left shift 20, input
 * multipliers below 2^31 with shifts <= 0), every length 0 to 70. */
static void test_add_rows(void** state) {
  (void)state;
  if (!lg_gemm_isa_supported(LG_GEMM_ISA_AVX2)) return;
  uint32_t seed = 99u;
  int8_t a[70], b[70];
  for (int round = 0; round < 12; ++round) {
    const int sign = round % 3 == 0 ? 1 : (round % 3 == 1 ? -1 : 2);
    lg_int8_add_params p = {
        .in1_offset = rng_int(&seed, -127, 128),
        .in2_offset = rng_int(&seed, -127, 128),
        .out_offset = rng_int(&seed, -128, 127),
        .in1_multiplier = (int32_t)((1u << 30) + (rng_next(&seed) >> 2)),
        .in2_multiplier = (int32_t)((1u << 30) + (rng_next(&seed) >> 2)),
        .out_multiplier = (int32_t)((1u << 30) + (rng_next(&seed) >> 2)),
        /* Squared differences: inputs scaled below 2^14 (TFLite's input
         * multipliers are below 1/2 there), so d * d fits int32. */
        .in1_shift = rng_int(&seed, -4, sign == 2 ? -1 : 0),
        .in2_shift = rng_int(&seed, -4, sign == 2 ? -1 : 0),
        .out_shift =
            sign == 2 ? rng_int(&seed, -31, -20) : rng_int(&seed, -22, -16),
        .left_shift = sign == 2 ? 7 : 20,
        .min = round % 2 ? -128 : rng_int(&seed, -128, 0),
        .max = 127,
    };
    for (int i = 0; i < 70; ++i) {
      a[i] = (int8_t)rng_int(&seed, -128, 127);
      b[i] = (int8_t)rng_int(&seed, -128, 127);
    }
    check_rows(a, b, sign, &p);
  }
}

/* INT8 MUL rows (AVX2, and AVX-512 where the CPU has it) against
 * TFLite's formula clamp(MBQM((a + o1) * (b + o2)) + zero point): random
 * offsets and output rescales with right and left shifts (products of
 * offset values reach 2^16), fused ranges, every length 0 to 70. */
static void test_mul_rows(void** state) {
  (void)state;
  if (!lg_gemm_isa_supported(LG_GEMM_ISA_AVX2)) return;
  uint32_t seed = 707u;
  int8_t a[70], b[70];
  for (int round = 0; round < 12; ++round) {
    lg_int8_add_params p = {
        .in1_offset = rng_int(&seed, -127, 128),
        .in2_offset = rng_int(&seed, -127, 128),
        .out_offset = rng_int(&seed, -128, 127),
        .out_multiplier = (int32_t)((1u << 30) + (rng_next(&seed) >> 2)),
        .out_shift = rng_int(&seed, -16, 1),
        .min = round % 2 ? -128 : rng_int(&seed, -128, 0),
        .max = round % 3 ? 127 : rng_int(&seed, 0, 127),
    };
    for (int i = 0; i < 70; ++i) {
      a[i] = (int8_t)rng_int(&seed, -128, 127);
      b[i] = (int8_t)rng_int(&seed, -128, 127);
    }
    check_rows(a, b, 0, &p);
  }
}

/* The one-row VNNI dot products (FULLY_CONNECTED): depths with every
 * remainder of the 4-group unroll, outputs with partial last blocks. */
static void test_dots_vnni(void** state) {
  (void)state;
  if (!lg_int8_vnni_supported()) return;
  uint32_t seed = 515u;
  static const int depths[] = {1, 4, 13, 16, 17, 30, 64, 101};
  static const int outputs[] = {1, 15, 16, 17, 40, 100};
  for (size_t d = 0; d < sizeof(depths) / sizeof(int); ++d) {
    for (size_t o = 0; o < sizeof(outputs) / sizeof(int); ++o) {
      const int k = depths[d], n = outputs[o];
      const int k4 = (k + 3) / 4, blocks = (n + 15) / 16;
      uint8_t* row = calloc((size_t)k4 * 4, 1);
      int8_t* w = calloc((size_t)n * k, 1);
      int8_t* packed = calloc((size_t)blocks * k4 * 64, 1);
      int32_t* init = calloc((size_t)blocks * 16, sizeof(int32_t));
      int32_t* sums = malloc(((size_t)n + 16) * sizeof(int32_t));
      assert_true(row && w && packed && init && sums);
      for (int i = 0; i < k; ++i) row[i] = (uint8_t)rng_int(&seed, 0, 255);
      for (int c = 0; c < n; ++c) {
        init[c] = rng_int(&seed, -100000, 100000);
        for (int i = 0; i < k; ++i) {
          const int8_t v = (int8_t)rng_int(&seed, -128, 127);
          w[c * k + i] = v;
          packed[(((size_t)(c / 16) * k4 + i / 4) * 16 + c % 16) * 4 + i % 4] =
              v;
        }
      }
      for (int c = 0; c < n + 16; ++c) sums[c] = 0x5a5a5a5a;
      lg_uint8_dots_vnni(row, packed, k4, n, init, sums);
      for (int c = 0; c < n; ++c) {
        int32_t want = init[c];
        for (int i = 0; i < k; ++i) want += row[i] * w[c * k + i];
        if (sums[c] != want) {
          fail_msg("depth %d, output %d of %d: %d, want %d", k, c, n, sums[c],
                   want);
        }
      }
      for (int c = n; c < n + 16; ++c) assert_int_equal(sums[c], 0x5a5a5a5a);
      free(row);
      free(w);
      free(packed);
      free(init);
      free(sums);
    }
  }
}

/* FULLY_CONNECTED's INT8 rescale (double product, round half away from
 * zero, INT32_MIN out of int32, + offset, clamp) against the scalar
 * formula: exact ties of both signs (scale 1/2 and 1/4 on odd sums),
 * products beyond int32 either way, int32's extremes, offsets at both
 * ends of int8 with activation ranges, every length 0 to 20. */
static void test_scale_round(void** state) {
  (void)state;
  if (!lg_int8_avx512_supported()) {
    printf("no AVX-512: the FULLY_CONNECTED rescale is not run\n");
    return;
  }
  uint32_t seed = 3131u;
  enum { N = 20 };
  int32_t acc[N];
  double scales[N];
  int8_t got[N + 16];
  static const int32_t specials[] = {
      1,         -1,        3,       -3,         5,          -5,
      INT32_MAX, INT32_MIN, 1 << 30, -(1 << 30), 2147483647, -2147483647};
  static const double special_scales[] = {
      0.5, 0.25, 1.0, 2.0, 3e-5, 1e6, 0.125, 0.75, 1.5e-3, 4.2e-2, 1e-9, 3.0};
  for (int round = 0; round < 24; ++round) {
    const int32_t offset =
        round % 3 == 0 ? -128
                       : (round % 3 == 1 ? 127 : rng_int(&seed, -128, 127));
    const int32_t lo = round % 2 ? -128 : rng_int(&seed, -128, 0);
    const int32_t hi = round % 4 < 2 ? 127 : rng_int(&seed, lo, 127);
    for (int i = 0; i < N; ++i) {
      const bool special = rng_next(&seed) % 2 == 0;
      acc[i] = special ? specials[rng_next(&seed) % 12]
                       : (int32_t)rng_next(&seed) >> rng_int(&seed, 0, 24);
      scales[i] = special_scales[rng_next(&seed) % 12];
    }
    for (int n = 0; n <= N; ++n) {
      memset(got, 0x5a, sizeof(got));
      lg_scale_round_int8_avx512(acc, scales, n, offset, lo, hi, got);
      for (int i = 0; i < n; ++i) {
        int64_t v =
            (int64_t)lg_quant_round_to_int_double((double)acc[i] * scales[i]) +
            offset;
        v = v < lo ? lo : (v > hi ? hi : v);
        if (got[i] != (int8_t)v) {
          fail_msg("n %d, element %d: %d * %g + %d: %d, want %d", n, i, acc[i],
                   scales[i], offset, got[i], (int)v);
        }
      }
      for (int i = n; i < (int)sizeof(got); ++i) {
        assert_int_equal(got[i], 0x5a);
      }
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dw_hand_values),
      cmocka_unit_test(test_dw_extremes),
      cmocka_unit_test(test_dw_random),
      cmocka_unit_test(test_requant_packed),
      cmocka_unit_test(test_conv_vnni),
      cmocka_unit_test(test_flip_bytes),
      cmocka_unit_test(test_flip_pad_bytes),
      cmocka_unit_test(test_add_rows),
      cmocka_unit_test(test_mul_rows),
      cmocka_unit_test(test_dots_vnni),
      cmocka_unit_test(test_scale_round),
  };
  printf("quant_simd paths: avx2 %s, avx512 %s, avx512 vnni %s\n",
         lg_gemm_isa_supported(LG_GEMM_ISA_AVX2) ? "yes" : "no",
         lg_int8_avx512_supported() ? "yes" : "no",
         lg_int8_vnni_supported() ? "yes" : "no");
  return cmocka_run_group_tests(tests, NULL, NULL);
}
