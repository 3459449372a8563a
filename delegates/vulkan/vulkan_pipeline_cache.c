/* The on-disk pipeline cache of the Vulkan backend: one file per shader
 * and device, holding the VkPipelineCache data of every pipeline built from
 * that shader (each kernel of the shader adds its own).
 *
 * File "litegpu-vk-<16 hex digits>.bin" in the cache folder, the digits
 * being the 64-bit FNV-1a hash of the key text (device name, vendor and
 * device ids, driver version and name, API version, pipelineCacheUUID,
 * shader name and a hash of its SPIR-V). Layout (integers little-endian):
 *   0  8 bytes  magic "LGVKPLC\0"
 *   8  u32      format version (LG_VK_CACHE_VERSION)
 *  12  u32      key length K
 *  16  u64      FNV-1a hash of the key
 *  24  u64      payload length P
 *  32  u64      FNV-1a hash of the payload
 *  40  K bytes  key text
 *  40+K P bytes payload (vkGetPipelineCacheData's output)
 * A file where any field disagrees, or whose payload does not start with a
 * VkPipelineCacheHeaderVersionOne for this device's vendor, device and
 * pipelineCacheUUID, is rejected and never given to the driver; the
 * kernel starts from an empty cache and the file is rewritten. Writes go to
 * a temporary file in the same folder renamed over the entry, so readers
 * never see half a file. Safe across processes; no global state. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "delegates/vulkan/vulkan_impl.h"
#include "delegates/vulkan/vulkan_internal.h"

#define LG_VK_CACHE_VERSION 1u
#define LG_VK_CACHE_HEADER 40u
/* Refuses absurd files before allocating for them. */
#define LG_VK_CACHE_MAX_BYTES ((size_t)1 << 30)

static const unsigned char lg_vk_cache_magic[8] = {'L', 'G', 'V', 'K',
                                                   'P', 'L', 'C', 0};

typedef enum lg_vk_cache_result {
  LG_VK_CACHE_MISS = 0,
  LG_VK_CACHE_HIT = 1,
  LG_VK_CACHE_REJECT = 2,
} lg_vk_cache_result;

static void lg_vk_put_u32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static void lg_vk_put_u64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t lg_vk_get_u32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= (uint32_t)p[i] << (8 * i);
  return v;
}
static uint64_t lg_vk_get_u64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static bool lg_vk_cache_path(const char* dir, const char* key, char* path,
                             size_t size) {
  uint64_t h = lg_vk_hash(LG_VK_FNV_INIT, key, strlen(key));
  int n = snprintf(path, size, "%s/litegpu-vk-%016llx.bin", dir,
                   (unsigned long long)h);
  return n > 0 && (size_t)n < size;
}

/* Reads a whole file; NULL when it cannot be opened or read. */
static unsigned char* lg_vk_read_file(const char* path, size_t* bytes,
                                      bool* exists) {
  unsigned char* data = NULL;
  *exists = false;
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  *exists = true;
  if (fseek(f, 0, SEEK_END) != 0) goto fail;
  long size = ftell(f);
  if (size < 0 || (size_t)size > LG_VK_CACHE_MAX_BYTES) goto fail;
  if (fseek(f, 0, SEEK_SET) != 0) goto fail;
  data = malloc(size > 0 ? (size_t)size : 1);
  if (data == NULL) goto fail;
  if (fread(data, 1, (size_t)size, f) != (size_t)size) goto fail;
  fclose(f);
  *bytes = (size_t)size;
  return data;
fail:
  free(data);
  fclose(f);
  return NULL;
}

/* Looks `key` up; on a hit *payload (malloc'ed) and *bytes are set. */
static lg_vk_cache_result lg_vk_cache_load(const char* dir, const char* key,
                                           unsigned char** payload,
                                           size_t* bytes) {
  char path[4096];
  size_t size = 0;
  bool exists = false;
  *payload = NULL;
  *bytes = 0;
  if (!lg_vk_cache_path(dir, key, path, sizeof(path))) return LG_VK_CACHE_MISS;
  unsigned char* data = lg_vk_read_file(path, &size, &exists);
  if (data == NULL) return exists ? LG_VK_CACHE_REJECT : LG_VK_CACHE_MISS;
  const size_t key_len = strlen(key);
  if (size < LG_VK_CACHE_HEADER ||
      memcmp(data, lg_vk_cache_magic, sizeof(lg_vk_cache_magic)) != 0 ||
      lg_vk_get_u32(data + 8) != LG_VK_CACHE_VERSION ||
      lg_vk_get_u32(data + 12) != key_len ||
      lg_vk_get_u64(data + 16) != lg_vk_hash(LG_VK_FNV_INIT, key, key_len)) {
    goto reject;
  }
  const uint64_t payload_len = lg_vk_get_u64(data + 24);
  const size_t body = size - LG_VK_CACHE_HEADER;
  if (body < key_len || payload_len != (uint64_t)(body - key_len) ||
      payload_len == 0) {
    goto reject;
  }
  const unsigned char* stored_key = data + LG_VK_CACHE_HEADER;
  const unsigned char* stored = stored_key + key_len;
  if (memcmp(stored_key, key, key_len) != 0 ||
      lg_vk_get_u64(data + 32) !=
          lg_vk_hash(LG_VK_FNV_INIT, stored, (size_t)payload_len)) {
    goto reject;
  }
  /* The payload moves to the front so the caller frees one block. */
  memmove(data, stored, (size_t)payload_len);
  *payload = data;
  *bytes = (size_t)payload_len;
  return LG_VK_CACHE_HIT;
reject:
  free(data);
  return LG_VK_CACHE_REJECT;
}

/* Stores `payload` under `key` (temp file + rename); false on any I/O
 * failure, leaving no temporary file behind. */
static bool lg_vk_cache_store(const char* dir, const char* key,
                              const void* payload, size_t bytes) {
  char path[4096], temp[4200];
  unsigned char header[LG_VK_CACHE_HEADER];
  const size_t key_len = strlen(key);
  if (payload == NULL || bytes == 0 || key_len > UINT32_MAX) return false;
  if (!lg_vk_cache_path(dir, key, path, sizeof(path))) return false;
  int n = snprintf(temp, sizeof(temp), "%s.tmp.%ld", path, (long)getpid());
  if (n < 0 || (size_t)n >= sizeof(temp)) return false;
  memcpy(header, lg_vk_cache_magic, sizeof(lg_vk_cache_magic));
  lg_vk_put_u32(header + 8, LG_VK_CACHE_VERSION);
  lg_vk_put_u32(header + 12, (uint32_t)key_len);
  lg_vk_put_u64(header + 16, lg_vk_hash(LG_VK_FNV_INIT, key, key_len));
  lg_vk_put_u64(header + 24, (uint64_t)bytes);
  lg_vk_put_u64(header + 32, lg_vk_hash(LG_VK_FNV_INIT, payload, bytes));
  FILE* f = fopen(temp, "wb");
  if (f == NULL) return false;
  bool ok = fwrite(header, 1, sizeof(header), f) == sizeof(header) &&
            fwrite(key, 1, key_len, f) == key_len &&
            fwrite(payload, 1, bytes, f) == bytes;
  ok = fclose(f) == 0 && ok;
  if (ok && rename(temp, path) == 0) return true;
  remove(temp);
  return false;
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

/* The key text of a shader's cache file; NULL when out of memory. */
static char* lg_vk_cache_key(const lg_vk_impl* impl, const lg_vk_shader* s) {
  const uint64_t spirv =
      lg_vk_hash(LG_VK_FNV_INIT, s->code, s->words * sizeof(uint32_t));
  const char* format =
      "litegpu Vulkan pipeline cache\n%sshader=%s\nspirv=%016llx\n";
  int n = snprintf(NULL, 0, format, impl->cache_device_key, s->name,
                   (unsigned long long)spirv);
  char* key = n < 0 ? NULL : malloc((size_t)n + 1);
  if (key != NULL) {
    snprintf(key, (size_t)n + 1, format, impl->cache_device_key, s->name,
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
    kernel->cache_key = lg_vk_cache_key(impl, kernel->shader);
    if (kernel->cache_key == NULL) {
      lg_gpu_error_set(error, "kernel_create: out of host memory");
      return kTfLiteError;
    }
    lg_vk_cache_result found =
        lg_vk_cache_load(impl->cache_dir, kernel->cache_key, &payload, &bytes);
    if (found == LG_VK_CACHE_HIT &&
        !lg_vk_header_matches(impl, payload, bytes)) {
      found = LG_VK_CACHE_REJECT;
      free(payload);
      payload = NULL;
      bytes = 0;
    }
    if (found == LG_VK_CACHE_REJECT) impl->stats.cache_rejects++;
  }
  VkResult r = VK_ERROR_INITIALIZATION_FAILED;
  if (payload != NULL) {
    r = lg_vk_make_cache(impl, payload, bytes, &kernel->cache);
    if (r == VK_SUCCESS) {
      impl->stats.cache_loads++;
      kernel->cache_hash = lg_vk_hash(LG_VK_FNV_INIT, payload, bytes);
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
    uint64_t h = lg_vk_hash(LG_VK_FNV_INIT, data, size);
    /* Unchanged data (all pipelines came from the file) is not rewritten. */
    if (h != kernel->cache_hash &&
        lg_vk_cache_store(impl->cache_dir, kernel->cache_key, data, size)) {
      impl->stats.cache_writes++;
      kernel->cache_hash = h;
    }
  }
  free(data);
}
