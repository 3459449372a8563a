/* The scatter, segment, lookup and small shape kernels through the kernel
 * runner, for what the LiteRT comparisons in
 * tests/python/ops/test_ops_segment.py cannot build: types numpy has no
 * dtype for (BFLOAT16, INT4, INT2), blockwise quantization, NaN in UNIQUE,
 * and the runner's guard bytes after outputs that Invoke resizes (UNIQUE's
 * values through its temporary, SCATTER_ND, SPARSE_TO_DENSE). Values are
 * hand-derived.
 */
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
#include "tests/unit/shape_test_util.h"

/* ---- DYNAMIC_UPDATE_SLICE ---------------------------------------------------
 */

static void test_dus_bfloat16_and_int4(void** state) {
  (void)state;
  /* BFLOAT16 (version 6) moves 2-byte elements: [2,3] with a [1,2] update
   * at (5, -1), clamped to (1, 0). */
  const uint16_t operand[6] = {1, 2, 3, 4, 5, 6};
  const uint16_t update[2] = {70, 80};
  const int32_t start[2] = {5, -1};
  sh_run s;
  sh_init(&s, lg_register_DYNAMIC_UPDATE_SLICE(), NULL);
  sh_var(&s, kTfLiteBFloat16, DIMS(2, 3), operand);
  sh_var(&s, kTfLiteBFloat16, DIMS(1, 2), update);
  sh_var(&s, kTfLiteInt32, DIMS(2), start);
  sh_out(&s, kTfLiteBFloat16);
  sh_ok(&s);
  const uint16_t want[6] = {1, 2, 3, 70, 80, 6};
  sh_expect(&s, 0, DIMS(2, 3), want, 2);
  lg_kernel_runner_release(&s.r);
  /* INT4 (version 5) is rejected. */
  const uint8_t packed[4] = {0};
  sh_init(&s, lg_register_DYNAMIC_UPDATE_SLICE(), NULL);
  sh_var(&s, kTfLiteInt4, DIMS(2, 4), packed);
  sh_var(&s, kTfLiteInt4, DIMS(1, 2), packed);
  sh_var(&s, kTfLiteInt32, DIMS(2), start);
  sh_out(&s, kTfLiteInt4);
  sh_fails(&s, "DYNAMIC_UPDATE_SLICE: operand type INT4 is not supported");
}

/* ---- EMBEDDING_LOOKUP
 * ---------------------------------------------------------
 */

static void test_embedding_lookup_newer_tables_rejected(void** state) {
  (void)state;
  const int32_t ids[1] = {0};
  const uint8_t table[8] = {0};
  const TfLiteType types[2] = {kTfLiteInt4, kTfLiteInt2};
  for (int i = 0; i < 2; ++i) {
    sh_run s;
    sh_init(&s, lg_register_EMBEDDING_LOOKUP(), NULL);
    sh_var(&s, kTfLiteInt32, DIMS(1), ids);
    sh_const(&s, types[i], DIMS(2, 4), table);
    sh_out(&s, kTfLiteFloat32);
    char want[128];
    snprintf(want, sizeof(want),
             "EMBEDDING_LOOKUP: output type FLOAT32 differs from table type "
             "%s",
             i == 0 ? "INT4" : "INT2");
    sh_fails(&s, want);
  }
  /* Blockwise quantization is refused before its params are read. */
  sh_run s;
  sh_init(&s, lg_register_EMBEDDING_LOOKUP(), NULL);
  sh_var(&s, kTfLiteInt32, DIMS(1), ids);
  const int t = sh_const(&s, kTfLiteInt8, DIMS(2, 4), table);
  sh_tensor(&s, t)->quantization.type = kTfLiteBlockwiseQuantization;
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "EMBEDDING_LOOKUP: blockwise quantized tables are not "
           "supported");
}

/* ---- UNIQUE
 * -------------------------------------------------------------------
 */

static void test_unique_nan_and_guards(void** state) {
  (void)state;
  /* Every NaN is one value; -0.0 equals 0.0 and keeps its first
   * appearance. */
  const float nan = NAN;
  const float x[8] = {2.0f, nan, -0.0f, 2.0f, nan, 0.0f, -1.0f, nan};
  TfLiteUniqueParams params = {.index_out_type = kTfLiteInt64};
  sh_run s;
  sh_init(&s, lg_register_UNIQUE(), &params);
  sh_var(&s, kTfLiteFloat32, DIMS(8), x);
  sh_out(&s, kTfLiteFloat32);
  sh_out(&s, kTfLiteInt64);
  sh_ok(&s);
  const TfLiteTensor* values = sh_output(&s, 0);
  sh_expect_shape(values, DIMS(4));
  assert_true(values->data.f[0] == 2.0f);
  assert_true(isnan(values->data.f[1]));
  assert_true(values->data.f[2] == 0.0f && signbit(values->data.f[2]));
  assert_true(values->data.f[3] == -1.0f);
  const int64_t want_idx[8] = {0, 1, 2, 0, 1, 2, 3, 1};
  sh_expect(&s, 1, DIMS(8), want_idx, 8);
  lg_kernel_runner_release(&s.r);
  /* Many values, few distinct: int8 in [-3, 3]. */
  int8_t many[200];
  int32_t want[200];
  uint32_t rng = 7;
  int8_t order[7];
  int seen = 0;
  for (int i = 0; i < 200; ++i) {
    many[i] = (int8_t)sh_rng_int(&rng, -3, 3);
    int k = 0;
    while (k < seen && order[k] != many[i]) ++k;
    if (k == seen) order[seen++] = many[i];
    want[i] = k;
  }
  sh_init(&s, lg_register_UNIQUE(), NULL);
  sh_var(&s, kTfLiteInt8, DIMS(200), many);
  sh_out(&s, kTfLiteInt8);
  sh_out(&s, kTfLiteInt32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(seen), order, 1);
  sh_expect(&s, 1, DIMS(200), want, 4);
  lg_kernel_runner_release(&s.r);
}

/* ---- SCATTER_ND / SPARSE_TO_DENSE / segments: outputs resized in Invoke
 * ------
 */

static void test_dynamic_outputs(void** state) {
  (void)state;
  /* SCATTER_ND with a non-constant shape [2,3]: rows 1 and 1 again. */
  const int32_t idx[2] = {1, 1};
  const float upd[6] = {1, 2, 3, 10, 20, 30};
  const int32_t shape[2] = {2, 3};
  sh_run s;
  sh_init(&s, lg_register_SCATTER_ND(), NULL);
  sh_var(&s, kTfLiteInt32, DIMS(2, 1), idx);
  sh_var(&s, kTfLiteFloat32, DIMS(2, 3), upd);
  sh_var(&s, kTfLiteInt32, DIMS(2), shape);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  const float want[6] = {0, 0, 0, 11, 22, 33};
  sh_expect(&s, 0, DIMS(2, 3), want, 4);
  lg_kernel_runner_release(&s.r);
  /* SPARSE_TO_DENSE with a non-constant INT64 shape [2,2] and scalar
   * value; the repeated index keeps the value. */
  const int64_t coords[4] = {1, 0, 1, 0};
  const int64_t dense_shape[2] = {2, 2};
  const int8_t value = 9, fill = -1;
  sh_init(&s, lg_register_SPARSE_TO_DENSE(), NULL);
  sh_var(&s, kTfLiteInt64, DIMS(2, 2), coords);
  sh_var(&s, kTfLiteInt64, DIMS(2), dense_shape);
  sh_var(&s, kTfLiteInt8, SCALAR, &value);
  sh_var(&s, kTfLiteInt8, SCALAR, &fill);
  sh_out(&s, kTfLiteInt8);
  sh_ok(&s);
  const int8_t dense[4] = {-1, -1, 9, -1};
  sh_expect(&s, 0, DIMS(2, 2), dense, 1);
  lg_kernel_runner_release(&s.r);
  /* UNSORTED_SEGMENT_PROD with num_segments as a [1] vector; segment 1 is
   * empty (1), id -1 skipped. */
  const int32_t data[4] = {2, 3, 4, 5};
  const int32_t ids[4] = {0, -1, 2, 0};
  const int32_t num[1] = {3};
  sh_init(&s, lg_register_UNSORTED_SEGMENT_PROD(), NULL);
  sh_var(&s, kTfLiteInt32, DIMS(4), data);
  sh_var(&s, kTfLiteInt32, DIMS(4), ids);
  sh_var(&s, kTfLiteInt32, DIMS(1), num);
  sh_out(&s, kTfLiteInt32);
  sh_ok(&s);
  const int32_t prod[3] = {10, 1, 4};
  sh_expect(&s, 0, DIMS(3), prod, 4);
  lg_kernel_runner_release(&s.r);
  /* num_segments of two values is rejected. */
  const int32_t two[2] = {3, 3};
  sh_init(&s, lg_register_UNSORTED_SEGMENT_SUM(), NULL);
  sh_var(&s, kTfLiteInt32, DIMS(4), data);
  sh_var(&s, kTfLiteInt32, DIMS(4), ids);
  sh_var(&s, kTfLiteInt32, DIMS(2), two);
  sh_out(&s, kTfLiteInt32);
  sh_fails(&s,
           "UNSORTED_SEGMENT_SUM: num_segments must be a scalar or a "
           "1-element vector (got [2])");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dus_bfloat16_and_int4),
      cmocka_unit_test(test_embedding_lookup_newer_tables_rejected),
      cmocka_unit_test(test_unique_nan_and_guards),
      cmocka_unit_test(test_dynamic_outputs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
