/* AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D on NHWC float32.
 *
 * Output size and padding are TFLite's: SAME gives ceil(in / stride) and
 * VALID (in - filter + stride) / stride (truncated; a negative size is an
 * error, 0 an empty output); the total padding max((out - 1) * stride +
 * filter - in, 0) is split with the smaller half before. Each window is cut
 * at the input's edges and only its valid elements count:
 *   - AVERAGE: their float sum divided by their number;
 *   - MAX: starts from -FLT_MAX and takes only greater values, as TFLite's
 *     reference kernel does (NaN is skipped, a window of -inf gives
 *     -FLT_MAX);
 *   - L2: sqrt(sum of squares / number).
 * The fused activation clamps the result to TFLite's finite range (so
 * +-inf becomes +-FLT_MAX even with NONE). Window elements are folded in
 * (row, column) order like TFLite's reference kernel, so sums agree bit for
 * bit.
 *
 * Invoke splits output rows (batch x output height) over the thread pool.
 *
 * INT8 (version 2) and INT16 (version 3, zero point 0) AVERAGE_POOL_2D and
 * MAX_POOL_2D are TFLite's reference integer kernels bit for bit: the
 * int32 sum of the window's valid elements divided by their number
 * rounding half away from zero (MAX: the largest), then clamped to the
 * fused activation's quantized range. The output keeps the input's scale
 * and zero point (TFLite assumes it; a mismatch is an error here). UINT8
 * (version 1) is the same kernel on uint8 values (MAX starting from 0),
 * TFLite's legacy uint8 reference pooling.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/thread_pool.h"
#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/quant_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#if LG_GEMM_HAVE_X86
#include <immintrin.h>
#endif

/* Channels folded together per window (stack accumulators). */
#define LG_POOL_CHUNK 64
/* Window element reads below which splitting over threads costs more than
 * it saves. */
#define LG_POOL_MIN_PARALLEL (1 << 15)
/* Each kind gets its own loop, so that the fold is a constant the compiler
 * can specialize. */
#define LG_POOL_INLINE static inline __attribute__((always_inline))

enum {
  kInputTensor = 0,
  kOutputTensor = 0,
};

typedef enum lg_pool_kind {
  LG_POOL_AVERAGE,
  LG_POOL_MAX,
  LG_POOL_L2,
} lg_pool_kind;

typedef struct lg_pool_data {
  lg_pool_kind kind;
  const char* name;
  bool prepared;
  int batch, in_h, in_w, channels;
  int out_h, out_w;
  int stride_h, stride_w;
  int filter_h, filter_w;
  int pad_h, pad_w;   /* padding before (top, left) */
  float min, max;     /* fused activation */
  bool quantized;     /* INT8 or INT16 */
  int32_t qmin, qmax; /* quantized: the fused activation's range */
} lg_pool_data;

/* One Invoke's work, shared read-only by its tasks. */
typedef struct lg_pool_job {
  const lg_pool_data* data;
  const float* input;
  float* output;
  lg_gemm_isa isa; /* AVERAGE and MAX take vector pixels from AVX2 on */
  int rows;        /* batch * out_h */
  int num_tasks;
} lg_pool_job;

/* ---- Prepare ------------------------------------------------------------ */

/* TFLite's output size for one spatial dim; false when it is negative (a
 * VALID window larger than the input by more than a stride). */
static bool lg_pool_out_size(TfLitePadding padding, int in, int filter,
                             int stride, int* out) {
  const int64_t num = padding == kTfLitePaddingSame
                          ? (int64_t)in + stride - 1
                          : (int64_t)in + stride - filter;
  const int64_t size = num / stride; /* C truncates towards zero, as TFLite */
  if (size < 0) return false;
  *out = (int)size;
  return true;
}

/* The padding before a dim: half of the total, rounded down. */
static int lg_pool_padding(int in, int filter, int stride, int out) {
  const int64_t total = ((int64_t)out - 1) * stride + filter - in;
  return total > 0 ? (int)(total / 2) : 0;
}

static TfLiteStatus lg_pool_check_params(TfLiteContext* context, const char* op,
                                         const TfLitePoolParams* params) {
  if (params == NULL) {
    lg_kernel_log(context, op, "missing Pool2DOptions parameters");
    return kTfLiteError;
  }
  if (params->stride_width < 1 || params->stride_height < 1) {
    lg_kernel_log(context, op,
                  "stride_w %d and stride_h %d must both be positive",
                  params->stride_width, params->stride_height);
    return kTfLiteError;
  }
  if (params->filter_width < 1 || params->filter_height < 1) {
    lg_kernel_log(context, op,
                  "filter_width %d and filter_height %d must both be "
                  "positive",
                  params->filter_width, params->filter_height);
    return kTfLiteError;
  }
  if (params->padding != kTfLitePaddingSame &&
      params->padding != kTfLitePaddingValid) {
    lg_kernel_log(context, op, "padding %d is not SAME or VALID",
                  (int)params->padding);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_pool_check_input(TfLiteContext* context, const char* op,
                                        lg_pool_kind kind,
                                        const TfLiteTensor* input,
                                        const TfLiteTensor* output) {
  /* L2_POOL_2D is float only, as in TFLite. */
  const bool quantized_ok =
      (input->type == kTfLiteInt8 || input->type == kTfLiteInt16 ||
       input->type == kTfLiteUInt8) &&
      kind != LG_POOL_L2;
  if (input->type != kTfLiteFloat32 && !quantized_ok) {
    lg_kernel_log(context, op,
                  "input type %s is not supported (expected FLOAT32%s)",
                  TfLiteTypeGetName(input->type),
                  kind != LG_POOL_L2 ? ", INT8, UINT8 or INT16" : "");
    return kTfLiteError;
  }
  if (output->type != input->type) {
    lg_kernel_log(context, op, "output type %s differs from input type %s",
                  TfLiteTypeGetName(output->type),
                  TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "input", input));
  if (input->dims->size != 4) {
    char shape[64];
    lg_kernel_log(context, op, "input must be 4-D (NHWC), got %s",
                  lg_kernel_format_shape(input->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Fills the geometry of `data` from the input shape and the params. */
static TfLiteStatus lg_pool_geometry(TfLiteContext* context, lg_pool_data* data,
                                     const TfLiteIntArray* dims,
                                     const TfLitePoolParams* params) {
  data->batch = dims->data[0];
  data->in_h = dims->data[1];
  data->in_w = dims->data[2];
  data->channels = dims->data[3];
  data->stride_h = params->stride_height;
  data->stride_w = params->stride_width;
  data->filter_h = params->filter_height;
  data->filter_w = params->filter_width;
  if (!lg_pool_out_size(params->padding, data->in_h, data->filter_h,
                        data->stride_h, &data->out_h) ||
      !lg_pool_out_size(params->padding, data->in_w, data->filter_w,
                        data->stride_w, &data->out_w)) {
    lg_kernel_log(context, data->name,
                  "VALID padding with a %dx%d (h x w) filter leaves no "
                  "output for a %dx%d input at stride %dx%d",
                  data->filter_h, data->filter_w, data->in_h, data->in_w,
                  data->stride_h, data->stride_w);
    return kTfLiteError;
  }
  data->pad_h =
      lg_pool_padding(data->in_h, data->filter_h, data->stride_h, data->out_h);
  data->pad_w =
      lg_pool_padding(data->in_w, data->filter_w, data->stride_w, data->out_w);
  return kTfLiteOk;
}

/* INT8 and INT16: one scale and zero point shared by input and output
 * (INT16: zero point 0), and the activation's quantized range. */
static TfLiteStatus lg_pool_prepare_quantized(TfLiteContext* context,
                                              lg_pool_data* data,
                                              const TfLiteTensor* input,
                                              const TfLiteTensor* output,
                                              const TfLitePoolParams* params) {
  lg_quant_layout in_q, out_q;
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, data->name, "input", input, &in_q));
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, data->name, "output", output, &out_q));
  /* TFLite's (debug-build) check: scales within 1e-6, zero points equal. */
  if (fabs((double)in_q.scale0 - (double)out_q.scale0) > 1e-6 ||
      in_q.zero_point0 != out_q.zero_point0) {
    lg_kernel_log(context, data->name,
                  "%s input and output must share one scale and zero point "
                  "(input %g/%d, output %g/%d)",
                  TfLiteTypeGetName(input->type), (double)in_q.scale0,
                  (int)in_q.zero_point0, (double)out_q.scale0,
                  (int)out_q.zero_point0);
    return kTfLiteError;
  }
  if (input->type == kTfLiteInt16 && in_q.zero_point0 != 0) {
    lg_kernel_log(context, data->name,
                  "INT16 zero point %d: INT16 quantization is symmetric (zero "
                  "point 0)",
                  (int)in_q.zero_point0);
    return kTfLiteError;
  }
  return lg_quant_activation_range(context, data->name, params->activation,
                                   input->type, out_q.scale0, out_q.zero_point0,
                                   &data->qmin, &data->qmax);
}

static TfLiteStatus lg_pool_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_pool_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, "POOL_2D", "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  const char* op = data->name;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 1, 1, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  const TfLitePoolParams* params = node->builtin_data;
  TF_LITE_ENSURE_STATUS(lg_pool_check_params(context, op, params));
  TF_LITE_ENSURE_STATUS(
      lg_pool_check_input(context, op, data->kind, input, output));
  data->quantized = input->type == kTfLiteInt8 || input->type == kTfLiteInt16 ||
                    input->type == kTfLiteUInt8;
  if (data->quantized) {
    TF_LITE_ENSURE_STATUS(
        lg_pool_prepare_quantized(context, data, input, output, params));
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_activation_range_float(
      context, op, params->activation, &data->min, &data->max));
  /* TFLite's float activation range is finite (lowest() / max() where
   * there is no bound), so an infinite result becomes -FLT_MAX / FLT_MAX
   * (LiteRT's reference pooling does this); NaN still passes. */
  if (data->min < -FLT_MAX) data->min = -FLT_MAX;
  if (data->max > FLT_MAX) data->max = FLT_MAX;
  TF_LITE_ENSURE_STATUS(lg_pool_geometry(context, data, input->dims, params));

  TfLiteIntArray* shape = TfLiteIntArrayCreate(4);
  if (shape == NULL) {
    lg_kernel_log(context, op, "out of memory for the output shape");
    return kTfLiteError;
  }
  shape->data[0] = data->batch;
  shape->data[1] = data->out_h;
  shape->data[2] = data->out_w;
  shape->data[3] = data->channels;
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, shape));
  data->prepared = true;
  return kTfLiteOk;
}

/* ---- The loops ---------------------------------------------------------- */

LG_POOL_INLINE float lg_pool_init(lg_pool_kind kind) {
  return kind == LG_POOL_MAX ? -FLT_MAX : 0.0f;
}

LG_POOL_INLINE float lg_pool_step(lg_pool_kind kind, float acc, float x) {
  switch (kind) {
    case LG_POOL_MAX:
      return x > acc ? x : acc;
    case LG_POOL_L2:
      return acc + x * x;
    default:
      return acc + x;
  }
}

LG_POOL_INLINE float lg_pool_final(lg_pool_kind kind, float acc, int count) {
  switch (kind) {
    case LG_POOL_MAX:
      return acc;
    case LG_POOL_L2:
      return sqrtf(acc / (float)count);
    default:
      return acc / (float)count;
  }
}

/* One output pixel: folds the `rows` x `cols` valid window elements whose
 * top-left one is `first`, LG_POOL_CHUNK channels at a time. */
LG_POOL_INLINE void lg_pool_pixel(lg_pool_kind kind, const lg_pool_data* d,
                                  const float* first, int rows, int cols,
                                  float* out) {
  const int channels = d->channels;
  const ptrdiff_t row_stride = (ptrdiff_t)d->in_w * channels;
  const int count = rows * cols;
  for (int c0 = 0; c0 < channels; c0 += LG_POOL_CHUNK) {
    const int m = channels - c0 < LG_POOL_CHUNK ? channels - c0 : LG_POOL_CHUNK;
    float acc[LG_POOL_CHUNK];
    for (int k = 0; k < m; ++k) acc[k] = lg_pool_init(kind);
    for (int fy = 0; fy < rows; ++fy) {
      for (int fx = 0; fx < cols; ++fx) {
        const float* x =
            first + fy * row_stride + (ptrdiff_t)fx * channels + c0;
        for (int k = 0; k < m; ++k) acc[k] = lg_pool_step(kind, acc[k], x[k]);
      }
    }
    for (int k = 0; k < m; ++k) {
      out[c0 + k] = lg_kernel_clamp_float(lg_pool_final(kind, acc[k], count),
                                          d->min, d->max);
    }
  }
}

/* The window of output index o along one dim, cut at the input's edges:
 * input positions [*begin, *begin + *size). */
static inline void lg_pool_window(int o, int stride, int pad, int filter,
                                  int in, int* begin, int* size) {
  const int origin = o * stride - pad;
  const int f0 = origin < 0 ? -origin : 0;
  const int f1 = in - origin < filter ? in - origin : filter;
  *begin = origin + f0;
  *size = f1 - f0;
}

/* Output row r of batch * out_h: the element offset of its windows' top
 * input row (batch and y) and their number of rows. */
static inline ptrdiff_t lg_pool_row_window(const lg_pool_data* d, int r,
                                           int* rows) {
  int y;
  lg_pool_window(r % d->out_h, d->stride_h, d->pad_h, d->filter_h, d->in_h, &y,
                 rows);
  return (((ptrdiff_t)(r / d->out_h) * d->in_h + y) * d->in_w) * d->channels;
}

/* Output column ox: the element offset of its windows' left input column
 * within a row, and their number of columns. */
static inline ptrdiff_t lg_pool_col_window(const lg_pool_data* d, int ox,
                                           int* cols) {
  int x;
  lg_pool_window(ox, d->stride_w, d->pad_w, d->filter_w, d->in_w, &x, cols);
  return (ptrdiff_t)x * d->channels;
}

/* Output rows [r0, r1) of batch * out_h. */
LG_POOL_INLINE void lg_pool_rows(lg_pool_kind kind, const lg_pool_job* job,
                                 int r0, int r1) {
  const lg_pool_data* d = job->data;
  for (int r = r0; r < r1; ++r) {
    int rows, cols;
    const float* row = job->input + lg_pool_row_window(d, r, &rows);
    for (int ox = 0; ox < d->out_w; ++ox) {
      const float* first = row + lg_pool_col_window(d, ox, &cols);
      float* out = job->output + ((ptrdiff_t)r * d->out_w + ox) * d->channels;
      lg_pool_pixel(kind, d, first, rows, cols, out);
    }
  }
}

#if LG_GEMM_HAVE_X86
/* AVERAGE and MAX pixels on vectors of channels: the same folds in the same
 * (row, column) order lane by lane (max_ps(x, acc) is `x > acc ? x : acc`),
 * so results equal the scalar loop's bit for bit; channels past the last
 * full vector are masked. */
#define LG_POOL_VECTOR_PIXEL(NAME, ISA, VEC, LANES, MASK_T, MASK_OF, LOAD,    \
                             STORE, SET1, MAX, MIN, ADD, DIV)                 \
  __attribute__((target(ISA))) static void NAME(const lg_pool_job* job,       \
                                                int r0, int r1) {             \
    const lg_pool_data* d = job->data;                                        \
    const bool is_max = d->kind == LG_POOL_MAX;                               \
    const int channels = d->channels;                                         \
    const ptrdiff_t row_stride = (ptrdiff_t)d->in_w * channels;               \
    const VEC lo = SET1(d->min), hi = SET1(d->max);                           \
    const VEC init = SET1(is_max ? -FLT_MAX : 0.0f);                          \
    for (int r = r0; r < r1; ++r) {                                           \
      int rows, cols;                                                         \
      const float* row = job->input + lg_pool_row_window(d, r, &rows);        \
      for (int ox = 0; ox < d->out_w; ++ox) {                                 \
        const float* first = row + lg_pool_col_window(d, ox, &cols);          \
        float* out = job->output + ((ptrdiff_t)r * d->out_w + ox) * channels; \
        const VEC count = SET1((float)(rows * cols));                         \
        for (int c = 0; c < channels; c += LANES) {                           \
          const MASK_T m = MASK_OF(channels - c);                             \
          VEC acc = init;                                                     \
          for (int fy = 0; fy < rows; ++fy) {                                 \
            const float* x = first + fy * row_stride + c;                     \
            for (int fx = 0; fx < cols; ++fx, x += channels) {                \
              const VEC v = LOAD(x, m);                                       \
              acc = is_max ? MAX(v, acc) : ADD(acc, v);                       \
            }                                                                 \
          }                                                                   \
          if (!is_max) acc = DIV(acc, count);                                 \
          STORE(out + c, m, MAX(lo, MIN(hi, acc)));                           \
        }                                                                     \
      }                                                                       \
    }                                                                         \
  }

static inline __attribute__((always_inline)) __mmask16 lg_pool_mask16(int n) {
  return n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1u);
}
static inline __attribute__((always_inline, target("avx2"))) __m256i
lg_pool_mask8(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
#define LG_POOL_LOAD16(p, m) _mm512_maskz_loadu_ps(m, p)
#define LG_POOL_STORE16(p, m, v) _mm512_mask_storeu_ps(p, m, v)
#define LG_POOL_LOAD8(p, m) _mm256_maskload_ps(p, m)
#define LG_POOL_STORE8(p, m, v) _mm256_maskstore_ps(p, m, v)

LG_POOL_VECTOR_PIXEL(lg_pool_rows_avx512, "avx512f", __m512, 16, __mmask16,
                     lg_pool_mask16, LG_POOL_LOAD16, LG_POOL_STORE16,
                     _mm512_set1_ps, _mm512_max_ps, _mm512_min_ps,
                     _mm512_add_ps, _mm512_div_ps)
LG_POOL_VECTOR_PIXEL(lg_pool_rows_avx2, "avx2", __m256, 8, __m256i,
                     lg_pool_mask8, LG_POOL_LOAD8, LG_POOL_STORE8,
                     _mm256_set1_ps, _mm256_max_ps, _mm256_min_ps,
                     _mm256_add_ps, _mm256_div_ps)
#endif

/* Task `index` of num_tasks equal shares of the output rows. */
static void lg_pool_task(void* ctx, int index) {
  const lg_pool_job* job = ctx;
  const int r0 = (int)((int64_t)job->rows * index / job->num_tasks);
  const int r1 = (int)((int64_t)job->rows * (index + 1) / job->num_tasks);
#if LG_GEMM_HAVE_X86
  if (job->data->kind != LG_POOL_L2) {
    if (job->isa == LG_GEMM_ISA_AVX512) {
      lg_pool_rows_avx512(job, r0, r1);
      return;
    }
    if (job->isa == LG_GEMM_ISA_AVX2) {
      lg_pool_rows_avx2(job, r0, r1);
      return;
    }
  }
#endif
  switch (job->data->kind) {
    case LG_POOL_AVERAGE:
      lg_pool_rows(LG_POOL_AVERAGE, job, r0, r1);
      break;
    case LG_POOL_MAX:
      lg_pool_rows(LG_POOL_MAX, job, r0, r1);
      break;
    case LG_POOL_L2:
      lg_pool_rows(LG_POOL_L2, job, r0, r1);
      break;
  }
}

/* ---- INT8, UINT8 and INT16 --------------------------------------------------
 */

/* Channels a quantized output pixel accumulates at once (stack sums). */
#define LG_POOL_QUANT_CHUNK 256

/* The quantized outputs of channels [0, m) of the rows x cols window
 * whose top-left element is `first`, TFLite's reference integer pooling:
 * the largest value, or the sum divided by the count rounding half away
 * from zero; then the activation's clamp. Channels side by side (adjacent
 * in the input: the loops vectorize). */
#define LG_POOL_QUANT(SUFFIX, T, LOWEST)                                      \
  static void lg_pool_values_##SUFFIX(const lg_pool_data* d, const T* first,  \
                                      int rows, int cols, int m, T* out) {    \
    const ptrdiff_t row_stride = (ptrdiff_t)d->in_w * d->channels;            \
    const bool is_max = d->kind == LG_POOL_MAX;                               \
    int32_t acc[LG_POOL_QUANT_CHUNK];                                         \
    for (int c = 0; c < m; ++c) acc[c] = is_max ? (LOWEST) : 0;               \
    for (int fy = 0; fy < rows; ++fy) {                                       \
      for (int fx = 0; fx < cols; ++fx) {                                     \
        const T* x = first + fy * row_stride + (ptrdiff_t)fx * d->channels;   \
        if (is_max) {                                                         \
          for (int c = 0; c < m; ++c) acc[c] = x[c] > acc[c] ? x[c] : acc[c]; \
        } else {                                                              \
          for (int c = 0; c < m; ++c) acc[c] += x[c];                         \
        }                                                                     \
      }                                                                       \
    }                                                                         \
    const int32_t count = rows * cols; /* > 0: windows overlap the input */   \
    const int32_t qmin = d->qmin, qmax = d->qmax;                             \
    for (int c = 0; c < m; ++c) {                                             \
      int32_t v = acc[c];                                                     \
      if (!is_max) {                                                          \
        v = v > 0 ? (v + count / 2) / count : (v - count / 2) / count;        \
      }                                                                       \
      if (v < qmin) v = qmin;                                                 \
      if (v > qmax) v = qmax;                                                 \
      out[c] = (T)v;                                                          \
    }                                                                         \
  }                                                                           \
                                                                              \
  static void lg_pool_run_##SUFFIX(const lg_pool_data* d, const T* input,     \
                                   T* output) {                               \
    for (int r = 0; r < d->batch * d->out_h; ++r) {                           \
      int rows, cols;                                                         \
      const T* row = input + lg_pool_row_window(d, r, &rows);                 \
      for (int ox = 0; ox < d->out_w; ++ox) {                                 \
        const T* first = row + lg_pool_col_window(d, ox, &cols);              \
        T* out = output + ((ptrdiff_t)r * d->out_w + ox) * d->channels;       \
        for (int c0 = 0; c0 < d->channels; c0 += LG_POOL_QUANT_CHUNK) {       \
          const int m = d->channels - c0 < LG_POOL_QUANT_CHUNK                \
                            ? d->channels - c0                                \
                            : LG_POOL_QUANT_CHUNK;                            \
          lg_pool_values_##SUFFIX(d, first + c0, rows, cols, m, out + c0);    \
        }                                                                     \
      }                                                                       \
    }                                                                         \
  }

LG_POOL_QUANT(int8, int8_t, -128)
LG_POOL_QUANT(uint8, uint8_t, 0)
LG_POOL_QUANT(int16, int16_t, -32768)

#if LG_GEMM_HAVE_X86
/* The largest int8 value of each of 32 channels (16 when `half`: the
 * upper lanes then hold zeros) over a rows x cols window from x0. */
static inline __attribute__((always_inline, target("avx2"))) __m256i
lg_pool_max_int8_block(const int8_t* x0, int rows, int cols,
                       ptrdiff_t row_stride, int channels, bool half) {
  __m256i m = _mm256_set1_epi8(-128);
  for (int fy = 0; fy < rows; ++fy) {
    const int8_t* x = x0 + fy * row_stride;
    for (int fx = 0; fx < cols; ++fx, x += channels) {
      const __m256i v =
          half ? _mm256_zextsi128_si256(_mm_loadu_si128((const __m128i*)x))
               : _mm256_loadu_si256((const __m256i*)x);
      m = _mm256_max_epi8(m, v);
    }
  }
  return m;
}

/* INT8 MAX_POOL_2D's output pixel on AVX2: the window's largest stored
 * value taken in int8 directly, 32 then 16 channels a step, then the
 * activation's clamp (the reference's arithmetic: the max of the values,
 * then the clamp); the last channels one by one. */
static inline __attribute__((always_inline, target("avx2"))) void
lg_pool_max_int8_pixel(const lg_pool_data* d, const int8_t* first, int rows,
                       int cols, int8_t* out) {
  const ptrdiff_t row_stride = (ptrdiff_t)d->in_w * d->channels;
  const int channels = d->channels;
  const __m256i lo = _mm256_set1_epi8((char)d->qmin);
  const __m256i hi = _mm256_set1_epi8((char)d->qmax);
  int c = 0;
  for (; c + 32 <= channels; c += 32) {
    const __m256i m = lg_pool_max_int8_block(first + c, rows, cols, row_stride,
                                             channels, false);
    _mm256_storeu_si256((__m256i*)(out + c),
                        _mm256_min_epi8(_mm256_max_epi8(m, lo), hi));
  }
  if (c + 16 <= channels) {
    const __m256i m = lg_pool_max_int8_block(first + c, rows, cols, row_stride,
                                             channels, true);
    _mm_storeu_si128(
        (__m128i*)(out + c),
        _mm256_castsi256_si128(_mm256_min_epi8(_mm256_max_epi8(m, lo), hi)));
    c += 16;
  }
  if (c < channels) {
    lg_pool_values_int8(d, first + c, rows, cols, channels - c, out + c);
  }
}

/* The int32 sums of 8 int8 channels over a rows x cols window from x0. */
static inline __attribute__((always_inline, target("avx2"))) __m256i
lg_pool_sum_int8_block(const int8_t* x0, int rows, int cols,
                       ptrdiff_t row_stride, int channels) {
  __m256i sum = _mm256_setzero_si256();
  for (int fy = 0; fy < rows; ++fy) {
    const int8_t* x = x0 + fy * row_stride;
    for (int fx = 0; fx < cols; ++fx, x += channels) {
      const __m128i v = _mm_loadl_epi64((const __m128i*)x);
      sum = _mm256_add_epi32(sum, _mm256_cvtepi8_epi32(v));
    }
  }
  return sum;
}

/* 8 int8 averages: the sums divided by `count` rounding half away from
 * zero, as TFLite's reference, then clamped to [lo, hi]. The division is
 * in double: the quotients are at most 128 in magnitude, so the rounded
 * quotient truncates to the exact integer one (its error, under 2^-45,
 * is far below the 1 / count by which a fraction misses an integer). */
static inline __attribute__((always_inline, target("avx2"))) void
lg_pool_store_avg_int8(__m256i sum, int32_t count, __m256i lo, __m256i hi,
                       int8_t* out) {
  /* sign(sum) * (count / 2): 0 for a zero sum, whose quotient is 0. */
  const __m256i rounded = _mm256_add_epi32(
      sum, _mm256_sign_epi32(_mm256_set1_epi32(count / 2), sum));
  const __m256d divisor = _mm256_set1_pd((double)count);
  const __m128i q0 = _mm256_cvttpd_epi32(_mm256_div_pd(
      _mm256_cvtepi32_pd(_mm256_castsi256_si128(rounded)), divisor));
  const __m128i q1 = _mm256_cvttpd_epi32(_mm256_div_pd(
      _mm256_cvtepi32_pd(_mm256_extracti128_si256(rounded, 1)), divisor));
  const __m256i q =
      _mm256_min_epi32(_mm256_max_epi32(_mm256_set_m128i(q1, q0), lo), hi);
  const __m128i q16 = _mm_packs_epi32(_mm256_castsi256_si128(q),
                                      _mm256_extracti128_si256(q, 1));
  _mm_storel_epi64((__m128i*)out, _mm_packs_epi16(q16, q16));
}

/* INT8 AVERAGE_POOL_2D's output pixel on AVX2: int32 sums 8 channels a
 * step, the last channels one by one. */
static inline __attribute__((always_inline, target("avx2"))) void
lg_pool_avg_int8_pixel(const lg_pool_data* d, const int8_t* first, int rows,
                       int cols, int8_t* out) {
  const ptrdiff_t row_stride = (ptrdiff_t)d->in_w * d->channels;
  const int channels = d->channels;
  const __m256i lo = _mm256_set1_epi32(d->qmin);
  const __m256i hi = _mm256_set1_epi32(d->qmax);
  int c = 0;
  for (; c + 8 <= channels; c += 8) {
    const __m256i sum =
        lg_pool_sum_int8_block(first + c, rows, cols, row_stride, channels);
    lg_pool_store_avg_int8(sum, rows * cols, lo, hi, out + c);
  }
  if (c < channels) {
    lg_pool_values_int8(d, first + c, rows, cols, channels - c, out + c);
  }
}

/* INT8 MAX or AVERAGE_POOL_2D on AVX2, output pixel by pixel (is_max a
 * constant in each caller: one loop per kind, no branch per pixel). */
static inline __attribute__((always_inline, target("avx2"))) void
lg_pool_int8_walk_avx2(const lg_pool_data* data, const int8_t* input,
                       int8_t* output, const bool is_max) {
  /* A local copy: the int8 stores could alias *data, whose fields the
   * pixel loop would then reload after every store. */
  const lg_pool_data copy = *data;
  const lg_pool_data* d = &copy;
  for (int r = 0; r < d->batch * d->out_h; ++r) {
    int rows, cols;
    const int8_t* row = input + lg_pool_row_window(d, r, &rows);
    for (int ox = 0; ox < d->out_w; ++ox) {
      const int8_t* first = row + lg_pool_col_window(d, ox, &cols);
      int8_t* out = output + ((ptrdiff_t)r * d->out_w + ox) * d->channels;
      if (is_max) {
        lg_pool_max_int8_pixel(d, first, rows, cols, out);
      } else {
        lg_pool_avg_int8_pixel(d, first, rows, cols, out);
      }
    }
  }
}

__attribute__((target("avx2"))) static void lg_pool_int8_avx2(
    const lg_pool_data* d, const int8_t* input, int8_t* output) {
  if (d->kind == LG_POOL_MAX) {
    lg_pool_int8_walk_avx2(d, input, output, true);
  } else {
    lg_pool_int8_walk_avx2(d, input, output, false);
  }
}
#endif

/* INT8 pooling: AVX2 where the CPU has it, else the loops above. */
static void lg_pool_run_int8_fast(const lg_pool_data* d, const int8_t* input,
                                  int8_t* output) {
#if LG_GEMM_HAVE_X86
  if (lg_gemm_isa_default() >= LG_GEMM_ISA_AVX2 &&
      (d->kind == LG_POOL_MAX || d->kind == LG_POOL_AVERAGE)) {
    lg_pool_int8_avx2(d, input, output);
    return;
  }
#endif
  lg_pool_run_int8(d, input, output);
}

/* ---- Invoke ------------------------------------------------------------- */

static TfLiteStatus lg_pool_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_pool_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, data != NULL ? data->name : "POOL_2D",
                  "invoked before a successful prepare");
    return kTfLiteError;
  }
  const char* op = data->name;
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  const int64_t in_count =
      (int64_t)data->batch * data->in_h * data->in_w * data->channels;
  const int64_t out_count =
      (int64_t)data->batch * data->out_h * data->out_w * data->channels;
  if (lg_kernel_num_elements(input) != in_count ||
      lg_kernel_num_elements(output) != out_count) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (out_count == 0) return kTfLiteOk;
  if (input->data.data == NULL || output->data.data == NULL) {
    lg_kernel_log(context, op, "a tensor has no data");
    return kTfLiteError;
  }
  if (data->quantized) {
    if (input->type == kTfLiteInt16) {
      lg_pool_run_int16(data, input->data.i16, output->data.i16);
    } else if (input->type == kTfLiteUInt8) {
      lg_pool_run_uint8(data, input->data.uint8, output->data.uint8);
    } else {
      lg_pool_run_int8_fast(data, input->data.int8, output->data.int8);
    }
    return kTfLiteOk;
  }
  lg_pool_job job = {
      .data = data,
      .input = input->data.f,
      .output = output->data.f,
      .isa = lg_gemm_isa_default(),
      .rows = data->batch * data->out_h,
      .num_tasks = 1,
  };
  lg_thread_pool* pool = lg_kernel_thread_pool(context);
  const int threads = lg_thread_pool_size(pool);
  const int64_t reads = out_count * data->filter_h * data->filter_w;
  if (threads > 1 && reads >= LG_POOL_MIN_PARALLEL) {
    job.num_tasks = lg_thread_pool_tasks(pool, job.rows);
  }
  lg_thread_pool_run(pool, lg_pool_task, &job, job.num_tasks);
  return kTfLiteOk;
}

/* ---- Registrations ------------------------------------------------------ */

static void* lg_pool_init_variant(lg_pool_kind kind, const char* name) {
  lg_pool_data* data = calloc(1, sizeof(lg_pool_data));
  if (data != NULL) {
    data->kind = kind;
    data->name = name;
  }
  return data;
}

LG_KERNEL_FAMILY_REGISTRATION(AVERAGE_POOL_2D, lg_pool, LG_POOL_AVERAGE)
LG_KERNEL_FAMILY_REGISTRATION(MAX_POOL_2D, lg_pool, LG_POOL_MAX)
LG_KERNEL_FAMILY_REGISTRATION(L2_POOL_2D, lg_pool, LG_POOL_L2)
