/* TFLite's async signature runner (core/async/c/async_signature_runner.h)
 * end to end on small models written with the model writer: outputs equal
 * to hand-derived values and to a synchronous signature Invoke, two tasks
 * in flight, buffer slices, attribute maps, and the misuse errors.
 *
 * A custom GATE operator (copy input to output once the test opens the
 * gate) keeps a task in flight for as long as a test needs it to be. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "litegpu/async.h"
#include "runtime/writer/model_spec.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_opaque.h"
#include "tensorflow/lite/core/async/c/async_kernel.h"
#include "tensorflow/lite/core/async/c/async_signature_runner.h"
#include "tensorflow/lite/core/async/c/task.h"
#include "tensorflow/lite/core/async/interop/c/attribute_map.h"
#include "tensorflow/lite/core/async/interop/c/constants.h"
#include "tensorflow/lite/core/c/operator.h"
#include "tensorflow/lite/core/c/registration_external.h"
#include "tests/support/async_host_buffer.h"

/* y = GATE(x): signature "gate", x "in", y "out". */
static const char kGateSpec[] =
    "tensor x FLOAT32 2\n"
    "tensor y FLOAT32 2\n"
    "custom GATE 1 in=x out=y\n"
    "inputs x\n"
    "outputs y\n";

enum { kX = 0, kY = 2, kZ = 3 }; /* tensor indices of lg_test_square_spec */

typedef struct model_bytes {
  void* data;
  size_t size;
} model_bytes;

static model_bytes write_model(const char* spec, const char* key,
                               const lg_writer_tensor_map* in, int num_in,
                               const lg_writer_tensor_map* out, int num_out) {
  model_bytes m = {NULL, 0};
  lg_model_writer* w = lg_model_spec_read_text(spec, "spec", NULL, NULL);
  assert_non_null(w);
  assert_true(
      lg_model_writer_add_signature(w, key, 0, in, num_in, out, num_out) >= 0);
  assert_int_equal(lg_model_writer_finish(w, &m.data, &m.size), kTfLiteOk);
  lg_model_writer_destroy(w);
  return m;
}

/* ---- Error capture ------------------------------------------------------- */

static char g_errors[8192];

static void capture_error(void* user_data, const char* format, va_list args) {
  (void)user_data;
  const size_t len = strlen(g_errors);
  if (len + 2 >= sizeof(g_errors)) return;
  vsnprintf(g_errors + len, sizeof(g_errors) - len - 1, format, args);
  strcat(g_errors, "\n");
}

static void expect_error(const char* fragment) {
  if (strstr(g_errors, fragment) == NULL) {
    fail_msg("expected an error containing \"%s\"; got:\n%s", fragment,
             g_errors);
  }
  g_errors[0] = '\0';
}

/* ---- The GATE operator ----------------------------------------------------
 */

static atomic_bool g_gate_open;
static atomic_bool g_gate_fail;
static atomic_int g_gate_entered;

static TfLiteStatus gate_invoke(TfLiteOpaqueContext* context,
                                TfLiteOpaqueNode* node) {
  (void)context;
  atomic_fetch_add(&g_gate_entered, 1);
  const struct timespec ms = {0, 1000000};
  while (!atomic_load(&g_gate_open)) nanosleep(&ms, NULL);
  if (atomic_load(&g_gate_fail)) {
    TfLiteOpaqueContextReportError(context, "GATE: failing as asked");
    return kTfLiteError;
  }
  const TfLiteOpaqueTensor* in = TfLiteOpaqueNodeGetInput(context, node, 0);
  TfLiteOpaqueTensor* out = TfLiteOpaqueNodeGetOutput(context, node, 0);
  memcpy(TfLiteOpaqueTensorData(out), TfLiteOpaqueTensorData(in),
         TfLiteOpaqueTensorByteSize(in));
  return kTfLiteOk;
}

/* ---- GATE's async kernel --------------------------------------------------
 * Counts the runner's calls; eval keeps the task's buffers (the tensors'
 * data during eval), wait writes twice the input (GATE's Invoke copies it,
 * so the output tells which ran). */

typedef struct gate_async {
  TfLiteAsyncKernel* kernel;
  int registered, slices, unregistered, reconciled, attributes, prepared;
  int finished;
  bool refuse_buffers;
  TfLiteBufferHandle last_handle;
  TfLiteExecutionTask* pending;
  const float* in;
  float* out;
} gate_async;

static gate_async g_async;
static bool g_gate_with_async; /* open_model gives GATE the async kernel */
static const char* const kGateBufferTypes[] = {"host_memory", "gate_blob"};

static TfLiteStatus gate_register(TfLiteAsyncKernel* k, TfLiteOpaqueContext* c,
                                  TfLiteIoType io, const TfLiteBackendBuffer* b,
                                  const TfLiteAttributeMap* a,
                                  TfLiteBufferHandle handle) {
  (void)k, (void)c, (void)io, (void)b, (void)a;
  if (g_async.refuse_buffers) return kTfLiteError;
  g_async.registered++;
  g_async.last_handle = handle;
  return kTfLiteOk;
}

static TfLiteStatus gate_register_slice(TfLiteAsyncKernel* k,
                                        TfLiteOpaqueContext* c,
                                        TfLiteBufferHandle pool,
                                        const TfLiteAttributeMap* a,
                                        TfLiteBufferHandle handle) {
  (void)k, (void)c, (void)pool, (void)a, (void)handle;
  g_async.slices++;
  return kTfLiteOk;
}

static TfLiteStatus gate_unregister(TfLiteAsyncKernel* k,
                                    TfLiteOpaqueContext* c,
                                    TfLiteBufferHandle handle) {
  (void)k, (void)c, (void)handle;
  g_async.unregistered++;
  return kTfLiteOk;
}

static void gate_buffer_types(const TfLiteAsyncKernel* k, TfLiteIoType io,
                              const char* const** types, size_t* n) {
  (void)k, (void)io;
  *types = kGateBufferTypes;
  *n = 2;
}

static bool gate_reconcile(const TfLiteAsyncKernel* k,
                           const TfLiteOpaqueContext* c,
                           const TfLiteOpaqueNode* node, int tensor,
                           const TfLiteAttributeMap* user,
                           TfLiteAttributeMap* merged,
                           TfLiteAttributeMap* conflict) {
  (void)k, (void)c, (void)node, (void)conflict;
  g_async.reconciled++;
  TfLiteAttributeMapCopy(user, merged);
  return tensor == 0; /* the input only */
}

static TfLiteStatus gate_set_attributes(TfLiteAsyncKernel* k,
                                        TfLiteOpaqueContext* c,
                                        TfLiteOpaqueNode* node, int tensor,
                                        const TfLiteAttributeMap* a) {
  (void)k, (void)c, (void)node, (void)tensor, (void)a;
  g_async.attributes++;
  return kTfLiteOk;
}

static TfLiteStatus gate_prepare(TfLiteAsyncKernel* k, TfLiteOpaqueContext* c,
                                 TfLiteOpaqueNode* node) {
  (void)k, (void)c, (void)node;
  g_async.prepared++;
  return kTfLiteOk;
}

static TfLiteStatus gate_eval(TfLiteAsyncKernel* k, TfLiteOpaqueContext* c,
                              TfLiteOpaqueNode* node,
                              TfLiteExecutionTask* task) {
  (void)k;
  g_async.pending = task;
  g_async.in = TfLiteOpaqueTensorData(TfLiteOpaqueNodeGetInput(c, node, 0));
  g_async.out = TfLiteOpaqueTensorData(TfLiteOpaqueNodeGetOutput(c, node, 0));
  return kTfLiteOk;
}

static TfLiteStatus gate_wait(TfLiteAsyncKernel* k, TfLiteOpaqueContext* c,
                              TfLiteExecutionTask* task) {
  (void)k, (void)c;
  if (task != g_async.pending) return kTfLiteError;
  for (int i = 0; i < 2; ++i) g_async.out[i] = 2.0f * g_async.in[i];
  g_async.pending = NULL;
  return kTfLiteOk;
}

static TfLiteStatus gate_finish(TfLiteAsyncKernel* k, TfLiteOpaqueContext* c,
                                TfLiteExecutionTask* task) {
  (void)k, (void)c, (void)task;
  g_async.finished++;
  return kTfLiteOk;
}

static TfLiteAsyncKernel* gate_async_kernel(TfLiteOpaqueContext* context,
                                            TfLiteOpaqueNode* node) {
  (void)context, (void)node;
  return g_async.kernel;
}

static void make_gate_async_kernel(void) {
  memset(&g_async, 0, sizeof(g_async));
  TfLiteAsyncKernel* k = TfLiteAsyncKernelCreate(&g_async);
  assert_non_null(k);
  TfLiteAsyncKernelSetRegisterBuffer(k, gate_register);
  TfLiteAsyncKernelSetRegisterBufferSlice(k, gate_register_slice);
  TfLiteAsyncKernelSetUnregisterBuffer(k, gate_unregister);
  TfLiteAsyncKernelSetSupportedBufferTypes(k, gate_buffer_types);
  TfLiteAsyncKernelSetReconcileRestrictions(k, gate_reconcile);
  TfLiteAsyncKernelSetSetAttributes(k, gate_set_attributes);
  TfLiteAsyncKernelSetPrepare(k, gate_prepare);
  TfLiteAsyncKernelSetEval(k, gate_eval);
  TfLiteAsyncKernelSetWait(k, gate_wait);
  TfLiteAsyncKernelSetFinish(k, gate_finish);
  g_async.kernel = k;
}

/* ---- Fixture ------------------------------------------------------------- */

typedef struct fixture {
  model_bytes bytes;
  TfLiteModel* model;
  TfLiteOperator* gate;
  TfLiteInterpreterOptions* options;
  TfLiteInterpreter* interpreter;
  TfLiteAsyncSignatureRunner* runner;
} fixture;

static void open_model(fixture* f, model_bytes bytes, const char* key) {
  g_errors[0] = '\0';
  f->bytes = bytes;
  f->model = TfLiteModelCreate(bytes.data, bytes.size);
  assert_non_null(f->model);
  f->options = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetErrorReporter(f->options, capture_error, NULL);
  TfLiteInterpreterOptionsSetNumThreads(f->options, 1);
  f->gate = TfLiteOperatorCreate(kTfLiteBuiltinCustom, "GATE", 1);
  TfLiteOperatorSetInvoke(f->gate, gate_invoke);
  if (g_gate_with_async) {
    /* TfLiteOperatorSetAsyncKernel under its TfLiteRegistrationExternal
     * name. */
    TfLiteRegistrationExternalSetAsyncKernel(f->gate, gate_async_kernel);
  }
  TfLiteInterpreterOptionsAddOperator(f->options, f->gate);
  f->interpreter = TfLiteInterpreterCreate(f->model, f->options);
  assert_non_null(f->interpreter);
  f->runner = TfLiteInterpreterGetAsyncSignatureRunner(f->interpreter, key);
  assert_non_null(f->runner);
  assert_int_equal(TfLiteAsyncSignatureRunnerPrepareBackends(f->runner),
                   kTfLiteOk);
}

static void open_square(fixture* f) {
  const lg_writer_tensor_map in[] = {{"in", kX}};
  const lg_writer_tensor_map out[] = {{"sum", kY}, {"square", kZ}};
  open_model(f, write_model(lg_test_square_spec, "serve", in, 1, out, 2),
             "serve");
}

static void open_gate(fixture* f) {
  atomic_store(&g_gate_open, false);
  atomic_store(&g_gate_fail, false);
  atomic_store(&g_gate_entered, 0);
  const lg_writer_tensor_map in[] = {{"in", 0}};
  const lg_writer_tensor_map out[] = {{"out", 1}};
  open_model(f, write_model(kGateSpec, "gate", in, 1, out, 1), "gate");
}

/* A task of the gate signature bound to `in` and `out`. */
static TfLiteExecutionTask* gate_task(TfLiteAsyncSignatureRunner* r,
                                      TfLiteBufferHandle in,
                                      TfLiteBufferHandle out) {
  TfLiteExecutionTask* t = TfLiteAsyncSignatureRunnerCreateTask(r);
  assert_non_null(t);
  assert_int_equal(
      TfLiteExecutionTaskSetBuffer(t, kTfLiteIoTypeInput, "in", in), kTfLiteOk);
  assert_int_equal(
      TfLiteExecutionTaskSetBuffer(t, kTfLiteIoTypeOutput, "out", out),
      kTfLiteOk);
  return t;
}

static void close_fixture(fixture* f) {
  TfLiteAsyncSignatureRunnerDelete(f->runner);
  TfLiteInterpreterDelete(f->interpreter);
  TfLiteInterpreterOptionsDelete(f->options);
  TfLiteOperatorDelete(f->gate);
  TfLiteModelDelete(f->model);
  free(f->bytes.data);
}

static TfLiteBufferHandle register_slice(TfLiteAsyncSignatureRunner* r,
                                         TfLiteBufferHandle pool, size_t offset,
                                         size_t size, TfLiteStatus expected) {
  TfLiteAttributeMap* a = TfLiteAttributeMapCreate(kTfLiteAttrMapTypeBuffer);
  TfLiteAttributeMapSetSizeTBufferAttr(a, kTfLiteBufferAttrKeyOffset, offset);
  TfLiteAttributeMapSetSizeTBufferAttr(a, kTfLiteBufferAttrKeySize, size);
  TfLiteBufferHandle h = kTfLiteNullBufferHandle;
  assert_int_equal(
      TfLiteAsyncSignatureRunnerRegisterBufferSlice(r, pool, a, &h), expected);
  TfLiteAttributeMapDelete(a);
  return h;
}

static void expect_floats(const float* got, const float* want, int n) {
  for (int i = 0; i < n; ++i) {
    if (got[i] != want[i]) {
      fail_msg("element %d: got %g, want %g", i, (double)got[i],
               (double)want[i]);
    }
  }
}

/* ---- Tests --------------------------------------------------------------- */

static void test_names_and_types(void** state) {
  (void)state;
  fixture f;
  open_square(&f);
  TfLiteAsyncSignatureRunner* r = f.runner;
  assert_int_equal(TfLiteAsyncSignatureRunnerGetInputCount(r), 1);
  assert_int_equal(TfLiteAsyncSignatureRunnerGetOutputCount(r), 2);
  assert_string_equal(TfLiteAsyncSignatureRunnerGetInputName(r, 0), "in");
  assert_string_equal(TfLiteAsyncSignatureRunnerGetOutputName(r, 1), "square");
  assert_null(TfLiteAsyncSignatureRunnerGetOutputName(r, 2));
  expect_error("index 2 out of range [0, 2)");
  assert_int_equal(TfLiteAsyncSignatureRunnerInputTensorIndices(r)[0], kX);
  assert_int_equal(TfLiteAsyncSignatureRunnerOutputTensorIndices(r)[1], kZ);

  const TfLiteOpaqueTensor* in =
      TfLiteAsyncSignatureRunnerGetInputTensor(r, "in");
  assert_non_null(in);
  assert_int_equal(TfLiteOpaqueTensorType(in), kTfLiteFloat32);
  assert_int_equal(TfLiteOpaqueTensorByteSize(in), 16);
  assert_ptr_equal(TfLiteAsyncSignatureRunnerGetTensor(r, kZ),
                   TfLiteAsyncSignatureRunnerGetOutputTensor(r, "square"));
  assert_null(TfLiteAsyncSignatureRunnerGetInputTensor(r, "nope"));
  expect_error("signature 'serve' has no input named 'nope'");
  assert_null(TfLiteAsyncSignatureRunnerGetTensor(r, 1));
  expect_error("tensor 1 is neither an input nor an output");

  const char* const* types = NULL;
  size_t n = 0;
  assert_int_equal(TfLiteAsyncSignatureRunnerGetSupportedBufferTypes(
                       r, kTfLiteIoTypeInput, &types, &n),
                   kTfLiteOk);
  assert_int_equal(n, 1);
  assert_string_equal(types[0], "host_memory");
  assert_int_equal(TfLiteAsyncSignatureRunnerGetSupportedSynchronizationTypes(
                       r, kTfLiteIoTypeOutput, &types, &n),
                   kTfLiteOk);
  assert_int_equal(n, 1);
  assert_string_equal(types[0], "no_sync_obj");

  assert_null(TfLiteInterpreterGetAsyncSignatureRunner(f.interpreter, "x"));
  expect_error("the model has no signature 'x'");
  /* Without a key: subgraph 0, named by its tensors. */
  TfLiteAsyncSignatureRunner* primary =
      TfLiteInterpreterGetAsyncSignatureRunner(f.interpreter, NULL);
  assert_non_null(primary);
  assert_int_equal(TfLiteAsyncSignatureRunnerGetOutputCount(primary), 2);
  assert_string_equal(TfLiteAsyncSignatureRunnerGetInputName(primary, 0), "x");
  assert_string_equal(TfLiteAsyncSignatureRunnerGetOutputName(primary, 1), "z");
  assert_ptr_equal(TfLiteAsyncSignatureRunnerGetOutputTensor(primary, "z"),
                   TfLiteAsyncSignatureRunnerGetOutputTensor(r, "square"));
  TfLiteAsyncSignatureRunnerDelete(primary);
  close_fixture(&f);
}

static void test_attribute_maps(void** state) {
  (void)state;
  TfLiteAttributeMap* b = TfLiteAttributeMapCreate(kTfLiteAttrMapTypeBuffer);
  TfLiteAttributeMap* s = TfLiteAttributeMapCreate(kTfLiteAttrMapTypeSync);
  assert_true(TfLiteAttributeMapIsBufferAttributeMap(b));
  assert_false(TfLiteAttributeMapIsSyncAttributeMap(b));
  assert_true(TfLiteAttributeMapIsSyncAttributeMap(s));
  assert_false(TfLiteAttributeMapIsBufferAttributeMap(NULL));

  size_t z = 0;
  const char* str = NULL;
  assert_false(
      TfLiteAttributeMapGetSizeTBufferAttr(b, kTfLiteBufferAttrKeySize, &z));
  assert_true(
      TfLiteAttributeMapSetSizeTBufferAttr(b, kTfLiteBufferAttrKeySize, 64));
  assert_true(
      TfLiteAttributeMapSetSizeTBufferAttr(b, kTfLiteBufferAttrKeySize, 96));
  assert_true(
      TfLiteAttributeMapGetSizeTBufferAttr(b, kTfLiteBufferAttrKeySize, &z));
  assert_int_equal(z, 96);
  /* The wrong value type, and a buffer key on a sync map. */
  assert_false(
      TfLiteAttributeMapGetStringBufferAttr(b, kTfLiteBufferAttrKeySize, &str));
  assert_false(
      TfLiteAttributeMapSetSizeTBufferAttr(s, kTfLiteBufferAttrKeySize, 1));
  assert_true(TfLiteAttributeMapSetStringSyncAttr(
      s, kTfLiteSynchronizationAttrKeyObjectTypeName, "fence"));
  assert_true(TfLiteAttributeMapGetStringSyncAttr(
      s, kTfLiteSynchronizationAttrKeyObjectTypeName, &str));
  assert_string_equal(str, "fence");

  /* Custom keys are copied; the untyped accessors ignore the map type. */
  char key[] = "vendor.lanes";
  TfLiteAttributeMapSetCustomIntAttr(b, key, 7);
  key[0] = 'X';
  int i = 0;
  assert_true(TfLiteAttributeMapGetCustomIntAttr(b, "vendor.lanes", &i));
  assert_int_equal(i, 7);
  assert_false(TfLiteAttributeMapGetCustomIntAttr(b, "Xendor.lanes", &i));
  TfLiteAttributeMapSetIntAttr(s, 42, -3);
  assert_true(TfLiteAttributeMapGetIntAttr(s, 42, &i));
  assert_int_equal(i, -3);

  /* Copy replaces the destination's attributes and type. */
  TfLiteAttributeMapCopy(b, s);
  assert_true(TfLiteAttributeMapIsBufferAttributeMap(s));
  assert_false(TfLiteAttributeMapGetIntAttr(s, 42, &i));
  assert_true(TfLiteAttributeMapGetCustomIntAttr(s, "vendor.lanes", &i));
  assert_true(
      TfLiteAttributeMapGetSizeTBufferAttr(s, kTfLiteBufferAttrKeySize, &z));
  assert_int_equal(z, 96);
  TfLiteAttributeMapDelete(b);
  TfLiteAttributeMapDelete(s);
  TfLiteAttributeMapDelete(NULL);
}

static void test_reconcile(void** state) {
  (void)state;
  fixture f;
  open_square(&f);
  TfLiteAsyncSignatureRunner* r = f.runner;
  TfLiteAttributeMap* user = TfLiteAttributeMapCreate(kTfLiteAttrMapTypeBuffer);
  TfLiteAttributeMap* merged =
      TfLiteAttributeMapCreate(kTfLiteAttrMapTypeBuffer);
  TfLiteAttributeMap* conflict =
      TfLiteAttributeMapCreate(kTfLiteAttrMapTypeBuffer);
  TfLiteAttributeMapSetSizeTBufferAttr(user, kTfLiteBufferAttrKeyAlignment, 64);
  /* Absent type and size are filled in; other attributes are kept. */
  assert_true(TfLiteAsyncSignatureRunnerReconcileRestrictions(
      r, kTfLiteIoTypeOutput, "square", user, merged, conflict));
  size_t z = 0;
  const char* type = NULL;
  assert_true(TfLiteAttributeMapGetSizeTBufferAttr(
      merged, kTfLiteBufferAttrKeySize, &z));
  assert_int_equal(z, 16);
  assert_true(TfLiteAttributeMapGetStringBufferAttr(
      merged, kTfLiteBufferAttrKeyResourceTypeName, &type));
  assert_string_equal(type, "host_memory");
  assert_true(TfLiteAttributeMapGetSizeTBufferAttr(
      merged, kTfLiteBufferAttrKeyAlignment, &z));
  assert_int_equal(z, 64);

  /* A buffer too small and of another type conflicts. */
  TfLiteAttributeMapSetSizeTBufferAttr(user, kTfLiteBufferAttrKeySize, 8);
  TfLiteAttributeMapSetStringBufferAttr(
      user, kTfLiteBufferAttrKeyResourceTypeName, "ahardware_buffer_blob");
  assert_false(TfLiteAsyncSignatureRunnerReconcileRestrictionsByIndex(
      r, kX, user, merged, conflict));
  expect_error("the buffer attributes of 'in' conflict");
  assert_true(TfLiteAttributeMapGetSizeTBufferAttr(
      conflict, kTfLiteBufferAttrKeySize, &z));
  assert_int_equal(z, 16);
  assert_true(TfLiteAttributeMapGetStringBufferAttr(
      conflict, kTfLiteBufferAttrKeyResourceTypeName, &type));
  assert_string_equal(type, "host_memory");
  assert_int_equal(TfLiteAsyncSignatureRunnerSetAttributes(
                       r, kTfLiteIoTypeInput, "in", user),
                   kTfLiteError);
  expect_error("conflict");

  /* Sync maps: only no_sync_obj on the CPU path, the GPU delegate's types
   * included. */
  TfLiteAttributeMap* sync = TfLiteAttributeMapCreate(kTfLiteAttrMapTypeSync);
  TfLiteAttributeMapSetStringSyncAttr(
      sync, kTfLiteSynchronizationAttrKeyObjectTypeName, "sync_fence_fd");
  assert_false(TfLiteAsyncSignatureRunnerReconcileRestrictions(
      r, kTfLiteIoTypeInput, "in", sync, sync, NULL));
  expect_error(
      "input 'in' asks for synchronization type 'sync_fence_fd'; "
      "signature 'serve' takes no_sync_obj");
  TfLiteAttributeMapSetStringSyncAttr(
      sync, kTfLiteSynchronizationAttrKeyObjectTypeName,
      LITEGPU_SYNC_TYPE_CL_EVENT);
  assert_int_equal(TfLiteAsyncSignatureRunnerSetAttributes(
                       r, kTfLiteIoTypeOutput, "square", sync),
                   kTfLiteError);
  expect_error(
      "output 'square' asks for synchronization type "
      "'litegpu_cl_event'; signature 'serve' takes no_sync_obj");
  TfLiteAttributeMapSetStringSyncAttr(
      sync, kTfLiteSynchronizationAttrKeyObjectTypeName,
      kTfLiteSyncTypeNoSyncObj);
  assert_int_equal(TfLiteAsyncSignatureRunnerSetAttributesByIndex(r, kX, sync),
                   kTfLiteOk);
  /* SetAttributes asks for PrepareBackends again. */
  assert_null(TfLiteAsyncSignatureRunnerCreateTask(r));
  expect_error("call TfLiteAsyncSignatureRunnerPrepareBackends first");
  assert_int_equal(TfLiteAsyncSignatureRunnerPrepareBackends(r), kTfLiteOk);
  TfLiteExecutionTask* t = TfLiteAsyncSignatureRunnerCreateTask(r);
  assert_non_null(t);
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, t), kTfLiteOk);

  TfLiteAttributeMapDelete(sync);
  TfLiteAttributeMapDelete(user);
  TfLiteAttributeMapDelete(merged);
  TfLiteAttributeMapDelete(conflict);
  close_fixture(&f);
}

/* One task end to end, against hand-derived values and the synchronous
 * signature runner. */
static void test_invoke_matches_sync(void** state) {
  (void)state;
  fixture f;
  open_square(&f);
  TfLiteAsyncSignatureRunner* r = f.runner;
  float in[4] = {1.0f, -2.0f, 0.5f, 3.0f};
  float sum[4] = {0}, square[4] = {0};
  const float want_sum[4] = {2.0f, 0.0f, 3.5f, 7.0f};
  const float want_square[4] = {4.0f, 0.0f, 12.25f, 49.0f};
  const TfLiteBufferHandle hin =
      lg_test_register_host(r, kTfLiteIoTypeInput, in, 16);
  const TfLiteBufferHandle hsum =
      lg_test_register_host(r, kTfLiteIoTypeOutput, sum, 16);
  const TfLiteBufferHandle hsq =
      lg_test_register_host(r, kTfLiteIoTypeOutput, square, 16);
  TfLiteExecutionTask* t = TfLiteAsyncSignatureRunnerCreateTask(r);
  assert_non_null(t);
  lg_test_bind_square_task(t, hin, hsum, hsq);
  assert_int_equal(
      TfLiteExecutionTaskGetBufferByName(t, kTfLiteIoTypeOutput, "square"),
      hsq);
  assert_int_equal(TfLiteExecutionTaskGetBufferByIndex(t, kY), hsum);
  assert_null(TfLiteExecutionTaskGetSyncByIndex(t, kX));
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t), kTfLiteOk);
  assert_int_equal(TfLiteExecutionTaskGetStatus(t), kTfLiteOk);
  expect_floats(sum, want_sum, 4);
  expect_floats(square, want_square, 4);
  /* Waiting again returns the latest status. */
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t), kTfLiteOk);

  /* The same input through the synchronous signature runner. */
  TfLiteSignatureRunner* sync =
      TfLiteInterpreterGetSignatureRunner(f.interpreter, "serve");
  assert_non_null(sync);
  assert_int_equal(TfLiteSignatureRunnerAllocateTensors(sync), kTfLiteOk);
  assert_int_equal(
      TfLiteTensorCopyFromBuffer(
          TfLiteSignatureRunnerGetInputTensor(sync, "in"), in, sizeof(in)),
      kTfLiteOk);
  assert_int_equal(TfLiteSignatureRunnerInvoke(sync), kTfLiteOk);
  expect_floats(
      TfLiteTensorData(TfLiteSignatureRunnerGetOutputTensor(sync, "square")),
      square, 4);
  TfLiteSignatureRunnerDelete(sync);

  /* The task runs again with new input data in the same buffer. */
  in[1] = 2.0f;
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t), kTfLiteOk);
  assert_true(sum[1] == 4.0f && square[1] == 16.0f);
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, t), kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerUnregisterBuffer(r, hin),
                   kTfLiteOk);
  close_fixture(&f); /* hsum and hsq still registered: Delete frees them */
}

/* Two tasks in flight, their outputs slices of one pool. */
static void test_two_in_flight(void** state) {
  (void)state;
  fixture f;
  open_square(&f);
  TfLiteAsyncSignatureRunner* r = f.runner;
  float in_a[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  float in_b[4] = {-1.0f, -2.0f, -3.0f, -4.0f};
  float pool[16]; /* a.sum, a.square, b.sum, b.square */
  memset(pool, 0xff, sizeof(pool));
  const TfLiteBufferHandle ha =
      lg_test_register_host(r, kTfLiteIoTypeInput, in_a, 16);
  const TfLiteBufferHandle hb =
      lg_test_register_host(r, kTfLiteIoTypeInput, in_b, 16);
  const TfLiteBufferHandle hp =
      lg_test_register_host(r, kTfLiteIoTypeOutput, pool, sizeof(pool));
  TfLiteBufferHandle s[4];
  for (int i = 0; i < 4; ++i) {
    s[i] = register_slice(r, hp, 16 * (size_t)i, 16, kTfLiteOk);
  }
  TfLiteExecutionTask* a = TfLiteAsyncSignatureRunnerCreateTask(r);
  TfLiteExecutionTask* b = TfLiteAsyncSignatureRunnerCreateTask(r);
  assert_non_null(a);
  assert_non_null(b);
  lg_test_bind_square_task(a, ha, s[0], s[1]);
  lg_test_bind_square_task(b, hb, s[2], s[3]);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, a), kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, b), kTfLiteOk);
  /* Waiting for the second first is fine. */
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, b), kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, a), kTfLiteOk);
  const float want[16] = {1, 2, 3, 4, 1, 4, 9, 16, 0, 0, 0, 0, 0, 0, 0, 0};
  expect_floats(pool, want, 16);

  /* Slices go before their pool. */
  assert_int_equal(TfLiteAsyncSignatureRunnerUnregisterBuffer(r, hp),
                   kTfLiteError);
  expect_error("still has 4 registered slice(s)");
  for (int i = 0; i < 4; ++i) {
    assert_int_equal(TfLiteAsyncSignatureRunnerUnregisterBuffer(r, s[i]),
                     kTfLiteOk);
  }
  assert_int_equal(TfLiteAsyncSignatureRunnerUnregisterBuffer(r, hp),
                   kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerUnregisterBuffer(r, hp),
                   kTfLiteError);
  expect_error("buffer handle");
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, a), kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, b), kTfLiteOk);
  close_fixture(&f);
}

/* Two runners of one signature, each with a task in flight: their workers
 * take turns on the shared subgraph. */
static void test_two_runners(void** state) {
  (void)state;
  fixture f;
  open_square(&f);
  TfLiteAsyncSignatureRunner* runners[2] = {
      f.runner,
      TfLiteInterpreterGetAsyncSignatureRunner(f.interpreter, "serve")};
  assert_non_null(runners[1]);
  assert_int_equal(TfLiteAsyncSignatureRunnerPrepareBackends(runners[1]),
                   kTfLiteOk);
  float in[2][4] = {{1, 1, 1, 1}, {2, 2, 2, 2}};
  float out[2][8];
  TfLiteExecutionTask* tasks[2];
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 2; ++i) {
      TfLiteAsyncSignatureRunner* r = runners[i];
      if (round == 0) {
        tasks[i] = TfLiteAsyncSignatureRunnerCreateTask(r);
        assert_non_null(tasks[i]);
        lg_test_bind_square_task(
            tasks[i], lg_test_register_host(r, kTfLiteIoTypeInput, in[i], 16),
            lg_test_register_host(r, kTfLiteIoTypeOutput, out[i], 16),
            lg_test_register_host(r, kTfLiteIoTypeOutput, out[i] + 4, 16));
      }
      memset(out[i], 0, sizeof(out[i]));
      assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, tasks[i]),
                       kTfLiteOk);
    }
    for (int i = 0; i < 2; ++i) {
      assert_int_equal(TfLiteAsyncSignatureRunnerWait(runners[i], tasks[i]),
                       kTfLiteOk);
    }
    const float want[2][8] = {{2, 3, 4, 5, 4, 9, 16, 25},
                              {3, 4, 5, 6, 9, 16, 25, 36}};
    expect_floats(out[0], want[0], 8);
    expect_floats(out[1], want[1], 8);
  }
  TfLiteAsyncSignatureRunnerDelete(runners[1]); /* with its task */
  close_fixture(&f);
}

static void test_binding_errors(void** state) {
  (void)state;
  fixture f;
  open_square(&f);
  TfLiteAsyncSignatureRunner* r = f.runner;
  float in[4] = {0}, out[8] = {0}, small[2] = {0};
  const TfLiteBufferHandle hin =
      lg_test_register_host(r, kTfLiteIoTypeInput, in, 16);
  const TfLiteBufferHandle hout =
      lg_test_register_host(r, kTfLiteIoTypeOutput, out, 32);
  const TfLiteBufferHandle hsmall =
      lg_test_register_host(r, kTfLiteIoTypeOutput, small, 8);
  TfLiteExecutionTask* t = TfLiteAsyncSignatureRunnerCreateTask(r);
  assert_non_null(t);

  /* Wait before any InvokeAsync. */
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t), kTfLiteError);
  expect_error("the task was never scheduled");

  assert_int_equal(
      TfLiteExecutionTaskSetBuffer(t, kTfLiteIoTypeInput, "sum", hin),
      kTfLiteError);
  expect_error("signature 'serve' has no input named 'sum'");
  assert_int_equal(TfLiteExecutionTaskSetBuffer(t, 7, "in", hin), kTfLiteError);
  expect_error("io_type 7");
  assert_int_equal(
      TfLiteExecutionTaskGetBufferByName(t, kTfLiteIoTypeInput, "in"),
      kTfLiteNullBufferHandle);

  /* Unbound output. */
  assert_int_equal(
      TfLiteExecutionTaskSetBuffer(t, kTfLiteIoTypeInput, "in", hin),
      kTfLiteOk);
  assert_int_equal(
      TfLiteExecutionTaskSetBuffer(t, kTfLiteIoTypeOutput, "sum", hout),
      kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteError);
  expect_error("output 'square' has no registered buffer (handle -1)");
  /* A handle never registered. */
  assert_int_equal(
      TfLiteExecutionTaskSetBuffer(t, kTfLiteIoTypeOutput, "square", 99),
      kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteError);
  expect_error("output 'square' has no registered buffer (handle 99)");
  /* A buffer smaller than the tensor. */
  lg_test_bind_square_task(t, hin, hout, hsmall);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteError);
  expect_error("output 'square' needs 16 bytes");
  /* A sync object litegpu cannot wait on. */
  lg_test_bind_square_task(t, hin, hout, hout);
  int fence = 3;
  TfLiteSynchronization* sync = TfLiteSynchronizationCreate();
  TfLiteSynchronizationSetPtr(sync, &fence);
  assert_int_equal(
      TfLiteExecutionTaskSetSync(t, kTfLiteIoTypeInput, "in", sync), kTfLiteOk);
  assert_ptr_equal(
      TfLiteExecutionTaskGetSyncByName(t, kTfLiteIoTypeInput, "in"), sync);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteError);
  expect_error(
      "input 'in' carries a synchronization object, but its "
      "synchronization type is no_sync_obj");
  assert_int_equal(
      TfLiteExecutionTaskSetSync(t, kTfLiteIoTypeInput, "in", NULL), kTfLiteOk);
  TfLiteSynchronizationDelete(sync);
  /* The task never ran: Wait is still an error. */
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t), kTfLiteError);
  expect_error("never scheduled");

  /* Registration errors. */
  TfLiteBackendBuffer* buf = TfLiteBackendBufferCreate();
  TfLiteBackendBufferSetPtr(buf, in);
  TfLiteAttributeMap* a = TfLiteAttributeMapCreate(kTfLiteAttrMapTypeBuffer);
  TfLiteBufferHandle h;
  assert_int_equal(TfLiteAsyncSignatureRunnerRegisterBuffer(
                       r, kTfLiteIoTypeInput, buf, a, &h),
                   kTfLiteError);
  expect_error(
      "must name a resource type of signature 'serve' "
      "(host_memory; got 'none')");
  TfLiteAttributeMapSetStringBufferAttr(a, kTfLiteBufferAttrKeyResourceTypeName,
                                        LITEGPU_BUFFER_TYPE_HOST_MEMORY);
  assert_int_equal(TfLiteAsyncSignatureRunnerRegisterBuffer(
                       r, kTfLiteIoTypeInput, buf, a, &h),
                   kTfLiteError);
  expect_error("must give its size");
  TfLiteAttributeMapDelete(a);
  TfLiteBackendBufferDelete(buf);
  register_slice(r, hout, 16, 17, kTfLiteError);
  expect_error("the slice [16, 16 + 17) exceeds buffer");
  const TfLiteBufferHandle slice = register_slice(r, hout, 16, 16, kTfLiteOk);
  register_slice(r, slice, 0, 4, kTfLiteError);
  expect_error("is a slice");
  register_slice(r, 1234, 0, 4, kTfLiteError);
  expect_error("buffer handle 1234 is not registered");

  /* A task of another runner. */
  TfLiteAsyncSignatureRunner* other =
      TfLiteInterpreterGetAsyncSignatureRunner(f.interpreter, "serve");
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(other, t),
                   kTfLiteError);
  expect_error("the task belongs to another runner");
  TfLiteAsyncSignatureRunnerDelete(other);
  /* The task is not finished and the buffers stay registered: Delete
   * releases them (the leak check covers it). */
  close_fixture(&f);
}

typedef struct waiter {
  TfLiteAsyncSignatureRunner* runner;
  TfLiteExecutionTask* task;
  TfLiteStatus status;
} waiter;

static void* wait_on_task(void* arg) {
  waiter* w = arg;
  w->status = TfLiteAsyncSignatureRunnerWait(w->runner, w->task);
  return NULL;
}

/* A task held in flight by the gate: the in-flight errors, Wait from two
 * threads, then a failing execution's status. */
static void test_in_flight_errors(void** state) {
  (void)state;
  fixture f;
  open_gate(&f);
  TfLiteAsyncSignatureRunner* r = f.runner;
  float in[2] = {5.0f, -6.0f}, out[2] = {0};
  const TfLiteBufferHandle hin =
      lg_test_register_host(r, kTfLiteIoTypeInput, in, 8);
  const TfLiteBufferHandle hout =
      lg_test_register_host(r, kTfLiteIoTypeOutput, out, 8);
  TfLiteExecutionTask* t = gate_task(r, hin, hout);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteOk);

  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteError);
  expect_error("the task is already in flight");
  assert_int_equal(
      TfLiteExecutionTaskSetBuffer(t, kTfLiteIoTypeInput, "in", hout),
      kTfLiteError);
  expect_error("the task is in flight; Wait for it first");
  assert_int_equal(TfLiteAsyncSignatureRunnerUnregisterBuffer(r, hin),
                   kTfLiteError);
  expect_error("buffer 0 is used by a task in flight");
  assert_int_equal(TfLiteAsyncSignatureRunnerPrepareBackends(r), kTfLiteError);
  expect_error("1 async task(s) of the interpreter are in flight");
  /* The interpreter's own entry points refuse too. */
  assert_int_equal(TfLiteInterpreterInvoke(f.interpreter), kTfLiteError);
  expect_error("TfLiteInterpreterInvoke: 1 async task(s)");
  assert_int_equal(TfLiteInterpreterAllocateTensors(f.interpreter),
                   kTfLiteError);
  expect_error("TfLiteInterpreterAllocateTensors: 1 async task(s)");
  const int dims[] = {3};
  assert_int_equal(
      TfLiteInterpreterResizeInputTensor(f.interpreter, 0, dims, 1),
      kTfLiteError);
  expect_error("TfLiteInterpreterResizeInputTensor: 1 async task(s)");
  TfLiteSignatureRunner* sync =
      TfLiteInterpreterGetSignatureRunner(f.interpreter, "gate");
  assert_int_equal(TfLiteSignatureRunnerInvoke(sync), kTfLiteError);
  expect_error("TfLiteSignatureRunnerInvoke: 1 async task(s)");
  TfLiteSignatureRunnerDelete(sync);
  waiter other = {r, t, kTfLiteError};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, wait_on_task, &other), 0);
  atomic_store(&g_gate_open, true);
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t), kTfLiteOk);
  pthread_join(thread, NULL);
  assert_int_equal(other.status, kTfLiteOk);
  assert_true(out[0] == 5.0f && out[1] == -6.0f);

  /* A failing execution: Wait and the task's status say so. */
  atomic_store(&g_gate_fail, true);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t), kTfLiteError);
  assert_int_equal(TfLiteExecutionTaskGetStatus(t), kTfLiteError);
  expect_error("GATE: failing as asked");
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, t), kTfLiteError);
  close_fixture(&f);
}

static void* open_gate_later(void* arg) {
  (void)arg;
  const struct timespec wait = {0, 20 * 1000000};
  nanosleep(&wait, NULL);
  atomic_store(&g_gate_open, true);
  return NULL;
}

/* Deleting the runner with a task in flight waits for it. */
static void test_delete_waits(void** state) {
  (void)state;
  fixture f;
  open_gate(&f);
  TfLiteAsyncSignatureRunner* r = f.runner;
  float in[2] = {1.0f, 2.0f}, out[2] = {0};
  TfLiteExecutionTask* t = TfLiteAsyncSignatureRunnerCreateTask(r);
  assert_non_null(t);
  assert_int_equal(TfLiteExecutionTaskSetBuffer(
                       t, kTfLiteIoTypeInput, "in",
                       lg_test_register_host(r, kTfLiteIoTypeInput, in, 8)),
                   kTfLiteOk);
  assert_int_equal(TfLiteExecutionTaskSetBuffer(
                       t, kTfLiteIoTypeOutput, "out",
                       lg_test_register_host(r, kTfLiteIoTypeOutput, out, 8)),
                   kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteOk);
  pthread_t opener;
  assert_int_equal(pthread_create(&opener, NULL, open_gate_later, NULL), 0);
  close_fixture(&f); /* returns once the task has run */
  pthread_join(opener, NULL);
  assert_int_equal(atomic_load(&g_gate_entered), 1);
  assert_true(out[0] == 1.0f && out[1] == 2.0f);
}

/* A custom operator whose node is the whole signature runs through its own
 * async kernel, every callback of which the runner calls. */
static void test_custom_op_async_kernel(void** state) {
  (void)state;
  make_gate_async_kernel();
  g_gate_with_async = true;
  fixture f;
  open_gate(&f); /* PrepareBackends */
  g_gate_with_async = false;
  TfLiteAsyncSignatureRunner* r = f.runner;
  assert_int_equal(g_async.prepared, 1);

  const char* const* types = NULL;
  size_t n = 0;
  assert_int_equal(TfLiteAsyncSignatureRunnerGetSupportedBufferTypes(
                       r, kTfLiteIoTypeInput, &types, &n),
                   kTfLiteOk);
  assert_int_equal(n, 2);
  assert_string_equal(types[1], "gate_blob");

  /* Reconciliation and attributes are the kernel's. */
  TfLiteAttributeMap* user = TfLiteAttributeMapCreate(kTfLiteAttrMapTypeBuffer);
  TfLiteAttributeMap* merged =
      TfLiteAttributeMapCreate(kTfLiteAttrMapTypeBuffer);
  TfLiteAttributeMapSetStringBufferAttr(
      user, kTfLiteBufferAttrKeyResourceTypeName, "gate_blob");
  assert_true(TfLiteAsyncSignatureRunnerReconcileRestrictions(
      r, kTfLiteIoTypeInput, "in", user, merged, NULL));
  assert_false(TfLiteAsyncSignatureRunnerReconcileRestrictions(
      r, kTfLiteIoTypeOutput, "out", user, merged, NULL));
  expect_error(
      "the async kernel reports a conflict in the attributes of "
      "'out'");
  assert_int_equal(g_async.reconciled, 2);
  assert_int_equal(TfLiteAsyncSignatureRunnerSetAttributes(
                       r, kTfLiteIoTypeInput, "in", user),
                   kTfLiteOk);
  assert_int_equal(g_async.attributes, 1);
  assert_int_equal(TfLiteAsyncSignatureRunnerPrepareBackends(r), kTfLiteOk);
  assert_int_equal(g_async.prepared, 2);
  TfLiteAttributeMapDelete(user);
  TfLiteAttributeMapDelete(merged);

  /* Buffers: registered with the kernel too, under the runner's handle. */
  float in[2] = {1.5f, -2.0f};
  float out[4] = {-7.0f, -7.0f, -7.0f, -7.0f};
  const TfLiteBufferHandle hin =
      lg_test_register_host(r, kTfLiteIoTypeInput, in, sizeof(in));
  assert_int_equal(g_async.last_handle, hin);
  const TfLiteBufferHandle hpool =
      lg_test_register_host(r, kTfLiteIoTypeOutput, out, sizeof(out));
  assert_int_equal(g_async.registered, 2);
  const TfLiteBufferHandle hout =
      register_slice(r, hpool, 2 * sizeof(float), 2 * sizeof(float), kTfLiteOk);
  assert_int_equal(g_async.slices, 1);
  g_async.refuse_buffers = true;
  TfLiteBackendBuffer* buf = TfLiteBackendBufferCreate();
  TfLiteBackendBufferSetPtr(buf, in);
  TfLiteAttributeMap* a = TfLiteAttributeMapCreate(kTfLiteAttrMapTypeBuffer);
  TfLiteAttributeMapSetStringBufferAttr(a, kTfLiteBufferAttrKeyResourceTypeName,
                                        "host_memory");
  TfLiteAttributeMapSetSizeTBufferAttr(a, kTfLiteBufferAttrKeySize, 8);
  TfLiteBufferHandle refused = 0;
  assert_int_equal(TfLiteAsyncSignatureRunnerRegisterBuffer(
                       r, kTfLiteIoTypeInput, buf, a, &refused),
                   kTfLiteError);
  expect_error("the async kernel refused the buffer");
  assert_int_equal(refused, kTfLiteNullBufferHandle);
  g_async.refuse_buffers = false;
  TfLiteAttributeMapDelete(a);
  TfLiteBackendBufferDelete(buf);

  /* Eval keeps the buffers, wait writes twice the input: not GATE's
   * Invoke, which never ran. */
  TfLiteExecutionTask* t = gate_task(r, hin, hout);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteOk);
  assert_true(out[2] == -7.0f && out[3] == -7.0f);
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t), kTfLiteOk);
  const float want[4] = {-7.0f, -7.0f, 3.0f, -4.0f};
  expect_floats(out, want, 4);
  assert_int_equal(atomic_load(&g_gate_entered), 0);
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, t), kTfLiteOk);
  assert_int_equal(g_async.finished, 1);
  assert_int_equal(TfLiteAsyncSignatureRunnerUnregisterBuffer(r, hout),
                   kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerUnregisterBuffer(r, hin),
                   kTfLiteOk);
  assert_int_equal(g_async.unregistered, 2);
  close_fixture(&f);
  TfLiteAsyncKernelDelete(g_async.kernel);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names_and_types),
      cmocka_unit_test(test_attribute_maps),
      cmocka_unit_test(test_reconcile),
      cmocka_unit_test(test_invoke_matches_sync),
      cmocka_unit_test(test_two_in_flight),
      cmocka_unit_test(test_two_runners),
      cmocka_unit_test(test_binding_errors),
      cmocka_unit_test(test_in_flight_errors),
      cmocka_unit_test(test_delete_waits),
      cmocka_unit_test(test_custom_op_async_kernel),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
