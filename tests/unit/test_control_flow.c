/* The whole graph through the public C API: IF, WHILE, CALL_ONCE, resource
 * variables, signatures, cancellation, variable-tensor reset and strict
 * resizes, on models written as specs (runtime/writer/model_spec.h).
 * Expected values are derived by hand in each test's comment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/writer/model_spec.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tensorflow/lite/c/common.h"
#include "tests/support/spec_model.h"

/* ---- Helpers ------------------------------------------------------------- */

typedef struct fixture {
  void* data;
  TfLiteModel* model;
  TfLiteInterpreter* interpreter;
  lg_test_capture errors;
} fixture;

/* Signatures the spec language cannot state: added to the writer. */
typedef struct signature_def {
  const char* key;
  int32_t subgraph;
  lg_writer_tensor_map inputs[2];
  int num_inputs;
  lg_writer_tensor_map outputs[2];
  int num_outputs;
} signature_def;

/* The fixture's model from `spec` with `num_sigs` signatures added. */
static void load_model(fixture* f, const char* spec, const signature_def* sigs,
                       int num_sigs) {
  memset(f, 0, sizeof(*f));
  lg_model_writer* w = lg_model_spec_read_text(spec, "spec", NULL, NULL);
  assert_non_null(w);
  for (int i = 0; i < num_sigs; ++i) {
    assert_true(lg_model_writer_add_signature(
                    w, sigs[i].key, sigs[i].subgraph, sigs[i].inputs,
                    sigs[i].num_inputs, sigs[i].outputs,
                    sigs[i].num_outputs) >= 0);
  }
  f->model = lg_test_model_from_writer(w, &f->data);
  assert_non_null(f->model);
}

static void build(fixture* f, const char* spec, const signature_def* sigs,
                  int num_sigs, bool cancellable) {
  load_model(f, spec, sigs, num_sigs);
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  TfLiteInterpreterOptionsSetErrorReporter(o, lg_test_capture_report,
                                           &f->errors);
  TfLiteInterpreterOptionsEnableCancellation(o, cancellable);
  f->interpreter = TfLiteInterpreterCreate(f->model, o);
  TfLiteInterpreterOptionsDelete(o);
  assert_non_null(f->interpreter);
}

static void release(fixture* f) {
  TfLiteInterpreterDelete(f->interpreter);
  TfLiteModelDelete(f->model);
  free(f->data);
}

static void set_input(fixture* f, int index, const void* data, size_t bytes) {
  TfLiteTensor* t = TfLiteInterpreterGetInputTensor(f->interpreter, index);
  assert_non_null(t);
  assert_int_equal(TfLiteTensorCopyFromBuffer(t, data, bytes), kTfLiteOk);
}

static const float* output_floats(fixture* f, int index) {
  const TfLiteTensor* t =
      TfLiteInterpreterGetOutputTensor(f->interpreter, index);
  assert_non_null(t);
  assert_int_equal(TfLiteTensorType(t), kTfLiteFloat32);
  return (const float*)TfLiteTensorData(t);
}

static void assert_floats(const float* got, const float* want, int n) {
  for (int i = 0; i < n; ++i) assert_true(got[i] == want[i]);
}

/* ---- IF ------------------------------------------------------------------ */

/* then: y = x + x; else: y = x * x. */
static const char kIfSpec[] =
    "tensor c BOOL 1\n"
    "tensor x FLOAT32 3\n"
    "tensor y FLOAT32 3\n"
    "op IF 1 in=c,x out=y then_subgraph_index=1 else_subgraph_index=2\n"
    "inputs c,x\n"
    "outputs y\n"
    "subgraph then\n"
    "tensor a FLOAT32 3\n"
    "tensor b FLOAT32 3\n"
    "op ADD 1 in=a,a out=b\n"
    "inputs a\n"
    "outputs b\n"
    "subgraph else\n"
    "tensor a FLOAT32 3\n"
    "tensor b FLOAT32 3\n"
    "op MUL 1 in=a,a out=b\n"
    "inputs a\n"
    "outputs b\n";

static void test_if_picks_branch(void** state) {
  (void)state;
  fixture f;
  build(&f, kIfSpec, NULL, 0, false);
  assert_int_equal(TfLiteInterpreterAllocateTensors(f.interpreter), kTfLiteOk);
  const float x[3] = {1.5f, -2.0f, 3.0f};
  const bool yes = true, no = false;
  set_input(&f, 1, x, sizeof x);
  set_input(&f, 0, &yes, 1);
  assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteOk);
  assert_floats(output_floats(&f, 0), (const float[]){3.0f, -4.0f, 6.0f}, 3);
  set_input(&f, 0, &no, 1);
  assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteOk);
  assert_floats(output_floats(&f, 0), (const float[]){2.25f, 4.0f, 9.0f}, 3);
  /* A resized input reaches the branches: [2] instead of [3]. */
  assert_int_equal(
      TfLiteInterpreterResizeInputTensor(f.interpreter, 1, (const int[]){2}, 1),
      kTfLiteOk);
  assert_int_equal(TfLiteInterpreterAllocateTensors(f.interpreter), kTfLiteOk);
  set_input(&f, 1, x, 2 * sizeof(float));
  set_input(&f, 0, &yes, 1);
  assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteOk);
  const TfLiteTensor* y = TfLiteInterpreterGetOutputTensor(f.interpreter, 0);
  assert_int_equal(TfLiteTensorDim(y, 0), 2);
  assert_floats(output_floats(&f, 0), (const float[]){3.0f, -4.0f}, 2);
  release(&f);
}

/* Prepares the model and expects failure with `message` reported. */
static void expect_prepare_error(const char* spec, const char* message) {
  fixture f;
  build(&f, spec, NULL, 0, false);
  assert_int_not_equal(TfLiteInterpreterAllocateTensors(f.interpreter),
                       kTfLiteOk);
  if (strstr(f.errors.text, message) == NULL) {
    print_error("expected '%s' in:\n%s", message, f.errors.text);
    fail();
  }
  release(&f);
}

static void test_if_errors(void** state) {
  (void)state;
  char spec[sizeof kIfSpec + 64];
  /* A branch index past the model's subgraphs. */
  snprintf(spec, sizeof spec, "%s", kIfSpec);
  memcpy(strstr(spec, "else_subgraph_index=2"), "else_subgraph_index=7", 21);
  expect_prepare_error(spec,
                       "IF: else subgraph index 7 is out of range (the model "
                       "has 3 subgraphs)");
  /* The node's own subgraph as a branch. */
  snprintf(spec, sizeof spec, "%s", kIfSpec);
  memcpy(strstr(spec, "then_subgraph_index=1"), "then_subgraph_index=0", 21);
  expect_prepare_error(spec, "then subgraph 0 is the subgraph the node is in");
  /* A condition that is not BOOL. */
  snprintf(spec, sizeof spec, "%s", kIfSpec);
  memcpy(strstr(spec, "tensor c BOOL 1"), "tensor c INT8 1", 15);
  expect_prepare_error(spec, "IF: the condition must be one BOOL element");
}

/* Subgraph 1 (IF's then branch) holds an IF whose branch is subgraph 2,
 * whose IF calls subgraph 1 again: a cycle found while preparing. */
static const char kCycleSpec[] =
    "tensor c BOOL 1\n"
    "tensor x FLOAT32 1\n"
    "tensor y FLOAT32 1\n"
    "op IF 1 in=c,x out=y then_subgraph_index=1 else_subgraph_index=1\n"
    "inputs c,x\n"
    "outputs y\n"
    "subgraph one\n"
    "tensor c BOOL 1\n"
    "tensor a FLOAT32 1\n"
    "tensor b FLOAT32 1\n"
    "op IF 1 in=c,c,a out=b then_subgraph_index=2 else_subgraph_index=2\n"
    "inputs c,a\n"
    "outputs b\n"
    "subgraph two\n"
    "tensor c BOOL 1\n"
    "tensor a FLOAT32 1\n"
    "tensor b FLOAT32 1\n"
    "op IF 1 in=c,c,a out=b then_subgraph_index=1 else_subgraph_index=1\n"
    "inputs c,a\n"
    "outputs b\n";

static void test_recursive_control_flow_fails(void** state) {
  (void)state;
  /* Subgraph 0 passes one argument where the branches take two: arity. */
  expect_prepare_error(kCycleSpec,
                       "then subgraph 1 has 2 inputs and 1 outputs; the node "
                       "needs 1 and 1");
  /* With the condition passed on as the branches' first input, the
   * arities match and the cycle 1 -> 2 -> 1 is found. */
  char spec[sizeof kCycleSpec + 32];
  snprintf(spec, sizeof spec, "%s%s",
           "tensor c BOOL 1\n"
           "tensor x FLOAT32 1\n"
           "tensor y FLOAT32 1\n"
           "op IF 1 in=c,c,x out=y then_subgraph_index=1 "
           "else_subgraph_index=1\n"
           "inputs c,x\n"
           "outputs y\n",
           strstr(kCycleSpec, "subgraph one"));
  expect_prepare_error(spec, "is prepared again while it is being prepared");
}

/* ---- WHILE --------------------------------------------------------------- */

/* State (i INT32, x FLOAT32 [2]); cond: i < 3; body: i + 1, x * 2. From
 * i = 0, x = (1, -2): three iterations give i = 3, x = (8, -16). */
static const char kWhileSpec[] = LG_TEST_WHILE_SPEC;

static void test_while_loops(void** state) {
  (void)state;
  fixture f;
  build(&f, kWhileSpec, NULL, 0, false);
  assert_int_equal(TfLiteInterpreterAllocateTensors(f.interpreter), kTfLiteOk);
  const int32_t i0 = 0, i5 = 5;
  const float x[2] = {1.0f, -2.0f};
  for (int run = 0; run < 2; ++run) { /* the callees are reused */
    set_input(&f, 0, &i0, sizeof i0);
    set_input(&f, 1, x, sizeof x);
    assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteOk);
    const TfLiteTensor* i_out =
        TfLiteInterpreterGetOutputTensor(f.interpreter, 0);
    assert_int_equal(*(const int32_t*)TfLiteTensorData(i_out), 3);
    assert_floats(output_floats(&f, 1), (const float[]){8.0f, -16.0f}, 2);
  }
  /* The condition is false at once: the state passes through. */
  set_input(&f, 0, &i5, sizeof i5);
  assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteOk);
  assert_floats(output_floats(&f, 1), x, 2);
  release(&f);
}

static void test_while_errors(void** state) {
  (void)state;
  char spec[sizeof kWhileSpec];
  snprintf(spec, sizeof spec, "%s", kWhileSpec);
  memcpy(strstr(spec, "body_subgraph_index=2"), "body_subgraph_index=0", 21);
  expect_prepare_error(spec, "body subgraph 0 is the subgraph the node is in");
  snprintf(spec, sizeof spec, "%s", kWhileSpec);
  memcpy(strstr(spec, "cond_subgraph_index=1"), "cond_subgraph_index=2", 21);
  expect_prepare_error(spec,
                       "cond subgraph 2 has 2 inputs and 2 outputs; the node "
                       "needs 2 and 1");
  /* The body gives an INT32 where the state is FLOAT32. */
  snprintf(spec, sizeof spec, "%s", kWhileSpec);
  memcpy(strstr(spec, "outputs i2,x2"), "outputs i2,i2", 13);
  expect_prepare_error(spec,
                       "body subgraph 2 gives INT32 for loop variable 1, "
                       "which is FLOAT32");
}

/* ---- Cancellation -------------------------------------------------------- */

static TfLiteInterpreter* g_cancel_target;

/* A custom op that cancels the Invoke it runs in. */
static TfLiteStatus cancel_invoke(TfLiteContext* context, TfLiteNode* node) {
  (void)context;
  (void)node;
  return TfLiteInterpreterCancel(g_cancel_target);
}

static TfLiteStatus cancel_prepare(TfLiteContext* context, TfLiteNode* node) {
  (void)context;
  (void)node;
  return kTfLiteOk;
}

static void test_cancellation(void** state) {
  (void)state;
  /* CANCELLER runs first, then the WHILE loop, which must not run. */
  char spec[sizeof kWhileSpec + 128];
  snprintf(spec, sizeof spec, "%s",
           "tensor i INT32 -\n"
           "tensor x FLOAT32 2\n"
           "tensor i_out INT32 -\n"
           "tensor x_out FLOAT32 2\n"
           "custom CANCELLER 1 in= out=\n"
           "op WHILE 1 in=i,x out=i_out,x_out cond_subgraph_index=1 "
           "body_subgraph_index=2\n"
           "inputs i,x\n"
           "outputs i_out,x_out\n");
  strncat(spec, strstr(kWhileSpec, "subgraph cond"),
          sizeof spec - strlen(spec) - 1);
  static const TfLiteRegistration kCanceller = {.prepare = cancel_prepare,
                                                .invoke = cancel_invoke};
  for (int enabled = 0; enabled < 2; ++enabled) {
    fixture f;
    load_model(&f, spec, NULL, 0);
    TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
    TfLiteInterpreterOptionsSetErrorReporter(o, lg_test_capture_report,
                                             &f.errors);
    TfLiteInterpreterOptionsAddCustomOp(o, "CANCELLER", &kCanceller, 1, 1);
    TfLiteInterpreterOptionsEnableCancellation(o, enabled);
    f.interpreter = TfLiteInterpreterCreate(f.model, o);
    TfLiteInterpreterOptionsDelete(o);
    assert_non_null(f.interpreter);
    g_cancel_target = f.interpreter;
    assert_int_equal(TfLiteInterpreterAllocateTensors(f.interpreter),
                     kTfLiteOk);
    if (!enabled) {
      /* The op's Cancel fails, so its node fails. */
      assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteError);
      assert_non_null(strstr(f.errors.text, "cancellation is not enabled"));
    } else {
      assert_int_equal(TfLiteInterpreterInvoke(f.interpreter),
                       kTfLiteCancelled);
      assert_non_null(
          strstr(f.errors.text, "Invoke was cancelled before node number 1"));
    }
    release(&f);
  }
}

/* ---- Resource variables -------------------------------------------------- */

/* CALL_ONCE runs subgraph 1, which assigns (10, 20) to the variable; each
 * Invoke then reads it, adds the input, assigns the sum back and outputs
 * it. Inputs (1, 2) then (3, 4) give (11, 22) then (14, 26). */
static const char kCounterSpec[] =
    "tensor x FLOAT32 2\n"
    "tensor h RESOURCE -\n"
    "tensor v FLOAT32 2\n"
    "tensor y FLOAT32 2\n"
    "op CALL_ONCE 1 in= out= init_subgraph_index=1\n"
    "op VAR_HANDLE 1 in= out=h\n"
    "op READ_VARIABLE 1 in=h out=v\n"
    "op ADD 1 in=v,x out=y\n"
    "op ASSIGN_VARIABLE 1 in=h,y out=\n"
    "inputs x\n"
    "outputs y\n"
    "subgraph init\n"
    "tensor h RESOURCE -\n"
    "tensor start FLOAT32 2 values=10,20\n"
    "op VAR_HANDLE 1 in= out=h\n"
    "op ASSIGN_VARIABLE 1 in=h,start out=\n"
    "inputs\n"
    "outputs\n";

static void test_resource_variables(void** state) {
  (void)state;
  fixture f;
  build(&f, kCounterSpec, NULL, 0, false);
  assert_int_equal(TfLiteInterpreterAllocateTensors(f.interpreter), kTfLiteOk);
  set_input(&f, 0, (const float[]){1.0f, 2.0f}, 8);
  assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteOk);
  assert_floats(output_floats(&f, 0), (const float[]){11.0f, 22.0f}, 2);
  set_input(&f, 0, (const float[]){3.0f, 4.0f}, 8);
  assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteOk);
  assert_floats(output_floats(&f, 0), (const float[]){14.0f, 26.0f}, 2);
  release(&f);
}

static void test_read_before_assign_fails(void** state) {
  (void)state;
  fixture f;
  /* Without CALL_ONCE nothing assigns the variable before it is read. */
  char spec[sizeof kCounterSpec];
  snprintf(spec, sizeof spec, "%s", kCounterSpec);
  char* line = strstr(spec, "op CALL_ONCE");
  memset(line, ' ', strcspn(line, "\n"));
  memcpy(line, "#", 1);
  build(&f, spec, NULL, 0, false);
  assert_int_equal(TfLiteInterpreterAllocateTensors(f.interpreter), kTfLiteOk);
  set_input(&f, 0, (const float[]){1.0f, 2.0f}, 8);
  assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteError);
  assert_non_null(strstr(f.errors.text,
                         "READ_VARIABLE: resource variable 0 is read before "
                         "any ASSIGN_VARIABLE gave it a value"));
  release(&f);
}

/* ---- Variable tensors ---------------------------------------------------- */

/* y = x + v where v is a variable tensor starting at (5, 6). */
static void test_reset_variable_tensors(void** state) {
  (void)state;
  fixture f;
  build(&f,
        "tensor x FLOAT32 2\n"
        "tensor v FLOAT32 2 variable values=5,6\n"
        "tensor y FLOAT32 2\n"
        "op ADD 1 in=x,v out=y\n"
        "inputs x\n"
        "outputs y\n",
        NULL, 0, false);
  assert_int_equal(TfLiteInterpreterResetVariableTensors(f.interpreter),
                   kTfLiteError); /* nothing allocated yet */
  assert_non_null(
      strstr(f.errors.text, "call TfLiteInterpreterAllocateTensors"));
  assert_int_equal(TfLiteInterpreterAllocateTensors(f.interpreter), kTfLiteOk);
  set_input(&f, 0, (const float[]){1.0f, 1.0f}, 8);
  assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteOk);
  assert_floats(output_floats(&f, 0), (const float[]){6.0f, 7.0f}, 2);
  assert_int_equal(TfLiteInterpreterResetVariableTensors(f.interpreter),
                   kTfLiteOk);
  assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteOk);
  assert_floats(output_floats(&f, 0), (const float[]){1.0f, 1.0f}, 2);
  release(&f);
}

/* ---- Signatures ---------------------------------------------------------- */

/* "double": subgraph 0, y = x + x with x [?, 2] (signature -1);
 * "square": subgraph 1, q = p * p. */
static const char kSignatureSpec[] =
    "tensor x FLOAT32 1,2 sig=-1,2\n"
    "tensor y FLOAT32 1,2 sig=-1,2\n"
    "op ADD 1 in=x,x out=y\n"
    "inputs x\n"
    "outputs y\n"
    "subgraph square\n"
    "tensor p FLOAT32 3\n"
    "tensor q FLOAT32 3\n"
    "op MUL 1 in=p,p out=q\n"
    "inputs p\n"
    "outputs q\n";

static const signature_def kSignatures[] = {
    {"double", 0, {{"in", 0}}, 1, {{"out", 1}}, 1},
    {"square", 1, {{"value", 0}}, 1, {{"squared", 1}}, 1},
};

static void test_signature_runner(void** state) {
  (void)state;
  fixture f;
  build(&f, kSignatureSpec, kSignatures, 2, false);
  TfLiteInterpreter* ip = f.interpreter;
  assert_int_equal(TfLiteInterpreterGetSignatureCount(ip), 2);
  assert_string_equal(TfLiteInterpreterGetSignatureKey(ip, 0), "double");
  assert_string_equal(TfLiteInterpreterGetSignatureKey(ip, 1), "square");
  assert_null(TfLiteInterpreterGetSignatureKey(ip, 2));
  assert_null(TfLiteInterpreterGetSignatureRunner(ip, "cube"));
  assert_non_null(strstr(f.errors.text, "the model has no signature 'cube'"));

  TfLiteSignatureRunner* square =
      TfLiteInterpreterGetSignatureRunner(ip, "square");
  assert_non_null(square);
  assert_int_equal(TfLiteSignatureRunnerGetInputCount(square), 1);
  assert_string_equal(TfLiteSignatureRunnerGetInputName(square, 0), "value");
  assert_int_equal(TfLiteSignatureRunnerGetOutputCount(square), 1);
  assert_string_equal(TfLiteSignatureRunnerGetOutputName(square, 0), "squared");
  assert_null(TfLiteSignatureRunnerGetInputTensor(square, "nope"));
  /* Invoke before AllocateTensors fails. */
  assert_int_equal(TfLiteSignatureRunnerInvoke(square), kTfLiteError);
  assert_int_equal(TfLiteSignatureRunnerAllocateTensors(square), kTfLiteOk);
  TfLiteTensor* p = TfLiteSignatureRunnerGetInputTensor(square, "value");
  assert_int_equal(
      TfLiteTensorCopyFromBuffer(p, (const float[]){1.0f, -3.0f, 0.5f}, 12),
      kTfLiteOk);
  assert_int_equal(TfLiteSignatureRunnerInvoke(square), kTfLiteOk);
  const TfLiteTensor* q =
      TfLiteSignatureRunnerGetOutputTensor(square, "squared");
  assert_floats(TfLiteTensorData(q), (const float[]){1.0f, 9.0f, 0.25f}, 3);
  /* A fixed dimension cannot be resized through a signature. */
  assert_int_equal(TfLiteSignatureRunnerResizeInputTensor(square, "value",
                                                          (const int[]){4}, 1),
                   kTfLiteError);
  assert_non_null(strstr(f.errors.text,
                         "ResizeInputTensorStrict only allows mutating "
                         "unknown dimensions identified by -1."));

  /* An unknown dimension can: x [3, 2]. */
  TfLiteSignatureRunner* twice =
      TfLiteInterpreterGetSignatureRunner(ip, "double");
  assert_int_equal(TfLiteSignatureRunnerResizeInputTensor(
                       twice, "in", (const int[]){3, 2}, 2),
                   kTfLiteOk);
  assert_int_equal(TfLiteSignatureRunnerAllocateTensors(twice), kTfLiteOk);
  const float x[6] = {1, 2, 3, 4, 5, 6};
  assert_int_equal(
      TfLiteTensorCopyFromBuffer(
          TfLiteSignatureRunnerGetInputTensor(twice, "in"), x, sizeof x),
      kTfLiteOk);
  assert_int_equal(TfLiteSignatureRunnerInvoke(twice), kTfLiteOk);
  const TfLiteTensor* y = TfLiteSignatureRunnerGetOutputTensor(twice, "out");
  assert_int_equal(TfLiteTensorDim(y, 0), 3);
  assert_floats(TfLiteTensorData(y), (const float[]){2, 4, 6, 8, 10, 12}, 6);
  /* Subgraph 0's signature shares the interpreter's own tensors. */
  assert_ptr_equal(y, TfLiteInterpreterGetOutputTensor(ip, 0));
  TfLiteSignatureRunnerDelete(twice);
  TfLiteSignatureRunnerDelete(square);
  TfLiteSignatureRunnerDelete(NULL);
  release(&f);
}

static TfLiteSignatureRunner* g_cancel_runner;

/* A custom op that cancels through the signature runner it runs in. */
static TfLiteStatus runner_cancel_invoke(TfLiteContext* context,
                                         TfLiteNode* node) {
  (void)context;
  (void)node;
  return TfLiteSignatureRunnerCancel(g_cancel_runner);
}

/* TfLiteSignatureRunnerCancel stops the runner's Invoke before its next
 * node (MUL), as TfLiteInterpreterCancel does; without cancellation
 * enabled it fails. */
static void test_signature_runner_cancel(void** state) {
  (void)state;
  static const char kSpec[] =
      "tensor x FLOAT32 2\n"
      "tensor y FLOAT32 2\n"
      "op ADD 1 in=x,x out=y\n"
      "inputs x\n"
      "outputs y\n"
      "subgraph square\n"
      "tensor p FLOAT32 2\n"
      "tensor q FLOAT32 2\n"
      "custom CANCELLER 1 in= out=\n"
      "op MUL 1 in=p,p out=q\n"
      "inputs p\n"
      "outputs q\n";
  static const signature_def kSquare = {"square",         1, {{"value", 0}}, 1,
                                        {{"squared", 1}}, 1};
  static const TfLiteRegistration kCanceller = {.prepare = cancel_prepare,
                                                .invoke = runner_cancel_invoke};
  assert_int_equal(TfLiteSignatureRunnerCancel(NULL), kTfLiteError);
  for (int enabled = 0; enabled < 2; ++enabled) {
    fixture f;
    load_model(&f, kSpec, &kSquare, 1);
    TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
    TfLiteInterpreterOptionsSetErrorReporter(o, lg_test_capture_report,
                                             &f.errors);
    TfLiteInterpreterOptionsAddCustomOp(o, "CANCELLER", &kCanceller, 1, 1);
    TfLiteInterpreterOptionsEnableCancellation(o, enabled);
    f.interpreter = TfLiteInterpreterCreate(f.model, o);
    TfLiteInterpreterOptionsDelete(o);
    assert_non_null(f.interpreter);
    TfLiteSignatureRunner* runner =
        TfLiteInterpreterGetSignatureRunner(f.interpreter, "square");
    assert_non_null(runner);
    g_cancel_runner = runner;
    assert_int_equal(TfLiteSignatureRunnerAllocateTensors(runner), kTfLiteOk);
    if (!enabled) {
      assert_int_equal(TfLiteSignatureRunnerInvoke(runner), kTfLiteError);
      assert_non_null(strstr(f.errors.text, "cancellation is not enabled"));
    } else {
      assert_int_equal(TfLiteSignatureRunnerInvoke(runner), kTfLiteCancelled);
      assert_non_null(strstr(f.errors.text, "Invoke was cancelled"));
      /* The main graph's next Invoke starts afresh. */
      assert_int_equal(TfLiteInterpreterAllocateTensors(f.interpreter),
                       kTfLiteOk);
      set_input(&f, 0, (const float[]){1.0f, 2.0f}, 8);
      assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteOk);
      assert_floats(output_floats(&f, 0), (const float[]){2.0f, 4.0f}, 2);
    }
    TfLiteSignatureRunnerDelete(runner);
    g_cancel_runner = NULL;
    release(&f);
  }
}

/* ---- Hash tables and STRING constants --------------------------------------
 */

/* HASHTABLE 7 (STRING -> INT64) imports keys ("a", "a") with values (5, 6):
 * the first of the duplicate keys wins, so the size is 1. KEYS is the hex
 * of the keys' STRING buffer: count 2, offsets 16, 17, 18, "aa". */
#define LG_TABLE_SPEC(KEYS)                               \
  "tensor h RESOURCE 1\n"                                 \
  "tensor keys STRING 2 hex=" KEYS                        \
  "\n"                                                    \
  "tensor values INT64 2 values=5,6\n"                    \
  "tensor n INT64 1\n"                                    \
  "op HASHTABLE 1 in= out=h table_id=7 key_dtype=STRING " \
  "value_dtype=INT64\n"                                   \
  "op HASHTABLE_IMPORT 1 in=h,keys,values out=\n"         \
  "op HASHTABLE_SIZE 1 in=h out=n\n"                      \
  "inputs\n"                                              \
  "outputs n\n"

static void test_hashtable_import_and_size(void** state) {
  (void)state;
  fixture f;
  build(&f,
        LG_TABLE_SPEC("0200000010000000110000001200000061"
                      "61"),
        NULL, 0, false);
  assert_int_equal(TfLiteInterpreterAllocateTensors(f.interpreter), kTfLiteOk);
  for (int run = 0; run < 2; ++run) { /* the second import is ignored */
    assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteOk);
    const TfLiteTensor* n = TfLiteInterpreterGetOutputTensor(f.interpreter, 0);
    assert_int_equal(*(const int64_t*)TfLiteTensorData(n), 1);
  }
  release(&f);
}

static void test_malformed_string_constant_fails(void** state) {
  (void)state;
  fixture f;
  /* The count says 5 strings: the offsets would not fit 18 bytes. */
  build(&f,
        LG_TABLE_SPEC("0500000010000000110000001200000061"
                      "61"),
        NULL, 0, false);
  assert_int_equal(TfLiteInterpreterAllocateTensors(f.interpreter), kTfLiteOk);
  assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteError);
  assert_non_null(strstr(f.errors.text,
                         "HASHTABLE_IMPORT: keys is not a STRING buffer of 2 "
                         "strings: its count does not fit its size"));
  release(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_if_picks_branch),
      cmocka_unit_test(test_if_errors),
      cmocka_unit_test(test_recursive_control_flow_fails),
      cmocka_unit_test(test_while_loops),
      cmocka_unit_test(test_while_errors),
      cmocka_unit_test(test_cancellation),
      cmocka_unit_test(test_resource_variables),
      cmocka_unit_test(test_read_before_assign_fails),
      cmocka_unit_test(test_reset_variable_tensors),
      cmocka_unit_test(test_signature_runner),
      cmocka_unit_test(test_hashtable_import_and_size),
      cmocka_unit_test(test_malformed_string_constant_fails),
      cmocka_unit_test(test_signature_runner_cancel),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
