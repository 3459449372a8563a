/* DEPTH_TO_SPACE and SPACE_TO_DEPTH on NHWC tensors with block size b.
 *
 * DEPTH_TO_SPACE: [N, H, W, C] -> [N, H*b, W*b, C/(b*b)] with
 *   out[n, h*b + i, w*b + j, c] = in[n, h, w, (i*b + j) * C/(b*b) + c].
 * SPACE_TO_DEPTH: [N, H, W, C] -> [N, H/b, W/b, C*b*b] with
 *   out[n, h, w, (i*b + j) * C + c] = in[n, h*b + i, w*b + j, c].
 * Each is one 6-D lg_shape_copy over (n, h, i, w, j, c) or (n, h, w, i, j,
 * c) in output order; the innermost C run is contiguous on both sides.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_DEPTH_TO_SPACE_OP "DEPTH_TO_SPACE"
#define LG_SPACE_TO_DEPTH_OP "SPACE_TO_DEPTH"

/* LiteRT's kernels take neither int16 nor bool here. */
#define LG_SPACE_DEPTH_TYPES                                     \
  (LG_SHAPE_TYPE(kTfLiteFloat32) | LG_SHAPE_TYPE(kTfLiteInt32) | \
   LG_SHAPE_TYPE(kTfLiteInt64) | LG_SHAPE_TYPE(kTfLiteInt8) |    \
   LG_SHAPE_TYPE(kTfLiteUInt8))

enum { kInputTensor = 0, kOutputTensor = 0 };

typedef struct lg_space_depth_data {
  bool prepared;
  lg_shape_copy copy;
  int64_t elements;
} lg_space_depth_data;

static void* lg_space_depth_init(TfLiteContext* context, const char* buffer,
                                 size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_space_depth_data));
}

/* The 6-D copy of DEPTH_TO_SPACE (to_space) or SPACE_TO_DEPTH, and the
 * output dims. The shape checks are done. */
static void lg_space_depth_plan(lg_space_depth_data* data, bool to_space,
                                const int* in, int b, size_t size, int* out) {
  const ptrdiff_t N = in[0], H = in[1], W = in[2], C = in[3];
  lg_shape_copy* copy = &data->copy;
  lg_shape_copy_init(copy, size);
  if (to_space) {
    const ptrdiff_t c = C / ((ptrdiff_t)b * b), Wo = W * b;
    out[0] = (int)N, out[1] = (int)(H * b), out[2] = (int)Wo, out[3] = (int)c;
    lg_shape_copy_add_dim(copy, (int)N, H * W * C, H * b * Wo * c);
    lg_shape_copy_add_dim(copy, (int)H, W * C, b * Wo * c);
    lg_shape_copy_add_dim(copy, b, b * c, Wo * c);
    lg_shape_copy_add_dim(copy, (int)W, C, b * c);
    lg_shape_copy_add_dim(copy, b, c, c);
    lg_shape_copy_add_dim(copy, (int)c, 1, 1);
  } else {
    const ptrdiff_t Ho = H / b, Wo = W / b, Co = C * b * b;
    out[0] = (int)N, out[1] = (int)Ho, out[2] = (int)Wo, out[3] = (int)Co;
    lg_shape_copy_add_dim(copy, (int)N, H * W * C, Ho * Wo * Co);
    lg_shape_copy_add_dim(copy, (int)Ho, b * W * C, Wo * Co);
    lg_shape_copy_add_dim(copy, (int)Wo, b * C, Co);
    lg_shape_copy_add_dim(copy, b, W * C, b * C);
    lg_shape_copy_add_dim(copy, b, C, C);
    lg_shape_copy_add_dim(copy, (int)C, 1, 1);
  }
  lg_shape_copy_finish(copy);
}

/* Checks the shape against the block size; messages name the problem. */
static TfLiteStatus lg_space_depth_check(TfLiteContext* context, const char* op,
                                         bool to_space,
                                         const TfLiteTensor* input, int b) {
  char shape[LG_SHAPE_TEXT];
  lg_kernel_format_shape(input->dims, shape, sizeof(shape));
  if (input->dims->size != 4) {
    lg_kernel_log(context, op, "input must be 4-D (NHWC), got %s", shape);
    return kTfLiteError;
  }
  if (b < 1 || b > 65535) {
    lg_kernel_log(context, op, "block_size %d is out of range [1, 65535]", b);
    return kTfLiteError;
  }
  const int* d = input->dims->data;
  if (to_space && d[3] % (b * b) != 0) {
    lg_kernel_log(context, op,
                  "input depth %d of %s is not a multiple of block_size^2 = %d",
                  d[3], shape, b * b);
    return kTfLiteError;
  }
  if (!to_space && (d[1] % b != 0 || d[2] % b != 0)) {
    lg_kernel_log(context, op,
                  "input height and width of %s are not multiples of "
                  "block_size %d",
                  shape, b);
    return kTfLiteError;
  }
  if (to_space &&
      ((int64_t)d[1] * b > INT_MAX || (int64_t)d[2] * b > INT_MAX)) {
    lg_kernel_log(context, op, "the output of %s is too large", shape);
    return kTfLiteError;
  }
  if (!to_space && (int64_t)d[3] * b * b > INT_MAX) {
    lg_kernel_log(context, op, "the output of %s is too large", shape);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_space_depth_prepare(TfLiteContext* context,
                                           TfLiteNode* node, const char* op,
                                           bool to_space, int block_size) {
  lg_space_depth_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, op, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 1, 1, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "input", input->type,
                                            LG_SPACE_DEPTH_TYPES));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, input, output));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(
      lg_space_depth_check(context, op, to_space, input, block_size));
  size_t size = 0;
  TfLiteGetSizeOfType(input->type, &size);
  int out[4];
  lg_space_depth_plan(data, to_space, input->dims->data, block_size, size, out);
  data->elements = lg_kernel_num_elements(input);
  TF_LITE_ENSURE_STATUS(lg_shape_resize(context, op, output, out, 4));
  data->prepared = true;
  return kTfLiteOk;
}

static TfLiteStatus lg_space_depth_invoke(TfLiteContext* context,
                                          TfLiteNode* node, const char* op) {
  const lg_space_depth_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, op, "invoked before a successful prepare");
    return kTfLiteError;
  }
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  if (lg_kernel_num_elements(input) != data->elements ||
      lg_kernel_num_elements(output) != data->elements) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (data->elements == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  lg_shape_copy_run(&data->copy, input->data.raw, output->data.raw);
  return kTfLiteOk;
}

static TfLiteStatus lg_depth_to_space_prepare(TfLiteContext* context,
                                              TfLiteNode* node) {
  const TfLiteDepthToSpaceParams* params = node->builtin_data;
  return lg_space_depth_prepare(context, node, LG_DEPTH_TO_SPACE_OP, true,
                                params != NULL ? params->block_size : 0);
}

static TfLiteStatus lg_depth_to_space_invoke(TfLiteContext* context,
                                             TfLiteNode* node) {
  return lg_space_depth_invoke(context, node, LG_DEPTH_TO_SPACE_OP);
}

static TfLiteStatus lg_space_to_depth_prepare(TfLiteContext* context,
                                              TfLiteNode* node) {
  const TfLiteSpaceToDepthParams* params = node->builtin_data;
  return lg_space_depth_prepare(context, node, LG_SPACE_TO_DEPTH_OP, false,
                                params != NULL ? params->block_size : 0);
}

static TfLiteStatus lg_space_to_depth_invoke(TfLiteContext* context,
                                             TfLiteNode* node) {
  return lg_space_depth_invoke(context, node, LG_SPACE_TO_DEPTH_OP);
}

LG_KERNEL_REGISTRATION(DEPTH_TO_SPACE, lg_space_depth_init, lg_kernel_free_data,
                       lg_depth_to_space_prepare, lg_depth_to_space_invoke)

LG_KERNEL_REGISTRATION(SPACE_TO_DEPTH, lg_space_depth_init, lg_kernel_free_data,
                       lg_space_to_depth_prepare, lg_space_to_depth_invoke)
