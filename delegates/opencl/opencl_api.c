/* Run-time loading of the OpenCL ICD loader (opencl_api.h). */
#define LG_CL_API_DEFINITION
#include "delegates/opencl/opencl_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

lg_cl_functions lg_cl_fn;

static pthread_once_t lg_cl_once = PTHREAD_ONCE_INIT;
static bool lg_cl_loaded;
static char lg_cl_why[512];

/* dlopen's message for the first name that does not open: the one a user
 * can act on. The handle is kept for the life of the process, as a linked
 * library would be. */
static void* lg_cl_open(void) {
  const char* forced = getenv("LITEGPU_OPENCL_TEST_LIBRARY");
  static const char* const kNames[] = {"libOpenCL.so.1", "libOpenCL.so"};
  const char* first_error = NULL;
  char first[256] = "";
  for (size_t i = 0; i < (forced ? 1u : 2u); ++i) {
    const char* name = forced ? forced : kNames[i];
    void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle != NULL) return handle;
    if (first_error == NULL) {
      first_error = dlerror();
      snprintf(first, sizeof(first), "%s", first_error ? first_error : name);
    }
  }
  snprintf(lg_cl_why, sizeof(lg_cl_why),
           "cannot load the OpenCL ICD loader (%s); install one (Debian: "
           "ocl-icd-libopencl1) or a GPU driver that provides libOpenCL",
           first);
  return NULL;
}

static void lg_cl_load_once(void) {
  void* handle = lg_cl_open();
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
