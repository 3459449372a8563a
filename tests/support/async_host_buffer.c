/* See async_host_buffer.h. */
#include "tests/support/async_host_buffer.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "litegpu/async.h"
#include "tensorflow/lite/core/async/c/task.h"
#include "tensorflow/lite/core/async/interop/c/attribute_map.h"
#include "tensorflow/lite/core/async/interop/c/constants.h"

TfLiteBufferHandle lg_test_register_host(TfLiteAsyncSignatureRunner* r,
                                         TfLiteIoType io_type, void* ptr,
                                         size_t size) {
  TfLiteBackendBuffer* b = TfLiteBackendBufferCreate();
  TfLiteBackendBufferSetPtr(b, ptr);
  TfLiteAttributeMap* a = TfLiteAttributeMapCreate(kTfLiteAttrMapTypeBuffer);
  assert_true(TfLiteAttributeMapSetStringBufferAttr(
      a, kTfLiteBufferAttrKeyResourceTypeName,
      LITEGPU_BUFFER_TYPE_HOST_MEMORY));
  assert_true(
      TfLiteAttributeMapSetSizeTBufferAttr(a, kTfLiteBufferAttrKeySize, size));
  TfLiteBufferHandle h = kTfLiteNullBufferHandle;
  assert_int_equal(
      TfLiteAsyncSignatureRunnerRegisterBuffer(r, io_type, b, a, &h),
      kTfLiteOk);
  TfLiteAttributeMapDelete(a);
  TfLiteBackendBufferDelete(b); /* the handle keeps the pointer, not b */
  return h;
}

const char lg_test_square_spec[] =
    "tensor x FLOAT32 1,4\n"
    "tensor c FLOAT32 1,4 values=1,2,3,4\n"
    "tensor y FLOAT32 1,4\n"
    "tensor z FLOAT32 1,4\n"
    "op ADD 1 in=x,c out=y\n"
    "op MUL 1 in=y,y out=z\n"
    "inputs x\n"
    "outputs y,z\n";

void lg_test_bind_square_task(TfLiteExecutionTask* t, TfLiteBufferHandle in,
                              TfLiteBufferHandle sum,
                              TfLiteBufferHandle square) {
  assert_int_equal(
      TfLiteExecutionTaskSetBuffer(t, kTfLiteIoTypeInput, "in", in), kTfLiteOk);
  assert_int_equal(
      TfLiteExecutionTaskSetBuffer(t, kTfLiteIoTypeOutput, "sum", sum),
      kTfLiteOk);
  assert_int_equal(
      TfLiteExecutionTaskSetBuffer(t, kTfLiteIoTypeOutput, "square", square),
      kTfLiteOk);
}
