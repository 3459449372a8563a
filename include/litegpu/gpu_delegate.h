/* litegpu's extension of the GPU delegate: TFLite's options plus the
 * backend and device choice.
 *
 * Backends: LITEGPU_GPU_BACKEND_OPENCL runs on OpenCL (any OpenCL 1.2
 * device; PoCL on machines without a GPU); LITEGPU_GPU_BACKEND_VULKAN on
 * Vulkan 1.1 (lavapipe without a GPU); LITEGPU_GPU_BACKEND_AUTO takes
 * OpenCL when it has a device, else Vulkan. A backend claims only the ops
 * whose kernels it has.
 *
 * Failure: litegpu_gpu_delegate_create returns NULL and writes the reason
 * into `error` (may be NULL; also printed to stderr when NULL), e.g.
 * "GPU delegate: no usable OpenCL device: clGetPlatformIDs failed: ...";
 * AUTO names both backends' reasons.
 *
 *   litegpu_gpu_delegate_options o = litegpu_gpu_delegate_options_default();
 *   o.backend = LITEGPU_GPU_BACKEND_OPENCL;
 *   char why[1024];
 *   TfLiteDelegate* d = litegpu_gpu_delegate_create(&o, why, sizeof(why));
 *   ... TfLiteGpuDelegateV2Delete(d);
 *
 * Partition programs: each delegated partition is lowered into compute
 * dispatches over device buffers that tensors share by lifetime; only the
 * partition's inputs and outputs cross between host and device, and not
 * those bound to device buffers (see "Zero-copy I/O" below). Kernels run
 * in float32, or with float16 tensors when precision loss is allowed (as
 * TFLite decides it) and the backend and device support half precision
 * (litegpu_gpu_delegate_stats.fp16 says which).
 * Compiled programs are cached in serialization_dir when TFLite's rule
 * allows it (ENABLE_SERIALIZATION, the folder and a model_token, which
 * keys the entries); CL_ONLY keeps to OpenCL and GL_ONLY is refused:
 * tensorflow/lite/delegates/gpu/delegate_options.h says how each option
 * is honoured.
 */
#ifndef LITEGPU_GPU_DELEGATE_H_
#define LITEGPU_GPU_DELEGATE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/delegates/gpu/delegate.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum litegpu_gpu_backend {
  LITEGPU_GPU_BACKEND_AUTO = 0,
  LITEGPU_GPU_BACKEND_OPENCL = 1,
  LITEGPU_GPU_BACKEND_VULKAN = 2,
} litegpu_gpu_backend;

typedef struct litegpu_gpu_delegate_options {
  TfLiteGpuDelegateOptionsV2 tflite;
  litegpu_gpu_backend backend; /* AUTO by default */
  int device_index;            /* among the backend's devices, 0 = first */
  /* Partitions with fewer nodes stay on the CPU (0: no minimum); the
   * benchmark_model flag of the same name. */
  int min_nodes_per_partition;
  /* NULL: the delegate opens its own device. Else a live litegpu GPU
   * delegate whose device (OpenCL context and queue, or Vulkan device and
   * queue) this one shares, so that both bind the same buffers (see
   * "Zero-copy I/O"); backend, device_index, precision and the program
   * cache are then that delegate's. The device lives until the last
   * delegate and buffer on it are deleted; use the delegates from one
   * thread at a time. */
  const TfLiteDelegate* share_device_with;
} litegpu_gpu_delegate_options;

TFL_CAPI_EXPORT litegpu_gpu_delegate_options
litegpu_gpu_delegate_options_default(void);

/* NULL options: the defaults. Returns NULL on failure (see above). */
TFL_CAPI_EXPORT TfLiteDelegate* litegpu_gpu_delegate_create(
    const litegpu_gpu_delegate_options* options, char* error,
    size_t error_size);

/* The partitions the last application kept (-1 for NULL). */
TFL_CAPI_EXPORT int litegpu_gpu_delegate_num_partitions(
    const TfLiteDelegate* delegate);

/* The reason node `node_index` was not delegated by the last application:
 * "" when it was, NULL when the delegate made no decision on it: an index
 * past the graph, or a node that was not in the execution plan the
 * delegate was given (an activation the interpreter fused into its
 * producer). Valid until the next application or deletion. */
TFL_CAPI_EXPORT const char* litegpu_gpu_delegate_node_reason(
    const TfLiteDelegate* delegate, int node_index);

/* One past the largest node index the last application decided on (0
 * before any; -1 for NULL): every decision is at an index below it, and an
 * index below it may have none (see above), so walk them all:
 *
 *   for (int n = 0; n < litegpu_gpu_delegate_num_nodes(d); ++n) {
 *     const char* why = litegpu_gpu_delegate_node_reason(d, n);
 *     if (why != NULL && why[0] != '\0') printf("node %d: %s\n", n, why);
 *   } */
TFL_CAPI_EXPORT int litegpu_gpu_delegate_num_nodes(
    const TfLiteDelegate* delegate);

/* What the delegate did and holds, for reports (benchmark_model). Counters
 * cover every partition of the last application. */
typedef struct litegpu_gpu_delegate_stats {
  const char* backend;       /* "OpenCL" or "Vulkan" (static string) */
  char device_name[256];     /* the device's own name */
  int partitions;            /* kept by the last application */
  int nodes_delegated;       /* nodes those partitions replaced */
  int dispatches_per_invoke; /* compute dispatches one Invoke records */
  uint64_t device_bytes;     /* device memory for tensors and weights */
  uint64_t bytes_uploaded;   /* by the last Invoke (partition inputs) */
  uint64_t bytes_downloaded; /* by the last Invoke (partition outputs) */
  /* Kernels built so far, and of those how many the cache in
   * serialization_dir served. OpenCL: programs compiled from source, and
   * programs loaded as binaries. Vulkan: pipelines the driver built
   * without, and with, a hit in the pipeline cache, as the driver reports
   * through VK_EXT_pipeline_creation_feedback; a driver that reports none
   * (lavapipe) counts every pipeline as compiled. */
  uint64_t programs_compiled;
  uint64_t programs_from_cache;
  /* Entries read from serialization_dir and accepted (OpenCL program
   * binaries, Vulkan pipeline-cache files), whatever the driver then made
   * of them. */
  uint64_t cache_files_loaded;
  int fp16; /* 1 when kernels run in half precision */
  /* Bytes the runtime copied between bound device buffers and tensor data
   * through the buffer handles (a CPU node or the application reading a
   * bound tensor), since the delegate was created. */
  uint64_t bytes_copied_by_handles;
  /* inference_preference SUSTAINED_SPEED: dispatches whose work-group size
   * was chosen by timing candidates on the device, and dispatches whose
   * size came from an earlier choice without timing (serialization_dir's
   * tuning entries, or this delegate's own for the same kernel, defines and
   * global size). Both 0 under FAST_SINGLE_ANSWER and BALANCED. */
  int kernels_tuned;
  int tunings_from_cache;
} litegpu_gpu_delegate_stats;

/* Fills `out`; kTfLiteError when either pointer is NULL. */
TFL_CAPI_EXPORT TfLiteStatus litegpu_gpu_delegate_get_stats(
    const TfLiteDelegate* delegate, litegpu_gpu_delegate_stats* out);

/* Dispatch profiling: where a partition's time goes, per compute dispatch.
 * While enabled, each Invoke (and async run) adds each dispatch's time to
 * its total. On Vulkan devices that write timestamps the time is the
 * device's, between timestamps written before and after the dispatch in
 * a recording kept for profiling, read once the run completed (runs stay
 * non-blocking; async runs do not overlap). Elsewhere (OpenCL, Vulkan
 * without timestamps) each Invoke waits for every dispatch before
 * starting the next and adds its time (enqueue to completion, as the host
 * sees it); Invokes therefore run slower than without it, so measure
 * totals with it off. Enabling resets the totals.
 *
 *   litegpu_gpu_delegate_enable_profiling(delegate, true);
 *   ... TfLiteInterpreterInvoke(interpreter) several times ...
 *   int n = litegpu_gpu_delegate_dispatch_profile(delegate, NULL, 0);
 *   litegpu_gpu_dispatch_profile* p = calloc(n, sizeof(*p));
 *   litegpu_gpu_delegate_dispatch_profile(delegate, p, n);
 */
typedef struct litegpu_gpu_dispatch_profile {
  int partition;       /* 0-based, among the live partitions */
  int node_index;      /* the model node it computes (its first, when a
                          later node was fused into the same kernel) */
  const char* op_name; /* the node's op, "CONV_2D" (static string) */
  char kernel[32];     /* the GPU kernel, "conv_1x1" */
  uint64_t total_ns;   /* summed over `count` Invokes */
  uint64_t count;      /* Invokes timed */
} litegpu_gpu_dispatch_profile;

/* Turns dispatch profiling on (resetting the totals) or off; it applies to
 * every partition, present and future. kTfLiteError on NULL. */
TFL_CAPI_EXPORT TfLiteStatus
litegpu_gpu_delegate_enable_profiling(TfLiteDelegate* delegate, bool enable);

/* Copies up to `capacity` entries, one per dispatch of every live
 * partition in run order, and returns how many there are (a first call
 * with NULL, 0 sizes the array); -1 on a NULL delegate. */
TFL_CAPI_EXPORT int litegpu_gpu_delegate_dispatch_profile(
    const TfLiteDelegate* delegate, litegpu_gpu_dispatch_profile* profiles,
    int capacity);

/* ---- Zero-copy I/O ---------------------------------------------------------
 * A device buffer bound to an input or output tensor of a delegated
 * partition is read or written there by the partition's kernels: no copy
 * between host and device (litegpu_gpu_delegate_stats.bytes_uploaded and
 * bytes_downloaded leave it out). Two models chained on one device (model
 * A's output buffer is model B's input buffer):
 *
 *   TfLiteDelegate* a = litegpu_gpu_delegate_create(&o, why, sizeof(why));
 *   litegpu_gpu_delegate_options ob = o;
 *   ob.share_device_with = a;              // B runs on A's device
 *   TfLiteDelegate* b = litegpu_gpu_delegate_create(&ob, why, sizeof(why));
 *   ... create interpreter ia with delegate a, ib with b ...
 *   litegpu_gpu_buffer* in = litegpu_gpu_delegate_create_buffer(a, n_in);
 *   litegpu_gpu_buffer* mid = litegpu_gpu_delegate_create_buffer(a, n_mid);
 *   litegpu_gpu_buffer* out = litegpu_gpu_delegate_create_buffer(a, n_out);
 *   litegpu_gpu_delegate_bind_buffer(a, in, a_input_tensor_index);
 *   litegpu_gpu_delegate_bind_buffer(a, mid, a_output_tensor_index);
 *   litegpu_gpu_delegate_bind_buffer(b, mid, b_input_tensor_index);
 *   litegpu_gpu_delegate_bind_buffer(b, out, b_output_tensor_index);
 *   TfLiteSetAllowBufferHandleOutput(ia, true);   // A's output stays put
 *   TfLiteSetAllowBufferHandleOutput(ib, true);
 *   ... fill `in` on the device (your kernel; the cl_mem or VkBuffer is
 *   litegpu_gpu_buffer_handle(in)) ...
 *   TfLiteInterpreterInvoke(ia); TfLiteInterpreterInvoke(ib);
 *   ... read `out` on the device ...
 *   (delete the interpreters, then the buffers and delegates, any order)
 *
 * Binding: after the delegate was applied (the interpreter was created
 * with it, or TfLiteInterpreterModifyGraphWithDelegate ran), unlike
 * TFLite's OpenCL delegate, which binds before: the delegate then knows its
 * partitions and refuses at once, naming the problem, a tensor that is not
 * an input or output of one of them (not delegated, or internal to a
 * partition), a buffer smaller than the tensor, a buffer of another
 * backend or device, a tensor the device holds in another form than the
 * host (float16 when precision loss is allowed, quantized tensors), and an
 * input that a node outside the partition writes. The tensor then carries
 * a buffer handle of the delegate (TfLiteTensor.buffer_handle) and the
 * buffer's contents are its data: a CPU node or the application reading
 * the tensor gets them through the delegate's CopyFromBufferHandle (the
 * runtime does this before a CPU node runs, and after Invoke for graph
 * outputs unless TfLiteSetAllowBufferHandleOutput(interpreter, true)).
 * Binding again replaces the buffer; deleting the interpreter or
 * TfLiteInterpreterModifyGraphWithDelegate's undo releases the binding,
 * and so does the delegate fallback (an Invoke that returned
 * kTfLiteDelegateError ran on the CPU from the bound inputs' contents and
 * left its outputs in tensor->data). Host writes to a bound input's
 * tensor->data are ignored: write the buffer. A tensor at the boundary of
 * two partitions (one's output, the other's input) cannot be bound.
 * A binding survives resizing an input: AllocateTensors binds the buffer
 * to the partition lowered at the new shapes, and fails naming the tensor
 * when the buffer is too small for its new size (bind a larger one before
 * resizing); the partition then keeps its old shapes and buffers.
 *
 * Synchronization: an Invoke returns once the device finished its work,
 * so a bound output holds the result when Invoke returns, for a second
 * delegate on the same device and for the application's own queue alike;
 * the application finishes its own writes to a bound input (clFinish,
 * vkQueueWaitIdle or a fence) before Invoke.
 *
 * Errors: the bind calls return kTfLiteError and report the reason to the
 * interpreter's error reporter; litegpu_gpu_delegate_last_error returns
 * it. */

/* The API objects of the delegate's device, for an application's own work
 * on it (owned by the delegate). OpenCL: platform, device, context and
 * queue are cl_platform_id, cl_device_id, cl_context and
 * cl_command_queue. Vulkan: VkInstance, VkPhysicalDevice, VkDevice and
 * VkQueue, with the queue's family. */
typedef struct litegpu_gpu_device_handles {
  litegpu_gpu_backend backend; /* OPENCL or VULKAN */
  void* platform;
  void* device;
  void* context;
  void* queue;
  uint32_t queue_family; /* Vulkan */
} litegpu_gpu_device_handles;

/* kTfLiteError on NULL. */
TFL_CAPI_EXPORT TfLiteStatus litegpu_gpu_delegate_get_device(
    const TfLiteDelegate* delegate, litegpu_gpu_device_handles* out);

/* A device buffer the delegate allocates on its device, for binding to
 * tensors of this delegate or of one sharing its device. It keeps the
 * device alive: delete it after or before the delegates, as convenient,
 * but after the interpreters whose tensors it is bound to. */
typedef struct litegpu_gpu_buffer litegpu_gpu_buffer;

/* NULL (reason in litegpu_gpu_delegate_last_error) on failure. */
TFL_CAPI_EXPORT litegpu_gpu_buffer* litegpu_gpu_delegate_create_buffer(
    TfLiteDelegate* delegate, size_t bytes);
TFL_CAPI_EXPORT void litegpu_gpu_buffer_delete(litegpu_gpu_buffer* buffer);
/* The buffer's cl_mem, or its VkBuffer (cast to uint64_t); 0 for NULL. */
TFL_CAPI_EXPORT uint64_t
litegpu_gpu_buffer_handle(const litegpu_gpu_buffer* buffer);
/* The buffer's size in bytes; 0 for NULL. */
TFL_CAPI_EXPORT size_t
litegpu_gpu_buffer_size(const litegpu_gpu_buffer* buffer);
/* Copies `bytes` of host `data` into the buffer at `offset`, or out of it
 * into `data`, and waits for the copy (and the device's earlier work):
 * for applications without their own device code, and tests.
 * kTfLiteError for a NULL argument, a range outside the buffer or a
 * device error (printed to stderr). */
TFL_CAPI_EXPORT TfLiteStatus litegpu_gpu_buffer_write(
    litegpu_gpu_buffer* buffer, size_t offset, const void* data, size_t bytes);
TFL_CAPI_EXPORT TfLiteStatus litegpu_gpu_buffer_read(
    const litegpu_gpu_buffer* buffer, size_t offset, void* data, size_t bytes);

/* Binds `buffer` (from litegpu_gpu_delegate_create_buffer on this
 * delegate's device) to tensor `tensor_index` of the interpreter the
 * delegate was applied to. */
TFL_CAPI_EXPORT TfLiteStatus litegpu_gpu_delegate_bind_buffer(
    TfLiteDelegate* delegate, litegpu_gpu_buffer* buffer, int tensor_index);

/* TFLite's name: binds the application's OpenCL buffer (a cl_mem of the
 * context litegpu_gpu_delegate_get_device returns, CL_MEM_READ_WRITE),
 * whole, to tensor `tensor_index`. Refused on a Vulkan delegate. */
struct _cl_mem;
TFL_CAPI_EXPORT TfLiteStatus TfLiteGpuDelegateBindBufferToTensor(
    TfLiteDelegate* delegate, struct _cl_mem* buffer, int tensor_index);

/* Binds bytes [offset, offset + size) of the application's VkBuffer (cast
 * to uint64_t; made on the VkDevice litegpu_gpu_delegate_get_device returns,
 * with the usages STORAGE_BUFFER, UNIFORM_TEXEL_BUFFER, TRANSFER_SRC and
 * TRANSFER_DST) to tensor `tensor_index`. `offset` must meet the device's
 * minStorageBufferOffsetAlignment and minTexelBufferOffsetAlignment.
 * Refused on an OpenCL delegate. Vulkan cannot tell which device made a
 * VkBuffer: one of another device is undefined behaviour, not an error.
 * The VkBuffer must outlive the binding (until the interpreter is deleted
 * or the tensor bound again); a bound cl_mem is retained instead. */
TFL_CAPI_EXPORT TfLiteStatus litegpu_gpu_delegate_bind_vulkan_buffer(
    TfLiteDelegate* delegate, uint64_t vk_buffer, size_t offset, size_t size,
    int tensor_index);

/* The reason the delegate's last failed bind or create_buffer gave ("" if
 * none); NULL for a NULL delegate. */
TFL_CAPI_EXPORT const char* litegpu_gpu_delegate_last_error(
    const TfLiteDelegate* delegate);

#ifdef __cplusplus
}
#endif

#endif /* LITEGPU_GPU_DELEGATE_H_ */
