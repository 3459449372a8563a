/* The AVX-512F GEMM micro-kernel: 12 x 32 floats of C in 24 zmm
 * accumulators; each depth step loads two B vectors and multiplies them by
 * 12 A values taken as embedded broadcasts (vfmadd231ps m32{1to16}).
 *
 * Every function here carries target("avx512f") itself (no -m flags, no
 * -march=native), so the file builds into the same binary as the scalar
 * path and runs only when gemm.c has checked the CPU. A separate unrolled
 * body per row count (1..12) keeps the accumulators in registers for edge
 * tiles; columns past `cols` are handled with store masks. */
#include "runtime/kernels/gemm.h"

#if LG_GEMM_HAVE_X86

#include <immintrin.h>
#include <stdint.h>

#define LG_AVX512 __attribute__((target("avx512f")))
#define LG_AVX512_INLINE \
  static inline __attribute__((always_inline, target("avx512f")))
#define LG_MR 12
#define LG_NR 32

/* C = acc + bias or C += acc, then the clamp, on the lanes of `mask`. */
LG_AVX512_INLINE void lg_avx512_store(float* c, __m512 acc, const float* bias,
                                      __mmask16 mask, unsigned flags, __m512 lo,
                                      __m512 hi) {
  __m512 v;
  if (flags & LG_GEMM_ACCUMULATE) {
    v = _mm512_add_ps(_mm512_maskz_loadu_ps(mask, c), acc);
  } else if (bias != NULL) {
    v = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(mask, bias));
  } else {
    v = acc;
  }
  /* max(lo, v): a NaN v is the second operand, so it passes through. */
  if (flags & LG_GEMM_CLAMP) v = _mm512_min_ps(hi, _mm512_max_ps(lo, v));
  _mm512_mask_storeu_ps(c, mask, v);
}

/* `direct`: A is read in place, row r at a + r * lda (consecutive depth
 * steps adjacent); otherwise a is a packed panel (a[p * MR + r]).
 * `narrow`: cols <= 16, so the panel's second 16 columns are padding and
 * are neither loaded nor multiplied (half the work of a 16-wide B such as
 * an attention head's, or of an edge panel). */
LG_AVX512_INLINE void lg_avx512_tile(const bool direct, const bool narrow,
                                     const int rows, int cols, int kc,
                                     const float* restrict a, ptrdiff_t lda,
                                     const float* restrict b, float* c,
                                     ptrdiff_t ldc, const float* bias,
                                     unsigned flags, float lo, float hi) {
  __m512 acc0[LG_MR], acc1[LG_MR];
#pragma GCC unroll 12
  for (int r = 0; r < rows; ++r) {
    acc0[r] = _mm512_setzero_ps();
    acc1[r] = _mm512_setzero_ps();
  }
#pragma GCC unroll 2
  for (int p = 0; p < kc; ++p) {
    const __m512 b0 = _mm512_loadu_ps(b);
    const __m512 b1 = narrow ? b0 : _mm512_loadu_ps(b + 16);
#pragma GCC unroll 12
    for (int r = 0; r < rows; ++r) {
      const __m512 av = _mm512_set1_ps(direct ? a[r * lda] : a[r]);
      acc0[r] = _mm512_fmadd_ps(av, b0, acc0[r]);
      if (!narrow) acc1[r] = _mm512_fmadd_ps(av, b1, acc1[r]);
    }
    a += direct ? 1 : LG_MR;
    b += LG_NR;
  }
  const __mmask16 m0 =
      cols >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << cols) - 1u);
  const __mmask16 m1 =
      cols >= 32 ? (__mmask16)0xFFFF
                 : (cols > 16 ? (__mmask16)((1u << (cols - 16)) - 1u) : 0);
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
#pragma GCC unroll 12
  for (int r = 0; r < rows; ++r) {
    float* crow = c + (ptrdiff_t)r * ldc;
    lg_avx512_store(crow, acc0[r], bias, m0, flags, vlo, vhi);
    if (!narrow && m1 != 0) {
      lg_avx512_store(crow + 16, acc1[r], bias != NULL ? bias + 16 : NULL, m1,
                      flags, vlo, vhi);
    }
  }
}

#define LG_AVX512_CASE(n, narrow)                                            \
  case n:                                                                    \
    lg_avx512_tile(false, narrow, n, cols, kc, a, 0, b, c, ldc, bias, flags, \
                   lo, hi);                                                  \
    break
#define LG_AVX512_DIRECT_CASE(n, narrow)                                      \
  case n:                                                                     \
    lg_avx512_tile(true, narrow, n, cols, kc, a, lda, b, c, ldc, bias, flags, \
                   lo, hi);                                                   \
    break
/* One switch over the row counts 12..1 for a CASE macro. */
#define LG_AVX512_ROWS(CASE, narrow) \
  switch (rows) {                    \
    CASE(12, narrow);                \
    CASE(11, narrow);                \
    CASE(10, narrow);                \
    CASE(9, narrow);                 \
    CASE(8, narrow);                 \
    CASE(7, narrow);                 \
    CASE(6, narrow);                 \
    CASE(5, narrow);                 \
    CASE(4, narrow);                 \
    CASE(3, narrow);                 \
    CASE(2, narrow);                 \
    CASE(1, narrow);                 \
    default:                         \
      break;                         \
  }

LG_AVX512 void lg_gemm_kernel_avx512(int rows, int cols, int kc, const float* a,
                                     const float* b, float* c, ptrdiff_t ldc,
                                     const float* bias, unsigned flags,
                                     float lo, float hi) {
  if (cols <= 16) {
    LG_AVX512_ROWS(LG_AVX512_CASE, true)
  } else {
    LG_AVX512_ROWS(LG_AVX512_CASE, false)
  }
}

LG_AVX512 void lg_gemm_kernel_avx512_direct(int rows, int cols, int kc,
                                            const float* a, ptrdiff_t lda,
                                            const float* b, float* c,
                                            ptrdiff_t ldc, const float* bias,
                                            unsigned flags, float lo,
                                            float hi) {
  if (cols <= 16) {
    LG_AVX512_ROWS(LG_AVX512_DIRECT_CASE, true)
  } else {
    LG_AVX512_ROWS(LG_AVX512_DIRECT_CASE, false)
  }
}

#else
/* Not x86-64: only the scalar kernel exists. */
typedef int lg_gemm_avx512_unused;
#endif
