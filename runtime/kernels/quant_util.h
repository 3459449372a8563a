/* Quantization helpers every quantized kernel uses: the fixed-point
 * requantization TFLite computes (so results match it bit for bit) and the
 * checked reading of a tensor's affine quantization parameters.
 *
 * Requantization (TFLite's QuantizeMultiplier and
 * MultiplyByQuantizedMultiplier, the double-rounding form TFLite builds by
 * default): a real multiplier m becomes (multiplier, shift) with
 * m ~= multiplier * 2^(shift - 31), multiplier in [2^30, 2^31); then
 *   x * m ~= RoundingDivideByPOT(
 *              SaturatingRoundingDoublingHighMul(x * 2^max(shift, 0),
 *                                                multiplier),
 *              max(-shift, 0))
 * with gemmlowp's rounding (the high product rounds half away from zero,
 * the power-of-two division half away from zero too).
 */
#ifndef LITEGPU_RUNTIME_KERNELS_QUANT_UTIL_H_
#define LITEGPU_RUNTIME_KERNELS_QUANT_UTIL_H_

#include <stdbool.h>
#include <stdint.h>

#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

/* m as (multiplier, shift); m == 0 (and |m| < 2^-31) gives (0, 0). m must
 * be finite (callers pass ratios of checked scales). */
void lg_quantize_multiplier(double m, int32_t* multiplier, int* shift);

/* The high half of 2ab, rounded (gemmlowp's SaturatingRoundingDoubling-
 * HighMul): the product of two fixed-point values (a Qm value is an int32
 * with m integer bits and 31 - m fractional bits). Inline: every quantized
 * kernel calls these per output. */
static inline int32_t lg_fixed_mul(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  const int64_t ab = (int64_t)a * (int64_t)b;
  const int64_t nudge = ab >= 0 ? (1LL << 30) : 1 - (1LL << 30);
  return (int32_t)((ab + nudge) / (1LL << 31)); /* C division truncates */
}

/* gemmlowp's RoundingDivideByPOT: x / 2^exponent rounded half away from
 * zero (exponent 0..31). */
static inline int32_t lg_fixed_divide_by_pot(int32_t x, int exponent) {
  const int32_t mask = (int32_t)((1LL << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  /* >> of a negative int is arithmetic on every compiler litegpu targets,
   * as TFLite assumes. */
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* round(x * m) for the (multiplier, shift) of m, as TFLite computes it:
 * the left shift (wrapping in int32, as TFLite's machine code does), the
 * rounding high multiply, the rounding right shift. A factor of 2^31 or more
 * (shift above 31: scales no converter writes, but a file may hold) is
 * undefined in TFLite's code; here the product saturates to int32's range,
 * which every kernel then clamps to its output's. */
static inline int32_t lg_multiply_by_quantized_multiplier(int32_t x,
                                                          int32_t multiplier,
                                                          int shift) {
  if (shift > 31) {
    return x == 0 || multiplier == 0     ? 0
           : (x > 0) == (multiplier > 0) ? INT32_MAX
                                         : INT32_MIN;
  }
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  const int32_t scaled = (int32_t)((uint32_t)x << left);
  return lg_fixed_divide_by_pot(lg_fixed_mul(scaled, multiplier), right);
}

/* gemmlowp's SaturatingRoundingDoublingHighMul on int16 values (Q15
 * fixed point, as TFLite's 16-bit fixed-point kernels use it). */
static inline int16_t lg_fixed16_mul(int16_t a, int16_t b) {
  if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
  const int32_t ab = (int32_t)a * (int32_t)b;
  const int32_t nudge = ab >= 0 ? (1 << 14) : 1 - (1 << 14);
  return (int16_t)((ab + nudge) / (1 << 15));
}

/* gemmlowp's RoundingDivideByPOT on int16 values: the mask and threshold
 * are int16 too (a mask of 16 or more bits truncates to -1). */
static inline int16_t lg_fixed16_divide_by_pot(int16_t x, int exponent) {
  const int16_t mask = (int16_t)((1LL << exponent) - 1);
  const int16_t remainder = (int16_t)(x & mask);
  const int16_t threshold = (int16_t)((mask >> 1) + (x < 0 ? 1 : 0));
  return (int16_t)((x >> exponent) + (remainder > threshold ? 1 : 0));
}

/* The same for an int64 x (TFLite's 16x8 convolutions, whose accumulators
 * and biases are int64): the multiplier reduced to 16 bits and a single
 * rounding shift; shift in [-31, 14] (lg_quantize_multiplier of a factor
 * below 2^15), a larger one saturates. */
int32_t lg_multiply_by_quantized_multiplier_int64(int64_t x, int32_t multiplier,
                                                  int shift);

/* (int32)round(v), round half away from zero, as TFLite's
 * static_cast<int32_t>(TfLiteRound(v)) gives on x86: a value outside
 * int32's range, and NaN, convert to INT32_MIN (cvttss2si's "integer
 * indefinite"), which TFLite's unchecked cast then carries on. */
int32_t lg_quant_round_to_int(float v);

/* The same for a double, as static_cast<int32_t>(round(v)). */
int32_t lg_quant_round_to_int_double(double v);

/* log2(scale) rounded to an integer in *log2_rounded; true when the scale
 * is a power of two to within TFLite's tolerance (CheckedLog2: log2 computed
 * in float, within 1e-3 of an integer). */
bool lg_quant_scale_log2(float scale, int* log2_rounded);

/* The smallest and largest value of an integer tensor type (UINT8, INT8,
 * INT16, INT32); false for other types. */
bool lg_quant_type_range(TfLiteType type, int32_t* lo, int32_t* hi);

/* A tensor's affine quantization: elements = outer * channels * inner and
 * element (o, c, i) has scale lg_quant_scale(layout, c) and zero point
 * lg_quant_zero_point(layout, c). Per tensor is one channel with scale0
 * and zero_point0; per channel reads the tensor's arrays (which stay the
 * tensor's). */
typedef struct lg_quant_layout {
  int64_t outer, channels, inner;
  float scale0;
  int32_t zero_point0;
  const float* scales;        /* per channel, else NULL */
  const int32_t* zero_points; /* per channel, else NULL */
  bool per_channel_zero_point;
} lg_quant_layout;

static inline float lg_quant_scale(const lg_quant_layout* layout, int64_t c) {
  return layout->scales != NULL ? layout->scales[c] : layout->scale0;
}

static inline int32_t lg_quant_zero_point(const lg_quant_layout* layout,
                                          int64_t c) {
  if (layout->zero_points == NULL) return layout->zero_point0;
  return layout->zero_points[layout->per_channel_zero_point ? c : 0];
}

/* Reads and checks the quantization of tensor `t` (`role` names it in
 * messages, e.g. "output"): affine parameters (or TfLiteTensor.params
 * alone), every scale finite and > 0, every zero point within the type's
 * range, per channel only along a dimension of the tensor with one scale per
 * index and 1 or as many zero points. Errors name the op, the tensor and
 * the problem. */
TfLiteStatus lg_quant_layout_read(TfLiteContext* context, const char* op,
                                  const char* role, const TfLiteTensor* t,
                                  lg_quant_layout* layout);

/* lg_quant_layout_read for a tensor that must be quantized per tensor (one
 * scale): more scales are an error naming the tensor and their number. */
TfLiteStatus lg_quant_tensor_read(TfLiteContext* context, const char* op,
                                  const char* role, const TfLiteTensor* t,
                                  lg_quant_layout* layout);

/* The tensor's name for messages ("(unnamed)" when it has none), as the
 * checks above name it. */
const char* lg_quant_tensor_name(const TfLiteTensor* t);

/* The quantized range a fused activation leaves on an output of `type`
 * with `scale` and `zero_point`, as TFLite's
 * CalculateActivationRangeQuantized: NONE the type's range, RELU from
 * q(0), RELU6 [q(0), q(6)], RELU_N1_TO_1 [q(-1), q(1)], each within the
 * type's range, with q(f) = zero_point + (int32)round(f / scale) (float).
 * Other activations are an error naming them. */
TfLiteStatus lg_quant_activation_range(TfLiteContext* context, const char* op,
                                       TfLiteFusedActivation activation,
                                       TfLiteType type, float scale,
                                       int32_t zero_point, int32_t* act_min,
                                       int32_t* act_max);

/* ---- gemmlowp's fixed-point arithmetic, as TFLite's quantized softmax
 * (and logistic / tanh) use it (lg_fixed_mul and lg_fixed_divide_by_pot
 * above). */

/* exp(a) for a Q5 value a <= 0, as a Q0 value (exp_on_negative_values). */
int32_t lg_fixed_exp_on_negative_q5(int32_t a);
/* TFLite's 513-entry int16 lookup tables (LUTPopulate<int16_t> with a
 * double transform): f sampled at 512 steps over the input range
 * input_scale * ([-32768, 32767] - input_zero_point), each sample nudged by
 * half the error of linear interpolation at its step's midpoint, plus the
 * end point; outputs as output_scale steps around output_zero_point. */
#define LG_QUANT_LUT16_SIZE 513
void lg_quant_lut16_populate(double input_scale, int32_t input_zero_point,
                             double output_scale, int32_t output_zero_point,
                             double (*f)(double), int16_t* lut);
/* The table's value at x: the entry of x's top 9 bits, interpolated by its
 * low 7 bits (TFLite's LUTLookup). */
static inline int16_t lg_quant_lut16_lookup(int16_t x, const int16_t* lut) {
  const int index = 256 + (x >> 7);
  const int offset = x & 0x7f;
  const int base = lut[index];
  const int slope = lut[index + 1] - lut[index];
  return (int16_t)(base + ((slope * offset + 64) >> 7));
}

/* 1 / sqrt(input) for input >= 0 (0 and 1 give the largest multiplier)
 * as a (multiplier, shift) pair for lg_multiply_by_quantized_multiplier
 * (positive shift: left), TFLite's GetInvSqrtQuantizedMultiplierExp: the
 * input normalized by powers of 4, five Newton-Raphson steps in Q3. */
void lg_fixed_inv_sqrt(int32_t input, int32_t* multiplier, int* shift);
/* log(x) of a Q12 value x >= 1 as a Q5 value (TFLite's
 * log_x_for_x_greater_than_or_equal_to_1<5> of a 12-integer-bit input):
 * x normalized to 2^k * r, k * log 2 plus a rational approximation of
 * log r, in gemmlowp's saturating and rounding steps. */
int32_t lg_fixed_log_q12_to_q5(int32_t x);
/* The reciprocal of a Q12 sum as TFLite's GetReciprocal: a Q0 scale and
 * the number of bits the sum has above 1.0. */
int32_t lg_fixed_reciprocal_q12(int32_t x, int* num_bits_over_unit);

/* gemmlowp's logistic and tanh on an int16 fixed-point value with
 * `integer_bits` (0..6) integer bits, as a Q0.15 result (TFLite's integer
 * LSTM gates: ApplySigmoid on Q3.12, ApplyTanh): exp of the negated
 * magnitude by gemmlowp's barrel shifter, then 1 / (1 + x) or
 * (1 - x) / (1 + x) by Newton-Raphson, every step in int16 with gemmlowp's
 * rounding and its 32-bit constants rounded to 16 bits. */
int16_t lg_fixed16_logistic(int16_t a, int integer_bits);
int16_t lg_fixed16_tanh(int16_t a, int integer_bits);

#endif /* LITEGPU_RUNTIME_KERNELS_QUANT_UTIL_H_ */
