/* The core wrappers around the backend slots (gpu_backend.h). */
#include "delegates/backend/gpu_backend.h"

#include <stddef.h>

#include "delegates/backend/gpu_error.h"

TfLiteStatus lg_gpu_dispatch(lg_gpu_backend* be, lg_gpu_kernel* kernel,
                             const lg_gpu_arg* args, int num_args, int dims,
                             const size_t* global, const size_t* local,
                             lg_gpu_error* error) {
  if (be == NULL || kernel == NULL || global == NULL || dims < 1 || dims > 3 ||
      num_args < 0 || (num_args > 0 && args == NULL)) {
    lg_gpu_error_set(error,
                     "dispatch: invalid arguments (kernel %p, dims %d, "
                     "%d args)",
                     (const void*)kernel, dims, num_args);
    return kTfLiteError;
  }
  for (int d = 0; d < dims; ++d) {
    if (global[d] == 0 || (local != NULL && local[d] == 0)) {
      lg_gpu_error_set(error, "dispatch: %s size is 0 in dimension %d",
                       global[d] == 0 ? "global" : "local", d);
      return kTfLiteError;
    }
  }
  for (int i = 0; i < num_args; ++i) {
    if (args[i].kind == LG_GPU_ARG_KIND_BUFFER &&
        args[i].value.buffer == NULL) {
      lg_gpu_error_set(error, "dispatch: argument %d is a NULL buffer", i);
      return kTfLiteError;
    }
  }
  return be->ops->dispatch(be, kernel, args, num_args, dims, global, local,
                           error);
}

TfLiteStatus lg_gpu_buffer_upload(lg_gpu_backend* be, lg_gpu_buffer* buffer,
                                  size_t offset, const void* data, size_t bytes,
                                  lg_gpu_error* error) {
  if (be == NULL || buffer == NULL || (data == NULL && bytes > 0)) {
    lg_gpu_error_set(
        error, "buffer_upload: NULL %s",
        be == NULL ? "backend" : (buffer == NULL ? "buffer" : "data"));
    return kTfLiteError;
  }
  return be->ops->buffer_upload(be, buffer, offset, data, bytes, error);
}
