/* The GPU backends' cache files (delegates/backend/cache_file.h): a stored
 * entry loads back whole, a damaged or foreign one is rejected, and stores
 * of one key from several threads at once (two delegates sharing a
 * serialization_dir) always leave one whole entry behind. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, pthread barriers */

#include <dirent.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "delegates/backend/cache_file.h"

static const lg_cache_file_format kFormat = {"test", "LGTEST\0\0", 1};
static const char kKey[] = "device=test;driver=1;kernel=add";

typedef struct folder {
  char path[64];
} folder;

static void folder_make(folder* f) {
  snprintf(f->path, sizeof(f->path), "/tmp/litegpu-cache-test.XXXXXX");
  assert_non_null(mkdtemp(f->path));
}

/* Removes the folder's files, then the folder; returns how many files
 * there were. */
static int folder_remove(folder* f) {
  DIR* d = opendir(f->path);
  assert_non_null(d);
  int files = 0;
  for (struct dirent* e; (e = readdir(d)) != NULL;) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", f->path, e->d_name);
    assert_int_equal(remove(path), 0);
    ++files;
  }
  closedir(d);
  assert_int_equal(rmdir(f->path), 0);
  return files;
}

/* A payload of `bytes` bytes, every byte `fill`. */
static unsigned char* payload_of(size_t bytes, unsigned char fill) {
  unsigned char* p = malloc(bytes);
  assert_non_null(p);
  memset(p, fill, bytes);
  return p;
}

static void test_round_trip_and_rejects(void** state) {
  (void)state;
  folder f;
  folder_make(&f);
  unsigned char* data = NULL;
  size_t bytes = 0;
  assert_int_equal(lg_cache_file_load(&kFormat, f.path, kKey, &data, &bytes),
                   LG_CACHE_MISS);
  unsigned char* p = payload_of(1000, 0xab);
  assert_true(lg_cache_file_store(&kFormat, f.path, kKey, p, 1000));
  assert_int_equal(lg_cache_file_load(&kFormat, f.path, kKey, &data, &bytes),
                   LG_CACHE_HIT);
  assert_int_equal(bytes, 1000);
  assert_memory_equal(data, p, 1000);
  free(data);
  /* Another format version: rejected. */
  const lg_cache_file_format newer = {"test", "LGTEST\0\0", 2};
  assert_int_equal(lg_cache_file_load(&newer, f.path, kKey, &data, &bytes),
                   LG_CACHE_REJECT);
  assert_null(data);
  /* One payload byte flipped: rejected. */
  char path[512];
  assert_true(lg_cache_file_path(&kFormat, f.path, kKey, path, sizeof(path)));
  FILE* file = fopen(path, "r+b");
  assert_non_null(file);
  assert_int_equal(
      fseek(file, (long)(LG_CACHE_FILE_HEADER_BYTES + strlen(kKey) + 500),
            SEEK_SET),
      0);
  fputc(0x00, file);
  fclose(file);
  assert_int_equal(lg_cache_file_load(&kFormat, f.path, kKey, &data, &bytes),
                   LG_CACHE_REJECT);
  free(p);
  assert_int_equal(folder_remove(&f), 1);
}

#define WRITERS 4
#define ROUNDS 150

typedef struct writer {
  const char* dir;
  pthread_barrier_t* barrier;
  unsigned char fill; /* this writer's payload byte */
  size_t bytes;       /* and size */
  int failed_stores;
} writer;

static void* store_rounds(void* arg) {
  writer* w = arg;
  unsigned char* p = payload_of(w->bytes, w->fill);
  for (int round = 0; round < ROUNDS; ++round) {
    pthread_barrier_wait(w->barrier); /* all writers store together */
    if (!lg_cache_file_store(&kFormat, w->dir, kKey, p, w->bytes)) {
      w->failed_stores++;
    }
    pthread_barrier_wait(w->barrier); /* the main thread checks the entry */
    pthread_barrier_wait(w->barrier);
  }
  free(p);
  return NULL;
}

/* The entry after a round: exactly one writer's whole payload. */
static void check_entry(const folder* f, const writer* writers, int round) {
  unsigned char* data = NULL;
  size_t bytes = 0;
  lg_cache_result r =
      lg_cache_file_load(&kFormat, f->path, kKey, &data, &bytes);
  if (r != LG_CACHE_HIT) fail_msg("round %d: the entry is not whole", round);
  const unsigned char* got = data;
  int matches = 0;
  for (int i = 0; i < WRITERS; ++i) {
    if (bytes != writers[i].bytes) continue;
    size_t same = 0;
    while (same < bytes && got[same] == writers[i].fill) ++same;
    matches += same == bytes;
  }
  free(data);
  if (matches != 1) fail_msg("round %d: the entry is no writer's", round);
}

static void test_concurrent_stores_of_one_key(void** state) {
  (void)state;
  folder f;
  folder_make(&f);
  pthread_barrier_t barrier;
  assert_int_equal(pthread_barrier_init(&barrier, NULL, WRITERS + 1), 0);
  writer writers[WRITERS];
  pthread_t threads[WRITERS];
  for (int i = 0; i < WRITERS; ++i) {
    /* Sizes differ, so a mix of two writes shows in the length too. */
    writers[i] = (writer){f.path, &barrier, (unsigned char)(0x10 + i),
                          (size_t)(200000 + 4096 * i), 0};
    assert_int_equal(
        pthread_create(&threads[i], NULL, store_rounds, &writers[i]), 0);
  }
  for (int round = 0; round < ROUNDS; ++round) {
    pthread_barrier_wait(&barrier);
    pthread_barrier_wait(&barrier); /* every store of the round is done */
    check_entry(&f, writers, round);
    pthread_barrier_wait(&barrier);
  }
  for (int i = 0; i < WRITERS; ++i) {
    pthread_join(threads[i], NULL);
    assert_int_equal(writers[i].failed_stores, 0);
  }
  pthread_barrier_destroy(&barrier);
  /* No temporary file left behind: the entry only. */
  assert_int_equal(folder_remove(&f), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip_and_rejects),
      cmocka_unit_test(test_concurrent_stores_of_one_key),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
