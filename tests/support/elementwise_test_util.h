/* Test helpers shared by the elementwise kernel suites
 * (tests/unit/test_kernels_binary*.c): a seeded generator, running a
 * binary or ternary kernel through the kernel runner, exact comparisons that
 * name the first differing index, a numpy-style broadcast reference index,
 * and the error-message check.
 *
 * Header-only (static inline) so that each suite compiles it on its own;
 * include after <cmocka.h>.
 */
#ifndef LITEGPU_TESTS_SUPPORT_ELEMENTWISE_TEST_UTIL_H_
#define LITEGPU_TESTS_SUPPORT_ELEMENTWISE_TEST_UTIL_H_

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"
#include "tests/support/kernel_runner.h"

#define EW_ARRAY_SIZE(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define EW_MAX_RANK 8

/* ---- Seeded generator (xorshift32) ------------------------------------- */

static inline uint32_t ew_rng_next(uint32_t* state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

/* Uniform in [-1, 1). */
static inline float ew_rng_float(uint32_t* state) {
  return (float)((double)(ew_rng_next(state) >> 8) / (double)(1u << 23) - 1.0);
}

static inline int ew_rng_int(uint32_t* state, int lo, int hi) {
  return lo + (int)(ew_rng_next(state) % (uint32_t)(hi - lo + 1));
}

/* ---- Running a kernel ---------------------------------------------------- */

/* The params of every op in the family: ADD, SUB, MUL and DIV read their
 * own struct; the others read nothing. */
typedef union ew_params {
  TfLiteAddParams add;
  TfLiteSubParams sub;
  TfLiteMulParams mul;
  TfLiteDivParams div;
} ew_params;

typedef struct ew_case {
  lg_kernel_runner runner;
  ew_params params;
  int output;
} ew_case;

static inline int ew_add_tensor(lg_kernel_runner* r, TfLiteType type,
                                const int* dims, int rank, const void* data) {
  const int index =
      lg_kernel_runner_add_tensor(r, type, dims, rank, (void*)data);
  assert_true(index >= 0);
  return index;
}

/* Sets up out = op(inputs...) with `count` inputs (2 or 3) of the given
 * types, shapes and data, and an output of out_type the runner allocates
 * (with guard bytes). */
static inline void ew_setup(ew_case* c, const TfLiteRegistration* reg,
                            TfLiteFusedActivation activation, int count,
                            const TfLiteType* types, const int* const* dims,
                            const int* ranks, const void* const* data,
                            TfLiteType out_type) {
  memset(&c->params, 0, sizeof(c->params));
  c->params.add.activation = activation;
  c->params.sub.activation = activation;
  c->params.mul.activation = activation;
  c->params.div.activation = activation;
  lg_kernel_runner_init(&c->runner, reg, &c->params);
  int inputs[3];
  for (int i = 0; i < count; ++i) {
    inputs[i] = ew_add_tensor(&c->runner, types[i], dims[i], ranks[i], data[i]);
  }
  c->output = ew_add_tensor(&c->runner, out_type, NULL, 0, NULL);
  lg_kernel_runner_set_inputs(&c->runner, inputs, count);
  lg_kernel_runner_set_outputs(&c->runner, &c->output, 1);
}

/* Binary shorthand: both inputs of `type`. */
static inline void ew_setup2(ew_case* c, const TfLiteRegistration* reg,
                             TfLiteFusedActivation activation, TfLiteType type,
                             const int* dx, int rx, const void* x,
                             const int* dy, int ry, const void* y,
                             TfLiteType out_type) {
  ew_setup(c, reg, activation, 2, (const TfLiteType[]){type, type},
           (const int* const[]){dx, dy}, (const int[]){rx, ry},
           (const void* const[]){x, y}, out_type);
}

static inline const TfLiteTensor* ew_out(ew_case* c) {
  return lg_kernel_runner_tensor(&c->runner, c->output);
}

/* Runs the case, failing the test with the kernel's messages on error. */
static inline const TfLiteTensor* ew_run(ew_case* c) {
  if (lg_kernel_runner_run(&c->runner) != kTfLiteOk) {
    fail_msg("kernel failed: %s", lg_kernel_runner_errors(&c->runner));
  }
  return ew_out(c);
}

/* Expects `status` to be an error whose messages contain `needle`. */
static inline void ew_expect_error(lg_kernel_runner* r, TfLiteStatus status,
                                   const char* needle) {
  assert_int_not_equal(status, kTfLiteOk);
  const char* errors = lg_kernel_runner_errors(r);
  if (strstr(errors, needle) == NULL) {
    fail_msg("expected an error containing \"%s\", got \"%s\"", needle, errors);
  }
}

/* Runs the case expecting an error containing `needle`, then releases it. */
static inline void ew_expect_run_error(ew_case* c, const char* needle) {
  ew_expect_error(&c->runner, lg_kernel_runner_run(&c->runner), needle);
  lg_kernel_runner_release(&c->runner);
}

/* ---- Comparisons --------------------------------------------------------- */

static inline void ew_expect_shape(const TfLiteTensor* t, const int* dims,
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

/* Exact float comparison: NaN equals NaN, and zeros must agree in sign. */
static inline void ew_expect_f32(const char* what, const float* got,
                                 const float* want, int n) {
  for (int i = 0; i < n; ++i) {
    const bool same =
        (isnan(got[i]) && isnan(want[i])) ||
        (got[i] == want[i] && signbit(got[i]) == signbit(want[i]));
    if (!same) {
      fail_msg("%s index %d: got %.9g, want %.9g", what, i, (double)got[i],
               (double)want[i]);
    }
  }
}

static inline void ew_expect_i32(const char* what, const int32_t* got,
                                 const int32_t* want, int n) {
  for (int i = 0; i < n; ++i) {
    if (got[i] != want[i]) {
      fail_msg("%s index %d: got %d, want %d", what, i, (int)got[i],
               (int)want[i]);
    }
  }
}

static inline void ew_expect_i64(const char* what, const int64_t* got,
                                 const int64_t* want, int n) {
  for (int i = 0; i < n; ++i) {
    if (got[i] != want[i]) {
      fail_msg("%s index %d: got %lld, want %lld", what, i, (long long)got[i],
               (long long)want[i]);
    }
  }
}

/* BOOL outputs must be exactly 0 or 1 bytes. */
static inline void ew_expect_bool(const char* what, const void* got,
                                  const uint8_t* want, int n) {
  const uint8_t* g = got;
  for (int i = 0; i < n; ++i) {
    if (g[i] != want[i]) {
      fail_msg("%s index %d: got byte %d, want %d", what, i, g[i], want[i]);
    }
  }
}

/* ---- Broadcast reference ------------------------------------------------- */

/* The numpy broadcast of `count` shapes into dout (rank = the largest rank);
 * returns the element count. Shapes must be compatible. */
static inline int ew_broadcast(int count, const int* const* dims,
                               const int* ranks, int* dout, int* rank) {
  *rank = 0;
  for (int k = 0; k < count; ++k) {
    if (ranks[k] > *rank) *rank = ranks[k];
  }
  int total = 1;
  for (int i = 0; i < *rank; ++i) {
    int d = 1;
    for (int k = 0; k < count; ++k) {
      const int j = i - (*rank - ranks[k]);
      const int dk = j >= 0 ? dims[k][j] : 1;
      if (dk != 1) d = dk;
    }
    dout[i] = d;
    total *= d;
  }
  return total;
}

/* The element of an input of shape (d, r) that output element `flat` of
 * shape (dout, rank) reads. */
static inline int ew_source_index(int flat, const int* dout, int rank,
                                  const int* d, int r) {
  int index = 0, stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    const int coord = flat % dout[i];
    flat /= dout[i];
    const int j = i - (rank - r);
    if (j >= 0) {
      index += (d[j] == 1 ? 0 : coord) * stride;
      stride *= d[j];
    }
  }
  return index;
}

#endif /* LITEGPU_TESTS_SUPPORT_ELEMENTWISE_TEST_UTIL_H_ */
