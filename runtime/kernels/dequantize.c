/* DEQUANTIZE to FLOAT32 from UINT8, INT8, INT16 (affine quantization) and
 * FLOAT16.
 *
 *   integer input: out = (q - zero_point) * scale, per tensor (one scale)
 *                  or per channel (one scale per index along
 *                  quantized_dimension; one zero point shared by all or one
 *                  per channel)
 *   FLOAT16 input: out = the half's exact float value (lg_fp16_to_fp32,
 *                  the one fp16 conversion litegpu has)
 * The product is rounded once to float, as TFLite's reference kernel does
 * (it multiplies in double and converts; q - zero_point and the float scale
 * make that product exact in double).
 *
 * Versions: 1 UINT8, 2 INT8, 3 INT16 and FLOAT16, 5 per-channel INT8 are
 * computed; 6 INT4, 7 INT2, 8 UINT4 and 9 FLOAT8 are rejected in Prepare
 * with the type's name.
 *
 * A constant input (float16 or quantized weights) is converted once, in
 * Prepare, into a block the kernel owns, and the output becomes a
 * kTfLitePersistentRo tensor pointing at it: Invoke then does nothing, and
 * the consumers see constant weights, as TFLite's GPU delegate treats
 * float16 weights behind a DEQUANTIZE (delegates claim them as constants
 * and upload them once).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/kernels/fp16.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/common.h"

#define LG_DEQUANTIZE_OP "DEQUANTIZE"
#define LG_DEQUANTIZE_SHAPE_TEXT 96

enum {
  kInputTensor = 0,
  kOutputTensor = 0,
};

typedef struct lg_dequantize_data {
  bool prepared;
  TfLiteType type;
  int64_t count;
  /* Integer inputs: elements = outer * channels * inner, and channel c has
   * scale index c and zero point index (per_channel_zero_point ? c : 0).
   * Per tensor is one channel. */
  int64_t outer;
  int64_t channels;
  int64_t inner;
  bool per_channel_zero_point;
  float* folded;       /* a constant input's values, converted in Prepare */
  size_t folded_count; /* floats at folded */
} lg_dequantize_data;

static void* lg_dequantize_init(TfLiteContext* context, const char* buffer,
                                size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_dequantize_data));
}

static void lg_dequantize_free(TfLiteContext* context, void* buffer) {
  (void)context;
  lg_dequantize_data* data = buffer;
  if (data != NULL) free(data->folded);
  free(data);
}

static TfLiteStatus lg_dequantize_check_types(TfLiteContext* context,
                                              const TfLiteTensor* input,
                                              const TfLiteTensor* output) {
  switch (input->type) {
    case kTfLiteUInt8:
    case kTfLiteInt8:
    case kTfLiteInt16:
    case kTfLiteFloat16:
      break;
    default:
      lg_kernel_log(context, LG_DEQUANTIZE_OP,
                    "input type %s is not supported (expected UINT8, INT8, "
                    "INT16 or FLOAT16)",
                    TfLiteTypeGetName(input->type));
      return kTfLiteError;
  }
  if (output->type != kTfLiteFloat32) {
    lg_kernel_log(context, LG_DEQUANTIZE_OP,
                  "output type %s is not supported (expected FLOAT32)",
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* The affine parameters of `input`, or NULL when it has none. */
static const TfLiteAffineQuantization* lg_dequantize_affine(
    const TfLiteTensor* input) {
  if (input->quantization.type != kTfLiteAffineQuantization) return NULL;
  const TfLiteAffineQuantization* q = input->quantization.params;
  if (q == NULL || q->scale == NULL || q->scale->size < 1 ||
      q->zero_point == NULL || q->zero_point->size < 1) {
    return NULL;
  }
  return q;
}

/* Checks a per-channel description against the input's shape and fills
 * outer / channels / inner. */
static TfLiteStatus lg_dequantize_per_channel(
    TfLiteContext* context, lg_dequantize_data* data, const TfLiteTensor* input,
    const TfLiteAffineQuantization* q) {
  const TfLiteIntArray* dims = input->dims;
  const int axis = q->quantized_dimension;
  char shape[LG_DEQUANTIZE_SHAPE_TEXT];
  if (axis < 0 || axis >= dims->size) {
    lg_kernel_log(context, LG_DEQUANTIZE_OP,
                  "quantized_dimension %d is out of range for input shape %s",
                  axis, lg_kernel_format_shape(dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (dims->data[axis] != q->scale->size) {
    lg_kernel_log(context, LG_DEQUANTIZE_OP,
                  "%d scales do not match dimension %d (size %d) of input "
                  "shape %s",
                  q->scale->size, axis, dims->data[axis],
                  lg_kernel_format_shape(dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (q->zero_point->size != 1 && q->zero_point->size != q->scale->size) {
    lg_kernel_log(context, LG_DEQUANTIZE_OP,
                  "%d zero points for %d scales (expected 1 or %d)",
                  q->zero_point->size, q->scale->size, q->scale->size);
    return kTfLiteError;
  }
  data->outer = 1;
  data->inner = 1;
  for (int i = 0; i < axis; ++i) data->outer *= dims->data[i];
  for (int i = axis + 1; i < dims->size; ++i) data->inner *= dims->data[i];
  data->channels = q->scale->size;
  data->per_channel_zero_point = q->zero_point->size > 1;
  return kTfLiteOk;
}

/* Fills the channel layout of an integer input. */
static TfLiteStatus lg_dequantize_layout(TfLiteContext* context,
                                         lg_dequantize_data* data,
                                         const TfLiteTensor* input) {
  data->outer = 1;
  data->channels = 1;
  data->inner = data->count;
  data->per_channel_zero_point = false;
  if (input->type == kTfLiteFloat16) return kTfLiteOk;
  const TfLiteAffineQuantization* q = lg_dequantize_affine(input);
  if (q == NULL) {
    /* TfLiteTensor.params alone (tensors built by hand) is per tensor. */
    if (input->params.scale != 0.0f) return kTfLiteOk;
    lg_kernel_log(context, LG_DEQUANTIZE_OP,
                  "%s input has no quantization parameters",
                  TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  if (q->scale->size == 1) return kTfLiteOk;
  return lg_dequantize_per_channel(context, data, input, q);
}

static void lg_dequantize_run(const lg_dequantize_data* data,
                              const TfLiteTensor* input, float* out);

/* A constant input: converts it now into data->folded and makes the
 * output a read-only tensor on that block (already resized). */
static TfLiteStatus lg_dequantize_fold(TfLiteContext* context,
                                       lg_dequantize_data* data,
                                       const TfLiteTensor* input,
                                       TfLiteTensor* output) {
  const size_t count = (size_t)data->count;
  /* The block stays where it is across Prepares: a delegate kernel may
   * hold its address. */
  float* folded = data->folded;
  if (folded == NULL || data->folded_count != count) {
    folded = realloc(data->folded, (count > 0 ? count : 1) * sizeof(float));
    if (folded == NULL) {
      lg_kernel_log(context, LG_DEQUANTIZE_OP,
                    "out of memory for %zu dequantized constants", count);
      return kTfLiteError;
    }
    data->folded = folded;
    data->folded_count = count;
  }
  if (count > 0 && input->data.data == NULL) {
    lg_kernel_log(context, LG_DEQUANTIZE_OP, "the constant input has no data");
    return kTfLiteError;
  }
  if (count > 0) lg_dequantize_run(data, input, folded);
  output->data.raw = (char*)folded;
  output->allocation_type = kTfLitePersistentRo;
  return kTfLiteOk;
}

/* Every reader copied the folded output (lg_kernel_offer_folded). */
static void lg_dequantize_drop(TfLiteContext* context, TfLiteNode* node) {
  lg_dequantize_data* data = node->user_data;
  TfLiteTensor* output = &context->tensors[node->outputs->data[kOutputTensor]];
  if (output->data.raw == (char*)data->folded) output->data.raw = NULL;
  free(data->folded);
  data->folded = NULL;
  data->folded_count = 0;
}

static TfLiteStatus lg_dequantize_prepare(TfLiteContext* context,
                                          TfLiteNode* node) {
  lg_dequantize_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_DEQUANTIZE_OP,
                  "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_io(context, node, LG_DEQUANTIZE_OP, 1, 1, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_DEQUANTIZE_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, LG_DEQUANTIZE_OP,
                                         kOutputTensor, &output));
  TF_LITE_ENSURE_STATUS(lg_dequantize_check_types(context, input, output));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, LG_DEQUANTIZE_OP, "input", input));
  data->type = input->type;
  data->count = lg_kernel_num_elements(input);
  TF_LITE_ENSURE_STATUS(lg_dequantize_layout(context, data, input));
  TfLiteIntArray* shape = TfLiteIntArrayCopy(input->dims);
  if (shape == NULL) {
    lg_kernel_log(context, LG_DEQUANTIZE_OP,
                  "out of memory for the output shape");
    return kTfLiteError;
  }
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, shape));
  if (lg_kernel_is_constant(input)) {
    TF_LITE_ENSURE_STATUS(lg_dequantize_fold(context, data, input, output));
    /* The float copy is all Invoke needs; it may go once its readers
     * copied it too (a packed filter). */
    lg_kernel_release_input(context, node, kInputTensor);
    lg_kernel_offer_folded(context, node, lg_dequantize_drop);
  }
  data->prepared = true;
  return kTfLiteOk;
}

/* Converts `n` values from index `at` with one scale and zero point. */
static void lg_dequantize_span(const void* in, TfLiteType type, int64_t at,
                               int64_t n, float scale, int32_t zero_point,
                               float* out) {
  const double s = scale;
  switch (type) {
    case kTfLiteUInt8: {
      const uint8_t* q = (const uint8_t*)in;
      for (int64_t i = at; i < at + n; ++i)
        out[i] = (float)(s * (double)((int64_t)q[i] - zero_point));
      break;
    }
    case kTfLiteInt8: {
      const int8_t* q = (const int8_t*)in;
      for (int64_t i = at; i < at + n; ++i)
        out[i] = (float)(s * (double)((int64_t)q[i] - zero_point));
      break;
    }
    default: { /* INT16 */
      const int16_t* q = (const int16_t*)in;
      for (int64_t i = at; i < at + n; ++i)
        out[i] = (float)(s * (double)((int64_t)q[i] - zero_point));
      break;
    }
  }
}

static void lg_dequantize_run(const lg_dequantize_data* data,
                              const TfLiteTensor* input, float* out) {
  if (data->type == kTfLiteFloat16) {
    lg_fp16_to_fp32_array((const uint16_t*)input->data.data, out,
                          (size_t)data->count);
    return;
  }
  const TfLiteAffineQuantization* q = lg_dequantize_affine(input);
  if (q == NULL) { /* per tensor through TfLiteTensor.params */
    lg_dequantize_span(input->data.data, data->type, 0, data->count,
                       input->params.scale, input->params.zero_point, out);
    return;
  }
  for (int64_t o = 0; o < data->outer; ++o) {
    for (int64_t c = 0; c < data->channels; ++c) {
      const int32_t zero_point =
          q->zero_point->data[data->per_channel_zero_point ? c : 0];
      const int64_t at = (o * data->channels + c) * data->inner;
      lg_dequantize_span(input->data.data, data->type, at, data->inner,
                         q->scale->data[c], zero_point, out);
    }
  }
}

/* The quantization Prepare checked is still the tensor's: the channel
 * count and the zero-point layout it planned for. */
static bool lg_dequantize_same_params(const lg_dequantize_data* data,
                                      const TfLiteTensor* input) {
  if (data->type == kTfLiteFloat16) return true;
  const TfLiteAffineQuantization* q = lg_dequantize_affine(input);
  if (q == NULL) return data->channels == 1 && input->params.scale != 0.0f;
  if (data->channels == 1) return q->scale->size == 1;
  return q->scale->size == data->channels &&
         (q->zero_point->size > 1) == data->per_channel_zero_point;
}

static TfLiteStatus lg_dequantize_invoke(TfLiteContext* context,
                                         TfLiteNode* node) {
  const lg_dequantize_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, LG_DEQUANTIZE_OP,
                  "invoked before a successful prepare");
    return kTfLiteError;
  }
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_DEQUANTIZE_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, LG_DEQUANTIZE_OP,
                                         kOutputTensor, &output));
  if (lg_kernel_num_elements(input) != data->count ||
      lg_kernel_num_elements(output) != data->count ||
      input->type != data->type || !lg_dequantize_same_params(data, input)) {
    lg_kernel_log(context, LG_DEQUANTIZE_OP, "tensors changed since prepare");
    return kTfLiteError;
  }
  if (data->count == 0) return kTfLiteOk;
  if (data->folded != NULL && output->data.raw == (char*)data->folded) {
    return kTfLiteOk; /* converted in Prepare */
  }
  if (input->data.data == NULL || output->data.f == NULL) {
    lg_kernel_log(context, LG_DEQUANTIZE_OP, "a tensor has no data");
    return kTfLiteError;
  }
  lg_dequantize_run(data, input, output->data.f);
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(DEQUANTIZE, lg_dequantize_init, lg_dequantize_free,
                       lg_dequantize_prepare, lg_dequantize_invoke)
