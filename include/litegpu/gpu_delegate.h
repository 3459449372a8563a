/* litegpu's extension of the GPU delegate: TFLite's options plus the
 * backend and device choice.
 *
 * Backends: LITEGPU_GPU_BACKEND_OPENCL runs on OpenCL (any OpenCL 1.2
 * device; PoCL on machines without a GPU); LITEGPU_GPU_BACKEND_VULKAN is not
 * implemented yet, so creation fails with a message saying so;
 * LITEGPU_GPU_BACKEND_AUTO picks OpenCL when an OpenCL device exists.
 *
 * Failure: litegpu_gpu_delegate_create returns NULL and writes the reason
 * into `error` (may be NULL; also printed to stderr when NULL), e.g.
 * "GPU delegate: no OpenCL device: clGetPlatformIDs failed: ...".
 *
 *   litegpu_gpu_delegate_options o = litegpu_gpu_delegate_options_default();
 *   o.backend = LITEGPU_GPU_BACKEND_OPENCL;
 *   char why[1024];
 *   TfLiteDelegate* d = litegpu_gpu_delegate_create(&o, why, sizeof(why));
 *   ... TfLiteGpuDelegateV2Delete(d);
 *
 * Partition programs: each delegated partition becomes one dispatch per node
 * and one device buffer per tensor (no lifetime-based reuse yet).
 */
#ifndef LITEGPU_GPU_DELEGATE_H_
#define LITEGPU_GPU_DELEGATE_H_

#include <stddef.h>

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
} litegpu_gpu_delegate_options;

litegpu_gpu_delegate_options litegpu_gpu_delegate_options_default(void);

/* NULL options: the defaults. Returns NULL on failure (see above). */
TfLiteDelegate* litegpu_gpu_delegate_create(
    const litegpu_gpu_delegate_options* options, char* error,
    size_t error_size);

/* The partitions the last application kept (-1 for NULL). */
int litegpu_gpu_delegate_num_partitions(const TfLiteDelegate* delegate);

/* The reason node `node_index` was not delegated by the last application:
 * "" when it was, NULL when the node is unknown. Valid until the next
 * application or deletion. */
const char* litegpu_gpu_delegate_node_reason(const TfLiteDelegate* delegate,
                                             int node_index);

#ifdef __cplusplus
}
#endif

#endif /* LITEGPU_GPU_DELEGATE_H_ */
