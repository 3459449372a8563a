/* SHAPE, FILL and ZEROS_LIKE.
 *
 * SHAPE: the input's dims as a 1-D INT32 or INT64 tensor (out_type); the
 *   input may be of any type, its data is never read.
 * FILL: a tensor of shape `dims` (a 1-D INT32 or INT64 input; each dim
 *   >= 0, none: a scalar) with every element equal to `value` (a scalar of
 *   FLOAT32, INT32, INT64 or BOOL; the output has its type). Constant dims
 *   are read in Prepare; otherwise the output is dynamic and sized in
 *   Invoke. A STRING value (version 2) gives a dynamic STRING output
 *   written in Invoke by the interpreter's string writer. Int8, int16 and
 *   float16 values (versions 3..4) are rejected in Prepare with the type's
 *   name.
 * ZEROS_LIKE: zeros of the input's shape and type (FLOAT32, INT32, INT64).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/string_tensor.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_SHAPE_OP "SHAPE"
#define LG_FILL_OP "FILL"
#define LG_ZEROS_LIKE_OP "ZEROS_LIKE"

enum {
  kInputTensor = 0,
  kDimsTensor = 0,
  kValueTensor = 1,
  kOutputTensor = 0,
};

/* Per-node state of FILL (SHAPE and ZEROS_LIKE keep none). */
typedef struct lg_fill_data {
  bool prepared;
  bool dynamic; /* dims are read in Invoke */
} lg_fill_data;

static void* lg_misc_init(TfLiteContext* context, const char* buffer,
                          size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_fill_data));
}

/* A new 1-D shape [n], or NULL (reported) when out of memory. */
static TfLiteIntArray* lg_misc_vector_shape(TfLiteContext* context,
                                            const char* op, int n) {
  TfLiteIntArray* shape = TfLiteIntArrayCreate(1);
  if (shape == NULL) {
    lg_kernel_log(context, op, "out of memory for the output shape");
    return NULL;
  }
  shape->data[0] = n;
  return shape;
}

/* ---- SHAPE -------------------------------------------------------------- */

static TfLiteStatus lg_misc_shape_prepare(TfLiteContext* context,
                                          TfLiteNode* node) {
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_io(context, node, LG_SHAPE_OP, 1, 1, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_SHAPE_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_SHAPE_OP, kOutputTensor, &output));
  const TfLiteShapeParams* params = node->builtin_data;
  if (params == NULL) {
    lg_kernel_log(context, LG_SHAPE_OP, "missing ShapeOptions parameters");
    return kTfLiteError;
  }
  if (params->out_type != kTfLiteInt32 && params->out_type != kTfLiteInt64) {
    lg_kernel_log(context, LG_SHAPE_OP,
                  "out_type %s is not supported (expected INT32 or INT64)",
                  TfLiteTypeGetName(params->out_type));
    return kTfLiteError;
  }
  if (output->type != params->out_type) {
    lg_kernel_log(
        context, LG_SHAPE_OP, "output type %s differs from out_type %s",
        TfLiteTypeGetName(output->type), TfLiteTypeGetName(params->out_type));
    return kTfLiteError;
  }
  if (input->dims == NULL) {
    lg_kernel_log(context, LG_SHAPE_OP, "input has no shape");
    return kTfLiteError;
  }
  TfLiteIntArray* shape =
      lg_misc_vector_shape(context, LG_SHAPE_OP, input->dims->size);
  if (shape == NULL) return kTfLiteError;
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  return context->ResizeTensor(context, output, shape);
}

static TfLiteStatus lg_misc_shape_invoke(TfLiteContext* context,
                                         TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_SHAPE_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_SHAPE_OP, kOutputTensor, &output));
  const int rank = input->dims != NULL ? input->dims->size : -1;
  if (lg_kernel_num_elements(output) != rank || output->dims->size != 1) {
    lg_kernel_log(context, LG_SHAPE_OP, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (rank == 0) return kTfLiteOk;
  if (output->data.raw == NULL) {
    lg_kernel_log(context, LG_SHAPE_OP, "the output has no data");
    return kTfLiteError;
  }
  for (int i = 0; i < rank; ++i) {
    if (output->type == kTfLiteInt32) {
      output->data.i32[i] = input->dims->data[i];
    } else {
      output->data.i64[i] = input->dims->data[i];
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(SHAPE, NULL, NULL, lg_misc_shape_prepare,
                       lg_misc_shape_invoke)

/* ---- FILL --------------------------------------------------------------- */

static TfLiteStatus lg_fill_check(TfLiteContext* context,
                                  const TfLiteTensor* dims,
                                  const TfLiteTensor* value,
                                  const TfLiteTensor* output) {
  char shape[64];
  if (dims->type != kTfLiteInt32 && dims->type != kTfLiteInt64) {
    lg_kernel_log(context, LG_FILL_OP,
                  "dims type %s is not supported (expected INT32 or INT64)",
                  TfLiteTypeGetName(dims->type));
    return kTfLiteError;
  }
  if (dims->dims == NULL || dims->dims->size != 1) {
    lg_kernel_log(context, LG_FILL_OP, "dims must be 1-D, got shape %s",
                  lg_kernel_format_shape(dims->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (value->type != kTfLiteFloat32 && value->type != kTfLiteInt32 &&
      value->type != kTfLiteInt64 && value->type != kTfLiteBool &&
      value->type != kTfLiteString) {
    lg_kernel_log(context, LG_FILL_OP,
                  "value type %s is not supported (expected FLOAT32, INT32, "
                  "INT64, BOOL or STRING)",
                  TfLiteTypeGetName(value->type));
    return kTfLiteError;
  }
  if (value->dims == NULL || value->dims->size != 0) {
    lg_kernel_log(context, LG_FILL_OP, "value must be a scalar, got shape %s",
                  lg_kernel_format_shape(value->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (output->type != value->type) {
    lg_kernel_log(
        context, LG_FILL_OP, "output type %s differs from value type %s",
        TfLiteTypeGetName(output->type), TfLiteTypeGetName(value->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Reads the dims, checks them and resizes the output. */
static TfLiteStatus lg_fill_configure(TfLiteContext* context,
                                      const TfLiteTensor* dims,
                                      TfLiteTensor* output) {
  const int rank = dims->dims->data[0];
  if (rank > 0 && dims->data.raw == NULL) {
    lg_kernel_log(context, LG_FILL_OP, "dims tensor has no data");
    return kTfLiteError;
  }
  TfLiteIntArray* shape = TfLiteIntArrayCreate(rank);
  if (shape == NULL) {
    lg_kernel_log(context, LG_FILL_OP, "out of memory for the output shape");
    return kTfLiteError;
  }
  int64_t count = 1;
  for (int i = 0; i < rank; ++i) {
    const int64_t d =
        dims->type == kTfLiteInt32 ? dims->data.i32[i] : dims->data.i64[i];
    if (d < 0 || d > INT32_MAX) {
      lg_kernel_log(context, LG_FILL_OP, "dimension %d is %s (%lld)", i,
                    d < 0 ? "negative" : "too large", (long long)d);
      TfLiteIntArrayFree(shape);
      return kTfLiteError;
    }
    count = count == 0 || d == 0 ? 0 : count * d;
    if (count > INT32_MAX) {
      lg_kernel_log(context, LG_FILL_OP,
                    "the output would have more than %d elements", INT32_MAX);
      TfLiteIntArrayFree(shape);
      return kTfLiteError;
    }
    shape->data[i] = (int)d;
  }
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  return context->ResizeTensor(context, output, shape);
}

static TfLiteStatus lg_fill_get(TfLiteContext* context, TfLiteNode* node,
                                const TfLiteTensor** dims,
                                const TfLiteTensor** value,
                                TfLiteTensor** output) {
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_FILL_OP, kDimsTensor, dims));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_FILL_OP, kValueTensor, value));
  return lg_kernel_output(context, node, LG_FILL_OP, kOutputTensor, output);
}

static TfLiteStatus lg_fill_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_fill_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_FILL_OP,
                  "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, LG_FILL_OP, 2, 2, 1));
  const TfLiteTensor* dims;
  const TfLiteTensor* value;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_fill_get(context, node, &dims, &value, &output));
  TF_LITE_ENSURE_STATUS(lg_fill_check(context, dims, value, output));
  data->dynamic = !lg_kernel_is_constant(dims);
  if (output->type == kTfLiteString) lg_kernel_set_dynamic(output);
  if (data->dynamic) {
    lg_kernel_set_dynamic(output);
  } else {
    TF_LITE_ENSURE_STATUS(lg_fill_configure(context, dims, output));
  }
  data->prepared = true;
  return kTfLiteOk;
}

/* STRING: every output string is the value's only string. */
static int64_t lg_fill_string_at(const void* ctx, int64_t k) {
  (void)ctx;
  (void)k;
  return 0;
}

static TfLiteStatus lg_fill_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_fill_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, LG_FILL_OP, "invoked before a successful prepare");
    return kTfLiteError;
  }
  const TfLiteTensor* dims;
  const TfLiteTensor* value;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_fill_get(context, node, &dims, &value, &output));
  if (data->dynamic) {
    TF_LITE_ENSURE_STATUS(lg_fill_configure(context, dims, output));
  }
  if (value->type == kTfLiteString) {
    TF_LITE_ENSURE_STATUS(
        lg_string_check_input(context, LG_FILL_OP, "value", value));
    /* The writer copies the shape before replacing the dims. */
    return lg_string_write_mapped(context, LG_FILL_OP, output, value,
                                  output->dims->data, output->dims->size,
                                  lg_fill_string_at, NULL);
  }
  const int64_t count = lg_kernel_num_elements(output);
  if (count == 0) return kTfLiteOk;
  if (value->data.raw == NULL || output->data.raw == NULL) {
    lg_kernel_log(context, LG_FILL_OP, "a tensor has no data");
    return kTfLiteError;
  }
  size_t size = 0;
  TfLiteGetSizeOfType(value->type, &size);
  if (output->bytes < (size_t)count * size) {
    lg_kernel_log(context, LG_FILL_OP, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  char* out = output->data.raw;
  for (int64_t i = 0; i < count; ++i) {
    memcpy(out + (size_t)i * size, value->data.raw, size);
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(FILL, lg_misc_init, lg_kernel_free_data, lg_fill_prepare,
                       lg_fill_invoke)

/* ---- ZEROS_LIKE --------------------------------------------------------- */

static TfLiteStatus lg_zeros_like_prepare(TfLiteContext* context,
                                          TfLiteNode* node) {
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_io(context, node, LG_ZEROS_LIKE_OP, 1, 1, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_ZEROS_LIKE_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, LG_ZEROS_LIKE_OP,
                                         kOutputTensor, &output));
  if (input->type != kTfLiteFloat32 && input->type != kTfLiteInt32 &&
      input->type != kTfLiteInt64) {
    lg_kernel_log(context, LG_ZEROS_LIKE_OP,
                  "input type %s is not supported (expected FLOAT32, INT32 or "
                  "INT64)",
                  TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  if (output->type != input->type) {
    lg_kernel_log(
        context, LG_ZEROS_LIKE_OP, "output type %s differs from input type %s",
        TfLiteTypeGetName(output->type), TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, LG_ZEROS_LIKE_OP, "input", input));
  TfLiteIntArray* shape = TfLiteIntArrayCopy(input->dims);
  if (shape == NULL) {
    lg_kernel_log(context, LG_ZEROS_LIKE_OP,
                  "out of memory for the output shape");
    return kTfLiteError;
  }
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  return context->ResizeTensor(context, output, shape);
}

static TfLiteStatus lg_zeros_like_invoke(TfLiteContext* context,
                                         TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_ZEROS_LIKE_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, LG_ZEROS_LIKE_OP,
                                         kOutputTensor, &output));
  const int64_t count = lg_kernel_num_elements(output);
  if (count != lg_kernel_num_elements(input)) {
    lg_kernel_log(context, LG_ZEROS_LIKE_OP,
                  "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (count == 0) return kTfLiteOk;
  size_t size = 0;
  TfLiteGetSizeOfType(output->type, &size);
  if (output->data.raw == NULL || output->bytes < (size_t)count * size) {
    lg_kernel_log(context, LG_ZEROS_LIKE_OP, "the output has no data");
    return kTfLiteError;
  }
  /* All-zero bytes are 0, 0.0f and 0 for every accepted type. */
  memset(output->data.raw, 0, (size_t)count * size);
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(ZEROS_LIKE, NULL, NULL, lg_zeros_like_prepare,
                       lg_zeros_like_invoke)
