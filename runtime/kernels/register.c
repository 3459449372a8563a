/* The builtin kernel table, derived from the op manifest (ops/ops.def):
 * one row per op with a CPU kernel, covering every version whose models
 * the kernel accepts at resolve time; variants inside a range the kernel
 * does not compute (quantized or half-precision types) fail its Prepare
 * with a message naming the type.
 */
#include <stddef.h>

#include "runtime/kernels/kernels.h"

#define LG_KERNEL_ROW(NAME, code, custom, family, cpu, min, max, ...) \
  LG_KERNEL_ROW_##cpu(NAME, code, min, max)
#define LG_KERNEL_ROW_CPU(NAME, code, min, max) \
  {code, min, max, lg_register_##NAME},
#define LG_KERNEL_ROW_NO_CPU(NAME, code, min, max)

static const lg_builtin_kernel kKernels[] = {
#define LG_MANIFEST_EACH LG_KERNEL_ROW
#include "ops/op_manifest_each.h"
};

const lg_builtin_kernel* lg_builtin_kernels(size_t* count) {
  *count = sizeof(kKernels) / sizeof(kKernels[0]);
  return kKernels;
}

const lg_builtin_kernel* lg_builtin_kernel_find(int32_t builtin_code,
                                                int version, int* min_version,
                                                int* max_version) {
  int lo = 0, hi = 0;
  for (size_t i = 0; i < sizeof(kKernels) / sizeof(kKernels[0]); ++i) {
    const lg_builtin_kernel* k = &kKernels[i];
    if (k->builtin_code != builtin_code) continue;
    if (version >= k->min_version && version <= k->max_version) return k;
    if (lo == 0 || k->min_version < lo) lo = k->min_version;
    if (k->max_version > hi) hi = k->max_version;
  }
  if (min_version != NULL) *min_version = lo;
  if (max_version != NULL) *max_version = hi;
  return NULL;
}
