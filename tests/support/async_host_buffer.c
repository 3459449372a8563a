/* See async_host_buffer.h. */
#include "tests/support/async_host_buffer.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "litegpu/async.h"
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
