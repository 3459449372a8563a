/* Registering host memory with an async signature runner, and a small
 * model, for the tests of TFLite's async API (test_async_signature_runner.c,
 * test_gpu_async.c). */
#ifndef LITEGPU_TESTS_SUPPORT_ASYNC_HOST_BUFFER_H_
#define LITEGPU_TESTS_SUPPORT_ASYNC_HOST_BUFFER_H_

#include <stddef.h>

#include "tensorflow/lite/core/async/c/async_signature_runner.h"

/* Registers `size` bytes at `ptr` as a LITEGPU_BUFFER_TYPE_HOST_MEMORY
 * buffer of `io_type`; fails the calling cmocka test when refused. */
TfLiteBufferHandle lg_test_register_host(TfLiteAsyncSignatureRunner* r,
                                         TfLiteIoType io_type, void* ptr,
                                         size_t size);

/* A model spec (runtime/writer/model_spec.h): y = x + c and z = y * y with
 * c = {1, 2, 3, 4}, x, y, z FLOAT32 1x4 (tensors 0, 2, 3). */
extern const char lg_test_square_spec[];

/* Sets the buffers of a task of that model's signature (input "in", outputs
 * "sum" and "square"); fails the calling cmocka test when refused. */
void lg_test_bind_square_task(TfLiteExecutionTask* t, TfLiteBufferHandle in,
                              TfLiteBufferHandle sum,
                              TfLiteBufferHandle square);

#endif /* LITEGPU_TESTS_SUPPORT_ASYNC_HOST_BUFFER_H_ */
