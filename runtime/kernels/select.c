/* SELECT_V2: output = condition ? x : y, element by element, with the three
 * inputs broadcast against each other numpy-style (up to 6-D; TFLite's
 * contract is 5-D).
 *
 * SELECT (TFLite's first version) takes the same types with fewer shapes:
 * x and y of one shape, and a condition of that shape too, a scalar
 * (choosing all of x or all of y), or of rank 1 with x's first dimension
 * (choosing whole slices along it). Any rank works: the shapes are viewed
 * as [n] or [d0, rest] for the same broadcast plan. As in TFLite, when all
 * four tensors hold one element the output keeps its own shape.
 *
 * The condition is BOOL (a nonzero byte counts as true); x and y share one
 * type, any that TFLite's SELECT_V2 takes (BOOL, INT8, UINT8, INT16, INT32,
 * UINT32 (version 2), INT64, FLOAT32): the kernel copies elements and never
 * looks at their values, so quantized x and y pass through unchanged, as in
 * TFLite. The loop is planned in Prepare by the shared broadcast plan
 * (broadcast_plan.h) and split over threads for large outputs.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/thread_pool.h"
#include "runtime/kernels/broadcast_plan.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/common.h"

#define LG_SELECT_V2_OP "SELECT_V2"
/* As for the binary ops: below this many output elements one thread does
 * it all, and each task gets at least LG_SELECT_MIN_TASK. */
#define LG_SELECT_MIN_PARALLEL (1 << 16)
#define LG_SELECT_MIN_TASK (1 << 15)

enum {
  kConditionTensor = 0,
  kXTensor = 1,
  kYTensor = 2,
  kOutputTensor = 0,
};

typedef struct lg_select_data {
  const char* op; /* "SELECT" or "SELECT_V2" */
  bool v1;        /* SELECT's shapes rather than SELECT_V2's broadcasting */
  bool prepared;
  lg_broadcast_plan plan;
  lg_broadcast_row_fn row;
  int64_t elements[3]; /* of the inputs, checked again in Invoke */
} lg_select_data;

typedef struct lg_select_job {
  const lg_broadcast_plan* plan;
  const void* inputs[3];
  void* output;
  lg_broadcast_row_fn row;
  int num_tasks;
} lg_select_job;

/* Defines the row function for elements of type T: a repeated condition
 * copies one whole row of x or y; otherwise each element picks its own. */
#define LG_SELECT_ROW(name, T)                                                \
  static void name(void* ctx, const void* const* in, const ptrdiff_t* s,      \
                   void* out, int n) {                                        \
    (void)ctx;                                                                \
    const uint8_t* c = (const uint8_t*)in[0];                                 \
    const T* x = (const T*)in[1];                                             \
    const T* y = (const T*)in[2];                                             \
    T* o = (T*)out;                                                           \
    if (s[0] == 0) {                                                          \
      const T* src = c[0] != 0 ? x : y;                                       \
      if ((c[0] != 0 ? s[1] : s[2]) == 1) {                                   \
        memcpy(o, src, (size_t)n * sizeof(T));                                \
      } else {                                                                \
        for (int i = 0; i < n; ++i) o[i] = src[0];                            \
      }                                                                       \
      return;                                                                 \
    }                                                                         \
    for (int i = 0; i < n; ++i) o[i] = c[i] != 0 ? x[i * s[1]] : y[i * s[2]]; \
  }

LG_SELECT_ROW(lg_select_row8, uint8_t)
LG_SELECT_ROW(lg_select_row16, uint16_t)
LG_SELECT_ROW(lg_select_row32, uint32_t)
LG_SELECT_ROW(lg_select_row64, uint64_t)

/* The row function for x's element type, or NULL for a type SELECT_V2 does
 * not take. */
static lg_broadcast_row_fn lg_select_row_for(TfLiteType type) {
  switch (type) {
    case kTfLiteBool:
    case kTfLiteInt8:
    case kTfLiteUInt8:
      return lg_select_row8;
    case kTfLiteInt16:
      return lg_select_row16;
    case kTfLiteInt32:
    case kTfLiteUInt32:
    case kTfLiteFloat32:
      return lg_select_row32;
    case kTfLiteInt64:
      return lg_select_row64;
    default:
      return NULL;
  }
}

static TfLiteStatus lg_select_check_types(
    TfLiteContext* context, const char* op, const TfLiteTensor* condition,
    const TfLiteTensor* x, const TfLiteTensor* y, const TfLiteTensor* output) {
  if (condition->type != kTfLiteBool) {
    lg_kernel_log(context, op,
                  "condition type %s is not supported (expected BOOL)",
                  TfLiteTypeGetName(condition->type));
    return kTfLiteError;
  }
  if (x->type != y->type) {
    lg_kernel_log(context, op, "input types %s (x) and %s (y) differ",
                  TfLiteTypeGetName(x->type), TfLiteTypeGetName(y->type));
    return kTfLiteError;
  }
  if (lg_select_row_for(x->type) == NULL) {
    lg_kernel_log(context, op,
                  "input type %s is not supported (expected BOOL, INT8, "
                  "UINT8, INT16, INT32, UINT32, INT64 or FLOAT32)",
                  TfLiteTypeGetName(x->type));
    return kTfLiteError;
  }
  if (output->type != x->type) {
    lg_kernel_log(context, op, "output type %s differs from input type %s",
                  TfLiteTypeGetName(output->type), TfLiteTypeGetName(x->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* The broadcast of the three shapes into *out (the caller owns it). */
static TfLiteStatus lg_select_shape(TfLiteContext* context, const char* op,
                                    const TfLiteIntArray* const* shapes,
                                    TfLiteIntArray** out) {
  *out = NULL;
  int rank = 0;
  for (int j = 0; j < 3; ++j) {
    if (shapes[j]->size > rank) rank = shapes[j]->size;
  }
  char s0[128], s1[128], s2[128];
  if (rank > LG_BROADCAST_MAX_RANK) {
    lg_kernel_log(context, op,
                  "input shapes %s, %s and %s have rank %d, above the "
                  "supported %d",
                  lg_kernel_format_shape(shapes[0], s0, sizeof(s0)),
                  lg_kernel_format_shape(shapes[1], s1, sizeof(s1)),
                  lg_kernel_format_shape(shapes[2], s2, sizeof(s2)), rank,
                  LG_BROADCAST_MAX_RANK);
    return kTfLiteError;
  }
  TfLiteIntArray* shape = TfLiteIntArrayCreate(rank);
  if (shape == NULL) {
    lg_kernel_log(context, op, "out of memory for the output shape");
    return kTfLiteError;
  }
  for (int i = 0; i < rank; ++i) { /* i counts from the last dim */
    int d = 1;
    for (int j = 0; j < 3; ++j) {
      const TfLiteIntArray* a = shapes[j];
      const int dj = i < a->size ? a->data[a->size - 1 - i] : 1;
      if (dj == 1) continue;
      if (d != 1 && dj != d) {
        lg_kernel_log(context, op,
                      "input shapes %s (condition), %s (x) and %s (y) are "
                      "not broadcastable",
                      lg_kernel_format_shape(shapes[0], s0, sizeof(s0)),
                      lg_kernel_format_shape(shapes[1], s1, sizeof(s1)),
                      lg_kernel_format_shape(shapes[2], s2, sizeof(s2)));
        TfLiteIntArrayFree(shape);
        return kTfLiteError;
      }
      d = dj;
    }
    shape->data[rank - 1 - i] = d;
  }
  *out = shape;
  return kTfLiteOk;
}

/* Checks the shapes, builds the plan and resizes the output. */
static TfLiteStatus lg_select_prepare_shapes(TfLiteContext* context,
                                             lg_select_data* data,
                                             const TfLiteTensor* const* in,
                                             TfLiteTensor* output) {
  static const char* const kNames[3] = {"condition", "x", "y"};
  const char* op = data->op;
  const TfLiteIntArray* shapes[3];
  for (int j = 0; j < 3; ++j) {
    TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, kNames[j], in[j]));
    shapes[j] = in[j]->dims;
    data->elements[j] = lg_kernel_num_elements(in[j]);
  }
  size_t size = 0;
  TF_LITE_ENSURE_STATUS(TfLiteGetSizeOfType(in[1]->type, &size));
  TfLiteIntArray* shape = NULL;
  TF_LITE_ENSURE_STATUS(lg_select_shape(context, op, shapes, &shape));
  const int64_t elements = lg_kernel_num_elements_dims(shape);
  if (elements > INT32_MAX) {
    lg_kernel_log(context, op,
                  "the broadcast output has %lld elements, above %d",
                  (long long)elements, INT32_MAX);
    TfLiteIntArrayFree(shape);
    return kTfLiteError;
  }
  lg_broadcast_plan_build(&data->plan, 3, shapes, shape,
                          (const size_t[]){1, size, size}, size);
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  return context->ResizeTensor(context, output, shape);
}

/* SELECT's shapes (see the top): checks them, plans the copy over the
 * flattened views and resizes the output. */
static TfLiteStatus lg_select_prepare_shapes_v1(TfLiteContext* context,
                                                lg_select_data* data,
                                                const TfLiteTensor* const* in,
                                                TfLiteTensor* output) {
  static const char* const kNames[3] = {"condition", "x", "y"};
  const char* op = data->op;
  for (int j = 0; j < 3; ++j) {
    TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, kNames[j], in[j]));
    data->elements[j] = lg_kernel_num_elements(in[j]);
  }
  size_t size = 0;
  TF_LITE_ENSURE_STATUS(TfLiteGetSizeOfType(in[1]->type, &size));
  const TfLiteIntArray* c = in[kConditionTensor]->dims;
  const TfLiteIntArray* x = in[kXTensor]->dims;
  const TfLiteIntArray* y = in[kYTensor]->dims;
  const bool all_one = data->elements[0] == 1 && data->elements[1] == 1 &&
                       data->elements[2] == 1 &&
                       lg_kernel_num_elements(output) == 1;
  const bool same = TfLiteIntArrayEqual(c, x) && TfLiteIntArrayEqual(x, y);
  char s0[128], s1[128];
  if (!all_one && !TfLiteIntArrayEqual(x, y)) {
    lg_kernel_log(context, op, "x shape %s and y shape %s differ",
                  lg_kernel_format_shape(x, s0, sizeof(s0)),
                  lg_kernel_format_shape(y, s1, sizeof(s1)));
    return kTfLiteError;
  }
  const bool rank_one =
      c->size == 1 && x->size >= 1 && c->data[0] == x->data[0];
  if (!all_one && !same && c->size != 0 && !rank_one) {
    lg_kernel_log(context, op,
                  "condition shape %s must be x's shape %s, a scalar, or "
                  "rank 1 with x's first dimension",
                  lg_kernel_format_shape(c, s0, sizeof(s0)),
                  lg_kernel_format_shape(x, s1, sizeof(s1)));
    return kTfLiteError;
  }
  /* The views: [n] for x, y and the output; the condition [n], [] (a
   * scalar) or [d0, 1] against [d0, n / d0]. */
  const int n = (int)data->elements[1];
  const bool split = !all_one && !same && c->size == 1;
  TfLiteIntArray* cond_view = TfLiteIntArrayCreate(split                   ? 2
                                                   : c->size == 0 && !same ? 0
                                                                           : 1);
  TfLiteIntArray* data_view = TfLiteIntArrayCreate(split ? 2 : 1);
  TfLiteIntArray* out_shape = TfLiteIntArrayCopy(all_one ? output->dims : x);
  if (cond_view == NULL || data_view == NULL || out_shape == NULL) {
    TfLiteIntArrayFree(cond_view);
    TfLiteIntArrayFree(data_view);
    TfLiteIntArrayFree(out_shape);
    lg_kernel_log(context, op, "out of memory for the shapes");
    return kTfLiteError;
  }
  if (split) {
    int rest = 1;
    for (int i = 1; i < x->size; ++i) rest *= x->data[i];
    cond_view->data[0] = x->data[0];
    cond_view->data[1] = 1;
    data_view->data[0] = x->data[0];
    data_view->data[1] = rest;
  } else {
    if (cond_view->size == 1) cond_view->data[0] = n;
    data_view->data[0] = n;
  }
  lg_broadcast_plan_build(
      &data->plan, 3,
      (const TfLiteIntArray* const[]){cond_view, data_view, data_view},
      data_view, (const size_t[]){1, size, size}, size);
  TfLiteIntArrayFree(cond_view);
  TfLiteIntArrayFree(data_view);
  /* ResizeTensor owns `out_shape` from here on, also when it fails. */
  return context->ResizeTensor(context, output, out_shape);
}

static TfLiteStatus lg_select_prepare(TfLiteContext* context,
                                      TfLiteNode* node) {
  lg_select_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, "SELECT", "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  const char* op = data->op;
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 3, 3, 1));
  const TfLiteTensor* in[3];
  TfLiteTensor* output;
  for (int j = 0; j < 3; ++j) {
    TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, j, &in[j]));
  }
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  TF_LITE_ENSURE_STATUS(lg_select_check_types(
      context, op, in[kConditionTensor], in[kXTensor], in[kYTensor], output));
  data->row = lg_select_row_for(in[kXTensor]->type);
  if (data->v1) {
    TF_LITE_ENSURE_STATUS(
        lg_select_prepare_shapes_v1(context, data, in, output));
  } else {
    TF_LITE_ENSURE_STATUS(lg_select_prepare_shapes(context, data, in, output));
  }
  data->prepared = true;
  return kTfLiteOk;
}

/* Task `index` of num_tasks equal shares of the output elements. */
static void lg_select_task(void* ctx, int index) {
  const lg_select_job* job = ctx;
  const int64_t total = job->plan->elements;
  const int64_t begin = total * index / job->num_tasks;
  const int64_t end = total * (index + 1) / job->num_tasks;
  lg_broadcast_plan_walk(job->plan, begin, end, job->inputs, job->output,
                         job->row, NULL);
}

static void lg_select_run(TfLiteContext* context, lg_select_job* job) {
  lg_thread_pool* pool = lg_kernel_thread_pool(context);
  const int threads = lg_thread_pool_size(pool);
  const int64_t elements = job->plan->elements;
  job->num_tasks = 1;
  if (threads > 1 && elements >= LG_SELECT_MIN_PARALLEL) {
    job->num_tasks = lg_thread_pool_tasks(pool, elements / LG_SELECT_MIN_TASK);
  }
  if (job->num_tasks == 1) {
    lg_select_task(job, 0);
  } else {
    lg_thread_pool_run(pool, lg_select_task, job, job->num_tasks);
  }
}

static TfLiteStatus lg_select_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_select_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, data != NULL ? data->op : "SELECT",
                  "invoked before a successful prepare");
    return kTfLiteError;
  }
  const char* op = data->op;
  const TfLiteTensor* in[3];
  TfLiteTensor* output;
  for (int j = 0; j < 3; ++j) {
    TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, j, &in[j]));
  }
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kOutputTensor, &output));
  bool changed = lg_kernel_num_elements(output) != data->plan.elements;
  for (int j = 0; j < 3; ++j) {
    if (lg_kernel_num_elements(in[j]) != data->elements[j]) changed = true;
  }
  if (changed) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (data->plan.elements == 0) return kTfLiteOk;
  if (in[0]->data.data == NULL || in[1]->data.data == NULL ||
      in[2]->data.data == NULL || output->data.data == NULL) {
    lg_kernel_log(context, op, "a tensor has no data");
    return kTfLiteError;
  }
  lg_select_job job = {
      .plan = &data->plan,
      .inputs = {in[0]->data.data, in[1]->data.data, in[2]->data.data},
      .output = output->data.data,
      .row = data->row,
  };
  lg_select_run(context, &job);
  return kTfLiteOk;
}

static void* lg_select_init_variant(bool v1, const char* name) {
  lg_select_data* data = calloc(1, sizeof(lg_select_data));
  if (data != NULL) {
    data->op = name;
    data->v1 = v1;
  }
  return data;
}

LG_KERNEL_FAMILY_REGISTRATION(SELECT_V2, lg_select, false)
LG_KERNEL_FAMILY_REGISTRATION(SELECT, lg_select, true)
