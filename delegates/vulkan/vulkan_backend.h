/* The Vulkan implementation of the GPU backend interface
 * (delegates/backend/gpu_backend.h): Vulkan 1.1 through the loader, compute
 * only (no surface, no graphics queue needed).
 *
 * Device choice: the physical devices of Vulkan 1.1 or later that have a
 * compute queue. If any is a GPU, the candidates are the GPUs (discrete
 * first, then integrated, then virtual, each in the loader's order);
 * otherwise every such device (CPU drivers such as Mesa's lavapipe), so the
 * backend also runs without a GPU. options->device_index picks among the
 * candidates (0 = first). Limits, memory heaps and memory types are read
 * from the device, never assumed. device.fp16 reports shaderFloat16
 * together with storageBuffer16BitAccess; when options->allow_fp16 is set
 * too, the device is created with both enabled, every kernel is built from
 * its shader's -DLG_FP16 SPIR-V (float16 tensor data, float32 sums:
 * shaders/kernels/lg_kernel.h) and be->fp16_storage is true; otherwise
 * float32 kernels and fp16_storage false. device.max_compute_units is 1:
 * Vulkan has no such query.
 *
 * Kernels come from shaders/kernels/<name>.lgk (the shared dialect of
 * shaders/kernels/lg_kernel.h, one source with the OpenCL backend),
 * compiled to SPIR-V at build time (vulkan_shaders.h). kernel_create's defines
 * ("-DLG_OP=3 -DLG_ACT") become specialization constants: each NAME must be one
 * the shader declares (an unknown NAME is an error naming it), a define without
 * a value means 1, and a value is an integer or one of the shader's value words
 * (cast.lgk: -DLG_SRC=float). Arguments: buffers bind to storage buffers 0..k-1
 * in argument order, ints and floats are push constants, 4 bytes each, in
 * argument order; dispatch checks both against the shader. The work-group size
 * is a specialization constant too: a kernel keeps one pipeline per local size
 * it has been dispatched with (the default one is built by kernel_create).
 * Global sizes are rounded up to the local size (shaders check their index);
 * group counts past the device's maxComputeWorkGroupCount are split into
 * several dispatches.
 *
 * Pipeline cache: with options->cache_dir set, each shader's VkPipelineCache
 * data is kept in a file there, keyed by the device (name, vendor and device
 * ids, driver version, pipelineCacheUUID) and the hash of the SPIR-V built
 * (float32 and float16 builds get separate files); a file that
 * does not match, is truncated or corrupt is counted as a reject, never
 * given to the driver, and rewritten (temp file + rename).
 *
 * Execution: dispatches and uploads are recorded into a command buffer
 * (with the barriers between them); submit ends and submits it with a
 * fence, finish waits for every fence. Uploads write device memory
 * directly when it is host-visible and coherent and nothing is pending,
 * else go through host-visible staging memory; download waits for
 * everything recorded. A non-blocking download (download_begin) copies
 * into a readback buffer of its own (also from host-mapped buffers, which
 * a later run may overwrite) and fence_wait waits for its submission's
 * fence only, draining the queue when LG_VK_DRAIN_AFTER command buffers
 * are in use, so several runs can be on the device at once. The async
 * kernel's timeline points (litegpu/async.h) ride on the next submission:
 * sync_wait_input's as semaphore waits, sync_signal_output's as signals
 * (VK_KHR_timeline_semaphore, enabled when the device has
 * timelineSemaphore). After a failed submission or wait the backend
 * refuses further work (its results would be wrong); destroy is always
 * safe.
 *
 * Recordings: recording_begin needs an idle backend (nothing recorded or
 * running since the last finish, else an error says so). The dispatches
 * until recording_end go into the recording's own command buffer (its
 * own command pool, fence and descriptor pools, so later finishes do not
 * reset them), recorded once: a barrier first makes host, transfer and
 * compute writes visible to the first dispatch, one between dispatches,
 * and one last makes compute writes visible to transfers and host reads.
 * A failed dispatch while recording makes recording_end fail (the
 * recording would be incomplete). recording_run submits the recording
 * with no re-recording: in one batch after the open command buffer when
 * one holds unsubmitted work (staged uploads), under that buffer's fence,
 * else alone with the recording's fence. A recording still running from
 * an earlier run is submitted again (its command buffer allows
 * simultaneous use) in a batch with a command buffer of the backend's,
 * whose fence covers it. Later downloads and finish wait for it; while a run is
 * pending, uploads to host-mapped buffers take the staging path. recording_run
 * of a handle that is not a live recording of this backend (released, or from
 * another backend) is an error and recording_release ignores it; nested
 * recording_begin, recording_end without begin and recording_run during a
 * capture are errors. A failed vkQueueSubmit or wait makes the backend
 * unusable, as above; failures while recording only lose that recording.
 * The buffers and kernels a recording uses must outlive it.
 *
 * Validation: with lg_vulkan_options.validation, or the environment
 * variable LITEGPU_VULKAN_VALIDATION=1, the Khronos validation layer is
 * enabled (creation fails when it is not installed). Whenever the instance
 * offers VK_EXT_debug_utils, a messenger counts the error messages of any
 * layer (also one enabled through VK_INSTANCE_LAYERS) in
 * lg_vulkan_stats.validation_errors and keeps the first one. Under
 * LITEGPU_VULKAN_VALIDATION=1 a counted error also fails every later
 * download with its message, so a delegate run (the conformance
 * suite) fails on it.
 *
 * Ownership: the backend owns its instance, device, buffers and kernels
 * until they are released or the backend is destroyed; destroy the backend
 * last (lg_gpu_backend_destroy). One thread at a time per backend.
 *
 *   lg_gpu_backend_options options = {.device_index = 0,
 *                                      .cache_dir = "/tmp/litegpu-cache"};
 *   lg_gpu_backend* be = NULL;
 *   lg_gpu_error error;
 *   if (lg_vulkan_backend_create(&options, &be, &error) != kTfLiteOk)
 *     fprintf(stderr, "%s\n", error.message);
 */
#ifndef LITEGPU_DELEGATES_VULKAN_VULKAN_BACKEND_H_
#define LITEGPU_DELEGATES_VULKAN_VULKAN_BACKEND_H_

#include "delegates/backend/gpu_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Vulkan-only creation options. */
typedef struct lg_vulkan_options {
  bool validation; /* enable VK_LAYER_KHRONOS_validation (must exist) */
} lg_vulkan_options;

/* Creates a Vulkan backend on the chosen device. On failure *out is NULL,
 * nothing is leaked and `error` (may be NULL) names the failing call and
 * the VkResult, e.g. "vkCreateDevice failed: VK_ERROR_OUT_OF_HOST_MEMORY".
 * `options` may be NULL (device 0, no cache). */
TfLiteStatus lg_vulkan_backend_create(const lg_gpu_backend_options* options,
                                      lg_gpu_backend** out,
                                      lg_gpu_error* error);

/* The same with Vulkan-only options (`vk` may be NULL). */
TfLiteStatus lg_vulkan_backend_create_ex(const lg_gpu_backend_options* options,
                                         const lg_vulkan_options* vk,
                                         lg_gpu_backend** out,
                                         lg_gpu_error* error);

/* Counters for tests and reports (per backend). */
typedef struct lg_vulkan_stats {
  uint64_t pipelines_created;   /* vkCreateComputePipelines successes */
  uint64_t pipeline_cache_hits; /* of those, reported as cache hits by
                                   VK_EXT_pipeline_creation_feedback */
  bool creation_feedback;       /* whether the device reports hits */
  uint64_t pipeline_create_ns;  /* time spent creating pipelines */
  uint64_t cache_loads;         /* cache files read and given to the driver */
  uint64_t cache_rejects;       /* cache files found stale/corrupt */
  uint64_t cache_writes;        /* cache files written */
  uint64_t submits;             /* vkQueueSubmit calls (runs included) */
  uint64_t recording_runs;      /* recording_run submissions */
  uint64_t dispatches;          /* vkCmdDispatch/vkCmdDispatchBase calls */
  uint64_t direct_uploads;      /* uploads written straight to the memory */
  uint64_t staged_uploads;      /* uploads through staging + a copy */
  uint64_t direct_downloads;
  uint64_t staged_downloads;
  uint64_t validation_errors;   /* error messages from layers */
  uint64_t validation_warnings; /* warning messages from layers */
  char first_validation_error[512];
  bool direct_memory;    /* the last device buffer made is mapped */
  bool texel_reads;      /* read-only tensors are bound as texel buffers */
  int last_dims;         /* the last dispatch: dims, sizes used */
  size_t last_global[3]; /* rounded up to the local size */
  size_t last_local[3];
} lg_vulkan_stats;

/* Copies the counters of a Vulkan backend; kTfLiteError for NULL or a
 * backend of another kind. */
TfLiteStatus lg_vulkan_backend_stats(const lg_gpu_backend* be,
                                     lg_vulkan_stats* out);

#ifdef __cplusplus
}
#endif

#endif /* LITEGPU_DELEGATES_VULKAN_VULKAN_BACKEND_H_ */
