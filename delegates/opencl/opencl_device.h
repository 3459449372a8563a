/* Device discovery and device info for the OpenCL backend (internal). */
#ifndef LITEGPU_DELEGATES_OPENCL_OPENCL_DEVICE_H_
#define LITEGPU_DELEGATES_OPENCL_OPENCL_DEVICE_H_

#include <stdbool.h>

#include "delegates/opencl/opencl_api.h" /* CL/cl.h, the loaded calls */

#include "delegates/backend/gpu_backend.h"

typedef struct lg_cl_device_entry {
  cl_platform_id platform;
  cl_device_id device;
  bool is_gpu;
} lg_cl_device_entry;

/* Picks candidate `device_index` by the rule in opencl_backend.h. */
TfLiteStatus lg_cl_pick_device(int device_index, cl_platform_id* platform,
                               cl_device_id* device, lg_gpu_error* error);

/* Fills `info` from the device's properties. */
TfLiteStatus lg_cl_read_device_info(cl_device_id device,
                                    lg_gpu_device_info* info,
                                    lg_gpu_error* error);

#endif /* LITEGPU_DELEGATES_OPENCL_OPENCL_DEVICE_H_ */
