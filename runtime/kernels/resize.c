/* RESIZE_BILINEAR (float32, UINT8, INT8, INT16) and RESIZE_NEAREST_NEIGHBOR
 * (float32, int32, UINT8, INT8, INT16) on NHWC images.
 *
 * Inputs: the image [batch, height, width, channels] and an INT32 size
 * tensor [2] holding (new_height, new_width); the output is [batch,
 * new_height, new_width, channels]. A constant size is read in Prepare;
 * otherwise the output is dynamic and sized in Invoke. Bilinear needs a
 * positive size and nearest a non-negative one, as in LiteRT.
 *
 * The coordinate mapping is TFLite's reference kernels', in float32:
 *   scale = in / out, or (in - 1) / (out - 1) with align_corners and out > 1.
 *   Bilinear: the source of output index v is v * scale, or with
 *     half_pixel_centers (v + 0.5) * scale - 0.5; the lower neighbour is
 *     max(floor(src), 0), the upper min(ceil(src), in - 1), and the weights
 *     are (src - lower) and 1 - (src - lower) (so a source below 0 repeats
 *     the edge). align_corners with half_pixel_centers is rejected, as
 *     TFLite rejects it.
 *   Nearest: (v + offset) * scale, offset 0.5 with half_pixel_centers,
 *     rounded half away from zero with align_corners and floored
 *     otherwise, then cut to in - 1 (and to 0 with half_pixel_centers).
 * The bilinear sum is evaluated in TFLite's order, so results agree bit for
 * bit without FMA contraction.
 *
 * Quantized bilinear is TFLite's ResizeBilinearInteger, without floats:
 * scale10 = round(1024 * in / out) (align_corners: (in - 1) / (out - 1)),
 * the source s = v * scale10 (half_pixel_centers: + scale10 / 2 - 512),
 * neighbours max(s / 1024, 0) and min((s + 1023) / 1024, in - 1) (C
 * division), and the four products of values and 10-bit weights summed in
 * int64 and divided by 2^20 rounding half away from zero (INT8 on AVX2,
 * from 8 channels: quant_simd.c's rows, the same sum regrouped as wx *
 * (the left column's vertical blend) + dx * (the right column's), exact in
 * int32). UINT8 bilinear is TFLite's legacy uint8 reference instead: the
 * float blend above of the uint8 values, in the same order, plus 0.5 as a
 * fifth term, converted to uint8 by truncation (C's conversion, as TFLite's
 * static_cast). Quantized nearest copies elements. Both keep the input's
 * quantization: the output's must equal it (TFLite assumes so).
 *
 * Invoke splits output rows (batch x new_height) over the thread pool.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/thread_pool.h"
#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/quant_simd.h"
#include "runtime/kernels/quant_util.h"
#include "runtime/kernels/simd_f32.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

/* Output elements below which splitting over threads costs more than it
 * saves. */
#define LG_RESIZE_MIN_PARALLEL (1 << 14)
/* Output columns whose sources a bilinear row computes at once (on the
 * stack). */
#define LG_RESIZE_CHUNK 256
/* INT8 bilinear: channel counts from which the AVX2 rows (16, then 8
 * channels a step) run; measured faster than the compiler-vectorized loop
 * from 8 (32x32 to 64x64, one thread: 8 channels 79 -> 21 us, 12: 104 ->
 * 48 us); fewer keep that loop. */
#define LG_RESIZE_I8_VECTOR_MIN 8

enum {
  kInputTensor = 0,
  kSizeTensor = 1,
  kOutputTensor = 0,
};

typedef enum lg_resize_kind {
  LG_RESIZE_BILINEAR,
  LG_RESIZE_NEAREST,
} lg_resize_kind;

typedef struct lg_resize_data {
  lg_resize_kind kind;
  const char* name;
  bool prepared;
  bool dynamic; /* the size is read in Invoke */
  bool align_corners;
  bool half_pixel_centers;
  int batch, in_h, in_w, channels;
  int out_h, out_w;
  float scale_h, scale_w;       /* bilinear source scale */
  int32_t scale10_h, scale10_w; /* quantized bilinear: 10-bit fixed point */
  TfLiteType type;
  size_t element_size;
  bool avx2; /* INT8 bilinear rows: the AVX2 build of the loop */
} lg_resize_data;

/* One Invoke's work, shared read-only by its tasks. */
typedef struct lg_resize_job {
  const lg_resize_data* data;
  const void* input; /* data->type */
  void* output;
  int rows; /* batch * out_h */
  int num_tasks;
} lg_resize_job;

/* ---- Prepare ------------------------------------------------------------ */

/* TFLite's bilinear scale from `in` to `out` (0 for an empty output). */
static float lg_resize_scale(int in, int out, bool align_corners) {
  if (out == 0) return 0.0f;
  if (align_corners && out > 1) return (float)(in - 1) / (float)(out - 1);
  return (float)in / (float)out;
}

/* TFLite's quantized resizes keep the input's values: the output must have
 * the input's scale and zero point. */
/* The quantized bilinear scale in 10-bit fixed point, rounded. */
static int32_t lg_resize_scale10(int in, int out, bool align_corners) {
  if (out == 0) return 0;
  if (align_corners && out > 1) {
    return (int32_t)(((int64_t)1024 * (in - 1) + (out - 1) / 2) / (out - 1));
  }
  return (int32_t)(((int64_t)1024 * in + out / 2) / out);
}

static TfLiteStatus lg_resize_check_quantization(TfLiteContext* context,
                                                 const char* op,
                                                 const TfLiteTensor* input,
                                                 const TfLiteTensor* output) {
  lg_quant_layout in_q, out_q;
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, op, "input", input, &in_q));
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, op, "output", output, &out_q));
  if (in_q.scale0 != out_q.scale0 || in_q.zero_point0 != out_q.zero_point0) {
    lg_kernel_log(context, op,
                  "input quantization (%g, %d) and output quantization (%g, "
                  "%d) must be equal",
                  (double)in_q.scale0, (int)in_q.zero_point0,
                  (double)out_q.scale0, (int)out_q.zero_point0);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_resize_check(TfLiteContext* context,
                                    const lg_resize_data* data,
                                    const TfLiteTensor* input,
                                    const TfLiteTensor* size,
                                    const TfLiteTensor* output) {
  const char* op = data->name;
  char shape[64];
  /* Nearest only copies elements: int32 is as easy as float32 (and LiteRT
   * accepts it too). */
  const bool nearest = data->kind == LG_RESIZE_NEAREST;
  const bool quantized = input->type == kTfLiteInt8 ||
                         input->type == kTfLiteInt16 ||
                         input->type == kTfLiteUInt8;
  if (input->type != kTfLiteFloat32 && !quantized &&
      !(nearest && input->type == kTfLiteInt32)) {
    lg_kernel_log(context, op, "input type %s is not supported (expected %s)",
                  TfLiteTypeGetName(input->type),
                  nearest ? "FLOAT32, INT32, UINT8, INT8 or INT16"
                          : "FLOAT32, UINT8, INT8 or INT16");
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
    lg_kernel_log(context, op, "input must be 4-D (NHWC), got %s",
                  lg_kernel_format_shape(input->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (quantized) {
    TF_LITE_ENSURE_STATUS(
        lg_resize_check_quantization(context, op, input, output));
  }
  if (size->type != kTfLiteInt32) {
    lg_kernel_log(context, op, "size type %s is not supported (expected INT32)",
                  TfLiteTypeGetName(size->type));
    return kTfLiteError;
  }
  if (size->dims == NULL || size->dims->size != 1 || size->dims->data[0] != 2) {
    lg_kernel_log(context, op, "size must have shape [2], got %s",
                  lg_kernel_format_shape(size->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Reads the size, checks it and resizes the output. */
static TfLiteStatus lg_resize_configure(TfLiteContext* context,
                                        lg_resize_data* data,
                                        const TfLiteTensor* size,
                                        TfLiteTensor* output) {
  const char* op = data->name;
  if (size->data.i32 == NULL) {
    lg_kernel_log(context, op, "size tensor has no data");
    return kTfLiteError;
  }
  const int h = size->data.i32[0], w = size->data.i32[1];
  if (h < 0 || w < 0) {
    lg_kernel_log(context, op, "size (%d, %d) has a negative dimension", h, w);
    return kTfLiteError;
  }
  /* LiteRT's bilinear kernel refuses an empty size; nearest allows it. */
  if (data->kind == LG_RESIZE_BILINEAR && (h == 0 || w == 0)) {
    lg_kernel_log(context, op, "size (%d, %d) must be positive", h, w);
    return kTfLiteError;
  }
  const int64_t count = (int64_t)data->batch * h * w * data->channels;
  if (count > INT32_MAX) {
    lg_kernel_log(context, op, "an output of %lld elements is too large",
                  (long long)count);
    return kTfLiteError;
  }
  if (count > 0 && (data->in_h == 0 || data->in_w == 0)) {
    lg_kernel_log(context, op, "cannot resize an input of height %d, width %d",
                  data->in_h, data->in_w);
    return kTfLiteError;
  }
  data->out_h = h;
  data->out_w = w;
  data->scale_h = lg_resize_scale(data->in_h, h, data->align_corners);
  data->scale_w = lg_resize_scale(data->in_w, w, data->align_corners);
  data->scale10_h = lg_resize_scale10(data->in_h, h, data->align_corners);
  data->scale10_w = lg_resize_scale10(data->in_w, w, data->align_corners);
  TfLiteIntArray* shape = TfLiteIntArrayCreate(4);
  if (shape == NULL) {
    lg_kernel_log(context, op, "out of memory for the output shape");
    return kTfLiteError;
  }
  shape->data[0] = data->batch;
  shape->data[1] = h;
  shape->data[2] = w;
  shape->data[3] = data->channels;
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  return context->ResizeTensor(context, output, shape);
}

/* Both params structs hold (align_corners, half_pixel_centers). */
static void lg_resize_read_params(lg_resize_data* data, const void* params) {
  data->align_corners = data->half_pixel_centers = false;
  if (params == NULL) return;
  if (data->kind == LG_RESIZE_BILINEAR) {
    const TfLiteResizeBilinearParams* p = params;
    data->align_corners = p->align_corners;
    data->half_pixel_centers = p->half_pixel_centers;
  } else {
    const TfLiteResizeNearestNeighborParams* p = params;
    data->align_corners = p->align_corners;
    data->half_pixel_centers = p->half_pixel_centers;
  }
}

static TfLiteStatus lg_resize_prepare(TfLiteContext* context,
                                      TfLiteNode* node) {
  lg_resize_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, "RESIZE", "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  const char* op = data->name;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  const TfLiteTensor* input;
  const TfLiteTensor* size;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kSizeTensor, &size));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  TF_LITE_ENSURE_STATUS(lg_resize_check(context, data, input, size, output));
  lg_resize_read_params(data, node->builtin_data);
  if (data->kind == LG_RESIZE_BILINEAR && data->align_corners &&
      data->half_pixel_centers) {
    lg_kernel_log(context, op,
                  "align_corners and half_pixel_centers cannot both be true");
    return kTfLiteError;
  }
  data->batch = input->dims->data[0];
  data->in_h = input->dims->data[1];
  data->in_w = input->dims->data[2];
  data->channels = input->dims->data[3];
  data->type = input->type;
  data->avx2 = LG_GEMM_HAVE_X86 && lg_gemm_isa_default() >= LG_GEMM_ISA_AVX2;
  TF_LITE_ENSURE_STATUS(TfLiteGetSizeOfType(input->type, &data->element_size));
  data->dynamic = !lg_kernel_is_constant(size);
  if (data->dynamic) {
    lg_kernel_set_dynamic(output);
  } else {
    TF_LITE_ENSURE_STATUS(lg_resize_configure(context, data, size, output));
  }
  data->prepared = true;
  return kTfLiteOk;
}

/* ---- The loops ---------------------------------------------------------- */

/* TFLite's bilinear source of output index v: position, lower and upper
 * input neighbours. */
static inline void lg_resize_source(int v, float scale, bool half_pixel, int in,
                                    float* pos, int* lo, int* hi) {
  const float src =
      half_pixel ? ((float)v + 0.5f) * scale - 0.5f : (float)v * scale;
  const int f = (int)floorf(src);
  const int c = (int)ceilf(src);
  *pos = src;
  *lo = f > 0 ? f : 0;
  *hi = c < in - 1 ? c : in - 1;
}

/* TFLite's nearest input index of output index v. */
static inline int lg_resize_nearest_index(int v, int in, int out, bool align,
                                          bool half_pixel) {
  const float scale = align && out > 1 ? (float)(in - 1) / (float)(out - 1)
                                       : (float)in / (float)out;
  const float src = ((float)v + (half_pixel ? 0.5f : 0.0f)) * scale;
  int index = align ? (int)roundf(src) : (int)floorf(src);
  if (index > in - 1) index = in - 1;
  if (half_pixel && index < 0) index = 0;
  return index;
}

/* Output rows [r0, r1) of batch * out_h. The columns' sources are the same
 * for every row: they are computed a chunk of columns at a time, and each
 * row blends that chunk in one call. */
static void lg_resize_bilinear_rows(const lg_resize_job* job, int r0, int r1) {
  const lg_resize_data* d = job->data;
  const ptrdiff_t channels = d->channels;
  int32_t x_lo[LG_RESIZE_CHUNK], x_hi[LG_RESIZE_CHUNK];
  float dx[LG_RESIZE_CHUNK];
  for (int x0 = 0; x0 < d->out_w; x0 += LG_RESIZE_CHUNK) {
    const int count =
        d->out_w - x0 < LG_RESIZE_CHUNK ? d->out_w - x0 : LG_RESIZE_CHUNK;
    for (int i = 0; i < count; ++i) {
      float sx;
      int lo, hi;
      lg_resize_source(x0 + i, d->scale_w, d->half_pixel_centers, d->in_w, &sx,
                       &lo, &hi);
      x_lo[i] = (int32_t)(lo * channels);
      x_hi[i] = (int32_t)(hi * channels);
      dx[i] = sx - (float)lo;
    }
    for (int r = r0; r < r1; ++r) {
      const int b = r / d->out_h;
      float sy;
      int y0, y1;
      lg_resize_source(r % d->out_h, d->scale_h, d->half_pixel_centers, d->in_h,
                       &sy, &y0, &y1);
      const float dy = sy - (float)y0, wy = 1.0f - dy;
      const float* input = job->input;
      const float* row0 =
          input + ((ptrdiff_t)b * d->in_h + y0) * d->in_w * channels;
      const float* row1 =
          input + ((ptrdiff_t)b * d->in_h + y1) * d->in_w * channels;
      float* out =
          (float*)job->output + ((ptrdiff_t)r * d->out_w + x0) * channels;
      lg_f32_bilinear_pixels(row0, row1, x_lo, x_hi, dx, count, (int)channels,
                             wy, dy, out);
    }
  }
}

/* TFLite's integer source of output index v: 10-bit position, lower and
 * upper input neighbours. */
static inline void lg_resize_source10(int v, int32_t scale10, bool half_pixel,
                                      int in, int32_t* pos, int* lo, int* hi) {
  const int32_t s =
      half_pixel ? v * scale10 + scale10 / 2 - (1 << 9) : v * scale10;
  const int32_t lower = s / (1 << 10);
  const int32_t upper = (s + (1 << 10) - 1) / (1 << 10);
  *pos = s;
  *lo = lower > 0 ? lower : 0;
  *hi = upper < in - 1 ? upper : in - 1;
}

/* Quantized bilinear rows for element type T, summed in ACC: int32 for
 * int8, so that the loop vectorizes (each 10-bit weight lies in (-2^9,
 * 1.5 * 2^10), so each weight product is below 2^22 in magnitude, each
 * term below 2^29 and the 4 terms' sum below 2^31), int64 for int16. */
#define LG_RESIZE_BILINEAR_INTEGER(SUFFIX, T, ACC, ATTR)                       \
  ATTR static void lg_resize_bilinear_row_##SUFFIX(const lg_resize_job* job,   \
                                                   int r) {                    \
    const lg_resize_data* d = job->data;                                       \
    const ptrdiff_t channels = d->channels;                                    \
    const int b = r / d->out_h;                                                \
    int32_t sy;                                                                \
    int y0, y1;                                                                \
    lg_resize_source10(r % d->out_h, d->scale10_h, d->half_pixel_centers,      \
                       d->in_h, &sy, &y0, &y1);                                \
    const int64_t dy = sy - (1 << 10) * y0, wy = (1 << 10) - dy;               \
    const T* input = job->input;                                               \
    const T* row0 =                                                            \
        input + ((ptrdiff_t)b * d->in_h + y0) * d->in_w * channels;            \
    const T* row1 =                                                            \
        input + ((ptrdiff_t)b * d->in_h + y1) * d->in_w * channels;            \
    T* out = (T*)job->output + (ptrdiff_t)r * d->out_w * channels;             \
    for (int x = 0; x < d->out_w; ++x, out += channels) {                      \
      int32_t sx;                                                              \
      int x0, x1;                                                              \
      lg_resize_source10(x, d->scale10_w, d->half_pixel_centers, d->in_w, &sx, \
                         &x0, &x1);                                            \
      const int64_t dx = sx - (1 << 10) * x0, wx = (1 << 10) - dx;             \
      const T* p00 = row0 + x0 * channels;                                     \
      const T* p01 = row0 + x1 * channels;                                     \
      const T* p10 = row1 + x0 * channels;                                     \
      const T* p11 = row1 + x1 * channels;                                     \
      const ACC w00 = (ACC)(wy * wx), w10 = (ACC)(dy * wx);                    \
      const ACC w01 = (ACC)(wy * dx), w11 = (ACC)(dy * dx);                    \
      for (ptrdiff_t c = 0; c < channels; ++c) {                               \
        const ACC sum =                                                        \
            p00[c] * w00 + p10[c] * w10 + p01[c] * w01 + p11[c] * w11;         \
        const ACC round = sum > 0 ? (1 << 19) : -(1 << 19);                    \
        out[c] = (T)((sum + round) / (1 << 20));                               \
      }                                                                        \
    }                                                                          \
  }

LG_RESIZE_BILINEAR_INTEGER(i8, int8_t, int32_t, )
LG_RESIZE_BILINEAR_INTEGER(i16, int16_t, int64_t, )
#if LG_GEMM_HAVE_X86
/* The INT8 rows again, vectorized for AVX2 (32-bit multiplies; the
 * baseline build has SSE2's only): run where lg_gemm_isa_default allows. */
LG_RESIZE_BILINEAR_INTEGER(i8_avx2, int8_t, int32_t,
                           __attribute__((target("avx2"))))
#endif

#if LG_GEMM_HAVE_X86
/* INT8 output rows [r0, r1) through lg_resize_bilinear_i8_avx2 (for
 * channels >= LG_RESIZE_I8_VECTOR_MIN): the columns' sources are computed
 * once per chunk, as in lg_resize_bilinear_rows. */
static void lg_resize_bilinear_rows_i8_avx2(const lg_resize_job* job, int r0,
                                            int r1) {
  const lg_resize_data* d = job->data;
  const ptrdiff_t channels = d->channels;
  int32_t x_lo[LG_RESIZE_CHUNK], x_hi[LG_RESIZE_CHUNK], dx[LG_RESIZE_CHUNK];
  for (int x0 = 0; x0 < d->out_w; x0 += LG_RESIZE_CHUNK) {
    const int count =
        d->out_w - x0 < LG_RESIZE_CHUNK ? d->out_w - x0 : LG_RESIZE_CHUNK;
    for (int i = 0; i < count; ++i) {
      int32_t sx;
      int lo, hi;
      lg_resize_source10(x0 + i, d->scale10_w, d->half_pixel_centers, d->in_w,
                         &sx, &lo, &hi);
      x_lo[i] = (int32_t)(lo * channels);
      x_hi[i] = (int32_t)(hi * channels);
      dx[i] = sx - (1 << 10) * lo;
    }
    for (int r = r0; r < r1; ++r) {
      const int b = r / d->out_h;
      int32_t sy;
      int y0, y1;
      lg_resize_source10(r % d->out_h, d->scale10_h, d->half_pixel_centers,
                         d->in_h, &sy, &y0, &y1);
      const int32_t dy = sy - (1 << 10) * y0;
      const int8_t* input = job->input;
      const int8_t* row0 =
          input + ((ptrdiff_t)b * d->in_h + y0) * d->in_w * channels;
      const int8_t* row1 =
          input + ((ptrdiff_t)b * d->in_h + y1) * d->in_w * channels;
      int8_t* out =
          (int8_t*)job->output + ((ptrdiff_t)r * d->out_w + x0) * channels;
      lg_resize_bilinear_i8_avx2(row0, row1, x_lo, x_hi, dx, count,
                                 (int)channels, (1 << 10) - dy, dy, out);
    }
  }
}
#endif

/* UINT8 bilinear rows: TFLite's float reference blend of uint8 values
 * (lg_resize_bilinear_rows' sum, term by term in its order) plus its
 * rounding offset 0.5, truncated. */
static void lg_resize_bilinear_row_u8(const lg_resize_job* job, int r) {
  const lg_resize_data* d = job->data;
  const ptrdiff_t channels = d->channels;
  const int b = r / d->out_h;
  float sy;
  int y0, y1;
  lg_resize_source(r % d->out_h, d->scale_h, d->half_pixel_centers, d->in_h,
                   &sy, &y0, &y1);
  const float dy = sy - (float)y0, wy = 1.0f - dy;
  const uint8_t* input = job->input;
  const uint8_t* row0 =
      input + ((ptrdiff_t)b * d->in_h + y0) * d->in_w * channels;
  const uint8_t* row1 =
      input + ((ptrdiff_t)b * d->in_h + y1) * d->in_w * channels;
  uint8_t* out = (uint8_t*)job->output + (ptrdiff_t)r * d->out_w * channels;
  for (int x = 0; x < d->out_w; ++x, out += channels) {
    float sx;
    int x0, x1;
    lg_resize_source(x, d->scale_w, d->half_pixel_centers, d->in_w, &sx, &x0,
                     &x1);
    const float dx = sx - (float)x0, wx = 1.0f - dx;
    const uint8_t* p00 = row0 + x0 * channels;
    const uint8_t* p01 = row0 + x1 * channels;
    const uint8_t* p10 = row1 + x0 * channels;
    const uint8_t* p11 = row1 + x1 * channels;
    for (ptrdiff_t c = 0; c < channels; ++c) {
      const float sum = (float)p00[c] * wy * wx + (float)p10[c] * dy * wx +
                        (float)p01[c] * wy * dx + (float)p11[c] * dy * dx +
                        0.5f;
      out[c] = (uint8_t)sum;
    }
  }
}

static void lg_resize_nearest_row(const lg_resize_job* job, int r) {
  const lg_resize_data* d = job->data;
  const size_t pixel = (size_t)d->channels * d->element_size;
  const int b = r / d->out_h;
  const int y = lg_resize_nearest_index(
      r % d->out_h, d->in_h, d->out_h, d->align_corners, d->half_pixel_centers);
  /* Elements of any type, copied as they are. */
  const uint8_t* row = (const uint8_t*)job->input +
                       ((size_t)b * d->in_h + (size_t)y) * d->in_w * pixel;
  uint8_t* out = (uint8_t*)job->output + (size_t)r * d->out_w * pixel;
  for (int x = 0; x < d->out_w; ++x, out += pixel) {
    const int ix = lg_resize_nearest_index(
        x, d->in_w, d->out_w, d->align_corners, d->half_pixel_centers);
    memcpy(out, row + (size_t)ix * pixel, pixel);
  }
}

/* Task `index` of num_tasks equal shares of the output rows. */
static void lg_resize_task(void* ctx, int index) {
  const lg_resize_job* job = ctx;
  const int r0 = (int)((int64_t)job->rows * index / job->num_tasks);
  const int r1 = (int)((int64_t)job->rows * (index + 1) / job->num_tasks);
  if (job->data->kind == LG_RESIZE_BILINEAR &&
      job->data->type == kTfLiteFloat32) {
    lg_resize_bilinear_rows(job, r0, r1);
    return;
  }
#if LG_GEMM_HAVE_X86
  if (job->data->kind == LG_RESIZE_BILINEAR && job->data->type == kTfLiteInt8 &&
      job->data->avx2 && job->data->channels >= LG_RESIZE_I8_VECTOR_MIN) {
    lg_resize_bilinear_rows_i8_avx2(job, r0, r1);
    return;
  }
#endif
  for (int r = r0; r < r1; ++r) {
    if (job->data->kind == LG_RESIZE_NEAREST) {
      lg_resize_nearest_row(job, r);
    } else if (job->data->type == kTfLiteInt8) {
#if LG_GEMM_HAVE_X86
      if (job->data->avx2) {
        lg_resize_bilinear_row_i8_avx2(job, r);
        continue;
      }
#endif
      lg_resize_bilinear_row_i8(job, r);
    } else if (job->data->type == kTfLiteUInt8) {
      lg_resize_bilinear_row_u8(job, r);
    } else {
      lg_resize_bilinear_row_i16(job, r);
    }
  }
}

/* ---- Invoke ------------------------------------------------------------- */

static TfLiteStatus lg_resize_invoke(TfLiteContext* context, TfLiteNode* node) {
  lg_resize_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, data != NULL ? data->name : "RESIZE",
                  "invoked before a successful prepare");
    return kTfLiteError;
  }
  const char* op = data->name;
  const TfLiteTensor* input;
  const TfLiteTensor* size;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kSizeTensor, &size));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  if (data->dynamic) {
    TF_LITE_ENSURE_STATUS(lg_resize_configure(context, data, size, output));
  }
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
  if (input->data.raw == NULL || output->data.raw == NULL) {
    lg_kernel_log(context, op, "a tensor has no data");
    return kTfLiteError;
  }
  lg_resize_job job = {
      .data = data,
      .input = input->data.raw,
      .output = output->data.raw,
      .rows = data->batch * data->out_h,
      .num_tasks = 1,
  };
  lg_thread_pool* pool = lg_kernel_thread_pool(context);
  const int threads = lg_thread_pool_size(pool);
  if (threads > 1 && out_count >= LG_RESIZE_MIN_PARALLEL) {
    job.num_tasks = lg_thread_pool_tasks(pool, job.rows);
  }
  lg_thread_pool_run(pool, lg_resize_task, &job, job.num_tasks);
  return kTfLiteOk;
}

/* ---- Registrations ------------------------------------------------------ */

static void* lg_resize_init_variant(lg_resize_kind kind, const char* name) {
  lg_resize_data* data = calloc(1, sizeof(lg_resize_data));
  if (data != NULL) {
    data->kind = kind;
    data->name = name;
  }
  return data;
}

LG_KERNEL_FAMILY_REGISTRATION(RESIZE_BILINEAR, lg_resize, LG_RESIZE_BILINEAR)
LG_KERNEL_FAMILY_REGISTRATION(RESIZE_NEAREST_NEIGHBOR, lg_resize,
                              LG_RESIZE_NEAREST)
