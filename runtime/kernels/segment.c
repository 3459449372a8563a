/* SEGMENT_SUM and UNSORTED_SEGMENT_SUM / MAX / MIN / PROD: rows of `data`
 * (FLOAT32 or INT32) reduced into the output row their segment id (INT32)
 * names.
 *
 * SEGMENT_SUM: ids are a 1-D tensor of data.shape[0] values that start at 0
 * and step by 0 or 1 (TFLite rejects anything else); the output has
 * last id + 1 rows.
 * UNSORTED_SEGMENT_*: ids have a prefix of data's shape and any order; the
 * output has num_segments rows (a one-value INT32 tensor, every id must be
 * below it) and data.shape[ids.rank:] after them; negative ids are
 * skipped. A row no id names holds the reduction's identity as in TFLite:
 * 0 for a sum, 1 for a product, the type's lowest value for MAX and its
 * highest for MIN. Integers wrap.
 * The output is shaped in Prepare when the ids (and num_segments) are
 * constant, else in Invoke (dynamic).
 */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/common.h"

typedef enum lg_segment_kind {
  LG_SEGMENT_SUM_SORTED,
  LG_SEGMENT_SUM,
  LG_SEGMENT_MAX,
  LG_SEGMENT_MIN,
  LG_SEGMENT_PROD,
} lg_segment_kind;

typedef struct lg_segment_data {
  lg_segment_kind kind;
  const char* name;
} lg_segment_data;

enum { kData = 0, kSegmentIds = 1, kNumSegments = 2 };

static void* lg_segment_init_variant(int variant, const char* name) {
  lg_segment_data* data = malloc(sizeof(*data));
  if (data != NULL) {
    data->kind = (lg_segment_kind)variant;
    data->name = name;
  }
  return data;
}

/* Checks the ids' values and resizes the output. */
static TfLiteStatus lg_segment_shape(TfLiteContext* context,
                                     const lg_segment_data* op_data,
                                     TfLiteNode* node) {
  const char* op = op_data->name;
  const TfLiteTensor* data = &context->tensors[node->inputs->data[kData]];
  const TfLiteTensor* ids = &context->tensors[node->inputs->data[kSegmentIds]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  const int64_t n = lg_kernel_num_elements(ids);
  if (n > 0)
    TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "segment_ids", ids));
  int rows = 0;
  if (op_data->kind == LG_SEGMENT_SUM_SORTED) {
    for (int64_t i = 0; i < n; ++i) {
      const int32_t id = ids->data.i32[i];
      const int32_t prev = i == 0 ? 0 : ids->data.i32[i - 1];
      const bool ok =
          i == 0 ? id == 0 : (id == prev || (int64_t)id - prev == 1);
      if (!ok) {
        lg_kernel_log(context, op,
                      "segment id %d at position %lld breaks the order (ids "
                      "must start at 0 and step by 0 or 1)",
                      id, (long long)i);
        return kTfLiteError;
      }
    }
    if (n > 0 && ids->data.i32[n - 1] == INT32_MAX) {
      lg_kernel_log(context, op, "segment id %d is too large", INT32_MAX);
      return kTfLiteError;
    }
    rows = n > 0 ? ids->data.i32[n - 1] + 1 : 0;
  } else {
    const TfLiteTensor* num =
        &context->tensors[node->inputs->data[kNumSegments]];
    TF_LITE_ENSURE_STATUS(
        lg_shape_check_data(context, op, "num_segments", num));
    rows = num->data.i32[0];
    if (rows < 0) {
      lg_kernel_log(context, op, "num_segments %d is negative", rows);
      return kTfLiteError;
    }
    for (int64_t i = 0; i < n; ++i) {
      if (ids->data.i32[i] >= rows) {
        lg_kernel_log(context, op,
                      "segment id %d at position %lld is not below "
                      "num_segments %d",
                      ids->data.i32[i], (long long)i, rows);
        return kTfLiteError;
      }
    }
  }
  const int id_rank = ids->dims->size;
  const int rank = data->dims->size - id_rank + 1;
  int dims[LG_SHAPE_MAX_RANK];
  dims[0] = rows;
  int64_t elements = rows;
  for (int i = 1; i < rank; ++i) {
    dims[i] = data->dims->data[id_rank + i - 1];
    elements = lg_shape_mul_capped(elements, dims[i], INT32_MAX);
  }
  if (elements >= INT32_MAX) {
    lg_kernel_log(context, op, "the output has too many elements");
    return kTfLiteError;
  }
  return lg_shape_resize(context, op, output, dims, rank);
}

static TfLiteStatus lg_segment_prepare(TfLiteContext* context,
                                       TfLiteNode* node) {
  const lg_segment_data* op_data = node->user_data;
  const char* op = op_data->name;
  const bool sorted = op_data->kind == LG_SEGMENT_SUM_SORTED;
  const TfLiteTensor *data, *ids, *num = NULL;
  TfLiteTensor* output;
  const int inputs = sorted ? 2 : 3;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_io(context, node, op, inputs, inputs, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kData, &data));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kSegmentIds, &ids));
  if (!sorted) {
    TF_LITE_ENSURE_STATUS(
        lg_kernel_input(context, node, op, kNumSegments, &num));
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "data", data->type,
      LG_SHAPE_TYPE(kTfLiteFloat32) | LG_SHAPE_TYPE(kTfLiteInt32)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "segment_ids", ids->type, LG_SHAPE_TYPE(kTfLiteInt32)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, data, output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "data", data, LG_SHAPE_MAX_RANK));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "segment_ids", ids, LG_SHAPE_MAX_RANK));
  char a[LG_SHAPE_TEXT], b[LG_SHAPE_TEXT];
  if (sorted) {
    if (data->dims->size < 1 || ids->dims->size != 1 ||
        ids->dims->data[0] != data->dims->data[0]) {
      lg_kernel_log(context, op,
                    "segment_ids %s must be 1-D with one id per row of data "
                    "%s",
                    lg_kernel_format_shape(ids->dims, a, sizeof(a)),
                    lg_kernel_format_shape(data->dims, b, sizeof(b)));
      return kTfLiteError;
    }
  } else {
    bool prefix = ids->dims->size <= data->dims->size;
    for (int i = 0; prefix && i < ids->dims->size; ++i) {
      prefix = ids->dims->data[i] == data->dims->data[i];
    }
    if (!prefix) {
      lg_kernel_log(context, op,
                    "segment_ids shape %s is not a prefix of data shape %s",
                    lg_kernel_format_shape(ids->dims, a, sizeof(a)),
                    lg_kernel_format_shape(data->dims, b, sizeof(b)));
      return kTfLiteError;
    }
    TF_LITE_ENSURE_STATUS(lg_shape_check_type(
        context, op, "num_segments", num->type, LG_SHAPE_TYPE(kTfLiteInt32)));
    if (num->dims->size > 1 || lg_kernel_num_elements(num) != 1) {
      lg_kernel_log(context, op,
                    "num_segments must be a scalar or a 1-element vector "
                    "(got %s)",
                    lg_kernel_format_shape(num->dims, a, sizeof(a)));
      return kTfLiteError;
    }
  }
  if (!lg_kernel_is_constant(ids) ||
      (num != NULL && !lg_kernel_is_constant(num))) {
    lg_kernel_set_dynamic(output);
    return kTfLiteOk;
  }
  return lg_segment_shape(context, op_data, node);
}

static void lg_segment_float(lg_segment_kind kind, const float* in,
                             const int32_t* ids, int64_t n, int64_t row,
                             int64_t out_size, float* out) {
  const float init = kind == LG_SEGMENT_MAX    ? -FLT_MAX
                     : kind == LG_SEGMENT_MIN  ? FLT_MAX
                     : kind == LG_SEGMENT_PROD ? 1.0f
                                               : 0.0f;
  for (int64_t i = 0; i < out_size; ++i) out[i] = init;
  for (int64_t i = 0; i < n; ++i) {
    if (ids[i] < 0) continue;
    float* o = out + (int64_t)ids[i] * row;
    const float* x = in + i * row;
    for (int64_t j = 0; j < row; ++j) {
      switch (kind) {
        case LG_SEGMENT_MAX:
          o[j] = o[j] < x[j] ? x[j] : o[j];
          break;
        case LG_SEGMENT_MIN:
          o[j] = x[j] < o[j] ? x[j] : o[j];
          break;
        case LG_SEGMENT_PROD:
          o[j] = o[j] * x[j];
          break;
        default:
          o[j] = o[j] + x[j];
          break;
      }
    }
  }
}

static void lg_segment_int(lg_segment_kind kind, const int32_t* in,
                           const int32_t* ids, int64_t n, int64_t row,
                           int64_t out_size, int32_t* out) {
  const int32_t init = kind == LG_SEGMENT_MAX    ? INT32_MIN
                       : kind == LG_SEGMENT_MIN  ? INT32_MAX
                       : kind == LG_SEGMENT_PROD ? 1
                                                 : 0;
  for (int64_t i = 0; i < out_size; ++i) out[i] = init;
  for (int64_t i = 0; i < n; ++i) {
    if (ids[i] < 0) continue;
    int32_t* o = out + (int64_t)ids[i] * row;
    const int32_t* x = in + i * row;
    for (int64_t j = 0; j < row; ++j) {
      switch (kind) {
        case LG_SEGMENT_MAX:
          o[j] = o[j] < x[j] ? x[j] : o[j];
          break;
        case LG_SEGMENT_MIN:
          o[j] = x[j] < o[j] ? x[j] : o[j];
          break;
        case LG_SEGMENT_PROD:
          o[j] = (int32_t)((uint32_t)o[j] * (uint32_t)x[j]);
          break;
        default:
          o[j] = (int32_t)((uint32_t)o[j] + (uint32_t)x[j]);
          break;
      }
    }
  }
}

static TfLiteStatus lg_segment_invoke(TfLiteContext* context,
                                      TfLiteNode* node) {
  const lg_segment_data* op_data = node->user_data;
  const char* op = op_data->name;
  const TfLiteTensor* data = &context->tensors[node->inputs->data[kData]];
  const TfLiteTensor* ids = &context->tensors[node->inputs->data[kSegmentIds]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  if (output->allocation_type == kTfLiteDynamic) {
    TF_LITE_ENSURE_STATUS(lg_segment_shape(context, op_data, node));
  }
  const int64_t out_size = lg_kernel_num_elements(output);
  if (out_size == 0) return kTfLiteOk;
  const int64_t n = lg_kernel_num_elements(ids);
  const int64_t row =
      lg_shape_product(data->dims->data, ids->dims->size, data->dims->size);
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  if (n > 0 && row > 0) {
    TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "data", data));
    TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "segment_ids", ids));
  }
  const int32_t* id_data = n > 0 && row > 0 ? ids->data.i32 : NULL;
  const int64_t count = id_data != NULL ? n : 0;
  if (data->type == kTfLiteFloat32) {
    lg_segment_float(op_data->kind, data->data.f, id_data, count, row, out_size,
                     output->data.f);
  } else {
    lg_segment_int(op_data->kind, data->data.i32, id_data, count, row, out_size,
                   output->data.i32);
  }
  return kTfLiteOk;
}

LG_KERNEL_FAMILY_REGISTRATION(SEGMENT_SUM, lg_segment, LG_SEGMENT_SUM_SORTED)
LG_KERNEL_FAMILY_REGISTRATION(UNSORTED_SEGMENT_SUM, lg_segment, LG_SEGMENT_SUM)
LG_KERNEL_FAMILY_REGISTRATION(UNSORTED_SEGMENT_MAX, lg_segment, LG_SEGMENT_MAX)
LG_KERNEL_FAMILY_REGISTRATION(UNSORTED_SEGMENT_MIN, lg_segment, LG_SEGMENT_MIN)
LG_KERNEL_FAMILY_REGISTRATION(UNSORTED_SEGMENT_PROD, lg_segment,
                              LG_SEGMENT_PROD)
