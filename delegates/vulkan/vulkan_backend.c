/* The Vulkan backend: creation, destruction, the ops table and stats (see
 * vulkan_backend.h; the parts live in the files vulkan_impl.h lists). */
#include "delegates/vulkan/vulkan_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/backend/cache_file.h"
#include "delegates/vulkan/vulkan_impl.h"
#include "delegates/vulkan/vulkan_internal.h"
#include "litegpu/async.h"

TfLiteStatus lg_vk_check_usable(const lg_vk_impl* impl, const char* slot,
                                lg_gpu_error* error) {
  if (!impl->broken) return kTfLiteOk;
  lg_gpu_error_set(error,
                   "%s: the Vulkan backend is unusable after an earlier "
                   "failure (%s)",
                   slot, impl->broken_reason);
  return kTfLiteError;
}

void lg_vk_mark_broken(lg_vk_impl* impl, const lg_gpu_error* error) {
  impl->broken = true;
  snprintf(impl->broken_reason, sizeof(impl->broken_reason), "%s",
           error != NULL ? error->message : "unknown");
}

static void lg_vk_destroy(lg_gpu_backend* be) {
  if (be == NULL) return;
  lg_vk_impl* impl = be->impl;
  if (impl != NULL) {
    if (impl->device != VK_NULL_HANDLE) {
      /* Also after a failed submission or wait: nothing may still run. */
      vkDeviceWaitIdle(impl->device);
      lg_vk_recordings_destroy(impl);
      lg_vk_staging_destroy(impl);
      lg_vk_dispatch_destroy(impl);
      vkDestroyDevice(impl->device, NULL);
      lg_vk_object_released();
    }
    if (impl->messenger != VK_NULL_HANDLE) {
      impl->destroy_messenger(impl->instance, impl->messenger, NULL);
      lg_vk_object_released();
    }
    if (impl->instance != VK_NULL_HANDLE) {
      vkDestroyInstance(impl->instance, NULL);
      lg_vk_object_released();
    }
    free(impl->cache_dir);
    free(impl);
  }
  free(be);
}

/* Vulkan's cache is the driver's pipeline cache: a pipeline counts as
 * from the cache when the driver reports a hit (lavapipe reports none). */
static void lg_vk_cache_stats(const lg_gpu_backend* be,
                              lg_gpu_cache_stats* out) {
  const lg_vk_impl* impl = be->impl;
  out->programs_compiled =
      (int)(impl->stats.pipelines_created - impl->stats.pipeline_cache_hits);
  out->programs_from_cache = (int)impl->stats.pipeline_cache_hits;
  out->cache_files_loaded = (int)impl->stats.cache_loads;
}

/* The caller's timeline point (litegpu/async.h), once the device is known
 * to take timeline semaphores. */
static TfLiteStatus lg_vk_timeline_point(const lg_vk_impl* impl,
                                         const void* native,
                                         const litegpu_vk_timeline_point** out,
                                         lg_gpu_error* error) {
  if (!impl->timeline) {
    lg_gpu_error_set(error,
                     "the Vulkan device '%s' has no timeline semaphores "
                     "(VK_KHR_timeline_semaphore with timelineSemaphore), so "
                     "it takes no %s",
                     impl->properties.deviceName,
                     LITEGPU_SYNC_TYPE_VK_TIMELINE_SEMAPHORE);
    return kTfLiteError;
  }
  const litegpu_vk_timeline_point* point = native;
  if (point->semaphore == 0) {
    lg_gpu_error_set(error, "the litegpu_vk_timeline_point has no VkSemaphore");
    return kTfLiteError;
  }
  *out = point;
  return kTfLiteOk;
}

/* Adds a point to the next submission's waits or signals (an open command
 * buffer carries them, so the next submission is the run's). */
static TfLiteStatus lg_vk_add_point(lg_vk_impl* impl, VkSemaphore* semaphores,
                                    uint64_t* values, uint32_t* count,
                                    const litegpu_vk_timeline_point* point,
                                    lg_gpu_error* error) {
  if (*count == LG_VK_MAX_SEMAPHORES) {
    lg_gpu_error_set(error,
                     "more than %u timeline semaphore waits or signals in "
                     "one run",
                     LG_VK_MAX_SEMAPHORES);
    return kTfLiteError;
  }
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  if (lg_vk_recording(impl, &cmd, error) != kTfLiteOk) return kTfLiteError;
  semaphores[*count] = (VkSemaphore)(uintptr_t)point->semaphore;
  values[*count] = point->value;
  (*count)++;
  return kTfLiteOk;
}

/* The caller's object before an async run. A VkFence is waited for on the
 * host (it stays the caller's: not reset, not destroyed). A timeline point
 * is waited for by the run's submission when the input is a bound device
 * buffer the device reads, else on the host: the uploads copy the inputs
 * when they are enqueued. */
static TfLiteStatus lg_vk_sync_wait_input(lg_gpu_backend* be, const char* type,
                                          void* native, bool on_host,
                                          bool bound, lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  if (strcmp(type, LITEGPU_SYNC_TYPE_VK_FENCE) == 0) {
    const VkFence fence = (VkFence)(uintptr_t)native;
    const VkResult r = lg_vk_wait_fences(impl->device, 1, &fence);
    if (r != VK_SUCCESS) {
      lg_vk_fail(error, "vkWaitForFences", r, "an input's VkFence");
      return kTfLiteError;
    }
    return kTfLiteOk;
  }
  const litegpu_vk_timeline_point* point = NULL;
  if (lg_vk_timeline_point(impl, native, &point, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  if (bound && !on_host) {
    return lg_vk_add_point(impl, impl->sem_waits, impl->sem_wait_values,
                           &impl->sem_wait_count, point, error);
  }
  const VkSemaphore semaphore = (VkSemaphore)(uintptr_t)point->semaphore;
  const VkSemaphoreWaitInfoKHR wait = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO_KHR,
      .semaphoreCount = 1,
      .pSemaphores = &semaphore,
      .pValues = &point->value,
  };
  const VkResult r =
      impl->wait_semaphores(impl->device, &wait, LG_VK_FENCE_TIMEOUT_NS);
  if (r != VK_SUCCESS) {
    lg_vk_fail(error, "vkWaitSemaphoresKHR", r, "%s",
               r == VK_TIMEOUT ? "an input's timeline semaphore did not "
                                 "reach its value in 60 s"
                               : "an input's timeline semaphore");
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* The run enqueued next signals the caller's timeline point once its
 * dispatches are done (the outputs bound to device buffers written). */
static TfLiteStatus lg_vk_sync_signal_output(lg_gpu_backend* be, void* native,
                                             lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  const litegpu_vk_timeline_point* point = NULL;
  if (lg_vk_timeline_point(impl, native, &point, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  return lg_vk_add_point(impl, impl->sem_signals, impl->sem_signal_values,
                         &impl->sem_signal_count, point, error);
}

/* After the run was enqueued: the caller's VkFence, unsignalled, is
 * signalled by an empty submission (no batch) after it. The spec signals
 * such a fence once all work submitted to the queue before it has
 * completed, so the run's dispatches, their writes into bound buffers and
 * its readback copies are done, and made visible to the host by the
 * barrier each submission ends with, when the fence signals. */
static TfLiteStatus lg_vk_sync_fence_output(lg_gpu_backend* be, void* native,
                                            bool check_only,
                                            lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  const VkFence fence = (VkFence)(uintptr_t)native;
  if (fence == VK_NULL_HANDLE) {
    lg_gpu_error_set(error, "the output's VkFence is VK_NULL_HANDLE");
    return kTfLiteError;
  }
  VkResult r = vkGetFenceStatus(impl->device, fence);
  if (r == VK_SUCCESS) {
    lg_gpu_error_set(error,
                     "the output's VkFence is already signalled (reset it "
                     "with vkResetFences before giving it)");
    return kTfLiteError;
  }
  if (r != VK_NOT_READY) {
    lg_vk_fail(error, "vkGetFenceStatus", r, "an output's VkFence");
    return kTfLiteError;
  }
  if (check_only) return kTfLiteOk;
  if (lg_vk_submit(be, error) != kTfLiteOk) return kTfLiteError;
  r = LG_VK_TRY(vkQueueSubmit, VK_ERROR_DEVICE_LOST, impl->queue, 0, NULL,
                fence);
  if (r != VK_SUCCESS) {
    lg_vk_fail(error, "vkQueueSubmit", r, "an output's VkFence");
    lg_vk_mark_broken(impl, error);
    return kTfLiteError;
  }
  impl->stats.submits++;
  return kTfLiteOk;
}

static void lg_vk_sync_cancel(lg_gpu_backend* be) {
  lg_vk_impl* impl = be->impl;
  impl->sem_wait_count = 0;
  impl->sem_signal_count = 0;
}

static const lg_gpu_backend_ops lg_vk_ops = {
    .buffer_create = lg_vk_buffer_create,
    .buffer_upload = lg_vk_buffer_upload,
    .buffer_download_batch = lg_vk_buffer_download_batch,
    .buffer_release = lg_vk_buffer_release,
    .buffer_bytes = lg_vk_buffer_bytes,
    .buffer_wrap = lg_vk_buffer_wrap,
    .buffer_native = lg_vk_buffer_native,
    .native_device = lg_vk_native_device,
    .kernel_create = lg_vk_kernel_create,
    .kernel_release = lg_vk_kernel_release,
    .kernel_max_work_group_size = lg_vk_kernel_max_work_group_size,
    .kernels_prepare = lg_vk_kernels_prepare,
    .dispatch = lg_vk_dispatch,
    .submit = lg_vk_submit,
    .finish = lg_vk_finish,
    .download_begin = lg_vk_download_begin,
    .fence_wait = lg_vk_fence_wait,
    .fence_release = lg_vk_fence_release,
    .fence_done = lg_vk_fence_done,
    .downloads_overlap = true, /* a readback buffer per pending download */
    .sync_type = LITEGPU_SYNC_TYPE_VK_TIMELINE_SEMAPHORE,
    .input_sync_type = LITEGPU_SYNC_TYPE_VK_FENCE,
    .sync_wait_input = lg_vk_sync_wait_input,
    .sync_signal_output = lg_vk_sync_signal_output,
    .sync_fence_output = lg_vk_sync_fence_output,
    .sync_cancel = lg_vk_sync_cancel,
    .has_kernel = lg_vk_has_kernel,
    .recording_begin = lg_vk_recording_begin,
    .recording_end = lg_vk_recording_end,
    .recording_run = lg_vk_recording_run,
    .recording_release = lg_vk_recording_release,
    .recording_begin_timed = lg_vk_recording_begin_timed,
    .recording_times = lg_vk_recording_times,
    .cache_stats = lg_vk_cache_stats,
    .destroy = lg_vk_destroy,
};

static TfLiteStatus lg_vk_command_pool_create(lg_vk_impl* impl,
                                              lg_gpu_error* error) {
  const VkCommandPoolCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .queueFamilyIndex = impl->queue_family,
  };
  VkResult r = LG_VK_TRY(vkCreateCommandPool, VK_ERROR_OUT_OF_HOST_MEMORY,
                         impl->device, &info, NULL, &impl->command_pool);
  if (r != VK_SUCCESS) {
    impl->command_pool = VK_NULL_HANDLE;
    lg_vk_fail(error, "vkCreateCommandPool", r, NULL);
    return kTfLiteError;
  }
  lg_vk_object_created();
  return kTfLiteOk;
}

TfLiteStatus lg_vulkan_backend_create_ex(const lg_gpu_backend_options* options,
                                         const lg_vulkan_options* vk,
                                         lg_gpu_backend** out,
                                         lg_gpu_error* error) {
  static const lg_gpu_backend_options defaults = {
      .device_index = 0, .allow_fp16 = false, .cache_dir = NULL};
  lg_gpu_backend* be = NULL;
  lg_vk_impl* impl = NULL;
  if (out == NULL) {
    lg_gpu_error_set(error, "lg_vulkan_backend_create: NULL out");
    return kTfLiteError;
  }
  *out = NULL;
  if (options == NULL) options = &defaults;
  be = calloc(1, sizeof(*be));
  impl = calloc(1, sizeof(*impl));
  if (be == NULL || impl == NULL) {
    free(impl);
    lg_gpu_error_set(error, "lg_vulkan_backend_create: out of host memory");
    goto fail;
  }
  be->ops = &lg_vk_ops;
  be->name = "Vulkan";
  be->impl = impl;
  impl->cache_namespace = lg_cache_namespace(options->cache_namespace);
  if (options->cache_dir != NULL && options->cache_dir[0] != '\0') {
    impl->cache_dir = strdup(options->cache_dir);
    if (impl->cache_dir == NULL) {
      lg_gpu_error_set(error, "lg_vulkan_backend_create: out of host memory");
      goto fail;
    }
  }
  if (lg_vk_instance_create(impl, vk != NULL && vk->validation, error) !=
          kTfLiteOk ||
      lg_vk_pick_device(impl, options->device_index, &be->device, error) !=
          kTfLiteOk) {
    goto fail;
  }
  /* Half precision when allowed and the device has shaderFloat16 and
   * storageBuffer16BitAccess (device.fp16); the device is created with
   * both enabled. */
  impl->fp16 = options->allow_fp16 && be->device.fp16;
  lg_vk_choose_texel_reads(impl, &be->device);
  if (lg_vk_device_create(impl, error) != kTfLiteOk ||
      lg_vk_command_pool_create(impl, error) != kTfLiteOk) {
    goto fail;
  }
  be->fp16_storage = impl->fp16;
  *out = be;
  return kTfLiteOk;
fail:
  lg_vk_destroy(be);
  return kTfLiteError;
}

TfLiteStatus lg_vulkan_backend_create(const lg_gpu_backend_options* options,
                                      lg_gpu_backend** out,
                                      lg_gpu_error* error) {
  return lg_vulkan_backend_create_ex(options, NULL, out, error);
}

TfLiteStatus lg_vulkan_backend_stats(const lg_gpu_backend* be,
                                     lg_vulkan_stats* out) {
  if (be == NULL || out == NULL || be->ops != &lg_vk_ops) {
    return kTfLiteError;
  }
  const lg_vk_impl* impl = be->impl;
  *out = impl->stats;
  return kTfLiteOk;
}
