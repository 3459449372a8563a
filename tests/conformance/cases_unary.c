/* Unary and activation cases: LOGISTIC, TANH, RELU, RELU6, RELU_N1_TO_1,
 * RELU_0_TO_1, LEAKY_RELU, ELU, HARD_SWISH, GELU (exact and approximate), EXP,
 * LOG, SQRT, RSQRT, SQUARE, ABS, NEG, SIN, COS, FLOOR, SIGN and SOFTMAX (beta 1
 * and 0.5) over shapes with odd channel counts, a batch, rank 2 and 64x64;
 * PRELU with per-channel and broadcast alphas; DEQUANTIZE of a constant
 * float16 weight feeding ADD; CAST int32 -> float32, float32 -> bool and
 * bool -> float32 (of a comparison, and of a bool input); SIGN of floored
 * inputs (zeros).
 *
 * Domains: LOG, SQRT and RSQRT get inputs in [0.1, 4]; the others [-4, 4]
 * (wide enough to cross every clamp and saturation). Each op also runs
 * once over its full useful range (up to |x| = 30000 where the output
 * stays within float16's range; EXP up to 11, SQUARE to 250): an
 * intermediate computed in half that overflows shows up there. */
#include "tests/conformance/conformance.h"

static const TfLiteSoftmaxParams kBeta1 = {1.0f};
static const TfLiteSoftmaxParams kBetaHalf = {0.5f};
static const TfLiteLeakyReluParams kAlpha = {0.2f};
static const TfLiteGeluParams kGeluExact = {false};
static const TfLiteGeluParams kGeluApprox = {true};

typedef struct unary_op {
  int32_t code;
  const char* name;
  float lo, hi; /* the usual domain: crosses every clamp and saturation */
  /* The op's full useful range: the widest inputs whose outputs stay within
   * float16's range (|y| <= 65504), for one extra case per op, so that an
   * intermediate a kernel computes in half and overflows is caught. */
  float full_lo, full_hi;
  const void* params; /* NULL: the op has none */
  /* TFLite's GPU rules refuse these parameters (SOFTMAX beta != 1), so a
   * delegate may reject the case with a reason even when it runs the op. */
  bool may_refuse;
} unary_op;

static const unary_op kOps[] = {
    {kTfLiteBuiltinLogistic, "logistic", -4, 4, -3e4f, 3e4f, NULL, false},
    {kTfLiteBuiltinTanh, "tanh", -4, 4, -3e4f, 3e4f, NULL, false},
    {kTfLiteBuiltinRelu, "relu", -4, 4, -3e4f, 3e4f, NULL, false},
    {kTfLiteBuiltinRelu6, "relu6", -4, 8, -3e4f, 3e4f, NULL, false},
    {kTfLiteBuiltinReluN1To1, "relu_n1_to_1", -4, 4, -3e4f, 3e4f, NULL, false},
    {kTfLiteBuiltinRelu0To1, "relu_0_to_1", -4, 4, -3e4f, 3e4f, NULL, false},
    {kTfLiteBuiltinLeakyRelu, "leaky_relu", -4, 4, -3e4f, 3e4f, &kAlpha, false},
    {kTfLiteBuiltinElu, "elu", -4, 4, -3e4f, 3e4f, NULL, false},
    {kTfLiteBuiltinHardSwish, "hard_swish", -5, 5, -3e4f, 3e4f, NULL, false},
    {kTfLiteBuiltinGelu, "gelu", -4, 4, -3e4f, 3e4f, &kGeluExact, false},
    {kTfLiteBuiltinGelu, "gelu_approximate", -4, 4, -3e4f, 3e4f, &kGeluApprox,
     false},
    {kTfLiteBuiltinExp, "exp", -4, 4, -20, 11, NULL, false},
    {kTfLiteBuiltinLog, "log", 0.1f, 4, 1e-3f, 3e4f, NULL, false},
    {kTfLiteBuiltinSqrt, "sqrt", 0.1f, 4, 0, 3e4f, NULL, false},
    {kTfLiteBuiltinRsqrt, "rsqrt", 0.1f, 4, 1e-3f, 3e4f, NULL, false},
    {kTfLiteBuiltinSquare, "square", -4, 4, -250, 250, NULL, false},
    {kTfLiteBuiltinAbs, "abs", -4, 4, -3e4f, 3e4f, NULL, false},
    {kTfLiteBuiltinNeg, "neg", -4, 4, -3e4f, 3e4f, NULL, false},
    {kTfLiteBuiltinSin, "sin", -4, 4, -100, 100, NULL, false},
    {kTfLiteBuiltinCos, "cos", -4, 4, -100, 100, NULL, false},
    {kTfLiteBuiltinFloor, "floor", -4, 4, -3e4f, 3e4f, NULL, false},
    {kTfLiteBuiltinSign, "sign", -4, 4, -3e4f, 3e4f, NULL, false},
    {kTfLiteBuiltinSoftmax, "softmax_beta1", -4, 4, -3e4f, 3e4f, &kBeta1,
     false},
    {kTfLiteBuiltinSoftmax, "softmax_beta0.5", -4, 4, -3e4f, 3e4f, &kBetaHalf,
     true},
};
#define NUM_OPS ((int)(sizeof(kOps) / sizeof(kOps[0])))

typedef struct labelled_shape {
  const char* label;
  conf_shape shape;
} labelled_shape;

static const labelled_shape kShapes[] = {
    {"4d_c3", {4, {1, 8, 8, 3}}},
    {"batch2_c7", {4, {2, 5, 5, 7}}},
    {"1x1_c17", {4, {1, 1, 1, 17}}},
    {"rank2_c17", {2, {3, 17}}},
    {"large_64x64", {4, {1, 64, 64, 5}}},
    {"classes1000", {2, {2, 1000}}}, /* SOFTMAX only: a classifier head */
};
#define NUM_SHAPES 5 /* the shapes every op runs */
#define SHAPE_CLASSES 5

static int build_unary(conf_builder* b, const conf_case* c) {
  const unary_op* op = c->args;
  const int32_t in = conf_input(b, kShapes[c->index].shape, op->lo, op->hi);
  return conf_op1(b, op->code, &in, 1, op->params) < 0 ? -1 : 0;
}

/* The op over its full useful range (unary_op.full_lo/hi). */
static int build_unary_full_range(conf_builder* b, const conf_case* c) {
  const unary_op* op = c->args;
  const int32_t in =
      conf_input(b, kShapes[c->index].shape, op->full_lo, op->full_hi);
  return conf_op1(b, op->code, &in, 1, op->params) < 0 ? -1 : 0;
}

/* ---- PRELU --------------------------------------------------------------- */

typedef struct prelu_case {
  const char* label;
  conf_shape input, alpha;
} prelu_case;

static const prelu_case kPrelu[] = {
    {"alpha_c", {4, {1, 8, 8, 5}}, {1, {5}}},
    {"alpha_11c", {4, {2, 4, 4, 3}}, {3, {1, 1, 3}}},
    {"alpha_full", {4, {1, 3, 3, 17}}, {3, {3, 3, 17}}},
    {"alpha_c1", {4, {1, 6, 6, 1}}, {1, {1}}},
};

static int build_prelu(conf_builder* b, const conf_case* c) {
  const prelu_case* p = c->args;
  int32_t in[2];
  in[0] = conf_input(b, p->input, -4, 4);
  in[1] = conf_weights(b, p->alpha, 0, 0.5f);
  return conf_op1(b, kTfLiteBuiltinPrelu, in, 2, NULL) < 0 ? -1 : 0;
}

/* ---- DEQUANTIZE (float16 constant) feeding ADD --------------------------- */

typedef struct dequantize_case {
  const char* label;
  conf_shape input, weight;
} dequantize_case;

static const dequantize_case kDequantize[] = {
    {"f16_weight_add", {4, {1, 8, 8, 3}}, {4, {1, 8, 8, 3}}},
    {"f16_bias_c17_add", {4, {1, 4, 4, 17}}, {1, {17}}},
};

static int build_dequantize(conf_builder* b, const conf_case* c) {
  const dequantize_case* p = c->args;
  const int32_t x = conf_input(b, p->input, -2, 2);
  const int32_t w16 = conf_weights_f16(b, p->weight, -2, 2);
  const int32_t w = conf_intermediate(b, kTfLiteFloat32, p->weight);
  if (conf_op(b, kTfLiteBuiltinDequantize, 0, &w16, 1, &w, 1, NULL) < 0) {
    return -1;
  }
  const int32_t in[2] = {x, w};
  const TfLiteAddParams add = {kTfLiteActNone, false};
  return conf_op1(b, kTfLiteBuiltinAdd, in, 2, &add) < 0 ? -1 : 0;
}

/* ---- QUANTIZE (the GPU's quantized path) ---------------------------------
 * Float inputs quantized, carried through quantized tensors and
 * dequantized to a float output: on the GPU, fake quantization onto each
 * grid (TFLite's ENABLE_QUANT). The bound, 0.0625 * max(1, |ref|), is at
 * least one step of the coarsest grid on the way (1/16; 1/8 for the
 * requantization) and at most four. */

typedef struct quantize_case {
  const char* label;
  conf_shape shape;
  int kind; /* 0 int8 round trip, 1 uint8 requantized to int8, 2 int8 ADDs */
} quantize_case;

static const quantize_case kQuantize[] = {
    {"int8_roundtrip", {4, {1, 8, 8, 5}}, 0},
    {"uint8_requantize_int8", {4, {2, 4, 4, 7}}, 1},
    {"int8_adds", {4, {1, 6, 6, 9}}, 2},
};

static int build_quantize(conf_builder* b, const conf_case* c) {
  const quantize_case* p = c->args;
  const int32_t x = conf_input(b, p->shape, -4, 4);
  const int32_t q =
      conf_intermediate_quant(b, kTfLiteInt8, p->shape, 1.0f / 32.0f, 3);
  int32_t last = q;
  if (p->kind == 1) {
    const int32_t u =
        conf_intermediate_quant(b, kTfLiteUInt8, p->shape, 1.0f / 16.0f, 128);
    if (conf_op(b, kTfLiteBuiltinQuantize, 0, &x, 1, &u, 1, NULL) < 0) {
      return -1;
    }
    const int32_t r =
        conf_intermediate_quant(b, kTfLiteInt8, p->shape, 1.0f / 8.0f, -5);
    if (conf_op(b, kTfLiteBuiltinQuantize, 0, &u, 1, &r, 1, NULL) < 0) {
      return -1;
    }
    last = r;
  } else {
    if (conf_op(b, kTfLiteBuiltinQuantize, 0, &x, 1, &q, 1, NULL) < 0) {
      return -1;
    }
  }
  if (p->kind == 2) {
    const int32_t y = conf_input(b, p->shape, -4, 4);
    const int32_t qy =
        conf_intermediate_quant(b, kTfLiteInt8, p->shape, 1.0f / 16.0f, -2);
    if (conf_op(b, kTfLiteBuiltinQuantize, 0, &y, 1, &qy, 1, NULL) < 0) {
      return -1;
    }
    /* The sum's grid ends at +-2 and the doubled sum's at +-8: a GPU that
     * skipped the fake quantization after the first ADD would carry sums
     * beyond 2 into the second. */
    const int32_t sum =
        conf_intermediate_quant(b, kTfLiteInt8, p->shape, 1.0f / 64.0f, 0);
    const int32_t in[2] = {q, qy};
    const TfLiteAddParams add = {kTfLiteActNone, false};
    if (conf_op(b, kTfLiteBuiltinAdd, 0, in, 2, &sum, 1, &add) < 0) return -1;
    const int32_t doubled =
        conf_intermediate_quant(b, kTfLiteInt8, p->shape, 1.0f / 16.0f, 0);
    const int32_t twice[2] = {sum, sum};
    const TfLiteAddParams relu = {kTfLiteActRelu, false};
    if (conf_op(b, kTfLiteBuiltinAdd, 0, twice, 2, &doubled, 1, &relu) < 0) {
      return -1;
    }
    last = doubled;
  }
  const int32_t out = conf_output(b);
  return conf_op(b, kTfLiteBuiltinDequantize, 0, &last, 1, &out, 1, NULL) < 0
             ? -1
             : 0;
}

/* ---- DENSIFY (sparse weights, made dense on the CPU in Prepare) ---------- */

typedef struct densify_case {
  const char* label;
  int rows, cols;
  TfLiteType type; /* FLOAT16: a DEQUANTIZE follows, as in MediaPipe */
} densify_case;

static const densify_case kDensify[] = {
    {"f32_add", 6, 10, kTfLiteFloat32},
    {"f16_dequantize_add", 5, 17, kTfLiteFloat16},
};

static int build_densify(conf_builder* b, const conf_case* c) {
  const densify_case* p = c->args;
  const conf_shape shape = {2, {p->rows, p->cols}};
  const int32_t x = conf_input(b, shape, -2, 2);
  const int32_t sparse =
      conf_sparse_weights(b, p->type, p->rows, p->cols, -2, 2);
  int32_t w = conf_intermediate(b, p->type, shape);
  if (conf_op(b, kTfLiteBuiltinDensify, 0, &sparse, 1, &w, 1, NULL) < 0) {
    return -1;
  }
  if (p->type == kTfLiteFloat16) {
    const int32_t w16 = w;
    w = conf_intermediate(b, kTfLiteFloat32, shape);
    if (conf_op(b, kTfLiteBuiltinDequantize, 0, &w16, 1, &w, 1, NULL) < 0) {
      return -1;
    }
  }
  const int32_t in[2] = {x, w};
  const TfLiteAddParams add = {kTfLiteActNone, false};
  return conf_op1(b, kTfLiteBuiltinAdd, in, 2, &add) < 0 ? -1 : 0;
}

/* ---- SIGN of zeros ---------------------------------------------------------
 */

/* SIGN of floored inputs in [-4, 4]: an eighth of them are zeros. */
static int build_sign_of_floor(conf_builder* b, const conf_case* c) {
  const conf_shape shape = kShapes[c->index].shape;
  const int32_t in = conf_input(b, shape, -4, 4);
  const int32_t floored = conf_intermediate(b, kTfLiteFloat32, shape);
  if (conf_op(b, kTfLiteBuiltinFloor, 0, &in, 1, &floored, 1, NULL) < 0) {
    return -1;
  }
  return conf_op1(b, kTfLiteBuiltinSign, &floored, 1, NULL) < 0 ? -1 : 0;
}

/* ---- CAST int32 -> float32 ---------------------------------------------- */

static int build_cast(conf_builder* b, const conf_case* c) {
  const int32_t in =
      conf_input_typed(b, kTfLiteInt32, kShapes[c->index].shape, -100, 100);
  const TfLiteCastParams p = {kTfLiteInt32, kTfLiteFloat32};
  return conf_op1(b, kTfLiteBuiltinCast, &in, 1, &p) < 0 ? -1 : 0;
}

/* ---- CAST to and from bool ----------------------------------------------
 * index 0: float32 -> bool; 1: the bool of x < y computed on the GPU ->
 * float32 (TFLite's comparison -> CAST sequence); 2: a bool graph input ->
 * float32, which TFLite's rule leaves on the CPU. */

static int build_cast_bool(conf_builder* b, const conf_case* c) {
  const conf_shape shape = kShapes[0].shape;
  int32_t in;
  TfLiteCastParams p = {kTfLiteBool, kTfLiteFloat32};
  if (c->index == 0) {
    in = conf_input(b, shape, -1, 1);
    p = (TfLiteCastParams){kTfLiteFloat32, kTfLiteBool};
    const int32_t out = conf_output_typed(b, kTfLiteBool);
    return conf_op(b, kTfLiteBuiltinCast, 0, &in, 1, &out, 1, &p) < 0 ? -1 : 0;
  }
  if (c->index == 1) {
    const int32_t xy[2] = {conf_input(b, shape, -1, 1),
                           conf_input(b, shape, -1, 1)};
    in = conf_intermediate(b, kTfLiteBool, shape);
    if (conf_op(b, kTfLiteBuiltinLess, 0, xy, 2, &in, 1, NULL) < 0) return -1;
  } else {
    in = conf_input_typed(b, kTfLiteBool, shape, 0, 1);
  }
  return conf_op1(b, kTfLiteBuiltinCast, &in, 1, &p) < 0 ? -1 : 0;
}

void conf_add_unary_cases(conf_case_list* list) {
  for (int o = 0; o < NUM_OPS; ++o) {
    for (int s = 0; s < NUM_SHAPES; ++s) {
      conf_case* c = conf_case_add(list, kOps[o].code, build_unary, &kOps[o],
                                   kTfLiteActNone, 0, "%s_%s", kOps[o].name,
                                   kShapes[s].label);
      c->index = s;
      c->may_refuse = kOps[o].may_refuse;
    }
    conf_case* full =
        conf_case_add(list, kOps[o].code, build_unary_full_range, &kOps[o],
                      kTfLiteActNone, 0, "%s_full_range", kOps[o].name);
    full->index = 1; /* batch2_c7 */
    full->may_refuse = kOps[o].may_refuse;
    if (kOps[o].code == kTfLiteBuiltinSoftmax) {
      conf_case* c = conf_case_add(list, kOps[o].code, build_unary, &kOps[o],
                                   kTfLiteActNone, 0, "%s_%s", kOps[o].name,
                                   kShapes[SHAPE_CLASSES].label);
      c->index = SHAPE_CLASSES;
      c->may_refuse = kOps[o].may_refuse;
    }
  }
  for (size_t i = 0; i < sizeof(kPrelu) / sizeof(kPrelu[0]); ++i) {
    conf_case_add(list, kTfLiteBuiltinPrelu, build_prelu, &kPrelu[i],
                  kTfLiteActNone, 0, "prelu_%s", kPrelu[i].label);
  }
  for (size_t i = 0; i < sizeof(kDequantize) / sizeof(kDequantize[0]); ++i) {
    conf_case_add(list, kTfLiteBuiltinDequantize, build_dequantize,
                  &kDequantize[i], kTfLiteActNone, 0, "dequantize_%s",
                  kDequantize[i].label);
  }
  for (size_t i = 0; i < sizeof(kDensify) / sizeof(kDensify[0]); ++i) {
    conf_case_add(list, kTfLiteBuiltinDensify, build_densify, &kDensify[i],
                  kTfLiteActNone, 0, "densify_%s", kDensify[i].label);
  }
  for (size_t i = 0; i < sizeof(kQuantize) / sizeof(kQuantize[0]); ++i) {
    conf_case_add(list, kTfLiteBuiltinQuantize, build_quantize, &kQuantize[i],
                  kTfLiteActNone, 0.0625, "quantize_%s", kQuantize[i].label);
  }
  conf_case_add(list, kTfLiteBuiltinSign, build_sign_of_floor, NULL,
                kTfLiteActNone, 0, "sign_of_floor_%s", kShapes[1].label)
      ->index = 1;
  for (int s = 0; s < 4; ++s) {
    conf_case_add(list, kTfLiteBuiltinCast, build_cast, NULL, kTfLiteActNone, 0,
                  "cast_int32_float32_%s", kShapes[s].label)
        ->index = s;
  }
  static const char* const kCastBool[] = {"float32_bool", "less_bool_float32",
                                          "input_bool_float32"};
  for (int i = 0; i < 3; ++i) {
    conf_case* c =
        conf_case_add(list, kTfLiteBuiltinCast, build_cast_bool, NULL,
                      kTfLiteActNone, 0, "cast_%s", kCastBool[i]);
    c->index = i;
    c->may_refuse = i == 2;
  }
}
