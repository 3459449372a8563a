/* The elementwise family's rows of the builtin kernel table: op, the version
 * range the kernel accepts, and its registration getter.
 *
 * Ranges are those of TFLite's BuiltinOpResolver (LiteRT
 * tflite/core/kernels/register.cc); what each version adds comes from
 * GetBuiltinOperatorVersion (LiteRT
 * tflite/converter/tools/versioning/op_version.cc). A version whose only
 * addition is a type litegpu does not compute stays in the range and its
 * models fail Prepare with a message naming the type.
 */
#include <stddef.h>

#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"

/* The last row is an end marker, so that a family with no kernels yet still
 * has a valid (non-empty) array. */
static const lg_builtin_kernel kKernels[] = {
    /* 1: float32, int32 (uint8 rejected); 2: int8; 3: int16 without
     * pot_scale_int16; 4: int64; 5: int16 (all rejected). 6 (float16) is
     * not registered by TFLite either. */
    {kTfLiteBuiltinAdd, 1, 5, lg_register_ADD},
    /* 1: float32, int32; 3: broadcast above 4-D (computed); 2: int8;
     * 4: int64; 5: int16 (rejected). */
    {kTfLiteBuiltinSub, 1, 5, lg_register_SUB},
    /* 1: float32, int32; 2: int8; 3: quantized rescale >= 1; 4: int16;
     * 5: int64; 6: complex64; 7: int16 / uint32 (all rejected). */
    {kTfLiteBuiltinMul, 1, 7, lg_register_MUL},
    /* 1: float32, int32 (uint8 rejected); 2: broadcast above 4-D. */
    {kTfLiteBuiltinDiv, 1, 2, lg_register_DIV},
    /* 1: float32, int32; 2: int8 (rejected). */
    {kTfLiteBuiltinSquaredDifference, 1, 2, lg_register_SQUARED_DIFFERENCE},
    /* 1: float32, int32, int64 (uint8 rejected); 2: int8 (rejected);
     * 3: broadcast above 4-D; 4: int16 (rejected). */
    {kTfLiteBuiltinMaximum, 1, 4, lg_register_MAXIMUM},
    {kTfLiteBuiltinMinimum, 1, 4, lg_register_MINIMUM},
    /* 1 only: float32, int32. */
    {kTfLiteBuiltinPow, 1, 1, lg_register_POW},
    /* Comparisons, 1: float32, int32, int64 (uint8 rejected); 2: int8;
     * 3 (LESS, GREATER_EQUAL only): int16 (rejected). */
    {kTfLiteBuiltinLess, 1, 3, lg_register_LESS},
    {kTfLiteBuiltinLessEqual, 1, 2, lg_register_LESS_EQUAL},
    {kTfLiteBuiltinGreater, 1, 2, lg_register_GREATER},
    {kTfLiteBuiltinGreaterEqual, 1, 3, lg_register_GREATER_EQUAL},
    /* 1: float32, int32, int64, bool (uint8 rejected); 2: int8; 3: string;
     * 4 (NOT_EQUAL) / 5 (EQUAL): int16 (rejected). */
    {kTfLiteBuiltinEqual, 1, 5, lg_register_EQUAL},
    {kTfLiteBuiltinNotEqual, 1, 4, lg_register_NOT_EQUAL},
    /* 1: bool, int8, uint8, int16, int32, int64, float32; 2: uint32. */
    {kTfLiteBuiltinSelectV2, 1, 2, lg_register_SELECT_V2},
    {-1, 0, 0, NULL},
};

const lg_builtin_kernel* lg_kernels_elementwise(size_t* count) {
  *count = sizeof(kKernels) / sizeof(kKernels[0]) - 1;
  return kKernels;
}
