/* Half <-> single precision conversion by bit manipulation; see fp16.h.
 *
 * Layouts: half = sign:1 exponent:5 (bias 15) mantissa:10; float = sign:1
 * exponent:8 (bias 127) mantissa:23. Bits move through memcpy, so no
 * aliasing rule is bent and no floating-point exception is raised.
 */
#include "runtime/kernels/fp16.h"

#include <string.h>

static float lg_fp16_bits_to_float(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f;
}

static uint32_t lg_fp16_float_to_bits(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof(bits));
  return bits;
}

float lg_fp16_to_fp32(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1fu) {
    /* Infinity (mantissa 0) or NaN: the payload moves to the top of the
     * float mantissa unchanged (a signaling NaN stays signaling). */
    return lg_fp16_bits_to_float(sign | 0x7f800000u | (mantissa << 13));
  }
  if (exponent == 0) {
    /* Zero or subnormal: mantissa * 2^-24, exact in float (an integer below
     * 2^10 times a power of two). */
    const float magnitude = (float)mantissa * 0x1p-24f;
    return sign != 0 ? -magnitude : magnitude;
  }
  /* Normal: rebias the exponent from 15 to 127. */
  return lg_fp16_bits_to_float(sign | ((exponent + 112u) << 23) |
                               (mantissa << 13));
}

/* Rounds the integer `value` right by `shift` bits (1..31), to nearest with
 * ties to even. */
static uint32_t lg_fp16_round_shift(uint32_t value, int shift) {
  const uint32_t kept = value >> shift;
  const uint32_t rest = value & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (kept & 1u) != 0)) return kept + 1u;
  return kept;
}

uint16_t lg_fp32_to_fp16(float f) {
  const uint32_t bits = lg_fp16_float_to_bits(f);
  const uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) {
    /* NaN: the canonical quiet NaN with the sign. */
    return (uint16_t)(sign | 0x7e00u);
  }
  if (magnitude >= 0x477ff000u) {
    /* 65520 and above (infinity included) round to infinity: 65504 is the
     * largest half and 65520 the midpoint to the next power of two. */
    return (uint16_t)(sign | 0x7c00u);
  }
  const uint32_t exponent = magnitude >> 23;
  if (exponent >= 113u) {
    /* A normal half (2^-14 and up): rebias from 127 to 15 and round the 13
     * dropped mantissa bits. A carry out of the mantissa correctly bumps
     * the exponent. */
    const uint32_t rebased = magnitude - (112u << 23);
    return (uint16_t)(sign | lg_fp16_round_shift(rebased, 13));
  }
  if (exponent < 102u) {
    /* Below 2^-25 (float subnormals included): rounds to zero. */
    return sign;
  }
  /* A half subnormal: the count of 2^-24 units is the 24-bit significand
   * shifted right by 126 - exponent (14..24), rounded. A result of 0x400 is
   * the smallest normal half, which is the right encoding. */
  const uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
  return (uint16_t)(sign |
                    lg_fp16_round_shift(significand, (int)(126u - exponent)));
}

void lg_fp16_to_fp32_array(const uint16_t* in, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = lg_fp16_to_fp32(in[i]);
}

void lg_fp32_to_fp16_array(const float* in, uint16_t* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = lg_fp32_to_fp16(in[i]);
}
