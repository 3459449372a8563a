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

/* A copy of `bytes` at `offset` between `buffer` and host `data`. */
static TfLiteStatus check_copy(const lg_gpu_backend* be, const char* slot,
                               const lg_gpu_buffer* buffer, size_t offset,
                               const void* data, size_t bytes,
                               lg_gpu_error* error) {
  if (buffer == NULL || (data == NULL && bytes > 0)) {
    lg_gpu_error_set(error, "%s: NULL %s", slot,
                     buffer == NULL ? "buffer" : "host pointer");
    return kTfLiteError;
  }
  const size_t size = be->ops->buffer_bytes(buffer);
  if (offset > size || bytes > size - offset) {
    lg_gpu_error_set(error,
                     "%s: range [%zu, %zu + %zu) is outside the %zu-byte "
                     "buffer",
                     slot, offset, offset, bytes, size);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus lg_gpu_buffer_upload(lg_gpu_backend* be, lg_gpu_buffer* buffer,
                                  size_t offset, const void* data, size_t bytes,
                                  lg_gpu_error* error) {
  if (be == NULL) {
    lg_gpu_error_set(error, "buffer_upload: NULL backend");
    return kTfLiteError;
  }
  if (check_copy(be, "buffer_upload", buffer, offset, data, bytes, error) !=
      kTfLiteOk) {
    return kTfLiteError;
  }
  return be->ops->buffer_upload(be, buffer, offset, data, bytes, error);
}

static TfLiteStatus check_downloads(lg_gpu_backend* be, const char* what,
                                    const lg_gpu_download* list, int count,
                                    lg_gpu_error* error) {
  if (be == NULL || count < 0 || (count > 0 && list == NULL)) {
    lg_gpu_error_set(error, "%s: %d copies from %p", what, count,
                     (const void*)list);
    return kTfLiteError;
  }
  for (int i = 0; i < count; ++i) {
    const lg_gpu_download* d = &list[i];
    if (check_copy(be, what, d->buffer, d->offset, d->data, d->bytes, error) !=
        kTfLiteOk) {
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

TfLiteStatus lg_gpu_buffer_download_batch(lg_gpu_backend* be,
                                          const lg_gpu_download* list,
                                          int count, lg_gpu_error* error) {
  if (check_downloads(be, "buffer_download", list, count, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  return be->ops->buffer_download_batch(be, list, count, error);
}

TfLiteStatus lg_gpu_download_begin(lg_gpu_backend* be,
                                   const lg_gpu_download* list, int count,
                                   lg_gpu_fence** out, lg_gpu_error* error) {
  if (out == NULL) {
    lg_gpu_error_set(error, "download_begin: no place for the fence");
    return kTfLiteError;
  }
  *out = NULL;
  if (check_downloads(be, "download_begin", list, count, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  if (be->ops->download_begin == NULL) {
    lg_gpu_error_set(error,
                     "download_begin: the %s backend has no "
                     "non-blocking downloads",
                     be->name);
    return kTfLiteError;
  }
  return be->ops->download_begin(be, list, count, out, error);
}
