/* L2_NORMALIZATION: each row along the last axis divided by its L2 norm.
 *
 * FLOAT32 (version 1): the squares summed in float32 in increasing order,
 * the square root, raised to at least 1e-6 (TFLite's fixed epsilon; NaN
 * stays NaN), then each element divided by it, as TFLite's reference
 * kernel computes it.
 *
 * UINT8 (version 1) and INT8 (version 2), TFLite's integer arithmetic bit
 * for bit: the output scale must be 1/128 and its zero point 128 (UINT8)
 * or 0 (INT8); the input's scale does not matter, only its zero point.
 * With d = x - input zero point and S the int32 sum of d*d over the row,
 * 1/sqrt(S) becomes a fixed-point multiplier and shift (lg_fixed_inv_sqrt,
 * TFLite's GetInvSqrtQuantizedMultiplierExp; S of 0 or 1 gives the largest
 * multiplier), and each output is
 *   UINT8: 128 + round(128 * d / sqrt(S)) clamped to [0, 255]
 *   INT8:  round(d / sqrt(S) * 2^7) clamped to [-128, 127]
 * in TFLite's rounding multiplies. S only overflows int32 for rows of more
 * than 33,000 elements (TFLite's sum then wraps, undefined): here it
 * saturates at INT32_MAX.
 *
 * The fused activation must be NONE (TFLite's kernels implement none).
 */
#include <math.h>
#include <stdint.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/quant_util.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_L2_NORM_OP "L2_NORMALIZATION"

/* TFLite's epsilon of the float kernel. */
static const float kLgL2NormEpsilon = 1e-6f;

static TfLiteStatus lg_l2_norm_check_quant(TfLiteContext* context,
                                           const TfLiteTensor* input,
                                           const TfLiteTensor* output) {
  const char* op = LG_L2_NORM_OP;
  lg_quant_layout in_q, out_q;
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, op, "input", input, &in_q));
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, op, "output", output, &out_q));
  const int32_t want_zp = output->type == kTfLiteUInt8 ? 128 : 0;
  if (out_q.scale0 != 1.0f / 128.0f || out_q.zero_point0 != want_zp) {
    lg_kernel_log(context, op,
                  "%s output quantization (%g, %d) is not supported (expected "
                  "scale 1/128 and zero point %d)",
                  TfLiteTypeGetName(output->type), (double)out_q.scale0,
                  (int)out_q.zero_point0, (int)want_zp);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_l2_norm_prepare(TfLiteContext* context,
                                       TfLiteNode* node) {
  const char* op = LG_L2_NORM_OP;
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 1, 1, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "input", input->type,
                                            LG_SHAPE_TYPE(kTfLiteFloat32) |
                                                LG_SHAPE_TYPE(kTfLiteUInt8) |
                                                LG_SHAPE_TYPE(kTfLiteInt8)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, input, output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "input", input, LG_SHAPE_MAX_RANK));
  if (input->dims->size < 1) {
    lg_kernel_log(context, op, "input must have at least one dimension");
    return kTfLiteError;
  }
  const TfLiteL2NormParams* params = node->builtin_data;
  if (params != NULL && params->activation != kTfLiteActNone) {
    lg_kernel_log(context, op,
                  "fused activation %s is not supported (expected NONE)",
                  lg_kernel_activation_name(params->activation));
    return kTfLiteError;
  }
  if (input->type != kTfLiteFloat32) {
    TF_LITE_ENSURE_STATUS(lg_l2_norm_check_quant(context, input, output));
  }
  return lg_shape_resize(context, op, output, input->dims->data,
                         input->dims->size);
}

static void lg_l2_norm_float(const float* in, float* out, int64_t rows,
                             int64_t depth) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = in + r * depth;
    float* y = out + r * depth;
    float squares = 0.0f;
    for (int64_t c = 0; c < depth; ++c) squares += x[c] * x[c];
    float norm = sqrtf(squares);
    if (norm < kLgL2NormEpsilon) norm = kLgL2NormEpsilon;
    for (int64_t c = 0; c < depth; ++c) y[c] = x[c] / norm;
  }
}

/* The int32 sum of squared differences of a row, saturating. */
#define LG_L2_NORM_SQUARES(T)                                      \
  static int32_t lg_l2_norm_squares_##T(const T* x, int64_t depth, \
                                        int32_t zp) {              \
    int64_t sum = 0;                                               \
    for (int64_t c = 0; c < depth; ++c) {                          \
      const int64_t d = (int64_t)x[c] - zp;                        \
      sum += d * d;                                                \
      if (sum > INT32_MAX) return INT32_MAX;                       \
    }                                                              \
    return (int32_t)sum;                                           \
  }

LG_L2_NORM_SQUARES(uint8_t)
LG_L2_NORM_SQUARES(int8_t)

static void lg_l2_norm_uint8(const uint8_t* in, uint8_t* out, int64_t rows,
                             int64_t depth, int32_t zp) {
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* x = in + r * depth;
    uint8_t* y = out + r * depth;
    int32_t multiplier = 0;
    int shift = 0;
    lg_fixed_inv_sqrt(lg_l2_norm_squares_uint8_t(x, depth, zp), &multiplier,
                      &shift);
    for (int64_t c = 0; c < depth; ++c) {
      const int32_t d = (int32_t)x[c] - zp;
      int32_t v =
          128 + lg_multiply_by_quantized_multiplier(128 * d, multiplier, shift);
      v = v < 0 ? 0 : (v > 255 ? 255 : v);
      y[c] = (uint8_t)v;
    }
  }
}

static void lg_l2_norm_int8(const int8_t* in, int8_t* out, int64_t rows,
                            int64_t depth, int32_t zp) {
  enum { kOutputShift = 7 }; /* the output's scale 2^-7 */
  for (int64_t r = 0; r < rows; ++r) {
    const int8_t* x = in + r * depth;
    int8_t* y = out + r * depth;
    int32_t multiplier = 0;
    int shift = 0;
    lg_fixed_inv_sqrt(lg_l2_norm_squares_int8_t(x, depth, zp), &multiplier,
                      &shift);
    for (int64_t c = 0; c < depth; ++c) {
      const int32_t d = (int32_t)x[c] - zp;
      int32_t v = lg_multiply_by_quantized_multiplier(d, multiplier,
                                                      shift + kOutputShift);
      v = v < -128 ? -128 : (v > 127 ? 127 : v);
      y[c] = (int8_t)v;
    }
  }
}

static TfLiteStatus lg_l2_norm_invoke(TfLiteContext* context,
                                      TfLiteNode* node) {
  const char* op = LG_L2_NORM_OP;
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  const int64_t elements = lg_kernel_num_elements(input);
  if (elements != lg_kernel_num_elements(output)) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (elements == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  const int64_t depth = input->dims->data[input->dims->size - 1];
  const int64_t rows = elements / depth;
  switch (input->type) {
    case kTfLiteFloat32:
      lg_l2_norm_float(input->data.f, output->data.f, rows, depth);
      break;
    case kTfLiteUInt8:
      lg_l2_norm_uint8(input->data.uint8, output->data.uint8, rows, depth,
                       input->params.zero_point);
      break;
    default:
      lg_l2_norm_int8(input->data.int8, output->data.int8, rows, depth,
                      input->params.zero_point);
      break;
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(L2_NORMALIZATION, NULL, NULL, lg_l2_norm_prepare,
                       lg_l2_norm_invoke)
