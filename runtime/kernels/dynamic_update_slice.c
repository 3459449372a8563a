/* DYNAMIC_UPDATE_SLICE: a copy of `operand` with `update` (the same type
 * and rank, no dimension larger) written at `start_indices` (1-D INT32 or
 * INT64, one per dimension). Each start is clamped into [0, operand dim -
 * update dim] as TFLite and XLA do, so the update always fits. Any
 * fixed-size element type is moved (FLOAT32, INT32, INT64, INT8, UINT8,
 * INT16, BOOL, FLOAT16, BFLOAT16); INT4 (version 5) is rejected.
 */
#include <stdint.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/common.h"

#define LG_DUS_OP "DYNAMIC_UPDATE_SLICE"
#define LG_DUS_TYPES                                     \
  (LG_SHAPE_TYPES_MOVE | LG_SHAPE_TYPE(kTfLiteFloat16) | \
   LG_SHAPE_TYPE(kTfLiteBFloat16))

enum { kOperand = 0, kUpdate = 1, kStart = 2 };

static TfLiteStatus lg_dus_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_DUS_OP;
  const TfLiteTensor *operand, *update, *start;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 3, 3, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kOperand, &operand));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kUpdate, &update));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kStart, &start));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_type(context, op, "operand", operand->type, LG_DUS_TYPES));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, operand, output));
  if (update->type != operand->type) {
    lg_kernel_log(context, op, "update type %s differs from operand type %s",
                  TfLiteTypeGetName(update->type),
                  TfLiteTypeGetName(operand->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "start_indices",
                                            start->type, LG_SHAPE_TYPES_INDEX));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "operand", operand, LG_SHAPE_MAX_RANK));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "update", update, LG_SHAPE_MAX_RANK));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, op, "start_indices", start));
  const int rank = operand->dims->size;
  char a[LG_SHAPE_TEXT], b[LG_SHAPE_TEXT];
  if (start->dims->size != 1 || start->dims->data[0] != rank) {
    lg_kernel_log(context, op,
                  "start_indices %s must be 1-D with one index per operand "
                  "dimension (%d)",
                  lg_kernel_format_shape(start->dims, a, sizeof(a)), rank);
    return kTfLiteError;
  }
  bool fits = update->dims->size == rank;
  for (int i = 0; fits && i < rank; ++i) {
    fits = update->dims->data[i] <= operand->dims->data[i];
  }
  if (!fits) {
    lg_kernel_log(context, op,
                  "update %s does not fit in operand %s (same rank, no "
                  "dimension larger)",
                  lg_kernel_format_shape(update->dims, a, sizeof(a)),
                  lg_kernel_format_shape(operand->dims, b, sizeof(b)));
    return kTfLiteError;
  }
  int dims[LG_SHAPE_MAX_RANK];
  lg_shape_dims(operand, dims);
  return lg_shape_resize(context, op, output, dims, rank);
}

static TfLiteStatus lg_dus_invoke(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_DUS_OP;
  const TfLiteTensor* operand = &context->tensors[node->inputs->data[kOperand]];
  const TfLiteTensor* update = &context->tensors[node->inputs->data[kUpdate]];
  const TfLiteTensor* start = &context->tensors[node->inputs->data[kStart]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  const int rank = operand->dims->size;
  const int64_t total = lg_kernel_num_elements(operand);
  if (total == 0) return kTfLiteOk;
  size_t elem = 0;
  TfLiteGetSizeOfType(operand->type, &elem);
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "operand", operand));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  if (output->data.raw != operand->data.raw) {
    memcpy(output->data.raw, operand->data.raw_const, (size_t)total * elem);
  }
  if (lg_kernel_num_elements(update) == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "update", update));
  if (rank > 0) {
    TF_LITE_ENSURE_STATUS(
        lg_shape_check_data(context, op, "start_indices", start));
  }
  /* Output strides, and the clamped start as an element offset. */
  ptrdiff_t stride[LG_SHAPE_MAX_RANK];
  ptrdiff_t offset = 0;
  ptrdiff_t s = 1;
  for (int d = rank - 1; d >= 0; --d) {
    stride[d] = s;
    const int64_t room = operand->dims->data[d] - update->dims->data[d];
    int64_t begin = lg_shape_int_at(start, d);
    begin = begin < 0 ? 0 : (begin > room ? room : begin);
    offset += (ptrdiff_t)begin * s;
    s *= operand->dims->data[d];
  }
  lg_shape_copy copy;
  lg_shape_copy_init(&copy, elem);
  ptrdiff_t ustride = (ptrdiff_t)lg_kernel_num_elements(update);
  for (int d = 0; d < rank; ++d) {
    ustride /= update->dims->data[d];
    lg_shape_copy_add_dim(&copy, update->dims->data[d], ustride, stride[d]);
  }
  copy.dst_offset = offset;
  lg_shape_copy_finish(&copy);
  lg_shape_copy_run(&copy, update->data.raw_const, output->data.raw);
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(DYNAMIC_UPDATE_SLICE, NULL, NULL, lg_dus_prepare,
                       lg_dus_invoke)
