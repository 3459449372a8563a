/* Tests of the .tflite reader (runtime/model/model.c, flatbuffer.c).
 *
 * Real models from tests/shared/models are parsed and their contents checked
 * against facts read independently with the LiteRT Python package
 * (ai_edge_litert.schema_py_generated on the same files), e.g.:
 *   m = Model.GetRootAs(open(path, 'rb').read(), 0)
 *   m.OperatorCodes(0).BuiltinCode(), m.Subgraphs(0).Tensors(5).ShapeAsNumpy()
 * Each block of expected values below says where it came from.
 *
 * Broken models are built by patching a real model at positions found by
 * walking the file with the public lg_fb functions (never at fixed offsets),
 * and each must fail with a message that names the problem.
 */
/* posix_memalign and dirent's d_type are POSIX/BSD, outside strict C11. */
#define _DEFAULT_SOURCE

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "runtime/model/builtin_options.h"
#include "runtime/model/flatbuffer.h"
#include "runtime/model/model.h"
#include "tensorflow/lite/c/c_api.h"

#define MODEL_DIR LITEGPU_SHARED_DIR "/models/tflite-micro/"
#define HELLO_FLOAT MODEL_DIR "hello_world_float.tflite"
#define HELLO_INT8 MODEL_DIR "hello_world_int8.tflite"
#define PERSON MODEL_DIR "person_detect.tflite"
#define REGRESSION_DIR LITEGPU_SOURCE_DIR "/tests/fuzz/regressions"

/* Schema field ids used by the walker (see tflite-facts §6). */
enum {
  MODEL_VERSION = 0,
  MODEL_OPERATOR_CODES = 1,
  MODEL_SUBGRAPHS = 2,
  MODEL_BUFFERS = 4,
  MODEL_METADATA = 6,
  MODEL_SIGNATURE_DEFS = 7
};
enum { SUBGRAPH_TENSORS = 0, SUBGRAPH_INPUTS = 1, SUBGRAPH_OPERATORS = 3 };
enum { TENSOR_SHAPE = 0, TENSOR_TYPE = 1, TENSOR_BUFFER = 2, TENSOR_NAME = 3 };
enum { OP_OPCODE_INDEX = 0, OP_INPUTS = 1, OP_OUTPUTS = 2 };
enum { OPCODE_DEPRECATED = 0, OPCODE_BUILTIN = 3 };
enum { BUFFER_DATA = 0, BUFFER_OFFSET = 1, BUFFER_SIZE = 2 };
enum { OP_LARGE_CUSTOM_OFFSET = 9, OP_LARGE_CUSTOM_SIZE = 10 };

/* ---- Buffers -------------------------------------------------------------*/

/* A model in a 16-byte aligned allocation of exactly `capacity` bytes, so
 * that ASan sees any read past it. */
typedef struct blob {
  uint8_t* data;
  size_t size;
  size_t capacity;
} blob;

static blob blob_alloc(size_t capacity) {
  blob b = {NULL, 0, capacity};
  void* p = NULL;
  assert_int_equal(posix_memalign(&p, 16, capacity > 0 ? capacity : 1), 0);
  memset(p, 0, capacity > 0 ? capacity : 1);
  b.data = p;
  return b;
}

static void blob_free(blob* b) {
  free(b->data);
  b->data = NULL;
}

/* Reads `path`, leaving `extra` zero bytes of room to append tables. */
static blob blob_read(const char* path, size_t extra) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) fail_msg("cannot open %s", path);
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  long size = ftell(f);
  assert_true(size > 0);
  rewind(f);
  blob b = blob_alloc((size_t)size + extra);
  assert_int_equal(fread(b.data, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  b.size = (size_t)size;
  return b;
}

static void put_u16(blob* b, size_t pos, uint16_t v) {
  assert_true(pos + 2 <= b->size);
  memcpy(b->data + pos, &v, 2);
}

static void put_u32(blob* b, size_t pos, uint32_t v) {
  assert_true(pos + 4 <= b->size);
  memcpy(b->data + pos, &v, 4);
}

static void put_u64(blob* b, size_t pos, uint64_t v) {
  assert_true(pos + 8 <= b->size);
  memcpy(b->data + pos, &v, 8);
}

/* Points the uoffset at `slot` to `target` (uoffsets only point forward). */
static void put_offset(blob* b, size_t slot, size_t target) {
  assert_true(target > slot);
  put_u32(b, slot, (uint32_t)(target - slot));
}

/* ---- Walker: positions inside a model, found with the lg_fb API ----------*/

static lg_fb_table walk_root(const blob* b) {
  lg_fb_verifier v;
  lg_fb_table t;
  lg_fb_verifier_init(&v, b->data, b->size);
  if (!lg_fb_root(&v, &t)) fail_msg("walker: %s", v.error);
  return t;
}

static lg_fb_vector walk_vector(const blob* b, const lg_fb_table* t,
                                uint16_t id, size_t elem_size) {
  lg_fb_verifier v;
  lg_fb_vector vec;
  lg_fb_verifier_init(&v, b->data, b->size);
  if (!lg_fb_table_vector(&v, t, id, elem_size, &vec)) {
    fail_msg("walker: %s", v.error);
  }
  assert_true(vec.present);
  return vec;
}

/* Element `index` of the vector of tables in field `id`. */
static lg_fb_table walk_child(const blob* b, const lg_fb_table* t, uint16_t id,
                              uint32_t index) {
  lg_fb_verifier v;
  lg_fb_table child;
  lg_fb_vector vec = walk_vector(b, t, id, 4);
  lg_fb_verifier_init(&v, b->data, b->size);
  if (!lg_fb_vector_table(&v, &vec, index, &child)) {
    fail_msg("walker: %s", v.error);
  }
  return child;
}

/* The position of a field that must be present. */
static size_t walk_field(const lg_fb_table* t, uint16_t id) {
  size_t pos = lg_fb_table_field(t, id);
  assert_true(pos != 0);
  return pos;
}

/* The position of element `index` of a vector of `elem_size` scalars. */
static size_t walk_element(const blob* b, const lg_fb_table* t, uint16_t id,
                           size_t elem_size, uint32_t index) {
  lg_fb_vector vec = walk_vector(b, t, id, elem_size);
  assert_true(index < vec.count);
  return vec.pos + elem_size * index;
}

static lg_fb_table walk_tensor(const blob* b, uint32_t sg, uint32_t index) {
  lg_fb_table root = walk_root(b);
  lg_fb_table subgraph = walk_child(b, &root, MODEL_SUBGRAPHS, sg);
  return walk_child(b, &subgraph, SUBGRAPH_TENSORS, index);
}

static lg_fb_table walk_operator(const blob* b, uint32_t index) {
  lg_fb_table root = walk_root(b);
  lg_fb_table subgraph = walk_child(b, &root, MODEL_SUBGRAPHS, 0);
  return walk_child(b, &subgraph, SUBGRAPH_OPERATORS, index);
}

/* Appends a table of ulong fields (`ids`, `values`) at the end of `b`:
 * vtable first, then the table at 4 mod 8 so the ulongs are 8-aligned.
 * Returns the table's position. */
static size_t append_table(blob* b, const uint16_t* ids, const uint64_t* values,
                           int n) {
  int max_id = -1;
  for (int i = 0; i < n; ++i) max_id = ids[i] > max_id ? ids[i] : max_id;
  size_t vtable = (b->size + 1) & ~(size_t)1;
  size_t vtable_size = 4 + 2 * (size_t)(max_id + 1);
  size_t table = vtable + vtable_size;
  while (table % 8 != 4) table++;
  size_t end = table + 4 + 8 * (size_t)n;
  assert_true(end <= b->capacity);
  b->size = end;
  put_u16(b, vtable, (uint16_t)vtable_size);
  put_u16(b, vtable + 2, (uint16_t)(4 + 8 * n));
  for (int i = 0; i < n; ++i) {
    put_u16(b, vtable + 4 + 2 * (size_t)ids[i], (uint16_t)(4 + 8 * i));
    put_u64(b, table + 4 + 8 * (size_t)i, values[i]);
  }
  put_u32(b, table, (uint32_t)(table - vtable)); /* soffset: vtable before */
  return table;
}

/* ---- Parsing with captured messages --------------------------------------*/

typedef struct captured {
  char text[4096];
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

/* Parses data[0, size) expecting failure with messages containing `a` and
 * (when not NULL) `b`. */
static void expect_parse_error(const uint8_t* data, size_t size, const char* a,
                               const char* b) {
  captured c = {{0}, 0};
  lg_reporter reporter = {capture, &c};
  lg_model* model = (lg_model*)&c; /* must be reset to NULL */
  assert_int_equal(lg_model_parse(data, size, &reporter, &model), kTfLiteError);
  assert_null(model);
  if (getenv("LITEGPU_TEST_VERBOSE") != NULL) printf("  %s", c.text);
  expect_text(&c, a);
  if (b != NULL) expect_text(&c, b);
}

static lg_model* parse_ok(const blob* b) {
  captured c = {{0}, 0};
  lg_reporter reporter = {capture, &c};
  lg_model* model = NULL;
  if (lg_model_parse(b->data, b->size, &reporter, &model) != kTfLiteOk) {
    fail_msg("parse failed: %s", c.text);
  }
  assert_int_equal(c.used, 0);
  return model;
}

static lg_model* load_ok(const char* path) {
  captured c = {{0}, 0};
  lg_reporter reporter = {capture, &c};
  lg_model* model = NULL;
  if (lg_model_load_file(path, &reporter, &model) != kTfLiteOk) {
    fail_msg("loading %s failed: %s", path, c.text);
  }
  return model;
}

static void expect_ints(const int32_t* got, int32_t n, const int32_t* want,
                        int32_t want_n) {
  assert_int_equal(n, want_n);
  for (int32_t i = 0; i < n; ++i) assert_int_equal(got[i], want[i]);
}

/* ---- Real models ---------------------------------------------------------*/

/* hello_world_float.tflite, read with LiteRT's schema_py_generated:
 * version 3, description "MLIR Converted.", one opcode FULLY_CONNECTED
 * (builtin 9, deprecated 9, version 1); subgraph "main": 10 tensors, inputs
 * [0], outputs [9], ops 0..2 with inputs [0,4,3] [7,5,1] [8,6,2] and outputs
 * [7] [8] [9], options type 8 (FullyConnectedOptions); 13 buffers, buffer 6
 * holds 1024 bytes; tensor 0 "serving_default_dense_input:0" FLOAT32 shape
 * [1,1] signature [-1,1] buffer 1; tensor 5 shape [16,16] buffer 6; tensor
 * 2's buffer 3 holds the float -0.16013235; metadata min_runtime_version
 * (buffer 11, 16 bytes "1.5.0" + NULs) and CONVERSION_METADATA (buffer 12,
 * 84 bytes); signature "serving_default" on subgraph 0 maps dense_input ->
 * tensor 0 and dense_2 -> tensor 9. */
static void test_hello_world_float(void** state) {
  (void)state;
  lg_model* m = load_ok(HELLO_FLOAT);
  assert_int_equal(m->version, 3);
  assert_string_equal(m->description, "MLIR Converted.");
  assert_int_equal(m->num_opcodes, 1);
  assert_int_equal(m->opcodes[0].builtin_code, 9);
  assert_int_equal(m->opcodes[0].version, 1);
  assert_null(m->opcodes[0].custom_code);
  assert_int_equal(m->num_subgraphs, 1);
  const lg_model_subgraph* sg = &m->subgraphs[0];
  assert_string_equal(sg->name, "main");
  assert_int_equal(sg->num_tensors, 10);
  expect_ints(sg->inputs, sg->num_inputs, (const int32_t[]){0}, 1);
  expect_ints(sg->outputs, sg->num_outputs, (const int32_t[]){9}, 1);
  assert_int_equal(sg->num_operators, 3);
  static const int32_t ins[3][3] = {{0, 4, 3}, {7, 5, 1}, {8, 6, 2}};
  for (int o = 0; o < 3; ++o) {
    const lg_model_operator* op = &sg->operators[o];
    assert_int_equal(op->opcode_index, 0);
    expect_ints(op->inputs, op->num_inputs, ins[o], 3);
    expect_ints(op->outputs, op->num_outputs, (const int32_t[]){7 + o}, 1);
    assert_int_equal(op->builtin_options_type, 8);
    assert_true(op->builtin_options.pos != 0);
    assert_null(op->custom_options);
  }
  const lg_model_tensor* t0 = &sg->tensors[0];
  assert_string_equal(t0->name, "serving_default_dense_input:0");
  assert_int_equal(t0->type, kTfLiteFloat32);
  assert_int_equal(t0->schema_type, 0);
  expect_ints(t0->shape, t0->num_dims, (const int32_t[]){1, 1}, 2);
  expect_ints(t0->shape_signature, t0->num_dims_signature,
              (const int32_t[]){-1, 1}, 2);
  assert_int_equal(t0->buffer, 1);
  assert_true(t0->has_rank);
  assert_false(t0->is_variable);
  assert_false(t0->has_sparsity);
  const lg_model_tensor* t5 = &sg->tensors[5];
  expect_ints(t5->shape, t5->num_dims, (const int32_t[]){16, 16}, 2);
  assert_int_equal(t5->num_dims_signature, -1);
  assert_int_equal(m->num_buffers, 13);
  assert_null(m->buffers[0].data);
  assert_int_equal(m->buffers[t5->buffer].size, 1024);
  float bias;
  memcpy(&bias, m->buffers[sg->tensors[2].buffer].data, sizeof(bias));
  assert_float_equal(bias, -0.16013235f, 1e-7);
  lg_model_destroy(m);
}

static void test_hello_world_metadata(void** state) {
  (void)state;
  lg_model* m = load_ok(HELLO_FLOAT);
  const uint8_t* data = NULL;
  size_t size = 0;
  assert_int_equal(m->num_metadata, 2);
  assert_string_equal(m->metadata[0].name, "min_runtime_version");
  assert_int_equal(m->metadata[0].buffer, 11);
  assert_true(lg_model_find_metadata(m, "min_runtime_version", &data, &size));
  assert_int_equal(size, 16);
  assert_string_equal((const char*)data, "1.5.0");
  assert_true(lg_model_find_metadata(m, "CONVERSION_METADATA", &data, &size));
  assert_int_equal(size, 84);
  assert_false(lg_model_find_metadata(m, "buffer_location", &data, &size));
  assert_false(lg_model_find_metadata(NULL, "x", &data, &size));
  assert_int_equal(m->num_signatures, 1);
  const lg_model_signature* sig = &m->signatures[0];
  assert_string_equal(sig->key, "serving_default");
  assert_int_equal(sig->subgraph_index, 0);
  assert_int_equal(sig->num_inputs, 1);
  assert_string_equal(sig->inputs[0].name, "dense_input");
  assert_int_equal(sig->inputs[0].tensor_index, 0);
  assert_int_equal(sig->num_outputs, 1);
  assert_string_equal(sig->outputs[0].name, "dense_2");
  assert_int_equal(sig->outputs[0].tensor_index, 9);
  lg_model_destroy(m);
}

/* hello_world_int8.tflite (LiteRT): FULLY_CONNECTED version 4; tensor 0 INT8
 * [1,1] scale 0.024480116 zero point -128; tensor 1 INT32 [1] bias. */
static void test_hello_world_int8(void** state) {
  (void)state;
  lg_model* m = load_ok(HELLO_INT8);
  assert_int_equal(m->opcodes[0].builtin_code, 9);
  assert_int_equal(m->opcodes[0].version, 4);
  const lg_model_tensor* t0 = &m->subgraphs[0].tensors[0];
  assert_int_equal(t0->type, kTfLiteInt8);
  assert_true(t0->has_quantization);
  assert_int_equal(t0->quantization.num_scale, 1);
  assert_float_equal(t0->quantization.scale[0], 0.024480116f, 1e-9);
  assert_int_equal(t0->quantization.num_zero_point, 1);
  assert_int_equal(t0->quantization.zero_point[0], -128);
  assert_int_equal(m->subgraphs[0].tensors[1].type, kTfLiteInt32);
  lg_model_destroy(m);
}

/* person_detect.tflite (LiteRT): builtin_code absent in every opcode, the op
 * only in deprecated_builtin_code: AVERAGE_POOL_2D v2, CONV_2D v2,
 * DEPTHWISE_CONV_2D v3, RESHAPE v1, SOFTMAX v2. 89 tensors, 31 operators,
 * 90 buffers, input [88] "input" INT8 [1,96,96,1] scale 0.00784314 zp -1
 * min -1 max 1; output [87]; tensor 0 INT8 [1,3,3,8] with 8 scales and zero
 * points, quantized_dimension 3; no subgraph name, has_rank false,
 * description "TOCO Converted.", no metadata or signatures. */
static void test_person_detect(void** state) {
  (void)state;
  lg_model* m = load_ok(PERSON);
  static const int32_t codes[5] = {1, 3, 4, 22, 25};
  static const int32_t versions[5] = {2, 2, 3, 1, 2};
  assert_int_equal(m->num_opcodes, 5);
  for (int i = 0; i < 5; ++i) {
    assert_int_equal(m->opcodes[i].builtin_code, codes[i]);
    assert_int_equal(m->opcodes[i].version, versions[i]);
  }
  const lg_model_subgraph* sg = &m->subgraphs[0];
  assert_string_equal(sg->name, "");
  assert_int_equal(sg->num_tensors, 89);
  assert_int_equal(sg->num_operators, 31);
  assert_int_equal(m->num_buffers, 90);
  expect_ints(sg->inputs, sg->num_inputs, (const int32_t[]){88}, 1);
  expect_ints(sg->outputs, sg->num_outputs, (const int32_t[]){87}, 1);
  const lg_model_tensor* in = &sg->tensors[88];
  assert_string_equal(in->name, "input");
  expect_ints(in->shape, in->num_dims, (const int32_t[]){1, 96, 96, 1}, 4);
  assert_int_equal(in->type, kTfLiteInt8);
  assert_false(in->has_rank);
  assert_float_equal(in->quantization.scale[0], 0.00784314f, 1e-8);
  assert_int_equal(in->quantization.zero_point[0], -1);
  assert_float_equal(in->quantization.min[0], -1.0f, 0);
  assert_float_equal(in->quantization.max[0], 1.0f, 0);
  const lg_model_tensor* w = &sg->tensors[0];
  expect_ints(w->shape, w->num_dims, (const int32_t[]){1, 3, 3, 8}, 4);
  assert_int_equal(w->quantization.num_scale, 8);
  assert_int_equal(w->quantization.num_zero_point, 8);
  assert_int_equal(w->quantization.quantized_dimension, 3);
  assert_int_equal(m->buffers[w->buffer].size, 72);
  assert_string_equal(m->description, "TOCO Converted.");
  assert_int_equal(m->num_metadata, 0);
  assert_int_equal(m->num_signatures, 0);
  lg_model_destroy(m);
}

/* seanet models (LiteRT): add0 has neither builtin_code nor
 * deprecated_builtin_code (both read 0 = ADD), version 2; conv0 stores 3 in
 * both, version 3; quantize0 stores QUANTIZE (114) in both and has no
 * version field (default 1); transpose_conv0 TRANSPOSE_CONV (67) version 3.
 * (The op only in deprecated_builtin_code is person_detect's case.) */
static void test_seanet_opcodes(void** state) {
  (void)state;
  static const struct {
    const char* file;
    int32_t code;
    int32_t version;
  } cases[] = {
      {"seanet/add/add0.tflite", 0, 2},
      {"seanet/conv/conv0.tflite", 3, 3},
      {"seanet/quantize/quantize0.tflite", 114, 1},
      {"seanet/leaky_relu/leaky_relu0.tflite", 98, 2},
      {"seanet/strided_slice/strided_slice0.tflite", 45, 2},
      {"seanet/transpose_conv/transpose_conv0.tflite", 67, 3},
      {"seanet/pad/pad0.tflite", 34, 2},
      {"seanet/sub/sub0.tflite", 41, 2},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    char path[512];
    snprintf(path, sizeof(path), "%s%s", MODEL_DIR, cases[i].file);
    lg_model* m = load_ok(path);
    assert_int_equal(m->num_opcodes, 1);
    assert_int_equal(m->opcodes[0].builtin_code, cases[i].code);
    assert_int_equal(m->opcodes[0].version, cases[i].version);
    assert_int_equal(m->subgraphs[0].num_operators, 1);
    lg_model_destroy(m);
  }
}

/* Calls `fn` on every regular file under `dir` whose name ends in `suffix`
 * (or on every file when suffix is NULL). */
static int for_each_file(const char* dir, const char* suffix,
                         void (*fn)(const char* path)) {
  DIR* d = opendir(dir);
  int count = 0;
  if (d == NULL) return 0;
  for (struct dirent* e = readdir(d); e != NULL; e = readdir(d)) {
    char path[1024];
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    size_t n = strlen(e->d_name);
    size_t k = suffix != NULL ? strlen(suffix) : 0;
    if (e->d_type == DT_DIR) {
      count += for_each_file(path, suffix, fn);
    } else if (n >= k && (k == 0 || strcmp(e->d_name + n - k, suffix) == 0)) {
      fn(path);
      count++;
    }
  }
  closedir(d);
  return count;
}

static void parse_shared_model(const char* path) {
  lg_model* m = load_ok(path);
  assert_true(m->num_subgraphs >= 1);
  lg_model_destroy(m);
}

static void test_all_shared_models(void** state) {
  (void)state;
  int count = for_each_file(LITEGPU_SHARED_DIR "/models", ".tflite",
                            parse_shared_model);
  assert_true(count >= 100); /* 3 top-level + 127 seanet files */
}

static void test_type_conversion(void** state) {
  (void)state;
  /* Schema TensorType -> TfLiteType (facts §2 and §6). */
  assert_int_equal(lg_model_convert_tensor_type(0), kTfLiteFloat32);
  assert_int_equal(lg_model_convert_tensor_type(1), kTfLiteFloat16);
  assert_int_equal(lg_model_convert_tensor_type(9), kTfLiteInt8);
  assert_int_equal(lg_model_convert_tensor_type(10), kTfLiteFloat64);
  assert_int_equal(lg_model_convert_tensor_type(17), kTfLiteInt4);
  assert_int_equal(lg_model_convert_tensor_type(22), kTfLiteFloat8E5M2);
  assert_int_equal(lg_model_convert_tensor_type(23), kTfLiteNoType);
  assert_int_equal(lg_model_convert_tensor_type(-1), kTfLiteNoType);
  for (int8_t t = 0; t <= 22; ++t) {
    assert_int_equal(
        lg_model_schema_tensor_type(lg_model_convert_tensor_type(t)), t);
  }
  assert_int_equal(lg_model_schema_tensor_type(kTfLiteNoType), -1);
}

static void test_misaligned_buffer(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 0);
  uint8_t* raw = malloc(b.size + 1);
  assert_non_null(raw);
  memcpy(raw + 1, b.data, b.size);
  lg_model* m = NULL;
  captured c = {{0}, 0};
  lg_reporter reporter = {capture, &c};
  assert_int_equal(lg_model_parse(raw + 1, b.size, &reporter, &m), kTfLiteOk);
  assert_true(m->data != raw + 1);
  assert_int_equal((uintptr_t)m->data % 16, 0);
  assert_int_equal(m->subgraphs[0].num_tensors, 10);
  /* The constant data comes from the copy, not the caller's buffer. */
  const lg_model_buffer* buf = &m->buffers[6];
  assert_true(buf->data >= m->data && buf->data < m->data + m->size);
  assert_memory_equal(buf->data, raw + 1 + (buf->data - m->data), 1024);
  lg_model_destroy(m);
  free(raw);
  blob_free(&b);
}

static void test_missing_file(void** state) {
  (void)state;
  captured c = {{0}, 0};
  lg_reporter reporter = {capture, &c};
  lg_model* m = (lg_model*)&c;
  const char* path = "/nonexistent/litegpu/model.tflite";
  assert_int_equal(lg_model_load_file(path, &reporter, &m), kTfLiteError);
  assert_null(m);
  expect_text(&c, path);
  expect_text(&c, "No such file or directory");
  c.used = 0;
  c.text[0] = '\0';
  assert_int_equal(lg_model_load_file(LITEGPU_SHARED_DIR, &reporter, &m),
                   kTfLiteError);
  expect_text(&c, LITEGPU_SHARED_DIR);
}

/* ---- Malformed headers and truncation -------------------------------------*/

static void test_empty_and_short(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 0);
  expect_parse_error(NULL, 0, "empty", NULL);
  expect_parse_error(b.data, 0, "empty", NULL);
  expect_parse_error(b.data, 5, "5 bytes is too small", NULL);
  expect_parse_error(b.data, 10, "smaller than the 12-byte minimum", NULL);
  blob_free(&b);
}

static void test_wrong_identifier(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 0);
  memcpy(b.data + 4, "TFL2", 4);
  expect_parse_error(b.data, b.size,
                     "Model provided has model identifier 'TFL2', should be "
                     "'TFL3'",
                     NULL);
  memcpy(b.data + 4, "\0\1TF", 4); /* unprintable bytes print as '?' */
  expect_parse_error(b.data, b.size, "identifier '??TF'", NULL);
  blob_free(&b);
}

static void test_wrong_version(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 0);
  lg_fb_table root = walk_root(&b);
  put_u32(&b, walk_field(&root, MODEL_VERSION), 2);
  expect_parse_error(b.data, b.size,
                     "Model provided is schema version 2 not equal to "
                     "supported version 3.",
                     NULL);
  blob_free(&b);
}

static void test_root_offset(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 0);
  put_u32(&b, 0, (uint32_t)b.size + 64);
  expect_parse_error(b.data, b.size, "root offset", "points outside");
  put_u32(&b, 0, 0);
  expect_parse_error(b.data, b.size, "root offset", "is zero");
  put_u32(&b, 0, 0x80000010u);
  expect_parse_error(b.data, b.size, "root offset", "negative");
  blob_free(&b);
}

/* Every prefix of the model must fail cleanly (ASan watches each exact-size
 * copy); only the whole file parses. */
static void test_truncation(void** state) {
  (void)state;
  blob whole = blob_read(HELLO_FLOAT, 0);
  for (size_t len = 0; len < whole.size; ++len) {
    blob part = blob_alloc(len);
    memcpy(part.data, whole.data, len);
    captured c = {{0}, 0};
    lg_reporter reporter = {capture, &c};
    lg_model* m = NULL;
    if (lg_model_parse(part.data, len, &reporter, &m) != kTfLiteError) {
      fail_msg("a prefix of %zu of %zu bytes parsed", len, whole.size);
    }
    assert_null(m);
    assert_true(c.used > 0);
    blob_free(&part);
  }
  lg_model_destroy(parse_ok(&whole));
  blob_free(&whole);
}

/* ---- Malformed structure -------------------------------------------------*/

static void test_vtable_outside(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 0);
  lg_fb_table root = walk_root(&b);
  put_u32(&b, root.pos, 0x80000000u); /* vtable = table + 2^31 */
  expect_parse_error(b.data, b.size, "vtable at byte", "outside the buffer");
  blob_free(&b);
}

static void test_vtable_size(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 0);
  lg_fb_table t = walk_tensor(&b, 0, 0);
  put_u16(&b, t.vtable, (uint16_t)(t.vtable_size + 1));
  expect_parse_error(b.data, b.size, "vtable size", "is odd");
  put_u16(&b, t.vtable, 0xfffe);
  expect_parse_error(b.data, b.size, "vtable of 65534 bytes",
                     "runs past the end");
  blob_free(&b);
}

static void test_string_without_nul(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 0);
  lg_fb_table t = walk_tensor(&b, 0, 0);
  lg_fb_verifier v;
  const char* name;
  uint32_t len;
  lg_fb_verifier_init(&v, b.data, b.size);
  assert_true(lg_fb_table_string(&v, &t, TENSOR_NAME, &name, &len));
  assert_string_equal(name, "serving_default_dense_input:0");
  b.data[((const uint8_t*)name - b.data) + len] = 'x';
  expect_parse_error(b.data, b.size, "subgraph 0 tensor 0, field 'name'",
                     "has no NUL terminator");
  blob_free(&b);
}

static void test_vector_count(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 0);
  lg_fb_table t = walk_tensor(&b, 0, 0);
  size_t count_pos = walk_vector(&b, &t, TENSOR_SHAPE, 4).pos - 4;
  put_u32(&b, count_pos, 0xffffffffu);
  expect_parse_error(b.data, b.size, "field 'shape'", "4294967295 elements");
  expect_parse_error(b.data, b.size, "overflow", NULL);
  put_u32(&b, count_pos, 100000);
  expect_parse_error(b.data, b.size, "100000 elements",
                     "run past the end of the buffer");
  blob_free(&b);
}

static void test_tensor_buffer_index(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 0);
  lg_fb_table t = walk_tensor(&b, 0, 0);
  put_u32(&b, walk_field(&t, TENSOR_BUFFER), 1000);
  expect_parse_error(b.data, b.size, "subgraph 0 tensor 0",
                     "buffer index 1000 is out of range, the model has 13 "
                     "buffers");
  blob_free(&b);
}

static void test_operator_indices(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 0);
  lg_fb_table op = walk_operator(&b, 0);
  size_t input = walk_element(&b, &op, OP_INPUTS, 4, 0);
  put_u32(&b, input, 912);
  expect_parse_error(b.data, b.size,
                     "subgraph 0 operator 0: input 0 is tensor 912, but the "
                     "subgraph has 10 tensors",
                     NULL);
  put_u32(&b, input, (uint32_t)-2);
  expect_parse_error(b.data, b.size, "input 0 is tensor -2", NULL);
  put_u32(&b, input, (uint32_t)-1); /* -1: an omitted optional input */
  lg_model_destroy(parse_ok(&b));
  put_u32(&b, walk_element(&b, &op, OP_OUTPUTS, 4, 0), 10);
  expect_parse_error(b.data, b.size,
                     "subgraph 0 operator 0: output 0 is tensor 10", NULL);
  blob_free(&b);
}

static void capture_interpreter_error(void* user_data, const char* format,
                                      va_list args) {
  captured* c = user_data;
  if (c->used < sizeof(c->text)) {
    int n =
        vsnprintf(c->text + c->used, sizeof(c->text) - c->used, format, args);
    if (n > 0) c->used += (size_t)n;
  }
}

/* The reader accepts the file; TfLiteInterpreterCreate refuses it with
 * `want` in the message. */
static void expect_interpreter_error(const blob* b, const char* want) {
  lg_model* parsed = parse_ok(b);
  lg_model_destroy(parsed);
  TfLiteModel* model = TfLiteModelCreate(b->data, b->size);
  assert_non_null(model);
  captured c = {{0}, 0};
  TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetErrorReporter(options, capture_interpreter_error,
                                           &c);
  TfLiteInterpreter* interpreter = TfLiteInterpreterCreate(model, options);
  assert_null(interpreter);
  if (getenv("LITEGPU_TEST_VERBOSE") != NULL) printf("  %s", c.text);
  expect_text(&c, want);
  TfLiteInterpreterOptionsDelete(options);
  TfLiteModelDelete(model);
}

/* hello_world: op 0 reads tensor 0 and writes 7, op 1 reads 7 and writes 8.
 * A fuzzer found DETECTION_POSTPROCESS reading its own output, resized by
 * its Prepare, as an input; the interpreter refuses such graphs. */
static void test_operator_dataflow(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 0);
  lg_fb_table op0 = walk_operator(&b, 0);
  lg_fb_table op1 = walk_operator(&b, 1);
  size_t op0_input = walk_element(&b, &op0, OP_INPUTS, 4, 0);
  size_t op0_output = walk_element(&b, &op0, OP_OUTPUTS, 4, 0);
  size_t op1_output = walk_element(&b, &op1, OP_OUTPUTS, 4, 0);
  put_u32(&b, op0_output, 0);
  expect_interpreter_error(&b,
                           "subgraph 0 operator 0: tensor 0 is both an input "
                           "and an output of the operator");
  put_u32(&b, op0_output, 7);
  put_u32(&b, op1_output, 7);
  expect_interpreter_error(
      &b, "subgraph 0: tensor 7 is written by operators 0 and 1");
  put_u32(&b, op1_output, 8);
  put_u32(&b, op0_input, 8);
  expect_interpreter_error(&b,
                           "subgraph 0 operator 0: input 0 is tensor 8, which "
                           "operator 1 after it writes");
  blob_free(&b);
}

static void test_subgraph_inputs(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 0);
  lg_fb_table root = walk_root(&b);
  lg_fb_table sg = walk_child(&b, &root, MODEL_SUBGRAPHS, 0);
  put_u32(&b, walk_element(&b, &sg, SUBGRAPH_INPUTS, 4, 0), (uint32_t)-1);
  expect_parse_error(b.data, b.size, "subgraph 0: input 0 is tensor -1", NULL);
  blob_free(&b);
}

/* hello_world's operators leave opcode_index at its default (absent), so
 * person_detect's operator 2 (opcode_index 1, present) is patched. */
static void test_opcode_index(void** state) {
  (void)state;
  blob b = blob_read(PERSON, 0);
  lg_fb_table op = walk_operator(&b, 2);
  put_u32(&b, walk_field(&op, OP_OPCODE_INDEX), 50);
  expect_parse_error(b.data, b.size,
                     "subgraph 0 operator 2: opcode index 50 is out of range, "
                     "the model has 5 operator codes",
                     NULL);
  blob_free(&b);
}

static void test_unknown_tensor_type(void** state) {
  (void)state;
  blob b = blob_read(PERSON, 0);
  lg_fb_table t = walk_tensor(&b, 0, 0);
  b.data[walk_field(&t, TENSOR_TYPE)] = 100;
  expect_parse_error(b.data, b.size, "subgraph 0 tensor 0",
                     "unknown tensor type 100");
  blob_free(&b);
}

static void test_shape_checks(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 0);
  lg_fb_table t0 = walk_tensor(&b, 0, 0);
  size_t dim = walk_element(&b, &t0, TENSOR_SHAPE, 4, 0);
  put_u32(&b, dim, (uint32_t)-1);
  expect_parse_error(b.data, b.size, "subgraph 0 tensor 0",
                     "dimension 0 is -1");
  put_u32(&b, dim, 1);
  /* Tensor 5 is the constant [16, 16] FLOAT32 weight in buffer 6. */
  lg_fb_table t5 = walk_tensor(&b, 0, 5);
  size_t d0 = walk_element(&b, &t5, TENSOR_SHAPE, 4, 0);
  size_t d1 = walk_element(&b, &t5, TENSOR_SHAPE, 4, 1);
  put_u32(&b, d0, 0x7fffffff);
  put_u32(&b, d1, 0x7fffffff);
  expect_parse_error(b.data, b.size, "subgraph 0 tensor 5", "overflows");
  put_u32(&b, d0, 8);
  put_u32(&b, d1, 16);
  expect_parse_error(b.data, b.size,
                     "subgraph 0 tensor 5 ('sequential/dense_1/MatMul'): "
                     "constant buffer 6 holds 1024 bytes, but the FLOAT32 "
                     "tensor's shape needs 512 bytes",
                     NULL);
  blob_free(&b);
}

static void test_buffer_zero_must_be_empty(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 0);
  lg_fb_table root = walk_root(&b);
  lg_fb_vector buffers = walk_vector(&b, &root, MODEL_BUFFERS, 4);
  lg_fb_table b6 = walk_child(&b, &root, MODEL_BUFFERS, 6);
  put_offset(&b, buffers.pos, b6.pos);
  expect_parse_error(b.data, b.size,
                     "The 0th entry of the model buffer must be an empty "
                     "buffer.",
                     NULL);
  blob_free(&b);
}

static void test_custom_without_code(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 0);
  lg_fb_table root = walk_root(&b);
  lg_fb_table opcode = walk_child(&b, &root, MODEL_OPERATOR_CODES, 0);
  put_u32(&b, walk_field(&opcode, OPCODE_BUILTIN), 32);
  b.data[walk_field(&opcode, OPCODE_DEPRECATED)] = 32;
  expect_parse_error(b.data, b.size, "operator code 0",
                     "Operator with CUSTOM builtin_code has no custom_code.");
  blob_free(&b);
}

static void test_metadata_and_signature_indices(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 0);
  lg_fb_table root = walk_root(&b);
  lg_fb_table meta = walk_child(&b, &root, MODEL_METADATA, 0);
  size_t meta_buffer = walk_field(&meta, 1);
  put_u32(&b, meta_buffer, 99);
  expect_parse_error(b.data, b.size,
                     "metadata 0 ('min_runtime_version'): buffer index 99 is "
                     "out of range",
                     NULL);
  put_u32(&b, meta_buffer, 11);
  lg_fb_table sig = walk_child(&b, &root, MODEL_SIGNATURE_DEFS, 0);
  lg_fb_table out = walk_child(&b, &sig, 1, 0);
  put_u32(&b, walk_field(&out, 1), 99);
  expect_parse_error(b.data, b.size, "signature 0 ('serving_default') output",
                     "tensor index 99 is out of range, subgraph 0 has 10 "
                     "tensors");
  blob_free(&b);
}

/* Replaces buffer 6 (tensor 5's 1024 bytes at file position `data_pos`) by
 * an appended Buffer table that uses offset/size instead of data. */
static size_t redirect_buffer6(blob* b, uint64_t offset, uint64_t size) {
  lg_fb_table root = walk_root(b);
  lg_fb_vector buffers = walk_vector(b, &root, MODEL_BUFFERS, 4);
  const uint16_t ids[2] = {BUFFER_OFFSET, BUFFER_SIZE};
  const uint64_t values[2] = {offset, size};
  size_t table = append_table(b, ids, values, 2);
  put_offset(b, buffers.pos + 4 * 6, table);
  return table;
}

static void test_buffer_offset_size(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 64);
  size_t original = b.size;
  lg_fb_table root = walk_root(&b);
  lg_fb_table b6 = walk_child(&b, &root, MODEL_BUFFERS, 6);
  size_t data_pos = walk_vector(&b, &b6, BUFFER_DATA, 1).pos;
  redirect_buffer6(&b, data_pos, 1024);
  lg_model* m = parse_ok(&b);
  assert_ptr_equal(m->buffers[6].data, m->data + data_pos);
  assert_int_equal(m->buffers[6].size, 1024);
  lg_model_destroy(m);

  b.size = original;
  redirect_buffer6(&b, original - 16, 1024);
  expect_parse_error(b.data, b.size, "buffer 6",
                     "runs past the end of the model");
  b.size = original;
  redirect_buffer6(&b, UINT64_MAX - 10, 100); /* offset + size wraps */
  expect_parse_error(b.data, b.size, "buffer 6",
                     "runs past the end of the model");
  blob_free(&b);
}

/* Operator 0 replaced by an appended table that has only
 * large_custom_options_offset/size (opcode_index 0, no inputs or outputs). */
static void redirect_operator0(blob* b, uint64_t offset, uint64_t size) {
  lg_fb_table root = walk_root(b);
  lg_fb_table sg = walk_child(b, &root, MODEL_SUBGRAPHS, 0);
  lg_fb_vector ops = walk_vector(b, &sg, SUBGRAPH_OPERATORS, 4);
  const uint16_t ids[2] = {OP_LARGE_CUSTOM_OFFSET, OP_LARGE_CUSTOM_SIZE};
  const uint64_t values[2] = {offset, size};
  put_offset(b, ops.pos, append_table(b, ids, values, 2));
}

static void test_large_custom_options(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 64);
  size_t original = b.size;
  redirect_operator0(&b, 100, 16);
  lg_model* m = parse_ok(&b);
  const lg_model_operator* op = &m->subgraphs[0].operators[0];
  assert_ptr_equal(op->custom_options, m->data + 100);
  assert_int_equal(op->custom_options_size, 16);
  assert_int_equal(op->num_inputs, 0);
  lg_model_destroy(m);
  b.size = original;
  redirect_operator0(&b, 1, 16); /* offset 1 is a placeholder: no options */
  m = parse_ok(&b);
  assert_null(m->subgraphs[0].operators[0].custom_options);
  lg_model_destroy(m);
  b.size = original;
  redirect_operator0(&b, original, 4096);
  expect_parse_error(b.data, b.size, "subgraph 0 operator 0",
                     "large custom options offset");
  blob_free(&b);
}

/* A model over 2 GB keeps buffers past the FlatBuffer's 2^31 - 2 byte limit
 * through offset/size. A sparse file makes one without writing 2 GB: the
 * FlatBuffer part is hello_world, buffer 6 is moved past 2^31. */
static void test_buffer_beyond_2gb(void** state) {
  (void)state;
  const uint64_t far = ((uint64_t)1 << 31) + 4096;
  char path[] = "/tmp/litegpu_large_XXXXXX";
  blob b = blob_read(HELLO_FLOAT, 64);
  redirect_buffer6(&b, far, 1024);
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, b.data, b.size), (ssize_t)b.size);
  if (ftruncate(fd, (off_t)(far + 1024)) != 0) {
    close(fd);
    unlink(path);
    blob_free(&b);
    skip(); /* no room for a sparse 2 GB file here */
  }
  close(fd);
  lg_model* m = load_ok(path);
  assert_int_equal(m->size, far + 1024);
  assert_ptr_equal(m->buffers[6].data, m->data + far);
  assert_int_equal(m->buffers[6].data[1023], 0); /* a hole reads as 0 */
  lg_model_destroy(m);
  assert_int_equal(truncate(path, (off_t)(far + 1023)), 0);
  captured c = {{0}, 0};
  lg_reporter reporter = {capture, &c};
  assert_int_equal(lg_model_load_file(path, &reporter, &m), kTfLiteError);
  expect_text(&c, "buffer 6: data offset 2147487744 + size 1024 runs past");
  unlink(path);
  blob_free(&b);
}

/* A vector of `count` buffers that all share one empty appended table. */
static void replace_buffers(blob* b, uint32_t count) {
  lg_fb_table root = walk_root(b);
  size_t field = walk_field(&root, MODEL_BUFFERS);
  size_t vec = (b->size + 3) & ~(size_t)3;
  b->size = vec + 4 + 4 * (size_t)count;
  assert_true(b->size <= b->capacity);
  put_u32(b, vec, count);
  size_t table = append_table(b, NULL, NULL, 0);
  for (uint32_t i = 0; i < count; ++i) {
    put_offset(b, vec + 4 + 4 * (size_t)i, table);
  }
  put_offset(b, field, vec);
}

/* The limit of 1,000,000 tables: a vector that would pass it is refused
 * before anything is allocated for it; counts just below the limit pass every
 * vector check and then hit the per-table count in a nested table. */
static void test_table_limit(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 4 * (size_t)LG_FB_MAX_TABLES + 64);
  size_t original = b.size;
  replace_buffers(&b, LG_FB_MAX_TABLES + 1);
  expect_parse_error(b.data, b.size, "field 'buffers'",
                     "a vector of 1000001 tables would make more than 1000000 "
                     "tables");
  int per_table = 0;
  for (uint32_t below = 8; below <= 16; ++below) {
    b.size = original;
    replace_buffers(&b, LG_FB_MAX_TABLES - below);
    captured c = {{0}, 0};
    lg_reporter reporter = {capture, &c};
    lg_model* m = NULL;
    assert_int_equal(lg_model_parse(b.data, b.size, &reporter, &m),
                     kTfLiteError);
    expect_text(&c, "more than 1000000 tables");
    per_table += strstr(c.text, "buffer holds more than") != NULL;
  }
  assert_true(per_table > 0);
  b.size = original;
  replace_buffers(&b, 13); /* the same model with all buffers empty parses */
  lg_model_destroy(parse_ok(&b));
  blob_free(&b);
}

/* Appends a tensor table whose shape is `rank` ones (shape vector after the
 * table) and a vector of `count` tensors that all share it, and makes that
 * vector subgraph 0's tensors. */
static void share_one_shape(blob* b, uint32_t count, uint32_t rank) {
  lg_fb_table root = walk_root(b);
  lg_fb_table sg = walk_child(b, &root, MODEL_SUBGRAPHS, 0);
  size_t field = walk_field(&sg, SUBGRAPH_TENSORS);
  size_t vec = (b->size + 3) & ~(size_t)3;
  size_t vtable = vec + 4 + 4 * (size_t)count;
  size_t table = vtable + 8; /* vtable: size 6, inline 8, shape at 4 */
  size_t shape = table + 8;
  b->size = shape + 4 + 4 * (size_t)rank;
  assert_true(b->size <= b->capacity);
  put_u16(b, vtable, 6);
  put_u16(b, vtable + 2, 8);
  put_u16(b, vtable + 4, 4);
  put_u32(b, table, (uint32_t)(table - vtable));
  put_offset(b, table + 4, shape);
  put_u32(b, shape, rank);
  for (uint32_t i = 0; i < rank; ++i) put_u32(b, shape + 4 + 4 * i, 1);
  put_u32(b, vec, count);
  for (uint32_t i = 0; i < count; ++i) put_offset(b, vec + 4 + 4 * i, table);
  put_offset(b, field, vec);
}

/* Shared vectors must not make the reader's work quadratic: the elements it
 * hands out are bounded by 16 per 4 bytes of file (plus 65536). */
static void test_shared_vector_budget(void** state) {
  (void)state;
  blob b = blob_read(HELLO_FLOAT, 8192);
  size_t original = b.size;
  share_one_shape(&b, 1000, 10); /* 10,000 elements: within the budget */
  lg_model* m = parse_ok(&b);
  assert_int_equal(m->subgraphs[0].num_tensors, 1000);
  assert_int_equal(m->subgraphs[0].tensors[999].num_dims, 10);
  lg_model_destroy(m);
  b.size = original;
  share_one_shape(&b, 1000, 100); /* 100,000 elements in a ~7 KB file */
  expect_parse_error(b.data, b.size, "field 'shape'",
                     "more than 16 elements per 4 bytes");
  blob_free(&b);
}

/* ---- The lg_fb primitives on hand-built buffers ---------------------------*/

/* A chain of `count` 8-byte tables at bytes 8, 16, ...: each is [soffset,
 * uoffset to the next], sharing one vtable at the end whose only field (id
 * 0) is at table offset 4. */
static blob make_chain(uint32_t count) {
  size_t vtable = 8 + 8 * (size_t)count;
  blob b = blob_alloc(vtable + 8);
  b.size = vtable + 8;
  put_u32(&b, 0, 8);
  for (uint32_t i = 0; i < count; ++i) {
    size_t table = 8 + 8 * (size_t)i;
    put_u32(&b, table, (uint32_t)(int32_t)((int64_t)table - (int64_t)vtable));
    put_u32(&b, table + 4, 4); /* from byte table + 4 to table + 8 */
  }
  put_u16(&b, vtable, 6);
  put_u16(&b, vtable + 2, 8);
  put_u16(&b, vtable + 4, 4);
  return b;
}

/* Tables may nest 64 deep (FlatBuffers' max_depth), not 65. */
static void test_fb_depth_limit(void** state) {
  (void)state;
  blob b = make_chain(80);
  lg_fb_verifier v;
  lg_fb_table t, next;
  lg_fb_verifier_init(&v, b.data, b.size);
  assert_true(lg_fb_root(&v, &t));
  assert_int_equal(t.depth, 1);
  for (int depth = 2; depth <= LG_FB_MAX_DEPTH; ++depth) {
    assert_true(lg_fb_table_table(&v, &t, 0, &next));
    assert_int_equal(next.depth, depth);
    t = next;
  }
  assert_false(lg_fb_table_table(&v, &t, 0, &next));
  if (strstr(v.error, "nested 65 deep, more than 64") == NULL) {
    fail_msg("unexpected error: %s", v.error);
  }
  blob_free(&b);
}

static void test_fb_scalars_and_unions(void** state) {
  (void)state;
  blob b = make_chain(2);
  lg_fb_verifier v;
  lg_fb_table root, value;
  uint8_t u8;
  uint32_t u32;
  uint8_t type;
  lg_fb_verifier_init(&v, b.data, b.size);
  assert_true(lg_fb_root(&v, &root));
  /* Absent fields read their defaults. */
  assert_int_equal(lg_fb_table_field(&root, 1), 0);
  assert_true(lg_fb_table_u32(&v, &root, 7, 42, &u32));
  assert_int_equal(u32, 42);
  /* Field 0 moved to table offset 5: bytes are fine, alignment is not. */
  put_u16(&b, root.vtable + 4, 5);
  assert_true(lg_fb_table_u8(&v, &root, 0, 0, &u8));
  assert_false(lg_fb_table_u32(&v, &root, 0, 0, &u32));
  assert_non_null(strstr(v.error, "misaligned"));
  /* Union: type NONE gives no value; a type without a value is allowed. */
  put_u16(&b, root.vtable + 4, 4);
  put_u32(&b, root.pos + 4, 0); /* field 0 as a ubyte type: 0 = NONE */
  assert_true(lg_fb_table_union(&v, &root, 0, &type, &value));
  assert_int_equal(type, 0);
  assert_int_equal(value.pos, 0);
  b.data[root.pos + 4] = 3; /* type 3, and field 1 (the value) absent */
  assert_true(lg_fb_table_union(&v, &root, 0, &type, &value));
  assert_int_equal(type, 3);
  assert_int_equal(value.pos, 0);
  /* A string field whose offset points at a length beyond the buffer. */
  const char* str;
  put_u32(&b, root.pos + 4, 8); /* -> byte root + 12, read as a string */
  put_u32(&b, root.pos + 12, 0x10000);
  assert_false(lg_fb_table_string(&v, &root, 0, &str, NULL));
  assert_non_null(strstr(v.error, "run past the end of the buffer"));
  blob_free(&b);
}

/* A root table whose field 0 is a vector holding the one string "hi". */
static void test_fb_vector_of_strings(void** state) {
  (void)state;
  blob b = blob_alloc(36);
  lg_fb_verifier v;
  lg_fb_table root;
  lg_fb_vector vec;
  const char* str;
  uint32_t len;
  b.size = 36;
  put_u32(&b, 0, 12); /* root table at 12 */
  put_u16(&b, 4, 6);  /* vtable at 4: 6 bytes, */
  put_u16(&b, 6, 8);  /* inline size 8, */
  put_u16(&b, 8, 4);  /* field 0 at table + 4 */
  put_u32(&b, 12, 8); /* soffset: vtable = 12 - 8 */
  put_u32(&b, 16, 4); /* field 0 -> vector at 20 */
  put_u32(&b, 20, 1); /* one element */
  put_u32(&b, 24, 4); /* element 0 -> string at 28 */
  put_u32(&b, 28, 2); /* length 2 */
  memcpy(b.data + 32, "hi", 3);
  lg_fb_verifier_init(&v, b.data, b.size);
  assert_true(lg_fb_root(&v, &root));
  assert_true(lg_fb_table_vector(&v, &root, 0, 4, &vec));
  assert_int_equal(vec.count, 1);
  assert_true(lg_fb_vector_string(&v, &vec, 0, &str, &len));
  assert_string_equal(str, "hi");
  assert_int_equal(len, 2);
  assert_false(lg_fb_vector_string(&v, &vec, 1, &str, &len));
  assert_non_null(strstr(v.error, "does not exist"));
  assert_false(lg_fb_table_vector(&v, &root, 0, 3 * 4, &vec));
  blob_free(&b);
}

/* ---- Fuzzer regressions --------------------------------------------------*/

static void parse_regression(const char* path) {
  blob b = blob_read(path, 0);
  captured c = {{0}, 0};
  lg_reporter reporter = {capture, &c};
  lg_model* m = NULL;
  if (lg_model_parse(b.data, b.size, &reporter, &m) == kTfLiteOk) {
    /* As the fuzzer does: options of every operator, then metadata. */
    for (int32_t s = 0; s < m->num_subgraphs; ++s) {
      for (int32_t o = 0; o < m->subgraphs[s].num_operators; ++o) {
        const lg_model_operator* op = &m->subgraphs[s].operators[o];
        void* params = NULL;
        lg_builtin_options_parse(m->opcodes[op->opcode_index].builtin_code, op,
                                 &reporter, &params);
        free(params);
      }
    }
    lg_model_find_metadata(m, "min_runtime_version", NULL, NULL);
    lg_model_destroy(m);
  } else {
    assert_true(c.used > 0);
  }
  blob_free(&b);
}

static void test_fuzz_regressions(void** state) {
  (void)state;
  for_each_file(REGRESSION_DIR, NULL, parse_regression);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hello_world_float),
      cmocka_unit_test(test_hello_world_metadata),
      cmocka_unit_test(test_hello_world_int8),
      cmocka_unit_test(test_person_detect),
      cmocka_unit_test(test_seanet_opcodes),
      cmocka_unit_test(test_all_shared_models),
      cmocka_unit_test(test_type_conversion),
      cmocka_unit_test(test_misaligned_buffer),
      cmocka_unit_test(test_missing_file),
      cmocka_unit_test(test_empty_and_short),
      cmocka_unit_test(test_wrong_identifier),
      cmocka_unit_test(test_wrong_version),
      cmocka_unit_test(test_root_offset),
      cmocka_unit_test(test_truncation),
      cmocka_unit_test(test_vtable_outside),
      cmocka_unit_test(test_vtable_size),
      cmocka_unit_test(test_string_without_nul),
      cmocka_unit_test(test_vector_count),
      cmocka_unit_test(test_tensor_buffer_index),
      cmocka_unit_test(test_operator_indices),
      cmocka_unit_test(test_operator_dataflow),
      cmocka_unit_test(test_subgraph_inputs),
      cmocka_unit_test(test_opcode_index),
      cmocka_unit_test(test_unknown_tensor_type),
      cmocka_unit_test(test_shape_checks),
      cmocka_unit_test(test_buffer_zero_must_be_empty),
      cmocka_unit_test(test_custom_without_code),
      cmocka_unit_test(test_metadata_and_signature_indices),
      cmocka_unit_test(test_buffer_offset_size),
      cmocka_unit_test(test_large_custom_options),
      cmocka_unit_test(test_buffer_beyond_2gb),
      cmocka_unit_test(test_table_limit),
      cmocka_unit_test(test_shared_vector_budget),
      cmocka_unit_test(test_fb_depth_limit),
      cmocka_unit_test(test_fb_scalars_and_unions),
      cmocka_unit_test(test_fb_vector_of_strings),
      cmocka_unit_test(test_fuzz_regressions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
