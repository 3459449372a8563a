/* The tools' --custom_op_library=PATH (repeatable): custom-op libraries
 * (include/litegpu/custom_op_library.h) loaded once after the command line
 * is read, and registered on the options of every interpreter a tool
 * creates.
 *
 *   lg_custom_op_libraries libs = {0};
 *   lg_custom_op_libraries_add(&libs, path, why, sizeof(why));  per flag
 *   lg_custom_op_libraries_load(&libs, why, sizeof(why));       at start
 *   lg_custom_op_libraries_register(&libs, options, why, sizeof(why));
 *   ... create and delete interpreters ...
 *   lg_custom_op_libraries_close(&libs);  after the last interpreter
 *
 * Every failure writes a message (without the tool's name) into `why`: the
 * dlerror text for a library that cannot be opened, the missing symbol's
 * name, or the status a library's register function returned. The tools
 * exit with their bad-argument status on those. The tool executables export
 * litegpu's API (ENABLE_EXPORTS in CMakeLists.txt), which the libraries
 * call. */
#ifndef LITEGPU_TOOLS_CUSTOM_OP_LIBRARY_H_
#define LITEGPU_TOOLS_CUSTOM_OP_LIBRARY_H_

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "litegpu/custom_op_library.h"
#include "tensorflow/lite/c/c_api.h"

#define LG_MAX_CUSTOM_OP_LIBRARIES 16

typedef struct lg_custom_op_libraries {
  int count;
  const char* paths[LG_MAX_CUSTOM_OP_LIBRARIES]; /* point into argv */
  void* handles[LG_MAX_CUSTOM_OP_LIBRARIES];     /* NULL until opened */
  litegpu_register_custom_ops_fn registers[LG_MAX_CUSTOM_OP_LIBRARIES];
} lg_custom_op_libraries;

/* Records one --custom_op_library value. */
static inline bool lg_custom_op_libraries_add(lg_custom_op_libraries* libs,
                                              const char* path, char* why,
                                              size_t why_size) {
  if (path == NULL || path[0] == '\0') {
    snprintf(why, why_size, "--custom_op_library needs a path");
    return false;
  }
  if (libs->count == LG_MAX_CUSTOM_OP_LIBRARIES) {
    snprintf(why, why_size, "more than %d --custom_op_library flags",
             LG_MAX_CUSTOM_OP_LIBRARIES);
    return false;
  }
  libs->paths[libs->count++] = path;
  return true;
}

/* Opens every library and finds its register function, in flag order. */
static inline bool lg_custom_op_libraries_open(lg_custom_op_libraries* libs,
                                               char* why, size_t why_size) {
  for (int i = 0; i < libs->count; ++i) {
    if (libs->handles[i] != NULL) continue;
    dlerror(); /* clear a stale message */
    void* handle = dlopen(libs->paths[i], RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
      const char* error = dlerror();
      snprintf(why, why_size, "--custom_op_library: cannot open '%s': %s",
               libs->paths[i], error != NULL ? error : "unknown error");
      return false;
    }
    libs->handles[i] = handle;
    /* POSIX's way from a dlsym result to a function pointer. */
    void* symbol = dlsym(handle, LITEGPU_REGISTER_CUSTOM_OPS_SYMBOL);
    if (symbol == NULL) {
      snprintf(why, why_size,
               "--custom_op_library: '%s' does not export %s (a custom-op "
               "library defines TfLiteStatus %s(TfLiteInterpreterOptions*); "
               "see include/litegpu/custom_op_library.h)",
               libs->paths[i], LITEGPU_REGISTER_CUSTOM_OPS_SYMBOL,
               LITEGPU_REGISTER_CUSTOM_OPS_SYMBOL);
      return false;
    }
    memcpy(&libs->registers[i], &symbol, sizeof(symbol));
  }
  return true;
}

/* Calls every library's register function on `options`, in flag order. */
static inline bool lg_custom_op_libraries_register(
    const lg_custom_op_libraries* libs, TfLiteInterpreterOptions* options,
    char* why, size_t why_size) {
  for (int i = 0; i < libs->count; ++i) {
    if (libs->registers[i] == NULL) continue;
    const TfLiteStatus status = libs->registers[i](options);
    if (status != kTfLiteOk) {
      snprintf(why, why_size,
               "--custom_op_library: %s of '%s' returned status %d",
               LITEGPU_REGISTER_CUSTOM_OPS_SYMBOL, libs->paths[i], (int)status);
      return false;
    }
  }
  return true;
}

/* Opens every library, then registers each once on scratch options, so
 * that a bad library fails when the tool starts, before it loads a model or
 * prints anything. */
static inline bool lg_custom_op_libraries_load(lg_custom_op_libraries* libs,
                                               char* why, size_t why_size) {
  if (!lg_custom_op_libraries_open(libs, why, why_size)) return false;
  if (libs->count == 0) return true;
  TfLiteInterpreterOptions* scratch = TfLiteInterpreterOptionsCreate();
  if (scratch == NULL) {
    snprintf(why, why_size, "--custom_op_library: out of memory");
    return false;
  }
  const bool ok = lg_custom_op_libraries_register(libs, scratch, why, why_size);
  TfLiteInterpreterOptionsDelete(scratch);
  return ok;
}

/* Unloads the libraries; no interpreter made with their ops may remain. */
static inline void lg_custom_op_libraries_close(lg_custom_op_libraries* libs) {
  for (int i = 0; i < libs->count; ++i) {
    if (libs->handles[i] != NULL) dlclose(libs->handles[i]);
    libs->handles[i] = NULL;
    libs->registers[i] = NULL;
  }
}

#endif /* LITEGPU_TOOLS_CUSTOM_OP_LIBRARY_H_ */
