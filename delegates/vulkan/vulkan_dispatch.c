/* Command recording and submission for the Vulkan backend: command
 * buffers and fences, barriers, descriptor sets, dispatch (split past the
 * device's group-count limits), submit and finish. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/vulkan/vulkan_impl.h"
#include "delegates/vulkan/vulkan_internal.h"

/* Descriptor sets per pool, and storage-buffer descriptors per set on
 * average; a kernel with more buffers gets a pool sized for it. */
#define LG_VK_POOL_SETS 256u
#define LG_VK_POOL_BUFFERS_PER_SET 4u

/* ---- Command buffers and barriers --------------------------------------- */

/* Adds one command buffer and its fence to the reusable set. */
static TfLiteStatus lg_vk_add_command_buffer(lg_vk_impl* impl,
                                             lg_gpu_error* error) {
  size_t n = impl->command_count + 1;
  VkCommandBuffer* commands = realloc(impl->commands, n * sizeof(*commands));
  if (commands != NULL) impl->commands = commands;
  VkFence* fences = realloc(impl->fences, n * sizeof(*fences));
  if (fences != NULL) impl->fences = fences;
  if (commands == NULL || fences == NULL) {
    lg_gpu_error_set(error, "out of host memory for a command buffer");
    return kTfLiteError;
  }
  const VkCommandBufferAllocateInfo alloc = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = impl->command_pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
  };
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkResult r = LG_VK_TRY(vkAllocateCommandBuffers, VK_ERROR_OUT_OF_HOST_MEMORY,
                         impl->device, &alloc, &cmd);
  if (r != VK_SUCCESS) {
    lg_vk_fail(error, "vkAllocateCommandBuffers", r, NULL);
    return kTfLiteError;
  }
  const VkFenceCreateInfo fence_info = {
      .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  r = LG_VK_TRY(vkCreateFence, VK_ERROR_OUT_OF_HOST_MEMORY, impl->device,
                &fence_info, NULL, &fence);
  if (r != VK_SUCCESS) {
    vkFreeCommandBuffers(impl->device, impl->command_pool, 1, &cmd);
    lg_vk_fail(error, "vkCreateFence", r, NULL);
    return kTfLiteError;
  }
  lg_vk_object_created();
  impl->commands[impl->command_count] = cmd;
  impl->fences[impl->command_count] = fence;
  impl->command_count = n;
  return kTfLiteOk;
}

TfLiteStatus lg_vk_recording(lg_vk_impl* impl, VkCommandBuffer* cmd,
                             lg_gpu_error* error) {
  if (impl->begun > impl->submitted) {
    *cmd = impl->commands[impl->begun - 1];
    return kTfLiteOk;
  }
  if (impl->begun == impl->command_count &&
      lg_vk_add_command_buffer(impl, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  const VkCommandBufferBeginInfo begin = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
  };
  VkResult r = LG_VK_TRY(vkBeginCommandBuffer, VK_ERROR_OUT_OF_HOST_MEMORY,
                         impl->commands[impl->begun], &begin);
  if (r != VK_SUCCESS) {
    /* The command buffer's state is unknown until the pool is reset. */
    lg_vk_fail(error, "vkBeginCommandBuffer", r, NULL);
    lg_vk_mark_broken(impl, error);
    return kTfLiteError;
  }
  *cmd = impl->commands[impl->begun++];
  /* The first command waits for earlier submissions' commands: a barrier's
   * first scope covers everything earlier in submission order. */
  impl->pending_stages = impl->ever_submitted
                             ? VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                                   VK_PIPELINE_STAGE_TRANSFER_BIT
                             : 0;
  return kTfLiteOk;
}

void lg_vk_barrier(lg_vk_impl* impl, VkCommandBuffer cmd,
                   VkPipelineStageFlags stage) {
  const VkPipelineStageFlags pending = impl->pending_stages;
  if (pending != 0) {
    VkAccessFlags src = 0, dst = VK_ACCESS_HOST_READ_BIT;
    if (pending & VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) {
      src |= VK_ACCESS_SHADER_WRITE_BIT;
    }
    if (pending & VK_PIPELINE_STAGE_TRANSFER_BIT) {
      src |= VK_ACCESS_TRANSFER_WRITE_BIT;
    }
    if (stage == VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) {
      dst = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    } else if (stage == VK_PIPELINE_STAGE_TRANSFER_BIT) {
      dst = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    }
    const VkMemoryBarrier barrier = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = src,
        .dstAccessMask = dst,
    };
    vkCmdPipelineBarrier(cmd, pending, stage, 0, 1, &barrier, 0, NULL, 0, NULL);
  }
  /* Every later barrier covers every earlier device command. */
  if (stage != VK_PIPELINE_STAGE_HOST_BIT) impl->pending_stages |= stage;
}

/* ---- Descriptor sets ---------------------------------------------------- */

static TfLiteStatus lg_vk_add_descriptor_pool(lg_vk_impl* impl,
                                              lg_vk_descriptor_pools* pools,
                                              uint32_t buffers,
                                              lg_gpu_error* error) {
  lg_vk_descriptor_pool* grown =
      realloc(pools->pools, (pools->count + 1) * sizeof(*grown));
  if (grown == NULL) {
    lg_gpu_error_set(error, "out of host memory for a descriptor pool");
    return kTfLiteError;
  }
  pools->pools = grown;
  uint32_t descriptors = LG_VK_POOL_SETS * LG_VK_POOL_BUFFERS_PER_SET;
  if (descriptors < buffers) descriptors = buffers;
  /* A set's descriptors of either type count against both sizes. */
  const VkDescriptorPoolSize sizes[2] = {
      {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptors},
      {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, descriptors}};
  const VkDescriptorPoolCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
      .maxSets = LG_VK_POOL_SETS,
      .poolSizeCount = impl->texel_reads ? 2u : 1u,
      .pPoolSizes = sizes,
  };
  lg_vk_descriptor_pool* pool = &grown[pools->count];
  VkResult r = LG_VK_TRY(vkCreateDescriptorPool, VK_ERROR_OUT_OF_HOST_MEMORY,
                         impl->device, &info, NULL, &pool->pool);
  if (r != VK_SUCCESS) {
    lg_vk_fail(error, "vkCreateDescriptorPool", r, NULL);
    return kTfLiteError;
  }
  lg_vk_object_created();
  pool->sets_left = LG_VK_POOL_SETS;
  pool->descriptors_left = descriptors;
  pool->descriptors = descriptors;
  pools->count++;
  return kTfLiteOk;
}

/* Valid until `pools` is reset (the backend's: the next finish) or
 * destroyed; pools are tracked so no allocation exceeds them. */
TfLiteStatus lg_vk_descriptor_set(lg_vk_impl* impl,
                                  lg_vk_descriptor_pools* pools,
                                  const lg_gpu_kernel* kernel,
                                  const lg_vk_bindings* bindings,
                                  VkDescriptorSet* set, lg_gpu_error* error) {
  const uint32_t count = bindings->count;
  size_t i = pools->current;
  while (i < pools->count && (pools->pools[i].sets_left == 0 ||
                              pools->pools[i].descriptors_left < count)) {
    ++i;
  }
  if (i == pools->count &&
      lg_vk_add_descriptor_pool(impl, pools, count, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  lg_vk_descriptor_pool* pool = &pools->pools[i];
  const VkDescriptorSetAllocateInfo alloc = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
      .descriptorPool = pool->pool,
      .descriptorSetCount = 1,
      .pSetLayouts = &kernel->set_layout,
  };
  VkResult r = LG_VK_TRY(vkAllocateDescriptorSets, VK_ERROR_OUT_OF_POOL_MEMORY,
                         impl->device, &alloc, set);
  if (r != VK_SUCCESS) {
    lg_vk_fail(error, "vkAllocateDescriptorSets", r, "kernel '%s'",
               kernel->name);
    return kTfLiteError;
  }
  pools->current = i;
  pool->sets_left--;
  pool->descriptors_left -= count;
  VkWriteDescriptorSet writes[LG_VK_MAX_BUFFER_ARGS];
  for (uint32_t b = 0; b < count; ++b) {
    writes[b] = (VkWriteDescriptorSet){
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
        .dstSet = *set,
        .dstBinding = b,
        .descriptorCount = 1,
        .descriptorType = lg_vk_binding_type(kernel, b),
        .pBufferInfo = &bindings->infos[b],
        .pTexelBufferView = &bindings->views[b],
    };
  }
  vkUpdateDescriptorSets(impl->device, count, writes, 0, NULL);
  return kTfLiteOk;
}

/* ---- Dispatch ----------------------------------------------------------- */

/* Sorts the arguments into buffer bindings and push-constant words,
 * checking them against the shader's interface. */
static TfLiteStatus lg_vk_pack_args(lg_vk_impl* impl,
                                    const lg_gpu_kernel* kernel,
                                    const lg_gpu_arg* args, int num_args,
                                    lg_vk_bindings* bindings, uint32_t* push,
                                    lg_gpu_error* error) {
  const lg_vk_shader* s = kernel->shader;
  const uint32_t push_count = (uint32_t)strlen(s->push);
  uint32_t buffers = 0, scalars = 0;
  for (int i = 0; i < num_args; ++i) {
    const lg_gpu_arg* a = &args[i];
    if (a->kind == LG_GPU_ARG_KIND_BUFFER) {
      if (buffers < s->buffer_count) {
        bindings->infos[buffers] = (VkDescriptorBufferInfo){
            a->value.buffer->buffer, a->value.buffer->offset, VK_WHOLE_SIZE};
        bindings->views[buffers] = VK_NULL_HANDLE;
        if (lg_vk_binding_type(kernel, buffers) ==
                VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER &&
            lg_vk_buffer_view(impl, a->value.buffer, &bindings->views[buffers],
                              error) != kTfLiteOk) {
          return kTfLiteError;
        }
      }
      ++buffers;
    } else if (a->kind == LG_GPU_ARG_KIND_INT ||
               a->kind == LG_GPU_ARG_KIND_FLOAT) {
      bool want_float = scalars < push_count && s->push[scalars] == 'f';
      bool is_float = a->kind == LG_GPU_ARG_KIND_FLOAT;
      if (scalars < push_count && want_float != is_float) {
        lg_gpu_error_set(error,
                         "dispatch: kernel '%s' argument %d is %s but "
                         "push constant %u of %s is %s",
                         kernel->name, i, is_float ? "a float" : "an int",
                         scalars, s->source, want_float ? "a float" : "an int");
        return kTfLiteError;
      }
      if (scalars < push_count) {
        memcpy(&push[scalars],
               is_float ? (const void*)&a->value.f : (const void*)&a->value.i,
               4);
      }
      ++scalars;
    } else {
      lg_gpu_error_set(error,
                       "dispatch: kernel '%s' argument %d has unknown "
                       "kind %d",
                       kernel->name, i, (int)a->kind);
      return kTfLiteError;
    }
  }
  if (buffers != s->buffer_count || scalars != push_count) {
    lg_gpu_error_set(error,
                     "dispatch: kernel '%s' takes %u buffers and %u "
                     "scalars (%s), got %u and %u",
                     kernel->name, s->buffer_count, push_count, s->source,
                     buffers, scalars);
    return kTfLiteError;
  }
  bindings->count = buffers;
  return kTfLiteOk;
}

/* Records the groups, split into chunks of at most maxComputeWorkGroupCount
 * per dimension (vkCmdDispatchBase offsets gl_WorkGroupID, so the shader
 * sees one grid). */
static void lg_vk_record_groups(lg_vk_impl* impl, VkCommandBuffer cmd,
                                const uint32_t groups[3]) {
  const uint32_t* max = impl->properties.limits.maxComputeWorkGroupCount;
  for (uint32_t z = 0; z < groups[2]; z += max[2]) {
    uint32_t nz = groups[2] - z < max[2] ? groups[2] - z : max[2];
    for (uint32_t y = 0; y < groups[1]; y += max[1]) {
      uint32_t ny = groups[1] - y < max[1] ? groups[1] - y : max[1];
      for (uint32_t x = 0; x < groups[0]; x += max[0]) {
        uint32_t nx = groups[0] - x < max[0] ? groups[0] - x : max[0];
        if (x == 0 && y == 0 && z == 0 && nx == groups[0] && ny == groups[1] &&
            nz == groups[2]) {
          vkCmdDispatch(cmd, nx, ny, nz);
        } else {
          vkCmdDispatchBase(cmd, x, y, z, nx, ny, nz);
        }
        impl->stats.dispatches++;
      }
    }
  }
}

/* The command buffer a dispatch goes into, with the barrier it needs, and
 * its descriptor set: the capture's while recording, else the backend's
 * current one. */
static TfLiteStatus lg_vk_dispatch_target(lg_vk_impl* impl,
                                          const lg_gpu_kernel* kernel,
                                          const lg_vk_bindings* bindings,
                                          VkCommandBuffer* cmd,
                                          VkDescriptorSet* set,
                                          lg_gpu_error* error) {
  if (impl->capture != NULL) {
    return lg_vk_capture_target(impl, kernel, bindings, cmd, set, error);
  }
  if ((bindings->count > 0 &&
       lg_vk_descriptor_set(impl, &impl->descriptors, kernel, bindings, set,
                            error) != kTfLiteOk) ||
      lg_vk_recording(impl, cmd, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  lg_vk_barrier(impl, *cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
  return kTfLiteOk;
}

static TfLiteStatus lg_vk_dispatch_record(lg_gpu_backend* be,
                                          lg_gpu_kernel* kernel,
                                          const lg_gpu_arg* args, int num_args,
                                          int dims, const size_t* global,
                                          const size_t* local,
                                          lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  lg_vk_bindings bindings;
  uint32_t push[LG_VK_MAX_PUSH_WORDS];
  uint32_t chosen[3] = {1, 1, 1}, groups[3] = {1, 1, 1};
  /* lg_gpu_dispatch checked the arguments every backend shares. */
  if (lg_vk_check_usable(impl, "dispatch", error) != kTfLiteOk ||
      lg_vk_pack_args(impl, kernel, args, num_args, &bindings, push, error) !=
          kTfLiteOk) {
    return kTfLiteError;
  }
  if (lg_vk_choose_local(be, kernel, dims, local, chosen, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  for (int d = 0; d < dims; ++d) {
    /* gl_GlobalInvocationID is 32-bit. */
    if (global[d] == 0 || global[d] > UINT32_MAX - chosen[d]) {
      lg_gpu_error_set(error,
                       "dispatch: kernel '%s' global size %zu in "
                       "dimension %d is outside 1..%u",
                       kernel->name, global[d], d,
                       (unsigned)(UINT32_MAX - chosen[d]));
      return kTfLiteError;
    }
    groups[d] = (uint32_t)((global[d] + chosen[d] - 1) / chosen[d]);
  }
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
  const uint32_t buffers = kernel->shader->buffer_count;
  const uint32_t words = (uint32_t)strlen(kernel->shader->push);
  if (lg_vk_kernel_pipeline(be, kernel, chosen, &pipeline, error) !=
          kTfLiteOk ||
      lg_vk_dispatch_target(impl, kernel, &bindings, &cmd, &set, error) !=
          kTfLiteOk) {
    return kTfLiteError;
  }
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  if (buffers > 0) {
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, kernel->layout,
                            0, 1, &set, 0, NULL);
  }
  if (words > 0) {
    vkCmdPushConstants(cmd, kernel->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       words * 4u, push);
  }
  lg_vk_record_groups(impl, cmd, groups);
  impl->stats.last_dims = dims;
  for (int d = 0; d < 3; ++d) {
    impl->stats.last_local[d] = chosen[d];
    impl->stats.last_global[d] = (size_t)groups[d] * chosen[d];
  }
  return kTfLiteOk;
}

TfLiteStatus lg_vk_dispatch(lg_gpu_backend* be, lg_gpu_kernel* kernel,
                            const lg_gpu_arg* args, int num_args, int dims,
                            const size_t* global, const size_t* local,
                            lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  lg_gpu_error local_error;
  lg_gpu_error* e = error != NULL ? error : &local_error;
  const TfLiteStatus status =
      lg_vk_dispatch_record(be, kernel, args, num_args, dims, global, local, e);
  /* A recording missing a dispatch would compute the wrong thing. */
  if (status != kTfLiteOk && impl->capture != NULL) {
    lg_vk_capture_failed(impl, e);
  }
  return status;
}

/* ---- Submit and finish -------------------------------------------------- */

bool lg_vk_busy(const lg_vk_impl* impl) {
  return impl->begun > 0 || impl->running > 0;
}

TfLiteStatus lg_vk_submit_then(lg_gpu_backend* be, VkCommandBuffer then,
                               bool* then_submitted, lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  lg_gpu_error local;
  lg_gpu_error* e = error != NULL ? error : &local;
  if (then_submitted != NULL) *then_submitted = false;
  if (lg_vk_check_usable(impl, "submit", e) != kTfLiteOk) return kTfLiteError;
  if (impl->begun == impl->submitted) return kTfLiteOk;
  const size_t i = impl->begun - 1;
  /* Whatever the host reads after the fence (mapped buffers, readback)
   * must be made available to it. */
  lg_vk_barrier(impl, impl->commands[i], VK_PIPELINE_STAGE_HOST_BIT);
  VkResult r = LG_VK_TRY(vkEndCommandBuffer, VK_ERROR_OUT_OF_DEVICE_MEMORY,
                         impl->commands[i]);
  if (r != VK_SUCCESS) {
    lg_vk_fail(e, "vkEndCommandBuffer", r, NULL);
    lg_vk_mark_broken(impl, e);
    return kTfLiteError;
  }
  /* One batch: command buffers in a batch run in order, and the fence
   * signals when all of them have completed. It waits for and signals the
   * caller's timeline points added since the last submission. */
  const VkCommandBuffer batch[2] = {impl->commands[i], then};
  VkPipelineStageFlags stages[LG_VK_MAX_SEMAPHORES];
  for (uint32_t s = 0; s < impl->sem_wait_count; ++s) {
    stages[s] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  }
  const VkTimelineSemaphoreSubmitInfoKHR points = {
      .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO_KHR,
      .waitSemaphoreValueCount = impl->sem_wait_count,
      .pWaitSemaphoreValues = impl->sem_wait_values,
      .signalSemaphoreValueCount = impl->sem_signal_count,
      .pSignalSemaphoreValues = impl->sem_signal_values,
  };
  const bool has_points = impl->sem_wait_count + impl->sem_signal_count > 0;
  const VkSubmitInfo submit = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .pNext = has_points ? &points : NULL,
      .waitSemaphoreCount = impl->sem_wait_count,
      .pWaitSemaphores = impl->sem_waits,
      .pWaitDstStageMask = stages,
      .commandBufferCount = then != VK_NULL_HANDLE ? 2u : 1u,
      .pCommandBuffers = batch,
      .signalSemaphoreCount = impl->sem_signal_count,
      .pSignalSemaphores = impl->sem_signals,
  };
  r = LG_VK_TRY(vkQueueSubmit, VK_ERROR_DEVICE_LOST, impl->queue, 1, &submit,
                impl->fences[i]);
  if (r != VK_SUCCESS) {
    lg_vk_fail(e, "vkQueueSubmit", r, NULL);
    lg_vk_mark_broken(impl, e);
    return kTfLiteError;
  }
  impl->sem_wait_count = 0;
  impl->sem_signal_count = 0;
  impl->submitted++;
  impl->ever_submitted = true;
  impl->stats.submits++;
  if (then_submitted != NULL) *then_submitted = then != VK_NULL_HANDLE;
  return kTfLiteOk;
}

TfLiteStatus lg_vk_submit(lg_gpu_backend* be, lg_gpu_error* error) {
  return lg_vk_submit_then(be, VK_NULL_HANDLE, NULL, error);
}

/* Makes every command buffer, descriptor pool and staging slice reusable
 * (all fences have signaled). */
static TfLiteStatus lg_vk_recycle(lg_vk_impl* impl, lg_gpu_error* error) {
  VkResult r = LG_VK_TRY(vkResetFences, VK_ERROR_OUT_OF_DEVICE_MEMORY,
                         impl->device, (uint32_t)impl->submitted, impl->fences);
  if (r != VK_SUCCESS) {
    lg_vk_fail(error, "vkResetFences", r, NULL);
    return kTfLiteError;
  }
  r = LG_VK_TRY(vkResetCommandPool, VK_ERROR_OUT_OF_DEVICE_MEMORY, impl->device,
                impl->command_pool, 0);
  if (r != VK_SUCCESS) {
    lg_vk_fail(error, "vkResetCommandPool", r, NULL);
    return kTfLiteError;
  }
  for (size_t i = 0; i < impl->descriptors.count; ++i) {
    lg_vk_descriptor_pool* pool = &impl->descriptors.pools[i];
    if (pool->sets_left == LG_VK_POOL_SETS) continue; /* unused */
    r = LG_VK_TRY(vkResetDescriptorPool, VK_ERROR_OUT_OF_DEVICE_MEMORY,
                  impl->device, pool->pool, 0);
    if (r != VK_SUCCESS) {
      lg_vk_fail(error, "vkResetDescriptorPool", r, NULL);
      return kTfLiteError;
    }
    pool->sets_left = LG_VK_POOL_SETS;
    pool->descriptors_left = pool->descriptors;
  }
  impl->descriptors.current = 0;
  impl->begun = 0;
  impl->submitted = 0;
  impl->generation++;
  impl->pending_stages = 0;
  lg_vk_staging_reset(impl);
  return kTfLiteOk;
}

TfLiteStatus lg_vk_finish(lg_gpu_backend* be, lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  lg_gpu_error local;
  lg_gpu_error* e = error != NULL ? error : &local;
  if (lg_vk_submit(be, e) != kTfLiteOk) return kTfLiteError;
  /* Recordings' runs with their own fences, then the command buffers
   * (whose fences also cover the runs submitted with them). */
  if (impl->running > 0 && lg_vk_recordings_wait(impl, e) != kTfLiteOk) {
    lg_vk_mark_broken(impl, e);
    return kTfLiteError;
  }
  if (impl->submitted > 0) {
    VkResult r = lg_vk_wait_fences(impl->device, (uint32_t)impl->submitted,
                                   impl->fences);
    if (r != VK_SUCCESS) {
      lg_vk_fail(e, "vkWaitForFences", r, "%s",
                 r == VK_TIMEOUT ? "no completion after 60 s"
                                 : "waiting for submitted work");
      lg_vk_mark_broken(impl, e);
      return kTfLiteError;
    }
  }
  if (impl->running > 0) lg_vk_recordings_done(impl);
  if (impl->begun == 0) return kTfLiteOk;
  if (lg_vk_recycle(impl, e) != kTfLiteOk) {
    lg_vk_mark_broken(impl, e);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

void lg_vk_descriptor_pools_destroy(lg_vk_impl* impl,
                                    lg_vk_descriptor_pools* pools) {
  for (size_t i = 0; i < pools->count; ++i) {
    vkDestroyDescriptorPool(impl->device, pools->pools[i].pool, NULL);
    lg_vk_object_released();
  }
  free(pools->pools);
  memset(pools, 0, sizeof(*pools));
}

void lg_vk_dispatch_destroy(lg_vk_impl* impl) {
  for (size_t i = 0; i < impl->command_count; ++i) {
    vkDestroyFence(impl->device, impl->fences[i], NULL);
    lg_vk_object_released();
  }
  if (impl->command_count > 0) {
    vkFreeCommandBuffers(impl->device, impl->command_pool,
                         (uint32_t)impl->command_count, impl->commands);
  }
  free(impl->commands);
  free(impl->fences);
  impl->commands = NULL;
  impl->fences = NULL;
  impl->command_count = 0;
  if (impl->command_pool != VK_NULL_HANDLE) {
    vkDestroyCommandPool(impl->device, impl->command_pool, NULL);
    lg_vk_object_released();
    impl->command_pool = VK_NULL_HANDLE;
  }
  lg_vk_descriptor_pools_destroy(impl, &impl->descriptors);
}
