/* Data-movement cases: RESHAPE, SQUEEZE, CONCATENATION (axis C and H, three
 * inputs), PAD, PADV2, MIRROR_PAD (REFLECT, SYMMETRIC), SLICE,
 * STRIDED_SLICE (strides 1 and 2, begin/end/shrink masks, negative
 * indices), TRANSPOSE, SPLIT, SPLIT_V, PACK, UNPACK (first, last and
 * middle axes), ONE_HOT (int32 indices, some out of range), TILE, GATHER,
 * DEPTH_TO_SPACE,
 * SPACE_TO_DEPTH, RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR (default,
 * align_corners, half_pixel_centers; up and down, 64x64).
 *
 * One row type serves every op here: `input` is the data, and `a`, `b`,
 * `c` are the op's constant int32 operands (shape, paddings, perm, begin /
 * end / strides, ...) of `na`, `nb`, `nc` entries; `p` holds its integer
 * options. Each build function says how it reads them. */
#include <string.h>

#include "tests/conformance/conformance.h"

#define COUNT(x) (sizeof(x) / sizeof((x)[0]))

typedef struct shape_case {
  const char* label;
  conf_shape input;
  int na;
  int32_t a[8];
  int nb;
  int32_t b[8];
  int nc;
  int32_t c[8];
  int p[4];
} shape_case;

/* ---- RESHAPE, SQUEEZE ---------------------------------------------------- */

/* a: the new shape (one -1 allowed), also written into the options. */
static const shape_case kReshape[] = {
    {"4d_to_2d", {4, {1, 8, 8, 3}}, 2, {1, 192}, 0, {0}, 0, {0}, {0}},
    {"4d_to_3d_batch2", {4, {2, 4, 4, 6}}, 3, {2, 16, 6}, 0, {0}, 0, {0}, {0}},
    {"to_1d_c17", {4, {1, 1, 1, 17}}, 1, {17}, 0, {0}, 0, {0}, {0}},
    {"2d_to_4d", {2, {3, 17}}, 4, {1, 3, 17, 1}, 0, {0}, 0, {0}, {0}},
    {"infer_dim", {4, {2, 5, 5, 7}}, 2, {2, -1}, 0, {0}, 0, {0}, {0}},
};

static int build_reshape(conf_builder* b, const conf_case* c) {
  const shape_case* s = c->args;
  int32_t in[2];
  in[0] = conf_input(b, s->input, -4, 4);
  in[1] = conf_const_i32_vec(b, s->na, s->a);
  TfLiteReshapeParams params;
  memset(&params, 0, sizeof(params));
  params.num_dimensions = s->na;
  for (int i = 0; i < s->na; ++i) params.shape[i] = s->a[i];
  return conf_op1(b, kTfLiteBuiltinReshape, in, 2, &params) < 0 ? -1 : 0;
}

/* a: the squeezed dims (none: every dim of size 1). */
static const shape_case kSqueeze[] = {
    {"axis3_c1", {4, {1, 8, 8, 1}}, 1, {3}, 0, {0}, 0, {0}, {0}},
    {"all_c17", {4, {1, 1, 1, 17}}, 0, {0}, 0, {0}, 0, {0}, {0}},
    {"axes_0_2", {4, {1, 5, 1, 7}}, 2, {0, 2}, 0, {0}, 0, {0}, {0}},
};

static int build_squeeze(conf_builder* b, const conf_case* c) {
  const shape_case* s = c->args;
  const int32_t in = conf_input(b, s->input, -4, 4);
  TfLiteSqueezeParams params;
  memset(&params, 0, sizeof(params));
  params.num_squeeze_dims = s->na;
  for (int i = 0; i < s->na; ++i) params.squeeze_dims[i] = s->a[i];
  return conf_op1(b, kTfLiteBuiltinSqueeze, &in, 1, &params) < 0 ? -1 : 0;
}

/* ---- CONCATENATION ------------------------------------------------------- */

/* Three inputs: `input` with dim p[0] (the axis) replaced by a[0], a[1],
 * a[2] in turn; p[1] = 1 makes the second input a constant. */
static const shape_case kConcat[] = {
    {"axis_c_3_5_1", {4, {1, 4, 4, 0}}, 3, {3, 5, 1}, 0, {0}, 0, {0}, {3, 0}},
    {"axis_h_batch2", {4, {2, 0, 5, 7}}, 3, {3, 1, 4}, 0, {0}, 0, {0}, {1, 0}},
    {"axis_c_const_middle",
     {4, {1, 3, 3, 0}},
     3,
     {4, 17, 2},
     0,
     {0},
     0,
     {0},
     {3, 1}},
    {"rank2_axis1", {2, {3, 0}}, 3, {5, 7, 1}, 0, {0}, 0, {0}, {1, 0}},
};

static int build_concat(conf_builder* b, const conf_case* c) {
  const shape_case* s = c->args;
  int32_t in[3];
  for (int i = 0; i < 3; ++i) {
    conf_shape shape = s->input;
    shape.d[s->p[0]] = s->a[i];
    in[i] = (i == 1 && s->p[1]) ? conf_weights(b, shape, -4, 4)
                                : conf_input(b, shape, -4, 4);
  }
  const TfLiteConcatenationParams params = {.axis = s->p[0],
                                            .activation = c->act};
  return conf_op1(b, kTfLiteBuiltinConcatenation, in, 3, &params) < 0 ? -1 : 0;
}

/* ---- PAD, PADV2, MIRROR_PAD ---------------------------------------------- */

/* a: paddings [rank, 2] (before, after per dim). */
static const shape_case kPad[] = {
    {"hw_1_2",
     {4, {1, 5, 5, 3}},
     8,
     {0, 0, 1, 2, 2, 1, 0, 0},
     0,
     {0},
     0,
     {0},
     {0}},
    {"channels_c5",
     {4, {1, 4, 4, 5}},
     8,
     {0, 0, 0, 0, 0, 0, 1, 2},
     0,
     {0},
     0,
     {0},
     {0}},
    {"batch2_c7",
     {4, {2, 3, 3, 7}},
     8,
     {0, 0, 1, 1, 1, 1, 0, 0},
     0,
     {0},
     0,
     {0},
     {0}},
    {"rank2", {2, {3, 17}}, 4, {1, 0, 2, 3}, 0, {0}, 0, {0}, {0}},
};

static const shape_case kMirrorPad[] = {
    {"hw_2",
     {4, {1, 5, 5, 3}},
     8,
     {0, 0, 2, 2, 2, 2, 0, 0},
     0,
     {0},
     0,
     {0},
     {0}},
    {"hw_1_2_c17",
     {4, {1, 4, 6, 17}},
     8,
     {0, 0, 1, 2, 2, 1, 0, 0},
     0,
     {0},
     0,
     {0},
     {0}},
};

static int32_t paddings(conf_builder* b, const shape_case* s) {
  const conf_shape shape = {2, {s->input.rank, 2}};
  return conf_const_i32(b, shape, s->a);
}

static int build_pad(conf_builder* b, const conf_case* c) {
  const shape_case* s = c->args;
  int32_t in[3];
  in[0] = conf_input(b, s->input, -4, 4);
  in[1] = paddings(b, s);
  if (c->op == kTfLiteBuiltinPad) {
    return conf_op1(b, c->op, in, 2, NULL) < 0 ? -1 : 0;
  }
  const float value = 0.5f;
  const conf_shape scalar = {0, {0}};
  in[2] = conf_const_f32(b, scalar, &value);
  return conf_op1(b, c->op, in, 3, NULL) < 0 ? -1 : 0;
}

static int build_mirror_pad(conf_builder* b, const conf_case* c) {
  const shape_case* s = c->args;
  int32_t in[2];
  in[0] = conf_input(b, s->input, -4, 4);
  in[1] = paddings(b, s);
  const TfLiteMirrorPaddingParams params = {
      .mode = c->index ? kTfLiteMirrorPaddingSymmetric
                       : kTfLiteMirrorPaddingReflect};
  return conf_op1(b, kTfLiteBuiltinMirrorPad, in, 2, &params) < 0 ? -1 : 0;
}

/* ---- SLICE, STRIDED_SLICE ------------------------------------------------ */

/* SLICE: a = begin, b = size (-1: to the end). */
static const shape_case kSlice[] = {
    {"4d_c5",
     {4, {1, 8, 8, 5}},
     4,
     {0, 1, 2, 0},
     4,
     {1, 4, -1, 3},
     0,
     {0},
     {0}},
    {"batch2_c7",
     {4, {2, 5, 5, 7}},
     4,
     {1, 0, 1, 2},
     4,
     {1, 5, 3, 5},
     0,
     {0},
     {0}},
    {"rank2_c17", {2, {3, 17}}, 2, {1, 3}, 2, {2, 10}, 0, {0}, {0}},
};

static int build_slice(conf_builder* b, const conf_case* c) {
  const shape_case* s = c->args;
  int32_t in[3];
  in[0] = conf_input(b, s->input, -4, 4);
  in[1] = conf_const_i32_vec(b, s->na, s->a);
  in[2] = conf_const_i32_vec(b, s->nb, s->b);
  return conf_op1(b, kTfLiteBuiltinSlice, in, 3, NULL) < 0 ? -1 : 0;
}

/* STRIDED_SLICE: a = begin, b = end, c = strides; p = begin_mask, end_mask,
 * shrink_axis_mask. */
static const shape_case kStridedSlice[] = {
    {"stride1",
     {4, {1, 8, 8, 5}},
     4,
     {0, 1, 1, 0},
     4,
     {1, 7, 7, 5},
     4,
     {1, 1, 1, 1},
     {0, 0, 0}},
    {"stride2_hw",
     {4, {1, 8, 8, 5}},
     4,
     {0, 0, 0, 0},
     4,
     {1, 8, 8, 5},
     4,
     {1, 2, 2, 1},
     {0, 0, 0}},
    {"stride2_odd_c17",
     {4, {1, 7, 7, 17}},
     4,
     {0, 1, 0, 0},
     4,
     {1, 7, 7, 17},
     4,
     {1, 2, 2, 2},
     {0, 0, 0}},
    {"masks_begin_end",
     {4, {1, 8, 8, 5}},
     4,
     {0, 5, 5, 1},
     4,
     {1, 0, 0, 4},
     4,
     {1, 2, 2, 1},
     {6, 6, 0}},
    {"shrink_batch",
     {4, {2, 5, 5, 7}},
     4,
     {1, 0, 0, 0},
     4,
     {2, 5, 5, 7},
     4,
     {1, 1, 1, 1},
     {0, 0, 1}},
    {"negative_indices",
     {4, {1, 6, 6, 3}},
     4,
     {0, -5, -4, 0},
     4,
     {1, -1, 6, 3},
     4,
     {1, 1, 1, 1},
     {0, 0, 0}},
};

static int build_strided_slice(conf_builder* b, const conf_case* c) {
  const shape_case* s = c->args;
  int32_t in[4];
  in[0] = conf_input(b, s->input, -4, 4);
  in[1] = conf_const_i32_vec(b, s->na, s->a);
  in[2] = conf_const_i32_vec(b, s->nb, s->b);
  in[3] = conf_const_i32_vec(b, s->nc, s->c);
  const TfLiteStridedSliceParams params = {.begin_mask = s->p[0],
                                           .end_mask = s->p[1],
                                           .ellipsis_mask = 0,
                                           .new_axis_mask = 0,
                                           .shrink_axis_mask = s->p[2],
                                           .offset = false};
  return conf_op1(b, kTfLiteBuiltinStridedSlice, in, 4, &params) < 0 ? -1 : 0;
}

/* ---- TRANSPOSE, TILE ----------------------------------------------------- */

/* a: perm. */
static const shape_case kTranspose[] = {
    {"nhwc_to_nchw", {4, {1, 4, 5, 3}}, 4, {0, 3, 1, 2}, 0, {0}, 0, {0}, {0}},
    {"swap_hw_batch2", {4, {2, 3, 5, 7}}, 4, {0, 2, 1, 3}, 0, {0}, 0, {0}, {0}},
    {"rank2", {2, {3, 17}}, 2, {1, 0}, 0, {0}, 0, {0}, {0}},
    {"reverse_4d", {4, {2, 3, 4, 5}}, 4, {3, 2, 1, 0}, 0, {0}, 0, {0}, {0}},
};

/* a: multiples. */
static const shape_case kTile[] = {
    {"hw_c3", {4, {1, 4, 4, 3}}, 4, {1, 2, 3, 1}, 0, {0}, 0, {0}, {0}},
    {"rank3", {3, {2, 3, 5}}, 3, {2, 1, 2}, 0, {0}, 0, {0}, {0}},
    {"rank2_c17", {2, {3, 17}}, 2, {2, 1}, 0, {0}, 0, {0}, {0}},
    {"batch_c1", {4, {1, 5, 5, 1}}, 4, {2, 1, 1, 3}, 0, {0}, 0, {0}, {0}},
};

/* TRANSPOSE and TILE: input, a. */
static int build_with_vector(conf_builder* b, const conf_case* c) {
  const shape_case* s = c->args;
  int32_t in[2];
  in[0] = conf_input(b, s->input, -4, 4);
  in[1] = conf_const_i32_vec(b, s->na, s->a);
  return conf_op1(b, c->op, in, 2, NULL) < 0 ? -1 : 0;
}

/* ---- SPLIT, SPLIT_V ------------------------------------------------------ */

/* SPLIT: p[0] = axis, p[1] = num_splits. SPLIT_V: a = size_splits. */
static const shape_case kSplit[] = {
    {"axis_c_3", {4, {1, 8, 8, 6}}, 0, {0}, 0, {0}, 0, {0}, {3, 3}},
    {"axis_h_batch2", {4, {2, 6, 4, 5}}, 0, {0}, 0, {0}, 0, {0}, {1, 2}},
    {"axis_w_4", {4, {1, 8, 8, 3}}, 0, {0}, 0, {0}, 0, {0}, {2, 4}},
};

static const shape_case kSplitV[] = {
    {"axis_c_2_4_1", {4, {1, 8, 8, 7}}, 3, {2, 4, 1}, 0, {0}, 0, {0}, {3, 3}},
    {"axis_h_rest", {4, {1, 9, 5, 3}}, 3, {3, -1, 2}, 0, {0}, 0, {0}, {1, 3}},
};

static int build_split(conf_builder* b, const conf_case* c) {
  const shape_case* s = c->args;
  const conf_shape scalar = {0, {0}};
  const int32_t axis_value = s->p[0];
  const int n = s->p[1];
  int32_t in[3], out[CONF_MAX_IO];
  if (c->op == kTfLiteBuiltinSplit) {
    in[0] = conf_const_i32(b, scalar, &axis_value);
    in[1] = conf_input(b, s->input, -4, 4);
  } else {
    in[0] = conf_input(b, s->input, -4, 4);
    in[1] = conf_const_i32_vec(b, s->na, s->a);
    in[2] = conf_const_i32(b, scalar, &axis_value);
  }
  for (int i = 0; i < n; ++i) out[i] = conf_output(b);
  const TfLiteSplitParams split = {.num_splits = n};
  const TfLiteSplitVParams split_v = {.num_splits = n};
  const bool is_split = c->op == kTfLiteBuiltinSplit;
  return conf_op(b, c->op, 0, in, is_split ? 2 : 3, out, n,
                 is_split ? (const void*)&split : (const void*)&split_v) < 0
             ? -1
             : 0;
}

/* ---- PACK, UNPACK --------------------------------------------------------
 *
 * `input` is the unpacked shape (PACK's inputs, UNPACK's outputs); p[0] =
 * axis (negative counts from the end of the packed rank), p[1] = count. */
static const shape_case kPack[] = {
    {"axis0_3", {3, {4, 4, 5}}, 0, {0}, 0, {0}, 0, {0}, {0, 3}},
    {"axis_last_2_c7", {3, {2, 5, 7}}, 0, {0}, 0, {0}, 0, {0}, {-1, 2}},
    {"axis1_4_rank2", {2, {3, 17}}, 0, {0}, 0, {0}, 0, {0}, {1, 4}},
};

static int build_pack(conf_builder* b, const conf_case* c) {
  const shape_case* s = c->args;
  const int n = s->p[1];
  int32_t ins[CONF_MAX_IO], outs[CONF_MAX_IO];
  if (c->op == kTfLiteBuiltinPack) {
    for (int i = 0; i < n; ++i) ins[i] = conf_input(b, s->input, -4, 4);
    outs[0] = conf_output(b);
    const TfLitePackParams params = {.values_count = n, .axis = s->p[0]};
    return conf_op(b, c->op, 0, ins, n, outs, 1, &params) < 0 ? -1 : 0;
  }
  /* UNPACK: the packed input has the count inserted at the axis. */
  conf_shape packed = {s->input.rank + 1, {0}};
  const int axis = s->p[0] < 0 ? s->p[0] + packed.rank : s->p[0];
  for (int k = 0, j = 0; k < packed.rank; ++k) {
    packed.d[k] = k == axis ? n : s->input.d[j++];
  }
  ins[0] = conf_input(b, packed, -4, 4);
  for (int i = 0; i < n; ++i) outs[i] = conf_output(b);
  const TfLiteUnpackParams params = {.num = n, .axis = s->p[0]};
  return conf_op(b, c->op, 0, ins, 1, outs, n, &params) < 0 ? -1 : 0;
}

/* ---- ONE_HOT --------------------------------------------------------------
 *
 * `input` is the int32 indices' shape (values in [-1, depth], so some fall
 * outside and give rows of off); p[0] = depth, p[1] = axis. */
static const shape_case kOneHot[] = {
    {"c5_depth4", {3, {1, 1, 5}}, 0, {0}, 0, {0}, 0, {0}, {4, -1}},
    /* An explicit last axis: TFLite's GPU rule compares the axis with the
     * last dim's size, so that size is 2 here. */
    {"rank2_axis2_depth9", {2, {1, 2}}, 0, {0}, 0, {0}, 0, {0}, {9, 2}},
    {"rank2_depth9", {2, {1, 7}}, 0, {0}, 0, {0}, 0, {0}, {9, -1}},
    {"rank1_depth3", {1, {6}}, 0, {0}, 0, {0}, 0, {0}, {3, -1}},
};

static int build_one_hot(conf_builder* b, const conf_case* c) {
  const shape_case* s = c->args;
  const conf_shape scalar = {0, {0}};
  const int32_t depth = s->p[0];
  const float on = 2.5f, off = -1.0f;
  int32_t in[4];
  in[0] = conf_input_typed(b, kTfLiteInt32, s->input, -1, (float)depth);
  in[1] = conf_const_i32(b, scalar, &depth);
  in[2] = conf_const_f32(b, scalar, &on);
  in[3] = conf_const_f32(b, scalar, &off);
  const TfLiteOneHotParams params = {.axis = s->p[1]};
  return conf_op1(b, kTfLiteBuiltinOneHot, in, 4, &params) < 0 ? -1 : 0;
}

/* ---- GATHER -------------------------------------------------------------- */

/* a: indices (shape [na], or [2, na / 2] when p[1] is 1); p[0] = axis. */
static const shape_case kGather[] = {
    {"axis0", {3, {5, 4, 3}}, 3, {4, 0, 2}, 0, {0}, 0, {0}, {0, 0}},
    {"axis1_batch2", {3, {2, 6, 7}}, 4, {5, 1, 1, 3}, 0, {0}, 0, {0}, {1, 0}},
    {"axis_c17", {4, {1, 4, 4, 17}}, 3, {16, 0, 8}, 0, {0}, 0, {0}, {3, 0}},
    {"indices_2d", {2, {6, 5}}, 4, {5, 0, 3, 3}, 0, {0}, 0, {0}, {0, 1}},
};

static int build_gather(conf_builder* b, const conf_case* c) {
  const shape_case* s = c->args;
  const conf_shape indices =
      s->p[1] ? (conf_shape){2, {2, s->na / 2}} : (conf_shape){1, {s->na}};
  int32_t in[2];
  in[0] = conf_input(b, s->input, -4, 4);
  in[1] = conf_const_i32(b, indices, s->a);
  const TfLiteGatherParams params = {.axis = s->p[0], .batch_dims = 0};
  return conf_op1(b, kTfLiteBuiltinGather, in, 2, &params) < 0 ? -1 : 0;
}

/* ---- DEPTH_TO_SPACE, SPACE_TO_DEPTH -------------------------------------- */

/* p[0]: block size. */
static const shape_case kDepthToSpace[] = {
    {"b2_c12", {4, {1, 4, 4, 12}}, 0, {0}, 0, {0}, 0, {0}, {2}},
    {"b3_batch2_c27", {4, {2, 3, 3, 27}}, 0, {0}, 0, {0}, 0, {0}, {3}},
    {"b2_to_c1", {4, {1, 5, 5, 4}}, 0, {0}, 0, {0}, 0, {0}, {2}},
};

static const shape_case kSpaceToDepth[] = {
    {"b2_c3", {4, {1, 8, 8, 3}}, 0, {0}, 0, {0}, 0, {0}, {2}},
    {"b3_batch2_c1", {4, {2, 6, 6, 1}}, 0, {0}, 0, {0}, 0, {0}, {3}},
    {"b2_c17", {4, {1, 4, 4, 17}}, 0, {0}, 0, {0}, 0, {0}, {2}},
};

static int build_block(conf_builder* b, const conf_case* c) {
  const shape_case* s = c->args;
  const int32_t in = conf_input(b, s->input, -4, 4);
  const TfLiteDepthToSpaceParams d2s = {.block_size = s->p[0]};
  const TfLiteSpaceToDepthParams s2d = {.block_size = s->p[0]};
  const void* params = c->op == kTfLiteBuiltinDepthToSpace ? (const void*)&d2s
                                                           : (const void*)&s2d;
  return conf_op1(b, c->op, &in, 1, params) < 0 ? -1 : 0;
}

/* ---- RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR ---------------------------- */

/* a: (new_height, new_width); p[0] = align_corners, p[1] =
 * half_pixel_centers. */
static const shape_case kResize[] = {
    {"up2x", {4, {1, 4, 4, 3}}, 2, {8, 8}, 0, {0}, 0, {0}, {0, 0}},
    {"align_corners", {4, {1, 4, 4, 3}}, 2, {7, 7}, 0, {0}, 0, {0}, {1, 0}},
    {"half_pixel", {4, {1, 4, 4, 3}}, 2, {8, 8}, 0, {0}, 0, {0}, {0, 1}},
    {"down_half_pixel_c5",
     {4, {1, 8, 8, 5}},
     2,
     {3, 5},
     0,
     {0},
     0,
     {0},
     {0, 1}},
    {"batch2_c7_9x9", {4, {2, 5, 5, 7}}, 2, {9, 9}, 0, {0}, 0, {0}, {0, 0}},
    {"large_to_64x64_c1",
     {4, {1, 16, 16, 1}},
     2,
     {64, 64},
     0,
     {0},
     0,
     {0},
     {0, 1}},
};

static int build_resize(conf_builder* b, const conf_case* c) {
  const shape_case* s = c->args;
  int32_t in[2];
  in[0] = conf_input(b, s->input, -4, 4);
  in[1] = conf_const_i32_vec(b, 2, s->a);
  const TfLiteResizeBilinearParams bilinear = {
      .align_corners = s->p[0] != 0, .half_pixel_centers = s->p[1] != 0};
  const TfLiteResizeNearestNeighborParams nearest = {
      .align_corners = s->p[0] != 0, .half_pixel_centers = s->p[1] != 0};
  const void* params = c->op == kTfLiteBuiltinResizeBilinear
                           ? (const void*)&bilinear
                           : (const void*)&nearest;
  return conf_op1(b, c->op, in, 2, params) < 0 ? -1 : 0;
}

/* ---- Registration -------------------------------------------------------- */

static void add_rows(conf_case_list* list, int32_t op, conf_build_fn build,
                     const shape_case* rows, size_t count, const char* name) {
  for (size_t i = 0; i < count; ++i) {
    conf_case_add(list, op, build, &rows[i], kTfLiteActNone, 0, "%s_%s", name,
                  rows[i].label);
  }
}

/* Cases that TFLite's GPU rules refuse (PAD/SLICE of rank below 4,
 * MIRROR_PAD SYMMETRIC, STRIDED_SLICE shrinking the batch, GATHER with 2-D
 * indices): a delegate that follows TFLite may reject them with a reason. */
static const char* const kTfLiteGpuRefuses[] = {
    "pad_rank2",
    "padv2_rank2",
    "mirror_pad_symmetric_",
    "slice_rank2_c17",
    "strided_slice_shrink_batch",
    "gather_indices_2d",
};

static void mark_may_refuse(conf_case_list* list, int first) {
  for (int i = first; i < list->count; ++i) {
    for (size_t k = 0; k < COUNT(kTfLiteGpuRefuses); ++k) {
      const char* prefix = kTfLiteGpuRefuses[k];
      if (strncmp(list->items[i].name, prefix, strlen(prefix)) == 0) {
        list->items[i].may_refuse = true;
      }
    }
  }
}

void conf_add_shape_cases(conf_case_list* list) {
  const int first = list->count;
  add_rows(list, kTfLiteBuiltinReshape, build_reshape, kReshape,
           COUNT(kReshape), "reshape");
  add_rows(list, kTfLiteBuiltinSqueeze, build_squeeze, kSqueeze,
           COUNT(kSqueeze), "squeeze");
  add_rows(list, kTfLiteBuiltinConcatenation, build_concat, kConcat,
           COUNT(kConcat), "concatenation");
  conf_case_add(list, kTfLiteBuiltinConcatenation, build_concat, &kConcat[0],
                kTfLiteActRelu6, 0, "concatenation_relu6_%s", kConcat[0].label);
  add_rows(list, kTfLiteBuiltinPad, build_pad, kPad, COUNT(kPad), "pad");
  add_rows(list, kTfLiteBuiltinPadv2, build_pad, kPad, COUNT(kPad), "padv2");
  for (size_t i = 0; i < COUNT(kMirrorPad); ++i) {
    for (int mode = 0; mode < 2; ++mode) {
      conf_case_add(list, kTfLiteBuiltinMirrorPad, build_mirror_pad,
                    &kMirrorPad[i], kTfLiteActNone, 0, "mirror_pad_%s_%s",
                    mode ? "symmetric" : "reflect", kMirrorPad[i].label)
          ->index = mode;
    }
  }
  add_rows(list, kTfLiteBuiltinSlice, build_slice, kSlice, COUNT(kSlice),
           "slice");
  add_rows(list, kTfLiteBuiltinStridedSlice, build_strided_slice, kStridedSlice,
           COUNT(kStridedSlice), "strided_slice");
  add_rows(list, kTfLiteBuiltinTranspose, build_with_vector, kTranspose,
           COUNT(kTranspose), "transpose");
  add_rows(list, kTfLiteBuiltinSplit, build_split, kSplit, COUNT(kSplit),
           "split");
  add_rows(list, kTfLiteBuiltinSplitV, build_split, kSplitV, COUNT(kSplitV),
           "split_v");
  add_rows(list, kTfLiteBuiltinPack, build_pack, kPack, COUNT(kPack), "pack");
  add_rows(list, kTfLiteBuiltinUnpack, build_pack, kPack, COUNT(kPack),
           "unpack");
  add_rows(list, kTfLiteBuiltinOneHot, build_one_hot, kOneHot, COUNT(kOneHot),
           "one_hot");
  add_rows(list, kTfLiteBuiltinTile, build_with_vector, kTile, COUNT(kTile),
           "tile");
  add_rows(list, kTfLiteBuiltinGather, build_gather, kGather, COUNT(kGather),
           "gather");
  add_rows(list, kTfLiteBuiltinDepthToSpace, build_block, kDepthToSpace,
           COUNT(kDepthToSpace), "depth_to_space");
  add_rows(list, kTfLiteBuiltinSpaceToDepth, build_block, kSpaceToDepth,
           COUNT(kSpaceToDepth), "space_to_depth");
  add_rows(list, kTfLiteBuiltinResizeBilinear, build_resize, kResize,
           COUNT(kResize), "resize_bilinear");
  add_rows(list, kTfLiteBuiltinResizeNearestNeighbor, build_resize, kResize,
           COUNT(kResize), "resize_nearest_neighbor");
  mark_may_refuse(list, first);
}
