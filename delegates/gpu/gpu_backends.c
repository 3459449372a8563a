/* The GPU backend registry (gpu_backend.h). */
#include "delegates/backend/gpu_backend.h"

#include <stddef.h>

#include "delegates/opencl/opencl_backend.h"
#include "delegates/vulkan/vulkan_backend.h"
#include "litegpu/gpu_delegate.h"

/* AUTO takes OpenCL when it has a device: OpenCL is the API TFLite's GPU
 * delegate prefers on Android, and drivers there expose it more often. */
static const lg_gpu_backend_entry kBackends[] = {
    {"OpenCL", LITEGPU_GPU_BACKEND_OPENCL, lg_opencl_backend_create},
    {"Vulkan", LITEGPU_GPU_BACKEND_VULKAN, lg_vulkan_backend_create},
};

const lg_gpu_backend_entry* lg_gpu_backends(int* count) {
  if (count != NULL) *count = (int)(sizeof(kBackends) / sizeof(kBackends[0]));
  return kBackends;
}
