/* TfLiteAsyncKernel: how a delegate kernel runs asynchronously (TFLite's
 * tensorflow/lite/core/async/c/async_kernel.h, the execution part).
 *
 * A delegate kernel's registration returns one from its async_kernel slot
 * (TfLiteRegistration.async_kernel, TfLiteOperatorSetAsyncKernel). When a
 * signature's subgraph is that one delegate node, the async signature
 * runner calls it instead of running Invoke on its worker thread:
 *   eval    on the InvokeAsync caller's thread, after the inputs were
 *           copied into their tensors: schedules the work, returns at once;
 *   wait    blocks until the work of `task` is done and its outputs are in
 *           their tensors (the runner then copies them to the task's
 *           buffers);
 *   finish  once per task, when the application finishes it.
 * litegpu implements the execution callbacks only: buffer registration
 * and attribute reconciliation stay with the runner (host memory).
 * TfLiteOpaqueContext and TfLiteOpaqueNode are the TfLiteContext and
 * TfLiteNode of the delegate kernel. */
#ifndef TENSORFLOW_LITE_CORE_ASYNC_C_ASYNC_KERNEL_H_
#define TENSORFLOW_LITE_CORE_ASYNC_C_ASYNC_KERNEL_H_

#include "tensorflow/lite/c/c_api_types.h"
#include "tensorflow/lite/core/async/c/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A kernel whose callbacks are all unset; `kernel_data` is not owned.
 * NULL when out of memory. */
TFL_CAPI_EXPORT extern TfLiteAsyncKernel* TfLiteAsyncKernelCreate(
    void* kernel_data);

/* The `kernel_data` given to TfLiteAsyncKernelCreate. */
TFL_CAPI_EXPORT extern void* TfLiteAsyncKernelGetKernelData(
    const TfLiteAsyncKernel* async_kernel);

TFL_CAPI_EXPORT extern void TfLiteAsyncKernelSetEval(
    TfLiteAsyncKernel* async_kernel,
    TfLiteStatus (*eval)(TfLiteAsyncKernel* async_kernel,
                         TfLiteOpaqueContext* context, TfLiteOpaqueNode* node,
                         TfLiteExecutionTask* task));

TFL_CAPI_EXPORT extern void TfLiteAsyncKernelSetWait(
    TfLiteAsyncKernel* async_kernel,
    TfLiteStatus (*wait)(TfLiteAsyncKernel* async_kernel,
                         TfLiteOpaqueContext* context,
                         TfLiteExecutionTask* task));

TFL_CAPI_EXPORT extern void TfLiteAsyncKernelSetFinish(
    TfLiteAsyncKernel* async_kernel,
    TfLiteStatus (*finish)(TfLiteAsyncKernel* async_kernel,
                           TfLiteOpaqueContext* context,
                           TfLiteExecutionTask* task));

/* Releases the kernel, not its kernel_data. NULL is a no-op. */
TFL_CAPI_EXPORT extern void TfLiteAsyncKernelDelete(
    TfLiteAsyncKernel* async_kernel);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TENSORFLOW_LITE_CORE_ASYNC_C_ASYNC_KERNEL_H_ */
