/* Tests of the builtin options descriptors and reader
 * (runtime/model/builtin_options.c).
 *
 * Expected values come from reading the same files with the LiteRT Python
 * package: for operator i, cls = getattr(schema_py_generated,
 * BuiltinOptions name); o = cls(); o.Init(op.BuiltinOptions().Bytes,
 * op.BuiltinOptions().Pos); then o.StrideW(), o.Padding(), ... and
 * o._tab.Offset(4 + 2 * id) to see which fields are present in the file.
 */
/* posix_memalign is POSIX, outside strict C11. */
#define _DEFAULT_SOURCE

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/model/builtin_options.h"
#include "runtime/model/flatbuffer.h"
#include "runtime/model/model.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

#define MODEL_DIR LITEGPU_SHARED_DIR "/models/tflite-micro/"

/* ---- Helpers -------------------------------------------------------------*/

typedef struct captured {
  char text[2048];
  size_t used;
} captured;

static void capture(void* user_data, const char* format, va_list args) {
  captured* c = user_data;
  if (c->used + 1 >= sizeof(c->text)) return;
  int n = vsnprintf(c->text + c->used, sizeof(c->text) - c->used, format, args);
  if (n > 0) c->used += (size_t)n;
  if (c->used >= sizeof(c->text) - 1) c->used = sizeof(c->text) - 2;
  c->text[c->used++] = '\n';
  c->text[c->used] = '\0';
}

static void expect_text(const captured* c, const char* needle) {
  if (strstr(c->text, needle) == NULL) {
    fail_msg("message \"%s\" does not contain \"%s\"", c->text, needle);
  }
}

static lg_model* load(const char* name) {
  char path[512];
  captured c = {{0}, 0};
  lg_reporter reporter = {capture, &c};
  lg_model* model = NULL;
  snprintf(path, sizeof(path), "%s%s", MODEL_DIR, name);
  if (lg_model_load_file(path, &reporter, &model) != kTfLiteOk) {
    fail_msg("loading %s failed: %s", path, c.text);
  }
  return model;
}

/* Reads a whole model file into a 16-byte aligned buffer (to patch it). */
static uint8_t* read_model(const char* name, size_t* size) {
  char path[512];
  void* data = NULL;
  snprintf(path, sizeof(path), "%s%s", MODEL_DIR, name);
  FILE* f = fopen(path, "rb");
  if (f == NULL) fail_msg("cannot open %s", path);
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  *size = (size_t)ftell(f);
  rewind(f);
  assert_int_equal(posix_memalign(&data, 16, *size), 0);
  assert_int_equal(fread(data, 1, *size, f), *size);
  fclose(f);
  return data;
}

static int32_t op_code(const lg_model* m, int op) {
  const lg_model_operator* o = &m->subgraphs[0].operators[op];
  return m->opcodes[o->opcode_index].builtin_code;
}

/* The params of operator `op` of subgraph 0; fails the test on error. */
static void* params_of(const lg_model* m, int op) {
  captured c = {{0}, 0};
  lg_reporter reporter = {capture, &c};
  void* params = NULL;
  if (lg_builtin_options_parse(op_code(m, op), &m->subgraphs[0].operators[op],
                               &reporter, &params) != kTfLiteOk) {
    fail_msg("operator %d: %s", op, c.text);
  }
  return params;
}

/* ---- Options from real models --------------------------------------------*/

/* hello_world_float (LiteRT): ops 0 and 1 FullyConnectedOptions with only
 * fused_activation_function present (1 = RELU); op 2's table is empty, so
 * every field reads its default (NONE, DEFAULT, false, false, FLOAT32). */
static void test_hello_world_fully_connected(void** state) {
  (void)state;
  lg_model* m = load("hello_world_float.tflite");
  for (int op = 0; op < 3; ++op) {
    TfLiteFullyConnectedParams* p = params_of(m, op);
    assert_non_null(p);
    assert_int_equal(p->activation, op < 2 ? kTfLiteActRelu : kTfLiteActNone);
    assert_int_equal(p->weights_format,
                     kTfLiteFullyConnectedWeightsFormatDefault);
    assert_false(p->keep_num_dims);
    assert_false(p->asymmetric_quantize_inputs);
    assert_int_equal(p->quantized_bias_type, kTfLiteFloat32);
    free(p);
  }
  lg_model_destroy(m);
}

/* person_detect (LiteRT):
 *   op 0 DEPTHWISE_CONV_2D: fields 1-4 present: stride 2x2, depth_multiplier
 *        8, RELU6; padding absent (SAME), dilations absent (1).
 *   op 1 DEPTHWISE_CONV_2D: stride 1x1, depth_multiplier 1, RELU6.
 *   op 2 CONV_2D: fields 1-3 present: stride 1x1, RELU6; padding SAME.
 *   op 27 AVERAGE_POOL_2D: padding VALID, stride 2x2, filter 3x3, NONE.
 *   op 28 CONV_2D: stride 1x1, activation absent (NONE).
 *   op 29 RESHAPE: new_shape [1, 2].   op 30 SOFTMAX: beta 1.0. */
static void test_person_detect(void** state) {
  (void)state;
  lg_model* m = load("person_detect.tflite");
  TfLiteDepthwiseConvParams* dw = params_of(m, 0);
  assert_int_equal(op_code(m, 0), kTfLiteBuiltinDepthwiseConv2d);
  assert_int_equal(dw->padding, kTfLitePaddingSame);
  assert_int_equal(dw->stride_width, 2);
  assert_int_equal(dw->stride_height, 2);
  assert_int_equal(dw->depth_multiplier, 8);
  assert_int_equal(dw->activation, kTfLiteActRelu6);
  assert_int_equal(dw->dilation_width_factor, 1);
  assert_int_equal(dw->dilation_height_factor, 1);
  free(dw);
  dw = params_of(m, 1);
  assert_int_equal(dw->stride_width, 1);
  assert_int_equal(dw->depth_multiplier, 1);
  free(dw);

  TfLiteConvParams* conv = params_of(m, 2);
  assert_int_equal(op_code(m, 2), kTfLiteBuiltinConv2d);
  assert_int_equal(conv->padding, kTfLitePaddingSame);
  assert_int_equal(conv->stride_width, 1);
  assert_int_equal(conv->stride_height, 1);
  assert_int_equal(conv->activation, kTfLiteActRelu6);
  assert_int_equal(conv->dilation_width_factor, 1);
  assert_int_equal(conv->dilation_height_factor, 1);
  assert_int_equal(conv->quantized_bias_type, kTfLiteFloat32);
  free(conv);
  conv = params_of(m, 28);
  assert_int_equal(conv->activation, kTfLiteActNone);
  free(conv);

  TfLitePoolParams* pool = params_of(m, 27);
  assert_int_equal(op_code(m, 27), kTfLiteBuiltinAveragePool2d);
  assert_int_equal(pool->padding, kTfLitePaddingValid);
  assert_int_equal(pool->stride_width, 2);
  assert_int_equal(pool->stride_height, 2);
  assert_int_equal(pool->filter_width, 3);
  assert_int_equal(pool->filter_height, 3);
  assert_int_equal(pool->activation, kTfLiteActNone);
  free(pool);

  TfLiteReshapeParams* reshape = params_of(m, 29);
  assert_int_equal(op_code(m, 29), kTfLiteBuiltinReshape);
  assert_int_equal(reshape->num_dimensions, 2);
  assert_int_equal(reshape->shape[0], 1);
  assert_int_equal(reshape->shape[1], 2);
  free(reshape);

  TfLiteSoftmaxParams* softmax = params_of(m, 30);
  assert_float_equal(softmax->beta, 1.0f, 0);
  free(softmax);
  lg_model_destroy(m);
}

/* seanet (LiteRT): conv0 Conv2DOptions padding VALID, stride 1x1; conv10
 * stride_w 2, stride_h 1; both NONE with dilations absent (1). */
static void test_seanet_conv(void** state) {
  (void)state;
  static const struct {
    const char* file;
    int stride_w, stride_h;
  } cases[] = {{"seanet/conv/conv0.tflite", 1, 1},
               {"seanet/conv/conv10.tflite", 2, 1}};
  for (int i = 0; i < 2; ++i) {
    lg_model* m = load(cases[i].file);
    TfLiteConvParams* p = params_of(m, 0);
    assert_int_equal(p->padding, kTfLitePaddingValid);
    assert_int_equal(p->stride_width, cases[i].stride_w);
    assert_int_equal(p->stride_height, cases[i].stride_h);
    assert_int_equal(p->activation, kTfLiteActNone);
    assert_int_equal(p->dilation_width_factor, 1);
    assert_int_equal(p->dilation_height_factor, 1);
    free(p);
    lg_model_destroy(m);
  }
}

/* seanet (LiteRT): strided_slice0 begin_mask 13, end_mask 15;
 * strided_slice31 begin_mask 9, end_mask 11; the other masks and offset are
 * absent (0/false). */
static void test_seanet_strided_slice(void** state) {
  (void)state;
  static const struct {
    const char* file;
    int begin, end;
  } cases[] = {{"seanet/strided_slice/strided_slice0.tflite", 13, 15},
               {"seanet/strided_slice/strided_slice31.tflite", 9, 11}};
  for (int i = 0; i < 2; ++i) {
    lg_model* m = load(cases[i].file);
    TfLiteStridedSliceParams* p = params_of(m, 0);
    assert_int_equal(p->begin_mask, cases[i].begin);
    assert_int_equal(p->end_mask, cases[i].end);
    assert_int_equal(p->ellipsis_mask, 0);
    assert_int_equal(p->new_axis_mask, 0);
    assert_int_equal(p->shrink_axis_mask, 0);
    assert_false(p->offset);
    free(p);
    lg_model_destroy(m);
  }
}

/* seanet (LiteRT): transpose_conv0 padding VALID, stride_w 2, stride_h 1,
 * NONE; add0/sub0 store pot_scale_int16 = false explicitly; leaky_relu0 alpha
 * 0.3f; pad0 has an empty PadOptions and quantize0 no options at all: neither
 * op has a params struct. */
static void test_seanet_others(void** state) {
  (void)state;
  lg_model* m = load("seanet/transpose_conv/transpose_conv0.tflite");
  TfLiteTransposeConvParams* tc = params_of(m, 0);
  assert_int_equal(tc->padding, kTfLitePaddingValid);
  assert_int_equal(tc->stride_width, 2);
  assert_int_equal(tc->stride_height, 1);
  assert_int_equal(tc->activation, kTfLiteActNone);
  assert_int_equal(tc->quantized_bias_type, kTfLiteFloat32);
  free(tc);
  lg_model_destroy(m);

  m = load("seanet/add/add0.tflite");
  TfLiteAddParams* add = params_of(m, 0);
  assert_false(add->pot_scale_int16);
  assert_int_equal(add->activation, kTfLiteActNone);
  free(add);
  lg_model_destroy(m);

  m = load("seanet/sub/sub0.tflite");
  TfLiteSubParams* sub = params_of(m, 0);
  assert_false(sub->pot_scale_int16);
  free(sub);
  lg_model_destroy(m);

  m = load("seanet/leaky_relu/leaky_relu0.tflite");
  TfLiteLeakyReluParams* leaky = params_of(m, 0);
  assert_float_equal(leaky->alpha, 0.3f, 0);
  free(leaky);
  lg_model_destroy(m);

  m = load("seanet/pad/pad0.tflite");
  assert_int_equal(m->subgraphs[0].operators[0].builtin_options_type, 22);
  assert_null(params_of(m, 0));
  lg_model_destroy(m);
  m = load("seanet/quantize/quantize0.tflite");
  assert_int_equal(m->subgraphs[0].operators[0].builtin_options_type, 0);
  assert_null(params_of(m, 0));
  lg_model_destroy(m);
}

/* ---- Defaults and errors -------------------------------------------------*/

static void* parse_absent(int32_t code, uint8_t options_type) {
  lg_model_operator op;
  void* params = NULL;
  memset(&op, 0, sizeof(op));
  op.builtin_options_type = options_type; /* table absent either way */
  assert_int_equal(lg_builtin_options_parse(code, &op, NULL, &params),
                   kTfLiteOk);
  assert_non_null(params);
  return params;
}

/* No options table: schema defaults, not a zeroed struct (see the decision
 * in builtin_options.c). */
static void test_defaults_when_absent(void** state) {
  (void)state;
  for (int typed = 0; typed < 2; ++typed) {
    TfLiteConvParams* conv = parse_absent(kTfLiteBuiltinConv2d, typed ? 1 : 0);
    assert_int_equal(conv->padding, kTfLitePaddingSame);
    assert_int_equal(conv->stride_width, 0);
    assert_int_equal(conv->dilation_width_factor, 1);
    assert_int_equal(conv->dilation_height_factor, 1);
    assert_int_equal(conv->quantized_bias_type, kTfLiteFloat32);
    free(conv);
  }
  TfLiteDepthwiseConvParams* dw =
      parse_absent(kTfLiteBuiltinDepthwiseConv2d, 0);
  assert_int_equal(dw->dilation_width_factor, 1);
  assert_int_equal(dw->dilation_height_factor, 1);
  free(dw);
  TfLiteAddParams* add = parse_absent(kTfLiteBuiltinAdd, 0);
  assert_true(add->pot_scale_int16);
  free(add);
  TfLiteSubParams* sub = parse_absent(kTfLiteBuiltinSub, 0);
  assert_true(sub->pot_scale_int16);
  free(sub);
  TfLiteMirrorPaddingParams* mp = parse_absent(kTfLiteBuiltinMirrorPad, 0);
  assert_int_equal(mp->mode, kTfLiteMirrorPaddingReflect);
  free(mp);
  TfLiteReshapeParams* reshape = parse_absent(kTfLiteBuiltinReshape, 0);
  assert_int_equal(reshape->num_dimensions, 0);
  free(reshape);
  TfLiteCastParams* cast = parse_absent(kTfLiteBuiltinCast, 0);
  assert_int_equal(cast->in_data_type, kTfLiteFloat32);
  free(cast);
  /* UniqueOptions.idx_out_type defaults to INT32, not FLOAT32. */
  TfLiteUniqueParams* unique = parse_absent(kTfLiteBuiltinUnique, 0);
  assert_int_equal(unique->index_out_type, kTfLiteInt32);
  free(unique);
  /* A NULL operator is an op without options. */
  void* params = NULL;
  assert_int_equal(
      lg_builtin_options_parse(kTfLiteBuiltinGelu, NULL, NULL, &params),
      kTfLiteOk);
  assert_false(((TfLiteGeluParams*)params)->approximate);
  free(params);
}

static void test_wrong_union_type(void** state) {
  (void)state;
  lg_model* m = load("person_detect.tflite");
  captured c = {{0}, 0};
  lg_reporter reporter = {capture, &c};
  void* params = (void*)&c;
  /* Operator 2 is a CONV_2D with Conv2DOptions (union type 1). */
  assert_int_equal(lg_builtin_options_parse(kTfLiteBuiltinDepthwiseConv2d,
                                            &m->subgraphs[0].operators[2],
                                            &reporter, &params),
                   kTfLiteError);
  assert_null(params);
  expect_text(&c,
              "DEPTHWISE_CONV_2D: builtin options are of union type 1, "
              "expected DepthwiseConv2DOptions (union type 2)");
  lg_model_destroy(m);
}

/* The table of operator `op` in a patched copy of a model, found with the
 * lg_fb walker so the test patches real positions. */
static lg_fb_table options_table(const uint8_t* data, size_t size, int op) {
  lg_fb_verifier v;
  lg_fb_table root, sg, oper, options;
  lg_fb_vector vec;
  uint8_t type;
  lg_fb_verifier_init(&v, data, size);
  assert_true(lg_fb_root(&v, &root));
  assert_true(lg_fb_table_vector(&v, &root, 2, 4, &vec));
  assert_true(lg_fb_vector_table(&v, &vec, 0, &sg));
  assert_true(lg_fb_table_vector(&v, &sg, 3, 4, &vec));
  assert_true(lg_fb_vector_table(&v, &vec, (uint32_t)op, &oper));
  assert_true(lg_fb_table_union(&v, &oper, 3, &type, &options));
  assert_true(options.pos != 0);
  return options;
}

/* Parses the options of operator `op` of the patched model, expecting an
 * error that contains `needle`. */
static void expect_options_error(const uint8_t* data, size_t size, int op,
                                 const char* needle) {
  captured c = {{0}, 0};
  lg_reporter reporter = {capture, &c};
  lg_model* m = NULL;
  void* params = NULL;
  assert_int_equal(lg_model_parse(data, size, &reporter, &m), kTfLiteOk);
  assert_int_equal(
      lg_builtin_options_parse(op_code(m, op), &m->subgraphs[0].operators[op],
                               &reporter, &params),
      kTfLiteError);
  assert_null(params);
  expect_text(&c, needle);
  lg_model_destroy(m);
}

static void test_bad_enum_values(void** state) {
  (void)state;
  size_t size;
  uint8_t* data = read_model("person_detect.tflite", &size);
  lg_fb_table pool = options_table(data, size, 27); /* AVERAGE_POOL_2D */
  size_t padding = lg_fb_table_field(&pool, 0);
  assert_true(padding != 0);
  data[padding] = 5;
  expect_options_error(data, size, 27,
                       "AVERAGE_POOL_2D: Pool2DOptions field 'padding' has "
                       "value 5, which is not a valid Padding");
  data[padding] = 1;
  lg_fb_table conv = options_table(data, size, 2); /* CONV_2D, RELU6 */
  size_t act = lg_fb_table_field(&conv, 3);
  assert_true(act != 0);
  data[act] = 9;
  expect_options_error(data, size, 2,
                       "CONV_2D: Conv2DOptions field "
                       "'fused_activation_function' has value 9");
  free(data);
}

static void test_vector_too_long(void** state) {
  (void)state;
  size_t size;
  uint8_t* data = read_model("person_detect.tflite", &size);
  lg_fb_table reshape = options_table(data, size, 29);
  lg_fb_verifier v;
  lg_fb_vector vec;
  lg_fb_verifier_init(&v, data, size);
  assert_true(lg_fb_table_vector(&v, &reshape, 0, 4, &vec));
  uint32_t nine = 9;
  memcpy(data + vec.pos - 4, &nine, 4);
  expect_options_error(data, size, 29,
                       "RESHAPE: ReshapeOptions field 'new_shape' has 9 "
                       "elements, more than the 8");
  free(data);
}

/* The model parse verifies only an options table's header; a field whose
 * bytes lie outside the buffer is caught when the options are read. */
static void test_field_outside_buffer(void** state) {
  (void)state;
  size_t size;
  uint8_t* data = read_model("hello_world_float.tflite", &size);
  lg_fb_table fc = options_table(data, size, 0);
  uint16_t far = 0xfffc;
  memcpy(data + fc.vtable + 4, &far, 2); /* field 0's vtable entry */
  expect_options_error(data, size, 0,
                       "FULLY_CONNECTED: FullyConnectedOptions field "
                       "'fused_activation_function'");
  expect_options_error(data, size, 0, "lies outside the buffer");
  free(data);
}

/* ---- Descriptors and names -----------------------------------------------*/

static void test_descriptors(void** state) {
  (void)state;
  static const struct {
    int32_t code;
    uint8_t options_type;
    size_t params_size;
  } cases[] = {
      {kTfLiteBuiltinConv2d, 1, sizeof(TfLiteConvParams)},
      {kTfLiteBuiltinDepthwiseConv2d, 2, sizeof(TfLiteDepthwiseConvParams)},
      {kTfLiteBuiltinMaxPool2d, 5, sizeof(TfLitePoolParams)},
      {kTfLiteBuiltinL2Pool2d, 5, sizeof(TfLitePoolParams)},
      {kTfLiteBuiltinFullyConnected, 8, sizeof(TfLiteFullyConnectedParams)},
      {kTfLiteBuiltinReduceProd, 27, sizeof(TfLiteReducerParams)},
      {kTfLiteBuiltinResizeBilinear, 15, sizeof(TfLiteResizeBilinearParams)},
      {kTfLiteBuiltinSplitV, 79, sizeof(TfLiteSplitVParams)},
      {kTfLiteBuiltinArgMin, 57, sizeof(TfLiteArgMinParams)},
      {kTfLiteBuiltinGelu, 116, sizeof(TfLiteGeluParams)},
      {kTfLiteBuiltinSvdf, 6, sizeof(TfLiteSVDFParams)},
      {kTfLiteBuiltinRnn, 7, sizeof(TfLiteRNNParams)},
      {kTfLiteBuiltinLstm, 14, sizeof(TfLiteLSTMParams)},
      {kTfLiteBuiltinUnidirectionalSequenceRnn, 31,
       sizeof(TfLiteSequenceRNNParams)},
      {kTfLiteBuiltinBidirectionalSequenceLstm, 69,
       sizeof(TfLiteBidirectionalSequenceLSTMParams)},
      {kTfLiteBuiltinBidirectionalSequenceRnn, 70,
       sizeof(TfLiteBidirectionalSequenceRNNParams)},
      {kTfLiteBuiltinUnidirectionalSequenceLstm, 71,
       sizeof(TfLiteUnidirectionalSequenceLSTMParams)},
      {kTfLiteBuiltinSparseToDense, 50, sizeof(TfLiteSparseToDenseParams)},
      {kTfLiteBuiltinEmbeddingLookupSparse, 20,
       sizeof(TfLiteEmbeddingLookupSparseParams)},
      {kTfLiteBuiltinUnique, 80, sizeof(TfLiteUniqueParams)},
      {kTfLiteBuiltinReverseSequence, 87, sizeof(TfLiteReverseSequenceParams)},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    const lg_builtin_options_desc* d = lg_builtin_options_find(cases[i].code);
    assert_non_null(d);
    assert_int_equal(d->options_type, cases[i].options_type);
    assert_int_equal(d->params_size, cases[i].params_size);
  }
  assert_null(lg_builtin_options_find(kTfLiteBuiltinPad));
  assert_null(lg_builtin_options_find(kTfLiteBuiltinQuantize));
  assert_null(lg_builtin_options_find(-1));
  /* ResizeBilinear skips the deprecated ids 0 and 1. */
  const lg_builtin_options_desc* rb =
      lg_builtin_options_find(kTfLiteBuiltinResizeBilinear);
  assert_int_equal(rb->fields[0].field_id, 2);
  assert_int_equal(rb->fields[1].field_id, 3);
  /* EMBEDDING_LOOKUP_SPARSE: one CombinerType byte, SUM by default. */
  const lg_builtin_options_desc* els =
      lg_builtin_options_find(kTfLiteBuiltinEmbeddingLookupSparse);
  assert_int_equal(els->num_fields, 1);
  assert_int_equal(els->fields[0].kind, LG_OPTION_COMBINER);
  assert_true(els->fields[0].default_value == kTfLiteCombinerTypeSum);
}

/* Every descriptor: field ids unique, members inside the params struct, and
 * defaults that round-trip through set_defaults. */
static void test_descriptor_consistency(void** state) {
  (void)state;
  int found = 0;
  for (int32_t code = 0; code < 256; ++code) {
    const lg_builtin_options_desc* d = lg_builtin_options_find(code);
    if (d == NULL) continue;
    found++;
    assert_int_equal(d->builtin_code, code);
    for (int i = 0; i < d->num_fields; ++i) {
      const lg_option_field* f = &d->fields[i];
      assert_true(f->offset < d->params_size);
      for (int j = 0; j < i; ++j) {
        assert_int_not_equal(f->field_id, d->fields[j].field_id);
      }
      if (f->kind == LG_OPTION_INT32_VECTOR) {
        assert_true(f->count_offset < d->params_size);
        /* 8, or STABLEHLO_CASE's 20 branches */
        assert_true(f->capacity == 8 || f->capacity == 20);
      }
      if (f->kind == LG_OPTION_FLOAT_VECTOR) {
        assert_true(f->count_offset < d->params_size);
      }
      if (f->kind == LG_OPTION_INT64_ARRAY) {
        /* 8, or 16 for StableHLO reduce-window's (low, high) padding */
        assert_true(f->capacity == 8 || f->capacity == 16);
        assert_true(f->offset + (size_t)f->capacity * sizeof(int64_t) <=
                    d->params_size);
      }
    }
    void* params = malloc(d->params_size);
    memset(params, 0xab, d->params_size);
    lg_builtin_options_set_defaults(d, params);
    void* parsed = NULL;
    assert_int_equal(lg_builtin_options_parse(code, NULL, NULL, &parsed),
                     kTfLiteOk);
    assert_memory_equal(params, parsed, d->params_size);
    free(parsed);
    free(params);
  }
  assert_int_equal(found, 77);
}

/* STABLEHLO_PAD's options live in builtin_options_2 (StablehloPadOptions,
 * BuiltinOptions2 index 10) as [long] vectors: the writer writes them there
 * (up to the last non-zero element), the reader reads them back, missing
 * elements are 0, and a table in builtin_options is not read. */
static void test_options_2_round_trip(void** state) {
  (void)state;
  const lg_builtin_options_desc* d =
      lg_builtin_options_find(kTfLiteBuiltinStablehloPad);
  assert_non_null(d);
  assert_true(d->in_options_2);
  assert_int_equal(d->options_type, 10);
  lg_model_writer* w = lg_model_writer_create(NULL);
  assert_non_null(w);
  const int32_t shape[] = {2, 3};
  lg_writer_tensor x = {
      .name = "x", .type = kTfLiteFloat32, .shape = shape, .num_dims = 2};
  lg_writer_tensor v = {.name = "v", .type = kTfLiteFloat32, .num_dims = 0};
  lg_writer_tensor y = {
      .name = "y", .type = kTfLiteFloat32, .shape = shape, .num_dims = 2};
  int32_t ins[2] = {lg_model_writer_add_tensor(w, &x),
                    lg_model_writer_add_tensor(w, &v)};
  int32_t out = lg_model_writer_add_tensor(w, &y);
  TfLiteStablehloPadParams p;
  memset(&p, 0, sizeof(p));
  p.edge_padding_low[0] = -3;
  p.edge_padding_low[1] = 4000000000LL;
  p.edge_padding_high[1] = 2;
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinStablehloPad, 1,
                                           ins, 2, &out, 1, &p) >= 0);
  assert_int_equal(lg_model_writer_set_inputs(w, ins, 2), kTfLiteOk);
  assert_int_equal(lg_model_writer_set_outputs(w, &out, 1), kTfLiteOk);
  void* data = NULL;
  size_t size = 0;
  assert_int_equal(lg_model_writer_finish(w, &data, &size), kTfLiteOk);
  lg_model_writer_destroy(w);
  lg_model* m = NULL;
  assert_int_equal(lg_model_parse(data, size, NULL, &m), kTfLiteOk);
  const lg_model_operator* op = &m->subgraphs[0].operators[0];
  assert_int_equal(op->builtin_options_type, 0);
  assert_int_equal(op->builtin_options_2_type, 10);
  TfLiteStablehloPadParams* got = NULL;
  assert_int_equal(lg_builtin_options_parse(kTfLiteBuiltinStablehloPad, op,
                                            NULL, (void**)&got),
                   kTfLiteOk);
  assert_memory_equal(got, &p, sizeof(p));
  free(got);
  /* The same table announced in builtin_options is not StablehloPad's. */
  lg_model_operator moved = *op;
  moved.builtin_options_2_type = 0;
  moved.builtin_options_type = 10;
  moved.builtin_options = op->builtin_options_2;
  assert_int_equal(lg_builtin_options_parse(kTfLiteBuiltinStablehloPad, &moved,
                                            NULL, (void**)&got),
                   kTfLiteOk);
  TfLiteStablehloPadParams zero;
  memset(&zero, 0, sizeof(zero));
  assert_memory_equal(got, &zero, sizeof(zero));
  free(got);
  /* A wrong BuiltinOptions2 type is an error. */
  moved = *op;
  moved.builtin_options_2_type = 13;
  assert_int_equal(lg_builtin_options_parse(kTfLiteBuiltinStablehloPad, &moved,
                                            NULL, (void**)&got),
                   kTfLiteError);
  lg_model_destroy(m);
  free(data);
}

/* Writes a one-op model of `code` with `params` (NULL: no options) and
 * returns the params the reader parses back (free them). */
static void* write_and_parse(int32_t code, const void* params) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  assert_non_null(w);
  const int32_t shape[] = {2, 3};
  lg_writer_tensor x = {
      .name = "x", .type = kTfLiteFloat32, .shape = shape, .num_dims = 2};
  int32_t in = lg_model_writer_add_tensor(w, &x);
  x.name = "y";
  int32_t out = lg_model_writer_add_tensor(w, &x);
  assert_true(
      lg_model_writer_add_operator(w, code, 1, &in, 1, &out, 1, params) >= 0);
  assert_int_equal(lg_model_writer_set_inputs(w, &in, 1), kTfLiteOk);
  assert_int_equal(lg_model_writer_set_outputs(w, &out, 1), kTfLiteOk);
  void* data = NULL;
  size_t size = 0;
  assert_int_equal(lg_model_writer_finish(w, &data, &size), kTfLiteOk);
  lg_model_writer_destroy(w);
  lg_model* m = NULL;
  assert_int_equal(lg_model_parse(data, size, NULL, &m), kTfLiteOk);
  void* got = NULL;
  assert_int_equal(
      lg_builtin_options_parse(code, &m->subgraphs[0].operators[0], NULL, &got),
      kTfLiteOk);
  lg_model_destroy(m);
  free(data);
  return got;
}

/* The kinds the StableHLO gather, scatter, reduce-window and case options
 * and LSH_PROJECTION's type added: [long] vectors with a count, longs (all
 * 64 bits), [long] arrays whose absent elements are 1, a 20-entry [int]
 * vector, and the LSHProjectionType byte. */
static void test_stablehlo_vector_kinds_round_trip(void** state) {
  (void)state;
  TfLiteStablehloGatherParams g;
  memset(&g, 0, sizeof(g));
  g.offset_dims[0] = 1;
  g.offset_dims[1] = 3;
  g.num_offset_dims = 2;
  g.num_collapsed_slice_dims = 0;
  g.start_index_map[0] = 2;
  g.num_start_index_map = 1;
  g.index_vector_dim = 5000000000LL;
  g.slice_sizes[0] = -1;
  g.slice_sizes[1] = 1LL << 40;
  g.slice_sizes[2] = 7;
  g.num_slice_sizes = 3;
  g.indices_are_sorted = true;
  TfLiteStablehloGatherParams* gg =
      write_and_parse(kTfLiteBuiltinStablehloGather, &g);
  assert_memory_equal(gg, &g, sizeof(g));
  free(gg);

  TfLiteStablehloScatterParams sc;
  memset(&sc, 0, sizeof(sc));
  sc.update_window_dims[0] = 4;
  sc.num_update_window_dims = 1;
  for (int i = 0; i < 8; ++i) sc.inserted_window_dims[i] = i;
  sc.num_inserted_window_dims = 8;
  sc.scatter_dims_to_operand_dims[0] = 0;
  sc.num_scatter_dims_to_operand_dims = 1;
  sc.index_vector_dim = -2;
  sc.unique_indices = true;
  sc.update_computation_subgraph_index = 3;
  TfLiteStablehloScatterParams* gs =
      write_and_parse(kTfLiteBuiltinStablehloScatter, &sc);
  assert_memory_equal(gs, &sc, sizeof(sc));
  free(gs);

  /* Reduce window: absent (no options) fills the window attributes with 1
   * and the padding with 0, as LiteRT's reader does. */
  TfLiteStablehloReduceWindowParams* rw =
      write_and_parse(kTfLiteBuiltinStablehloReduceWindow, NULL);
  for (int i = 0; i < 8; ++i) {
    assert_true(rw->window_dimensions[i] == 1 && rw->window_strides[i] == 1 &&
                rw->base_dilations[i] == 1 && rw->window_dilations[i] == 1);
  }
  for (int i = 0; i < 16; ++i) assert_true(rw->padding[i] == 0);
  rw->window_dimensions[0] = 3;
  rw->base_dilations[1] = 2;
  rw->padding[15] = -4;
  rw->body_subgraph_index = 2;
  TfLiteStablehloReduceWindowParams* rw2 =
      write_and_parse(kTfLiteBuiltinStablehloReduceWindow, rw);
  assert_memory_equal(rw2, rw, sizeof(*rw));
  free(rw);
  free(rw2);

  TfLiteStablehloCaseParams c;
  memset(&c, 0, sizeof(c));
  for (int i = 0; i < 20; ++i) c.branch_subgraph_indices[i] = 20 - i;
  c.num_branches = 20;
  TfLiteStablehloCaseParams* gc =
      write_and_parse(kTfLiteBuiltinStablehloCase, &c);
  assert_memory_equal(gc, &c, sizeof(c));
  free(gc);

  TfLiteLSHProjectionParams l = {kTfLiteLshProjectionDense};
  TfLiteLSHProjectionParams* gl =
      write_and_parse(kTfLiteBuiltinLshProjection, &l);
  assert_int_equal(gl->type, kTfLiteLshProjectionDense);
  free(gl);
  TfLiteSkipGramParams sg = {3, 2, true};
  TfLiteSkipGramParams* gsg = write_and_parse(kTfLiteBuiltinSkipGram, &sg);
  assert_int_equal(gsg->ngram_size, 3);
  assert_int_equal(gsg->max_skip_size, 2);
  assert_true(gsg->include_all_ngrams);
  free(gsg);
}

static void test_op_names(void** state) {
  (void)state;
  assert_string_equal(lg_builtin_op_name(0), "ADD");
  assert_string_equal(lg_builtin_op_name(3), "CONV_2D");
  assert_string_equal(lg_builtin_op_name(32), "CUSTOM");
  assert_string_equal(lg_builtin_op_name(51), "DELEGATE");
  assert_string_equal(lg_builtin_op_name(102), "SPLIT_V");
  assert_string_equal(lg_builtin_op_name(126), "BATCH_MATMUL");
  assert_string_equal(lg_builtin_op_name(127),
                      "PLACEHOLDER_FOR_GREATER_OP_CODES");
  assert_string_equal(lg_builtin_op_name(150), "GELU");
  assert_string_equal(lg_builtin_op_name(161), "RIGHT_SHIFT");
  assert_string_equal(lg_builtin_op_name(209), "STABLEHLO_CASE");
  assert_string_equal(lg_builtin_op_name(210), "UNKNOWN");
  assert_string_equal(lg_builtin_op_name(-1), "UNKNOWN");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hello_world_fully_connected),
      cmocka_unit_test(test_person_detect),
      cmocka_unit_test(test_seanet_conv),
      cmocka_unit_test(test_seanet_strided_slice),
      cmocka_unit_test(test_seanet_others),
      cmocka_unit_test(test_defaults_when_absent),
      cmocka_unit_test(test_wrong_union_type),
      cmocka_unit_test(test_bad_enum_values),
      cmocka_unit_test(test_vector_too_long),
      cmocka_unit_test(test_field_outside_buffer),
      cmocka_unit_test(test_descriptors),
      cmocka_unit_test(test_options_2_round_trip),
      cmocka_unit_test(test_stablehlo_vector_kinds_round_trip),
      cmocka_unit_test(test_descriptor_consistency),
      cmocka_unit_test(test_op_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
