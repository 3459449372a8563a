/* The DepthwiseConv2D versioning example (DESIGN.md, "Versioning"):
 *   - dilation factors are the last fields of DepthwiseConv2DOptions (and of
 *     TfLiteDepthwiseConvParams), with default 1;
 *   - a model with dilation 2 needs version 2 (lg_op_version, and the writer
 *     with auto versions);
 *   - a runtime whose only DEPTHWISE_CONV_2D covers versions 1..1 rejects it
 *     at creation, naming the op, the version and the supported range;
 *   - a version-1 model carries no dilation fields at all (the writer omits
 *     defaults), and litegpu's version-2-capable kernel runs it bit for bit
 *     like a version-1 kernel (a plain depthwise convolution written here,
 *     registered as the only DEPTHWISE_CONV_2D 1..1 of a selected-ops
 *     interpreter): the new parameter's default keeps the old behaviour.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernels.h"
#include "runtime/model/builtin_options.h"
#include "runtime/model/flatbuffer.h"
#include "runtime/model/model.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "versioning/op_version.h"
#include "versioning/runtime_version.h"

/* DepthwiseConv2DOptions field ids (schema order). */
enum { kDilationWField = 5, kDilationHField = 6 };

/* One depthwise convolution: input [n, h, w, c], filter [1, kh, kw,
 * c * mult], bias [c * mult] (when has_bias). */
typedef struct dw_case {
  const char* name;
  int n, h, w, c, mult, kh, kw;
  int stride_w, stride_h;
  TfLitePadding padding;
  TfLiteFusedActivation activation;
  int dilation_w, dilation_h;
  bool has_bias;
} dw_case;

/* A written model and the data it was built from. */
typedef struct dw_model {
  void* data;
  size_t size;
  float* input;
  float* filter;
  float* bias;
  int out_h, out_w, out_c;
  size_t input_count, output_count;
} dw_model;

/* ---- Helpers --------------------------------------------------------------
 */

/* xorshift32, values in [-1, 1). */
static float next_value(uint32_t* s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return (float)((*s >> 8) & 0xFFFF) / 32768.0f - 1.0f;
}

static float* random_values(size_t count, uint32_t seed) {
  float* v = malloc(count * sizeof(float));
  assert_non_null(v);
  uint32_t s = seed;
  for (size_t i = 0; i < count; ++i) v[i] = next_value(&s);
  return v;
}

/* TFLite's output size: SAME ceil(in / stride); VALID needs the (dilated)
 * window inside the input. */
static int out_size(TfLitePadding padding, int in, int k, int stride,
                    int dilation) {
  int window = (k - 1) * dilation + 1;
  if (padding == kTfLitePaddingSame) return (in + stride - 1) / stride;
  return in < window ? 0 : (in - window) / stride + 1;
}

/* TFLite's leading padding: half of the total, rounded down. */
static int pad_before(TfLitePadding padding, int in, int k, int stride,
                      int dilation, int out) {
  if (padding != kTfLitePaddingSame) return 0;
  int total = (out - 1) * stride + (k - 1) * dilation + 1 - in;
  return total > 0 ? total / 2 : 0;
}

/* Writes the case as a model; version 0 asks the writer to compute it. */
static void write_model(const dw_case* dc, int version, uint32_t seed,
                        dw_model* out) {
  memset(out, 0, sizeof(*out));
  int oc = dc->c * dc->mult;
  out->out_c = oc;
  out->out_h =
      out_size(dc->padding, dc->h, dc->kh, dc->stride_h, dc->dilation_h);
  out->out_w =
      out_size(dc->padding, dc->w, dc->kw, dc->stride_w, dc->dilation_w);
  out->input_count = (size_t)dc->n * dc->h * dc->w * dc->c;
  out->output_count = (size_t)dc->n * out->out_h * out->out_w * oc;
  size_t filter_count = (size_t)dc->kh * dc->kw * oc;
  out->input = random_values(out->input_count, seed);
  out->filter = random_values(filter_count, seed * 7 + 1);
  out->bias = random_values((size_t)oc, seed * 13 + 5);
  lg_model_writer* w = lg_model_writer_create(NULL);
  assert_non_null(w);
  lg_model_writer_set_auto_versions(w, version == 0);
  int32_t in_shape[] = {dc->n, dc->h, dc->w, dc->c};
  int32_t f_shape[] = {1, dc->kh, dc->kw, oc};
  int32_t b_shape[] = {oc};
  int32_t o_shape[] = {dc->n, out->out_h, out->out_w, oc};
  lg_writer_tensor x = {
      .name = "x", .type = kTfLiteFloat32, .shape = in_shape, .num_dims = 4};
  int32_t xi = lg_model_writer_add_tensor(w, &x);
  int32_t fi = lg_model_writer_add_const_tensor(w, "filter", kTfLiteFloat32,
                                                f_shape, 4, out->filter,
                                                filter_count * sizeof(float));
  int32_t bi = dc->has_bias ? lg_model_writer_add_const_tensor(
                                  w, "bias", kTfLiteFloat32, b_shape, 1,
                                  out->bias, (size_t)oc * sizeof(float))
                            : -1;
  x.name = "y";
  x.shape = o_shape;
  int32_t yi = lg_model_writer_add_tensor(w, &x);
  TfLiteDepthwiseConvParams p = {.padding = dc->padding,
                                 .stride_width = dc->stride_w,
                                 .stride_height = dc->stride_h,
                                 .depth_multiplier = dc->mult,
                                 .activation = dc->activation,
                                 .dilation_width_factor = dc->dilation_w,
                                 .dilation_height_factor = dc->dilation_h};
  int32_t ins[] = {xi, fi, bi};
  assert_int_equal(
      lg_model_writer_add_operator(w, kTfLiteBuiltinDepthwiseConv2d, version,
                                   ins, 3, &yi, 1, &p),
      0);
  lg_model_writer_set_inputs(w, &xi, 1);
  lg_model_writer_set_outputs(w, &yi, 1);
  assert_int_equal(lg_model_writer_finish(w, &out->data, &out->size),
                   kTfLiteOk);
  lg_model_writer_destroy(w);
}

static void free_model(dw_model* m) {
  free(m->data);
  free(m->input);
  free(m->filter);
  free(m->bias);
}

static lg_model* parse(const dw_model* m) {
  lg_model* parsed = NULL;
  assert_int_equal(lg_model_parse(m->data, m->size, NULL, &parsed), kTfLiteOk);
  return parsed;
}

/* ---- A version-1 kernel: plain depthwise convolution, no dilation ---------
 * out[n, y, x, c * mult + m] = act(sum over taps (kh, kw) inside the input,
 * in row-major order, of in[n, y * sh - pad_t + kh, x * sw - pad_l + kw, c]
 * * filter[kh, kw, c * mult + m], then + bias).
 *
 * The sum starts at 0 and adds the taps in the order above with separate
 * roundings, then the bias: the arithmetic of litegpu's baseline (scalar)
 * build of its loop, so with that instruction set forced the two agree bit
 * for bit. litegpu's AVX2 and AVX-512 builds fuse multiply-adds (FMA), so
 * there the outputs may differ in the last bits; they are compared within
 * 1e-6 relative + 1e-6 absolute, the rounding of a few fused terms. */

static TfLiteStatus v1_prepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteDepthwiseConvParams* p = node->builtin_data;
  const TfLiteTensor* in = &context->tensors[node->inputs->data[0]];
  const TfLiteTensor* f = &context->tensors[node->inputs->data[1]];
  TfLiteTensor* out = &context->tensors[node->outputs->data[0]];
  if (p->dilation_width_factor != 1 || p->dilation_height_factor != 1) {
    context->ReportError(context, "v1 DEPTHWISE_CONV_2D: no dilation");
    return kTfLiteError;
  }
  TfLiteIntArray* dims = TfLiteIntArrayCreate(4);
  dims->data[0] = in->dims->data[0];
  dims->data[1] = out_size(p->padding, in->dims->data[1], f->dims->data[1],
                           p->stride_height, 1);
  dims->data[2] = out_size(p->padding, in->dims->data[2], f->dims->data[2],
                           p->stride_width, 1);
  dims->data[3] = f->dims->data[3];
  return context->ResizeTensor(context, out, dims);
}

static float v1_activate(TfLiteFusedActivation a, float v) {
  float lo = a == kTfLiteActReluN1To1 ? -1.0f : 0.0f;
  float hi = a == kTfLiteActRelu6 ? 6.0f : 1.0f;
  if (a == kTfLiteActRelu) return v < 0.0f ? 0.0f : v;
  if (a == kTfLiteActRelu6 || a == kTfLiteActReluN1To1) {
    return v < lo ? lo : (v > hi ? hi : v);
  }
  return v;
}

/* One output value of v1_invoke. */
static float v1_value(const TfLiteTensor* in, const TfLiteTensor* f,
                      const TfLiteDepthwiseConvParams* p, int n, int y, int x,
                      int o, int pad_t, int pad_l) {
  const int ih = in->dims->data[1], iw = in->dims->data[2];
  const int ic = in->dims->data[3];
  const int kh = f->dims->data[1], kw = f->dims->data[2];
  const int oc = f->dims->data[3];
  const int c = o / (oc / ic);
  float total = 0.0f;
  for (int ky = 0; ky < kh; ++ky) {
    const int iy = y * p->stride_height - pad_t + ky;
    if (iy < 0 || iy >= ih) continue;
    for (int kx = 0; kx < kw; ++kx) {
      const int ix = x * p->stride_width - pad_l + kx;
      if (ix < 0 || ix >= iw) continue;
      const float a = in->data.f[(((size_t)n * ih + iy) * iw + ix) * ic + c];
      const float b = f->data.f[((size_t)ky * kw + kx) * oc + o];
      total += a * b;
    }
  }
  return total;
}

static TfLiteStatus v1_invoke(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteDepthwiseConvParams* p = node->builtin_data;
  const TfLiteTensor* in = &context->tensors[node->inputs->data[0]];
  const TfLiteTensor* f = &context->tensors[node->inputs->data[1]];
  const int bias_index = node->inputs->size > 2 ? node->inputs->data[2] : -1;
  const float* bias =
      bias_index >= 0 ? context->tensors[bias_index].data.f : NULL;
  TfLiteTensor* out = &context->tensors[node->outputs->data[0]];
  const int on = out->dims->data[0], oh = out->dims->data[1];
  const int ow = out->dims->data[2], oc = out->dims->data[3];
  const int pad_t = pad_before(p->padding, in->dims->data[1], f->dims->data[1],
                               p->stride_height, 1, oh);
  const int pad_l = pad_before(p->padding, in->dims->data[2], f->dims->data[2],
                               p->stride_width, 1, ow);
  float* dst = out->data.f;
  for (int n = 0; n < on; ++n) {
    for (int y = 0; y < oh; ++y) {
      for (int x = 0; x < ow; ++x) {
        for (int o = 0; o < oc; ++o) {
          float v = v1_value(in, f, p, n, y, x, o, pad_t, pad_l) +
                    (bias != NULL ? bias[o] : 0.0f);
          *dst++ = v1_activate(p->activation, v);
        }
      }
    }
  }
  return kTfLiteOk;
}

static const TfLiteRegistration kV1Kernel = {
    .prepare = v1_prepare, .invoke = v1_invoke, .version = 1};

/* ---- Running --------------------------------------------------------------
 */

typedef struct capture {
  char text[2048];
  size_t length;
} capture;

static void capture_fn(void* user_data, const char* format, va_list args) {
  capture* c = user_data;
  if (c->length >= sizeof(c->text) - 1) return;
  int n =
      vsnprintf(c->text + c->length, sizeof(c->text) - c->length, format, args);
  if (n > 0) c->length += (size_t)n;
  if (c->length > sizeof(c->text) - 2) c->length = sizeof(c->text) - 2;
  c->text[c->length++] = '\n';
  c->text[c->length] = '\0';
}

/* An interpreter over `m`: with litegpu's kernels (v1_only false) or only
 * the test's version-1 kernel, registered for versions 1..1. NULL when
 * creation fails (messages in *c). */
static TfLiteInterpreter* create(const dw_model* m, bool v1_only, int threads,
                                 capture* c, TfLiteModel** model) {
  *model = TfLiteModelCreate(m->data, m->size);
  assert_non_null(*model);
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  memset(c, 0, sizeof(*c));
  TfLiteInterpreterOptionsSetErrorReporter(o, capture_fn, c);
  TfLiteInterpreterOptionsSetNumThreads(o, threads);
  TfLiteInterpreter* ip = NULL;
  if (v1_only) {
    TfLiteInterpreterOptionsAddBuiltinOp(o, kTfLiteBuiltinDepthwiseConv2d,
                                         &kV1Kernel, 1, 1);
    ip = TfLiteInterpreterCreateWithSelectedOps(*model, o);
  } else {
    ip = TfLiteInterpreterCreate(*model, o);
  }
  TfLiteInterpreterOptionsDelete(o);
  return ip;
}

/* Runs `m` and returns its output (malloc'd, output_count floats). */
static float* run(const dw_model* m, bool v1_only, int threads) {
  capture c;
  TfLiteModel* model = NULL;
  TfLiteInterpreter* ip = create(m, v1_only, threads, &c, &model);
  if (ip == NULL) fail_msg("creation failed: %s", c.text);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  assert_int_equal(
      TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(ip, 0),
                                 m->input, m->input_count * sizeof(float)),
      kTfLiteOk);
  if (TfLiteInterpreterInvoke(ip) != kTfLiteOk) fail_msg("%s", c.text);
  float* out = malloc(m->output_count * sizeof(float) + 1);
  assert_non_null(out);
  assert_int_equal(
      TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(ip, 0), out,
                               m->output_count * sizeof(float)),
      kTfLiteOk);
  TfLiteInterpreterDelete(ip);
  TfLiteModelDelete(model);
  return out;
}

/* ---- Tests ----------------------------------------------------------------
 */

static void test_dilation_fields_are_last(void** state) {
  (void)state;
  const lg_builtin_options_desc* d =
      lg_builtin_options_find(kTfLiteBuiltinDepthwiseConv2d);
  assert_non_null(d);
  assert_string_equal(d->options_name, "DepthwiseConv2DOptions");
  assert_int_equal(d->num_fields, 7);
  for (int i = 0; i < d->num_fields - 2; ++i) {
    assert_true(d->fields[i].field_id < kDilationWField);
  }
  const lg_option_field* w = &d->fields[d->num_fields - 2];
  const lg_option_field* h = &d->fields[d->num_fields - 1];
  assert_int_equal(w->field_id, kDilationWField);
  assert_int_equal(h->field_id, kDilationHField);
  assert_string_equal(w->name, "dilation_w_factor");
  assert_string_equal(h->name, "dilation_h_factor");
  assert_true(w->default_value == 1.0 && h->default_value == 1.0);
  /* The params struct too: the dilation factors are its last members. */
  assert_true(offsetof(TfLiteDepthwiseConvParams, dilation_width_factor) >
              offsetof(TfLiteDepthwiseConvParams, activation));
  assert_int_equal(
      offsetof(TfLiteDepthwiseConvParams, dilation_height_factor) + sizeof(int),
      sizeof(TfLiteDepthwiseConvParams));
  TfLiteDepthwiseConvParams p;
  memset(&p, 0x5A, sizeof(p));
  lg_builtin_options_set_defaults(d, &p);
  assert_int_equal(p.dilation_width_factor, 1);
  assert_int_equal(p.dilation_height_factor, 1);
}

static const dw_case kDilated = {
    "dilation 2",   1, 9, 9,   4, 1, 3, 3, 1, 1, kTfLitePaddingSame,
    kTfLiteActNone, 2, 2, true};

static void test_dilation_needs_version_2(void** state) {
  (void)state;
  dw_model m;
  write_model(&kDilated, 0, 11, &m); /* version computed by the writer */
  lg_model* parsed = parse(&m);
  assert_int_equal(parsed->opcodes[0].version, 2);
  lg_op_signature s;
  assert_int_equal(lg_op_signature_from_model(parsed, 0, 0, NULL, &s),
                   kTfLiteOk);
  assert_int_equal(lg_op_version(&s), 2);
  lg_op_signature_release(&s);
  assert_string_equal(lg_model_min_runtime_version(parsed), "1.12.0");
  const uint8_t* bytes = NULL;
  size_t n = 0;
  assert_true(
      lg_model_find_metadata(parsed, "min_runtime_version", &bytes, &n));
  assert_int_equal(n, 16);
  assert_memory_equal(bytes, "1.12.0\0\0\0\0\0\0\0\0\0\0", 16);
  lg_model_destroy(parsed);
  free_model(&m);
  /* Dilation on one axis is enough; without dilation the version is 1. */
  dw_case one_axis = kDilated;
  one_axis.dilation_w = 1;
  write_model(&one_axis, 0, 11, &m);
  parsed = parse(&m);
  assert_int_equal(parsed->opcodes[0].version, 2);
  lg_model_destroy(parsed);
  free_model(&m);
  one_axis.dilation_h = 1;
  write_model(&one_axis, 0, 11, &m);
  parsed = parse(&m);
  assert_int_equal(parsed->opcodes[0].version, 1);
  assert_string_equal(lg_model_min_runtime_version(parsed), "1.5.0");
  lg_model_destroy(parsed);
  free_model(&m);
}

/* A runtime that knows DEPTHWISE_CONV_2D 1..1 only refuses the dilated
 * (version 2) model at creation and accepts the version-1 one. */
static void test_old_runtime_rejects_version_2(void** state) {
  (void)state;
  dw_model m;
  write_model(&kDilated, 0, 11, &m);
  capture c;
  TfLiteModel* model = NULL;
  TfLiteInterpreter* ip = create(&m, true, 1, &c, &model);
  assert_null(ip);
  assert_non_null(strstr(c.text,
                         "Didn't find op for builtin opcode "
                         "'DEPTHWISE_CONV_2D' version '2'"));
  assert_non_null(strstr(c.text,
                         "DEPTHWISE_CONV_2D version 2 is not supported: this "
                         "runtime supports versions 1 to 1."));
  TfLiteModelDelete(model);
  free_model(&m);
  dw_case plain = kDilated;
  plain.dilation_w = plain.dilation_h = 1;
  write_model(&plain, 0, 11, &m);
  ip = create(&m, true, 1, &c, &model);
  assert_non_null(ip);
  TfLiteInterpreterDelete(ip);
  TfLiteModelDelete(model);
  free_model(&m);
}

/* The options table of the only operator of `m`. */
static lg_fb_table options_table(const lg_model* m) {
  const lg_model_operator* op = &m->subgraphs[0].operators[0];
  assert_int_equal(op->builtin_options_type, 2); /* DepthwiseConv2DOptions */
  return op->builtin_options;
}

static void test_version_1_model_has_no_dilation_fields(void** state) {
  (void)state;
  dw_case plain = kDilated;
  plain.dilation_w = plain.dilation_h = 1;
  dw_model m;
  write_model(&plain, 1, 3, &m);
  lg_model* parsed = parse(&m);
  lg_fb_table t = options_table(parsed);
  assert_int_equal(lg_fb_table_field(&t, kDilationWField), 0);
  assert_int_equal(lg_fb_table_field(&t, kDilationHField), 0);
  assert_true(lg_fb_table_field(&t, 1) != 0); /* stride_w is written */
  /* Such a table is what a version-1 writer produced; it reads back as
   * dilation 1. */
  void* params = NULL;
  assert_int_equal(lg_builtin_options_parse(kTfLiteBuiltinDepthwiseConv2d,
                                            &parsed->subgraphs[0].operators[0],
                                            NULL, &params),
                   kTfLiteOk);
  const TfLiteDepthwiseConvParams* p = params;
  assert_int_equal(p->dilation_width_factor, 1);
  assert_int_equal(p->dilation_height_factor, 1);
  free(params);
  lg_model_destroy(parsed);
  free_model(&m);
  /* The dilated model has both fields. */
  write_model(&kDilated, 0, 3, &m);
  parsed = parse(&m);
  t = options_table(parsed);
  assert_true(lg_fb_table_field(&t, kDilationWField) != 0);
  assert_true(lg_fb_table_field(&t, kDilationHField) != 0);
  lg_model_destroy(parsed);
  free_model(&m);
}

/* Hand-derived check of the version-1 kernel: input 1x3x3x1 = 1..9, filter
 * 2x2 of ones, VALID, stride 1, bias 0.5: each output sums a 2x2 window:
 * [1+2+4+5, 2+3+5+6, 4+5+7+8, 5+6+8+9] + 0.5 = [12.5, 16.5, 24.5, 28.5]. */
static void test_v1_kernel_hand_derived(void** state) {
  (void)state;
  lg_model_writer* w = lg_model_writer_create(NULL);
  static const int32_t xs[] = {1, 3, 3, 1}, fs[] = {1, 2, 2, 1}, bs[] = {1},
                       ys[] = {1, 2, 2, 1};
  static const float ones[4] = {1, 1, 1, 1}, half[1] = {0.5f};
  lg_writer_tensor x = {
      .name = "x", .type = kTfLiteFloat32, .shape = xs, .num_dims = 4};
  int32_t xi = lg_model_writer_add_tensor(w, &x);
  int32_t fi = lg_model_writer_add_const_tensor(w, "f", kTfLiteFloat32, fs, 4,
                                                ones, sizeof(ones));
  int32_t bi = lg_model_writer_add_const_tensor(w, "b", kTfLiteFloat32, bs, 1,
                                                half, sizeof(half));
  x.name = "y";
  x.shape = ys;
  int32_t yi = lg_model_writer_add_tensor(w, &x);
  TfLiteDepthwiseConvParams p = {.padding = kTfLitePaddingValid,
                                 .stride_width = 1,
                                 .stride_height = 1,
                                 .depth_multiplier = 1,
                                 .dilation_width_factor = 1,
                                 .dilation_height_factor = 1};
  int32_t ins[] = {xi, fi, bi};
  lg_model_writer_add_operator(w, kTfLiteBuiltinDepthwiseConv2d, 1, ins, 3, &yi,
                               1, &p);
  lg_model_writer_set_inputs(w, &xi, 1);
  lg_model_writer_set_outputs(w, &yi, 1);
  dw_model hm = {.input_count = 9, .output_count = 4};
  assert_int_equal(lg_model_writer_finish(w, &hm.data, &hm.size), kTfLiteOk);
  lg_model_writer_destroy(w);
  hm.input = malloc(9 * sizeof(float));
  assert_non_null(hm.input);
  for (int i = 0; i < 9; ++i) hm.input[i] = (float)(i + 1);
  static const float want[4] = {12.5f, 16.5f, 24.5f, 28.5f};
  for (int k = 0; k < 2; ++k) {
    float* got = run(&hm, k == 0, 1);
    for (int i = 0; i < 4; ++i) {
      if (got[i] != want[i]) {
        fail_msg("%s kernel: output %d = %.9g, want %.9g",
                 k == 0 ? "v1" : "litegpu", i, got[i], want[i]);
      }
    }
    free(got);
  }
  free_model(&hm);
}

/* Odd sizes, batch > 1, multipliers > 1, both paddings, strides, every
 * activation, no bias, a channel count past one 64-channel chunk. */
static const dw_case kCases[] = {
    {"3x3 same stride 2, mult 2, relu6, batch 2", 2, 7, 5, 3, 2, 3, 3, 2, 2,
     kTfLitePaddingSame, kTfLiteActRelu6, 1, 1, true},
    {"3x3 valid 17x17x8", 1, 17, 17, 8, 1, 3, 3, 1, 1, kTfLitePaddingValid,
     kTfLiteActNone, 1, 1, true},
    {"5x3 same strides 2/1, mult 3, relu, no bias", 1, 5, 7, 1, 3, 5, 3, 1, 2,
     kTfLitePaddingSame, kTfLiteActRelu, 1, 1, false},
    {"3x3 same, 70 channels", 1, 5, 5, 70, 1, 3, 3, 1, 1, kTfLitePaddingSame,
     kTfLiteActReluN1To1, 1, 1, true},
    {"1x1 window, 1x1 input", 3, 1, 1, 5, 1, 1, 1, 1, 1, kTfLitePaddingValid,
     kTfLiteActNone, 1, 1, true},
    {"7x7 window over 3x3 input, same", 1, 3, 3, 2, 2, 7, 7, 1, 1,
     kTfLitePaddingSame, kTfLiteActNone, 1, 1, true},
};

/* Runs every case with both kernels: the same bits when `exact`, else
 * within the FMA tolerance. */
static void compare_kernels(const char* isa, bool exact) {
  for (size_t i = 0; i < sizeof(kCases) / sizeof(kCases[0]); ++i) {
    dw_model m;
    write_model(&kCases[i], 1, (uint32_t)(101 + i), &m);
    lg_model* parsed = parse(&m);
    assert_int_equal(parsed->opcodes[0].version, 1);
    lg_fb_table t = options_table(parsed);
    assert_int_equal(lg_fb_table_field(&t, kDilationWField), 0);
    lg_model_destroy(parsed);
    float* old = run(&m, true, 1);
    for (int threads = 1; threads <= 2; ++threads) {
      float* now = run(&m, false, threads);
      for (size_t j = 0; j < m.output_count; ++j) {
        bool same =
            exact ? memcmp(&old[j], &now[j], sizeof(float)) == 0
                  : fabsf(old[j] - now[j]) <= 1e-6f + 1e-6f * fabsf(old[j]);
        if (!same) {
          fail_msg(
              "%s (%s), %d thread(s): output %zu: v1 kernel %.9g, "
              "litegpu %.9g",
              kCases[i].name, isa, threads, j, old[j], now[j]);
        }
      }
      free(now);
    }
    free(old);
    free_model(&m);
  }
}

static void test_version_1_model_runs_bit_identical(void** state) {
  (void)state;
  int lo = 0, hi = 0;
  const lg_builtin_kernel* k =
      lg_builtin_kernel_find(kTfLiteBuiltinDepthwiseConv2d, 2, &lo, &hi);
  assert_non_null(k); /* litegpu's kernel runs version 2 (dilation) */
  assert_true(k->min_version <= 1);
  lg_gemm_isa saved = lg_gemm_isa_default();
  assert_int_equal(lg_gemm_isa_set_default(LG_GEMM_ISA_SCALAR),
                   LG_GEMM_ISA_SCALAR);
  compare_kernels("scalar", true);
  for (int isa = LG_GEMM_ISA_AVX2; isa < LG_GEMM_ISA_COUNT; ++isa) {
    if (!lg_gemm_isa_supported((lg_gemm_isa)isa)) continue;
    assert_int_equal(lg_gemm_isa_set_default((lg_gemm_isa)isa), isa);
    compare_kernels(lg_gemm_isa_name((lg_gemm_isa)isa), false);
  }
  lg_gemm_isa_set_default(saved);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dilation_fields_are_last),
      cmocka_unit_test(test_dilation_needs_version_2),
      cmocka_unit_test(test_old_runtime_rejects_version_2),
      cmocka_unit_test(test_version_1_model_has_no_dilation_fields),
      cmocka_unit_test(test_v1_kernel_hand_derived),
      cmocka_unit_test(test_version_1_model_runs_bit_identical),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
