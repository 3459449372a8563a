/* The GPU delegate's async kernel through TFLite's async signature runner,
 * on OpenCL (PoCL here) and Vulkan (lavapipe, validation layer on): a
 * fully delegated signature runs its tasks on the caller's thread (no
 * worker thread is started), InvokeAsync returns with the outputs not yet
 * in the task's buffers, Wait brings them, equal to hand-derived values
 * and to a synchronous signature Invoke; two tasks in flight too. Then
 * the caller's synchronization objects (litegpu/async.h): on OpenCL an
 * input cl_event the device waits for (the input is changed after
 * InvokeAsync, before the event completes) and an output cl_event that
 * signals the output in its buffer before Wait, a second task put on the
 * device while the first waits for its event, and a failed hand-out of
 * the second of two output events taking back the first; on Vulkan an
 * input VkFence, and timeline semaphore points on inputs and outputs bound
 * to the caller's VkBuffers (an unreached input point holds the run, the
 * output point is reached with the values in the buffer before Wait, a
 * second task goes on the device while the first is held), a VkFence on
 * a bound output signalled by the run only once the values are in the
 * buffer (a signalled one refused before the run), and with dispatch
 * profiling on a held run that returns from InvokeAsync at once and
 * completes with the right outputs and one timed run per profile entry;
 * the wrong types refused, naming tensor and type.
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

#include <CL/cl.h>
#include <vulkan/vulkan.h>

#include "base/clock.h"
#include "litegpu/async.h"
#include "litegpu/gpu_delegate.h"
#include "runtime/writer/model_spec.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/core/async/c/async_signature_runner.h"
#include "tensorflow/lite/core/async/c/task.h"
#include "tensorflow/lite/core/async/interop/c/attribute_map.h"
#include "tensorflow/lite/core/async/interop/c/constants.h"
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

/* The last message the interpreter reported (its error reporter). */
static char last_error[1024];
static void keep_error(void* user_data, const char* format, va_list args) {
  (void)user_data;
  vsnprintf(last_error, sizeof(last_error), format, args);
}

static void expect_error(const char* part) {
  if (strstr(last_error, part) == NULL) {
    fail_msg("expected an error containing \"%s\"; got: %s", part, last_error);
  }
}

/* Chooses `type` for the runner's tensor `name` (SetAttributes). */
static TfLiteStatus set_sync_type(TfLiteAsyncSignatureRunner* r,
                                  TfLiteIoType io, const char* name,
                                  const char* type) {
  TfLiteAttributeMap* m = TfLiteAttributeMapCreate(kTfLiteAttrMapTypeSync);
  assert_non_null(m);
  TfLiteAttributeMapSetStringSyncAttr(
      m, kTfLiteSynchronizationAttrKeyObjectTypeName, type);
  const TfLiteStatus status =
      TfLiteAsyncSignatureRunnerSetAttributes(r, io, name, m);
  TfLiteAttributeMapDelete(m);
  return status;
}

/* The runner's supported sync types for `io` are no_sync_obj and, when
 * not NULL, `type` and `type2`. */
static void expect_sync_types(const TfLiteAsyncSignatureRunner* r,
                              TfLiteIoType io, const char* type,
                              const char* type2) {
  const char* const* types = NULL;
  size_t n = 0;
  assert_int_equal(TfLiteAsyncSignatureRunnerGetSupportedSynchronizationTypes(
                       r, io, &types, &n),
                   kTfLiteOk);
  assert_int_equal(n, 1 + (type != NULL) + (type2 != NULL));
  assert_string_equal(types[0], kTfLiteSyncTypeNoSyncObj);
  if (type != NULL) assert_string_equal(types[1], type);
  if (type2 != NULL) assert_string_equal(types[2], type2);
}

/* Sets `sync`'s pointer and gives it to tensor `name` of `t`. */
static void set_ptr(TfLiteExecutionTask* t, TfLiteIoType io, const char* name,
                    TfLiteSynchronization* sync, void* ptr) {
  TfLiteSynchronizationSetPtr(sync, ptr);
  assert_int_equal(TfLiteExecutionTaskSetSync(t, io, name, sync), kTfLiteOk);
}

/* The OpenCL backend's fault injection (delegates/opencl/opencl_internal.h,
 * which cannot be included beside this file's CL/cl.h). */
void lg_opencl_fail_call(const char* call_name, int nth);

/* Both outputs take events; handing out the second ("square") fails
 * (clRetainEvent made to fail): Eval fails naming its tensor, and the event it
 * had already handed out for "sum" is taken back (released, the pointer NULL
 * again). */
static void check_cl_export_failure(TfLiteAsyncSignatureRunner* r) {
  assert_int_equal(
      set_sync_type(r, kTfLiteIoTypeOutput, "sum", LITEGPU_SYNC_TYPE_CL_EVENT),
      kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerPrepareBackends(r), kTfLiteOk);
  float in[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  float sum[4], square[4];
  TfLiteExecutionTask* t = make_task(r, in, sum, square);
  TfLiteSynchronization* sum_sync = TfLiteSynchronizationCreate();
  TfLiteSynchronization* square_sync = TfLiteSynchronizationCreate();
  set_ptr(t, kTfLiteIoTypeOutput, "sum", sum_sync, NULL);
  set_ptr(t, kTfLiteIoTypeOutput, "square", square_sync, NULL);
  lg_opencl_fail_call("clRetainEvent", 2);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteError);
  lg_opencl_fail_call(NULL, 0);
  expect_error("output 'z' (tensor 3)"); /* the model's name of "square" */
  expect_error("clRetainEvent failed");
  assert_null(TfLiteSynchronizationGetPtr(sum_sync));
  assert_null(TfLiteSynchronizationGetPtr(square_sync));
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, t), kTfLiteOk);
  TfLiteSynchronizationDelete(sum_sync);
  TfLiteSynchronizationDelete(square_sync);
}

/* y = x + x in int8: the delegate quantizes its output on the host, so
 * no device event can signal it. */
static const char kQuantSpec[] =
    "tensor x INT8 1,4 quant=0.5:0\n"
    "tensor y INT8 1,4 quant=0.5:0\n"
    "op ADD 1 in=x,x out=y\n"
    "inputs x\n"
    "outputs y\n";

/* OpenCL: an output event on an output converted on the host is refused,
 * naming the tensor and why. */
static void check_cl_event_refused(TfLiteDelegate* d) {
  const lg_writer_tensor_map in_map[] = {{"in", 0}};
  const lg_writer_tensor_map out_map[] = {{"out", 1}};
  lg_model_writer* w = lg_model_spec_read_text(kQuantSpec, "spec", NULL, NULL);
  assert_non_null(w);
  assert_true(lg_model_writer_add_signature(w, "q", 0, in_map, 1, out_map, 1) >=
              0);
  void* bytes = NULL;
  size_t size = 0;
  assert_int_equal(lg_model_writer_finish(w, &bytes, &size), kTfLiteOk);
  lg_model_writer_destroy(w);
  TfLiteModel* model = TfLiteModelCreate(bytes, size);
  TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsAddDelegate(options, d);
  TfLiteInterpreterOptionsSetErrorReporter(options, keep_error, NULL);
  TfLiteInterpreter* interpreter = TfLiteInterpreterCreate(model, options);
  assert_non_null(interpreter);
  TfLiteAsyncSignatureRunner* r =
      TfLiteInterpreterGetAsyncSignatureRunner(interpreter, "q");
  assert_non_null(r);
  assert_int_equal(
      set_sync_type(r, kTfLiteIoTypeOutput, "out", LITEGPU_SYNC_TYPE_CL_EVENT),
      kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerPrepareBackends(r), kTfLiteOk);
  int8_t in[4] = {1, 2, 3, 4}, out[4];
  TfLiteExecutionTask* t = TfLiteAsyncSignatureRunnerCreateTask(r);
  assert_non_null(t);
  assert_int_equal(
      TfLiteExecutionTaskSetBuffer(
          t, kTfLiteIoTypeInput, "in",
          lg_test_register_host(r, kTfLiteIoTypeInput, in, sizeof(in))),
      kTfLiteOk);
  assert_int_equal(
      TfLiteExecutionTaskSetBuffer(
          t, kTfLiteIoTypeOutput, "out",
          lg_test_register_host(r, kTfLiteIoTypeOutput, out, sizeof(out))),
      kTfLiteOk);
  TfLiteSynchronization* out_sync = TfLiteSynchronizationCreate();
  assert_int_equal(
      TfLiteExecutionTaskSetSync(t, kTfLiteIoTypeOutput, "out", out_sync),
      kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteError);
  expect_error(
      "output 'y' (tensor 1) cannot carry a litegpu_cl_event: it is "
      "converted on the host");
  assert_null(TfLiteSynchronizationGetPtr(out_sync));
  /* Without the sync object the task runs: 2x, requantized on the host. */
  assert_int_equal(
      TfLiteExecutionTaskSetSync(t, kTfLiteIoTypeOutput, "out", NULL),
      kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t), kTfLiteOk);
  for (int i = 0; i < 4; ++i) assert_int_equal(out[i], 2 * in[i]);
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, t), kTfLiteOk);
  TfLiteSynchronizationDelete(out_sync);
  TfLiteAsyncSignatureRunnerDelete(r);
  TfLiteInterpreterDelete(interpreter);
  TfLiteInterpreterOptionsDelete(options);
  TfLiteModelDelete(model);
  free(bytes);
}

/* OpenCL: "in" waits for a user event, "square" hands out an event; with
 * dispatch profiling on (each dispatch waited for on the host) an input
 * event is refused, not taken, naming the input. */
static void check_cl_events(TfLiteAsyncSignatureRunner* r, TfLiteDelegate* d,
                            const litegpu_gpu_device_handles* device) {
  expect_sync_types(r, kTfLiteIoTypeInput, LITEGPU_SYNC_TYPE_CL_EVENT, NULL);
  expect_sync_types(r, kTfLiteIoTypeOutput, LITEGPU_SYNC_TYPE_CL_EVENT, NULL);
  assert_int_equal(
      set_sync_type(r, kTfLiteIoTypeInput, "in", LITEGPU_SYNC_TYPE_VK_FENCE),
      kTfLiteError);
  expect_error("input 'in' asks for synchronization type 'litegpu_vk_fence'");
  assert_int_equal(
      set_sync_type(r, kTfLiteIoTypeInput, "in", LITEGPU_SYNC_TYPE_CL_EVENT),
      kTfLiteOk);
  assert_int_equal(set_sync_type(r, kTfLiteIoTypeOutput, "square",
                                 LITEGPU_SYNC_TYPE_CL_EVENT),
                   kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerPrepareBackends(r), kTfLiteOk);

  float in[4] = {9.0f, 9.0f, 9.0f, 9.0f};
  float sum[4], square[4] = {-7.0f, -7.0f, -7.0f, -7.0f};
  TfLiteExecutionTask* t = make_task(r, in, sum, square);
  cl_int err = CL_SUCCESS;
  cl_event ready = clCreateUserEvent((cl_context)device->context, &err);
  assert_int_equal(err, CL_SUCCESS);
  /* InvokeAsync takes over one reference; this test keeps its own. */
  assert_int_equal(clRetainEvent(ready), CL_SUCCESS);
  TfLiteSynchronization* in_sync = TfLiteSynchronizationCreate();
  TfLiteSynchronization* out_sync = TfLiteSynchronizationCreate();
  TfLiteSynchronizationSetPtr(in_sync, ready);
  assert_int_equal(
      TfLiteExecutionTaskSetSync(t, kTfLiteIoTypeInput, "in", in_sync),
      kTfLiteOk);
  assert_int_equal(
      TfLiteExecutionTaskSetSync(t, kTfLiteIoTypeOutput, "square", out_sync),
      kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteOk);
  assert_null(TfLiteSynchronizationGetPtr(in_sync)); /* consumed */
  cl_event done = TfLiteSynchronizationGetPtr(out_sync);
  assert_non_null(done);
  /* The device waits for `ready`: the input can still change. */
  cl_int state = CL_COMPLETE;
  assert_int_equal(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                  sizeof(state), &state, NULL),
                   CL_SUCCESS);
  assert_true(state > CL_COMPLETE);
  const float changed[4] = {1.0f, 2.0f, -3.0f, 0.5f};
  memcpy(in, changed, sizeof(in));
  assert_int_equal(clSetUserEventStatus(ready, CL_COMPLETE), CL_SUCCESS);
  assert_int_equal(clReleaseEvent(ready), CL_SUCCESS);
  /* The output event: "square" is in its buffer before Wait. */
  assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
  const float want_square[4] = {4.0f, 16.0f, 0.0f, 20.25f};
  expect_floats(square, want_square, 4, "square at its event");
  assert_int_equal(clReleaseEvent(done), CL_SUCCESS);
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t), kTfLiteOk);
  const float want_sum[4] = {2.0f, 4.0f, 0.0f, 4.5f};
  expect_floats(sum, want_sum, 4, "sum after Wait");

  /* Two tasks on the device at once: the second InvokeAsync returns while
   * the first still waits for its input event (it is not settled). */
  float in2[4] = {-1.0f, -1.0f, -1.0f, -1.0f};
  float sum2[4], square2[4];
  TfLiteExecutionTask* t2 = make_task(r, in2, sum2, square2);
  ready = clCreateUserEvent((cl_context)device->context, &err);
  assert_int_equal(err, CL_SUCCESS);
  assert_int_equal(clRetainEvent(ready), CL_SUCCESS);
  TfLiteSynchronizationSetPtr(in_sync, ready);
  TfLiteSynchronizationSetPtr(out_sync, NULL);
  memcpy(in, changed, sizeof(in));
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteOk);
  done = TfLiteSynchronizationGetPtr(out_sync);
  assert_non_null(done);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t2), kTfLiteOk);
  assert_int_equal(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                  sizeof(state), &state, NULL),
                   CL_SUCCESS);
  assert_true(state > CL_COMPLETE);
  assert_int_equal(clSetUserEventStatus(ready, CL_COMPLETE), CL_SUCCESS);
  assert_int_equal(clReleaseEvent(ready), CL_SUCCESS);
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t2), kTfLiteOk);
  const float want_square2[4] = {0.0f, 1.0f, 4.0f, 9.0f};
  expect_floats(square2, want_square2, 4, "second task's square");
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t), kTfLiteOk);
  expect_floats(square, want_square, 4, "first task's square");
  assert_int_equal(clReleaseEvent(done), CL_SUCCESS);
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, t2), kTfLiteOk);

  assert_int_equal(litegpu_gpu_delegate_enable_profiling(d, true), kTfLiteOk);
  ready = clCreateUserEvent((cl_context)device->context, &err);
  assert_int_equal(err, CL_SUCCESS);
  TfLiteSynchronizationSetPtr(in_sync, ready);
  TfLiteSynchronizationSetPtr(out_sync, NULL);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteError);
  expect_error(
      "input 'x' (tensor 0) carries a litegpu_cl_event, but dispatch "
      "profiling on this device waits for each dispatch on the host");
  assert_ptr_equal(TfLiteSynchronizationGetPtr(in_sync), ready);
  assert_int_equal(clReleaseEvent(ready), CL_SUCCESS);
  assert_int_equal(litegpu_gpu_delegate_enable_profiling(d, false), kTfLiteOk);

  /* An input sync object on a tensor left at no_sync_obj. */
  assert_int_equal(
      set_sync_type(r, kTfLiteIoTypeInput, "in", kTfLiteSyncTypeNoSyncObj),
      kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerPrepareBackends(r), kTfLiteOk);
  TfLiteSynchronizationSetPtr(in_sync, &state);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteError);
  expect_error(
      "input 'in' carries a synchronization object, but its "
      "synchronization type is no_sync_obj");
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, t), kTfLiteOk);
  TfLiteSynchronizationDelete(in_sync);
  TfLiteSynchronizationDelete(out_sync);
  check_cl_export_failure(r);
}

/* Vulkan: "in" waits for a fence on the host. Outputs take timeline
 * semaphores and fences, but only when bound to a device buffer: a fence
 * on "square" in host memory is refused, naming it. */
static void check_vk_fence(TfLiteAsyncSignatureRunner* r,
                           const litegpu_gpu_device_handles* device) {
  expect_sync_types(r, kTfLiteIoTypeInput,
                    LITEGPU_SYNC_TYPE_VK_TIMELINE_SEMAPHORE,
                    LITEGPU_SYNC_TYPE_VK_FENCE);
  expect_sync_types(r, kTfLiteIoTypeOutput,
                    LITEGPU_SYNC_TYPE_VK_TIMELINE_SEMAPHORE,
                    LITEGPU_SYNC_TYPE_VK_FENCE);
  assert_int_equal(set_sync_type(r, kTfLiteIoTypeOutput, "square",
                                 LITEGPU_SYNC_TYPE_VK_FENCE),
                   kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerPrepareBackends(r), kTfLiteOk);
  VkDevice vk = (VkDevice)device->context;
  const VkFenceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence out_fence = VK_NULL_HANDLE;
  assert_int_equal(vkCreateFence(vk, &info, NULL, &out_fence), VK_SUCCESS);
  float in[4] = {0}, sum[4], square[4];
  TfLiteExecutionTask* t = make_task(r, in, sum, square);
  TfLiteSynchronization* out_sync = TfLiteSynchronizationCreate();
  set_ptr(t, kTfLiteIoTypeOutput, "square", out_sync,
          (void*)(uintptr_t)out_fence);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteError);
  expect_error(
      "output 'z' (tensor 3) cannot carry a litegpu_vk_fence: it is copied "
      "out of a readback buffer on the host in Wait");
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, t), kTfLiteOk);
  assert_int_equal(vkGetFenceStatus(vk, out_fence), VK_NOT_READY);
  vkDestroyFence(vk, out_fence, NULL);
  TfLiteSynchronizationDelete(out_sync);
  assert_int_equal(
      set_sync_type(r, kTfLiteIoTypeOutput, "square", kTfLiteSyncTypeNoSyncObj),
      kTfLiteOk);
  assert_int_equal(
      set_sync_type(r, kTfLiteIoTypeInput, "in", LITEGPU_SYNC_TYPE_CL_EVENT),
      kTfLiteError);
  expect_error("input 'in' asks for synchronization type 'litegpu_cl_event'");
  assert_int_equal(
      set_sync_type(r, kTfLiteIoTypeInput, "in", LITEGPU_SYNC_TYPE_VK_FENCE),
      kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerPrepareBackends(r), kTfLiteOk);

  VkFence fence = VK_NULL_HANDLE;
  assert_int_equal(vkCreateFence(vk, &info, NULL, &fence), VK_SUCCESS);
  /* Signalled by the queue once the work before it is done. */
  assert_int_equal(vkQueueSubmit((VkQueue)device->queue, 0, NULL, fence),
                   VK_SUCCESS);
  const float x[4] = {1.0f, 2.0f, -3.0f, 0.5f};
  memcpy(in, x, sizeof(x));
  t = make_task(r, in, sum, square);
  TfLiteSynchronization* in_sync = TfLiteSynchronizationCreate();
  TfLiteSynchronizationSetPtr(in_sync, (void*)(uintptr_t)fence);
  assert_int_equal(
      TfLiteExecutionTaskSetSync(t, kTfLiteIoTypeInput, "in", in_sync),
      kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t), kTfLiteOk);
  const float want_square[4] = {4.0f, 16.0f, 0.0f, 20.25f};
  expect_floats(square, want_square, 4, "square");
  /* The fence stays the caller's, signalled. */
  assert_int_equal(vkGetFenceStatus(vk, fence), VK_SUCCESS);
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, t), kTfLiteOk);
  vkDestroyFence(vk, fence, NULL);
  TfLiteSynchronizationDelete(in_sync);
}

/* A host-visible, host-coherent VkBuffer of 4 floats on the delegate's
 * device, mapped, with the usages binding asks for. */
typedef struct vk_floats {
  VkBuffer buffer;
  VkDeviceMemory memory;
  float* map;
} vk_floats;

static vk_floats make_vk_floats(const litegpu_gpu_device_handles* device) {
  VkDevice vk = (VkDevice)device->context;
  vk_floats out = {VK_NULL_HANDLE, VK_NULL_HANDLE, NULL};
  const VkBufferCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = 4 * sizeof(float),
      .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
               VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
               VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
  };
  assert_int_equal(vkCreateBuffer(vk, &info, NULL, &out.buffer), VK_SUCCESS);
  VkMemoryRequirements needs;
  vkGetBufferMemoryRequirements(vk, out.buffer, &needs);
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties((VkPhysicalDevice)device->device,
                                      &memory);
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                     VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  uint32_t type = UINT32_MAX;
  for (uint32_t i = 0; i < memory.memoryTypeCount && type == UINT32_MAX; ++i) {
    if ((needs.memoryTypeBits & (1u << i)) &&
        (memory.memoryTypes[i].propertyFlags & host) == host) {
      type = i;
    }
  }
  assert_true(type != UINT32_MAX);
  const VkMemoryAllocateInfo alloc = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .allocationSize = needs.size,
      .memoryTypeIndex = type,
  };
  assert_int_equal(vkAllocateMemory(vk, &alloc, NULL, &out.memory), VK_SUCCESS);
  assert_int_equal(vkBindBufferMemory(vk, out.buffer, out.memory, 0),
                   VK_SUCCESS);
  void* map = NULL;
  assert_int_equal(vkMapMemory(vk, out.memory, 0, VK_WHOLE_SIZE, 0, &map),
                   VK_SUCCESS);
  out.map = map;
  return out;
}

static void free_vk_floats(const litegpu_gpu_device_handles* device,
                           vk_floats* b) {
  VkDevice vk = (VkDevice)device->context;
  vkDestroyBuffer(vk, b->buffer, NULL);
  vkFreeMemory(vk, b->memory, NULL);
}

static VkSemaphore make_timeline(VkDevice vk) {
  const VkSemaphoreTypeCreateInfoKHR type = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO_KHR,
      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE_KHR,
      .initialValue = 0,
  };
  const VkSemaphoreCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
  VkSemaphore s = VK_NULL_HANDLE;
  assert_int_equal(vkCreateSemaphore(vk, &info, NULL, &s), VK_SUCCESS);
  return s;
}

/* The device's timeline semaphore calls (VK_KHR_timeline_semaphore, which
 * the delegate enabled). */
typedef struct timeline_calls {
  PFN_vkSignalSemaphoreKHR signal;
  PFN_vkWaitSemaphoresKHR wait;
  PFN_vkGetSemaphoreCounterValueKHR value;
} timeline_calls;

static uint64_t counter(const timeline_calls* calls, VkDevice vk,
                        VkSemaphore s) {
  uint64_t v = UINT64_MAX;
  assert_int_equal(calls->value(vk, s, &v), VK_SUCCESS);
  return v;
}

static void signal_point(const timeline_calls* calls, VkDevice vk,
                         VkSemaphore s, uint64_t value) {
  const VkSemaphoreSignalInfoKHR info = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO_KHR,
      .semaphore = s,
      .value = value};
  assert_int_equal(calls->signal(vk, &info), VK_SUCCESS);
}

/* The output "square" (bound to out_buf) takes a VkFence, "in" (bound)
 * is held by "ready" at 3: the fence stays unsignalled while the run is
 * held, and signals with the square in the buffer, before Wait. A fence
 * already signalled is refused before anything runs, naming the output. */
static void check_vk_fence_output(TfLiteAsyncSignatureRunner* r,
                                  const timeline_calls* calls, VkDevice vk,
                                  VkSemaphore ready,
                                  TfLiteSynchronization* in_sync,
                                  TfLiteSynchronization* out_sync,
                                  vk_floats* in_buf, vk_floats* out_buf) {
  assert_int_equal(set_sync_type(r, kTfLiteIoTypeOutput, "square",
                                 LITEGPU_SYNC_TYPE_VK_FENCE),
                   kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerPrepareBackends(r), kTfLiteOk);
  const VkFenceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  assert_int_equal(vkCreateFence(vk, &info, NULL, &fence), VK_SUCCESS);
  float in[4] = {0}, sum[4], square[4];
  TfLiteExecutionTask* t = make_task(r, in, sum, square);
  litegpu_vk_timeline_point in_point = {(uint64_t)(uintptr_t)ready, 3};
  memset(out_buf->map, 0, 16);
  set_ptr(t, kTfLiteIoTypeInput, "in", in_sync, &in_point);
  set_ptr(t, kTfLiteIoTypeOutput, "square", out_sync, (void*)(uintptr_t)fence);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteOk);
  assert_int_equal(vkGetFenceStatus(vk, fence), VK_NOT_READY); /* held */
  const float x[4] = {3.0f, -2.0f, 0.0f, 1.0f};
  memcpy(in_buf->map, x, sizeof(x));
  signal_point(calls, vk, ready, 3);
  assert_int_equal(
      vkWaitForFences(vk, 1, &fence, VK_TRUE, UINT64_C(20000000000)),
      VK_SUCCESS);
  const float want_square[4] = {16.0f, 0.0f, 9.0f, 25.0f};
  expect_floats(out_buf->map, want_square, 4, "square at its fence");
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t), kTfLiteOk);
  const float want_sum[4] = {4.0f, 0.0f, 3.0f, 5.0f};
  expect_floats(sum, want_sum, 4, "sum after Wait");

  /* Signalled now: refused, the input's point not taken. */
  set_ptr(t, kTfLiteIoTypeInput, "in", in_sync, &in_point);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteError);
  expect_error(
      "output 'z' (tensor 3): output tensor 3's fence: the output's "
      "VkFence is already signalled");
  assert_ptr_equal(TfLiteSynchronizationGetPtr(in_sync), &in_point);
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, t), kTfLiteOk);
  vkDestroyFence(vk, fence, NULL);
  TfLiteSynchronizationSetPtr(out_sync, NULL);
  assert_int_equal(
      set_sync_type(r, kTfLiteIoTypeOutput, "square", kTfLiteSyncTypeNoSyncObj),
      kTfLiteOk);
}

/* Profiling on: a run held by "ready" at 4 still returns from InvokeAsync
 * at once (the dispatches are timed on the device), writes nothing until
 * the point is reached, then completes with the right outputs and one
 * timed run in each dispatch's profile entry. */
static void check_vk_profiled(TfLiteAsyncSignatureRunner* r, TfLiteDelegate* d,
                              const timeline_calls* calls, VkDevice vk,
                              VkSemaphore ready, TfLiteSynchronization* in_sync,
                              vk_floats* in_buf, vk_floats* out_buf) {
  assert_int_equal(TfLiteAsyncSignatureRunnerPrepareBackends(r), kTfLiteOk);
  assert_int_equal(litegpu_gpu_delegate_enable_profiling(d, true), kTfLiteOk);
  float in[4] = {0}, sum[4], square[4];
  TfLiteExecutionTask* t = make_task(r, in, sum, square);
  litegpu_vk_timeline_point in_point = {(uint64_t)(uintptr_t)ready, 4};
  const float sentinel[4] = {-7.0f, -7.0f, -7.0f, -7.0f};
  memcpy(out_buf->map, sentinel, sizeof(sentinel));
  set_ptr(t, kTfLiteIoTypeInput, "in", in_sync, &in_point);
  const uint64_t start = lg_now_ns();
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteOk);
  /* Blocking until the 60 s timeout was the bug; a held run is not run. */
  assert_true(lg_now_ns() - start < UINT64_C(5000000000));
  expect_floats(out_buf->map, sentinel, 4, "square while held");
  const float x[4] = {-1.0f, 0.5f, 2.0f, -5.0f};
  memcpy(in_buf->map, x, sizeof(x));
  signal_point(calls, vk, ready, 4);
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t), kTfLiteOk);
  const float want_sum[4] = {0.0f, 2.5f, 5.0f, -1.0f};
  const float want_square[4] = {0.0f, 6.25f, 25.0f, 1.0f};
  expect_floats(sum, want_sum, 4, "profiled sum");
  expect_floats(out_buf->map, want_square, 4, "profiled square");
  const int n = litegpu_gpu_delegate_dispatch_profile(d, NULL, 0);
  assert_true(n >= 1 && n <= 8);
  litegpu_gpu_dispatch_profile profile[8];
  assert_int_equal(litegpu_gpu_delegate_dispatch_profile(d, profile, 8), n);
  for (int i = 0; i < n; ++i) {
    assert_int_equal(profile[i].count, 1);
    assert_true(profile[i].total_ns > 0);
  }
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, t), kTfLiteOk);
  assert_int_equal(litegpu_gpu_delegate_enable_profiling(d, false), kTfLiteOk);
}

/* Vulkan timeline semaphores: "in" and "square" bound to the caller's
 * VkBuffers. An input point not yet reached holds the run (InvokeAsync
 * returns; the output point stays unsignalled), and the run reads what
 * the caller wrote into the input buffer before signalling it from the
 * host; the output point is reached with the square in its buffer, before
 * Wait. Then two tasks on the device at once: the second InvokeAsync
 * returns while the first is still held. Refused: a point on an output in
 * host memory, naming it. */
static void check_vk_timeline(TfLiteAsyncSignatureRunner* r, TfLiteDelegate* d,
                              const litegpu_gpu_device_handles* device,
                              vk_floats* in_buf, vk_floats* out_buf) {
  VkDevice vk = (VkDevice)device->context;
  timeline_calls calls;
  const PFN_vkVoidFunction found[3] = {
      vkGetDeviceProcAddr(vk, "vkSignalSemaphoreKHR"),
      vkGetDeviceProcAddr(vk, "vkWaitSemaphoresKHR"),
      vkGetDeviceProcAddr(vk, "vkGetSemaphoreCounterValueKHR")};
  memcpy(&calls.signal, &found[0], sizeof(found[0]));
  memcpy(&calls.wait, &found[1], sizeof(found[1]));
  memcpy(&calls.value, &found[2], sizeof(found[2]));
  assert_true(calls.signal != NULL && calls.wait != NULL &&
              calls.value != NULL);
  const char* kTimeline = LITEGPU_SYNC_TYPE_VK_TIMELINE_SEMAPHORE;
  VkSemaphore ready = make_timeline(vk), done = make_timeline(vk);
  litegpu_vk_timeline_point in_point = {(uint64_t)(uintptr_t)ready, 1};
  litegpu_vk_timeline_point out_point = {(uint64_t)(uintptr_t)done, 6};
  TfLiteSynchronization* in_sync = TfLiteSynchronizationCreate();
  TfLiteSynchronization* out_sync = TfLiteSynchronizationCreate();

  /* "sum" stays in host memory: no semaphore can say it is there. */
  assert_int_equal(set_sync_type(r, kTfLiteIoTypeOutput, "sum", kTimeline),
                   kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerPrepareBackends(r), kTfLiteOk);
  float in[4] = {0}, sum[4], square[4];
  TfLiteExecutionTask* t = make_task(r, in, sum, square);
  set_ptr(t, kTfLiteIoTypeOutput, "sum", out_sync, &out_point);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteError);
  expect_error(
      "output 'y' (tensor 2) cannot carry a litegpu_vk_timeline_semaphore: "
      "it is copied out of a readback buffer on the host in Wait");
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, t), kTfLiteOk);
  assert_int_equal(
      set_sync_type(r, kTfLiteIoTypeOutput, "sum", kTfLiteSyncTypeNoSyncObj),
      kTfLiteOk);

  /* "in" in host memory: its point is waited for on the host (reached
   * here already); a point without a semaphore is refused. */
  assert_int_equal(set_sync_type(r, kTfLiteIoTypeInput, "in", kTimeline),
                   kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerPrepareBackends(r), kTfLiteOk);
  signal_point(&calls, vk, done, 5);
  litegpu_vk_timeline_point reached = {(uint64_t)(uintptr_t)done, 5};
  const float x0[4] = {1.0f, 0.0f, -1.0f, 2.0f};
  memcpy(in, x0, sizeof(x0));
  t = make_task(r, in, sum, square);
  set_ptr(t, kTfLiteIoTypeInput, "in", in_sync, &reached);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t), kTfLiteOk);
  const float want_square0[4] = {4.0f, 4.0f, 4.0f, 36.0f};
  expect_floats(square, want_square0, 4, "square of a host input");
  litegpu_vk_timeline_point none = {0, 1};
  set_ptr(t, kTfLiteIoTypeInput, "in", in_sync, &none);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteError);
  expect_error("the litegpu_vk_timeline_point has no VkSemaphore");
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, t), kTfLiteOk);

  assert_int_equal(litegpu_gpu_delegate_bind_vulkan_buffer(
                       d, (uint64_t)(uintptr_t)in_buf->buffer, 0, 16, 0),
                   kTfLiteOk);
  assert_int_equal(litegpu_gpu_delegate_bind_vulkan_buffer(
                       d, (uint64_t)(uintptr_t)out_buf->buffer, 0, 16, 3),
                   kTfLiteOk);
  assert_int_equal(set_sync_type(r, kTfLiteIoTypeInput, "in", kTimeline),
                   kTfLiteOk);
  assert_int_equal(set_sync_type(r, kTfLiteIoTypeOutput, "square", kTimeline),
                   kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerPrepareBackends(r), kTfLiteOk);
  memset(in_buf->map, 0, 16);
  memset(out_buf->map, 0, 16);
  t = make_task(r, in, sum, square);
  set_ptr(t, kTfLiteIoTypeInput, "in", in_sync, &in_point);
  set_ptr(t, kTfLiteIoTypeOutput, "square", out_sync, &out_point);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteOk);
  assert_null(TfLiteSynchronizationGetPtr(in_sync)); /* consumed */
  assert_int_equal(counter(&calls, vk, done), 5);    /* held by "ready" */
  const float x[4] = {0.5f, -1.0f, 2.0f, -4.0f};
  memcpy(in_buf->map, x, sizeof(x));
  signal_point(&calls, vk, ready, 1);
  const VkSemaphoreWaitInfoKHR wait = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO_KHR,
      .semaphoreCount = 1,
      .pSemaphores = &done,
      .pValues = &out_point.value};
  assert_int_equal(calls.wait(vk, &wait, UINT64_C(20000000000)), VK_SUCCESS);
  const float want_square[4] = {2.25f, 1.0f, 25.0f, 0.0f};
  expect_floats(out_buf->map, want_square, 4, "square at its semaphore");
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t), kTfLiteOk);
  const float want_sum[4] = {1.5f, 1.0f, 5.0f, 0.0f};
  expect_floats(sum, want_sum, 4, "sum after Wait");

  /* Two on the device: t held by "ready" at 2, t2 enqueued behind it. */
  float sum2[4];
  TfLiteExecutionTask* t2 = make_task(r, in, sum2, square);
  in_point.value = 2;
  out_point.value = 7;
  set_ptr(t, kTfLiteIoTypeInput, "in", in_sync, &in_point);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t), kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, t2), kTfLiteOk);
  assert_int_equal(counter(&calls, vk, done), 6);
  const float x2[4] = {1.0f, 1.0f, 1.0f, 1.0f};
  memcpy(in_buf->map, x2, sizeof(x2));
  signal_point(&calls, vk, ready, 2);
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t2), kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, t), kTfLiteOk);
  assert_int_equal(counter(&calls, vk, done), 7);
  const float want_sum2[4] = {2.0f, 3.0f, 4.0f, 5.0f};
  expect_floats(sum, want_sum2, 4, "first task's sum");
  expect_floats(sum2, want_sum2, 4, "second task's sum");
  const float want_square2[4] = {4.0f, 9.0f, 16.0f, 25.0f};
  expect_floats(out_buf->map, want_square2, 4, "square of both");
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, t2), kTfLiteOk);

  check_vk_fence_output(r, &calls, vk, ready, in_sync, out_sync, in_buf,
                        out_buf);
  check_vk_profiled(r, d, &calls, vk, ready, in_sync, in_buf, out_buf);
  assert_int_equal(TfLiteAsyncSignatureRunnerFinish(r, t), kTfLiteOk);
  TfLiteSynchronizationDelete(in_sync);
  TfLiteSynchronizationDelete(out_sync);
  vkDestroySemaphore(vk, ready, NULL);
  vkDestroySemaphore(vk, done, NULL);
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
  TfLiteInterpreterOptionsSetErrorReporter(options, keep_error, NULL);
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

  /* Eval only submits; the outputs are in the task's buffers after Wait
   * (the device may write them earlier: they are its download targets). */
  assert_int_equal(TfLiteAsyncSignatureRunnerInvokeAsync(r, a), kTfLiteOk);
  assert_int_equal(TfLiteAsyncSignatureRunnerWait(r, a), kTfLiteOk);
  const float want_sum_a[4] = {2.0f, 0.0f, 3.5f, 7.0f};
  const float want_square_a[4] = {4.0f, 0.0f, 12.25f, 49.0f};
  expect_floats(sum_a, want_sum_a, 4, "sum");
  expect_floats(square_a, want_square_a, 4, "square");
  expect_floats(square_a, sync_square, 4, "square against Invoke");

  /* Two in flight (both on the device, each with its own readback on
   * Vulkan), waited for in the other order. */
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

  litegpu_gpu_device_handles device;
  assert_int_equal(litegpu_gpu_delegate_get_device(d, &device), kTfLiteOk);
  if (backend == LITEGPU_GPU_BACKEND_OPENCL) {
    check_cl_events(r, d, &device);
    check_cl_event_refused(d);
  }
  vk_floats in_buf = {0}, out_buf = {0};
  if (backend == LITEGPU_GPU_BACKEND_VULKAN) {
    check_vk_fence(r, &device);
    in_buf = make_vk_floats(&device);
    out_buf = make_vk_floats(&device);
    check_vk_timeline(r, d, &device, &in_buf, &out_buf);
  }
  TfLiteAsyncSignatureRunnerDelete(r);
  TfLiteInterpreterDelete(interpreter);
  if (backend == LITEGPU_GPU_BACKEND_VULKAN) { /* bound until here */
    free_vk_floats(&device, &in_buf);
    free_vk_floats(&device, &out_buf);
  }
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
