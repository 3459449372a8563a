#define _POSIX_C_SOURCE 200809L
/* CONV_2D and DEPTHWISE_CONV_2D on the GPU delegate (OpenCL, PoCL here)
 * against CPU-only runs of the same one-op models: the 1x1 fast path
 * (blocks of 1, 2 and 3 vectors of 16 channels, both work orders, pixel
 * tails), the general window path (padding, strides, dilations, 3-channel
 * first layers, 1x1 with a stride), depthwise with every channel mode
 * (vectors, a scalar tail, one input channel broadcast), batches,
 * activations, and a bias that is absent or given as -1. Grouped
 * convolutions and runtime filters must stay on the CPU with a reason.
 * Needs an OpenCL device: without one the tests fail (never skip).
 *
 * Bound: |gpu - cpu| <= 1e-5 * max(1, |cpu|) per element. Inputs lie in
 * [-1, 1] and weights in [-0.5, 0.5] (smaller for the longest sums), so no
 * sum cancels badly. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "litegpu/gpu_delegate.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/delegates/gpu/delegate.h"

typedef struct capture {
  char text[16384];
  size_t length;
} capture;

static void capture_report(void* user_data, const char* format, va_list args) {
  capture* c = user_data;
  if (c->length >= sizeof(c->text) - 2) return;
  int n =
      vsnprintf(c->text + c->length, sizeof(c->text) - c->length, format, args);
  if (n > 0) c->length += (size_t)n;
  if (c->length > sizeof(c->text) - 2) c->length = sizeof(c->text) - 2;
  c->text[c->length++] = '\n';
  c->text[c->length] = '\0';
}

/* Seeded values in [-scale, scale]. */
static void fill(float* v, size_t n, uint32_t seed, float scale) {
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = ((float)(seed >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
  }
}

/* One convolution: the op, shapes and params. */
typedef struct conv_case {
  bool depthwise;
  int batch, h, w, in_c;
  int out_c;    /* depthwise: in_c * multiplier */
  int filter_c; /* CONV_2D: the filter's input channels (in_c unless grouped) */
  int kh, kw;
  int stride_h, stride_w, dil_h, dil_w;
  TfLitePadding padding;
  TfLiteFusedActivation act;
  int bias; /* 0: absent (2 inputs), 1: present, -1: input index -1 */
  bool runtime_filter;
  float weight_scale; /* weights in [-scale, scale]; 0 means 0.5 */
} conv_case;

static int out_size(TfLitePadding padding, int in, int k, int stride, int dil) {
  const int effective = (k - 1) * dil + 1;
  return padding == kTfLitePaddingSame ? (in + stride - 1) / stride
                                       : (in - effective + stride) / stride;
}

typedef struct built_model {
  void* data;
  size_t size;
  TfLiteModel* model;
} built_model;

static int32_t add_float_tensor(lg_model_writer* w, const char* name,
                                const int32_t* shape) {
  lg_writer_tensor t = {
      .name = name, .type = kTfLiteFloat32, .shape = shape, .num_dims = 4};
  return lg_model_writer_add_tensor(w, &t);
}

static void build(const conv_case* c, built_model* m) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  assert_non_null(w);
  const int oh = out_size(c->padding, c->h, c->kh, c->stride_h, c->dil_h);
  const int ow = out_size(c->padding, c->w, c->kw, c->stride_w, c->dil_w);
  const int32_t in_shape[4] = {c->batch, c->h, c->w, c->in_c};
  const int32_t out_shape[4] = {c->batch, oh, ow, c->out_c};
  const int32_t f_shape[4] = {c->depthwise ? 1 : c->out_c, c->kh, c->kw,
                              c->depthwise ? c->out_c : c->filter_c};
  const int32_t b_shape[1] = {c->out_c};
  const size_t nf = (size_t)f_shape[0] * c->kh * c->kw * f_shape[3];
  float* f = malloc(sizeof(float) * nf);
  float* b = malloc(sizeof(float) * (size_t)c->out_c);
  fill(f, nf, 17, c->weight_scale > 0 ? c->weight_scale : 0.5f);
  fill(b, (size_t)c->out_c, 29, 0.5f);
  const int32_t x = add_float_tensor(w, "x", in_shape);
  const int32_t filter =
      c->runtime_filter
          ? add_float_tensor(w, "f", f_shape)
          : lg_model_writer_add_const_tensor(w, "f", kTfLiteFloat32, f_shape, 4,
                                             f, nf * sizeof(float));
  int32_t bias = -1;
  if (c->bias == 1) {
    bias =
        lg_model_writer_add_const_tensor(w, "b", kTfLiteFloat32, b_shape, 1, b,
                                         (size_t)c->out_c * sizeof(float));
  }
  free(f);
  free(b);
  const int32_t y = add_float_tensor(w, "y", out_shape);
  const TfLiteConvParams conv = {.padding = c->padding,
                                 .stride_width = c->stride_w,
                                 .stride_height = c->stride_h,
                                 .activation = c->act,
                                 .dilation_width_factor = c->dil_w,
                                 .dilation_height_factor = c->dil_h};
  const TfLiteDepthwiseConvParams dw = {.padding = c->padding,
                                        .stride_width = c->stride_w,
                                        .stride_height = c->stride_h,
                                        .depth_multiplier = c->out_c / c->in_c,
                                        .activation = c->act,
                                        .dilation_width_factor = c->dil_w,
                                        .dilation_height_factor = c->dil_h};
  const int32_t inputs[3] = {x, filter, bias};
  assert_true(
      lg_model_writer_add_operator(
          w,
          c->depthwise ? kTfLiteBuiltinDepthwiseConv2d : kTfLiteBuiltinConv2d,
          1, inputs, c->bias == 0 ? 2 : 3, &y, 1,
          c->depthwise ? (const void*)&dw : (const void*)&conv) >= 0);
  const int32_t graph_inputs[2] = {x, filter};
  lg_model_writer_set_inputs(w, graph_inputs, c->runtime_filter ? 2 : 1);
  lg_model_writer_set_outputs(w, &y, 1);
  assert_int_equal(lg_model_writer_finish(w, &m->data, &m->size), kTfLiteOk);
  lg_model_writer_destroy(w);
  m->model = TfLiteModelCreate(m->data, m->size);
  assert_non_null(m->model);
}

static void free_model(built_model* m) {
  TfLiteModelDelete(m->model);
  free(m->data);
}

/* Runs the model (inputs seeded per index); output 0 into *out. */
static void run(TfLiteModel* model, TfLiteDelegate* delegate, float** out,
                size_t* count) {
  capture c = {{0}, 0};
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  TfLiteInterpreterOptionsSetErrorReporter(o, capture_report, &c);
  if (delegate != NULL) TfLiteInterpreterOptionsAddDelegate(o, delegate);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(model, o);
  TfLiteInterpreterOptionsDelete(o);
  if (ip == NULL) fail_msg("interpreter creation failed:\n%s", c.text);
  if (TfLiteInterpreterAllocateTensors(ip) != kTfLiteOk) {
    fail_msg("AllocateTensors failed:\n%s", c.text);
  }
  for (int i = 0; i < TfLiteInterpreterGetInputTensorCount(ip); ++i) {
    TfLiteTensor* t = TfLiteInterpreterGetInputTensor(ip, i);
    fill(TfLiteTensorData(t), TfLiteTensorByteSize(t) / sizeof(float),
         (uint32_t)(7 + 13 * i), i == 0 ? 1.0f : 0.5f);
  }
  if (TfLiteInterpreterInvoke(ip) != kTfLiteOk) {
    fail_msg("Invoke failed:\n%s", c.text);
  }
  const TfLiteTensor* y = TfLiteInterpreterGetOutputTensor(ip, 0);
  *count = TfLiteTensorByteSize(y) / sizeof(float);
  *out = malloc(TfLiteTensorByteSize(y) + 1);
  memcpy(*out, TfLiteTensorData(y), TfLiteTensorByteSize(y));
  TfLiteInterpreterDelete(ip);
}

static void describe(const conv_case* c, char* text, size_t size) {
  snprintf(text, size,
           "%s n%d %dx%dx%d->%d k%dx%d s%d,%d d%d,%d %s act %d bias %d",
           c->depthwise ? "DEPTHWISE_CONV_2D" : "CONV_2D", c->batch, c->h, c->w,
           c->in_c, c->out_c, c->kh, c->kw, c->stride_h, c->stride_w, c->dil_h,
           c->dil_w, c->padding == kTfLitePaddingSame ? "SAME" : "VALID",
           (int)c->act, c->bias);
}

/* CPU-only vs delegated: one partition (the node claimed) and every
 * element within the bound. */
static void check_case(TfLiteDelegate* d, const conv_case* c) {
  char name[160];
  describe(c, name, sizeof(name));
  built_model m;
  build(c, &m);
  float *cpu = NULL, *gpu = NULL;
  size_t nc = 0, ng = 0;
  run(m.model, NULL, &cpu, &nc);
  run(m.model, d, &gpu, &ng);
  if (litegpu_gpu_delegate_num_partitions(d) != 1) {
    const char* why = litegpu_gpu_delegate_node_reason(d, 0);
    fail_msg("%s: not claimed: %s", name, why ? why : "?");
  }
  assert_int_equal(nc, ng);
  assert_true(nc > 0);
  for (size_t i = 0; i < nc; ++i) {
    const float bound = 1e-5f * fmaxf(1.0f, fabsf(cpu[i]));
    if (!(fabsf(cpu[i] - gpu[i]) <= bound)) {
      fail_msg("%s: element %zu of %zu: cpu %.9g gpu %.9g", name, i, nc,
               (double)cpu[i], (double)gpu[i]);
    }
  }
  free(cpu);
  free(gpu);
  free_model(&m);
}

static conv_case conv(int batch, int h, int w, int in_c, int out_c, int k,
                      int stride, TfLitePadding padding,
                      TfLiteFusedActivation act) {
  return (conv_case){.batch = batch,
                     .h = h,
                     .w = w,
                     .in_c = in_c,
                     .out_c = out_c,
                     .filter_c = in_c,
                     .kh = k,
                     .kw = k,
                     .stride_h = stride,
                     .stride_w = stride,
                     .dil_h = 1,
                     .dil_w = 1,
                     .padding = padding,
                     .act = act,
                     .bias = 1};
}

static conv_case depthwise(int batch, int h, int w, int in_c, int mult, int k,
                           int stride, TfLitePadding padding,
                           TfLiteFusedActivation act) {
  conv_case c = conv(batch, h, w, in_c, in_c * mult, k, stride, padding, act);
  c.depthwise = true;
  return c;
}

static TfLiteDelegate* make_delegate(void) {
  TfLiteGpuDelegateOptionsV2 o = TfLiteGpuDelegateOptionsV2Default();
  TfLiteDelegate* d = TfLiteGpuDelegateV2Create(&o);
  assert_non_null(d); /* no OpenCL device: fail, never skip */
  return d;
}

/* 1x1, stride 1: the GEMM path. Output channels pick one vector of 16 (5),
 * two (24, 96, 160) or three (48, 33, with a 1-lane tail) per work item;
 * small weights go channel-block first (96), large ones (1.25 MB: 2048 ->
 * 160) pixel-block first; 35, 39 and 15 pixels leave partial pixel blocks.
 * (Shapes are chosen to share kernel variants and work-group sizes, so that
 * PoCL compiles 4 kernels here.) */
static void test_conv_pointwise(void** state) {
  (void)state;
  TfLiteDelegate* d = make_delegate();
  conv_case cases[] = {
      conv(1, 7, 5, 3, 5, 1, 1, kTfLitePaddingSame, kTfLiteActNone),
      conv(1, 4, 4, 16, 24, 1, 1, kTfLitePaddingValid, kTfLiteActRelu6),
      conv(2, 1, 7, 17, 48, 1, 1, kTfLitePaddingSame, kTfLiteActRelu6),
      conv(1, 13, 3, 32, 96, 1, 1, kTfLitePaddingSame, kTfLiteActRelu),
      conv(1, 4, 4, 40, 96, 1, 1, kTfLitePaddingSame, kTfLiteActReluN1To1),
      conv(1, 2, 7, 8, 33, 1, 1, kTfLitePaddingSame, kTfLiteActRelu6),
      conv(1, 3, 5, 2048, 160, 1, 1, kTfLitePaddingSame, kTfLiteActRelu6),
  };
  /* 2048-term sums: small weights keep the CPU's blocked summation order
   * and ours within the bound. */
  cases[6].weight_scale = 0.02f;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    check_case(d, &cases[i]);
  }
  TfLiteGpuDelegateV2Delete(d);
}

/* Other windows: 3-channel first layers (3x3, stride 2, SAME and VALID,
 * batches; the unrolled variant), a 1x1 with stride 2, a 5x3 window with
 * strides (2, 1) and no bias, dilations (2, 3) with bias index -1, a 2x2
 * stride-2 window, column tails and border work items. */
static void test_conv_general(void** state) {
  (void)state;
  TfLiteDelegate* d = make_delegate();
  conv_case cases[] = {
      conv(1, 15, 17, 3, 32, 3, 2, kTfLitePaddingSame, kTfLiteActRelu6),
      conv(2, 8, 21, 3, 20, 3, 2, kTfLitePaddingValid, kTfLiteActNone),
      conv(1, 11, 10, 5, 9, 3, 1, kTfLitePaddingSame, kTfLiteActRelu6),
      conv(1, 9, 9, 8, 16, 1, 2, kTfLitePaddingValid, kTfLiteActNone),
      conv(1, 12, 6, 6, 20, 5, 1, kTfLitePaddingSame, kTfLiteActRelu),
      conv(1, 10, 6, 4, 24, 3, 1, kTfLitePaddingSame, kTfLiteActRelu6),
      conv(2, 6, 6, 12, 64, 2, 2, kTfLitePaddingSame, kTfLiteActRelu6),
  };
  cases[4].kw = 3;
  cases[4].stride_h = 2; /* a 5x3 window, strides (2, 1) */
  cases[4].bias = 0;
  cases[5].dil_h = 2;
  cases[5].dil_w = 3;
  cases[5].bias = -1;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    check_case(d, &cases[i]);
  }
  TfLiteGpuDelegateV2Delete(d);
}

/* Channel modes: vectors of 16 (32 channels), 4 (12), scalar (7),
 * one input channel broadcast to 8 lanes (multiplier 8); stride 2 with odd
 * sizes and a 3-wide input; a dilated 5x5 VALID window; batches, no bias and
 * bias index -1. (A multiplier with several input channels is refused by
 * TFLite's GPU rules before the lowering.) */
static void test_depthwise(void** state) {
  (void)state;
  TfLiteDelegate* d = make_delegate();
  conv_case cases[] = {
      depthwise(1, 9, 11, 32, 1, 3, 1, kTfLitePaddingSame, kTfLiteActRelu6),
      depthwise(2, 7, 6, 32, 1, 3, 1, kTfLitePaddingSame, kTfLiteActRelu6),
      depthwise(1, 10, 13, 12, 1, 3, 2, kTfLitePaddingSame, kTfLiteActRelu6),
      depthwise(1, 5, 9, 7, 1, 3, 1, kTfLitePaddingValid, kTfLiteActNone),
      depthwise(1, 8, 8, 1, 8, 3, 1, kTfLitePaddingSame, kTfLiteActRelu),
      depthwise(1, 13, 14, 16, 1, 5, 1, kTfLitePaddingValid, kTfLiteActNone),
      depthwise(2, 37, 3, 12, 1, 3, 2, kTfLitePaddingSame, kTfLiteActReluN1To1),
  };
  cases[3].bias = 0;
  cases[5].dil_h = 2;
  cases[5].dil_w = 2;
  cases[6].bias = -1;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    check_case(d, &cases[i]);
  }
  TfLiteGpuDelegateV2Delete(d);
}

/* Runs a case that must stay on the CPU and checks the node's reason. */
static void expect_refused(const conv_case* c, const char* reason) {
  TfLiteDelegate* d = make_delegate();
  built_model m;
  build(c, &m);
  float* gpu = NULL;
  size_t n = 0;
  run(m.model, d, &gpu, &n);
  assert_int_equal(litegpu_gpu_delegate_num_partitions(d), 0);
  const char* why = litegpu_gpu_delegate_node_reason(d, 0);
  assert_non_null(why);
  if (strstr(why, reason) == NULL) {
    fail_msg("reason '%s' lacks '%s'", why, reason);
  }
  free(gpu);
  free_model(&m);
  TfLiteGpuDelegateV2Delete(d);
}

static void test_refusals(void** state) {
  (void)state;
  conv_case grouped =
      conv(1, 5, 5, 8, 4, 3, 1, kTfLitePaddingSame, kTfLiteActNone);
  grouped.filter_c = 4; /* two groups */
  expect_refused(&grouped, "grouped convolution");
  conv_case runtime =
      conv(1, 5, 5, 4, 4, 3, 1, kTfLitePaddingSame, kTfLiteActNone);
  runtime.runtime_filter = true;
  expect_refused(&runtime, "constant");
}

/* x -> 1x1 CONV_2D (no activation) -> t; y = ADD(t, x) with RELU6. With
 * `t_also_squared`, z = MUL(t, t) reads t too, so the ADD must not be
 * absorbed. Returns the dispatches one Invoke records; the outputs match
 * the CPU. */
static int run_residual(TfLiteDelegate* d, bool t_also_squared) {
  const int32_t shape[4] = {1, 5, 7, 24}, f_shape[4] = {24, 1, 1, 24};
  float f[24 * 24], b[24];
  fill(f, 24 * 24, 17, 0.5f);
  fill(b, 24, 29, 0.5f);
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t x = add_float_tensor(w, "x", shape);
  const int32_t ft = lg_model_writer_add_const_tensor(w, "f", kTfLiteFloat32,
                                                      f_shape, 4, f, sizeof(f));
  const int32_t bt = lg_model_writer_add_const_tensor(
      w, "b", kTfLiteFloat32, (const int32_t[]){24}, 1, b, sizeof(b));
  const int32_t t = add_float_tensor(w, "t", shape);
  const int32_t y = add_float_tensor(w, "y", shape);
  const int32_t z = add_float_tensor(w, "z", shape);
  const TfLiteConvParams conv = {.padding = kTfLitePaddingValid,
                                 .stride_width = 1,
                                 .stride_height = 1,
                                 .activation = kTfLiteActNone,
                                 .dilation_width_factor = 1,
                                 .dilation_height_factor = 1};
  const TfLiteAddParams add = {.activation = kTfLiteActRelu6};
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinConv2d, 1,
                                           (int32_t[]){x, ft, bt}, 3, &t, 1,
                                           &conv) >= 0);
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1,
                                           (int32_t[]){t, x}, 2, &y, 1,
                                           &add) >= 0);
  if (t_also_squared) {
    assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinMul, 1,
                                             (int32_t[]){t, t}, 2, &z, 1,
                                             NULL) >= 0);
  }
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, (const int32_t[]){y, z},
                              t_also_squared ? 2 : 1);
  built_model m;
  assert_int_equal(lg_model_writer_finish(w, &m.data, &m.size), kTfLiteOk);
  lg_model_writer_destroy(w);
  m.model = TfLiteModelCreate(m.data, m.size);
  assert_non_null(m.model);
  float *cpu = NULL, *gpu = NULL;
  size_t nc = 0, ng = 0;
  run(m.model, NULL, &cpu, &nc);
  run(m.model, d, &gpu, &ng);
  assert_int_equal(nc, ng);
  for (size_t i = 0; i < nc; ++i) {
    assert_true(fabsf(cpu[i] - gpu[i]) <= 1e-5f * fmaxf(1.0f, fabsf(cpu[i])));
  }
  free(cpu);
  free(gpu);
  /* The stats of a live program: run keeps none alive, so apply again. */
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsAddDelegate(o, d);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  TfLiteInterpreterOptionsDelete(o);
  assert_non_null(ip);
  litegpu_gpu_delegate_stats st;
  assert_int_equal(litegpu_gpu_delegate_get_stats(d, &st), kTfLiteOk);
  assert_int_equal(st.nodes_delegated, t_also_squared ? 3 : 2);
  TfLiteInterpreterDelete(ip);
  free_model(&m);
  return st.dispatches_per_invoke;
}

/* A residual ADD joins the 1x1 conv's kernel only when the conv's output
 * has no other reader. */
static void test_residual_add_fusion(void** state) {
  (void)state;
  TfLiteDelegate* d = make_delegate();
  assert_int_equal(run_residual(d, false), 1);
  assert_int_equal(run_residual(d, true), 3);
  TfLiteGpuDelegateV2Delete(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv_pointwise),
      cmocka_unit_test(test_conv_general),
      cmocka_unit_test(test_depthwise),
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_residual_add_fusion),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
