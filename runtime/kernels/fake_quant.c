/* FAKE_QUANT: FLOAT32 values rounded onto a quantization grid and back,
 * TensorFlow's FakeQuantWithMinMaxArgs as TFLite computes it, in float32
 * step for step. FakeQuantOptions give min, max, num_bits and
 * narrow_range: the integer range is [0, 2^num_bits - 1], or [1, ...] with
 * narrow_range (version 2; TFLite's kernel refuses narrow_range, litegpu
 * computes TensorFlow's definition). The range is nudged so that 0 is on
 * the grid:
 *   scale = (max - min) / (qmax - qmin)
 *   zero point = round(qmin - min / scale) clamped to [qmin, qmax]
 *   nudged min = (qmin - zero point) * scale, nudged max likewise
 * and each x becomes round((clamp(x) - nudged min) / scale) * scale +
 * nudged min (the division a multiplication by 1 / scale; round half away
 * from zero). NaN clamps to the nudged min, as TFLite's std::max does.
 * Refused: num_bits outside 2..16 (TensorFlow's range) and min >= max.
 */
#include <math.h>
#include <stdint.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_FAKE_QUANT_OP "FAKE_QUANT"

static TfLiteStatus lg_fake_quant_prepare(TfLiteContext* context,
                                          TfLiteNode* node) {
  const char* op = LG_FAKE_QUANT_OP;
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 1, 1, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "input", input->type,
                                            LG_SHAPE_TYPE(kTfLiteFloat32)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, input, output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "input", input, LG_SHAPE_MAX_RANK));
  const TfLiteFakeQuantParams* params = node->builtin_data;
  if (params == NULL) {
    lg_kernel_log(context, op, "missing FakeQuantOptions");
    return kTfLiteError;
  }
  if (params->num_bits < 2 || params->num_bits > 16) {
    lg_kernel_log(context, op, "num_bits %d is outside 2..16",
                  params->num_bits);
    return kTfLiteError;
  }
  if (!(params->min < params->max)) {
    lg_kernel_log(context, op, "min %g must be below max %g",
                  (double)params->min, (double)params->max);
    return kTfLiteError;
  }
  return lg_shape_resize(context, op, output, input->dims->data,
                         input->dims->size);
}

static TfLiteStatus lg_fake_quant_invoke(TfLiteContext* context,
                                         TfLiteNode* node) {
  const char* op = LG_FAKE_QUANT_OP;
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  const TfLiteFakeQuantParams* params = node->builtin_data;
  const int64_t n = lg_kernel_num_elements(input);
  if (n != lg_kernel_num_elements(output)) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (n == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  const int32_t qmin = params->narrow_range ? 1 : 0;
  const int32_t qmax = (1 << params->num_bits) - 1;
  const float qmin_f = (float)qmin, qmax_f = (float)qmax;
  const float scale = (params->max - params->min) / (qmax_f - qmin_f);
  const float zp_from_min = qmin_f - params->min / scale;
  int32_t zp;
  if (zp_from_min < qmin_f) {
    zp = qmin;
  } else if (zp_from_min > qmax_f) {
    zp = qmax;
  } else {
    zp = (int32_t)roundf(zp_from_min);
  }
  const float nudged_min = (qmin_f - (float)zp) * scale;
  const float nudged_max = (qmax_f - (float)zp) * scale;
  const float inv_scale = 1.0f / scale;
  const float* x = input->data.f;
  float* y = output->data.f;
  for (int64_t i = 0; i < n; ++i) {
    float v = nudged_min < x[i] ? x[i] : nudged_min; /* NaN: nudged_min */
    v = v < nudged_max ? v : nudged_max;
    const float steps = roundf((v - nudged_min) * inv_scale);
    const float scaled = steps * scale;
    y[i] = scaled + nudged_min;
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(FAKE_QUANT, NULL, NULL, lg_fake_quant_prepare,
                       lg_fake_quant_invoke)
