/* litegpu: TfLiteOperator, the opaque custom-operator registration.
 *
 * A TfLiteOperator names an operator (builtin code, or kTfLiteBuiltinCustom
 * plus a custom name) and a version, and holds the kernel's callbacks. Add it
 * to interpreter options with TfLiteInterpreterOptionsAddOperator; the caller
 * keeps ownership and must keep it alive while any interpreter created from
 * those options exists.
 *
 *   TfLiteOperator* op = TfLiteOperatorCreate(kTfLiteBuiltinCustom, "Atan", 1);
 *   TfLiteOperatorSetPrepare(op, AtanPrepare);
 *   TfLiteOperatorSetInvoke(op, AtanInvoke);
 *   TfLiteInterpreterOptionsAddOperator(options, op);
 *
 * Lifecycle of the callbacks: Init once per node with the custom options
 * bytes, Free once for every Init, Prepare after every (re)allocation, Invoke
 * on every inference. Thread safety: an operator may be shared by
 * interpreters used on different threads once it is fully set up.
 */
#ifndef TENSORFLOW_LITE_CORE_C_OPERATOR_H_
#define TENSORFLOW_LITE_CORE_C_OPERATOR_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/c_api_types.h"
#include "tensorflow/lite/c/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A new operator; `custom_name` is copied (NULL for a builtin). NULL on bad
 * arguments (a custom op without a name, a version below 1) or no memory. */
TFL_CAPI_EXPORT TfLiteOperator* TfLiteOperatorCreate(
    TfLiteBuiltinOperator builtin_code, const char* custom_name, int version);

/* As TfLiteOperatorCreate; `user_data` is passed to the ...WithData
 * callbacks. */
TFL_CAPI_EXPORT TfLiteOperator* TfLiteOperatorCreateWithData(
    TfLiteBuiltinOperator builtin_code, const char* custom_name, int version,
    void* user_data);

/* NULL is a no-op. */
TFL_CAPI_EXPORT void TfLiteOperatorDelete(TfLiteOperator* registration);

TFL_CAPI_EXPORT TfLiteBuiltinOperator
TfLiteOperatorGetBuiltInCode(const TfLiteOperator* registration);
/* NULL for a builtin operator. */
TFL_CAPI_EXPORT const char* TfLiteOperatorGetCustomName(
    const TfLiteOperator* registration);
/* -1 when registration is NULL. */
TFL_CAPI_EXPORT int TfLiteOperatorGetVersion(
    const TfLiteOperator* registration);
TFL_CAPI_EXPORT void* TfLiteOperatorGetUserData(
    const TfLiteOperator* registration);

TFL_CAPI_EXPORT void TfLiteOperatorSetInit(
    TfLiteOperator* registration,
    void* (*init)(TfLiteOpaqueContext* context, const char* buffer,
                  size_t length));
TFL_CAPI_EXPORT TfLiteStatus TfLiteOperatorSetInitWithData(
    TfLiteOperator* registration,
    void* (*init)(void* user_data, TfLiteOpaqueContext* context,
                  const char* buffer, size_t length));

TFL_CAPI_EXPORT void TfLiteOperatorSetFree(
    TfLiteOperator* registration,
    void (*free)(TfLiteOpaqueContext* context, void* data));
TFL_CAPI_EXPORT TfLiteStatus TfLiteOperatorSetFreeWithData(
    TfLiteOperator* registration,
    void (*free)(void* user_data, TfLiteOpaqueContext* context, void* data));

TFL_CAPI_EXPORT void TfLiteOperatorSetPrepare(
    TfLiteOperator* registration,
    TfLiteStatus (*prepare)(TfLiteOpaqueContext* context,
                            TfLiteOpaqueNode* node));
TFL_CAPI_EXPORT TfLiteStatus TfLiteOperatorSetPrepareWithData(
    TfLiteOperator* registration,
    TfLiteStatus (*prepare)(void* user_data, TfLiteOpaqueContext* context,
                            TfLiteOpaqueNode* node));

TFL_CAPI_EXPORT void TfLiteOperatorSetInvoke(
    TfLiteOperator* registration,
    TfLiteStatus (*invoke)(TfLiteOpaqueContext* context,
                           TfLiteOpaqueNode* node));
TFL_CAPI_EXPORT TfLiteStatus TfLiteOperatorSetInvokeWithData(
    TfLiteOperator* registration,
    TfLiteStatus (*invoke)(void* user_data, TfLiteOpaqueContext* context,
                           TfLiteOpaqueNode* node));

/* The async signature runner (core/async/c/async_signature_runner.h)
 * runs a signature that is this operator's one node through the async
 * kernel it returns (core/async/c/async_kernel.h: eval, wait, finish, the
 * buffer, reconcile, attribute and prepare callbacks); any other graph
 * runs each node's Invoke. The synchronous Invoke needs an Invoke: an
 * operator with an async kernel and no Invoke is rejected when an
 * interpreter is created. */
TFL_CAPI_EXPORT void TfLiteOperatorSetAsyncKernel(
    TfLiteOperator* registration,
    struct TfLiteAsyncKernel* (*async_kernel)(TfLiteOpaqueContext* context,
                                              TfLiteOpaqueNode* node));
TFL_CAPI_EXPORT TfLiteStatus TfLiteOperatorSetAsyncKernelWithData(
    TfLiteOperator* registration,
    struct TfLiteAsyncKernel* (*async_kernel)(void* user_data,
                                              TfLiteOpaqueContext* context,
                                              TfLiteOpaqueNode* node));

TFL_CAPI_EXPORT void TfLiteOperatorSetInplaceOperator(
    TfLiteOperator* registration, uint64_t inplace_operator);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_LITE_CORE_C_OPERATOR_H_ */
