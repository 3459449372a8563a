/* litegpu's builtin CPU kernels.
 *
 * The op manifest (ops/ops.def) lists every op with the version range its
 * CPU kernel runs; the kernel file defines `const TfLiteRegistration*
 * lg_register_<NAME>(void)` and register.c derives the table from the
 * manifest. Kernels follow TFLite's contract: Init allocates per-node data,
 * Prepare checks types, ranks and parameters (messages name the node's op
 * and the problem) and resizes outputs, Invoke only computes and never
 * allocates.
 *
 * The row types are public (include/litegpu/kernel_table.h): a selective
 * build replaces the table object (register.c) with one that
 * tools/selective_registration.c writes; lg_builtin_kernel_find and
 * lg_custom_kernel_find (kernel_find.c) search whichever table is linked.
 */
#ifndef LITEGPU_RUNTIME_KERNELS_KERNELS_H_
#define LITEGPU_RUNTIME_KERNELS_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#include "litegpu/kernel_table.h"
#include "ops/op_manifest.h"
#include "tensorflow/lite/c/common.h"

/* Every row of the table, one per op of ops/ops.def with a CPU kernel, in
 * manifest order (a selective table: the rows it holds); *count gets the
 * number. */
const lg_builtin_kernel* lg_builtin_kernels(size_t* count);

/* The kernel of `builtin_code` whose range covers `version`, or NULL. When
 * NULL and some kernel of the op exists, min_version and max_version get
 * the lowest and highest version any of them covers (else both are 0). */
const lg_builtin_kernel* lg_builtin_kernel_find(int32_t builtin_code,
                                                int version, int* min_version,
                                                int* max_version);

/* The CPU kernels of custom ops (the manifest's LG_CUSTOM_OP rows with a
 * CPU range), which the default resolver finds by name, as TFLite's
 * BuiltinOpResolver finds the custom ops it registers: every custom row
 * with a CPU kernel, in manifest order. */
const lg_custom_kernel* lg_custom_kernels(size_t* count);

/* The kernel of the custom op `custom_name` whose range covers `version`,
 * or NULL (then min_version / max_version as lg_builtin_kernel_find). */
const lg_custom_kernel* lg_custom_kernel_find(const char* custom_name,
                                              int version, int* min_version,
                                              int* max_version);

/* const TfLiteRegistration* lg_register_<NAME>(void) of every op with a
 * CPU kernel in the manifest; the kernel file defines it. */
#define LG_KERNEL_DECLARE(NAME, code, custom, family, cpu, ...) \
  LG_KERNEL_DECLARE_##cpu(NAME)
#define LG_KERNEL_DECLARE_CPU(NAME) \
  const TfLiteRegistration* lg_register_##NAME(void);
#define LG_KERNEL_DECLARE_NO_CPU(NAME)
#define LG_MANIFEST_EACH LG_KERNEL_DECLARE
#include "ops/op_manifest_each.h"
#undef LG_KERNEL_DECLARE
#undef LG_KERNEL_DECLARE_CPU
#undef LG_KERNEL_DECLARE_NO_CPU

#endif /* LITEGPU_RUNTIME_KERNELS_KERNELS_H_ */
