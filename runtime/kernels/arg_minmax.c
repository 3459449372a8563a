/* ARG_MAX and ARG_MIN over one axis of a float32 or int32 input.
 *
 * Inputs: the data and an INT32 or INT64 axis tensor of one element
 * (negative counts from the end). The output drops that dim (a 1-D input
 * gives a scalar) and holds INT32 or INT64 indices as the op's output_type
 * says. A constant axis is read in Prepare; otherwise the output is dynamic
 * and sized in Invoke.
 *
 * Ties give the first index. NaN is handled as LiteRT's kernel does: a NaN
 * never wins over a number and a number always replaces a NaN, so the
 * result is the first extreme among the numbers, or 0 when every value is
 * NaN. An empty axis is an error (there is no index to give; LiteRT refuses
 * it too).
 *
 * The axis is scanned for LG_ARG_CHUNK inner positions at once (stride-1
 * reads); work units (outer index x inner chunk) are split over the thread
 * pool when the input is large enough. int8, uint8 and bool inputs
 * (versions 1..3) are rejected in Prepare with the type's name.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/thread_pool.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

/* Inner positions scanned together (stack state). */
#define LG_ARG_CHUNK 64
/* Input elements below which splitting over threads costs more than it
 * saves. */
#define LG_ARG_MIN_PARALLEL (1 << 15)
#define LG_ARG_INLINE static inline __attribute__((always_inline))

enum {
  kInputTensor = 0,
  kAxisTensor = 1,
  kOutputTensor = 0,
};

typedef struct lg_arg_data {
  bool is_max;
  const char* name;
  bool prepared;
  bool dynamic; /* the axis is read in Invoke */
  TfLiteType out_type;
  /* The input viewed as [outer, axis_size, inner]. */
  int64_t outer, axis_size, inner;
} lg_arg_data;

/* One Invoke's work, shared read-only by its tasks. */
typedef struct lg_arg_job {
  const lg_arg_data* data;
  TfLiteType type;
  const void* input;
  void* output;
  int64_t chunks; /* inner chunks per outer index */
  int64_t units;  /* outer * chunks */
  int num_tasks;
} lg_arg_job;

/* ---- Prepare ------------------------------------------------------------ */

static TfLiteStatus lg_arg_check_types(TfLiteContext* context,
                                       const lg_arg_data* data,
                                       const TfLiteTensor* input,
                                       const TfLiteTensor* axis,
                                       const TfLiteTensor* output) {
  const char* op = data->name;
  if (input->type != kTfLiteFloat32 && input->type != kTfLiteInt32) {
    lg_kernel_log(context, op,
                  "input type %s is not supported (expected FLOAT32 or INT32)",
                  TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  if (data->out_type != kTfLiteInt32 && data->out_type != kTfLiteInt64) {
    lg_kernel_log(context, op,
                  "output_type %s is not supported (expected INT32 or INT64)",
                  TfLiteTypeGetName(data->out_type));
    return kTfLiteError;
  }
  if (output->type != data->out_type) {
    lg_kernel_log(context, op, "output type %s differs from output_type %s",
                  TfLiteTypeGetName(output->type),
                  TfLiteTypeGetName(data->out_type));
    return kTfLiteError;
  }
  if (axis->type != kTfLiteInt32 && axis->type != kTfLiteInt64) {
    lg_kernel_log(context, op,
                  "axis type %s is not supported (expected INT32 or INT64)",
                  TfLiteTypeGetName(axis->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_arg_check_shapes(TfLiteContext* context, const char* op,
                                        const TfLiteTensor* input,
                                        const TfLiteTensor* axis) {
  char shape[64];
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "input", input));
  if (input->dims->size == 0) {
    lg_kernel_log(context, op, "input must have at least one dimension");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "axis", axis));
  if (lg_kernel_num_elements(axis) != 1) {
    lg_kernel_log(context, op, "axis must hold one element, got shape %s",
                  lg_kernel_format_shape(axis->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Reads the axis, splits the input around it and resizes the output. */
static TfLiteStatus lg_arg_configure(TfLiteContext* context, lg_arg_data* data,
                                     const TfLiteTensor* input,
                                     const TfLiteTensor* axis,
                                     TfLiteTensor* output) {
  const char* op = data->name;
  if (axis->data.raw == NULL) {
    lg_kernel_log(context, op, "axis tensor has no data");
    return kTfLiteError;
  }
  const int rank = input->dims->size;
  const int64_t a =
      axis->type == kTfLiteInt32 ? axis->data.i32[0] : axis->data.i64[0];
  if (a < -rank || a >= rank) {
    lg_kernel_log(context, op,
                  "axis %lld is out of range for an input of rank %d "
                  "(expected %d to %d)",
                  (long long)a, rank, -rank, rank - 1);
    return kTfLiteError;
  }
  const int k = (int)(a < 0 ? a + rank : a);
  const int* dims = input->dims->data;
  data->outer = data->inner = 1;
  for (int i = 0; i < k; ++i) data->outer *= dims[i];
  for (int i = k + 1; i < rank; ++i) data->inner *= dims[i];
  data->axis_size = dims[k];
  if (data->axis_size == 0) { /* LiteRT refuses it too */
    lg_kernel_log(context, op,
                  "axis %d of the input is empty: no index to give", k);
    return kTfLiteError;
  }
  TfLiteIntArray* shape = TfLiteIntArrayCreate(rank - 1);
  if (shape == NULL) {
    lg_kernel_log(context, op, "out of memory for the output shape");
    return kTfLiteError;
  }
  for (int i = 0, j = 0; i < rank; ++i) {
    if (i != k) shape->data[j++] = dims[i];
  }
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  return context->ResizeTensor(context, output, shape);
}

static TfLiteType lg_arg_params_type(const lg_arg_data* data,
                                     const void* params) {
  if (data->is_max) return ((const TfLiteArgMaxParams*)params)->output_type;
  return ((const TfLiteArgMinParams*)params)->output_type;
}

static TfLiteStatus lg_arg_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_arg_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, "ARG_MIN_MAX",
                  "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  const char* op = data->name;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  const TfLiteTensor* input;
  const TfLiteTensor* axis;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kAxisTensor, &axis));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  if (node->builtin_data == NULL) {
    lg_kernel_log(context, op, "missing %s parameters",
                  data->is_max ? "ArgMaxOptions" : "ArgMinOptions");
    return kTfLiteError;
  }
  data->out_type = lg_arg_params_type(data, node->builtin_data);
  TF_LITE_ENSURE_STATUS(lg_arg_check_types(context, data, input, axis, output));
  TF_LITE_ENSURE_STATUS(lg_arg_check_shapes(context, op, input, axis));
  data->dynamic = !lg_kernel_is_constant(axis);
  if (data->dynamic) {
    lg_kernel_set_dynamic(output);
  } else {
    TF_LITE_ENSURE_STATUS(lg_arg_configure(context, data, input, axis, output));
  }
  data->prepared = true;
  return kTfLiteOk;
}

/* ---- The loops ---------------------------------------------------------- */

/* Whether v replaces the current best b (see the NaN rule above). */
LG_ARG_INLINE bool lg_arg_better_f32(bool is_max, float v, float b) {
  const bool wins = is_max ? v > b : v < b;
  return wins || (isnan(b) && !isnan(v));
}

LG_ARG_INLINE bool lg_arg_better_i32(bool is_max, int32_t v, int32_t b) {
  return is_max ? v > b : v < b;
}

/* Writes m indices at position `at` of the output. */
static void lg_arg_store(const lg_arg_job* job, int64_t at, const int64_t* idx,
                         int m) {
  if (job->data->out_type == kTfLiteInt32) {
    int32_t* out = (int32_t*)job->output + at;
    for (int k = 0; k < m; ++k) out[k] = (int32_t)idx[k];
  } else {
    int64_t* out = (int64_t*)job->output + at;
    for (int k = 0; k < m; ++k) out[k] = idx[k];
  }
}

/* The input position of work unit u: outer index u / chunks, inner
 * positions [*i0, *i0 + *m) of chunk u % chunks. Returns the offset of its
 * first element. */
static inline int64_t lg_arg_unit(const lg_arg_job* job, int64_t u, int64_t* i0,
                                  int* m) {
  const lg_arg_data* d = job->data;
  const int64_t o = u / job->chunks;
  *i0 = (u % job->chunks) * LG_ARG_CHUNK;
  const int64_t rest = d->inner - *i0;
  *m = rest < LG_ARG_CHUNK ? (int)rest : LG_ARG_CHUNK;
  return o * d->axis_size * d->inner + *i0;
}

/* The index of one contiguous float run of n values (inner == 1): leading
 * NaNs are skipped (all NaN gives 0), then only a strictly better number
 * wins, which is the NaN rule above. */
LG_ARG_INLINE int64_t lg_arg_scan_f32(bool is_max, const float* x, int64_t n) {
  int64_t first = 0;
  while (first < n && isnan(x[first])) ++first;
  if (first == n) return 0;
  float best = x[first];
  int64_t idx = first;
  for (int64_t a = first + 1; a < n; ++a) {
    /* Selects rather than branches: new extremes are frequent in data
     * such as ramps, and a mispredicted branch costs more. */
    const bool take = is_max ? x[a] > best : x[a] < best;
    best = take ? x[a] : best;
    idx = take ? a : idx;
  }
  return idx;
}

/* Units [u0, u1) of a float32 input. */
LG_ARG_INLINE void lg_arg_units_f32(bool is_max, const lg_arg_job* job,
                                    int64_t u0, int64_t u1) {
  const lg_arg_data* d = job->data;
  if (d->inner == 1) { /* one unit per outer index, a contiguous axis */
    for (int64_t u = u0; u < u1; ++u) {
      int64_t idx = lg_arg_scan_f32(
          is_max, (const float*)job->input + u * d->axis_size, d->axis_size);
      lg_arg_store(job, u, &idx, 1);
    }
    return;
  }
  for (int64_t u = u0; u < u1; ++u) {
    int64_t i0;
    int m;
    const int64_t at = lg_arg_unit(job, u, &i0, &m);
    const float* x = (const float*)job->input + at;
    float best[LG_ARG_CHUNK];
    int64_t idx[LG_ARG_CHUNK];
    for (int k = 0; k < m; ++k) {
      best[k] = x[k];
      idx[k] = 0;
    }
    for (int64_t a = 1; a < d->axis_size; ++a) {
      const float* row = x + a * d->inner;
      for (int k = 0; k < m; ++k) {
        if (lg_arg_better_f32(is_max, row[k], best[k])) {
          best[k] = row[k];
          idx[k] = a;
        }
      }
    }
    lg_arg_store(job, (u / job->chunks) * d->inner + i0, idx, m);
  }
}

/* Units [u0, u1) of an int32 input. */
LG_ARG_INLINE void lg_arg_units_i32(bool is_max, const lg_arg_job* job,
                                    int64_t u0, int64_t u1) {
  const lg_arg_data* d = job->data;
  for (int64_t u = u0; u < u1; ++u) {
    int64_t i0;
    int m;
    const int64_t at = lg_arg_unit(job, u, &i0, &m);
    const int32_t* x = (const int32_t*)job->input + at;
    int32_t best[LG_ARG_CHUNK];
    int64_t idx[LG_ARG_CHUNK];
    for (int k = 0; k < m; ++k) {
      best[k] = x[k];
      idx[k] = 0;
    }
    for (int64_t a = 1; a < d->axis_size; ++a) {
      const int32_t* row = x + a * d->inner;
      for (int k = 0; k < m; ++k) {
        if (lg_arg_better_i32(is_max, row[k], best[k])) {
          best[k] = row[k];
          idx[k] = a;
        }
      }
    }
    lg_arg_store(job, (u / job->chunks) * d->inner + i0, idx, m);
  }
}

/* Task `index` of num_tasks equal shares of the work units. */
static void lg_arg_task(void* ctx, int index) {
  const lg_arg_job* job = ctx;
  const int64_t u0 = job->units * index / job->num_tasks;
  const int64_t u1 = job->units * (index + 1) / job->num_tasks;
  const bool is_float = job->type == kTfLiteFloat32;
  if (job->data->is_max) {
    if (is_float) {
      lg_arg_units_f32(true, job, u0, u1);
    } else {
      lg_arg_units_i32(true, job, u0, u1);
    }
  } else {
    if (is_float) {
      lg_arg_units_f32(false, job, u0, u1);
    } else {
      lg_arg_units_i32(false, job, u0, u1);
    }
  }
}

/* ---- Invoke ------------------------------------------------------------- */

static TfLiteStatus lg_arg_invoke(TfLiteContext* context, TfLiteNode* node) {
  lg_arg_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, data != NULL ? data->name : "ARG_MIN_MAX",
                  "invoked before a successful prepare");
    return kTfLiteError;
  }
  const char* op = data->name;
  const TfLiteTensor* input;
  const TfLiteTensor* axis;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kAxisTensor, &axis));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  if (data->dynamic) {
    TF_LITE_ENSURE_STATUS(lg_arg_configure(context, data, input, axis, output));
  }
  const int64_t out_count = data->outer * data->inner;
  if (lg_kernel_num_elements(input) != out_count * data->axis_size ||
      lg_kernel_num_elements(output) != out_count) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (out_count == 0) return kTfLiteOk;
  if (input->data.raw == NULL || output->data.raw == NULL) {
    lg_kernel_log(context, op, "a tensor has no data");
    return kTfLiteError;
  }
  const int64_t chunks = (data->inner + LG_ARG_CHUNK - 1) / LG_ARG_CHUNK;
  lg_arg_job job = {
      .data = data,
      .type = input->type,
      .input = input->data.raw,
      .output = output->data.raw,
      .chunks = chunks,
      .units = data->outer * chunks,
      .num_tasks = 1,
  };
  lg_thread_pool* pool = lg_kernel_thread_pool(context);
  const int threads = lg_thread_pool_size(pool);
  if (threads > 1 && out_count * data->axis_size >= LG_ARG_MIN_PARALLEL) {
    job.num_tasks = lg_thread_pool_tasks(pool, job.units);
  }
  lg_thread_pool_run(pool, lg_arg_task, &job, job.num_tasks);
  return kTfLiteOk;
}

/* ---- Registrations ------------------------------------------------------ */

static void* lg_arg_init_variant(bool is_max, const char* name) {
  lg_arg_data* data = calloc(1, sizeof(lg_arg_data));
  if (data != NULL) {
    data->is_max = is_max;
    data->name = name;
  }
  return data;
}

LG_KERNEL_FAMILY_REGISTRATION(ARG_MAX, lg_arg, true)
LG_KERNEL_FAMILY_REGISTRATION(ARG_MIN, lg_arg, false)
