/* Quantization helpers (quant_util.h). */
#include "runtime/kernels/quant_util.h"

#include <math.h>
#include <stddef.h>

#include "runtime/kernels/kernel_util.h"

void lg_quantize_multiplier(double m, int32_t* multiplier, int* shift) {
  *multiplier = 0;
  *shift = 0;
  if (m == 0.0 || !isfinite(m)) return;
  int exponent = 0;
  const double fraction = frexp(m, &exponent); /* m = fraction * 2^exponent */
  int64_t fixed = (int64_t)round(fraction * (double)(1LL << 31));
  if (fixed == (1LL << 31)) { /* the fraction rounded up to 1.0 */
    fixed /= 2;
    ++exponent;
  }
  if (exponent < -31) return; /* every bit would shift out: m is 0 */
  *multiplier = (int32_t)fixed;
  *shift = exponent;
}

int32_t lg_multiply_by_quantized_multiplier_int64(int64_t x, int32_t multiplier,
                                                  int shift) {
  /* The multiplier rounded to 15 bits (0x7FFF at the top), then one
   * rounding shift right by 15 - shift: TFLite's int64 variant. */
  const int64_t reduced = multiplier < 0x7FFF0000
                              ? ((int64_t)multiplier + (1 << 15)) >> 16
                              : 0x7FFF;
  /* A factor of 2^15 or more has no rounding shift left (undefined in
   * TFLite's code): the product saturates, as in the int32 variant. */
  if (shift > 14) {
    return x == 0 || multiplier == 0     ? 0
           : (x > 0) == (multiplier > 0) ? INT32_MAX
                                         : INT32_MIN;
  }
  const int total_shift = 15 - shift;
  /* Products wrap in unsigned arithmetic (C has no signed overflow); the
   * shift is arithmetic, as on every target TFLite runs on. */
  const uint64_t product =
      (uint64_t)x * (uint64_t)reduced + ((uint64_t)1 << (total_shift - 1));
  return (int32_t)(uint32_t)(uint64_t)((int64_t)product >> total_shift);
}

int32_t lg_quant_round_to_int(float v) {
  const float r = roundf(v);
  return (r >= -2147483648.0f && r < 2147483648.0f) ? (int32_t)r : INT32_MIN;
}

int32_t lg_quant_round_to_int_double(double v) {
  const double r = round(v);
  return (r >= -2147483648.0 && r < 2147483648.0) ? (int32_t)r : INT32_MIN;
}

bool lg_quant_scale_log2(float scale, int* log2_rounded) {
  const float x = logf(scale) * (1.0f / logf(2.0f));
  const float rounded = roundf(x);
  *log2_rounded = (int)rounded;
  return fabsf(x - rounded) < 1e-3f;
}

bool lg_quant_type_range(TfLiteType type, int32_t* lo, int32_t* hi) {
  switch (type) {
    case kTfLiteUInt8:
      *lo = 0;
      *hi = 255;
      return true;
    case kTfLiteInt8:
      *lo = -128;
      *hi = 127;
      return true;
    case kTfLiteInt16:
      *lo = -32768;
      *hi = 32767;
      return true;
    case kTfLiteInt32:
      *lo = INT32_MIN;
      *hi = INT32_MAX;
      return true;
    default:
      return false;
  }
}

TfLiteStatus lg_quant_activation_range(TfLiteContext* context, const char* op,
                                       TfLiteFusedActivation activation,
                                       TfLiteType type, float scale,
                                       int32_t zero_point, int32_t* act_min,
                                       int32_t* act_max) {
  int32_t lo = 0, hi = 0;
  if (!lg_quant_type_range(type, &lo, &hi)) {
    lg_kernel_log(context, op, "no quantized range for type %s",
                  TfLiteTypeGetName(type));
    return kTfLiteError;
  }
  float bottom = 0.0f, top = 0.0f;
  bool has_top = false;
  switch (activation) {
    case kTfLiteActNone:
      *act_min = lo;
      *act_max = hi;
      return kTfLiteOk;
    case kTfLiteActRelu:
      break;
    case kTfLiteActRelu6:
      top = 6.0f;
      has_top = true;
      break;
    case kTfLiteActReluN1To1:
      bottom = -1.0f;
      top = 1.0f;
      has_top = true;
      break;
    default:
      lg_kernel_log(context, op,
                    "fused activation %s is not supported on a quantized "
                    "output",
                    lg_kernel_activation_name(activation));
      return kTfLiteError;
  }
  /* zero_point + q wraps as TFLite's int32 addition does. */
  const int32_t q_bottom =
      (int32_t)((uint32_t)zero_point +
                (uint32_t)lg_quant_round_to_int(bottom / scale));
  *act_min = q_bottom > lo ? q_bottom : lo;
  *act_max = hi;
  if (has_top) {
    const int32_t q_top =
        (int32_t)((uint32_t)zero_point +
                  (uint32_t)lg_quant_round_to_int(top / scale));
    *act_max = q_top < hi ? q_top : hi;
  }
  return kTfLiteOk;
}

const char* lg_quant_tensor_name(const TfLiteTensor* t) {
  return t->name != NULL ? t->name : "(unnamed)";
}

/* Checks one scale and zero point of tensor t. */
static TfLiteStatus lg_quant_check_pair(TfLiteContext* context, const char* op,
                                        const char* role, const TfLiteTensor* t,
                                        float scale, int32_t zero_point) {
  if (!(isfinite(scale) && scale > 0.0f)) {
    lg_kernel_log(context, op,
                  "%s tensor '%s' has scale %g (a quantization scale must be "
                  "finite and greater than 0)",
                  role, lg_quant_tensor_name(t), (double)scale);
    return kTfLiteError;
  }
  int32_t lo = 0, hi = 0;
  if (lg_quant_type_range(t->type, &lo, &hi) &&
      (zero_point < lo || zero_point > hi)) {
    lg_kernel_log(context, op,
                  "%s tensor '%s' has zero point %d, outside %s's range "
                  "[%d, %d]",
                  role, lg_quant_tensor_name(t), (int)zero_point,
                  TfLiteTypeGetName(t->type), (int)lo, (int)hi);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_quant_per_channel(TfLiteContext* context, const char* op,
                                         const char* role,
                                         const TfLiteTensor* t,
                                         const TfLiteAffineQuantization* q,
                                         lg_quant_layout* layout) {
  const TfLiteIntArray* dims = t->dims;
  const int axis = q->quantized_dimension;
  char shape[96];
  if (dims == NULL || axis < 0 || axis >= dims->size) {
    lg_kernel_log(context, op,
                  "%s tensor '%s' has quantized_dimension %d, outside its "
                  "shape %s",
                  role, lg_quant_tensor_name(t), axis,
                  lg_kernel_format_shape(dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (dims->data[axis] != q->scale->size) {
    lg_kernel_log(context, op,
                  "%s tensor '%s' has %d scales for dimension %d of shape %s "
                  "(size %d)",
                  role, lg_quant_tensor_name(t), q->scale->size, axis,
                  lg_kernel_format_shape(dims, shape, sizeof(shape)),
                  dims->data[axis]);
    return kTfLiteError;
  }
  if (q->zero_point->size != 1 && q->zero_point->size != q->scale->size) {
    lg_kernel_log(context, op,
                  "%s tensor '%s' has %d zero points for %d scales (expected "
                  "1 or %d)",
                  role, lg_quant_tensor_name(t), q->zero_point->size,
                  q->scale->size, q->scale->size);
    return kTfLiteError;
  }
  for (int c = 0; c < q->scale->size; ++c) {
    const int32_t zp = q->zero_point->data[q->zero_point->size > 1 ? c : 0];
    TF_LITE_ENSURE_STATUS(
        lg_quant_check_pair(context, op, role, t, q->scale->data[c], zp));
  }
  layout->outer = 1;
  layout->inner = 1;
  for (int i = 0; i < axis; ++i) layout->outer *= dims->data[i];
  for (int i = axis + 1; i < dims->size; ++i) layout->inner *= dims->data[i];
  layout->channels = q->scale->size;
  layout->scale0 = q->scale->data[0];
  layout->zero_point0 = q->zero_point->data[0];
  layout->scales = q->scale->data;
  layout->zero_points = q->zero_point->data;
  layout->per_channel_zero_point = q->zero_point->size > 1;
  return kTfLiteOk;
}

TfLiteStatus lg_quant_layout_read(TfLiteContext* context, const char* op,
                                  const char* role, const TfLiteTensor* t,
                                  lg_quant_layout* layout) {
  layout->outer = 1;
  layout->channels = 1;
  layout->inner = lg_kernel_num_elements(t);
  layout->scales = NULL;
  layout->zero_points = NULL;
  layout->per_channel_zero_point = false;
  const TfLiteAffineQuantization* q = NULL;
  if (t->quantization.type == kTfLiteAffineQuantization) {
    q = t->quantization.params;
  }
  if (q != NULL && (q->scale == NULL || q->scale->size < 1 ||
                    q->zero_point == NULL || q->zero_point->size < 1)) {
    lg_kernel_log(context, op,
                  "%s tensor '%s' has affine quantization without scales or "
                  "zero points",
                  role, lg_quant_tensor_name(t));
    return kTfLiteError;
  }
  if (q != NULL && q->scale->size > 1) {
    return lg_quant_per_channel(context, op, role, t, q, layout);
  }
  if (q == NULL && t->params.scale == 0.0f) {
    lg_kernel_log(context, op, "%s tensor '%s' (%s) has no quantization", role,
                  lg_quant_tensor_name(t), TfLiteTypeGetName(t->type));
    return kTfLiteError;
  }
  layout->scale0 = q != NULL ? q->scale->data[0] : t->params.scale;
  layout->zero_point0 =
      q != NULL ? q->zero_point->data[0] : t->params.zero_point;
  return lg_quant_check_pair(context, op, role, t, layout->scale0,
                             layout->zero_point0);
}

/* ---- gemmlowp fixed point ------------------------------------------------ */

/* x * 2^exponent (exponent > 0) saturating at int32's range. */
static int32_t lg_fixed_saturating_shift_left(int32_t x, int exponent) {
  const int32_t threshold = (int32_t)((1LL << (31 - exponent)) - 1);
  if (x > threshold) return INT32_MAX;
  if (x < -threshold) return INT32_MIN;
  return (int32_t)((uint32_t)x << exponent);
}

/* exp(a) for a Q0 value a in [-1/4, 0): a Taylor expansion around -1/8. */
static int32_t lg_fixed_exp_quarter(int32_t a) {
  const int32_t exp_minus_one_eighth = 1895147668; /* exp(-1/8) in Q0 */
  const int32_t one_third = 715827883;             /* 1/3 in Q0 */
  const int32_t x = a + (1 << 28);                 /* a + 1/8 */
  const int32_t x2 = lg_fixed_mul(x, x);
  const int32_t x3 = lg_fixed_mul(x2, x);
  const int32_t x4 = lg_fixed_mul(x2, x2);
  const int32_t x4_over_4 = lg_fixed_divide_by_pot(x4, 2);
  const int32_t poly =
      lg_fixed_divide_by_pot(lg_fixed_mul(x4_over_4 + x3, one_third) + x2, 1);
  return exp_minus_one_eighth + lg_fixed_mul(exp_minus_one_eighth, x + poly);
}

int32_t lg_fixed_exp_on_negative_q5(int32_t a) {
  enum { kFractionalBits = 26 }; /* Q5 */
  const int32_t one_quarter = 1 << (kFractionalBits - 2);
  const int32_t a_mod_quarter_minus_quarter =
      (a & (one_quarter - 1)) - one_quarter;
  int32_t result = lg_fixed_exp_quarter(lg_fixed_saturating_shift_left(
      a_mod_quarter_minus_quarter, 5)); /* Q5 -> Q0 */
  const int32_t remainder = a_mod_quarter_minus_quarter - a;
  /* exp(-2^k) in Q0 for k = -2..4, applied for each bit of the rest. */
  static const int32_t kMultipliers[7] = {
      1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = -2; k <= 4; ++k) {
    if (remainder & (1 << (kFractionalBits + k))) {
      result = lg_fixed_mul(result, kMultipliers[k + 2]);
    }
  }
  return a == 0 ? INT32_MAX : result; /* exp(0) is Q0's 1 */
}

/* 1 / (1 + a) for a Q0 value a in [0, 1), by Newton-Raphson in Q2. */
static int32_t lg_fixed_one_over_one_plus(int32_t a) {
  /* (a + 1) / 2 rounded, gemmlowp's RoundingHalfSum with Q0's 1. */
  const int64_t sum = (int64_t)a + INT32_MAX;
  const int32_t half_denominator = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
  const int32_t q2_one = 1 << 29;
  int32_t x = 1515870810 + lg_fixed_mul(half_denominator, -1010580540);
  for (int i = 0; i < 3; ++i) { /* 48/17 - 32/17 d, then three steps */
    const int32_t one_minus_dx = q2_one - lg_fixed_mul(half_denominator, x);
    x = x + lg_fixed_saturating_shift_left(lg_fixed_mul(x, one_minus_dx), 2);
  }
  return lg_fixed_saturating_shift_left(x, 1); /* x / 2, Q1 -> Q0 */
}

/* x * 2^exponent for any exponent: saturating to the left, rounding to
 * the right (gemmlowp's SaturatingRoundingMultiplyByPOT). */
static int32_t lg_fixed_mul_pot(int32_t x, int exponent) {
  if (exponent > 0) return lg_fixed_saturating_shift_left(x, exponent);
  return exponent < 0 ? lg_fixed_divide_by_pot(x, -exponent) : x;
}

static int32_t lg_fixed_saturate(int64_t x) {
  return x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : (int32_t)x;
}

/* gemmlowp's + on raw values: wraps. */
static int32_t lg_fixed_add(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a + (uint32_t)b);
}

static int lg_fixed_leading_zeros(uint32_t x) {
  return x == 0 ? 32 : __builtin_clz(x);
}

int32_t lg_fixed_log_q12_to_q5(int32_t x) {
  enum { kInputBits = 12, kAccumBits = 6 }; /* output 5 bits, plus one */
  const int32_t log_2 = 1488522236;         /* Q0 constants */
  const int32_t sqrt_sqrt_half = 1805811301;
  const int32_t sqrt_half = 1518500250;
  const int32_t alpha_n = 117049297;  /* 11/240 * 2^(1/4) */
  const int32_t alpha_d = 127690142;  /* 1/20 * 2^(1/4) */
  const int32_t alpha_i = 1057819769; /* 2 / 2^(1/4) - 2^(1/4) */
  const int32_t alpha_f = 638450708;  /* 1/4 * 2^(1/4) */
  const int32_t shifted_quarter = lg_fixed_divide_by_pot(1 << 29, kAccumBits);
  /* x = 2^k * r with r in [sqrt(1/2), 1): two candidate normalizations,
   * around 1 and around sqrt(1/2), and the one with the smaller r kept. */
  const int a_headroom_plus_1 = lg_fixed_leading_zeros((uint32_t)x);
  const int32_t r_a_tmp = lg_fixed_mul_pot(x, a_headroom_plus_1 - 1);
  const int32_t r_a = lg_fixed_mul_pot(lg_fixed_mul(r_a_tmp, sqrt_half), 1);
  const int32_t a_pow_2_adj =
      lg_fixed_saturate((int64_t)lg_fixed_mul_pot(
                            kInputBits - a_headroom_plus_1, 31 - kAccumBits) +
                        shifted_quarter);
  const int32_t z_b = lg_fixed_mul(x, sqrt_half);
  const int b_headroom = lg_fixed_leading_zeros((uint32_t)z_b) - 1;
  const int32_t r_b = lg_fixed_mul_pot(x, b_headroom);
  const int32_t b_pow_2_adj = lg_fixed_saturate(
      (int64_t)lg_fixed_mul_pot(kInputBits - b_headroom, 31 - kAccumBits) -
      shifted_quarter);
  const int32_t r = r_a < r_b ? r_a : r_b;
  const int32_t pow_2_adj =
      a_pow_2_adj > b_pow_2_adj ? a_pow_2_adj : b_pow_2_adj;
  /* log(r) by a rational approximation around 2^(-1/4). */
  const int64_t half_sum = (int64_t)r + sqrt_sqrt_half;
  const int32_t p = (int32_t)((half_sum + (half_sum >= 0 ? 1 : -1)) / 2);
  int32_t q = lg_fixed_add(r, -sqrt_sqrt_half);
  q = lg_fixed_add(q, q);
  const int32_t common_sq = lg_fixed_mul(q, q);
  const int32_t num = lg_fixed_add(
      lg_fixed_mul(q, r), lg_fixed_mul(lg_fixed_mul(q, common_sq), alpha_n));
  const int32_t denom_minus_one = lg_fixed_add(
      lg_fixed_mul(p, lg_fixed_add(lg_fixed_add(alpha_i, q),
                                   lg_fixed_mul(alpha_d, common_sq))),
      lg_fixed_mul(alpha_f, q));
  const int32_t recip_denom = lg_fixed_one_over_one_plus(denom_minus_one);
  const int32_t num_scaled = lg_fixed_divide_by_pot(num, kAccumBits);
  const int32_t sum = lg_fixed_add(lg_fixed_mul(pow_2_adj, log_2),
                                   lg_fixed_mul(num_scaled, recip_denom));
  return lg_fixed_mul_pot(sum, kAccumBits - 5);
}

void lg_quant_lut16_populate(double input_scale, int32_t input_zero_point,
                             double output_scale, int32_t output_zero_point,
                             double (*f)(double), int16_t* lut) {
  const double input_min = input_scale * (-32768.0 - input_zero_point);
  const double input_max = input_scale * (32767.0 - input_zero_point);
  const double output_min = output_scale * (-32768.0 - output_zero_point);
  const double output_max = output_scale * (32767.0 - output_zero_point);
  enum { kSteps = LG_QUANT_LUT16_SIZE - 1 };
  const double step = (input_max - input_min) / kSteps;
  const double half_step = step / 2;
  const double inverse = 65536.0 / (output_max - output_min);
  for (int i = 0; i < kSteps; ++i) {
    const double v = f(input_min + i * step);
    const double v_mid = f(input_min + i * step + half_step);
    const double v_next = f(input_min + (i + 1) * step);
    const double sample = round(v * inverse);
    const double mid_interp =
        round((v_next * inverse + round(v * inverse)) / 2);
    const double mid = round(v_mid * inverse);
    const double bias = round((mid_interp - mid) / 2);
    double e = sample - bias;
    e = e < -32768.0 ? -32768.0 : (e > 32767.0 ? 32767.0 : e);
    lut[i] = (int16_t)e;
  }
  double last = round(f(input_max) * inverse);
  last = last < -32768.0 ? -32768.0 : (last > 32767.0 ? 32767.0 : last);
  lut[kSteps] = (int16_t)last;
}

void lg_fixed_inv_sqrt(int32_t input, int32_t* multiplier, int* shift) {
  if (input <= 1) { /* 0 is taken as 1, as TFLite does */
    *multiplier = INT32_MAX;
    *shift = 0;
    return;
  }
  int right_shift = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++right_shift;
  }
  /* Normalize to [2^27, 2^29) by an even left shift. */
  int leading_zeros = 0;
  while (!((uint32_t)input & (0x80000000u >> leading_zeros))) ++leading_zeros;
  const int pairs = (leading_zeros - 1) / 2 - 1;
  right_shift -= pairs;
  input <<= 2 * pairs;
  /* Newton-Raphson for 1/sqrt in Q3 (3 integer bits), from x = 1. */
  const int32_t q3_input = input >> 1;
  const int32_t q3_half_input = lg_fixed_divide_by_pot(q3_input, 1);
  const int32_t q3_three_halves = (1 << 28) + (1 << 27);
  int32_t x = 1 << 28;
  for (int i = 0; i < 5; ++i) {
    const int32_t x3 = lg_fixed_saturating_shift_left(
        lg_fixed_mul(lg_fixed_mul(x, x), x), 6); /* Q9 -> Q3 */
    const int32_t diff = (int32_t)((uint32_t)lg_fixed_mul(q3_three_halves, x) -
                                   (uint32_t)lg_fixed_mul(q3_half_input, x3));
    x = lg_fixed_saturating_shift_left(diff, 3); /* Q6 -> Q3 */
  }
  x = lg_fixed_mul(x, 1518500250); /* times sqrt(2) / 2 */
  if (right_shift < 0) {
    x = (int32_t)((uint32_t)x << -right_shift);
    right_shift = 0;
  }
  *multiplier = x;
  *shift = -right_shift;
}

int32_t lg_fixed_reciprocal_q12(int32_t x, int* num_bits_over_unit) {
  int headroom_plus_one = 0;
  while (headroom_plus_one < 32 &&
         !((uint32_t)x & (0x80000000u >> headroom_plus_one))) {
    ++headroom_plus_one;
  }
  *num_bits_over_unit = 12 - headroom_plus_one;
  const int32_t shifted_minus_one =
      (int32_t)(((uint32_t)x << headroom_plus_one) - (1u << 31));
  return lg_fixed_one_over_one_plus(shifted_minus_one);
}

TfLiteStatus lg_quant_tensor_read(TfLiteContext* context, const char* op,
                                  const char* role, const TfLiteTensor* t,
                                  lg_quant_layout* layout) {
  TF_LITE_ENSURE_STATUS(lg_quant_layout_read(context, op, role, t, layout));
  if (layout->channels != 1) {
    lg_kernel_log(context, op,
                  "%s tensor '%s' has %lld scales (expected one, per tensor)",
                  role, lg_quant_tensor_name(t), (long long)layout->channels);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* ---- gemmlowp fixed point on int16 (TFLite's integer LSTM) -------------- */

/* gemmlowp's + and - on int16 raw values wrap. */
static int16_t lg_fixed16_wrap(int32_t v) { return (int16_t)(uint16_t)v; }

static int16_t lg_fixed16_saturate(int32_t v) {
  return (int16_t)lg_kernel_clamp_int(v, INT16_MIN, INT16_MAX);
}

/* x * 2^exponent (exponent 1..14), saturating (gemmlowp's
 * SaturatingRoundingMultiplyByPOT to the left). */
static int16_t lg_fixed16_shift_left(int16_t x, int exponent) {
  return lg_fixed16_saturate((int32_t)x * (1 << exponent));
}

/* A gemmlowp constant given as its 32-bit raw value, rounded to 16 bits
 * (RescaleConstantInitializer). */
static int16_t lg_fixed16_constant(int32_t raw32) {
  return (int16_t)lg_fixed_divide_by_pot(raw32, 16);
}

/* exp(a) for a Q0.15 value a in [-1/4, 0): the Taylor expansion around
 * -1/8 of lg_fixed_exp_quarter, in int16. */
static int16_t lg_fixed16_exp_quarter(int16_t a) {
  const int16_t exp_minus_one_eighth = lg_fixed16_constant(1895147668);
  const int16_t one_third = lg_fixed16_constant(715827883);
  const int16_t x = lg_fixed16_wrap(a + (1 << 12)); /* a + 1/8 */
  const int16_t x2 = lg_fixed16_mul(x, x);
  const int16_t x3 = lg_fixed16_mul(x2, x);
  const int16_t x4 = lg_fixed16_mul(x2, x2);
  const int16_t x4_over_4 = lg_fixed16_divide_by_pot(x4, 2);
  const int16_t poly = lg_fixed16_divide_by_pot(
      lg_fixed16_wrap(
          lg_fixed16_mul(lg_fixed16_wrap(x4_over_4 + x3), one_third) + x2),
      1);
  return lg_fixed16_saturate(
      exp_minus_one_eighth +
      lg_fixed16_mul(exp_minus_one_eighth, lg_fixed16_wrap(x + poly)));
}

/* exp(a) for a <= 0 with `integer_bits` (0..7) integer bits, as Q0.15. */
static int16_t lg_fixed16_exp_on_negative(int16_t a, int integer_bits) {
  const int fractional_bits = 15 - integer_bits;
  const int16_t one_quarter = (int16_t)(1 << (fractional_bits - 2));
  const int16_t a_mod_quarter_minus_quarter =
      lg_fixed16_wrap((a & (one_quarter - 1)) - one_quarter);
  int16_t result = lg_fixed16_exp_quarter(
      integer_bits > 0
          ? lg_fixed16_shift_left(a_mod_quarter_minus_quarter, integer_bits)
          : a_mod_quarter_minus_quarter);
  const int16_t remainder = lg_fixed16_wrap(a_mod_quarter_minus_quarter - a);
  /* exp(-2^k) in Q0.31 for k = -2..4, for each bit of the rest that the
   * format has. */
  static const int32_t kMultipliers[7] = {
      1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = -2; k <= 4 && k < integer_bits; ++k) {
    if (remainder & (1 << (fractional_bits + k))) {
      result = lg_fixed16_mul(result, lg_fixed16_constant(kMultipliers[k + 2]));
    }
  }
  if (integer_bits > 5) { /* below -32 the result is 0 */
    const int16_t clamp = lg_fixed16_constant(-(1 << (36 - integer_bits)));
    if (a < clamp) result = 0;
  }
  return a == 0 ? INT16_MAX : result;
}

/* Newton-Raphson for 1 / (1 + a), a Q0.15 value in [0, 1): the Q2.13
 * estimate of 1 / ((1 + a) / 2) after three steps. */
static int16_t lg_fixed16_reciprocal_half(int16_t a) {
  const int32_t sum = (int32_t)a + INT16_MAX;
  const int16_t half_denominator = (int16_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
  const int16_t q2_one = 1 << 13;
  int16_t x = lg_fixed16_wrap(
      lg_fixed16_constant(1515870810) +
      lg_fixed16_mul(half_denominator, lg_fixed16_constant(-1010580540)));
  for (int i = 0; i < 3; ++i) {
    const int16_t one_minus_dx =
        lg_fixed16_wrap(q2_one - lg_fixed16_mul(half_denominator, x));
    x = lg_fixed16_wrap(
        x + lg_fixed16_shift_left(lg_fixed16_mul(x, one_minus_dx), 2));
  }
  return x;
}

int16_t lg_fixed16_logistic(int16_t a, int integer_bits) {
  if (a == 0) return lg_fixed16_constant(1 << 30); /* 1/2 */
  const int16_t magnitude = a > 0 ? a : lg_fixed16_wrap(-a);
  const int16_t e =
      lg_fixed16_exp_on_negative(lg_fixed16_wrap(-magnitude), integer_bits);
  /* 1 / (1 + e): the Q2.13 estimate of 2 / (1 + e) read as Q1.14. */
  const int16_t positive =
      lg_fixed16_shift_left(lg_fixed16_reciprocal_half(e), 1);
  return a > 0 ? positive : lg_fixed16_wrap(INT16_MAX - positive);
}

int16_t lg_fixed16_tanh(int16_t a, int integer_bits) {
  if (a == 0) return 0;
  const int16_t negative = a < 0 ? a : lg_fixed16_wrap(-a);
  /* exp(2 * negative): the same raw value with one more integer bit. */
  const int16_t e = lg_fixed16_exp_on_negative(negative, integer_bits + 1);
  /* (1 - e) / (1 + e) = 2 / (1 + e) - 1, in Q2.13, then to Q0.15. */
  const int16_t t = lg_fixed16_shift_left(
      lg_fixed16_wrap(lg_fixed16_reciprocal_half(e) - (1 << 13)), 2);
  return a < 0 ? lg_fixed16_wrap(-t) : t;
}
