/* Helpers shared by the Vulkan backend suites (see
 * vulkan_test_support.h). */
#include "tests/unit/vulkan_test_support.h"

#include <float.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "delegates/vulkan/vulkan_internal.h"

lg_gpu_backend* create_backend_fp16(const char* cache_dir, bool validation,
                                    bool allow_fp16) {
  lg_gpu_backend_options options = {
      .device_index = 0, .allow_fp16 = allow_fp16, .cache_dir = cache_dir};
  lg_vulkan_options vk = {validation};
  lg_gpu_backend* be = NULL;
  lg_gpu_error error = {{0}};
  if (lg_vulkan_backend_create_ex(&options, &vk, &be, &error) != kTfLiteOk) {
    fail_msg(
        "no usable Vulkan device with validation (install "
        "mesa-vulkan-drivers and vulkan-validationlayers): %s",
        error.message);
  }
  assert_non_null(be);
  return be;
}

lg_gpu_backend* create_backend_with(const char* cache_dir, bool validation) {
  return create_backend_fp16(cache_dir, validation, false);
}

lg_gpu_backend* create_backend(const char* cache_dir) {
  return create_backend_with(cache_dir, true);
}

lg_vulkan_stats stats_of(const lg_gpu_backend* be) {
  lg_vulkan_stats s;
  assert_int_equal(lg_vulkan_backend_stats(be, &s), kTfLiteOk);
  return s;
}

/* Destroys the backend and checks that no layer reported an error and no
 * Vk object is left. */
void destroy_clean(lg_gpu_backend* be, long layer_errors_before) {
  lg_vulkan_stats s = stats_of(be);
  lg_gpu_backend_destroy(be);
  if (lg_vulkan_layer_errors() != layer_errors_before) {
    fail_msg("validation reported %ld error(s); first: %s",
             lg_vulkan_layer_errors() - layer_errors_before,
             s.first_validation_error);
  }
  assert_int_equal(lg_vulkan_live_objects(), 0);
}

/* Seeded values in [lo, hi). */
void fill_values(float* v, size_t n, uint32_t seed, float lo, float hi) {
  uint32_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    v[i] = lo + (hi - lo) * (float)(s >> 8) / (float)(1u << 24);
  }
}

/* A device buffer holding `bytes` of `data` (NULL: left undefined). */
lg_gpu_buffer* make_buffer(lg_gpu_backend* be, const void* data, size_t bytes) {
  lg_gpu_buffer* b = NULL;
  lg_gpu_error error = {{0}};
  if (be->ops->buffer_create(be, bytes, &b, &error) != kTfLiteOk) {
    fail_msg("buffer_create(%zu): %s", bytes, error.message);
  }
  if (data != NULL &&
      lg_gpu_buffer_upload(be, b, 0, data, bytes, &error) != kTfLiteOk) {
    fail_msg("buffer_upload(%zu): %s", bytes, error.message);
  }
  return b;
}

lg_gpu_kernel* make_kernel(lg_gpu_backend* be, const char* name,
                           const char* defines) {
  lg_gpu_kernel* k = NULL;
  lg_gpu_error error = {{0}};
  if (be->ops->kernel_create(be, name, defines, &k, &error) != kTfLiteOk) {
    fail_msg("kernel_create(%s, %s): %s", name, defines ? defines : "",
             error.message);
  }
  /* Its pipeline for 1-D dispatches of the default size, as a program's
   * build_kernels would make it. */
  const lg_gpu_kernel_use use = {k, 1, NULL};
  if (be->ops->kernels_prepare(be, &use, 1, &error) != kTfLiteOk) {
    fail_msg("kernels_prepare(%s, %s): %s", name, defines ? defines : "",
             error.message);
  }
  return k;
}

void run_1d(lg_gpu_backend* be, lg_gpu_kernel* k, const lg_gpu_arg* args,
            int num_args, size_t n) {
  lg_gpu_error error = {{0}};
  size_t global[1] = {n};
  if (lg_gpu_dispatch(be, k, args, num_args, 1, global, NULL, &error) !=
      kTfLiteOk) {
    fail_msg("dispatch: %s", error.message);
  }
}

void download(lg_gpu_backend* be, lg_gpu_buffer* b, void* out, size_t bytes) {
  lg_gpu_error error = {{0}};
  if (lg_gpu_buffer_download(be, b, 0, out, bytes, &error) != kTfLiteOk) {
    fail_msg("buffer_download: %s", error.message);
  }
}

/* One cast over 13 elements (not a multiple of 4: a partial last word for
 * bytes); `src`/`dst` hold the input and the expected output, dst_bytes
 * per element; the 3 guard bytes after a byte output must stay. */
void run_cast(lg_gpu_backend* be, const char* defines, const void* src,
              size_t src_size, const void* want, size_t dst_size) {
  enum { kN = 13 };
  unsigned char out[kN * 4 + 3];
  memset(out, 0x5A, sizeof(out));
  const size_t out_bytes = kN * dst_size + 3;
  lg_gpu_buffer* bx = make_buffer(be, src, kN * src_size);
  lg_gpu_buffer* bo = make_buffer(be, out, out_bytes);
  lg_gpu_kernel* k = make_kernel(be, "cast", defines);
  const lg_gpu_arg args[] = {LG_GPU_ARG_BUFFER(bx), LG_GPU_ARG_BUFFER(bo),
                             LG_GPU_ARG_INT(kN)};
  run_1d(be, k, args, 3, kN);
  download(be, bo, out, out_bytes);
  if (memcmp(out, want, kN * dst_size) != 0) {
    for (size_t i = 0; i < kN * dst_size; ++i) {
      if (out[i] != ((const unsigned char*)want)[i]) {
        fail_msg("cast %s: byte %zu got 0x%02x want 0x%02x", defines, i, out[i],
                 ((const unsigned char*)want)[i]);
      }
    }
  }
  for (size_t i = kN * dst_size; i < out_bytes; ++i) {
    if (out[i] != 0x5A) fail_msg("cast %s wrote guard byte %zu", defines, i);
  }
  be->ops->kernel_release(be, k);
  be->ops->buffer_release(be, bo);
  be->ops->buffer_release(be, bx);
}

/* mul of 2 and 3 elementwise under `defines`: 6 means LG_OP reached 2. */
float specialized_result(lg_gpu_backend* be, const char* defines) {
  const float a[1] = {2.0f}, b[1] = {3.0f};
  float out[1] = {0.0f};
  lg_gpu_buffer* ba = make_buffer(be, a, 4);
  lg_gpu_buffer* bb = make_buffer(be, b, 4);
  lg_gpu_buffer* bo = make_buffer(be, NULL, 4);
  lg_gpu_kernel* k = make_kernel(be, "binary", defines);
  const lg_gpu_arg args[] = {
      LG_GPU_ARG_BUFFER(ba),      LG_GPU_ARG_BUFFER(bb),
      LG_GPU_ARG_BUFFER(bo),      LG_GPU_ARG_INT(1),
      LG_GPU_ARG_INT(1),          LG_GPU_ARG_INT(1),
      LG_GPU_ARG_FLOAT(-FLT_MAX), LG_GPU_ARG_FLOAT(FLT_MAX),
      LG_GPU_ARG_INT(1),          LG_GPU_ARG_INT(1),
      LG_GPU_ARG_INT(1),          LG_GPU_ARG_INT(0),
      LG_GPU_ARG_INT(0),          LG_GPU_ARG_INT(0),
      LG_GPU_ARG_INT(0),          LG_GPU_ARG_INT(0),
      LG_GPU_ARG_INT(0),          LG_GPU_ARG_INT(0),
      LG_GPU_ARG_INT(0)};
  run_1d(be, k, args, 19, 1);
  download(be, bo, out, 4);
  be->ops->kernel_release(be, k);
  be->ops->buffer_release(be, bo);
  be->ops->buffer_release(be, bb);
  be->ops->buffer_release(be, ba);
  return out[0];
}

/* The 19 arguments of binary over n elements of the same shape (flat
 * indexing, no activation clamp). */
void binary_flat_args(lg_gpu_buffer* a, lg_gpu_buffer* b, lg_gpu_buffer* out,
                      int32_t n, lg_gpu_arg* args) {
  const lg_gpu_arg list[19] = {
      LG_GPU_ARG_BUFFER(a),       LG_GPU_ARG_BUFFER(b),
      LG_GPU_ARG_BUFFER(out),     LG_GPU_ARG_INT(n),
      LG_GPU_ARG_INT(n),          LG_GPU_ARG_INT(n),
      LG_GPU_ARG_FLOAT(-FLT_MAX), LG_GPU_ARG_FLOAT(FLT_MAX),
      LG_GPU_ARG_INT(1),          LG_GPU_ARG_INT(1),
      LG_GPU_ARG_INT(n),          LG_GPU_ARG_INT(0),
      LG_GPU_ARG_INT(0),          LG_GPU_ARG_INT(0),
      LG_GPU_ARG_INT(1),          LG_GPU_ARG_INT(0),
      LG_GPU_ARG_INT(0),          LG_GPU_ARG_INT(0),
      LG_GPU_ARG_INT(1)};
  memcpy(args, list, sizeof(list));
}

int compare_doubles(const void* x, const void* y) {
  double a = *(const double*)x, b = *(const double*)y;
  return a < b ? -1 : a > b;
}
