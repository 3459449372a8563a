/* Error messages and fault injection shared by the GPU backends
 * (gpu_error.h). */
#include "delegates/backend/gpu_error.h"

#include <stdio.h>
#include <string.h>

void lg_gpu_error_set(lg_gpu_error* error, const char* format, ...) {
  if (error == NULL) return;
  va_list args;
  va_start(args, format);
  vsnprintf(error->message, sizeof(error->message), format, args);
  va_end(args);
}

void lg_gpu_error_call(lg_gpu_error* error, const char* call,
                       const char* code_name, int code,
                       const char* detail_format, va_list args) {
  if (error == NULL) return;
  int n = snprintf(error->message, sizeof(error->message), "%s failed: %s (%d)",
                   call, code_name, code);
  if (detail_format == NULL || n < 0 ||
      (size_t)n + 2 >= sizeof(error->message)) {
    return;
  }
  memcpy(error->message + n, ": ", 3);
  vsnprintf(error->message + n + 2, sizeof(error->message) - (size_t)n - 2,
            detail_format, args);
}

void lg_gpu_fault_arm(lg_gpu_fault* fault, const char* call_name, int nth) {
  fault->fired = false;
  if (call_name == NULL || nth < 1) {
    fault->armed = false;
    return;
  }
  snprintf(fault->name, sizeof(fault->name), "%s", call_name);
  fault->remaining = nth;
  fault->armed = true;
}

bool lg_gpu_fault_hit(lg_gpu_fault* fault, const char* call_name) {
  if (!fault->armed || strcmp(call_name, fault->name) != 0) return false;
  if (--fault->remaining > 0) return false;
  fault->armed = false;
  fault->fired = true;
  return true;
}
