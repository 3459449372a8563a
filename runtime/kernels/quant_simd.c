/* SIMD kernels of the INT8 quantized ops, exact integer arithmetic, so
 * the results equal the scalar loops' bit for bit:
 *   - the convolutions' (conv_quant.c) AVX2 dot products (int16 rows
 *     against int16 weight rows, 16 products per _mm256_madd_epi16) and
 *     AVX-512 VNNI kernel (output channels in lanes), the depthwise
 *     channel accumulation, and requantization 8 or 16 lanes at a time;
 *   - INT8 ADD / SUB rows (binary.c).
 *
 * Each function carries its target attribute itself (no -m flags), so it
 * builds into the same binary as the scalar path and runs only when the
 * caller has checked the CPU (lg_gemm_isa_default). */
#include "runtime/kernels/quant_simd.h"

#include <string.h>

#include "runtime/kernels/gemm.h"
#include "runtime/kernels/quant_util.h"

/* ---- INT8 depthwise pixels -------------------------------------------- */

static inline int8_t lg_dw_int8_finish(const lg_dw_int8_params* p, int32_t acc,
                                       int c) {
  int32_t v = lg_multiply_by_quantized_multiplier(acc, p->multipliers[c],
                                                  p->shifts[c]) +
              p->zero_point;
  v = v < p->lo ? p->lo : (v > p->hi ? p->hi : v);
  return (int8_t)v;
}

/* Channels [c0, channels) one at a time. */
static void lg_dw_int8_channels_scalar(const lg_dw_int8_params* p,
                                       const int8_t* const* taps, int c0,
                                       int8_t* out) {
  for (int c = c0; c < p->channels; ++c) {
    uint32_t acc = (uint32_t)p->bias[c];
    for (int k = 0; k < p->pairs; ++k) {
      const int16_t* w = p->weights + ((size_t)k * p->channels + c) * 2;
      acc += (uint32_t)(w[0] * taps[2 * k][c] + w[1] * taps[2 * k + 1][c]);
    }
    out[c] = lg_dw_int8_finish(p, (int32_t)acc, c);
  }
}

void lg_dw_int8_pixel_scalar(const lg_dw_int8_params* p,
                             const int8_t* const* taps, int8_t* out) {
  lg_dw_int8_channels_scalar(p, taps, 0, out);
}

void lg_requant16_pack(const int32_t* multipliers, const int* shifts, int n,
                       lg_requant16* dst) {
  const int blocks = (n + 15) / 16;
  for (int b = 0; b < blocks; ++b) {
    lg_requant16* r = dst + b;
    r->any_left = 0;
    for (int lane = 0; lane < 16; ++lane) {
      const int c = b * 16 + lane;
      const int32_t m = c < n ? multipliers[c] : 0;
      const int shift = c < n ? shifts[c] : 0;
      const int left = shift > 0 ? shift : 0;
      const int right = shift > 0 ? 0 : -shift;
      r->mult[lane] = m;
      r->mult_odd[lane] = 0;
      if (lane % 2 == 1) r->mult_odd[lane - 1] = m;
      r->left[lane] = left;
      if (left > 0) r->any_left = 1;
      r->add[lane % 2][lane / 2] =
          (1LL << 30) + (right > 0 ? (int64_t)1 << (30 + right) : 0);
      r->neg[lane % 2][lane / 2] = right > 0 ? 1LL << 31 : 0;
      r->shr[lane % 2][lane / 2] = 31 + right;
    }
  }
}

#if LG_GEMM_HAVE_X86

#include <immintrin.h>

#define LG_AVX2_INLINE \
  static inline __attribute__((always_inline, target("avx2")))

LG_AVX2_INLINE int32_t lg_hsum_epi32(__m256i v) {
  const __m128i s =
      _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  const __m128i t = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  const __m128i u = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xb1));
  return _mm_cvtsi128_si32(u);
}

__attribute__((target("avx2"))) void lg_int16_dots_avx2(const int16_t* row,
                                                        const int16_t* weights,
                                                        int k_pad, int n,
                                                        int32_t* dots) {
  int o = 0;
  for (; o + 4 <= n; o += 4) {
    const int16_t* w0 = weights + (size_t)o * k_pad;
    const int16_t* w1 = w0 + k_pad;
    const int16_t* w2 = w1 + k_pad;
    const int16_t* w3 = w2 + k_pad;
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    for (int k = 0; k < k_pad; k += 16) {
      const __m256i x = _mm256_loadu_si256((const __m256i*)(row + k));
      a0 = _mm256_add_epi32(
          a0,
          _mm256_madd_epi16(x, _mm256_loadu_si256((const __m256i*)(w0 + k))));
      a1 = _mm256_add_epi32(
          a1,
          _mm256_madd_epi16(x, _mm256_loadu_si256((const __m256i*)(w1 + k))));
      a2 = _mm256_add_epi32(
          a2,
          _mm256_madd_epi16(x, _mm256_loadu_si256((const __m256i*)(w2 + k))));
      a3 = _mm256_add_epi32(
          a3,
          _mm256_madd_epi16(x, _mm256_loadu_si256((const __m256i*)(w3 + k))));
    }
    dots[o] = lg_hsum_epi32(a0);
    dots[o + 1] = lg_hsum_epi32(a1);
    dots[o + 2] = lg_hsum_epi32(a2);
    dots[o + 3] = lg_hsum_epi32(a3);
  }
  for (; o < n; ++o) {
    const int16_t* w = weights + (size_t)o * k_pad;
    __m256i a = _mm256_setzero_si256();
    for (int k = 0; k < k_pad; k += 16) {
      a = _mm256_add_epi32(
          a, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i*)(row + k)),
                               _mm256_loadu_si256((const __m256i*)(w + k))));
    }
    dots[o] = lg_hsum_epi32(a);
  }
}

/* Sums of 4 accumulators' lanes: {a0, a1, a2, a3} as 4 int32. */
LG_AVX2_INLINE __m128i lg_hsum4_epi32(__m256i a0, __m256i a1, __m256i a2,
                                      __m256i a3) {
  const __m256i s01 = _mm256_hadd_epi32(a0, a1);
  const __m256i s23 = _mm256_hadd_epi32(a2, a3);
  const __m256i s = _mm256_hadd_epi32(s01, s23);
  return _mm_add_epi32(_mm256_castsi256_si128(s),
                       _mm256_extracti128_si256(s, 1));
}

__attribute__((target("avx2"))) void lg_int16_dots2_avx2(
    const int16_t* row0, const int16_t* row1, const int16_t* weights, int k_pad,
    int n, int32_t* dots0, int32_t* dots1) {
  int o = 0;
  for (; o + 4 <= n; o += 4) {
    const int16_t* w0 = weights + (size_t)o * k_pad;
    const int16_t* w1 = w0 + k_pad;
    const int16_t* w2 = w1 + k_pad;
    const int16_t* w3 = w2 + k_pad;
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    __m256i b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    for (int k = 0; k < k_pad; k += 16) {
      const __m256i x = _mm256_loadu_si256((const __m256i*)(row0 + k));
      const __m256i y = _mm256_loadu_si256((const __m256i*)(row1 + k));
      __m256i w = _mm256_loadu_si256((const __m256i*)(w0 + k));
      a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(x, w));
      b0 = _mm256_add_epi32(b0, _mm256_madd_epi16(y, w));
      w = _mm256_loadu_si256((const __m256i*)(w1 + k));
      a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(x, w));
      b1 = _mm256_add_epi32(b1, _mm256_madd_epi16(y, w));
      w = _mm256_loadu_si256((const __m256i*)(w2 + k));
      a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(x, w));
      b2 = _mm256_add_epi32(b2, _mm256_madd_epi16(y, w));
      w = _mm256_loadu_si256((const __m256i*)(w3 + k));
      a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(x, w));
      b3 = _mm256_add_epi32(b3, _mm256_madd_epi16(y, w));
    }
    _mm_storeu_si128((__m128i*)(dots0 + o), lg_hsum4_epi32(a0, a1, a2, a3));
    _mm_storeu_si128((__m128i*)(dots1 + o), lg_hsum4_epi32(b0, b1, b2, b3));
  }
  if (o < n) {
    lg_int16_dots_avx2(row0, weights + (size_t)o * k_pad, k_pad, n - o,
                       dots0 + o);
    lg_int16_dots_avx2(row1, weights + (size_t)o * k_pad, k_pad, n - o,
                       dots1 + o);
  }
}

__attribute__((target("avx2"))) void lg_int8_madd_avx2(int32_t* acc,
                                                       const int8_t* w,
                                                       const int8_t* v, int n,
                                                       int32_t offset) {
  /* (v + offset) lies in [-255, 255] and w in [-128, 127]: each product
   * fits int16 exactly. */
  const __m256i off = _mm256_set1_epi16((int16_t)offset);
  int k = 0;
  for (; k + 16 <= n; k += 16) {
    const __m256i w16 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)(w + k)));
    const __m256i v16 = _mm256_add_epi16(
        _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)(v + k))), off);
    const __m256i p = _mm256_mullo_epi16(w16, v16);
    __m256i* a = (__m256i*)(acc + k);
    _mm256_storeu_si256(
        a, _mm256_add_epi32(_mm256_loadu_si256(a),
                            _mm256_cvtepi16_epi32(_mm256_castsi256_si128(p))));
    _mm256_storeu_si256(
        a + 1, _mm256_add_epi32(
                   _mm256_loadu_si256(a + 1),
                   _mm256_cvtepi16_epi32(_mm256_extracti128_si256(p, 1))));
  }
  for (; k < n; ++k) acc[k] += (int32_t)w[k] * ((int32_t)v[k] + offset);
}

__attribute__((target("avx2"))) void lg_uint8_madd_avx2(int32_t* acc,
                                                        const uint8_t* w,
                                                        const uint8_t* v, int n,
                                                        int32_t w_offset,
                                                        int32_t v_offset) {
  /* Both factors lie in [-255, 255] (int16); their product needs 32 bits:
   * the low and high halves of the 16-bit multiply, interleaved. The
   * interleave works within 128-bit halves, so the two results hold
   * elements {0-3, 8-11} and {4-7, 12-15}, put back in order. */
  const __m256i wo = _mm256_set1_epi16((int16_t)w_offset);
  const __m256i vo = _mm256_set1_epi16((int16_t)v_offset);
  int k = 0;
  for (; k + 16 <= n; k += 16) {
    const __m256i w16 = _mm256_add_epi16(
        _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i*)(w + k))), wo);
    const __m256i v16 = _mm256_add_epi16(
        _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i*)(v + k))), vo);
    const __m256i lo = _mm256_mullo_epi16(w16, v16);
    const __m256i hi = _mm256_mulhi_epi16(w16, v16);
    const __m256i p03 = _mm256_unpacklo_epi16(lo, hi); /* 0-3, 8-11 */
    const __m256i p47 = _mm256_unpackhi_epi16(lo, hi); /* 4-7, 12-15 */
    __m256i* a = (__m256i*)(acc + k);
    _mm256_storeu_si256(
        a, _mm256_add_epi32(_mm256_loadu_si256(a),
                            _mm256_permute2x128_si256(p03, p47, 0x20)));
    _mm256_storeu_si256(
        a + 1, _mm256_add_epi32(_mm256_loadu_si256(a + 1),
                                _mm256_permute2x128_si256(p03, p47, 0x31)));
  }
  for (; k < n; ++k) {
    acc[k] += ((int32_t)w[k] + w_offset) * ((int32_t)v[k] + v_offset);
  }
}

/* TFLite's MultiplyByQuantizedMultiplier on 8 lanes, exactly: the left
 * shift; the rounding doubling high multiply, which for a multiplier that
 * is never INT32_MIN is (x * m + 2^30) >> 31 (arithmetic; its low 32 bits
 * equal the logical shift's); the rounding right shift. */
LG_AVX2_INLINE __m256i lg_mbqm_avx2(__m256i x, __m256i m, __m256i shift) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i left = _mm256_max_epi32(shift, zero);
  const __m256i right = _mm256_max_epi32(_mm256_sub_epi32(zero, shift), zero);
  x = _mm256_sllv_epi32(x, left);
  const __m256i round = _mm256_set1_epi64x(1LL << 30);
  const __m256i even =
      _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(x, m), round), 31);
  const __m256i odd = _mm256_srli_epi64(
      _mm256_add_epi64(
          _mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(m, 32)),
          round),
      31);
  const __m256i high =
      _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, right), one);
  const __m256i remainder = _mm256_and_si256(high, mask);
  const __m256i threshold = _mm256_sub_epi32(_mm256_srli_epi32(mask, 1),
                                             _mm256_cmpgt_epi32(zero, high));
  return _mm256_sub_epi32(_mm256_srav_epi32(high, right),
                          _mm256_cmpgt_epi32(remainder, threshold));
}

/* Channels [c, c + 8) of a depthwise pixel: the bytes of each tap pair
 * interleaved per channel, widened to int16, one multiply-add per pair
 * against the interleaved weights. */
LG_AVX2_INLINE void lg_dw_int8_step8_avx2(const lg_dw_int8_params* p,
                                          const int8_t* const* taps, int c,
                                          int8_t* out) {
  __m256i acc = _mm256_loadu_si256((const __m256i*)(p->bias + c));
  for (int k = 0; k < p->pairs; ++k) {
    const __m128i a = _mm_loadl_epi64((const __m128i*)(taps[2 * k] + c));
    const __m128i b = _mm_loadl_epi64((const __m128i*)(taps[2 * k + 1] + c));
    const __m256i x = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(a, b));
    const __m256i w = _mm256_loadu_si256(
        (const __m256i*)(p->weights + ((size_t)k * p->channels + c) * 2));
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x, w));
  }
  __m256i v = lg_mbqm_avx2(
      acc, _mm256_loadu_si256((const __m256i*)(p->multipliers + c)),
      _mm256_loadu_si256((const __m256i*)(p->shifts + c)));
  v = _mm256_add_epi32(v, _mm256_set1_epi32(p->zero_point));
  v = _mm256_min_epi32(_mm256_max_epi32(v, _mm256_set1_epi32(p->lo)),
                       _mm256_set1_epi32(p->hi));
  const __m128i v16 = _mm_packs_epi32(_mm256_castsi256_si128(v),
                                      _mm256_extracti128_si256(v, 1));
  _mm_storel_epi64((__m128i*)(out + c), _mm_packs_epi16(v16, v16));
}

__attribute__((target("avx2"))) void lg_dw_int8_pixel_avx2(
    const lg_dw_int8_params* p, const int8_t* const* taps, int8_t* out) {
  int c = 0;
  for (; c + 8 <= p->channels; c += 8) lg_dw_int8_step8_avx2(p, taps, c, out);
  lg_dw_int8_channels_scalar(p, taps, c, out);
}

__attribute__((target("avx2"))) void lg_add_int8_avx2(
    const int8_t* a, const int8_t* b, int n, int sign,
    const lg_int8_add_params* p, int8_t* out) {
  /* sign 2: SQUARED_DIFFERENCE, the difference squared before the
   * output rescale. */
  const __m256i off1 = _mm256_set1_epi32(p->in1_offset);
  const __m256i off2 = _mm256_set1_epi32(p->in2_offset);
  const __m256i m1 = _mm256_set1_epi32(p->in1_multiplier);
  const __m256i m2 = _mm256_set1_epi32(p->in2_multiplier);
  const __m256i mo = _mm256_set1_epi32(p->out_multiplier);
  const __m256i s1 = _mm256_set1_epi32(p->in1_shift);
  const __m256i s2 = _mm256_set1_epi32(p->in2_shift);
  const __m256i so = _mm256_set1_epi32(p->out_shift);
  const __m256i zp = _mm256_set1_epi32(p->out_offset);
  const __m256i lo = _mm256_set1_epi32(p->min), hi = _mm256_set1_epi32(p->max);
  const __m128i left = _mm_cvtsi32_si128(p->left_shift);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i x = _mm256_sll_epi32(
        _mm256_add_epi32(
            _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i*)(a + i))),
            off1),
        left);
    const __m256i y = _mm256_sll_epi32(
        _mm256_add_epi32(
            _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i*)(b + i))),
            off2),
        left);
    const __m256i sx = lg_mbqm_avx2(x, m1, s1);
    const __m256i sy = lg_mbqm_avx2(y, m2, s2);
    __m256i sum =
        sign == 1 ? _mm256_add_epi32(sx, sy) : _mm256_sub_epi32(sx, sy);
    if (sign == 2) sum = _mm256_mullo_epi32(sum, sum);
    __m256i v = _mm256_add_epi32(lg_mbqm_avx2(sum, mo, so), zp);
    v = _mm256_min_epi32(_mm256_max_epi32(v, lo), hi);
    const __m128i v16 = _mm_packs_epi32(_mm256_castsi256_si128(v),
                                        _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64((__m128i*)(out + i), _mm_packs_epi16(v16, v16));
  }
  for (; i < n; ++i) {
    const int32_t x = lg_multiply_by_quantized_multiplier(
        (a[i] + p->in1_offset) * (1 << p->left_shift), p->in1_multiplier,
        p->in1_shift);
    const int32_t y = lg_multiply_by_quantized_multiplier(
        (b[i] + p->in2_offset) * (1 << p->left_shift), p->in2_multiplier,
        p->in2_shift);
    const int32_t d = sign == 1 ? x + y : x - y;
    int32_t v = lg_multiply_by_quantized_multiplier(
                    sign == 2 ? d * d : d, p->out_multiplier, p->out_shift) +
                p->out_offset;
    v = v < p->min ? p->min : (v > p->max ? p->max : v);
    out[i] = (int8_t)v;
  }
}

__attribute__((target("avx2"))) void lg_mul_int8_avx2(
    const int8_t* a, const int8_t* b, int n, const lg_int8_add_params* p,
    int8_t* out) {
  const __m256i off1 = _mm256_set1_epi32(p->in1_offset);
  const __m256i off2 = _mm256_set1_epi32(p->in2_offset);
  const __m256i mo = _mm256_set1_epi32(p->out_multiplier);
  const __m256i so = _mm256_set1_epi32(p->out_shift);
  const __m256i zp = _mm256_set1_epi32(p->out_offset);
  const __m256i lo = _mm256_set1_epi32(p->min), hi = _mm256_set1_epi32(p->max);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i x = _mm256_add_epi32(
        _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i*)(a + i))), off1);
    const __m256i y = _mm256_add_epi32(
        _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i*)(b + i))), off2);
    __m256i v =
        _mm256_add_epi32(lg_mbqm_avx2(_mm256_mullo_epi32(x, y), mo, so), zp);
    v = _mm256_min_epi32(_mm256_max_epi32(v, lo), hi);
    const __m128i v16 = _mm_packs_epi32(_mm256_castsi256_si128(v),
                                        _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64((__m128i*)(out + i), _mm_packs_epi16(v16, v16));
  }
  for (; i < n; ++i) {
    int32_t v = lg_multiply_by_quantized_multiplier(
                    (a[i] + p->in1_offset) * (b[i] + p->in2_offset),
                    p->out_multiplier, p->out_shift) +
                p->out_offset;
    v = v < p->min ? p->min : (v > p->max ? p->max : v);
    out[i] = (int8_t)v;
  }
}

__attribute__((target("avx2"))) void lg_requantize_int8_avx2(
    const int32_t* acc, int n, const int32_t* multipliers, const int* shifts,
    int32_t zero_point, int32_t lo, int32_t hi, int8_t* out) {
  const __m256i zp = _mm256_set1_epi32(zero_point);
  const __m256i vlo = _mm256_set1_epi32(lo), vhi = _mm256_set1_epi32(hi);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i v =
        lg_mbqm_avx2(_mm256_loadu_si256((const __m256i*)(acc + i)),
                     _mm256_loadu_si256((const __m256i*)(multipliers + i)),
                     _mm256_loadu_si256((const __m256i*)(shifts + i)));
    v = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(v, zp), vlo), vhi);
    /* 8 int32 in [-128, 127] to 8 int8. */
    const __m128i lo16 = _mm_packs_epi32(_mm256_castsi256_si128(v),
                                         _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64((__m128i*)(out + i), _mm_packs_epi16(lo16, lo16));
  }
  for (; i < n; ++i) {
    int32_t v =
        lg_multiply_by_quantized_multiplier(acc[i], multipliers[i], shifts[i]) +
        zero_point;
    v = v < lo ? lo : (v > hi ? hi : v);
    out[i] = (int8_t)v;
  }
}

/* ---- AVX-512 VNNI ------------------------------------------------------ */

#define LG_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define LG_VNNI_INLINE          \
  static inline __attribute__(( \
      always_inline, target("avx512f,avx512bw,avx512vl,avx512vnni")))
/* AVX-512 without VNNI (lg_int8_avx512_supported). */
#define LG_AVX512BW __attribute__((target("avx512f,avx512bw,avx512vl")))
#define LG_AVX512BW_INLINE \
  static inline            \
      __attribute__((always_inline, target("avx512f,avx512bw,avx512vl")))

bool lg_int8_avx512_supported(void) {
  /* LITEGPU_GEMM_ISA's cap (lg_gemm_isa_default) applies here too. */
  if (lg_gemm_isa_default() < LG_GEMM_ISA_AVX512) return false;
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl");
}

bool lg_int8_vnni_supported(void) {
  return lg_int8_avx512_supported() && __builtin_cpu_supports("avx512vnni");
}

/* MBQM of 16 int32 lanes with a packed rescale (lg_requant16): the left
 * shift, the 64-bit products of the even and the odd lanes, the folded
 * rounding constants, one arithmetic shift each, the odd results moved
 * back between the even ones. */
LG_AVX512BW_INLINE __m512i lg_requant16_apply(const lg_requant16* r,
                                              __m512i x) {
  if (r->any_left) x = _mm512_sllv_epi32(x, _mm512_loadu_si512(r->left));
  const __m512i limit = _mm512_set1_epi64(-(1LL << 30));
  const __m512i pe = _mm512_mul_epi32(x, _mm512_loadu_si512(r->mult));
  const __m512i po = _mm512_mul_epi32(_mm512_srli_epi64(x, 32),
                                      _mm512_loadu_si512(r->mult_odd));
  __m512i ye = _mm512_add_epi64(pe, _mm512_loadu_si512(r->add[0]));
  __m512i yo = _mm512_add_epi64(po, _mm512_loadu_si512(r->add[1]));
  ye = _mm512_mask_sub_epi64(ye, _mm512_cmplt_epi64_mask(pe, limit), ye,
                             _mm512_loadu_si512(r->neg[0]));
  yo = _mm512_mask_sub_epi64(yo, _mm512_cmplt_epi64_mask(po, limit), yo,
                             _mm512_loadu_si512(r->neg[1]));
  ye = _mm512_srav_epi64(ye, _mm512_loadu_si512(r->shr[0]));
  yo = _mm512_srav_epi64(yo, _mm512_loadu_si512(r->shr[1]));
  /* Each result fits int32: the low halves of the 64-bit lanes. */
  return _mm512_mask_shuffle_epi32(ye, (__mmask16)0xAAAA, yo, _MM_PERM_CDAB);
}

/* + zero point, clamp, narrowed to 16 bytes. */
LG_AVX512BW_INLINE __m128i lg_requant16_finish(const lg_requant16* r,
                                               __m512i acc, __m512i zp,
                                               __m512i lo, __m512i hi) {
  const __m512i v = _mm512_add_epi32(lg_requant16_apply(r, acc), zp);
  return _mm512_cvtepi32_epi8(_mm512_min_epi32(_mm512_max_epi32(v, lo), hi));
}

/* Two blocks' finish at once, 32 bytes (block r0's 16 channels, then
 * r1's): the rescaled lanes packed to int16 with saturation, put back in
 * channel order (the pack interleaves 4-lane groups), + zero point with
 * saturation, clamped, narrowed. The same bytes as lg_requant16_finish:
 * a value the int16 saturation moves lies beyond [lo, hi] (within int8)
 * on the same side before and after, and so clamps alike. zp, lo and hi
 * as int16 lanes. */
LG_AVX512BW_INLINE __m256i lg_requant32_finish(const lg_requant16* r0,
                                               __m512i a, __m512i c, __m512i zp,
                                               __m512i lo, __m512i hi) {
  /* packs: 128-bit lane L holds a[4L..4L+3] then c[4L..4L+3]. */
  const __m512i order = _mm512_set_epi16(31, 30, 29, 28, 23, 22, 21, 20, 15, 14,
                                         13, 12, 7, 6, 5, 4, 27, 26, 25, 24, 19,
                                         18, 17, 16, 11, 10, 9, 8, 3, 2, 1, 0);
  const __m512i packed = _mm512_packs_epi32(lg_requant16_apply(r0, a),
                                            lg_requant16_apply(r0 + 1, c));
  __m512i v = _mm512_adds_epi16(_mm512_permutexvar_epi16(order, packed), zp);
  v = _mm512_min_epi16(_mm512_max_epi16(v, lo), hi);
  return _mm512_cvtepi16_epi8(v);
}

LG_AVX512BW void lg_requantize_int8_packed_avx512(const int32_t* acc, int n,
                                                  const lg_requant16* rq,
                                                  int32_t zero_point,
                                                  int32_t lo, int32_t hi,
                                                  int8_t* out) {
  const __m512i zp = _mm512_set1_epi32(zero_point);
  const __m512i vlo = _mm512_set1_epi32(lo), vhi = _mm512_set1_epi32(hi);
  for (int i = 0; i < n; i += 16) {
    const int count = n - i < 16 ? n - i : 16;
    const __mmask16 mask = (__mmask16)((1u << count) - 1u);
    const __m128i v = lg_requant16_finish(
        rq + i / 16, _mm512_maskz_loadu_epi32(mask, acc + i), zp, vlo, vhi);
    _mm_mask_storeu_epi8(out + i, mask, v);
  }
}

LG_VNNI void lg_flip_bytes_avx512(const uint8_t* src, size_t n, uint8_t* dst) {
  const __m512i flip = _mm512_set1_epi8((char)0x80);
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    _mm512_storeu_si512(dst + i,
                        _mm512_xor_si512(_mm512_loadu_si512(src + i), flip));
  }
  if (i < n) {
    const __mmask64 mask = (__mmask64)(~0ull >> (64 - (n - i)));
    _mm512_mask_storeu_epi8(
        dst + i, mask,
        _mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, src + i), flip));
  }
}

__attribute__((target("avx2"))) void lg_flip_pad_bytes_avx2(
    const uint8_t* src, size_t pixels, int in_c, int flip_c, uint8_t* dst) {
  size_t p = 0;
  if (in_c == 3 && flip_c == 4) {
    /* 4 pixels a step: 12 of the 16 bytes loaded, each pixel's 3 bytes
     * spread to 4 (the 4th from byte 0, any value does), all flipped. */
    const __m128i spread =
        _mm_setr_epi8(0, 1, 2, 0, 3, 4, 5, 0, 6, 7, 8, 0, 9, 10, 11, 0);
    const __m128i flip = _mm_set1_epi8((char)0x80);
    /* The load reads 16 bytes: stop while 16 remain. */
    for (; (p + 4) * 3 + 4 <= pixels * 3; p += 4) {
      const __m128i v = _mm_loadu_si128((const __m128i*)(src + p * 3));
      _mm_storeu_si128((__m128i*)(dst + p * 4),
                       _mm_xor_si128(_mm_shuffle_epi8(v, spread), flip));
    }
  }
  for (; p < pixels; ++p) {
    const uint8_t* s = src + p * (size_t)in_c;
    uint8_t* d = dst + p * (size_t)flip_c;
    for (int c = 0; c < in_c; ++c) d[c] = s[c] ^ 0x80u;
    for (int c = in_c; c < flip_c; ++c) d[c] = 0x80u;
  }
}

/* 4 bytes of a row as the int32 the broadcast takes. */
static inline int32_t lg_row_word(const uint8_t* p) {
  int32_t v;
  memcpy(&v, p, sizeof(v));
  return v;
}

/* Output channels in lanes: for each block of 16 channels, each 4-byte
 * group of every pixel's row is broadcast to all lanes and multiplied with
 * the block's weights for those 4 depths (u8 x s8, four products summed
 * into each int32 lane); up to 4 pixels share each weight load, two blocks
 * at a time (8 independent sums; a lone last block splits each tap's
 * depth in two sets of sums instead). */
LG_VNNI void lg_uint8_conv_vnni(const uint8_t* const* taps, int ntaps, int c4,
                                int pixels, const int8_t* packed, int out_c,
                                const int32_t* init, const lg_requant16* rq,
                                int32_t zero_point, int32_t lo, int32_t hi,
                                int8_t* const* outs) {
  const __m512i zp = _mm512_set1_epi32(zero_point);
  const __m512i vlo = _mm512_set1_epi32(lo), vhi = _mm512_set1_epi32(hi);
  const __m512i zp16 = _mm512_set1_epi16((int16_t)zero_point);
  const __m512i lo16 = _mm512_set1_epi16((int16_t)lo);
  const __m512i hi16 = _mm512_set1_epi16((int16_t)hi);
  /* Pixels past `pixels` repeat pixel 0 (their sums are not stored). */
  const uint8_t* const* t0 = taps;
  const uint8_t* const* t1 = pixels > 1 ? taps + ntaps : taps;
  const uint8_t* const* t2 = pixels > 2 ? taps + 2 * ntaps : taps;
  const uint8_t* const* t3 = pixels > 3 ? taps + 3 * ntaps : taps;
  const int blocks = (out_c + 15) / 16;
  const size_t block_bytes = (size_t)ntaps * c4 * 64;
  for (int b = 0; b < blocks; b += 2) {
    const bool two = b + 1 < blocks;
    const int8_t* w0 = packed + (size_t)b * block_bytes;
    __m512i a0 = _mm512_loadu_si512(init + (size_t)b * 16), a1 = a0, a2 = a0,
            a3 = a0;
    __m512i c0, c1, c2, c3;
    if (two) {
      const int8_t* w1 = w0 + block_bytes;
      c0 = _mm512_loadu_si512(init + (size_t)(b + 1) * 16);
      c1 = c0;
      c2 = c0;
      c3 = c0;
      for (int t = 0; t < ntaps; ++t) {
        const uint8_t *r0 = t0[t], *r1 = t1[t], *r2 = t2[t], *r3 = t3[t];
        for (int j = 0; j < c4; ++j, w0 += 64, w1 += 64) {
          const __m512i u = _mm512_loadu_si512(w0);
          const __m512i v = _mm512_loadu_si512(w1);
          const __m512i x0 = _mm512_set1_epi32(lg_row_word(r0 + 4 * j));
          const __m512i x1 = _mm512_set1_epi32(lg_row_word(r1 + 4 * j));
          const __m512i x2 = _mm512_set1_epi32(lg_row_word(r2 + 4 * j));
          const __m512i x3 = _mm512_set1_epi32(lg_row_word(r3 + 4 * j));
          a0 = _mm512_dpbusd_epi32(a0, x0, u);
          c0 = _mm512_dpbusd_epi32(c0, x0, v);
          a1 = _mm512_dpbusd_epi32(a1, x1, u);
          c1 = _mm512_dpbusd_epi32(c1, x1, v);
          a2 = _mm512_dpbusd_epi32(a2, x2, u);
          c2 = _mm512_dpbusd_epi32(c2, x2, v);
          a3 = _mm512_dpbusd_epi32(a3, x3, u);
          c3 = _mm512_dpbusd_epi32(c3, x3, v);
        }
      }
    } else {
      /* A lone last block: even depth groups of each tap into a, odd ones
       * into c (8 independent sums again), added at the end (integer sums:
       * the order does not matter). */
      c0 = _mm512_setzero_si512();
      c1 = c0;
      c2 = c0;
      c3 = c0;
      for (int t = 0; t < ntaps; ++t) {
        const uint8_t *r0 = t0[t], *r1 = t1[t], *r2 = t2[t], *r3 = t3[t];
        int j = 0;
        for (; j + 2 <= c4; j += 2, w0 += 128) {
          const __m512i u = _mm512_loadu_si512(w0);
          const __m512i v = _mm512_loadu_si512(w0 + 64);
          a0 = _mm512_dpbusd_epi32(
              a0, _mm512_set1_epi32(lg_row_word(r0 + 4 * j)), u);
          c0 = _mm512_dpbusd_epi32(
              c0, _mm512_set1_epi32(lg_row_word(r0 + 4 * j + 4)), v);
          a1 = _mm512_dpbusd_epi32(
              a1, _mm512_set1_epi32(lg_row_word(r1 + 4 * j)), u);
          c1 = _mm512_dpbusd_epi32(
              c1, _mm512_set1_epi32(lg_row_word(r1 + 4 * j + 4)), v);
          a2 = _mm512_dpbusd_epi32(
              a2, _mm512_set1_epi32(lg_row_word(r2 + 4 * j)), u);
          c2 = _mm512_dpbusd_epi32(
              c2, _mm512_set1_epi32(lg_row_word(r2 + 4 * j + 4)), v);
          a3 = _mm512_dpbusd_epi32(
              a3, _mm512_set1_epi32(lg_row_word(r3 + 4 * j)), u);
          c3 = _mm512_dpbusd_epi32(
              c3, _mm512_set1_epi32(lg_row_word(r3 + 4 * j + 4)), v);
        }
        if (j < c4) {
          const __m512i u = _mm512_loadu_si512(w0);
          w0 += 64;
          a0 = _mm512_dpbusd_epi32(
              a0, _mm512_set1_epi32(lg_row_word(r0 + 4 * j)), u);
          a1 = _mm512_dpbusd_epi32(
              a1, _mm512_set1_epi32(lg_row_word(r1 + 4 * j)), u);
          a2 = _mm512_dpbusd_epi32(
              a2, _mm512_set1_epi32(lg_row_word(r2 + 4 * j)), u);
          a3 = _mm512_dpbusd_epi32(
              a3, _mm512_set1_epi32(lg_row_word(r3 + 4 * j)), u);
        }
      }
      a0 = _mm512_add_epi32(a0, c0);
      a1 = _mm512_add_epi32(a1, c1);
      a2 = _mm512_add_epi32(a2, c2);
      a3 = _mm512_add_epi32(a3, c3);
    }
    const lg_requant16* q0 = rq + b;
    if (two) {
      /* Block b is whole; block b + 1 may end early. */
      const int n1 = out_c - (b + 1) * 16 < 16 ? out_c - (b + 1) * 16 : 16;
      const __mmask32 m = 0xFFFFu | (((1u << n1) - 1u) << 16);
      int8_t* const at[4] = {
          outs[0] + b * 16, outs[pixels > 1 ? 1 : 0] + b * 16,
          outs[pixels > 2 ? 2 : 0] + b * 16, outs[pixels > 3 ? 3 : 0] + b * 16};
      _mm256_mask_storeu_epi8(
          at[0], m, lg_requant32_finish(q0, a0, c0, zp16, lo16, hi16));
      if (pixels > 1) {
        _mm256_mask_storeu_epi8(
            at[1], m, lg_requant32_finish(q0, a1, c1, zp16, lo16, hi16));
      }
      if (pixels > 2) {
        _mm256_mask_storeu_epi8(
            at[2], m, lg_requant32_finish(q0, a2, c2, zp16, lo16, hi16));
      }
      if (pixels > 3) {
        _mm256_mask_storeu_epi8(
            at[3], m, lg_requant32_finish(q0, a3, c3, zp16, lo16, hi16));
      }
      continue;
    }
    const int n0 = out_c - b * 16 < 16 ? out_c - b * 16 : 16;
    const __mmask16 m0 = (__mmask16)((1u << n0) - 1u);
    _mm_mask_storeu_epi8(outs[0] + b * 16, m0,
                         lg_requant16_finish(q0, a0, zp, vlo, vhi));
    if (pixels > 1) {
      _mm_mask_storeu_epi8(outs[1] + b * 16, m0,
                           lg_requant16_finish(q0, a1, zp, vlo, vhi));
    }
    if (pixels > 2) {
      _mm_mask_storeu_epi8(outs[2] + b * 16, m0,
                           lg_requant16_finish(q0, a2, zp, vlo, vhi));
    }
    if (pixels > 3) {
      _mm_mask_storeu_epi8(outs[3] + b * 16, m0,
                           lg_requant16_finish(q0, a3, zp, vlo, vhi));
    }
  }
}

LG_VNNI void lg_uint8_dots_vnni(const uint8_t* row, const int8_t* packed,
                                int k4, int n, const int32_t* init,
                                int32_t* sums) {
  const int blocks = (n + 15) / 16;
  for (int b = 0; b < blocks; ++b) {
    const int8_t* w = packed + (size_t)b * k4 * 64;
    __m512i a0 = _mm512_loadu_si512(init + (size_t)b * 16);
    __m512i a1 = _mm512_setzero_si512(), a2 = a1, a3 = a1;
    int k = 0;
    for (; k + 4 <= k4; k += 4, w += 256) {
      a0 = _mm512_dpbusd_epi32(a0, _mm512_set1_epi32(lg_row_word(row + 4 * k)),
                               _mm512_loadu_si512(w));
      a1 = _mm512_dpbusd_epi32(a1,
                               _mm512_set1_epi32(lg_row_word(row + 4 * k + 4)),
                               _mm512_loadu_si512(w + 64));
      a2 = _mm512_dpbusd_epi32(a2,
                               _mm512_set1_epi32(lg_row_word(row + 4 * k + 8)),
                               _mm512_loadu_si512(w + 128));
      a3 = _mm512_dpbusd_epi32(a3,
                               _mm512_set1_epi32(lg_row_word(row + 4 * k + 12)),
                               _mm512_loadu_si512(w + 192));
    }
    for (; k < k4; ++k, w += 64) {
      a0 = _mm512_dpbusd_epi32(a0, _mm512_set1_epi32(lg_row_word(row + 4 * k)),
                               _mm512_loadu_si512(w));
    }
    const __m512i sum =
        _mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3));
    const int count = n - b * 16 < 16 ? n - b * 16 : 16;
    _mm512_mask_storeu_epi32(sums + (size_t)b * 16,
                             (__mmask16)((1u << count) - 1u), sum);
  }
}

/* lg_mbqm_avx2 on 16 lanes (AVX-512F). */
static inline __attribute__((always_inline, target("avx512f"))) __m512i
lg_mbqm_avx512(__m512i x, __m512i m, __m512i shift) {
  const __m512i zero = _mm512_setzero_si512();
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i left = _mm512_max_epi32(shift, zero);
  const __m512i right = _mm512_max_epi32(_mm512_sub_epi32(zero, shift), zero);
  x = _mm512_sllv_epi32(x, left);
  const __m512i round = _mm512_set1_epi64(1LL << 30);
  const __m512i even =
      _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epi32(x, m), round), 31);
  const __m512i odd = _mm512_srli_epi64(
      _mm512_add_epi64(
          _mm512_mul_epi32(_mm512_srli_epi64(x, 32), _mm512_srli_epi64(m, 32)),
          round),
      31);
  const __m512i high = _mm512_mask_blend_epi32((__mmask16)0xAAAA, even,
                                               _mm512_slli_epi64(odd, 32));
  const __m512i mask = _mm512_sub_epi32(_mm512_sllv_epi32(one, right), one);
  const __m512i remainder = _mm512_and_si512(high, mask);
  const __m512i threshold = _mm512_mask_add_epi32(
      _mm512_srli_epi32(mask, 1), _mm512_cmplt_epi32_mask(high, zero),
      _mm512_srli_epi32(mask, 1), one);
  return _mm512_mask_add_epi32(_mm512_srav_epi32(high, right),
                               _mm512_cmpgt_epi32_mask(remainder, threshold),
                               _mm512_srav_epi32(high, right), one);
}

LG_AVX512BW void lg_add_int8_avx512(const int8_t* a, const int8_t* b, int n,
                                    int sign, const lg_int8_add_params* p,
                                    int8_t* out) {
  /* sign 2: SQUARED_DIFFERENCE, the difference squared before the
   * output rescale. */
  const __m512i off1 = _mm512_set1_epi32(p->in1_offset);
  const __m512i off2 = _mm512_set1_epi32(p->in2_offset);
  const __m512i m1 = _mm512_set1_epi32(p->in1_multiplier);
  const __m512i m2 = _mm512_set1_epi32(p->in2_multiplier);
  const __m512i mo = _mm512_set1_epi32(p->out_multiplier);
  const __m512i s1 = _mm512_set1_epi32(p->in1_shift);
  const __m512i s2 = _mm512_set1_epi32(p->in2_shift);
  const __m512i so = _mm512_set1_epi32(p->out_shift);
  const __m512i zp = _mm512_set1_epi32(p->out_offset);
  const __m512i lo = _mm512_set1_epi32(p->min), hi = _mm512_set1_epi32(p->max);
  const __m128i left = _mm_cvtsi32_si128(p->left_shift);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i x = _mm512_sll_epi32(
        _mm512_add_epi32(
            _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i*)(a + i))),
            off1),
        left);
    const __m512i y = _mm512_sll_epi32(
        _mm512_add_epi32(
            _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i*)(b + i))),
            off2),
        left);
    const __m512i sx = lg_mbqm_avx512(x, m1, s1);
    const __m512i sy = lg_mbqm_avx512(y, m2, s2);
    __m512i sum =
        sign == 1 ? _mm512_add_epi32(sx, sy) : _mm512_sub_epi32(sx, sy);
    if (sign == 2) sum = _mm512_mullo_epi32(sum, sum);
    __m512i v = _mm512_add_epi32(lg_mbqm_avx512(sum, mo, so), zp);
    v = _mm512_min_epi32(_mm512_max_epi32(v, lo), hi);
    _mm_storeu_si128((__m128i*)(out + i), _mm512_cvtepi32_epi8(v));
  }
  if (i < n) lg_add_int8_avx2(a + i, b + i, n - i, sign, p, out + i);
}

LG_AVX512BW void lg_mul_int8_avx512(const int8_t* a, const int8_t* b, int n,
                                    const lg_int8_add_params* p, int8_t* out) {
  const __m512i off1 = _mm512_set1_epi32(p->in1_offset);
  const __m512i off2 = _mm512_set1_epi32(p->in2_offset);
  const __m512i mo = _mm512_set1_epi32(p->out_multiplier);
  const __m512i so = _mm512_set1_epi32(p->out_shift);
  const __m512i zp = _mm512_set1_epi32(p->out_offset);
  const __m512i lo = _mm512_set1_epi32(p->min), hi = _mm512_set1_epi32(p->max);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i x = _mm512_add_epi32(
        _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i*)(a + i))), off1);
    const __m512i y = _mm512_add_epi32(
        _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i*)(b + i))), off2);
    __m512i v =
        _mm512_add_epi32(lg_mbqm_avx512(_mm512_mullo_epi32(x, y), mo, so), zp);
    v = _mm512_min_epi32(_mm512_max_epi32(v, lo), hi);
    _mm_storeu_si128((__m128i*)(out + i), _mm512_cvtepi32_epi8(v));
  }
  if (i < n) lg_mul_int8_avx2(a + i, b + i, n - i, p, out + i);
}

LG_AVX512BW void lg_requantize_int8_avx512(const int32_t* acc, int n,
                                           const int32_t* multipliers,
                                           const int* shifts,
                                           int32_t zero_point, int32_t lo,
                                           int32_t hi, int8_t* out) {
  const __m512i zp = _mm512_set1_epi32(zero_point);
  const __m512i vlo = _mm512_set1_epi32(lo), vhi = _mm512_set1_epi32(hi);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512i v = lg_mbqm_avx512(_mm512_loadu_si512(acc + i),
                               _mm512_loadu_si512(multipliers + i),
                               _mm512_loadu_si512(shifts + i));
    v = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(v, zp), vlo), vhi);
    _mm_storeu_si128((__m128i*)(out + i), _mm512_cvtepi32_epi8(v));
  }
  if (i < n) {
    lg_requantize_int8_avx2(acc + i, n - i, multipliers + i, shifts + i,
                            zero_point, lo, hi, out + i);
  }
}

/* Each 16-bit pair's two products summed into acc: vpdpwssd with VNNI,
 * else its two-instruction form (the same int32 sums, wrapping alike). */
LG_VNNI_INLINE __m512i lg_dot_pairs_vnni(__m512i acc, __m512i x, __m512i w) {
  return _mm512_dpwssd_epi32(acc, x, w);
}
LG_AVX512BW_INLINE __m512i lg_dot_pairs_bw(__m512i acc, __m512i x, __m512i w) {
  return _mm512_add_epi32(acc, _mm512_madd_epi16(x, w));
}

/* A depthwise pixel on AVX-512 from channel c0 (0 or 32 * blocks32), 32
 * channels at a time in the permuted layout, then 16, then
 * lg_dw_int8_step8_avx2's 8, the rest scalar; `dot`
 * adds each tap pair's products (lg_dot_pairs_*). One body for the VNNI
 * and the plain AVX-512 BW function. */
#define LG_DW_INT8_PIXEL_AVX512(name, attr, dot)                               \
  static attr void name##_from(const lg_dw_int8_params* p,                     \
                               const int8_t* const* taps, int c0,              \
                               int8_t* out) {                                  \
    const __m512i zp = _mm512_set1_epi32(p->zero_point);                       \
    const __m512i lo = _mm512_set1_epi32(p->lo),                               \
                  hi = _mm512_set1_epi32(p->hi);                               \
    int c = c0;                                                                \
    for (int b = c0 / 32; b < p->blocks32; ++b, c += 32) {                     \
      __m512i lo_acc = _mm512_loadu_si512(p->bias32 + (size_t)b * 32);         \
      __m512i hi_acc = _mm512_loadu_si512(p->bias32 + (size_t)b * 32 + 16);    \
      const int16_t* w = p->weights32 + (size_t)b * 64;                        \
      const size_t w_step = (size_t)p->blocks32 * 64;                          \
      for (int k = 0; k < p->pairs; ++k, w += w_step) {                        \
        const __m512i xa = _mm512_cvtepi8_epi16(                               \
            _mm256_loadu_si256((const __m256i*)(taps[2 * k] + c)));            \
        const __m512i xb = _mm512_cvtepi8_epi16(                               \
            _mm256_loadu_si256((const __m256i*)(taps[2 * k + 1] + c)));        \
        lo_acc =                                                               \
            dot(lo_acc, _mm512_unpacklo_epi16(xa, xb), _mm512_loadu_si512(w)); \
        hi_acc = dot(hi_acc, _mm512_unpackhi_epi16(xa, xb),                    \
                     _mm512_loadu_si512(w + 32));                              \
      }                                                                        \
      const lg_requant16* rq = p->rq32 + (size_t)b * 2;                        \
      __m512i vl = _mm512_add_epi32(lg_requant16_apply(rq, lo_acc), zp);       \
      __m512i vh = _mm512_add_epi32(lg_requant16_apply(rq + 1, hi_acc), zp);   \
      vl = _mm512_min_epi32(_mm512_max_epi32(vl, lo), hi);                     \
      vh = _mm512_min_epi32(_mm512_max_epi32(vh, lo), hi);                     \
      /* The pack takes 4 lanes of each per 128-bit lane: channel order. */    \
      _mm256_storeu_si256((__m256i*)(out + c),                                 \
                          _mm512_cvtepi16_epi8(_mm512_packs_epi32(vl, vh)));   \
    }                                                                          \
    for (; c + 16 <= p->channels; c += 16) {                                   \
      __m512i acc = _mm512_loadu_si512(p->bias + c);                           \
      const int16_t* w = p->weights + (size_t)c * 2;                           \
      const size_t w_step = (size_t)p->channels * 2;                           \
      for (int k = 0; k < p->pairs; ++k, w += w_step) {                        \
        const __m128i a = _mm_loadu_si128((const __m128i*)(taps[2 * k] + c));  \
        const __m128i b =                                                      \
            _mm_loadu_si128((const __m128i*)(taps[2 * k + 1] + c));            \
        const __m512i x = _mm512_cvtepi8_epi16(_mm256_set_m128i(               \
            _mm_unpackhi_epi8(a, b), _mm_unpacklo_epi8(a, b)));                \
        acc = dot(acc, x, _mm512_loadu_si512(w));                              \
      }                                                                        \
      _mm_storeu_si128((__m128i*)(out + c),                                    \
                       lg_requant16_finish(p->rq + c / 16, acc, zp, lo, hi));  \
    }                                                                          \
    if (c + 8 <= p->channels) {                                                \
      lg_dw_int8_step8_avx2(p, taps, c, out);                                  \
      c += 8;                                                                  \
    }                                                                          \
    lg_dw_int8_channels_scalar(p, taps, c, out);                               \
  }                                                                            \
  attr void name(const lg_dw_int8_params* p, const int8_t* const* taps,        \
                 int8_t* out) {                                                \
    name##_from(p, taps, 0, out);                                              \
  }

LG_DW_INT8_PIXEL_AVX512(lg_dw_int8_pixel_avx512, LG_AVX512BW, lg_dot_pairs_bw)
LG_DW_INT8_PIXEL_AVX512(lg_dw_int8_pixel_vnni, LG_VNNI, lg_dot_pairs_vnni)

/* A row of depthwise pixels on AVX-512: per block of 32 channels, the
 * block's tap-pair weights loaded once into registers (the arrays hold
 * `pairs` of them; with pairs a constant, a 3x3 window's 5 stay in
 * registers) and its pixels run one after another; the channels past the
 * blocks pixel by pixel through `pixel`. The pair loops unroll whole for
 * pairs 5 (LG_UNROLL_PAIRS): otherwise the compiler keeps the loop and
 * the weight arrays in memory. */
#define LG_UNROLL_PAIRS _Pragma("GCC unroll 5")
#define LG_DW_INT8_ROW_AVX512(name, attr, dot, pixel)                          \
  static inline __attribute__((always_inline)) attr void name##_blocks(        \
      const lg_dw_int8_params* p, const int8_t* const* taps, ptrdiff_t step,   \
      int pixels, int8_t* out, const int pairs) {                              \
    const __m512i zp = _mm512_set1_epi32(p->zero_point);                       \
    const __m512i lo = _mm512_set1_epi32(p->lo),                               \
                  hi = _mm512_set1_epi32(p->hi);                               \
    const size_t w_step = (size_t)p->blocks32 * 64;                            \
    __m512i wl[LG_DW_ROW_MAX_PAIRS], wh[LG_DW_ROW_MAX_PAIRS];                  \
    for (int b = 0; b < p->blocks32; ++b) {                                    \
      const int c = 32 * b;                                                    \
      const int16_t* w = p->weights32 + (size_t)b * 64;                        \
      LG_UNROLL_PAIRS                                                          \
      for (int k = 0; k < pairs; ++k, w += w_step) {                           \
        wl[k] = _mm512_loadu_si512(w);                                         \
        wh[k] = _mm512_loadu_si512(w + 32);                                    \
      }                                                                        \
      const __m512i bias_lo = _mm512_loadu_si512(p->bias32 + c);               \
      const __m512i bias_hi = _mm512_loadu_si512(p->bias32 + c + 16);          \
      const lg_requant16* rq = p->rq32 + (size_t)b * 2;                        \
      for (int x = 0; x < pixels; ++x) {                                       \
        const ptrdiff_t at = x * step + c;                                     \
        __m512i lo_acc = bias_lo, hi_acc = bias_hi;                            \
        LG_UNROLL_PAIRS                                                        \
        for (int k = 0; k < pairs; ++k) {                                      \
          const __m512i xa = _mm512_cvtepi8_epi16(                             \
              _mm256_loadu_si256((const __m256i*)(taps[2 * k] + at)));         \
          const __m512i xb = _mm512_cvtepi8_epi16(                             \
              _mm256_loadu_si256((const __m256i*)(taps[2 * k + 1] + at)));     \
          lo_acc = dot(lo_acc, _mm512_unpacklo_epi16(xa, xb), wl[k]);          \
          hi_acc = dot(hi_acc, _mm512_unpackhi_epi16(xa, xb), wh[k]);          \
        }                                                                      \
        __m512i vl = _mm512_add_epi32(lg_requant16_apply(rq, lo_acc), zp);     \
        __m512i vh = _mm512_add_epi32(lg_requant16_apply(rq + 1, hi_acc), zp); \
        vl = _mm512_min_epi32(_mm512_max_epi32(vl, lo), hi);                   \
        vh = _mm512_min_epi32(_mm512_max_epi32(vh, lo), hi);                   \
        _mm256_storeu_si256((__m256i*)(out + (ptrdiff_t)x * p->channels + c),  \
                            _mm512_cvtepi16_epi8(_mm512_packs_epi32(vl, vh))); \
      }                                                                        \
    }                                                                          \
  }                                                                            \
  attr void name(const lg_dw_int8_params* p, const int8_t* const* taps,        \
                 ptrdiff_t step, int pixels, int8_t* out) {                    \
    if (p->pairs == 5) {                                                       \
      name##_blocks(p, taps, step, pixels, out, 5);                            \
    } else {                                                                   \
      name##_blocks(p, taps, step, pixels, out, p->pairs);                     \
    }                                                                          \
    if (32 * p->blocks32 == p->channels) return;                               \
    const int count = 2 * p->pairs;                                            \
    const int8_t* moved[2 * LG_DW_ROW_MAX_PAIRS];                              \
    for (int x = 0; x < pixels; ++x) {                                         \
      for (int t = 0; t < count; ++t) moved[t] = taps[t] + x * step;           \
      pixel(p, moved, 32 * p->blocks32, out + (ptrdiff_t)x * p->channels);     \
    }                                                                          \
  }

LG_DW_INT8_ROW_AVX512(lg_dw_int8_row_avx512, LG_AVX512BW, lg_dot_pairs_bw,
                      lg_dw_int8_pixel_avx512_from)
LG_DW_INT8_ROW_AVX512(lg_dw_int8_row_vnni, LG_VNNI, lg_dot_pairs_vnni,
                      lg_dw_int8_pixel_vnni_from)

/* round(v) half away from zero, as libm's round, exactly: the truncation
 * plus the sign where the (exact) fraction v - trunc(v) reaches 1/2. */
LG_AVX512BW_INLINE __m512d lg_round_away_pd(__m512d v) {
  const __m512d t =
      _mm512_roundscale_pd(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __m512d frac = _mm512_abs_pd(_mm512_sub_pd(v, t));
  const __mmask8 up = _mm512_cmp_pd_mask(frac, _mm512_set1_pd(0.5), _CMP_GE_OQ);
  /* copysign(1, v) */
  const __m512d one = _mm512_castsi512_pd(_mm512_or_si512(
      _mm512_and_si512(_mm512_castpd_si512(v),
                       _mm512_set1_epi64((long long)0x8000000000000000ull)),
      _mm512_castpd_si512(_mm512_set1_pd(1.0))));
  return _mm512_mask_add_pd(t, up, t, one);
}

LG_AVX512BW void lg_scale_round_int8_avx512(const int32_t* acc,
                                            const double* scales, int n,
                                            int32_t offset, int32_t lo,
                                            int32_t hi, int8_t* out) {
  /* Rounded values outside int32 become INT32_MIN (the truncating
   * conversion's indefinite value, lg_quant_round_to_int_double's too);
   * |r| is then capped at 2^16 so that + offset cannot wrap: a value
   * beyond it clamps to the same end as before. */
  const __m256i cap_lo = _mm256_set1_epi32(-65536);
  const __m256i cap_hi = _mm256_set1_epi32(65536);
  const __m256i off = _mm256_set1_epi32(offset);
  const __m256i vlo = _mm256_set1_epi32(lo), vhi = _mm256_set1_epi32(hi);
  for (int i = 0; i < n; i += 8) {
    const int count = n - i < 8 ? n - i : 8;
    const __mmask8 mask = (__mmask8)((1u << count) - 1u);
    const __m512d v = _mm512_mul_pd(
        _mm512_cvtepi32_pd(_mm256_maskz_loadu_epi32(mask, acc + i)),
        _mm512_maskz_loadu_pd(mask, scales + i));
    __m256i r = _mm512_cvttpd_epi32(lg_round_away_pd(v));
    r = _mm256_min_epi32(_mm256_max_epi32(r, cap_lo), cap_hi);
    r = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(r, off), vlo), vhi);
    _mm_mask_storeu_epi8(out + i, mask, _mm256_cvtepi32_epi8(r));
  }
}

/* ---- INT8 bilinear resize rows ------------------------------------------ */

/* 16 channels of one output pixel: the vertical blends of the left and
 * right source columns, v = top * wy + bottom * dy (one 16-bit multiply-add
 * of interleaved pairs), then wx * v_left + dx * v_right, rounded half away
 * from zero over 2^20. Each step is exact (see lg_resize_bilinear_i8_avx2),
 * so the sum equals TFLite's four-product one. */
LG_AVX2_INLINE __m128i lg_resize_blend16_avx2(
    __m128i top_left, __m128i bottom_left, __m128i top_right,
    __m128i bottom_right, __m256i wy_dy, __m256i wx, __m256i dx) {
  const __m256i l0 =
      _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(top_left, bottom_left));
  const __m256i l1 =
      _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(top_left, bottom_left));
  const __m256i r0 =
      _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(top_right, bottom_right));
  const __m256i r1 =
      _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(top_right, bottom_right));
  const __m256i half = _mm256_set1_epi32(1 << 19);
  __m256i sum[2];
  const __m256i lefts[2] = {l0, l1}, rights[2] = {r0, r1};
  for (int h = 0; h < 2; ++h) {
    const __m256i s = _mm256_add_epi32(
        _mm256_mullo_epi32(_mm256_madd_epi16(lefts[h], wy_dy), wx),
        _mm256_mullo_epi32(_mm256_madd_epi16(rights[h], wy_dy), dx));
    /* sign(s) * ((|s| + 2^19) >> 20): C's (s +- 2^19) / 2^20. */
    sum[h] = _mm256_sign_epi32(
        _mm256_srli_epi32(_mm256_add_epi32(_mm256_abs_epi32(s), half), 20), s);
  }
  /* Channels 0-7 and 8-15 to int16 in order, then to bytes (the results
   * lie within int8: the weights of each axis sum to 2^10). */
  const __m256i packed =
      _mm256_permute4x64_epi64(_mm256_packs_epi32(sum[0], sum[1]), 0xd8);
  return _mm_packs_epi16(_mm256_castsi256_si128(packed),
                         _mm256_extracti128_si256(packed, 1));
}

__attribute__((target("avx2"))) void lg_resize_bilinear_i8_avx2(
    const int8_t* row0, const int8_t* row1, const int32_t* x_lo,
    const int32_t* x_hi, const int32_t* dx, int count, int channels, int32_t wy,
    int32_t dy, int8_t* out) {
  const __m256i wy_dy =
      _mm256_set1_epi32((int32_t)(((uint32_t)dy << 16) | (uint16_t)wy));
  const int full = channels / 16 * 16;
  /* Then 8 channels through 8-byte loads, then the rest (< 8). */
  const int half = channels - full >= 8 ? full + 8 : full;
  for (int i = 0; i < count; ++i, out += channels) {
    const __m256i wx = _mm256_set1_epi32((1 << 10) - dx[i]);
    const __m256i wdx = _mm256_set1_epi32(dx[i]);
    const int8_t* tl = row0 + x_lo[i];
    const int8_t* bl = row1 + x_lo[i];
    const int8_t* tr = row0 + x_hi[i];
    const int8_t* br = row1 + x_hi[i];
    for (int c = 0; c < full; c += 16) {
      const __m128i v = lg_resize_blend16_avx2(
          _mm_loadu_si128((const __m128i*)(tl + c)),
          _mm_loadu_si128((const __m128i*)(bl + c)),
          _mm_loadu_si128((const __m128i*)(tr + c)),
          _mm_loadu_si128((const __m128i*)(br + c)), wy_dy, wx, wdx);
      _mm_storeu_si128((__m128i*)(out + c), v);
    }
    if (half > full) {
      const __m128i v = lg_resize_blend16_avx2(
          _mm_loadl_epi64((const __m128i*)(tl + full)),
          _mm_loadl_epi64((const __m128i*)(bl + full)),
          _mm_loadl_epi64((const __m128i*)(tr + full)),
          _mm_loadl_epi64((const __m128i*)(br + full)), wy_dy, wx, wdx);
      _mm_storel_epi64((__m128i*)(out + full), v);
    }
    /* The last channels (< 8) one at a time, the same regrouped sum. */
    for (int c = half; c < channels; ++c) {
      const int32_t sum = ((1 << 10) - dx[i]) * (tl[c] * wy + bl[c] * dy) +
                          dx[i] * (tr[c] * wy + br[c] * dy);
      out[c] = (int8_t)((sum + (sum > 0 ? (1 << 19) : -(1 << 19))) / (1 << 20));
    }
  }
}

#else

bool lg_int8_avx512_supported(void) { return false; }
bool lg_int8_vnni_supported(void) { return false; }

#endif /* LG_GEMM_HAVE_X86 */
