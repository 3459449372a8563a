/* The AVX2+FMA GEMM micro-kernel: 6 x 16 floats of C in 12 ymm
 * accumulators; each depth step loads two B vectors and broadcasts 6 A
 * values.
 *
 * Every function here carries target("avx2,fma") itself (no -m flags, no
 * -march=native), so the file builds into the same binary as the scalar
 * path and runs only when gemm.c has checked the CPU. A separate unrolled
 * body per row count (1..6) keeps the accumulators in registers for edge
 * tiles; columns past `cols` are handled with masked loads and stores. */
#include "runtime/kernels/gemm.h"

#if LG_GEMM_HAVE_X86

#include <immintrin.h>
#include <stdint.h>

#define LG_AVX2 __attribute__((target("avx2,fma")))
#define LG_AVX2_INLINE \
  static inline __attribute__((always_inline, target("avx2,fma")))
#define LG_MR 6
#define LG_NR 16

/* Lanes i with i < n (n may be <= 0 or >= 8). */
LG_AVX2_INLINE __m256i lg_avx2_mask(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* C = acc + bias or C += acc, then the clamp. `full`: all 8 lanes. */
LG_AVX2_INLINE void lg_avx2_store(float* c, __m256 acc, const float* bias,
                                  bool full, __m256i mask, unsigned flags,
                                  __m256 lo, __m256 hi) {
  __m256 v = acc;
  if (flags & LG_GEMM_ACCUMULATE) {
    v = _mm256_add_ps(full ? _mm256_loadu_ps(c) : _mm256_maskload_ps(c, mask),
                      acc);
  } else if (bias != NULL) {
    v = _mm256_add_ps(
        acc, full ? _mm256_loadu_ps(bias) : _mm256_maskload_ps(bias, mask));
  }
  /* max(lo, v): a NaN v is the second operand, so it passes through. */
  if (flags & LG_GEMM_CLAMP) v = _mm256_min_ps(hi, _mm256_max_ps(lo, v));
  if (full) {
    _mm256_storeu_ps(c, v);
  } else {
    _mm256_maskstore_ps(c, mask, v);
  }
}

/* `direct`: A is read in place, row r at a + r * lda (consecutive depth
 * steps adjacent); otherwise a is a packed panel (a[p * MR + r]). */
LG_AVX2_INLINE void lg_avx2_tile(const bool direct, const int rows, int cols,
                                 int kc, const float* restrict a, ptrdiff_t lda,
                                 const float* restrict b, float* c,
                                 ptrdiff_t ldc, const float* bias,
                                 unsigned flags, float lo, float hi) {
  __m256 acc0[LG_MR], acc1[LG_MR];
#pragma GCC unroll 6
  for (int r = 0; r < rows; ++r) {
    acc0[r] = _mm256_setzero_ps();
    acc1[r] = _mm256_setzero_ps();
  }
#pragma GCC unroll 2
  for (int p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
    for (int r = 0; r < rows; ++r) {
      const __m256 av = _mm256_broadcast_ss(direct ? a + r * lda : a + r);
      acc0[r] = _mm256_fmadd_ps(av, b0, acc0[r]);
      acc1[r] = _mm256_fmadd_ps(av, b1, acc1[r]);
    }
    a += direct ? 1 : LG_MR;
    b += LG_NR;
  }
  const bool full0 = cols >= 8, full1 = cols >= 16;
  const __m256i mask0 = lg_avx2_mask(cols), mask1 = lg_avx2_mask(cols - 8);
  const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
#pragma GCC unroll 6
  for (int r = 0; r < rows; ++r) {
    float* crow = c + (ptrdiff_t)r * ldc;
    lg_avx2_store(crow, acc0[r], bias, full0, mask0, flags, vlo, vhi);
    if (cols > 8) {
      lg_avx2_store(crow + 8, acc1[r], bias != NULL ? bias + 8 : NULL, full1,
                    mask1, flags, vlo, vhi);
    }
  }
}

#define LG_AVX2_CASE(n)                                                     \
  case n:                                                                   \
    lg_avx2_tile(false, n, cols, kc, a, 0, b, c, ldc, bias, flags, lo, hi); \
    break
#define LG_AVX2_DIRECT_CASE(n)                                               \
  case n:                                                                    \
    lg_avx2_tile(true, n, cols, kc, a, lda, b, c, ldc, bias, flags, lo, hi); \
    break

LG_AVX2 void lg_gemm_kernel_avx2(int rows, int cols, int kc, const float* a,
                                 const float* b, float* c, ptrdiff_t ldc,
                                 const float* bias, unsigned flags, float lo,
                                 float hi) {
  switch (rows) {
    LG_AVX2_CASE(6);
    LG_AVX2_CASE(5);
    LG_AVX2_CASE(4);
    LG_AVX2_CASE(3);
    LG_AVX2_CASE(2);
    LG_AVX2_CASE(1);
    default:
      break;
  }
}

LG_AVX2 void lg_gemm_kernel_avx2_direct(int rows, int cols, int kc,
                                        const float* a, ptrdiff_t lda,
                                        const float* b, float* c, ptrdiff_t ldc,
                                        const float* bias, unsigned flags,
                                        float lo, float hi) {
  switch (rows) {
    LG_AVX2_DIRECT_CASE(6);
    LG_AVX2_DIRECT_CASE(5);
    LG_AVX2_DIRECT_CASE(4);
    LG_AVX2_DIRECT_CASE(3);
    LG_AVX2_DIRECT_CASE(2);
    LG_AVX2_DIRECT_CASE(1);
    default:
      break;
  }
}

#else
/* Not x86-64: only the scalar kernel exists. */
typedef int lg_gemm_avx2_unused;
#endif
