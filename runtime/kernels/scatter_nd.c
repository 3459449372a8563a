/* SCATTER_ND: a tensor of `shape` (a 1-D INT32 tensor) that is zero except
 * where `updates` are added at `indices` (INT32, the same type as shape, as
 * TFLite requires): indices' last dimension K indexes the output's first K
 * dimensions, and updates' shape is indices.shape[:-1] + shape[K:].
 * Updates landing on one place are summed (integers wrap, bool is an OR),
 * as in TFLite's kernel. Updates FLOAT32, INT32, INT64, INT8, UINT8 (raw
 * values, no requantization) or BOOL; the output has their type. A
 * constant shape shapes the output in Prepare, else it is dynamic. An
 * index outside its dimension fails Invoke naming it.
 */
#include <stdint.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/common.h"

#define LG_SCATTER_ND_OP "SCATTER_ND"
#define LG_SCATTER_ND_TYPES                                      \
  (LG_SHAPE_TYPE(kTfLiteFloat32) | LG_SHAPE_TYPE(kTfLiteInt32) | \
   LG_SHAPE_TYPE(kTfLiteInt64) | LG_SHAPE_TYPE(kTfLiteInt8) |    \
   LG_SHAPE_TYPE(kTfLiteUInt8) | LG_SHAPE_TYPE(kTfLiteBool))

enum { kIndices = 0, kUpdates = 1, kShape = 2 };

/* Checks the shapes against the values of `shape` and resizes the
 * output. */
static TfLiteStatus lg_scatter_nd_shape(TfLiteContext* context,
                                        const TfLiteTensor* indices,
                                        const TfLiteTensor* updates,
                                        const TfLiteTensor* shape,
                                        TfLiteTensor* output) {
  const char* op = LG_SCATTER_ND_OP;
  const int rank = shape->dims->data[0];
  if (rank > LG_SHAPE_MAX_RANK) {
    lg_kernel_log(context, op, "shape has %d values, above the supported %d",
                  rank, LG_SHAPE_MAX_RANK);
    return kTfLiteError;
  }
  if (rank > 0) {
    TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "shape", shape));
  }
  int dims[LG_SHAPE_MAX_RANK];
  int64_t elements = 1;
  for (int i = 0; i < rank; ++i) {
    dims[i] = shape->data.i32[i];
    if (dims[i] < 0) {
      lg_kernel_log(context, op, "shape[%d] = %d is negative", i, dims[i]);
      return kTfLiteError;
    }
    elements = lg_shape_mul_capped(elements, dims[i], INT32_MAX);
  }
  if (elements >= INT32_MAX) {
    lg_kernel_log(context, op, "the output has too many elements");
    return kTfLiteError;
  }
  const int outer = indices->dims->size - 1;
  const int k = indices->dims->data[outer];
  char want[LG_SHAPE_TEXT], got[LG_SHAPE_TEXT], sh[LG_SHAPE_TEXT];
  if (k < 1 || k > rank || updates->dims->size != outer + rank - k) {
    lg_kernel_log(context, op, "indices %s and updates %s do not fit shape %s",
                  lg_kernel_format_shape(indices->dims, want, sizeof(want)),
                  lg_kernel_format_shape(updates->dims, got, sizeof(got)),
                  lg_shape_format_dims(dims, rank, sh, sizeof(sh)));
    return kTfLiteError;
  }
  bool ok = true;
  for (int i = 0; i < outer; ++i) {
    ok = ok && updates->dims->data[i] == indices->dims->data[i];
  }
  for (int i = outer; i < updates->dims->size; ++i) {
    ok = ok && updates->dims->data[i] == dims[k + i - outer];
  }
  if (!ok) {
    int expect[LG_SHAPE_MAX_RANK * 2];
    int n = 0;
    for (int i = 0; i < outer; ++i) expect[n++] = indices->dims->data[i];
    for (int i = k; i < rank; ++i) expect[n++] = dims[i];
    lg_kernel_log(context, op,
                  "updates shape %s differs from indices.shape[:-1] + "
                  "shape[%d:] = %s",
                  lg_kernel_format_shape(updates->dims, got, sizeof(got)), k,
                  lg_shape_format_dims(expect, n, want, sizeof(want)));
    return kTfLiteError;
  }
  return lg_shape_resize(context, op, output, dims, rank);
}

static TfLiteStatus lg_scatter_nd_prepare(TfLiteContext* context,
                                          TfLiteNode* node) {
  const char* op = LG_SCATTER_ND_OP;
  const TfLiteTensor *indices, *updates, *shape;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 3, 3, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kIndices, &indices));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kUpdates, &updates));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kShape, &shape));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "updates", updates->type, LG_SCATTER_ND_TYPES));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "indices", indices->type, LG_SHAPE_TYPE(kTfLiteInt32)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "shape", shape->type,
                                            LG_SHAPE_TYPE(kTfLiteInt32)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, updates, output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "indices", indices, LG_SHAPE_MAX_RANK));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "updates", updates, LG_SHAPE_MAX_RANK));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "shape", shape));
  if (indices->dims->size < 1 || updates->dims->size < 1 ||
      shape->dims->size != 1) {
    lg_kernel_log(context, op,
                  "indices and updates need rank >= 1 and shape rank 1 (got "
                  "%d, %d and %d)",
                  indices->dims->size, updates->dims->size, shape->dims->size);
    return kTfLiteError;
  }
  if (!lg_kernel_is_constant(shape)) {
    lg_kernel_set_dynamic(output);
    return kTfLiteOk;
  }
  return lg_scatter_nd_shape(context, indices, updates, shape, output);
}

#define LG_SCATTER_ADD(ctype, member, expr)                    \
  do {                                                         \
    ctype* o = output->data.member + to;                       \
    const ctype* u = updates->data.member + (size_t)s * slice; \
    for (int64_t j = 0; j < slice; ++j) o[j] = (ctype)(expr);  \
  } while (0)

static TfLiteStatus lg_scatter_nd_invoke(TfLiteContext* context,
                                         TfLiteNode* node) {
  const char* op = LG_SCATTER_ND_OP;
  const TfLiteTensor* indices = &context->tensors[node->inputs->data[kIndices]];
  const TfLiteTensor* updates = &context->tensors[node->inputs->data[kUpdates]];
  const TfLiteTensor* shape = &context->tensors[node->inputs->data[kShape]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  if (output->allocation_type == kTfLiteDynamic) {
    TF_LITE_ENSURE_STATUS(
        lg_scatter_nd_shape(context, indices, updates, shape, output));
  }
  const int outer = indices->dims->size - 1;
  const int k = indices->dims->data[outer];
  const int rank = output->dims->size;
  const int64_t slices = lg_shape_product(indices->dims->data, 0, outer);
  const int64_t slice = lg_shape_product(output->dims->data, k, rank);
  const int64_t total = lg_kernel_num_elements(output);
  if (total == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  size_t elem = 0;
  TfLiteGetSizeOfType(output->type, &elem);
  memset(output->data.raw, 0, (size_t)total * elem);
  if (slices == 0 || slice == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "indices", indices));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "updates", updates));
  for (int64_t s = 0; s < slices; ++s) {
    int64_t to = 0;
    for (int d = 0; d < k; ++d) {
      const int32_t index = indices->data.i32[s * k + d];
      const int dim = output->dims->data[d];
      if (index < 0 || index >= dim) {
        lg_kernel_log(context, op,
                      "index %d at indices position %lld is out of range "
                      "[0, %d) for output dimension %d",
                      index, (long long)(s * k + d), dim, d);
        return kTfLiteError;
      }
      to = to * dim + index;
    }
    to *= slice;
    switch (output->type) {
      case kTfLiteFloat32:
        LG_SCATTER_ADD(float, f, o[j] + u[j]);
        break;
      case kTfLiteInt32:
        LG_SCATTER_ADD(int32_t, i32, (uint32_t)o[j] + (uint32_t)u[j]);
        break;
      case kTfLiteInt64:
        LG_SCATTER_ADD(int64_t, i64, (uint64_t)o[j] + (uint64_t)u[j]);
        break;
      case kTfLiteInt8:
        LG_SCATTER_ADD(int8_t, int8, (uint8_t)o[j] + (uint8_t)u[j]);
        break;
      case kTfLiteUInt8:
        LG_SCATTER_ADD(uint8_t, uint8, o[j] + u[j]);
        break;
      default: /* BOOL */
        LG_SCATTER_ADD(bool, b, o[j] || u[j]);
        break;
    }
  }
  return kTfLiteOk;
}

#undef LG_SCATTER_ADD

LG_KERNEL_REGISTRATION(SCATTER_ND, NULL, NULL, lg_scatter_nd_prepare,
                       lg_scatter_nd_invoke)
