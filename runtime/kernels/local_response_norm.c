/* LOCAL_RESPONSE_NORMALIZATION: FLOAT32, 4-D, across the last (channel)
 * axis. LocalResponseNormalizationOptions give radius, bias, alpha, beta:
 *   out[c] = in[c] * (bias + alpha * sum(in[k]^2))^-beta
 * over the channels k from c - radius to c + radius inclusive, clipped to
 * the row (TensorFlow's definition, which LiteRT's default kernel
 * computes). The squares are summed in float32 in increasing channel
 * order; the power goes through libm's powf, so results agree with LiteRT
 * to a few ulps rather than bit for bit (its kernel keeps a running sum of
 * alpha * in^2 and computes the power with Eigen). A negative radius is
 * refused.
 */
#include <math.h>
#include <stdint.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_LRN_OP "LOCAL_RESPONSE_NORMALIZATION"

static TfLiteStatus lg_lrn_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_LRN_OP;
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 1, 1, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "input", input->type,
                                            LG_SHAPE_TYPE(kTfLiteFloat32)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, input, output));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "input", input));
  if (input->dims->size != 4) {
    lg_kernel_log(context, op, "input rank %d is not supported (expected 4)",
                  input->dims->size);
    return kTfLiteError;
  }
  const TfLiteLocalResponseNormParams* params = node->builtin_data;
  if (params == NULL) {
    lg_kernel_log(context, op, "missing LocalResponseNormalizationOptions");
    return kTfLiteError;
  }
  if (params->radius < 0) {
    lg_kernel_log(context, op, "radius %d is negative", params->radius);
    return kTfLiteError;
  }
  return lg_shape_resize(context, op, output, input->dims->data,
                         input->dims->size);
}

static TfLiteStatus lg_lrn_invoke(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_LRN_OP;
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  const TfLiteLocalResponseNormParams* params = node->builtin_data;
  const int64_t elements = lg_kernel_num_elements(input);
  if (elements != lg_kernel_num_elements(output)) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (elements == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  const int64_t depth = input->dims->data[3];
  const int64_t rows = elements / depth;
  const int64_t radius = params->radius;
  const float bias = params->bias, alpha = params->alpha;
  const float neg_beta = -params->beta;
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = input->data.f + r * depth;
    float* y = output->data.f + r * depth;
    for (int64_t c = 0; c < depth; ++c) {
      const int64_t begin = c - radius < 0 ? 0 : c - radius;
      const int64_t end = c + radius + 1 > depth ? depth : c + radius + 1;
      float squares = 0.0f;
      for (int64_t k = begin; k < end; ++k) squares += x[k] * x[k];
      y[c] = x[c] * powf(bias + alpha * squares, neg_beta);
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(LOCAL_RESPONSE_NORMALIZATION, NULL, NULL, lg_lrn_prepare,
                       lg_lrn_invoke)
