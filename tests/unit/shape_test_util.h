/* Helpers of the shape-family kernel suites (test_kernels_shape.c,
 * test_kernels_shape_slice.c): a kernel runner with named inputs and
 * outputs, constant and non-constant inputs, exact comparisons that name
 * the first differing element, and a seeded generator.
 *
 * Include after cmocka.h. Every function fails the running test on a
 * problem; none returns an error.
 */
#ifndef LITEGPU_TESTS_UNIT_SHAPE_TEST_UTIL_H_
#define LITEGPU_TESTS_UNIT_SHAPE_TEST_UTIL_H_

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/lite/c/common.h"
#include "tests/support/kernel_runner.h"

#define ARRAY_SIZE(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* A dims list as (const int*, rank): DIMS(2, 3) -> (int[]){2, 3}, 2. */
#define DIMS(...) \
  (const int[]){__VA_ARGS__}, (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int))
/* The scalar shape. */
#define SCALAR NULL, 0

/* One kernel under test. */
typedef struct sh_run {
  lg_kernel_runner r;
  int inputs[LG_KERNEL_RUNNER_MAX_IO];
  int num_inputs;
  int outputs[LG_KERNEL_RUNNER_MAX_IO];
  int num_outputs;
} sh_run;

static inline void sh_init(sh_run* s, const TfLiteRegistration* reg,
                           void* params) {
  memset(s, 0, sizeof(*s));
  lg_kernel_runner_init(&s->r, reg, params);
}

static inline void sh_set_io(sh_run* s) {
  lg_kernel_runner_set_inputs(&s->r, s->inputs, s->num_inputs);
  lg_kernel_runner_set_outputs(&s->r, s->outputs, s->num_outputs);
}

/* A constant input (kTfLiteMmapRo) holding caller memory. */
static inline int sh_const(sh_run* s, TfLiteType type, const int* dims,
                           int rank, const void* data) {
  const int index =
      lg_kernel_runner_add_tensor(&s->r, type, dims, rank, (void*)data);
  assert_true(index >= 0);
  s->inputs[s->num_inputs++] = index;
  sh_set_io(s);
  return index;
}

/* A non-constant input (a graph input: kTfLiteArenaRw, data set). */
static inline int sh_var(sh_run* s, TfLiteType type, const int* dims, int rank,
                         const void* data) {
  const int index = sh_const(s, type, dims, rank, data);
  lg_kernel_runner_tensor(&s->r, index)->allocation_type = kTfLiteArenaRw;
  return index;
}

/* An omitted optional input. */
static inline void sh_absent(sh_run* s) {
  s->inputs[s->num_inputs++] = kTfLiteOptionalTensor;
  sh_set_io(s);
}

static inline int sh_out(sh_run* s, TfLiteType type) {
  const int index = lg_kernel_runner_add_tensor(&s->r, type, NULL, 0, NULL);
  assert_true(index >= 0);
  s->outputs[s->num_outputs++] = index;
  sh_set_io(s);
  return index;
}

static inline TfLiteTensor* sh_tensor(sh_run* s, int index) {
  return lg_kernel_runner_tensor(&s->r, index);
}

static inline TfLiteTensor* sh_output(sh_run* s, int k) {
  return lg_kernel_runner_tensor(&s->r, s->outputs[k]);
}

/* Runs prepare + invoke, failing the test with the kernel's messages. */
static inline void sh_ok(sh_run* s) {
  if (lg_kernel_runner_run(&s->r) != kTfLiteOk) {
    fail_msg("kernel failed: %s", lg_kernel_runner_errors(&s->r));
  }
}

/* Runs prepare + invoke expecting a failure whose messages contain
 * `needle`, then releases the runner. */
static inline void sh_fails(sh_run* s, const char* needle) {
  if (lg_kernel_runner_run(&s->r) == kTfLiteOk) {
    fail_msg("expected a failure containing \"%s\", but the kernel ran",
             needle);
  }
  const char* errors = lg_kernel_runner_errors(&s->r);
  if (strstr(errors, needle) == NULL) {
    fail_msg("expected an error containing \"%s\", got \"%s\"", needle, errors);
  }
  lg_kernel_runner_release(&s->r);
}

static inline void sh_expect_shape(const TfLiteTensor* t, const int* dims,
                                   int rank) {
  assert_non_null(t->dims);
  if (!TfLiteIntArrayEqualsArray(t->dims, rank, dims)) {
    char got[160] = "", want[160] = "";
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

/* Compares n elements of `size` bytes, naming the first difference. */
static inline void sh_expect_bytes(const void* got, const void* want, int n,
                                   size_t size) {
  for (int i = 0; i < n; ++i) {
    if (memcmp((const char*)got + (size_t)i * size,
               (const char*)want + (size_t)i * size, size) != 0) {
      long long g = 0, w = 0;
      memcpy(&g, (const char*)got + (size_t)i * size,
             size < sizeof(g) ? size : sizeof(g));
      memcpy(&w, (const char*)want + (size_t)i * size,
             size < sizeof(w) ? size : sizeof(w));
      fail_msg("element %d differs: got bytes 0x%llx, want 0x%llx", i, g, w);
    }
  }
}

/* Checks output k's shape and its n elements of `size` bytes. */
static inline void sh_expect(sh_run* s, int k, const int* dims, int rank,
                             const void* want, size_t size) {
  const TfLiteTensor* t = sh_output(s, k);
  sh_expect_shape(t, dims, rank);
  int n = 1;
  for (int i = 0; i < rank; ++i) n *= dims[i];
  if (n > 0) sh_expect_bytes(t->data.raw, want, n, size);
}

/* Float outputs, NaN equal to NaN (and compared by bits otherwise). */
static inline void sh_expect_floats(const float* got, const float* want,
                                    int n) {
  for (int i = 0; i < n; ++i) {
    const bool same = (isnan(got[i]) && isnan(want[i])) || got[i] == want[i];
    if (!same) {
      fail_msg("index %d: got %.9g, want %.9g", i, (double)got[i],
               (double)want[i]);
    }
  }
}

/* A deterministic generator (xorshift32). */
static inline uint32_t sh_rng(uint32_t* state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

static inline int sh_rng_int(uint32_t* state, int lo, int hi) {
  return lo + (int)(sh_rng(state) % (uint32_t)(hi - lo + 1));
}

/* n distinct float values (i * 0.5 + offset) so that any misplaced
 * element shows. */
static inline void sh_iota(float* v, int n, float offset) {
  for (int i = 0; i < n; ++i) v[i] = (float)i * 0.5f + offset;
}

/* Row-major strides of dims[0..rank). */
static inline void sh_strides(const int* dims, int rank, int64_t* strides) {
  int64_t s = 1;
  for (int k = rank - 1; k >= 0; --k) {
    strides[k] = s;
    s *= dims[k];
  }
}

/* The multi-index of flat index i in dims[0..rank). */
static inline void sh_unravel(int64_t i, const int* dims, int rank, int* idx) {
  for (int k = rank - 1; k >= 0; --k) {
    idx[k] = dims[k] > 0 ? (int)(i % dims[k]) : 0;
    i = dims[k] > 0 ? i / dims[k] : 0;
  }
}

#endif /* LITEGPU_TESTS_UNIT_SHAPE_TEST_UTIL_H_ */
