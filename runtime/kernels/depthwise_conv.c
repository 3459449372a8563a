/* DEPTHWISE_CONV_2D, float32: output channel o = c * multiplier + m reads
 * only input channel c:
 *   output[n, y, x, o] = activation(bias[o] + sum over (kh, kw) of
 *     input[n, y * stride_h - pad_top + kh * dilation_h,
 *              x * stride_w - pad_left + kw * dilation_w, c]
 *     * filter[0, kh, kw, o]).
 * Filter layout [1, filter_h, filter_w, out_c]; out_c must be a multiple of
 * the input's channels, and (as in TFLite's float kernel) the multiplier is
 * out_c / in_c: the depth_multiplier option is redundant and not read.
 * Dilation is version 2. INT8 (version 3; per-channel filters along dim
 * 3), 16x8 (INT16 activations, INT8 filters, INT64 bias: version 5) and
 * UINT8 (version 1: UINT8 filters quantized per tensor, any zero point) run
 * conv_quant.c's kernel, bit for bit with TFLite's reference; an INT4
 * filter with INT8 input (version 7) is unpacked once in Prepare
 * (lg_nn_prepare_int4) and runs as an INT8 one. The hybrid variants are
 * rejected in Prepare with the type's name.
 *
 * Fast path: a dedicated loop, no GEMM. Each output pixel lists the filter
 * taps that fall inside the input (so padding costs nothing), then for
 * multiplier 1 sums them channel-vector by channel-vector with the sums in
 * registers (AVX-512: 64 channels in 4 zmm, AVX2: 32 in 4 ymm, masked
 * vectors for the rest; two loads per fused multiply-add, the output
 * written once with bias and clamp). A 3x3 window with multiplier 1 (the
 * common case) has its own row loop that keeps a channel block's nine
 * weight vectors in registers (lg_dw3_row_*); 1, 2, 4 or 8 channels at
 * stride_w 1 put 16 / channels pixels in each AVX-512 vector
 * (lg_dw_packed_rows_avx512: 256x256x8 3x3 from 858 to 452 us); other
 * windows with multiplier
 * 1 sum four interior pixels of a row together (lg_dw_quad_*: one weight
 * load per four multiply-adds, eight independent sums for 32 channels;
 * 5x5 over 96x96x32 from 693 to 310 us). The instruction set is the
 * GEMM's choice (lg_gemm_isa_default); the scalar C path and multipliers
 * above 1 use plain loops. Rows of output pixels are split over the
 * thread pool, or channel ranges of 16 where few rows would split unevenly
 * (lg_dw_channel_parts); each task then runs the elementwise chain the
 * interpreter fused after the node (kernel_context.h's epilogue) on the
 * rows and channels it computed.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/nn.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#if LG_GEMM_HAVE_X86
#include <immintrin.h>
#endif

#define LG_DW_OP "DEPTHWISE_CONV_2D"
/* Channels the scalar path sums at once. */
#define LG_DW_CHUNK 64
/* Multiply-adds below which one thread does all the work (see
 * LG_GEMM_MIN_PARALLEL_MACS on the pool's hand-over cost, measured with
 * this cutoff at 64K too: no gain). A 3x3 layer of 72,000 multiply-adds
 * (kws_cnn's) takes about 2.8 us on one AVX-512 thread. */
#define LG_DW_MIN_PARALLEL_MACS (1 << 18)
/* Input bytes a chunk of rows of the 3x3 and 5x5 loops reads at most. */
#define LG_DW_CHUNK_BYTES (32 << 10)
/* Input bytes from which the rows are split whatever the multiply-adds: at
 * 2 threads the layer before left half the input in the other core's
 * cache, and one thread pulling it across cost more than the split (a
 * 26x26x128 stride-2 layer, 166K multiply-adds: 6.1 us alone, 12.3 us
 * after a 2-thread layer; face_landmark 0.92x, MediaPipe's full-range face
 * detector 0.94x the time at 2 threads). */
#define LG_DW_MIN_PARALLEL_INPUT_BYTES (1 << 16)

enum {
  kInputTensor = 0,
  kFilterTensor = 1,
  kBiasTensor = 2,
  kOutputTensor = 0,
};

typedef struct lg_dw_data {
  bool prepared;
  lg_conv_geometry geo;
  bool has_bias;
  int64_t input_elements, output_elements;
  /* Per pool thread (slot): two lists of input and filter offsets of taps
   * (4 * filter_h * filter_w entries), allocated in Prepare. */
  ptrdiff_t* taps;
  size_t taps_capacity;
  int slots;      /* the pool threads `taps` has room for */
  bool quantized; /* INT8, INT16 or UINT8: conv_quant.c */
  lg_conv_quant q;
  int8_t* unpacked; /* an INT4 filter unpacked in Prepare, else NULL */
} lg_dw_data;

/* One Invoke's work, shared read-only by its tasks. */
typedef struct lg_dw_job {
  const lg_conv_geometry* geo;
  const float* input;
  const float* filter;
  const float* bias; /* NULL without bias */
  float* output;
  int rows; /* batch * out_h */
  int num_tasks;
  /* Tasks split the channels into this many ranges (multiples of
   * LG_DW_CHANNEL_ALIGN) and the rows into num_tasks / channel_parts. */
  int channel_parts;
  /* The elementwise chain after the node, run by each task on the output it
   * finished (kernel_context.h), or NULL. */
  const lg_kernel_epilogue* epilogue;
  lg_gemm_isa isa;
  ptrdiff_t* taps; /* 4 * window entries per task */
  int window;      /* filter_h * filter_w */
} lg_dw_job;

static void* lg_dw_init(TfLiteContext* context, const char* buffer,
                        size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_dw_data));
}

static void lg_dw_free(TfLiteContext* context, void* buffer) {
  (void)context;
  lg_dw_data* data = buffer;
  if (data != NULL) {
    free(data->taps);
    lg_conv_quant_free(&data->q);
    free(data->unpacked);
  }
  free(data);
}

/* ---- Reference ---------------------------------------------------------- */

void lg_depthwise_conv_reference(const lg_conv_geometry* g, const float* input,
                                 const float* filter, const float* bias,
                                 float* output) {
  const int multiplier = g->out_c / g->in_c;
  for (int n = 0; n < g->batch; ++n) {
    for (int y = 0; y < g->out_h; ++y) {
      for (int x = 0; x < g->out_w; ++x) {
        for (int o = 0; o < g->out_c; ++o) {
          const int c = o / multiplier;
          float total = 0.0f;
          for (int kh = 0; kh < g->filter_h; ++kh) {
            const int iy = y * g->stride_h - g->pad_top + kh * g->dilation_h;
            if (iy < 0 || iy >= g->in_h) continue;
            for (int kw = 0; kw < g->filter_w; ++kw) {
              const int ix = x * g->stride_w - g->pad_left + kw * g->dilation_w;
              if (ix < 0 || ix >= g->in_w) continue;
              total +=
                  input[(((size_t)n * g->in_h + iy) * g->in_w + ix) * g->in_c +
                        c] *
                  filter[((size_t)kh * g->filter_w + kw) * g->out_c + o];
            }
          }
          const float v = total + (bias != NULL ? bias[o] : 0.0f);
          output[(((size_t)n * g->out_h + y) * g->out_w + x) * g->out_c + o] =
              lg_kernel_clamp_float(v, g->act_min, g->act_max);
        }
      }
    }
  }
}

/* ---- The loop ----------------------------------------------------------- */

/* Multiplier 1: one output pixel, all channels. Sums over `taps` taps at
 * in + in_off[t] and w + w_off[t], then bias and clamp. Each ISA has its
 * own; they differ only in vector width (and in rounding, as the SIMD ones
 * use fused multiply-adds). */
typedef void (*lg_dw_pixel_fn)(const float* in, const float* w,
                               const ptrdiff_t* in_off, const ptrdiff_t* w_off,
                               int taps, const float* bias, float* out,
                               int channels, float lo, float hi);

static int lg_dw_border_taps(const lg_conv_geometry* g, int y, int x,
                             ptrdiff_t* in_off, ptrdiff_t* w_off);

/* LG_DW_QUAD interior pixels of one row at once (see lg_dw_quad_*): pixel
 * p reads in + p * in_step and writes out + p * out_step. */
typedef void (*lg_dw_quad_fn)(const float* in, ptrdiff_t in_step,
                              const float* w, const ptrdiff_t* in_off,
                              const ptrdiff_t* w_off, int taps,
                              const float* bias, float* out, ptrdiff_t out_step,
                              int channels, float lo, float hi);

static void lg_dw_pixel_scalar(const float* in, const float* w,
                               const ptrdiff_t* in_off, const ptrdiff_t* w_off,
                               int taps, const float* bias, float* out,
                               int channels, float lo, float hi) {
  for (int c0 = 0; c0 < channels; c0 += LG_DW_CHUNK) {
    const int len = channels - c0 < LG_DW_CHUNK ? channels - c0 : LG_DW_CHUNK;
    float acc[LG_DW_CHUNK];
    for (int c = 0; c < len; ++c) acc[c] = 0.0f;
    for (int t = 0; t < taps; ++t) {
      const float* x = in + in_off[t] + c0;
      const float* k = w + w_off[t] + c0;
      for (int c = 0; c < len; ++c) acc[c] += x[c] * k[c];
    }
    for (int c = 0; c < len; ++c) {
      const float v = acc[c] + (bias != NULL ? bias[c0 + c] : 0.0f);
      out[c0 + c] = lg_kernel_clamp_float(v, lo, hi);
    }
  }
}

#if LG_GEMM_HAVE_X86
#define LG_DW_AVX512 __attribute__((target("avx512f")))
#define LG_DW_AVX2 __attribute__((target("avx2,fma")))

/* acc + bias, clamped (a NaN passes: it is max's second operand), stored
 * on the lanes of `mask`. */
LG_DW_AVX512 static inline void lg_dw_store16(float* out, __m512 acc,
                                              const float* bias, __mmask16 mask,
                                              __m512 lo, __m512 hi) {
  if (bias != NULL) acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(mask, bias));
  _mm512_mask_storeu_ps(out, mask, _mm512_min_ps(hi, _mm512_max_ps(lo, acc)));
}

/* `nv` (1..4, a constant after inlining) vectors of 16 channels from c,
 * each with its own mask, as nv independent sums. */
static inline __attribute__((always_inline, target("avx512f"))) void
lg_dw_block_avx512(const int nv, const float* in, const float* w,
                   const ptrdiff_t* in_off, const ptrdiff_t* w_off, int taps,
                   const float* bias, float* out, int left, __m512 lo,
                   __m512 hi) {
  __mmask16 mask[4];
  __m512 a[4];
  for (int v = 0; v < nv; ++v) {
    const int n = left - 16 * v;
    mask[v] = n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1u);
    a[v] = _mm512_setzero_ps();
  }
  for (int t = 0; t < taps; ++t) {
    const float* x = in + in_off[t];
    const float* k = w + w_off[t];
    for (int v = 0; v < nv; ++v) {
      a[v] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask[v], x + 16 * v),
                             _mm512_maskz_loadu_ps(mask[v], k + 16 * v), a[v]);
    }
  }
  for (int v = 0; v < nv; ++v) {
    lg_dw_store16(out + 16 * v, a[v], bias != NULL ? bias + 16 * v : NULL,
                  mask[v], lo, hi);
  }
}

/* 64 channels at a time in 4 zmm accumulators (two loads per multiply-add,
 * the output written once), then the last 1..63 in as many masked
 * vectors. */
LG_DW_AVX512 static void lg_dw_pixel_avx512(const float* in, const float* w,
                                            const ptrdiff_t* in_off,
                                            const ptrdiff_t* w_off, int taps,
                                            const float* bias, float* out,
                                            int channels, float lo, float hi) {
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  for (int c = 0; c < channels; c += 64) {
    const int left = channels - c;
    const float* b = bias != NULL ? bias + c : NULL;
    switch (left >= 64 ? 4 : (left + 15) / 16) {
      case 4:
        lg_dw_block_avx512(4, in + c, w + c, in_off, w_off, taps, b, out + c,
                           left, vlo, vhi);
        break;
      case 3:
        lg_dw_block_avx512(3, in + c, w + c, in_off, w_off, taps, b, out + c,
                           left, vlo, vhi);
        break;
      case 2:
        lg_dw_block_avx512(2, in + c, w + c, in_off, w_off, taps, b, out + c,
                           left, vlo, vhi);
        break;
      default:
        lg_dw_block_avx512(1, in + c, w + c, in_off, w_off, taps, b, out + c,
                           left, vlo, vhi);
        break;
    }
  }
}

LG_DW_AVX2 static inline void lg_dw_store8(float* out, __m256 acc,
                                           const float* bias, __m256i mask,
                                           __m256 lo, __m256 hi) {
  if (bias != NULL) acc = _mm256_add_ps(acc, _mm256_maskload_ps(bias, mask));
  _mm256_maskstore_ps(out, mask, _mm256_min_ps(hi, _mm256_max_ps(lo, acc)));
}

/* 32 channels at a time in 4 ymm accumulators, then 8 at a time with a
 * mask for the rest. */
LG_DW_AVX2 static void lg_dw_pixel_avx2(const float* in, const float* w,
                                        const ptrdiff_t* in_off,
                                        const ptrdiff_t* w_off, int taps,
                                        const float* bias, float* out,
                                        int channels, float lo, float hi) {
  const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
  const __m256i all = _mm256_set1_epi32(-1);
  int c = 0;
  for (; c + 32 <= channels; c += 32) {
    __m256 a[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(),
                   _mm256_setzero_ps(), _mm256_setzero_ps()};
    for (int t = 0; t < taps; ++t) {
      const float* x = in + in_off[t] + c;
      const float* k = w + w_off[t] + c;
      for (int v = 0; v < 4; ++v) {
        a[v] = _mm256_fmadd_ps(_mm256_loadu_ps(x + 8 * v),
                               _mm256_loadu_ps(k + 8 * v), a[v]);
      }
    }
    for (int v = 0; v < 4; ++v) {
      lg_dw_store8(out + c + 8 * v, a[v],
                   bias != NULL ? bias + c + 8 * v : NULL, all, vlo, vhi);
    }
  }
  if (c < channels) {
    /* The last 1..31 channels: up to four masked vectors. */
    __m256i mask[4];
    __m256 a[4];
    for (int v = 0; v < 4; ++v) {
      mask[v] = _mm256_cmpgt_epi32(_mm256_set1_epi32(channels - c - 8 * v),
                                   _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
      a[v] = _mm256_setzero_ps();
    }
    for (int t = 0; t < taps; ++t) {
      const float* x = in + in_off[t] + c;
      const float* k = w + w_off[t] + c;
      for (int v = 0; v < 4; ++v) {
        a[v] = _mm256_fmadd_ps(_mm256_maskload_ps(x + 8 * v, mask[v]),
                               _mm256_maskload_ps(k + 8 * v, mask[v]), a[v]);
      }
    }
    for (int v = 0; v < 4 && c + 8 * v < channels; ++v) {
      lg_dw_store8(out + c + 8 * v, a[v],
                   bias != NULL ? bias + c + 8 * v : NULL, mask[v], vlo, vhi);
    }
  }
}

/* ---- 3x3, multiplier 1: row by row, a block of channels at a time ---------
 * The per-pixel loop above reloads every weight for every pixel, two loads
 * per multiply-add. For the common 3x3 window this loop instead takes a
 * block of channels, keeps its 9 weight vectors per 16 (8) channels in
 * registers and sweeps the row's pixels: one load per multiply-add, and no
 * tap lists. Window rows in the padding are skipped per output row; each
 * row's pixels are swept in three runs (window crossing the left edge,
 * inside, crossing the right edge) so that only the edge pixels test their
 * columns. */

/* Output row `row` (of batch * out_h): the pointers of its window rows kh =
 * 0..window-1 in its image of `input` (NULL: padding) and of its first
 * output pixel. */
static void lg_dw_row_at(const lg_conv_geometry* g, const float* input,
                         float* output, int row, int window, const float** rows,
                         float** out) {
  const int n = row / g->out_h, y = row % g->out_h;
  const float* image = input + (size_t)n * g->in_h * g->in_w * g->in_c;
  for (int kh = 0; kh < window; ++kh) {
    const int iy = y * g->stride_h - g->pad_top + kh * g->dilation_h;
    rows[kh] =
        iy >= 0 && iy < g->in_h ? image + (size_t)iy * g->in_w * g->in_c : NULL;
  }
  *out = output + (size_t)row * g->out_w * g->out_c;
}

/* Lanes of m loaded from p: a plain load (which folds into the
 * multiply-add) when `full`, a masked one otherwise. */
static inline __attribute__((always_inline, target("avx512f"))) __m512
lg_dw3_load(const bool full, __mmask16 m, const float* p) {
  return full ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(m, p);
}

/* Output pixel x of a row: 32 channels from c (lanes of m0, m1), with the
 * block's weights w0, w1 in registers. `checks`: whether taps may fall
 * left or right of the input. Each window row sums into its own
 * accumulators, so that the multiply-adds form three short dependency
 * chains instead of one of nine. */
static inline __attribute__((always_inline, target("avx512f"))) void
lg_dw3_pixel_avx512(const bool full, const bool two, const bool checks,
                    const lg_conv_geometry* g, const float* const* rows, int x,
                    const __m512* w0, const __m512* w1, __m512 b0, __m512 b1,
                    float* out, int c, __mmask16 m0, __mmask16 m1) {
  const int in_w = g->in_w, in_c = g->in_c, dilation = g->dilation_w;
  const int ix0 = x * g->stride_w - g->pad_left;
  __m512 a0[3], a1[3];
#pragma GCC unroll 3
  for (int kh = 0; kh < 3; ++kh) {
    a0[kh] = _mm512_setzero_ps();
    a1[kh] = _mm512_setzero_ps();
    if (rows[kh] == NULL) continue;
#pragma GCC unroll 3
    for (int kw = 0; kw < 3; ++kw) {
      const int ix = ix0 + kw * dilation;
      if (checks && (ix < 0 || ix >= in_w)) continue;
      const float* p = rows[kh] + (ptrdiff_t)ix * in_c + c;
      a0[kh] =
          _mm512_fmadd_ps(lg_dw3_load(full, m0, p), w0[kh * 3 + kw], a0[kh]);
      if (two) {
        a1[kh] = _mm512_fmadd_ps(lg_dw3_load(full, m1, p + 16), w1[kh * 3 + kw],
                                 a1[kh]);
      }
    }
  }
  const __m512 lo = _mm512_set1_ps(g->act_min), hi = _mm512_set1_ps(g->act_max);
  const __m512 s0 = _mm512_add_ps(_mm512_add_ps(a0[0], a0[1]), a0[2]);
  float* o = out + (ptrdiff_t)x * g->out_c + c;
  /* max(lo, v): a NaN v is the second operand, so it passes through. */
  _mm512_mask_storeu_ps(
      o, m0, _mm512_min_ps(hi, _mm512_max_ps(lo, _mm512_add_ps(s0, b0))));
  if (two) {
    const __m512 s1 = _mm512_add_ps(_mm512_add_ps(a1[0], a1[1]), a1[2]);
    _mm512_mask_storeu_ps(
        o + 16, m1,
        _mm512_min_ps(hi, _mm512_max_ps(lo, _mm512_add_ps(s1, b1))));
  }
}

/* 32 channels from c (lanes of m0, m1; `full`: all of them) of output rows
 * [row0, row1): the weights loaded once, then on each row the pixels whose
 * window crosses the left edge, the interior ones [x_lo, x_hi) (no column
 * checks) and those crossing the right edge. */
static inline __attribute__((always_inline, target("avx512f"))) void
lg_dw3_block_avx512(const bool full, const bool two, const lg_conv_geometry* g,
                    const float* input, int row0, int row1, const float* filter,
                    const float* bias, float* output, int c, __mmask16 m0,
                    __mmask16 m1, int x_lo, int x_hi) {
  __m512 w0[9], w1[9];
#pragma GCC unroll 9
  for (int t = 0; t < 9; ++t) {
    w0[t] = _mm512_maskz_loadu_ps(m0, filter + (size_t)t * g->out_c + c);
    w1[t] = _mm512_maskz_loadu_ps(m1, filter + (size_t)t * g->out_c + c + 16);
  }
  const __m512 b0 =
      bias != NULL ? _mm512_maskz_loadu_ps(m0, bias + c) : _mm512_setzero_ps();
  const __m512 b1 = bias != NULL ? _mm512_maskz_loadu_ps(m1, bias + c + 16)
                                 : _mm512_setzero_ps();
  for (int row = row0; row < row1; ++row) {
    const float* rows[3];
    float* out;
    lg_dw_row_at(g, input, output, row, 3, rows, &out);
    int x = 0;
    for (; x < x_lo; ++x) {
      lg_dw3_pixel_avx512(full, two, true, g, rows, x, w0, w1, b0, b1, out, c,
                          m0, m1);
    }
    for (; x < x_hi; ++x) {
      lg_dw3_pixel_avx512(full, two, false, g, rows, x, w0, w1, b0, b1, out, c,
                          m0, m1);
    }
    for (; x < g->out_w; ++x) {
      lg_dw3_pixel_avx512(full, two, true, g, rows, x, w0, w1, b0, b1, out, c,
                          m0, m1);
    }
  }
}

/* Output rows [row0, row1) (of batch * out_h), channels [c0, c1). */
LG_DW_AVX512 static void lg_dw3_rows_avx512(const lg_conv_geometry* g,
                                            const float* input, int row0,
                                            int row1, const float* filter,
                                            const float* bias, float* output,
                                            int c0, int c1) {
  int x_lo, x_hi;
  lg_conv_interior_columns(g, &x_lo, &x_hi);
  int c = c0;
  for (; c + 32 <= c1; c += 32) {
    lg_dw3_block_avx512(true, true, g, input, row0, row1, filter, bias, output,
                        c, 0xFFFF, 0xFFFF, x_lo, x_hi);
  }
  if (c < c1) {
    const int left = c1 - c;
    const __mmask16 m0 =
        left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
    const __mmask16 m1 =
        left > 16 ? (__mmask16)((1u << (left - 16)) - 1u) : (__mmask16)0;
    if (left > 16) {
      lg_dw3_block_avx512(false, true, g, input, row0, row1, filter, bias,
                          output, c, m0, m1, x_lo, x_hi);
    } else if (left == 16) {
      lg_dw3_block_avx512(true, false, g, input, row0, row1, filter, bias,
                          output, c, m0, m1, x_lo, x_hi);
    } else {
      lg_dw3_block_avx512(false, false, g, input, row0, row1, filter, bias,
                          output, c, m0, m1, x_lo, x_hi);
    }
  }
}

/* ---- 5x5 windows on AVX-512 ----------------------------------------------
 * Multiplier 1: one 16-channel vector's 25 weight vectors stay in registers
 * over an output row, so each pixel costs 25 multiply-adds whose input
 * loads fold into them (one load per multiply-add; the quad loop needs
 * 1.25, the tap-list loop 2), summed per window row (five chains of five
 * instead of one of 25). Rows are swept as in the 3x3 loop: the pixels whose
 * window crosses the left edge, the interior ones, those crossing the
 * right edge (14x14x192: 42 -> 22 us). */

/* Output pixel x: 16 channels from c (lanes of m; `full`: all), weights w
 * in registers. `checks`: whether taps may fall left or right of the
 * input. */
static inline __attribute__((always_inline, target("avx512f"))) void
lg_dw5_pixel_avx512(const bool full, const bool checks,
                    const lg_conv_geometry* g, const float* const* rows, int x,
                    const __m512* w, __m512 b, float* out, int c, __mmask16 m) {
  const int in_w = g->in_w, dilation = g->dilation_w;
  const int ix0 = x * g->stride_w - g->pad_left;
  /* Taps along a row are `step` floats apart. */
  const ptrdiff_t step = (ptrdiff_t)dilation * g->in_c;
  const ptrdiff_t first = (ptrdiff_t)ix0 * g->in_c + c;
  __m512 acc[5];
#pragma GCC unroll 5
  for (int kh = 0; kh < 5; ++kh) {
    acc[kh] = _mm512_setzero_ps();
    if (rows[kh] == NULL) continue;
    const float* p = rows[kh] + first;
#pragma GCC unroll 5
    for (int kw = 0; kw < 5; ++kw, p += step) {
      if (checks) {
        const int ix = ix0 + kw * dilation;
        if (ix < 0 || ix >= in_w) continue;
      }
      acc[kh] =
          _mm512_fmadd_ps(lg_dw3_load(full, m, p), w[kh * 5 + kw], acc[kh]);
    }
  }
  const __m512 sum = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(acc[0], acc[1]),
                                                 _mm512_add_ps(acc[2], acc[3])),
                                   acc[4]);
  const __m512 lo = _mm512_set1_ps(g->act_min), hi = _mm512_set1_ps(g->act_max);
  /* max(lo, v): a NaN v is the second operand, so it passes through. */
  _mm512_mask_storeu_ps(
      out + (ptrdiff_t)x * g->out_c + c, m,
      _mm512_min_ps(hi, _mm512_max_ps(lo, _mm512_add_ps(sum, b))));
}

/* 16 channels from c of output rows [row0, row1): the weights loaded once,
 * then each row's pixels in three runs. */
static inline __attribute__((always_inline, target("avx512f"))) void
lg_dw5_block_avx512(const bool full, const lg_conv_geometry* g,
                    const float* input, int row0, int row1, const float* filter,
                    const float* bias, float* output, int c, __mmask16 m,
                    int x_lo, int x_hi) {
  __m512 w[25];
#pragma GCC unroll 25
  for (int t = 0; t < 25; ++t) {
    w[t] = _mm512_maskz_loadu_ps(m, filter + (size_t)t * g->out_c + c);
  }
  const __m512 b =
      bias != NULL ? _mm512_maskz_loadu_ps(m, bias + c) : _mm512_setzero_ps();
  for (int row = row0; row < row1; ++row) {
    const float* rows[5];
    float* out;
    lg_dw_row_at(g, input, output, row, 5, rows, &out);
    int x = 0;
    for (; x < x_lo; ++x) {
      lg_dw5_pixel_avx512(full, true, g, rows, x, w, b, out, c, m);
    }
    for (; x < x_hi; ++x) {
      lg_dw5_pixel_avx512(full, false, g, rows, x, w, b, out, c, m);
    }
    for (; x < g->out_w; ++x) {
      lg_dw5_pixel_avx512(full, true, g, rows, x, w, b, out, c, m);
    }
  }
}

/* Output rows [row0, row1) (of batch * out_h), channels [c0, c1). */
LG_DW_AVX512 static void lg_dw5_rows_avx512(const lg_conv_geometry* g,
                                            const float* input, int row0,
                                            int row1, const float* filter,
                                            const float* bias, float* output,
                                            int c0, int c1) {
  int x_lo, x_hi;
  lg_conv_interior_columns(g, &x_lo, &x_hi);
  int c = c0;
  for (; c + 16 <= c1; c += 16) {
    lg_dw5_block_avx512(true, g, input, row0, row1, filter, bias, output, c,
                        0xFFFF, x_lo, x_hi);
  }
  if (c < c1) {
    lg_dw5_block_avx512(false, g, input, row0, row1, filter, bias, output, c,
                        (__mmask16)((1u << (c1 - c)) - 1u), x_lo, x_hi);
  }
}

/* Output pixel x of a row: 8 channels from c (lanes of mask), weights w in
 * registers; `checks` as in the AVX-512 loop, one accumulator per window
 * row. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
lg_dw3_pixel_avx2(const bool checks, const lg_conv_geometry* g,
                  const float* const* rows, int x, const __m256* w, __m256 b,
                  float* out, int c, __m256i mask) {
  const int in_w = g->in_w, in_c = g->in_c, dilation = g->dilation_w;
  const int ix0 = x * g->stride_w - g->pad_left;
  __m256 a[3];
#pragma GCC unroll 3
  for (int kh = 0; kh < 3; ++kh) {
    a[kh] = _mm256_setzero_ps();
    if (rows[kh] == NULL) continue;
#pragma GCC unroll 3
    for (int kw = 0; kw < 3; ++kw) {
      const int ix = ix0 + kw * dilation;
      if (checks && (ix < 0 || ix >= in_w)) continue;
      const float* p = rows[kh] + (ptrdiff_t)ix * in_c + c;
      a[kh] =
          _mm256_fmadd_ps(_mm256_maskload_ps(p, mask), w[kh * 3 + kw], a[kh]);
    }
  }
  const __m256 lo = _mm256_set1_ps(g->act_min), hi = _mm256_set1_ps(g->act_max);
  const __m256 sum = _mm256_add_ps(_mm256_add_ps(a[0], a[1]), a[2]);
  _mm256_maskstore_ps(
      out + (ptrdiff_t)x * g->out_c + c, mask,
      _mm256_min_ps(hi, _mm256_max_ps(lo, _mm256_add_ps(sum, b))));
}

/* 8 channels from c (lanes of mask) of output rows [row0, row1), in the
 * AVX-512 loop's three runs of pixels. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
lg_dw3_block_avx2(const lg_conv_geometry* g, const float* input, int row0,
                  int row1, const float* filter, const float* bias,
                  float* output, int c, __m256i mask, int x_lo, int x_hi) {
  __m256 w[9];
#pragma GCC unroll 9
  for (int t = 0; t < 9; ++t) {
    w[t] = _mm256_maskload_ps(filter + (size_t)t * g->out_c + c, mask);
  }
  const __m256 b =
      bias != NULL ? _mm256_maskload_ps(bias + c, mask) : _mm256_setzero_ps();
  for (int row = row0; row < row1; ++row) {
    const float* rows[3];
    float* out;
    lg_dw_row_at(g, input, output, row, 3, rows, &out);
    int x = 0;
    for (; x < x_lo; ++x) {
      lg_dw3_pixel_avx2(true, g, rows, x, w, b, out, c, mask);
    }
    for (; x < x_hi; ++x) {
      lg_dw3_pixel_avx2(false, g, rows, x, w, b, out, c, mask);
    }
    for (; x < g->out_w; ++x) {
      lg_dw3_pixel_avx2(true, g, rows, x, w, b, out, c, mask);
    }
  }
}

LG_DW_AVX2 static void lg_dw3_rows_avx2(const lg_conv_geometry* g,
                                        const float* input, int row0, int row1,
                                        const float* filter, const float* bias,
                                        float* output, int c0, int c1) {
  int x_lo, x_hi;
  lg_conv_interior_columns(g, &x_lo, &x_hi);
  for (int c = c0; c < c1; c += 8) {
    const __m256i mask = _mm256_cmpgt_epi32(
        _mm256_set1_epi32(c1 - c), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    lg_dw3_block_avx2(g, input, row0, row1, filter, bias, output, c, mask, x_lo,
                      x_hi);
  }
}

/* ---- Multiplier 1, any window: four pixels at a time -----------------------
 * Interior pixels of a row (whose window lies inside the input
 * horizontally) share one tap list. Four adjacent output pixels are summed
 * together: each tap's weight vector is loaded once for the four, and the
 * four (times up to two channel vectors) independent sums hide the
 * multiply-add latency. Each pixel's sum runs over the taps in the same
 * order, from zero, as lg_dw_pixel_*'s, so the output is the same. */
#define LG_DW_QUAD 4

/* `nv` (1 or 2) channel vectors from c, for LG_DW_QUAD pixels whose inputs
 * start at in + p * in_step. */
static inline __attribute__((always_inline, target("avx512f"))) void
lg_dw_quad_block_avx512(const int nv, const float* in, ptrdiff_t in_step,
                        const float* w, const ptrdiff_t* in_off,
                        const ptrdiff_t* w_off, int taps, const float* bias,
                        float* out, ptrdiff_t out_step, int left, __m512 lo,
                        __m512 hi) {
  __mmask16 mask[2];
  __m512 a[2][LG_DW_QUAD];
#pragma GCC unroll 4
  for (int v = 0; v < nv; ++v) {
    const int n = left - 16 * v;
    mask[v] = n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1u);
#pragma GCC unroll 4
    for (int p = 0; p < LG_DW_QUAD; ++p) a[v][p] = _mm512_setzero_ps();
  }
  for (int t = 0; t < taps; ++t) {
    const float* x = in + in_off[t];
#pragma GCC unroll 4
    for (int v = 0; v < nv; ++v) {
      const __m512 k = _mm512_maskz_loadu_ps(mask[v], w + w_off[t] + 16 * v);
#pragma GCC unroll 4
      for (int p = 0; p < LG_DW_QUAD; ++p) {
        const __m512 xv =
            _mm512_maskz_loadu_ps(mask[v], x + p * in_step + 16 * v);
        a[v][p] = _mm512_fmadd_ps(xv, k, a[v][p]);
      }
    }
  }
#pragma GCC unroll 4
  for (int v = 0; v < nv; ++v) {
#pragma GCC unroll 4
    for (int p = 0; p < LG_DW_QUAD; ++p) {
      lg_dw_store16(out + p * out_step + 16 * v, a[v][p],
                    bias != NULL ? bias + 16 * v : NULL, mask[v], lo, hi);
    }
  }
}

LG_DW_AVX512 static void lg_dw_quad_avx512(
    const float* in, ptrdiff_t in_step, const float* w, const ptrdiff_t* in_off,
    const ptrdiff_t* w_off, int taps, const float* bias, float* out,
    ptrdiff_t out_step, int channels, float lo, float hi) {
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  for (int c = 0; c < channels; c += 32) {
    const int left = channels - c;
    const float* b = bias != NULL ? bias + c : NULL;
    if (left > 16) {
      lg_dw_quad_block_avx512(2, in + c, in_step, w + c, in_off, w_off, taps, b,
                              out + c, out_step, left, vlo, vhi);
    } else {
      lg_dw_quad_block_avx512(1, in + c, in_step, w + c, in_off, w_off, taps, b,
                              out + c, out_step, left, vlo, vhi);
    }
  }
}

static inline __attribute__((always_inline, target("avx2,fma"))) void
lg_dw_quad_block_avx2(const int nv, const float* in, ptrdiff_t in_step,
                      const float* w, const ptrdiff_t* in_off,
                      const ptrdiff_t* w_off, int taps, const float* bias,
                      float* out, ptrdiff_t out_step, int left, __m256 lo,
                      __m256 hi) {
  __m256i mask[2];
  __m256 a[2][LG_DW_QUAD];
#pragma GCC unroll 4
  for (int v = 0; v < nv; ++v) {
    mask[v] = _mm256_cmpgt_epi32(_mm256_set1_epi32(left - 8 * v),
                                 _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
#pragma GCC unroll 4
    for (int p = 0; p < LG_DW_QUAD; ++p) a[v][p] = _mm256_setzero_ps();
  }
  for (int t = 0; t < taps; ++t) {
    const float* x = in + in_off[t];
#pragma GCC unroll 4
    for (int v = 0; v < nv; ++v) {
      const __m256 k = _mm256_maskload_ps(w + w_off[t] + 8 * v, mask[v]);
#pragma GCC unroll 4
      for (int p = 0; p < LG_DW_QUAD; ++p) {
        const __m256 xv = _mm256_maskload_ps(x + p * in_step + 8 * v, mask[v]);
        a[v][p] = _mm256_fmadd_ps(xv, k, a[v][p]);
      }
    }
  }
#pragma GCC unroll 4
  for (int v = 0; v < nv; ++v) {
#pragma GCC unroll 4
    for (int p = 0; p < LG_DW_QUAD; ++p) {
      lg_dw_store8(out + p * out_step + 8 * v, a[v][p],
                   bias != NULL ? bias + 8 * v : NULL, mask[v], lo, hi);
    }
  }
}

LG_DW_AVX2 static void lg_dw_quad_avx2(const float* in, ptrdiff_t in_step,
                                       const float* w, const ptrdiff_t* in_off,
                                       const ptrdiff_t* w_off, int taps,
                                       const float* bias, float* out,
                                       ptrdiff_t out_step, int channels,
                                       float lo, float hi) {
  const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
  for (int c = 0; c < channels; c += 16) {
    const int left = channels - c;
    const float* b = bias != NULL ? bias + c : NULL;
    if (left > 8) {
      lg_dw_quad_block_avx2(2, in + c, in_step, w + c, in_off, w_off, taps, b,
                            out + c, out_step, left, vlo, vhi);
    } else {
      lg_dw_quad_block_avx2(1, in + c, in_step, w + c, in_off, w_off, taps, b,
                            out + c, out_step, left, vlo, vhi);
    }
  }
}

/* ---- Up to 8 channels, stride_w 1: several pixels per vector ---------------
 * With in_c 1, 2, 4 or 8 (multiplier 1) and stride_w 1, the taps of 16 /
 * in_c adjacent output pixels read 16 adjacent input floats: one zmm holds
 * that many pixels, against a weight vector holding the tap's in_c weights
 * repeated. Interior pixels (windows inside horizontally) go four vectors
 * at a time; edge pixels and the rest take lg_dw_pixel_avx512. Each lane
 * sums its taps in lg_dw_pixel_avx512's order, so the outputs are the
 * same. */
#define LG_DW_PACKED_MAX_TAPS 64

static bool lg_dw_packed_applies(const lg_conv_geometry* g, lg_gemm_isa isa) {
  const int c = g->in_c;
  return isa == LG_GEMM_ISA_AVX512 && g->out_c == c &&
         (c == 1 || c == 2 || c == 4 || c == 8) && g->stride_w == 1 &&
         g->filter_h * g->filter_w <= LG_DW_PACKED_MAX_TAPS;
}

/* `nv` (1 or 4) vectors of output pixels from x of row y. */
static inline __attribute__((always_inline, target("avx512f"))) void
lg_dw_packed_block(const int nv, const lg_conv_geometry* g, const float* image,
                   int y, int x, const float* wdup, __m512 bias, __m512 lo,
                   __m512 hi, float* out) {
  __m512 a[4];
#pragma GCC unroll 4
  for (int v = 0; v < nv; ++v) a[v] = _mm512_setzero_ps();
  for (int kh = 0; kh < g->filter_h; ++kh) {
    const int iy = y * g->stride_h - g->pad_top + kh * g->dilation_h;
    if (iy < 0 || iy >= g->in_h) continue;
    const float* row =
        image + ((ptrdiff_t)iy * g->in_w - g->pad_left + x) * g->in_c;
    for (int kw = 0; kw < g->filter_w; ++kw) {
      const float* p = row + (ptrdiff_t)kw * g->dilation_w * g->in_c;
      const __m512 w = _mm512_loadu_ps(wdup + (kh * g->filter_w + kw) * 16);
#pragma GCC unroll 4
      for (int v = 0; v < nv; ++v) {
        a[v] = _mm512_fmadd_ps(_mm512_loadu_ps(p + 16 * v), w, a[v]);
      }
    }
  }
  float* o = out + (ptrdiff_t)x * g->out_c;
#pragma GCC unroll 4
  for (int v = 0; v < nv; ++v) {
    _mm512_storeu_ps(
        o + 16 * v,
        _mm512_min_ps(hi, _mm512_max_ps(lo, _mm512_add_ps(a[v], bias))));
  }
}

LG_DW_AVX512 static void lg_dw_packed_rows_avx512(const lg_dw_job* job,
                                                  int slot, int row0,
                                                  int row1) {
  const lg_conv_geometry* g = job->geo;
  const int c = g->in_c, per_vector = 16 / c;
  float wdup[LG_DW_PACKED_MAX_TAPS * 16];
  float bdup[16];
  for (int t = 0; t < g->filter_h * g->filter_w; ++t) {
    for (int lane = 0; lane < 16; ++lane) {
      wdup[t * 16 + lane] = job->filter[(size_t)t * c + lane % c];
    }
  }
  for (int lane = 0; lane < 16; ++lane) {
    bdup[lane] = job->bias != NULL ? job->bias[lane % c] : 0.0f;
  }
  const __m512 bias = _mm512_loadu_ps(bdup);
  const __m512 lo = _mm512_set1_ps(g->act_min);
  const __m512 hi = _mm512_set1_ps(g->act_max);
  ptrdiff_t* edge_in = job->taps + (size_t)slot * 4 * job->window;
  ptrdiff_t* edge_w = edge_in + job->window;
  int x_lo, x_hi;
  lg_conv_interior_columns(g, &x_lo, &x_hi);
  for (int row = row0; row < row1; ++row) {
    const int n = row / g->out_h, y = row % g->out_h;
    const float* image = job->input + (size_t)n * g->in_h * g->in_w * c;
    float* out = job->output + (size_t)row * g->out_w * c;
    int x = 0;
    while (x < g->out_w) {
      if (x >= x_lo && x + 4 * per_vector <= x_hi) {
        lg_dw_packed_block(4, g, image, y, x, wdup, bias, lo, hi, out);
        x += 4 * per_vector;
      } else if (x >= x_lo && x + per_vector <= x_hi) {
        lg_dw_packed_block(1, g, image, y, x, wdup, bias, lo, hi, out);
        x += per_vector;
      } else {
        const int taps = lg_dw_border_taps(g, y, x, edge_in, edge_w);
        lg_dw_pixel_avx512(image, job->filter, edge_in, edge_w, taps, job->bias,
                           out + (ptrdiff_t)x * c, c, g->act_min, g->act_max);
        ++x;
      }
    }
  }
}

#endif

/* Multiplier > 1: output channel c * mult + m reads input channel c. The
 * output pixel accumulates in place. */
static inline __attribute__((always_inline)) void lg_dw_pixel_multi(
    const lg_conv_geometry* g, const float* in, const float* w,
    const ptrdiff_t* in_off, const ptrdiff_t* w_off, int taps,
    const float* bias, float* out) {
  const int mult = g->out_c / g->in_c;
  for (int o = 0; o < g->out_c; ++o) out[o] = 0.0f;
  for (int t = 0; t < taps; ++t) {
    const float* x = in + in_off[t];
    const float* k = w + w_off[t];
    for (int c = 0; c < g->in_c; ++c) {
      const float v = x[c];
      float* o = out + (size_t)c * mult;
      const float* kc = k + (size_t)c * mult;
      for (int m = 0; m < mult; ++m) o[m] += v * kc[m];
    }
  }
  for (int o = 0; o < g->out_c; ++o) {
    const float v = out[o] + (bias != NULL ? bias[o] : 0.0f);
    out[o] = lg_kernel_clamp_float(v, g->act_min, g->act_max);
  }
}

/* The taps of output pixel (y, x) inside the input: offsets of the input
 * pixel (from the image's start) and of the filter tap, in floats. */
static int lg_dw_border_taps(const lg_conv_geometry* g, int y, int x,
                             ptrdiff_t* in_off, ptrdiff_t* w_off) {
  int taps = 0;
  for (int kh = 0; kh < g->filter_h; ++kh) {
    const int iy = y * g->stride_h - g->pad_top + kh * g->dilation_h;
    if (iy < 0 || iy >= g->in_h) continue;
    for (int kw = 0; kw < g->filter_w; ++kw) {
      const int ix = x * g->stride_w - g->pad_left + kw * g->dilation_w;
      if (ix < 0 || ix >= g->in_w) continue;
      in_off[taps] = ((ptrdiff_t)iy * g->in_w + ix) * g->in_c;
      w_off[taps] = ((ptrdiff_t)kh * g->filter_w + kw) * g->out_c;
      ++taps;
    }
  }
  return taps;
}

/* The taps of row y for a pixel whose whole window row fits: offsets from
 * the window's first column (x * stride_w - pad_left). */
static int lg_dw_row_taps(const lg_conv_geometry* g, int y, ptrdiff_t* in_off,
                          ptrdiff_t* w_off) {
  int taps = 0;
  for (int kh = 0; kh < g->filter_h; ++kh) {
    const int iy = y * g->stride_h - g->pad_top + kh * g->dilation_h;
    if (iy < 0 || iy >= g->in_h) continue;
    for (int kw = 0; kw < g->filter_w; ++kw) {
      in_off[taps] =
          ((ptrdiff_t)iy * g->in_w + (ptrdiff_t)kw * g->dilation_w) * g->in_c;
      w_off[taps] = ((ptrdiff_t)kh * g->filter_w + kw) * g->out_c;
      ++taps;
    }
  }
  return taps;
}

/* Output rows [row0, row1) of batch * out_h, by the thread of `slot` (whose
 * slice of job->taps holds two tap lists). Pixels whose window lies inside the
 * input horizontally share one tap list per row; the others (near the left
 * and right edges) list their own. */
/* Channels of one pass over the rows when multiplier is 1: a block's
 * weights (filter_h * filter_w * block floats) and its input stay in L1
 * while every pixel of the rows uses them; small images with many channels
 * (7x7x672) streamed all the weights from L2 for each pixel. */
#define LG_DW_CHANNEL_BLOCK 128
/* Channel ranges of tasks that split the channels start at multiples of
 * this: one AVX-512 vector, two AVX2 ones. */
#define LG_DW_CHANNEL_ALIGN 16

static void lg_dw_rows(const lg_dw_job* job, lg_dw_pixel_fn pixel,
                       lg_dw_quad_fn quad, int slot, int row0, int row1,
                       int c_begin, int c_end) {
  const lg_conv_geometry* g = job->geo;
  ptrdiff_t* row_in = job->taps + (size_t)slot * 4 * job->window;
  ptrdiff_t* row_w = row_in + job->window;
  ptrdiff_t* edge_in = row_w + job->window;
  ptrdiff_t* edge_w = edge_in + job->window;
  int x_lo, x_hi;
  lg_conv_interior_columns(g, &x_lo, &x_hi);
  const bool multi = g->out_c != g->in_c;
  const int block = multi ? g->out_c : LG_DW_CHANNEL_BLOCK;
  for (int c0 = c_begin; c0 < c_end; c0 += block) {
    const int channels = c_end - c0 < block ? c_end - c0 : block;
    const float* filter = job->filter + c0;
    const float* bias = job->bias != NULL ? job->bias + c0 : NULL;
    for (int row = row0; row < row1; ++row) {
      const int n = row / g->out_h, y = row % g->out_h;
      const float* image =
          job->input + (size_t)n * g->in_h * g->in_w * g->in_c + c0;
      const int row_taps = lg_dw_row_taps(g, y, row_in, row_w);
      for (int x = 0; x < g->out_w; ++x) {
        float* out = job->output +
                     (((size_t)n * g->out_h + y) * g->out_w + x) * g->out_c +
                     c0;
        const float* in = image;
        const ptrdiff_t *in_off = row_in, *w_off = row_w;
        int taps = row_taps;
        if (x >= x_lo && x < x_hi) {
          in += ((ptrdiff_t)x * g->stride_w - g->pad_left) * g->in_c;
          if (quad != NULL && !multi && x + LG_DW_QUAD <= x_hi) {
            quad(in, (ptrdiff_t)g->stride_w * g->in_c, filter, row_in, row_w,
                 row_taps, bias, out, g->out_c, channels, g->act_min,
                 g->act_max);
            x += LG_DW_QUAD - 1;
            continue;
          }
        } else {
          taps = lg_dw_border_taps(g, y, x, edge_in, edge_w);
          in_off = edge_in;
          w_off = edge_w;
        }
        if (multi) {
          lg_dw_pixel_multi(g, in, filter, in_off, w_off, taps, bias, out);
        } else {
          pixel(in, filter, in_off, w_off, taps, bias, out, channels,
                g->act_min, g->act_max);
        }
      }
    }
  }
}

/* A rows function of the 3x3 or 5x5 path (output rows [row0, row1) of
 * batch * out_h, channels [c0, c1)), or NULL where none applies (another
 * window, a multiplier above 1, the scalar ISA). */
typedef void (*lg_dw_row_fn)(const lg_conv_geometry* g, const float* input,
                             int row0, int row1, const float* filter,
                             const float* bias, float* output, int c0, int c1);

static lg_dw_row_fn lg_dw_row_of(const lg_dw_job* job) {
  const lg_conv_geometry* g = job->geo;
  if (g->out_c != g->in_c) return NULL;
#if LG_GEMM_HAVE_X86
  if (g->filter_h == 5 && g->filter_w == 5 && job->isa == LG_GEMM_ISA_AVX512) {
    return lg_dw5_rows_avx512;
  }
#endif
  if (g->filter_h != 3 || g->filter_w != 3) return NULL;
#if LG_GEMM_HAVE_X86
  if (job->isa == LG_GEMM_ISA_AVX512) return lg_dw3_rows_avx512;
  if (job->isa == LG_GEMM_ISA_AVX2) return lg_dw3_rows_avx2;
#endif
  return NULL;
}

/* Rows [row0, row1), channels [c0, c1) of the output. */
static void lg_dw_compute(const lg_dw_job* job, int slot, int row0, int row1,
                          int c0, int c1) {
#if LG_GEMM_HAVE_X86
  if (lg_dw_packed_applies(job->geo, job->isa)) {
    lg_dw_packed_rows_avx512(job, slot, row0, row1);
    return;
  }
#endif
  const lg_dw_row_fn row_fn = lg_dw_row_of(job);
  if (row_fn != NULL) {
    /* Rows in chunks whose input rows fit in the first-level cache: each
     * channel block's weights are loaded once per chunk, not once per row
     * (kws_cnn's 25x5x64 layers: 5 pixels a row), while a large image's
     * rows still go one at a time through every block. */
    const lg_conv_geometry* g = job->geo;
    const int64_t row_bytes = (int64_t)g->in_w * g->in_c * sizeof(float);
    const int64_t fit = LG_DW_CHUNK_BYTES / (row_bytes > 0 ? row_bytes : 1);
    const int64_t span = (int64_t)(g->filter_h - 1) * g->dilation_h + 1;
    int chunk = 1;
    if (fit > span) chunk = (int)((fit - span) / g->stride_h + 1);
    for (int row = row0; row < row1; row += chunk) {
      const int end = row1 - row < chunk ? row1 : row + chunk;
      row_fn(g, job->input, row, end, job->filter, job->bias, job->output, c0,
             c1);
    }
    return;
  }
  lg_dw_pixel_fn pixel = lg_dw_pixel_scalar;
  lg_dw_quad_fn quad = NULL;
#if LG_GEMM_HAVE_X86
  if (job->isa == LG_GEMM_ISA_AVX512) {
    pixel = lg_dw_pixel_avx512;
    quad = lg_dw_quad_avx512;
  }
  if (job->isa == LG_GEMM_ISA_AVX2) {
    pixel = lg_dw_pixel_avx2;
    quad = lg_dw_quad_avx2;
  }
#endif
  lg_dw_rows(job, pixel, quad, slot, row0, row1, c0, c1);
}

/* A task: its share of the rows times its share of the channel vectors,
 * then the epilogue on what it computed. */
static void lg_dw_task(void* ctx, int index, int slot) {
  const lg_dw_job* job = ctx;
  const lg_conv_geometry* g = job->geo;
  const int row_parts = job->num_tasks / job->channel_parts;
  const int r = index / job->channel_parts, c = index % job->channel_parts;
  const int row0 = (int)((int64_t)job->rows * r / row_parts);
  const int row1 = (int)((int64_t)job->rows * (r + 1) / row_parts);
  const int vectors =
      (g->out_c + LG_DW_CHANNEL_ALIGN - 1) / LG_DW_CHANNEL_ALIGN;
  int c0 = vectors * c / job->channel_parts * LG_DW_CHANNEL_ALIGN;
  int c1 = vectors * (c + 1) / job->channel_parts * LG_DW_CHANNEL_ALIGN;
  if (c1 > g->out_c) c1 = g->out_c;
  lg_dw_compute(job, slot, row0, row1, c0, c1);
  if (job->epilogue != NULL) {
    lg_kernel_epilogue_run(job->epilogue, (int64_t)row0 * g->out_w,
                           (int64_t)(row1 - row0) * g->out_w, c0, c1);
  }
}

/* How many channel ranges `tasks` tasks split the channels into: all of
 * them (one range per task) where that balances the work better than
 * splitting the rows, e.g. 7 rows over 2 threads (4 and 3 rows, 14% above
 * an even share) against 432 channels (224 and 208: 4%). The packed and
 * multiplier > 1 paths keep whole rows. */
static int lg_dw_channel_parts(const lg_conv_geometry* g, lg_gemm_isa isa,
                               int rows, int tasks) {
#if LG_GEMM_HAVE_X86
  if (lg_dw_packed_applies(g, isa)) return 1;
#else
  (void)isa;
#endif
  if (tasks <= 1 || g->out_c != g->in_c) return 1;
  const int vectors =
      (g->out_c + LG_DW_CHANNEL_ALIGN - 1) / LG_DW_CHANNEL_ALIGN;
  if (vectors < tasks) return 1;
  /* The largest share of each split, cross-multiplied: ceil(rows / tasks) /
   * rows against ceil(vectors / tasks) / vectors. */
  const int64_t row_share = (rows + tasks - 1) / tasks;
  const int64_t vector_share = (vectors + tasks - 1) / tasks;
  return vector_share * rows < row_share * vectors ? tasks : 1;
}

/* ---- Prepare ------------------------------------------------------------ */

static TfLiteStatus lg_dw_check_types(TfLiteContext* context,
                                      const TfLiteTensor* input,
                                      const TfLiteTensor* filter,
                                      const TfLiteTensor* bias,
                                      const TfLiteTensor* output) {
  if (input->type == kTfLiteInt8 || input->type == kTfLiteInt16 ||
      input->type == kTfLiteUInt8) {
    return lg_conv_quant_check_types(context, LG_DW_OP, input, filter, bias,
                                     output);
  }
  TF_LITE_ENSURE_STATUS(lg_nn_check_float(context, LG_DW_OP, "input", input));
  TF_LITE_ENSURE_STATUS(lg_nn_check_float(context, LG_DW_OP, "filter", filter));
  if (bias != NULL) {
    TF_LITE_ENSURE_STATUS(lg_nn_check_float(context, LG_DW_OP, "bias", bias));
  }
  return lg_nn_check_float(context, LG_DW_OP, "output", output);
}

static TfLiteStatus lg_dw_check_channels(TfLiteContext* context,
                                         const TfLiteTensor* input,
                                         const TfLiteTensor* filter,
                                         const lg_conv_geometry* g) {
  char shape[128];
  if (filter->dims->data[0] != 1) {
    lg_kernel_log(context, LG_DW_OP,
                  "filter shape %s must have 1 as its first dimension",
                  lg_kernel_format_shape(filter->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (g->filter_h == 0 || g->filter_w == 0 ||
      (int64_t)g->filter_h * g->filter_w > INT_MAX / 4) {
    lg_kernel_log(context, LG_DW_OP,
                  "filter shape %s has an empty or oversized window",
                  lg_kernel_format_shape(filter->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (g->in_c == 0) {
    lg_kernel_log(context, LG_DW_OP, "input shape %s has no channels",
                  lg_kernel_format_shape(input->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (g->out_c % g->in_c != 0) {
    lg_kernel_log(context, LG_DW_OP,
                  "filter channels %d are not a multiple of the input "
                  "channels %d",
                  g->out_c, g->in_c);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_dw_window(TfLiteContext* context, const TfLiteNode* node,
                                 const TfLiteDepthwiseConvParams* params,
                                 lg_conv_geometry* g) {
  TF_LITE_ENSURE_STATUS(lg_nn_check_window(
      context, LG_DW_OP, params->padding, params->stride_width,
      params->stride_height, params->dilation_width_factor,
      params->dilation_height_factor));
  g->stride_h = params->stride_height;
  g->stride_w = params->stride_width;
  g->dilation_h = params->dilation_height_factor;
  g->dilation_w = params->dilation_width_factor;
  lg_nn_window_padding(context, node, params->padding, g);
  if (g->out_h < 0 || g->out_w < 0) {
    lg_kernel_log(context, LG_DW_OP,
                  "input %dx%d is smaller than the dilated %dx%d filter with "
                  "VALID padding",
                  g->in_h, g->in_w, (g->filter_h - 1) * g->dilation_h + 1,
                  (g->filter_w - 1) * g->dilation_w + 1);
    return kTfLiteError;
  }
  if ((int64_t)g->batch * g->out_h * g->out_w * g->out_c > INT_MAX) {
    lg_kernel_log(context, LG_DW_OP, "the output is too large");
    return kTfLiteError;
  }
  return lg_kernel_activation_range_float(context, LG_DW_OP, params->activation,
                                          &g->act_min, &g->act_max);
}

static TfLiteStatus lg_dw_geometry_of(TfLiteContext* context,
                                      const TfLiteNode* node,
                                      const TfLiteDepthwiseConvParams* params,
                                      const TfLiteTensor* input,
                                      const TfLiteTensor* filter,
                                      lg_conv_geometry* g) {
  TF_LITE_ENSURE_STATUS(lg_nn_check_rank(context, LG_DW_OP, "input", input, 4));
  TF_LITE_ENSURE_STATUS(
      lg_nn_check_rank(context, LG_DW_OP, "filter", filter, 4));
  memset(g, 0, sizeof(*g));
  g->batch = input->dims->data[0];
  g->in_h = input->dims->data[1];
  g->in_w = input->dims->data[2];
  g->in_c = input->dims->data[3];
  g->filter_h = filter->dims->data[1];
  g->filter_w = filter->dims->data[2];
  g->out_c = filter->dims->data[3];
  g->filter_c = 1;
  TF_LITE_ENSURE_STATUS(lg_dw_check_channels(context, input, filter, g));
  return lg_dw_window(context, node, params, g);
}

/* The tap lists of every pool thread: 4 * window offsets per slot. */
static TfLiteStatus lg_dw_reserve_taps(TfLiteContext* context,
                                       lg_dw_data* data) {
  const int threads = lg_thread_pool_size(lg_kernel_thread_pool(context));
  const size_t window = (size_t)data->geo.filter_h * data->geo.filter_w;
  const size_t needed = 4 * window * (size_t)threads;
  data->slots = threads;
  if (data->taps != NULL && data->taps_capacity >= needed) return kTfLiteOk;
  free(data->taps);
  data->taps = malloc(sizeof(ptrdiff_t) * needed);
  data->taps_capacity = data->taps != NULL ? needed : 0;
  if (data->taps == NULL) {
    lg_kernel_log(context, LG_DW_OP, "out of memory for the tap lists");
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_dw_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_dw_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_DW_OP, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, LG_DW_OP, 2, 3, 1));
  const TfLiteDepthwiseConvParams* params = node->builtin_data;
  if (params == NULL) {
    lg_kernel_log(context, LG_DW_OP,
                  "missing DepthwiseConv2DOptions parameters");
    return kTfLiteError;
  }
  const TfLiteTensor *input, *filter, *bias;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_DW_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_DW_OP, kFilterTensor, &filter));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_optional_input(context, node, LG_DW_OP, kBiasTensor, &bias));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_DW_OP, kOutputTensor, &output));
  TfLiteTensor int4_view;
  TF_LITE_ENSURE_STATUS(lg_nn_prepare_int4(context, LG_DW_OP,
                                           input->type == kTfLiteInt8, &filter,
                                           &data->unpacked, &int4_view));
  TF_LITE_ENSURE_STATUS(
      lg_dw_check_types(context, input, filter, bias, output));
  TF_LITE_ENSURE_STATUS(
      lg_dw_geometry_of(context, node, params, input, filter, &data->geo));
  const lg_conv_geometry* g = &data->geo;
  if (bias != NULL) {
    TF_LITE_ENSURE_STATUS(
        lg_kernel_check_shape(context, LG_DW_OP, "bias", bias));
    if (lg_kernel_num_elements(bias) != g->out_c) {
      char shape[128];
      lg_kernel_log(context, LG_DW_OP,
                    "bias shape %s does not hold %d elements (the filter's "
                    "channels)",
                    lg_kernel_format_shape(bias->dims, shape, sizeof(shape)),
                    g->out_c);
      return kTfLiteError;
    }
  }
  data->has_bias = bias != NULL;
  data->input_elements = lg_kernel_num_elements(input);
  data->quantized = input->type == kTfLiteInt8 || input->type == kTfLiteInt16 ||
                    input->type == kTfLiteUInt8;
  if (data->quantized) {
    TF_LITE_ENSURE_STATUS(
        lg_conv_quant_prepare(context, LG_DW_OP, input, filter, bias, output,
                              params->activation, g->out_c, 3, &data->q));
    TF_LITE_ENSURE_STATUS(
        lg_depthwise_quant_pack(context, LG_DW_OP, &data->q, g, filter, bias));
  } else {
    TF_LITE_ENSURE_STATUS(lg_dw_reserve_taps(context, data));
    lg_kernel_offer_epilogue(context, node);
  }
  TfLiteIntArray* shape = TfLiteIntArrayCreate(4);
  if (shape == NULL) {
    lg_kernel_log(context, LG_DW_OP, "out of memory for the output shape");
    return kTfLiteError;
  }
  shape->data[0] = g->batch;
  shape->data[1] = g->out_h;
  shape->data[2] = g->out_w;
  shape->data[3] = g->out_c;
  data->output_elements = lg_kernel_num_elements_dims(shape);
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, shape));
  data->prepared = true;
  return kTfLiteOk;
}

/* ---- Invoke ------------------------------------------------------------- */

static TfLiteStatus lg_dw_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_dw_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_DW_OP, "invoked before a successful prepare");
    return kTfLiteError;
  }
  lg_nn_io io;
  bool empty = false;
  TF_LITE_ENSURE_STATUS(lg_nn_invoke_io(
      context, node, LG_DW_OP, data->prepared, false, data->has_bias,
      data->input_elements, data->output_elements, &io, &empty));
  if (empty) return kTfLiteOk;
  const TfLiteTensor* input = io.input;
  const TfLiteTensor* filter = io.filter;
  const TfLiteTensor* bias = io.bias;
  TfLiteTensor* output = io.output;
  const lg_conv_geometry* g = &data->geo;
  if (data->quantized) {
    lg_depthwise_quant_run(g, &data->q, input->data.data,
                           data->unpacked != NULL ? (const void*)data->unpacked
                                                  : filter->data.data,
                           bias != NULL ? bias->data.data : NULL,
                           output->data.data, lg_kernel_thread_pool(context));
    return kTfLiteOk;
  }
  lg_dw_job job = {
      .geo = g,
      .input = input->data.f,
      .filter = filter->data.f,
      .bias = bias != NULL ? bias->data.f : NULL,
      .output = output->data.f,
      .rows = g->batch * g->out_h,
      .num_tasks = 1,
      .channel_parts = 1,
      .isa = lg_gemm_isa_default(),
      .taps = data->taps,
      .window = g->filter_h * g->filter_w,
  };
  lg_thread_pool* pool = lg_kernel_thread_pool(context);
  const int64_t macs = data->output_elements * g->filter_h * g->filter_w;
  if (lg_thread_pool_size(pool) <= data->slots &&
      (macs >= LG_DW_MIN_PARALLEL_MACS ||
       data->input_elements * (int64_t)sizeof(float) >=
           LG_DW_MIN_PARALLEL_INPUT_BYTES)) {
    const int tasks = lg_thread_pool_tasks(pool, INT_MAX);
    job.channel_parts = lg_dw_channel_parts(g, job.isa, job.rows, tasks);
    job.num_tasks = job.channel_parts > 1
                        ? job.channel_parts
                        : lg_thread_pool_tasks(pool, job.rows);
  }
  /* Taken last: from here every output element is computed. */
  job.epilogue = lg_kernel_take_epilogue(context, node);
  lg_thread_pool_run_slots(pool, lg_dw_task, &job, job.num_tasks);
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(DEPTHWISE_CONV_2D, lg_dw_init, lg_dw_free, lg_dw_prepare,
                       lg_dw_invoke)
