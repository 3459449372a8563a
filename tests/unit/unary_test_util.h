/* Helpers shared by the unary-family kernel suites (test_kernels_unary*.c):
 * a seeded generator, float comparison in ulps, error matching, and a
 * one-input one-output kernel run through the kernel runner.
 *
 * Everything is static inline so that each suite uses what it needs.
 */
#ifndef LITEGPU_TESTS_UNIT_UNARY_TEST_UTIL_H_
#define LITEGPU_TESTS_UNIT_UNARY_TEST_UTIL_H_

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

static inline int rng_int(uint32_t* state, int lo, int hi) {
  return lo + (int)(rng_next(state) % (uint32_t)(hi - lo + 1));
}

/* ---- Float comparison ---------------------------------------------------- */

static inline uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof(u));
  return u;
}

static inline float bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof(f));
  return f;
}

/* The distance in representable floats between a and b (0 for +0 and -0);
 * both finite or equal infinities. */
static inline int64_t ulp_distance(float a, float b) {
  const uint32_t ua = float_bits(a), ub = float_bits(b);
  /* Map the sign-magnitude bits onto a monotonic integer line. */
  const int64_t ia = (ua & 0x80000000u) ? -(int64_t)(ua & 0x7fffffffu) : ua;
  const int64_t ib = (ub & 0x80000000u) ? -(int64_t)(ub & 0x7fffffffu) : ub;
  return ia > ib ? ia - ib : ib - ia;
}

/* got matches want within `ulps` representable floats or `abs_tol`; NaN
 * matches NaN, an infinity only the same infinity. */
static inline bool float_close(float got, float want, int ulps,
                               double abs_tol) {
  if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
  if (isinf(want) || isinf(got)) return got == want;
  if (fabs((double)got - (double)want) <= abs_tol) return true;
  return ulp_distance(got, want) <= ulps;
}

/* Fails naming the first index where got and want differ beyond the
 * tolerance. */
static inline void expect_floats_near(const float* got, const float* want,
                                      int n, int ulps, double abs_tol,
                                      const char* what) {
  for (int i = 0; i < n; ++i) {
    if (!float_close(got[i], want[i], ulps, abs_tol)) {
      fail_msg("%s: index %d: got %.9g, want %.9g (%d ulps, abs %g allowed)",
               what, i, (double)got[i], (double)want[i], ulps, abs_tol);
    }
  }
}

/* Exact comparison (NaN equals NaN, +0 equals -0). */
static inline void expect_floats(const float* got, const float* want, int n,
                                 const char* what) {
  expect_floats_near(got, want, n, 0, 0.0, what);
}

/* Bitwise comparison: also tells +0 from -0 and NaN payloads apart. */
static inline void expect_float_bits(const float* got, const float* want, int n,
                                     const char* what) {
  for (int i = 0; i < n; ++i) {
    if (float_bits(got[i]) != float_bits(want[i])) {
      fail_msg("%s: index %d: got %.9g (0x%08x), want %.9g (0x%08x)", what, i,
               (double)got[i], float_bits(got[i]), (double)want[i],
               float_bits(want[i]));
    }
  }
}

/* ---- Runner helpers ------------------------------------------------------ */

static inline int add_tensor(lg_kernel_runner* r, TfLiteType type,
                             const int* dims, int rank, const void* data) {
  const int index =
      lg_kernel_runner_add_tensor(r, type, dims, rank, (void*)data);
  assert_true(index >= 0);
  return index;
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

static inline void expect_error_text(const lg_kernel_runner* r,
                                     TfLiteStatus status, const char* needle) {
  if (status == kTfLiteOk) {
    fail_msg("expected an error containing \"%s\", but the kernel succeeded",
             needle);
  }
  const char* errors = lg_kernel_runner_errors(r);
  if (strstr(errors, needle) == NULL) {
    fail_msg("expected an error containing \"%s\", got \"%s\"", needle, errors);
  }
}

/* Element size of the types the unary family moves. */
static inline size_t type_size(TfLiteType type) {
  size_t bytes = 0;
  assert_int_equal(TfLiteGetSizeOfType(type, &bytes), kTfLiteOk);
  return bytes;
}

/* One input, one output: runs `reg` on `in` (type `in_type`, shape dims)
 * with `threads` threads, checks the output shape equals the input's and
 * copies the output (out_type) into `out`. builtin_data may be NULL. */
static inline void run_one(const TfLiteRegistration* reg, void* builtin_data,
                           TfLiteType in_type, TfLiteType out_type,
                           const int* dims, int rank, const void* in, void* out,
                           int threads) {
  lg_kernel_runner r;
  lg_kernel_runner_init(&r, reg, builtin_data);
  if (threads > 1) {
    assert_int_equal(lg_kernel_runner_set_threads(&r, threads), kTfLiteOk);
  }
  const int a = add_tensor(&r, in_type, dims, rank, in);
  const int o = add_tensor(&r, out_type, NULL, 0, NULL);
  lg_kernel_runner_set_inputs(&r, &a, 1);
  lg_kernel_runner_set_outputs(&r, &o, 1);
  const TfLiteStatus status = lg_kernel_runner_run(&r);
  if (status != kTfLiteOk) {
    fail_msg("kernel %d failed: %s", reg->builtin_code,
             lg_kernel_runner_errors(&r));
  }
  const TfLiteTensor* t = lg_kernel_runner_tensor(&r, o);
  expect_shape(t, dims, rank);
  int64_t count = 1;
  for (int i = 0; i < rank; ++i) count *= dims[i];
  if (count > 0) memcpy(out, t->data.data, (size_t)count * type_size(out_type));
  lg_kernel_runner_release(&r);
}

/* As run_one, but expects the prepare to fail with `needle` in its
 * messages. */
static inline void expect_one_rejected(const TfLiteRegistration* reg,
                                       void* builtin_data, TfLiteType in_type,
                                       TfLiteType out_type, const int* dims,
                                       int rank, const void* in,
                                       const char* needle) {
  lg_kernel_runner r;
  lg_kernel_runner_init(&r, reg, builtin_data);
  const int a = add_tensor(&r, in_type, dims, rank, in);
  const int o = add_tensor(&r, out_type, NULL, 0, NULL);
  lg_kernel_runner_set_inputs(&r, &a, 1);
  lg_kernel_runner_set_outputs(&r, &o, 1);
  expect_error_text(&r, lg_kernel_runner_prepare(&r), needle);
  lg_kernel_runner_release(&r);
}

#endif /* LITEGPU_TESTS_UNIT_UNARY_TEST_UTIL_H_ */
