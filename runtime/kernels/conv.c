/* CONV_2D, float32: output[n, y, x, o] = activation(bias[o] + sum over the
 * filter window (kh, kw) and the group's input channels c of
 * input[n, y * stride_h - pad_top + kh * dilation_h,
 *          x * stride_w - pad_left + kw * dilation_w, g * filter_c + c]
 * * filter[o, kh, kw, c]), with g = o / (out_c / groups).
 *
 * Layouts are TFLite's: input NHWC, filter OHWI [out_c, filter_h, filter_w,
 * filter_c], optional bias [out_c]. Grouped convolution (version 6): the
 * input's channels are a multiple of the filter's, groups = in_c /
 * filter_c, and out_c must be a multiple of groups. Padding follows
 * TFLite's formula (lg_nn_out_size, lg_nn_pad_before). INT8 (version 3,
 * per-channel filters included) and 16x8 (INT16 activations, INT8
 * filters, INT64 bias: version 4) and UINT8 (version 1: UINT8 filters
 * quantized per tensor with any zero point, TFLite's legacy kernel) run
 * conv_quant.c's kernel, bit for bit with TFLite's reference. Hybrid (float
 * input, INT8 filter: versions 2 and 5) runs hybrid.c's kernel, bit for bit
 * with TFLite's. An INT4 filter (version 7, INT8 input; and hybrid) is
 * unpacked once in Prepare (lg_nn_prepare_int4) and runs as an INT8 one.
 *
 * Fast path: each group is one GEMM with m = output pixels, n = the group's
 * output channels, k = filter_h * filter_w * filter_c. A 1x1 filter with
 * stride 1 reads the input directly as A (no copy; the GEMM reads it in
 * place when few B panels share each A panel); every other shape packs A
 * panels straight from the input image (an implicit im2col: the GEMM's
 * A-packing callback gathers each output pixel's window, zeros for
 * padding, so no im2col matrix is ever materialized). The callback copies
 * whole window rows where the channels make them contiguous; inputs with
 * at most 4 channels (a first layer) instead gather through a table of
 * input offsets built in Prepare (see "The gather path"). A constant
 * filter is packed once in Prepare into the GEMM's B layout. The GEMM's
 * packing scratch is a temporary tensor sized in Prepare (one slice per
 * thread), so Invoke allocates nothing.
 *
 * Three paths replace the single GEMM on the vector ISAs (one group): up to
 * LG_CONV_NARROW_MAX output channels take a dot product per pixel
 * (conv_narrow.c); up to LG_CONV_SHALLOW_MAX_CHANNELS input channels with a
 * constant filter broadcast each window value against vectors of output
 * channels (conv_shallow.c); up to LG_GEMM_DIRECT_MAX_PANELS B panels of
 * output channels, with a
 * constant filter and dilation_w 1, take one GEMM per window row over the
 * input read in place (conv_rows.c), where packing patches cost more than
 * the few B panels that reuse them save.
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

#define LG_CONV_OP "CONV_2D"

enum {
  kInputTensor = 0,
  kFilterTensor = 1,
  kBiasTensor = 2,
  kOutputTensor = 0,
};

enum {
  kScratchTemporary = 0,
  kNumTemporaries = 1,
};

/* The float kernel a node runs (see the file comment). */
typedef enum lg_conv_path {
  LG_CONV_PATH_GEMM,    /* one GEMM per group (packed, direct or gather) */
  LG_CONV_PATH_NARROW,  /* few output channels: conv_narrow.c */
  LG_CONV_PATH_SHALLOW, /* few input channels: conv_shallow.c (weights) */
  LG_CONV_PATH_ROWS,    /* a GEMM per window row: conv_rows.c (weights) */
} lg_conv_path;

typedef struct lg_conv_data {
  bool prepared;
  lg_conv_geometry geo;
  int groups;
  bool direct;       /* 1x1 filter, stride 1: A is the input itself */
  lg_conv_path path; /* chosen in Prepare */
  bool has_bias;
  lg_gemm_isa isa;
  bool prepacked; /* the filter sits in `weights`, packed per group */
  /* The filter is copied into `weights` (prepacked, or the shallow or row
   * path) and released: Invoke never reads the tensor. */
  bool filter_copied;
  lg_nn_buffer weights;
  size_t group_floats; /* packed floats per group */
  int temporaries[kNumTemporaries];
  size_t scratch_floats;
  bool shallow_pads; /* the shallow path copies the input padded */
  int64_t input_elements, output_elements;
  /* The gather path (lg_conv_wants_gather): A's input offsets in packed
   * panel order, built in Prepare. */
  bool gather;
  int32_t* gather_table;
  size_t gather_capacity; /* entries */
  bool quantized;         /* INT8, INT16 or UINT8: conv_quant.c */
  lg_conv_quant q;
  bool hybrid;      /* float input, INT8 filter: hybrid.c */
  int8_t* unpacked; /* an INT4 filter unpacked in Prepare, else NULL */
  lg_hybrid hybrid_data;
} lg_conv_data;

/* Copies in[idx[j]] (0.0f where idx[j] < 0) to dst[j] for j < count. */
typedef void (*lg_conv_gather_fn)(const float* in, const int32_t* idx,
                                  size_t count, float* dst);

/* What the A-packing callbacks read: one group's channels of the input, or
 * (gather path) the offset table. */
typedef struct lg_conv_pack_ctx {
  const lg_conv_geometry* geo;
  const float* input;
  int channel_offset; /* group * filter_c */
  const int32_t* table;
  int k; /* the window depth (table entries per output pixel) */
  lg_conv_gather_fn gather;
} lg_conv_pack_ctx;

static void* lg_conv_init(TfLiteContext* context, const char* buffer,
                          size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  lg_conv_data* data = calloc(1, sizeof(lg_conv_data));
  if (data != NULL) data->temporaries[kScratchTemporary] = -1;
  return data;
}

static void lg_conv_free(TfLiteContext* context, void* buffer) {
  (void)context;
  lg_conv_data* data = buffer;
  if (data != NULL) {
    lg_nn_buffer_free(&data->weights);
    free(data->gather_table);
    lg_conv_quant_free(&data->q);
    lg_hybrid_free(&data->hybrid_data);
    free(data->unpacked);
  }
  free(data);
}

/* ---- Reference ---------------------------------------------------------- */

void lg_conv_reference(const lg_conv_geometry* g, const float* input,
                       const float* filter, const float* bias, float* output) {
  const int groups = g->in_c / g->filter_c;
  const int per_group = g->out_c / groups;
  for (int n = 0; n < g->batch; ++n) {
    for (int y = 0; y < g->out_h; ++y) {
      for (int x = 0; x < g->out_w; ++x) {
        for (int o = 0; o < g->out_c; ++o) {
          const int c0 = (o / per_group) * g->filter_c;
          float total = 0.0f;
          for (int kh = 0; kh < g->filter_h; ++kh) {
            const int iy = y * g->stride_h - g->pad_top + kh * g->dilation_h;
            if (iy < 0 || iy >= g->in_h) continue;
            for (int kw = 0; kw < g->filter_w; ++kw) {
              const int ix = x * g->stride_w - g->pad_left + kw * g->dilation_w;
              if (ix < 0 || ix >= g->in_w) continue;
              const float* in =
                  input +
                  (((size_t)n * g->in_h + iy) * g->in_w + ix) * g->in_c + c0;
              const float* w =
                  filter + (((size_t)o * g->filter_h + kh) * g->filter_w + kw) *
                               g->filter_c;
              for (int c = 0; c < g->filter_c; ++c) total += in[c] * w[c];
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

/* ---- The gather path ---------------------------------------------------- */

/* Inputs with few channels make short runs (a 1-channel input: one float
 * per window tap), so packing A run by run costs more than the GEMM. For
 * them Prepare lists, in the GEMM's packed A order, the input offset of
 * every (output pixel, window position) (-1 for padding), and packing a
 * panel becomes one linear gather. Used for one group, filter_c <= 4 and
 * tables of at most 256K entries (1 MB), which keeps the table small
 * beside the work it saves: a first layer on an audio spectrogram or a
 * small image. */
#define LG_CONV_GATHER_MAX_CHANNELS 4
#define LG_CONV_GATHER_MAX_ENTRIES (1 << 18)

static bool lg_conv_wants_gather(const lg_conv_data* data) {
  const lg_conv_geometry* g = &data->geo;
  if (data->direct || data->groups != 1 ||
      g->filter_c > LG_CONV_GATHER_MAX_CHANNELS ||
      data->input_elements > INT32_MAX) {
    return false;
  }
  const int64_t mr = lg_gemm_blocking_of(data->isa)->mr;
  const int64_t m = (int64_t)g->batch * g->out_h * g->out_w;
  const int64_t k = (int64_t)g->filter_h * g->filter_w * g->filter_c;
  return (m + mr - 1) / mr * mr * k <= LG_CONV_GATHER_MAX_ENTRIES;
}

/* One output pixel's offsets: entry p (window position) lands at
 * col[p * mr]. */
static void lg_conv_gather_pixel(const lg_conv_geometry* g, int i, int mr,
                                 int32_t* col) {
  const int x = i % g->out_w, rest = i / g->out_w;
  const int y = rest % g->out_h, n = rest / g->out_h;
  const int64_t image = (int64_t)n * g->in_h * g->in_w * g->in_c;
  int p = 0;
  for (int kh = 0; kh < g->filter_h; ++kh) {
    const int iy = y * g->stride_h - g->pad_top + kh * g->dilation_h;
    for (int kw = 0; kw < g->filter_w; ++kw) {
      const int ix = x * g->stride_w - g->pad_left + kw * g->dilation_w;
      const bool inside = iy >= 0 && iy < g->in_h && ix >= 0 && ix < g->in_w;
      const int64_t at = image + ((int64_t)iy * g->in_w + ix) * g->in_c;
      for (int c = 0; c < g->filter_c; ++c, ++p) {
        col[(size_t)p * mr] = inside ? (int32_t)(at + c) : -1;
      }
    }
  }
}

/* Builds the table: panel q (pixels [q * mr, +mr)) holds k * mr entries,
 * entry p * mr + r for pixel q * mr + r; pixels past m read as padding. */
static TfLiteStatus lg_conv_build_gather(TfLiteContext* context,
                                         lg_conv_data* data) {
  const lg_conv_geometry* g = &data->geo;
  const int mr = lg_gemm_blocking_of(data->isa)->mr;
  const int m = g->batch * g->out_h * g->out_w;
  const int k = g->filter_h * g->filter_w * g->filter_c;
  const int padded = (m + mr - 1) / mr * mr;
  const size_t entries = (size_t)padded * (size_t)k;
  if (data->gather_table == NULL || data->gather_capacity < entries) {
    free(data->gather_table);
    data->gather_capacity = 0;
    data->gather_table = malloc(sizeof(int32_t) * (entries > 0 ? entries : 1));
    if (data->gather_table == NULL) {
      lg_kernel_log(context, LG_CONV_OP,
                    "out of memory for a %zu-entry gather table", entries);
      return kTfLiteError;
    }
    data->gather_capacity = entries;
  }
  for (int i = 0; i < padded; ++i) {
    int32_t* col = data->gather_table + (size_t)(i / mr) * mr * k + i % mr;
    if (i < m) {
      lg_conv_gather_pixel(g, i, mr, col);
    } else {
      for (int p = 0; p < k; ++p) col[(size_t)p * mr] = -1;
    }
  }
  return kTfLiteOk;
}

static void lg_conv_gather_scalar(const float* in, const int32_t* idx,
                                  size_t count, float* dst) {
  for (size_t j = 0; j < count; ++j) {
    dst[j] = idx[j] >= 0 ? in[idx[j]] : 0.0f;
  }
}

#if LG_GEMM_HAVE_X86
/* Masked gathers: lanes with a negative offset load nothing and read 0. */
__attribute__((target("avx512f"))) static void lg_conv_gather_avx512(
    const float* in, const int32_t* idx, size_t count, float* dst) {
  const __m512i zero = _mm512_setzero_si512();
  for (size_t j = 0; j < count; j += 16) {
    const size_t left = count - j;
    const __mmask16 lanes =
        left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
    const __m512i v = _mm512_maskz_loadu_epi32(lanes, idx + j);
    const __mmask16 inside = _mm512_mask_cmpge_epi32_mask(lanes, v, zero);
    const __m512 x =
        _mm512_mask_i32gather_ps(_mm512_setzero_ps(), inside, v, in, 4);
    _mm512_mask_storeu_ps(dst + j, lanes, x);
  }
}

__attribute__((target("avx2,fma"))) static void lg_conv_gather_avx2(
    const float* in, const int32_t* idx, size_t count, float* dst) {
  size_t j = 0;
  const __m256i none = _mm256_set1_epi32(-1);
  for (; j + 8 <= count; j += 8) {
    const __m256i v = _mm256_loadu_si256((const __m256i*)(idx + j));
    const __m256 inside = _mm256_castsi256_ps(_mm256_cmpgt_epi32(v, none));
    _mm256_storeu_ps(dst + j, _mm256_mask_i32gather_ps(_mm256_setzero_ps(), in,
                                                       v, inside, 4));
  }
  lg_conv_gather_scalar(in, idx + j, count - j, dst + j);
}
#endif

static lg_conv_gather_fn lg_conv_gather_of(lg_gemm_isa isa) {
#if LG_GEMM_HAVE_X86
  if (isa == LG_GEMM_ISA_AVX512) return lg_conv_gather_avx512;
  if (isa == LG_GEMM_ISA_AVX2) return lg_conv_gather_avx2;
#endif
  (void)isa;
  return lg_conv_gather_scalar;
}

/* A-packing callback of the gather path. The GEMM packs whole panels (i0 a
 * multiple of mr, ld == mr), so the panel's entries from depth p0 on are
 * consecutive in the table; rows past `rows` come out as zeros, within
 * the panel's ld columns. */
static void lg_conv_pack_gather(const void* ctx, int i0, int rows, int p0,
                                int depth, float* dst, int ld) {
  (void)rows;
  const lg_conv_pack_ctx* pc = ctx;
  const int32_t* idx = pc->table + (size_t)i0 * pc->k + (size_t)p0 * (size_t)ld;
  pc->gather(pc->input, idx, (size_t)depth * (size_t)ld, dst);
}

/* ---- Prepare ------------------------------------------------------------ */

static TfLiteStatus lg_conv_check_types(TfLiteContext* context,
                                        const TfLiteTensor* input,
                                        const TfLiteTensor* filter,
                                        const TfLiteTensor* bias,
                                        const TfLiteTensor* output) {
  if (filter->sparsity != NULL) {
    lg_kernel_log(context, LG_CONV_OP, "sparse filters are not supported");
    return kTfLiteError;
  }
  if (input->type == kTfLiteInt8 || input->type == kTfLiteInt16 ||
      input->type == kTfLiteUInt8) {
    return lg_conv_quant_check_types(context, LG_CONV_OP, input, filter, bias,
                                     output);
  }
  TF_LITE_ENSURE_STATUS(lg_nn_check_float(context, LG_CONV_OP, "input", input));
  /* Hybrid (dynamic range): float input, INT8 filter. */
  if (filter->type != kTfLiteInt8) {
    TF_LITE_ENSURE_STATUS(
        lg_nn_check_float(context, LG_CONV_OP, "filter", filter));
  }
  if (bias != NULL) {
    TF_LITE_ENSURE_STATUS(lg_nn_check_float(context, LG_CONV_OP, "bias", bias));
  }
  return lg_nn_check_float(context, LG_CONV_OP, "output", output);
}

/* Channel and group checks; fills groups. */
static TfLiteStatus lg_conv_check_channels(TfLiteContext* context,
                                           const TfLiteTensor* input,
                                           const TfLiteTensor* filter,
                                           const lg_conv_geometry* g,
                                           int* groups) {
  char shape[128];
  if (g->filter_h == 0 || g->filter_w == 0 || g->filter_c == 0) {
    lg_kernel_log(context, LG_CONV_OP, "filter shape %s has a zero dimension",
                  lg_kernel_format_shape(filter->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (g->in_c == 0) {
    lg_kernel_log(context, LG_CONV_OP, "input shape %s has no channels",
                  lg_kernel_format_shape(input->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (g->in_c % g->filter_c != 0) {
    lg_kernel_log(context, LG_CONV_OP,
                  "input channels %d are not a multiple of the filter's input "
                  "channels %d",
                  g->in_c, g->filter_c);
    return kTfLiteError;
  }
  *groups = g->in_c / g->filter_c;
  if (g->out_c % *groups != 0) {
    lg_kernel_log(context, LG_CONV_OP,
                  "output channels %d are not a multiple of the group count %d",
                  g->out_c, *groups);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Output size and padding along both dims; a negative size (a filter
 * larger than the input under VALID) is an error. */
static TfLiteStatus lg_conv_window(TfLiteContext* context,
                                   const TfLiteNode* node,
                                   const TfLiteConvParams* params,
                                   lg_conv_geometry* g) {
  g->stride_h = params->stride_height;
  g->stride_w = params->stride_width;
  g->dilation_h = params->dilation_height_factor;
  g->dilation_w = params->dilation_width_factor;
  lg_nn_window_padding(context, node, params->padding, g);
  if (g->out_h < 0 || g->out_w < 0) {
    lg_kernel_log(context, LG_CONV_OP,
                  "input %dx%d is smaller than the dilated %dx%d filter with "
                  "VALID padding",
                  g->in_h, g->in_w, (g->filter_h - 1) * g->dilation_h + 1,
                  (g->filter_w - 1) * g->dilation_w + 1);
    return kTfLiteError;
  }
  const int64_t out = (int64_t)g->batch * g->out_h * g->out_w * g->out_c;
  const int64_t depth = (int64_t)g->filter_h * g->filter_w * g->filter_c;
  if (out > INT_MAX || depth > INT_MAX) {
    lg_kernel_log(context, LG_CONV_OP,
                  "the output (%lld elements) or the filter window (%lld) is "
                  "too large",
                  (long long)out, (long long)depth);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_conv_geometry_of(TfLiteContext* context,
                                        const TfLiteNode* node,
                                        const TfLiteConvParams* params,
                                        const TfLiteTensor* input,
                                        const TfLiteTensor* filter,
                                        lg_conv_geometry* g, int* groups) {
  TF_LITE_ENSURE_STATUS(
      lg_nn_check_rank(context, LG_CONV_OP, "input", input, 4));
  TF_LITE_ENSURE_STATUS(
      lg_nn_check_rank(context, LG_CONV_OP, "filter", filter, 4));
  TF_LITE_ENSURE_STATUS(lg_nn_check_window(
      context, LG_CONV_OP, params->padding, params->stride_width,
      params->stride_height, params->dilation_width_factor,
      params->dilation_height_factor));
  const int* in = input->dims->data;
  const int* f = filter->dims->data;
  g->batch = in[0];
  g->in_h = in[1];
  g->in_w = in[2];
  g->in_c = in[3];
  g->out_c = f[0];
  g->filter_h = f[1];
  g->filter_w = f[2];
  g->filter_c = f[3];
  TF_LITE_ENSURE_STATUS(
      lg_conv_check_channels(context, input, filter, g, groups));
  TF_LITE_ENSURE_STATUS(lg_conv_window(context, node, params, g));
  return lg_kernel_activation_range_float(
      context, LG_CONV_OP, params->activation, &g->act_min, &g->act_max);
}

static TfLiteStatus lg_conv_check_bias(TfLiteContext* context,
                                       const TfLiteTensor* bias, int out_c) {
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, LG_CONV_OP, "bias", bias));
  if (lg_kernel_num_elements(bias) != out_c) {
    char shape[128];
    lg_kernel_log(context, LG_CONV_OP,
                  "bias shape %s does not hold %d elements (the filter's "
                  "output channels)",
                  lg_kernel_format_shape(bias->dims, shape, sizeof(shape)),
                  out_c);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* The GEMM of group `group` without the data pointers that only Invoke
 * knows (Prepare uses it for sizes). */
static lg_gemm lg_conv_gemm(const lg_conv_data* data) {
  const lg_conv_geometry* g = &data->geo;
  lg_gemm gemm = {
      .isa = data->isa,
      .m = g->batch * g->out_h * g->out_w,
      .n = g->out_c / data->groups,
      .k = g->filter_h * g->filter_w * g->filter_c,
      .ldc = g->out_c,
      .min = g->act_min,
      .max = g->act_max,
  };
  return gemm;
}

/* B of group `group`: rows [group * n, +n) of the OHWI filter, read as
 * B[p][j] = filter[(group * n + j) * k + p]. */
static lg_gemm_b lg_conv_filter_b(const lg_gemm* gemm, const float* filter,
                                  int group) {
  lg_gemm_b b = {
      .data = filter + (size_t)group * gemm->n * gemm->k,
      .row_stride = 1,
      .col_stride = gemm->k,
  };
  return b;
}

/* After the filter was copied into `weights`: the tensor is read no more. */
static void lg_conv_release_filter(TfLiteContext* context, TfLiteNode* node,
                                   lg_conv_data* data) {
  data->filter_copied = true;
  lg_kernel_release_input(context, node, kFilterTensor);
}

/* Packs a constant filter into the GEMM's B layout, group after group. */
static TfLiteStatus lg_conv_prepack(TfLiteContext* context, lg_conv_data* data,
                                    const TfLiteTensor* filter) {
  data->prepacked = false;
  if (!lg_nn_is_constant(filter)) return kTfLiteOk;
  const lg_gemm gemm = lg_conv_gemm(data);
  data->group_floats = lg_gemm_packed_b_floats(data->isa, gemm.k, gemm.n);
  TF_LITE_ENSURE_STATUS(
      lg_nn_buffer_reserve(context, LG_CONV_OP, &data->weights,
                           data->group_floats * (size_t)data->groups));
  for (int gi = 0; gi < data->groups; ++gi) {
    const lg_gemm_b b = lg_conv_filter_b(&gemm, filter->data.f, gi);
    lg_gemm_pack_b(data->isa, gemm.k, gemm.n, &b,
                   data->weights.data + data->group_floats * (size_t)gi);
  }
  data->prepacked = true;
  return kTfLiteOk;
}

/* The window-row path: its scratch and the filter packed per window row. */
static TfLiteStatus lg_conv_plan_rows(TfLiteContext* context, TfLiteNode* node,
                                      lg_conv_data* data) {
  const int threads = lg_thread_pool_size(lg_kernel_thread_pool(context));
  data->scratch_floats =
      lg_conv_rows_scratch_floats(&data->geo, data->isa, threads);
  data->gather = false;
  data->prepacked = false;
  TF_LITE_ENSURE_STATUS(lg_nn_set_temporaries(
      context, node, LG_CONV_OP, data->temporaries, &data->scratch_floats, 1));
  /* AddTensors may have moved the tensors: look the filter up again. */
  const TfLiteTensor* filter;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_CONV_OP, kFilterTensor, &filter));
  TF_LITE_ENSURE_STATUS(
      lg_nn_buffer_reserve(context, LG_CONV_OP, &data->weights,
                           lg_conv_rows_packed_floats(&data->geo, data->isa)));
  lg_conv_rows_pack(&data->geo, data->isa, filter->data.f, data->weights.data);
  lg_conv_release_filter(context, node, data);
  return kTfLiteOk;
}

/* Chooses the path, sizes the scratch temporary and packs the filter. */
static TfLiteStatus lg_conv_plan(TfLiteContext* context, TfLiteNode* node,
                                 lg_conv_data* data) {
  const lg_conv_geometry* g = &data->geo;
  data->isa = lg_gemm_isa_default();
  data->direct = g->filter_h == 1 && g->filter_w == 1 && g->stride_h == 1 &&
                 g->stride_w == 1;
  data->path = LG_CONV_PATH_GEMM;
  if (lg_conv_narrow_applies(g, data->groups, data->isa)) {
    data->path = LG_CONV_PATH_NARROW;
    const int tasks = lg_thread_pool_size(lg_kernel_thread_pool(context));
    data->scratch_floats = lg_conv_narrow_scratch_floats(g, tasks);
    data->prepacked = false;
    data->gather = false;
    return lg_nn_set_temporaries(context, node, LG_CONV_OP, data->temporaries,
                                 &data->scratch_floats, 1);
  }
  const TfLiteTensor* filter;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_CONV_OP, kFilterTensor, &filter));
  if (lg_conv_shallow_applies(g, data->groups, data->isa,
                              lg_nn_is_constant(filter))) {
    data->path = LG_CONV_PATH_SHALLOW;
    data->gather = false;
    data->prepacked = false;
    TF_LITE_ENSURE_STATUS(
        lg_nn_buffer_reserve(context, LG_CONV_OP, &data->weights,
                             lg_conv_shallow_packed_floats(g, data->isa)));
    lg_conv_shallow_pack(g, data->isa, filter->data.f, data->weights.data);
    lg_conv_release_filter(context, node, data);
    data->scratch_floats = lg_conv_shallow_scratch_floats(g);
    data->shallow_pads = data->scratch_floats > 0;
    if (data->scratch_floats == 0) data->scratch_floats = 1; /* slot valid */
    lg_kernel_offer_epilogue(context, node);
    return lg_nn_set_temporaries(context, node, LG_CONV_OP, data->temporaries,
                                 &data->scratch_floats, 1);
  }
  if (lg_conv_rows_applies(g, data->groups, data->isa,
                           lg_nn_is_constant(filter))) {
    data->path = LG_CONV_PATH_ROWS;
    return lg_conv_plan_rows(context, node, data);
  }
  lg_gemm gemm = lg_conv_gemm(data);
  /* Whether B is prepacked changes the scratch size: decide it first. */
  static const float kPackedMarker = 0.0f;
  gemm.b.packed = lg_nn_is_constant(filter) ? &kPackedMarker : NULL;
  const int threads = lg_thread_pool_size(lg_kernel_thread_pool(context));
  data->scratch_floats = lg_gemm_scratch_floats(&gemm, threads);
  TF_LITE_ENSURE_STATUS(lg_nn_set_temporaries(
      context, node, LG_CONV_OP, data->temporaries, &data->scratch_floats, 1));
  /* AddTensors may have moved the tensors: look the filter up again. */
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_CONV_OP, kFilterTensor, &filter));
  TF_LITE_ENSURE_STATUS(lg_conv_prepack(context, data, filter));
  if (data->prepacked) lg_conv_release_filter(context, node, data);
  data->gather = lg_conv_wants_gather(data);
  return data->gather ? lg_conv_build_gather(context, data) : kTfLiteOk;
}

static TfLiteStatus lg_conv_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_conv_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_CONV_OP,
                  "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  data->filter_copied = false;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, LG_CONV_OP, 2, 3, 1));
  const TfLiteConvParams* params = node->builtin_data;
  if (params == NULL) {
    lg_kernel_log(context, LG_CONV_OP, "missing Conv2DOptions parameters");
    return kTfLiteError;
  }
  const TfLiteTensor *input, *filter, *bias;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_CONV_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_CONV_OP, kFilterTensor, &filter));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_optional_input(context, node, LG_CONV_OP, kBiasTensor, &bias));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_CONV_OP, kOutputTensor, &output));
  /* An INT4 filter (version 7 with INT8 input, and hybrid) runs as INT8. */
  TfLiteTensor int4_view;
  TF_LITE_ENSURE_STATUS(lg_nn_prepare_int4(
      context, LG_CONV_OP,
      input->type == kTfLiteInt8 || input->type == kTfLiteFloat32, &filter,
      &data->unpacked, &int4_view));
  TF_LITE_ENSURE_STATUS(
      lg_conv_check_types(context, input, filter, bias, output));
  TF_LITE_ENSURE_STATUS(lg_conv_geometry_of(context, node, params, input,
                                            filter, &data->geo, &data->groups));
  if (bias != NULL) {
    TF_LITE_ENSURE_STATUS(lg_conv_check_bias(context, bias, data->geo.out_c));
  }
  data->has_bias = bias != NULL;
  data->input_elements = lg_kernel_num_elements(input);
  data->quantized = input->type == kTfLiteInt8 || input->type == kTfLiteInt16 ||
                    input->type == kTfLiteUInt8;
  data->hybrid = false;
  if (data->quantized) {
    TF_LITE_ENSURE_STATUS(lg_conv_quant_prepare(
        context, LG_CONV_OP, input, filter, bias, output, params->activation,
        data->geo.out_c, 0, &data->q));
    TF_LITE_ENSURE_STATUS(lg_conv_quant_pack(
        context, LG_CONV_OP, &data->q, &data->geo, data->groups, filter, bias,
        lg_thread_pool_size(lg_kernel_thread_pool(context))));
  } else if (filter->type == kTfLiteInt8) {
    data->hybrid = true;
    TF_LITE_ENSURE_STATUS(lg_hybrid_prepare(
        context, LG_CONV_OP, filter, data->geo.out_c, 0, false,
        data->input_elements, data->geo.batch, &data->hybrid_data));
  } else {
    TF_LITE_ENSURE_STATUS(lg_conv_plan(context, node, data));
  }

  const lg_conv_geometry* g = &data->geo;
  TfLiteIntArray* shape = TfLiteIntArrayCreate(4);
  if (shape == NULL) {
    lg_kernel_log(context, LG_CONV_OP, "out of memory for the output shape");
    return kTfLiteError;
  }
  shape->data[0] = g->batch;
  shape->data[1] = g->out_h;
  shape->data[2] = g->out_w;
  shape->data[3] = g->out_c;
  data->output_elements = lg_kernel_num_elements_dims(shape);
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_CONV_OP, kOutputTensor, &output));
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, shape));
  data->prepared = true;
  return kTfLiteOk;
}

/* ---- Invoke ------------------------------------------------------------- */

/* Floats of one window row (filter_w * in_c) up to which an edge pixel's
 * row is assembled on the stack, so that small-channel inputs (audio
 * spectrograms, RGB images) always pack whole window rows. */
#define LG_CONV_EDGE_ROW_FLOATS 64

/* The first input pixel of each listed output pixel's window: `base` (the
 * pixel's image plus the group's channel offset) and the window's top-left
 * corner (y0, x0), which may lie in the padding. */
static void lg_conv_window_origins(const lg_conv_pack_ctx* pc, int i0, int rows,
                                   const float** base, int* y0, int* x0) {
  const lg_conv_geometry* g = pc->geo;
  for (int r = 0; r < rows; ++r) {
    const int i = i0 + r;
    const int x = i % g->out_w, rest = i / g->out_w;
    const int y = rest % g->out_h, n = rest / g->out_h;
    base[r] = pc->input + (size_t)n * g->in_h * g->in_w * g->in_c +
              pc->channel_offset;
    y0[r] = y * g->stride_h - g->pad_top;
    x0[r] = x * g->stride_w - g->pad_left;
  }
}

/* Whether a window row (filter_w * in_c floats) is one contiguous run of
 * the input: no dilation along x and one group (the filter reads all
 * channels). */
static bool lg_conv_rows_are_runs(const lg_conv_geometry* g) {
  return g->dilation_w == 1 && g->filter_c == g->in_c;
}

/* Whether every listed window lies inside the input along x. */
static bool lg_conv_inside_x(const lg_conv_geometry* g, const int* x0,
                             int rows) {
  for (int r = 0; r < rows; ++r) {
    if (x0[r] < 0 || x0[r] + g->filter_w > g->in_w) return false;
  }
  return true;
}

/* Window row `iy` of a pixel whose window crosses the left or right edge:
 * filter_w taps of in_c floats, zeros for the taps in the padding. */
static void lg_conv_edge_row(const lg_conv_geometry* g, const float* image,
                             int iy, int x0, float* dst) {
  for (int kw = 0; kw < g->filter_w; ++kw) {
    const int ix = x0 + kw;
    float* d = dst + (size_t)kw * g->in_c;
    if (ix < 0 || ix >= g->in_w) {
      memset(d, 0, sizeof(float) * (size_t)g->in_c);
    } else {
      memcpy(d, image + ((size_t)iy * g->in_w + ix) * g->in_c,
             sizeof(float) * (size_t)g->in_c);
    }
  }
}

/* Packs depth [p0, p0 + depth) a whole window row (kh) at a time; rows
 * above or below the input read as zeros, rows crossing a side edge are
 * assembled in `edge` (LG_CONV_EDGE_ROW_FLOATS floats per pixel). */
static void lg_conv_pack_window_rows(const lg_conv_geometry* g,
                                     const float* const* base, const int* y0,
                                     const int* x0, int rows, int p0, int depth,
                                     float* dst, int ld, float* edge) {
  const int unit = g->filter_w * g->in_c;
  for (int p = p0; p < p0 + depth;) {
    const int kh = p / unit, offset = p - kh * unit;
    const int run =
        unit - offset < p0 + depth - p ? unit - offset : p0 + depth - p;
    const int dy = kh * g->dilation_h;
    const float* src[LG_GEMM_MAX_MR];
    for (int r = 0; r < rows; ++r) {
      const int iy = y0[r] + dy;
      if (iy < 0 || iy >= g->in_h) {
        src[r] = NULL;
      } else if (x0[r] >= 0 && x0[r] + g->filter_w <= g->in_w) {
        src[r] = base[r] + ((size_t)iy * g->in_w + x0[r]) * g->in_c + offset;
      } else {
        float* row = edge + (size_t)r * LG_CONV_EDGE_ROW_FLOATS;
        lg_conv_edge_row(g, base[r], iy, x0[r], row);
        src[r] = row + offset;
      }
    }
    lg_gemm_pack_rows(src, rows, run, dst + (size_t)(p - p0) * ld, ld);
    p += run;
  }
}

/* Packs depth [p0, p0 + depth) one (kh, kw) tap's channels at a time; a
 * tap in the padding reads as zeros. */
static void lg_conv_pack_taps(const lg_conv_geometry* g,
                              const float* const* base, const int* y0,
                              const int* x0, int rows, int p0, int depth,
                              float* dst, int ld) {
  const int unit = g->filter_c;
  for (int p = p0; p < p0 + depth;) {
    const int s = p / unit, c = p - s * unit;
    const int run = unit - c < p0 + depth - p ? unit - c : p0 + depth - p;
    const int dy = (s / g->filter_w) * g->dilation_h;
    const int dx = (s % g->filter_w) * g->dilation_w;
    const float* src[LG_GEMM_MAX_MR];
    for (int r = 0; r < rows; ++r) {
      const int iy = y0[r] + dy, ix = x0[r] + dx;
      const bool inside = iy >= 0 && iy < g->in_h && ix >= 0 && ix < g->in_w;
      src[r] =
          inside ? base[r] + ((size_t)iy * g->in_w + ix) * g->in_c + c : NULL;
    }
    lg_gemm_pack_rows(src, rows, run, dst + (size_t)(p - p0) * ld, ld);
    p += run;
  }
}

/* A-packing callback: output pixels [i0, i0 + rows) x window positions
 * [p0, p0 + depth), p = (kh * filter_w + kw) * filter_c + c. Each run of
 * channels inside one (kh, kw) is contiguous in the input, and so is a
 * whole window row when lg_conv_rows_are_runs holds; packing whole rows
 * makes the runs of small-channel inputs filter_w times longer (a 1-channel
 * input would otherwise pack one float per run). Windows that cross a side
 * edge get their rows assembled on the stack when a row is short; long
 * rows of such windows go tap by tap. */
static void lg_conv_pack_a(const void* ctx, int i0, int rows, int p0, int depth,
                           float* dst, int ld) {
  const lg_conv_pack_ctx* pc = ctx;
  const lg_conv_geometry* g = pc->geo;
  const float* base[LG_GEMM_MAX_MR];
  int y0[LG_GEMM_MAX_MR], x0[LG_GEMM_MAX_MR];
  lg_conv_window_origins(pc, i0, rows, base, y0, x0);
  if (lg_conv_rows_are_runs(g)) {
    float edge[LG_GEMM_MAX_MR * LG_CONV_EDGE_ROW_FLOATS];
    if (g->filter_w * g->in_c <= LG_CONV_EDGE_ROW_FLOATS ||
        lg_conv_inside_x(g, x0, rows)) {
      lg_conv_pack_window_rows(g, base, y0, x0, rows, p0, depth, dst, ld, edge);
      return;
    }
  }
  lg_conv_pack_taps(g, base, y0, x0, rows, p0, depth, dst, ld);
}

static TfLiteStatus lg_conv_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_conv_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_CONV_OP, "invoked before a successful prepare");
    return kTfLiteError;
  }
  lg_nn_io io;
  bool empty = false;
  TF_LITE_ENSURE_STATUS(lg_nn_invoke_io(context, node, LG_CONV_OP,
                                        data->prepared, data->filter_copied,
                                        data->has_bias, data->input_elements,
                                        data->output_elements, &io, &empty));
  if (empty) return kTfLiteOk;
  const TfLiteTensor* input = io.input;
  const TfLiteTensor* filter = io.filter;
  const TfLiteTensor* bias = io.bias;
  TfLiteTensor* output = io.output;
  const int8_t* filter8 =
      data->unpacked != NULL ? data->unpacked : filter->data.int8;
  if (data->hybrid) {
    lg_conv_hybrid_run(&data->hybrid_data, &data->geo, data->groups,
                       input->data.f, filter8,
                       bias != NULL ? bias->data.f : NULL, output->data.f);
    return kTfLiteOk;
  }
  if (data->quantized) {
    lg_conv_quant_run(&data->geo, data->groups, &data->q, input->data.data,
                      filter8, bias != NULL ? bias->data.data : NULL,
                      output->data.data, lg_kernel_thread_pool(context));
    return kTfLiteOk;
  }
  float* scratch = lg_nn_temporary(context, node, LG_CONV_OP, kScratchTemporary,
                                   data->scratch_floats);
  if (scratch == NULL) return kTfLiteError;

  lg_thread_pool* pool = lg_kernel_thread_pool(context);
  const lg_conv_geometry* g = &data->geo;
  if (data->path == LG_CONV_PATH_SHALLOW) {
    lg_conv_shallow_run(g, data->isa, input->data.f, data->weights.data,
                        bias != NULL ? bias->data.f : NULL, output->data.f,
                        data->shallow_pads ? scratch : NULL,
                        lg_kernel_take_epilogue(context, node), pool);
    return kTfLiteOk;
  }
  if (data->path == LG_CONV_PATH_ROWS) {
    lg_conv_rows_run(g, data->isa, input->data.f, data->weights.data,
                     bias != NULL ? bias->data.f : NULL, output->data.f,
                     scratch, data->scratch_floats, pool);
    return kTfLiteOk;
  }
  if (data->path == LG_CONV_PATH_NARROW) {
    lg_conv_narrow_run(g, data->isa, input->data.f, filter->data.f,
                       bias != NULL ? bias->data.f : NULL, output->data.f,
                       scratch, data->scratch_floats, pool);
    return kTfLiteOk;
  }
  for (int gi = 0; gi < data->groups; ++gi) {
    lg_gemm gemm = lg_conv_gemm(data);
    const lg_conv_pack_ctx pack = {g,
                                   input->data.f,
                                   gi * g->filter_c,
                                   data->gather_table,
                                   gemm.k,
                                   lg_conv_gather_of(data->isa)};
    if (data->gather) {
      gemm.a.pack = lg_conv_pack_gather;
      gemm.a.pack_ctx = &pack;
    } else if (data->direct) {
      gemm.a.data = input->data.f + (size_t)gi * g->filter_c;
      gemm.a.row_stride = g->in_c;
      gemm.a.col_stride = 1;
    } else {
      gemm.a.pack = lg_conv_pack_a;
      gemm.a.pack_ctx = &pack;
    }
    if (data->prepacked) {
      gemm.b.packed = data->weights.data + data->group_floats * (size_t)gi;
    } else {
      gemm.b = lg_conv_filter_b(&gemm, filter->data.f, gi);
    }
    gemm.c = output->data.f + (size_t)gi * gemm.n;
    gemm.bias = bias != NULL ? bias->data.f + (size_t)gi * gemm.n : NULL;
    lg_gemm_run(&gemm, pool, scratch, data->scratch_floats);
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(CONV_2D, lg_conv_init, lg_conv_free, lg_conv_prepare,
                       lg_conv_invoke)
