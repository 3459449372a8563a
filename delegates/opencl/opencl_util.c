/* CL error names, error messages, fault injection, object accounting and
 * the embedded-source registry for the OpenCL backend (see
 * opencl_internal.h). */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "delegates/opencl/opencl_internal.h"

#include "delegates/opencl/opencl_sources.h"

/* ---- Error names -------------------------------------------------------- */

typedef struct lg_cl_error_entry {
  cl_int code;
  const char* name;
} lg_cl_error_entry;

/* Codes from the OpenCL 1.2 specification (and 2.x additions a 1.2 runtime
 * may still return through a newer ICD). */
static const lg_cl_error_entry lg_cl_errors[] = {
    {0, "CL_SUCCESS"},
    {-1, "CL_DEVICE_NOT_FOUND"},
    {-2, "CL_DEVICE_NOT_AVAILABLE"},
    {-3, "CL_COMPILER_NOT_AVAILABLE"},
    {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
    {-5, "CL_OUT_OF_RESOURCES"},
    {-6, "CL_OUT_OF_HOST_MEMORY"},
    {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
    {-8, "CL_MEM_COPY_OVERLAP"},
    {-9, "CL_IMAGE_FORMAT_MISMATCH"},
    {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
    {-11, "CL_BUILD_PROGRAM_FAILURE"},
    {-12, "CL_MAP_FAILURE"},
    {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
    {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
    {-15, "CL_COMPILE_PROGRAM_FAILURE"},
    {-16, "CL_LINKER_NOT_AVAILABLE"},
    {-17, "CL_LINK_PROGRAM_FAILURE"},
    {-18, "CL_DEVICE_PARTITION_FAILED"},
    {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
    {-30, "CL_INVALID_VALUE"},
    {-31, "CL_INVALID_DEVICE_TYPE"},
    {-32, "CL_INVALID_PLATFORM"},
    {-33, "CL_INVALID_DEVICE"},
    {-34, "CL_INVALID_CONTEXT"},
    {-35, "CL_INVALID_QUEUE_PROPERTIES"},
    {-36, "CL_INVALID_COMMAND_QUEUE"},
    {-37, "CL_INVALID_HOST_PTR"},
    {-38, "CL_INVALID_MEM_OBJECT"},
    {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"},
    {-40, "CL_INVALID_IMAGE_SIZE"},
    {-41, "CL_INVALID_SAMPLER"},
    {-42, "CL_INVALID_BINARY"},
    {-43, "CL_INVALID_BUILD_OPTIONS"},
    {-44, "CL_INVALID_PROGRAM"},
    {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
    {-46, "CL_INVALID_KERNEL_NAME"},
    {-47, "CL_INVALID_KERNEL_DEFINITION"},
    {-48, "CL_INVALID_KERNEL"},
    {-49, "CL_INVALID_ARG_INDEX"},
    {-50, "CL_INVALID_ARG_VALUE"},
    {-51, "CL_INVALID_ARG_SIZE"},
    {-52, "CL_INVALID_KERNEL_ARGS"},
    {-53, "CL_INVALID_WORK_DIMENSION"},
    {-54, "CL_INVALID_WORK_GROUP_SIZE"},
    {-55, "CL_INVALID_WORK_ITEM_SIZE"},
    {-56, "CL_INVALID_GLOBAL_OFFSET"},
    {-57, "CL_INVALID_EVENT_WAIT_LIST"},
    {-58, "CL_INVALID_EVENT"},
    {-59, "CL_INVALID_OPERATION"},
    {-60, "CL_INVALID_GL_OBJECT"},
    {-61, "CL_INVALID_BUFFER_SIZE"},
    {-62, "CL_INVALID_MIP_LEVEL"},
    {-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
    {-64, "CL_INVALID_PROPERTY"},
    {-65, "CL_INVALID_IMAGE_DESCRIPTOR"},
    {-66, "CL_INVALID_COMPILER_OPTIONS"},
    {-67, "CL_INVALID_LINKER_OPTIONS"},
    {-68, "CL_INVALID_DEVICE_PARTITION_COUNT"},
    {-69, "CL_INVALID_PIPE_SIZE"},
    {-70, "CL_INVALID_DEVICE_QUEUE"},
    {-71, "CL_INVALID_SPEC_ID"},
    {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
};

const char* lg_cl_error_name(cl_int code) {
  for (size_t i = 0; i < sizeof(lg_cl_errors) / sizeof(lg_cl_errors[0]); ++i) {
    if (lg_cl_errors[i].code == code) return lg_cl_errors[i].name;
  }
  return "unknown CL error";
}

/* ---- Messages ----------------------------------------------------------- */

void lg_cl_fail(lg_gpu_error* error, const char* call, cl_int code,
                const char* detail_format, ...) {
  va_list args;
  va_start(args, detail_format);
  lg_gpu_error_call(error, call, lg_cl_error_name(code), (int)code,
                    detail_format, args);
  va_end(args);
}

/* ---- Fault injection ---------------------------------------------------- */

static lg_gpu_fault lg_cl_fault;

void lg_opencl_fail_call(const char* call_name, int nth) {
  lg_gpu_fault_arm(&lg_cl_fault, call_name, nth);
}

bool lg_opencl_fail_fired(void) { return lg_cl_fault.fired; }

bool lg_cl_inject(const char* call_name) {
  return lg_gpu_fault_hit(&lg_cl_fault, call_name);
}

/* ---- Object accounting -------------------------------------------------- */

static atomic_long lg_live_objects = 0;

void lg_cl_object_created(void) { atomic_fetch_add(&lg_live_objects, 1); }
void lg_cl_object_released(void) { atomic_fetch_sub(&lg_live_objects, 1); }
long lg_opencl_live_objects(void) { return atomic_load(&lg_live_objects); }

static lg_opencl_program_observer lg_cl_observer;
static void* lg_cl_observer_user;

void lg_opencl_observe_programs(lg_opencl_program_observer observer,
                                void* user) {
  lg_cl_observer = observer;
  lg_cl_observer_user = user;
}

void lg_cl_observe(const char* name, const char* options,
                   const char* const* lines, size_t line_count) {
  if (lg_cl_observer != NULL) {
    lg_cl_observer(name, options, lines, line_count, lg_cl_observer_user);
  }
}

/* ---- The source registry ------------------------------------ */

const lg_embedded_source* lg_opencl_source_find(const char* name) {
  if (name == NULL) return NULL;
  for (size_t i = 0; i < lg_opencl_source_count; ++i) {
    if (strcmp(lg_opencl_sources[i].name, name) == 0) {
      return &lg_opencl_sources[i];
    }
  }
  return NULL;
}

const char* const lg_opencl_preamble[LG_OPENCL_PREAMBLE_COUNT] = {
    LG_OPENCL_PREAMBLE, "lg_op_codes", "lg_dialect_cl", "lg_kernel"};

const lg_embedded_source* lg_opencl_kernel_find(const char* name) {
  if (name == NULL) return NULL;
  for (size_t i = 0; i < LG_OPENCL_PREAMBLE_COUNT; ++i) {
    if (strcmp(name, lg_opencl_preamble[i]) == 0) return NULL;
  }
  return lg_opencl_source_find(name);
}
