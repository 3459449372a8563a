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

/* The table of builtin kernels; *count receives its length. */
const lg_builtin_kernel* lg_builtin_kernels(size_t* count);

const TfLiteRegistration* lg_register_ADD(void);
const TfLiteRegistration* lg_register_FULLY_CONNECTED(void);

#endif /* LITEGPU_RUNTIME_KERNELS_KERNELS_H_ */
