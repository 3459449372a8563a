/* EMBEDDING_LOOKUP_SPARSE (version 1): a weighted, combined lookup of a
 * sparse tensor's ids in a FLOAT32 table, as TFLite's kernel computes it.
 *
 * Inputs: ids INT32 [N] (rows of the table), indices INT32 [N, R] (each
 * id's position in the sparse tensor), dense_shape INT32 [R], weights
 * FLOAT32 [N], table FLOAT32 [rows, e1, ..., em] (rank >= 2). Output:
 * FLOAT32 [dense_shape[0], ..., dense_shape[R - 2], e1, ..., em], a dynamic
 * tensor (its shape comes from dense_shape's values): the last sparse
 * dimension is combined away.
 *
 * Entry i adds table[ids[i]] * weights[i] (float) to the output bucket its
 * indices[i][0..R-2] name (row-major in dense_shape). As TFLite, the
 * entries are taken in order and a bucket is finished when the next entry
 * names another one: with combiner MEAN its sum is divided by the sum of
 * its weights, with SQRTN by sqrtf of the sum of their squares (float
 * sums, in entry order), with SUM left as it is. Buckets no entry names
 * are 0. Like TFLite, a bucket named again after another one is finished
 * again (its earlier part divided twice), so callers sort their entries.
 *
 * An id outside [0, rows) or an index outside [0, dense_shape[k]) fails
 * Invoke naming the entry; a negative dense_shape value fails Invoke.
 * TFLite's kernel reads the table as FLOAT32 whatever its type; litegpu
 * takes FLOAT32 tables only (others are rejected in Prepare).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_ELS_OP "EMBEDDING_LOOKUP_SPARSE"

enum {
  kLgElsIds = 0,
  kLgElsIndices = 1,
  kLgElsDenseShape = 2,
  kLgElsWeights = 3,
  kLgElsTable = 4
};

static TfLiteStatus lg_els_check(TfLiteContext* context, const char* what,
                                 const TfLiteTensor* t, int rank,
                                 TfLiteType type) {
  char shape[LG_SHAPE_TEXT];
  if ((rank >= 0 && t->dims->size != rank) || (rank < 0 && t->dims->size < 2)) {
    lg_kernel_log(context, LG_ELS_OP, "%s %s must have rank %s", what,
                  lg_kernel_format_shape(t->dims, shape, sizeof(shape)),
                  rank == 1   ? "1"
                  : rank == 2 ? "2"
                              : "2 or more");
    return kTfLiteError;
  }
  if (t->type != type) {
    lg_kernel_log(context, LG_ELS_OP, "%s is %s, expected %s", what,
                  TfLiteTypeGetName(t->type), TfLiteTypeGetName(type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_els_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_ELS_OP;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 5, 5, 1));
  const TfLiteTensor *ids, *indices, *dense_shape, *weights, *table;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kLgElsIds, &ids));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kLgElsIndices, &indices));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kLgElsDenseShape, &dense_shape));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kLgElsWeights, &weights));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kLgElsTable, &table));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  const TfLiteTensor* all[5] = {ids, indices, dense_shape, weights, table};
  static const char* const names[5] = {"ids", "indices", "dense_shape",
                                       "weights", "table"};
  for (int i = 0; i < 5; ++i) {
    TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, names[i], all[i]));
  }
  TF_LITE_ENSURE_STATUS(lg_els_check(context, "ids", ids, 1, kTfLiteInt32));
  TF_LITE_ENSURE_STATUS(
      lg_els_check(context, "indices", indices, 2, kTfLiteInt32));
  TF_LITE_ENSURE_STATUS(
      lg_els_check(context, "dense_shape", dense_shape, 1, kTfLiteInt32));
  TF_LITE_ENSURE_STATUS(
      lg_els_check(context, "weights", weights, 1, kTfLiteFloat32));
  TF_LITE_ENSURE_STATUS(
      lg_els_check(context, "table", table, -1, kTfLiteFloat32));
  if (output->type != kTfLiteFloat32) {
    lg_kernel_log(context, op, "output is %s, expected FLOAT32",
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  const int n = ids->dims->data[0];
  if (indices->dims->data[0] != n || weights->dims->data[0] != n) {
    lg_kernel_log(context, op,
                  "ids (%d), indices (%d) and weights (%d) must have as many "
                  "entries",
                  n, indices->dims->data[0], weights->dims->data[0]);
    return kTfLiteError;
  }
  const int lookup_rank = indices->dims->data[1];
  if (lookup_rank < 1 || dense_shape->dims->data[0] != lookup_rank) {
    lg_kernel_log(context, op,
                  "indices have %d columns and dense_shape %d values: they "
                  "must be the same number, 1 or more",
                  lookup_rank, dense_shape->dims->data[0]);
    return kTfLiteError;
  }
  const int out_rank = lookup_rank - 1 + table->dims->size - 1;
  if (out_rank > LG_SHAPE_MAX_RANK) {
    lg_kernel_log(context, op, "the output would have rank %d (at most %d)",
                  out_rank, LG_SHAPE_MAX_RANK);
    return kTfLiteError;
  }
  lg_kernel_set_dynamic(output);
  return kTfLiteOk;
}

/* TFLite's FinalizeAggregation. */
static void lg_els_finish(TfLiteCombinerType combiner, int count, float total,
                          float squares, int64_t size, float* out) {
  if (combiner == kTfLiteCombinerTypeSum || count == 0) return;
  const float divisor =
      combiner == kTfLiteCombinerTypeMean ? total : sqrtf(squares);
  for (int64_t k = 0; k < size; ++k) out[k] /= divisor;
}

static TfLiteStatus lg_els_invoke(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_ELS_OP;
  const TfLiteEmbeddingLookupSparseParams* params = node->builtin_data;
  const TfLiteCombinerType combiner =
      params != NULL ? params->combiner : kTfLiteCombinerTypeSum;
  const TfLiteTensor* ids = &context->tensors[node->inputs->data[kLgElsIds]];
  const TfLiteTensor* indices =
      &context->tensors[node->inputs->data[kLgElsIndices]];
  const TfLiteTensor* dense_shape =
      &context->tensors[node->inputs->data[kLgElsDenseShape]];
  const TfLiteTensor* weights =
      &context->tensors[node->inputs->data[kLgElsWeights]];
  const TfLiteTensor* table =
      &context->tensors[node->inputs->data[kLgElsTable]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  const TfLiteTensor* in[5] = {ids, indices, dense_shape, weights, table};
  for (int i = 0; i < 5; ++i) {
    TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", in[i]));
  }
  const int n = ids->dims->data[0];
  const int lookup_rank = indices->dims->data[1];
  const int rows = table->dims->data[0];
  int dims[LG_SHAPE_MAX_RANK];
  int rank = 0;
  int64_t buckets = 1, size = 1;
  for (int k = 0; k < lookup_rank - 1; ++k) {
    const int32_t d = dense_shape->data.i32[k];
    if (d < 0) {
      lg_kernel_log(context, op, "dense_shape[%d] = %d is negative", k, (int)d);
      return kTfLiteError;
    }
    buckets *= d;
    if (buckets > INT32_MAX) buckets = (int64_t)INT32_MAX + 1;
    dims[rank++] = d;
  }
  for (int k = 1; k < table->dims->size; ++k) {
    size *= table->dims->data[k];
    dims[rank++] = table->dims->data[k];
  }
  if (buckets * size > INT32_MAX) {
    lg_kernel_log(context, op, "the output would have more than %d elements",
                  INT32_MAX);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_resize(context, op, output, dims, rank));
  const int64_t total_out = buckets * size;
  if (total_out == 0 && n == 0) return kTfLiteOk;
  float* out = output->data.f;
  if (total_out > 0) {
    TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
    memset(out, 0, (size_t)total_out * sizeof(float));
  }
  int64_t current = 0;
  float total = 0.0f, squares = 0.0f;
  int count = 0;
  for (int i = 0; i < n; ++i) {
    const int32_t id = ids->data.i32[i];
    if (id < 0 || id >= rows) {
      lg_kernel_log(context, op, "ids[%d] = %d is out of range [0, %d)", i,
                    (int)id, rows);
      return kTfLiteError;
    }
    int64_t bucket = 0, stride = 1;
    for (int k = lookup_rank - 2; k >= 0; --k) {
      const int32_t v = indices->data.i32[(int64_t)i * lookup_rank + k];
      const int32_t d = dense_shape->data.i32[k];
      if (v < 0 || v >= d) {
        lg_kernel_log(context, op,
                      "indices[%d][%d] = %d is out of range [0, %d) of "
                      "dense_shape",
                      i, k, (int)v, (int)d);
        return kTfLiteError;
      }
      bucket += v * stride;
      stride *= d;
    }
    const int64_t offset = bucket * size;
    if (offset != current) {
      lg_els_finish(combiner, count, total, squares, size, out + current);
      count = 0;
      total = 0.0f;
      squares = 0.0f;
      current = offset;
    }
    ++count;
    const float w = weights->data.f[i];
    squares += w * w;
    total += w;
    const float* row = table->data.f + (int64_t)id * size;
    for (int64_t k = 0; k < size; ++k) out[current + k] += row[k] * w;
  }
  lg_els_finish(combiner, count, total, squares, size, out + current);
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(EMBEDDING_LOOKUP_SPARSE, NULL, NULL, lg_els_prepare,
                       lg_els_invoke)
