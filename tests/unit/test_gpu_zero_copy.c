/* Zero-copy I/O of the GPU delegate (include/litegpu/gpu_delegate.h,
 * "Zero-copy I/O"), on OpenCL (PoCL here) and Vulkan (lavapipe):
 *
 *   - two models chained on one device: A = (x + c1) * c2 writes buffer
 *     `mid`, B = mid * c3 + c4 reads it; with every boundary tensor bound,
 *     neither delegate copies a byte per Invoke, and B's output buffer
 *     holds the hand-derived ((x + c1) * c2) * c3 + c4;
 *   - a bound partition output that a CPU node also reads reaches it
 *     through CopyFromBufferHandle (equal to a CPU-only run);
 *   - the refusals: a tensor inside a partition, too small a buffer, the
 *     other backend's binding, a buffer of another device, a delegate not
 *     applied yet, an input a CPU node writes, a share_device_with of the
 *     other backend;
 *   - the delegate fallback after a failed Invoke computes from the bound
 *     input's contents;
 *   - a bound input across resizes: bound to the program lowered at the
 *     new shape (nothing uploaded), and a buffer too small for a new shape
 *     failing AllocateTensors with a message naming the tensor.
 *
 * A backend without a device skips its tests with the reason (cmocka
 * reports them as skipped, not passed). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "delegates/opencl/opencl_internal.h"
#include "litegpu/gpu_delegate.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tests/support/spec_model.h"
#include "tests/support/test_interpreter.h"
#include "tests/support/vulkan_hold.h"

#define N 64 /* elements of every activation */

typedef struct built_model {
  void* data; /* the model's bytes, freed after the model */
  TfLiteModel* model;
} built_model;

static void finish_model(lg_model_writer* w, built_model* m) {
  m->model = lg_test_model_from_writer(w, &m->data);
  assert_non_null(m->model);
}

static void free_model(built_model* m) {
  TfLiteModelDelete(m->model);
  free(m->data);
}

static int32_t activation(lg_model_writer* w, const char* name, int n) {
  const int32_t shape[2] = {1, n};
  lg_writer_tensor t = {
      .name = name, .type = kTfLiteFloat32, .shape = shape, .num_dims = 2};
  return lg_model_writer_add_tensor(w, &t);
}

static int32_t constant(lg_model_writer* w, const char* name, const float* v,
                        int n) {
  const int32_t shape[1] = {n};
  return lg_model_writer_add_const_tensor(w, name, kTfLiteFloat32, shape, 1, v,
                                          sizeof(float) * (size_t)n);
}

/* The constants: c[k][i] = small values, none zero. */
static float c_value(int k, int i) {
  return (float)((i * 7 + k * 3) % 11 - 5) * 0.25f + (k == 1 ? 0.0f : 0.125f);
}

/* y = (x `first` ca) `second` cb over [1, N]: two GPU nodes. */
static void build_pair(built_model* m, int32_t first, int32_t second, int ka,
                       int kb) {
  float ca[N], cb[N];
  for (int i = 0; i < N; ++i) {
    ca[i] = c_value(ka, i);
    cb[i] = c_value(kb, i);
  }
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t a = constant(w, "ca", ca, N), b = constant(w, "cb", cb, N);
  const int32_t x = activation(w, "x", N), t = activation(w, "t", N);
  const int32_t y = activation(w, "y", N);
  assert_true(lg_model_writer_add_operator(w, first, 1, (int32_t[]){x, a}, 2,
                                           &t, 1, NULL) >= 0);
  assert_true(lg_model_writer_add_operator(w, second, 1, (int32_t[]){t, b}, 2,
                                           &y, 1, NULL) >= 0);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  finish_model(w, m);
}

/* The delegate of `backend`, or NULL with the reason printed (the caller
 * skips). */
static TfLiteDelegate* make_delegate(litegpu_gpu_backend backend,
                                     const TfLiteDelegate* share) {
  litegpu_gpu_delegate_options o = litegpu_gpu_delegate_options_default();
  o.backend = backend;
  o.share_device_with = share;
  char why[2048] = "";
  TfLiteDelegate* d = litegpu_gpu_delegate_create(&o, why, sizeof(why));
  if (d == NULL) printf("no device: %s\n", why);
  return d;
}

static TfLiteInterpreter* make_interpreter(TfLiteModel* model,
                                           TfLiteDelegate* d) {
  TfLiteInterpreter* ip = lg_test_interpreter(model, d, false);
  assert_non_null(ip);
  return ip;
}

static void fill(float* x, int n, int round) {
  for (int i = 0; i < n; ++i) x[i] = (float)((i * 5 + round * 3) % 17) - 8.5f;
}

static void expect_close(const float* want, const float* got, int n) {
  for (int i = 0; i < n; ++i) {
    if (!(fabsf(want[i] - got[i]) <= 1e-5f * fmaxf(1.0f, fabsf(want[i])))) {
      fail_msg("element %d: want %.9g got %.9g", i, (double)want[i],
               (double)got[i]);
    }
  }
}

static void expect_error(TfLiteDelegate* d, TfLiteStatus status,
                         const char* needle) {
  assert_int_equal(status, kTfLiteError);
  const char* why = litegpu_gpu_delegate_last_error(d);
  if (strstr(why, needle) == NULL) {
    fail_msg("expected \"%s\" in \"%s\"", needle, why);
  }
}

/* No upload or download by the last Invoke, and `handle_bytes` copied
 * through buffer handles since the delegate was made. */
static void expect_no_copies(const TfLiteDelegate* d, size_t handle_bytes) {
  litegpu_gpu_delegate_stats s;
  assert_int_equal(litegpu_gpu_delegate_get_stats(d, &s), kTfLiteOk);
  assert_int_equal(s.partitions, 1);
  assert_int_equal(s.nodes_delegated, 2);
  assert_int_equal(s.bytes_uploaded, 0);
  assert_int_equal(s.bytes_downloaded, 0);
  assert_int_equal(s.bytes_copied_by_handles, handle_bytes);
}

/* The chain on one backend, then the refusals on its delegates. */
static void run_chain(litegpu_gpu_backend backend) {
  TfLiteDelegate* da = make_delegate(backend, NULL);
  if (da == NULL) skip();
  TfLiteDelegate* db = make_delegate(backend, da);
  assert_non_null(db);
  built_model ma, mb;
  build_pair(&ma, kTfLiteBuiltinAdd, kTfLiteBuiltinMul, 1, 2);
  build_pair(&mb, kTfLiteBuiltinMul, kTfLiteBuiltinAdd, 3, 4);
  TfLiteInterpreter* ia = make_interpreter(ma.model, da);
  TfLiteInterpreter* ib = make_interpreter(mb.model, db);
  const size_t bytes = sizeof(float) * N;
  /* A's input through the API's own binding: a whole cl_mem, or on Vulkan
   * a range IN_AT bytes into a VkBuffer (every offset alignment divides
   * 256). */
  const bool cl = backend == LITEGPU_GPU_BACKEND_OPENCL;
  const size_t in_at = cl ? 0 : 256;
  litegpu_gpu_buffer* in =
      litegpu_gpu_delegate_create_buffer(da, in_at + bytes);
  litegpu_gpu_buffer* mid = litegpu_gpu_delegate_create_buffer(da, bytes);
  litegpu_gpu_buffer* out = litegpu_gpu_delegate_create_buffer(db, bytes);
  assert_non_null(in);
  assert_non_null(mid);
  assert_non_null(out);
  assert_int_equal(litegpu_gpu_buffer_size(in), in_at + bytes);
  assert_true(litegpu_gpu_buffer_handle(in) != 0);
  const int a_in = TfLiteInterpreterGetInputTensorIndex(ia, 0);
  const int a_out = TfLiteInterpreterGetOutputTensorIndex(ia, 0);
  const int b_in = TfLiteInterpreterGetInputTensorIndex(ib, 0);
  const int b_out = TfLiteInterpreterGetOutputTensorIndex(ib, 0);
  const uint64_t in_handle = litegpu_gpu_buffer_handle(in);
  if (cl) {
    assert_int_equal(TfLiteGpuDelegateBindBufferToTensor(
                         da, (struct _cl_mem*)(uintptr_t)in_handle, a_in),
                     kTfLiteOk);
  } else {
    assert_int_equal(litegpu_gpu_delegate_bind_vulkan_buffer(
                         da, in_handle, in_at, bytes, a_in),
                     kTfLiteOk);
  }
  assert_int_equal(litegpu_gpu_delegate_bind_buffer(da, mid, a_out), kTfLiteOk);
  assert_int_equal(litegpu_gpu_delegate_bind_buffer(db, mid, b_in), kTfLiteOk);
  assert_int_equal(litegpu_gpu_delegate_bind_buffer(db, out, b_out), kTfLiteOk);
  /* The handles as TFLite's C API shows them. */
  TfLiteBufferHandle handle = kTfLiteNullBufferHandle;
  TfLiteOpaqueDelegate* owner = NULL;
  assert_int_equal(TfLiteInterpreterGetBufferHandle(ia, a_in, &handle, &owner),
                   kTfLiteOk);
  assert_ptr_equal(owner, da);
  assert_true(handle >= 0);
  TfLiteTensor* a_x = TfLiteInterpreterGetInputTensor(ia, 0);
  assert_int_equal(TfLiteInterpreterSetBufferHandle(ia, a_x, handle, db),
                   kTfLiteError); /* another delegate's handle */
  assert_int_equal(TfLiteInterpreterSetBufferHandle(ia, a_x, handle, da),
                   kTfLiteOk); /* the same: kept */
  TfLiteTensor stray;
  memset(&stray, 0, sizeof(stray));
  assert_int_equal(TfLiteInterpreterSetBufferHandle(ia, &stray, handle, da),
                   kTfLiteError);
  float x[N], want[N], got[N];
  /* By default the runtime copies a bound graph output back after Invoke
   * (CopyFromBufferHandle), and the stats count it. */
  fill(x, N, 5);
  for (int i = 0; i < N; ++i) want[i] = (x[i] + c_value(1, i)) * c_value(2, i);
  assert_int_equal(litegpu_gpu_buffer_write(in, in_at, x, bytes), kTfLiteOk);
  assert_int_equal(TfLiteInterpreterInvoke(ia), kTfLiteOk);
  expect_close(want, TfLiteTensorData(TfLiteInterpreterGetOutputTensor(ia, 0)),
               N);
  litegpu_gpu_delegate_stats s;
  assert_int_equal(litegpu_gpu_delegate_get_stats(da, &s), kTfLiteOk);
  assert_int_equal(s.bytes_copied_by_handles, bytes);
  /* CopyToBufferHandle moves a tensor's host data into its buffer (the
   * callback reports through the context only on failure). */
  fill(TfLiteTensorData(a_x), N, 6);
  assert_int_equal(da->CopyToBufferHandle(NULL, da, a_x->buffer_handle, a_x),
                   kTfLiteOk);
  assert_int_equal(litegpu_gpu_buffer_read(in, in_at, got, bytes), kTfLiteOk);
  expect_close(TfLiteTensorData(a_x), got, N);

  TfLiteSetAllowBufferHandleOutput(ia, true);
  TfLiteSetAllowBufferHandleOutput(ib, true);
  for (int round = 0; round < 2; ++round) { /* new data reaches the device */
    fill(x, N, round);
    for (int i = 0; i < N; ++i) {
      want[i] = ((x[i] + c_value(1, i)) * c_value(2, i)) * c_value(3, i) +
                c_value(4, i);
    }
    assert_int_equal(litegpu_gpu_buffer_write(in, in_at, x, bytes), kTfLiteOk);
    assert_int_equal(TfLiteInterpreterInvoke(ia), kTfLiteOk);
    assert_int_equal(TfLiteInterpreterInvoke(ib), kTfLiteOk);
    memset(got, 0, sizeof(got));
    assert_int_equal(litegpu_gpu_buffer_read(out, 0, got, bytes), kTfLiteOk);
    expect_close(want, got, N);
    expect_no_copies(da, 2 * bytes); /* the two copies above */
    expect_no_copies(db, 0);
  }
  /* The host copy of B's output is made on demand only, and counted. */
  const TfLiteTensor* y = TfLiteInterpreterGetOutputTensor(ib, 0);
  assert_int_equal(TfLiteInterpreterEnsureTensorDataIsReadable(ib, b_out),
                   kTfLiteOk);
  expect_close(want, TfLiteTensorData(y), N);
  assert_int_equal(litegpu_gpu_delegate_get_stats(db, &s), kTfLiteOk);
  assert_int_equal(s.bytes_copied_by_handles, bytes);

  /* Refusals. A tensor inside the partition (t, index 3 in build_pair). */
  expect_error(da, litegpu_gpu_delegate_bind_buffer(da, in, 3),
               "tensor 3 is not an input or output of a partition");
  litegpu_gpu_buffer* small = litegpu_gpu_delegate_create_buffer(da, 16);
  assert_non_null(small);
  expect_error(da, litegpu_gpu_delegate_bind_buffer(da, small, a_in),
               "needs a buffer of 256 bytes; the one given has 16");
  if (cl) {
    expect_error(
        da, litegpu_gpu_delegate_bind_vulkan_buffer(da, 1, 0, 4, a_in),
        "a Vulkan buffer cannot be bound: the delegate runs on OpenCL");
    expect_error(da, TfLiteGpuDelegateBindBufferToTensor(da, NULL, a_in),
                 "the cl_mem is NULL");
  } else {
    expect_error(da, TfLiteGpuDelegateBindBufferToTensor(da, NULL, a_in),
                 "an OpenCL buffer cannot be bound: the delegate runs on "
                 "Vulkan");
    expect_error(da,
                 litegpu_gpu_delegate_bind_vulkan_buffer(
                     da, in_handle, in_at + bytes + 4096, bytes, a_in),
                 "is outside the VkBuffer");
    expect_error(
        da,
        litegpu_gpu_delegate_bind_vulkan_buffer(da, in_handle, in_at, 0, a_in),
        "needs a VkBuffer and a size");
  }
  /* A delegate on a device of its own: not applied yet, other device. */
  TfLiteDelegate* lone = make_delegate(backend, NULL);
  assert_non_null(lone);
  litegpu_gpu_buffer* own = litegpu_gpu_delegate_create_buffer(lone, bytes);
  assert_non_null(own);
  expect_error(lone, litegpu_gpu_delegate_bind_buffer(lone, own, a_in),
               "apply it to the interpreter first");
  TfLiteInterpreter* il = make_interpreter(ma.model, lone);
  expect_error(lone, litegpu_gpu_delegate_bind_buffer(lone, in, a_in),
               "made on another device");
  if (cl) { /* a cl_mem of another context */
    const uint64_t foreign = litegpu_gpu_buffer_handle(own);
    expect_error(da,
                 TfLiteGpuDelegateBindBufferToTensor(
                     da, (struct _cl_mem*)(uintptr_t)foreign, a_in),
                 "belongs to another cl_context");
  }
  TfLiteInterpreterDelete(il);
  TfLiteGpuDelegateV2Delete(lone);
  litegpu_gpu_buffer_delete(own);
  /* The other backend cannot share this device. */
  litegpu_gpu_delegate_options o = litegpu_gpu_delegate_options_default();
  o.backend = backend == LITEGPU_GPU_BACKEND_OPENCL
                  ? LITEGPU_GPU_BACKEND_VULKAN
                  : LITEGPU_GPU_BACKEND_OPENCL;
  o.share_device_with = da;
  char why[1024] = "";
  assert_null(litegpu_gpu_delegate_create(&o, why, sizeof(why)));
  assert_non_null(strstr(why, "share_device_with runs on"));

  /* The interpreters go first, then buffers and delegates in any order. */
  TfLiteInterpreterDelete(ia);
  TfLiteInterpreterDelete(ib);
  TfLiteGpuDelegateV2Delete(da);
  litegpu_gpu_buffer_delete(small);
  litegpu_gpu_buffer_delete(in);
  litegpu_gpu_buffer_delete(mid);
  TfLiteGpuDelegateV2Delete(db);
  litegpu_gpu_buffer_delete(out);
  free_model(&ma);
  free_model(&mb);
}

static void test_chain_opencl(void** state) {
  (void)state;
  run_chain(LITEGPU_GPU_BACKEND_OPENCL);
}

static void test_chain_vulkan(void** state) {
  (void)state;
  run_chain(LITEGPU_GPU_BACKEND_VULKAN);
}

/* x -ADD-> t1 -MUL-> t2 -LOG_SOFTMAX-> t3 -MUL-> y over [1, N]: the GPU
 * takes ADD, MUL (and with two partitions the last MUL); LOG_SOFTMAX runs
 * on the CPU. */
static void build_mixed(built_model* m) {
  float c[N];
  for (int i = 0; i < N; ++i) c[i] = c_value(5, i);
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t cst = constant(w, "c", c, N);
  const int32_t x = activation(w, "x", N), t1 = activation(w, "t1", N);
  const int32_t t2 = activation(w, "t2", N), t3 = activation(w, "t3", N);
  const int32_t y = activation(w, "y", N);
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, (int32_t[]){x, cst}, 2,
                               &t1, 1, NULL);
  lg_model_writer_add_operator(w, kTfLiteBuiltinMul, 1, (int32_t[]){t1, cst}, 2,
                               &t2, 1, NULL);
  lg_model_writer_add_operator(w, kTfLiteBuiltinLogSoftmax, 1, &t2, 1, &t3, 1,
                               NULL);
  lg_model_writer_add_operator(w, kTfLiteBuiltinMul, 1, (int32_t[]){t3, cst}, 2,
                               &y, 1, NULL);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  finish_model(w, m);
}

/* Output 0 of `ip` after an Invoke on input `x`. */
static void invoke(TfLiteInterpreter* ip, const float* x, float* y) {
  TfLiteTensor* in = TfLiteInterpreterGetInputTensor(ip, 0);
  assert_int_equal(TfLiteTensorCopyFromBuffer(in, x, sizeof(float) * N),
                   kTfLiteOk);
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  const TfLiteTensor* out = TfLiteInterpreterGetOutputTensor(ip, 0);
  assert_int_equal(TfLiteTensorCopyToBuffer(out, y, sizeof(float) * N),
                   kTfLiteOk);
}

/* A bound partition output that LOG_SOFTMAX (CPU) reads: the runtime
 * copies it through the buffer handle, and the result is the CPU's. The
 * partition's input is not bound, so it is uploaded as usual. */
static void run_cpu_consumer(litegpu_gpu_backend backend) {
  TfLiteDelegate* d = make_delegate(backend, NULL);
  if (d == NULL) skip();
  built_model m;
  build_mixed(&m);
  float x[N], want[N], got[N];
  fill(x, N, 7);
  TfLiteInterpreter* cpu = make_interpreter(m.model, NULL);
  invoke(cpu, x, want);
  TfLiteInterpreterDelete(cpu);
  TfLiteInterpreter* ip = make_interpreter(m.model, d);
  litegpu_gpu_buffer* t2 =
      litegpu_gpu_delegate_create_buffer(d, sizeof(float) * N);
  assert_non_null(t2);
  assert_int_equal(litegpu_gpu_delegate_bind_buffer(d, t2, 3), kTfLiteOk);
  invoke(ip, x, got);
  expect_close(want, got, N);
  litegpu_gpu_delegate_stats s;
  assert_int_equal(litegpu_gpu_delegate_get_stats(d, &s), kTfLiteOk);
  assert_int_equal(s.bytes_uploaded, sizeof(float) * N);
  assert_int_equal(s.bytes_downloaded, 0);
  assert_int_equal(s.bytes_copied_by_handles, sizeof(float) * N);
  TfLiteInterpreterDelete(ip);
  TfLiteGpuDelegateV2Delete(d);

  /* Two partitions: the second one's input t3 is LOG_SOFTMAX's output. */
  litegpu_gpu_delegate_options o = litegpu_gpu_delegate_options_default();
  o.backend = backend;
  o.tflite.max_delegated_partitions = 2;
  d = litegpu_gpu_delegate_create(&o, NULL, 0);
  assert_non_null(d);
  ip = make_interpreter(m.model, d);
  assert_int_equal(litegpu_gpu_delegate_num_partitions(d), 2);
  litegpu_gpu_buffer* t3 =
      litegpu_gpu_delegate_create_buffer(d, sizeof(float) * N);
  assert_non_null(t3);
  expect_error(d, litegpu_gpu_delegate_bind_buffer(d, t3, 4),
               "tensor 4 is written by a node outside the GPU partition");
  TfLiteInterpreterDelete(ip);
  litegpu_gpu_buffer_delete(t3);
  litegpu_gpu_buffer_delete(t2);
  TfLiteGpuDelegateV2Delete(d);
  free_model(&m);
}

static void test_cpu_consumer_opencl(void** state) {
  (void)state;
  run_cpu_consumer(LITEGPU_GPU_BACKEND_OPENCL);
}

static void test_cpu_consumer_vulkan(void** state) {
  (void)state;
  run_cpu_consumer(LITEGPU_GPU_BACKEND_VULKAN);
}

/* The delegate fallback after a failed Invoke (an injected kernel launch
 * failure) reruns on the CPU from the bound input's contents, not from the
 * input tensor's host data, and leaves the output in tensor->data. */
static void test_fallback_reads_bound_input(void** state) {
  (void)state;
  TfLiteDelegate* d = make_delegate(LITEGPU_GPU_BACKEND_OPENCL, NULL);
  if (d == NULL) skip();
  built_model m;
  build_pair(&m, kTfLiteBuiltinAdd, kTfLiteBuiltinMul, 1, 2);
  TfLiteInterpreter* ip = lg_test_interpreter(m.model, d, true);
  assert_non_null(ip);
  const size_t bytes = sizeof(float) * N;
  litegpu_gpu_buffer* in = litegpu_gpu_delegate_create_buffer(d, bytes);
  litegpu_gpu_buffer* out = litegpu_gpu_delegate_create_buffer(d, bytes);
  assert_non_null(in);
  assert_non_null(out);
  assert_int_equal(litegpu_gpu_delegate_bind_buffer(
                       d, in, TfLiteInterpreterGetInputTensorIndex(ip, 0)),
                   kTfLiteOk);
  assert_int_equal(litegpu_gpu_delegate_bind_buffer(
                       d, out, TfLiteInterpreterGetOutputTensorIndex(ip, 0)),
                   kTfLiteOk);
  float x[N], want[N];
  fill(x, N, 9);
  for (int i = 0; i < N; ++i) want[i] = (x[i] + c_value(1, i)) * c_value(2, i);
  assert_int_equal(litegpu_gpu_buffer_write(in, 0, x, bytes), kTfLiteOk);
  memset(TfLiteTensorData(TfLiteInterpreterGetInputTensor(ip, 0)), 0, bytes);
  lg_opencl_fail_call("clEnqueueNDRangeKernel", 1);
  const TfLiteStatus status = TfLiteInterpreterInvoke(ip);
  const bool fired = lg_opencl_fail_fired();
  lg_opencl_fail_call(NULL, 0);
  assert_true(fired);
  assert_int_equal(status, kTfLiteDelegateError);
  expect_close(want, TfLiteTensorData(TfLiteInterpreterGetOutputTensor(ip, 0)),
               N);
  TfLiteInterpreterDelete(ip);
  litegpu_gpu_buffer_delete(in);
  litegpu_gpu_buffer_delete(out);
  TfLiteGpuDelegateV2Delete(d);
  free_model(&m);
}

/* A bound input buffer across resizes: bound to the program lowered at
 * [2, N] (nothing uploaded, the hand-derived (x + c1) * c2 per row); at
 * [3, N] the 2-row buffer is too small, so AllocateTensors fails naming
 * the tensor, and [2, N] runs again from the same buffer. */
static void resize_with_bound_input(litegpu_gpu_backend backend) {
  TfLiteDelegate* d = make_delegate(backend, NULL);
  if (d == NULL) skip();
  built_model m;
  build_pair(&m, kTfLiteBuiltinAdd, kTfLiteBuiltinMul, 1, 2);
  lg_test_capture errors = {{0}, 0};
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetErrorReporter(o, lg_test_capture_report, &errors);
  TfLiteInterpreterOptionsAddDelegate(o, d);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  TfLiteInterpreterOptionsDelete(o);
  assert_non_null(ip);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  const size_t bytes = 2 * sizeof(float) * N;
  litegpu_gpu_buffer* in = litegpu_gpu_delegate_create_buffer(d, bytes);
  assert_non_null(in);
  assert_int_equal(litegpu_gpu_delegate_bind_buffer(
                       d, in, TfLiteInterpreterGetInputTensorIndex(ip, 0)),
                   kTfLiteOk);
  const int two[2] = {2, N}, three[2] = {3, N};
  float x[2 * N], want[2 * N];
  fill(x, 2 * N, 7);
  for (int i = 0; i < 2 * N; ++i) {
    want[i] = (x[i] + c_value(1, i % N)) * c_value(2, i % N);
  }
  assert_int_equal(litegpu_gpu_buffer_write(in, 0, x, bytes), kTfLiteOk);
  for (int round = 0; round < 2; ++round) {
    assert_int_equal(TfLiteInterpreterResizeInputTensor(ip, 0, two, 2),
                     kTfLiteOk);
    if (TfLiteInterpreterAllocateTensors(ip) != kTfLiteOk) {
      fail_msg("AllocateTensors at [2, %d] failed:\n%s", N, errors.text);
    }
    assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
    const TfLiteTensor* y = TfLiteInterpreterGetOutputTensor(ip, 0);
    assert_int_equal(TfLiteTensorByteSize(y), bytes);
    expect_close(want, TfLiteTensorData(y), 2 * N);
    litegpu_gpu_delegate_stats st;
    assert_int_equal(litegpu_gpu_delegate_get_stats(d, &st), kTfLiteOk);
    assert_int_equal(st.bytes_uploaded, 0);
    assert_int_equal(st.bytes_downloaded, bytes);
    if (round == 1) break;
    errors.length = 0;
    errors.text[0] = '\0';
    assert_int_equal(TfLiteInterpreterResizeInputTensor(ip, 0, three, 2),
                     kTfLiteOk);
    assert_int_not_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
    char expected[160];
    snprintf(expected, sizeof(expected),
             "the buffer bound to tensor 'x' cannot stay bound at the new "
             "input shapes: tensor %d needs a buffer of 768 bytes; the one "
             "given has 512",
             TfLiteInterpreterGetInputTensorIndex(ip, 0));
    if (strstr(errors.text, expected) == NULL) {
      fail_msg("expected \"%s\" in: %s", expected, errors.text);
    }
  }
  TfLiteInterpreterDelete(ip);
  litegpu_gpu_buffer_delete(in);
  TfLiteGpuDelegateV2Delete(d);
  free_model(&m);
}

static void test_resize_with_bound_input_opencl(void** state) {
  (void)state;
  resize_with_bound_input(LITEGPU_GPU_BACKEND_OPENCL);
}

static void test_resize_with_bound_input_vulkan(void** state) {
  (void)state;
  resize_with_bound_input(LITEGPU_GPU_BACKEND_VULKAN);
}

int main(void) {
  lg_test_hold_vulkan_libraries(); /* see tests/support/vulkan_hold.h */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chain_opencl),
      cmocka_unit_test(test_chain_vulkan),
      cmocka_unit_test(test_cpu_consumer_opencl),
      cmocka_unit_test(test_cpu_consumer_vulkan),
      cmocka_unit_test(test_fallback_reads_bound_input),
      cmocka_unit_test(test_resize_with_bound_input_opencl),
      cmocka_unit_test(test_resize_with_bound_input_vulkan),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
