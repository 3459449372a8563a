/* The builtin kernel table, derived from the op manifest (ops/ops.def):
 * one row per op with a CPU kernel, covering every version whose models
 * the kernel accepts at resolve time; variants inside a range the kernel
 * does not compute (quantized or half-precision types) fail its Prepare
 * with a message naming the type.
 *
 * This object holds the table and nothing else: liblitegpu_core.a is the
 * library without it, and a selective build links a table that
 * tools/selective_registration.c wrote in its place (kernel_find.c searches
 * whichever is linked). Only the table names the kernels (lg_register_*),
 * so a kernel no table row names is left out of a static link.
 */
#include <stddef.h>

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

const lg_builtin_kernel* lg_builtin_kernels(size_t* count) {
  *count = sizeof(kKernels) / sizeof(kKernels[0]);
  return kKernels;
}
