/* The Vulkan backend (delegates/vulkan/) on the machine's Vulkan device
 * (Mesa's lavapipe on the project's machines), with the Khronos validation
 * layer on: any error a layer reports fails the test. Covers device info,
 * buffer round trips, ranges and ordering (direct and staged), every
 * shader against hand-computed or double-precision references (binary with
 * both broadcast modes and every activation, unary ops, cast, copy),
 * defines turned into specialization constants, argument checks, local
 * sizes and grids split past maxComputeWorkGroupCount. The pipeline cache,
 * injected failures, timing and half precision are in
 * test_vulkan_cache_faults.c, recordings in test_vulkan_recording.c; the
 * helpers they share in vulkan_test_support.{h,c}.
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

#include "delegates/vulkan/vulkan_backend.h"
#include "delegates/vulkan/vulkan_impl.h"
#include "delegates/vulkan/vulkan_internal.h"
#include "litegpu/async.h"
#include "tests/support/vulkan_hold.h"
#include "tests/unit/vulkan_test_support.h"

/* ---- Helpers ------------------------------------------------------------ */

/* got against ref: tol 0 means exactly (float)ref (NaN matches NaN);
 * otherwise |got - ref| <= tol * |ref| (relative). */
static bool close_enough(float got, double ref, double tol) {
  if (isnan(ref)) return isnan(got);
  if (tol == 0.0) return got == (float)ref;
  if (isinf(ref)) return (double)got == ref;
  return fabs((double)got - ref) <= tol * fabs(ref) + 1e-30;
}

/* ---- Device ------------------------------------------------------------- */

static void test_device_info(void** state) {
  (void)state;
  long errors = lg_vulkan_layer_errors();
  lg_gpu_backend* be = create_backend(NULL);
  const lg_gpu_device_info* d = &be->device;
  lg_vulkan_stats s = stats_of(be);
  print_message(
      "Vulkan device: %s | %s | %s | %s | mem %llu MiB | max "
      "buffer %llu MiB | wg %zu (%zux%zux%zu) | fp16 %d | align %u "
      "| subgroup %u | loop limit %u | creation feedback %d\n",
      d->name, d->vendor, d->driver_version, d->api_version,
      (unsigned long long)(d->global_memory_bytes >> 20),
      (unsigned long long)(d->max_buffer_bytes >> 20), d->max_work_group_size,
      d->max_work_item_sizes[0], d->max_work_item_sizes[1],
      d->max_work_item_sizes[2], (int)d->fp16, d->buffer_alignment,
      d->simd_width, d->max_loop_iterations, (int)s.creation_feedback);
  assert_string_equal(be->name, "Vulkan");
  assert_true(strlen(d->name) > 0);
  assert_non_null(strstr(d->vendor, "(0x"));
  assert_non_null(strstr(d->driver_version, "driverVersion 0x"));
  assert_int_equal(strncmp(d->api_version, "Vulkan 1.", 9), 0);
  assert_true(d->global_memory_bytes > 0);
  assert_true(d->max_buffer_bytes > 0);
  assert_int_equal(d->max_buffer_bytes % 4, 0);
  /* The spec's minimums: 128 invocations, 128 x 128 x 64. */
  assert_true(d->max_work_group_size >= 128);
  assert_true(d->max_work_item_sizes[0] >= 128);
  assert_true(d->max_work_item_sizes[1] >= 128);
  assert_true(d->max_work_item_sizes[2] >= 64);
  /* minStorageBufferOffsetAlignment: a power of two, at most 256. */
  assert_true(d->buffer_alignment >= 1 && d->buffer_alignment <= 256);
  assert_int_equal(d->buffer_alignment & (d->buffer_alignment - 1), 0);
  /* subgroupSize (Vulkan 1.1): at least 1, a power of two. */
  assert_true(d->simd_width >= 1);
  assert_int_equal(d->simd_width & (d->simd_width - 1), 0);
  /* llvmpipe (lavapipe) ends a shader's loops after 65535 iterations in
   * all; other drivers have no such limit. */
  assert_int_equal(d->max_loop_iterations,
                   strstr(d->name, "llvmpipe") != NULL ? 65535 : 0);
  /* The layer is really on and its errors are counted: a deliberately
   * invalid call (a 0-byte buffer) is reported once. */
  {
    lg_vk_impl* impl = be->impl;
    const VkBufferCreateInfo bad = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = 0,
        .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
    };
    VkBuffer buffer = VK_NULL_HANDLE;
    VkResult r = vkCreateBuffer(impl->device, &bad, NULL, &buffer);
    if (r == VK_SUCCESS) vkDestroyBuffer(impl->device, buffer, NULL);
    s = stats_of(be);
    assert_true(s.validation_errors >= 1);
    assert_true(lg_vulkan_layer_errors() > errors);
    assert_non_null(
        strstr(s.first_validation_error, "VUID-VkBufferCreateInfo-size"));
    print_message("deliberate error seen by the messenger: %.80s...\n",
                  s.first_validation_error);
    errors = lg_vulkan_layer_errors();
  }
  assert_int_equal(lg_vulkan_backend_stats(NULL, &s), kTfLiteError);
  /* Another backend's instance (its own ops table) is not Vulkan's. */
  static const lg_gpu_backend_ops kOtherOps = {0};
  lg_gpu_backend other = *be;
  other.ops = &kOtherOps;
  assert_int_equal(lg_vulkan_backend_stats(&other, &s), kTfLiteError);
  destroy_clean(be, errors);
  lg_gpu_backend_destroy(NULL);

  /* NULL options: device 0, no cache (validation only through the
   * environment). */
  lg_gpu_error error = {{0}};
  be = NULL;
  assert_int_equal(lg_vulkan_backend_create(NULL, &be, &error), kTfLiteOk);
  destroy_clean(be, errors);

  lg_gpu_backend_options options = {
      .device_index = 1000, .allow_fp16 = false, .cache_dir = NULL};
  be = (lg_gpu_backend*)&error; /* must be reset to NULL */
  assert_int_equal(lg_vulkan_backend_create(&options, &be, &error),
                   kTfLiteError);
  assert_null(be);
  assert_non_null(strstr(error.message, "device_index 1000 out of range"));
  options.device_index = -1;
  assert_int_equal(lg_vulkan_backend_create(&options, &be, NULL),
                   kTfLiteError); /* NULL error is allowed */
  assert_int_equal(lg_vulkan_backend_create(&options, NULL, &error),
                   kTfLiteError);
  assert_string_equal(lg_vk_result_name(VK_ERROR_DEVICE_LOST),
                      "VK_ERROR_DEVICE_LOST");
  assert_string_equal(lg_vk_result_name((VkResult)12345), "unknown VkResult");
  assert_int_equal(lg_vulkan_live_objects(), 0);
  assert_int_equal(lg_vulkan_layer_errors(), errors);
}

/* ---- Buffers ------------------------------------------------------------ */

static void buffer_round_trip(bool staged) {
  long errors = lg_vulkan_layer_errors();
  lg_vulkan_force_staging(staged);
  lg_gpu_backend* be = create_backend(NULL);
  const lg_gpu_backend_ops* ops = be->ops;
  lg_gpu_error error = {{0}};
  enum { kBytes = 4099 }; /* odd on purpose */
  unsigned char host[kBytes], back[kBytes];
  for (int i = 0; i < kBytes; ++i) host[i] = (unsigned char)(i * 7 + 3);
  lg_gpu_buffer* buf = make_buffer(be, host, kBytes);
  memset(back, 0, sizeof(back));
  download(be, buf, back, kBytes);
  assert_memory_equal(back, host, kBytes);

  /* Partial writes and reads at odd offsets. */
  unsigned char patch[37];
  memset(patch, 0xAB, sizeof(patch));
  assert_int_equal(
      lg_gpu_buffer_upload(be, buf, 1001, patch, sizeof(patch), &error),
      kTfLiteOk);
  memcpy(host + 1001, patch, sizeof(patch));
  download(be, buf, back, kBytes);
  assert_memory_equal(back, host, kBytes);
  unsigned char tail[5];
  assert_int_equal(lg_gpu_buffer_download(be, buf, kBytes - 5, tail, 5, &error),
                   kTfLiteOk);
  assert_memory_equal(tail, host + kBytes - 5, 5);
  assert_int_equal(lg_gpu_buffer_download(be, buf, kBytes, tail, 0, &error),
                   kTfLiteOk); /* empty range at the end */

  /* Out of range: past the end, offset beyond size, wrap-around. */
  assert_int_equal(lg_gpu_buffer_upload(be, buf, kBytes - 4, patch, 5, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "outside the 4099-byte buffer"));
  assert_int_equal(lg_gpu_buffer_download(be, buf, kBytes + 1, tail, 0, &error),
                   kTfLiteError);
  assert_int_equal(
      lg_gpu_buffer_download(be, buf, 8, tail, SIZE_MAX - 4, &error),
      kTfLiteError);
  assert_non_null(strstr(error.message, "buffer_download"));
  assert_int_equal(lg_gpu_buffer_upload(be, NULL, 0, patch, 1, &error),
                   kTfLiteError);
  assert_int_equal(lg_gpu_buffer_upload(be, buf, 0, NULL, 1, &error),
                   kTfLiteError);
  download(be, buf, back, kBytes); /* the failed calls changed nothing */
  assert_memory_equal(back, host, kBytes);

  lg_gpu_buffer* bad = (lg_gpu_buffer*)&error;
  assert_int_equal(ops->buffer_create(be, 0, &bad, &error), kTfLiteError);
  assert_null(bad);
  assert_int_equal(
      ops->buffer_create(be, (size_t)be->device.max_buffer_bytes + 1, &bad,
                         &error),
      kTfLiteError);
  assert_non_null(strstr(error.message, "maxStorageBufferRange"));
  lg_vulkan_stats s = stats_of(be);
  assert_int_equal(s.direct_memory, !staged && s.direct_uploads > 0);
  if (staged) {
    assert_int_equal(s.direct_uploads + s.direct_downloads, 0);
    assert_true(s.staged_uploads >= 2 && s.staged_downloads >= 4);
  }
  ops->buffer_release(be, buf);
  ops->buffer_release(be, NULL);
  ops->kernel_release(be, NULL);
  destroy_clean(be, errors);
  lg_vulkan_force_staging(false);
}

static void test_buffer_round_trip(void** state) {
  (void)state;
  buffer_round_trip(false);
  buffer_round_trip(true);
}

/* A staged buffer `a` holding `first`, a staged `c` that a recorded (not
 * submitted) copy dispatch fills from `a`, and a host-mapped `b` holding
 * `second`: n floats each. */
typedef struct copy_case {
  lg_gpu_buffer *a, *b, *c;
  lg_gpu_kernel* kernel;
} copy_case;

static copy_case record_copy(lg_gpu_backend* be, const float* first,
                             const float* second, int n) {
  const size_t bytes = (size_t)n * sizeof(float);
  copy_case cc;
  lg_vulkan_force_staging(true);
  cc.a = make_buffer(be, first, bytes);
  cc.c = make_buffer(be, NULL, bytes);
  lg_vulkan_force_staging(false);
  cc.b = make_buffer(be, second, bytes);
  cc.kernel = make_kernel(be, "copy", NULL);
  lg_gpu_arg ac[] = {LG_GPU_ARG_BUFFER(cc.a), LG_GPU_ARG_BUFFER(cc.c),
                     LG_GPU_ARG_INT(n)};
  lg_gpu_error error = {{0}};
  assert_int_equal(be->ops->finish(be, &error), kTfLiteOk);
  run_1d(be, cc.kernel, ac, 3, n);
  return cc;
}

static void copy_case_release(lg_gpu_backend* be, copy_case* cc) {
  be->ops->kernel_release(be, cc->kernel);
  be->ops->buffer_release(be, cc->c);
  be->ops->buffer_release(be, cc->b);
  be->ops->buffer_release(be, cc->a);
}

/* buffer_download_batch over a staged buffer that a pending dispatch
 * writes, a host-mapped one and a staged range, plus an empty copy: all
 * right after one submission; a bad entry is refused before any work. */
static void test_download_batch(void** state) {
  (void)state;
  long errors = lg_vulkan_layer_errors();
  lg_gpu_backend* be = create_backend(NULL);
  enum { kN = 1000 };
  float first[kN], second[kN], out_c[kN], out_b[kN], tail[3];
  fill_values(first, kN, 3, -1.0f, 1.0f);
  fill_values(second, kN, 4, 2.0f, 3.0f);
  copy_case cc = record_copy(be, first, second, kN);
  lg_gpu_buffer *a = cc.a, *b = cc.b, *c = cc.c;
  lg_gpu_error error = {{0}};
  const lg_vulkan_stats before = stats_of(be);
  const lg_gpu_download list[] = {
      {c, 0, out_c, sizeof(out_c)},
      {b, 0, out_b, sizeof(out_b)},
      {a, 0, tail, 0},
      {a, (kN - 3) * sizeof(float), tail, sizeof(tail)},
  };
  assert_int_equal(lg_gpu_buffer_download_batch(be, list, 4, &error),
                   kTfLiteOk);
  assert_memory_equal(out_c, first, sizeof(first));
  assert_memory_equal(out_b, second, sizeof(second));
  assert_memory_equal(tail, first + kN - 3, sizeof(tail));
  const lg_vulkan_stats after = stats_of(be);
  assert_int_equal(after.submits - before.submits, 1);
  assert_int_equal(after.staged_downloads - before.staged_downloads, 2);
  assert_int_equal(after.direct_downloads - before.direct_downloads, 1);

  const lg_gpu_download bad[] = {{b, 0, out_b, sizeof(out_b)},
                                 {c, 4, out_c, sizeof(out_c)}};
  assert_int_equal(lg_gpu_buffer_download_batch(be, bad, 2, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "outside the 4000-byte buffer"));
  assert_int_equal(lg_gpu_buffer_download_batch(be, NULL, 1, &error),
                   kTfLiteError);
  assert_int_equal(lg_gpu_buffer_download_batch(be, list, 0, &error),
                   kTfLiteOk);
  assert_int_equal(stats_of(be).submits, after.submits);
  copy_case_release(be, &cc);
  destroy_clean(be, errors);
}

/* download_begin: submits the pending dispatch and the readback and
 * returns; the bytes land at fence_wait (a staged and a host-mapped
 * buffer), a second wait is a no-op, and while the download is pending
 * another one (of the other buffer) has a readback buffer of its own:
 * waited for first, it leaves the first's bytes alone. */
static void test_download_begin(void** state) {
  (void)state;
  long errors = lg_vulkan_layer_errors();
  lg_gpu_backend* be = create_backend(NULL);
  enum { kN = 1000 };
  float first[kN], second[kN], out_c[kN], out_b[kN];
  fill_values(first, kN, 5, -1.0f, 1.0f);
  fill_values(second, kN, 6, 2.0f, 3.0f);
  copy_case cc = record_copy(be, first, second, kN);
  lg_gpu_buffer *b = cc.b, *c = cc.c;
  lg_gpu_error error = {{0}};
  memset(out_c, 0, sizeof(out_c));
  const lg_vulkan_stats before = stats_of(be);
  const lg_gpu_download list[] = {{c, 0, out_c, sizeof(out_c)},
                                  {b, 0, out_b, sizeof(out_b)}};
  lg_gpu_fence* fence = NULL;
  assert_int_equal(lg_gpu_download_begin(be, list, 2, &fence, &error),
                   kTfLiteOk);
  assert_non_null(fence);
  assert_int_equal(stats_of(be).submits - before.submits, 1);
  assert_int_equal(stats_of(be).staged_downloads, before.staged_downloads);
  const float zero[kN] = {0};
  assert_memory_equal(out_c, zero, sizeof(zero)); /* copied out at the wait */
  float again[kN];
  const lg_gpu_download list2[] = {{b, 0, again, sizeof(again)}};
  lg_gpu_fence* fence2 = NULL;
  assert_int_equal(lg_gpu_download_begin(be, list2, 1, &fence2, &error),
                   kTfLiteOk);
  assert_int_equal(be->ops->fence_wait(be, fence2, &error), kTfLiteOk);
  assert_memory_equal(again, second, sizeof(second));
  assert_memory_equal(out_c, zero, sizeof(zero)); /* not its wait */
  be->ops->fence_release(be, fence2);
  assert_int_equal(be->ops->fence_wait(be, fence, &error), kTfLiteOk);
  assert_memory_equal(out_c, first, sizeof(first));
  assert_memory_equal(out_b, second, sizeof(second));
  assert_int_equal(be->ops->fence_wait(be, fence, &error), kTfLiteOk);
  be->ops->fence_release(be, fence);
  be->ops->fence_release(be, NULL);
  assert_int_equal(be->ops->fence_wait(be, NULL, &error), kTfLiteError);

  /* Released without a wait: no longer pending. */
  assert_int_equal(lg_gpu_download_begin(be, list, 1, &fence, &error),
                   kTfLiteOk);
  be->ops->fence_release(be, fence);
  assert_int_equal(lg_gpu_buffer_download_batch(be, list, 1, &error),
                   kTfLiteOk);
  assert_memory_equal(out_c, first, sizeof(first));
  const lg_gpu_download bad[] = {{c, 4, out_c, sizeof(out_c)}};
  assert_int_equal(lg_gpu_download_begin(be, bad, 1, &fence, &error),
                   kTfLiteError);
  assert_null(fence);
  assert_non_null(strstr(error.message, "outside the 4000-byte buffer"));
  copy_case_release(be, &cc);
  destroy_clean(be, errors);
}

/* The async kernel's timeline points: refused, saying why, on a device
 * without timeline semaphores (hidden here), and without a VkSemaphore on
 * one that has them (lavapipe). */
static void test_timeline_refusals(void** state) {
  (void)state;
  long errors = lg_vulkan_layer_errors();
  litegpu_vk_timeline_point point = {0, 1};
  lg_gpu_error error = {{0}};
  lg_vulkan_hide_timeline(true);
  lg_gpu_backend* be = create_backend(NULL);
  lg_vulkan_hide_timeline(false);
  assert_int_equal(
      be->ops->sync_wait_input(be, LITEGPU_SYNC_TYPE_VK_TIMELINE_SEMAPHORE,
                               &point, false, true, &error),
      kTfLiteError);
  assert_non_null(strstr(error.message, "has no timeline semaphores"));
  error.message[0] = '\0';
  assert_int_equal(be->ops->sync_signal_output(be, &point, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "has no timeline semaphores"));
  destroy_clean(be, errors);

  be = create_backend(NULL);
  assert_int_equal(be->ops->sync_signal_output(be, &point, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "has no VkSemaphore"));
  destroy_clean(be, errors);
}

/* Uploads are ordered with dispatches: copy A->B, overwrite A, copy A->C,
 * all recorded before one finish, must leave the old A in B. */
static void upload_ordering(bool staged) {
  long errors = lg_vulkan_layer_errors();
  lg_vulkan_force_staging(staged);
  lg_gpu_backend* be = create_backend(NULL);
  enum { kN = 1000 };
  float first[kN], second[kN], out_b[kN], out_c[kN];
  fill_values(first, kN, 1, -1.0f, 1.0f);
  fill_values(second, kN, 2, 5.0f, 6.0f);
  lg_gpu_buffer* a = make_buffer(be, first, sizeof(first));
  lg_gpu_buffer* b = make_buffer(be, NULL, sizeof(first));
  lg_gpu_buffer* c = make_buffer(be, NULL, sizeof(first));
  lg_gpu_kernel* k = make_kernel(be, "copy", NULL);
  lg_gpu_arg ab[] = {LG_GPU_ARG_BUFFER(a), LG_GPU_ARG_BUFFER(b),
                     LG_GPU_ARG_INT(kN)};
  lg_gpu_arg ac[] = {LG_GPU_ARG_BUFFER(a), LG_GPU_ARG_BUFFER(c),
                     LG_GPU_ARG_INT(kN)};
  lg_gpu_error error = {{0}};
  run_1d(be, k, ab, 3, kN);
  assert_int_equal(
      lg_gpu_buffer_upload(be, a, 0, second, sizeof(second), &error),
      kTfLiteOk);
  run_1d(be, k, ac, 3, kN);
  assert_int_equal(be->ops->submit(be, &error), kTfLiteOk);
  /* Recording after a submission, before the finish. */
  assert_int_equal(lg_gpu_buffer_upload(be, a, 0, first, sizeof(first), &error),
                   kTfLiteOk);
  assert_int_equal(be->ops->finish(be, &error), kTfLiteOk);
  download(be, b, out_b, sizeof(out_b));
  download(be, c, out_c, sizeof(out_c));
  assert_memory_equal(out_b, first, sizeof(first));
  assert_memory_equal(out_c, second, sizeof(second));
  download(be, a, out_c, sizeof(out_c));
  assert_memory_equal(out_c, first, sizeof(first));
  lg_vulkan_stats s = stats_of(be);
  assert_true(s.staged_uploads >= 2);
  assert_true(s.submits >= 2);
  be->ops->kernel_release(be, k);
  be->ops->buffer_release(be, c);
  be->ops->buffer_release(be, b);
  be->ops->buffer_release(be, a);
  destroy_clean(be, errors);
  lg_vulkan_force_staging(false);
}

static void test_upload_ordering(void** state) {
  (void)state;
  upload_ordering(false);
  upload_ordering(true);
}

/* ---- binary ------------------------------------------------------------- */

enum {
  kOpAdd,
  kOpSub,
  kOpMul,
  kOpDiv,
  kOpMax,
  kOpMin,
  kOpSqDiff,
  kOpPrelu,
  kOpPow,
  kOpCount
};

/* The op as the shader computes it: float operations where Vulkan rounds
 * them exactly (+, -, *, comparisons), double where it allows error. */
static double binary_ref(int op, float x, float y) {
  switch (op) {
    case kOpSub:
      return (double)(x - y);
    case kOpMul:
      return (double)(x * y);
    case kOpDiv:
      return (double)x / (double)y;
    case kOpMax:
      return (double)(x > y ? x : y);
    case kOpMin:
      return (double)(x < y ? x : y);
    case kOpSqDiff: {
      const float d = x - y;
      return (double)(d * d);
    }
    case kOpPrelu:
      return (double)(x >= 0.0f ? x : y * x);
    case kOpPow:
      return pow((double)x, (double)y);
    default:
      return (double)(x + y);
  }
}

/* Vulkan: x / y within 2.5 ulp; pow computed through exp and log. */
static double binary_tol(int op) {
  return op == kOpDiv ? 1e-6 : op == kOpPow ? 1e-5 : 0.0;
}

typedef struct binary_case {
  int bcast;    /* 0: flat (modulo), 1: 4-D strides */
  int32_t o[4]; /* output dims */
  int32_t a[4]; /* operand dims (1 = broadcast) */
  int32_t b[4];
} binary_case;

static int32_t dims_count(const int32_t d[4]) {
  return d[0] * d[1] * d[2] * d[3];
}

/* Row-major strides of `d` within the output, 0 where broadcast. */
static void strides_of(const int32_t d[4], int32_t s[4]) {
  int32_t step = 1;
  for (int i = 3; i >= 0; --i) {
    s[i] = d[i] == 1 ? 0 : step;
    step *= d[i];
  }
}

/* Runs binary with one op / activation on one case; checks every output
 * and the guard floats after it. act: 0 none, 1 relu, 2 relu6,
 * 3 relu_n1_to_1, 4 tanh. */
static void run_binary(lg_gpu_backend* be, const binary_case* c, int op,
                       int act, const float* va, const float* vb) {
  enum { kGuard = 8 };
  const float sentinel = -12345.0f;
  const int32_t n = dims_count(c->o), na = dims_count(c->a),
                nb = dims_count(c->b);
  float* out = malloc((size_t)(n + kGuard) * sizeof(float));
  assert_non_null(out);
  for (int i = 0; i < n + kGuard; ++i) out[i] = sentinel;
  static const float los[] = {-FLT_MAX, 0.0f, 0.0f, -1.0f, -FLT_MAX};
  static const float his[] = {FLT_MAX, FLT_MAX, 6.0f, 1.0f, FLT_MAX};
  int32_t sa[4], sb[4];
  strides_of(c->a, sa);
  strides_of(c->b, sb);
  char defines[96];
  snprintf(defines, sizeof(defines), "-DLG_OP=%d -DLG_BCAST=%d %s", op,
           c->bcast, act == 4 ? "-DLG_ACT_TANH" : "");
  lg_gpu_buffer* ba = make_buffer(be, va, (size_t)na * sizeof(float));
  lg_gpu_buffer* bb = make_buffer(be, vb, (size_t)nb * sizeof(float));
  lg_gpu_buffer* bo = make_buffer(be, out, (size_t)(n + kGuard) * 4);
  lg_gpu_kernel* k = make_kernel(be, "binary", defines);
  const lg_gpu_arg args[] = {
      LG_GPU_ARG_BUFFER(ba),      LG_GPU_ARG_BUFFER(bb),
      LG_GPU_ARG_BUFFER(bo),      LG_GPU_ARG_INT(n),
      LG_GPU_ARG_INT(na),         LG_GPU_ARG_INT(nb),
      LG_GPU_ARG_FLOAT(los[act]), LG_GPU_ARG_FLOAT(his[act]),
      LG_GPU_ARG_INT(c->o[1]),    LG_GPU_ARG_INT(c->o[2]),
      LG_GPU_ARG_INT(c->o[3]),    LG_GPU_ARG_INT(sa[0]),
      LG_GPU_ARG_INT(sa[1]),      LG_GPU_ARG_INT(sa[2]),
      LG_GPU_ARG_INT(sa[3]),      LG_GPU_ARG_INT(sb[0]),
      LG_GPU_ARG_INT(sb[1]),      LG_GPU_ARG_INT(sb[2]),
      LG_GPU_ARG_INT(sb[3])};
  run_1d(be, k, args, (int)(sizeof(args) / sizeof(args[0])), (size_t)n);
  download(be, bo, out, (size_t)(n + kGuard) * 4);
  for (int32_t i = 0; i < n; ++i) {
    int32_t ia, ib;
    if (c->bcast) {
      const int32_t i3 = i % c->o[3], i2 = (i / c->o[3]) % c->o[2];
      const int32_t i1 = (i / (c->o[3] * c->o[2])) % c->o[1];
      const int32_t i0 = i / (c->o[3] * c->o[2] * c->o[1]);
      ia = i0 * sa[0] + i1 * sa[1] + i2 * sa[2] + i3 * sa[3];
      ib = i0 * sb[0] + i1 * sb[1] + i2 * sb[2] + i3 * sb[3];
    } else {
      ia = i % na;
      ib = i % nb;
    }
    double ref = binary_ref(op, va[ia], vb[ib]);
    double tol = binary_tol(op);
    /* The clamp lets NaN through; tanh then applies to the float. */
    if (ref < los[act]) ref = los[act];
    if (ref > his[act]) ref = his[act];
    if (act == 4) {
      ref = tanh((double)(float)ref);
      tol = tol > 1e-5 ? tol : 1e-5;
    }
    if (!close_enough(out[i], ref, tol)) {
      fail_msg("binary %s: index %d got %.9g want %.9g (a %.9g b %.9g)",
               defines, i, (double)out[i], ref, (double)va[ia], (double)vb[ib]);
    }
  }
  for (int i = n; i < n + kGuard; ++i) {
    if (out[i] != sentinel) fail_msg("binary %s wrote guard %d", defines, i);
  }
  be->ops->kernel_release(be, k);
  be->ops->buffer_release(be, bo);
  be->ops->buffer_release(be, bb);
  be->ops->buffer_release(be, ba);
  free(out);
}

static void test_binary(void** state) {
  (void)state;
  long errors = lg_vulkan_layer_errors();
  lg_gpu_backend* be = create_backend(NULL);
  static const binary_case cases[] = {
      {0, {1, 1, 1, 1003}, {1, 1, 1, 1003}, {1, 1, 1, 1003}}, /* same */
      {0, {1, 1, 1, 1003}, {1, 1, 1, 1003}, {1, 1, 1, 1}},    /* scalar */
      {0, {1, 7, 11, 13}, {1, 7, 11, 13}, {1, 1, 1, 13}},     /* trailing */
      {1, {2, 3, 4, 5}, {2, 1, 4, 1}, {1, 3, 1, 5}},          /* general */
  };
  float a[1003], b[1003];
  for (int op = 0; op < kOpCount; ++op) {
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
      if (op == kOpPow) {
        fill_values(a, 1003, 11u + (uint32_t)c, 0.25f, 4.0f);
        fill_values(b, 1003, 12u + (uint32_t)c, -3.0f, 3.0f);
      } else {
        fill_values(a, 1003, 21u + (uint32_t)c, -8.0f, 8.0f);
        fill_values(b, 1003, 22u + (uint32_t)c, -4.0f, 4.0f);
      }
      /* Division away from 0; a NaN to see it pass through the op. */
      if (op == kOpDiv) {
        for (int i = 0; i < 1003; ++i)
          b[i] = b[i] < 0 ? b[i] - 0.5f : b[i] + 0.5f;
      }
      a[3] = NAN;
      run_binary(be, &cases[c], op, c == 0 ? 4 : 0, a, b);
    }
  }
  /* Every activation on add and mul, flat and general. */
  for (int act = 0; act <= 4; ++act) {
    fill_values(a, 1003, 31u, -8.0f, 8.0f);
    fill_values(b, 1003, 32u, -4.0f, 4.0f);
    run_binary(be, &cases[0], kOpAdd, act, a, b);
    run_binary(be, &cases[3], kOpMul, act, a, b);
  }
  /* pow's special cases: negative bases with integral exponents, zeros,
   * ones. */
  static const float pa[] = {-2.0f, -2.0f, -3.0f, 0.0f, 0.0f, 1.0f, -1.5f,
                             2.0f,  10.0f, -0.5f, 4.0f, 0.5f, 7.0f};
  static const float pb[] = {3.0f, 2.0f,  -1.0f, 2.0f, -1.0f, NAN, 0.5f,
                             0.0f, 10.0f, 5.0f,  0.5f, -2.0f, 1.0f};
  const binary_case special = {0, {1, 1, 1, 13}, {1, 1, 1, 13}, {1, 1, 1, 13}};
  run_binary(be, &special, kOpPow, 0, pa, pb);
  destroy_clean(be, errors);
}

/* ---- unary -------------------------------------------------------------- */

/* 0.5 x (1 + tanh u) written as x / (1 + e^(-2u)): the same function
 * without the cancellation that loses digits for negative x even in
 * double. */
static double gelu_tanh_ref(double x) {
  const double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
  return x / (1.0 + exp(-2.0 * u));
}

/* The reference of unary op `op` (double); exact ops mirror the float
 * expression. */
static double unary_ref(int op, float v, float alpha) {
  switch (op) {
    case 1:
      return tanh((double)v);
    case 2:
      return v < 0.0f ? 0.0 : (double)v;
    case 3:
      return v < 0.0f ? 0.0 : (v > 6.0f ? 6.0 : (double)v);
    case 4:
      return v < -1.0f ? -1.0 : (v > 1.0f ? 1.0 : (double)v);
    case 5:
      return exp((double)v);
    case 6:
      return -(double)v;
    case 7:
      return fabs((double)v);
    case 8:
      return sqrt((double)v);
    case 9:
      return (double)(v * v);
    case 10:
      return log((double)v);
    case 11:
      return 1.0 / sqrt((double)v);
    case 12:
      return sin((double)v);
    case 13:
      return cos((double)v);
    case 14:
      return floor((double)v);
    case 15:
      return v < 0.0f ? expm1((double)v) : (double)v;
    case 16: {
      double t = (double)v + 3.0;
      t = t < 0.0 ? 0.0 : (t > 6.0 ? 6.0 : t);
      return (double)v * t / 6.0;
    }
    case 17:
      return gelu_tanh_ref((double)v);
    case 18:
      return 0.5 * (double)v * erfc(-(double)v / sqrt(2.0));
    case 19:
      return v < 0.0f ? (double)(alpha * v) : (double)v;
    default:
      return 1.0 / (1.0 + exp(-(double)v));
  }
}

static void test_unary(void** state) {
  (void)state;
  long errors = lg_vulkan_layer_errors();
  lg_gpu_backend* be = create_backend(NULL);
  enum { kN = 1001, kGuard = 8 };
  const float sentinel = -12345.0f, alpha = 0.2f;
  float x[kN], out[kN + kGuard];
  for (int op = 0; op <= 19; ++op) {
    /* Domains: logs and roots positive, the rest around 0. */
    const bool positive = op == 8 || op == 10 || op == 11;
    fill_values(x, kN, 100u + (uint32_t)op, positive ? 1e-3f : -7.0f,
                positive ? 50.0f : 7.0f);
    x[0] = 0.0f;
    x[1] = positive ? 1.0f : -0.001f;
    x[2] = positive ? 1.0001f : 1e-4f;
    x[3] = NAN;
    for (int i = 0; i < kN + kGuard; ++i) out[i] = sentinel;
    char defines[32];
    snprintf(defines, sizeof(defines), "-DLG_OP=%d", op);
    lg_gpu_buffer* bx = make_buffer(be, x, sizeof(x));
    lg_gpu_buffer* bo = make_buffer(be, out, sizeof(out));
    lg_gpu_kernel* k = make_kernel(be, "unary", defines);
    const lg_gpu_arg args[] = {LG_GPU_ARG_BUFFER(bx), LG_GPU_ARG_BUFFER(bo),
                               LG_GPU_ARG_INT(kN), LG_GPU_ARG_FLOAT(alpha)};
    run_1d(be, k, args, 4, kN);
    download(be, bo, out, sizeof(out));
    /* Exact where the float ops are exact; sqrt / division within a few
     * ulp; the transcendental ones 1e-5 relative. */
    const bool exact = op == 2 || op == 3 || op == 4 || op == 6 || op == 7 ||
                       op == 9 || op == 14 || op == 19;
    const double tol = exact                               ? 0.0
                       : (op == 8 || op == 11 || op == 16) ? 1e-6
                                                           : 1e-5;
    double worst = 0.0;
    for (int i = 0; i < kN; ++i) {
      double ref = unary_ref(op, x[i], alpha);
      if (!close_enough(out[i], ref, tol)) {
        fail_msg("unary LG_OP=%d: index %d x %.9g got %.9g want %.9g", op, i,
                 (double)x[i], (double)out[i], ref);
      }
      if (!isnan(ref) && ref != 0.0) {
        double rel = fabs((double)out[i] - ref) / fabs(ref);
        if (rel > worst) worst = rel;
      }
    }
    if (!exact)
      print_message("unary LG_OP=%d: worst relative error %.2g\n", op, worst);
    for (int i = kN; i < kN + kGuard; ++i) {
      if (out[i] != sentinel) fail_msg("unary LG_OP=%d wrote guard %d", op, i);
    }
    be->ops->kernel_release(be, k);
    be->ops->buffer_release(be, bo);
    be->ops->buffer_release(be, bx);
  }
  destroy_clean(be, errors);
}

/* ---- cast and copy ------------------------------------------------------ */

static void test_cast_and_copy(void** state) {
  (void)state;
  long errors = lg_vulkan_layer_errors();
  lg_gpu_backend* be = create_backend(NULL);
  static const float f[13] = {0.0f, -0.0f, 1.5f,  -1.5f, 2.99f,  -2.99f, NAN,
                              1e6f, 7.0f,  -8.0f, 0.25f, 100.9f, -0.1f};
  static const int32_t f_to_i[13] = {0,       0, 1,  -1, 2,   -2, 0,
                                     1000000, 7, -8, 0,  100, 0};
  static const unsigned char f_to_b[13] = {0, 0, 1, 1, 1, 1, 1,
                                           1, 1, 1, 1, 1, 1};
  static const int32_t i[13] = {0,   1, -1,        2,         16777217, -5, 255,
                                256, 7, INT32_MIN, INT32_MAX, 3,        0};
  float i_to_f[13];
  unsigned char i_to_b[13];
  for (int e = 0; e < 13; ++e) {
    i_to_f[e] = (float)i[e];
    i_to_b[e] = i[e] != 0;
  }
  static const unsigned char b[13] = {0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1};
  float b_to_f[13];
  int32_t b_to_i[13];
  for (int e = 0; e < 13; ++e) {
    b_to_f[e] = (float)b[e];
    b_to_i[e] = b[e];
  }
  /* f_to_i[6]: NaN to int is undefined in C; use a defined value. */
  float f_defined[13];
  memcpy(f_defined, f, sizeof(f));
  f_defined[6] = 0.5f;
  /* The defines exactly as the GPU lowering writes them. */
  run_cast(be, "-DLG_SRC=float -DLG_DST=int", f_defined, 4, f_to_i, 4);
  run_cast(be, "-DLG_SRC=float -DLG_DST=uchar -DLG_DST_BOOL", f, 4, f_to_b, 1);
  run_cast(be, "-DLG_SRC=int -DLG_DST=float", i, 4, i_to_f, 4);
  run_cast(be, "-DLG_SRC=int -DLG_DST=uchar -DLG_DST_BOOL", i, 4, i_to_b, 1);
  run_cast(be, "-DLG_SRC=uchar -DLG_DST=float", b, 1, b_to_f, 4);
  run_cast(be, "-DLG_SRC=uchar -DLG_DST=int", b, 1, b_to_i, 4);
  run_cast(be, NULL, i, 4, i_to_f, 4); /* defaults: int to float */

  /* copy on sizes around the work-group size and one large one. */
  static const size_t sizes[] = {1, 3, 255, 256, 257, 1000003};
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
    const size_t n = sizes[s];
    float* src = malloc(n * sizeof(float));
    float* dst = malloc((n + 4) * sizeof(float));
    assert_true(src != NULL && dst != NULL);
    fill_values(src, n, (uint32_t)n, -100.0f, 100.0f);
    for (size_t e = 0; e < n + 4; ++e) dst[e] = -1.0f;
    lg_gpu_buffer* bs = make_buffer(be, src, n * sizeof(float));
    lg_gpu_buffer* bd = make_buffer(be, dst, (n + 4) * sizeof(float));
    lg_gpu_kernel* k = make_kernel(be, "copy", NULL);
    const lg_gpu_arg args[] = {LG_GPU_ARG_BUFFER(bs), LG_GPU_ARG_BUFFER(bd),
                               LG_GPU_ARG_INT((int32_t)n)};
    run_1d(be, k, args, 3, n);
    download(be, bd, dst, (n + 4) * sizeof(float));
    assert_memory_equal(dst, src, n * sizeof(float));
    for (size_t e = n; e < n + 4; ++e) assert_true(dst[e] == -1.0f);
    be->ops->kernel_release(be, k);
    be->ops->buffer_release(be, bd);
    be->ops->buffer_release(be, bs);
    free(dst);
    free(src);
  }
  destroy_clean(be, errors);
}

/* ---- Defines and arguments ---------------------------------------------- */

static void expect_kernel_error(lg_gpu_backend* be, const char* name,
                                const char* defines, const char* needle) {
  lg_gpu_kernel* k = (lg_gpu_kernel*)&needle;
  lg_gpu_error error = {{0}};
  assert_int_equal(be->ops->kernel_create(be, name, defines, &k, &error),
                   kTfLiteError);
  assert_null(k);
  if (strstr(error.message, needle) == NULL) {
    fail_msg("kernel_create(%s, %s): '%s' lacks '%s'", name, defines,
             error.message, needle);
  }
}

static void test_defines(void** state) {
  (void)state;
  long errors = lg_vulkan_layer_errors();
  lg_gpu_backend* be = create_backend(NULL);
  /* Same shader, different specialization constants. */
  assert_true(specialized_result(be, NULL) == 5.0f);
  assert_true(specialized_result(be, "-DLG_OP=2") == 6.0f);
  assert_true(specialized_result(be, "  -DLG_OP=0x1\t") == -1.0f);
  assert_true(specialized_result(be, "-DLG_OP=1 -DLG_OP=4") == 3.0f);
  assert_true(specialized_result(be, "-DLG_OP=5 -DLG_BCAST=0") == 2.0f);
  /* A flag define means 1: tanh(5). */
  assert_true(fabs(specialized_result(be, "-DLG_ACT_TANH") - tanh(5.0)) < 1e-6);
  expect_kernel_error(be, "binary", "-DLG_OP=2 -DLG_NOPE=1",
                      "no specialization constant named 'LG_NOPE'");
  expect_kernel_error(be, "binary", "-DLG_NOPE", "LG_OP LG_BCAST LG_ACT_TANH");
  expect_kernel_error(be, "copy", "-DLG_OP=1", "it declares: (none)");
  expect_kernel_error(be, "binary", "-DLG_OP=abc", "'-DLG_OP=abc'");
  expect_kernel_error(be, "binary", "-DLG_OP=99999999999", "LG_OP");
  expect_kernel_error(be, "binary", "-O2", "not a -DNAME[=VALUE] define");
  expect_kernel_error(be, "binary", "-D", "not a -DNAME[=VALUE] define");
  expect_kernel_error(be, "cast", "-DLG_SRC=double", "value words");
  expect_kernel_error(be, "no_such_kernel", NULL,
                      "shaders/kernels/no_such_kernel.lgk");
  expect_kernel_error(be, "lg_math", NULL, "shaders/kernels/lg_math.lgk");

  /* Arguments are checked against the shader's interface. */
  lg_gpu_kernel* k = make_kernel(be, "copy", NULL);
  lg_gpu_buffer* buf = make_buffer(be, NULL, 64);
  lg_gpu_error error = {{0}};
  size_t global[3] = {8, 1, 1}, zero[1] = {0};
  lg_gpu_arg good[] = {LG_GPU_ARG_BUFFER(buf), LG_GPU_ARG_BUFFER(buf),
                       LG_GPU_ARG_INT(8)};
  lg_gpu_arg few[] = {LG_GPU_ARG_BUFFER(buf), LG_GPU_ARG_INT(8)};
  lg_gpu_arg wrong_kind[] = {LG_GPU_ARG_BUFFER(buf), LG_GPU_ARG_BUFFER(buf),
                             LG_GPU_ARG_FLOAT(8.0f)};
  lg_gpu_arg null_buffer[] = {LG_GPU_ARG_BUFFER(NULL), LG_GPU_ARG_BUFFER(buf),
                              LG_GPU_ARG_INT(8)};
  const lg_gpu_backend_ops* ops = be->ops;
  assert_int_equal(lg_gpu_dispatch(be, k, few, 2, 1, global, NULL, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "takes 2 buffers and 1 scalars"));
  assert_int_equal(
      lg_gpu_dispatch(be, k, wrong_kind, 3, 1, global, NULL, &error),
      kTfLiteError);
  assert_non_null(strstr(error.message, "is a float but push constant 0"));
  assert_int_equal(
      lg_gpu_dispatch(be, k, null_buffer, 3, 1, global, NULL, &error),
      kTfLiteError);
  assert_non_null(strstr(error.message, "NULL buffer"));
  assert_int_equal(lg_gpu_dispatch(be, k, good, 3, 4, global, NULL, &error),
                   kTfLiteError);
  assert_int_equal(lg_gpu_dispatch(be, k, good, 3, 1, zero, NULL, &error),
                   kTfLiteError);
  assert_int_equal(lg_gpu_dispatch(be, NULL, good, 3, 1, global, NULL, &error),
                   kTfLiteError);
  size_t too_big[1] = {be->device.max_work_item_sizes[0] + 1};
  assert_int_equal(lg_gpu_dispatch(be, k, good, 3, 1, global, too_big, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "maxComputeWorkGroupSize"));
  size_t too_many[3] = {be->device.max_work_item_sizes[0],
                        be->device.max_work_item_sizes[1], 1};
  assert_int_equal(lg_gpu_dispatch(be, k, good, 3, 2, global, too_many, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "maxComputeWorkGroupInvocations"));
  size_t huge[1] = {(size_t)UINT32_MAX};
  assert_int_equal(lg_gpu_dispatch(be, k, good, 3, 1, huge, NULL, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "global size"));
  assert_int_equal(ops->kernel_max_work_group_size(be, k),
                   be->device.max_work_group_size);
  assert_int_equal(ops->kernel_max_work_group_size(be, NULL), 0);
  assert_int_equal(ops->finish(be, &error), kTfLiteOk); /* nothing ran */
  ops->buffer_release(be, buf);
  ops->kernel_release(be, k);
  destroy_clean(be, errors);
}

/* ---- Local sizes and split grids ---------------------------------------- */

static void test_local_size_and_split(void** state) {
  (void)state;
  /* Synthetic limits: the default respects every one. */
  lg_gpu_device_info small = {0};
  small.max_work_group_size = 64;
  small.max_work_item_sizes[0] = 32;
  small.max_work_item_sizes[1] = 8;
  small.max_work_item_sizes[2] = 2;
  for (int dims = 1; dims <= 3; ++dims) {
    uint32_t local[3];
    lg_vk_default_local_size(&small, dims, local);
    assert_true(local[0] <= 32 && local[1] <= 8 && local[2] <= 2);
    assert_true(local[0] * local[1] * local[2] <= 64);
    assert_true(local[0] >= 1 && local[1] >= 1 && local[2] >= 1);
  }

  long errors = lg_vulkan_layer_errors();
  lg_gpu_backend* be = create_backend(NULL);
  const lg_gpu_backend_ops* ops = be->ops;
  lg_gpu_error error = {{0}};
  lg_gpu_kernel* k = make_kernel(be, "fill2d", NULL);
  /* A 2-D grid with odd extents and the default local size. */
  enum { kW = 37, kH = 19 };
  float grid[kW * kH];
  lg_gpu_buffer* buf = make_buffer(be, NULL, sizeof(grid));
  lg_gpu_arg args[] = {LG_GPU_ARG_BUFFER(buf), LG_GPU_ARG_INT(kW),
                       LG_GPU_ARG_INT(kH)};
  size_t global[2] = {kW, kH};
  assert_int_equal(lg_gpu_dispatch(be, k, args, 3, 2, global, NULL, &error),
                   kTfLiteOk);
  lg_vulkan_stats s = stats_of(be);
  assert_int_equal(s.last_dims, 2);
  size_t product = 1;
  for (int d = 0; d < 2; ++d) {
    assert_int_equal(s.last_global[d] % s.last_local[d], 0);
    assert_true(s.last_global[d] >= global[d]);
    assert_true(s.last_global[d] - global[d] < s.last_local[d]);
    product *= s.last_local[d];
  }
  assert_true(product <= be->device.max_work_group_size);
  download(be, buf, grid, sizeof(grid));
  for (int i = 0; i < kW * kH; ++i) {
    if (grid[i] != (float)i) fail_msg("fill2d index %d got %g", i, grid[i]);
  }
  /* A caller's local size is used as given. */
  size_t local[2] = {1, 1};
  assert_int_equal(lg_gpu_dispatch(be, k, args, 3, 2, global, local, &error),
                   kTfLiteOk);
  s = stats_of(be);
  assert_int_equal(s.last_local[0], 1);
  assert_int_equal(s.last_global[0], (size_t)kW);
  ops->buffer_release(be, buf);

  /* More groups than maxComputeWorkGroupCount[1] (65535 on most devices):
   * split into two dispatches that still cover one grid. */
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(((lg_vk_impl*)be->impl)->physical, &props);
  const uint32_t max_y = props.limits.maxComputeWorkGroupCount[1];
  assert_true(max_y >= 65535); /* the spec's minimum */
  if (max_y > (1u << 20)) {
    /* A grid past such a limit would not fit in memory. */
    print_message("maxComputeWorkGroupCount[1] is %u: split not tested\n",
                  max_y);
    ops->kernel_release(be, k);
    destroy_clean(be, errors);
    return;
  }
  const int32_t width = 2, height = (int32_t)max_y + 37;
  const size_t cells = (size_t)width * (size_t)height;
  float* big = malloc(cells * sizeof(float));
  assert_non_null(big);
  buf = make_buffer(be, NULL, cells * sizeof(float));
  lg_gpu_arg big_args[] = {LG_GPU_ARG_BUFFER(buf), LG_GPU_ARG_INT(width),
                           LG_GPU_ARG_INT(height)};
  size_t big_global[2] = {(size_t)width, (size_t)height};
  uint64_t before = stats_of(be).dispatches;
  assert_int_equal(
      lg_gpu_dispatch(be, k, big_args, 3, 2, big_global, local, &error),
      kTfLiteOk);
  assert_int_equal(stats_of(be).dispatches - before, 2);
  download(be, buf, big, cells * sizeof(float));
  for (size_t i = 0; i < cells; ++i) {
    if (big[i] != (float)i) fail_msg("split grid index %zu got %g", i, big[i]);
  }
  print_message(
      "grid of %d x %d groups split at maxComputeWorkGroupCount[1] "
      "= %u\n",
      width, height, max_y);
  ops->buffer_release(be, buf);
  ops->kernel_release(be, k);
  free(big);
  destroy_clean(be, errors);
}

/* ---- Main --------------------------------------------------------------- */

int main(void) {
  lg_test_hold_vulkan_libraries(); /* see tests/support/vulkan_hold.h */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_info),
      cmocka_unit_test(test_buffer_round_trip),
      cmocka_unit_test(test_download_batch),
      cmocka_unit_test(test_download_begin),
      cmocka_unit_test(test_timeline_refusals),
      cmocka_unit_test(test_upload_ordering),
      cmocka_unit_test(test_binary),
      cmocka_unit_test(test_unary),
      cmocka_unit_test(test_cast_and_copy),
      cmocka_unit_test(test_defines),
      cmocka_unit_test(test_local_size_and_split),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  return failed;
}
