/* DILATE: spreads the input's elements apart by a factor per dimension and
 * fills the gaps with a padding value (interior padding). Inputs: the data
 * (any fixed-size type, rank 1 to 8), the dilations (INT32, one per input
 * dimension, each at least 1) and the padding value (a one-element tensor
 * of the data's type). A dimension of size s becomes (s - 1) * d + 1 (0
 * stays 0) and output element i * d holds input element i. Constant
 * dilations shape the output in Prepare; otherwise it is dynamic and
 * shaped in Invoke.
 */
#include <stddef.h>
#include <stdint.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/common.h"

#define LG_DILATE_OP "DILATE"

/* Reads the dilations and writes the output dims. */
static TfLiteStatus lg_dilate_shape(TfLiteContext* context,
                                    const TfLiteTensor* input,
                                    const TfLiteTensor* dilations_t,
                                    int* dilations, int* out_dims) {
  const char* op = LG_DILATE_OP;
  const int rank = input->dims->size;
  if (dilations_t->dims->size != 1 || dilations_t->dims->data[0] != rank) {
    char s[LG_SHAPE_TEXT];
    lg_kernel_log(
        context, op, "dilations shape %s must be [%d], one per input dimension",
        lg_kernel_format_shape(dilations_t->dims, s, sizeof(s)), rank);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, op, "dilations", dilations_t));
  int64_t elements = 1;
  for (int i = 0; i < rank; ++i) {
    const int32_t d = dilations_t->data.i32[i];
    if (d < 1) {
      lg_kernel_log(context, op, "dilations[%d] = %d is below 1", i, (int)d);
      return kTfLiteError;
    }
    const int64_t s = input->dims->data[i];
    const int64_t o = s == 0 ? 0 : (s - 1) * (int64_t)d + 1;
    elements = lg_shape_mul_capped(elements, o, INT32_MAX);
    if (o > INT32_MAX || elements >= INT32_MAX) {
      lg_kernel_log(context, op, "the output is too large (dimension %d)", i);
      return kTfLiteError;
    }
    dilations[i] = (int)d;
    out_dims[i] = (int)o;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_dilate_prepare(TfLiteContext* context,
                                      TfLiteNode* node) {
  const char* op = LG_DILATE_OP;
  const TfLiteTensor *input, *dilations, *padding;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 3, 3, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &dilations));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 2, &padding));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  size_t size = 0;
  if (input->type == kTfLiteString ||
      TfLiteGetSizeOfType(input->type, &size) != kTfLiteOk || size == 0) {
    lg_kernel_log(context, op,
                  "input type %s is not supported (expected a fixed-size "
                  "type)",
                  TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, input, output));
  if (padding->type != input->type) {
    lg_kernel_log(context, op,
                  "padding value type %s differs from input "
                  "type %s",
                  TfLiteTypeGetName(padding->type),
                  TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "dilations", dilations->type, LG_SHAPE_TYPE(kTfLiteInt32)));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "input", input, LG_SHAPE_MAX_RANK));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, op, "dilations", dilations));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, op, "padding value", padding));
  if (input->dims->size < 1) {
    lg_kernel_log(context, op, "input must have at least one dimension");
    return kTfLiteError;
  }
  if (lg_kernel_num_elements(padding) != 1) {
    lg_kernel_log(context, op, "padding value must be one element");
    return kTfLiteError;
  }
  if (!lg_kernel_is_constant(dilations)) {
    lg_kernel_set_dynamic(output);
    return kTfLiteOk;
  }
  int d[LG_SHAPE_MAX_RANK], out_dims[LG_SHAPE_MAX_RANK];
  TF_LITE_ENSURE_STATUS(
      lg_dilate_shape(context, input, dilations, d, out_dims));
  return lg_shape_resize(context, op, output, out_dims, input->dims->size);
}

static TfLiteStatus lg_dilate_invoke(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_DILATE_OP;
  const TfLiteTensor *input, *dilations, *padding;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &dilations));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 2, &padding));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  const int rank = input->dims->size;
  int d[LG_SHAPE_MAX_RANK], out_dims[LG_SHAPE_MAX_RANK];
  TF_LITE_ENSURE_STATUS(
      lg_dilate_shape(context, input, dilations, d, out_dims));
  if (output->allocation_type == kTfLiteDynamic) {
    TF_LITE_ENSURE_STATUS(lg_shape_resize(context, op, output, out_dims, rank));
  }
  const int64_t out_count = lg_shape_product(out_dims, 0, rank);
  if (lg_kernel_num_elements(output) != out_count) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (out_count == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, op, "padding value", padding));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  size_t size = 0;
  TF_LITE_ENSURE_STATUS(TfLiteGetSizeOfType(input->type, &size));
  lg_shape_fill(output->data.raw, out_count, padding->data.raw, size);
  lg_shape_copy copy;
  lg_shape_copy_init(&copy, size);
  ptrdiff_t in_stride = 1, out_stride = 1;
  ptrdiff_t in_strides[LG_SHAPE_MAX_RANK], out_strides[LG_SHAPE_MAX_RANK];
  for (int i = rank - 1; i >= 0; --i) {
    in_strides[i] = in_stride;
    out_strides[i] = out_stride * d[i];
    in_stride *= input->dims->data[i];
    out_stride *= out_dims[i];
  }
  for (int i = 0; i < rank; ++i) {
    lg_shape_copy_add_dim(&copy, input->dims->data[i], in_strides[i],
                          out_strides[i]);
  }
  lg_shape_copy_finish(&copy);
  lg_shape_copy_run(&copy, input->data.raw, output->data.raw);
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(DILATE, NULL, NULL, lg_dilate_prepare, lg_dilate_invoke)
