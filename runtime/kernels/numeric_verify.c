/* NumericVerify: the custom op TFLite's BuiltinOpResolver registers by name
 * (version 1), which TFLite's converter puts after a quantized tensor to
 * compare it with the float model's value (debug models); litegpu's default
 * resolver resolves it too (ops/ops.def's custom row with a CPU range).
 *
 * Inputs: the quantized tensor (UINT8, INT8 or INT16 with affine
 * quantization, per tensor or, for UINT8 and INT8, per channel; or FLOAT16)
 * and its FLOAT32 reference with as many elements. Output: FLOAT32, the
 * input's shape: dequantized - reference, in float.
 *
 * Dequantization is TFLite's: (q - zero_point) * scale rounded once to
 * float (exact products, so the same bits as its reference and per-channel
 * kernels); a half's exact float value.
 *
 * Options (the node's custom_options, a FlexBuffers map read by
 * runtime/model/flexbuffers.c): tolerance (a float; missing reads as 0) and
 * log_if_failed (a bool; missing reads as false). A malformed map fails
 * Prepare with the reader's message. As in TFLite:
 *  - with log_if_failed and tolerance >= 0.1, an element whose |difference|
 *    (float) is above tolerance * scale (float; the scale of a per-tensor
 *    input, 0 for per-channel and FLOAT16 inputs, TFLite's legacy
 *    TfLiteTensor.params) fails Invoke with a message naming the element;
 *    the differences before it are written;
 *  - otherwise Invoke succeeds and reports the differences' statistics
 *    (standard deviation, mean and largest |difference|, in double) through
 *    the error reporter, one line, as TFLite's kernel logs them.
 * TFLite computes a constant input's output once, at its first Eval, and
 * skips the op afterwards; litegpu computes it at every Invoke (the same
 * output unless the reference changes).
 *
 * Prepare checks; Invoke does not allocate.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/fp16.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/quant_util.h"
#include "runtime/model/flexbuffers.h"
#include "tensorflow/lite/c/common.h"

#define LG_NV_OP "NumericVerify"

enum { kLgNvInput = 0, kLgNvReference = 1 };

typedef struct lg_nv_data {
  float tolerance;
  bool log_if_failed;
  bool options_ok;
  char options_error[200];
  /* Set by Prepare. */
  lg_quant_layout layout; /* integer inputs */
  float legacy_scale;     /* TFLite's params.scale: 0 unless per tensor */
  int32_t legacy_zero_point;
  int64_t count;
} lg_nv_data;

static void lg_nv_read_options(lg_nv_data* d, const char* buffer,
                               size_t length) {
  char* err = d->options_error;
  const size_t n = sizeof(d->options_error);
  lg_flex_map map;
  if (!lg_flex_open_map((const uint8_t*)buffer, length, &map)) {
    snprintf(err, n, "custom options: %s", map.error);
    return;
  }
  lg_flex_number tolerance, log_if_failed;
  if (!lg_flex_map_number(&map, "tolerance", &tolerance) ||
      !lg_flex_map_number(&map, "log_if_failed", &log_if_failed)) {
    snprintf(err, n, "custom options: %s", map.error);
    return;
  }
  d->tolerance = (float)tolerance.d;
  d->log_if_failed = log_if_failed.i != 0;
  d->options_ok = true;
}

static void* lg_nv_init(TfLiteContext* context, const char* buffer,
                        size_t length) {
  (void)context;
  lg_nv_data* d = calloc(1, sizeof(lg_nv_data));
  if (d != NULL) lg_nv_read_options(d, buffer, length);
  return d;
}

static TfLiteStatus lg_nv_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_NV_OP;
  lg_nv_data* d = node->user_data;
  if (d == NULL) {
    lg_kernel_log(context, op, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  if (!d->options_ok) {
    lg_kernel_log(context, op, "%s", d->options_error);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  const TfLiteTensor *input, *ref;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kLgNvInput, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kLgNvReference, &ref));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "reference", ref));
  switch (input->type) {
    case kTfLiteUInt8:
    case kTfLiteInt8:
    case kTfLiteInt16:
    case kTfLiteFloat16:
      break;
    default:
      lg_kernel_log(context, op,
                    "input type %s is not supported (TFLite's kernel takes "
                    "UINT8, INT8, INT16 or FLOAT16)",
                    TfLiteTypeGetName(input->type));
      return kTfLiteError;
  }
  if (ref->type != kTfLiteFloat32 || output->type != kTfLiteFloat32) {
    lg_kernel_log(context, op, "reference %s and output %s must be FLOAT32",
                  TfLiteTypeGetName(ref->type),
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  d->count = lg_kernel_num_elements(input);
  if (lg_kernel_num_elements(ref) != d->count) {
    char s1[64], s2[64];
    lg_kernel_log(context, op,
                  "reference %s and input %s must have as many elements",
                  lg_kernel_format_shape(ref->dims, s1, sizeof(s1)),
                  lg_kernel_format_shape(input->dims, s2, sizeof(s2)));
    return kTfLiteError;
  }
  d->legacy_scale = 0.0f;
  d->legacy_zero_point = 0;
  if (input->type != kTfLiteFloat16) {
    TF_LITE_ENSURE_STATUS(
        lg_quant_layout_read(context, op, "input", input, &d->layout));
    if (d->layout.scales != NULL && input->type == kTfLiteInt16) {
      lg_kernel_log(context, op,
                    "per-channel INT16 input: TFLite's kernel dequantizes "
                    "per channel UINT8 and INT8 only");
      return kTfLiteError;
    }
    if (d->layout.scales == NULL) {
      d->legacy_scale = d->layout.scale0;
      d->legacy_zero_point = d->layout.zero_point0;
    }
  }
  TfLiteIntArray* shape = TfLiteIntArrayCopy(input->dims);
  if (shape == NULL) {
    lg_kernel_log(context, op, "out of memory for the output shape");
    return kTfLiteError;
  }
  return context->ResizeTensor(context, output, shape);
}

/* Element i of the input, dequantized; *q is its stored value (0 for
 * FLOAT16, as TFLite's message gives it). */
static float lg_nv_dequantize(const lg_nv_data* d, const TfLiteTensor* input,
                              int64_t i, int32_t* q) {
  if (input->type == kTfLiteFloat16) {
    *q = 0;
    return lg_fp16_to_fp32(((const uint16_t*)input->data.raw)[i]);
  }
  int32_t v;
  switch (input->type) {
    case kTfLiteUInt8:
      v = input->data.uint8[i];
      break;
    case kTfLiteInt8:
      v = input->data.int8[i];
      break;
    default:
      v = input->data.i16[i];
      break;
  }
  *q = v;
  const lg_quant_layout* l = &d->layout;
  const int64_t c = l->channels == 1 ? 0 : (i / l->inner) % l->channels;
  const double scale = lg_quant_scale(l, c);
  return (float)(scale * (double)((int64_t)v - lg_quant_zero_point(l, c)));
}

static TfLiteStatus lg_nv_invoke(TfLiteContext* context, TfLiteNode* node) {
  lg_nv_data* d = node->user_data;
  const TfLiteTensor* input = &context->tensors[node->inputs->data[kLgNvInput]];
  const TfLiteTensor* ref =
      &context->tensors[node->inputs->data[kLgNvReference]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  const int64_t n = d->count;
  if (n > 0 && (input->data.raw == NULL || ref->data.f == NULL ||
                output->data.f == NULL)) {
    lg_kernel_log(context, LG_NV_OP, "a tensor has no data");
    return kTfLiteError;
  }
  float* out = output->data.f;
  if (d->log_if_failed && (double)d->tolerance >= 0.1) {
    const float max_diff = d->tolerance * d->legacy_scale;
    for (int64_t i = 0; i < n; ++i) {
      int32_t q;
      const float dequant = lg_nv_dequantize(d, input, i, &q);
      const float reference = ref->data.f[i];
      out[i] = dequant - reference;
      const float diff = fabsf(out[i]);
      if (diff > max_diff) {
        lg_kernel_log(context, LG_NV_OP,
                      "element %lld: %f is quantized to %d with (%f, %d): "
                      "abs(%f - %f) = %f > %f (tolerance %f times the scale)",
                      (long long)i, (double)reference, (int)q,
                      (double)d->legacy_scale, (int)d->legacy_zero_point,
                      (double)reference, (double)dequant, (double)diff,
                      (double)max_diff, (double)d->tolerance);
        return kTfLiteError;
      }
    }
    return kTfLiteOk;
  }
  double sum = 0.0, max_diff = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    int32_t q;
    out[i] = lg_nv_dequantize(d, input, i, &q) - ref->data.f[i];
    sum += (double)out[i];
  }
  const double mean = sum / (double)n;
  double sq_sum = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double x = (double)out[i];
    if (fabs(x) > max_diff) max_diff = fabs(x);
    sq_sum += (x - mean) * (x - mean);
  }
  lg_kernel_log(context, LG_NV_OP,
                "std: %f, mean: %f, max_diff: %f (scale: %f, zero_point: %d)",
                sqrt(sq_sum / (double)n), mean, max_diff,
                (double)d->legacy_scale, (int)d->legacy_zero_point);
  return kTfLiteOk;
}

const TfLiteRegistration* lg_register_NUMERIC_VERIFY(void) {
  static const TfLiteRegistration registration = {
      .init = lg_nv_init,
      .free = lg_kernel_free_data,
      .prepare = lg_nv_prepare,
      .invoke = lg_nv_invoke,
      .builtin_code = kTfLiteBuiltinCustom,
      .custom_name = LG_NV_OP,
      .version = 1,
  };
  return &registration;
}
