/* SPLIT, SPLIT_V and UNPACK: one input cut into consecutive pieces along
 * an axis, one output per piece.
 *
 * SPLIT (inputs: axis, input) cuts into num_splits equal pieces; SPLIT_V
 * (inputs: input, size_splits, axis) into pieces of the listed sizes, where
 * one size may be -1 for the remainder; UNPACK cuts into `num` pieces of
 * size 1 and drops the axis. Axes may be negative (counted from the end).
 * A non-constant axis or size_splits makes every output dynamic.
 *
 * Invoke mirrors CONCATENATION: the input is `outer` blocks (the product of
 * the dims before the axis) and each block holds every output's slice in
 * output order, so the copy is one memcpy per output per block.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_SPLIT_OP "SPLIT"
#define LG_SPLIT_V_OP "SPLIT_V"
#define LG_UNPACK_OP "UNPACK"
/* LiteRT's SPLIT and SPLIT_V take no bool, its UNPACK no int64. */
#define LG_SPLIT_TYPES (LG_SHAPE_TYPES_MOVE & ~LG_SHAPE_TYPE(kTfLiteBool))
#define LG_UNPACK_TYPES (LG_SHAPE_TYPES_MOVE & ~LG_SHAPE_TYPE(kTfLiteInt64))

/* SPLIT's slots. */
enum { kSplitAxisTensor = 0, kSplitInputTensor = 1 };
/* SPLIT_V's and UNPACK's slots. */
enum { kInputTensor = 0, kSizeSplitsTensor = 1, kSplitVAxisTensor = 2 };

typedef struct lg_split_data {
  bool prepared;
  bool dynamic;     /* output shapes are computed in Invoke */
  int64_t outer;    /* product of the input dims before the axis */
  int64_t elements; /* input elements */
} lg_split_data;

static void* lg_split_init(TfLiteContext* context, const char* buffer,
                           size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_split_data));
}

/* The start of every Prepare: node data, counts, the input, and each
 * output's type. */
static TfLiteStatus lg_split_begin(TfLiteContext* context, TfLiteNode* node,
                                   const char* op, uint32_t types,
                                   int num_inputs, int input_slot,
                                   int num_outputs, lg_split_data** data,
                                   const TfLiteTensor** input) {
  *data = node->user_data;
  if (*data == NULL) {
    lg_kernel_log(context, op, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  (*data)->prepared = false;
  (*data)->dynamic = false;
  if (num_outputs < 1) {
    lg_kernel_log(context, op,
                  "the number of pieces must be at least 1, got %d",
                  num_outputs);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, num_inputs,
                                           num_inputs, num_outputs));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, input_slot, input));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_type(context, op, "input", (*input)->type, types));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "input", *input, LG_SHAPE_MAX_RANK));
  for (int i = 0; i < num_outputs; ++i) {
    TfLiteTensor* output;
    TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, i, &output));
    TF_LITE_ENSURE_STATUS(
        lg_shape_check_same_type(context, op, *input, output));
  }
  return kTfLiteOk;
}

/* Reads a one-element axis tensor, in [-rank, rank). */
static TfLiteStatus lg_split_read_axis(TfLiteContext* context, const char* op,
                                       const TfLiteTensor* tensor, int rank,
                                       int* axis) {
  int64_t value[1];
  int count = 0;
  TF_LITE_ENSURE_STATUS(
      lg_shape_read_ints(context, op, "axis", tensor, 1, value, &count));
  if (count != 1) {
    lg_kernel_log(context, op, "axis must hold 1 element, got %d", count);
    return kTfLiteError;
  }
  if (value[0] < -rank || value[0] >= rank) {
    lg_kernel_log(context, op,
                  "axis %lld is out of range for an input of rank %d",
                  (long long)value[0], rank);
    return kTfLiteError;
  }
  *axis = (int)(value[0] < 0 ? value[0] + rank : value[0]);
  return kTfLiteOk;
}

/* Piece i's size along the axis. */
typedef int (*lg_split_size_fn)(const void* ctx, int i);

/* Resizes output i to the input's shape with dim `axis` set to
 * size_of(ctx, i) (or removed when `drop`), and records the copy's block
 * count. */
static TfLiteStatus lg_split_resize(TfLiteContext* context, TfLiteNode* node,
                                    const char* op, lg_split_data* data,
                                    const TfLiteTensor* input, int axis,
                                    bool drop, lg_split_size_fn size_of,
                                    const void* ctx) {
  int dims[LG_SHAPE_MAX_RANK];
  const int rank = lg_shape_dims(input, dims);
  data->outer = lg_shape_product(dims, 0, axis);
  data->elements = lg_kernel_num_elements(input);
  for (int i = 0; i < node->outputs->size; ++i) {
    TfLiteTensor* output;
    TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, i, &output));
    int out[LG_SHAPE_MAX_RANK];
    int n = 0;
    for (int k = 0; k < rank; ++k) {
      if (k != axis) {
        out[n++] = dims[k];
      } else if (!drop) {
        out[n++] = size_of(ctx, i);
      }
    }
    TF_LITE_ENSURE_STATUS(lg_shape_resize(context, op, output, out, n));
  }
  return kTfLiteOk;
}

/* ---- Invoke (all three) -------------------------------------------------*/

static TfLiteStatus lg_split_copy(TfLiteContext* context, TfLiteNode* node,
                                  const char* op, const lg_split_data* data,
                                  const TfLiteTensor* input) {
  int64_t sum = 0;
  for (int i = 0; i < node->outputs->size; ++i) {
    TfLiteTensor* output;
    TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, i, &output));
    const int64_t n = lg_kernel_num_elements(output);
    if (data->outer > 0 && n % data->outer != 0) sum = -1;
    if (sum >= 0) sum += n;
  }
  if (sum != data->elements || lg_kernel_num_elements(input) != sum) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (data->elements == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  size_t size = 0;
  TfLiteGetSizeOfType(input->type, &size);
  const char* in = input->data.raw;
  size_t offset = 0;
  for (int64_t o = 0; o < data->outer; ++o) {
    for (int i = 0; i < node->outputs->size; ++i) {
      TfLiteTensor* output;
      TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, i, &output));
      const size_t chunk =
          (size_t)(lg_kernel_num_elements(output) / data->outer) * size;
      if (chunk == 0) continue;
      TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
      memcpy(output->data.raw + (size_t)o * chunk, in + offset, chunk);
      offset += chunk;
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_split_check_invoke(TfLiteContext* context,
                                          const char* op,
                                          const lg_split_data* data) {
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, op, "invoked before a successful prepare");
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_split_set_dynamic(TfLiteContext* context,
                                         TfLiteNode* node, const char* op,
                                         lg_split_data* data) {
  for (int i = 0; i < node->outputs->size; ++i) {
    TfLiteTensor* output;
    TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, i, &output));
    lg_kernel_set_dynamic(output);
  }
  data->dynamic = true;
  return kTfLiteOk;
}

/* ---- SPLIT --------------------------------------------------------------*/

static int lg_split_equal_size(const void* ctx, int i) {
  (void)i;
  return *(const int*)ctx;
}

static TfLiteStatus lg_split_outputs(TfLiteContext* context, TfLiteNode* node,
                                     lg_split_data* data,
                                     const TfLiteTensor* axis_tensor,
                                     const TfLiteTensor* input) {
  int axis;
  TF_LITE_ENSURE_STATUS(lg_split_read_axis(context, LG_SPLIT_OP, axis_tensor,
                                           input->dims->size, &axis));
  const int num = node->outputs->size;
  const int dim = input->dims->data[axis];
  if (dim % num != 0) {
    char shape[LG_SHAPE_TEXT];
    lg_kernel_log(context, LG_SPLIT_OP,
                  "dim %d of input %s (size %d) does not split into %d equal "
                  "pieces",
                  axis,
                  lg_kernel_format_shape(input->dims, shape, sizeof(shape)),
                  dim, num);
    return kTfLiteError;
  }
  const int piece = dim / num;
  return lg_split_resize(context, node, LG_SPLIT_OP, data, input, axis, false,
                         lg_split_equal_size, &piece);
}

static TfLiteStatus lg_split_prepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteSplitParams* params = node->builtin_data;
  const int num = params != NULL ? params->num_splits : 0;
  const int outputs = node->outputs != NULL ? node->outputs->size : 0;
  if (num != outputs) {
    lg_kernel_log(context, LG_SPLIT_OP,
                  "num_splits %d differs from the %d outputs", num, outputs);
    return kTfLiteError;
  }
  lg_split_data* data;
  const TfLiteTensor* input;
  const TfLiteTensor* axis;
  TF_LITE_ENSURE_STATUS(lg_split_begin(context, node, LG_SPLIT_OP,
                                       LG_SPLIT_TYPES, 2, kSplitInputTensor,
                                       num, &data, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_SPLIT_OP, kSplitAxisTensor, &axis));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, LG_SPLIT_OP, "axis",
                                            axis->type, LG_SHAPE_TYPES_INDEX));
  if (lg_kernel_is_constant(axis)) {
    TF_LITE_ENSURE_STATUS(lg_split_outputs(context, node, data, axis, input));
  } else {
    TF_LITE_ENSURE_STATUS(
        lg_split_set_dynamic(context, node, LG_SPLIT_OP, data));
  }
  data->prepared = true;
  return kTfLiteOk;
}

static TfLiteStatus lg_split_invoke(TfLiteContext* context, TfLiteNode* node) {
  lg_split_data* data = node->user_data;
  TF_LITE_ENSURE_STATUS(lg_split_check_invoke(context, LG_SPLIT_OP, data));
  const TfLiteTensor* input;
  const TfLiteTensor* axis;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_SPLIT_OP, kSplitInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_SPLIT_OP, kSplitAxisTensor, &axis));
  if (data->dynamic) {
    TF_LITE_ENSURE_STATUS(lg_split_outputs(context, node, data, axis, input));
  }
  return lg_split_copy(context, node, LG_SPLIT_OP, data, input);
}

/* ---- SPLIT_V ------------------------------------------------------------*/

/* size_splits with its -1 resolved. */
typedef struct lg_split_v_sizes {
  const TfLiteTensor* tensor;
  int stretch; /* index of the -1, or -1 */
  int rest;    /* what the -1 stands for */
} lg_split_v_sizes;

static int lg_split_v_size(const void* ctx, int i) {
  const lg_split_v_sizes* s = ctx;
  return i == s->stretch ? s->rest : (int)lg_shape_int_at(s->tensor, i);
}

/* Checks size_splits against the axis dim and resolves its -1. */
static TfLiteStatus lg_split_v_sizes_check(TfLiteContext* context, int num,
                                           int dim, lg_split_v_sizes* s) {
  const TfLiteTensor* t = s->tensor;
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, LG_SPLIT_V_OP, "size_splits", t->type, LG_SHAPE_TYPES_INDEX));
  if (t->dims == NULL || t->dims->size != 1 || t->dims->data[0] != num) {
    char shape[LG_SHAPE_TEXT];
    lg_kernel_log(context, LG_SPLIT_V_OP,
                  "size_splits must be 1-D with %d elements, got %s", num,
                  lg_kernel_format_shape(t->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, LG_SPLIT_V_OP, "size_splits", t));
  int64_t sum = 0;
  s->stretch = -1;
  for (int i = 0; i < num; ++i) {
    const int64_t v = lg_shape_int_at(t, i);
    if (v == -1 && s->stretch < 0) {
      s->stretch = i;
    } else if (v < 0 || v > INT_MAX) {
      lg_kernel_log(context, LG_SPLIT_V_OP,
                    "size_splits[%d] is %lld (sizes must be >= 0, with at "
                    "most one -1)",
                    i, (long long)v);
      return kTfLiteError;
    } else {
      sum += v;
    }
  }
  if (sum > dim || (s->stretch < 0 && sum != dim)) {
    lg_kernel_log(context, LG_SPLIT_V_OP,
                  "size_splits add up to %lld, but the axis dim is %d",
                  (long long)sum, dim);
    return kTfLiteError;
  }
  s->rest = (int)(dim - sum);
  return kTfLiteOk;
}

static TfLiteStatus lg_split_v_outputs(TfLiteContext* context, TfLiteNode* node,
                                       lg_split_data* data,
                                       const TfLiteTensor* input,
                                       const TfLiteTensor* sizes,
                                       const TfLiteTensor* axis_tensor) {
  int axis;
  TF_LITE_ENSURE_STATUS(lg_split_read_axis(context, LG_SPLIT_V_OP, axis_tensor,
                                           input->dims->size, &axis));
  lg_split_v_sizes s = {.tensor = sizes};
  TF_LITE_ENSURE_STATUS(lg_split_v_sizes_check(context, node->outputs->size,
                                               input->dims->data[axis], &s));
  return lg_split_resize(context, node, LG_SPLIT_V_OP, data, input, axis, false,
                         lg_split_v_size, &s);
}

static TfLiteStatus lg_split_v_prepare(TfLiteContext* context,
                                       TfLiteNode* node) {
  const TfLiteSplitVParams* params = node->builtin_data;
  const int num = params != NULL ? params->num_splits : 0;
  const int outputs = node->outputs != NULL ? node->outputs->size : 0;
  if (num != outputs) {
    lg_kernel_log(context, LG_SPLIT_V_OP,
                  "num_splits %d differs from the %d outputs", num, outputs);
    return kTfLiteError;
  }
  lg_split_data* data;
  const TfLiteTensor* input;
  const TfLiteTensor* sizes;
  const TfLiteTensor* axis;
  TF_LITE_ENSURE_STATUS(lg_split_begin(context, node, LG_SPLIT_V_OP,
                                       LG_SPLIT_TYPES, 3, kInputTensor, num,
                                       &data, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_SPLIT_V_OP, kSizeSplitsTensor, &sizes));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_SPLIT_V_OP, kSplitVAxisTensor, &axis));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, LG_SPLIT_V_OP, "axis",
                                            axis->type, LG_SHAPE_TYPES_INDEX));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, LG_SPLIT_V_OP,
                                            "size_splits", sizes->type,
                                            LG_SHAPE_TYPES_INDEX));
  if (lg_kernel_is_constant(sizes) && lg_kernel_is_constant(axis)) {
    TF_LITE_ENSURE_STATUS(
        lg_split_v_outputs(context, node, data, input, sizes, axis));
  } else {
    TF_LITE_ENSURE_STATUS(
        lg_split_set_dynamic(context, node, LG_SPLIT_V_OP, data));
  }
  data->prepared = true;
  return kTfLiteOk;
}

static TfLiteStatus lg_split_v_invoke(TfLiteContext* context,
                                      TfLiteNode* node) {
  lg_split_data* data = node->user_data;
  TF_LITE_ENSURE_STATUS(lg_split_check_invoke(context, LG_SPLIT_V_OP, data));
  const TfLiteTensor* input;
  const TfLiteTensor* sizes;
  const TfLiteTensor* axis;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_SPLIT_V_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_SPLIT_V_OP, kSizeSplitsTensor, &sizes));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_SPLIT_V_OP, kSplitVAxisTensor, &axis));
  if (data->dynamic) {
    TF_LITE_ENSURE_STATUS(
        lg_split_v_outputs(context, node, data, input, sizes, axis));
  }
  return lg_split_copy(context, node, LG_SPLIT_V_OP, data, input);
}

/* ---- UNPACK -------------------------------------------------------------*/

static int lg_unpack_size(const void* ctx, int i) {
  (void)ctx;
  (void)i;
  return 1;
}

static TfLiteStatus lg_unpack_prepare(TfLiteContext* context,
                                      TfLiteNode* node) {
  const TfLiteUnpackParams* params = node->builtin_data;
  const int num = params != NULL ? params->num : 0;
  const int outputs = node->outputs != NULL ? node->outputs->size : 0;
  if (num != outputs) {
    lg_kernel_log(context, LG_UNPACK_OP, "num %d differs from the %d outputs",
                  num, outputs);
    return kTfLiteError;
  }
  lg_split_data* data;
  const TfLiteTensor* input;
  TF_LITE_ENSURE_STATUS(lg_split_begin(context, node, LG_UNPACK_OP,
                                       LG_UNPACK_TYPES, 1, kInputTensor, num,
                                       &data, &input));
  const int rank = input->dims->size;
  const int value = params->axis;
  const int axis = value < 0 ? value + rank : value;
  char shape[LG_SHAPE_TEXT];
  if (axis < 0 || axis >= rank) {
    lg_kernel_log(context, LG_UNPACK_OP, "axis %d is out of range for input %s",
                  value,
                  lg_kernel_format_shape(input->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (input->dims->data[axis] != num) {
    lg_kernel_log(context, LG_UNPACK_OP,
                  "dim %d of input %s is %d, but num is %d", axis,
                  lg_kernel_format_shape(input->dims, shape, sizeof(shape)),
                  input->dims->data[axis], num);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_split_resize(context, node, LG_UNPACK_OP, data,
                                        input, axis, true, lg_unpack_size,
                                        NULL));
  data->prepared = true;
  return kTfLiteOk;
}

static TfLiteStatus lg_unpack_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_split_data* data = node->user_data;
  TF_LITE_ENSURE_STATUS(lg_split_check_invoke(context, LG_UNPACK_OP, data));
  const TfLiteTensor* input;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_UNPACK_OP, kInputTensor, &input));
  return lg_split_copy(context, node, LG_UNPACK_OP, data, input);
}

/* ---- Registrations ------------------------------------------------------*/

LG_KERNEL_REGISTRATION(SPLIT, lg_split_init, lg_kernel_free_data,
                       lg_split_prepare, lg_split_invoke)

LG_KERNEL_REGISTRATION(SPLIT_V, lg_split_init, lg_kernel_free_data,
                       lg_split_v_prepare, lg_split_v_invoke)

LG_KERNEL_REGISTRATION(UNPACK, lg_split_init, lg_kernel_free_data,
                       lg_unpack_prepare, lg_unpack_invoke)
