/* The builtin kernel search over every op family's table.
 *
 * A row covers every version whose models the kernel accepts at resolve
 * time; variants inside a range the kernel does not compute (quantized or
 * half-precision types) fail its Prepare with a message naming the type.
 */
#include <stddef.h>

#include "runtime/kernels/kernels.h"

typedef const lg_builtin_kernel* (*lg_family_fn)(size_t* count);

static const lg_family_fn kFamilies[] = {
    lg_kernels_elementwise, lg_kernels_unary,  lg_kernels_nn,
    lg_kernels_shape,       lg_kernels_reduce,
};

const lg_builtin_kernel* lg_builtin_kernel_find(int32_t builtin_code,
                                                int version, int* min_version,
                                                int* max_version) {
  int lo = 0, hi = 0;
  for (size_t f = 0; f < sizeof(kFamilies) / sizeof(kFamilies[0]); ++f) {
    size_t count = 0;
    const lg_builtin_kernel* table = kFamilies[f](&count);
    for (size_t i = 0; i < count; ++i) {
      const lg_builtin_kernel* k = &table[i];
      if (k->builtin_code != builtin_code) continue;
      if (version >= k->min_version && version <= k->max_version) return k;
      if (lo == 0 || k->min_version < lo) lo = k->min_version;
      if (k->max_version > hi) hi = k->max_version;
    }
  }
  if (min_version != NULL) *min_version = lo;
  if (max_version != NULL) *max_version = hi;
  return NULL;
}
