/* Work-group tuning (gpu_tune.h). */
#include "delegates/gpu/gpu_tune.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "delegates/backend/cache_file.h"
#include "tensorflow/lite/c/common.h"

#define MAX_CANDIDATES 8
#define TIMED_RUNS 3
#define KEY_SIZE 1024

static const lg_cache_file_format kTuningCache = {"tune", "LGWGTUN", 1u};

typedef struct tune_entry {
  char* key;
  size_t local[3]; /* all 0: the backend's choice */
} tune_entry;

struct lg_gpu_tuning {
  char* cache_dir; /* NULL: memory only */
  uint64_t name_space;
  tune_entry* entries;
  int count, capacity;
  int tuned, from_cache;
};

static char* copy_string(const char* s) {
  if (s == NULL) return NULL;
  char* copy = malloc(strlen(s) + 1);
  if (copy != NULL) strcpy(copy, s);
  return copy;
}

lg_gpu_tuning* lg_gpu_tuning_create(const char* cache_dir,
                                    const char* model_token) {
  lg_gpu_tuning* t = calloc(1, sizeof(*t));
  if (t == NULL) return NULL;
  t->cache_dir = copy_string(cache_dir);
  if (cache_dir != NULL && t->cache_dir == NULL) {
    free(t);
    return NULL;
  }
  t->name_space = lg_cache_namespace(model_token);
  return t;
}

void lg_gpu_tuning_destroy(lg_gpu_tuning* t) {
  if (t == NULL) return;
  for (int i = 0; i < t->count; ++i) free(t->entries[i].key);
  free(t->entries);
  free(t->cache_dir);
  free(t);
}

void lg_gpu_tuning_counts(const lg_gpu_tuning* t, int* tuned, int* from_cache) {
  *tuned = t != NULL ? t->tuned : 0;
  *from_cache = t != NULL ? t->from_cache : 0;
}

/* ---- Keys, the table and the cache folder ------------------------------ */

static bool make_key(const lg_gpu_tuning* t, const lg_gpu_backend* be,
                     const char* kernel_key, int dims, const size_t* global,
                     char* key) {
  const int n = snprintf(
      key, KEY_SIZE,
      "litegpu work-group tuning\nmodel=%016llx\nbackend=%s\ndevice=%s\n"
      "vendor=%s\ndriver=%s\nfp16=%d\nkernel=%s\nglobal=%zu,%zu,%zu\n",
      (unsigned long long)t->name_space, be->name, be->device.name,
      be->device.vendor, be->device.driver_version, be->fp16_storage ? 1 : 0,
      kernel_key, global[0], dims > 1 ? global[1] : 1,
      dims > 2 ? global[2] : 1);
  return n > 0 && n < KEY_SIZE;
}

static const tune_entry* find_entry(const lg_gpu_tuning* t, const char* key) {
  for (int i = 0; i < t->count; ++i) {
    if (strcmp(t->entries[i].key, key) == 0) return &t->entries[i];
  }
  return NULL;
}

static bool add_entry(lg_gpu_tuning* t, const char* key, const size_t* local) {
  if (t->count == t->capacity) {
    const int capacity = t->capacity ? t->capacity * 2 : 32;
    tune_entry* grown = realloc(t->entries, sizeof(*grown) * (size_t)capacity);
    if (grown == NULL) return false;
    t->entries = grown;
    t->capacity = capacity;
  }
  tune_entry* e = &t->entries[t->count];
  e->key = copy_string(key);
  if (e->key == NULL) return false;
  memcpy(e->local, local, sizeof(e->local));
  ++t->count;
  return true;
}

/* Payload: three little-endian u32, the local size (zeros: the backend's
 * choice). */
static bool load_entry(const lg_gpu_tuning* t, const char* key, size_t* local) {
  if (t->cache_dir == NULL) return false;
  unsigned char* payload = NULL;
  size_t bytes = 0;
  const lg_cache_result found =
      lg_cache_file_load(&kTuningCache, t->cache_dir, key, &payload, &bytes);
  const bool ok = found == LG_CACHE_HIT && bytes == 12;
  for (int d = 0; ok && d < 3; ++d) {
    const unsigned char* b = payload + 4 * d;
    local[d] = (size_t)b[0] | (size_t)b[1] << 8 | (size_t)b[2] << 16 |
               (size_t)b[3] << 24;
  }
  free(payload);
  return ok;
}

static void store_entry(const lg_gpu_tuning* t, const char* key,
                        const size_t* local) {
  if (t->cache_dir == NULL) return;
  unsigned char payload[12];
  for (int d = 0; d < 3; ++d) {
    const uint32_t v = (uint32_t)local[d];
    for (int k = 0; k < 4; ++k)
      payload[4 * d + k] = (unsigned char)(v >> 8 * k);
  }
  /* A failed store only means timing again next time. */
  (void)lg_cache_file_store(&kTuningCache, t->cache_dir, key, payload,
                            sizeof(payload));
}

/* ---- Candidates and timing --------------------------------------------- */

/* Whether `local` is a size the device and the kernel allow (zeros: the
 * backend's choice, always allowed). */
static bool legal(lg_gpu_backend* be, const lg_gpu_kernel* kernel, int dims,
                  const size_t* local) {
  if (local[0] == 0) return true;
  size_t items = 1;
  for (int d = 0; d < dims; ++d) {
    if (local[d] == 0 || local[d] > be->device.max_work_item_sizes[d]) {
      return false;
    }
    items *= local[d];
  }
  return items <= be->ops->kernel_max_work_group_size(be, kernel) &&
         items <= be->device.max_work_group_size;
}

static size_t power_of_two_at_least(size_t n) {
  size_t p = 1;
  while (p < n && p < ((size_t)1 << 30)) p *= 2;
  return p;
}

/* Candidate sizes (the backend's choice not included); their count. */
static int candidates(lg_gpu_backend* be, const lg_gpu_kernel* kernel, int dims,
                      const size_t* global, size_t out[MAX_CANDIDATES][3]) {
  const size_t simd = be->device.simd_width;
  const size_t span0 = power_of_two_at_least(global[0]);
  int n = 0;
  for (size_t items = 32; items <= 256; items *= 2) {
    if (simd > 0 && items % simd != 0) continue;
    /* Dimension 0 takes `items`, items / 4 or items / 16 of them; the rest
     * go to dimension 1. */
    for (size_t split = 1; split <= (dims > 1 ? 16u : 1u); split *= 4) {
      const size_t x = items / split;
      if (n == MAX_CANDIDATES || x == 0 || x > span0) continue;
      size_t local[3] = {x, dims > 1 ? split : 1, 1};
      if (dims == 1 && split > 1) continue;
      if (dims > 1 && local[1] > power_of_two_at_least(global[1])) continue;
      if (!legal(be, kernel, dims, local)) continue;
      memcpy(out[n++], local, sizeof(local));
    }
  }
  return n;
}

/* The best of TIMED_RUNS runs of one dispatch with `local` (NULL: the
 * backend's choice), after one warm-up run. */
static TfLiteStatus time_dispatch(lg_gpu_backend* be, lg_gpu_kernel* kernel,
                                  const lg_gpu_arg* args, int num_args,
                                  int dims, const size_t* global,
                                  const size_t* local, uint64_t* best,
                                  lg_gpu_error* error) {
  *best = UINT64_MAX;
  for (int run = 0; run <= TIMED_RUNS; ++run) {
    const uint64_t start = lg_now_ns();
    if (lg_gpu_dispatch(be, kernel, args, num_args, dims, global, local,
                        error) != kTfLiteOk ||
        (be->ops->submit != NULL && be->ops->submit(be, error) != kTfLiteOk) ||
        be->ops->finish(be, error) != kTfLiteOk) {
      return kTfLiteError;
    }
    const uint64_t ns = lg_now_ns() - start;
    if (run > 0 && ns < *best) *best = ns;
  }
  return kTfLiteOk;
}

/* Times the baseline (`local`, zeros for the backend's choice) and each
 * candidate; the fastest into local (the baseline wins ties). */
static TfLiteStatus choose(lg_gpu_backend* be, lg_gpu_kernel* kernel,
                           const lg_gpu_arg* args, int num_args, int dims,
                           const size_t* global, size_t* local,
                           lg_gpu_error* error) {
  uint64_t best = 0;
  TF_LITE_ENSURE_STATUS(time_dispatch(be, kernel, args, num_args, dims, global,
                                      local[0] != 0 ? local : NULL, &best,
                                      error));
  size_t list[MAX_CANDIDATES][3];
  const int n = candidates(be, kernel, dims, global, list);
  for (int i = 0; i < n; ++i) {
    if (memcmp(list[i], local, sizeof(list[i])) == 0) continue;
    uint64_t ns = 0;
    TF_LITE_ENSURE_STATUS(time_dispatch(be, kernel, args, num_args, dims,
                                        global, list[i], &ns, error));
    if (ns < best) {
      best = ns;
      memcpy(local, list[i], 3 * sizeof(size_t));
    }
  }
  return kTfLiteOk;
}

TfLiteStatus lg_gpu_tune_dispatch(lg_gpu_tuning* t, lg_gpu_backend* be,
                                  lg_gpu_kernel* kernel, const char* kernel_key,
                                  const lg_gpu_arg* args, int num_args,
                                  int dims, const size_t* global, size_t* local,
                                  bool* use_local, lg_gpu_error* error) {
  char key[KEY_SIZE];
  if (!make_key(t, be, kernel_key, dims, global, key)) {
    snprintf(error->message, sizeof(error->message),
             "work-group tuning: the key of kernel %.64s is too long",
             kernel_key);
    return kTfLiteError;
  }
  size_t chosen[3] = {0, 0, 0};
  for (int d = 0; *use_local && d < dims; ++d) chosen[d] = local[d];
  for (int d = dims; *use_local && d < 3; ++d) chosen[d] = 1;
  const tune_entry* e = find_entry(t, key);
  if (e != NULL) {
    memcpy(chosen, e->local, sizeof(chosen));
    t->from_cache++;
  } else {
    size_t stored[3] = {0, 0, 0};
    if (load_entry(t, key, stored) && legal(be, kernel, dims, stored)) {
      memcpy(chosen, stored, sizeof(chosen));
      t->from_cache++;
    } else {
      TF_LITE_ENSURE_STATUS(
          choose(be, kernel, args, num_args, dims, global, chosen, error));
      t->tuned++;
      store_entry(t, key, chosen);
    }
    if (!add_entry(t, key, chosen)) {
      snprintf(error->message, sizeof(error->message), "out of host memory");
      return kTfLiteError;
    }
  }
  *use_local = chosen[0] != 0;
  for (int d = 0; d < dims; ++d) local[d] = chosen[d];
  return kTfLiteOk;
}
