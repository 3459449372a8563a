/* The on-disk pipeline cache of the Vulkan backend: one file per shader
 * and device, holding the VkPipelineCache data of every pipeline built from
 * that shader (each kernel of the shader adds its own).
 *
 * File "litegpu-vk-<16 hex digits>.bin" in the cache folder in the format
 * of delegates/backend/cache_file.h (magic "LGVKPLC"), keyed by the device
 * name, vendor and device ids, driver version and name, API version,
 * pipelineCacheUUID, shader name and a hash of the SPIR-V the kernel was
 * built from (so the float32 and the LG_FP16 build of a shader have
 * different keys, hence different files).
 * A file where any field disagrees, or whose payload does not start with a
 * VkPipelineCacheHeaderVersionOne for this device's vendor, device and
 * pipelineCacheUUID, is rejected and never given to the driver; the
 * kernel starts from an empty cache and the file is rewritten. Writes go to
 * a temporary file in the same folder renamed over the entry, so readers
 * never see half a file. Safe across processes; no global state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/backend/cache_file.h"
#include "delegates/vulkan/vulkan_impl.h"
#include "delegates/vulkan/vulkan_internal.h"

/* "litegpu-vk-*.bin" files (format in delegates/backend/cache_file.h). */
static const lg_cache_file_format kPipelineCache = {"vk", "LGVKPLC", 1u};

static uint32_t lg_vk_get_u32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= (uint32_t)p[i] << (8 * i);
  return v;
}

/* Whether `data` starts with the VkPipelineCacheHeaderVersionOne of this
 * device (fields little-endian, as the spec requires). */
static bool lg_vk_header_matches(const lg_vk_impl* impl,
                                 const unsigned char* data, size_t bytes) {
  const size_t header = 16 + VK_UUID_SIZE;
  if (bytes < header) return false;
  const uint32_t length = lg_vk_get_u32(data);
  return length >= header && length <= bytes &&
         lg_vk_get_u32(data + 4) == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
         lg_vk_get_u32(data + 8) == impl->properties.vendorID &&
         lg_vk_get_u32(data + 12) == impl->properties.deviceID &&
         memcmp(data + 16, impl->properties.pipelineCacheUUID, VK_UUID_SIZE) ==
             0;
}

/* The key text of a kernel's cache file; NULL when out of memory. The
 * hash covers the SPIR-V variant the kernel uses, which is what tells the
 * float32 and float16 builds of one shader apart (and the file name is the
 * key's hash). */
static char* lg_vk_cache_key(const lg_vk_impl* impl,
                             const lg_gpu_kernel* kernel) {
  const lg_vk_shader* s = kernel->shader;
  const uint64_t spirv = lg_fnv1a64(LG_FNV1A64_INIT, kernel->code,
                                    kernel->words * sizeof(uint32_t));
  const char* format =
      "litegpu Vulkan pipeline cache\nmodel=%016llx\n%sshader=%s\n"
      "spirv=%016llx\n";
  const unsigned long long model = impl->cache_namespace;
  int n = snprintf(NULL, 0, format, model, impl->cache_device_key, s->name,
                   (unsigned long long)spirv);
  char* key = n < 0 ? NULL : malloc((size_t)n + 1);
  if (key != NULL) {
    snprintf(key, (size_t)n + 1, format, model, impl->cache_device_key, s->name,
             (unsigned long long)spirv);
  }
  return key;
}

static VkResult lg_vk_make_cache(lg_vk_impl* impl, const void* data,
                                 size_t bytes, VkPipelineCache* cache) {
  const VkPipelineCacheCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
      .initialDataSize = bytes,
      .pInitialData = data,
  };
  VkResult r = LG_VK_TRY(vkCreatePipelineCache, VK_ERROR_OUT_OF_HOST_MEMORY,
                         impl->device, &info, NULL, cache);
  if (r != VK_SUCCESS) *cache = VK_NULL_HANDLE;
  return r;
}

TfLiteStatus lg_vk_pipeline_cache_open(lg_gpu_backend* be,
                                       lg_gpu_kernel* kernel,
                                       lg_gpu_error* error) {
  lg_vk_impl* impl = be->impl;
  unsigned char* payload = NULL;
  size_t bytes = 0;
  if (impl->cache_dir != NULL) {
    kernel->cache_key = lg_vk_cache_key(impl, kernel);
    if (kernel->cache_key == NULL) {
      lg_gpu_error_set(error, "kernel_create: out of host memory");
      return kTfLiteError;
    }
    lg_cache_result found = lg_cache_file_load(
        &kPipelineCache, impl->cache_dir, kernel->cache_key, &payload, &bytes);
    if (found == LG_CACHE_HIT && !lg_vk_header_matches(impl, payload, bytes)) {
      found = LG_CACHE_REJECT;
      free(payload);
      payload = NULL;
      bytes = 0;
    }
    if (found == LG_CACHE_REJECT) impl->stats.cache_rejects++;
  }
  VkResult r = VK_ERROR_INITIALIZATION_FAILED;
  if (payload != NULL) {
    r = lg_vk_make_cache(impl, payload, bytes, &kernel->cache);
    if (r == VK_SUCCESS) {
      impl->stats.cache_loads++;
      kernel->cache_hash = lg_fnv1a64(LG_FNV1A64_INIT, payload, bytes);
    } else {
      impl->stats.cache_rejects++; /* the driver refused it: start empty */
    }
    free(payload);
  }
  if (r != VK_SUCCESS) {
    r = lg_vk_make_cache(impl, NULL, 0, &kernel->cache);
    if (r != VK_SUCCESS) {
      lg_vk_fail(error, "vkCreatePipelineCache", r, "kernel '%s'",
                 kernel->name);
      return kTfLiteError;
    }
  }
  lg_vk_object_created();
  return kTfLiteOk;
}

void lg_vk_pipeline_cache_save(lg_gpu_backend* be, lg_gpu_kernel* kernel) {
  lg_vk_impl* impl = be->impl;
  if (kernel->cache_key == NULL || !kernel->cache_dirty) return;
  kernel->cache_dirty = false;
  size_t size = 0;
  unsigned char* data = NULL;
  VkResult r = LG_VK_TRY(vkGetPipelineCacheData, VK_ERROR_OUT_OF_HOST_MEMORY,
                         impl->device, kernel->cache, &size, NULL);
  if (r != VK_SUCCESS || size == 0) return;
  data = malloc(size);
  if (data == NULL) return;
  r = vkGetPipelineCacheData(impl->device, kernel->cache, &size, data);
  if (r == VK_SUCCESS && size > 0) {
    uint64_t h = lg_fnv1a64(LG_FNV1A64_INIT, data, size);
    /* Unchanged data (all pipelines came from the file) is not rewritten. */
    if (h != kernel->cache_hash &&
        lg_cache_file_store(&kPipelineCache, impl->cache_dir, kernel->cache_key,
                            data, size)) {
      impl->stats.cache_writes++;
      kernel->cache_hash = h;
    }
  }
  free(data);
}
