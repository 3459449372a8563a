/* GPU lowerings of the reduce family (ops/ops.def): AVERAGE_POOL_2D and
 * MAX_POOL_2D (shaders/kernels/pool.lgk), MEAN, SUM, REDUCE_PROD,
 * REDUCE_MAX and REDUCE_MIN (reduce.lgk), CUMSUM (cumsum.lgk).
 *
 * Semantics are the CPU kernels' (runtime/kernels/pooling.c, reduce.c),
 * which are tested against LiteRT:
 *   - pooling windows are cut at the input's edges and only their valid
 *     elements count; padding is TFLite's (the smaller half before);
 *   - reductions fold each output's elements in increasing input order, as
 *     the CPU does, so sums and products agree bit for bit however long
 *     they are;
 *     REDUCE_MAX of one long contiguous run per output uses a work group
 *     per output instead (a maximum does not depend on the order);
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
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

/* A contiguous REDUCE_MAX run from which one work group per output beats
 * one work item per output. */
#define REDUCE_GROUP_MIN_RUN 1024
/* Groups of merged dims on each side (kept, reduced) outside the innermost
 * one: 8 dims alternate into at most 4 of one kind. */
#define REDUCE_GROUPS 4
#define REDUCE_MAX_RANK 8

/* ---- AVERAGE_POOL_2D, MAX_POOL_2D ---------------------------------------- */

bool lg_gpu_limits_pool(LG_GPU_CHECK_ARGS) {
  (void)registration;
  if (!lg_gpu_lower_check_sizes(context, node, reason, size)) return false;
  const TfLitePoolParams* params = node->builtin_data;
  float lo, hi;
  const char* act;
  if (params == NULL ||
      !lg_gpu_activation(params->activation, &lo, &hi, &act)) {
    snprintf(reason, size, "the fused activation is not supported.");
    return false;
  }
  if (lg_gpu_rank(lg_gpu_node_tensor(context, node->inputs, 0)) != 4 ||
      lg_gpu_rank(lg_gpu_node_tensor(context, node->outputs, 0)) != 4) {
    snprintf(reason, size, "pooling needs a 4-D (NHWC) input and output.");
    return false;
  }
  return true;
}

/* TFLite's padding before a dim: half of the total, rounded down. */
TfLiteStatus lg_gpu_lower_pool(lg_gpu_program* p, TfLiteContext* context,
                               const TfLiteNode* node,
                               const TfLiteRegistration* reg) {
  const TfLitePoolParams* params = node->builtin_data;
  const int* id = lg_gpu_node_tensor(context, node->inputs, 0)->dims->data;
  const int* od = lg_gpu_node_tensor(context, node->outputs, 0)->dims->data;
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
      LG_GPU_INT(lg_gpu_pool_padding(id[1], params->filter_height,
                                     params->stride_height, od[1])),
      LG_GPU_INT(lg_gpu_pool_padding(id[2], params->filter_width,
                                     params->stride_width, od[2])),
      LG_GPU_FLOAT(lo),
      LG_GPU_FLOAT(hi),
  };
  const size_t global[3] = {(size_t)(channels / vec), (size_t)od[2],
                            (size_t)od[0] * (size_t)od[1]};
  return lg_gpu_lower_dispatch(p, "pool", defines, args,
                               (int)(sizeof(args) / sizeof(args[0])), 3, global,
                               NULL);
}

/* ---- MEAN, SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN ---------------------- */

/* reduce.lgk's LG_RED: 0 sum (and mean), 1 max, 2 min, 3 product. */
static int reduce_variant(int32_t code) {
  switch (code) {
    case kTfLiteBuiltinReduceMax:
      return 1;
    case kTfLiteBuiltinReduceMin:
      return 2;
    case kTfLiteBuiltinReduceProd:
      return 3;
    default:
      return 0;
  }
}

/* The loop plan of one reduction (see shaders/kernels/reduce.lgk). */
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

bool lg_gpu_limits_reduce(LG_GPU_CHECK_ARGS) {
  (void)registration;
  if (!lg_gpu_lower_check_sizes(context, node, reason, size)) return false;
  if (node->inputs->size != 2) {
    snprintf(reason, size, "expects an input and an axes tensor.");
    return false;
  }
  const TfLiteTensor* in = lg_gpu_node_tensor(context, node->inputs, 0);
  bool reduced[REDUCE_MAX_RANK];
  reduce_plan plan;
  if (in->dims->size > REDUCE_MAX_RANK ||
      !reduce_mask(in, lg_gpu_node_tensor(context, node->inputs, 1), reduced) ||
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
  const TfLiteTensor* in = lg_gpu_node_tensor(context, node->inputs, 0);
  bool reduced[REDUCE_MAX_RANK];
  reduce_plan plan;
  if (!reduce_mask(in, lg_gpu_node_tensor(context, node->inputs, 1), reduced) ||
      !reduce_make_plan(in->dims, reduced, &plan)) {
    return lg_gpu_lower_fail(p, "reduction axes are not supported");
  }
  const int table = lg_gpu_lower_constant(p, plan.table, sizeof(plan.table));
  if (table < 0) return kTfLiteError;
  const int variant = reduce_variant(reg->builtin_code);
  const bool max = variant == 1;
  int layout = plan.inner_reduced ? 1 : 0;
  if (max && plan.inner_reduced && plan.num_red == 0 &&
      plan.inner >= REDUCE_GROUP_MIN_RUN) {
    layout = 2;
  }
  const int vec = layout == 0 && plan.inner % 4 == 0 ? 4 : 1;
  const size_t local[1] = {lg_gpu_lower_group_size(p)};
  if (reduce_check_loops(p, &plan, layout, local[0]) != kTfLiteOk) {
    return kTfLiteError;
  }
  char defines[96];
  snprintf(defines, sizeof(defines), "-DLG_RED=%d -DLG_LAYOUT=%d -DLG_VEC=%d",
           variant, layout, vec);
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

/* ---- CUMSUM ---------------------------------------------------------------
 *
 * One work item per line along the axis (cumsum.lgk), summing in the CPU
 * kernel's order. */

/* The axis (constant int32, one value, negative from the end) as a dim of
 * `in`; false when it is missing or out of range. */
static bool cumsum_axis(const TfLiteTensor* in, const TfLiteTensor* axis,
                        int* out) {
  const int rank = in->dims->size;
  if (axis->type != kTfLiteInt32 || lg_gpu_elements(axis) != 1 ||
      axis->data.i32 == NULL) {
    return false;
  }
  const int32_t a = axis->data.i32[0];
  if (a < -rank || a >= rank) return false;
  *out = a < 0 ? a + rank : a;
  return true;
}

bool lg_gpu_limits_cumsum(LG_GPU_CHECK_ARGS) {
  (void)registration;
  if (!lg_gpu_lower_check_sizes(context, node, reason, size)) return false;
  int axis;
  if (node->inputs->size != 2 || node->builtin_data == NULL ||
      !cumsum_axis(lg_gpu_node_tensor(context, node->inputs, 0),
                   lg_gpu_node_tensor(context, node->inputs, 1), &axis)) {
    snprintf(reason, size,
             "needs the params and one constant int32 axis within the rank.");
    return false;
  }
  return true;
}

TfLiteStatus lg_gpu_lower_cumsum(lg_gpu_program* p, TfLiteContext* context,
                                 const TfLiteNode* node,
                                 const TfLiteRegistration* reg) {
  (void)reg;
  const TfLiteTensor* in = lg_gpu_node_tensor(context, node->inputs, 0);
  const TfLiteCumsumParams* params = node->builtin_data;
  int axis;
  if (!cumsum_axis(in, lg_gpu_node_tensor(context, node->inputs, 1), &axis)) {
    return lg_gpu_lower_fail(p, "CUMSUM's axis is not supported");
  }
  int64_t inner = 1;
  for (int d = axis + 1; d < in->dims->size; ++d) inner *= in->dims->data[d];
  const int64_t len = in->dims->data[axis];
  const int64_t lines = (int64_t)lg_gpu_elements(in) / len;
  char what[64];
  snprintf(what, sizeof(what), "a running sum of %lld elements",
           (long long)len);
  if (lg_gpu_lower_check_loops(p, len + 1, what) != kTfLiteOk) {
    return kTfLiteError;
  }
  char defines[48];
  snprintf(defines, sizeof(defines), "-DLG_EXCLUSIVE=%d -DLG_REVERSE=%d",
           params->exclusive ? 1 : 0, params->reverse ? 1 : 0);
  const lg_gpu_operand args[] = {
      LG_GPU_TENSOR(node->inputs->data[0]),
      LG_GPU_TENSOR(node->outputs->data[0]),
      LG_GPU_INT(lines),
      LG_GPU_INT(len),
      LG_GPU_INT(inner),
  };
  const size_t global[1] = {(size_t)lines};
  return lg_gpu_lower_dispatch(p, "cumsum", defines, args,
                               (int)(sizeof(args) / sizeof(args[0])), 1, global,
                               NULL);
}
