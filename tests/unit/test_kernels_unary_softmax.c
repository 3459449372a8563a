/* SOFTMAX, LOG_SOFTMAX (softmax.c) and PRELU (prelu.c) through the kernel
 * runner: hand-derived rows, beta (0, negative, > 1), stability with large
 * inputs, NaN and infinities, depth 1, empty and batched shapes, alpha
 * broadcast patterns, every rejection message, seeded random cases against
 * double-precision references, one and two threads.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tests/unit/unary_test_util.h"

/* ---- SOFTMAX ------------------------------------------------------------- */

static void softmax_run(const float* x, const int* dims, int rank, float beta,
                        float* out, int threads) {
  TfLiteSoftmaxParams params = {.beta = beta};
  run_one(lg_register_SOFTMAX(), &params, kTfLiteFloat32, kTfLiteFloat32, dims,
          rank, x, out, threads);
}

static void test_softmax_hand(void** state) {
  (void)state;
  /* [1, 2, 3], beta 1: e^(x - 3) = e^-2, e^-1, 1 over their sum
   * 1.50321472. The second row is the first + 1000: subtracting the max
   * keeps exp in range and gives the same result. */
  const float x[] = {1, 2, 3, 1000, 1001, 1002};
  const float want[] = {0.0900305733f, 0.244728476f, 0.665240943f,
                        0.0900305733f, 0.244728476f, 0.665240943f};
  float got[6];
  softmax_run(x, (int[]){2, 3}, 2, 1.0f, got, 1);
  expect_floats_near(got, want, 6, 2, 0.0, "softmax [1,2,3]");
  /* beta 0: every exp is 1, a uniform distribution. */
  const float third[] = {1.0f / 3, 1.0f / 3, 1.0f / 3};
  softmax_run(x, (int[]){3}, 1, 0.0f, got, 1);
  expect_floats_near(got, third, 3, 1, 0.0, "beta 0");
  /* beta -1 reverses the order: e^((x - 3) * -1) = e^2, e, 1. */
  const float reversed[] = {0.665240943f, 0.244728476f, 0.0900305733f};
  softmax_run(x, (int[]){3}, 1, -1.0f, got, 1);
  expect_floats_near(got, reversed, 3, 2, 0.0, "beta -1");
  /* beta 2 on [0, ln 2]: e^(2 (x - ln 2)) = 1/4, 1: [0.2, 0.8]. */
  const float ln2[] = {0.0f, 0.693147182f};
  const float fifths[] = {0.2f, 0.8f};
  softmax_run(ln2, (int[]){1, 2}, 2, 2.0f, got, 1);
  expect_floats_near(got, fifths, 2, 2, 0.0, "beta 2");
  /* Depth 1: every element is its own row, exp(0) / 1. */
  const float ones[] = {1, 1, 1, 1};
  const float any[] = {-5, 0, 7, 1e30f};
  softmax_run(any, (int[]){4, 1}, 2, 1.0f, got, 1);
  expect_floats(got, ones, 4, "depth 1");
}

static void test_softmax_specials(void** state) {
  (void)state;
  /* Row 0: a NaN poisons the sum, so the whole row is NaN. Row 1: all -inf
   * gives 0 / 0. Row 2: +inf - inf is NaN. Row 3: -inf next to a finite
   * value is exactly 0 and the other exactly 1. Row 4 is untouched by its
   * neighbours. */
  const float x[] = {1.0f,      NAN,       2.0f, -INFINITY, -INFINITY,
                     -INFINITY, INFINITY,  1.0f, -INFINITY, -INFINITY,
                     0.0f,      -INFINITY, 1.0f, 2.0f,      3.0f};
  const float want[] = {NAN,  NAN,  NAN,           NAN,          NAN,
                        NAN,  NAN,  NAN,           NAN,          0.0f,
                        1.0f, 0.0f, 0.0900305733f, 0.244728476f, 0.665240943f};
  float got[15];
  softmax_run(x, (int[]){5, 3}, 2, 1.0f, got, 1);
  expect_floats_near(got, want, 15, 2, 0.0, "softmax specials");
}

/* The reference: per row, max, exp((x - max) * beta) and the sum in
 * double. */
static void softmax_reference(const float* x, int rows, int depth, float beta,
                              bool log_form, float* out) {
  for (int r = 0; r < rows; ++r) {
    const float* row = x + (size_t)r * depth;
    double max = -INFINITY, sum = 0.0;
    for (int c = 0; c < depth; ++c) max = fmax(max, row[c]);
    for (int c = 0; c < depth; ++c) sum += exp((row[c] - max) * beta);
    for (int c = 0; c < depth; ++c) {
      const double v = log_form ? (row[c] - max) - log(sum)
                                : exp((row[c] - max) * beta) / sum;
      out[(size_t)r * depth + c] = (float)v;
    }
  }
}

/* Shapes around small sizes, primes and batches; the last dim is the
 * axis. */
static const int kSoftmaxShapes[][4] = {
    {1, 1, 1, 1},  {1, 1, 1, 3},   {1, 1, 5, 7},    {1, 2, 3, 17},
    {3, 1, 1, 64}, {2, 2, 2, 129}, {1, 1, 1, 1000}, {1, 1, 7, 1},
};

static void test_softmax_random(void** state) {
  (void)state;
  static float x[4 * 1000], got[4 * 1000], want[4 * 1000];
  const float betas[] = {1.0f, 0.5f, 3.0f, -1.0f};
  uint32_t seed = 0x50f7aaa1u;
  for (int s = 0; s < ARRAY_SIZE(kSoftmaxShapes); ++s) {
    /* The rank varies with the shape: its trailing dims only. */
    const int rank = 1 + s % 4;
    const int* dims = kSoftmaxShapes[s] + 4 - rank;
    int n = 1;
    for (int i = 0; i < rank; ++i) n *= dims[i];
    for (int i = 0; i < n; ++i) x[i] = rng_uniform(&seed, -6.0f, 6.0f);
    const float beta = betas[s % ARRAY_SIZE(betas)];
    softmax_run(x, dims, rank, beta, got, 1);
    softmax_reference(x, n / dims[rank - 1], dims[rank - 1], beta, false, want);
    /* Float rounding of (x - max) * beta (|.| <= 36) moves exp by up to
     * about 36 * 2^-24 relative, and the float sum adds depth * 2^-24:
     * 32 ulps covers both for these sizes. */
    expect_floats_near(got, want, n, 32, 1e-12, "softmax random");
  }
}

static void test_softmax_threads(void** state) {
  (void)state;
  /* 97 rows of 211: above the threshold, uneven split. */
  enum { ROWS = 97, DEPTH = 211, N = ROWS * DEPTH };
  static float x[N], one[N], two[N];
  uint32_t seed = 0x7407u;
  for (int i = 0; i < N; ++i) x[i] = rng_uniform(&seed, -10.0f, 10.0f);
  softmax_run(x, (int[]){ROWS, DEPTH}, 2, 0.7f, one, 1);
  softmax_run(x, (int[]){ROWS, DEPTH}, 2, 0.7f, two, 2);
  expect_float_bits(two, one, N, "softmax two threads");
  TfLiteSoftmaxParams unused = {.beta = 5.0f};
  run_one(lg_register_LOG_SOFTMAX(), &unused, kTfLiteFloat32, kTfLiteFloat32,
          (int[]){ROWS, DEPTH}, 2, x, one, 1);
  run_one(lg_register_LOG_SOFTMAX(), &unused, kTfLiteFloat32, kTfLiteFloat32,
          (int[]){ROWS, DEPTH}, 2, x, two, 2);
  expect_float_bits(two, one, N, "log_softmax two threads");
}

static void test_softmax_rejections(void** state) {
  (void)state;
  const float f[4] = {0};
  const int8_t i8[4] = {0};
  TfLiteSoftmaxParams params = {.beta = 1.0f};
  expect_one_rejected(lg_register_SOFTMAX(), &params, kTfLiteFloat32,
                      kTfLiteFloat32, NULL, 0, f,
                      "SOFTMAX: input must have at least 1 dimension, got a "
                      "scalar");
  expect_one_rejected(lg_register_LOG_SOFTMAX(), NULL, kTfLiteFloat32,
                      kTfLiteFloat32, NULL, 0, f,
                      "LOG_SOFTMAX: input must have at least 1 dimension");
  /* INT8 needs quantization parameters (this tensor has none); INT8 to
   * FLOAT32 is not a signature TFLite's SOFTMAX has; LOG_SOFTMAX is float
   * only here. */
  expect_one_rejected(lg_register_SOFTMAX(), &params, kTfLiteInt8, kTfLiteInt8,
                      (int[]){4}, 1, i8, "SOFTMAX: input tensor");
  expect_one_rejected(lg_register_SOFTMAX(), &params, kTfLiteInt8,
                      kTfLiteFloat32, (int[]){4}, 1, i8,
                      "SOFTMAX: output type FLOAT32 is not supported with "
                      "INT8 input (expected INT8)");
  /* INT8 LOG_SOFTMAX needs quantization parameters (these have none). */
  expect_one_rejected(lg_register_LOG_SOFTMAX(), NULL, kTfLiteInt8, kTfLiteInt8,
                      (int[]){4}, 1, i8, "LOG_SOFTMAX: input tensor");
  /* INT16 needs quantization parameters (these tensors have none). */
  expect_one_rejected(lg_register_SOFTMAX(), &params, kTfLiteInt16,
                      kTfLiteInt16, (int[]){2}, 1, i8,
                      "SOFTMAX: input tensor '(unnamed)' (INT16) has no "
                      "quantization");
  expect_one_rejected(lg_register_SOFTMAX(), &params, kTfLiteInt32,
                      kTfLiteInt32, (int[]){1}, 1, i8,
                      "SOFTMAX: input type INT32 is not supported (expected "
                      "FLOAT32, INT8, UINT8 or INT16)");
  expect_one_rejected(lg_register_LOG_SOFTMAX(), NULL, kTfLiteUInt8,
                      kTfLiteUInt8, (int[]){4}, 1, i8,
                      "LOG_SOFTMAX: input type UINT8 is not supported");
  expect_one_rejected(lg_register_SOFTMAX(), &params, kTfLiteFloat32,
                      kTfLiteInt8, (int[]){4}, 1, f,
                      "SOFTMAX: output type INT8 is not supported (expected "
                      "FLOAT32)");
  expect_one_rejected(lg_register_SOFTMAX(), &params, kTfLiteFloat32,
                      kTfLiteFloat32, (int[]){-1, 4}, 2, f,
                      "SOFTMAX: input has a negative dimension in shape "
                      "[-1,4]");
}

static void test_softmax_empty_and_defaults(void** state) {
  (void)state;
  const float dummy = 0.0f;
  float got[4];
  /* Empty rows and an empty axis: shapes pass through, nothing is read. */
  softmax_run(&dummy, (int[]){0, 3}, 2, 1.0f, got, 1);
  softmax_run(&dummy, (int[]){2, 0}, 2, 1.0f, got, 1);
  run_one(lg_register_LOG_SOFTMAX(), NULL, kTfLiteFloat32, kTfLiteFloat32,
          (int[]){3, 0}, 2, &dummy, got, 1);
  /* No options: the schema default beta = 0 gives a uniform row. */
  const float x[] = {-3.0f, 0.0f, 9.0f, 1.0f};
  const float quarter[] = {0.25f, 0.25f, 0.25f, 0.25f};
  run_one(lg_register_SOFTMAX(), NULL, kTfLiteFloat32, kTfLiteFloat32,
          (int[]){4}, 1, x, got, 1);
  expect_floats(got, quarter, 4, "softmax without options");
}

/* ---- LOG_SOFTMAX --------------------------------------------------------- */

static void test_log_softmax_hand(void** state) {
  (void)state;
  /* [1, 2, 3]: (x - 3) - log(1 + e^-1 + e^-2) = [-2, -1, 0] - 0.40760596.
   * The +1000 row is the same; depth 1 gives 0; a -inf beside 0 stays -inf
   * and the 0 becomes log 1 = 0; NaN poisons its row; all -inf is
   * -inf - log(0) = NaN. */
  const float x[] = {1,    2,         3,         1000,      1001,
                     1002, -INFINITY, 0,         -INFINITY, NAN,
                     1,    2,         -INFINITY, -INFINITY, -INFINITY};
  const float want[] = {
      -2.40760589f,  -1.40760601f, -0.407605976f, -2.40760589f, -1.40760601f,
      -0.407605976f, -INFINITY,    0.0f,          -INFINITY,    NAN,
      NAN,           NAN,          NAN,           NAN,          NAN};
  float got[15];
  run_one(lg_register_LOG_SOFTMAX(), NULL, kTfLiteFloat32, kTfLiteFloat32,
          (int[]){5, 3}, 2, x, got, 1);
  expect_floats_near(got, want, 15, 2, 0.0, "log_softmax");
  const float zeros[] = {0, 0, 0};
  run_one(lg_register_LOG_SOFTMAX(), NULL, kTfLiteFloat32, kTfLiteFloat32,
          (int[]){3, 1}, 2, x, got, 1);
  expect_floats(got, zeros, 3, "log_softmax depth 1");
}

static void test_log_softmax_random(void** state) {
  (void)state;
  static float x[4 * 1000], got[4 * 1000], want[4 * 1000];
  uint32_t seed = 0x106u;
  for (int s = 0; s < ARRAY_SIZE(kSoftmaxShapes); ++s) {
    const int rank = 4 - s % 3;
    const int* dims = kSoftmaxShapes[s] + 4 - rank;
    int n = 1;
    for (int i = 0; i < rank; ++i) n *= dims[i];
    for (int i = 0; i < n; ++i) x[i] = rng_uniform(&seed, -20.0f, 20.0f);
    run_one(lg_register_LOG_SOFTMAX(), NULL, kTfLiteFloat32, kTfLiteFloat32,
            dims, rank, x, got, 1);
    softmax_reference(x, n / dims[rank - 1], dims[rank - 1], 1.0f, true, want);
    /* Two float subtractions of values up to 40: a few ulps of 40. */
    expect_floats_near(got, want, n, 4, 2e-5, "log_softmax random");
  }
}

/* ---- PRELU --------------------------------------------------------------- */

/* Runs PRELU on input x (dims) and alpha a (adims); NULL needle: expects
 * success and copies the output. */
static void prelu_run(const float* x, const int* dims, int rank, const float* a,
                      const int* adims, int arank, float* out, int threads,
                      const char* needle) {
  lg_kernel_runner r;
  lg_kernel_runner_init(&r, lg_register_PRELU(), NULL);
  if (threads > 1) {
    assert_int_equal(lg_kernel_runner_set_threads(&r, threads), kTfLiteOk);
  }
  const int xi = add_tensor(&r, kTfLiteFloat32, dims, rank, x);
  const int ai = add_tensor(&r, kTfLiteFloat32, adims, arank, a);
  const int o = add_tensor(&r, kTfLiteFloat32, NULL, 0, NULL);
  lg_kernel_runner_set_inputs(&r, (int[]){xi, ai}, 2);
  lg_kernel_runner_set_outputs(&r, &o, 1);
  const TfLiteStatus status = lg_kernel_runner_run(&r);
  if (needle != NULL) {
    expect_error_text(&r, status, needle);
  } else {
    if (status != kTfLiteOk) fail_msg("%s", lg_kernel_runner_errors(&r));
    expect_shape(lg_kernel_runner_tensor(&r, o), dims, rank);
    int n = 1;
    for (int i = 0; i < rank; ++i) n *= dims[i];
    memcpy(out, lg_kernel_runner_tensor(&r, o)->data.f, sizeof(float) * n);
  }
  lg_kernel_runner_release(&r);
}

static void test_prelu_hand(void** state) {
  (void)state;
  /* Input [1, 2, 2, 3] (NHWC): negatives are scaled by their channel's
   * alpha {0.5, 0.25, -1}; positives and +-0 pass (x >= 0). */
  const float x[] = {-2, 4, -8, 1, -4, 0, -0.0f, 2, -6, 3, 3, -3};
  const float a[] = {0.5f, 0.25f, -1.0f};
  const float want[] = {-1, 4, 8, 1, -1, 0, -0.0f, 2, 6, 3, 3, 3};
  const int dims[] = {1, 2, 2, 3};
  float got[12];
  prelu_run(x, dims, 4, a, (int[]){3}, 1, got, 1, NULL);
  expect_float_bits(got, want, 12, "alpha [3]");
  prelu_run(x, dims, 4, a, (int[]){1, 1, 3}, 3, got, 1, NULL);
  expect_float_bits(got, want, 12, "alpha [1,1,3]");
  /* A full alpha: one per element. */
  const float full[] = {0.5f, 1, -1, 1, 0.25f, 1, 1, 1, -1, 1, 1, -1};
  prelu_run(x, dims, 4, full, dims, 4, got, 1, NULL);
  expect_float_bits(got, want, 12, "alpha full");
  /* A scalar alpha (rank 0 and [1]). */
  const float half = 0.5f;
  const float want_half[] = {-1, 4, -4, 1, -2, 0, -0.0f, 2, -3, 3, 3, -1.5f};
  prelu_run(x, dims, 4, &half, NULL, 0, got, 1, NULL);
  expect_float_bits(got, want_half, 12, "alpha scalar");
  prelu_run(x, dims, 4, &half, (int[]){1}, 1, got, 1, NULL);
  expect_float_bits(got, want_half, 12, "alpha [1]");
  /* Alpha along H ([2, 1, 1]): rows h = 0 scale by 0.5, h = 1 by 2. */
  const float by_h[] = {0.5f, 2.0f};
  const float want_h[] = {-1, 4, -4, 1, -2, 0, -0.0f, 2, -12, 3, 3, -6};
  prelu_run(x, dims, 4, by_h, (int[]){2, 1, 1}, 3, got, 1, NULL);
  expect_float_bits(got, want_h, 12, "alpha [2,1,1]");
  /* Alpha [2, 1, 3]: per (h, c), repeated along w. */
  const float hc[] = {1, 1, 1, 0.5f, 0.5f, 0.5f};
  const float want_hc[] = {-2, 4, -8, 1, -4, 0, -0.0f, 2, -3, 3, 3, -1.5f};
  prelu_run(x, dims, 4, hc, (int[]){2, 1, 3}, 3, got, 1, NULL);
  expect_float_bits(got, want_hc, 12, "alpha [2,1,3]");
}

static void test_prelu_specials(void** state) {
  (void)state;
  /* NaN input stays NaN; -inf * 0.5 = -inf; -inf * 0 = NaN; inf passes;
   * a NaN alpha only touches negative inputs. */
  const float x[] = {NAN, -INFINITY, -INFINITY, INFINITY, 1.0f, -1.0f};
  const float a[] = {0.5f, 0.5f, 0.0f, 0.5f, NAN, NAN};
  const float want[] = {NAN, -INFINITY, NAN, INFINITY, 1.0f, NAN};
  float got[6];
  prelu_run(x, (int[]){6}, 1, a, (int[]){6}, 1, got, 1, NULL);
  expect_floats(got, want, 6, "prelu specials");
  /* x >= 0 picks the branch, as TFLite: -0 passes unchanged even where
   * alpha is negative (-0 * -1 would be +0). */
  const float zero[] = {-0.0f, 0.0f};
  const float minus_one[] = {-1.0f, -1.0f};
  prelu_run(zero, (int[]){2}, 1, minus_one, (int[]){2}, 1, got, 1, NULL);
  expect_float_bits(got, zero, 2, "prelu signed zeros");
  /* Empty input with a per-channel alpha. */
  prelu_run(x, (int[]){0, 3}, 2, a, (int[]){3}, 1, got, 1, NULL);
}

static void test_prelu_rejections(void** state) {
  (void)state;
  const float x[8] = {0};
  float got[8];
  prelu_run(x, (int[]){2, 3}, 2, x, (int[]){4}, 1, got, 1,
            "PRELU: input shapes [2,3] and [4] are not broadcastable");
  prelu_run(x, (int[]){3}, 1, x, (int[]){2, 3}, 2, got, 1,
            "PRELU: alpha shape [2,3] does not broadcast to input shape [3]");
  prelu_run(x, (int[]){3}, 1, x, (int[]){1, 3}, 2, got, 1,
            "PRELU: alpha shape [1,3] does not broadcast to input shape [3]");
  prelu_run(x, (int[]){1, 3}, 2, x, (int[]){2, 3}, 2, got, 1,
            "PRELU: alpha shape [2,3] does not broadcast to input shape "
            "[1,3]");
  /* Types. INT8 and UINT8 are computed (quantized: without quantization
   * parameters they fail naming the tensor); INT16 is not. */
  lg_kernel_runner r;
  const TfLiteType types[] = {kTfLiteInt8, kTfLiteInt16};
  const char* const errors[] = {
      "PRELU: input tensor '(unnamed)' (INT8) has no quantization",
      "PRELU: input type INT16 is not supported (expected FLOAT32, INT8 or "
      "UINT8)"};
  int xi, ai, o;
  for (int i = 0; i < 2; ++i) {
    lg_kernel_runner_init(&r, lg_register_PRELU(), NULL);
    xi = add_tensor(&r, types[i], (int[]){2}, 1, x);
    ai = add_tensor(&r, types[i], (int[]){2}, 1, x);
    o = add_tensor(&r, types[i], NULL, 0, NULL);
    lg_kernel_runner_set_inputs(&r, (int[]){xi, ai}, 2);
    lg_kernel_runner_set_outputs(&r, &o, 1);
    expect_error_text(&r, lg_kernel_runner_prepare(&r), errors[i]);
    lg_kernel_runner_release(&r);
  }
  lg_kernel_runner_init(&r, lg_register_PRELU(), NULL);
  xi = add_tensor(&r, kTfLiteFloat32, (int[]){2}, 1, x);
  ai = add_tensor(&r, kTfLiteInt32, (int[]){2}, 1, x);
  o = add_tensor(&r, kTfLiteFloat32, NULL, 0, NULL);
  lg_kernel_runner_set_inputs(&r, (int[]){xi, ai}, 2);
  lg_kernel_runner_set_outputs(&r, &o, 1);
  expect_error_text(&r, lg_kernel_runner_prepare(&r),
                    "PRELU: alpha type INT32 is not supported (expected "
                    "FLOAT32, the input's)");
  lg_kernel_runner_release(&r);
  /* One input only. */
  lg_kernel_runner_init(&r, lg_register_PRELU(), NULL);
  xi = add_tensor(&r, kTfLiteFloat32, (int[]){2}, 1, x);
  o = add_tensor(&r, kTfLiteFloat32, NULL, 0, NULL);
  lg_kernel_runner_set_inputs(&r, &xi, 1);
  lg_kernel_runner_set_outputs(&r, &o, 1);
  expect_error_text(&r, lg_kernel_runner_prepare(&r),
                    "PRELU: expected 2 inputs, got 1");
  lg_kernel_runner_release(&r);
}

/* The reference: for each flat input index, the alpha element at the same
 * coordinates with broadcast dims pinned to 0. */
static void prelu_reference(const float* x, const int* dims, int rank,
                            const float* a, const int* adims, int arank,
                            float* out) {
  int n = 1;
  for (int i = 0; i < rank; ++i) n *= dims[i];
  for (int flat = 0; flat < n; ++flat) {
    int rest = flat, ai = 0, stride = 1;
    for (int i = rank - 1; i >= 0; --i) {
      const int coord = rest % dims[i];
      rest /= dims[i];
      const int j = i - (rank - arank);
      if (j >= 0) {
        ai += (adims[j] == 1 ? 0 : coord) * stride;
        stride *= adims[j];
      }
    }
    const double v = x[flat] >= 0 ? x[flat] : (double)x[flat] * a[ai];
    out[flat] = (float)v;
  }
}

static void test_prelu_random(void** state) {
  (void)state;
  /* Random 1- to 6-D shapes with odd sizes; alpha keeps each trailing dim
   * or sets it to 1, and may be shorter. The product rounds once in both,
   * so the comparison is exact. */
  static float x[20000], a[20000], got[20000], want[20000], two[20000];
  uint32_t seed = 0x9e1u;
  for (int t = 0; t < 60; ++t) {
    const int rank = rng_int(&seed, 1, 6);
    int dims[6], adims[6], n = 1, an = 1;
    for (int i = 0; i < rank; ++i) {
      const int sizes[] = {1, 2, 3, 5, 7, 17};
      /* At most 17^3, 7^4 or 5^6 elements. */
      const int largest = rank <= 3 ? 5 : (rank == 4 ? 4 : 3);
      dims[i] = sizes[rng_int(&seed, 0, largest)];
      n *= dims[i];
    }
    const int arank = rng_int(&seed, 0, rank);
    for (int j = 0; j < arank; ++j) {
      adims[j] = rng_int(&seed, 0, 1) ? dims[rank - arank + j] : 1;
      an *= adims[j];
    }
    for (int i = 0; i < n; ++i) x[i] = rng_uniform(&seed, -3.0f, 3.0f);
    for (int i = 0; i < an; ++i) a[i] = rng_uniform(&seed, -1.0f, 1.0f);
    prelu_run(x, dims, rank, a, adims, arank, got, 1, NULL);
    prelu_reference(x, dims, rank, a, adims, arank, want);
    expect_float_bits(got, want, n, "prelu random");
  }
  /* Large enough to split over two threads: [7, 41, 67] with alpha [67]
   * and with alpha [7, 1, 1]. */
  const int dims[] = {7, 41, 67};
  const int n = 7 * 41 * 67;
  for (int i = 0; i < n; ++i) x[i] = rng_uniform(&seed, -3.0f, 3.0f);
  for (int i = 0; i < 67; ++i) a[i] = rng_uniform(&seed, 0.0f, 1.0f);
  prelu_run(x, dims, 3, a, (int[]){67}, 1, got, 1, NULL);
  prelu_run(x, dims, 3, a, (int[]){67}, 1, two, 2, NULL);
  prelu_reference(x, dims, 3, a, (int[]){67}, 1, want);
  expect_float_bits(got, want, n, "prelu [67]");
  expect_float_bits(two, want, n, "prelu [67] two threads");
  prelu_run(x, dims, 3, a, (int[]){7, 1, 1}, 3, two, 2, NULL);
  prelu_reference(x, dims, 3, a, (int[]){7, 1, 1}, 3, want);
  expect_float_bits(two, want, n, "prelu [7,1,1] two threads");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_softmax_hand),
      cmocka_unit_test(test_softmax_specials),
      cmocka_unit_test(test_softmax_random),
      cmocka_unit_test(test_softmax_threads),
      cmocka_unit_test(test_softmax_rejections),
      cmocka_unit_test(test_softmax_empty_and_defaults),
      cmocka_unit_test(test_log_softmax_hand),
      cmocka_unit_test(test_log_softmax_random),
      cmocka_unit_test(test_prelu_hand),
      cmocka_unit_test(test_prelu_specials),
      cmocka_unit_test(test_prelu_rejections),
      cmocka_unit_test(test_prelu_random),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
