/* The small interface every GPU backend (OpenCL, Vulkan) implements.
 *
 * The backend-neutral GPU layer (delegates/gpu/) lowers a claimed subgraph
 * into device buffers and a list of dispatches; a backend only moves bytes,
 * builds compute kernels from the project's embedded sources and runs them.
 * Like a ggml backend, it is a table of function pointers plus a context;
 * every slot has a comment and (optional) slots may be NULL.
 *
 *   lg_gpu_backend* be = NULL;
 *   if (lg_gpu_backends(NULL)[0].create(&options, &be, &error) != kTfLiteOk)
 *   lg_gpu_buffer* buf = NULL;
 *   be->ops->buffer_create(be, bytes, &buf, &error);
 *   lg_gpu_buffer_upload(be, buf, 0, host, bytes, &error);
 *   lg_gpu_kernel* k = NULL;
 *   be->ops->kernel_create(be, "add", "-DACTIVATION=1", &k, &error);
 *   lg_gpu_arg args[] = {LG_GPU_ARG_BUFFER(buf), LG_GPU_ARG_INT(n)};
 *   lg_gpu_dispatch(be, k, args, 2, 1, global, local_or_null, &error);
 *   be->ops->finish(be, &error);
 *   lg_gpu_buffer_download(be, buf, 0, host, bytes, &error);
 *   be->ops->kernel_release(be, k); be->ops->buffer_release(be, buf);
 *   lg_gpu_backend_destroy(be);
 *
 * Errors: every fallible slot returns a TfLiteStatus and, on failure, fills
 * an lg_gpu_error with a message naming the call, the API's error code by
 * name (e.g. "clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE") and, for
 * builds, the log. Nothing aborts. Release slots accept NULL.
 * Thread safety: a backend instance is used by one thread at a time.
 */
#ifndef LITEGPU_DELEGATES_BACKEND_GPU_BACKEND_H_
#define LITEGPU_DELEGATES_BACKEND_GPU_BACKEND_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/c/c_api_types.h"

#define LG_GPU_ERROR_SIZE 1024

typedef struct lg_gpu_error {
  char message[LG_GPU_ERROR_SIZE];
} lg_gpu_error;

/* What the device can do; read from the device, never assumed. */
typedef struct lg_gpu_device_info {
  char name[256];
  char vendor[256];
  char driver_version[256];
  char api_version[128];
  uint64_t global_memory_bytes;
  uint64_t max_buffer_bytes;  /* largest single allocation */
  size_t max_work_group_size; /* invocations per work group */
  size_t max_work_item_sizes[3];
  uint32_t max_compute_units;
  bool fp16; /* half arithmetic and storage */
  /* Invocations that execute in lockstep, lanes of one instruction (a
   * Vulkan subgroup: 32 on NVIDIA, 64 on older AMD, 8 on lavapipe with
   * AVX2); 0 when the API does not say (OpenCL). Lanes of a work group
   * past its size sit idle, so lowerings give dimension 0 at least this
   * many items where they can. */
  uint32_t simd_width;
  /* Loop iterations one invocation may run, every loop of the kernel
   * counted together, before the driver ends its loops early and the
   * results are wrong without an error: 65535 on Mesa's llvmpipe
   * (lavapipe), whose compiler shares one iteration counter between all
   * the loops of a shader; 0 when the driver has no such limit. Lowerings
   * whose loops could run longer take smaller work items or leave the node
   * to the CPU (lg_gpu_lower_check_loops). */
  uint32_t max_loop_iterations;
  uint32_t buffer_alignment; /* base address alignment, bytes */
} lg_gpu_device_info;

typedef struct lg_gpu_buffer lg_gpu_buffer;       /* backend-defined */
typedef struct lg_gpu_kernel lg_gpu_kernel;       /* backend-defined */
typedef struct lg_gpu_recording lg_gpu_recording; /* backend-defined */
typedef struct lg_gpu_fence lg_gpu_fence;         /* backend-defined */
typedef struct lg_gpu_backend lg_gpu_backend;

typedef enum lg_gpu_arg_kind {
  LG_GPU_ARG_KIND_BUFFER = 0,
  LG_GPU_ARG_KIND_INT = 1,
  LG_GPU_ARG_KIND_FLOAT = 2,
} lg_gpu_arg_kind;

/* One kernel argument, in the kernel's parameter order. */
typedef struct lg_gpu_arg {
  lg_gpu_arg_kind kind;
  union {
    lg_gpu_buffer* buffer;
    int32_t i;
    float f;
  } value;
} lg_gpu_arg;

#define LG_GPU_ARG_BUFFER(b) \
  ((lg_gpu_arg){.kind = LG_GPU_ARG_KIND_BUFFER, .value.buffer = (b)})
#define LG_GPU_ARG_INT(x) \
  ((lg_gpu_arg){.kind = LG_GPU_ARG_KIND_INT, .value.i = (x)})
#define LG_GPU_ARG_FLOAT(x) \
  ((lg_gpu_arg){.kind = LG_GPU_ARG_KIND_FLOAT, .value.f = (x)})

/* One copy of a buffer_download_batch: `bytes` at `offset` of `buffer`
 * into `data`. */
typedef struct lg_gpu_download {
  lg_gpu_buffer* buffer;
  size_t offset;
  void* data;
  size_t bytes;
} lg_gpu_download;

/* A buffer of the backend's API, for zero-copy binding: one the
 * application made on the backend's device (buffer_wrap) or one the
 * backend made (buffer_native). OpenCL: `handle` is a cl_mem and `offset`
 * 0; Vulkan: `handle` is a VkBuffer and [offset, offset + bytes) the
 * range used. */
typedef struct lg_gpu_native_buffer {
  uint64_t handle;
  size_t offset;
  size_t bytes;
} lg_gpu_native_buffer;

/* The API objects of the backend's device, for applications that run
 * their own work on it. OpenCL: cl_platform_id, cl_device_id, cl_context,
 * cl_command_queue; Vulkan: VkInstance, VkPhysicalDevice, VkDevice,
 * VkQueue and the queue's family. */
typedef struct lg_gpu_native_device {
  void* instance;
  void* physical;
  void* device;
  void* queue;
  uint32_t queue_family;
} lg_gpu_native_device;

/* One dispatch's kernel and work-group size, for kernels_prepare. */
typedef struct lg_gpu_kernel_use {
  lg_gpu_kernel* kernel;
  int dims;
  const size_t* local; /* NULL: the backend's choice, as in dispatch */
} lg_gpu_kernel_use;

/* Kernels built so far, and how: compiled, or served from the cache in
 * lg_gpu_backend_options.cache_dir (OpenCL: program binaries; Vulkan:
 * pipelines the driver reports as cache hits), and cache entries loaded
 * from disk. */
typedef struct lg_gpu_cache_stats {
  int programs_compiled;
  int programs_from_cache;
  int cache_files_loaded;
} lg_gpu_cache_stats;

typedef struct lg_gpu_backend_ops {
  /* Allocates `bytes` of device memory (contents undefined). */
  TfLiteStatus (*buffer_create)(lg_gpu_backend* be, size_t bytes,
                                lg_gpu_buffer** out, lg_gpu_error* error);
  /* Records a copy of host bytes into the buffer at `offset`, ordered with
   * the dispatches. It may read `data` later: the caller keeps `data`
   * valid and unchanged until the next finish or download returns (also
   * after an error). */
  TfLiteStatus (*buffer_upload)(lg_gpu_backend* be, lg_gpu_buffer* buffer,
                                size_t offset, const void* data, size_t bytes,
                                lg_gpu_error* error);
  /* Copies the `count` ranges of `list` to the host, blocking: waits once
   * for every dispatch recorded before and for all the copies, so a
   * partition's outputs pay one round trip to the device, not one each.
   * After an error some copies may not have been made. One range:
   * lg_gpu_buffer_download. */
  TfLiteStatus (*buffer_download_batch)(lg_gpu_backend* be,
                                        const lg_gpu_download* list, int count,
                                        lg_gpu_error* error);
  void (*buffer_release)(lg_gpu_backend* be, lg_gpu_buffer* buffer);
  /* The buffer's size in bytes, as created (the core wrappers check
   * copies against it). */
  size_t (*buffer_bytes)(const lg_gpu_buffer* buffer);
  /* Wraps the application's buffer (zero-copy binding) without taking it
   * over: buffer_release later drops only the wrapper (OpenCL keeps a
   * reference until then). Fails, naming the problem, for a buffer of
   * another device or context, a range outside the buffer, or an offset
   * the device's alignment rules refuse. OpenCL: `bytes` 0 means the whole
   * cl_mem. */
  TfLiteStatus (*buffer_wrap)(lg_gpu_backend* be,
                              const lg_gpu_native_buffer* native,
                              lg_gpu_buffer** out, lg_gpu_error* error);
  /* The API buffer behind `buffer` (owned by `buffer`). */
  void (*buffer_native)(const lg_gpu_buffer* buffer, lg_gpu_native_buffer* out);
  /* The API objects of the device (owned by the backend). */
  void (*native_device)(const lg_gpu_backend* be, lg_gpu_native_device* out);

  /* Builds (or loads from the program cache) the kernel `name` from the
   * backend's embedded sources, with preprocessor `defines` such as
   * "-DACTIVATION=1" (may be NULL). */
  TfLiteStatus (*kernel_create)(lg_gpu_backend* be, const char* name,
                                const char* defines, lg_gpu_kernel** out,
                                lg_gpu_error* error);
  void (*kernel_release)(lg_gpu_backend* be, lg_gpu_kernel* kernel);
  /* The largest work-group size this kernel supports on the device. */
  size_t (*kernel_max_work_group_size)(lg_gpu_backend* be,
                                       const lg_gpu_kernel* kernel);

  /* Optional (NULL when kernel_create builds everything): builds ahead
   * what dispatches of these kernels with these work-group sizes need, so
   * that a failure shows before the first dispatch (the delegate then
   * leaves the partition to the CPU). Vulkan creates a pipeline per kernel
   * and work-group size here, several at a time; dispatch creates any that
   * is still missing. */
  TfLiteStatus (*kernels_prepare)(lg_gpu_backend* be,
                                  const lg_gpu_kernel_use* uses, int count,
                                  lg_gpu_error* error);

  /* Records one dispatch over `global[0..dims)` work items with the given
   * arguments; `local` NULL lets the backend choose within the device's
   * limits. Runs in recording order. */
  TfLiteStatus (*dispatch)(lg_gpu_backend* be, lg_gpu_kernel* kernel,
                           const lg_gpu_arg* args, int num_args, int dims,
                           const size_t* global, const size_t* local,
                           lg_gpu_error* error);
  /* Submits what was recorded (optional: NULL when dispatch submits). */
  TfLiteStatus (*submit)(lg_gpu_backend* be, lg_gpu_error* error);
  /* Waits until everything submitted has finished. */
  TfLiteStatus (*finish)(lg_gpu_backend* be, lg_gpu_error* error);

  /* Whether the backend has an embedded kernel `name` (kernel_create may
   * still fail to build it). */
  bool (*has_kernel)(const lg_gpu_backend* be, const char* name);

  /* Optional recordings (all four NULL when the backend has none, as
   * OpenCL 1.2): between recording_begin and recording_end, dispatch calls
   * are captured into a recording instead of run; recording_run runs the
   * captured dispatches again, ordered after earlier uploads and before
   * later downloads, without re-recording them (a Vulkan command buffer
   * recorded once). The buffers and kernels a recording uses must outlive
   * it. Uploads and downloads are not captured. */
  TfLiteStatus (*recording_begin)(lg_gpu_backend* be, lg_gpu_error* error);
  TfLiteStatus (*recording_end)(lg_gpu_backend* be, lg_gpu_recording** out,
                                lg_gpu_error* error);
  TfLiteStatus (*recording_run)(lg_gpu_backend* be, lg_gpu_recording* rec,
                                lg_gpu_error* error);
  void (*recording_release)(lg_gpu_backend* be, lg_gpu_recording* rec);
  /* Optional device-timed recordings (both NULL or neither):
   * recording_begin_timed is recording_begin for at most `dispatches`
   * dispatches, and the recording also writes a device timestamp before
   * its first dispatch and after each one; recording_times reads, once a
   * run of it has completed (its fence or a finish waited for), each
   * dispatch's device time of that run into ns[0..count), count being the
   * dispatches captured. recording_begin_timed fails, saying why, on a
   * device that writes no timestamps (Vulkan: timestampValidBits 0). */
  TfLiteStatus (*recording_begin_timed)(lg_gpu_backend* be, int dispatches,
                                        lg_gpu_error* error);
  TfLiteStatus (*recording_times)(lg_gpu_backend* be,
                                  const lg_gpu_recording* rec, uint64_t* ns,
                                  int count, lg_gpu_error* error);

  /* Optional non-blocking downloads (all three NULL or none): like
   * buffer_download_batch, but download_begin submits the copies, ordered
   * after every dispatch recorded before, and returns at once with a fence
   * in *out; the bytes are in the `data` pointers only once fence_wait
   * returns kTfLiteOk (an OpenCL cl_event of the last read; on Vulkan the
   * VkFence of the submission that copied them into a readback buffer of
   * the download's own, then copies out of it). The caller keeps `list`
   * and every `data` valid until then.
   * fence_release drops the fence, waited for or not (NULL: no-op). */
  TfLiteStatus (*download_begin)(lg_gpu_backend* be,
                                 const lg_gpu_download* list, int count,
                                 lg_gpu_fence** out, lg_gpu_error* error);
  TfLiteStatus (*fence_wait)(lg_gpu_backend* be, lg_gpu_fence* fence,
                             lg_gpu_error* error);
  void (*fence_release)(lg_gpu_backend* be, lg_gpu_fence* fence);
  /* Optional: whether fence_wait would return without waiting for the
   * device (Vulkan: its submission's VkFence has signalled). */
  bool (*fence_done)(lg_gpu_backend* be, const lg_gpu_fence* fence);

  /* Optional synchronization objects of the caller, for the async kernel
   * (LITEGPU_SYNC_TYPE_* in litegpu/async.h; sync_type names the one this
   * backend takes for inputs and outputs, input_sync_type one more for
   * inputs only (may be NULL); both NULL with sync_wait_input NULL when it
   * takes none).
   * sync_wait_input makes the work enqueued after it wait for `native` of
   * `type`: OpenCL, a cl_event the queue waits for (on the host instead
   * when `on_host`, for inputs read on the host), whose reference it takes
   * over; Vulkan, a VkFence waited for on the host, left to the caller, or
   * a litegpu_vk_timeline_point the next submission waits for when the
   * input is `bound` to a device buffer and not `on_host` (else waited for
   * on the host: Vulkan's uploads copy host memory when enqueued).
   * Outputs, one of two ways: fence_export (OpenCL) returns in *native an
   * object that signals when `fence`'s downloads are in host memory, the
   * last read's cl_event with a reference for the caller (sync_release
   * drops one that never reached the caller); sync_signal_output (Vulkan),
   * called before the run is enqueued, makes the next submission, the
   * run's dispatches, signal the caller's timeline point (outputs bound to
   * device buffers only: the others are copied out on the host).
   * sync_fence_output (optional; Vulkan), called after the run was
   * enqueued, signals the caller's object of input_sync_type (a VkFence,
   * unsignalled) once all work submitted so far has completed, so outputs
   * may take that type too (bound to device buffers only, as above);
   * `check_only` refuses, before the run, an object it could not signal
   * (a fence already signalled) and does nothing else.
   * sync_cancel forgets waits and signals added for a run that failed
   * before it was submitted. */
  const char* sync_type;
  const char* input_sync_type;
  /* Whether several download_begin batches may be pending at once (OpenCL:
   * an in-order queue; Vulkan: a readback buffer per pending download). */
  bool downloads_overlap;
  TfLiteStatus (*sync_wait_input)(lg_gpu_backend* be, const char* type,
                                  void* native, bool on_host, bool bound,
                                  lg_gpu_error* error);
  TfLiteStatus (*sync_signal_output)(lg_gpu_backend* be, void* native,
                                     lg_gpu_error* error);
  TfLiteStatus (*sync_fence_output)(lg_gpu_backend* be, void* native,
                                    bool check_only, lg_gpu_error* error);
  void (*sync_cancel)(lg_gpu_backend* be);
  TfLiteStatus (*fence_export)(lg_gpu_backend* be, lg_gpu_fence* fence,
                               void** native, lg_gpu_error* error);
  void (*sync_release)(lg_gpu_backend* be, void* native);

  /* Optional: what the kernel cache did so far (for the delegate's
   * stats). */
  void (*cache_stats)(const lg_gpu_backend* be, lg_gpu_cache_stats* out);

  /* Frees the backend and everything it still holds. */
  void (*destroy)(lg_gpu_backend* be);
} lg_gpu_backend_ops;

struct lg_gpu_backend {
  const lg_gpu_backend_ops* ops;
  const char* name; /* the API, for messages and stats: "OpenCL" */
  lg_gpu_device_info device;
  /* Kernels are built for half precision (-DLG_FP16): float32 tensors and
   * float constants live on the device as float16. Set at creation when
   * fp16 was allowed and the device and the backend's kernels support it. */
  bool fp16_storage;
  void* impl; /* the backend's own state */
};

/* How a backend is created. */
typedef struct lg_gpu_backend_options {
  int device_index;      /* among the backend's GPU-like devices */
  bool allow_fp16;       /* build kernels with half storage/math */
  const char* cache_dir; /* program/pipeline cache folder, or NULL */
  /* Part of every cache entry's key (TFLite's model_token): entries of
   * different models never meet. NULL or "": none. */
  const char* cache_namespace;
} lg_gpu_backend_options;

/* ---- Core wrappers --------------------------------------------------------
 * Callers go through these, not through the slots: the arguments every
 * backend would check alike are checked once here (a NULL kernel, buffer
 * or size array, dims outside 1..3, a zero global or local size, a NULL
 * data pointer, a copy outside its buffer), with one wording, and the slot then
 * sees only valid arguments; backends check what is theirs (their device's
 * limits, a kernel's interface, a buffer's size). */

/* be->ops->dispatch after the common checks. */
TfLiteStatus lg_gpu_dispatch(lg_gpu_backend* be, lg_gpu_kernel* kernel,
                             const lg_gpu_arg* args, int num_args, int dims,
                             const size_t* global, const size_t* local,
                             lg_gpu_error* error);

/* be->ops->buffer_upload after the common checks (a NULL buffer or host
 * pointer, a range outside the buffer). */
TfLiteStatus lg_gpu_buffer_upload(lg_gpu_backend* be, lg_gpu_buffer* buffer,
                                  size_t offset, const void* data, size_t bytes,
                                  lg_gpu_error* error);

/* be->ops->buffer_download_batch after the same checks on every copy. */
TfLiteStatus lg_gpu_buffer_download_batch(lg_gpu_backend* be,
                                          const lg_gpu_download* list,
                                          int count, lg_gpu_error* error);

/* be->ops->download_begin after the same checks on every copy; fails,
 * naming the backend, when it has no non-blocking downloads. */
TfLiteStatus lg_gpu_download_begin(lg_gpu_backend* be,
                                   const lg_gpu_download* list, int count,
                                   lg_gpu_fence** out, lg_gpu_error* error);

/* ---- The backends ---------------------------------------------------------
 * Backends are rows of a registry (gpu_backends.c), not cases of an enum:
 * the delegate tries them in the registry's order for AUTO and picks one by
 * its option value otherwise. Adding a backend is a row there. */

typedef TfLiteStatus (*lg_gpu_backend_create_fn)(
    const lg_gpu_backend_options* options, lg_gpu_backend** out,
    lg_gpu_error* error);

typedef struct lg_gpu_backend_entry {
  const char* name; /* "OpenCL": messages ("no usable OpenCL device") */
  int option;       /* the litegpu_gpu_backend value that asks for it */
  lg_gpu_backend_create_fn create;
} lg_gpu_backend_entry;

/* The registry, in AUTO's order of preference; *count gets its length. */
const lg_gpu_backend_entry* lg_gpu_backends(int* count);

/* Copies `bytes` of `buffer` at `offset` to `data`: a batch of one. */
static inline TfLiteStatus lg_gpu_buffer_download(lg_gpu_backend* be,
                                                  lg_gpu_buffer* buffer,
                                                  size_t offset, void* data,
                                                  size_t bytes,
                                                  lg_gpu_error* error) {
  const lg_gpu_download one = {buffer, offset, data, bytes};
  return lg_gpu_buffer_download_batch(be, &one, 1, error);
}

/* NULL is a no-op. */
static inline void lg_gpu_backend_destroy(lg_gpu_backend* be) {
  if (be != NULL) be->ops->destroy(be);
}

#endif /* LITEGPU_DELEGATES_BACKEND_GPU_BACKEND_H_ */
