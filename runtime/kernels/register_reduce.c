/* The reduce family's rows of the builtin kernel table: op, the version range
 * the kernel accepts, and its registration getter. */
#include <stddef.h>

#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"

/* The last row is an end marker, so that a family with no kernels yet still
 * has a valid (non-empty) array. */
static const lg_builtin_kernel kKernels[] = {
    {-1, 0, 0, NULL},
};

const lg_builtin_kernel* lg_kernels_reduce(size_t* count) {
  *count = sizeof(kKernels) / sizeof(kKernels[0]) - 1;
  return kKernels;
}
