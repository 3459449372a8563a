/* litegpu: TfLiteExecutionTask, one execution of an async signature
 * (async_signature_runner.h): which registered buffer and which
 * synchronization each input and output uses, and the latest status.
 *
 * Tensors are named by their signature names and an io_type
 * (kTfLiteIoTypeInput / kTfLiteIoTypeOutput). A task starts with no buffer
 * (kTfLiteNullBufferHandle) and no synchronization for every tensor; every
 * one needs a buffer before InvokeAsync. Setters fail, and getters return
 * the empty value, for an unknown name, an unknown io_type or NULL
 * arguments, and report on the interpreter's reporter. Changing a task
 * while it runs (between InvokeAsync and Wait) is an error.
 *
 * TFLite's TfLiteExecutionTask{Get,Set}DelegateExecutionData are left out:
 * they serve async kernels, which litegpu does not run. */
#ifndef TENSORFLOW_LITE_CORE_ASYNC_C_TASK_H_
#define TENSORFLOW_LITE_CORE_ASYNC_C_TASK_H_

#include <stdint.h>

#include "tensorflow/lite/c/c_api_types.h"
#include "tensorflow/lite/c/common.h"
#include "tensorflow/lite/core/async/c/types.h"
#include "tensorflow/lite/core/async/interop/c/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Binds the registered buffer `handle` to the tensor. The handle is checked
 * when the task runs (it may be registered after this call). */
TFL_CAPI_EXPORT TfLiteStatus TfLiteExecutionTaskSetBuffer(
    TfLiteExecutionTask* task, int32_t io_type,
    const char* tensor_signature_name, TfLiteBufferHandle handle);

TFL_CAPI_EXPORT TfLiteBufferHandle TfLiteExecutionTaskGetBufferByName(
    const TfLiteExecutionTask* task, int32_t io_type,
    const char* tensor_signature_name);

/* By the tensor's index in the signature's subgraph. */
TFL_CAPI_EXPORT TfLiteBufferHandle TfLiteExecutionTaskGetBufferByIndex(
    const TfLiteExecutionTask* task, int tensor_index);

/* Associates a synchronization object with the tensor; the task does not
 * own it. NULL, or one whose pointer is NULL, means kTfLiteSyncTypeNoSyncObj
 * (the only type litegpu supports; InvokeAsync refuses another). */
TFL_CAPI_EXPORT TfLiteStatus TfLiteExecutionTaskSetSync(
    TfLiteExecutionTask* task, int32_t io_type,
    const char* tensor_signature_name, TfLiteSynchronization* sync);

TFL_CAPI_EXPORT TfLiteSynchronization* TfLiteExecutionTaskGetSyncByName(
    const TfLiteExecutionTask* task, int32_t io_type,
    const char* tensor_signature_name);

TFL_CAPI_EXPORT TfLiteSynchronization* TfLiteExecutionTaskGetSyncByIndex(
    const TfLiteExecutionTask* task, int tensor_index);

/* The task's latest status, thread-safe: kTfLiteOk before it first runs
 * and while it runs, then the status of its last execution. */
TFL_CAPI_EXPORT TfLiteStatus
TfLiteExecutionTaskGetStatus(const TfLiteExecutionTask* task);

TFL_CAPI_EXPORT void TfLiteExecutionTaskSetStatus(
    const TfLiteExecutionTask* task, TfLiteStatus status);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_LITE_CORE_ASYNC_C_TASK_H_ */
