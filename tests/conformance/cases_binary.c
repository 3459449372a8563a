/* Binary elementwise cases: ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM,
 * SQUARED_DIFFERENCE, POW, FLOOR_DIV, FLOOR_MOD over one set of shape pairs
 * (equal shapes, batch, odd channel counts, rank 2, constant and
 * non-constant broadcasts, 64x64), ADD_N over the equal shapes (its CPU
 * kernel does not broadcast; TFLite's GPU takes two inputs, and a third is
 * refused), the fused activations of the ops that have one, the version
 * case; the comparisons, LOGICAL_AND, SELECT and SELECT_V2 with their bool
 * tensors (below).
 *
 * Fused TANH is left out: litegpu's float kernels (like TFLite's) accept
 * only NONE, RELU, RELU_N1_TO_1 and RELU6, so the CPU reference refuses it.
 * Domains: DIV's divisor lies in [0.5, 2]; POW's base in [0.1, 2] with
 * exponents in [-2, 2]; FLOOR_DIV and FLOOR_MOD divide [-8, 8] by [0.5, 2],
 * and over their full range by negative divisors (the remainder takes the
 * divisor's sign). Their results jump at integer quotients, so their
 * constant operands lie on float16's grid, as the inputs do in fp16 runs:
 * a constant rounded on the device only would move quotients across an
 * integer. Each op also runs over its full useful range
 * (operands up to |x| = 30000 where the result stays within float16's
 * range; MUL to 250, SQUARED_DIFFERENCE to 120, POW's base to 30 with
 * exponents to 3). */
#include <stdlib.h>

#include "runtime/kernels/fp16.h"
#include "tests/conformance/conformance.h"

typedef struct operand_range {
  float a_lo, a_hi, b_lo, b_hi;
} operand_range;

typedef struct binary_op {
  int32_t code;
  const char* name;
  operand_range usual;
  /* The op's full useful range: the widest operands whose results stay
   * within float16's range (|y| <= 65504), for one extra case per op, so
   * that an intermediate computed in half that overflows is caught. */
  operand_range full;
  bool has_activation;
  bool same_shapes;   /* ADD_N: equal shapes only */
  bool discontinuous; /* constants on float16's grid */
} binary_op;

/* clang-format off */
static const binary_op kOps[] = {
    /* code, name, usual, full, activation, same shapes, discontinuous */
    {kTfLiteBuiltinAdd, "add", {-2, 2, -2, 2}, {-3e4f, 3e4f, -3e4f, 3e4f},
     true, false, false},
    {kTfLiteBuiltinSub, "sub", {-2, 2, -2, 2}, {-3e4f, 3e4f, -3e4f, 3e4f},
     true, false, false},
    {kTfLiteBuiltinMul, "mul", {-2, 2, -2, 2}, {-250, 250, -250, 250}, true,
     false, false},
    {kTfLiteBuiltinDiv, "div", {-2, 2, 0.5f, 2}, {-3e4f, 3e4f, 0.5f, 3e4f},
     true, false, false},
    {kTfLiteBuiltinMaximum, "maximum", {-2, 2, -2, 2},
     {-3e4f, 3e4f, -3e4f, 3e4f}, false, false, false},
    {kTfLiteBuiltinMinimum, "minimum", {-2, 2, -2, 2},
     {-3e4f, 3e4f, -3e4f, 3e4f}, false, false, false},
    {kTfLiteBuiltinSquaredDifference, "squared_difference", {-2, 2, -2, 2},
     {-120, 120, -120, 120}, false, false, false},
    {kTfLiteBuiltinPow, "pow", {0.1f, 2, -2, 2}, {0.1f, 30, -2, 3}, false,
     false, false},
    {kTfLiteBuiltinFloorDiv, "floor_div", {-8, 8, 0.5f, 2},
     {-3e4f, 3e4f, -3e4f, -0.5f}, false, false, true},
    {kTfLiteBuiltinFloorMod, "floor_mod", {-8, 8, 0.5f, 2},
     {-3e4f, 3e4f, -3e4f, -0.5f}, false, false, true},
    {kTfLiteBuiltinAddN, "add_n", {-2, 2, -2, 2}, {-3e4f, 3e4f, -3e4f, 3e4f},
     false, true, false},
};
/* clang-format on */
#define NUM_OPS ((int)(sizeof(kOps) / sizeof(kOps[0])))

typedef struct binary_shapes {
  const char* label;
  conf_shape a, b;
  bool b_const; /* b is a constant (weights) rather than a graph input */
  /* TFLite's GPU rules refuse this broadcast for ADD and MUL (litegpu
   * claims operands of one rank broadcasting both ways: bcast_both_ways). */
  bool may_refuse;
} binary_shapes;

static const binary_shapes kShapes[] = {
    {"same_4d", {4, {1, 8, 8, 3}}, {4, {1, 8, 8, 3}}, false, false},
    {"batch2_c7", {4, {2, 5, 5, 7}}, {4, {2, 5, 5, 7}}, false, false},
    {"c1", {4, {1, 7, 7, 1}}, {4, {1, 7, 7, 1}}, false, false},
    {"rank2_c17", {2, {3, 17}}, {2, {3, 17}}, false, false},
    {"bcast_c17_const", {4, {1, 6, 6, 17}}, {1, {17}}, true, false},
    {"bcast_one_const", {4, {1, 4, 4, 5}}, {1, {1}}, true, false},
    {"bcast_c5_input", {4, {1, 8, 8, 5}}, {4, {1, 1, 1, 5}}, false, false},
    {"bcast_both_ways", {4, {1, 4, 1, 3}}, {4, {1, 1, 5, 3}}, false, false},
    {"bcast_w_const", {4, {2, 3, 4, 5}}, {3, {1, 4, 1}}, true, true},
    {"large_64x64", {4, {1, 64, 64, 3}}, {4, {1, 64, 64, 3}}, false, false},
};
#define NUM_SHAPES ((int)(sizeof(kShapes) / sizeof(kShapes[0])))

/* conf_case.index of the cases over an op's full useful range. */
#define FULL_RANGE 1

static const binary_op* find_op(int32_t code) {
  for (int i = 0; i < NUM_OPS; ++i) {
    if (kOps[i].code == code) return &kOps[i];
  }
  return &kOps[0];
}

/* The params of the ops with a fused activation. */
typedef union activation_params {
  TfLiteAddParams add;
  TfLiteSubParams sub;
  TfLiteMulParams mul;
  TfLiteDivParams div;
} activation_params;

static activation_params params_of(int32_t code, TfLiteFusedActivation act) {
  activation_params p;
  if (code == kTfLiteBuiltinAdd) {
    p.add = (TfLiteAddParams){.activation = act, .pot_scale_int16 = false};
  } else if (code == kTfLiteBuiltinSub) {
    p.sub = (TfLiteSubParams){.activation = act, .pot_scale_int16 = false};
  } else if (code == kTfLiteBuiltinMul) {
    p.mul = (TfLiteMulParams){.activation = act};
  } else {
    p.div = (TfLiteDivParams){.activation = act};
  }
  return p;
}

static bool same_shapes(const binary_shapes* s) {
  if (s->a.rank != s->b.rank) return false;
  for (int i = 0; i < s->a.rank; ++i) {
    if (s->a.d[i] != s->b.d[i]) return false;
  }
  return true;
}

/* A constant of seeded values in [lo, hi] rounded to float16's grid. */
static int32_t half_grid_weights(conf_builder* b, conf_shape shape, float lo,
                                 float hi) {
  const size_t n = conf_shape_elements(shape);
  float* v = malloc((n ? n : 1) * sizeof(float));
  if (v == NULL) return -1;
  for (size_t i = 0; i < n; ++i) {
    v[i] = lg_fp16_to_fp32(
        lg_fp32_to_fp16(lo + (hi - lo) * conf_random(&b->seed)));
  }
  const int32_t t = conf_const_f32(b, shape, v);
  free(v);
  return t;
}

static int build_binary_at(conf_builder* b, const conf_case* c, int version) {
  const binary_op* op = find_op(c->op);
  const binary_shapes* s = c->args;
  const operand_range* r = c->index == FULL_RANGE ? &op->full : &op->usual;
  int32_t in[2];
  in[0] = conf_input(b, s->a, r->a_lo, r->a_hi);
  if (!s->b_const) {
    in[1] = conf_input(b, s->b, r->b_lo, r->b_hi);
  } else if (op->discontinuous) {
    in[1] = half_grid_weights(b, s->b, r->b_lo, r->b_hi);
  } else {
    in[1] = conf_weights(b, s->b, r->b_lo, r->b_hi);
  }
  const activation_params p = params_of(c->op, c->act);
  const int32_t out = conf_output(b);
  return conf_op(b, c->op, version, in, 2, &out, 1,
                 op->has_activation ? &p : NULL) < 0
             ? -1
             : 0;
}

static int build_binary(conf_builder* b, const conf_case* c) {
  return build_binary_at(b, c, 0);
}

/* ADD written at the delegate's kMaxVersion + 1 (a version the CPU runs). */
static int build_add_above_max_version(conf_builder* b, const conf_case* c) {
  const int max = conf_delegate_max_version(kTfLiteBuiltinAdd);
  if (max <= 0 || max >= 1000) return -1; /* no kMaxVersion to exceed */
  return build_binary_at(b, c, max + 1);
}

/* ---- Comparisons, LOGICAL_AND, SELECT / SELECT_V2 -------------------------
 *
 * Their bool tensors are one byte per element on both sides; the cases
 * make them graph outputs (downloaded), graph inputs (uploaded) and
 * tensors inside the partition. Comparisons of floored inputs (integers
 * in [-3, 3]) meet ties, which EQUAL, LESS_EQUAL and GREATER_EQUAL need. */

typedef struct compare_op {
  int32_t code;
  const char* name;
} compare_op;

static const compare_op kCompareOps[] = {
    {kTfLiteBuiltinLess, "less"},
    {kTfLiteBuiltinLessEqual, "less_equal"},
    {kTfLiteBuiltinGreater, "greater"},
    {kTfLiteBuiltinGreaterEqual, "greater_equal"},
    {kTfLiteBuiltinEqual, "equal"},
    {kTfLiteBuiltinNotEqual, "not_equal"},
};

/* The shapes the comparisons run over (kShapes' indices). */
static const int kCompareShapes[] = {0, 3, 4, 6, 7};

/* An input in [-3, 3], floored when `ties` (FLOOR runs on the GPU too). */
static int32_t compare_operand(conf_builder* b, conf_shape shape, bool ties) {
  const int32_t in = conf_input(b, shape, -3, 3);
  if (!ties) return in;
  const int32_t out = conf_intermediate(b, kTfLiteFloat32, shape);
  return conf_op(b, kTfLiteBuiltinFloor, 0, &in, 1, &out, 1, NULL) < 0 ? -1
                                                                       : out;
}

/* A constant of integers in [-3, 3]. */
static int32_t integer_weights(conf_builder* b, conf_shape shape) {
  const size_t n = conf_shape_elements(shape);
  float* v = malloc((n ? n : 1) * sizeof(float));
  if (v == NULL) return -1;
  for (size_t i = 0; i < n; ++i) {
    v[i] = (float)((int)(conf_random(&b->seed) * 7.0f) - 3);
  }
  const int32_t t = conf_const_f32(b, shape, v);
  free(v);
  return t;
}

/* index 1: floored operands (ties); 0: plain ones. */
static int build_compare(conf_builder* b, const conf_case* c) {
  const binary_shapes* s = c->args;
  const bool ties = c->index == 1;
  int32_t in[2];
  in[0] = compare_operand(b, s->a, ties);
  in[1] =
      s->b_const ? integer_weights(b, s->b) : compare_operand(b, s->b, ties);
  const int32_t out = conf_output_typed(b, kTfLiteBool);
  return conf_op(b, c->op, 0, in, 2, &out, 1, NULL) < 0 ? -1 : 0;
}

/* LOGICAL_AND. index 0: of two comparisons inside the partition
 * (a < b) && (a >= t); 1: of two bool graph inputs of one shape; 2: of
 * bool graph inputs broadcast both ways. */
static int build_logical_and(conf_builder* b, const conf_case* c) {
  int32_t in[2];
  if (c->index == 0) {
    const conf_shape shape = CONF_SHAPE(1, 6, 6, 5);
    const int32_t x = compare_operand(b, shape, true);
    const int32_t y = compare_operand(b, shape, true);
    const int32_t t = integer_weights(b, CONF_SHAPE(1));
    const int32_t lt[2] = {x, y}, ge[2] = {x, t};
    in[0] = conf_intermediate(b, kTfLiteBool, shape);
    in[1] = conf_intermediate(b, kTfLiteBool, shape);
    if (conf_op(b, kTfLiteBuiltinLess, 0, lt, 2, &in[0], 1, NULL) < 0 ||
        conf_op(b, kTfLiteBuiltinGreaterEqual, 0, ge, 2, &in[1], 1, NULL) < 0) {
      return -1;
    }
  } else if (c->index == 1) {
    in[0] = conf_input_typed(b, kTfLiteBool, CONF_SHAPE(2, 5, 5, 7), 0, 1);
    in[1] = conf_input_typed(b, kTfLiteBool, CONF_SHAPE(2, 5, 5, 7), 0, 1);
  } else {
    in[0] = conf_input_typed(b, kTfLiteBool, CONF_SHAPE(1, 4, 1, 3), 0, 1);
    in[1] = conf_input_typed(b, kTfLiteBool, CONF_SHAPE(1, 1, 5, 3), 0, 1);
  }
  const int32_t out = conf_output_typed(b, kTfLiteBool);
  return conf_op(b, kTfLiteBuiltinLogicalAnd, 0, in, 2, &out, 1, NULL) < 0 ? -1
                                                                           : 0;
}

/* SELECT / SELECT_V2 (c->op). index 0: a bool graph input picks between
 * two inputs of one shape; 1: the condition a > b computed on the GPU
 * picks a or b (a maximum); 2: a constant scalar y; 3 (SELECT_V2): a
 * condition broadcast over the channels; 4 (SELECT): a scalar condition;
 * 5 (SELECT): a rank-1 condition along the first dim (the GPU refuses
 * it). */
static int build_select(conf_builder* b, const conf_case* c) {
  const conf_shape shape = CONF_SHAPE(2, 5, 5, 7);
  int32_t in[3];
  if (c->index == 1) {
    in[1] = conf_input(b, shape, -2, 2);
    in[2] = conf_input(b, shape, -2, 2);
    in[0] = conf_intermediate(b, kTfLiteBool, shape);
    if (conf_op(b, kTfLiteBuiltinGreater, 0, &in[1], 2, &in[0], 1, NULL) < 0) {
      return -1;
    }
  } else {
    const conf_shape cond = c->index == 3   ? CONF_SHAPE(1, 1, 1, 7)
                            : c->index == 4 ? (conf_shape){0, {0}}
                            : c->index == 5 ? CONF_SHAPE(2)
                                            : shape;
    in[0] = conf_input_typed(b, kTfLiteBool, cond, 0, 1);
    in[1] = conf_input(b, shape, -2, 2);
    in[2] = c->index == 2 ? integer_weights(b, CONF_SHAPE(1))
                          : conf_input(b, shape, -2, 2);
  }
  const int32_t out = conf_output(b);
  return conf_op(b, c->op, 0, in, 3, &out, 1, NULL) < 0 ? -1 : 0;
}

static void add_bool_cases(conf_case_list* list) {
  for (size_t o = 0; o < sizeof(kCompareOps) / sizeof(kCompareOps[0]); ++o) {
    for (size_t k = 0; k < sizeof(kCompareShapes) / sizeof(int); ++k) {
      const binary_shapes* s = &kShapes[kCompareShapes[k]];
      conf_case_add(list, kCompareOps[o].code, build_compare, s, kTfLiteActNone,
                    0, "%s_ties_%s", kCompareOps[o].name, s->label)
          ->index = 1;
    }
    /* Continuous operands: never equal, so EQUAL and NOT_EQUAL only tie. */
    if (kCompareOps[o].code == kTfLiteBuiltinEqual ||
        kCompareOps[o].code == kTfLiteBuiltinNotEqual) {
      continue;
    }
    conf_case_add(list, kCompareOps[o].code, build_compare, &kShapes[1],
                  kTfLiteActNone, 0, "%s_%s", kCompareOps[o].name,
                  kShapes[1].label);
  }
  static const char* const kAnd[] = {"of_comparisons", "bool_inputs",
                                     "bool_inputs_bcast_both_ways"};
  for (int i = 0; i < 3; ++i) {
    conf_case_add(list, kTfLiteBuiltinLogicalAnd, build_logical_and, NULL,
                  kTfLiteActNone, 0, "logical_and_%s", kAnd[i])
        ->index = i;
  }
  static const char* const kSelect[] = {"bool_input",       "of_greater",
                                        "scalar_const_y",   "bcast_condition",
                                        "scalar_condition", "rank1_condition"};
  for (int i = 0; i < 6; ++i) {
    const bool v2 = i != 4 && i != 5;
    const bool v1 = i != 2 && i != 3; /* SELECT: x and y of one shape */
    if (v2) {
      conf_case_add(list, kTfLiteBuiltinSelectV2, build_select, NULL,
                    kTfLiteActNone, 0, "select_v2_%s", kSelect[i])
          ->index = i;
    }
    if (v1) {
      conf_case* c =
          conf_case_add(list, kTfLiteBuiltinSelect, build_select, NULL,
                        kTfLiteActNone, 0, "select_%s", kSelect[i]);
      c->index = i;
      /* The GPU delegate refuses it (test_gpu_bool_ops.py checks the
       * reason); the reference delegate runs it. */
      c->may_refuse = i == 5;
    }
  }
}

/* ADD_N of three inputs: the CPU sums them, TFLite's GPU rule refuses. */
static int build_add_n3(conf_builder* b, const conf_case* c) {
  const binary_shapes* s = c->args;
  int32_t in[3];
  for (int i = 0; i < 3; ++i) in[i] = conf_input(b, s->a, -2, 2);
  const int32_t out = conf_output(b);
  return conf_op(b, c->op, 0, in, 3, &out, 1, NULL) < 0 ? -1 : 0;
}

void conf_add_binary_cases(conf_case_list* list) {
  static const TfLiteFusedActivation kActs[] = {kTfLiteActRelu, kTfLiteActRelu6,
                                                kTfLiteActReluN1To1};
  for (int o = 0; o < NUM_OPS; ++o) {
    for (int s = 0; s < NUM_SHAPES; ++s) {
      if (kOps[o].same_shapes && !same_shapes(&kShapes[s])) continue;
      conf_case_add(list, kOps[o].code, build_binary, &kShapes[s],
                    kTfLiteActNone, 0, "%s_%s", kOps[o].name, kShapes[s].label)
          ->may_refuse = kShapes[s].may_refuse;
    }
    /* Full range: equal shapes and a broadcast input. Not a constant:
     * half storage rounds constants on the device only, and near-equal
     * operands of 30000 would cancel to less than that rounding. */
    conf_case_add(list, kOps[o].code, build_binary, &kShapes[1], kTfLiteActNone,
                  0, "%s_full_range_%s", kOps[o].name, kShapes[1].label)
        ->index = FULL_RANGE;
    if (!kOps[o].same_shapes) {
      conf_case_add(list, kOps[o].code, build_binary, &kShapes[6],
                    kTfLiteActNone, 0, "%s_full_range_%s", kOps[o].name,
                    kShapes[6].label)
          ->index = FULL_RANGE;
    }
    if (!kOps[o].has_activation) continue;
    for (int a = 0; a < 3; ++a) {
      /* Equal shapes and a constant channel broadcast. */
      conf_case_add(list, kOps[o].code, build_binary, &kShapes[0], kActs[a], 0,
                    "%s_%s_%s", kOps[o].name, conf_act_name(kActs[a]),
                    kShapes[0].label);
      conf_case_add(list, kOps[o].code, build_binary, &kShapes[4], kActs[a], 0,
                    "%s_%s_%s", kOps[o].name, conf_act_name(kActs[a]),
                    kShapes[4].label);
    }
  }
  add_bool_cases(list);
  /* Refused by TFLite's GPU rule (test_gpu_op_support checks the reason);
   * the reference delegate runs it. */
  conf_case_add(list, kTfLiteBuiltinAddN, build_add_n3, &kShapes[0],
                kTfLiteActNone, 0, "add_n_three_inputs")
      ->may_refuse = true;
  conf_case_add(list, kTfLiteBuiltinAdd, build_add_above_max_version,
                &kShapes[0], kTfLiteActNone, 0, "add_version_above_max")
      ->expect_reason = "Max version supported";
}
