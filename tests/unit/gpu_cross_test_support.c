/* The cross-backend kernel harness shared by test_gpu_kernels_cross*.c
 * (see gpu_cross_test_support.h). */
#include "tests/unit/gpu_cross_test_support.h"

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

#include "delegates/opencl/opencl_backend.h"
#include "delegates/opencl/opencl_internal.h"
#include "delegates/vulkan/vulkan_backend.h"
#include "delegates/vulkan/vulkan_internal.h"

/* ---- Backends ----------------------------------------------------------- */

static const char* const kBackendName[kBackends] = {"opencl", "vulkan"};

lg_gpu_backend* g_be[kBackends];
static long g_layer_errors_at_start;

int setup_backends(void** state) {
  (void)state;
  lg_gpu_error error = {{0}};
  if (lg_opencl_backend_create(NULL, &g_be[kCl], &error) != kTfLiteOk) {
    fprintf(stderr, "no OpenCL device (install PoCL): %s\n", error.message);
    return -1;
  }
  const lg_vulkan_options vk = {.validation = true};
  if (lg_vulkan_backend_create_ex(NULL, &vk, &g_be[kVk], &error) != kTfLiteOk) {
    fprintf(stderr,
            "no Vulkan device with validation (install mesa-vulkan-drivers "
            "and vulkan-validationlayers): %s\n",
            error.message);
    lg_gpu_backend_destroy(g_be[kCl]);
    g_be[kCl] = NULL;
    return -1;
  }
  g_layer_errors_at_start = lg_vulkan_layer_errors();
  return 0;
}

int teardown_backends(void** state) {
  (void)state;
  for (int b = 0; b < kBackends; ++b) {
    lg_gpu_backend_destroy(g_be[b]);
    g_be[b] = NULL;
  }
  int failed = 0;
  if (lg_vulkan_layer_errors() != g_layer_errors_at_start) {
    fprintf(stderr, "validation errors while destroying the backend\n");
    failed = -1;
  }
  if (lg_vulkan_live_objects() != 0 || lg_opencl_live_objects() != 0) {
    fprintf(stderr, "leaked objects: %ld Vk, %ld CL\n",
            lg_vulkan_live_objects(), lg_opencl_live_objects());
    failed = -1;
  }
  return failed;
}

/* ---- Seeded inputs ------------------------------------------------------ */

static uint32_t rng_next(uint32_t* s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* n floats uniform in [-scale, scale), from `seed`; the caller frees. */
float* random_floats(size_t n, float scale, uint32_t seed) {
  float* v = malloc((n > 0 ? n : 1) * sizeof(float));
  assert_non_null(v);
  uint32_t s = seed * 2654435761u + 1u;
  for (size_t i = 0; i < n; ++i) {
    v[i] = scale * ((float)(rng_next(&s) >> 8) / 8388608.0f - 1.0f);
  }
  return v;
}

/* ---- One kernel on both backends ---------------------------------------- */

#define MAX_ARGS 24
/* Words after each output that no kernel may write. */
#define GUARD_WORDS 16
static const float kSentinel = -12345.5f;

/* A call over global {g0, g1, g2} (dims 3, or fewer when the later
 * sizes are 0), the local size left to the backend. */
xcall make_call(const char* kernel, const char* defines, const char* label,
                size_t g0, size_t g1, size_t g2) {
  xcall c = {.kernel = kernel, .defines = defines, .label = label};
  c.dims = g2 > 0 ? 3 : (g1 > 0 ? 2 : 1);
  c.global[0] = g0;
  c.global[1] = g1 > 0 ? g1 : 1;
  c.global[2] = g2 > 0 ? g2 : 1;
  return c;
}

/* The largest differences seen per kernel (reported at the end). */
typedef struct diff_row {
  const char* kernel;
  int cases;
  double abs_diff, rel_diff;
} diff_row;
static diff_row g_diffs[32];
static int g_num_diffs;

static void record_diff(const char* kernel, double abs_diff, double rel_diff) {
  int i = 0;
  while (i < g_num_diffs && strcmp(g_diffs[i].kernel, kernel) != 0) ++i;
  if (i == g_num_diffs) {
    assert_true(g_num_diffs < (int)(sizeof(g_diffs) / sizeof(g_diffs[0])));
    g_diffs[g_num_diffs++] = (diff_row){kernel, 0, 0.0, 0.0};
  }
  g_diffs[i].cases++;
  if (abs_diff > g_diffs[i].abs_diff) g_diffs[i].abs_diff = abs_diff;
  if (rel_diff > g_diffs[i].rel_diff) g_diffs[i].rel_diff = rel_diff;
}

/* Runs the call on backend `b`: buffers made and filled, one dispatch,
 * outputs (with their guards) downloaded into out[k] for output k. */
static void run_on(int b, const xcall* call, const xarg* args, int n,
                   float** out) {
  lg_gpu_backend* be = g_be[b];
  const lg_gpu_backend_ops* ops = be->ops;
  lg_gpu_error error = {{0}};
  lg_gpu_buffer* buffers[MAX_ARGS] = {NULL};
  lg_gpu_arg gpu_args[MAX_ARGS];
  float* fill[MAX_ARGS] = {NULL};
  for (int a = 0, k = 0; a < n; ++a) {
    if (args[a].kind == LG_GPU_ARG_KIND_INT) {
      gpu_args[a] = LG_GPU_ARG_INT(args[a].i);
      continue;
    }
    if (args[a].kind == LG_GPU_ARG_KIND_FLOAT) {
      gpu_args[a] = LG_GPU_ARG_FLOAT(args[a].f);
      continue;
    }
    const size_t words = (args[a].bytes + 3) / 4 + GUARD_WORDS;
    if (ops->buffer_create(be, words * 4, &buffers[a], &error) != kTfLiteOk) {
      fail_msg("%s on %s: %s", call->label, kBackendName[b], error.message);
    }
    fill[a] = malloc(words * 4);
    assert_non_null(fill[a]);
    for (size_t w = 0; w < words; ++w) fill[a][w] = kSentinel;
    if (args[a].data != NULL) memcpy(fill[a], args[a].data, args[a].bytes);
    assert_int_equal(
        lg_gpu_buffer_upload(be, buffers[a], 0, fill[a], words * 4, &error),
        kTfLiteOk);
    gpu_args[a] = LG_GPU_ARG_BUFFER(buffers[a]);
    if (args[a].data == NULL) out[k++] = fill[a]; /* downloaded into below */
  }
  lg_gpu_kernel* kernel = NULL;
  if (ops->kernel_create(be, call->kernel, call->defines, &kernel, &error) !=
      kTfLiteOk) {
    fail_msg("%s on %s: %s", call->label, kBackendName[b], error.message);
  }
  const bool has_local = call->local[0] != 0;
  if (lg_gpu_dispatch(be, kernel, gpu_args, n, call->dims, call->global,
                      has_local ? call->local : NULL, &error) != kTfLiteOk ||
      ops->finish(be, &error) != kTfLiteOk) {
    fail_msg("%s on %s: %s", call->label, kBackendName[b], error.message);
  }
  for (int a = 0; a < n; ++a) {
    if (buffers[a] == NULL) continue;
    if (args[a].data == NULL) {
      const size_t words = (args[a].bytes + 3) / 4 + GUARD_WORDS;
      assert_int_equal(
          lg_gpu_buffer_download(be, buffers[a], 0, fill[a], words * 4, &error),
          kTfLiteOk);
    } else {
      free(fill[a]);
    }
    ops->buffer_release(be, buffers[a]);
  }
  ops->kernel_release(be, kernel);
}

/* Compares output `k` of the two backends and its guard words. */
static void compare_output(const xcall* call, int k, const float* cl,
                           const float* vk, size_t count) {
  double max_abs = 0.0, max_rel = 0.0;
  for (size_t i = 0; i < count; ++i) {
    if (cl[i] == vk[i] || (isnan(cl[i]) && isnan(vk[i]))) continue;
    const double d = fabs((double)vk[i] - (double)cl[i]);
    const double scale = fmax(1.0, fabs((double)cl[i]));
    if (!(d <= 1e-5 * scale)) {
      fail_msg("%s (%s %s), output %d element %zu: vulkan %.9g, opencl %.9g",
               call->label, call->kernel,
               call->defines != NULL ? call->defines : "", k, i, (double)vk[i],
               (double)cl[i]);
    }
    if (d > max_abs) max_abs = d;
    if (d / scale > max_rel) max_rel = d / scale;
  }
  for (size_t i = count; i < count + GUARD_WORDS; ++i) {
    if (cl[i] != kSentinel || vk[i] != kSentinel) {
      fail_msg("%s: output %d guard word %zu written (opencl %g, vulkan %g)",
               call->label, k, i - count, (double)cl[i], (double)vk[i]);
    }
  }
  record_diff(call->kernel, max_abs, max_rel);
}

/* Runs the call on both backends and compares every output; an output
 * argument with result[b] set gets backend b's values. */
void run_cross(const xcall* call, xarg* args, int n) {
  assert_true(n <= MAX_ARGS);
  float* out[kBackends][MAX_ARGS] = {{NULL}};
  for (int b = 0; b < kBackends; ++b) run_on(b, call, args, n, out[b]);
  for (int a = 0, k = 0; a < n; ++a) {
    if (args[a].kind != LG_GPU_ARG_KIND_BUFFER || args[a].data != NULL) {
      continue;
    }
    const size_t count = args[a].bytes / sizeof(float);
    compare_output(call, k, out[kCl][k], out[kVk][k], count);
    for (int b = 0; b < kBackends; ++b) {
      if (args[a].result[b] != NULL) {
        memcpy(args[a].result[b], out[b][k], args[a].bytes);
      }
      free(out[b][k]);
    }
    ++k;
  }
  lg_vulkan_stats stats;
  assert_int_equal(lg_vulkan_backend_stats(g_be[kVk], &stats), kTfLiteOk);
  if (stats.validation_errors != 0) {
    fail_msg("%s: %llu validation error(s); first: %s", call->label,
             (unsigned long long)stats.validation_errors,
             stats.first_validation_error);
  }
}

/* Checks both backends' results against hand-derived values. */
void expect_values(const char* label, float* const got[kBackends],
                   const float* want, size_t count, float tolerance) {
  for (int b = 0; b < kBackends; ++b) {
    for (size_t i = 0; i < count; ++i) {
      const float g = got[b][i];
      if (isnan(want[i]) ? isnan(g) : fabsf(g - want[i]) <= tolerance) {
        continue;
      }
      fail_msg("%s on %s, element %zu: got %.9g, want %.9g", label,
               kBackendName[b], i, (double)g, (double)want[i]);
    }
  }
}

/* Output argument `a` returns both backends' values into got[b]. */
void capture(xarg* a, float* got[kBackends]) {
  for (int b = 0; b < kBackends; ++b) a->result[b] = got[b];
}

int ceil_div(int x, int y) { return (x + y - 1) / y; }
int round_up(int x, int m) { return ceil_div(x, m) * m; }
/* The lowerings' blocks: 8 or 4 rows/columns once there are that many. */
int block_of(int count) { return count >= 8 ? 8 : (count >= 4 ? 4 : 1); }

/* TFLite's padding before, as lower_reduce.c takes it for pool (and
 * lower_conv_matmul.c for transpose_conv). */
int pool_pad(int in, int filter, int stride, int out) {
  const int total = (out - 1) * stride + filter - in;
  return total > 0 ? total / 2 : 0;
}

/* ---- Report ------------------------------------------------------------- */

/* Prints the largest differences seen per kernel (runs last). */
void test_report(void** state) {
  (void)state;
  assert_true(g_num_diffs > 0);
  for (int i = 0; i < g_num_diffs; ++i) {
    print_message(
        "%-16s %3d outputs compared, max |vk - cl| %.3g, max "
        "relative %.3g\n",
        g_diffs[i].kernel, g_diffs[i].cases, g_diffs[i].abs_diff,
        g_diffs[i].rel_diff);
  }
}
