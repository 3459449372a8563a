/* TfLiteAsyncKernel: how a delegate kernel runs asynchronously (TFLite's
 * tensorflow/lite/core/async/c/async_kernel.h, the execution part).
 *
 * A delegate kernel's registration returns one from its async_kernel slot
 * (TfLiteRegistration.async_kernel, TfLiteOperatorSetAsyncKernel). When a
 * signature's subgraph is that one delegate node, the async signature
 * runner calls it instead of running Invoke on its worker thread:
 *   eval    on the InvokeAsync caller's thread, with the input and output
 *           tensors' data pointing at the task's buffers: schedules the
 *           work, returns at once;
 *   wait    blocks until the work of `task` is done and its outputs are in
 *           the task's buffers;
 *   finish  once per task, when the application finishes it.
 * Before those, the runner asks the kernel for its synchronization types
 * (supported_synchronizations: the runner's
 * GetSupportedSynchronizationTypes, ReconcileRestrictions and SetAttributes
 * of sync maps accept those types, and kTfLiteSyncTypeNoSyncObj) and hands
 * each sync attribute map set on a tensor to set_attributes, with the
 * tensor's index. In eval the kernel reads the task's synchronizations
 * (TfLiteExecutionTaskGetSyncByIndex): an input's it waits on, an output's
 * it fills (TfLiteSynchronizationSetPtr). Buffer registration stays with
 * the runner (host memory): the task's buffers are the kernel's input and
 * output tensors' data during eval (a kernel keeps the pointers it needs
 * until wait). Several tasks may be evaluated before their waits.
 * TfLiteOpaqueContext and TfLiteOpaqueNode are the TfLiteContext and
 * TfLiteNode of the delegate kernel. */
#ifndef TENSORFLOW_LITE_CORE_ASYNC_C_ASYNC_KERNEL_H_
#define TENSORFLOW_LITE_CORE_ASYNC_C_ASYNC_KERNEL_H_

#include "tensorflow/lite/c/c_api_types.h"
#include "tensorflow/lite/c/common.h"
#include "tensorflow/lite/core/async/c/types.h"
#include "tensorflow/lite/core/async/interop/c/attribute_map.h"
#include "tensorflow/lite/core/async/interop/c/types.h"

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

/* Buffer registration: called by the runner's RegisterBuffer,
 * RegisterBufferSlice and UnregisterBuffer after its own checks, with the
 * handle it assigned; an error undoes the registration. */
TFL_CAPI_EXPORT extern void TfLiteAsyncKernelSetRegisterBuffer(
    TfLiteAsyncKernel* async_kernel,
    TfLiteStatus (*register_buffer)(
        TfLiteAsyncKernel* async_kernel, TfLiteOpaqueContext* context,
        TfLiteIoType io_type, const TfLiteBackendBuffer* buffer,
        const TfLiteAttributeMap* attrs, TfLiteBufferHandle handle));
TFL_CAPI_EXPORT extern void TfLiteAsyncKernelSetRegisterBufferSlice(
    TfLiteAsyncKernel* async_kernel,
    TfLiteStatus (*register_buffer_slice)(TfLiteAsyncKernel* async_kernel,
                                          TfLiteOpaqueContext* context,
                                          TfLiteBufferHandle buffer_pool,
                                          const TfLiteAttributeMap* attrs,
                                          TfLiteBufferHandle handle));
TFL_CAPI_EXPORT extern void TfLiteAsyncKernelSetUnregisterBuffer(
    TfLiteAsyncKernel* async_kernel,
    TfLiteStatus (*unregister_buffer)(TfLiteAsyncKernel* async_kernel,
                                      TfLiteOpaqueContext* context,
                                      TfLiteBufferHandle handle));

/* The buffer type names the kernel takes (the runner's
 * GetSupportedBufferTypes; RegisterBuffer accepts them besides
 * host_memory). A buffer of another type than host_memory is the kernel's
 * to find (TfLiteExecutionTaskGetBufferByIndex): the tensors keep their
 * own data for it. */
TFL_CAPI_EXPORT extern void TfLiteAsyncKernelSetSupportedBufferTypes(
    TfLiteAsyncKernel* async_kernel,
    void (*supported_buffer_types)(const TfLiteAsyncKernel* async_kernel,
                                   TfLiteIoType io_type,
                                   const char* const** types, size_t* n_types));

/* Replaces the runner's reconciliation of buffer and sync maps
 * (ReconcileRestrictions, and SetAttributes' check) for the tensor
 * `tensor_index`; true when there is no conflict. */
TFL_CAPI_EXPORT extern void TfLiteAsyncKernelSetReconcileRestrictions(
    TfLiteAsyncKernel* async_kernel,
    bool (*reconcile_restrictions)(
        const TfLiteAsyncKernel* async_kernel,
        const TfLiteOpaqueContext* context, const TfLiteOpaqueNode* node,
        int tensor_index, const TfLiteAttributeMap* user_provided_attributes,
        TfLiteAttributeMap* merged, TfLiteAttributeMap* conflict));

/* Called by the runner's PrepareBackends, after the tensors are allocated;
 * an error fails it. */
TFL_CAPI_EXPORT extern void TfLiteAsyncKernelSetPrepare(
    TfLiteAsyncKernel* async_kernel,
    TfLiteStatus (*prepare)(TfLiteAsyncKernel* async_kernel,
                            TfLiteOpaqueContext* context,
                            TfLiteOpaqueNode* node));

/* The synchronization type names the kernel takes for inputs or outputs
 * (`types` must outlive the kernel). */
TFL_CAPI_EXPORT extern void TfLiteAsyncKernelSetSupportedSynchronizations(
    TfLiteAsyncKernel* async_kernel,
    void (*supported_synchronizations)(const TfLiteAsyncKernel* async_kernel,
                                       TfLiteIoType io_type,
                                       const char* const** types,
                                       size_t* n_types));

/* Receives the attribute map set on the tensor `tensor_index` (a buffer
 * or a sync map, reconciled by the runner); an error fails SetAttributes. */
TFL_CAPI_EXPORT extern void TfLiteAsyncKernelSetSetAttributes(
    TfLiteAsyncKernel* async_kernel,
    TfLiteStatus (*set_attributes)(TfLiteAsyncKernel* async_kernel,
                                   TfLiteOpaqueContext* context,
                                   TfLiteOpaqueNode* node, int tensor_index,
                                   const TfLiteAttributeMap* attrs));

/* Releases the kernel, not its kernel_data. NULL is a no-op. */
TFL_CAPI_EXPORT extern void TfLiteAsyncKernelDelete(
    TfLiteAsyncKernel* async_kernel);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TENSORFLOW_LITE_CORE_ASYNC_C_ASYNC_KERNEL_H_ */
