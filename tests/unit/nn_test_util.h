/* Helpers shared by the conv family kernel suites (test_kernels_conv.c,
 * test_kernels_conv_matmul.c): a seeded generator, runner shortcuts and
 * comparisons that name the first failing index. Header-only (static
 * functions), since every tests/unit/test_*.c is its own executable. */
#ifndef LITEGPU_TESTS_UNIT_NN_TEST_UTIL_H_
#define LITEGPU_TESTS_UNIT_NN_TEST_UTIL_H_

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/gemm.h"
#include "tensorflow/lite/c/common.h"
#include "tests/support/kernel_runner.h"

#define ARRAY_SIZE(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* A deterministic generator (xorshift32); seeds are fixed per test. */
static inline uint32_t rng_next(uint32_t* state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

/* Uniform in [-1, 1). */
static inline float rng_float(uint32_t* state) {
  return (float)((double)(rng_next(state) >> 8) / (double)(1u << 23) - 1.0);
}

static inline float* random_floats(size_t n, uint32_t* seed) {
  float* p = malloc(sizeof(float) * (n > 0 ? n : 1));
  assert_non_null(p);
  for (size_t i = 0; i < n; ++i) p[i] = rng_float(seed);
  return p;
}

static inline int add_tensor(lg_kernel_runner* r, TfLiteType type,
                             const int* dims, int rank, const void* data) {
  const int index =
      lg_kernel_runner_add_tensor(r, type, dims, rank, (void*)data);
  assert_true(index >= 0);
  return index;
}

static inline int add_output(lg_kernel_runner* r) {
  return add_tensor(r, kTfLiteFloat32, NULL, 0, NULL);
}

/* Marks an input as computed by an earlier node (not a model constant), so
 * that the kernel cannot pack it in Prepare. */
static inline void make_variable(lg_kernel_runner* r, int index) {
  lg_kernel_runner_tensor(r, index)->allocation_type = kTfLiteArenaRw;
}

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

/* |got - want| <= tol[i] for every element (NaN never passes). */
static inline void expect_near(const char* what, const float* got,
                               const double* want, const double* tol, int n) {
  for (int i = 0; i < n; ++i) {
    if (!(fabs((double)got[i] - want[i]) <= tol[i])) {
      fail_msg("%s: index %d: got %.9g, want %.9g (tolerance %.3g)", what, i,
               (double)got[i], want[i], tol[i]);
    }
  }
}

/* The same against a float reference with twice the tolerance (both sides
 * round). */
static inline void expect_near_float(const char* what, const float* got,
                                     const float* want, const double* tol,
                                     int n) {
  for (int i = 0; i < n; ++i) {
    if (!(fabs((double)got[i] - (double)want[i]) <= 2.0 * tol[i])) {
      fail_msg("%s: index %d: got %.9g, reference %.9g (tolerance %.3g)", what,
               i, (double)got[i], (double)want[i], 2.0 * tol[i]);
    }
  }
}

static inline void expect_error(lg_kernel_runner* r, TfLiteStatus status,
                                const char* needle) {
  if (status == kTfLiteOk)
    fail_msg("expected an error containing \"%s\"", needle);
  const char* errors = lg_kernel_runner_errors(r);
  if (strstr(errors, needle) == NULL) {
    fail_msg("expected an error containing \"%s\", got \"%s\"", needle, errors);
  }
}

/* Runs the runner, failing the test with its messages on an error. */
static inline void run_ok(lg_kernel_runner* r, const char* what) {
  if (lg_kernel_runner_run(r) != kTfLiteOk) {
    fail_msg("%s failed: %s", what, lg_kernel_runner_errors(r));
  }
}

/* The tolerance of a sum of `terms` products whose magnitudes add up to
 * `magnitude`, computed in float in any order (with FMA or not). */
static inline double sum_tolerance(int terms, double magnitude) {
  return 1e-6 + 2.0 * (terms + 1) * FLT_EPSILON * magnitude;
}

static inline double clamp_double(double v, double lo, double hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

#endif /* LITEGPU_TESTS_UNIT_NN_TEST_UTIL_H_ */
