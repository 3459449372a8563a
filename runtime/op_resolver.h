/* Op resolver: maps (builtin code or custom name, version) to a
 * registration.
 *
 * User registrations (AddBuiltinOp, AddCustomOp, AddOperator) are searched
 * newest first, so a later registration overrides an earlier one and any
 * builtin kernel; then litegpu's builtin kernel table unless
 * use_builtin_kernels is false. Each entry covers [min_version, max_version].
 *
 * Resolver callbacks (TfLiteInterpreterOptionsSetOpResolver and the
 * ...External variants) replace all of that, as in TFLite: when any is set,
 * only the callbacks are asked; per op, the TfLiteOperator callback first,
 * then (when it gives NULL or an operator without callbacks) the
 * TfLiteRegistration one.
 */
#ifndef LITEGPU_RUNTIME_OP_RESOLVER_H_
#define LITEGPU_RUNTIME_OP_RESOLVER_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/common.h"

typedef struct lg_resolver_entry {
  int32_t builtin_code; /* kTfLiteBuiltinCustom for custom ops */
  char* custom_name;    /* owned copy; NULL for builtins */
  int min_version;
  int max_version;
  TfLiteRegistration registration;
} lg_resolver_entry;

/* The options' resolver callbacks; all NULL when none is set. */
typedef struct lg_resolver_callbacks {
  const TfLiteOperator* (*find_builtin_op_external)(void* user_data, int op,
                                                    int version);
  const TfLiteOperator* (*find_custom_op_external)(void* user_data,
                                                   const char* custom_op,
                                                   int version);
  const TfLiteRegistration* (*find_builtin_op)(void* user_data,
                                               TfLiteBuiltinOperator op,
                                               int version);
  const TfLiteRegistration* (*find_custom_op)(void* user_data,
                                              const char* custom_op,
                                              int version);
  void* user_data;
} lg_resolver_callbacks;

typedef struct lg_op_resolver {
  lg_resolver_entry* entries;
  int count;
  int capacity;
  bool use_builtin_kernels;
  lg_resolver_callbacks callbacks;
} lg_op_resolver;

typedef enum lg_resolve_status {
  LG_RESOLVE_FOUND = 0,
  LG_RESOLVE_NOT_FOUND = 1,           /* no registration for the op at all */
  LG_RESOLVE_VERSION_UNSUPPORTED = 2, /* the op exists, not this version */
} lg_resolve_status;

typedef struct lg_resolve_result {
  lg_resolve_status status;
  TfLiteRegistration registration; /* when FOUND (a copy) */
  /* When VERSION_UNSUPPORTED: the lowest and highest version any
   * registration of the op covers. */
  int min_supported;
  int max_supported;
} lg_resolve_result;

void lg_op_resolver_init(lg_op_resolver* resolver);
void lg_op_resolver_release(lg_op_resolver* resolver);
/* dst must be initialised (it is released first). Copies the callbacks. */
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
