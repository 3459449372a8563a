/* CUMSUM: running sums along one axis (a one-element INT32 tensor, negative
 * counts from the end) of a FLOAT32, INT32 or INT64 tensor. CumsumOptions:
 * exclusive (each sum leaves out its own element, so the first is 0) and
 * reverse (sums run from the end). Elements are added one after another
 * along the axis, as TFLite's kernel does; integer sums wrap.
 */
#include <stdint.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_CUMSUM_OP "CUMSUM"

static TfLiteStatus lg_cumsum_prepare(TfLiteContext* context,
                                      TfLiteNode* node) {
  const char* op = LG_CUMSUM_OP;
  const TfLiteTensor *input, *axis;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &axis));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "input", input->type,
      LG_SHAPE_TYPE(kTfLiteFloat32) | LG_SHAPE_TYPES_INDEX));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "axis", axis->type,
                                            LG_SHAPE_TYPE(kTfLiteInt32)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, input, output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "input", input, LG_SHAPE_MAX_RANK));
  if (lg_kernel_num_elements(axis) != 1) {
    lg_kernel_log(context, op, "axis must be one value");
    return kTfLiteError;
  }
  return lg_shape_resize(context, op, output, input->dims->data,
                         input->dims->size);
}

#define LG_CUMSUM_LOOP(T, UT, in, out)              \
  for (int64_t o = 0; o < outer; ++o) {             \
    for (int64_t i = 0; i < inner; ++i) {           \
      T acc = 0;                                    \
      for (int64_t k = 0; k < n; ++k) {             \
        const int64_t a = reverse ? n - 1 - k : k;  \
        const int64_t at = (o * n + a) * inner + i; \
        if (exclusive) {                            \
          out[at] = acc;                            \
          acc = (T)((UT)acc + (UT)in[at]);          \
        } else {                                    \
          acc = (T)((UT)acc + (UT)in[at]);          \
          out[at] = acc;                            \
        }                                           \
      }                                             \
    }                                               \
  }

static TfLiteStatus lg_cumsum_invoke(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_CUMSUM_OP;
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  const TfLiteTensor* axis_t = &context->tensors[node->inputs->data[1]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  const TfLiteCumsumParams* params = node->builtin_data;
  const bool exclusive = params != NULL && params->exclusive;
  const bool reverse = params != NULL && params->reverse;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "axis", axis_t));
  const int rank = input->dims->size;
  const int axis = axis_t->data.i32[0] < 0 ? axis_t->data.i32[0] + rank
                                           : axis_t->data.i32[0];
  if (axis < 0 || axis >= rank) {
    lg_kernel_log(context, op, "axis %d is out of range for rank %d",
                  axis_t->data.i32[0], rank);
    return kTfLiteError;
  }
  const int64_t outer = lg_shape_product(input->dims->data, 0, axis);
  const int64_t n = input->dims->data[axis];
  const int64_t inner = lg_shape_product(input->dims->data, axis + 1, rank);
  if (lg_kernel_num_elements(input) == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  if (input->type == kTfLiteFloat32) {
    const float* in = input->data.f;
    float* out = output->data.f;
    LG_CUMSUM_LOOP(float, float, in, out)
  } else if (input->type == kTfLiteInt32) {
    const int32_t* in = input->data.i32;
    int32_t* out = output->data.i32;
    LG_CUMSUM_LOOP(int32_t, uint32_t, in, out)
  } else {
    const int64_t* in = input->data.i64;
    int64_t* out = output->data.i64;
    LG_CUMSUM_LOOP(int64_t, uint64_t, in, out)
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(CUMSUM, NULL, NULL, lg_cumsum_prepare, lg_cumsum_invoke)
