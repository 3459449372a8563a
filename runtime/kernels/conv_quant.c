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
 *   UINT8  input, filter and output (TFLite's legacy per-tensor kernels),
 *          INT32 bias: the INT8 formula with a filter offset too,
 *          acc = sum (filter + filter_offset) * (input + input_offset),
 *          filter_offset = -filter zero point (not 0 here), int32
 *          accumulators and the 32-bit rescale.
 * Integer sums do not depend on their order, so TRANSPOSE_CONV gathers
 * each output from the input pixels that reach it where TFLite scatters.
 *
 * Fast path (INT8 CONV_2D with one group and a constant filter, on CPUs
 * with AVX2): the filter is packed once as int16 rows; each output pixel
 * gathers its window as int16 (input + input_offset, 0 for taps in the
 * padding, which TFLite skips) and takes its dot products with every row
 * (quant_simd.c); the sums are exactly the reference's, so is the
 * output. Output rows are split into a few tasks per thread of the pool,
 * claimed dynamically; on the VNNI kernel each row's 16-channel blocks are
 * split too when the rows are fewer than the tasks (lg_conv_quant_split).
 * TRANSPOSE_CONV splits its output rows too; its INT8 fast path takes
 * int16 rows per filter tap, or with VNNI and a depth that is a multiple
 * of 4 the VNNI kernel's blocks per tap (lg_transpose_conv_quant_pack).
 */
#include <stdlib.h>
#include <string.h>

#include "base/thread_pool.h"
#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/nn.h"
#include "runtime/kernels/quant_simd.h"
#include "runtime/kernels/quant_util.h"

TfLiteStatus lg_conv_quant_check_types(TfLiteContext* context, const char* op,
                                       const TfLiteTensor* input,
                                       const TfLiteTensor* filter,
                                       const TfLiteTensor* bias,
                                       const TfLiteTensor* output) {
  const bool wide = input->type == kTfLiteInt16;
  const bool u8 = input->type == kTfLiteUInt8;
  const bool bias_ok = bias == NULL || bias->type == kTfLiteInt32 ||
                       (wide && bias->type == kTfLiteInt64);
  if (filter->type != (u8 ? kTfLiteUInt8 : kTfLiteInt8) ||
      output->type != input->type || !bias_ok) {
    lg_kernel_log(
        context, op,
        "%s input with filter %s, bias %s and output %s is not "
        "supported (expected %s, %s and %s)",
        TfLiteTypeGetName(input->type), TfLiteTypeGetName(filter->type),
        bias != NULL ? TfLiteTypeGetName(bias->type) : "(none)",
        TfLiteTypeGetName(output->type), u8 ? "UINT8" : "INT8",
        wide ? "INT64 or INT32" : "INT32", TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static void lg_conv_quant_free_fast(lg_conv_quant* q) {
  free(q->packed);
  free(q->rows);
  free(q->sums);
  free(q->packed8);
  free(q->weight_sums);
  free(q->rows8);
  free(q->fused_bias);
  free(q->dw_weights);
  free(q->dw_bias);
  free(q->dw_pad);
  free(q->rq);
  free(q->flipped);
  free(q->pad8);
  free(q->tap_rows);
  q->flipped = NULL;
  q->pad8 = NULL;
  q->tap_rows = NULL;
  q->taps_in_place = false;
  free(q->dw_weights32);
  free(q->dw_bias32);
  free(q->rq32);
  q->rq = NULL;
  q->dw_weights32 = NULL;
  q->dw_bias32 = NULL;
  q->rq32 = NULL;
  q->dw_blocks32 = 0;
  q->dw_weights = NULL;
  q->dw_bias = NULL;
  q->dw_pad = NULL;
  q->fused_bias = NULL;
  q->packed = NULL;
  q->rows = NULL;
  q->sums = NULL;
  q->packed8 = NULL;
  q->weight_sums = NULL;
  q->rows8 = NULL;
  q->slots = 0;
  q->vnni = false;
}

void lg_conv_quant_free(lg_conv_quant* q) {
  free(q->multipliers);
  free(q->shifts);
  q->multipliers = NULL;
  q->shifts = NULL;
  lg_conv_quant_free_fast(q);
}

/* Per-channel filters: one scale per output channel along filter_axis;
 * every filter zero point 0. UINT8 filters: per tensor, any zero point. */
static TfLiteStatus lg_conv_quant_check_filter(TfLiteContext* context,
                                               const char* op,
                                               const TfLiteTensor* filter,
                                               const lg_quant_layout* f_q,
                                               int out_c, int filter_axis) {
  if (filter->type == kTfLiteUInt8) {
    if (f_q->channels == 1) return kTfLiteOk;
    lg_kernel_log(context, op,
                  "UINT8 filter has %lld scales: UINT8 filters are quantized "
                  "per tensor (one scale)",
                  (long long)f_q->channels);
    return kTfLiteError;
  }
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
  free(q->multipliers);
  free(q->shifts);
  const size_t n = out_c > 0 ? (size_t)out_c : 1;
  q->multipliers = malloc(sizeof(int32_t) * n);
  q->shifts = malloc(sizeof(int) * n);
  if (q->multipliers == NULL || q->shifts == NULL) {
    free(q->multipliers);
    free(q->shifts);
    q->multipliers = NULL;
    q->shifts = NULL;
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
  q->filter_offset = q->type == kTfLiteUInt8 ? -f_q.zero_point0 : 0;
  q->output_offset = out_q.zero_point0;
  q->simd = LG_GEMM_HAVE_X86 &&
            (q->type == kTfLiteInt8 || q->type == kTfLiteUInt8) &&
            lg_gemm_isa_default() >= LG_GEMM_ISA_AVX2;
  q->simd512 = q->simd && q->type == kTfLiteInt8 && lg_int8_avx512_supported();
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

/* The outputs of channels [c0, c0 + m) from their sums: the bias added
 * (in int32 for INT8, as TFLite's accumulator; int64 for INT16), then
 * lg_conv_quant_finish, vectorized for INT8 where the CPU allows. */
static void lg_conv_quant_block_i8(const lg_conv_quant* q, int32_t* acc,
                                   const void* bias, int c0, int m,
                                   int8_t* out) {
  if (bias != NULL) {
    for (int k = 0; k < m; ++k) {
      acc[k] = (int32_t)((uint32_t)acc[k] +
                         (uint32_t)lg_conv_quant_bias(q, bias, c0 + k));
    }
  }
#if LG_GEMM_HAVE_X86
  if (q->simd) {
    (q->simd512 ? lg_requantize_int8_avx512 : lg_requantize_int8_avx2)(
        acc, m, q->multipliers + c0, q->shifts + c0, q->output_offset,
        q->act_min, q->act_max, out + c0);
    return;
  }
#endif
  for (int k = 0; k < m; ++k) {
    out[c0 + k] = (int8_t)lg_conv_quant_finish(q, acc[k], c0 + k);
  }
}

/* The same for UINT8 outputs: on AVX2 the INT8 requantization with the
 * output offset and clamp moved by -128 (a uint8 value is the int8 one
 * + 128: its bits with the top one flipped), flipped back. */
static void lg_conv_quant_block_u8(const lg_conv_quant* q, int32_t* acc,
                                   const void* bias, int c0, int m,
                                   uint8_t* out) {
  if (bias != NULL) {
    for (int k = 0; k < m; ++k) {
      acc[k] = (int32_t)((uint32_t)acc[k] +
                         (uint32_t)lg_conv_quant_bias(q, bias, c0 + k));
    }
  }
#if LG_GEMM_HAVE_X86
  if (q->simd) {
    int8_t flipped[256];
    for (int k0 = 0; k0 < m; k0 += 256) {
      const int n = m - k0 < 256 ? m - k0 : 256;
      lg_requantize_int8_avx2(acc + k0, n, q->multipliers + c0 + k0,
                              q->shifts + c0 + k0, q->output_offset - 128,
                              q->act_min - 128, q->act_max - 128, flipped);
      for (int k = 0; k < n; ++k) {
        out[c0 + k0 + k] = (uint8_t)flipped[k] ^ 0x80u;
      }
    }
    return;
  }
#endif
  for (int k = 0; k < m; ++k) {
    out[c0 + k] = (uint8_t)lg_conv_quant_finish(q, acc[k], c0 + k);
  }
}

static void lg_conv_quant_block_i16(const lg_conv_quant* q, int64_t* acc,
                                    const void* bias, int c0, int m,
                                    int16_t* out) {
  for (int k = 0; k < m; ++k) {
    const int64_t total =
        (int64_t)((uint64_t)acc[k] +
                  (uint64_t)lg_conv_quant_bias(q, bias, c0 + k));
    out[c0 + k] = (int16_t)lg_conv_quant_finish(q, total, c0 + k);
  }
}

/* acc[k] += w[k] * (v[k] + input_offset), channels side by side. */
static inline void lg_depthwise_madd_i8(const lg_conv_quant* q, int32_t* acc,
                                        const int8_t* w, const int8_t* v,
                                        int m) {
#if LG_GEMM_HAVE_X86
  if (q->simd) {
    lg_int8_madd_avx2(acc, w, v, m, q->input_offset);
    return;
  }
#endif
  for (int k = 0; k < m; ++k) {
    acc[k] += (int32_t)w[k] * ((int32_t)v[k] + q->input_offset);
  }
}

static inline void lg_depthwise_madd_u8(const lg_conv_quant* q, int32_t* acc,
                                        const uint8_t* w, const uint8_t* v,
                                        int m) {
#if LG_GEMM_HAVE_X86
  if (q->simd) {
    lg_uint8_madd_avx2(acc, w, v, m, q->filter_offset, q->input_offset);
    return;
  }
#endif
  for (int k = 0; k < m; ++k) {
    acc[k] +=
        ((int32_t)w[k] + q->filter_offset) * ((int32_t)v[k] + q->input_offset);
  }
}

static inline void lg_depthwise_madd_i16(const lg_conv_quant* q, int64_t* acc,
                                         const int8_t* w, const int16_t* v,
                                         int m) {
  for (int k = 0; k < m; ++k) {
    acc[k] += (int64_t)w[k] * ((int64_t)v[k] + q->input_offset);
  }
}

/* Defines the CONV_2D and DEPTHWISE_CONV_2D loops for activations of type
 * T and filters of type W (FOFF their offset: 0 for the symmetric INT8
 * filters, -zero point for UINT8) accumulated in ACC (int32 for INT8, whose
 * sums TFLite keeps in int32; int64 for INT16, wide enough for any 16x8 sum;
 * the 32-bit rescale of an INT32-bias 16x8 conv truncates it back to int32
 * as TFLite's int32 accumulator would hold it). */
#define LG_CONV_QUANT_LOOPS(SUFFIX, T, W, ACC, FOFF)                           \
  static ACC lg_conv_window_##SUFFIX(                                          \
      const lg_conv_geometry* g, const lg_conv_quant* q, const T* image,       \
      const W* filter, int y0, int x0, int o, int channel0) {                  \
    ACC acc = 0;                                                               \
    for (int fy = 0; fy < g->filter_h; ++fy) {                                 \
      const int y = y0 + fy * g->dilation_h;                                   \
      if (y < 0 || y >= g->in_h) continue;                                     \
      for (int fx = 0; fx < g->filter_w; ++fx) {                               \
        const int x = x0 + fx * g->dilation_w;                                 \
        if (x < 0 || x >= g->in_w) continue;                                   \
        const T* in = image + ((size_t)y * g->in_w + x) * g->in_c + channel0;  \
        const W* w =                                                           \
            filter +                                                           \
            (((size_t)o * g->filter_h + fy) * g->filter_w + fx) * g->filter_c; \
        for (int c = 0; c < g->filter_c; ++c) {                                \
          acc += ((ACC)w[c] + (FOFF)) * ((ACC)in[c] + q->input_offset);        \
        }                                                                      \
      }                                                                        \
    }                                                                          \
    return acc;                                                                \
  }                                                                            \
                                                                               \
  static void lg_conv_quant_run_##SUFFIX(                                      \
      const lg_conv_geometry* g, int groups, const lg_conv_quant* q,           \
      const T* input, const W* filter, const void* bias, T* output) {          \
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
  /* Output rows [r0, r1) of batch * out_h, channels in chunks of              \
   * LG_DW_CHUNK accumulated side by side (contiguous in the input and         \
   * the filter, so the loops vectorize). */                                   \
  static void lg_depthwise_quant_rows_##SUFFIX(                                \
      const lg_conv_geometry* g, const lg_conv_quant* q, const T* input,       \
      const W* filter, const void* bias, T* output, int r0, int r1) {          \
    const int multiplier = g->out_c / g->in_c;                                 \
    ACC acc[LG_DW_CHUNK];                                                      \
    for (int r = r0; r < r1; ++r) {                                            \
      const int n = r / g->out_h, oy = r % g->out_h;                           \
      const T* image = input + (size_t)n * g->in_h * g->in_w * g->in_c;        \
      const int y0 = oy * g->stride_h - g->pad_top;                            \
      for (int ox = 0; ox < g->out_w; ++ox) {                                  \
        const int x0 = ox * g->stride_w - g->pad_left;                         \
        T* out = output + ((size_t)r * g->out_w + ox) * g->out_c;              \
        for (int c0 = 0; c0 < g->out_c; c0 += LG_DW_CHUNK) {                   \
          const int m =                                                        \
              g->out_c - c0 < LG_DW_CHUNK ? g->out_c - c0 : LG_DW_CHUNK;       \
          for (int k = 0; k < m; ++k) acc[k] = 0;                              \
          for (int fy = 0; fy < g->filter_h; ++fy) {                           \
            const int y = y0 + fy * g->dilation_h;                             \
            if (y < 0 || y >= g->in_h) continue;                               \
            for (int fx = 0; fx < g->filter_w; ++fx) {                         \
              const int x = x0 + fx * g->dilation_w;                           \
              if (x < 0 || x >= g->in_w) continue;                             \
              const T* in = image + ((size_t)y * g->in_w + x) * g->in_c;       \
              const W* w =                                                     \
                  filter + ((size_t)fy * g->filter_w + fx) * g->out_c + c0;    \
              if (multiplier == 1) {                                           \
                lg_depthwise_madd_##SUFFIX(q, acc, w, in + c0, m);             \
              } else {                                                         \
                for (int k = 0; k < m; ++k) {                                  \
                  const ACC v = in[(c0 + k) / multiplier];                     \
                  acc[k] += ((ACC)w[k] + (FOFF)) * (v + q->input_offset);      \
                }                                                              \
              }                                                                \
            }                                                                  \
          }                                                                    \
          lg_conv_quant_block_##SUFFIX(q, acc, bias, c0, m, out);              \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

/* The TRANSPOSE_CONV loop (INT8 filters) for activations T in ACC, over
 * output rows [r0, r1) of batch * out_h. */
#define LG_TRANSPOSE_CONV_QUANT_LOOPS(SUFFIX, T, ACC)                          \
  static void lg_transpose_conv_quant_run_##SUFFIX(                            \
      const lg_conv_geometry* g, const lg_conv_quant* q, const T* input,       \
      const int8_t* filter, const void* bias, T* output, int r0, int r1) {     \
    for (int r = r0; r < r1; ++r) {                                            \
      const int n = r / g->out_h, oy = r % g->out_h;                           \
      const T* image = input + (size_t)n * g->in_h * g->in_w * g->in_c;        \
      for (int ox = 0; ox < g->out_w; ++ox) {                                  \
        T* out =                                                               \
            output + (((size_t)n * g->out_h + oy) * g->out_w + ox) * g->out_c; \
        for (int o = 0; o < g->out_c; ++o) {                                   \
          ACC acc = 0;                                                         \
          for (int kh = 0; kh < g->filter_h; ++kh) {                           \
            const int sy = oy + g->pad_top - kh;                               \
            if (sy < 0 || sy % g->stride_h != 0 ||                             \
                sy / g->stride_h >= g->in_h) {                                 \
              continue;                                                        \
            }                                                                  \
            for (int kw = 0; kw < g->filter_w; ++kw) {                         \
              const int sx = ox + g->pad_left - kw;                            \
              if (sx < 0 || sx % g->stride_w != 0 ||                           \
                  sx / g->stride_w >= g->in_w) {                               \
                continue;                                                      \
              }                                                                \
              const T* in = image + ((size_t)(sy / g->stride_h) * g->in_w +    \
                                     sx / g->stride_w) *                       \
                                        g->in_c;                               \
              const int8_t* w =                                                \
                  filter +                                                     \
                  (((size_t)o * g->filter_h + kh) * g->filter_w + kw) *        \
                      g->in_c;                                                 \
              for (int c = 0; c < g->in_c; ++c) {                              \
                acc += (ACC)w[c] * ((ACC)in[c] + q->input_offset);             \
              }                                                                \
            }                                                                  \
          }                                                                    \
          acc += (ACC)lg_conv_quant_bias(q, bias, o);                          \
          out[o] = (T)lg_conv_quant_finish(q, acc, o);                         \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

/* Channels a depthwise pixel accumulates at once (stack accumulators). */
#define LG_DW_CHUNK 256

LG_CONV_QUANT_LOOPS(i8, int8_t, int8_t, int32_t, 0)
LG_CONV_QUANT_LOOPS(i16, int16_t, int8_t, int64_t, 0)
LG_CONV_QUANT_LOOPS(u8, uint8_t, uint8_t, int32_t, q->filter_offset)
LG_TRANSPOSE_CONV_QUANT_LOOPS(i8, int8_t, int32_t)
LG_TRANSPOSE_CONV_QUANT_LOOPS(i16, int16_t, int64_t)

/* ---- INT8 CONV_2D fast path ------------------------------------------ */

/* Whether every rescale shift lies in [-31, 31], the vector rescales'
 * range. */
static bool lg_conv_quant_shifts_in_range(const lg_conv_quant* q, int out_c) {
  for (int o = 0; o < out_c; ++o) {
    if (q->shifts[o] < -31 || q->shifts[o] > 31) return false;
  }
  return true;
}

#define LG_CACHE_LINE 64

/* `bytes` rounded up to whole cache lines. */
static size_t lg_conv_quant_lines(size_t bytes) {
  return (bytes + LG_CACHE_LINE - 1) / LG_CACHE_LINE * LG_CACHE_LINE;
}

/* Zeroed scratch for `slots` tasks of `bytes` each, every slot on cache
 * lines of its own: tasks writing into one line (false sharing) left 2
 * threads barely faster than 1. *stride: a slot's bytes. */
static void* lg_conv_quant_slots(int slots, size_t bytes, size_t* stride) {
  *stride = lg_conv_quant_lines(bytes > 0 ? bytes : 1);
  void* p = aligned_alloc(LG_CACHE_LINE, (size_t)slots * *stride);
  if (p != NULL) memset(p, 0, (size_t)slots * *stride);
  return p;
}

/* The VNNI layout (quant_simd.h) and per-task scratch for 4 pixels. */
static TfLiteStatus lg_conv_quant_pack_vnni(TfLiteContext* context,
                                            const char* op, lg_conv_quant* q,
                                            const lg_conv_geometry* g,
                                            const TfLiteTensor* filter,
                                            const TfLiteTensor* bias, int64_t k,
                                            int threads) {
  const int64_t taps = (int64_t)g->filter_h * g->filter_w;
  /* A window of several taps is read in place, each pixel's depth padded
   * to whole 4-byte groups (a first layer's 3 channels take 4 bytes).
   * Depths 1 and 2 would waste 3/4 or 1/2 of every group on zeros: their
   * windows are gathered instead, taps side by side, padded once. */
  const bool in_place = taps > 1 && g->filter_c == g->in_c && g->in_c >= 3;
  const int64_t flip_c = (g->in_c + 3) / 4 * 4;
  const int64_t k4 = in_place ? taps * flip_c / 4 : (k + 3) / 4;
  const int64_t blocks = (g->out_c + LG_VNNI_LANES - 1) / LG_VNNI_LANES;
  if (k4 == 0 || k4 > (1 << 22)) {
    q->vnni = false;
    return kTfLiteOk;
  }
  q->k4 = (int)k4;
  q->blocks = (int)blocks;
  q->slots = threads > 0 ? threads : 1;
  const size_t row = (size_t)k4 * 4, lanes = (size_t)blocks * LG_VNNI_LANES;
  q->packed8 = calloc((size_t)blocks * row * LG_VNNI_LANES, 1);
  q->weight_sums = calloc((size_t)g->out_c, sizeof(int32_t));
  q->rows8 = lg_conv_quant_slots(q->slots, 4 * row, &q->rows8_stride);
  q->fused_bias = calloc(lanes, sizeof(int32_t));
  q->rq = malloc((size_t)blocks * sizeof(lg_requant16));
  if (q->packed8 == NULL || q->weight_sums == NULL || q->rows8 == NULL ||
      q->fused_bias == NULL || q->rq == NULL) {
    lg_conv_quant_free_fast(q);
    lg_kernel_log(context, op, "out of memory for the packed INT8 filter");
    return kTfLiteError;
  }
  if (in_place) {
    q->flip_c = (int)flip_c;
    const size_t image = (size_t)g->batch * g->in_h * g->in_w * flip_c;
    q->flipped = malloc(image > 0 ? image : 1);
    /* A whole row: the pixels between a row's padded edges read taps in
     * the padding at their columns (lg_conv_quant_task_taps). */
    q->pad8 = malloc((size_t)(g->in_w > 0 ? g->in_w : 1) * (size_t)flip_c);
    /* Per slot: 4 pixels' taps, then the row's tap bases. */
    q->tap_rows = lg_conv_quant_slots(
        q->slots, 5 * (size_t)taps * sizeof(uint8_t*), &q->tap_stride);
    q->tap_stride /= sizeof(uint8_t*);
    if (q->flipped == NULL || q->pad8 == NULL || q->tap_rows == NULL) {
      lg_conv_quant_free_fast(q);
      lg_kernel_log(context, op, "out of memory for the packed INT8 filter");
      return kTfLiteError;
    }
    memset(q->pad8, 128 - q->input_offset,
           (size_t)(g->in_w > 0 ? g->in_w : 1) * (size_t)flip_c);
    q->taps_in_place = true;
  }
  lg_requant16_pack(q->multipliers, q->shifts, g->out_c, q->rq);
  for (int o = 0; o < g->out_c; ++o) {
    const int8_t* src = filter->data.int8 + (size_t)o * (size_t)k;
    const int b = o / LG_VNNI_LANES, lane = o % LG_VNNI_LANES;
    int32_t sum = 0;
    for (int64_t i = 0; i < k; ++i) {
      /* In place: tap i / in_c's depth starts at a multiple of flip_c. */
      const int64_t at = in_place ? i / g->in_c * flip_c + i % g->in_c : i;
      const int64_t group = at / 4, j = at % 4;
      q->packed8[(((size_t)b * k4 + group) * LG_VNNI_LANES + lane) * 4 + j] =
          src[i];
      sum += src[i];
    }
    q->weight_sums[o] = sum;
    /* int32 wrapping, as TFLite's accumulator. */
    q->fused_bias[o] =
        (int32_t)((uint32_t)lg_conv_quant_bias(
                      q, bias != NULL ? bias->data.data : NULL, o) +
                  (uint32_t)(q->input_offset - 128) * (uint32_t)sum);
  }
  return kTfLiteOk;
}

TfLiteStatus lg_conv_quant_pack(TfLiteContext* context, const char* op,
                                lg_conv_quant* q, const lg_conv_geometry* g,
                                int groups, const TfLiteTensor* filter,
                                const TfLiteTensor* bias, int threads) {
  lg_conv_quant_free_fast(q);
  const bool u8 = q->type == kTfLiteUInt8;
  if (!LG_GEMM_HAVE_X86 || (q->type != kTfLiteInt8 && !u8) || groups != 1 ||
      !lg_nn_is_constant(filter) || filter->data.data == NULL ||
      lg_gemm_isa_default() < LG_GEMM_ISA_AVX2 || g->out_c <= 0) {
    return kTfLiteOk;
  }
  const int64_t k = (int64_t)g->filter_h * g->filter_w * g->filter_c;
  /* VNNI folds the bias into its starting sums: it must be constant. Its
   * weights are int8: UINT8 filters (w - zero point in [-255, 255]) take
   * the int16 rows. */
  q->vnni =
      !u8 && lg_int8_vnni_supported() &&
      (bias == NULL || (lg_nn_is_constant(bias) && bias->data.data != NULL)) &&
      lg_conv_quant_shifts_in_range(q, g->out_c);
  if (q->vnni) {
    return lg_conv_quant_pack_vnni(context, op, q, g, filter, bias, k, threads);
  }
  const int64_t k_pad = lg_int16_dot_pad(k);
  if (k_pad == 0 || k_pad > (1 << 24)) return kTfLiteOk;
  q->k_pad = (int)k_pad;
  q->slots = threads > 0 ? threads : 1;
  const size_t out_c = (size_t)g->out_c;
  /* Two pixels per task at a time. */
  q->sums = lg_conv_quant_slots(q->slots, 2 * out_c * sizeof(int32_t),
                                &q->sums_stride);
  q->sums_stride /= sizeof(int32_t);
  q->packed = calloc(out_c * (size_t)k_pad, sizeof(int16_t));
  q->rows = lg_conv_quant_slots(q->slots, 2 * (size_t)k_pad * sizeof(int16_t),
                                &q->rows_stride);
  q->rows_stride /= sizeof(int16_t);
  if (q->sums == NULL || q->packed == NULL || q->rows == NULL) {
    lg_conv_quant_free_fast(q);
    lg_kernel_log(context, op, "out of memory for the packed INT8 filter");
    return kTfLiteError;
  }
  lg_int16_rows_from_bytes(filter->data.data, u8, q->filter_offset, (size_t)k,
                           g->out_c, (int)k, q->packed, q->k_pad);
  return kTfLiteOk;
}

/* The fast path's work: output rows of batch * out_h split evenly over
 * row_tasks, and on the VNNI kernel each row range's 16-channel blocks
 * over block_tasks (when the rows are too few to share evenly); task
 * index = row task * block_tasks + block task. */
typedef struct lg_conv_quant_job {
  const lg_conv_geometry* g;
  const lg_conv_quant* q;
  const void* input; /* INT8 or UINT8, as q->type */
  const void* bias;
  void* output;
  int rows;
  int num_tasks;
  int block_tasks;
} lg_conv_quant_job;

/* Task `index`'s output rows [*r0, *r1) and VNNI channel blocks
 * [*b0, *b1) of q->blocks. */
static void lg_conv_quant_task_range(const lg_conv_quant_job* job, int index,
                                     int* r0, int* r1, int* b0, int* b1) {
  const int row_tasks = job->num_tasks / job->block_tasks;
  const int ri = index / job->block_tasks, bi = index % job->block_tasks;
  *r0 = (int)((int64_t)job->rows * ri / row_tasks);
  *r1 = (int)((int64_t)job->rows * (ri + 1) / row_tasks);
  *b0 = (int)((int64_t)job->q->blocks * bi / job->block_tasks);
  *b1 = (int)((int64_t)job->q->blocks * (bi + 1) / job->block_tasks);
}

/* Channel blocks [b0, b1) as the VNNI kernel takes them: the blocks'
 * packed weights, initial sums and rescales, from channel c0 on, n
 * channels (each channel's result does not depend on the others). */
typedef struct lg_conv_quant_blocks {
  const int8_t* packed;
  const int32_t* init;
  const struct lg_requant16* rq;
  int c0, n;
} lg_conv_quant_blocks;

static lg_conv_quant_blocks lg_conv_quant_blocks_of(const lg_conv_quant* q,
                                                    int out_c, int b0, int b1) {
  const int c0 = b0 * LG_VNNI_LANES;
  const int c1 = b1 * LG_VNNI_LANES < out_c ? b1 * LG_VNNI_LANES : out_c;
  const lg_conv_quant_blocks blocks = {
      .packed = q->packed8 + (size_t)b0 * q->k4 * 4 * LG_VNNI_LANES,
      .init = q->fused_bias + c0,
      .rq = q->rq + b0,
      .c0 = c0,
      .n = c1 - c0,
  };
  return blocks;
}

/* The window of output pixel (oy, ox) as int16 input + input_offset, zero
 * for taps outside the input (INT8 or UINT8 image, as q->type). */
static void lg_conv_quant_gather(const lg_conv_geometry* g,
                                 const lg_conv_quant* q, const void* image,
                                 int y0, int x0, int16_t* row) {
  const size_t pixel_stride = (size_t)g->in_c;
  int16_t* dst = row;
  for (int fy = 0; fy < g->filter_h; ++fy) {
    const int y = y0 + fy * g->dilation_h;
    for (int fx = 0; fx < g->filter_w; ++fx, dst += g->filter_c) {
      const int x = x0 + fx * g->dilation_w;
      if (y < 0 || y >= g->in_h || x < 0 || x >= g->in_w) {
        memset(dst, 0, sizeof(int16_t) * (size_t)g->filter_c);
        continue;
      }
      const size_t at = ((size_t)y * g->in_w + x) * pixel_stride;
      if (q->type == kTfLiteUInt8) {
        const uint8_t* in = (const uint8_t*)image + at;
        for (int c = 0; c < g->filter_c; ++c) {
          dst[c] = (int16_t)(in[c] + q->input_offset);
        }
      } else {
        const int8_t* in = (const int8_t*)image + at;
        for (int c = 0; c < g->filter_c; ++c) {
          dst[c] = (int16_t)(in[c] + q->input_offset);
        }
      }
    }
  }
}

/* dst[i] = src[i] ^ 0x80 (int8 to uint8 + 128) for i < n, 8 bytes at a
 * time (memcpy: no alignment or aliasing assumed). */
static inline void lg_conv_quant_flip_bytes(const uint8_t* src, size_t n,
                                            uint8_t* dst) {
#if LG_GEMM_HAVE_X86
  /* The callers run only with the VNNI kernel: AVX-512 BW is there. */
  if (n >= 16) {
    lg_flip_bytes_avx512(src, n, dst);
    return;
  }
#endif
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v;
    memcpy(&v, src + i, sizeof(v));
    v ^= 0x8080808080808080ull;
    memcpy(dst + i, &v, sizeof(v));
  }
  for (; i < n; ++i) dst[i] = src[i] ^ 0x80u;
}

/* lg_conv_quant_gather8 for a window of the input's full depth at
 * dilation_w 1: each window row's taps are adjacent in the input, one copy
 * between the taps in the left and right padding (clipped once per
 * window). */
static void lg_conv_quant_gather8_rows(const lg_conv_geometry* g,
                                       const int8_t* image, int y0, int x0,
                                       uint8_t pad, uint8_t* dst) {
  const int in_c = g->in_c, in_h = g->in_h, in_w = g->in_w;
  const int filter_h = g->filter_h, filter_w = g->filter_w;
  const int dilation_h = g->dilation_h;
  const int first = x0 < 0 ? 0 : x0;
  const int end = x0 + filter_w < in_w ? x0 + filter_w : in_w;
  const int inside = end > first ? end - first : 0;
  const int left = x0 >= 0 ? 0 : (-x0 < filter_w ? -x0 : filter_w);
  const size_t left_bytes = (size_t)left * (size_t)in_c;
  const size_t inside_bytes = (size_t)inside * (size_t)in_c;
  const size_t row_bytes = (size_t)filter_w * (size_t)in_c;
  const size_t right_bytes = row_bytes - left_bytes - inside_bytes;
  const size_t line = (size_t)in_w * (size_t)in_c;
  for (int fy = 0; fy < filter_h; ++fy, dst += row_bytes) {
    const int y = y0 + fy * dilation_h;
    if (y < 0 || y >= in_h || inside_bytes == 0) {
      memset(dst, pad, row_bytes);
      continue;
    }
    if (left_bytes > 0) memset(dst, pad, left_bytes);
    const uint8_t* src =
        (const uint8_t*)image + (size_t)y * line + (size_t)first * in_c;
    if (inside_bytes == 4) {
      /* A depth-1 row of 4 taps inside the input: one 32-bit flip. */
      uint32_t v;
      memcpy(&v, src, sizeof(v));
      v ^= 0x80808080u;
      memcpy(dst + left_bytes, &v, sizeof(v));
    } else {
      lg_conv_quant_flip_bytes(src, inside_bytes, dst + left_bytes);
    }
    if (right_bytes > 0) {
      memset(dst + left_bytes + inside_bytes, pad, right_bytes);
    }
  }
}

/* The window of output pixel (oy, ox) as unsigned bytes input + 128; taps
 * outside the input hold 128 - input_offset, whose term the weight-sum
 * correction cancels (TFLite skips those taps). */
static void lg_conv_quant_gather8(const lg_conv_geometry* g,
                                  const lg_conv_quant* q, const int8_t* image,
                                  int y0, int x0, uint8_t* row) {
  uint8_t* dst = row;
  const uint8_t pad = (uint8_t)(128 - q->input_offset);
  /* Locals: stores through dst (bytes) could alias *g, which would keep
   * the compiler from vectorizing the copies. */
  const int filter_c = g->filter_c, in_c = g->in_c;
  const int in_h = g->in_h, in_w = g->in_w;
  const int filter_h = g->filter_h, filter_w = g->filter_w;
  const int dilation_h = g->dilation_h, dilation_w = g->dilation_w;
  if (dilation_w == 1 && filter_c == in_c) {
    lg_conv_quant_gather8_rows(g, image, y0, x0, pad, row);
    return;
  }
  for (int fy = 0; fy < filter_h; ++fy) {
    const int y = y0 + fy * dilation_h;
    if (y < 0 || y >= in_h) {
      memset(dst, pad, (size_t)filter_c * (size_t)filter_w);
      dst += (size_t)filter_c * (size_t)filter_w;
      continue;
    }
    const uint8_t* line = (const uint8_t*)image + (size_t)y * in_w * in_c;
    for (int fx = 0; fx < filter_w; ++fx, dst += filter_c) {
      const int x = x0 + fx * dilation_w;
      if (x < 0 || x >= in_w) {
        memset(dst, pad, (size_t)filter_c);
        continue;
      }
      lg_conv_quant_flip_bytes(line + (size_t)x * in_c, (size_t)filter_c, dst);
    }
  }
}

/* lg_conv_quant_task on the VNNI kernel, 4 pixels of a row at a time. */
static void lg_conv_quant_task_vnni(void* ctx, int index, int slot) {
  const lg_conv_quant_job* job = ctx;
  const lg_conv_geometry* g = job->g;
  const lg_conv_quant* q = job->q;
  const size_t row_bytes = (size_t)q->k4 * 4;
  uint8_t* rows[4];
  for (int p = 0; p < 4; ++p) {
    rows[p] = q->rows8 + (size_t)slot * q->rows8_stride + (size_t)p * row_bytes;
  }
  int r0, r1, b0, b1;
  lg_conv_quant_task_range(job, index, &r0, &r1, &b0, &b1);
  const lg_conv_quant_blocks blocks =
      lg_conv_quant_blocks_of(q, g->out_c, b0, b1);
  for (int r = r0; r < r1; ++r) {
    const int n = r / g->out_h, oy = r % g->out_h;
    const int8_t* image =
        (const int8_t*)job->input + (size_t)n * g->in_h * g->in_w * g->in_c;
    const int y0 = oy * g->stride_h - g->pad_top;
    int8_t* out_row = (int8_t*)job->output + (size_t)r * g->out_w * g->out_c;
    /* A 1x1 window at stride 1 inside the input, depth a multiple of 4:
     * the 4 pixels' rows are adjacent in the input as in `rows`, one
     * copy. */
    const bool adjacent = g->filter_h == 1 && g->filter_w == 1 &&
                          g->stride_w == 1 && g->pad_left == 0 &&
                          (size_t)g->in_c == row_bytes && y0 >= 0 &&
                          y0 < g->in_h && g->out_w <= g->in_w;
    for (int ox = 0; ox < g->out_w; ox += 4) {
      const int pixels = g->out_w - ox < 4 ? g->out_w - ox : 4;
      int8_t* outs[4];
      if (adjacent) {
        lg_conv_quant_flip_bytes(
            (const uint8_t*)image + ((size_t)y0 * g->in_w + ox) * row_bytes,
            (size_t)pixels * row_bytes, rows[0]);
      }
      for (int p = 0; p < pixels; ++p) {
        if (!adjacent) {
          lg_conv_quant_gather8(g, q, image, y0,
                                (ox + p) * g->stride_w - g->pad_left, rows[p]);
        }
        outs[p] = out_row + (size_t)(ox + p) * g->out_c + blocks.c0;
      }
#if LG_GEMM_HAVE_X86
      lg_uint8_conv_vnni((const uint8_t* const*)rows, 1, q->k4, pixels,
                         blocks.packed, blocks.n, blocks.init, blocks.rq,
                         q->output_offset, q->act_min, q->act_max, outs);
#endif
    }
  }
}

/* The output columns [*lo, *hi) whose windows lie inside the input's
 * columns (the rest read the padding). */
static void lg_conv_quant_inner(const lg_conv_geometry* g, int* lo, int* hi) {
  const int span = (g->filter_w - 1) * g->dilation_w;
  /* x0 = ox * stride - pad_left >= 0 and x0 + span < in_w. */
  *lo = (g->pad_left + g->stride_w - 1) / g->stride_w;
  const int last = g->in_w - 1 - span + g->pad_left;
  *hi = last < 0 ? 0 : last / g->stride_w + 1;
  if (*hi > g->out_w) *hi = g->out_w;
  if (*lo > *hi) *lo = *hi;
}

/* lg_conv_quant_task_vnni with the taps read in place from the flipped
 * input (lg_conv_quant's taps_in_place). */
static void lg_conv_quant_task_taps(void* ctx, int index, int slot) {
  const lg_conv_quant_job* job = ctx;
  const lg_conv_geometry* g = job->g;
  const lg_conv_quant* q = job->q;
  const int ntaps = g->filter_h * g->filter_w;
  const uint8_t** taps = q->tap_rows + (size_t)slot * q->tap_stride;
  /* Per output row: each tap's row at column 0 (rows in the padding: the
   * padding row), so that a pixel between the edges adds its column. */
  const uint8_t** bases = taps + (size_t)4 * ntaps;
  const size_t line = (size_t)g->in_w * q->flip_c;
  int inner_lo, inner_hi;
  lg_conv_quant_inner(g, &inner_lo, &inner_hi);
  int r0, r1, b0, b1;
  lg_conv_quant_task_range(job, index, &r0, &r1, &b0, &b1);
  const lg_conv_quant_blocks blocks =
      lg_conv_quant_blocks_of(q, g->out_c, b0, b1);
  for (int r = r0; r < r1; ++r) {
    const int n = r / g->out_h, oy = r % g->out_h;
    const uint8_t* image = q->flipped + (size_t)n * g->in_h * line;
    const int y0 = oy * g->stride_h - g->pad_top;
    int8_t* out_row = (int8_t*)job->output + (size_t)r * g->out_w * g->out_c;
    for (int fy = 0, t = 0; fy < g->filter_h; ++fy) {
      const int y = y0 + fy * g->dilation_h;
      const uint8_t* row =
          y >= 0 && y < g->in_h ? image + (size_t)y * line : q->pad8;
      for (int fx = 0; fx < g->filter_w; ++fx, ++t) {
        bases[t] = row + (size_t)fx * g->dilation_w * q->flip_c;
      }
    }
    for (int ox = 0; ox < g->out_w; ox += 4) {
      const int pixels = g->out_w - ox < 4 ? g->out_w - ox : 4;
      int8_t* outs[4];
      for (int p = 0; p < pixels; ++p) {
        const int x0 = (ox + p) * g->stride_w - g->pad_left;
        const uint8_t** t = taps + (size_t)p * ntaps;
        outs[p] = out_row + (size_t)(ox + p) * g->out_c + blocks.c0;
        if (ox + p >= inner_lo && ox + p < inner_hi) {
          /* x0 >= 0 and the window inside the columns. */
          const size_t at = (size_t)x0 * q->flip_c;
          for (int k = 0; k < ntaps; ++k) t[k] = bases[k] + at;
          continue;
        }
        for (int fy = 0; fy < g->filter_h; ++fy) {
          const int y = y0 + fy * g->dilation_h;
          const bool y_in = y >= 0 && y < g->in_h;
          for (int fx = 0; fx < g->filter_w; ++fx) {
            const int x = x0 + fx * g->dilation_w;
            *t++ = y_in && x >= 0 && x < g->in_w
                       ? image + (size_t)y * line + (size_t)x * q->flip_c
                       : q->pad8;
          }
        }
      }
#if LG_GEMM_HAVE_X86
      lg_uint8_conv_vnni(taps, ntaps, q->flip_c / 4, pixels, blocks.packed,
                         blocks.n, blocks.init, blocks.rq, q->output_offset,
                         q->act_min, q->act_max, outs);
#endif
    }
  }
}

/* Splits the job into about `tasks` tasks: output rows, one or more per
 * task; and on the VNNI kernel, when the rows are fewer than the tasks (the
 * last layers of a network: 7 rows), each row's channel blocks too, so
 * that the threads claiming the tasks still finish close together. */
static void lg_conv_quant_split(lg_conv_quant_job* job, int tasks) {
  job->block_tasks = 1;
  job->num_tasks = tasks < job->rows ? tasks : job->rows;
  if (!job->q->vnni || job->rows >= tasks) return;
  const int per_row = (tasks + job->rows - 1) / job->rows;
  job->block_tasks = per_row < job->q->blocks ? per_row : job->q->blocks;
  job->num_tasks = job->rows * job->block_tasks;
}

static void lg_conv_quant_task(void* ctx, int index, int slot) {
  const lg_conv_quant_job* job = ctx;
  const lg_conv_geometry* g = job->g;
  const lg_conv_quant* q = job->q;
  int16_t* row0 = q->rows + (size_t)slot * q->rows_stride;
  int16_t* row1 = row0 + q->k_pad;
  int32_t* sums0 = q->sums + (size_t)slot * q->sums_stride;
  int32_t* sums1 = sums0 + g->out_c;
  const int r0 = (int)((int64_t)job->rows * index / job->num_tasks);
  const int r1 = (int)((int64_t)job->rows * (index + 1) / job->num_tasks);
  for (int r = r0; r < r1; ++r) {
    const int n = r / g->out_h, oy = r % g->out_h;
    /* Bytes: INT8 and UINT8 elements alike. */
    const size_t image_at = (size_t)n * g->in_h * g->in_w * g->in_c;
    const void* image = (const uint8_t*)job->input + image_at;
    const int y0 = oy * g->stride_h - g->pad_top;
    const size_t row_at = (size_t)r * g->out_w * g->out_c;
    for (int ox = 0; ox < g->out_w; ox += 2) {
      const bool pair = ox + 1 < g->out_w;
      lg_conv_quant_gather(g, q, image, y0, ox * g->stride_w - g->pad_left,
                           row0);
#if LG_GEMM_HAVE_X86
      if (pair) {
        lg_conv_quant_gather(g, q, image, y0,
                             (ox + 1) * g->stride_w - g->pad_left, row1);
        lg_int16_dots2_avx2(row0, row1, q->packed, q->k_pad, g->out_c, sums0,
                            sums1);
      } else {
        lg_int16_dots_avx2(row0, q->packed, q->k_pad, g->out_c, sums0);
      }
#endif
      const size_t at = row_at + (size_t)ox * g->out_c;
      if (q->type == kTfLiteUInt8) {
        uint8_t* out = (uint8_t*)job->output + at;
        lg_conv_quant_block_u8(q, sums0, job->bias, 0, g->out_c, out);
        if (pair) {
          lg_conv_quant_block_u8(q, sums1, job->bias, 0, g->out_c,
                                 out + g->out_c);
        }
      } else {
        int8_t* out = (int8_t*)job->output + at;
        lg_conv_quant_block_i8(q, sums0, job->bias, 0, g->out_c, out);
        if (pair) {
          lg_conv_quant_block_i8(q, sums1, job->bias, 0, g->out_c,
                                 out + g->out_c);
        }
      }
    }
  }
}

void lg_conv_quant_run(const lg_conv_geometry* g, int groups,
                       const lg_conv_quant* q, const void* input,
                       const void* filter, const void* bias, void* output,
                       lg_thread_pool* pool) {
  if (q->packed != NULL || (q->vnni && q->packed8 != NULL)) {
    lg_conv_quant_job job = {g, q, input, bias, output, g->batch * g->out_h,
                             1, 1};
    /* The window's depth (q->k_pad is the int16 path's only). */
    const int64_t macs = (int64_t)job.rows * g->out_w * g->out_c * g->filter_h *
                         g->filter_w * g->filter_c;
    /* Scratch has q->slots slots (Prepare's pool size): a larger pool's
     * threads would have none. */
    if (lg_thread_pool_size(pool) <= q->slots &&
        macs >= LG_GEMM_MIN_PARALLEL_MACS) {
      lg_conv_quant_split(&job, lg_thread_pool_tasks(pool, INT32_MAX));
    }
    if (q->vnni && q->taps_in_place) {
#if LG_GEMM_HAVE_X86
      const size_t pixels = (size_t)g->batch * g->in_h * g->in_w;
      if (q->flip_c == g->in_c) {
        lg_flip_bytes_avx512(input, pixels * (size_t)g->in_c, q->flipped);
      } else {
        lg_flip_pad_bytes_avx2(input, pixels, g->in_c, q->flip_c, q->flipped);
      }
#endif
      lg_thread_pool_run_slots(pool, lg_conv_quant_task_taps, &job,
                               job.num_tasks);
      return;
    }
    lg_thread_pool_run_slots(
        pool, q->vnni ? lg_conv_quant_task_vnni : lg_conv_quant_task, &job,
        job.num_tasks);
    return;
  }
  if (q->type == kTfLiteInt16) {
    lg_conv_quant_run_i16(g, groups, q, input, filter, bias, output);
  } else if (q->type == kTfLiteUInt8) {
    lg_conv_quant_run_u8(g, groups, q, input, filter, bias, output);
  } else {
    lg_conv_quant_run_i8(g, groups, q, input, filter, bias, output);
  }
}

/* ---- INT8 DEPTHWISE_CONV_2D fast path --------------------------------- */

/* The AVX-512 depthwise path's packed rescale and permuted 32-channel
 * blocks (quant_simd.h), from the packed filter and fused bias. */
static TfLiteStatus lg_depthwise_quant_pack512(TfLiteContext* context,
                                               const char* op, lg_conv_quant* q,
                                               const lg_conv_geometry* g) {
  const size_t channels = (size_t)g->out_c;
  const size_t blocks32 = channels / 32;
  const size_t pairs = (size_t)q->dw_pairs;
  q->rq = malloc((channels + 15) / 16 * sizeof(lg_requant16));
  q->dw_blocks32 = (int)blocks32;
  if (blocks32 > 0) {
    q->dw_weights32 = malloc(pairs * blocks32 * 64 * sizeof(int16_t));
    q->dw_bias32 = malloc(blocks32 * 32 * sizeof(int32_t));
    q->rq32 = malloc(blocks32 * 2 * sizeof(lg_requant16));
  }
  if (q->rq == NULL ||
      (blocks32 > 0 &&
       (q->dw_weights32 == NULL || q->dw_bias32 == NULL || q->rq32 == NULL))) {
    lg_conv_quant_free_fast(q);
    lg_kernel_log(context, op, "out of memory for the packed INT8 filter");
    return kTfLiteError;
  }
  lg_requant16_pack(q->multipliers, q->shifts, g->out_c, q->rq);
  for (size_t b = 0; b < blocks32; ++b) {
    int32_t multipliers[32];
    int shifts[32];
    for (int m = 0; m < 32; ++m) {
      const size_t c = b * 32 + (size_t)lg_dw_int8_perm32(m);
      multipliers[m] = q->multipliers[c];
      shifts[m] = q->shifts[c];
      q->dw_bias32[b * 32 + (size_t)m] = q->dw_bias[c];
      for (size_t k = 0; k < pairs; ++k) {
        for (size_t j = 0; j < 2; ++j) {
          q->dw_weights32[((k * blocks32 + b) * 32 + (size_t)m) * 2 + j] =
              q->dw_weights[(k * channels + c) * 2 + j];
        }
      }
    }
    lg_requant16_pack(multipliers, shifts, 32, q->rq32 + b * 2);
  }
  return kTfLiteOk;
}

TfLiteStatus lg_depthwise_quant_pack(TfLiteContext* context, const char* op,
                                     lg_conv_quant* q,
                                     const lg_conv_geometry* g,
                                     const TfLiteTensor* filter,
                                     const TfLiteTensor* bias) {
  lg_conv_quant_free_fast(q);
  const int64_t taps = (int64_t)g->filter_h * g->filter_w;
  const int zero_point = -q->input_offset;
  if (!LG_GEMM_HAVE_X86 || q->type != kTfLiteInt8 || g->in_c != g->out_c ||
      g->out_c <= 0 || taps <= 0 || taps > LG_DW_QUANT_MAX_TAPS ||
      zero_point < -128 || zero_point > 127 || !lg_nn_is_constant(filter) ||
      filter->data.data == NULL ||
      (bias != NULL && (!lg_nn_is_constant(bias) || bias->data.data == NULL)) ||
      lg_gemm_isa_default() < LG_GEMM_ISA_AVX2) {
    return kTfLiteOk;
  }
  const size_t channels = (size_t)g->out_c;
  if (!lg_conv_quant_shifts_in_range(q, g->out_c)) return kTfLiteOk;
  const int pairs = (int)((taps + 1) / 2);
  q->dw_weights = calloc((size_t)pairs * channels * 2, sizeof(int16_t));
  q->dw_bias = malloc(channels * sizeof(int32_t));
  /* A whole input row of zero points: a row of pixels in the padding
   * reads it at their columns (lg_depthwise_quant_rows_fast). */
  const size_t pad_bytes = (size_t)(g->in_w > 0 ? g->in_w : 1) * channels;
  q->dw_pad = malloc(pad_bytes);
  if (q->dw_weights == NULL || q->dw_bias == NULL || q->dw_pad == NULL) {
    lg_conv_quant_free_fast(q);
    lg_kernel_log(context, op, "out of memory for the packed INT8 filter");
    return kTfLiteError;
  }
  const int8_t* w = filter->data.int8;
  const void* b = bias != NULL ? bias->data.data : NULL;
  for (size_t c = 0; c < channels; ++c) {
    uint32_t sum = 0;
    for (int64_t t = 0; t < taps; ++t) {
      const int8_t v = w[(size_t)t * channels + c];
      q->dw_weights[((size_t)(t / 2) * channels + c) * 2 + (size_t)(t % 2)] = v;
      sum += (uint32_t)(int32_t)v;
    }
    /* int32 wrapping, as TFLite's accumulator. */
    q->dw_bias[c] = (int32_t)((uint32_t)lg_conv_quant_bias(q, b, (int)c) +
                              (uint32_t)q->input_offset * sum);
  }
  memset(q->dw_pad, zero_point, pad_bytes);
  q->dw_pairs = pairs;
  q->dw_isa = LG_GEMM_ISA_AVX2;
  if (lg_int8_avx512_supported()) {
    TF_LITE_ENSURE_STATUS(lg_depthwise_quant_pack512(context, op, q, g));
    q->dw_isa = LG_GEMM_ISA_AVX512;
  }
  return kTfLiteOk;
}

/* Output rows [r0, r1) on the fast path: each edge pixel's tap pointers
 * (the zero-point row for taps in the padding), then one pixel call; on
 * AVX-512 the pixels between the edges in one row call (their taps move
 * by stride_w pixels a step; rows in the padding read the zero-point row
 * at the same columns). */
static void lg_depthwise_quant_rows_fast(const lg_conv_geometry* g,
                                         const lg_conv_quant* q,
                                         const int8_t* input, int8_t* output,
                                         int r0, int r1) {
  const lg_dw_int8_params p = {
      .channels = g->out_c,
      .pairs = q->dw_pairs,
      .weights = q->dw_weights,
      .bias = q->dw_bias,
      .multipliers = q->multipliers,
      .shifts = q->shifts,
      .rq = q->rq,
      .blocks32 = q->dw_blocks32,
      .weights32 = q->dw_weights32,
      .bias32 = q->dw_bias32,
      .rq32 = q->rq32,
      .zero_point = q->output_offset,
      .lo = q->act_min,
      .hi = q->act_max,
  };
  void (*pixel)(const lg_dw_int8_params*, const int8_t* const*, int8_t*) =
      lg_dw_int8_pixel_scalar;
  void (*row)(const lg_dw_int8_params*, const int8_t* const*, ptrdiff_t, int,
              int8_t*) = NULL;
#if LG_GEMM_HAVE_X86
  if (q->dw_isa != LG_GEMM_ISA_AVX512) {
    pixel = lg_dw_int8_pixel_avx2;
  } else if (lg_int8_vnni_supported()) {
    pixel = lg_dw_int8_pixel_vnni;
    row = lg_dw_int8_row_vnni;
  } else {
    pixel = lg_dw_int8_pixel_avx512;
    row = lg_dw_int8_row_avx512;
  }
#endif
  const int8_t* taps[LG_DW_QUANT_MAX_TAPS + 1];
  const int8_t* row_taps[LG_DW_QUANT_MAX_TAPS + 1];
  const int count = 2 * q->dw_pairs;
  /* An odd window's extra tap (weights 0) reads the zero-point row. */
  taps[count - 1] = q->dw_pad;
  const size_t row_stride = (size_t)g->in_w * g->in_c;
  const int window = g->filter_h * g->filter_w;
  /* Per output row: each tap's input row at column 0 (NULL for rows in
   * the padding), so that a pixel whose window lies inside the input
   * columns only adds its column. */
  const int8_t* bases[LG_DW_QUANT_MAX_TAPS];
  int inner_lo = 0, inner_hi = 0;
  if (row != NULL) lg_conv_quant_inner(g, &inner_lo, &inner_hi);
  for (int r = r0; r < r1; ++r) {
    const int n = r / g->out_h, oy = r % g->out_h;
    const int8_t* image = input + (size_t)n * g->in_h * row_stride;
    const int y0 = oy * g->stride_h - g->pad_top;
    int8_t* out = output + (size_t)r * g->out_w * g->out_c;
    for (int fy = 0, t = 0; fy < g->filter_h; ++fy) {
      const int y = y0 + fy * g->dilation_h;
      const bool y_in = y >= 0 && y < g->in_h;
      for (int fx = 0; fx < g->filter_w; ++fx, ++t) {
        bases[t] = y_in ? image + (size_t)y * row_stride +
                              (size_t)fx * g->dilation_w * g->in_c
                        : NULL;
      }
    }
    for (int ox = 0; ox < g->out_w; ++ox, out += g->out_c) {
      const int x0 = ox * g->stride_w - g->pad_left;
      if (ox == inner_lo && inner_hi > inner_lo) {
        /* x0 >= 0 and the window inside the columns: every tap's column
         * lies in the zero-point row too. */
        const size_t at = (size_t)x0 * g->in_c;
        for (int t = 0; t < window; ++t) {
          const size_t fx = (size_t)(t % g->filter_w) * g->dilation_w;
          row_taps[t] =
              bases[t] != NULL ? bases[t] + at : q->dw_pad + at + fx * g->in_c;
        }
        if (window < count) row_taps[count - 1] = q->dw_pad + at;
        row(&p, row_taps, (ptrdiff_t)g->stride_w * g->in_c, inner_hi - inner_lo,
            out);
        out += (size_t)(inner_hi - inner_lo - 1) * g->out_c;
        ox = inner_hi - 1;
        continue;
      }
      if (x0 >= 0 && x0 + (g->filter_w - 1) * g->dilation_w < g->in_w) {
        const size_t at = (size_t)x0 * g->in_c;
        for (int t = 0; t < window; ++t) {
          taps[t] = bases[t] != NULL ? bases[t] + at : q->dw_pad;
        }
      } else {
        int t = 0;
        for (int fy = 0; fy < g->filter_h; ++fy) {
          for (int fx = 0; fx < g->filter_w; ++fx, ++t) {
            const int x = x0 + fx * g->dilation_w;
            taps[t] = bases[t] != NULL && x >= 0 && x < g->in_w
                          ? bases[t] + (ptrdiff_t)x0 * g->in_c
                          : q->dw_pad;
          }
        }
      }
      pixel(&p, taps, out);
    }
  }
}

/* A quantized DEPTHWISE_CONV_2D's or TRANSPOSE_CONV's work: output rows
 * of batch * out_h split evenly over num_tasks tasks. */
typedef struct lg_quant_rows_job {
  const lg_conv_geometry* g;
  const lg_conv_quant* q;
  const void* input;
  const void* filter;
  const void* bias;
  void* output;
  int rows;
  int num_tasks;
} lg_quant_rows_job;

/* Task `index`'s rows [*r0, *r1). */
static void lg_quant_rows_of_task(const lg_quant_rows_job* j, int index,
                                  int* r0, int* r1) {
  *r0 = (int)((int64_t)j->rows * index / j->num_tasks);
  *r1 = (int)((int64_t)j->rows * (index + 1) / j->num_tasks);
}

/* Runs `task` on the job's rows of `g`, split into a few tasks per thread
 * of the pool when the work (`macs`) reaches the threading threshold and
 * the pool has no more threads than the task's scratch has slots. */
static void lg_quant_rows_run(lg_thread_pool* pool, lg_slot_task_fn task,
                              const lg_conv_geometry* g, const lg_conv_quant* q,
                              const void* input, const void* filter,
                              const void* bias, void* output, int64_t macs,
                              int slots) {
  lg_quant_rows_job job = {
      g, q, input, filter, bias, output, g->batch * g->out_h, 1};
  if (lg_thread_pool_size(pool) <= slots && macs >= LG_GEMM_MIN_PARALLEL_MACS) {
    job.num_tasks = lg_thread_pool_tasks(pool, job.rows);
  }
  lg_thread_pool_run_slots(pool, task, &job, job.num_tasks);
}

static void lg_depthwise_quant_task(void* ctx, int index, int slot) {
  (void)slot;
  const lg_quant_rows_job* j = ctx;
  int r0, r1;
  lg_quant_rows_of_task(j, index, &r0, &r1);
  if (j->q->dw_weights != NULL) {
    lg_depthwise_quant_rows_fast(j->g, j->q, j->input, j->output, r0, r1);
  } else if (j->q->type == kTfLiteInt16) {
    lg_depthwise_quant_rows_i16(j->g, j->q, j->input, j->filter, j->bias,
                                j->output, r0, r1);
  } else if (j->q->type == kTfLiteUInt8) {
    lg_depthwise_quant_rows_u8(j->g, j->q, j->input, j->filter, j->bias,
                               j->output, r0, r1);
  } else {
    lg_depthwise_quant_rows_i8(j->g, j->q, j->input, j->filter, j->bias,
                               j->output, r0, r1);
  }
}

void lg_depthwise_quant_run(const lg_conv_geometry* g, const lg_conv_quant* q,
                            const void* input, const void* filter,
                            const void* bias, void* output,
                            lg_thread_pool* pool) {
  const int64_t macs = (int64_t)g->batch * g->out_h * g->out_w * g->out_c *
                       g->filter_h * g->filter_w;
  lg_quant_rows_run(pool, lg_depthwise_quant_task, g, q, input, filter, bias,
                    output, macs, INT32_MAX);
}

/* INT8 TRANSPOSE_CONV's VNNI path (a depth that is a multiple of 4): each
 * tap's weights in the VNNI kernel's layout (packed8, [tap][blocks][k4]
 * [16][4]), the input flipped to unsigned bytes once per Invoke (flipped),
 * and per tap the term that flip adds, (input_offset - 128) * the tap's
 * weight sum per channel (fused_bias, [tap][out_c]); sums: per slot, an
 * output pixel's 16 * blocks sums. */
static TfLiteStatus lg_transpose_conv_quant_pack_vnni(
    TfLiteContext* context, const char* op, lg_conv_quant* q,
    const lg_conv_geometry* g, const int8_t* weights, int threads) {
  const int64_t taps = (int64_t)g->filter_h * g->filter_w;
  const int64_t k4 = g->in_c / 4;
  const int64_t blocks = (g->out_c + LG_VNNI_LANES - 1) / LG_VNNI_LANES;
  const size_t image = (size_t)g->batch * g->in_h * g->in_w * g->in_c;
  q->vnni = true;
  q->k4 = (int)k4;
  q->blocks = (int)blocks;
  q->slots = threads > 0 ? threads : 1;
  q->packed8 = calloc((size_t)(taps * blocks * k4 * 64), 1);
  q->fused_bias = calloc((size_t)(taps * g->out_c), sizeof(int32_t));
  q->flipped = malloc(image > 0 ? image : 1);
  q->sums = lg_conv_quant_slots(
      q->slots, (size_t)blocks * LG_VNNI_LANES * sizeof(int32_t),
      &q->sums_stride);
  q->sums_stride /= sizeof(int32_t);
  if (q->packed8 == NULL || q->fused_bias == NULL || q->flipped == NULL ||
      q->sums == NULL) {
    lg_conv_quant_free_fast(q);
    lg_kernel_log(context, op, "out of memory for the packed INT8 weights");
    return kTfLiteError;
  }
  for (int64_t t = 0; t < taps; ++t) {
    int8_t* packed = q->packed8 + (size_t)(t * blocks * k4 * 64);
    for (int o = 0; o < g->out_c; ++o) {
      const int8_t* w = weights + (size_t)((o * taps + t) * g->in_c);
      const int b = o / LG_VNNI_LANES, lane = o % LG_VNNI_LANES;
      uint32_t sum = 0;
      for (int c = 0; c < g->in_c; ++c) {
        packed[(((size_t)b * k4 + c / 4) * LG_VNNI_LANES + lane) * 4 + c % 4] =
            w[c];
        sum += (uint32_t)w[c];
      }
      /* int32 wrapping, as TFLite's accumulator. */
      q->fused_bias[t * g->out_c + o] =
          (int32_t)((uint32_t)(q->input_offset - 128) * sum);
    }
  }
  return kTfLiteOk;
}

/* INT8 TRANSPOSE_CONV's fast path (AVX2, constant weights): the weights
 * as int16 rows per filter tap, [tap][out_c][k_pad]; with AVX-512 VNNI and
 * a depth that is a multiple of 4, lg_transpose_conv_quant_pack_vnni's. */
TfLiteStatus lg_transpose_conv_quant_pack(TfLiteContext* context,
                                          const char* op, lg_conv_quant* q,
                                          const lg_conv_geometry* g,
                                          const TfLiteTensor* weights,
                                          int threads) {
  lg_conv_quant_free_fast(q);
  if (!LG_GEMM_HAVE_X86 || !q->simd || !lg_nn_is_constant(weights) ||
      weights->data.int8 == NULL || g->in_c <= 0 || g->out_c <= 0) {
    return kTfLiteOk;
  }
  if (q->type == kTfLiteInt8 && g->in_c % 4 == 0 && lg_int8_vnni_supported()) {
    return lg_transpose_conv_quant_pack_vnni(context, op, q, g,
                                             weights->data.int8, threads);
  }
  const int64_t k_pad = lg_int16_dot_pad(g->in_c);
  const int64_t taps = (int64_t)g->filter_h * g->filter_w;
  q->k_pad = (int)k_pad;
  q->slots = threads > 0 ? threads : 1;
  q->packed = calloc((size_t)(taps * g->out_c * k_pad), sizeof(int16_t));
  q->rows = lg_conv_quant_slots(q->slots, (size_t)k_pad * sizeof(int16_t),
                                &q->rows_stride);
  q->rows_stride /= sizeof(int16_t);
  q->sums = lg_conv_quant_slots(
      q->slots, (size_t)g->out_c * 2 * sizeof(int32_t), &q->sums_stride);
  q->sums_stride /= sizeof(int32_t);
  if (q->packed == NULL || q->rows == NULL || q->sums == NULL) {
    lg_conv_quant_free_fast(q);
    lg_kernel_log(context, op, "out of memory for the packed INT8 weights");
    return kTfLiteError;
  }
  /* Tap t's rows: every output channel's in_c weights at that tap. */
  for (int64_t t = 0; t < taps; ++t) {
    lg_int16_rows_from_int8(weights->data.int8 + (size_t)t * g->in_c,
                            (size_t)(taps * g->in_c), g->out_c, g->in_c,
                            q->packed + (size_t)t * g->out_c * k_pad, q->k_pad);
  }
  return kTfLiteOk;
}

/* Along one axis of TRANSPOSE_CONV, the filter positions k0 + j * stride
 * (j = 0, 1, ...) reach output index o from input index i0 - j (where that
 * is inside the input): no division per tap. i0 -1: none reaches. */
static inline void lg_transpose_conv_reach(int o, int pad, int stride, int* k0,
                                           int* i0) {
  const int v = o + pad;
  *k0 = v >= 0 ? v % stride : 0;
  *i0 = v >= 0 ? v / stride : -1;
}

/* One reaching input pixel's sums into acc (int32, wrapping as TFLite's
 * accumulator): on VNNI its flipped bytes against tap t's packed weights,
 * plus the flip's term; else int16 dot products through `part`. */
static void lg_transpose_conv_quant_tap(const lg_conv_geometry* g,
                                        const lg_conv_quant* q,
                                        const int8_t* in, const uint8_t* in8,
                                        int t, int16_t* in_row, int32_t* part,
                                        int32_t* acc) {
  const int32_t* add = part;
  if (q->vnni) {
#if LG_GEMM_HAVE_X86
    lg_uint8_dots_vnni(in8, q->packed8 + (size_t)t * q->blocks * q->k4 * 64,
                       q->k4, g->out_c, acc, acc);
#endif
    add = q->fused_bias + (size_t)t * g->out_c;
  } else {
    for (int c = 0; c < g->in_c; ++c) {
      in_row[c] = (int16_t)(in[c] + q->input_offset);
    }
#if LG_GEMM_HAVE_X86
    lg_int16_dots_avx2(in_row,
                       q->packed + (size_t)t * g->out_c * (size_t)q->k_pad,
                       q->k_pad, g->out_c, part);
#endif
  }
  for (int o = 0; o < g->out_c; ++o) {
    acc[o] = (int32_t)((uint32_t)acc[o] + (uint32_t)add[o]);
  }
}

/* Each output pixel of rows [r0, r1) of batch * out_h: the sums of every
 * input pixel that reaches it with its tap's weights
 * (lg_transpose_conv_quant_tap); then the bias and the rescale. The
 * reference's sums, so its output. `slot` picks the task's scratch. */
static void lg_transpose_conv_quant_run_fast(const lg_conv_geometry* g,
                                             const lg_conv_quant* q,
                                             const int8_t* input,
                                             const void* bias, int8_t* output,
                                             int slot, int r0, int r1) {
  int32_t* acc = q->sums + (size_t)slot * q->sums_stride;
  /* The int16 path's scratch (VNNI: acc only, 16 * blocks sums). */
  int32_t* part = q->vnni ? NULL : acc + g->out_c;
  int16_t* in_row = q->vnni ? NULL : q->rows + (size_t)slot * q->rows_stride;
  const size_t sums =
      q->vnni ? (size_t)q->blocks * LG_VNNI_LANES : (size_t)g->out_c;
  const size_t image_size = (size_t)g->in_h * g->in_w * g->in_c;
  for (int r = r0; r < r1; ++r) {
    const int n = r / g->out_h, oy = r % g->out_h;
    const int8_t* image = input + (size_t)n * image_size;
    const uint8_t* image8 =
        q->vnni ? q->flipped + (size_t)n * image_size : NULL;
    int kh0, iy0;
    lg_transpose_conv_reach(oy, g->pad_top, g->stride_h, &kh0, &iy0);
    for (int ox = 0; ox < g->out_w; ++ox) {
      int kw0, ix0;
      lg_transpose_conv_reach(ox, g->pad_left, g->stride_w, &kw0, &ix0);
      memset(acc, 0, sizeof(int32_t) * sums);
      for (int kh = kh0, iy = iy0; kh < g->filter_h && iy >= 0;
           kh += g->stride_h, --iy) {
        if (iy >= g->in_h) continue;
        for (int kw = kw0, ix = ix0; kw < g->filter_w && ix >= 0;
             kw += g->stride_w, --ix) {
          if (ix >= g->in_w) continue;
          const size_t at = ((size_t)iy * g->in_w + (size_t)ix) * g->in_c;
          lg_transpose_conv_quant_tap(g, q, image + at,
                                      image8 != NULL ? image8 + at : NULL,
                                      kh * g->filter_w + kw, in_row, part, acc);
        }
      }
      lg_conv_quant_block_i8(
          q, acc, bias, 0, g->out_c,
          output + (((size_t)n * g->out_h + oy) * g->out_w + ox) * g->out_c);
    }
  }
}

static void lg_transpose_conv_quant_task(void* ctx, int index, int slot) {
  const lg_quant_rows_job* j = ctx;
  int r0, r1;
  lg_quant_rows_of_task(j, index, &r0, &r1);
  if ((j->q->vnni && j->q->packed8 != NULL) ||
      (j->q->packed != NULL && j->q->type == kTfLiteInt8)) {
    lg_transpose_conv_quant_run_fast(j->g, j->q, j->input, j->bias, j->output,
                                     slot, r0, r1);
  } else if (j->q->type == kTfLiteInt16) {
    lg_transpose_conv_quant_run_i16(j->g, j->q, j->input, j->filter, j->bias,
                                    j->output, r0, r1);
  } else {
    lg_transpose_conv_quant_run_i8(j->g, j->q, j->input, j->filter, j->bias,
                                   j->output, r0, r1);
  }
}

void lg_transpose_conv_quant_run(const lg_conv_geometry* g,
                                 const lg_conv_quant* q, const void* input,
                                 const int8_t* filter, const void* bias,
                                 void* output, lg_thread_pool* pool) {
  /* Every output pixel gathers at most filter_h * filter_w input pixels of
   * in_c products per channel. */
  const int64_t macs = (int64_t)g->batch * g->out_h * g->out_w * g->out_c *
                       g->filter_h * g->filter_w * g->in_c;
  const bool vnni = q->vnni && q->packed8 != NULL;
#if LG_GEMM_HAVE_X86
  if (vnni) {
    lg_flip_bytes_avx512(input, (size_t)g->batch * g->in_h * g->in_w * g->in_c,
                         q->flipped);
  }
#endif
  /* The fast paths' scratch has one slot per thread of Prepare's pool. */
  lg_quant_rows_run(pool, lg_transpose_conv_quant_task, g, q, input, filter,
                    bias, output, macs,
                    q->packed != NULL || vnni ? q->slots : INT32_MAX);
}
