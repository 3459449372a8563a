/* SPARSE_TO_DENSE: a tensor of `output_shape` (1-D INT32 or INT64, at most
 * 4 values as in TFLite) filled with `default_value` (one value) and then
 * `values` written at `indices` (INT32 or INT64): a scalar or 1-D indices
 * tensor holds positions of a 1-D output, a 2-D [N, K] one N coordinates of
 * a rank-K output. `values` is one value for every index, or one per index.
 * A later index wins over an earlier one at the same place. Values and the
 * output are FLOAT32, INT32, INT64, INT8 or UINT8. validate_indices is
 * ignored, as in TFLite, but an index outside the output fails naming it.
 * A constant output_shape shapes the output in Prepare, else it is
 * dynamic.
 */
#include <stdint.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/common.h"

#define LG_STD_OP "SPARSE_TO_DENSE"
#define LG_STD_MAX_RANK 4
#define LG_STD_TYPES                                             \
  (LG_SHAPE_TYPE(kTfLiteFloat32) | LG_SHAPE_TYPE(kTfLiteInt32) | \
   LG_SHAPE_TYPE(kTfLiteInt64) | LG_SHAPE_TYPE(kTfLiteInt8) |    \
   LG_SHAPE_TYPE(kTfLiteUInt8))

enum { kIndices = 0, kOutputShape = 1, kValues = 2, kDefault = 3 };

static TfLiteStatus lg_std_shape(TfLiteContext* context,
                                 const TfLiteTensor* shape,
                                 TfLiteTensor* output) {
  const char* op = LG_STD_OP;
  int64_t values[LG_STD_MAX_RANK];
  int rank = 0;
  TF_LITE_ENSURE_STATUS(lg_shape_read_ints(context, op, "output_shape", shape,
                                           LG_STD_MAX_RANK, values, &rank));
  int dims[LG_STD_MAX_RANK];
  int64_t elements = 1;
  for (int i = 0; i < rank; ++i) {
    if (values[i] < 0 || values[i] > INT32_MAX) {
      lg_kernel_log(context, op, "output_shape[%d] = %lld is out of range", i,
                    (long long)values[i]);
      return kTfLiteError;
    }
    dims[i] = (int)values[i];
    elements = lg_shape_mul_capped(elements, dims[i], INT32_MAX);
  }
  if (elements >= INT32_MAX) {
    lg_kernel_log(context, op, "the output has too many elements");
    return kTfLiteError;
  }
  return lg_shape_resize(context, op, output, dims, rank);
}

static TfLiteStatus lg_std_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_STD_OP;
  const TfLiteTensor *indices, *shape, *values, *def;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 4, 4, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kIndices, &indices));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kOutputShape, &shape));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kValues, &values));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kDefault, &def));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "indices", indices->type, LG_SHAPE_TYPES_INDEX));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "output_shape",
                                            shape->type, LG_SHAPE_TYPES_INDEX));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_type(context, op, "values", values->type, LG_STD_TYPES));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, values, output));
  if (def->type != values->type) {
    lg_kernel_log(context, op,
                  "default_value type %s differs from values "
                  "type %s",
                  TfLiteTypeGetName(def->type),
                  TfLiteTypeGetName(values->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "indices", indices));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, op, "output_shape", shape));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "values", values));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, op, "default_value", def));
  const int ir = indices->dims->size;
  if (ir > 2 || values->dims->size > 1 || shape->dims->size != 1 ||
      lg_kernel_num_elements(def) != 1) {
    lg_kernel_log(context, op,
                  "indices must have rank <= 2, values rank <= 1, "
                  "output_shape rank 1 and default_value one value (got "
                  "ranks %d, %d, %d and %lld values)",
                  ir, values->dims->size, shape->dims->size,
                  (long long)lg_kernel_num_elements(def));
    return kTfLiteError;
  }
  const int rank = shape->dims->data[0];
  const int k = ir == 2 ? indices->dims->data[1] : 1;
  const int64_t n =
      ir == 2 ? indices->dims->data[0] : lg_kernel_num_elements(indices);
  if (k != rank || rank > LG_STD_MAX_RANK) {
    lg_kernel_log(context, op,
                  "indices give %d coordinates for an output of rank %d (at "
                  "most %d)",
                  k, rank, LG_STD_MAX_RANK);
    return kTfLiteError;
  }
  if (values->dims->size == 1 && values->dims->data[0] != n) {
    lg_kernel_log(context, op, "%d values for %lld indices",
                  values->dims->data[0], (long long)n);
    return kTfLiteError;
  }
  if (!lg_kernel_is_constant(shape)) {
    lg_kernel_set_dynamic(output);
    return kTfLiteOk;
  }
  return lg_std_shape(context, shape, output);
}

static TfLiteStatus lg_std_invoke(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_STD_OP;
  const TfLiteTensor* indices = &context->tensors[node->inputs->data[kIndices]];
  const TfLiteTensor* shape =
      &context->tensors[node->inputs->data[kOutputShape]];
  const TfLiteTensor* values = &context->tensors[node->inputs->data[kValues]];
  const TfLiteTensor* def = &context->tensors[node->inputs->data[kDefault]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  if (output->allocation_type == kTfLiteDynamic) {
    TF_LITE_ENSURE_STATUS(lg_std_shape(context, shape, output));
  }
  const int rank = output->dims->size;
  const int64_t n = indices->dims->size == 2 ? indices->dims->data[0]
                                             : lg_kernel_num_elements(indices);
  const int64_t total = lg_kernel_num_elements(output);
  size_t elem = 0;
  TfLiteGetSizeOfType(output->type, &elem);
  if (total > 0) {
    TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
    TF_LITE_ENSURE_STATUS(
        lg_shape_check_data(context, op, "default_value", def));
    lg_shape_fill(output->data.raw, total, def->data.raw_const, elem);
  }
  if (n == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "indices", indices));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "values", values));
  const bool scalar = values->dims->size == 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) {
      const int64_t index = lg_shape_int_at(indices, i * rank + d);
      const int dim = output->dims->data[d];
      if (index < 0 || index >= dim) {
        lg_kernel_log(context, op,
                      "index %lld at indices position %lld is out of range "
                      "[0, %d) for output dimension %d",
                      (long long)index, (long long)(i * rank + d), dim, d);
        return kTfLiteError;
      }
      offset = offset * dim + index;
    }
    memcpy(output->data.raw + (size_t)offset * elem,
           values->data.raw_const + (scalar ? 0 : (size_t)i * elem), elem);
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(SPARSE_TO_DENSE, NULL, NULL, lg_std_prepare,
                       lg_std_invoke)
