/* The GPU backends' cache files (format in cache_file.h). */
#include "delegates/backend/cache_file.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Refuses absurd files before allocating for them. */
#define LG_CACHE_MAX_BYTES ((size_t)1 << 30)

static void lg_put_u32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static void lg_put_u64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t lg_get_u32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= (uint32_t)p[i] << (8 * i);
  return v;
}
static uint64_t lg_get_u64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

uint64_t lg_fnv1a64(uint64_t hash, const void* data, size_t bytes) {
  const unsigned char* p = data;
  for (size_t i = 0; i < bytes; ++i) {
    hash ^= p[i];
    hash *= UINT64_C(0x100000001b3);
  }
  return hash;
}

uint64_t lg_cache_namespace(const char* token) {
  if (token == NULL || token[0] == '\0') return 0;
  return lg_fnv1a64(LG_FNV1A64_INIT, token, strlen(token));
}

bool lg_cache_file_path(const lg_cache_file_format* format, const char* dir,
                        const char* key, char* path, size_t path_size) {
  uint64_t h = lg_fnv1a64(LG_FNV1A64_INIT, key, strlen(key));
  int n = snprintf(path, path_size, "%s/litegpu-%s-%016llx.bin", dir,
                   format->prefix, (unsigned long long)h);
  return n > 0 && (size_t)n < path_size;
}

/* Reads a whole file; NULL when it cannot be opened or read. */
static unsigned char* lg_read_file(const char* path, size_t* bytes,
                                   bool* exists) {
  unsigned char* data = NULL;
  *exists = false;
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  *exists = true;
  if (fseek(f, 0, SEEK_END) != 0) goto fail;
  long size = ftell(f);
  if (size < 0 || (size_t)size > LG_CACHE_MAX_BYTES) goto fail;
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

lg_cache_result lg_cache_file_load(const lg_cache_file_format* format,
                                   const char* dir, const char* key,
                                   unsigned char** payload, size_t* bytes) {
  char path[4096];
  unsigned char* data = NULL;
  size_t size = 0;
  bool exists = false;
  *payload = NULL;
  *bytes = 0;
  if (!lg_cache_file_path(format, dir, key, path, sizeof(path))) {
    return LG_CACHE_MISS;
  }
  data = lg_read_file(path, &size, &exists);
  if (data == NULL) {
    return exists ? LG_CACHE_REJECT : LG_CACHE_MISS;
  }
  size_t key_len = strlen(key);
  if (size < LG_CACHE_FILE_HEADER_BYTES) goto reject;
  if (memcmp(data, format->magic, sizeof(format->magic)) != 0) goto reject;
  if (lg_get_u32(data + 8) != format->version) goto reject;
  if (lg_get_u32(data + 12) != key_len) goto reject;
  if (lg_get_u64(data + 16) != lg_fnv1a64(LG_FNV1A64_INIT, key, key_len)) {
    goto reject;
  }
  uint64_t payload_len = lg_get_u64(data + 24);
  size_t body = size - LG_CACHE_FILE_HEADER_BYTES;
  if (body < key_len || payload_len != (uint64_t)(body - key_len) ||
      payload_len == 0) {
    goto reject;
  }
  const unsigned char* stored_key = data + LG_CACHE_FILE_HEADER_BYTES;
  if (memcmp(stored_key, key, key_len) != 0) goto reject;
  const unsigned char* stored = stored_key + key_len;
  if (lg_get_u64(data + 32) !=
      lg_fnv1a64(LG_FNV1A64_INIT, stored, (size_t)payload_len)) {
    goto reject;
  }
  /* The payload moves to the front so the caller frees one block. */
  memmove(data, stored, (size_t)payload_len);
  *payload = data;
  *bytes = (size_t)payload_len;
  return LG_CACHE_HIT;
reject:
  free(data);
  return LG_CACHE_REJECT;
}

bool lg_cache_file_store(const lg_cache_file_format* format, const char* dir,
                         const char* key, const void* payload, size_t bytes) {
  char path[4096];
  char temp[4200];
  FILE* f = NULL;
  unsigned char header[LG_CACHE_FILE_HEADER_BYTES];
  size_t key_len = strlen(key);
  if (payload == NULL || bytes == 0 || key_len > UINT32_MAX) return false;
  if (!lg_cache_file_path(format, dir, key, path, sizeof(path))) return false;
  /* One temporary file per store: two threads of a process storing the
   * same key (two delegates sharing serialization_dir) must not write into
   * one file. */
  static atomic_ulong stores;
  int n = snprintf(temp, sizeof(temp), "%s.tmp.%ld.%lu", path, (long)getpid(),
                   atomic_fetch_add(&stores, 1));
  if (n < 0 || (size_t)n >= sizeof(temp)) return false;

  memcpy(header, format->magic, sizeof(format->magic));
  lg_put_u32(header + 8, format->version);
  lg_put_u32(header + 12, (uint32_t)key_len);
  lg_put_u64(header + 16, lg_fnv1a64(LG_FNV1A64_INIT, key, key_len));
  lg_put_u64(header + 24, (uint64_t)bytes);
  lg_put_u64(header + 32, lg_fnv1a64(LG_FNV1A64_INIT, payload, bytes));

  f = fopen(temp, "wb");
  if (f == NULL) return false;
  if (fwrite(header, 1, sizeof(header), f) != sizeof(header)) goto fail;
  if (fwrite(key, 1, key_len, f) != key_len) goto fail;
  if (fwrite(payload, 1, bytes, f) != bytes) goto fail;
  FILE* closing = f;
  f = NULL;
  if (fclose(closing) != 0) goto fail;
  if (rename(temp, path) != 0) goto fail;
  return true;
fail:
  if (f != NULL) fclose(f);
  remove(temp);
  return false;
}
