/* The Vulkan backend's private state, shared by its files (internal).
 *
 *   vulkan_backend.c        create/destroy, the ops table, stats, the
 *                           unusable-after-failure state
 *   vulkan_device.c         instance, validation messenger, device choice,
 *                           device info, logical device and queue
 *   vulkan_memory.c         memory types, buffers, staging, upload/download
 *   vulkan_pipeline.c       kernels: defines -> specialization constants,
 *                           layouts, one pipeline per local size
 *   vulkan_pipeline_cache.c the cache files and VkPipelineCache load/save
 *   vulkan_dispatch.c       command buffers, barriers, descriptor sets,
 *                           dispatch, submit, finish
 *   vulkan_recording.c      reusable recordings (one command buffer
 *                           recorded once, run many times), has_kernel
 *   vulkan_util.c           VkResult names, messages, fault injection */
#ifndef LITEGPU_DELEGATES_VULKAN_VULKAN_IMPL_H_
#define LITEGPU_DELEGATES_VULKAN_VULKAN_IMPL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include "delegates/backend/gpu_backend.h"
#include "delegates/vulkan/vulkan_backend.h"
#include "delegates/vulkan/vulkan_shaders.h"

/* A host-visible, host-coherent buffer, mapped for its whole life (staging
 * for uploads and downloads). */
typedef struct lg_vk_host_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  unsigned char* map;
  VkDeviceSize size;
  VkDeviceSize used; /* bytes handed out since the last finish */
} lg_vk_host_buffer;

typedef struct lg_vk_descriptor_pool {
  VkDescriptorPool pool;
  uint32_t sets_left;
  uint32_t descriptors_left;
  uint32_t descriptors; /* descriptors it holds of each type (storage
                           buffer, uniform texel buffer) */
} lg_vk_descriptor_pool;

/* Descriptor pools grown on demand: the backend's (reset at every finish)
 * or a recording's (kept for its life). */
typedef struct lg_vk_descriptor_pools {
  lg_vk_descriptor_pool* pools;
  size_t count;
  size_t current; /* the first pool that may still have room */
} lg_vk_descriptor_pools;

/* Semaphore waits (and signals) one submission carries at most. */
#define LG_VK_MAX_SEMAPHORES 16u

typedef struct lg_vk_impl {
  /* Instance and device (vulkan_device.c). */
  VkInstance instance;
  VkDebugUtilsMessengerEXT messenger;
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger;
  /* LITEGPU_VULKAN_VALIDATION=1: a counted validation error fails the next
   * download, so a test run through the delegate fails on it. */
  bool fail_on_validation_error;
  VkPhysicalDevice physical;
  VkDevice device;
  VkQueue queue;
  uint32_t queue_family;
  VkPhysicalDeviceProperties properties;
  VkPhysicalDeviceMemoryProperties memory;
  VkDeviceSize max_allocation; /* maxMemoryAllocationSize */
  bool creation_feedback;      /* VK_EXT_pipeline_creation_feedback on */
  /* The queue family's timestampValidBits: 0 when it writes no
   * timestamps, so profiled runs time each dispatch on the host. */
  uint32_t timestamp_bits;
  /* VK_KHR_timeline_semaphore enabled (the device has timelineSemaphore):
   * the async kernel's LITEGPU_SYNC_TYPE_VK_TIMELINE_SEMAPHORE. */
  bool timeline;
  PFN_vkWaitSemaphoresKHR wait_semaphores;
  /* Half precision: shaderFloat16 and storageBuffer16BitAccess enabled at
   * device creation, kernels built from the shaders' LG_FP16 SPIR-V
   * (lg_gpu_backend.fp16_storage). */
  bool fp16;
  /* Read-only tensors (the shaders' LG_TENSOR_IN bindings) are uniform
   * texel buffers of `texel_format`, kernels are built from the LG_TEXEL
   * SPIR-V and device buffers carry the texel-buffer usage
   * (lg_vk_choose_texel_reads). */
  bool texel_reads;
  VkFormat texel_format;
  char driver_text[256]; /* driver name and info, when reported */

  /* Pipeline cache files (NULL: none); the device part of every key. */
  char* cache_dir;
  uint64_t cache_namespace; /* hash of the model token in every key; 0: none */
  char cache_device_key[1024];

  /* Recording and submission (vulkan_dispatch.c). Command buffers and
   * fences are allocated on demand and reused after each finish:
   * [0, begun) are in use, [0, submitted) of those were submitted. */
  VkCommandPool command_pool;
  VkCommandBuffer* commands;
  VkFence* fences;
  size_t command_count;
  size_t begun;
  size_t submitted;
  /* Counts the times the command buffers were made reusable: a
   * submission's fence is its own only while this has not changed. */
  uint64_t generation;
  /* The caller's timeline semaphore points the next submission waits for
   * and signals (sync_wait_input on a bound input, sync_signal_output). */
  VkSemaphore sem_waits[LG_VK_MAX_SEMAPHORES];
  uint64_t sem_wait_values[LG_VK_MAX_SEMAPHORES];
  uint32_t sem_wait_count;
  VkSemaphore sem_signals[LG_VK_MAX_SEMAPHORES];
  uint64_t sem_signal_values[LG_VK_MAX_SEMAPHORES];
  uint32_t sem_signal_count;
  /* Stages of earlier commands the next command must wait for. */
  VkPipelineStageFlags pending_stages;
  bool ever_submitted;
  lg_vk_descriptor_pools descriptors;

  /* Recordings (vulkan_recording.c): every live one, so that a released or
   * foreign handle is refused; `capture` is the one between
   * recording_begin and recording_end (dispatches go into it); `running`
   * counts those submitted by recording_run and not yet waited for. */
  lg_gpu_recording** recordings;
  size_t recording_count;
  size_t recording_capacity;
  VkFence* recording_fences; /* scratch for waits, recording_capacity */
  lg_gpu_recording* capture;
  size_t running;

  /* Staging (vulkan_memory.c): uploads take slices of `staging` until the
   * next finish; blocking downloads go through `readback`. Each
   * non-blocking download (download_begin) has a readback buffer of its
   * own, held by its fence until fence_wait copies it out, so several can
   * be pending at once; fence_release puts it back among `spare_readbacks`
   * for the next one. */
  lg_vk_host_buffer* staging;
  size_t staging_count;
  lg_vk_host_buffer readback;
  lg_vk_host_buffer* spare_readbacks;
  size_t spare_readback_count;

  /* Set after a failed end/submit/wait/reset: work recorded before it is
   * lost or its state unknown, so every later dispatch, transfer, submit
   * and finish fails with this reason. */
  bool broken;
  char broken_reason[LG_GPU_ERROR_SIZE];

  lg_vulkan_stats stats;
} lg_vk_impl;

struct lg_gpu_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory; /* VK_NULL_HANDLE for a wrapped buffer */
  unsigned char* map;    /* non-NULL: device memory the host can write */
  size_t bytes;          /* the caller's size (the VkBuffer is whole texels) */
  VkDeviceSize offset;   /* where the range starts in `buffer` (wrapped) */
  bool wrapped;          /* the application's VkBuffer: not destroyed here */
  VkBufferView view;     /* the range as texels, made on first use */
};

typedef struct lg_vk_pipeline {
  uint32_t local[3];
  VkPipeline pipeline;
} lg_vk_pipeline;

#define LG_VK_MAX_SPEC 32
/* Arguments one dispatch can take: storage buffers, and 4-byte push
 * constants (maxPushConstantsSize is 128 bytes at least, 256 on most
 * GPUs). */
#define LG_VK_MAX_BUFFER_ARGS 32u
#define LG_VK_MAX_PUSH_WORDS 64u

/* The buffers of one dispatch, binding by binding: a storage buffer's
 * range, or for a texel binding the buffer's view. */
typedef struct lg_vk_bindings {
  uint32_t count;
  VkDescriptorBufferInfo infos[LG_VK_MAX_BUFFER_ARGS];
  VkBufferView views[LG_VK_MAX_BUFFER_ARGS]; /* VK_NULL_HANDLE: storage */
} lg_vk_bindings;

struct lg_gpu_kernel {
  char name[64];
  const lg_vk_shader* shader;
  const uint32_t* code; /* the shader's variant built: fp32 or fp16, */
  size_t words;         /* storage-buffer or texel reads */
  bool texel;           /* its 't' bindings are texel buffers */
  VkShaderModule module;
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout layout;
  VkPipelineCache cache;
  char* cache_key;     /* NULL: no cache file */
  bool cache_dirty;    /* pipelines created since the file was written */
  uint64_t cache_hash; /* hash of the data in the file (0: no valid file) */
  uint32_t spec_count;
  uint32_t spec_ids[LG_VK_MAX_SPEC];
  int32_t spec_values[LG_VK_MAX_SPEC];
  lg_vk_pipeline* pipelines;
  size_t pipeline_count;
};

/* How binding i of the kernel's set is bound. */
static inline VkDescriptorType lg_vk_binding_type(const lg_gpu_kernel* kernel,
                                                  uint32_t i) {
  return kernel->texel && kernel->shader->kinds[i] == 't'
             ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
             : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

/* ---- vulkan_device.c ---------------------------------------------------- */

/* Creates the instance (with the validation layer when asked) and the
 * debug-utils messenger when the instance offers it. */
TfLiteStatus lg_vk_instance_create(lg_vk_impl* impl, bool validation,
                                   lg_gpu_error* error);
/* Picks the physical device and its compute queue family (rule in
 * vulkan_backend.h) and fills `info`. */
TfLiteStatus lg_vk_pick_device(lg_vk_impl* impl, int device_index,
                               lg_gpu_device_info* info, lg_gpu_error* error);
/* Creates the logical device and gets its queue. */
TfLiteStatus lg_vk_device_create(lg_vk_impl* impl, lg_gpu_error* error);
void lg_vk_choose_texel_reads(lg_vk_impl* impl, lg_gpu_device_info* info);

/* ---- vulkan_memory.c ---------------------------------------------------- */

TfLiteStatus lg_vk_buffer_create(lg_gpu_backend* be, size_t bytes,
                                 lg_gpu_buffer** out, lg_gpu_error* error);
void lg_vk_buffer_release(lg_gpu_backend* be, lg_gpu_buffer* buffer);
/* buffer_wrap, buffer_native and native_device (gpu_backend.h). */
TfLiteStatus lg_vk_buffer_wrap(lg_gpu_backend* be,
                               const lg_gpu_native_buffer* native,
                               lg_gpu_buffer** out, lg_gpu_error* error);
void lg_vk_buffer_native(const lg_gpu_buffer* buffer,
                         lg_gpu_native_buffer* out);
void lg_vk_native_device(const lg_gpu_backend* be, lg_gpu_native_device* out);
size_t lg_vk_buffer_bytes(const lg_gpu_buffer* buffer);
TfLiteStatus lg_vk_buffer_upload(lg_gpu_backend* be, lg_gpu_buffer* buffer,
                                 size_t offset, const void* data, size_t bytes,
                                 lg_gpu_error* error);
TfLiteStatus lg_vk_buffer_download_batch(lg_gpu_backend* be,
                                         const lg_gpu_download* list, int count,
                                         lg_gpu_error* error);
/* Non-blocking downloads (vulkan_memory.c; see gpu_backend.h). */
TfLiteStatus lg_vk_download_begin(lg_gpu_backend* be,
                                  const lg_gpu_download* list, int count,
                                  lg_gpu_fence** out, lg_gpu_error* error);
TfLiteStatus lg_vk_fence_wait(lg_gpu_backend* be, lg_gpu_fence* fence,
                              lg_gpu_error* error);
void lg_vk_fence_release(lg_gpu_backend* be, lg_gpu_fence* fence);
bool lg_vk_fence_done(lg_gpu_backend* be, const lg_gpu_fence* fence);
TfLiteStatus lg_vk_buffer_view(lg_vk_impl* impl, lg_gpu_buffer* buffer,
                               VkBufferView* out, lg_gpu_error* error);
/* Forgets the staging slices handed out (after every fence was waited). */
void lg_vk_staging_reset(lg_vk_impl* impl);
/* Frees the staging and readback buffers (the spare ones included). */
void lg_vk_staging_destroy(lg_vk_impl* impl);

/* ---- vulkan_pipeline.c -------------------------------------------------- */

TfLiteStatus lg_vk_kernel_create(lg_gpu_backend* be, const char* name,
                                 const char* defines, lg_gpu_kernel** out,
                                 lg_gpu_error* error);
void lg_vk_kernel_release(lg_gpu_backend* be, lg_gpu_kernel* kernel);
size_t lg_vk_kernel_max_work_group_size(lg_gpu_backend* be,
                                        const lg_gpu_kernel* kernel);
/* The kernel's pipeline for work-group size `local`, created on first use
 * (the cache file is written when the kernel is released). */
TfLiteStatus lg_vk_kernel_pipeline(lg_gpu_backend* be, lg_gpu_kernel* kernel,
                                   const uint32_t local[3],
                                   VkPipeline* pipeline, lg_gpu_error* error);
/* The work-group size of a dispatch over `dims` dimensions: `local`,
 * checked against the device's limits, or (NULL) the default below. */
TfLiteStatus lg_vk_choose_local(const lg_gpu_backend* be,
                                const lg_gpu_kernel* kernel, int dims,
                                const size_t* local, uint32_t chosen[3],
                                lg_gpu_error* error);
/* Creates the pipelines of `uses` that the kernels do not have yet, several
 * at a time (the backend's kernels_prepare). */
TfLiteStatus lg_vk_kernels_prepare(lg_gpu_backend* be,
                                   const lg_gpu_kernel_use* uses, int count,
                                   lg_gpu_error* error);
/* The work-group size dispatch uses when given none: 256, 16x16 or 8x8x4
 * invocations for 1, 2 or 3 dims, shrunk to the device's limits. */
void lg_vk_default_local_size(const lg_gpu_device_info* device, int dims,
                              uint32_t local[3]);

/* ---- vulkan_pipeline_cache.c -------------------------------------------- */

/* Creates kernel->cache, from the cache file when a valid one exists (see
 * vulkan_backend.h); without a cache dir, an empty in-memory cache. */
TfLiteStatus lg_vk_pipeline_cache_open(lg_gpu_backend* be,
                                       lg_gpu_kernel* kernel,
                                       lg_gpu_error* error);
/* Writes the cache's data to its file when pipelines were created since the
 * last write; failures only skip caching. */
void lg_vk_pipeline_cache_save(lg_gpu_backend* be, lg_gpu_kernel* kernel);

/* ---- vulkan_dispatch.c -------------------------------------------------- */

TfLiteStatus lg_vk_dispatch(lg_gpu_backend* be, lg_gpu_kernel* kernel,
                            const lg_gpu_arg* args, int num_args, int dims,
                            const size_t* global, const size_t* local,
                            lg_gpu_error* error);
TfLiteStatus lg_vk_submit(lg_gpu_backend* be, lg_gpu_error* error);
/* Submits the open command buffer like submit; with `then` (a recording's
 * command buffer) not VK_NULL_HANDLE, that goes into the same batch after
 * it, under the open buffer's fence, and *then_submitted says whether it
 * did (false when no command buffer was open: nothing was submitted). */
TfLiteStatus lg_vk_submit_then(lg_gpu_backend* be, VkCommandBuffer then,
                               bool* then_submitted, lg_gpu_error* error);
TfLiteStatus lg_vk_finish(lg_gpu_backend* be, lg_gpu_error* error);
/* The command buffer being recorded, begun when there is none. */
TfLiteStatus lg_vk_recording(lg_vk_impl* impl, VkCommandBuffer* cmd,
                             lg_gpu_error* error);
/* Records the barrier a command of `stage` (compute, transfer, or host for
 * a host read after the fence) needs after every command recorded before
 * it, in this and in earlier submissions (none when there are none). */
void lg_vk_barrier(lg_vk_impl* impl, VkCommandBuffer cmd,
                   VkPipelineStageFlags stage);
/* (vulkan_backend.c) Fails with the reason when the backend is unusable. */
TfLiteStatus lg_vk_check_usable(const lg_vk_impl* impl, const char* slot,
                                lg_gpu_error* error);
/* Marks the backend unusable with the message in `error`. */
void lg_vk_mark_broken(lg_vk_impl* impl, const lg_gpu_error* error);
/* Frees command buffers, fences and descriptor pools (device idle). */
void lg_vk_dispatch_destroy(lg_vk_impl* impl);
/* A descriptor set from `pools` binding `infos` to bindings 0..count-1. */
TfLiteStatus lg_vk_descriptor_set(lg_vk_impl* impl,
                                  lg_vk_descriptor_pools* pools,
                                  const lg_gpu_kernel* kernel,
                                  const lg_vk_bindings* bindings,
                                  VkDescriptorSet* set, lg_gpu_error* error);
/* Destroys every pool of `pools`. */
void lg_vk_descriptor_pools_destroy(lg_vk_impl* impl,
                                    lg_vk_descriptor_pools* pools);
/* Whether any command is recorded or submitted and not yet waited for
 * (including recordings' runs): host-mapped memory may then be in use. */
bool lg_vk_busy(const lg_vk_impl* impl);

/* ---- vulkan_recording.c ------------------------------------------------- */

bool lg_vk_has_kernel(const lg_gpu_backend* be, const char* name);
TfLiteStatus lg_vk_recording_begin(lg_gpu_backend* be, lg_gpu_error* error);
TfLiteStatus lg_vk_recording_end(lg_gpu_backend* be, lg_gpu_recording** out,
                                 lg_gpu_error* error);
TfLiteStatus lg_vk_recording_run(lg_gpu_backend* be, lg_gpu_recording* rec,
                                 lg_gpu_error* error);
/* recording_begin_timed and recording_times (gpu_backend.h). */
TfLiteStatus lg_vk_recording_begin_timed(lg_gpu_backend* be, int dispatches,
                                         lg_gpu_error* error);
TfLiteStatus lg_vk_recording_times(lg_gpu_backend* be,
                                   const lg_gpu_recording* rec, uint64_t* ns,
                                   int count, lg_gpu_error* error);
void lg_vk_recording_release(lg_gpu_backend* be, lg_gpu_recording* rec);
/* During a capture: the recording's command buffer, with the barrier the
 * next dispatch needs recorded, and a descriptor set from its pools. */
TfLiteStatus lg_vk_capture_target(lg_vk_impl* impl, const lg_gpu_kernel* kernel,
                                  const lg_vk_bindings* bindings,
                                  VkCommandBuffer* cmd, VkDescriptorSet* set,
                                  lg_gpu_error* error);
/* Marks the capture incomplete with the first failed dispatch's message
 * (recording_end then fails). */
void lg_vk_capture_failed(lg_vk_impl* impl, const lg_gpu_error* error);
/* Waits for the runs submitted with a recording's own fence and makes
 * those fences reusable (runs batched with a command buffer are covered
 * by its fence). */
TfLiteStatus lg_vk_recordings_wait(lg_vk_impl* impl, lg_gpu_error* error);
/* Marks every run done (after every fence was waited for). */
void lg_vk_recordings_done(lg_vk_impl* impl);
/* Frees every recording and the capture (device idle; backend destroy). */
void lg_vk_recordings_destroy(lg_vk_impl* impl);

#endif /* LITEGPU_DELEGATES_VULKAN_VULKAN_IMPL_H_ */
