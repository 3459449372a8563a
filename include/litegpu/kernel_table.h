/* litegpu extension: the rows of the builtin kernel table.
 *
 * The default resolver finds its CPU kernels in one table, defined by one
 * object of the library: two functions that return its rows,
 *
 *   const lg_builtin_kernel* lg_builtin_kernels(size_t* count);
 *   const lg_custom_kernel* lg_custom_kernels(size_t* count);
 *
 * liblitegpu holds the full table (every kernel of the op manifest). For a
 * smaller static program, selective registration replaces it:
 * tools/selective_registration.c reads models and writes a table of only
 * the kernels they need, and `litegpu_add_selective_library(NAME MODELS
 * ...)` (CMake) compiles it and links it before liblitegpu_core.a, the
 * library without a table, so that the linker leaves the other kernels out
 * (docs/selective_registration.md). This header gives that generated file
 * the row types; applications do not call these functions.
 */
#ifndef LITEGPU_KERNEL_TABLE_H_
#define LITEGPU_KERNEL_TABLE_H_

#include <stdint.h>

#include "tensorflow/lite/c/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A builtin op's kernel for the versions min_version..max_version. */
typedef struct lg_builtin_kernel {
  int32_t builtin_code;
  int min_version;
  int max_version;
  const TfLiteRegistration* (*registration)(void);
} lg_builtin_kernel;

/* A custom op's kernel, found by its custom name. */
typedef struct lg_custom_kernel {
  const char* custom_name;
  int min_version;
  int max_version;
  const TfLiteRegistration* (*registration)(void);
} lg_custom_kernel;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LITEGPU_KERNEL_TABLE_H_ */
