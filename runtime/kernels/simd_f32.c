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
 * multiply and add are ever contracted. */
#include "runtime/kernels/simd_f32.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_util.h"

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

/* ---- AVX-512F ------------------------------------------------------------ */

#define LG_F32_AVX512 __attribute__((target("avx512f")))
#define LG_F32_AVX512_INLINE \
  static inline __attribute__((always_inline, target("avx512f")))

/* The first `n` (< 16) lanes. */
LG_F32_AVX512_INLINE __mmask16 lg_f32_mask16(int64_t n) {
  return (__mmask16)((1u << n) - 1u);
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

LG_F32_AVX512_INLINE __m512 lg_f32_hard_swish16(__m512 v) {
  __m512 relu6 = _mm512_add_ps(v, _mm512_set1_ps(3.0f));
  relu6 = _mm512_max_ps(relu6, _mm512_setzero_ps());  /* 0 < r ? r : 0 */
  relu6 = _mm512_min_ps(relu6, _mm512_set1_ps(6.0f)); /* r < 6 ? r : 6 */
  return _mm512_div_ps(_mm512_mul_ps(v, relu6), _mm512_set1_ps(6.0f));
}

LG_F32_AVX512 static void lg_f32_hard_swish_avx512(const float* x, float* out,
                                                   int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm512_storeu_ps(out + i, lg_f32_hard_swish16(_mm512_loadu_ps(x + i)));
  }
  if (i < n) {
    const __mmask16 m = lg_f32_mask16(n - i);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    _mm512_mask_storeu_ps(out + i, m, lg_f32_hard_swish16(v));
  }
}

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

/* Up to 4 vectors of acc from i, held in registers over every row. */
LG_F32_AVX512_INLINE void lg_f32_fold16(const lg_f32_binop op,
                                        const bool x_first, float* acc,
                                        const float* x, ptrdiff_t row_stride,
                                        int64_t rows, int64_t n) {
  const __m512 lo = _mm512_set1_ps(-INFINITY), hi = _mm512_set1_ps(INFINITY);
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
        a[v] = x_first ? lg_f32_binop16(op, xv, a[v], lo, hi)
                       : lg_f32_binop16(op, a[v], xv, lo, hi);
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

/* ---- AVX2 ---------------------------------------------------------------- */

#define LG_F32_AVX2 __attribute__((target("avx2")))
#define LG_F32_AVX2_INLINE \
  static inline __attribute__((always_inline, target("avx2")))

/* The first `n` (< 8) lanes, as maskload / maskstore want them. */
LG_F32_AVX2_INLINE __m256i lg_f32_mask8(int64_t n) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), lanes);
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

LG_F32_AVX2_INLINE __m256 lg_f32_hard_swish8(__m256 v) {
  __m256 relu6 = _mm256_add_ps(v, _mm256_set1_ps(3.0f));
  relu6 = _mm256_max_ps(relu6, _mm256_setzero_ps());
  relu6 = _mm256_min_ps(relu6, _mm256_set1_ps(6.0f));
  return _mm256_div_ps(_mm256_mul_ps(v, relu6), _mm256_set1_ps(6.0f));
}

LG_F32_AVX2 static void lg_f32_hard_swish_avx2(const float* x, float* out,
                                               int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(out + i, lg_f32_hard_swish8(_mm256_loadu_ps(x + i)));
  }
  if (i < n) {
    const __m256i m = lg_f32_mask8(n - i);
    const __m256 v = _mm256_maskload_ps(x + i, m);
    _mm256_maskstore_ps(out + i, m, lg_f32_hard_swish8(v));
  }
}

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

void lg_f32_hard_swish_row(const float* x, float* out, int64_t n) {
  if (n <= 0) return;
#if LG_GEMM_HAVE_X86
  switch (lg_gemm_isa_default()) {
    case LG_GEMM_ISA_AVX512:
      lg_f32_hard_swish_avx512(x, out, n);
      return;
    case LG_GEMM_ISA_AVX2:
      lg_f32_hard_swish_avx2(x, out, n);
      return;
    default:
      break;
  }
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = lg_f32_hard_swish_scalar(x[i]);
}

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
