/* The on-disk cache of compiled OpenCL program binaries.
 *
 * One file per key in the cache folder, "litegpu-cl-<16 hex digits>.bin",
 * the digits being the 64-bit FNV-1a hash of the key text. The key text
 * names everything the binary depends on (device name, driver version,
 * build options, a hash of the source, kernel name); the caller builds it.
 *
 * File layout (integers little-endian):
 *   0  8 bytes  magic "LGCLPRG\0"
 *   8  u32      format version (LG_PROGRAM_CACHE_VERSION)
 *  12  u32      key length K
 *  16  u64      FNV-1a hash of the key
 *  24  u64      payload length P
 *  32  u64      FNV-1a hash of the payload
 *  40  K bytes  key text
 *  40+K P bytes payload (the driver's program binary)
 * A file whose any field disagrees (other magic or version, other key,
 * length not matching the file size, checksum mismatch) is rejected, never
 * trusted; the caller rebuilds and stores a fresh entry. Stores write a
 * temporary file in the same folder and rename it over the entry, so a
 * reader never sees a half-written file. Safe to use from several processes
 * at once; no global state. */
#ifndef LITEGPU_DELEGATES_OPENCL_PROGRAM_CACHE_H_
#define LITEGPU_DELEGATES_OPENCL_PROGRAM_CACHE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LG_PROGRAM_CACHE_VERSION 1u
#define LG_PROGRAM_CACHE_HEADER_BYTES 40u

typedef enum lg_program_cache_result {
  LG_PROGRAM_CACHE_MISS = 0,   /* no file */
  LG_PROGRAM_CACHE_HIT = 1,    /* payload returned */
  LG_PROGRAM_CACHE_REJECT = 2, /* a file exists but is stale or corrupt */
} lg_program_cache_result;

/* Writes the entry's path for `key` into `path`; false if it does not fit. */
bool lg_program_cache_path(const char* dir, const char* key, char* path,
                           size_t path_size);

/* Looks `key` up. On a hit *payload (malloc'ed, caller frees) and *bytes
 * are set; otherwise they are NULL and 0. */
lg_program_cache_result lg_program_cache_load(const char* dir, const char* key,
                                              unsigned char** payload,
                                              size_t* bytes);

/* Stores `payload` under `key` (temp file + rename). False on any I/O
 * failure, leaving no temporary file behind. */
bool lg_program_cache_store(const char* dir, const char* key,
                            const void* payload, size_t bytes);

#endif /* LITEGPU_DELEGATES_OPENCL_PROGRAM_CACHE_H_ */
