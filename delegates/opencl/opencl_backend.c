/* The OpenCL backend: context, queue, buffers, dispatch (see
 * opencl_backend.h). Program building and the binary cache live in
 * opencl_program.c, device discovery in opencl_device.c. */
#include "delegates/opencl/opencl_backend.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "delegates/backend/cache_file.h"
#include "delegates/opencl/opencl_device.h"
#include "delegates/opencl/opencl_impl.h"
#include "delegates/opencl/opencl_internal.h"
#include "delegates/opencl/opencl_sources.h"
#include "litegpu/async.h"

/* The largest work group dispatch picks by itself: big enough to fill a
 * GPU's SIMD units, small enough to leave registers for the kernel. */
#define LG_CL_DEFAULT_MAX_LOCAL 256u

/* ---- Buffers ------------------------------------------------------------ */

static TfLiteStatus lg_cl_buffer_create(lg_gpu_backend* be, size_t bytes,
                                        lg_gpu_buffer** out,
                                        lg_gpu_error* error) {
  lg_cl_impl* impl = be->impl;
  lg_gpu_buffer* buffer = NULL;
  cl_int err = CL_SUCCESS;
  *out = NULL;
  if (bytes == 0 || (uint64_t)bytes > be->device.max_buffer_bytes) {
    lg_gpu_error_set(error,
                     "buffer_create: %zu bytes is outside 1..%llu (the "
                     "device's CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                     bytes, (unsigned long long)be->device.max_buffer_bytes);
    goto fail;
  }
  buffer = calloc(1, sizeof(*buffer));
  if (buffer == NULL) {
    lg_gpu_error_set(error, "buffer_create: out of host memory");
    goto fail;
  }
  buffer->bytes = bytes;
  buffer->mem =
      lg_cl_inject("clCreateBuffer")
          ? (err = CL_MEM_OBJECT_ALLOCATION_FAILURE, NULL)
          : clCreateBuffer(impl->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (buffer->mem == NULL || err != CL_SUCCESS) {
    lg_cl_fail(error, "clCreateBuffer", err, "%zu bytes", bytes);
    goto fail;
  }
  lg_cl_object_created();
  *out = buffer;
  return kTfLiteOk;
fail:
  free(buffer);
  return kTfLiteError;
}

static void lg_cl_buffer_release(lg_gpu_backend* be, lg_gpu_buffer* buffer) {
  (void)be;
  if (buffer == NULL) return;
  if (buffer->mem != NULL) {
    clReleaseMemObject(buffer->mem);
    lg_cl_object_released();
  }
  free(buffer);
}

static size_t lg_cl_buffer_bytes(const lg_gpu_buffer* buffer) {
  return buffer->bytes;
}

/* The application's cl_mem, retained: it must belong to this backend's
 * context (the kernels' queue cannot use another context's memory). */
static TfLiteStatus lg_cl_buffer_wrap(lg_gpu_backend* be,
                                      const lg_gpu_native_buffer* native,
                                      lg_gpu_buffer** out,
                                      lg_gpu_error* error) {
  lg_cl_impl* impl = be->impl;
  cl_mem mem = (cl_mem)(uintptr_t)native->handle;
  *out = NULL;
  if (mem == NULL) {
    lg_gpu_error_set(error, "buffer_wrap: the cl_mem is NULL");
    return kTfLiteError;
  }
  if (native->offset != 0) {
    lg_gpu_error_set(error,
                     "buffer_wrap: an OpenCL buffer is bound whole (offset "
                     "%zu given): make a sub-buffer for a range",
                     native->offset);
    return kTfLiteError;
  }
  cl_context context = NULL;
  size_t size = 0;
  cl_int err =
      clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof(context), &context, NULL);
  if (err == CL_SUCCESS) {
    err = clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof(size), &size, NULL);
  }
  if (err != CL_SUCCESS) {
    lg_cl_fail(error, "clGetMemObjectInfo", err, "not a valid cl_mem");
    return kTfLiteError;
  }
  if (context != impl->context) {
    lg_gpu_error_set(error,
                     "buffer_wrap: the cl_mem belongs to another cl_context "
                     "than the delegate's (make it with the context "
                     "litegpu_gpu_delegate_get_device returns)");
    return kTfLiteError;
  }
  if (native->bytes > size) {
    lg_gpu_error_set(error, "buffer_wrap: %zu bytes asked of a %zu-byte cl_mem",
                     native->bytes, size);
    return kTfLiteError;
  }
  lg_gpu_buffer* buffer = calloc(1, sizeof(*buffer));
  if (buffer == NULL) {
    lg_gpu_error_set(error, "buffer_wrap: out of host memory");
    return kTfLiteError;
  }
  clRetainMemObject(mem);
  lg_cl_object_created();
  buffer->mem = mem;
  buffer->bytes = native->bytes != 0 ? native->bytes : size;
  *out = buffer;
  return kTfLiteOk;
}

static void lg_cl_buffer_native(const lg_gpu_buffer* buffer,
                                lg_gpu_native_buffer* out) {
  out->handle = (uint64_t)(uintptr_t)buffer->mem;
  out->offset = 0;
  out->bytes = buffer->bytes;
}

static void lg_cl_native_device(const lg_gpu_backend* be,
                                lg_gpu_native_device* out) {
  const lg_cl_impl* impl = be->impl;
  out->instance = impl->platform;
  out->physical = impl->device;
  out->device = impl->context;
  out->queue = impl->queue;
  out->queue_family = 0;
}

static TfLiteStatus lg_cl_buffer_upload(lg_gpu_backend* be,
                                        lg_gpu_buffer* buffer, size_t offset,
                                        const void* data, size_t bytes,
                                        lg_gpu_error* error) {
  lg_cl_impl* impl = be->impl;
  /* lg_gpu_buffer_upload checked the buffer, the pointer and the range. */
  if (bytes == 0) return kTfLiteOk;
  /* Not blocking: a command fewer to wait for (PoCL wakes its workers per
   * blocking call); the interface makes the caller keep `data` until the
   * next finish or download. */
  cl_int err = lg_cl_inject("clEnqueueWriteBuffer")
                   ? CL_OUT_OF_RESOURCES
                   : clEnqueueWriteBuffer(impl->queue, buffer->mem, CL_FALSE,
                                          offset, bytes, data, 0, NULL, NULL);
  if (err != CL_SUCCESS) {
    lg_cl_fail(error, "clEnqueueWriteBuffer", err, "%zu bytes at offset %zu",
               bytes, offset);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* How long a wait polls before it blocks: a thread blocked in the driver
 * wakes tens of microseconds after the work is done (PoCL: a condition
 * variable signalled by its worker), most of a small Invoke. Each poll
 * that finds the work pending yields the core, so a driver whose workers
 * run on the CPU (PoCL, on as few cores as here) is not slowed by the
 * polling: ADD of 1,000 floats 91 -> 78 us mean per Invoke, 5 alternating
 * runs each. */
#define LG_CL_SPIN_NS UINT64_C(100000)

/* Waits for `event` after flushing the queue: polls its status for up to
 * LG_CL_SPIN_NS, then clWaitForEvents (at once when it is complete; a
 * failed command reports there). Returns the failing call's name, NULL on
 * success, with its error in *err. */
static const char* lg_cl_wait_event(lg_cl_impl* impl, cl_event event,
                                    cl_int* err) {
  *err = lg_cl_inject("clFlush") ? CL_OUT_OF_RESOURCES : clFlush(impl->queue);
  if (*err != CL_SUCCESS) return "clFlush";
  const uint64_t start = lg_now_ns();
  cl_int status = CL_QUEUED;
  do {
    *err = lg_cl_inject("clGetEventInfo")
               ? CL_OUT_OF_RESOURCES
               : clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                sizeof(status), &status, NULL);
    if (*err != CL_SUCCESS) return "clGetEventInfo";
    if (status > CL_COMPLETE) sched_yield();
  } while (status > CL_COMPLETE && lg_now_ns() - start < LG_CL_SPIN_NS);
  *err = lg_cl_inject("clWaitForEvents") ? CL_OUT_OF_RESOURCES
                                         : clWaitForEvents(1, &event);
  return *err != CL_SUCCESS ? "clWaitForEvents" : NULL;
}

/* Enqueues every read, each after the one before in the in-order queue,
 * and flushes them; *last gets the event of the last read (NULL when
 * nothing is copied): its completion implies theirs. */
static TfLiteStatus lg_cl_enqueue_reads(lg_cl_impl* impl,
                                        const lg_gpu_download* list, int count,
                                        cl_event* last, lg_gpu_error* error) {
  /* lg_gpu_buffer_download_batch checked every copy. */
  *last = NULL;
  for (int i = 0; i < count; ++i) {
    const lg_gpu_download* d = &list[i];
    if (d->bytes == 0) continue;
    cl_event done = NULL;
    const cl_int err =
        lg_cl_inject("clEnqueueReadBuffer")
            ? CL_OUT_OF_RESOURCES
            : clEnqueueReadBuffer(impl->queue, d->buffer->mem, CL_FALSE,
                                  d->offset, d->bytes, d->data, 0, NULL, &done);
    if (err != CL_SUCCESS) {
      if (*last != NULL) clReleaseEvent(*last);
      *last = NULL;
      lg_cl_fail(error, "clEnqueueReadBuffer", err, "%zu bytes at offset %zu",
                 d->bytes, d->offset);
      return kTfLiteError;
    }
    if (*last != NULL) clReleaseEvent(*last);
    *last = done;
  }
  if (*last == NULL) return kTfLiteOk;
  const cl_int err =
      lg_cl_inject("clFlush") ? CL_OUT_OF_RESOURCES : clFlush(impl->queue);
  if (err != CL_SUCCESS) {
    clReleaseEvent(*last);
    *last = NULL;
    lg_cl_fail(error, "clFlush", err, "submitting the reads");
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Waits for `last` (the event of a batch's last read) and releases it. */
static TfLiteStatus lg_cl_wait_reads(lg_cl_impl* impl, cl_event last,
                                     const char* what, lg_gpu_error* error) {
  if (last == NULL) return kTfLiteOk;
  cl_int err = CL_SUCCESS;
  const char* failed = lg_cl_wait_event(impl, last, &err);
  clReleaseEvent(last);
  if (failed != NULL) {
    lg_cl_fail(error, failed, err, "%s", what);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_cl_buffer_download_batch(lg_gpu_backend* be,
                                                const lg_gpu_download* list,
                                                int count,
                                                lg_gpu_error* error) {
  lg_cl_impl* impl = be->impl;
  cl_event last = NULL;
  if (lg_cl_enqueue_reads(impl, list, count, &last, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  char what[96];
  size_t total = 0;
  for (int i = 0; i < count; ++i) total += list[i].bytes;
  if (count == 1) {
    snprintf(what, sizeof(what), "reading %zu bytes at offset %zu", total,
             list[0].offset);
  } else {
    snprintf(what, sizeof(what), "reading %zu bytes in %d copies", total,
             count);
  }
  return lg_cl_wait_reads(impl, last, what, error);
}

/* An OpenCL fence: the event of a non-blocking batch's last read (NULL
 * when the batch copied nothing). */
struct lg_gpu_fence {
  cl_event last;
};

static TfLiteStatus lg_cl_download_begin(lg_gpu_backend* be,
                                         const lg_gpu_download* list, int count,
                                         lg_gpu_fence** out,
                                         lg_gpu_error* error) {
  lg_gpu_fence* fence = calloc(1, sizeof(*fence));
  if (fence == NULL) {
    lg_gpu_error_set(error, "download_begin: out of host memory");
    return kTfLiteError;
  }
  if (lg_cl_enqueue_reads(be->impl, list, count, &fence->last, error) !=
      kTfLiteOk) {
    free(fence);
    return kTfLiteError;
  }
  *out = fence;
  return kTfLiteOk;
}

static TfLiteStatus lg_cl_fence_wait(lg_gpu_backend* be, lg_gpu_fence* fence,
                                     lg_gpu_error* error) {
  if (fence == NULL) {
    lg_gpu_error_set(error, "fence_wait: no fence");
    return kTfLiteError;
  }
  const cl_event last = fence->last;
  fence->last = NULL; /* waited for once; a second wait returns at once */
  return lg_cl_wait_reads(be->impl, last, "waiting for a non-blocking download",
                          error);
}

static void lg_cl_fence_release(lg_gpu_backend* be, lg_gpu_fence* fence) {
  (void)be;
  if (fence == NULL) return;
  if (fence->last != NULL) clReleaseEvent(fence->last);
  free(fence);
}

/* The caller's cl_event before an async run: an in-queue barrier (the
 * queue is in order, so every later command waits), or a host wait for
 * inputs read on the host. The reference given is released either way. */
static TfLiteStatus lg_cl_sync_wait_input(lg_gpu_backend* be, const char* type,
                                          void* native, bool on_host,
                                          bool bound, lg_gpu_error* error) {
  (void)type;  /* cl_event, the only one */
  (void)bound; /* the queue orders uploads after the wait too */
  lg_cl_impl* impl = be->impl;
  cl_event event = native;
  cl_int err = CL_SUCCESS;
  const char* failed = NULL;
  if (on_host) {
    failed = lg_cl_wait_event(impl, event, &err);
  } else {
    err = clEnqueueBarrierWithWaitList(impl->queue, 1, &event, NULL);
    if (err != CL_SUCCESS) failed = "clEnqueueBarrierWithWaitList";
  }
  clReleaseEvent(event);
  if (failed != NULL) {
    lg_cl_fail(error, failed, err, "an input's cl_event");
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* The fence's last read event, with a reference for the caller. */
static TfLiteStatus lg_cl_fence_export(lg_gpu_backend* be, lg_gpu_fence* fence,
                                       void** native, lg_gpu_error* error) {
  (void)be;
  if (fence == NULL || fence->last == NULL) {
    lg_gpu_error_set(error, "fence_export: no download in flight");
    return kTfLiteError;
  }
  const cl_int err = lg_cl_inject("clRetainEvent") ? CL_OUT_OF_RESOURCES
                                                   : clRetainEvent(fence->last);
  if (err != CL_SUCCESS) {
    lg_cl_fail(error, "clRetainEvent", err, "the downloads' event");
    return kTfLiteError;
  }
  *native = fence->last;
  return kTfLiteOk;
}

static void lg_cl_sync_release(lg_gpu_backend* be, void* native) {
  (void)be;
  clReleaseEvent((cl_event)native);
}

/* ---- Dispatch ----------------------------------------------------------- */

static TfLiteStatus lg_cl_set_args(lg_gpu_kernel* kernel,
                                   const lg_gpu_arg* args, int num_args,
                                   lg_gpu_error* error) {
  for (int i = 0; i < num_args; ++i) {
    cl_int err = CL_SUCCESS;
    cl_int ivalue = args[i].value.i;
    cl_float fvalue = args[i].value.f;
    if (lg_cl_inject("clSetKernelArg")) {
      err = CL_INVALID_ARG_VALUE;
    } else if (args[i].kind == LG_GPU_ARG_KIND_BUFFER) {
      err = clSetKernelArg(kernel->kernel, (cl_uint)i, sizeof(cl_mem),
                           &args[i].value.buffer->mem);
    } else if (args[i].kind == LG_GPU_ARG_KIND_INT) {
      err = clSetKernelArg(kernel->kernel, (cl_uint)i, sizeof(ivalue), &ivalue);
    } else if (args[i].kind == LG_GPU_ARG_KIND_FLOAT) {
      err = clSetKernelArg(kernel->kernel, (cl_uint)i, sizeof(fvalue), &fvalue);
    } else {
      lg_gpu_error_set(error,
                       "dispatch: kernel '%s' argument %d has unknown "
                       "kind %d",
                       kernel->name, i, (int)args[i].kind);
      return kTfLiteError;
    }
    if (err != CL_SUCCESS) {
      lg_cl_fail(error, "clSetKernelArg", err, "kernel '%s' argument %d",
                 kernel->name, i);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

/* Work groups a dispatch of `global` makes with `local`. */
static size_t lg_cl_groups(int dims, const size_t* global,
                           const size_t* local) {
  size_t groups = 1;
  for (int d = 0; d < dims; ++d)
    groups *= (global[d] + local[d] - 1) / local[d];
  return groups;
}

void lg_cl_choose_local_size(const lg_gpu_device_info* device,
                             size_t kernel_max, size_t multiple, int dims,
                             const size_t* global, size_t* local) {
  size_t limit = device->max_work_group_size;
  if (kernel_max > 0 && kernel_max < limit) limit = kernel_max;
  if (limit > LG_CL_DEFAULT_MAX_LOCAL) limit = LG_CL_DEFAULT_MAX_LOCAL;
  if (limit == 0) limit = 1;
  size_t product = 1;
  for (int d = 0; d < dims; ++d) local[d] = 1;
  /* Double the dimension with the most work groups left until a limit
   * stops every dimension; powers of two suit every vendor's SIMD width. */
  for (;;) {
    int best = -1;
    size_t best_groups = 0;
    for (int d = 0; d < dims; ++d) {
      size_t groups = (global[d] + local[d] - 1) / local[d];
      bool can_grow = local[d] < global[d] &&
                      local[d] * 2 <= device->max_work_item_sizes[d] &&
                      product * 2 <= limit;
      if (can_grow && groups > best_groups) {
        best = d;
        best_groups = groups;
      }
    }
    if (best < 0) break;
    /* A GEMV over 1000 columns made one group of 128 and left PoCL's
     * second core idle (FULLY_CONNECTED 1280x1000: 550 against 300 us). */
    local[best] *= 2;
    if (product * 2 > multiple &&
        lg_cl_groups(dims, global, local) < device->max_compute_units) {
      local[best] /= 2;
      break;
    }
    product *= 2;
  }
}

/* Validates a caller's local size against the kernel and device limits. */
static TfLiteStatus lg_cl_check_local(const lg_gpu_backend* be,
                                      const lg_gpu_kernel* kernel, int dims,
                                      const size_t* local,
                                      lg_gpu_error* error) {
  size_t product = 1;
  for (int d = 0; d < dims; ++d) {
    if (local[d] == 0 || local[d] > be->device.max_work_item_sizes[d]) {
      lg_gpu_error_set(error,
                       "dispatch: kernel '%s' local size %zu in dimension "
                       "%d is outside 1..%zu (CL_DEVICE_MAX_WORK_ITEM_SIZES)",
                       kernel->name, local[d], d,
                       be->device.max_work_item_sizes[d]);
      return kTfLiteError;
    }
    product *= local[d];
  }
  if (product > kernel->max_work_group_size ||
      product > be->device.max_work_group_size) {
    lg_gpu_error_set(error,
                     "dispatch: kernel '%s' work group of %zu exceeds "
                     "the kernel's limit %zu",
                     kernel->name, product, kernel->max_work_group_size);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_cl_dispatch(lg_gpu_backend* be, lg_gpu_kernel* kernel,
                                   const lg_gpu_arg* args, int num_args,
                                   int dims, const size_t* global,
                                   const size_t* local, lg_gpu_error* error) {
  lg_cl_impl* impl = be->impl;
  size_t chosen[3] = {1, 1, 1};
  size_t rounded[3] = {1, 1, 1};
  /* lg_gpu_dispatch checked the arguments every backend shares. */
  if (local != NULL) {
    if (lg_cl_check_local(be, kernel, dims, local, error) != kTfLiteOk) {
      return kTfLiteError;
    }
    memcpy(chosen, local, sizeof(size_t) * (size_t)dims);
  } else {
    lg_cl_choose_local_size(&be->device, kernel->max_work_group_size,
                            kernel->preferred_multiple, dims, global, chosen);
  }
  /* OpenCL 1.2 needs global to be a multiple of local: round up; the
   * kernels guard their index. */
  for (int d = 0; d < dims; ++d) {
    size_t groups = global[d] / chosen[d] + (global[d] % chosen[d] != 0);
    if (groups > SIZE_MAX / chosen[d]) {
      lg_gpu_error_set(error, "dispatch: kernel '%s' global size overflows",
                       kernel->name);
      return kTfLiteError;
    }
    rounded[d] = groups * chosen[d];
  }
  if (lg_cl_set_args(kernel, args, num_args, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  cl_int err =
      lg_cl_inject("clEnqueueNDRangeKernel")
          ? CL_OUT_OF_RESOURCES
          : clEnqueueNDRangeKernel(impl->queue, kernel->kernel, (cl_uint)dims,
                                   NULL, rounded, chosen, 0, NULL, NULL);
  if (err != CL_SUCCESS) {
    lg_cl_fail(error, "clEnqueueNDRangeKernel", err,
               "kernel '%s', global %zux%zux%zu, local %zux%zux%zu",
               kernel->name, rounded[0], rounded[1], rounded[2], chosen[0],
               chosen[1], chosen[2]);
    return kTfLiteError;
  }
  impl->stats.last_dims = dims;
  memcpy(impl->stats.last_global, rounded, sizeof(rounded));
  memcpy(impl->stats.last_local, chosen, sizeof(chosen));
  return kTfLiteOk;
}

static TfLiteStatus lg_cl_submit(lg_gpu_backend* be, lg_gpu_error* error) {
  lg_cl_impl* impl = be->impl;
  cl_int err =
      lg_cl_inject("clFlush") ? CL_OUT_OF_RESOURCES : clFlush(impl->queue);
  if (err != CL_SUCCESS) {
    lg_cl_fail(error, "clFlush", err, NULL);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_cl_finish(lg_gpu_backend* be, lg_gpu_error* error) {
  lg_cl_impl* impl = be->impl;
  cl_int err =
      lg_cl_inject("clFinish") ? CL_OUT_OF_RESOURCES : clFinish(impl->queue);
  if (err != CL_SUCCESS) {
    lg_cl_fail(error, "clFinish", err, NULL);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* ---- Backend ------------------------------------------------------------ */

/* The test hook LITEGPU_OPENCL_TEST_FP16_STORAGE=1 (see opencl_backend.h). */
static bool lg_cl_test_fp16_storage(void) {
  const char* value = getenv("LITEGPU_OPENCL_TEST_FP16_STORAGE");
  return value != NULL && strcmp(value, "1") == 0;
}

/* Half storage when fp16 is allowed and the device has cl_khr_fp16 (then
 * half arithmetic as well), or when the test hook asks for it (storage
 * only: the path that needs no extension, whatever the device has). */
static void lg_cl_choose_precision(bool allow_fp16, bool device_fp16,
                                   bool test_hook, bool* fp16_storage,
                                   bool* half_math) {
  *fp16_storage = allow_fp16 && (device_fp16 || test_hook);
  *half_math = *fp16_storage && device_fp16 && !test_hook;
}

static void lg_cl_destroy(lg_gpu_backend* be) {
  if (be == NULL) return;
  lg_cl_impl* impl = be->impl;
  if (impl != NULL) {
    if (impl->queue != NULL) {
      clFinish(impl->queue);
      clReleaseCommandQueue(impl->queue);
      lg_cl_object_released();
    }
    if (impl->context != NULL) {
      clReleaseContext(impl->context);
      lg_cl_object_released();
    }
    free(impl->cache_dir);
    free(impl);
  }
  free(be);
}

static bool lg_cl_has_kernel(const lg_gpu_backend* be, const char* name) {
  (void)be;
  return lg_opencl_kernel_find(name) != NULL;
}

/* OpenCL's kernel cache holds program binaries: a program loaded from one
 * is a cache file loaded. */
static void lg_cl_cache_stats(const lg_gpu_backend* be,
                              lg_gpu_cache_stats* out) {
  const lg_cl_impl* impl = be->impl;
  out->programs_compiled = (int)impl->stats.source_builds;
  out->programs_from_cache = (int)impl->stats.binary_loads;
  out->cache_files_loaded = (int)impl->stats.binary_loads;
}

static const lg_gpu_backend_ops lg_cl_ops = {
    .buffer_create = lg_cl_buffer_create,
    .buffer_upload = lg_cl_buffer_upload,
    .buffer_download_batch = lg_cl_buffer_download_batch,
    .buffer_release = lg_cl_buffer_release,
    .buffer_bytes = lg_cl_buffer_bytes,
    .buffer_wrap = lg_cl_buffer_wrap,
    .buffer_native = lg_cl_buffer_native,
    .native_device = lg_cl_native_device,
    .kernel_create = lg_cl_kernel_create,
    .kernel_release = lg_cl_kernel_release,
    .kernel_max_work_group_size = lg_cl_kernel_max_work_group_size,
    .dispatch = lg_cl_dispatch,
    .submit = lg_cl_submit,
    .finish = lg_cl_finish,
    .download_begin = lg_cl_download_begin,
    .fence_wait = lg_cl_fence_wait,
    .fence_release = lg_cl_fence_release,
    .sync_type = LITEGPU_SYNC_TYPE_CL_EVENT,
    .downloads_overlap = true,
    .sync_wait_input = lg_cl_sync_wait_input,
    .fence_export = lg_cl_fence_export,
    .sync_release = lg_cl_sync_release,
    .has_kernel = lg_cl_has_kernel,
    .cache_stats = lg_cl_cache_stats,
    .destroy = lg_cl_destroy,
};

TfLiteStatus lg_opencl_backend_create(const lg_gpu_backend_options* options,
                                      lg_gpu_backend** out,
                                      lg_gpu_error* error) {
  static const lg_gpu_backend_options defaults = {
      .device_index = 0, .allow_fp16 = false, .cache_dir = NULL};
  lg_gpu_backend* be = NULL;
  lg_cl_impl* impl = NULL;
  cl_int err = CL_SUCCESS;
  if (out == NULL) {
    lg_gpu_error_set(error, "lg_opencl_backend_create: NULL out");
    return kTfLiteError;
  }
  *out = NULL;
  if (options == NULL) options = &defaults;
  be = calloc(1, sizeof(*be));
  impl = calloc(1, sizeof(*impl));
  if (be == NULL || impl == NULL) {
    free(impl);
    lg_gpu_error_set(error, "lg_opencl_backend_create: out of host memory");
    goto fail;
  }
  be->ops = &lg_cl_ops;
  be->name = "OpenCL";
  be->impl = impl;
  impl->cache_namespace = lg_cache_namespace(options->cache_namespace);
  if (options->cache_dir != NULL && options->cache_dir[0] != '\0') {
    impl->cache_dir = strdup(options->cache_dir);
    if (impl->cache_dir == NULL) {
      lg_gpu_error_set(error, "lg_opencl_backend_create: out of host memory");
      goto fail;
    }
  }
  if (lg_cl_pick_device(options->device_index, &impl->platform, &impl->device,
                        error) != kTfLiteOk ||
      lg_cl_read_device_info(impl->device, &be->device, error) != kTfLiteOk) {
    goto fail;
  }
  lg_cl_choose_precision(options->allow_fp16, be->device.fp16,
                         lg_cl_test_fp16_storage(), &be->fp16_storage,
                         &impl->half_math);
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   (cl_context_properties)impl->platform, 0};
  impl->context =
      lg_cl_inject("clCreateContext")
          ? (err = CL_OUT_OF_HOST_MEMORY, NULL)
          : clCreateContext(props, 1, &impl->device, NULL, NULL, &err);
  if (impl->context == NULL || err != CL_SUCCESS) {
    impl->context = NULL;
    lg_cl_fail(error, "clCreateContext", err, "device '%s'", be->device.name);
    goto fail;
  }
  lg_cl_object_created();
  /* In order: dispatches run in recording order and a blocking read waits
   * for all of them. */
  impl->queue =
      lg_cl_inject("clCreateCommandQueue")
          ? (err = CL_OUT_OF_RESOURCES, NULL)
          : clCreateCommandQueue(impl->context, impl->device, 0, &err);
  if (impl->queue == NULL || err != CL_SUCCESS) {
    impl->queue = NULL;
    lg_cl_fail(error, "clCreateCommandQueue", err, "device '%s'",
               be->device.name);
    goto fail;
  }
  lg_cl_object_created();
  *out = be;
  return kTfLiteOk;
fail:
  lg_cl_destroy(be);
  return kTfLiteError;
}

TfLiteStatus lg_opencl_backend_stats(const lg_gpu_backend* be,
                                     lg_opencl_stats* out) {
  if (be == NULL || out == NULL || be->ops != &lg_cl_ops) {
    return kTfLiteError;
  }
  const lg_cl_impl* impl = be->impl;
  *out = impl->stats;
  return kTfLiteOk;
}
