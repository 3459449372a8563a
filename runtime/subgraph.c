/* Building a subgraph from the parsed model: tensors, nodes, resolved
 * registrations, and the TfLiteContext callbacks kernels use. Planning and
 * running live in execute.c. */
#include "runtime/subgraph.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/delegate.h"
#include "runtime/fuse_activations.h"
#include "runtime/model/builtin_options.h"
#include "runtime/operator.h"
#include "tensorflow/lite/builtin_ops.h"

/* The highest builtin code this runtime knows the name of. */
#define LG_MAX_BUILTIN_CODE 209

const char* lg_node_op_name(const lg_node* node) {
  const TfLiteRegistration* r = &node->registration;
  if ((r->builtin_code == kTfLiteBuiltinCustom ||
       r->builtin_code == kTfLiteBuiltinDelegate) &&
      r->custom_name != NULL) {
    return r->custom_name;
  }
  return lg_builtin_op_name(r->builtin_code);
}

/* ---- Context callbacks -------------------------------------------------- */

static void context_report_error(TfLiteContext* context, const char* format,
                                 ...) {
  va_list args;
  va_start(args, format);
  lg_reportv(&lg_subgraph_from_context(context)->interpreter->reporter, format,
             args);
  va_end(args);
}

void lg_context_report(TfLiteContext* context, const char* format, ...) {
  va_list args;
  va_start(args, format);
  lg_reportv(&lg_subgraph_from_context(context)->interpreter->reporter, format,
             args);
  va_end(args);
}

static int tensor_index_of(const lg_subgraph* s, const TfLiteTensor* t) {
  if (t < s->context.tensors ||
      t >= s->context.tensors + s->context.tensors_size) {
    return -1;
  }
  return (int)(t - s->context.tensors);
}

/* Gives a dynamic tensor exactly `bytes` of heap memory. */
static TfLiteStatus realloc_dynamic(lg_subgraph* s, int index, size_t bytes) {
  lg_tensor_info* info = &s->tensor_info[index];
  TfLiteTensor* t = &s->context.tensors[index];
  if (bytes > info->heap_size || info->heap == NULL) {
    void* block = realloc(info->heap, bytes == 0 ? 1 : bytes);
    if (block == NULL) return kTfLiteError;
    info->heap = block;
    info->heap_size = bytes;
  }
  t->data.raw = info->heap;
  return kTfLiteOk;
}

TfLiteStatus lg_subgraph_set_dims(lg_subgraph* s, TfLiteTensor* tensor,
                                  TfLiteIntArray* new_size) {
  const int index = tensor_index_of(s, tensor);
  size_t bytes = 0;
  if (index < 0 || new_size == NULL) {
    lg_report(&s->interpreter->reporter,
              "ResizeTensor: the tensor does not belong to this graph");
    TfLiteIntArrayFree(new_size);
    return kTfLiteError;
  }
  if (tensor->type != kTfLiteString &&
      lg_tensor_byte_size(tensor->type, new_size, &bytes) != kTfLiteOk) {
    lg_report(&s->interpreter->reporter,
              "ResizeTensor: tensor %d (%s): negative dimension or byte size "
              "overflow for type %s",
              index, tensor->name ? tensor->name : "",
              TfLiteTypeGetName(tensor->type));
    TfLiteIntArrayFree(new_size);
    return kTfLiteError;
  }
  if (tensor->allocation_type == kTfLiteMmapRo ||
      tensor->allocation_type == kTfLitePersistentRo) {
    if (!TfLiteIntArrayEqual(tensor->dims, new_size)) {
      lg_report(&s->interpreter->reporter,
                "ResizeTensor: tensor %d (%s) is constant and cannot change "
                "shape",
                index, tensor->name ? tensor->name : "");
      TfLiteIntArrayFree(new_size);
      return kTfLiteError;
    }
  }
  if (s->invoking && tensor->allocation_type == kTfLiteArenaRw &&
      bytes != tensor->bytes && tensor->data.raw != NULL &&
      s->tensor_info[index].heap == NULL) {
    lg_report(&s->interpreter->reporter,
              "ResizeTensor: tensor %d (%s) changed size during Invoke; a "
              "kernel must make it dynamic in Prepare first",
              index, tensor->name ? tensor->name : "");
    TfLiteIntArrayFree(new_size);
    return kTfLiteError;
  }
  TfLiteIntArrayFree(tensor->dims);
  tensor->dims = new_size;
  tensor->bytes = bytes;
  if (tensor->allocation_type == kTfLiteDynamic) {
    return realloc_dynamic(s, index, bytes);
  }
  return kTfLiteOk;
}

static TfLiteStatus context_resize_tensor(TfLiteContext* context,
                                          TfLiteTensor* tensor,
                                          TfLiteIntArray* new_size) {
  return lg_subgraph_set_dims(lg_subgraph_from_context(context), tensor,
                              new_size);
}

static TfLiteStatus context_resize_tensor_explicit(TfLiteContext* context,
                                                   TfLiteTensor* tensor,
                                                   int dims, const int* shape) {
  if (dims < 0 || (dims > 0 && shape == NULL)) return kTfLiteError;
  TfLiteIntArray* new_size = TfLiteIntArrayCreate(dims);
  if (new_size == NULL) return kTfLiteError;
  if (dims > 0) memcpy(new_size->data, shape, sizeof(int) * (size_t)dims);
  return context_resize_tensor(context, tensor, new_size);
}

static TfLiteStatus grow_tensors(lg_subgraph* s, size_t needed) {
  if (needed <= s->tensors_capacity) return kTfLiteOk;
  size_t capacity = s->tensors_capacity * 2;
  if (capacity < needed) capacity = needed;
  TfLiteTensor* tensors =
      realloc(s->context.tensors, sizeof(TfLiteTensor) * capacity);
  if (tensors == NULL) return kTfLiteError;
  s->context.tensors = tensors;
  lg_tensor_info* info =
      realloc(s->tensor_info, sizeof(lg_tensor_info) * capacity);
  if (info == NULL) return kTfLiteError;
  s->tensor_info = info;
  s->tensors_capacity = capacity;
  return kTfLiteOk;
}

/* Adds zeroed tensors; note that context->tensors may move. */
static TfLiteStatus context_add_tensors(TfLiteContext* context,
                                        int tensors_to_add,
                                        int* first_new_tensor_index) {
  lg_subgraph* s = lg_subgraph_from_context(context);
  if (tensors_to_add < 0 ||
      (size_t)tensors_to_add > (size_t)INT32_MAX - context->tensors_size) {
    return kTfLiteError;
  }
  const size_t first = context->tensors_size;
  if (first_new_tensor_index != NULL) *first_new_tensor_index = (int)first;
  /* A graph without tensors has no array to add to (found by the
   * interpreter fuzzer). */
  if (tensors_to_add == 0) return kTfLiteOk;
  if (grow_tensors(s, first + (size_t)tensors_to_add) != kTfLiteOk) {
    lg_report(&s->interpreter->reporter, "AddTensors: out of memory");
    return kTfLiteError;
  }
  memset(&context->tensors[first], 0,
         sizeof(TfLiteTensor) * (size_t)tensors_to_add);
  memset(&s->tensor_info[first], 0,
         sizeof(lg_tensor_info) * (size_t)tensors_to_add);
  for (size_t i = first; i < first + (size_t)tensors_to_add; ++i) {
    context->tensors[i].buffer_handle = kTfLiteNullBufferHandle;
  }
  context->tensors_size = first + (size_t)tensors_to_add;
  return kTfLiteOk;
}

static TfLiteTensor* context_get_tensor(const TfLiteContext* context,
                                        int tensor_idx) {
  if (tensor_idx < 0 || (size_t)tensor_idx >= context->tensors_size) {
    return NULL;
  }
  return &context->tensors[tensor_idx];
}

static TfLiteStatus context_get_model_metadata(const TfLiteContext* context,
                                               const char* name,
                                               const char** ptr,
                                               size_t* bytes) {
  if (name == NULL || ptr == NULL || bytes == NULL) return kTfLiteError;
  const lg_model* model =
      lg_subgraph_from_context(context)->interpreter->model->model;
  const uint8_t* data = NULL;
  size_t size = 0;
  if (!lg_model_find_metadata(model, name, &data, &size)) return kTfLiteError;
  *ptr = (const char*)data;
  *bytes = size;
  return kTfLiteOk;
}

static TfLiteExternalContext* context_get_external(
    TfLiteContext* context, TfLiteExternalContextType type) {
  if ((int)type < 0 || type >= kTfLiteMaxExternalContexts) return NULL;
  return lg_subgraph_from_context(context)->external_contexts[type];
}

static void context_set_external(TfLiteContext* context,
                                 TfLiteExternalContextType type,
                                 TfLiteExternalContext* external) {
  if ((int)type < 0 || type >= kTfLiteMaxExternalContexts) return;
  lg_subgraph_from_context(context)->external_contexts[type] = external;
}

static void init_context(lg_subgraph* s) {
  TfLiteContext* c = &s->context;
  memset(c, 0, sizeof(*c));
  c->impl_ = s;
  c->ResizeTensor = context_resize_tensor;
  c->ReportError = context_report_error;
  c->AddTensors = context_add_tensors;
  c->recommended_num_threads = s->interpreter->num_threads;
  c->GetExternalContext = context_get_external;
  c->SetExternalContext = context_set_external;
  c->ResizeTensorExplicit = context_resize_tensor_explicit;
  c->GetTensor = context_get_tensor;
  c->GetModelMetadata = context_get_model_metadata;
  lg_delegate_install_context(c);
}

/* ---- Tensors from the model ---------------------------------------------- */

static TfLiteIntArray* int_array_from(const int32_t* data, int32_t count) {
  TfLiteIntArray* a = TfLiteIntArrayCreate(count);
  if (a != NULL && count > 0)
    memcpy(a->data, data, sizeof(int) * (size_t)count);
  return a;
}

/* An index vector of the model (1-, 2- or 4-byte entries) as ints. */
static TfLiteIntArray* index_array_from(const lg_sparse_index* v) {
  TfLiteIntArray* a = TfLiteIntArrayCreate(v->count);
  for (int32_t i = 0; a != NULL && i < v->count; ++i) {
    a->data[i] = (int)lg_sparse_index_at(v, i);
  }
  return a;
}

/* The tensor's TfLiteSparsity (TFLite's layout) from the model's. */
static TfLiteStatus copy_sparsity(const lg_model_sparsity* ms,
                                  TfLiteTensor* t) {
  TfLiteSparsity* s = calloc(1, sizeof(*s));
  if (s == NULL) return kTfLiteError;
  t->sparsity = s;
  s->traversal_order =
      int_array_from(ms->traversal_order, ms->num_traversal_order);
  s->block_map = int_array_from(ms->block_map, ms->num_block_map);
  s->dim_metadata =
      calloc((size_t)ms->num_levels + 1, sizeof(*s->dim_metadata));
  if (s->traversal_order == NULL || s->block_map == NULL ||
      s->dim_metadata == NULL) {
    return kTfLiteError;
  }
  s->dim_metadata_size = ms->num_levels;
  for (int32_t k = 0; k < ms->num_levels; ++k) {
    const lg_sparse_level* level = &ms->levels[k];
    TfLiteDimensionMetadata* d = &s->dim_metadata[k];
    d->format =
        level->format == LG_SPARSE_CSR ? kTfLiteDimSparseCSR : kTfLiteDimDense;
    d->dense_size = level->dense_size;
    if (level->format == LG_SPARSE_CSR) {
      d->array_segments = index_array_from(&level->segments);
      d->array_indices = index_array_from(&level->indices);
      if (d->array_segments == NULL || d->array_indices == NULL) {
        return kTfLiteError;
      }
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus copy_quantization(const lg_model_quantization* q,
                                      TfLiteTensor* t) {
  if (q->num_scale == 0) return kTfLiteOk;
  TfLiteAffineQuantization* affine = calloc(1, sizeof(*affine));
  if (affine == NULL) return kTfLiteError;
  t->quantization.type = kTfLiteAffineQuantization;
  t->quantization.params = affine;
  affine->scale = TfLiteFloatArrayCreate(q->num_scale);
  affine->zero_point = TfLiteIntArrayCreate(q->num_scale);
  if (affine->scale == NULL || affine->zero_point == NULL) return kTfLiteError;
  for (int i = 0; i < q->num_scale; ++i) {
    affine->scale->data[i] = q->scale[i];
    /* A single zero point applies to every channel, as in TFLite. */
    affine->zero_point->data[i] = i < q->num_zero_point ? (int)q->zero_point[i]
                                  : q->num_zero_point > 0
                                      ? (int)q->zero_point[0]
                                      : 0;
  }
  affine->quantized_dimension = q->quantized_dimension;
  t->params.scale = q->scale[0];
  t->params.zero_point = affine->zero_point->data[0];
  return kTfLiteOk;
}

/* Constants point into the model. The reader guarantees 4-byte alignment of
 * buffer data only, so data of wider elements that is not aligned to its
 * element size is copied once into an aligned heap block. */
static TfLiteStatus map_constant(lg_subgraph* s, int index,
                                 const lg_model_buffer* buffer) {
  TfLiteTensor* t = &s->context.tensors[index];
  size_t element = 1;
  TfLiteGetSizeOfType(t->type, &element);
  t->bytes = (size_t)buffer->size;
  if (element <= 1 || (uintptr_t)buffer->data % element == 0) {
    t->allocation_type = kTfLiteMmapRo;
    t->data.raw_const = (const char*)buffer->data;
    return kTfLiteOk;
  }
  lg_tensor_info* info = &s->tensor_info[index];
  info->heap = aligned_alloc(16, (t->bytes + 15) / 16 * 16);
  if (info->heap == NULL) return kTfLiteError;
  info->heap_size = t->bytes;
  memcpy(info->heap, buffer->data, t->bytes);
  t->allocation_type = kTfLitePersistentRo;
  t->data.raw = info->heap;
  return kTfLiteOk;
}

/* The integer range of a quantized storage type; false for other types
 * (float tensors may carry min / max statistics, int32 / int64 biases a
 * scale derived from others, and neither is checked here). */
static bool quantized_storage_range(TfLiteType type, int64_t* lo, int64_t* hi) {
  switch (type) {
    case kTfLiteInt8:
      *lo = -128;
      *hi = 127;
      return true;
    case kTfLiteUInt8:
      *lo = 0;
      *hi = 255;
      return true;
    case kTfLiteInt16:
      *lo = -32768;
      *hi = 32767;
      return true;
    case kTfLiteInt4:
      *lo = -8;
      *hi = 7;
      return true;
    default:
      return false;
  }
}

/* Invalid quantization of an INT8 / UINT8 / INT16 / INT4 tensor fails the
 * interpreter's creation with a message naming the tensor and the problem
 * (a kernel reading it would compute garbage): every scale finite and above
 * 0, every zero point within the type's range, per channel one scale per
 * index of a quantized_dimension inside the shape and 0, 1 or as many
 * zero points. */
static TfLiteStatus check_quantization(lg_subgraph* s, int index,
                                       const lg_model_tensor* mt) {
  const lg_model_quantization* q = &mt->quantization;
  int64_t lo = 0, hi = 0;
  if (!mt->has_quantization || q->num_scale == 0 ||
      !quantized_storage_range(mt->type, &lo, &hi)) {
    return kTfLiteOk;
  }
  const lg_reporter* rep = &s->interpreter->reporter;
  const char* type = TfLiteTypeGetName(mt->type);
  for (int i = 0; i < q->num_scale; ++i) {
    if (!(isfinite(q->scale[i]) && q->scale[i] > 0.0f)) {
      lg_report(rep,
                "Tensor %d ('%s', %s) has scale %g at %d: a quantization "
                "scale must be finite and greater than 0",
                index, mt->name, type, (double)q->scale[i], i);
      return kTfLiteError;
    }
  }
  for (int i = 0; i < q->num_zero_point; ++i) {
    if (q->zero_point[i] < lo || q->zero_point[i] > hi) {
      lg_report(rep,
                "Tensor %d ('%s', %s) has zero point %lld at %d, outside "
                "%s's range [%lld, %lld]",
                index, mt->name, type, (long long)q->zero_point[i], i, type,
                (long long)lo, (long long)hi);
      return kTfLiteError;
    }
  }
  /* No zero point means 0 for every channel. */
  if (q->num_zero_point > 1 && q->num_zero_point != q->num_scale) {
    lg_report(rep,
              "Tensor %d ('%s') has %d zero points for %d scales (expected 1 "
              "or %d)",
              index, mt->name, q->num_zero_point, q->num_scale, q->num_scale);
    return kTfLiteError;
  }
  if (q->num_scale > 1 &&
      (q->quantized_dimension < 0 || q->quantized_dimension >= mt->num_dims ||
       mt->shape[q->quantized_dimension] != q->num_scale)) {
    lg_report(rep,
              "Tensor %d ('%s') has %d scales for dimension %d of its %d-D "
              "shape, which does not have that many entries",
              index, mt->name, q->num_scale, q->quantized_dimension,
              mt->num_dims);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus init_tensor(lg_subgraph* s, int index,
                                const lg_model_tensor* mt) {
  const lg_model* model = s->interpreter->model->model;
  TfLiteTensor* t = &s->context.tensors[index];
  t->type = mt->type;
  t->name = mt->name;
  t->is_variable = mt->is_variable;
  t->dims = int_array_from(mt->shape, mt->num_dims);
  if (t->dims == NULL) return kTfLiteError;
  if (mt->shape_signature != NULL) {
    t->dims_signature =
        int_array_from(mt->shape_signature, mt->num_dims_signature);
    if (t->dims_signature == NULL) return kTfLiteError;
  }
  if (check_quantization(s, index, mt) != kTfLiteOk) return kTfLiteError;
  if (mt->has_quantization &&
      copy_quantization(&mt->quantization, t) != kTfLiteOk) {
    return kTfLiteError;
  }
  if (mt->has_sparsity && copy_sparsity(&mt->sparsity, t) != kTfLiteOk) {
    return kTfLiteError;
  }
  if (t->type == kTfLiteString) {
    t->bytes = 0;
  } else if (lg_tensor_byte_size(t->type, t->dims, &t->bytes) != kTfLiteOk) {
    lg_report(&s->interpreter->reporter,
              "Tensor %d (%s) has type %s, which litegpu cannot allocate",
              index, t->name, TfLiteTypeGetName(t->type));
    return kTfLiteError;
  }
  const lg_model_buffer* buffer = &model->buffers[mt->buffer];
  if (buffer->data != NULL && buffer->size > 0 && !mt->is_variable) {
    return map_constant(s, index, buffer);
  } else if (mt->has_sparsity) {
    /* A sparse constant without stored values: every block is zero. */
    static const char kNoValues[1];
    t->allocation_type = kTfLiteMmapRo;
    t->data.raw_const = kNoValues;
    t->bytes = 0;
  } else if (mt->is_variable) {
    t->allocation_type = kTfLiteArenaRwPersistent;
  } else if (t->type == kTfLiteString) {
    t->allocation_type = kTfLiteDynamic;
  } else {
    t->allocation_type = kTfLiteArenaRw;
  }
  return kTfLiteOk;
}

static TfLiteStatus build_tensors(lg_subgraph* s) {
  const lg_model_subgraph* ms = s->model_subgraph;
  int first = 0;
  if (context_add_tensors(&s->context, ms->num_tensors, &first) != kTfLiteOk) {
    return kTfLiteError;
  }
  for (int i = 0; i < ms->num_tensors; ++i) {
    if (init_tensor(s, i, &ms->tensors[i]) != kTfLiteOk) return kTfLiteError;
  }
  return kTfLiteOk;
}

/* ---- Nodes ----------------------------------------------------------------
 */

static void report_unresolved(lg_subgraph* s, const lg_model_opcode* opcode,
                              const lg_resolve_result* r) {
  const lg_reporter* rep = &s->interpreter->reporter;
  if (opcode->builtin_code == kTfLiteBuiltinCustom) {
    lg_report(rep, "Operator with CUSTOM builtin_code has no custom_code.\n");
    return;
  }
  const char* name = lg_builtin_op_name(opcode->builtin_code);
  lg_report(rep,
            "Didn't find op for builtin opcode '%s' version '%d'. An older "
            "version of this builtin might be supported. Are you using an old "
            "TFLite binary with a newer model?\n",
            name, opcode->version);
  if (r->status == LG_RESOLVE_VERSION_UNSUPPORTED) {
    lg_report(rep,
              "%s version %d is not supported: this runtime supports "
              "versions %d to %d.",
              name, opcode->version, r->min_supported, r->max_supported);
  } else {
    lg_report(rep, "%s is not supported by this runtime at any version.", name);
  }
  lg_report(rep, "Registration failed.\n");
}

bool lg_subgraph_has_unresolved(const lg_subgraph* s) {
  for (int p = 0; p < s->execution_plan->size; ++p) {
    if (s->nodes[s->execution_plan->data[p]].unresolved) return true;
  }
  return false;
}

static TfLiteStatus unresolved_invoke(TfLiteContext* context,
                                      TfLiteNode* node) {
  (void)node;
  context->ReportError(context,
                       "Encountered an unresolved custom op. Did you miss a "
                       "custom op or delegate?");
  return kTfLiteError;
}

/* TFLite's placeholder for a custom op that no registration resolves: the
 * interpreter is still created, so that a delegate can claim the node; the
 * op is reported when the node is prepared outside delegation. */
static void set_placeholder(lg_node* node, const lg_model_opcode* opcode) {
  memset(&node->registration, 0, sizeof(node->registration));
  node->registration.invoke = unresolved_invoke;
  node->registration.builtin_code = kTfLiteBuiltinCustom;
  node->registration.custom_name = opcode->custom_code;
  node->registration.version = opcode->version;
  node->unresolved = true;
}

/* `reported`: whether this opcode's failure was already reported (one
 * report per operator code, as TFLite resolves codes, not nodes). */
static TfLiteStatus resolve_node(lg_subgraph* s, lg_node* node,
                                 const lg_model_opcode* opcode,
                                 bool* reported) {
  if (opcode->builtin_code < 0 || opcode->builtin_code > LG_MAX_BUILTIN_CODE) {
    lg_report(&s->interpreter->reporter,
              "Op builtin_code out of range: %d. Are you using old TFLite "
              "binary with newer model?",
              opcode->builtin_code);
    return kTfLiteError;
  }
  lg_resolve_result r =
      lg_op_resolver_find(&s->interpreter->resolver, opcode->builtin_code,
                          opcode->custom_code, opcode->version);
  if (r.status != LG_RESOLVE_FOUND &&
      opcode->builtin_code == kTfLiteBuiltinCustom &&
      opcode->custom_code != NULL) {
    set_placeholder(node, opcode);
    return kTfLiteOk;
  }
  if (r.status != LG_RESOLVE_FOUND) {
    if (!*reported) report_unresolved(s, opcode, &r);
    *reported = true;
    return kTfLiteUnresolvedOps;
  }
  node->registration = r.registration;
  node->registration.builtin_code = opcode->builtin_code;
  node->registration.custom_name =
      opcode->builtin_code == kTfLiteBuiltinCustom ? opcode->custom_code : NULL;
  node->registration.version = opcode->version;
  if (node->registration.registration_external != NULL &&
      lg_operator_has_async_kernel_only(
          node->registration.registration_external)) {
    lg_report(&s->interpreter->reporter,
              "Operator %s sets an AsyncKernel but no Invoke; litegpu calls "
              "async kernels only from the async signature runner, so it "
              "needs an Invoke callback for Invoke",
              lg_node_op_name(node));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus fill_node(lg_subgraph* s, lg_node* node,
                              const lg_model_operator* op) {
  TfLiteNode* n = &node->node;
  n->inputs = int_array_from(op->inputs, op->num_inputs);
  n->outputs = int_array_from(op->outputs, op->num_outputs);
  n->intermediates = int_array_from(op->intermediates, op->num_intermediates);
  n->temporaries = TfLiteIntArrayCreate(0);
  if (!n->inputs || !n->outputs || !n->intermediates || !n->temporaries) {
    return kTfLiteError;
  }
  if (node->registration.builtin_code == kTfLiteBuiltinCustom) {
    n->custom_initial_data = op->custom_options;
    n->custom_initial_data_size = (int)op->custom_options_size;
    return kTfLiteOk;
  }
  return lg_builtin_options_parse(node->registration.builtin_code, op,
                                  &s->interpreter->reporter, &n->builtin_data);
}

/* Each tensor is written by one operator at most, and no operator reads what
 * itself or a later operator writes. Kernels check their inputs' shapes at
 * Prepare and rely on them at Invoke; a tensor that a later Prepare resizes
 * as an output breaks that (a fuzzer found DETECTION_POSTPROCESS reading its
 * own resized output as an input). Converters emit operators in execution
 * order, so real models pass; the reader accepts such files (tools inspect
 * them), the interpreter does not run them. */
static TfLiteStatus check_dataflow(lg_subgraph* s) {
  const lg_model_subgraph* ms = s->model_subgraph;
  if (ms->num_tensors == 0 || ms->num_operators == 0) return kTfLiteOk;
  int32_t* writer = malloc((size_t)ms->num_tensors * sizeof(*writer));
  if (writer == NULL) return kTfLiteError;
  for (int32_t t = 0; t < ms->num_tensors; ++t) writer[t] = -1;
  lg_reporter* rep = &s->interpreter->reporter;
  TfLiteStatus status = kTfLiteOk;
  for (int32_t o = 0; status == kTfLiteOk && o < ms->num_operators; ++o) {
    const lg_model_operator* op = &ms->operators[o];
    for (int32_t k = 0; status == kTfLiteOk && k < op->num_outputs; ++k) {
      const int32_t t = op->outputs[k];
      if (writer[t] >= 0) {
        lg_report(rep,
                  "subgraph %d: tensor %d is written by operators %d and %d",
                  s->index, t, writer[t], o);
        status = kTfLiteError;
      }
      writer[t] = o;
    }
  }
  for (int32_t o = 0; status == kTfLiteOk && o < ms->num_operators; ++o) {
    const lg_model_operator* op = &ms->operators[o];
    for (int32_t k = 0; status == kTfLiteOk && k < op->num_inputs; ++k) {
      const int32_t t = op->inputs[k];
      if (t < 0 || writer[t] < o) continue;
      if (writer[t] == o) {
        lg_report(rep,
                  "subgraph %d operator %d: tensor %d is both an input and an "
                  "output of the operator",
                  s->index, o, t);
      } else {
        lg_report(rep,
                  "subgraph %d operator %d: input %d is tensor %d, which "
                  "operator %d after it writes",
                  s->index, o, k, t, writer[t]);
      }
      status = kTfLiteError;
    }
  }
  free(writer);
  return status;
}

static TfLiteStatus build_nodes(lg_subgraph* s) {
  const lg_model_subgraph* ms = s->model_subgraph;
  const lg_model* model = s->interpreter->model->model;
  s->nodes = calloc((size_t)(ms->num_operators > 0 ? ms->num_operators : 1),
                    sizeof(lg_node));
  s->execution_plan = TfLiteIntArrayCreate(ms->num_operators);
  if (s->nodes == NULL || s->execution_plan == NULL) return kTfLiteError;
  s->nodes_capacity = ms->num_operators > 0 ? ms->num_operators : 1;
  bool* reported = calloc((size_t)model->num_opcodes + 1, sizeof(bool));
  if (reported == NULL) return kTfLiteError;
  TfLiteStatus status = kTfLiteOk;
  for (int i = 0; i < ms->num_operators; ++i) {
    const lg_model_operator* op = &ms->operators[i];
    lg_node* node = &s->nodes[i];
    node->op_index = i;
    s->num_nodes = i + 1;
    s->num_model_nodes = i + 1;
    s->execution_plan->data[i] = i;
    /* Resolve every op first so that all unresolved ones are reported. */
    TfLiteStatus r = resolve_node(s, node, &model->opcodes[op->opcode_index],
                                  &reported[op->opcode_index]);
    if (r != kTfLiteOk) {
      if (status == kTfLiteOk || r == kTfLiteUnresolvedOps) status = r;
      continue;
    }
    if (fill_node(s, node, op) != kTfLiteOk) {
      status = kTfLiteError;
      break;
    }
  }
  free(reported);
  return status;
}

static TfLiteStatus init_nodes(lg_subgraph* s) {
  for (int i = 0; i < s->num_nodes; ++i) {
    lg_node* node = &s->nodes[i];
    TfLiteNode* n = &node->node;
    const char* buffer = n->builtin_data;
    size_t length = 0;
    if (node->registration.builtin_code == kTfLiteBuiltinCustom) {
      buffer = n->custom_initial_data;
      length = (size_t)n->custom_initial_data_size;
    }
    n->user_data =
        lg_registration_init(&s->context, &node->registration, buffer, length);
    node->initialized = true;
  }
  return kTfLiteOk;
}

static TfLiteStatus copy_io(lg_subgraph* s) {
  const lg_model_subgraph* ms = s->model_subgraph;
  s->num_inputs = ms->num_inputs;
  s->num_outputs = ms->num_outputs;
  s->inputs = malloc(sizeof(int) * (size_t)(ms->num_inputs + 1));
  s->outputs = malloc(sizeof(int) * (size_t)(ms->num_outputs + 1));
  if (s->inputs == NULL || s->outputs == NULL) return kTfLiteError;
  for (int i = 0; i < ms->num_inputs; ++i) s->inputs[i] = ms->inputs[i];
  for (int i = 0; i < ms->num_outputs; ++i) s->outputs[i] = ms->outputs[i];
  return kTfLiteOk;
}

/* The variable tensors, in index order (TFLite's variables()). */
static TfLiteStatus list_variables(lg_subgraph* s) {
  int count = 0;
  for (size_t i = 0; i < s->context.tensors_size; ++i) {
    if (s->context.tensors[i].is_variable) ++count;
  }
  s->variables = malloc(sizeof(int) * (size_t)(count + 1));
  if (s->variables == NULL) return kTfLiteError;
  for (size_t i = 0; i < s->context.tensors_size; ++i) {
    if (s->context.tensors[i].is_variable) {
      s->variables[s->num_variables++] = (int)i;
    }
  }
  return kTfLiteOk;
}

TfLiteStatus lg_subgraph_build(lg_subgraph* s,
                               struct TfLiteInterpreter* interpreter,
                               int index) {
  memset(s, 0, sizeof(*s));
  s->interpreter = interpreter;
  s->kernel_env.thread_pool = interpreter->thread_pool;
  s->kernel_env.interpreter_subgraph = s;
  s->index = index;
  s->model_subgraph = &interpreter->model->model->subgraphs[index];
  init_context(s);
  if (build_tensors(s) != kTfLiteOk || copy_io(s) != kTfLiteOk ||
      list_variables(s) != kTfLiteOk) {
    lg_report(&interpreter->reporter,
              "Failed to create the tensors of "
              "subgraph %d",
              index);
    return kTfLiteError;
  }
  if (check_dataflow(s) != kTfLiteOk) return kTfLiteError;
  TfLiteStatus status = build_nodes(s);
  if (status != kTfLiteOk) return status;
  if (lg_subgraph_fuse_activations(s) != kTfLiteOk) return kTfLiteError;
  return init_nodes(s);
}

void lg_subgraph_release(lg_subgraph* s) {
  if (s == NULL) return;
  lg_subgraph_remove_delegates(s);
  for (int i = 0; i < s->num_nodes; ++i) {
    lg_node* node = &s->nodes[i];
    if (node->initialized) {
      lg_registration_free(&s->context, &node->registration,
                           node->node.user_data);
    }
    TfLiteIntArrayFree(node->node.inputs);
    TfLiteIntArrayFree(node->node.outputs);
    TfLiteIntArrayFree(node->node.intermediates);
    TfLiteIntArrayFree(node->node.temporaries);
    free(node->node.builtin_data);
  }
  for (size_t i = 0; i < s->context.tensors_size; ++i) {
    TfLiteTensor* t = &s->context.tensors[i];
    TfLiteIntArrayFree(t->dims);
    TfLiteIntArrayFree((TfLiteIntArray*)t->dims_signature);
    TfLiteQuantizationFree(&t->quantization);
    TfLiteSparsityFree(t->sparsity);
    free(s->tensor_info[i].heap);
  }
  free(s->context.tensors);
  free(s->tensor_info);
  free(s->nodes);
  free(s->inputs);
  free(s->outputs);
  free(s->variables);
  TfLiteIntArrayFree(s->execution_plan);
  lg_arena_release(&s->arena);
  memset(s, 0, sizeof(*s));
}

lg_subgraph* lg_subgraph_of_kernel(TfLiteContext* context, const char* op) {
  const lg_kernel_env* env = context->impl_;
  if (env == NULL || env->interpreter_subgraph == NULL) {
    context->ReportError(context,
                         "%s: runs only in the interpreter's own graphs (it "
                         "calls other subgraphs or the interpreter's "
                         "resources), not inside a delegate's partition",
                         op);
    return NULL;
  }
  return env->interpreter_subgraph;
}
