/* RESHAPE, SQUEEZE, EXPAND_DIMS, CONCATENATION, PACK, UNPACK, SPLIT and
 * SPLIT_V through the kernel runner, plus the shape family's rows of the
 * builtin table: hand-derived values, every parameter, element
 * types of every size, empty tensors, constant and non-constant (dynamic)
 * shape inputs, every rejection message, and seeded random cases against
 * reference index loops written here. The runner checks guard bytes after
 * every output (also after a dynamic output's resize in Invoke).
 *
 * SLICE, STRIDED_SLICE, PAD, PADV2, MIRROR_PAD, TRANSPOSE and the copy engine
 * are in test_kernels_shape_slice.c; GATHER, TILE, BROADCAST_TO,
 * DEPTH_TO_SPACE and SPACE_TO_DEPTH in test_kernels_shape_gather.c.
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

static const float kF12[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

/* ---- RESHAPE ------------------------------------------------------------*/

static void test_reshape_from_params_and_tensor(void** state) {
  (void)state;
  sh_run s;
  /* Params [3,-1] on 12 elements: -1 = 12 / 3 = 4. Data order unchanged. */
  TfLiteReshapeParams p = {.shape = {3, -1}, .num_dimensions = 2};
  sh_init(&s, lg_register_RESHAPE(), &p);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 6), kF12);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(3, 4), kF12, 4);
  lg_kernel_runner_release(&s.r);
  /* A shape tensor wins over the params: [2,2,3]. */
  const int32_t shape[] = {2, 2, 3};
  sh_init(&s, lg_register_RESHAPE(), &p);
  sh_const(&s, kTfLiteFloat32, DIMS(12), kF12);
  sh_const(&s, kTfLiteInt32, DIMS(3), shape);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(2, 2, 3), kF12, 4);
  lg_kernel_runner_release(&s.r);
  /* INT64 shape [-1] with int16 data (2-byte elements). */
  const int64_t shape64[] = {-1};
  const int16_t v16[] = {1, -2, 3, -4, 5, -6};
  sh_init(&s, lg_register_RESHAPE(), NULL);
  sh_const(&s, kTfLiteInt16, DIMS(1, 2, 3), v16);
  sh_const(&s, kTfLiteInt64, DIMS(1), shape64);
  sh_out(&s, kTfLiteInt16);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(6), v16, 2);
  lg_kernel_runner_release(&s.r);
}

static void test_reshape_scalars_and_empty(void** state) {
  (void)state;
  sh_run s;
  /* Legacy [0] in the params means a scalar. */
  TfLiteReshapeParams p = {.shape = {0}, .num_dimensions = 1};
  const float one[] = {7.5f};
  sh_init(&s, lg_register_RESHAPE(), &p);
  sh_const(&s, kTfLiteFloat32, DIMS(1, 1), one);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, SCALAR, one, 4);
  lg_kernel_runner_release(&s.r);
  /* An empty shape tensor: also a scalar. */
  const int32_t none[1] = {0};
  sh_init(&s, lg_register_RESHAPE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(1), one);
  sh_const(&s, kTfLiteInt32, DIMS(0), none);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, SCALAR, one, 4);
  lg_kernel_runner_release(&s.r);
  /* Empty input [0,6] to [0,-1,2]: the -1 is 6 / 2 = 3 (LiteRT's rule
   * for a 0 among the given dims). */
  const int32_t zs[] = {0, -1, 2};
  sh_init(&s, lg_register_RESHAPE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(0, 6), NULL);
  sh_const(&s, kTfLiteInt32, DIMS(3), zs);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect_shape(sh_output(&s, 0), DIMS(0, 3, 2));
  lg_kernel_runner_release(&s.r);
  /* [0,3] to [5,0,-1]: 3 / 5 rounds down to 0. */
  const int32_t zs2[] = {5, 0, -1};
  sh_init(&s, lg_register_RESHAPE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(0, 3), NULL);
  sh_const(&s, kTfLiteInt32, DIMS(3), zs2);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect_shape(sh_output(&s, 0), DIMS(5, 0, 0));
  lg_kernel_runner_release(&s.r);
}

static void test_reshape_dynamic_shape(void** state) {
  (void)state;
  sh_run s;
  /* A non-constant shape makes the output dynamic; Invoke resizes it. */
  int32_t shape[] = {4, -1};
  sh_init(&s, lg_register_RESHAPE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(12), kF12);
  sh_var(&s, kTfLiteInt32, DIMS(2), shape);
  sh_out(&s, kTfLiteFloat32);
  assert_int_equal(lg_kernel_runner_prepare(&s.r), kTfLiteOk);
  assert_int_equal(sh_output(&s, 0)->allocation_type, kTfLiteDynamic);
  assert_int_equal(lg_kernel_runner_invoke(&s.r), kTfLiteOk);
  sh_expect(&s, 0, DIMS(4, 3), kF12, 4);
  /* A new shape value takes effect at the next Invoke without Prepare. */
  shape[0] = 6;
  assert_int_equal(lg_kernel_runner_invoke(&s.r), kTfLiteOk);
  sh_expect(&s, 0, DIMS(6, 2), kF12, 4);
  /* A bad value fails at Invoke. */
  shape[0] = 5;
  assert_int_not_equal(lg_kernel_runner_invoke(&s.r), kTfLiteOk);
  assert_non_null(strstr(lg_kernel_runner_errors(&s.r),
                         "RESHAPE: cannot reshape input [12] (12 elements) "
                         "to [5,-1]"));
  lg_kernel_runner_release(&s.r);
}

static void test_reshape_rejections(void** state) {
  (void)state;
  sh_run s;
  const int32_t two[] = {-1, -1}, neg[] = {2, -3}, bad[] = {5};
  const int32_t* shapes[] = {two, neg, bad};
  const int ranks[] = {2, 2, 1};
  const char* msgs[] = {"RESHAPE: new shape [-1,-1] has more than one -1",
                        "RESHAPE: new shape [2,-3] has a negative dimension",
                        "RESHAPE: cannot reshape input [12] (12 elements) to "
                        "[5]"};
  for (int i = 0; i < 3; ++i) {
    sh_init(&s, lg_register_RESHAPE(), NULL);
    sh_const(&s, kTfLiteFloat32, DIMS(12), kF12);
    sh_const(&s, kTfLiteInt32, (const int[]){ranks[i]}, 1, shapes[i]);
    sh_out(&s, kTfLiteFloat32);
    sh_fails(&s, msgs[i]);
  }
  /* [2,3] to [0,-1]: the -1 is inferred but 0 elements != 6. */
  const int32_t zero[] = {0, -1};
  sh_init(&s, lg_register_RESHAPE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 3), kF12);
  sh_const(&s, kTfLiteInt32, DIMS(2), zero);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "RESHAPE: cannot reshape input [2,3] (6 elements) to [0,-1]");
  /* A 2-D shape tensor with no params to fall back to. */
  const int32_t shape2d[] = {3, 4};
  sh_init(&s, lg_register_RESHAPE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(12), kF12);
  sh_const(&s, kTfLiteInt32, DIMS(1, 2), shape2d);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "RESHAPE: shape input must be 1-D, got [1,2]");
  /* ... but with params, they are used (TFLite's rule). */
  TfLiteReshapeParams p = {.shape = {4, 3}, .num_dimensions = 2};
  sh_init(&s, lg_register_RESHAPE(), &p);
  sh_const(&s, kTfLiteFloat32, DIMS(12), kF12);
  sh_const(&s, kTfLiteInt32, DIMS(1, 2), shape2d);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(4, 3), kF12, 4);
  lg_kernel_runner_release(&s.r);
  /* Types. */
  const float shape_f[] = {12};
  sh_init(&s, lg_register_RESHAPE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(12), kF12);
  sh_const(&s, kTfLiteFloat32, DIMS(1), shape_f);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "RESHAPE: shape type FLOAT32 is not supported (expected one "
           "of INT32, INT64)");
  sh_init(&s, lg_register_RESHAPE(), &p);
  sh_const(&s, kTfLiteFloat16, DIMS(12), kF12);
  sh_out(&s, kTfLiteFloat16);
  sh_fails(&s,
           "RESHAPE: input type FLOAT16 is not supported (expected one "
           "of FLOAT32, INT32, UINT8, INT64, STRING, BOOL, INT16, INT8)");
  sh_init(&s, lg_register_RESHAPE(), &p);
  sh_const(&s, kTfLiteFloat32, DIMS(12), kF12);
  sh_out(&s, kTfLiteInt32);
  sh_fails(&s, "RESHAPE: output type INT32 differs from input type FLOAT32");
  sh_init(&s, lg_register_RESHAPE(), &p);
  sh_out(&s, kTfLiteInt32);
  sh_fails(&s, "RESHAPE: expected 1 to 2 inputs, got 0");
}

/* ---- SQUEEZE / EXPAND_DIMS ----------------------------------------------*/

static void test_squeeze(void** state) {
  (void)state;
  sh_run s;
  /* No dims listed: every dim of 1 goes, [1,2,1,3,1] -> [2,3]. */
  TfLiteSqueezeParams all = {.num_squeeze_dims = 0};
  sh_init(&s, lg_register_SQUEEZE(), &all);
  sh_const(&s, kTfLiteFloat32, DIMS(1, 2, 1, 3, 1), kF12);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(2, 3), kF12, 4);
  lg_kernel_runner_release(&s.r);
  /* Listed dims, negative and repeated: -1 is dim 4, 2 once more. */
  TfLiteSqueezeParams some = {.squeeze_dims = {-1, 2, 2},
                              .num_squeeze_dims = 3};
  const uint8_t b[] = {1, 0, 1, 1, 0, 0};
  sh_init(&s, lg_register_SQUEEZE(), &some);
  sh_const(&s, kTfLiteBool, DIMS(1, 2, 1, 3, 1), b);
  sh_out(&s, kTfLiteBool);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(1, 2, 3), b, 1);
  lg_kernel_runner_release(&s.r);
  /* [1,1] -> scalar. */
  sh_init(&s, lg_register_SQUEEZE(), &all);
  sh_const(&s, kTfLiteFloat32, DIMS(1, 1), kF12);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, SCALAR, kF12, 4);
  lg_kernel_runner_release(&s.r);
  /* Rejections. */
  TfLiteSqueezeParams wrong = {.squeeze_dims = {0}, .num_squeeze_dims = 1};
  sh_init(&s, lg_register_SQUEEZE(), &wrong);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 1), kF12);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "SQUEEZE: cannot squeeze dim 0 of input [2,1]: its size is 2, "
           "not 1");
  TfLiteSqueezeParams far = {.squeeze_dims = {-3}, .num_squeeze_dims = 1};
  sh_init(&s, lg_register_SQUEEZE(), &far);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 1), kF12);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "SQUEEZE: squeeze dim -3 is out of range for input [2,1]");
}

static void test_expand_dims(void** state) {
  (void)state;
  sh_run s;
  /* [2,3]: axis 0 -> [1,2,3], 2 -> [2,3,1], -1 -> [2,3,1], -3 -> [1,2,3],
   * 1 (INT64) -> [2,1,3]. */
  const struct {
    int64_t axis;
    TfLiteType type;
    int dims[3];
  } cases[] = {{0, kTfLiteInt32, {1, 2, 3}},
               {2, kTfLiteInt32, {2, 3, 1}},
               {-1, kTfLiteInt32, {2, 3, 1}},
               {-3, kTfLiteInt32, {1, 2, 3}},
               {1, kTfLiteInt64, {2, 1, 3}}};
  for (int i = 0; i < ARRAY_SIZE(cases); ++i) {
    const int32_t a32 = (int32_t)cases[i].axis;
    const void* axis = cases[i].type == kTfLiteInt32
                           ? (const void*)&a32
                           : (const void*)&cases[i].axis;
    sh_init(&s, lg_register_EXPAND_DIMS(), NULL);
    sh_const(&s, kTfLiteInt8, DIMS(2, 3), "abcdef");
    sh_const(&s, cases[i].type, SCALAR, axis);
    sh_out(&s, kTfLiteInt8);
    sh_ok(&s);
    sh_expect(&s, 0, cases[i].dims, 3, "abcdef", 1);
    lg_kernel_runner_release(&s.r);
  }
  /* A non-constant axis: dynamic output, resized at Invoke. */
  int32_t axis = 1;
  sh_init(&s, lg_register_EXPAND_DIMS(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(4), kF12);
  sh_var(&s, kTfLiteInt32, DIMS(1), &axis);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  assert_int_equal(sh_output(&s, 0)->allocation_type, kTfLiteDynamic);
  sh_expect(&s, 0, DIMS(4, 1), kF12, 4);
  lg_kernel_runner_release(&s.r);
  /* Rejections. */
  const int32_t far = 3, two[] = {0, 1};
  sh_init(&s, lg_register_EXPAND_DIMS(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 3), kF12);
  sh_const(&s, kTfLiteInt32, SCALAR, &far);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "EXPAND_DIMS: axis 3 is out of range [-3, 2] for an input of "
           "rank 2");
  sh_init(&s, lg_register_EXPAND_DIMS(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 3), kF12);
  sh_const(&s, kTfLiteInt32, DIMS(2), two);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "EXPAND_DIMS: axis has 2 elements, more than 1");
  sh_init(&s, lg_register_EXPAND_DIMS(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(1, 1, 1, 1, 1, 1, 1, 1), kF12);
  sh_const(&s, kTfLiteInt32, SCALAR, &far);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "EXPAND_DIMS: the output rank 9 is above the supported 8");
}

/* ---- CONCATENATION / PACK -----------------------------------------------*/

static void test_concat_axes(void** state) {
  (void)state;
  sh_run s;
  /* a = [[0,1],[2,3]] (2x2), b = [[10],[11]] (2x1), c = 2x0 (empty).
   * axis 1 (and -1): [[0,1,10],[2,3,11]]. */
  const float a[] = {0, 1, 2, 3}, b[] = {10, 11};
  const float want1[] = {0, 1, 10, 2, 3, 11};
  const int axes[] = {1, -1};
  for (int i = 0; i < 2; ++i) {
    TfLiteConcatenationParams p = {.axis = axes[i]};
    sh_init(&s, lg_register_CONCATENATION(), &p);
    sh_const(&s, kTfLiteFloat32, DIMS(2, 2), a);
    sh_const(&s, kTfLiteFloat32, DIMS(2, 1), b);
    sh_const(&s, kTfLiteFloat32, DIMS(2, 0), NULL);
    sh_out(&s, kTfLiteFloat32);
    sh_ok(&s);
    sh_expect(&s, 0, DIMS(2, 3), want1, 4);
    lg_kernel_runner_release(&s.r);
  }
  /* axis 0 (and -2) of a (2x2) and a' (1x2) = [[0,1],[2,3],[0,1]]. */
  const float want0[] = {0, 1, 2, 3, 0, 1};
  const int axes0[] = {0, -2};
  for (int i = 0; i < 2; ++i) {
    TfLiteConcatenationParams p = {.axis = axes0[i]};
    sh_init(&s, lg_register_CONCATENATION(), &p);
    sh_const(&s, kTfLiteFloat32, DIMS(2, 2), a);
    sh_const(&s, kTfLiteFloat32, DIMS(1, 2), a);
    sh_out(&s, kTfLiteFloat32);
    sh_ok(&s);
    sh_expect(&s, 0, DIMS(3, 2), want0, 4);
    lg_kernel_runner_release(&s.r);
  }
  /* One input: a copy. INT64 elements. */
  const int64_t v[] = {INT64_MIN, -1, 0, INT64_MAX};
  TfLiteConcatenationParams p = {.axis = 0};
  sh_init(&s, lg_register_CONCATENATION(), &p);
  sh_const(&s, kTfLiteInt64, DIMS(4), v);
  sh_out(&s, kTfLiteInt64);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(4), v, 8);
  lg_kernel_runner_release(&s.r);
}

static void test_concat_activation(void** state) {
  (void)state;
  sh_run s;
  /* [-2, 0.5, 7, NaN] ++ [-0.5, 3]: RELU -> [0, 0.5, 7, NaN, 0, 3], RELU6
   * -> [0, 0.5, 6, NaN, 0, 3], RELU_N1_TO_1 -> [-1, 0.5, 1, NaN, -0.5, 1]
   * (NaN passes every clamp). */
  const float a[] = {-2.0f, 0.5f, 7.0f, NAN}, b[] = {-0.5f, 3.0f};
  const struct {
    TfLiteFusedActivation act;
    float want[6];
  } cases[] = {
      {kTfLiteActRelu, {0, 0.5f, 7, NAN, 0, 3}},
      {kTfLiteActRelu6, {0, 0.5f, 6, NAN, 0, 3}},
      {kTfLiteActReluN1To1, {-1, 0.5f, 1, NAN, -0.5f, 1}},
      {kTfLiteActNone, {-2, 0.5f, 7, NAN, -0.5f, 3}},
  };
  for (int i = 0; i < ARRAY_SIZE(cases); ++i) {
    TfLiteConcatenationParams p = {.axis = 0, .activation = cases[i].act};
    sh_init(&s, lg_register_CONCATENATION(), &p);
    sh_const(&s, kTfLiteFloat32, DIMS(4), a);
    sh_const(&s, kTfLiteFloat32, DIMS(2), b);
    sh_out(&s, kTfLiteFloat32);
    sh_ok(&s);
    sh_expect_shape(sh_output(&s, 0), DIMS(6));
    sh_expect_floats(sh_output(&s, 0)->data.f, cases[i].want, 6);
    lg_kernel_runner_release(&s.r);
  }
  TfLiteConcatenationParams tanh_p = {.activation = kTfLiteActTanh};
  sh_init(&s, lg_register_CONCATENATION(), &tanh_p);
  sh_const(&s, kTfLiteFloat32, DIMS(4), a);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "CONCATENATION: fused activation TANH (4) is not supported");
  TfLiteConcatenationParams relu = {.activation = kTfLiteActRelu};
  const int32_t i32[] = {1, 2};
  sh_init(&s, lg_register_CONCATENATION(), &relu);
  sh_const(&s, kTfLiteInt32, DIMS(2), i32);
  sh_out(&s, kTfLiteInt32);
  sh_fails(&s,
           "CONCATENATION: fused activation RELU is only supported for "
           "FLOAT32, got INT32");
}

static void test_concat_rejections(void** state) {
  (void)state;
  sh_run s;
  TfLiteConcatenationParams p = {.axis = 1};
  sh_init(&s, lg_register_CONCATENATION(), &p);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 2), kF12);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 2), kF12);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "CONCATENATION: input 1 shape [3,2] does not match input 0 "
           "shape [2,2] outside axis 1");
  sh_init(&s, lg_register_CONCATENATION(), &p);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 2), kF12);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 2, 1), kF12);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "input 1 shape [2,2,1] does not match input 0 shape [2,2]");
  sh_init(&s, lg_register_CONCATENATION(), &p);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 2), kF12);
  sh_const(&s, kTfLiteInt32, DIMS(2, 2), kF12);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "CONCATENATION: input 1 type INT32 differs from input 0 type "
           "FLOAT32");
  TfLiteConcatenationParams p2 = {.axis = 2};
  sh_init(&s, lg_register_CONCATENATION(), &p2);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 2), kF12);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "CONCATENATION: axis 2 is out of range for inputs of rank 2");
  TfLiteConcatenationParams p0 = {.axis = 0};
  sh_init(&s, lg_register_CONCATENATION(), &p0);
  sh_const(&s, kTfLiteFloat32, SCALAR, kF12);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "CONCATENATION: axis 0 is out of range for inputs of rank 0");
  /* Quantized inputs whose scale differs from the output's. */
  const int8_t q[] = {1, 2};
  sh_init(&s, lg_register_CONCATENATION(), &p0);
  sh_const(&s, kTfLiteInt8, DIMS(2), q);
  const int second = sh_const(&s, kTfLiteInt8, DIMS(2), q);
  const int out = sh_out(&s, kTfLiteInt8);
  sh_tensor(&s, 0)->params = (TfLiteQuantizationParams){0.5f, 3};
  sh_tensor(&s, second)->params = (TfLiteQuantizationParams){0.25f, 3};
  sh_tensor(&s, out)->params = (TfLiteQuantizationParams){0.5f, 3};
  sh_fails(&s,
           "CONCATENATION: input 1 quantization (scale 0.25, zero point "
           "3) differs from the output's (scale 0.5, zero point 3)");
  sh_init(&s, lg_register_CONCATENATION(), &p0);
  sh_const(&s, kTfLiteString, DIMS(2), q);
  sh_out(&s, kTfLiteString);
  sh_fails(&s, "CONCATENATION: input type STRING is not supported");
}

static void test_pack(void** state) {
  (void)state;
  sh_run s;
  /* a = [0,1,2], b = [10,11,12] (int32). axis 0: [[0,1,2],[10,11,12]];
   * axis 1 (and -1): [[0,10],[1,11],[2,12]]. */
  const int32_t a[] = {0, 1, 2}, b[] = {10, 11, 12};
  const int32_t want0[] = {0, 1, 2, 10, 11, 12};
  const int32_t want1[] = {0, 10, 1, 11, 2, 12};
  const struct {
    int axis;
    int dims[2];
    const int32_t* want;
  } cases[] = {{0, {2, 3}, want0},
               {-2, {2, 3}, want0},
               {1, {3, 2}, want1},
               {-1, {3, 2}, want1}};
  for (int i = 0; i < ARRAY_SIZE(cases); ++i) {
    TfLitePackParams p = {.values_count = 2, .axis = cases[i].axis};
    sh_init(&s, lg_register_PACK(), &p);
    sh_const(&s, kTfLiteInt32, DIMS(3), a);
    sh_const(&s, kTfLiteInt32, DIMS(3), b);
    sh_out(&s, kTfLiteInt32);
    sh_ok(&s);
    sh_expect(&s, 0, cases[i].dims, 2, cases[i].want, 4);
    lg_kernel_runner_release(&s.r);
  }
  /* Scalars pack into a vector. */
  TfLitePackParams p3 = {.values_count = 3, .axis = 0};
  sh_init(&s, lg_register_PACK(), &p3);
  for (int i = 0; i < 3; ++i) sh_const(&s, kTfLiteInt32, SCALAR, &b[i]);
  sh_out(&s, kTfLiteInt32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(3), b, 4);
  lg_kernel_runner_release(&s.r);
  /* Rejections. */
  sh_init(&s, lg_register_PACK(), &p3);
  sh_const(&s, kTfLiteInt32, DIMS(3), a);
  sh_out(&s, kTfLiteInt32);
  sh_fails(&s, "PACK: values_count 3 differs from the 1 inputs");
  TfLitePackParams p2 = {.values_count = 2, .axis = 2};
  sh_init(&s, lg_register_PACK(), &p2);
  sh_const(&s, kTfLiteInt32, DIMS(3), a);
  sh_const(&s, kTfLiteInt32, DIMS(3), b);
  sh_out(&s, kTfLiteInt32);
  sh_fails(&s, "PACK: axis 2 is out of range [-2, 1] for inputs of rank 1");
  p2.axis = 0;
  sh_init(&s, lg_register_PACK(), &p2);
  sh_const(&s, kTfLiteInt32, DIMS(3), a);
  sh_const(&s, kTfLiteInt32, DIMS(1, 3), b);
  sh_out(&s, kTfLiteInt32);
  sh_fails(&s, "PACK: input 1 shape [1,3] differs from input 0 shape [3]");
  sh_init(&s, lg_register_PACK(), &p2);
  sh_const(&s, kTfLiteBool, DIMS(3), a);
  sh_const(&s, kTfLiteBool, DIMS(3), b);
  sh_out(&s, kTfLiteBool);
  sh_fails(&s, "PACK: input type BOOL is not supported");
}

/* Random CONCATENATION cases against an index-mapping reference. */
static void test_concat_random(void** state) {
  (void)state;
  uint32_t seed = 77u;
  for (int trial = 0; trial < 60; ++trial) {
    const int rank = sh_rng_int(&seed, 1, 5);
    const int axis = sh_rng_int(&seed, 0, rank - 1);
    const int count = sh_rng_int(&seed, 1, 4);
    int dims[5], sizes[4], total = 0;
    for (int k = 0; k < rank; ++k) dims[k] = sh_rng_int(&seed, 1, 4);
    float* data[4];
    for (int i = 0; i < count; ++i) {
      sizes[i] = sh_rng_int(&seed, 0, 5);
      total += sizes[i];
      data[i] = malloc(sizeof(float) * 1024);
      sh_iota(data[i], 1024, 100.0f * (float)i);
    }
    TfLiteConcatenationParams p = {.axis = trial % 2 ? axis - rank : axis};
    sh_run s;
    sh_init(&s, lg_register_CONCATENATION(), &p);
    for (int i = 0; i < count; ++i) {
      int d[5];
      memcpy(d, dims, sizeof(d));
      d[axis] = sizes[i];
      sh_const(&s, kTfLiteFloat32, d, rank, data[i]);
    }
    sh_out(&s, kTfLiteFloat32);
    sh_ok(&s);
    int out_dims[5];
    memcpy(out_dims, dims, sizeof(out_dims));
    out_dims[axis] = total;
    sh_expect_shape(sh_output(&s, 0), out_dims, rank);
    /* Reference: output index -> (input, index along its axis). */
    int64_t n = 1;
    for (int k = 0; k < rank; ++k) n *= out_dims[k];
    const float* got = sh_output(&s, 0)->data.f;
    for (int64_t f = 0; f < n; ++f) {
      int idx[5];
      sh_unravel(f, out_dims, rank, idx);
      int which = 0, along = idx[axis];
      while (along >= sizes[which]) along -= sizes[which++];
      int d[5];
      memcpy(d, dims, sizeof(d));
      d[axis] = sizes[which];
      idx[axis] = along;
      int64_t src = 0;
      for (int k = 0; k < rank; ++k) src = src * d[k] + idx[k];
      if (got[f] != data[which][src]) {
        fail_msg("trial %d: output %lld = %g, want %g", trial, (long long)f,
                 (double)got[f], (double)data[which][src]);
      }
    }
    lg_kernel_runner_release(&s.r);
    for (int i = 0; i < count; ++i) free(data[i]);
  }
}

/* ---- UNPACK / SPLIT / SPLIT_V -------------------------------------------*/

static void test_unpack(void** state) {
  (void)state;
  sh_run s;
  /* x = [[0,1,2],[3,4,5]]: axis 0 -> [0,1,2], [3,4,5]; axis 1 (and -1) ->
   * [0,3], [1,4], [2,5]. uint8 elements. */
  const uint8_t x[] = {0, 1, 2, 3, 4, 5};
  TfLiteUnpackParams p0 = {.num = 2, .axis = 0};
  sh_init(&s, lg_register_UNPACK(), &p0);
  sh_const(&s, kTfLiteUInt8, DIMS(2, 3), x);
  sh_out(&s, kTfLiteUInt8);
  sh_out(&s, kTfLiteUInt8);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(3), (const uint8_t[]){0, 1, 2}, 1);
  sh_expect(&s, 1, DIMS(3), (const uint8_t[]){3, 4, 5}, 1);
  lg_kernel_runner_release(&s.r);
  const int axes[] = {1, -1};
  for (int a = 0; a < 2; ++a) {
    TfLiteUnpackParams p1 = {.num = 3, .axis = axes[a]};
    sh_init(&s, lg_register_UNPACK(), &p1);
    sh_const(&s, kTfLiteUInt8, DIMS(2, 3), x);
    for (int i = 0; i < 3; ++i) sh_out(&s, kTfLiteUInt8);
    sh_ok(&s);
    for (int i = 0; i < 3; ++i) {
      const uint8_t want[] = {(uint8_t)i, (uint8_t)(i + 3)};
      sh_expect(&s, i, DIMS(2), want, 1);
    }
    lg_kernel_runner_release(&s.r);
  }
  /* Rejections. */
  sh_init(&s, lg_register_UNPACK(), &p0);
  sh_const(&s, kTfLiteUInt8, DIMS(2, 3), x);
  sh_out(&s, kTfLiteUInt8);
  sh_fails(&s, "UNPACK: num 2 differs from the 1 outputs");
  TfLiteUnpackParams p3 = {.num = 2, .axis = 1};
  sh_init(&s, lg_register_UNPACK(), &p3);
  sh_const(&s, kTfLiteUInt8, DIMS(2, 3), x);
  sh_out(&s, kTfLiteUInt8);
  sh_out(&s, kTfLiteUInt8);
  sh_fails(&s, "UNPACK: dim 1 of input [2,3] is 3, but num is 2");
  TfLiteUnpackParams p4 = {.num = 2, .axis = 2};
  sh_init(&s, lg_register_UNPACK(), &p4);
  sh_const(&s, kTfLiteUInt8, DIMS(2, 3), x);
  sh_out(&s, kTfLiteUInt8);
  sh_out(&s, kTfLiteUInt8);
  sh_fails(&s, "UNPACK: axis 2 is out of range for input [2,3]");
  sh_init(&s, lg_register_UNPACK(), &p0);
  sh_const(&s, kTfLiteInt64, DIMS(2, 3), x);
  sh_out(&s, kTfLiteInt64);
  sh_out(&s, kTfLiteInt64);
  sh_fails(&s, "UNPACK: input type INT64 is not supported");
  TfLiteUnpackParams none = {.num = 0, .axis = 0};
  sh_init(&s, lg_register_UNPACK(), &none);
  sh_const(&s, kTfLiteUInt8, DIMS(0, 3), x);
  sh_fails(&s, "UNPACK: the number of pieces must be at least 1, got 0");
}

static void test_split(void** state) {
  (void)state;
  sh_run s;
  /* x = 2x4 of 0..7 split in 2 along axis 1 (and -1): [[0,1],[4,5]] and
   * [[2,3],[6,7]]. */
  const int32_t axes[] = {1, -1};
  TfLiteSplitParams p = {.num_splits = 2};
  for (int a = 0; a < 2; ++a) {
    sh_init(&s, lg_register_SPLIT(), &p);
    sh_const(&s, kTfLiteInt32, SCALAR, &axes[a]);
    sh_const(&s, kTfLiteFloat32, DIMS(2, 4), kF12);
    sh_out(&s, kTfLiteFloat32);
    sh_out(&s, kTfLiteFloat32);
    sh_ok(&s);
    sh_expect(&s, 0, DIMS(2, 2), (const float[]){0, 1, 4, 5}, 4);
    sh_expect(&s, 1, DIMS(2, 2), (const float[]){2, 3, 6, 7}, 4);
    lg_kernel_runner_release(&s.r);
  }
  /* A non-constant INT64 axis 0: dynamic outputs [1,4] each. */
  int64_t axis0 = 0;
  sh_init(&s, lg_register_SPLIT(), &p);
  sh_var(&s, kTfLiteInt64, DIMS(1), &axis0);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 4), kF12);
  sh_out(&s, kTfLiteFloat32);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  assert_int_equal(sh_output(&s, 1)->allocation_type, kTfLiteDynamic);
  sh_expect(&s, 0, DIMS(1, 4), kF12, 4);
  sh_expect(&s, 1, DIMS(1, 4), kF12 + 4, 4);
  lg_kernel_runner_release(&s.r);
  /* Rejections. */
  const int32_t one = 1;
  TfLiteSplitParams p3 = {.num_splits = 3};
  sh_init(&s, lg_register_SPLIT(), &p3);
  sh_const(&s, kTfLiteInt32, SCALAR, &one);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 4), kF12);
  for (int i = 0; i < 3; ++i) sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "SPLIT: dim 1 of input [2,4] (size 4) does not split into 3 "
           "equal pieces");
  sh_init(&s, lg_register_SPLIT(), &p3);
  sh_const(&s, kTfLiteInt32, SCALAR, &one);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 4), kF12);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "SPLIT: num_splits 3 differs from the 1 outputs");
  const int32_t far = 2;
  sh_init(&s, lg_register_SPLIT(), &p);
  sh_const(&s, kTfLiteInt32, SCALAR, &far);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 4), kF12);
  sh_out(&s, kTfLiteFloat32);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "SPLIT: axis 2 is out of range for an input of rank 2");
  sh_init(&s, lg_register_SPLIT(), &p);
  sh_const(&s, kTfLiteInt32, SCALAR, &one);
  sh_const(&s, kTfLiteBool, DIMS(2, 4), kF12);
  sh_out(&s, kTfLiteBool);
  sh_out(&s, kTfLiteBool);
  sh_fails(&s, "SPLIT: input type BOOL is not supported");
}

static void test_split_v(void** state) {
  (void)state;
  sh_run s;
  /* 12 int16 values split [3, -1, 0, 2] along axis 0: the -1 is
   * 12 - 5 = 7, the 0 an empty piece. */
  const int16_t x[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  const int32_t sizes[] = {3, -1, 0, 2};
  const int32_t axis = 0;
  TfLiteSplitVParams p = {.num_splits = 4};
  sh_init(&s, lg_register_SPLIT_V(), &p);
  sh_const(&s, kTfLiteInt16, DIMS(12), x);
  sh_const(&s, kTfLiteInt32, DIMS(4), sizes);
  sh_const(&s, kTfLiteInt32, SCALAR, &axis);
  for (int i = 0; i < 4; ++i) sh_out(&s, kTfLiteInt16);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(3), x, 2);
  sh_expect(&s, 1, DIMS(7), x + 3, 2);
  sh_expect_shape(sh_output(&s, 2), DIMS(0));
  sh_expect(&s, 3, DIMS(2), x + 10, 2);
  lg_kernel_runner_release(&s.r);
  /* INT64 sizes, non-constant, along axis -1 of [2,3]: [1,2] ->
   * [[0],[3]] and [[1,2],[4,5]]. */
  int64_t sizes64[] = {1, 2};
  const int32_t last = -1;
  TfLiteSplitVParams p2 = {.num_splits = 2};
  sh_init(&s, lg_register_SPLIT_V(), &p2);
  sh_const(&s, kTfLiteInt16, DIMS(2, 3), x);
  sh_var(&s, kTfLiteInt64, DIMS(2), sizes64);
  sh_const(&s, kTfLiteInt32, SCALAR, &last);
  sh_out(&s, kTfLiteInt16);
  sh_out(&s, kTfLiteInt16);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(2, 1), (const int16_t[]){0, 3}, 2);
  sh_expect(&s, 1, DIMS(2, 2), (const int16_t[]){1, 2, 4, 5}, 2);
  lg_kernel_runner_release(&s.r);
}

static void test_split_v_rejections(void** state) {
  (void)state;
  sh_run s;
  const int16_t x[] = {0, 1, 2, 3, 4, 5};
  const int32_t sizes[] = {3, -1, 0};
  const int32_t last = -1;
  TfLiteSplitVParams p2 = {.num_splits = 2};
  /* Rejections. */
  const struct {
    int32_t sizes[2];
    const char* msg;
  } bad[] = {
      {{-1, -1},
       "SPLIT_V: size_splits[1] is -1 (sizes must be >= 0, with at "
       "most one -1)"},
      {{2, 2}, "SPLIT_V: size_splits add up to 4, but the axis dim is 3"},
      {{5, -1}, "SPLIT_V: size_splits add up to 5, but the axis dim is 3"},
      {{-2, 5}, "SPLIT_V: size_splits[0] is -2"},
  };
  for (int i = 0; i < ARRAY_SIZE(bad); ++i) {
    sh_init(&s, lg_register_SPLIT_V(), &p2);
    sh_const(&s, kTfLiteInt16, DIMS(2, 3), x);
    sh_const(&s, kTfLiteInt32, DIMS(2), bad[i].sizes);
    sh_const(&s, kTfLiteInt32, SCALAR, &last);
    sh_out(&s, kTfLiteInt16);
    sh_out(&s, kTfLiteInt16);
    sh_fails(&s, bad[i].msg);
  }
  sh_init(&s, lg_register_SPLIT_V(), &p2);
  sh_const(&s, kTfLiteInt16, DIMS(2, 3), x);
  sh_const(&s, kTfLiteInt32, DIMS(3), sizes);
  sh_const(&s, kTfLiteInt32, SCALAR, &last);
  sh_out(&s, kTfLiteInt16);
  sh_out(&s, kTfLiteInt16);
  sh_fails(&s, "SPLIT_V: size_splits must be 1-D with 2 elements, got [3]");
  sh_init(&s, lg_register_SPLIT_V(), &p2);
  sh_const(&s, kTfLiteInt16, DIMS(2, 3), x);
  sh_const(&s, kTfLiteFloat32, DIMS(2), kF12);
  sh_const(&s, kTfLiteInt32, SCALAR, &last);
  sh_out(&s, kTfLiteInt16);
  sh_out(&s, kTfLiteInt16);
  sh_fails(&s, "SPLIT_V: size_splits type FLOAT32 is not supported");
}

/* ---- Limits and state ---------------------------------------------------*/

static void test_concat_limits(void** state) {
  (void)state;
  sh_run s;
  /* Three [2^30] inputs (no data: Prepare reads only dims). */
  const int big = 1 << 30;
  TfLiteConcatenationParams c = {.axis = 0};
  sh_init(&s, lg_register_CONCATENATION(), &c);
  for (int i = 0; i < 3; ++i) sh_const(&s, kTfLiteFloat32, DIMS(big), NULL);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "CONCATENATION: the output axis size 3221225472 is too large");
  TfLitePackParams p = {.values_count = 3, .axis = 0};
  sh_init(&s, lg_register_PACK(), &p);
  for (int i = 0; i < 3; ++i) sh_const(&s, kTfLiteFloat32, DIMS(big), NULL);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "PACK: the output has 3221225472 elements, above 2147483647");
  /* Input 0's quantization differs from the output's. */
  const int8_t q[] = {1};
  sh_init(&s, lg_register_PACK(), &(TfLitePackParams){.values_count = 1});
  sh_const(&s, kTfLiteInt8, DIMS(1), q);
  const int out = sh_out(&s, kTfLiteInt8);
  sh_tensor(&s, out)->params = (TfLiteQuantizationParams){0.5f, 1};
  sh_fails(&s, "PACK: input 0 quantization differs from the output's");
}

static void test_reshape_limits(void** state) {
  (void)state;
  sh_run s;
  const int64_t huge[] = {(int64_t)1 << 40};
  sh_init(&s, lg_register_RESHAPE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(12), kF12);
  sh_const(&s, kTfLiteInt64, DIMS(1), huge);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "RESHAPE: new shape has dimension 1099511627776");
  TfLiteReshapeParams nine = {.num_dimensions = 9};
  sh_init(&s, lg_register_RESHAPE(), &nine);
  sh_const(&s, kTfLiteFloat32, DIMS(12), kF12);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "RESHAPE: new_shape has 9 dimensions");
  TfLiteSqueezeParams many = {.num_squeeze_dims = 9};
  sh_init(&s, lg_register_SQUEEZE(), &many);
  sh_const(&s, kTfLiteFloat32, DIMS(12), kF12);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "SQUEEZE: squeeze_dims has 9 entries");
  /* A constant shape without data; an empty axis. */
  sh_init(&s, lg_register_RESHAPE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(12), kF12);
  const int shape = sh_const(&s, kTfLiteInt32, DIMS(2), NULL);
  sh_tensor(&s, shape)->allocation_type = kTfLiteMmapRo;
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "RESHAPE: shape has no data");
  TfLiteSplitParams two = {.num_splits = 2};
  sh_init(&s, lg_register_SPLIT(), &two);
  sh_const(&s, kTfLiteInt32, DIMS(0), kF12);
  sh_const(&s, kTfLiteFloat32, DIMS(12), kF12);
  sh_out(&s, kTfLiteFloat32);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "SPLIT: axis must hold 1 element, got 0");
}

/* Every kernel refuses Prepare without its node data (init out of
 * memory). */
static void test_no_node_data(void** state) {
  (void)state;
  const TfLiteRegistration* (*regs[])(void) = {
      lg_register_RESHAPE,
      lg_register_SQUEEZE,
      lg_register_EXPAND_DIMS,
      lg_register_CONCATENATION,
      lg_register_PACK,
      lg_register_UNPACK,
      lg_register_SPLIT,
      lg_register_SPLIT_V,
      lg_register_SLICE,
      lg_register_STRIDED_SLICE,
      lg_register_PAD,
      lg_register_PADV2,
      lg_register_MIRROR_PAD,
      lg_register_TRANSPOSE,
      lg_register_GATHER,
      lg_register_TILE,
      lg_register_BROADCAST_TO,
      lg_register_DEPTH_TO_SPACE,
      lg_register_SPACE_TO_DEPTH,
  };
  TfLiteSplitParams one = {.num_splits = 1}; /* SPLIT checks it first */
  for (int i = 0; i < ARRAY_SIZE(regs); ++i) {
    sh_run s;
    sh_init(&s, regs[i](), &one);
    sh_out(&s, kTfLiteFloat32);
    s.r.initialized = true; /* init "ran" and returned NULL */
    const TfLiteStatus status = lg_kernel_runner_prepare(&s.r);
    assert_int_not_equal(status, kTfLiteOk);
    if (strstr(lg_kernel_runner_errors(&s.r),
               "no kernel data (out of memory "
               "in init)") == NULL) {
      fail_msg("registration %d: %s", i, lg_kernel_runner_errors(&s.r));
    }
    s.r.initialized = false;
    lg_kernel_runner_release(&s.r);
  }
}

/* Changes tensor `index`'s dims (after Prepare, as a caller resizing without
 * a new Prepare would). */
static void change_dims(sh_run* s, int index, const int* dims, int rank) {
  TfLiteTensor* t = sh_tensor(s, index);
  TfLiteIntArrayFree(t->dims);
  t->dims = TfLiteIntArrayCreate(rank);
  for (int i = 0; i < rank; ++i) t->dims->data[i] = dims[i];
}

/* Invoke refuses inputs whose size changed since Prepare, and inputs that
 * lost their data. */
static void test_changed_shapes(void** state) {
  (void)state;
  sh_run s;
  TfLiteReshapeParams p = {.shape = {-1}, .num_dimensions = 1};
  const TfLiteRegistration* regs[] = {
      lg_register_RESHAPE(), lg_register_CONCATENATION(), lg_register_UNPACK()};
  TfLiteConcatenationParams c = {.axis = 0};
  TfLiteUnpackParams u = {.num = 1, .axis = 0};
  void* params[] = {&p, &c, &u};
  for (int i = 0; i < 3; ++i) {
    sh_init(&s, regs[i], params[i]);
    const int in = sh_const(&s, kTfLiteFloat32, DIMS(1, 6), kF12);
    sh_out(&s, kTfLiteFloat32);
    assert_int_equal(lg_kernel_runner_prepare(&s.r), kTfLiteOk);
    change_dims(&s, in, DIMS(1, 7));
    assert_int_not_equal(lg_kernel_runner_invoke(&s.r), kTfLiteOk);
    assert_non_null(strstr(lg_kernel_runner_errors(&s.r),
                           "tensor shapes changed since prepare"));
    lg_kernel_runner_release(&s.r);
  }
  /* Data gone: a non-empty input with NULL data. */
  sh_init(&s, lg_register_RESHAPE(), &p);
  const int in = sh_const(&s, kTfLiteFloat32, DIMS(2, 3), kF12);
  sh_out(&s, kTfLiteFloat32);
  assert_int_equal(lg_kernel_runner_prepare(&s.r), kTfLiteOk);
  sh_tensor(&s, in)->data.raw = NULL;
  assert_int_not_equal(lg_kernel_runner_invoke(&s.r), kTfLiteOk);
  assert_non_null(
      strstr(lg_kernel_runner_errors(&s.r), "RESHAPE: input has no data"));
  lg_kernel_runner_release(&s.r);
}

/* ---- Registrations ------------------------------------------------------*/

static void test_shape_table(void** state) {
  (void)state;
  const struct {
    int32_t code;
    int lo, hi;
  } rows[] = {
      {kTfLiteBuiltinReshape, 1, 1},      {kTfLiteBuiltinSqueeze, 1, 2},
      {kTfLiteBuiltinExpandDims, 1, 1},   {kTfLiteBuiltinConcatenation, 1, 7},
      {kTfLiteBuiltinPack, 1, 5},         {kTfLiteBuiltinUnpack, 1, 6},
      {kTfLiteBuiltinSplit, 1, 5},        {kTfLiteBuiltinSplitV, 1, 3},
      {kTfLiteBuiltinSlice, 1, 8},        {kTfLiteBuiltinStridedSlice, 1, 8},
      {kTfLiteBuiltinPad, 1, 6},          {kTfLiteBuiltinPadv2, 1, 6},
      {kTfLiteBuiltinMirrorPad, 1, 3},    {kTfLiteBuiltinTranspose, 1, 9},
      {kTfLiteBuiltinGather, 1, 8},       {kTfLiteBuiltinTile, 1, 3},
      {kTfLiteBuiltinBroadcastTo, 2, 4},  {kTfLiteBuiltinDepthToSpace, 1, 2},
      {kTfLiteBuiltinSpaceToDepth, 1, 2},
  };
  for (int i = 0; i < ARRAY_SIZE(rows); ++i) {
    const lg_builtin_kernel* k =
        lg_builtin_kernel_find(rows[i].code, rows[i].hi, NULL, NULL);
    if (k == NULL)
      fail_msg("op %d version %d not found", rows[i].code, rows[i].hi);
    assert_int_equal(k->registration()->builtin_code, rows[i].code);
    assert_non_null(
        lg_builtin_kernel_find(rows[i].code, rows[i].lo, NULL, NULL));
    int lo = 0, hi = 0;
    assert_null(lg_builtin_kernel_find(rows[i].code, rows[i].hi + 1, &lo, &hi));
    assert_int_equal(lo, rows[i].lo);
    assert_int_equal(hi, rows[i].hi);
  }
  assert_null(lg_builtin_kernel_find(kTfLiteBuiltinBroadcastTo, 1, NULL, NULL));
}

static void test_invoke_before_prepare(void** state) {
  (void)state;
  const TfLiteRegistration* regs[] = {
      lg_register_RESHAPE(),   lg_register_CONCATENATION(),
      lg_register_SPLIT(),     lg_register_GATHER(),
      lg_register_TILE(),      lg_register_DEPTH_TO_SPACE(),
      lg_register_SLICE(),     lg_register_PAD(),
      lg_register_TRANSPOSE(), lg_register_STRIDED_SLICE(),
  };
  for (int i = 0; i < ARRAY_SIZE(regs); ++i) {
    sh_run s;
    sh_init(&s, regs[i], NULL);
    s.r.node.user_data = regs[i]->init(&s.r.context, NULL, 0);
    s.r.initialized = true;
    assert_int_not_equal(regs[i]->invoke(&s.r.context, &s.r.node), kTfLiteOk);
    assert_non_null(strstr(lg_kernel_runner_errors(&s.r),
                           "invoked before a successful prepare"));
    lg_kernel_runner_release(&s.r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reshape_from_params_and_tensor),
      cmocka_unit_test(test_reshape_scalars_and_empty),
      cmocka_unit_test(test_reshape_dynamic_shape),
      cmocka_unit_test(test_reshape_rejections),
      cmocka_unit_test(test_squeeze),
      cmocka_unit_test(test_expand_dims),
      cmocka_unit_test(test_concat_axes),
      cmocka_unit_test(test_concat_activation),
      cmocka_unit_test(test_concat_rejections),
      cmocka_unit_test(test_pack),
      cmocka_unit_test(test_concat_random),
      cmocka_unit_test(test_unpack),
      cmocka_unit_test(test_split),
      cmocka_unit_test(test_split_v),
      cmocka_unit_test(test_split_v_rejections),
      cmocka_unit_test(test_concat_limits),
      cmocka_unit_test(test_reshape_limits),
      cmocka_unit_test(test_no_node_data),
      cmocka_unit_test(test_changed_shapes),
      cmocka_unit_test(test_shape_table),
      cmocka_unit_test(test_invoke_before_prepare),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
