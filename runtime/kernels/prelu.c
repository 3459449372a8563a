/* PRELU, float32: output = input >= 0 ? input : input * alpha, with alpha
 * broadcast against the input numpy-style (aligned at the last dim).
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
 * this one takes up to LG_KERNEL_MAX_RANK. Quantized PRELU is rejected.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/thread_pool.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
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

typedef struct lg_prelu_data {
  bool prepared;
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
  const TfLiteTensor* tensors[] = {input, alpha, output};
  const char* names[] = {"input", "alpha", "output"};
  for (int i = 0; i < 3; ++i) {
    if (tensors[i]->type != kTfLiteFloat32) {
      lg_kernel_log(context, LG_PRELU_OP,
                    "%s type %s is not supported (expected FLOAT32)", names[i],
                    TfLiteTypeGetName(tensors[i]->type));
      return kTfLiteError;
    }
  }
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

/* One Invoke's work, shared read-only by its tasks. */
typedef struct lg_prelu_job {
  const lg_prelu_data* data;
  const float* input;
  const float* alpha;
  float* output;
  int64_t rows;
  int num_tasks;
} lg_prelu_job;

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
  for (int64_t r = begin; r < end; ++r) {
    const float* x = job->input + r * inner;
    const float* a = job->alpha + lg_prelu_alpha_offset(data, r);
    float* out = job->output + r * inner;
    if (step == 0) {
      const float av = a[0];
      for (int64_t i = 0; i < inner; ++i)
        out[i] = x[i] >= 0.0f ? x[i] : x[i] * av;
    } else {
      for (int64_t i = 0; i < inner; ++i)
        out[i] = x[i] >= 0.0f ? x[i] : x[i] * a[i];
    }
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
  if (input->data.f == NULL || alpha->data.f == NULL ||
      output->data.f == NULL) {
    lg_kernel_log(context, LG_PRELU_OP, "a tensor has no data");
    return kTfLiteError;
  }
  lg_prelu_job job = {.data = data,
                      .input = input->data.f,
                      .alpha = alpha->data.f,
                      .output = output->data.f,
                      .rows = data->count / data->dims[data->rank - 1],
                      .num_tasks = 1};
  lg_thread_pool* pool = lg_kernel_thread_pool(context);
  const int threads = lg_thread_pool_size(pool);
  if (threads > 1 && job.rows > 1 && data->count >= LG_PRELU_MIN_PARALLEL) {
    job.num_tasks = job.rows < threads ? (int)job.rows : threads;
  }
  lg_thread_pool_run(pool, lg_prelu_task, &job, job.num_tasks);
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(PRELU, lg_prelu_init, lg_kernel_free_data,
                       lg_prelu_prepare, lg_prelu_invoke)
