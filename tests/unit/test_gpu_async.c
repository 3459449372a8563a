/* The GPU delegate's async kernel through TFLite's async signature runner,
 * on OpenCL (PoCL here) and Vulkan (lavapipe, validation layer on): a
 * fully delegated signature runs its tasks on the caller's thread (no
 * worker thread is started), InvokeAsync returns with the outputs not yet
 * in the task's buffers, Wait brings them, equal to hand-derived values
 * and to a synchronous signature Invoke; two tasks in flight too.
 *
 * A backend without a device is skipped with the reason printed. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "litegpu/gpu_delegate.h"
#include "runtime/writer/model_spec.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/core/async/c/async_signature_runner.h"
#include "tensorflow/lite/core/async/c/task.h"
#include "tests/support/async_host_buffer.h"
#include "tests/support/vulkan_hold.h"

/* Threads of this process (/proc/self/task entries). */
static int thread_count(void) {
  DIR* dir = opendir("/proc/self/task");
  assert_non_null(dir);
  int n = 0;
  for (struct dirent* e = readdir(dir); e != NULL; e = readdir(dir)) {
    if (e->d_name[0] != '.') n++;
  }
  closedir(dir);
  return n;
}

/* A task of `r` bound to in/sum/square buffers of 4 floats each. */
static TfLiteExecutionTask* make_task(TfLiteAsyncSignatureRunner* r, float* in,
                                      float* sum, float* square) {
  TfLiteExecutionTask* t = TfLiteAsyncSignatureRunnerCreateTask(r);
  assert_non_null(t);
  const TfLiteBufferHandle hin =
      lg_test_register_host(r, kTfLiteIoTypeInput, in, 16);
  const TfLiteBufferHandle hsum =
      lg_test_register_host(r, kTfLiteIoTypeOutput, sum, 16);
  const TfLiteBufferHandle hsq =
      lg_test_register_host(r, kTfLiteIoTypeOutput, square, 16);
  lg_test_bind_square_task(t, hin, hsum, hsq);
  return t;
}

static void expect_floats(const float* got, const float* want, int n,
                          const char* what) {
  for (int i = 0; i < n; ++i) {
    if (got[i] != want[i]) {
      fail_msg("%s element %d: got %g, want %g", what, i, (double)got[i],
               (double)want[i]);
    }
  }
}

static void run_backend(litegpu_gpu_backend backend, const char* name) {
  litegpu_gpu_delegate_options o = litegpu_gpu_delegate_options_default();
  o.backend = backend;
  char why[2048] = "";
  TfLiteDelegate* d = litegpu_gpu_delegate_create(&o, why, sizeof(why));
  if (d == NULL) {
    printf("skipping %s: no device: %s\n", name, why);
    skip();
  }
  const lg_writer_tensor_map in_map[] = {{"in", 0}};
  const lg_writer_tensor_map out_map[] = {{"sum", 2}, {"square", 3}};
  lg_model_writer* w =
      lg_model_spec_read_text(lg_test_square_spec, "spec", NULL, NULL);
  assert_non_null(w);
  assert_true(
      lg_model_writer_add_signature(w, "serve", 0, in_map, 1, out_map, 2) >= 0);
  void* bytes = NULL;
  size_t size = 0;
  assert_int_equal(lg_model_writer_finish(w, &bytes, &size), kTfLiteOk);
  lg_model_writer_destroy(w);
  TfLiteModel* model = TfLiteModelCreate(bytes, size);
  assert_non_null(model);
  TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(options, 1);
  TfLiteInterpreterOptionsAddDelegate(options, d);
  TfLiteInterpreter* interpreter = TfLiteInterpreterCreate(model, options);
  assert_non_null(interpreter);

  /* A synchronous Invoke first: the drivers start their threads. */
  float in_a[4] = {1.0f, -2.0f, 0.5f, 3.0f};
  TfLiteSignatureRunner* sync =
      TfLiteInterpreterGetSignatureRunner(interpreter, "serve");
  assert_non_null(sync);
  assert_int_equal(TfLiteSignatureRunnerAllocateTensors(sync), kTfLiteOk);
  assert_int_equal(
      TfLiteTensorCopyFromBuffer(
          TfLiteSignatureRunnerGetInputTensor(sync, "in"), in_a, sizeof(in_a)),
      kTfLiteOk);
  assert_int_equal(TfLiteSignatureRunnerInvoke(sync), kTfLiteOk);
  float sync_square[4];
  assert_int_equal(TfLiteTensorCopyToBuffer(
                       TfLiteSignatureRunnerGetOutputTensor(sync, "square"),
                       sync_square, sizeof(sync_square)),
                   kTfLiteOk);
  TfLiteSignatureRunnerDelete(sync);

  TfLiteAsyncSignatureRunner* r =
      TfLiteInterpreterGetAsyncSignatureRunner(interpreter, "serve");
  assert_non_null(r);
  assert_int_equal(TfLiteAsyncSignatureRunnerPrepareBackends(r), kTfLiteOk);
  const int threads = thread_count();
  float in_b[4] = {-1.0f, -2.0f, -3.0f, -4.0f};
  float sum_a[4], square_a[4], sum_b[4], square_b[4];
  const float sentinel[4] = {-7.0f, -7.0f, -7.0f, -7.0f};
  memcpy(sum_a, sentinel, sizeof(sentinel));
  memcpy(square_a, sentinel, sizeof(sentinel));
  TfLiteExecutionTask* a = make_task(r, in_a, sum_a, square_a);
  TfLiteExecutionTask* b = make_task(r, in_b, sum_b, square_b);

  /* Eval only submits: the task's output buffers are written at Wait. */
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, a), kTfLiteOk);
  expect_floats(square_a, sentinel, 4, "square before Wait");
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, a), kTfLiteOk);
  const float want_sum_a[4] = {2.0f, 0.0f, 3.5f, 7.0f};
  const float want_square_a[4] = {4.0f, 0.0f, 12.25f, 49.0f};
  expect_floats(sum_a, want_sum_a, 4, "sum");
  expect_floats(square_a, want_square_a, 4, "square");
  expect_floats(square_a, sync_square, 4, "square against Invoke");

  /* Two in flight; the second's Eval settles the first. */
  in_a[1] = 2.0f;
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, a), kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, b), kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, b), kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, a), kTfLiteOk);
  assert_true(sum_a[1] == 4.0f && square_a[1] == 16.0f);
  const float want_sum_b[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  const float want_square_b[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  expect_floats(sum_b, want_sum_b, 4, "sum of b");
  expect_floats(square_b, want_square_b, 4, "square of b");
  /* No worker thread: the tasks ran through the delegate's async kernel. */
  assert_int_equal(thread_count(), threads);

  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, a), kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, b), kTfLiteOk);
  TfLiteAsyncSignatureRunnerDelete(r);
  TfLiteInterpreterDelete(interpreter);
  TfLiteInterpreterOptionsDelete(options);
  TfLiteModelDelete(model);
  TfLiteGpuDelegateV2Delete(d);
  free(bytes);
}

static void test_opencl(void** state) {
  (void)state;
  run_backend(LITEGPU_GPU_BACKEND_OPENCL, "OpenCL");
}

static void test_vulkan(void** state) {
  (void)state;
  run_backend(LITEGPU_GPU_BACKEND_VULKAN, "Vulkan");
}

int main(void) {
  lg_test_hold_vulkan_libraries(); /* see tests/support/vulkan_hold.h */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_opencl),
      cmocka_unit_test(test_vulkan),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
