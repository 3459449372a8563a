/* TfLiteOperator (include/tensorflow/lite/core/c/operator.h) and the
 * registration dispatchers declared in runtime/interpreter.h.
 *
 * An operator holds each callback in two forms, plain and WithData (the
 * latter gets the operator's user_data first). When both are set, the
 * WithData form wins, as in TFLite. The opaque handles handed to callbacks
 * are casts of the TfLite structures (see c_api_opaque.c).
 */
#include "runtime/operator.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/interpreter.h"
#include "tensorflow/lite/builtin_ops.h"

/* The highest code in builtin_ops.h; keep in step when codes are added. */
#define LG_BUILTIN_CODE_MAX kTfLiteBuiltinStablehloCase

struct TfLiteOperator {
  TfLiteBuiltinOperator builtin_code;
  char* custom_name; /* owned copy, or NULL */
  int version;
  void* user_data; /* passed to the ...WithData callbacks */
  uint64_t inplace_operator;

  void* (*init)(TfLiteOpaqueContext* context, const char* buffer,
                size_t length);
  void* (*init_with_data)(void* user_data, TfLiteOpaqueContext* context,
                          const char* buffer, size_t length);
  void (*free)(TfLiteOpaqueContext* context, void* data);
  void (*free_with_data)(void* user_data, TfLiteOpaqueContext* context,
                         void* data);
  TfLiteStatus (*prepare)(TfLiteOpaqueContext* context, TfLiteOpaqueNode* node);
  TfLiteStatus (*prepare_with_data)(void* user_data,
                                    TfLiteOpaqueContext* context,
                                    TfLiteOpaqueNode* node);
  TfLiteStatus (*invoke)(TfLiteOpaqueContext* context, TfLiteOpaqueNode* node);
  TfLiteStatus (*invoke_with_data)(void* user_data,
                                   TfLiteOpaqueContext* context,
                                   TfLiteOpaqueNode* node);
  struct TfLiteAsyncKernel* (*async_kernel)(TfLiteOpaqueContext* context,
                                            TfLiteOpaqueNode* node);
  struct TfLiteAsyncKernel* (*async_kernel_with_data)(
      void* user_data, TfLiteOpaqueContext* context, TfLiteOpaqueNode* node);
};

/* ---- Create / delete ---------------------------------------------------- */

TfLiteOperator* TfLiteOperatorCreateWithData(TfLiteBuiltinOperator builtin_code,
                                             const char* custom_name,
                                             int version, void* user_data) {
  if ((int)builtin_code < 0 || (int)builtin_code > LG_BUILTIN_CODE_MAX) {
    return NULL;
  }
  if (version < 1) return NULL;
  if (builtin_code == kTfLiteBuiltinCustom &&
      (custom_name == NULL || custom_name[0] == '\0')) {
    return NULL;
  }
  TfLiteOperator* op = calloc(1, sizeof(*op));
  if (op == NULL) return NULL;
  /* A builtin may carry a name too (a delegate kernel names its delegate). */
  if (custom_name != NULL) {
    size_t len = strlen(custom_name) + 1;
    op->custom_name = malloc(len);
    if (op->custom_name == NULL) {
      free(op);
      return NULL;
    }
    memcpy(op->custom_name, custom_name, len);
  }
  op->builtin_code = builtin_code;
  op->version = version;
  op->user_data = user_data;
  return op;
}

TfLiteOperator* TfLiteOperatorCreate(TfLiteBuiltinOperator builtin_code,
                                     const char* custom_name, int version) {
  return TfLiteOperatorCreateWithData(builtin_code, custom_name, version, NULL);
}

void TfLiteOperatorDelete(TfLiteOperator* registration) {
  if (registration == NULL) return;
  free(registration->custom_name);
  free(registration);
}

/* ---- Getters ------------------------------------------------------------ */

TfLiteBuiltinOperator TfLiteOperatorGetBuiltInCode(
    const TfLiteOperator* registration) {
  /* TFLite has no error value here; a NULL operator reads as custom. */
  if (registration == NULL) return kTfLiteBuiltinCustom;
  return registration->builtin_code;
}

const char* TfLiteOperatorGetCustomName(const TfLiteOperator* registration) {
  return registration == NULL ? NULL : registration->custom_name;
}

int TfLiteOperatorGetVersion(const TfLiteOperator* registration) {
  return registration == NULL ? -1 : registration->version;
}

void* TfLiteOperatorGetUserData(const TfLiteOperator* registration) {
  return registration == NULL ? NULL : registration->user_data;
}

/* ---- Setters ------------------------------------------------------------ */

void TfLiteOperatorSetInit(TfLiteOperator* registration,
                           void* (*init)(TfLiteOpaqueContext* context,
                                         const char* buffer, size_t length)) {
  if (registration != NULL) registration->init = init;
}

TfLiteStatus TfLiteOperatorSetInitWithData(
    TfLiteOperator* registration,
    void* (*init)(void* user_data, TfLiteOpaqueContext* context,
                  const char* buffer, size_t length)) {
  if (registration == NULL) return kTfLiteError;
  registration->init_with_data = init;
  return kTfLiteOk;
}

void TfLiteOperatorSetFree(TfLiteOperator* registration,
                           void (*free_fn)(TfLiteOpaqueContext* context,
                                           void* data)) {
  if (registration != NULL) registration->free = free_fn;
}

TfLiteStatus TfLiteOperatorSetFreeWithData(
    TfLiteOperator* registration,
    void (*free_fn)(void* user_data, TfLiteOpaqueContext* context,
                    void* data)) {
  if (registration == NULL) return kTfLiteError;
  registration->free_with_data = free_fn;
  return kTfLiteOk;
}

void TfLiteOperatorSetPrepare(
    TfLiteOperator* registration,
    TfLiteStatus (*prepare)(TfLiteOpaqueContext* context,
                            TfLiteOpaqueNode* node)) {
  if (registration != NULL) registration->prepare = prepare;
}

TfLiteStatus TfLiteOperatorSetPrepareWithData(
    TfLiteOperator* registration,
    TfLiteStatus (*prepare)(void* user_data, TfLiteOpaqueContext* context,
                            TfLiteOpaqueNode* node)) {
  if (registration == NULL) return kTfLiteError;
  registration->prepare_with_data = prepare;
  return kTfLiteOk;
}

void TfLiteOperatorSetInvoke(
    TfLiteOperator* registration,
    TfLiteStatus (*invoke)(TfLiteOpaqueContext* context,
                           TfLiteOpaqueNode* node)) {
  if (registration != NULL) registration->invoke = invoke;
}

TfLiteStatus TfLiteOperatorSetInvokeWithData(
    TfLiteOperator* registration,
    TfLiteStatus (*invoke)(void* user_data, TfLiteOpaqueContext* context,
                           TfLiteOpaqueNode* node)) {
  if (registration == NULL) return kTfLiteError;
  registration->invoke_with_data = invoke;
  return kTfLiteOk;
}

void TfLiteOperatorSetAsyncKernel(
    TfLiteOperator* registration,
    struct TfLiteAsyncKernel* (*async_kernel)(TfLiteOpaqueContext* context,
                                              TfLiteOpaqueNode* node)) {
  if (registration != NULL) registration->async_kernel = async_kernel;
}

TfLiteStatus TfLiteOperatorSetAsyncKernelWithData(
    TfLiteOperator* registration,
    struct TfLiteAsyncKernel* (*async_kernel)(void* user_data,
                                              TfLiteOpaqueContext* context,
                                              TfLiteOpaqueNode* node)) {
  if (registration == NULL) return kTfLiteError;
  registration->async_kernel_with_data = async_kernel;
  return kTfLiteOk;
}

void TfLiteOperatorSetInplaceOperator(TfLiteOperator* registration,
                                      uint64_t inplace_operator) {
  if (registration != NULL) registration->inplace_operator = inplace_operator;
}

/* ---- Internal view (runtime/operator.h) --------------------------------- */

TfLiteRegistration lg_operator_registration(const TfLiteOperator* op) {
  TfLiteRegistration reg;
  memset(&reg, 0, sizeof(reg));
  if (op == NULL) return reg;
  reg.builtin_code = op->builtin_code;
  reg.custom_name = op->custom_name;
  reg.version = op->version;
  reg.registration_external = (TfLiteOperator*)op;
  reg.inplace_operator = op->inplace_operator;
  return reg;
}

bool lg_operator_has_async_kernel_only(const TfLiteOperator* op) {
  if (op == NULL) return false;
  const bool has_async =
      op->async_kernel != NULL || op->async_kernel_with_data != NULL;
  const bool has_invoke = op->invoke != NULL || op->invoke_with_data != NULL;
  return has_async && !has_invoke;
}

struct TfLiteAsyncKernel* lg_operator_async_kernel(const TfLiteOperator* op,
                                                   TfLiteOpaqueContext* context,
                                                   TfLiteOpaqueNode* node) {
  if (op == NULL) return NULL;
  if (op->async_kernel_with_data != NULL) {
    return op->async_kernel_with_data(op->user_data, context, node);
  }
  return op->async_kernel != NULL ? op->async_kernel(context, node) : NULL;
}

bool lg_operator_has_callbacks(const TfLiteOperator* op) {
  if (op == NULL) return false;
  return op->init != NULL || op->init_with_data != NULL || op->free != NULL ||
         op->free_with_data != NULL || op->prepare != NULL ||
         op->prepare_with_data != NULL || op->invoke != NULL ||
         op->invoke_with_data != NULL || op->async_kernel != NULL ||
         op->async_kernel_with_data != NULL;
}

void lg_operator_set_builtin_code(TfLiteOperator* op,
                                  TfLiteBuiltinOperator builtin_code) {
  if (op != NULL) op->builtin_code = builtin_code;
}

TfLiteOperator* lg_operator_describe(const TfLiteRegistration* registration) {
  TfLiteOperator* op = calloc(1, sizeof(*op));
  if (op == NULL) return NULL;
  if (registration->custom_name != NULL) {
    op->custom_name = strdup(registration->custom_name);
    if (op->custom_name == NULL) {
      free(op);
      return NULL;
    }
  }
  op->builtin_code = (TfLiteBuiltinOperator)registration->builtin_code;
  op->version = registration->version;
  return op;
}

/* ---- Dispatchers (runtime/interpreter.h) -------------------------------- */

/* The operator's callbacks take precedence; a registration that has
 * registration_external but lacks a callback falls back to its own plain one,
 * and a missing callback is a no-op. */

static TfLiteOpaqueContext* opaque_context(TfLiteContext* context) {
  return (TfLiteOpaqueContext*)context;
}

static TfLiteOpaqueNode* opaque_node(TfLiteNode* node) {
  return (TfLiteOpaqueNode*)node;
}

void* lg_registration_init(TfLiteContext* context,
                           const TfLiteRegistration* registration,
                           const char* buffer, size_t length) {
  if (registration == NULL) return NULL;
  const TfLiteOperator* op = registration->registration_external;
  if (op != NULL && op->init_with_data != NULL) {
    return op->init_with_data(op->user_data, opaque_context(context), buffer,
                              length);
  }
  if (op != NULL && op->init != NULL) {
    return op->init(opaque_context(context), buffer, length);
  }
  if (registration->init != NULL) {
    return registration->init(context, buffer, length);
  }
  return NULL;
}

void lg_registration_free(TfLiteContext* context,
                          const TfLiteRegistration* registration, void* data) {
  if (registration == NULL) return;
  const TfLiteOperator* op = registration->registration_external;
  if (op != NULL && op->free_with_data != NULL) {
    op->free_with_data(op->user_data, opaque_context(context), data);
  } else if (op != NULL && op->free != NULL) {
    op->free(opaque_context(context), data);
  } else if (registration->free != NULL) {
    registration->free(context, data);
  }
}

TfLiteStatus lg_registration_prepare(TfLiteContext* context,
                                     const TfLiteRegistration* registration,
                                     TfLiteNode* node) {
  if (registration == NULL) return kTfLiteError;
  const TfLiteOperator* op = registration->registration_external;
  if (op != NULL && op->prepare_with_data != NULL) {
    return op->prepare_with_data(op->user_data, opaque_context(context),
                                 opaque_node(node));
  }
  if (op != NULL && op->prepare != NULL) {
    return op->prepare(opaque_context(context), opaque_node(node));
  }
  if (registration->prepare != NULL) {
    return registration->prepare(context, node);
  }
  return kTfLiteOk;
}

TfLiteStatus lg_registration_invoke(TfLiteContext* context,
                                    const TfLiteRegistration* registration,
                                    TfLiteNode* node) {
  if (registration == NULL) return kTfLiteError;
  const TfLiteOperator* op = registration->registration_external;
  if (op != NULL && op->invoke_with_data != NULL) {
    return op->invoke_with_data(op->user_data, opaque_context(context),
                                opaque_node(node));
  }
  if (op != NULL && op->invoke != NULL) {
    return op->invoke(opaque_context(context), opaque_node(node));
  }
  if (registration->invoke != NULL) {
    return registration->invoke(context, node);
  }
  if (op != NULL) {
    /* An operator without any Invoke would leave its outputs unwritten. */
    if (context != NULL && context->ReportError != NULL) {
      if (op->custom_name != NULL) {
        context->ReportError(context, "Operator '%s' version %d has no Invoke.",
                             op->custom_name, op->version);
      } else {
        context->ReportError(context,
                             "Operator with builtin code %d version %d has no "
                             "Invoke.",
                             (int)op->builtin_code, op->version);
      }
    }
    return kTfLiteError;
  }
  return kTfLiteOk;
}
