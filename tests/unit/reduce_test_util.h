/* Helpers shared by the reduce-family kernel suites (test_kernels_reduce*.c):
 * a seeded generator, tensor set-up through the kernel runner, and checks
 * that name the first failing index.
 *
 * Everything is static inline so that each suite uses what it needs.
 */
#ifndef LITEGPU_TESTS_UNIT_REDUCE_TEST_UTIL_H_
#define LITEGPU_TESTS_UNIT_REDUCE_TEST_UTIL_H_

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tensorflow/lite/c/common.h"
#include "tests/support/kernel_runner.h"

#define ARRAY_SIZE(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- Random numbers ------------------------------------------------------ */

/* A deterministic generator (xorshift32); seeds are fixed per test. */
static inline uint32_t rng_next(uint32_t* state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

/* Uniform in [lo, hi). */
static inline float rng_uniform(uint32_t* state, float lo, float hi) {
  const double u = (double)(rng_next(state) >> 8) / (double)(1u << 24);
  return (float)(lo + (hi - lo) * u);
}

/* Uniform in [lo, hi] (inclusive). */
static inline int rng_int(uint32_t* state, int lo, int hi) {
  return lo + (int)(rng_next(state) % (uint32_t)(hi - lo + 1));
}

static inline void rng_fill(uint32_t* state, float* x, int n, float lo,
                            float hi) {
  for (int i = 0; i < n; ++i) x[i] = rng_uniform(state, lo, hi);
}

/* ---- Runner set-up --------------------------------------------------------
 */

/* Adds a tensor holding caller data (a model constant), or an output the
 * runner allocates when data is NULL. */
static inline int add_tensor(lg_kernel_runner* r, TfLiteType type,
                             const int* dims, int rank, const void* data) {
  const int index =
      lg_kernel_runner_add_tensor(r, type, dims, rank, (void*)data);
  assert_true(index >= 0);
  return index;
}

static inline int add_output(lg_kernel_runner* r, TfLiteType type) {
  return add_tensor(r, type, NULL, 0, NULL);
}

/* Makes tensor `index` a runtime input instead of a model constant, so that
 * kernels cannot read it in Prepare. */
static inline void make_runtime_input(lg_kernel_runner* r, int index) {
  lg_kernel_runner_tensor(r, index)->allocation_type = kTfLiteArenaRw;
}

static inline void set_io(lg_kernel_runner* r, const int* inputs,
                          int num_inputs, int output) {
  lg_kernel_runner_set_inputs(r, inputs, num_inputs);
  lg_kernel_runner_set_outputs(r, &output, 1);
}

/* Runs the kernel, failing the test with the kernel's messages on error. */
static inline void run_ok(lg_kernel_runner* r, const char* what) {
  if (lg_kernel_runner_run(r) != kTfLiteOk) {
    fail_msg("%s failed: %s", what, lg_kernel_runner_errors(r));
  }
}

/* ---- Checks ----------------------------------------------------------------
 */

static inline void expect_shape(const TfLiteTensor* t, const int* dims,
                                int rank) {
  assert_non_null(t->dims);
  if (!TfLiteIntArrayEqualsArray(t->dims, rank, dims)) {
    char got[128] = "", want[128] = "";
    for (int i = 0; i < t->dims->size; ++i) {
      snprintf(got + strlen(got), sizeof(got) - strlen(got), "%d,",
               t->dims->data[i]);
    }
    for (int i = 0; i < rank; ++i) {
      snprintf(want + strlen(want), sizeof(want) - strlen(want), "%d,",
               dims[i]);
    }
    fail_msg("output shape [%s] != expected [%s]", got, want);
  }
}

/* Exact comparison (NaN equals NaN), naming the first differing index. */
static inline void expect_floats(const float* got, const float* want, int n) {
  for (int i = 0; i < n; ++i) {
    const bool same = (isnan(got[i]) && isnan(want[i])) || got[i] == want[i];
    if (!same) {
      fail_msg("index %d: got %.9g, want %.9g", i, (double)got[i],
               (double)want[i]);
    }
  }
}

/* |got - want| <= tol[i] (NaN equals NaN, infinities must be equal). */
static inline void expect_near(const float* got, const double* want,
                               const double* tol, int n) {
  for (int i = 0; i < n; ++i) {
    const double g = got[i], w = want[i];
    if (isnan(g) && isnan(w)) continue;
    if (g == w) continue;
    if (!(fabs(g - w) <= tol[i])) {
      fail_msg("index %d: got %.9g, want %.9g (|diff| %.3g > %.3g)", i, g, w,
               fabs(g - w), tol[i]);
    }
  }
}

static inline void expect_ints32(const int32_t* got, const int32_t* want,
                                 int n) {
  for (int i = 0; i < n; ++i) {
    if (got[i] != want[i]) {
      fail_msg("index %d: got %d, want %d", i, (int)got[i], (int)want[i]);
    }
  }
}

static inline void expect_ints64(const int64_t* got, const int64_t* want,
                                 int n) {
  for (int i = 0; i < n; ++i) {
    if (got[i] != want[i]) {
      fail_msg("index %d: got %lld, want %lld", i, (long long)got[i],
               (long long)want[i]);
    }
  }
}

/* The status is an error and some reported message contains `needle`. */
static inline void expect_error(lg_kernel_runner* r, TfLiteStatus status,
                                const char* needle) {
  if (status == kTfLiteOk) {
    fail_msg("expected an error containing \"%s\", got success", needle);
  }
  const char* errors = lg_kernel_runner_errors(r);
  if (strstr(errors, needle) == NULL) {
    fail_msg("expected an error containing \"%s\", got \"%s\"", needle, errors);
  }
}

/* Runs and expects an error containing `needle`; releases the runner. */
static inline void expect_run_error(lg_kernel_runner* r, const char* needle) {
  expect_error(r, lg_kernel_runner_run(r), needle);
  lg_kernel_runner_release(r);
}

static inline const TfLiteTensor* tensor_at(lg_kernel_runner* r, int index) {
  return lg_kernel_runner_tensor(r, index);
}

/* Element count of dims[0..rank). */
static inline int count_of(const int* dims, int rank) {
  int n = 1;
  for (int i = 0; i < rank; ++i) n *= dims[i];
  return n;
}

#endif /* LITEGPU_TESTS_UNIT_REDUCE_TEST_UTIL_H_ */
