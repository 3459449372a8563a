/* The TfLiteOperator object, the registration dispatchers and the opaque
 * accessors on a hand-built TfLiteContext: no model and no interpreter, so
 * every edge (NULL handles, bad indices, a tensor array that moves) is under
 * the test's control. The end-to-end cases are in test_custom_ops.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/interpreter.h"
#include "runtime/operator.h"
#include "tensorflow/lite/c/c_api_opaque.h"
#include "tensorflow/lite/c/common.h"
#include "tensorflow/lite/core/c/operator.h"

typedef struct capture {
  char text[16384];
  size_t len;
} capture;

static capture* g_fake_errors;

/* The fake context's ReportError: appends one line to *g_fake_errors. */
static void report_to_capture(TfLiteContext* context, const char* format, ...) {
  capture* c = g_fake_errors;
  if (c == NULL || c->len + 1 >= sizeof(c->text)) return;
  va_list args;
  va_start(args, format);
  int n = vsnprintf(c->text + c->len, sizeof(c->text) - c->len, format, args);
  va_end(args);
  if (n < 0) return;
  c->len += (size_t)n;
  if (c->len >= sizeof(c->text) - 1) c->len = sizeof(c->text) - 2;
  c->text[c->len++] = '\n';
  c->text[c->len] = '\0';
}

static struct TfLiteAsyncKernel* async_kernel(TfLiteOpaqueContext* context,
                                              TfLiteOpaqueNode* node) {
  return NULL;
}

/* Counts its calls in the int that user_data points to. */
static void op_free_with_data(void* user_data, TfLiteOpaqueContext* context,
                              void* data) {
  if (user_data != NULL) ++*(int*)user_data;
}

static TfLiteStatus op_invoke_with_data(void* user_data,
                                        TfLiteOpaqueContext* context,
                                        TfLiteOpaqueNode* node) {
  return kTfLiteOk;
}

static int g_plain_calls;
static void* plain_init(TfLiteContext* c, const char* b, size_t n) {
  g_plain_calls++;
  return &g_plain_calls;
}
static TfLiteStatus plain_invoke(TfLiteContext* c, TfLiteNode* n) {
  g_plain_calls += 10;
  return kTfLiteDelegateError; /* distinctive */
}

static void* op_init(TfLiteOpaqueContext* c, const char* b, size_t n) {
  return (void*)b;
}
static void* op_init_with_data(void* user_data, TfLiteOpaqueContext* c,
                               const char* b, size_t n) {
  return user_data;
}
static TfLiteStatus op_invoke(TfLiteOpaqueContext* c, TfLiteOpaqueNode* n) {
  return kTfLiteApplicationError;
}
static TfLiteStatus op_prepare_node_check(void* user_data,
                                          TfLiteOpaqueContext* c,
                                          TfLiteOpaqueNode* n) {
  /* The opaque handles are the TfLite structures. */
  TfLiteNode* node = user_data;
  return (void*)n == (void*)node ? kTfLiteOk : kTfLiteError;
}

/* ---- The operator object and the dispatchers, without an interpreter ---- */

static void test_operator_create_and_getters(void** state) {
  (void)state;
  assert_null(TfLiteOperatorCreate(kTfLiteBuiltinCustom, NULL, 1));
  assert_null(TfLiteOperatorCreate(kTfLiteBuiltinCustom, "", 1));
  assert_null(TfLiteOperatorCreate(kTfLiteBuiltinCustom, "Atan", 0));
  assert_null(TfLiteOperatorCreate(kTfLiteBuiltinCustom, "Atan", -3));
  assert_null(TfLiteOperatorCreate((TfLiteBuiltinOperator)-1, NULL, 1));
  assert_null(TfLiteOperatorCreate((TfLiteBuiltinOperator)100000, NULL, 1));

  char name[] = "MyOp";
  TfLiteOperator* op = TfLiteOperatorCreate(kTfLiteBuiltinCustom, name, 3);
  assert_non_null(op);
  name[0] = 'X'; /* the operator keeps its own copy */
  assert_string_equal(TfLiteOperatorGetCustomName(op), "MyOp");
  assert_int_equal(TfLiteOperatorGetBuiltInCode(op), kTfLiteBuiltinCustom);
  assert_int_equal(TfLiteOperatorGetVersion(op), 3);
  assert_null(TfLiteOperatorGetUserData(op));
  TfLiteOperatorSetInplaceOperator(op, 5);
  TfLiteRegistration reg = lg_operator_registration(op);
  assert_int_equal(reg.builtin_code, kTfLiteBuiltinCustom);
  assert_string_equal(reg.custom_name, "MyOp");
  assert_int_equal(reg.version, 3);
  assert_ptr_equal(reg.registration_external, op);
  assert_null(reg.init);
  assert_null(reg.invoke);
  assert_true(reg.inplace_operator == 5);
  TfLiteOperatorDelete(op);

  TfLiteOperator* add = TfLiteOperatorCreate(kTfLiteBuiltinAdd, NULL, 2);
  assert_non_null(add);
  assert_null(TfLiteOperatorGetCustomName(add));
  assert_int_equal(TfLiteOperatorGetBuiltInCode(add), kTfLiteBuiltinAdd);
  TfLiteOperatorDelete(add);

  /* NULL operators: harmless. */
  assert_int_equal(TfLiteOperatorGetVersion(NULL), -1);
  assert_null(TfLiteOperatorGetCustomName(NULL));
  assert_null(TfLiteOperatorGetUserData(NULL));
  TfLiteOperatorSetInit(NULL, NULL);
  TfLiteOperatorSetInvoke(NULL, op_invoke);
  TfLiteOperatorSetAsyncKernel(NULL, async_kernel);
  TfLiteOperatorSetInplaceOperator(NULL, 1);
  assert_int_equal(TfLiteOperatorSetInitWithData(NULL, op_init_with_data),
                   kTfLiteError);
  assert_int_equal(TfLiteOperatorSetFreeWithData(NULL, op_free_with_data),
                   kTfLiteError);
  assert_int_equal(
      TfLiteOperatorSetPrepareWithData(NULL, op_prepare_node_check),
      kTfLiteError);
  assert_int_equal(TfLiteOperatorSetInvokeWithData(NULL, op_invoke_with_data),
                   kTfLiteError);
  assert_false(lg_operator_has_async_kernel_only(NULL));
  TfLiteOperatorDelete(NULL);
}

static void test_dispatchers(void** state) {
  (void)state;
  TfLiteContext context;
  memset(&context, 0, sizeof(context));
  TfLiteNode node;
  memset(&node, 0, sizeof(node));

  /* A plain registration: NULL callbacks are no-ops. */
  TfLiteRegistration plain;
  memset(&plain, 0, sizeof(plain));
  assert_null(lg_registration_init(&context, &plain, "x", 1));
  assert_int_equal(lg_registration_prepare(&context, &plain, &node), kTfLiteOk);
  assert_int_equal(lg_registration_invoke(&context, &plain, &node), kTfLiteOk);
  lg_registration_free(&context, &plain, NULL);
  g_plain_calls = 0;
  plain.init = plain_init;
  plain.invoke = plain_invoke;
  assert_ptr_equal(lg_registration_init(&context, &plain, NULL, 0),
                   &g_plain_calls);
  assert_int_equal(lg_registration_invoke(&context, &plain, &node),
                   kTfLiteDelegateError);
  assert_int_equal(g_plain_calls, 11);

  /* An operator: its callbacks win; WithData beats plain. */
  int user = 0;
  TfLiteOperator* op =
      TfLiteOperatorCreateWithData(kTfLiteBuiltinCustom, "Op", 1, &user);
  TfLiteRegistration reg = lg_operator_registration(op);
  const char* buffer = "options";
  assert_null(lg_registration_init(&context, &reg, buffer, 7));
  TfLiteOperatorSetInit(op, op_init);
  assert_ptr_equal(lg_registration_init(&context, &reg, buffer, 7), buffer);
  TfLiteOperatorSetInitWithData(op, op_init_with_data);
  assert_ptr_equal(lg_registration_init(&context, &reg, buffer, 7), &user);
  TfLiteOperatorSetInvoke(op, op_invoke);
  assert_int_equal(lg_registration_invoke(&context, &reg, &node),
                   kTfLiteApplicationError);
  assert_false(lg_operator_has_async_kernel_only(op));
  lg_registration_free(&context, &reg, NULL); /* no Free: nothing happens */
  assert_int_equal(user, 0);
  TfLiteOperatorSetFreeWithData(op, op_free_with_data);
  lg_registration_free(&context, &reg, NULL);
  assert_int_equal(user, 1);
  TfLiteOperatorDelete(op);

  op = TfLiteOperatorCreateWithData(kTfLiteBuiltinCustom, "Op", 1, &node);
  reg = lg_operator_registration(op);
  TfLiteOperatorSetPrepareWithData(op, op_prepare_node_check);
  assert_int_equal(lg_registration_prepare(&context, &reg, &node), kTfLiteOk);
  /* An operator with no Invoke at all is an error, reported. */
  capture errors = {0};
  g_fake_errors = &errors;
  context.ReportError = report_to_capture;
  assert_int_equal(lg_registration_invoke(&context, &reg, &node), kTfLiteError);
  assert_non_null(strstr(errors.text, "'Op'"));
  TfLiteOperatorSetAsyncKernel(op, async_kernel);
  assert_true(lg_operator_has_async_kernel_only(op));
  TfLiteOperatorDelete(op);
  g_fake_errors = NULL;
}

/* ---- Opaque accessors on a hand-built context --------------------------- */

/* AddTensors that always moves the array, as a growing interpreter may. */
static TfLiteStatus fake_add_tensors(TfLiteContext* context, int n,
                                     int* first) {
  const size_t old = context->tensors_size;
  TfLiteTensor* grown = calloc(old + (size_t)n, sizeof(TfLiteTensor));
  if (grown == NULL) return kTfLiteError;
  memcpy(grown, context->tensors, old * sizeof(TfLiteTensor));
  memset(context->tensors, 0xAB, old * sizeof(TfLiteTensor));
  free(context->tensors);
  context->tensors = grown;
  context->tensors_size = old + (size_t)n;
  *first = (int)old;
  return kTfLiteOk;
}

static TfLiteStatus fake_resize(TfLiteContext* context, TfLiteTensor* tensor,
                                TfLiteIntArray* new_size) {
  TfLiteIntArrayFree(tensor->dims);
  tensor->dims = new_size;
  return kTfLiteOk;
}

static void test_opaque_on_fake_context(void** state) {
  (void)state;
  capture errors = {0};
  g_fake_errors = &errors;
  TfLiteContext context;
  memset(&context, 0, sizeof(context));
  context.ReportError = report_to_capture;
  context.AddTensors = fake_add_tensors;
  context.ResizeTensor = fake_resize;
  context.tensors_size = 2;
  context.tensors = calloc(2, sizeof(TfLiteTensor));
  float data0[4] = {1, 2, 3, 4};
  TfLiteTensor* t0 = &context.tensors[0];
  t0->type = kTfLiteFloat32;
  t0->dims = TfLiteIntArrayCreate(2);
  t0->dims->data[0] = 2;
  t0->dims->data[1] = 2;
  t0->data.f = data0;
  t0->bytes = sizeof(data0);
  TfLiteOpaqueContext* oc = (TfLiteOpaqueContext*)&context;

  /* Tensors: no dims, bad indices, copies. */
  const TfLiteOpaqueTensor* o1 = TfLiteOpaqueContextGetOpaqueTensor(oc, 1);
  assert_int_equal(TfLiteOpaqueTensorNumDims(o1), -1);
  assert_int_equal(TfLiteOpaqueTensorDim(o1, 0), -1);
  int32_t v = 0;
  assert_int_equal(TfLiteOpaqueTensorGetNumDimsSignature(o1, &v), kTfLiteOk);
  assert_int_equal(v, -1);
  assert_int_equal(TfLiteOpaqueTensorGetDimSignature(o1, 0, &v), kTfLiteError);
  float out[4];
  assert_int_equal(TfLiteOpaqueTensorCopyToBuffer(o1, out, 0), kTfLiteOk);
  assert_int_equal(TfLiteOpaqueTensorCopyToBuffer(o1, out, 4), kTfLiteError);
  TfLiteOpaqueTensor* o0 = TfLiteOpaqueContextGetOpaqueTensor(oc, 0);
  assert_int_equal(TfLiteOpaqueTensorNumDimensions(o0), 2);
  assert_int_equal(TfLiteOpaqueTensorDim(o0, 2), -1);
  assert_int_equal(TfLiteOpaqueTensorGetNumDimsSignature(o0, &v), kTfLiteOk);
  assert_int_equal(v, 2); /* no signature: the shape */
  assert_int_equal(TfLiteOpaqueTensorGetDimSignature(o0, 1, &v), kTfLiteOk);
  assert_int_equal(v, 2);
  assert_int_equal(TfLiteOpaqueTensorCopyToBuffer(o0, out, sizeof(out) - 4),
                   kTfLiteError);
  assert_int_equal(TfLiteOpaqueTensorCopyToBuffer(o0, NULL, sizeof(out)),
                   kTfLiteError);
  assert_int_equal(TfLiteOpaqueTensorCopyToBuffer(o0, out, sizeof(out)),
                   kTfLiteOk);
  assert_true(out[3] == 4.0f);
  out[3] = 9.0f;
  assert_int_equal(TfLiteOpaqueTensorCopyFromBuffer(o0, out, sizeof(out)),
                   kTfLiteOk);
  assert_true(data0[3] == 9.0f);
  assert_int_equal(TfLiteOpaqueTensorType(NULL), kTfLiteNoType);
  assert_int_equal(TfLiteOpaqueTensorNumDims(NULL), -1);
  assert_int_equal(TfLiteOpaqueTensorByteSize(NULL), 0);
  assert_null(TfLiteOpaqueTensorData(NULL));
  assert_null(TfLiteOpaqueTensorName(NULL));
  assert_int_equal(TfLiteOpaqueTensorCopyFromBuffer(NULL, out, 4),
                   kTfLiteError);
  assert_int_equal(TfLiteOpaqueTensorGetNumDimsSignature(NULL, &v),
                   kTfLiteError);
  assert_int_equal(TfLiteOpaqueTensorGetQuantization(NULL).type,
                   kTfLiteNoQuantization);

  /* Nodes: an omitted input and an index past the tensors. */
  TfLiteNode node;
  memset(&node, 0, sizeof(node));
  node.inputs = TfLiteIntArrayCreate(3);
  node.inputs->data[0] = 0;
  node.inputs->data[1] = kTfLiteOptionalTensor;
  node.inputs->data[2] = 9;
  node.outputs = TfLiteIntArrayCreate(1);
  node.outputs->data[0] = 1;
  const uint8_t init_bytes[3] = {7, 8, 9};
  node.custom_initial_data = init_bytes;
  node.custom_initial_data_size = 3;
  TfLiteOpaqueNode* on = (TfLiteOpaqueNode*)&node;
  assert_ptr_equal(TfLiteOpaqueNodeGetInput(oc, on, 0), o0);
  assert_null(TfLiteOpaqueNodeGetInput(oc, on, 1));
  assert_null(TfLiteOpaqueNodeGetInput(oc, on, 2));
  assert_null(TfLiteOpaqueNodeGetInput(oc, on, 3));
  assert_null(TfLiteOpaqueNodeGetInput(NULL, on, 0));
  assert_null(TfLiteOpaqueNodeGetInput(oc, NULL, 0));
  assert_ptr_equal(TfLiteOpaqueNodeGetOutput(oc, on, 0), o1);
  assert_int_equal(TfLiteOpaqueNodeNumInputs(on), 3);
  assert_int_equal(TfLiteOpaqueNodeNumOutputs(on), 1);
  assert_int_equal(TfLiteOpaqueNodeNumberOfOutputs(NULL), -1);
  /* Tensor indices by position: the omitted input reads as -1 too. */
  assert_int_equal(TfLiteOpaqueNodeGetInputTensorIndex(on, 0), 0);
  assert_int_equal(TfLiteOpaqueNodeGetInputTensorIndex(on, 1),
                   kTfLiteOptionalTensor);
  assert_int_equal(TfLiteOpaqueNodeGetInputTensorIndex(on, 2), 9);
  assert_int_equal(TfLiteOpaqueNodeGetInputTensorIndex(on, 3), -1);
  assert_int_equal(TfLiteOpaqueNodeGetInputTensorIndex(on, -1), -1);
  assert_int_equal(TfLiteOpaqueNodeGetOutputTensorIndex(on, 0), 1);
  assert_int_equal(TfLiteOpaqueNodeGetOutputTensorIndex(on, 1), -1);
  assert_int_equal(TfLiteOpaqueNodeGetInputTensorIndex(NULL, 0), -1);
  assert_int_equal(TfLiteOpaqueNodeGetOutputTensorIndex(NULL, 0), -1);
  const void* init = NULL;
  int size = 0;
  assert_int_equal(TfLiteOpaqueNodeGetCustomInitialData(on, &init, &size),
                   kTfLiteOk);
  assert_ptr_equal(init, init_bytes);
  assert_int_equal(size, 3);
  const int* temps = NULL;
  int num_temps = -1;
  assert_int_equal(TfLiteOpaqueNodeTemporaries(on, &temps, &num_temps),
                   kTfLiteOk);
  assert_int_equal(num_temps, 0);
  int wanted[2] = {1, 0};
  assert_int_equal(TfLiteOpaqueNodeSetTemporaries(on, wanted, 2), kTfLiteOk);
  assert_int_equal(TfLiteOpaqueNodeSetTemporaries(on, wanted, 1), kTfLiteOk);
  wanted[0] = 5; /* copied, not borrowed */
  assert_int_equal(TfLiteOpaqueNodeTemporaries(on, &temps, &num_temps),
                   kTfLiteOk);
  assert_int_equal(num_temps, 1);
  assert_int_equal(temps[0], 1);
  assert_int_equal(TfLiteOpaqueNodeSetTemporaries(on, NULL, 1), kTfLiteError);
  assert_int_equal(TfLiteOpaqueNodeSetTemporaries(on, wanted, -1),
                   kTfLiteError);

  /* AddTensor through a builder; the tensor array moves. */
  TfLiteOpaqueTensorBuilder* b = TfLiteOpaqueTensorBuilderCreate();
  TfLiteOpaqueTensorBuilderSetType(b, kTfLiteInt32);
  TfLiteOpaqueTensorBuilderSetAllocationType(b, kTfLiteArenaRw);
  int index = -1;
  TfLiteTensor* before = context.tensors;
  assert_int_equal(TfLiteOpaqueContextAddTensor(oc, b, &index), kTfLiteOk);
  assert_int_equal(index, 2);
  assert_ptr_not_equal(context.tensors, before);
  assert_int_equal(context.tensors[2].type, kTfLiteInt32);
  assert_int_equal(context.tensors[2].allocation_type, kTfLiteArenaRw);
  assert_int_equal(context.tensors[2].dims->size, 0);
  TfLiteOpaqueTensorBuilderSetAllocationType(b, kTfLiteCustom);
  assert_int_equal(TfLiteOpaqueContextAddTensor(oc, b, &index), kTfLiteError);
  assert_non_null(strstr(errors.text, "Invalid allocation type '6'"));
  assert_int_equal(context.tensors_size, 3);
  TfLiteOpaqueTensorBuilderDelete(b);
  assert_null(TfLiteOpaqueTensorBuilderSetType(NULL, kTfLiteInt8));
  TfLiteOpaqueTensorBuilderDelete(NULL);
  /* A builder dropped with its quantization frees it (ASan checks). */
  b = TfLiteOpaqueTensorBuilderCreate();
  TfLiteAffineQuantization* q = calloc(1, sizeof(*q));
  q->scale = TfLiteFloatArrayCreate(1);
  TfLiteQuantization quantization = {kTfLiteAffineQuantization, q};
  TfLiteOpaqueTensorBuilderSetQuantization(b, quantization);
  TfLiteOpaqueTensorBuilderDelete(b);

  /* ResizeTensor takes ownership even on failure. */
  assert_int_equal(
      TfLiteOpaqueContextResizeTensor(NULL, o0, TfLiteIntArrayCreate(1)),
      kTfLiteError);
  TfLiteIntArray* shape = TfLiteIntArrayCreate(1);
  shape->data[0] = 4;
  o0 = TfLiteOpaqueContextGetOpaqueTensor(oc, 0);
  assert_int_equal(TfLiteOpaqueContextResizeTensor(oc, o0, shape), kTfLiteOk);
  assert_int_equal(TfLiteOpaqueTensorNumDims(o0), 1);

  /* Element sizes, as TfLiteGetSizeOfType; a type without one is reported. */
  size_t element = 0;
  assert_int_equal(
      TfLiteOpaqueContextGetSizeOfType(oc, kTfLiteFloat32, &element),
      kTfLiteOk);
  assert_int_equal(element, 4);
  assert_int_equal(
      TfLiteOpaqueContextGetSizeOfType(oc, kTfLiteComplex128, &element),
      kTfLiteOk);
  assert_int_equal(element, 16);
  assert_int_equal(TfLiteOpaqueContextGetSizeOfType(oc, kTfLiteInt16, &element),
                   kTfLiteOk);
  assert_int_equal(element, 2);
  assert_int_equal(
      TfLiteOpaqueContextGetSizeOfType(oc, kTfLiteString, &element),
      kTfLiteError);
  assert_non_null(strstr(errors.text, "type STRING"));
  assert_int_equal(
      TfLiteOpaqueContextGetSizeOfType(NULL, kTfLiteResource, &element),
      kTfLiteError);
  assert_int_equal(TfLiteOpaqueContextGetSizeOfType(oc, kTfLiteInt8, NULL),
                   kTfLiteError);

  /* A context no interpreter made: no subgraph to describe. */
  const int* list = NULL;
  int n = 0;
  assert_int_equal(TfLiteOpaqueContextGetVariables(oc, &list, &n),
                   kTfLiteError);
  assert_int_equal(TfLiteOpaqueContextGetInputs(oc, &list, &n), kTfLiteError);
  assert_int_equal(TfLiteOpaqueContextGetOutputs(NULL, &list, &n),
                   kTfLiteError);
  assert_string_equal(TfLiteOpaqueContextGetName(oc), "");
  assert_int_equal(TfLiteOpaqueContextGetNumNodes(oc), 0);
  assert_int_equal(TfLiteOpaqueContextGetNumTensors(oc), 3);
  assert_null(TfLiteOpaqueContextGetOpaqueTensor(oc, 3));
  assert_null(TfLiteOpaqueContextGetOpaqueTensor(NULL, 0));
  const char* meta = NULL;
  size_t bytes = 0;
  assert_int_equal(
      TfLiteOpaqueContextGetMetadata(oc, "min_runtime_version", &meta, &bytes),
      kTfLiteError);

  /* ReportError: short, long (past any fixed buffer) and to NULL. */
  errors.len = 0;
  errors.text[0] = '\0';
  TfLiteOpaqueContextReportError(oc, "short %d", 7);
  assert_non_null(strstr(errors.text, "short 7"));
  char long_text[2000];
  memset(long_text, 'z', sizeof(long_text) - 1);
  long_text[sizeof(long_text) - 1] = '\0';
  TfLiteOpaqueContextReportError(oc, "[%s] end", long_text);
  assert_non_null(strstr(errors.text, long_text));
  assert_non_null(strstr(errors.text, "] end"));
  TfLiteOpaqueContextReportError(NULL, "nowhere %d", 1);

  for (size_t i = 0; i < context.tensors_size; ++i) {
    TfLiteIntArrayFree(context.tensors[i].dims);
    TfLiteQuantizationFree(&context.tensors[i].quantization);
  }
  free(context.tensors);
  TfLiteIntArrayFree(node.inputs);
  TfLiteIntArrayFree(node.outputs);
  TfLiteIntArrayFree(node.temporaries);
  g_fake_errors = NULL;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_operator_create_and_getters),
      cmocka_unit_test(test_dispatchers),
      cmocka_unit_test(test_opaque_on_fake_context),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
