/* IEEE 754 half precision (binary16) <-> single precision conversion.
 *
 * The one implementation litegpu uses wherever float16 data meets float32:
 * the DEQUANTIZE kernel (fp16 weights), and the GPU delegates when they
 * upload or download half-precision buffers.
 *
 * lg_fp16_to_fp32 is exact for every half value: normals, subnormals
 * (mantissa * 2^-24), signed zeros and infinities; a NaN keeps its sign and
 * payload bits (shifted into the float's mantissa), signaling ones
 * included, bit for bit as LiteRT's DEQUANTIZE converts them.
 *
 * lg_fp32_to_fp16 rounds to nearest, ties to even: magnitudes from 65520 up
 * become infinity, magnitudes below 2^-25 (and 2^-25 itself, a tie with the
 * even zero) become a signed zero, the range between gives subnormals; every
 * NaN becomes the quiet NaN 0x7e00 with its sign, as LiteRT's CAST to
 * float16 makes it.
 *
 * Pure functions on plain values: no allocation, no state, safe from any
 * thread.
 *
 * Example:
 *   uint16_t h = lg_fp32_to_fp16(1.5f);   // 0x3e00
 *   float f = lg_fp16_to_fp32(h);         // 1.5f
 */
#ifndef LITEGPU_RUNTIME_KERNELS_FP16_H_
#define LITEGPU_RUNTIME_KERNELS_FP16_H_

#include <stddef.h>
#include <stdint.h>

/* The float32 value of the half with bits `h`. */
float lg_fp16_to_fp32(uint16_t h);

/* The half nearest to `f` (ties to even), as its bits. */
uint16_t lg_fp32_to_fp16(float f);

/* out[i] = lg_fp16_to_fp32(in[i]) for i in [0, n). */
void lg_fp16_to_fp32_array(const uint16_t* in, float* out, size_t n);

/* out[i] = lg_fp32_to_fp16(in[i]) for i in [0, n). */
void lg_fp32_to_fp16_array(const float* in, uint16_t* out, size_t n);

#endif /* LITEGPU_RUNTIME_KERNELS_FP16_H_ */
