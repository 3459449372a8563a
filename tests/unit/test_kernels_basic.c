/* ADD and FULLY_CONNECTED through the kernel runner: hand-derived values,
 * broadcasting corners, fused activations, parameter and type errors, NaN
 * and Inf, empty tensors, and seeded random cases against double-precision
 * reference loops. The runner checks guard bytes after every output. */
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

#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"
#include "tests/support/kernel_runner.h"

#define ARRAY_SIZE(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- Helpers ------------------------------------------------------------ */

/* A deterministic generator (xorshift32); seeds are fixed per test. */
static uint32_t rng_next(uint32_t* state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

/* Uniform in [-1, 1). */
static float rng_float(uint32_t* state) {
  return (float)((double)(rng_next(state) >> 8) / (double)(1u << 23) - 1.0);
}

static int rng_int(uint32_t* state, int lo, int hi) {
  return lo + (int)(rng_next(state) % (uint32_t)(hi - lo + 1));
}

static void expect_shape(const TfLiteTensor* t, const int* dims, int rank) {
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
static void expect_floats(const float* got, const float* want, int n) {
  for (int i = 0; i < n; ++i) {
    const bool same = (isnan(got[i]) && isnan(want[i])) || got[i] == want[i];
    if (!same) {
      fail_msg("index %d: got %.9g, want %.9g", i, (double)got[i],
               (double)want[i]);
    }
  }
}

static void expect_error(lg_kernel_runner* r, TfLiteStatus status,
                         const char* needle) {
  assert_int_not_equal(status, kTfLiteOk);
  const char* errors = lg_kernel_runner_errors(r);
  if (strstr(errors, needle) == NULL) {
    fail_msg("expected an error containing \"%s\", got \"%s\"", needle, errors);
  }
}

static int add_tensor(lg_kernel_runner* r, TfLiteType type, const int* dims,
                      int rank, const void* data) {
  const int index =
      lg_kernel_runner_add_tensor(r, type, dims, rank, (void*)data);
  assert_true(index >= 0);
  return index;
}

static int add_output(lg_kernel_runner* r, TfLiteType type) {
  return add_tensor(r, type, NULL, 0, NULL);
}

/* ---- ADD ---------------------------------------------------------------- */

typedef struct add_case {
  lg_kernel_runner runner;
  TfLiteAddParams params;
  int output;
} add_case;

/* Sets up out = ADD(x, y) on float32 tensors. */
static void add_setup(add_case* c, const int* dx, int rx, const float* x,
                      const int* dy, int ry, const float* y,
                      TfLiteFusedActivation activation) {
  memset(&c->params, 0, sizeof(c->params));
  c->params.activation = activation;
  lg_kernel_runner_init(&c->runner, lg_register_ADD(), &c->params);
  const int a = add_tensor(&c->runner, kTfLiteFloat32, dx, rx, x);
  const int b = add_tensor(&c->runner, kTfLiteFloat32, dy, ry, y);
  c->output = add_output(&c->runner, kTfLiteFloat32);
  lg_kernel_runner_set_inputs(&c->runner, (int[]){a, b}, 2);
  lg_kernel_runner_set_outputs(&c->runner, &c->output, 1);
}

static const TfLiteTensor* add_out(add_case* c) {
  return lg_kernel_runner_tensor(&c->runner, c->output);
}

/* Runs the case, expecting success, and checks shape and values. */
static void add_expect(add_case* c, const int* dims, int rank,
                       const float* want, int n) {
  const TfLiteStatus status = lg_kernel_runner_run(&c->runner);
  if (status != kTfLiteOk) {
    fail_msg("ADD failed: %s", lg_kernel_runner_errors(&c->runner));
  }
  expect_shape(add_out(c), dims, rank);
  expect_floats(add_out(c)->data.f, want, n);
  lg_kernel_runner_release(&c->runner);
}

static void test_add_same_shape(void** state) {
  (void)state;
  add_case c;
  const float x[] = {1, 2, 3, 4, 5, 6};
  const float y[] = {10, 20, 30, 40, 50, 60};
  /* Element by element: 1+10, 2+20, ... */
  const float want[] = {11, 22, 33, 44, 55, 66};
  add_setup(&c, (int[]){2, 3}, 2, x, (int[]){2, 3}, 2, y, kTfLiteActNone);
  add_expect(&c, (int[]){2, 3}, 2, want, 6);
}

static void test_add_trailing_broadcast(void** state) {
  (void)state;
  add_case c;
  const float x[] = {1, 2, 3, 4, 5, 6};
  const float y[] = {10, 20, 30};
  /* [2,3] + [3]: y repeats for each row. */
  const float want[] = {11, 22, 33, 14, 25, 36};
  add_setup(&c, (int[]){2, 3}, 2, x, (int[]){3}, 1, y, kTfLiteActNone);
  add_expect(&c, (int[]){2, 3}, 2, want, 6);
  /* The same with the broadcast side first. */
  add_setup(&c, (int[]){3}, 1, y, (int[]){2, 3}, 2, x, kTfLiteActNone);
  add_expect(&c, (int[]){2, 3}, 2, want, 6);
}

static void test_add_scalar(void** state) {
  (void)state;
  add_case c;
  const float x[] = {1, 2, 3, 4};
  const float s[] = {100};
  const float want[] = {101, 102, 103, 104};
  /* A rank-0 scalar on either side. */
  add_setup(&c, (int[]){2, 2}, 2, x, NULL, 0, s, kTfLiteActNone);
  add_expect(&c, (int[]){2, 2}, 2, want, 4);
  add_setup(&c, NULL, 0, s, (int[]){2, 2}, 2, x, kTfLiteActNone);
  add_expect(&c, (int[]){2, 2}, 2, want, 4);
  /* A [1,1] "scalar" keeps the higher rank. */
  add_setup(&c, (int[]){1, 1}, 2, s, (int[]){4}, 1, x, kTfLiteActNone);
  add_expect(&c, (int[]){1, 4}, 2, want, 4);
  /* Scalar + scalar is a scalar. */
  const float one[] = {1.5f};
  const float sum[] = {101.5f};
  add_setup(&c, NULL, 0, s, NULL, 0, one, kTfLiteActNone);
  add_expect(&c, NULL, 0, sum, 1);
}

static void test_add_size_one_dims(void** state) {
  (void)state;
  add_case c;
  /* [2,1] + [1,3] -> [2,3]: out[i][j] = x[i] + y[j]. */
  const float x[] = {1, 2};
  const float y[] = {10, 20, 30};
  const float want[] = {11, 21, 31, 12, 22, 32};
  add_setup(&c, (int[]){2, 1}, 2, x, (int[]){1, 3}, 2, y, kTfLiteActNone);
  add_expect(&c, (int[]){2, 3}, 2, want, 6);

  /* [2,1,3] + [2,1] -> [2,2,3]: out[a][b][k] = x[a][k] + y[b]. */
  const float x3[] = {1, 2, 3, 4, 5, 6};
  const float y2[] = {100, 200};
  const float want3[] = {101, 102, 103, 201, 202, 203,
                         104, 105, 106, 204, 205, 206};
  add_setup(&c, (int[]){2, 1, 3}, 3, x3, (int[]){2, 1}, 2, y2, kTfLiteActNone);
  add_expect(&c, (int[]){2, 2, 3}, 3, want3, 12);
}

/* The reference: out = x + y over the numpy broadcast of the two shapes,
 * summed in double. Returns the output element count. */
static int reference_add(const int* dx, int rx, const float* x, const int* dy,
                         int ry, const float* y, int* dout, int rank,
                         float* out) {
  int total = 1;
  for (int i = 0; i < rank; ++i) {
    const int a = i - (rank - rx) >= 0 ? dx[i - (rank - rx)] : 1;
    const int b = i - (rank - ry) >= 0 ? dy[i - (rank - ry)] : 1;
    dout[i] = a == 1 ? b : a;
    total *= dout[i];
  }
  for (int flat = 0; flat < total; ++flat) {
    int rest = flat, ix = 0, iy = 0, sx = 1, sy = 1;
    for (int i = rank - 1; i >= 0; --i) {
      const int coord = rest % dout[i];
      rest /= dout[i];
      const int jx = i - (rank - rx), jy = i - (rank - ry);
      if (jx >= 0) {
        ix += (dx[jx] == 1 ? 0 : coord) * sx;
        sx *= dx[jx];
      }
      if (jy >= 0) {
        iy += (dy[jy] == 1 ? 0 : coord) * sy;
        sy *= dy[jy];
      }
    }
    out[flat] = (float)((double)x[ix] + (double)y[iy]);
  }
  return total;
}

/* Runs ADD on seeded data for the shape pair and compares with the
 * reference (exactly: a float sum is correctly rounded both ways). */
static void check_add_random(const int* dx, int rx, const int* dy, int ry,
                             uint32_t seed) {
  static float x[4096], y[4096], want[8192];
  int nx = 1, ny = 1;
  for (int i = 0; i < rx; ++i) nx *= dx[i];
  for (int i = 0; i < ry; ++i) ny *= dy[i];
  assert_true(nx <= 4096 && ny <= 4096);
  for (int i = 0; i < nx; ++i) x[i] = rng_float(&seed) * 100.0f;
  for (int i = 0; i < ny; ++i) y[i] = rng_float(&seed);
  int dout[8];
  const int rank = rx > ry ? rx : ry;
  const int n = reference_add(dx, rx, x, dy, ry, y, dout, rank, want);
  assert_true(n <= 8192);
  add_case c;
  add_setup(&c, dx, rx, x, dy, ry, y, kTfLiteActNone);
  add_expect(&c, dout, rank, want, n);
}

static void test_add_broadcast_5d_6d(void** state) {
  (void)state;
  /* Alternating broadcast patterns in 5-D: nothing merges. */
  check_add_random((int[]){2, 1, 3, 1, 2}, 5, (int[]){1, 2, 1, 2, 1}, 5, 1u);
  /* Lower rank on one side, 5-D on the other. */
  check_add_random((int[]){3, 1, 4, 5, 2}, 5, (int[]){4, 1, 2}, 3, 2u);
  check_add_random((int[]){1, 1, 1, 1, 7}, 5, (int[]){2, 3, 1, 4, 1}, 5, 3u);
  /* 6-D is accepted too (TFLite's ADD goes to 6). */
  check_add_random((int[]){2, 1, 2, 1, 2, 1}, 6, (int[]){1, 2, 1, 2, 1, 3}, 6,
                   4u);
}

static void test_add_random_shapes(void** state) {
  (void)state;
  uint32_t seed = 12345u;
  for (int round = 0; round < 200; ++round) {
    const int rank = rng_int(&seed, 0, 5);
    int dx[5], dy[5];
    for (int i = 0; i < rank; ++i) {
      const int d = rng_int(&seed, 1, 5);
      const int pick = rng_int(&seed, 0, 3);
      dx[i] = pick == 1 ? 1 : d; /* 1: x broadcasts along i */
      dy[i] = pick == 2 ? 1 : d; /* 2: y broadcasts along i */
    }
    /* Drop leading dims of y now and then (rank broadcasting). */
    const int drop = rng_int(&seed, 0, rank);
    check_add_random(dx, rank, dy + drop, rank - drop, seed + (uint32_t)round);
  }
  /* Longer rows, so that the vectorized loops run their main bodies. */
  check_add_random((int[]){3, 257}, 2, (int[]){257}, 1, 77u);
  check_add_random((int[]){1031}, 1, (int[]){1031}, 1, 78u);
  check_add_random((int[]){129, 1}, 2, (int[]){1, 31}, 2, 79u);
}

static void test_add_rank_and_shape_errors(void** state) {
  (void)state;
  add_case c;
  const float x[6] = {0};
  add_setup(&c, (int[]){2, 3}, 2, x, (int[]){4}, 1, x, kTfLiteActNone);
  expect_error(&c.runner, lg_kernel_runner_run(&c.runner),
               "ADD: input shapes [2,3] and [4] are not broadcastable");
  lg_kernel_runner_release(&c.runner);

  add_setup(&c, (int[]){2, 3}, 2, x, (int[]){3, 2}, 2, x, kTfLiteActNone);
  expect_error(&c.runner, lg_kernel_runner_run(&c.runner),
               "ADD: input shapes [2,3] and [3,2] are not broadcastable");
  lg_kernel_runner_release(&c.runner);

  const int d7[] = {1, 1, 1, 1, 1, 1, 1};
  add_setup(&c, d7, 7, x, (int[]){1}, 1, x, kTfLiteActNone);
  expect_error(&c.runner, lg_kernel_runner_run(&c.runner),
               "have rank 7, above the supported 6");
  lg_kernel_runner_release(&c.runner);

  /* Three inputs. */
  add_setup(&c, (int[]){1}, 1, x, (int[]){1}, 1, x, kTfLiteActNone);
  lg_kernel_runner_set_inputs(&c.runner, (int[]){0, 1, 0}, 3);
  expect_error(&c.runner, lg_kernel_runner_run(&c.runner),
               "ADD: expected 2 inputs, got 3");
  lg_kernel_runner_release(&c.runner);

  /* An omitted input. */
  add_setup(&c, (int[]){1}, 1, x, (int[]){1}, 1, x, kTfLiteActNone);
  lg_kernel_runner_set_inputs(&c.runner, (int[]){0, kTfLiteOptionalTensor}, 2);
  expect_error(&c.runner, lg_kernel_runner_run(&c.runner),
               "ADD: input 1 is absent");
  lg_kernel_runner_release(&c.runner);

  /* A tensor index past the context's tensors. */
  add_setup(&c, (int[]){1}, 1, x, (int[]){1}, 1, x, kTfLiteActNone);
  lg_kernel_runner_set_inputs(&c.runner, (int[]){0, 9}, 2);
  expect_error(&c.runner, lg_kernel_runner_run(&c.runner),
               "ADD: input 1 refers to tensor 9, out of range");
  lg_kernel_runner_release(&c.runner);
}

static void test_add_activations(void** state) {
  (void)state;
  const float x[] = {-3.0f, -0.5f, 0.5f, 3.0f, 7.0f};
  const float zero[] = {0.0f};
  /* clamp(x + 0) to [lo, hi] per activation. */
  const float none[] = {-3.0f, -0.5f, 0.5f, 3.0f, 7.0f};
  const float relu[] = {0.0f, 0.0f, 0.5f, 3.0f, 7.0f};
  const float relu1[] = {-1.0f, -0.5f, 0.5f, 1.0f, 1.0f};
  const float relu6[] = {0.0f, 0.0f, 0.5f, 3.0f, 6.0f};
  const struct {
    TfLiteFusedActivation activation;
    const float* want;
  } cases[] = {
      {kTfLiteActNone, none},
      {kTfLiteActRelu, relu},
      {kTfLiteActReluN1To1, relu1},
      {kTfLiteActRelu6, relu6},
  };
  for (int i = 0; i < ARRAY_SIZE(cases); ++i) {
    add_case c;
    add_setup(&c, (int[]){5}, 1, x, (int[]){1}, 1, zero, cases[i].activation);
    add_expect(&c, (int[]){5}, 1, cases[i].want, 5);
  }

  const struct {
    TfLiteFusedActivation activation;
    const char* message;
  } rejected[] = {
      {kTfLiteActTanh, "ADD: fused activation TANH (4) is not supported"},
      {kTfLiteActSignBit,
       "ADD: fused activation SIGN_BIT (5) is not supported"},
      {kTfLiteActSigmoid, "ADD: fused activation SIGMOID (6) is not supported"},
      {(TfLiteFusedActivation)42, "ADD: fused activation UNKNOWN (42)"},
  };
  for (int i = 0; i < ARRAY_SIZE(rejected); ++i) {
    add_case c;
    add_setup(&c, (int[]){5}, 1, x, (int[]){1}, 1, zero,
              rejected[i].activation);
    expect_error(&c.runner, lg_kernel_runner_run(&c.runner),
                 rejected[i].message);
    lg_kernel_runner_release(&c.runner);
  }
}

static void test_add_no_params_means_none(void** state) {
  (void)state;
  add_case c;
  const float x[] = {-3.0f, 8.0f};
  const float want[] = {-2.0f, 9.0f};
  const float one[] = {1.0f};
  add_setup(&c, (int[]){2}, 1, x, (int[]){1}, 1, one, kTfLiteActRelu);
  c.runner.node.builtin_data = NULL;
  add_expect(&c, (int[]){2}, 1, want, 2);
}

static void test_add_nan_inf(void** state) {
  (void)state;
  add_case c;
  const float x[] = {NAN, INFINITY, -INFINITY, INFINITY, 1.0f};
  const float y[] = {1.0f, 1.0f, 1.0f, -INFINITY, NAN};
  /* NaN in either operand gives NaN; inf - inf is NaN. An infinite sum is
   * clamped to +-FLT_MAX: TFLite's float activation range for NONE is
   * [lowest, max] (LiteRT's reference and optimized kernels agree). */
  const float want[] = {NAN, FLT_MAX, -FLT_MAX, NAN, NAN};
  add_setup(&c, (int[]){5}, 1, x, (int[]){5}, 1, y, kTfLiteActNone);
  add_expect(&c, (int[]){5}, 1, want, 5);
  /* RELU keeps NaN, clamps +inf to FLT_MAX and -inf to 0. */
  const float want_relu[] = {NAN, FLT_MAX, 0.0f, NAN, NAN};
  add_setup(&c, (int[]){5}, 1, x, (int[]){5}, 1, y, kTfLiteActRelu);
  add_expect(&c, (int[]){5}, 1, want_relu, 5);
}

static void test_add_empty(void** state) {
  (void)state;
  add_case c;
  const float x[3] = {1, 2, 3};
  /* [0,3] + [3] -> [0,3]; [2,0] + [1] -> [2,0]; [0] + [1] -> [0] (1
   * broadcasts against 0); [1] + [] -> [1] is not empty. */
  add_setup(&c, (int[]){0, 3}, 2, NULL, (int[]){3}, 1, x, kTfLiteActNone);
  add_expect(&c, (int[]){0, 3}, 2, NULL, 0);
  add_setup(&c, (int[]){2, 0}, 2, NULL, (int[]){1}, 1, x, kTfLiteActNone);
  add_expect(&c, (int[]){2, 0}, 2, NULL, 0);
  add_setup(&c, (int[]){0}, 1, NULL, (int[]){1}, 1, x, kTfLiteActRelu);
  add_expect(&c, (int[]){0}, 1, NULL, 0);
  add_setup(&c, (int[]){4, 1, 0}, 3, NULL, (int[]){1, 5, 1}, 3, x,
            kTfLiteActNone);
  add_expect(&c, (int[]){4, 5, 0}, 3, NULL, 0);
}

static void test_add_int32(void** state) {
  (void)state;
  TfLiteAddParams params = {.activation = kTfLiteActNone};
  const int32_t x[] = {1, -2, INT32_MAX, INT32_MIN, 7};
  const int32_t y[] = {10};
  const int32_t z[] = {0, 0, 1, -1, 0};
  struct {
    const int32_t* b;
    int nb;
    TfLiteFusedActivation activation;
    int32_t want[5];
  } cases[] = {
      {y, 1, kTfLiteActNone, {11, 8, INT32_MIN + 9, INT32_MIN + 10, 17}},
      /* Overflow wraps, as TFLite's int32 add does. */
      {z, 5, kTfLiteActNone, {1, -2, INT32_MIN, INT32_MAX, 7}},
      {z, 5, kTfLiteActRelu, {1, 0, 0, INT32_MAX, 7}},
      {z, 5, kTfLiteActRelu6, {1, 0, 0, 6, 6}},
      {z, 5, kTfLiteActReluN1To1, {1, -1, -1, 1, 1}},
  };
  for (int i = 0; i < ARRAY_SIZE(cases); ++i) {
    params.activation = cases[i].activation;
    lg_kernel_runner r;
    lg_kernel_runner_init(&r, lg_register_ADD(), &params);
    const int a = add_tensor(&r, kTfLiteInt32, (int[]){5}, 1, x);
    const int b =
        add_tensor(&r, kTfLiteInt32, (int[]){cases[i].nb}, 1, cases[i].b);
    const int o = add_output(&r, kTfLiteInt32);
    lg_kernel_runner_set_inputs(&r, (int[]){a, b}, 2);
    lg_kernel_runner_set_outputs(&r, &o, 1);
    assert_int_equal(lg_kernel_runner_run(&r), kTfLiteOk);
    const TfLiteTensor* out = lg_kernel_runner_tensor(&r, o);
    expect_shape(out, (int[]){5}, 1);
    for (int k = 0; k < 5; ++k) {
      if (out->data.i32[k] != cases[i].want[k]) {
        fail_msg("case %d index %d: got %d, want %d", i, k, out->data.i32[k],
                 cases[i].want[k]);
      }
    }
    lg_kernel_runner_release(&r);
  }
}

static void add_type_error(TfLiteType t1, TfLiteType t2, TfLiteType tout,
                           const char* message) {
  TfLiteAddParams params = {.activation = kTfLiteActNone};
  static const int64_t buffer[4] = {0};
  lg_kernel_runner r;
  lg_kernel_runner_init(&r, lg_register_ADD(), &params);
  const int a = add_tensor(&r, t1, (int[]){2}, 1, buffer);
  const int b = add_tensor(&r, t2, (int[]){2}, 1, buffer);
  const int o = add_output(&r, tout);
  lg_kernel_runner_set_inputs(&r, (int[]){a, b}, 2);
  lg_kernel_runner_set_outputs(&r, &o, 1);
  expect_error(&r, lg_kernel_runner_run(&r), message);
  lg_kernel_runner_release(&r);
}

static void test_add_type_errors(void** state) {
  (void)state;
  add_type_error(kTfLiteFloat32, kTfLiteInt32, kTfLiteFloat32,
                 "ADD: input types FLOAT32 and INT32 differ");
  /* INT8, UINT8 and INT16 need quantization parameters (these have
   * none). */
  add_type_error(kTfLiteInt8, kTfLiteInt8, kTfLiteInt8, "ADD: input 0 tensor");
  add_type_error(kTfLiteUInt8, kTfLiteUInt8, kTfLiteUInt8,
                 "ADD: input 0 tensor '(unnamed)' (UINT8) has no "
                 "quantization");
  add_type_error(kTfLiteInt16, kTfLiteInt16, kTfLiteInt16,
                 "ADD: input 0 tensor");
  add_type_error(kTfLiteInt64, kTfLiteInt64, kTfLiteInt64,
                 "ADD: input type INT64 is not supported");
  add_type_error(kTfLiteFloat16, kTfLiteFloat16, kTfLiteFloat16,
                 "ADD: input type FLOAT16 is not supported");
  add_type_error(kTfLiteFloat32, kTfLiteFloat32, kTfLiteInt32,
                 "ADD: output type INT32 differs from input type FLOAT32");
}

/* A second prepare after the inputs change shape re-plans; an invoke after a
 * shape change without prepare is refused instead of overrunning. */
static void test_add_reprepare(void** state) {
  (void)state;
  add_case c;
  const float x[] = {1, 2, 3, 4, 5, 6};
  const float y[] = {10, 20, 30};
  add_setup(&c, (int[]){2, 3}, 2, x, (int[]){3}, 1, y, kTfLiteActNone);
  assert_int_equal(lg_kernel_runner_run(&c.runner), kTfLiteOk);

  TfLiteTensor* a = lg_kernel_runner_tensor(&c.runner, 0);
  TfLiteIntArrayFree(a->dims);
  a->dims = TfLiteIntArrayCreate(2);
  a->dims->data[0] = 1;
  a->dims->data[1] = 3;
  expect_error(&c.runner, lg_kernel_runner_invoke(&c.runner),
               "ADD: tensor shapes changed since prepare");

  lg_kernel_runner_clear_errors(&c.runner);
  const float want[] = {11, 22, 33};
  assert_int_equal(lg_kernel_runner_run(&c.runner), kTfLiteOk);
  expect_shape(add_out(&c), (int[]){1, 3}, 2);
  expect_floats(add_out(&c)->data.f, want, 3);
  /* Invoke again without changes: same result. */
  assert_int_equal(lg_kernel_runner_invoke(&c.runner), kTfLiteOk);
  expect_floats(add_out(&c)->data.f, want, 3);
  lg_kernel_runner_release(&c.runner);
}

/* ---- FULLY_CONNECTED ---------------------------------------------------- */

typedef struct fc_case {
  lg_kernel_runner runner;
  TfLiteFullyConnectedParams params;
  int output;
} fc_case;

/* out = FC(input, weights[, bias]); bias == NULL leaves the bias out (two
 * inputs), or with omit_as_optional passes kTfLiteOptionalTensor. */
static void fc_setup(fc_case* c, const int* din, int rin, const float* input,
                     const int* dw, const float* weights, const float* bias,
                     bool omit_as_optional, TfLiteFusedActivation activation,
                     bool keep_num_dims) {
  memset(&c->params, 0, sizeof(c->params));
  c->params.activation = activation;
  c->params.keep_num_dims = keep_num_dims;
  lg_kernel_runner_init(&c->runner, lg_register_FULLY_CONNECTED(), &c->params);
  const int i = add_tensor(&c->runner, kTfLiteFloat32, din, rin, input);
  const int w = add_tensor(&c->runner, kTfLiteFloat32, dw, 2, weights);
  c->output = add_output(&c->runner, kTfLiteFloat32);
  if (bias != NULL) {
    const int b =
        add_tensor(&c->runner, kTfLiteFloat32, (int[]){dw[0]}, 1, bias);
    lg_kernel_runner_set_inputs(&c->runner, (int[]){i, w, b}, 3);
  } else if (omit_as_optional) {
    lg_kernel_runner_set_inputs(&c->runner,
                                (int[]){i, w, kTfLiteOptionalTensor}, 3);
  } else {
    lg_kernel_runner_set_inputs(&c->runner, (int[]){i, w}, 2);
  }
  lg_kernel_runner_set_outputs(&c->runner, &c->output, 1);
}

static const TfLiteTensor* fc_out(fc_case* c) {
  return lg_kernel_runner_tensor(&c->runner, c->output);
}

static void fc_expect(fc_case* c, const int* dims, int rank, const float* want,
                      int n) {
  const TfLiteStatus status = lg_kernel_runner_run(&c->runner);
  if (status != kTfLiteOk) {
    fail_msg("FULLY_CONNECTED failed: %s", lg_kernel_runner_errors(&c->runner));
  }
  expect_shape(fc_out(c), dims, rank);
  expect_floats(fc_out(c)->data.f, want, n);
  lg_kernel_runner_release(&c->runner);
}

/* weights [2,3]: row 0 = (1, 0, -1), row 1 = (0.5, 0.5, 0.5). */
static const float kW[] = {1.0f, 0.0f, -1.0f, 0.5f, 0.5f, 0.5f};
static const float kBias[] = {10.0f, -1.0f};

static void test_fc_bias_and_no_bias(void** state) {
  (void)state;
  fc_case c;
  const float in[] = {1, 2, 3};
  /* With bias: (1 - 3) + 10 = 8; (0.5 + 1 + 1.5) - 1 = 2. */
  const float with_bias[] = {8.0f, 2.0f};
  fc_setup(&c, (int[]){1, 3}, 2, in, (int[]){2, 3}, kW, kBias, false,
           kTfLiteActNone, false);
  fc_expect(&c, (int[]){1, 2}, 2, with_bias, 2);
  /* Without: -2 and 3; both as two inputs and as an omitted third. */
  const float no_bias[] = {-2.0f, 3.0f};
  fc_setup(&c, (int[]){1, 3}, 2, in, (int[]){2, 3}, kW, NULL, false,
           kTfLiteActNone, false);
  fc_expect(&c, (int[]){1, 2}, 2, no_bias, 2);
  fc_setup(&c, (int[]){1, 3}, 2, in, (int[]){2, 3}, kW, NULL, true,
           kTfLiteActNone, false);
  fc_expect(&c, (int[]){1, 2}, 2, no_bias, 2);
}

static void test_fc_batch_and_keep_num_dims(void** state) {
  (void)state;
  fc_case c;
  /* Two rows: (1,2,3) -> (8, 2) and (-1,-2,-3) -> (-1+3+10, -3-1) = (12,-4).
   */
  const float in[] = {1, 2, 3, -1, -2, -3};
  const float want[] = {8.0f, 2.0f, 12.0f, -4.0f};
  fc_setup(&c, (int[]){2, 3}, 2, in, (int[]){2, 3}, kW, kBias, false,
           kTfLiteActNone, false);
  fc_expect(&c, (int[]){2, 2}, 2, want, 4);
  /* [2,1,3] flattens to batch 2 -> [2,2], or keeps its dims -> [2,1,2]. */
  fc_setup(&c, (int[]){2, 1, 3}, 3, in, (int[]){2, 3}, kW, kBias, false,
           kTfLiteActNone, false);
  fc_expect(&c, (int[]){2, 2}, 2, want, 4);
  fc_setup(&c, (int[]){2, 1, 3}, 3, in, (int[]){2, 3}, kW, kBias, false,
           kTfLiteActNone, true);
  fc_expect(&c, (int[]){2, 1, 2}, 3, want, 4);
  /* [6] with in_depth 3: batch 2 without keep_num_dims... */
  fc_setup(&c, (int[]){6}, 1, in, (int[]){2, 3}, kW, kBias, false,
           kTfLiteActNone, false);
  fc_expect(&c, (int[]){2, 2}, 2, want, 4);
  /* ...but with it the last dim (6) must equal in_depth (3). */
  fc_setup(&c, (int[]){6}, 1, in, (int[]){2, 3}, kW, kBias, false,
           kTfLiteActNone, true);
  expect_error(&c.runner, lg_kernel_runner_run(&c.runner),
               "FULLY_CONNECTED: keep_num_dims needs the input's last dim to "
               "equal the weights' input depth 3; input shape is [6]");
  lg_kernel_runner_release(&c.runner);
  /* keep_num_dims with a 1-D input of in_depth: [3] -> [2]. */
  fc_setup(&c, (int[]){3}, 1, in, (int[]){2, 3}, kW, kBias, false,
           kTfLiteActNone, true);
  fc_expect(&c, (int[]){2}, 1, want, 2);
}

static void test_fc_activations(void** state) {
  (void)state;
  /* weights [4,1] = (1, -1, 0.5, 10), no bias, input 1.5:
   * raw = (1.5, -1.5, 0.75, 15). */
  const float w[] = {1.0f, -1.0f, 0.5f, 10.0f};
  const float in[] = {1.5f};
  const struct {
    TfLiteFusedActivation activation;
    float want[4];
  } cases[] = {
      {kTfLiteActNone, {1.5f, -1.5f, 0.75f, 15.0f}},
      {kTfLiteActRelu, {1.5f, 0.0f, 0.75f, 15.0f}},
      {kTfLiteActReluN1To1, {1.0f, -1.0f, 0.75f, 1.0f}},
      {kTfLiteActRelu6, {1.5f, 0.0f, 0.75f, 6.0f}},
  };
  for (int i = 0; i < ARRAY_SIZE(cases); ++i) {
    fc_case c;
    fc_setup(&c, (int[]){1, 1}, 2, in, (int[]){4, 1}, w, NULL, false,
             cases[i].activation, false);
    fc_expect(&c, (int[]){1, 4}, 2, cases[i].want, 4);
  }
  fc_case c;
  fc_setup(&c, (int[]){1, 1}, 2, in, (int[]){4, 1}, w, NULL, false,
           kTfLiteActTanh, false);
  expect_error(&c.runner, lg_kernel_runner_run(&c.runner),
               "FULLY_CONNECTED: fused activation TANH (4) is not supported");
  lg_kernel_runner_release(&c.runner);
  fc_setup(&c, (int[]){1, 1}, 2, in, (int[]){4, 1}, w, NULL, false,
           kTfLiteActSignBit, false);
  expect_error(&c.runner, lg_kernel_runner_run(&c.runner),
               "FULLY_CONNECTED: fused activation SIGN_BIT (5) is not "
               "supported");
  lg_kernel_runner_release(&c.runner);
}

static void test_fc_shape_errors(void** state) {
  (void)state;
  fc_case c;
  const float buf[16] = {0};
  /* 5 elements do not split into rows of 3. */
  fc_setup(&c, (int[]){5}, 1, buf, (int[]){2, 3}, kW, kBias, false,
           kTfLiteActNone, false);
  expect_error(&c.runner, lg_kernel_runner_run(&c.runner),
               "FULLY_CONNECTED: input shape [5] has 5 elements, not a "
               "multiple of the weights' input depth 3");
  lg_kernel_runner_release(&c.runner);
  /* A bias of the wrong length. */
  fc_setup(&c, (int[]){1, 3}, 2, buf, (int[]){2, 3}, kW, NULL, false,
           kTfLiteActNone, false);
  const int b = add_tensor(&c.runner, kTfLiteFloat32, (int[]){3}, 1, buf);
  lg_kernel_runner_set_inputs(&c.runner, (int[]){0, 1, b}, 3);
  expect_error(&c.runner, lg_kernel_runner_run(&c.runner),
               "FULLY_CONNECTED: bias shape [3] does not hold 2 elements");
  lg_kernel_runner_release(&c.runner);
  /* 3-D weights. */
  lg_kernel_runner r;
  TfLiteFullyConnectedParams params = {.activation = kTfLiteActNone};
  lg_kernel_runner_init(&r, lg_register_FULLY_CONNECTED(), &params);
  add_tensor(&r, kTfLiteFloat32, (int[]){1, 3}, 2, buf);
  add_tensor(&r, kTfLiteFloat32, (int[]){1, 2, 3}, 3, buf);
  add_output(&r, kTfLiteFloat32);
  lg_kernel_runner_set_inputs(&r, (int[]){0, 1}, 2);
  lg_kernel_runner_set_outputs(&r, (int[]){2}, 1);
  expect_error(&r, lg_kernel_runner_run(&r),
               "FULLY_CONNECTED: weights shape [1,2,3] is not 2-D");
  lg_kernel_runner_release(&r);
  /* Input depth 0. */
  fc_setup(&c, (int[]){1, 0}, 2, buf, (int[]){2, 0}, buf, NULL, false,
           kTfLiteActNone, false);
  expect_error(&c.runner, lg_kernel_runner_run(&c.runner),
               "FULLY_CONNECTED: weights shape [2,0] has input depth 0");
  lg_kernel_runner_release(&c.runner);
  /* One input only. */
  fc_setup(&c, (int[]){1, 3}, 2, buf, (int[]){2, 3}, kW, NULL, false,
           kTfLiteActNone, false);
  lg_kernel_runner_set_inputs(&c.runner, (int[]){0}, 1);
  expect_error(&c.runner, lg_kernel_runner_run(&c.runner),
               "FULLY_CONNECTED: expected 2 to 3 inputs, got 1");
  lg_kernel_runner_release(&c.runner);
}

/* Runs FC with the given input / weights / bias types, expecting `message`. */
static void fc_type_error(TfLiteType tin, TfLiteType tw, TfLiteType tb,
                          TfLiteType tout, const char* message) {
  static const int64_t buffer[8] = {0};
  TfLiteFullyConnectedParams params = {.activation = kTfLiteActNone};
  lg_kernel_runner r;
  lg_kernel_runner_init(&r, lg_register_FULLY_CONNECTED(), &params);
  add_tensor(&r, tin, (int[]){1, 2}, 2, buffer);
  add_tensor(&r, tw, (int[]){2, 2}, 2, buffer);
  add_tensor(&r, tb, (int[]){2}, 1, buffer);
  add_output(&r, tout);
  lg_kernel_runner_set_inputs(&r, (int[]){0, 1, 2}, 3);
  lg_kernel_runner_set_outputs(&r, (int[]){3}, 1);
  expect_error(&r, lg_kernel_runner_run(&r), message);
  lg_kernel_runner_release(&r);
}

static void test_fc_type_errors(void** state) {
  (void)state;
  const TfLiteType f32 = kTfLiteFloat32;
  fc_type_error(kTfLiteUInt8, kTfLiteInt8, kTfLiteInt32, kTfLiteUInt8,
                "FULLY_CONNECTED: input type UINT8 with weights type INT8 is "
                "not supported (expected FLOAT32 with FLOAT32, INT8 or "
                "INT4 weights, INT8 or INT16 with INT8 or INT4 weights, or "
                "UINT8 with UINT8 weights)");
  /* INT8 and INT16 need quantization parameters (these have none). */
  fc_type_error(kTfLiteInt8, kTfLiteInt8, kTfLiteInt32, kTfLiteInt8,
                "FULLY_CONNECTED: input tensor");
  fc_type_error(kTfLiteInt8, kTfLiteInt8, f32, kTfLiteInt8,
                "FULLY_CONNECTED: bias type FLOAT32 is not supported with "
                "INT8 input and INT8 weights (expected INT32)");
  /* Hybrid (version 3/9/12): float input, int8 weights, which need
   * quantization parameters (these have none). */
  fc_type_error(f32, kTfLiteInt8, f32, f32,
                "FULLY_CONNECTED: weights tensor '(unnamed)' (INT8) has no "
                "quantization");
  /* 16x8 needs quantization parameters too; an INT8 bias is no 16x8. */
  fc_type_error(kTfLiteInt16, kTfLiteInt8, kTfLiteInt64, kTfLiteInt16,
                "FULLY_CONNECTED: input tensor");
  fc_type_error(kTfLiteInt16, kTfLiteInt8, kTfLiteInt8, kTfLiteInt16,
                "FULLY_CONNECTED: bias type INT8 is not supported with INT16 "
                "input and INT8 weights (expected INT64 or INT32)");
  /* UINT8 (legacy) needs quantization parameters too, and an INT32 bias
   * and a UINT8 output. */
  fc_type_error(kTfLiteUInt8, kTfLiteUInt8, kTfLiteInt32, kTfLiteUInt8,
                "FULLY_CONNECTED: input tensor '(unnamed)' (UINT8) has no "
                "quantization");
  fc_type_error(kTfLiteUInt8, kTfLiteUInt8, kTfLiteInt64, kTfLiteUInt8,
                "FULLY_CONNECTED: bias type INT64 is not supported with UINT8 "
                "input and UINT8 weights (expected INT32)");
  fc_type_error(kTfLiteUInt8, kTfLiteUInt8, kTfLiteInt32, kTfLiteInt16,
                "FULLY_CONNECTED: output type INT16 is not supported with "
                "UINT8 input (expected UINT8)");
  fc_type_error(kTfLiteFloat16, kTfLiteFloat16, kTfLiteFloat16, kTfLiteFloat16,
                "input type FLOAT16 with weights type FLOAT16");
  fc_type_error(f32, f32, kTfLiteInt32, f32,
                "FULLY_CONNECTED: bias type INT32 is not supported");
  fc_type_error(f32, f32, f32, kTfLiteInt8,
                "FULLY_CONNECTED: output type INT8 is not supported");
}

static void test_fc_weights_format_and_sparsity(void** state) {
  (void)state;
  fc_case c;
  const float in[] = {1, 2, 3};
  fc_setup(&c, (int[]){1, 3}, 2, in, (int[]){2, 3}, kW, kBias, false,
           kTfLiteActNone, false);
  c.params.weights_format = kTfLiteFullyConnectedWeightsFormatShuffled4x16Int8;
  expect_error(&c.runner, lg_kernel_runner_run(&c.runner),
               "FULLY_CONNECTED: weights format SHUFFLED4x16INT8 is not "
               "supported");
  lg_kernel_runner_release(&c.runner);

  TfLiteSparsity sparsity;
  memset(&sparsity, 0, sizeof(sparsity));
  fc_setup(&c, (int[]){1, 3}, 2, in, (int[]){2, 3}, kW, kBias, false,
           kTfLiteActNone, false);
  lg_kernel_runner_tensor(&c.runner, 1)->sparsity = &sparsity;
  expect_error(&c.runner, lg_kernel_runner_run(&c.runner),
               "FULLY_CONNECTED: sparse weights are not supported");
  lg_kernel_runner_tensor(&c.runner, 1)->sparsity = NULL;
  lg_kernel_runner_release(&c.runner);
}

static void test_fc_nan_inf(void** state) {
  (void)state;
  fc_case c;
  /* Row 0 holds a NaN: both outputs NaN. Row 1 holds +inf at index 0:
   * 1*inf -> +inf; 0.5*inf -> +inf. Row 2 holds +inf at 0 and 2:
   * inf - inf -> NaN, inf -> +inf. With no activation TFLite still clamps
   * to the finite float range, so +inf comes out as FLT_MAX. */
  const float in[] = {NAN, 1, 1, INFINITY, 1, 1, INFINITY, 0, INFINITY};
  const float want[] = {NAN, NAN, FLT_MAX, FLT_MAX, NAN, FLT_MAX};
  fc_setup(&c, (int[]){3, 3}, 2, in, (int[]){2, 3}, kW, kBias, false,
           kTfLiteActNone, false);
  fc_expect(&c, (int[]){3, 2}, 2, want, 6);
  const float want_relu6[] = {NAN, NAN, 6.0f, 6.0f, NAN, 6.0f};
  fc_setup(&c, (int[]){3, 3}, 2, in, (int[]){2, 3}, kW, kBias, false,
           kTfLiteActRelu6, false);
  fc_expect(&c, (int[]){3, 2}, 2, want_relu6, 6);
}

static void test_fc_empty(void** state) {
  (void)state;
  fc_case c;
  /* Batch 0: [0,3] -> [0,2]; keep_num_dims [2,0,3] -> [2,0,2]. */
  fc_setup(&c, (int[]){0, 3}, 2, NULL, (int[]){2, 3}, kW, kBias, false,
           kTfLiteActNone, false);
  fc_expect(&c, (int[]){0, 2}, 2, NULL, 0);
  fc_setup(&c, (int[]){2, 0, 3}, 3, NULL, (int[]){2, 3}, kW, kBias, false,
           kTfLiteActRelu, true);
  fc_expect(&c, (int[]){2, 0, 2}, 3, NULL, 0);
  /* No output units: weights [0,3], bias [0] -> [1,0]. */
  const float in[] = {1, 2, 3};
  fc_setup(&c, (int[]){1, 3}, 2, in, (int[]){0, 3}, NULL, NULL, false,
           kTfLiteActNone, false);
  fc_expect(&c, (int[]){1, 0}, 2, NULL, 0);
}

/* Compares FC on seeded data with a double-precision reference. The bound
 * scales with the sum of |products| (float rounding of the sum). */
static void check_fc_random(int batch, int in_depth, int out_depth,
                            bool with_bias, TfLiteFusedActivation activation,
                            int threads, uint32_t seed) {
  float* in = malloc(sizeof(float) * (size_t)(batch * in_depth + 1));
  float* w = malloc(sizeof(float) * (size_t)(out_depth * in_depth + 1));
  float* bias = malloc(sizeof(float) * (size_t)(out_depth + 1));
  assert_true(in != NULL && w != NULL && bias != NULL);
  for (int i = 0; i < batch * in_depth; ++i) in[i] = rng_float(&seed);
  for (int i = 0; i < out_depth * in_depth; ++i) w[i] = rng_float(&seed);
  for (int i = 0; i < out_depth; ++i) bias[i] = rng_float(&seed);

  fc_case c;
  fc_setup(&c, (int[]){batch, in_depth}, 2, in, (int[]){out_depth, in_depth}, w,
           with_bias ? bias : NULL, false, activation, false);
  if (threads > 1) {
    assert_int_equal(lg_kernel_runner_set_threads(&c.runner, threads),
                     kTfLiteOk);
  }
  const TfLiteStatus status = lg_kernel_runner_run(&c.runner);
  if (status != kTfLiteOk) {
    fail_msg("FULLY_CONNECTED failed: %s", lg_kernel_runner_errors(&c.runner));
  }
  expect_shape(fc_out(&c), (int[]){batch, out_depth}, 2);
  const float* out = fc_out(&c)->data.f;
  const double lo = activation == kTfLiteActRelu ? 0.0 : -INFINITY;
  for (int b = 0; b < batch; ++b) {
    for (int o = 0; o < out_depth; ++o) {
      double sum = with_bias ? bias[o] : 0.0, magnitude = fabs(sum);
      for (int i = 0; i < in_depth; ++i) {
        const double p = (double)in[b * in_depth + i] * w[o * in_depth + i];
        sum += p;
        magnitude += fabs(p);
      }
      const double want = sum < lo ? lo : sum;
      const double tolerance =
          1e-6 + 2.0 * (in_depth + 1) * FLT_EPSILON * magnitude;
      const double got = out[b * out_depth + o];
      if (!(fabs(got - want) <= tolerance)) {
        fail_msg(
            "batch %d in %d out %d threads %d: [%d,%d] got %.9g, "
            "want %.9g (tolerance %.3g)",
            batch, in_depth, out_depth, threads, b, o, got, want, tolerance);
      }
    }
  }
  lg_kernel_runner_release(&c.runner);
  free(in);
  free(w);
  free(bias);
}

static void test_fc_random(void** state) {
  (void)state;
  /* In-depths around the 8-wide dot product: below, at, above, multiples,
   * primes. */
  const int depths[] = {1, 7, 8, 9, 16, 17, 64, 127, 300};
  const int outs[] = {1, 3, 16, 33};
  const int batches[] = {1, 2, 7, 9, 37};
  uint32_t seed = 2024u;
  for (int d = 0; d < ARRAY_SIZE(depths); ++d) {
    for (int o = 0; o < ARRAY_SIZE(outs); ++o) {
      const int batch = batches[(d + o) % ARRAY_SIZE(batches)];
      const bool bias = ((d + o) % 2) == 0;
      const TfLiteFusedActivation act =
          (d % 3) == 0 ? kTfLiteActRelu : kTfLiteActNone;
      check_fc_random(batch, depths[d], outs[o], bias, act, 1,
                      seed + (uint32_t)(d * 31 + o));
    }
  }
}

static void test_fc_threads(void** state) {
  (void)state;
  /* Enough rows for every thread: split by rows. */
  check_fc_random(64, 256, 64, true, kTfLiteActNone, 3, 9u);
  check_fc_random(65, 129, 17, false, kTfLiteActRelu, 4, 10u);
  /* One row: split by output columns. */
  check_fc_random(1, 64, 1031, true, kTfLiteActNone, 3, 11u);
  check_fc_random(2, 512, 100, true, kTfLiteActNone, 4, 12u);
  /* Too little work to split. */
  check_fc_random(2, 8, 8, true, kTfLiteActNone, 4, 13u);
}

/* ---- Registrations and the builtin table -------------------------------- */

static void test_builtin_table(void** state) {
  (void)state;
  {
    size_t count = 0;
    const lg_builtin_kernel* table = lg_builtin_kernels(&count);
    assert_non_null(table);
    for (size_t i = 0; i < count; ++i) {
      const TfLiteRegistration* reg = table[i].registration();
      assert_non_null(reg);
      assert_int_equal(reg->builtin_code, table[i].builtin_code);
      assert_true(table[i].min_version >= 1);
      assert_true(table[i].min_version <= table[i].max_version);
    }
  }
  int lo = -7, hi = -7;
  const lg_builtin_kernel* add =
      lg_builtin_kernel_find(kTfLiteBuiltinAdd, 1, &lo, &hi);
  assert_non_null(add);
  assert_null(lg_builtin_kernel_find(kTfLiteBuiltinAdd, 6, &lo, &hi));
  assert_int_equal(lo, 1);
  assert_int_equal(hi, 5);
  assert_non_null(
      lg_builtin_kernel_find(kTfLiteBuiltinFullyConnected, 13, NULL, NULL));
  assert_null(
      lg_builtin_kernel_find(kTfLiteBuiltinFullyConnected, 14, &lo, &hi));
  assert_int_equal(hi, 13);
  /* An op with no kernel at all reports an empty range. */
  assert_null(lg_builtin_kernel_find(kTfLiteBuiltinStablehloCbrt, 1, &lo, &hi));
  assert_int_equal(lo, 0);
  assert_int_equal(hi, 0);
}

static void test_invoke_without_prepare(void** state) {
  (void)state;
  /* Call the registration directly: invoke before any prepare. */
  lg_kernel_runner r;
  TfLiteAddParams params = {.activation = kTfLiteActNone};
  lg_kernel_runner_init(&r, lg_register_ADD(), &params);
  const TfLiteRegistration* reg = lg_register_ADD();
  r.node.user_data = reg->init(&r.context, (const char*)&params, 0);
  r.initialized = true;
  assert_int_not_equal(reg->invoke(&r.context, &r.node), kTfLiteOk);
  assert_non_null(strstr(lg_kernel_runner_errors(&r),
                         "ADD: invoked before a successful prepare"));
  lg_kernel_runner_release(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_add_same_shape),
      cmocka_unit_test(test_add_trailing_broadcast),
      cmocka_unit_test(test_add_scalar),
      cmocka_unit_test(test_add_size_one_dims),
      cmocka_unit_test(test_add_broadcast_5d_6d),
      cmocka_unit_test(test_add_random_shapes),
      cmocka_unit_test(test_add_rank_and_shape_errors),
      cmocka_unit_test(test_add_activations),
      cmocka_unit_test(test_add_no_params_means_none),
      cmocka_unit_test(test_add_nan_inf),
      cmocka_unit_test(test_add_empty),
      cmocka_unit_test(test_add_int32),
      cmocka_unit_test(test_add_type_errors),
      cmocka_unit_test(test_add_reprepare),
      cmocka_unit_test(test_fc_bias_and_no_bias),
      cmocka_unit_test(test_fc_batch_and_keep_num_dims),
      cmocka_unit_test(test_fc_activations),
      cmocka_unit_test(test_fc_shape_errors),
      cmocka_unit_test(test_fc_type_errors),
      cmocka_unit_test(test_fc_weights_format_and_sparsity),
      cmocka_unit_test(test_fc_nan_inf),
      cmocka_unit_test(test_fc_empty),
      cmocka_unit_test(test_fc_random),
      cmocka_unit_test(test_fc_threads),
      cmocka_unit_test(test_builtin_table),
      cmocka_unit_test(test_invoke_without_prepare),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
