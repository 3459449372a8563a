/* Internals shared by the OpenCL backend's files: CL error names, error
 * messages, fault injection, object accounting and hashing.
 *
 * Fault injection (tests): lg_opencl_fail_call("clBuildProgram", 2) makes
 * the 2nd use of clBuildProgram from now on fail with a CL error (once);
 * lg_opencl_fail_call(NULL, 0) disarms. The backend routes every fallible CL
 * call through lg_cl_inject(name) first, which costs one load and a branch
 * while nothing is armed. Process-wide and not thread-safe: for tests only.
 *
 * Object accounting: every CL object the backend creates (context, queue,
 * buffer, program, kernel) is counted while alive, so tests can prove that
 * failure paths leak nothing even where the driver hides its allocations
 * from LeakSanitizer. */
#ifndef LITEGPU_DELEGATES_OPENCL_OPENCL_INTERNAL_H_
#define LITEGPU_DELEGATES_OPENCL_OPENCL_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "delegates/backend/gpu_backend.h"
#include "delegates/backend/gpu_error.h"
#include "delegates/opencl/opencl_api.h" /* CL/cl.h, the loaded calls */

/* The ICD loader's "no platform" code (cl_khr_icd, in cl_ext.h). */
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

/* ---- Test hooks --------------------------------------------------------- */

/* Arms a failure of the `nth` (1-based) next use of `call_name`; NULL or
 * nth < 1 disarms. */
void lg_opencl_fail_call(const char* call_name, int nth);
/* Whether the armed failure has fired since the last lg_opencl_fail_call. */
bool lg_opencl_fail_fired(void);
/* CL objects created by any backend and not yet released. */
long lg_opencl_live_objects(void);
/* Calls `observer` with every program a backend gets (compiled or loaded
 * from the cache): the kernel name, the build options and the source as
 * its lines, exactly as given to the driver. NULL stops. Process-wide: for
 * tools that check the kernels elsewhere (the conformance runner's
 * --record-opencl-programs). */
typedef void (*lg_opencl_program_observer)(const char* name,
                                           const char* options,
                                           const char* const* lines,
                                           size_t line_count, void* user);
void lg_opencl_observe_programs(lg_opencl_program_observer observer,
                                void* user);
/* The observer's call (opencl_program.c). */
void lg_cl_observe(const char* name, const char* options,
                   const char* const* lines, size_t line_count);

/* ---- Used by the backend ------------------------------------------------ */

/* The name of a CL error code ("CL_OUT_OF_RESOURCES"), or "unknown CL
 * error" for codes the table does not know. */
const char* lg_cl_error_name(cl_int code);

/* True when the armed failure is for `call_name` and this is its nth use. */
bool lg_cl_inject(const char* call_name);

/* Fills `error` (may be NULL) with "<call> failed: <NAME> (<code>)" and an
 * optional printf-style detail after ": ". */
void lg_cl_fail(lg_gpu_error* error, const char* call, cl_int code,
                const char* detail_format, ...)
    __attribute__((format(printf, 4, 5)));
/* Free-form messages: lg_gpu_error_set (delegates/backend/gpu_error.h). */

void lg_cl_object_created(void);
void lg_cl_object_released(void);

#endif /* LITEGPU_DELEGATES_OPENCL_OPENCL_INTERNAL_H_ */
