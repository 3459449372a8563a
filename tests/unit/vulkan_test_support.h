/* Helpers shared by the Vulkan backend suites (test_vulkan_backend.c,
 * test_vulkan_cache_faults.c, test_vulkan_recording.c): backends created
 * with the Khronos validation layer, buffers, kernels and dispatches that
 * fail the running cmocka test (fail_msg) on any error, and the few
 * references more than one suite uses. Compiled into each of those suites
 * (tests/CMakeLists.txt); not a library.
 *
 * Ownership: what make_buffer / make_kernel / create_backend* return
 * belongs to the caller, who releases it through the backend's ops (or
 * destroy_clean). Thread safety: none; cmocka runs one test at a time.
 *
 * Use (inside a cmocka test):
 *   long errors = lg_vulkan_layer_errors();
 *   lg_gpu_backend* be = create_backend(NULL);
 *   lg_gpu_buffer* b = make_buffer(be, data, bytes);
 *   ...
 *   be->ops->buffer_release(be, b);
 *   destroy_clean(be, errors);
 */
#ifndef LITEGPU_TESTS_UNIT_VULKAN_TEST_SUPPORT_H_
#define LITEGPU_TESTS_UNIT_VULKAN_TEST_SUPPORT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "delegates/backend/gpu_backend.h"
#include "delegates/vulkan/vulkan_backend.h"

/* ---- Backends ----------------------------------------------------------- */

/* A Vulkan backend on device 0 with `cache_dir` (may be NULL), the
 * validation layer on or off and allow_fp16 as given; fails the test when
 * none can be created. */
lg_gpu_backend* create_backend_fp16(const char* cache_dir, bool validation,
                                    bool allow_fp16);
/* The same in float32. */
lg_gpu_backend* create_backend_with(const char* cache_dir, bool validation);
/* The same in float32 with the validation layer on. */
lg_gpu_backend* create_backend(const char* cache_dir);

lg_vulkan_stats stats_of(const lg_gpu_backend* be);

/* Destroys the backend and checks that no layer reported an error since
 * `layer_errors_before` and no Vk object is left. */
void destroy_clean(lg_gpu_backend* be, long layer_errors_before);

/* ---- Values ------------------------------------------------------------- */

/* CLOCK_MONOTONIC in seconds. */

/* Seeded values in [lo, hi). */
void fill_values(float* v, size_t n, uint32_t seed, float lo, float hi);

/* qsort comparison of doubles, ascending. */
int compare_doubles(const void* x, const void* y);

/* ---- Buffers, kernels, dispatch ----------------------------------------- */

/* A device buffer holding `bytes` of `data` (NULL: left undefined). */
lg_gpu_buffer* make_buffer(lg_gpu_backend* be, const void* data, size_t bytes);
/* The kernel and its pipeline for 1-D dispatches of the default size
 * (kernels_prepare, as a program's build_kernels makes it). */
lg_gpu_kernel* make_kernel(lg_gpu_backend* be, const char* name,
                           const char* defines);
/* One 1-D dispatch over n invocations, the local size left to the
 * backend. */
void run_1d(lg_gpu_backend* be, lg_gpu_kernel* k, const lg_gpu_arg* args,
            int num_args, size_t n);
void download(lg_gpu_backend* be, lg_gpu_buffer* b, void* out, size_t bytes);

/* ---- Shaders used by more than one suite -------------------------------- */

/* Runs cast with `defines` over 13 elements of src_size bytes and checks
 * the output (dst_size bytes per element) against `want`, and the guard
 * bytes after it. */
void run_cast(lg_gpu_backend* be, const char* defines, const void* src,
              size_t src_size, const void* want, size_t dst_size);

/* binary on one element pair {2, 3} under `defines` (6: LG_OP was 2). */
float specialized_result(lg_gpu_backend* be, const char* defines);

/* The 19 arguments of binary over n elements of the same shape (flat
 * indexing, no activation clamp) into args[0..19). */
void binary_flat_args(lg_gpu_buffer* a, lg_gpu_buffer* b, lg_gpu_buffer* out,
                      int32_t n, lg_gpu_arg* args);

#endif /* LITEGPU_TESTS_UNIT_VULKAN_TEST_SUPPORT_H_ */
