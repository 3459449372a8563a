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
const TfLiteRegistration* lg_register_FULLY_CONNECTED(void);

#endif /* LITEGPU_RUNTIME_KERNELS_KERNELS_H_ */
