/* Model writer: models written here are parsed back with lg_model_parse (the
 * verifying reader) and every field is compared; raw FlatBuffer fields are
 * read through the verifier where the parsed form hides them (omitted
 * defaults, the two builtin code fields, Buffer offset/size). */
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

/* ---- Helpers ------------------------------------------------------------- */

/* Captures reported messages. */
typedef struct capture {
  char last[512];
  int count;
} capture;

static void capture_fn(void* user_data, const char* format, va_list args) {
  capture* c = user_data;
  vsnprintf(c->last, sizeof(c->last), format, args);
  c->count++;
}

static capture g_capture;
static const lg_reporter g_reporter = {capture_fn, &g_capture};

static int setup(void** state) {
  (void)state;
  memset(&g_capture, 0, sizeof(g_capture));
  return 0;
}

/* Finishes `w` (which must succeed), parses the result into *model and
 * returns the bytes, which the model borrows. */
static uint8_t* finish_and_parse(lg_model_writer* w, size_t* size,
                                 lg_model** model) {
  void* data = NULL;
  assert_int_equal(lg_model_writer_finish(w, &data, size), kTfLiteOk);
  assert_non_null(data);
  assert_int_equal((uintptr_t)data % 16, 0);
  assert_memory_equal((const uint8_t*)data + 4, "TFL3", 4);
  assert_int_equal(lg_model_parse(data, *size, &g_reporter, model), kTfLiteOk);
  assert_ptr_equal((*model)->data, data); /* aligned: parsed in place */
  assert_int_equal((*model)->version, 3);
  return data;
}

static int32_t add_f32(lg_model_writer* w, const char* name,
                       const int32_t* shape, int num_dims) {
  lg_writer_tensor t = {.name = name,
                        .type = kTfLiteFloat32,
                        .shape = shape,
                        .num_dims = num_dims};
  return lg_model_writer_add_tensor(w, &t);
}

static void assert_ints(const int32_t* got, int32_t got_count,
                        const int32_t* want, int32_t want_count) {
  assert_int_equal(got_count, want_count);
  for (int32_t i = 0; i < want_count; ++i) assert_int_equal(got[i], want[i]);
}

/* The raw root table of a finished model, through the verifier. */
static void raw_root(lg_fb_verifier* v, const uint8_t* data, size_t size,
                     lg_fb_table* root) {
  lg_fb_verifier_init(v, data, size);
  assert_true(lg_fb_root(v, root));
}

/* Element `index` of the Model's table vector field `id`. */
static void raw_model_item(lg_fb_verifier* v, const lg_fb_table* root,
                           uint16_t id, uint32_t index, lg_fb_table* out) {
  lg_fb_vector vec;
  assert_true(lg_fb_table_vector(v, root, id, 4, &vec));
  assert_true(index < vec.count);
  assert_true(lg_fb_vector_table(v, &vec, index, out));
}

/* ---- Tensors, buffers, quantization -------------------------------------- */

static const float kScales[3] = {0.5f, 0.25f, 0.125f};
static const int64_t kZeroPoints[3] = {-1, 0, 7};
static const float kMin[1] = {-3.0f}, kMax[1] = {5.5f};

/* Tensors covering every lg_writer_tensor field; returns the buffer index
 * used by the int8 constant. */
static int32_t add_varied_tensors(lg_model_writer* w) {
  static const int32_t s3[] = {3, 1, 2}, sig3[] = {3, -1, 2}, s0[1] = {0};
  static const int8_t values[6] = {1, -2, 3, -4, 5, -6};
  lg_writer_quantization per_channel = {.scale = kScales,
                                        .num_scale = 3,
                                        .zero_point = kZeroPoints,
                                        .num_zero_point = 3,
                                        .quantized_dimension = 0};
  lg_writer_quantization per_tensor = {.scale = kScales,
                                       .num_scale = 1,
                                       .zero_point = kZeroPoints,
                                       .num_zero_point = 1,
                                       .min = kMin,
                                       .num_min = 1,
                                       .max = kMax,
                                       .num_max = 1};
  int32_t buffer = lg_model_writer_add_buffer(w, values, sizeof(values));
  lg_writer_tensor t[] = {
      {.name = "a",
       .type = kTfLiteFloat32,
       .shape = s3,
       .num_dims = 3,
       .shape_signature = sig3,
       .has_rank = true},
      {.name = "q",
       .type = kTfLiteInt8,
       .shape = s3,
       .num_dims = 3,
       .buffer = buffer,
       .quantization = &per_channel},
      {.name = NULL,
       .type = kTfLiteInt64,
       .shape = s0,
       .num_dims = 0,
       .is_variable = true},
      {.name = "h",
       .type = kTfLiteFloat16,
       .shape = s3,
       .num_dims = 1,
       .quantization = &per_tensor},
      {.name = "b", .type = kTfLiteBool, .shape = s3, .num_dims = 2},
  };
  for (int i = 0; i < 5; ++i) {
    assert_int_equal(lg_model_writer_add_tensor(w, &t[i]), i);
  }
  return buffer;
}

static void check_varied_tensors(const lg_model* m, int32_t buffer) {
  static const int32_t s3[] = {3, 1, 2}, sig3[] = {3, -1, 2};
  const lg_model_subgraph* sg = &m->subgraphs[0];
  assert_int_equal(sg->num_tensors, 5);
  const lg_model_tensor* a = &sg->tensors[0];
  assert_string_equal(a->name, "a");
  assert_int_equal(a->type, kTfLiteFloat32);
  assert_ints(a->shape, a->num_dims, s3, 3);
  assert_ints(a->shape_signature, a->num_dims_signature, sig3, 3);
  assert_true(a->has_rank);
  assert_false(a->has_quantization);
  assert_int_equal(a->buffer, 0);
  const lg_model_tensor* q = &sg->tensors[1];
  assert_int_equal(q->type, kTfLiteInt8);
  assert_int_equal(q->buffer, (uint32_t)buffer);
  assert_true(q->has_quantization);
  assert_int_equal(q->quantization.num_scale, 3);
  assert_memory_equal(q->quantization.scale, kScales, sizeof(kScales));
  assert_int_equal(q->quantization.num_zero_point, 3);
  assert_memory_equal(q->quantization.zero_point, kZeroPoints,
                      sizeof(kZeroPoints));
  assert_int_equal(q->quantization.quantized_dimension, 0);
  assert_int_equal(q->num_dims_signature, -1);
  const lg_model_tensor* v = &sg->tensors[2];
  assert_string_equal(v->name, "");
  assert_int_equal(v->type, kTfLiteInt64);
  assert_int_equal(v->num_dims, 0);
  assert_true(v->is_variable);
  assert_false(v->has_rank);
  const lg_model_tensor* h = &sg->tensors[3];
  assert_int_equal(h->type, kTfLiteFloat16);
  assert_int_equal(h->quantization.num_min, 1);
  assert_true(h->quantization.min[0] == kMin[0]);
  assert_true(h->quantization.max[0] == kMax[0]);
  assert_int_equal(h->quantization.zero_point[0], -1);
  assert_int_equal(sg->tensors[4].type, kTfLiteBool);
  assert_int_equal(sg->tensors[4].num_dims, 2);
}

static void test_tensors_round_trip(void** state) {
  (void)state;
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  assert_non_null(w);
  int32_t buffer = add_varied_tensors(w);
  lg_model* m = NULL;
  size_t size = 0;
  uint8_t* data = finish_and_parse(w, &size, &m);
  check_varied_tensors(m, buffer);
  assert_int_equal(m->num_buffers, 2);
  assert_null(m->buffers[0].data); /* the empty sentinel */
  assert_int_equal(m->buffers[0].size, 0);
  assert_int_equal(g_capture.count, 0);
  assert_null(lg_model_writer_error(w));
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
}

/* Buffers of awkward sizes: each one's data starts 16-byte aligned. */
static void test_buffers_aligned(void** state) {
  (void)state;
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  uint8_t bytes[100];
  for (int i = 0; i < 100; ++i) bytes[i] = (uint8_t)(i * 7 + 1);
  static const size_t sizes[] = {1, 3, 16, 17, 33, 100, 0, 5};
  for (int i = 0; i < 8; ++i) {
    assert_int_equal(lg_model_writer_add_buffer(w, bytes, sizes[i]), i + 1);
  }
  lg_model* m = NULL;
  size_t size = 0;
  uint8_t* data = finish_and_parse(w, &size, &m);
  assert_int_equal(m->num_buffers, 9);
  for (int i = 0; i < 8; ++i) {
    const lg_model_buffer* b = &m->buffers[i + 1];
    assert_int_equal(b->size, sizes[i]);
    if (sizes[i] == 0) {
      assert_null(b->data);
      continue;
    }
    assert_int_equal((size_t)(b->data - data) % 16, 0);
    assert_memory_equal(b->data, bytes, sizes[i]);
  }
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
}

/* add_buffer_ref borrows: a change to the source shows in the output. */
static void test_buffer_ref_borrows(void** state) {
  (void)state;
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  float weights[4] = {1, 2, 3, 4};
  int32_t b = lg_model_writer_add_buffer_ref(w, weights, sizeof(weights));
  weights[2] = 30;
  lg_model* m = NULL;
  size_t size = 0;
  uint8_t* data = finish_and_parse(w, &size, &m);
  assert_memory_equal(m->buffers[b].data, weights, sizeof(weights));
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
}

static void test_const_tensor(void** state) {
  (void)state;
  static const int32_t shape[] = {2, 2};
  static const float values[4] = {1.5f, -2, 0, 8};
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  assert_int_equal(
      lg_model_writer_add_const_tensor(w, "k", kTfLiteFloat32, shape, 2, values,
                                       sizeof(values)),
      0);
  lg_model* m = NULL;
  size_t size = 0;
  uint8_t* data = finish_and_parse(w, &size, &m);
  const lg_model_tensor* t = &m->subgraphs[0].tensors[0];
  assert_string_equal(t->name, "k");
  assert_int_equal(m->buffers[t->buffer].size, sizeof(values));
  assert_memory_equal(m->buffers[t->buffer].data, values, sizeof(values));
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
}

/* ---- Operators and options ----------------------------------------------- */

/* A 4-D float tensor graph with CONV_2D, DEPTHWISE_CONV_2D, ADD, RESHAPE
 * and LOGISTIC; returns the CONV_2D params it wrote. */
static TfLiteConvParams add_option_ops(lg_model_writer* w) {
  static const int32_t s4[] = {1, 4, 4, 2};
  for (int i = 0; i < 6; ++i) assert_int_equal(add_f32(w, "t", s4, 4), i);
  TfLiteConvParams conv = {.padding = kTfLitePaddingValid,
                           .stride_width = 2,
                           .stride_height = 3,
                           .activation = kTfLiteActRelu6,
                           .dilation_width_factor = 2,
                           .dilation_height_factor = 1,
                           .quantized_bias_type = kTfLiteInt32};
  TfLiteDepthwiseConvParams dw = {.padding = kTfLitePaddingSame,
                                  .stride_width = 1,
                                  .stride_height = 1,
                                  .depth_multiplier = 1,
                                  .dilation_width_factor = 1,
                                  .dilation_height_factor = 1};
  TfLiteReshapeParams reshape = {.shape = {4, 8}, .num_dimensions = 2};
  int32_t in3[] = {0, 1, -1}, in2[] = {0, 1}, out[] = {2};
  assert_int_equal(lg_model_writer_add_operator(w, kTfLiteBuiltinConv2d, 1, in3,
                                                3, out, 1, &conv),
                   0);
  assert_int_equal(
      lg_model_writer_add_operator(w, kTfLiteBuiltinDepthwiseConv2d, 1, in3, 3,
                                   out, 1, &dw),
      1);
  assert_int_equal(lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, in2, 2,
                                                out, 1, NULL),
                   2);
  assert_int_equal(lg_model_writer_add_operator(w, kTfLiteBuiltinReshape, 1,
                                                in2, 1, out, 1, &reshape),
                   3);
  assert_int_equal(lg_model_writer_add_operator(w, kTfLiteBuiltinLogistic, 1,
                                                in2, 1, out, 1, NULL),
                   4);
  return conv;
}

static void* parse_options(int32_t code, const lg_model_operator* op) {
  void* params = NULL;
  assert_int_equal(lg_builtin_options_parse(code, op, &g_reporter, &params),
                   kTfLiteOk);
  assert_non_null(params);
  return params;
}

static void check_conv(const lg_model_operator* op,
                       const TfLiteConvParams* want) {
  assert_int_equal(op->builtin_options_type, 1); /* Conv2DOptions */
  assert_ints(op->inputs, op->num_inputs, (const int32_t[]){0, 1, -1}, 3);
  TfLiteConvParams* got = parse_options(kTfLiteBuiltinConv2d, op);
  assert_int_equal(got->padding, want->padding);
  assert_int_equal(got->stride_width, want->stride_width);
  assert_int_equal(got->stride_height, want->stride_height);
  assert_int_equal(got->activation, want->activation);
  assert_int_equal(got->dilation_width_factor, want->dilation_width_factor);
  assert_int_equal(got->dilation_height_factor, want->dilation_height_factor);
  assert_int_equal(got->quantized_bias_type, want->quantized_bias_type);
  /* dilation_h_factor 1 is the default: omitted; dilation_w is written. */
  assert_int_not_equal(lg_fb_table_field(&op->builtin_options, 4), 0);
  assert_int_equal(lg_fb_table_field(&op->builtin_options, 5), 0);
  free(got);
}

static void check_depthwise(const lg_model_operator* op) {
  assert_int_equal(op->builtin_options_type, 2); /* DepthwiseConv2DOptions */
  /* Dilation 1 and padding SAME are defaults: no such fields at all. */
  assert_int_equal(lg_fb_table_field(&op->builtin_options, 0), 0);
  assert_int_equal(lg_fb_table_field(&op->builtin_options, 5), 0);
  assert_int_equal(lg_fb_table_field(&op->builtin_options, 6), 0);
  assert_int_not_equal(lg_fb_table_field(&op->builtin_options, 1), 0);
  TfLiteDepthwiseConvParams* got =
      parse_options(kTfLiteBuiltinDepthwiseConv2d, op);
  assert_int_equal(got->padding, kTfLitePaddingSame);
  assert_int_equal(got->dilation_width_factor, 1);
  assert_int_equal(got->dilation_height_factor, 1);
  assert_int_equal(got->depth_multiplier, 1);
  free(got);
}

static void check_add_reshape_logistic(const lg_model_subgraph* sg) {
  const lg_model_operator* add = &sg->operators[2];
  /* NULL params: an empty AddOptions table, read as the defaults. */
  assert_int_equal(add->builtin_options_type, 11);
  assert_int_not_equal(add->builtin_options.pos, 0);
  assert_int_equal(add->builtin_options.vtable_size, 4);
  TfLiteAddParams* p = parse_options(kTfLiteBuiltinAdd, add);
  assert_true(p->pot_scale_int16);
  assert_int_equal(p->activation, kTfLiteActNone);
  free(p);
  const lg_model_operator* reshape = &sg->operators[3];
  assert_int_equal(reshape->builtin_options_type, 17);
  TfLiteReshapeParams* r = parse_options(kTfLiteBuiltinReshape, reshape);
  assert_int_equal(r->num_dimensions, 2);
  assert_int_equal(r->shape[0], 4);
  assert_int_equal(r->shape[1], 8);
  free(r);
  assert_int_equal(sg->operators[4].builtin_options_type, 0);
  assert_null(sg->operators[4].custom_options);
}

static void test_operators_with_options(void** state) {
  (void)state;
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  TfLiteConvParams conv = add_option_ops(w);
  lg_model* m = NULL;
  size_t size = 0;
  uint8_t* data = finish_and_parse(w, &size, &m);
  const lg_model_subgraph* sg = &m->subgraphs[0];
  assert_int_equal(sg->num_operators, 5);
  check_conv(&sg->operators[0], &conv);
  check_depthwise(&sg->operators[1]);
  check_add_reshape_logistic(sg);
  assert_int_equal(m->num_opcodes, 5);
  assert_int_equal(m->opcodes[sg->operators[3].opcode_index].builtin_code,
                   kTfLiteBuiltinReshape);
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
}

/* RandomOptions' seeds are schema longs that TFLite stores into int
 * params: the writer sign-extends the ints, the reader keeps the low 32
 * bits of whatever the file holds. */
static void test_random_options_long_seeds(void** state) {
  (void)state;
  static const int32_t s1[] = {1};
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  lg_writer_tensor shape = {
      .name = "shape", .type = kTfLiteInt32, .shape = s1, .num_dims = 1};
  assert_int_equal(lg_model_writer_add_tensor(w, &shape), 0);
  assert_int_equal(add_f32(w, "out", s1, 1), 1);
  TfLiteRandomParams seeds = {.seed = -5, .seed2 = 0x7fffffff};
  int32_t in[] = {0}, out[] = {1};
  assert_int_equal(lg_model_writer_add_operator(w, kTfLiteBuiltinRandomUniform,
                                                1, in, 1, out, 1, &seeds),
                   0);
  lg_model* m = NULL;
  size_t size = 0;
  uint8_t* data = finish_and_parse(w, &size, &m);
  lg_model_operator* op = &m->subgraphs[0].operators[0];
  assert_int_equal(op->builtin_options_type, 114);
  const size_t at0 = lg_fb_table_field(&op->builtin_options, 0);
  const size_t at1 = lg_fb_table_field(&op->builtin_options, 1);
  assert_true(at0 != 0 && at1 != 0);
  uint64_t raw0, raw1;
  memcpy(&raw0, data + at0, 8);
  memcpy(&raw1, data + at1, 8);
  assert_true(raw0 == 0xFFFFFFFFFFFFFFFBull);
  assert_true(raw1 == 0x7FFFFFFFull);
  TfLiteRandomParams* p = parse_options(kTfLiteBuiltinRandomUniform, op);
  assert_int_equal(p->seed, -5);
  assert_int_equal(p->seed2, 0x7fffffff);
  free(p);
  /* 2^32 + 7 and 2^40: the low words, 7 and 0. */
  const uint64_t big0 = 0x100000007ull, big1 = 0x10000000000ull;
  memcpy(data + at0, &big0, 8);
  memcpy(data + at1, &big1, 8);
  p = parse_options(kTfLiteBuiltinRandomUniform, op);
  assert_int_equal(p->seed, 7);
  assert_int_equal(p->seed2, 0);
  free(p);
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
}

static void test_custom_operators(void** state) {
  (void)state;
  static const int32_t s1[] = {4};
  static const uint8_t options[5] = {9, 8, 7, 6, 5};
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  add_f32(w, "x", s1, 1);
  add_f32(w, "y", s1, 1);
  int32_t in = 0, out = 1;
  assert_int_equal(lg_model_writer_add_custom_operator(
                       w, "MyOp", 2, &in, 1, &out, 1, options, sizeof(options)),
                   0);
  assert_int_equal(lg_model_writer_add_custom_operator(w, "Atan", 1, &out, 1,
                                                       &in, 1, NULL, 0),
                   1);
  lg_model* m = NULL;
  size_t size = 0;
  uint8_t* data = finish_and_parse(w, &size, &m);
  const lg_model_subgraph* sg = &m->subgraphs[0];
  const lg_model_opcode* code = &m->opcodes[sg->operators[0].opcode_index];
  assert_int_equal(code->builtin_code, kTfLiteBuiltinCustom);
  assert_string_equal(code->custom_code, "MyOp");
  assert_int_equal(code->version, 2);
  assert_int_equal(sg->operators[0].custom_options_size, sizeof(options));
  assert_memory_equal(sg->operators[0].custom_options, options,
                      sizeof(options));
  assert_int_equal(sg->operators[0].builtin_options_type, 0);
  assert_string_equal(m->opcodes[sg->operators[1].opcode_index].custom_code,
                      "Atan");
  assert_null(sg->operators[1].custom_options);
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
}

/* Opcodes are shared by (code, custom name, version); codes >= 127 keep 127
 * in deprecated_builtin_code. */
static void add_opcode_ops(lg_model_writer* w) {
  static const int32_t s1[] = {4};
  add_f32(w, "x", s1, 1);
  int32_t io[] = {0, 0};
  struct {
    int32_t code;
    const char* custom;
    int version;
  } ops[] = {{kTfLiteBuiltinAdd, NULL, 1},
             {kTfLiteBuiltinAdd, NULL, 1},
             {kTfLiteBuiltinAdd, NULL, 2},
             {0, "A", 1},
             {0, "A", 1},
             {0, "B", 1},
             {0, "A", 3},
             {kTfLiteBuiltinBroadcastTo, NULL, 1},
             {kTfLiteBuiltinGelu, NULL, 1},
             {kTfLiteBuiltinFullyConnected, NULL, 1},
             {kTfLiteBuiltinBroadcastTo, NULL, 1}};
  for (int i = 0; i < 11; ++i) {
    int32_t r =
        ops[i].custom != NULL
            ? lg_model_writer_add_custom_operator(
                  w, ops[i].custom, ops[i].version, io, 1, io, 1, NULL, 0)
            : lg_model_writer_add_operator(w, ops[i].code, ops[i].version, io,
                                           2, io, 1, NULL);
    assert_int_equal(r, i);
  }
}

static void check_raw_opcode(lg_fb_verifier* v, const lg_fb_table* root,
                             uint32_t index, int8_t deprecated, int32_t code,
                             bool code_present) {
  lg_fb_table t;
  int8_t got_deprecated;
  int32_t got_code;
  raw_model_item(v, root, 1, index, &t);
  assert_true(lg_fb_table_i8(v, &t, 0, 0, &got_deprecated));
  assert_true(lg_fb_table_i32(v, &t, 3, 0, &got_code));
  assert_int_equal(got_deprecated, deprecated);
  assert_int_equal(got_code, code);
  assert_int_equal(lg_fb_table_field(&t, 3) != 0, code_present);
}

static void test_opcodes_dedup_and_large_codes(void** state) {
  (void)state;
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  add_opcode_ops(w);
  lg_model* m = NULL;
  size_t size = 0;
  uint8_t* data = finish_and_parse(w, &size, &m);
  /* ADD v1, ADD v2, A v1, B v1, A v3, BROADCAST_TO, GELU, FULLY_CONNECTED */
  static const uint32_t want_index[11] = {0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 5};
  const lg_model_subgraph* sg = &m->subgraphs[0];
  assert_int_equal(m->num_opcodes, 8);
  for (int i = 0; i < 11; ++i) {
    assert_int_equal(sg->operators[i].opcode_index, want_index[i]);
  }
  assert_int_equal(m->opcodes[1].version, 2);
  assert_int_equal(m->opcodes[4].version, 3);
  assert_int_equal(m->opcodes[5].builtin_code, kTfLiteBuiltinBroadcastTo);
  assert_int_equal(m->opcodes[6].builtin_code, kTfLiteBuiltinGelu);
  lg_fb_verifier v;
  lg_fb_table root;
  raw_root(&v, data, size, &root);
  check_raw_opcode(&v, &root, 0, 0, 0, false); /* ADD: both 0, omitted */
  check_raw_opcode(&v, &root, 2, 32, 32, true);
  check_raw_opcode(&v, &root, 5, 127, 130, true);
  check_raw_opcode(&v, &root, 6, 127, 150, true);
  check_raw_opcode(&v, &root, 7, 9, 9, true);
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
}

/* ---- Subgraphs, signatures, metadata ------------------------------------- */

static void build_two_subgraphs(lg_model_writer* w) {
  static const int32_t s2[] = {1, 2};
  add_f32(w, "x", s2, 2);
  add_f32(w, "y", s2, 2);
  int32_t x = 0, y = 1, xx[] = {0, 0};
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, xx, 2, &y, 1, NULL);
  assert_int_equal(lg_model_writer_set_inputs(w, &x, 1), kTfLiteOk);
  assert_int_equal(lg_model_writer_set_outputs(w, &y, 1), kTfLiteOk);
  assert_int_equal(lg_model_writer_add_subgraph(w, "second"), 1);
  for (int i = 0; i < 3; ++i) add_f32(w, "s", s2, 2);
  int32_t in[] = {0, 1}, out = 2;
  lg_model_writer_add_operator(w, kTfLiteBuiltinMul, 1, in, 2, &out, 1, NULL);
  lg_model_writer_set_inputs(w, in, 2);
  lg_model_writer_set_outputs(w, &out, 1);
  assert_int_equal(lg_model_writer_select_subgraph(w, 0), kTfLiteOk);
  assert_int_equal(lg_model_writer_set_subgraph_name(w, "main"), kTfLiteOk);
  lg_writer_tensor_map main_in = {"input", 0}, main_out = {"output", 1};
  lg_writer_tensor_map second_in[] = {{"a", 0}, {"b", 1}};
  lg_writer_tensor_map second_out = {"prod", 2};
  assert_int_equal(lg_model_writer_add_signature(w, "serving_default", 0,
                                                 &main_in, 1, &main_out, 1),
                   0);
  assert_int_equal(
      lg_model_writer_add_signature(w, "mul", 1, second_in, 2, &second_out, 1),
      1);
}

static void test_subgraphs_and_signatures(void** state) {
  (void)state;
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  build_two_subgraphs(w);
  lg_model* m = NULL;
  size_t size = 0;
  uint8_t* data = finish_and_parse(w, &size, &m);
  assert_int_equal(m->num_subgraphs, 2);
  const lg_model_subgraph* main_sg = &m->subgraphs[0];
  const lg_model_subgraph* second = &m->subgraphs[1];
  assert_string_equal(main_sg->name, "main");
  assert_string_equal(second->name, "second");
  assert_int_equal(main_sg->num_tensors, 2);
  assert_int_equal(second->num_tensors, 3);
  assert_ints(main_sg->inputs, main_sg->num_inputs, (const int32_t[]){0}, 1);
  assert_ints(second->inputs, second->num_inputs, (const int32_t[]){0, 1}, 2);
  assert_ints(second->outputs, second->num_outputs, (const int32_t[]){2}, 1);
  assert_int_equal(second->num_operators, 1);
  assert_int_equal(m->opcodes[second->operators[0].opcode_index].builtin_code,
                   kTfLiteBuiltinMul);
  assert_int_equal(m->num_signatures, 2);
  const lg_model_signature* s = &m->signatures[1];
  assert_string_equal(s->key, "mul");
  assert_int_equal(s->subgraph_index, 1);
  assert_int_equal(s->num_inputs, 2);
  assert_string_equal(s->inputs[1].name, "b");
  assert_int_equal(s->inputs[1].tensor_index, 1);
  assert_string_equal(s->outputs[0].name, "prod");
  assert_int_equal(s->outputs[0].tensor_index, 2);
  assert_string_equal(m->signatures[0].key, "serving_default");
  assert_int_equal(m->signatures[0].subgraph_index, 0);
  assert_string_equal(m->signatures[0].outputs[0].name, "output");
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
}

static void test_metadata_and_description(void** state) {
  (void)state;
  static const char note[] = "hello";
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  assert_int_equal(lg_model_writer_set_min_runtime_version(w, "2.3.0"),
                   kTfLiteOk);
  assert_int_equal(lg_model_writer_add_metadata(w, "note", note, 5), 1);
  /* A second call replaces the value in place. */
  assert_int_equal(lg_model_writer_set_min_runtime_version(w, "1.14.0"),
                   kTfLiteOk);
  assert_int_equal(lg_model_writer_set_description(w, "a test model"),
                   kTfLiteOk);
  lg_model* m = NULL;
  size_t size = 0;
  uint8_t* data = finish_and_parse(w, &size, &m);
  assert_string_equal(m->description, "a test model");
  assert_int_equal(m->num_metadata, 2);
  const uint8_t* bytes = NULL;
  size_t n = 0;
  assert_true(lg_model_find_metadata(m, "min_runtime_version", &bytes, &n));
  /* Exactly as TFLite stores it: 16 bytes, zero-filled, no terminator. */
  static const uint8_t want[16] = {'1', '.', '1', '4', '.', '0'};
  assert_int_equal(n, 16);
  assert_memory_equal(bytes, want, 16);
  assert_int_equal((size_t)(bytes - data) % 16, 0);
  assert_true(lg_model_find_metadata(m, "note", &bytes, &n));
  assert_int_equal(n, 5);
  assert_memory_equal(bytes, note, 5);
  assert_false(lg_model_find_metadata(m, "buffer_location", NULL, NULL));
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
}

static void test_min_runtime_version_15_chars(void** state) {
  (void)state;
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  assert_int_equal(
      lg_model_writer_set_min_runtime_version(w, "123456789.12345"), kTfLiteOk);
  lg_model* m = NULL;
  size_t size = 0;
  uint8_t* data = finish_and_parse(w, &size, &m);
  const uint8_t* bytes = NULL;
  size_t n = 0;
  assert_true(lg_model_find_metadata(m, "min_runtime_version", &bytes, &n));
  assert_int_equal(n, 16);
  assert_memory_equal(bytes, "123456789.12345", 16); /* NUL is byte 15 */
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
}

/* ---- External buffers ---------------------------------------------------- */

static void build_external(lg_model_writer* w, const float* a, size_t a_size,
                           const uint8_t* b, size_t b_size) {
  static const int32_t s1[] = {5};
  lg_model_writer_set_external_buffers(w, true);
  assert_int_equal(lg_model_writer_add_const_tensor(w, "a", kTfLiteFloat32, s1,
                                                    1, a, a_size),
                   0);
  assert_int_equal(lg_model_writer_add_buffer(w, b, b_size), 2);
  assert_int_equal(lg_model_writer_add_buffer(w, NULL, 0), 3);
  lg_model_writer_set_min_runtime_version(w, "1.0");
}

static void check_raw_external(const uint8_t* data, size_t size, int32_t index,
                               uint64_t want_size) {
  lg_fb_verifier v;
  lg_fb_table root, t;
  uint64_t offset, stored;
  raw_root(&v, data, size, &root);
  raw_model_item(&v, &root, 4, (uint32_t)index, &t);
  assert_int_equal(lg_fb_table_field(&t, 0), 0); /* no inline data */
  assert_true(lg_fb_table_u64(&v, &t, 1, 0, &offset));
  assert_true(lg_fb_table_u64(&v, &t, 2, 0, &stored));
  assert_true(offset > 1 && offset % 16 == 0);
  assert_true(offset + stored <= size);
  assert_int_equal(stored, want_size);
}

static void test_external_buffers(void** state) {
  (void)state;
  static const float a[5] = {1, 2, 3, 4, 5};
  static const uint8_t b[3] = {0xAA, 0xBB, 0xCC};
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  build_external(w, a, sizeof(a), b, sizeof(b));
  lg_model* m = NULL;
  size_t size = 0;
  uint8_t* data = finish_and_parse(w, &size, &m);
  check_raw_external(data, size, 1, sizeof(a));
  check_raw_external(data, size, 2, sizeof(b));
  assert_memory_equal(m->buffers[1].data, a, sizeof(a));
  assert_memory_equal(m->buffers[2].data, b, sizeof(b));
  assert_true(m->buffers[2].data > m->buffers[1].data);
  assert_null(m->buffers[3].data);
  /* Data after the last buffer: 16 zero bytes at least. */
  size_t end = (size_t)(m->buffers[2].data - data) + sizeof(b);
  assert_true(size - end >= 16);
  const uint8_t* loc = NULL;
  size_t n = 0;
  assert_true(lg_model_find_metadata(m, "buffer_location", &loc, &n));
  assert_int_equal(n, strlen("outside flatbuffers"));
  assert_memory_equal(loc, "outside flatbuffers", n);
  assert_true(loc < m->buffers[1].data); /* metadata stays inline */
  assert_true(lg_model_find_metadata(m, "min_runtime_version", &loc, &n));
  assert_int_equal(n, 16);
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
}

static uint8_t* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  assert_non_null(f);
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  long n = ftell(f);
  assert_true(n > 0);
  rewind(f);
  uint8_t* bytes = malloc((size_t)n);
  assert_non_null(bytes);
  assert_int_equal(fread(bytes, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *size = (size_t)n;
  return bytes;
}

/* write_file gives the same bytes as finish, which is repeatable; the file
 * loads through lg_model_load_file. */
static void test_write_file_matches_finish(void** state) {
  (void)state;
  static const float a[5] = {1, 2, 3, 4, 5};
  static const uint8_t b[3] = {1, 2, 3};
  static const char path[] = "test_model_writer_out.tflite";
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  build_external(w, a, sizeof(a), b, sizeof(b));
  void *first = NULL, *second = NULL;
  size_t first_size = 0, second_size = 0, file_size = 0;
  assert_int_equal(lg_model_writer_finish(w, &first, &first_size), kTfLiteOk);
  assert_int_equal(lg_model_writer_finish(w, &second, &second_size), kTfLiteOk);
  assert_int_equal(first_size, second_size);
  assert_memory_equal(first, second, first_size);
  assert_int_equal(lg_model_writer_write_file(w, path), kTfLiteOk);
  uint8_t* file = read_file(path, &file_size);
  assert_int_equal(file_size, first_size);
  assert_memory_equal(file, first, first_size);
  lg_model* m = NULL;
  assert_int_equal(lg_model_load_file(path, &g_reporter, &m), kTfLiteOk);
  assert_memory_equal(m->buffers[1].data, a, sizeof(a));
  lg_model_destroy(m);
  remove(path);
  free(file);
  free(first);
  free(second);
  lg_model_writer_destroy(w);
}

/* Without external buffers the file is exactly the FlatBuffer. */
static void test_inline_file_is_flatbuffer_only(void** state) {
  (void)state;
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  static const uint8_t b[40] = {1};
  lg_model_writer_add_buffer(w, b, sizeof(b));
  lg_model* m = NULL;
  size_t size = 0;
  uint8_t* data = finish_and_parse(w, &size, &m);
  assert_false(lg_model_find_metadata(m, "buffer_location", NULL, NULL));
  assert_true(m->buffers[1].data + sizeof(b) < data + size);
  lg_fb_verifier v;
  lg_fb_table root, t;
  raw_root(&v, data, size, &root);
  raw_model_item(&v, &root, 4, 1, &t);
  assert_int_not_equal(lg_fb_table_field(&t, 0), 0); /* inline data */
  assert_int_equal(lg_fb_table_field(&t, 1), 0);     /* no offset */
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
}

/* ---- Errors -------------------------------------------------------------- */

/* The writer failed with a message holding `needle`, and finish fails. */
static void assert_failed(lg_model_writer* w, const char* needle) {
  assert_true(g_capture.count > 0);
  assert_non_null(strstr(g_capture.last, needle));
  assert_non_null(lg_model_writer_error(w));
  assert_non_null(strstr(lg_model_writer_error(w), needle));
  void* data = NULL;
  size_t size = 0;
  assert_int_equal(lg_model_writer_finish(w, &data, &size), kTfLiteError);
  assert_null(data);
  assert_non_null(strstr(g_capture.last, needle)); /* repeated by finish */
  assert_int_equal(lg_model_writer_write_file(w, "never_written.tflite"),
                   kTfLiteError);
  assert_null(fopen("never_written.tflite", "rb"));
}

static void test_error_bad_tensor_index(void** state) {
  (void)state;
  static const int32_t s1[] = {2};
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  add_f32(w, "x", s1, 1);
  int32_t in[] = {0, 3}, out = 0;
  assert_int_equal(lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, in, 2,
                                                &out, 1, NULL),
                   -1);
  assert_non_null(strstr(g_capture.last, "ADD"));
  assert_failed(w, "bad tensor index 3");
  lg_model_writer_destroy(w);
}

static void test_error_unknown_type(void** state) {
  (void)state;
  static const int32_t s1[] = {2};
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  lg_writer_tensor t = {
      .name = "odd", .type = (TfLiteType)99, .shape = s1, .num_dims = 1};
  assert_int_equal(lg_model_writer_add_tensor(w, &t), -1);
  assert_non_null(strstr(g_capture.last, "odd"));
  /* Later successes do not clear the first error. */
  assert_int_equal(add_f32(w, "fine", s1, 1), 0);
  assert_failed(w, "invalid type 99");
  lg_model_writer_destroy(w);
}

static void test_error_min_runtime_version_too_long(void** state) {
  (void)state;
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  assert_int_equal(
      lg_model_writer_set_min_runtime_version(w, "1234567890.123456"),
      kTfLiteError);
  assert_failed(w, "min_runtime_version '1234567890.123456'");
  lg_model_writer_destroy(w);
}

static void test_error_sixteen_char_version(void** state) {
  (void)state;
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  assert_int_equal(
      lg_model_writer_set_min_runtime_version(w, "1234567890.12345"),
      kTfLiteError);
  assert_failed(w, "does not fit");
  lg_model_writer_destroy(w);
}

static void test_error_bad_buffer_index(void** state) {
  (void)state;
  static const int32_t s1[] = {2};
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  lg_writer_tensor t = {.name = "w",
                        .type = kTfLiteFloat32,
                        .shape = s1,
                        .num_dims = 1,
                        .buffer = 5};
  assert_int_equal(lg_model_writer_add_tensor(w, &t), -1);
  assert_failed(w, "bad buffer index 5");
  lg_model_writer_destroy(w);
}

static void test_error_const_size_mismatch(void** state) {
  (void)state;
  static const int32_t s1[] = {3};
  static const float v[2] = {1, 2};
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  assert_int_equal(lg_model_writer_add_const_tensor(w, "k", kTfLiteFloat32, s1,
                                                    1, v, sizeof(v)),
                   -1);
  assert_failed(w, "8 bytes of data, but its shape holds 12");
  lg_model_writer_destroy(w);
}

static void test_error_activation_without_schema_value(void** state) {
  (void)state;
  static const int32_t s1[] = {2};
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  add_f32(w, "x", s1, 1);
  int32_t io[] = {0, 0};
  TfLiteAddParams p = {.activation = kTfLiteActSigmoid};
  assert_int_equal(
      lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, io, 2, io, 1, &p),
      -1);
  assert_failed(w, "fused_activation_function = 6 has no schema value");
  lg_model_writer_destroy(w);
}

static void test_error_unknown_padding(void** state) {
  (void)state;
  static const int32_t s1[] = {2};
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  add_f32(w, "x", s1, 1);
  int32_t io[] = {0, 0, 0};
  TfLiteConvParams p = {.stride_width = 1, .stride_height = 1};
  assert_int_equal(lg_model_writer_add_operator(w, kTfLiteBuiltinConv2d, 1, io,
                                                3, io, 1, &p),
                   -1);
  assert_failed(w, "CONV_2D): padding = 0");
  lg_model_writer_destroy(w);
}

static void test_error_misc_calls(void** state) {
  (void)state;
  static const int32_t s1[] = {2};
  lg_model_writer* w = lg_model_writer_create(&g_reporter);
  add_f32(w, "x", s1, 1);
  int32_t io = 0;
  assert_int_equal(lg_model_writer_add_operator(w, kTfLiteBuiltinCustom, 1, &io,
                                                1, &io, 1, NULL),
                   -1);
  assert_non_null(strstr(g_capture.last, "invalid builtin code 32"));
  assert_int_equal(lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 0, &io, 1,
                                                &io, 1, NULL),
                   -1);
  assert_non_null(strstr(g_capture.last, "version 0"));
  assert_int_equal(lg_model_writer_add_metadata(w, "buffer_location", "x", 1),
                   -1);
  assert_int_equal(lg_model_writer_add_metadata(w, "m", "x", 1), 0);
  assert_int_equal(lg_model_writer_add_metadata(w, "m", "y", 1), -1);
  assert_non_null(strstr(g_capture.last, "duplicate name 'm'"));
  assert_int_equal(lg_model_writer_select_subgraph(w, 4), kTfLiteError);
  assert_int_equal(lg_model_writer_set_outputs(w, (int32_t[]){1}, 1),
                   kTfLiteError);
  lg_writer_tensor_map map = {"in", 7};
  assert_int_equal(lg_model_writer_add_signature(w, "s", 0, &map, 1, NULL, 0),
                   -1);
  assert_non_null(strstr(g_capture.last, "bad tensor index 7"));
  /* The first error is the one remembered. */
  assert_non_null(strstr(lg_model_writer_error(w), "invalid builtin code"));
  lg_model_writer_destroy(w);
  lg_model_writer_destroy(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_tensors_round_trip, setup),
      cmocka_unit_test_setup(test_buffers_aligned, setup),
      cmocka_unit_test_setup(test_random_options_long_seeds, setup),
      cmocka_unit_test_setup(test_buffer_ref_borrows, setup),
      cmocka_unit_test_setup(test_const_tensor, setup),
      cmocka_unit_test_setup(test_operators_with_options, setup),
      cmocka_unit_test_setup(test_custom_operators, setup),
      cmocka_unit_test_setup(test_opcodes_dedup_and_large_codes, setup),
      cmocka_unit_test_setup(test_subgraphs_and_signatures, setup),
      cmocka_unit_test_setup(test_metadata_and_description, setup),
      cmocka_unit_test_setup(test_min_runtime_version_15_chars, setup),
      cmocka_unit_test_setup(test_external_buffers, setup),
      cmocka_unit_test_setup(test_write_file_matches_finish, setup),
      cmocka_unit_test_setup(test_inline_file_is_flatbuffer_only, setup),
      cmocka_unit_test_setup(test_error_bad_tensor_index, setup),
      cmocka_unit_test_setup(test_error_unknown_type, setup),
      cmocka_unit_test_setup(test_error_min_runtime_version_too_long, setup),
      cmocka_unit_test_setup(test_error_sixteen_char_version, setup),
      cmocka_unit_test_setup(test_error_bad_buffer_index, setup),
      cmocka_unit_test_setup(test_error_const_size_mismatch, setup),
      cmocka_unit_test_setup(test_error_activation_without_schema_value, setup),
      cmocka_unit_test_setup(test_error_unknown_padding, setup),
      cmocka_unit_test_setup(test_error_misc_calls, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
