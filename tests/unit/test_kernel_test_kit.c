/* The kernel test kit (include/litegpu/kernel_test.h): the Atan custom op of
 * docs/custom_ops.md in both spellings of the operator API against atanf,
 * litegpu's builtin kernels (float, int8 quantized, constant weights)
 * against hand-derived values, reruns with new inputs, and every error the
 * kit reports: the kernel's own Prepare failure, bad sizes, misuse.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "examples/custom_op_atan/atan_op.h"
#include "litegpu/kernel_test.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/core/c/operator.h"

static const int32_t kDims23[] = {2, 3};
static const float kAtanInputs[6] = {-3.0f, -1.0f, 0.0f, 0.5f, 1.0f, 20.0f};

static void assert_contains(const char* text, const char* part) {
  if (strstr(text, part) == NULL) {
    fail_msg("\"%s\" does not contain \"%s\"", text, part);
  }
}

static const float* float_output(const litegpu_kernel_test* t, int i,
                                 size_t count) {
  const TfLiteTensor* out = litegpu_kernel_test_output(t, i);
  assert_non_null(out);
  assert_int_equal(TfLiteTensorType(out), kTfLiteFloat32);
  assert_int_equal(TfLiteTensorByteSize(out), count * sizeof(float));
  return (const float*)TfLiteTensorData(out);
}

/* Atan on [2, 3] through `op`, each value against atanf. */
static void check_atan(const TfLiteOperator* op) {
  litegpu_kernel_test* t = litegpu_kernel_test_create_operator(op, NULL, 0);
  assert_non_null(t);
  const litegpu_kernel_test_tensor in = {.type = kTfLiteFloat32,
                                         .dims = kDims23,
                                         .num_dims = 2,
                                         .data = kAtanInputs,
                                         .bytes = sizeof(kAtanInputs)};
  /* The output is declared [1] in the model: Prepare resizes it. */
  const int32_t one[] = {1};
  const litegpu_kernel_test_tensor out = {
      .type = kTfLiteFloat32, .dims = one, .num_dims = 1};
  assert_int_equal(litegpu_kernel_test_add_input(t, &in), 0);
  assert_int_equal(litegpu_kernel_test_add_output(t, &out), 0);
  assert_null(litegpu_kernel_test_output(t, 0)); /* not invoked yet */
  assert_int_equal(litegpu_kernel_test_invoke(t), kTfLiteOk);
  assert_string_equal(litegpu_kernel_test_error(t), "");
  const TfLiteTensor* y = litegpu_kernel_test_output(t, 0);
  assert_int_equal(TfLiteTensorNumDims(y), 2);
  assert_int_equal(TfLiteTensorDim(y, 0), 2);
  assert_int_equal(TfLiteTensorDim(y, 1), 3);
  const float* got = float_output(t, 0, 6);
  for (int i = 0; i < 6; ++i) {
    assert_float_equal(got[i], atanf(kAtanInputs[i]), 0.0f);
  }
  litegpu_kernel_test_delete(t);
}

static void test_atan_operator_spelling(void** state) {
  (void)state;
  check_atan(AtanOperator());
}

static void test_atan_registration_external_spelling(void** state) {
  (void)state;
  check_atan(AtanOpRegistrationExternal());
}

/* The kit resizes inputs of the caller's shape and reruns on new values. */
static void test_rerun_with_new_inputs(void** state) {
  (void)state;
  litegpu_kernel_test* t =
      litegpu_kernel_test_create_operator(AtanOperator(), NULL, 0);
  const int32_t dims[] = {4};
  const float first[4] = {0.0f, 1.0f, -1.0f, 2.0f};
  const float second[4] = {-2.0f, 0.25f, 4.0f, -0.5f};
  const litegpu_kernel_test_tensor in = {.type = kTfLiteFloat32,
                                         .dims = dims,
                                         .num_dims = 1,
                                         .data = first,
                                         .bytes = sizeof(first)};
  const litegpu_kernel_test_tensor out = {
      .type = kTfLiteFloat32, .dims = dims, .num_dims = 1};
  litegpu_kernel_test_add_input(t, &in);
  litegpu_kernel_test_add_output(t, &out);
  assert_int_equal(litegpu_kernel_test_invoke(t), kTfLiteOk);
  assert_float_equal(float_output(t, 0, 4)[3], atanf(2.0f), 0.0f);
  assert_int_equal(litegpu_kernel_test_set_input(t, 0, second, sizeof(second)),
                   kTfLiteOk);
  assert_int_equal(litegpu_kernel_test_invoke(t), kTfLiteOk);
  const float* got = float_output(t, 0, 4);
  for (int i = 0; i < 4; ++i) {
    assert_float_equal(got[i], atanf(second[i]), 0.0f);
  }
  /* A wrong size keeps the old values and says why. */
  assert_int_equal(litegpu_kernel_test_set_input(t, 0, second, 8),
                   kTfLiteError);
  assert_contains(litegpu_kernel_test_error(t),
                  "input 0 takes 16 bytes of values, not 8");
  assert_int_equal(litegpu_kernel_test_set_input(t, 1, second, 16),
                   kTfLiteError);
  assert_contains(litegpu_kernel_test_error(t), "1 is not a non-constant");
  litegpu_kernel_test_delete(t);
}

/* litegpu's ADD with a fused RELU, the second operand a constant:
 * [1, -2, 3] + [0.5, 0.5, -4] = [1.5, -1.5, -1] -> [1.5, 0, 0]. */
static void test_builtin_add_with_a_constant(void** state) {
  (void)state;
  TfLiteAddParams params = {.activation = kTfLiteActRelu};
  litegpu_kernel_test* t =
      litegpu_kernel_test_create_builtin(kTfLiteBuiltinAdd, 1, &params);
  const int32_t dims[] = {3};
  const float a[3] = {1.0f, -2.0f, 3.0f}, b[3] = {0.5f, 0.5f, -4.0f};
  const litegpu_kernel_test_tensor ta = {.type = kTfLiteFloat32,
                                         .dims = dims,
                                         .num_dims = 1,
                                         .data = a,
                                         .bytes = sizeof(a)};
  const litegpu_kernel_test_tensor tb = {.type = kTfLiteFloat32,
                                         .dims = dims,
                                         .num_dims = 1,
                                         .data = b,
                                         .bytes = sizeof(b),
                                         .constant = true};
  const litegpu_kernel_test_tensor out = {
      .type = kTfLiteFloat32, .dims = dims, .num_dims = 1};
  assert_int_equal(litegpu_kernel_test_add_input(t, &ta), 0);
  assert_int_equal(litegpu_kernel_test_add_input(t, &tb), 1);
  litegpu_kernel_test_add_output(t, &out);
  assert_int_equal(litegpu_kernel_test_invoke(t), kTfLiteOk);
  const float* got = float_output(t, 0, 3);
  assert_float_equal(got[0], 1.5f, 0.0f);
  assert_float_equal(got[1], 0.0f, 0.0f);
  assert_float_equal(got[2], 0.0f, 0.0f);
  /* A constant input cannot be replaced. */
  assert_int_equal(litegpu_kernel_test_set_input(t, 1, b, sizeof(b)),
                   kTfLiteError);
  litegpu_kernel_test_delete(t);
}

/* INT8 ADD, every scale 0.5, zero points 0 / 1 / -1: reals 1 + 1 = 2,
 * 2 + -1 = 1, -1 + 0.5 = -0.5 give 2 / 0.5 - 1 = 3, 1, -2. */
static void test_builtin_int8_add(void** state) {
  (void)state;
  litegpu_kernel_test* t =
      litegpu_kernel_test_create_builtin(kTfLiteBuiltinAdd, 2, NULL);
  const int32_t dims[] = {3};
  const int8_t a[3] = {2, 4, -2}, b[3] = {3, -1, 2};
  const litegpu_kernel_test_tensor ta = {.type = kTfLiteInt8,
                                         .dims = dims,
                                         .num_dims = 1,
                                         .data = a,
                                         .bytes = sizeof(a),
                                         .scale = 0.5f,
                                         .zero_point = 0};
  const litegpu_kernel_test_tensor tb = {.type = kTfLiteInt8,
                                         .dims = dims,
                                         .num_dims = 1,
                                         .data = b,
                                         .bytes = sizeof(b),
                                         .scale = 0.5f,
                                         .zero_point = 1};
  const litegpu_kernel_test_tensor out = {.type = kTfLiteInt8,
                                          .dims = dims,
                                          .num_dims = 1,
                                          .scale = 0.5f,
                                          .zero_point = -1};
  litegpu_kernel_test_add_input(t, &ta);
  litegpu_kernel_test_add_input(t, &tb);
  litegpu_kernel_test_add_output(t, &out);
  assert_int_equal(litegpu_kernel_test_invoke(t), kTfLiteOk);
  const TfLiteTensor* y = litegpu_kernel_test_output(t, 0);
  assert_int_equal(TfLiteTensorType(y), kTfLiteInt8);
  assert_float_equal(TfLiteTensorQuantizationParams(y).scale, 0.5f, 0.0f);
  const int8_t* got = (const int8_t*)TfLiteTensorData(y);
  assert_int_equal(got[0], 3);
  assert_int_equal(got[1], 1);
  assert_int_equal(got[2], -2);
  litegpu_kernel_test_delete(t);
}

/* FULLY_CONNECTED with constant weights [2, 3] and bias [2] on 2 threads:
 * [1, 2, 3] . [1, 0, -1] + 0.5 = -1.5; . [2, 1, 0] - 1 = 3. */
static void test_builtin_fully_connected_weights(void** state) {
  (void)state;
  litegpu_kernel_test* t =
      litegpu_kernel_test_create_builtin(kTfLiteBuiltinFullyConnected, 1, NULL);
  assert_int_equal(litegpu_kernel_test_set_num_threads(t, 2), kTfLiteOk);
  const int32_t dx[] = {1, 3}, dw[] = {2, 3}, db[] = {2}, dy[] = {1, 2};
  const float x[3] = {1, 2, 3}, w[6] = {1, 0, -1, 2, 1, 0}, b[2] = {0.5f, -1};
  const litegpu_kernel_test_tensor tx = {.type = kTfLiteFloat32,
                                         .dims = dx,
                                         .num_dims = 2,
                                         .data = x,
                                         .bytes = sizeof(x)};
  const litegpu_kernel_test_tensor tw = {.type = kTfLiteFloat32,
                                         .dims = dw,
                                         .num_dims = 2,
                                         .data = w,
                                         .bytes = sizeof(w),
                                         .constant = true};
  const litegpu_kernel_test_tensor tb = {.type = kTfLiteFloat32,
                                         .dims = db,
                                         .num_dims = 1,
                                         .data = b,
                                         .bytes = sizeof(b),
                                         .constant = true};
  const litegpu_kernel_test_tensor ty = {
      .type = kTfLiteFloat32, .dims = dy, .num_dims = 2};
  litegpu_kernel_test_add_input(t, &tx);
  litegpu_kernel_test_add_input(t, &tw);
  litegpu_kernel_test_add_input(t, &tb);
  litegpu_kernel_test_add_output(t, &ty);
  assert_int_equal(litegpu_kernel_test_invoke(t), kTfLiteOk);
  const float* got = float_output(t, 0, 2);
  assert_float_equal(got[0], -1.5f, 0.0f);
  assert_float_equal(got[1], 3.0f, 0.0f);
  litegpu_kernel_test_delete(t);
}

/* The kernel's own Prepare message reaches the kit: Atan refuses INT32. */
static void test_prepare_failure_is_reported(void** state) {
  (void)state;
  litegpu_kernel_test* t =
      litegpu_kernel_test_create_operator(AtanOperator(), NULL, 0);
  const int32_t dims[] = {2};
  const int32_t x[2] = {1, 2};
  const litegpu_kernel_test_tensor in = {.type = kTfLiteInt32,
                                         .dims = dims,
                                         .num_dims = 1,
                                         .data = x,
                                         .bytes = sizeof(x)};
  const litegpu_kernel_test_tensor out = {
      .type = kTfLiteInt32, .dims = dims, .num_dims = 1};
  litegpu_kernel_test_add_input(t, &in);
  litegpu_kernel_test_add_output(t, &out);
  assert_int_equal(litegpu_kernel_test_invoke(t), kTfLiteError);
  assert_contains(litegpu_kernel_test_error(t), "INT32");
  assert_null(litegpu_kernel_test_output(t, 0));
  /* Later invokes say that the kit is spent. */
  assert_int_equal(litegpu_kernel_test_invoke(t), kTfLiteError);
  assert_contains(litegpu_kernel_test_error(t), "make a new kit");
  litegpu_kernel_test_delete(t);
}

/* ADD of [3] and [2] does not broadcast: litegpu's ADD names the shapes. */
static void test_builtin_shape_error(void** state) {
  (void)state;
  litegpu_kernel_test* t =
      litegpu_kernel_test_create_builtin(kTfLiteBuiltinAdd, 1, NULL);
  const int32_t d3[] = {3}, d2[] = {2};
  const float a[3] = {0}, b[2] = {0};
  const litegpu_kernel_test_tensor ta = {.type = kTfLiteFloat32,
                                         .dims = d3,
                                         .num_dims = 1,
                                         .data = a,
                                         .bytes = sizeof(a)};
  const litegpu_kernel_test_tensor tb = {.type = kTfLiteFloat32,
                                         .dims = d2,
                                         .num_dims = 1,
                                         .data = b,
                                         .bytes = sizeof(b)};
  const litegpu_kernel_test_tensor out = {
      .type = kTfLiteFloat32, .dims = d3, .num_dims = 1};
  litegpu_kernel_test_add_input(t, &ta);
  litegpu_kernel_test_add_input(t, &tb);
  litegpu_kernel_test_add_output(t, &out);
  assert_int_equal(litegpu_kernel_test_invoke(t), kTfLiteError);
  assert_contains(litegpu_kernel_test_error(t), "ADD");
  litegpu_kernel_test_delete(t);
}

static void test_argument_errors(void** state) {
  (void)state;
  assert_null(litegpu_kernel_test_create_operator(NULL, NULL, 0));
  litegpu_kernel_test_delete(NULL);
  assert_int_equal(litegpu_kernel_test_invoke(NULL), kTfLiteError);
  assert_int_equal(litegpu_kernel_test_add_input(NULL, NULL), -1);
  assert_null(litegpu_kernel_test_output(NULL, 0));

  litegpu_kernel_test* t =
      litegpu_kernel_test_create_operator(AtanOperator(), NULL, 0);
  assert_int_equal(litegpu_kernel_test_add_input(t, NULL), -1);
  assert_contains(litegpu_kernel_test_error(t), "the input is NULL");
  const int32_t dims[] = {2};
  const litegpu_kernel_test_tensor no_dims = {
      .type = kTfLiteFloat32, .dims = NULL, .num_dims = 1};
  assert_int_equal(litegpu_kernel_test_add_output(t, &no_dims), -1);
  assert_contains(litegpu_kernel_test_error(t), "dims is NULL");
  const litegpu_kernel_test_tensor no_data = {.type = kTfLiteFloat32,
                                              .dims = dims,
                                              .num_dims = 1,
                                              .data = NULL,
                                              .bytes = 8};
  assert_int_equal(litegpu_kernel_test_add_input(t, &no_data), -1);
  assert_contains(litegpu_kernel_test_error(t), "data is NULL with 8 bytes");
  const litegpu_kernel_test_tensor text = {.type = kTfLiteString,
                                           .dims = dims,
                                           .num_dims = 1,
                                           .data = "ab",
                                           .bytes = 2};
  assert_int_equal(litegpu_kernel_test_add_input(t, &text), -1);
  assert_contains(litegpu_kernel_test_error(t), "STRING input must be");
  assert_int_equal(litegpu_kernel_test_set_num_threads(t, 0), kTfLiteError);
  /* No output: the first invoke fails. */
  assert_int_equal(litegpu_kernel_test_invoke(t), kTfLiteError);
  assert_contains(litegpu_kernel_test_error(t), "has no output");
  const litegpu_kernel_test_tensor out = {
      .type = kTfLiteFloat32, .dims = dims, .num_dims = 1};
  assert_int_equal(litegpu_kernel_test_add_output(t, &out), -1);
  assert_contains(litegpu_kernel_test_error(t), "after the first invoke");
  litegpu_kernel_test_delete(t);

  /* Values of the wrong size: 3 floats for a [2] input. */
  t = litegpu_kernel_test_create_operator(AtanOperator(), NULL, 0);
  const float three[3] = {1, 2, 3};
  const litegpu_kernel_test_tensor short_in = {.type = kTfLiteFloat32,
                                               .dims = dims,
                                               .num_dims = 1,
                                               .data = three,
                                               .bytes = sizeof(three)};
  litegpu_kernel_test_add_input(t, &short_in);
  litegpu_kernel_test_add_output(t, &out);
  assert_int_equal(litegpu_kernel_test_invoke(t), kTfLiteError);
  assert_contains(litegpu_kernel_test_error(t),
                  "input 0 holds 8 bytes, 12 were given");
  assert_null(litegpu_kernel_test_output(t, 0));
  assert_null(litegpu_kernel_test_output(t, 1));
  litegpu_kernel_test_delete(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_atan_operator_spelling),
      cmocka_unit_test(test_atan_registration_external_spelling),
      cmocka_unit_test(test_rerun_with_new_inputs),
      cmocka_unit_test(test_builtin_add_with_a_constant),
      cmocka_unit_test(test_builtin_int8_add),
      cmocka_unit_test(test_builtin_fully_connected_weights),
      cmocka_unit_test(test_prepare_failure_is_reported),
      cmocka_unit_test(test_builtin_shape_error),
      cmocka_unit_test(test_argument_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
