/* The shape family's rows of the builtin kernel table: op, the version range
 * the kernel accepts, and its registration getter.
 *
 * Ranges are the BuiltinOpResolver ranges of LiteRT 2.3.0 (ai-edge-litert,
 * the runtime the Python suites compare with; probed by loading one-op
 * models of each version). They are newer than those of the register.cc
 * copy searched (google-ai-edge/LiteRT tflite/core/kernels/register.cc:
 * CONCATENATION 1..5, PACK 1..4, UNPACK 1..4, SPLIT 1..4, SPLIT_V 1..2,
 * SLICE 1..7, PAD/PADV2 1..5, TRANSPOSE 1..7, GATHER 1..7, BROADCAST_TO
 * 2..3; the others agree). What each version adds is from LiteRT's
 * GetBuiltinOperatorVersion (tflite/converter/tools/versioning/
 * op_version.cc) and the TFLite fact sheet; versions marked "newer" are
 * past that source and add element types (float16, bfloat16, float8).
 * Every version stays in the range: the kernels compute float32, int32,
 * int64, int8, uint8, int16 and bool data where LiteRT does, and reject
 * other element types (string, uint32, int4, float16, ...) in Prepare with
 * the type's name.
 */
#include <stddef.h>

#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"

/* The last row is an end marker, so that a family with no kernels yet still
 * has a valid (non-empty) array. */
static const lg_builtin_kernel kKernels[] = {
    /* RESHAPE, EXPAND_DIMS: a single version. */
    {kTfLiteBuiltinReshape, 1, 1, lg_register_RESHAPE},
    {kTfLiteBuiltinExpandDims, 1, 1, lg_register_EXPAND_DIMS},
    /* 2: string (rejected). */
    {kTfLiteBuiltinSqueeze, 1, 2, lg_register_SQUEEZE},
    /* 2: int8, 3: int16, 4: uint32, 5: int4, 6: float16, 7: float8 (the
     * last four rejected). */
    {kTfLiteBuiltinConcatenation, 1, 7, lg_register_CONCATENATION},
    /* 2: int8, 3: int16, 4: uint32, 5: newer (rejected). */
    {kTfLiteBuiltinPack, 1, 5, lg_register_PACK},
    /* 2: int8 / uint8, 3: bool, 4: int16, 5: float16 / bfloat16, 6: newer
     * (both rejected). */
    {kTfLiteBuiltinUnpack, 1, 6, lg_register_UNPACK},
    /* 2: int8, 3: int32, 4: int16, 5: newer (rejected). */
    {kTfLiteBuiltinSplit, 1, 5, lg_register_SPLIT},
    /* 2: int8, 3: newer (rejected). */
    {kTfLiteBuiltinSplitV, 1, 3, lg_register_SPLIT_V},
    /* 2: int8, 3: string, 4: int16, 5: rank > 4, 6: uint32, 7: int4, 8:
     * float16 (string, uint32, int4 and float16 rejected). */
    {kTfLiteBuiltinSlice, 1, 8, lg_register_SLICE},
    /* 2: int8, 3: bool, 4: rank > 4, 5: string (rejected), 6: ellipsis or
     * new-axis masks, 7: uint32 (rejected), 8: offset. */
    {kTfLiteBuiltinStridedSlice, 1, 8, lg_register_STRIDED_SLICE},
    /* 2: int8, 3: int16, 4: rank > 4, 5: bool, 6: float8 (rejected). */
    {kTfLiteBuiltinPad, 1, 6, lg_register_PAD},
    {kTfLiteBuiltinPadv2, 1, 6, lg_register_PADV2},
    /* 2: int8, 3: int16. */
    {kTfLiteBuiltinMirrorPad, 1, 3, lg_register_MIRROR_PAD},
    /* 2: int8, 3: bool, 4: rank > 4, 5: int16, 6: rank > 5, 7: int4, 8:
     * rank > 6 or bfloat16, 9: float16 (int4, bfloat16 and float16
     * rejected; ranks up to 8 run). */
    {kTfLiteBuiltinTranspose, 1, 9, lg_register_TRANSPOSE},
    /* 2: int8, 3: bool, 4: int16, 5: batch_dims != 0, 6: int16 indices, 7:
     * int4, 8: float8 (the last three rejected). */
    {kTfLiteBuiltinGather, 1, 8, lg_register_GATHER},
    /* 2: string (rejected), 3: int8. */
    {kTfLiteBuiltinTile, 1, 3, lg_register_TILE},
    /* Version 1 was rolled back and is not registered; 3: int8, int16; 4:
     * newer (rejected). */
    {kTfLiteBuiltinBroadcastTo, 2, 4, lg_register_BROADCAST_TO},
    /* 2: int8. */
    {kTfLiteBuiltinDepthToSpace, 1, 2, lg_register_DEPTH_TO_SPACE},
    {kTfLiteBuiltinSpaceToDepth, 1, 2, lg_register_SPACE_TO_DEPTH},
    {-1, 0, 0, NULL},
};

const lg_builtin_kernel* lg_kernels_shape(size_t* count) {
  *count = sizeof(kKernels) / sizeof(kKernels[0]) - 1;
  return kKernels;
}
