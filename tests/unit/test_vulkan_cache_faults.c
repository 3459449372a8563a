/* The Vulkan backend's pipeline cache and failure paths, on the machine's
 * Vulkan device (lavapipe here) with the Khronos validation layer on: the
 * pipeline cache (cold, warm, corrupt, truncated, foreign header),
 * pipelines built ahead of the dispatches (kernels_prepare), a sweep
 * of injected failures over every fallible Vulkan call (on a warm cache,
 * direct and staged), timing (round trips, cold and warm pipeline
 * creation), and half precision (allow_fp16: fp16_storage on lavapipe,
 * float16 kernels on hand-derived values, float32 kept without it,
 * separate pipeline-cache files per precision). Device, buffers and
 * shaders are in test_vulkan_backend.c, recordings in
 * test_vulkan_recording.c; shared helpers in vulkan_test_support.{h,c}.
 *
 * No Vulkan device is a FAILURE, not a skip: CI installs lavapipe and the
 * validation layer. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/clock.h"
#include "delegates/backend/cache_file.h"
#include "delegates/vulkan/vulkan_backend.h"
#include "delegates/vulkan/vulkan_impl.h"
#include "delegates/vulkan/vulkan_internal.h"
#include "runtime/kernels/fp16.h"
#include "tests/support/cache_dir_util.h"
#include "tests/support/vulkan_hold.h"
#include "tests/unit/vulkan_test_support.h"

/* ---- Temporary folders -------------------------------------------------- */

static char temp_root[256];

/* ---- Pipeline cache ----------------------------------------------------- */

/* A fresh empty folder under the test's temporary root. */
static void make_dir(char* path, size_t size, const char* name) {
  lg_test_make_dir(path, size, temp_root, name);
}

/* Number of cache entries; the first one's path goes to `first`. */
static int cache_files(const char* dir, char* first, size_t size) {
  return lg_test_cache_files(dir, "litegpu-vk-", first, size);
}

/* Creates a backend on `dir` and a binary kernel with `defines`, then
 * checks that it computes; returns the stats after the kernel_create. */
static lg_vulkan_stats cache_round(const char* dir, const char* defines,
                                   bool validation) {
  long errors = lg_vulkan_layer_errors();
  lg_gpu_backend* be = create_backend_with(dir, validation);
  lg_gpu_kernel* k = make_kernel(be, "binary", defines);
  lg_vulkan_stats s = stats_of(be);
  be->ops->kernel_release(be, k);
  assert_true(specialized_result(be, defines) == 6.0f); /* LG_OP=2: mul */
  destroy_clean(be, errors);
  return s;
}

static unsigned char cache_data[1 << 22];

/* Rewrites the entry: cut to `truncate_to` bytes and/or xor one byte. */
static size_t rewrite_file(const char* path, long truncate_to, long flip_at) {
  FILE* f = fopen(path, "rb");
  assert_non_null(f);
  size_t n = fread(cache_data, 1, sizeof(cache_data), f);
  fclose(f);
  assert_true(n > 40 && n < sizeof(cache_data));
  if (flip_at >= 0) cache_data[(size_t)flip_at % n] ^= 0x5A;
  if (truncate_to >= 0 && (size_t)truncate_to < n) n = (size_t)truncate_to;
  f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(cache_data, 1, n, f), n);
  fclose(f);
  return n;
}

/* Changes the pipelineCacheUUID inside the payload and re-seals the file
 * (payload checksum recomputed): only the Vulkan header check can see it. */
static void foreign_header(const char* path) {
  FILE* f = fopen(path, "rb");
  assert_non_null(f);
  size_t n = fread(cache_data, 1, sizeof(cache_data), f);
  fclose(f);
  uint32_t key_len = 0;
  for (int i = 0; i < 4; ++i)
    key_len |= (uint32_t)cache_data[12 + i] << (8 * i);
  const size_t payload = 40 + key_len;
  assert_true(n >= payload + 32);
  cache_data[payload + 16] ^= 0xFF; /* first UUID byte */
  uint64_t h = lg_fnv1a64(LG_FNV1A64_INIT, cache_data + payload, n - payload);
  for (int i = 0; i < 8; ++i)
    cache_data[32 + i] = (unsigned char)(h >> (8 * i));
  f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(cache_data, 1, n, f), n);
  fclose(f);
}

static void expect_rebuild(const char* dir, const char* label) {
  lg_vulkan_stats s = cache_round(dir, "-DLG_OP=2", true);
  if (s.cache_rejects != 1 || s.cache_loads != 0 || s.cache_writes != 1) {
    fail_msg("%s: rejects %llu loads %llu writes %llu", label,
             (unsigned long long)s.cache_rejects,
             (unsigned long long)s.cache_loads,
             (unsigned long long)s.cache_writes);
  }
  s = cache_round(dir, "-DLG_OP=2", true); /* the rewritten entry is good */
  assert_int_equal(s.cache_loads, 1);
  assert_int_equal(s.cache_rejects, 0);
}

static void test_pipeline_cache(void** state) {
  (void)state;
  char dir[512], entry[1024];
  make_dir(dir, sizeof(dir), "cache");
  lg_vulkan_stats s = cache_round(dir, "-DLG_OP=2", true);
  assert_int_equal(s.cache_loads, 0);
  assert_int_equal(s.cache_rejects, 0);
  assert_int_equal(s.cache_writes, 1);
  assert_int_equal(s.pipelines_created, 1);
  assert_int_equal(cache_files(dir, entry, sizeof(entry)), 1);

  s = cache_round(dir, "-DLG_OP=2", true);
  assert_int_equal(s.cache_loads, 1); /* the file was read and accepted */
  assert_int_equal(s.cache_rejects, 0);
  print_message(
      "pipeline cache: warm round wrote %llu file(s), driver "
      "reported %llu hit(s) of %llu pipeline(s)\n",
      (unsigned long long)s.cache_writes,
      (unsigned long long)s.pipeline_cache_hits,
      (unsigned long long)s.pipelines_created);

  const size_t size = rewrite_file(entry, -1, -1);
  rewrite_file(entry, -1, (long)size - 1); /* a flipped payload byte */
  expect_rebuild(dir, "flipped payload byte");
  rewrite_file(entry, -1, 20); /* a flipped key-hash byte in the header */
  expect_rebuild(dir, "flipped header byte");
  rewrite_file(entry, (long)size - 1, -1); /* truncated payload */
  expect_rebuild(dir, "truncated");
  rewrite_file(entry, 10, -1); /* shorter than the header */
  expect_rebuild(dir, "truncated header");
  rewrite_file(entry, 0, -1); /* empty */
  expect_rebuild(dir, "empty file");
  foreign_header(entry); /* sealed, but another device's data */
  expect_rebuild(dir, "foreign pipelineCacheUUID");

  /* Other defines of the same shader share its file. */
  s = cache_round(dir, "-DLG_OP=2 -DLG_BCAST=0", true);
  assert_int_equal(s.cache_loads, 1);
  assert_int_equal(cache_files(dir, NULL, 0), 1);

  /* A missing cache folder only disables caching. */
  char missing[600];
  snprintf(missing, sizeof(missing), "%s/does/not/exist", dir);
  s = cache_round(missing, "-DLG_OP=2", true);
  assert_int_equal(s.cache_writes, 0);
  assert_int_equal(s.cache_loads, 0);
  lg_test_clear_dir(dir);
  assert_int_equal(lg_vulkan_live_objects(), 0);
}

/* ---- Injected failures -------------------------------------------------- */

/* ---- Pipelines ahead of the dispatches (kernels_prepare) --------------- */

/* Six uses of two binary kernels (add, mul) over four distinct work-group
 * sizes: each kernel's default 1-D size, add at 64, mul at 4x4. */
static int prepare_uses(lg_gpu_kernel* add, lg_gpu_kernel* mul,
                        lg_gpu_kernel_use* uses) {
  static const size_t l64[1] = {64}, l4x4[2] = {4, 4};
  const lg_gpu_kernel_use list[6] = {
      {add, 1, NULL}, {mul, 1, NULL}, {add, 1, l64},
      {add, 1, NULL}, {mul, 2, l4x4}, {add, 1, l64},
  };
  memcpy(uses, list, sizeof(list));
  return 6;
}

/* add(a, b) over n floats with `local` (NULL: the backend's choice). */
static void run_add(lg_gpu_backend* be, lg_gpu_kernel* add, size_t n,
                    const size_t* local) {
  float a[256], b[256], out[256];
  assert_true(n <= 256);
  fill_values(a, n, 11, -1.0f, 1.0f);
  fill_values(b, n, 12, -1.0f, 1.0f);
  lg_gpu_buffer* ba = make_buffer(be, a, n * sizeof(float));
  lg_gpu_buffer* bb = make_buffer(be, b, n * sizeof(float));
  lg_gpu_buffer* bo = make_buffer(be, NULL, n * sizeof(float));
  lg_gpu_arg args[19];
  binary_flat_args(ba, bb, bo, (int32_t)n, args);
  lg_gpu_error error = {{0}};
  const size_t global[1] = {n};
  assert_int_equal(lg_gpu_dispatch(be, add, args, 19, 1, global, local, &error),
                   kTfLiteOk);
  download(be, bo, out, n * sizeof(float));
  for (size_t i = 0; i < n; ++i) assert_true(out[i] == a[i] + b[i]);
  be->ops->buffer_release(be, bo);
  be->ops->buffer_release(be, bb);
  be->ops->buffer_release(be, ba);
}

/* kernel_create builds no pipeline; kernels_prepare builds each distinct
 * (kernel, work-group size) once, several threads at a time, and the
 * dispatches then find them; a bad size or a failed creation is an error
 * that names it, and the pipelines made beside a failed one are released
 * with their kernels. */
static void test_kernels_prepare(void** state) {
  (void)state;
  long errors = lg_vulkan_layer_errors();
  lg_gpu_backend* be = create_backend(NULL);
  const lg_gpu_backend_ops* ops = be->ops;
  lg_gpu_error error = {{0}};
  lg_gpu_kernel *add = NULL, *mul = NULL;
  assert_int_equal(
      ops->kernel_create(be, "binary", "-DLG_OP=0 -DLG_BCAST=0", &add, &error),
      kTfLiteOk);
  assert_int_equal(
      ops->kernel_create(be, "binary", "-DLG_OP=2 -DLG_BCAST=0", &mul, &error),
      kTfLiteOk);
  assert_int_equal(stats_of(be).pipelines_created, 0);
  lg_gpu_kernel_use uses[6];
  const int count = prepare_uses(add, mul, uses);
  assert_int_equal(ops->kernels_prepare(be, uses, count, &error), kTfLiteOk);
  assert_int_equal(stats_of(be).pipelines_created, 4);
  assert_int_equal(ops->kernels_prepare(be, uses, count, &error), kTfLiteOk);
  assert_int_equal(stats_of(be).pipelines_created, 4);
  static const size_t l64[1] = {64};
  run_add(be, add, 200, NULL);
  run_add(be, add, 200, l64);
  assert_int_equal(stats_of(be).pipelines_created, 4);

  /* A size past the device's limits: refused, nothing created. */
  const size_t huge[1] = {be->device.max_work_item_sizes[0] + 1};
  const lg_gpu_kernel_use bad = {add, 1, huge};
  assert_int_equal(ops->kernels_prepare(be, &bad, 1, &error), kTfLiteError);
  assert_non_null(strstr(error.message, "maxComputeWorkGroupSize"));
  assert_int_equal(stats_of(be).pipelines_created, 4);
  ops->kernel_release(be, mul);
  ops->kernel_release(be, add);

  /* The nth of the four creations fails. */
  for (int nth = 1; nth <= 4; ++nth) {
    assert_int_equal(ops->kernel_create(be, "binary", "-DLG_OP=0 -DLG_BCAST=0",
                                        &add, &error),
                     kTfLiteOk);
    assert_int_equal(ops->kernel_create(be, "binary", "-DLG_OP=2 -DLG_BCAST=0",
                                        &mul, &error),
                     kTfLiteOk);
    prepare_uses(add, mul, uses);
    const uint64_t created = stats_of(be).pipelines_created;
    lg_vulkan_fail_call("vkCreateComputePipelines", nth);
    memset(&error, 0, sizeof(error));
    assert_int_equal(ops->kernels_prepare(be, uses, count, &error),
                     kTfLiteError);
    assert_true(lg_vulkan_fail_fired());
    lg_vulkan_fail_call(NULL, 0);
    if (strstr(error.message, "vkCreateComputePipelines") == NULL ||
        strstr(error.message, "VK_ERROR_OUT_OF_DEVICE_MEMORY") == NULL) {
      fail_msg("failure %d: '%s'", nth, error.message);
    }
    assert_int_equal(stats_of(be).pipelines_created - created, 3);
    /* The missing one is made by the dispatch that needs it. */
    run_add(be, add, 200, NULL);
    run_add(be, add, 100, l64);
    ops->kernel_release(be, mul);
    ops->kernel_release(be, add);
  }
  destroy_clean(be, errors);
}

/* Every Vk call the backend checks, in roughly the order it makes them. */
static const char* const kCalls[] = {
    "vkEnumerateInstanceVersion",
    "vkEnumerateInstanceLayerProperties",
    "vkCreateInstance",
    "vkCreateDebugUtilsMessengerEXT",
    "vkEnumeratePhysicalDevices",
    "vkEnumerateDeviceExtensionProperties",
    "vkCreateDevice",
    "vkCreateCommandPool",
    "vkCreateBuffer",
    "vkAllocateMemory",
    "vkBindBufferMemory",
    "vkMapMemory",
    "vkCreateBufferView",
    "vkCreateShaderModule",
    "vkCreateDescriptorSetLayout",
    "vkCreatePipelineLayout",
    "vkCreatePipelineCache",
    "vkCreateComputePipelines",
    "vkGetPipelineCacheData",
    "vkCreateDescriptorPool",
    "vkAllocateDescriptorSets",
    "vkAllocateCommandBuffers",
    "vkCreateFence",
    "vkBeginCommandBuffer",
    "vkEndCommandBuffer",
    "vkQueueSubmit",
    "vkWaitForFences",
    "vkResetFences",
    "vkResetCommandPool",
    "vkResetDescriptorPool",
};
enum { kCallCount = sizeof(kCalls) / sizeof(kCalls[0]) };

/* Failures the backend recovers from by design: a cache file the driver
 * refuses is replaced by an empty cache, cache data it cannot read back is
 * not written. */
static bool recoverable(const char* call) {
  return strcmp(call, "vkGetPipelineCacheData") == 0 ||
         strcmp(call, "vkCreatePipelineCache") == 0;
}

/* The 10 arguments of conv_1x1 without a residual or a clamp: in, w,
 * bias, out, then `bias` again where the residual (not read) goes; pixels,
 * ic, oc, lo, hi. */
static void conv_1x1_args(lg_gpu_buffer* in, lg_gpu_buffer* w,
                          lg_gpu_buffer* bias, lg_gpu_buffer* out,
                          int32_t pixels, int32_t ic, int32_t oc,
                          lg_gpu_arg* args) {
  const lg_gpu_arg list[10] = {
      LG_GPU_ARG_BUFFER(in),      LG_GPU_ARG_BUFFER(w),
      LG_GPU_ARG_BUFFER(bias),    LG_GPU_ARG_BUFFER(out),
      LG_GPU_ARG_BUFFER(bias),    LG_GPU_ARG_INT(pixels),
      LG_GPU_ARG_INT(ic),         LG_GPU_ARG_INT(oc),
      LG_GPU_ARG_FLOAT(-FLT_MAX), LG_GPU_ARG_FLOAT(FLT_MAX)};
  memcpy(args, list, sizeof(list));
}

/* The whole life of a small job, twice (so fences, command buffers and
 * descriptor pools are recycled); returns the first failure. The second
 * dispatch of a round is a 1x1 convolution with weight 1 (out = in), whose
 * read-only tensors are texel buffers on lavapipe (buffer views). */
static TfLiteStatus scenario(const char* cache_dir, lg_gpu_error* error) {
  lg_gpu_backend_options options = {
      .device_index = 0, .allow_fp16 = false, .cache_dir = cache_dir};
  lg_vulkan_options vk = {true};
  lg_gpu_backend* be = NULL;
  lg_gpu_buffer *src = NULL, *dst = NULL, *w = NULL, *bias = NULL;
  lg_gpu_kernel *k = NULL, *conv = NULL;
  float in[5] = {1, 2, 3, 4, 5}, out[5] = {0};
  const float w_data[4] = {1, 0, 0, 0}, bias_data[4] = {0};
  TfLiteStatus status = lg_vulkan_backend_create_ex(&options, &vk, &be, error);
  if (status != kTfLiteOk) return status;
  const lg_gpu_backend_ops* ops = be->ops;
  status = ops->buffer_create(be, sizeof(in), &src, error);
  if (status == kTfLiteOk)
    status = ops->buffer_create(be, sizeof(out), &dst, error);
  if (status == kTfLiteOk)
    status = ops->buffer_create(be, sizeof(w_data), &w, error);
  if (status == kTfLiteOk)
    status = ops->buffer_create(be, sizeof(bias_data), &bias, error);
  if (status == kTfLiteOk)
    status = lg_gpu_buffer_upload(be, w, 0, w_data, sizeof(w_data), error);
  if (status == kTfLiteOk)
    status =
        lg_gpu_buffer_upload(be, bias, 0, bias_data, sizeof(bias_data), error);
  if (status == kTfLiteOk)
    status = ops->kernel_create(be, "copy", NULL, &k, error);
  if (status == kTfLiteOk)
    status = ops->kernel_create(be, "conv_1x1", "-DLG_W=4 -DLG_NV=1 -DLG_PIX=1",
                                &conv, error);
  lg_gpu_arg args[] = {LG_GPU_ARG_BUFFER(src), LG_GPU_ARG_BUFFER(dst),
                       LG_GPU_ARG_INT(5)};
  lg_gpu_arg conv_args[10];
  conv_1x1_args(src, w, bias, dst, 5, 1, 1, conv_args);
  size_t global[2] = {5, 1};
  for (int round = 0; round < 2 && status == kTfLiteOk; ++round) {
    in[0] = (float)(10 + round);
    status = lg_gpu_buffer_upload(be, src, 0, in, sizeof(in), error);
    if (status == kTfLiteOk)
      status = lg_gpu_dispatch(be, k, args, 3, 1, global, NULL, error);
    /* Recorded after a dispatch: staged on every device. */
    in[1] = (float)(20 + round);
    if (status == kTfLiteOk)
      status = lg_gpu_buffer_upload(be, src, 4, &in[1], 4, error);
    if (status == kTfLiteOk)
      status = lg_gpu_dispatch(be, conv, conv_args, 10, 2, global, NULL, error);
    if (status == kTfLiteOk) status = ops->submit(be, error);
    if (status == kTfLiteOk) status = ops->finish(be, error);
    if (status == kTfLiteOk)
      status = lg_gpu_buffer_download(be, dst, 0, out, sizeof(out), error);
    if (status == kTfLiteOk) assert_memory_equal(in, out, sizeof(in));
  }
  ops->kernel_release(be, conv);
  ops->kernel_release(be, k);
  ops->buffer_release(be, bias);
  ops->buffer_release(be, w);
  ops->buffer_release(be, dst);
  ops->buffer_release(be, src);
  lg_gpu_backend_destroy(be);
  return status;
}

/* Sweeps every call at every use in the scenario: each failure must give
 * an error naming the call and its VkResult (or be recovered where that is
 * the design), leak no Vk object and draw no validation error. */
static void sweep(const char* dir, int* fired, int* failures) {
  lg_gpu_error error;
  for (int c = 0; c < kCallCount; ++c) {
    const char* call = kCalls[c];
    for (int nth = 1; nth < 100; ++nth) {
      long layer_errors = lg_vulkan_layer_errors();
      memset(&error, 0, sizeof(error));
      lg_vulkan_fail_call(call, nth);
      TfLiteStatus status = scenario(dir, &error);
      bool hit = lg_vulkan_fail_fired();
      lg_vulkan_fail_call(NULL, 0);
      assert_int_equal(lg_vulkan_live_objects(), 0);
      if (lg_vulkan_layer_errors() != layer_errors) {
        fail_msg("%s #%d: validation errors on the failure path", call, nth);
      }
      if (!hit) {
        if (status != kTfLiteOk)
          fail_msg("clean run failed: %s", error.message);
        break;
      }
      ++fired[c];
      if (status == kTfLiteOk) {
        if (!recoverable(call)) {
          fail_msg("%s #%d failed but the job succeeded", call, nth);
        }
        continue;
      }
      ++failures[c];
      if (strstr(error.message, call) == NULL ||
          strstr(error.message, "VK_") == NULL) {
        fail_msg(
            "%s #%d: message does not name the call and the VkResult: "
            "'%s'",
            call, nth, error.message);
      }
    }
  }
}

static void test_injected_failures(void** state) {
  (void)state;
  char dir[512];
  make_dir(dir, sizeof(dir), "faults");
  int fired[kCallCount] = {0}, failures[kCallCount] = {0};
  lg_gpu_error error;
  /* A warm cache (one valid file), with and without host-mapped device
   * memory so that both transfer paths and their staging allocations are
   * swept. */
  assert_int_equal(scenario(dir, &error), kTfLiteOk);
  sweep(dir, fired, failures);
  lg_vulkan_force_staging(true);
  sweep(dir, fired, failures);
  lg_vulkan_force_staging(false);
  int total = 0;
  for (int c = 0; c < kCallCount; ++c) {
    if (fired[c] == 0) fail_msg("%s was never reached", kCalls[c]);
    if (!recoverable(kCalls[c]) && failures[c] == 0) {
      fail_msg("%s: no failure observed", kCalls[c]);
    }
    total += failures[c];
  }
  print_message(
      "injected failures: %d over %d calls, all named the call, "
      "no leak, no validation error\n",
      total, (int)kCallCount);

  /* After a failed submission the backend refuses work (its results would
   * be wrong) and still destroys cleanly. */
  long errors = lg_vulkan_layer_errors();
  lg_gpu_backend* be = create_backend(NULL);
  float data[4] = {1, 2, 3, 4};
  lg_gpu_buffer* a = make_buffer(be, data, sizeof(data));
  lg_gpu_buffer* b = make_buffer(be, NULL, sizeof(data));
  lg_gpu_kernel* k = make_kernel(be, "copy", NULL);
  lg_gpu_arg args[] = {LG_GPU_ARG_BUFFER(a), LG_GPU_ARG_BUFFER(b),
                       LG_GPU_ARG_INT(4)};
  run_1d(be, k, args, 3, 4);
  lg_vulkan_fail_call("vkQueueSubmit", 1);
  assert_int_equal(be->ops->submit(be, &error), kTfLiteError);
  lg_vulkan_fail_call(NULL, 0);
  assert_non_null(strstr(error.message,
                         "vkQueueSubmit failed: "
                         "VK_ERROR_DEVICE_LOST"));
  assert_int_equal(lg_gpu_buffer_download(be, b, 0, data, sizeof(data), &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "unusable"));
  assert_non_null(strstr(error.message, "vkQueueSubmit"));
  assert_int_equal(be->ops->finish(be, &error), kTfLiteError);
  size_t global[1] = {4};
  assert_int_equal(lg_gpu_dispatch(be, k, args, 3, 1, global, NULL, &error),
                   kTfLiteError);
  be->ops->kernel_release(be, k);
  be->ops->buffer_release(be, b);
  be->ops->buffer_release(be, a);
  destroy_clean(be, errors);
  lg_test_clear_dir(dir);
}

/* ---- Timing ------------------------------------------------------------- */

/* Median microseconds of upload 4 KB + binary add + download 4 KB. */
static double round_trip_us(bool staged) {
  enum { kN = 1024, kRuns = 200, kWarm = 20 };
  lg_vulkan_force_staging(staged);
  lg_gpu_backend* be = create_backend_with(NULL, false);
  float a[kN], b[kN], out[kN];
  fill_values(a, kN, 7, -1.0f, 1.0f);
  fill_values(b, kN, 8, -1.0f, 1.0f);
  lg_gpu_buffer* ba = make_buffer(be, a, sizeof(a));
  lg_gpu_buffer* bb = make_buffer(be, b, sizeof(b));
  lg_gpu_buffer* bo = make_buffer(be, NULL, sizeof(out));
  lg_gpu_kernel* k = make_kernel(be, "binary", "-DLG_OP=0 -DLG_BCAST=0");
  lg_gpu_arg args[19];
  binary_flat_args(ba, bb, bo, kN, args);
  lg_gpu_error error = {{0}};
  double times[kRuns];
  for (int r = 0; r < kWarm + kRuns; ++r) {
    a[0] = (float)r;
    double start = lg_now_seconds();
    assert_int_equal(lg_gpu_buffer_upload(be, ba, 0, a, sizeof(a), &error),
                     kTfLiteOk);
    run_1d(be, k, args, 19, kN);
    download(be, bo, out, sizeof(out));
    if (r >= kWarm) times[r - kWarm] = (lg_now_seconds() - start) * 1e6;
    assert_true(out[0] == a[0] + b[0]);
  }
  for (int i = 0; i < kN; ++i) assert_true(out[i] == a[i] + b[i]);
  qsort(times, kRuns, sizeof(times[0]), compare_doubles);
  be->ops->kernel_release(be, k);
  be->ops->buffer_release(be, bo);
  be->ops->buffer_release(be, bb);
  be->ops->buffer_release(be, ba);
  lg_gpu_backend_destroy(be);
  lg_vulkan_force_staging(false);
  return times[kRuns / 2];
}

static void test_timing(void** state) {
  (void)state;
  double direct = round_trip_us(false), staged = round_trip_us(true);
  print_message(
      "round trip (upload 4 KB, binary add, download 4 KB), "
      "median of 200: %.1f us direct, %.1f us staged\n",
      direct, staged);
  /* Cold and warm pipeline creation through the cache file. */
  char dir[512];
  make_dir(dir, sizeof(dir), "timing");
  double kernel_s[2];
  lg_vulkan_stats s[2];
  for (int round = 0; round < 2; ++round) {
    lg_gpu_backend* be = create_backend_with(dir, false);
    double start = lg_now_seconds();
    lg_gpu_kernel* k = make_kernel(be, "unary", "-DLG_OP=18");
    kernel_s[round] = lg_now_seconds() - start;
    s[round] = stats_of(be);
    be->ops->kernel_release(be, k);
    lg_gpu_backend_destroy(be);
  }
  assert_int_equal(s[0].cache_writes, 1);
  assert_int_equal(s[1].cache_loads, 1);
  print_message(
      "pipeline creation (unary gelu): cold %.2f ms "
      "(kernel_create %.2f ms), warm %.2f ms (kernel_create "
      "%.2f ms), driver cache hits %llu\n",
      (double)s[0].pipeline_create_ns * 1e-6, kernel_s[0] * 1e3,
      (double)s[1].pipeline_create_ns * 1e-6, kernel_s[1] * 1e3,
      (unsigned long long)s[1].pipeline_cache_hits);
  lg_test_clear_dir(dir);
  assert_int_equal(lg_vulkan_live_objects(), 0);
}

/* ---- Half precision ----------------------------------------------------- */

/* out = a + b (binary, flat, no clamp) over n elements of `elem` bytes. */
static void add_flat(lg_gpu_backend* be, const void* a, const void* b,
                     void* out, int n, size_t elem) {
  lg_gpu_buffer* ba = make_buffer(be, a, (size_t)n * elem);
  lg_gpu_buffer* bb = make_buffer(be, b, (size_t)n * elem);
  lg_gpu_buffer* bo = make_buffer(be, NULL, (size_t)n * elem);
  lg_gpu_kernel* k = make_kernel(be, "binary", "-DLG_OP=0");
  lg_gpu_arg args[19];
  binary_flat_args(ba, bb, bo, n, args);
  run_1d(be, k, args, 19, (size_t)n);
  download(be, bo, out, (size_t)n * elem);
  be->ops->kernel_release(be, k);
  be->ops->buffer_release(be, bo);
  be->ops->buffer_release(be, bb);
  be->ops->buffer_release(be, ba);
}

static void to_half(const float* f, uint16_t* h, int n) {
  for (int i = 0; i < n; ++i) h[i] = lg_fp32_to_fp16(f[i]);
}

/* Half-precision kernels on float16 buffers: ADD (float16 arithmetic),
 * CAST from and to float16 (16-bit lanes of words), the expected values
 * derived by hand; without allow_fp16 the same ADD stays float32. */
static void fp16_kernels(void) {
  long errors = lg_vulkan_layer_errors();
  lg_gpu_backend* be = create_backend_fp16(NULL, true, false);
  if (!be->device.fp16) {
    fail_msg(
        "'%s' reports no shaderFloat16 with storageBuffer16BitAccess "
        "(lavapipe does)",
        be->device.name);
  }
  assert_false(be->fp16_storage); /* not allowed: float32 */
  const float a32[2] = {1024.0f, 3.0f}, b32[2] = {0.5f, 0.25f};
  float sum32[2];
  add_flat(be, a32, b32, sum32, 2, sizeof(float));
  assert_true(sum32[0] == 1024.5f && sum32[1] == 3.25f); /* not in half */
  destroy_clean(be, errors);

  /* Allowed on a device without the features: float32 (and the device is
   * created without them, which the validation layer holds us to). */
  lg_vulkan_hide_fp16(true);
  be = create_backend_fp16(NULL, true, true);
  lg_vulkan_hide_fp16(false);
  assert_false(be->device.fp16);
  assert_false(be->fp16_storage);
  sum32[0] = sum32[1] = 0.0f;
  add_flat(be, a32, b32, sum32, 2, sizeof(float));
  assert_true(sum32[0] == 1024.5f && sum32[1] == 3.25f);
  destroy_clean(be, errors);

  be = create_backend_fp16(NULL, true, true);
  assert_true(be->fp16_storage);
  /* Sums rounded to half: 1024.5 and 2049 are ties that go to the even
   * 1024 and 2048 (and toward zero alike); 0.1h + 0.2h = 0.2999267578125
   * is a tie between 0.2998046875 and 0.30004882812 (even: the first);
   * 65504 + 65504 overflows: inf (65504 on a device that rounds toward
   * zero). 11 elements: a partial last word. */
  enum { kN = 11 };
  const float a[kN] = {1.5f,    -2.25f, 1024.0f, 0.1f,  65504.0f, 3.0f,
                       2048.0f, 0.5f,   6.5f,    -7.0f, 0.0f};
  const float b[kN] = {0.25f, 0.75f, 0.5f, 0.2f, 65504.0f, -1.5f,
                       1.0f,  0.25f, 1.0f, 2.0f, -0.0f};
  const float want[kN] = {1.75f,    -1.5f, 1024.0f, 0.2998046875f,
                          INFINITY, 1.5f,  2048.0f, 0.75f,
                          7.5f,     -5.0f, 0.0f};
  uint16_t ha[kN], hb[kN], hsum[kN];
  to_half(a, ha, kN);
  to_half(b, hb, kN);
  add_flat(be, ha, hb, hsum, kN, sizeof(uint16_t));
  for (int i = 0; i < kN; ++i) {
    const float got = lg_fp16_to_fp32(hsum[i]);
    if (!(got == want[i] || (i == 4 && got == 65504.0f))) {
      fail_msg("fp16 add: index %d got %.9g want %.9g", i, (double)got,
               (double)want[i]);
    }
  }
  /* CAST: int32 -> float16 (2049, 4097: ties and a round to 4096), float16
   * -> int32 (truncation) and -> bool; 13 elements. */
  const int32_t ints[13] = {0, 1,     -1,    2049, 4097, -7, 1000,
                            3, 65504, -2048, 5,    6,    7};
  const float ints_as_half[13] = {0, 1,     -1,    2048, 4096, -7, 1000,
                                  3, 65504, -2048, 5,    6,    7};
  const float halves[13] = {1.5f,     -2.5f,  1000.0f, 0.1f,  -0.5f,
                            65504.0f, 0.0f,   -0.0f,   7.75f, -8.0f,
                            0.25f,    100.5f, -3.0f};
  const int32_t halves_as_int[13] = {1, -2, 1000, 0, 0,   65504, 0,
                                     0, 7,  -8,   0, 100, -3};
  const unsigned char halves_as_bool[13] = {1, 1, 1, 1, 1, 1, 0,
                                            0, 1, 1, 1, 1, 1};
  uint16_t want_half[13], hsrc[13];
  to_half(ints_as_half, want_half, 13);
  to_half(halves, hsrc, 13);
  run_cast(be, "-DLG_SRC=int -DLG_DST=float", ints, 4, want_half, 2);
  run_cast(be, "-DLG_SRC=float -DLG_DST=int", hsrc, 2, halves_as_int, 4);
  run_cast(be, "-DLG_SRC=float -DLG_DST=uchar -DLG_DST_BOOL", hsrc, 2,
           halves_as_bool, 1);
  destroy_clean(be, errors);
}

/* The float32 and the float16 build of one shader are cached in separate
 * files (their keys hash different SPIR-V), and each is found again. */
static void fp16_pipeline_cache(void) {
  char dir[512];
  make_dir(dir, sizeof(dir), "fp16");
  long errors = lg_vulkan_layer_errors();
  for (int round = 0; round < 2; ++round) {
    for (int fp16 = 0; fp16 <= 1; ++fp16) {
      lg_gpu_backend* be = create_backend_fp16(dir, true, fp16 != 0);
      lg_gpu_kernel* k = make_kernel(be, "binary", "-DLG_OP=2");
      const lg_vulkan_stats s = stats_of(be);
      be->ops->kernel_release(be, k);
      destroy_clean(be, errors);
      /* Cold: each precision writes its own file; warm: each loads it. */
      assert_int_equal(cache_files(dir, NULL, 0), round == 0 ? 1 + fp16 : 2);
      assert_int_equal(s.cache_loads, round == 0 ? 0u : 1u);
      assert_int_equal(s.cache_rejects, 0u);
    }
  }
}

static void test_fp16(void** state) {
  (void)state;
  fp16_kernels();
  fp16_pipeline_cache();
  assert_int_equal(lg_vulkan_live_objects(), 0);
}

/* ---- Texel reads -------------------------------------------------------- */

/* A 1x1 convolution (conv_1x1, one quad of output channels, 3 pixels per
 * invocation) of 7 pixels of `ic` channels to 2 channels, in[p][k] = p - k
 * and w[o][k] = (o + 1) * (k % 3 - 1), bias {0.5, -1}: small integers, so
 * every sum is exact in any order. */
static void conv_1x1_exact(lg_gpu_backend* be, int ic) {
  enum { kPixels = 7, kOc = 2 };
  float in[kPixels * 8], w[8 * 4] = {0}, bias[4] = {0.5f, -1.0f, 0, 0};
  float out[kPixels * kOc];
  for (int p = 0; p < kPixels; ++p) {
    for (int k = 0; k < ic; ++k) in[p * ic + k] = (float)(p - k);
  }
  for (int k = 0; k < ic; ++k) { /* packed [ic][4] */
    for (int o = 0; o < kOc; ++o) w[k * 4 + o] = (float)((o + 1) * (k % 3 - 1));
  }
  lg_gpu_buffer* bin = make_buffer(be, in, sizeof(float) * kPixels * ic);
  lg_gpu_buffer* bw = make_buffer(be, w, sizeof(float) * 4 * ic);
  lg_gpu_buffer* bb = make_buffer(be, bias, sizeof(bias));
  lg_gpu_buffer* bout = make_buffer(be, NULL, sizeof(out));
  lg_gpu_kernel* k =
      make_kernel(be, "conv_1x1", "-DLG_W=4 -DLG_NV=1 -DLG_PIX=3");
  lg_gpu_arg args[10];
  conv_1x1_args(bin, bw, bb, bout, kPixels, ic, kOc, args);
  const size_t global[2] = {3, 1};
  lg_gpu_error error = {{0}};
  assert_int_equal(lg_gpu_dispatch(be, k, args, 10, 2, global, NULL, &error),
                   kTfLiteOk);
  download(be, bout, out, sizeof(out));
  for (int p = 0; p < kPixels; ++p) {
    for (int o = 0; o < kOc; ++o) {
      float want = bias[o];
      for (int c = 0; c < ic; ++c)
        want += (float)((p - c) * (o + 1) * (c % 3 - 1));
      if (out[p * kOc + o] != want) {
        fail_msg("conv_1x1 ic %d pixel %d channel %d: got %g want %g", ic, p, o,
                 (double)out[p * kOc + o], (double)want);
      }
    }
  }
  be->ops->kernel_release(be, k);
  be->ops->buffer_release(be, bout);
  be->ops->buffer_release(be, bb);
  be->ops->buffer_release(be, bw);
  be->ops->buffer_release(be, bin);
}

/* Read-only tensors are texel buffers where the device allows it (lavapipe:
 * 2^27 texels, R32G32B32A32_SFLOAT uniform texel buffers) and storage
 * buffers when hidden; both give the same exact sums, with rows of 5
 * channels (scalar reads) and of 8 (quad reads), under the validation
 * layer. */
static void test_texel_reads(void** state) {
  (void)state;
  const lg_vk_shader* conv = lg_vulkan_shader_find("conv_1x1");
  const lg_vk_shader* copy = lg_vulkan_shader_find("copy");
  assert_non_null(conv);
  assert_non_null(copy);
  /* LG_TENSOR_IN in, w, bias, residual; the output a storage buffer. */
  assert_string_equal(conv->kinds, "tttst");
  assert_true(conv->code_texel != conv->code);
  assert_string_equal(copy->kinds, "ss"); /* raw bits: never texels */
  assert_true(copy->code_texel == copy->code);
  long errors = lg_vulkan_layer_errors();
  for (int hidden = 0; hidden < 2; ++hidden) {
    lg_vulkan_hide_texel_reads(hidden != 0);
    lg_gpu_backend* be = create_backend_with(NULL, true);
    lg_vulkan_hide_texel_reads(false);
    assert_int_equal(stats_of(be).texel_reads, hidden == 0);
    conv_1x1_exact(be, 5);
    conv_1x1_exact(be, 8);
    destroy_clean(be, errors);
  }
  assert_int_equal(lg_vulkan_live_objects(), 0);
}

/* ---- Main --------------------------------------------------------------- */

static int setup_temp(void** state) {
  (void)state;
  return lg_test_temp_root_create(temp_root, sizeof(temp_root),
                                  "lg_vulkan_test");
}

static int teardown_temp(void** state) {
  (void)state;
  lg_test_temp_root_remove(temp_root);
  return 0;
}

int main(void) {
  lg_test_hold_vulkan_libraries(); /* see tests/support/vulkan_hold.h */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pipeline_cache),
      cmocka_unit_test(test_kernels_prepare),
      cmocka_unit_test(test_injected_failures),
      cmocka_unit_test(test_timing),
      cmocka_unit_test(test_fp16),
      cmocka_unit_test(test_texel_reads),
  };
  int failed = cmocka_run_group_tests(tests, setup_temp, teardown_temp);
  return failed;
}
