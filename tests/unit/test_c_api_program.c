/* A program written the way TFLite's C API documentation uses the API, run on
 * the tflite-micro hello_world model, plus the API's answers to bad input:
 * NULL handles, out-of-range indices, wrong buffer sizes, calls out of order
 * and malformed model bytes.
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tensorflow/lite/c/c_api.h"

#define HELLO_WORLD_MODEL \
  LITEGPU_SHARED_DIR "/models/tflite-micro/hello_world_float.tflite"

/* LiteRT's output of hello_world_float.tflite for x = 1.0 (sin(1) as the
 * model approximates it), computed once with ai-edge-litert 2.3.0:
 *
 *   /tmp/venvtest/bin/python -c "
 *   import numpy as np
 *   from ai_edge_litert.interpreter import Interpreter
 *   it = Interpreter(model_path='.../hello_world_float.tflite')
 *   it.allocate_tensors()
 *   i = it.get_input_details()[0]; o = it.get_output_details()[0]
 *   it.set_tensor(i['index'], np.array([[1.0]], dtype=np.float32))
 *   it.invoke(); print('%.9g' % it.get_tensor(o['index'])[0][0])"
 *
 * prints 0.863043845 (float bits 0x3f5cf071). LiteRT's own kernels differ in
 * the last bits: 0.863043606 with OpResolverType.BUILTIN_REF and 0.863043368
 * with BUILTIN_WITHOUT_DEFAULT_DELEGATES, so the tolerance is 1e-6. */
static const float kLiteRtOutputForOne = 0.863043845f;
static const float kTolerance = 1e-6f;

/* ---- Error capture ------------------------------------------------------ */

typedef struct capture {
  char text[8192];
  size_t len;
  int count;
} capture;

static void capture_reporter(void* user_data, const char* format,
                             va_list args) {
  capture* c = user_data;
  c->count++;
  if (c->len + 1 >= sizeof(c->text)) return;
  int n = vsnprintf(c->text + c->len, sizeof(c->text) - c->len, format, args);
  if (n < 0) return;
  c->len += (size_t)n;
  if (c->len >= sizeof(c->text) - 1) c->len = sizeof(c->text) - 2;
  c->text[c->len++] = '\n';
  c->text[c->len] = '\0';
}

static void capture_clear(capture* c) {
  c->len = 0;
  c->count = 0;
  c->text[0] = '\0';
}

/* Misuse of a tensor has no reporter to go to: the library writes to
 * stderr. These redirect stderr into a temporary file around a call. */
typedef struct stderr_capture {
  int saved_fd;
  FILE* file;
  char text[4096];
} stderr_capture;

static void stderr_begin(stderr_capture* s) {
  fflush(stderr);
  s->file = tmpfile();
  assert_non_null(s->file);
  s->saved_fd = dup(STDERR_FILENO);
  assert_true(s->saved_fd >= 0);
  assert_true(dup2(fileno(s->file), STDERR_FILENO) >= 0);
}

static const char* stderr_end(stderr_capture* s) {
  fflush(stderr);
  dup2(s->saved_fd, STDERR_FILENO);
  close(s->saved_fd);
  rewind(s->file);
  size_t n = fread(s->text, 1, sizeof(s->text) - 1, s->file);
  s->text[n] = '\0';
  fclose(s->file);
  fprintf(stderr, "%s", s->text); /* still visible in the test log */
  return s->text;
}

/* True when `number` appears in `text` as a whole decimal token. */
static bool has_number(const char* text, long number) {
  char digits[32];
  snprintf(digits, sizeof(digits), "%ld", number);
  const size_t len = strlen(digits);
  for (const char* p = strstr(text, digits); p != NULL;
       p = strstr(p + 1, digits)) {
    const bool starts = p == text || !isdigit((unsigned char)p[-1]);
    const bool ends = !isdigit((unsigned char)p[len]);
    if (starts && ends) return true;
  }
  return false;
}

/* ---- The documented flow ------------------------------------------------ */

static void test_documented_program(void** state) {
  (void)state;
  capture errors = {0};

  TfLiteModel* model = TfLiteModelCreateFromFile(HELLO_WORLD_MODEL);
  assert_non_null(model);
  TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
  assert_non_null(options);
  TfLiteInterpreterOptionsSetNumThreads(options, 2);
  TfLiteInterpreterOptionsSetErrorReporter(options, capture_reporter, &errors);
  TfLiteInterpreter* interpreter = TfLiteInterpreterCreate(model, options);
  if (interpreter == NULL) fail_msg("create failed: %s", errors.text);
  assert_int_equal(TfLiteInterpreterAllocateTensors(interpreter), kTfLiteOk);

  assert_int_equal(TfLiteInterpreterGetInputTensorCount(interpreter), 1);
  assert_int_equal(TfLiteInterpreterGetOutputTensorCount(interpreter), 1);
  TfLiteTensor* input_tensor = TfLiteInterpreterGetInputTensor(interpreter, 0);
  assert_non_null(input_tensor);
  assert_int_equal(TfLiteTensorType(input_tensor), kTfLiteFloat32);
  assert_int_equal(TfLiteTensorNumDims(input_tensor), 2);
  assert_int_equal(TfLiteTensorDim(input_tensor, 0), 1);
  assert_int_equal(TfLiteTensorDim(input_tensor, 1), 1);
  assert_int_equal(TfLiteTensorByteSize(input_tensor), sizeof(float));
  assert_non_null(TfLiteTensorData(input_tensor));
  assert_non_null(TfLiteTensorName(input_tensor));

  const float input[1] = {1.0f};
  assert_int_equal(
      TfLiteTensorCopyFromBuffer(input_tensor, input, sizeof(input)),
      kTfLiteOk);
  assert_int_equal(TfLiteInterpreterInvoke(interpreter), kTfLiteOk);
  const TfLiteTensor* output_tensor =
      TfLiteInterpreterGetOutputTensor(interpreter, 0);
  assert_non_null(output_tensor);
  float output[1] = {0.0f};
  assert_int_equal(
      TfLiteTensorCopyToBuffer(output_tensor, output, sizeof(output)),
      kTfLiteOk);
  if (fabsf(output[0] - kLiteRtOutputForOne) > kTolerance) {
    fail_msg("output %.9g, LiteRT gives %.9g", output[0], kLiteRtOutputForOne);
  }

  TfLiteInterpreterDelete(interpreter);
  TfLiteInterpreterOptionsDelete(options);
  TfLiteModelDelete(model);
  assert_int_equal(errors.count, 0);
}

/* Options deleted right after creation and the model right after that: the
 * interpreter keeps what it needs. No options at all works too. */
static void test_lifetimes_and_no_options(void** state) {
  (void)state;
  TfLiteModel* model = TfLiteModelCreateFromFile(HELLO_WORLD_MODEL);
  assert_non_null(model);
  TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreter* a = TfLiteInterpreterCreate(model, options);
  TfLiteInterpreterOptionsDelete(options);
  TfLiteInterpreter* b = TfLiteInterpreterCreate(model, NULL);
  TfLiteModelDelete(model);
  assert_non_null(a);
  assert_non_null(b);
  TfLiteInterpreter* both[2] = {a, b};
  for (int i = 0; i < 2; ++i) {
    assert_int_equal(TfLiteInterpreterAllocateTensors(both[i]), kTfLiteOk);
    const float x = 1.0f;
    TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(both[i], 0), &x,
                               sizeof(x));
    assert_int_equal(TfLiteInterpreterInvoke(both[i]), kTfLiteOk);
    float y = 0.0f;
    TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(both[i], 0), &y,
                             sizeof(y));
    assert_true(fabsf(y - kLiteRtOutputForOne) <= kTolerance);
  }
  TfLiteInterpreterDelete(a);
  TfLiteInterpreterDelete(b);
}

/* ---- NULL everywhere ---------------------------------------------------- */

static void test_null_arguments(void** state) {
  (void)state;
  stderr_capture quiet;
  stderr_begin(&quiet);

  assert_null(TfLiteModelCreate(NULL, 0));
  assert_null(TfLiteModelCreate(NULL, 100));
  assert_null(TfLiteModelCreateFromFile(NULL));
  assert_null(TfLiteModelCreateWithErrorReporter(NULL, 0, NULL, NULL));
  assert_null(TfLiteModelCreateFromFileWithErrorReporter(NULL, NULL, NULL));
  TfLiteModelDelete(NULL);

  assert_null(TfLiteInterpreterOptionsCopy(NULL));
  TfLiteInterpreterOptionsSetNumThreads(NULL, 2);
  TfLiteInterpreterOptionsSetErrorReporter(NULL, capture_reporter, NULL);
  TfLiteInterpreterOptionsAddOperator(NULL, NULL);
  TfLiteInterpreterOptionsAddRegistrationExternal(NULL, NULL);
  TfLiteInterpreterOptionsDelete(NULL);
  TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsAddOperator(options, NULL);

  assert_null(TfLiteInterpreterCreate(NULL, NULL));
  assert_null(TfLiteInterpreterCreate(NULL, options));
  TfLiteInterpreterOptionsDelete(options);

  assert_int_equal(TfLiteInterpreterGetInputTensorCount(NULL), 0);
  assert_int_equal(TfLiteInterpreterGetOutputTensorCount(NULL), 0);
  assert_null(TfLiteInterpreterInputTensorIndices(NULL));
  assert_null(TfLiteInterpreterOutputTensorIndices(NULL));
  assert_null(TfLiteInterpreterGetInputTensor(NULL, 0));
  assert_null(TfLiteInterpreterGetOutputTensor(NULL, 0));
  assert_null(TfLiteInterpreterGetTensor(NULL, 0));
  const int dims[2] = {1, 1};
  assert_int_not_equal(TfLiteInterpreterResizeInputTensor(NULL, 0, dims, 2),
                       kTfLiteOk);
  assert_int_not_equal(TfLiteInterpreterAllocateTensors(NULL), kTfLiteOk);
  assert_int_not_equal(TfLiteInterpreterInvoke(NULL), kTfLiteOk);
  TfLiteInterpreterDelete(NULL);

  float buffer[4] = {0};
  assert_int_equal(TfLiteTensorType(NULL), kTfLiteNoType);
  assert_int_equal(TfLiteTensorNumDims(NULL), -1);
  assert_int_equal(TfLiteTensorDim(NULL, 0), -1);
  assert_int_equal(TfLiteTensorByteSize(NULL), 0);
  assert_null(TfLiteTensorData(NULL));
  assert_null(TfLiteTensorName(NULL));
  TfLiteQuantizationParams q = TfLiteTensorQuantizationParams(NULL);
  assert_true(q.scale == 0.0f && q.zero_point == 0);
  assert_int_not_equal(TfLiteTensorCopyFromBuffer(NULL, buffer, 4), kTfLiteOk);
  assert_int_not_equal(TfLiteTensorCopyToBuffer(NULL, buffer, 4), kTfLiteOk);

  stderr_end(&quiet);
}

/* ---- Out of range, wrong sizes, out of order ---------------------------- */

typedef struct fixture {
  capture errors;
  TfLiteModel* model;
  TfLiteInterpreterOptions* options;
  TfLiteInterpreter* interpreter;
} fixture;

static int fixture_setup(void** state) {
  fixture* f = calloc(1, sizeof(*f));
  if (f == NULL) return -1;
  f->model = TfLiteModelCreateFromFile(HELLO_WORLD_MODEL);
  f->options = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetErrorReporter(f->options, capture_reporter,
                                           &f->errors);
  f->interpreter = TfLiteInterpreterCreate(f->model, f->options);
  *state = f;
  return f->interpreter == NULL ? -1 : 0;
}

static int fixture_teardown(void** state) {
  fixture* f = *state;
  TfLiteInterpreterDelete(f->interpreter);
  TfLiteInterpreterOptionsDelete(f->options);
  TfLiteModelDelete(f->model);
  free(f);
  return 0;
}

static void test_tensor_index_out_of_range(void** state) {
  fixture* f = *state;
  TfLiteInterpreter* ip = f->interpreter;
  assert_non_null(TfLiteInterpreterGetInputTensor(ip, 0));
  assert_null(TfLiteInterpreterGetInputTensor(ip, 1));
  assert_null(TfLiteInterpreterGetInputTensor(ip, -1));
  assert_null(TfLiteInterpreterGetOutputTensor(ip, 1));
  assert_null(TfLiteInterpreterGetOutputTensor(ip, -1));
  assert_null(TfLiteInterpreterGetOutputTensor(ip, INT32_MAX));
  assert_null(TfLiteInterpreterGetTensor(ip, -1));
  assert_null(TfLiteInterpreterGetTensor(ip, 100000));
  const int dims[2] = {1, 1};
  assert_int_not_equal(TfLiteInterpreterResizeInputTensor(ip, 1, dims, 2),
                       kTfLiteOk);
  assert_int_not_equal(TfLiteInterpreterResizeInputTensor(ip, -1, dims, 2),
                       kTfLiteOk);
  const TfLiteTensor* in = TfLiteInterpreterGetInputTensor(ip, 0);
  stderr_capture quiet;
  stderr_begin(&quiet);
  assert_int_equal(TfLiteTensorDim(in, 2), -1);
  assert_int_equal(TfLiteTensorDim(in, -1), -1);
  stderr_end(&quiet);
  /* Still usable afterwards. */
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
}

static void test_copy_with_wrong_size(void** state) {
  fixture* f = *state;
  TfLiteInterpreter* ip = f->interpreter;
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  TfLiteTensor* in = TfLiteInterpreterGetInputTensor(ip, 0);
  const float two[2] = {1.0f, 2.0f};
  stderr_capture err;
  stderr_begin(&err);
  TfLiteStatus status = TfLiteTensorCopyFromBuffer(in, two, sizeof(two));
  const char* text = stderr_end(&err);
  assert_int_not_equal(status, kTfLiteOk);
  /* The message gives the tensor's size (4) and the caller's (8). */
  const char* where = f->errors.len > 0 ? f->errors.text : text;
  if (!has_number(where, 4) || !has_number(where, 8)) {
    fail_msg("expected sizes 4 and 8 in the message: \"%s\"", where);
  }
  float out[2];
  stderr_begin(&err);
  status = TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(ip, 0),
                                    out, sizeof(out));
  stderr_end(&err);
  assert_int_not_equal(status, kTfLiteOk);
  stderr_begin(&err);
  status = TfLiteTensorCopyFromBuffer(in, NULL, sizeof(float));
  stderr_end(&err);
  assert_int_not_equal(status, kTfLiteOk);
}

static void test_invoke_before_allocate(void** state) {
  fixture* f = *state;
  capture_clear(&f->errors);
  assert_int_not_equal(TfLiteInterpreterInvoke(f->interpreter), kTfLiteOk);
  assert_non_null(
      strstr(f->errors.text, "Invoke called on model that is not ready."));
}

static void test_resize_then_invoke_without_allocate(void** state) {
  fixture* f = *state;
  TfLiteInterpreter* ip = f->interpreter;
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  const float one = 1.0f;
  TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(ip, 0), &one,
                             sizeof(one));
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);

  const int dims[2] = {2, 1};
  assert_int_equal(TfLiteInterpreterResizeInputTensor(ip, 0, dims, 2),
                   kTfLiteOk);
  capture_clear(&f->errors);
  assert_int_not_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  assert_non_null(
      strstr(f->errors.text, "Invoke called on model that is not ready."));

  /* After AllocateTensors the batch of two runs, each row as before. */
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  const float two[2] = {1.0f, 1.0f};
  TfLiteTensor* in = TfLiteInterpreterGetInputTensor(ip, 0);
  assert_int_equal(TfLiteTensorByteSize(in), sizeof(two));
  assert_int_equal(TfLiteTensorCopyFromBuffer(in, two, sizeof(two)), kTfLiteOk);
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  float out[2];
  assert_int_equal(
      TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(ip, 0), out,
                               sizeof(out)),
      kTfLiteOk);
  assert_true(fabsf(out[0] - kLiteRtOutputForOne) <= kTolerance);
  assert_true(fabsf(out[1] - kLiteRtOutputForOne) <= kTolerance);
}

/* ---- Malformed model bytes ---------------------------------------------- */

static void* read_file(const char* path, size_t* size) {
  FILE* file = fopen(path, "rb");
  assert_non_null(file);
  fseek(file, 0, SEEK_END);
  long length = ftell(file);
  assert_true(length > 0);
  rewind(file);
  void* data = malloc((size_t)length);
  assert_non_null(data);
  assert_int_equal(fread(data, 1, (size_t)length, file), (size_t)length);
  fclose(file);
  *size = (size_t)length;
  return data;
}

static void expect_malformed(const void* data, size_t size, const char* what) {
  capture errors = {0};
  TfLiteModel* model =
      TfLiteModelCreateWithErrorReporter(data, size, capture_reporter, &errors);
  if (model != NULL) {
    TfLiteModelDelete(model);
    fail_msg("%s: a model was created", what);
  }
  if (errors.count == 0 || errors.len <= 1) {
    fail_msg("%s: no message was reported", what);
  }
}

static void test_malformed_model(void** state) {
  (void)state;
  size_t size = 0;
  uint8_t* good = read_file(HELLO_WORLD_MODEL, &size);
  /* The real file loads from memory. */
  TfLiteModel* model = TfLiteModelCreate(good, size);
  assert_non_null(model);
  TfLiteModelDelete(model);

  uint8_t garbage[256];
  for (size_t i = 0; i < sizeof(garbage); ++i) {
    garbage[i] = (uint8_t)(i * 37u + 11u);
  }
  expect_malformed(garbage, sizeof(garbage), "garbage");
  expect_malformed(good, 3, "3 bytes");
  expect_malformed(good, size / 2, "truncated to half");

  uint8_t* bad_id = malloc(size);
  assert_non_null(bad_id);
  memcpy(bad_id, good, size);
  memcpy(bad_id + 4, "XXXX", 4); /* the file identifier */
  expect_malformed(bad_id, size, "wrong identifier");
  memcpy(bad_id, good, size);
  memset(bad_id, 0xFF, 4); /* the root offset */
  expect_malformed(bad_id, size, "root offset out of range");
  free(bad_id);

  capture errors = {0};
  assert_null(TfLiteModelCreateFromFileWithErrorReporter(
      "/nonexistent/model.tflite", capture_reporter, &errors));
  assert_true(errors.count > 0);
  free(good);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_documented_program),
      cmocka_unit_test(test_lifetimes_and_no_options),
      cmocka_unit_test(test_null_arguments),
      cmocka_unit_test_setup_teardown(test_tensor_index_out_of_range,
                                      fixture_setup, fixture_teardown),
      cmocka_unit_test_setup_teardown(test_copy_with_wrong_size, fixture_setup,
                                      fixture_teardown),
      cmocka_unit_test_setup_teardown(test_invoke_before_allocate,
                                      fixture_setup, fixture_teardown),
      cmocka_unit_test_setup_teardown(test_resize_then_invoke_without_allocate,
                                      fixture_setup, fixture_teardown),
      cmocka_unit_test(test_malformed_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
