/* The builtin kernel table, derived from the op manifest (ops/ops.def):
 * one row per op with a CPU kernel, covering every version whose models
 * the kernel accepts at resolve time; variants inside a range the kernel
 * does not compute (quantized or half-precision types) fail its Prepare
 * with a message naming the type.
 */
#include <stddef.h>
#include <string.h>

#include "runtime/kernels/kernels.h"

#define LG_KERNEL_ROW(NAME, code, custom, family, cpu, min, max, ...) \
  LG_KERNEL_ROW_##cpu(NAME, code, min, max)
#define LG_KERNEL_ROW_CPU(NAME, code, min, max) \
  {code, min, max, lg_register_##NAME},
#define LG_KERNEL_ROW_NO_CPU(NAME, code, min, max)

/* The builtin rows only: custom rows (LG_CUSTOM_OP) with a CPU kernel go
 * to kCustomKernels, found by name. ops/ops.def is expanded here with this
 * file's own LG_OP / LG_CUSTOM_OP so that each table takes its kind. */
#define ANY LG_OP_ANY_VERSION
#define LG_OP(NAME, Code, family, cpu, gpu)                                \
  LG_MANIFEST_ROW(LG_KERNEL_ROW, NAME, kTfLiteBuiltin##Code, NULL, family, \
                  cpu, gpu)
#define LG_CUSTOM_OP(NAME, custom, family, cpu, gpu)
static const lg_builtin_kernel kKernels[] = {
#include "ops/ops.def"
};
#undef LG_OP
#undef LG_CUSTOM_OP

#define LG_CUSTOM_KERNEL_ROW(NAME, code, custom, family, cpu, min, max, ...) \
  LG_CUSTOM_KERNEL_ROW_##cpu(NAME, custom, min, max)
#define LG_CUSTOM_KERNEL_ROW_CPU(NAME, custom, min, max) \
  {custom, min, max, lg_register_##NAME},
#define LG_CUSTOM_KERNEL_ROW_NO_CPU(NAME, custom, min, max)
#define LG_OP(NAME, Code, family, cpu, gpu)
#define LG_CUSTOM_OP(NAME, custom, family, cpu, gpu)                        \
  LG_MANIFEST_ROW(LG_CUSTOM_KERNEL_ROW, NAME, kTfLiteBuiltinCustom, custom, \
                  family, cpu, gpu)
/* One placeholder row keeps the array non-empty; its NULL name matches
 * nothing. */
static const lg_custom_kernel kCustomKernels[] = {
#include "ops/ops.def"
    {NULL, 0, 0, NULL},
};
#undef LG_OP
#undef LG_CUSTOM_OP
#undef ANY

const lg_custom_kernel* lg_custom_kernels(size_t* count) {
  *count = sizeof(kCustomKernels) / sizeof(kCustomKernels[0]) - 1;
  return kCustomKernels;
}

const lg_custom_kernel* lg_custom_kernel_find(const char* custom_name,
                                              int version, int* min_version,
                                              int* max_version) {
  int lo = 0, hi = 0;
  size_t count = 0;
  const lg_custom_kernel* table = lg_custom_kernels(&count);
  for (size_t i = 0; custom_name != NULL && i < count; ++i) {
    const lg_custom_kernel* k = &table[i];
    if (strcmp(k->custom_name, custom_name) != 0) continue;
    if (version >= k->min_version && version <= k->max_version) return k;
    if (lo == 0 || k->min_version < lo) lo = k->min_version;
    if (k->max_version > hi) hi = k->max_version;
  }
  if (min_version != NULL) *min_version = lo;
  if (max_version != NULL) *max_version = hi;
  return NULL;
}

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
