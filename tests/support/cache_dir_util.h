/* Temporary folders for the GPU backends' cache tests (OpenCL program
 * cache, Vulkan pipeline cache): both write files named
 * "<prefix><hash>" into a folder and must leave no ".tmp" behind.
 *
 *   char dir[512];
 *   lg_test_make_dir(dir, sizeof(dir), root, "cache");
 *   ... create a backend with cache_dir = dir ...
 *   assert_int_equal(lg_test_cache_files(dir, "litegpu-cl-", NULL, 0), 1);
 *   lg_test_clear_dir(dir);
 *
 * Failures are cmocka assertions. */
#ifndef LITEGPU_TESTS_SUPPORT_CACHE_DIR_UTIL_H_
#define LITEGPU_TESTS_SUPPORT_CACHE_DIR_UTIL_H_

#include <stddef.h>

/* Creates a fresh folder /tmp/`name`_XXXXXX (mkdtemp) and writes its path
 * to `root`; 0, or -1 when it cannot (a cmocka group setup's result). */
int lg_test_temp_root_create(char* root, size_t size, const char* name);

/* Removes `root`: its files, its subfolders' files, the subfolders and
 * itself (the folders lg_test_make_dir made under it). */
void lg_test_temp_root_remove(const char* root);

/* Creates the empty folder `root`/`name` (asserting it did not exist) and
 * writes its path to `path`. */
void lg_test_make_dir(char* path, size_t size, const char* root,
                      const char* name);

/* Removes the files of `path` (not its subfolders); a missing folder is
 * fine. */
void lg_test_clear_dir(const char* path);

/* The number of files in `dir` whose names start with `prefix`, asserting
 * none is a leftover ".tmp"; the first one's path goes to `first` (may be
 * NULL). */
int lg_test_cache_files(const char* dir, const char* prefix, char* first,
                        size_t size);

#endif /* LITEGPU_TESTS_SUPPORT_CACHE_DIR_UTIL_H_ */
