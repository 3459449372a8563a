/* The on-disk cache files of the GPU backends (compiled OpenCL program
 * binaries, Vulkan pipeline-cache data): one format, parametrized by a
 * file-name prefix and an 8-byte magic per backend.
 *
 * One file per key in the cache folder, "litegpu-<prefix>-<16 hex
 * digits>.bin", the digits being the 64-bit FNV-1a hash of the key text.
 * The key text names everything the payload depends on (device, driver,
 * options, a hash of the source, kernel or shader name); the caller builds
 * it.
 *
 * File layout (integers little-endian):
 *   0  8 bytes  magic (the format's)
 *   8  u32      format version (the format's)
 *  12  u32      key length K
 *  16  u64      FNV-1a hash of the key
 *  24  u64      payload length P
 *  32  u64      FNV-1a hash of the payload
 *  40  K bytes  key text
 *  40+K P bytes payload
 * A file whose any field disagrees (other magic or version, other key,
 * length not matching the file size, checksum mismatch) is rejected, never
 * trusted; the caller rebuilds and stores a fresh entry. Stores write a
 * temporary file in the same folder and rename it over the entry, so a
 * reader never sees a half-written file. Safe to use from several processes
 * and threads at once (each store has its own temporary file).
 *
 *   static const lg_cache_file_format kFormat = {"cl", "LGCLPRG", 1};
 *   if (lg_cache_file_load(&kFormat, dir, key, &data, &n) == LG_CACHE_HIT)
 */
#ifndef LITEGPU_DELEGATES_BACKEND_CACHE_FILE_H_
#define LITEGPU_DELEGATES_BACKEND_CACHE_FILE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LG_CACHE_FILE_HEADER_BYTES 40u

/* 64-bit FNV-1a: start with LG_FNV1A64_INIT, feed bytes in any pieces. */
#define LG_FNV1A64_INIT UINT64_C(0xcbf29ce484222325)
uint64_t lg_fnv1a64(uint64_t hash, const void* data, size_t bytes);

/* The namespace a model token gives cache keys (TFLite's model_token):
 * its FNV-1a hash, 0 for NULL or "" (no namespace). */
uint64_t lg_cache_namespace(const char* token);

typedef struct lg_cache_file_format {
  const char* prefix; /* in the file name: "cl", "vk" */
  char magic[8];      /* the first 8 bytes of every file */
  uint32_t version;
} lg_cache_file_format;

typedef enum lg_cache_result {
  LG_CACHE_MISS = 0,   /* no file */
  LG_CACHE_HIT = 1,    /* payload returned */
  LG_CACHE_REJECT = 2, /* a file exists but is stale or corrupt */
} lg_cache_result;

/* Writes the entry's path for `key` into `path`; false if it does not fit. */
bool lg_cache_file_path(const lg_cache_file_format* format, const char* dir,
                        const char* key, char* path, size_t path_size);

/* Looks `key` up. On a hit *payload (malloc'ed, caller frees) and *bytes
 * are set; otherwise they are NULL and 0. */
lg_cache_result lg_cache_file_load(const lg_cache_file_format* format,
                                   const char* dir, const char* key,
                                   unsigned char** payload, size_t* bytes);

/* Stores `payload` under `key` (temp file + rename). False on any I/O
 * failure, leaving no temporary file behind. */
bool lg_cache_file_store(const lg_cache_file_format* format, const char* dir,
                         const char* key, const void* payload, size_t bytes);

#endif /* LITEGPU_DELEGATES_BACKEND_CACHE_FILE_H_ */
