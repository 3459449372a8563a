/* The OpenCL entry points the backend calls, loaded at run time from the
 * ICD loader (libOpenCL.so.1, else libOpenCL.so) instead of linked: a
 * device without OpenCL (many Android phones ship only Vulkan) still loads
 * liblitegpu and runs on the CPU or Vulkan, and the OpenCL backend says why
 * it cannot start.
 *
 * Every file that includes this header calls clFoo(...) as usual: a macro
 * turns the name into the loaded pointer (lg_cl_fn.clFoo). Call sites run
 * only after lg_cl_api_load succeeded (the backend's creation loads it
 * first). Test hook: LITEGPU_OPENCL_TEST_LIBRARY=PATH loads PATH instead
 * (a path that does not exist plays a machine without OpenCL). */
#ifndef LITEGPU_DELEGATES_OPENCL_OPENCL_API_H_
#define LITEGPU_DELEGATES_OPENCL_OPENCL_API_H_

#include <stdbool.h>
#include <stddef.h>

/* The backend targets the OpenCL 1.2 API (also where a file including this
 * header is built without the library's compile definitions). */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

/* The functions the backend uses; adding a call adds it here and below. */
#define LG_CL_FUNCTIONS(X)        \
  X(clBuildProgram)               \
  X(clCreateBuffer)               \
  X(clCreateCommandQueue)         \
  X(clCreateContext)              \
  X(clCreateKernel)               \
  X(clCreateProgramWithBinary)    \
  X(clCreateProgramWithSource)    \
  X(clEnqueueBarrierWithWaitList) \
  X(clEnqueueNDRangeKernel)       \
  X(clEnqueueReadBuffer)          \
  X(clEnqueueWriteBuffer)         \
  X(clFinish)                     \
  X(clFlush)                      \
  X(clGetDeviceIDs)               \
  X(clGetDeviceInfo)              \
  X(clGetEventInfo)               \
  X(clGetKernelWorkGroupInfo)     \
  X(clGetMemObjectInfo)           \
  X(clGetPlatformIDs)             \
  X(clGetProgramBuildInfo)        \
  X(clGetProgramInfo)             \
  X(clReleaseCommandQueue)        \
  X(clReleaseContext)             \
  X(clReleaseEvent)               \
  X(clReleaseKernel)              \
  X(clReleaseMemObject)           \
  X(clReleaseProgram)             \
  X(clRetainEvent)                \
  X(clRetainMemObject)            \
  X(clSetKernelArg)               \
  X(clWaitForEvents)

#define LG_CL_POINTER(name) __typeof__(name)* name;
typedef struct lg_cl_functions {
  LG_CL_FUNCTIONS(LG_CL_POINTER)
} lg_cl_functions;
#undef LG_CL_POINTER

extern lg_cl_functions lg_cl_fn;

/* Loads the ICD loader and every function once per process (thread-safe).
 * False, with the reason in `why` (e.g. "cannot load the OpenCL ICD loader
 * (libOpenCL.so.1: cannot open shared object file: ...)"), when it cannot;
 * later calls give the same answer. */
bool lg_cl_api_load(char* why, size_t why_size);

#ifndef LG_CL_API_DEFINITION
#define clBuildProgram lg_cl_fn.clBuildProgram
#define clCreateBuffer lg_cl_fn.clCreateBuffer
#define clCreateCommandQueue lg_cl_fn.clCreateCommandQueue
#define clCreateContext lg_cl_fn.clCreateContext
#define clCreateKernel lg_cl_fn.clCreateKernel
#define clCreateProgramWithBinary lg_cl_fn.clCreateProgramWithBinary
#define clCreateProgramWithSource lg_cl_fn.clCreateProgramWithSource
#define clEnqueueBarrierWithWaitList lg_cl_fn.clEnqueueBarrierWithWaitList
#define clEnqueueNDRangeKernel lg_cl_fn.clEnqueueNDRangeKernel
#define clEnqueueReadBuffer lg_cl_fn.clEnqueueReadBuffer
#define clEnqueueWriteBuffer lg_cl_fn.clEnqueueWriteBuffer
#define clFinish lg_cl_fn.clFinish
#define clFlush lg_cl_fn.clFlush
#define clGetDeviceIDs lg_cl_fn.clGetDeviceIDs
#define clGetDeviceInfo lg_cl_fn.clGetDeviceInfo
#define clGetEventInfo lg_cl_fn.clGetEventInfo
#define clGetKernelWorkGroupInfo lg_cl_fn.clGetKernelWorkGroupInfo
#define clGetMemObjectInfo lg_cl_fn.clGetMemObjectInfo
#define clGetPlatformIDs lg_cl_fn.clGetPlatformIDs
#define clGetProgramBuildInfo lg_cl_fn.clGetProgramBuildInfo
#define clGetProgramInfo lg_cl_fn.clGetProgramInfo
#define clReleaseCommandQueue lg_cl_fn.clReleaseCommandQueue
#define clReleaseContext lg_cl_fn.clReleaseContext
#define clReleaseEvent lg_cl_fn.clReleaseEvent
#define clReleaseKernel lg_cl_fn.clReleaseKernel
#define clReleaseMemObject lg_cl_fn.clReleaseMemObject
#define clReleaseProgram lg_cl_fn.clReleaseProgram
#define clRetainEvent lg_cl_fn.clRetainEvent
#define clRetainMemObject lg_cl_fn.clRetainMemObject
#define clSetKernelArg lg_cl_fn.clSetKernelArg
#define clWaitForEvents lg_cl_fn.clWaitForEvents
#endif

#endif /* LITEGPU_DELEGATES_OPENCL_OPENCL_API_H_ */
