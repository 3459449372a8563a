/* Internal view of TfLiteOperator for the interpreter and the op resolver.
 *
 * An operator added through TfLiteInterpreterOptionsAddOperator enters the op
 * resolver as the TfLiteRegistration that lg_operator_registration returns:
 * its plain callbacks are NULL and registration_external points back at the
 * operator, so lg_registration_init/free/prepare/invoke (interpreter.h)
 * dispatch to the operator's callbacks. The operator stays the caller's; the
 * registration borrows it and its custom name.
 *
 *   TfLiteRegistration reg = lg_operator_registration(op);
 *   lg_op_resolver_add(&resolver, reg.builtin_code, reg.custom_name, &reg,
 *                      reg.version, reg.version);
 */
#ifndef LITEGPU_RUNTIME_OPERATOR_H_
#define LITEGPU_RUNTIME_OPERATOR_H_

#include <stdbool.h>

#include "tensorflow/lite/c/common.h"
#include "tensorflow/lite/core/c/operator.h"

/* A registration that names `op` (code, custom name, version) and dispatches
 * to it through registration_external; every other callback is NULL. `op`
 * must be non-NULL and outlive the registration. */
TfLiteRegistration lg_operator_registration(const TfLiteOperator* op);

/* True when `op` has an async kernel and no Invoke (plain or WithData).
 * litegpu has no asynchronous execution, so the interpreter rejects such an
 * operator when it is created. False for NULL. */
bool lg_operator_has_async_kernel_only(const TfLiteOperator* op);

#endif /* LITEGPU_RUNTIME_OPERATOR_H_ */
