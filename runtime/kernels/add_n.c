/* ADD_N: the elementwise sum of two or more tensors of one shape and type
 * (FLOAT32 or INT32), added in input order as TFLite does (input 0, then
 * + input 1, + input 2, ...). INT32 sums wrap on overflow.
 */
#include <stdint.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/c/common.h"

#define LG_ADD_N_OP "ADD_N"

static TfLiteStatus lg_add_n_prepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* first;
  TfLiteTensor* output;
  if (node->inputs->size < 2) {
    lg_kernel_log(context, LG_ADD_N_OP, "needs at least 2 inputs, got %d",
                  node->inputs->size);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_io(context, node, LG_ADD_N_OP, 2, node->inputs->size, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, LG_ADD_N_OP, 0, &first));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_ADD_N_OP, 0, &output));
  if (first->type != kTfLiteFloat32 && first->type != kTfLiteInt32) {
    lg_kernel_log(context, LG_ADD_N_OP,
                  "input type %s is not supported (expected FLOAT32 or INT32)",
                  TfLiteTypeGetName(first->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, LG_ADD_N_OP, "input 0", first));
  for (int i = 1; i < node->inputs->size; ++i) {
    const TfLiteTensor* in;
    TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, LG_ADD_N_OP, i, &in));
    if (in->type != first->type ||
        !TfLiteIntArrayEqual(in->dims, first->dims)) {
      char a[64], b[64];
      lg_kernel_log(context, LG_ADD_N_OP,
                    "input %d is %s %s; every input must be %s %s like input "
                    "0",
                    i, TfLiteTypeGetName(in->type),
                    lg_kernel_format_shape(in->dims, a, sizeof a),
                    TfLiteTypeGetName(first->type),
                    lg_kernel_format_shape(first->dims, b, sizeof b));
      return kTfLiteError;
    }
  }
  if (output->type != first->type) {
    lg_kernel_log(context, LG_ADD_N_OP, "output type %s differs from input %s",
                  TfLiteTypeGetName(output->type),
                  TfLiteTypeGetName(first->type));
    return kTfLiteError;
  }
  TfLiteIntArray* dims = TfLiteIntArrayCopy(first->dims);
  if (dims == NULL) return kTfLiteError;
  return context->ResizeTensor(context, output, dims);
}

static TfLiteStatus lg_add_n_invoke(TfLiteContext* context, TfLiteNode* node) {
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  const int64_t n = lg_kernel_num_elements(output);
  const TfLiteTensor* first = &context->tensors[node->inputs->data[0]];
  if (n > 0) memcpy(output->data.raw, first->data.raw_const, output->bytes);
  for (int k = 1; k < node->inputs->size; ++k) {
    const TfLiteTensor* in = &context->tensors[node->inputs->data[k]];
    if (output->type == kTfLiteFloat32) {
      float* o = output->data.f;
      for (int64_t i = 0; i < n; ++i) o[i] += in->data.f[i];
    } else {
      int32_t* o = output->data.i32;
      for (int64_t i = 0; i < n; ++i) {
        o[i] = (int32_t)((uint32_t)o[i] + (uint32_t)in->data.i32[i]);
      }
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(ADD_N, NULL, NULL, lg_add_n_prepare, lg_add_n_invoke)
