/* Error messages and fault injection shared by the GPU backends.
 *
 * Messages: lg_gpu_error_call writes "CALL failed: NAME (CODE)" and, when a
 * detail format is given, ": DETAIL" (OpenCL: "clBuildProgram failed:
 * CL_BUILD_PROGRAM_FAILURE (-11): ..."; Vulkan the same with VkResult
 * names). lg_gpu_error_set writes a free-form message. Both accept a NULL
 * error (nothing written) and truncate to LG_GPU_ERROR_SIZE.
 *
 * Fault injection: an lg_gpu_fault makes the nth use of one named API call
 * fail (tests prove every failure path with it). Each backend keeps one
 * and asks lg_gpu_fault_hit before each fallible call:
 *
 *   static lg_gpu_fault g_fault;
 *   lg_gpu_fault_arm(&g_fault, "clEnqueueNDRangeKernel", 2);
 *   ... if (lg_gpu_fault_hit(&g_fault, "clEnqueueNDRangeKernel")) fail;
 *
 * A fault fires once, then disarms; `fired` says whether it did. Not thread
 * safe: tests arm and trigger on one thread.
 */
#ifndef LITEGPU_DELEGATES_BACKEND_GPU_ERROR_H_
#define LITEGPU_DELEGATES_BACKEND_GPU_ERROR_H_

#include <stdarg.h>
#include <stdbool.h>

#include "delegates/backend/gpu_backend.h"

void lg_gpu_error_set(lg_gpu_error* error, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* `detail_format` may be NULL; `args` are its arguments. */
void lg_gpu_error_call(lg_gpu_error* error, const char* call,
                       const char* code_name, int code,
                       const char* detail_format, va_list args);

typedef struct lg_gpu_fault {
  bool armed;
  bool fired;
  char name[64];
  int remaining;
} lg_gpu_fault;

/* Arms `fault` for the nth (1-based) use of `call_name`; NULL or nth < 1
 * disarms. Clears `fired`. */
void lg_gpu_fault_arm(lg_gpu_fault* fault, const char* call_name, int nth);

/* True when this use of `call_name` is the one to fail. */
bool lg_gpu_fault_hit(lg_gpu_fault* fault, const char* call_name);

#endif /* LITEGPU_DELEGATES_BACKEND_GPU_ERROR_H_ */
