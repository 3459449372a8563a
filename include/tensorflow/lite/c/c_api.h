/* litegpu: TFLite-compatible C API.
 *
 * Load a model, set options, create an interpreter, allocate, fill inputs,
 * invoke, read outputs:
 *
 *   TfLiteModel* model = TfLiteModelCreateFromFile("model.tflite");
 *   TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
 *   TfLiteInterpreterOptionsSetNumThreads(options, 2);
 *   TfLiteInterpreter* interpreter = TfLiteInterpreterCreate(model, options);
 *   TfLiteInterpreterAllocateTensors(interpreter);
 *   TfLiteTensor* in = TfLiteInterpreterGetInputTensor(interpreter, 0);
 *   TfLiteTensorCopyFromBuffer(in, input, sizeof(input));
 *   TfLiteInterpreterInvoke(interpreter);
 *   const TfLiteTensor* out = TfLiteInterpreterGetOutputTensor(interpreter, 0);
 *   TfLiteTensorCopyToBuffer(out, output, sizeof(output));
 *   TfLiteInterpreterDelete(interpreter);
 *   TfLiteInterpreterOptionsDelete(options);
 *   TfLiteModelDelete(model);
 *
 * Ownership: every Create is paired with its Delete; Delete accepts NULL. A
 * model made from a caller's buffer does not copy it: the buffer must outlive
 * the model. The interpreter keeps the model alive on its own, so the model
 * may be deleted right after the interpreter is created. Options may be
 * deleted once the interpreter exists; delegates and operators added to them
 * stay the caller's and must outlive the interpreter.
 *
 * Errors: functions that fail return NULL or a status other than kTfLiteOk
 * and report a message through the error reporter (stderr by default).
 * Thread safety: distinct interpreters may run on distinct threads; one
 * interpreter is used by one thread at a time.
 */
#ifndef TENSORFLOW_LITE_C_C_API_H_
#define TENSORFLOW_LITE_C_C_API_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/c_api_types.h"
#include "tensorflow/lite/c/common.h"
#include "tensorflow/lite/core/c/operator.h"
#include "tensorflow/lite/core/c/registration_external.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*TfLiteErrorReporterCallback)(void* user_data, const char* format,
                                            va_list args);

/* ---- Version ------------------------------------------------------------ */

/* The TFLite version whose C API litegpu implements, e.g. "2.17.0". */
TFL_CAPI_EXPORT const char* TfLiteVersion(void);
/* The version of the extension APIs (custom operators and delegates:
 * c_api_opaque.h, common.h, builtin_op_data.h, builtin_ops.h). As in
 * TFLite, the same string as TfLiteVersion. */
TFL_CAPI_EXPORT const char* TfLiteExtensionApisVersion(void);
/* The .tflite schema version this runtime reads: 3. */
TFL_CAPI_EXPORT int TfLiteSchemaVersion(void);

/* ---- Model -------------------------------------------------------------- */

/* A model over a caller's buffer, verified; NULL when malformed. */
TFL_CAPI_EXPORT TfLiteModel* TfLiteModelCreate(const void* model_data,
                                               size_t model_size);
TFL_CAPI_EXPORT TfLiteModel* TfLiteModelCreateWithErrorReporter(
    const void* model_data, size_t model_size,
    TfLiteErrorReporterCallback reporter, void* user_data);
/* A model mapped from a file (weights are not copied); NULL on failure. */
TFL_CAPI_EXPORT TfLiteModel* TfLiteModelCreateFromFile(const char* model_path);
TFL_CAPI_EXPORT TfLiteModel* TfLiteModelCreateFromFileWithErrorReporter(
    const char* model_path, TfLiteErrorReporterCallback reporter,
    void* user_data);
TFL_CAPI_EXPORT void TfLiteModelDelete(TfLiteModel* model);

/* ---- Interpreter options ------------------------------------------------ */

TFL_CAPI_EXPORT TfLiteInterpreterOptions* TfLiteInterpreterOptionsCreate(void);
/* A shallow copy: operators and delegates are shared, not duplicated. */
TFL_CAPI_EXPORT TfLiteInterpreterOptions* TfLiteInterpreterOptionsCopy(
    const TfLiteInterpreterOptions* from);
TFL_CAPI_EXPORT void TfLiteInterpreterOptionsDelete(
    TfLiteInterpreterOptions* options);
/* Threads kernels may use; -1 lets the runtime choose. */
TFL_CAPI_EXPORT void TfLiteInterpreterOptionsSetNumThreads(
    TfLiteInterpreterOptions* options, int32_t num_threads);
/* Registers an operator (custom, or a builtin override). The caller keeps
 * ownership and keeps it alive while interpreters made from these options
 * exist. Later additions take precedence over earlier ones. */
TFL_CAPI_EXPORT void TfLiteInterpreterOptionsAddOperator(
    TfLiteInterpreterOptions* options, TfLiteOperator* registration);
/* Former name of TfLiteInterpreterOptionsAddOperator. */
TFL_CAPI_EXPORT void TfLiteInterpreterOptionsAddRegistrationExternal(
    TfLiteInterpreterOptions* options, TfLiteOperator* registration);
/* Adds a delegate, applied at interpreter creation in the order added. The
 * caller owns the delegate and keeps it alive while any interpreter created
 * from these options exists. If applying a delegate fails, creation fails
 * (returns NULL), as in TFLite, unless delegate fallback is enabled
 * (TfLiteInterpreterOptionsSetEnableDelegateFallback): then that delegate is
 * undone with a warning and the graph runs without it. */
TFL_CAPI_EXPORT void TfLiteInterpreterOptionsAddDelegate(
    TfLiteInterpreterOptions* options, TfLiteOpaqueDelegate* delegate);
TFL_CAPI_EXPORT void TfLiteInterpreterOptionsSetErrorReporter(
    TfLiteInterpreterOptions* options, TfLiteErrorReporterCallback reporter,
    void* user_data);
/* Lets TfLiteInterpreterCancel stop an Invoke (default off, as in TFLite). */
TFL_CAPI_EXPORT void TfLiteInterpreterOptionsEnableCancellation(
    TfLiteInterpreterOptions* options, bool enable);

/* ---- Interpreter -------------------------------------------------------- */

/* NULL on failure (a malformed graph, an unresolved operator, ...). `options`
 * may be NULL. */
TFL_CAPI_EXPORT TfLiteInterpreter* TfLiteInterpreterCreate(
    const TfLiteModel* model, const TfLiteInterpreterOptions* optional_options);
TFL_CAPI_EXPORT void TfLiteInterpreterDelete(TfLiteInterpreter* interpreter);

TFL_CAPI_EXPORT int32_t
TfLiteInterpreterGetInputTensorCount(const TfLiteInterpreter* interpreter);
TFL_CAPI_EXPORT const int* TfLiteInterpreterInputTensorIndices(
    const TfLiteInterpreter* interpreter);
TFL_CAPI_EXPORT TfLiteTensor* TfLiteInterpreterGetInputTensor(
    const TfLiteInterpreter* interpreter, int32_t input_index);
/* Changes an input's shape; AllocateTensors must run again before Invoke. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteInterpreterResizeInputTensor(
    TfLiteInterpreter* interpreter, int32_t input_index, const int* input_dims,
    int32_t input_dims_size);
/* Prepares every node and plans memory. */
TFL_CAPI_EXPORT TfLiteStatus
TfLiteInterpreterAllocateTensors(TfLiteInterpreter* interpreter);
TFL_CAPI_EXPORT TfLiteStatus
TfLiteInterpreterInvoke(TfLiteInterpreter* interpreter);
TFL_CAPI_EXPORT int32_t
TfLiteInterpreterGetOutputTensorCount(const TfLiteInterpreter* interpreter);
TFL_CAPI_EXPORT const int* TfLiteInterpreterOutputTensorIndices(
    const TfLiteInterpreter* interpreter);
TFL_CAPI_EXPORT const TfLiteTensor* TfLiteInterpreterGetOutputTensor(
    const TfLiteInterpreter* interpreter, int32_t output_index);
/* Any tensor of the primary subgraph by index; NULL when out of range. An
 * intermediate constant folded at AllocateTensors (a DEQUANTIZE of constant
 * weights) has NULL data once every node reading it packed its own copy
 * (docs/architecture.md, "Constants a kernel copied"). */
TFL_CAPI_EXPORT TfLiteTensor* TfLiteInterpreterGetTensor(
    const TfLiteInterpreter* interpreter, int index);

/* Stops the Invoke in flight (of the interpreter or any of its signature
 * runners) before its next node, or before the next iteration of a WHILE
 * loop; that Invoke returns kTfLiteCancelled. An Invoke that starts after
 * this call is not cancelled. Thread safe. kTfLiteError unless cancellation
 * was enabled in the options. */
TFL_CAPI_EXPORT TfLiteStatus
TfLiteInterpreterCancel(const TfLiteInterpreter* interpreter);

/* ---- Signatures ----------------------------------------------------------
 * A model's SignatureDefs: each names a subgraph and maps input and output
 * names to its tensors. A runner runs its signature's subgraph with that
 * subgraph's own tensors; runners of one signature share them (and subgraph
 * 0's signature shares them with the interpreter's own API). Delete every
 * runner before the interpreter. */

TFL_CAPI_EXPORT int32_t
TfLiteInterpreterGetSignatureCount(const TfLiteInterpreter* interpreter);
/* NULL when the index is out of range. */
TFL_CAPI_EXPORT const char* TfLiteInterpreterGetSignatureKey(
    const TfLiteInterpreter* interpreter, int32_t signature_index);
/* NULL when no signature has that key. */
TFL_CAPI_EXPORT TfLiteSignatureRunner* TfLiteInterpreterGetSignatureRunner(
    const TfLiteInterpreter* interpreter, const char* signature_key);
TFL_CAPI_EXPORT size_t TfLiteSignatureRunnerGetInputCount(
    const TfLiteSignatureRunner* signature_runner);
TFL_CAPI_EXPORT const char* TfLiteSignatureRunnerGetInputName(
    const TfLiteSignatureRunner* signature_runner, int32_t input_index);
/* Resizes only the dimensions the model leaves unknown (-1 in the tensor's
 * dims_signature), as TfLiteInterpreterResizeInputTensorStrict; takes
 * effect at the next TfLiteSignatureRunnerAllocateTensors. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteSignatureRunnerResizeInputTensor(
    TfLiteSignatureRunner* signature_runner, const char* input_name,
    const int* input_dims, int32_t input_dims_size);
TFL_CAPI_EXPORT TfLiteStatus
TfLiteSignatureRunnerAllocateTensors(TfLiteSignatureRunner* signature_runner);
/* NULL when the signature has no input of that name. */
TFL_CAPI_EXPORT TfLiteTensor* TfLiteSignatureRunnerGetInputTensor(
    TfLiteSignatureRunner* signature_runner, const char* input_name);
TFL_CAPI_EXPORT TfLiteStatus
TfLiteSignatureRunnerInvoke(TfLiteSignatureRunner* signature_runner);
TFL_CAPI_EXPORT size_t TfLiteSignatureRunnerGetOutputCount(
    const TfLiteSignatureRunner* signature_runner);
TFL_CAPI_EXPORT const char* TfLiteSignatureRunnerGetOutputName(
    const TfLiteSignatureRunner* signature_runner, int32_t output_index);
/* NULL when the signature has no output of that name. */
TFL_CAPI_EXPORT const TfLiteTensor* TfLiteSignatureRunnerGetOutputTensor(
    const TfLiteSignatureRunner* signature_runner, const char* output_name);
/* NULL is a no-op. */
TFL_CAPI_EXPORT void TfLiteSignatureRunnerDelete(
    TfLiteSignatureRunner* signature_runner);

/* ---- Tensor ------------------------------------------------------------- */

TFL_CAPI_EXPORT TfLiteType TfLiteTensorType(const TfLiteTensor* tensor);
/* -1 when the tensor has no shape. */
TFL_CAPI_EXPORT int32_t TfLiteTensorNumDims(const TfLiteTensor* tensor);
TFL_CAPI_EXPORT int32_t TfLiteTensorDim(const TfLiteTensor* tensor,
                                        int32_t dim_index);
TFL_CAPI_EXPORT size_t TfLiteTensorByteSize(const TfLiteTensor* tensor);
/* NULL before the tensor is allocated. */
TFL_CAPI_EXPORT void* TfLiteTensorData(const TfLiteTensor* tensor);
TFL_CAPI_EXPORT const char* TfLiteTensorName(const TfLiteTensor* tensor);
TFL_CAPI_EXPORT TfLiteQuantizationParams
TfLiteTensorQuantizationParams(const TfLiteTensor* tensor);
/* `input_data_size` must equal the tensor's byte size. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteTensorCopyFromBuffer(TfLiteTensor* tensor,
                                                        const void* input_data,
                                                        size_t input_data_size);
TFL_CAPI_EXPORT TfLiteStatus
TfLiteTensorCopyToBuffer(const TfLiteTensor* output_tensor, void* output_data,
                         size_t output_data_size);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_LITE_C_C_API_H_ */
