/* The comparisons (LESS, LESS_EQUAL, GREATER, GREATER_EQUAL, EQUAL,
 * NOT_EQUAL) and SELECT_V2 through the kernel runner: hand-derived truth
 * tables with NaN, signed zeros and int64 values that doubles cannot tell
 * apart, BOOL inputs, broadcasting of two and three inputs, every element
 * type SELECT_V2 copies, empty tensors, every rejection message, the builtin
 * table's version ranges, and seeded random shapes up to 6-D against
 * reference loops on 1 to 3 threads. The runner checks guard bytes after
 * every output. */
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

enum { LESS, LESS_EQUAL, GREATER, GREATER_EQUAL, EQUAL, NOT_EQUAL, NUM_OPS };

typedef struct op_info {
  const char* name;
  const TfLiteRegistration* (*reg)(void);
  int32_t code;
  int min_version, max_version; /* TFLite's BuiltinOpResolver range */
  const char* types;
} op_info;

static const op_info kOps[NUM_OPS] = {
    [LESS] = {"LESS", lg_register_LESS, kTfLiteBuiltinLess, 1, 3,
              "FLOAT32, INT32, INT64, INT8 or UINT8"},
    [LESS_EQUAL] = {"LESS_EQUAL", lg_register_LESS_EQUAL,
                    kTfLiteBuiltinLessEqual, 1, 2,
                    "FLOAT32, INT32, INT64, INT8 or UINT8"},
    [GREATER] = {"GREATER", lg_register_GREATER, kTfLiteBuiltinGreater, 1, 2,
                 "FLOAT32, INT32, INT64, INT8 or UINT8"},
    [GREATER_EQUAL] = {"GREATER_EQUAL", lg_register_GREATER_EQUAL,
                       kTfLiteBuiltinGreaterEqual, 1, 3,
                       "FLOAT32, INT32, INT64, INT8 or UINT8"},
    [EQUAL] = {"EQUAL", lg_register_EQUAL, kTfLiteBuiltinEqual, 1, 5,
               "FLOAT32, INT32, INT64, BOOL, INT8, UINT8 or STRING"},
    [NOT_EQUAL] = {"NOT_EQUAL", lg_register_NOT_EQUAL, kTfLiteBuiltinNotEqual,
                   1, 4, "FLOAT32, INT32, INT64, BOOL, INT8, UINT8 or STRING"},
};

/* The comparison in double (exact for float, int32 and the int64 values
 * below 2^53 the random tests use). */
static bool compare(int op, double a, double b) {
  switch (op) {
    case LESS:
      return a < b;
    case LESS_EQUAL:
      return a <= b;
    case GREATER:
      return a > b;
    case GREATER_EQUAL:
      return a >= b;
    case EQUAL:
      return a == b;
    default:
      return a != b;
  }
}

/* Runs op on two same-shape [n] inputs of `type` and checks the BOOL
 * output. */
static void expect_compare(int op, TfLiteType type, const void* x,
                           const void* y, const uint8_t* want, int n) {
  ew_case c;
  ew_setup2(&c, kOps[op].reg(), kTfLiteActNone, type, (int[]){n}, 1, x,
            (int[]){n}, 1, y, kTfLiteBool);
  const TfLiteTensor* out = ew_run(&c);
  ew_expect_shape(out, (int[]){n}, 1);
  ew_expect_bool(kOps[op].name, out->data.raw, want, n);
  lg_kernel_runner_release(&c.runner);
}

/* ---- Comparisons: hand-derived truth tables ------------------------------ */

static void test_compare_f32(void** state) {
  (void)state;
  /* 1 vs 2, 2 vs 2, 3 vs 2, NaN vs 1, 1 vs NaN, -0 vs +0 (equal), inf vs
   * inf (equal), -inf vs -FLT_MAX. Every comparison with NaN is false but
   * NOT_EQUAL. */
  const float x[] = {1.0f, 2.0f, 3.0f, NAN, 1.0f, -0.0f, INFINITY, -INFINITY};
  const float y[] = {2.0f, 2.0f, 2.0f, 1.0f, NAN, 0.0f, INFINITY, -FLT_MAX};
  const uint8_t want[NUM_OPS][8] = {
      [LESS] = {1, 0, 0, 0, 0, 0, 0, 1},
      [LESS_EQUAL] = {1, 1, 0, 0, 0, 1, 1, 1},
      [GREATER] = {0, 0, 1, 0, 0, 0, 0, 0},
      [GREATER_EQUAL] = {0, 1, 1, 0, 0, 1, 1, 0},
      [EQUAL] = {0, 1, 0, 0, 0, 1, 1, 0},
      [NOT_EQUAL] = {1, 0, 1, 1, 1, 0, 0, 1},
  };
  for (int op = 0; op < NUM_OPS; ++op) {
    expect_compare(op, kTfLiteFloat32, x, y, want[op], 8);
  }
}

static void test_compare_int(void** state) {
  (void)state;
  /* int32: -1 vs 0, 0 vs 0, MAX vs MIN. */
  const int32_t xi[] = {-1, 0, INT32_MAX};
  const int32_t yi[] = {0, 0, INT32_MIN};
  /* int64: 2^62 + 1 vs 2^62 (equal as doubles), -5 vs -5, MIN vs MAX. */
  const int64_t xl[] = {(INT64_C(1) << 62) + 1, -5, INT64_MIN};
  const int64_t yl[] = {INT64_C(1) << 62, -5, INT64_MAX};
  const uint8_t want_i[NUM_OPS][3] = {
      [LESS] = {1, 0, 0},    [LESS_EQUAL] = {1, 1, 0},
      [GREATER] = {0, 0, 1}, [GREATER_EQUAL] = {0, 1, 1},
      [EQUAL] = {0, 1, 0},   [NOT_EQUAL] = {1, 0, 1},
  };
  const uint8_t want_l[NUM_OPS][3] = {
      [LESS] = {0, 0, 1},    [LESS_EQUAL] = {0, 1, 1},
      [GREATER] = {1, 0, 0}, [GREATER_EQUAL] = {1, 1, 0},
      [EQUAL] = {0, 1, 0},   [NOT_EQUAL] = {1, 0, 1},
  };
  for (int op = 0; op < NUM_OPS; ++op) {
    expect_compare(op, kTfLiteInt32, xi, yi, want_i[op], 3);
    expect_compare(op, kTfLiteInt64, xl, yl, want_l[op], 3);
  }
}

static void test_compare_bool(void** state) {
  (void)state;
  /* BOOL compares truth values: the byte 2 is true, so 2 == 1. */
  const uint8_t x[] = {0, 1, 1, 0, 2};
  const uint8_t y[] = {0, 1, 0, 1, 1};
  expect_compare(EQUAL, kTfLiteBool, x, y, (const uint8_t[]){1, 1, 0, 0, 1}, 5);
  expect_compare(NOT_EQUAL, kTfLiteBool, x, y, (const uint8_t[]){0, 0, 1, 1, 0},
                 5);
}

static void test_compare_broadcast(void** state) {
  (void)state;
  /* [2,3] < [3] and [3] < [2,3]: out[i][j] = x[i][j] < y[j] and the
   * mirror; a rank-0 scalar on the left; [2,1] vs [1,3]. */
  const float x[] = {1, 5, 3, 4, 2, 6};
  const float y[] = {2, 2, 4};
  ew_case c;
  ew_setup2(&c, lg_register_LESS(), kTfLiteActNone, kTfLiteFloat32,
            (int[]){2, 3}, 2, x, (int[]){3}, 1, y, kTfLiteBool);
  ew_expect_bool("LESS", ew_run(&c)->data.raw,
                 (const uint8_t[]){1, 0, 1, 0, 0, 0}, 6);
  ew_expect_shape(ew_out(&c), (int[]){2, 3}, 2);
  lg_kernel_runner_release(&c.runner);
  ew_setup2(&c, lg_register_LESS(), kTfLiteActNone, kTfLiteFloat32, (int[]){3},
            1, y, (int[]){2, 3}, 2, x, kTfLiteBool);
  ew_expect_bool("LESS", ew_run(&c)->data.raw,
                 (const uint8_t[]){0, 1, 0, 1, 0, 1}, 6);
  lg_kernel_runner_release(&c.runner);
  ew_setup2(&c, lg_register_GREATER_EQUAL(), kTfLiteActNone, kTfLiteFloat32,
            NULL, 0, (const float[]){4.0f}, (int[]){2, 3}, 2, x, kTfLiteBool);
  ew_expect_bool("GREATER_EQUAL", ew_run(&c)->data.raw,
                 (const uint8_t[]){1, 0, 1, 1, 1, 0}, 6);
  lg_kernel_runner_release(&c.runner);
  const int32_t col[] = {1, 3};
  const int32_t row[] = {1, 2, 3};
  ew_setup2(&c, lg_register_EQUAL(), kTfLiteActNone, kTfLiteInt32,
            (int[]){2, 1}, 2, col, (int[]){1, 3}, 2, row, kTfLiteBool);
  ew_expect_bool("EQUAL", ew_run(&c)->data.raw,
                 (const uint8_t[]){1, 0, 0, 0, 0, 1}, 6);
  ew_expect_shape(ew_out(&c), (int[]){2, 3}, 2);
  lg_kernel_runner_release(&c.runner);
}

/* ---- Comparisons: rejections and the table ------------------------------- */

static void expect_compare_error(int op, TfLiteType t1, TfLiteType t2,
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

static void test_compare_errors(void** state) {
  (void)state;
  const TfLiteType rejected[] = {kTfLiteInt8,    kTfLiteUInt8,   kTfLiteInt16,
                                 kTfLiteFloat16, kTfLiteFloat64, kTfLiteString,
                                 kTfLiteBool};
  char text[160];
  for (int op = 0; op < NUM_OPS; ++op) {
    for (int i = 0; i < EW_ARRAY_SIZE(rejected); ++i) {
      if ((rejected[i] == kTfLiteBool || rejected[i] == kTfLiteString) &&
          (op == EQUAL || op == NOT_EQUAL)) {
        continue; /* computed (STRING: tests/python/ops/...string_tensors) */
      }
      /* INT8 and UINT8 are computed (quantized: without quantization
       * parameters they fail naming the tensor). */
      if (rejected[i] == kTfLiteInt8 || rejected[i] == kTfLiteUInt8) {
        snprintf(text, sizeof(text),
                 "input 0 tensor '(unnamed)' (%s) has no quantization",
                 TfLiteTypeGetName(rejected[i]));
        expect_compare_error(op, rejected[i], rejected[i], kTfLiteBool, text);
        continue;
      }
      snprintf(text, sizeof(text),
               "input type %s is not supported (expected %s)",
               TfLiteTypeGetName(rejected[i]), kOps[op].types);
      expect_compare_error(op, rejected[i], rejected[i], kTfLiteBool, text);
    }
    expect_compare_error(op, kTfLiteFloat32, kTfLiteInt32, kTfLiteBool,
                         "input types FLOAT32 and INT32 differ");
    expect_compare_error(op, kTfLiteFloat32, kTfLiteFloat32, kTfLiteFloat32,
                         "output type FLOAT32 is not supported (expected "
                         "BOOL)");
    expect_compare_error(op, kTfLiteInt64, kTfLiteInt64, kTfLiteInt64,
                         "output type INT64 is not supported (expected BOOL)");
    /* Shapes and node layout, through the shared Prepare. */
    ew_case c;
    const float x[6] = {0};
    char message[160];
    ew_setup2(&c, kOps[op].reg(), kTfLiteActNone, kTfLiteFloat32, (int[]){2, 3},
              2, x, (int[]){2}, 1, x, kTfLiteBool);
    snprintf(message, sizeof(message),
             "%s: input shapes [2,3] and [2] are not broadcastable",
             kOps[op].name);
    ew_expect_run_error(&c, message);
    ew_setup2(&c, kOps[op].reg(), kTfLiteActNone, kTfLiteFloat32, (int[]){1}, 1,
              x, (int[]){1}, 1, x, kTfLiteBool);
    lg_kernel_runner_set_inputs(&c.runner, (int[]){0}, 1);
    snprintf(message, sizeof(message), "%s: expected 2 inputs, got 1",
             kOps[op].name);
    ew_expect_run_error(&c, message);
  }
}

static void test_compare_empty_and_before_prepare(void** state) {
  (void)state;
  const float x[3] = {1, 2, 3};
  for (int op = 0; op < NUM_OPS; ++op) {
    ew_case c;
    ew_setup2(&c, kOps[op].reg(), kTfLiteActNone, kTfLiteFloat32, (int[]){0, 3},
              2, NULL, (int[]){3}, 1, x, kTfLiteBool);
    ew_expect_shape(ew_run(&c), (int[]){0, 3}, 2);
    lg_kernel_runner_release(&c.runner);

    lg_kernel_runner r;
    const TfLiteRegistration* reg = kOps[op].reg();
    lg_kernel_runner_init(&r, reg, NULL);
    r.node.user_data = reg->init(&r.context, NULL, 0);
    r.initialized = true;
    char message[96];
    snprintf(message, sizeof(message),
             "%s: invoked before a successful prepare", kOps[op].name);
    ew_expect_error(&r, reg->invoke(&r.context, &r.node), message);
    lg_kernel_runner_release(&r);
  }
}

static void expect_range(const char* name, int32_t code,
                         const TfLiteRegistration* (*reg)(void), int min,
                         int max) {
  assert_int_equal(reg()->builtin_code, code);
  int lo = -7, hi = -7;
  const lg_builtin_kernel* k = lg_builtin_kernel_find(code, min, NULL, NULL);
  if (k == NULL || k->registration != reg ||
      lg_builtin_kernel_find(code, max, NULL, NULL) == NULL ||
      lg_builtin_kernel_find(code, max + 1, &lo, &hi) != NULL || lo != min ||
      hi != max) {
    fail_msg("%s: expected the range %d..%d, got %d..%d", name, min, max, lo,
             hi);
  }
}

static void test_builtin_table(void** state) {
  (void)state;
  for (int op = 0; op < NUM_OPS; ++op) {
    expect_range(kOps[op].name, kOps[op].code, kOps[op].reg,
                 kOps[op].min_version, kOps[op].max_version);
  }
  expect_range("SELECT_V2", kTfLiteBuiltinSelectV2, lg_register_SELECT_V2, 1,
               2);
}

/* ---- Comparisons: seeded random shapes ----------------------------------- */

/* Draws values from a small set so that equal pairs are common. */
static void check_random_compare(int op, TfLiteType type, const int* dx, int rx,
                                 const int* dy, int ry, int threads,
                                 uint32_t seed) {
  int nx = 1, ny = 1, dout[EW_MAX_RANK], rank;
  for (int i = 0; i < rx; ++i) nx *= dx[i];
  for (int i = 0; i < ry; ++i) ny *= dy[i];
  const int n = ew_broadcast(2, (const int* const[]){dx, dy},
                             (const int[]){rx, ry}, dout, &rank);
  const size_t size = type == kTfLiteInt64 ? 8 : 4;
  unsigned char* x = malloc(size * (size_t)(nx + 1));
  unsigned char* y = malloc(size * (size_t)(ny + 1));
  assert_true(x != NULL && y != NULL);
  for (int k = 0; k < 2; ++k) {
    unsigned char* v = k == 0 ? x : y;
    for (int i = 0; i < (k == 0 ? nx : ny); ++i) {
      const int r = ew_rng_int(&seed, -3, 3);
      if (type == kTfLiteFloat32) ((float*)v)[i] = r == 3 ? NAN : 0.5f * r;
      if (type == kTfLiteInt32) ((int32_t*)v)[i] = r * 1000003;
      if (type == kTfLiteInt64) ((int64_t*)v)[i] = r * (INT64_C(1) << 40);
    }
  }
  ew_case c;
  ew_setup2(&c, kOps[op].reg(), kTfLiteActNone, type, dx, rx, x, dy, ry, y,
            kTfLiteBool);
  if (threads > 1) {
    assert_int_equal(lg_kernel_runner_set_threads(&c.runner, threads),
                     kTfLiteOk);
  }
  const TfLiteTensor* out = ew_run(&c);
  ew_expect_shape(out, dout, rank);
  for (int i = 0; i < n; ++i) {
    const int ix = ew_source_index(i, dout, rank, dx, rx);
    const int iy = ew_source_index(i, dout, rank, dy, ry);
    double a, b;
    if (type == kTfLiteFloat32) {
      a = ((float*)x)[ix], b = ((float*)y)[iy];
    } else if (type == kTfLiteInt32) {
      a = ((int32_t*)x)[ix], b = ((int32_t*)y)[iy];
    } else {
      a = (double)((int64_t*)x)[ix], b = (double)((int64_t*)y)[iy];
    }
    if (out->data.raw[i] != (compare(op, a, b) ? 1 : 0)) {
      fail_msg("%s %s threads %d index %d: %g vs %g gave %d", kOps[op].name,
               TfLiteTypeGetName(type), threads, i, a, b, out->data.raw[i]);
    }
  }
  lg_kernel_runner_release(&c.runner);
  free(x);
  free(y);
}

/* A random output shape of rank 0..6 with at most 4096 elements. */
static int random_out_shape(uint32_t* seed, int* dout) {
  static const int kSizes[] = {1, 2, 3, 5, 7, 17};
  const int rank = ew_rng_int(seed, 0, 6);
  int total;
  do {
    total = 1;
    for (int i = 0; i < rank; ++i) {
      dout[i] = kSizes[ew_rng_int(seed, 0, 5)];
      total *= dout[i];
    }
  } while (total > 4096);
  return rank;
}

/* An input shape that broadcasts to (dout, rank): some leading dims
 * dropped, some dims set to 1. */
static int random_input_shape(uint32_t* seed, const int* dout, int rank,
                              int* d) {
  const int r = rank - ew_rng_int(seed, 0, rank);
  for (int i = 0; i < r; ++i) {
    d[i] = ew_rng_int(seed, 0, 2) == 0 ? 1 : dout[rank - r + i];
  }
  return r;
}

static void test_compare_random(void** state) {
  (void)state;
  uint32_t seed = 4242u;
  const TfLiteType types[] = {kTfLiteFloat32, kTfLiteInt32, kTfLiteInt64};
  for (int round = 0; round < 300; ++round) {
    int dout[6], dx[6], dy[6];
    const int rank = random_out_shape(&seed, dout);
    const int rx = random_input_shape(&seed, dout, rank, dx);
    const int ry = random_input_shape(&seed, dout, rank, dy);
    check_random_compare(ew_rng_int(&seed, 0, NUM_OPS - 1),
                         types[ew_rng_int(&seed, 0, 2)], dx, rx, dy, ry, 1,
                         seed + (uint32_t)round);
  }
  for (int threads = 1; threads <= 3; ++threads) {
    check_random_compare(LESS, kTfLiteFloat32, (int[]){131071}, 1,
                         (int[]){131071}, 1, threads, 1u);
    check_random_compare(NOT_EQUAL, kTfLiteInt64, (int[]){3, 1, 40009}, 3,
                         (int[]){2, 1}, 2, threads, 2u);
    check_random_compare(GREATER_EQUAL, kTfLiteInt32, NULL, 0,
                         (int[]){70001, 1}, 2, threads, 3u);
  }
}

/* ---- SELECT_V2 ----------------------------------------------------------- */

/* Sets up SELECT_V2(cond, x, y) with x and y of `type`. */
static void select_setup(ew_case* c, TfLiteType type, const int* dc, int rc,
                         const void* cond, const int* dx, int rx, const void* x,
                         const int* dy, int ry, const void* y) {
  ew_setup(c, lg_register_SELECT_V2(), kTfLiteActNone, 3,
           (const TfLiteType[]){kTfLiteBool, type, type},
           (const int* const[]){dc, dx, dy}, (const int[]){rc, rx, ry},
           (const void* const[]){cond, x, y}, type);
}

static void test_select_hand(void** state) {
  (void)state;
  ew_case c;
  /* cond [2,1] = {T, F}, x [1,3], y [2,3] -> row 0 from x, row 1 from y. */
  const uint8_t cond[] = {1, 0};
  const float x[] = {1, 2, 3};
  const float y[] = {10, 11, 12, 13, 14, 15};
  select_setup(&c, kTfLiteFloat32, (int[]){2, 1}, 2, cond, (int[]){1, 3}, 2, x,
               (int[]){2, 3}, 2, y);
  ew_expect_f32("SELECT_V2", ew_run(&c)->data.f,
                (const float[]){1, 2, 3, 13, 14, 15}, 6);
  ew_expect_shape(ew_out(&c), (int[]){2, 3}, 2);
  lg_kernel_runner_release(&c.runner);
  /* A rank-0 condition picks a whole input: true -> x broadcast to [2,3],
   * false -> y. */
  select_setup(&c, kTfLiteFloat32, NULL, 0, (const uint8_t[]){1}, (int[]){1, 3},
               2, x, (int[]){2, 3}, 2, y);
  ew_expect_f32("SELECT_V2", ew_run(&c)->data.f,
                (const float[]){1, 2, 3, 1, 2, 3}, 6);
  lg_kernel_runner_release(&c.runner);
  select_setup(&c, kTfLiteFloat32, NULL, 0, (const uint8_t[]){0}, (int[]){1, 3},
               2, x, (int[]){2, 3}, 2, y);
  ew_expect_f32("SELECT_V2", ew_run(&c)->data.f, y, 6);
  lg_kernel_runner_release(&c.runner);
  /* A full condition (the byte 7 counts as true) with a scalar x and a
   * [3] y: out[i][j] = cond ? 5 : y[j]; NaN and -0 copy bit for bit. */
  const uint8_t full[] = {7, 0, 1, 0, 0, 1};
  const float yn[] = {NAN, -0.0f, 8.0f};
  select_setup(&c, kTfLiteFloat32, (int[]){2, 3}, 2, full, NULL, 0,
               (const float[]){5.0f}, (int[]){3}, 1, yn);
  ew_expect_f32("SELECT_V2", ew_run(&c)->data.f,
                (const float[]){5, -0.0f, 5, NAN, -0.0f, 5}, 6);
  lg_kernel_runner_release(&c.runner);
}

static void test_select_types(void** state) {
  (void)state;
  /* Every element size: cond {T, F, T} picks x, y, x. */
  const uint8_t cond[] = {1, 0, 1};
  const uint8_t b8x[] = {1, 1, 0}, b8y[] = {0, 0, 1};
  const int8_t i8x[] = {-1, -2, -3}, i8y[] = {4, 5, 6};
  const int16_t i16x[] = {-300, 301, 302}, i16y[] = {400, -401, 402};
  const uint32_t u32x[] = {4000000000u, 1, 2}, u32y[] = {3, 4, 5};
  const int64_t i64x[] = {INT64_MIN, 1, (INT64_C(1) << 62) + 1};
  const int64_t i64y[] = {7, INT64_MAX, 9};
  const struct {
    TfLiteType type;
    const void *x, *y;
    size_t size;
  } cases[] = {
      {kTfLiteBool, b8x, b8y, 1},    {kTfLiteInt8, i8x, i8y, 1},
      {kTfLiteUInt8, b8x, b8y, 1},   {kTfLiteInt16, i16x, i16y, 2},
      {kTfLiteInt32, u32x, u32y, 4}, {kTfLiteUInt32, u32x, u32y, 4},
      {kTfLiteInt64, i64x, i64y, 8},
  };
  for (int i = 0; i < EW_ARRAY_SIZE(cases); ++i) {
    ew_case c;
    select_setup(&c, cases[i].type, (int[]){3}, 1, cond, (int[]){3}, 1,
                 cases[i].x, (int[]){3}, 1, cases[i].y);
    const unsigned char* got = (const unsigned char*)ew_run(&c)->data.raw;
    const size_t s = cases[i].size;
    const unsigned char* x = cases[i].x;
    const unsigned char* y = cases[i].y;
    if (memcmp(got, x, s) != 0 || memcmp(got + s, y + s, s) != 0 ||
        memcmp(got + 2 * s, x + 2 * s, s) != 0) {
      fail_msg("SELECT_V2 %s: wrong elements",
               TfLiteTypeGetName(cases[i].type));
    }
    lg_kernel_runner_release(&c.runner);
  }
}

static void test_select_errors(void** state) {
  (void)state;
  static const int64_t buf[8] = {0};
  const struct {
    TfLiteType tc, tx, ty, tout;
    const char* message;
  } cases[] = {
      {kTfLiteFloat32, kTfLiteFloat32, kTfLiteFloat32, kTfLiteFloat32,
       "SELECT_V2: condition type FLOAT32 is not supported (expected BOOL)"},
      {kTfLiteUInt8, kTfLiteFloat32, kTfLiteFloat32, kTfLiteFloat32,
       "SELECT_V2: condition type UINT8 is not supported"},
      {kTfLiteBool, kTfLiteFloat32, kTfLiteInt32, kTfLiteFloat32,
       "SELECT_V2: input types FLOAT32 (x) and INT32 (y) differ"},
      {kTfLiteBool, kTfLiteFloat16, kTfLiteFloat16, kTfLiteFloat16,
       "SELECT_V2: input type FLOAT16 is not supported (expected BOOL, INT8, "
       "UINT8, INT16, INT32, UINT32, INT64 or FLOAT32)"},
      {kTfLiteBool, kTfLiteString, kTfLiteString, kTfLiteString,
       "SELECT_V2: input type STRING is not supported"},
      {kTfLiteBool, kTfLiteFloat32, kTfLiteFloat32, kTfLiteInt32,
       "SELECT_V2: output type INT32 differs from input type FLOAT32"},
  };
  for (int i = 0; i < EW_ARRAY_SIZE(cases); ++i) {
    ew_case c;
    ew_setup(&c, lg_register_SELECT_V2(), kTfLiteActNone, 3,
             (const TfLiteType[]){cases[i].tc, cases[i].tx, cases[i].ty},
             (const int* const[]){(int[]){2}, (int[]){2}, (int[]){2}},
             (const int[]){1, 1, 1}, (const void* const[]){buf, buf, buf},
             cases[i].tout);
    ew_expect_run_error(&c, cases[i].message);
  }
  ew_case c;
  select_setup(&c, kTfLiteFloat32, (int[]){2}, 1, buf, (int[]){3}, 1, buf,
               (int[]){1}, 1, buf);
  ew_expect_run_error(&c,
                      "SELECT_V2: input shapes [2] (condition), [3] (x) and "
                      "[1] (y) are not broadcastable");
  select_setup(&c, kTfLiteFloat32, (int[]){1, 1, 1, 1, 1, 1, 1}, 7, buf,
               (int[]){1}, 1, buf, (int[]){1}, 1, buf);
  ew_expect_run_error(&c,
                      "SELECT_V2: input shapes [1,1,1,1,1,1,1], [1] and [1] "
                      "have rank 7, above the supported 6");
  select_setup(&c, kTfLiteFloat32, (int[]){1}, 1, buf, (int[]){-2}, 1, buf,
               (int[]){1}, 1, buf);
  ew_expect_run_error(&c,
                      "SELECT_V2: x has a negative dimension in shape [-2]");
  select_setup(&c, kTfLiteFloat32, (int[]){1}, 1, buf, (int[]){1}, 1, buf,
               (int[]){1}, 1, buf);
  lg_kernel_runner_set_inputs(&c.runner, (int[]){0, 1}, 2);
  ew_expect_run_error(&c, "SELECT_V2: expected 3 inputs, got 2");
  select_setup(&c, kTfLiteFloat32, (int[]){1}, 1, buf, (int[]){1}, 1, buf,
               (int[]){1}, 1, buf);
  lg_kernel_runner_set_inputs(&c.runner, (int[]){0, 1, kTfLiteOptionalTensor},
                              3);
  ew_expect_run_error(&c, "SELECT_V2: input 2 is absent");
}

static void test_select_empty_reprepare_before_prepare(void** state) {
  (void)state;
  ew_case c;
  const float v[] = {1, 2, 3};
  /* [0] condition against [1] inputs -> [0]; [2,0] x -> [2,0]. */
  select_setup(&c, kTfLiteFloat32, (int[]){0}, 1, NULL, (int[]){1}, 1, v,
               (int[]){1}, 1, v);
  ew_expect_shape(ew_run(&c), (int[]){0}, 1);
  lg_kernel_runner_release(&c.runner);
  select_setup(&c, kTfLiteFloat32, (int[]){1}, 1, (const uint8_t[]){1},
               (int[]){2, 0}, 2, NULL, (int[]){1}, 1, v);
  ew_expect_shape(ew_run(&c), (int[]){2, 0}, 2);
  lg_kernel_runner_release(&c.runner);
  /* A shape change without prepare is refused. */
  select_setup(&c, kTfLiteFloat32, (int[]){3}, 1, (const uint8_t[]){1, 0, 1},
               (int[]){3}, 1, v, (int[]){3}, 1, v);
  assert_int_equal(lg_kernel_runner_run(&c.runner), kTfLiteOk);
  lg_kernel_runner_tensor(&c.runner, 0)->dims->data[0] = 1;
  ew_expect_error(&c.runner, lg_kernel_runner_invoke(&c.runner),
                  "SELECT_V2: tensor shapes changed since prepare");
  lg_kernel_runner_release(&c.runner);
  lg_kernel_runner r;
  const TfLiteRegistration* reg = lg_register_SELECT_V2();
  lg_kernel_runner_init(&r, reg, NULL);
  r.node.user_data = reg->init(&r.context, NULL, 0);
  r.initialized = true;
  ew_expect_error(&r, reg->invoke(&r.context, &r.node),
                  "SELECT_V2: invoked before a successful prepare");
  lg_kernel_runner_release(&r);
}

/* Runs SELECT_V2 on seeded float data for three shapes and compares with a
 * reference loop (exactly: it only copies). */
static void check_random_select(const int* const* dims, const int* ranks,
                                int threads, uint32_t seed) {
  int n_in[3], dout[EW_MAX_RANK], rank;
  void* data[3];
  for (int k = 0; k < 3; ++k) {
    n_in[k] = 1;
    for (int i = 0; i < ranks[k]; ++i) n_in[k] *= dims[k][i];
    data[k] = malloc((size_t)n_in[k] * 4 + 4);
    assert_non_null(data[k]);
    for (int i = 0; i < n_in[k]; ++i) {
      if (k == 0) ((uint8_t*)data[0])[i] = ew_rng_next(&seed) & 1;
      if (k > 0) ((float*)data[k])[i] = ew_rng_float(&seed);
    }
  }
  const int n = ew_broadcast(3, dims, ranks, dout, &rank);
  ew_case c;
  select_setup(&c, kTfLiteFloat32, dims[0], ranks[0], data[0], dims[1],
               ranks[1], data[1], dims[2], ranks[2], data[2]);
  if (threads > 1) {
    assert_int_equal(lg_kernel_runner_set_threads(&c.runner, threads),
                     kTfLiteOk);
  }
  const TfLiteTensor* out = ew_run(&c);
  ew_expect_shape(out, dout, rank);
  for (int i = 0; i < n; ++i) {
    const uint8_t cond =
        ((const uint8_t*)
             data[0])[ew_source_index(i, dout, rank, dims[0], ranks[0])];
    const int k = cond ? 1 : 2;
    const float want =
        ((const float*)
             data[k])[ew_source_index(i, dout, rank, dims[k], ranks[k])];
    if (out->data.f[i] != want) {
      fail_msg("SELECT_V2 threads %d index %d: got %g, want %g", threads, i,
               (double)out->data.f[i], (double)want);
    }
  }
  lg_kernel_runner_release(&c.runner);
  for (int k = 0; k < 3; ++k) free(data[k]);
}

static void test_select_random(void** state) {
  (void)state;
  uint32_t seed = 777u;
  for (int round = 0; round < 300; ++round) {
    int dout[6], d[3][6], r[3];
    const int rank = random_out_shape(&seed, dout);
    for (int k = 0; k < 3; ++k)
      r[k] = random_input_shape(&seed, dout, rank, d[k]);
    check_random_select((const int* const[]){d[0], d[1], d[2]}, r, 1,
                        seed + (uint32_t)round);
  }
  for (int threads = 1; threads <= 3; ++threads) {
    /* Full condition, scalar x, row y; scalar condition; interleaved. */
    check_random_select(
        (const int* const[]){(int[]){3, 70001}, NULL, (int[]){70001}},
        (const int[]){2, 0, 1}, threads, 11u);
    check_random_select(
        (const int* const[]){NULL, (int[]){140009}, (int[]){140009}},
        (const int[]){0, 1, 1}, threads, 12u);
    check_random_select(
        (const int* const[]){(int[]){401, 1, 1}, (int[]){1, 17, 13},
                             (int[]){401, 17, 1}},
        (const int[]){3, 3, 3}, threads, 13u);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_compare_f32),
      cmocka_unit_test(test_compare_int),
      cmocka_unit_test(test_compare_bool),
      cmocka_unit_test(test_compare_broadcast),
      cmocka_unit_test(test_compare_errors),
      cmocka_unit_test(test_compare_empty_and_before_prepare),
      cmocka_unit_test(test_builtin_table),
      cmocka_unit_test(test_compare_random),
      cmocka_unit_test(test_select_hand),
      cmocka_unit_test(test_select_types),
      cmocka_unit_test(test_select_errors),
      cmocka_unit_test(test_select_empty_reprepare_before_prepare),
      cmocka_unit_test(test_select_random),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
