/* Memory types, device buffers, staging, upload and download for the
 * Vulkan backend.
 *
 * Device buffers take the first memory type with DEVICE_LOCAL that the
 * buffer allows (drivers list the plainest types first, so a discrete GPU
 * gives VRAM that the host cannot see). When that type is also
 * HOST_VISIBLE and HOST_COHERENT (integrated GPUs, lavapipe) the memory is
 * mapped for the buffer's life and transfers are plain memcpy whenever no
 * recorded or running command can touch it; otherwise they go through
 * host-visible, host-coherent staging buffers (every buffer allows such a
 * type, the spec guarantees it) and vkCmdCopyBuffer, ordered with the
 * dispatches by barriers. Coherent memory needs no flush or invalidate;
 * vkQueueSubmit makes the host's writes visible to the device. */
#include <stdlib.h>
#include <string.h>

#include "delegates/vulkan/vulkan_impl.h"
#include "delegates/vulkan/vulkan_internal.h"

/* The smallest staging buffer made for uploads. */
#define LG_VK_STAGING_CHUNK ((VkDeviceSize)1 << 20)
/* Staging slices start at this alignment (any value works for copies;
 * this keeps memcpy aligned). */
#define LG_VK_STAGING_ALIGN 16u

/* The first type in `bits` with all of `required` and `preferred`, else
 * the first with `required`; UINT32_MAX when none. */
static uint32_t lg_vk_memory_type(const VkPhysicalDeviceMemoryProperties* m,
                                  uint32_t bits, VkMemoryPropertyFlags required,
                                  VkMemoryPropertyFlags preferred) {
  for (int pass = 0; pass < 2; ++pass) {
    VkMemoryPropertyFlags want = pass == 0 ? required | preferred : required;
    for (uint32_t i = 0; i < m->memoryTypeCount; ++i) {
      if ((bits & (1u << i)) &&
          (m->memoryTypes[i].propertyFlags & want) == want) {
        return i;
      }
    }
  }
  return UINT32_MAX;
}

/* What one buffer + memory creation produced. */
typedef struct lg_vk_allocation {
  VkBuffer buffer;
  VkDeviceMemory memory;
  unsigned char* map; /* set when mapped */
} lg_vk_allocation;

static void lg_vk_allocation_free(lg_vk_impl* impl, lg_vk_allocation* a) {
  if (a->map != NULL) vkUnmapMemory(impl->device, a->memory);
  if (a->buffer != VK_NULL_HANDLE) {
    vkDestroyBuffer(impl->device, a->buffer, NULL);
    lg_vk_object_released();
  }
  if (a->memory != VK_NULL_HANDLE) {
    vkFreeMemory(impl->device, a->memory, NULL);
    lg_vk_object_released();
  }
  memset(a, 0, sizeof(*a));
}

/* Creates a buffer of `size` bytes with memory of a type having `required`
 * (and `preferred` if possible), mapped when the type is host-visible and
 * coherent and `map` is set (or `required` asks for host visibility). */
static TfLiteStatus lg_vk_allocate(lg_vk_impl* impl, VkDeviceSize size,
                                   VkBufferUsageFlags usage,
                                   VkMemoryPropertyFlags required,
                                   VkMemoryPropertyFlags preferred, bool map,
                                   lg_vk_allocation* out, lg_gpu_error* error) {
  memset(out, 0, sizeof(*out));
  const VkBufferCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = size,
      .usage = usage,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
  };
  VkResult r = LG_VK_TRY(vkCreateBuffer, VK_ERROR_OUT_OF_DEVICE_MEMORY,
                         impl->device, &info, NULL, &out->buffer);
  if (r != VK_SUCCESS) {
    out->buffer = VK_NULL_HANDLE;
    lg_vk_fail(error, "vkCreateBuffer", r, "%llu bytes",
               (unsigned long long)size);
    goto fail;
  }
  lg_vk_object_created();
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(impl->device, out->buffer, &req);
  uint32_t type =
      lg_vk_memory_type(&impl->memory, req.memoryTypeBits, required, preferred);
  if (type == UINT32_MAX)
    type = lg_vk_memory_type(&impl->memory, req.memoryTypeBits, 0, 0);
  if (type == UINT32_MAX) {
    lg_gpu_error_set(error,
                     "no Vulkan memory type fits a %llu-byte buffer "
                     "(memoryTypeBits 0x%x)",
                     (unsigned long long)size, req.memoryTypeBits);
    goto fail;
  }
  const VkMemoryAllocateInfo alloc = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .allocationSize = req.size,
      .memoryTypeIndex = type,
  };
  r = LG_VK_TRY(vkAllocateMemory, VK_ERROR_OUT_OF_DEVICE_MEMORY, impl->device,
                &alloc, NULL, &out->memory);
  if (r != VK_SUCCESS) {
    out->memory = VK_NULL_HANDLE;
    lg_vk_fail(error, "vkAllocateMemory", r, "%llu bytes of memory type %u",
               (unsigned long long)req.size, type);
    goto fail;
  }
  lg_vk_object_created();
  r = LG_VK_TRY(vkBindBufferMemory, VK_ERROR_OUT_OF_DEVICE_MEMORY, impl->device,
                out->buffer, out->memory, 0);
  if (r != VK_SUCCESS) {
    lg_vk_fail(error, "vkBindBufferMemory", r, NULL);
    goto fail;
  }
  const VkMemoryPropertyFlags mappable = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                         VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  VkMemoryPropertyFlags flags = impl->memory.memoryTypes[type].propertyFlags;
  if ((map || (required & mappable)) && (flags & mappable) == mappable) {
    void* p = NULL;
    r = LG_VK_TRY(vkMapMemory, VK_ERROR_MEMORY_MAP_FAILED, impl->device,
                  out->memory, 0, VK_WHOLE_SIZE, 0, &p);
    if (r != VK_SUCCESS) {
      lg_vk_fail(error, "vkMapMemory", r, "%llu bytes",
                 (unsigned long long)req.size);
      goto fail;
    }
    out->map = p;
  }
  return kTfLiteOk;
fail:
  lg_vk_allocation_free(impl, out);
  return kTfLiteError;
}

/* ---- Device buffers ----------------------------------------------------- */

TfLiteStatus lg_vk_buffer_create(lg_gpu_backend* be, size_t bytes,
                                 lg_gpu_buffer** out, lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  lg_gpu_buffer* buffer = NULL;
  *out = NULL;
  if (bytes == 0 || (uint64_t)bytes > be->device.max_buffer_bytes) {
    lg_gpu_error_set(
        error,
        "buffer_create: %zu bytes is outside 1..%llu (the device's "
        "maxStorageBufferRange / maxMemoryAllocationSize)",
        bytes, (unsigned long long)be->device.max_buffer_bytes);
    return kTfLiteError;
  }
  buffer = calloc(1, sizeof(*buffer));
  if (buffer == NULL) {
    lg_gpu_error_set(error, "buffer_create: out of host memory");
    return kTfLiteError;
  }
  lg_vk_allocation a;
  /* Whole 32-bit words: shaders read bytes through their word; whole
   * 16-byte texels when read as texel buffers (a view covers whole texels
   * only). */
  const VkDeviceSize unit = impl->texel_reads ? 16 : 4;
  VkDeviceSize size = ((VkDeviceSize)bytes + unit - 1) & ~(unit - 1);
  VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                             VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                             VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (impl->texel_reads) usage |= VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
  if (lg_vk_allocate(impl, size, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0,
                     !lg_vk_staging_forced(), &a, error) != kTfLiteOk) {
    free(buffer);
    return kTfLiteError;
  }
  buffer->buffer = a.buffer;
  buffer->memory = a.memory;
  buffer->map = a.map;
  buffer->bytes = bytes;
  impl->stats.direct_memory = a.map != NULL;
  *out = buffer;
  return kTfLiteOk;
}

void lg_vk_buffer_release(lg_gpu_backend* be, lg_gpu_buffer* buffer) {
  lg_vk_impl* impl = be->impl;
  if (buffer == NULL) return;
  /* Commands that use it must be done first. */
  if (lg_vk_busy(impl) && lg_vk_finish(be, NULL) != kTfLiteOk) {
    vkDeviceWaitIdle(impl->device);
  }
  if (buffer->view != VK_NULL_HANDLE) {
    vkDestroyBufferView(impl->device, buffer->view, NULL);
    lg_vk_object_released();
  }
  if (!buffer->wrapped) {
    lg_vk_allocation a = {buffer->buffer, buffer->memory, buffer->map};
    lg_vk_allocation_free(impl, &a);
  }
  free(buffer);
}

/* The application's VkBuffer range. Vulkan cannot say which device made a
 * VkBuffer or with which usage: the caller promises this device and the
 * usages buffer_create gives (storage, transfer source and destination,
 * uniform texel); what can be checked is checked. */
TfLiteStatus lg_vk_buffer_wrap(lg_gpu_backend* be,
                               const lg_gpu_native_buffer* native,
                               lg_gpu_buffer** out, lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  *out = NULL;
  const VkBuffer handle = (VkBuffer)(uintptr_t)native->handle;
  if (handle == VK_NULL_HANDLE || native->bytes == 0) {
    lg_gpu_error_set(error,
                     "buffer_wrap: a Vulkan binding needs a VkBuffer and a "
                     "size (got %s, %zu bytes)",
                     handle == VK_NULL_HANDLE ? "VK_NULL_HANDLE" : "a buffer",
                     native->bytes);
    return kTfLiteError;
  }
  const VkPhysicalDeviceLimits* limits = &impl->properties.limits;
  VkDeviceSize align = limits->minStorageBufferOffsetAlignment;
  if (impl->texel_reads && limits->minTexelBufferOffsetAlignment > align) {
    align = limits->minTexelBufferOffsetAlignment;
  }
  if (align > 1 && native->offset % align != 0) {
    lg_gpu_error_set(error,
                     "buffer_wrap: offset %zu is not a multiple of the "
                     "device's buffer offset alignment (%llu bytes)",
                     native->offset, (unsigned long long)align);
    return kTfLiteError;
  }
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(impl->device, handle, &req);
  if ((VkDeviceSize)native->offset + native->bytes > req.size) {
    lg_gpu_error_set(error,
                     "buffer_wrap: the range [%zu, %zu) is outside the "
                     "VkBuffer (%llu bytes)",
                     native->offset, native->offset + native->bytes,
                     (unsigned long long)req.size);
    return kTfLiteError;
  }
  lg_gpu_buffer* buffer = calloc(1, sizeof(*buffer));
  if (buffer == NULL) {
    lg_gpu_error_set(error, "buffer_wrap: out of host memory");
    return kTfLiteError;
  }
  buffer->buffer = handle;
  buffer->offset = native->offset;
  buffer->bytes = native->bytes;
  buffer->wrapped = true;
  *out = buffer;
  return kTfLiteOk;
}

void lg_vk_buffer_native(const lg_gpu_buffer* buffer,
                         lg_gpu_native_buffer* out) {
  out->handle = (uint64_t)(uintptr_t)buffer->buffer;
  out->offset = (size_t)buffer->offset;
  out->bytes = buffer->bytes;
}

void lg_vk_native_device(const lg_gpu_backend* be, lg_gpu_native_device* out) {
  const lg_vk_impl* impl = be->impl;
  out->instance = impl->instance;
  out->physical = impl->physical;
  out->device = impl->device;
  out->queue = impl->queue;
  out->queue_family = impl->queue_family;
}

/* The buffer as texels of impl->texel_format, made on first use and kept
 * until the buffer is released (descriptor sets of recordings use it). */
TfLiteStatus lg_vk_buffer_view(lg_vk_impl* impl, lg_gpu_buffer* buffer,
                               VkBufferView* out, lg_gpu_error* error) {
  if (buffer->view == VK_NULL_HANDLE) {
    const VkBufferViewCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
        .buffer = buffer->buffer,
        .format = impl->texel_format,
        .offset = buffer->offset,
        .range = VK_WHOLE_SIZE,
    };
    VkResult r = LG_VK_TRY(vkCreateBufferView, VK_ERROR_OUT_OF_HOST_MEMORY,
                           impl->device, &info, NULL, &buffer->view);
    if (r != VK_SUCCESS) {
      buffer->view = VK_NULL_HANDLE;
      lg_vk_fail(error, "vkCreateBufferView", r, "a buffer of %zu bytes",
                 buffer->bytes);
      return kTfLiteError;
    }
    lg_vk_object_created();
  }
  *out = buffer->view;
  return kTfLiteOk;
}

/* ---- Staging ------------------------------------------------------------ */

static void lg_vk_host_buffer_free(lg_vk_impl* impl, lg_vk_host_buffer* h) {
  lg_vk_allocation a = {h->buffer, h->memory, h->map};
  lg_vk_allocation_free(impl, &a);
  memset(h, 0, sizeof(*h));
}

static TfLiteStatus lg_vk_host_buffer_make(lg_vk_impl* impl, VkDeviceSize size,
                                           VkMemoryPropertyFlags preferred,
                                           lg_vk_host_buffer* out,
                                           lg_gpu_error* error) {
  lg_vk_allocation a;
  memset(out, 0, sizeof(*out));
  if (lg_vk_allocate(
          impl, size,
          VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
              VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
          preferred, true, &a, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  if (a.map == NULL) { /* cannot happen: the type was required mappable */
    lg_vk_allocation_free(impl, &a);
    lg_gpu_error_set(error, "vkMapMemory gave no pointer for staging memory");
    return kTfLiteError;
  }
  out->buffer = a.buffer;
  out->memory = a.memory;
  out->map = a.map;
  out->size = size;
  return kTfLiteOk;
}

/* A slice of `bytes` of upload staging, valid until the next finish. */
static TfLiteStatus lg_vk_staging_slice(lg_vk_impl* impl, size_t bytes,
                                        VkBuffer* buffer, VkDeviceSize* offset,
                                        unsigned char** map,
                                        lg_gpu_error* error) {
  const VkDeviceSize align = LG_VK_STAGING_ALIGN;
  for (size_t i = 0; i < impl->staging_count; ++i) {
    lg_vk_host_buffer* h = &impl->staging[i];
    VkDeviceSize start = (h->used + align - 1) / align * align;
    if (start <= h->size && bytes <= h->size - start) {
      h->used = start + bytes;
      *buffer = h->buffer;
      *offset = start;
      *map = h->map + start;
      return kTfLiteOk;
    }
  }
  lg_vk_host_buffer* grown =
      realloc(impl->staging, (impl->staging_count + 1) * sizeof(*grown));
  if (grown == NULL) {
    lg_gpu_error_set(error, "buffer_upload: out of host memory");
    return kTfLiteError;
  }
  impl->staging = grown;
  VkDeviceSize size = bytes > LG_VK_STAGING_CHUNK ? bytes : LG_VK_STAGING_CHUNK;
  lg_vk_host_buffer* h = &impl->staging[impl->staging_count];
  if (lg_vk_host_buffer_make(impl, size, 0, h, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  impl->staging_count++;
  h->used = bytes;
  *buffer = h->buffer;
  *offset = 0;
  *map = h->map;
  return kTfLiteOk;
}

void lg_vk_staging_reset(lg_vk_impl* impl) {
  for (size_t i = 0; i < impl->staging_count; ++i) impl->staging[i].used = 0;
}

void lg_vk_staging_destroy(lg_vk_impl* impl) {
  for (size_t i = 0; i < impl->staging_count; ++i) {
    lg_vk_host_buffer_free(impl, &impl->staging[i]);
  }
  free(impl->staging);
  impl->staging = NULL;
  impl->staging_count = 0;
  lg_vk_host_buffer_free(impl, &impl->readback);
  for (size_t i = 0; i < impl->spare_readback_count; ++i) {
    lg_vk_host_buffer_free(impl, &impl->spare_readbacks[i]);
  }
  free(impl->spare_readbacks);
  impl->spare_readbacks = NULL;
  impl->spare_readback_count = 0;
}

/* ---- Upload and download ------------------------------------------------ */

size_t lg_vk_buffer_bytes(const lg_gpu_buffer* buffer) { return buffer->bytes; }

TfLiteStatus lg_vk_buffer_upload(lg_gpu_backend* be, lg_gpu_buffer* buffer,
                                 size_t offset, const void* data, size_t bytes,
                                 lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  /* lg_gpu_buffer_upload checked the buffer, the pointer and the range. */
  if (lg_vk_check_usable(impl, "buffer_upload", error) != kTfLiteOk) {
    return kTfLiteError;
  }
  if (bytes == 0) return kTfLiteOk;
  /* Nothing recorded or running (a recording's run included) can read or
   * write it: write it now. The next submission makes the write visible
   * to the device (host-coherent memory). */
  if (buffer->map != NULL && !lg_vk_busy(impl)) {
    memcpy(buffer->map + offset, data, bytes);
    impl->stats.direct_uploads++;
    return kTfLiteOk;
  }
  /* Copied into staging now (so `data` is free at once), then copied on
   * the device in recording order. */
  VkBuffer staging = VK_NULL_HANDLE;
  VkDeviceSize staging_offset = 0;
  unsigned char* map = NULL;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  if (lg_vk_recording(impl, &cmd, error) != kTfLiteOk ||
      lg_vk_staging_slice(impl, bytes, &staging, &staging_offset, &map,
                          error) != kTfLiteOk) {
    return kTfLiteError;
  }
  memcpy(map, data, bytes);
  lg_vk_barrier(impl, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT);
  const VkBufferCopy region = {staging_offset, buffer->offset + offset, bytes};
  vkCmdCopyBuffer(cmd, staging, buffer->buffer, 1, &region);
  impl->stats.staged_uploads++;
  return kTfLiteOk;
}

/* Makes room for `bytes` in readback buffer `rb` (never in use here: a
 * blocking download waits for its copy, a pending one owns its buffer). */
static TfLiteStatus lg_vk_readback_reserve(lg_vk_impl* impl,
                                           lg_vk_host_buffer* rb, size_t bytes,
                                           lg_gpu_error* error) {
  if (rb->buffer != VK_NULL_HANDLE && rb->size >= bytes) return kTfLiteOk;
  VkDeviceSize size = rb->size * 2;
  if (size < bytes) size = bytes;
  if (size < LG_VK_STAGING_CHUNK) size = LG_VK_STAGING_CHUNK;
  lg_vk_host_buffer_free(impl, rb);
  /* Cached memory where offered: the host reads it. */
  return lg_vk_host_buffer_make(impl, size, VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                                rb, error);
}

/* Under LITEGPU_VULKAN_VALIDATION=1, the first validation error the layer
 * reported (checked once the work is done, at each download). */
static TfLiteStatus lg_vk_check_validation(const lg_vk_impl* impl,
                                           lg_gpu_error* error) {
  if (!impl->fail_on_validation_error || impl->stats.validation_errors == 0) {
    return kTfLiteOk;
  }
  lg_gpu_error_set(error, "Vulkan validation error (%llu so far): %s",
                   (unsigned long long)impl->stats.validation_errors,
                   impl->stats.first_validation_error);
  return kTfLiteError;
}

/* Whether download `d` is read in place from its host-mapped buffer
 * rather than through a readback buffer: only when blocking, since a run
 * enqueued before a pending download's fence_wait may overwrite the
 * buffer. */
static bool lg_vk_read_in_place(const lg_gpu_download* d, bool blocking) {
  return blocking && d->buffer->map != NULL;
}

/* Checks every copy of `list` and counts its bytes: all of them in
 * *total, those that go through the readback buffer in *staged. */
static TfLiteStatus lg_vk_check_downloads(lg_vk_impl* impl,
                                          const lg_gpu_download* list,
                                          int count, bool blocking,
                                          size_t* total, size_t* staged,
                                          lg_gpu_error* error) {
  /* lg_gpu_buffer_download_batch checked every copy. */
  *total = *staged = 0;
  for (int i = 0; i < count; ++i) {
    const lg_gpu_download* d = &list[i];
    *total += d->bytes;
    if (!lg_vk_read_in_place(d, blocking)) *staged += d->bytes;
  }
  return lg_vk_check_usable(impl, "buffer_download", error);
}

/* Records the copies not read in place into readback buffer `rb`, one
 * after the other (in list order). */
static TfLiteStatus lg_vk_record_readbacks(lg_vk_impl* impl,
                                           const lg_gpu_download* list,
                                           int count, bool blocking,
                                           size_t staged, lg_vk_host_buffer* rb,
                                           lg_gpu_error* error) {
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  if (lg_vk_readback_reserve(impl, rb, staged, error) != kTfLiteOk ||
      lg_vk_recording(impl, &cmd, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  lg_vk_barrier(impl, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT);
  VkDeviceSize at = 0;
  for (int i = 0; i < count; ++i) {
    const lg_gpu_download* d = &list[i];
    if (lg_vk_read_in_place(d, blocking) || d->bytes == 0) continue;
    const VkBufferCopy region = {d->buffer->offset + d->offset, at, d->bytes};
    vkCmdCopyBuffer(cmd, d->buffer->buffer, rb->buffer, 1, &region);
    at += d->bytes;
  }
  return kTfLiteOk;
}

/* Copies the bytes of a finished batch to the host: those read in place
 * from their host-mapped buffers (the barrier every submission ends with
 * made their writes visible), the others out of readback buffer `rb`, in
 * list order. */
static TfLiteStatus lg_vk_copy_out(lg_vk_impl* impl,
                                   const lg_gpu_download* list, int count,
                                   bool blocking, const lg_vk_host_buffer* rb,
                                   lg_gpu_error* error) {
  size_t at = 0;
  for (int i = 0; i < count; ++i) {
    const lg_gpu_download* d = &list[i];
    if (d->bytes == 0) continue;
    if (lg_vk_read_in_place(d, blocking)) {
      memcpy(d->data, d->buffer->map + d->offset, d->bytes);
      impl->stats.direct_downloads++;
    } else {
      memcpy(d->data, rb->map + at, d->bytes);
      at += d->bytes;
      impl->stats.staged_downloads++;
    }
  }
  return lg_vk_check_validation(impl, error);
}

/* Records the readbacks of a batch into `rb`; *total gets its bytes. */
static TfLiteStatus lg_vk_record_batch(lg_vk_impl* impl,
                                       const lg_gpu_download* list, int count,
                                       bool blocking, lg_vk_host_buffer* rb,
                                       size_t* total, lg_gpu_error* error) {
  size_t staged = 0;
  if (lg_vk_check_downloads(impl, list, count, blocking, total, &staged,
                            error) != kTfLiteOk) {
    return kTfLiteError;
  }
  if (*total == 0 || staged == 0) return kTfLiteOk;
  return lg_vk_record_readbacks(impl, list, count, blocking, staged, rb, error);
}

/* One wait for every copy: the readbacks go into the same submission as
 * the work before them. */
TfLiteStatus lg_vk_buffer_download_batch(lg_gpu_backend* be,
                                         const lg_gpu_download* list, int count,
                                         lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  size_t total = 0;
  if (lg_vk_record_batch(impl, list, count, true, &impl->readback, &total,
                         error) != kTfLiteOk) {
    return kTfLiteError;
  }
  if (total == 0) return kTfLiteOk;
  if (lg_vk_busy(impl) && lg_vk_finish(be, error) != kTfLiteOk) {
    return kTfLiteError;
  }
  return lg_vk_copy_out(impl, list, count, true, &impl->readback, error);
}

/* A Vulkan fence: the batch to copy out of its own readback buffer once
 * the submission that copied it there has completed: `vk`, the VkFence of
 * that submission while the command buffers' `generation` is unchanged
 * (VK_NULL_HANDLE: nothing was submitted), else every submission's. */
struct lg_gpu_fence {
  const lg_gpu_download* list;
  int count;
  bool done;
  lg_vk_host_buffer readback;
  VkFence vk;
  uint64_t generation;
};

/* Command buffers in use past which a pending download's wait drains the
 * queue and makes them reusable (lg_vk_finish), rather than waiting for
 * its own submission only: while runs keep overlapping, no wait would
 * otherwise find the queue empty, and staging and command buffers would
 * grow without end. A run takes two or three. */
#define LG_VK_DRAIN_AFTER 16u

/* Puts a pending download's readback buffer back for the next one (a
 * later copy into it is ordered after the earlier one on the queue, and
 * the host reads it only after the later fence). */
static void lg_vk_readback_recycle(lg_vk_impl* impl, lg_vk_host_buffer* rb) {
  if (rb->buffer == VK_NULL_HANDLE) return;
  lg_vk_host_buffer* grown = realloc(
      impl->spare_readbacks, (impl->spare_readback_count + 1) * sizeof(*grown));
  if (grown == NULL) {
    lg_vk_host_buffer_free(impl, rb);
    return;
  }
  impl->spare_readbacks = grown;
  grown[impl->spare_readback_count++] = *rb;
  memset(rb, 0, sizeof(*rb));
}

static void lg_vk_fence_free(lg_vk_impl* impl, lg_gpu_fence* fence) {
  lg_vk_readback_recycle(impl, &fence->readback);
  free(fence);
}

TfLiteStatus lg_vk_download_begin(lg_gpu_backend* be,
                                  const lg_gpu_download* list, int count,
                                  lg_gpu_fence** out, lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  size_t total = 0;
  lg_gpu_fence* fence = calloc(1, sizeof(*fence));
  if (fence == NULL) {
    lg_gpu_error_set(error, "download_begin: out of host memory");
    return kTfLiteError;
  }
  if (impl->spare_readback_count > 0) {
    fence->readback = impl->spare_readbacks[--impl->spare_readback_count];
  }
  if (lg_vk_record_batch(impl, list, count, false, &fence->readback, &total,
                         error) != kTfLiteOk ||
      lg_vk_submit(be, error) != kTfLiteOk) {
    lg_vk_fence_free(impl, fence);
    return kTfLiteError;
  }
  fence->list = list;
  fence->count = count;
  if (impl->submitted > 0) fence->vk = impl->fences[impl->submitted - 1];
  fence->generation = impl->generation;
  *out = fence;
  return kTfLiteOk;
}

/* Waits for the submission of `fence`'s copies only, so that a run
 * enqueued after it stays on the device, and makes the command buffers
 * reusable when that leaves nothing pending; waits for everything when its
 * submission is no longer known or LG_VK_DRAIN_AFTER is reached. */
static TfLiteStatus lg_vk_wait_own(lg_gpu_backend* be, lg_gpu_fence* fence,
                                   lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  if (!lg_vk_busy(impl)) return kTfLiteOk;
  if (fence->vk == VK_NULL_HANDLE || fence->generation != impl->generation ||
      impl->begun >= LG_VK_DRAIN_AFTER) {
    return lg_vk_finish(be, error);
  }
  const VkResult r = lg_vk_wait_fences(impl->device, 1, &fence->vk);
  if (r != VK_SUCCESS) {
    lg_vk_fail(error, "vkWaitForFences", r, "%s",
               r == VK_TIMEOUT ? "no completion after 60 s"
                               : "waiting for a download");
    lg_vk_mark_broken(impl, error);
    return kTfLiteError;
  }
  const bool last = impl->begun == impl->submitted && impl->submitted > 0 &&
                    impl->fences[impl->submitted - 1] == fence->vk;
  return last ? lg_vk_finish(be, error) : kTfLiteOk;
}

TfLiteStatus lg_vk_fence_wait(lg_gpu_backend* be, lg_gpu_fence* fence,
                              lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  if (fence == NULL) {
    lg_gpu_error_set(error, "fence_wait: no fence");
    return kTfLiteError;
  }
  if (fence->done) return kTfLiteOk;
  fence->done = true;
  if (lg_vk_wait_own(be, fence, error) != kTfLiteOk) return kTfLiteError;
  return lg_vk_copy_out(impl, fence->list, fence->count, false,
                        &fence->readback, error);
}

bool lg_vk_fence_done(lg_gpu_backend* be, const lg_gpu_fence* fence) {
  lg_vk_impl* impl = be->impl;
  if (fence == NULL || fence->done || !lg_vk_busy(impl) ||
      fence->generation != impl->generation) {
    return true;
  }
  return fence->vk != VK_NULL_HANDLE &&
         vkGetFenceStatus(impl->device, fence->vk) == VK_SUCCESS;
}

void lg_vk_fence_release(lg_gpu_backend* be, lg_gpu_fence* fence) {
  if (fence == NULL) return;
  lg_vk_impl* impl = be->impl;
  /* Not waited for: the device may still copy into its readback buffer,
   * which the next download may grow (free) at once. */
  if (!fence->done && lg_vk_busy(impl) && lg_vk_finish(be, NULL) != kTfLiteOk) {
    vkDeviceWaitIdle(impl->device);
  }
  lg_vk_fence_free(impl, fence);
}
