/* SOFTMAX and LOG_SOFTMAX over the last axis, float32.
 *
 * Each row (the innermost dimension) is made numerically stable by
 * subtracting its maximum first, as TFLite's reference kernels do, and the
 * arithmetic follows theirs step by step in float32:
 *   SOFTMAX:     e[c] = exp((x[c] - max) * beta); out[c] = e[c] / sum(e)
 *   LOG_SOFTMAX: out[c] = (x[c] - max) - log(sum(exp(x[c] - max)))
 * with the sum accumulated in order from c = 0. Where the CPU has vectors
 * and beta > 0, SOFTMAX runs simd_f32's row instead: the same steps with a
 * vector exp (within 1 ulp) and the sum in vector lanes, a few ulps from
 * the scalar steps. The maximum starts at
 * -FLT_MAX and skips NaN (as std::max does), so a NaN in a row makes that
 * whole row NaN through the sum; a row of -inf gives 0/0 = NaN; beta may be
 * any value, including 0 (a uniform distribution) or negative.
 *
 * The input needs rank >= 1 (a scalar has no axis). INT8 SOFTMAX (version
 * 2) is TFLite's fixed-point kernel and INT16 SOFTMAX (version 3) its
 * table-based one, both bit for bit: the differences to the row's maximum
 * rescaled so that [-65535, 0] spans [-10, 0], exp from a 513-entry table
 * (lg_quant_lut16_populate), the sum's reciprocal from a 1 / (1 + x)
 * table, and the product rounded to Q0.15. INT8 LOG_SOFTMAX (version 2)
 * is TFLite's reference fixed-point kernel bit for bit: the output is
 * fixed at scale 16/256 and zero point 127 (it covers [-255/16, 0]); the
 * Q5 differences' exps summed in Q12, their log in Q5
 * (lg_fixed_log_q12_to_q5), out = (d - log sum) rounded to 1/16 + 127, and
 * the differences too small to show (below the input radius, or below the
 * log sum taken back to input steps) give -128. UINT8 SOFTMAX (version 1)
 * is the INT8 kernel on uint8 values with its output at scale 1/256 and
 * zero point 0 (TFLite's legacy uint8 reference). The float16 SOFTMAX
 * (version 4) and UINT8 LOG_SOFTMAX (version 1) are rejected in Prepare
 * with the type's name. Invoke splits float rows over the context's
 * thread pool.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/thread_pool.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/quant_util.h"
#include "runtime/kernels/simd_f32.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

/* Elements below which splitting rows over threads costs more than it
 * saves (each element costs an exp). */
#define LG_SOFTMAX_MIN_PARALLEL 8192

enum {
  kInputTensor = 0,
  kOutputTensor = 0,
};

typedef struct lg_softmax_data {
  const char* name; /* "SOFTMAX" or "LOG_SOFTMAX" */
  bool log;
  bool prepared;
  float beta; /* SOFTMAX only */
  int64_t rows;
  int64_t depth; /* the last dim */
  /* INT8 SOFTMAX: beta * input_scale as a Q5 rescale of input differences
   * (multiplier, left shift) and the smallest difference that counts. */
  bool quantized;
  int32_t input_multiplier;
  int input_left_shift;
  int32_t diff_min;
  /* INT8 LOG_SOFTMAX: the Q5 rescale taken back (log sum -> input steps). */
  int32_t reverse_multiplier;
  int reverse_shift;
  /* INT8 SOFTMAX and LOG_SOFTMAX: exp of the rescaled difference -d to the
   * row's maximum,
   * for d in [0, 255] (filled in Prepare; the differences below diff_min
   * are not used). */
  int32_t exp_q0[256];
  /* INT16 SOFTMAX: exp on [-10, 0] and 1 / (1 + x) on [0, 1]. */
  TfLiteType type;
  int16_t exp_lut[LG_QUANT_LUT16_SIZE];
  int16_t reciprocal_lut[LG_QUANT_LUT16_SIZE];
} lg_softmax_data;

static void* lg_softmax_create(bool log) {
  lg_softmax_data* data = calloc(1, sizeof(*data));
  if (data != NULL) {
    data->log = log;
    data->name = log ? "LOG_SOFTMAX" : "SOFTMAX";
  }
  return data;
}

static void* lg_softmax_init(TfLiteContext* context, const char* buffer,
                             size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return lg_softmax_create(false);
}

static void* lg_log_softmax_init(TfLiteContext* context, const char* buffer,
                                 size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return lg_softmax_create(true);
}

static TfLiteStatus lg_softmax_check(TfLiteContext* context,
                                     const lg_softmax_data* data,
                                     const TfLiteTensor* input,
                                     const TfLiteTensor* output) {
  if ((input->type == kTfLiteInt8 && data->log) ||
      ((input->type == kTfLiteInt8 || input->type == kTfLiteInt16 ||
        input->type == kTfLiteUInt8) &&
       !data->log)) {
    if (output->type != input->type) {
      lg_kernel_log(context, data->name,
                    "output type %s is not supported with %s input "
                    "(expected %s)",
                    TfLiteTypeGetName(output->type),
                    TfLiteTypeGetName(input->type),
                    TfLiteTypeGetName(input->type));
      return kTfLiteError;
    }
  } else if (input->type != kTfLiteFloat32) {
    lg_kernel_log(context, data->name,
                  "input type %s is not supported (expected FLOAT32%s)",
                  TfLiteTypeGetName(input->type),
                  data->log ? " or INT8" : ", INT8, UINT8 or INT16");
    return kTfLiteError;
  }
  if (input->type == kTfLiteFloat32 && output->type != kTfLiteFloat32) {
    lg_kernel_log(context, data->name,
                  "output type %s is not supported (expected FLOAT32)",
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, data->name, "input", input));
  if (input->dims->size < 1) {
    lg_kernel_log(context, data->name,
                  "input must have at least 1 dimension, got a scalar");
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* INT8 SOFTMAX, TFLite's reference: the output is Q0.8 probabilities
 * (scale 1/256, zero point -128, as TFLite requires; UINT8: zero point 0); beta
 * * input_scale becomes a Q5 rescale of the differences to the row's maximum
 * (PreprocessSoftmaxScaling) and differences below diff_min
 * (CalculateInputRadius) count as exp = 0. */
static TfLiteStatus lg_softmax_prepare_int8(TfLiteContext* context,
                                            lg_softmax_data* data,
                                            const TfLiteTensor* input,
                                            const TfLiteTensor* output) {
  lg_quant_layout in_q, out_q;
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, data->name, "input", input, &in_q));
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, data->name, "output", output, &out_q));
  const float want_scale = data->log ? 16.0f / 256.0f : 1.0f / 256.0f;
  const int32_t want_zero_point = data->log                      ? 127
                                  : output->type == kTfLiteUInt8 ? 0
                                                                 : -128;
  if (out_q.zero_point0 != want_zero_point || out_q.scale0 != want_scale) {
    lg_kernel_log(context, data->name,
                  "%s output must have scale %s and zero point %d (got %g "
                  "and %d)",
                  TfLiteTypeGetName(output->type),
                  data->log ? "16/256" : "1/256", (int)want_zero_point,
                  (double)out_q.scale0, (int)out_q.zero_point0);
    return kTfLiteError;
  }
  /* LOG_SOFTMAX has no beta: TFLite's is 1. */
  if (data->log) data->beta = 1.0f;
  const double max_multiplier = (double)((1LL << 31) - 1);
  double real = (double)data->beta * (double)in_q.scale0 * (double)(1 << 26);
  if (real > max_multiplier) real = max_multiplier;
  if (!(real > 1.0)) {
    lg_kernel_log(context, data->name,
                  "beta %g times input scale %g is too small for "
                  "quantized softmax (TFLite needs beta * scale * 2^26 > 1)",
                  (double)data->beta, (double)in_q.scale0);
    return kTfLiteError;
  }
  lg_quantize_multiplier(real, &data->input_multiplier,
                         &data->input_left_shift);
  if (data->log) {
    /* TFLite's PreprocessLogSoftmaxScalingExp: the reverse rescale, a
     * multiplier below 1. */
    const double reverse = (double)(1LL << (31 - data->input_left_shift)) /
                           (double)data->input_multiplier;
    lg_quantize_multiplier(reverse, &data->reverse_multiplier,
                           &data->reverse_shift);
    if (data->reverse_shift > 0) {
      lg_kernel_log(context, data->name,
                    "input scale %g is too large for INT8 LOG_SOFTMAX",
                    (double)in_q.scale0);
      return kTfLiteError;
    }
  }
  const double radius =
      31.0 * (double)(1LL << 26) / (double)(1LL << data->input_left_shift);
  data->diff_min = -(int32_t)floor(radius);
  for (int32_t d = 0; d < 256; ++d) {
    const int32_t scaled =
        lg_fixed_mul((int32_t)((uint32_t)-d << data->input_left_shift),
                     data->input_multiplier);
    data->exp_q0[d] = lg_fixed_exp_on_negative_q5(scaled);
  }
  return kTfLiteOk;
}

static double lg_softmax_exp(double x) { return exp(x); }
static double lg_softmax_one_over_one_plus(double x) { return 1.0 / (1.0 + x); }

/* INT16 SOFTMAX, TFLite's: zero points 0; the two tables; beta * input
 * scale over 10/65535 as a fixed-point rescale of the differences. */
static TfLiteStatus lg_softmax_prepare_int16(TfLiteContext* context,
                                             lg_softmax_data* data,
                                             const TfLiteTensor* input,
                                             const TfLiteTensor* output) {
  lg_quant_layout in_q, out_q;
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, data->name, "input", input, &in_q));
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, data->name, "output", output, &out_q));
  if (in_q.zero_point0 != 0 || out_q.zero_point0 != 0) {
    lg_kernel_log(context, data->name,
                  "INT16 zero points must be 0 (input %d, output %d): INT16 "
                  "quantization is symmetric",
                  (int)in_q.zero_point0, (int)out_q.zero_point0);
    return kTfLiteError;
  }
  const double range = 65535.0;
  lg_quant_lut16_populate(10.0 / range, 32767, 2.0 / range, 0, lg_softmax_exp,
                          data->exp_lut);
  lg_quant_lut16_populate(1.0 / range, -32768, 2.0 / range, 0,
                          lg_softmax_one_over_one_plus, data->reciprocal_lut);
  /* The product in float, as TFLite's. */
  lg_quantize_multiplier((double)(in_q.scale0 * data->beta) / (10.0 / 65535.0),
                         &data->input_multiplier, &data->input_left_shift);
  return kTfLiteOk;
}

static TfLiteStatus lg_softmax_prepare(TfLiteContext* context,
                                       TfLiteNode* node) {
  lg_softmax_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, "SOFTMAX", "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, data->name, 1, 1, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, data->name, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, data->name, kOutputTensor, &output));
  TF_LITE_ENSURE_STATUS(lg_softmax_check(context, data, input, output));
  const TfLiteSoftmaxParams* params = node->builtin_data;
  /* A missing options table means the schema default, beta = 0. */
  data->beta = !data->log && params != NULL ? params->beta : 0.0f;
  data->quantized = input->type == kTfLiteInt8 || input->type == kTfLiteInt16 ||
                    input->type == kTfLiteUInt8;
  data->type = input->type;
  if (data->quantized) {
    TF_LITE_ENSURE_STATUS(
        input->type == kTfLiteInt16
            ? lg_softmax_prepare_int16(context, data, input, output)
            : lg_softmax_prepare_int8(context, data, input, output));
  }
  data->depth = input->dims->data[input->dims->size - 1];
  const int64_t count = lg_kernel_num_elements(input);
  data->rows = data->depth > 0 ? count / data->depth : 0;
  TfLiteIntArray* shape = TfLiteIntArrayCopy(input->dims);
  if (shape == NULL) {
    lg_kernel_log(context, data->name, "out of memory for the output shape");
    return kTfLiteError;
  }
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, shape));
  data->prepared = true;
  return kTfLiteOk;
}

/* The row's maximum as std::max folds it from -FLT_MAX: NaN is skipped. */
static float lg_softmax_row_max(const float* x, int64_t depth) {
  float max = -FLT_MAX;
  for (int64_t c = 0; c < depth; ++c) {
    if (max < x[c]) max = x[c];
  }
  return max;
}

static void lg_softmax_row(const float* x, float* out, int64_t depth,
                           float beta) {
  if (lg_f32_softmax_row(x, out, depth, beta)) return;
  const float max = lg_softmax_row_max(x, depth);
  float sum = 0.0f;
  for (int64_t c = 0; c < depth; ++c) {
    const float e = expf((x[c] - max) * beta);
    out[c] = e;
    sum += e;
  }
  for (int64_t c = 0; c < depth; ++c) out[c] = out[c] / sum;
}

static void lg_log_softmax_row(const float* x, float* out, int64_t depth) {
  const float max = lg_softmax_row_max(x, depth);
  float sum = 0.0f;
  for (int64_t c = 0; c < depth; ++c) sum += expf(x[c] - max);
  const float log_sum = logf(sum);
  for (int64_t c = 0; c < depth; ++c) out[c] = (x[c] - max) - log_sum;
}

/* One Invoke's work, shared read-only by its tasks. */
typedef struct lg_softmax_job {
  const lg_softmax_data* data;
  const float* input;
  float* output;
  int num_tasks;
} lg_softmax_job;

static void lg_softmax_task(void* ctx, int index) {
  const lg_softmax_job* job = ctx;
  const lg_softmax_data* data = job->data;
  const int64_t begin = data->rows * index / job->num_tasks;
  const int64_t end = data->rows * (index + 1) / job->num_tasks;
  if (!data->log && lg_f32_softmax_rows(job->input + begin * data->depth,
                                        job->output + begin * data->depth,
                                        end - begin, data->depth, data->beta)) {
    return;
  }
  for (int64_t r = begin; r < end; ++r) {
    const float* x = job->input + r * data->depth;
    float* out = job->output + r * data->depth;
    if (data->log) {
      lg_log_softmax_row(x, out, data->depth);
    } else {
      lg_softmax_row(x, out, data->depth, data->beta);
    }
  }
}

/* An INT8 (UINT8) row's maximum (*max) and the Q12 sum of the exps of its
 * differences to it, from the table Prepare filled; the differences below
 * diff_min count as 0 (SOFTMAX and LOG_SOFTMAX alike). Then one SOFTMAX
 * row, TFLite's reference fixed-point softmax bit for bit: Q0.8
 * probabilities, offset by the type's lowest value (the output's zero
 * point) and clamped to the type. */
#define LG_SOFTMAX_Q8_ROWS(SUFFIX, T, LOWEST, HIGHEST)                         \
  static int32_t lg_softmax_##SUFFIX##_sum_exps(const lg_softmax_data* d,      \
                                                const T* x, int32_t* max) {    \
    int32_t m = (LOWEST);                                                      \
    for (int64_t c = 0; c < d->depth; ++c) m = x[c] > m ? x[c] : m;            \
    int32_t sum_q12 = 0;                                                       \
    for (int64_t c = 0; c < d->depth; ++c) {                                   \
      const int32_t diff = x[c] - m;                                           \
      if (diff < d->diff_min) continue;                                        \
      sum_q12 += lg_fixed_divide_by_pot(d->exp_q0[-diff], 12);                 \
    }                                                                          \
    *max = m;                                                                  \
    return sum_q12;                                                            \
  }                                                                            \
                                                                               \
  static void lg_softmax_row_##SUFFIX(const lg_softmax_data* d, const T* x,    \
                                      T* out) {                                \
    int32_t max;                                                               \
    const int32_t sum_q12 = lg_softmax_##SUFFIX##_sum_exps(d, x, &max);        \
    int bits_over_unit = 0;                                                    \
    const int32_t reciprocal =                                                 \
        lg_fixed_reciprocal_q12(sum_q12, &bits_over_unit);                     \
    const int exponent = bits_over_unit + 31 - 8;                              \
    for (int64_t c = 0; c < d->depth; ++c) {                                   \
      const int32_t diff = x[c] - max;                                         \
      if (diff < d->diff_min) {                                                \
        out[c] = (T)(LOWEST);                                                  \
        continue;                                                              \
      }                                                                        \
      const int32_t p = lg_fixed_divide_by_pot(                                \
          lg_fixed_mul(reciprocal, d->exp_q0[-diff]), exponent);               \
      const int32_t q = p + (LOWEST);                                          \
      out[c] = (T)(q < (LOWEST) ? (LOWEST) : (q > (HIGHEST) ? (HIGHEST) : q)); \
    }                                                                          \
  }

LG_SOFTMAX_Q8_ROWS(int8, int8_t, -128, 127)
LG_SOFTMAX_Q8_ROWS(uint8, uint8_t, 0, 255)

/* One INT8 LOG_SOFTMAX row, TFLite's reference fixed-point kernel bit for
 * bit. */
static void lg_log_softmax_row_int8(const lg_softmax_data* d, const int8_t* x,
                                    int8_t* out) {
  int32_t max;
  const int32_t sum_q12 = lg_softmax_int8_sum_exps(d, x, &max);
  const int32_t log_sum_q5 = lg_fixed_log_q12_to_q5(sum_q12);
  /* The log sum in input steps, below which the output is -128. */
  const int32_t reverse = lg_multiply_by_quantized_multiplier(
      log_sum_q5 + INT32_MIN, d->reverse_multiplier, d->reverse_shift);
  const int32_t floor = reverse > d->diff_min - 1 ? reverse : d->diff_min - 1;
  for (int64_t c = 0; c < d->depth; ++c) {
    const int32_t diff = x[c] - max;
    if (diff <= floor) {
      out[c] = -128;
      continue;
    }
    const int32_t diff_q5 = lg_multiply_by_quantized_multiplier(
        diff, d->input_multiplier, d->input_left_shift);
    /* Q5 (26 fraction bits) to the output's 1/16 steps: 22 bits. */
    const int32_t q =
        lg_fixed_divide_by_pot(diff_q5 - log_sum_q5, 31 - 5 - 4) + 127;
    out[c] = (int8_t)(q < -128 ? -128 : (q > 127 ? 127 : q));
  }
}

/* One INT16 row, TFLite's SoftmaxInt16 bit for bit. */
static void lg_softmax_row_int16(const lg_softmax_data* d, const int16_t* x,
                                 int16_t* out) {
  const int64_t depth = d->depth;
  int16_t max = INT16_MIN;
  for (int64_t c = 0; c < depth; ++c) max = x[c] > max ? x[c] : max;
  /* exp(x - max) in Q0.15, kept in the output; their sum in Q16.15. */
  int32_t sum = 0;
  for (int64_t c = 0; c < depth; ++c) {
    const int32_t scaled =
        lg_multiply_by_quantized_multiplier(x[c] - max, d->input_multiplier,
                                            d->input_left_shift) +
        32767;
    const int16_t arg =
        (int16_t)(scaled < -32768 ? -32768 : (scaled > 32767 ? 32767 : scaled));
    out[c] = lg_quant_lut16_lookup(arg, d->exp_lut);
    sum = (int32_t)((uint32_t)sum + (uint32_t)out[c]);
  }
  /* 1 / sum through the 1 / (1 + x) table, the sum normalized to [1, 2). */
  int headroom_plus_one = 0;
  while (headroom_plus_one < 32 &&
         !((uint32_t)sum & (0x80000000u >> headroom_plus_one))) {
    ++headroom_plus_one;
  }
  const int32_t shifted =
      (int32_t)((((int64_t)sum << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
  int32_t centered = shifted - ((1 << 15) + (1 << 16));
  centered = centered < -32768 ? -32768 : (centered > 32767 ? 32767 : centered);
  const int16_t reciprocal =
      lg_quant_lut16_lookup((int16_t)centered, d->reciprocal_lut);
  const int right_shift = 31 - headroom_plus_one;
  const int64_t round = right_shift > 0 ? (int64_t)1 << (right_shift - 1) : 0;
  for (int64_t c = 0; c < depth; ++c) {
    int64_t r = ((int64_t)out[c] * reciprocal + round) >> right_shift;
    r = r < 0 ? 0 : (r > 32767 ? 32767 : r);
    out[c] = (int16_t)r;
  }
}

static TfLiteStatus lg_softmax_invoke(TfLiteContext* context,
                                      TfLiteNode* node) {
  const lg_softmax_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, data != NULL ? data->name : "SOFTMAX",
                  "invoked before a successful prepare");
    return kTfLiteError;
  }
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, data->name, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, data->name, kOutputTensor, &output));
  const int64_t count = data->rows * data->depth;
  if (lg_kernel_num_elements(input) != count ||
      lg_kernel_num_elements(output) != count) {
    lg_kernel_log(context, data->name, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (count == 0) return kTfLiteOk;
  if (input->data.data == NULL || output->data.data == NULL) {
    lg_kernel_log(context, data->name, "a tensor has no data");
    return kTfLiteError;
  }
  if (data->quantized && data->type == kTfLiteInt16) {
    for (int64_t r = 0; r < data->rows; ++r) {
      lg_softmax_row_int16(data, input->data.i16 + r * data->depth,
                           output->data.i16 + r * data->depth);
    }
    return kTfLiteOk;
  }
  if (data->quantized && data->type == kTfLiteUInt8) {
    for (int64_t r = 0; r < data->rows; ++r) {
      lg_softmax_row_uint8(data, input->data.uint8 + r * data->depth,
                           output->data.uint8 + r * data->depth);
    }
    return kTfLiteOk;
  }
  if (data->quantized) {
    for (int64_t r = 0; r < data->rows; ++r) {
      const int8_t* x = input->data.int8 + r * data->depth;
      int8_t* out = output->data.int8 + r * data->depth;
      if (data->log) {
        lg_log_softmax_row_int8(data, x, out);
      } else {
        lg_softmax_row_int8(data, x, out);
      }
    }
    return kTfLiteOk;
  }
  lg_softmax_job job = {.data = data,
                        .input = input->data.f,
                        .output = output->data.f,
                        .num_tasks = 1};
  lg_thread_pool* pool = lg_kernel_thread_pool(context);
  const int threads = lg_thread_pool_size(pool);
  if (threads > 1 && data->rows > 1 && count >= LG_SOFTMAX_MIN_PARALLEL) {
    job.num_tasks = lg_thread_pool_tasks(pool, data->rows);
  }
  lg_thread_pool_run(pool, lg_softmax_task, &job, job.num_tasks);
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(SOFTMAX, lg_softmax_init, lg_kernel_free_data,
                       lg_softmax_prepare, lg_softmax_invoke)

LG_KERNEL_REGISTRATION(LOG_SOFTMAX, lg_log_softmax_init, lg_kernel_free_data,
                       lg_softmax_prepare, lg_softmax_invoke)
