/* litegpu: TFLite's experimental C API additions that litegpu implements.
 *
 * Builtin and custom registrations in TfLiteRegistration form with a
 * [min_version, max_version] range. The registration is copied; the caller
 * keeps ownership of the custom name string, which must outlive the options
 * and any interpreter made from them.
 */
#ifndef TENSORFLOW_LITE_C_C_API_EXPERIMENTAL_H_
#define TENSORFLOW_LITE_C_C_API_EXPERIMENTAL_H_

#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/common.h"

#ifdef __cplusplus
extern "C" {
#endif

TFL_CAPI_EXPORT void TfLiteInterpreterOptionsAddBuiltinOp(
    TfLiteInterpreterOptions* options, TfLiteBuiltinOperator op,
    const TfLiteRegistration* registration, int32_t min_version,
    int32_t max_version);

TFL_CAPI_EXPORT void TfLiteInterpreterOptionsAddCustomOp(
    TfLiteInterpreterOptions* options, const char* name,
    const TfLiteRegistration* registration, int32_t min_version,
    int32_t max_version);

/* Delegate fallback (default off, as in TFLite). When on: a delegate that
 * fails to apply at creation is removed with a warning instead of failing
 * creation, and when Invoke fails in the presence of delegates, the runtime
 * reports "Invoke() failed in the presence of delegation. Retrying
 * without.", removes every delegate, restores the inputs and invokes again on
 * the CPU; a successful retry returns kTfLiteDelegateError with valid
 * outputs. */
TFL_CAPI_EXPORT void TfLiteInterpreterOptionsSetEnableDelegateFallback(
    TfLiteInterpreterOptions* options, bool enable);

/* Applies `delegate` to an existing interpreter, as a delegate from
 * TfLiteInterpreterOptionsAddDelegate is applied at creation; `delegate`
 * must outlive the interpreter. The way to run a delegate for static shapes
 * (the GPU delegate) on resized inputs: create the interpreter without it,
 * TfLiteInterpreterResizeInputTensor, then this (afterwards the graph is
 * immutable and a resize to other dims fails). Returns:
 *   kTfLiteOk;
 *   kTfLiteDelegateError: `delegate` is NULL (nothing changes), or its
 *     Prepare, a node replacement or the allocation after it failed: every
 *     delegate applied so far is removed and the original plan restored;
 *   kTfLiteApplicationError: a delegate for static shapes met dynamic-sized
 *     tensors (the graph is left as it was);
 *   kTfLiteError: a NULL interpreter or a runtime failure.
 * The interpreter is const in TFLite's signature; its graph changes all the
 * same. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteInterpreterModifyGraphWithDelegate(
    const TfLiteInterpreter* interpreter, TfLiteDelegate* delegate);

/* As TfLiteInterpreterCreate, but operators are resolved only from the
 * registrations in `options` (AddBuiltinOp, AddCustomOp, AddOperator):
 * litegpu's own builtin kernels are not used. */
TFL_CAPI_EXPORT TfLiteInterpreter* TfLiteInterpreterCreateWithSelectedOps(
    const TfLiteModel* model, const TfLiteInterpreterOptions* options);

/* Resets every variable tensor (is_variable) of every subgraph to zero
 * (its zero point when quantized), as TFLite does; resource variables keep
 * their values. kTfLiteError before the tensors are allocated. */
TFL_CAPI_EXPORT TfLiteStatus
TfLiteInterpreterResetVariableTensors(TfLiteInterpreter* interpreter);

/* The number of variable tensors (is_variable) of the main graph. */
TFL_CAPI_EXPORT int32_t
TfLiteInterpreterGetVariableTensorCount(const TfLiteInterpreter* interpreter);

/* Variable tensor `variable_index` of the main graph, counting the variable
 * tensors in tensor-index order, as TFLite; NULL (reported) out of range. */
TFL_CAPI_EXPORT TfLiteTensor* TfLiteInterpreterGetVariableTensor(
    const TfLiteInterpreter* interpreter, int32_t variable_index);

/* The tensor index of the main graph's input (output) `input_index`
 * (`output_index`): TfLiteInterpreterInputTensorIndices(interpreter)[i].
 * -1 (reported) out of range. */
TFL_CAPI_EXPORT int32_t TfLiteInterpreterGetInputTensorIndex(
    const TfLiteInterpreter* interpreter, int32_t input_index);
TFL_CAPI_EXPORT int32_t TfLiteInterpreterGetOutputTensorIndex(
    const TfLiteInterpreter* interpreter, int32_t output_index);

/* Makes the CPU data of tensor `tensor_index` of the main graph current:
 * when a delegate left it stale in its own buffer, copies it back with the
 * delegate's CopyFromBufferHandle. Graph outputs are made readable after
 * every Invoke unless TfLiteSetAllowBufferHandleOutput. kTfLiteError for an
 * index out of range or a failed copy. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteInterpreterEnsureTensorDataIsReadable(
    TfLiteInterpreter* interpreter, int tensor_index);

/* Whether the main graph's outputs that a delegate keeps in its own
 * buffers (buffer handles, e.g. the GPU delegate's bound device buffers)
 * stay there after Invoke: true skips the copy back to tensor->data that
 * every Invoke otherwise makes, for applications that read the outputs on
 * the device; TfLiteInterpreterEnsureTensorDataIsReadable still copies one
 * on demand. False by default (TFLite's rule). kTfLiteError for a NULL
 * interpreter. */
TFL_CAPI_EXPORT void TfLiteSetAllowBufferHandleOutput(
    const TfLiteInterpreter* interpreter, bool allow_buffer_handle_output);

/* Gives `tensor` (one of the main graph's) the buffer handle
 * `buffer_handle` of `delegate`, as TFLite's Interpreter::SetBufferHandle:
 * refused (kTfLiteError, reported) when the tensor holds a handle of
 * another delegate or `delegate` is NULL; a different handle the tensor
 * held is freed first with the delegate's FreeBufferHandle. The handle's
 * meaning is the delegate's (litegpu's GPU delegate makes its handles by
 * binding device buffers: include/litegpu/gpu_delegate.h). */
TFL_CAPI_EXPORT TfLiteStatus TfLiteInterpreterSetBufferHandle(
    TfLiteInterpreter* interpreter, TfLiteTensor* tensor,
    TfLiteBufferHandle buffer_handle, TfLiteOpaqueDelegate* delegate);

/* The buffer handle and its delegate of tensor `tensor_index` of the main
 * graph (kTfLiteNullBufferHandle and NULL when it has none). kTfLiteError
 * (reported) for an index out of range or a NULL output pointer. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteInterpreterGetBufferHandle(
    TfLiteInterpreter* interpreter, int tensor_index,
    TfLiteBufferHandle* buffer_handle, TfLiteOpaqueDelegate** delegate);

/* Stops an Invoke in flight, as TfLiteInterpreterCancel: the cancellation
 * reaches every signature runner of the runner's interpreter. kTfLiteError
 * when cancellation is not enabled. */
TFL_CAPI_EXPORT TfLiteStatus
TfLiteSignatureRunnerCancel(TfLiteSignatureRunner* signature_runner);

/* Operator resolver callbacks, consulted when an interpreter is created
 * from these options. As in TFLite, once callbacks are set they are the
 * only resolver: the registrations added with AddOperator, AddBuiltinOp and
 * AddCustomOp and litegpu's builtin kernels are not consulted, so the
 * callbacks must also resolve the builtin ops the model uses. Each call
 * replaces every callback set before. `op_resolver_user_data` is passed to
 * the callbacks; it and what they return must outlive the options and every
 * interpreter made from them.
 *
 * SetOpResolver: the callbacks return TfLiteRegistrations (NULL: not
 * found). */
TFL_CAPI_EXPORT void TfLiteInterpreterOptionsSetOpResolver(
    TfLiteInterpreterOptions* options,
    const TfLiteRegistration* (*find_builtin_op)(void* user_data,
                                                 TfLiteBuiltinOperator op,
                                                 int version),
    const TfLiteRegistration* (*find_custom_op)(void* user_data,
                                                const char* custom_op,
                                                int version),
    void* op_resolver_user_data);

/* SetOpResolverExternal: the callbacks return TfLiteOperators (NULL, or an
 * operator without any callback: not found). */
TFL_CAPI_EXPORT void TfLiteInterpreterOptionsSetOpResolverExternal(
    TfLiteInterpreterOptions* options,
    const TfLiteOperator* (*find_builtin_op)(void* user_data, int op,
                                             int version),
    const TfLiteOperator* (*find_custom_op)(void* user_data,
                                            const char* custom_op, int version),
    void* op_resolver_user_data);

/* Both kinds: an op is looked up with the TfLiteOperator callback first;
 * when that gives NULL or an operator without any callback, the
 * TfLiteRegistration callback is asked. */
TFL_CAPI_EXPORT void TfLiteInterpreterOptionsSetOpResolverExternalWithFallback(
    TfLiteInterpreterOptions* options,
    const TfLiteOperator* (*find_builtin_op_external)(void* user_data, int op,
                                                      int version),
    const TfLiteOperator* (*find_custom_op_external)(void* user_data,
                                                     const char* custom_op,
                                                     int version),
    const TfLiteRegistration* (*find_builtin_op)(void* user_data,
                                                 TfLiteBuiltinOperator op,
                                                 int version),
    const TfLiteRegistration* (*find_custom_op)(void* user_data,
                                                const char* custom_op,
                                                int version),
    void* op_resolver_user_data);

/* As TfLiteInterpreterResizeInputTensor, but only dimensions the model
 * leaves unknown (-1 in dims_signature) may change, and the rank must stay;
 * a tensor without a shape signature allows no change. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteInterpreterResizeInputTensorStrict(
    TfLiteInterpreter* interpreter, int32_t input_index, const int* input_dims,
    int32_t input_dims_size);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_LITE_C_C_API_EXPERIMENTAL_H_ */
