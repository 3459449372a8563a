/* Allocation-failure sweep: every heap allocation the runtime makes while
 * creating an interpreter, allocating its tensors, invoking it and deleting
 * it fails once, in turn; each run must end in an error status (or, where
 * the failed allocation was optional, success) with no crash and no leak.
 *
 * The executable is linked with -Wl,--wrap for malloc, calloc, realloc,
 * aligned_alloc and strdup (tests/CMakeLists.txt), so every call the
 * library's objects make goes through the counters below; cmocka and libc
 * are shared libraries and keep their own allocator. Leaks are found by
 * LeakSanitizer at exit in the asan build; without it the sweep still
 * proves that no failure crashes or is reported as success with wrong
 * outputs.
 *
 * Models: WHILE with cond and body subgraphs; CALL_ONCE with resource
 * variables; a signature on a second subgraph; a CONV_2D and a dynamic
 * tensor (the planner's heap path). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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
#include "tests/support/spec_model.h"

/* ---- The wrapped allocator ---------------------------------------------- */

void* __real_malloc(size_t size);
void* __real_calloc(size_t count, size_t size);
void* __real_realloc(void* ptr, size_t size);
void* __real_aligned_alloc(size_t alignment, size_t size);
char* __real_strdup(const char* s);
void* __wrap_malloc(size_t size);
void* __wrap_calloc(size_t count, size_t size);
void* __wrap_realloc(void* ptr, size_t size);
void* __wrap_aligned_alloc(size_t alignment, size_t size);
char* __wrap_strdup(const char* s);

static long g_calls;   /* allocations counted since the sweep step began */
static long g_fail_at; /* the call that fails (1-based); 0: none */
static bool g_failed;  /* the planned failure happened */

static bool fail_now(void) {
  if (g_fail_at == 0) return false;
  if (++g_calls != g_fail_at) return false;
  g_failed = true;
  return true;
}

void* __wrap_malloc(size_t size) {
  return fail_now() ? NULL : __real_malloc(size);
}

void* __wrap_calloc(size_t count, size_t size) {
  return fail_now() ? NULL : __real_calloc(count, size);
}

void* __wrap_realloc(void* ptr, size_t size) {
  return fail_now() ? NULL : __real_realloc(ptr, size);
}

void* __wrap_aligned_alloc(size_t alignment, size_t size) {
  return fail_now() ? NULL : __real_aligned_alloc(alignment, size);
}

char* __wrap_strdup(const char* s) {
  return fail_now() ? NULL : __real_strdup(s);
}

/* ---- Models -------------------------------------------------------------- */

/* State (i, x); cond: i < 3; body: i + 1, x * 2. From (0, (1, -2)) the
 * outputs are 3 and (8, -16). */
static const char kWhileSpec[] = LG_TEST_WHILE_SPEC;

/* CALL_ONCE assigns (10, 20); each Invoke reads the variable, adds x and
 * assigns the sum back: x = (1, 1) gives (11, 21). A CONV_2D 1x1 with
 * weight 2 and a SHAPE (dynamic path: RESHAPE to the input's own shape)
 * follow. */
static const char kStateSpec[] =
    "tensor x FLOAT32 1,1,1,2\n"
    "tensor h RESOURCE -\n"
    "tensor v FLOAT32 1,1,1,2\n"
    "tensor y FLOAT32 1,1,1,2\n"
    "tensor w FLOAT32 2,1,1,2 values=2,0,0,2\n"
    "tensor b FLOAT32 2 values=0,0\n"
    "tensor c FLOAT32 1,1,1,2\n"
    "tensor s INT32 4\n"
    "tensor r FLOAT32 1,1,1,2\n"
    "op CALL_ONCE 1 in= out= init_subgraph_index=1\n"
    "op VAR_HANDLE 1 in= out=h\n"
    "op READ_VARIABLE 1 in=h out=v\n"
    "op ADD 1 in=v,x out=y\n"
    "op ASSIGN_VARIABLE 1 in=h,y out=\n"
    "op CONV_2D 1 in=y,w,b out=c padding=VALID stride_w=1 stride_h=1\n"
    "op SHAPE 1 in=c out=s out_type=INT32\n"
    "op RESHAPE 1 in=c,s out=r\n"
    "inputs x\n"
    "outputs r\n"
    "subgraph init\n"
    "tensor h RESOURCE -\n"
    "tensor start FLOAT32 1,1,1,2 values=10,20\n"
    "op VAR_HANDLE 1 in= out=h\n"
    "op ASSIGN_VARIABLE 1 in=h,start out=\n"
    "inputs\n"
    "outputs\n";

typedef struct model_bytes {
  void* data;
  size_t size;
} model_bytes;

static model_bytes build(const char* spec, bool with_signature) {
  model_bytes m = {NULL, 0};
  lg_model_writer* w = lg_model_spec_read_text(spec, "spec", NULL, NULL);
  assert_non_null(w);
  if (with_signature) {
    const lg_writer_tensor_map in[] = {{"i", 0}, {"x", 1}};
    const lg_writer_tensor_map out[] = {{"more", 3}};
    assert_true(lg_model_writer_add_signature(w, "test", 1, in, 2, out, 1) >=
                0);
  }
  assert_int_equal(lg_model_writer_finish(w, &m.data, &m.size), kTfLiteOk);
  lg_model_writer_destroy(w);
  return m;
}

static void quiet(void* user_data, const char* format, va_list args) {
  (void)user_data;
  (void)format;
  (void)args;
}

/* ---- One run ------------------------------------------------------------- */

typedef enum outcome { RAN, FAILED } outcome;

static void check_while_outputs(TfLiteInterpreter* ip) {
  const TfLiteTensor* i = TfLiteInterpreterGetOutputTensor(ip, 0);
  const TfLiteTensor* x = TfLiteInterpreterGetOutputTensor(ip, 1);
  assert_int_equal(*(const int32_t*)TfLiteTensorData(i), 3);
  const float* xs = TfLiteTensorData(x);
  assert_true(xs[0] == 8.0f && xs[1] == -16.0f);
}

/* The WHILE model through the interpreter and a signature runner. */
static outcome run_while(const model_bytes* m) {
  TfLiteModel* model =
      TfLiteModelCreateWithErrorReporter(m->data, m->size, quiet, NULL);
  if (model == NULL) return FAILED;
  outcome result = FAILED;
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreter* ip = NULL;
  TfLiteSignatureRunner* runner = NULL;
  if (o == NULL) goto done;
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  TfLiteInterpreterOptionsSetErrorReporter(o, quiet, NULL);
  ip = TfLiteInterpreterCreate(model, o);
  if (ip == NULL || TfLiteInterpreterAllocateTensors(ip) != kTfLiteOk) {
    goto done;
  }
  const int32_t i0 = 0;
  const float x0[2] = {1.0f, -2.0f};
  TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(ip, 0), &i0, 4);
  TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(ip, 1), x0, 8);
  if (TfLiteInterpreterInvoke(ip) != kTfLiteOk) goto done;
  check_while_outputs(ip);
  runner = TfLiteInterpreterGetSignatureRunner(ip, "test");
  if (runner == NULL ||
      TfLiteSignatureRunnerAllocateTensors(runner) != kTfLiteOk) {
    goto done;
  }
  TfLiteTensorCopyFromBuffer(TfLiteSignatureRunnerGetInputTensor(runner, "i"),
                             &i0, 4);
  if (TfLiteSignatureRunnerInvoke(runner) != kTfLiteOk) goto done;
  const TfLiteTensor* more =
      TfLiteSignatureRunnerGetOutputTensor(runner, "more");
  assert_true(*(const bool*)TfLiteTensorData(more));
  result = RAN;
done:
  TfLiteSignatureRunnerDelete(runner);
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(o);
  TfLiteModelDelete(model);
  return result;
}

/* The state model, invoked twice with x = (1, 1): (11, 21) * 2, then
 * (12, 22) * 2. */
static outcome run_state(const model_bytes* m) {
  TfLiteModel* model =
      TfLiteModelCreateWithErrorReporter(m->data, m->size, quiet, NULL);
  if (model == NULL) return FAILED;
  outcome result = FAILED;
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreter* ip = NULL;
  if (o == NULL) goto done;
  TfLiteInterpreterOptionsSetNumThreads(o, 2);
  TfLiteInterpreterOptionsSetErrorReporter(o, quiet, NULL);
  ip = TfLiteInterpreterCreate(model, o);
  if (ip == NULL || TfLiteInterpreterAllocateTensors(ip) != kTfLiteOk) {
    goto done;
  }
  const float x[2] = {1.0f, 1.0f};
  const float want[2][2] = {{22.0f, 42.0f}, {24.0f, 44.0f}};
  for (int run = 0; run < 2; ++run) {
    TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(ip, 0), x, 8);
    if (TfLiteInterpreterInvoke(ip) != kTfLiteOk) goto done;
    const float* r = TfLiteTensorData(TfLiteInterpreterGetOutputTensor(ip, 0));
    assert_true(r[0] == want[run][0] && r[1] == want[run][1]);
  }
  result = RAN;
done:
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(o);
  TfLiteModelDelete(model);
  return result;
}

/* Fails allocation 1, 2, ... of `run` in turn until a run makes fewer
 * allocations than the failing index (every allocation has failed once).
 * A run that still succeeds must have had its failure happen in an
 * allocation the runtime may do without (none of the runs here has one
 * that changes the results, which the run checks). */
static void sweep(outcome (*run)(const model_bytes*), const model_bytes* m) {
  g_fail_at = 0;
  assert_int_equal(run(m), RAN); /* the model runs when nothing fails */
  long failures = 0, recovered = 0;
  for (long k = 1;; ++k) {
    g_calls = 0;
    g_failed = false;
    g_fail_at = k;
    const outcome result = run(m);
    g_fail_at = 0;
    if (!g_failed) break; /* fewer than k allocations: the sweep is done */
    if (result == FAILED) {
      ++failures;
    } else {
      ++recovered;
    }
  }
  print_message(
      "%ld allocations failed in turn: %ld runs failed cleanly, "
      "%ld recovered\n",
      failures + recovered, failures, recovered);
  assert_true(failures > 50); /* the sweep reached the whole run */
}

static void test_while_and_signature_sweep(void** state) {
  (void)state;
  model_bytes m = build(kWhileSpec, true);
  sweep(run_while, &m);
  free(m.data);
}

static void test_state_conv_dynamic_sweep(void** state) {
  (void)state;
  model_bytes m = build(kStateSpec, false);
  sweep(run_state, &m);
  free(m.data);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_while_and_signature_sweep),
      cmocka_unit_test(test_state_conv_dynamic_sweep),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
