/* MATRIX_DIAG and MATRIX_SET_DIAG.
 *
 * MATRIX_DIAG: input [..., N] gives [..., N, N] matrices whose main
 * diagonal is the input's last axis and everything else 0.
 * MATRIX_SET_DIAG: input [..., M, N] and diagonal [..., min(M, N)] give
 * the input with its main diagonal replaced.
 * Both move elements: FLOAT32, INT32, INT64, INT16, INT8, UINT8 (TFLite's
 * types).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/common.h"

#define LG_DIAG_TYPES                                            \
  (LG_SHAPE_TYPE(kTfLiteFloat32) | LG_SHAPE_TYPE(kTfLiteInt32) | \
   LG_SHAPE_TYPE(kTfLiteInt64) | LG_SHAPE_TYPE(kTfLiteInt16) |   \
   LG_SHAPE_TYPE(kTfLiteInt8) | LG_SHAPE_TYPE(kTfLiteUInt8))

typedef struct lg_diag_data {
  bool set; /* MATRIX_SET_DIAG */
  const char* name;
} lg_diag_data;

static void* lg_diag_init_variant(int variant, const char* name) {
  lg_diag_data* data = malloc(sizeof(*data));
  if (data != NULL) {
    data->set = variant != 0;
    data->name = name;
  }
  return data;
}

static TfLiteStatus lg_diag_prepare(TfLiteContext* context, TfLiteNode* node) {
  const lg_diag_data* op_data = node->user_data;
  const char* op = op_data->name;
  const int inputs = op_data->set ? 2 : 1;
  const TfLiteTensor *input, *diag = NULL;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_io(context, node, op, inputs, inputs, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_type(context, op, "input", input->type, LG_DIAG_TYPES));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, input, output));
  int dims[LG_SHAPE_MAX_RANK];
  if (!op_data->set) {
    TF_LITE_ENSURE_STATUS(lg_shape_check_rank(context, op, "input", input,
                                              LG_SHAPE_MAX_RANK - 1));
    const int rank = lg_shape_dims(input, dims);
    if (rank < 1) {
      lg_kernel_log(context, op, "input must have rank >= 1");
      return kTfLiteError;
    }
    dims[rank] = dims[rank - 1];
    if (lg_shape_mul_capped(lg_kernel_num_elements(input), dims[rank],
                            INT32_MAX) >= INT32_MAX) {
      lg_kernel_log(context, op, "the output has too many elements");
      return kTfLiteError;
    }
    return lg_shape_resize(context, op, output, dims, rank + 1);
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &diag));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "input", input, LG_SHAPE_MAX_RANK));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "diagonal", diag, LG_SHAPE_MAX_RANK));
  if (diag->type != input->type) {
    lg_kernel_log(context, op, "diagonal type %s differs from input type %s",
                  TfLiteTypeGetName(diag->type),
                  TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  const int rank = lg_shape_dims(input, dims);
  if (rank < 2) {
    lg_kernel_log(context, op, "input must have rank >= 2");
    return kTfLiteError;
  }
  const int m = dims[rank - 2], n = dims[rank - 1];
  bool ok = diag->dims->size == rank - 1 &&
            diag->dims->data[rank - 2] == (m < n ? m : n);
  for (int i = 0; ok && i < rank - 2; ++i) ok = diag->dims->data[i] == dims[i];
  if (!ok) {
    char a[LG_SHAPE_TEXT], b[LG_SHAPE_TEXT];
    lg_kernel_log(context, op,
                  "diagonal %s does not match input %s (input.shape[:-2] + "
                  "[min(M, N)])",
                  lg_kernel_format_shape(diag->dims, a, sizeof(a)),
                  lg_kernel_format_shape(input->dims, b, sizeof(b)));
    return kTfLiteError;
  }
  return lg_shape_resize(context, op, output, dims, rank);
}

static TfLiteStatus lg_diag_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_diag_data* op_data = node->user_data;
  const char* op = op_data->name;
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  const int64_t total = lg_kernel_num_elements(output);
  if (total == 0) return kTfLiteOk;
  size_t elem = 0;
  TfLiteGetSizeOfType(output->type, &elem);
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  const int rank = output->dims->size;
  const int m = output->dims->data[rank - 2], n = output->dims->data[rank - 1];
  const int k = m < n ? m : n;
  const int64_t batches = lg_shape_product(output->dims->data, 0, rank - 2);
  const char* diag = input->data.raw_const;
  if (op_data->set) {
    const TfLiteTensor* d = &context->tensors[node->inputs->data[1]];
    if (output->data.raw != input->data.raw) {
      memcpy(output->data.raw, input->data.raw_const, (size_t)total * elem);
    }
    TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "diagonal", d));
    diag = d->data.raw_const;
  } else {
    memset(output->data.raw, 0, (size_t)total * elem);
  }
  for (int64_t b = 0; b < batches; ++b) {
    char* mat = output->data.raw + (size_t)(b * m * n) * elem;
    const char* src = diag + (size_t)(b * k) * elem;
    for (int i = 0; i < k; ++i) {
      memcpy(mat + (size_t)((int64_t)i * n + i) * elem, src + (size_t)i * elem,
             elem);
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_FAMILY_REGISTRATION(MATRIX_DIAG, lg_diag, 0)
LG_KERNEL_FAMILY_REGISTRATION(MATRIX_SET_DIAG, lg_diag, 1)
