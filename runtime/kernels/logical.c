/* LOGICAL_AND and LOGICAL_OR (BOOL inputs with numpy-style broadcasting, on
 * the shared binary kernel, binary.h) and LOGICAL_NOT (elementwise). Inputs
 * are read as truth values: any byte other than 0 is true; outputs are 0 or
 * 1, as TFLite writes them.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/kernels/binary.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/common.h"

LG_BINARY_ROW(lg_logical_and_bool, uint8_t, uint8_t, (a != 0) && (b != 0))
LG_BINARY_ROW(lg_logical_or_bool, uint8_t, uint8_t, (a != 0) || (b != 0))

static const lg_binary_op kLogicalAnd = {
    .name = "LOGICAL_AND",
    .builtin_code = kTfLiteBuiltinLogicalAnd,
    .bool_output = true,
    .types = "BOOL",
    .boolean = lg_logical_and_bool,
};
static const lg_binary_op kLogicalOr = {
    .name = "LOGICAL_OR",
    .builtin_code = kTfLiteBuiltinLogicalOr,
    .bool_output = true,
    .types = "BOOL",
    .boolean = lg_logical_or_bool,
};

LG_KERNEL_FAMILY_REGISTRATION(LOGICAL_AND, lg_binary, &kLogicalAnd)
LG_KERNEL_FAMILY_REGISTRATION(LOGICAL_OR, lg_binary, &kLogicalOr)

static TfLiteStatus lg_logical_not_prepare(TfLiteContext* context,
                                           TfLiteNode* node) {
  static const char kOp[] = "LOGICAL_NOT";
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, kOp, 1, 1, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, kOp, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, kOp, 0, &output));
  if (input->type != kTfLiteBool || output->type != kTfLiteBool) {
    lg_kernel_log(
        context, kOp, "input and output must be BOOL (input %s, output %s)",
        TfLiteTypeGetName(input->type), TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, kOp, "input", input));
  TfLiteIntArray* dims = TfLiteIntArrayCopy(input->dims);
  if (dims == NULL) return kTfLiteError;
  return context->ResizeTensor(context, output, dims);
}

static TfLiteStatus lg_logical_not_invoke(TfLiteContext* context,
                                          TfLiteNode* node) {
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  const uint8_t* in = (const uint8_t*)input->data.raw_const;
  uint8_t* out = (uint8_t*)output->data.raw;
  const int64_t count = lg_kernel_num_elements(input);
  for (int64_t i = 0; i < count; ++i) out[i] = in[i] == 0;
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(LOGICAL_NOT, NULL, NULL, lg_logical_not_prepare,
                       lg_logical_not_invoke)
