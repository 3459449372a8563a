/* BITCAST: the input's bytes reinterpreted as the output's type (any two
 * fixed-size types). With input element size a and output element size b:
 * a == b keeps the shape; a > b appends a dimension of a / b; a < b needs
 * a last dimension of b / a, which is dropped. The bytes are copied as they
 * are (the host's byte order, as TFLite's memcpy).
 */
#include <stddef.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/common.h"

#define LG_BITCAST_OP "BITCAST"

static TfLiteStatus lg_bitcast_size(TfLiteContext* context, const char* role,
                                    TfLiteType type, size_t* size) {
  if (type == kTfLiteString || type == kTfLiteResource ||
      type == kTfLiteVariant || TfLiteGetSizeOfType(type, size) != kTfLiteOk ||
      *size == 0) {
    lg_kernel_log(context, LG_BITCAST_OP,
                  "%s type %s is not supported (expected a fixed-size type)",
                  role, TfLiteTypeGetName(type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_bitcast_prepare(TfLiteContext* context,
                                       TfLiteNode* node) {
  const char* op = LG_BITCAST_OP;
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 1, 1, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  size_t in_size = 0, out_size = 0;
  TF_LITE_ENSURE_STATUS(
      lg_bitcast_size(context, "input", input->type, &in_size));
  TF_LITE_ENSURE_STATUS(
      lg_bitcast_size(context, "output", output->type, &out_size));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "input", input, LG_SHAPE_MAX_RANK - 1));
  int dims[LG_SHAPE_MAX_RANK];
  int rank = lg_shape_dims(input, dims);
  if (in_size > out_size) {
    dims[rank++] = (int)(in_size / out_size);
  } else if (in_size < out_size) {
    const int want = (int)(out_size / in_size);
    if (rank == 0 || dims[rank - 1] != want) {
      char s[LG_SHAPE_TEXT];
      lg_kernel_log(context, op,
                    "input shape %s must end in a dimension of %d to make "
                    "%s elements of %s",
                    lg_shape_format_dims(dims, rank, s, sizeof(s)), want,
                    TfLiteTypeGetName(output->type),
                    TfLiteTypeGetName(input->type));
      return kTfLiteError;
    }
    --rank;
  }
  return lg_shape_resize(context, op, output, dims, rank);
}

static TfLiteStatus lg_bitcast_invoke(TfLiteContext* context,
                                      TfLiteNode* node) {
  const char* op = LG_BITCAST_OP;
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  if (input->bytes != output->bytes) {
    lg_kernel_log(context, op, "input has %zu bytes, output %zu", input->bytes,
                  output->bytes);
    return kTfLiteError;
  }
  if (input->bytes == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  if (output->data.raw != input->data.raw) {
    memcpy(output->data.raw, input->data.raw, input->bytes);
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(BITCAST, NULL, NULL, lg_bitcast_prepare,
                       lg_bitcast_invoke)
