/* litegpu: types of TFLite's asynchronous C API (async_signature_runner.h,
 * task.h). */
#ifndef TENSORFLOW_LITE_CORE_ASYNC_C_TYPES_H_
#define TENSORFLOW_LITE_CORE_ASYNC_C_TYPES_H_

#ifdef __cplusplus
extern "C" {
#endif

/* An asynchronous delegate kernel (async_kernel.h). The async signature
 * runner calls a delegate kernel's (TfLiteRegistration.async_kernel) when
 * the signature is that one node; a custom operator's
 * (TfLiteOperatorSetAsyncKernel) is stored and never called. */
typedef struct TfLiteAsyncKernel TfLiteAsyncKernel;

/* One execution of an async signature: its buffers, synchronizations and
 * status (task.h). Not thread-safe. */
typedef struct TfLiteExecutionTask TfLiteExecutionTask;

/* Whether a tensor is an input or an output of the signature. */
typedef enum TfLiteIoType {
  kTfLiteIoTypeUnknown = 0,
  kTfLiteIoTypeInput = 1,
  kTfLiteIoTypeOutput = 2,
} TfLiteIoType;

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_LITE_CORE_ASYNC_C_TYPES_H_ */
