/* Op resolver: maps (builtin code or custom name, version) to a
 * registration.
 *
 * User registrations (AddBuiltinOp, AddCustomOp, AddOperator) are searched
 * newest first, so a later registration overrides an earlier one and any
 * builtin kernel; then litegpu's builtin kernel table unless
 * use_builtin_kernels is false. Each entry covers [min_version, max_version].
 */
#ifndef LITEGPU_RUNTIME_OP_RESOLVER_H_
#define LITEGPU_RUNTIME_OP_RESOLVER_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/c/common.h"

typedef struct lg_resolver_entry {
  int32_t builtin_code; /* kTfLiteBuiltinCustom for custom ops */
  char* custom_name;    /* owned copy; NULL for builtins */
  int min_version;
  int max_version;
  TfLiteRegistration registration;
} lg_resolver_entry;

typedef struct lg_op_resolver {
  lg_resolver_entry* entries;
  int count;
  int capacity;
  bool use_builtin_kernels;
} lg_op_resolver;

typedef enum lg_resolve_status {
  LG_RESOLVE_FOUND = 0,
  LG_RESOLVE_NOT_FOUND = 1,           /* no registration for the op at all */
  LG_RESOLVE_VERSION_UNSUPPORTED = 2, /* the op exists, not this version */
} lg_resolve_status;

typedef struct lg_resolve_result {
  lg_resolve_status status;
  const TfLiteRegistration* registration; /* when FOUND */
  /* When VERSION_UNSUPPORTED: the lowest and highest version any
   * registration of the op covers. */
  int min_supported;
  int max_supported;
} lg_resolve_result;

void lg_op_resolver_init(lg_op_resolver* resolver);
void lg_op_resolver_release(lg_op_resolver* resolver);
/* dst must be initialised (it is released first). */
TfLiteStatus lg_op_resolver_copy(lg_op_resolver* dst,
                                 const lg_op_resolver* src);
/* Copies the registration and the name. kTfLiteError on a bad range, an
 * empty custom name or no memory. */
TfLiteStatus lg_op_resolver_add(lg_op_resolver* resolver, int32_t builtin_code,
                                const char* custom_name,
                                const TfLiteRegistration* registration,
                                int min_version, int max_version);
lg_resolve_result lg_op_resolver_find(const lg_op_resolver* resolver,
                                      int32_t builtin_code,
                                      const char* custom_name, int version);

#endif /* LITEGPU_RUNTIME_OP_RESOLVER_H_ */
