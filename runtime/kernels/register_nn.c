/* The nn family's rows of the builtin kernel table: op, the version range
 * the kernel accepts, and its registration getter.
 *
 * Ranges are those of TFLite's BuiltinOpResolver
 * (tensorflow/lite/core/kernels/register.cc: CONV_2D 1..8,
 * DEPTHWISE_CONV_2D 1..7, FULLY_CONNECTED 1..13, TRANSPOSE_CONV 1..5,
 * BATCH_MATMUL 1..4). Every kernel here computes float32; the versions that
 * only add other types (quantized, hybrid, int16, int4) stay in the range
 * so that such models resolve, and their Prepare rejects them with a
 * message naming the type. What each version adds (TFLite's op_version.cc):
 *   CONV_2D            2 hybrid, 3 int8, 4 int16, 5 hybrid per-channel,
 *                      6 grouped (float: supported), 7 int4 filter,
 *                      8 int16 with quantized bias type
 *   DEPTHWISE_CONV_2D  2 dilation (supported), 3 int8, 4 hybrid, 5 int16,
 *                      6 hybrid per-channel, 7 int4 filter
 *   TRANSPOSE_CONV     2 int8 weights, 3 bias (supported), 4 fused
 *                      activation (supported), 5 int16
 *   FULLY_CONNECTED    5 keep_num_dims and 6 no bias (supported); the
 *                      quantized, hybrid, sparse and shuffled variants of
 *                      2..4 and 7..13 are rejected
 *   BATCH_MATMUL       2 int8, 3 int16, 4 hybrid
 */
#include <stddef.h>

#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"

/* The last row is an end marker, so that a family with no kernels yet still
 * has a valid (non-empty) array. */
static const lg_builtin_kernel kKernels[] = {
    {kTfLiteBuiltinConv2d, 1, 8, lg_register_CONV_2D},
    {kTfLiteBuiltinDepthwiseConv2d, 1, 7, lg_register_DEPTHWISE_CONV_2D},
    {kTfLiteBuiltinTransposeConv, 1, 5, lg_register_TRANSPOSE_CONV},
    {kTfLiteBuiltinFullyConnected, 1, 13, lg_register_FULLY_CONNECTED},
    {kTfLiteBuiltinBatchMatmul, 1, 4, lg_register_BATCH_MATMUL},
    {-1, 0, 0, NULL},
};

const lg_builtin_kernel* lg_kernels_nn(size_t* count) {
  *count = sizeof(kKernels) / sizeof(kKernels[0]) - 1;
  return kKernels;
}
