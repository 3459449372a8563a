/* litegpu: TFLite's asynchronous signature runner.
 *
 * An async signature runner runs one signature of an interpreter in the
 * background. The application registers buffers (host memory: the
 * buffer type LITEGPU_BUFFER_TYPE_HOST_MEMORY, litegpu/async.h), creates
 * tasks, binds buffers to the signature's inputs and outputs in each task,
 * and schedules them with InvokeAsync; Wait blocks until a task is done.
 *
 *   TfLiteAsyncSignatureRunner* r =
 *       TfLiteInterpreterGetAsyncSignatureRunner(interpreter, "serving");
 *   TfLiteAsyncSignatureRunnerPrepareBackends(r);
 *   TfLiteBackendBuffer* b = TfLiteBackendBufferCreate();
 *   TfLiteBackendBufferSetPtr(b, input_bytes);
 *   TfLiteAttributeMap* a = TfLiteAttributeMapCreate(kTfLiteAttrMapTypeBuffer);
 *   TfLiteAttributeMapSetStringBufferAttr(
 *       a, kTfLiteBufferAttrKeyResourceTypeName,
 *       LITEGPU_BUFFER_TYPE_HOST_MEMORY);
 *   TfLiteAttributeMapSetSizeTBufferAttr(a, kTfLiteBufferAttrKeySize, n);
 *   TfLiteBufferHandle h;
 *   TfLiteAsyncSignatureRunnerRegisterBuffer(r, kTfLiteIoTypeInput, b, a, &h);
 *   TfLiteExecutionTask* t = TfLiteAsyncSignatureRunnerCreateTask(r);
 *   TfLiteExecutionTaskSetBuffer(t, kTfLiteIoTypeInput, "x", h);
 *   ... (an output buffer likewise)
 *   TfLiteAsyncSignatureRunnerInvokeAsync(r, t);
 *   ... other work ...
 *   TfLiteAsyncSignatureRunnerWait(r, t);
 *   TfLiteAsyncSignatureRunnerFinish(r, t);
 *
 * Execution: each runner has one worker thread that runs its scheduled
 * tasks in order of InvokeAsync, each as the signature's synchronous
 * Invoke (delegates included: a GPU-delegated graph runs its partitions
 * from the worker). A task copies its input buffers into the signature's
 * input tensors, invokes, and copies the outputs into its output buffers,
 * so several tasks may be in flight and their buffers stay the
 * application's. The runners of one interpreter run their tasks one at a
 * time. While any task of an interpreter is in flight, its Invoke,
 * AllocateTensors and ResizeInputTensor (and its signature runners') fail
 * with a message, as do SetAttributes and PrepareBackends here.
 *
 * Differences from TFLite: TFLite requires the whole signature delegated to
 * one async kernel; litegpu runs any graph this way and runs no async
 * kernels. Only kTfLiteSyncTypeNoSyncObj synchronization is supported.
 * Wait on a task that was never scheduled is an error (TFLite returns its
 * status); after its first run, Wait returns the latest status. */
#ifndef TENSORFLOW_LITE_CORE_ASYNC_C_ASYNC_SIGNATURE_RUNNER_H_
#define TENSORFLOW_LITE_CORE_ASYNC_C_ASYNC_SIGNATURE_RUNNER_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_types.h"
#include "tensorflow/lite/c/common.h"
#include "tensorflow/lite/core/async/c/types.h"
#include "tensorflow/lite/core/async/interop/c/attribute_map.h"
#include "tensorflow/lite/core/async/interop/c/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TfLiteAsyncSignatureRunner TfLiteAsyncSignatureRunner;

/* A runner for the signature `signature_key`; NULL (reported) for an
 * unknown key. A NULL key gives a runner over subgraph 0's inputs and
 * outputs (the interpreter's), named by their tensors' names. Delete it
 * before the interpreter. */
TFL_CAPI_EXPORT TfLiteAsyncSignatureRunner*
TfLiteInterpreterGetAsyncSignatureRunner(const TfLiteInterpreter* interpreter,
                                         const char* signature_key);

/* Registers `buffer` (its pointer: host memory the application keeps alive
 * until it unregisters the buffer) and fills `handle`. `attrs` is a buffer
 * map with kTfLiteBufferAttrKeyResourceTypeName
 * LITEGPU_BUFFER_TYPE_HOST_MEMORY and kTfLiteBufferAttrKeySize (bytes);
 * a kTfLiteBufferAttrKeyOffset skips that many bytes of the pointer. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteAsyncSignatureRunnerRegisterBuffer(
    TfLiteAsyncSignatureRunner* async_signature_runner, TfLiteIoType io_type,
    const TfLiteBackendBuffer* buffer, const TfLiteAttributeMap* attrs,
    TfLiteBufferHandle* handle);

/* Registers the bytes [offset, offset + size) of the registered buffer
 * `buffer_pool` (not itself a slice), from `attrs`' kTfLiteBufferAttrKeyOffset
 * (default 0) and kTfLiteBufferAttrKeySize (required). */
TFL_CAPI_EXPORT TfLiteStatus TfLiteAsyncSignatureRunnerRegisterBufferSlice(
    TfLiteAsyncSignatureRunner* async_signature_runner,
    TfLiteBufferHandle buffer_pool, const TfLiteAttributeMap* attrs,
    TfLiteBufferHandle* handle);

/* Fails for an unknown handle, a pool whose slices are still registered,
 * and a buffer a task in flight uses. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteAsyncSignatureRunnerUnregisterBuffer(
    TfLiteAsyncSignatureRunner* async_signature_runner,
    TfLiteBufferHandle handle);

/* The buffer (synchronization) type names the runner takes, valid as long
 * as the runner. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteAsyncSignatureRunnerGetSupportedBufferTypes(
    const TfLiteAsyncSignatureRunner* async_signature_runner,
    TfLiteIoType io_type, const char* const** types, size_t* num_types);
TFL_CAPI_EXPORT TfLiteStatus
TfLiteAsyncSignatureRunnerGetSupportedSynchronizationTypes(
    const TfLiteAsyncSignatureRunner* async_signature_runner,
    TfLiteIoType io_type, const char* const** types, size_t* num_types);

/* Merges `user_provided_attributes` (a buffer or sync map) for tensor
 * `name` with the runner's restrictions into `merged`: a buffer's type
 * must be host memory and its size at least the tensor's bytes (an absent
 * size becomes the tensor's); a sync's type must be
 * kTfLiteSyncTypeNoSyncObj (absent: set to it). Attributes the runner does
 * not check are copied. Each conflicting attribute goes, with the runner's
 * value, into `conflict` when given. True when nothing conflicts. */
TFL_CAPI_EXPORT bool TfLiteAsyncSignatureRunnerReconcileRestrictions(
    const TfLiteAsyncSignatureRunner* async_signature_runner,
    TfLiteIoType io_type, const char* name,
    const TfLiteAttributeMap* user_provided_attributes,
    TfLiteAttributeMap* merged, TfLiteAttributeMap* conflict);

/* As ReconcileRestrictions, by the tensor's index in the subgraph. */
TFL_CAPI_EXPORT bool TfLiteAsyncSignatureRunnerReconcileRestrictionsByIndex(
    const TfLiteAsyncSignatureRunner* async_signature_runner, int tensor_index,
    const TfLiteAttributeMap* user_provided_attributes,
    TfLiteAttributeMap* merged, TfLiteAttributeMap* conflict);

/* Checks `attrs` for tensor `name` (as ReconcileRestrictions; a conflict
 * fails) and requires PrepareBackends again before CreateTask. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteAsyncSignatureRunnerSetAttributes(
    TfLiteAsyncSignatureRunner* async_signature_runner, TfLiteIoType io_type,
    const char* name, const TfLiteAttributeMap* attrs);

/* As SetAttributes, by the tensor's index in the subgraph. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteAsyncSignatureRunnerSetAttributesByIndex(
    TfLiteAsyncSignatureRunner* async_signature_runner, int tensor_index,
    const TfLiteAttributeMap* attrs);

/* Allocates the signature's tensors; fails for a STRING, RESOURCE or
 * VARIANT input or output (their bytes are not a fixed-size copy). Needed
 * before CreateTask. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteAsyncSignatureRunnerPrepareBackends(
    TfLiteAsyncSignatureRunner* async_signature_runner);

/* A new task, released by Finish; NULL (reported) before PrepareBackends. */
TFL_CAPI_EXPORT TfLiteExecutionTask* TfLiteAsyncSignatureRunnerCreateTask(
    TfLiteAsyncSignatureRunner* async_signature_runner);

/* Schedules `task` and returns. Fails, without scheduling, when the task is
 * already in flight, belongs to another runner, or an input or output has
 * no registered buffer, a buffer smaller than the tensor or a sync object
 * litegpu does not support. Wait must follow. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteAsyncSignatureRunnerInvokeAsync(
    TfLiteAsyncSignatureRunner* async_signature_runner,
    TfLiteExecutionTask* task);

/* Blocks until `task`'s execution ends and returns its status; may be
 * called from several threads. A task already done returns its latest
 * status; a task never scheduled is an error. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteAsyncSignatureRunnerWait(
    TfLiteAsyncSignatureRunner* async_signature_runner,
    TfLiteExecutionTask* task);

/* Waits for `task` if it is in flight, then deletes it; returns the wait's
 * status. Called once per task, not concurrently with InvokeAsync or Wait
 * on it. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteAsyncSignatureRunnerFinish(
    TfLiteAsyncSignatureRunner* async_signature_runner,
    TfLiteExecutionTask* task);

TFL_CAPI_EXPORT size_t TfLiteAsyncSignatureRunnerGetInputCount(
    const TfLiteAsyncSignatureRunner* async_signature_runner);
/* NULL (reported) for an index out of range. */
TFL_CAPI_EXPORT const char* TfLiteAsyncSignatureRunnerGetInputName(
    const TfLiteAsyncSignatureRunner* async_signature_runner,
    int32_t input_index);
TFL_CAPI_EXPORT size_t TfLiteAsyncSignatureRunnerGetOutputCount(
    const TfLiteAsyncSignatureRunner* async_signature_runner);
TFL_CAPI_EXPORT const char* TfLiteAsyncSignatureRunnerGetOutputName(
    const TfLiteAsyncSignatureRunner* async_signature_runner,
    int32_t output_index);

/* The tensor's metadata (type, shape); its data is not the task's. NULL
 * (reported) for an unknown name. */
TFL_CAPI_EXPORT const TfLiteOpaqueTensor*
TfLiteAsyncSignatureRunnerGetInputTensor(
    TfLiteAsyncSignatureRunner* async_signature_runner, const char* input_name);
TFL_CAPI_EXPORT const TfLiteOpaqueTensor*
TfLiteAsyncSignatureRunnerGetOutputTensor(
    const TfLiteAsyncSignatureRunner* async_signature_runner,
    const char* output_name);

/* The subgraph tensor indices of the inputs (outputs), in signature order;
 * GetInputCount (GetOutputCount) entries, valid as long as the runner. */
TFL_CAPI_EXPORT const int* TfLiteAsyncSignatureRunnerInputTensorIndices(
    const TfLiteAsyncSignatureRunner* async_signature_runner);
TFL_CAPI_EXPORT const int* TfLiteAsyncSignatureRunnerOutputTensorIndices(
    const TfLiteAsyncSignatureRunner* async_signature_runner);

/* The metadata of input or output tensor `index` (a subgraph tensor index);
 * NULL (reported) for another tensor. */
TFL_CAPI_EXPORT const TfLiteOpaqueTensor* TfLiteAsyncSignatureRunnerGetTensor(
    const TfLiteAsyncSignatureRunner* async_signature_runner, int index);

/* Waits for the tasks in flight, stops the worker and deletes the tasks not
 * finished. NULL is a no-op. */
TFL_CAPI_EXPORT void TfLiteAsyncSignatureRunnerDelete(
    TfLiteAsyncSignatureRunner* signature_runner);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_LITE_CORE_ASYNC_C_ASYNC_SIGNATURE_RUNNER_H_ */
