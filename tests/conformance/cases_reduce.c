/* Pooling and reduction cases: AVERAGE_POOL_2D and MAX_POOL_2D (2x2 and 3x3
 * windows, stride 1 and 2, SAME and VALID, a global pool, batch 2, 1 and 17
 * channels, 64x64, fused activations); MEAN, SUM, REDUCE_PROD, REDUCE_MAX
 * and REDUCE_MIN over the spatial axes (HW), the channels (C) and all axes,
 * keep_dims both ways; CUMSUM along each axis, a negative one, exclusive
 * and reverse, and a 64-long line.
 *
 * Inputs lie in [-1, 1]; REDUCE_PROD's in [-1.5, 1.5], so that products of
 * 5 to 64 elements neither vanish nor leave float16's range, and in
 * [0.7, 1.4] (mean log near 0) for its products of 320 and 350 elements. SUM
 * reduces at most a few hundred elements, so a different summation order stays
 * inside the 1e-5 bound; the 64x64 case is MEAN's (an average of 4096 values,
 * whose result is near 0 but whose rounding error is divided by the count). */
#include <string.h>

#include "tests/conformance/conformance.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- Pooling ------------------------------------------------------------- */

typedef struct pool_case {
  const char* label;
  conf_shape input;
  int window, stride;
  TfLitePadding padding;
} pool_case;

static const pool_case kPool[] = {
    {"2x2_s2_valid_c3", {4, {1, 8, 8, 3}}, 2, 2, kTfLitePaddingValid},
    {"3x3_s2_same_c5", {4, {1, 9, 9, 5}}, 3, 2, kTfLitePaddingSame},
    {"3x3_s1_same_batch2_c7", {4, {2, 7, 7, 7}}, 3, 1, kTfLitePaddingSame},
    {"2x2_s2_same_odd_c17", {4, {1, 7, 7, 17}}, 2, 2, kTfLitePaddingSame},
    {"global_7x7_c17", {4, {1, 7, 7, 17}}, 7, 1, kTfLitePaddingValid},
    {"3x3_s1_valid_c1", {4, {1, 6, 6, 1}}, 3, 1, kTfLitePaddingValid},
    {"2x2_s2_large_64x64_c3", {4, {1, 64, 64, 3}}, 2, 2, kTfLitePaddingValid},
};

static int build_pool(conf_builder* b, const conf_case* c) {
  const pool_case* p = c->args;
  const int32_t in = conf_input(b, p->input, -1, 1);
  TfLitePoolParams params;
  memset(&params, 0, sizeof(params));
  params.padding = p->padding;
  params.stride_width = p->stride;
  params.stride_height = p->stride;
  params.filter_width = p->window;
  params.filter_height = p->window;
  params.activation = c->act;
  return conf_op1(b, c->op, &in, 1, &params) < 0 ? -1 : 0;
}

/* ---- Reductions ---------------------------------------------------------- */

typedef struct reduce_case {
  const char* label;
  conf_shape input;
  int num_axes;
  int32_t axes[4];
} reduce_case;

static const reduce_case kReduce[] = {
    {"hw_c5", {4, {1, 8, 8, 5}}, 2, {1, 2}},
    {"c_c5", {4, {1, 8, 8, 5}}, 1, {3}},
    {"all_c5", {4, {1, 8, 8, 5}}, 4, {0, 1, 2, 3}},
    {"hw_batch2_c7", {4, {2, 5, 5, 7}}, 2, {1, 2}},
    {"c_batch2_c17", {4, {2, 3, 3, 17}}, 1, {3}},
    {"all_batch2_c7", {4, {2, 5, 5, 7}}, 4, {0, 1, 2, 3}},
};

static const reduce_case kMeanLarge = {
    "hw_large_64x64_c3", {4, {1, 64, 64, 3}}, 2, {1, 2}};

static int build_reduce(conf_builder* b, const conf_case* c) {
  const reduce_case* p = c->args;
  int32_t in[2];
  if (c->op != kTfLiteBuiltinReduceProd) {
    in[0] = conf_input(b, p->input, -1, 1);
  } else if (p->num_axes == 4) {
    in[0] = conf_input(b, p->input, 0.7f, 1.4f); /* long products */
  } else {
    in[0] = conf_input(b, p->input, -1.5f, 1.5f);
  }
  in[1] = conf_const_i32_vec(b, p->num_axes, p->axes);
  const TfLiteReducerParams params = {.keep_dims = c->index != 0};
  return conf_op1(b, c->op, in, 2, &params) < 0 ? -1 : 0;
}

/* ---- CUMSUM ------------------------------------------------------------- */

typedef struct cumsum_case {
  const char* label;
  conf_shape input;
  int32_t axis;
  bool exclusive, reverse;
} cumsum_case;

static const cumsum_case kCumsum[] = {
    {"c_c7", {4, {1, 6, 6, 7}}, 3, false, false},
    {"h_batch2_c5", {4, {2, 8, 5, 5}}, 1, false, false},
    {"negative_axis_rank2", {2, {3, 17}}, -1, false, false},
    {"w_exclusive", {4, {1, 5, 9, 3}}, 2, true, false},
    {"c_reverse", {4, {1, 4, 4, 13}}, 3, false, true},
    {"h_exclusive_reverse", {4, {1, 7, 3, 6}}, 1, true, true},
    {"long_w_64x64", {4, {1, 64, 64, 3}}, 2, false, false},
};

static int build_cumsum(conf_builder* b, const conf_case* c) {
  const cumsum_case* p = c->args;
  int32_t in[2];
  in[0] = conf_input(b, p->input, -1, 1);
  in[1] = conf_const_i32(b, (conf_shape){0, {0}}, &p->axis);
  const TfLiteCumsumParams params = {.exclusive = p->exclusive,
                                     .reverse = p->reverse};
  return conf_op1(b, kTfLiteBuiltinCumsum, in, 2, &params) < 0 ? -1 : 0;
}

/* ---- Registration -------------------------------------------------------- */

void conf_add_reduce_cases(conf_case_list* list) {
  static const struct {
    int32_t code;
    const char* name;
  } kPoolOps[] = {{kTfLiteBuiltinAveragePool2d, "average_pool_2d"},
                  {kTfLiteBuiltinMaxPool2d, "max_pool_2d"}},
    kReduceOps[] = {{kTfLiteBuiltinMean, "mean"},
                    {kTfLiteBuiltinSum, "sum"},
                    {kTfLiteBuiltinReduceMax, "reduce_max"},
                    {kTfLiteBuiltinReduceMin, "reduce_min"},
                    {kTfLiteBuiltinReduceProd, "reduce_prod"}};
  static const TfLiteFusedActivation kActs[] = {kTfLiteActRelu, kTfLiteActRelu6,
                                                kTfLiteActReluN1To1};
  for (size_t o = 0; o < COUNT(kPoolOps); ++o) {
    for (size_t i = 0; i < COUNT(kPool); ++i) {
      conf_case_add(list, kPoolOps[o].code, build_pool, &kPool[i],
                    kTfLiteActNone, 0, "%s_%s", kPoolOps[o].name,
                    kPool[i].label);
    }
    for (size_t a = 0; a < COUNT(kActs); ++a) {
      conf_case_add(list, kPoolOps[o].code, build_pool, &kPool[1], kActs[a], 0,
                    "%s_%s_%s", kPoolOps[o].name, conf_act_name(kActs[a]),
                    kPool[1].label);
    }
  }
  for (size_t o = 0; o < COUNT(kReduceOps); ++o) {
    for (size_t i = 0; i < COUNT(kReduce); ++i) {
      for (int keep = 0; keep < 2; ++keep) {
        conf_case_add(list, kReduceOps[o].code, build_reduce, &kReduce[i],
                      kTfLiteActNone, 0, "%s_%s_%s", kReduceOps[o].name,
                      kReduce[i].label, keep ? "keep_dims" : "drop_dims")
            ->index = keep;
      }
    }
  }
  for (size_t i = 0; i < COUNT(kCumsum); ++i) {
    conf_case_add(list, kTfLiteBuiltinCumsum, build_cumsum, &kCumsum[i],
                  kTfLiteActNone, 0, "cumsum_%s", kCumsum[i].label);
  }
  conf_case_add(list, kTfLiteBuiltinMean, build_reduce, &kMeanLarge,
                kTfLiteActNone, 0, "mean_%s_keep_dims", kMeanLarge.label)
      ->index = 1;
}
