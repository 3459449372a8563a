/* Run-time loading of the OpenCL ICD loader (opencl_api.h). */
#define LG_CL_API_DEFINITION
#include "delegates/opencl/opencl_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "delegates/backend/gpu_library.h"

lg_cl_functions lg_cl_fn;

static pthread_once_t lg_cl_once = PTHREAD_ONCE_INIT;
static bool lg_cl_loaded;
static char lg_cl_why[512];

static void lg_cl_load_once(void) {
  static const char* const kNames[] = {"libOpenCL.so.1", "libOpenCL.so"};
  void* handle = lg_gpu_library_open("LITEGPU_OPENCL_TEST_LIBRARY", kNames, 2,
                                     "the OpenCL ICD loader",
                                     "install one (Debian: ocl-icd-libopencl1) "
                                     "or a GPU driver that provides libOpenCL",
                                     lg_cl_why, sizeof(lg_cl_why));
  if (handle == NULL) return;
#define LG_CL_RESOLVE(name)                                              \
  *(void**)&lg_cl_fn.name = dlsym(handle, #name);                        \
  if (lg_cl_fn.name == NULL) {                                           \
    snprintf(lg_cl_why, sizeof(lg_cl_why),                               \
             "the OpenCL ICD loader has no %s (an OpenCL 1.2 loader is " \
             "required)",                                                \
             #name);                                                     \
    return;                                                              \
  }
  LG_CL_FUNCTIONS(LG_CL_RESOLVE)
#undef LG_CL_RESOLVE
  lg_cl_loaded = true;
}

bool lg_cl_api_load(char* why, size_t why_size) {
  pthread_once(&lg_cl_once, lg_cl_load_once);
  if (!lg_cl_loaded && why != NULL && why_size > 0) {
    snprintf(why, why_size, "%s", lg_cl_why);
  }
  return lg_cl_loaded;
}
