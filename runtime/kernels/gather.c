/* GATHER: slices of `params` along `axis`, picked by `indices`.
 *
 * output shape = params.shape[:axis] + indices.shape[batch_dims:] +
 *                params.shape[axis+1:]
 * With batch_dims = B, the first B dims of params and indices are shared
 * batch dims: batch b picks from params[b] with indices[b]. axis and
 * batch_dims may be negative (counted from the end of params and indices
 * respectively); batch_dims <= axis.
 *
 * The copy is a loop over (batch, outer, index) of memcpys of `inner`
 * elements. Indices are INT32 or INT64 and must lie in [0, params.shape[axis]);
 * Invoke checks all of them before writing anything and reports the first
 * one out of range.
 *
 * STRING params (TFLite's gather.cc takes them at every version, 1-D
 * only, as here) give a STRING output written in Invoke by the
 * interpreter's string writer (runtime/string_tensor.h): the same picks,
 * one string per element.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "runtime/string_tensor.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_GATHER_OP "GATHER"

enum {
  kParamsTensor = 0,
  kIndicesTensor = 1,
  kOutputTensor = 0,
};

typedef struct lg_gather_data {
  bool prepared;
  int64_t batch;     /* product of params.shape[:batch_dims] */
  int64_t outer;     /* product of params.shape[batch_dims:axis] */
  int64_t axis_size; /* params.shape[axis] */
  int64_t inner;     /* product of params.shape[axis+1:] */
  int64_t coords;    /* product of indices.shape[batch_dims:] */
  int64_t params_elements;
  int64_t indices_elements;
} lg_gather_data;

static void* lg_gather_init(TfLiteContext* context, const char* buffer,
                            size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_gather_data));
}

/* Resolves axis and batch_dims against the ranks and checks the shared
 * batch dims. */
static TfLiteStatus lg_gather_axes(TfLiteContext* context,
                                   const TfLiteNode* node,
                                   const TfLiteTensor* params,
                                   const TfLiteTensor* indices, int* axis,
                                   int* batch_dims) {
  const TfLiteGatherParams* p = node->builtin_data;
  const int rank = params->dims->size, irank = indices->dims->size;
  const int a = p != NULL ? p->axis : 0, b = p != NULL ? p->batch_dims : 0;
  *axis = a < 0 ? a + rank : a;
  *batch_dims = b < 0 ? b + irank : b;
  if (*axis < 0 || *axis >= rank) {
    lg_kernel_log(context, LG_GATHER_OP,
                  "axis %d is out of range for params of rank %d", a, rank);
    return kTfLiteError;
  }
  if (*batch_dims < 0 || *batch_dims > irank || *batch_dims > *axis) {
    lg_kernel_log(context, LG_GATHER_OP,
                  "batch_dims %d is out of range (at most the indices rank %d "
                  "and the axis %d)",
                  b, irank, *axis);
    return kTfLiteError;
  }
  for (int i = 0; i < *batch_dims; ++i) {
    if (params->dims->data[i] != indices->dims->data[i]) {
      char sp[LG_SHAPE_TEXT], si[LG_SHAPE_TEXT];
      lg_kernel_log(context, LG_GATHER_OP,
                    "batch dim %d differs between params %s and indices %s", i,
                    lg_kernel_format_shape(params->dims, sp, sizeof(sp)),
                    lg_kernel_format_shape(indices->dims, si, sizeof(si)));
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

/* Computes the loop sizes and the output shape. */
static TfLiteStatus lg_gather_shape(TfLiteContext* context,
                                    lg_gather_data* data,
                                    const TfLiteTensor* params,
                                    const TfLiteTensor* indices, int axis,
                                    int batch_dims, TfLiteTensor* output) {
  const int* pd = params->dims->data;
  const int* id = indices->dims->data;
  const int rank = params->dims->size, irank = indices->dims->size;
  const int out_rank = rank - 1 + irank - batch_dims;
  if (out_rank > LG_SHAPE_MAX_RANK) {
    lg_kernel_log(context, LG_GATHER_OP,
                  "the output rank %d is above the supported %d", out_rank,
                  LG_SHAPE_MAX_RANK);
    return kTfLiteError;
  }
  int dims[LG_SHAPE_MAX_RANK];
  int n = 0;
  for (int i = 0; i < axis; ++i) dims[n++] = pd[i];
  for (int i = batch_dims; i < irank; ++i) dims[n++] = id[i];
  for (int i = axis + 1; i < rank; ++i) dims[n++] = pd[i];
  const int64_t elements = lg_shape_product(dims, 0, n);
  if (elements > INT_MAX) {
    lg_kernel_log(context, LG_GATHER_OP,
                  "the output has %lld elements, above %d", (long long)elements,
                  INT_MAX);
    return kTfLiteError;
  }
  data->batch = lg_shape_product(pd, 0, batch_dims);
  data->outer = lg_shape_product(pd, batch_dims, axis);
  data->axis_size = pd[axis];
  data->inner = lg_shape_product(pd, axis + 1, rank);
  data->coords = lg_shape_product(id, batch_dims, irank);
  data->params_elements = lg_kernel_num_elements(params);
  data->indices_elements = lg_kernel_num_elements(indices);
  return lg_shape_resize(context, LG_GATHER_OP, output, dims, n);
}

static TfLiteStatus lg_gather_prepare(TfLiteContext* context,
                                      TfLiteNode* node) {
  lg_gather_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_GATHER_OP,
                  "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_io(context, node, LG_GATHER_OP, 2, 2, 1));
  const TfLiteTensor *params, *indices;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_GATHER_OP, kParamsTensor, &params));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_GATHER_OP, kIndicesTensor, &indices));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_GATHER_OP, kOutputTensor, &output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_type(context, LG_GATHER_OP, "params", params->type,
                          LG_SHAPE_TYPES_MOVE | LG_SHAPE_TYPE(kTfLiteString)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, LG_GATHER_OP, "indices", indices->type, LG_SHAPE_TYPES_INDEX));
  if (output->type != params->type) {
    lg_kernel_log(
        context, LG_GATHER_OP, "output type %s differs from params type %s",
        TfLiteTypeGetName(output->type), TfLiteTypeGetName(params->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_rank(context, LG_GATHER_OP, "params",
                                            params, LG_SHAPE_MAX_RANK));
  TF_LITE_ENSURE_STATUS(lg_shape_check_rank(context, LG_GATHER_OP, "indices",
                                            indices, LG_SHAPE_MAX_RANK));
  if (params->type == kTfLiteString && params->dims->size != 1) {
    lg_kernel_log(context, LG_GATHER_OP,
                  "STRING params must be 1-D (as TFLite's), got rank %d",
                  params->dims->size);
    return kTfLiteError;
  }
  int axis, batch_dims;
  TF_LITE_ENSURE_STATUS(
      lg_gather_axes(context, node, params, indices, &axis, &batch_dims));
  TF_LITE_ENSURE_STATUS(lg_gather_shape(context, data, params, indices, axis,
                                        batch_dims, output));
  if (output->type == kTfLiteString) lg_kernel_set_dynamic(output);
  data->prepared = true;
  return kTfLiteOk;
}

/* Checks every index against [0, axis_size). */
static TfLiteStatus lg_gather_check_indices(TfLiteContext* context,
                                            const lg_gather_data* data,
                                            const TfLiteTensor* indices) {
  for (int64_t i = 0; i < data->indices_elements; ++i) {
    const int64_t index = lg_shape_int_at(indices, i);
    if (index < 0 || index >= data->axis_size) {
      lg_kernel_log(context, LG_GATHER_OP,
                    "indices[%lld] = %lld is out of range [0, %lld)",
                    (long long)i, (long long)index, (long long)data->axis_size);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

static void lg_gather_run(const lg_gather_data* data,
                          const TfLiteTensor* indices, const char* in,
                          char* out, size_t size) {
  const size_t row = (size_t)data->inner * size;
  for (int64_t b = 0; b < data->batch; ++b) {
    for (int64_t o = 0; o < data->outer; ++o) {
      const char* src =
          in + (size_t)((b * data->outer + o) * data->axis_size) * row;
      for (int64_t c = 0; c < data->coords; ++c) {
        const int64_t index = lg_shape_int_at(indices, b * data->coords + c);
        memcpy(out, src + (size_t)index * row, row);
        out += row;
      }
    }
  }
}

/* STRING params: which params string output string k is. */
typedef struct lg_gather_string_map {
  const lg_gather_data* data;
  const TfLiteTensor* indices;
} lg_gather_string_map;

static int64_t lg_gather_string_at(const void* ctx, int64_t k) {
  const lg_gather_string_map* m = ctx;
  const lg_gather_data* d = m->data;
  const int64_t i = k % d->inner;
  int64_t r = k / d->inner;
  const int64_t c = r % d->coords;
  r /= d->coords;
  const int64_t o = r % d->outer;
  const int64_t b = r / d->outer;
  const int64_t index = lg_shape_int_at(m->indices, b * d->coords + c);
  return ((b * d->outer + o) * d->axis_size + index) * d->inner + i;
}

static TfLiteStatus lg_gather_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_gather_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, LG_GATHER_OP, "invoked before a successful prepare");
    return kTfLiteError;
  }
  const TfLiteTensor *params, *indices;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_GATHER_OP, kParamsTensor, &params));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_GATHER_OP, kIndicesTensor, &indices));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_GATHER_OP, kOutputTensor, &output));
  const int64_t out_elements =
      data->batch * data->outer * data->coords * data->inner;
  if (lg_kernel_num_elements(params) != data->params_elements ||
      lg_kernel_num_elements(indices) != data->indices_elements ||
      lg_kernel_num_elements(output) != out_elements) {
    lg_kernel_log(context, LG_GATHER_OP, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, LG_GATHER_OP, "indices", indices));
  TF_LITE_ENSURE_STATUS(lg_gather_check_indices(context, data, indices));
  if (params->type == kTfLiteString) {
    TF_LITE_ENSURE_STATUS(
        lg_string_check_input(context, LG_GATHER_OP, "params", params));
    const lg_gather_string_map map = {data, indices};
    return lg_string_write_mapped(context, LG_GATHER_OP, output, params,
                                  output->dims->data, output->dims->size,
                                  lg_gather_string_at, &map);
  }
  if (out_elements == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, LG_GATHER_OP, "params", params));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, LG_GATHER_OP, "output", output));
  size_t size = 0;
  TfLiteGetSizeOfType(params->type, &size);
  lg_gather_run(data, indices, params->data.raw, output->data.raw, size);
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(GATHER, lg_gather_init, lg_kernel_free_data,
                       lg_gather_prepare, lg_gather_invoke)
