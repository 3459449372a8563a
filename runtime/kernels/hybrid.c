/* Dynamic-range ("hybrid") FULLY_CONNECTED and CONV_2D: float input and
 * output, INT8 weights. As TFLite's kernels, bit for bit:
 *
 *   Each batch element of the input is quantized to int8 on the fly:
 *     symmetric   scale = max(|min|, |max|) / 127 (float), q =
 *                 clamp(round(x * (127 / range)), -127, 127); an all-zero
 *                 element gives q = 0 and scale 1;
 *     asymmetric  (FULLY_CONNECTED's asymmetric_quantize_inputs, and
 *                 CONV_2D with per-channel weights, TRANSPOSE_CONV) TFLite's
 *                 AsymmetricQuantizeFloats: the range [min(0, lo),
 *                 max(0, hi)] over 255 steps, in float; a nudged zero
 *                 point in double; q = clamp(round(zp + x / scale), -128,
 *                 127) in double. (LiteRT's current source divides the
 *                 range in double and multiplies by a float inverse; its
 *                 x86 release, which the tests compare against, computes
 *                 as here: each alternative differs from it on some
 *                 inputs.)
 *   FULLY_CONNECTED  out = bias (or 0); out += (float)(sum w * q - zp *
 *                 sum w) * s, with s = input scale * weight scale (per
 *                 channel: the input scale times the channel's scale, per
 *                 output); then the activation. An all-zero input leaves
 *                 activation(bias).
 *   CONV_2D       equal weight scales: symmetric, out = (float)acc * (input
 *                 scale * weight scale) + bias (TFLite's HybridConv);
 *                 differing scales: asymmetric, out = (float)acc * weight
 *                 scale[o] * input scale + bias (HybridConvPerChannel),
 *                 acc summing w * (q - zp) over the taps inside the input;
 *                 then the activation's clamp.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/nn.h"
#include "runtime/kernels/quant_simd.h"
#include "runtime/kernels/quant_util.h"

void lg_hybrid_quantize_symmetric(const float* x, int64_t n, int8_t* q,
                                  float* scale) {
  float lo = n > 0 ? x[0] : 0.0f, hi = lo;
  for (int64_t i = 1; i < n; ++i) {
    if (x[i] < lo) lo = x[i];
    if (hi < x[i]) hi = x[i];
  }
  const float range = fabsf(lo) > fabsf(hi) ? fabsf(lo) : fabsf(hi);
  if (range == 0.0f) {
    memset(q, 0, (size_t)n);
    *scale = 1.0f;
    return;
  }
  *scale = range / 127.0f;
  const float inverse = 127.0f / range;
  for (int64_t i = 0; i < n; ++i) {
    int32_t v = lg_quant_round_to_int(x[i] * inverse);
    v = v < -127 ? -127 : (v > 127 ? 127 : v);
    q[i] = (int8_t)v;
  }
}

void lg_hybrid_quantize_asymmetric(const float* x, int64_t n, int8_t* q,
                                   float* scale, int32_t* zero_point) {
  float lo = n > 0 ? x[0] : 0.0f, hi = lo;
  for (int64_t i = 1; i < n; ++i) {
    if (x[i] < lo) lo = x[i];
    if (hi < x[i]) hi = x[i];
  }
  const float rmin_f = lo < 0.0f ? lo : 0.0f;
  const float rmax_f = hi > 0.0f ? hi : 0.0f;
  if (rmin_f == rmax_f) {
    memset(q, 0, (size_t)n);
    *scale = 1.0f;
    *zero_point = 0;
    return;
  }
  /* The scale in float; the zero point and q from it in double. */
  const float s_f = (rmax_f - rmin_f) / 255.0f;
  const double rmin = rmin_f, rmax = rmax_f, s = s_f;
  const double qmin = -128.0, qmax = 127.0;
  const double from_min = qmin - rmin / s;
  const double from_max = qmax - rmax / s;
  const double from_min_error = fabs(qmin) + fabs(rmin / s);
  const double from_max_error = fabs(qmax) + fabs(rmax / s);
  const double zp = from_min_error < from_max_error ? from_min : from_max;
  int32_t nudged = 0;
  if (zp <= qmin) {
    nudged = -128;
  } else if (zp >= qmax) {
    nudged = 127;
  } else {
    nudged = (int32_t)round(zp);
  }
  *scale = s_f;
  *zero_point = nudged;
  for (int64_t i = 0; i < n; ++i) {
    int32_t v = lg_quant_round_to_int_double((double)nudged + (double)x[i] / s);
    v = v < -128 ? -128 : (v > 127 ? 127 : v);
    q[i] = (int8_t)v;
  }
}

TfLiteStatus lg_hybrid_prepare(TfLiteContext* context, const char* op,
                               const TfLiteTensor* weights, int out_c,
                               int channel_axis, bool asymmetric,
                               int64_t input_elements, int batch,
                               lg_hybrid* h) {
  lg_quant_layout w_q;
  TF_LITE_ENSURE_STATUS(
      lg_quant_layout_read(context, op, "weights", weights, &w_q));
  if (w_q.channels != 1 &&
      (w_q.channels != out_c ||
       ((const TfLiteAffineQuantization*)weights->quantization.params)
               ->quantized_dimension != channel_axis)) {
    lg_kernel_log(context, op,
                  "per-channel INT8 weights need one scale per output channel "
                  "(%d) along dimension %d",
                  out_c, channel_axis);
    return kTfLiteError;
  }
  for (int64_t c = 0; c < w_q.channels; ++c) {
    if (lg_quant_zero_point(&w_q, c) != 0) {
      lg_kernel_log(context, op,
                    "weights zero point %d (channel %lld): hybrid INT8 "
                    "weights are symmetric, with zero point 0",
                    (int)lg_quant_zero_point(&w_q, c), (long long)c);
      return kTfLiteError;
    }
  }
  lg_hybrid_free(h);
  const size_t n = out_c > 0 ? (size_t)out_c : 1;
  const size_t b = batch > 0 ? (size_t)batch : 1;
  h->scales = malloc(sizeof(float) * n);
  h->quantized = malloc(input_elements > 0 ? (size_t)input_elements : 1);
  h->input_scales = malloc(sizeof(float) * b);
  h->zero_points = calloc(b, sizeof(int32_t));
  if (h->scales == NULL || h->quantized == NULL || h->input_scales == NULL ||
      h->zero_points == NULL) {
    lg_hybrid_free(h);
    lg_kernel_log(context, op, "out of memory for the hybrid kernel");
    return kTfLiteError;
  }
  h->per_channel = false;
  for (size_t o = 0; o < n; ++o) {
    h->scales[o] = lg_quant_scale(&w_q, w_q.channels == 1 ? 0 : (int64_t)o);
    if (h->scales[o] != h->scales[0]) h->per_channel = true;
  }
  h->per_channel_layout = w_q.channels != 1;
  h->asymmetric = asymmetric;
  return kTfLiteOk;
}

void lg_hybrid_free(lg_hybrid* h) {
  free(h->packed);
  free(h->row_sums);
  free(h->row16);
  free(h->dots);
  h->packed = NULL;
  h->row_sums = NULL;
  h->row16 = NULL;
  h->dots = NULL;
  free(h->scales);
  free(h->quantized);
  free(h->input_scales);
  free(h->zero_points);
  h->scales = NULL;
  h->quantized = NULL;
  h->input_scales = NULL;
  h->zero_points = NULL;
}

/* ---- FULLY_CONNECTED ---------------------------------------------------- */

TfLiteStatus lg_hybrid_pack_fc(TfLiteContext* context, const char* op,
                               lg_hybrid* h, const TfLiteTensor* weights,
                               int units, int depth) {
  if (!LG_GEMM_HAVE_X86 || lg_gemm_isa_default() < LG_GEMM_ISA_AVX2 ||
      !lg_nn_is_constant(weights) || weights->data.int8 == NULL || units <= 0 ||
      depth <= 0) {
    return kTfLiteOk;
  }
  const int64_t k_pad = lg_int16_dot_pad(depth);
  h->k_pad = (int)k_pad;
  h->packed = calloc((size_t)units * (size_t)k_pad, sizeof(int16_t));
  h->row_sums = calloc((size_t)units, sizeof(int32_t));
  h->row16 = calloc((size_t)k_pad, sizeof(int16_t));
  h->dots = calloc((size_t)units, sizeof(int32_t));
  if (h->packed == NULL || h->row_sums == NULL || h->row16 == NULL ||
      h->dots == NULL) {
    lg_kernel_log(context, op, "out of memory for the packed weights");
    return kTfLiteError;
  }
  lg_int16_rows_from_int8(weights->data.int8, (size_t)depth, units, depth,
                          h->packed, h->k_pad);
  for (int o = 0; o < units; ++o) {
    const int8_t* w = weights->data.int8 + (size_t)o * depth;
    int32_t sum = 0;
    for (int i = 0; i < depth; ++i) sum += w[i];
    h->row_sums[o] = sum;
  }
  return kTfLiteOk;
}

static bool lg_hybrid_all_zero(const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (x[i] != 0.0f) return false;
  }
  return true;
}

void lg_fc_hybrid_run(const lg_hybrid* h, int batch, int depth, int units,
                      const float* input, const int8_t* weights,
                      const float* bias, float act_min, float act_max,
                      float* output) {
  for (int b = 0; b < batch; ++b) {
    for (int o = 0; o < units; ++o) {
      output[(size_t)b * units + o] = bias != NULL ? bias[o] : 0.0f;
    }
  }
  if (!lg_hybrid_all_zero(input, (int64_t)batch * depth)) {
    for (int b = 0; b < batch; ++b) {
      const float* x = input + (size_t)b * depth;
      int8_t* q = h->quantized + (size_t)b * depth;
      if (h->asymmetric) {
        lg_hybrid_quantize_asymmetric(x, depth, q, &h->input_scales[b],
                                      &h->zero_points[b]);
      } else {
        lg_hybrid_quantize_symmetric(x, depth, q, &h->input_scales[b]);
        h->zero_points[b] = 0;
      }
      /* Per tensor, TFLite folds the weight scale into the input's. */
      if (!h->per_channel_layout) h->input_scales[b] *= h->scales[0];
    }
    for (int b = 0; b < batch; ++b) {
      const int8_t* q = h->quantized + (size_t)b * depth;
#if LG_GEMM_HAVE_X86
      if (h->packed != NULL) { /* the same int32 sums, 16 per instruction */
        for (int i = 0; i < depth; ++i) h->row16[i] = q[i];
        lg_int16_dots_avx2(h->row16, h->packed, h->k_pad, units, h->dots);
      }
#endif
      for (int o = 0; o < units; ++o) {
        int32_t dot = 0, row_sum = 0;
        if (h->packed != NULL) {
          dot = h->dots[o];
          row_sum = h->row_sums[o];
        } else {
          const int8_t* w = weights + (size_t)o * depth;
          for (int i = 0; i < depth; ++i) {
            dot += (int32_t)w[i] * q[i];
            row_sum += w[i];
          }
        }
        dot -= row_sum * h->zero_points[b];
        const float scale = h->per_channel_layout
                                ? h->input_scales[b] * h->scales[o]
                                : h->input_scales[b];
        output[(size_t)b * units + o] += (float)dot * scale;
      }
    }
  }
  const int64_t count = (int64_t)batch * units;
  for (int64_t i = 0; i < count; ++i) {
    output[i] = lg_kernel_clamp_float(output[i], act_min, act_max);
  }
}

/* ---- CONV_2D ------------------------------------------------------------ */

void lg_conv_hybrid_run(const lg_hybrid* h, const lg_conv_geometry* g,
                        int groups, const float* input, const int8_t* filter,
                        const float* bias, float* output) {
  const int64_t image = (int64_t)g->in_h * g->in_w * g->in_c;
  /* TFLite quantizes per channel asymmetrically, else symmetrically. */
  const bool asymmetric = h->per_channel || groups != 1;
  const int per_group = g->out_c / groups;
  for (int n = 0; n < g->batch; ++n) {
    const float* x = input + (size_t)n * image;
    int8_t* q = h->quantized + (size_t)n * image;
    int32_t zp = 0;
    float scale = 1.0f;
    if (asymmetric) {
      lg_hybrid_quantize_asymmetric(x, image, q, &scale, &zp);
    } else {
      lg_hybrid_quantize_symmetric(x, image, q, &scale);
      scale *= h->scales[0];
    }
    for (int oy = 0; oy < g->out_h; ++oy) {
      const int y0 = oy * g->stride_h - g->pad_top;
      for (int ox = 0; ox < g->out_w; ++ox) {
        const int x0 = ox * g->stride_w - g->pad_left;
        float* out =
            output + (((size_t)n * g->out_h + oy) * g->out_w + ox) * g->out_c;
        for (int o = 0; o < g->out_c; ++o) {
          const int c0 = (o / per_group) * g->filter_c;
          int32_t acc = 0;
          for (int fy = 0; fy < g->filter_h; ++fy) {
            const int y = y0 + fy * g->dilation_h;
            if (y < 0 || y >= g->in_h) continue;
            for (int fx = 0; fx < g->filter_w; ++fx) {
              const int xx = x0 + fx * g->dilation_w;
              if (xx < 0 || xx >= g->in_w) continue;
              const int8_t* v = q + ((size_t)y * g->in_w + xx) * g->in_c + c0;
              const int8_t* w =
                  filter + (((size_t)o * g->filter_h + fy) * g->filter_w + fx) *
                               g->filter_c;
              for (int c = 0; c < g->filter_c; ++c) {
                acc += (int32_t)w[c] * ((int32_t)v[c] - zp);
              }
            }
          }
          float v = asymmetric ? (float)acc * h->scales[o] * scale
                               : (float)acc * scale;
          if (bias != NULL) v += bias[o];
          out[o] = lg_kernel_clamp_float(v, g->act_min, g->act_max);
        }
      }
    }
  }
}

/* ---- TRANSPOSE_CONV ----------------------------------------------------- */

/* TFLite's HybridTransposeConv scatters one float term per (input pixel,
 * input channel, output channel) in input order; each output here gathers
 * the same terms in that order: input rows and columns ascending, then the
 * channels. */
void lg_transpose_conv_hybrid_run(const lg_hybrid* h, const lg_conv_geometry* g,
                                  const float* input, const int8_t* weights,
                                  const float* bias, float* output) {
  const int64_t image = (int64_t)g->in_h * g->in_w * g->in_c;
  for (int n = 0; n < g->batch; ++n) {
    int8_t* q = h->quantized + (size_t)n * image;
    float scale = 1.0f;
    int32_t zp = 0;
    lg_hybrid_quantize_asymmetric(input + (size_t)n * image, image, q, &scale,
                                  &zp);
    for (int oy = 0; oy < g->out_h; ++oy) {
      for (int ox = 0; ox < g->out_w; ++ox) {
        float* out =
            output + (((size_t)n * g->out_h + oy) * g->out_w + ox) * g->out_c;
        for (int o = 0; o < g->out_c; ++o) {
          float acc = 0.0f;
          for (int iy = 0; iy < g->in_h; ++iy) {
            const int fy = oy + g->pad_top - iy * g->stride_h;
            if (fy < 0 || fy >= g->filter_h) continue;
            for (int ix = 0; ix < g->in_w; ++ix) {
              const int fx = ox + g->pad_left - ix * g->stride_w;
              if (fx < 0 || fx >= g->filter_w) continue;
              const int8_t* v = q + ((size_t)iy * g->in_w + ix) * g->in_c;
              const int8_t* w =
                  weights +
                  (((size_t)o * g->filter_h + fy) * g->filter_w + fx) * g->in_c;
              for (int c = 0; c < g->in_c; ++c) {
                const int32_t term = ((int32_t)v[c] - zp) * (int32_t)w[c];
                acc += (float)term * h->scales[o] * scale;
              }
            }
          }
          if (bias != NULL) acc += bias[o];
          out[o] = lg_kernel_clamp_float(acc, g->act_min, g->act_max);
        }
      }
    }
  }
}
