/* The reduce family's rows of the builtin kernel table: op, the version range
 * the kernel accepts, and its registration getter.
 *
 * The ranges are TFLite's BuiltinOpResolver ranges
 * (tensorflow/lite/core/kernels/register.cc); what each version adds is
 * from GetBuiltinOperatorVersion (tensorflow/lite/tools/versioning/
 * op_version.cc). Versions whose only addition is a quantized, int16,
 * bool, string or float16 type stay in the range; Prepare rejects those
 * types with a message naming them.
 */
#include <stddef.h>

#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"

/* The last row is an end marker, so that a family with no kernels yet still
 * has a valid (non-empty) array. */
static const lg_builtin_kernel kKernels[] = {
    /* 1: float32 (uint8 rejected); 2: int8; 3: int16 (both rejected). */
    {kTfLiteBuiltinAveragePool2d, 1, 3, lg_register_AVERAGE_POOL_2D},
    {kTfLiteBuiltinMaxPool2d, 1, 3, lg_register_MAX_POOL_2D},
    /* 1: float32 only. */
    {kTfLiteBuiltinL2Pool2d, 1, 1, lg_register_L2_POOL_2D},
    /* 1: float32, int32 (uint8, int64 rejected); 2: int8; 3: int16. */
    {kTfLiteBuiltinMean, 1, 3, lg_register_MEAN},
    {kTfLiteBuiltinReduceMax, 1, 3, lg_register_REDUCE_MAX},
    {kTfLiteBuiltinReduceMin, 1, 3, lg_register_REDUCE_MIN},
    /* 1: float32, int32; 2: int8 (and int16 for REDUCE_PROD), rejected. */
    {kTfLiteBuiltinSum, 1, 2, lg_register_SUM},
    {kTfLiteBuiltinReduceProd, 1, 2, lg_register_REDUCE_PROD},
    /* 1: float32 (NEAREST: int32 too; uint8 rejected); 2: int8 (rejected);
     * 3: half_pixel_centers (BILINEAR), half_pixel_centers or align_corners
     * (NEAREST); 4: int16 (rejected). */
    {kTfLiteBuiltinResizeBilinear, 1, 4, lg_register_RESIZE_BILINEAR},
    {kTfLiteBuiltinResizeNearestNeighbor, 1, 4,
     lg_register_RESIZE_NEAREST_NEIGHBOR},
    /* 1: float32, int32 (uint8 rejected); 2: int8; 3: bool (rejected). */
    {kTfLiteBuiltinArgMax, 1, 3, lg_register_ARG_MAX},
    {kTfLiteBuiltinArgMin, 1, 3, lg_register_ARG_MIN},
    {kTfLiteBuiltinShape, 1, 1, lg_register_SHAPE},
    /* 1: float32, int32, int64; 2: bool (string rejected); 3: int8, int16;
     * 4: float16 (rejected). */
    {kTfLiteBuiltinFill, 1, 4, lg_register_FILL},
    /* 1: float32, int32, int64. */
    {kTfLiteBuiltinZerosLike, 1, 1, lg_register_ZEROS_LIKE},
    {-1, 0, 0, NULL},
};

const lg_builtin_kernel* lg_kernels_reduce(size_t* count) {
  *count = sizeof(kKernels) / sizeof(kKernels[0]) - 1;
  return kKernels;
}
