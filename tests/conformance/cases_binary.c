/* Binary elementwise cases: ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM,
 * SQUARED_DIFFERENCE, POW over one set of shape pairs (equal shapes, batch,
 * odd channel counts, rank 2, constant and non-constant broadcasts, 64x64),
 * the fused activations of the ops that have one, and the version case.
 *
 * Fused TANH is left out: litegpu's float kernels (like TFLite's) accept
 * only NONE, RELU, RELU_N1_TO_1 and RELU6, so the CPU reference refuses it.
 * Domains: DIV's divisor lies in [0.5, 2]; POW's base in [0.1, 2] with
 * exponents in [-2, 2]. Each op also runs over its full useful range
 * (operands up to |x| = 30000 where the result stays within float16's
 * range; MUL to 250, SQUARED_DIFFERENCE to 120, POW's base to 30 with
 * exponents to 3). */
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
} binary_op;

static const binary_op kOps[] = {
    {kTfLiteBuiltinAdd,
     "add",
     {-2, 2, -2, 2},
     {-3e4f, 3e4f, -3e4f, 3e4f},
     true},
    {kTfLiteBuiltinSub,
     "sub",
     {-2, 2, -2, 2},
     {-3e4f, 3e4f, -3e4f, 3e4f},
     true},
    {kTfLiteBuiltinMul, "mul", {-2, 2, -2, 2}, {-250, 250, -250, 250}, true},
    {kTfLiteBuiltinDiv,
     "div",
     {-2, 2, 0.5f, 2},
     {-3e4f, 3e4f, 0.5f, 3e4f},
     true},
    {kTfLiteBuiltinMaximum,
     "maximum",
     {-2, 2, -2, 2},
     {-3e4f, 3e4f, -3e4f, 3e4f},
     false},
    {kTfLiteBuiltinMinimum,
     "minimum",
     {-2, 2, -2, 2},
     {-3e4f, 3e4f, -3e4f, 3e4f},
     false},
    {kTfLiteBuiltinSquaredDifference,
     "squared_difference",
     {-2, 2, -2, 2},
     {-120, 120, -120, 120},
     false},
    {kTfLiteBuiltinPow, "pow", {0.1f, 2, -2, 2}, {0.1f, 30, -2, 3}, false},
};
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

static int build_binary_at(conf_builder* b, const conf_case* c, int version) {
  const binary_op* op = find_op(c->op);
  const binary_shapes* s = c->args;
  const operand_range* r = c->index == FULL_RANGE ? &op->full : &op->usual;
  int32_t in[2];
  in[0] = conf_input(b, s->a, r->a_lo, r->a_hi);
  in[1] = s->b_const ? conf_weights(b, s->b, r->b_lo, r->b_hi)
                     : conf_input(b, s->b, r->b_lo, r->b_hi);
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

void conf_add_binary_cases(conf_case_list* list) {
  static const TfLiteFusedActivation kActs[] = {kTfLiteActRelu, kTfLiteActRelu6,
                                                kTfLiteActReluN1To1};
  for (int o = 0; o < NUM_OPS; ++o) {
    for (int s = 0; s < NUM_SHAPES; ++s) {
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
    conf_case_add(list, kOps[o].code, build_binary, &kShapes[6], kTfLiteActNone,
                  0, "%s_full_range_%s", kOps[o].name, kShapes[6].label)
        ->index = FULL_RANGE;
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
  conf_case_add(list, kTfLiteBuiltinAdd, build_add_above_max_version,
                &kShapes[0], kTfLiteActNone, 0, "add_version_above_max")
      ->expect_reason = "Max version supported";
}
