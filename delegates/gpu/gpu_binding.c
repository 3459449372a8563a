/* Zero-copy I/O of the GPU delegate (include/litegpu/gpu_delegate.h,
 * "Zero-copy I/O"): device buffers bound to partition inputs and outputs,
 * as TFLite buffer handles.
 *
 * A bind wraps the application's buffer (the backend's buffer_wrap), points
 * the partition's program at it (lg_gpu_program_bind: no upload or
 * download of that tensor from then on) and gives the tensor a buffer
 * handle of the delegate: TfLiteTensor.buffer_handle is an index into
 * gd->bindings, TfLiteTensor.delegate the delegate, and data_is_stale is
 * set whenever the buffer holds newer bytes than tensor->data (at the bind
 * and after each run), so the runtime calls CopyFromBufferHandle before a
 * CPU node or the application reads the tensor. FreeBufferHandle (the
 * runtime removing the delegate) unbinds and drops the wrapper. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/gpu/gpu_delegate_internal.h"

struct litegpu_gpu_buffer {
  lg_gpu_device_ref* device; /* a reference: the buffer keeps it alive */
  lg_gpu_buffer* buffer;
};

/* Keeps the reason for litegpu_gpu_delegate_last_error and reports it to
 * the interpreter's reporter when a partition gives the context. */
static TfLiteStatus fail(gpu_delegate* gd, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
static TfLiteStatus fail(gpu_delegate* gd, const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(gd->last_error, sizeof(gd->last_error), format, args);
  va_end(args);
  if (gd->num_parts > 0) {
    TfLiteContext* context = gd->parts[0]->context;
    context->ReportError(context, "%s", gd->last_error);
  }
  return kTfLiteError;
}

static gpu_binding* binding_of(gpu_delegate* gd, TfLiteBufferHandle handle) {
  if (handle < 0 || handle >= gd->num_bindings) return NULL;
  gpu_binding* b = &gd->bindings[handle];
  return b->buffer != NULL ? b : NULL;
}

/* ---- The buffer-handle callbacks --------------------------------------------
 */

/* Copies host bytes into `buffer` and waits: the upload may read `data`
 * until the device finished. */
static TfLiteStatus upload_and_wait(lg_gpu_backend* be, lg_gpu_buffer* buffer,
                                    size_t offset, const void* data,
                                    size_t bytes, lg_gpu_error* error) {
  if (lg_gpu_buffer_upload(be, buffer, offset, data, bytes, error) !=
      kTfLiteOk) {
    return kTfLiteError;
  }
  return be->ops->finish(be, error);
}

/* One copy between handle `handle`'s buffer and `tensor`'s data, waited
 * for: to the tensor (CopyFromBufferHandle, `to_tensor`) or from it
 * (CopyToBufferHandle). Failures are reported under the callback's name. */
static TfLiteStatus copy_handle(TfLiteContext* context,
                                TfLiteDelegate* delegate,
                                TfLiteBufferHandle handle, TfLiteTensor* tensor,
                                bool to_tensor) {
  const char* name = to_tensor ? "CopyFromBufferHandle" : "CopyToBufferHandle";
  gpu_delegate* gd = lg_gpu_delegate_from(delegate);
  gpu_binding* b = binding_of(gd, handle);
  if (b == NULL || tensor->data.raw == NULL) {
    context->ReportError(
        context, "GPU delegate: %s: %s (handle %d)", name,
        b == NULL ? "no such buffer handle" : "the tensor has no data", handle);
    return kTfLiteError;
  }
  lg_gpu_backend* be = gd->backend;
  lg_gpu_error error = {{0}};
  const TfLiteStatus status =
      to_tensor ? lg_gpu_buffer_download(be, b->buffer, 0, tensor->data.raw,
                                         tensor->bytes, &error)
                : upload_and_wait(be, b->buffer, 0, tensor->data.raw,
                                  tensor->bytes, &error);
  if (status != kTfLiteOk) {
    context->ReportError(context, "GPU delegate: %s: %s", name, error.message);
    return kTfLiteError;
  }
  gd->bytes_copied_by_handles += tensor->bytes;
  return kTfLiteOk;
}

static TfLiteStatus copy_from_handle(TfLiteContext* context,
                                     TfLiteDelegate* delegate,
                                     TfLiteBufferHandle handle,
                                     TfLiteTensor* tensor) {
  return copy_handle(context, delegate, handle, tensor, true);
}

static TfLiteStatus copy_to_handle(TfLiteContext* context,
                                   TfLiteDelegate* delegate,
                                   TfLiteBufferHandle handle,
                                   TfLiteTensor* tensor) {
  return copy_handle(context, delegate, handle, tensor, false);
}

/* Drops binding `b`: the program reads and writes its own buffer again. */
static void unbind(gpu_delegate* gd, gpu_binding* b) {
  if (b->part != NULL) lg_gpu_program_bind(b->part->program, b->tensor, NULL);
  gd->backend->ops->buffer_release(gd->backend, b->buffer);
  memset(b, 0, sizeof(*b));
}

static void free_handle(TfLiteContext* context, TfLiteDelegate* delegate,
                        TfLiteBufferHandle* handle) {
  (void)context;
  gpu_delegate* gd = lg_gpu_delegate_from(delegate);
  gpu_binding* b = binding_of(gd, *handle);
  if (b != NULL) unbind(gd, b);
  *handle = kTfLiteNullBufferHandle;
}

void lg_gpu_bindings_install(gpu_delegate* gd) {
  gd->base.CopyFromBufferHandle = copy_from_handle;
  gd->base.CopyToBufferHandle = copy_to_handle;
  gd->base.FreeBufferHandle = free_handle;
}

/* ---- Partitions
 * ---------------------------------------------------------------
 */

static bool contains(const TfLiteIntArray* list, int value) {
  for (int i = 0; list != NULL && i < list->size; ++i) {
    if (list->data[i] == value) return true;
  }
  return false;
}

TfLiteIntArray* lg_gpu_written_outside(TfLiteContext* context,
                                       const TfLiteDelegateParams* params) {
  TfLiteIntArray* plan = NULL;
  TfLiteIntArray* found = TfLiteIntArrayCreate(0);
  if (found == NULL || context->GetExecutionPlan(context, &plan) != kTfLiteOk) {
    return found;
  }
  for (int i = 0; i < plan->size; ++i) {
    TfLiteNode* node = NULL;
    TfLiteRegistration* reg = NULL;
    if (contains(params->nodes_to_replace, plan->data[i]) ||
        context->GetNodeAndRegistration(context, plan->data[i], &node, &reg) !=
            kTfLiteOk) {
      continue;
    }
    for (int k = 0; k < node->outputs->size; ++k) {
      const int t = node->outputs->data[k];
      if (!contains(params->input_tensors, t) || contains(found, t)) continue;
      TfLiteIntArray* grown = TfLiteIntArrayCreate(found->size + 1);
      if (grown == NULL) {
        TfLiteIntArrayFree(found);
        return NULL;
      }
      memcpy(grown->data, found->data, sizeof(int) * (size_t)found->size);
      grown->data[found->size] = t;
      TfLiteIntArrayFree(found);
      found = grown;
    }
  }
  return found;
}

void lg_gpu_bindings_ran(gpu_delegate* gd, const gpu_partition* part) {
  for (int i = 0; i < gd->num_bindings; ++i) {
    const gpu_binding* b = &gd->bindings[i];
    if (b->buffer != NULL && b->part == part) {
      part->context->tensors[b->tensor].data_is_stale = true;
    }
  }
}

void lg_gpu_bindings_forget(gpu_delegate* gd, const gpu_partition* part) {
  for (int i = 0; i < gd->num_bindings; ++i) {
    if (gd->bindings[i].part == part) gd->bindings[i].part = NULL;
  }
}

void lg_gpu_bindings_release(gpu_delegate* gd) {
  for (int i = 0; i < gd->num_bindings; ++i) {
    if (gd->bindings[i].buffer != NULL) unbind(gd, &gd->bindings[i]);
  }
  free(gd->bindings);
  gd->bindings = NULL;
  gd->num_bindings = 0;
}

/* ---- Binding
 * ------------------------------------------------------------------
 */

/* The partition that has `tensor` as an input or output; NULL (the reason
 * kept) when none or several do. */
static gpu_partition* partition_of(gpu_delegate* gd, int tensor) {
  gpu_partition* found = NULL;
  for (int i = 0; i < gd->num_parts; ++i) {
    if (!lg_gpu_program_is_boundary(gd->parts[i]->program, tensor)) continue;
    if (found != NULL) {
      fail(gd,
           "GPU delegate: tensor %d is an output of one GPU partition and an "
           "input of another; binding it is not supported",
           tensor);
      return NULL;
    }
    found = gd->parts[i];
  }
  if (found == NULL) {
    fail(gd,
         "GPU delegate: tensor %d is not an input or output of a partition "
         "of this delegate (%s)",
         tensor,
         gd->num_parts == 0
             ? "it has no partition: apply it to the interpreter first"
             : "a tensor the CPU runs, or one inside a partition");
  }
  return found;
}

/* A free handle; -1 when out of memory. */
static int new_handle(gpu_delegate* gd) {
  for (int i = 0; i < gd->num_bindings; ++i) {
    if (gd->bindings[i].buffer == NULL) return i;
  }
  gpu_binding* grown =
      realloc(gd->bindings, sizeof(*grown) * (size_t)(gd->num_bindings + 1));
  if (grown == NULL) return -1;
  gd->bindings = grown;
  memset(&grown[gd->num_bindings], 0, sizeof(*grown));
  return gd->num_bindings++;
}

/* Checks that `tensor` can be bound, then binds `buffer` (taken over: released
 * on failure) to it. */
static TfLiteStatus bind_wrapped(gpu_delegate* gd, lg_gpu_buffer* buffer,
                                 int tensor) {
  gpu_partition* part = partition_of(gd, tensor);
  TfLiteStatus status = kTfLiteError;
  if (part == NULL) goto done;
  TfLiteTensor* t = &part->context->tensors[tensor];
  if (contains(part->written_outside, tensor)) {
    fail(gd,
         "GPU delegate: tensor %d is written by a node outside the GPU "
         "partition, whose writes the bound buffer would not see",
         tensor);
    goto done;
  }
  if (t->delegate != NULL && t->delegate != &gd->base) {
    fail(gd, "GPU delegate: tensor %d has a buffer handle of another delegate",
         tensor);
    goto done;
  }
  const int handle = new_handle(gd);
  if (handle < 0) {
    fail(gd, "GPU delegate: out of memory");
    goto done;
  }
  if (lg_gpu_program_bind(part->program, tensor, buffer) != kTfLiteOk) {
    fail(gd, "GPU delegate: %s", lg_gpu_program_error(part->program));
    goto done;
  }
  /* Bound again: the earlier handle's wrapper goes (the program already
   * uses the new buffer). */
  gpu_binding* old =
      t->delegate == &gd->base ? binding_of(gd, t->buffer_handle) : NULL;
  if (old != NULL) {
    gd->backend->ops->buffer_release(gd->backend, old->buffer);
    memset(old, 0, sizeof(*old));
  }
  gd->bindings[handle] = (gpu_binding){buffer, part, tensor};
  buffer = NULL;
  t->buffer_handle = handle;
  t->delegate = &gd->base;
  t->data_is_stale = true; /* the buffer is the tensor's data now */
  gd->last_error[0] = '\0';
  status = kTfLiteOk;
done:
  if (buffer != NULL) gd->backend->ops->buffer_release(gd->backend, buffer);
  return status;
}

/* Wraps the application's buffer of API `api` and binds it. */
static TfLiteStatus bind_native(TfLiteDelegate* delegate, const char* api,
                                const lg_gpu_native_buffer* native,
                                int tensor) {
  if (delegate == NULL) return kTfLiteError;
  gpu_delegate* gd = lg_gpu_delegate_from(delegate);
  if (strcmp(gd->backend->name, api) != 0) {
    return fail(gd,
                "GPU delegate: a%s %s buffer cannot be bound: the delegate "
                "runs on %s",
                api[0] == 'O' ? "n" : "", api, gd->backend->name);
  }
  lg_gpu_buffer* wrapped = NULL;
  lg_gpu_error error = {{0}};
  if (gd->backend->ops->buffer_wrap(gd->backend, native, &wrapped, &error) !=
      kTfLiteOk) {
    return fail(gd, "GPU delegate: tensor %d: %s", tensor, error.message);
  }
  return bind_wrapped(gd, wrapped, tensor);
}

TfLiteStatus TfLiteGpuDelegateBindBufferToTensor(TfLiteDelegate* delegate,
                                                 struct _cl_mem* buffer,
                                                 int tensor_index) {
  const lg_gpu_native_buffer native = {(uint64_t)(uintptr_t)buffer, 0, 0};
  return bind_native(delegate, "OpenCL", &native, tensor_index);
}

TfLiteStatus litegpu_gpu_delegate_bind_vulkan_buffer(TfLiteDelegate* delegate,
                                                     uint64_t vk_buffer,
                                                     size_t offset, size_t size,
                                                     int tensor_index) {
  const lg_gpu_native_buffer native = {vk_buffer, offset, size};
  return bind_native(delegate, "Vulkan", &native, tensor_index);
}

TfLiteStatus litegpu_gpu_delegate_bind_buffer(TfLiteDelegate* delegate,
                                              litegpu_gpu_buffer* buffer,
                                              int tensor_index) {
  if (delegate == NULL) return kTfLiteError;
  gpu_delegate* gd = lg_gpu_delegate_from(delegate);
  if (buffer == NULL) return fail(gd, "GPU delegate: the buffer is NULL");
  if (buffer->device != gd->device) {
    return fail(gd,
                "GPU delegate: the buffer was made on another device than "
                "the delegate's (create the delegate with share_device_with)");
  }
  lg_gpu_native_buffer native;
  gd->backend->ops->buffer_native(buffer->buffer, &native);
  return bind_native(delegate, gd->backend->name, &native, tensor_index);
}

const char* litegpu_gpu_delegate_last_error(const TfLiteDelegate* delegate) {
  return delegate == NULL ? NULL : lg_gpu_delegate_from(delegate)->last_error;
}

/* ---- Buffers and the device
 * ---------------------------------------------------
 */

litegpu_gpu_buffer* litegpu_gpu_delegate_create_buffer(TfLiteDelegate* delegate,
                                                       size_t bytes) {
  if (delegate == NULL) return NULL;
  gpu_delegate* gd = lg_gpu_delegate_from(delegate);
  litegpu_gpu_buffer* b = calloc(1, sizeof(*b));
  if (b == NULL) {
    fail(gd, "GPU delegate: out of memory");
    return NULL;
  }
  lg_gpu_error error = {{0}};
  if (gd->backend->ops->buffer_create(gd->backend, bytes, &b->buffer, &error) !=
      kTfLiteOk) {
    fail(gd, "GPU delegate: %s", error.message);
    free(b);
    return NULL;
  }
  b->device = gd->device;
  b->device->refs++;
  return b;
}

void litegpu_gpu_buffer_delete(litegpu_gpu_buffer* buffer) {
  if (buffer == NULL) return;
  lg_gpu_backend* be = buffer->device->backend;
  be->ops->buffer_release(be, buffer->buffer);
  lg_gpu_device_ref_release(buffer->device);
  free(buffer);
}

uint64_t litegpu_gpu_buffer_handle(const litegpu_gpu_buffer* buffer) {
  if (buffer == NULL) return 0;
  lg_gpu_native_buffer native;
  buffer->device->backend->ops->buffer_native(buffer->buffer, &native);
  return native.handle;
}

size_t litegpu_gpu_buffer_size(const litegpu_gpu_buffer* buffer) {
  return buffer == NULL
             ? 0
             : buffer->device->backend->ops->buffer_bytes(buffer->buffer);
}

TfLiteStatus litegpu_gpu_buffer_write(litegpu_gpu_buffer* buffer, size_t offset,
                                      const void* data, size_t bytes) {
  if (buffer == NULL || data == NULL) return kTfLiteError;
  lg_gpu_backend* be = buffer->device->backend;
  lg_gpu_error error = {{0}};
  if (upload_and_wait(be, buffer->buffer, offset, data, bytes, &error) !=
      kTfLiteOk) {
    fprintf(stderr, "litegpu_gpu_buffer_write: %s\n", error.message);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus litegpu_gpu_buffer_read(const litegpu_gpu_buffer* buffer,
                                     size_t offset, void* data, size_t bytes) {
  if (buffer == NULL || data == NULL) return kTfLiteError;
  lg_gpu_backend* be = buffer->device->backend;
  lg_gpu_error error = {{0}};
  if (lg_gpu_buffer_download(be, buffer->buffer, offset, data, bytes, &error) !=
      kTfLiteOk) {
    fprintf(stderr, "litegpu_gpu_buffer_read: %s\n", error.message);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus litegpu_gpu_delegate_get_device(const TfLiteDelegate* delegate,
                                             litegpu_gpu_device_handles* out) {
  if (delegate == NULL || out == NULL) return kTfLiteError;
  const lg_gpu_backend* be = lg_gpu_delegate_from(delegate)->backend;
  lg_gpu_native_device native;
  be->ops->native_device(be, &native);
  out->backend = strcmp(be->name, "OpenCL") == 0 ? LITEGPU_GPU_BACKEND_OPENCL
                                                 : LITEGPU_GPU_BACKEND_VULKAN;
  out->platform = native.instance;
  out->device = native.physical;
  out->context = native.device;
  out->queue = native.queue;
  out->queue_family = native.queue_family;
  return kTfLiteOk;
}
