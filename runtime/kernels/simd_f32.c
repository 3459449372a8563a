/* Float32 elementwise rows (see simd_f32.h). One element expression per
 * op, written three times: scalar C, AVX2 (8 lanes) and AVX-512F (16
 * lanes). The vector forms use only operations whose lane results equal
 * the scalar expression's:
 *   max_ps(a, b) is `a > b ? a : b` and min_ps(a, b) is `a < b ? a : b`
 *   (the second operand when either is NaN), so the clamp
 *   `x < lo ? lo : (x > hi ? hi : x)` is max_ps(lo, min_ps(hi, x)) for
 *   lo <= hi and a NaN comes through as NaN;
 *   a selection `c ? x : x * a` is a blend on an ordered compare (false for
 *   NaN, as C's comparison).
 * The vector functions are compiled for "avx2" without "fma" so that no
 * multiply and add are ever contracted. GELU is the exception: vector
 * approximations of its functions (see simd_f32.h), with FMA. */
#include "runtime/kernels/simd_f32.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/logistic_f32.h"

#if LG_GEMM_HAVE_X86
#include <immintrin.h>
#endif

/* ---- Scalar -------------------------------------------------------------- */

static inline float lg_f32_binop_scalar(lg_f32_binop op, float a, float b,
                                        float lo, float hi) {
  switch (op) {
    case LG_F32_ADD:
      return lg_kernel_clamp_float(a + b, lo, hi);
    case LG_F32_SUB:
      return lg_kernel_clamp_float(a - b, lo, hi);
    case LG_F32_MUL:
      return lg_kernel_clamp_float(a * b, lo, hi);
    case LG_F32_DIV:
      return lg_kernel_clamp_float(a / b, lo, hi);
    case LG_F32_MAX:
      return a > b ? a : b;
    case LG_F32_MIN:
      return a < b ? a : b;
    default: {
      const float d = a - b;
      return d * d;
    }
  }
}

static void lg_f32_binary_scalar(lg_f32_binop op, const float* x, ptrdiff_t sx,
                                 const float* y, ptrdiff_t sy, float* out,
                                 int64_t n, float lo, float hi) {
  for (int64_t i = 0; i < n; ++i) {
    out[i] = lg_f32_binop_scalar(op, x[i * sx], y[i * sy], lo, hi);
  }
}

/* std::max(0, x + 3) and std::min(6, .) as TFLite writes them: a NaN sum
 * gives 0, and x * 0 keeps the NaN. */
static inline float lg_f32_hard_swish_scalar(float x) {
  float relu6 = x + 3.0f;
  relu6 = 0.0f < relu6 ? relu6 : 0.0f;
  relu6 = relu6 < 6.0f ? relu6 : 6.0f;
  return x * relu6 / 6.0f;
}

#if LG_GEMM_HAVE_X86

/* ---- GELU's constants ---------------------------------------------------- */

/* e^x = 2^n e^r with n = round(x log2(e)) and r = x - n ln(2), |r| <=
 * ln(2) / 2; ln(2) is split in two (Cody and Waite) so that n * LN2_HI is
 * exact. e^r is its Taylor polynomial to r^7 (truncation error below 5e-9
 * relative), coefficients highest power first. Below EXP_MIN, e^x is under
 * half the smallest subnormal float. */
#define LG_F32_LOG2E 1.44269504088896341f
#define LG_F32_LN2_HI 0.693145751953125f
#define LG_F32_LN2_LO 1.42860682030941723e-6f
#define LG_F32_EXP_MIN -103.98f
static const float kLgF32ExpTaylor[8] = {
    1.0f / 5040.0f, 1.0f / 720.0f, 1.0f / 120.0f, 1.0f / 24.0f,
    1.0f / 6.0f,    0.5f,          1.0f,          1.0f};

/* erfc(z) for z >= 0 as t e^(-z^2 + q) with t = 1 / (1 + z / 2): q, a
 * function of t, is smooth on t in (0, 1] (it tends to -log(2 sqrt(pi)) as
 * z grows), so a degree-9 polynomial in s = 2t - 1 (a Chebyshev
 * least-squares fit in double, tools/bench/fit_erfc.py) gives erfc to
 * 1.1e-7 relative at every z. In s, rather than t, the terms' magnitudes
 * add up to at most 1.5 (6.8 in t), so float rounding stays small.
 * Coefficients highest power first. */
static const float kLgF32ErfcQ[10] = {
    0.000333735894f, -0.000207909121f, -0.00204873481f, 0.00177656463f,
    0.00870381203f,  -0.00987376831f,  -0.0468748882f,  0.0473431051f,
    0.672642231f,    -0.671794057f};
/* tanh(x) = x + x^3 P(x^2) below LG_F32_TANH_SMALL: P is tanh's Taylor
 * series from the x^3 term to the x^19 one (the next term is below 1e-9
 * relative there), highest power first. Above it, 1 - 2e / (1 + e) with e =
 * e^(-2|x|), a result of at least 0.5, where the exp's ulp stays below half
 * the result's. */
#define LG_F32_TANH_SMALL 0.55f
static const float kLgF32TanhTaylor[9] = {
    -2.39129114243552e-04f, 5.90027440945586e-04f,  -1.45583438705132e-03f,
    3.59212803657248e-03f,  -8.86323552990220e-03f, 2.18694885361552e-02f,
    -5.39682539682540e-02f, 1.33333333333333e-01f,  -3.33333333333333e-01f};
/* expm1(x) = x + x^2 P(x) for |x| below 1: P is the Taylor series of
 * (e^x - 1 - x) / x^2 to the x^11 term (1 / 13!, below 2e-10), highest
 * power first; from -1 down, e^x - 1 (at most 0.37 from the exp, whose ulp
 * is then a quarter of the result's). */
static const float kLgF32Expm1Taylor[12] = {
    1.0f / 6227020800.0f, 1.0f / 479001600.0f, 1.0f / 39916800.0f,
    1.0f / 3628800.0f,    1.0f / 362880.0f,    1.0f / 40320.0f,
    1.0f / 5040.0f,       1.0f / 720.0f,       1.0f / 120.0f,
    1.0f / 24.0f,         1.0f / 6.0f,         0.5f};

/* Past this z, erfc(z) < 2^-150: z is clamped there so that z^2 stays
 * finite for infinite x. */
#define LG_F32_ERFC_Z_MAX 10.5f
/* 2 sqrt(2 / pi): the tanh form is x * logistic(2u). */
#define LG_F32_GELU_TWO_K 1.59576912160573071f
#define LG_F32_GELU_CUBIC 0.044715f
#define LG_F32_SQRT_HALF 0.707106781186547524f

/* ---- AVX-512F ------------------------------------------------------------ */

#define LG_F32_AVX512 __attribute__((target("avx512f")))
#define LG_F32_AVX512_INLINE \
  static inline __attribute__((always_inline, target("avx512f")))

/* The first `n` (< 16) lanes. */
LG_F32_AVX512_INLINE __mmask16 lg_f32_mask16(int64_t n) {
  return (__mmask16)((1u << n) - 1u);
}

/* lg_f32_NAME_avx512(x, out, n): lg_f32_NAME16 over a row, whole vectors
 * then a masked tail. */
#define LG_F32_ROW16(name)                                                     \
  LG_F32_AVX512 static void lg_f32_##name##_avx512(const float* x, float* out, \
                                                   int64_t n) {                \
    int64_t i = 0;                                                             \
    for (; i + 16 <= n; i += 16) {                                             \
      _mm512_storeu_ps(out + i, lg_f32_##name##16(_mm512_loadu_ps(x + i)));    \
    }                                                                          \
    if (i < n) {                                                               \
      const __mmask16 m = lg_f32_mask16(n - i);                                \
      _mm512_mask_storeu_ps(                                                   \
          out + i, m, lg_f32_##name##16(_mm512_maskz_loadu_ps(m, x + i)));     \
    }                                                                          \
  }

LG_F32_AVX512_INLINE __m512 lg_f32_clamp16(__m512 v, __m512 lo, __m512 hi) {
  return _mm512_max_ps(lo, _mm512_min_ps(hi, v));
}

LG_F32_AVX512_INLINE __m512 lg_f32_binop16(const lg_f32_binop op, __m512 a,
                                           __m512 b, __m512 lo, __m512 hi) {
  switch (op) {
    case LG_F32_ADD:
      return lg_f32_clamp16(_mm512_add_ps(a, b), lo, hi);
    case LG_F32_SUB:
      return lg_f32_clamp16(_mm512_sub_ps(a, b), lo, hi);
    case LG_F32_MUL:
      return lg_f32_clamp16(_mm512_mul_ps(a, b), lo, hi);
    case LG_F32_DIV:
      return lg_f32_clamp16(_mm512_div_ps(a, b), lo, hi);
    case LG_F32_MAX:
      return _mm512_max_ps(a, b);
    case LG_F32_MIN:
      return _mm512_min_ps(a, b);
    default: {
      const __m512 d = _mm512_sub_ps(a, b);
      return _mm512_mul_ps(d, d);
    }
  }
}

/* `op` is a constant in each caller below, so every switch folds away. */
LG_F32_AVX512_INLINE void lg_f32_binary16(const lg_f32_binop op, const float* x,
                                          ptrdiff_t sx, const float* y,
                                          ptrdiff_t sy, float* out, int64_t n,
                                          float lo_s, float hi_s) {
  const __m512 lo = _mm512_set1_ps(lo_s), hi = _mm512_set1_ps(hi_s);
  const __m512 xr = _mm512_set1_ps(x[0]), yr = _mm512_set1_ps(y[0]);
  int64_t i = 0;
  if (sx != 0 && sy != 0) {
    for (; i + 16 <= n; i += 16) {
      const __m512 a = _mm512_loadu_ps(x + i), b = _mm512_loadu_ps(y + i);
      _mm512_storeu_ps(out + i, lg_f32_binop16(op, a, b, lo, hi));
    }
  } else if (sx != 0) {
    for (; i + 16 <= n; i += 16) {
      const __m512 a = _mm512_loadu_ps(x + i);
      _mm512_storeu_ps(out + i, lg_f32_binop16(op, a, yr, lo, hi));
    }
  } else {
    for (; i + 16 <= n; i += 16) {
      const __m512 b = sy != 0 ? _mm512_loadu_ps(y + i) : yr;
      _mm512_storeu_ps(out + i, lg_f32_binop16(op, xr, b, lo, hi));
    }
  }
  if (i < n) {
    const __mmask16 m = lg_f32_mask16(n - i);
    const __m512 a = sx != 0 ? _mm512_maskz_loadu_ps(m, x + i) : xr;
    const __m512 b = sy != 0 ? _mm512_maskz_loadu_ps(m, y + i) : yr;
    _mm512_mask_storeu_ps(out + i, m, lg_f32_binop16(op, a, b, lo, hi));
  }
}

/* `rows` rows of n outputs: row r reads x + r * x_row and y + r * y_row
 * (each with its element stride) and writes out + r * n. */
#define LG_F32_BINARY_FN(isa, width, op)                                      \
  LG_F32_##isa static void lg_f32_##op##_##isa(                               \
      const float* x, ptrdiff_t sx, ptrdiff_t x_row, const float* y,          \
      ptrdiff_t sy, ptrdiff_t y_row, float* out, int64_t n, int64_t rows,     \
      float lo, float hi) {                                                   \
    for (int64_t r = 0; r < rows; ++r) {                                      \
      lg_f32_binary##width(LG_F32_##op, x + r * x_row, sx, y + r * y_row, sy, \
                           out + r * n, n, lo, hi);                           \
    }                                                                         \
  }

typedef void (*lg_f32_binary_fn)(const float* x, ptrdiff_t sx, ptrdiff_t x_row,
                                 const float* y, ptrdiff_t sy, ptrdiff_t y_row,
                                 float* out, int64_t n, int64_t rows, float lo,
                                 float hi);

#define LG_F32_BINARY_TABLE(isa, width)                                   \
  LG_F32_BINARY_FN(isa, width, ADD)                                       \
  LG_F32_BINARY_FN(isa, width, SUB)                                       \
  LG_F32_BINARY_FN(isa, width, MUL)                                       \
  LG_F32_BINARY_FN(isa, width, DIV)                                       \
  LG_F32_BINARY_FN(isa, width, MAX)                                       \
  LG_F32_BINARY_FN(isa, width, MIN)                                       \
  LG_F32_BINARY_FN(isa, width, SQDIFF)                                    \
  static const lg_f32_binary_fn lg_f32_binary_##isa[LG_F32_BINOP_COUNT] = \
      {                                                                   \
          lg_f32_ADD_##isa,   lg_f32_SUB_##isa, lg_f32_MUL_##isa,         \
          lg_f32_DIV_##isa,   lg_f32_MAX_##isa, lg_f32_MIN_##isa,         \
          lg_f32_SQDIFF_##isa};

LG_F32_BINARY_TABLE(AVX512, 16)

LG_F32_AVX512 static void lg_f32_clamp_avx512(const float* x, float* out,
                                              int64_t n, float lo_s,
                                              float hi_s) {
  const __m512 lo = _mm512_set1_ps(lo_s), hi = _mm512_set1_ps(hi_s);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm512_storeu_ps(out + i, lg_f32_clamp16(_mm512_loadu_ps(x + i), lo, hi));
  }
  if (i < n) {
    const __mmask16 m = lg_f32_mask16(n - i);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    _mm512_mask_storeu_ps(out + i, m, lg_f32_clamp16(v, lo, hi));
  }
}

/* v where v > 0 (`strict`, LEAKY_RELU) or v >= 0 (PRELU), else v * a.
 * `strict`: keep v where v > 0 (LEAKY_RELU), else where v >= 0 (PRELU).
 * The compare predicate must be a literal for clang. */
LG_F32_AVX512_INLINE __m512 lg_f32_select16(__m512 v, __m512 a,
                                            const bool strict) {
  const __m512 zero = _mm512_setzero_ps();
  const __mmask16 keep = strict ? _mm512_cmp_ps_mask(v, zero, _CMP_GT_OQ)
                                : _mm512_cmp_ps_mask(v, zero, _CMP_GE_OQ);
  return _mm512_mask_blend_ps(keep, _mm512_mul_ps(v, a), v);
}

LG_F32_AVX512_INLINE void lg_f32_prelu16(const float* x, const float* alpha,
                                         ptrdiff_t alpha_step, float* out,
                                         int64_t n) {
  const __m512 ar = _mm512_set1_ps(alpha[0]);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 a = alpha_step != 0 ? _mm512_loadu_ps(alpha + i) : ar;
    const __m512 v = _mm512_loadu_ps(x + i);
    _mm512_storeu_ps(out + i, lg_f32_select16(v, a, false));
  }
  if (i < n) {
    const __mmask16 m = lg_f32_mask16(n - i);
    const __m512 a = alpha_step != 0 ? _mm512_maskz_loadu_ps(m, alpha + i) : ar;
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    _mm512_mask_storeu_ps(out + i, m, lg_f32_select16(v, a, false));
  }
}

LG_F32_AVX512 static void lg_f32_prelu_avx512(const float* x,
                                              const float* alpha,
                                              ptrdiff_t alpha_step, float* out,
                                              int64_t n) {
  lg_f32_prelu16(x, alpha, alpha_step, out, n);
}

LG_F32_AVX512 static void lg_f32_prelu_rows_avx512(const float* x,
                                                   const float* alpha,
                                                   float* out, int64_t rows,
                                                   int64_t inner) {
  for (int64_t r = 0; r < rows; ++r) {
    lg_f32_prelu16(x + r * inner, alpha, 1, out + r * inner, inner);
  }
}

LG_F32_AVX512 static void lg_f32_leaky_relu_avx512(const float* x,
                                                   float alpha_s, float* out,
                                                   int64_t n) {
  const __m512 a = _mm512_set1_ps(alpha_s);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    _mm512_storeu_ps(out + i, lg_f32_select16(v, a, true));
  }
  if (i < n) {
    const __mmask16 m = lg_f32_mask16(n - i);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    _mm512_mask_storeu_ps(out + i, m, lg_f32_select16(v, a, true));
  }
}

/* HARD_SWISH's division by 6 without a divide instruction (whose
 * throughput, one vector per ~10 cycles, made it most of a fused
 * convolution's epilogue): q0 = p * RN(1/6), the remainder p - 6 q0 (exact
 * in a fused multiply-add), and q0 plus the remainder times RN(1/6) is p / 6
 * correctly rounded for every float p with 2^-122 <= |p| < inf (checked
 * against the division for all 2^32 floats). Zeros take p's sign, and the
 * rest (quotients near the subnormal range, infinities, NaN) divide. */
#define LG_F32_DIV6_MIN 0x1p-122f

LG_F32_AVX512_INLINE __m512 lg_f32_div6_16(__m512 p) {
  const __m512 six = _mm512_set1_ps(6.0f);
  const __m512 sixth = _mm512_set1_ps(1.0f / 6.0f);
  const __m512 q0 = _mm512_mul_ps(p, sixth);
  const __m512 r = _mm512_fnmadd_ps(q0, six, p);
  __m512 q = _mm512_fmadd_ps(r, sixth, q0);
  q = _mm512_castsi512_ps(_mm512_or_si512(
      _mm512_castps_si512(q),
      _mm512_and_si512(_mm512_castps_si512(p), _mm512_set1_epi32(INT32_MIN))));
  const __m512 a = _mm512_abs_ps(p);
  const __mmask16 ok =
      (_mm512_cmp_ps_mask(a, _mm512_set1_ps(LG_F32_DIV6_MIN), _CMP_GE_OQ) &
       _mm512_cmp_ps_mask(a, _mm512_set1_ps(INFINITY), _CMP_LT_OQ)) |
      _mm512_cmp_ps_mask(a, _mm512_setzero_ps(), _CMP_EQ_OQ);
  if (ok != 0xFFFF) q = _mm512_mask_div_ps(q, (__mmask16)~ok, p, six);
  return q;
}

LG_F32_AVX512_INLINE __m512 lg_f32_hard_swish16(__m512 v) {
  __m512 relu6 = _mm512_add_ps(v, _mm512_set1_ps(3.0f));
  relu6 = _mm512_max_ps(relu6, _mm512_setzero_ps());  /* 0 < r ? r : 0 */
  relu6 = _mm512_min_ps(relu6, _mm512_set1_ps(6.0f)); /* r < 6 ? r : 6 */
  return lg_f32_div6_16(_mm512_mul_ps(v, relu6));
}

LG_F32_ROW16(hard_swish)

LG_F32_AVX512_INLINE __m512 lg_f32_bilinear16(const float* p00,
                                              const float* p01,
                                              const float* p10,
                                              const float* p11, __mmask16 m,
                                              const __m512* w) {
  __m512 v =
      _mm512_mul_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(m, p00), w[0]), w[2]);
  v = _mm512_add_ps(
      v,
      _mm512_mul_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(m, p10), w[1]), w[2]));
  v = _mm512_add_ps(
      v,
      _mm512_mul_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(m, p01), w[0]), w[3]));
  return _mm512_add_ps(
      v,
      _mm512_mul_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(m, p11), w[1]), w[3]));
}

LG_F32_AVX512 static void lg_f32_bilinear_pixels_avx512(
    const float* row0, const float* row1, const int32_t* x_lo,
    const int32_t* x_hi, const float* dx, int count, int channels, float wy,
    float dy, float* out) {
  __m512 w[4] = {_mm512_set1_ps(wy), _mm512_set1_ps(dy), _mm512_setzero_ps(),
                 _mm512_setzero_ps()};
  for (int p = 0; p < count; ++p, out += channels) {
    w[2] = _mm512_set1_ps(1.0f - dx[p]);
    w[3] = _mm512_set1_ps(dx[p]);
    const float* p00 = row0 + x_lo[p];
    const float* p01 = row0 + x_hi[p];
    const float* p10 = row1 + x_lo[p];
    const float* p11 = row1 + x_hi[p];
    for (int c = 0; c < channels; c += 16) {
      const __mmask16 m =
          channels - c >= 16 ? (__mmask16)0xFFFF : lg_f32_mask16(channels - c);
      _mm512_mask_storeu_ps(
          out + c, m,
          lg_f32_bilinear16(p00 + c, p01 + c, p10 + c, p11 + c, m, w));
    }
  }
}

/* One row of a fold: lg_f32_binop16 without its clamp. The fold's bounds are
 * -infinity and infinity, which change no value (a NaN is the second operand
 * of both min and max, so it passes), but they made each row wait for two
 * more operations after the add: a global pooling over 56x56x16 runs one
 * chain of 3136 adds. */
LG_F32_AVX512_INLINE __m512 lg_f32_fold_step16(const lg_f32_binop op, __m512 a,
                                               __m512 b) {
  switch (op) {
    case LG_F32_ADD:
      return _mm512_add_ps(a, b);
    case LG_F32_MUL:
      return _mm512_mul_ps(a, b);
    default:
      return lg_f32_binop16(op, a, b, _mm512_set1_ps(-INFINITY),
                            _mm512_set1_ps(INFINITY));
  }
}

/* Up to 4 vectors of acc from i, held in registers over every row. */
LG_F32_AVX512_INLINE void lg_f32_fold16(const lg_f32_binop op,
                                        const bool x_first, float* acc,
                                        const float* x, ptrdiff_t row_stride,
                                        int64_t rows, int64_t n) {
  for (int64_t i = 0; i < n; i += 64) {
    __mmask16 m[4];
    __m512 a[4];
    for (int v = 0; v < 4; ++v) {
      const int64_t left = n - i - 16 * v;
      m[v] = left >= 16 ? (__mmask16)0xFFFF
                        : (left > 0 ? lg_f32_mask16(left) : (__mmask16)0);
      a[v] = _mm512_maskz_loadu_ps(m[v], acc + i + 16 * v);
    }
    const int64_t vectors = (n - i + 15) / 16; /* this block's, 1..4+ */
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = x + r * row_stride + i;
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        if (v >= vectors) break;
        const __m512 xv = _mm512_maskz_loadu_ps(m[v], row + 16 * v);
        a[v] = x_first ? lg_f32_fold_step16(op, xv, a[v])
                       : lg_f32_fold_step16(op, a[v], xv);
      }
    }
    for (int v = 0; v < 4; ++v) {
      _mm512_mask_storeu_ps(acc + i + 16 * v, m[v], a[v]);
    }
  }
}

#define LG_F32_FOLD_FN(op)                                            \
  LG_F32_AVX512 static void lg_f32_fold_##op##_avx512(                \
      bool x_first, float* acc, const float* x, ptrdiff_t row_stride, \
      int64_t rows, int64_t n) {                                      \
    if (x_first) {                                                    \
      lg_f32_fold16(LG_F32_##op, true, acc, x, row_stride, rows, n);  \
    } else {                                                          \
      lg_f32_fold16(LG_F32_##op, false, acc, x, row_stride, rows, n); \
    }                                                                 \
  }
LG_F32_FOLD_FN(ADD)
LG_F32_FOLD_FN(MUL)
LG_F32_FOLD_FN(MAX)
LG_F32_FOLD_FN(MIN)
#undef LG_F32_FOLD_FN

/* ---- AVX-512F row sums ----------------------------------------------------
 */

/* Transposes the 16 x 16 block v in place (v[j] lane k <- v[k] lane j):
 * pairs of floats, then of doubles, interleaved within 128-bit lanes, then
 * a 4 x 4 transpose of those lanes. */
LG_F32_AVX512_INLINE void lg_f32_transpose16(__m512 v[16]) {
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(v[i], v[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(v[i], v[i + 1]);
  }
  /* u[4g + q], 128-bit lane L: rows 4g..4g+3 of column 4L + q. */
  __m512 u[16];
  for (int g = 0; g < 16; g += 4) {
    const __m512d a = _mm512_castps_pd(t[g]), b = _mm512_castps_pd(t[g + 1]);
    const __m512d c = _mm512_castps_pd(t[g + 2]),
                  d = _mm512_castps_pd(t[g + 3]);
    u[g] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
    u[g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
    u[g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
    u[g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
  }
  for (int q = 0; q < 4; ++q) {
    /* Lanes 0 and 2, then 1 and 3, of the row groups' column-q vectors. */
    const __m512 p0 = _mm512_shuffle_f32x4(u[q], u[4 + q], 0x88);
    const __m512 p1 = _mm512_shuffle_f32x4(u[q], u[4 + q], 0xDD);
    const __m512 p2 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0x88);
    const __m512 p3 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0xDD);
    v[q] = _mm512_shuffle_f32x4(p0, p2, 0x88);
    v[4 + q] = _mm512_shuffle_f32x4(p1, p3, 0x88);
    v[8 + q] = _mm512_shuffle_f32x4(p0, p2, 0xDD);
    v[12 + q] = _mm512_shuffle_f32x4(p1, p3, 0xDD);
  }
}

/* lg_f32_row_sums: 16 rows at a time, one per lane. Each 16 x 16 block is
 * transposed so that one vector add takes the next element of all 16 rows:
 * every lane still adds its row's elements one by one in index order. */
LG_F32_AVX512 static void lg_f32_row_sums_avx512(const float* x,
                                                 ptrdiff_t row_stride,
                                                 int64_t rows, int64_t n,
                                                 float* sums) {
  for (int64_t r0 = 0; r0 < rows; r0 += 16) {
    const int live = rows - r0 < 16 ? (int)(rows - r0) : 16;
    const float* row0 = x + r0 * row_stride;
    __m512 acc = _mm512_setzero_ps();
    for (int64_t c0 = 0; c0 < n; c0 += 16) {
      const int m = n - c0 < 16 ? (int)(n - c0) : 16;
      const __mmask16 cols = lg_f32_mask16(m); /* 16 gives all */
      __m512 v[16];
      for (int k = 0; k < 16; ++k) {
        v[k] = k < live
                   ? _mm512_maskz_loadu_ps(cols, row0 + k * row_stride + c0)
                   : _mm512_setzero_ps();
      }
      lg_f32_transpose16(v);
      for (int j = 0; j < m; ++j) acc = _mm512_add_ps(acc, v[j]);
    }
    _mm512_mask_storeu_ps(sums + r0, lg_f32_mask16(live), acc);
  }
}

/* ---- AVX-512F GELU ------------------------------------------------------- */

/* e^(hi + lo), lo a small correction to hi (a rounded value's rounding
 * error), for hi + lo in [-120, 1], NaN staying NaN: scalef gives 2^n into
 * the subnormals and flushes to 0 what lies below half the smallest one,
 * without a separate case. (Just above that, at hi + lo in [-104.3, -103.9],
 * it may round up to the smallest subnormal, 1.4e-45, where the exact value
 * rounds to 0.) */
LG_F32_AVX512_INLINE __m512 lg_f32_exp16_shifted(__m512 hi, __m512 lo,
                                                 float shift);

LG_F32_AVX512_INLINE __m512 lg_f32_exp16_in_range(__m512 hi, __m512 lo) {
  return lg_f32_exp16_shifted(hi, lo, 0.0f);
}

/* e^(hi + lo) * 2^shift: the same steps, the power of two applied once
 * (LOGISTIC's subnormal results: e^x 2^149 is a normal float). */
LG_F32_AVX512_INLINE __m512 lg_f32_exp16_shifted(__m512 hi, __m512 lo,
                                                 float shift) {
  const __m512 sum = _mm512_add_ps(hi, lo);
  const __m512 n =
      _mm512_roundscale_ps(_mm512_mul_ps(sum, _mm512_set1_ps(LG_F32_LOG2E)),
                           _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(LG_F32_LN2_HI), hi);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(LG_F32_LN2_LO), r);
  r = _mm512_add_ps(r, lo);
  __m512 p = _mm512_set1_ps(kLgF32ExpTaylor[0]);
  for (int i = 1; i < 8; ++i) {
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kLgF32ExpTaylor[i]));
  }
  return _mm512_scalef_ps(p, _mm512_add_ps(n, _mm512_set1_ps(shift)));
}

/* lg_f32_exp16_in_range for any hi + lo <= 1: 0 below LG_F32_EXP_MIN (the
 * lanes whose reduction went out of range included). */
LG_F32_AVX512_INLINE __m512 lg_f32_exp16(__m512 hi, __m512 lo) {
  const __mmask16 under = _mm512_cmp_ps_mask(
      _mm512_add_ps(hi, lo), _mm512_set1_ps(LG_F32_EXP_MIN), _CMP_LT_OQ);
  return _mm512_mask_mov_ps(lg_f32_exp16_in_range(hi, lo), under,
                            _mm512_setzero_ps());
}

/* e^a for SOFTMAX, 0 where it lies below FLT_MIN (as XNNPACK's softmax
 * gives it) rather than a subnormal: no lane's arithmetic underflows, each
 * underflow being a microcode assist (a row spread over 200 took 17x the
 * time of one spread over 40). The argument is clamped first, so a NaN
 * stays NaN and -inf gives 0. */
#define LG_F32_EXP_NORMAL_MIN -87.33f

LG_F32_AVX512_INLINE __m512 lg_f32_exp16_normal(__m512 a) {
  const __mmask16 tiny =
      _mm512_cmp_ps_mask(a, _mm512_set1_ps(LG_F32_EXP_NORMAL_MIN), _CMP_LT_OQ);
  /* max(lo, v): a NaN v is the second operand, so it passes through. */
  const __m512 e = lg_f32_exp16_in_range(
      _mm512_max_ps(_mm512_set1_ps(LG_F32_EXP_NORMAL_MIN), a),
      _mm512_setzero_ps());
  return _mm512_maskz_mov_ps((__mmask16)~tiny, e);
}

/* x logistic(2u), u = sqrt(2 / pi) (x + 0.044715 x^3): the tanh form, as
 * 0.5 (1 + tanh(u)) = 1 / (1 + e^(-2u)). e = e^(-2|u|) never overflows;
 * logistic(2u) is 1 / (1 + e) for u >= 0 and e / (1 + e) below. */
LG_F32_AVX512_INLINE __m512 lg_f32_gelu_tanh16(__m512 x) {
  const __m512 cubic =
      _mm512_mul_ps(_mm512_mul_ps(x, x), _mm512_set1_ps(LG_F32_GELU_CUBIC));
  const __m512 two_u = _mm512_mul_ps(_mm512_fmadd_ps(cubic, x, x),
                                     _mm512_set1_ps(LG_F32_GELU_TWO_K));
  const __m512 minus_abs = _mm512_castsi512_ps(_mm512_or_si512(
      _mm512_castps_si512(two_u), _mm512_set1_epi32(INT32_MIN)));
  const __m512 e = lg_f32_exp16(minus_abs, _mm512_setzero_ps());
  const __mmask16 positive =
      _mm512_cmp_ps_mask(two_u, _mm512_setzero_ps(), _CMP_GE_OQ);
  const __m512 numerator = _mm512_mask_mov_ps(e, positive, _mm512_set1_ps(1));
  return _mm512_mul_ps(
      x, _mm512_div_ps(numerator, _mm512_add_ps(_mm512_set1_ps(1), e)));
}

/* x Phi(x) with Phi(x) = erfc(-x / sqrt(2)) / 2, from erfc(|x| / sqrt(2)):
 * Phi(x) = erfc / 2 for x < 0, 1 - erfc / 2 otherwise. z^2 is carried as
 * its rounded value plus the rounding error (an FMA), which e^(-z^2) would
 * otherwise magnify to 2 z^2 ulps. -z^2 + q stays above -112 (z at most
 * LG_F32_ERFC_Z_MAX), in lg_f32_exp16_in_range's range. */
LG_F32_AVX512_INLINE __m512 lg_f32_gelu_erf16(__m512 x) {
  const __m512 abs_x = _mm512_castsi512_ps(
      _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MAX)));
  const __m512 z =
      _mm512_min_ps(_mm512_set1_ps(LG_F32_ERFC_Z_MAX),
                    _mm512_mul_ps(abs_x, _mm512_set1_ps(LG_F32_SQRT_HALF)));
  /* t / 2 = 1 / (2 + z) and s = 2t - 1 = 4 (t / 2) - 1: scalings by powers
   * of two, so the bits of t's own steps, one multiply fewer. */
  const __m512 half_t =
      _mm512_div_ps(_mm512_set1_ps(1), _mm512_add_ps(z, _mm512_set1_ps(2)));
  const __m512 s =
      _mm512_fmsub_ps(half_t, _mm512_set1_ps(4), _mm512_set1_ps(1));
  __m512 q = _mm512_set1_ps(kLgF32ErfcQ[0]);
  for (int i = 1; i < 10; ++i) {
    q = _mm512_fmadd_ps(q, s, _mm512_set1_ps(kLgF32ErfcQ[i]));
  }
  /* -z^2 rounded (-(z z) + 0), and z z minus its rounded value. */
  const __m512 minus_z2 = _mm512_fnmadd_ps(z, z, _mm512_setzero_ps());
  const __m512 z2_error = _mm512_fmadd_ps(z, z, minus_z2);
  const __m512 half_erfc = _mm512_mul_ps(
      half_t, lg_f32_exp16_in_range(minus_z2, _mm512_sub_ps(q, z2_error)));
  const __mmask16 negative =
      _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
  const __m512 phi = _mm512_mask_mov_ps(
      _mm512_sub_ps(_mm512_set1_ps(1), half_erfc), negative, half_erfc);
  return _mm512_mul_ps(x, phi);
}

/* tanh(x) from |x| (kLgF32TanhTaylor's two forms), x's sign put back
 * last (so -0 stays -0); the exp's argument is clamped at -87 (no
 * subnormal; tanh is 1 long before), so +-inf give +-1 and NaN stays
 * NaN. */
LG_F32_AVX512_INLINE __m512 lg_f32_tanh16(__m512 x) {
  const __m512i sign = _mm512_set1_epi32(INT32_MIN);
  const __m512 a =
      _mm512_castsi512_ps(_mm512_andnot_si512(sign, _mm512_castps_si512(x)));
  const __m512 u = _mm512_mul_ps(a, a);
  __m512 p = _mm512_set1_ps(kLgF32TanhTaylor[0]);
  for (int i = 1; i < 9; ++i) {
    p = _mm512_fmadd_ps(p, u, _mm512_set1_ps(kLgF32TanhTaylor[i]));
  }
  const __m512 small = _mm512_fmadd_ps(_mm512_mul_ps(a, u), p, a);
  /* max(lo, v): a NaN v is the second operand, so it passes through. */
  const __m512 e = lg_f32_exp16_in_range(
      _mm512_max_ps(_mm512_set1_ps(-87.0f),
                    _mm512_mul_ps(a, _mm512_set1_ps(-2.0f))),
      _mm512_setzero_ps());
  const __m512 q =
      _mm512_div_ps(_mm512_add_ps(e, e), _mm512_add_ps(_mm512_set1_ps(1), e));
  const __m512 large = _mm512_sub_ps(_mm512_set1_ps(1), q);
  const __m512 t = _mm512_mask_mov_ps(
      large,
      _mm512_cmp_ps_mask(a, _mm512_set1_ps(LG_F32_TANH_SMALL), _CMP_LT_OQ),
      small);
  return _mm512_castsi512_ps(_mm512_or_si512(
      _mm512_castps_si512(t), _mm512_and_si512(sign, _mm512_castps_si512(x))));
}

/* ELU: x < 0 ? expm1(x) : x (kLgF32Expm1Taylor's two forms; the exp's
 * argument clamped at -87, where the result is -1 already). */
LG_F32_AVX512_INLINE __m512 lg_f32_elu16(__m512 x) {
  __m512 p = _mm512_set1_ps(kLgF32Expm1Taylor[0]);
  for (int i = 1; i < 12; ++i) {
    p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(kLgF32Expm1Taylor[i]));
  }
  const __m512 small = _mm512_fmadd_ps(_mm512_mul_ps(x, x), p, x);
  const __m512 e = lg_f32_exp16_in_range(
      _mm512_max_ps(_mm512_set1_ps(-87.0f),
                    _mm512_min_ps(x, _mm512_setzero_ps())),
      _mm512_setzero_ps());
  const __m512 large = _mm512_sub_ps(e, _mm512_set1_ps(1));
  const __mmask16 negative =
      _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
  const __mmask16 near =
      _mm512_cmp_ps_mask(x, _mm512_set1_ps(-1.0f), _CMP_GT_OQ);
  return _mm512_mask_mov_ps(x, negative,
                            _mm512_mask_mov_ps(large, near, small));
}

LG_F32_ROW16(tanh)
LG_F32_ROW16(elu)

/* LOGISTIC with TFLite's cut-offs (logistic_f32.h): e = e^(-|x|) never
 * overflows; the result is 1 / (1 + e) for x >= 0, e / (1 + e) below, 1
 * above the upper cut-off and e (= e^x) below the lower one. e is computed
 * from max(-|x|, LG_LOGISTIC_NORMAL_MIN), so that no lane's arithmetic
 * makes a subnormal (each one a microcode assist: a segmentation model's
 * 256x256 mask of large negative logits took 536 us); the lanes below it,
 * whose result is subnormal or 0, are finished by
 * lg_f32_logistic_tiny_lanes. */
#define LG_LOGISTIC_NORMAL_MIN -87.0f

/* AVX2 lanes of `tiny` (x < LG_LOGISTIC_NORMAL_MIN): e^x, 0 below
 * LG_F32_EXP_MIN, libm's expf (correctly rounded) in between. */
static void lg_f32_logistic_tiny_lanes(const float* x, float* r, unsigned tiny,
                                       int lanes) {
  for (int i = 0; i < lanes; ++i) {
    if ((tiny >> i) & 1u) r[i] = x[i] < LG_F32_EXP_MIN ? 0.0f : expf(x[i]);
  }
}

/* AVX-512 lanes below LG_LOGISTIC_NORMAL_MIN: e^x is subnormal (or 0), a
 * whole number k of 2^-149, so its bits are k: e^x 2^149 (from x clamped to
 * -104, a normal float) rounded to an integer, 0 below LG_F32_EXP_MIN. */
LG_F32_AVX512_INLINE __m512 lg_f32_exp16_subnormal(__m512 x) {
  const __m512 m = lg_f32_exp16_shifted(
      _mm512_max_ps(x, _mm512_set1_ps(-104.0f)), _mm512_setzero_ps(), 149.0f);
  const __mmask16 zero =
      _mm512_cmp_ps_mask(x, _mm512_set1_ps(LG_F32_EXP_MIN), _CMP_LT_OQ);
  return _mm512_maskz_mov_ps((__mmask16)~zero,
                             _mm512_castsi512_ps(_mm512_cvtps_epi32(m)));
}

LG_F32_AVX512_INLINE __m512 lg_f32_logistic16(__m512 x) {
  /* max(lo, v): a NaN v is the second operand, so it passes through. */
  const __m512 minus_abs =
      _mm512_max_ps(_mm512_set1_ps(LG_LOGISTIC_NORMAL_MIN),
                    _mm512_castsi512_ps(_mm512_or_si512(
                        _mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN))));
  const __m512 e = lg_f32_exp16_in_range(minus_abs, _mm512_setzero_ps());
  const __mmask16 positive =
      _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OQ);
  const __m512 numerator = _mm512_mask_mov_ps(e, positive, _mm512_set1_ps(1));
  __m512 r = _mm512_div_ps(numerator, _mm512_add_ps(_mm512_set1_ps(1), e));
  r = _mm512_mask_mov_ps(
      r, _mm512_cmp_ps_mask(x, _mm512_set1_ps(LG_LOGISTIC_UPPER), _CMP_GT_OQ),
      _mm512_set1_ps(1));
  r = _mm512_mask_mov_ps(
      r, _mm512_cmp_ps_mask(x, _mm512_set1_ps(LG_LOGISTIC_LOWER), _CMP_LT_OQ),
      e);
  const __mmask16 tiny =
      _mm512_cmp_ps_mask(x, _mm512_set1_ps(LG_LOGISTIC_NORMAL_MIN), _CMP_LT_OQ);
  if (tiny != 0) r = _mm512_mask_mov_ps(r, tiny, lg_f32_exp16_subnormal(x));
  return r;
}

LG_F32_ROW16(logistic)

/* Two vectors per iteration: each one's chain of dependent steps is long,
 * and a second independent chain in the loop body kept the vector units
 * busier (2048 floats: 1.46 us against 1.63 us). */
#define LG_F32_GELU_FN(form)                                                \
  LG_F32_AVX512 static void lg_f32_gelu_##form##_avx512(                    \
      const float* x, float* out, int64_t n) {                              \
    int64_t i = 0;                                                          \
    for (; i + 32 <= n; i += 32) {                                          \
      const __m512 a = lg_f32_gelu_##form##16(_mm512_loadu_ps(x + i));      \
      const __m512 b = lg_f32_gelu_##form##16(_mm512_loadu_ps(x + i + 16)); \
      _mm512_storeu_ps(out + i, a);                                         \
      _mm512_storeu_ps(out + i + 16, b);                                    \
    }                                                                       \
    for (; i + 16 <= n; i += 16) {                                          \
      _mm512_storeu_ps(out + i,                                             \
                       lg_f32_gelu_##form##16(_mm512_loadu_ps(x + i)));     \
    }                                                                       \
    if (i < n) {                                                            \
      const __mmask16 m = lg_f32_mask16(n - i);                             \
      _mm512_mask_storeu_ps(                                                \
          out + i, m,                                                       \
          lg_f32_gelu_##form##16(_mm512_maskz_loadu_ps(m, x + i)));         \
    }                                                                       \
  }
LG_F32_GELU_FN(tanh)
LG_F32_GELU_FN(erf)
#undef LG_F32_GELU_FN

/* ---- AVX-512F SOFTMAX row ------------------------------------------------ */

/* The row's maximum skipping NaN (max_ps(x, m) keeps m for a NaN x), from
 * -FLT_MAX as the scalar fold. */
LG_F32_AVX512 static void lg_f32_softmax_avx512(const float* x, float* out,
                                                int64_t depth, float beta) {
  __m512 max = _mm512_set1_ps(-FLT_MAX);
  int64_t i = 0;
  for (; i + 16 <= depth; i += 16) {
    max = _mm512_max_ps(_mm512_loadu_ps(x + i), max);
  }
  const __mmask16 tail = lg_f32_mask16(depth - i);
  if (i < depth) {
    max =
        _mm512_mask_max_ps(max, tail, _mm512_maskz_loadu_ps(tail, x + i), max);
  }
  const __m512 row_max = _mm512_set1_ps(_mm512_reduce_max_ps(max));
  const __m512 vbeta = _mm512_set1_ps(beta);
  const __m512 zero = _mm512_setzero_ps();
  __m512 sum = zero;
  for (i = 0; i + 16 <= depth; i += 16) {
    const __m512 e = lg_f32_exp16_normal(
        _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), row_max), vbeta));
    _mm512_storeu_ps(out + i, e);
    sum = _mm512_add_ps(sum, e);
  }
  if (i < depth) {
    const __m512 v = _mm512_maskz_loadu_ps(tail, x + i);
    const __m512 e =
        lg_f32_exp16_normal(_mm512_mul_ps(_mm512_sub_ps(v, row_max), vbeta));
    _mm512_mask_storeu_ps(out + i, tail, e);
    sum = _mm512_mask_add_ps(sum, tail, sum, e);
  }
  const __m512 total = _mm512_set1_ps(_mm512_reduce_add_ps(sum));
  for (i = 0; i + 16 <= depth; i += 16) {
    _mm512_storeu_ps(out + i, _mm512_div_ps(_mm512_loadu_ps(out + i), total));
  }
  if (i < depth) {
    _mm512_mask_storeu_ps(
        out + i, tail,
        _mm512_div_ps(_mm512_maskz_loadu_ps(tail, out + i), total));
  }
}

/* Rows of lg_f32_softmax_avx512 one after another. A row of at most 16
 * floats stays in one register from load to store: the same steps on the
 * same lanes as the row function (so the same bits), without its three
 * passes over memory or a call per row (attention's 16-wide score rows). */
/* One row of at most 16 floats in the `lanes` of v (the others 0). */
LG_F32_AVX512_INLINE __m512 lg_f32_softmax16(__m512 v, __mmask16 lanes,
                                             __m512 vbeta) {
  const __m512 lowest = _mm512_set1_ps(-FLT_MAX);
  const __m512 zero = _mm512_setzero_ps();
  const __m512 max = _mm512_mask_max_ps(lowest, lanes, v, lowest);
  const __m512 row_max = _mm512_set1_ps(_mm512_reduce_max_ps(max));
  const __m512 e =
      lg_f32_exp16_normal(_mm512_mul_ps(_mm512_sub_ps(v, row_max), vbeta));
  const __m512 sum = _mm512_mask_add_ps(zero, lanes, zero, e);
  const __m512 total = _mm512_set1_ps(_mm512_reduce_add_ps(sum));
  return _mm512_div_ps(e, total);
}

LG_F32_AVX512 static void lg_f32_softmax_rows_avx512(const float* x, float* out,
                                                     int64_t rows,
                                                     int64_t depth,
                                                     float beta) {
  if (depth > 16) {
    for (int64_t r = 0; r < rows; ++r) {
      lg_f32_softmax_avx512(x + r * depth, out + r * depth, depth, beta);
    }
    return;
  }
  const __mmask16 lanes = lg_f32_mask16(depth);
  const __m512 vbeta = _mm512_set1_ps(beta);
  int64_t r = 0;
  /* Two rows per iteration, as GELU's rows: two independent chains. */
  for (; r + 2 <= rows; r += 2) {
    const __m512 a = _mm512_maskz_loadu_ps(lanes, x + r * depth);
    const __m512 b = _mm512_maskz_loadu_ps(lanes, x + (r + 1) * depth);
    const __m512 sa = lg_f32_softmax16(a, lanes, vbeta);
    const __m512 sb = lg_f32_softmax16(b, lanes, vbeta);
    _mm512_mask_storeu_ps(out + r * depth, lanes, sa);
    _mm512_mask_storeu_ps(out + (r + 1) * depth, lanes, sb);
  }
  for (; r < rows; ++r) {
    const __m512 v = _mm512_maskz_loadu_ps(lanes, x + r * depth);
    _mm512_mask_storeu_ps(out + r * depth, lanes,
                          lg_f32_softmax16(v, lanes, vbeta));
  }
}

/* ---- AVX2 ---------------------------------------------------------------- */

#define LG_F32_AVX2 __attribute__((target("avx2")))
#define LG_F32_AVX2_INLINE \
  static inline __attribute__((always_inline, target("avx2")))

/* The first `n` (< 8) lanes, as maskload / maskstore want them. */
LG_F32_AVX2_INLINE __m256i lg_f32_mask8(int64_t n) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), lanes);
}

/* The AVX2 instruction set here implies FMA (lg_gemm_isa_default asks for
 * both): the rows that need it (HARD_SWISH's division, the exp-based ones)
 * are compiled for both. */
#define LG_F32_AVX2_FMA __attribute__((target("avx2,fma")))
#define LG_F32_AVX2_FMA_INLINE \
  static inline __attribute__((always_inline, target("avx2,fma")))

/* lg_f32_NAME_avx2(x, out, n): lg_f32_NAME8 over a row, whole vectors then
 * a masked tail. */
#define LG_F32_ROW8(name)                                                      \
  LG_F32_AVX2_FMA static void lg_f32_##name##_avx2(const float* x, float* out, \
                                                   int64_t n) {                \
    int64_t i = 0;                                                             \
    for (; i + 8 <= n; i += 8) {                                               \
      _mm256_storeu_ps(out + i, lg_f32_##name##8(_mm256_loadu_ps(x + i)));     \
    }                                                                          \
    if (i < n) {                                                               \
      const __m256i m = lg_f32_mask8(n - i);                                   \
      _mm256_maskstore_ps(out + i, m,                                          \
                          lg_f32_##name##8(_mm256_maskload_ps(x + i, m)));     \
    }                                                                          \
  }

LG_F32_AVX2_INLINE __m256 lg_f32_clamp8(__m256 v, __m256 lo, __m256 hi) {
  return _mm256_max_ps(lo, _mm256_min_ps(hi, v));
}

LG_F32_AVX2_INLINE __m256 lg_f32_binop8(const lg_f32_binop op, __m256 a,
                                        __m256 b, __m256 lo, __m256 hi) {
  switch (op) {
    case LG_F32_ADD:
      return lg_f32_clamp8(_mm256_add_ps(a, b), lo, hi);
    case LG_F32_SUB:
      return lg_f32_clamp8(_mm256_sub_ps(a, b), lo, hi);
    case LG_F32_MUL:
      return lg_f32_clamp8(_mm256_mul_ps(a, b), lo, hi);
    case LG_F32_DIV:
      return lg_f32_clamp8(_mm256_div_ps(a, b), lo, hi);
    case LG_F32_MAX:
      return _mm256_max_ps(a, b);
    case LG_F32_MIN:
      return _mm256_min_ps(a, b);
    default: {
      const __m256 d = _mm256_sub_ps(a, b);
      return _mm256_mul_ps(d, d);
    }
  }
}

LG_F32_AVX2_INLINE void lg_f32_binary8(const lg_f32_binop op, const float* x,
                                       ptrdiff_t sx, const float* y,
                                       ptrdiff_t sy, float* out, int64_t n,
                                       float lo_s, float hi_s) {
  const __m256 lo = _mm256_set1_ps(lo_s), hi = _mm256_set1_ps(hi_s);
  const __m256 xr = _mm256_set1_ps(x[0]), yr = _mm256_set1_ps(y[0]);
  int64_t i = 0;
  if (sx != 0 && sy != 0) {
    for (; i + 8 <= n; i += 8) {
      const __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(y + i);
      _mm256_storeu_ps(out + i, lg_f32_binop8(op, a, b, lo, hi));
    }
  } else if (sx != 0) {
    for (; i + 8 <= n; i += 8) {
      const __m256 a = _mm256_loadu_ps(x + i);
      _mm256_storeu_ps(out + i, lg_f32_binop8(op, a, yr, lo, hi));
    }
  } else {
    for (; i + 8 <= n; i += 8) {
      const __m256 b = sy != 0 ? _mm256_loadu_ps(y + i) : yr;
      _mm256_storeu_ps(out + i, lg_f32_binop8(op, xr, b, lo, hi));
    }
  }
  if (i < n) {
    const __m256i m = lg_f32_mask8(n - i);
    const __m256 a = sx != 0 ? _mm256_maskload_ps(x + i, m) : xr;
    const __m256 b = sy != 0 ? _mm256_maskload_ps(y + i, m) : yr;
    _mm256_maskstore_ps(out + i, m, lg_f32_binop8(op, a, b, lo, hi));
  }
}

LG_F32_BINARY_TABLE(AVX2, 8)

LG_F32_AVX2 static void lg_f32_clamp_avx2(const float* x, float* out, int64_t n,
                                          float lo_s, float hi_s) {
  const __m256 lo = _mm256_set1_ps(lo_s), hi = _mm256_set1_ps(hi_s);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(out + i, lg_f32_clamp8(_mm256_loadu_ps(x + i), lo, hi));
  }
  if (i < n) {
    const __m256i m = lg_f32_mask8(n - i);
    const __m256 v = _mm256_maskload_ps(x + i, m);
    _mm256_maskstore_ps(out + i, m, lg_f32_clamp8(v, lo, hi));
  }
}

LG_F32_AVX2_INLINE __m256 lg_f32_select8(__m256 v, __m256 a,
                                         const bool strict) {
  const __m256 zero = _mm256_setzero_ps();
  const __m256 keep = strict ? _mm256_cmp_ps(v, zero, _CMP_GT_OQ)
                             : _mm256_cmp_ps(v, zero, _CMP_GE_OQ);
  return _mm256_blendv_ps(_mm256_mul_ps(v, a), v, keep);
}

LG_F32_AVX2_INLINE void lg_f32_prelu8(const float* x, const float* alpha,
                                      ptrdiff_t alpha_step, float* out,
                                      int64_t n) {
  const __m256 ar = _mm256_set1_ps(alpha[0]);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 a = alpha_step != 0 ? _mm256_loadu_ps(alpha + i) : ar;
    const __m256 v = _mm256_loadu_ps(x + i);
    _mm256_storeu_ps(out + i, lg_f32_select8(v, a, false));
  }
  if (i < n) {
    const __m256i m = lg_f32_mask8(n - i);
    const __m256 a = alpha_step != 0 ? _mm256_maskload_ps(alpha + i, m) : ar;
    const __m256 v = _mm256_maskload_ps(x + i, m);
    _mm256_maskstore_ps(out + i, m, lg_f32_select8(v, a, false));
  }
}

LG_F32_AVX2 static void lg_f32_prelu_avx2(const float* x, const float* alpha,
                                          ptrdiff_t alpha_step, float* out,
                                          int64_t n) {
  lg_f32_prelu8(x, alpha, alpha_step, out, n);
}

LG_F32_AVX2 static void lg_f32_prelu_rows_avx2(const float* x,
                                               const float* alpha, float* out,
                                               int64_t rows, int64_t inner) {
  for (int64_t r = 0; r < rows; ++r) {
    lg_f32_prelu8(x + r * inner, alpha, 1, out + r * inner, inner);
  }
}

LG_F32_AVX2 static void lg_f32_leaky_relu_avx2(const float* x, float alpha_s,
                                               float* out, int64_t n) {
  const __m256 a = _mm256_set1_ps(alpha_s);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    _mm256_storeu_ps(out + i, lg_f32_select8(v, a, true));
  }
  if (i < n) {
    const __m256i m = lg_f32_mask8(n - i);
    const __m256 v = _mm256_maskload_ps(x + i, m);
    _mm256_maskstore_ps(out + i, m, lg_f32_select8(v, a, true));
  }
}

/* p / 6 as lg_f32_div6_16 (the AVX2 ISA is chosen only with FMA:
 * lg_gemm_isa_default). */
LG_F32_AVX2_FMA_INLINE __m256 lg_f32_div6_8(__m256 p) {
  const __m256 six = _mm256_set1_ps(6.0f);
  const __m256 sixth = _mm256_set1_ps(1.0f / 6.0f);
  const __m256 q0 = _mm256_mul_ps(p, sixth);
  const __m256 r = _mm256_fnmadd_ps(q0, six, p);
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 q =
      _mm256_or_ps(_mm256_fmadd_ps(r, sixth, q0), _mm256_and_ps(p, sign));
  const __m256 a = _mm256_andnot_ps(sign, p);
  const __m256 ok = _mm256_or_ps(
      _mm256_and_ps(
          _mm256_cmp_ps(a, _mm256_set1_ps(LG_F32_DIV6_MIN), _CMP_GE_OQ),
          _mm256_cmp_ps(a, _mm256_set1_ps(INFINITY), _CMP_LT_OQ)),
      _mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_EQ_OQ));
  if (_mm256_movemask_ps(ok) != 0xFF) {
    q = _mm256_blendv_ps(_mm256_div_ps(p, six), q, ok);
  }
  return q;
}

LG_F32_AVX2_FMA_INLINE __m256 lg_f32_hard_swish8(__m256 v) {
  __m256 relu6 = _mm256_add_ps(v, _mm256_set1_ps(3.0f));
  relu6 = _mm256_max_ps(relu6, _mm256_setzero_ps());
  relu6 = _mm256_min_ps(relu6, _mm256_set1_ps(6.0f));
  return lg_f32_div6_8(_mm256_mul_ps(v, relu6));
}

LG_F32_ROW8(hard_swish)

LG_F32_AVX2 static void lg_f32_bilinear_avx2(const float* p00, const float* p01,
                                             const float* p10, const float* p11,
                                             float* out, int64_t n, float wy,
                                             float dy, float wx, float dx) {
  const __m256 vwy = _mm256_set1_ps(wy), vdy = _mm256_set1_ps(dy);
  const __m256 vwx = _mm256_set1_ps(wx), vdx = _mm256_set1_ps(dx);
  for (int64_t i = 0; i < n; i += 8) {
    const __m256i m = lg_f32_mask8(n - i);
    __m256 v =
        _mm256_mul_ps(_mm256_mul_ps(_mm256_maskload_ps(p00 + i, m), vwy), vwx);
    v = _mm256_add_ps(
        v,
        _mm256_mul_ps(_mm256_mul_ps(_mm256_maskload_ps(p10 + i, m), vdy), vwx));
    v = _mm256_add_ps(
        v,
        _mm256_mul_ps(_mm256_mul_ps(_mm256_maskload_ps(p01 + i, m), vwy), vdx));
    v = _mm256_add_ps(
        v,
        _mm256_mul_ps(_mm256_mul_ps(_mm256_maskload_ps(p11 + i, m), vdy), vdx));
    _mm256_maskstore_ps(out + i, m, v);
  }
}

/* ---- AVX2 GELU ----------------------------------------------------------- */

/* lg_f32_exp16's contract on 8 lanes. 2^n is applied as two factors
 * 2^(n / 2) 2^(n - n / 2), each a normal float for n in [-150, 1]. */
LG_F32_AVX2_FMA_INLINE __m256 lg_f32_exp8(__m256 hi, __m256 lo) {
  const __m256 sum = _mm256_add_ps(hi, lo);
  const __m256 n =
      _mm256_round_ps(_mm256_mul_ps(sum, _mm256_set1_ps(LG_F32_LOG2E)),
                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(LG_F32_LN2_HI), hi);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(LG_F32_LN2_LO), r);
  r = _mm256_add_ps(r, lo);
  __m256 p = _mm256_set1_ps(kLgF32ExpTaylor[0]);
  for (int i = 1; i < 8; ++i) {
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kLgF32ExpTaylor[i]));
  }
  const __m256i n_int =
      _mm256_cvtps_epi32(_mm256_max_ps(_mm256_set1_ps(-150.0f), n));
  const __m256i n_half = _mm256_srai_epi32(n_int, 1);
  const __m256i bias = _mm256_set1_epi32(127);
  const __m256 scale_a = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_add_epi32(n_half, bias), 23));
  const __m256 scale_b = _mm256_castsi256_ps(_mm256_slli_epi32(
      _mm256_add_epi32(_mm256_sub_epi32(n_int, n_half), bias), 23));
  const __m256 e = _mm256_mul_ps(_mm256_mul_ps(p, scale_a), scale_b);
  const __m256 under =
      _mm256_cmp_ps(sum, _mm256_set1_ps(LG_F32_EXP_MIN), _CMP_LT_OQ);
  return _mm256_andnot_ps(under, e);
}

/* lg_f32_exp16_normal on 8 lanes. */
LG_F32_AVX2_FMA_INLINE __m256 lg_f32_exp8_normal(__m256 a) {
  const __m256 floor = _mm256_set1_ps(LG_F32_EXP_NORMAL_MIN);
  const __m256 tiny = _mm256_cmp_ps(a, floor, _CMP_LT_OQ);
  const __m256 e = lg_f32_exp8(_mm256_max_ps(floor, a), _mm256_setzero_ps());
  return _mm256_andnot_ps(tiny, e);
}

/* lg_f32_tanh16 on 8 lanes. */
LG_F32_AVX2_FMA_INLINE __m256 lg_f32_tanh8(__m256 x) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const __m256 a = _mm256_andnot_ps(sign, x);
  const __m256 u = _mm256_mul_ps(a, a);
  __m256 p = _mm256_set1_ps(kLgF32TanhTaylor[0]);
  for (int i = 1; i < 9; ++i) {
    p = _mm256_fmadd_ps(p, u, _mm256_set1_ps(kLgF32TanhTaylor[i]));
  }
  const __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(a, u), p, a);
  const __m256 e =
      lg_f32_exp8(_mm256_max_ps(_mm256_set1_ps(-87.0f),
                                _mm256_mul_ps(a, _mm256_set1_ps(-2.0f))),
                  _mm256_setzero_ps());
  const __m256 q =
      _mm256_div_ps(_mm256_add_ps(e, e), _mm256_add_ps(_mm256_set1_ps(1), e));
  const __m256 large = _mm256_sub_ps(_mm256_set1_ps(1), q);
  const __m256 t = _mm256_blendv_ps(
      large, small,
      _mm256_cmp_ps(a, _mm256_set1_ps(LG_F32_TANH_SMALL), _CMP_LT_OQ));
  return _mm256_or_ps(t, _mm256_and_ps(sign, x));
}

/* lg_f32_elu16 on 8 lanes. */
LG_F32_AVX2_FMA_INLINE __m256 lg_f32_elu8(__m256 x) {
  __m256 p = _mm256_set1_ps(kLgF32Expm1Taylor[0]);
  for (int i = 1; i < 12; ++i) {
    p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(kLgF32Expm1Taylor[i]));
  }
  const __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(x, x), p, x);
  const __m256 e =
      lg_f32_exp8(_mm256_max_ps(_mm256_set1_ps(-87.0f),
                                _mm256_min_ps(x, _mm256_setzero_ps())),
                  _mm256_setzero_ps());
  const __m256 large = _mm256_sub_ps(e, _mm256_set1_ps(1));
  const __m256 negative = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ);
  const __m256 near = _mm256_cmp_ps(x, _mm256_set1_ps(-1.0f), _CMP_GT_OQ);
  return _mm256_blendv_ps(x, _mm256_blendv_ps(large, small, near), negative);
}

LG_F32_ROW8(tanh)
LG_F32_ROW8(elu)

/* lg_f32_logistic16 on 8 lanes. */
LG_F32_AVX2_FMA_INLINE __m256 lg_f32_logistic8(__m256 x) {
  const __m256 minus_abs =
      _mm256_max_ps(_mm256_set1_ps(LG_LOGISTIC_NORMAL_MIN),
                    _mm256_or_ps(x, _mm256_set1_ps(-0.0f)));
  const __m256 e = lg_f32_exp8(minus_abs, _mm256_setzero_ps());
  const __m256 positive = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ);
  const __m256 numerator = _mm256_blendv_ps(e, _mm256_set1_ps(1), positive);
  __m256 r = _mm256_div_ps(numerator, _mm256_add_ps(_mm256_set1_ps(1), e));
  r = _mm256_blendv_ps(
      r, _mm256_set1_ps(1),
      _mm256_cmp_ps(x, _mm256_set1_ps(LG_LOGISTIC_UPPER), _CMP_GT_OQ));
  r = _mm256_blendv_ps(
      r, e, _mm256_cmp_ps(x, _mm256_set1_ps(LG_LOGISTIC_LOWER), _CMP_LT_OQ));
  const int tiny = _mm256_movemask_ps(
      _mm256_cmp_ps(x, _mm256_set1_ps(LG_LOGISTIC_NORMAL_MIN), _CMP_LT_OQ));
  if (tiny != 0) {
    float xs[8], rs[8];
    _mm256_storeu_ps(xs, x);
    _mm256_storeu_ps(rs, r);
    lg_f32_logistic_tiny_lanes(xs, rs, (unsigned)tiny, 8);
    r = _mm256_loadu_ps(rs);
  }
  return r;
}

LG_F32_ROW8(logistic)

/* lg_f32_gelu_tanh16 on 8 lanes. */
LG_F32_AVX2_FMA_INLINE __m256 lg_f32_gelu_tanh8(__m256 x) {
  const __m256 cubic =
      _mm256_mul_ps(_mm256_mul_ps(x, x), _mm256_set1_ps(LG_F32_GELU_CUBIC));
  const __m256 two_u = _mm256_mul_ps(_mm256_fmadd_ps(cubic, x, x),
                                     _mm256_set1_ps(LG_F32_GELU_TWO_K));
  const __m256 minus_abs = _mm256_or_ps(two_u, _mm256_set1_ps(-0.0f));
  const __m256 e = lg_f32_exp8(minus_abs, _mm256_setzero_ps());
  const __m256 positive = _mm256_cmp_ps(two_u, _mm256_setzero_ps(), _CMP_GE_OQ);
  const __m256 numerator = _mm256_blendv_ps(e, _mm256_set1_ps(1), positive);
  return _mm256_mul_ps(
      x, _mm256_div_ps(numerator, _mm256_add_ps(_mm256_set1_ps(1), e)));
}

/* lg_f32_gelu_erf16 on 8 lanes. */
LG_F32_AVX2_FMA_INLINE __m256 lg_f32_gelu_erf8(__m256 x) {
  const __m256 abs_x = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
  const __m256 z =
      _mm256_min_ps(_mm256_set1_ps(LG_F32_ERFC_Z_MAX),
                    _mm256_mul_ps(abs_x, _mm256_set1_ps(LG_F32_SQRT_HALF)));
  const __m256 t = _mm256_div_ps(
      _mm256_set1_ps(1),
      _mm256_fmadd_ps(z, _mm256_set1_ps(0.5f), _mm256_set1_ps(1)));
  const __m256 s = _mm256_fmsub_ps(t, _mm256_set1_ps(2), _mm256_set1_ps(1));
  __m256 q = _mm256_set1_ps(kLgF32ErfcQ[0]);
  for (int i = 1; i < 10; ++i) {
    q = _mm256_fmadd_ps(q, s, _mm256_set1_ps(kLgF32ErfcQ[i]));
  }
  const __m256 z2 = _mm256_mul_ps(z, z);
  const __m256 z2_error = _mm256_fmsub_ps(z, z, z2);
  const __m256 half_erfc =
      _mm256_mul_ps(_mm256_mul_ps(t, _mm256_set1_ps(0.5f)),
                    lg_f32_exp8(_mm256_sub_ps(_mm256_setzero_ps(), z2),
                                _mm256_sub_ps(q, z2_error)));
  const __m256 negative = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ);
  const __m256 phi = _mm256_blendv_ps(
      _mm256_sub_ps(_mm256_set1_ps(1), half_erfc), half_erfc, negative);
  return _mm256_mul_ps(x, phi);
}

#define LG_F32_GELU_FN(form)                                                \
  LG_F32_AVX2_FMA static void lg_f32_gelu_##form##_avx2(                    \
      const float* x, float* out, int64_t n) {                              \
    int64_t i = 0;                                                          \
    for (; i + 16 <= n; i += 16) { /* two chains, as on AVX-512 */          \
      const __m256 a = lg_f32_gelu_##form##8(_mm256_loadu_ps(x + i));       \
      const __m256 b = lg_f32_gelu_##form##8(_mm256_loadu_ps(x + i + 8));   \
      _mm256_storeu_ps(out + i, a);                                         \
      _mm256_storeu_ps(out + i + 8, b);                                     \
    }                                                                       \
    for (; i + 8 <= n; i += 8) {                                            \
      _mm256_storeu_ps(out + i,                                             \
                       lg_f32_gelu_##form##8(_mm256_loadu_ps(x + i)));      \
    }                                                                       \
    if (i < n) {                                                            \
      const __m256i m = lg_f32_mask8(n - i);                                \
      _mm256_maskstore_ps(                                                  \
          out + i, m, lg_f32_gelu_##form##8(_mm256_maskload_ps(x + i, m))); \
    }                                                                       \
  }
LG_F32_GELU_FN(tanh)
LG_F32_GELU_FN(erf)
#undef LG_F32_GELU_FN

/* ---- AVX2 SOFTMAX row ---------------------------------------------------- */

LG_F32_AVX2_FMA_INLINE float lg_f32_max8(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_shuffle_ps(m, m, 1));
  return _mm_cvtss_f32(m);
}

LG_F32_AVX2_FMA_INLINE float lg_f32_sum8(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}

/* lg_f32_softmax_avx512 on 8 lanes; the tail's idle lanes hold -FLT_MAX
 * for the maximum and 0 for the sum. */
LG_F32_AVX2_FMA static void lg_f32_softmax_avx2(const float* x, float* out,
                                                int64_t depth, float beta) {
  const __m256 lowest = _mm256_set1_ps(-FLT_MAX);
  __m256 max = lowest;
  int64_t i = 0;
  for (; i + 8 <= depth; i += 8) {
    max = _mm256_max_ps(_mm256_loadu_ps(x + i), max);
  }
  const __m256i tail = lg_f32_mask8(depth - i);
  const __m256 tail_lanes = _mm256_castsi256_ps(tail);
  if (i < depth) {
    const __m256 v =
        _mm256_blendv_ps(lowest, _mm256_maskload_ps(x + i, tail), tail_lanes);
    max = _mm256_max_ps(v, max);
  }
  const __m256 row_max = _mm256_set1_ps(lg_f32_max8(max));
  const __m256 vbeta = _mm256_set1_ps(beta);
  const __m256 zero = _mm256_setzero_ps();
  __m256 sum = zero;
  for (i = 0; i + 8 <= depth; i += 8) {
    const __m256 e = lg_f32_exp8_normal(
        _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), row_max), vbeta));
    _mm256_storeu_ps(out + i, e);
    sum = _mm256_add_ps(sum, e);
  }
  if (i < depth) {
    const __m256 v = _mm256_maskload_ps(x + i, tail);
    const __m256 e =
        lg_f32_exp8_normal(_mm256_mul_ps(_mm256_sub_ps(v, row_max), vbeta));
    _mm256_maskstore_ps(out + i, tail, e);
    sum = _mm256_add_ps(sum, _mm256_and_ps(e, tail_lanes));
  }
  const __m256 total = _mm256_set1_ps(lg_f32_sum8(sum));
  for (i = 0; i + 8 <= depth; i += 8) {
    _mm256_storeu_ps(out + i, _mm256_div_ps(_mm256_loadu_ps(out + i), total));
  }
  if (i < depth) {
    _mm256_maskstore_ps(
        out + i, tail, _mm256_div_ps(_mm256_maskload_ps(out + i, tail), total));
  }
}

#endif /* LG_GEMM_HAVE_X86 */

/* ---- Dispatch ------------------------------------------------------------ */

void lg_f32_binary_rows(lg_f32_binop op, const float* x, ptrdiff_t sx,
                        ptrdiff_t x_row, const float* y, ptrdiff_t sy,
                        ptrdiff_t y_row, float* out, int64_t n, int64_t rows,
                        float lo, float hi) {
  if (n <= 0 || rows <= 0) return;
#if LG_GEMM_HAVE_X86
  if ((unsigned)op < LG_F32_BINOP_COUNT) {
    switch (lg_gemm_isa_default()) {
      case LG_GEMM_ISA_AVX512:
        lg_f32_binary_AVX512[op](x, sx, x_row, y, sy, y_row, out, n, rows, lo,
                                 hi);
        return;
      case LG_GEMM_ISA_AVX2:
        lg_f32_binary_AVX2[op](x, sx, x_row, y, sy, y_row, out, n, rows, lo,
                               hi);
        return;
      default:
        break;
    }
  }
#endif
  for (int64_t r = 0; r < rows; ++r) {
    lg_f32_binary_scalar(op, x + r * x_row, sx, y + r * y_row, sy, out + r * n,
                         n, lo, hi);
  }
}

void lg_f32_binary_row(lg_f32_binop op, const float* x, ptrdiff_t sx,
                       const float* y, ptrdiff_t sy, float* out, int64_t n,
                       float lo, float hi) {
  lg_f32_binary_rows(op, x, sx, 0, y, sy, 0, out, n, 1, lo, hi);
}

void lg_f32_clamp_row(const float* x, float* out, int64_t n, float lo,
                      float hi) {
  if (n <= 0) return;
#if LG_GEMM_HAVE_X86
  switch (lg_gemm_isa_default()) {
    case LG_GEMM_ISA_AVX512:
      lg_f32_clamp_avx512(x, out, n, lo, hi);
      return;
    case LG_GEMM_ISA_AVX2:
      lg_f32_clamp_avx2(x, out, n, lo, hi);
      return;
    default:
      break;
  }
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = lg_kernel_clamp_float(x[i], lo, hi);
}

void lg_f32_prelu_row(const float* x, const float* alpha, ptrdiff_t alpha_step,
                      float* out, int64_t n) {
  if (n <= 0) return;
#if LG_GEMM_HAVE_X86
  switch (lg_gemm_isa_default()) {
    case LG_GEMM_ISA_AVX512:
      lg_f32_prelu_avx512(x, alpha, alpha_step, out, n);
      return;
    case LG_GEMM_ISA_AVX2:
      lg_f32_prelu_avx2(x, alpha, alpha_step, out, n);
      return;
    default:
      break;
  }
#endif
  for (int64_t i = 0; i < n; ++i) {
    out[i] = x[i] >= 0.0f ? x[i] : x[i] * alpha[i * alpha_step];
  }
}

void lg_f32_prelu_rows(const float* x, const float* alpha, float* out,
                       int64_t rows, int64_t inner) {
  if (rows <= 0 || inner <= 0) return;
#if LG_GEMM_HAVE_X86
  switch (lg_gemm_isa_default()) {
    case LG_GEMM_ISA_AVX512:
      lg_f32_prelu_rows_avx512(x, alpha, out, rows, inner);
      return;
    case LG_GEMM_ISA_AVX2:
      lg_f32_prelu_rows_avx2(x, alpha, out, rows, inner);
      return;
    default:
      break;
  }
#endif
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * inner;
    float* o = out + r * inner;
    for (int64_t i = 0; i < inner; ++i) {
      o[i] = xr[i] >= 0.0f ? xr[i] : xr[i] * alpha[i];
    }
  }
}

void lg_f32_leaky_relu_row(const float* x, float alpha, float* out, int64_t n) {
  if (n <= 0) return;
#if LG_GEMM_HAVE_X86
  switch (lg_gemm_isa_default()) {
    case LG_GEMM_ISA_AVX512:
      lg_f32_leaky_relu_avx512(x, alpha, out, n);
      return;
    case LG_GEMM_ISA_AVX2:
      lg_f32_leaky_relu_avx2(x, alpha, out, n);
      return;
    default:
      break;
  }
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = x[i] > 0.0f ? x[i] : x[i] * alpha;
}

/* lg_f32_NAME_row: the instruction set's row (lg_f32_NAME_avx512 or
 * _avx2), else `scalar`, an expression of x[i], element by element. */
#if LG_GEMM_HAVE_X86
#define LG_F32_UNARY_ROW(name, scalar)                              \
  void lg_f32_##name##_row(const float* x, float* out, int64_t n) { \
    if (n <= 0) return;                                             \
    switch (lg_gemm_isa_default()) {                                \
      case LG_GEMM_ISA_AVX512:                                      \
        lg_f32_##name##_avx512(x, out, n);                          \
        return;                                                     \
      case LG_GEMM_ISA_AVX2:                                        \
        lg_f32_##name##_avx2(x, out, n);                            \
        return;                                                     \
      default:                                                      \
        break;                                                      \
    }                                                               \
    for (int64_t i = 0; i < n; ++i) out[i] = (scalar);              \
  }
#else
#define LG_F32_UNARY_ROW(name, scalar)                              \
  void lg_f32_##name##_row(const float* x, float* out, int64_t n) { \
    for (int64_t i = 0; i < n; ++i) out[i] = (scalar);              \
  }
#endif

LG_F32_UNARY_ROW(hard_swish, lg_f32_hard_swish_scalar(x[i]))
LG_F32_UNARY_ROW(logistic, lg_f32_logistic(x[i]))
LG_F32_UNARY_ROW(tanh, tanhf(x[i]))
LG_F32_UNARY_ROW(elu, x[i] < 0.0f ? expm1f(x[i]) : x[i])

void lg_f32_bilinear_pixels(const float* row0, const float* row1,
                            const int32_t* x_lo, const int32_t* x_hi,
                            const float* dx, int count, int channels, float wy,
                            float dy, float* out) {
#if LG_GEMM_HAVE_X86
  const lg_gemm_isa isa = lg_gemm_isa_default();
  if (isa == LG_GEMM_ISA_AVX512) {
    lg_f32_bilinear_pixels_avx512(row0, row1, x_lo, x_hi, dx, count, channels,
                                  wy, dy, out);
    return;
  }
#endif
  for (int p = 0; p < count; ++p, out += channels) {
    const float* p00 = row0 + x_lo[p];
    const float* p01 = row0 + x_hi[p];
    const float* p10 = row1 + x_lo[p];
    const float* p11 = row1 + x_hi[p];
    const float ddx = dx[p], wx = 1.0f - ddx;
#if LG_GEMM_HAVE_X86
    if (isa == LG_GEMM_ISA_AVX2) {
      lg_f32_bilinear_avx2(p00, p01, p10, p11, out, channels, wy, dy, wx, ddx);
      continue;
    }
#endif
    for (int c = 0; c < channels; ++c) {
      out[c] = p00[c] * wy * wx + p10[c] * dy * wx + p01[c] * wy * ddx +
               p11[c] * dy * ddx;
    }
  }
}

void lg_f32_row_sums(const float* x, ptrdiff_t row_stride, int64_t rows,
                     int64_t n, float* sums) {
#if LG_GEMM_HAVE_X86
  if (lg_gemm_isa_default() == LG_GEMM_ISA_AVX512) {
    lg_f32_row_sums_avx512(x, row_stride, rows, n, sums);
    return;
  }
#endif
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * row_stride;
    float acc = 0.0f;
    for (int64_t i = 0; i < n; ++i) acc += row[i];
    sums[r] = acc;
  }
}

void lg_f32_fold_rows(lg_f32_binop op, bool x_first, float* acc, const float* x,
                      ptrdiff_t row_stride, int64_t rows, int64_t n) {
  if (n <= 0 || rows <= 0) return;
#if LG_GEMM_HAVE_X86
  if (lg_gemm_isa_default() == LG_GEMM_ISA_AVX512) {
    switch (op) {
      case LG_F32_ADD:
        lg_f32_fold_ADD_avx512(x_first, acc, x, row_stride, rows, n);
        return;
      case LG_F32_MUL:
        lg_f32_fold_MUL_avx512(x_first, acc, x, row_stride, rows, n);
        return;
      case LG_F32_MAX:
        lg_f32_fold_MAX_avx512(x_first, acc, x, row_stride, rows, n);
        return;
      case LG_F32_MIN:
        lg_f32_fold_MIN_avx512(x_first, acc, x, row_stride, rows, n);
        return;
      default:
        break;
    }
  }
#endif
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * row_stride;
    for (int64_t i = 0; i < n; ++i) {
      acc[i] =
          x_first
              ? lg_f32_binop_scalar(op, row[i], acc[i], -INFINITY, INFINITY)
              : lg_f32_binop_scalar(op, acc[i], row[i], -INFINITY, INFINITY);
    }
  }
}

bool lg_f32_gelu_row(const float* x, float* out, int64_t n, bool approximate) {
#if LG_GEMM_HAVE_X86
  const lg_gemm_isa isa = lg_gemm_isa_default();
  if (isa == LG_GEMM_ISA_AVX512) {
    (approximate ? lg_f32_gelu_tanh_avx512 : lg_f32_gelu_erf_avx512)(x, out, n);
    return true;
  }
  if (isa == LG_GEMM_ISA_AVX2) {
    (approximate ? lg_f32_gelu_tanh_avx2 : lg_f32_gelu_erf_avx2)(x, out, n);
    return true;
  }
#endif
  (void)x;
  (void)out;
  (void)n;
  (void)approximate;
  return false;
}

bool lg_f32_softmax_rows(const float* x, float* out, int64_t rows,
                         int64_t depth, float beta) {
#if LG_GEMM_HAVE_X86
  if (!(beta > 0.0f) || depth <= 0) return false;
  const lg_gemm_isa isa = lg_gemm_isa_default();
  if (isa == LG_GEMM_ISA_AVX512) {
    lg_f32_softmax_rows_avx512(x, out, rows, depth, beta);
    return true;
  }
  if (isa == LG_GEMM_ISA_AVX2) {
    for (int64_t r = 0; r < rows; ++r) {
      lg_f32_softmax_avx2(x + r * depth, out + r * depth, depth, beta);
    }
    return true;
  }
#endif
  (void)x;
  (void)out;
  (void)rows;
  (void)depth;
  (void)beta;
  return false;
}

bool lg_f32_softmax_row(const float* x, float* out, int64_t depth, float beta) {
#if LG_GEMM_HAVE_X86
  if (!(beta > 0.0f) || depth <= 0) return false;
  const lg_gemm_isa isa = lg_gemm_isa_default();
  if (isa == LG_GEMM_ISA_AVX512) {
    lg_f32_softmax_avx512(x, out, depth, beta);
    return true;
  }
  if (isa == LG_GEMM_ISA_AVX2) {
    lg_f32_softmax_avx2(x, out, depth, beta);
    return true;
  }
#endif
  (void)x;
  (void)out;
  (void)depth;
  (void)beta;
  return false;
}
