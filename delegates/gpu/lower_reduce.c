/* GPU lowerings of the reduce family: AVERAGE_POOL_2D and MAX_POOL_2D
 * (shaders/opencl/pool.cl), MEAN, SUM and REDUCE_MAX (reduce.cl), SOFTMAX
 * (softmax.cl), RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR (resize.cl).
 *
 * Semantics are the CPU kernels' (runtime/kernels/pooling.c, reduce.c,
 * softmax.c, resize.c), which are tested against LiteRT:
 *   - pooling windows are cut at the input's edges and only their valid
 *     elements count; padding is TFLite's (the smaller half before);
 *   - reductions fold each output's elements in increasing input order, as
 *     the CPU does, so sums agree bit for bit however long they are;
 *     REDUCE_MAX of one long contiguous run per output uses a work group
 *     per output instead (a maximum does not depend on the order);
 *   - SOFTMAX subtracts the row maximum; wide rows use a work group each;
 *   - resize source coordinates are computed here, on the host, with the
 *     CPU kernel's float arithmetic, into a small constant table, so every
 *     index and weight is exactly the CPU's.
 * Channels are read as float4 where the channel count allows.
 *
 * Kernels index with 32-bit ints: tensors above INT32_MAX elements stay on
 * the CPU, as do empty inputs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/gpu/gpu_lower.h"
#include "runtime/kernels/mediapipe_ops.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

#define CHECK_ARGS                                \
  TfLiteContext *context, const TfLiteNode *node, \
      const TfLiteRegistration *registration, char *reason, size_t size

/* Work-group size of the kernels that need a fixed one (a power of two,
 * capped so that it also fits kernels whose own limit is below the
 * device's). */
#define GROUP_SIZE_CAP 128
/* A contiguous REDUCE_MAX run from which one work group per output beats
 * one work item per output. */
#define REDUCE_GROUP_MIN_RUN 1024
/* SOFTMAX rows from which one work group per row beats one work item. */
#define SOFTMAX_GROUP_MIN_DEPTH 128
/* Groups of merged dims on each side (kept, reduced) outside the innermost
 * one: 8 dims alternate into at most 4 of one kind. */
#define REDUCE_GROUPS 4
#define REDUCE_MAX_RANK 8

static const TfLiteTensor* tensor_of(const TfLiteContext* context,
                                     const TfLiteIntArray* list, int i) {
  return &context->tensors[list->data[i]];
}

static int rank_of(const TfLiteTensor* t) {
  return t->dims != NULL ? t->dims->size : -1;
}

/* Input 0 and output 0 are non-empty and small enough for int indexing. */
static bool check_sizes(const TfLiteContext* context, const TfLiteNode* node,
                        char* reason, size_t size) {
  if (node->inputs->size < 1 || node->outputs->size != 1) {
    snprintf(reason, size, "expects an input and 1 output.");
    return false;
  }
  const TfLiteTensor* in = tensor_of(context, node->inputs, 0);
  const TfLiteTensor* out = tensor_of(context, node->outputs, 0);
  if (in->dims == NULL || out->dims == NULL) {
    snprintf(reason, size, "tensors without a shape are not supported.");
    return false;
  }
  const size_t n_in = lg_gpu_elements(in), n_out = lg_gpu_elements(out);
  if (n_in == 0 || n_out == 0) {
    snprintf(reason, size, "empty tensors stay on the CPU.");
    return false;
  }
  if (n_in > INT32_MAX || n_out > INT32_MAX) {
    snprintf(reason, size, "tensors above %d elements are not supported.",
             INT32_MAX);
    return false;
  }
  return true;
}

/* The largest power of two within the device's work-group limit and
 * GROUP_SIZE_CAP. */
static size_t group_size(const lg_gpu_program* p) {
  size_t limit = lg_gpu_lower_max_work_group(p);
  if (limit > GROUP_SIZE_CAP) limit = GROUP_SIZE_CAP;
  size_t n = 1;
  while (n * 2 <= limit) n *= 2;
  return n;
}

/* ---- AVERAGE_POOL_2D, MAX_POOL_2D ---------------------------------------- */

bool lg_gpu_limits_pool(CHECK_ARGS) {
  (void)registration;
  if (!check_sizes(context, node, reason, size)) return false;
  const TfLitePoolParams* params = node->builtin_data;
  float lo, hi;
  const char* act;
  if (params == NULL ||
      !lg_gpu_activation(params->activation, &lo, &hi, &act)) {
    snprintf(reason, size, "the fused activation is not supported.");
    return false;
  }
  if (rank_of(tensor_of(context, node->inputs, 0)) != 4 ||
      rank_of(tensor_of(context, node->outputs, 0)) != 4) {
    snprintf(reason, size, "pooling needs a 4-D (NHWC) input and output.");
    return false;
  }
  return true;
}

/* TFLite's padding before a dim: half of the total, rounded down. */
static int pool_padding(int in, int filter, int stride, int out) {
  const int64_t total = ((int64_t)out - 1) * stride + filter - in;
  return total > 0 ? (int)(total / 2) : 0;
}

TfLiteStatus lg_gpu_lower_pool(lg_gpu_program* p, TfLiteContext* context,
                               const TfLiteNode* node,
                               const TfLiteRegistration* reg) {
  const TfLitePoolParams* params = node->builtin_data;
  const int* id = tensor_of(context, node->inputs, 0)->dims->data;
  const int* od = tensor_of(context, node->outputs, 0)->dims->data;
  const int channels = id[3];
  const int vec = channels % 4 == 0 ? 4 : 1;
  char what[64];
  snprintf(what, sizeof(what), "%s over a %dx%d window",
           reg->builtin_code == kTfLiteBuiltinMaxPool2d ? "MAX_POOL_2D"
                                                        : "AVERAGE_POOL_2D",
           params->filter_height, params->filter_width);
  if (lg_gpu_lower_check_loops(
          p, (int64_t)params->filter_height * (params->filter_width + 1) + 1,
          what) != kTfLiteOk) {
    return kTfLiteError;
  }
  float lo, hi;
  const char* act;
  lg_gpu_activation(params->activation, &lo, &hi, &act);
  char defines[64];
  snprintf(defines, sizeof(defines), "-DLG_MAX=%d -DLG_VEC=%d %s",
           reg->builtin_code == kTfLiteBuiltinMaxPool2d ? 1 : 0, vec, act);
  const lg_gpu_operand args[] = {
      LG_GPU_TENSOR(node->inputs->data[0]),
      LG_GPU_TENSOR(node->outputs->data[0]),
      LG_GPU_INT(id[1]),
      LG_GPU_INT(id[2]),
      LG_GPU_INT(channels / vec),
      LG_GPU_INT(od[1]),
      LG_GPU_INT(od[2]),
      LG_GPU_INT(od[0] * od[1]),
      LG_GPU_INT(params->stride_height),
      LG_GPU_INT(params->stride_width),
      LG_GPU_INT(params->filter_height),
      LG_GPU_INT(params->filter_width),
      LG_GPU_INT(pool_padding(id[1], params->filter_height,
                              params->stride_height, od[1])),
      LG_GPU_INT(pool_padding(id[2], params->filter_width, params->stride_width,
                              od[2])),
      LG_GPU_FLOAT(lo),
      LG_GPU_FLOAT(hi),
  };
  const size_t global[3] = {(size_t)(channels / vec), (size_t)od[2],
                            (size_t)od[0] * (size_t)od[1]};
  return lg_gpu_lower_dispatch(p, "pool", defines, args,
                               (int)(sizeof(args) / sizeof(args[0])), 3, global,
                               NULL);
}

/* ---- MediaPipe's MaxPoolingWithArgmax2D and MaxUnpooling2D --------------
 *
 * Their custom options are a raw TfLitePoolParams (mediapipe_ops.h); the
 * shapes are the CPU kernels' (already in the context). Positions travel
 * as floats, as MediaPipe stores them. */

bool lg_gpu_limits_mediapipe_pool(CHECK_ARGS) {
  TfLitePoolParams params;
  float lo, hi;
  const char* act;
  if (!lg_mediapipe_pool_params(node, &params) ||
      !lg_gpu_activation(params.activation, &lo, &hi, &act) || act[0] != '\0') {
    snprintf(reason, size, "unreadable options or an unsupported activation.");
    return false;
  }
  (void)registration;
  const TfLiteIntArray* lists[2] = {node->inputs, node->outputs};
  for (int l = 0; l < 2; ++l) {
    for (int i = 0; i < lists[l]->size; ++i) {
      const TfLiteTensor* t = tensor_of(context, lists[l], i);
      const size_t n = lg_gpu_elements(t);
      if (rank_of(t) != 4 || n == 0 || n > INT32_MAX) {
        snprintf(reason, size, "needs non-empty 4-D (NHWC) tensors.");
        return false;
      }
    }
  }
  return true;
}

/* The arguments both kernels share after their buffers: the pooled side's
 * [in_h, in_w] against the unpooled side's [out_h, out_w]. */
static void window_args(const int* pooled, const int* full,
                        const TfLitePoolParams* w, bool unpool,
                        lg_gpu_operand* args) {
  const int* in = unpool ? pooled : full;
  const int* out = unpool ? full : pooled;
  const lg_gpu_operand list[12] = {
      LG_GPU_INT(in[1]),
      LG_GPU_INT(in[2]),
      LG_GPU_INT(in[3]),
      LG_GPU_INT(out[1]),
      LG_GPU_INT(out[2]),
      LG_GPU_INT(out[0] * out[1]),
      LG_GPU_INT(w->stride_height),
      LG_GPU_INT(w->stride_width),
      LG_GPU_INT(w->filter_height),
      LG_GPU_INT(w->filter_width),
      LG_GPU_INT(
          pool_padding(full[1], w->filter_height, w->stride_height, pooled[1])),
      LG_GPU_INT(
          pool_padding(full[2], w->filter_width, w->stride_width, pooled[2])),
  };
  memcpy(args, list, sizeof(list));
}

TfLiteStatus lg_gpu_lower_mediapipe_pool(lg_gpu_program* p,
                                         TfLiteContext* context,
                                         const TfLiteNode* node,
                                         const TfLiteRegistration* reg) {
  TfLitePoolParams w;
  lg_mediapipe_pool_params(node, &w);
  const bool unpool = strcmp(reg->custom_name, LG_MEDIAPIPE_MAX_UNPOOL) == 0;
  char what[96];
  snprintf(what, sizeof(what), "%s over a %dx%d window", reg->custom_name,
           w.filter_height, w.filter_width);
  if (lg_gpu_lower_check_loops(
          p, (int64_t)(w.filter_height + 1) * (w.filter_width + 2) + 1, what) !=
      kTfLiteOk) {
    return kTfLiteError;
  }
  /* The pooled side is the argmax's output and the unpooling's input. */
  const int* pooled = unpool ? tensor_of(context, node->inputs, 0)->dims->data
                             : tensor_of(context, node->outputs, 0)->dims->data;
  const int* full = unpool ? tensor_of(context, node->outputs, 0)->dims->data
                           : tensor_of(context, node->inputs, 0)->dims->data;
  lg_gpu_operand args[17];
  if (unpool) {
    args[0] = LG_GPU_TENSOR(node->inputs->data[0]);
    args[1] = LG_GPU_TENSOR(node->inputs->data[1]);
    args[2] = LG_GPU_TENSOR(node->outputs->data[0]);
  } else {
    args[0] = LG_GPU_TENSOR(node->inputs->data[0]);
    args[1] = LG_GPU_TENSOR(node->outputs->data[0]);
    args[2] = LG_GPU_TENSOR(node->outputs->data[1]);
  }
  window_args(pooled, full, &w, unpool, args + 3);
  int count = 15;
  if (!unpool) {
    float lo, hi;
    const char* act;
    lg_gpu_activation(w.activation, &lo, &hi, &act);
    args[count++] = LG_GPU_FLOAT(lo);
    args[count++] = LG_GPU_FLOAT(hi);
  }
  const int* out = unpool ? full : pooled;
  const size_t global[3] = {(size_t)out[3], (size_t)out[2],
                            (size_t)out[0] * (size_t)out[1]};
  return lg_gpu_lower_dispatch(p, unpool ? "max_unpool" : "pool_argmax", "",
                               args, count, 3, global, NULL);
}

/* ---- MEAN, SUM, REDUCE_MAX ----------------------------------------------- */

/* The loop plan of one reduction (see shaders/opencl/reduce.cl). */
typedef struct reduce_plan {
  int32_t table[4 * REDUCE_GROUPS];
  int64_t out_count;  /* output elements */
  int64_t fold_count; /* input elements folded into each output */
  int64_t inner;      /* extent of the innermost merged group */
  bool inner_reduced;
  int num_red; /* reduced groups outside the innermost */
} reduce_plan;

/* Marks the dims named by the constant axes tensor (negative axes count
 * from the end, duplicates are harmless); false when one is out of range
 * or the axes have no data. */
static bool reduce_mask(const TfLiteTensor* in, const TfLiteTensor* axes,
                        bool reduced[REDUCE_MAX_RANK]) {
  const int rank = in->dims->size;
  for (int i = 0; i < REDUCE_MAX_RANK; ++i) reduced[i] = false;
  const size_t count = lg_gpu_elements(axes);
  if (axes->type != kTfLiteInt32 || (count > 0 && axes->data.i32 == NULL)) {
    return false;
  }
  for (size_t i = 0; i < count; ++i) {
    const int32_t a = axes->data.i32[i];
    if (a < -rank || a >= rank) return false;
    reduced[a < 0 ? a + rank : a] = true;
  }
  return true;
}

/* Merges neighbouring dims that are both kept or both reduced (dims of 1
 * add nothing); writes the groups' sizes and whether each is reduced, and
 * returns their number (at least 1). */
static int reduce_merge(const TfLiteIntArray* dims, const bool* reduced,
                        int64_t* sizes, bool* red, reduce_plan* p) {
  int n = 0;
  p->out_count = p->fold_count = 1;
  for (int i = 0; i < dims->size; ++i) {
    const int64_t d = dims->data[i];
    if (reduced[i]) {
      p->fold_count *= d;
    } else {
      p->out_count *= d;
    }
    if (d == 1) continue;
    if (n > 0 && red[n - 1] == reduced[i]) {
      sizes[n - 1] *= d;
    } else {
      sizes[n] = d;
      red[n++] = reduced[i];
    }
  }
  if (n == 0) { /* a single element */
    sizes[0] = 1;
    red[0] = false;
    n = 1;
  }
  return n;
}

/* Builds the plan; false when the groups do not fit the table (a rank
 * above 8). */
static bool reduce_make_plan(const TfLiteIntArray* dims, const bool* reduced,
                             reduce_plan* p) {
  int64_t sizes[REDUCE_MAX_RANK];
  bool red[REDUCE_MAX_RANK];
  const int n = reduce_merge(dims, reduced, sizes, red, p);
  p->inner = sizes[n - 1];
  p->inner_reduced = red[n - 1];
  int64_t strides[REDUCE_MAX_RANK];
  int64_t stride = p->inner;
  for (int k = n - 2; k >= 0; --k) {
    strides[k] = stride;
    stride *= sizes[k];
  }
  int kept[REDUCE_GROUPS], reds[REDUCE_GROUPS];
  int num_kept = 0, num_red = 0;
  for (int k = 0; k < n - 1; ++k) {
    if (red[k] ? num_red == REDUCE_GROUPS : num_kept == REDUCE_GROUPS) {
      return false;
    }
    if (red[k]) {
      reds[num_red++] = k;
    } else {
      kept[num_kept++] = k;
    }
  }
  /* Padded at the front: size 1, stride 0. */
  for (int j = 0; j < REDUCE_GROUPS; ++j) {
    const int ko = j - (REDUCE_GROUPS - num_kept);
    const int kr = j - (REDUCE_GROUPS - num_red);
    p->table[j] = ko >= 0 ? (int32_t)sizes[kept[ko]] : 1;
    p->table[REDUCE_GROUPS + j] = ko >= 0 ? (int32_t)strides[kept[ko]] : 0;
    p->table[2 * REDUCE_GROUPS + j] = kr >= 0 ? (int32_t)sizes[reds[kr]] : 1;
    p->table[3 * REDUCE_GROUPS + j] = kr >= 0 ? (int32_t)strides[reds[kr]] : 0;
  }
  p->num_red = num_red;
  return true;
}

bool lg_gpu_limits_reduce(CHECK_ARGS) {
  (void)registration;
  if (!check_sizes(context, node, reason, size)) return false;
  if (node->inputs->size != 2) {
    snprintf(reason, size, "expects an input and an axes tensor.");
    return false;
  }
  const TfLiteTensor* in = tensor_of(context, node->inputs, 0);
  bool reduced[REDUCE_MAX_RANK];
  reduce_plan plan;
  if (in->dims->size > REDUCE_MAX_RANK ||
      !reduce_mask(in, tensor_of(context, node->inputs, 1), reduced) ||
      !reduce_make_plan(in->dims, reduced, &plan)) {
    snprintf(reason, size,
             "needs constant int32 axes within the rank, rank at most %d.",
             REDUCE_MAX_RANK);
    return false;
  }
  return true;
}

/* Fails unless one invocation's loops fit the device
 * (lg_gpu_lower_check_loops): layout 2 strides over the row by the group and
 * halves the group; the others walk the reduced groups n0..n3 (the table's
 * entries 8-11) nested, layout 1 with the reduced row innermost. */
static TfLiteStatus reduce_check_loops(lg_gpu_program* p,
                                       const reduce_plan* plan, int layout,
                                       size_t group) {
  int64_t iterations = 4 + 32; /* outer_offset, the group's halvings */
  if (layout == 2) {
    iterations += (plan->inner + (int64_t)group - 1) / (int64_t)group;
  } else {
    int64_t nested = 1;
    for (int k = 0; k < 4; ++k) {
      nested *= plan->table[8 + k];
      iterations += nested;
    }
    if (layout == 1) iterations += nested * plan->inner;
  }
  char what[80];
  snprintf(what, sizeof(what), "a reduction of %lld elements per output",
           (long long)plan->fold_count);
  return lg_gpu_lower_check_loops(p, iterations, what);
}

TfLiteStatus lg_gpu_lower_reduce(lg_gpu_program* p, TfLiteContext* context,
                                 const TfLiteNode* node,
                                 const TfLiteRegistration* reg) {
  const TfLiteTensor* in = tensor_of(context, node->inputs, 0);
  bool reduced[REDUCE_MAX_RANK];
  reduce_plan plan;
  if (!reduce_mask(in, tensor_of(context, node->inputs, 1), reduced) ||
      !reduce_make_plan(in->dims, reduced, &plan)) {
    return lg_gpu_lower_fail(p, "reduction axes are not supported");
  }
  const int table = lg_gpu_lower_constant(p, plan.table, sizeof(plan.table));
  if (table < 0) return kTfLiteError;
  const bool max = reg->builtin_code == kTfLiteBuiltinReduceMax;
  int layout = plan.inner_reduced ? 1 : 0;
  if (max && plan.inner_reduced && plan.num_red == 0 &&
      plan.inner >= REDUCE_GROUP_MIN_RUN) {
    layout = 2;
  }
  const int vec = layout == 0 && plan.inner % 4 == 0 ? 4 : 1;
  const size_t local[1] = {group_size(p)};
  if (reduce_check_loops(p, &plan, layout, local[0]) != kTfLiteOk) {
    return kTfLiteError;
  }
  char defines[96];
  snprintf(defines, sizeof(defines), "-DLG_MAX=%d -DLG_LAYOUT=%d -DLG_VEC=%d",
           max ? 1 : 0, layout, vec);
  if (layout == 2) {
    snprintf(defines + strlen(defines), sizeof(defines) - strlen(defines),
             " -DLG_WG=%zu", local[0]);
  }
  /* Layout 0 counts output rows; the others count outputs. */
  const int64_t outputs =
      layout == 0 ? plan.out_count / plan.inner : plan.out_count;
  const lg_gpu_operand args[] = {
      LG_GPU_TENSOR(node->inputs->data[0]),
      LG_GPU_TENSOR(node->outputs->data[0]),
      LG_GPU_CONSTANT(table),
      LG_GPU_INT(outputs),
      LG_GPU_INT(plan.inner),
      LG_GPU_INT(reg->builtin_code == kTfLiteBuiltinMean),
      LG_GPU_FLOAT((float)plan.fold_count),
  };
  size_t global[2] = {(size_t)outputs, 1};
  if (layout == 0) {
    global[0] = (size_t)(plan.inner / vec);
    global[1] = (size_t)outputs;
  } else if (layout == 2) {
    global[0] = (size_t)outputs * local[0];
  }
  return lg_gpu_lower_dispatch(
      p, "reduce", defines, args, (int)(sizeof(args) / sizeof(args[0])),
      layout == 0 ? 2 : 1, global, layout == 2 ? local : NULL);
}

/* ---- SOFTMAX ------------------------------------------------------------- */

bool lg_gpu_limits_softmax(CHECK_ARGS) {
  (void)registration;
  if (!check_sizes(context, node, reason, size)) return false;
  if (rank_of(tensor_of(context, node->inputs, 0)) < 1) {
    snprintf(reason, size, "SOFTMAX needs an input of rank 1 or more.");
    return false;
  }
  return true;
}

TfLiteStatus lg_gpu_lower_softmax(lg_gpu_program* p, TfLiteContext* context,
                                  const TfLiteNode* node,
                                  const TfLiteRegistration* reg) {
  (void)reg;
  const TfLiteTensor* in = tensor_of(context, node->inputs, 0);
  const int depth = in->dims->data[in->dims->size - 1];
  const int rows = (int)(lg_gpu_elements(in) / (size_t)depth);
  const TfLiteSoftmaxParams* params = node->builtin_data;
  /* A missing options table means the schema default, as on the CPU. */
  const float beta = params != NULL ? params->beta : 0.0f;
  const lg_gpu_operand args[] = {
      LG_GPU_TENSOR(node->inputs->data[0]),
      LG_GPU_TENSOR(node->outputs->data[0]),
      LG_GPU_INT(rows),
      LG_GPU_INT(depth),
      LG_GPU_FLOAT(beta),
  };
  /* Three passes over the row: a group's items share them. */
  const size_t group = depth < SOFTMAX_GROUP_MIN_DEPTH ? 1 : group_size(p);
  char what[64];
  snprintf(what, sizeof(what), "SOFTMAX over %d values", depth);
  if (lg_gpu_lower_check_loops(
          p, 3 * ((depth + (int64_t)group - 1) / (int64_t)group) + 64, what) !=
      kTfLiteOk) {
    return kTfLiteError;
  }
  if (depth < SOFTMAX_GROUP_MIN_DEPTH) {
    const size_t global[1] = {(size_t)rows};
    return lg_gpu_lower_dispatch(p, "softmax", NULL, args, 5, 1, global, NULL);
  }
  const size_t local[1] = {group_size(p)};
  const size_t global[1] = {(size_t)rows * local[0]};
  char defines[32];
  snprintf(defines, sizeof(defines), "-DLG_WG=%zu", local[0]);
  return lg_gpu_lower_dispatch(p, "softmax", defines, args, 5, 1, global,
                               local);
}

/* ---- RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR ---------------------------- */

/* Both params structs hold (align_corners, half_pixel_centers). */
static void resize_flags(int32_t code, const void* params, bool* align,
                         bool* half_pixel) {
  *align = *half_pixel = false;
  if (params == NULL) return;
  if (code == kTfLiteBuiltinResizeBilinear) {
    const TfLiteResizeBilinearParams* b = params;
    *align = b->align_corners;
    *half_pixel = b->half_pixel_centers;
  } else {
    const TfLiteResizeNearestNeighborParams* n = params;
    *align = n->align_corners;
    *half_pixel = n->half_pixel_centers;
  }
}

bool lg_gpu_limits_resize(CHECK_ARGS) {
  if (!check_sizes(context, node, reason, size)) return false;
  if (rank_of(tensor_of(context, node->inputs, 0)) != 4 ||
      rank_of(tensor_of(context, node->outputs, 0)) != 4) {
    snprintf(reason, size, "resizing needs a 4-D (NHWC) input and output.");
    return false;
  }
  bool align, half_pixel;
  resize_flags(registration->builtin_code, node->builtin_data, &align,
               &half_pixel);
  if (align && half_pixel) {
    snprintf(reason, size,
             "align_corners and half_pixel_centers cannot both be true.");
    return false;
  }
  return true;
}

/* The CPU kernel's scale from `in` to `out` positions (out > 0). */
static float resize_scale(int in, int out, bool align) {
  if (align && out > 1) return (float)(in - 1) / (float)(out - 1);
  return (float)in / (float)out;
}

/* Bilinear entries of `out` positions along one dim: lower and upper
 * source index and the float bits of the upper weight. */
static void bilinear_entries(int in, int out, bool align, bool half_pixel,
                             int32_t* t) {
  const float scale = resize_scale(in, out, align);
  for (int v = 0; v < out; ++v) {
    const float src =
        half_pixel ? ((float)v + 0.5f) * scale - 0.5f : (float)v * scale;
    const int f = (int)floorf(src);
    const int c = (int)ceilf(src);
    const int lo = f > 0 ? f : 0;
    const float d = src - (float)lo;
    t[3 * v] = lo;
    t[3 * v + 1] = c < in - 1 ? c : in - 1;
    memcpy(&t[3 * v + 2], &d, sizeof(d));
  }
}

/* Nearest source index of `out` positions along one dim. */
static void nearest_entries(int in, int out, bool align, bool half_pixel,
                            int32_t* t) {
  const float scale = resize_scale(in, out, align);
  for (int v = 0; v < out; ++v) {
    const float src = ((float)v + (half_pixel ? 0.5f : 0.0f)) * scale;
    int index = align ? (int)roundf(src) : (int)floorf(src);
    if (index > in - 1) index = in - 1;
    if (half_pixel && index < 0) index = 0;
    t[v] = index;
  }
}

/* The coordinate table (resize.cl) as a device constant; its id or -1. */
static int resize_table(lg_gpu_program* p, bool nearest, const int* id,
                        const int* od, bool align, bool half_pixel) {
  const int per = nearest ? 1 : 3;
  const size_t count = (size_t)per * ((size_t)od[1] + (size_t)od[2]);
  int32_t* t = malloc(count * sizeof(int32_t));
  if (t == NULL) {
    lg_gpu_lower_fail(p, "out of host memory for a resize table");
    return -1;
  }
  if (nearest) {
    nearest_entries(id[1], od[1], align, half_pixel, t);
    nearest_entries(id[2], od[2], align, half_pixel, t + od[1]);
  } else {
    bilinear_entries(id[1], od[1], align, half_pixel, t);
    bilinear_entries(id[2], od[2], align, half_pixel, t + 3 * od[1]);
  }
  const int c = lg_gpu_lower_constant(p, t, count * sizeof(int32_t));
  free(t);
  return c;
}

TfLiteStatus lg_gpu_lower_resize(lg_gpu_program* p, TfLiteContext* context,
                                 const TfLiteNode* node,
                                 const TfLiteRegistration* reg) {
  const int* id = tensor_of(context, node->inputs, 0)->dims->data;
  const int* od = tensor_of(context, node->outputs, 0)->dims->data;
  bool align, half_pixel;
  resize_flags(reg->builtin_code, node->builtin_data, &align, &half_pixel);
  const bool nearest = reg->builtin_code == kTfLiteBuiltinResizeNearestNeighbor;
  const int table = resize_table(p, nearest, id, od, align, half_pixel);
  if (table < 0) return kTfLiteError;
  const int channels = id[3];
  const int vec = channels % 4 == 0 ? 4 : 1;
  char defines[48];
  snprintf(defines, sizeof(defines), "-DLG_VEC=%d%s", vec,
           nearest ? " -DLG_NEAREST" : "");
  const lg_gpu_operand args[] = {
      LG_GPU_TENSOR(node->inputs->data[0]),
      LG_GPU_TENSOR(node->outputs->data[0]),
      LG_GPU_CONSTANT(table),
      LG_GPU_INT(id[1]),
      LG_GPU_INT(id[2]),
      LG_GPU_INT(channels / vec),
      LG_GPU_INT(od[1]),
      LG_GPU_INT(od[2]),
      LG_GPU_INT(od[0] * od[1]),
  };
  const size_t global[3] = {(size_t)(channels / vec), (size_t)od[2],
                            (size_t)od[0] * (size_t)od[1]};
  return lg_gpu_lower_dispatch(p, "resize", defines, args,
                               (int)(sizeof(args) / sizeof(args[0])), 3, global,
                               NULL);
}
