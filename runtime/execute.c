/* Preparing, planning and running a subgraph.
 *
 * AllocateTensors prepares nodes in plan order until one leaves a dynamic
 * output (its shape depends on data); the tensors of that static part are
 * placed in one arena by lifetime. Nodes after the stop are prepared again on
 * every Invoke, right before they run, and their tensors get heap blocks that
 * are kept between invocations. Graph inputs and outputs live for the whole
 * run, so Invoke never overwrites an input and outputs stay readable.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "runtime/delegate.h"
#include "runtime/fold_pads.h"
#include "runtime/fuse_activations.h"
#include "runtime/kernels/kernels.h"
#include "runtime/subgraph.h"

#define LG_LIFETIME_END INT_MAX

static lg_node* node_at(lg_subgraph* s, int plan_index) {
  return &s->nodes[s->execution_plan->data[plan_index]];
}

static bool is_arena_tensor(const TfLiteTensor* t) {
  return t->allocation_type == kTfLiteArenaRw;
}

/* An unresolved custom op in the plan: passed over while a delegate is
 * applied (it may claim the node), else TFLite's report and status. */
static TfLiteStatus prepare_unresolved(lg_subgraph* s, const lg_node* node) {
  if (s->tolerate_unresolved) return kTfLiteOk;
  const char* name = node->registration.custom_name;
  lg_report(&s->interpreter->reporter,
            "Encountered unresolved custom op: %s.\nSee instructions: "
            "https://www.tensorflow.org/lite/guide/ops_custom ",
            name ? name : "UnknownOp");
  lg_report(&s->interpreter->reporter,
            "Node number %d (%s) failed to prepare.\n", node->op_index,
            lg_node_op_name(node));
  return kTfLiteUnresolvedOps;
}

static _Thread_local lg_subgraph* g_running_subgraph;

lg_subgraph* lg_subgraph_running(void) { return g_running_subgraph; }

lg_subgraph* lg_subgraph_set_running(lg_subgraph* subgraph) {
  lg_subgraph* previous = g_running_subgraph;
  g_running_subgraph = subgraph;
  return previous;
}

static TfLiteStatus prepare_one(lg_subgraph* s, lg_node* node) {
  node->released_inputs = 0;
  node->offers_epilogue = false;
  node->drop_folded = NULL;
  node->folded_dropped = false;
  if (node->unresolved) return prepare_unresolved(s, node);
  lg_subgraph* outer = lg_subgraph_set_running(s);
  TfLiteStatus status =
      lg_registration_prepare(&s->context, &node->registration, &node->node);
  lg_subgraph_set_running(outer);
  if (status != kTfLiteOk) {
    lg_report(&s->interpreter->reporter,
              "Node number %d (%s) failed to prepare.\n", node->op_index,
              lg_node_op_name(node));
    return kTfLiteError;
  }
  const TfLiteIntArray* temps = node->node.temporaries;
  for (int i = 0; temps != NULL && i < temps->size; ++i) {
    if (temps->data[i] < 0 ||
        (size_t)temps->data[i] >= s->context.tensors_size) {
      lg_report(&s->interpreter->reporter,
                "Node number %d (%s) has temporary tensor %d, out of range",
                node->op_index, lg_node_op_name(node), temps->data[i]);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus prepare_node(lg_subgraph* s, int plan_index) {
  return prepare_one(s, node_at(s, plan_index));
}

static bool has_dynamic_output(const lg_subgraph* s, const lg_node* node) {
  const TfLiteIntArray* outputs = node->node.outputs;
  for (int i = 0; i < outputs->size; ++i) {
    if (outputs->data[i] >= 0 &&
        s->context.tensors[outputs->data[i]].allocation_type ==
            kTfLiteDynamic) {
      return true;
    }
  }
  return false;
}

/* ---- Constants the kernels copied ------------------------------------------
 * A kernel that packs a constant filter at Prepare keeps its own copy; the
 * original would otherwise stay resident beside it (MobileNetV2's file
 * pages: +13% peak RSS over LiteRT; a float16 model's filters dequantized
 * at Prepare: the float32 copy). Once every node of the plan that reads
 * such a tensor released it (kernel_context.h), right after the Prepare
 * that released it last, its file pages go back to the file or its folding
 * node frees it. Releases count within one AllocateTensors pass. */

/* The subgraph's node whose TfLiteNode is `node`, or NULL. */
static lg_node* own_node(lg_subgraph* s, TfLiteNode* node) {
  const uintptr_t at = (uintptr_t)node;
  const uintptr_t nodes = (uintptr_t)s->nodes;
  if (at < nodes || at >= nodes + (uintptr_t)s->num_nodes * sizeof(lg_node) ||
      (at - nodes) % sizeof(lg_node) != 0) {
    return NULL;
  }
  return (lg_node*)node; /* the first member of its lg_node */
}

static lg_subgraph* kernel_owner(TfLiteContext* context) {
  if (context == NULL || context->impl_ == NULL) return NULL;
  return ((lg_kernel_env*)context->impl_)->interpreter_subgraph;
}

void lg_kernel_release_input(TfLiteContext* context, TfLiteNode* node,
                             int input_index) {
  lg_subgraph* s = kernel_owner(context);
  if (s == NULL || node == NULL || input_index < 0 || input_index >= 64 ||
      node->inputs == NULL || input_index >= node->inputs->size) {
    return;
  }
  lg_node* own = own_node(s, node);
  if (own != NULL) own->released_inputs |= UINT64_C(1) << input_index;
}

void lg_kernel_offer_epilogue(TfLiteContext* context, TfLiteNode* node) {
  lg_subgraph* s = kernel_owner(context);
  lg_node* own = s != NULL && node != NULL ? own_node(s, node) : NULL;
  if (own != NULL) own->offers_epilogue = true;
}

void lg_kernel_offer_folded(TfLiteContext* context, TfLiteNode* node,
                            lg_kernel_drop_fn drop) {
  lg_subgraph* s = kernel_owner(context);
  lg_node* own = s != NULL && node != NULL ? own_node(s, node) : NULL;
  if (own != NULL) own->drop_folded = drop;
}

static bool input_released(const lg_node* node, int slot) {
  return slot < 64 && (node->released_inputs & (UINT64_C(1) << slot)) != 0;
}

static bool is_subgraph_output(const lg_subgraph* s, int tensor) {
  for (int i = 0; i < s->num_outputs; ++i) {
    if (s->outputs[i] == tensor) return true;
  }
  return false;
}

/* Whether no node of the plan still reads `tensor` itself: every input
 * slot holding it was released, and it is no output of the subgraph. */
static bool no_reader_left(lg_subgraph* s, int tensor) {
  if (is_subgraph_output(s, tensor)) return false;
  for (int p = 0; p < s->execution_plan->size; ++p) {
    const lg_node* reader = node_at(s, p);
    const TfLiteIntArray* in = reader->node.inputs;
    for (int i = 0; in != NULL && i < in->size; ++i) {
      if (in->data[i] == tensor && !input_released(reader, i)) return false;
    }
  }
  return true;
}

/* The plan's node that folded `tensor` and may drop it, or NULL. */
static lg_node* folding_producer(lg_subgraph* s, int tensor) {
  for (int p = 0; p < s->execution_plan->size; ++p) {
    lg_node* node = node_at(s, p);
    if (node->drop_folded == NULL || node->folded_dropped) continue;
    const TfLiteIntArray* out = node->node.outputs;
    for (int i = 0; i < out->size; ++i) {
      if (out->data[i] == tensor) return node;
    }
  }
  return NULL;
}

/* Drops a folding node's outputs when none of them has a reader left. */
static void drop_if_unread(lg_subgraph* s, lg_node* producer) {
  const TfLiteIntArray* out = producer->node.outputs;
  for (int i = 0; i < out->size; ++i) {
    if (out->data[i] >= 0 && !no_reader_left(s, out->data[i])) return;
  }
  producer->drop_folded(&s->context, &producer->node);
  producer->folded_dropped = true;
}

/* After `node`'s Prepare: gives back what it released and nothing else
 * reads. */
static void release_copied_constants(lg_subgraph* s, const lg_node* node) {
  const TfLiteIntArray* in = node->node.inputs;
  for (int i = 0; node->released_inputs != 0 && i < in->size; ++i) {
    const int t = in->data[i];
    if (t < 0 || !input_released(node, i)) continue;
    const TfLiteTensor* tensor = &s->context.tensors[t];
    if (tensor->allocation_type == kTfLiteMmapRo) {
      if (no_reader_left(s, t)) {
        lg_model_release_pages(s->interpreter->model->model, tensor->data.raw,
                               tensor->bytes);
      }
    } else if (tensor->allocation_type == kTfLitePersistentRo) {
      lg_node* producer = folding_producer(s, t);
      if (producer != NULL) drop_if_unread(s, producer);
    }
  }
}

TfLiteStatus lg_subgraph_restore_folded(lg_subgraph* s) {
  for (int p = 0; p < s->execution_plan->size; ++p) {
    lg_node* node = node_at(s, p);
    /* Plan order: a folded input is back before its reader folds again. */
    if (node->folded_dropped) TF_LITE_ENSURE_STATUS(prepare_one(s, node));
  }
  return kTfLiteOk;
}

/* ---- Heap-backed tensors --------------------------------------------------
 */

static TfLiteStatus ensure_heap(lg_subgraph* s, int index, bool* fresh) {
  lg_tensor_info* info = &s->tensor_info[index];
  TfLiteTensor* t = &s->context.tensors[index];
  *fresh = false;
  if (info->heap == NULL || info->heap_size != t->bytes) {
    void* block = realloc(info->heap, t->bytes == 0 ? 1 : t->bytes);
    if (block == NULL) {
      lg_report(&s->interpreter->reporter,
                "Out of memory allocating %zu bytes for tensor %d (%s)",
                t->bytes, index, t->name ? t->name : "");
      return kTfLiteError;
    }
    info->heap = block;
    info->heap_size = t->bytes;
    *fresh = true;
  }
  t->data.raw = info->heap;
  return kTfLiteOk;
}

/* A variable tensor's initial value, as TFLite's ResetVariableTensor
 * (at AllocateTensors too): the zero point of an INT8 one, else zeros
 * (UINT8 and INT16 ones too, whatever their zero point). */
void lg_variable_tensor_reset(TfLiteTensor* t) {
  const int value = t->type == kTfLiteInt8 ? t->params.zero_point : 0;
  memset(t->data.raw, value, t->bytes);
}

/* Variables and kernel-persistent tensors keep their contents across
 * invocations and re-plans; they start from their constant buffer, else
 * zeros (variables: their zero point, lg_variable_tensor_reset). */
static TfLiteStatus allocate_persistent(lg_subgraph* s, int index) {
  bool fresh = false;
  TF_LITE_ENSURE_STATUS(ensure_heap(s, index, &fresh));
  if (!fresh) return kTfLiteOk;
  TfLiteTensor* t = &s->context.tensors[index];
  if (t->is_variable) {
    lg_variable_tensor_reset(t);
  } else {
    memset(t->data.raw, 0, t->bytes);
  }
  const lg_model_subgraph* ms = s->model_subgraph;
  if (index < ms->num_tensors) {
    const lg_model_buffer* b =
        &s->interpreter->model->model->buffers[ms->tensors[index].buffer];
    if (b->data != NULL && b->size == t->bytes) {
      memcpy(t->data.raw, b->data, t->bytes);
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus allocate_non_arena(lg_subgraph* s) {
  for (size_t i = 0; i < s->context.tensors_size; ++i) {
    TfLiteTensor* t = &s->context.tensors[i];
    if (t->allocation_type == kTfLiteArenaRwPersistent) {
      TF_LITE_ENSURE_STATUS(allocate_persistent(s, (int)i));
    } else if (t->allocation_type == kTfLiteDynamic && t->data.raw == NULL &&
               t->type != kTfLiteString) {
      bool fresh = false;
      TF_LITE_ENSURE_STATUS(ensure_heap(s, (int)i, &fresh));
    }
  }
  return kTfLiteOk;
}

/* ---- Lifetimes and the arena ------------------------------------------------
 */

typedef struct lifetimes {
  int* first;
  int* last;
} lifetimes;

static void touch(lifetimes* lt, const lg_subgraph* s, int tensor, int pos) {
  if (tensor < 0 || !is_arena_tensor(&s->context.tensors[tensor])) return;
  if (lt->first[tensor] < 0 || pos < lt->first[tensor]) {
    lt->first[tensor] = pos;
  }
  if (pos > lt->last[tensor]) lt->last[tensor] = pos;
}

static void touch_all(lifetimes* lt, const lg_subgraph* s,
                      const TfLiteIntArray* tensors, int pos) {
  for (int i = 0; tensors != NULL && i < tensors->size; ++i) {
    touch(lt, s, tensors->data[i], pos);
  }
}

/* A node an epilogue absorbed runs inside its producer, after the
 * producer's kernel: its tensors are used at the step right after the
 * producer's (so the chain's output may take the producer's scratch or
 * dead input), except the tensors between its steps (an ADD output before
 * a PRELU), which are never written and get no memory (their data stays
 * NULL). */
static void touch_epilogue_node(lifetimes* lt, lg_subgraph* s,
                                const lg_node* node) {
  const int at = 2 * node->epilogue_at + 1;
  const lg_epilogue* e = &node_at(s, node->epilogue_at)->epilogue;
  const TfLiteIntArray* inputs = node->node.inputs;
  for (int i = 0; i < inputs->size; ++i) {
    const int t = inputs->data[i];
    if (t == e->input || t == e->residual || t == e->alpha) touch(lt, s, t, at);
  }
  touch_all(lt, s, node->node.temporaries, at);
  const TfLiteIntArray* outputs = node->node.outputs;
  for (int i = 0; i < outputs->size; ++i) {
    if (outputs->data[i] == e->output) touch(lt, s, e->output, at);
  }
  if (e->in_kernel) {
    /* The producer's tasks may run the chain on finished rows while others
     * still read its input: the chain's output must not take it. */
    const lg_node* producer = node_at(s, node->epilogue_at);
    touch_all(lt, s, producer->node.inputs, at);
    touch_all(lt, s, producer->node.temporaries, at);
  }
}

/* Lifetimes over the statically prepared nodes [0, first_unprepared), in
 * steps: node p at step 2p, an epilogue after it at 2p + 1. */
static void compute_lifetimes(lg_subgraph* s, lifetimes* lt) {
  for (int i = 0; i < s->num_inputs; ++i) touch(lt, s, s->inputs[i], 0);
  for (int i = 0; i < s->num_inputs; ++i) {
    touch(lt, s, s->inputs[i], LG_LIFETIME_END);
  }
  for (int p = 0; p < s->first_unprepared; ++p) {
    const lg_node* node = node_at(s, p);
    const TfLiteNode* n = &node->node;
    if (node->in_epilogue) {
      touch_epilogue_node(lt, s, node);
      continue;
    }
    touch_all(lt, s, n->inputs, 2 * p);
    touch_all(lt, s, n->outputs, 2 * p);
    touch_all(lt, s, n->temporaries, 2 * p);
  }
  /* Tensors read after the static part, and graph outputs, stay alive. */
  for (int p = s->first_unprepared; p < s->execution_plan->size; ++p) {
    const TfLiteIntArray* in = node_at(s, p)->node.inputs;
    for (int i = 0; i < in->size; ++i) {
      if (in->data[i] >= 0 && lt->first[in->data[i]] >= 0) {
        lt->last[in->data[i]] = LG_LIFETIME_END;
      }
    }
  }
  for (int i = 0; i < s->num_outputs; ++i) {
    if (lt->first[s->outputs[i]] >= 0) {
      lt->last[s->outputs[i]] = LG_LIFETIME_END;
    }
  }
}

/* ---- Reshapes that alias their input ---------------------------------------
 * RESHAPE, SQUEEZE and EXPAND_DIMS (this runtime's kernels) only copy their
 * input's bytes. Where both tensors are plain arena tensors of one size, the
 * output takes no memory of its own: it points at its input, which the
 * kernel sees and then skips the copy. The pair (a chain too) is planned as
 * its first tensor with the union of their lifetimes, so nothing else is
 * placed over it while any of them is alive. Anything else keeps the copy:
 * graph inputs and outputs (the application owns or reads them), variables,
 * tensors a delegate holds, dynamic and string tensors. */

/* Found through the kernel table, not the kernels' symbols, so a
 * selectively registered build links no RESHAPE it does not use. */
static bool is_reshape_copy(const lg_node* node) {
  if (node->in_epilogue) return false;
  switch (node->registration.builtin_code) {
    case kTfLiteBuiltinReshape:
    case kTfLiteBuiltinSqueeze:
    case kTfLiteBuiltinExpandDims:
      return lg_node_runs_builtin_kernel(node);
    default:
      return false;
  }
}

static bool is_graph_io(const lg_subgraph* s, int tensor) {
  for (int i = 0; i < s->num_inputs; ++i) {
    if (s->inputs[i] == tensor) return true;
  }
  return is_subgraph_output(s, tensor);
}

/* A tensor that may share memory: in the arena and held by nobody else. */
static bool may_alias(const lg_subgraph* s, int tensor) {
  if (tensor < 0) return false;
  const TfLiteTensor* t = &s->context.tensors[tensor];
  return is_arena_tensor(t) && !t->is_variable && t->type != kTfLiteString &&
         t->type != kTfLiteResource && t->type != kTfLiteVariant &&
         t->delegate == NULL && t->buffer_handle == kTfLiteNullBufferHandle &&
         !is_graph_io(s, tensor);
}

static int alias_root(const int* alias_of, int tensor) {
  while (alias_of[tensor] >= 0) tensor = alias_of[tensor];
  return tensor;
}

/* Makes `out` share `in`'s memory (its root's, when `in` is itself
 * aliased): merges out's lifetime into the root's and takes out out of the
 * plan (first use -1). False, changing nothing, where either may not share
 * or their sizes differ. */
static bool join_alias(lg_subgraph* s, lifetimes* lt, int* alias_of, int in,
                       int out) {
  if (in == out || !may_alias(s, in) || !may_alias(s, out) ||
      s->context.tensors[in].bytes != s->context.tensors[out].bytes) {
    return false;
  }
  const int root = alias_root(alias_of, in);
  if (lt->first[root] < 0 || lt->first[out] < 0) return false;
  alias_of[out] = root;
  if (lt->first[out] < lt->first[root]) lt->first[root] = lt->first[out];
  if (lt->last[out] > lt->last[root]) lt->last[root] = lt->last[out];
  lt->first[out] = -1;
  lt->last[out] = -1;
  return true;
}

/* Sets alias_of[output] to the tensor whose memory each eliding reshape's
 * output shares. */
static void alias_reshapes(lg_subgraph* s, lifetimes* lt, int* alias_of) {
  for (int p = 0; p < s->first_unprepared; ++p) {
    const lg_node* node = node_at(s, p);
    const TfLiteNode* n = &node->node;
    if (!is_reshape_copy(node) || n->inputs->size < 1 ||
        n->outputs->size != 1) {
      continue;
    }
    join_alias(s, lt, alias_of, n->inputs->data[0], n->outputs->data[0]);
  }
}

/* An epilogue chain (epilogue.c) turns its producer's output, which only
 * the chain reads, into the chain's output element by element: every step
 * reads an element before it writes it. So the chain's output takes the
 * producer's output's memory and the chain runs in place: a 112x112x16
 * convolution + HARD_SWISH writes 800 KB once instead of twice, and the
 * arena holds one tensor fewer. */
static void alias_epilogues(lg_subgraph* s, lifetimes* lt, int* alias_of) {
  for (int p = 0; p < s->first_unprepared; ++p) {
    const lg_epilogue* e = &node_at(s, p)->epilogue;
    if (e->active) join_alias(s, lt, alias_of, e->input, e->output);
  }
}

/* Points every aliased output at its root's memory (placed by now). */
static void apply_aliases(lg_subgraph* s, const int* alias_of) {
  for (size_t i = 0; i < s->context.tensors_size; ++i) {
    if (alias_of[i] < 0) continue;
    const int root = alias_root(alias_of, (int)i);
    s->context.tensors[i].data.raw = s->context.tensors[root].data.raw;
    free(s->tensor_info[i].heap);
    s->tensor_info[i].heap = NULL;
    s->tensor_info[i].heap_size = 0;
  }
}

static TfLiteStatus place_in_arena(lg_subgraph* s, const lifetimes* lt) {
  const size_t n = s->context.tensors_size;
  lg_arena_request* requests = malloc(sizeof(*requests) * (n ? n : 1));
  int* owner = malloc(sizeof(int) * (n ? n : 1));
  TfLiteStatus status = kTfLiteError;
  if (requests == NULL || owner == NULL) goto done;
  int count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (lt->first[i] < 0) continue;
    requests[count] = (lg_arena_request){s->context.tensors[i].bytes,
                                         lt->first[i], lt->last[i], 0};
    owner[count++] = (int)i;
  }
  size_t total = 0;
  if (lg_arena_plan(requests, count, LG_ARENA_ALIGNMENT, &total) != kTfLiteOk ||
      lg_arena_reserve(&s->arena, total) != kTfLiteOk) {
    lg_report(&s->interpreter->reporter,
              "Out of memory planning an arena of %zu bytes", total);
    goto done;
  }
  for (int k = 0; k < count; ++k) {
    TfLiteTensor* t = &s->context.tensors[owner[k]];
    t->data.raw = (char*)s->arena.base + requests[k].offset;
    free(s->tensor_info[owner[k]].heap);
    s->tensor_info[owner[k]].heap = NULL;
    s->tensor_info[owner[k]].heap_size = 0;
  }
  status = kTfLiteOk;
done:
  free(requests);
  free(owner);
  return status;
}

static TfLiteStatus plan_memory(lg_subgraph* s) {
  const size_t n = s->context.tensors_size;
  lifetimes lt = {malloc(sizeof(int) * (n ? n : 1)),
                  malloc(sizeof(int) * (n ? n : 1))};
  int* alias_of = malloc(sizeof(int) * (n ? n : 1));
  TfLiteStatus status = kTfLiteError;
  if (lt.first == NULL || lt.last == NULL || alias_of == NULL) goto done;
  for (size_t i = 0; i < n; ++i) {
    lt.first[i] = -1;
    lt.last[i] = -1;
    alias_of[i] = -1;
    /* Arena tensors outside the static part get heap blocks in Invoke. */
    if (is_arena_tensor(&s->context.tensors[i]) &&
        s->tensor_info[i].heap == NULL) {
      s->context.tensors[i].data.raw = NULL;
    }
  }
  compute_lifetimes(s, &lt);
  alias_epilogues(s, &lt, alias_of);
  alias_reshapes(s, &lt, alias_of);
  status = place_in_arena(s, &lt);
  if (status == kTfLiteOk) {
    apply_aliases(s, alias_of);
    status = allocate_non_arena(s);
  }
done:
  free(lt.first);
  free(lt.last);
  free(alias_of);
  return status;
}

/* ---- Public steps
 * ------------------------------------------------------------ */

/* The nodes a delegate replaced are prepared (never run) in the original
 * order first, so that their output shapes follow resized inputs before
 * the delegate kernels' Prepare (kTfLiteDelegateFlagsRequirePropagatedShapes,
 * as TFLite does). Unresolved custom ops keep their shapes; a dynamic
 * output ends the walk, as in prepare_static_part. */
static TfLiteStatus propagate_original_shapes(lg_subgraph* s) {
  for (int p = 0; p < s->original_plan->size; ++p) {
    lg_node* node = &s->nodes[s->original_plan->data[p]];
    if (node->unresolved) continue;
    TF_LITE_ENSURE_STATUS(prepare_one(s, node));
    if (has_dynamic_output(s, node)) break;
  }
  return kTfLiteOk;
}

static TfLiteStatus prepare_static_part(lg_subgraph* s) {
  lg_subgraph_unfold_pads(s);
  if (s->propagate_shapes && s->original_plan != NULL) {
    TF_LITE_ENSURE_STATUS(propagate_original_shapes(s));
  }
  /* Releases count within this pass only: a reader later in the plan
   * has not copied the tensor yet. */
  for (int q = 0; q < s->execution_plan->size; ++q) {
    node_at(s, q)->released_inputs = 0;
  }
  int p = 0;
  while (p < s->execution_plan->size) {
    TF_LITE_ENSURE_STATUS(prepare_node(s, p));
    /* A PAD folded into its convolutions leaves the plan; its output keeps
     * the shape its Prepare gave it but no memory. */
    if (lg_subgraph_fold_pad_at(s, p)) continue;
    release_copied_constants(s, node_at(s, p));
    if (has_dynamic_output(s, node_at(s, p++))) break;
  }
  s->first_unprepared = p;
  TF_LITE_ENSURE_STATUS(lg_subgraph_plan_epilogues(s));
  return plan_memory(s);
}

TfLiteStatus lg_subgraph_allocate_tensors(lg_subgraph* s) {
  if (s->state == LG_STATE_INVOKABLE) return kTfLiteOk;
  /* A control-flow node whose callee (through any chain) is this subgraph
   * would prepare it again from inside its own preparation. */
  if (s->preparing) {
    lg_report(&s->interpreter->reporter,
              "Subgraph %d is prepared again while it is being prepared: the "
              "model's control flow is recursive",
              s->index);
    return kTfLiteError;
  }
  s->preparing = true;
  TfLiteStatus status = prepare_static_part(s);
  s->preparing = false;
  if (status == kTfLiteOk) s->state = LG_STATE_INVOKABLE;
  return status;
}

/* Late preparation of a node after a dynamic tensor: prepare, then give its
 * arena outputs and temporaries heap blocks of the size Prepare chose. */
static TfLiteStatus prepare_late(lg_subgraph* s, int plan_index) {
  TF_LITE_ENSURE_STATUS(prepare_node(s, plan_index));
  const TfLiteNode* n = &node_at(s, plan_index)->node;
  const TfLiteIntArray* lists[2] = {n->outputs, n->temporaries};
  for (int l = 0; l < 2; ++l) {
    for (int i = 0; lists[l] != NULL && i < lists[l]->size; ++i) {
      const int t = lists[l]->data[i];
      bool fresh = false;
      if (t >= 0 && is_arena_tensor(&s->context.tensors[t])) {
        TF_LITE_ENSURE_STATUS(ensure_heap(s, t, &fresh));
      }
    }
  }
  return allocate_non_arena(s);
}

static TfLiteStatus check_inputs_have_data(lg_subgraph* s,
                                           const lg_node* node) {
  const TfLiteIntArray* in = node->node.inputs;
  for (int i = 0; i < in->size; ++i) {
    if (in->data[i] < 0) continue;
    TF_LITE_ENSURE_STATUS(
        lg_subgraph_ensure_readable(s, in->data[i], node->node.delegate));
    const TfLiteTensor* t = &s->context.tensors[in->data[i]];
    /* A released input is never read: its data may be gone. */
    if (t->data.raw == NULL && t->bytes > 0 && !input_released(node, i)) {
      lg_report(&s->interpreter->reporter,
                "Node number %d (%s): input tensor %d lacks data",
                node->op_index, lg_node_op_name(node), in->data[i]);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

/* The chain a producer completes (runtime/epilogue.h); the residual may
 * still be in a delegate's buffer, as the skipped ADD's input would be. */
static TfLiteStatus run_epilogue(lg_subgraph* s, const lg_epilogue* e) {
  if (e->residual >= 0) {
    TF_LITE_ENSURE_STATUS(lg_subgraph_ensure_readable(s, e->residual, NULL));
  }
  lg_epilogue_run(&s->context, e);
  return kTfLiteOk;
}

/* Prepares (when late), checks and invokes one node, timing it when
 * profiling. */
static TfLiteStatus run_node(lg_subgraph* s, int plan_index) {
  const uint64_t start = s->profiling ? lg_now_ns() : 0;
  if (plan_index >= s->first_unprepared) {
    TF_LITE_ENSURE_STATUS(prepare_late(s, plan_index));
  }
  lg_node* node = node_at(s, plan_index);
  if (node->in_epilogue) return kTfLiteOk; /* its producer computed it */
  /* Its folded outputs were dropped: every reader holds its own copy. */
  if (node->folded_dropped) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(check_inputs_have_data(s, node));
  lg_subgraph* outer = lg_subgraph_set_running(s);
  s->epilogue_node =
      node->epilogue.active && node->epilogue.in_kernel ? node : NULL;
  s->epilogue_taken = false;
  TfLiteStatus status =
      lg_registration_invoke(&s->context, &node->registration, &node->node);
  /* Unless the kernel ran the chain in its own tasks. */
  if (status == kTfLiteOk && node->epilogue.active && !s->epilogue_taken) {
    status = run_epilogue(s, &node->epilogue);
  }
  s->epilogue_node = NULL;
  lg_subgraph_set_running(outer);
  if (status != kTfLiteOk) {
    lg_report(&s->interpreter->reporter,
              "Node number %d (%s) failed to invoke.\n", node->op_index,
              lg_node_op_name(node));
  }
  if (s->profiling) {
    node->profile_ns += lg_now_ns() - start;
    node->profile_count++;
  }
  return status;
}

static TfLiteStatus run_plan(lg_subgraph* s) {
  atomic_bool* cancel = &s->interpreter->cancel_requested;
  for (int p = 0; p < s->execution_plan->size; ++p) {
    if (atomic_load(cancel)) {
      lg_report(&s->interpreter->reporter,
                "Invoke was cancelled before node number %d (%s)",
                node_at(s, p)->op_index, lg_node_op_name(node_at(s, p)));
      return kTfLiteCancelled;
    }
    TF_LITE_ENSURE_STATUS(run_node(s, p));
  }
  return kTfLiteOk;
}

TfLiteStatus lg_subgraph_invoke(lg_subgraph* s) {
  if (s->state != LG_STATE_INVOKABLE) {
    lg_report(&s->interpreter->reporter,
              "Invoke called on model that is not ready.");
    return kTfLiteError;
  }
  s->invoking = true;
  TfLiteStatus status = run_plan(s);
  s->invoking = false;
  /* Outputs a delegate left in its own buffers are copied back, unless the
   * application reads the main graph's outputs there
   * (TfLiteSetAllowBufferHandleOutput); a callee's caller reads them on the
   * host. */
  const bool keep = s->interpreter->allow_buffer_handle_output &&
                    s == &s->interpreter->subgraphs[0];
  for (int i = 0; i < s->num_outputs && status == kTfLiteOk && !keep; ++i) {
    status = lg_subgraph_ensure_readable(s, s->outputs[i], NULL);
  }
  return status;
}

TfLiteStatus lg_subgraph_resize_input(lg_subgraph* s, int input_index,
                                      const int* dims, int num_dims) {
  const lg_reporter* rep = &s->interpreter->reporter;
  if (input_index < 0 || input_index >= s->num_inputs) {
    lg_report(rep, "ResizeInputTensor: input index %d out of range [0, %d)",
              input_index, s->num_inputs);
    return kTfLiteError;
  }
  if (num_dims < 0 || (num_dims > 0 && dims == NULL)) {
    lg_report(rep, "ResizeInputTensor: invalid dims (count %d)", num_dims);
    return kTfLiteError;
  }
  for (int i = 0; i < num_dims; ++i) {
    if (dims[i] < 0) {
      lg_report(rep, "ResizeInputTensor: dimension %d is negative (%d)", i,
                dims[i]);
      return kTfLiteError;
    }
  }
  TfLiteTensor* t = &s->context.tensors[s->inputs[input_index]];
  if (TfLiteIntArrayEqualsArray(t->dims, num_dims, dims)) return kTfLiteOk;
  if (s->immutable) {
    lg_report(rep, "ResizeInputTensor is disallowed when graph is immutable.");
    return kTfLiteError;
  }
  if (t->allocation_type != kTfLiteArenaRw &&
      t->allocation_type != kTfLiteDynamic) {
    lg_report(rep, "ResizeInputTensor: input %d is not resizable", input_index);
    return kTfLiteError;
  }
  TfLiteIntArray* new_dims = TfLiteIntArrayCreate(num_dims);
  if (new_dims == NULL) return kTfLiteError;
  if (num_dims > 0)
    memcpy(new_dims->data, dims, sizeof(int) * (size_t)num_dims);
  TF_LITE_ENSURE_STATUS(lg_subgraph_set_dims(s, t, new_dims));
  s->state = LG_STATE_UNPREPARED;
  return kTfLiteOk;
}

TfLiteStatus lg_subgraph_resize_input_strict(lg_subgraph* s, int input_index,
                                             const int* dims, int num_dims) {
  const lg_reporter* rep = &s->interpreter->reporter;
  if (input_index < 0 || input_index >= s->num_inputs) {
    return lg_subgraph_resize_input(s, input_index, dims, num_dims);
  }
  const int tensor_index = s->inputs[input_index];
  const TfLiteTensor* t = &s->context.tensors[tensor_index];
  if (num_dims != t->dims->size || (num_dims > 0 && dims == NULL)) {
    lg_report(rep,
              "ResizeInputTensorStrict: tensor %d has rank %d; the new shape "
              "has rank %d",
              tensor_index, t->dims->size, num_dims);
    return kTfLiteError;
  }
  const TfLiteIntArray* signature =
      t->dims_signature != NULL && t->dims_signature->size == num_dims
          ? t->dims_signature
          : t->dims;
  for (int i = 0; i < num_dims; ++i) {
    if (signature->data[i] != -1 && signature->data[i] != dims[i]) {
      lg_report(rep,
                "Attempting to resize dimension %d of tensor %d with value %d "
                "to %d. ResizeInputTensorStrict only allows mutating unknown "
                "dimensions identified by -1.",
                i, tensor_index, signature->data[i], dims[i]);
      return kTfLiteError;
    }
  }
  return lg_subgraph_resize_input(s, input_index, dims, num_dims);
}
