/* The unary family's rows of the builtin kernel table: op, the version range
 * the kernel accepts, and its registration getter.
 *
 * Ranges are those of LiteRT's BuiltinOpResolver: the source is
 * google-ai-edge/LiteRT tflite/core/kernels/register.cc (commit 85f44750;
 * AddBuiltin without a range means version 1 only), and ai-edge-litert
 * 2.3.0, the LiteRT the tests compare with, registers a few newer versions
 * (SIN and COS 2, GELU 3, SOFTMAX 4, CAST 9, DEQUANTIZE 9; found by loading
 * a one-op model at each version with OpResolverType.BUILTIN): the rows take
 * the newer maximum. What each version adds is from GetBuiltinOperatorVersion
 * (LiteRT tflite/converter/tools/versioning/op_version.cc, and
 * ../shared/reference/tflite-facts.md section 5). A float32 model carries
 * version 1 or the version of its float/int32 variant noted below; versions
 * that only add quantized, int16, float16 or other types stay in the range
 * and Prepare rejects them with a message naming the type.
 */
#include <stddef.h>

#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"

/* The last row is an end marker, so that a family with no kernels yet still
 * has a valid (non-empty) array. */
static const lg_builtin_kernel kKernels[] = {
    /* 1 float32; 2 int8/uint8, 3 int16 quantized, 4 int16 (rejected);
     * 5 int32 (computed). */
    {kTfLiteBuiltinAbs, 1, 5, lg_register_ABS},
    /* float32, int32 and int64 are all version 1. */
    {kTfLiteBuiltinNeg, 1, 1, lg_register_NEG},
    /* 1 float32; 2 int8/int16 (rejected). */
    {kTfLiteBuiltinExp, 1, 2, lg_register_EXP},
    {kTfLiteBuiltinLog, 1, 2, lg_register_LOG},
    {kTfLiteBuiltinSqrt, 1, 2, lg_register_SQRT},
    /* 1 float32; 2 int8, 3 int16 (rejected). */
    {kTfLiteBuiltinRsqrt, 1, 3, lg_register_RSQRT},
    {kTfLiteBuiltinSquare, 1, 1, lg_register_SQUARE},
    /* 1 float32; 2 float16 (rejected). */
    {kTfLiteBuiltinSin, 1, 2, lg_register_SIN},
    {kTfLiteBuiltinCos, 1, 2, lg_register_COS},
    {kTfLiteBuiltinFloor, 1, 1, lg_register_FLOOR},
    {kTfLiteBuiltinCeil, 1, 1, lg_register_CEIL},
    {kTfLiteBuiltinRound, 1, 1, lg_register_ROUND},
    /* 1 float32; 2 int32 (computed). */
    {kTfLiteBuiltinSign, 1, 2, lg_register_SIGN},
    /* 1 float32; 2 int8/uint8, 3 int16 (rejected). */
    {kTfLiteBuiltinLogistic, 1, 3, lg_register_LOGISTIC},
    {kTfLiteBuiltinTanh, 1, 3, lg_register_TANH},
    {kTfLiteBuiltinRelu, 1, 3, lg_register_RELU},
    {kTfLiteBuiltinRelu6, 1, 3, lg_register_RELU6},
    {kTfLiteBuiltinReluN1To1, 1, 1, lg_register_RELU_N1_TO_1},
    {kTfLiteBuiltinRelu0To1, 1, 1, lg_register_RELU_0_TO_1},
    {kTfLiteBuiltinElu, 1, 1, lg_register_ELU},
    {kTfLiteBuiltinHardSwish, 1, 1, lg_register_HARD_SWISH},
    /* 1 float32; 2 int16 (rejected). */
    {kTfLiteBuiltinLeakyRelu, 1, 2, lg_register_LEAKY_RELU},
    /* 1 float32 (approximate or not); 2 int8/uint8 (rejected); 3 is newer
     * than the indexed source and runs float32 models as version 1 does in
     * LiteRT 2.3.0 (tests/python/ops/test_ops_unary.py checks it). */
    {kTfLiteBuiltinGelu, 1, 3, lg_register_GELU},
    {kTfLiteBuiltinPrelu, 1, 1, lg_register_PRELU},
    /* 1 float32; 2 int8, 3 int16, 4 float16 (rejected). */
    {kTfLiteBuiltinSoftmax, 1, 4, lg_register_SOFTMAX},
    /* 1 float32; 2 int8 (rejected). */
    {kTfLiteBuiltinLogSoftmax, 1, 2, lg_register_LOG_SOFTMAX},
    /* 1 float32/int32/int64/bool/uint8; 3 int8 (computed); 2 uint32, 4
     * uint16, 5 float16/float64, 6 int4, 7 bfloat16, 8 int2/uint4, 9 newer
     * types (float8) (rejected). */
    {kTfLiteBuiltinCast, 1, 9, lg_register_CAST},
    /* 1 uint8, 2 int8, 3 int16/float16, 5 per-channel int8 (computed);
     * 4 has no case of its own; 6 int4, 7 int2, 8 uint4, 9 float8
     * (rejected). */
    {kTfLiteBuiltinDequantize, 1, 9, lg_register_DEQUANTIZE},
    {-1, 0, 0, NULL},
};

const lg_builtin_kernel* lg_kernels_unary(size_t* count) {
  *count = sizeof(kKernels) / sizeof(kKernels[0]) - 1;
  return kKernels;
}
