/* SIMD kernels of the INT8 quantized ops (quant_simd.c). Internal. */
#ifndef LITEGPU_RUNTIME_KERNELS_QUANT_SIMD_H_
#define LITEGPU_RUNTIME_KERNELS_QUANT_SIMD_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The row length the dot products read: k rounded up to 16 (the padding
 * holds zeros in both operands). */
#define LG_INT16_DOT_ALIGN 16

/* k rounded up to LG_INT16_DOT_ALIGN. */
static inline int64_t lg_int16_dot_pad(int64_t k) {
  return (k + LG_INT16_DOT_ALIGN - 1) / LG_INT16_DOT_ALIGN * LG_INT16_DOT_ALIGN;
}

/* Widens `rows` rows of k bytes (row r at src + r * src_stride; int8, or
 * uint8 when `is_unsigned`) plus `offset` to int16 rows of k_pad (row r at
 * dst + r * k_pad); the padding is left as it is (zero in a calloc'd
 * block). The layout lg_int16_dots_avx2 reads. With an offset (minus a
 * UINT8 zero point) the values lie in [-255, 255]: each pair of products
 * with another such row still fits int32. */
static inline void lg_int16_rows_from_bytes(const void* src, bool is_unsigned,
                                            int32_t offset, size_t src_stride,
                                            int rows, int k, int16_t* dst,
                                            int k_pad) {
  for (int r = 0; r < rows; ++r) {
    int16_t* d = dst + (size_t)r * (size_t)k_pad;
    if (is_unsigned) {
      const uint8_t* s = (const uint8_t*)src + (size_t)r * src_stride;
      for (int i = 0; i < k; ++i) d[i] = (int16_t)(s[i] + offset);
    } else {
      const int8_t* s = (const int8_t*)src + (size_t)r * src_stride;
      for (int i = 0; i < k; ++i) d[i] = (int16_t)(s[i] + offset);
    }
  }
}

/* lg_int16_rows_from_bytes of int8 rows, no offset. */
static inline void lg_int16_rows_from_int8(const int8_t* src, size_t src_stride,
                                           int rows, int k, int16_t* dst,
                                           int k_pad) {
  lg_int16_rows_from_bytes(src, false, 0, src_stride, rows, k, dst, k_pad);
}

/* dots[o] = sum_k row[k] * weights[o * k_pad + k] for o in [0, n), in
 * int32 (each pair of products must fit int32, as for values in int8's
 * range plus an offset); k_pad a multiple of LG_INT16_DOT_ALIGN. AVX2:
 * only when lg_gemm_isa_supported(LG_GEMM_ISA_AVX2). */
void lg_int16_dots_avx2(const int16_t* row, const int16_t* weights, int k_pad,
                        int n, int32_t* dots);

/* lg_int16_dots_avx2 for two rows at once (each weight row is read once
 * for both). */
void lg_int16_dots2_avx2(const int16_t* row0, const int16_t* row1,
                         const int16_t* weights, int k_pad, int n,
                         int32_t* dots0, int32_t* dots1);

/* Whether this CPU runs the plain AVX-512 kernels below (AVX-512 F, BW
 * and VL) and LITEGPU_GEMM_ISA allows AVX-512 (the callers' AVX2 paths
 * likewise follow lg_gemm_isa_default()). */
bool lg_int8_avx512_supported(void);

/* lg_int8_avx512_supported() and the CPU has AVX-512 VNNI too: the VNNI
 * kernels below. */
bool lg_int8_vnni_supported(void);

/* The rescale of 16 output channels in the form the AVX-512 kernels apply
 * it: MultiplyByQuantizedMultiplier(x, M, S) for S in [-31, 31] is, with
 * l = max(S, 0), r = max(-S, 0) and p = (x << l) * M in 64 bits,
 *   floor((p + 2^30 + (r > 0 ? 2^(30 + r) - [p < -2^30] * 2^31 : 0))
 *         / 2^(31 + r))
 * (the rounding high multiply's floor((p + 2^30) / 2^31) and the rounding
 * right shift's half away from zero folded into one floor; exact, no
 * overflow: |p| <= 2^62). Even and odd channels' 64-bit constants apart,
 * as the 64-bit lanes hold them. Filled by lg_requant16_pack. */
typedef struct lg_requant16 {
  int32_t mult[16];
  /* The odd channels' multipliers in the even positions (the 64-bit
   * multiply's low halves): mult_odd[2 i] = mult[2 i + 1]. */
  int32_t mult_odd[16];
  int32_t left[16];
  int32_t any_left;  /* some l > 0 in the block (else no shift is done) */
  int64_t add[2][8]; /* [channel % 2][channel / 2]: 2^30 (+ 2^(30 + r)) */
  int64_t neg[2][8]; /* 2^31 when r > 0, else 0 */
  int64_t shr[2][8]; /* 31 + r */
} lg_requant16;

/* The blocks of channels [0, n): (n + 15) / 16 of them, channels past n
 * with multiplier 0. Shifts must lie in [-31, 31]. */
void lg_requant16_pack(const int32_t* multipliers, const int* shifts, int n,
                       lg_requant16* dst);

/* out[i] = clamp(MBQM(acc[i]) + zero_point, lo, hi) for i in [0, n) with
 * the packed rescale of channel i (rq[i / 16]): lg_requantize_int8_avx2's
 * result. AVX-512 (lg_int8_avx512_supported). */
void lg_requantize_int8_packed_avx512(const int32_t* acc, int n,
                                      const lg_requant16* rq,
                                      int32_t zero_point, int32_t lo,
                                      int32_t hi, int8_t* out);

/* dst[i] = src[i] ^ 0x80 for i < n (int8 bytes to uint8 + 128: the VNNI
 * kernel's rows), 64 bytes at a time. Only when lg_int8_vnni_supported(). */
void lg_flip_bytes_avx512(const uint8_t* src, size_t n, uint8_t* dst);

/* lg_flip_bytes_avx512 of `pixels` pixels of in_c bytes into pixels of
 * flip_c >= in_c bytes (the last flip_c - in_c of each: some value, for
 * zero weights). AVX2 only. */
void lg_flip_pad_bytes_avx2(const uint8_t* src, size_t pixels, int in_c,
                            int flip_c, uint8_t* dst);

/* The INT8 convolution kernel's layout: depths in groups of 4 bytes,
 * output channels in blocks of 16 lanes. packed holds, for block b and
 * group k, the 16 channels' 4 weights: packed[((b * k4 + k) * 16 + lane) *
 * 4 + j] = w[16 b + lane][4 k + j] (0 past the filter), k4 = ntaps * c4.
 * Each of `pixels` (1 to 4) pixels reads its depth from ntaps rows of
 * 4 * c4 unsigned bytes, taps[p * ntaps + t] (depth group t * c4 + j at
 * byte 4 j of row t: a gathered row with ntaps 1, or a window's taps read
 * in place). The sums init[c] + sum_k row bytes * w[c][k] for c < out_c,
 * rescaled by rq, + zero_point, clamped to [lo, hi], are written to
 * outs[p][c] (nothing past out_c). Two blocks of channels at a time (8
 * sums in registers). Only when lg_int8_vnni_supported(). */
#define LG_VNNI_LANES 16
void lg_uint8_conv_vnni(const uint8_t* const* taps, int ntaps, int c4,
                        int pixels, const int8_t* packed, int out_c,
                        const int32_t* init, const lg_requant16* rq,
                        int32_t zero_point, int32_t lo, int32_t hi,
                        int8_t* const* outs);

/* sums[o] = init[o] + sum_k row[k] * w[o][k] for o < n: one row of
 * 4 * k4 unsigned bytes against the convolution kernel's layout (above)
 * of n outputs, four sets of sums over the depth groups per block (one
 * row has no pixels to share the weights). init holds 16 * blocks
 * values; nothing is written past n. Only when lg_int8_vnni_supported(). */
void lg_uint8_dots_vnni(const uint8_t* row, const int8_t* packed, int k4, int n,
                        const int32_t* init, int32_t* sums);

/* lg_requantize_int8_avx2 16 lanes at a time (lg_int8_avx512_supported). */
void lg_requantize_int8_avx512(const int32_t* acc, int n,
                               const int32_t* multipliers, const int* shifts,
                               int32_t zero_point, int32_t lo, int32_t hi,
                               int8_t* out);

/* out[i] = clamp(round(acc[i] * scales[i]) + offset, lo, hi) for i in
 * [0, n): FULLY_CONNECTED's INT8 rescale (the product in double, rounded
 * half away from zero, INT32_MIN when the result leaves int32, as
 * lg_quant_round_to_int_double), bit for bit, 8 at a time; offset, lo and
 * hi within int8. AVX-512 (lg_int8_avx512_supported). */
void lg_scale_round_int8_avx512(const int32_t* acc, const double* scales, int n,
                                int32_t offset, int32_t lo, int32_t hi,
                                int8_t* out);

/* acc[k] += w[k] * (v[k] + offset) for k in [0, n): int8 values and an
 * offset in [-127, 128] (minus an int8 zero point). AVX2 only. */
void lg_int8_madd_avx2(int32_t* acc, const int8_t* w, const int8_t* v, int n,
                       int32_t offset);

/* acc[k] += (w[k] + w_offset) * (v[k] + v_offset) for k in [0, n): uint8
 * values and offsets in [-255, 0] (minus uint8 zero points), exact 32-bit
 * products. AVX2 only. */
void lg_uint8_madd_avx2(int32_t* acc, const uint8_t* w, const uint8_t* v, int n,
                        int32_t w_offset, int32_t v_offset);

/* out[i] = clamp(MultiplyByQuantizedMultiplier(acc[i], multipliers[i],
 * shifts[i]) + zero_point, lo, hi) for i in [0, n), bit for bit with
 * lg_multiply_by_quantized_multiplier (multipliers in [0, 2^31), shifts
 * in [-31, 31]; lo and hi within int8). AVX2 only. */
void lg_requantize_int8_avx2(const int32_t* acc, int n,
                             const int32_t* multipliers, const int* shifts,
                             int32_t zero_point, int32_t lo, int32_t hi,
                             int8_t* out);

/* One output pixel of an INT8 DEPTHWISE_CONV_2D with multiplier 1, from
 * the tap pointers of its window (the reference's sum with the input
 * offset folded into the bias):
 *   out[c] = clamp(MBQM(bias[c] + sum_t w_t[c] * x_t[c], M_c, S_c) + zp)
 * where bias[c] is the model's bias + input_offset * (sum of channel c's
 * weights over all taps), taps in the padding point at a row holding the
 * input zero point (its term cancels the offset's) and an odd window gets
 * one more tap, with weights 0. Weights come in pairs of taps, interleaved
 * per channel: weights[(p * channels + c) * 2 + j] = w[2 p + j][c], so
 * one 16-bit multiply-add sums two taps of a channel. Sums wrap in int32
 * as TFLite's accumulator (products of int8 values fit int16's pair sums
 * exactly); shifts in [-31, 31]. */
typedef struct lg_dw_int8_params {
  int channels;
  int pairs;
  const int16_t* weights;     /* [pairs][channels][2] */
  const int32_t* bias;        /* [channels], the fused bias above */
  const int32_t* multipliers; /* [channels] */
  const int* shifts;          /* [channels] */
  /* The same rescale packed, [(channels + 15) / 16]: AVX-512 only. */
  const lg_requant16* rq;
  /* AVX-512 only, for channels [0, 32 * blocks32) (then the arrays above
   * take the rest): 32 channels at a time, each tap pair's two taps
   * widened apart and interleaved in 16-bit lanes, which leaves the sums
   * of 128-bit lane L in channel order 8 L + {0..3} (first half) and
   * 8 L + {4..7} (second half). Position m of a block's 32 thus stands for
   * channel lg_dw_int8_perm32(m), in the weights (pair words: [pairs]
   * [blocks32][32][2]), the bias ([blocks32][32]) and the rescale
   * ([blocks32][2]). NULL with blocks32 0. */
  int blocks32;
  const int16_t* weights32;
  const int32_t* bias32;
  const lg_requant16* rq32;
  int32_t zero_point, lo, hi;
} lg_dw_int8_params;

/* The channel (within its block of 32) at position m of the permuted
 * 32-channel layout above. */
static inline int lg_dw_int8_perm32(int m) {
  return m < 16 ? 8 * (m / 4) + m % 4 : 8 * ((m - 16) / 4) + 4 + m % 4;
}

/* The scalar pixel (the reference for the vector ones); taps holds
 * 2 * pairs pointers to `channels` int8 values. */
void lg_dw_int8_pixel_scalar(const lg_dw_int8_params* p,
                             const int8_t* const* taps, int8_t* out);
/* AVX2: 8 channels a step (the rest scalar). */
void lg_dw_int8_pixel_avx2(const lg_dw_int8_params* p,
                           const int8_t* const* taps, int8_t* out);
/* AVX-512 BW (lg_int8_avx512_supported): 32 channels a step in the
 * permuted layout, then 16, 8 with AVX2, the rest scalar. */
void lg_dw_int8_pixel_avx512(const lg_dw_int8_params* p,
                             const int8_t* const* taps, int8_t* out);
/* The same with vpdpwssd summing each tap pair (lg_int8_vnni_supported). */
void lg_dw_int8_pixel_vnni(const lg_dw_int8_params* p,
                           const int8_t* const* taps, int8_t* out);

/* The most tap pairs a window has (LG_DW_QUANT_MAX_TAPS of nn.h: 64). */
#define LG_DW_ROW_MAX_PAIRS 32

/* `pixels` pixels of a row, pixel x's taps at taps[t] + x * step (its
 * output at out + x * channels): lg_dw_int8_pixel_avx512's results, each
 * 32-channel block's weights held in registers over the row (a 3x3
 * window's 5 pairs). taps: 2 * pairs pointers. AVX-512 BW. */
void lg_dw_int8_row_avx512(const lg_dw_int8_params* p,
                           const int8_t* const* taps, ptrdiff_t step,
                           int pixels, int8_t* out);
/* The same with vpdpwssd (lg_int8_vnni_supported). */
void lg_dw_int8_row_vnni(const lg_dw_int8_params* p, const int8_t* const* taps,
                         ptrdiff_t step, int pixels, int8_t* out);

/* TFLite's INT8 ADD / SUB parameters (binary.c's lg_binary_params). */
typedef struct lg_int8_add_params {
  int32_t in1_offset, in2_offset, out_offset;
  int32_t in1_multiplier, in2_multiplier, out_multiplier;
  int in1_shift, in2_shift, out_shift, left_shift;
  int32_t min, max;
} lg_int8_add_params;

/* out[i] = a[i] + b[i] (sign -1: a[i] - b[i]; 2: (a[i] - b[i])^2) in
 * TFLite's INT8 ADD / SUB / SQUARED_DIFFERENCE arithmetic, 8 at a time.
 * AVX2 only. */
void lg_add_int8_avx2(const int8_t* a, const int8_t* b, int n, int sign,
                      const lg_int8_add_params* p, int8_t* out);

/* lg_add_int8_avx2 16 at a time (AVX-512: only when
 * lg_int8_avx512_supported()). */
void lg_add_int8_avx512(const int8_t* a, const int8_t* b, int n, int sign,
                        const lg_int8_add_params* p, int8_t* out);

/* out[i] = a[i] * b[i] in TFLite's INT8 MUL arithmetic (the output pair
 * of p only), 8 at a time. AVX2 only. */
void lg_mul_int8_avx2(const int8_t* a, const int8_t* b, int n,
                      const lg_int8_add_params* p, int8_t* out);

/* lg_mul_int8_avx2 16 at a time (AVX-512: only when
 * lg_int8_avx512_supported()). */
void lg_mul_int8_avx512(const int8_t* a, const int8_t* b, int n,
                        const lg_int8_add_params* p, int8_t* out);

/* One output row (count pixels of `channels` int8 values) of TFLite's
 * integer RESIZE_BILINEAR (resize.c): pixel i blends row0 and row1 at the
 * byte offsets x_lo[i] and x_hi[i] with the vertical weights wy and dy and
 * the horizontal 2^10 - dx[i] and dx[i], as
 *   round_half_away((wx * (top_lo * wy + bottom_lo * dy) +
 *                    dx * (top_hi * wy + bottom_hi * dy)) / 2^20),
 * TFLite's sum of the four products regrouped (exact: each axis' weights
 * sum to 2^10 and lie in (-2^10, 2^11), so every partial sum fits int32).
 * AVX2 only. */
void lg_resize_bilinear_i8_avx2(const int8_t* row0, const int8_t* row1,
                                const int32_t* x_lo, const int32_t* x_hi,
                                const int32_t* dx, int count, int channels,
                                int32_t wy, int32_t dy, int8_t* out);

#endif /* LITEGPU_RUNTIME_KERNELS_QUANT_SIMD_H_ */
