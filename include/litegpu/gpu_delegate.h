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
 * partition's inputs and outputs cross between host and device. Kernels run
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
 * While enabled, each Invoke waits for every dispatch before starting the
 * next and adds its time (enqueue to completion, as the host sees it) to
 * that dispatch's total; Invokes therefore run slower than without it, so
 * measure totals with it off. Enabling resets the totals.
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

#ifdef __cplusplus
}
#endif

#endif /* LITEGPU_GPU_DELEGATE_H_ */
