/* Minimum runtime versions: the (op, version) table, version comparison, a
 * model's minimum runtime version, and the model writer's auto versions
 * (versions computed by lg_op_version, min_runtime_version stamped). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/kernels/kernels.h"
#include "runtime/model/builtin_options.h"
#include "runtime/model/model.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "versioning/op_version.h"
#include "versioning/runtime_version.h"

#define B(name) kTfLiteBuiltin##name

/* ---- Helpers --------------------------------------------------------------
 */

/* Captures the last reported message. */
typedef struct capture {
  char last[512];
} capture;

static void capture_fn(void* user_data, const char* format, va_list args) {
  capture* c = user_data;
  vsnprintf(c->last, sizeof(c->last), format, args);
}

static int32_t add_tensor(lg_model_writer* w, const char* name, TfLiteType type,
                          const int32_t* shape, int rank) {
  lg_writer_tensor t = {
      .name = name, .type = type, .shape = shape, .num_dims = rank};
  return lg_model_writer_add_tensor(w, &t);
}

static int32_t add_f32(lg_model_writer* w, const char* name,
                       const int32_t* shape, int rank) {
  return add_tensor(w, name, kTfLiteFloat32, shape, rank);
}

/* Finishes `w` and parses the result; *data must be freed after the model. */
static lg_model* finish_and_parse(lg_model_writer* w, void** data) {
  size_t size = 0;
  assert_int_equal(lg_model_writer_finish(w, data, &size), kTfLiteOk);
  lg_model* m = NULL;
  assert_int_equal(lg_model_parse(*data, size, NULL, &m), kTfLiteOk);
  return m;
}

/* ---- Runtime versions -----------------------------------------------------
 */

static void test_runtime_table_sorted(void** state) {
  (void)state;
  size_t n = lg_runtime_version_table_size();
  assert_int_equal(n, 425);
  int32_t prev_code = -1;
  int prev_version = 0;
  for (size_t i = 0; i < n; ++i) {
    int32_t code;
    int version;
    const char* v;
    assert_true(lg_runtime_version_table_entry(i, &code, &version, &v));
    if (code < prev_code || (code == prev_code && version <= prev_version)) {
      fail_msg("entry %zu (%d, %d) is out of order", i, (int)code, version);
    }
    /* Versions of one op never need an older runtime than the one before. */
    if (code == prev_code) {
      const char* before = lg_min_runtime_version(code, prev_version);
      assert_true(lg_compare_runtime_version(before, v) <= 0);
    }
    assert_string_equal(lg_min_runtime_version(code, version), v);
    prev_code = code;
    prev_version = version;
  }
  assert_false(lg_runtime_version_table_entry(n, NULL, NULL, NULL));
}

static void test_runtime_table_facts(void** state) {
  (void)state;
  /* The reference sheet's examples (tflite-facts.md section 5). */
  static const struct {
    int32_t code;
    int version;
    const char* want;
  } facts[] = {
      {B(AveragePool2d), 1, "1.5.0"},
      {B(Conv2d), 6, "2.9.0"},
      {B(Conv2d), 8, "2.15.0"},
      {B(DepthwiseConv2d), 2, "1.12.0"},
      {B(Add), 5, "2.13.0"},
      {B(FullyConnected), 9, "2.3.0"},
      {B(FullyConnected), 12, "2.17.0"},
      {B(Mul), 3, "1.15.0"},
      {B(Softmax), 3, "2.3.0"},
      {B(Transpose), 7, "2.14.4"},
      {B(Dequantize), 1, "1.13.1"},
      {B(Reshape), 1, "1.5.0"},
      {B(HardSwish), 1, "1.15.0"},
      {B(Tile), 1, "1.10.1"},
      {B(BroadcastTo), 2, "2.5.0"},
      {B(Relu0To1), 1, "2.10.0"},
      {B(EmbeddingLookupSparse), 1, "1.5.0"},
      {B(HashtableLookup), 1, "1.5.0"},
      {B(StablehloAdd), 1, "2.16.0"},
      {B(StablehloShiftLeft), 1, "2.17.0"},
  };
  for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); ++i) {
    assert_string_equal(lg_min_runtime_version(facts[i].code, facts[i].version),
                        facts[i].want);
  }
  /* Pairs TFLite has no entry for. */
  assert_string_equal(lg_min_runtime_version(B(BroadcastTo), 1), "");
  assert_string_equal(lg_min_runtime_version(B(Conv2d), 9), "");
  assert_string_equal(lg_min_runtime_version(B(Add), 0), "");
  assert_string_equal(lg_min_runtime_version(B(Concatenation), 7), "");
  assert_string_equal(lg_min_runtime_version(B(EmbeddingLookupSparse), 2), "");
  assert_string_equal(lg_min_runtime_version(B(Custom), 1), "");
  assert_string_equal(lg_min_runtime_version(-1, 1), "");
}

/* The highest version of `code` in the table, 0 when it has none. */
static int newest_entry(int32_t code) {
  int newest = 0;
  for (size_t i = 0; i < lg_runtime_version_table_size(); ++i) {
    int32_t c;
    int v;
    lg_runtime_version_table_entry(i, &c, &v, NULL);
    if (c == code && v > newest) newest = v;
  }
  return newest;
}

/* Every (op, version) litegpu's kernels register has an entry, except
 * versions newer than the op's newest entry: the kernel tables follow
 * LiteRT 2.3.0's resolver (e.g. GELU 1..3, CAST 1..9, the float8 versions),
 * which is newer than the transcribed runtime_version.cc; those answer "",
 * as TFLite does for a pair missing from its table. */
static void test_registered_pairs_have_runtime_versions(void** state) {
  (void)state;
  char missing[1024] = "";
  int checked = 0;
  {
    size_t count = 0;
    const lg_builtin_kernel* table = lg_builtin_kernels(&count);
    for (size_t i = 0; i < count; ++i) {
      int32_t code = table[i].builtin_code;
      int newest = newest_entry(code);
      for (int v = table[i].min_version; v <= table[i].max_version; ++v) {
        const char* r = lg_min_runtime_version(code, v);
        if (v > newest && newest > 0) {
          assert_string_equal(r, "");
        } else if (r[0] == '\0') {
          size_t len = strlen(missing);
          snprintf(missing + len, sizeof(missing) - len, " %s/%d",
                   lg_builtin_op_name(code), v);
        } else {
          ++checked;
        }
      }
    }
  }
  if (missing[0] != '\0') {
    fail_msg("registered without a minimum runtime version:%s", missing);
  }
  assert_true(checked >= 250);
}

static void test_compare_runtime_versions(void** state) {
  (void)state;
  static const struct {
    const char* a;
    const char* b;
    int sign;
  } cases[] = {
      {"1.5.0", "1.14.0", -1}, /* numeric, not lexicographic */
      {"2.3.0", "1.15.0", 1},
      {"2.14.4", "2.14.0", 1},
      {"1.5.0", "1.5.0", 0},
      {"1.5", "1.5.0", -1}, /* prefix is smaller */
      {"10.0", "9.9.9", 1},
      {"", "1.5.0", -1},
      {"", "", 0},
      {"", "1", -1},
      {"1.x.0", "1.5.0", 0}, /* a non-numeric part is skipped */
      {"1.", "1", 1},        /* "1." has a second, empty part */
      {"1.0002", "1.2", 0},
      {"1.1234567890123456789", "1.0", 0},
      {"2", "1.99.99", 1},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    int got = lg_compare_runtime_version(cases[i].a, cases[i].b);
    int back = lg_compare_runtime_version(cases[i].b, cases[i].a);
    int sign = (got > 0) - (got < 0);
    if (sign != cases[i].sign || (back > 0) - (back < 0) != -sign) {
      fail_msg("compare('%s', '%s') = %d (reverse %d), want sign %d",
               cases[i].a, cases[i].b, got, back, cases[i].sign);
    }
  }
  assert_int_equal(lg_compare_runtime_version(NULL, ""), 0);
  assert_true(lg_compare_runtime_version(NULL, "1.0") < 0);
}

/* A model of several ops: its minimum is the latest known pair; CUSTOM
 * ops and pairs without an entry are skipped. */
static void test_model_min_runtime_version(void** state) {
  (void)state;
  static const struct {
    int32_t code;
    int version;
  } ops[] = {{B(Add), 1},
             {B(Conv2d), 6},
             {B(HardSwish), 1},
             {B(Softmax), 3},
             {B(BroadcastTo), 1}};
  static const int32_t shape[] = {4};
  lg_model_writer* w = lg_model_writer_create(NULL);
  int32_t io = add_f32(w, "x", shape, 1);
  for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); ++i) {
    lg_model_writer_add_operator(w, ops[i].code, ops[i].version, &io, 1, &io, 1,
                                 NULL);
  }
  lg_model_writer_add_custom_operator(w, "Atan", 99, &io, 1, &io, 1, NULL, 0);
  void* data = NULL;
  lg_model* m = finish_and_parse(w, &data);
  assert_string_equal(lg_model_min_runtime_version(m), "2.9.0");
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
  /* Only unknown pairs and custom ops: "". */
  w = lg_model_writer_create(NULL);
  io = add_f32(w, "x", shape, 1);
  lg_model_writer_add_operator(w, B(BroadcastTo), 1, &io, 1, &io, 1, NULL);
  lg_model_writer_add_custom_operator(w, "Atan", 1, &io, 1, &io, 1, NULL, 0);
  m = finish_and_parse(w, &data);
  assert_string_equal(lg_model_min_runtime_version(m), "");
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
  assert_string_equal(lg_model_min_runtime_version(NULL), "");
}

/* ---- The writer's auto versions -------------------------------------------
 */

static void expect_metadata(const lg_model* m, const char* want) {
  const uint8_t* bytes = NULL;
  size_t n = 0;
  if (want == NULL) {
    assert_false(lg_model_find_metadata(m, "min_runtime_version", NULL, NULL));
    return;
  }
  assert_true(lg_model_find_metadata(m, "min_runtime_version", &bytes, &n));
  assert_int_equal(n, 16);
  char text[17] = {0};
  memcpy(text, bytes, 16);
  assert_string_equal(text, want);
  for (size_t i = strlen(want); i < 16; ++i) assert_int_equal(bytes[i], 0);
}

/* A grouped CONV_2D (version 6) and a RESIZE_BILINEAR with half-pixel
 * centers (version 3), both written with version 0. */
static lg_model_writer* auto_model(void) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  lg_model_writer_set_auto_versions(w, true);
  static const int32_t in_shape[] = {1, 5, 5, 4}, f_shape[] = {6, 3, 3, 2},
                       b_shape[] = {6}, out_shape[] = {1, 3, 3, 6},
                       size_shape[] = {2}, big[] = {1, 6, 6, 6};
  static float filter[6 * 3 * 3 * 2], bias[6];
  static const int32_t new_size[] = {6, 6};
  int32_t x = add_f32(w, "x", in_shape, 4);
  int32_t f = lg_model_writer_add_const_tensor(w, "f", kTfLiteFloat32, f_shape,
                                               4, filter, sizeof(filter));
  int32_t b = lg_model_writer_add_const_tensor(w, "b", kTfLiteFloat32, b_shape,
                                               1, bias, sizeof(bias));
  int32_t y = add_f32(w, "y", out_shape, 4);
  TfLiteConvParams conv = {.padding = kTfLitePaddingValid,
                           .stride_width = 1,
                           .stride_height = 1,
                           .dilation_width_factor = 1,
                           .dilation_height_factor = 1};
  int32_t ins[] = {x, f, b};
  assert_int_equal(
      lg_model_writer_add_operator(w, B(Conv2d), 0, ins, 3, &y, 1, &conv), 0);
  int32_t sz = lg_model_writer_add_const_tensor(
      w, "size", kTfLiteInt32, size_shape, 1, new_size, sizeof(new_size));
  int32_t z = add_f32(w, "z", big, 4);
  TfLiteResizeBilinearParams rb = {.half_pixel_centers = true};
  int32_t rin[] = {y, sz};
  assert_int_equal(
      lg_model_writer_add_operator(w, B(ResizeBilinear), 0, rin, 2, &z, 1, &rb),
      1);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &z, 1);
  return w;
}

static void test_writer_auto_versions(void** state) {
  (void)state;
  lg_model_writer* w = auto_model();
  void* data = NULL;
  size_t size = 0;
  lg_model* m = finish_and_parse(w, &data);
  assert_int_equal(m->num_opcodes, 2);
  assert_int_equal(m->opcodes[0].version, 6);
  assert_int_equal(m->opcodes[1].version, 3);
  expect_metadata(m, "2.9.0"); /* max("2.9.0", "2.2.0") */
  assert_string_equal(lg_model_min_runtime_version(m), "2.9.0");
  /* Finishing again gives the same bytes. */
  void* again = NULL;
  assert_int_equal(lg_model_writer_finish(w, &again, &size), kTfLiteOk);
  assert_int_equal(size, m->size);
  assert_memory_equal(again, data, size);
  free(again);
  lg_model_destroy(m);
  free(data);
  /* An explicit value wins. */
  assert_int_equal(lg_model_writer_set_min_runtime_version(w, "2.20.0"),
                   kTfLiteOk);
  m = finish_and_parse(w, &data);
  expect_metadata(m, "2.20.0");
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
}

/* A pair without a table entry leaves the metadata absent; one stamped by
 * an earlier finish is reset to TFLite's empty (all-zero) placeholder. */
static void test_writer_auto_unknown_pair(void** state) {
  (void)state;
  lg_model_writer* w = auto_model();
  void* data = NULL;
  lg_model* m = finish_and_parse(w, &data);
  expect_metadata(m, "2.9.0");
  lg_model_destroy(m);
  free(data);
  static const int32_t shape[] = {4};
  int32_t t = add_f32(w, "t", shape, 1);
  assert_int_equal(
      lg_model_writer_add_operator(w, B(BroadcastTo), 1, &t, 1, &t, 1, NULL),
      2);
  m = finish_and_parse(w, &data);
  expect_metadata(m, "");
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
  /* From the start: no metadata at all; an auto GATHER of float8 data
   * needs version 8, which has no entry. */
  w = lg_model_writer_create(NULL);
  lg_model_writer_set_auto_versions(w, true);
  static const int32_t two[] = {2};
  static const int32_t idx[] = {0, 1};
  lg_writer_tensor f8 = {
      .name = "p", .type = kTfLiteFloat8E4M3FN, .shape = two, .num_dims = 1};
  int32_t p = lg_model_writer_add_tensor(w, &f8);
  int32_t i = lg_model_writer_add_const_tensor(w, "i", kTfLiteInt32, two, 1,
                                               idx, sizeof(idx));
  f8.name = "o";
  int32_t o = lg_model_writer_add_tensor(w, &f8);
  int32_t ins[] = {p, i};
  assert_int_equal(
      lg_model_writer_add_operator(w, B(Gather), 0, ins, 2, &o, 1, NULL), 0);
  m = finish_and_parse(w, &data);
  assert_int_equal(m->opcodes[0].version, 8);
  expect_metadata(m, NULL);
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
}

static void test_writer_auto_errors(void** state) {
  (void)state;
  capture c = {{0}};
  lg_reporter rep = {capture_fn, &c};
  static const int32_t shape[] = {4};
  lg_model_writer* w = lg_model_writer_create(&rep);
  int32_t t = add_f32(w, "t", shape, 1);
  /* Without auto versions, version 0 stays an error. */
  assert_int_equal(
      lg_model_writer_add_operator(w, B(Add), 0, &t, 1, &t, 1, NULL), -1);
  assert_non_null(strstr(c.last, "version 0"));
  lg_model_writer_destroy(w);
  w = lg_model_writer_create(&rep);
  lg_model_writer_set_auto_versions(w, true);
  t = add_f32(w, "t", shape, 1);
  assert_int_equal(
      lg_model_writer_add_operator(w, B(StablehloCbrt), 0, &t, 1, &t, 1, NULL),
      -1);
  assert_non_null(
      strstr(c.last, "add_operator(STABLEHLO_CBRT): no version rules"));
  lg_model_writer_destroy(w);
  w = lg_model_writer_create(&rep);
  lg_model_writer_set_auto_versions(w, true);
  t = add_f32(w, "t", shape, 1);
  int32_t bad = 7;
  assert_int_equal(
      lg_model_writer_add_operator(w, B(Add), 0, &bad, 1, &t, 1, NULL), -1);
  assert_non_null(strstr(c.last, "bad tensor index 7"));
  lg_model_writer_destroy(w);
  /* Switching auto versions off again restores the old behaviour. */
  w = lg_model_writer_create(&rep);
  lg_model_writer_set_auto_versions(w, true);
  lg_model_writer_set_auto_versions(w, false);
  t = add_f32(w, "t", shape, 1);
  assert_int_equal(
      lg_model_writer_add_operator(w, B(Add), 1, &t, 1, &t, 1, NULL), 0);
  void* data = NULL;
  lg_model* m = finish_and_parse(w, &data);
  expect_metadata(m, NULL);
  lg_model_destroy(m);
  free(data);
  lg_model_writer_destroy(w);
  lg_model_writer_set_auto_versions(NULL, true);
}

/* The writer hands the rules its params with kTfLiteNoType bias types read
 * as the schema default (kTfLiteFloat32), as a reader of the file sees
 * them: an int16x8 CONV_2D is version 8 either way. */
static void test_writer_auto_normalizes_params(void** state) {
  (void)state;
  static const int32_t in_shape[] = {1, 3, 3, 2}, f_shape[] = {2, 1, 1, 2};
  static const int8_t filter[4] = {1, 2, 3, 4};
  for (int pass = 0; pass < 2; ++pass) {
    lg_model_writer* w = lg_model_writer_create(NULL);
    lg_model_writer_set_auto_versions(w, true);
    lg_writer_tensor x = {
        .name = "x", .type = kTfLiteInt16, .shape = in_shape, .num_dims = 4};
    int32_t xi = lg_model_writer_add_tensor(w, &x);
    int32_t f = lg_model_writer_add_const_tensor(w, "f", kTfLiteInt8, f_shape,
                                                 4, filter, sizeof(filter));
    x.name = "y";
    int32_t y = lg_model_writer_add_tensor(w, &x);
    TfLiteConvParams p = {.padding = kTfLitePaddingValid,
                          .stride_width = 1,
                          .stride_height = 1,
                          .dilation_width_factor = 1,
                          .dilation_height_factor = 1,
                          .quantized_bias_type = kTfLiteNoType};
    int32_t ins[] = {xi, f, -1};
    assert_int_equal(lg_model_writer_add_operator(w, B(Conv2d), 0, ins, 3, &y,
                                                  1, pass == 0 ? &p : NULL),
                     0);
    void* data = NULL;
    lg_model* m = finish_and_parse(w, &data);
    assert_int_equal(m->opcodes[0].version, 8);
    lg_op_signature s;
    assert_int_equal(lg_op_signature_from_model(m, 0, 0, NULL, &s), kTfLiteOk);
    assert_int_equal(lg_op_version(&s), 8);
    lg_op_signature_release(&s);
    expect_metadata(m, "2.15.0");
    lg_model_destroy(m);
    free(data);
    lg_model_writer_destroy(w);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_runtime_table_sorted),
      cmocka_unit_test(test_runtime_table_facts),
      cmocka_unit_test(test_registered_pairs_have_runtime_versions),
      cmocka_unit_test(test_compare_runtime_versions),
      cmocka_unit_test(test_model_min_runtime_version),
      cmocka_unit_test(test_writer_auto_versions),
      cmocka_unit_test(test_writer_auto_unknown_pair),
      cmocka_unit_test(test_writer_auto_errors),
      cmocka_unit_test(test_writer_auto_normalizes_params),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
