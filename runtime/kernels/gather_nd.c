/* GATHER_ND: output[i...] = params[indices[i..., :]] where the last
 * dimension of indices (K) indexes the first K dimensions of params; the
 * output's shape is indices.shape[:-1] + params.shape[K:]. Params of any
 * data-movement type or STRING (version 2: a dynamic STRING output written
 * in Invoke by the interpreter's string writer), indices INT16, INT32 or
 * INT64. An index outside its dimension fails Invoke with the index named
 * (TFLite fails too); for STRING params before anything is written.
 */
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "runtime/string_tensor.h"
#include "tensorflow/lite/c/common.h"

#define LG_GATHER_ND_OP "GATHER_ND"

static int64_t lg_gather_nd_index(const TfLiteTensor* t, int64_t i) {
  switch (t->type) {
    case kTfLiteInt16:
      return t->data.i16[i];
    case kTfLiteInt32:
      return t->data.i32[i];
    default:
      return t->data.i64[i];
  }
}

static TfLiteStatus lg_gather_nd_prepare(TfLiteContext* context,
                                         TfLiteNode* node) {
  const char* op = LG_GATHER_ND_OP;
  const TfLiteTensor *params, *indices;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &params));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &indices));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_type(context, op, "params", params->type,
                          LG_SHAPE_TYPES_MOVE | LG_SHAPE_TYPE(kTfLiteString)));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_type(context, op, "indices", indices->type,
                          LG_SHAPE_TYPES_INDEX | LG_SHAPE_TYPE(kTfLiteInt16)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, params, output));
  if (output->type == kTfLiteString) lg_kernel_set_dynamic(output);
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "params", params, LG_SHAPE_MAX_RANK));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "indices", indices, LG_SHAPE_MAX_RANK));
  const int pr = params->dims->size, ir = indices->dims->size;
  if (pr < 1 || ir < 1) {
    lg_kernel_log(context, op, "params and indices must have rank >= 1");
    return kTfLiteError;
  }
  const int k = indices->dims->data[ir - 1];
  if (k > pr) {
    lg_kernel_log(context, op,
                  "indices' last dimension %d is larger than params' rank %d",
                  k, pr);
    return kTfLiteError;
  }
  const int rank = ir - 1 + pr - k;
  if (rank > LG_SHAPE_MAX_RANK) {
    lg_kernel_log(context, op, "output rank %d is above the supported %d", rank,
                  LG_SHAPE_MAX_RANK);
    return kTfLiteError;
  }
  int dims[LG_SHAPE_MAX_RANK];
  for (int i = 0; i < ir - 1; ++i) dims[i] = indices->dims->data[i];
  for (int i = k; i < pr; ++i) dims[ir - 1 + i - k] = params->dims->data[i];
  return lg_shape_resize(context, op, output, dims, rank);
}

/* The params slice row s of indices (k entries) picks; fails naming an
 * index outside its dimension. */
static TfLiteStatus lg_gather_nd_offset(TfLiteContext* context,
                                        const TfLiteTensor* params,
                                        const TfLiteTensor* indices, int k,
                                        int64_t s, int64_t* offset) {
  *offset = 0;
  for (int d = 0; d < k; ++d) {
    const int64_t index = lg_gather_nd_index(indices, s * k + d);
    const int dim = params->dims->data[d];
    if (index < 0 || index >= dim) {
      lg_kernel_log(context, LG_GATHER_ND_OP,
                    "index %lld at indices position %lld is out of range "
                    "[0, %d) for params dimension %d",
                    (long long)index, (long long)(s * k + d), dim, d);
      return kTfLiteError;
    }
    *offset = *offset * dim + index;
  }
  return kTfLiteOk;
}

/* STRING params: which params string output string k is. */
typedef struct lg_gather_nd_strings {
  const TfLiteTensor *params, *indices;
  int k;
  int64_t slice;
} lg_gather_nd_strings;

static int64_t lg_gather_nd_string_at(const void* ctx, int64_t i) {
  const lg_gather_nd_strings* m = ctx;
  int64_t offset = 0;
  /* The indices were checked before writing. */
  lg_gather_nd_offset(NULL, m->params, m->indices, m->k, i / m->slice, &offset);
  return offset * m->slice + i % m->slice;
}

static TfLiteStatus lg_gather_nd_invoke_strings(TfLiteContext* context,
                                                const TfLiteTensor* params,
                                                const TfLiteTensor* indices,
                                                TfLiteTensor* output) {
  const char* op = LG_GATHER_ND_OP;
  const int pr = params->dims->size, ir = indices->dims->size;
  const int k = indices->dims->data[ir - 1];
  const int64_t slices = lg_shape_product(indices->dims->data, 0, ir - 1);
  const int64_t slice = lg_shape_product(params->dims->data, k, pr);
  TF_LITE_ENSURE_STATUS(lg_string_check_input(context, op, "params", params));
  if (slices > 0 && slice > 0) {
    TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "indices", indices));
    for (int64_t s = 0; s < slices; ++s) {
      int64_t offset;
      TF_LITE_ENSURE_STATUS(
          lg_gather_nd_offset(context, params, indices, k, s, &offset));
    }
  }
  const lg_gather_nd_strings map = {params, indices, k, slice};
  return lg_string_write_mapped(context, op, output, params, output->dims->data,
                                output->dims->size, lg_gather_nd_string_at,
                                &map);
}

static TfLiteStatus lg_gather_nd_invoke(TfLiteContext* context,
                                        TfLiteNode* node) {
  const char* op = LG_GATHER_ND_OP;
  const TfLiteTensor* params = &context->tensors[node->inputs->data[0]];
  const TfLiteTensor* indices = &context->tensors[node->inputs->data[1]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  if (params->type == kTfLiteString) {
    return lg_gather_nd_invoke_strings(context, params, indices, output);
  }
  const int pr = params->dims->size, ir = indices->dims->size;
  const int k = indices->dims->data[ir - 1];
  const int64_t slices = lg_shape_product(indices->dims->data, 0, ir - 1);
  const int64_t slice = lg_shape_product(params->dims->data, k, pr);
  size_t elem = 0;
  TfLiteGetSizeOfType(params->type, &elem);
  const size_t slice_bytes = (size_t)slice * elem;
  if (slices == 0 || slice_bytes == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "params", params));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "indices", indices));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  for (int64_t s = 0; s < slices; ++s) {
    int64_t offset = 0;
    TF_LITE_ENSURE_STATUS(
        lg_gather_nd_offset(context, params, indices, k, s, &offset));
    memcpy(output->data.raw + (size_t)s * slice_bytes,
           params->data.raw_const + (size_t)offset * slice_bytes, slice_bytes);
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(GATHER_ND, NULL, NULL, lg_gather_nd_prepare,
                       lg_gather_nd_invoke)
