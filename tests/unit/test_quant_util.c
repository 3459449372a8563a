/* runtime/kernels/quant_util: TFLite's fixed-point requantization on
 * hand-derived cases, and the checked reading of quantization parameters on
 * hand-built tensors (per-channel arrays that do not fit the shape, which
 * the model writer cannot produce; the QUANTIZE pytest covers the rest
 * against LiteRT). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/kernels/quant_util.h"
#include "tensorflow/lite/c/common.h"

static char g_error[512];

static void record_error(TfLiteContext* context, const char* format, ...) {
  (void)context;
  va_list args;
  va_start(args, format);
  vsnprintf(g_error, sizeof(g_error), format, args);
  va_end(args);
}

static void expect_multiplier(double m, int32_t multiplier, int shift) {
  int32_t got_multiplier = -1;
  int got_shift = -100;
  lg_quantize_multiplier(m, &got_multiplier, &got_shift);
  assert_int_equal(got_multiplier, multiplier);
  assert_int_equal(got_shift, shift);
}

static void test_quantize_multiplier(void** state) {
  (void)state;
  expect_multiplier(0.5, 1 << 30, 0);     /* 0.5 = 0.5 * 2^0 */
  expect_multiplier(1.0, 1 << 30, 1);     /* 0.5 * 2^1 */
  expect_multiplier(0.75, 1610612736, 0); /* 0.75 * 2^31 */
  expect_multiplier(3.0, 1610612736, 2);  /* 0.75 * 2^2 */
  expect_multiplier(ldexp(1.0, -32), 1 << 30, -31);
  expect_multiplier(ldexp(1.0, -33), 0, 0); /* below 2^-32: flushed to 0 */
  expect_multiplier(0.0, 0, 0);
  /* A fraction that rounds up to 1.0 moves to the next power of two. */
  expect_multiplier(1.0 - ldexp(1.0, -40), 1 << 30, 1);
}

static int32_t times(int32_t x, double m) {
  int32_t multiplier = 0;
  int shift = 0;
  lg_quantize_multiplier(m, &multiplier, &shift);
  return lg_multiply_by_quantized_multiplier(x, multiplier, shift);
}

static void test_multiply_by_quantized_multiplier(void** state) {
  (void)state;
  assert_int_equal(times(3, 2.0), 6);
  assert_int_equal(times(100, 0.5), 50);
  /* The high product rounds 1.5 up, -1.5 toward +inf (gemmlowp's nudge). */
  assert_int_equal(times(3, 0.5), 2);
  assert_int_equal(times(-3, 0.5), -1);
  /* Two roundings, as TFLite: 5 * 0.25 = 1.25 -> high product 2.5 -> 3 ->
   * 3 / 2 -> 2 (one rounding would give 1); -5 * 0.25 -> -2 -> -1. */
  assert_int_equal(times(5, 0.25), 2);
  assert_int_equal(times(-5, 0.25), -1);
  assert_int_equal(times(7, 0.0), 0);
  assert_int_equal(times(-1000, 1.0), -1000);
}

/* A tensor of `type` and shape dims[0..rank) with the given affine
 * quantization (NULL: none). */
typedef struct test_tensor {
  TfLiteTensor t;
  int dims[1 + 4];
  TfLiteAffineQuantization q;
  float scales[1 + 8];
  int zero_points[1 + 8];
} test_tensor;

static void make_tensor(test_tensor* tt, TfLiteType type, int rank,
                        const int* shape, int n_scales, const float* scales,
                        int n_zero_points, const int* zero_points, int axis) {
  memset(tt, 0, sizeof(*tt));
  tt->t.type = type;
  tt->t.name = "w";
  tt->dims[0] = rank;
  memcpy(tt->dims + 1, shape, sizeof(int) * (size_t)rank);
  tt->t.dims = (TfLiteIntArray*)tt->dims;
  if (n_scales < 0) return;
  TfLiteFloatArray* s = (TfLiteFloatArray*)tt->scales;
  s->size = n_scales;
  memcpy(s->data, scales, sizeof(float) * (size_t)n_scales);
  TfLiteIntArray* z = (TfLiteIntArray*)tt->zero_points;
  z->size = n_zero_points;
  memcpy(z->data, zero_points, sizeof(int) * (size_t)n_zero_points);
  tt->q.scale = s;
  tt->q.zero_point = z;
  tt->q.quantized_dimension = axis;
  tt->t.quantization.type = kTfLiteAffineQuantization;
  tt->t.quantization.params = &tt->q;
}

static TfLiteStatus read_layout(const test_tensor* tt, lg_quant_layout* l) {
  TfLiteContext context;
  memset(&context, 0, sizeof(context));
  context.ReportError = record_error;
  g_error[0] = '\0';
  return lg_quant_layout_read(&context, "OP", "output", &tt->t, l);
}

static void expect_rejected(const test_tensor* tt, const char* message) {
  lg_quant_layout l;
  assert_int_equal(read_layout(tt, &l), kTfLiteError);
  if (strstr(g_error, message) == NULL) {
    fail_msg("error '%s' does not contain '%s'", g_error, message);
  }
}

static void test_layout_per_channel(void** state) {
  (void)state;
  const int shape[4] = {2, 3, 4, 5};
  const float scales[3] = {0.5f, 0.25f, 2.0f};
  const int zps[3] = {1, -2, 3};
  test_tensor tt;
  make_tensor(&tt, kTfLiteInt8, 4, shape, 3, scales, 3, zps, 1);
  lg_quant_layout l;
  assert_int_equal(read_layout(&tt, &l), kTfLiteOk);
  assert_int_equal(l.outer, 2);
  assert_int_equal(l.channels, 3);
  assert_int_equal(l.inner, 20);
  assert_true(lg_quant_scale(&l, 2) == 2.0f);
  assert_int_equal(lg_quant_zero_point(&l, 1), -2);
  /* One zero point shared by every channel. */
  make_tensor(&tt, kTfLiteInt8, 4, shape, 3, scales, 1, zps, 1);
  assert_int_equal(read_layout(&tt, &l), kTfLiteOk);
  assert_int_equal(lg_quant_zero_point(&l, 2), 1);
}

static void test_layout_per_tensor(void** state) {
  (void)state;
  const int shape[2] = {2, 3};
  const float scale = 0.125f;
  const int zp = 255;
  test_tensor tt;
  make_tensor(&tt, kTfLiteUInt8, 2, shape, 1, &scale, 1, &zp, 0);
  lg_quant_layout l;
  assert_int_equal(read_layout(&tt, &l), kTfLiteOk);
  assert_int_equal(l.channels, 1);
  assert_int_equal(l.inner, 6);
  assert_true(lg_quant_scale(&l, 0) == 0.125f);
  assert_int_equal(lg_quant_zero_point(&l, 0), 255);
  /* TfLiteTensor.params alone. */
  make_tensor(&tt, kTfLiteInt16, 2, shape, -1, NULL, 0, NULL, 0);
  tt.t.params.scale = 0.5f;
  tt.t.params.zero_point = -7;
  assert_int_equal(read_layout(&tt, &l), kTfLiteOk);
  assert_int_equal(lg_quant_zero_point(&l, 0), -7);
}

static void test_layout_rejections(void** state) {
  (void)state;
  const int shape[2] = {2, 3};
  const float scales[3] = {0.1f, 0.2f, 0.3f};
  const int zps[3] = {0, 0, 0};
  test_tensor tt;
  make_tensor(&tt, kTfLiteInt8, 2, shape, 2, scales, 2, zps, 1);
  expect_rejected(&tt,
                  "OP: output tensor 'w' has 2 scales for dimension 1 "
                  "of shape [2,3] (size 3)");
  make_tensor(&tt, kTfLiteInt8, 2, shape, 3, scales, 2, zps, 1);
  expect_rejected(&tt, "has 2 zero points for 3 scales (expected 1 or 3)");
  make_tensor(&tt, kTfLiteInt8, 2, shape, 2, scales, 2, zps, 2);
  expect_rejected(&tt, "has quantized_dimension 2, outside its shape [2,3]");
  make_tensor(&tt, kTfLiteInt8, 2, shape, 2, scales, 2, zps, -1);
  expect_rejected(&tt, "has quantized_dimension -1");
  make_tensor(&tt, kTfLiteInt8, 2, shape, 0, scales, 1, zps, 0);
  expect_rejected(&tt,
                  "has affine quantization without scales or zero "
                  "points");
  make_tensor(&tt, kTfLiteInt8, 2, shape, -1, NULL, 0, NULL, 0);
  expect_rejected(&tt, "output tensor 'w' (INT8) has no quantization");
  const float bad[3] = {0.1f, 0.0f, 0.3f};
  make_tensor(&tt, kTfLiteInt8, 2, shape, 3, bad, 3, zps, 1);
  expect_rejected(&tt,
                  "has scale 0 (a quantization scale must be finite and "
                  "greater than 0)");
  const int wide[3] = {0, 300, 0};
  make_tensor(&tt, kTfLiteInt16, 2, shape, 3, scales, 3, wide, 1);
  assert_int_equal(read_layout(&tt, &(lg_quant_layout){0}), kTfLiteOk);
  make_tensor(&tt, kTfLiteUInt8, 2, shape, 3, scales, 3, wide, 1);
  expect_rejected(&tt, "has zero point 300, outside UINT8's range [0, 255]");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_quantize_multiplier),
      cmocka_unit_test(test_multiply_by_quantized_multiplier),
      cmocka_unit_test(test_layout_per_channel),
      cmocka_unit_test(test_layout_per_tensor),
      cmocka_unit_test(test_layout_rejections),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
