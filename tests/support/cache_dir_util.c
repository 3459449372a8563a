/* See cache_dir_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "tests/support/cache_dir_util.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

int lg_test_temp_root_create(char* root, size_t size, const char* name) {
  snprintf(root, size, "/tmp/%s_XXXXXX", name);
  return mkdtemp(root) == NULL ? -1 : 0;
}

void lg_test_temp_root_remove(const char* root) {
  DIR* d = opendir(root);
  if (d == NULL) return;
  struct dirent* e;
  char path[1024];
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    snprintf(path, sizeof(path), "%s/%s", root, e->d_name);
    lg_test_clear_dir(path); /* nothing for a file */
    if (rmdir(path) != 0) remove(path);
  }
  closedir(d);
  rmdir(root);
}

void lg_test_make_dir(char* path, size_t size, const char* root,
                      const char* name) {
  snprintf(path, size, "%s/%s", root, name);
  assert_int_equal(mkdir(path, 0700), 0);
}

void lg_test_clear_dir(const char* path) {
  DIR* d = opendir(path);
  if (d == NULL) return;
  struct dirent* e;
  char file[1024];
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    const int n = snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
    if (n > 0 && (size_t)n < sizeof(file)) remove(file);
  }
  closedir(d);
}

int lg_test_cache_files(const char* dir, const char* prefix, char* first,
                        size_t size) {
  DIR* d = opendir(dir);
  assert_non_null(d);
  const size_t n = strlen(prefix);
  int count = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (strncmp(e->d_name, prefix, n) != 0) continue;
    assert_null(strstr(e->d_name, ".tmp")); /* no leftover temp files */
    if (count++ == 0 && first != NULL) {
      snprintf(first, size, "%s/%s", dir, e->d_name);
    }
  }
  closedir(d);
  return count;
}
