/* CONV_2D and DEPTHWISE_CONV_2D through the kernel runner: hand-derived
 * values (padding, strides, dilation, groups, depth multiplier, bias,
 * activations), every rejection message, empty tensors, NaN and Inf, and
 * seeded shapes around the GEMM's tiles on every instruction set and thread
 * count, compared with a double-precision loop written here and with the
 * kernels' own float references (lg_conv_reference and
 * lg_depthwise_conv_reference). The runner checks guard bytes after every
 * output. Also the nn family's rows of the builtin table. */
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

/* ---- A convolution case ------------------------------------------------- */

typedef struct conv_spec {
  bool depthwise; /* DEPTHWISE_CONV_2D: filter [1, fh, fw, out_c] */
  int batch, in_h, in_w, in_c;
  int out_c, fh, fw;
  int groups; /* CONV_2D: in_c / filter_c */
  int stride_h, stride_w, dil_h, dil_w;
  TfLitePadding padding;
  TfLiteFusedActivation act;
  bool bias;
  bool variable_filter; /* not a model constant: no packing in Prepare */
  int threads;
} conv_spec;

/* Output size and padding, written from the formulas of TFLite's
 * documentation rather than taken from the kernels. */
static int spec_out(TfLitePadding p, int in, int f, int s, int d) {
  const int eff = (f - 1) * d + 1;
  if (p == kTfLitePaddingSame) return (in + s - 1) / s;
  return in >= eff ? (in - eff) / s + 1 : 0;
}

static int spec_pad(int in, int f, int s, int d, int out) {
  const int total = (out - 1) * s + (f - 1) * d + 1 - in;
  return total > 0 ? total / 2 : 0;
}

static void spec_range(TfLiteFusedActivation act, double* lo, double* hi) {
  *lo = -INFINITY;
  *hi = INFINITY;
  if (act == kTfLiteActRelu) *lo = 0.0;
  if (act == kTfLiteActRelu6) *lo = 0.0, *hi = 6.0;
  if (act == kTfLiteActReluN1To1) *lo = -1.0, *hi = 1.0;
}

static lg_conv_geometry spec_geometry(const conv_spec* s) {
  lg_conv_geometry g;
  memset(&g, 0, sizeof(g));
  g.batch = s->batch;
  g.in_h = s->in_h;
  g.in_w = s->in_w;
  g.in_c = s->in_c;
  g.out_c = s->out_c;
  g.filter_h = s->fh;
  g.filter_w = s->fw;
  g.filter_c = s->depthwise ? 1 : s->in_c / s->groups;
  g.stride_h = s->stride_h;
  g.stride_w = s->stride_w;
  g.dilation_h = s->dil_h;
  g.dilation_w = s->dil_w;
  g.out_h = spec_out(s->padding, s->in_h, s->fh, s->stride_h, s->dil_h);
  g.out_w = spec_out(s->padding, s->in_w, s->fw, s->stride_w, s->dil_w);
  g.pad_top = spec_pad(s->in_h, s->fh, s->stride_h, s->dil_h, g.out_h);
  g.pad_left = spec_pad(s->in_w, s->fw, s->stride_w, s->dil_w, g.out_w);
  double lo, hi;
  spec_range(s->act, &lo, &hi);
  g.act_min = (float)lo;
  g.act_max = (float)hi;
  return g;
}

/* output = conv(input) in double, with a tolerance per element. Output
 * channel o of a depthwise conv reads input channel o / (out_c / in_c) and
 * filter[0, kh, kw, o]; of a grouped conv, the channels of group o /
 * (out_c / groups) and filter[o, kh, kw, c]. */
static void conv_double(const conv_spec* s, const lg_conv_geometry* g,
                        const float* in, const float* f, const float* bias,
                        double* want, double* tol) {
  double lo, hi;
  spec_range(s->act, &lo, &hi);
  const int per_group =
      s->depthwise ? s->out_c / s->in_c : s->out_c / s->groups;
  const int fc = g->filter_c;
  size_t index = 0;
  for (int n = 0; n < g->batch; ++n) {
    for (int y = 0; y < g->out_h; ++y) {
      for (int x = 0; x < g->out_w; ++x) {
        for (int o = 0; o < g->out_c; ++o, ++index) {
          double sum = bias != NULL ? bias[o] : 0.0, mag = fabs(sum);
          int terms = 0;
          for (int kh = 0; kh < g->filter_h; ++kh) {
            for (int kw = 0; kw < g->filter_w; ++kw) {
              const int iy = y * g->stride_h - g->pad_top + kh * g->dilation_h;
              const int ix = x * g->stride_w - g->pad_left + kw * g->dilation_w;
              if (iy < 0 || iy >= g->in_h || ix < 0 || ix >= g->in_w) continue;
              const float* px =
                  in + (((size_t)n * g->in_h + iy) * g->in_w + ix) * g->in_c;
              for (int c = 0; c < fc; ++c) {
                double prod;
                if (s->depthwise) {
                  prod = (double)px[o / per_group] *
                         f[((size_t)kh * g->filter_w + kw) * g->out_c + o];
                } else {
                  prod = (double)px[(o / per_group) * fc + c] *
                         f[(((size_t)o * g->filter_h + kh) * g->filter_w + kw) *
                               fc +
                           c];
                }
                sum += prod;
                mag += fabs(prod);
                ++terms;
              }
            }
          }
          want[index] = clamp_double(sum, lo, hi);
          tol[index] = sum_tolerance(terms, mag);
        }
      }
    }
  }
}

/* Runs one case on `isa` and compares it with both references. */
static void check_conv_spec(const conv_spec* s, lg_gemm_isa isa,
                            uint32_t seed) {
  const lg_conv_geometry g = spec_geometry(s);
  const size_t in_n = (size_t)s->batch * s->in_h * s->in_w * s->in_c;
  const size_t f_n = (size_t)s->out_c * s->fh * s->fw * g.filter_c;
  const int out_n = g.batch * g.out_h * g.out_w * g.out_c;
  float* in = random_floats(in_n, &seed);
  float* f = random_floats(f_n, &seed);
  float* bias = random_floats((size_t)s->out_c, &seed);
  double* want = malloc(sizeof(double) * (size_t)(out_n + 1));
  double* tol = malloc(sizeof(double) * (size_t)(out_n + 1));
  float* ref = malloc(sizeof(float) * (size_t)(out_n + 1));
  assert_true(want != NULL && tol != NULL && ref != NULL);
  conv_double(s, &g, in, f, s->bias ? bias : NULL, want, tol);
  if (s->depthwise) {
    lg_depthwise_conv_reference(&g, in, f, s->bias ? bias : NULL, ref);
  } else {
    lg_conv_reference(&g, in, f, s->bias ? bias : NULL, ref);
  }

  TfLiteConvParams cp = {s->padding, s->stride_w, s->stride_h,   s->act,
                         s->dil_w,   s->dil_h,    kTfLiteFloat32};
  TfLiteDepthwiseConvParams dp = {s->padding, s->stride_w, s->stride_h, 0,
                                  s->act,     s->dil_w,    s->dil_h};
  lg_kernel_runner r;
  const lg_gemm_isa saved = lg_gemm_isa_default();
  lg_gemm_isa_set_default(isa);
  lg_kernel_runner_init(
      &r,
      s->depthwise ? lg_register_DEPTHWISE_CONV_2D() : lg_register_CONV_2D(),
      s->depthwise ? (void*)&dp : (void*)&cp);
  if (s->threads > 1) {
    assert_int_equal(lg_kernel_runner_set_threads(&r, s->threads), kTfLiteOk);
  }
  const int ti = add_tensor(
      &r, kTfLiteFloat32, (int[]){s->batch, s->in_h, s->in_w, s->in_c}, 4, in);
  const int fdims[4] = {s->depthwise ? 1 : s->out_c, s->fh, s->fw,
                        s->depthwise ? s->out_c : g.filter_c};
  const int tf = add_tensor(&r, kTfLiteFloat32, fdims, 4, f);
  if (s->variable_filter) make_variable(&r, tf);
  const int tb =
      s->bias ? add_tensor(&r, kTfLiteFloat32, (int[]){s->out_c}, 1, bias)
              : kTfLiteOptionalTensor;
  const int to = add_output(&r);
  lg_kernel_runner_set_inputs(&r, (int[]){ti, tf, tb}, 3);
  lg_kernel_runner_set_outputs(&r, &to, 1);
  run_ok(&r, s->depthwise ? "DEPTHWISE_CONV_2D" : "CONV_2D");
  lg_gemm_isa_set_default(saved);
  const TfLiteTensor* out = lg_kernel_runner_tensor(&r, to);
  expect_shape(out, (int[]){g.batch, g.out_h, g.out_w, g.out_c}, 4);
  char what[160];
  snprintf(what, sizeof(what),
           "%s %s in [%d,%d,%d,%d] filter %dx%d out_c %d groups %d stride "
           "%dx%d dil %dx%d %s threads %d",
           s->depthwise ? "dw" : "conv", lg_gemm_isa_name(isa), s->batch,
           s->in_h, s->in_w, s->in_c, s->fh, s->fw, s->out_c, s->groups,
           s->stride_h, s->stride_w, s->dil_h, s->dil_w,
           s->padding == kTfLitePaddingSame ? "SAME" : "VALID", s->threads);
  expect_near(what, out->data.f, want, tol, out_n);
  expect_near_float(what, out->data.f, ref, tol, out_n);
  lg_kernel_runner_release(&r);
  free(in);
  free(f);
  free(bias);
  free(want);
  free(tol);
  free(ref);
}

/* Runs the case on every supported instruction set. */
static void check_conv_all_isas(const conv_spec* s, uint32_t seed) {
  for (int isa = 0; isa < LG_GEMM_ISA_COUNT; ++isa) {
    if (lg_gemm_isa_supported((lg_gemm_isa)isa)) {
      check_conv_spec(s, (lg_gemm_isa)isa, seed);
    }
  }
}

/* ---- CONV_2D: hand-derived values ---------------------------------------- */

/* A small CONV_2D runner case with caller-owned data. */
typedef struct conv_case {
  lg_kernel_runner r;
  TfLiteConvParams params;
  int input, filter, bias, output;
} conv_case;

static void conv_setup(conv_case* c, const int* in_dims, const float* in,
                       const int* f_dims, const float* f, const float* bias,
                       TfLitePadding padding, int stride, int dilation,
                       TfLiteFusedActivation act) {
  c->params = (TfLiteConvParams){padding,  stride,   stride,        act,
                                 dilation, dilation, kTfLiteFloat32};
  lg_kernel_runner_init(&c->r, lg_register_CONV_2D(), &c->params);
  c->input = add_tensor(&c->r, kTfLiteFloat32, in_dims, 4, in);
  c->filter = add_tensor(&c->r, kTfLiteFloat32, f_dims, 4, f);
  c->bias = bias != NULL
                ? add_tensor(&c->r, kTfLiteFloat32, (int[]){f_dims[0]}, 1, bias)
                : kTfLiteOptionalTensor;
  c->output = add_output(&c->r);
  lg_kernel_runner_set_inputs(&c->r, (int[]){c->input, c->filter, c->bias},
                              bias != NULL ? 3 : 2);
  lg_kernel_runner_set_outputs(&c->r, &c->output, 1);
}

static void conv_expect(conv_case* c, const int* dims, const float* want,
                        int n) {
  run_ok(&c->r, "CONV_2D");
  const TfLiteTensor* out = lg_kernel_runner_tensor(&c->r, c->output);
  expect_shape(out, dims, 4);
  expect_floats(out->data.f, want, n);
  lg_kernel_runner_release(&c->r);
}

static const float kImage3x3[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
static const float kOnes9[] = {1, 1, 1, 1, 1, 1, 1, 1, 1};

static void test_conv_padding_and_stride(void** state) {
  (void)state;
  conv_case c;
  /* filter [[1,0],[0,1]]: out[y][x] = in[y][x] + in[y+1][x+1].
   * VALID: 2x2 = (1+5, 2+6, 4+8, 5+9); bias 0.5 on top. */
  const float diag[] = {1, 0, 0, 1};
  const float half[] = {0.5f};
  conv_setup(&c, (int[]){1, 3, 3, 1}, kImage3x3, (int[]){1, 2, 2, 1}, diag,
             half, kTfLitePaddingValid, 1, 1, kTfLiteActNone);
  conv_expect(&c, (int[]){1, 2, 2, 1}, (float[]){6.5f, 8.5f, 12.5f, 14.5f}, 4);
  /* SAME: total padding (3-1)*1 + 2 - 3 = 1, all of it after; out 3x3. */
  conv_setup(&c, (int[]){1, 3, 3, 1}, kImage3x3, (int[]){1, 2, 2, 1}, diag,
             NULL, kTfLitePaddingSame, 1, 1, kTfLiteActNone);
  conv_expect(&c, (int[]){1, 3, 3, 1}, (float[]){6, 8, 3, 12, 14, 6, 7, 8, 9},
              9);
  /* 3x3 ones, stride 2, SAME: out 2x2, total padding (2-1)*2 + 3 - 3 = 2,
   * one on each side: windows cover rows/cols {0,1} and {1,2}:
   * 1+2+4+5, 2+3+5+6, 4+5+7+8, 5+6+8+9. */
  conv_setup(&c, (int[]){1, 3, 3, 1}, kImage3x3, (int[]){1, 3, 3, 1}, kOnes9,
             NULL, kTfLitePaddingSame, 2, 1, kTfLiteActNone);
  conv_expect(&c, (int[]){1, 2, 2, 1}, (float[]){12, 16, 24, 28}, 4);
  /* Stride 2 VALID on 3x3 with a 1x1 filter of 2: picks (0,0) (0,2) (2,0)
   * (2,2), doubled. */
  conv_setup(&c, (int[]){1, 3, 3, 1}, kImage3x3, (int[]){1, 1, 1, 1},
             (float[]){2}, NULL, kTfLitePaddingValid, 2, 1, kTfLiteActNone);
  conv_expect(&c, (int[]){1, 2, 2, 1}, (float[]){2, 6, 14, 18}, 4);
}

static void test_conv_dilation(void** state) {
  (void)state;
  /* in[r][c] = 5r + c on 5x5; 2x2 ones with dilation 2 (a 3x3 window)
   * VALID: out[y][x] = in[y][x] + in[y][x+2] + in[y+2][x] + in[y+2][x+2]
   * = 4(5y + x) + 2 + 10 + 12 = 20y + 4x + 24. */
  float in[25];
  for (int i = 0; i < 25; ++i) in[i] = (float)i;
  float want[9];
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 3; ++x) want[y * 3 + x] = (float)(20 * y + 4 * x + 24);
  }
  conv_case c;
  conv_setup(&c, (int[]){1, 5, 5, 1}, in, (int[]){1, 2, 2, 1},
             (float[]){1, 1, 1, 1}, NULL, kTfLitePaddingValid, 1, 2,
             kTfLiteActNone);
  conv_expect(&c, (int[]){1, 3, 3, 1}, want, 9);
}

static void test_conv_channels_batch_groups(void** state) {
  (void)state;
  conv_case c;
  /* 1x1 conv (the direct path), batch 2, 2 -> 3 channels:
   * o0 = c0 + c1, o1 = c0 - c1, o2 = 2 c1; bias (0, 0, 1). */
  const float in[] = {1, 2, 3, 5};
  const float f[] = {1, 1, 1, -1, 0, 2};
  conv_setup(&c, (int[]){2, 1, 1, 2}, in, (int[]){3, 1, 1, 2}, f,
             (float[]){0, 0, 1}, kTfLitePaddingSame, 1, 1, kTfLiteActNone);
  conv_expect(&c, (int[]){2, 1, 1, 3}, (float[]){3, -1, 5, 8, -2, 11}, 6);
  /* Grouped: 4 input channels, filter_c 2 -> 2 groups, 4 outputs (2 each):
   * o0 = c0 + c1 = 3, o1 = c0 - c1 = -1 (group 0 reads 1, 2);
   * o2 = 2 c2 = 6, o3 = c3 = 4 (group 1 reads 3, 4). */
  const float in4[] = {1, 2, 3, 4};
  const float fg[] = {1, 1, 1, -1, 2, 0, 0, 1};
  conv_setup(&c, (int[]){1, 1, 1, 4}, in4, (int[]){4, 1, 1, 2}, fg, NULL,
             kTfLitePaddingValid, 1, 1, kTfLiteActNone);
  conv_expect(&c, (int[]){1, 1, 1, 4}, (float[]){3, -1, 6, 4}, 4);
  /* The same grouped filter through the im2col path (stride 2 on 2x1). */
  const float in8[] = {1, 2, 3, 4, 9, 9, 9, 9};
  conv_setup(&c, (int[]){1, 2, 1, 4}, in8, (int[]){4, 1, 1, 2}, fg, NULL,
             kTfLitePaddingValid, 2, 1, kTfLiteActNone);
  conv_expect(&c, (int[]){1, 1, 1, 4}, (float[]){3, -1, 6, 4}, 4);
}

static void test_conv_activations(void** state) {
  (void)state;
  /* 1x1 filter (1, -1, 0.5, 10) on a pixel of 1.5: (1.5, -1.5, 0.75, 15). */
  const float f[] = {1, -1, 0.5f, 10};
  const struct {
    TfLiteFusedActivation act;
    float want[4];
  } cases[] = {
      {kTfLiteActNone, {1.5f, -1.5f, 0.75f, 15}},
      {kTfLiteActRelu, {1.5f, 0, 0.75f, 15}},
      {kTfLiteActReluN1To1, {1, -1, 0.75f, 1}},
      {kTfLiteActRelu6, {1.5f, 0, 0.75f, 6}},
  };
  for (int i = 0; i < ARRAY_SIZE(cases); ++i) {
    conv_case c;
    conv_setup(&c, (int[]){1, 1, 1, 1}, (float[]){1.5f}, (int[]){4, 1, 1, 1}, f,
               NULL, kTfLitePaddingValid, 1, 1, cases[i].act);
    conv_expect(&c, (int[]){1, 1, 1, 4}, cases[i].want, 4);
  }
}

static void test_conv_nan_inf_and_empty(void** state) {
  (void)state;
  conv_case c;
  /* 2x1 filter (1, 1) over a 3x1 column (NaN, 1, inf) VALID, then RELU6:
   * NaN + 1 = NaN (stays NaN through the clamp), 1 + inf = inf -> 6. */
  const float in[] = {NAN, 1, INFINITY};
  conv_setup(&c, (int[]){1, 3, 1, 1}, in, (int[]){1, 2, 1, 1}, (float[]){1, 1},
             NULL, kTfLitePaddingValid, 1, 1, kTfLiteActRelu6);
  conv_expect(&c, (int[]){1, 2, 1, 1}, (float[]){NAN, 6}, 2);
  /* inf * 0 in the window gives NaN: filter (0, 1) over (inf, 2). */
  conv_setup(&c, (int[]){1, 2, 1, 1}, (float[]){INFINITY, 2},
             (int[]){1, 2, 1, 1}, (float[]){0, 1}, NULL, kTfLitePaddingValid, 1,
             1, kTfLiteActNone);
  conv_expect(&c, (int[]){1, 1, 1, 1}, (float[]){NAN}, 1);
  /* Overflow: 3e38 + 3e38 is inf in float, and NONE clamps to the float
   * range as LiteRT's reference kernels do: FLT_MAX (and -FLT_MAX). */
  conv_setup(&c, (int[]){1, 2, 1, 1}, (float[]){3e38f, 3e38f},
             (int[]){2, 2, 1, 1}, (float[]){1, 1, -1, -1}, NULL,
             kTfLitePaddingValid, 1, 1, kTfLiteActNone);
  conv_expect(&c, (int[]){1, 1, 1, 2}, (float[]){FLT_MAX, -FLT_MAX}, 2);
  /* Denormals are kept: 1e-38 * 1e-3 = 1e-41. */
  conv_setup(&c, (int[]){1, 1, 1, 1}, (float[]){1e-38f}, (int[]){1, 1, 1, 1},
             (float[]){1e-3f}, NULL, kTfLitePaddingValid, 1, 1, kTfLiteActNone);
  conv_expect(&c, (int[]){1, 1, 1, 1}, (float[]){1e-38f * 1e-3f}, 1);
  /* Batch 0, and a VALID window one larger than the input (out 0). */
  conv_setup(&c, (int[]){0, 3, 3, 1}, NULL, (int[]){1, 2, 2, 1},
             (float[]){1, 1, 1, 1}, NULL, kTfLitePaddingValid, 1, 1,
             kTfLiteActNone);
  conv_expect(&c, (int[]){0, 2, 2, 1}, NULL, 0);
  conv_setup(&c, (int[]){1, 2, 2, 1}, (float[]){1, 2, 3, 4},
             (int[]){1, 3, 3, 1}, kOnes9, NULL, kTfLitePaddingValid, 1, 1,
             kTfLiteActNone);
  conv_expect(&c, (int[]){1, 0, 0, 1}, NULL, 0);
}

/* ---- CONV_2D: rejections --------------------------------------------------
 */

/* Sets up a valid 1x3x3x2 -> 4 channel conv with 3x3 filter and bias, for
 * the rejection tests to break one thing at a time. */
static float g_buffer[512];

static void conv_valid_case(conv_case* c) {
  conv_setup(c, (int[]){1, 3, 3, 2}, g_buffer, (int[]){4, 3, 3, 2}, g_buffer,
             g_buffer, kTfLitePaddingSame, 1, 1, kTfLiteActNone);
}

static void conv_expect_error(conv_case* c, const char* message) {
  expect_error(&c->r, lg_kernel_runner_run(&c->r), message);
  lg_kernel_runner_release(&c->r);
}

static void set_dims(lg_kernel_runner* r, int index, const int* dims,
                     int rank) {
  TfLiteTensor* t = lg_kernel_runner_tensor(r, index);
  TfLiteIntArrayFree(t->dims);
  t->dims = TfLiteIntArrayCreate(rank);
  for (int i = 0; i < rank; ++i) t->dims->data[i] = dims[i];
}

static void test_conv_rejections(void** state) {
  (void)state;
  conv_case c;
  /* The valid case passes (so each rejection below is caused by its one
   * change). */
  conv_valid_case(&c);
  run_ok(&c.r, "CONV_2D");
  lg_kernel_runner_release(&c.r);

  conv_valid_case(&c);
  lg_kernel_runner_set_inputs(&c.r, (int[]){c.input}, 1);
  conv_expect_error(&c, "CONV_2D: expected 2 to 3 inputs, got 1");
  conv_valid_case(&c);
  c.r.node.builtin_data = NULL;
  conv_expect_error(&c, "CONV_2D: missing Conv2DOptions parameters");
  /* Types: int8 input with float tensors beside it, hybrid float input
   * with int8 filter (2, 5) without quantization, int32 bias, int16
   * output. */
  const struct {
    int which;
    TfLiteType type;
    const char* message;
  } types[] = {
      {0, kTfLiteInt8,
       "CONV_2D: INT8 input with filter FLOAT32, bias FLOAT32 and output "
       "FLOAT32 is not supported (expected INT8, INT32 and INT8)"},
      {0, kTfLiteInt16,
       "CONV_2D: INT16 input with filter FLOAT32, bias FLOAT32 and output "
       "FLOAT32 is not supported (expected INT8, INT64 or INT32 and INT16)"},
      {1, kTfLiteInt8,
       "CONV_2D: weights tensor '(unnamed)' (INT8) has no quantization"},
      {1, kTfLiteFloat16, "CONV_2D: filter type FLOAT16 is not supported"},
      {2, kTfLiteInt32, "CONV_2D: bias type INT32 is not supported"},
      {3, kTfLiteInt16, "CONV_2D: output type INT16 is not supported"},
  };
  for (int i = 0; i < ARRAY_SIZE(types); ++i) {
    conv_valid_case(&c);
    const int index[] = {c.input, c.filter, c.bias, c.output};
    lg_kernel_runner_tensor(&c.r, index[types[i].which])->type = types[i].type;
    conv_expect_error(&c, types[i].message);
  }
  TfLiteSparsity sparsity;
  memset(&sparsity, 0, sizeof(sparsity));
  conv_valid_case(&c);
  lg_kernel_runner_tensor(&c.r, c.filter)->sparsity = &sparsity;
  expect_error(&c.r, lg_kernel_runner_run(&c.r),
               "CONV_2D: sparse filters are not supported");
  lg_kernel_runner_tensor(&c.r, c.filter)->sparsity = NULL;
  lg_kernel_runner_release(&c.r);
  /* Ranks. */
  conv_valid_case(&c);
  set_dims(&c.r, c.filter, (int[]){3, 3}, 2);
  conv_expect_error(&c, "CONV_2D: filter must be 4-D, got [3,3]");
  conv_valid_case(&c);
  set_dims(&c.r, c.input, (int[]){3, 3, 2}, 3);
  conv_expect_error(&c, "CONV_2D: input must be 4-D, got [3,3,2]");
}

static void test_conv_parameter_rejections(void** state) {
  (void)state;
  conv_case c;
  conv_valid_case(&c);
  c.params.padding = kTfLitePaddingUnknown;
  conv_expect_error(&c,
                    "CONV_2D: padding UNKNOWN (0) is not supported "
                    "(expected SAME or VALID)");
  conv_valid_case(&c);
  c.params.stride_width = 0;
  conv_expect_error(&c, "CONV_2D: stride_w must be at least 1, got 0");
  conv_valid_case(&c);
  c.params.stride_height = -2;
  conv_expect_error(&c, "CONV_2D: stride_h must be at least 1, got -2");
  conv_valid_case(&c);
  c.params.dilation_width_factor = 0;
  conv_expect_error(&c, "CONV_2D: dilation_w_factor must be at least 1, got 0");
  conv_valid_case(&c);
  c.params.dilation_height_factor = 0;
  conv_expect_error(&c, "CONV_2D: dilation_h_factor must be at least 1, got 0");
  conv_valid_case(&c);
  c.params.activation = kTfLiteActTanh;
  conv_expect_error(&c, "CONV_2D: fused activation TANH (4) is not supported");
  /* Channels and groups. */
  conv_valid_case(&c);
  set_dims(&c.r, c.filter, (int[]){4, 0, 3, 2}, 4);
  conv_expect_error(&c, "CONV_2D: filter shape [4,0,3,2] has a zero dimension");
  conv_valid_case(&c);
  set_dims(&c.r, c.input, (int[]){1, 3, 3, 0}, 4);
  conv_expect_error(&c, "CONV_2D: input shape [1,3,3,0] has no channels");
  conv_valid_case(&c);
  set_dims(&c.r, c.input, (int[]){1, 3, 3, 3}, 4);
  conv_expect_error(&c,
                    "CONV_2D: input channels 3 are not a multiple of the "
                    "filter's input channels 2");
  conv_valid_case(&c);
  set_dims(&c.r, c.input, (int[]){1, 3, 3, 6}, 4);
  set_dims(&c.r, c.filter, (int[]){4, 3, 3, 2}, 4);
  conv_expect_error(&c,
                    "CONV_2D: output channels 4 are not a multiple of "
                    "the group count 3");
  conv_valid_case(&c);
  set_dims(&c.r, c.bias, (int[]){3}, 1);
  conv_expect_error(&c,
                    "CONV_2D: bias shape [3] does not hold 4 elements "
                    "(the filter's output channels)");
  /* VALID with a dilated window 2 larger than the input: (1 + 1 - 3) < 0. */
  conv_valid_case(&c);
  c.params.padding = kTfLitePaddingValid;
  c.params.dilation_height_factor = 2;
  set_dims(&c.r, c.input, (int[]){1, 1, 3, 2}, 4);
  conv_expect_error(&c,
                    "CONV_2D: input 1x3 is smaller than the dilated 5x3 "
                    "filter with VALID padding");
}

static void test_conv_invoke_guards(void** state) {
  (void)state;
  conv_case c;
  /* Invoke before Prepare. */
  conv_valid_case(&c);
  const TfLiteRegistration* reg = lg_register_CONV_2D();
  c.r.node.user_data = reg->init(&c.r.context, NULL, 0);
  c.r.initialized = true;
  assert_int_not_equal(reg->invoke(&c.r.context, &c.r.node), kTfLiteOk);
  assert_non_null(strstr(lg_kernel_runner_errors(&c.r),
                         "CONV_2D: invoked before a successful prepare"));
  lg_kernel_runner_release(&c.r);
  /* A shape changed between Prepare and Invoke. */
  conv_valid_case(&c);
  assert_int_equal(lg_kernel_runner_prepare(&c.r), kTfLiteOk);
  set_dims(&c.r, c.input, (int[]){2, 3, 3, 2}, 4);
  expect_error(&c.r, lg_kernel_runner_invoke(&c.r),
               "CONV_2D: tensor shapes changed since prepare");
  lg_kernel_runner_release(&c.r);
  /* Prepare twice (a resize) keeps working, with the packed filter and the
   * temporary reused. */
  conv_setup(&c, (int[]){1, 3, 3, 1}, kImage3x3, (int[]){1, 1, 1, 1},
             (float[]){2}, NULL, kTfLitePaddingValid, 1, 1, kTfLiteActNone);
  run_ok(&c.r, "CONV_2D");
  set_dims(&c.r, c.input, (int[]){1, 2, 2, 1}, 4);
  run_ok(&c.r, "CONV_2D");
  expect_shape(lg_kernel_runner_tensor(&c.r, c.output), (int[]){1, 2, 2, 1}, 4);
  expect_floats(lg_kernel_runner_tensor(&c.r, c.output)->data.f,
                (float[]){2, 4, 6, 8}, 4);
  lg_kernel_runner_release(&c.r);
}

/* ---- CONV_2D: seeded shapes ---------------------------------------------- */

static void test_conv_random(void** state) {
  (void)state;
  /* Output pixels (m), channels (n) and window depth (k) below, at and
   * above the micro-tiles (mr 4/6/12, nr 8/16/32) and KC 256, primes. */
  const conv_spec specs[] = {
      /* dw  b  h   w   c   oc  fh fw g  sh sw dh dw  padding act bias var t */
      {false, 1, 5, 5, 3, 1, 3, 3, 1, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 1},
      {false, 2, 7, 6, 5, 17, 3, 3, 1, 1, 1, 1, 1, kTfLitePaddingValid,
       kTfLiteActRelu, true, false, 1},
      {false, 1, 13, 11, 29, 33, 3, 3, 1, 2, 2, 1, 1, kTfLitePaddingSame,
       kTfLiteActRelu6, false, false, 2},
      {false, 1, 9, 9, 8, 32, 1, 1, 1, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, true, 1},
      {false, 3, 4, 5, 256, 7, 1, 1, 1, 1, 1, 1, 1, kTfLitePaddingValid,
       kTfLiteActNone, true, false, 3},
      {false, 1, 10, 10, 6, 16, 3, 2, 2, 1, 2, 2, 3, kTfLitePaddingSame,
       kTfLiteActReluN1To1, true, true, 2},
      {false, 1, 8, 8, 12, 12, 3, 3, 4, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 1},
      {false, 1, 7, 7, 3, 65, 5, 5, 1, 3, 1, 1, 1, kTfLitePaddingValid,
       kTfLiteActNone, false, false, 1},
      {false, 2, 12, 12, 28, 31, 3, 3, 1, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActRelu, true, false, 2},
      {false, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 1},
      {false, 1, 6, 9, 10, 10, 4, 2, 5, 2, 3, 1, 2, kTfLitePaddingValid,
       kTfLiteActNone, true, true, 3},
      /* Enough work (21M multiply-adds) for the GEMM to split. */
      {false, 1, 24, 24, 64, 64, 3, 3, 1, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActRelu, true, false, 2},
  };
  uint32_t seed = 11u;
  for (int i = 0; i < ARRAY_SIZE(specs); ++i) {
    check_conv_all_isas(&specs[i], seed + (uint32_t)i);
  }
}

/* Inputs with few channels: the gather path (one group, filter_c <= 4, a
 * table of at most 256K entries), and otherwise whole window rows with the
 * edge pixels' rows assembled on the stack. */
static void test_conv_small_channels(void** state) {
  (void)state;
  const conv_spec specs[] = {
      /* dw  b  h   w   c   oc  fh fw g  sh sw dh dw  padding act bias var t */
      /* The keyword-spotting model's first layer: 10x4 stride 2, 1 -> 64. */
      {false, 1, 49, 10, 1, 64, 10, 4, 1, 2, 2, 1, 1, kTfLitePaddingSame,
       kTfLiteActRelu, true, false, 1},
      /* Pixel counts below, at and above the micro-tiles, primes, batch. */
      {false, 1, 3, 4, 1, 5, 3, 3, 1, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 1},
      {false, 2, 6, 1, 2, 13, 3, 1, 1, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, false, false, 1},
      {false, 3, 7, 5, 3, 33, 2, 3, 1, 1, 2, 2, 1, kTfLitePaddingSame,
       kTfLiteActRelu6, true, true, 1},
      {false, 1, 11, 13, 4, 31, 5, 5, 1, 2, 1, 1, 2, kTfLitePaddingValid,
       kTfLiteActNone, true, false, 1},
      /* A 1x1 filter with stride 2 (not the direct path). */
      {false, 1, 9, 9, 2, 17, 1, 1, 1, 2, 2, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 1},
      /* Window depth 9 * 9 * 4 = 324: above KC, so panels resume at p0. */
      {false, 1, 12, 12, 4, 8, 9, 9, 1, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 1},
      /* Enough work (7M multiply-adds) to split panels over 2 threads. */
      {false, 1, 64, 64, 3, 64, 3, 3, 1, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActRelu, true, false, 2},
      /* Tables above 256K entries: whole window rows instead. */
      {false, 1, 300, 301, 1, 2, 3, 3, 1, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 2},
      /* 5 and 16 channels: window rows (5 * 3 <= 64) with edges; 16 * 5 >
       * 64: taps at the edges. */
      {false, 1, 8, 9, 5, 7, 3, 3, 1, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 1},
      {false, 1, 8, 9, 16, 7, 3, 5, 1, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 1},
      /* A grouped 1x1 (the GEMM reads A in place, row stride 12 > k 4). */
      {false, 1, 7, 5, 12, 9, 1, 1, 3, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 1},
  };
  uint32_t seed = 77u;
  for (int i = 0; i < ARRAY_SIZE(specs); ++i) {
    check_conv_all_isas(&specs[i], seed + (uint32_t)i);
  }
}

/* ---- DEPTHWISE_CONV_2D -----------------------------------------------------
 */

typedef struct dw_case {
  lg_kernel_runner r;
  TfLiteDepthwiseConvParams params;
  int input, filter, bias, output;
} dw_case;

static void dw_setup(dw_case* c, const int* in_dims, const float* in,
                     const int* f_dims, const float* f, const float* bias,
                     TfLitePadding padding, int stride, int dilation,
                     TfLiteFusedActivation act) {
  /* depth_multiplier is redundant in TFLite's float kernel; 0 here proves
   * it is not read. */
  c->params = (TfLiteDepthwiseConvParams){padding, stride,   stride,  0,
                                          act,     dilation, dilation};
  lg_kernel_runner_init(&c->r, lg_register_DEPTHWISE_CONV_2D(), &c->params);
  c->input = add_tensor(&c->r, kTfLiteFloat32, in_dims, 4, in);
  c->filter = add_tensor(&c->r, kTfLiteFloat32, f_dims, 4, f);
  c->bias = bias != NULL
                ? add_tensor(&c->r, kTfLiteFloat32, (int[]){f_dims[3]}, 1, bias)
                : kTfLiteOptionalTensor;
  c->output = add_output(&c->r);
  lg_kernel_runner_set_inputs(&c->r, (int[]){c->input, c->filter, c->bias},
                              bias != NULL ? 3 : 2);
  lg_kernel_runner_set_outputs(&c->r, &c->output, 1);
}

static void dw_expect(dw_case* c, const int* dims, const float* want, int n) {
  run_ok(&c->r, "DEPTHWISE_CONV_2D");
  const TfLiteTensor* out = lg_kernel_runner_tensor(&c->r, c->output);
  expect_shape(out, dims, 4);
  expect_floats(out->data.f, want, n);
  lg_kernel_runner_release(&c->r);
}

static void test_dw_hand_values(void** state) {
  (void)state;
  dw_case c;
  /* Two channels on 2x2: channel 0 = (1, 2, 3, 4), channel 1 = (10, 20, 30,
   * 40); 2x2 filter, channel 0 taps (1, 0, 0, 1), channel 1 taps (1, 1, 1,
   * 1); VALID: (1 + 4, 10 + 20 + 30 + 40) = (5, 100); bias (0.5, -100). */
  const float in[] = {1, 10, 2, 20, 3, 30, 4, 40};
  const float f[] = {1, 1, 0, 1, 0, 1, 1, 1};
  dw_setup(&c, (int[]){1, 2, 2, 2}, in, (int[]){1, 2, 2, 2}, f,
           (float[]){0.5f, -100}, kTfLitePaddingValid, 1, 1, kTfLiteActNone);
  dw_expect(&c, (int[]){1, 1, 1, 2}, (float[]){5.5f, 0}, 2);
  /* Multiplier 2 on one pixel (3, 5) with a 1x1 filter (1, 2, -1, 4):
   * outputs 3*1, 3*2, 5*-1, 5*4; RELU clamps -5. */
  dw_setup(&c, (int[]){1, 1, 1, 2}, (float[]){3, 5}, (int[]){1, 1, 1, 4},
           (float[]){1, 2, -1, 4}, NULL, kTfLitePaddingSame, 1, 1,
           kTfLiteActRelu);
  dw_expect(&c, (int[]){1, 1, 1, 4}, (float[]){3, 6, 0, 20}, 4);
  /* SAME 3x3 ones with stride 2 on the 3x3 image: as CONV_2D above. */
  dw_setup(&c, (int[]){1, 3, 3, 1}, kImage3x3, (int[]){1, 3, 3, 1}, kOnes9,
           NULL, kTfLitePaddingSame, 2, 1, kTfLiteActNone);
  dw_expect(&c, (int[]){1, 2, 2, 1}, (float[]){12, 16, 24, 28}, 4);
  /* Dilation 2 on the 5x5 ramp: 20y + 4x + 24, clamped by RELU6 to 6. */
  float ramp[25];
  for (int i = 0; i < 25; ++i) ramp[i] = (float)i / 100.0f;
  /* With in = i / 100 the sums are (20y + 4x + 24) / 100. */
  float want[9];
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 3; ++x) {
      want[y * 3 + x] =
          ((ramp[y * 5 + x] + ramp[y * 5 + x + 2]) + ramp[(y + 2) * 5 + x]) +
          ramp[(y + 2) * 5 + x + 2];
    }
  }
  dw_setup(&c, (int[]){1, 5, 5, 1}, ramp, (int[]){1, 2, 2, 1},
           (float[]){1, 1, 1, 1}, NULL, kTfLitePaddingValid, 1, 2,
           kTfLiteActRelu6);
  dw_expect(&c, (int[]){1, 3, 3, 1}, want, 9);
}

static void test_dw_nan_inf_and_empty(void** state) {
  (void)state;
  dw_case c;
  /* Channel 0 (NaN, 1) and channel 1 (inf, -inf) under a 2x1 ones filter:
   * NaN, and inf + -inf = NaN; channel 2 (inf, 1) -> inf, RELU6 -> 6. */
  const float in[] = {NAN, INFINITY, INFINITY, 1, -INFINITY, 1};
  dw_setup(&c, (int[]){1, 2, 1, 3}, in, (int[]){1, 2, 1, 3},
           (float[]){1, 1, 1, 1, 1, 1}, NULL, kTfLitePaddingValid, 1, 1,
           kTfLiteActRelu6);
  dw_expect(&c, (int[]){1, 1, 1, 3}, (float[]){NAN, NAN, 6}, 3);
  dw_setup(&c, (int[]){0, 4, 4, 2}, NULL, (int[]){1, 3, 3, 2}, g_buffer, NULL,
           kTfLitePaddingSame, 1, 1, kTfLiteActNone);
  dw_expect(&c, (int[]){0, 4, 4, 2}, NULL, 0);
}

static void dw_valid_case(dw_case* c) {
  dw_setup(c, (int[]){1, 3, 3, 2}, g_buffer, (int[]){1, 3, 3, 4}, g_buffer,
           g_buffer, kTfLitePaddingSame, 1, 1, kTfLiteActNone);
}

static void dw_expect_error(dw_case* c, const char* message) {
  expect_error(&c->r, lg_kernel_runner_run(&c->r), message);
  lg_kernel_runner_release(&c->r);
}

static void test_dw_rejections(void** state) {
  (void)state;
  dw_case c;
  dw_valid_case(&c);
  run_ok(&c.r, "DEPTHWISE_CONV_2D");
  lg_kernel_runner_release(&c.r);
  dw_valid_case(&c);
  c.r.node.builtin_data = NULL;
  dw_expect_error(&c,
                  "DEPTHWISE_CONV_2D: missing DepthwiseConv2DOptions "
                  "parameters");
  dw_valid_case(&c);
  lg_kernel_runner_set_inputs(&c.r, (int[]){0, 1, 2, 2}, 4);
  dw_expect_error(&c, "DEPTHWISE_CONV_2D: expected 2 to 3 inputs, got 4");
  dw_valid_case(&c);
  lg_kernel_runner_tensor(&c.r, c.input)->type = kTfLiteInt8;
  dw_expect_error(&c,
                  "DEPTHWISE_CONV_2D: INT8 input with filter FLOAT32, bias "
                  "FLOAT32 and output FLOAT32 is not supported (expected "
                  "INT8, INT32 and INT8)");
  dw_valid_case(&c);
  lg_kernel_runner_tensor(&c.r, c.filter)->type = kTfLiteInt8;
  dw_expect_error(&c, "DEPTHWISE_CONV_2D: filter type INT8 is not supported");
  dw_valid_case(&c);
  lg_kernel_runner_tensor(&c.r, c.bias)->type = kTfLiteInt64;
  dw_expect_error(&c, "DEPTHWISE_CONV_2D: bias type INT64 is not supported");
  dw_valid_case(&c);
  lg_kernel_runner_tensor(&c.r, c.output)->type = kTfLiteInt16;
  dw_expect_error(&c, "DEPTHWISE_CONV_2D: output type INT16 is not supported");
  dw_valid_case(&c);
  set_dims(&c.r, c.filter, (int[]){3, 3, 4}, 3);
  dw_expect_error(&c, "DEPTHWISE_CONV_2D: filter must be 4-D, got [3,3,4]");
  dw_valid_case(&c);
  set_dims(&c.r, c.filter, (int[]){2, 3, 3, 4}, 4);
  dw_expect_error(&c,
                  "DEPTHWISE_CONV_2D: filter shape [2,3,3,4] must have 1 "
                  "as its first dimension");
  dw_valid_case(&c);
  set_dims(&c.r, c.filter, (int[]){1, 3, 3, 5}, 4);
  dw_expect_error(&c,
                  "DEPTHWISE_CONV_2D: filter channels 5 are not a "
                  "multiple of the input channels 2");
  dw_valid_case(&c);
  set_dims(&c.r, c.filter, (int[]){1, 0, 3, 4}, 4);
  dw_expect_error(&c,
                  "DEPTHWISE_CONV_2D: filter shape [1,0,3,4] has an empty "
                  "or oversized window");
  dw_valid_case(&c);
  set_dims(&c.r, c.input, (int[]){1, 3, 3, 0}, 4);
  dw_expect_error(&c,
                  "DEPTHWISE_CONV_2D: input shape [1,3,3,0] has no "
                  "channels");
  dw_valid_case(&c);
  set_dims(&c.r, c.bias, (int[]){2}, 1);
  dw_expect_error(&c,
                  "DEPTHWISE_CONV_2D: bias shape [2] does not hold 4 "
                  "elements");
  dw_valid_case(&c);
  c.params.padding = kTfLitePaddingUnknown;
  dw_expect_error(&c,
                  "DEPTHWISE_CONV_2D: padding UNKNOWN (0) is not "
                  "supported");
  dw_valid_case(&c);
  c.params.dilation_width_factor = 0;
  dw_expect_error(&c,
                  "DEPTHWISE_CONV_2D: dilation_w_factor must be at least "
                  "1, got 0");
  dw_valid_case(&c);
  c.params.stride_height = 0;
  dw_expect_error(&c, "DEPTHWISE_CONV_2D: stride_h must be at least 1, got 0");
  dw_valid_case(&c);
  c.params.activation = kTfLiteActSignBit;
  dw_expect_error(&c,
                  "DEPTHWISE_CONV_2D: fused activation SIGN_BIT (5) is "
                  "not supported");
  dw_valid_case(&c);
  c.params.padding = kTfLitePaddingValid;
  c.params.dilation_width_factor = 3;
  dw_expect_error(&c,
                  "DEPTHWISE_CONV_2D: input 3x3 is smaller than the "
                  "dilated 3x7 filter with VALID padding");
  /* Invoke after a shape change. */
  dw_valid_case(&c);
  assert_int_equal(lg_kernel_runner_prepare(&c.r), kTfLiteOk);
  set_dims(&c.r, c.input, (int[]){1, 3, 2, 2}, 4);
  expect_error(&c.r, lg_kernel_runner_invoke(&c.r),
               "DEPTHWISE_CONV_2D: tensor shapes changed since prepare");
  lg_kernel_runner_release(&c.r);
}

static void test_dw_random(void** state) {
  (void)state;
  /* Channels around the 64-channel chunk (1, 3, 63, 64, 65, 130), the
   * multiplier path, dilation, strides, batch, threads. */
  const conv_spec specs[] = {
      {true, 1, 5, 5, 3, 3, 3, 3, 0, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 1},
      {true, 2, 7, 8, 64, 64, 3, 3, 0, 2, 2, 1, 1, kTfLitePaddingSame,
       kTfLiteActRelu6, true, false, 2},
      {true, 1, 9, 6, 65, 65, 3, 3, 0, 1, 1, 2, 2, kTfLitePaddingValid,
       kTfLiteActRelu, false, true, 3},
      {true, 1, 6, 6, 63, 126, 5, 5, 0, 1, 2, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 2},
      {true, 3, 4, 4, 1, 1, 2, 2, 0, 1, 1, 1, 1, kTfLitePaddingValid,
       kTfLiteActReluN1To1, true, false, 1},
      {true, 1, 11, 13, 130, 130, 3, 5, 0, 3, 1, 1, 2, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 2},
      {true, 1, 3, 3, 5, 15, 3, 3, 0, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, true, 1},
      {true, 1, 12, 12, 4, 4, 9, 9, 0, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, false, false, 2},
      /* Enough work (2M multiply-adds) to split rows over threads. */
      {true, 1, 44, 44, 144, 144, 3, 3, 0, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActRelu6, true, false, 2},
  };
  uint32_t seed = 222u;
  for (int i = 0; i < ARRAY_SIZE(specs); ++i) {
    check_conv_all_isas(&specs[i], seed + (uint32_t)i);
  }
}

/* The 3x3 row loop (multiplier 1, SIMD ISAs): channels around its blocks
 * (8 for AVX2; 32, as two masked halves of 16, for AVX-512), rows narrower
 * than the window, strides, dilation, batch, threads. */
static void test_dw_3x3(void** state) {
  (void)state;
  const conv_spec specs[] = {
      /* dw  b  h   w   c   oc  fh fw g  sh sw dh dw  padding act bias var t */
      /* The keyword-spotting model's layers: 25x5x64. */
      {true, 1, 25, 5, 64, 64, 3, 3, 0, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActRelu, true, false, 1},
      {true, 1, 1, 1, 1, 1, 3, 3, 0, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 1},
      {true, 2, 6, 7, 7, 7, 3, 3, 0, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, false, false, 1},
      {true, 1, 5, 2, 8, 8, 3, 3, 0, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActRelu6, true, false, 1},
      {true, 1, 4, 9, 15, 15, 3, 3, 0, 2, 2, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, true, 1},
      {true, 1, 6, 6, 16, 16, 3, 3, 0, 1, 2, 1, 1, kTfLitePaddingValid,
       kTfLiteActNone, true, false, 1},
      {true, 1, 7, 3, 17, 17, 3, 3, 0, 1, 1, 3, 3, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 1},
      {true, 1, 9, 8, 31, 31, 3, 3, 0, 2, 1, 1, 2, kTfLitePaddingSame,
       kTfLiteActReluN1To1, true, false, 1},
      {true, 1, 5, 11, 32, 32, 3, 3, 0, 1, 3, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 1},
      {true, 2, 8, 7, 33, 33, 3, 3, 0, 2, 2, 1, 1, kTfLitePaddingValid,
       kTfLiteActNone, true, false, 1},
      {true, 1, 3, 13, 47, 47, 3, 3, 0, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 1},
      /* Enough work (576K multiply-adds) to split rows over 2 threads. */
      {true, 1, 40, 40, 40, 40, 3, 3, 0, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActRelu6, true, false, 2},
  };
  uint32_t seed = 333u;
  for (int i = 0; i < ARRAY_SIZE(specs); ++i) {
    check_conv_all_isas(&specs[i], seed + (uint32_t)i);
  }
}

/* The 5x5 row loop (multiplier 1, AVX-512; the other ISAs take the quad
 * and tap-list loops): channels around its 16-channel vectors, rows and
 * columns narrower than the window, strides, dilation, batch, VALID, and
 * 2 threads over rows (14 rows) and over channel ranges (7 rows). */
static void test_dw_5x5(void** state) {
  (void)state;
  const conv_spec specs[] = {
      /* dw  b  h   w   c   oc  fh fw g  sh sw dh dw  padding act bias var t */
      {true, 1, 14, 14, 192, 192, 5, 5, 0, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 2},
      {true, 1, 7, 7, 437, 437, 5, 5, 0, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActRelu6, true, false, 2},
      {true, 1, 3, 4, 16, 16, 5, 5, 0, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 1},
      {true, 2, 9, 11, 17, 17, 5, 5, 0, 2, 2, 1, 1, kTfLitePaddingSame,
       kTfLiteActRelu, false, false, 1},
      {true, 1, 12, 10, 40, 40, 5, 5, 0, 1, 2, 2, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, true, 1},
      {true, 1, 9, 13, 7, 7, 5, 5, 0, 1, 1, 1, 2, kTfLitePaddingValid,
       kTfLiteActReluN1To1, true, false, 1},
      {true, 1, 1, 1, 33, 33, 5, 5, 0, 1, 1, 1, 1, kTfLitePaddingSame,
       kTfLiteActNone, true, false, 1},
  };
  uint32_t seed = 555u;
  for (int i = 0; i < ARRAY_SIZE(specs); ++i) {
    check_conv_all_isas(&specs[i], seed + (uint32_t)i);
  }
}

/* ---- The builtin table -------------------------------------------------- */

static void test_nn_table(void** state) {
  (void)state;
  /* TFLite's BuiltinOpResolver ranges; one past the top is refused with the
   * supported range. */
  const struct {
    int32_t code;
    int max;
  } ops[] = {
      {kTfLiteBuiltinConv2d, 8},        {kTfLiteBuiltinDepthwiseConv2d, 7},
      {kTfLiteBuiltinTransposeConv, 5}, {kTfLiteBuiltinFullyConnected, 13},
      {kTfLiteBuiltinBatchMatmul, 4},
  };
  for (int i = 0; i < ARRAY_SIZE(ops); ++i) {
    for (int v = 1; v <= ops[i].max; ++v) {
      const lg_builtin_kernel* k =
          lg_builtin_kernel_find(ops[i].code, v, NULL, NULL);
      assert_non_null(k);
      assert_int_equal(k->registration()->builtin_code, ops[i].code);
    }
    int lo = 0, hi = 0;
    assert_null(lg_builtin_kernel_find(ops[i].code, ops[i].max + 1, &lo, &hi));
    assert_int_equal(lo, 1);
    assert_int_equal(hi, ops[i].max);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv_padding_and_stride),
      cmocka_unit_test(test_conv_dilation),
      cmocka_unit_test(test_conv_channels_batch_groups),
      cmocka_unit_test(test_conv_activations),
      cmocka_unit_test(test_conv_nan_inf_and_empty),
      cmocka_unit_test(test_conv_rejections),
      cmocka_unit_test(test_conv_parameter_rejections),
      cmocka_unit_test(test_conv_invoke_guards),
      cmocka_unit_test(test_conv_random),
      cmocka_unit_test(test_conv_small_channels),
      cmocka_unit_test(test_dw_hand_values),
      cmocka_unit_test(test_dw_nan_inf_and_empty),
      cmocka_unit_test(test_dw_rejections),
      cmocka_unit_test(test_dw_random),
      cmocka_unit_test(test_dw_3x3),
      cmocka_unit_test(test_dw_5x5),
      cmocka_unit_test(test_nn_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
