/* The reduce family's ARG_MAX and ARG_MIN through the kernel runner:
 * hand-derived values, NaN rules, every type, every rejection, threads,
 * and seeded random cases against a reference loop. The runner checks
 * guard bytes after every output. */
#include <float.h>

#include "reduce_test_util.h"
#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

/* ---- ARG_MAX / ARG_MIN ------------------------------------------------------
 */

typedef struct arg_case {
  lg_kernel_runner r;
  TfLiteArgMaxParams maxp;
  TfLiteArgMinParams minp;
  int out;
} arg_case;

/* Axis tensor of `axis_type` (INT32 or INT64) holding `axis`. */
static void arg_setup(arg_case* c, bool is_max, TfLiteType in_type,
                      const int* dims, int rank, const void* x,
                      TfLiteType axis_type, const void* axis,
                      TfLiteType out_type, bool axis_runtime) {
  c->maxp.output_type = out_type;
  c->minp.output_type = out_type;
  lg_kernel_runner_init(&c->r,
                        is_max ? lg_register_ARG_MAX() : lg_register_ARG_MIN(),
                        is_max ? (void*)&c->maxp : (void*)&c->minp);
  const int in = add_tensor(&c->r, in_type, dims, rank, x);
  const int ax = add_tensor(&c->r, axis_type, (int[]){1}, 1, axis);
  if (axis_runtime) make_runtime_input(&c->r, ax);
  c->out = add_output(&c->r, out_type);
  set_io(&c->r, (int[]){in, ax}, 2, c->out);
}

static void arg_expect_i32(bool is_max, const int* dims, int rank,
                           const float* x, int32_t axis, const int* od,
                           int orank, const int32_t* want) {
  for (int runtime = 0; runtime < 2; ++runtime) {
    arg_case c;
    arg_setup(&c, is_max, kTfLiteFloat32, dims, rank, x, kTfLiteInt32, &axis,
              kTfLiteInt32, runtime);
    run_ok(&c.r, is_max ? "ARG_MAX" : "ARG_MIN");
    expect_shape(tensor_at(&c.r, c.out), od, orank);
    expect_ints32(tensor_at(&c.r, c.out)->data.i32, want, count_of(od, orank));
    lg_kernel_runner_release(&c.r);
  }
}

static void test_arg_hand(void** state) {
  (void)state;
  /* [[1,3,2],[4,4,0]]: along axis 1 (or -1) max at 1 and 0 (the tie
   * 4,4 gives the first), min at 0 and 2. Along axis 0: max 1,1,0, min
   * 0,0,1. */
  const float x[] = {1, 3, 2, 4, 4, 0};
  const int d[] = {2, 3};
  arg_expect_i32(true, d, 2, x, 1, (int[]){2}, 1, (int32_t[]){1, 0});
  arg_expect_i32(true, d, 2, x, -1, (int[]){2}, 1, (int32_t[]){1, 0});
  arg_expect_i32(false, d, 2, x, 1, (int[]){2}, 1, (int32_t[]){0, 2});
  arg_expect_i32(true, d, 2, x, 0, (int[]){3}, 1, (int32_t[]){1, 1, 0});
  arg_expect_i32(false, d, 2, x, -2, (int[]){3}, 1, (int32_t[]){0, 0, 1});
  /* A 1-D input gives a scalar. */
  arg_expect_i32(true, (int[]){4}, 1, (float[]){-1, 7, 7, 3}, 0, NULL, 0,
                 (int32_t[]){1});
}

static void test_arg_nan(void** state) {
  (void)state;
  /* LiteRT: a NaN never wins and a number replaces a NaN; all NaN -> 0.
   * max: [nan,1,2] -> 2, [1,nan,2] -> 2, [3,3,1] -> 0, [nan,nan,nan] -> 0,
   * [nan,-inf,-inf] -> 1. min: [nan,1,2] -> 1, [1,nan,0] -> 2. */
  const float xm[] = {NAN, 1,   2,   1,   NAN, 2,         3,        3,
                      1,   NAN, NAN, NAN, NAN, -INFINITY, -INFINITY};
  arg_expect_i32(true, (int[]){5, 3}, 2, xm, 1, (int[]){5}, 1,
                 (int32_t[]){2, 2, 0, 0, 1});
  const float xn[] = {NAN, 1, 2, 1, NAN, 0, INFINITY, NAN, INFINITY};
  arg_expect_i32(false, (int[]){3, 3}, 2, xn, 1, (int[]){3}, 1,
                 (int32_t[]){1, 2, 0});
}

static void test_arg_types(void** state) {
  (void)state;
  /* int32 input, INT64 axis tensor, INT64 output: along axis 1 of
   * [[5,-2,9],[-7,-7,-8]]: max 2, 0; min 1, 2. */
  const int32_t x[] = {5, -2, 9, -7, -7, -8};
  const int64_t axis = 1;
  arg_case c;
  arg_setup(&c, true, kTfLiteInt32, (int[]){2, 3}, 2, x, kTfLiteInt64, &axis,
            kTfLiteInt64, false);
  run_ok(&c.r, "ARG_MAX");
  expect_ints64(tensor_at(&c.r, c.out)->data.i64, (int64_t[]){2, 0}, 2);
  lg_kernel_runner_release(&c.r);
  arg_setup(&c, false, kTfLiteInt32, (int[]){2, 3}, 2, x, kTfLiteInt64, &axis,
            kTfLiteInt32, true);
  run_ok(&c.r, "ARG_MIN");
  expect_ints32(tensor_at(&c.r, c.out)->data.i32, (int32_t[]){1, 2}, 2);
  lg_kernel_runner_release(&c.r);
}

/* Random [outer, axis, inner] cases (inner > LG_ARG_CHUNK included)
 * against a scan written here. */
static void check_arg_random(bool is_max, const int* d, int32_t axis,
                             int threads, uint32_t seed) {
  const int n = count_of(d, 3);
  float* x = malloc(sizeof(float) * (size_t)n);
  int32_t* want = malloc(sizeof(int32_t) * (size_t)n);
  assert_true(x != NULL && want != NULL);
  /* Few distinct values, so that ties are common. */
  for (int i = 0; i < n; ++i) x[i] = (float)rng_int(&seed, -5, 5);
  int outer = 1, inner = 1, od[2], k = 0;
  for (int i = 0; i < 3; ++i) {
    if (i < axis) outer *= d[i];
    if (i > axis) inner *= d[i];
    if (i != axis) od[k++] = d[i];
  }
  for (int o = 0; o < outer; ++o)
    for (int in = 0; in < inner; ++in) {
      int best = 0;
      for (int a = 1; a < d[axis]; ++a) {
        const float v = x[(o * d[axis] + a) * inner + in];
        const float b = x[(o * d[axis] + best) * inner + in];
        if (is_max ? v > b : v < b) best = a;
      }
      want[o * inner + in] = best;
    }
  arg_case c;
  arg_setup(&c, is_max, kTfLiteFloat32, d, 3, x, kTfLiteInt32, &axis,
            kTfLiteInt32, seed % 2 == 0);
  if (threads > 1) {
    assert_int_equal(lg_kernel_runner_set_threads(&c.r, threads), kTfLiteOk);
  }
  run_ok(&c.r, "arg random");
  expect_shape(tensor_at(&c.r, c.out), od, 2);
  expect_ints32(tensor_at(&c.r, c.out)->data.i32, want, outer * inner);
  lg_kernel_runner_release(&c.r);
  free(x);
  free(want);
}

static void test_arg_random_and_threads(void** state) {
  (void)state;
  uint32_t seed = 99;
  static const int shapes[][3] = {
      {2, 5, 67}, {3, 130, 1}, {1, 1, 7}, {17, 3, 5}, {4, 9, 64}};
  for (int s = 0; s < ARRAY_SIZE(shapes); ++s) {
    for (int32_t axis = 0; axis < 3; ++axis) {
      check_arg_random(true, shapes[s], axis, 1, seed++);
      check_arg_random(false, shapes[s], axis, 1, seed++);
    }
  }
  check_arg_random(true, (int[]){64, 40, 33}, 1, 2, seed++);
  check_arg_random(false, (int[]){33, 41, 64}, 2, 3, seed++);
}

static void test_arg_rejections(void** state) {
  (void)state;
  const float x[8] = {0};
  const int32_t a0 = 0, a1 = 1, a5 = 5;
  arg_case c;
  /* An empty axis: no index to give. An empty outer
   * dim is fine (an empty output). */
  arg_setup(&c, true, kTfLiteFloat32, (int[]){2, 0}, 2, x, kTfLiteInt32, &a1,
            kTfLiteInt32, false);
  expect_run_error(&c.r, "ARG_MAX: axis 1 of the input is empty");
  arg_setup(&c, true, kTfLiteFloat32, (int[]){0, 2}, 2, x, kTfLiteInt32, &a1,
            kTfLiteInt32, false);
  run_ok(&c.r, "ARG_MAX");
  expect_shape(tensor_at(&c.r, c.out), (int[]){0}, 1);
  lg_kernel_runner_release(&c.r);
  /* An empty axis is refused even when the output is empty (as LiteRT). */
  arg_setup(&c, false, kTfLiteFloat32, (int[]){0, 0}, 2, x, kTfLiteInt32, &a1,
            kTfLiteInt32, true);
  expect_run_error(&c.r, "ARG_MIN: axis 1 of the input is empty");
  arg_setup(&c, false, kTfLiteFloat32, (int[]){2, 4}, 2, x, kTfLiteInt32, &a5,
            kTfLiteInt32, true);
  expect_run_error(&c.r,
                   "ARG_MIN: axis 5 is out of range for an input of "
                   "rank 2 (expected -2 to 1)");
  arg_setup(&c, true, kTfLiteFloat32, (int[]){8}, 1, x, kTfLiteInt32, &a0,
            kTfLiteFloat32, false);
  expect_run_error(&c.r,
                   "ARG_MAX: output_type FLOAT32 is not supported "
                   "(expected INT32 or INT64)");
  arg_setup(&c, true, kTfLiteInt8, (int[]){8}, 1, x, kTfLiteInt32, &a0,
            kTfLiteInt32, false);
  expect_run_error(&c.r, "ARG_MAX: input type INT8 is not supported");
  arg_setup(&c, false, kTfLiteBool, (int[]){8}, 1, x, kTfLiteInt32, &a0,
            kTfLiteInt32, false);
  expect_run_error(&c.r, "ARG_MIN: input type BOOL is not supported");
  arg_setup(&c, true, kTfLiteFloat32, (int[]){8}, 1, x, kTfLiteFloat32, &a0,
            kTfLiteInt32, false);
  expect_run_error(&c.r, "ARG_MAX: axis type FLOAT32 is not supported");
  arg_setup(&c, true, kTfLiteFloat32, NULL, 0, x, kTfLiteInt32, &a0,
            kTfLiteInt32, false);
  expect_run_error(&c.r, "ARG_MAX: input must have at least one dimension");
  /* Output tensor type against output_type; two axes; no params. */
  c.maxp.output_type = kTfLiteInt64;
  lg_kernel_runner_init(&c.r, lg_register_ARG_MAX(), &c.maxp);
  int in = add_tensor(&c.r, kTfLiteFloat32, (int[]){8}, 1, x);
  int ax = add_tensor(&c.r, kTfLiteInt32, (int[]){1}, 1, &a0);
  set_io(&c.r, (int[]){in, ax}, 2, add_output(&c.r, kTfLiteInt32));
  expect_run_error(&c.r,
                   "ARG_MAX: output type INT32 differs from "
                   "output_type INT64");
  lg_kernel_runner_init(&c.r, lg_register_ARG_MAX(), &c.maxp);
  in = add_tensor(&c.r, kTfLiteFloat32, (int[]){2, 4}, 2, x);
  ax = add_tensor(&c.r, kTfLiteInt32, (int[]){2}, 1, (int32_t[]){0, 1});
  set_io(&c.r, (int[]){in, ax}, 2, add_output(&c.r, kTfLiteInt64));
  expect_run_error(&c.r, "ARG_MAX: axis must hold one element, got shape [2]");
  lg_kernel_runner_init(&c.r, lg_register_ARG_MIN(), NULL);
  in = add_tensor(&c.r, kTfLiteFloat32, (int[]){8}, 1, x);
  ax = add_tensor(&c.r, kTfLiteInt32, (int[]){1}, 1, &a0);
  set_io(&c.r, (int[]){in, ax}, 2, add_output(&c.r, kTfLiteInt32));
  expect_run_error(&c.r, "ARG_MIN: missing ArgMinOptions parameters");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arg_hand),
      cmocka_unit_test(test_arg_nan),
      cmocka_unit_test(test_arg_types),
      cmocka_unit_test(test_arg_random_and_threads),
      cmocka_unit_test(test_arg_rejections),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
