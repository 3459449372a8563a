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

/* The kernel's buffer types, as lg_async_kernel_supported_synchronizations. */
bool lg_async_kernel_supported_buffer_types(const TfLiteAsyncKernel* kernel,
                                            TfLiteIoType io_type,
                                            const char* const** types,
                                            size_t* num_types);

/* Whether reconcile_restrictions is set; lg_async_kernel_reconcile calls
 * it (only then). */
bool lg_async_kernel_reconciles(const TfLiteAsyncKernel* kernel);
bool lg_async_kernel_reconcile(const TfLiteAsyncKernel* kernel,
                               const TfLiteOpaqueContext* context,
                               const TfLiteOpaqueNode* node, int tensor_index,
                               const TfLiteAttributeMap* user,
                               TfLiteAttributeMap* merged,
                               TfLiteAttributeMap* conflict);

/* prepare and the buffer callbacks; kTfLiteOk when unset. */
TfLiteStatus lg_async_kernel_prepare(TfLiteAsyncKernel* kernel,
                                     TfLiteOpaqueContext* context,
                                     TfLiteOpaqueNode* node);
TfLiteStatus lg_async_kernel_register_buffer(TfLiteAsyncKernel* kernel,
                                             TfLiteOpaqueContext* context,
                                             TfLiteIoType io_type,
                                             const TfLiteBackendBuffer* buffer,
                                             const TfLiteAttributeMap* attrs,
                                             TfLiteBufferHandle handle);
TfLiteStatus lg_async_kernel_register_buffer_slice(
    TfLiteAsyncKernel* kernel, TfLiteOpaqueContext* context,
    TfLiteBufferHandle pool, const TfLiteAttributeMap* attrs,
    TfLiteBufferHandle handle);
TfLiteStatus lg_async_kernel_unregister_buffer(TfLiteAsyncKernel* kernel,
                                               TfLiteOpaqueContext* context,
                                               TfLiteBufferHandle handle);

#endif /* LITEGPU_RUNTIME_ASYNC_KERNEL_INTERNAL_H_ */
