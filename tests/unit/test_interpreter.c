/* Interpreter: state machine, resolution messages, memory planning, resize,
 * dynamic tensors, temporaries, failures, through the public C API on models
 * built with the model writer. Expected values are derived by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "litegpu/interpreter_info.h"
#include "litegpu/profiling.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tensorflow/lite/c/c_api_opaque.h"
#include "tensorflow/lite/c/common.h"
#include "tensorflow/lite/core/c/operator.h"

/* ---- Helpers ----------------------------------------------------------------
 */

typedef struct capture {
  char text[16384];
  size_t length;
} capture;

static void capture_report(void* user_data, const char* format, va_list args) {
  capture* c = user_data;
  if (c->length >= sizeof(c->text) - 1) return;
  int n =
      vsnprintf(c->text + c->length, sizeof(c->text) - c->length, format, args);
  if (n > 0) c->length += (size_t)n;
  if (c->length > sizeof(c->text) - 2) c->length = sizeof(c->text) - 2;
  c->text[c->length++] = '\n';
  c->text[c->length] = '\0';
}

typedef struct built_model {
  void* data;
  size_t size;
  TfLiteModel* model;
} built_model;

static void finish_model(lg_model_writer* w, built_model* out) {
  assert_int_equal(lg_model_writer_finish(w, &out->data, &out->size),
                   kTfLiteOk);
  lg_model_writer_destroy(w);
  out->model = TfLiteModelCreate(out->data, out->size);
  assert_non_null(out->model);
}

static void free_model(built_model* m) {
  TfLiteModelDelete(m->model);
  free(m->data);
}

static int32_t add_float_tensor(lg_model_writer* w, const char* name,
                                const int32_t* shape, int num_dims) {
  lg_writer_tensor t = {.name = name,
                        .type = kTfLiteFloat32,
                        .shape = shape,
                        .num_dims = num_dims};
  return lg_model_writer_add_tensor(w, &t);
}

static const float kConst5[5] = {1, 2, 3, 4, 5};

/* y = (x + c) + c with x float32[1,5], c = [1,2,3,4,5]; ADD at `version`. */
static void build_double_add(built_model* out, int version) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  assert_non_null(w);
  const int32_t shape[2] = {1, 5};
  const int32_t cshape[1] = {5};
  int32_t x = add_float_tensor(w, "x", shape, 2);
  int32_t c = lg_model_writer_add_const_tensor(w, "c", kTfLiteFloat32, cshape,
                                               1, kConst5, sizeof(kConst5));
  int32_t t = add_float_tensor(w, "t", shape, 2);
  int32_t y = add_float_tensor(w, "y", shape, 2);
  int32_t in1[2] = {x, c}, in2[2] = {t, c};
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, version, in1,
                                           2, &t, 1, NULL) >= 0);
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, version, in2,
                                           2, &y, 1, NULL) >= 0);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  finish_model(w, out);
}

static TfLiteInterpreterOptions* options_with_capture(capture* c) {
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  assert_non_null(o);
  memset(c, 0, sizeof(*c));
  TfLiteInterpreterOptionsSetErrorReporter(o, capture_report, c);
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  return o;
}

static void set_input(TfLiteInterpreter* ip, const float* v, size_t n) {
  TfLiteTensor* in = TfLiteInterpreterGetInputTensor(ip, 0);
  assert_non_null(in);
  assert_int_equal(TfLiteTensorCopyFromBuffer(in, v, n * sizeof(float)),
                   kTfLiteOk);
}

static void expect_output(TfLiteInterpreter* ip, const float* expected,
                          size_t n) {
  const TfLiteTensor* out = TfLiteInterpreterGetOutputTensor(ip, 0);
  assert_non_null(out);
  assert_int_equal(TfLiteTensorByteSize(out), n * sizeof(float));
  const float* y = TfLiteTensorData(out);
  for (size_t i = 0; i < n; ++i) {
    if (y[i] != expected[i]) {
      fail_msg("output[%zu] = %g, expected %g", i, y[i], expected[i]);
    }
  }
}

/* ---- Basic run and state machine --------------------------------------------
 */

static void test_double_add_runs(void** state) {
  (void)state;
  built_model m;
  build_double_add(&m, 1);
  capture c;
  TfLiteInterpreterOptions* o = options_with_capture(&c);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  /* The interpreter keeps the model and options alive on its own. */
  TfLiteInterpreterOptionsDelete(o);
  TfLiteModelDelete(m.model);
  m.model = NULL;

  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteError);
  assert_non_null(strstr(c.text, "Invoke called on model that is not ready."));
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  const float x[5] = {10, 20, 30, 40, 50};
  set_input(ip, x, 5);
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  /* y = x + 2c = {12, 24, 36, 48, 60} */
  const float y[5] = {12, 24, 36, 48, 60};
  expect_output(ip, y, 5);
  /* The input survives Invoke (graph inputs are never overwritten). */
  const float* in = TfLiteTensorData(TfLiteInterpreterGetInputTensor(ip, 0));
  assert_true(in[4] == 50.0f);
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  expect_output(ip, y, 5);
  TfLiteInterpreterDelete(ip);
  free_model(&m);
}

static void test_resize_requires_allocate(void** state) {
  (void)state;
  built_model m;
  build_double_add(&m, 1);
  capture c;
  TfLiteInterpreterOptions* o = options_with_capture(&c);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  const int dims[2] = {2, 5};
  assert_int_equal(TfLiteInterpreterResizeInputTensor(ip, 0, dims, 2),
                   kTfLiteOk);
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteError);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  const float x[10] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 1};
  set_input(ip, x, 10);
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  const float y[10] = {2, 4, 6, 8, 10, 3, 5, 7, 9, 11};
  expect_output(ip, y, 10);
  const TfLiteTensor* out = TfLiteInterpreterGetOutputTensor(ip, 0);
  assert_int_equal(TfLiteTensorNumDims(out), 2);
  assert_int_equal(TfLiteTensorDim(out, 0), 2);
  /* Bad resizes. */
  const int negative[2] = {-1, 5};
  assert_int_equal(TfLiteInterpreterResizeInputTensor(ip, 0, negative, 2),
                   kTfLiteError);
  assert_non_null(strstr(c.text, "negative"));
  assert_int_equal(TfLiteInterpreterResizeInputTensor(ip, 3, dims, 2),
                   kTfLiteError);
  assert_non_null(strstr(c.text, "input index 3 out of range"));
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

static void test_arena_reuses_memory(void** state) {
  (void)state;
  /* A chain of 6 ADDs over float32[1,1000]: x -> t1 -> ... -> t5 -> y. Input
   * and output live throughout; t1..t5 each live two steps. At most three
   * tensors are alive at once (x, t_i, t_i+1; or x, t5, y), and greedy
   * placement reaches that bound: 3 * 4032 (4000 aligned to 64) bytes. */
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t shape[2] = {1, 1000};
  static float ones[1000];
  for (int i = 0; i < 1000; ++i) ones[i] = 1.0f;
  int32_t c = lg_model_writer_add_const_tensor(w, "one", kTfLiteFloat32, shape,
                                               2, ones, sizeof(ones));
  int32_t prev = add_float_tensor(w, "x", shape, 2);
  int32_t x = prev;
  for (int i = 0; i < 6; ++i) {
    int32_t next = add_float_tensor(w, i == 5 ? "y" : "t", shape, 2);
    int32_t in[2] = {prev, c};
    lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, in, 2, &next, 1,
                                 NULL);
    prev = next;
  }
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &prev, 1);
  built_model m;
  finish_model(w, &m);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, NULL);
  assert_non_null(ip);
  litegpu_memory_info info;
  assert_int_equal(litegpu_interpreter_memory_info(ip, &info), kTfLiteError);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  assert_int_equal(litegpu_interpreter_memory_info(ip, &info), kTfLiteOk);
  assert_int_equal(info.non_constant_tensor_bytes, 7 * 4000);
  assert_int_equal(info.arena_bytes, 3 * 4032);
  assert_int_equal(info.constant_bytes, 4000);
  float x_values[1000];
  for (int i = 0; i < 1000; ++i) x_values[i] = (float)i;
  set_input(ip, x_values, 1000);
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  const float* y = TfLiteTensorData(TfLiteInterpreterGetOutputTensor(ip, 0));
  for (int i = 0; i < 1000; ++i) assert_true(y[i] == (float)i + 6.0f);
  TfLiteInterpreterDelete(ip);
  free_model(&m);
}

/* ---- Resolution
 * ---------------------------------------------------------------- */

static void test_unsupported_builtin_version(void** state) {
  (void)state;
  built_model m;
  build_double_add(&m, 99);
  capture c;
  TfLiteInterpreterOptions* o = options_with_capture(&c);
  assert_null(TfLiteInterpreterCreate(m.model, o));
  assert_non_null(strstr(c.text,
                         "Didn't find op for builtin opcode 'ADD' version "
                         "'99'. An older version of this builtin might be "
                         "supported. Are you using an old TFLite binary with "
                         "a newer model?"));
  assert_non_null(strstr(c.text,
                         "ADD version 99 is not supported: this "
                         "runtime supports versions 1 to"));
  assert_non_null(strstr(c.text, "Registration failed."));
  /* Both ADD nodes share the operator code: one report, not one per node. */
  const char* first = strstr(c.text, "Didn't find op for builtin opcode");
  assert_null(strstr(first + 1, "Didn't find op for builtin opcode"));
  const char* failed = strstr(c.text, "Registration failed.");
  assert_null(strstr(failed + 1, "Registration failed."));
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

/* A user "ADD" that subtracts instead, to tell it apart from the builtin. */
static TfLiteStatus sub_prepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* a = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* out = &context->tensors[node->outputs->data[0]];
  return context->ResizeTensor(context, out, TfLiteIntArrayCopy(a->dims));
}

static TfLiteStatus sub_invoke(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* a = &context->tensors[node->inputs->data[0]];
  const TfLiteTensor* b = &context->tensors[node->inputs->data[1]];
  TfLiteTensor* out = &context->tensors[node->outputs->data[0]];
  size_t n = out->bytes / sizeof(float);
  size_t nb = b->bytes / sizeof(float);
  for (size_t i = 0; i < n; ++i)
    out->data.f[i] = a->data.f[i] - b->data.f[i % nb];
  return kTfLiteOk;
}

static void test_selected_ops_and_overrides(void** state) {
  (void)state;
  built_model m;
  build_double_add(&m, 2);
  capture c;
  TfLiteInterpreterOptions* o = options_with_capture(&c);
  /* Without registrations, selected-ops mode knows no ADD at all. */
  assert_null(TfLiteInterpreterCreateWithSelectedOps(m.model, o));
  assert_non_null(strstr(c.text,
                         "ADD is not supported by this runtime at "
                         "any version."));
  TfLiteRegistration reg = {0};
  reg.prepare = sub_prepare;
  reg.invoke = sub_invoke;
  /* Version 1 only: the model asks for 2. */
  TfLiteInterpreterOptionsAddBuiltinOp(o, kTfLiteBuiltinAdd, &reg, 1, 1);
  c.length = 0;
  assert_null(TfLiteInterpreterCreateWithSelectedOps(m.model, o));
  assert_non_null(strstr(c.text, "runtime supports versions 1 to 1"));
  TfLiteInterpreterOptionsAddBuiltinOp(o, kTfLiteBuiltinAdd, &reg, 1, 3);
  /* The user registration overrides the builtin kernel in both modes. */
  for (int selected = 0; selected < 2; ++selected) {
    TfLiteInterpreter* ip =
        selected ? TfLiteInterpreterCreateWithSelectedOps(m.model, o)
                 : TfLiteInterpreterCreate(m.model, o);
    assert_non_null(ip);
    assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
    const float x[5] = {10, 20, 30, 40, 50};
    set_input(ip, x, 5);
    assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
    const float y[5] = {8, 16, 24, 32, 40}; /* x - 2c */
    expect_output(ip, y, 5);
    TfLiteInterpreterDelete(ip);
  }
  /* A copy of the options carries the registrations. */
  TfLiteInterpreterOptions* copy = TfLiteInterpreterOptionsCopy(o);
  TfLiteInterpreter* ip = TfLiteInterpreterCreateWithSelectedOps(m.model, copy);
  assert_non_null(ip);
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(copy);
  /* Bad registrations are refused with a message. */
  c.length = 0;
  TfLiteInterpreterOptionsAddBuiltinOp(o, kTfLiteBuiltinAdd, &reg, 3, 2);
  assert_non_null(strstr(c.text, "1 <= min <= max"));
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

/* ---- Dynamic outputs and temporaries
 * --------------------------------------------- */

typedef struct op_counters {
  int init, free, prepare, invoke;
  int recommended_threads;
} op_counters;

static op_counters g_counters;

/* "DynamicCopy": output shape only known at Invoke (made dynamic in
 * Prepare), copies its input. Uses a scratch temporary added in Init. */
static void* dyn_init(TfLiteContext* context, const char* buffer,
                      size_t length) {
  (void)buffer, (void)length;
  g_counters.init++;
  int* scratch = malloc(sizeof(int));
  if (context->AddTensors(context, 1, scratch) != kTfLiteOk) {
    free(scratch);
    return NULL;
  }
  TfLiteTensor* t = &context->tensors[*scratch];
  t->type = kTfLiteFloat32;
  t->allocation_type = kTfLiteArenaRw;
  return scratch;
}

static void dyn_free(TfLiteContext* context, void* data) {
  (void)context;
  g_counters.free++;
  free(data);
}

static TfLiteStatus dyn_prepare(TfLiteContext* context, TfLiteNode* node) {
  g_counters.prepare++;
  g_counters.recommended_threads = context->recommended_num_threads;
  const int scratch = *(int*)node->user_data;
  TfLiteIntArrayFree(node->temporaries);
  node->temporaries = TfLiteIntArrayCreate(1);
  node->temporaries->data[0] = scratch;
  const TfLiteTensor* in = &context->tensors[node->inputs->data[0]];
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(
      context, &context->tensors[scratch], TfLiteIntArrayCopy(in->dims)));
  context->tensors[node->outputs->data[0]].allocation_type = kTfLiteDynamic;
  return kTfLiteOk;
}

static TfLiteStatus dyn_invoke(TfLiteContext* context, TfLiteNode* node) {
  g_counters.invoke++;
  const TfLiteTensor* in = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* scratch = &context->tensors[node->temporaries->data[0]];
  TF_LITE_ENSURE(context, scratch->data.raw != NULL);
  TF_LITE_ENSURE_EQ(context, (int)scratch->bytes, (int)in->bytes);
  memcpy(scratch->data.raw, in->data.raw, in->bytes);
  TfLiteTensor* out = &context->tensors[node->outputs->data[0]];
  TF_LITE_ENSURE_STATUS(
      context->ResizeTensor(context, out, TfLiteIntArrayCopy(in->dims)));
  memcpy(out->data.raw, scratch->data.raw, in->bytes);
  return kTfLiteOk;
}

static TfLiteStatus failing_invoke(TfLiteContext* context, TfLiteNode* node) {
  (void)node;
  TF_LITE_ENSURE(context, 1 == 2);
  return kTfLiteOk;
}

/* x -> DynamicCopy -> d -> ADD(d, c) -> y */
static void build_dynamic(built_model* out, const char* first_op) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t shape[2] = {1, 5};
  const int32_t cshape[1] = {5};
  int32_t x = add_float_tensor(w, "x", shape, 2);
  int32_t c = lg_model_writer_add_const_tensor(w, "c", kTfLiteFloat32, cshape,
                                               1, kConst5, sizeof(kConst5));
  int32_t d = add_float_tensor(w, "d", shape, 2);
  int32_t y = add_float_tensor(w, "y", shape, 2);
  assert_true(lg_model_writer_add_custom_operator(w, first_op, 1, &x, 1, &d, 1,
                                                  NULL, 0) >= 0);
  int32_t in[2] = {d, c};
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, in, 2, &y, 1, NULL);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  finish_model(w, out);
}

static void test_dynamic_output_and_temporary(void** state) {
  (void)state;
  memset(&g_counters, 0, sizeof(g_counters));
  built_model m;
  build_dynamic(&m, "DynamicCopy");
  capture c;
  TfLiteInterpreterOptions* o = options_with_capture(&c);
  TfLiteInterpreterOptionsSetNumThreads(o, 2);
  TfLiteRegistration reg = {0};
  reg.init = dyn_init;
  reg.free = dyn_free;
  reg.prepare = dyn_prepare;
  reg.invoke = dyn_invoke;
  TfLiteInterpreterOptionsAddCustomOp(o, "DynamicCopy", &reg, 1, 1);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  assert_int_equal(g_counters.init, 1);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  assert_int_equal(g_counters.prepare, 1);
  assert_int_equal(g_counters.recommended_threads, 2);
  const float x[5] = {1, 1, 1, 1, 1};
  set_input(ip, x, 5);
  for (int run = 0; run < 3; ++run) {
    assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
    const float y[5] = {2, 3, 4, 5, 6};
    expect_output(ip, y, 5);
  }
  assert_int_equal(g_counters.invoke, 3);
  /* Resize: everything after the dynamic tensor follows the new shape. */
  const int dims[2] = {2, 5};
  assert_int_equal(TfLiteInterpreterResizeInputTensor(ip, 0, dims, 2),
                   kTfLiteOk);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  assert_int_equal(g_counters.prepare, 2);
  const float x2[10] = {0, 0, 0, 0, 0, 10, 10, 10, 10, 10};
  set_input(ip, x2, 10);
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  const float y2[10] = {1, 2, 3, 4, 5, 11, 12, 13, 14, 15};
  expect_output(ip, y2, 10);
  TfLiteInterpreterDelete(ip);
  assert_int_equal(g_counters.free, g_counters.init);
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

static void test_failures_name_the_node(void** state) {
  (void)state;
  built_model m;
  build_dynamic(&m, "Failing");
  capture c;
  TfLiteInterpreterOptions* o = options_with_capture(&c);
  /* No registration: unresolved custom op, in TFLite's words, when the
   * placeholder is prepared. */
  TfLiteInterpreter* unresolved = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(unresolved);
  assert_int_equal(TfLiteInterpreterAllocateTensors(unresolved),
                   kTfLiteUnresolvedOps);
  assert_non_null(strstr(c.text, "Encountered unresolved custom op: Failing."));
  TfLiteInterpreterDelete(unresolved);
  TfLiteRegistration reg = {0};
  reg.prepare = sub_prepare; /* resizes output like the input */
  reg.invoke = failing_invoke;
  TfLiteInterpreterOptionsAddCustomOp(o, "Failing", &reg, 1, 1);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  c.length = 0;
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteError);
  assert_non_null(strstr(c.text, "1 == 2 was not true."));
  assert_non_null(strstr(c.text, "Node number 0 (Failing) failed to invoke."));
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

static void test_prepare_failure(void** state) {
  (void)state;
  /* ADD of float32[2] and float32[3]: not broadcastable. */
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t s2[1] = {2}, s3[1] = {3};
  int32_t a = add_float_tensor(w, "a", s2, 1);
  int32_t b = add_float_tensor(w, "b", s3, 1);
  int32_t y = add_float_tensor(w, "y", s3, 1);
  int32_t in[2] = {a, b}, ins[2] = {a, b};
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, in, 2, &y, 1, NULL);
  lg_model_writer_set_inputs(w, ins, 2);
  lg_model_writer_set_outputs(w, &y, 1);
  built_model m;
  finish_model(w, &m);
  capture c;
  TfLiteInterpreterOptions* o = options_with_capture(&c);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteError);
  assert_non_null(strstr(c.text, "Node number 0 (ADD) failed to prepare."));
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteError);
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

/* ---- Context callbacks
 * ----------------------------------------------------------- */

static TfLiteStatus probe_prepare(TfLiteContext* context, TfLiteNode* node) {
  TfLiteIntArray* plan = NULL;
  /* Delegate-only functions are forbidden outside a delegate's Prepare. */
  TF_LITE_ENSURE_EQ(context, context->GetExecutionPlan(context, &plan),
                    kTfLiteError);
  TF_LITE_ENSURE(context, context->GetTensor(context, -1) == NULL);
  TF_LITE_ENSURE(context,
                 context->GetTensor(context, 0) == &context->tensors[0]);
  const char* ptr = NULL;
  size_t bytes = 0;
  TF_LITE_ENSURE_EQ(
      context,
      context->GetModelMetadata(context, "min_runtime_version", &ptr, &bytes),
      kTfLiteOk);
  TF_LITE_ENSURE_EQ(context, (int)bytes, 16);
  TF_LITE_ENSURE(context, strcmp(ptr, "1.5.0") == 0);
  TF_LITE_ENSURE_EQ(context,
                    context->GetModelMetadata(context, "nope", &ptr, &bytes),
                    kTfLiteError);
  int shape[2] = {1, 5};
  return context->ResizeTensorExplicit(
      context, &context->tensors[node->outputs->data[0]], 2, shape);
}

static TfLiteStatus copy_invoke(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* out = &context->tensors[node->outputs->data[0]];
  memcpy(out->data.raw, in->data.raw, in->bytes);
  return kTfLiteOk;
}

static void test_context_callbacks(void** state) {
  (void)state;
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t shape[2] = {1, 5};
  const int32_t cshape[1] = {5};
  int32_t x = add_float_tensor(w, "x", shape, 2);
  int32_t c0 = lg_model_writer_add_const_tensor(w, "c", kTfLiteFloat32, cshape,
                                                1, kConst5, sizeof(kConst5));
  int32_t d = add_float_tensor(w, "d", shape, 2);
  int32_t y = add_float_tensor(w, "y", shape, 2);
  lg_model_writer_add_custom_operator(w, "Probe", 1, &x, 1, &d, 1, NULL, 0);
  int32_t in[2] = {d, c0};
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, in, 2, &y, 1, NULL);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  lg_model_writer_set_min_runtime_version(w, "1.5.0");
  built_model m;
  finish_model(w, &m);
  capture c;
  TfLiteInterpreterOptions* o = options_with_capture(&c);
  TfLiteRegistration reg = {0};
  reg.prepare = probe_prepare;
  reg.invoke = copy_invoke;
  TfLiteInterpreterOptionsAddCustomOp(o, "Probe", &reg, 1, 1);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  assert_non_null(
      strstr(c.text, "The function is forbidden if not calling in delegate."));
  const float x_values[5] = {5, 4, 3, 2, 1};
  set_input(ip, x_values, 5);
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  const float expected[5] = {6, 6, 6, 6, 6};
  expect_output(ip, expected, 5);
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

/* ---- Bad arguments
 * ------------------------------------------------------------------ */

static void test_bad_arguments(void** state) {
  (void)state;
  built_model m;
  build_double_add(&m, 1);
  capture c;
  TfLiteInterpreterOptions* o = options_with_capture(&c);
  TfLiteInterpreterOptionsSetNumThreads(o, 0);
  assert_non_null(strstr(c.text, "num_threads should be -1 or positive"));
  assert_null(TfLiteInterpreterCreate(NULL, o));
  assert_non_null(strstr(c.text, "model is NULL"));
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  assert_null(TfLiteInterpreterGetInputTensor(ip, 1));
  assert_null(TfLiteInterpreterGetOutputTensor(ip, -1));
  assert_null(TfLiteInterpreterGetTensor(ip, 1000));
  assert_non_null(strstr(c.text, "index 1000 out of range"));
  TfLiteTensor* in = TfLiteInterpreterGetInputTensor(ip, 0);
  float buf[5] = {0};
  /* Not allocated yet. */
  assert_int_equal(TfLiteTensorCopyFromBuffer(in, buf, sizeof(buf)),
                   kTfLiteError);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  assert_int_equal(TfLiteTensorCopyFromBuffer(in, buf, 3), kTfLiteError);
  assert_int_equal(TfLiteTensorCopyToBuffer(in, buf, 21), kTfLiteError);
  assert_int_equal(TfLiteTensorCopyFromBuffer(in, NULL, sizeof(buf)),
                   kTfLiteError);
  assert_int_equal(TfLiteTensorCopyFromBuffer(in, buf, sizeof(buf)), kTfLiteOk);
  /* Constant tensors cannot be overwritten through the API. */
  TfLiteTensor* constant = TfLiteInterpreterGetTensor(ip, 1);
  assert_int_equal(TfLiteTensorCopyFromBuffer(constant, buf, sizeof(buf)),
                   kTfLiteError);
  assert_int_equal(TfLiteInterpreterGetInputTensorCount(NULL), 0);
  assert_null(TfLiteInterpreterInputTensorIndices(NULL));
  assert_int_equal(TfLiteInterpreterInvoke(NULL), kTfLiteError);
  assert_int_equal(TfLiteInterpreterAllocateTensors(NULL), kTfLiteError);
  assert_int_equal(TfLiteTensorNumDims(NULL), -1);
  assert_int_equal(TfLiteTensorDim(in, 7), -1);
  assert_int_equal(TfLiteTensorByteSize(NULL), 0);
  assert_null(TfLiteTensorData(NULL));
  TfLiteInterpreterDelete(NULL);
  TfLiteInterpreterOptionsDelete(NULL);
  TfLiteModelDelete(NULL);
  assert_null(TfLiteModelCreate(NULL, 10));
  assert_null(TfLiteModelCreateFromFile(NULL));
  assert_null(TfLiteInterpreterOptionsCopy(NULL));
  assert_string_equal(TfLiteVersion(), "2.17.0");
  assert_int_equal(TfLiteSchemaVersion(), 3);
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

/* The main graph's input and output tensor indices one at a time: x is
 * tensor 0, y tensor 3 (x, c, t, y in build_double_add). */
static void test_io_tensor_indices(void** state) {
  (void)state;
  built_model m;
  build_double_add(&m, 1);
  capture c;
  TfLiteInterpreterOptions* o = options_with_capture(&c);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  assert_non_null(ip);
  assert_int_equal(TfLiteInterpreterGetInputTensorIndex(ip, 0),
                   TfLiteInterpreterInputTensorIndices(ip)[0]);
  assert_int_equal(TfLiteInterpreterGetInputTensorIndex(ip, 0), 0);
  assert_int_equal(TfLiteInterpreterGetOutputTensorIndex(ip, 0),
                   TfLiteInterpreterOutputTensorIndices(ip)[0]);
  assert_int_equal(TfLiteInterpreterGetOutputTensorIndex(ip, 0), 3);
  assert_int_equal(TfLiteInterpreterGetInputTensorIndex(ip, 1), -1);
  assert_non_null(strstr(c.text,
                         "TfLiteInterpreterGetInputTensorIndex: index 1 out "
                         "of range [0, 1)"));
  assert_int_equal(TfLiteInterpreterGetOutputTensorIndex(ip, -1), -1);
  assert_int_equal(TfLiteInterpreterGetInputTensorIndex(NULL, 0), -1);
  assert_int_equal(TfLiteInterpreterGetOutputTensorIndex(NULL, 0), -1);
  /* TFLite versions its extension APIs with its own version. */
  assert_string_equal(TfLiteExtensionApisVersion(), "2.17.0");
  assert_string_equal(TfLiteExtensionApisVersion(), TfLiteVersion());
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(o);
  free_model(&m);
}

/* ---- Resolver callbacks ---------------------------------------------------
 */

typedef struct resolver_calls {
  int builtin, custom, builtin_external;
  const TfLiteOperator* op; /* what the operator callback gives for ADD */
} resolver_calls;

/* ADD version 2 resolves to the subtracting kernel, nothing else. */
static const TfLiteRegistration* find_builtin(void* user_data,
                                              TfLiteBuiltinOperator op,
                                              int version) {
  static const TfLiteRegistration kSub = {.prepare = sub_prepare,
                                          .invoke = sub_invoke};
  resolver_calls* calls = user_data;
  ++calls->builtin;
  return op == kTfLiteBuiltinAdd && version == 2 ? &kSub : NULL;
}

static const TfLiteRegistration* find_custom(void* user_data, const char* op,
                                             int version) {
  (void)op, (void)version;
  ++((resolver_calls*)user_data)->custom;
  return NULL;
}

static const TfLiteOperator* find_builtin_external(void* user_data, int op,
                                                   int version) {
  (void)version;
  resolver_calls* calls = user_data;
  ++calls->builtin_external;
  return op == kTfLiteBuiltinAdd ? calls->op : NULL;
}

/* out = a - b (b broadcast), through the opaque API. */
static TfLiteStatus opaque_sub_invoke(TfLiteOpaqueContext* context,
                                      TfLiteOpaqueNode* node) {
  const TfLiteOpaqueTensor* a = TfLiteOpaqueNodeGetInput(context, node, 0);
  const TfLiteOpaqueTensor* b = TfLiteOpaqueNodeGetInput(context, node, 1);
  TfLiteOpaqueTensor* out = TfLiteOpaqueNodeGetOutput(context, node, 0);
  const float* pa = TfLiteOpaqueTensorData(a);
  const float* pb = TfLiteOpaqueTensorData(b);
  float* po = TfLiteOpaqueTensorData(out);
  const size_t n = TfLiteOpaqueTensorByteSize(out) / sizeof(float);
  const size_t nb = TfLiteOpaqueTensorByteSize(b) / sizeof(float);
  for (size_t i = 0; i < n; ++i) po[i] = pa[i] - pb[i % nb];
  return kTfLiteOk;
}

/* Creates an interpreter from `o` (selected ops or not) and expects the
 * subtracting kernel's y = x - 2c = (8, 16, 24, 32, 40). */
static void expect_subtracting(const built_model* m,
                               const TfLiteInterpreterOptions* o,
                               bool selected) {
  TfLiteInterpreter* ip =
      selected ? TfLiteInterpreterCreateWithSelectedOps(m->model, o)
               : TfLiteInterpreterCreate(m->model, o);
  assert_non_null(ip);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  const float x[5] = {10, 20, 30, 40, 50};
  set_input(ip, x, 5);
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  const float y[5] = {8, 16, 24, 32, 40};
  expect_output(ip, y, 5);
  TfLiteInterpreterDelete(ip);
}

/* SetOpResolver and its ...External variants: once set, the callbacks are
 * the only resolver (TFLite): registrations added to the options and the
 * builtin kernels are not asked; each setter replaces the callbacks. */
static void test_op_resolver_callbacks(void** state) {
  (void)state;
  built_model m;
  build_double_add(&m, 2);
  capture c;
  TfLiteInterpreterOptions* o = options_with_capture(&c);
  resolver_calls calls = {0};
  /* Ignored once callbacks are set: it would fail every Invoke. */
  TfLiteRegistration failing = {0};
  failing.invoke = failing_invoke;
  TfLiteInterpreterOptionsAddBuiltinOp(o, kTfLiteBuiltinAdd, &failing, 1, 3);
  TfLiteInterpreterOptionsSetOpResolver(o, find_builtin, find_custom, &calls);
  for (int selected = 0; selected < 2; ++selected) {
    expect_subtracting(&m, o, selected);
  }
  assert_true(calls.builtin > 0);
  assert_int_equal(calls.custom, 0);
  /* A copy of the options carries the callbacks. */
  TfLiteInterpreterOptions* copy = TfLiteInterpreterOptionsCopy(o);
  expect_subtracting(&m, copy, false);
  TfLiteInterpreterOptionsDelete(copy);

  /* ADD version 1 is not found, and the builtin kernel is not asked. */
  built_model m1;
  build_double_add(&m1, 1);
  assert_null(TfLiteInterpreterCreate(m1.model, o));
  assert_non_null(strstr(c.text,
                         "Didn't find op for builtin opcode 'ADD' version "
                         "'1'"));
  free_model(&m1);

  /* Operator callbacks: the opaque kernel subtracts. */
  TfLiteOperator* sub = TfLiteOperatorCreate(kTfLiteBuiltinAdd, NULL, 2);
  TfLiteOperatorSetInvoke(sub, opaque_sub_invoke);
  calls = (resolver_calls){.op = sub};
  TfLiteInterpreterOptionsSetOpResolverExternal(o, find_builtin_external, NULL,
                                                &calls);
  expect_subtracting(&m, o, false);
  assert_true(calls.builtin_external > 0);
  assert_int_equal(calls.builtin, 0); /* replaced */

  /* With fallback: an operator without callbacks sends the lookup on to
   * the registration callback. */
  TfLiteOperator* bare = TfLiteOperatorCreate(kTfLiteBuiltinAdd, NULL, 2);
  calls = (resolver_calls){.op = bare};
  TfLiteInterpreterOptionsSetOpResolverExternalWithFallback(
      o, find_builtin_external, NULL, find_builtin, find_custom, &calls);
  expect_subtracting(&m, o, false);
  assert_true(calls.builtin_external > 0);
  assert_int_equal(calls.builtin, calls.builtin_external);
  /* ... and one with callbacks is used. */
  calls = (resolver_calls){.op = sub};
  expect_subtracting(&m, o, false);
  assert_int_equal(calls.builtin, 0);

  TfLiteInterpreterOptionsSetOpResolver(NULL, find_builtin, NULL, NULL);
  TfLiteInterpreterOptionsDelete(o);
  TfLiteOperatorDelete(sub);
  TfLiteOperatorDelete(bare);
  free_model(&m);
}

static void test_op_profiling(void** state) {
  (void)state;
  built_model m;
  build_double_add(&m, 2);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, NULL);
  assert_non_null(ip);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk); /* not counted */
  assert_int_equal(litegpu_interpreter_enable_op_profiling(ip, true),
                   kTfLiteOk);
  for (int i = 0; i < 3; ++i) {
    assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  }
  assert_int_equal(litegpu_interpreter_op_profile(ip, NULL, 0), 2);
  litegpu_op_profile p[2];
  assert_int_equal(litegpu_interpreter_op_profile(ip, p, 2), 2);
  for (int i = 0; i < 2; ++i) {
    assert_int_equal(p[i].node_index, i);
    assert_string_equal(p[i].op_name, "ADD");
    assert_int_equal(p[i].version, 2);
    assert_int_equal(p[i].count, 3);
  }
  assert_int_equal(litegpu_interpreter_enable_op_profiling(ip, false),
                   kTfLiteOk);
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  assert_int_equal(litegpu_interpreter_op_profile(ip, p, 2), 2);
  assert_int_equal(p[0].count, 0);
  assert_int_equal(litegpu_interpreter_op_profile(NULL, p, 2), -1);
  TfLiteInterpreterDelete(ip);
  free_model(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_double_add_runs),
      cmocka_unit_test(test_resize_requires_allocate),
      cmocka_unit_test(test_arena_reuses_memory),
      cmocka_unit_test(test_unsupported_builtin_version),
      cmocka_unit_test(test_selected_ops_and_overrides),
      cmocka_unit_test(test_dynamic_output_and_temporary),
      cmocka_unit_test(test_failures_name_the_node),
      cmocka_unit_test(test_prepare_failure),
      cmocka_unit_test(test_context_callbacks),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_op_profiling),
      cmocka_unit_test(test_io_tensor_indices),
      cmocka_unit_test(test_op_resolver_callbacks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
