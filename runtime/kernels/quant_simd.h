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

/* Whether this CPU runs the AVX-512 VNNI kernel below and
 * LITEGPU_GEMM_ISA allows AVX-512 (the callers' AVX2 paths likewise follow
 * lg_gemm_isa_default()). */
bool lg_int8_vnni_supported(void);
/* The VNNI kernel's layout: depths in groups of 4 bytes, output channels
 * in blocks of 16 lanes. packed holds, for block b and group k, the 16
 * channels' 4 weights: packed[((b * k4 + k) * 16 + lane) * 4 + j] =
 * w[16 b + lane][4 k + j] (0 past the filter). For each of `pixels` (1 to
 * 4) rows of 4 * k4 unsigned bytes, sums[p][c] = sum_k rows[p][k] *
 * w[c][k] + init[c] for c < 16 * blocks. Only when
 * lg_int8_vnni_supported(). */
#define LG_VNNI_LANES 16
void lg_uint8_conv_vnni(const uint8_t* const* rows, int pixels,
                        const int8_t* packed, int k4, int blocks,
                        const int32_t* init, int32_t* const* sums);

/* lg_requantize_int8_avx2 16 lanes at a time (AVX-512; with the VNNI
 * kernel, the same CPUs). */
void lg_requantize_int8_avx512(const int32_t* acc, int n,
                               const int32_t* multipliers, const int* shifts,
                               int32_t zero_point, int32_t lo, int32_t hi,
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

/* out[i] = a[i] * b[i] in TFLite's INT8 MUL arithmetic (the output pair
 * of p only), 8 at a time. AVX2 only. */
void lg_mul_int8_avx2(const int8_t* a, const int8_t* b, int n,
                      const lg_int8_add_params* p, int8_t* out);

#endif /* LITEGPU_RUNTIME_KERNELS_QUANT_SIMD_H_ */
