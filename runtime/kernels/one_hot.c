/* ONE_HOT: indices (INT32 or INT64) expanded along a new axis of `depth`
 * (a one-element INT32 tensor): on_value where the position equals the
 * index, off_value elsewhere (an index outside [0, depth) gives a row of
 * off_value, as in TFLite). on_value and off_value are one-element tensors
 * of the output's type (FLOAT32, INT32, INT64, INT8, UINT8 or BOOL). The
 * axis (OneHotOptions, -1: last) is where the new dimension goes. With a
 * constant depth the output is shaped in Prepare, else in Invoke.
 */
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_ONE_HOT_OP "ONE_HOT"
#define LG_ONE_HOT_VALUE_TYPES                                   \
  (LG_SHAPE_TYPE(kTfLiteFloat32) | LG_SHAPE_TYPE(kTfLiteInt32) | \
   LG_SHAPE_TYPE(kTfLiteInt64) | LG_SHAPE_TYPE(kTfLiteInt8) |    \
   LG_SHAPE_TYPE(kTfLiteUInt8) | LG_SHAPE_TYPE(kTfLiteBool))

/* The output axis of the new dimension for `indices` of rank `rank`. */
static TfLiteStatus lg_one_hot_axis(TfLiteContext* context,
                                    const TfLiteNode* node, int rank,
                                    int* axis) {
  const TfLiteOneHotParams* params = node->builtin_data;
  const int a = params != NULL ? params->axis : -1;
  *axis = a == -1 ? rank : a;
  if (*axis < 0 || *axis > rank) {
    lg_kernel_log(context, LG_ONE_HOT_OP,
                  "axis %d is out of range [-1, %d] for indices of rank %d", a,
                  rank, rank);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_one_hot_shape(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_ONE_HOT_OP;
  const TfLiteTensor* indices = &context->tensors[node->inputs->data[0]];
  const TfLiteTensor* depth_t = &context->tensors[node->inputs->data[1]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  int64_t depth = 0;
  int count = 0;
  TF_LITE_ENSURE_STATUS(
      lg_shape_read_ints(context, op, "depth", depth_t, 1, &depth, &count));
  if (count != 1 || depth < 0 || depth > 0x7fffffff) {
    lg_kernel_log(context, op, "depth must be one value >= 0, got %lld",
                  count == 1 ? (long long)depth : -1LL);
    return kTfLiteError;
  }
  const int rank = indices->dims->size;
  int axis = 0;
  TF_LITE_ENSURE_STATUS(lg_one_hot_axis(context, node, rank, &axis));
  int dims[LG_SHAPE_MAX_RANK];
  for (int i = 0, j = 0; i <= rank; ++i) {
    dims[i] = i == axis ? (int)depth : indices->dims->data[j++];
  }
  return lg_shape_resize(context, op, output, dims, rank + 1);
}

static TfLiteStatus lg_one_hot_prepare(TfLiteContext* context,
                                       TfLiteNode* node) {
  const char* op = LG_ONE_HOT_OP;
  const TfLiteTensor *indices, *depth, *on, *off;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 4, 4, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &indices));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &depth));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 2, &on));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 3, &off));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "indices", indices->type, LG_SHAPE_TYPES_INDEX));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "depth", depth->type,
                                            LG_SHAPE_TYPE(kTfLiteInt32)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "on_value", on->type,
                                            LG_ONE_HOT_VALUE_TYPES));
  if (off->type != on->type || output->type != on->type) {
    lg_kernel_log(context, op,
                  "on_value, off_value and output must have one type (%s, %s, "
                  "%s)",
                  TfLiteTypeGetName(on->type), TfLiteTypeGetName(off->type),
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  if (lg_kernel_num_elements(on) != 1 || lg_kernel_num_elements(off) != 1) {
    lg_kernel_log(context, op, "on_value and off_value must be one value each");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_rank(context, op, "indices", indices,
                                            LG_SHAPE_MAX_RANK - 1));
  if (!lg_kernel_is_constant(depth)) {
    lg_kernel_set_dynamic(output);
    return kTfLiteOk;
  }
  return lg_one_hot_shape(context, node);
}

static TfLiteStatus lg_one_hot_invoke(TfLiteContext* context,
                                      TfLiteNode* node) {
  const char* op = LG_ONE_HOT_OP;
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  if (output->allocation_type == kTfLiteDynamic) {
    TF_LITE_ENSURE_STATUS(lg_one_hot_shape(context, node));
  }
  const TfLiteTensor* indices = &context->tensors[node->inputs->data[0]];
  const TfLiteTensor* on = &context->tensors[node->inputs->data[2]];
  const TfLiteTensor* off = &context->tensors[node->inputs->data[3]];
  int axis = 0;
  TF_LITE_ENSURE_STATUS(
      lg_one_hot_axis(context, node, indices->dims->size, &axis));
  const int depth = output->dims->data[axis];
  const int64_t prefix = lg_shape_product(indices->dims->data, 0, axis);
  const int64_t suffix =
      lg_shape_product(indices->dims->data, axis, indices->dims->size);
  if (lg_kernel_num_elements(output) == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "indices", indices));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  size_t elem = 0;
  TfLiteGetSizeOfType(output->type, &elem);
  char* out = output->data.raw;
  /* Output [prefix, depth, suffix]: element (p, d, s) is on when
   * indices[p, s] == d. */
  for (int64_t p = 0; p < prefix; ++p) {
    for (int d = 0; d < depth; ++d) {
      for (int64_t s = 0; s < suffix; ++s) {
        const int64_t index = lg_shape_int_at(indices, p * suffix + s);
        memcpy(out, index == d ? on->data.raw_const : off->data.raw_const,
               elem);
        out += elem;
      }
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(ONE_HOT, NULL, NULL, lg_one_hot_prepare,
                       lg_one_hot_invoke)
