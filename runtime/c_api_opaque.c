/* The opaque kernel and delegate API
 * (include/tensorflow/lite/c/c_api_opaque.h).
 *
 * TfLiteOpaqueContext, TfLiteOpaqueNode, TfLiteOpaqueTensor and
 * TfLiteOpaqueDelegate are the TfLiteContext, TfLiteNode, TfLiteTensor and
 * TfLiteDelegate of the interpreter seen through a cast; every function here
 * converts back and reads or writes the TfLite structure, and the delegate
 * functions go through the context's own delegate functions
 * (runtime/delegate.c), so legacy and opaque delegates share one path.
 * Functions tolerate NULL handles and bad indices: they return NULL, -1 or
 * kTfLiteError and leave everything unchanged.
 */
#include "tensorflow/lite/c/c_api_opaque.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/delegate.h"
#include "runtime/interpreter.h"
#include "runtime/model/model.h"
#include "runtime/string_tensor.h"
#include "runtime/subgraph.h"

/* ---- Conversions -------------------------------------------------------- */

static const TfLiteTensor* tensor_of(const TfLiteOpaqueTensor* t) {
  return (const TfLiteTensor*)t;
}

static TfLiteTensor* mutable_tensor_of(TfLiteOpaqueTensor* t) {
  return (TfLiteTensor*)t;
}

static const TfLiteNode* node_of(const TfLiteOpaqueNode* n) {
  return (const TfLiteNode*)n;
}

static const TfLiteContext* context_of(const TfLiteOpaqueContext* c) {
  return (const TfLiteContext*)c;
}

static TfLiteContext* mutable_context_of(TfLiteOpaqueContext* c) {
  return (TfLiteContext*)c;
}

/* The interpreter's subgraph behind a context, or NULL for a context that
 * no interpreter subgraph owns (impl_ unset, or another owner's
 * lg_kernel_env, such as a delegate's private graph). */
static lg_subgraph* subgraph_of(const TfLiteOpaqueContext* c) {
  if (c == NULL) return NULL;
  const lg_kernel_env* env = context_of(c)->impl_;
  return env == NULL ? NULL : env->interpreter_subgraph;
}

/* ---- Tensors ------------------------------------------------------------ */

TfLiteType TfLiteOpaqueTensorType(const TfLiteOpaqueTensor* opaque_tensor) {
  const TfLiteTensor* t = tensor_of(opaque_tensor);
  return t == NULL ? kTfLiteNoType : t->type;
}

int32_t TfLiteOpaqueTensorNumDims(const TfLiteOpaqueTensor* opaque_tensor) {
  const TfLiteTensor* t = tensor_of(opaque_tensor);
  if (t == NULL || t->dims == NULL) return -1;
  return t->dims->size;
}

int32_t TfLiteOpaqueTensorNumDimensions(
    const TfLiteOpaqueTensor* opaque_tensor) {
  return TfLiteOpaqueTensorNumDims(opaque_tensor);
}

int32_t TfLiteOpaqueTensorDim(const TfLiteOpaqueTensor* opaque_tensor,
                              int32_t dim_index) {
  const TfLiteTensor* t = tensor_of(opaque_tensor);
  if (t == NULL || t->dims == NULL || dim_index < 0 ||
      dim_index >= t->dims->size) {
    return -1;
  }
  return t->dims->data[dim_index];
}

/* The shape signature (-1 = unknown extent) or, without one, the shape. */
static const TfLiteIntArray* signature_of(const TfLiteTensor* t) {
  return t->dims_signature != NULL ? t->dims_signature : t->dims;
}

TfLiteStatus TfLiteOpaqueTensorGetNumDimsSignature(
    const TfLiteOpaqueTensor* opaque_tensor, int32_t* num_dims) {
  const TfLiteTensor* t = tensor_of(opaque_tensor);
  if (t == NULL || num_dims == NULL) return kTfLiteError;
  const TfLiteIntArray* sig = signature_of(t);
  *num_dims = sig == NULL ? -1 : sig->size;
  return kTfLiteOk;
}

TfLiteStatus TfLiteOpaqueTensorGetDimSignature(
    const TfLiteOpaqueTensor* opaque_tensor, int32_t dim_index,
    int32_t* dim_length) {
  const TfLiteTensor* t = tensor_of(opaque_tensor);
  if (t == NULL || dim_length == NULL) return kTfLiteError;
  const TfLiteIntArray* sig = signature_of(t);
  if (sig == NULL || dim_index < 0 || dim_index >= sig->size) {
    return kTfLiteError;
  }
  *dim_length = sig->data[dim_index];
  return kTfLiteOk;
}

int TfLiteOpaqueTensorIsVariable(const TfLiteOpaqueTensor* opaque_tensor) {
  const TfLiteTensor* t = tensor_of(opaque_tensor);
  return t != NULL && t->is_variable ? 1 : 0;
}

size_t TfLiteOpaqueTensorByteSize(const TfLiteOpaqueTensor* opaque_tensor) {
  const TfLiteTensor* t = tensor_of(opaque_tensor);
  return t == NULL ? 0 : t->bytes;
}

int TfLiteOpaqueTensorGetStringCount(const TfLiteOpaqueTensor* tensor) {
  const TfLiteTensor* t = tensor_of(tensor);
  if (t == NULL || t->type != kTfLiteString) return -1;
  return lg_string_count(t, NULL);
}

TfLiteStatus TfLiteOpaqueTensorGetString(const TfLiteOpaqueTensor* tensor,
                                         int index, const char** str,
                                         int* len) {
  const int count = TfLiteOpaqueTensorGetStringCount(tensor);
  if (str == NULL || len == NULL || index < 0 || index >= count) {
    return kTfLiteError;
  }
  size_t length = 0;
  lg_string_at(tensor_of(tensor), index, str, &length);
  *len = (int)length;
  return kTfLiteOk;
}

/* The tensor's index in the subgraph whose kernel runs on this thread, or
 * -1 (reported) when no kernel runs or the tensor is not one of its. */
static int running_tensor_index(const TfLiteTensor* t, const char* fn,
                                lg_subgraph** s) {
  *s = lg_subgraph_running();
  if (*s == NULL) {
    lg_report(NULL,
              "%s: no kernel is running on this thread (an opaque tensor is "
              "written from its operator's Prepare or Invoke)",
              fn);
    return -1;
  }
  const TfLiteTensor* first = (*s)->context.tensors;
  if (t == NULL || first == NULL || t < first ||
      t >= first + (*s)->context.tensors_size) {
    lg_report(&(*s)->interpreter->reporter,
              "%s: the tensor is not one of the running graph's tensors", fn);
    return -1;
  }
  return (int)(t - first);
}

TfLiteStatus TfLiteOpaqueTensorWriteStrings(TfLiteOpaqueTensor* tensor,
                                            const char* const* str_array,
                                            int str_array_len,
                                            const int* str_n_len) {
  static const char kFn[] = "TfLiteOpaqueTensorWriteStrings";
  lg_subgraph* s = NULL;
  const int index = running_tensor_index(tensor_of(tensor), kFn, &s);
  if (index < 0) return kTfLiteError;
  if (str_array_len < 0 ||
      (str_array_len > 0 && (str_array == NULL || str_n_len == NULL))) {
    lg_report(&s->interpreter->reporter,
              "%s: %d strings with a NULL array or lengths", kFn,
              str_array_len);
    return kTfLiteError;
  }
  return lg_string_write_vector(s, index, str_array, str_n_len, str_array_len);
}

TfLiteStatus TfLiteOpaqueTensorWriteString(TfLiteOpaqueTensor* tensor,
                                           const char* str, const int len) {
  return TfLiteOpaqueTensorWriteStrings(tensor, &str, 1, &len);
}

void* TfLiteOpaqueTensorData(const TfLiteOpaqueTensor* opaque_tensor) {
  const TfLiteTensor* t = tensor_of(opaque_tensor);
  return t == NULL ? NULL : t->data.data;
}

TfLiteAllocationType TfLiteOpaqueTensorGetAllocationType(
    const TfLiteOpaqueTensor* opaque_tensor) {
  const TfLiteTensor* t = tensor_of(opaque_tensor);
  return t == NULL ? kTfLiteMemNone : t->allocation_type;
}

const char* TfLiteOpaqueTensorName(const TfLiteOpaqueTensor* opaque_tensor) {
  const TfLiteTensor* t = tensor_of(opaque_tensor);
  return t == NULL ? NULL : t->name;
}

TfLiteQuantization TfLiteOpaqueTensorGetQuantization(
    const TfLiteOpaqueTensor* opaque_tensor) {
  const TfLiteTensor* t = tensor_of(opaque_tensor);
  if (t == NULL) {
    TfLiteQuantization none = {kTfLiteNoQuantization, NULL};
    return none;
  }
  return t->quantization;
}

TfLiteQuantizationParams TfLiteOpaqueTensorGetQuantizationParams(
    const TfLiteOpaqueTensor* opaque_tensor) {
  const TfLiteTensor* t = tensor_of(opaque_tensor);
  if (t == NULL) {
    TfLiteQuantizationParams none = {0.0f, 0};
    return none;
  }
  return t->params;
}

/* kTfLiteOk when `size` bytes can be copied to or from `t`'s data: the size
 * matches the tensor exactly and its memory is allocated. */
static TfLiteStatus check_copy(const TfLiteTensor* t, const void* buffer,
                               size_t size) {
  if (t == NULL || size != t->bytes) return kTfLiteError;
  if (size == 0) return kTfLiteOk;
  if (buffer == NULL || t->data.raw_const == NULL) return kTfLiteError;
  return kTfLiteOk;
}

TfLiteStatus TfLiteOpaqueTensorCopyFromBuffer(TfLiteOpaqueTensor* opaque_tensor,
                                              const void* input_data,
                                              size_t input_data_size) {
  TfLiteTensor* t = mutable_tensor_of(opaque_tensor);
  TF_LITE_ENSURE_STATUS(check_copy(t, input_data, input_data_size));
  if (input_data_size > 0) memcpy(t->data.raw, input_data, input_data_size);
  return kTfLiteOk;
}

TfLiteStatus TfLiteOpaqueTensorCopyToBuffer(
    const TfLiteOpaqueTensor* opaque_tensor, void* output_data,
    size_t output_data_size) {
  const TfLiteTensor* t = tensor_of(opaque_tensor);
  TF_LITE_ENSURE_STATUS(check_copy(t, output_data, output_data_size));
  if (output_data_size > 0) {
    memcpy(output_data, t->data.raw_const, output_data_size);
  }
  return kTfLiteOk;
}

/* ---- Tensor builder ----------------------------------------------------- */

struct TfLiteOpaqueTensorBuilder {
  TfLiteType type;
  void* data; /* the caller's; NULL lets the runtime allocate */
  TfLiteAllocationType allocation_type;
  TfLiteQuantizationParams quantization_params;
  TfLiteQuantization quantization; /* owned by the builder */
};

TfLiteOpaqueTensorBuilder* TfLiteOpaqueTensorBuilderCreate(void) {
  TfLiteOpaqueTensorBuilder* b = calloc(1, sizeof(*b));
  if (b == NULL) return NULL;
  b->type = kTfLiteNoType;
  b->allocation_type = kTfLiteDynamic;
  b->quantization.type = kTfLiteNoQuantization;
  return b;
}

void TfLiteOpaqueTensorBuilderDelete(TfLiteOpaqueTensorBuilder* builder) {
  if (builder == NULL) return;
  TfLiteQuantizationFree(&builder->quantization);
  free(builder);
}

TfLiteOpaqueTensorBuilder* TfLiteOpaqueTensorBuilderSetType(
    TfLiteOpaqueTensorBuilder* builder, TfLiteType type) {
  if (builder != NULL) builder->type = type;
  return builder;
}

TfLiteOpaqueTensorBuilder* TfLiteOpaqueTensorBuilderSetData(
    TfLiteOpaqueTensorBuilder* builder, void* data) {
  if (builder != NULL) builder->data = data;
  return builder;
}

TfLiteOpaqueTensorBuilder* TfLiteOpaqueTensorBuilderSetAllocationType(
    TfLiteOpaqueTensorBuilder* builder, TfLiteAllocationType allocation_type) {
  /* Checked in TfLiteOpaqueContextAddTensor, where it can be reported. */
  if (builder != NULL) builder->allocation_type = allocation_type;
  return builder;
}

TfLiteOpaqueTensorBuilder* TfLiteOpaqueTensorBuilderSetQuantizationParams(
    TfLiteOpaqueTensorBuilder* builder, TfLiteQuantizationParams params) {
  if (builder != NULL) builder->quantization_params = params;
  return builder;
}

TfLiteOpaqueTensorBuilder* TfLiteOpaqueTensorBuilderSetQuantization(
    TfLiteOpaqueTensorBuilder* builder, TfLiteQuantization quantization) {
  if (builder == NULL) {
    /* Ownership was handed over: do not leak what nobody can take. */
    TfLiteQuantizationFree(&quantization);
    return NULL;
  }
  TfLiteQuantizationFree(&builder->quantization);
  builder->quantization = quantization;
  return builder;
}

/* A deep copy of affine quantization parameters; NULL when out of memory. */
static TfLiteAffineQuantization* copy_affine(
    const TfLiteAffineQuantization* src) {
  TfLiteAffineQuantization* q = calloc(1, sizeof(*q));
  if (q == NULL) return NULL;
  q->quantized_dimension = src->quantized_dimension;
  q->scale = TfLiteFloatArrayCopy(src->scale);
  q->zero_point = TfLiteIntArrayCopy(src->zero_point);
  if ((src->scale != NULL && q->scale == NULL) ||
      (src->zero_point != NULL && q->zero_point == NULL)) {
    TfLiteFloatArrayFree(q->scale);
    TfLiteIntArrayFree(q->zero_point);
    free(q);
    return NULL;
  }
  return q;
}

/* The tensor's own copy of the builder's quantization. The builder keeps its
 * copy, so one builder can describe several tensors. */
static TfLiteStatus copy_quantization(TfLiteContext* context,
                                      const TfLiteQuantization* src,
                                      TfLiteQuantization* dst) {
  dst->type = kTfLiteNoQuantization;
  dst->params = NULL;
  if (src->type == kTfLiteNoQuantization) return kTfLiteOk;
  if (src->type != kTfLiteAffineQuantization || src->params == NULL) {
    context->ReportError(context,
                         "TfLiteOpaqueContextAddTensor: unsupported "
                         "quantization type %d.",
                         (int)src->type);
    return kTfLiteError;
  }
  TfLiteAffineQuantization* q = copy_affine(src->params);
  if (q == NULL) {
    context->ReportError(context,
                         "TfLiteOpaqueContextAddTensor: out of memory.");
    return kTfLiteError;
  }
  dst->type = kTfLiteAffineQuantization;
  dst->params = q;
  return kTfLiteOk;
}

static bool allocation_type_allowed(TfLiteAllocationType type) {
  return type == kTfLiteDynamic || type == kTfLiteArenaRw ||
         type == kTfLiteArenaRwPersistent;
}

TfLiteStatus TfLiteOpaqueContextAddTensor(TfLiteOpaqueContext* opaque_context,
                                          TfLiteOpaqueTensorBuilder* builder,
                                          int* new_tensor_index) {
  TfLiteContext* context = mutable_context_of(opaque_context);
  if (context == NULL || builder == NULL || new_tensor_index == NULL ||
      context->AddTensors == NULL) {
    return kTfLiteError;
  }
  if (!allocation_type_allowed(builder->allocation_type)) {
    context->ReportError(context,
                         "Invalid allocation type '%d'. Allocation type for "
                         "opaque tensor can only be kTfLiteDynamic, "
                         "kTfLiteArenaRw or kTfLiteArenaRwPersistent.",
                         (int)builder->allocation_type);
    return kTfLiteError;
  }
  TfLiteQuantization quantization;
  TF_LITE_ENSURE_STATUS(
      copy_quantization(context, &builder->quantization, &quantization));
  TfLiteIntArray* dims = TfLiteIntArrayCreate(0);
  int index = -1;
  if (dims == NULL || context->AddTensors(context, 1, &index) != kTfLiteOk ||
      index < 0 || (size_t)index >= context->tensors_size) {
    TfLiteIntArrayFree(dims);
    TfLiteQuantizationFree(&quantization);
    return kTfLiteError;
  }
  /* AddTensors may have moved context->tensors: index only after it. */
  TfLiteTensor* t = &context->tensors[index];
  t->type = builder->type;
  t->allocation_type = builder->allocation_type;
  if (builder->data != NULL) t->data.data = builder->data;
  t->params = builder->quantization_params;
  TfLiteQuantizationFree(&t->quantization);
  t->quantization = quantization;
  /* An empty shape: the kernel sizes the tensor with ResizeTensor. */
  TfLiteIntArrayFree(t->dims);
  t->dims = dims;
  *new_tensor_index = index;
  return kTfLiteOk;
}

/* ---- Nodes -------------------------------------------------------------- */

/* The tensor at position `index` of `list`, or NULL when the position is out
 * of range, the entry is an omitted optional tensor or not a tensor. */
static TfLiteTensor* node_tensor(const TfLiteContext* context,
                                 const TfLiteIntArray* list, int index) {
  if (context == NULL || list == NULL || index < 0 || index >= list->size) {
    return NULL;
  }
  const int tensor_index = list->data[index];
  if (tensor_index < 0 || (size_t)tensor_index >= context->tensors_size) {
    return NULL;
  }
  return &context->tensors[tensor_index];
}

const TfLiteOpaqueTensor* TfLiteOpaqueNodeGetInput(
    const TfLiteOpaqueContext* opaque_context,
    const TfLiteOpaqueNode* opaque_node, int index) {
  const TfLiteNode* node = node_of(opaque_node);
  if (node == NULL) return NULL;
  return (const TfLiteOpaqueTensor*)node_tensor(context_of(opaque_context),
                                                node->inputs, index);
}

TfLiteOpaqueTensor* TfLiteOpaqueNodeGetOutput(
    TfLiteOpaqueContext* opaque_context, const TfLiteOpaqueNode* opaque_node,
    int index) {
  const TfLiteNode* node = node_of(opaque_node);
  if (node == NULL) return NULL;
  return (TfLiteOpaqueTensor*)node_tensor(context_of(opaque_context),
                                          node->outputs, index);
}

static int array_size(const TfLiteIntArray* a) {
  return a == NULL ? 0 : a->size;
}

int TfLiteOpaqueNodeNumberOfInputs(const TfLiteOpaqueNode* opaque_node) {
  const TfLiteNode* node = node_of(opaque_node);
  return node == NULL ? -1 : array_size(node->inputs);
}

int TfLiteOpaqueNodeNumInputs(const TfLiteOpaqueNode* opaque_node) {
  return TfLiteOpaqueNodeNumberOfInputs(opaque_node);
}

int TfLiteOpaqueNodeNumberOfOutputs(const TfLiteOpaqueNode* opaque_node) {
  const TfLiteNode* node = node_of(opaque_node);
  return node == NULL ? -1 : array_size(node->outputs);
}

int TfLiteOpaqueNodeNumOutputs(const TfLiteOpaqueNode* opaque_node) {
  return TfLiteOpaqueNodeNumberOfOutputs(opaque_node);
}

void* TfLiteOpaqueNodeGetUserData(const TfLiteOpaqueNode* opaque_node) {
  const TfLiteNode* node = node_of(opaque_node);
  return node == NULL ? NULL : node->user_data;
}

void* TfLiteOpaqueNodeGetBuiltinData(const TfLiteOpaqueNode* opaque_node) {
  const TfLiteNode* node = node_of(opaque_node);
  return node == NULL ? NULL : node->builtin_data;
}

TfLiteStatus TfLiteOpaqueNodeGetCustomInitialData(
    const TfLiteOpaqueNode* opaque_node, const void** init_data, int* size) {
  const TfLiteNode* node = node_of(opaque_node);
  if (node == NULL || init_data == NULL || size == NULL) return kTfLiteError;
  *init_data = node->custom_initial_data;
  *size = node->custom_initial_data_size;
  return kTfLiteOk;
}

/* Exposes an index list as (pointer, count); an absent list is empty. */
static TfLiteStatus get_list(const TfLiteIntArray* list, const int** data,
                             int* count) {
  if (data == NULL || count == NULL) return kTfLiteError;
  *data = list == NULL ? NULL : list->data;
  *count = array_size(list);
  return kTfLiteOk;
}

TfLiteStatus TfLiteOpaqueNodeInputs(const TfLiteOpaqueNode* opaque_node,
                                    const int** inputs, int* num_inputs) {
  const TfLiteNode* node = node_of(opaque_node);
  if (node == NULL) return kTfLiteError;
  return get_list(node->inputs, inputs, num_inputs);
}

TfLiteStatus TfLiteOpaqueNodeOutputs(const TfLiteOpaqueNode* opaque_node,
                                     const int** outputs, int* num_outputs) {
  const TfLiteNode* node = node_of(opaque_node);
  if (node == NULL) return kTfLiteError;
  return get_list(node->outputs, outputs, num_outputs);
}

TfLiteStatus TfLiteOpaqueNodeTemporaries(const TfLiteOpaqueNode* opaque_node,
                                         const int** temporaries,
                                         int* num_temporaries) {
  const TfLiteNode* node = node_of(opaque_node);
  if (node == NULL) return kTfLiteError;
  return get_list(node->temporaries, temporaries, num_temporaries);
}

TfLiteStatus TfLiteOpaqueNodeSetTemporaries(TfLiteOpaqueNode* opaque_node,
                                            const int* temporaries,
                                            int num_temporaries) {
  TfLiteNode* node = (TfLiteNode*)opaque_node;
  if (node == NULL || num_temporaries < 0 ||
      (num_temporaries > 0 && temporaries == NULL)) {
    return kTfLiteError;
  }
  TfLiteIntArray* copy = TfLiteIntArrayCreate(num_temporaries);
  if (copy == NULL) return kTfLiteError;
  if (num_temporaries > 0) {
    memcpy(copy->data, temporaries, sizeof(int) * (size_t)num_temporaries);
  }
  TfLiteIntArrayFree(node->temporaries);
  node->temporaries = copy;
  return kTfLiteOk;
}

static int tensor_index_at(const TfLiteIntArray* list, int index) {
  if (list == NULL || index < 0 || index >= list->size) return -1;
  return list->data[index];
}

int TfLiteOpaqueNodeGetInputTensorIndex(const TfLiteOpaqueNode* opaque_node,
                                        int index_of_input) {
  const TfLiteNode* node = node_of(opaque_node);
  return node == NULL ? -1 : tensor_index_at(node->inputs, index_of_input);
}

int TfLiteOpaqueNodeGetOutputTensorIndex(const TfLiteOpaqueNode* opaque_node,
                                         int index_of_output) {
  const TfLiteNode* node = node_of(opaque_node);
  return node == NULL ? -1 : tensor_index_at(node->outputs, index_of_output);
}

/* ---- Context: delegate Prepare ------------------------------------------ */

TfLiteStatus TfLiteOpaqueContextGetExecutionPlan(
    TfLiteOpaqueContext* opaque_context, TfLiteIntArray** execution_plan) {
  TfLiteContext* context = mutable_context_of(opaque_context);
  if (context == NULL || context->GetExecutionPlan == NULL ||
      execution_plan == NULL) {
    return kTfLiteError;
  }
  return context->GetExecutionPlan(context, execution_plan);
}

TfLiteStatus TfLiteOpaqueContextGetNodeAndRegistration(
    struct TfLiteOpaqueContext* opaque_context, int node_index,
    TfLiteOpaqueNode** node, TfLiteOperator** registration_external) {
  TfLiteContext* context = mutable_context_of(opaque_context);
  lg_subgraph* sg = subgraph_of(opaque_context);
  if (context == NULL || sg == NULL || node == NULL ||
      registration_external == NULL) {
    return kTfLiteError;
  }
  TfLiteNode* n = NULL;
  TfLiteRegistration* r = NULL;
  TF_LITE_ENSURE_STATUS(
      context->GetNodeAndRegistration(context, node_index, &n, &r));
  TfLiteOperator* op = lg_subgraph_node_operator(sg, node_index);
  if (op == NULL) return kTfLiteError;
  *node = (TfLiteOpaqueNode*)n;
  *registration_external = op;
  return kTfLiteOk;
}

TfLiteStatus TfLiteOpaqueContextReplaceNodeSubsetsWithDelegateKernels(
    struct TfLiteOpaqueContext* opaque_context,
    TfLiteOperator* registration_external,
    const TfLiteIntArray* nodes_to_replace,
    TfLiteOpaqueDelegate* opaque_delegate) {
  TfLiteContext* context = mutable_context_of(opaque_context);
  if (context == NULL ||
      context->ReplaceNodeSubsetsWithDelegateKernels == NULL) {
    return kTfLiteError;
  }
  /* A registration that only carries the operator: the runtime reads its
   * name, version and callbacks from there. */
  TfLiteRegistration registration;
  memset(&registration, 0, sizeof(registration));
  registration.registration_external = registration_external;
  return context->ReplaceNodeSubsetsWithDelegateKernels(
      context, registration, nodes_to_replace, opaque_delegate);
}

TfLiteStatus TfLiteOpaqueContextAcquireSubgraphContext(
    struct TfLiteOpaqueContext* opaque_context, int subgraph_index,
    TfLiteOpaqueContext** acquired_opaque_context) {
  lg_subgraph* sg = subgraph_of(opaque_context);
  if (sg == NULL || acquired_opaque_context == NULL) return kTfLiteError;
  TfLiteContext* acquired = NULL;
  TF_LITE_ENSURE_STATUS(
      lg_subgraph_acquire_context(sg, subgraph_index, &acquired));
  *acquired_opaque_context = (TfLiteOpaqueContext*)acquired;
  return kTfLiteOk;
}

TfLiteStatus TfLiteOpaqueContextReleaseSubgraphContext(
    struct TfLiteOpaqueContext* opaque_context, int subgraph_index) {
  lg_subgraph* sg = subgraph_of(opaque_context);
  if (sg == NULL) return kTfLiteError;
  return lg_subgraph_release_context(sg, subgraph_index);
}

/* ---- Context ------------------------------------------------------------ */

TfLiteOpaqueTensor* TfLiteOpaqueContextGetOpaqueTensor(
    const TfLiteOpaqueContext* opaque_context, int index) {
  const TfLiteContext* context = context_of(opaque_context);
  if (context == NULL || context->tensors == NULL || index < 0 ||
      (size_t)index >= context->tensors_size) {
    return NULL;
  }
  return (TfLiteOpaqueTensor*)&context->tensors[index];
}

TfLiteStatus TfLiteOpaqueContextGetInputs(
    const struct TfLiteOpaqueContext* opaque_context, const int** inputs,
    int* num_inputs) {
  const lg_subgraph* sg = subgraph_of(opaque_context);
  if (sg == NULL || inputs == NULL || num_inputs == NULL) return kTfLiteError;
  *inputs = sg->inputs;
  *num_inputs = sg->num_inputs;
  return kTfLiteOk;
}

TfLiteStatus TfLiteOpaqueContextGetOutputs(
    const struct TfLiteOpaqueContext* opaque_context, const int** outputs,
    int* num_outputs) {
  const lg_subgraph* sg = subgraph_of(opaque_context);
  if (sg == NULL || outputs == NULL || num_outputs == NULL) {
    return kTfLiteError;
  }
  *outputs = sg->outputs;
  *num_outputs = sg->num_outputs;
  return kTfLiteOk;
}

TfLiteStatus TfLiteOpaqueContextGetVariables(
    const struct TfLiteOpaqueContext* opaque_context, const int** variables,
    int* num_variables) {
  const lg_subgraph* sg = subgraph_of(opaque_context);
  if (sg == NULL || variables == NULL || num_variables == NULL) {
    return kTfLiteError;
  }
  *variables = sg->variables;
  *num_variables = sg->num_variables;
  return kTfLiteOk;
}

size_t TfLiteOpaqueContextGetNumNodes(
    const struct TfLiteOpaqueContext* opaque_context) {
  const lg_subgraph* sg = subgraph_of(opaque_context);
  return sg == NULL || sg->num_nodes < 0 ? 0 : (size_t)sg->num_nodes;
}

size_t TfLiteOpaqueContextGetNumTensors(
    const struct TfLiteOpaqueContext* opaque_context) {
  const TfLiteContext* context = context_of(opaque_context);
  return context == NULL ? 0 : context->tensors_size;
}

const char* TfLiteOpaqueContextGetName(
    const struct TfLiteOpaqueContext* opaque_context) {
  const lg_subgraph* sg = subgraph_of(opaque_context);
  if (sg == NULL || sg->model_subgraph == NULL ||
      sg->model_subgraph->name == NULL) {
    return "";
  }
  return sg->model_subgraph->name;
}

TfLiteStatus TfLiteOpaqueContextResizeTensor(TfLiteOpaqueContext* context,
                                             TfLiteOpaqueTensor* tensor,
                                             TfLiteIntArray* new_size) {
  TfLiteContext* c = mutable_context_of(context);
  if (c == NULL || c->ResizeTensor == NULL || tensor == NULL) {
    TfLiteIntArrayFree(new_size); /* owned by us even on failure */
    return kTfLiteError;
  }
  return c->ResizeTensor(c, mutable_tensor_of(tensor), new_size);
}

TfLiteStatus TfLiteOpaqueContextGetSizeOfType(TfLiteOpaqueContext* context,
                                              TfLiteType type, size_t* bytes) {
  if (bytes == NULL) return kTfLiteError;
  if (TfLiteGetSizeOfType(type, bytes) == kTfLiteOk) return kTfLiteOk;
  TfLiteContext* c = mutable_context_of(context);
  if (c != NULL && c->ReportError != NULL) {
    c->ReportError(c,
                   "TfLiteOpaqueContextGetSizeOfType: type %s (%d) has no "
                   "fixed element size.",
                   TfLiteTypeGetName(type), (int)type);
  }
  return kTfLiteError;
}

TfLiteStatus TfLiteOpaqueContextGetMetadata(TfLiteOpaqueContext* context,
                                            const char* name, const char** ptr,
                                            size_t* bytes) {
  const lg_subgraph* sg = subgraph_of(context);
  if (sg == NULL || name == NULL || ptr == NULL || bytes == NULL ||
      sg->interpreter == NULL || sg->interpreter->model == NULL ||
      sg->interpreter->model->model == NULL) {
    return kTfLiteError;
  }
  const uint8_t* data = NULL;
  size_t size = 0;
  if (!lg_model_find_metadata(sg->interpreter->model->model, name, &data,
                              &size)) {
    return kTfLiteError;
  }
  *ptr = (const char*)data;
  *bytes = size;
  return kTfLiteOk;
}

void TfLiteOpaqueContextReportErrorVa(
    struct TfLiteOpaqueContext* opaque_context, const char* format,
    va_list vlist) {
  TfLiteContext* context = mutable_context_of(opaque_context);
  if (context == NULL || context->ReportError == NULL || format == NULL) {
    return;
  }
  /* ReportError takes `...`, not a va_list: format here, pass it as %s. */
  char small[512];
  va_list copy;
  va_copy(copy, vlist);
  const int len = vsnprintf(small, sizeof(small), format, copy);
  va_end(copy);
  if (len < 0) {
    context->ReportError(context, "%s", format);
    return;
  }
  if ((size_t)len < sizeof(small)) {
    context->ReportError(context, "%s", small);
    return;
  }
  char* big = malloc((size_t)len + 1);
  if (big == NULL) {
    context->ReportError(context, "%s", small); /* truncated, but said */
    return;
  }
  vsnprintf(big, (size_t)len + 1, format, vlist);
  context->ReportError(context, "%s", big);
  free(big);
}

void TfLiteOpaqueContextReportError(struct TfLiteOpaqueContext* opaque_context,
                                    const char* format, ...) {
  va_list args;
  va_start(args, format);
  TfLiteOpaqueContextReportErrorVa(opaque_context, format, args);
  va_end(args);
}

/* ---- Opaque delegates --------------------------------------------------- */

TfLiteOpaqueDelegate* TfLiteOpaqueDelegateCreate(
    const TfLiteOpaqueDelegateBuilder* opaque_delegate_builder) {
  if (opaque_delegate_builder == NULL) return NULL;
  TfLiteDelegate* delegate = calloc(1, sizeof(*delegate));
  TfLiteOpaqueDelegateBuilder* builder = malloc(sizeof(*builder));
  if (delegate == NULL || builder == NULL) {
    free(delegate);
    free(builder);
    return NULL;
  }
  *builder = *opaque_delegate_builder;
  /* Prepare and the other TfLiteDelegate callbacks stay NULL: that is what
   * makes the builder's count (lg_delegate_is_opaque). */
  delegate->opaque_delegate_builder = builder;
  return delegate;
}

void TfLiteOpaqueDelegateDelete(TfLiteOpaqueDelegate* opaque_delegate) {
  if (opaque_delegate == NULL) return;
  free(opaque_delegate->opaque_delegate_builder);
  free(opaque_delegate);
}

void* TfLiteOpaqueDelegateGetData(const TfLiteOpaqueDelegate* delegate) {
  if (delegate == NULL) return NULL;
  if (delegate->opaque_delegate_builder == NULL) return delegate->data_;
  return delegate->opaque_delegate_builder->data;
}
