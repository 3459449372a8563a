/* GPU lowerings of the shape family: RESHAPE, SQUEEZE, CONCATENATION, PACK,
 * UNPACK, PAD, PADV2, MIRROR_PAD, SLICE, STRIDED_SLICE, TRANSPOSE, SPLIT,
 * SPLIT_V, TILE, GATHER, DEPTH_TO_SPACE, SPACE_TO_DEPTH, ONE_HOT.
 *
 * RESHAPE and SQUEEZE only rename bytes: the output aliases the input
 * (lg_gpu_lower_alias). GATHER is one dispatch of shape_gather.lgk, ONE_HOT
 * of one_hot.lgk. Every
 * other op is a list of remap jobs for remap.lgk: one job walks an N-D
 * iteration space and moves element (i_0, .., i_n) from the source
 * coordinate start_d + i_d * step_d of each dim (through a per-dim mode:
 * plain, constant outside the source (PAD), mirrored (MIRROR_PAD) or
 * wrapped (TILE)) to the destination offset base + sum(i_d * stride_d).
 * CONCATENATION is one job per input writing its slab of the output,
 * SPLIT / SPLIT_V one job per output reading its slab of the input, PACK
 * and UNPACK the same with a slice of the new (removed) axis per tensor,
 * DEPTH_TO_SPACE and SPACE_TO_DEPTH one job over a 6-D view.
 *
 * Each op has one builder (build_*) that reads the node's final shapes from
 * the context and its constant parameters (paddings, begin/end/strides,
 * perm, axis), and refuses with a reason what it cannot run; `check` runs
 * the builder and drops the jobs, `lower` runs it again and records one
 * dispatch per job, with all the node's job tables in one device constant.
 * lg_gpu_shape_plan_add simplifies each job (plain dims of 1 dropped,
 * neighbours that walk both tensors as one dim merged) and checks the lowest
 * and highest source and destination offsets it can reach against the tensors'
 * sizes, so no accepted plan makes the device read or write out of bounds.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/gpu/gpu_lower.h"
#include "delegates/gpu/lower_shape_internal.h"
#include "runtime/kernels/strided_slice_entry.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

/* ---- CONCATENATION, SPLIT, SPLIT_V --------------------------------------- */

static bool build_concatenation(lg_gpu_shape_plan* plan, const TfLiteNode* node,
                                int32_t code) {
  (void)code;
  const TfLiteConcatenationParams* params = node->builtin_data;
  const TfLiteTensor* out = lg_gpu_shape_output(plan->context, node, 0);
  if (params == NULL || out == NULL) {
    return lg_gpu_shape_fail(plan, "the params or the output are missing.");
  }
  int64_t od[LG_GPU_SHAPE_DIMS], os[LG_GPU_SHAPE_DIMS];
  int rank;
  lg_gpu_shape_dims(out, od, &rank);
  const int axis = params->axis < 0 ? params->axis + rank : params->axis;
  if (rank < 1 || axis < 0 || axis >= rank) {
    return lg_gpu_shape_fail(plan, "axis %d is out of range for rank %d.",
                             params->axis, rank);
  }
  if (params->activation != kTfLiteActNone) {
    const char* tanh_define;
    if (!lg_gpu_activation(params->activation, &plan->lo, &plan->hi,
                           &tanh_define) ||
        tanh_define[0] != '\0') {
      return lg_gpu_shape_fail(plan, "fused activation %d is not supported.",
                               (int)params->activation);
    }
    plan->clamp = true;
  }
  lg_gpu_shape_strides(od, rank, os);
  int64_t offset = 0;
  for (int i = 0; i < node->inputs->size; ++i) {
    const TfLiteTensor* in = lg_gpu_shape_input(plan->context, node, i);
    if (in == NULL) return lg_gpu_shape_fail(plan, "input %d is missing.", i);
    int64_t id[LG_GPU_SHAPE_DIMS], is[LG_GPU_SHAPE_DIMS];
    int in_rank;
    lg_gpu_shape_dims(in, id, &in_rank);
    bool match = in_rank == rank;
    for (int k = 0; match && k < rank; ++k) match = k == axis || id[k] == od[k];
    if (!match) {
      return lg_gpu_shape_fail(plan, "input %d's shape does not fit.", i);
    }
    lg_gpu_shape_strides(id, rank, is);
    lg_gpu_remap_job job;
    lg_gpu_shape_job_init(&job, node->inputs->data[i], node->outputs->data[0],
                          id, rank);
    for (int k = 0; k < rank; ++k) {
      job.dim[k].src_stride = is[k];
      job.dim[k].dst_stride = os[k];
    }
    job.dst_base = offset * os[axis];
    offset += id[axis];
    if (!lg_gpu_shape_plan_add(plan, &job)) return false;
  }
  if (offset != od[axis]) {
    return lg_gpu_shape_fail(plan, "the inputs fill %lld of the output's %lld.",
                             (long long)offset, (long long)od[axis]);
  }
  return true;
}

/* SPLIT (inputs: axis, input) and SPLIT_V (input, size_splits, axis): the
 * pieces' sizes are the outputs' final dims along the axis. */
static bool build_split(lg_gpu_shape_plan* plan, const TfLiteNode* node,
                        int32_t code) {
  const bool v = code == kTfLiteBuiltinSplitV;
  const int slot = v ? 0 : 1;
  const TfLiteTensor* in = lg_gpu_shape_input(plan->context, node, slot);
  if (in == NULL) return lg_gpu_shape_fail(plan, "the input is missing.");
  int64_t id[LG_GPU_SHAPE_DIMS], is[LG_GPU_SHAPE_DIMS], a;
  int rank;
  lg_gpu_shape_dims(in, id, &rank);
  if (!lg_gpu_shape_read_ints(
          plan, lg_gpu_shape_input(plan->context, node, v ? 2 : 0), "axis", 1,
          1, &a, NULL)) {
    return false;
  }
  if (rank < 1 || a < -rank || a >= rank) {
    return lg_gpu_shape_fail(plan, "axis %lld is out of range for rank %d.",
                             (long long)a, rank);
  }
  const int axis = (int)(a < 0 ? a + rank : a);
  lg_gpu_shape_strides(id, rank, is);
  int64_t offset = 0;
  for (int i = 0; i < node->outputs->size; ++i) {
    const TfLiteTensor* out = lg_gpu_shape_output(plan->context, node, i);
    if (out == NULL) return lg_gpu_shape_fail(plan, "output %d is missing.", i);
    int64_t od[LG_GPU_SHAPE_DIMS];
    int out_rank;
    lg_gpu_shape_dims(out, od, &out_rank);
    bool match = out_rank == rank;
    for (int k = 0; match && k < rank; ++k) match = k == axis || id[k] == od[k];
    if (!match) {
      return lg_gpu_shape_fail(plan, "output %d's shape does not fit.", i);
    }
    lg_gpu_remap_job job;
    lg_gpu_shape_job_init(&job, node->inputs->data[slot],
                          node->outputs->data[i], od, rank);
    for (int k = 0; k < rank; ++k) job.dim[k].src_stride = is[k];
    job.src_base = offset * is[axis];
    offset += od[axis];
    if (!lg_gpu_shape_plan_add(plan, &job)) return false;
  }
  if (offset != id[axis]) {
    return lg_gpu_shape_fail(plan, "the outputs take %lld of the input's %lld.",
                             (long long)offset, (long long)id[axis]);
  }
  return true;
}

/* ---- PACK, UNPACK ---------------------------------------------------------
 */

/* The dims and strides of a tensor of rank r + 1 (the packed one) with the
 * dim at `axis` left out. */
static void skip_axis(const int64_t* d, int rank, int axis, int64_t* out) {
  for (int k = 0, j = 0; k < rank; ++k) {
    if (k != axis) out[j++] = d[k];
  }
}

/* PACK: input i fills slice i along the new axis of the output; UNPACK:
 * output i takes slice i of the input. Every unpacked tensor has the
 * packed one's shape without the axis. */
static bool build_pack(lg_gpu_shape_plan* plan, const TfLiteNode* node,
                       int32_t code) {
  const bool pack = code == kTfLiteBuiltinPack;
  if (node->builtin_data == NULL) {
    return lg_gpu_shape_fail(plan, "the params are missing.");
  }
  const int axis_param =
      pack ? ((const TfLitePackParams*)node->builtin_data)->axis
           : ((const TfLiteUnpackParams*)node->builtin_data)->axis;
  const TfLiteTensor* packed = pack
                                   ? lg_gpu_shape_output(plan->context, node, 0)
                                   : lg_gpu_shape_input(plan->context, node, 0);
  if (packed == NULL) return lg_gpu_shape_fail(plan, "a tensor is missing.");
  int64_t pd[LG_GPU_SHAPE_DIMS], ps[LG_GPU_SHAPE_DIMS];
  int rank;
  lg_gpu_shape_dims(packed, pd, &rank);
  const int axis = axis_param < 0 ? axis_param + rank : axis_param;
  if (rank < 2) {
    return lg_gpu_shape_fail(plan, "scalars are not supported.");
  }
  if (axis < 0 || axis >= rank) {
    return lg_gpu_shape_fail(plan, "axis %d is out of range for rank %d.",
                             axis_param, rank);
  }
  const int count = pack ? node->inputs->size : node->outputs->size;
  if (count != pd[axis]) {
    return lg_gpu_shape_fail(plan, "%d tensors for a dim of %lld.", count,
                             (long long)pd[axis]);
  }
  lg_gpu_shape_strides(pd, rank, ps);
  int64_t ud[LG_GPU_SHAPE_DIMS], pstep[LG_GPU_SHAPE_DIMS];
  skip_axis(pd, rank, axis, ud);
  skip_axis(ps, rank, axis, pstep);
  for (int i = 0; i < count; ++i) {
    const TfLiteTensor* t = pack ? lg_gpu_shape_input(plan->context, node, i)
                                 : lg_gpu_shape_output(plan->context, node, i);
    if (t == NULL) return lg_gpu_shape_fail(plan, "tensor %d is missing.", i);
    int64_t td[LG_GPU_SHAPE_DIMS], ts[LG_GPU_SHAPE_DIMS];
    int t_rank;
    lg_gpu_shape_dims(t, td, &t_rank);
    bool match = t_rank == rank - 1;
    for (int k = 0; match && k < t_rank; ++k) match = td[k] == ud[k];
    if (!match) {
      return lg_gpu_shape_fail(plan, "tensor %d's shape does not fit.", i);
    }
    lg_gpu_shape_strides(td, t_rank, ts);
    const int packed_index =
        pack ? node->outputs->data[0] : node->inputs->data[0];
    const int other = pack ? node->inputs->data[i] : node->outputs->data[i];
    lg_gpu_remap_job job;
    lg_gpu_shape_job_init(&job, pack ? other : packed_index,
                          pack ? packed_index : other, td, t_rank);
    for (int k = 0; k < t_rank; ++k) {
      job.dim[k].src_stride = pack ? ts[k] : pstep[k];
      job.dim[k].dst_stride = pack ? pstep[k] : ts[k];
    }
    if (pack) {
      job.dst_base = i * ps[axis];
    } else {
      job.src_base = i * ps[axis];
    }
    if (!lg_gpu_shape_plan_add(plan, &job)) return false;
  }
  return true;
}

/* ---- PAD, PADV2, MIRROR_PAD ---------------------------------------------- */

static bool build_pad(lg_gpu_shape_plan* plan, const TfLiteNode* node,
                      int32_t code) {
  int64_t id[LG_GPU_SHAPE_DIMS], od[LG_GPU_SHAPE_DIMS], is[LG_GPU_SHAPE_DIMS],
      pads[2 * LG_GPU_SHAPE_DIMS];
  int rank, out_rank;
  if (!lg_gpu_shape_io(plan, node, 0, id, &rank, od, &out_rank)) return false;
  if (out_rank != rank) return lg_gpu_shape_fail(plan, "the ranks differ.");
  if (!lg_gpu_shape_read_ints(plan, lg_gpu_shape_input(plan->context, node, 1),
                              "paddings", 2 * rank, 2 * LG_GPU_SHAPE_DIMS, pads,
                              NULL)) {
    return false;
  }
  lg_gpu_remap_mode mode = LG_REMAP_CONSTANT;
  if (code == kTfLiteBuiltinMirrorPad) {
    const TfLiteMirrorPaddingParams* params = node->builtin_data;
    const TfLiteMirrorPaddingMode m =
        params != NULL ? params->mode : kTfLiteMirrorPaddingUnknown;
    if (m != kTfLiteMirrorPaddingReflect &&
        m != kTfLiteMirrorPaddingSymmetric) {
      return lg_gpu_shape_fail(plan, "mirror padding mode %d is unknown.",
                               (int)m);
    }
    mode = m == kTfLiteMirrorPaddingReflect ? LG_REMAP_REFLECT
                                            : LG_REMAP_SYMMETRIC;
  } else {
    const TfLiteTensor* value = lg_gpu_shape_input(plan->context, node, 2);
    if (value != NULL) {
      if (!lg_gpu_shape_is_constant(value) || lg_gpu_elements(value) < 1 ||
          !lg_gpu_constant_scalar(value, &plan->value)) {
        return lg_gpu_shape_fail(
            plan, "constant_values must be a constant float32 or quantized.");
      }
    }
  }
  lg_gpu_shape_strides(id, rank, is);
  lg_gpu_remap_job job;
  lg_gpu_shape_job_init(&job, node->inputs->data[0], node->outputs->data[0], od,
                        rank);
  for (int k = 0; k < rank; ++k) {
    const int64_t before = pads[2 * k], after = pads[2 * k + 1];
    /* REFLECT pads at most dim - 1 on a side, SYMMETRIC at most dim. */
    const int64_t limit = mode == LG_REMAP_REFLECT     ? id[k] - 1
                          : mode == LG_REMAP_SYMMETRIC ? id[k]
                                                       : INT_MAX;
    if (before < 0 || after < 0 || before > limit || after > limit ||
        id[k] + before + after != od[k]) {
      return lg_gpu_shape_fail(plan,
                               "paddings (%lld, %lld) of dim %d do not fit.",
                               (long long)before, (long long)after, k);
    }
    job.dim[k].src_stride = is[k];
    if (before == 0 && after == 0) continue;
    job.dim[k].mode = mode;
    job.dim[k].start = -before;
    job.dim[k].src_dim = id[k];
  }
  return lg_gpu_shape_plan_add(plan, &job);
}

/* ---- SLICE, STRIDED_SLICE ------------------------------------------------ */

static bool build_slice(lg_gpu_shape_plan* plan, const TfLiteNode* node,
                        int32_t code) {
  (void)code;
  int64_t id[LG_GPU_SHAPE_DIMS], od[LG_GPU_SHAPE_DIMS], is[LG_GPU_SHAPE_DIMS];
  int64_t begin[LG_GPU_SHAPE_DIMS], count[LG_GPU_SHAPE_DIMS];
  int rank, out_rank;
  if (!lg_gpu_shape_io(plan, node, 0, id, &rank, od, &out_rank)) return false;
  if (out_rank != rank) return lg_gpu_shape_fail(plan, "the ranks differ.");
  if (!lg_gpu_shape_read_ints(plan, lg_gpu_shape_input(plan->context, node, 1),
                              "begin", rank, LG_GPU_SHAPE_DIMS, begin, NULL) ||
      !lg_gpu_shape_read_ints(plan, lg_gpu_shape_input(plan->context, node, 2),
                              "size", rank, LG_GPU_SHAPE_DIMS, count, NULL)) {
    return false;
  }
  lg_gpu_shape_strides(id, rank, is);
  lg_gpu_remap_job job;
  lg_gpu_shape_job_init(&job, node->inputs->data[0], node->outputs->data[0], od,
                        rank);
  for (int k = 0; k < rank; ++k) {
    const int64_t n = count[k] == -1 ? id[k] - begin[k] : count[k];
    if (begin[k] < 0 || n < 0 || begin[k] + n > id[k] || n != od[k]) {
      return lg_gpu_shape_fail(plan,
                               "begin %lld, size %lld of dim %d do not fit.",
                               (long long)begin[k], (long long)count[k], k);
    }
    job.dim[k].src_stride = is[k];
    job.dim[k].start = begin[k];
  }
  return lg_gpu_shape_plan_add(plan, &job);
}

/* STRIDED_SLICE without ellipsis_mask and new_axis_mask (the CPU kernel's
 * expansion of those is private to it; TFLite's GPU rules refuse those masks
 * too). Each entry is resolved by lg_strided_slice_entry, the CPU kernel's
 * own rules. */
static bool build_strided_slice(lg_gpu_shape_plan* plan, const TfLiteNode* node,
                                int32_t code) {
  (void)code;
  const TfLiteStridedSliceParams* params = node->builtin_data;
  int64_t id[LG_GPU_SHAPE_DIMS], od[LG_GPU_SHAPE_DIMS], is[LG_GPU_SHAPE_DIMS];
  int64_t begin[LG_GPU_SHAPE_DIMS], end[LG_GPU_SHAPE_DIMS],
      strides[LG_GPU_SHAPE_DIMS];
  int rank, out_rank, n = 0;
  if (params == NULL) return lg_gpu_shape_fail(plan, "the params are missing.");
  if (!lg_gpu_shape_io(plan, node, 0, id, &rank, od, &out_rank)) return false;
  if (!lg_gpu_shape_read_ints(plan, lg_gpu_shape_input(plan->context, node, 1),
                              "begin", -1, rank, begin, &n) ||
      !lg_gpu_shape_read_ints(plan, lg_gpu_shape_input(plan->context, node, 2),
                              "end", n, rank, end, NULL) ||
      !lg_gpu_shape_read_ints(plan, lg_gpu_shape_input(plan->context, node, 3),
                              "strides", n, rank, strides, NULL)) {
    return false;
  }
  const unsigned used = (1u << n) - 1u;
  if (((unsigned)params->ellipsis_mask & used) != 0 ||
      ((unsigned)params->new_axis_mask & used) != 0) {
    return lg_gpu_shape_fail(plan,
                             "ellipsis_mask and new_axis_mask are not "
                             "supported.");
  }
  lg_gpu_shape_strides(id, rank, is);
  lg_gpu_remap_dim d[LG_GPU_SHAPE_DIMS];
  int64_t kept[LG_GPU_SHAPE_DIMS];
  int num_kept = 0;
  bool bad = false;
  int64_t elements = 1;
  for (int k = 0; k < rank; ++k) {
    bool keep = true;
    d[k] = (lg_gpu_remap_dim){.size = id[k], .step = 1, .mode = LG_REMAP_PLAIN};
    if (k < n) {
      if (strides[k] == 0) {
        return lg_gpu_shape_fail(plan, "strides[%d] is 0.", k);
      }
      lg_strided_entry e;
      lg_strided_slice_entry(params, k, begin[k], end[k], strides[k], id[k],
                             &e);
      d[k].size = e.count;
      d[k].start = e.start;
      d[k].step = e.step;
      keep = e.keep;
      if (e.bad) bad = true;
    }
    d[k].src_stride = is[k];
    elements *= d[k].size;
    if (keep) kept[num_kept++] = d[k].size;
  }
  if (bad && elements > 0) {
    return lg_gpu_shape_fail(plan, "an entry reads outside its input dim.");
  }
  if (num_kept != out_rank || !lg_gpu_shape_same_dims(kept, od, out_rank)) {
    return lg_gpu_shape_fail(plan,
                             "the output shape does not match the slice.");
  }
  int64_t counts[LG_GPU_SHAPE_DIMS];
  for (int k = 0; k < rank; ++k) counts[k] = d[k].size;
  lg_gpu_remap_job job;
  lg_gpu_shape_job_init(&job, node->inputs->data[0], node->outputs->data[0],
                        counts, rank);
  for (int k = 0; k < rank; ++k) {
    job.dim[k].src_stride = d[k].src_stride;
    job.dim[k].start = d[k].start;
    job.dim[k].step = d[k].step;
  }
  return lg_gpu_shape_plan_add(plan, &job);
}

/* ---- TRANSPOSE, TILE, DEPTH_TO_SPACE, SPACE_TO_DEPTH --------------------- */

static bool build_transpose(lg_gpu_shape_plan* plan, const TfLiteNode* node,
                            int32_t code) {
  (void)code;
  int64_t id[LG_GPU_SHAPE_DIMS], od[LG_GPU_SHAPE_DIMS], is[LG_GPU_SHAPE_DIMS],
      perm[LG_GPU_SHAPE_DIMS];
  int rank, out_rank;
  if (!lg_gpu_shape_io(plan, node, 0, id, &rank, od, &out_rank)) return false;
  if (out_rank != rank) return lg_gpu_shape_fail(plan, "the ranks differ.");
  if (!lg_gpu_shape_read_ints(plan, lg_gpu_shape_input(plan->context, node, 1),
                              "perm", rank, LG_GPU_SHAPE_DIMS, perm, NULL)) {
    return false;
  }
  bool seen[LG_GPU_SHAPE_DIMS] = {false};
  lg_gpu_shape_strides(id, rank, is);
  lg_gpu_remap_job job;
  lg_gpu_shape_job_init(&job, node->inputs->data[0], node->outputs->data[0], od,
                        rank);
  for (int k = 0; k < rank; ++k) {
    /* Negative entries count from the end, as in the CPU kernel. */
    const int64_t p = perm[k] < 0 ? perm[k] + rank : perm[k];
    if (p < 0 || p >= rank || seen[p] || id[p] != od[k]) {
      return lg_gpu_shape_fail(plan, "perm[%d] = %lld does not fit.", k,
                               (long long)perm[k]);
    }
    seen[p] = true;
    job.dim[k].src_stride = is[p];
  }
  return lg_gpu_shape_plan_add(plan, &job);
}

/* TILE: output dim k wraps around input dim k (the multiples are the
 * final shapes' ratio; a constant multiples tensor is checked against it). */
static bool build_tile(lg_gpu_shape_plan* plan, const TfLiteNode* node,
                       int32_t code) {
  (void)code;
  int64_t id[LG_GPU_SHAPE_DIMS], od[LG_GPU_SHAPE_DIMS], is[LG_GPU_SHAPE_DIMS],
      m[LG_GPU_SHAPE_DIMS];
  int rank, out_rank;
  if (!lg_gpu_shape_io(plan, node, 0, id, &rank, od, &out_rank)) return false;
  if (out_rank != rank) return lg_gpu_shape_fail(plan, "the ranks differ.");
  const TfLiteTensor* multiples = lg_gpu_shape_input(plan->context, node, 1);
  const bool known = multiples != NULL && lg_gpu_shape_is_constant(multiples);
  if (known && !lg_gpu_shape_read_ints(plan, multiples, "multiples", rank,
                                       LG_GPU_SHAPE_DIMS, m, NULL)) {
    return false;
  }
  lg_gpu_shape_strides(id, rank, is);
  lg_gpu_remap_job job;
  lg_gpu_shape_job_init(&job, node->inputs->data[0], node->outputs->data[0], od,
                        rank);
  for (int k = 0; k < rank; ++k) {
    const bool fits = id[k] == 0 ? od[k] == 0 : od[k] % id[k] == 0;
    if (!fits || (known && id[k] * m[k] != od[k])) {
      return lg_gpu_shape_fail(
          plan, "output dim %d does not tile input dim %d.", k, k);
    }
    job.dim[k].src_stride = id[k] == 1 ? 0 : is[k];
    if (id[k] == od[k] || id[k] == 1) continue;
    job.dim[k].mode = LG_REMAP_MODULO;
    job.dim[k].src_dim = id[k];
  }
  return lg_gpu_shape_plan_add(plan, &job);
}

/* NHWC with block b. DEPTH_TO_SPACE walks the output as (n, h, i, w, j, c),
 * out[n, h*b + i, w*b + j, c] = in[n, h, w, (i*b + j) * C/(b*b) + c];
 * SPACE_TO_DEPTH walks it as (n, h, w, i, j, c),
 * out[n, h, w, (i*b + j) * C + c] = in[n, h*b + i, w*b + j, c]. */
static bool build_space_depth(lg_gpu_shape_plan* plan, const TfLiteNode* node,
                              int32_t code) {
  int64_t id[LG_GPU_SHAPE_DIMS], od[LG_GPU_SHAPE_DIMS];
  int rank, out_rank;
  if (!lg_gpu_shape_io(plan, node, 0, id, &rank, od, &out_rank)) return false;
  /* Both params structs hold only block_size. */
  const TfLiteDepthToSpaceParams* params = node->builtin_data;
  const int64_t b = params != NULL ? params->block_size : 0;
  if (b < 1 || rank != 4 || out_rank != 4) {
    return lg_gpu_shape_fail(plan, "needs rank-4 tensors and block_size >= 1.");
  }
  const int64_t N = id[0], H = id[1], W = id[2], C = id[3];
  int64_t view[6], src[6];
  if (code == kTfLiteBuiltinDepthToSpace) {
    const int64_t c = C / (b * b);
    const int64_t want[4] = {N, H * b, W * b, c};
    if (C % (b * b) != 0 || !lg_gpu_shape_same_dims(want, od, 4)) {
      return lg_gpu_shape_fail(plan,
                               "the output shape does not fit the block.");
    }
    const int64_t v[6] = {N, H, b, W, b, c};
    const int64_t s[6] = {H * W * C, W * C, b * c, C, c, 1};
    memcpy(view, v, sizeof(v));
    memcpy(src, s, sizeof(s));
  } else {
    const int64_t want[4] = {N, H / b, W / b, C * b * b};
    if (H % b != 0 || W % b != 0 || !lg_gpu_shape_same_dims(want, od, 4)) {
      return lg_gpu_shape_fail(plan,
                               "the output shape does not fit the block.");
    }
    const int64_t v[6] = {N, H / b, W / b, b, b, C};
    const int64_t s[6] = {H * W * C, b * W * C, b * C, W * C, C, 1};
    memcpy(view, v, sizeof(v));
    memcpy(src, s, sizeof(s));
  }
  lg_gpu_remap_job job;
  lg_gpu_shape_job_init(&job, node->inputs->data[0], node->outputs->data[0],
                        view, 6);
  for (int k = 0; k < 6; ++k) job.dim[k].src_stride = src[k];
  return lg_gpu_shape_plan_add(plan, &job);
}

/* ---- Check and lower through the builders -------------------------------- */

typedef bool (*shape_build_fn)(lg_gpu_shape_plan* plan, const TfLiteNode* node,
                               int32_t code);

static shape_build_fn builder_of(int32_t code) {
  switch (code) {
    case kTfLiteBuiltinConcatenation:
      return build_concatenation;
    case kTfLiteBuiltinSplit:
    case kTfLiteBuiltinSplitV:
      return build_split;
    case kTfLiteBuiltinPack:
    case kTfLiteBuiltinUnpack:
      return build_pack;
    case kTfLiteBuiltinPad:
    case kTfLiteBuiltinPadv2:
    case kTfLiteBuiltinMirrorPad:
      return build_pad;
    case kTfLiteBuiltinSlice:
      return build_slice;
    case kTfLiteBuiltinStridedSlice:
      return build_strided_slice;
    case kTfLiteBuiltinTranspose:
      return build_transpose;
    case kTfLiteBuiltinTile:
      return build_tile;
    case kTfLiteBuiltinDepthToSpace:
    case kTfLiteBuiltinSpaceToDepth:
      return build_space_depth;
    default:
      return NULL;
  }
}

static bool build_plan(lg_gpu_shape_plan* plan, const TfLiteNode* node,
                       int32_t code) {
  const shape_build_fn build = builder_of(code);
  if (build == NULL) return lg_gpu_shape_fail(plan, "no remap builder.");
  return build(plan, node, code);
}

bool lg_gpu_limits_remap(LG_GPU_CHECK_ARGS) {
  lg_gpu_shape_plan plan;
  lg_gpu_shape_plan_init(&plan, context, reason, size);
  const bool ok = build_plan(&plan, node, registration->builtin_code);
  lg_gpu_shape_plan_free(&plan);
  return ok;
}

TfLiteStatus lg_gpu_lower_shape_plan(lg_gpu_program* p,
                                     const lg_gpu_shape_plan* plan) {
  if (plan->num_calls == 0) return kTfLiteOk;
  const int table = lg_gpu_lower_constant(
      p, plan->table, sizeof(int32_t) * (size_t)plan->table_len);
  if (table < 0) return kTfLiteError;
  for (int i = 0; i < plan->num_calls; ++i) {
    const lg_gpu_remap_call* c = &plan->calls[i];
    const char* defines =
        c->modes ? (plan->clamp ? "-DLG_MODES -DLG_CLAMP" : "-DLG_MODES")
                 : (plan->clamp ? "-DLG_CLAMP" : NULL);
    const lg_gpu_operand args[] = {
        LG_GPU_TENSOR(c->src),     LG_GPU_TENSOR(c->dst),
        LG_GPU_CONSTANT(table),    LG_GPU_INT(c->offset),
        LG_GPU_FLOAT(plan->value), LG_GPU_FLOAT(plan->lo),
        LG_GPU_FLOAT(plan->hi),
    };
    if (lg_gpu_lower_dispatch(p, "remap", defines, args,
                              (int)(sizeof(args) / sizeof(args[0])), 3,
                              c->global, NULL) != kTfLiteOk) {
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

TfLiteStatus lg_gpu_lower_remap(lg_gpu_program* p, TfLiteContext* context,
                                const TfLiteNode* node,
                                const TfLiteRegistration* reg) {
  char reason[LG_KIT_REASON_SIZE] = "";
  lg_gpu_shape_plan plan;
  lg_gpu_shape_plan_init(&plan, context, reason, sizeof(reason));
  if (!build_plan(&plan, node, reg->builtin_code)) {
    lg_gpu_shape_plan_free(&plan);
    return lg_gpu_lower_fail(p, "%s", reason);
  }
  const TfLiteStatus status = lg_gpu_lower_shape_plan(p, &plan);
  lg_gpu_shape_plan_free(&plan);
  return status;
}

/* ---- RESHAPE, SQUEEZE ---------------------------------------------------- */

bool lg_gpu_limits_reshape(LG_GPU_CHECK_ARGS) {
  (void)registration;
  const TfLiteTensor* in = lg_gpu_shape_input(context, node, 0);
  const TfLiteTensor* out = lg_gpu_shape_output(context, node, 0);
  if (in == NULL || out == NULL || node->outputs->size != 1) {
    snprintf(reason, size, "expects an input and one output.");
    return false;
  }
  if (in->bytes != out->bytes || in->type != out->type) {
    snprintf(reason, size, "the output's bytes differ from the input's.");
    return false;
  }
  return true;
}

TfLiteStatus lg_gpu_lower_reshape(lg_gpu_program* p, TfLiteContext* context,
                                  const TfLiteNode* node,
                                  const TfLiteRegistration* reg) {
  (void)context;
  (void)reg;
  return lg_gpu_lower_alias(p, node->outputs->data[0], node->inputs->data[0]);
}

/* ---- GATHER -------------------------------------------------------------- */

/* params viewed as [outer, axis_size, inner], the output as [outer, coords,
 * inner]. */
typedef struct gather_shape {
  int64_t outer, axis_size, inner, coords;
} gather_shape;

static bool gather_plan(lg_gpu_shape_plan* plan, const TfLiteNode* node,
                        gather_shape* g) {
  const TfLiteGatherParams* params = node->builtin_data;
  int64_t pd[LG_GPU_SHAPE_DIMS], od[LG_GPU_SHAPE_DIMS], xd[LG_GPU_SHAPE_DIMS],
      want[LG_GPU_SHAPE_DIMS];
  int rank, out_rank, index_rank;
  if (!lg_gpu_shape_io(plan, node, 0, pd, &rank, od, &out_rank)) return false;
  const TfLiteTensor* indices = lg_gpu_shape_input(plan->context, node, 1);
  if (indices == NULL) {
    return lg_gpu_shape_fail(plan, "the indices are missing.");
  }
  if (indices->type != kTfLiteInt32) {
    return lg_gpu_shape_fail(plan, "indices must be int32.");
  }
  if (!lg_gpu_float_tensor(lg_gpu_shape_input(plan->context, node, 0)) ||
      !lg_gpu_float_tensor(lg_gpu_shape_output(plan->context, node, 0))) {
    return lg_gpu_shape_fail(plan, "params must be float32 or quantized.");
  }
  lg_gpu_shape_dims(indices, xd, &index_rank);
  const int a = params != NULL ? params->axis : 0;
  const int b = params != NULL ? params->batch_dims : 0;
  const int axis = a < 0 ? a + rank : a;
  if (axis < 0 || axis >= rank || index_rank < 0) {
    return lg_gpu_shape_fail(plan, "axis %d is out of range for rank %d.", a,
                             rank);
  }
  if ((b < 0 ? b + index_rank : b) != 0) {
    return lg_gpu_shape_fail(plan, "batch_dims other than 0 is not supported.");
  }
  int n = 0;
  for (int k = 0; k < axis && n < LG_GPU_SHAPE_DIMS; ++k) want[n++] = pd[k];
  for (int k = 0; k < index_rank && n < LG_GPU_SHAPE_DIMS; ++k) {
    want[n++] = xd[k];
  }
  for (int k = axis + 1; k < rank && n < LG_GPU_SHAPE_DIMS; ++k) {
    want[n++] = pd[k];
  }
  if (rank - 1 + index_rank != out_rank || n != out_rank ||
      !lg_gpu_shape_same_dims(want, od, n)) {
    return lg_gpu_shape_fail(plan, "the output shape does not match.");
  }
  g->outer = lg_gpu_shape_product(pd, 0, axis);
  g->axis_size = pd[axis];
  g->inner = lg_gpu_shape_product(pd, axis + 1, rank);
  g->coords = lg_gpu_shape_product(xd, 0, index_rank);
  if (lg_gpu_shape_product(pd, 0, rank) > INT_MAX ||
      lg_gpu_shape_product(od, 0, out_rank) > INT_MAX) {
    return lg_gpu_shape_fail(
        plan, "tensors above %d elements are not supported.", INT_MAX);
  }
  if (g->axis_size == 0 && g->outer * g->coords * g->inner > 0) {
    return lg_gpu_shape_fail(plan, "cannot gather from an empty axis.");
  }
  if (lg_gpu_shape_is_constant(indices) && indices->data.raw != NULL) {
    /* The CPU kernel fails on these at Invoke: leave the node to it. */
    for (int64_t i = 0; i < g->coords; ++i) {
      if (indices->data.i32[i] < 0 || indices->data.i32[i] >= g->axis_size) {
        return lg_gpu_shape_fail(plan, "indices[%lld] = %d is out of range.",
                                 (long long)i, (int)indices->data.i32[i]);
      }
    }
  }
  return true;
}

bool lg_gpu_limits_gather(LG_GPU_CHECK_ARGS) {
  (void)registration;
  lg_gpu_shape_plan plan;
  gather_shape g;
  lg_gpu_shape_plan_init(&plan, context, reason, size);
  return gather_plan(&plan, node, &g);
}

TfLiteStatus lg_gpu_lower_gather(lg_gpu_program* p, TfLiteContext* context,
                                 const TfLiteNode* node,
                                 const TfLiteRegistration* reg) {
  (void)reg;
  char reason[LG_KIT_REASON_SIZE] = "";
  lg_gpu_shape_plan plan;
  gather_shape g;
  lg_gpu_shape_plan_init(&plan, context, reason, sizeof(reason));
  if (!gather_plan(&plan, node, &g)) return lg_gpu_lower_fail(p, "%s", reason);
  const lg_gpu_operand args[] = {
      LG_GPU_TENSOR(node->inputs->data[0]),
      LG_GPU_TENSOR(node->inputs->data[1]),
      LG_GPU_TENSOR(node->outputs->data[0]),
      LG_GPU_INT(g.inner),
      LG_GPU_INT(g.coords),
      LG_GPU_INT(g.outer),
      LG_GPU_INT(g.axis_size),
  };
  const size_t global[3] = {(size_t)g.inner, (size_t)g.coords, (size_t)g.outer};
  return lg_gpu_lower_dispatch(p, "shape_gather", NULL, args,
                               (int)(sizeof(args) / sizeof(args[0])), 3, global,
                               NULL);
}

/* ---- ONE_HOT --------------------------------------------------------------
 *
 * Along the last axis only (TFLite's GPU rule): one dispatch of
 * one_hot.lgk with the constant scalar on/off values. */

/* A constant float32 tensor of one element (its value in *v). */
static bool one_value(const TfLiteTensor* t, float* v) {
  if (t == NULL || t->type != kTfLiteFloat32 || !lg_gpu_shape_is_constant(t) ||
      t->data.f == NULL || lg_gpu_elements(t) != 1) {
    return false;
  }
  *v = t->data.f[0];
  return true;
}

bool lg_gpu_limits_one_hot(LG_GPU_CHECK_ARGS) {
  (void)registration;
  float on, off;
  if (node->inputs->size != 4 || node->outputs->size != 1 ||
      node->builtin_data == NULL) {
    snprintf(reason, size, "expects 4 inputs, 1 output and the params.");
    return false;
  }
  const TfLiteTensor* idx = lg_gpu_node_tensor(context, node->inputs, 0);
  const TfLiteTensor* out = lg_gpu_node_tensor(context, node->outputs, 0);
  const int axis = ((const TfLiteOneHotParams*)node->builtin_data)->axis;
  if (idx->type != kTfLiteInt32 || idx->dims == NULL || out->dims == NULL ||
      out->dims->size != idx->dims->size + 1 ||
      (axis != -1 && axis != idx->dims->size)) {
    snprintf(reason, size, "runs int32 indices along the last axis only.");
    return false;
  }
  if (!one_value(lg_gpu_node_tensor(context, node->inputs, 2), &on) ||
      !one_value(lg_gpu_node_tensor(context, node->inputs, 3), &off)) {
    snprintf(reason, size,
             "needs constant float32 on and off values of one element.");
    return false;
  }
  const size_t n = lg_gpu_elements(out);
  if (n == 0 || n > INT32_MAX) {
    snprintf(reason, size,
             "empty outputs or above 2^31 elements are not "
             "supported.");
    return false;
  }
  return true;
}

TfLiteStatus lg_gpu_lower_one_hot(lg_gpu_program* p, TfLiteContext* context,
                                  const TfLiteNode* node,
                                  const TfLiteRegistration* reg) {
  (void)reg;
  const TfLiteTensor* out = lg_gpu_node_tensor(context, node->outputs, 0);
  float on = 0.0f, off = 0.0f;
  if (!one_value(lg_gpu_node_tensor(context, node->inputs, 2), &on) ||
      !one_value(lg_gpu_node_tensor(context, node->inputs, 3), &off)) {
    return lg_gpu_lower_fail(p, "ONE_HOT's on/off values are not constant");
  }
  const int n = (int)lg_gpu_elements(out);
  const int depth = out->dims->data[out->dims->size - 1];
  const lg_gpu_operand args[] = {
      LG_GPU_TENSOR(node->inputs->data[0]),
      LG_GPU_TENSOR(node->outputs->data[0]),
      LG_GPU_INT(n),
      LG_GPU_INT(depth),
      LG_GPU_FLOAT(on),
      LG_GPU_FLOAT(off),
  };
  const size_t global[1] = {(size_t)n};
  return lg_gpu_lower_dispatch(p, "one_hot", NULL, args,
                               (int)(sizeof(args) / sizeof(args[0])), 1, global,
                               NULL);
}
