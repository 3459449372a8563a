/* The builtin kernel table the op resolver searches after the user's
 * registrations. One row per kernel: the op, the version range it runs and
 * its registration getter.
 *
 * A range covers every version whose models the kernel accepts at resolve
 * time; variants inside a range the kernel does not compute (quantized or
 * half-precision types) fail its Prepare with a message naming the type.
 */
#include <stddef.h>

#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"

static const lg_builtin_kernel kBuiltinKernels[] = {
    /* 1: float32, int32 (uint8 is rejected); 2..5: int8, int16, int64 (all
     * rejected). 6 (float16) is not registered. */
    {kTfLiteBuiltinAdd, 1, 5, lg_register_ADD},
    /* float32 throughout; 5: keep_num_dims, 6: no bias. The quantized,
     * hybrid, sparse and shuffled variants of 2..4 and 7..13 are rejected. */
    {kTfLiteBuiltinFullyConnected, 1, 13, lg_register_FULLY_CONNECTED},
};

const lg_builtin_kernel* lg_builtin_kernels(size_t* count) {
  if (count != NULL) {
    *count = sizeof(kBuiltinKernels) / sizeof(kBuiltinKernels[0]);
  }
  return kBuiltinKernels;
}
