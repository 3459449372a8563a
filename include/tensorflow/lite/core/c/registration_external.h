/* litegpu: the TfLiteRegistrationExternal spelling of the operator API, as
 * TFLite 2.13 to 2.15 declared it in this header (later releases renamed the
 * type and its functions TfLiteOperator; see core/c/operator.h).
 *
 * TfLiteRegistrationExternal is the same type as TfLiteOperator (a typedef in
 * common.h), and every function here is an exported function of its own that
 * does exactly what its TfLiteOperator counterpart does, so programs and
 * plugins built against TFLite 2.13 to 2.15 link by these names:
 *
 *   TfLiteRegistrationExternal* r =
 *       TfLiteRegistrationExternalCreate(kTfLiteBuiltinCustom, "Atan", 1);
 *   TfLiteRegistrationExternalSetPrepare(r, AtanPrepare);
 *   TfLiteRegistrationExternalSetInvoke(r, AtanEval);
 *   TfLiteInterpreterOptionsAddRegistrationExternal(options, r);
 *
 * A TfLiteRegistration whose registration_external is set (the other route
 * of those releases, through TfLiteInterpreterOptionsAddCustomOp or
 * ...AddBuiltinOp) runs the external callbacks: for each of Init, Free,
 * Prepare and Invoke, the external one when it is set, else the
 * registration's own.
 *
 * The 2.13 to 2.15 header had no WithData setters, no CreateWithData and no
 * GetUserData under this spelling; use the TfLiteOperator names for those.
 * Users include tensorflow/lite/c/c_api.h, which includes this header.
 */
#ifndef TENSORFLOW_LITE_CORE_C_REGISTRATION_EXTERNAL_H_
#define TENSORFLOW_LITE_CORE_C_REGISTRATION_EXTERNAL_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/c_api_types.h"
#include "tensorflow/lite/c/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TfLiteOperatorCreate. */
TFL_CAPI_EXPORT extern TfLiteRegistrationExternal*
TfLiteRegistrationExternalCreate(TfLiteBuiltinOperator builtin_code,
                                 const char* custom_name, int version);

/* TfLiteOperatorDelete. */
TFL_CAPI_EXPORT extern void TfLiteRegistrationExternalDelete(
    TfLiteRegistrationExternal* registration);

/* TfLiteOperatorGetBuiltInCode. */
TFL_CAPI_EXPORT extern TfLiteBuiltinOperator
TfLiteRegistrationExternalGetBuiltInCode(
    const TfLiteRegistrationExternal* registration);

/* TfLiteOperatorGetCustomName: NULL for a builtin. */
TFL_CAPI_EXPORT extern const char* TfLiteRegistrationExternalGetCustomName(
    const TfLiteRegistrationExternal* registration);

/* TfLiteOperatorGetVersion: -1 for NULL. */
TFL_CAPI_EXPORT extern int TfLiteRegistrationExternalGetVersion(
    const TfLiteRegistrationExternal* registration);

/* TfLiteOperatorSetInit. */
TFL_CAPI_EXPORT extern void TfLiteRegistrationExternalSetInit(
    TfLiteRegistrationExternal* registration,
    void* (*init)(TfLiteOpaqueContext* context, const char* buffer,
                  size_t length));

/* TfLiteOperatorSetFree. */
TFL_CAPI_EXPORT extern void TfLiteRegistrationExternalSetFree(
    TfLiteRegistrationExternal* registration,
    void (*free)(TfLiteOpaqueContext* context, void* data));

/* TfLiteOperatorSetPrepare. */
TFL_CAPI_EXPORT extern void TfLiteRegistrationExternalSetPrepare(
    TfLiteRegistrationExternal* registration,
    TfLiteStatus (*prepare)(TfLiteOpaqueContext* context,
                            TfLiteOpaqueNode* node));

/* TfLiteOperatorSetInvoke. */
TFL_CAPI_EXPORT extern void TfLiteRegistrationExternalSetInvoke(
    TfLiteRegistrationExternal* registration,
    TfLiteStatus (*invoke)(TfLiteOpaqueContext* context,
                           TfLiteOpaqueNode* node));

/* TfLiteOperatorSetAsyncKernel (see operator.h: the async signature
 * runner calls the kernel when the operator's node is the whole
 * signature; an operator with one and no Invoke is refused at interpreter
 * creation). */
TFL_CAPI_EXPORT extern void TfLiteRegistrationExternalSetAsyncKernel(
    TfLiteRegistrationExternal* registration,
    struct TfLiteAsyncKernel* (*async_kernel)(TfLiteOpaqueContext* context,
                                              TfLiteOpaqueNode* node));

/* TfLiteOperatorSetInplaceOperator (2.14 and 2.15). */
TFL_CAPI_EXPORT extern void TfLiteRegistrationExternalSetInplaceOperator(
    TfLiteRegistrationExternal* registration, uint64_t inplace_operator);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_LITE_CORE_C_REGISTRATION_EXTERNAL_H_ */
