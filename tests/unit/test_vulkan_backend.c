/* The Vulkan backend (delegates/vulkan/) on the machine's Vulkan device
 * (Mesa's lavapipe on the project's machines), with the Khronos validation
 * layer on: any error a layer reports fails the test. Covers device info,
 * buffer round trips, ranges and ordering (direct and staged), every
 * shader against hand-computed or double-precision references (binary with
 * both broadcast modes and every activation, unary ops, cast, copy),
 * defines turned into specialization constants, argument checks, local
 * sizes and grids split past maxComputeWorkGroupCount, the pipeline cache
 * (cold, warm, corrupt, truncated, foreign header), a sweep of injected
 * failures over every fallible Vulkan call, and recordings (recorded once,
 * run over rounds of new inputs, direct and staged, under the layer's
 * synchronization validation; misuse; injected failures; timing against
 * plain dispatch + submit), and half precision (allow_fp16: fp16_storage
 * on lavapipe, float16 kernels on hand-derived values, float32 kept
 * without it, separate pipeline-cache files per precision).
 *
 * No Vulkan device is a FAILURE, not a skip: CI installs lavapipe and the
 * validation layer. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkdtemp, clock_gettime */
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "delegates/gpu/cache_file.h"
#include "delegates/vulkan/vulkan_backend.h"
#include "delegates/vulkan/vulkan_impl.h"
#include "delegates/vulkan/vulkan_internal.h"
#include "runtime/kernels/fp16.h"

/* ---- Helpers ------------------------------------------------------------ */

static char temp_root[256];

static lg_gpu_backend* create_backend_fp16(const char* cache_dir,
                                           bool validation, bool allow_fp16) {
  lg_gpu_backend_options options = {0, allow_fp16, cache_dir};
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

static lg_gpu_backend* create_backend_with(const char* cache_dir,
                                           bool validation) {
  return create_backend_fp16(cache_dir, validation, false);
}

static lg_gpu_backend* create_backend(const char* cache_dir) {
  return create_backend_with(cache_dir, true);
}

static lg_vulkan_stats stats_of(const lg_gpu_backend* be) {
  lg_vulkan_stats s;
  assert_int_equal(lg_vulkan_backend_stats(be, &s), kTfLiteOk);
  return s;
}

/* Destroys the backend and checks that no layer reported an error and no
 * Vk object is left. */
static void destroy_clean(lg_gpu_backend* be, long layer_errors_before) {
  lg_vulkan_stats s = stats_of(be);
  lg_gpu_backend_destroy(be);
  if (lg_vulkan_layer_errors() != layer_errors_before) {
    fail_msg("validation reported %ld error(s); first: %s",
             lg_vulkan_layer_errors() - layer_errors_before,
             s.first_validation_error);
  }
  assert_int_equal(lg_vulkan_live_objects(), 0);
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seeded values in [lo, hi). */
static void fill_values(float* v, size_t n, uint32_t seed, float lo, float hi) {
  uint32_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    v[i] = lo + (hi - lo) * (float)(s >> 8) / (float)(1u << 24);
  }
}

/* got against ref: tol 0 means exactly (float)ref (NaN matches NaN);
 * otherwise |got - ref| <= tol * |ref| (relative). */
static bool close_enough(float got, double ref, double tol) {
  if (isnan(ref)) return isnan(got);
  if (tol == 0.0) return got == (float)ref;
  if (isinf(ref)) return (double)got == ref;
  return fabs((double)got - ref) <= tol * fabs(ref) + 1e-30;
}

/* A device buffer holding `bytes` of `data` (NULL: left undefined). */
static lg_gpu_buffer* make_buffer(lg_gpu_backend* be, const void* data,
                                  size_t bytes) {
  lg_gpu_buffer* b = NULL;
  lg_gpu_error error = {{0}};
  if (be->ops->buffer_create(be, bytes, &b, &error) != kTfLiteOk) {
    fail_msg("buffer_create(%zu): %s", bytes, error.message);
  }
  if (data != NULL &&
      be->ops->buffer_upload(be, b, 0, data, bytes, &error) != kTfLiteOk) {
    fail_msg("buffer_upload(%zu): %s", bytes, error.message);
  }
  return b;
}

static lg_gpu_kernel* make_kernel(lg_gpu_backend* be, const char* name,
                                  const char* defines) {
  lg_gpu_kernel* k = NULL;
  lg_gpu_error error = {{0}};
  if (be->ops->kernel_create(be, name, defines, &k, &error) != kTfLiteOk) {
    fail_msg("kernel_create(%s, %s): %s", name, defines ? defines : "",
             error.message);
  }
  return k;
}

static void run_1d(lg_gpu_backend* be, lg_gpu_kernel* k, const lg_gpu_arg* args,
                   int num_args, size_t n) {
  lg_gpu_error error = {{0}};
  size_t global[1] = {n};
  if (be->ops->dispatch(be, k, args, num_args, 1, global, NULL, &error) !=
      kTfLiteOk) {
    fail_msg("dispatch: %s", error.message);
  }
}

static void download(lg_gpu_backend* be, lg_gpu_buffer* b, void* out,
                     size_t bytes) {
  lg_gpu_error error = {{0}};
  if (be->ops->buffer_download(be, b, 0, out, bytes, &error) != kTfLiteOk) {
    fail_msg("buffer_download: %s", error.message);
  }
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
      "| creation feedback %d\n",
      d->name, d->vendor, d->driver_version, d->api_version,
      (unsigned long long)(d->global_memory_bytes >> 20),
      (unsigned long long)(d->max_buffer_bytes >> 20), d->max_work_group_size,
      d->max_work_item_sizes[0], d->max_work_item_sizes[1],
      d->max_work_item_sizes[2], (int)d->fp16, d->buffer_alignment,
      (int)s.creation_feedback);
  assert_int_equal(be->kind, LG_GPU_BACKEND_VULKAN);
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
  lg_gpu_backend other = *be;
  other.kind = LG_GPU_BACKEND_OPENCL;
  assert_int_equal(lg_vulkan_backend_stats(&other, &s), kTfLiteError);
  destroy_clean(be, errors);
  lg_gpu_backend_destroy(NULL);

  /* NULL options: device 0, no cache (validation only through the
   * environment). */
  lg_gpu_error error = {{0}};
  be = NULL;
  assert_int_equal(lg_vulkan_backend_create(NULL, &be, &error), kTfLiteOk);
  destroy_clean(be, errors);

  lg_gpu_backend_options options = {1000, false, NULL};
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
      ops->buffer_upload(be, buf, 1001, patch, sizeof(patch), &error),
      kTfLiteOk);
  memcpy(host + 1001, patch, sizeof(patch));
  download(be, buf, back, kBytes);
  assert_memory_equal(back, host, kBytes);
  unsigned char tail[5];
  assert_int_equal(ops->buffer_download(be, buf, kBytes - 5, tail, 5, &error),
                   kTfLiteOk);
  assert_memory_equal(tail, host + kBytes - 5, 5);
  assert_int_equal(ops->buffer_download(be, buf, kBytes, tail, 0, &error),
                   kTfLiteOk); /* empty range at the end */

  /* Out of range: past the end, offset beyond size, wrap-around. */
  assert_int_equal(ops->buffer_upload(be, buf, kBytes - 4, patch, 5, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "outside the 4099-byte buffer"));
  assert_int_equal(ops->buffer_download(be, buf, kBytes + 1, tail, 0, &error),
                   kTfLiteError);
  assert_int_equal(ops->buffer_download(be, buf, 8, tail, SIZE_MAX - 4, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "buffer_download"));
  assert_int_equal(ops->buffer_upload(be, NULL, 0, patch, 1, &error),
                   kTfLiteError);
  assert_int_equal(ops->buffer_upload(be, buf, 0, NULL, 1, &error),
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
      be->ops->buffer_upload(be, a, 0, second, sizeof(second), &error),
      kTfLiteOk);
  run_1d(be, k, ac, 3, kN);
  assert_int_equal(be->ops->submit(be, &error), kTfLiteOk);
  /* Recording after a submission, before the finish. */
  assert_int_equal(
      be->ops->buffer_upload(be, a, 0, first, sizeof(first), &error),
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

/* One cast over 13 elements (not a multiple of 4: a partial last word for
 * bytes); `src`/`dst` hold the input and the expected output, dst_bytes
 * per element; the 3 guard bytes after a byte output must stay. */
static void run_cast(lg_gpu_backend* be, const char* defines, const void* src,
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

/* mul of 2 and 3 elementwise under `defines`: 6 means LG_OP reached 2. */
static float specialized_result(lg_gpu_backend* be, const char* defines) {
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
                      "shaders/vulkan/no_such_kernel.comp");
  expect_kernel_error(be, "lg_math", NULL, "shaders/vulkan/lg_math.comp");

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
  assert_int_equal(ops->dispatch(be, k, few, 2, 1, global, NULL, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "takes 2 buffers and 1 scalars"));
  assert_int_equal(ops->dispatch(be, k, wrong_kind, 3, 1, global, NULL, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "is a float but push constant 0"));
  assert_int_equal(
      ops->dispatch(be, k, null_buffer, 3, 1, global, NULL, &error),
      kTfLiteError);
  assert_non_null(strstr(error.message, "NULL buffer"));
  assert_int_equal(ops->dispatch(be, k, good, 3, 4, global, NULL, &error),
                   kTfLiteError);
  assert_int_equal(ops->dispatch(be, k, good, 3, 1, zero, NULL, &error),
                   kTfLiteError);
  assert_int_equal(ops->dispatch(be, NULL, good, 3, 1, global, NULL, &error),
                   kTfLiteError);
  size_t too_big[1] = {be->device.max_work_item_sizes[0] + 1};
  assert_int_equal(ops->dispatch(be, k, good, 3, 1, global, too_big, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "maxComputeWorkGroupSize"));
  size_t too_many[3] = {be->device.max_work_item_sizes[0],
                        be->device.max_work_item_sizes[1], 1};
  assert_int_equal(ops->dispatch(be, k, good, 3, 2, global, too_many, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "maxComputeWorkGroupInvocations"));
  size_t huge[1] = {(size_t)UINT32_MAX};
  assert_int_equal(ops->dispatch(be, k, good, 3, 1, huge, NULL, &error),
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
  assert_int_equal(ops->dispatch(be, k, args, 3, 2, global, NULL, &error),
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
  assert_int_equal(ops->dispatch(be, k, args, 3, 2, global, local, &error),
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
      ops->dispatch(be, k, big_args, 3, 2, big_global, local, &error),
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

/* ---- Pipeline cache ----------------------------------------------------- */

/* A fresh empty folder under the test's temporary root. */
static void make_dir(char* path, size_t size, const char* name) {
  snprintf(path, size, "%s/%s", temp_root, name);
  assert_int_equal(mkdir(path, 0700), 0);
}

static void clear_dir(const char* path) {
  DIR* d = opendir(path);
  if (d == NULL) return;
  struct dirent* e;
  char file[1024];
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
    remove(file);
  }
  closedir(d);
}

/* Number of cache entries; the first one's path goes to `first`. */
static int cache_files(const char* dir, char* first, size_t size) {
  DIR* d = opendir(dir);
  assert_non_null(d);
  int count = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (strncmp(e->d_name, "litegpu-vk-", 11) != 0) continue;
    assert_null(strstr(e->d_name, ".tmp")); /* no leftover temp files */
    if (count++ == 0 && first != NULL) {
      snprintf(first, size, "%s/%s", dir, e->d_name);
    }
  }
  closedir(d);
  return count;
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
  clear_dir(dir);
  assert_int_equal(lg_vulkan_live_objects(), 0);
}

/* ---- Injected failures -------------------------------------------------- */

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

/* The whole life of a small job, twice (so fences, command buffers and
 * descriptor pools are recycled); returns the first failure. */
static TfLiteStatus scenario(const char* cache_dir, lg_gpu_error* error) {
  lg_gpu_backend_options options = {0, false, cache_dir};
  lg_vulkan_options vk = {true};
  lg_gpu_backend* be = NULL;
  lg_gpu_buffer *src = NULL, *dst = NULL;
  lg_gpu_kernel* k = NULL;
  float in[5] = {1, 2, 3, 4, 5}, out[5] = {0};
  TfLiteStatus status = lg_vulkan_backend_create_ex(&options, &vk, &be, error);
  if (status != kTfLiteOk) return status;
  const lg_gpu_backend_ops* ops = be->ops;
  status = ops->buffer_create(be, sizeof(in), &src, error);
  if (status == kTfLiteOk)
    status = ops->buffer_create(be, sizeof(out), &dst, error);
  if (status == kTfLiteOk)
    status = ops->kernel_create(be, "copy", NULL, &k, error);
  lg_gpu_arg args[] = {LG_GPU_ARG_BUFFER(src), LG_GPU_ARG_BUFFER(dst),
                       LG_GPU_ARG_INT(5)};
  size_t global[1] = {5};
  for (int round = 0; round < 2 && status == kTfLiteOk; ++round) {
    in[0] = (float)(10 + round);
    status = ops->buffer_upload(be, src, 0, in, sizeof(in), error);
    if (status == kTfLiteOk)
      status = ops->dispatch(be, k, args, 3, 1, global, NULL, error);
    /* Recorded after a dispatch: staged on every device. */
    in[1] = (float)(20 + round);
    if (status == kTfLiteOk)
      status = ops->buffer_upload(be, src, 4, &in[1], 4, error);
    if (status == kTfLiteOk)
      status = ops->dispatch(be, k, args, 3, 1, global, NULL, error);
    if (status == kTfLiteOk) status = ops->submit(be, error);
    if (status == kTfLiteOk) status = ops->finish(be, error);
    if (status == kTfLiteOk)
      status = ops->buffer_download(be, dst, 0, out, sizeof(out), error);
    if (status == kTfLiteOk) assert_memory_equal(in, out, sizeof(in));
  }
  ops->kernel_release(be, k);
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
  assert_int_equal(
      be->ops->buffer_download(be, b, 0, data, sizeof(data), &error),
      kTfLiteError);
  assert_non_null(strstr(error.message, "unusable"));
  assert_non_null(strstr(error.message, "vkQueueSubmit"));
  assert_int_equal(be->ops->finish(be, &error), kTfLiteError);
  size_t global[1] = {4};
  assert_int_equal(be->ops->dispatch(be, k, args, 3, 1, global, NULL, &error),
                   kTfLiteError);
  be->ops->kernel_release(be, k);
  be->ops->buffer_release(be, b);
  be->ops->buffer_release(be, a);
  destroy_clean(be, errors);
  clear_dir(dir);
}

/* ---- Recordings --------------------------------------------------------- */

/* A validated backend that also runs the layer's synchronization
 * validation (read from the environment at instance creation), so a
 * missing or wrong barrier in a recording is a validation error. */
static lg_gpu_backend* create_backend_sync(void) {
  static const char kName[] = "VK_LAYER_ENABLES";
  char* saved = getenv(kName) != NULL ? strdup(getenv(kName)) : NULL;
  setenv(kName, "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT",
         1);
  lg_gpu_backend* be = create_backend(NULL);
  if (saved != NULL) {
    setenv(kName, saved, 1);
    free(saved);
  } else {
    unsetenv(kName);
  }
  return be;
}

/* The 19 arguments of binary over n elements of the same shape (flat
 * indexing, no activation clamp). */
static void binary_flat_args(lg_gpu_buffer* a, lg_gpu_buffer* b,
                             lg_gpu_buffer* out, int32_t n, lg_gpu_arg* args) {
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

/* Two dependent dispatches: t = a - b (binary LG_OP=1), out = t * t
 * (unary LG_OP=9, square). Both are exact in float, so the expected
 * output is (a - b) * (a - b) computed here in float. kRecN is not a
 * multiple of the work-group size. */
enum { kRecN = 1003 };
typedef struct rec_job {
  lg_gpu_buffer *a, *b, *t, *out;
  lg_gpu_kernel *sub, *square;
  lg_gpu_arg sub_args[19];
  lg_gpu_arg square_args[4];
} rec_job;

/* Creates the job's buffers and kernels (no recording yet); with `be`
 * from create_backend this never fails (fail_msg otherwise). */
static void rec_job_make(lg_gpu_backend* be, rec_job* j) {
  memset(j, 0, sizeof(*j));
  j->a = make_buffer(be, NULL, kRecN * sizeof(float));
  j->b = make_buffer(be, NULL, kRecN * sizeof(float));
  j->t = make_buffer(be, NULL, kRecN * sizeof(float));
  j->out = make_buffer(be, NULL, kRecN * sizeof(float));
  j->sub = make_kernel(be, "binary", "-DLG_OP=1 -DLG_BCAST=0");
  j->square = make_kernel(be, "unary", "-DLG_OP=9");
  binary_flat_args(j->a, j->b, j->t, kRecN, j->sub_args);
  j->square_args[0] = LG_GPU_ARG_BUFFER(j->t);
  j->square_args[1] = LG_GPU_ARG_BUFFER(j->out);
  j->square_args[2] = LG_GPU_ARG_INT(kRecN);
  j->square_args[3] = LG_GPU_ARG_FLOAT(0.0f);
}

static void rec_job_free(lg_gpu_backend* be, rec_job* j) {
  be->ops->kernel_release(be, j->square);
  be->ops->kernel_release(be, j->sub);
  be->ops->buffer_release(be, j->out);
  be->ops->buffer_release(be, j->t);
  be->ops->buffer_release(be, j->b);
  be->ops->buffer_release(be, j->a);
}

/* Captures the two dispatches; returns the first failure. */
static TfLiteStatus rec_job_record(lg_gpu_backend* be, rec_job* j,
                                   lg_gpu_recording** out,
                                   lg_gpu_error* error) {
  const size_t global[1] = {kRecN};
  const lg_gpu_backend_ops* ops = be->ops;
  *out = NULL;
  TfLiteStatus status = ops->recording_begin(be, error);
  if (status != kTfLiteOk) return status;
  status = ops->dispatch(be, j->sub, j->sub_args, 19, 1, global, NULL, error);
  if (status == kTfLiteOk) {
    status =
        ops->dispatch(be, j->square, j->square_args, 4, 1, global, NULL, error);
  }
  /* Always closed, as the GPU program does; a failed dispatch makes the
   * end fail too, and the dispatch's error is the one kept. */
  lg_gpu_error end_error = {{0}};
  const TfLiteStatus ended = ops->recording_end(be, out, &end_error);
  if (status == kTfLiteOk && ended != kTfLiteOk) {
    *error = end_error;
    status = ended;
  }
  if (status != kTfLiteOk) {
    ops->recording_release(be, *out);
    *out = NULL;
  }
  return status;
}

/* Inputs of round `round` and the expected output. */
static void rec_round_values(int round, float* a, float* b, float* want) {
  fill_values(a, kRecN, 40u + (uint32_t)round, -8.0f, 8.0f);
  fill_values(b, kRecN, 50u + (uint32_t)round, -4.0f, 4.0f);
  for (int i = 0; i < kRecN; ++i) {
    const float d = a[i] - b[i];
    want[i] = d * d;
  }
}

static void expect_floats(const float* got, const float* want, int n,
                          const char* label, int round) {
  for (int i = 0; i < n; ++i) {
    if (got[i] != want[i]) {
      fail_msg("%s round %d: index %d got %.9g want %.9g", label, round, i,
               (double)got[i], (double)want[i]);
    }
  }
}

/* Records once, then per round: upload new inputs, run, download. */
static void recording_rounds(bool staged) {
  long errors = lg_vulkan_layer_errors();
  lg_vulkan_force_staging(staged);
  lg_gpu_backend* be = create_backend_sync();
  const lg_gpu_backend_ops* ops = be->ops;
  assert_non_null(ops->recording_begin);
  lg_gpu_error error = {{0}};
  rec_job j;
  rec_job_make(be, &j);
  lg_gpu_recording* rec = NULL;
  if (rec_job_record(be, &j, &rec, &error) != kTfLiteOk) {
    fail_msg("recording: %s", error.message);
  }
  assert_non_null(rec);
  const lg_vulkan_stats recorded = stats_of(be);
  assert_int_equal(recorded.recording_runs, 0);
  float a[kRecN], b[kRecN], want[kRecN], got[kRecN];
  for (int round = 0; round < 3; ++round) {
    rec_round_values(round, a, b, want);
    assert_int_equal(ops->buffer_upload(be, j.a, 0, a, sizeof(a), &error),
                     kTfLiteOk);
    assert_int_equal(ops->buffer_upload(be, j.b, 0, b, sizeof(b), &error),
                     kTfLiteOk);
    if (ops->recording_run(be, rec, &error) != kTfLiteOk) {
      fail_msg("recording_run round %d: %s", round, error.message);
    }
    memset(got, 0, sizeof(got));
    download(be, j.out, got, sizeof(got));
    expect_floats(got, want, kRecN, staged ? "staged" : "direct", round);
  }
  lg_vulkan_stats s = stats_of(be);
  /* Run, not re-recorded: no vkCmdDispatch since the capture. */
  assert_int_equal(s.dispatches, recorded.dispatches);
  assert_int_equal(s.recording_runs, 3);
  if (staged) {
    assert_int_equal(s.staged_uploads - recorded.staged_uploads, 6);
    /* Per round: the uploads' copies and the recording in one batch, then
     * the download's copy. */
    assert_int_equal(s.submits - recorded.submits, 6);
  } else if (s.direct_memory) {
    assert_int_equal(s.direct_uploads - recorded.direct_uploads, 6);
    assert_int_equal(s.submits - recorded.submits, 3);
  }

  /* Run, upload while that run is pending (staged even on mapped memory:
   * the run still reads `a`), run again, and back to back without a
   * download: the last inputs win. */
  rec_round_values(7, a, b, want);
  assert_int_equal(ops->recording_run(be, rec, &error), kTfLiteOk);
  assert_int_equal(ops->buffer_upload(be, j.a, 0, a, sizeof(a), &error),
                   kTfLiteOk);
  assert_int_equal(ops->buffer_upload(be, j.b, 0, b, sizeof(b), &error),
                   kTfLiteOk);
  assert_int_equal(ops->recording_run(be, rec, &error), kTfLiteOk);
  assert_int_equal(ops->recording_run(be, rec, &error), kTfLiteOk);
  download(be, j.out, got, sizeof(got));
  expect_floats(got, want, kRecN, "pending upload", 7);
  /* The intermediate is there too: t = a - b. */
  download(be, j.t, got, sizeof(got));
  for (int i = 0; i < kRecN; ++i) want[i] = a[i] - b[i];
  expect_floats(got, want, kRecN, "intermediate", 7);
  s = stats_of(be);
  assert_int_equal(s.recording_runs, 6);
  assert_true(s.staged_uploads >= 2);
  ops->recording_release(be, rec);
  rec_job_free(be, &j);
  destroy_clean(be, errors);
  lg_vulkan_force_staging(false);
}

static void test_recording_rounds(void** state) {
  (void)state;
  recording_rounds(false);
  recording_rounds(true);
}

static void expect_error(TfLiteStatus status, const lg_gpu_error* error,
                         const char* needle, const char* what) {
  if (status != kTfLiteError) fail_msg("%s: succeeded", what);
  if (strstr(error->message, needle) == NULL) {
    fail_msg("%s: '%s' lacks '%s'", what, error->message, needle);
  }
}

static void test_recording_errors(void** state) {
  (void)state;
  long errors = lg_vulkan_layer_errors();
  lg_gpu_backend* be = create_backend_sync();
  const lg_gpu_backend_ops* ops = be->ops;
  assert_true(ops->has_kernel(be, "binary"));
  assert_true(ops->has_kernel(be, "unary"));
  assert_false(ops->has_kernel(be, "nope"));
  assert_false(ops->has_kernel(be, "lg_math")); /* an include, not a kernel */
  assert_false(ops->has_kernel(be, NULL));
  lg_gpu_error error = {{0}};
  rec_job j;
  rec_job_make(be, &j);
  const size_t global[1] = {kRecN};
  lg_gpu_recording* rec = (lg_gpu_recording*)&error;

  expect_error(ops->recording_end(be, &rec, &error), &error,
               "no recording is being captured", "end without begin");
  assert_null(rec);
  /* Nested begin: refused, the open capture stays usable. */
  assert_int_equal(ops->recording_begin(be, &error), kTfLiteOk);
  expect_error(ops->recording_begin(be, &error), &error, "do not nest",
               "nested begin");
  expect_error(ops->recording_end(be, NULL, &error), &error, "NULL out",
               "end with NULL out");
  assert_int_equal(
      ops->dispatch(be, j.sub, j.sub_args, 19, 1, global, NULL, &error),
      kTfLiteOk);
  assert_int_equal(ops->recording_end(be, &rec, &error), kTfLiteOk);
  assert_non_null(rec);

  /* Recording while work is pending: a plain dispatch not yet finished,
   * then a run not yet waited for. */
  assert_int_equal(
      ops->dispatch(be, j.square, j.square_args, 4, 1, global, NULL, &error),
      kTfLiteOk);
  expect_error(ops->recording_begin(be, &error), &error, "work is pending",
               "begin with a dispatch pending");
  assert_int_equal(ops->finish(be, &error), kTfLiteOk);
  assert_int_equal(ops->recording_run(be, rec, &error), kTfLiteOk);
  expect_error(ops->recording_begin(be, &error), &error, "call finish first",
               "begin with a run pending");
  assert_int_equal(ops->finish(be, &error), kTfLiteOk);

  /* Run during a capture; a capture with a failed dispatch cannot end. */
  assert_int_equal(ops->recording_begin(be, &error), kTfLiteOk);
  expect_error(ops->recording_run(be, rec, &error), &error,
               "a recording is being captured", "run during a capture");
  expect_error(ops->dispatch(be, j.sub, j.sub_args, 3, 1, global, NULL, &error),
               &error, "takes 3 buffers", "bad dispatch while recording");
  lg_gpu_recording* incomplete = (lg_gpu_recording*)&error;
  expect_error(ops->recording_end(be, &incomplete, &error), &error,
               "incomplete", "end after a failed dispatch");
  assert_null(incomplete);
  assert_non_null(strstr(error.message, "takes 3 buffers"));

  /* An empty recording runs (and does nothing). */
  lg_gpu_recording* empty = NULL;
  assert_int_equal(ops->recording_begin(be, &error), kTfLiteOk);
  assert_int_equal(ops->recording_end(be, &empty, &error), kTfLiteOk);
  assert_int_equal(ops->recording_run(be, empty, &error), kTfLiteOk);

  /* Released (here while its run may be pending): refused by run, ignored
   * by release; NULL likewise. */
  assert_int_equal(ops->recording_run(be, rec, &error), kTfLiteOk);
  ops->recording_release(be, rec);
  expect_error(ops->recording_run(be, rec, &error), &error,
               "not a live recording", "run after release");
  ops->recording_release(be, rec);
  ops->recording_release(be, NULL);
  expect_error(ops->recording_run(be, NULL, &error), &error,
               "not a live recording", "run of NULL");
  /* A recording from another backend. */
  lg_gpu_backend* other = create_backend(NULL);
  expect_error(other->ops->recording_run(other, empty, &error), &error,
               "not a live recording", "run on another backend");
  lg_gpu_backend_destroy(other);
  assert_int_equal(ops->finish(be, &error), kTfLiteOk);

  /* Destroy with a live recording and an open capture frees both. */
  assert_int_equal(ops->recording_begin(be, &error), kTfLiteOk);
  assert_int_equal(
      ops->dispatch(be, j.sub, j.sub_args, 19, 1, global, NULL, &error),
      kTfLiteOk);
  rec_job_free(be, &j);
  destroy_clean(be, errors);
}

/* The recording job under an armed failure of `call` (armed after the
 * setup, so it hits the capture, the runs and their transfers). */
static TfLiteStatus rec_scenario(const char* call, int nth,
                                 lg_gpu_error* error) {
  lg_gpu_backend* be = create_backend_sync();
  const lg_gpu_backend_ops* ops = be->ops;
  rec_job j;
  rec_job_make(be, &j);
  assert_int_equal(ops->finish(be, error), kTfLiteOk);
  lg_vulkan_fail_call(call, nth);
  lg_gpu_recording* rec = NULL;
  TfLiteStatus status = rec_job_record(be, &j, &rec, error);
  float a[kRecN], b[kRecN], want[kRecN], got[kRecN];
  for (int round = 0; round < 2 && status == kTfLiteOk; ++round) {
    rec_round_values(round, a, b, want);
    status = ops->buffer_upload(be, j.a, 0, a, sizeof(a), error);
    if (status == kTfLiteOk)
      status = ops->buffer_upload(be, j.b, 0, b, sizeof(b), error);
    if (status == kTfLiteOk) status = ops->recording_run(be, rec, error);
    if (status == kTfLiteOk)
      status = ops->buffer_download(be, j.out, 0, got, sizeof(got), error);
    if (status == kTfLiteOk) expect_floats(got, want, kRecN, call, round);
  }
  ops->recording_release(be, rec);
  rec_job_free(be, &j);
  lg_gpu_backend_destroy(be);
  return status;
}

/* Every call the recording path makes, failed at every use: an error
 * naming the call, no leak, no validation error, clean destroy. */
static void test_recording_faults(void** state) {
  (void)state;
  static const char* const calls[] = {
      "vkCreateCommandPool",      "vkCreateFence",
      "vkAllocateCommandBuffers", "vkBeginCommandBuffer",
      "vkEndCommandBuffer",       "vkQueueSubmit",
      "vkWaitForFences",          "vkResetFences",
      "vkCreateDescriptorPool",   "vkAllocateDescriptorSets",
  };
  enum { kRecCalls = sizeof(calls) / sizeof(calls[0]) };
  int failures[kRecCalls] = {0};
  lg_gpu_error error;
  for (int staged = 0; staged < 2; ++staged) {
    lg_vulkan_force_staging(staged != 0);
    for (int c = 0; c < kRecCalls; ++c) {
      for (int nth = 1; nth < 50; ++nth) {
        long layer_errors = lg_vulkan_layer_errors();
        memset(&error, 0, sizeof(error));
        TfLiteStatus status = rec_scenario(calls[c], nth, &error);
        bool hit = lg_vulkan_fail_fired();
        lg_vulkan_fail_call(NULL, 0);
        assert_int_equal(lg_vulkan_live_objects(), 0);
        if (lg_vulkan_layer_errors() != layer_errors) {
          fail_msg("%s #%d: validation errors on the failure path", calls[c],
                   nth);
        }
        if (!hit) {
          if (status != kTfLiteOk) {
            fail_msg("clean run failed: %s", error.message);
          }
          break;
        }
        if (status == kTfLiteOk) {
          fail_msg("%s #%d failed but the job succeeded", calls[c], nth);
        }
        if (strstr(error.message, calls[c]) == NULL ||
            strstr(error.message, "VK_") == NULL) {
          fail_msg("%s #%d: message does not name the call: '%s'", calls[c],
                   nth, error.message);
        }
        ++failures[c];
      }
    }
  }
  lg_vulkan_force_staging(false);
  int total = 0;
  for (int c = 0; c < kRecCalls; ++c) {
    if (failures[c] == 0) fail_msg("%s never failed the job", calls[c]);
    total += failures[c];
  }
  print_message(
      "recording faults: %d injected over %d calls, each named, no leak, "
      "no validation error\n",
      total, (int)kRecCalls);
}

/* ---- Timing ------------------------------------------------------------- */

static int compare_doubles(const void* x, const void* y) {
  double a = *(const double*)x, b = *(const double*)y;
  return a < b ? -1 : a > b;
}

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
  const lg_gpu_arg args[] = {
      LG_GPU_ARG_BUFFER(ba),      LG_GPU_ARG_BUFFER(bb),
      LG_GPU_ARG_BUFFER(bo),      LG_GPU_ARG_INT(kN),
      LG_GPU_ARG_INT(kN),         LG_GPU_ARG_INT(kN),
      LG_GPU_ARG_FLOAT(-FLT_MAX), LG_GPU_ARG_FLOAT(FLT_MAX),
      LG_GPU_ARG_INT(1),          LG_GPU_ARG_INT(1),
      LG_GPU_ARG_INT(kN),         LG_GPU_ARG_INT(0),
      LG_GPU_ARG_INT(0),          LG_GPU_ARG_INT(0),
      LG_GPU_ARG_INT(1),          LG_GPU_ARG_INT(0),
      LG_GPU_ARG_INT(0),          LG_GPU_ARG_INT(0),
      LG_GPU_ARG_INT(1)};
  lg_gpu_error error = {{0}};
  double times[kRuns];
  for (int r = 0; r < kWarm + kRuns; ++r) {
    a[0] = (float)r;
    double start = now_seconds();
    assert_int_equal(be->ops->buffer_upload(be, ba, 0, a, sizeof(a), &error),
                     kTfLiteOk);
    run_1d(be, k, args, 19, kN);
    download(be, bo, out, sizeof(out));
    if (r >= kWarm) times[r - kWarm] = (now_seconds() - start) * 1e6;
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
    double start = now_seconds();
    lg_gpu_kernel* k = make_kernel(be, "unary", "-DLG_OP=18");
    kernel_s[round] = now_seconds() - start;
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
  clear_dir(dir);
  assert_int_equal(lg_vulkan_live_objects(), 0);
}

/* Median microseconds of upload 4 KB + one binary add + download 4 KB,
 * the add either recorded once and run each time, or dispatched and
 * submitted each time. */
static double add_round_trip_us(bool recorded, bool staged) {
  enum { kN = 1024, kRuns = 500, kWarm = 50 };
  lg_vulkan_force_staging(staged);
  lg_gpu_backend* be = create_backend_with(NULL, false);
  const lg_gpu_backend_ops* ops = be->ops;
  float a[kN], b[kN], out[kN];
  fill_values(a, kN, 9, -1.0f, 1.0f);
  fill_values(b, kN, 10, -1.0f, 1.0f);
  lg_gpu_buffer* ba = make_buffer(be, a, sizeof(a));
  lg_gpu_buffer* bb = make_buffer(be, b, sizeof(b));
  lg_gpu_buffer* bo = make_buffer(be, NULL, sizeof(out));
  lg_gpu_kernel* k = make_kernel(be, "binary", "-DLG_OP=0 -DLG_BCAST=0");
  lg_gpu_arg args[19];
  binary_flat_args(ba, bb, bo, kN, args);
  const size_t global[1] = {kN};
  lg_gpu_error error = {{0}};
  lg_gpu_recording* rec = NULL;
  assert_int_equal(ops->finish(be, &error), kTfLiteOk);
  if (recorded) {
    assert_int_equal(ops->recording_begin(be, &error), kTfLiteOk);
    assert_int_equal(ops->dispatch(be, k, args, 19, 1, global, NULL, &error),
                     kTfLiteOk);
    assert_int_equal(ops->recording_end(be, &rec, &error), kTfLiteOk);
  }
  double times[kRuns];
  for (int r = 0; r < kWarm + kRuns; ++r) {
    a[r % kN] = (float)r;
    const double start = now_seconds();
    TfLiteStatus status = ops->buffer_upload(be, ba, 0, a, sizeof(a), &error);
    if (status == kTfLiteOk && recorded) {
      status = ops->recording_run(be, rec, &error);
    } else if (status == kTfLiteOk) {
      status = ops->dispatch(be, k, args, 19, 1, global, NULL, &error);
      if (status == kTfLiteOk) status = ops->submit(be, &error);
    }
    if (status == kTfLiteOk) {
      status = ops->buffer_download(be, bo, 0, out, sizeof(out), &error);
    }
    if (r >= kWarm) times[r - kWarm] = (now_seconds() - start) * 1e6;
    if (status != kTfLiteOk) fail_msg("run %d: %s", r, error.message);
    if (out[r % kN] != a[r % kN] + b[r % kN]) {
      fail_msg("run %d: index %d got %g want %g", r, r % kN,
               (double)out[r % kN], (double)(a[r % kN] + b[r % kN]));
    }
  }
  for (int i = 0; i < kN; ++i) assert_true(out[i] == a[i] + b[i]);
  qsort(times, kRuns, sizeof(times[0]), compare_doubles);
  ops->recording_release(be, rec);
  ops->kernel_release(be, k);
  ops->buffer_release(be, bo);
  ops->buffer_release(be, bb);
  ops->buffer_release(be, ba);
  lg_gpu_backend_destroy(be);
  lg_vulkan_force_staging(false);
  return times[kRuns / 2];
}

static void test_recording_timing(void** state) {
  (void)state;
  const double plain = add_round_trip_us(false, false);
  const double recorded = add_round_trip_us(true, false);
  const double plain_staged = add_round_trip_us(false, true);
  const double recorded_staged = add_round_trip_us(true, true);
  print_message(
      "upload 4 KB + binary add + download 4 KB, median of 500: "
      "dispatch+submit %.1f us, recording_run %.1f us (staged: %.1f us, "
      "%.1f us)\n",
      plain, recorded, plain_staged, recorded_staged);
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

/* ---- Main --------------------------------------------------------------- */

static int setup_temp(void** state) {
  (void)state;
  snprintf(temp_root, sizeof(temp_root), "/tmp/lg_vulkan_test_XXXXXX");
  return mkdtemp(temp_root) == NULL ? -1 : 0;
}

static int teardown_temp(void** state) {
  (void)state;
  char path[600];
  static const char* const subdirs[] = {"cache", "faults", "timing", "fp16"};
  for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); ++i) {
    snprintf(path, sizeof(path), "%s/%s", temp_root, subdirs[i]);
    clear_dir(path);
    rmdir(path);
  }
  rmdir(temp_root);
  return 0;
}

int main(void) {
  /* The loader unloads the validation layer with each instance; keeping
   * it loaded lets LeakSanitizer attribute (and find reachable) what the
   * layer keeps between instances. Without the layer the tests fail at
   * creation with a clear message. */
  void* layer = dlopen("libVkLayer_khronos_validation.so", RTLD_NOW);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_info),
      cmocka_unit_test(test_buffer_round_trip),
      cmocka_unit_test(test_upload_ordering),
      cmocka_unit_test(test_binary),
      cmocka_unit_test(test_unary),
      cmocka_unit_test(test_cast_and_copy),
      cmocka_unit_test(test_defines),
      cmocka_unit_test(test_local_size_and_split),
      cmocka_unit_test(test_pipeline_cache),
      cmocka_unit_test(test_injected_failures),
      cmocka_unit_test(test_recording_rounds),
      cmocka_unit_test(test_recording_errors),
      cmocka_unit_test(test_recording_faults),
      cmocka_unit_test(test_timing),
      cmocka_unit_test(test_recording_timing),
      cmocka_unit_test(test_fp16),
  };
  int failed = cmocka_run_group_tests(tests, setup_temp, teardown_temp);
  (void)layer; /* kept loaded until exit, when LeakSanitizer runs */
  return failed;
}
