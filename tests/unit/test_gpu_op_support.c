/* The GPU delegate's op support table (delegates/gpu/op_support.h): the
 * table itself (ops and kMaxVersion), one accepted and at least one refused
 * case with its exact reason for every op on hand-built contexts, and the
 * delegate kit driven by the table through the interpreter on writer-built
 * models (decisions and the "Following operations are not supported" log). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "delegates/gpu/op_support.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/c_api.h"

/* ---- Hand-built contexts ----------------------------------------------- */

#define MAX_TENSORS 16

typedef struct fixture {
  TfLiteContext context;
  TfLiteTensor tensors[MAX_TENSORS];
  int num_tensors;
  TfLiteNode node;
  TfLiteRegistration registration;
} fixture;

static void fixture_reset(fixture* f) {
  for (int i = 0; i < f->num_tensors; ++i) {
    TfLiteIntArrayFree(f->tensors[i].dims);
  }
  TfLiteIntArrayFree(f->node.inputs);
  TfLiteIntArrayFree(f->node.outputs);
  memset(f, 0, sizeof(*f));
  f->context.tensors = f->tensors;
}

static int setup(void** state) {
  fixture* f = calloc(1, sizeof(fixture));
  if (f == NULL) return -1;
  fixture_reset(f);
  *state = f;
  return 0;
}

static int teardown(void** state) {
  fixture_reset(*state);
  free(*state);
  return 0;
}

/* A tensor: constant (model data) or runtime (arena). Returns its index. */
static int tensor(fixture* f, TfLiteType type, bool constant, const int* dims,
                  int rank) {
  assert_true(f->num_tensors < MAX_TENSORS);
  TfLiteTensor* t = &f->tensors[f->num_tensors];
  t->type = type;
  t->allocation_type = constant ? kTfLiteMmapRo : kTfLiteArenaRw;
  t->dims = TfLiteIntArrayCreate(rank);
  assert_non_null(t->dims);
  for (int i = 0; i < rank; ++i) t->dims->data[i] = dims[i];
  f->context.tensors_size = (size_t)++f->num_tensors;
  return f->num_tensors - 1;
}

#define DIMS(...) \
  (const int[]){__VA_ARGS__}, (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int))
#define RT(f, type, ...) tensor(f, type, false, DIMS(__VA_ARGS__))
#define CST(f, type, ...) tensor(f, type, true, DIMS(__VA_ARGS__))
#define F32 kTfLiteFloat32
#define I32 kTfLiteInt32

static TfLiteIntArray* int_array(const int* values, int n) {
  TfLiteIntArray* a = TfLiteIntArrayCreate(n);
  assert_non_null(a);
  for (int i = 0; i < n; ++i) a->data[i] = values[i];
  return a;
}

/* The node's inputs and outputs (tensor indices; -1 = omitted). */
static void io(fixture* f, const int* ins, int num_ins, const int* outs,
               int num_outs) {
  TfLiteIntArrayFree(f->node.inputs);
  TfLiteIntArrayFree(f->node.outputs);
  f->node.inputs = int_array(ins, num_ins);
  f->node.outputs = int_array(outs, num_outs);
}

#define IO(f, ins, outs)                             \
  io(f, ins, (int)(sizeof(ins) / sizeof(int)), outs, \
     (int)(sizeof(outs) / sizeof(int)))

/* Asks the table about the node as (code, version, params): NULL expected
 * means accepted, otherwise the exact reason. The kit's view (the table
 * entry's check) must agree with lg_gpu_op_supported. */
static void expect(fixture* f, int32_t code, int version, const void* params,
                   const char* expected) {
  f->registration.builtin_code = code;
  f->registration.version = version;
  f->node.builtin_data = (void*)params;
  char reason[LG_KIT_REASON_SIZE] = "unset";
  const bool ok = lg_gpu_op_supported(&f->context, &f->node, &f->registration,
                                      reason, sizeof(reason));
  if (expected == NULL) {
    if (!ok) fail_msg("op %d refused: \"%s\"", code, reason);
    assert_string_equal(reason, "");
  } else {
    if (ok) fail_msg("op %d accepted, expected \"%s\"", code, expected);
    assert_string_equal(reason, expected);
  }
  const lg_kit_op* op = lg_gpu_op_find(code, NULL);
  if (op != NULL && version <= op->max_version) {
    char again[LG_KIT_REASON_SIZE] = "";
    assert_int_equal(op->check(&f->context, &f->node, &f->registration, again,
                               sizeof(again)),
                     ok);
    if (!ok) assert_string_equal(again, reason);
  }
}

#define ACCEPT(f, code, params) expect(f, code, 1, params, NULL)
#define REFUSE(f, code, params, why) expect(f, code, 1, params, why)

static const char kTensors[] = LG_GPU_TENSOR_REASON;
static const char kSignBit[] = "TfLiteFusedActivation.kTfLiteActSignBit";

/* ---- The table --------------------------------------------------------- */

typedef struct expected_op {
  int32_t code;
  int max_version;
} expected_op;

#define ANY LG_GPU_ANY_VERSION
static const expected_op kExpected[] = {
    {kTfLiteBuiltinAdd, 2},
    {kTfLiteBuiltinSub, 2},
    {kTfLiteBuiltinMul, 3},
    {kTfLiteBuiltinDiv, 2},
    {kTfLiteBuiltinMaximum, 2},
    {kTfLiteBuiltinMinimum, 2},
    {kTfLiteBuiltinSquaredDifference, 2},
    {kTfLiteBuiltinPow, 2},
    {kTfLiteBuiltinFloorDiv, 2},
    {kTfLiteBuiltinFloorMod, 2},
    {kTfLiteBuiltinAddN, 2},
    {kTfLiteBuiltinLess, 2},
    {kTfLiteBuiltinLessEqual, 2},
    {kTfLiteBuiltinGreater, 2},
    {kTfLiteBuiltinGreaterEqual, 2},
    {kTfLiteBuiltinEqual, 2},
    {kTfLiteBuiltinNotEqual, 2},
    {kTfLiteBuiltinLogicalAnd, 2},
    {kTfLiteBuiltinSelect, 1},
    {kTfLiteBuiltinSelectV2, 1},
    {kTfLiteBuiltinConv2d, 6},
    {kTfLiteBuiltinDepthwiseConv2d, 6},
    {kTfLiteBuiltinTransposeConv, 3},
    {kTfLiteBuiltinFullyConnected, 9},
    {kTfLiteBuiltinBatchMatmul, ANY},
    {kTfLiteBuiltinLstm, 4},
    {kTfLiteBuiltinAveragePool2d, 2},
    {kTfLiteBuiltinMaxPool2d, 2},
    {kTfLiteBuiltinMean, ANY},
    {kTfLiteBuiltinSum, ANY},
    {kTfLiteBuiltinReduceMax, ANY},
    {kTfLiteBuiltinReduceMin, ANY},
    {kTfLiteBuiltinReduceProd, ANY},
    {kTfLiteBuiltinCumsum, 1},
    {kTfLiteBuiltinReshape, 1},
    {kTfLiteBuiltinSqueeze, 1},
    {kTfLiteBuiltinConcatenation, 2},
    {kTfLiteBuiltinPad, 2},
    {kTfLiteBuiltinPadv2, 2},
    {kTfLiteBuiltinMirrorPad, 2},
    {kTfLiteBuiltinSlice, 2},
    {kTfLiteBuiltinStridedSlice, 4},
    {kTfLiteBuiltinTranspose, 4},
    {kTfLiteBuiltinSplit, ANY},
    {kTfLiteBuiltinSplitV, ANY},
    {kTfLiteBuiltinPack, ANY},
    {kTfLiteBuiltinUnpack, ANY},
    {kTfLiteBuiltinOneHot, 1},
    {kTfLiteBuiltinTile, ANY},
    {kTfLiteBuiltinGather, 1},
    {kTfLiteBuiltinDepthToSpace, ANY},
    {kTfLiteBuiltinSpaceToDepth, 2},
    {kTfLiteBuiltinResizeBilinear, 3},
    {kTfLiteBuiltinResizeNearestNeighbor, 3},
    {kTfLiteBuiltinSoftmax, 2},
    {kTfLiteBuiltinLogistic, 2},
    {kTfLiteBuiltinTanh, 2},
    {kTfLiteBuiltinRelu, 2},
    {kTfLiteBuiltinRelu6, 2},
    {kTfLiteBuiltinReluN1To1, 2},
    {kTfLiteBuiltinRelu0To1, 2},
    {kTfLiteBuiltinLeakyRelu, 2},
    {kTfLiteBuiltinPrelu, 1},
    {kTfLiteBuiltinElu, 2},
    {kTfLiteBuiltinHardSwish, ANY},
    {kTfLiteBuiltinGelu, 2},
    {kTfLiteBuiltinExp, 2},
    {kTfLiteBuiltinLog, 2},
    {kTfLiteBuiltinSqrt, 2},
    {kTfLiteBuiltinRsqrt, 2},
    {kTfLiteBuiltinSquare, 2},
    {kTfLiteBuiltinAbs, 2},
    {kTfLiteBuiltinNeg, 2},
    {kTfLiteBuiltinSin, 2},
    {kTfLiteBuiltinCos, 2},
    {kTfLiteBuiltinFloor, 2},
    {kTfLiteBuiltinSign, 2},
    {kTfLiteBuiltinDequantize, 3},
    {kTfLiteBuiltinQuantize, 2},
    {kTfLiteBuiltinDensify, 1},
    {kTfLiteBuiltinCast, ANY},
};
#define NUM_EXPECTED ((int)(sizeof(kExpected) / sizeof(kExpected[0])))

static void test_table_holds_exactly_the_gpu_ops(void** state) {
  (void)state;
  int count = -1;
  const lg_kit_op* ops = lg_gpu_op_table(&count);
  assert_non_null(ops);
  /* The builtins above and MediaPipe's three custom ops. */
  assert_int_equal(count, NUM_EXPECTED + 3);
  assert_ptr_equal(lg_gpu_op_table(NULL), ops);
  for (int i = 0; i < NUM_EXPECTED; ++i) {
    const lg_kit_op* op = lg_gpu_op_find(kExpected[i].code, NULL);
    if (op == NULL) fail_msg("op %d missing", kExpected[i].code);
    if (op->max_version != kExpected[i].max_version) {
      fail_msg("op %d: max version %d, expected %d", kExpected[i].code,
               op->max_version, kExpected[i].max_version);
    }
    assert_null(op->custom_name);
    assert_non_null(op->check);
    for (int j = 0; j < i; ++j)
      assert_int_not_equal(kExpected[j].code, kExpected[i].code);
  }
  assert_null(lg_gpu_op_find(kTfLiteBuiltinArgMax, NULL));
  assert_null(lg_gpu_op_find(kTfLiteBuiltinCustom, NULL));
  static const char* const kCustom[3] = {
      "Convolution2DTransposeBias", "MaxPoolingWithArgmax2D", "MaxUnpooling2D"};
  for (int i = 0; i < 3; ++i) {
    const lg_kit_op* op = lg_gpu_op_find(kTfLiteBuiltinCustom, kCustom[i]);
    if (op == NULL) fail_msg("custom op %s missing", kCustom[i]);
    assert_string_equal(op->custom_name, kCustom[i]);
    assert_int_equal(op->max_version, 1);
  }
  assert_null(lg_gpu_op_find(kTfLiteBuiltinCustom, "TransformLandmarks"));
}

static void test_unknown_op_is_not_supported(void** state) {
  fixture* f = *state;
  const int x = RT(f, F32, 1, 4), y = RT(f, F32, 1);
  const int ins[] = {x}, outs[] = {y};
  IO(f, ins, outs);
  REFUSE(f, kTfLiteBuiltinArgMax, NULL, "Operation is not supported.");
  REFUSE(f, kTfLiteBuiltinUnidirectionalSequenceLstm, NULL,
         "Operation is not supported.");
}

/* Every op with a kMaxVersion: max+1 is refused with TFLite's detail. */
static void test_version_above_max_is_refused(void** state) {
  fixture* f = *state;
  for (int i = 0; i < NUM_EXPECTED; ++i) {
    if (kExpected[i].max_version == ANY) continue;
    char want[LG_KIT_REASON_SIZE];
    snprintf(want, sizeof(want),
             "Max version supported: %d. Requested version %d.",
             kExpected[i].max_version, kExpected[i].max_version + 1);
    expect(f, kExpected[i].code, kExpected[i].max_version + 1, NULL, want);
  }
  /* Ops without a version check in TFLite take any version. */
  const int x = RT(f, F32, 1, 2, 2, 3), y = RT(f, F32, 1, 2, 2, 3);
  const int ins[] = {x}, outs[] = {y};
  IO(f, ins, outs);
  expect(f, kTfLiteBuiltinHardSwish, 7, NULL, NULL);
}

/* ---- Elementwise ------------------------------------------------------- */

static const int32_t kUnary[] = {
    kTfLiteBuiltinLogistic, kTfLiteBuiltinTanh,  kTfLiteBuiltinElu,
    kTfLiteBuiltinGelu,     kTfLiteBuiltinExp,   kTfLiteBuiltinLog,
    kTfLiteBuiltinSqrt,     kTfLiteBuiltinRsqrt, kTfLiteBuiltinSquare,
    kTfLiteBuiltinAbs,      kTfLiteBuiltinNeg,   kTfLiteBuiltinSin,
    kTfLiteBuiltinCos,      kTfLiteBuiltinFloor, kTfLiteBuiltinSign};

static void test_unary_ops(void** state) {
  fixture* f = *state;
  const int x = RT(f, F32, 1, 4, 4, 2), y = RT(f, F32, 1, 4, 4, 2);
  const int c = CST(f, F32, 1, 4, 4, 2);
  const int xi = RT(f, I32, 1, 4, 4, 2), yi = RT(f, I32, 1, 4, 4, 2);
  const int x5 = RT(f, F32, 1, 1, 4, 4, 2), y5 = RT(f, F32, 1, 1, 4, 4, 2);
  const TfLiteGeluParams gelu = {.approximate = false};
  for (size_t i = 0; i < sizeof(kUnary) / sizeof(kUnary[0]); ++i) {
    const void* params = kUnary[i] == kTfLiteBuiltinGelu ? &gelu : NULL;
    IO(f, ((int[]){x}), ((int[]){y}));
    ACCEPT(f, kUnary[i], params);
    expect(f, kUnary[i], 2, params, NULL);
    IO(f, ((int[]){c}), ((int[]){y}));
    REFUSE(f, kUnary[i], params,
           "Expected 0 const input tensor(s), but node has 1 const input(s).");
    IO(f, ((int[]){x, x}), ((int[]){y}));
    REFUSE(f, kUnary[i], params,
           "Expected 1 runtime input tensor(s), but node has 2 runtime "
           "input(s).");
    IO(f, ((int[]){xi}), ((int[]){yi}));
    REFUSE(f, kUnary[i], params, kTensors);
    IO(f, ((int[]){x5}), ((int[]){y5}));
    REFUSE(f, kUnary[i], params, kTensors);
  }
}

static void test_relu_family(void** state) {
  fixture* f = *state;
  const int x = RT(f, F32, 1, 4, 4, 2), y = RT(f, F32, 1, 4, 4, 2);
  const int xh = RT(f, kTfLiteFloat16, 1, 4, 4, 2);
  const int xi = RT(f, kTfLiteInt16, 1, 4, 4, 2);
  const int x5 = RT(f, F32, 2, 1, 4, 4, 2);
  const TfLiteLeakyReluParams leaky = {.alpha = 0.2f};
  const int32_t codes[] = {kTfLiteBuiltinRelu, kTfLiteBuiltinRelu6,
                           kTfLiteBuiltinReluN1To1, kTfLiteBuiltinRelu0To1,
                           kTfLiteBuiltinLeakyRelu};
  for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); ++i) {
    const void* p = codes[i] == kTfLiteBuiltinLeakyRelu ? &leaky : NULL;
    IO(f, ((int[]){x}), ((int[]){y}));
    ACCEPT(f, codes[i], p);
    IO(f, ((int[]){xh}), ((int[]){y}));
    ACCEPT(f, codes[i], p);
    IO(f, ((int[]){xi}), ((int[]){y}));
    REFUSE(f, codes[i], p, kTensors);
    IO(f, ((int[]){x5}), ((int[]){y}));
    REFUSE(f, codes[i], p, kTensors);
  }
}

static void test_binary_ops(void** state) {
  fixture* f = *state;
  const int a = RT(f, F32, 1, 4, 4, 2), b = RT(f, F32, 1, 4, 4, 2);
  const int c = CST(f, F32, 2), c2 = CST(f, F32, 1, 4, 4, 2);
  const int y = RT(f, F32, 1, 4, 4, 2), yi = RT(f, I32, 1, 4, 4, 2);
  const int32_t codes[] = {kTfLiteBuiltinSub,
                           kTfLiteBuiltinDiv,
                           kTfLiteBuiltinMaximum,
                           kTfLiteBuiltinMinimum,
                           kTfLiteBuiltinSquaredDifference,
                           kTfLiteBuiltinPow,
                           kTfLiteBuiltinFloorDiv,
                           kTfLiteBuiltinFloorMod};
  const TfLiteSubParams sub = {.activation = kTfLiteActRelu6};
  const TfLiteSubParams sub_sign = {.activation = kTfLiteActSignBit};
  const TfLiteDivParams div = {.activation = kTfLiteActRelu};
  const TfLiteDivParams div_sign = {.activation = kTfLiteActSignBit};
  for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); ++i) {
    const void* p = codes[i] == kTfLiteBuiltinSub   ? (const void*)&sub
                    : codes[i] == kTfLiteBuiltinDiv ? (const void*)&div
                                                    : NULL;
    IO(f, ((int[]){a, b}), ((int[]){y}));
    ACCEPT(f, codes[i], p);
    IO(f, ((int[]){a, c}), ((int[]){y}));
    ACCEPT(f, codes[i], p);
    IO(f, ((int[]){c, a}), ((int[]){y}));
    ACCEPT(f, codes[i], p);
    IO(f, ((int[]){c, c2}), ((int[]){y}));
    REFUSE(f, codes[i], p, "Op can only handle 1 or 2 operand(s).");
    IO(f, ((int[]){a, b, c}), ((int[]){y}));
    REFUSE(f, codes[i], p, "Op can only handle 1 or 2 operand(s).");
    IO(f, ((int[]){a, b}), ((int[]){yi}));
    REFUSE(f, codes[i], p, kTensors);
  }
  IO(f, ((int[]){a, b}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinSub, &sub_sign, kSignBit);
  REFUSE(f, kTfLiteBuiltinDiv, &div_sign, kSignBit);
  expect(f, kTfLiteBuiltinFloorDiv, 3, NULL,
         "Max version supported: 2. Requested version 3.");
}

/* The comparisons: TFLite's operand rule; float inputs, a BOOL output;
 * BOOL or INT32 inputs refused. LOGICAL_AND: BOOL in and out (TFLite's
 * filter passes float tensors for every op). */
static void test_comparisons_and_logical_and(void** state) {
  fixture* f = *state;
  const int a = RT(f, F32, 1, 4, 4, 2), b = RT(f, F32, 1, 4, 4, 2);
  const int c = CST(f, F32, 2), yb = RT(f, kTfLiteBool, 1, 4, 4, 2);
  const int ab = RT(f, kTfLiteBool, 1, 4, 4, 2);
  const int bb = RT(f, kTfLiteBool, 1, 4, 4, 2);
  const int ai = RT(f, I32, 1, 4, 4, 2);
  const int32_t codes[] = {kTfLiteBuiltinLess,    kTfLiteBuiltinLessEqual,
                           kTfLiteBuiltinGreater, kTfLiteBuiltinGreaterEqual,
                           kTfLiteBuiltinEqual,   kTfLiteBuiltinNotEqual};
  for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); ++i) {
    IO(f, ((int[]){a, b}), ((int[]){yb}));
    ACCEPT(f, codes[i], NULL);
    expect(f, codes[i], 2, NULL, NULL);
    expect(f, codes[i], 3, NULL,
           "Max version supported: 2. Requested version 3.");
    IO(f, ((int[]){a, c}), ((int[]){yb}));
    ACCEPT(f, codes[i], NULL);
    IO(f, ((int[]){ab, bb}), ((int[]){yb}));
    REFUSE(f, codes[i], NULL, kTensors);
    IO(f, ((int[]){ai, ai}), ((int[]){yb}));
    REFUSE(f, codes[i], NULL, kTensors);
    IO(f, ((int[]){a, b, c}), ((int[]){yb}));
    REFUSE(f, codes[i], NULL, "Op can only handle 1 or 2 operand(s).");
  }
  IO(f, ((int[]){ab, bb}), ((int[]){yb}));
  ACCEPT(f, kTfLiteBuiltinLogicalAnd, NULL);
  IO(f, ((int[]){ai, ai}), ((int[]){yb}));
  REFUSE(f, kTfLiteBuiltinLogicalAnd, NULL, kTensors);
  IO(f, ((int[]){ab, bb, bb}), ((int[]){yb}));
  REFUSE(f, kTfLiteBuiltinLogicalAnd, NULL,
         "Op can only handle 1 or 2 operand(s).");
  /* A BOOL output is the comparisons' alone. */
  IO(f, ((int[]){a, b}), ((int[]){yb}));
  REFUSE(f, kTfLiteBuiltinSub, NULL, kTensors);
}

/* SELECT, SELECT_V2: TFLite's CheckSelectV2GpuDelegateCompatibility. */
static void test_select(void** state) {
  fixture* f = *state;
  static const char kSelectError[] =
      "Cond must be float or bool type, if, else tensors must be float and "
      "either be same the shape as output or constant, scalar.";
  const int cond = RT(f, kTfLiteBool, 1, 4, 4, 2);
  const int x = RT(f, F32, 1, 4, 4, 2), y = RT(f, F32, 1, 4, 4, 2);
  const int one = CST(f, F32, 1), two = CST(f, F32, 2);
  const int xi = RT(f, I32, 1, 4, 4, 2), ci = RT(f, I32, 1, 4, 4, 2);
  const int out = RT(f, F32, 1, 4, 4, 2);
  const int32_t codes[] = {kTfLiteBuiltinSelect, kTfLiteBuiltinSelectV2};
  for (size_t i = 0; i < 2; ++i) {
    IO(f, ((int[]){cond, x, y}), ((int[]){out}));
    ACCEPT(f, codes[i], NULL);
    expect(f, codes[i], 2, NULL,
           "Max version supported: 1. Requested version 2.");
    IO(f, ((int[]){cond, x, one}), ((int[]){out}));
    ACCEPT(f, codes[i], NULL);
    IO(f, ((int[]){cond, two, y}), ((int[]){out}));
    REFUSE(f, codes[i], NULL, kSelectError);
    IO(f, ((int[]){cond, xi, y}), ((int[]){out}));
    REFUSE(f, codes[i], NULL, kSelectError);
    IO(f, ((int[]){ci, x, y}), ((int[]){out}));
    REFUSE(f, codes[i], NULL, kSelectError);
    IO(f, ((int[]){cond, x}), ((int[]){out}));
    REFUSE(f, codes[i], NULL, "Expected 3 inputs and 1 output");
  }
}

/* CUMSUM: TFLite's CheckCumsumGpuDelegateCompatibility. */
static void test_cumsum(void** state) {
  fixture* f = *state;
  static const char kCumsumError[] =
      "Input/output must be float type and indices must be constant int32 "
      "type";
  const int x = RT(f, F32, 1, 4, 4, 2), y = RT(f, F32, 1, 4, 4, 2);
  const int axis = CST(f, I32, 1), axis_rt = RT(f, I32, 1);
  const int axis64 = CST(f, kTfLiteInt64, 1);
  const int xi = RT(f, I32, 1, 4, 4, 2), yi = RT(f, I32, 1, 4, 4, 2);
  const TfLiteCumsumParams p = {.exclusive = false, .reverse = true};
  IO(f, ((int[]){x, axis}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinCumsum, &p);
  expect(f, kTfLiteBuiltinCumsum, 2, &p,
         "Max version supported: 1. Requested version 2.");
  IO(f, ((int[]){x, axis_rt}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinCumsum, &p, kCumsumError);
  IO(f, ((int[]){x, axis64}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinCumsum, &p, kCumsumError);
  IO(f, ((int[]){xi, axis}), ((int[]){yi}));
  REFUSE(f, kTfLiteBuiltinCumsum, &p, kCumsumError);
  IO(f, ((int[]){x}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinCumsum, &p, "Expects 2 inputs and 1 output");
}

/* ONE_HOT: TFLite's CheckOneHotGpuDelegateCompatibility. */
static void test_one_hot(void** state) {
  fixture* f = *state;
  static const char kOneHotError[] =
      "Indices must be int32 type, on/off tensors must be constant, scalar, "
      "float type, axis must be -1 or last dim";
  const int idx = RT(f, I32, 1, 1, 5), idx2 = RT(f, I32, 1, 3, 5);
  const int idxf = RT(f, F32, 1, 1, 5), depth = CST(f, I32, 1);
  const int on = CST(f, F32, 1), off = CST(f, F32, 1);
  const int on2 = CST(f, F32, 2), on_rt = RT(f, F32, 1);
  const int y = RT(f, F32, 1, 1, 5, 4);
  const TfLiteOneHotParams last = {.axis = -1}, first = {.axis = 0};
  IO(f, ((int[]){idx, depth, on, off}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinOneHot, &last);
  expect(f, kTfLiteBuiltinOneHot, 2, &last,
         "Max version supported: 1. Requested version 2.");
  REFUSE(f, kTfLiteBuiltinOneHot, &first, kOneHotError);
  IO(f, ((int[]){idxf, depth, on, off}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinOneHot, &last, kOneHotError);
  IO(f, ((int[]){idx2, depth, on, off}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinOneHot, &last, "Unspported non-singleton dim at 1");
  IO(f, ((int[]){idx, depth, on2, off}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinOneHot, &last, kOneHotError);
  IO(f, ((int[]){idx, depth, on_rt, off}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinOneHot, &last, kOneHotError);
  IO(f, ((int[]){idx, depth, on}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinOneHot, &last, "Expects 4 inputs and 1 output");
}

/* PACK, UNPACK: TFLite checks only the tensor filter. */
static void test_pack_unpack(void** state) {
  fixture* f = *state;
  const int a = RT(f, F32, 4, 5), b = RT(f, F32, 4, 5);
  const int p = RT(f, F32, 2, 4, 5), pi = RT(f, I32, 2, 4, 5);
  const int p5 = RT(f, F32, 2, 1, 1, 4, 5);
  const TfLitePackParams pack = {.values_count = 2, .axis = 0};
  const TfLiteUnpackParams unpack = {.num = 2, .axis = 0};
  IO(f, ((int[]){a, b}), ((int[]){p}));
  ACCEPT(f, kTfLiteBuiltinPack, &pack);
  expect(f, kTfLiteBuiltinPack, 5, &pack, NULL);
  IO(f, ((int[]){a, b}), ((int[]){pi}));
  REFUSE(f, kTfLiteBuiltinPack, &pack, kTensors);
  IO(f, ((int[]){p}), ((int[]){a, b}));
  ACCEPT(f, kTfLiteBuiltinUnpack, &unpack);
  IO(f, ((int[]){pi}), ((int[]){a, b}));
  REFUSE(f, kTfLiteBuiltinUnpack, &unpack, kTensors);
  IO(f, ((int[]){p5}), ((int[]){a, b}));
  REFUSE(f, kTfLiteBuiltinUnpack, &unpack, kTensors);
}

/* ADD_N: exactly two inputs (TFLite's rule), runtime or constant. */
static void test_add_n(void** state) {
  fixture* f = *state;
  const int a = RT(f, F32, 1, 4, 4, 2), b = RT(f, F32, 1, 4, 4, 2);
  const int c = CST(f, F32, 1, 4, 4, 2), y = RT(f, F32, 1, 4, 4, 2);
  const int yi = RT(f, I32, 1, 4, 4, 2);
  IO(f, ((int[]){a, b}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinAddN, NULL);
  expect(f, kTfLiteBuiltinAddN, 2, NULL, NULL);
  expect(f, kTfLiteBuiltinAddN, 3, NULL,
         "Max version supported: 2. Requested version 3.");
  IO(f, ((int[]){a, c}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinAddN, NULL);
  IO(f, ((int[]){a, b, c}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinAddN, NULL, "ADD_N only supports 2 inputs.");
  IO(f, ((int[]){a}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinAddN, NULL, "ADD_N only supports 2 inputs.");
  IO(f, ((int[]){a, b}), ((int[]){yi}));
  REFUSE(f, kTfLiteBuiltinAddN, NULL, kTensors);
}

static void test_add(void** state) {
  fixture* f = *state;
  const int a = RT(f, F32, 1, 4, 4, 2), b = RT(f, F32, 4, 4, 2);
  const int bad = RT(f, F32, 4, 2), c = CST(f, F32, 2);
  const int y = RT(f, F32, 1, 4, 4, 2), row = RT(f, F32, 1, 2);
  const TfLiteAddParams none = {.activation = kTfLiteActNone};
  const TfLiteAddParams sign = {.activation = kTfLiteActSignBit};
  IO(f, ((int[]){a, b}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinAdd, &none);
  expect(f, kTfLiteBuiltinAdd, 2, &none, NULL);
  IO(f, ((int[]){a, row}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinAdd, &none);
  IO(f, ((int[]){a, c}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinAdd, &none);
  IO(f, ((int[]){a, b, c}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinAdd, &none, "ADD requires two input tensors.");
  IO(f, ((int[]){a, bad}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinAdd, &none,
         "Doesn't support broadcasting - input0: [1,4,4,2], input1: [4,2]");
  IO(f, ((int[]){a, b}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinAdd, &sign, kSignBit);
  REFUSE(f, kTfLiteBuiltinAdd, NULL, "Unable to retrieve builtin_data.");
}

static void test_mul(void** state) {
  fixture* f = *state;
  const int a = RT(f, F32, 1, 4, 1, 2), b = RT(f, F32, 1, 1, 4, 2);
  const int big = RT(f, F32, 1, 4, 4, 2), c = CST(f, F32, 1, 1, 1, 2);
  const int y = RT(f, F32, 1, 4, 4, 2);
  const TfLiteMulParams relu = {.activation = kTfLiteActRelu};
  const TfLiteMulParams sign = {.activation = kTfLiteActSignBit};
  IO(f, ((int[]){big, a}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinMul, &relu);
  expect(f, kTfLiteBuiltinMul, 3, &relu, NULL);
  IO(f, ((int[]){c, big}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinMul, &relu);
  /* Both ways ([1,4,1,2] * [1,1,4,2]): TFLite's GPU delegate refuses it
   * ("MUL requires one tensor that not less than second in all
   * dimensions."); litegpu's binary kernel broadcasts each operand. */
  IO(f, ((int[]){a, b}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinMul, &relu);
  IO(f, ((int[]){big}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinMul, &relu, "MUL requires two input tensors.");
  /* Between ranks, TFLite's broadcast rule as for ADD. */
  const int rank2 = RT(f, F32, 4, 2);
  IO(f, ((int[]){big, rank2}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinMul, &relu,
         "Doesn't support broadcasting - input0: [1,4,4,2], input1: [4,2]");
  IO(f, ((int[]){big, a}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinMul, &sign, kSignBit);
}

/* ---- Convolutions and matrix products ----------------------------------- */

static void test_conv_2d(void** state) {
  fixture* f = *state;
  const int x = RT(f, F32, 1, 4, 4, 2), w = CST(f, F32, 3, 1, 1, 2);
  const int b = CST(f, F32, 3), y = RT(f, F32, 1, 4, 4, 3);
  const int wr = RT(f, F32, 3, 1, 1, 2), br = RT(f, F32, 3);
  TfLiteConvParams p = {.padding = kTfLitePaddingSame,
                        .stride_width = 1,
                        .stride_height = 1,
                        .activation = kTfLiteActRelu,
                        .dilation_width_factor = 1,
                        .dilation_height_factor = 1};
  IO(f, ((int[]){x, w, b}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinConv2d, &p);
  expect(f, kTfLiteBuiltinConv2d, 6, &p, NULL);
  IO(f, ((int[]){x, wr, -1}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinConv2d, &p);
  IO(f, ((int[]){x, wr, br}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinConv2d, &p,
         "Expected 1 or 2 input tensor(s), but node has 3 runtime inputs.");
  IO(f, ((int[]){x}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinConv2d, &p,
         "Requested index goes beyond array size: 1 vs 1");
  IO(f, ((int[]){x, w, b}), ((int[]){y}));
  p.stride_height = 0;
  REFUSE(f, kTfLiteBuiltinConv2d, &p,
         "Incorrect stride values: stride_height = 0, stride_width = 1");
  p.stride_height = 1;
  p.dilation_width_factor = 0;
  REFUSE(f, kTfLiteBuiltinConv2d, &p,
         "Incorrect dilation values: dilation_height = 1, dilation_width = 0");
  p.dilation_width_factor = 1;
  p.activation = kTfLiteActSignBit;
  REFUSE(f, kTfLiteBuiltinConv2d, &p, kSignBit);
  REFUSE(f, kTfLiteBuiltinConv2d, NULL, "Unable to retrieve builtin_data.");
}

static void test_depthwise_conv_2d(void** state) {
  fixture* f = *state;
  const int x = RT(f, F32, 1, 4, 4, 2), w = CST(f, F32, 1, 3, 3, 2);
  const int b = CST(f, F32, 2), y = RT(f, F32, 1, 4, 4, 2);
  const int w4 = CST(f, F32, 1, 3, 3, 4), y4 = RT(f, F32, 1, 4, 4, 4);
  const int x3 = RT(f, F32, 4, 4, 2);
  TfLiteDepthwiseConvParams p = {.padding = kTfLitePaddingSame,
                                 .stride_width = 1,
                                 .stride_height = 1,
                                 .depth_multiplier = 1,
                                 .dilation_width_factor = 1,
                                 .dilation_height_factor = 1};
  IO(f, ((int[]){x, w, b}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinDepthwiseConv2d, &p);
  IO(f, ((int[]){x, w, -1}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinDepthwiseConv2d, &p);
  IO(f, ((int[]){x, w4, -1}), ((int[]){y4}));
  REFUSE(f, kTfLiteBuiltinDepthwiseConv2d, &p,
         "output.c != input.c * depth_multiplier");
  p.depth_multiplier = 2;
  REFUSE(f, kTfLiteBuiltinDepthwiseConv2d, &p,
         "depth_multiplier != 1 && input.c != 1");
  p.depth_multiplier = 1;
  IO(f, ((int[]){x, w4, -1}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinDepthwiseConv2d, &p, "filter.i != output.c");
  IO(f, ((int[]){x, w, w}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinDepthwiseConv2d, &p, "bias.size != output.c");
  IO(f, ((int[]){x3, w, b}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinDepthwiseConv2d, &p, "input.dims.size != 4");
  IO(f, ((int[]){x, w, b}), ((int[]){y}));
  p.stride_width = -1;
  REFUSE(f, kTfLiteBuiltinDepthwiseConv2d, &p,
         "Incorrect stride values: stride_height = 1, stride_width = -1");
}

static void test_transpose_conv(void** state) {
  fixture* f = *state;
  const int shape = CST(f, I32, 4), shape_rt = RT(f, I32, 4);
  const int w = CST(f, F32, 2, 3, 3, 2), x = RT(f, F32, 1, 4, 4, 2);
  const int b = CST(f, F32, 2), y = RT(f, F32, 1, 8, 8, 2);
  TfLiteTransposeConvParams p = {
      .padding = kTfLitePaddingSame, .stride_width = 2, .stride_height = 2};
  IO(f, ((int[]){shape, w, x, b}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinTransposeConv, &p);
  expect(f, kTfLiteBuiltinTransposeConv, 3, &p, NULL);
  expect(f, kTfLiteBuiltinTransposeConv, 4, &p,
         "Max version supported: 3. Requested version 4.");
  IO(f, ((int[]){shape_rt, w, x, b}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinTransposeConv, &p, kTensors);
  IO(f, ((int[]){shape, w, x, b}), ((int[]){y}));
  p.stride_width = 0;
  REFUSE(f, kTfLiteBuiltinTransposeConv, &p,
         "Incorrect stride values: stride_height = 2, stride_width = 0");
}

static void test_fully_connected(void** state) {
  fixture* f = *state;
  const int x = RT(f, F32, 1, 8), w = CST(f, F32, 4, 8), b = CST(f, F32, 4);
  const int y = RT(f, F32, 1, 4), xc = CST(f, F32, 1, 8);
  const int wr = RT(f, F32, 4, 8), br = RT(f, F32, 4);
  const int x3 = RT(f, F32, 1, 2, 8), y2 = RT(f, F32, 2, 4);
  TfLiteFullyConnectedParams p = {.activation = kTfLiteActNone};
  IO(f, ((int[]){x, w, b}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinFullyConnected, &p);
  expect(f, kTfLiteBuiltinFullyConnected, 9, &p, NULL);
  IO(f, ((int[]){x, wr, -1}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinFullyConnected, &p);
  IO(f, ((int[]){x, wr, br}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinFullyConnected, &p,
         "FullyConnected doesn't support more than 2 runtime inputs.");
  IO(f, ((int[]){xc, wr, b}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinFullyConnected, &p,
         "FullyConnected doesn't support constant input.");
  IO(f, ((int[]){x3, w, b}), ((int[]){y2}));
  ACCEPT(f, kTfLiteBuiltinFullyConnected, &p);
  p.keep_num_dims = true;
  REFUSE(f, kTfLiteBuiltinFullyConnected, &p,
         "Input and output dimensions different and FullyConnected doesn't "
         "support keep_num_dims.");
  p.keep_num_dims = false;
  IO(f, ((int[]){x, w, b}), ((int[]){y}));
  p.weights_format = kTfLiteFullyConnectedWeightsFormatShuffled4x16Int8;
  REFUSE(f, kTfLiteBuiltinFullyConnected, &p,
         "Unsupported FullyConnected weights format: 1");
  p.weights_format = kTfLiteFullyConnectedWeightsFormatDefault;
  p.activation = kTfLiteActSignBit;
  REFUSE(f, kTfLiteBuiltinFullyConnected, &p, kSignBit);
}

static void test_batch_matmul(void** state) {
  fixture* f = *state;
  const int a = RT(f, F32, 1, 2, 3, 4), b = RT(f, F32, 1, 2, 4, 5);
  const int c2 = CST(f, F32, 4, 5), c3 = CST(f, F32, 2, 4, 5);
  const int y = RT(f, F32, 1, 2, 3, 5);
  const TfLiteBatchMatMulParams p = {.adj_x = false};
  IO(f, ((int[]){a, b}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinBatchMatmul, &p);
  expect(f, kTfLiteBuiltinBatchMatmul, 4, &p, NULL);
  IO(f, ((int[]){a, c2}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinBatchMatmul, &p);
  IO(f, ((int[]){a, c3}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinBatchMatmul, &p,
         "Not supported batched mat mul case");
  IO(f, ((int[]){a, b, c2}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinBatchMatmul, &p,
         "Expected 2 inputs and 1 output, got: 3 inputs and 1 outputs");
}

/* ---- Pooling and reductions --------------------------------------------- */

static void test_pooling(void** state) {
  fixture* f = *state;
  const int x = RT(f, F32, 1, 4, 4, 2), y = RT(f, F32, 1, 2, 2, 2);
  const int y2 = RT(f, F32, 1, 2, 2, 2);
  const int32_t codes[] = {kTfLiteBuiltinAveragePool2d,
                           kTfLiteBuiltinMaxPool2d};
  for (int i = 0; i < 2; ++i) {
    TfLitePoolParams p = {.padding = kTfLitePaddingValid,
                          .stride_width = 2,
                          .stride_height = 2,
                          .filter_width = 2,
                          .filter_height = 2,
                          .activation = kTfLiteActRelu6};
    IO(f, ((int[]){x}), ((int[]){y}));
    ACCEPT(f, codes[i], &p);
    expect(f, codes[i], 2, &p, NULL);
    p.filter_height = 0;
    REFUSE(f, codes[i], &p,
           "Incorrect kernel values: kernel_height = 0, kernel_width = 2");
    p.filter_height = 2;
    p.stride_width = 0;
    REFUSE(f, codes[i], &p,
           "Incorrect stride values: stride_height = 2, stride_width = 0");
    p.stride_width = 2;
    p.activation = kTfLiteActSignBit;
    REFUSE(f, codes[i], &p, kSignBit);
    p.activation = kTfLiteActNone;
    IO(f, ((int[]){x}), ((int[]){y, y2}));
    REFUSE(f, codes[i], &p,
           "Expected 1 output tensor(s), but node has 2 output(s).");
    REFUSE(f, codes[i], NULL, "Unable to retrieve builtin_data.");
  }
}

static void test_mean(void** state) {
  fixture* f = *state;
  const int x = RT(f, F32, 1, 4, 4, 2), axes = CST(f, I32, 2);
  const int axes_rt = RT(f, I32, 2), axes64 = CST(f, kTfLiteInt64, 2);
  const int y = RT(f, F32, 1, 1, 1, 2);
  const TfLiteReducerParams p = {.keep_dims = true};
  IO(f, ((int[]){x, axes}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinMean, &p);
  expect(f, kTfLiteBuiltinMean, 3, &p, NULL);
  IO(f, ((int[]){x, axes_rt}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinMean, &p,
         "Expected 1 const input tensor(s), but node has 0 const input(s).");
  IO(f, ((int[]){x, axes64}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinMean, &p,
         "MEAN supports int32 tensor for axes. But node has INT64");
}

static void test_sum_and_reduce_max(void** state) {
  fixture* f = *state;
  const int x = RT(f, F32, 1, 4, 4, 2), axes = CST(f, I32, 1);
  const int axes_rt = RT(f, I32, 1), axes64 = CST(f, kTfLiteInt64, 1);
  const int y = RT(f, F32, 1, 4, 4);
  const TfLiteReducerParams p = {.keep_dims = false};
  IO(f, ((int[]){x, axes}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinSum, &p);
  ACCEPT(f, kTfLiteBuiltinReduceMax, &p);
  ACCEPT(f, kTfLiteBuiltinReduceMin, &p);
  ACCEPT(f, kTfLiteBuiltinReduceProd, &p);
  IO(f, ((int[]){x, axes_rt}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinReduceProd, &p,
         "Expected 1 runtime input tensor(s), but node has 2 runtime "
         "input(s).");
  REFUSE(f, kTfLiteBuiltinSum, &p,
         "Expected 1 runtime input tensor(s), but node has 2 runtime "
         "input(s).");
  IO(f, ((int[]){x}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinSum, &p, "SUM is only supported with constant axes.");
  IO(f, ((int[]){x, axes64}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinReduceMax, &p,
         "REDUCE_MAX supports int32 tensor for axes. But node has INT64");
  REFUSE(f, kTfLiteBuiltinReduceMin, &p,
         "REDUCE_MIN supports int32 tensor for axes. But node has INT64");
  REFUSE(f, kTfLiteBuiltinReduceProd, &p,
         "REDUCE_PROD supports int32 tensor for axes. But node has INT64");
}

/* ---- Shape and data movement -------------------------------------------- */

/* RESHAPE, SQUEEZE, TRANSPOSE, TILE, PRELU, HARD_SWISH: one runtime input;
 * a second input (shape, perm, multiples, alpha) must be constant. */
static void test_one_runtime_input_ops(void** state) {
  fixture* f = *state;
  const int x = RT(f, F32, 1, 4, 4, 2), y = RT(f, F32, 1, 4, 4, 2);
  const int shape = CST(f, I32, 4), shape_rt = RT(f, I32, 4);
  const int alpha = CST(f, F32, 2), xi = RT(f, kTfLiteInt16, 1, 4, 4, 2);
  const TfLiteReshapeParams reshape = {.shape = {1, 4, 4, 2},
                                       .num_dimensions = 4};
  const TfLiteSqueezeParams squeeze = {.num_squeeze_dims = 0};
  const struct {
    int32_t code;
    const void* params;
    int second;
  } ops[] = {{kTfLiteBuiltinReshape, &reshape, shape},
             {kTfLiteBuiltinSqueeze, &squeeze, -1},
             {kTfLiteBuiltinTranspose, NULL, shape},
             {kTfLiteBuiltinTile, NULL, shape},
             {kTfLiteBuiltinPrelu, NULL, alpha},
             {kTfLiteBuiltinHardSwish, NULL, -1}};
  for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); ++i) {
    if (ops[i].second >= 0) {
      IO(f, ((int[]){x, ops[i].second}), ((int[]){y}));
    } else {
      IO(f, ((int[]){x}), ((int[]){y}));
    }
    ACCEPT(f, ops[i].code, ops[i].params);
    IO(f, ((int[]){x, shape_rt}), ((int[]){y}));
    REFUSE(f, ops[i].code, ops[i].params,
           "Expected 1 runtime input tensor(s), but node has 2 runtime "
           "input(s).");
    IO(f, ((int[]){x}), ((int[]){y, y}));
    REFUSE(f, ops[i].code, ops[i].params,
           "Expected 1 output tensor(s), but node has 2 output(s).");
    IO(f, ((int[]){xi}), ((int[]){y}));
    REFUSE(f, ops[i].code, ops[i].params, kTensors);
  }
}

static void test_concatenation(void** state) {
  fixture* f = *state;
  const int a = RT(f, F32, 1, 4, 4, 2), b = RT(f, F32, 1, 4, 4, 3);
  const int c = CST(f, F32, 1, 4, 4, 1), y = RT(f, F32, 1, 4, 4, 6);
  const int a5 = RT(f, F32, 1, 1, 4, 4, 2);
  TfLiteConcatenationParams p = {.axis = 3, .activation = kTfLiteActNone};
  IO(f, ((int[]){a, b, c}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinConcatenation, &p);
  expect(f, kTfLiteBuiltinConcatenation, 2, &p, NULL);
  IO(f, ((int[]){a5, b}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinConcatenation, &p, kTensors);
  IO(f, ((int[]){a, b, c}), ((int[]){y}));
  p.activation = kTfLiteActSignBit;
  REFUSE(f, kTfLiteBuiltinConcatenation, &p, kSignBit);
}

static void test_pads(void** state) {
  fixture* f = *state;
  const int x = RT(f, F32, 1, 4, 4, 2), y = RT(f, F32, 1, 6, 6, 2);
  const int p42 = CST(f, I32, 4, 2), p32 = CST(f, I32, 3, 2);
  const int p22 = CST(f, I32, 2, 2), p8 = CST(f, I32, 8);
  const int prt = RT(f, I32, 4, 2), value = CST(f, F32, 1);
  const TfLiteMirrorPaddingParams reflect = {kTfLiteMirrorPaddingReflect};
  const TfLiteMirrorPaddingParams symmetric = {kTfLiteMirrorPaddingSymmetric};
  const int32_t codes[] = {kTfLiteBuiltinPad, kTfLiteBuiltinPadv2,
                           kTfLiteBuiltinMirrorPad};
  for (int i = 0; i < 3; ++i) {
    const void* p = codes[i] == kTfLiteBuiltinMirrorPad ? &reflect : NULL;
    IO(f, ((int[]){x, p42}), ((int[]){y}));
    ACCEPT(f, codes[i], p);
    expect(f, codes[i], 2, p, NULL);
    IO(f, ((int[]){x, p32}), ((int[]){y}));
    ACCEPT(f, codes[i], p);
    IO(f, ((int[]){x, p22}), ((int[]){y}));
    REFUSE(f, codes[i], p,
           "Invalid paddings tensor shape: expected 4x2 or 3x2, got 2x2");
    IO(f, ((int[]){x, p8}), ((int[]){y}));
    REFUSE(f, codes[i], p,
           "Invalid paddings tensor dimension: expected 2 dim, got 1 dim");
    IO(f, ((int[]){x, prt}), ((int[]){y}));
    REFUSE(f, codes[i], p,
           "Expected 1 runtime input tensor(s), but node has 2 runtime "
           "input(s).");
  }
  IO(f, ((int[]){x, p42, value}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinPadv2, NULL);
  IO(f, ((int[]){x}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinPad, NULL,
         "Requested index goes beyond array size: 1 vs 1");
  IO(f, ((int[]){x, p42}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinMirrorPad, &symmetric,
         "Only Reflective padding is supported for Mirror Pad operation. But "
         "node has 2");
}

static void test_slice(void** state) {
  fixture* f = *state;
  const int x = RT(f, F32, 1, 4, 4, 2), x2 = RT(f, F32, 4, 2);
  const int begin = CST(f, I32, 4), sz = CST(f, I32, 4);
  const int begin_rt = RT(f, I32, 4), y = RT(f, F32, 1, 2, 2, 2);
  IO(f, ((int[]){x, begin, sz}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinSlice, NULL);
  expect(f, kTfLiteBuiltinSlice, 2, NULL, NULL);
  IO(f, ((int[]){x2, begin, sz}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinSlice, NULL,
         "SLICE supports for 3 or 4 dimensional tensors only, but node has 2 "
         "dimensional tensors.");
  IO(f, ((int[]){x, begin}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinSlice, NULL,
         "SLICE requires 3 inputs, but node has 2 inputs.");
  IO(f, ((int[]){x, begin_rt, sz}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinSlice, NULL,
         "Expected 1 runtime input tensor(s), but node has 2 runtime "
         "input(s).");
}

static void test_strided_slice(void** state) {
  fixture* f = *state;
  const int x = RT(f, F32, 1, 4, 4, 2), x2 = RT(f, F32, 4, 2);
  const int begin = CST(f, I32, 4), end = CST(f, I32, 4);
  const int strides = CST(f, I32, 4), y = RT(f, F32, 1, 2, 2, 2);
  TfLiteStridedSliceParams p = {.begin_mask = 1, .end_mask = 8};
  IO(f, ((int[]){x, begin, end, strides}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinStridedSlice, &p);
  expect(f, kTfLiteBuiltinStridedSlice, 4, &p, NULL);
  p.shrink_axis_mask = 1;
  REFUSE(f, kTfLiteBuiltinStridedSlice, &p,
         "Slice does not support shrink_axis_mask parameter. ");
  p.shrink_axis_mask = 0;
  p.ellipsis_mask = 2;
  REFUSE(f, kTfLiteBuiltinStridedSlice, &p,
         "Slice does not support ellipsis_mask.");
  p.ellipsis_mask = 0;
  p.new_axis_mask = 4;
  REFUSE(f, kTfLiteBuiltinStridedSlice, &p,
         "Slice does not support new_axis_mask.");
  p.new_axis_mask = 0;
  IO(f, ((int[]){x2, begin, end, strides}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinStridedSlice, &p,
         "STRIDED_SLICE supports for 3 or 4 dimensional tensors only.");
  IO(f, ((int[]){x, begin, end}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinStridedSlice, &p, "STRIDED_SLICE requires 4 inputs.");
}

static void test_split_and_split_v(void** state) {
  fixture* f = *state;
  const int axis = CST(f, I32, 1), axis_rt = RT(f, I32, 1);
  const int x = RT(f, F32, 1, 4, 4, 2), sizes = CST(f, I32, 2);
  const int y0 = RT(f, F32, 1, 4, 4, 1), y1 = RT(f, F32, 1, 4, 4, 1);
  const int xi = RT(f, kTfLiteInt16, 1, 4, 4, 2);
  const TfLiteSplitParams split = {.num_splits = 2};
  const TfLiteSplitVParams split_v = {.num_splits = 2};
  IO(f, ((int[]){axis, x}), ((int[]){y0, y1}));
  ACCEPT(f, kTfLiteBuiltinSplit, &split);
  expect(f, kTfLiteBuiltinSplit, 4, &split, NULL);
  IO(f, ((int[]){axis_rt, x}), ((int[]){y0, y1}));
  REFUSE(f, kTfLiteBuiltinSplit, &split,
         "Expected 1 runtime input tensor(s), but node has 2 runtime "
         "input(s).");
  IO(f, ((int[]){axis, xi}), ((int[]){y0, y1}));
  REFUSE(f, kTfLiteBuiltinSplit, &split, kTensors);
  IO(f, ((int[]){x, sizes, axis}), ((int[]){y0, y1}));
  ACCEPT(f, kTfLiteBuiltinSplitV, &split_v);
  IO(f, ((int[]){x, sizes, axis_rt}), ((int[]){y0, y1}));
  REFUSE(f, kTfLiteBuiltinSplitV, &split_v,
         "Expected 1 runtime input tensor(s), but node has 2 runtime "
         "input(s).");
}

static void test_gather(void** state) {
  fixture* f = *state;
  const int params = RT(f, F32, 4, 3), idx = CST(f, I32, 2);
  const int idx_rt = RT(f, I32, 2), idx2 = CST(f, I32, 2, 1);
  const int idx64 = CST(f, kTfLiteInt64, 2), params_i = RT(f, I32, 4, 3);
  const int cparams = CST(f, F32, 4, 3), y = RT(f, F32, 2, 3);
  const TfLiteGatherParams p = {.axis = 0, .batch_dims = 0};
  IO(f, ((int[]){params, idx}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinGather, &p);
  IO(f, ((int[]){params, idx_rt}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinGather, &p);
  IO(f, ((int[]){params, idx2}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinGather, &p, "Only support 1D indices");
  IO(f, ((int[]){params, idx64}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinGather, &p, "Only accept INT32 indices");
  IO(f, ((int[]){params_i, idx}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinGather, &p, "Does not accept INT32 input.");
  IO(f, ((int[]){cparams, idx}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinGather, &p, "Op can only handle 1 or 2 operand(s).");
}

static void test_depth_space(void** state) {
  fixture* f = *state;
  const int x = RT(f, F32, 1, 4, 4, 8), y = RT(f, F32, 1, 8, 8, 2);
  TfLiteDepthToSpaceParams d2s = {.block_size = 2};
  TfLiteSpaceToDepthParams s2d = {.block_size = 2};
  IO(f, ((int[]){x}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinDepthToSpace, &d2s);
  ACCEPT(f, kTfLiteBuiltinSpaceToDepth, &s2d);
  d2s.block_size = 1;
  REFUSE(f, kTfLiteBuiltinDepthToSpace, &d2s,
         "DEPTH_TO_SPACE block_size = 1 is a no-op.");
  s2d.block_size = 1;
  REFUSE(f, kTfLiteBuiltinSpaceToDepth, &s2d,
         "SPACE_TO_DEPTH block_size = 1 is a no-op.");
  d2s.block_size = 0;
  REFUSE(f, kTfLiteBuiltinDepthToSpace, &d2s,
         "DEPTH_TO_SPACE block_size must be > 1.");
  s2d.block_size = -3;
  REFUSE(f, kTfLiteBuiltinSpaceToDepth, &s2d,
         "SPACE_TO_DEPTH block_size must be > 1.");
}

static void test_resize(void** state) {
  fixture* f = *state;
  const int x = RT(f, F32, 1, 4, 4, 2), size = CST(f, I32, 2);
  const int y = RT(f, F32, 1, 8, 8, 2), size_rt = RT(f, I32, 2);
  TfLiteResizeBilinearParams bl = {.align_corners = true};
  TfLiteResizeNearestNeighborParams nn = {.half_pixel_centers = true};
  IO(f, ((int[]){x, size}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinResizeBilinear, &bl);
  ACCEPT(f, kTfLiteBuiltinResizeNearestNeighbor, &nn);
  expect(f, kTfLiteBuiltinResizeBilinear, 3, &bl, NULL);
  bl.half_pixel_centers = true;
  REFUSE(f, kTfLiteBuiltinResizeBilinear, &bl,
         "If half_pixel_centers is True, align_corners must be False.");
  nn.align_corners = true;
  REFUSE(f, kTfLiteBuiltinResizeNearestNeighbor, &nn,
         "If half_pixel_centers is True, align_corners must be False.");
  nn.align_corners = false;
  IO(f, ((int[]){x, size_rt}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinResizeNearestNeighbor, &nn,
         "Expected 1 runtime input tensor(s), but node has 2 runtime "
         "input(s).");
}

static void test_softmax(void** state) {
  fixture* f = *state;
  const int x = RT(f, F32, 1, 10), y = RT(f, F32, 1, 10);
  const int xh = RT(f, kTfLiteFloat16, 1, 10), xi = RT(f, kTfLiteInt16, 1, 10);
  const int x8 = RT(f, kTfLiteInt8, 1, 10), u8 = RT(f, kTfLiteUInt8, 1, 10);
  TfLiteSoftmaxParams p = {.beta = 1.0f};
  IO(f, ((int[]){x}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinSoftmax, &p);
  IO(f, ((int[]){xh}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinSoftmax, &p);
  /* TFLite's filter with allow_quant_ops: INT8 and UINT8, not INT16 (the
   * delegate's node check refuses them without ENABLE_QUANT). */
  IO(f, ((int[]){x8}), ((int[]){u8}));
  ACCEPT(f, kTfLiteBuiltinSoftmax, &p);
  IO(f, ((int[]){xi}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinSoftmax, &p, kTensors);
  IO(f, ((int[]){x}), ((int[]){y}));
  p.beta = 0.5f;
  REFUSE(f, kTfLiteBuiltinSoftmax, &p, "Softmax.beta != 1 is not supported.");
  REFUSE(f, kTfLiteBuiltinSoftmax, NULL, "Unable to retrieve builtin_data.");
}

/* ---- Types --------------------------------------------------------------- */

static void test_dequantize(void** state) {
  fixture* f = *state;
  const int w16 = CST(f, kTfLiteFloat16, 4, 8), y = RT(f, F32, 4, 8);
  const int rt16 = RT(f, kTfLiteFloat16, 4, 8), w8 = CST(f, kTfLiteInt8, 4, 8);
  const int w_i16 = CST(f, kTfLiteInt16, 4, 8);
  IO(f, ((int[]){w16}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinDequantize, NULL);
  expect(f, kTfLiteBuiltinDequantize, 3, NULL, NULL);
  /* TFLite's rule refuses only INT16 and the wrong arity (the lowering
   * then takes constants and quantized INT8/UINT8 tensors). */
  IO(f, ((int[]){rt16}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinDequantize, NULL);
  IO(f, ((int[]){w8}), ((int[]){y}));
  ACCEPT(f, kTfLiteBuiltinDequantize, NULL);
  IO(f, ((int[]){w_i16}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinDequantize, NULL, "Unsupported dequantization type.");
  IO(f, ((int[]){w16, w16}), ((int[]){y}));
  REFUSE(f, kTfLiteBuiltinDequantize, NULL,
         "Expected 1 input & output each from Dequantize, got: 2, 1");
}

/* QUANTIZE: one runtime input and one output (TFLite's parser with
 * allow_quant_ops), INT8/UINT8 out; INT16 out is refused by the filter. */
static void test_quantize(void** state) {
  fixture* f = *state;
  const int x = RT(f, F32, 4, 8), q8 = RT(f, kTfLiteInt8, 4, 8);
  const int u8 = RT(f, kTfLiteUInt8, 4, 8), q16 = RT(f, kTfLiteInt16, 4, 8);
  const int c = CST(f, F32, 4, 8);
  IO(f, ((int[]){x}), ((int[]){q8}));
  ACCEPT(f, kTfLiteBuiltinQuantize, NULL);
  expect(f, kTfLiteBuiltinQuantize, 2, NULL, NULL);
  IO(f, ((int[]){u8}), ((int[]){q8}));
  ACCEPT(f, kTfLiteBuiltinQuantize, NULL);
  IO(f, ((int[]){x}), ((int[]){q16}));
  REFUSE(f, kTfLiteBuiltinQuantize, NULL, kTensors);
  IO(f, ((int[]){c}), ((int[]){q8}));
  REFUSE(f, kTfLiteBuiltinQuantize, NULL,
         "Expected 1 runtime input tensor(s), but node has 0 runtime "
         "input(s).");
}

static void test_cast(void** state) {
  fixture* f = *state;
  const int xf = RT(f, F32, 1, 4), xi = RT(f, I32, 1, 4);
  const int xb = RT(f, kTfLiteBool, 1, 4), x64 = RT(f, kTfLiteInt64, 1, 4);
  const int yf = RT(f, F32, 1, 4), yi = RT(f, I32, 1, 4);
  const int yb = RT(f, kTfLiteBool, 1, 4);
  const TfLiteCastParams p = {kTfLiteNoType, kTfLiteNoType};
  IO(f, ((int[]){xf}), ((int[]){yi}));
  ACCEPT(f, kTfLiteBuiltinCast, &p);
  IO(f, ((int[]){xi}), ((int[]){yf}));
  ACCEPT(f, kTfLiteBuiltinCast, &p);
  IO(f, ((int[]){xf}), ((int[]){yb}));
  ACCEPT(f, kTfLiteBuiltinCast, &p);
  /* A bool input no node produces (no execution plan here). */
  IO(f, ((int[]){xb}), ((int[]){yf}));
  REFUSE(f, kTfLiteBuiltinCast, &p, "Not supported cast case");
  IO(f, ((int[]){x64}), ((int[]){yf}));
  REFUSE(f, kTfLiteBuiltinCast, &p,
         "Not supported Cast case. Input type: INT64 and output type: "
         "FLOAT32");
  IO(f, ((int[]){xi}), ((int[]){yb}));
  REFUSE(f, kTfLiteBuiltinCast, &p,
         "Not supported Cast case. Input type: INT32 and output type: BOOL");
}

/* An execution plan for the CAST producer rule: the node under test (plan
 * entry 0, the fixture's node) and up to two others. */
typedef struct plan_fixture {
  TfLiteIntArray* plan;
  TfLiteNode nodes[3]; /* [0] unused: the fixture's node */
  TfLiteRegistration regs[3];
  fixture* f;
} plan_fixture;

static TfLiteStatus plan_get(TfLiteContext* context, TfLiteIntArray** plan) {
  *plan = ((plan_fixture*)context->impl_)->plan;
  return kTfLiteOk;
}

static TfLiteStatus plan_node(TfLiteContext* context, int index,
                              TfLiteNode** node, TfLiteRegistration** reg) {
  plan_fixture* pf = context->impl_;
  *node = index == 0 ? &pf->f->node : &pf->nodes[index];
  *reg = index == 0 ? &pf->f->registration : &pf->regs[index];
  return kTfLiteOk;
}

/* Plan entries 1 and 2: `code1` writes `tensor` (unless -1), and node 2
 * (code LOGISTIC) reads it when `second_reader`. */
static void plan_set(plan_fixture* pf, fixture* f, int32_t code1, int tensor,
                     bool second_reader) {
  pf->f = f;
  pf->plan = int_array((int[]){1, 0, 2}, second_reader ? 3 : 2);
  pf->nodes[1].inputs = int_array((int[]){0}, 0);
  pf->nodes[1].outputs = int_array((int[]){tensor}, 1);
  pf->regs[1].builtin_code = code1;
  pf->nodes[2].inputs = int_array((int[]){tensor}, 1);
  pf->nodes[2].outputs = int_array((int[]){0}, 0);
  pf->regs[2].builtin_code = kTfLiteBuiltinLogistic;
  f->context.impl_ = pf;
  f->context.GetExecutionPlan = plan_get;
  f->context.GetNodeAndRegistration = plan_node;
}

static void plan_clear(plan_fixture* pf, fixture* f) {
  TfLiteIntArrayFree(pf->plan);
  for (int i = 1; i < 3; ++i) {
    TfLiteIntArrayFree(pf->nodes[i].inputs);
    TfLiteIntArrayFree(pf->nodes[i].outputs);
  }
  memset(pf, 0, sizeof(*pf));
  f->context.impl_ = NULL;
  f->context.GetExecutionPlan = NULL;
  f->context.GetNodeAndRegistration = NULL;
}

/* TFLite's CastOperationParser: bool -> float only after a comparison whose
 * bool output this CAST alone reads. */
static void test_cast_bool_from_comparison(void** state) {
  fixture* f = *state;
  const int xb = RT(f, kTfLiteBool, 1, 4), yf = RT(f, F32, 1, 4);
  const int yh = RT(f, kTfLiteFloat16, 1, 4);
  const TfLiteCastParams p = {kTfLiteNoType, kTfLiteNoType};
  plan_fixture pf;
  memset(&pf, 0, sizeof(pf));
  IO(f, ((int[]){xb}), ((int[]){yf}));
  plan_set(&pf, f, kTfLiteBuiltinLess, xb, false);
  ACCEPT(f, kTfLiteBuiltinCast, &p);
  IO(f, ((int[]){xb}), ((int[]){yh}));
  ACCEPT(f, kTfLiteBuiltinCast, &p);
  IO(f, ((int[]){xb}), ((int[]){yf}));
  plan_clear(&pf, f);
  /* Another reader of the bool tensor. */
  plan_set(&pf, f, kTfLiteBuiltinEqual, xb, true);
  REFUSE(f, kTfLiteBuiltinCast, &p, "Not supported cast case");
  plan_clear(&pf, f);
  /* A producer that is not a comparison (LOGICAL_AND is not one of
   * TFLite's logical codes). */
  plan_set(&pf, f, kTfLiteBuiltinLogicalAnd, xb, false);
  REFUSE(f, kTfLiteBuiltinCast, &p, "Not supported cast case");
  plan_clear(&pf, f);
}

/* An LSTM of 20 (or 24) inputs: input [batch,2], every weight, bias and
 * state present (a constant stands for all weights: only counts, types and
 * the cell state's shape are checked), one output. */
static void lstm_io(fixture* f, int num_inputs, int batch, int outputs) {
  int ins[24], outs[4];
  const int w = CST(f, F32, 2, 2);
  ins[0] = RT(f, F32, batch, 2);
  for (int i = 1; i < num_inputs; ++i) ins[i] = w;
  ins[18] = RT(f, F32, batch, 2);
  ins[19] = RT(f, F32, batch, 2);
  for (int i = 0; i < outputs; ++i) outs[i] = RT(f, F32, batch, 2);
  io(f, ins, num_inputs, outs, outputs);
}

static void test_lstm(void** state) {
  fixture* f = *state;
  TfLiteLSTMParams p = {.activation = kTfLiteActTanh,
                        .kernel_type = kTfLiteLSTMFullKernel};
  lstm_io(f, 20, 1, 1);
  ACCEPT(f, kTfLiteBuiltinLstm, &p);
  p.activation = kTfLiteActSigmoid;
  p.cell_clip = 3.0f; /* the full kernel takes clips */
  p.proj_clip = 1.0f;
  ACCEPT(f, kTfLiteBuiltinLstm, &p);
  REFUSE(f, kTfLiteBuiltinLstm, NULL, "Unable to retrieve builtin_data.");
  p.activation = kTfLiteActRelu;
  REFUSE(f, kTfLiteBuiltinLstm, &p,
         "Only sigmoid or tanh activation is supported, but node has 1");
  p.activation = kTfLiteActTanh;
  expect(f, kTfLiteBuiltinLstm, 5, &p,
         "Max version supported: 4. Requested version 5.");
  fixture_reset(f);
  lstm_io(f, 24, 1, 1);
  ACCEPT(f, kTfLiteBuiltinLstm, &p);
  fixture_reset(f);
  lstm_io(f, 21, 1, 1);
  REFUSE(f, kTfLiteBuiltinLstm, &p,
         "Expected 20 or 24 input tensors, but node has 21 input(s).");
  fixture_reset(f);
  lstm_io(f, 20, 1, 2);
  REFUSE(f, kTfLiteBuiltinLstm, &p,
         "Expected 1 output tensor, but node has 2 output(s).");
  fixture_reset(f);
  lstm_io(f, 20, 2, 1);
  REFUSE(f, kTfLiteBuiltinLstm, &p,
         "Batched execution is not supported for LSTM");
  fixture_reset(f);
  /* BASIC: input, prev_activ, weights, biases, prev_state -> 4 outputs. */
  TfLiteLSTMParams basic = {.activation = kTfLiteActTanh,
                            .kernel_type = kTfLiteLSTMBasicKernel};
  const int x = RT(f, F32, 1, 2), h = RT(f, F32, 1, 3), c = RT(f, F32, 1, 3);
  const int w = CST(f, F32, 12, 5), b = CST(f, F32, 12);
  const int o[4] = {RT(f, F32, 1, 3), RT(f, F32, 1, 3), RT(f, F32, 1, 5),
                    RT(f, F32, 1, 12)};
  IO(f, ((int[]){x, h, w, b, c}), o);
  ACCEPT(f, kTfLiteBuiltinLstm, &basic);
  basic.activation = kTfLiteActSigmoid;
  REFUSE(f, kTfLiteBuiltinLstm, &basic,
         "Only TANH activation is supported. but node has 6");
  basic.activation = kTfLiteActTanh;
  basic.cell_clip = 1.0f;
  REFUSE(f, kTfLiteBuiltinLstm, &basic, "cell_clip is not supported.");
  basic.cell_clip = 0.0f;
  basic.proj_clip = 1.0f;
  REFUSE(f, kTfLiteBuiltinLstm, &basic, "proj_clip is not supported.");
  basic.proj_clip = 0.0f;
  IO(f, ((int[]){x, h, w, b, c}), ((int[]){o[0], o[1], o[2]}));
  REFUSE(f, kTfLiteBuiltinLstm, &basic,
         "Expected 4 output tensor(s), but node has 3 output(s).");
}

/* ---- The kit through the interpreter ------------------------------------ */

typedef struct capture {
  char text[16384];
  size_t length;
} capture;

static void capture_report(void* user_data, const char* format, va_list args) {
  capture* c = user_data;
  if (c->length >= sizeof(c->text) - 2) return;
  int n =
      vsnprintf(c->text + c->length, sizeof(c->text) - c->length, format, args);
  if (n > 0) c->length += (size_t)n;
  if (c->length > sizeof(c->text) - 2) c->length = sizeof(c->text) - 2;
  c->text[c->length++] = '\n';
  c->text[c->length] = '\0';
}

/* A delegate that decides with the GPU table; its partition kernel does
 * nothing (these tests never invoke). */
typedef struct table_delegate {
  TfLiteDelegate base; /* first */
  lg_delegate_kit kit;
} table_delegate;

static TfLiteStatus table_prepare(TfLiteContext* context,
                                  TfLiteDelegate* delegate) {
  table_delegate* d = (table_delegate*)delegate;
  return lg_delegate_kit_prepare(&d->kit, context, delegate);
}

static TfLiteStatus kernel_noop(TfLiteContext* context, TfLiteNode* node) {
  (void)context;
  (void)node;
  return kTfLiteOk;
}

static void table_delegate_init(table_delegate* d) {
  memset(d, 0, sizeof(*d));
  d->base = TfLiteDelegateCreate();
  d->base.Prepare = table_prepare;
  d->kit.name = "LiteGpuTableTest";
  d->kit.ops = lg_gpu_op_table(&d->kit.num_ops);
  d->kit.kernel.prepare = kernel_noop;
  d->kit.kernel.invoke = kernel_noop;
  d->kit.kernel.version = 1;
}

static const lg_kit_decision* decision(const table_delegate* d, int node) {
  for (int i = 0; i < d->kit.num_decisions; ++i) {
    if (d->kit.decisions[i].node_index == node) return &d->kit.decisions[i];
  }
  fail_msg("no decision for node %d", node);
  return NULL;
}

typedef struct built_model {
  void* data;
  size_t size;
  TfLiteModel* model;
} built_model;

static void finish_model(lg_model_writer* w, built_model* m) {
  assert_int_equal(lg_model_writer_finish(w, &m->data, &m->size), kTfLiteOk);
  lg_model_writer_destroy(w);
  m->model = TfLiteModelCreate(m->data, m->size);
  assert_non_null(m->model);
}

static int32_t writer_tensor(lg_model_writer* w, const char* name,
                             TfLiteType type, const int32_t* shape, int rank) {
  lg_writer_tensor t = {
      .name = name, .type = type, .shape = shape, .num_dims = rank};
  return lg_model_writer_add_tensor(w, &t);
}

/* x[1,4,4,1] -ADD c-> t1 -TRANSPOSE_CONV v4-> t2 -ADD c-> y. */
static void build_tconv_v4(built_model* m) {
  static const float c[1] = {0.5f}, weights[1] = {2.0f};
  static const int32_t out_shape[4] = {1, 4, 4, 1};
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t s4[4] = {1, 4, 4, 1}, s1[1] = {1}, sw[4] = {1, 1, 1, 1};
  const int32_t so[1] = {4};
  const int32_t cst =
      lg_model_writer_add_const_tensor(w, "c", kTfLiteFloat32, s1, 1, c, 4);
  const int32_t wt = lg_model_writer_add_const_tensor(
      w, "w", kTfLiteFloat32, sw, 4, weights, sizeof(weights));
  const int32_t os = lg_model_writer_add_const_tensor(
      w, "os", kTfLiteInt32, so, 1, out_shape, sizeof(out_shape));
  const int32_t x = writer_tensor(w, "x", kTfLiteFloat32, s4, 4);
  const int32_t t1 = writer_tensor(w, "t1", kTfLiteFloat32, s4, 4);
  const int32_t t2 = writer_tensor(w, "t2", kTfLiteFloat32, s4, 4);
  const int32_t y = writer_tensor(w, "y", kTfLiteFloat32, s4, 4);
  const TfLiteTransposeConvParams p = {.padding = kTfLitePaddingSame,
                                       .stride_width = 1,
                                       .stride_height = 1,
                                       .activation = kTfLiteActRelu};
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, (int32_t[]){x, cst}, 2,
                               &t1, 1, NULL);
  lg_model_writer_add_operator(w, kTfLiteBuiltinTransposeConv, 4,
                               (int32_t[]){os, wt, t1}, 3, &t2, 1, &p);
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, (int32_t[]){t2, cst}, 2,
                               &y, 1, NULL);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  finish_model(w, m);
}

/* x int32[1,4] -ADD c-> y: the op is supported, its tensors are not. */
static void build_int_add(built_model* m) {
  static const int32_t c[4] = {1, 2, 3, 4};
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t s[2] = {1, 4};
  const int32_t cst =
      lg_model_writer_add_const_tensor(w, "c", kTfLiteInt32, s, 2, c, 16);
  const int32_t x = writer_tensor(w, "x", kTfLiteInt32, s, 2);
  const int32_t y = writer_tensor(w, "y", kTfLiteInt32, s, 2);
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, (int32_t[]){x, cst}, 2,
                               &y, 1, NULL);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  finish_model(w, m);
}

static TfLiteInterpreter* create(TfLiteModel* model, table_delegate* d,
                                 capture* c) {
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  TfLiteInterpreterOptionsSetErrorReporter(o, capture_report, c);
  TfLiteInterpreterOptionsAddDelegate(o, &d->base);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(model, o);
  TfLiteInterpreterOptionsDelete(o);
  return ip;
}

static void test_kit_refuses_transpose_conv_v4(void** state) {
  (void)state;
  built_model m;
  build_tconv_v4(&m);
  table_delegate d;
  table_delegate_init(&d);
  capture c = {{0}, 0};
  TfLiteInterpreter* ip = create(m.model, &d, &c);
  if (ip == NULL) fail_msg("creation failed:\n%s", c.text);
  assert_int_equal(d.kit.num_decisions, 3);
  assert_true(decision(&d, 0)->claimed);
  assert_true(decision(&d, 2)->claimed);
  const lg_kit_decision* tconv = decision(&d, 1);
  assert_false(tconv->claimed);
  assert_string_equal(tconv->op_name, "TRANSPOSE_CONV");
  assert_int_equal(tconv->version, 4);
  assert_string_equal(tconv->reason,
                      "Max version supported: 3. Requested version 4.");
  if (strstr(c.text,
             "Following operations are not supported by LiteGpuTableTest:\n"
             "TRANSPOSE_CONV: Max version supported: 3. Requested version "
             "4.\n2 operations will run on the delegate, and the remaining 1 "
             "operations will run on the CPU.") == NULL) {
    fail_msg("log:\n%s", c.text);
  }
  assert_int_equal(d.kit.num_partitions, 2);
  TfLiteInterpreterDelete(ip);
  lg_delegate_kit_release(&d.kit);
  TfLiteModelDelete(m.model);
  free(m.data);
}

static void test_kit_tensor_filter_keeps_all_on_cpu(void** state) {
  (void)state;
  built_model m;
  build_int_add(&m);
  table_delegate d;
  table_delegate_init(&d);
  capture c = {{0}, 0};
  TfLiteInterpreter* ip = create(m.model, &d, &c);
  if (ip == NULL) fail_msg("creation failed:\n%s", c.text);
  assert_int_equal(d.kit.num_decisions, 1);
  assert_false(decision(&d, 0)->claimed);
  assert_string_equal(decision(&d, 0)->reason, LG_GPU_TENSOR_REASON);
  if (strstr(c.text,
             "Following operations are not supported by LiteGpuTableTest:\n"
             "ADD: OP is supported, but tensor type/shape isn't compatible.\n"
             "No operations will run on the delegate, and all 1 operations "
             "will run on the CPU.") == NULL) {
    fail_msg("log:\n%s", c.text);
  }
  assert_int_equal(d.kit.num_claimed, 0);
  /* Nothing was claimed: the CPU runs the graph. */
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  TfLiteTensor* x = TfLiteInterpreterGetInputTensor(ip, 0);
  int32_t* xv = TfLiteTensorData(x);
  for (int i = 0; i < 4; ++i) xv[i] = 10 * i;
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  const int32_t* yv = TfLiteTensorData(TfLiteInterpreterGetOutputTensor(ip, 0));
  for (int i = 0; i < 4; ++i) assert_int_equal(yv[i], 10 * i + i + 1);
  TfLiteInterpreterDelete(ip);
  lg_delegate_kit_release(&d.kit);
  TfLiteModelDelete(m.model);
  free(m.data);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T(test_table_holds_exactly_the_gpu_ops),
      T(test_unknown_op_is_not_supported),
      T(test_version_above_max_is_refused),
      T(test_unary_ops),
      T(test_relu_family),
      T(test_binary_ops),
      T(test_add_n),
      T(test_comparisons_and_logical_and),
      T(test_select),
      T(test_pack_unpack),
      T(test_cumsum),
      T(test_one_hot),
      T(test_add),
      T(test_mul),
      T(test_conv_2d),
      T(test_depthwise_conv_2d),
      T(test_transpose_conv),
      T(test_fully_connected),
      T(test_batch_matmul),
      T(test_pooling),
      T(test_mean),
      T(test_sum_and_reduce_max),
      T(test_one_runtime_input_ops),
      T(test_concatenation),
      T(test_pads),
      T(test_slice),
      T(test_strided_slice),
      T(test_split_and_split_v),
      T(test_gather),
      T(test_depth_space),
      T(test_resize),
      T(test_softmax),
      T(test_dequantize),
      T(test_quantize),
      T(test_cast),
      T(test_cast_bool_from_comparison),
      T(test_lstm),
      T(test_kit_refuses_transpose_conv_v4),
      T(test_kit_tensor_filter_keeps_all_on_cpu),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
