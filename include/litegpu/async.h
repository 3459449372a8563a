/* litegpu's names for TFLite's asynchronous API
 * (tensorflow/lite/core/async/c/async_signature_runner.h). */
#ifndef LITEGPU_ASYNC_H_
#define LITEGPU_ASYNC_H_

/* The buffer type (kTfLiteBufferAttrKeyResourceTypeName) of host memory:
 * the TfLiteBackendBuffer's pointer is the address of the bytes. TFLite
 * defines no host type of its own; its Android type names
 * ("ahardware_buffer_blob") are not supported. */
#define LITEGPU_BUFFER_TYPE_HOST_MEMORY "host_memory"

/* Synchronization types (kTfLiteSynchronizationAttrKeyObjectTypeName) of
 * the GPU delegate's async kernel: the TfLiteSynchronization's pointer is
 * the API object itself. A signature that is one GPU-delegated node offers
 * its backend's type besides kTfLiteSyncTypeNoSyncObj
 * (TfLiteAsyncSignatureRunnerGetSupportedSynchronizationTypes); choose it
 * for a tensor with TfLiteAsyncSignatureRunnerSetAttributes (a sync map)
 * before PrepareBackends. Objects belong to the delegate's device
 * (litegpu_gpu_delegate_get_device). Other signatures (the CPU path) take
 * kTfLiteSyncTypeNoSyncObj only.
 *
 * LITEGPU_SYNC_TYPE_CL_EVENT, OpenCL, a cl_event:
 *   input   the device reads the input's buffer once the event completes
 *           (the queue waits for it; a host wait for an input converted on
 *           the host, e.g. to float16). InvokeAsync takes over the
 *           reference the task carries (it releases it, as TFLite's backends
 *           close input syncs) and sets the task's pointer to NULL: give a
 *           new event for each InvokeAsync.
 *   output  when the task carries a TfLiteSynchronization for the output,
 *           InvokeAsync sets its pointer to an event that completes when the
 *           output's bytes are in its buffer (host memory). The caller owns
 *           that reference: clReleaseEvent it, waited for or not. An output
 *           the delegate converts on the host (float16 or quantized storage
 *           on the device) is ready only after Wait, so InvokeAsync refuses
 *           an output sync on it, naming the tensor.
 *   Wait stays valid and still required before the task is run again.
 *
 * LITEGPU_SYNC_TYPE_VK_FENCE, Vulkan, a VkFence (inputs only):
 *   input   InvokeAsync waits on the host for the fence before it copies the
 *           input to the device; the fence stays the caller's (not reset, not
 *           destroyed). Outputs take kTfLiteSyncTypeNoSyncObj: Vulkan's
 *           downloads are copied out of a readback buffer on the host, so no
 *           device object signals them in the output's buffer. */
#define LITEGPU_SYNC_TYPE_CL_EVENT "litegpu_cl_event"
#define LITEGPU_SYNC_TYPE_VK_FENCE "litegpu_vk_fence"

#endif /* LITEGPU_ASYNC_H_ */
