/* The binary arithmetic kernels (ADD, SUB, MUL, DIV, SQUARED_DIFFERENCE,
 * MAXIMUM, MINIMUM, POW) through the kernel runner: hand-derived values,
 * broadcasting corners, every fused activation, TFLite's clamp of infinite
 * results, NaN and signed zeros, int32 wrap-around, integer division and
 * power, empty tensors, every rejection message, the builtin table's version
 * ranges, and seeded random shapes up to 6-D against double-precision
 * reference loops on 1 to 3 threads. The runner checks guard bytes after
 * every output. Comparisons and SELECT_V2 are in
 * test_kernels_binary_compare.c. */
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
#include "tests/support/elementwise_test_util.h"
#include "tests/support/kernel_runner.h"

enum { ADD, SUB, MUL, DIV, SQD, MAX, MIN, POW, NUM_OPS };

typedef struct op_info {
  const char* name;
  const TfLiteRegistration* (*reg)(void);
  int32_t code;
  bool activation;
  int min_version, max_version; /* TFLite's BuiltinOpResolver range */
  const char* types;            /* as the rejection message lists them */
} op_info;

static const op_info kOps[NUM_OPS] = {
    [ADD] = {"ADD", lg_register_ADD, kTfLiteBuiltinAdd, true, 1, 5,
             "FLOAT32, INT32, INT8, UINT8 or INT16"},
    [SUB] = {"SUB", lg_register_SUB, kTfLiteBuiltinSub, true, 1, 5,
             "FLOAT32, INT32, INT8, UINT8 or INT16"},
    [MUL] = {"MUL", lg_register_MUL, kTfLiteBuiltinMul, true, 1, 7,
             "FLOAT32, INT32, INT8, UINT8 or INT16"},
    [DIV] = {"DIV", lg_register_DIV, kTfLiteBuiltinDiv, true, 1, 2,
             "FLOAT32 or INT32"},
    [SQD] = {"SQUARED_DIFFERENCE", lg_register_SQUARED_DIFFERENCE,
             kTfLiteBuiltinSquaredDifference, false, 1, 2,
             "FLOAT32, INT32 or INT8"},
    [MAX] = {"MAXIMUM", lg_register_MAXIMUM, kTfLiteBuiltinMaximum, false, 1, 4,
             "FLOAT32, INT32 or INT64"},
    [MIN] = {"MINIMUM", lg_register_MINIMUM, kTfLiteBuiltinMinimum, false, 1, 4,
             "FLOAT32, INT32 or INT64"},
    [POW] = {"POW", lg_register_POW, kTfLiteBuiltinPow, false, 1, 1,
             "FLOAT32 or INT32"},
};

static const TfLiteFusedActivation kActs[] = {
    kTfLiteActNone, kTfLiteActRelu, kTfLiteActReluN1To1, kTfLiteActRelu6};

/* Runs op(x, y) on float32 (or int32) tensors and checks shape and values. */
static void expect_f32(int op, TfLiteFusedActivation act, const int* dx, int rx,
                       const float* x, const int* dy, int ry, const float* y,
                       const int* dout, int rout, const float* want, int n) {
  ew_case c;
  ew_setup2(&c, kOps[op].reg(), act, kTfLiteFloat32, dx, rx, x, dy, ry, y,
            kTfLiteFloat32);
  const TfLiteTensor* out = ew_run(&c);
  ew_expect_shape(out, dout, rout);
  ew_expect_f32(kOps[op].name, out->data.f, want, n);
  lg_kernel_runner_release(&c.runner);
}

static void expect_i32(int op, TfLiteFusedActivation act, const int* dx, int rx,
                       const int32_t* x, const int* dy, int ry,
                       const int32_t* y, const int32_t* want, int n) {
  ew_case c;
  ew_setup2(&c, kOps[op].reg(), act, kTfLiteInt32, dx, rx, x, dy, ry, y,
            kTfLiteInt32);
  const TfLiteTensor* out = ew_run(&c);
  ew_expect_shape(out, dx, rx);
  ew_expect_i32(kOps[op].name, out->data.i32, want, n);
  lg_kernel_runner_release(&c.runner);
}

/* ---- Hand-derived values --------------------------------------------------
 */

static void test_hand_values_f32(void** state) {
  (void)state;
  const float x[] = {1.5f, -2.0f, 0.25f, 1e30f};
  const float y[] = {2.5f, 0.5f, -0.25f, 1e30f};
  const struct {
    int op;
    float want[4];
  } cases[] = {
      /* 0.25 + -0.25 is +0; 1e30 + 1e30 doubles exactly. */
      {ADD, {4.0f, -1.5f, 0.0f, 2e30f}},
      {SUB, {-1.0f, -2.5f, 0.5f, 0.0f}},
      /* 1e30 * 1e30 overflows to inf, which NONE clamps to FLT_MAX. */
      {MUL, {3.75f, -1.0f, -0.0625f, FLT_MAX}},
      /* 1.5 / 2.5 rounds as 0.6f does. */
      {DIV, {0.6f, -4.0f, -1.0f, 1.0f}},
      /* (x - y)^2: 1, 2.5^2, 0.5^2, 0. */
      {SQD, {1.0f, 6.25f, 0.25f, 0.0f}},
      {MAX, {2.5f, 0.5f, 0.25f, 1e30f}},
      {MIN, {1.5f, -2.0f, -0.25f, 1e30f}},
  };
  for (int i = 0; i < EW_ARRAY_SIZE(cases); ++i) {
    expect_f32(cases[i].op, kTfLiteActNone, (int[]){4}, 1, x, (int[]){4}, 1, y,
               (int[]){4}, 1, cases[i].want, 4);
  }
  /* POW: 4^0.5, 2^-1, 9^0.5, (-2)^3 (a negative base with an integer
   * exponent is fine); all exact. */
  const float px[] = {4.0f, 2.0f, 9.0f, -2.0f};
  const float py[] = {0.5f, -1.0f, 0.5f, 3.0f};
  const float pw[] = {2.0f, 0.5f, 3.0f, -8.0f};
  expect_f32(POW, kTfLiteActNone, (int[]){4}, 1, px, (int[]){4}, 1, py,
             (int[]){4}, 1, pw, 4);
}

static void test_hand_values_i32(void** state) {
  (void)state;
  const int32_t x[] = {7, -7, 100, -3};
  const int32_t y[] = {2, 2, -7, -3};
  const struct {
    int op;
    int32_t want[4];
  } cases[] = {
      {ADD, {9, -5, 93, -6}},
      {SUB, {5, -9, 107, 0}},
      {MUL, {14, -14, -700, 9}},
      /* Truncation toward zero: 3.5 -> 3, -3.5 -> -3, -14.28 -> -14. */
      {DIV, {3, -3, -14, 1}},
      /* 5^2, (-9)^2, 107^2, 0. */
      {SQD, {25, 81, 11449, 0}},
      {MAX, {7, 2, 100, -3}},
      {MIN, {2, -7, -7, -3}},
  };
  for (int i = 0; i < EW_ARRAY_SIZE(cases); ++i) {
    expect_i32(cases[i].op, kTfLiteActNone, (int[]){4}, 1, x, (int[]){4}, 1, y,
               cases[i].want, 4);
  }
  /* 7^2, (-7)^3, 100^0, (-3)^1. */
  const int32_t py[] = {2, 3, 0, 1};
  const int32_t pw[] = {49, -343, 1, -3};
  expect_i32(POW, kTfLiteActNone, (int[]){4}, 1, x, (int[]){4}, 1, py, pw, 4);
}

/* ---- Broadcasting -------------------------------------------------------- */

static void test_broadcast_corners(void** state) {
  (void)state;
  const float x6[] = {1, 2, 3, 4, 5, 6};
  const float y3[] = {10, 20, 30};
  /* [2,3] - [3] and [3] - [2,3]: the operand order survives the plan. */
  const float sub_xy[] = {-9, -18, -27, -6, -15, -24};
  const float sub_yx[] = {9, 18, 27, 6, 15, 24};
  expect_f32(SUB, kTfLiteActNone, (int[]){2, 3}, 2, x6, (int[]){3}, 1, y3,
             (int[]){2, 3}, 2, sub_xy, 6);
  expect_f32(SUB, kTfLiteActNone, (int[]){3}, 1, y3, (int[]){2, 3}, 2, x6,
             (int[]){2, 3}, 2, sub_yx, 6);
  /* Rank-0 scalar on either side of DIV: 12 / x and x / 4. */
  const float twelve[] = {12.0f};
  const float four[] = {4.0f};
  const float x4[] = {1, 2, 3, 4};
  const float s_over_x[] = {12, 6, 4, 3};
  const float x_over_s[] = {0.25f, 0.5f, 0.75f, 1.0f};
  expect_f32(DIV, kTfLiteActNone, NULL, 0, twelve, (int[]){2, 2}, 2, x4,
             (int[]){2, 2}, 2, s_over_x, 4);
  expect_f32(DIV, kTfLiteActNone, (int[]){2, 2}, 2, x4, NULL, 0, four,
             (int[]){2, 2}, 2, x_over_s, 4);
  /* Scalar op scalar stays rank 0; [1,1] against [4] keeps rank 2. */
  const float p[] = {3.0f};
  const float nine[] = {9.0f};
  expect_f32(POW, kTfLiteActNone, NULL, 0, p, NULL, 0, (const float[]){2.0f},
             NULL, 0, nine, 1);
  const float max_1x4[] = {3, 3, 3, 4};
  expect_f32(MAX, kTfLiteActNone, (int[]){1, 1}, 2, p, (int[]){4}, 1, x4,
             (int[]){1, 4}, 2, max_1x4, 4);
  /* [2,1] * [1,3] -> [2,3]: out[i][j] = x[i] * y[j]. */
  const float col[] = {1, -2};
  const float mul_outer[] = {10, 20, 30, -20, -40, -60};
  expect_f32(MUL, kTfLiteActNone, (int[]){2, 1}, 2, col, (int[]){1, 3}, 2, y3,
             (int[]){2, 3}, 2, mul_outer, 6);
  /* [2,1,3] min [2,1] -> [2,2,3]: out[a][b][k] = min(x[a][k], y[b]). */
  const float y2[] = {2.5f, 4.5f};
  const float min3[] = {1, 2, 2.5f, 1, 2, 3, 2.5f, 2.5f, 2.5f, 4, 4.5f, 4.5f};
  expect_f32(MIN, kTfLiteActNone, (int[]){2, 1, 3}, 3, x6, (int[]){2, 1}, 2, y2,
             (int[]){2, 2, 3}, 3, min3, 12);
  /* Size-1 dims everywhere: [1,1,1] - [1] is one element, rank 3. */
  const float one_sub[] = {-7.0f};
  expect_f32(SUB, kTfLiteActNone, (int[]){1, 1, 1}, 3, p, (int[]){1}, 1,
             (const float[]){10.0f}, (int[]){1, 1, 1}, 3, one_sub, 1);
}

/* ---- Activations --------------------------------------------------------- */

static void test_activations(void** state) {
  (void)state;
  /* x op e with the identity e of each op (0 for ADD/SUB, 1 for MUL/DIV),
   * then clamp to the activation's range. */
  const float xf[] = {-3.0f, -0.5f, 0.5f, 3.0f, 7.0f};
  const int32_t xi[] = {-3, -1, 0, 3, 7};
  const float wf[4][5] = {{-3.0f, -0.5f, 0.5f, 3.0f, 7.0f},
                          {0.0f, 0.0f, 0.5f, 3.0f, 7.0f},
                          {-1.0f, -0.5f, 0.5f, 1.0f, 1.0f},
                          {0.0f, 0.0f, 0.5f, 3.0f, 6.0f}};
  const int32_t wi[4][5] = {
      {-3, -1, 0, 3, 7}, {0, 0, 0, 3, 7}, {-1, -1, 0, 1, 1}, {0, 0, 0, 3, 6}};
  const int ops[] = {ADD, SUB, MUL, DIV};
  for (int o = 0; o < 4; ++o) {
    const int op = ops[o];
    const float ef[] = {op == MUL || op == DIV ? 1.0f : 0.0f};
    const int32_t ei[] = {op == MUL || op == DIV ? 1 : 0};
    for (int a = 0; a < 4; ++a) {
      expect_f32(op, kActs[a], (int[]){5}, 1, xf, (int[]){1}, 1, ef, (int[]){5},
                 1, wf[a], 5);
      expect_i32(op, kActs[a], (int[]){5}, 1, xi, (int[]){1}, 1, ei, wi[a], 5);
    }
  }
}

static void test_rejected_activations(void** state) {
  (void)state;
  const struct {
    TfLiteFusedActivation act;
    const char* text;
  } rejected[] = {
      {kTfLiteActTanh, "fused activation TANH (4) is not supported"},
      {kTfLiteActSignBit, "fused activation SIGN_BIT (5) is not supported"},
      {kTfLiteActSigmoid, "fused activation SIGMOID (6) is not supported"},
      {(TfLiteFusedActivation)42, "fused activation UNKNOWN (42)"},
  };
  const float x[] = {1.0f};
  const int32_t xi[] = {1};
  const int ops[] = {ADD, SUB, MUL, DIV};
  for (int o = 0; o < 4; ++o) {
    for (int i = 0; i < EW_ARRAY_SIZE(rejected); ++i) {
      char message[128];
      snprintf(message, sizeof(message), "%s: %s", kOps[ops[o]].name,
               rejected[i].text);
      ew_case c;
      ew_setup2(&c, kOps[ops[o]].reg(), rejected[i].act, kTfLiteFloat32,
                (int[]){1}, 1, x, (int[]){1}, 1, x, kTfLiteFloat32);
      ew_expect_run_error(&c, message);
      ew_setup2(&c, kOps[ops[o]].reg(), rejected[i].act, kTfLiteInt32,
                (int[]){1}, 1, xi, (int[]){1}, 1, xi, kTfLiteInt32);
      ew_expect_run_error(&c, message);
    }
  }
}

static void test_no_params_means_none(void** state) {
  (void)state;
  /* RELU in the params, but builtin_data NULL: no clamp at all. */
  const float x[] = {-3.0f, 8.0f};
  const float want[] = {-2.0f, 9.0f};
  ew_case c;
  ew_setup2(&c, lg_register_ADD(), kTfLiteActRelu, kTfLiteFloat32, (int[]){2},
            1, x, (int[]){1}, 1, (const float[]){1.0f}, kTfLiteFloat32);
  c.runner.node.builtin_data = NULL;
  ew_expect_f32("ADD", ew_run(&c)->data.f, want, 2);
  lg_kernel_runner_release(&c.runner);
}

/* ---- Float specials ------------------------------------------------------ */

static void test_inf_clamp_and_nan(void** state) {
  (void)state;
  const float inf = INFINITY;
  /* TFLite clamps the float result of ADD/SUB/MUL/DIV to the activation
   * range, whose NONE ends are +-FLT_MAX: inf + 1 -> FLT_MAX. NaN passes. */
  const float x[] = {inf, -inf, NAN, 3e38f, inf, 1.0f};
  const float y[] = {1.0f, 1.0f, 1.0f, 3e38f, -inf, NAN};
  const float add[] = {FLT_MAX, -FLT_MAX, NAN, FLT_MAX, NAN, NAN};
  const float add_relu[] = {FLT_MAX, 0.0f, NAN, FLT_MAX, NAN, NAN};
  const float add_relu6[] = {6.0f, 0.0f, NAN, 6.0f, NAN, NAN};
  expect_f32(ADD, kTfLiteActNone, (int[]){6}, 1, x, (int[]){6}, 1, y,
             (int[]){6}, 1, add, 6);
  expect_f32(ADD, kTfLiteActRelu, (int[]){6}, 1, x, (int[]){6}, 1, y,
             (int[]){6}, 1, add_relu, 6);
  expect_f32(ADD, kTfLiteActRelu6, (int[]){6}, 1, x, (int[]){6}, 1, y,
             (int[]){6}, 1, add_relu6, 6);
  /* inf - inf and inf * 0 are NaN; 1 * -0 is -0. */
  const float sub[] = {FLT_MAX, -FLT_MAX, NAN, 0.0f, FLT_MAX, NAN};
  expect_f32(SUB, kTfLiteActNone, (int[]){6}, 1, x, (int[]){6}, 1, y,
             (int[]){6}, 1, sub, 6);
  const float zeros[] = {0.0f, 0.0f, 0.0f, 0.0f, -0.0f, -0.0f};
  const float mul[] = {NAN, NAN, NAN, 0.0f, NAN, -0.0f};
  expect_f32(MUL, kTfLiteActNone, (int[]){6}, 1, x, (int[]){6}, 1, zeros,
             (int[]){6}, 1, mul, 6);
  /* Division by zero is IEEE, then clamped: 1/0 -> inf -> FLT_MAX,
   * -1/0 -> -FLT_MAX, 0/0 -> NaN, 5/-0 -> -FLT_MAX; RELU6 gives 6. */
  const float dx[] = {1.0f, -1.0f, 0.0f, 5.0f};
  const float dz[] = {0.0f, 0.0f, 0.0f, -0.0f};
  const float want_div[] = {FLT_MAX, -FLT_MAX, NAN, -FLT_MAX};
  const float want_div_relu6[] = {6.0f, 0.0f, NAN, 0.0f};
  expect_f32(DIV, kTfLiteActNone, (int[]){4}, 1, dx, (int[]){4}, 1, dz,
             (int[]){4}, 1, want_div, 4);
  expect_f32(DIV, kTfLiteActRelu6, (int[]){4}, 1, dx, (int[]){4}, 1, dz,
             (int[]){4}, 1, want_div_relu6, 4);
  /* No clamp for the ops without an activation: (inf-1)^2 = inf,
   * (3e38 - -3e38)^2 overflows to inf. */
  const float sx[] = {inf, 3e38f, NAN, -inf};
  const float sy[] = {1.0f, -3e38f, 1.0f, -inf};
  const float sqd[] = {inf, inf, NAN, NAN};
  expect_f32(SQD, kTfLiteActNone, (int[]){4}, 1, sx, (int[]){4}, 1, sy,
             (int[]){4}, 1, sqd, 4);
}

static void test_max_min_nan_and_zeros(void** state) {
  (void)state;
  /* MAXIMUM is a > b ? a : b and MINIMUM a < b ? a : b (TFLite's): a NaN on
   * the left loses, a NaN on the right wins; for +-0 the right operand is
   * returned, since neither is greater. */
  const float x[] = {NAN, 1.0f, NAN, -0.0f, 0.0f, -INFINITY, INFINITY};
  const float y[] = {1.0f, NAN, NAN, 0.0f, -0.0f, INFINITY, 5.0f};
  const float max[] = {1.0f, NAN, NAN, 0.0f, -0.0f, INFINITY, INFINITY};
  const float min[] = {1.0f, NAN, NAN, 0.0f, -0.0f, -INFINITY, 5.0f};
  expect_f32(MAX, kTfLiteActNone, (int[]){7}, 1, x, (int[]){7}, 1, y,
             (int[]){7}, 1, max, 7);
  expect_f32(MIN, kTfLiteActNone, (int[]){7}, 1, x, (int[]){7}, 1, y,
             (int[]){7}, 1, min, 7);
  /* int32 and int64 extremes. */
  const int32_t xi[] = {INT32_MIN, INT32_MAX, -1};
  const int32_t yi[] = {INT32_MAX, INT32_MIN, -1};
  expect_i32(MAX, kTfLiteActNone, (int[]){3}, 1, xi, (int[]){3}, 1, yi,
             (const int32_t[]){INT32_MAX, INT32_MAX, -1}, 3);
  expect_i32(MIN, kTfLiteActNone, (int[]){3}, 1, xi, (int[]){3}, 1, yi,
             (const int32_t[]){INT32_MIN, INT32_MIN, -1}, 3);
  /* 2^62 + 1 and 2^62 are equal as doubles but not as int64. */
  const int64_t xl[] = {INT64_MAX, INT64_MIN, (INT64_C(1) << 62) + 1};
  const int64_t yl[] = {INT64_MAX - 1, 0, INT64_C(1) << 62};
  const int64_t max_l[] = {INT64_MAX, 0, (INT64_C(1) << 62) + 1};
  const int64_t min_l[] = {INT64_MAX - 1, INT64_MIN, INT64_C(1) << 62};
  for (int op = MAX; op <= MIN; ++op) {
    ew_case c;
    ew_setup2(&c, kOps[op].reg(), kTfLiteActNone, kTfLiteInt64, (int[]){3}, 1,
              xl, (int[]){3}, 1, yl, kTfLiteInt64);
    ew_expect_i64(kOps[op].name, ew_run(&c)->data.i64,
                  op == MAX ? max_l : min_l, 3);
    lg_kernel_runner_release(&c.runner);
  }
}

static void test_pow_float(void** state) {
  (void)state;
  /* A negative base with a non-integer exponent is NaN; 0^-2 = inf;
   * (-0)^-3 = -inf (odd exponent keeps the sign); 1^NaN = 1 and NaN^0 = 1
   * (C's pow, which TFLite's std::pow is); 4^-0.5 = 0.5. No clamp. */
  const float x[] = {4.0f, -8.0f, -2.0f, 0.0f, -0.0f, 1.0f, NAN, 4.0f, 10.0f};
  const float y[] = {0.5f, 1.0f / 3.0f, 3.0f,  -2.0f, -3.0f,
                     NAN,  0.0f,        -0.5f, 39.0f};
  const float want[] = {2.0f, NAN,  -8.0f, INFINITY, -INFINITY,
                        1.0f, 1.0f, 0.5f,  INFINITY};
  expect_f32(POW, kTfLiteActNone, (int[]){9}, 1, x, (int[]){9}, 1, y,
             (int[]){9}, 1, want, 9);
}

/* ---- Integer semantics --------------------------------------------------- */

static void test_int32_wrap(void** state) {
  (void)state;
  const int32_t x[] = {INT32_MAX, INT32_MIN, 65536, 46341, -5};
  const int32_t y[] = {1, 1, 65536, 46341, 3};
  /* Modulo 2^32: MAX+1 -> MIN; MIN-1 -> MAX; 2^32 -> 0;
   * 46341^2 = 2147488281 -> 2147488281 - 2^32 = -2147479015. */
  expect_i32(ADD, kTfLiteActNone, (int[]){5}, 1, x, (int[]){5}, 1, y,
             (const int32_t[]){INT32_MIN, INT32_MIN + 1, 131072, 92682, -2}, 5);
  expect_i32(SUB, kTfLiteActNone, (int[]){5}, 1, x, (int[]){5}, 1, y,
             (const int32_t[]){INT32_MAX - 1, INT32_MAX, 0, 0, -8}, 5);
  expect_i32(MUL, kTfLiteActNone, (int[]){5}, 1, x, (int[]){5}, 1, y,
             (const int32_t[]){INT32_MAX, INT32_MIN, 0, -2147479015, -15}, 5);
  /* SQUARED_DIFFERENCE wraps twice (LiteRT agrees): (2^16 - 0)^2 -> 0;
   * MAX - (-1) -> MIN, squared 2^62 -> 0; MIN - 1 -> MAX, squared
   * 2^62 - 2^32 + 1 -> 1. */
  const int32_t sx[] = {0, 2, -3, 65536, INT32_MAX, INT32_MIN};
  const int32_t sy[] = {0, 31, 3, 0, -1, 1};
  expect_i32(SQD, kTfLiteActNone, (int[]){6}, 1, sx, (int[]){6}, 1, sy,
             (const int32_t[]){0, 841, 36, 0, 0, 1}, 6);
}

static void test_int32_div(void** state) {
  (void)state;
  /* Truncation toward zero; INT32_MIN / -1 saturates to INT32_MAX (what
   * LiteRT returns); RELU clamps after dividing. */
  const int32_t x[] = {7, -7, 7, -7, 1, INT32_MIN, INT32_MIN, 0};
  const int32_t y[] = {2, 2, -2, -2, 3, -1, 1, 5};
  const int32_t want[] = {3, -3, -3, 3, 0, INT32_MAX, INT32_MIN, 0};
  const int32_t want_relu[] = {3, 0, 0, 3, 0, INT32_MAX, 0, 0};
  expect_i32(DIV, kTfLiteActNone, (int[]){8}, 1, x, (int[]){8}, 1, y, want, 8);
  expect_i32(DIV, kTfLiteActRelu, (int[]){8}, 1, x, (int[]){8}, 1, y, want_relu,
             8);
  /* A zero anywhere in the divisor fails Invoke, naming the index. */
  ew_case c;
  const int32_t z[] = {4, 1, 0};
  ew_setup2(&c, lg_register_DIV(), kTfLiteActNone, kTfLiteInt32, (int[]){2, 3},
            2, x, (int[]){3}, 1, z, kTfLiteInt32);
  ew_expect_run_error(&c,
                      "DIV: input 1 holds a zero divisor at index 2 (integer "
                      "division by zero)");
  /* ...even when the output is empty, as in TFLite. */
  ew_setup2(&c, lg_register_DIV(), kTfLiteActNone, kTfLiteInt32, (int[]){0, 3},
            2, NULL, (int[]){3}, 1, z, kTfLiteInt32);
  ew_expect_run_error(&c, "DIV: input 1 holds a zero divisor at index 2");
}

static void test_int32_pow(void** state) {
  (void)state;
  /* 0^0 = 1; 2^31 and 2^32 leave the int32 range -> INT32_MIN (TFLite
   * converts a double pow, which x86 turns into INT32_MIN); (-2)^31 is
   * exactly INT32_MIN; 3^19 = 1162261467 fits; (-1)^7 = -1;
   * 46341^2 = 2147488281 is just out of range; 1^1000000 = 1. */
  const int32_t x[] = {0, 2, -2, 3, 2, -1, 7, 46341, 1, 5, 0};
  const int32_t y[] = {0, 31, 31, 19, 32, 7, 0, 2, 1000000, 1, 3};
  const int32_t want[] = {1, INT32_MIN, INT32_MIN, 1162261467, INT32_MIN, -1,
                          1, INT32_MIN, 1,         5,          0};
  expect_i32(POW, kTfLiteActNone, (int[]){11}, 1, x, (int[]){11}, 1, y, want,
             11);
  ew_case c;
  const int32_t neg[] = {2, -1};
  ew_setup2(&c, lg_register_POW(), kTfLiteActNone, kTfLiteInt32, (int[]){2}, 1,
            x, (int[]){2}, 1, neg, kTfLiteInt32);
  ew_expect_run_error(&c,
                      "POW: input 1 holds the negative exponent -1 at index 1 "
                      "(INT32 POW takes exponents >= 0)");
  ew_setup2(&c, lg_register_POW(), kTfLiteActNone, kTfLiteInt32, (int[]){2, 0},
            2, NULL, (int[]){2, 1}, 2, neg, kTfLiteInt32);
  /* ...checked even when the output ([2,0]) is empty. */
  ew_expect_run_error(&c, "POW: input 1 holds the negative exponent -1");
}

/* ---- Empty tensors, re-prepare, invoke before prepare ---------------------
 */

static void test_empty(void** state) {
  (void)state;
  const float x[3] = {1, 2, 3};
  for (int op = 0; op < NUM_OPS; ++op) {
    /* [0,3] op [3] -> [0,3]; [2,0] op [1] -> [2,0]; [1] op [0] -> [0]
     * (1 broadcasts against 0); [4,1,0] op [1,5,1] -> [4,5,0]. */
    expect_f32(op, kTfLiteActNone, (int[]){0, 3}, 2, NULL, (int[]){3}, 1, x,
               (int[]){0, 3}, 2, NULL, 0);
    expect_f32(op, kTfLiteActNone, (int[]){2, 0}, 2, NULL, (int[]){1}, 1, x,
               (int[]){2, 0}, 2, NULL, 0);
    expect_f32(op, kTfLiteActNone, (int[]){1}, 1, x, (int[]){0}, 1, NULL,
               (int[]){0}, 1, NULL, 0);
    expect_f32(op, kTfLiteActNone, (int[]){4, 1, 0}, 3, NULL, (int[]){1, 5, 1},
               3, x, (int[]){4, 5, 0}, 3, NULL, 0);
  }
}

static void test_reprepare(void** state) {
  (void)state;
  ew_case c;
  const float x[] = {1, 2, 3, 4, 5, 6};
  const float y[] = {10, 20, 30};
  ew_setup2(&c, lg_register_MUL(), kTfLiteActNone, kTfLiteFloat32,
            (int[]){2, 3}, 2, x, (int[]){3}, 1, y, kTfLiteFloat32);
  assert_int_equal(lg_kernel_runner_run(&c.runner), kTfLiteOk);
  /* Shrink input 0 without a prepare: Invoke refuses instead of reading
   * past it; after a prepare the new shape runs. */
  TfLiteTensor* a = lg_kernel_runner_tensor(&c.runner, 0);
  TfLiteIntArrayFree(a->dims);
  a->dims = TfLiteIntArrayCreate(2);
  a->dims->data[0] = 1;
  a->dims->data[1] = 3;
  ew_expect_error(&c.runner, lg_kernel_runner_invoke(&c.runner),
                  "MUL: tensor shapes changed since prepare");
  lg_kernel_runner_clear_errors(&c.runner);
  const float want[] = {10, 40, 90};
  ew_expect_f32("MUL", ew_run(&c)->data.f, want, 3);
  ew_expect_shape(ew_out(&c), (int[]){1, 3}, 2);
  assert_int_equal(lg_kernel_runner_invoke(&c.runner), kTfLiteOk);
  ew_expect_f32("MUL", ew_out(&c)->data.f, want, 3);
  lg_kernel_runner_release(&c.runner);
}

static void test_invoke_before_prepare(void** state) {
  (void)state;
  for (int op = 0; op < NUM_OPS; ++op) {
    lg_kernel_runner r;
    TfLiteAddParams params = {.activation = kTfLiteActNone};
    const TfLiteRegistration* reg = kOps[op].reg();
    lg_kernel_runner_init(&r, reg, &params);
    r.node.user_data = reg->init(&r.context, (const char*)&params, 0);
    r.initialized = true;
    char message[96];
    snprintf(message, sizeof(message),
             "%s: invoked before a successful prepare", kOps[op].name);
    ew_expect_error(&r, reg->invoke(&r.context, &r.node), message);
    lg_kernel_runner_release(&r);
  }
}

/* ---- Rejections ---------------------------------------------------------- */

/* Runs op on the given types (two elements each), expecting `text` after
 * "<OP>: ". */
static void expect_type_error(int op, TfLiteType t1, TfLiteType t2,
                              TfLiteType tout, const char* text) {
  static const int64_t buffer[4] = {0};
  char message[160];
  snprintf(message, sizeof(message), "%s: %s", kOps[op].name, text);
  ew_case c;
  ew_setup(&c, kOps[op].reg(), kTfLiteActNone, 2, (const TfLiteType[]){t1, t2},
           (const int* const[]){(int[]){2}, (int[]){2}}, (const int[]){1, 1},
           (const void* const[]){buffer, buffer}, tout);
  ew_expect_run_error(&c, message);
}

static void test_type_errors(void** state) {
  (void)state;
  const TfLiteType rejected[] = {kTfLiteInt8,    kTfLiteUInt8, kTfLiteInt16,
                                 kTfLiteFloat16, kTfLiteBool,  kTfLiteUInt32,
                                 kTfLiteFloat64, kTfLiteInt64};
  char text[160];
  for (int op = 0; op < NUM_OPS; ++op) {
    const bool has_i64 = op == MAX || op == MIN;
    /* INT8, UINT8 and INT16 ADD, SUB and MUL and INT8 SQUARED_DIFFERENCE
     * are computed (quantized: without quantization parameters they fail
     * naming the tensor). */
    const bool has_i8 = op == ADD || op == SUB || op == MUL || op == SQD;
    const bool has_i16 = op == ADD || op == SUB || op == MUL;
    const bool has_u8 = has_i16;
    for (int i = 0; i < EW_ARRAY_SIZE(rejected); ++i) {
      if (rejected[i] == kTfLiteInt64 && has_i64) continue;
      if ((rejected[i] == kTfLiteInt8 && has_i8) ||
          (rejected[i] == kTfLiteUInt8 && has_u8) ||
          (rejected[i] == kTfLiteInt16 && has_i16)) {
        snprintf(text, sizeof(text),
                 "input 0 tensor '(unnamed)' (%s) has no quantization",
                 TfLiteTypeGetName(rejected[i]));
        expect_type_error(op, rejected[i], rejected[i], rejected[i], text);
        continue;
      }
      snprintf(text, sizeof(text),
               "input type %s is not supported (expected %s)",
               TfLiteTypeGetName(rejected[i]), kOps[op].types);
      expect_type_error(op, rejected[i], rejected[i], rejected[i], text);
    }
    expect_type_error(op, kTfLiteFloat32, kTfLiteInt32, kTfLiteFloat32,
                      "input types FLOAT32 and INT32 differ");
    expect_type_error(op, kTfLiteInt32, kTfLiteInt64, kTfLiteInt32,
                      "input types INT32 and INT64 differ");
    expect_type_error(op, kTfLiteFloat32, kTfLiteFloat32, kTfLiteInt32,
                      "output type INT32 differs from input type FLOAT32");
    expect_type_error(op, kTfLiteInt32, kTfLiteInt32, kTfLiteBool,
                      "output type BOOL differs from input type INT32");
  }
}

static void test_io_and_shape_errors(void** state) {
  (void)state;
  const float x[6] = {0};
  char message[160];
  for (int op = 0; op < NUM_OPS; ++op) {
    const char* name = kOps[op].name;
    ew_case c;
    ew_setup2(&c, kOps[op].reg(), kTfLiteActNone, kTfLiteFloat32, (int[]){2, 3},
              2, x, (int[]){4}, 1, x, kTfLiteFloat32);
    snprintf(message, sizeof(message),
             "%s: input shapes [2,3] and [4] are not broadcastable", name);
    ew_expect_run_error(&c, message);
    ew_setup2(&c, kOps[op].reg(), kTfLiteActNone, kTfLiteFloat32,
              (int[]){1, 1, 1, 1, 1, 1, 1}, 7, x, (int[]){1}, 1, x,
              kTfLiteFloat32);
    snprintf(message, sizeof(message),
             "%s: input shapes [1,1,1,1,1,1,1] and [1] have rank 7, above the "
             "supported 6",
             name);
    ew_expect_run_error(&c, message);
    /* Each input fits an int, the broadcast of the two does not. */
    ew_setup2(&c, kOps[op].reg(), kTfLiteActNone, kTfLiteFloat32,
              (int[]){65536, 1}, 2, NULL, (int[]){1, 65536}, 2, NULL,
              kTfLiteFloat32);
    snprintf(message, sizeof(message),
             "%s: the broadcast output has 4294967296 elements, above "
             "2147483647",
             name);
    ew_expect_run_error(&c, message);
    ew_setup2(&c, kOps[op].reg(), kTfLiteActNone, kTfLiteFloat32, (int[]){-1},
              1, x, (int[]){1}, 1, x, kTfLiteFloat32);
    snprintf(message, sizeof(message),
             "%s: input 0 has a negative dimension in shape [-1]", name);
    ew_expect_run_error(&c, message);

    ew_setup2(&c, kOps[op].reg(), kTfLiteActNone, kTfLiteFloat32, (int[]){1}, 1,
              x, (int[]){1}, 1, x, kTfLiteFloat32);
    lg_kernel_runner_set_inputs(&c.runner, (int[]){0, 1, 0}, 3);
    snprintf(message, sizeof(message), "%s: expected 2 inputs, got 3", name);
    ew_expect_run_error(&c, message);
    ew_setup2(&c, kOps[op].reg(), kTfLiteActNone, kTfLiteFloat32, (int[]){1}, 1,
              x, (int[]){1}, 1, x, kTfLiteFloat32);
    lg_kernel_runner_set_outputs(&c.runner, (int[]){2, 2}, 2);
    snprintf(message, sizeof(message), "%s: expected 1 outputs, got 2", name);
    ew_expect_run_error(&c, message);
    ew_setup2(&c, kOps[op].reg(), kTfLiteActNone, kTfLiteFloat32, (int[]){1}, 1,
              x, (int[]){1}, 1, x, kTfLiteFloat32);
    lg_kernel_runner_set_inputs(&c.runner, (int[]){kTfLiteOptionalTensor, 1},
                                2);
    snprintf(message, sizeof(message), "%s: input 0 is absent", name);
    ew_expect_run_error(&c, message);
    ew_setup2(&c, kOps[op].reg(), kTfLiteActNone, kTfLiteFloat32, (int[]){1}, 1,
              x, (int[]){1}, 1, x, kTfLiteFloat32);
    lg_kernel_runner_set_inputs(&c.runner, (int[]){0, 9}, 2);
    snprintf(message, sizeof(message),
             "%s: input 1 refers to tensor 9, out of range", name);
    ew_expect_run_error(&c, message);
  }
}

/* ---- The builtin table --------------------------------------------------- */

static void test_builtin_table(void** state) {
  (void)state;
  for (int op = 0; op < NUM_OPS; ++op) {
    const op_info* info = &kOps[op];
    assert_int_equal(info->reg()->builtin_code, info->code);
    int lo = -7, hi = -7;
    const lg_builtin_kernel* k =
        lg_builtin_kernel_find(info->code, info->min_version, &lo, &hi);
    if (k == NULL || k->registration != info->reg) {
      fail_msg("%s version %d does not resolve to its kernel", info->name,
               info->min_version);
    }
    assert_non_null(
        lg_builtin_kernel_find(info->code, info->max_version, NULL, NULL));
    if (lg_builtin_kernel_find(info->code, info->max_version + 1, &lo, &hi) !=
            NULL ||
        lo != info->min_version || hi != info->max_version) {
      fail_msg("%s: expected the range %d..%d, got %d..%d", info->name,
               info->min_version, info->max_version, lo, hi);
    }
  }
}

/* ---- Seeded random shapes against double-precision references ------------ */

/* The reference of one element in double; `act` clamps ADD/SUB/MUL/DIV to
 * TFLite's range ([-FLT_MAX, FLT_MAX] for NONE). */
static double reference_f32(int op, TfLiteFusedActivation act, double a,
                            double b) {
  double v = 0.0;
  switch (op) {
    case ADD:
      v = a + b;
      break;
    case SUB:
      v = a - b;
      break;
    case MUL:
      v = a * b;
      break;
    case DIV:
      v = a / b;
      break;
    case SQD:
      v = (a - b) * (a - b);
      break;
    case MAX:
      return a > b ? a : b;
    case MIN:
      return a < b ? a : b;
    case POW:
      return pow(a, b);
  }
  if (!kOps[op].activation) return v;
  double lo = -FLT_MAX, hi = FLT_MAX;
  if (act == kTfLiteActRelu) lo = 0.0;
  if (act == kTfLiteActReluN1To1) lo = -1.0, hi = 1.0;
  if (act == kTfLiteActRelu6) lo = 0.0, hi = 6.0;
  return v < lo ? lo : (v > hi ? hi : v);
}

/* Fills n inputs suited to op: POW gets bases in [-2, 2) and exponents that
 * are integers half of the time (so negative bases give numbers too). */
static void fill_f32(int op, bool exponent, float* v, int n, uint32_t* seed) {
  for (int i = 0; i < n; ++i) {
    float r = ew_rng_float(seed);
    if (op == POW && exponent) {
      r *= 3.0f;
      if (ew_rng_next(seed) & 1) r = roundf(r);
    } else {
      r *= op == POW ? 2.0f : 4.0f;
    }
    v[i] = r;
  }
}

/* Runs op on seeded float data for the shape pair and compares with the
 * reference: exactly for ADD/SUB/MUL/DIV/MAX/MIN (one rounding of a double
 * result of two floats is the float result: 53 >= 2*24 + 2), within 4 ulp
 * for SQUARED_DIFFERENCE (two roundings) and POW (libm). */
static void check_random_f32(int op, TfLiteFusedActivation act, const int* dx,
                             int rx, const int* dy, int ry, int threads,
                             uint32_t seed) {
  int nx = 1, ny = 1, dout[EW_MAX_RANK], rank;
  for (int i = 0; i < rx; ++i) nx *= dx[i];
  for (int i = 0; i < ry; ++i) ny *= dy[i];
  const int n = ew_broadcast(2, (const int* const[]){dx, dy},
                             (const int[]){rx, ry}, dout, &rank);
  float* x = malloc(sizeof(float) * (size_t)(nx + 1));
  float* y = malloc(sizeof(float) * (size_t)(ny + 1));
  assert_true(x != NULL && y != NULL);
  fill_f32(op, false, x, nx, &seed);
  fill_f32(op, true, y, ny, &seed);
  ew_case c;
  ew_setup2(&c, kOps[op].reg(), act, kTfLiteFloat32, dx, rx, x, dy, ry, y,
            kTfLiteFloat32);
  if (threads > 1) {
    assert_int_equal(lg_kernel_runner_set_threads(&c.runner, threads),
                     kTfLiteOk);
  }
  const TfLiteTensor* out = ew_run(&c);
  ew_expect_shape(out, dout, rank);
  const bool exact = op != SQD && op != POW;
  for (int i = 0; i < n; ++i) {
    const double a = x[ew_source_index(i, dout, rank, dx, rx)];
    const double b = y[ew_source_index(i, dout, rank, dy, ry)];
    const double want = reference_f32(op, act, a, b);
    const double got = out->data.f[i];
    bool ok;
    if (isnan(want) || isnan(got)) {
      ok = isnan(want) && isnan(got);
    } else if (exact) {
      ok = (float)want == (float)got;
    } else {
      ok = got == want || fabs(got - want) <= 4.0 * FLT_EPSILON * fabs(want);
    }
    if (!ok) {
      fail_msg("%s threads %d index %d: %.9g op %.9g: got %.9g, want %.9g",
               kOps[op].name, threads, i, a, b, got, want);
    }
  }
  lg_kernel_runner_release(&c.runner);
  free(x);
  free(y);
}

/* A random shape pair of rank 0..6 that broadcasts: each dim is shared,
 * or 1 on one side; leading dims of one side are dropped now and then. */
static void random_shapes(uint32_t* seed, int* dx, int* rx, int* dy, int* ry) {
  static const int kSizes[] = {1, 2, 3, 5, 7, 17};
  const int rank = ew_rng_int(seed, 0, 6);
  int a[6], b[6], total;
  do { /* at most 4096 output elements */
    total = 1;
    for (int i = 0; i < rank; ++i) {
      const int d = kSizes[ew_rng_int(seed, 0, 5)];
      const int pick = ew_rng_int(seed, 0, 3);
      a[i] = pick == 1 ? 1 : d;
      b[i] = pick == 2 ? 1 : d;
      total *= d;
    }
  } while (total > 4096);
  const int drop = ew_rng_int(seed, 0, rank);
  const bool drop_x = ew_rng_next(seed) & 1;
  *rx = drop_x ? rank - drop : rank;
  *ry = drop_x ? rank : rank - drop;
  memcpy(dx, a + (rank - *rx), sizeof(int) * (size_t)*rx);
  memcpy(dy, b + (rank - *ry), sizeof(int) * (size_t)*ry);
}

static void test_random_f32(void** state) {
  (void)state;
  uint32_t seed = 20240611u;
  for (int round = 0; round < 400; ++round) {
    int dx[6], dy[6], rx, ry;
    random_shapes(&seed, dx, &rx, dy, &ry);
    const int op = ew_rng_int(&seed, 0, NUM_OPS - 1);
    const TfLiteFusedActivation act =
        kOps[op].activation ? kActs[ew_rng_int(&seed, 0, 3)] : kTfLiteActNone;
    check_random_f32(op, act, dx, rx, dy, ry, 1, seed + (uint32_t)round);
  }
  /* Long rows, so that the vectorized loops run their main bodies and
   * remainders: same shape, scalar either side, trailing broadcast. */
  for (int op = 0; op < NUM_OPS; ++op) {
    check_random_f32(op, kTfLiteActNone, (int[]){1031}, 1, (int[]){1031}, 1, 1,
                     77u);
    check_random_f32(op, kTfLiteActRelu, (int[]){1}, 1, (int[]){3, 257}, 2, 1,
                     78u);
    check_random_f32(op, kTfLiteActRelu6, (int[]){2, 129}, 2, NULL, 0, 1, 79u);
    check_random_f32(op, kTfLiteActNone, (int[]){3, 257}, 2, (int[]){257}, 1, 1,
                     80u);
    check_random_f32(op, kTfLiteActNone, (int[]){129, 1}, 2, (int[]){1, 31}, 2,
                     1, 81u);
  }
}

/* int32 reference: exact in int64, wrapped to 32 bits, clamped. POW
 * follows TFLite's definition (a double pow converted to int32, INT32_MIN
 * when out of range) rather than the kernel's integer loop. */
static int32_t reference_i32(int op, TfLiteFusedActivation act, int32_t a,
                             int32_t b) {
  int64_t v = 0;
  switch (op) {
    case ADD:
      v = (int64_t)a + b;
      break;
    case SUB:
      v = (int64_t)a - b;
      break;
    case MUL:
      v = (int64_t)a * b;
      break;
    case DIV:
      v = (int64_t)a / b;
      break;
    case SQD: {
      const int32_t d = (int32_t)(uint32_t)((int64_t)a - b);
      v = (int64_t)d * d;
      break;
    }
    case MAX:
      return a > b ? a : b;
    case MIN:
      return a < b ? a : b;
    case POW: {
      const double p = pow((double)a, (double)b);
      return p >= -2147483648.0 && p <= 2147483647.0 ? (int32_t)p : INT32_MIN;
    }
  }
  int32_t w = (int32_t)(uint32_t)(uint64_t)v;
  if (op == DIV && v > INT32_MAX) w = INT32_MAX; /* INT32_MIN / -1 */
  int32_t lo = INT32_MIN, hi = INT32_MAX;
  if (act == kTfLiteActRelu) lo = 0;
  if (act == kTfLiteActReluN1To1) lo = -1, hi = 1;
  if (act == kTfLiteActRelu6) lo = 0, hi = 6;
  return w < lo ? lo : (w > hi ? hi : w);
}

static void check_random_i32(int op, TfLiteFusedActivation act, const int* dx,
                             int rx, const int* dy, int ry, uint32_t seed) {
  static int32_t x[8192], y[8192];
  int nx = 1, ny = 1, dout[EW_MAX_RANK], rank;
  for (int i = 0; i < rx; ++i) nx *= dx[i];
  for (int i = 0; i < ry; ++i) ny *= dy[i];
  assert_true(nx <= 8192 && ny <= 8192);
  const int n = ew_broadcast(2, (const int* const[]){dx, dy},
                             (const int[]){rx, ry}, dout, &rank);
  for (int i = 0; i < nx; ++i) {
    /* Mostly small, now and then anywhere in the int32 range. */
    const uint32_t r = ew_rng_next(&seed);
    x[i] =
        (r & 7) == 0 ? (int32_t)ew_rng_next(&seed) : (int32_t)(r % 2001) - 1000;
    if (op == POW) x[i] = (int32_t)(r % 11) - 5;
  }
  for (int i = 0; i < ny; ++i) {
    const uint32_t r = ew_rng_next(&seed);
    y[i] =
        (r & 7) == 0 ? (int32_t)ew_rng_next(&seed) : (int32_t)(r % 2001) - 1000;
    if (op == POW) y[i] = (int32_t)(r % 16);
    if (op == DIV && y[i] == 0) y[i] = -1;
  }
  ew_case c;
  ew_setup2(&c, kOps[op].reg(), act, kTfLiteInt32, dx, rx, x, dy, ry, y,
            kTfLiteInt32);
  const TfLiteTensor* out = ew_run(&c);
  ew_expect_shape(out, dout, rank);
  for (int i = 0; i < n; ++i) {
    const int32_t a = x[ew_source_index(i, dout, rank, dx, rx)];
    const int32_t b = y[ew_source_index(i, dout, rank, dy, ry)];
    const int32_t want = reference_i32(op, act, a, b);
    if (out->data.i32[i] != want) {
      fail_msg("%s index %d: %d op %d: got %d, want %d", kOps[op].name, i,
               (int)a, (int)b, (int)out->data.i32[i], (int)want);
    }
  }
  lg_kernel_runner_release(&c.runner);
}

static void test_random_i32(void** state) {
  (void)state;
  uint32_t seed = 99991u;
  for (int round = 0; round < 300; ++round) {
    int dx[6], dy[6], rx, ry;
    random_shapes(&seed, dx, &rx, dy, &ry);
    const int op = ew_rng_int(&seed, 0, NUM_OPS - 1);
    const TfLiteFusedActivation act =
        kOps[op].activation ? kActs[ew_rng_int(&seed, 0, 3)] : kTfLiteActNone;
    check_random_i32(op, act, dx, rx, dy, ry, seed + (uint32_t)round);
  }
}

static void test_threads(void** state) {
  (void)state;
  /* Outputs large enough to split (at least 2^16 elements), in the plan's
   * three shapes of work, on 2 and 3 threads. */
  for (int threads = 2; threads <= 3; ++threads) {
    check_random_f32(ADD, kTfLiteActRelu, (int[]){210011}, 1, (int[]){210011},
                     1, threads, 5u);
    check_random_f32(DIV, kTfLiteActNone, (int[]){1}, 1, (int[]){140009}, 1,
                     threads, 6u);
    check_random_f32(MUL, kTfLiteActNone, (int[]){3, 70001}, 2, (int[]){70001},
                     1, threads, 7u);
    check_random_f32(MAX, kTfLiteActNone, (int[]){601, 1}, 2, (int[]){1, 503},
                     2, threads, 8u);
    check_random_f32(POW, kTfLiteActNone, (int[]){7, 1, 5, 1, 3}, 5,
                     (int[]){1, 311, 1, 13, 1}, 5, threads, 9u);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hand_values_f32),
      cmocka_unit_test(test_hand_values_i32),
      cmocka_unit_test(test_broadcast_corners),
      cmocka_unit_test(test_activations),
      cmocka_unit_test(test_rejected_activations),
      cmocka_unit_test(test_no_params_means_none),
      cmocka_unit_test(test_inf_clamp_and_nan),
      cmocka_unit_test(test_max_min_nan_and_zeros),
      cmocka_unit_test(test_pow_float),
      cmocka_unit_test(test_int32_wrap),
      cmocka_unit_test(test_int32_div),
      cmocka_unit_test(test_int32_pow),
      cmocka_unit_test(test_empty),
      cmocka_unit_test(test_reprepare),
      cmocka_unit_test(test_invoke_before_prepare),
      cmocka_unit_test(test_type_errors),
      cmocka_unit_test(test_io_and_shape_errors),
      cmocka_unit_test(test_builtin_table),
      cmocka_unit_test(test_random_f32),
      cmocka_unit_test(test_random_i32),
      cmocka_unit_test(test_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
