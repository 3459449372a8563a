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
 * the API object itself (a cl_event, a VkFence) or the caller's struct
 * that names it (litegpu_vk_timeline_point). A signature that is one
 * GPU-delegated node offers its backend's types besides
 * kTfLiteSyncTypeNoSyncObj
 * (TfLiteAsyncSignatureRunnerGetSupportedSynchronizationTypes): OpenCL
 * LITEGPU_SYNC_TYPE_CL_EVENT for inputs and outputs; Vulkan
 * LITEGPU_SYNC_TYPE_VK_TIMELINE_SEMAPHORE and LITEGPU_SYNC_TYPE_VK_FENCE
 * for inputs and outputs. Choose one for a tensor with
 * TfLiteAsyncSignatureRunnerSetAttributes (a sync map) before PrepareBackends.
 * Objects belong to the delegate's device (litegpu_gpu_delegate_get_device).
 * Other signatures (the CPU path) take kTfLiteSyncTypeNoSyncObj only.
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
 * LITEGPU_SYNC_TYPE_VK_TIMELINE_SEMAPHORE, Vulkan, a
 * litegpu_vk_timeline_point (below): a timeline semaphore (Vulkan 1.2, or
 * VK_KHR_timeline_semaphore, which the delegate enables when the device
 * has the timelineSemaphore feature; on a device without it, InvokeAsync
 * refuses the point, saying so) and a value. Create the semaphore on the
 * delegate's VkDevice (litegpu_gpu_delegate_get_device; with
 * VkSemaphoreTypeCreateInfo, VK_SEMAPHORE_TYPE_TIMELINE). The semaphore
 * and the struct stay the caller's: the delegate reads the struct during
 * InvokeAsync only and never destroys, resets or waits the semaphore
 * past its value.
 *   input   the run waits until the semaphore's value is at least `value`:
 *           on the device (the wait of the submission that runs the
 *           dispatches) for an input bound to a VkBuffer
 *           (litegpu_gpu_delegate_bind_vulkan_buffer), whose bytes the
 *           device reads then; on the host, inside InvokeAsync, for an
 *           input in host memory (copied to the device when enqueued) or
 *           converted on the host (float16, quantized). Signal it from the
 *           host (vkSignalSemaphore) or a queue. InvokeAsync sets the
 *           task's pointer to NULL (consumed): give it again for each
 *           InvokeAsync.
 *   output  the submission that runs the dispatches signals `value` once
 *           they are done, so an output bound to a VkBuffer holds its bytes
 *           when the semaphore reaches it; the caller's own queue work on
 *           the device, or a host vkWaitSemaphores, can wait for it before
 *           Wait. Outputs in host memory are copied out of a readback
 *           buffer on the host in Wait, so InvokeAsync refuses a point on
 *           them, naming the tensor. The pointer is left as it was. If
 *           InvokeAsync fails the point may never be signalled.
 *
 * LITEGPU_SYNC_TYPE_VK_FENCE, Vulkan, a VkFence of the delegate's VkDevice;
 * it stays the caller's (never reset or destroyed by the delegate):
 *   input   InvokeAsync waits on the host for the fence before it copies the
 *           input to the device.
 *   output  an unsignalled fence (InvokeAsync refuses a signalled one
 *           before anything runs, naming the tensor; reset it with
 *           vkResetFences to give it again) that signals once the run is
 *           done and the output's bytes are in the VkBuffer bound to it
 *           (litegpu_gpu_delegate_bind_vulkan_buffer), visible to the host
 *           for host-coherent memory: after the run's submissions,
 *           InvokeAsync submits no work with the fence (vkQueueSubmit with
 *           no batch), which Vulkan signals once all work submitted to the
 *           queue before it has completed. It must not be in use by another
 *           submission. Outputs in host memory are refused as for a
 *           timeline point. The pointer is left as it was. If InvokeAsync
 *           fails after the run was enqueued, a fence may still signal.
 *
 * Dispatch profiling (litegpu_gpu_delegate_enable_profiling) keeps
 * InvokeAsync non-blocking on Vulkan devices that write timestamps (the
 * dispatches are timed on the device, read in Wait). On a device that
 * does not, and on OpenCL, profiling waits for each dispatch on the host
 * inside InvokeAsync, so InvokeAsync then refuses an input's
 * synchronization object, naming the tensor, rather than block until it
 * signals. */
#define LITEGPU_SYNC_TYPE_CL_EVENT "litegpu_cl_event"
#define LITEGPU_SYNC_TYPE_VK_TIMELINE_SEMAPHORE "litegpu_vk_timeline_semaphore"
#define LITEGPU_SYNC_TYPE_VK_FENCE "litegpu_vk_fence"

#include <stdint.h>

/* A point on a Vulkan timeline semaphore: LITEGPU_SYNC_TYPE_VK_TIMELINE_
 * SEMAPHORE's object. `semaphore` is the VkSemaphore handle cast to
 * uint64_t (this header does not need vulkan.h). */
typedef struct litegpu_vk_timeline_point {
  uint64_t semaphore;
  uint64_t value;
} litegpu_vk_timeline_point;

#endif /* LITEGPU_ASYNC_H_ */
