/* The OpenCL implementation of the GPU backend interface
 * (delegates/backend/gpu_backend.h), through the ICD loader, OpenCL 1.2 API.
 *
 * Device choice: every platform's devices are listed in platform order and
 * devices older than OpenCL 1.2 are dropped. If any GPU device remains, the
 * candidates are the GPU devices only; otherwise every remaining device
 * (CPU drivers such as PoCL, accelerators) is a candidate, so the backend
 * also runs on machines without a GPU. options->device_index picks among the
 * candidates (0 = first).
 *
 * Kernels come from shaders/kernels/<name>.lgk (the shared dialect of
 * shaders/kernels/lg_kernel.h, one source with the Vulkan backend) or
 * shaders/opencl/<name>.cl (OpenCL only), embedded at build time; the file
 * must define a __kernel function with the same name, and is compiled
 * after the preamble (shaders/opencl/lg_types.cl, the macros for float
 * tensor data, then shaders/kernels/lg_dialect_cl.h and lg_kernel.h,
 * opencl_sources.h). Precision: with options->allow_fp16 and a device with
 * cl_khr_fp16, the backend sets fp16_storage and builds every kernel with
 * "-DLG_FP16 -DLG_HALF_MATH" (half storage, per-element half arithmetic,
 * float32 sums); otherwise float32 and no extra define.
 * Test hook: with the environment variable
 * LITEGPU_OPENCL_TEST_FP16_STORAGE=1 at creation, allow_fp16 sets
 * fp16_storage on any device, with "-DLG_FP16" alone (half storage through
 * the OpenCL 1.2 core vload_half/vstore_half, float32 arithmetic), so the
 * half-storage kernels run on devices without cl_khr_fp16 (PoCL) in
 * tests. Build options are the caller's defines plus those. With
 * options->cache_dir set,
 * compiled program binaries are cached there (see
 * delegates/backend/cache_file.h): a later kernel_create with the same device,
 * driver, options and source loads the binary instead of compiling.
 *
 * dispatch without a local size picks one within the kernel's and device's
 * limits and rounds each global size up to a multiple of it, so kernels must
 * check their global index against the real extent (shaders/kernels/add.lgk).
 *
 * Ownership: the backend owns its context, queue, buffers and kernels until
 * they are released or the backend is destroyed; destroy the backend last
 * (lg_gpu_backend_destroy). One thread at a time per backend.
 *
 *   lg_gpu_backend_options options = {.device_index = 0,
 *                                      .cache_dir = "/tmp/litegpu-cache"};
 *   lg_gpu_backend* be = NULL;
 *   lg_gpu_error error;
 *   if (lg_opencl_backend_create(&options, &be, &error) != kTfLiteOk)
 *     fprintf(stderr, "%s\n", error.message);
 */
#ifndef LITEGPU_DELEGATES_OPENCL_OPENCL_BACKEND_H_
#define LITEGPU_DELEGATES_OPENCL_OPENCL_BACKEND_H_

#include "delegates/backend/gpu_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Creates an OpenCL backend on the chosen device. On failure *out is NULL,
 * nothing is leaked and `error` (may be NULL) names the failing call and
 * the CL error, e.g. "clCreateContext failed: CL_OUT_OF_HOST_MEMORY (-6)".
 * `options` may be NULL (device 0, fp32, no cache). Reads the environment
 * (the test hook above). */
TfLiteStatus lg_opencl_backend_create(const lg_gpu_backend_options* options,
                                      lg_gpu_backend** out,
                                      lg_gpu_error* error);

/* Counters for tests and reports (per backend). */
typedef struct lg_opencl_stats {
  uint64_t source_builds; /* programs compiled from source */
  uint64_t binary_loads;  /* programs loaded from the cache */
  uint64_t cache_rejects; /* cache files found stale/corrupt (rebuilt) */
  uint64_t cache_writes;  /* cache files written */
  int last_dims;          /* the last dispatch: dims, sizes enqueued */
  size_t last_global[3];
  size_t last_local[3];
} lg_opencl_stats;

/* Copies the counters of an OpenCL backend; kTfLiteError for NULL or a
 * backend of another kind. */
TfLiteStatus lg_opencl_backend_stats(const lg_gpu_backend* be,
                                     lg_opencl_stats* out);

#ifdef __cplusplus
}
#endif

#endif /* LITEGPU_DELEGATES_OPENCL_OPENCL_BACKEND_H_ */
