/* FULLY_CONNECTED, float32: output[b, o] = activation(sum_i input[b, i] *
 * weights[o, i] + bias[o]).
 *
 * The input [..., in_depth] is read as [batch, in_depth] with batch =
 * elements / in_depth. The output is [batch, out_depth], or with
 * keep_num_dims (version 5) the input's shape with the last dim replaced by
 * out_depth. The bias is optional (version 6: two inputs, or input 2 set to
 * kTfLiteOptionalTensor). Every other variant the versions up to 13 add
 * (quantized, hybrid, int16, shuffled or sparse weights) is rejected in
 * Prepare with a message naming the types or the format.
 *
 * Invoke splits rows (or, with few rows, output columns) over the context's
 * thread pool when the work is large enough. The dot product keeps eight
 * partial sums so that the compiler vectorizes it without -ffast-math; a
 * tuned GEMM replaces this later.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/interpreter.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/thread_pool.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_FC_OP "FULLY_CONNECTED"
/* Multiply-adds below which splitting over threads costs more than it
 * saves. */
#define LG_FC_MIN_PARALLEL_MACS (1 << 15)
/* Input rows computed together, so that each weight row is read once from
 * memory per block and reused from cache for every row of the block. */
#define LG_FC_ROW_BLOCK 8

enum {
  kInputTensor = 0,
  kWeightsTensor = 1,
  kBiasTensor = 2,
  kOutputTensor = 0,
};

typedef struct lg_fc_data {
  bool prepared;
  int batch;
  int in_depth;
  int out_depth;
  bool has_bias;
  float min, max;
} lg_fc_data;

/* One Invoke's work, shared read-only by its tasks. */
typedef struct lg_fc_job {
  const float* input;
  const float* weights;
  const float* bias; /* NULL without bias */
  float* output;
  int batch, in_depth, out_depth;
  float min, max;
  bool split_rows; /* tasks take row ranges, else output column ranges */
  int num_tasks;
} lg_fc_job;

static void* lg_fc_init(TfLiteContext* context, const char* buffer,
                        size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_fc_data));
}

static void lg_fc_free(TfLiteContext* context, void* buffer) {
  (void)context;
  free(buffer);
}

static TfLiteStatus lg_fc_check_types(TfLiteContext* context,
                                      const TfLiteTensor* input,
                                      const TfLiteTensor* weights,
                                      const TfLiteTensor* bias,
                                      const TfLiteTensor* output) {
  if (input->type != kTfLiteFloat32 || weights->type != kTfLiteFloat32) {
    lg_kernel_log(context, LG_FC_OP,
                  "input type %s with weights type %s is not supported "
                  "(expected FLOAT32 and FLOAT32)",
                  TfLiteTypeGetName(input->type),
                  TfLiteTypeGetName(weights->type));
    return kTfLiteError;
  }
  if (bias != NULL && bias->type != kTfLiteFloat32) {
    lg_kernel_log(context, LG_FC_OP,
                  "bias type %s is not supported (expected FLOAT32)",
                  TfLiteTypeGetName(bias->type));
    return kTfLiteError;
  }
  if (output->type != kTfLiteFloat32) {
    lg_kernel_log(context, LG_FC_OP,
                  "output type %s is not supported (expected FLOAT32)",
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  if (weights->sparsity != NULL) {
    lg_kernel_log(context, LG_FC_OP, "sparse weights are not supported");
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Checks the shapes and fills batch, in_depth and out_depth. */
static TfLiteStatus lg_fc_check_shapes(TfLiteContext* context, lg_fc_data* data,
                                       const TfLiteTensor* input,
                                       const TfLiteTensor* weights,
                                       const TfLiteTensor* bias,
                                       bool keep_num_dims) {
  char shape[64];
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, LG_FC_OP, "input", input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, LG_FC_OP, "weights", weights));
  if (weights->dims->size != 2) {
    lg_kernel_log(context, LG_FC_OP, "weights shape %s is not 2-D",
                  lg_kernel_format_shape(weights->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  data->out_depth = weights->dims->data[0];
  data->in_depth = weights->dims->data[1];
  if (data->in_depth == 0) {
    lg_kernel_log(context, LG_FC_OP, "weights shape %s has input depth 0",
                  lg_kernel_format_shape(weights->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  const int64_t elements = lg_kernel_num_elements(input);
  if (elements % data->in_depth != 0) {
    lg_kernel_log(context, LG_FC_OP,
                  "input shape %s has %lld elements, not a multiple of the "
                  "weights' input depth %d",
                  lg_kernel_format_shape(input->dims, shape, sizeof(shape)),
                  (long long)elements, data->in_depth);
    return kTfLiteError;
  }
  data->batch = (int)(elements / data->in_depth);
  if (keep_num_dims &&
      (input->dims->size == 0 ||
       input->dims->data[input->dims->size - 1] != data->in_depth)) {
    lg_kernel_log(context, LG_FC_OP,
                  "keep_num_dims needs the input's last dim to equal the "
                  "weights' input depth %d; input shape is %s",
                  data->in_depth,
                  lg_kernel_format_shape(input->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (bias != NULL) {
    TF_LITE_ENSURE_STATUS(
        lg_kernel_check_shape(context, LG_FC_OP, "bias", bias));
    if (lg_kernel_num_elements(bias) != data->out_depth) {
      lg_kernel_log(context, LG_FC_OP,
                    "bias shape %s does not hold %d elements (the weights' "
                    "output depth)",
                    lg_kernel_format_shape(bias->dims, shape, sizeof(shape)),
                    data->out_depth);
      return kTfLiteError;
    }
  }
  if ((int64_t)data->batch * data->out_depth > INT32_MAX) {
    lg_kernel_log(context, LG_FC_OP, "the output of %d x %d is too large",
                  data->batch, data->out_depth);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteIntArray* lg_fc_output_shape(const lg_fc_data* data,
                                          const TfLiteTensor* input,
                                          bool keep_num_dims) {
  if (keep_num_dims) {
    TfLiteIntArray* shape = TfLiteIntArrayCopy(input->dims);
    if (shape != NULL) shape->data[shape->size - 1] = data->out_depth;
    return shape;
  }
  TfLiteIntArray* shape = TfLiteIntArrayCreate(2);
  if (shape != NULL) {
    shape->data[0] = data->batch;
    shape->data[1] = data->out_depth;
  }
  return shape;
}

static TfLiteStatus lg_fc_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_fc_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_FC_OP, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, LG_FC_OP, 2, 3, 1));
  const TfLiteTensor* input;
  const TfLiteTensor* weights;
  const TfLiteTensor* bias;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_FC_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_FC_OP, kWeightsTensor, &weights));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_optional_input(context, node, LG_FC_OP, kBiasTensor, &bias));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_FC_OP, kOutputTensor, &output));

  const TfLiteFullyConnectedParams* params = node->builtin_data;
  const TfLiteFusedActivation activation =
      params != NULL ? params->activation : kTfLiteActNone;
  const bool keep_num_dims = params != NULL && params->keep_num_dims;
  if (params != NULL &&
      params->weights_format != kTfLiteFullyConnectedWeightsFormatDefault) {
    lg_kernel_log(context, LG_FC_OP,
                  "weights format %s is not supported (expected DEFAULT)",
                  params->weights_format ==
                          kTfLiteFullyConnectedWeightsFormatShuffled4x16Int8
                      ? "SHUFFLED4x16INT8"
                      : "UNKNOWN");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      lg_fc_check_types(context, input, weights, bias, output));
  TF_LITE_ENSURE_STATUS(lg_kernel_activation_range_float(
      context, LG_FC_OP, activation, &data->min, &data->max));
  TF_LITE_ENSURE_STATUS(
      lg_fc_check_shapes(context, data, input, weights, bias, keep_num_dims));
  data->has_bias = bias != NULL;

  TfLiteIntArray* shape = lg_fc_output_shape(data, input, keep_num_dims);
  if (shape == NULL) {
    lg_kernel_log(context, LG_FC_OP, "out of memory for the output shape");
    return kTfLiteError;
  }
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, shape));
  data->prepared = true;
  return kTfLiteOk;
}

/* The dot product of two rows. Eight independent partial sums let the
 * compiler keep them in one (or two) vector registers. */
static float lg_fc_dot(const float* restrict a, const float* restrict b,
                       int n) {
  float acc[8] = {0};
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int k = 0; k < 8; ++k) acc[k] += a[i + k] * b[i + k];
  }
  float sum = ((acc[0] + acc[4]) + (acc[1] + acc[5])) +
              ((acc[2] + acc[6]) + (acc[3] + acc[7]));
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

/* Computes rows [row0, row1) x columns [col0, col1) of the output. */
static void lg_fc_block(const lg_fc_job* job, int row0, int row1, int col0,
                        int col1) {
  const size_t in_depth = (size_t)job->in_depth;
  const size_t out_depth = (size_t)job->out_depth;
  for (int r = row0; r < row1; r += LG_FC_ROW_BLOCK) {
    const int r_end = r + LG_FC_ROW_BLOCK < row1 ? r + LG_FC_ROW_BLOCK : row1;
    for (int o = col0; o < col1; ++o) {
      const float* w = job->weights + (size_t)o * in_depth;
      const float bias = job->bias != NULL ? job->bias[o] : 0.0f;
      for (int b = r; b < r_end; ++b) {
        const float dot =
            lg_fc_dot(job->input + (size_t)b * in_depth, w, job->in_depth);
        job->output[(size_t)b * out_depth + (size_t)o] =
            lg_kernel_clamp_float(dot + bias, job->min, job->max);
      }
    }
  }
}

/* Task `index` of num_tasks equal shares of the rows or the columns. */
static void lg_fc_task(void* ctx, int index) {
  const lg_fc_job* job = ctx;
  const int total = job->split_rows ? job->batch : job->out_depth;
  const int begin = (int)((int64_t)total * index / job->num_tasks);
  const int end = (int)((int64_t)total * (index + 1) / job->num_tasks);
  if (job->split_rows) {
    lg_fc_block(job, begin, end, 0, job->out_depth);
  } else {
    lg_fc_block(job, 0, job->batch, begin, end);
  }
}

static TfLiteStatus lg_fc_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_fc_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, LG_FC_OP, "invoked before a successful prepare");
    return kTfLiteError;
  }
  const TfLiteTensor* input;
  const TfLiteTensor* weights;
  const TfLiteTensor* bias = NULL;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_FC_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_FC_OP, kWeightsTensor, &weights));
  if (data->has_bias) {
    TF_LITE_ENSURE_STATUS(
        lg_kernel_input(context, node, LG_FC_OP, kBiasTensor, &bias));
  }
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_FC_OP, kOutputTensor, &output));
  const int64_t out_elements = (int64_t)data->batch * data->out_depth;
  if (lg_kernel_num_elements(input) != (int64_t)data->batch * data->in_depth ||
      lg_kernel_num_elements(output) != out_elements) {
    lg_kernel_log(context, LG_FC_OP, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (out_elements == 0) return kTfLiteOk;
  if (input->data.f == NULL || weights->data.f == NULL ||
      (bias != NULL && bias->data.f == NULL) || output->data.f == NULL) {
    lg_kernel_log(context, LG_FC_OP, "a tensor has no data");
    return kTfLiteError;
  }

  lg_fc_job job = {
      .input = input->data.f,
      .weights = weights->data.f,
      .bias = bias != NULL ? bias->data.f : NULL,
      .output = output->data.f,
      .batch = data->batch,
      .in_depth = data->in_depth,
      .out_depth = data->out_depth,
      .min = data->min,
      .max = data->max,
      .split_rows = true,
      .num_tasks = 1,
  };
  lg_thread_pool* pool = lg_context_thread_pool(context);
  const int threads = lg_thread_pool_size(pool);
  const int64_t macs = out_elements * data->in_depth;
  if (threads > 1 && macs >= LG_FC_MIN_PARALLEL_MACS) {
    /* Rows when there are enough for every thread, else columns. */
    job.split_rows = data->batch >= threads;
    const int units = job.split_rows ? data->batch : data->out_depth;
    job.num_tasks = units < threads ? units : threads;
  }
  lg_thread_pool_run(pool, lg_fc_task, &job, job.num_tasks);
  return kTfLiteOk;
}

const TfLiteRegistration* lg_register_FULLY_CONNECTED(void) {
  static const TfLiteRegistration registration = {
      .init = lg_fc_init,
      .free = lg_fc_free,
      .prepare = lg_fc_prepare,
      .invoke = lg_fc_invoke,
      .builtin_code = kTfLiteBuiltinFullyConnected,
      .version = 1,
  };
  return &registration;
}
