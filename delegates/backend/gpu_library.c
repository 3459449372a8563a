/* Run-time opening of a GPU API's loader library (gpu_library.h). */
#include "delegates/backend/gpu_library.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

void* lg_gpu_library_open(const char* test_env, const char* const* names,
                          int count, const char* what, const char* hint,
                          char* why, size_t why_size) {
  const char* forced = getenv(test_env);
  if (forced != NULL) {
    names = &forced;
    count = 1;
  }
  char first[256] = "";
  for (int i = 0; i < count; ++i) {
    void* handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (handle != NULL) return handle;
    if (first[0] == '\0') {
      const char* message = dlerror();
      snprintf(first, sizeof(first), "%s", message ? message : names[i]);
    }
  }
  snprintf(why, why_size, "cannot load %s (%s); %s", what, first, hint);
  return NULL;
}
