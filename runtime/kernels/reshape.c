/* RESHAPE, SQUEEZE and EXPAND_DIMS: the output holds the input's elements
 * in the same order under a new shape, so Invoke is one memcpy, or nothing
 * where the memory planner made the output share the input's memory
 * (runtime/execute.c, alias_reshapes).
 *
 * RESHAPE takes the new shape from its second input when that is a 1-D
 * INT32 or INT64 tensor, else from the options' new_shape (where the legacy
 * value [0] means a scalar, as in TFLite). One dim may be -1 and is then
 * inferred from the element count. SQUEEZE drops the dims listed in
 * squeeze_dims (negative counts from the end), or every dim of size 1 when
 * the list is empty. EXPAND_DIMS inserts a dim of 1 at the position given by
 * its axis input, in [-rank-1, rank].
 *
 * A shape or axis input that is not constant makes the output dynamic: its
 * shape is computed in Invoke.
 *
 * STRING inputs (TFLite's kernels take them: RESHAPE and EXPAND_DIMS at
 * version 1, SQUEEZE at 2) give a dynamic STRING output that Invoke writes
 * with the interpreter's string writer: the same strings under the new
 * shape.
 */
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

#define LG_RESHAPE_OP "RESHAPE"
#define LG_SQUEEZE_OP "SQUEEZE"
#define LG_EXPAND_DIMS_OP "EXPAND_DIMS"

enum {
  kInputTensor = 0,
  kShapeTensor = 1, /* RESHAPE */
  kAxisTensor = 1,  /* EXPAND_DIMS */
  kOutputTensor = 0,
};

/* Per-node state shared by the three ops. */
typedef struct lg_reshape_data {
  bool prepared;
  bool dynamic; /* the output shape is computed in Invoke */
} lg_reshape_data;

static void* lg_reshape_init(TfLiteContext* context, const char* buffer,
                             size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_reshape_data));
}

/* The common start of Prepare: node data, tensor count, tensors and types. */
static TfLiteStatus lg_reshape_begin(TfLiteContext* context, TfLiteNode* node,
                                     const char* op, int min_inputs,
                                     int max_inputs, lg_reshape_data** data,
                                     const TfLiteTensor** input,
                                     TfLiteTensor** output) {
  *data = node->user_data;
  if (*data == NULL) {
    lg_kernel_log(context, op, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  (*data)->prepared = false;
  (*data)->dynamic = false;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_io(context, node, op, min_inputs, max_inputs, 1));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_type(context, op, "input", (*input)->type,
                          LG_SHAPE_TYPES_MOVE | LG_SHAPE_TYPE(kTfLiteString)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, *input, *output));
  if ((*output)->type == kTfLiteString) lg_kernel_set_dynamic(*output);
  return lg_shape_check_rank(context, op, "input", *input, LG_SHAPE_MAX_RANK);
}

/* The common Invoke: the output holds the input's bytes. */
static TfLiteStatus lg_reshape_copy(TfLiteContext* context, const char* op,
                                    const TfLiteTensor* input,
                                    TfLiteTensor* output) {
  const int64_t n = lg_kernel_num_elements(input);
  if (lg_kernel_num_elements(output) != n) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (input->type == kTfLiteString) {
    TF_LITE_ENSURE_STATUS(lg_string_check_input(context, op, "input", input));
    return lg_string_write_mapped(context, op, output, input,
                                  output->dims->data, output->dims->size, NULL,
                                  NULL);
  }
  if (n == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  size_t size = 0;
  TfLiteGetSizeOfType(input->type, &size);
  if (output->data.raw != input->data.raw) {
    memmove(output->data.raw, input->data.raw, (size_t)n * size);
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_reshape_check_invoke(TfLiteContext* context,
                                            const char* op,
                                            const lg_reshape_data* data) {
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, op, "invoked before a successful prepare");
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* ---- RESHAPE ------------------------------------------------------------*/

/* Whether RESHAPE reads its shape from input 1 (TFLite's rule: present and
 * 1-D; TFLite itself only takes INT32 there). */
static const TfLiteTensor* lg_reshape_shape_input(TfLiteContext* context,
                                                  TfLiteNode* node) {
  const TfLiteTensor* shape = NULL;
  if (lg_kernel_optional_input(context, node, LG_RESHAPE_OP, kShapeTensor,
                               &shape) != kTfLiteOk ||
      shape == NULL || shape->dims == NULL || shape->dims->size != 1) {
    return NULL;
  }
  return shape;
}

/* The product of the non-zero entries of dims[0..rank) other than `skip`,
 * saturated at 2^40: a factor that would take it past stops it there before
 * multiplying (2^40 times a dim near 2^31 overflowed int64, found by
 * fuzz_interpreter). */
static int64_t lg_reshape_nonzero_product(const int* dims, int rank, int skip) {
  const int64_t cap = (int64_t)1 << 40;
  int64_t product = 1;
  for (int i = 0; i < rank; ++i) {
    if (i == skip || dims[i] == 0) continue;
    product = product > cap / dims[i] ? cap : product * dims[i];
  }
  return product;
}

/* Resolves the -1 in `dims` and checks the element count. */
static TfLiteStatus lg_reshape_resolve(TfLiteContext* context,
                                       const TfLiteTensor* input, int* dims,
                                       int rank) {
  char text[LG_SHAPE_TEXT], want[LG_SHAPE_TEXT];
  lg_shape_format_dims(dims, rank, want, sizeof(want));
  int stretch = -1;
  for (int i = 0; i < rank; ++i) {
    if (dims[i] >= 0) continue;
    if (dims[i] == -1 && stretch < 0) {
      stretch = i;
      continue;
    }
    lg_kernel_log(context, LG_RESHAPE_OP, "new shape %s has %s", want,
                  dims[i] == -1 ? "more than one -1" : "a negative dimension");
    return kTfLiteError;
  }
  const int64_t elements = lg_kernel_num_elements(input);
  bool zero = false;
  for (int i = 0; i < rank; ++i) zero = zero || dims[i] == 0;
  const int64_t given = lg_reshape_nonzero_product(dims, rank, stretch);
  if (stretch >= 0) {
    /* With a 0 among the given dims, the -1 stands for what the non-zero
     * input dims hold beyond the non-zero given ones (LiteRT's rule: [0,6]
     * to [0,-1,2] gives [0,3,2]); otherwise for elements / given. */
    const int64_t value = zero ? lg_reshape_nonzero_product(
                                     input->dims->data, input->dims->size, -1) /
                                     given
                               : elements / given;
    dims[stretch] = value > INT32_MAX ? INT32_MAX : (int)value;
  }
  const int64_t count = zero ? 0 : given * (stretch >= 0 ? dims[stretch] : 1);
  if (count != elements) {
    lg_kernel_log(context, LG_RESHAPE_OP,
                  "cannot reshape input %s (%lld elements) to %s",
                  lg_kernel_format_shape(input->dims, text, sizeof(text)),
                  (long long)elements, want);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Computes the output shape (from input 1 or the options) and resizes. */
static TfLiteStatus lg_reshape_output(TfLiteContext* context, TfLiteNode* node,
                                      const TfLiteTensor* input,
                                      TfLiteTensor* output) {
  int dims[LG_SHAPE_MAX_RANK];
  int rank = 0;
  const TfLiteTensor* shape = lg_reshape_shape_input(context, node);
  if (shape != NULL) {
    int64_t values[LG_SHAPE_MAX_RANK];
    TF_LITE_ENSURE_STATUS(lg_shape_read_ints(context, LG_RESHAPE_OP, "shape",
                                             shape, LG_SHAPE_MAX_RANK, values,
                                             &rank));
    for (int i = 0; i < rank; ++i) {
      if (values[i] < INT32_MIN || values[i] > INT32_MAX) {
        lg_kernel_log(context, LG_RESHAPE_OP, "new shape has dimension %lld",
                      (long long)values[i]);
        return kTfLiteError;
      }
      dims[i] = (int)values[i]; /* negative values fail in resolve */
    }
  } else {
    const TfLiteReshapeParams* params = node->builtin_data;
    rank = params != NULL ? params->num_dimensions : 0;
    if (rank < 0 || rank > LG_SHAPE_MAX_RANK) {
      lg_kernel_log(context, LG_RESHAPE_OP, "new_shape has %d dimensions",
                    rank);
      return kTfLiteError;
    }
    for (int i = 0; i < rank; ++i) dims[i] = params->shape[i];
    /* Legacy models write [0] for a scalar. */
    if (rank == 1 && dims[0] == 0) rank = 0;
  }
  TF_LITE_ENSURE_STATUS(lg_reshape_resolve(context, input, dims, rank));
  return lg_shape_resize(context, LG_RESHAPE_OP, output, dims, rank);
}

static TfLiteStatus lg_reshape_prepare(TfLiteContext* context,
                                       TfLiteNode* node) {
  lg_reshape_data* data;
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_reshape_begin(context, node, LG_RESHAPE_OP, 1, 2,
                                         &data, &input, &output));
  const TfLiteTensor* shape = lg_reshape_shape_input(context, node);
  if (shape != NULL) {
    TF_LITE_ENSURE_STATUS(lg_shape_check_type(
        context, LG_RESHAPE_OP, "shape", shape->type, LG_SHAPE_TYPES_INDEX));
  } else {
    const TfLiteReshapeParams* params = node->builtin_data;
    const TfLiteTensor* other = NULL;
    TF_LITE_ENSURE_STATUS(lg_kernel_optional_input(context, node, LG_RESHAPE_OP,
                                                   kShapeTensor, &other));
    if (other != NULL && (params == NULL || params->num_dimensions == 0)) {
      char text[LG_SHAPE_TEXT];
      lg_kernel_log(context, LG_RESHAPE_OP,
                    "shape input must be 1-D, got %s (and new_shape is empty)",
                    lg_kernel_format_shape(other->dims, text, sizeof(text)));
      return kTfLiteError;
    }
  }
  if (shape != NULL && !lg_kernel_is_constant(shape)) {
    lg_kernel_set_dynamic(output);
    data->dynamic = true;
  } else {
    TF_LITE_ENSURE_STATUS(lg_reshape_output(context, node, input, output));
  }
  data->prepared = true;
  return kTfLiteOk;
}

static TfLiteStatus lg_reshape_invoke(TfLiteContext* context,
                                      TfLiteNode* node) {
  const lg_reshape_data* data = node->user_data;
  TF_LITE_ENSURE_STATUS(lg_reshape_check_invoke(context, LG_RESHAPE_OP, data));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_RESHAPE_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_RESHAPE_OP, kOutputTensor, &output));
  if (data->dynamic) {
    TF_LITE_ENSURE_STATUS(lg_reshape_output(context, node, input, output));
  }
  return lg_reshape_copy(context, LG_RESHAPE_OP, input, output);
}

/* ---- SQUEEZE ------------------------------------------------------------*/

static TfLiteStatus lg_squeeze_prepare(TfLiteContext* context,
                                       TfLiteNode* node) {
  lg_reshape_data* data;
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_reshape_begin(context, node, LG_SQUEEZE_OP, 1, 1,
                                         &data, &input, &output));
  const TfLiteSqueezeParams* params = node->builtin_data;
  const int count = params != NULL ? params->num_squeeze_dims : 0;
  const int rank = input->dims->size;
  char shape[LG_SHAPE_TEXT];
  bool drop[LG_SHAPE_MAX_RANK] = {false};
  if (count < 0 || count > TFLITE_SQUEEZE_PARAMS_MAX_DIMENSION_COUNT) {
    lg_kernel_log(context, LG_SQUEEZE_OP, "squeeze_dims has %d entries", count);
    return kTfLiteError;
  }
  for (int i = 0; i < rank; ++i)
    drop[i] = count == 0 && input->dims->data[i] == 1;
  for (int i = 0; i < count; ++i) {
    const int value = params->squeeze_dims[i];
    const int axis = value < 0 ? value + rank : value;
    if (axis < 0 || axis >= rank) {
      lg_kernel_log(context, LG_SQUEEZE_OP,
                    "squeeze dim %d is out of range for input %s", value,
                    lg_kernel_format_shape(input->dims, shape, sizeof(shape)));
      return kTfLiteError;
    }
    if (input->dims->data[axis] != 1) {
      lg_kernel_log(context, LG_SQUEEZE_OP,
                    "cannot squeeze dim %d of input %s: its size is %d, not 1",
                    value,
                    lg_kernel_format_shape(input->dims, shape, sizeof(shape)),
                    input->dims->data[axis]);
      return kTfLiteError;
    }
    drop[axis] = true;
  }
  int dims[LG_SHAPE_MAX_RANK];
  int out_rank = 0;
  for (int i = 0; i < rank; ++i) {
    if (!drop[i]) dims[out_rank++] = input->dims->data[i];
  }
  TF_LITE_ENSURE_STATUS(
      lg_shape_resize(context, LG_SQUEEZE_OP, output, dims, out_rank));
  data->prepared = true;
  return kTfLiteOk;
}

static TfLiteStatus lg_squeeze_invoke(TfLiteContext* context,
                                      TfLiteNode* node) {
  const lg_reshape_data* data = node->user_data;
  TF_LITE_ENSURE_STATUS(lg_reshape_check_invoke(context, LG_SQUEEZE_OP, data));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_SQUEEZE_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_SQUEEZE_OP, kOutputTensor, &output));
  return lg_reshape_copy(context, LG_SQUEEZE_OP, input, output);
}

/* ---- EXPAND_DIMS --------------------------------------------------------*/

/* Reads the axis input and resizes the output. */
static TfLiteStatus lg_expand_dims_output(TfLiteContext* context,
                                          const TfLiteTensor* input,
                                          const TfLiteTensor* axis_tensor,
                                          TfLiteTensor* output) {
  int64_t values[1];
  int count = 0;
  TF_LITE_ENSURE_STATUS(lg_shape_read_ints(context, LG_EXPAND_DIMS_OP, "axis",
                                           axis_tensor, 1, values, &count));
  if (count != 1) {
    lg_kernel_log(context, LG_EXPAND_DIMS_OP,
                  "axis must hold 1 element, got %d", count);
    return kTfLiteError;
  }
  const int rank = input->dims->size;
  if (rank + 1 > LG_SHAPE_MAX_RANK) {
    lg_kernel_log(context, LG_EXPAND_DIMS_OP,
                  "the output rank %d is above the supported %d", rank + 1,
                  LG_SHAPE_MAX_RANK);
    return kTfLiteError;
  }
  if (values[0] < -(int64_t)rank - 1 || values[0] > rank) {
    lg_kernel_log(context, LG_EXPAND_DIMS_OP,
                  "axis %lld is out of range [%d, %d] for an input of rank %d",
                  (long long)values[0], -rank - 1, rank, rank);
    return kTfLiteError;
  }
  const int axis = (int)(values[0] < 0 ? values[0] + rank + 1 : values[0]);
  int dims[LG_SHAPE_MAX_RANK];
  for (int i = 0, j = 0; i <= rank; ++i) {
    dims[i] = i == axis ? 1 : input->dims->data[j++];
  }
  return lg_shape_resize(context, LG_EXPAND_DIMS_OP, output, dims, rank + 1);
}

static TfLiteStatus lg_expand_dims_prepare(TfLiteContext* context,
                                           TfLiteNode* node) {
  lg_reshape_data* data;
  const TfLiteTensor* input;
  const TfLiteTensor* axis;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_reshape_begin(context, node, LG_EXPAND_DIMS_OP, 2, 2,
                                         &data, &input, &output));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_EXPAND_DIMS_OP, kAxisTensor, &axis));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, LG_EXPAND_DIMS_OP, "axis",
                                            axis->type, LG_SHAPE_TYPES_INDEX));
  if (lg_kernel_is_constant(axis)) {
    TF_LITE_ENSURE_STATUS(lg_expand_dims_output(context, input, axis, output));
  } else {
    lg_kernel_set_dynamic(output);
    data->dynamic = true;
  }
  data->prepared = true;
  return kTfLiteOk;
}

static TfLiteStatus lg_expand_dims_invoke(TfLiteContext* context,
                                          TfLiteNode* node) {
  const lg_reshape_data* data = node->user_data;
  TF_LITE_ENSURE_STATUS(
      lg_reshape_check_invoke(context, LG_EXPAND_DIMS_OP, data));
  const TfLiteTensor* input;
  const TfLiteTensor* axis;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_EXPAND_DIMS_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_EXPAND_DIMS_OP, kAxisTensor, &axis));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, LG_EXPAND_DIMS_OP,
                                         kOutputTensor, &output));
  if (data->dynamic) {
    TF_LITE_ENSURE_STATUS(lg_expand_dims_output(context, input, axis, output));
  }
  return lg_reshape_copy(context, LG_EXPAND_DIMS_OP, input, output);
}

/* ---- Registrations ------------------------------------------------------*/

LG_KERNEL_REGISTRATION(RESHAPE, lg_reshape_init, lg_kernel_free_data,
                       lg_reshape_prepare, lg_reshape_invoke)

LG_KERNEL_REGISTRATION(SQUEEZE, lg_reshape_init, lg_kernel_free_data,
                       lg_squeeze_prepare, lg_squeeze_invoke)

LG_KERNEL_REGISTRATION(EXPAND_DIMS, lg_reshape_init, lg_kernel_free_data,
                       lg_expand_dims_prepare, lg_expand_dims_invoke)
