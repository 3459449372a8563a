/* Op versioning: lg_op_version's rules and the signature builders (the
 * runtime-version table and the writer's auto versions are in
 * test_versioning_runtime.c).
 *
 * Each rule case names the rule it exercises ("OP condition -> version",
 * TFLite's GetBuiltinOperatorVersion, checked top-down); cases sit on both
 * sides of each condition and check the order between rules, so a rule that
 * is missing, misordered or reads the wrong tensor fails a case. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/kernels/kernels.h"
#include "runtime/model/builtin_options.h"
#include "runtime/model/model.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "versioning/op_version.h"

#define F32 kTfLiteFloat32
#define F16 kTfLiteFloat16
#define BF16 kTfLiteBFloat16
#define F64 kTfLiteFloat64
#define F8A kTfLiteFloat8E4M3FN
#define F8B kTfLiteFloat8E5M2
#define I2 kTfLiteInt2
#define I4 kTfLiteInt4
#define U4 kTfLiteUInt4
#define I8 kTfLiteInt8
#define U8 kTfLiteUInt8
#define I16 kTfLiteInt16
#define U16 kTfLiteUInt16
#define I32 kTfLiteInt32
#define U32 kTfLiteUInt32
#define I64 kTfLiteInt64
#define C64 kTfLiteComplex64
#define STR kTfLiteString
#define BOOL kTfLiteBool
#define NONE kTfLiteNoType

/* ---- Signature helpers ----------------------------------------------------
 */

static const int32_t kOnes[8] = {1, 1, 1, 1, 1, 1, 1, 1};

/* A tensor of `type` and rank `rank` (all dims 1). */
static lg_op_tensor_spec spec(TfLiteType type, int rank) {
  return (lg_op_tensor_spec){
      .type = type, .dims = rank > 0 ? kOnes : NULL, .num_dims = rank};
}

/* A tensor of `type` with the given dims. */
static lg_op_tensor_spec shaped(TfLiteType type, const int32_t* dims,
                                int rank) {
  return (lg_op_tensor_spec){.type = type, .dims = dims, .num_dims = rank};
}

/* A signature of `code` with `num_in` inputs and one output. */
static lg_op_signature sig3(int32_t code, const void* params, int num_in,
                            lg_op_tensor_spec a, lg_op_tensor_spec b,
                            lg_op_tensor_spec c, lg_op_tensor_spec out) {
  lg_op_signature s = {.builtin_code = code, .params = params};
  s.num_inputs = num_in;
  s.inputs[0] = a;
  s.inputs[1] = b;
  s.inputs[2] = c;
  s.num_outputs = 1;
  s.outputs[0] = out;
  return s;
}

static void expect_version(const lg_op_signature* s, int expected,
                           const char* rule) {
  int got = lg_op_version(s);
  if (got != expected) {
    fail_msg("rule '%s': got version %d, want %d", rule, got, expected);
  }
}

/* ---- Type rules, table driven ---------------------------------------------
 */

typedef struct type_case {
  const char* rule;
  int32_t code;
  TfLiteType in[3]; /* NONE ends the list */
  TfLiteType out;
  int rank; /* of every input */
  int expected;
} type_case;

#define B(name) kTfLiteBuiltin##name
/* clang-format off */
static const type_case kTypeCases[] = {
    {"EMBEDDING_LOOKUP f32 -> 1", B(EmbeddingLookup), {I32, F32}, F32, 2, 1},
    {"EMBEDDING_LOOKUP u8 -> 1", B(EmbeddingLookup), {I32, U8}, F32, 2, 1},
    {"EMBEDDING_LOOKUP i4 -> 4", B(EmbeddingLookup), {I32, I4}, F32, 2, 4},
    {"EMBEDDING_LOOKUP i2 -> 5", B(EmbeddingLookup), {I32, I2}, F32, 2, 5},
    {"DYNAMIC_UPDATE_SLICE f32 -> 1", B(DynamicUpdateSlice),
      {F32, F32, I32}, F32, 1, 1},
    {"DYNAMIC_UPDATE_SLICE i64 indices -> 2", B(DynamicUpdateSlice),
      {F32, F32, I64}, F32, 1, 2},
    {"DYNAMIC_UPDATE_SLICE f16 -> 3", B(DynamicUpdateSlice),
      {F16, F16, I64}, F16, 1, 3},
    {"DYNAMIC_UPDATE_SLICE i16 -> 4", B(DynamicUpdateSlice),
      {I16, I16, I32}, I16, 1, 4},
    {"DYNAMIC_UPDATE_SLICE i4 -> 5", B(DynamicUpdateSlice),
      {I4, I4, I32}, I4, 1, 5},
    {"DYNAMIC_UPDATE_SLICE bf16 -> 6", B(DynamicUpdateSlice),
      {BF16, BF16, I64}, BF16, 1, 6},
    {"SCATTER_ND -> 1", B(ScatterNd), {I32, I64, I32}, I64, 1, 1},
    {"UNSORTED_SEGMENT_PROD -> 1", B(UnsortedSegmentProd),
      {I32, I32, I32}, I32, 1, 1},
    {"SPARSE_TO_DENSE f32 -> 1", B(SparseToDense), {I64, I64, F32}, F32, 1, 1},
    {"SPARSE_TO_DENSE i64 -> 2", B(SparseToDense), {I32, I32, I64}, I64, 1, 2},
    {"SPARSE_TO_DENSE u8 -> 3", B(SparseToDense), {I32, I32, U8}, U8, 1, 3},
    {"SPARSE_TO_DENSE i8 -> 3", B(SparseToDense), {I64, I32, I8}, I8, 1, 3},
    {"SOFTMAX f16 -> 4", B(Softmax), {F16}, F16, 2, 4},
    {"SOFTMAX i16 -> 3", B(Softmax), {I16}, I16, 2, 3},
    {"SOFTMAX i8 -> 2", B(Softmax), {I8}, I8, 2, 2},
    {"SOFTMAX f32 -> 1", B(Softmax), {F32}, F32, 2, 1},
    {"SOFTMAX u8 -> 1", B(Softmax), {U8}, U8, 2, 1},
    {"MEAN i16 -> 3", B(Mean), {I16, I32}, I16, 4, 3},
    {"MIRROR_PAD i16 -> 3", B(MirrorPad), {I16, I32}, I16, 4, 3},
    {"REDUCE_MAX i8 -> 2", B(ReduceMax), {I8, I32}, I8, 4, 2},
    {"REDUCE_MIN i16 -> 3", B(ReduceMin), {I16, I32}, I16, 4, 3},
    {"RELU6 i8 -> 2", B(Relu6), {I8}, I8, 4, 2},
    {"RSQRT i16 -> 3", B(Rsqrt), {I16}, I16, 4, 3},
    {"LESS i16 -> 3", B(Less), {I16, I16}, BOOL, 4, 3},
    {"GREATER_EQUAL i8 -> 2", B(GreaterEqual), {I8, I8}, BOOL, 4, 2},
    {"RELU u8 -> 2", B(Relu), {U8}, U8, 4, 2},
    {"RELU i16 -> 3", B(Relu), {I16}, I16, 4, 3},
    {"RELU f32 -> 1", B(Relu), {F32}, F32, 4, 1},
    {"L2_NORMALIZATION i8 -> 2", B(L2Normalization), {I8}, I8, 2, 2},
    {"L2_NORMALIZATION u8 -> 1", B(L2Normalization), {U8}, U8, 2, 1},
    {"L2_NORMALIZATION tests the output -> 2", B(L2Normalization), {F32}, I8,
     2, 2},
    {"SELECT bool condition, i8 data -> 1", B(Select), {BOOL, I8, I8}, I8, 2,
     1},
    {"SELECT i8 condition -> 2", B(Select), {I8, I8, I8}, I8, 2, 2},
    {"SELECT 5-D -> 3", B(Select), {BOOL, F32, F32}, F32, 5, 3},
    {"SELECT u32 condition -> 4", B(Select), {U32, U32, U32}, U32, 5, 4},
    {"SELECT 6-D -> 1", B(Select), {BOOL, F32, F32}, F32, 6, 1},
    {"REDUCE_ALL -> 1", B(ReduceAll), {BOOL, I32}, BOOL, 2, 1},
    {"ATAN2 -> 1", B(Atan2), {F32, F32}, F32, 2, 1},
    {"BITWISE_XOR -> 1", B(BitwiseXor), {I8, I8}, I8, 2, 1},
    {"RIGHT_SHIFT -> 1", B(RightShift), {U32, U32}, U32, 2, 1},
    {"BITCAST -> 1", B(Bitcast), {F32}, I8, 2, 1},
    {"DILATE -> 1", B(Dilate), {F32, I32, F32}, F32, 2, 1},
    {"BUCKETIZE -> 1", B(Bucketize), {F64}, I32, 2, 1},
    {"CONV_3D -> 1", B(Conv3d), {F32, F32, F32}, F32, 5, 1},
    {"CONV_3D_TRANSPOSE -> 1", B(Conv3dTranspose), {I32, F32, F32}, F32, 5, 1},
    {"REDUCE_ANY -> 1", B(ReduceAny), {BOOL, I32}, BOOL, 2, 1},
    {"LOCAL_RESPONSE_NORMALIZATION -> 1", B(LocalResponseNormalization), {F32},
     F32, 4, 1},
    {"CONCATENATION f8e4m3 -> 7", B(Concatenation), {F8A, F8A}, F8A, 4, 7},
    {"CONCATENATION f8e5m2 -> 7", B(Concatenation), {F8B, F8B}, F8B, 4, 7},
    {"CONCATENATION f16 -> 6", B(Concatenation), {F16, F16}, F16, 4, 6},
    {"CONCATENATION i4 -> 5", B(Concatenation), {I4, I4}, I4, 4, 5},
    {"CONCATENATION u32 -> 4", B(Concatenation), {U32, U32}, U32, 4, 4},
    {"CONCATENATION i16 -> 3", B(Concatenation), {I16, I16}, I16, 4, 3},
    {"CONCATENATION i8 -> 2", B(Concatenation), {I8, I8}, I8, 4, 2},
    {"CONCATENATION i32 -> 1", B(Concatenation), {I32, I32}, I32, 4, 1},
    {"AVERAGE_POOL_2D in/out i16 -> 3", B(AveragePool2d), {I16}, I16, 4, 3},
    {"AVERAGE_POOL_2D i16 needs an i16 output", B(AveragePool2d), {I16}, I8, 4,
     1},
    {"MAX_POOL_2D i8 -> 2", B(MaxPool2d), {I8}, I8, 4, 2},
    {"LOGISTIC in/out i16 -> 3", B(Logistic), {I16}, I16, 4, 3},
    {"TANH i8 -> 2", B(Tanh), {I8}, I8, 4, 2},
    {"TANH f32 -> 1", B(Tanh), {F32}, F32, 4, 1},
    {"PACK i8 -> 2", B(Pack), {I8, I8}, I8, 3, 2},
    {"PACK in/out i16 -> 3", B(Pack), {I16, I16}, I16, 3, 3},
    {"PACK u32 -> 4", B(Pack), {U32, U32}, U32, 3, 4},
    {"PACK i16 needs an i16 output", B(Pack), {I16, I16}, F32, 3, 1},
    {"UNPACK i8 -> 2", B(Unpack), {I8}, I8, 3, 2},
    {"UNPACK u8 -> 2", B(Unpack), {U8}, U8, 3, 2},
    {"UNPACK bool -> 3", B(Unpack), {BOOL}, BOOL, 3, 3},
    {"UNPACK in/out i16 -> 4", B(Unpack), {I16}, I16, 3, 4},
    {"UNPACK f16 -> 5", B(Unpack), {F16}, F16, 3, 5},
    {"UNPACK bf16 -> 5", B(Unpack), {BF16}, BF16, 3, 5},
    {"UNPACK f32 -> 1", B(Unpack), {F32}, F32, 3, 1},
    {"SPLIT reads input 1: f32 -> 1", B(Split), {I32, F32}, F32, 2, 1},
    {"SPLIT input 1 i32 -> 3", B(Split), {I32, I32}, I32, 2, 3},
    {"SPLIT input 1 i16 -> 4", B(Split), {I32, I16}, I16, 2, 4},
    {"SPLIT input 1 i8 -> 2", B(Split), {I32, I8}, I8, 2, 2},
    {"SPLIT ignores input 0", B(Split), {I8, F32}, F32, 2, 1},
    {"SPACE_TO_DEPTH i8 -> 2", B(SpaceToDepth), {I8}, I8, 4, 2},
    {"DEPTH_TO_SPACE i8 -> 2", B(DepthToSpace), {I8}, I8, 4, 2},
    {"SPLIT_V i8 -> 2", B(SplitV), {I8, I32, I32}, I8, 1, 2},
    {"SUM i8 -> 2", B(Sum), {I8, I32}, I8, 2, 2},
    {"LOG_SOFTMAX i8 -> 2", B(LogSoftmax), {I8}, I8, 2, 2},
    {"GREATER has no i16 rule", B(Greater), {I16, I16}, BOOL, 2, 1},
    {"LESS_EQUAL i8 -> 2", B(LessEqual), {I8, I8}, BOOL, 2, 2},
    {"SQUARED_DIFFERENCE i8 -> 2", B(SquaredDifference), {I8, I8}, I8, 2, 2},
    {"EXP i16 -> 2", B(Exp), {I16}, I16, 2, 2},
    {"LOG i8 -> 2", B(Log), {I8}, I8, 2, 2},
    {"REDUCE_PROD i16 -> 2", B(ReduceProd), {I16, I32}, I16, 2, 2},
    {"SQRT i8 -> 2", B(Sqrt), {I8}, I8, 2, 2},
    {"EQUAL i16 -> 5", B(Equal), {I16, I16}, BOOL, 2, 5},
    {"EQUAL string -> 3", B(Equal), {STR, STR}, BOOL, 2, 3},
    {"EQUAL i8 -> 2", B(Equal), {I8, I8}, BOOL, 2, 2},
    {"EQUAL bool -> 1", B(Equal), {BOOL, BOOL}, BOOL, 2, 1},
    {"NOT_EQUAL i16 -> 4", B(NotEqual), {I16, I16}, BOOL, 2, 4},
    {"NOT_EQUAL string -> 3", B(NotEqual), {STR, STR}, BOOL, 2, 3},
    {"ARG_MAX bool -> 3", B(ArgMax), {BOOL, I32}, I32, 2, 3},
    {"ARG_MAX i8 -> 2", B(ArgMax), {I8, I32}, I32, 2, 2},
    {"ARG_MIN f32 -> 1", B(ArgMin), {F32, I32}, I64, 2, 1},
    {"SELECT_V2 input 0 u32 -> 2", B(SelectV2), {U32, F32, F32}, F32, 2, 2},
    {"SELECT_V2 reads the condition (input 0) only", B(SelectV2),
     {BOOL, U32, U32}, U32, 2, 1},
    {"LEAKY_RELU i16 -> 2", B(LeakyRelu), {I16}, I16, 2, 2},
    {"GELU u8 -> 2", B(Gelu), {U8}, U8, 2, 2},
    {"SIGN i32 -> 2", B(Sign), {I32}, I32, 2, 2},
    {"SIGN f32 -> 1", B(Sign), {F32}, F32, 2, 1},
    {"SIN f16 -> 2", B(Sin), {F16}, F16, 2, 2},
    {"COS f16 -> 2", B(Cos), {F16}, F16, 2, 2},
    {"TILE i8 -> 3", B(Tile), {I8, I32}, I8, 2, 3},
    {"TILE string -> 2", B(Tile), {STR, I32}, STR, 2, 2},
    {"SQUEEZE string -> 2", B(Squeeze), {STR}, STR, 2, 2},
    {"BROADCAST_TO starts at 2", B(BroadcastTo), {F32, I32}, F32, 2, 2},
    {"BROADCAST_TO i8 -> 3", B(BroadcastTo), {I8, I32}, I8, 2, 3},
    {"BROADCAST_TO i16 -> 3", B(BroadcastTo), {I16, I32}, I16, 2, 3},
    {"FILL value f16 -> 4", B(Fill), {I32, F16}, F16, 1, 4},
    {"FILL value i8 -> 3", B(Fill), {I32, I8}, I8, 1, 3},
    {"FILL value i16 -> 3", B(Fill), {I32, I16}, I16, 1, 3},
    {"FILL value bool -> 2", B(Fill), {I32, BOOL}, BOOL, 1, 2},
    {"FILL value string -> 2", B(Fill), {I32, STR}, STR, 1, 2},
    {"FILL value f32 -> 1", B(Fill), {I32, F32}, F32, 1, 1},
    {"FILL without a value input -> 1", B(Fill), {I32}, F32, 1, 1},
    {"SLICE f16 -> 8", B(Slice), {F16, I32, I32}, F16, 4, 8},
    {"SLICE i4 -> 7", B(Slice), {I4, I32, I32}, I4, 4, 7},
    {"SLICE u32 -> 6", B(Slice), {U32, I32, I32}, U32, 4, 6},
    {"SLICE rank 5 -> 5", B(Slice), {F32, I32, I32}, F32, 5, 5},
    {"SLICE rank 5 before i16", B(Slice), {I16, I32, I32}, I16, 5, 5},
    {"SLICE i16 -> 4", B(Slice), {I16, I32, I32}, I16, 4, 4},
    {"SLICE string -> 3", B(Slice), {STR, I32, I32}, STR, 4, 3},
    {"SLICE i8 -> 2", B(Slice), {I8, I32, I32}, I8, 4, 2},
    {"SLICE f32 rank 4 -> 1", B(Slice), {F32, I32, I32}, F32, 4, 1},
    {"TRANSPOSE f16 -> 9", B(Transpose), {F16, I32}, F16, 7, 9},
    {"TRANSPOSE rank 7 -> 8", B(Transpose), {F32, I32}, F32, 7, 8},
    {"TRANSPOSE bf16 -> 8", B(Transpose), {BF16, I32}, BF16, 4, 8},
    {"TRANSPOSE i4 -> 7", B(Transpose), {I4, I32}, I4, 4, 7},
    {"TRANSPOSE rank 6 -> 6", B(Transpose), {F32, I32}, F32, 6, 6},
    {"TRANSPOSE rank 6 before i16", B(Transpose), {I16, I32}, I16, 6, 6},
    {"TRANSPOSE i16 -> 5", B(Transpose), {I16, I32}, I16, 5, 5},
    {"TRANSPOSE rank 5 -> 4", B(Transpose), {F32, I32}, F32, 5, 4},
    {"TRANSPOSE rank 5 before bool", B(Transpose), {BOOL, I32}, BOOL, 5, 4},
    {"TRANSPOSE bool -> 3", B(Transpose), {BOOL, I32}, BOOL, 4, 3},
    {"TRANSPOSE i8 -> 2", B(Transpose), {I8, I32}, I8, 4, 2},
    {"TRANSPOSE f32 rank 4 -> 1", B(Transpose), {F32, I32}, F32, 4, 1},
    {"PAD f8e4m3 -> 6", B(Pad), {F8A, I32}, F8A, 4, 6},
    {"PAD f8e5m2 -> 6", B(Pad), {F8B, I32}, F8B, 4, 6},
    {"PAD bool -> 5", B(Pad), {BOOL, I32}, BOOL, 4, 5},
    {"PAD bool before rank", B(Pad), {BOOL, I32}, BOOL, 5, 5},
    {"PAD rank 5 -> 4", B(Pad), {F32, I32}, F32, 5, 4},
    {"PAD i16 -> 3", B(Pad), {I16, I32}, I16, 4, 3},
    {"PAD i8 -> 2", B(Pad), {I8, I32}, I8, 4, 2},
    {"PAD f32 -> 1", B(Pad), {F32, I32}, F32, 4, 1},
    {"PADV2 i16 -> 3", B(Padv2), {I16, I32, I16}, I16, 4, 3},
    {"PADV2 rank 5 -> 4", B(Padv2), {F32, I32, F32}, F32, 5, 4},
    {"RESHAPE has no rules", B(Reshape), {I8, I32}, I8, 4, 1},
    {"EXPAND_DIMS has no rules", B(ExpandDims), {I16, I32}, I16, 4, 1},
    {"HARD_SWISH has no rules", B(HardSwish), {I8}, I8, 4, 1},
    {"PRELU has no rules", B(Prelu), {I8, I8}, I8, 4, 1},
    {"ELU has no rules", B(Elu), {I8}, I8, 4, 1},
    {"L2_POOL_2D has no rules", B(L2Pool2d), {F32}, F32, 4, 1},
    {"POW has no rules", B(Pow), {I32, I32}, I32, 4, 1},
    {"SQUARE has no rules", B(Square), {F32}, F32, 4, 1},
    {"NEG has no rules", B(Neg), {I64}, I64, 4, 1},
    {"FLOOR has no rules", B(Floor), {F32}, F32, 4, 1},
    {"CEIL has no rules", B(Ceil), {F32}, F32, 4, 1},
    {"ROUND has no rules", B(Round), {F32}, F32, 4, 1},
    {"RELU_N1_TO_1 has no rules", B(ReluN1To1), {I8}, I8, 4, 1},
    {"RELU_0_TO_1 has no rules", B(Relu0To1), {F32}, F32, 4, 1},
    {"SHAPE has no rules", B(Shape), {F32}, I64, 4, 1},
    {"ZEROS_LIKE has no rules", B(ZerosLike), {I64}, I64, 4, 1},
    {"ADD f16 -> 6", B(Add), {F16, F16}, F16, 4, 6},
    {"ADD i16 without quantization -> 5", B(Add), {I16, I16}, I16, 4, 5},
    {"ADD i64 -> 4", B(Add), {I64, I64}, I64, 4, 4},
    {"ADD i8 -> 2", B(Add), {I8, I8}, I8, 4, 2},
    {"ADD f32 -> 1", B(Add), {F32, F32}, F32, 4, 1},
    {"SUB i64 -> 4", B(Sub), {I64, I64}, I64, 4, 4},
    {"SUB i8 -> 2", B(Sub), {I8, I8}, I8, 4, 2},
    {"SUB i32 -> 1", B(Sub), {I32, I32}, I32, 4, 1},
    {"MUL f16 -> 8", B(Mul), {F16, F16}, F16, 4, 8},
    {"MUL i16 without quantization -> 7", B(Mul), {I16, I16}, I16, 4, 7},
    {"MUL u32 -> 7", B(Mul), {U32, U32}, U32, 4, 7},
    {"MUL complex64 -> 6", B(Mul), {C64, C64}, C64, 4, 6},
    {"MUL i64 -> 5", B(Mul), {I64, I64}, I64, 4, 5},
    {"MUL i8 -> 2", B(Mul), {I8, I8}, I8, 4, 2},
    {"MUL f32 -> 1", B(Mul), {F32, F32}, F32, 4, 1},
    {"MAXIMUM in/out i16 -> 4", B(Maximum), {I16, I16}, I16, 4, 4},
    {"MAXIMUM i8 -> 2", B(Maximum), {I8, I8}, I8, 4, 2},
    {"MINIMUM i16 needs an i16 output", B(Minimum), {I16, I16}, I8, 4, 1},
    {"CONV_2D i16/i16/i16 -> 4", B(Conv2d), {I16, I16, I64}, I16, 4, 4},
    {"CONV_2D i8/i8/i8 -> 3", B(Conv2d), {I8, I8, I32}, I8, 4, 3},
    {"CONV_2D i8/i4/i8 -> 7", B(Conv2d), {I8, I4, I32}, I8, 4, 7},
    {"CONV_2D hybrid f32/i8/f32 -> 2", B(Conv2d), {F32, I8, F32}, F32, 4, 2},
    {"CONV_2D f32 -> 1", B(Conv2d), {F32, F32, F32}, F32, 4, 1},
    {"DEPTHWISE_CONV_2D i16/i16/i16 -> 5", B(DepthwiseConv2d), {I16, I16, I64},
     I16, 4, 5},
    {"DEPTHWISE_CONV_2D hybrid -> 4", B(DepthwiseConv2d), {F32, I8, F32}, F32,
     4, 4},
    {"DEPTHWISE_CONV_2D i8/i8/i8 -> 3", B(DepthwiseConv2d), {I8, I8, I32}, I8,
     4, 3},
    {"DEPTHWISE_CONV_2D i8/i4/i8 -> 7", B(DepthwiseConv2d), {I8, I4, I32}, I8,
     4, 7},
    {"FULLY_CONNECTED weights i2 -> 14", B(FullyConnected), {F32, I2, F32}, F32,
     2, 14},
    {"FULLY_CONNECTED i16/i4/i16 -> 13", B(FullyConnected), {I16, I4, I64}, I16,
     2, 13},
    {"FULLY_CONNECTED i16/i16/i16 -> 7", B(FullyConnected), {I16, I16, I64},
     I16, 2, 7},
    {"FULLY_CONNECTED i8/i8/i8 -> 4", B(FullyConnected), {I8, I8, I32}, I8, 2,
     4},
    {"FULLY_CONNECTED i8/i4/i8 -> 10", B(FullyConnected), {I8, I4, I32}, I8, 2,
     10},
    {"FULLY_CONNECTED hybrid -> 3", B(FullyConnected), {F32, I8, F32}, F32, 2,
     3},
    {"FULLY_CONNECTED f32 -> 1", B(FullyConnected), {F32, F32, F32}, F32, 2, 1},
    {"FULLY_CONNECTED 2 inputs -> 6", B(FullyConnected), {F32, F32}, F32, 2, 6},
    {"FULLY_CONNECTED 2 inputs before i8", B(FullyConnected), {I8, I8}, I8, 2,
     6},
    {"BATCH_MATMUL i16 -> 3", B(BatchMatmul), {I16, I16}, I16, 3, 3},
    {"BATCH_MATMUL i8 -> 2", B(BatchMatmul), {I8, I8}, I8, 3, 2},
    {"BATCH_MATMUL hybrid without asymmetric inputs -> 1", B(BatchMatmul),
     {F32, I8}, F32, 3, 1},
    {"GATHER f8 -> 8", B(Gather), {F8A, I32}, F8A, 2, 8},
    {"GATHER i4 -> 7", B(Gather), {I4, I32}, I4, 2, 7},
    {"GATHER i16 indices -> 6", B(Gather), {F32, I16}, F32, 2, 6},
    {"GATHER i16 -> 4", B(Gather), {I16, I32}, I16, 2, 4},
    {"GATHER bool -> 3", B(Gather), {BOOL, I32}, BOOL, 2, 3},
    {"GATHER i8 -> 2", B(Gather), {I8, I64}, I8, 2, 2},
    {"GATHER f32 i64 indices -> 1", B(Gather), {F32, I64}, F32, 2, 1},
    {"STRIDED_SLICE u32 -> 7", B(StridedSlice), {U32, I32, I32}, U32, 4, 7},
    {"STRIDED_SLICE string -> 5", B(StridedSlice), {STR, I32, I32}, STR, 4, 5},
    {"STRIDED_SLICE rank 5 -> 4", B(StridedSlice), {F32, I32, I32}, F32, 5, 4},
    {"STRIDED_SLICE bool -> 3", B(StridedSlice), {BOOL, I32, I32}, BOOL, 4, 3},
    {"STRIDED_SLICE i8 -> 2", B(StridedSlice), {I8, I32, I32}, I8, 4, 2},
    {"STRIDED_SLICE f32 -> 1", B(StridedSlice), {F32, I32, I32}, F32, 4, 1},
    {"RESIZE_BILINEAR i16 -> 4", B(ResizeBilinear), {I16, I32}, I16, 4, 4},
    {"RESIZE_BILINEAR i8 -> 2", B(ResizeBilinear), {I8, I32}, I8, 4, 2},
    {"RESIZE_NEAREST_NEIGHBOR i16 -> 4", B(ResizeNearestNeighbor), {I16, I32},
     I16, 4, 4},
    {"RESIZE_NEAREST_NEIGHBOR i8 -> 2", B(ResizeNearestNeighbor), {I8, I32}, I8,
     4, 2},
    {"DEQUANTIZE f8e4m3 -> 9", B(Dequantize), {F8A}, F32, 2, 9},
    {"DEQUANTIZE f8e5m2 -> 9", B(Dequantize), {F8B}, F32, 2, 9},
    {"DEQUANTIZE u4 -> 8", B(Dequantize), {U4}, F32, 2, 8},
    {"DEQUANTIZE i2 -> 7", B(Dequantize), {I2}, F32, 2, 7},
    {"DEQUANTIZE i4 -> 6", B(Dequantize), {I4}, F32, 2, 6},
    {"DEQUANTIZE i16 -> 3", B(Dequantize), {I16}, F32, 2, 3},
    {"DEQUANTIZE f16 -> 3", B(Dequantize), {F16}, F32, 2, 3},
    {"DEQUANTIZE i8 per-tensor -> 2", B(Dequantize), {I8}, F32, 2, 2},
    {"DEQUANTIZE u8 -> 1", B(Dequantize), {U8}, F32, 2, 1},
    {"QUANTIZE output u4 -> 5", B(Quantize), {F32}, U4, 2, 5},
    {"QUANTIZE input u4 -> 5", B(Quantize), {U4}, I8, 2, 5},
    {"QUANTIZE output i4 -> 4", B(Quantize), {F32}, I4, 2, 4},
    {"QUANTIZE output i16 -> 2", B(Quantize), {F32}, I16, 2, 2},
    {"QUANTIZE output i8 -> 1", B(Quantize), {F32}, I8, 2, 1},
    {"CAST input i2 -> 8", B(Cast), {I2}, F32, 2, 8},
    {"CAST output u4 -> 8", B(Cast), {F32}, U4, 2, 8},
    {"CAST bf16 -> 7", B(Cast), {BF16}, F32, 2, 7},
    {"CAST i4 to f32 -> 6", B(Cast), {I4}, F32, 2, 6},
    {"CAST i4 to i32 -> 1", B(Cast), {I4}, I32, 2, 1},
    {"CAST f64 -> 5", B(Cast), {F64}, F32, 2, 5},
    {"CAST to f16 -> 5", B(Cast), {F32}, F16, 2, 5},
    {"CAST u16 -> 4", B(Cast), {U16}, I32, 2, 4},
    {"CAST i8 -> 3", B(Cast), {I8}, F32, 2, 3},
    {"CAST to u32 -> 2", B(Cast), {F32}, U32, 2, 2},
    {"CAST f32 to i32 -> 1", B(Cast), {F32}, I32, 2, 1},
    {"CAST bool to f32 -> 1", B(Cast), {BOOL}, F32, 2, 1},
    {"ABS i32 -> 5", B(Abs), {I32}, I32, 2, 5},
    {"ABS i16 without quantization -> 4", B(Abs), {I16}, I16, 2, 4},
    {"ABS i8 -> 2", B(Abs), {I8}, I8, 2, 2},
    {"ABS u8 -> 2", B(Abs), {U8}, U8, 2, 2},
    {"ABS f32 -> 1", B(Abs), {F32}, F32, 2, 1},
};
/* clang-format on */

static void test_type_rules(void** state) {
  (void)state;
  for (size_t i = 0; i < sizeof(kTypeCases) / sizeof(kTypeCases[0]); ++i) {
    const type_case* c = &kTypeCases[i];
    lg_op_signature s = {.builtin_code = c->code, .num_outputs = 1};
    for (int k = 0; k < 3 && c->in[k] != NONE; ++k) {
      s.inputs[s.num_inputs++] = spec(c->in[k], c->rank);
    }
    s.outputs[0] = spec(c->out, c->rank);
    expect_version(&s, c->expected, c->rule);
  }
}

/* ---- Rules that read parameters or derived facts --------------------------
 */

static void test_add_sub_pot_scale_and_broadcast(void** state) {
  (void)state;
  lg_op_tensor_spec q16 = spec(I16, 4);
  q16.has_quantization = true;
  TfLiteAddParams add = {.pot_scale_int16 = true};
  lg_op_signature s = sig3(B(Add), &add, 2, q16, q16, spec(NONE, 0), q16);
  expect_version(&s, 1, "ADD quantized i16 with pot_scale_int16 -> 1");
  add.pot_scale_int16 = false;
  expect_version(&s, 3, "ADD quantized i16 without pot_scale_int16 -> 3");
  s.params = NULL;
  expect_version(&s, 1, "ADD NULL params: pot_scale_int16 defaults true");
  TfLiteSubParams sub = {.pot_scale_int16 = false};
  s = sig3(B(Sub), &sub, 2, spec(I16, 4), spec(I16, 4), spec(NONE, 0),
           spec(I16, 4));
  expect_version(&s, 5, "SUB in/out i16 without pot_scale_int16 -> 5");
  sub.pot_scale_int16 = true;
  expect_version(&s, 1, "SUB i16 with pot_scale_int16 -> 1");
  /* Broadcast: [2,1,3,1,5] vs [2,4,3,1,5] (5-D, dims differ). */
  static const int32_t a5[] = {2, 1, 3, 1, 5}, b5[] = {2, 4, 3, 1, 5};
  s = sig3(B(Sub), NULL, 2, shaped(F32, a5, 5), shaped(F32, b5, 5),
           spec(NONE, 0), shaped(F32, b5, 5));
  expect_version(&s, 3, "SUB broadcast with rank > 4 -> 3");
  s.inputs[1] = shaped(F32, a5, 5);
  expect_version(&s, 1, "SUB same 5-D dims: no broadcast -> 1");
  s.inputs[1] = shaped(F32, a5 + 4, 1); /* [5]: ranks differ */
  expect_version(&s, 3, "SUB [2,1,3,1,5] with [5] -> 3");
  s.inputs[0] = shaped(F32, b5 + 1, 4);
  expect_version(&s, 1, "SUB broadcast of rank 4 -> 1");
  s = sig3(B(Sub), NULL, 2, shaped(I64, a5, 5), shaped(I64, b5, 5),
           spec(NONE, 0), spec(I64, 5));
  expect_version(&s, 4, "SUB i64 comes before broadcast -> 4");
  s.builtin_code = B(Div);
  expect_version(&s, 2, "DIV broadcast with rank > 4 -> 2");
  s.inputs[1] = shaped(I64, a5, 5);
  expect_version(&s, 1, "DIV without broadcast -> 1");
}

static void test_min_max_broadcast(void** state) {
  (void)state;
  static const int32_t a5[] = {1, 2, 1, 4, 5}, b5[] = {1, 2, 3, 4, 5};
  lg_op_signature s = sig3(B(Maximum), NULL, 2, shaped(F32, a5, 5),
                           shaped(F32, b5, 5), spec(NONE, 0), spec(F32, 5));
  expect_version(&s, 3, "MAXIMUM broadcast with rank > 4 -> 3");
  s.builtin_code = B(Minimum);
  s.inputs[0].type = s.inputs[1].type = I8;
  expect_version(&s, 3, "MINIMUM broadcast comes before i8 -> 3");
  s.inputs[0].type = s.inputs[1].type = s.outputs[0].type = I16;
  expect_version(&s, 4, "MINIMUM in/out i16 comes before broadcast -> 4");
}

static void test_mul_quantization_rules(void** state) {
  (void)state;
  static const float half = 0.5f, quarter = 0.25f, zero = 0.0f;
  lg_op_tensor_spec a = spec(I8, 4), b = spec(I8, 4), o = spec(I8, 4);
  a.has_quantization = b.has_quantization = o.has_quantization = true;
  a.scales = b.scales = &half;
  o.scales = &quarter;
  a.num_scales = b.num_scales = o.num_scales = 1;
  lg_op_signature s = sig3(B(Mul), NULL, 2, a, b, spec(NONE, 0), o);
  expect_version(&s, 3, "MUL rescale 0.5*0.5/0.25 = 1 >= 1 -> 3");
  s.outputs[0].scales = &half;
  expect_version(&s, 2, "MUL rescale 0.5 < 1, i8 -> 2");
  s.outputs[0].scales = &zero;
  expect_version(&s, 2, "MUL zero output scale: no rescale rule -> 2");
  s.outputs[0].num_scales = 0;
  s.outputs[0].scales = NULL;
  expect_version(&s, 2, "MUL output without scales -> 2");
  s.outputs[0] = o;
  s.inputs[0].type = s.inputs[1].type = s.outputs[0].type = U8;
  expect_version(&s, 3, "MUL uint8 rescale >= 1 -> 3");
  s.inputs[0].type = s.inputs[1].type = s.outputs[0].type = I16;
  expect_version(&s, 4, "MUL quantized i16 -> 4");
  s.inputs[0].has_quantization = false;
  expect_version(&s, 4, "MUL i16 with input 1 quantized -> 4");
  s.inputs[1].has_quantization = false;
  expect_version(&s, 7, "MUL i16 without quantized inputs -> 7");
}

static void test_conv_rules(void** state) {
  (void)state;
  static const int32_t in4[] = {1, 5, 5, 4}, f2[] = {6, 3, 3, 2},
                       f4[] = {6, 3, 3, 4}, f1[] = {1, 3, 3, 4};
  lg_op_signature s = sig3(B(Conv2d), NULL, 3, shaped(F32, in4, 4),
                           shaped(F32, f2, 4), spec(F32, 1), spec(F32, 4));
  expect_version(&s, 6, "CONV_2D grouped (4 input channels, filter 2) -> 6");
  s.inputs[0].type = s.inputs[1].type = s.outputs[0].type = I8;
  expect_version(&s, 6, "CONV_2D grouped comes before i8 -> 6");
  s.inputs[1] = shaped(F32, f4, 4);
  s.inputs[0].type = s.outputs[0].type = F32;
  expect_version(&s, 1, "CONV_2D filter channels = input channels -> 1");
  s.inputs[0] = spec(F32, 0);
  expect_version(&s, 1, "CONV_2D input without a shape is not grouped");
  /* Hybrid: one filter scale per output channel (filter dim 0). */
  static const float scales[6] = {1, 2, 3, 4, 5, 6};
  s.inputs[0] = shaped(F32, in4, 4);
  s.inputs[1] = shaped(I8, f4, 4);
  s.inputs[1].has_quantization = true;
  s.inputs[1].scales = scales;
  s.inputs[1].num_scales = 6;
  expect_version(&s, 5, "CONV_2D hybrid per-channel -> 5");
  s.inputs[1].num_scales = 1;
  expect_version(&s, 2, "CONV_2D hybrid per-tensor -> 2");
  s.inputs[1].dims = f1; /* one output channel, one scale: per-channel */
  expect_version(&s, 5, "CONV_2D one scale for one filter counts per-channel");
  /* int16x8: TFLite tests quantized_bias_type for non-zero. */
  TfLiteConvParams p = {.quantized_bias_type = kTfLiteInt32};
  s = sig3(B(Conv2d), &p, 3, shaped(I16, in4, 4), shaped(I8, f4, 4),
           spec(I64, 1), spec(I16, 4));
  expect_version(&s, 8, "CONV_2D i16/i8/i16 with quantized_bias_type -> 8");
  p.quantized_bias_type = kTfLiteFloat32;
  expect_version(&s, 8, "CONV_2D i16/i8/i16, parsed default FLOAT32 -> 8");
  s.params = NULL;
  expect_version(&s, 8, "CONV_2D i16/i8/i16, NULL (default) params -> 8");
  p.quantized_bias_type = kTfLiteNoType;
  s.params = &p;
  expect_version(&s, 1, "CONV_2D i16/i8/i16, zeroed bias type -> 1");
}

static void test_depthwise_rules(void** state) {
  (void)state;
  TfLiteDepthwiseConvParams p = {.dilation_width_factor = 2,
                                 .dilation_height_factor = 1};
  lg_op_signature s = sig3(B(DepthwiseConv2d), &p, 3, spec(F32, 4),
                           spec(F32, 4), spec(F32, 1), spec(F32, 4));
  expect_version(&s, 2, "DEPTHWISE_CONV_2D dilation_w 2 -> 2");
  p.dilation_width_factor = 1;
  p.dilation_height_factor = 3;
  expect_version(&s, 2, "DEPTHWISE_CONV_2D dilation_h 3 -> 2");
  p.dilation_height_factor = 1;
  expect_version(&s, 1, "DEPTHWISE_CONV_2D dilation 1 -> 1");
  p.dilation_width_factor = p.dilation_height_factor = 0;
  expect_version(&s, 2, "DEPTHWISE_CONV_2D zeroed dilation (TFLite) -> 2");
  s.params = NULL;
  expect_version(&s, 1, "DEPTHWISE_CONV_2D NULL params: dilation 1 -> 1");
  p.dilation_width_factor = 2;
  s.params = &p;
  s.inputs[0].type = s.inputs[1].type = s.outputs[0].type = I8;
  expect_version(&s, 3, "DEPTHWISE_CONV_2D i8 comes before dilation -> 3");
  static const int32_t f8[] = {1, 3, 3, 8};
  static const float scales[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  s.inputs[0].type = s.outputs[0].type = F32;
  s.inputs[1] = shaped(I8, f8, 4);
  s.inputs[1].scales = scales;
  s.inputs[1].num_scales = 8;
  expect_version(&s, 6, "DEPTHWISE_CONV_2D hybrid per-channel (dim 3) -> 6");
  s.inputs[1].num_scales = 1;
  expect_version(&s, 4, "DEPTHWISE_CONV_2D hybrid per-tensor -> 4");
}

static void test_fully_connected_rules(void** state) {
  (void)state;
  static const int32_t w[] = {10, 4};
  static const float scales[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  TfLiteFullyConnectedParams p = {0};
  lg_op_signature s = sig3(B(FullyConnected), &p, 3, spec(F32, 2),
                           shaped(I8, w, 2), spec(F32, 1), spec(F32, 2));
  s.inputs[1].scales = scales;
  s.inputs[1].num_scales = 10;
  expect_version(&s, 12, "FULLY_CONNECTED hybrid per-channel -> 12");
  s.inputs[1].num_scales = 1;
  expect_version(&s, 3, "FULLY_CONNECTED hybrid per-tensor -> 3");
  p.asymmetric_quantize_inputs = true;
  expect_version(&s, 9, "FULLY_CONNECTED hybrid asymmetric inputs -> 9");
  p.asymmetric_quantize_inputs = false;
  s.inputs[1] = shaped(F32, w, 2);
  s.inputs[1].is_sparse = true;
  expect_version(&s, 8, "FULLY_CONNECTED sparse weights -> 8");
  s.num_inputs = 2;
  expect_version(&s, 8, "FULLY_CONNECTED sparse comes before no-bias -> 8");
  s.inputs[1].is_sparse = false;
  expect_version(&s, 6, "FULLY_CONNECTED without a bias slot -> 6");
  p.keep_num_dims = true;
  expect_version(&s, 6, "FULLY_CONNECTED no-bias comes before keep -> 6");
  s.num_inputs = 3;
  s.inputs[2] = spec(NONE, 0); /* omitted bias (-1): still 3 inputs */
  expect_version(&s, 5, "FULLY_CONNECTED keep_num_dims -> 5");
  p.keep_num_dims = false;
  expect_version(&s, 1, "FULLY_CONNECTED with an omitted bias -> 1");
  p.weights_format = kTfLiteFullyConnectedWeightsFormatShuffled4x16Int8;
  expect_version(&s, 2, "FULLY_CONNECTED shuffled weights -> 2");
  p.weights_format = kTfLiteFullyConnectedWeightsFormatDefault;
  p.keep_num_dims = true;
  s.inputs[0].type = s.inputs[1].type = s.outputs[0].type = I8;
  expect_version(&s, 5, "FULLY_CONNECTED keep comes before i8 -> 5");
  p.keep_num_dims = false;
  p.quantized_bias_type = kTfLiteInt32;
  s.inputs[0].type = s.outputs[0].type = I16;
  expect_version(&s, 11, "FULLY_CONNECTED i16/i8/i16 bias type -> 11");
  p.quantized_bias_type = kTfLiteNoType;
  expect_version(&s, 1, "FULLY_CONNECTED i16/i8/i16 zeroed bias type -> 1");
}

static void test_transpose_conv_rules(void** state) {
  (void)state;
  /* Inputs: output shape, weights, input, bias (optional). */
  TfLiteTransposeConvParams p = {.activation = kTfLiteActNone};
  lg_op_signature s = sig3(B(TransposeConv), &p, 3, spec(I32, 1), spec(F32, 4),
                           spec(F32, 4), spec(F32, 4));
  expect_version(&s, 1, "TRANSPOSE_CONV f32 without bias -> 1");
  s.num_inputs = 4;
  s.inputs[3] = spec(F32, 1);
  expect_version(&s, 3, "TRANSPOSE_CONV with a bias -> 3");
  s.inputs[3] = spec(NONE, 0);
  expect_version(&s, 1, "TRANSPOSE_CONV with an omitted bias -> 1");
  p.activation = kTfLiteActRelu;
  expect_version(&s, 4, "TRANSPOSE_CONV fused activation -> 4");
  p.activation = kTfLiteActNone;
  s.inputs[1].type = I8;
  expect_version(&s, 2, "TRANSPOSE_CONV i8 weights -> 2");
  /* TFLite's int16 rule tests input 0 (here the output shape). */
  p.quantized_bias_type = kTfLiteInt64;
  s.inputs[0].type = I16;
  s.outputs[0].type = I16;
  expect_version(&s, 5, "TRANSPOSE_CONV i16/i8/i16 bias type -> 5");
}

static void test_other_param_rules(void** state) {
  (void)state;
  TfLiteFakeQuantParams fq = {.min = -1, .max = 1, .num_bits = 8};
  lg_op_signature f = sig3(B(FakeQuant), &fq, 1, spec(F32, 2), spec(NONE, 0),
                           spec(NONE, 0), spec(F32, 2));
  expect_version(&f, 1, "FAKE_QUANT -> 1");
  fq.narrow_range = true;
  expect_version(&f, 2, "FAKE_QUANT narrow_range -> 2");
  f.params = NULL;
  expect_version(&f, 1, "FAKE_QUANT without params -> 1");
  TfLiteBatchMatMulParams bmm = {.asymmetric_quantize_inputs = true};
  lg_op_signature s = sig3(B(BatchMatmul), &bmm, 2, spec(F32, 3), spec(I8, 3),
                           spec(NONE, 0), spec(F32, 3));
  expect_version(&s, 4, "BATCH_MATMUL hybrid asymmetric inputs -> 4");
  TfLiteGatherParams g = {.axis = 1, .batch_dims = 1};
  s = sig3(B(Gather), &g, 2, spec(F32, 3), spec(I32, 2), spec(NONE, 0),
           spec(F32, 3));
  expect_version(&s, 5, "GATHER batch_dims != 0 -> 5");
  g.batch_dims = -1;
  expect_version(&s, 5, "GATHER batch_dims -1 -> 5");
  s.inputs[1].type = I16;
  expect_version(&s, 6, "GATHER i16 indices come before batch_dims -> 6");
  TfLiteStridedSliceParams ss = {.offset = true};
  s = sig3(B(StridedSlice), &ss, 4, spec(U32, 4), spec(I32, 1), spec(I32, 1),
           spec(U32, 4));
  expect_version(&s, 8, "STRIDED_SLICE offset -> 8");
  ss = (TfLiteStridedSliceParams){.ellipsis_mask = 1};
  expect_version(&s, 7, "STRIDED_SLICE u32 comes before ellipsis -> 7");
  s.inputs[0].type = s.outputs[0].type = F32;
  expect_version(&s, 6, "STRIDED_SLICE ellipsis_mask -> 6");
  ss = (TfLiteStridedSliceParams){.new_axis_mask = 2};
  expect_version(&s, 6, "STRIDED_SLICE new_axis_mask -> 6");
  ss = (TfLiteStridedSliceParams){
      .begin_mask = 3, .end_mask = 1, .shrink_axis_mask = 4};
  expect_version(&s, 1, "STRIDED_SLICE begin/end/shrink masks -> 1");
  TfLiteResizeBilinearParams rb = {.half_pixel_centers = true};
  s = sig3(B(ResizeBilinear), &rb, 2, spec(F32, 4), spec(I32, 1), spec(NONE, 0),
           spec(F32, 4));
  expect_version(&s, 3, "RESIZE_BILINEAR half_pixel_centers -> 3");
  rb = (TfLiteResizeBilinearParams){.align_corners = true};
  expect_version(&s, 1, "RESIZE_BILINEAR align_corners alone -> 1");
  TfLiteResizeNearestNeighborParams rn = {.align_corners = true};
  s.builtin_code = B(ResizeNearestNeighbor);
  s.params = &rn;
  expect_version(&s, 3, "RESIZE_NEAREST_NEIGHBOR align_corners -> 3");
  rn = (TfLiteResizeNearestNeighborParams){.half_pixel_centers = true};
  s.inputs[0].type = I8;
  expect_version(&s, 3, "RESIZE_NEAREST_NEIGHBOR half_pixel before i8 -> 3");
  s.inputs[0].type = I16;
  expect_version(&s, 4, "RESIZE_NEAREST_NEIGHBOR i16 comes first -> 4");
}

static void test_per_channel_and_quantized_rules(void** state) {
  (void)state;
  static const int32_t d34[] = {3, 4};
  static const float scales[4] = {1, 2, 3, 4};
  lg_op_tensor_spec q = shaped(I8, d34, 2);
  q.has_quantization = true;
  q.scales = scales;
  q.num_scales = 4;
  q.quantized_dimension = 1;
  lg_op_signature s = sig3(B(Dequantize), NULL, 1, q, spec(NONE, 0),
                           spec(NONE, 0), shaped(F32, d34, 2));
  expect_version(&s, 5, "DEQUANTIZE i8 per-channel along dim 1 -> 5");
  s.inputs[0].quantized_dimension = 0;
  expect_version(&s, 2, "DEQUANTIZE 4 scales along dim 0 (3) -> 2");
  s.inputs[0].num_scales = 3;
  expect_version(&s, 5, "DEQUANTIZE 3 scales along dim 0 -> 5");
  s.inputs[0].quantized_dimension = 5;
  expect_version(&s, 2, "DEQUANTIZE quantized_dimension out of range -> 2");
  static const int32_t d31[] = {3, 1};
  s.inputs[0] = shaped(I8, d31, 2);
  s.inputs[0].scales = scales;
  s.inputs[0].num_scales = 1;
  s.inputs[0].quantized_dimension = 1;
  expect_version(&s, 2, "DEQUANTIZE needs more than one scale -> 2");
  s = sig3(B(Quantize), NULL, 1, shaped(F32, d34, 2), spec(NONE, 0),
           spec(NONE, 0), q);
  expect_version(&s, 3, "QUANTIZE per-channel output -> 3");
  s.outputs[0].type = I16;
  expect_version(&s, 3, "QUANTIZE per-channel comes before i16 -> 3");
  s = sig3(B(Abs), NULL, 1, spec(I16, 2), spec(NONE, 0), spec(NONE, 0),
           spec(I16, 2));
  s.inputs[0].has_quantization = true;
  expect_version(&s, 3, "ABS quantized i16 -> 3");
  s = sig3(B(Add), NULL, 2, spec(I16, 2), spec(I16, 2), spec(NONE, 0),
           spec(I16, 2));
  s.inputs[1].has_quantization = true;
  expect_version(&s, 5, "ADD reads input 0's quantization only -> 5");
  static const int32_t d42[] = {4, 2};
  s = sig3(B(EmbeddingLookup), NULL, 2, spec(I32, 1), shaped(I8, d42, 2),
           spec(NONE, 0), shaped(F32, d42, 2));
  s.inputs[1].has_quantization = true;
  s.inputs[1].scales = scales;
  s.inputs[1].num_scales = 1;
  expect_version(&s, 1, "EMBEDDING_LOOKUP i8 per-tensor -> 1");
  s.inputs[1].num_scales = 4;
  expect_version(&s, 4, "EMBEDDING_LOOKUP i8 per-row scales -> 4");
}

/* The recurrent ops: hybrid (float input, int8 weights), asymmetric
 * quantize inputs, integer and option rules (TFLite's op_version.cc). */
static void test_recurrent_rules(void** state) {
  (void)state;
  TfLiteLSTMParams lstm = {.kernel_type = kTfLiteLSTMFullKernel};
  lg_op_signature s = sig3(B(Lstm), &lstm, 24, spec(F32, 2), spec(F32, 2),
                           spec(F32, 2), spec(F32, 2));
  expect_version(&s, 1, "LSTM float -> 1");
  s.inputs[2].type = I8;
  expect_version(&s, 3, "LSTM hybrid -> 3");
  lstm.asymmetric_quantize_inputs = true;
  expect_version(&s, 4, "LSTM hybrid asymmetric -> 4");
  s.inputs[0].type = I16;
  s.outputs[0].type = I16;
  expect_version(&s, 5, "LSTM int16 activations, int8 weights -> 5");
  lstm.kernel_type = kTfLiteLSTMBasicKernel;
  expect_version(&s, 2, "LSTM BASIC kernel -> 2");

  TfLiteUnidirectionalSequenceLSTMParams uni = {0};
  s = sig3(B(UnidirectionalSequenceLstm), &uni, 24, spec(F32, 3), spec(F32, 2),
           spec(F32, 2), spec(F32, 3));
  expect_version(&s, 1, "UNIDIRECTIONAL_SEQUENCE_LSTM float -> 1");
  s.inputs[2].type = I8;
  expect_version(&s, 2, "UNIDIRECTIONAL_SEQUENCE_LSTM hybrid -> 2");
  uni.asymmetric_quantize_inputs = true;
  expect_version(&s, 3, "UNIDIRECTIONAL_SEQUENCE_LSTM asymmetric -> 3");
  uni.diagonal_recurrent_tensors = true;
  expect_version(&s, 4, "UNIDIRECTIONAL_SEQUENCE_LSTM diagonal -> 4");
  s.inputs[0].type = I16;
  s.outputs[0].type = I16;
  expect_version(&s, 5, "UNIDIRECTIONAL_SEQUENCE_LSTM int16 -> 5");

  TfLiteBidirectionalSequenceLSTMParams bidi_lstm = {0};
  TfLiteRNNParams rnn = {0};
  TfLiteSequenceRNNParams seq_rnn = {0};
  TfLiteBidirectionalSequenceRNNParams bidi_rnn = {0};
  struct {
    int32_t code;
    bool* asymmetric;
    const void* params;
  } hybrid[] = {
      {B(BidirectionalSequenceLstm), &bidi_lstm.asymmetric_quantize_inputs,
       &bidi_lstm},
      {B(Rnn), &rnn.asymmetric_quantize_inputs, &rnn},
      {B(UnidirectionalSequenceRnn), &seq_rnn.asymmetric_quantize_inputs,
       &seq_rnn},
      {B(BidirectionalSequenceRnn), &bidi_rnn.asymmetric_quantize_inputs,
       &bidi_rnn},
  };
  for (size_t i = 0; i < sizeof(hybrid) / sizeof(hybrid[0]); ++i) {
    s = sig3(hybrid[i].code, hybrid[i].params, 5, spec(F32, 2), spec(F32, 2),
             spec(F32, 2), spec(F32, 2));
    expect_version(&s, 1, "recurrent float -> 1");
    s.inputs[1].type = I8;
    expect_version(&s, 2, "recurrent hybrid (input 1 int8) -> 2");
    *hybrid[i].asymmetric = true;
    expect_version(&s, 3, "recurrent hybrid asymmetric -> 3");
    s.outputs[0].type = I8;
    expect_version(&s, 1, "recurrent int8 output is not hybrid -> 1");
  }

  TfLiteSVDFParams svdf = {.rank = 1};
  s = sig3(B(Svdf), &svdf, 5, spec(F32, 2), spec(F32, 2), spec(F32, 2),
           spec(F32, 2));
  expect_version(&s, 1, "SVDF float -> 1");
  s.inputs[1].type = I8;
  expect_version(&s, 2, "SVDF hybrid -> 2");
  svdf.asymmetric_quantize_inputs = true;
  expect_version(&s, 4, "SVDF hybrid asymmetric -> 4");
  s.inputs[0].type = I8;
  expect_version(&s, 3, "SVDF int8 input -> 3");
}

static void test_ops_without_rules(void** state) {
  (void)state;
  /* StableHLO ops litegpu has no kernel for (and TFLite no rules). */
  static const int32_t codes[] = {kTfLiteBuiltinStablehloCbrt,
                                  kTfLiteBuiltinCustom,
                                  kTfLiteBuiltinStablehloSort, -1, 1000};
  for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); ++i) {
    lg_op_signature s = sig3(codes[i], NULL, 1, spec(F32, 2), spec(NONE, 0),
                             spec(NONE, 0), spec(F32, 2));
    assert_int_equal(lg_op_version(&s), 0);
    assert_false(lg_op_version_has_rules(codes[i]));
  }
  assert_int_equal(lg_op_version(NULL), 0);
  /* Tensors past the described ones read as absent (no type). */
  lg_op_signature s = {.builtin_code = B(Split), .num_inputs = 1};
  s.inputs[0] = spec(I32, 0);
  expect_version(&s, 1, "SPLIT without its data input -> 1");
}

/* Every op of litegpu's kernel tables has rules, and a float32 model of it
 * gets a version its kernel registration covers. */
static void test_registered_ops_have_rules(void** state) {
  (void)state;
  int checked = 0;
  {
    size_t count = 0;
    const lg_builtin_kernel* table = lg_builtin_kernels(&count);
    for (size_t i = 0; i < count; ++i) {
      int32_t code = table[i].builtin_code;
      if (!lg_op_version_has_rules(code)) {
        fail_msg("%s (code %d) is registered but has no version rules",
                 lg_builtin_op_name(code), (int)code);
      }
      lg_op_signature s = sig3(code, NULL, 3, spec(F32, 4), spec(F32, 4),
                               spec(F32, 4), spec(F32, 4));
      int v = lg_op_version(&s);
      int lo = 0, hi = 0;
      if (lg_builtin_kernel_find(code, v, &lo, &hi) == NULL) {
        fail_msg("%s: a float32 model gets version %d, outside %d..%d",
                 lg_builtin_op_name(code), v, lo, hi);
      }
      ++checked;
    }
  }
  assert_true(checked >= 80);
}

/* ---- Signatures from nodes and models -------------------------------------
 */

static void test_signature_from_node(void** state) {
  (void)state;
  TfLiteTensor tensors[3];
  memset(tensors, 0, sizeof(tensors));
  TfLiteIntArray* in_dims = TfLiteIntArrayCreate(4);
  TfLiteIntArray* in_sig = TfLiteIntArrayCreate(4);
  TfLiteIntArray* f_dims = TfLiteIntArrayCreate(4);
  TfLiteIntArray* out_dims = TfLiteIntArrayCreate(4);
  const int in_shape[] = {1, 5, 5, 8}, in_signature[] = {1, -1, -1, 8},
            f_shape[] = {1, 3, 3, 8};
  for (int i = 0; i < 4; ++i) {
    in_dims->data[i] = out_dims->data[i] = in_shape[i];
    in_sig->data[i] = in_signature[i];
    f_dims->data[i] = f_shape[i];
  }
  TfLiteAffineQuantization q = {.scale = TfLiteFloatArrayCreate(8),
                                .quantized_dimension = 3};
  for (int i = 0; i < 8; ++i) q.scale->data[i] = 0.5f;
  tensors[0] = (TfLiteTensor){.type = F32,
                              .dims = in_dims,
                              .allocation_type = kTfLiteArenaRw,
                              .dims_signature = in_sig};
  tensors[1] = (TfLiteTensor){
      .type = I8, .dims = f_dims, .allocation_type = kTfLiteMmapRo};
  tensors[1].quantization.type = kTfLiteAffineQuantization;
  tensors[1].quantization.params = &q;
  tensors[2] = (TfLiteTensor){
      .type = F32, .dims = out_dims, .allocation_type = kTfLiteArenaRw};
  TfLiteContext context = {.tensors_size = 3, .tensors = tensors};
  TfLiteDepthwiseConvParams params = {.dilation_width_factor = 1,
                                      .dilation_height_factor = 1};
  TfLiteIntArray* ins = TfLiteIntArrayCreate(3);
  TfLiteIntArray* outs = TfLiteIntArrayCreate(1);
  ins->data[0] = 0;
  ins->data[1] = 1;
  ins->data[2] = kTfLiteOptionalTensor;
  outs->data[0] = 2;
  TfLiteNode node = {.inputs = ins, .outputs = outs, .builtin_data = &params};
  lg_op_signature s;
  assert_int_equal(
      lg_op_signature_from_node(&context, &node, B(DepthwiseConv2d), &s),
      kTfLiteOk);
  assert_int_equal(s.num_inputs, 3);
  assert_int_equal(s.num_outputs, 1);
  assert_ptr_equal(s.params, &params);
  assert_true(s.inputs[0].is_shape_dynamic);
  assert_false(s.inputs[0].is_const);
  assert_false(s.inputs[0].has_quantization);
  assert_true(s.inputs[1].is_const);
  assert_true(s.inputs[1].has_quantization);
  assert_int_equal(s.inputs[1].num_scales, 8);
  assert_int_equal(s.inputs[1].quantized_dimension, 3);
  assert_int_equal(s.inputs[1].num_dims, 4);
  assert_int_equal(s.inputs[1].dims[3], 8);
  assert_int_equal(s.inputs[2].type, NONE);
  expect_version(&s, 6, "from a node: DEPTHWISE_CONV_2D hybrid per-channel");
  lg_op_signature_release(&s);
  /* Sparse weights; a tensor index out of range fails. */
  tensors[1].sparsity = (TfLiteSparsity*)&q; /* only tested for non-NULL */
  assert_int_equal(lg_op_signature_from_node(&context, &node, B(Conv2d), &s),
                   kTfLiteOk);
  assert_true(s.inputs[1].is_sparse);
  tensors[1].sparsity = NULL;
  ins->data[2] = 3;
  assert_int_equal(lg_op_signature_from_node(&context, &node, B(Conv2d), &s),
                   kTfLiteError);
  assert_int_equal(lg_op_signature_from_node(NULL, &node, B(Conv2d), &s),
                   kTfLiteError);
  TfLiteIntArrayFree(ins);
  TfLiteIntArrayFree(outs);
  TfLiteFloatArrayFree(q.scale);
  TfLiteIntArrayFree(in_dims);
  TfLiteIntArrayFree(in_sig);
  TfLiteIntArrayFree(f_dims);
  TfLiteIntArrayFree(out_dims);
}

/* Captures the last reported message. */
typedef struct capture {
  char last[512];
} capture;

static void capture_fn(void* user_data, const char* format, va_list args) {
  capture* c = user_data;
  vsnprintf(c->last, sizeof(c->last), format, args);
}

static int32_t add_f32(lg_model_writer* w, const char* name,
                       const int32_t* shape, int rank) {
  lg_writer_tensor t = {
      .name = name, .type = F32, .shape = shape, .num_dims = rank};
  return lg_model_writer_add_tensor(w, &t);
}

/* Finishes `w` and parses the result; *data must be freed after the model. */
static lg_model* finish_and_parse(lg_model_writer* w, void** data) {
  size_t size = 0;
  assert_int_equal(lg_model_writer_finish(w, data, &size), kTfLiteOk);
  lg_model* m = NULL;
  assert_int_equal(lg_model_parse(*data, size, NULL, &m), kTfLiteOk);
  return m;
}

static void test_signature_from_model(void** state) {
  (void)state;
  lg_model_writer* w = lg_model_writer_create(NULL);
  static const int32_t x_shape[] = {2, 4}, x_sig[] = {-1, 4},
                       w_shape[] = {10, 4}, y_shape[] = {2, 10};
  lg_writer_tensor x = {.name = "x",
                        .type = F32,
                        .shape = x_shape,
                        .num_dims = 2,
                        .shape_signature = x_sig};
  int32_t in = lg_model_writer_add_tensor(w, &x);
  int8_t weights[40] = {0};
  float scales[10];
  int64_t zeros[10] = {0};
  for (int i = 0; i < 10; ++i) scales[i] = 0.1f * (float)(i + 1);
  lg_writer_quantization q = {.scale = scales,
                              .num_scale = 10,
                              .zero_point = zeros,
                              .num_zero_point = 10};
  int32_t buf = lg_model_writer_add_buffer(w, weights, sizeof(weights));
  lg_writer_tensor wt = {.name = "w",
                         .type = I8,
                         .shape = w_shape,
                         .num_dims = 2,
                         .buffer = buf,
                         .quantization = &q};
  int32_t wi = lg_model_writer_add_tensor(w, &wt);
  int32_t out = add_f32(w, "y", y_shape, 2);
  TfLiteFullyConnectedParams p = {.keep_num_dims = true};
  int32_t ins[] = {in, wi, -1};
  assert_int_equal(lg_model_writer_add_operator(w, B(FullyConnected), 12, ins,
                                                3, &out, 1, &p),
                   0);
  lg_model_writer_set_inputs(w, &in, 1);
  lg_model_writer_set_outputs(w, &out, 1);
  void* data = NULL;
  lg_model* m = finish_and_parse(w, &data);
  lg_op_signature s;
  assert_int_equal(lg_op_signature_from_model(m, 0, 0, NULL, &s), kTfLiteOk);
  assert_int_equal(s.builtin_code, B(FullyConnected));
  assert_int_equal(s.num_inputs, 3);
  assert_true(s.inputs[0].is_shape_dynamic);
  assert_false(s.inputs[0].is_const);
  assert_true(s.inputs[1].is_const);
  assert_true(s.inputs[1].has_quantization);
  assert_int_equal(s.inputs[1].num_scales, 10);
  assert_true(s.inputs[1].scales[9] == scales[9]);
  assert_int_equal(s.inputs[2].type, NONE);
  assert_non_null(s.owned_params);
  assert_true(((const TfLiteFullyConnectedParams*)s.params)->keep_num_dims);
  expect_version(&s, 12, "from a model: FULLY_CONNECTED hybrid per-channel");
  lg_op_signature_release(&s);
  assert_null(s.owned_params);
  capture c = {{0}};
  lg_reporter rep = {capture_fn, &c};
  assert_int_equal(lg_op_signature_from_model(m, 0, 1, &rep, &s), kTfLiteError);
  assert_non_null(strstr(c.last, "no operator 1 in subgraph 0"));
  assert_int_equal(lg_op_signature_from_model(m, 1, 0, &rep, &s), kTfLiteError);
  lg_op_signature_release(&s);
  lg_op_signature_release(NULL);
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_type_rules),
      cmocka_unit_test(test_add_sub_pot_scale_and_broadcast),
      cmocka_unit_test(test_min_max_broadcast),
      cmocka_unit_test(test_mul_quantization_rules),
      cmocka_unit_test(test_conv_rules),
      cmocka_unit_test(test_depthwise_rules),
      cmocka_unit_test(test_fully_connected_rules),
      cmocka_unit_test(test_transpose_conv_rules),
      cmocka_unit_test(test_other_param_rules),
      cmocka_unit_test(test_per_channel_and_quantized_rules),
      cmocka_unit_test(test_recurrent_rules),
      cmocka_unit_test(test_ops_without_rules),
      cmocka_unit_test(test_registered_ops_have_rules),
      cmocka_unit_test(test_signature_from_node),
      cmocka_unit_test(test_signature_from_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
