/* RANK and BROADCAST_ARGS: shape arithmetic.
 *
 * RANK: a scalar INT32 holding the input's rank (any input type).
 * BROADCAST_ARGS: two 1-D shape tensors (both INT32 or both INT64, the
 * output's type too) give their numpy broadcast, aligned at the last
 * dimension: equal dims stay, a 1 takes the other dim (so 1 and 0 give 0);
 * any other pair fails naming it. The output has as many values as the
 * longer shape, known in Prepare, so it is never dynamic.
 */
#include <stdint.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/common.h"

/* ---- RANK ------------------------------------------------------------------
 */

static TfLiteStatus lg_rank_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = "RANK";
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 1, 1, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "output", output->type,
                                            LG_SHAPE_TYPE(kTfLiteInt32)));
  if (input->dims == NULL) {
    lg_kernel_log(context, op, "input has no shape");
    return kTfLiteError;
  }
  return lg_shape_resize(context, op, output, NULL, 0);
}

static TfLiteStatus lg_rank_invoke(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, "RANK", "output", output));
  output->data.i32[0] = input->dims->size;
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(RANK, NULL, NULL, lg_rank_prepare, lg_rank_invoke)

/* ---- BROADCAST_ARGS --------------------------------------------------------
 */

#define LG_BROADCAST_ARGS_OP "BROADCAST_ARGS"

static TfLiteStatus lg_broadcast_args_prepare(TfLiteContext* context,
                                              TfLiteNode* node) {
  const char* op = LG_BROADCAST_ARGS_OP;
  const TfLiteTensor *s0, *s1;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &s0));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &s1));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "shape", s0->type,
                                            LG_SHAPE_TYPES_INDEX));
  if (s1->type != s0->type || output->type != s0->type) {
    lg_kernel_log(context, op,
                  "both shapes and the output must have one type (got %s, %s "
                  "and %s)",
                  TfLiteTypeGetName(s0->type), TfLiteTypeGetName(s1->type),
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "shape 0", s0));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "shape 1", s1));
  if (s0->dims->size != 1 || s1->dims->size != 1) {
    lg_kernel_log(context, op, "shapes must be 1-D (got ranks %d and %d)",
                  s0->dims->size, s1->dims->size);
    return kTfLiteError;
  }
  const int n0 = s0->dims->data[0], n1 = s1->dims->data[0];
  const int dims[1] = {n0 > n1 ? n0 : n1};
  return lg_shape_resize(context, op, output, dims, 1);
}

static TfLiteStatus lg_broadcast_args_invoke(TfLiteContext* context,
                                             TfLiteNode* node) {
  const char* op = LG_BROADCAST_ARGS_OP;
  const TfLiteTensor* s0 = &context->tensors[node->inputs->data[0]];
  const TfLiteTensor* s1 = &context->tensors[node->inputs->data[1]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  const int n0 = s0->dims->data[0], n1 = s1->dims->data[0];
  const int n = output->dims->data[0];
  if (n == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  if (n0 > 0)
    TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "shape 0", s0));
  if (n1 > 0)
    TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "shape 1", s1));
  for (int i = 0; i < n; ++i) {
    /* Position i of the output, counted from the last dimension. */
    const int j0 = n0 - n + i, j1 = n1 - n + i;
    const int64_t a = j0 >= 0 ? lg_shape_int_at(s0, j0) : 1;
    const int64_t b = j1 >= 0 ? lg_shape_int_at(s1, j1) : 1;
    int64_t d;
    if (a == b || b == 1) {
      d = a;
    } else if (a == 1) {
      d = b;
    } else {
      lg_kernel_log(context, op,
                    "dimensions %lld and %lld at output position %d are not "
                    "broadcastable",
                    (long long)a, (long long)b, i);
      return kTfLiteError;
    }
    if (output->type == kTfLiteInt32) {
      output->data.i32[i] = (int32_t)d;
    } else {
      output->data.i64[i] = d;
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(BROADCAST_ARGS, NULL, NULL, lg_broadcast_args_prepare,
                       lg_broadcast_args_invoke)
