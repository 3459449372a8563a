/* The OpenCL backend's private state, shared by its files (internal). */
#ifndef LITEGPU_DELEGATES_OPENCL_OPENCL_IMPL_H_
#define LITEGPU_DELEGATES_OPENCL_OPENCL_IMPL_H_

#include <stdbool.h>
#include <stddef.h>

#include "delegates/opencl/opencl_api.h" /* CL/cl.h, the loaded calls */

#include "delegates/backend/gpu_backend.h"
#include "delegates/opencl/opencl_backend.h"

typedef struct lg_cl_impl {
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  char* cache_dir;          /* owned; NULL: no program cache */
  uint64_t cache_namespace; /* hash of the model token in every key; 0: none */
  /* With fp16_storage: half arithmetic too (-DLG_HALF_MATH), only when the
   * device has cl_khr_fp16 and the test hook is off. */
  bool half_math;
  lg_opencl_stats stats;
} lg_cl_impl;

struct lg_gpu_buffer {
  cl_mem mem;
  size_t bytes;
};

struct lg_gpu_kernel {
  cl_program program;
  cl_kernel kernel;
  size_t max_work_group_size; /* CL_KERNEL_WORK_GROUP_SIZE */
  /* CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE (8 on PoCL, the SIMD or
   * warp width on GPUs) */
  size_t preferred_multiple;
  char name[64];
};

/* opencl_program.c */
TfLiteStatus lg_cl_kernel_create(lg_gpu_backend* be, const char* name,
                                 const char* defines, lg_gpu_kernel** out,
                                 lg_gpu_error* error);
void lg_cl_kernel_release(lg_gpu_backend* be, lg_gpu_kernel* kernel);
size_t lg_cl_kernel_max_work_group_size(lg_gpu_backend* be,
                                        const lg_gpu_kernel* kernel);

/* opencl_backend.c: the local size dispatch picks when given none: powers
 * of two, within the kernel's and the device's limits (and at most 256
 * work items), spread over the dimensions with the most work; once a group
 * holds `multiple` items it stops growing where that would leave fewer
 * groups than the device has compute units (one group runs on one). */
void lg_cl_choose_local_size(const lg_gpu_device_info* device,
                             size_t kernel_max, size_t multiple, int dims,
                             const size_t* global, size_t* local);

#endif /* LITEGPU_DELEGATES_OPENCL_OPENCL_IMPL_H_ */
