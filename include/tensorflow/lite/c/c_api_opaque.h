/* litegpu: the opaque kernel API used by TfLiteOperator callbacks, and the
 * opaque delegate API (TfLiteOpaqueDelegateCreate and the context's
 * delegate functions; see "Context: delegate Prepare" below).
 *
 * A custom operator sees the interpreter only through these handles:
 * TfLiteOpaqueContext (the graph), TfLiteOpaqueNode (one operator instance)
 * and TfLiteOpaqueTensor. Pointers returned here belong to the interpreter
 * and stay valid while the node runs; do not keep them across a resize.
 *
 *   static TfLiteStatus AtanInvoke(TfLiteOpaqueContext* ctx,
 *                                  TfLiteOpaqueNode* node) {
 *     const TfLiteOpaqueTensor* in = TfLiteOpaqueNodeGetInput(ctx, node, 0);
 *     TfLiteOpaqueTensor* out = TfLiteOpaqueNodeGetOutput(ctx, node, 0);
 *     ...
 *   }
 *
 * Both TFLite's spellings (TfLiteOpaqueNodeNumberOfInputs,
 * TfLiteOpaqueTensorNumDims) and the shorter ones of the custom-op guide
 * (TfLiteOpaqueNodeNumInputs, TfLiteOpaqueTensorNumDimensions) are provided.
 */
#ifndef TENSORFLOW_LITE_C_C_API_OPAQUE_H_
#define TENSORFLOW_LITE_C_C_API_OPAQUE_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_types.h"
#include "tensorflow/lite/c/common.h"
#include "tensorflow/lite/core/c/operator.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Tensors ------------------------------------------------------------ */

TFL_CAPI_EXPORT TfLiteType
TfLiteOpaqueTensorType(const TfLiteOpaqueTensor* opaque_tensor);
/* -1 when the tensor has no shape. */
TFL_CAPI_EXPORT int32_t
TfLiteOpaqueTensorNumDims(const TfLiteOpaqueTensor* opaque_tensor);
TFL_CAPI_EXPORT int32_t
TfLiteOpaqueTensorNumDimensions(const TfLiteOpaqueTensor* opaque_tensor);
TFL_CAPI_EXPORT int32_t TfLiteOpaqueTensorDim(
    const TfLiteOpaqueTensor* opaque_tensor, int32_t dim_index);
/* Rank of the shape signature into *num_dims (-1 dims mean unknown). */
TFL_CAPI_EXPORT TfLiteStatus TfLiteOpaqueTensorGetNumDimsSignature(
    const TfLiteOpaqueTensor* opaque_tensor, int32_t* num_dims);
TFL_CAPI_EXPORT TfLiteStatus
TfLiteOpaqueTensorGetDimSignature(const TfLiteOpaqueTensor* opaque_tensor,
                                  int32_t dim_index, int32_t* dim_length);
TFL_CAPI_EXPORT int TfLiteOpaqueTensorIsVariable(
    const TfLiteOpaqueTensor* opaque_tensor);
TFL_CAPI_EXPORT size_t
TfLiteOpaqueTensorByteSize(const TfLiteOpaqueTensor* opaque_tensor);
/* The strings of a STRING tensor (TFLite's layout): their number, -1 for a
 * malformed buffer or another type; string `index` (not NUL-terminated;
 * kTfLiteError out of range). */
TFL_CAPI_EXPORT int TfLiteOpaqueTensorGetStringCount(
    const TfLiteOpaqueTensor* tensor);
TFL_CAPI_EXPORT TfLiteStatus TfLiteOpaqueTensorGetString(
    const TfLiteOpaqueTensor* tensor, int index, const char** str, int* len);
/* Replaces a STRING tensor's contents with str_array_len strings
 * (str_array[i] of str_n_len[i] bytes, any bytes) and its shape with
 * [str_array_len], as TFLite's DynamicBuffer::WriteToTensorAsVector; the
 * tensor becomes dynamic. litegpu writes through the interpreter that owns
 * the tensor, which it finds as the graph whose operator's Prepare or Invoke
 * runs on the calling thread: called anywhere else, or on a tensor of
 * another graph, a constant or a non-STRING tensor, it reports why and
 * returns kTfLiteError. WriteString writes the one string str (len bytes). */
TFL_CAPI_EXPORT TfLiteStatus TfLiteOpaqueTensorWriteStrings(
    TfLiteOpaqueTensor* tensor, const char* const* str_array, int str_array_len,
    const int* str_n_len);
TFL_CAPI_EXPORT TfLiteStatus TfLiteOpaqueTensorWriteString(
    TfLiteOpaqueTensor* tensor, const char* str, const int len);
TFL_CAPI_EXPORT void* TfLiteOpaqueTensorData(
    const TfLiteOpaqueTensor* opaque_tensor);
TFL_CAPI_EXPORT TfLiteAllocationType
TfLiteOpaqueTensorGetAllocationType(const TfLiteOpaqueTensor* opaque_tensor);
TFL_CAPI_EXPORT const char* TfLiteOpaqueTensorName(
    const TfLiteOpaqueTensor* opaque_tensor);
TFL_CAPI_EXPORT TfLiteQuantization
TfLiteOpaqueTensorGetQuantization(const TfLiteOpaqueTensor* opaque_tensor);
TFL_CAPI_EXPORT TfLiteQuantizationParams
TfLiteOpaqueTensorGetQuantizationParams(
    const TfLiteOpaqueTensor* opaque_tensor);
TFL_CAPI_EXPORT TfLiteStatus TfLiteOpaqueTensorCopyFromBuffer(
    TfLiteOpaqueTensor* opaque_tensor, const void* input_data,
    size_t input_data_size);
TFL_CAPI_EXPORT TfLiteStatus
TfLiteOpaqueTensorCopyToBuffer(const TfLiteOpaqueTensor* opaque_tensor,
                               void* output_data, size_t output_data_size);

/* ---- Tensor builder (for TfLiteOpaqueContextAddTensor) ----------------- */

typedef struct TfLiteOpaqueTensorBuilder TfLiteOpaqueTensorBuilder;

TFL_CAPI_EXPORT TfLiteOpaqueTensorBuilder* TfLiteOpaqueTensorBuilderCreate(
    void);
TFL_CAPI_EXPORT void TfLiteOpaqueTensorBuilderDelete(
    TfLiteOpaqueTensorBuilder* builder);
TFL_CAPI_EXPORT TfLiteOpaqueTensorBuilder* TfLiteOpaqueTensorBuilderSetType(
    TfLiteOpaqueTensorBuilder* builder, TfLiteType type);
/* The data stays the caller's; the tensor points at it. */
TFL_CAPI_EXPORT TfLiteOpaqueTensorBuilder* TfLiteOpaqueTensorBuilderSetData(
    TfLiteOpaqueTensorBuilder* builder, void* data);
/* Only kTfLiteDynamic, kTfLiteArenaRw and kTfLiteArenaRwPersistent. */
TFL_CAPI_EXPORT TfLiteOpaqueTensorBuilder*
TfLiteOpaqueTensorBuilderSetAllocationType(
    TfLiteOpaqueTensorBuilder* builder, TfLiteAllocationType allocation_type);
TFL_CAPI_EXPORT TfLiteOpaqueTensorBuilder*
TfLiteOpaqueTensorBuilderSetQuantizationParams(
    TfLiteOpaqueTensorBuilder* builder, TfLiteQuantizationParams params);
/* Takes ownership of quantization.params. */
TFL_CAPI_EXPORT TfLiteOpaqueTensorBuilder*
TfLiteOpaqueTensorBuilderSetQuantization(TfLiteOpaqueTensorBuilder* builder,
                                         TfLiteQuantization quantization);

/* ---- Nodes -------------------------------------------------------------- */

/* NULL when index is out of range or the input is omitted. */
TFL_CAPI_EXPORT const TfLiteOpaqueTensor* TfLiteOpaqueNodeGetInput(
    const TfLiteOpaqueContext* opaque_context,
    const TfLiteOpaqueNode* opaque_node, int index);
TFL_CAPI_EXPORT TfLiteOpaqueTensor* TfLiteOpaqueNodeGetOutput(
    TfLiteOpaqueContext* opaque_context, const TfLiteOpaqueNode* opaque_node,
    int index);
TFL_CAPI_EXPORT int TfLiteOpaqueNodeNumberOfInputs(
    const TfLiteOpaqueNode* opaque_node);
TFL_CAPI_EXPORT int TfLiteOpaqueNodeNumInputs(
    const TfLiteOpaqueNode* opaque_node);
TFL_CAPI_EXPORT int TfLiteOpaqueNodeNumberOfOutputs(
    const TfLiteOpaqueNode* opaque_node);
TFL_CAPI_EXPORT int TfLiteOpaqueNodeNumOutputs(
    const TfLiteOpaqueNode* opaque_node);
/* What the operator's Init returned. */
TFL_CAPI_EXPORT void* TfLiteOpaqueNodeGetUserData(
    const TfLiteOpaqueNode* opaque_node);
TFL_CAPI_EXPORT void* TfLiteOpaqueNodeGetBuiltinData(
    const TfLiteOpaqueNode* opaque_node);
/* The custom options bytes of the node. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteOpaqueNodeGetCustomInitialData(
    const TfLiteOpaqueNode* opaque_node, const void** init_data, int* size);
TFL_CAPI_EXPORT TfLiteStatus TfLiteOpaqueNodeInputs(
    const TfLiteOpaqueNode* opaque_node, const int** inputs, int* num_inputs);
TFL_CAPI_EXPORT TfLiteStatus TfLiteOpaqueNodeOutputs(
    const TfLiteOpaqueNode* opaque_node, const int** outputs, int* num_outputs);
TFL_CAPI_EXPORT TfLiteStatus
TfLiteOpaqueNodeTemporaries(const TfLiteOpaqueNode* opaque_node,
                            const int** temporaries, int* num_temporaries);
/* Copies the array of tensor indices. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteOpaqueNodeSetTemporaries(
    TfLiteOpaqueNode* opaque_node, const int* temporaries, int num_temporaries);

/* The tensor index of the node's input (output) at position
 * `index_of_input` (`index_of_output`); -1 when out of range. */
TFL_CAPI_EXPORT int TfLiteOpaqueNodeGetInputTensorIndex(
    const TfLiteOpaqueNode* opaque_node, int index_of_input);
TFL_CAPI_EXPORT int TfLiteOpaqueNodeGetOutputTensorIndex(
    const TfLiteOpaqueNode* opaque_node, int index_of_output);

/* ---- Context: delegate Prepare ------------------------------------------
 *
 * An opaque delegate's Prepare (TfLiteOpaqueDelegateBuilder) walks the plan
 * and claims nodes:
 *
 *   TfLiteIntArray* plan;
 *   TfLiteOpaqueContextGetExecutionPlan(context, &plan);
 *   for each node index n in plan:
 *     TfLiteOpaqueContextGetNodeAndRegistration(context, n, &node, &op);
 *     if TfLiteOperatorGetBuiltInCode(op) is supported: claim n
 *   TfLiteOperator* kernel =
 *       TfLiteOperatorCreate(kTfLiteBuiltinDelegate, "MyDelegate", 1);
 *   ... TfLiteOperatorSetInit/Prepare/Invoke/Free(kernel, ...)
 *   TfLiteOpaqueContextReplaceNodeSubsetsWithDelegateKernels(
 *       context, kernel, claimed, delegate);
 *
 * These functions work only inside a delegate's Prepare (elsewhere they
 * report "The function is forbidden if not calling in delegate."), or on a
 * context acquired with TfLiteOpaqueContextAcquireSubgraphContext. */

/* The node indices in execution order; the array belongs to the runtime and
 * is valid until the graph changes. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteOpaqueContextGetExecutionPlan(
    TfLiteOpaqueContext* opaque_context, TfLiteIntArray** execution_plan);

/* Node `node_index` and its operator. A node resolved to a TfLiteOperator
 * gives that operator; any other node gives an operator the runtime makes
 * (one per builtin code, custom name and version, owned by the
 * interpreter) that carries the node's code, custom name and version and no
 * callbacks. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteOpaqueContextGetNodeAndRegistration(
    struct TfLiteOpaqueContext* opaque_context, int node_index,
    TfLiteOpaqueNode** node, TfLiteOperator** registration_external);

/* Replaces the nodes `nodes_to_replace` with one delegate kernel node per
 * partition of them (the partitioning of
 * ReplaceNodeSubsetsWithDelegateKernels in common.h). The kernel runs
 * `registration_external`'s callbacks; its Init receives a
 * TfLiteOpaqueDelegateParams* as `buffer` (length 0), which is also the
 * node's builtin data. The operator's builtin code becomes
 * kTfLiteBuiltinDelegate. For an opaque delegate the runtime takes
 * ownership of `registration_external` (also when the call fails) and
 * deletes it with the interpreter, so pass a new operator to each call (as
 * TFLite requires; the same one again in one interpreter is owned once);
 * `nodes_to_replace` stays the caller's. An opaque delegate without an
 * operator fails with kTfLiteDelegateError. A legacy delegate (one with
 * TfLiteDelegate.Prepare) that calls this keeps its operator, and its
 * kernel gets TfLiteDelegateParams instead. */
TFL_CAPI_EXPORT TfLiteStatus
TfLiteOpaqueContextReplaceNodeSubsetsWithDelegateKernels(
    struct TfLiteOpaqueContext* opaque_context,
    TfLiteOperator* registration_external,
    const TfLiteIntArray* nodes_to_replace,
    TfLiteOpaqueDelegate* opaque_delegate);

/* The context of subgraph `subgraph_index` of the same interpreter, on
 * which the delegate Prepare functions above work (reading only: it cannot
 * be changed with ReplaceNodeSubsetsWithDelegateKernels) until it is
 * released. Acquisitions nest; kTfLiteError for an index out of range. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteOpaqueContextAcquireSubgraphContext(
    struct TfLiteOpaqueContext* opaque_context, int subgraph_index,
    TfLiteOpaqueContext** acquired_opaque_context);
TFL_CAPI_EXPORT TfLiteStatus TfLiteOpaqueContextReleaseSubgraphContext(
    struct TfLiteOpaqueContext* opaque_context, int subgraph_index);

/* ---- Context ------------------------------------------------------------ */

TFL_CAPI_EXPORT TfLiteOpaqueTensor* TfLiteOpaqueContextGetOpaqueTensor(
    const TfLiteOpaqueContext* opaque_context, int index);
TFL_CAPI_EXPORT TfLiteStatus
TfLiteOpaqueContextGetInputs(const struct TfLiteOpaqueContext* opaque_context,
                             const int** inputs, int* num_inputs);
TFL_CAPI_EXPORT TfLiteStatus
TfLiteOpaqueContextGetOutputs(const struct TfLiteOpaqueContext* opaque_context,
                              const int** outputs, int* num_outputs);
/* The subgraph's variable tensors (is_variable), in tensor-index order. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteOpaqueContextGetVariables(
    const struct TfLiteOpaqueContext* opaque_context, const int** variables,
    int* num_variables);
TFL_CAPI_EXPORT size_t TfLiteOpaqueContextGetNumNodes(
    const struct TfLiteOpaqueContext* opaque_context);
TFL_CAPI_EXPORT size_t TfLiteOpaqueContextGetNumTensors(
    const struct TfLiteOpaqueContext* opaque_context);
/* The subgraph's name, or "" when it has none. */
TFL_CAPI_EXPORT const char* TfLiteOpaqueContextGetName(
    const struct TfLiteOpaqueContext* opaque_context);
/* Takes ownership of new_size, also on failure. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteOpaqueContextResizeTensor(
    TfLiteOpaqueContext* context, TfLiteOpaqueTensor* tensor,
    TfLiteIntArray* new_size);
/* Adds a tensor described by `builder`; its index into *new_tensor_index. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteOpaqueContextAddTensor(
    TfLiteOpaqueContext* context, TfLiteOpaqueTensorBuilder* builder,
    int* new_tensor_index);
/* The size of one element of `type` into *bytes (TfLiteGetSizeOfType);
 * kTfLiteError, reported, for a type without a fixed element size. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteOpaqueContextGetSizeOfType(
    TfLiteOpaqueContext* context, TfLiteType type, size_t* bytes);
/* The model's metadata entry `name` (bytes in the model buffer). */
TFL_CAPI_EXPORT TfLiteStatus
TfLiteOpaqueContextGetMetadata(TfLiteOpaqueContext* context, const char* name,
                               const char** ptr, size_t* bytes);
TFL_CAPI_EXPORT void TfLiteOpaqueContextReportError(
    struct TfLiteOpaqueContext* opaque_context, const char* format, ...);
TFL_CAPI_EXPORT void TfLiteOpaqueContextReportErrorVa(
    struct TfLiteOpaqueContext* opaque_context, const char* format,
    va_list vlist);

/* ---- Opaque delegates --------------------------------------------------- */

/* A new delegate holding a copy of `opaque_delegate_builder` (its Prepare
 * and callbacks get the builder's `data`); NULL when the builder is NULL or
 * memory runs out. Add it with TfLiteInterpreterOptionsAddDelegate or apply
 * it with TfLiteInterpreterModifyGraphWithDelegate; it must outlive the
 * interpreters it is applied to. */
TFL_CAPI_EXPORT TfLiteOpaqueDelegate* TfLiteOpaqueDelegateCreate(
    const TfLiteOpaqueDelegateBuilder* opaque_delegate_builder);
/* Deletes a delegate from TfLiteOpaqueDelegateCreate; NULL is a no-op. */
TFL_CAPI_EXPORT void TfLiteOpaqueDelegateDelete(
    TfLiteOpaqueDelegate* opaque_delegate);
/* The builder's data of an opaque delegate, the data_ of any other
 * TfLiteDelegate; NULL for NULL. */
TFL_CAPI_EXPORT void* TfLiteOpaqueDelegateGetData(
    const TfLiteOpaqueDelegate* delegate);

/* ---- Macros ------------------------------------------------------------- */

#define TF_LITE_OPAQUE_KERNEL_LOG(opaque_context, ...)             \
  do {                                                             \
    TfLiteOpaqueContextReportError((opaque_context), __VA_ARGS__); \
  } while (0)

#define TF_LITE_OPAQUE_MAYBE_KERNEL_LOG(opaque_context, ...)         \
  do {                                                               \
    if ((opaque_context) != NULL) {                                  \
      TfLiteOpaqueContextReportError((opaque_context), __VA_ARGS__); \
    }                                                                \
  } while (0)

#define TF_LITE_OPAQUE_ENSURE_MSG(opaque_context, value, msg)        \
  do {                                                               \
    if (!(value)) {                                                  \
      TF_LITE_OPAQUE_KERNEL_LOG((opaque_context), __FILE__ " " msg); \
      return kTfLiteError;                                           \
    }                                                                \
  } while (0)

#define TF_LITE_OPAQUE_ENSURE(opaque_context, a)                             \
  do {                                                                       \
    if (!(a)) {                                                              \
      TF_LITE_OPAQUE_KERNEL_LOG((opaque_context), "%s:%d: %s was not true.", \
                                __FILE__, __LINE__, #a);                     \
      return kTfLiteError;                                                   \
    }                                                                        \
  } while (0)

#define TF_LITE_OPAQUE_ENSURE_EQ(opaque_context, a, b)                  \
  do {                                                                  \
    if ((a) != (b)) {                                                   \
      TF_LITE_OPAQUE_KERNEL_LOG((opaque_context),                       \
                                "%s:%d: %s != %s (%d != %d)", __FILE__, \
                                __LINE__, #a, #b, (int)(a), (int)(b));  \
      return kTfLiteError;                                              \
    }                                                                   \
  } while (0)

#define TF_LITE_OPAQUE_ENSURE_TYPES_EQ(opaque_context, a, b)                  \
  do {                                                                        \
    if ((a) != (b)) {                                                         \
      TF_LITE_OPAQUE_KERNEL_LOG(                                              \
          (opaque_context), "%s:%d: %s != %s (%s != %s)", __FILE__, __LINE__, \
          #a, #b, TfLiteTypeGetName(a), TfLiteTypeGetName(b));                \
      return kTfLiteError;                                                    \
    }                                                                         \
  } while (0)

#define TF_LITE_OPAQUE_ENSURE_NEAR(opaque_context, a, b, epsilon)             \
  do {                                                                        \
    double delta_ = ((a) > (b)) ? ((a) - (b)) : ((b) - (a));                  \
    if (delta_ > (epsilon)) {                                                 \
      TF_LITE_OPAQUE_KERNEL_LOG((opaque_context),                             \
                                "%s:%d: %s not near %s (%f != %f)", __FILE__, \
                                __LINE__, #a, #b, (double)(a), (double)(b));  \
      return kTfLiteError;                                                    \
    }                                                                         \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_LITE_C_C_API_OPAQUE_H_ */
