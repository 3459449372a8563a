/* The async signature runner's side of TfLiteAsyncKernel
 * (include/tensorflow/lite/core/async/c/async_kernel.h; defined in
 * runtime/async_interop.c). */
#ifndef LITEGPU_RUNTIME_ASYNC_KERNEL_INTERNAL_H_
#define LITEGPU_RUNTIME_ASYNC_KERNEL_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>

#include "tensorflow/lite/core/async/c/async_kernel.h"

/* Whether the kernel can run a task: eval and wait are set. */
bool lg_async_kernel_runnable(const TfLiteAsyncKernel* kernel);

/* The callbacks; finish returns kTfLiteOk when unset. */
TfLiteStatus lg_async_kernel_eval(TfLiteAsyncKernel* kernel,
                                  TfLiteOpaqueContext* context,
                                  TfLiteOpaqueNode* node,
                                  TfLiteExecutionTask* task);
TfLiteStatus lg_async_kernel_wait(TfLiteAsyncKernel* kernel,
                                  TfLiteOpaqueContext* context,
                                  TfLiteExecutionTask* task);
TfLiteStatus lg_async_kernel_finish(TfLiteAsyncKernel* kernel,
                                    TfLiteOpaqueContext* context,
                                    TfLiteExecutionTask* task);

/* The kernel's supported synchronization types for `io_type` in
 * types and num_types; false (nothing written) when it declares none. */
bool lg_async_kernel_supported_synchronizations(const TfLiteAsyncKernel* kernel,
                                                TfLiteIoType io_type,
                                                const char* const** types,
                                                size_t* num_types);

/* set_attributes; kTfLiteOk when unset. */
TfLiteStatus lg_async_kernel_set_attributes(TfLiteAsyncKernel* kernel,
                                            TfLiteOpaqueContext* context,
                                            TfLiteOpaqueNode* node,
                                            int tensor_index,
                                            const TfLiteAttributeMap* attrs);

#endif /* LITEGPU_RUNTIME_ASYNC_KERNEL_INTERNAL_H_ */
