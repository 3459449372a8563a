/* REVERSE_V2: the input with the order of elements reversed along each
 * axis listed in the axis tensor (INT32 or INT64, negative counts from the
 * end; an axis listed twice is reversed once, as TFLite reads its axes as
 * a set). Any data-movement type. The axes may be a run-time tensor: they
 * do not change the output's shape.
 */
#include <stdbool.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/common.h"

#define LG_REVERSE_OP "REVERSE_V2"

static TfLiteStatus lg_reverse_prepare(TfLiteContext* context,
                                       TfLiteNode* node) {
  const char* op = LG_REVERSE_OP;
  const TfLiteTensor *input, *axis;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &axis));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "input", input->type,
                                            LG_SHAPE_TYPES_MOVE));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "axis", axis->type,
                                            LG_SHAPE_TYPES_INDEX));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, input, output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "input", input, LG_SHAPE_MAX_RANK));
  return lg_shape_resize(context, op, output, input->dims->data,
                         input->dims->size);
}

static TfLiteStatus lg_reverse_invoke(TfLiteContext* context,
                                      TfLiteNode* node) {
  const char* op = LG_REVERSE_OP;
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  const TfLiteTensor* axis = &context->tensors[node->inputs->data[1]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  const int rank = input->dims->size;
  int64_t axes[LG_SHAPE_MAX_RANK];
  int count = 0;
  TF_LITE_ENSURE_STATUS(lg_shape_read_ints(context, op, "axis", axis,
                                           LG_SHAPE_MAX_RANK, axes, &count));
  bool flip[LG_SHAPE_MAX_RANK] = {false};
  for (int i = 0; i < count; ++i) {
    const int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (a < 0 || a >= rank) {
      lg_kernel_log(context, op, "axis %lld is out of range for rank %d",
                    (long long)axes[i], rank);
      return kTfLiteError;
    }
    flip[a] = true;
  }
  if (lg_kernel_num_elements(input) == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  size_t elem = 0;
  TfLiteGetSizeOfType(input->type, &elem);
  /* Output-order walk; a flipped dim reads its source backwards. */
  lg_shape_copy copy;
  lg_shape_copy_init(&copy, elem);
  ptrdiff_t stride = 1;
  ptrdiff_t strides[LG_SHAPE_MAX_RANK];
  for (int d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= input->dims->data[d];
  }
  for (int d = 0; d < rank; ++d) {
    const int n = input->dims->data[d];
    if (flip[d]) {
      copy.src_offset += (ptrdiff_t)(n - 1) * strides[d];
      lg_shape_copy_add_dim(&copy, n, -strides[d], strides[d]);
    } else {
      lg_shape_copy_add_dim(&copy, n, strides[d], strides[d]);
    }
  }
  lg_shape_copy_finish(&copy);
  lg_shape_copy_run(&copy, input->data.raw_const, output->data.raw);
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(REVERSE_V2, NULL, NULL, lg_reverse_prepare,
                       lg_reverse_invoke)
