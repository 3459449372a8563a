/* Op versions from op signatures (see op_version.h).
 *
 * The facts are TFLite's GetBuiltinOperatorVersion (TensorFlow
 * tensorflow/lite/tools/versioning/op_version.cc and
 * tensorflow/compiler/mlir/lite/tools/versioning/op_version.cc; LiteRT
 * tflite/converter/tools/versioning/op_version.cc), and the signature facts
 * its GetOpSignature derives (op_signature.cc: grouped convolution, per-channel
 * weights, sparse weights, quantized inputs). The newest rules are used; the
 * float8 cases come from the LiteRT head as summarized in the project's
 * reference sheet (tflite-facts.md section 5).
 *
 * Structure: most ops' rules only test one input's type (sometimes together
 * with output 0's type) or its rank, so they are rows of a table of "ladders"
 * (kLadders): steps tried in order, the first that matches gives the version.
 * The ops whose rules read parameters or derived facts have a function each
 * (kRuleFns). An op in neither table has no rules here (version 0).
 *
 * Where this differs from TFLite's code (its behaviour is kept otherwise):
 *   - a tensor past the op's inputs or outputs reads as kTfLiteNoType instead
 *     of throwing std::out_of_range;
 *   - CONV_2D's int16 rule (version 4) and DEPTHWISE_CONV_2D's (version 5)
 *     test outputs[1] in TFLite, which throws for these single-output ops;
 *     litegpu tests output 0, the evident intent;
 *   - shapes are only indexed where they have the dims a rule reads (TFLite
 *     reads filter dims [3] / [0] unchecked).
 */
#include "versioning/op_version.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/model/builtin_options.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

_Static_assert(sizeof(int) == sizeof(int32_t), "TfLiteIntArray holds int32");

/* ---- Tensor access --------------------------------------------------------
 */

static const lg_op_tensor_spec kAbsent = {.type = kTfLiteNoType};

static const lg_op_tensor_spec* lg_in(const lg_op_signature* s, int i) {
  if (i < s->num_inputs && i < LG_OP_SIGNATURE_MAX_TENSORS) {
    return &s->inputs[i];
  }
  return &kAbsent;
}

static const lg_op_tensor_spec* lg_out(const lg_op_signature* s, int i) {
  if (i < s->num_outputs && i < LG_OP_SIGNATURE_MAX_TENSORS) {
    return &s->outputs[i];
  }
  return &kAbsent;
}

static TfLiteType lg_in_type(const lg_op_signature* s, int i) {
  return lg_in(s, i)->type;
}

static TfLiteType lg_out_type(const lg_op_signature* s, int i) {
  return lg_out(s, i)->type;
}

/* Input 0, input 1 and output 0 have types a, w and o (conv-style ops). */
static bool lg_types3(const lg_op_signature* s, TfLiteType a, TfLiteType w,
                      TfLiteType o) {
  return lg_in_type(s, 0) == a && lg_in_type(s, 1) == w &&
         lg_out_type(s, 0) == o;
}

static bool lg_is_float8(TfLiteType t) {
  return t == kTfLiteFloat8E4M3FN || t == kTfLiteFloat8E5M2;
}

/* NeedBroadcastForBinaryInputs: the first two inputs' dims differ. */
static bool lg_needs_broadcast(const lg_op_signature* s) {
  if (s->num_inputs < 2) return false;
  const lg_op_tensor_spec* a = lg_in(s, 0);
  const lg_op_tensor_spec* b = lg_in(s, 1);
  if (a->num_dims != b->num_dims) return true;
  for (int i = 0; i < a->num_dims; ++i) {
    if (a->dims[i] != b->dims[i]) return true;
  }
  return false;
}

/* GetInputMaxDims: the highest rank among the (described) inputs. */
static int lg_max_input_rank(const lg_op_signature* s) {
  int max_rank = 0;
  for (int i = 0; i < s->num_inputs && i < LG_OP_SIGNATURE_MAX_TENSORS; ++i) {
    if (s->inputs[i].num_dims > max_rank) max_rank = s->inputs[i].num_dims;
  }
  return max_rank;
}

/* The tensor has one scale per index of dimension `dim` (IsTensorSizeEqual
 * in op_signature.cc: also true for one scale and a dimension of 1). */
static bool lg_scales_along(const lg_op_tensor_spec* t, int dim) {
  return t->num_scales > 0 && dim >= 0 && dim < t->num_dims &&
         t->dims[dim] >= 0 && t->num_scales == t->dims[dim];
}

/* Per-channel quantized along the tensor's quantized_dimension, with more
 * than one scale (DEQUANTIZE's input, QUANTIZE's output). */
static bool lg_per_channel(const lg_op_tensor_spec* t) {
  return t->num_scales > 1 && lg_scales_along(t, t->quantized_dimension);
}

/* ---- Ladders ---------------------------------------------------------------
 */

typedef enum lg_step_kind {
  LG_STEP_END = 0,
  LG_STEP_TYPE,        /* the tested input has type `arg` */
  LG_STEP_TYPE_IN_OUT, /* ... and output 0 has it too */
  LG_STEP_RANK_ABOVE,  /* the tested input has more than `arg` dims */
} lg_step_kind;

typedef struct lg_step {
  uint8_t kind;
  uint8_t version;
  int16_t arg;
} lg_step;

#define LG_MAX_STEPS 10

typedef struct lg_ladder {
  int32_t code;
  int8_t input; /* the input the steps test */
  int8_t base;  /* the version when no step matches */
  lg_step steps[LG_MAX_STEPS];
} lg_ladder;

/* clang-format off */
#define T(type, v) {LG_STEP_TYPE, (v), (type)}
#define IO(type, v) {LG_STEP_TYPE_IN_OUT, (v), (type)}
#define RANK(rank, v) {LG_STEP_RANK_ABOVE, (v), (rank)}
/* One row per op; `...` are its steps. */
#define LADDER(code, ...) {(code), 0, 1, {__VA_ARGS__}}
#define LADDER_ON(code, input, base, ...) {(code), (input), (base), {__VA_ARGS__}}
/* An op without rules: always version 1. */
#define NO_RULES(code) {(code), 0, 1, {{LG_STEP_END, 0, 0}}}
/* clang-format on */

/* Shared step lists. */
#define LG_I16_I8 T(kTfLiteInt16, 3), T(kTfLiteInt8, 2)
#define LG_IO16_I8 IO(kTfLiteInt16, 3), T(kTfLiteInt8, 2)
#define LG_PAD_STEPS                                                     \
  T(kTfLiteFloat8E4M3FN, 6), T(kTfLiteFloat8E5M2, 6), T(kTfLiteBool, 5), \
      RANK(4, 4), T(kTfLiteInt16, 3), T(kTfLiteInt8, 2)

static const lg_ladder kLadders[] = {
    /* Type-only rules (input 0 unless stated). */
    LADDER(kTfLiteBuiltinSoftmax, T(kTfLiteFloat16, 4), LG_I16_I8),
    LADDER(kTfLiteBuiltinMean, LG_I16_I8),
    LADDER(kTfLiteBuiltinMirrorPad, LG_I16_I8),
    LADDER(kTfLiteBuiltinReduceMax, LG_I16_I8),
    LADDER(kTfLiteBuiltinReduceMin, LG_I16_I8),
    LADDER(kTfLiteBuiltinRelu6, LG_I16_I8),
    LADDER(kTfLiteBuiltinRsqrt, LG_I16_I8),
    LADDER(kTfLiteBuiltinLess, LG_I16_I8),
    LADDER(kTfLiteBuiltinGreaterEqual, LG_I16_I8),
    LADDER(kTfLiteBuiltinRelu, LG_I16_I8, T(kTfLiteUInt8, 2)),
    LADDER(kTfLiteBuiltinConcatenation, T(kTfLiteFloat8E4M3FN, 7),
           T(kTfLiteFloat8E5M2, 7), T(kTfLiteFloat16, 6), T(kTfLiteInt4, 5),
           T(kTfLiteUInt32, 4), LG_I16_I8),
    LADDER(kTfLiteBuiltinAveragePool2d, LG_IO16_I8),
    LADDER(kTfLiteBuiltinMaxPool2d, LG_IO16_I8),
    LADDER(kTfLiteBuiltinLogistic, LG_IO16_I8),
    LADDER(kTfLiteBuiltinTanh, LG_IO16_I8),
    LADDER(kTfLiteBuiltinPack, T(kTfLiteInt8, 2), IO(kTfLiteInt16, 3),
           T(kTfLiteUInt32, 4)),
    LADDER(kTfLiteBuiltinUnpack, T(kTfLiteInt8, 2), T(kTfLiteUInt8, 2),
           T(kTfLiteBool, 3), IO(kTfLiteInt16, 4), T(kTfLiteFloat16, 5),
           T(kTfLiteBFloat16, 5)),
    /* SPLIT's data is input 1 (input 0 is the axis). */
    LADDER_ON(kTfLiteBuiltinSplit, 1, 1, T(kTfLiteInt16, 4), T(kTfLiteInt32, 3),
              T(kTfLiteInt8, 2)),
    LADDER(kTfLiteBuiltinSpaceToDepth, T(kTfLiteInt8, 2)),
    LADDER(kTfLiteBuiltinDepthToSpace, T(kTfLiteInt8, 2)),
    LADDER(kTfLiteBuiltinSplitV, T(kTfLiteInt8, 2)),
    LADDER(kTfLiteBuiltinSum, T(kTfLiteInt8, 2)),
    LADDER(kTfLiteBuiltinLogSoftmax, T(kTfLiteInt8, 2)),
    LADDER(kTfLiteBuiltinGreater, T(kTfLiteInt8, 2)),
    LADDER(kTfLiteBuiltinLessEqual, T(kTfLiteInt8, 2)),
    LADDER(kTfLiteBuiltinSquaredDifference, T(kTfLiteInt8, 2)),
    LADDER(kTfLiteBuiltinExp, T(kTfLiteInt8, 2), T(kTfLiteInt16, 2)),
    LADDER(kTfLiteBuiltinLog, T(kTfLiteInt8, 2), T(kTfLiteInt16, 2)),
    LADDER(kTfLiteBuiltinReduceProd, T(kTfLiteInt8, 2), T(kTfLiteInt16, 2)),
    LADDER(kTfLiteBuiltinSqrt, T(kTfLiteInt8, 2), T(kTfLiteInt16, 2)),
    LADDER(kTfLiteBuiltinEqual, T(kTfLiteInt16, 5), T(kTfLiteString, 3),
           T(kTfLiteInt8, 2)),
    LADDER(kTfLiteBuiltinNotEqual, T(kTfLiteInt16, 4), T(kTfLiteString, 3),
           T(kTfLiteInt8, 2)),
    LADDER(kTfLiteBuiltinArgMax, T(kTfLiteBool, 3), T(kTfLiteInt8, 2)),
    LADDER(kTfLiteBuiltinArgMin, T(kTfLiteBool, 3), T(kTfLiteInt8, 2)),
    LADDER(kTfLiteBuiltinSelectV2, T(kTfLiteUInt32, 2)),
    LADDER(kTfLiteBuiltinLeakyRelu, T(kTfLiteInt16, 2)),
    LADDER(kTfLiteBuiltinGelu, T(kTfLiteInt8, 2), T(kTfLiteUInt8, 2)),
    LADDER(kTfLiteBuiltinSign, T(kTfLiteInt32, 2)),
    LADDER(kTfLiteBuiltinSin, T(kTfLiteFloat16, 2)),
    LADDER(kTfLiteBuiltinCos, T(kTfLiteFloat16, 2)),
    LADDER(kTfLiteBuiltinTile, T(kTfLiteInt8, 3), T(kTfLiteString, 2)),
    LADDER(kTfLiteBuiltinSqueeze, T(kTfLiteString, 2)),
    /* Version 1 was rolled back (its op code was reassigned): 2 is the
     * lowest. */
    LADDER_ON(kTfLiteBuiltinBroadcastTo, 0, 2, T(kTfLiteInt8, 3),
              T(kTfLiteInt16, 3)),
    /* FILL tests its value (input 1), when present. */
    LADDER_ON(kTfLiteBuiltinFill, 1, 1, T(kTfLiteFloat16, 4), T(kTfLiteInt8, 3),
              T(kTfLiteInt16, 3), T(kTfLiteBool, 2), T(kTfLiteString, 2)),
    /* Rules that mix types and ranks. */
    LADDER(kTfLiteBuiltinSlice, T(kTfLiteFloat16, 8), T(kTfLiteInt4, 7),
           T(kTfLiteUInt32, 6), RANK(4, 5), T(kTfLiteInt16, 4),
           T(kTfLiteString, 3), T(kTfLiteInt8, 2)),
    LADDER(kTfLiteBuiltinTranspose, T(kTfLiteFloat16, 9), RANK(6, 8),
           T(kTfLiteBFloat16, 8), T(kTfLiteInt4, 7), RANK(5, 6),
           T(kTfLiteInt16, 5), RANK(4, 4), T(kTfLiteBool, 3),
           T(kTfLiteInt8, 2)),
    LADDER(kTfLiteBuiltinPad, LG_PAD_STEPS),
    LADDER(kTfLiteBuiltinPadv2, LG_PAD_STEPS),
    /* No rules in TFLite: every model of these ops is version 1. */
    NO_RULES(kTfLiteBuiltinReshape),
    NO_RULES(kTfLiteBuiltinExpandDims),
    NO_RULES(kTfLiteBuiltinHardSwish),
    NO_RULES(kTfLiteBuiltinPrelu),
    NO_RULES(kTfLiteBuiltinElu),
    NO_RULES(kTfLiteBuiltinL2Pool2d),
    NO_RULES(kTfLiteBuiltinPow),
    NO_RULES(kTfLiteBuiltinSquare),
    NO_RULES(kTfLiteBuiltinNeg),
    NO_RULES(kTfLiteBuiltinFloor),
    NO_RULES(kTfLiteBuiltinCeil),
    NO_RULES(kTfLiteBuiltinRound),
    NO_RULES(kTfLiteBuiltinReluN1To1),
    NO_RULES(kTfLiteBuiltinRelu0To1),
    NO_RULES(kTfLiteBuiltinShape),
    NO_RULES(kTfLiteBuiltinZerosLike),
    NO_RULES(kTfLiteBuiltinDensify),
    NO_RULES(kTfLiteBuiltinLogicalAnd),
    NO_RULES(kTfLiteBuiltinLogicalOr),
    NO_RULES(kTfLiteBuiltinLogicalNot),
    NO_RULES(kTfLiteBuiltinIf),
    NO_RULES(kTfLiteBuiltinWhile),
    NO_RULES(kTfLiteBuiltinCallOnce),
    NO_RULES(kTfLiteBuiltinVarHandle),
    NO_RULES(kTfLiteBuiltinReadVariable),
    NO_RULES(kTfLiteBuiltinAssignVariable),
    NO_RULES(kTfLiteBuiltinAddN),
    NO_RULES(kTfLiteBuiltinOneHot),
    NO_RULES(kTfLiteBuiltinCumsum),
    NO_RULES(kTfLiteBuiltinNonMaxSuppressionV4),
    NO_RULES(kTfLiteBuiltinNonMaxSuppressionV5),
    NO_RULES(kTfLiteBuiltinHashtable),
    NO_RULES(kTfLiteBuiltinHashtableFind),
    NO_RULES(kTfLiteBuiltinHashtableImport),
    NO_RULES(kTfLiteBuiltinHashtableSize),
    NO_RULES(kTfLiteBuiltinScatterNd),
    NO_RULES(kTfLiteBuiltinSegmentSum),
    NO_RULES(kTfLiteBuiltinUnsortedSegmentSum),
    NO_RULES(kTfLiteBuiltinUnsortedSegmentMax),
    NO_RULES(kTfLiteBuiltinUnsortedSegmentMin),
    NO_RULES(kTfLiteBuiltinUnsortedSegmentProd),
    NO_RULES(kTfLiteBuiltinMatrixDiag),
    NO_RULES(kTfLiteBuiltinMatrixSetDiag),
    NO_RULES(kTfLiteBuiltinRank),
    NO_RULES(kTfLiteBuiltinBroadcastArgs),
    NO_RULES(kTfLiteBuiltinUnique),
    NO_RULES(kTfLiteBuiltinReverseSequence),
    NO_RULES(kTfLiteBuiltinEmbeddingLookupSparse),
    NO_RULES(kTfLiteBuiltinHashtableLookup),
    NO_RULES(kTfLiteBuiltinSkipGram),
    NO_RULES(kTfLiteBuiltinLshProjection),
    /* SPARSE_TO_DENSE reads its values (input 2). */
    LADDER_ON(kTfLiteBuiltinSparseToDense, 2, 1, T(kTfLiteInt8, 3),
              T(kTfLiteUInt8, 3), T(kTfLiteInt64, 2)),
    LADDER(kTfLiteBuiltinFloorDiv, T(kTfLiteInt16, 3), T(kTfLiteInt8, 3),
           T(kTfLiteFloat32, 2)),
    LADDER(kTfLiteBuiltinFloorMod, T(kTfLiteInt16, 2), T(kTfLiteInt8, 2)),
    LADDER(kTfLiteBuiltinReverseV2, T(kTfLiteInt8, 3), T(kTfLiteBool, 2)),
    LADDER(kTfLiteBuiltinRange, T(kTfLiteInt64, 2)),
    /* WHERE is version 2 unless its condition is BOOL. */
    LADDER_ON(kTfLiteBuiltinWhere, 0, 2, T(kTfLiteBool, 1)),
    NO_RULES(kTfLiteBuiltinLocalResponseNormalization),
    NO_RULES(kTfLiteBuiltinReduceAll),
    NO_RULES(kTfLiteBuiltinReduceAny),
    NO_RULES(kTfLiteBuiltinAtan2),
    NO_RULES(kTfLiteBuiltinBitwiseXor),
    NO_RULES(kTfLiteBuiltinRightShift),
    NO_RULES(kTfLiteBuiltinStablehloAdd),
    NO_RULES(kTfLiteBuiltinStablehloMultiply),
    NO_RULES(kTfLiteBuiltinStablehloMaximum),
    NO_RULES(kTfLiteBuiltinStablehloMinimum),
    NO_RULES(kTfLiteBuiltinStablehloAnd),
    NO_RULES(kTfLiteBuiltinStablehloShiftLeft),
    NO_RULES(kTfLiteBuiltinStablehloPad),
    NO_RULES(kTfLiteBuiltinStablehloGather),
    NO_RULES(kTfLiteBuiltinStablehloScatter),
    NO_RULES(kTfLiteBuiltinStablehloReduceWindow),
    NO_RULES(kTfLiteBuiltinReduceWindow),
    NO_RULES(kTfLiteBuiltinStablehloComposite),
    NO_RULES(kTfLiteBuiltinStablehloCase),
    NO_RULES(kTfLiteBuiltinBitcast),
    NO_RULES(kTfLiteBuiltinDilate),
    NO_RULES(kTfLiteBuiltinBucketize),
    NO_RULES(kTfLiteBuiltinRandomUniform),
    NO_RULES(kTfLiteBuiltinRandomStandardNormal),
    NO_RULES(kTfLiteBuiltinMultinomial),
    NO_RULES(kTfLiteBuiltinStablehloRngBitGenerator),
    NO_RULES(kTfLiteBuiltinReal),
    NO_RULES(kTfLiteBuiltinImag),
    NO_RULES(kTfLiteBuiltinComplexAbs),
    NO_RULES(kTfLiteBuiltinRfft2d),
    NO_RULES(kTfLiteBuiltinConv3d),
    NO_RULES(kTfLiteBuiltinConv3dTranspose),
};

#undef T
#undef IO
#undef RANK
#undef LADDER
#undef LADDER_ON
#undef NO_RULES

static bool lg_step_matches(const lg_op_signature* s, const lg_ladder* l,
                            const lg_step* step) {
  const lg_op_tensor_spec* t = lg_in(s, l->input);
  switch ((lg_step_kind)step->kind) {
    case LG_STEP_TYPE:
      return t->type == (TfLiteType)step->arg;
    case LG_STEP_TYPE_IN_OUT:
      return t->type == (TfLiteType)step->arg &&
             lg_out_type(s, 0) == (TfLiteType)step->arg;
    case LG_STEP_RANK_ABOVE:
      return t->num_dims > step->arg;
    case LG_STEP_END:
      break;
  }
  return false;
}

static int lg_ladder_version(const lg_op_signature* s, const lg_ladder* l) {
  for (int i = 0; i < LG_MAX_STEPS && l->steps[i].kind != LG_STEP_END; ++i) {
    if (lg_step_matches(s, l, &l->steps[i])) return l->steps[i].version;
  }
  return l->base;
}

static const lg_ladder* lg_find_ladder(int32_t code) {
  for (size_t i = 0; i < sizeof(kLadders) / sizeof(kLadders[0]); ++i) {
    if (kLadders[i].code == code) return &kLadders[i];
  }
  return NULL;
}

/* ---- Rules with parameters or derived facts --------------------------------
 * Each returns the op's version; `p` is the params struct or NULL (all
 * defaults). Comments give TFLite's conditions in order.
 */

/* The int16x8 quantized_bias_type rules (CONV_2D 8, FULLY_CONNECTED 11,
 * TRANSPOSE_CONV 5) test the field for non-zero. TFLite's parser turns the
 * schema default FLOAT32 into kTfLiteFloat32 (1), so every such op read from
 * a model has it set; NULL params (the defaults) count as set too. */
static bool lg_bias_type_set(const void* p, size_t offset) {
  if (p == NULL) return true;
  TfLiteType t;
  memcpy(&t, (const char*)p + offset, sizeof(t));
  return t != kTfLiteNoType;
}

static int lg_rule_add(const lg_op_signature* s) {
  const TfLiteAddParams* p = s->params;
  TfLiteType t = lg_in_type(s, 0);
  if (t == kTfLiteFloat16) return 6;
  if (t == kTfLiteInt16 && !lg_in(s, 0)->has_quantization) return 5;
  if (t == kTfLiteInt64) return 4;
  /* pot_scale_int16 defaults to true. */
  if (t == kTfLiteInt16 && lg_out_type(s, 0) == kTfLiteInt16 && p != NULL &&
      !p->pot_scale_int16) {
    return 3;
  }
  return t == kTfLiteInt8 ? 2 : 1;
}

static int lg_rule_sub(const lg_op_signature* s) {
  const TfLiteSubParams* p = s->params;
  TfLiteType t = lg_in_type(s, 0);
  if (t == kTfLiteInt16 && lg_out_type(s, 0) == kTfLiteInt16 && p != NULL &&
      !p->pot_scale_int16) {
    return 5;
  }
  if (t == kTfLiteInt64) return 4;
  if (lg_needs_broadcast(s) && lg_max_input_rank(s) > 4) return 3;
  return t == kTfLiteInt8 ? 2 : 1;
}

/* MUL's rescale rule: input1_scale * input2_scale / output_scale >= 1, with
 * the first scale of each, all non-zero (float arithmetic, as TFLite). */
static bool lg_mul_rescale_at_least_one(const lg_op_signature* s) {
  if (s->num_inputs < 2 || s->num_outputs < 1) return false;
  const lg_op_tensor_spec* a = lg_in(s, 0);
  const lg_op_tensor_spec* b = lg_in(s, 1);
  const lg_op_tensor_spec* o = lg_out(s, 0);
  if (a->num_scales < 1 || b->num_scales < 1 || o->num_scales < 1) {
    return false;
  }
  float sa = a->scales[0], sb = b->scales[0], so = o->scales[0];
  if (sa == 0.0f || sb == 0.0f || so == 0.0f) return false;
  float rescale = sa * sb / so;
  return rescale >= 1.0f;
}

static int lg_rule_mul(const lg_op_signature* s) {
  TfLiteType t = lg_in_type(s, 0);
  bool quantized_input =
      s->num_inputs >= 2 && s->num_outputs >= 1 &&
      (lg_in(s, 0)->has_quantization || lg_in(s, 1)->has_quantization);
  if (t == kTfLiteFloat16) return 8;
  if ((t == kTfLiteInt16 && !quantized_input) || t == kTfLiteUInt32) return 7;
  if (t == kTfLiteComplex64) return 6;
  if (t == kTfLiteInt64) return 5;
  if (t == kTfLiteInt16) return 4;
  if (lg_mul_rescale_at_least_one(s)) return 3;
  return t == kTfLiteInt8 ? 2 : 1;
}

static int lg_rule_div(const lg_op_signature* s) {
  return lg_needs_broadcast(s) && lg_max_input_rank(s) > 4 ? 2 : 1;
}

static int lg_rule_min_max(const lg_op_signature* s) {
  TfLiteType t = lg_in_type(s, 0);
  if (t == kTfLiteInt16 && lg_out_type(s, 0) == kTfLiteInt16) return 4;
  if (lg_needs_broadcast(s) && lg_max_input_rank(s) > 4) return 3;
  return t == kTfLiteInt8 ? 2 : 1;
}

/* CONV_2D is grouped when the input's channels (dim 3) differ from the
 * filter's input channels (dim 3); an input without a shape is not. */
static bool lg_conv_is_grouped(const lg_op_signature* s) {
  const lg_op_tensor_spec* in = lg_in(s, 0);
  const lg_op_tensor_spec* filter = lg_in(s, 1);
  if (in->num_dims < 4 || filter->num_dims < 4) return false;
  return in->dims[3] != filter->dims[3];
}

static int lg_rule_conv(const lg_op_signature* s) {
  if (lg_types3(s, kTfLiteInt16, kTfLiteInt8, kTfLiteInt16) &&
      lg_bias_type_set(s->params,
                       offsetof(TfLiteConvParams, quantized_bias_type))) {
    return 8;
  }
  if (lg_conv_is_grouped(s)) return 6;
  if (lg_types3(s, kTfLiteInt16, kTfLiteInt16, kTfLiteInt16)) return 4;
  if (lg_types3(s, kTfLiteInt8, kTfLiteInt8, kTfLiteInt8)) return 3;
  if (lg_types3(s, kTfLiteInt8, kTfLiteInt4, kTfLiteInt8)) return 7;
  if (lg_types3(s, kTfLiteFloat32, kTfLiteInt8, kTfLiteFloat32)) {
    /* Hybrid; per-channel: one filter scale per output channel (dim 0). */
    const lg_op_tensor_spec* f = lg_in(s, 1);
    return f->num_dims > 0 && f->dims[0] > 0 && lg_scales_along(f, 0) ? 5 : 2;
  }
  return 1;
}

static int lg_rule_depthwise(const lg_op_signature* s) {
  const TfLiteDepthwiseConvParams* p = s->params;
  if (lg_types3(s, kTfLiteInt16, kTfLiteInt16, kTfLiteInt16)) return 5;
  if (lg_types3(s, kTfLiteFloat32, kTfLiteInt8, kTfLiteFloat32)) {
    /* Per-channel: one filter scale per output channel (dim 3). */
    const lg_op_tensor_spec* f = lg_in(s, 1);
    return f->num_dims > 3 && f->dims[3] > 0 && lg_scales_along(f, 3) ? 6 : 4;
  }
  if (lg_types3(s, kTfLiteInt8, kTfLiteInt8, kTfLiteInt8)) return 3;
  if (lg_types3(s, kTfLiteInt8, kTfLiteInt4, kTfLiteInt8)) return 7;
  /* Dilation factors default to 1 (NULL params). */
  if (p != NULL &&
      (p->dilation_width_factor != 1 || p->dilation_height_factor != 1)) {
    return 2;
  }
  return 1;
}

/* The first FULLY_CONNECTED rules: weight types, per-channel hybrid, int16
 * bias type, sparse weights; 0 when none matches. */
static int lg_rule_fc_types(const lg_op_signature* s) {
  const lg_op_tensor_spec* w = lg_in(s, 1);
  if (w->type == kTfLiteInt2) return 14;
  if (lg_types3(s, kTfLiteInt16, kTfLiteInt4, kTfLiteInt16)) return 13;
  if (lg_types3(s, kTfLiteFloat32, kTfLiteInt8, kTfLiteFloat32) &&
      w->num_dims > 0 && lg_scales_along(w, 0)) {
    return 12;
  }
  if (lg_types3(s, kTfLiteInt16, kTfLiteInt8, kTfLiteInt16) &&
      lg_bias_type_set(s->params, offsetof(TfLiteFullyConnectedParams,
                                           quantized_bias_type))) {
    return 11;
  }
  if (w->is_sparse) return 8;
  if (lg_types3(s, kTfLiteInt16, kTfLiteInt16, kTfLiteInt16)) return 7;
  return 0;
}

static int lg_rule_fully_connected(const lg_op_signature* s) {
  const TfLiteFullyConnectedParams* p = s->params;
  int v = lg_rule_fc_types(s);
  if (v != 0) return v;
  /* Exactly two inputs: no bias slot at all (an omitted -1 bias keeps 3). */
  if (s->num_inputs == 2) return 6;
  if (p != NULL && p->keep_num_dims) return 5;
  if (lg_types3(s, kTfLiteInt8, kTfLiteInt8, kTfLiteInt8)) return 4;
  if (lg_types3(s, kTfLiteInt8, kTfLiteInt4, kTfLiteInt8)) return 10;
  if (lg_types3(s, kTfLiteFloat32, kTfLiteInt8, kTfLiteFloat32)) {
    return p != NULL && p->asymmetric_quantize_inputs ? 9 : 3;
  }
  if (p != NULL &&
      p->weights_format == kTfLiteFullyConnectedWeightsFormatShuffled4x16Int8) {
    return 2;
  }
  return 1;
}

static int lg_rule_transpose_conv(const lg_op_signature* s) {
  const TfLiteTransposeConvParams* p = s->params;
  if (lg_types3(s, kTfLiteInt16, kTfLiteInt8, kTfLiteInt16) &&
      lg_bias_type_set(
          p, offsetof(TfLiteTransposeConvParams, quantized_bias_type))) {
    return 5;
  }
  if (p != NULL && p->activation != kTfLiteActNone) return 4;
  /* Inputs: output shape, weights, input, bias (optional). */
  if (s->num_inputs == 4 && lg_in_type(s, 3) != kTfLiteNoType) return 3;
  return lg_in_type(s, 1) == kTfLiteInt8 ? 2 : 1;
}

static int lg_rule_batch_matmul(const lg_op_signature* s) {
  const TfLiteBatchMatMulParams* p = s->params;
  TfLiteType t = lg_in_type(s, 0);
  if (t == kTfLiteInt16) return 3;
  if (t == kTfLiteInt8) return 2;
  if (lg_types3(s, kTfLiteFloat32, kTfLiteInt8, kTfLiteFloat32) && p != NULL &&
      p->asymmetric_quantize_inputs) {
    return 4;
  }
  return 1;
}

static int lg_rule_gather(const lg_op_signature* s) {
  const TfLiteGatherParams* p = s->params;
  TfLiteType t = lg_in_type(s, 0);
  if (lg_is_float8(t)) return 8;
  if (t == kTfLiteInt4) return 7;
  if (lg_in_type(s, 1) == kTfLiteInt16) return 6; /* int16 indices */
  if (p != NULL && p->batch_dims != 0) return 5;
  if (t == kTfLiteInt16) return 4;
  if (t == kTfLiteBool) return 3;
  return t == kTfLiteInt8 ? 2 : 1;
}

static int lg_rule_strided_slice(const lg_op_signature* s) {
  const TfLiteStridedSliceParams* p = s->params;
  TfLiteType t = lg_in_type(s, 0);
  if (p != NULL && p->offset) return 8;
  if (t == kTfLiteUInt32) return 7;
  if (p != NULL && (p->ellipsis_mask != 0 || p->new_axis_mask != 0)) return 6;
  if (t == kTfLiteString) return 5;
  if (lg_in(s, 0)->num_dims > 4) return 4;
  if (t == kTfLiteBool) return 3;
  return t == kTfLiteInt8 ? 2 : 1;
}

static int lg_rule_resize_bilinear(const lg_op_signature* s) {
  const TfLiteResizeBilinearParams* p = s->params;
  TfLiteType t = lg_in_type(s, 0);
  if (t == kTfLiteInt16) return 4;
  if (p != NULL && p->half_pixel_centers) return 3;
  return t == kTfLiteInt8 ? 2 : 1;
}

static int lg_rule_resize_nearest(const lg_op_signature* s) {
  const TfLiteResizeNearestNeighborParams* p = s->params;
  TfLiteType t = lg_in_type(s, 0);
  if (t == kTfLiteInt16) return 4;
  if (p != NULL && (p->half_pixel_centers || p->align_corners)) return 3;
  return t == kTfLiteInt8 ? 2 : 1;
}

static int lg_rule_dequantize(const lg_op_signature* s) {
  TfLiteType t = lg_in_type(s, 0);
  if (lg_is_float8(t)) return 9;
  if (t == kTfLiteUInt4) return 8;
  if (t == kTfLiteInt2) return 7;
  if (t == kTfLiteInt4) return 6;
  if (t == kTfLiteInt16 || t == kTfLiteFloat16) return 3;
  if (t == kTfLiteInt8) return lg_per_channel(lg_in(s, 0)) ? 5 : 2;
  return 1;
}

static int lg_rule_quantize(const lg_op_signature* s) {
  TfLiteType in = lg_in_type(s, 0), out = lg_out_type(s, 0);
  if (in == kTfLiteUInt4 || out == kTfLiteUInt4) return 5;
  if (in == kTfLiteInt4 || out == kTfLiteInt4) return 4;
  if (lg_per_channel(lg_out(s, 0))) return 3;
  return out == kTfLiteInt16 ? 2 : 1;
}

/* CAST: either side of the given type. */
static bool lg_cast_either(const lg_op_signature* s, TfLiteType t) {
  return lg_in_type(s, 0) == t || lg_out_type(s, 0) == t;
}

static int lg_rule_cast(const lg_op_signature* s) {
  if (lg_cast_either(s, kTfLiteInt2) || lg_cast_either(s, kTfLiteUInt4)) {
    return 8;
  }
  if (lg_cast_either(s, kTfLiteBFloat16)) return 7;
  if (lg_in_type(s, 0) == kTfLiteInt4 && lg_out_type(s, 0) == kTfLiteFloat32) {
    return 6;
  }
  if (lg_cast_either(s, kTfLiteFloat64) || lg_cast_either(s, kTfLiteFloat16)) {
    return 5;
  }
  if (lg_cast_either(s, kTfLiteUInt16)) return 4;
  if (lg_cast_either(s, kTfLiteInt8)) return 3;
  return lg_cast_either(s, kTfLiteUInt32) ? 2 : 1;
}

static int lg_rule_abs(const lg_op_signature* s) {
  TfLiteType t = lg_in_type(s, 0);
  if (t == kTfLiteInt32) return 5;
  if (t == kTfLiteInt16) return lg_in(s, 0)->has_quantization ? 3 : 4;
  return t == kTfLiteInt8 || t == kTfLiteUInt8 ? 2 : 1;
}

/* SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND: int16 first, then any rank
 * other than 4, then int8. */
static int lg_rule_space_batch(const lg_op_signature* s) {
  if (lg_in_type(s, 0) == kTfLiteInt16) return 4;
  if (lg_in(s, 0)->num_dims != 4) return 3;
  return lg_in_type(s, 0) == kTfLiteInt8 ? 2 : 1;
}

/* GATHER_ND reads its indices (input 1) as well as its params. */
static int lg_rule_gather_nd(const lg_op_signature* s) {
  if (lg_in_type(s, 0) == kTfLiteBool) return 5;
  if (lg_in_type(s, 1) == kTfLiteInt16) return 4;
  if (lg_in_type(s, 0) == kTfLiteInt16) return 3;
  return lg_in_type(s, 0) == kTfLiteString ? 2 : 1;
}

/* TOPK_V2: int16 values, k or indices (output 1) give 3; int8 values 2. */
static int lg_rule_topk(const lg_op_signature* s) {
  if (lg_in_type(s, 0) == kTfLiteInt16 || lg_in_type(s, 1) == kTfLiteInt16 ||
      lg_out_type(s, 1) == kTfLiteInt16) {
    return 3;
  }
  return lg_in_type(s, 0) == kTfLiteInt8 ? 2 : 1;
}

/* The recurrent ops. The hybrid rules test a weight's type: input 2
 * (input_to_forget_weights) for the LSTM and unidirectional LSTM, input 1
 * for the others. */
static int lg_rule_lstm(const lg_op_signature* s) {
  const TfLiteLSTMParams* p = s->params;
  const bool full = p == NULL || p->kernel_type == kTfLiteLSTMFullKernel;
  if (full && lg_in_type(s, 0) == kTfLiteInt16 &&
      lg_in_type(s, 2) == kTfLiteInt8 && lg_out_type(s, 0) == kTfLiteInt16) {
    return 5;
  }
  if (full && lg_in_type(s, 0) == kTfLiteFloat32 &&
      lg_in_type(s, 2) == kTfLiteInt8 && lg_out_type(s, 0) == kTfLiteFloat32) {
    return p != NULL && p->asymmetric_quantize_inputs ? 4 : 3;
  }
  return full ? 1 : 2;
}

static int lg_rule_unidirectional_lstm(const lg_op_signature* s) {
  const TfLiteUnidirectionalSequenceLSTMParams* p = s->params;
  if (lg_in_type(s, 0) == kTfLiteInt16 && lg_in_type(s, 2) == kTfLiteInt8 &&
      lg_out_type(s, 0) == kTfLiteInt16) {
    return 5;
  }
  if (p != NULL && p->diagonal_recurrent_tensors) return 4;
  if (lg_in_type(s, 0) == kTfLiteFloat32 && lg_in_type(s, 2) == kTfLiteInt8 &&
      lg_out_type(s, 0) == kTfLiteFloat32) {
    return p != NULL && p->asymmetric_quantize_inputs ? 3 : 2;
  }
  return 1;
}

/* RNN, the sequence RNNs and the bidirectional LSTM: an int8 input 1 with a
 * float output is hybrid, 3 with asymmetric_quantize_inputs. */
static int lg_rule_hybrid_rnn(const lg_op_signature* s, bool asymmetric) {
  if (lg_in_type(s, 1) == kTfLiteInt8 && lg_out_type(s, 0) == kTfLiteFloat32) {
    return asymmetric ? 3 : 2;
  }
  return 1;
}

static int lg_rule_rnn(const lg_op_signature* s) {
  const TfLiteRNNParams* p = s->params;
  return lg_rule_hybrid_rnn(s, p != NULL && p->asymmetric_quantize_inputs);
}

static int lg_rule_sequence_rnn(const lg_op_signature* s) {
  const TfLiteSequenceRNNParams* p = s->params;
  return lg_rule_hybrid_rnn(s, p != NULL && p->asymmetric_quantize_inputs);
}

static int lg_rule_bidi_rnn(const lg_op_signature* s) {
  const TfLiteBidirectionalSequenceRNNParams* p = s->params;
  return lg_rule_hybrid_rnn(s, p != NULL && p->asymmetric_quantize_inputs);
}

static int lg_rule_bidi_lstm(const lg_op_signature* s) {
  const TfLiteBidirectionalSequenceLSTMParams* p = s->params;
  return lg_rule_hybrid_rnn(s, p != NULL && p->asymmetric_quantize_inputs);
}

/* SVDF: int8 input is the integer kernel (3); float input with int8
 * weights_feature is hybrid (2, or 4 with asymmetric_quantize_inputs). */
static int lg_rule_svdf(const lg_op_signature* s) {
  const TfLiteSVDFParams* p = s->params;
  if (lg_in_type(s, 0) == kTfLiteInt8) return 3;
  if (lg_types3(s, kTfLiteFloat32, kTfLiteInt8, kTfLiteFloat32)) {
    return p != NULL && p->asymmetric_quantize_inputs ? 4 : 2;
  }
  return 1;
}

/* EMBEDDING_LOOKUP: an int4 or per-channel quantized table (input 1) gives
 * 4, an int2 table 5. */
static int lg_rule_embedding_lookup(const lg_op_signature* s) {
  if (lg_in_type(s, 1) == kTfLiteInt4 || lg_in(s, 1)->num_scales > 1) {
    return 4;
  }
  return lg_in_type(s, 1) == kTfLiteInt2 ? 5 : 1;
}

/* DYNAMIC_UPDATE_SLICE: the operand's type first (bfloat16 6, int4 5, int16
 * 4, float16 3), then int64 start indices (input 2) 2. */
static int lg_rule_dynamic_update_slice(const lg_op_signature* s) {
  switch (lg_in_type(s, 0)) {
    case kTfLiteBFloat16:
      return 6;
    case kTfLiteInt4:
      return 5;
    case kTfLiteInt16:
      return 4;
    case kTfLiteFloat16:
      return 3;
    default:
      return lg_in_type(s, 2) == kTfLiteInt64 ? 2 : 1;
  }
}

/* L2_NORMALIZATION tests its output: INT8 gives 2. */
static int lg_rule_l2_norm(const lg_op_signature* s) {
  return lg_out_type(s, 0) == kTfLiteInt8 ? 2 : 1;
}

/* SELECT: TFLite tests input 0 (the condition) for the UINT32 and INT8
 * steps, so a BOOL condition never reaches them; a 5-D input gives 3. */
static int lg_rule_select(const lg_op_signature* s) {
  if (lg_in_type(s, 0) == kTfLiteUInt32) return 4;
  for (int i = 0; i < 3; ++i) {
    if (lg_in(s, i)->num_dims == 5) return 3;
  }
  return lg_in_type(s, 0) == kTfLiteInt8 ? 2 : 1;
}

/* FAKE_QUANT: narrow_range gives 2. */
static int lg_rule_fake_quant(const lg_op_signature* s) {
  const TfLiteFakeQuantParams* p = s->params;
  return p != NULL && p->narrow_range ? 2 : 1;
}

typedef struct lg_rule_fn {
  int32_t code;
  int (*version)(const lg_op_signature* s);
} lg_rule_fn;

static const lg_rule_fn kRuleFns[] = {
    {kTfLiteBuiltinAdd, lg_rule_add},
    {kTfLiteBuiltinSub, lg_rule_sub},
    {kTfLiteBuiltinMul, lg_rule_mul},
    {kTfLiteBuiltinDiv, lg_rule_div},
    {kTfLiteBuiltinMaximum, lg_rule_min_max},
    {kTfLiteBuiltinMinimum, lg_rule_min_max},
    {kTfLiteBuiltinConv2d, lg_rule_conv},
    {kTfLiteBuiltinDepthwiseConv2d, lg_rule_depthwise},
    {kTfLiteBuiltinFullyConnected, lg_rule_fully_connected},
    {kTfLiteBuiltinTransposeConv, lg_rule_transpose_conv},
    {kTfLiteBuiltinBatchMatmul, lg_rule_batch_matmul},
    {kTfLiteBuiltinGather, lg_rule_gather},
    {kTfLiteBuiltinStridedSlice, lg_rule_strided_slice},
    {kTfLiteBuiltinResizeBilinear, lg_rule_resize_bilinear},
    {kTfLiteBuiltinResizeNearestNeighbor, lg_rule_resize_nearest},
    {kTfLiteBuiltinDequantize, lg_rule_dequantize},
    {kTfLiteBuiltinQuantize, lg_rule_quantize},
    {kTfLiteBuiltinCast, lg_rule_cast},
    {kTfLiteBuiltinAbs, lg_rule_abs},
    {kTfLiteBuiltinSpaceToBatchNd, lg_rule_space_batch},
    {kTfLiteBuiltinBatchToSpaceNd, lg_rule_space_batch},
    {kTfLiteBuiltinGatherNd, lg_rule_gather_nd},
    {kTfLiteBuiltinTopkV2, lg_rule_topk},
    {kTfLiteBuiltinLstm, lg_rule_lstm},
    {kTfLiteBuiltinUnidirectionalSequenceLstm, lg_rule_unidirectional_lstm},
    {kTfLiteBuiltinBidirectionalSequenceLstm, lg_rule_bidi_lstm},
    {kTfLiteBuiltinRnn, lg_rule_rnn},
    {kTfLiteBuiltinUnidirectionalSequenceRnn, lg_rule_sequence_rnn},
    {kTfLiteBuiltinBidirectionalSequenceRnn, lg_rule_bidi_rnn},
    {kTfLiteBuiltinSvdf, lg_rule_svdf},
    {kTfLiteBuiltinEmbeddingLookup, lg_rule_embedding_lookup},
    {kTfLiteBuiltinDynamicUpdateSlice, lg_rule_dynamic_update_slice},
    {kTfLiteBuiltinL2Normalization, lg_rule_l2_norm},
    {kTfLiteBuiltinSelect, lg_rule_select},
    {kTfLiteBuiltinFakeQuant, lg_rule_fake_quant},
};

static const lg_rule_fn* lg_find_rule_fn(int32_t code) {
  for (size_t i = 0; i < sizeof(kRuleFns) / sizeof(kRuleFns[0]); ++i) {
    if (kRuleFns[i].code == code) return &kRuleFns[i];
  }
  return NULL;
}

int lg_op_version(const lg_op_signature* sig) {
  if (sig == NULL) return 0;
  const lg_rule_fn* fn = lg_find_rule_fn(sig->builtin_code);
  if (fn != NULL) return fn->version(sig);
  const lg_ladder* ladder = lg_find_ladder(sig->builtin_code);
  return ladder != NULL ? lg_ladder_version(sig, ladder) : 0;
}

bool lg_op_version_has_rules(int32_t builtin_code) {
  return lg_find_rule_fn(builtin_code) != NULL ||
         lg_find_ladder(builtin_code) != NULL;
}

/* ---- Signatures ------------------------------------------------------------
 */

static bool lg_has_unknown_dim(const int32_t* dims, int num_dims) {
  for (int i = 0; i < num_dims; ++i) {
    if (dims[i] == -1) return true;
  }
  return false;
}

static TfLiteStatus lg_spec_from_tensor(const TfLiteContext* context, int index,
                                        lg_op_tensor_spec* spec) {
  *spec = kAbsent;
  if (index == kTfLiteOptionalTensor) return kTfLiteOk;
  if (index < 0 || (size_t)index >= context->tensors_size) return kTfLiteError;
  const TfLiteTensor* t = &context->tensors[index];
  spec->type = t->type;
  if (t->dims != NULL) {
    spec->dims = (const int32_t*)t->dims->data;
    spec->num_dims = t->dims->size;
  }
  spec->is_const = t->allocation_type == kTfLiteMmapRo ||
                   t->allocation_type == kTfLitePersistentRo;
  const TfLiteIntArray* sig = t->dims_signature;
  spec->is_shape_dynamic =
      sig != NULL && lg_has_unknown_dim((const int32_t*)sig->data, sig->size);
  spec->has_quantization = t->quantization.type != kTfLiteNoQuantization;
  const TfLiteAffineQuantization* q = t->quantization.params;
  if (t->quantization.type == kTfLiteAffineQuantization && q != NULL) {
    if (q->scale != NULL) {
      spec->scales = q->scale->data;
      spec->num_scales = q->scale->size;
    }
    spec->quantized_dimension = q->quantized_dimension;
  }
  spec->is_sparse = t->sparsity != NULL;
  return kTfLiteOk;
}

/* Fills specs[0..min(count, max)) from tensor indices of `context`. */
static TfLiteStatus lg_specs_from_indices(const TfLiteContext* context,
                                          const TfLiteIntArray* indices,
                                          lg_op_tensor_spec* specs,
                                          int* count) {
  *count = indices != NULL ? indices->size : 0;
  for (int i = 0; i < *count && i < LG_OP_SIGNATURE_MAX_TENSORS; ++i) {
    if (lg_spec_from_tensor(context, indices->data[i], &specs[i]) !=
        kTfLiteOk) {
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

TfLiteStatus lg_op_signature_from_node(const TfLiteContext* context,
                                       const TfLiteNode* node,
                                       int32_t builtin_code,
                                       lg_op_signature* sig) {
  if (sig == NULL) return kTfLiteError;
  memset(sig, 0, sizeof(*sig));
  if (context == NULL || node == NULL) return kTfLiteError;
  sig->builtin_code = builtin_code;
  sig->params = node->builtin_data;
  if (lg_specs_from_indices(context, node->inputs, sig->inputs,
                            &sig->num_inputs) != kTfLiteOk ||
      lg_specs_from_indices(context, node->outputs, sig->outputs,
                            &sig->num_outputs) != kTfLiteOk) {
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static void lg_spec_from_model_tensor(const lg_model* model,
                                      const lg_model_tensor* t,
                                      lg_op_tensor_spec* spec) {
  *spec = kAbsent;
  spec->type = t->type;
  spec->dims = t->shape;
  spec->num_dims = t->num_dims;
  /* Constant data inline or through Buffer.offset/size (TFLite's signature
   * looks at inline data only; litegpu reads both alike). */
  const lg_model_buffer* b = &model->buffers[t->buffer];
  spec->is_const = t->buffer != 0 && b->data != NULL && b->size > 0;
  spec->is_shape_dynamic =
      t->shape_signature != NULL &&
      lg_has_unknown_dim(t->shape_signature, t->num_dims_signature);
  spec->has_quantization = t->has_quantization;
  if (t->has_quantization) {
    spec->scales = t->quantization.num_scale > 0 ? t->quantization.scale : NULL;
    spec->num_scales = t->quantization.num_scale;
    spec->quantized_dimension = t->quantization.quantized_dimension;
  }
  spec->is_sparse = t->has_sparsity;
}

static void lg_specs_from_model(const lg_model* model,
                                const lg_model_subgraph* sg,
                                const int32_t* indices, int32_t count,
                                lg_op_tensor_spec* specs) {
  for (int32_t i = 0; i < count && i < LG_OP_SIGNATURE_MAX_TENSORS; ++i) {
    if (indices[i] < 0) {
      specs[i] = kAbsent;
    } else {
      lg_spec_from_model_tensor(model, &sg->tensors[indices[i]], &specs[i]);
    }
  }
}

TfLiteStatus lg_op_signature_from_model(const lg_model* model, int32_t subgraph,
                                        int32_t op_index,
                                        const lg_reporter* reporter,
                                        lg_op_signature* sig) {
  if (sig == NULL) return kTfLiteError;
  memset(sig, 0, sizeof(*sig));
  if (model == NULL || subgraph < 0 || subgraph >= model->num_subgraphs ||
      op_index < 0 || op_index >= model->subgraphs[subgraph].num_operators) {
    lg_report(reporter, "op signature: no operator %d in subgraph %d",
              (int)op_index, (int)subgraph);
    return kTfLiteError;
  }
  const lg_model_subgraph* sg = &model->subgraphs[subgraph];
  const lg_model_operator* op = &sg->operators[op_index];
  sig->builtin_code = model->opcodes[op->opcode_index].builtin_code;
  sig->num_inputs = op->num_inputs;
  sig->num_outputs = op->num_outputs;
  lg_specs_from_model(model, sg, op->inputs, op->num_inputs, sig->inputs);
  lg_specs_from_model(model, sg, op->outputs, op->num_outputs, sig->outputs);
  if (sig->builtin_code == kTfLiteBuiltinCustom) return kTfLiteOk;
  if (lg_builtin_options_parse(sig->builtin_code, op, reporter,
                               &sig->owned_params) != kTfLiteOk) {
    return kTfLiteError;
  }
  sig->params = sig->owned_params;
  return kTfLiteOk;
}

void lg_op_signature_release(lg_op_signature* sig) {
  if (sig == NULL) return;
  free(sig->owned_params);
  memset(sig, 0, sizeof(*sig));
}
