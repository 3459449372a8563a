/* RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL and MULTINOMIAL: numbers from the
 * Philox4x32-10 generator (philox.h) seeded from RandomOptions' seed and
 * seed2, drawn as TFLite's random_ops.cc draws them, so that nonzero seeds
 * give LiteRT's numbers bit for bit.
 *
 * Prepare seeds the generator of the node with the options' seed and seed2
 * (ints, as in TFLite, sign-extended to 64 bits; seed 0 and seed2 0 mean
 * "any seed": two 64-bit values from the system's entropy are used
 * instead, as TFLite does); every Invoke carries on from where the previous one
 * left the counter. Preparing again (AllocateTensors after a resize) starts the
 * sequence again, as in TFLite.
 *
 * RANDOM_UNIFORM / RANDOM_STANDARD_NORMAL: input 0 is the output shape (a
 * 1-D INT32 tensor); a constant shape shapes the output in Prepare, any
 * other makes it dynamic. Each block of four words gives the next four
 * outputs (fewer at the end, the rest of the block is dropped): uniform
 * floats in [0, 1), or two Box-Muller pairs.
 *
 * MULTINOMIAL: logits [batch, classes] (FLOAT32) and num_samples (an INT32
 * scalar) give [batch, num_samples] class indices (INT32 or INT64). Per
 * Invoke the node's generator is copied, then moved on by
 * batch * round_up(num_samples, 4) * 512 blocks (TensorFlow's fixed
 * advance); the copy gives two words per sample, a double in [0, 1) scaled
 * by the row's total; the sample is the first class whose running sum of
 * exp(logit - max finite logit) (non-finite logits add nothing) exceeds it.
 * Invoke keeps no per-class memory: each sample walks the running sums
 * again, which gives the very sums (same order, same operations).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/philox.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

typedef struct lg_random_data {
  lg_philox rng;
} lg_random_data;

static void* lg_random_init(TfLiteContext* context, const char* buffer,
                            size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_random_data));
}

/* Two 64-bit values for an unseeded node: /dev/urandom, else the clock, a
 * process counter and an address mixed through splitmix64. */
static uint64_t lg_random_mix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static void lg_random_entropy(const void* node, uint64_t seeds[2]) {
  FILE* f = fopen("/dev/urandom", "rb");
  if (f != NULL) {
    size_t got = fread(seeds, sizeof(uint64_t), 2, f);
    fclose(f);
    if (got == 2) return;
  }
  static uint64_t calls;
  struct timespec ts = {0, 0};
  timespec_get(&ts, TIME_UTC);
  uint64_t z = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
  z ^= (uint64_t)(uintptr_t)node ^ (++calls << 48) ^ (uint64_t)clock();
  seeds[0] = lg_random_mix(z);
  seeds[1] = lg_random_mix(seeds[0] ^ z);
}

/* Seeds the node's generator from its options. */
static TfLiteStatus lg_random_seed(TfLiteContext* context, TfLiteNode* node,
                                   const char* op) {
  lg_random_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, op, "no per-node data (out of memory in Init)");
    return kTfLiteError;
  }
  const TfLiteRandomParams* params = node->builtin_data;
  uint64_t seeds[2] = {0, 0};
  if (params != NULL) {
    seeds[0] = (uint64_t)(int64_t)params->seed;
    seeds[1] = (uint64_t)(int64_t)params->seed2;
  }
  if (seeds[0] == 0 && seeds[1] == 0) lg_random_entropy(node, seeds);
  lg_philox_seed(&data->rng, seeds[0], seeds[1]);
  return kTfLiteOk;
}

/* ---- RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL ------------------------------*/

/* Resizes the output to the values of the shape input. */
static TfLiteStatus lg_random_shape(TfLiteContext* context, const char* op,
                                    const TfLiteTensor* shape,
                                    TfLiteTensor* output) {
  int64_t values[LG_SHAPE_MAX_RANK];
  int count = 0;
  if (lg_kernel_num_elements(shape) > LG_SHAPE_MAX_RANK) {
    lg_kernel_log(context, op,
                  "shape has %lld elements, more than the %d dims supported",
                  (long long)lg_kernel_num_elements(shape), LG_SHAPE_MAX_RANK);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_read_ints(context, op, "shape", shape,
                                           LG_SHAPE_MAX_RANK, values, &count));
  int dims[LG_SHAPE_MAX_RANK];
  int64_t elements = 1;
  for (int i = 0; i < count; ++i) {
    if (values[i] < 0) {
      lg_kernel_log(context, op, "shape dim %d is negative (%lld)", i,
                    (long long)values[i]);
      return kTfLiteError;
    }
    elements = lg_shape_mul_capped(elements, values[i], INT32_MAX);
    dims[i] = (int)values[i];
  }
  if (elements >= INT32_MAX) {
    lg_kernel_log(context, op, "shape has 2^31 or more elements");
    return kTfLiteError;
  }
  return lg_shape_resize(context, op, output, dims, count);
}

static TfLiteStatus lg_random_prepare_common(TfLiteContext* context,
                                             TfLiteNode* node, const char* op) {
  const TfLiteTensor* shape;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 1, 1, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &shape));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "shape", shape->type,
                                            LG_SHAPE_TYPE(kTfLiteInt32)));
  if (shape->dims->size != 1) {
    lg_kernel_log(context, op, "shape must be 1-D, got rank %d",
                  shape->dims->size);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "output", output->type,
                                            LG_SHAPE_TYPE(kTfLiteFloat32)));
  TF_LITE_ENSURE_STATUS(lg_random_seed(context, node, op));
  if (!lg_kernel_is_constant(shape)) {
    lg_kernel_set_dynamic(output);
    return kTfLiteOk;
  }
  return lg_random_shape(context, op, shape, output);
}

static TfLiteStatus lg_random_uniform_prepare(TfLiteContext* context,
                                              TfLiteNode* node) {
  return lg_random_prepare_common(context, node, "RANDOM_UNIFORM");
}

static TfLiteStatus lg_random_normal_prepare(TfLiteContext* context,
                                             TfLiteNode* node) {
  return lg_random_prepare_common(context, node, "RANDOM_STANDARD_NORMAL");
}

/* Shapes a dynamic output; returns the output with data checked. */
static TfLiteStatus lg_random_output(TfLiteContext* context, TfLiteNode* node,
                                     const char* op, TfLiteTensor** output) {
  *output = &context->tensors[node->outputs->data[0]];
  if ((*output)->allocation_type == kTfLiteDynamic) {
    const TfLiteTensor* shape = &context->tensors[node->inputs->data[0]];
    TF_LITE_ENSURE_STATUS(lg_random_shape(context, op, shape, *output));
  }
  return lg_shape_check_data(context, op, "output", *output);
}

static TfLiteStatus lg_random_uniform_invoke(TfLiteContext* context,
                                             TfLiteNode* node) {
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_random_output(context, node, "RANDOM_UNIFORM", &output));
  lg_random_data* data = node->user_data;
  float* out = output->data.f;
  const int64_t n = lg_kernel_num_elements(output);
  for (int64_t i = 0; i < n; i += 4) {
    uint32_t words[4];
    lg_philox_next(&data->rng, words);
    const int64_t take = n - i < 4 ? n - i : 4;
    for (int64_t j = 0; j < take; ++j) {
      out[i + j] = lg_philox_uint32_to_float(words[j]);
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_random_normal_invoke(TfLiteContext* context,
                                            TfLiteNode* node) {
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_random_output(context, node, "RANDOM_STANDARD_NORMAL", &output));
  lg_random_data* data = node->user_data;
  float* out = output->data.f;
  const int64_t n = lg_kernel_num_elements(output);
  for (int64_t i = 0; i < n; i += 4) {
    uint32_t words[4];
    lg_philox_next(&data->rng, words);
    const int64_t take = n - i < 4 ? n - i : 4;
    for (int64_t j = 0; j < take; j += 2) {
      float pair[2];
      lg_philox_box_muller(words[j], words[j + 1], &pair[0], &pair[1]);
      /* An odd count keeps the first of the last pair. */
      out[i + j] = pair[0];
      if (j + 1 < take) out[i + j + 1] = pair[1];
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(RANDOM_UNIFORM, lg_random_init, lg_kernel_free_data,
                       lg_random_uniform_prepare, lg_random_uniform_invoke)
LG_KERNEL_REGISTRATION(RANDOM_STANDARD_NORMAL, lg_random_init,
                       lg_kernel_free_data, lg_random_normal_prepare,
                       lg_random_normal_invoke)

/* ---- MULTINOMIAL ---------------------------------------------------------*/

#define LG_MULTINOMIAL_OP "MULTINOMIAL"

/* Checks the logits' and num_samples' shapes and values; *batch, *classes
 * and *samples from them. */
static TfLiteStatus lg_multinomial_sizes(TfLiteContext* context,
                                         const TfLiteTensor* logits,
                                         const TfLiteTensor* num_samples,
                                         int* batch, int* classes,
                                         int* samples) {
  const char* op = LG_MULTINOMIAL_OP;
  if (logits->dims->size != 2) {
    lg_kernel_log(context, op,
                  "logits must be 2-D [batch, classes], got rank %d",
                  logits->dims->size);
    return kTfLiteError;
  }
  if (num_samples->dims->size != 0) {
    lg_kernel_log(context, op, "num_samples must be a scalar, got rank %d",
                  num_samples->dims->size);
    return kTfLiteError;
  }
  *batch = logits->dims->data[0];
  *classes = logits->dims->data[1];
  if (*classes <= 0) {
    lg_kernel_log(context, op, "logits must have at least one class, got %d",
                  *classes);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, op, "num_samples", num_samples));
  *samples = num_samples->data.i32[0];
  if (*samples < 0) {
    lg_kernel_log(context, op, "num_samples must be >= 0, got %d", *samples);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_multinomial_prepare(TfLiteContext* context,
                                           TfLiteNode* node) {
  const char* op = LG_MULTINOMIAL_OP;
  const TfLiteTensor *logits, *num_samples;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &logits));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &num_samples));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "logits", logits->type,
                                            LG_SHAPE_TYPE(kTfLiteFloat32)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "num_samples",
                                            num_samples->type,
                                            LG_SHAPE_TYPE(kTfLiteInt32)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "output", output->type,
                                            LG_SHAPE_TYPES_INDEX));
  TF_LITE_ENSURE_STATUS(lg_random_seed(context, node, op));
  if (!lg_kernel_is_constant(logits) || !lg_kernel_is_constant(num_samples)) {
    lg_kernel_set_dynamic(output);
    return kTfLiteOk;
  }
  int batch, classes, samples;
  TF_LITE_ENSURE_STATUS(lg_multinomial_sizes(context, logits, num_samples,
                                             &batch, &classes, &samples));
  const int dims[2] = {batch, samples};
  return lg_shape_resize(context, op, output, dims, 2);
}

/* The running sum of exp(logit - max) over row[0..i] for each i, walked
 * until it exceeds `target`: the first such class, or `classes` when none
 * does (upper_bound over the cumulative sums). */
static int lg_multinomial_find(const float* row, int classes, double max_logit,
                               double target) {
  double total = 0.0;
  for (int i = 0; i < classes; ++i) {
    if (isfinite(row[i])) total += exp((double)row[i] - max_logit);
    if (total > target) return i;
  }
  return classes;
}

static TfLiteStatus lg_multinomial_invoke(TfLiteContext* context,
                                          TfLiteNode* node) {
  const char* op = LG_MULTINOMIAL_OP;
  const TfLiteTensor* logits = &context->tensors[node->inputs->data[0]];
  const TfLiteTensor* num_samples = &context->tensors[node->inputs->data[1]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  int batch, classes, samples;
  TF_LITE_ENSURE_STATUS(lg_multinomial_sizes(context, logits, num_samples,
                                             &batch, &classes, &samples));
  if (output->allocation_type == kTfLiteDynamic) {
    const int dims[2] = {batch, samples};
    TF_LITE_ENSURE_STATUS(lg_shape_resize(context, op, output, dims, 2));
  }
  if (output->dims->size != 2 || output->dims->data[0] != batch ||
      output->dims->data[1] != samples) {
    lg_kernel_log(context, op, "output is not [%d, %d]", batch, samples);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "logits", logits));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));

  lg_random_data* data = node->user_data;
  lg_philox rng = data->rng;
  const uint64_t rounded = ((uint64_t)samples + 3) / 4 * 4;
  lg_philox_skip(&data->rng, (uint64_t)batch * rounded * 2 * 256);

  uint32_t words[4];
  int used = 4;
  for (int b = 0; b < batch; ++b) {
    const float* row = logits->data.f + (size_t)b * (size_t)classes;
    float max = -3.402823466e+38f; /* the lowest float */
    for (int i = 0; i < classes; ++i) {
      if (isfinite(row[i]) && row[i] > max) max = row[i];
    }
    const double max_logit = (double)max;
    double total = 0.0;
    for (int i = 0; i < classes; ++i) {
      if (isfinite(row[i])) total += exp((double)row[i] - max_logit);
    }
    for (int s = 0; s < samples; ++s) {
      if (used == 4) {
        lg_philox_next(&rng, words);
        used = 0;
      }
      const double target =
          lg_philox_uint64_to_double(words[used], words[used + 1]) * total;
      used += 2;
      const int k = lg_multinomial_find(row, classes, max_logit, target);
      const size_t at = (size_t)b * (size_t)samples + (size_t)s;
      if (output->type == kTfLiteInt64) {
        output->data.i64[at] = k;
      } else {
        output->data.i32[at] = k;
      }
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(MULTINOMIAL, lg_random_init, lg_kernel_free_data,
                       lg_multinomial_prepare, lg_multinomial_invoke)
