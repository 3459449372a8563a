/* The Atan custom op of docs/custom_ops.md (examples/custom_op_atan/
 * atan_op.c, compiled into this test) in both spellings of the operator API,
 * on a model written as a spec: y = atan(x + offset), an ADD then the
 * CUSTOM op "Atan", checked against atanf.
 *
 * Routes: TfLiteInterpreterOptionsAddOperator (TfLiteOperator),
 * ...AddRegistrationExternal (TFLite 2.13 to 2.15's name), and a
 * TfLiteRegistration carrying registration_external through ...AddCustomOp
 * and ...AddBuiltinOp; then TFLite's rule for such a registration (per
 * callback: the external one when set, else the registration's own) and the
 * TfLiteRegistrationExternal* functions against their TfLiteOperator
 * counterparts.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "examples/custom_op_atan/atan_op.h"
#include "litegpu/custom_op_library.h"
#include "runtime/operator.h"
#include "runtime/writer/model_spec.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tensorflow/lite/c/c_api_opaque.h"
#include "tensorflow/lite/core/c/operator.h"
#include "tensorflow/lite/core/c/registration_external.h"
#include "tests/support/spec_model.h"

/* ---- Helpers ------------------------------------------------------------- */

/* y = atan(x + offset), as in TFLite's custom-op guide. */
static const char kAtanSpec[] =
    "tensor x FLOAT32 2,3\n"
    "tensor offset FLOAT32 2,3 values=0.5,0.5,0.5,0.5,0.5,0.5\n"
    "tensor sum FLOAT32 2,3\n"
    "tensor y FLOAT32 2,3\n"
    "op ADD 1 in=x,offset out=sum\n"
    "custom Atan 1 in=sum out=y\n"
    "inputs x\n"
    "outputs y\n";

/* The same shape with a builtin TANH where the custom op was. */
static const char kTanhSpec[] =
    "tensor x FLOAT32 2,3\n"
    "tensor offset FLOAT32 2,3 values=0.5,0.5,0.5,0.5,0.5,0.5\n"
    "tensor sum FLOAT32 2,3\n"
    "tensor y FLOAT32 2,3\n"
    "op ADD 1 in=x,offset out=sum\n"
    "op TANH 1 in=sum out=y\n"
    "inputs x\n"
    "outputs y\n";

/* The custom op alone (a resolver callback must resolve every op). */
static const char kAtanOnlySpec[] =
    "tensor x FLOAT32 2,3\n"
    "tensor y FLOAT32 2,3\n"
    "custom Atan 1 in=x out=y\n"
    "inputs x\n"
    "outputs y\n";

static const float kInput[6] = {-8.0f, -1.5f, 0.0f, 0.5f, 2.2f, 201.0f};

typedef struct fixture {
  void* data;
  TfLiteModel* model;
  TfLiteInterpreterOptions* options;
  TfLiteInterpreter* interpreter;
  lg_test_capture errors;
} fixture;

/* The model and options; the caller registers, then calls create(). */
static void build(fixture* f, const char* spec) {
  memset(f, 0, sizeof(*f));
  f->model = lg_test_model_from_spec(spec, &f->data);
  assert_non_null(f->model);
  f->options = TfLiteInterpreterOptionsCreate();
  assert_non_null(f->options);
  TfLiteInterpreterOptionsSetNumThreads(f->options, 1);
  TfLiteInterpreterOptionsSetErrorReporter(f->options, lg_test_capture_report,
                                           &f->errors);
}

static void create(fixture* f) {
  f->interpreter = TfLiteInterpreterCreate(f->model, f->options);
  assert_non_null(f->interpreter);
}

static void release(fixture* f) {
  TfLiteInterpreterDelete(f->interpreter);
  TfLiteInterpreterOptionsDelete(f->options);
  TfLiteModelDelete(f->model);
  free(f->data);
}

/* Allocates, runs kInput and checks y = atanf(x + offset) (the kernel calls
 * atanf on the same sums, so the values agree exactly). */
static void run_and_check(fixture* f, float offset) {
  assert_int_equal(TfLiteInterpreterAllocateTensors(f->interpreter), kTfLiteOk);
  TfLiteTensor* in = TfLiteInterpreterGetInputTensor(f->interpreter, 0);
  assert_int_equal(TfLiteTensorCopyFromBuffer(in, kInput, sizeof(kInput)),
                   kTfLiteOk);
  assert_int_equal(TfLiteInterpreterInvoke(f->interpreter), kTfLiteOk);
  const TfLiteTensor* out = TfLiteInterpreterGetOutputTensor(f->interpreter, 0);
  assert_int_equal(TfLiteTensorType(out), kTfLiteFloat32);
  assert_int_equal(TfLiteTensorNumDims(out), 2);
  assert_int_equal(TfLiteTensorDim(out, 0), 2);
  assert_int_equal(TfLiteTensorDim(out, 1), 3);
  float y[6];
  assert_int_equal(TfLiteTensorCopyToBuffer(out, y, sizeof(y)), kTfLiteOk);
  for (int i = 0; i < 6; ++i) {
    const float want = atanf(kInput[i] + offset);
    if (y[i] != want) {
      fail_msg("y[%d] = %.9g, atanf(%.9g) = %.9g", i, (double)y[i],
               (double)(kInput[i] + offset), (double)want);
    }
  }
}

/* The models of kAtanSpec and kTanhSpec: y = atanf(x + 0.5). */
static void run_and_check_atan(fixture* f) { run_and_check(f, 0.5f); }

/* ---- The Atan example in each spelling ---------------------------------- */

static void test_operator_spelling(void** state) {
  (void)state;
  fixture f;
  build(&f, kAtanSpec);
  TfLiteInterpreterOptionsAddOperator(f.options, AtanOperator());
  create(&f);
  run_and_check_atan(&f);
  release(&f);
}

static void test_registration_external_spelling(void** state) {
  (void)state;
  fixture f;
  build(&f, kAtanSpec);
  TfLiteInterpreterOptionsAddRegistrationExternal(f.options,
                                                  AtanOpRegistrationExternal());
  create(&f);
  run_and_check_atan(&f);
  release(&f);
}

/* The custom-op library's entry point registers it too. */
static void test_library_entry_point(void** state) {
  (void)state;
  fixture f;
  build(&f, kAtanSpec);
  assert_int_equal(litegpu_register_custom_ops(f.options), kTfLiteOk);
  create(&f);
  run_and_check_atan(&f);
  release(&f);
}

/* Without it the op is unresolved: TFLite's report at AllocateTensors. */
static void test_unregistered_atan_is_unresolved(void** state) {
  (void)state;
  fixture f;
  build(&f, kAtanSpec);
  create(&f);
  assert_int_equal(TfLiteInterpreterAllocateTensors(f.interpreter),
                   kTfLiteUnresolvedOps);
  assert_non_null(
      strstr(f.errors.text, "Encountered unresolved custom op: Atan."));
  release(&f);
}

/* ---- TfLiteRegistration.registration_external -------------------------- */

/* A TfLiteRegistration with only registration_external set, through
 * AddCustomOp: the external operator's callbacks run. */
static void test_add_custom_op_runs_registration_external(void** state) {
  (void)state;
  fixture f;
  build(&f, kAtanSpec);
  const TfLiteRegistration* reg = AtanOpRegistration();
  assert_null(reg->prepare);
  assert_null(reg->invoke);
  assert_ptr_equal(reg->registration_external, AtanOpRegistrationExternal());
  TfLiteInterpreterOptionsAddCustomOp(f.options, ATAN_OP_NAME, reg, 1, 1);
  create(&f);
  run_and_check_atan(&f);
  release(&f);
}

/* Through AddBuiltinOp: it replaces the builtin kernel (TANH computes atan
 * here). */
static void test_add_builtin_op_runs_registration_external(void** state) {
  (void)state;
  fixture f;
  build(&f, kTanhSpec);
  TfLiteInterpreterOptionsAddBuiltinOp(f.options, kTfLiteBuiltinTanh,
                                       AtanOpRegistration(), 1, 1);
  create(&f);
  run_and_check_atan(&f);
  release(&f);
}

static const TfLiteRegistration* find_atan(void* user_data,
                                           const char* custom_op, int version) {
  return strcmp(custom_op, ATAN_OP_NAME) == 0 && version == 1
             ? AtanOpRegistration()
             : NULL;
}

/* And from an op resolver callback. */
static void test_resolver_callback_runs_registration_external(void** state) {
  (void)state;
  fixture f;
  build(&f, kAtanOnlySpec);
  TfLiteInterpreterOptionsSetOpResolver(f.options, NULL, find_atan, NULL);
  create(&f);
  run_and_check(&f, 0.0f);
  release(&f);
}

typedef struct calls {
  int plain_init, plain_free, plain_prepare, plain_invoke;
  int external_init, external_free, external_invoke;
} calls;

static calls g_calls;

static void* plain_init(TfLiteContext* context, const char* buffer,
                        size_t length) {
  g_calls.plain_init++;
  return &g_calls.plain_init;
}

static void plain_free(TfLiteContext* context, void* data) {
  g_calls.plain_free++;
}

/* Gives the output the input's shape (the external operator below has no
 * Prepare, so this one runs). */
static TfLiteStatus plain_prepare(TfLiteContext* context, TfLiteNode* node) {
  g_calls.plain_prepare++;
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  return context->ResizeTensor(context, output,
                               TfLiteIntArrayCopy(input->dims));
}

static TfLiteStatus plain_invoke(TfLiteContext* context, TfLiteNode* node) {
  g_calls.plain_invoke++;
  return kTfLiteError; /* must not run: the external Invoke wins */
}

static void* external_init(TfLiteOpaqueContext* context, const char* buffer,
                           size_t length) {
  g_calls.external_init++;
  return &g_calls.external_init;
}

/* Frees what external_init returned. */
static void external_free(TfLiteOpaqueContext* context, void* data) {
  if (data == &g_calls.external_init) g_calls.external_free++;
}

static TfLiteStatus external_invoke(TfLiteOpaqueContext* context,
                                    TfLiteOpaqueNode* node) {
  g_calls.external_invoke++;
  const TfLiteOpaqueTensor* in = TfLiteOpaqueNodeGetInput(context, node, 0);
  TfLiteOpaqueTensor* out = TfLiteOpaqueNodeGetOutput(context, node, 0);
  const float* x = TfLiteOpaqueTensorData(in);
  float* y = TfLiteOpaqueTensorData(out);
  for (size_t i = 0; i < TfLiteOpaqueTensorByteSize(in) / sizeof(float); ++i) {
    y[i] = atanf(x[i]);
  }
  return kTfLiteOk;
}

/* TFLite's rule (Subgraph::OpInit/OpPrepare/OpInvoke and the Free of a
 * node): for each callback, the external operator's when it has one, else
 * the registration's own. */
static void test_external_callbacks_win_one_by_one(void** state) {
  (void)state;
  TfLiteRegistrationExternal* external =
      TfLiteRegistrationExternalCreate(kTfLiteBuiltinCustom, "Atan", 1);
  assert_non_null(external);
  TfLiteRegistrationExternalSetInit(external, external_init);
  TfLiteRegistrationExternalSetFree(external, external_free);
  TfLiteRegistrationExternalSetInvoke(external, external_invoke);
  TfLiteRegistration reg = {0};
  reg.init = plain_init;
  reg.free = plain_free;
  reg.prepare = plain_prepare;
  reg.invoke = plain_invoke;
  reg.registration_external = external;

  memset(&g_calls, 0, sizeof(g_calls));
  fixture f;
  build(&f, kAtanSpec);
  TfLiteInterpreterOptionsAddCustomOp(f.options, "Atan", &reg, 1, 1);
  create(&f);
  run_and_check_atan(&f);
  assert_int_equal(g_calls.external_init, 1);
  assert_int_equal(g_calls.plain_init, 0);
  assert_int_equal(g_calls.plain_prepare, 1); /* the external has none */
  assert_int_equal(g_calls.external_invoke, 1);
  assert_int_equal(g_calls.plain_invoke, 0);
  release(&f);
  assert_int_equal(g_calls.external_free, 1);
  assert_int_equal(g_calls.plain_free, 0);
  TfLiteRegistrationExternalDelete(external);
}

/* ---- The TfLiteRegistrationExternal functions --------------------------- */

static struct TfLiteAsyncKernel* async_kernel(TfLiteOpaqueContext* context,
                                              TfLiteOpaqueNode* node) {
  return NULL;
}

/* Each is its own exported function acting on the same object as its
 * TfLiteOperator counterpart. */
static void test_registration_external_functions(void** state) {
  (void)state;
  /* Distinct functions, not macros for the TfLiteOperator names. */
  assert_true((void (*)(void))TfLiteRegistrationExternalCreate !=
              (void (*)(void))TfLiteOperatorCreate);
  assert_true((void (*)(void))TfLiteRegistrationExternalSetInvoke !=
              (void (*)(void))TfLiteOperatorSetInvoke);

  assert_null(TfLiteRegistrationExternalCreate(kTfLiteBuiltinCustom, NULL, 1));
  assert_null(TfLiteRegistrationExternalCreate(kTfLiteBuiltinCustom, "A", 0));

  char name[] = "MyAtan";
  TfLiteRegistrationExternal* r =
      TfLiteRegistrationExternalCreate(kTfLiteBuiltinCustom, name, 2);
  assert_non_null(r);
  name[0] = 'X'; /* the name is copied */
  assert_int_equal(TfLiteRegistrationExternalGetBuiltInCode(r),
                   kTfLiteBuiltinCustom);
  assert_string_equal(TfLiteRegistrationExternalGetCustomName(r), "MyAtan");
  assert_int_equal(TfLiteRegistrationExternalGetVersion(r), 2);
  /* The same object under the other spelling. */
  assert_string_equal(TfLiteOperatorGetCustomName(r), "MyAtan");
  assert_int_equal(TfLiteOperatorGetVersion(r), 2);

  TfLiteRegistrationExternalSetInplaceOperator(r, 3);
  TfLiteRegistration view = lg_operator_registration(r);
  assert_true(view.inplace_operator == 3);
  assert_ptr_equal(view.registration_external, r);
  assert_false(lg_operator_has_callbacks(r));
  TfLiteRegistrationExternalSetAsyncKernel(r, async_kernel);
  assert_true(lg_operator_has_async_kernel_only(r));
  TfLiteRegistrationExternalSetInvoke(r, external_invoke);
  assert_false(lg_operator_has_async_kernel_only(r));
  TfLiteRegistrationExternalDelete(r);

  TfLiteRegistrationExternal* add =
      TfLiteRegistrationExternalCreate(kTfLiteBuiltinAdd, NULL, 1);
  assert_non_null(add);
  assert_int_equal(TfLiteRegistrationExternalGetBuiltInCode(add),
                   kTfLiteBuiltinAdd);
  assert_null(TfLiteRegistrationExternalGetCustomName(add));
  TfLiteRegistrationExternalDelete(add);

  /* NULL: as the TfLiteOperator functions. */
  assert_int_equal(TfLiteRegistrationExternalGetVersion(NULL), -1);
  assert_null(TfLiteRegistrationExternalGetCustomName(NULL));
  assert_int_equal(TfLiteRegistrationExternalGetBuiltInCode(NULL),
                   TfLiteOperatorGetBuiltInCode(NULL));
  TfLiteRegistrationExternalSetInit(NULL, external_init);
  TfLiteRegistrationExternalSetFree(NULL, external_free);
  TfLiteRegistrationExternalSetPrepare(NULL, NULL);
  TfLiteRegistrationExternalSetInvoke(NULL, external_invoke);
  TfLiteRegistrationExternalSetAsyncKernel(NULL, async_kernel);
  TfLiteRegistrationExternalSetInplaceOperator(NULL, 1);
  TfLiteRegistrationExternalDelete(NULL);
}

/* An async kernel without Invoke, set through the old spelling, is
 * refused at creation as through the new one. */
static void test_async_only_registration_external_is_refused(void** state) {
  (void)state;
  TfLiteRegistrationExternal* r =
      TfLiteRegistrationExternalCreate(kTfLiteBuiltinCustom, "Atan", 1);
  TfLiteRegistrationExternalSetAsyncKernel(r, async_kernel);
  fixture f;
  build(&f, kAtanSpec);
  TfLiteInterpreterOptionsAddRegistrationExternal(f.options, r);
  assert_null(TfLiteInterpreterCreate(f.model, f.options));
  assert_non_null(strstr(f.errors.text, "AsyncKernel"));
  release(&f);
  TfLiteRegistrationExternalDelete(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_operator_spelling),
      cmocka_unit_test(test_registration_external_spelling),
      cmocka_unit_test(test_library_entry_point),
      cmocka_unit_test(test_unregistered_atan_is_unresolved),
      cmocka_unit_test(test_add_custom_op_runs_registration_external),
      cmocka_unit_test(test_add_builtin_op_runs_registration_external),
      cmocka_unit_test(test_resolver_callback_runs_registration_external),
      cmocka_unit_test(test_external_callbacks_win_one_by_one),
      cmocka_unit_test(test_registration_external_functions),
      cmocka_unit_test(test_async_only_registration_external_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
