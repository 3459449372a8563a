/* SIMD kernels of the quantized convolutions (conv_quant.c). Internal. */
#ifndef LITEGPU_RUNTIME_KERNELS_CONV_QUANT_SIMD_H_
#define LITEGPU_RUNTIME_KERNELS_CONV_QUANT_SIMD_H_

#include <stddef.h>
#include <stdint.h>

/* The row length the dot products read: k rounded up to 16 (the padding
 * holds zeros in both operands). */
#define LG_INT16_DOT_ALIGN 16

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

/* acc[k] += w[k] * (v[k] + offset) for k in [0, n): int8 values and an
 * offset in [-127, 128] (minus an int8 zero point). AVX2 only. */
void lg_int8_madd_avx2(int32_t* acc, const int8_t* w, const int8_t* v, int n,
                       int32_t offset);

/* out[i] = clamp(MultiplyByQuantizedMultiplier(acc[i], multipliers[i],
 * shifts[i]) + zero_point, lo, hi) for i in [0, n), bit for bit with
 * lg_multiply_by_quantized_multiplier (multipliers in [0, 2^31), shifts
 * in [-31, 31]; lo and hi within int8). AVX2 only. */
void lg_requantize_int8_avx2(const int32_t* acc, int n,
                             const int32_t* multipliers, const int* shifts,
                             int32_t zero_point, int32_t lo, int32_t hi,
                             int8_t* out);

#endif /* LITEGPU_RUNTIME_KERNELS_CONV_QUANT_SIMD_H_ */
