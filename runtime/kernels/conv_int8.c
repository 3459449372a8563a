/* INT8 CONV_2D (version 3) and DEPTHWISE_CONV_2D (version 3), TFLite's
 * reference integer kernels bit for bit (nn.h, lg_conv_int8):
 *   acc = sum over the window's taps inside the input and the group's
 *         channels of filter * (input + input_offset), + bias (int32)
 *   output = clamp(MultiplyByQuantizedMultiplier(acc, M_o, S_o) + out_zp)
 * with input_offset = -input zero point, (M_o, S_o) the fixed-point form of
 * input_scale * filter_scale[o] / output_scale computed in double (TFLite's
 * PopulateConvolutionQuantizationParams), and the clamp the fused
 * activation's quantized range. Taps in the padding are skipped (they
 * would read the input's zero point, i.e. real 0). */
#include <stdlib.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/nn.h"
#include "runtime/kernels/quant_util.h"

TfLiteStatus lg_conv_int8_check_types(TfLiteContext* context, const char* op,
                                      const TfLiteTensor* filter,
                                      const TfLiteTensor* bias,
                                      const TfLiteTensor* output) {
  if (filter->type != kTfLiteInt8 || output->type != kTfLiteInt8 ||
      (bias != NULL && bias->type != kTfLiteInt32)) {
    lg_kernel_log(context, op,
                  "INT8 input with filter %s, bias %s and output %s is not "
                  "supported (expected INT8, INT32 and INT8)",
                  TfLiteTypeGetName(filter->type),
                  bias != NULL ? TfLiteTypeGetName(bias->type) : "(none)",
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

void lg_conv_int8_free(lg_conv_int8* q) {
  free(q->multipliers);
  free(q->shifts);
  q->multipliers = NULL;
  q->shifts = NULL;
}

TfLiteStatus lg_conv_int8_prepare(TfLiteContext* context, const char* op,
                                  const TfLiteTensor* input,
                                  const TfLiteTensor* filter,
                                  const TfLiteTensor* output,
                                  TfLiteFusedActivation activation, int out_c,
                                  int filter_axis, lg_conv_int8* q) {
  lg_quant_layout in_q, f_q, out_q;
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, op, "input", input, &in_q));
  TF_LITE_ENSURE_STATUS(
      lg_quant_layout_read(context, op, "filter", filter, &f_q));
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, op, "output", output, &out_q));
  if (f_q.channels != 1 &&
      (f_q.channels != out_c ||
       filter->quantization.type != kTfLiteAffineQuantization ||
       ((const TfLiteAffineQuantization*)filter->quantization.params)
               ->quantized_dimension != filter_axis)) {
    lg_kernel_log(context, op,
                  "per-channel filter quantization must have one scale per "
                  "output channel (%d) along filter dimension %d",
                  out_c, filter_axis);
    return kTfLiteError;
  }
  for (int64_t c = 0; c < f_q.channels; ++c) {
    if (lg_quant_zero_point(&f_q, c) != 0) {
      lg_kernel_log(context, op,
                    "filter zero point %d (channel %lld): INT8 filters are "
                    "symmetric, with zero point 0",
                    (int)lg_quant_zero_point(&f_q, c), (long long)c);
      return kTfLiteError;
    }
  }
  lg_conv_int8_free(q);
  const size_t n = out_c > 0 ? (size_t)out_c : 1;
  q->multipliers = malloc(sizeof(int32_t) * n);
  q->shifts = malloc(sizeof(int) * n);
  if (q->multipliers == NULL || q->shifts == NULL) {
    lg_conv_int8_free(q);
    lg_kernel_log(context, op, "out of memory for %zu multipliers", n);
    return kTfLiteError;
  }
  for (size_t o = 0; o < n; ++o) {
    const double real = (double)in_q.scale0 *
                        (double)lg_quant_scale(&f_q, (int64_t)o) /
                        (double)out_q.scale0;
    lg_quantize_multiplier(real, &q->multipliers[o], &q->shifts[o]);
  }
  q->input_offset = -in_q.zero_point0;
  q->output_offset = out_q.zero_point0;
  return lg_quant_activation_range(context, op, activation, kTfLiteInt8,
                                   out_q.scale0, out_q.zero_point0, &q->act_min,
                                   &q->act_max);
}

/* One output value of the window at (y0, x0) for output channel o. */
static int8_t lg_conv_int8_one(const lg_conv_geometry* g, const lg_conv_int8* q,
                               const int8_t* image, const int8_t* filter,
                               const int32_t* bias, int y0, int x0, int o,
                               int channel0) {
  int32_t acc = 0;
  for (int fy = 0; fy < g->filter_h; ++fy) {
    const int y = y0 + fy * g->dilation_h;
    if (y < 0 || y >= g->in_h) continue;
    for (int fx = 0; fx < g->filter_w; ++fx) {
      const int x = x0 + fx * g->dilation_w;
      if (x < 0 || x >= g->in_w) continue;
      const int8_t* in = image + ((size_t)y * g->in_w + x) * g->in_c + channel0;
      const int8_t* w =
          filter +
          (((size_t)o * g->filter_h + fy) * g->filter_w + fx) * g->filter_c;
      for (int c = 0; c < g->filter_c; ++c) {
        acc += (int32_t)w[c] * ((int32_t)in[c] + q->input_offset);
      }
    }
  }
  if (bias != NULL) acc += bias[o];
  acc =
      lg_multiply_by_quantized_multiplier(acc, q->multipliers[o], q->shifts[o]);
  acc += q->output_offset;
  if (acc < q->act_min) acc = q->act_min;
  if (acc > q->act_max) acc = q->act_max;
  return (int8_t)acc;
}

void lg_conv_int8_run(const lg_conv_geometry* g, int groups,
                      const lg_conv_int8* q, const int8_t* input,
                      const int8_t* filter, const int32_t* bias,
                      int8_t* output) {
  const int per_group = g->out_c / groups;
  for (int n = 0; n < g->batch; ++n) {
    const int8_t* image = input + (size_t)n * g->in_h * g->in_w * g->in_c;
    for (int oy = 0; oy < g->out_h; ++oy) {
      const int y0 = oy * g->stride_h - g->pad_top;
      for (int ox = 0; ox < g->out_w; ++ox) {
        const int x0 = ox * g->stride_w - g->pad_left;
        int8_t* out =
            output + (((size_t)n * g->out_h + oy) * g->out_w + ox) * g->out_c;
        for (int o = 0; o < g->out_c; ++o) {
          out[o] = lg_conv_int8_one(g, q, image, filter, bias, y0, x0, o,
                                    (o / per_group) * g->filter_c);
        }
      }
    }
  }
}

/* One DEPTHWISE output value: output channel o of the window at (y0, x0),
 * reading input channel c. */
static int8_t lg_depthwise_int8_one(const lg_conv_geometry* g,
                                    const lg_conv_int8* q, const int8_t* image,
                                    const int8_t* filter, const int32_t* bias,
                                    int y0, int x0, int c, int o) {
  int32_t acc = 0;
  for (int fy = 0; fy < g->filter_h; ++fy) {
    const int y = y0 + fy * g->dilation_h;
    if (y < 0 || y >= g->in_h) continue;
    for (int fx = 0; fx < g->filter_w; ++fx) {
      const int x = x0 + fx * g->dilation_w;
      if (x < 0 || x >= g->in_w) continue;
      const int32_t in = image[((size_t)y * g->in_w + x) * g->in_c + c];
      const int32_t w = filter[((size_t)fy * g->filter_w + fx) * g->out_c + o];
      acc += w * (in + q->input_offset);
    }
  }
  if (bias != NULL) acc += bias[o];
  acc =
      lg_multiply_by_quantized_multiplier(acc, q->multipliers[o], q->shifts[o]);
  acc += q->output_offset;
  if (acc < q->act_min) acc = q->act_min;
  if (acc > q->act_max) acc = q->act_max;
  return (int8_t)acc;
}

void lg_depthwise_int8_run(const lg_conv_geometry* g, const lg_conv_int8* q,
                           const int8_t* input, const int8_t* filter,
                           const int32_t* bias, int8_t* output) {
  const int multiplier = g->out_c / g->in_c;
  for (int n = 0; n < g->batch; ++n) {
    const int8_t* image = input + (size_t)n * g->in_h * g->in_w * g->in_c;
    for (int oy = 0; oy < g->out_h; ++oy) {
      const int y0 = oy * g->stride_h - g->pad_top;
      for (int ox = 0; ox < g->out_w; ++ox) {
        const int x0 = ox * g->stride_w - g->pad_left;
        int8_t* out =
            output + (((size_t)n * g->out_h + oy) * g->out_w + ox) * g->out_c;
        for (int o = 0; o < g->out_c; ++o) {
          out[o] = lg_depthwise_int8_one(g, q, image, filter, bias, y0, x0,
                                         o / multiplier, o);
        }
      }
    }
  }
}
