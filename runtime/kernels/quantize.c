/* QUANTIZE, with TFLite's reference semantics bit for bit:
 *
 *   FLOAT32 -> UINT8, INT8, INT16 (per tensor or per channel along the
 *     output's quantized_dimension):
 *       q = clamp((int32)round(x / scale) + zero_point)
 *     x / scale in float, round() half away from zero, as TFLite's
 *     AffineQuantize. A quotient outside int32's range (inf, NaN, huge x)
 *     converts as TFLite's unchecked cast does on x86 (INT32_MIN, the
 *     "integer indefinite"), and the zero point is then added with int32
 *     wrap-around: so +inf quantizes to the type's minimum, as in TFLite.
 *   requantization, per tensor: INT8/UINT8 -> INT8/UINT8, INT16 ->
 *     INT8/INT16/INT32, INT32 -> INT8/INT16:
 *       q = clamp(round((x - zp_in) * scale_in / scale_out) + zp_out)
 *     with the fixed-point multiplier of scale_in / scale_out
 *     (quant_util.h). INT16 -> INT16 needs both zero points 0.
 *
 * Versions (TFLite's op_version): 1 uint8/int8, 2 int16 output, 3 per
 * channel are computed; 4 (INT4) and 5 (UINT4) are rejected in Prepare
 * with the type's name.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/quant_util.h"
#include "tensorflow/lite/c/common.h"

#define LG_QUANTIZE_OP "QUANTIZE"

typedef struct lg_quantize_data {
  bool prepared;
  TfLiteType in_type, out_type;
  int64_t count;
  lg_quant_layout out_q; /* the output's (float input: per channel too) */
  int32_t in_zero_point; /* requantization only */
  int32_t multiplier;
  int shift;
} lg_quantize_data;

static void* lg_quantize_init(TfLiteContext* context, const char* buffer,
                              size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_quantize_data));
}

/* Whether TFLite's QUANTIZE converts in_type to out_type. */
static bool lg_quantize_pair_supported(TfLiteType in, TfLiteType out) {
  switch (in) {
    case kTfLiteFloat32:
      return out == kTfLiteUInt8 || out == kTfLiteInt8 || out == kTfLiteInt16;
    case kTfLiteInt8:
    case kTfLiteUInt8:
      return out == kTfLiteUInt8 || out == kTfLiteInt8;
    case kTfLiteInt16:
      return out == kTfLiteInt8 || out == kTfLiteInt16 || out == kTfLiteInt32;
    case kTfLiteInt32:
      return out == kTfLiteInt8 || out == kTfLiteInt16;
    default:
      return false;
  }
}

static TfLiteStatus lg_quantize_check_types(TfLiteContext* context,
                                            const TfLiteTensor* input,
                                            const TfLiteTensor* output) {
  if (input->type == kTfLiteInt4 || output->type == kTfLiteInt4 ||
      input->type == kTfLiteUInt4 || output->type == kTfLiteUInt4) {
    lg_kernel_log(
        context, LG_QUANTIZE_OP,
        "%s to %s is not supported (QUANTIZE version %d)",
        TfLiteTypeGetName(input->type), TfLiteTypeGetName(output->type),
        input->type == kTfLiteUInt4 || output->type == kTfLiteUInt4 ? 5 : 4);
    return kTfLiteError;
  }
  if (!lg_quantize_pair_supported(input->type, output->type)) {
    lg_kernel_log(context, LG_QUANTIZE_OP,
                  "input type %s with output type %s is not supported",
                  TfLiteTypeGetName(input->type),
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Requantization: per-tensor parameters on both sides and the fixed-point
 * multiplier of their ratio. */
static TfLiteStatus lg_quantize_prepare_requantize(TfLiteContext* context,
                                                   lg_quantize_data* data,
                                                   const TfLiteTensor* input) {
  lg_quant_layout in_q;
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, LG_QUANTIZE_OP, "input", input, &in_q));
  if (data->out_q.channels != 1) {
    lg_kernel_log(context, LG_QUANTIZE_OP,
                  "requantizing %s to %s takes per-tensor quantization (the "
                  "output has %lld scales)",
                  TfLiteTypeGetName(data->in_type),
                  TfLiteTypeGetName(data->out_type),
                  (long long)data->out_q.channels);
    return kTfLiteError;
  }
  if (data->in_type == kTfLiteInt16 && data->out_type == kTfLiteInt16 &&
      (in_q.zero_point0 != 0 || data->out_q.zero_point0 != 0)) {
    lg_kernel_log(context, LG_QUANTIZE_OP,
                  "INT16 to INT16 needs zero points 0 (input %d, output %d)",
                  (int)in_q.zero_point0, (int)data->out_q.zero_point0);
    return kTfLiteError;
  }
  data->in_zero_point = in_q.zero_point0;
  lg_quantize_multiplier((double)in_q.scale0 / (double)data->out_q.scale0,
                         &data->multiplier, &data->shift);
  return kTfLiteOk;
}

static TfLiteStatus lg_quantize_prepare(TfLiteContext* context,
                                        TfLiteNode* node) {
  lg_quantize_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_QUANTIZE_OP,
                  "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_io(context, node, LG_QUANTIZE_OP, 1, 1, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_QUANTIZE_OP, 0, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_QUANTIZE_OP, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_quantize_check_types(context, input, output));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, LG_QUANTIZE_OP, "input", input));
  data->in_type = input->type;
  data->out_type = output->type;
  data->count = lg_kernel_num_elements(input);
  TfLiteIntArray* shape = TfLiteIntArrayCopy(input->dims);
  if (shape == NULL) {
    lg_kernel_log(context, LG_QUANTIZE_OP,
                  "out of memory for the output shape");
    return kTfLiteError;
  }
  /* ResizeTensor owns `shape` from here on, also when it fails; the
   * output's per-channel layout is checked against its new shape. */
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, shape));
  TF_LITE_ENSURE_STATUS(lg_quant_layout_read(context, LG_QUANTIZE_OP, "output",
                                             output, &data->out_q));
  if (input->type != kTfLiteFloat32) {
    TF_LITE_ENSURE_STATUS(lg_quantize_prepare_requantize(context, data, input));
  }
  data->prepared = true;
  return kTfLiteOk;
}

/* One float quantized as TFLite's reference kernel does (see the header). */
static int32_t lg_quantize_one(float x, float scale, int32_t zero_point,
                               int32_t lo, int32_t hi) {
  const int32_t i = lg_quant_round_to_int(x / scale);
  const int32_t q = (int32_t)((uint32_t)i + (uint32_t)zero_point);
  return q < lo ? lo : (q > hi ? hi : q);
}

static int32_t lg_quantize_read_int(const void* in, TfLiteType type,
                                    int64_t i) {
  switch (type) {
    case kTfLiteUInt8:
      return ((const uint8_t*)in)[i];
    case kTfLiteInt8:
      return ((const int8_t*)in)[i];
    case kTfLiteInt16:
      return ((const int16_t*)in)[i];
    default:
      return ((const int32_t*)in)[i];
  }
}

static void lg_quantize_write_int(void* out, TfLiteType type, int64_t i,
                                  int32_t v) {
  switch (type) {
    case kTfLiteUInt8:
      ((uint8_t*)out)[i] = (uint8_t)v;
      break;
    case kTfLiteInt8:
      ((int8_t*)out)[i] = (int8_t)v;
      break;
    case kTfLiteInt16:
      ((int16_t*)out)[i] = (int16_t)v;
      break;
    default:
      ((int32_t*)out)[i] = v;
      break;
  }
}

static void lg_quantize_float(const lg_quantize_data* data, const float* in,
                              void* out) {
  int32_t lo = 0, hi = 0;
  lg_quant_type_range(data->out_type, &lo, &hi);
  const lg_quant_layout* q = &data->out_q;
  for (int64_t o = 0; o < q->outer; ++o) {
    for (int64_t c = 0; c < q->channels; ++c) {
      const float scale = lg_quant_scale(q, c);
      const int32_t zero_point = lg_quant_zero_point(q, c);
      const int64_t at = (o * q->channels + c) * q->inner;
      for (int64_t i = at; i < at + q->inner; ++i) {
        lg_quantize_write_int(
            out, data->out_type, i,
            lg_quantize_one(in[i], scale, zero_point, lo, hi));
      }
    }
  }
}

static void lg_quantize_requantize(const lg_quantize_data* data, const void* in,
                                   void* out) {
  int32_t lo = 0, hi = 0;
  lg_quant_type_range(data->out_type, &lo, &hi);
  const int32_t out_zero_point = data->out_q.zero_point0;
  for (int64_t i = 0; i < data->count; ++i) {
    /* TFLite subtracts and adds the zero points in int32 too; an INT32
     * input near its ends wraps there as TFLite's machine code does. */
    const int32_t x =
        (int32_t)((uint32_t)lg_quantize_read_int(in, data->in_type, i) -
                  (uint32_t)data->in_zero_point);
    const int32_t scaled =
        lg_multiply_by_quantized_multiplier(x, data->multiplier, data->shift);
    const int32_t q = (int32_t)((uint32_t)scaled + (uint32_t)out_zero_point);
    lg_quantize_write_int(out, data->out_type, i,
                          q < lo ? lo : (q > hi ? hi : q));
  }
}

static TfLiteStatus lg_quantize_invoke(TfLiteContext* context,
                                       TfLiteNode* node) {
  const lg_quantize_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, LG_QUANTIZE_OP,
                  "invoked before a successful prepare");
    return kTfLiteError;
  }
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_QUANTIZE_OP, 0, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_QUANTIZE_OP, 0, &output));
  if (lg_kernel_num_elements(input) != data->count ||
      lg_kernel_num_elements(output) != data->count ||
      input->type != data->in_type || output->type != data->out_type) {
    lg_kernel_log(context, LG_QUANTIZE_OP, "tensors changed since prepare");
    return kTfLiteError;
  }
  if (data->count == 0) return kTfLiteOk;
  if (input->data.data == NULL || output->data.data == NULL) {
    lg_kernel_log(context, LG_QUANTIZE_OP, "a tensor has no data");
    return kTfLiteError;
  }
  if (data->in_type == kTfLiteFloat32) {
    lg_quantize_float(data, input->data.f, output->data.data);
  } else {
    lg_quantize_requantize(data, input->data.data, output->data.data);
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(QUANTIZE, lg_quantize_init, lg_kernel_free_data,
                       lg_quantize_prepare, lg_quantize_invoke)
