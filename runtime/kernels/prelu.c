/* PRELU: output = input >= 0 ? input : input * alpha, with alpha broadcast
 * against the input numpy-style (aligned at the last dim). FLOAT32, and
 * INT8 / UINT8 quantized per tensor (input, alpha and output of one type).
 *
 * As in TFLite, the broadcast must not enlarge the input: the output has
 * the input's shape, and an alpha whose broadcast with the input differs
 * from the input's shape (a longer rank, or a dim > 1 where the input has
 * 1) is rejected in Prepare. The usual alphas are one value per channel
 * ([C] or [1, 1, C] against [N, H, W, C]) or a full tensor.
 *
 * Prepare folds the shape into a small loop plan: dims of size 1 are
 * dropped and neighbours along which alpha either repeats or advances are
 * merged, so a per-channel alpha becomes rows of C with alpha restarting at
 * each row. Invoke computes rows, split over the context's thread pool when
 * the tensor is large. TFLite's reference kernel broadcasts at most 4-D;
 * this one takes up to LG_KERNEL_MAX_RANK.
 *
 * Quantized, as TFLite's PreluPrepare / reference Prelu: with v = input -
 * input zero point, v >= 0 rescales v by input_scale / output_scale, and
 * v < 0 rescales v * (alpha - alpha zero point) by input_scale *
 * alpha_scale / output_scale (each ratio computed in float, as TFLite
 * does, then quantized as a multiplier); the output zero point is added
 * and the result clamped to the type's range. INT16 input (with INT8
 * alpha), which TFLite also computes, is rejected by name.
 */
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
#include "tensorflow/lite/c/common.h"

#define LG_PRELU_OP "PRELU"
/* Elements below which splitting over threads costs more than it saves. */
#define LG_PRELU_MIN_PARALLEL 32768
#define LG_PRELU_SHAPE_TEXT 96

enum {
  kInputTensor = 0,
  kAlphaTensor = 1,
  kOutputTensor = 0,
};

/* TFLite's PreluParams: offsets (minus the input and alpha zero points,
 * plus the output's), the identity and alpha rescales, the type's range. */
typedef struct lg_prelu_quant {
  int32_t input_offset, alpha_offset, output_offset;
  int32_t multiplier_identity, multiplier_alpha;
  int shift_identity, shift_alpha;
  int32_t min, max;
} lg_prelu_quant;

typedef struct lg_prelu_data {
  bool prepared;
  TfLiteType type;
  lg_prelu_quant quant; /* INT8 / UINT8 */
  /* The merged loop nest, outermost first; the last dim is the row. */
  int rank;
  int dims[LG_KERNEL_MAX_RANK];
  int64_t alpha_stride[LG_KERNEL_MAX_RANK]; /* 0 along dims alpha repeats */
  int64_t count;                            /* input (= output) elements */
  int64_t alpha_count;
} lg_prelu_data;

static void* lg_prelu_init(TfLiteContext* context, const char* buffer,
                           size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_prelu_data));
}

static TfLiteStatus lg_prelu_check_types(TfLiteContext* context,
                                         const TfLiteTensor* input,
                                         const TfLiteTensor* alpha,
                                         const TfLiteTensor* output) {
  const TfLiteType type = input->type;
  if (type != kTfLiteFloat32 && type != kTfLiteInt8 && type != kTfLiteUInt8) {
    lg_kernel_log(context, LG_PRELU_OP,
                  "input type %s is not supported (expected FLOAT32, INT8 or "
                  "UINT8)",
                  TfLiteTypeGetName(type));
    return kTfLiteError;
  }
  const TfLiteTensor* tensors[] = {alpha, output};
  const char* names[] = {"alpha", "output"};
  for (int i = 0; i < 2; ++i) {
    if (tensors[i]->type != type) {
      lg_kernel_log(context, LG_PRELU_OP,
                    "%s type %s is not supported (expected %s, the input's)",
                    names[i], TfLiteTypeGetName(tensors[i]->type),
                    TfLiteTypeGetName(type));
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

/* A rescale as (multiplier, shift). One of 2^31 or more would shift left by
 * 32 bits or more, which neither this kernel nor TFLite's computes. */
static TfLiteStatus lg_prelu_rescale(TfLiteContext* context, const char* what,
                                     float real, int32_t* multiplier,
                                     int* shift) {
  if (!(real < 2147483648.0f)) {
    lg_kernel_log(context, LG_PRELU_OP,
                  "the %s rescale %g is 2^31 or more (the output scale is "
                  "too small)",
                  what, (double)real);
    return kTfLiteError;
  }
  lg_quantize_multiplier((double)real, multiplier, shift);
  return kTfLiteOk;
}

/* INT8 / UINT8: reads and checks the three tensors' quantization. */
static TfLiteStatus lg_prelu_quant_params(TfLiteContext* context,
                                          const TfLiteTensor* input,
                                          const TfLiteTensor* alpha,
                                          const TfLiteTensor* output,
                                          lg_prelu_quant* q) {
  lg_quant_layout in_q, alpha_q, out_q;
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, LG_PRELU_OP, "input", input, &in_q));
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, LG_PRELU_OP, "alpha", alpha, &alpha_q));
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, LG_PRELU_OP, "output", output, &out_q));
  q->input_offset = -in_q.zero_point0;
  q->alpha_offset = -alpha_q.zero_point0;
  q->output_offset = out_q.zero_point0;
  /* Float arithmetic, as TFLite's (its scales are floats). */
  TF_LITE_ENSURE_STATUS(lg_prelu_rescale(
      context, "identity (input scale / output scale)",
      in_q.scale0 / out_q.scale0, &q->multiplier_identity, &q->shift_identity));
  TF_LITE_ENSURE_STATUS(lg_prelu_rescale(
      context, "alpha (input scale x alpha scale / output scale)",
      in_q.scale0 * alpha_q.scale0 / out_q.scale0, &q->multiplier_alpha,
      &q->shift_alpha));
  lg_quant_type_range(output->type, &q->min, &q->max);
  return kTfLiteOk;
}

/* Checks that alpha broadcasts to exactly the input's shape. */
static TfLiteStatus lg_prelu_check_shapes(TfLiteContext* context,
                                          const TfLiteTensor* input,
                                          const TfLiteTensor* alpha) {
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, LG_PRELU_OP, "input", input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, LG_PRELU_OP, "alpha", alpha));
  TfLiteIntArray* shape = NULL;
  TF_LITE_ENSURE_STATUS(lg_kernel_broadcast_shape(context, LG_PRELU_OP,
                                                  input->dims, alpha->dims,
                                                  LG_KERNEL_MAX_RANK, &shape));
  const bool same = TfLiteIntArrayEqual(shape, input->dims);
  TfLiteIntArrayFree(shape);
  if (!same) {
    char sa[LG_PRELU_SHAPE_TEXT], si[LG_PRELU_SHAPE_TEXT];
    lg_kernel_log(context, LG_PRELU_OP,
                  "alpha shape %s does not broadcast to input shape %s",
                  lg_kernel_format_shape(alpha->dims, sa, sizeof(sa)),
                  lg_kernel_format_shape(input->dims, si, sizeof(si)));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Builds the merged loop plan over the input's dims. */
static void lg_prelu_plan(lg_prelu_data* data, const TfLiteIntArray* in,
                          const TfLiteIntArray* alpha) {
  bool repeat[LG_KERNEL_MAX_RANK];
  int n = 0;
  for (int i = 0; i < in->size; ++i) {
    const int d = in->data[i];
    if (d == 1) continue; /* adds nothing to the loop nest */
    const int j = i - (in->size - alpha->size);
    const bool r = j < 0 || alpha->data[j] == 1; /* alpha repeats along i */
    if (n > 0 && repeat[n - 1] == r) {
      data->dims[n - 1] *= d;
    } else {
      data->dims[n] = d;
      repeat[n] = r;
      ++n;
    }
  }
  if (n == 0) { /* a single element */
    data->dims[0] = 1;
    repeat[0] = true;
    n = 1;
  }
  int64_t stride = 1;
  for (int k = n - 1; k >= 0; --k) {
    data->alpha_stride[k] = repeat[k] ? 0 : stride;
    if (!repeat[k]) stride *= data->dims[k];
  }
  data->rank = n;
}

static TfLiteStatus lg_prelu_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_prelu_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_PRELU_OP,
                  "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_io(context, node, LG_PRELU_OP, 2, 2, 1));
  const TfLiteTensor* input;
  const TfLiteTensor* alpha;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_PRELU_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_PRELU_OP, kAlphaTensor, &alpha));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_PRELU_OP, kOutputTensor, &output));
  TF_LITE_ENSURE_STATUS(lg_prelu_check_types(context, input, alpha, output));
  data->type = input->type;
  if (data->type != kTfLiteFloat32) {
    TF_LITE_ENSURE_STATUS(
        lg_prelu_quant_params(context, input, alpha, output, &data->quant));
  }
  TF_LITE_ENSURE_STATUS(lg_prelu_check_shapes(context, input, alpha));
  lg_prelu_plan(data, input->dims, alpha->dims);
  data->count = lg_kernel_num_elements(input);
  data->alpha_count = lg_kernel_num_elements(alpha);
  TfLiteIntArray* shape = TfLiteIntArrayCopy(input->dims);
  if (shape == NULL) {
    lg_kernel_log(context, LG_PRELU_OP, "out of memory for the output shape");
    return kTfLiteError;
  }
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, shape));
  data->prepared = true;
  return kTfLiteOk;
}

struct lg_prelu_job;

/* Computes `n` outputs from element `at` on, with alpha from element
 * `alpha_at` on, advancing by `step` (0: one alpha for the row, or 1). */
typedef void (*lg_prelu_row_fn)(const struct lg_prelu_job* job, int64_t at,
                                int64_t alpha_at, int64_t n, int64_t step);

/* One Invoke's work, shared read-only by its tasks. */
typedef struct lg_prelu_job {
  const lg_prelu_data* data;
  const void* input;
  const void* alpha;
  void* output;
  lg_prelu_row_fn row;
  int64_t rows;
  int num_tasks;
} lg_prelu_job;

static void lg_prelu_row_f32(const lg_prelu_job* job, int64_t at,
                             int64_t alpha_at, int64_t n, int64_t step) {
  const float* x = (const float*)job->input + at;
  const float* a = (const float*)job->alpha + alpha_at;
  lg_f32_prelu_row(x, a, step, (float*)job->output + at, n);
}

/* One quantized element; |v * alpha| <= 255^2 stays within int32. */
static inline int32_t lg_prelu_q(int32_t x, int32_t a,
                                 const lg_prelu_quant* q) {
  const int32_t v = x + q->input_offset;
  const int32_t r = v >= 0 ? lg_multiply_by_quantized_multiplier(
                                 v, q->multiplier_identity, q->shift_identity)
                           : lg_multiply_by_quantized_multiplier(
                                 v * (a + q->alpha_offset), q->multiplier_alpha,
                                 q->shift_alpha);
  const int32_t o = r + q->output_offset;
  return o < q->min ? q->min : (o > q->max ? q->max : o);
}

#define LG_PRELU_QUANT_ROW(name, T)                                       \
  static void name(const lg_prelu_job* job, int64_t at, int64_t alpha_at, \
                   int64_t n, int64_t step) {                             \
    const T* x = (const T*)job->input + at;                               \
    const T* a = (const T*)job->alpha + alpha_at;                         \
    T* out = (T*)job->output + at;                                        \
    const lg_prelu_quant* q = &job->data->quant;                          \
    for (int64_t i = 0; i < n; ++i)                                       \
      out[i] = (T)lg_prelu_q(x[i], a[i * step], q);                       \
  }
LG_PRELU_QUANT_ROW(lg_prelu_row_i8, int8_t)
LG_PRELU_QUANT_ROW(lg_prelu_row_u8, uint8_t)
#undef LG_PRELU_QUANT_ROW

/* The offset into alpha where row `row` of the plan starts. */
static int64_t lg_prelu_alpha_offset(const lg_prelu_data* data, int64_t row) {
  int64_t offset = 0;
  for (int k = data->rank - 2; k >= 0; --k) {
    offset += (row % data->dims[k]) * data->alpha_stride[k];
    row /= data->dims[k];
  }
  return offset;
}

static void lg_prelu_task(void* ctx, int index) {
  const lg_prelu_job* job = ctx;
  const lg_prelu_data* data = job->data;
  const int64_t inner = data->dims[data->rank - 1];
  const int64_t step = data->alpha_stride[data->rank - 1];
  const int64_t begin = job->rows * index / job->num_tasks;
  const int64_t end = job->rows * (index + 1) / job->num_tasks;
  if (data->type == kTfLiteFloat32 && step == 1 && data->rank == 2 &&
      data->alpha_stride[0] == 0) {
    /* One alpha per channel, the same for every row. */
    lg_f32_prelu_rows((const float*)job->input + begin * inner, job->alpha,
                      (float*)job->output + begin * inner, end - begin, inner);
    return;
  }
  for (int64_t r = begin; r < end; ++r) {
    job->row(job, r * inner, lg_prelu_alpha_offset(data, r), inner, step);
  }
}

static TfLiteStatus lg_prelu_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_prelu_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, LG_PRELU_OP, "invoked before a successful prepare");
    return kTfLiteError;
  }
  const TfLiteTensor* input;
  const TfLiteTensor* alpha;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_PRELU_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_PRELU_OP, kAlphaTensor, &alpha));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_PRELU_OP, kOutputTensor, &output));
  if (lg_kernel_num_elements(input) != data->count ||
      lg_kernel_num_elements(alpha) != data->alpha_count ||
      lg_kernel_num_elements(output) != data->count) {
    lg_kernel_log(context, LG_PRELU_OP, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (data->count == 0) return kTfLiteOk;
  if (input->data.data == NULL || alpha->data.data == NULL ||
      output->data.data == NULL) {
    lg_kernel_log(context, LG_PRELU_OP, "a tensor has no data");
    return kTfLiteError;
  }
  lg_prelu_job job = {.data = data,
                      .input = input->data.data,
                      .alpha = alpha->data.data,
                      .output = output->data.data,
                      .row = data->type == kTfLiteInt8    ? lg_prelu_row_i8
                             : data->type == kTfLiteUInt8 ? lg_prelu_row_u8
                                                          : lg_prelu_row_f32,
                      .rows = data->count / data->dims[data->rank - 1],
                      .num_tasks = 1};
  lg_thread_pool* pool = lg_kernel_thread_pool(context);
  const int threads = lg_thread_pool_size(pool);
  if (threads > 1 && job.rows > 1 && data->count >= LG_PRELU_MIN_PARALLEL) {
    job.num_tasks = lg_thread_pool_tasks(pool, job.rows);
  }
  lg_thread_pool_run(pool, lg_prelu_task, &job, job.num_tasks);
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(PRELU, lg_prelu_init, lg_kernel_free_data,
                       lg_prelu_prepare, lg_prelu_invoke)
