/* STABLEHLO_PAD: the operand (input 0, rank 1..8) with edge_padding_low[i]
 * elements before and edge_padding_high[i] after each dim i and
 * interior_padding[i] between its elements, all of them the padding value
 * (input 1, one element of the operand's type); negative edge padding
 * crops (StableHLO's pad, TfLiteStablehloPadParams from builtin_options_2).
 *
 * Output dim i = d + max(d - 1, 0) * interior + low + high (StableHLO's
 * formula, which LiteRT 2.3 follows, also for d = 0); when any of them is 0
 * or less the output is empty, with every dim 0 (as LiteRT's kernel). Interior
 * padding must be >= 0; edge paddings and interior padding beyond +-INT32_MAX
 * and output dims beyond INT32_MAX are rejected. Any type of 1, 2, 4 or 8
 * bytes: the kernel moves bytes.
 *
 * Invoke fills the output with the padding value, then places each operand
 * element e (index j_i in dim i) at low_i + j_i * (interior_i + 1) when that
 * lies inside every output dim (cropped elements are skipped).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_SHLO_PAD_OP "STABLEHLO_PAD"
#define LG_SHLO_PAD_MAX_RANK TFLITE_STABLEHLO_PAD_PARAMS_MAX_DIMENSION_COUNT

#define LG_SHLO_PAD_TYPES                                           \
  (LG_SHAPE_TYPES_MOVE | LG_SHAPE_TYPE(kTfLiteFloat16) |            \
   LG_SHAPE_TYPE(kTfLiteBFloat16) | LG_SHAPE_TYPE(kTfLiteFloat64) | \
   LG_SHAPE_TYPE(kTfLiteUInt16) | LG_SHAPE_TYPE(kTfLiteUInt32) |    \
   LG_SHAPE_TYPE(kTfLiteUInt64))

typedef struct lg_shlo_pad_data {
  bool prepared;
  bool empty; /* an output dim is <= 0: the output has no elements */
  int rank;
  size_t elem;
  int in_dims[LG_SHLO_PAD_MAX_RANK];
  int out_dims[LG_SHLO_PAD_MAX_RANK];
  int64_t low[LG_SHLO_PAD_MAX_RANK];
  int64_t step[LG_SHLO_PAD_MAX_RANK]; /* interior + 1 */
  int64_t out_strides[LG_SHLO_PAD_MAX_RANK];
} lg_shlo_pad_data;

static void* lg_shlo_pad_init(TfLiteContext* context, const char* buffer,
                              size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_shlo_pad_data));
}

static TfLiteStatus lg_shlo_pad_check_param(TfLiteContext* context,
                                            const char* name, int dim,
                                            int64_t value, int64_t lo) {
  if (value < lo || value > INT32_MAX) {
    lg_kernel_log(context, LG_SHLO_PAD_OP,
                  "%s[%d] = %lld is out of range [%lld, %d]", name, dim,
                  (long long)value, (long long)lo, INT32_MAX);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_shlo_pad_prepare(TfLiteContext* context,
                                        TfLiteNode* node) {
  const char* op = LG_SHLO_PAD_OP;
  lg_shlo_pad_data* data = node->user_data;
  const TfLiteStablehloPadParams* params = node->builtin_data;
  if (data == NULL || params == NULL) {
    lg_kernel_log(context, op, "no %s",
                  data == NULL ? "kernel data" : "params");
    return kTfLiteError;
  }
  data->prepared = false;
  const TfLiteTensor *input, *value;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &value));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "operand", input->type,
                                            LG_SHLO_PAD_TYPES));
  if (value->type != input->type) {
    lg_kernel_log(context, op,
                  "padding value type %s differs from operand "
                  "type %s",
                  TfLiteTypeGetName(value->type),
                  TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, input, output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "operand", input, LG_SHLO_PAD_MAX_RANK));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, op, "padding value", value));
  if (lg_kernel_num_elements(value) != 1) {
    lg_kernel_log(context, op, "the padding value has %lld elements, not 1",
                  (long long)lg_kernel_num_elements(value));
    return kTfLiteError;
  }
  const int rank = input->dims->size;
  if (rank < 1) {
    lg_kernel_log(context, op, "the operand is a scalar (rank 1 to %d)",
                  LG_SHLO_PAD_MAX_RANK);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(TfLiteGetSizeOfType(input->type, &data->elem));
  data->rank = rank;
  data->empty = false;
  for (int i = 0; i < rank; ++i) {
    const int64_t low = params->edge_padding_low[i];
    const int64_t high = params->edge_padding_high[i];
    const int64_t interior = params->interior_padding[i];
    TF_LITE_ENSURE_STATUS(lg_shlo_pad_check_param(context, "edge_padding_low",
                                                  i, low, -(int64_t)INT32_MAX));
    TF_LITE_ENSURE_STATUS(lg_shlo_pad_check_param(
        context, "edge_padding_high", i, high, -(int64_t)INT32_MAX));
    TF_LITE_ENSURE_STATUS(
        lg_shlo_pad_check_param(context, "interior_padding", i, interior, 0));
    const int64_t d = input->dims->data[i];
    /* |each term| < 2^62: no overflow. */
    const int64_t out = d + (d > 0 ? d - 1 : 0) * interior + low + high;
    if (out > INT32_MAX) {
      lg_kernel_log(context, op, "output dim %d would be %lld, above %d", i,
                    (long long)out, INT32_MAX);
      return kTfLiteError;
    }
    if (out <= 0) data->empty = true;
    data->in_dims[i] = (int)d;
    data->out_dims[i] = out > 0 ? (int)out : 0;
    data->low[i] = low;
    data->step[i] = interior + 1;
  }
  if (data->empty) {
    for (int i = 0; i < rank; ++i) data->out_dims[i] = 0;
  }
  int64_t elements = 1;
  for (int i = rank - 1; i >= 0; --i) {
    data->out_strides[i] = elements;
    elements = lg_shape_mul_capped(elements, data->out_dims[i], INT64_MAX / 16);
  }
  if (elements >= INT64_MAX / 16 ||
      (uint64_t)elements > SIZE_MAX / data->elem) {
    lg_kernel_log(context, op, "the output has too many elements");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      lg_shape_resize(context, op, output, data->out_dims, rank));
  data->prepared = true;
  return kTfLiteOk;
}

static TfLiteStatus lg_shlo_pad_invoke(TfLiteContext* context,
                                       TfLiteNode* node) {
  const char* op = LG_SHLO_PAD_OP;
  const lg_shlo_pad_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, op, "invoked before a successful prepare");
    return kTfLiteError;
  }
  const TfLiteTensor *input, *value;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &value));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  const int rank = data->rank;
  if (input->dims->size != rank || output->dims->size != rank) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  for (int i = 0; i < rank; ++i) {
    if (input->dims->data[i] != data->in_dims[i] ||
        output->dims->data[i] != data->out_dims[i]) {
      lg_kernel_log(context, op, "tensor shapes changed since prepare");
      return kTfLiteError;
    }
  }
  const int64_t out_elements = lg_kernel_num_elements(output);
  if (out_elements == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, op, "padding value", value));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  const size_t elem = data->elem;
  char* out = output->data.raw;
  const char* pad = value->data.raw_const;
  for (int64_t k = 0; k < out_elements; ++k) {
    memcpy(out + (size_t)k * elem, pad, elem);
  }
  const int64_t in_elements = lg_kernel_num_elements(input);
  if (in_elements == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "operand", input));
  const char* in = input->data.raw_const;
  int64_t index[LG_SHLO_PAD_MAX_RANK] = {0};
  for (int64_t k = 0; k < in_elements; ++k) {
    int64_t at = 0;
    bool inside = true;
    for (int i = 0; i < rank; ++i) {
      const int64_t o = data->low[i] + index[i] * data->step[i];
      if (o < 0 || o >= data->out_dims[i]) {
        inside = false;
        break;
      }
      at += o * data->out_strides[i];
    }
    if (inside) memcpy(out + (size_t)at * elem, in + (size_t)k * elem, elem);
    for (int i = rank - 1; i >= 0; --i) {
      if (++index[i] < data->in_dims[i]) break;
      index[i] = 0;
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(STABLEHLO_PAD, lg_shlo_pad_init, lg_kernel_free_data,
                       lg_shlo_pad_prepare, lg_shlo_pad_invoke)
