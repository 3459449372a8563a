/* TFLite 2.13 to 2.15's names of the operator API
 * (include/tensorflow/lite/core/c/registration_external.h): exported
 * functions of their own, each a call of its TfLiteOperator counterpart
 * (runtime/operator.c), so that code built against those releases links by
 * these names. */
#include "tensorflow/lite/core/c/registration_external.h"

#include "tensorflow/lite/core/c/operator.h"

TfLiteRegistrationExternal* TfLiteRegistrationExternalCreate(
    TfLiteBuiltinOperator builtin_code, const char* custom_name, int version) {
  return TfLiteOperatorCreate(builtin_code, custom_name, version);
}

void TfLiteRegistrationExternalDelete(
    TfLiteRegistrationExternal* registration) {
  TfLiteOperatorDelete(registration);
}

TfLiteBuiltinOperator TfLiteRegistrationExternalGetBuiltInCode(
    const TfLiteRegistrationExternal* registration) {
  return TfLiteOperatorGetBuiltInCode(registration);
}

const char* TfLiteRegistrationExternalGetCustomName(
    const TfLiteRegistrationExternal* registration) {
  return TfLiteOperatorGetCustomName(registration);
}

int TfLiteRegistrationExternalGetVersion(
    const TfLiteRegistrationExternal* registration) {
  return TfLiteOperatorGetVersion(registration);
}

void TfLiteRegistrationExternalSetInit(
    TfLiteRegistrationExternal* registration,
    void* (*init)(TfLiteOpaqueContext* context, const char* buffer,
                  size_t length)) {
  TfLiteOperatorSetInit(registration, init);
}

void TfLiteRegistrationExternalSetFree(
    TfLiteRegistrationExternal* registration,
    void (*free_fn)(TfLiteOpaqueContext* context, void* data)) {
  TfLiteOperatorSetFree(registration, free_fn);
}

void TfLiteRegistrationExternalSetPrepare(
    TfLiteRegistrationExternal* registration,
    TfLiteStatus (*prepare)(TfLiteOpaqueContext* context,
                            TfLiteOpaqueNode* node)) {
  TfLiteOperatorSetPrepare(registration, prepare);
}

void TfLiteRegistrationExternalSetInvoke(
    TfLiteRegistrationExternal* registration,
    TfLiteStatus (*invoke)(TfLiteOpaqueContext* context,
                           TfLiteOpaqueNode* node)) {
  TfLiteOperatorSetInvoke(registration, invoke);
}

void TfLiteRegistrationExternalSetAsyncKernel(
    TfLiteRegistrationExternal* registration,
    struct TfLiteAsyncKernel* (*async_kernel)(TfLiteOpaqueContext* context,
                                              TfLiteOpaqueNode* node)) {
  TfLiteOperatorSetAsyncKernel(registration, async_kernel);
}

void TfLiteRegistrationExternalSetInplaceOperator(
    TfLiteRegistrationExternal* registration, uint64_t inplace_operator) {
  TfLiteOperatorSetInplaceOperator(registration, inplace_operator);
}
