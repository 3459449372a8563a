/* Quantized CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV, TFLite's
 * reference integer kernels bit for bit (nn.h, lg_conv_quant):
 *   acc = sum over the window's taps inside the input and the group's
 *         channels of filter * (input + input_offset), + bias
 *   output = clamp(MultiplyByQuantizedMultiplier(acc, M_o, S_o) + out_zp)
 * with input_offset = -input zero point, (M_o, S_o) the fixed-point form of
 * input_scale * filter_scale[o] / output_scale computed in double (TFLite's
 * PopulateConvolutionQuantizationParams), and the clamp the fused
 * activation's quantized range. Taps in the padding are skipped (they
 * would read the input's zero point, i.e. real 0).
 *
 * Two signatures:
 *   INT8   input and output, INT8 filter, INT32 bias: int32 accumulators
 *          and the 32-bit rescale (lg_multiply_by_quantized_multiplier);
 *   INT16  input and output (16x8: zero points 0), INT8 filter, INT64 bias:
 *          int64 accumulators and TFLite's int64 rescale
 *          (lg_multiply_by_quantized_multiplier_int64); with an INT32 bias
 *          (quantized_bias_type INT32) TFLite accumulates in int32 and
 *          rescales in 32 bits, and so does this.
 * Integer sums do not depend on their order, so TRANSPOSE_CONV gathers
 * each output from the input pixels that reach it where TFLite scatters.
 */
#include <stdlib.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/nn.h"
#include "runtime/kernels/quant_util.h"

TfLiteStatus lg_conv_quant_check_types(TfLiteContext* context, const char* op,
                                       const TfLiteTensor* input,
                                       const TfLiteTensor* filter,
                                       const TfLiteTensor* bias,
                                       const TfLiteTensor* output) {
  const bool wide = input->type == kTfLiteInt16;
  const bool bias_ok = bias == NULL || bias->type == kTfLiteInt32 ||
                       (wide && bias->type == kTfLiteInt64);
  if (filter->type != kTfLiteInt8 || output->type != input->type || !bias_ok) {
    lg_kernel_log(
        context, op,
        "%s input with filter %s, bias %s and output %s is not "
        "supported (expected INT8, %s and %s)",
        TfLiteTypeGetName(input->type), TfLiteTypeGetName(filter->type),
        bias != NULL ? TfLiteTypeGetName(bias->type) : "(none)",
        TfLiteTypeGetName(output->type), wide ? "INT64 or INT32" : "INT32",
        TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

void lg_conv_quant_free(lg_conv_quant* q) {
  free(q->multipliers);
  free(q->shifts);
  q->multipliers = NULL;
  q->shifts = NULL;
}

/* Per-channel filters: one scale per output channel along filter_axis;
 * every filter zero point 0. */
static TfLiteStatus lg_conv_quant_check_filter(TfLiteContext* context,
                                               const char* op,
                                               const TfLiteTensor* filter,
                                               const lg_quant_layout* f_q,
                                               int out_c, int filter_axis) {
  if (f_q->channels != 1 &&
      (f_q->channels != out_c ||
       filter->quantization.type != kTfLiteAffineQuantization ||
       ((const TfLiteAffineQuantization*)filter->quantization.params)
               ->quantized_dimension != filter_axis)) {
    lg_kernel_log(context, op,
                  "per-channel filter quantization must have one scale per "
                  "output channel (%d) along filter dimension %d",
                  out_c, filter_axis);
    return kTfLiteError;
  }
  for (int64_t c = 0; c < f_q->channels; ++c) {
    if (lg_quant_zero_point(f_q, c) != 0) {
      lg_kernel_log(context, op,
                    "filter zero point %d (channel %lld): INT8 filters are "
                    "symmetric, with zero point 0",
                    (int)lg_quant_zero_point(f_q, c), (long long)c);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

/* INT16 activations are symmetric: zero points 0. */
static TfLiteStatus lg_conv_quant_check_symmetric(TfLiteContext* context,
                                                  const char* op,
                                                  const char* role,
                                                  const lg_quant_layout* q) {
  if (q->zero_point0 == 0) return kTfLiteOk;
  lg_kernel_log(context, op,
                "%s of type INT16 has zero point %d; INT16 quantization is "
                "symmetric (zero point 0)",
                role, (int)q->zero_point0);
  return kTfLiteError;
}

/* The per-channel rescales; the int64 rescale takes factors below 2^14. */
static TfLiteStatus lg_conv_quant_multipliers(TfLiteContext* context,
                                              const char* op,
                                              const lg_quant_layout* in_q,
                                              const lg_quant_layout* f_q,
                                              const lg_quant_layout* out_q,
                                              int out_c, lg_conv_quant* q) {
  lg_conv_quant_free(q);
  const size_t n = out_c > 0 ? (size_t)out_c : 1;
  q->multipliers = malloc(sizeof(int32_t) * n);
  q->shifts = malloc(sizeof(int) * n);
  if (q->multipliers == NULL || q->shifts == NULL) {
    lg_conv_quant_free(q);
    lg_kernel_log(context, op, "out of memory for %zu multipliers", n);
    return kTfLiteError;
  }
  for (size_t o = 0; o < n; ++o) {
    const double real = (double)in_q->scale0 *
                        (double)lg_quant_scale(f_q, (int64_t)o) /
                        (double)out_q->scale0;
    lg_quantize_multiplier(real, &q->multipliers[o], &q->shifts[o]);
    if (q->wide_bias && q->shifts[o] > 14) {
      lg_kernel_log(context, op,
                    "output channel %zu rescales by %g (input scale x filter "
                    "scale / output scale), above the 2^14 an INT64 bias "
                    "allows",
                    o, real);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

TfLiteStatus lg_conv_quant_prepare(TfLiteContext* context, const char* op,
                                   const TfLiteTensor* input,
                                   const TfLiteTensor* filter,
                                   const TfLiteTensor* bias,
                                   const TfLiteTensor* output,
                                   TfLiteFusedActivation activation, int out_c,
                                   int filter_axis, lg_conv_quant* q) {
  lg_quant_layout in_q, f_q, out_q;
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, op, "input", input, &in_q));
  TF_LITE_ENSURE_STATUS(
      lg_quant_layout_read(context, op, "filter", filter, &f_q));
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, op, "output", output, &out_q));
  TF_LITE_ENSURE_STATUS(lg_conv_quant_check_filter(context, op, filter, &f_q,
                                                   out_c, filter_axis));
  q->type = input->type;
  q->wide_bias =
      bias == NULL ? input->type == kTfLiteInt16 : bias->type == kTfLiteInt64;
  if (q->type == kTfLiteInt16) {
    TF_LITE_ENSURE_STATUS(
        lg_conv_quant_check_symmetric(context, op, "input", &in_q));
    TF_LITE_ENSURE_STATUS(
        lg_conv_quant_check_symmetric(context, op, "output", &out_q));
  }
  TF_LITE_ENSURE_STATUS(
      lg_conv_quant_multipliers(context, op, &in_q, &f_q, &out_q, out_c, q));
  q->input_offset = -in_q.zero_point0;
  q->output_offset = out_q.zero_point0;
  return lg_quant_activation_range(context, op, activation, output->type,
                                   out_q.scale0, out_q.zero_point0, &q->act_min,
                                   &q->act_max);
}

/* The output value of accumulator `acc` for output channel o. */
static inline int32_t lg_conv_quant_finish(const lg_conv_quant* q, int64_t acc,
                                           int o) {
  int32_t v = q->wide_bias ? lg_multiply_by_quantized_multiplier_int64(
                                 acc, q->multipliers[o], q->shifts[o])
                           : lg_multiply_by_quantized_multiplier(
                                 (int32_t)(uint32_t)acc, q->multipliers[o],
                                 q->shifts[o]);
  v += q->output_offset;
  if (v < q->act_min) v = q->act_min;
  if (v > q->act_max) v = q->act_max;
  return v;
}

static inline int64_t lg_conv_quant_bias(const lg_conv_quant* q,
                                         const void* bias, int o) {
  if (bias == NULL) return 0;
  return q->wide_bias ? ((const int64_t*)bias)[o] : ((const int32_t*)bias)[o];
}

/* Defines the CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV loops for
 * activations of type T accumulated in ACC (int32 for INT8, whose sums
 * TFLite keeps in int32; int64 for INT16, wide enough for any 16x8 sum;
 * the 32-bit rescale of an INT32-bias 16x8 conv truncates it back to int32
 * as TFLite's int32 accumulator would hold it). */
#define LG_CONV_QUANT_LOOPS(SUFFIX, T, ACC)                                    \
  static ACC lg_conv_window_##SUFFIX(                                          \
      const lg_conv_geometry* g, const lg_conv_quant* q, const T* image,       \
      const int8_t* filter, int y0, int x0, int o, int channel0) {             \
    ACC acc = 0;                                                               \
    for (int fy = 0; fy < g->filter_h; ++fy) {                                 \
      const int y = y0 + fy * g->dilation_h;                                   \
      if (y < 0 || y >= g->in_h) continue;                                     \
      for (int fx = 0; fx < g->filter_w; ++fx) {                               \
        const int x = x0 + fx * g->dilation_w;                                 \
        if (x < 0 || x >= g->in_w) continue;                                   \
        const T* in = image + ((size_t)y * g->in_w + x) * g->in_c + channel0;  \
        const int8_t* w =                                                      \
            filter +                                                           \
            (((size_t)o * g->filter_h + fy) * g->filter_w + fx) * g->filter_c; \
        for (int c = 0; c < g->filter_c; ++c) {                                \
          acc += (ACC)w[c] * ((ACC)in[c] + q->input_offset);                   \
        }                                                                      \
      }                                                                        \
    }                                                                          \
    return acc;                                                                \
  }                                                                            \
                                                                               \
  static void lg_conv_quant_run_##SUFFIX(                                      \
      const lg_conv_geometry* g, int groups, const lg_conv_quant* q,           \
      const T* input, const int8_t* filter, const void* bias, T* output) {     \
    const int per_group = g->out_c / groups;                                   \
    for (int n = 0; n < g->batch; ++n) {                                       \
      const T* image = input + (size_t)n * g->in_h * g->in_w * g->in_c;        \
      for (int oy = 0; oy < g->out_h; ++oy) {                                  \
        const int y0 = oy * g->stride_h - g->pad_top;                          \
        for (int ox = 0; ox < g->out_w; ++ox) {                                \
          const int x0 = ox * g->stride_w - g->pad_left;                       \
          T* out = output +                                                    \
                   (((size_t)n * g->out_h + oy) * g->out_w + ox) * g->out_c;   \
          for (int o = 0; o < g->out_c; ++o) {                                 \
            const ACC acc =                                                    \
                lg_conv_window_##SUFFIX(g, q, image, filter, y0, x0, o,        \
                                        (o / per_group) * g->filter_c) +       \
                (ACC)lg_conv_quant_bias(q, bias, o);                           \
            out[o] = (T)lg_conv_quant_finish(q, acc, o);                       \
          }                                                                    \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }                                                                            \
                                                                               \
  static void lg_depthwise_quant_run_##SUFFIX(                                 \
      const lg_conv_geometry* g, const lg_conv_quant* q, const T* input,       \
      const int8_t* filter, const void* bias, T* output) {                     \
    const int multiplier = g->out_c / g->in_c;                                 \
    for (int n = 0; n < g->batch; ++n) {                                       \
      const T* image = input + (size_t)n * g->in_h * g->in_w * g->in_c;        \
      for (int oy = 0; oy < g->out_h; ++oy) {                                  \
        const int y0 = oy * g->stride_h - g->pad_top;                          \
        for (int ox = 0; ox < g->out_w; ++ox) {                                \
          const int x0 = ox * g->stride_w - g->pad_left;                       \
          T* out = output +                                                    \
                   (((size_t)n * g->out_h + oy) * g->out_w + ox) * g->out_c;   \
          for (int o = 0; o < g->out_c; ++o) {                                 \
            const int c = o / multiplier;                                      \
            ACC acc = (ACC)lg_conv_quant_bias(q, bias, o);                     \
            for (int fy = 0; fy < g->filter_h; ++fy) {                         \
              const int y = y0 + fy * g->dilation_h;                           \
              if (y < 0 || y >= g->in_h) continue;                             \
              for (int fx = 0; fx < g->filter_w; ++fx) {                       \
                const int x = x0 + fx * g->dilation_w;                         \
                if (x < 0 || x >= g->in_w) continue;                           \
                const ACC v = image[((size_t)y * g->in_w + x) * g->in_c + c];  \
                const ACC w =                                                  \
                    filter[((size_t)fy * g->filter_w + fx) * g->out_c + o];    \
                acc += w * (v + q->input_offset);                              \
              }                                                                \
            }                                                                  \
            out[o] = (T)lg_conv_quant_finish(q, acc, o);                       \
          }                                                                    \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }                                                                            \
                                                                               \
  static void lg_transpose_conv_quant_run_##SUFFIX(                            \
      const lg_conv_geometry* g, const lg_conv_quant* q, const T* input,       \
      const int8_t* filter, const void* bias, T* output) {                     \
    for (int n = 0; n < g->batch; ++n) {                                       \
      const T* image = input + (size_t)n * g->in_h * g->in_w * g->in_c;        \
      for (int oy = 0; oy < g->out_h; ++oy) {                                  \
        for (int ox = 0; ox < g->out_w; ++ox) {                                \
          T* out = output +                                                    \
                   (((size_t)n * g->out_h + oy) * g->out_w + ox) * g->out_c;   \
          for (int o = 0; o < g->out_c; ++o) {                                 \
            ACC acc = 0;                                                       \
            for (int kh = 0; kh < g->filter_h; ++kh) {                         \
              const int sy = oy + g->pad_top - kh;                             \
              if (sy < 0 || sy % g->stride_h != 0 ||                           \
                  sy / g->stride_h >= g->in_h) {                               \
                continue;                                                      \
              }                                                                \
              for (int kw = 0; kw < g->filter_w; ++kw) {                       \
                const int sx = ox + g->pad_left - kw;                          \
                if (sx < 0 || sx % g->stride_w != 0 ||                         \
                    sx / g->stride_w >= g->in_w) {                             \
                  continue;                                                    \
                }                                                              \
                const T* in = image + ((size_t)(sy / g->stride_h) * g->in_w +  \
                                       sx / g->stride_w) *                     \
                                          g->in_c;                             \
                const int8_t* w =                                              \
                    filter +                                                   \
                    (((size_t)o * g->filter_h + kh) * g->filter_w + kw) *      \
                        g->in_c;                                               \
                for (int c = 0; c < g->in_c; ++c) {                            \
                  acc += (ACC)w[c] * ((ACC)in[c] + q->input_offset);           \
                }                                                              \
              }                                                                \
            }                                                                  \
            acc += (ACC)lg_conv_quant_bias(q, bias, o);                        \
            out[o] = (T)lg_conv_quant_finish(q, acc, o);                       \
          }                                                                    \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

LG_CONV_QUANT_LOOPS(i8, int8_t, int32_t)
LG_CONV_QUANT_LOOPS(i16, int16_t, int64_t)

void lg_conv_quant_run(const lg_conv_geometry* g, int groups,
                       const lg_conv_quant* q, const void* input,
                       const int8_t* filter, const void* bias, void* output) {
  if (q->type == kTfLiteInt16) {
    lg_conv_quant_run_i16(g, groups, q, input, filter, bias, output);
  } else {
    lg_conv_quant_run_i8(g, groups, q, input, filter, bias, output);
  }
}

void lg_depthwise_quant_run(const lg_conv_geometry* g, const lg_conv_quant* q,
                            const void* input, const int8_t* filter,
                            const void* bias, void* output) {
  if (q->type == kTfLiteInt16) {
    lg_depthwise_quant_run_i16(g, q, input, filter, bias, output);
  } else {
    lg_depthwise_quant_run_i8(g, q, input, filter, bias, output);
  }
}

void lg_transpose_conv_quant_run(const lg_conv_geometry* g,
                                 const lg_conv_quant* q, const void* input,
                                 const int8_t* filter, const void* bias,
                                 void* output) {
  if (q->type == kTfLiteInt16) {
    lg_transpose_conv_quant_run_i16(g, q, input, filter, bias, output);
  } else {
    lg_transpose_conv_quant_run_i8(g, q, input, filter, bias, output);
  }
}
