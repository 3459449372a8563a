/* EMBEDDING_LOOKUP: rows of a table (input 1, rank >= 2) picked by 1-D
 * INT32 ids (input 0): output[i] = table[ids[i]], shape [len(ids)] +
 * table.shape[1:].
 *
 * A table of the output's type is copied row by row (FLOAT32, INT32,
 * INT64, INT8, UINT8, INT16, BOOL). An INT8 or UINT8 table with a FLOAT32
 * output is the hybrid form: each value times the table's scale (per
 * tensor, or one per row when the table is quantized along dimension 0).
 * As in TFLite the zero point must be 0 and the bytes are read as signed
 * 8-bit values for UINT8 tables too. INT4 / INT2 tables, blockwise
 * quantization and FLOAT16 outputs (the newer versions) are rejected. An
 * id outside the table fails Invoke naming it.
 */
#include <stdint.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/common.h"

#define LG_EMBEDDING_OP "EMBEDDING_LOOKUP"

enum { kIds = 0, kTable = 1 };

static bool lg_embedding_hybrid(const TfLiteTensor* table,
                                const TfLiteTensor* output) {
  return table->type != output->type;
}

static TfLiteStatus lg_embedding_prepare(TfLiteContext* context,
                                         TfLiteNode* node) {
  const char* op = LG_EMBEDDING_OP;
  const TfLiteTensor *ids, *table;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kIds, &ids));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kTable, &table));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "ids", ids->type,
                                            LG_SHAPE_TYPE(kTfLiteInt32)));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "ids", ids, LG_SHAPE_MAX_RANK));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "table", table, LG_SHAPE_MAX_RANK));
  if (ids->dims->size != 1 || table->dims->size < 2) {
    lg_kernel_log(context, op,
                  "ids must be 1-D and the table at least 2-D (got ranks %d "
                  "and %d)",
                  ids->dims->size, table->dims->size);
    return kTfLiteError;
  }
  if (table->quantization.type == kTfLiteBlockwiseQuantization) {
    lg_kernel_log(context, op, "blockwise quantized tables are not supported");
    return kTfLiteError;
  }
  if (!lg_embedding_hybrid(table, output)) {
    TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "table", table->type,
                                              LG_SHAPE_TYPES_MOVE));
  } else {
    if ((table->type != kTfLiteInt8 && table->type != kTfLiteUInt8) ||
        output->type != kTfLiteFloat32) {
      lg_kernel_log(context, op,
                    "output type %s differs from table type %s (only INT8 "
                    "and UINT8 tables dequantize, to FLOAT32)",
                    TfLiteTypeGetName(output->type),
                    TfLiteTypeGetName(table->type));
      return kTfLiteError;
    }
    const TfLiteAffineQuantization* q = table->quantization.params;
    if (table->quantization.type != kTfLiteAffineQuantization || q == NULL ||
        q->scale == NULL || q->scale->size < 1) {
      lg_kernel_log(context, op, "a hybrid %s table needs a scale",
                    TfLiteTypeGetName(table->type));
      return kTfLiteError;
    }
    if (q->zero_point != NULL && q->zero_point->size > 0 &&
        q->zero_point->data[0] != 0) {
      lg_kernel_log(context, op,
                    "a hybrid table's zero point must be 0 (got %d)",
                    q->zero_point->data[0]);
      return kTfLiteError;
    }
    if (q->scale->size > 1 && (q->quantized_dimension != 0 ||
                               q->scale->size != table->dims->data[0])) {
      lg_kernel_log(context, op,
                    "per-channel scales must be one per table row along "
                    "dimension 0 (got %d scales along dimension %d for %d "
                    "rows)",
                    q->scale->size, (int)q->quantized_dimension,
                    table->dims->data[0]);
      return kTfLiteError;
    }
  }
  int dims[LG_SHAPE_MAX_RANK];
  const int rank = lg_shape_dims(table, dims);
  dims[0] = ids->dims->data[0];
  return lg_shape_resize(context, op, output, dims, rank);
}

static TfLiteStatus lg_embedding_invoke(TfLiteContext* context,
                                        TfLiteNode* node) {
  const char* op = LG_EMBEDDING_OP;
  const TfLiteTensor* ids = &context->tensors[node->inputs->data[kIds]];
  const TfLiteTensor* table = &context->tensors[node->inputs->data[kTable]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  const int n = ids->dims->data[0];
  const int rows = table->dims->data[0];
  const int64_t row = lg_shape_product(table->dims->data, 1, table->dims->size);
  if (n == 0 || row == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "ids", ids));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  if (rows > 0) {
    TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "table", table));
  }
  const bool hybrid = lg_embedding_hybrid(table, output);
  const TfLiteAffineQuantization* q = table->quantization.params;
  size_t elem = 0;
  TfLiteGetSizeOfType(table->type, &elem);
  const size_t row_bytes = (size_t)row * elem;
  for (int i = 0; i < n; ++i) {
    const int32_t id = ids->data.i32[i];
    if (id < 0 || id >= rows) {
      lg_kernel_log(context, op,
                    "id %d at position %d is out of range [0, %d) for the "
                    "table's rows",
                    id, i, rows);
      return kTfLiteError;
    }
    if (!hybrid) {
      memcpy(output->data.raw + (size_t)i * row_bytes,
             table->data.raw_const + (size_t)id * row_bytes, row_bytes);
      continue;
    }
    const float scale =
        q->scale->size > 1 ? q->scale->data[id] : q->scale->data[0];
    const int8_t* src =
        (const int8_t*)table->data.raw_const + (int64_t)id * row;
    float* dst = output->data.f + (int64_t)i * row;
    for (int64_t j = 0; j < row; ++j) dst[j] = (float)src[j] * scale;
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(EMBEDDING_LOOKUP, NULL, NULL, lg_embedding_prepare,
                       lg_embedding_invoke)
