/* REVERSE_SEQUENCE: for each index b along batch_dim, the first
 * seq_lengths[b] elements along seq_dim are reversed; the rest are copied.
 * seq_dim and batch_dim (ReverseSequenceOptions) are distinct non-negative
 * axes of the input, seq_lengths a 1-D INT32 or INT64 tensor with one
 * length per batch index, each in [0, input.shape[seq_dim]] (a length out
 * of range fails Invoke naming it). Inputs FLOAT32, INT32, INT64, INT16 or
 * UINT8 (TFLite's types).
 */
#include <stdint.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_REVSEQ_OP "REVERSE_SEQUENCE"
#define LG_REVSEQ_TYPES                                          \
  (LG_SHAPE_TYPE(kTfLiteFloat32) | LG_SHAPE_TYPE(kTfLiteInt32) | \
   LG_SHAPE_TYPE(kTfLiteInt64) | LG_SHAPE_TYPE(kTfLiteInt16) |   \
   LG_SHAPE_TYPE(kTfLiteUInt8))

static TfLiteStatus lg_revseq_prepare(TfLiteContext* context,
                                      TfLiteNode* node) {
  const char* op = LG_REVSEQ_OP;
  const TfLiteTensor *input, *lengths;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &lengths));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_type(context, op, "input", input->type, LG_REVSEQ_TYPES));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, input, output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "seq_lengths", lengths->type, LG_SHAPE_TYPES_INDEX));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "input", input, LG_SHAPE_MAX_RANK));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, op, "seq_lengths", lengths));
  const TfLiteReverseSequenceParams* params = node->builtin_data;
  const int seq = params != NULL ? params->seq_dim : 0;
  const int batch = params != NULL ? params->batch_dim : 0;
  const int rank = input->dims->size;
  if (seq < 0 || batch < 0 || seq >= rank || batch >= rank || seq == batch) {
    lg_kernel_log(context, op,
                  "seq_dim %d and batch_dim %d must be distinct axes in [0, "
                  "%d)",
                  seq, batch, rank);
    return kTfLiteError;
  }
  if (lengths->dims->size != 1 ||
      lengths->dims->data[0] != input->dims->data[batch]) {
    char a[LG_SHAPE_TEXT];
    lg_kernel_log(context, op,
                  "seq_lengths %s must be 1-D with one length per batch "
                  "index (%d)",
                  lg_kernel_format_shape(lengths->dims, a, sizeof(a)),
                  input->dims->data[batch]);
    return kTfLiteError;
  }
  int dims[LG_SHAPE_MAX_RANK];
  lg_shape_dims(input, dims);
  return lg_shape_resize(context, op, output, dims, rank);
}

static TfLiteStatus lg_revseq_invoke(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_REVSEQ_OP;
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  const TfLiteTensor* lengths = &context->tensors[node->inputs->data[1]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  const TfLiteReverseSequenceParams* params = node->builtin_data;
  const int seq = params != NULL ? params->seq_dim : 0;
  const int batch = params != NULL ? params->batch_dim : 0;
  const int64_t total = lg_kernel_num_elements(input);
  if (total == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, op, "seq_lengths", lengths));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  const int rank = input->dims->size;
  const int seq_size = input->dims->data[seq];
  const int batches = input->dims->data[batch];
  for (int b = 0; b < batches; ++b) {
    const int64_t len = lg_shape_int_at(lengths, b);
    if (len < 0 || len > seq_size) {
      lg_kernel_log(context, op,
                    "seq_lengths[%d] = %lld is out of range [0, %d]", b,
                    (long long)len, seq_size);
      return kTfLiteError;
    }
  }
  const int64_t seq_stride = lg_shape_product(input->dims->data, seq + 1, rank);
  const int64_t batch_stride =
      lg_shape_product(input->dims->data, batch + 1, rank);
  size_t elem = 0;
  TfLiteGetSizeOfType(input->type, &elem);
  for (int64_t i = 0; i < total; ++i) {
    const int64_t s = (i / seq_stride) % seq_size;
    const int64_t b = (i / batch_stride) % batches;
    const int64_t len = lg_shape_int_at(lengths, b);
    const int64_t src = s < len ? i + (len - 1 - 2 * s) * seq_stride : i;
    memcpy(output->data.raw + (size_t)i * elem,
           input->data.raw_const + (size_t)src * elem, elem);
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(REVERSE_SEQUENCE, NULL, NULL, lg_revseq_prepare,
                       lg_revseq_invoke)
