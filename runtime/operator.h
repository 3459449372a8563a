/* Internal view of TfLiteOperator for the interpreter and the op resolver.
 *
 * An operator added through TfLiteInterpreterOptionsAddOperator enters the op
 * resolver as the TfLiteRegistration that lg_operator_registration returns:
 * its plain callbacks are NULL and registration_external points back at the
 * operator, so lg_registration_init/free/prepare/invoke (below)
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
#include <stddef.h>

#include "tensorflow/lite/c/common.h"
#include "tensorflow/lite/core/c/operator.h"

/* A registration that names `op` (code, custom name, version) and dispatches
 * to it through registration_external; every other callback is NULL. `op`
 * must be non-NULL and outlive the registration. */
TfLiteRegistration lg_operator_registration(const TfLiteOperator* op);

/* True when `op` has an async kernel and no Invoke (plain or WithData).
 * The interpreter rejects such an operator when it is created: its async
 * kernel runs only through the async signature runner, and the
 * synchronous Invoke needs an Invoke. False for NULL. */
bool lg_operator_has_async_kernel_only(const TfLiteOperator* op);

/* The async kernel `op` returns for `node` (SetAsyncKernel or
 * SetAsyncKernelWithData); NULL when it has none. */
struct TfLiteAsyncKernel* lg_operator_async_kernel(const TfLiteOperator* op,
                                                   TfLiteOpaqueContext* context,
                                                   TfLiteOpaqueNode* node);

/* True when `op` has any kernel callback (Init, Free, Prepare, Invoke or
 * an async kernel, plain or WithData). False for NULL. */
bool lg_operator_has_callbacks(const TfLiteOperator* op);

/* Sets the operator's builtin code; a delegate kernel's operator becomes
 * kTfLiteBuiltinDelegate when nodes are replaced with it, as in TFLite. */
void lg_operator_set_builtin_code(TfLiteOperator* op,
                                  TfLiteBuiltinOperator builtin_code);

/* A new operator without callbacks that names a registration (code, custom
 * name copied, version), unchecked (a delegate kernel may have version 0
 * or no name); NULL when memory runs out. Delete with
 * TfLiteOperatorDelete. */
TfLiteOperator* lg_operator_describe(const TfLiteRegistration* registration);

/* Registration callbacks, dispatching to a TfLiteOperator's callbacks when
 * registration_external is set . */
void* lg_registration_init(TfLiteContext* context,
                           const TfLiteRegistration* registration,
                           const char* buffer, size_t length);
void lg_registration_free(TfLiteContext* context,
                          const TfLiteRegistration* registration, void* data);
TfLiteStatus lg_registration_prepare(TfLiteContext* context,
                                     const TfLiteRegistration* registration,
                                     TfLiteNode* node);
TfLiteStatus lg_registration_invoke(TfLiteContext* context,
                                    const TfLiteRegistration* registration,
                                    TfLiteNode* node);

#endif /* LITEGPU_RUNTIME_OPERATOR_H_ */
