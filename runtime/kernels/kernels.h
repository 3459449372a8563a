/* litegpu's builtin CPU kernels.
 *
 * Each kernel file defines `const TfLiteRegistration* lg_register_<OP>(void)`
 * and register.c lists them with the version range each one runs. Kernels
 * follow TFLite's contract: Init allocates per-node data, Prepare checks
 * types, ranks and parameters (messages name the node's op and the problem)
 * and resizes outputs, Invoke only computes and never allocates.
 */
#ifndef LITEGPU_RUNTIME_KERNELS_KERNELS_H_
#define LITEGPU_RUNTIME_KERNELS_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/c/common.h"

typedef struct lg_builtin_kernel {
  int32_t builtin_code;
  int min_version;
  int max_version;
  const TfLiteRegistration* (*registration)(void);
} lg_builtin_kernel;

/* The kernel of `builtin_code` whose range covers `version`, or NULL. When
 * NULL and some kernel of the op exists, min_version and max_version get
 * the lowest and highest version any of them covers (else both are 0). */
const lg_builtin_kernel* lg_builtin_kernel_find(int32_t builtin_code,
                                                int version, int* min_version,
                                                int* max_version);

/* Each op family's table lives in its own file (register_<family>.c), next
 * to the family's kernels; register.c searches every family. */
const lg_builtin_kernel* lg_kernels_elementwise(size_t* count);
const lg_builtin_kernel* lg_kernels_unary(size_t* count);
const lg_builtin_kernel* lg_kernels_nn(size_t* count);
const lg_builtin_kernel* lg_kernels_shape(size_t* count);
const lg_builtin_kernel* lg_kernels_reduce(size_t* count);

const TfLiteRegistration* lg_register_ADD(void);
/* Elementwise family (binary.c, comparison.c, select.c). */
const TfLiteRegistration* lg_register_SUB(void);
const TfLiteRegistration* lg_register_MUL(void);
const TfLiteRegistration* lg_register_DIV(void);
const TfLiteRegistration* lg_register_SQUARED_DIFFERENCE(void);
const TfLiteRegistration* lg_register_MAXIMUM(void);
const TfLiteRegistration* lg_register_MINIMUM(void);
const TfLiteRegistration* lg_register_POW(void);
const TfLiteRegistration* lg_register_LESS(void);
const TfLiteRegistration* lg_register_LESS_EQUAL(void);
const TfLiteRegistration* lg_register_GREATER(void);
const TfLiteRegistration* lg_register_GREATER_EQUAL(void);
const TfLiteRegistration* lg_register_EQUAL(void);
const TfLiteRegistration* lg_register_NOT_EQUAL(void);
const TfLiteRegistration* lg_register_SELECT_V2(void);
/* Unary family (unary.c, softmax.c, prelu.c, cast.c, dequantize.c). */
const TfLiteRegistration* lg_register_EXP(void);
const TfLiteRegistration* lg_register_LOG(void);
const TfLiteRegistration* lg_register_SQRT(void);
const TfLiteRegistration* lg_register_RSQRT(void);
const TfLiteRegistration* lg_register_SQUARE(void);
const TfLiteRegistration* lg_register_ABS(void);
const TfLiteRegistration* lg_register_NEG(void);
const TfLiteRegistration* lg_register_SIN(void);
const TfLiteRegistration* lg_register_COS(void);
const TfLiteRegistration* lg_register_FLOOR(void);
const TfLiteRegistration* lg_register_CEIL(void);
const TfLiteRegistration* lg_register_ROUND(void);
const TfLiteRegistration* lg_register_SIGN(void);
const TfLiteRegistration* lg_register_LOGISTIC(void);
const TfLiteRegistration* lg_register_TANH(void);
const TfLiteRegistration* lg_register_RELU(void);
const TfLiteRegistration* lg_register_RELU6(void);
const TfLiteRegistration* lg_register_RELU_N1_TO_1(void);
const TfLiteRegistration* lg_register_RELU_0_TO_1(void);
const TfLiteRegistration* lg_register_ELU(void);
const TfLiteRegistration* lg_register_HARD_SWISH(void);
const TfLiteRegistration* lg_register_LEAKY_RELU(void);
const TfLiteRegistration* lg_register_GELU(void);
const TfLiteRegistration* lg_register_PRELU(void);
const TfLiteRegistration* lg_register_SOFTMAX(void);
const TfLiteRegistration* lg_register_LOG_SOFTMAX(void);
const TfLiteRegistration* lg_register_CAST(void);
const TfLiteRegistration* lg_register_DEQUANTIZE(void);
const TfLiteRegistration* lg_register_FULLY_CONNECTED(void);
const TfLiteRegistration* lg_register_CONV_2D(void);
const TfLiteRegistration* lg_register_DEPTHWISE_CONV_2D(void);
const TfLiteRegistration* lg_register_TRANSPOSE_CONV(void);
const TfLiteRegistration* lg_register_BATCH_MATMUL(void);
/* Reduce family (pooling.c, reduce.c, resize.c, arg_minmax.c, misc.c). */
const TfLiteRegistration* lg_register_AVERAGE_POOL_2D(void);
const TfLiteRegistration* lg_register_MAX_POOL_2D(void);
const TfLiteRegistration* lg_register_L2_POOL_2D(void);
const TfLiteRegistration* lg_register_MEAN(void);
const TfLiteRegistration* lg_register_SUM(void);
const TfLiteRegistration* lg_register_REDUCE_PROD(void);
const TfLiteRegistration* lg_register_REDUCE_MAX(void);
const TfLiteRegistration* lg_register_REDUCE_MIN(void);
const TfLiteRegistration* lg_register_RESIZE_BILINEAR(void);
const TfLiteRegistration* lg_register_RESIZE_NEAREST_NEIGHBOR(void);
const TfLiteRegistration* lg_register_ARG_MAX(void);
const TfLiteRegistration* lg_register_ARG_MIN(void);
const TfLiteRegistration* lg_register_SHAPE(void);
const TfLiteRegistration* lg_register_FILL(void);
const TfLiteRegistration* lg_register_ZEROS_LIKE(void);
/* Shape family (reshape.c, concat.c, split.c, slice.c, pad.c, transpose.c,
 * gather.c, tile.c, space_depth.c). */
const TfLiteRegistration* lg_register_RESHAPE(void);
const TfLiteRegistration* lg_register_SQUEEZE(void);
const TfLiteRegistration* lg_register_EXPAND_DIMS(void);
const TfLiteRegistration* lg_register_CONCATENATION(void);
const TfLiteRegistration* lg_register_PACK(void);
const TfLiteRegistration* lg_register_UNPACK(void);
const TfLiteRegistration* lg_register_SPLIT(void);
const TfLiteRegistration* lg_register_SPLIT_V(void);
const TfLiteRegistration* lg_register_SLICE(void);
const TfLiteRegistration* lg_register_STRIDED_SLICE(void);
const TfLiteRegistration* lg_register_PAD(void);
const TfLiteRegistration* lg_register_PADV2(void);
const TfLiteRegistration* lg_register_MIRROR_PAD(void);
const TfLiteRegistration* lg_register_TRANSPOSE(void);
const TfLiteRegistration* lg_register_GATHER(void);
const TfLiteRegistration* lg_register_TILE(void);
const TfLiteRegistration* lg_register_BROADCAST_TO(void);
const TfLiteRegistration* lg_register_DEPTH_TO_SPACE(void);
const TfLiteRegistration* lg_register_SPACE_TO_DEPTH(void);

#endif /* LITEGPU_RUNTIME_KERNELS_KERNELS_H_ */
