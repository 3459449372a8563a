/* The OpenCL backend (delegates/opencl/) on the machine's OpenCL device
 * (PoCL on the project's machines): device info, buffer round trips and
 * bounds, the add kernel on odd sizes and every fused activation against a
 * double-precision reference, half storage (the precision rule and the
 * LITEGPU_OPENCL_TEST_FP16_STORAGE hook, an add on half buffers against
 * hand-derived bits), local size selection, the program binary cache (cold,
 * warm, corrupt, truncated, other key) and a sweep of injected failures over
 * every fallible CL call.
 *
 * No OpenCL device is a FAILURE, not a skip: CI installs PoCL. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* setenv */
#endif
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
#include "delegates/opencl/opencl_backend.h"
#include "delegates/opencl/opencl_impl.h"
#include "delegates/opencl/opencl_internal.h"
#include "runtime/kernels/fp16.h"
#include "tests/support/cache_dir_util.h"

/* The test hook that gives a backend created with allow_fp16 half storage
 * on any device (opencl_backend.h). */
#define FP16_HOOK "LITEGPU_OPENCL_TEST_FP16_STORAGE"

/* ---- Helpers ------------------------------------------------------------ */

static lg_gpu_backend* create_backend(const char* cache_dir, bool fp16) {
  lg_gpu_backend_options options = {
      .device_index = 0, .allow_fp16 = fp16, .cache_dir = cache_dir};
  lg_gpu_backend* be = NULL;
  lg_gpu_error error = {{0}};
  if (lg_opencl_backend_create(&options, &be, &error) != kTfLiteOk) {
    fail_msg("no usable OpenCL device (install pocl-opencl-icd): %s",
             error.message);
  }
  assert_non_null(be);
  return be;
}

/* Seeded values in [lo, hi). */
static void fill_values(float* v, size_t n, uint32_t seed, float lo, float hi) {
  uint32_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    v[i] = lo + (hi - lo) * (float)(s >> 8) / (float)(1u << 24);
  }
}

static double activate_ref(double x, int activation) {
  switch (activation) {
    case 1:
      return x > 0.0 ? x : 0.0;
    case 2:
      return x < -1.0 ? -1.0 : (x > 1.0 ? 1.0 : x);
    case 3:
      return x < 0.0 ? 0.0 : (x > 6.0 ? 6.0 : x);
    case 4:
      return tanh(x);
    case 6:
      return 1.0 / (1.0 + exp(-x));
    default:
      return x;
  }
}

static char temp_root[256];

/* A fresh empty folder under the test's temporary root. */
static void make_dir(char* path, size_t size, const char* name) {
  lg_test_make_dir(path, size, temp_root, name);
}

/* Number of cache entries; the first one's path goes to `first`. */
static int cache_files(const char* dir, char* first, size_t size) {
  return lg_test_cache_files(dir, "litegpu-cl-", first, size);
}

/* Uploads n floats to a fresh buffer (as float16 when `half`) with `guard`
 * more elements of `fill` after them. */
static lg_gpu_buffer* upload_values(lg_gpu_backend* be, const float* v,
                                    size_t n, size_t guard, float fill,
                                    bool half) {
  const size_t total = n + guard;
  const size_t bytes = total * (half ? sizeof(uint16_t) : sizeof(float));
  float* f = malloc(total * sizeof(float));
  uint16_t* h = malloc(total * sizeof(uint16_t));
  assert_true(f != NULL && h != NULL);
  for (size_t i = 0; i < total; ++i) f[i] = i < n ? v[i] : fill;
  lg_fp32_to_fp16_array(f, h, total);
  lg_gpu_error error = {{0}};
  lg_gpu_buffer* buf = NULL;
  assert_int_equal(be->ops->buffer_create(be, bytes, &buf, &error), kTfLiteOk);
  assert_int_equal(lg_gpu_buffer_upload(be, buf, 0, half ? (void*)h : (void*)f,
                                        bytes, &error),
                   kTfLiteOk);
  assert_int_equal(be->ops->finish(be, &error), kTfLiteOk); /* f, h freed */
  free(h);
  free(f);
  return buf;
}

/* Downloads n floats (float16 when `half`) into out. */
static void download_values(lg_gpu_backend* be, lg_gpu_buffer* buf, float* out,
                            size_t n, bool half) {
  lg_gpu_error error = {{0}};
  if (!half) {
    assert_int_equal(
        lg_gpu_buffer_download(be, buf, 0, out, n * sizeof(float), &error),
        kTfLiteOk);
    return;
  }
  uint16_t* h = malloc(n * sizeof(uint16_t));
  assert_non_null(h);
  assert_int_equal(
      lg_gpu_buffer_download(be, buf, 0, h, n * sizeof(uint16_t), &error),
      kTfLiteOk);
  lg_fp16_to_fp32_array(h, out, n);
  free(h);
}

/* Runs add with `defines` on n elements; checks against the reference
 * within `tol` (relative to max(1, |ref|)) and checks guard values after
 * the output. On a backend with half storage the buffers hold float16 and
 * the reference adds the inputs as rounded to half. */
static void run_add(lg_gpu_backend* be, size_t n, const char* defines,
                    int activation, double tol) {
  enum { kGuard = 16 };
  const float sentinel = -12344.0f; /* exact in float16 too */
  const bool half = be->fp16_storage;
  lg_gpu_error error = {{0}};
  float* a = malloc(n * sizeof(float));
  float* b = malloc(n * sizeof(float));
  float* out = malloc((n + kGuard) * sizeof(float));
  assert_true(a != NULL && b != NULL && out != NULL);
  fill_values(a, n, 1234u + (uint32_t)n, -8.0f, 8.0f);
  fill_values(b, n, 99u + (uint32_t)n, -4.0f, 4.0f);
  for (size_t i = 0; i < n && half; ++i) {
    a[i] = lg_fp16_to_fp32(lg_fp32_to_fp16(a[i]));
    b[i] = lg_fp16_to_fp32(lg_fp32_to_fp16(b[i]));
  }

  lg_gpu_kernel* k = NULL;
  const lg_gpu_backend_ops* ops = be->ops;
  lg_gpu_buffer* ba = upload_values(be, a, n, 0, 0.0f, half);
  lg_gpu_buffer* bb = upload_values(be, b, n, 0, 0.0f, half);
  lg_gpu_buffer* bo = upload_values(be, a, 0, n + kGuard, sentinel, half);
  if (ops->kernel_create(be, "add", defines, &k, &error) != kTfLiteOk) {
    fail_msg("kernel_create(add, %s): %s", defines, error.message);
  }
  lg_gpu_arg args[] = {LG_GPU_ARG_BUFFER(ba), LG_GPU_ARG_BUFFER(bb),
                       LG_GPU_ARG_BUFFER(bo), LG_GPU_ARG_INT((int32_t)n)};
  size_t global[1] = {n};
  assert_int_equal(lg_gpu_dispatch(be, k, args, 4, 1, global, NULL, &error),
                   kTfLiteOk);
  assert_int_equal(ops->submit(be, &error), kTfLiteOk);
  assert_int_equal(ops->finish(be, &error), kTfLiteOk);
  download_values(be, bo, out, n + kGuard, half);
  for (size_t i = 0; i < n; ++i) {
    double ref = activate_ref((double)a[i] + (double)b[i], activation);
    double limit = tol * (fabs(ref) > 1.0 ? fabs(ref) : 1.0);
    /* tol 0: the float result must be the correctly rounded one. */
    bool ok =
        tol == 0.0 ? out[i] == (float)ref : fabs((double)out[i] - ref) <= limit;
    if (!ok) {
      fail_msg("add n=%zu %s: index %zu got %.9g want %.9g (a %.9g b %.9g)", n,
               defines, i, (double)out[i], ref, (double)a[i], (double)b[i]);
    }
  }
  for (size_t i = n; i < n + kGuard; ++i) {
    if (out[i] != sentinel) fail_msg("add n=%zu wrote guard %zu", n, i);
  }
  ops->kernel_release(be, k);
  ops->buffer_release(be, bo);
  ops->buffer_release(be, bb);
  ops->buffer_release(be, ba);
  free(out);
  free(b);
  free(a);
}

/* ---- Device ------------------------------------------------------------- */

static void test_device_info(void** state) {
  (void)state;
  lg_gpu_backend* be = NULL;
  lg_gpu_error error = {{0}};
  /* NULL options: device 0, fp32, no cache. */
  if (lg_opencl_backend_create(NULL, &be, &error) != kTfLiteOk) {
    fail_msg("no usable OpenCL device: %s", error.message);
  }
  const lg_gpu_device_info* d = &be->device;
  print_message(
      "OpenCL device: %s | %s | %s | %s | %u CUs | wg %zu | "
      "fp16 %d | align %u\n",
      d->name, d->vendor, d->driver_version, d->api_version,
      d->max_compute_units, d->max_work_group_size, (int)d->fp16,
      d->buffer_alignment);
  assert_string_equal(be->name, "OpenCL");
  assert_true(strlen(d->name) > 0);
  assert_true(strlen(d->vendor) > 0);
  assert_true(strlen(d->driver_version) > 0);
  assert_int_equal(strncmp(d->api_version, "OpenCL ", 7), 0);
  assert_true(d->global_memory_bytes > 0);
  assert_true(d->max_buffer_bytes > 0);
  assert_true(d->max_buffer_bytes <= d->global_memory_bytes);
  assert_true(d->max_work_group_size >= 1);
  for (int i = 0; i < 3; ++i) assert_true(d->max_work_item_sizes[i] >= 1);
  assert_true(d->max_compute_units >= 1);
  /* OpenCL has no lockstep-width query: unknown, and the lowerings keep
   * their PoCL-tuned shapes. */
  assert_int_equal(d->simd_width, 0);
  /* The spec's minimum is the largest built-in type (long16: 128 bytes). */
  assert_true(d->buffer_alignment >= 16);
  assert_int_equal(d->buffer_alignment & (d->buffer_alignment - 1), 0);
  lg_opencl_stats stats;
  assert_int_equal(lg_opencl_backend_stats(be, &stats), kTfLiteOk);
  assert_int_equal(lg_opencl_backend_stats(NULL, &stats), kTfLiteError);
  lg_gpu_backend_destroy(be);
  lg_gpu_backend_destroy(NULL);

  lg_gpu_backend_options options = {
      .device_index = 1000, .allow_fp16 = false, .cache_dir = NULL};
  be = (lg_gpu_backend*)&error; /* must be reset to NULL */
  assert_int_equal(lg_opencl_backend_create(&options, &be, &error),
                   kTfLiteError);
  assert_null(be);
  assert_non_null(strstr(error.message, "device_index 1000 out of range"));
  options.device_index = -1;
  assert_int_equal(lg_opencl_backend_create(&options, &be, NULL),
                   kTfLiteError); /* NULL error is allowed */
  assert_int_equal(lg_opencl_live_objects(), 0);
}

/* ---- Buffers ------------------------------------------------------------ */

static void test_buffer_round_trip(void** state) {
  (void)state;
  lg_gpu_backend* be = create_backend(NULL, false);
  const lg_gpu_backend_ops* ops = be->ops;
  lg_gpu_error error = {{0}};
  enum { kBytes = 4099 }; /* odd on purpose */
  unsigned char host[kBytes], back[kBytes];
  for (int i = 0; i < kBytes; ++i) host[i] = (unsigned char)(i * 7 + 3);
  lg_gpu_buffer* buf = NULL;
  assert_int_equal(ops->buffer_create(be, kBytes, &buf, &error), kTfLiteOk);
  assert_int_equal(lg_gpu_buffer_upload(be, buf, 0, host, kBytes, &error),
                   kTfLiteOk);
  memset(back, 0, sizeof(back));
  assert_int_equal(lg_gpu_buffer_download(be, buf, 0, back, kBytes, &error),
                   kTfLiteOk);
  assert_memory_equal(back, host, kBytes);

  /* Partial writes and reads at odd offsets. */
  unsigned char patch[37];
  memset(patch, 0xAB, sizeof(patch));
  assert_int_equal(
      lg_gpu_buffer_upload(be, buf, 1001, patch, sizeof(patch), &error),
      kTfLiteOk);
  memcpy(host + 1001, patch, sizeof(patch));
  assert_int_equal(lg_gpu_buffer_download(be, buf, 0, back, kBytes, &error),
                   kTfLiteOk);
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
  /* The failed calls changed nothing. */
  assert_int_equal(lg_gpu_buffer_download(be, buf, 0, back, kBytes, &error),
                   kTfLiteOk);
  assert_memory_equal(back, host, kBytes);

  lg_gpu_buffer* bad = (lg_gpu_buffer*)&error;
  assert_int_equal(ops->buffer_create(be, 0, &bad, &error), kTfLiteError);
  assert_null(bad);
  assert_int_equal(
      ops->buffer_create(be, (size_t)be->device.max_buffer_bytes + 1, &bad,
                         &error),
      kTfLiteError);
  assert_non_null(strstr(error.message, "CL_DEVICE_MAX_MEM_ALLOC_SIZE"));
  ops->buffer_release(be, buf);
  ops->buffer_release(be, NULL);
  ops->kernel_release(be, NULL);
  lg_gpu_backend_destroy(be);
  assert_int_equal(lg_opencl_live_objects(), 0);
}

/* buffer_download_batch: every copy right (an offset, an empty one), one
 * wait for all (one clWaitForEvents: a failure armed for the second call
 * does not fire), a bad entry refused before anything is enqueued, and an
 * enqueue failure in the middle reported by name. */
static void test_download_batch(void** state) {
  (void)state;
  lg_gpu_backend* be = create_backend(NULL, false);
  const lg_gpu_backend_ops* ops = be->ops;
  lg_gpu_error error = {{0}};
  enum { kA = 1000, kB = 333 };
  unsigned char a[kA], b[kB], back_a[kA], back_b[kB], tail[7];
  for (int i = 0; i < kA; ++i) a[i] = (unsigned char)(i * 5 + 1);
  for (int i = 0; i < kB; ++i) b[i] = (unsigned char)(i * 11 + 2);
  lg_gpu_buffer *buf_a = NULL, *buf_b = NULL;
  assert_int_equal(ops->buffer_create(be, kA, &buf_a, &error), kTfLiteOk);
  assert_int_equal(ops->buffer_create(be, kB, &buf_b, &error), kTfLiteOk);
  assert_int_equal(lg_gpu_buffer_upload(be, buf_a, 0, a, kA, &error),
                   kTfLiteOk);
  assert_int_equal(lg_gpu_buffer_upload(be, buf_b, 0, b, kB, &error),
                   kTfLiteOk);
  memset(back_a, 0, kA);
  memset(back_b, 0, kB);
  memset(tail, 0, sizeof(tail));
  const lg_gpu_download list[] = {
      {buf_a, 0, back_a, kA},
      {buf_b, 0, tail, 0},
      {buf_b, 0, back_b, kB},
      {buf_a, kA - 7, tail, 7},
  };
  lg_opencl_fail_call("clWaitForEvents", 2);
  assert_int_equal(lg_gpu_buffer_download_batch(be, list, 4, &error),
                   kTfLiteOk);
  assert_false(lg_opencl_fail_fired());
  assert_memory_equal(back_a, a, kA);
  assert_memory_equal(back_b, b, kB);
  assert_memory_equal(tail, a + kA - 7, 7);
  /* The armed failure is the next wait's. */
  assert_int_equal(lg_gpu_buffer_download(be, buf_b, 0, back_b, kB, &error),
                   kTfLiteError);
  assert_true(lg_opencl_fail_fired());
  assert_non_null(strstr(error.message, "clWaitForEvents"));
  lg_opencl_fail_call(NULL, 0);

  /* The third copy reads past buf_b: refused, the first not made. */
  memset(back_a, 0, kA);
  const lg_gpu_download bad[] = {
      {buf_a, 0, back_a, kA}, {buf_b, 0, back_b, kB}, {buf_b, 1, back_b, kB}};
  assert_int_equal(lg_gpu_buffer_download_batch(be, bad, 3, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "outside the 333-byte buffer"));
  assert_int_equal(back_a[1], 0);
  assert_int_equal(lg_gpu_buffer_download_batch(be, NULL, 2, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "buffer_download"));
  assert_int_equal(lg_gpu_buffer_download_batch(be, list, 0, &error),
                   kTfLiteOk);

  lg_opencl_fail_call("clEnqueueReadBuffer", 2);
  assert_int_equal(lg_gpu_buffer_download_batch(be, list, 4, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "clEnqueueReadBuffer failed"));
  lg_opencl_fail_call(NULL, 0);
  assert_int_equal(ops->finish(be, &error), kTfLiteOk);
  ops->buffer_release(be, buf_a);
  ops->buffer_release(be, buf_b);
  lg_gpu_backend_destroy(be);
  assert_int_equal(lg_opencl_live_objects(), 0);
}

/* download_begin: the reads are enqueued after a pending dispatch and the
 * call returns with a fence; after fence_wait the bytes are right (a
 * second wait is a no-op); bad copies and a NULL fence are refused. */
static void test_download_begin(void** state) {
  (void)state;
  lg_gpu_backend* be = create_backend(NULL, false);
  const lg_gpu_backend_ops* ops = be->ops;
  enum { kN = 1000 };
  float a[kN], b[kN], out[kN], head[2];
  fill_values(a, kN, 7u, -4.0f, 4.0f);
  fill_values(b, kN, 8u, -4.0f, 4.0f);
  lg_gpu_buffer* ba = upload_values(be, a, kN, 0, 0.0f, false);
  lg_gpu_buffer* bb = upload_values(be, b, kN, 0, 0.0f, false);
  lg_gpu_buffer* bo = upload_values(be, a, 0, kN, 0.0f, false);
  lg_gpu_error error = {{0}};
  lg_gpu_kernel* k = NULL;
  assert_int_equal(ops->kernel_create(be, "add", NULL, &k, &error), kTfLiteOk);
  lg_gpu_arg args[] = {LG_GPU_ARG_BUFFER(ba), LG_GPU_ARG_BUFFER(bb),
                       LG_GPU_ARG_BUFFER(bo), LG_GPU_ARG_INT(kN)};
  size_t global[1] = {kN};
  assert_int_equal(lg_gpu_dispatch(be, k, args, 4, 1, global, NULL, &error),
                   kTfLiteOk);
  const lg_gpu_download list[] = {{bo, 0, out, sizeof(out)},
                                  {ba, 0, head, 0},
                                  {bb, sizeof(float), head, sizeof(head)}};
  lg_gpu_fence* fence = NULL;
  assert_int_equal(lg_gpu_download_begin(be, list, 3, &fence, &error),
                   kTfLiteOk);
  assert_non_null(fence);
  assert_int_equal(ops->fence_wait(be, fence, &error), kTfLiteOk);
  for (int i = 0; i < kN; ++i) {
    if (out[i] != a[i] + b[i]) {
      fail_msg("index %d: got %.9g want %.9g", i, (double)out[i],
               (double)(a[i] + b[i]));
    }
  }
  assert_memory_equal(head, b + 1, sizeof(head));
  assert_int_equal(ops->fence_wait(be, fence, &error), kTfLiteOk);
  ops->fence_release(be, fence);
  ops->fence_release(be, NULL);
  assert_int_equal(ops->fence_wait(be, NULL, &error), kTfLiteError);

  const lg_gpu_download bad[] = {{bo, 4, out, sizeof(out)}};
  assert_int_equal(lg_gpu_download_begin(be, bad, 1, &fence, &error),
                   kTfLiteError);
  assert_null(fence);
  assert_non_null(strstr(error.message, "outside the 4000-byte buffer"));
  assert_int_equal(lg_gpu_download_begin(be, list, 1, NULL, &error),
                   kTfLiteError);
  ops->kernel_release(be, k);
  ops->buffer_release(be, bo);
  ops->buffer_release(be, bb);
  ops->buffer_release(be, ba);
  lg_gpu_backend_destroy(be);
  assert_int_equal(lg_opencl_live_objects(), 0);
}
/* ---- Kernels ------------------------------------------------------------ */

static void test_add_odd_sizes(void** state) {
  (void)state;
  lg_gpu_backend* be = create_backend(NULL, false);
  static const size_t sizes[] = {1, 3, 17, 1000003};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    /* float add is correctly rounded: exact against the double sum. */
    run_add(be, sizes[i], NULL, 0, 0.0);
  }
  lg_gpu_backend_destroy(be);
  assert_int_equal(lg_opencl_live_objects(), 0);
}

static void test_activations(void** state) {
  (void)state;
  lg_gpu_backend* be = create_backend(NULL, false);
  static const struct {
    int activation;
    double tol;
  } cases[] = {{0, 0.0},
               {1, 0.0},
               {2, 0.0},
               {3, 0.0},
               /* tanh and exp have a few ulp of error in OpenCL C. */
               {4, 1e-5},
               {6, 1e-5}};
  char defines[64];
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    snprintf(defines, sizeof(defines), "-DACTIVATION=%d", cases[i].activation);
    run_add(be, 1000, defines, cases[i].activation, cases[i].tol);
    run_add(be, 17, defines, cases[i].activation, cases[i].tol);
  }
  lg_gpu_backend_destroy(be);

  /* Half precision when allowed (and only when the device has it). */
  be = create_backend(NULL, true);
  run_add(be, 1003, "-DACTIVATION=1", 1, be->device.fp16 ? 1e-2 : 0.0);
  lg_gpu_backend_destroy(be);
  assert_int_equal(lg_opencl_live_objects(), 0);
}

static void test_kernel_errors(void** state) {
  (void)state;
  lg_gpu_backend* be = create_backend(NULL, false);
  const lg_gpu_backend_ops* ops = be->ops;
  lg_gpu_error error = {{0}};
  lg_gpu_kernel* k = NULL;
  assert_int_equal(ops->kernel_create(be, "no_such_kernel", NULL, &k, &error),
                   kTfLiteError);
  assert_null(k);
  assert_non_null(strstr(error.message, "shaders/kernels/no_such_kernel.lgk"));
  /* The preamble every kernel is built with is not a kernel itself. */
  assert_true(ops->has_kernel(be, "add"));
  assert_false(ops->has_kernel(be, "lg_types"));
  assert_int_equal(ops->kernel_create(be, "lg_types", NULL, &k, &error),
                   kTfLiteError);
  assert_null(k);
  /* A real compile error: the message carries the driver's build log. */
  assert_int_equal(ops->kernel_create(be, "add", "-DACTIVATION=)", &k, &error),
                   kTfLiteError);
  assert_null(k);
  assert_non_null(strstr(error.message,
                         "clBuildProgram failed: "
                         "CL_BUILD_PROGRAM_FAILURE (-11)"));
  assert_non_null(strstr(error.message, "build log"));
  /* Bad dispatches. */
  assert_int_equal(ops->kernel_create(be, "copy", NULL, &k, &error), kTfLiteOk);
  size_t global[3] = {8, 1, 1};
  size_t zero[1] = {0};
  assert_int_equal(lg_gpu_dispatch(be, k, NULL, 0, 4, global, NULL, &error),
                   kTfLiteError);
  assert_int_equal(lg_gpu_dispatch(be, k, NULL, 0, 1, zero, NULL, &error),
                   kTfLiteError);
  lg_gpu_arg null_buffer[] = {LG_GPU_ARG_BUFFER(NULL)};
  assert_int_equal(
      lg_gpu_dispatch(be, k, null_buffer, 1, 1, global, NULL, &error),
      kTfLiteError);
  assert_non_null(strstr(error.message, "NULL buffer"));
  assert_string_equal(lg_cl_error_name(-5), "CL_OUT_OF_RESOURCES");
  assert_string_equal(lg_cl_error_name(12345), "unknown CL error");
  ops->kernel_release(be, k);
  lg_gpu_backend_destroy(be);
  assert_int_equal(lg_opencl_live_objects(), 0);
}

/* ---- Local size --------------------------------------------------------- */

static void check_local(const lg_gpu_device_info* d, size_t kernel_max,
                        int dims, const size_t* global) {
  size_t local[3] = {0, 0, 0};
  lg_cl_choose_local_size(d, kernel_max, 1, dims, global, local);
  size_t product = 1;
  for (int i = 0; i < dims; ++i) {
    assert_true(local[i] >= 1);
    assert_true(local[i] <= d->max_work_item_sizes[i]);
    assert_int_equal(local[i] & (local[i] - 1), 0);
    /* Never more than one power of two past the extent. */
    assert_true(local[i] == 1 || local[i] / 2 < global[i]);
    product *= local[i];
  }
  assert_true(product <= kernel_max && product <= d->max_work_group_size);
  assert_true(product <= 256);
}

static void test_local_size_selection(void** state) {
  (void)state;
  /* Synthetic GPU-like limits: the rule must respect every one. */
  lg_gpu_device_info small = {0};
  small.max_work_group_size = 64;
  small.max_work_item_sizes[0] = 32;
  small.max_work_item_sizes[1] = 8;
  small.max_work_item_sizes[2] = 2;
  static const size_t globals[][3] = {
      {1, 1, 1},    {3, 1, 1},   {1000003, 1, 1}, {37, 19, 1},
      {1, 1000, 1}, {5, 7, 300}, {4096, 4096, 64}};
  for (size_t g = 0; g < sizeof(globals) / sizeof(globals[0]); ++g) {
    for (int dims = 1; dims <= 3; ++dims) {
      check_local(&small, 64, dims, globals[g]);
      check_local(&small, 24, dims, globals[g]); /* kernel below device */
      check_local(&small, 1, dims, globals[g]);
    }
  }
  size_t local[3];
  size_t big[1] = {1000003};
  lg_cl_choose_local_size(&small, 64, 1, 1, big, local);
  assert_int_equal(local[0], 32); /* capped by max_work_item_sizes[0] */
  /* Spread over the compute units once a group holds the preferred
   * multiple (8): 125 items on 2 units make 2 groups of 64, not one of
   * 128; on 16 units 16 groups of 8; with more units than that, groups
   * still hold the multiple; on one unit, one group. */
  lg_gpu_device_info cpu = {0};
  cpu.max_work_group_size = 4096;
  cpu.max_work_item_sizes[0] = 4096;
  size_t gemv[1] = {125};
  cpu.max_compute_units = 2;
  lg_cl_choose_local_size(&cpu, 4096, 8, 1, gemv, local);
  assert_int_equal(local[0], 64);
  cpu.max_compute_units = 16;
  lg_cl_choose_local_size(&cpu, 4096, 8, 1, gemv, local);
  assert_int_equal(local[0], 8);
  cpu.max_compute_units = 64; /* fewer groups than units: still the multiple */
  lg_cl_choose_local_size(&cpu, 4096, 8, 1, gemv, local);
  assert_int_equal(local[0], 8);
  cpu.max_compute_units = 1;
  lg_cl_choose_local_size(&cpu, 4096, 8, 1, gemv, local);
  assert_int_equal(local[0], 128);

  /* On the real device, through dispatch: a 2-D grid with odd extents. */
  lg_gpu_backend* be = create_backend(NULL, false);
  const lg_gpu_backend_ops* ops = be->ops;
  lg_gpu_error error = {{0}};
  lg_gpu_kernel* k = NULL;
  lg_gpu_buffer* buf = NULL;
  const int width = 37, height = 19;
  float out[37 * 19];
  assert_int_equal(ops->kernel_create(be, "fill2d", NULL, &k, &error),
                   kTfLiteOk);
  size_t kmax = ops->kernel_max_work_group_size(be, k);
  assert_true(kmax >= 1 && kmax <= be->device.max_work_group_size);
  assert_int_equal(ops->buffer_create(be, sizeof(out), &buf, &error),
                   kTfLiteOk);
  lg_gpu_arg args[] = {LG_GPU_ARG_BUFFER(buf), LG_GPU_ARG_INT(width),
                       LG_GPU_ARG_INT(height)};
  size_t global[2] = {(size_t)width, (size_t)height};
  assert_int_equal(lg_gpu_dispatch(be, k, args, 3, 2, global, NULL, &error),
                   kTfLiteOk);
  lg_opencl_stats stats;
  assert_int_equal(lg_opencl_backend_stats(be, &stats), kTfLiteOk);
  assert_int_equal(stats.last_dims, 2);
  size_t product = 1;
  for (int i = 0; i < 2; ++i) {
    assert_true(stats.last_local[i] <= be->device.max_work_item_sizes[i]);
    assert_int_equal(stats.last_global[i] % stats.last_local[i], 0);
    assert_true(stats.last_global[i] >= global[i]);
    assert_true(stats.last_global[i] - global[i] < stats.last_local[i]);
    product *= stats.last_local[i];
  }
  assert_true(product <= kmax);
  assert_int_equal(lg_gpu_buffer_download(be, buf, 0, out, sizeof(out), &error),
                   kTfLiteOk);
  for (int i = 0; i < width * height; ++i) {
    if (out[i] != (float)i) fail_msg("fill2d index %d got %g", i, out[i]);
  }
  /* A caller's local size is used as given, or rejected past the limits. */
  size_t local2[2] = {1, 1};
  assert_int_equal(lg_gpu_dispatch(be, k, args, 3, 2, global, local2, &error),
                   kTfLiteOk);
  assert_int_equal(lg_opencl_backend_stats(be, &stats), kTfLiteOk);
  assert_int_equal(stats.last_local[0], 1);
  assert_int_equal(stats.last_global[0], (size_t)width);
  size_t too_big[2] = {be->device.max_work_item_sizes[0] + 1, 1};
  assert_int_equal(lg_gpu_dispatch(be, k, args, 3, 2, global, too_big, &error),
                   kTfLiteError);
  assert_non_null(strstr(error.message, "CL_DEVICE_MAX_WORK_ITEM_SIZES"));
  assert_int_equal(ops->finish(be, &error), kTfLiteOk);
  ops->buffer_release(be, buf);
  ops->kernel_release(be, k);
  lg_gpu_backend_destroy(be);
  assert_int_equal(lg_opencl_live_objects(), 0);
}

/* ---- Program cache ------------------------------------------------------ */

/* Creates a backend on `dir`, builds add with `defines`, runs it once and
 * returns the stats; *seconds is the create + build time. */
static lg_opencl_stats cache_round(const char* dir, const char* defines,
                                   int activation, double* seconds) {
  double start = lg_now_seconds();
  lg_gpu_backend* be = create_backend(dir, false);
  lg_gpu_kernel* k = NULL;
  lg_gpu_error error = {{0}};
  if (be->ops->kernel_create(be, "add", defines, &k, &error) != kTfLiteOk) {
    fail_msg("kernel_create: %s", error.message);
  }
  if (seconds != NULL) *seconds = lg_now_seconds() - start;
  lg_opencl_stats stats;
  assert_int_equal(lg_opencl_backend_stats(be, &stats), kTfLiteOk);
  be->ops->kernel_release(be, k);
  run_add(be, 33, defines, activation, 0.0); /* the cached program works */
  lg_gpu_backend_destroy(be);
  return stats;
}

/* truncate_to: the bytes to keep (-1: all; TRUNCATE_HALF: half of them). */
#define TRUNCATE_HALF (-2)

static void rewrite_file(const char* path, long truncate_to, long flip_at) {
  FILE* f = fopen(path, "rb");
  assert_non_null(f);
  static unsigned char data[1 << 20];
  size_t n = fread(data, 1, sizeof(data), f);
  fclose(f);
  assert_true(n > 64 && n < sizeof(data));
  if (flip_at >= 0) data[(size_t)flip_at % n] ^= 0x5A;
  if (truncate_to == TRUNCATE_HALF) n /= 2;
  if (truncate_to >= 0 && (size_t)truncate_to < n) n = (size_t)truncate_to;
  f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, n, f), n);
  fclose(f);
}

static void expect_rebuild(const char* dir, const char* label) {
  lg_opencl_stats s = cache_round(dir, "-DACTIVATION=1", 1, NULL);
  if (s.cache_rejects != 1 || s.source_builds != 1 || s.cache_writes != 1 ||
      s.binary_loads != 0) {
    fail_msg("%s: rejects %llu builds %llu writes %llu loads %llu", label,
             (unsigned long long)s.cache_rejects,
             (unsigned long long)s.source_builds,
             (unsigned long long)s.cache_writes,
             (unsigned long long)s.binary_loads);
  }
  /* The rewritten entry is good again. */
  s = cache_round(dir, "-DACTIVATION=1", 1, NULL);
  assert_int_equal(s.binary_loads, 1);
  assert_int_equal(s.source_builds, 0);
}

static void test_program_cache(void** state) {
  (void)state;
  char dir[512], entry[1024];
  make_dir(dir, sizeof(dir), "cache");
  double cold = 0, warm = 0;
  lg_opencl_stats s = cache_round(dir, "-DACTIVATION=1", 1, &cold);
  assert_int_equal(s.source_builds, 1);
  assert_int_equal(s.cache_writes, 1);
  assert_int_equal(s.binary_loads, 0);
  assert_int_equal(cache_files(dir, entry, sizeof(entry)), 1);

  s = cache_round(dir, "-DACTIVATION=1", 1, &warm);
  assert_int_equal(s.source_builds, 0); /* compilation skipped */
  assert_int_equal(s.binary_loads, 1);
  assert_int_equal(s.cache_writes, 0);
  /* The times are a figure, not a check: NVIDIA's driver keeps its own
   * compile cache, so there a cold build can take as long as a load. */
  print_message("program cache: cold create+build %.1f ms, warm %.1f ms\n",
                cold * 1e3, warm * 1e3);

  rewrite_file(entry, -1, 4000); /* a flipped payload byte */
  expect_rebuild(dir, "flipped payload byte");
  rewrite_file(entry, -1, 20); /* a flipped key-hash byte in the header */
  expect_rebuild(dir, "flipped header byte");
  /* Truncated payload: half the file (NVIDIA's entry for this kernel is
   * under 2 KB, so a fixed length would leave it whole). */
  rewrite_file(entry, TRUNCATE_HALF, -1);
  expect_rebuild(dir, "truncated");
  rewrite_file(entry, 10, -1); /* shorter than the header */
  expect_rebuild(dir, "truncated header");
  rewrite_file(entry, 0, -1); /* empty */
  expect_rebuild(dir, "empty file");

  /* Other defines: another entry; the first one stays valid. */
  s = cache_round(dir, "-DACTIVATION=3", 3, NULL);
  assert_int_equal(s.source_builds, 1);
  assert_int_equal(s.cache_rejects, 0);
  assert_int_equal(cache_files(dir, NULL, 0), 2);
  s = cache_round(dir, "-DACTIVATION=1", 1, NULL);
  assert_int_equal(s.binary_loads, 1);

  /* A missing cache folder only disables caching. */
  char missing[600];
  snprintf(missing, sizeof(missing), "%s/does/not/exist", dir);
  s = cache_round(missing, NULL, 0, NULL);
  assert_int_equal(s.source_builds, 1);
  assert_int_equal(s.cache_writes, 0);
  lg_test_clear_dir(dir);
  assert_int_equal(lg_opencl_live_objects(), 0);
}

/* ---- Half storage ------------------------------------------------------- */

/* add on half buffers, checked bit for bit: inputs and expected sums are
 * float16 bit patterns worked out by hand. The float sum is exact, so the
 * stored half is that sum rounded to nearest, ties to even (vstore_half_rte);
 * the guard halves after the output must stay untouched (2-byte stores). */
static void check_half_add(lg_gpu_backend* be, const char* defines, bool relu) {
  static const struct {
    uint16_t a, b, sum;
    const char* what;
  } cases[] = {
      {0x3C00, 0x4000, 0x4200, "1 + 2 = 3"},
      {0x3800, 0x3400, 0x3A00, "0.5 + 0.25 = 0.75"},
      {0xBE00, 0x3800, 0xBC00, "-1.5 + 0.5 = -1"},
      {0x6800, 0x3C00, 0x6800, "2048 + 1: tie, even 2048"},
      {0x6800, 0x4200, 0x6802, "2048 + 3: tie, even 2052"},
      {0x3C00, 0x1000, 0x3C00, "1 + 2^-11: tie, even 1"},
      {0x3C00, 0x1600, 0x3C02, "1 + 1.5 * 2^-10: tie, even 1 + 2^-9"},
      {0x0001, 0x0001, 0x0002, "2^-24 + 2^-24 (subnormals)"},
      {0x7BFF, 0x4C00, 0x7C00, "65504 + 16 = 65520: rounds to inf"},
      {0x7BFF, 0x4800, 0x7BFF, "65504 + 8 = 65512: down to 65504"},
  };
  enum { kN = sizeof(cases) / sizeof(cases[0]), kGuard = 6 };
  const uint16_t guard = 0xCAFE;
  uint16_t a[kN], b[kN], out[kN + kGuard];
  for (int i = 0; i < kN; ++i) {
    a[i] = cases[i].a;
    b[i] = cases[i].b;
  }
  for (int i = 0; i < kN + kGuard; ++i) out[i] = guard;
  const lg_gpu_backend_ops* ops = be->ops;
  lg_gpu_error error = {{0}};
  lg_gpu_buffer *ba = NULL, *bb = NULL, *bo = NULL;
  lg_gpu_kernel* k = NULL;
  assert_int_equal(ops->buffer_create(be, sizeof(a), &ba, &error), kTfLiteOk);
  assert_int_equal(ops->buffer_create(be, sizeof(b), &bb, &error), kTfLiteOk);
  assert_int_equal(ops->buffer_create(be, sizeof(out), &bo, &error), kTfLiteOk);
  assert_int_equal(lg_gpu_buffer_upload(be, ba, 0, a, sizeof(a), &error),
                   kTfLiteOk);
  assert_int_equal(lg_gpu_buffer_upload(be, bb, 0, b, sizeof(b), &error),
                   kTfLiteOk);
  assert_int_equal(lg_gpu_buffer_upload(be, bo, 0, out, sizeof(out), &error),
                   kTfLiteOk);
  if (ops->kernel_create(be, "add", defines, &k, &error) != kTfLiteOk) {
    fail_msg("kernel_create(add, %s) in half storage: %s", defines,
             error.message);
  }
  lg_gpu_arg args[] = {LG_GPU_ARG_BUFFER(ba), LG_GPU_ARG_BUFFER(bb),
                       LG_GPU_ARG_BUFFER(bo), LG_GPU_ARG_INT(kN)};
  size_t global[1] = {kN};
  assert_int_equal(lg_gpu_dispatch(be, k, args, 4, 1, global, NULL, &error),
                   kTfLiteOk);
  assert_int_equal(ops->finish(be, &error), kTfLiteOk);
  memset(out, 0, sizeof(out));
  assert_int_equal(lg_gpu_buffer_download(be, bo, 0, out, sizeof(out), &error),
                   kTfLiteOk);
  for (int i = 0; i < kN; ++i) {
    /* relu: a negative sum (sign bit set) becomes +0. */
    const uint16_t want =
        relu && (cases[i].sum & 0x8000) ? 0x0000 : cases[i].sum;
    if (out[i] != want) {
      fail_msg("half add %s (%s): got 0x%04x want 0x%04x", cases[i].what,
               defines != NULL ? defines : "no defines", out[i], want);
    }
  }
  for (int i = kN; i < kN + kGuard; ++i) {
    if (out[i] != guard) fail_msg("half add wrote guard half %d", i);
  }
  ops->kernel_release(be, k);
  ops->buffer_release(be, bo);
  ops->buffer_release(be, bb);
  ops->buffer_release(be, ba);
}

/* The precision rule: half storage when fp16 is allowed and the device has
 * cl_khr_fp16, else float32; the test hook gives half storage (without
 * half arithmetic) on any device, and only where fp16 is allowed. */
static void test_fp16_storage(void** state) {
  (void)state;
  char dir[512];
  make_dir(dir, sizeof(dir), "fp16");
  unsetenv(FP16_HOOK);
  /* No hook: "else fp32" on a device without cl_khr_fp16 (PoCL). */
  lg_gpu_backend* be = create_backend(NULL, true);
  assert_int_equal(be->fp16_storage, be->device.fp16);
  if (!be->device.fp16) run_add(be, 257, NULL, 0, 0.0); /* float buffers */
  lg_gpu_backend_destroy(be);

  assert_int_equal(setenv(FP16_HOOK, "1", 1), 0);
  /* The hook without allow_fp16: float32, exact float adds. */
  be = create_backend(NULL, false);
  assert_false(be->fp16_storage);
  run_add(be, 257, "-DACTIVATION=3", 3, 0.0);
  lg_gpu_backend_destroy(be);

  /* The hook with allow_fp16: half buffers end to end. Built without
   * LG_HALF_MATH, which a device without cl_khr_fp16 could not compile. */
  be = create_backend(dir, true);
  assert_true(be->fp16_storage);
  check_half_add(be, NULL, false);
  check_half_add(be, "-DACTIVATION=1", true);
  run_add(be, 1003, "-DACTIVATION=6", 6, 1e-2);
  lg_opencl_stats stats;
  assert_int_equal(lg_opencl_backend_stats(be, &stats), kTfLiteOk);
  assert_int_equal(stats.source_builds, 3);
  lg_gpu_backend_destroy(be);
  /* Other values of the variable are not the hook. */
  assert_int_equal(setenv(FP16_HOOK, "0", 1), 0);
  be = create_backend(NULL, true);
  assert_int_equal(be->fp16_storage, be->device.fp16);
  lg_gpu_backend_destroy(be);
  unsetenv(FP16_HOOK);

  /* The cache keys the half build apart: the float32 build of the same
   * kernel and defines is compiled, not loaded from the half entry. */
  lg_opencl_stats s = cache_round(dir, NULL, 0, NULL);
  assert_int_equal(s.source_builds, 1);
  assert_int_equal(s.binary_loads, 0);
  assert_int_equal(cache_files(dir, NULL, 0), 4);
  lg_test_clear_dir(dir);
  assert_int_equal(lg_opencl_live_objects(), 0);
}

/* ---- Injected failures -------------------------------------------------- */

/* Every CL call the backend checks, in roughly the order it makes them. */
static const char* const kCalls[] = {
    "clGetPlatformIDs",
    "clGetDeviceIDs",
    "clGetDeviceInfo",
    "clCreateContext",
    "clCreateCommandQueue",
    "clCreateBuffer",
    "clEnqueueWriteBuffer",
    "clCreateProgramWithSource",
    "clCreateProgramWithBinary",
    "clBuildProgram",
    "clGetProgramInfo",
    "clCreateKernel",
    "clGetKernelWorkGroupInfo",
    "clSetKernelArg",
    "clEnqueueNDRangeKernel",
    "clFlush",
    "clFinish",
    "clEnqueueReadBuffer",
    "clGetEventInfo",
    "clWaitForEvents",
};

/* Failures the backend recovers from by design: a cache entry the driver
 * refuses is rebuilt from source, a binary it cannot read back is not
 * cached. */
static bool recoverable(const char* call, bool warm) {
  if (strcmp(call, "clGetProgramInfo") == 0) return true;
  if (strcmp(call, "clCreateProgramWithBinary") == 0) return true;
  return warm && strcmp(call, "clBuildProgram") == 0;
}

/* The calls a cold cache adds: compile from source and write the entry. */
static bool on_build_path(const char* call) {
  return strcmp(call, "clCreateProgramWithSource") == 0 ||
         strcmp(call, "clBuildProgram") == 0 ||
         strcmp(call, "clGetProgramInfo") == 0;
}

/* The whole life of a small job; returns the first failure. */
static TfLiteStatus scenario(const char* cache_dir, lg_gpu_error* error) {
  lg_gpu_backend_options options = {
      .device_index = 0, .allow_fp16 = false, .cache_dir = cache_dir};
  lg_gpu_backend* be = NULL;
  lg_gpu_buffer *src = NULL, *dst = NULL;
  lg_gpu_kernel* k = NULL;
  float in[5] = {1, 2, 3, 4, 5}, out[5] = {0};
  TfLiteStatus status = lg_opencl_backend_create(&options, &be, error);
  if (status != kTfLiteOk) goto done;
  const lg_gpu_backend_ops* ops = be->ops;
  status = ops->buffer_create(be, sizeof(in), &src, error);
  if (status == kTfLiteOk)
    status = ops->buffer_create(be, sizeof(out), &dst, error);
  if (status == kTfLiteOk)
    status = lg_gpu_buffer_upload(be, src, 0, in, sizeof(in), error);
  if (status == kTfLiteOk)
    status = ops->kernel_create(be, "copy", NULL, &k, error);
  lg_gpu_arg args[] = {LG_GPU_ARG_BUFFER(src), LG_GPU_ARG_BUFFER(dst),
                       LG_GPU_ARG_INT(5)};
  size_t global[1] = {5};
  if (status == kTfLiteOk)
    status = lg_gpu_dispatch(be, k, args, 3, 1, global, NULL, error);
  if (status == kTfLiteOk) status = ops->submit(be, error);
  if (status == kTfLiteOk) status = ops->finish(be, error);
  if (status == kTfLiteOk)
    status = lg_gpu_buffer_download(be, dst, 0, out, sizeof(out), error);
  if (status == kTfLiteOk) assert_memory_equal(in, out, sizeof(in));
  ops->kernel_release(be, k);
  ops->buffer_release(be, dst);
  ops->buffer_release(be, src);
done:
  lg_gpu_backend_destroy(be);
  return status;
}

static void test_injected_failures(void** state) {
  (void)state;
  char dir[512];
  make_dir(dir, sizeof(dir), "faults");
  lg_gpu_error error;
  int total_failures = 0;
  for (int warm = 0; warm <= 1; ++warm) {
    /* Warm: one valid entry, kept (a recovered failure rewrites it valid);
     * every call is swept. Cold: the folder is emptied before each run so
     * the source build and cache write run; only the calls on that path
     * are swept (the others behave the same as warm, and each cold run
     * costs a compile). */
    lg_test_clear_dir(dir);
    if (warm) assert_int_equal(scenario(dir, &error), kTfLiteOk);
    for (size_t c = 0; c < sizeof(kCalls) / sizeof(kCalls[0]); ++c) {
      const char* call = kCalls[c];
      int failures = 0, fired_count = 0;
      if (!warm && !on_build_path(call)) continue;
      for (int nth = 1; nth < 100; ++nth) {
        if (!warm) lg_test_clear_dir(dir);
        memset(&error, 0, sizeof(error));
        lg_opencl_fail_call(call, nth);
        TfLiteStatus status = scenario(dir, &error);
        bool fired = lg_opencl_fail_fired();
        lg_opencl_fail_call(NULL, 0);
        assert_int_equal(lg_opencl_live_objects(), 0);
        if (!fired) {
          assert_int_equal(status, kTfLiteOk);
          break;
        }
        ++fired_count;
        if (status == kTfLiteOk) {
          if (!recoverable(call, warm)) {
            fail_msg("%s #%d (%s cache) failed but the job succeeded", call,
                     nth, warm ? "warm" : "cold");
          }
          continue;
        }
        ++failures;
        if (strstr(error.message, call) == NULL ||
            strstr(error.message, "CL_") == NULL) {
          fail_msg(
              "%s #%d (%s cache): message does not name the call and "
              "the CL error: '%s'",
              call, nth, warm ? "warm" : "cold", error.message);
        }
      }
      /* Every call was reached (a warm cache skips the source build and
       * the cache write); the unrecoverable ones failed the job. */
      bool reached = fired_count > 0 || (warm && on_build_path(call) &&
                                         strcmp(call, "clBuildProgram") != 0);
      if (!reached) fail_msg("%s never reached (%d)", call, warm);
      if (fired_count > 0 && !recoverable(call, warm) && failures == 0) {
        fail_msg("%s: no failure observed", call);
      }
      total_failures += failures;
    }
  }
  print_message("injected failures: %d, all named the call\n", total_failures);
  lg_test_clear_dir(dir);
  assert_int_equal(lg_opencl_live_objects(), 0);
}

static int setup_temp(void** state) {
  (void)state;
  return lg_test_temp_root_create(temp_root, sizeof(temp_root),
                                  "lg_opencl_test");
}

static int teardown_temp(void** state) {
  (void)state;
  lg_test_temp_root_remove(temp_root);
  return 0;
}

int main(void) {
  /* PoCL keeps its own compiled-kernel cache; off, so the cold build in
   * the cache test is a real compile. Other drivers ignore the variable. */
  setenv("POCL_KERNEL_CACHE", "0", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_info),
      cmocka_unit_test(test_buffer_round_trip),
      cmocka_unit_test(test_download_batch),
      cmocka_unit_test(test_download_begin),
      cmocka_unit_test(test_add_odd_sizes),
      cmocka_unit_test(test_activations),
      cmocka_unit_test(test_kernel_errors),
      cmocka_unit_test(test_local_size_selection),
      cmocka_unit_test(test_program_cache),
      cmocka_unit_test(test_fp16_storage),
      cmocka_unit_test(test_injected_failures),
  };
  return cmocka_run_group_tests(tests, setup_temp, teardown_temp);
}
