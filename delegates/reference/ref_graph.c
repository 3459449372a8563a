/* The reference delegate's private partition executor (see ref_graph.h). */
#include "delegates/reference/ref_graph.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/tensor_util.h"
#include "runtime/operator.h"
#include "tensorflow/lite/builtin_ops.h"

static ref_graph* graph_of(TfLiteContext* context) {
  return (ref_graph*)context; /* context is ref_graph's first member */
}

static bool is_constant(const TfLiteTensor* t) {
  return t->allocation_type == kTfLiteMmapRo ||
         t->allocation_type == kTfLitePersistentRo;
}

/* ---- Private context callbacks ---------------------------------------------
 */

static void report_error(TfLiteContext* context, const char* format, ...) {
  char message[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  TfLiteContext* main = graph_of(context)->main;
  main->ReportError(main, "reference delegate: %s", message);
}

static TfLiteStatus ensure_heap(ref_graph* g, int index) {
  TfLiteTensor* t = &g->context.tensors[index];
  if (is_constant(t)) return kTfLiteOk;
  void* block = realloc(g->heap[index], t->bytes ? t->bytes : 1);
  if (block == NULL) return kTfLiteError;
  g->heap[index] = block;
  t->data.raw = block;
  return kTfLiteOk;
}

static TfLiteStatus resize_tensor(TfLiteContext* context, TfLiteTensor* t,
                                  TfLiteIntArray* dims) {
  ref_graph* g = graph_of(context);
  const int index = (int)(t - context->tensors);
  size_t bytes = 0;
  if (index < 0 || (size_t)index >= context->tensors_size || dims == NULL ||
      lg_tensor_byte_size(t->type, dims, &bytes) != kTfLiteOk) {
    TfLiteIntArrayFree(dims);
    return kTfLiteError;
  }
  TfLiteIntArrayFree(t->dims);
  t->dims = dims;
  t->bytes = bytes;
  return ensure_heap(g, index);
}

static TfLiteStatus grow(ref_graph* g, size_t needed) {
  if (needed <= g->capacity) return kTfLiteOk;
  size_t capacity = g->capacity * 2 > needed ? g->capacity * 2 : needed;
  TfLiteTensor* tensors =
      realloc(g->context.tensors, sizeof(TfLiteTensor) * capacity);
  if (tensors == NULL) return kTfLiteError;
  g->context.tensors = tensors;
  void** heap = realloc(g->heap, sizeof(void*) * capacity);
  if (heap == NULL) return kTfLiteError;
  g->heap = heap;
  g->capacity = capacity;
  return kTfLiteOk;
}

static TfLiteStatus add_tensors(TfLiteContext* context, int count, int* first) {
  ref_graph* g = graph_of(context);
  const size_t start = context->tensors_size;
  if (count < 0 || grow(g, start + (size_t)count) != kTfLiteOk) {
    return kTfLiteError;
  }
  memset(&context->tensors[start], 0, sizeof(TfLiteTensor) * (size_t)count);
  memset(&g->heap[start], 0, sizeof(void*) * (size_t)count);
  for (size_t i = start; i < start + (size_t)count; ++i) {
    context->tensors[i].buffer_handle = kTfLiteNullBufferHandle;
  }
  context->tensors_size = start + (size_t)count;
  if (first != NULL) *first = (int)start;
  return kTfLiteOk;
}

static TfLiteTensor* get_tensor(const TfLiteContext* context, int index) {
  if (index < 0 || (size_t)index >= context->tensors_size) return NULL;
  return &context->tensors[index];
}

static TfLiteStatus get_metadata(const TfLiteContext* context, const char* name,
                                 const char** ptr, size_t* bytes) {
  TfLiteContext* main = ((ref_graph*)context)->main;
  return main->GetModelMetadata(main, name, ptr, bytes);
}

/* ---- Building
 * ------------------------------------------------------------------ */

/* Mirrors main tensor `i`: metadata copied, quantization and sparsity
 * borrowed (never freed here), constant data shared. */
static TfLiteStatus mirror_tensor(ref_graph* g, int i) {
  const TfLiteTensor* src = &g->main->tensors[i];
  TfLiteTensor* t = &g->context.tensors[i];
  if (t->dims != NULL) return kTfLiteOk; /* already mirrored */
  t->type = src->type;
  t->params = src->params;
  t->quantization = src->quantization;
  t->sparsity = src->sparsity;
  t->name = src->name;
  t->is_variable = src->is_variable;
  t->bytes = src->bytes;
  t->buffer_handle = kTfLiteNullBufferHandle;
  t->dims = TfLiteIntArrayCopy(src->dims);
  if (t->dims == NULL) return kTfLiteError;
  if (is_constant(src)) {
    t->allocation_type = src->allocation_type;
    t->data = src->data;
    return kTfLiteOk;
  }
  t->allocation_type =
      src->allocation_type == kTfLiteDynamic ? kTfLiteDynamic : kTfLiteArenaRw;
  return ensure_heap(g, i);
}

static TfLiteStatus mirror_all(ref_graph* g, const TfLiteIntArray* list) {
  for (int k = 0; list != NULL && k < list->size; ++k) {
    if (list->data[k] < 0) continue;
    TF_LITE_ENSURE_STATUS(mirror_tensor(g, list->data[k]));
  }
  return kTfLiteOk;
}

static TfLiteStatus copy_node(ref_graph* g, ref_node* dst, int index) {
  TfLiteNode* node = NULL;
  TfLiteRegistration* reg = NULL;
  TF_LITE_ENSURE_STATUS(
      g->main->GetNodeAndRegistration(g->main, index, &node, &reg));
  dst->registration = *reg;
  dst->node.inputs = TfLiteIntArrayCopy(node->inputs);
  dst->node.outputs = TfLiteIntArrayCopy(node->outputs);
  dst->node.intermediates = node->intermediates
                                ? TfLiteIntArrayCopy(node->intermediates)
                                : TfLiteIntArrayCreate(0);
  dst->node.temporaries = TfLiteIntArrayCreate(0);
  /* Params and custom options belong to the main graph, which outlives the
   * delegate kernel. */
  dst->node.builtin_data = node->builtin_data;
  dst->node.custom_initial_data = node->custom_initial_data;
  dst->node.custom_initial_data_size = node->custom_initial_data_size;
  if (!dst->node.inputs || !dst->node.outputs || !dst->node.intermediates ||
      !dst->node.temporaries) {
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(mirror_all(g, node->inputs));
  TF_LITE_ENSURE_STATUS(mirror_all(g, node->outputs));
  return mirror_all(g, node->intermediates);
}

static void init_node(ref_graph* g, ref_node* n) {
  const bool custom = n->registration.builtin_code == kTfLiteBuiltinCustom;
  const char* buffer = custom ? (const char*)n->node.custom_initial_data
                              : (const char*)n->node.builtin_data;
  size_t length = custom ? (size_t)n->node.custom_initial_data_size : 0;
  n->node.user_data =
      lg_registration_init(&g->context, &n->registration, buffer, length);
  n->initialized = true;
}

static void setup_context(ref_graph* g) {
  TfLiteContext* c = &g->context;
  c->ReportError = report_error;
  c->ResizeTensor = resize_tensor;
  c->AddTensors = add_tensors;
  c->GetTensor = get_tensor;
  c->GetModelMetadata = get_metadata;
  c->recommended_num_threads = 1;
  c->impl_ = NULL; /* kernels then use the single-thread pool */
}

ref_graph* ref_graph_create(TfLiteContext* main,
                            const TfLiteDelegateParams* params) {
  ref_graph* g = calloc(1, sizeof(*g));
  if (g == NULL) return NULL;
  g->main = main;
  setup_context(g);
  const int count = params->nodes_to_replace->size;
  g->nodes = calloc((size_t)(count ? count : 1), sizeof(ref_node));
  g->inputs = TfLiteIntArrayCopy(params->input_tensors);
  g->outputs = TfLiteIntArrayCopy(params->output_tensors);
  if (g->nodes == NULL || g->inputs == NULL || g->outputs == NULL ||
      add_tensors(&g->context, (int)main->tensors_size, NULL) != kTfLiteOk) {
    goto fail;
  }
  for (int i = 0; i < count; ++i) {
    g->num_nodes = i + 1;
    if (copy_node(g, &g->nodes[i], params->nodes_to_replace->data[i]) !=
        kTfLiteOk) {
      goto fail;
    }
  }
  for (int i = 0; i < count; ++i) init_node(g, &g->nodes[i]);
  return g;
fail:
  main->ReportError(main, "reference delegate: cannot copy the partition");
  ref_graph_destroy(g);
  return NULL;
}

/* ---- Running
 * ----------------------------------------------------------------- */

TfLiteStatus ref_graph_prepare(ref_graph* g) {
  for (int k = 0; k < g->inputs->size; ++k) {
    const int i = g->inputs->data[k];
    const TfLiteTensor* src = &g->main->tensors[i];
    TfLiteTensor* t = &g->context.tensors[i];
    if (is_constant(t) || TfLiteIntArrayEqual(t->dims, src->dims)) continue;
    TF_LITE_ENSURE_STATUS(
        resize_tensor(&g->context, t, TfLiteIntArrayCopy(src->dims)));
  }
  for (int n = 0; n < g->num_nodes; ++n) {
    ref_node* node = &g->nodes[n];
    TF_LITE_ENSURE_STATUS(
        lg_registration_prepare(&g->context, &node->registration, &node->node));
  }
  for (int k = 0; k < g->outputs->size; ++k) {
    const int i = g->outputs->data[k];
    TF_LITE_ENSURE_STATUS(
        g->main->ResizeTensor(g->main, &g->main->tensors[i],
                              TfLiteIntArrayCopy(g->context.tensors[i].dims)));
  }
  return kTfLiteOk;
}

/* Copies tensor `i` of the private graph into the main graph's. */
static TfLiteStatus copy_back(ref_graph* g, int i) {
  const TfLiteTensor* t = &g->context.tensors[i];
  TfLiteTensor* dst = &g->main->tensors[i];
  TF_LITE_ENSURE_EQ(&g->context, (int)t->bytes, (int)dst->bytes);
  if (t->bytes > 0) memcpy(dst->data.raw, t->data.raw, t->bytes);
  return kTfLiteOk;
}

TfLiteStatus ref_graph_invoke(ref_graph* g) {
  for (int k = 0; k < g->inputs->size; ++k) {
    const int i = g->inputs->data[k];
    TfLiteTensor* t = &g->context.tensors[i];
    const TfLiteTensor* src = &g->main->tensors[i];
    if (is_constant(t)) continue;
    TF_LITE_ENSURE_EQ(&g->context, (int)t->bytes, (int)src->bytes);
    if (t->bytes > 0) memcpy(t->data.raw, src->data.raw, t->bytes);
  }
  for (int n = 0; n < g->num_nodes; ++n) {
    ref_node* node = &g->nodes[n];
    TF_LITE_ENSURE_STATUS(
        lg_registration_invoke(&g->context, &node->registration, &node->node));
  }
  for (int k = 0; k < g->outputs->size; ++k) {
    TF_LITE_ENSURE_STATUS(copy_back(g, g->outputs->data[k]));
  }
  /* A stateful kernel rewrote some inputs in the private copy: LSTM and
   * SVDF their variables, the BASIC LSTM its state inputs even when they
   * are graph inputs. The main graph's tensors hold that state between
   * Invokes, so every input the partition changed gets the new values
   * (compared first: unchanged inputs, often the application's, are not
   * written). */
  for (int k = 0; k < g->inputs->size; ++k) {
    const int i = g->inputs->data[k];
    const TfLiteTensor* t = &g->context.tensors[i];
    if (is_constant(t) || t->bytes == 0) continue;
    if (t->is_variable ||
        memcmp(t->data.raw, g->main->tensors[i].data.raw, t->bytes) != 0) {
      TF_LITE_ENSURE_STATUS(copy_back(g, i));
    }
  }
  return kTfLiteOk;
}

void ref_graph_destroy(ref_graph* g) {
  if (g == NULL) return;
  for (int n = 0; n < g->num_nodes; ++n) {
    ref_node* node = &g->nodes[n];
    if (node->initialized) {
      lg_registration_free(&g->context, &node->registration,
                           node->node.user_data);
    }
    TfLiteIntArrayFree(node->node.inputs);
    TfLiteIntArrayFree(node->node.outputs);
    TfLiteIntArrayFree(node->node.intermediates);
    TfLiteIntArrayFree(node->node.temporaries);
  }
  for (size_t i = 0; i < g->context.tensors_size; ++i) {
    TfLiteIntArrayFree(g->context.tensors[i].dims);
    free(g->heap[i]);
  }
  free(g->context.tensors);
  free(g->heap);
  free(g->nodes);
  TfLiteIntArrayFree(g->inputs);
  TfLiteIntArrayFree(g->outputs);
  free(g);
}
