/* TRANSPOSE_CONV, BATCH_MATMUL and FULLY_CONNECTED's GEMM paths through the
 * kernel runner: hand-derived values, output-shape semantics (constant and
 * dynamic output_shape), broadcasting and transposes, every rejection
 * message, empty tensors, NaN and Inf, and seeded shapes on every
 * instruction set and thread count against double-precision loops written
 * here and the kernels' float references. (FULLY_CONNECTED's messages and
 * hand values are in test_kernels_basic.c.) */
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

#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/nn.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"
#include "tests/support/kernel_runner.h"
#include "tests/unit/nn_test_util.h"

static float g_buffer[1024];

static void set_dims(lg_kernel_runner* r, int index, const int* dims,
                     int rank) {
  TfLiteTensor* t = lg_kernel_runner_tensor(r, index);
  TfLiteIntArrayFree(t->dims);
  t->dims = TfLiteIntArrayCreate(rank);
  for (int i = 0; i < rank; ++i) t->dims->data[i] = dims[i];
}

/* ---- TRANSPOSE_CONV ----------------------------------------------------- */

typedef struct tc_case {
  lg_kernel_runner r;
  TfLiteTransposeConvParams params;
  int32_t shape[4];
  int output_shape, weights, input, bias, output;
} tc_case;

/* out_dims are the values of the output_shape input (kept in the case). */
static void tc_setup(tc_case* c, const int* out_dims, const int* w_dims,
                     const float* w, const int* in_dims, const float* in,
                     const float* bias, TfLitePadding padding, int stride_h,
                     int stride_w, TfLiteFusedActivation act) {
  c->params = (TfLiteTransposeConvParams){padding, stride_w, stride_h, act,
                                          kTfLiteFloat32};
  for (int i = 0; i < 4; ++i) c->shape[i] = out_dims[i];
  lg_kernel_runner_init(&c->r, lg_register_TRANSPOSE_CONV(), &c->params);
  c->output_shape = add_tensor(&c->r, kTfLiteInt32, (int[]){4}, 1, c->shape);
  c->weights = add_tensor(&c->r, kTfLiteFloat32, w_dims, 4, w);
  c->input = add_tensor(&c->r, kTfLiteFloat32, in_dims, 4, in);
  c->bias = bias != NULL
                ? add_tensor(&c->r, kTfLiteFloat32, (int[]){w_dims[0]}, 1, bias)
                : kTfLiteOptionalTensor;
  c->output = add_output(&c->r);
  lg_kernel_runner_set_inputs(
      &c->r, (int[]){c->output_shape, c->weights, c->input, c->bias},
      bias != NULL ? 4 : 3);
  lg_kernel_runner_set_outputs(&c->r, &c->output, 1);
}

static void tc_expect(tc_case* c, const float* want, int n) {
  run_ok(&c->r, "TRANSPOSE_CONV");
  const TfLiteTensor* out = lg_kernel_runner_tensor(&c->r, c->output);
  expect_shape(
      out, (const int[]){c->shape[0], c->shape[1], c->shape[2], c->shape[3]},
      4);
  expect_floats(out->data.f, want, n);
  lg_kernel_runner_release(&c->r);
}

static void test_tc_hand_values(void** state) {
  (void)state;
  tc_case c;
  /* Stride 2 VALID, 2x2 ones, input (1 2; 3 4) -> 4x4: each input pixel
   * fills its own 2x2 block (conv from 4x4 gives 2x2, padding 0). */
  const float in[] = {1, 2, 3, 4};
  tc_setup(&c, (int[]){1, 4, 4, 1}, (int[]){1, 2, 2, 1}, (float[]){1, 1, 1, 1},
           (int[]){1, 2, 2, 1}, in, NULL, kTfLitePaddingValid, 2, 2,
           kTfLiteActNone);
  tc_expect(&c, (float[]){1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, 16);
  /* Stride 1 SAME, 3x3 weights w[kh][kw] = 3 kh + kw + 1, input (1 2; 3 4),
   * output 2x2: padding 1 (conv from 2x2: total (2-1) + 3 - 2 = 2).
   * out[oy][ox] = sum in[iy][ix] w[oy - iy + 1][ox - ix + 1]:
   * (0,0) = 1*5 + 2*4 + 3*2 + 4*1 = 23; (0,1) = 1*6 + 2*5 + 3*3 + 4*2 = 33;
   * (1,0) = 1*8 + 2*7 + 3*5 + 4*4 = 53; (1,1) = 1*9 + 2*8 + 3*6 + 4*5 = 63.
   * Bias -30 and RELU: (0, 3, 23, 33). */
  const float w[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  tc_setup(&c, (int[]){1, 2, 2, 1}, (int[]){1, 3, 3, 1}, w, (int[]){1, 2, 2, 1},
           in, (float[]){-30}, kTfLitePaddingSame, 1, 1, kTfLiteActRelu);
  tc_expect(&c, (float[]){0, 3, 23, 33}, 4);
  /* Two input channels, two output channels, 1x1 weights:
   * o0 = c0 + c1, o1 = 2 c0 - c1 on the pixel (3, 1); stride 2 SAME to a
   * 2x1 output: the second row is reached by no tap (zeros + bias 0.5). */
  tc_setup(&c, (int[]){1, 2, 1, 2}, (int[]){2, 1, 1, 2}, (float[]){1, 1, 2, -1},
           (int[]){1, 1, 1, 2}, (float[]){3, 1}, (float[]){0.5f, 0.5f},
           kTfLitePaddingSame, 2, 1, kTfLiteActNone);
  tc_expect(&c, (float[]){4.5f, 5.5f, 0.5f, 0.5f}, 4);
}

static void test_tc_dynamic_output_shape(void** state) {
  (void)state;
  /* output_shape computed at run time: the output is dynamic and sized in
   * Invoke; same values as the first hand case. */
  tc_case c;
  const float in[] = {1, 2, 3, 4};
  tc_setup(&c, (int[]){1, 4, 4, 1}, (int[]){1, 2, 2, 1}, (float[]){1, 1, 1, 1},
           (int[]){1, 2, 2, 1}, in, NULL, kTfLitePaddingValid, 2, 2,
           kTfLiteActNone);
  make_variable(&c.r, c.output_shape);
  tc_expect(&c, (float[]){1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, 16);
  /* A bad value found only in Invoke. */
  tc_setup(&c, (int[]){2, 4, 4, 1}, (int[]){1, 2, 2, 1}, (float[]){1, 1, 1, 1},
           (int[]){1, 2, 2, 1}, in, NULL, kTfLitePaddingValid, 2, 2,
           kTfLiteActNone);
  make_variable(&c.r, c.output_shape);
  assert_int_equal(lg_kernel_runner_prepare(&c.r), kTfLiteOk);
  expect_error(&c.r, lg_kernel_runner_invoke(&c.r),
               "TRANSPOSE_CONV: output_shape [2,4,4,1] must have the input's "
               "batch 1 and the weights' output channels 1");
  lg_kernel_runner_release(&c.r);
}

static void test_tc_nan_inf_and_empty(void** state) {
  (void)state;
  tc_case c;
  /* Stride 1 VALID, 2x1 ones weights over a 2x1 input (NaN; inf) -> 3x1:
   * (NaN, NaN + inf = NaN, inf) and RELU6 keeps NaN, inf -> 6. */
  tc_setup(&c, (int[]){1, 3, 1, 1}, (int[]){1, 2, 1, 1}, (float[]){1, 1},
           (int[]){1, 2, 1, 1}, (float[]){NAN, INFINITY}, NULL,
           kTfLitePaddingValid, 1, 1, kTfLiteActRelu6);
  tc_expect(&c, (float[]){NAN, NAN, 6}, 3);
  /* Batch 0. */
  tc_setup(&c, (int[]){0, 4, 4, 1}, (int[]){1, 2, 2, 1}, g_buffer,
           (int[]){0, 2, 2, 1}, NULL, NULL, kTfLitePaddingValid, 2, 2,
           kTfLiteActNone);
  tc_expect(&c, NULL, 0);
}

static void tc_valid_case(tc_case* c) {
  tc_setup(c, (int[]){1, 6, 6, 3}, (int[]){3, 3, 3, 2}, g_buffer,
           (int[]){1, 3, 3, 2}, g_buffer, g_buffer, kTfLitePaddingSame, 2, 2,
           kTfLiteActNone);
}

static void tc_expect_error(tc_case* c, const char* message) {
  expect_error(&c->r, lg_kernel_runner_run(&c->r), message);
  lg_kernel_runner_release(&c->r);
}

static void test_tc_rejections(void** state) {
  (void)state;
  tc_case c;
  tc_valid_case(&c);
  run_ok(&c.r, "TRANSPOSE_CONV");
  lg_kernel_runner_release(&c.r);
  tc_valid_case(&c);
  c.r.node.builtin_data = NULL;
  tc_expect_error(&c,
                  "TRANSPOSE_CONV: missing TransposeConvOptions "
                  "parameters");
  tc_valid_case(&c);
  lg_kernel_runner_set_inputs(&c.r, (int[]){0, 1}, 2);
  tc_expect_error(&c, "TRANSPOSE_CONV: expected 3 to 4 inputs, got 2");
  tc_valid_case(&c);
  lg_kernel_runner_tensor(&c.r, c.output_shape)->type = kTfLiteInt64;
  tc_expect_error(&c,
                  "TRANSPOSE_CONV: output_shape type INT64 is not "
                  "supported (expected INT32)");
  /* int8 weights with float input (hybrid, version 2) need quantization
   * parameters; int16 input with float weights (16x8 needs INT8 weights
   * and an INT16 output). */
  tc_valid_case(&c);
  lg_kernel_runner_tensor(&c.r, c.weights)->type = kTfLiteInt8;
  tc_expect_error(&c,
                  "TRANSPOSE_CONV: weights tensor '(unnamed)' (INT8) has no "
                  "quantization");
  tc_valid_case(&c);
  lg_kernel_runner_tensor(&c.r, c.input)->type = kTfLiteInt16;
  tc_expect_error(&c,
                  "TRANSPOSE_CONV: INT16 input with filter FLOAT32, bias "
                  "FLOAT32 and output FLOAT32 is not supported (expected "
                  "INT8, INT64 or INT32 and INT16)");
  tc_valid_case(&c);
  lg_kernel_runner_tensor(&c.r, c.bias)->type = kTfLiteInt64;
  tc_expect_error(&c, "TRANSPOSE_CONV: bias type INT64 is not supported");
  tc_valid_case(&c);
  set_dims(&c.r, c.output_shape, (int[]){3}, 1);
  tc_expect_error(&c,
                  "TRANSPOSE_CONV: output_shape must hold 4 values, got "
                  "[3]");
  tc_valid_case(&c);
  set_dims(&c.r, c.weights, (int[]){3, 3, 2}, 3);
  tc_expect_error(&c, "TRANSPOSE_CONV: weights must be 4-D, got [3,3,2]");
  tc_valid_case(&c);
  set_dims(&c.r, c.input, (int[]){3, 3, 2}, 3);
  tc_expect_error(&c, "TRANSPOSE_CONV: input must be 4-D, got [3,3,2]");
  tc_valid_case(&c);
  set_dims(&c.r, c.input, (int[]){1, 3, 3, 4}, 4);
  tc_expect_error(&c,
                  "TRANSPOSE_CONV: input channels 4 differ from the "
                  "weights' input channels 2");
  tc_valid_case(&c);
  set_dims(&c.r, c.weights, (int[]){3, 0, 3, 2}, 4);
  tc_expect_error(&c,
                  "TRANSPOSE_CONV: weights shape [3,0,3,2] has an empty "
                  "window");
  tc_valid_case(&c);
  set_dims(&c.r, c.bias, (int[]){2}, 1);
  tc_expect_error(&c,
                  "TRANSPOSE_CONV: bias shape [2] does not hold 3 "
                  "elements (the weights' output channels)");
  tc_valid_case(&c);
  c.shape[3] = 4;
  tc_expect_error(&c,
                  "TRANSPOSE_CONV: output_shape [1,6,6,4] must have the "
                  "input's batch 1 and the weights' output channels 3");
  tc_valid_case(&c);
  c.shape[1] = -6;
  tc_expect_error(&c,
                  "TRANSPOSE_CONV: output_shape [1,-6,6,3] is negative "
                  "or too large");
  tc_valid_case(&c);
  c.shape[2] = 8;
  tc_expect_error(&c,
                  "TRANSPOSE_CONV: input 3x3 does not match output_shape "
                  "6x8: a SAME CONV_2D with stride 2x2 maps that to 3x4");
  tc_valid_case(&c);
  c.params.padding = kTfLitePaddingValid;
  tc_expect_error(&c,
                  "TRANSPOSE_CONV: input 3x3 does not match output_shape "
                  "6x6: a VALID CONV_2D with stride 2x2 maps that to 2x2");
  tc_valid_case(&c);
  c.params.stride_width = 0;
  tc_expect_error(&c, "TRANSPOSE_CONV: stride_w must be at least 1, got 0");
  tc_valid_case(&c);
  c.params.padding = kTfLitePaddingUnknown;
  tc_expect_error(&c, "TRANSPOSE_CONV: padding UNKNOWN (0) is not supported");
  tc_valid_case(&c);
  c.params.activation = kTfLiteActTanh;
  tc_expect_error(&c,
                  "TRANSPOSE_CONV: fused activation TANH (4) is not "
                  "supported");
}

/* A seeded TRANSPOSE_CONV case. */
typedef struct tc_spec {
  int batch, in_h, in_w, in_c, out_c, fh, fw, stride_h, stride_w;
  int out_h, out_w;
  TfLitePadding padding;
  TfLiteFusedActivation act;
  bool bias, variable_weights;
  int threads;
} tc_spec;

/* The geometry of a spec, with TFLite's padding (that of a conv from the
 * output size) worked out here. */
static lg_conv_geometry tc_spec_geometry(const tc_spec* s) {
  lg_conv_geometry g = {.batch = s->batch,
                        .in_h = s->in_h,
                        .in_w = s->in_w,
                        .in_c = s->in_c,
                        .out_h = s->out_h,
                        .out_w = s->out_w,
                        .out_c = s->out_c,
                        .filter_h = s->fh,
                        .filter_w = s->fw,
                        .filter_c = s->in_c,
                        .stride_h = s->stride_h,
                        .stride_w = s->stride_w,
                        .dilation_h = 1,
                        .dilation_w = 1,
                        .act_min = -INFINITY,
                        .act_max = INFINITY};
  const bool same = s->padding == kTfLitePaddingSame;
  const int conv_h = same ? (s->out_h + s->stride_h - 1) / s->stride_h
                          : (s->out_h - s->fh) / s->stride_h + 1;
  const int conv_w = same ? (s->out_w + s->stride_w - 1) / s->stride_w
                          : (s->out_w - s->fw) / s->stride_w + 1;
  const int th = (conv_h - 1) * s->stride_h + s->fh - s->out_h;
  const int tw = (conv_w - 1) * s->stride_w + s->fw - s->out_w;
  g.pad_top = th > 0 ? th / 2 : 0;
  g.pad_left = tw > 0 ? tw / 2 : 0;
  if (s->act == kTfLiteActRelu) g.act_min = 0.0f;
  if (s->act == kTfLiteActRelu6) g.act_min = 0.0f, g.act_max = 6.0f;
  return g;
}

/* The scatter form of the definition in double: want and tol per output. */
static void tc_double(const lg_conv_geometry* g, const float* in,
                      const float* w, const float* bias, double* want,
                      double* tol) {
  const int out_n = g->batch * g->out_h * g->out_w * g->out_c;
  double* mag = calloc((size_t)out_n + 1, sizeof(double));
  int* terms = calloc((size_t)out_n + 1, sizeof(int));
  assert_true(mag != NULL && terms != NULL);
  for (int i = 0; i < out_n; ++i) want[i] = 0.0;
  for (int n = 0; n < g->batch; ++n)
    for (int y = 0; y < g->in_h; ++y)
      for (int x = 0; x < g->in_w; ++x)
        for (int kh = 0; kh < g->filter_h; ++kh)
          for (int kw = 0; kw < g->filter_w; ++kw) {
            const int oy = y * g->stride_h - g->pad_top + kh;
            const int ox = x * g->stride_w - g->pad_left + kw;
            if (oy < 0 || oy >= g->out_h || ox < 0 || ox >= g->out_w) continue;
            const float* px =
                in + (((size_t)n * g->in_h + y) * g->in_w + x) * g->in_c;
            for (int o = 0; o < g->out_c; ++o) {
              const size_t oi =
                  (((size_t)n * g->out_h + oy) * g->out_w + ox) * g->out_c + o;
              const float* wk =
                  w +
                  (((size_t)o * g->filter_h + kh) * g->filter_w + kw) * g->in_c;
              for (int c = 0; c < g->in_c; ++c) {
                const double p = (double)px[c] * wk[c];
                want[oi] += p;
                mag[oi] += fabs(p);
                terms[oi]++;
              }
            }
          }
  for (int i = 0; i < out_n; ++i) {
    const double b = bias != NULL ? bias[i % g->out_c] : 0.0;
    want[i] = clamp_double(want[i] + b, g->act_min, g->act_max);
    tol[i] = sum_tolerance(terms[i], mag[i] + fabs(b));
  }
  free(mag);
  free(terms);
}

/* One seeded TRANSPOSE_CONV case on `isa`, against tc_double and
 * lg_transpose_conv_reference. */
static void check_tc_spec(const tc_spec* s, lg_gemm_isa isa, uint32_t seed) {
  const lg_conv_geometry g = tc_spec_geometry(s);
  const int out_n = s->batch * s->out_h * s->out_w * s->out_c;
  float* in =
      random_floats((size_t)s->batch * s->in_h * s->in_w * s->in_c, &seed);
  float* w = random_floats((size_t)s->out_c * s->fh * s->fw * s->in_c, &seed);
  float* bias = random_floats((size_t)s->out_c, &seed);
  double* want = malloc(sizeof(double) * ((size_t)out_n + 1));
  double* tol = malloc(sizeof(double) * ((size_t)out_n + 1));
  float* ref = malloc(sizeof(float) * ((size_t)out_n + 1));
  assert_true(want != NULL && tol != NULL && ref != NULL);
  tc_double(&g, in, w, s->bias ? bias : NULL, want, tol);
  lg_transpose_conv_reference(&g, in, w, s->bias ? bias : NULL, ref);

  tc_case c;
  const lg_gemm_isa saved = lg_gemm_isa_default();
  lg_gemm_isa_set_default(isa);
  tc_setup(&c, (int[]){s->batch, s->out_h, s->out_w, s->out_c},
           (int[]){s->out_c, s->fh, s->fw, s->in_c}, w,
           (int[]){s->batch, s->in_h, s->in_w, s->in_c}, in,
           s->bias ? bias : NULL, s->padding, s->stride_h, s->stride_w, s->act);
  if (s->variable_weights) make_variable(&c.r, c.weights);
  if (s->threads > 1) {
    assert_int_equal(lg_kernel_runner_set_threads(&c.r, s->threads), kTfLiteOk);
  }
  run_ok(&c.r, "TRANSPOSE_CONV");
  lg_gemm_isa_set_default(saved);
  const TfLiteTensor* out = lg_kernel_runner_tensor(&c.r, c.output);
  char what[128];
  snprintf(what, sizeof(what),
           "tc %s in [%d,%d,%d,%d] w %dx%d out_c %d stride %dx%d -> %dx%d "
           "threads %d",
           lg_gemm_isa_name(isa), s->batch, s->in_h, s->in_w, s->in_c, s->fh,
           s->fw, s->out_c, s->stride_h, s->stride_w, s->out_h, s->out_w,
           s->threads);
  expect_near(what, out->data.f, want, tol, out_n);
  expect_near_float(what, out->data.f, ref, tol, out_n);
  lg_kernel_runner_release(&c.r);
  free(in);
  free(w);
  free(bias);
  free(want);
  free(tol);
  free(ref);
}

static void test_tc_random(void** state) {
  (void)state;
  const tc_spec specs[] = {
      /* b  h  w  ic  oc fh fw sh sw oh  ow  padding act bias var threads */
      {1, 3, 3, 2, 3, 3, 3, 2, 2, 6, 6, kTfLitePaddingSame, kTfLiteActNone,
       true, false, 1},
      {2, 4, 5, 7, 17, 3, 3, 2, 2, 9, 11, kTfLitePaddingValid, kTfLiteActRelu,
       true, true, 2},
      {1, 7, 7, 33, 5, 4, 4, 2, 2, 14, 14, kTfLitePaddingSame, kTfLiteActRelu6,
       false, false, 3},
      {1, 5, 6, 13, 32, 2, 3, 1, 3, 6, 18, kTfLitePaddingValid, kTfLiteActNone,
       true, false, 2},
      {3, 2, 2, 1, 1, 5, 5, 3, 3, 6, 6, kTfLitePaddingSame, kTfLiteActNone,
       true, true, 1},
      /* Output pixels no tap reaches (zeros + bias). */
      {1, 2, 2, 3, 4, 1, 1, 3, 3, 6, 6, kTfLitePaddingSame, kTfLiteActNone,
       true, false, 1},
      /* 512K outputs: the gather splits rows over threads. */
      {1, 16, 16, 8, 128, 4, 4, 4, 4, 64, 64, kTfLitePaddingValid,
       kTfLiteActNone, true, false, 2},
  };
  uint32_t seed = 31u;
  for (int i = 0; i < ARRAY_SIZE(specs); ++i) {
    for (int isa = 0; isa < LG_GEMM_ISA_COUNT; ++isa) {
      if (lg_gemm_isa_supported((lg_gemm_isa)isa)) {
        check_tc_spec(&specs[i], (lg_gemm_isa)isa, seed + (uint32_t)i);
      }
    }
  }
}

/* ---- FULLY_CONNECTED on the GEMM ------------------------------------------
 */

/* Seeded FC against a double loop and lg_fully_connected_reference, with
 * the weights constant (packed in Prepare) or not. */
static void check_fc(int batch, int in_depth, int out_depth, bool bias,
                     bool variable_weights, int threads, lg_gemm_isa isa,
                     uint32_t seed) {
  float* in = random_floats((size_t)batch * in_depth, &seed);
  float* w = random_floats((size_t)out_depth * in_depth, &seed);
  float* b = random_floats((size_t)out_depth, &seed);
  const int n = batch * out_depth;
  double* want = malloc(sizeof(double) * (size_t)(n + 1));
  double* tol = malloc(sizeof(double) * (size_t)(n + 1));
  float* ref = malloc(sizeof(float) * (size_t)(n + 1));
  assert_true(want != NULL && tol != NULL && ref != NULL);
  for (int i = 0; i < batch; ++i) {
    for (int o = 0; o < out_depth; ++o) {
      double sum = bias ? b[o] : 0.0, mag = fabs(sum);
      for (int k = 0; k < in_depth; ++k) {
        const double p = (double)in[i * in_depth + k] * w[o * in_depth + k];
        sum += p;
        mag += fabs(p);
      }
      want[i * out_depth + o] = clamp_double(sum, 0.0, INFINITY);
      tol[i * out_depth + o] = sum_tolerance(in_depth, mag);
    }
  }
  lg_fully_connected_reference(batch, in_depth, out_depth, in, w,
                               bias ? b : NULL, 0.0f, INFINITY, ref);
  TfLiteFullyConnectedParams params = {.activation = kTfLiteActRelu};
  lg_kernel_runner r;
  const lg_gemm_isa saved = lg_gemm_isa_default();
  lg_gemm_isa_set_default(isa);
  lg_kernel_runner_init(&r, lg_register_FULLY_CONNECTED(), &params);
  if (threads > 1) {
    assert_int_equal(lg_kernel_runner_set_threads(&r, threads), kTfLiteOk);
  }
  const int ti =
      add_tensor(&r, kTfLiteFloat32, (int[]){batch, in_depth}, 2, in);
  const int tw =
      add_tensor(&r, kTfLiteFloat32, (int[]){out_depth, in_depth}, 2, w);
  if (variable_weights) make_variable(&r, tw);
  const int tb = bias ? add_tensor(&r, kTfLiteFloat32, (int[]){out_depth}, 1, b)
                      : kTfLiteOptionalTensor;
  const int to = add_output(&r);
  lg_kernel_runner_set_inputs(&r, (int[]){ti, tw, tb}, 3);
  lg_kernel_runner_set_outputs(&r, &to, 1);
  run_ok(&r, "FULLY_CONNECTED");
  lg_gemm_isa_set_default(saved);
  const TfLiteTensor* out = lg_kernel_runner_tensor(&r, to);
  expect_shape(out, (int[]){batch, out_depth}, 2);
  char what[96];
  snprintf(what, sizeof(what), "fc %s %dx%d->%d var %d threads %d",
           lg_gemm_isa_name(isa), batch, in_depth, out_depth, variable_weights,
           threads);
  expect_near(what, out->data.f, want, tol, n);
  expect_near_float(what, out->data.f, ref, tol, n);
  lg_kernel_runner_release(&r);
  free(in);
  free(w);
  free(b);
  free(want);
  free(tol);
  free(ref);
}

static void test_fc_gemm_paths(void** state) {
  (void)state;
  /* The last two are large enough (8M+ multiply-adds) to split over
   * threads: by columns (batch 2), by rows (batch 64). */
  const int shapes[][3] = {{1, 1, 1},     {1, 257, 1000}, {13, 255, 33},
                           {12, 7, 32},   {37, 300, 17},  {3, 513, 65},
                           {129, 16, 8},  {2, 1024, 31},  {2, 2048, 2100},
                           {64, 512, 300}};
  uint32_t seed = 404u;
  for (int isa = 0; isa < LG_GEMM_ISA_COUNT; ++isa) {
    if (!lg_gemm_isa_supported((lg_gemm_isa)isa)) continue;
    for (int s = 0; s < ARRAY_SIZE(shapes); ++s) {
      check_fc(shapes[s][0], shapes[s][1], shapes[s][2], s % 2 == 0, s % 3 == 1,
               s >= 8 ? 2 : 1 + s % 3, (lg_gemm_isa)isa, seed++);
    }
  }
}

/* ---- BATCH_MATMUL ----------------------------------------------------------
 */

typedef struct bmm_case {
  lg_kernel_runner r;
  TfLiteBatchMatMulParams params;
  int lhs, rhs, output;
} bmm_case;

static void bmm_setup(bmm_case* c, const int* ld, int lr, const float* lhs,
                      const int* rd, int rr, const float* rhs, bool adj_x,
                      bool adj_y) {
  c->params = (TfLiteBatchMatMulParams){adj_x, adj_y, false};
  lg_kernel_runner_init(&c->r, lg_register_BATCH_MATMUL(), &c->params);
  c->lhs = add_tensor(&c->r, kTfLiteFloat32, ld, lr, lhs);
  c->rhs = add_tensor(&c->r, kTfLiteFloat32, rd, rr, rhs);
  c->output = add_output(&c->r);
  lg_kernel_runner_set_inputs(&c->r, (int[]){c->lhs, c->rhs}, 2);
  lg_kernel_runner_set_outputs(&c->r, &c->output, 1);
}

static void bmm_expect(bmm_case* c, const int* dims, int rank,
                       const float* want, int n) {
  run_ok(&c->r, "BATCH_MATMUL");
  const TfLiteTensor* out = lg_kernel_runner_tensor(&c->r, c->output);
  expect_shape(out, dims, rank);
  expect_floats(out->data.f, want, n);
  lg_kernel_runner_release(&c->r);
}

static void test_bmm_hand_values(void** state) {
  (void)state;
  bmm_case c;
  /* [1 2 3; 4 5 6] [1 0; 0 1; 1 1] = [4 5; 10 11]. */
  const float l[] = {1, 2, 3, 4, 5, 6}, lt[] = {1, 4, 2, 5, 3, 6};
  const float r[] = {1, 0, 0, 1, 1, 1}, rt[] = {1, 0, 1, 0, 1, 1};
  const float want[] = {4, 5, 10, 11};
  bmm_setup(&c, (int[]){2, 3}, 2, l, (int[]){3, 2}, 2, r, false, false);
  bmm_expect(&c, (int[]){2, 2}, 2, want, 4);
  /* The same with each operand stored transposed. */
  bmm_setup(&c, (int[]){3, 2}, 2, lt, (int[]){3, 2}, 2, r, true, false);
  bmm_expect(&c, (int[]){2, 2}, 2, want, 4);
  bmm_setup(&c, (int[]){2, 3}, 2, l, (int[]){2, 3}, 2, rt, false, true);
  bmm_expect(&c, (int[]){2, 2}, 2, want, 4);
  bmm_setup(&c, (int[]){3, 2}, 2, lt, (int[]){2, 3}, 2, rt, true, true);
  bmm_expect(&c, (int[]){2, 2}, 2, want, 4);
  /* Broadcast [2,1,2,3] x [3,3,2] -> [2,3,2,2]: L1 = 2 L0; R1 = -R0,
   * R2 = e00 (picks column 0 of L): L0 R2 = [1 0; 4 0]. */
  float l2[12], r3[18];
  for (int i = 0; i < 6; ++i) l2[i] = l[i], l2[6 + i] = 2 * l[i];
  for (int i = 0; i < 6; ++i) r3[i] = r[i], r3[6 + i] = -r[i], r3[12 + i] = 0;
  r3[12] = 1;
  const float want2[] = {4, 5,  10, 11, -4, -5,  -10, -11, 1, 0, 4, 0,
                         8, 10, 20, 22, -8, -10, -20, -22, 2, 0, 8, 0};
  bmm_setup(&c, (int[]){2, 1, 2, 3}, 4, l2, (int[]){3, 3, 2}, 3, r3, false,
            false);
  bmm_expect(&c, (int[]){2, 3, 2, 2}, 4, want2, 24);
  /* Rank 5 with size-1 batch dims on both sides: [1,1,1,2,3] x [3,2]. */
  bmm_setup(&c, (int[]){1, 1, 1, 2, 3}, 5, l, (int[]){3, 2}, 2, r, false,
            false);
  bmm_expect(&c, (int[]){1, 1, 1, 2, 2}, 5, want, 4);
}

static void test_bmm_edges(void** state) {
  (void)state;
  bmm_case c;
  /* K = 0: every output is an empty sum, 0. */
  bmm_setup(&c, (int[]){2, 0}, 2, NULL, (int[]){0, 3}, 2, NULL, false, false);
  bmm_expect(&c, (int[]){2, 3}, 2, (float[]){0, 0, 0, 0, 0, 0}, 6);
  /* M = 0 and a zero batch dim. */
  bmm_setup(&c, (int[]){0, 3}, 2, NULL, (int[]){3, 2}, 2, g_buffer, false,
            false);
  bmm_expect(&c, (int[]){0, 2}, 2, NULL, 0);
  bmm_setup(&c, (int[]){0, 2, 3}, 3, NULL, (int[]){1, 3, 2}, 3, g_buffer, false,
            false);
  bmm_expect(&c, (int[]){0, 2, 2}, 3, NULL, 0);
  /* NaN and Inf: [NaN 1; inf 0] [1; 1] = [NaN; inf]; [inf -inf] [1; 1] =
   * NaN. */
  bmm_setup(&c, (int[]){3, 2}, 2,
            (float[]){NAN, 1, INFINITY, 0, INFINITY, -INFINITY}, (int[]){2, 1},
            2, (float[]){1, 1}, false, false);
  bmm_expect(&c, (int[]){3, 1}, 2, (float[]){NAN, INFINITY, NAN}, 3);
}

static void bmm_expect_error(bmm_case* c, const char* message) {
  expect_error(&c->r, lg_kernel_runner_run(&c->r), message);
  lg_kernel_runner_release(&c->r);
}

static void test_bmm_rejections(void** state) {
  (void)state;
  bmm_case c;
  bmm_setup(&c, (int[]){2, 3}, 2, g_buffer, (int[]){3, 2}, 2, g_buffer, false,
            false);
  lg_kernel_runner_set_inputs(&c.r, (int[]){0, 1, 1}, 3);
  bmm_expect_error(&c, "BATCH_MATMUL: expected 2 inputs, got 3");
  const struct {
    int which;
    TfLiteType type;
    const char* message;
  } types[] = {
      {0, kTfLiteInt8,
       "BATCH_MATMUL: INT8 lhs with rhs FLOAT32 and output FLOAT32 is not "
       "supported (expected all three INT8)"},
      {0, kTfLiteInt16,
       "BATCH_MATMUL: INT16 lhs with rhs FLOAT32 and output FLOAT32 is not "
       "supported"},
      {1, kTfLiteInt8, "BATCH_MATMUL: rhs type INT8 is not supported"},
      {2, kTfLiteInt32, "BATCH_MATMUL: output type INT32 is not supported"},
  };
  for (int i = 0; i < ARRAY_SIZE(types); ++i) {
    bmm_setup(&c, (int[]){2, 3}, 2, g_buffer, (int[]){3, 2}, 2, g_buffer, false,
              false);
    lg_kernel_runner_tensor(&c.r, types[i].which)->type = types[i].type;
    bmm_expect_error(&c, types[i].message);
  }
  bmm_setup(&c, (int[]){3}, 1, g_buffer, (int[]){3, 2}, 2, g_buffer, false,
            false);
  bmm_expect_error(&c, "BATCH_MATMUL: lhs must have rank 2 to 5, got [3]");
  bmm_setup(&c, (int[]){2, 3}, 2, g_buffer, (int[]){1, 1, 1, 1, 3, 2}, 6,
            g_buffer, false, false);
  bmm_expect_error(&c,
                   "BATCH_MATMUL: rhs must have rank 2 to 5, got "
                   "[1,1,1,1,3,2]");
  bmm_setup(&c, (int[]){2, 2, 3}, 3, g_buffer, (int[]){3, 3, 2}, 3, g_buffer,
            false, false);
  bmm_expect_error(&c,
                   "BATCH_MATMUL: batch dims of lhs [2,2,3] and rhs "
                   "[3,3,2] are not broadcastable");
  bmm_setup(&c, (int[]){2, 3}, 2, g_buffer, (int[]){2, 2}, 2, g_buffer, false,
            false);
  bmm_expect_error(&c,
                   "BATCH_MATMUL: lhs [2,3] and rhs [2,2] do not "
                   "contract: 3 != 2");
  bmm_setup(&c, (int[]){2, 3}, 2, g_buffer, (int[]){3, 2}, 2, g_buffer, true,
            false);
  bmm_expect_error(&c,
                   "BATCH_MATMUL: lhs [2,3] (adj_x) and rhs [3,2] do not "
                   "contract: 2 != 3");
  bmm_setup(&c, (int[]){2, 3}, 2, g_buffer, (int[]){3, 2}, 2, g_buffer, false,
            false);
  assert_int_equal(lg_kernel_runner_prepare(&c.r), kTfLiteOk);
  set_dims(&c.r, c.lhs, (int[]){1, 3}, 2);
  expect_error(&c.r, lg_kernel_runner_invoke(&c.r),
               "BATCH_MATMUL: tensor shapes changed since prepare");
  lg_kernel_runner_release(&c.r);
}

/* Seeded BATCH_MATMUL against a double loop and lg_batch_matmul_reference. */
typedef struct bmm_spec {
  int lr, rr;
  int ld[5], rd[5];
  bool adj_x, adj_y, variable_rhs;
  int threads;
} bmm_spec;

/* The geometry of a spec, both shapes extended to the output's rank. */
static lg_batch_matmul_geometry bmm_spec_geometry(const bmm_spec* s) {
  lg_batch_matmul_geometry g;
  memset(&g, 0, sizeof(g));
  g.rank = s->lr > s->rr ? s->lr : s->rr;
  g.adj_x = s->adj_x;
  g.adj_y = s->adj_y;
  for (int d = 0; d < g.rank; ++d) {
    const int li = d - (g.rank - s->lr), ri = d - (g.rank - s->rr);
    g.lhs[d] = li >= 0 ? s->ld[li] : 1;
    g.rhs[d] = ri >= 0 ? s->rd[ri] : 1;
    g.out[d] = g.lhs[d] == 1 ? g.rhs[d] : g.lhs[d];
  }
  g.out[g.rank - 2] = s->adj_x ? g.lhs[g.rank - 1] : g.lhs[g.rank - 2];
  g.out[g.rank - 1] = s->adj_y ? g.rhs[g.rank - 2] : g.rhs[g.rank - 1];
  return g;
}

static size_t product(const int* dims, int n) {
  size_t p = 1;
  for (int i = 0; i < n; ++i) p *= (size_t)dims[i];
  return p;
}

/* The products in double: want and tol per output element. */
static void bmm_double(const lg_batch_matmul_geometry* g, const float* lhs,
                       const float* rhs, double* want, double* tol) {
  const int R = g->rank;
  const int m = g->out[R - 2], n = g->out[R - 1];
  const int k = g->adj_x ? g->lhs[R - 2] : g->lhs[R - 1];
  const int batches = (int)product(g->out, R - 2);
  for (int b = 0; b < batches; ++b) {
    /* Batch coordinates, each operand's own index (1 repeats). */
    size_t lb = 0, rb = 0, ls = 1, rs = 1;
    for (int d = R - 3, rest = b; d >= 0; --d) {
      const int coord = rest % g->out[d];
      rest /= g->out[d];
      lb += (size_t)(g->lhs[d] == 1 ? 0 : coord) * ls;
      rb += (size_t)(g->rhs[d] == 1 ? 0 : coord) * rs;
      ls *= (size_t)g->lhs[d];
      rs *= (size_t)g->rhs[d];
    }
    const float* x = lhs + lb * (size_t)m * k;
    const float* y = rhs + rb * (size_t)k * n;
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        double sum = 0.0, mag = 0.0;
        for (int p = 0; p < k; ++p) {
          const double xv = g->adj_x ? x[p * m + i] : x[i * k + p];
          const double yv = g->adj_y ? y[j * k + p] : y[p * n + j];
          sum += xv * yv;
          mag += fabs(xv * yv);
        }
        want[(size_t)b * m * n + i * n + j] = sum;
        tol[(size_t)b * m * n + i * n + j] = sum_tolerance(k, mag);
      }
    }
  }
}

/* Seeded BATCH_MATMUL against bmm_double and lg_batch_matmul_reference. */
static void check_bmm(const bmm_spec* s, lg_gemm_isa isa, uint32_t seed) {
  const lg_batch_matmul_geometry g = bmm_spec_geometry(s);
  const int out_n = (int)product(g.out, g.rank);
  float* lhs = random_floats(product(g.lhs, g.rank), &seed);
  float* rhs = random_floats(product(g.rhs, g.rank), &seed);
  double* want = malloc(sizeof(double) * (size_t)(out_n + 1));
  double* tol = malloc(sizeof(double) * (size_t)(out_n + 1));
  float* ref = malloc(sizeof(float) * (size_t)(out_n + 1));
  assert_true(want != NULL && tol != NULL && ref != NULL);
  bmm_double(&g, lhs, rhs, want, tol);
  lg_batch_matmul_reference(&g, lhs, rhs, ref);
  bmm_case c;
  const lg_gemm_isa saved = lg_gemm_isa_default();
  lg_gemm_isa_set_default(isa);
  bmm_setup(&c, s->ld, s->lr, lhs, s->rd, s->rr, rhs, s->adj_x, s->adj_y);
  if (s->variable_rhs) make_variable(&c.r, c.rhs);
  if (s->threads > 1) {
    assert_int_equal(lg_kernel_runner_set_threads(&c.r, s->threads), kTfLiteOk);
  }
  run_ok(&c.r, "BATCH_MATMUL");
  lg_gemm_isa_set_default(saved);
  const TfLiteTensor* out = lg_kernel_runner_tensor(&c.r, c.output);
  expect_shape(out, g.out, g.rank);
  char what[96];
  snprintf(what, sizeof(what), "bmm %s rank %d m %d n %d adj %d%d t %d",
           lg_gemm_isa_name(isa), g.rank, g.out[g.rank - 2], g.out[g.rank - 1],
           s->adj_x, s->adj_y, s->threads);
  expect_near(what, out->data.f, want, tol, out_n);
  expect_near_float(what, out->data.f, ref, tol, out_n);
  lg_kernel_runner_release(&c.r);
  free(lhs);
  free(rhs);
  free(want);
  free(tol);
  free(ref);
}

static void test_bmm_random(void** state) {
  (void)state;
  const bmm_spec specs[] = {
      {2, 2, {13, 17}, {17, 33}, false, false, false, 1},
      {3, 3, {4, 7, 5}, {4, 7, 9}, true, false, true, 2},
      {4, 2, {2, 3, 12, 31}, {32, 31}, false, true, false, 3},
      {3, 4, {1, 6, 257}, {2, 3, 5, 6}, true, true, false, 2},
      {5, 5, {2, 1, 2, 3, 4}, {1, 3, 1, 4, 5}, false, false, true, 2},
      {2, 3, {129, 64}, {3, 64, 70}, false, false, false, 2},
      {3, 3, {8, 16, 16}, {8, 16, 16}, false, true, true, 2},
      {2, 2, {1, 300}, {300, 1}, false, false, false, 1},
      /* Split by batch (40 small products), and inside each product. */
      {3, 3, {40, 64, 64}, {40, 64, 64}, false, true, false, 2},
      {3, 2, {2, 300, 200}, {200, 150}, false, false, true, 3},
  };
  uint32_t seed = 5150u;
  for (int i = 0; i < ARRAY_SIZE(specs); ++i) {
    for (int isa = 0; isa < LG_GEMM_ISA_COUNT; ++isa) {
      if (lg_gemm_isa_supported((lg_gemm_isa)isa)) {
        check_bmm(&specs[i], (lg_gemm_isa)isa, seed + (uint32_t)i);
      }
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tc_hand_values),
      cmocka_unit_test(test_tc_dynamic_output_shape),
      cmocka_unit_test(test_tc_nan_inf_and_empty),
      cmocka_unit_test(test_tc_rejections),
      cmocka_unit_test(test_tc_random),
      cmocka_unit_test(test_fc_gemm_paths),
      cmocka_unit_test(test_bmm_hand_values),
      cmocka_unit_test(test_bmm_edges),
      cmocka_unit_test(test_bmm_rejections),
      cmocka_unit_test(test_bmm_random),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
