/* Reusable recordings for the Vulkan backend (rules in vulkan_backend.h):
 * the dispatches between recording_begin and recording_end go into one
 * command buffer, recorded once with its barriers and its own descriptor
 * sets, and recording_run submits it again with the recording's fence.
 * A timed recording (recording_begin_timed) also writes a device
 * timestamp before its first dispatch and after each one, read with
 * recording_times once its run completed. Also has_kernel, which asks the
 * shader registry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/vulkan/vulkan_impl.h"
#include "delegates/vulkan/vulkan_internal.h"

struct lg_gpu_recording {
  /* Its own pool: the backend's is reset at every finish. */
  VkCommandPool command_pool;
  VkCommandBuffer cmd;
  VkFence fence;
  /* Its descriptor sets, valid for the recording's life. */
  lg_vk_descriptor_pools descriptors;
  uint32_t dispatches; /* dispatch calls captured */
  /* Timed: query i is written before dispatch i (after dispatch i-1) and
   * query `dispatches` after the last; VK_NULL_HANDLE when not timed. */
  VkQueryPool timestamps;
  uint32_t max_queries;
  /* Submitted and not yet waited for (possibly more than once: the
   * command buffer allows simultaneous use); `fenced`: one of those
   * submissions was alone with `fence` (not yet waited for and reset), the
   * others in one batch with a command buffer, under that buffer's
   * fence. */
  bool running;
  bool fenced;
  /* A dispatch failed while captured, with this message. */
  bool failed;
  char failure[LG_GPU_ERROR_SIZE];
};

bool lg_vk_has_kernel(const lg_gpu_backend* be, const char* name) {
  (void)be;
  return lg_vulkan_shader_find(name) != NULL;
}

/* ---- Life of one recording ---------------------------------------------- */

/* Frees what `rec` holds (nothing of it may be running). NULL is a no-op. */
static void lg_vk_recording_free(lg_vk_impl* impl, lg_gpu_recording* rec) {
  if (rec == NULL) return;
  lg_vk_descriptor_pools_destroy(impl, &rec->descriptors);
  if (rec->timestamps != VK_NULL_HANDLE) {
    vkDestroyQueryPool(impl->device, rec->timestamps, NULL);
    lg_vk_object_released();
  }
  if (rec->fence != VK_NULL_HANDLE) {
    vkDestroyFence(impl->device, rec->fence, NULL);
    lg_vk_object_released();
  }
  /* Frees the command buffer with it. */
  if (rec->command_pool != VK_NULL_HANDLE) {
    vkDestroyCommandPool(impl->device, rec->command_pool, NULL);
    lg_vk_object_released();
  }
  free(rec);
}

/* Records a barrier from `src_stages` (writes of `src_access`) to the
 * stages and accesses after it. */
static void lg_vk_recording_barrier(VkCommandBuffer cmd,
                                    VkPipelineStageFlags src_stages,
                                    VkAccessFlags src_access,
                                    VkPipelineStageFlags dst_stages,
                                    VkAccessFlags dst_access) {
  const VkMemoryBarrier barrier = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = src_access,
      .dstAccessMask = dst_access,
  };
  vkCmdPipelineBarrier(cmd, src_stages, dst_stages, 0, 1, &barrier, 0, NULL, 0,
                       NULL);
}

/* The query pool of a timed recording with room for `queries`
 * timestamps. */
static TfLiteStatus lg_vk_timestamps_make(lg_vk_impl* impl,
                                          lg_gpu_recording* rec,
                                          uint32_t queries,
                                          lg_gpu_error* error) {
  const VkQueryPoolCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
      .queryType = VK_QUERY_TYPE_TIMESTAMP,
      .queryCount = queries,
  };
  const VkResult r = LG_VK_TRY(vkCreateQueryPool, VK_ERROR_OUT_OF_HOST_MEMORY,
                               impl->device, &info, NULL, &rec->timestamps);
  if (r != VK_SUCCESS) {
    rec->timestamps = VK_NULL_HANDLE;
    lg_vk_fail(error, "vkCreateQueryPool", r, "recording_begin_timed");
    return kTfLiteError;
  }
  lg_vk_object_created();
  rec->max_queries = queries;
  return kTfLiteOk;
}

/* A recording with its pool, fence and command buffer (and, `queries` >
 * 0, a query pool for that many timestamps, reset at its start), begun
 * (reusable: no one-time-submit flag) and opened by the barrier that
 * orders it after everything earlier in submission order and after the
 * host's writes. */
static TfLiteStatus lg_vk_recording_make(lg_vk_impl* impl, uint32_t queries,
                                         lg_gpu_recording** out,
                                         lg_gpu_error* error) {
  lg_gpu_recording* rec = calloc(1, sizeof(*rec));
  if (rec == NULL) {
    lg_gpu_error_set(error, "recording_begin: out of host memory");
    return kTfLiteError;
  }
  const VkCommandPoolCreateInfo pool_info = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .queueFamilyIndex = impl->queue_family,
  };
  VkResult r = LG_VK_TRY(vkCreateCommandPool, VK_ERROR_OUT_OF_HOST_MEMORY,
                         impl->device, &pool_info, NULL, &rec->command_pool);
  if (r != VK_SUCCESS) {
    rec->command_pool = VK_NULL_HANDLE;
    lg_vk_fail(error, "vkCreateCommandPool", r, "recording_begin");
    goto fail;
  }
  lg_vk_object_created();
  const VkFenceCreateInfo fence_info = {
      .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  r = LG_VK_TRY(vkCreateFence, VK_ERROR_OUT_OF_HOST_MEMORY, impl->device,
                &fence_info, NULL, &rec->fence);
  if (r != VK_SUCCESS) {
    rec->fence = VK_NULL_HANDLE;
    lg_vk_fail(error, "vkCreateFence", r, "recording_begin");
    goto fail;
  }
  lg_vk_object_created();
  const VkCommandBufferAllocateInfo alloc = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = rec->command_pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
  };
  r = LG_VK_TRY(vkAllocateCommandBuffers, VK_ERROR_OUT_OF_HOST_MEMORY,
                impl->device, &alloc, &rec->cmd);
  if (r != VK_SUCCESS) {
    rec->cmd = VK_NULL_HANDLE;
    lg_vk_fail(error, "vkAllocateCommandBuffers", r, "recording_begin");
    goto fail;
  }
  /* Pending twice at once: two async runs of one program in flight. */
  const VkCommandBufferBeginInfo begin = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT,
  };
  if (queries > 0 &&
      lg_vk_timestamps_make(impl, rec, queries, error) != kTfLiteOk) {
    goto fail;
  }
  r = LG_VK_TRY(vkBeginCommandBuffer, VK_ERROR_OUT_OF_HOST_MEMORY, rec->cmd,
                &begin);
  if (r != VK_SUCCESS) {
    /* Destroying the pool below also disposes of the command buffer. */
    lg_vk_fail(error, "vkBeginCommandBuffer", r, "recording_begin");
    goto fail;
  }
  if (rec->timestamps != VK_NULL_HANDLE) {
    vkCmdResetQueryPool(rec->cmd, rec->timestamps, 0, queries);
  }
  /* Host writes before the submission are visible to the device through
   * vkQueueSubmit (coherent memory); the host stage is named here too so
   * the barrier states the whole dependency. Earlier submissions' copies
   * and dispatches (staged uploads, an earlier run) are in its first
   * scope. */
  lg_vk_recording_barrier(
      rec->cmd,
      VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
      VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
          VK_ACCESS_SHADER_WRITE_BIT,
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  *out = rec;
  return kTfLiteOk;
fail:
  lg_vk_recording_free(impl, rec);
  return kTfLiteError;
}

/* Waits for `count` fences and resets them. */
static TfLiteStatus lg_vk_fences_wait(lg_vk_impl* impl, const VkFence* fences,
                                      uint32_t count, lg_gpu_error* error) {
  if (count == 0) return kTfLiteOk;
  VkResult r = lg_vk_wait_fences(impl->device, count, fences);
  if (r != VK_SUCCESS) {
    lg_vk_fail(error, "vkWaitForFences", r, "%s",
               r == VK_TIMEOUT ? "no completion of a recording's run after 60 s"
                               : "waiting for a recording's run");
    return kTfLiteError;
  }
  r = LG_VK_TRY(vkResetFences, VK_ERROR_OUT_OF_DEVICE_MEMORY, impl->device,
                count, fences);
  if (r != VK_SUCCESS) {
    lg_vk_fail(error, "vkResetFences", r, "a recording's fence");
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus lg_vk_recordings_wait(lg_vk_impl* impl, lg_gpu_error* error) {
  uint32_t count = 0;
  for (size_t i = 0; i < impl->recording_count; ++i) {
    if (impl->recordings[i]->fenced) {
      impl->recording_fences[count++] = impl->recordings[i]->fence;
    }
  }
  if (lg_vk_fences_wait(impl, impl->recording_fences, count, error) !=
      kTfLiteOk) {
    return kTfLiteError;
  }
  for (size_t i = 0; i < impl->recording_count; ++i) {
    impl->recordings[i]->fenced = false;
  }
  return kTfLiteOk;
}

void lg_vk_recordings_done(lg_vk_impl* impl) {
  for (size_t i = 0; i < impl->recording_count; ++i) {
    impl->recordings[i]->running = false;
  }
  impl->running = 0;
}

/* The index of `rec` among the live recordings, or -1. */
static long lg_vk_recording_index(const lg_vk_impl* impl,
                                  const lg_gpu_recording* rec) {
  for (size_t i = 0; i < impl->recording_count; ++i) {
    if (impl->recordings[i] == rec) return (long)i;
  }
  return -1;
}

/* Adds `rec` to the live recordings (and the fence scratch with it). */
static TfLiteStatus lg_vk_recording_register(lg_vk_impl* impl,
                                             lg_gpu_recording* rec,
                                             lg_gpu_error* error) {
  if (impl->recording_count == impl->recording_capacity) {
    const size_t n =
        impl->recording_capacity ? impl->recording_capacity * 2 : 4;
    lg_gpu_recording** grown =
        realloc(impl->recordings, n * sizeof(*impl->recordings));
    if (grown != NULL) impl->recordings = grown;
    VkFence* fences =
        realloc(impl->recording_fences, n * sizeof(*impl->recording_fences));
    if (fences != NULL) impl->recording_fences = fences;
    if (grown == NULL || fences == NULL) {
      lg_gpu_error_set(error, "recording_end: out of host memory");
      return kTfLiteError;
    }
    impl->recording_capacity = n;
  }
  impl->recordings[impl->recording_count++] = rec;
  return kTfLiteOk;
}

/* ---- Capture ------------------------------------------------------------ */

/* recording_begin, with room for `queries` timestamps when not 0. */
static TfLiteStatus lg_vk_begin(lg_gpu_backend* be, uint32_t queries,
                                lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  if (lg_vk_check_usable(impl, "recording_begin", error) != kTfLiteOk) {
    return kTfLiteError;
  }
  if (impl->capture != NULL) {
    lg_gpu_error_set(error,
                     "recording_begin: a recording is already being captured "
                     "(call recording_end first; recordings do not nest)");
    return kTfLiteError;
  }
  if (lg_vk_busy(impl)) {
    lg_gpu_error_set(error,
                     "recording_begin: work is pending (commands recorded or "
                     "running since the last finish); call finish first");
    return kTfLiteError;
  }
  return lg_vk_recording_make(impl, queries, &impl->capture, error);
}

TfLiteStatus lg_vk_recording_begin(lg_gpu_backend* be, lg_gpu_error* error) {
  return lg_vk_begin(be, 0, error);
}

TfLiteStatus lg_vk_recording_begin_timed(lg_gpu_backend* be, int dispatches,
                                         lg_gpu_error* error) {
  const lg_vk_impl* impl = be->impl;
  if (impl->timestamp_bits == 0) {
    lg_gpu_error_set(error,
                     "recording_begin_timed: the Vulkan device '%s' writes no "
                     "timestamps on its compute queue (timestampValidBits 0)",
                     impl->properties.deviceName);
    return kTfLiteError;
  }
  if (dispatches < 1) {
    lg_gpu_error_set(error, "recording_begin_timed: %d dispatches", dispatches);
    return kTfLiteError;
  }
  return lg_vk_begin(be, (uint32_t)dispatches + 1, error);
}

TfLiteStatus lg_vk_capture_target(lg_vk_impl* impl, const lg_gpu_kernel* kernel,
                                  const lg_vk_bindings* bindings,
                                  VkCommandBuffer* cmd, VkDescriptorSet* set,
                                  lg_gpu_error* error) {
  lg_gpu_recording* rec = impl->capture;
  if (bindings->count > 0 &&
      lg_vk_descriptor_set(impl, &rec->descriptors, kernel, bindings, set,
                           error) != kTfLiteOk) {
    return kTfLiteError;
  }
  if (rec->timestamps != VK_NULL_HANDLE) {
    if (rec->dispatches + 1 >= rec->max_queries) {
      lg_gpu_error_set(error,
                       "dispatch: more dispatches than the timed recording "
                       "was begun for (%u)",
                       rec->max_queries - 1);
      return kTfLiteError;
    }
    /* Written once every command before it completed: dispatch
     * `dispatches`'s start, the end of the one before. */
    vkCmdWriteTimestamp(rec->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                        rec->timestamps, rec->dispatches);
  }
  /* Each dispatch may read what the one before it wrote (and must not
   * overwrite what it still reads). */
  if (rec->dispatches > 0) {
    lg_vk_recording_barrier(
        rec->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
        VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  }
  rec->dispatches++;
  *cmd = rec->cmd;
  return kTfLiteOk;
}

void lg_vk_capture_failed(lg_vk_impl* impl, const lg_gpu_error* error) {
  lg_gpu_recording* rec = impl->capture;
  if (rec == NULL || rec->failed) return;
  rec->failed = true;
  snprintf(rec->failure, sizeof(rec->failure), "%s",
           error != NULL ? error->message : "unknown");
}

TfLiteStatus lg_vk_recording_end(lg_gpu_backend* be, lg_gpu_recording** out,
                                 lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  if (out == NULL) {
    lg_gpu_error_set(error, "recording_end: NULL out");
    return kTfLiteError;
  }
  *out = NULL;
  lg_gpu_recording* rec = impl->capture;
  if (rec == NULL) {
    lg_gpu_error_set(error,
                     "recording_end: no recording is being captured (call "
                     "recording_begin first)");
    return kTfLiteError;
  }
  impl->capture = NULL;
  if (rec->failed) {
    lg_gpu_error_set(error,
                     "recording_end: the recording is incomplete (a dispatch "
                     "failed while recording: %.900s)",
                     rec->failure);
    lg_vk_recording_free(impl, rec);
    return kTfLiteError;
  }
  if (rec->timestamps != VK_NULL_HANDLE) {
    vkCmdWriteTimestamp(rec->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                        rec->timestamps, rec->dispatches);
  }
  /* Later copies (staged downloads) and host reads after the fence see
   * what the dispatches wrote. */
  lg_vk_recording_barrier(
      rec->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
      VK_ACCESS_SHADER_WRITE_BIT,
      VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
      VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
          VK_ACCESS_HOST_READ_BIT);
  VkResult r =
      LG_VK_TRY(vkEndCommandBuffer, VK_ERROR_OUT_OF_DEVICE_MEMORY, rec->cmd);
  if (r != VK_SUCCESS) {
    lg_vk_fail(error, "vkEndCommandBuffer", r, "recording_end");
    lg_vk_recording_free(impl, rec);
    return kTfLiteError;
  }
  if (lg_vk_recording_register(impl, rec, error) != kTfLiteOk) {
    lg_vk_recording_free(impl, rec);
    return kTfLiteError;
  }
  *out = rec;
  return kTfLiteOk;
}

/* ---- Run and release ---------------------------------------------------- */

TfLiteStatus lg_vk_recording_run(lg_gpu_backend* be, lg_gpu_recording* rec,
                                 lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  lg_gpu_error local;
  lg_gpu_error* e = error != NULL ? error : &local;
  if (rec == NULL || lg_vk_recording_index(impl, rec) < 0) {
    lg_gpu_error_set(e,
                     "recording_run: %p is not a live recording of this "
                     "backend (released, or not from its recording_end)",
                     (const void*)rec);
    return kTfLiteError;
  }
  if (lg_vk_check_usable(impl, "recording_run", e) != kTfLiteOk) {
    return kTfLiteError;
  }
  if (impl->capture != NULL) {
    lg_gpu_error_set(e,
                     "recording_run: a recording is being captured (call "
                     "recording_end first)");
    return kTfLiteError;
  }
  /* The command buffer may be pending again (simultaneous use), but its
   * own fence may not: a run while an earlier one is in flight goes in a
   * batch with a command buffer of the backend's, under that one's fence. */
  VkCommandBuffer open = VK_NULL_HANDLE;
  if (rec->running && lg_vk_recording(impl, &open, e) != kTfLiteOk) {
    return kTfLiteError;
  }
  /* What was recorded since the last submission (staged uploads) goes
   * first, in the same batch: the recording's first barrier waits on the
   * commands before it. */
  bool batched = false;
  if (lg_vk_submit_then(be, rec->cmd, &batched, e) != kTfLiteOk) {
    return kTfLiteError;
  }
  if (!batched) {
    const VkSubmitInfo submit = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .commandBufferCount = 1,
        .pCommandBuffers = &rec->cmd,
    };
    VkResult r = LG_VK_TRY(vkQueueSubmit, VK_ERROR_DEVICE_LOST, impl->queue, 1,
                           &submit, rec->fence);
    if (r != VK_SUCCESS) {
      lg_vk_fail(e, "vkQueueSubmit", r, "recording_run");
      lg_vk_mark_broken(impl, e);
      return kTfLiteError;
    }
    impl->ever_submitted = true;
    impl->stats.submits++;
  }
  if (!rec->running) impl->running++; /* counts recordings, not runs */
  rec->running = true;
  rec->fenced = rec->fenced || !batched;
  impl->stats.recording_runs++;
  return kTfLiteOk;
}

TfLiteStatus lg_vk_recording_times(lg_gpu_backend* be,
                                   const lg_gpu_recording* rec, uint64_t* ns,
                                   int count, lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  if (rec == NULL || lg_vk_recording_index(impl, rec) < 0 ||
      rec->timestamps == VK_NULL_HANDLE) {
    lg_gpu_error_set(error,
                     "recording_times: %p is not a live timed recording of "
                     "this backend",
                     (const void*)rec);
    return kTfLiteError;
  }
  if (count != (int)rec->dispatches) {
    lg_gpu_error_set(error,
                     "recording_times: the recording has %u dispatches, not "
                     "%d",
                     rec->dispatches, count);
    return kTfLiteError;
  }
  uint64_t stamps[2];
  const uint64_t mask = impl->timestamp_bits >= 64
                            ? UINT64_MAX
                            : (UINT64_C(1) << impl->timestamp_bits) - 1;
  const double period = impl->properties.limits.timestampPeriod;
  for (uint32_t d = 0; d < rec->dispatches; ++d) {
    /* Two at a time: no array sized by the recording on the stack. */
    const VkResult r =
        LG_VK_TRY(vkGetQueryPoolResults, VK_ERROR_DEVICE_LOST, impl->device,
                  rec->timestamps, d, 2, sizeof(stamps), stamps,
                  sizeof(stamps[0]), VK_QUERY_RESULT_64_BIT);
    if (r != VK_SUCCESS) {
      lg_vk_fail(error, "vkGetQueryPoolResults", r, "%s",
                 r == VK_NOT_READY ? "the timed recording has no completed run"
                                   : "reading a recording's timestamps");
      return kTfLiteError;
    }
    ns[d] = (uint64_t)((double)((stamps[1] - stamps[0]) & mask) * period);
  }
  return kTfLiteOk;
}

void lg_vk_recording_release(lg_gpu_backend* be, lg_gpu_recording* rec) {
  lg_vk_impl* impl = be->impl;
  const long index = rec != NULL ? lg_vk_recording_index(impl, rec) : -1;
  if (index < 0) return; /* NULL, released or foreign: nothing to free */
  if (rec->running) {
    /* Its command buffer must be done before the pool goes. */
    if (lg_vk_finish(be, NULL) != kTfLiteOk) vkDeviceWaitIdle(impl->device);
    if (rec->running) {
      rec->running = false;
      rec->fenced = false;
      impl->running--;
    }
  }
  impl->recordings[index] = impl->recordings[impl->recording_count - 1];
  impl->recording_count--;
  lg_vk_recording_free(impl, rec);
}

void lg_vk_recordings_destroy(lg_vk_impl* impl) {
  lg_vk_recording_free(impl, impl->capture);
  impl->capture = NULL;
  for (size_t i = 0; i < impl->recording_count; ++i) {
    lg_vk_recording_free(impl, impl->recordings[i]);
  }
  free(impl->recordings);
  free(impl->recording_fences);
  impl->recordings = NULL;
  impl->recording_fences = NULL;
  impl->recording_count = 0;
  impl->recording_capacity = 0;
  impl->running = 0;
}
