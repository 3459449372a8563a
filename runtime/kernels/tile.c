/* TILE and BROADCAST_TO: the input repeated.
 *
 * TILE (inputs: input, multiples) repeats the input multiples[d] times along
 * each dim d (multiples >= 0). BROADCAST_TO (inputs: input, shape) stretches
 * the input to `shape` with numpy's rule: the input is aligned at the last
 * dim, and each of its dims must equal the target dim or be 1.
 *
 * Both are one lg_shape_copy whose source strides are 0 along repeated
 * dims. TILE views each dim d as two loop dims (multiple, dim) with source
 * strides (0, stride_d), so the innermost loop still copies whole input
 * rows. Non-constant multiples / shape make the output dynamic.
 *
 * TILE also repeats STRING inputs (version 2, as TFLite; BROADCAST_TO
 * rejects them, as TFLite's does): a dynamic STRING output written in
 * Invoke by the interpreter's string writer, each output string found
 * through the copy plan as it was before lg_shape_copy_finish.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "runtime/string_tensor.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_TILE_OP "TILE"
#define LG_BROADCAST_TO_OP "BROADCAST_TO"

enum {
  kInputTensor = 0,
  kMultiplesTensor = 1, /* TILE */
  kShapeTensor = 1,     /* BROADCAST_TO */
  kOutputTensor = 0,
};

typedef struct lg_tile_data {
  bool prepared;
  bool dynamic; /* the plan is built in Invoke */
  lg_shape_copy copy;
  lg_shape_copy order; /* the copy before finish (STRING inputs) */
  int64_t in_elements;
  int64_t out_elements;
} lg_tile_data;

static void* lg_tile_init(TfLiteContext* context, const char* buffer,
                          size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_tile_data));
}

/* Row-major element strides of dims[0..rank). */
static void lg_tile_strides(const int* dims, int rank, ptrdiff_t* stride) {
  ptrdiff_t s = 1;
  for (int k = rank - 1; k >= 0; --k) {
    stride[k] = s;
    s *= dims[k];
  }
}

/* Checks the output size and resizes to dims[0..rank). */
static TfLiteStatus lg_tile_finish(TfLiteContext* context, const char* op,
                                   lg_tile_data* data,
                                   const TfLiteTensor* input,
                                   TfLiteTensor* output, const int* dims,
                                   int rank) {
  data->order = data->copy;
  lg_shape_copy_finish(&data->copy);
  data->in_elements = lg_kernel_num_elements(input);
  data->out_elements = data->copy.elements;
  return lg_shape_resize(context, op, output, dims, rank);
}

/* ---- TILE ---------------------------------------------------------------*/

static TfLiteStatus lg_tile_build(TfLiteContext* context, TfLiteNode* node,
                                  lg_tile_data* data) {
  const TfLiteTensor *input, *multiples;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_TILE_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_TILE_OP, kMultiplesTensor, &multiples));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_TILE_OP, kOutputTensor, &output));
  int in_dims[LG_SHAPE_MAX_RANK];
  const int rank = lg_shape_dims(input, in_dims);
  char shape[LG_SHAPE_TEXT];
  if (multiples->dims == NULL || multiples->dims->size != 1 ||
      multiples->dims->data[0] != rank) {
    lg_kernel_log(
        context, LG_TILE_OP,
        "multiples must be 1-D with %d elements (the input rank), "
        "got %s",
        rank, lg_kernel_format_shape(multiples->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  int64_t m[LG_SHAPE_MAX_RANK];
  int count = 0;
  TF_LITE_ENSURE_STATUS(lg_shape_read_ints(context, LG_TILE_OP, "multiples",
                                           multiples, LG_SHAPE_MAX_RANK, m,
                                           &count));
  int out_dims[LG_SHAPE_MAX_RANK];
  int64_t elements = 1;
  for (int d = 0; d < rank; ++d) {
    if (m[d] < 0 || m[d] > INT_MAX || m[d] * in_dims[d] > INT_MAX) {
      lg_kernel_log(context, LG_TILE_OP,
                    "multiples[%d] = %lld is out of range for dim %d (size %d)",
                    d, (long long)m[d], d, in_dims[d]);
      return kTfLiteError;
    }
    out_dims[d] = (int)(m[d] * in_dims[d]);
    elements = lg_shape_mul_capped(elements, out_dims[d], (int64_t)INT_MAX + 1);
  }
  if (elements > INT_MAX) {
    lg_kernel_log(context, LG_TILE_OP, "the output has more than %d elements",
                  INT_MAX);
    return kTfLiteError;
  }
  ptrdiff_t in_stride[LG_SHAPE_MAX_RANK], out_stride[LG_SHAPE_MAX_RANK];
  lg_tile_strides(in_dims, rank, in_stride);
  lg_tile_strides(out_dims, rank, out_stride);
  size_t size = 0;
  TfLiteGetSizeOfType(input->type, &size);
  lg_shape_copy_init(&data->copy, size);
  for (int d = 0; d < rank; ++d) {
    /* Output dim d = (repeat, dim): repeat r starts at r * in_dims[d]. */
    lg_shape_copy_add_dim(&data->copy, (int)m[d], 0,
                          out_stride[d] * in_dims[d]);
    lg_shape_copy_add_dim(&data->copy, in_dims[d], in_stride[d], out_stride[d]);
  }
  return lg_tile_finish(context, LG_TILE_OP, data, input, output, out_dims,
                        rank);
}

/* ---- BROADCAST_TO -------------------------------------------------------*/

static TfLiteStatus lg_broadcast_build(TfLiteContext* context, TfLiteNode* node,
                                       lg_tile_data* data) {
  const char* op = LG_BROADCAST_TO_OP;
  const TfLiteTensor *input, *shape;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kShapeTensor, &shape));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  char text[LG_SHAPE_TEXT], text2[LG_SHAPE_TEXT];
  if (shape->dims == NULL || shape->dims->size != 1) {
    lg_kernel_log(context, op, "shape must be 1-D, got %s",
                  lg_kernel_format_shape(shape->dims, text, sizeof(text)));
    return kTfLiteError;
  }
  int64_t v[LG_SHAPE_MAX_RANK];
  int rank = 0;
  TF_LITE_ENSURE_STATUS(lg_shape_read_ints(context, op, "shape", shape,
                                           LG_SHAPE_MAX_RANK, v, &rank));
  int out_dims[LG_SHAPE_MAX_RANK];
  for (int d = 0; d < rank; ++d) {
    out_dims[d] = v[d] < 0 || v[d] > INT_MAX ? -1 : (int)v[d];
  }
  const int in_rank = input->dims->size, lead = rank - in_rank;
  bool ok = lead >= 0;
  for (int d = 0; d < rank; ++d) ok = ok && out_dims[d] >= 0;
  for (int d = 0; ok && d < in_rank; ++d) {
    const int dim = input->dims->data[d];
    ok = dim == out_dims[lead + d] || dim == 1;
  }
  const int64_t elements = ok ? lg_shape_product(out_dims, 0, rank) : 0;
  if (!ok || elements > INT_MAX) {
    lg_kernel_log(context, op, "cannot broadcast input %s to shape %s",
                  lg_kernel_format_shape(input->dims, text, sizeof(text)),
                  lg_shape_format_dims(out_dims, rank, text2, sizeof(text2)));
    return kTfLiteError;
  }
  ptrdiff_t in_stride[LG_SHAPE_MAX_RANK], out_stride[LG_SHAPE_MAX_RANK];
  lg_tile_strides(input->dims->data, in_rank, in_stride);
  lg_tile_strides(out_dims, rank, out_stride);
  size_t size = 0;
  TfLiteGetSizeOfType(input->type, &size);
  lg_shape_copy_init(&data->copy, size);
  for (int d = 0; d < rank; ++d) {
    const bool repeat = d < lead || input->dims->data[d - lead] == 1;
    lg_shape_copy_add_dim(&data->copy, out_dims[d],
                          repeat ? 0 : in_stride[d - lead], out_stride[d]);
  }
  return lg_tile_finish(context, op, data, input, output, out_dims, rank);
}

/* ---- Both ---------------------------------------------------------------*/

static TfLiteStatus lg_tile_prepare_op(
    TfLiteContext* context, TfLiteNode* node, const char* op,
    TfLiteStatus (*build)(TfLiteContext*, TfLiteNode*, lg_tile_data*)) {
  lg_tile_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, op, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  data->dynamic = false;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  const TfLiteTensor *input, *second;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &second));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  const uint32_t strings =
      build == lg_tile_build ? LG_SHAPE_TYPE(kTfLiteString) : 0;
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "input", input->type,
                                            LG_SHAPE_TYPES_MOVE | strings));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, input, output));
  if (output->type == kTfLiteString) lg_kernel_set_dynamic(output);
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "input", input, LG_SHAPE_MAX_RANK));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, build == lg_tile_build ? "multiples" : "shape", second->type,
      LG_SHAPE_TYPES_INDEX));
  if (lg_kernel_is_constant(second)) {
    TF_LITE_ENSURE_STATUS(build(context, node, data));
  } else {
    lg_kernel_set_dynamic(output);
    data->dynamic = true;
  }
  data->prepared = true;
  return kTfLiteOk;
}

/* STRING: which input string output string k is. */
static int64_t lg_tile_string_at(const void* ctx, int64_t k) {
  return lg_shape_copy_source(&((const lg_tile_data*)ctx)->order, k);
}

static TfLiteStatus lg_tile_invoke_op(
    TfLiteContext* context, TfLiteNode* node, const char* op,
    TfLiteStatus (*build)(TfLiteContext*, TfLiteNode*, lg_tile_data*)) {
  lg_tile_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, op, "invoked before a successful prepare");
    return kTfLiteError;
  }
  if (data->dynamic) TF_LITE_ENSURE_STATUS(build(context, node, data));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  if (lg_kernel_num_elements(input) != data->in_elements ||
      lg_kernel_num_elements(output) != data->out_elements) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (input->type == kTfLiteString) {
    TF_LITE_ENSURE_STATUS(lg_string_check_input(context, op, "input", input));
    return lg_string_write_mapped(context, op, output, input,
                                  output->dims->data, output->dims->size,
                                  lg_tile_string_at, data);
  }
  if (data->out_elements == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  lg_shape_copy_run(&data->copy, input->data.raw, output->data.raw);
  return kTfLiteOk;
}

static TfLiteStatus lg_tile_prepare(TfLiteContext* context, TfLiteNode* node) {
  return lg_tile_prepare_op(context, node, LG_TILE_OP, lg_tile_build);
}

static TfLiteStatus lg_tile_invoke(TfLiteContext* context, TfLiteNode* node) {
  return lg_tile_invoke_op(context, node, LG_TILE_OP, lg_tile_build);
}

static TfLiteStatus lg_broadcast_prepare(TfLiteContext* context,
                                         TfLiteNode* node) {
  return lg_tile_prepare_op(context, node, LG_BROADCAST_TO_OP,
                            lg_broadcast_build);
}

static TfLiteStatus lg_broadcast_invoke(TfLiteContext* context,
                                        TfLiteNode* node) {
  return lg_tile_invoke_op(context, node, LG_BROADCAST_TO_OP,
                           lg_broadcast_build);
}

LG_KERNEL_REGISTRATION(TILE, lg_tile_init, lg_kernel_free_data, lg_tile_prepare,
                       lg_tile_invoke)

LG_KERNEL_REGISTRATION(BROADCAST_TO, lg_tile_init, lg_kernel_free_data,
                       lg_broadcast_prepare, lg_broadcast_invoke)
