/* Delegate application (see delegate.h). */
#include "runtime/delegate.h"

#include <stdlib.h>
#include <string.h>

#include "partition/graph_partition.h"
#include "runtime/operator.h"
#include "runtime/subgraph.h"
#include "tensorflow/lite/builtin_ops.h"

static const lg_reporter* reporter_of(const lg_subgraph* s) {
  return &s->interpreter->reporter;
}

/* The delegate-only functions work inside a delegate's Prepare and, for
 * reading, on an acquired subgraph. */
static bool forbidden(lg_subgraph* s) {
  if (s->in_delegate_prepare || s->acquired > 0) return false;
  lg_report(reporter_of(s),
            "The function is forbidden if not calling in delegate.");
  return true;
}

static TfLiteOpaqueContext* opaque_context(lg_subgraph* s) {
  return (TfLiteOpaqueContext*)&s->context;
}

bool lg_delegate_is_opaque(const TfLiteDelegate* delegate) {
  return delegate != NULL && delegate->Prepare == NULL &&
         delegate->opaque_delegate_builder != NULL;
}

static int64_t delegate_flags(const TfLiteDelegate* delegate) {
  return lg_delegate_is_opaque(delegate)
             ? delegate->opaque_delegate_builder->flags
             : delegate->flags;
}

/* ---- Delegate-only context functions ------------------------------------ */

static TfLiteStatus get_execution_plan(TfLiteContext* context,
                                       TfLiteIntArray** plan) {
  lg_subgraph* s = lg_subgraph_from_context(context);
  if (forbidden(s)) return kTfLiteError;
  if (plan == NULL) return kTfLiteError;
  *plan = s->execution_plan;
  return kTfLiteOk;
}

static TfLiteStatus get_node_and_registration(
    TfLiteContext* context, int node_index, TfLiteNode** node,
    TfLiteRegistration** registration) {
  lg_subgraph* s = lg_subgraph_from_context(context);
  if (forbidden(s)) return kTfLiteError;
  if (node_index < 0 || node_index >= s->num_nodes || node == NULL ||
      registration == NULL) {
    lg_report(reporter_of(s),
              "GetNodeAndRegistration: node %d out of range [0, %d)",
              node_index, s->num_nodes);
    return kTfLiteError;
  }
  *node = &s->nodes[node_index].node;
  *registration = &s->nodes[node_index].registration;
  return kTfLiteOk;
}

static lg_graph_view view_of(const lg_subgraph* s, const TfLiteNode** nodes) {
  for (int i = 0; i < s->num_nodes; ++i) nodes[i] = &s->nodes[i].node;
  lg_graph_view v = {nodes,
                     s->num_nodes,
                     (int)s->context.tensors_size,
                     s->execution_plan,
                     s->outputs,
                     s->num_outputs};
  return v;
}

/* Checks `claimed`: in the plan, no duplicates, no delegate kernels. */
static TfLiteStatus check_claimed(lg_subgraph* s,
                                  const TfLiteIntArray* claimed) {
  if (claimed == NULL) {
    lg_report(reporter_of(s),
              "ReplaceNodeSubsetsWithDelegateKernels: "
              "nodes_to_replace is NULL");
    return kTfLiteError;
  }
  char* seen = calloc((size_t)(s->num_nodes > 0 ? s->num_nodes : 1), 1);
  if (seen == NULL) return kTfLiteError;
  for (int p = 0; p < s->execution_plan->size; ++p) {
    seen[s->execution_plan->data[p]] = 1; /* 1: in plan, 2: claimed */
  }
  TfLiteStatus status = kTfLiteOk;
  for (int i = 0; i < claimed->size && status == kTfLiteOk; ++i) {
    const int n = claimed->data[i];
    const char* why = NULL;
    if (n < 0 || n >= s->num_nodes) {
      why = "is out of range";
    } else if (seen[n] == 0) {
      why = "is not in the execution plan (already replaced?)";
    } else if (seen[n] == 2) {
      why = "is listed twice";
    } else if (s->nodes[n].is_delegate_kernel) {
      why = "is already a delegate kernel";
    }
    if (why != NULL) {
      lg_report(reporter_of(s),
                "ReplaceNodeSubsetsWithDelegateKernels: node %d %s", n, why);
      status = kTfLiteError;
    } else {
      seen[n] = 2;
    }
  }
  free(seen);
  return status;
}

/* A delegate kernel's builtin data, in one block that free() releases (as
 * TFLite lays it out): the params struct, then copies of the subset's nodes,
 * input tensors and output tensors. An opaque delegate's kernel gets
 * TfLiteOpaqueDelegateParams (with its builder's data), any other
 * TfLiteDelegateParams. The struct sizes are multiples of a pointer's
 * alignment, so the int arrays after them are aligned. */
static void* make_params(TfLiteDelegate* delegate,
                         const lg_node_subset* subset) {
  const bool opaque = lg_delegate_is_opaque(delegate);
  const TfLiteIntArray* lists[3] = {subset->nodes, subset->input_tensors,
                                    subset->output_tensors};
  const size_t head = opaque ? sizeof(TfLiteOpaqueDelegateParams)
                             : sizeof(TfLiteDelegateParams);
  size_t total = head;
  for (int k = 0; k < 3; ++k) {
    total += TfLiteIntArrayGetSizeInBytes(lists[k]->size);
  }
  char* block = malloc(total);
  if (block == NULL) return NULL;
  TfLiteIntArray* copies[3];
  char* at = block + head;
  for (int k = 0; k < 3; ++k) {
    copies[k] = (TfLiteIntArray*)(void*)at;
    copies[k]->size = lists[k]->size;
    if (lists[k]->size > 0) {
      memcpy(copies[k]->data, lists[k]->data,
             sizeof(int) * (size_t)lists[k]->size);
    }
    at += TfLiteIntArrayGetSizeInBytes(lists[k]->size);
  }
  if (opaque) {
    TfLiteOpaqueDelegateParams* p = (TfLiteOpaqueDelegateParams*)(void*)block;
    p->delegate = delegate;
    p->delegate_data = delegate->opaque_delegate_builder->data;
    p->nodes_to_replace = copies[0];
    p->input_tensors = copies[1];
    p->output_tensors = copies[2];
  } else {
    TfLiteDelegateParams* p = (TfLiteDelegateParams*)(void*)block;
    p->delegate = delegate;
    p->nodes_to_replace = copies[0];
    p->input_tensors = copies[1];
    p->output_tensors = copies[2];
  }
  return block;
}

/* Appends a delegate kernel node for `subset`; its index into *index. */
static TfLiteStatus add_kernel_node(lg_subgraph* s,
                                    const TfLiteRegistration* registration,
                                    TfLiteDelegate* delegate,
                                    const lg_node_subset* subset, int* index) {
  if (s->num_nodes >= s->nodes_capacity) return kTfLiteError;
  lg_node* node = &s->nodes[s->num_nodes];
  memset(node, 0, sizeof(*node));
  void* params = make_params(delegate, subset);
  if (params == NULL) return kTfLiteError;
  node->node.builtin_data = params;
  node->is_delegate_kernel = true;
  node->op_index = s->num_nodes;
  node->registration = *registration;
  node->node.delegate = delegate;
  node->node.inputs = TfLiteIntArrayCopy(subset->input_tensors);
  node->node.outputs = TfLiteIntArrayCopy(subset->output_tensors);
  node->node.intermediates = TfLiteIntArrayCreate(0);
  node->node.temporaries = TfLiteIntArrayCreate(0);
  *index = s->num_nodes++; /* from here on lg_subgraph_release frees it */
  if (!node->node.inputs || !node->node.outputs || !node->node.intermediates ||
      !node->node.temporaries) {
    return kTfLiteError;
  }
  for (int i = 0; i < subset->output_tensors->size; ++i) {
    s->context.tensors[subset->output_tensors->data[i]].delegate = delegate;
  }
  node->node.user_data = lg_registration_init(&s->context, &node->registration,
                                              (const char*)params, 0);
  node->initialized = true;
  return kTfLiteOk;
}

static TfLiteStatus rebuild_plan(lg_subgraph* s, TfLiteRegistration reg,
                                 TfLiteDelegate* delegate,
                                 const lg_node_subset* subsets, int count,
                                 int* partitions) {
  TfLiteIntArray* plan = TfLiteIntArrayCreate(s->execution_plan->size);
  if (plan == NULL) return kTfLiteError;
  int size = 0;
  *partitions = 0;
  for (int i = 0; i < count; ++i) {
    const lg_node_subset* subset = &subsets[i];
    if (subset->type == LG_SUBSET_NON_PARTITION) {
      for (int k = 0; k < subset->nodes->size; ++k) {
        plan->data[size++] = subset->nodes->data[k];
      }
      continue;
    }
    int index = -1;
    if (add_kernel_node(s, &reg, delegate, subset, &index) != kTfLiteOk) {
      TfLiteIntArrayFree(plan);
      return kTfLiteError;
    }
    plan->data[size++] = index;
    ++*partitions;
  }
  plan->size = size;
  TfLiteIntArrayFree(s->execution_plan);
  s->execution_plan = plan;
  return kTfLiteOk;
}

/* ---- Operators the interpreter owns ------------------------------------ */

static TfLiteStatus add_owned(TfLiteInterpreter* ip, TfLiteOperator* op,
                              bool derived) {
  if (ip->num_operators == ip->operators_capacity) {
    const int capacity =
        ip->operators_capacity ? 2 * ip->operators_capacity : 4;
    lg_owned_operator* grown =
        realloc(ip->operators, sizeof(*grown) * (size_t)capacity);
    if (grown == NULL) return kTfLiteError;
    ip->operators = grown;
    ip->operators_capacity = capacity;
  }
  ip->operators[ip->num_operators].op = op;
  ip->operators[ip->num_operators].derived = derived;
  ++ip->num_operators;
  return kTfLiteOk;
}

/* Takes ownership of an opaque delegate's kernel operator. The same
 * operator handed over twice (two Replace calls) is owned once. When the
 * list cannot grow the operator is deleted at once: it is ours either way,
 * and the Replace fails. */
static TfLiteStatus own_operator(lg_subgraph* s, TfLiteOperator* op) {
  TfLiteInterpreter* ip = s->interpreter;
  for (int i = 0; i < ip->num_operators; ++i) {
    if (ip->operators[i].op == op) return kTfLiteOk;
  }
  if (add_owned(ip, op, false) == kTfLiteOk) return kTfLiteOk;
  TfLiteOperatorDelete(op);
  lg_report(reporter_of(s),
            "ReplaceNodeSubsetsWithDelegateKernels: out of memory");
  return kTfLiteError;
}

static bool same_name(const char* a, const char* b) {
  if (a == NULL || b == NULL) return a == b;
  return strcmp(a, b) == 0;
}

TfLiteOperator* lg_subgraph_node_operator(lg_subgraph* s, int node_index) {
  const TfLiteRegistration* r = &s->nodes[node_index].registration;
  if (r->registration_external != NULL) return r->registration_external;
  TfLiteInterpreter* ip = s->interpreter;
  for (int i = 0; i < ip->num_operators; ++i) {
    TfLiteOperator* op = ip->operators[i].op;
    if (ip->operators[i].derived &&
        (int32_t)TfLiteOperatorGetBuiltInCode(op) == r->builtin_code &&
        TfLiteOperatorGetVersion(op) == r->version &&
        same_name(TfLiteOperatorGetCustomName(op), r->custom_name)) {
      return op;
    }
  }
  TfLiteOperator* op = lg_operator_describe(r);
  if (op == NULL || add_owned(ip, op, true) != kTfLiteOk) {
    TfLiteOperatorDelete(op);
    lg_report(reporter_of(s), "GetNodeAndRegistration: out of memory");
    return NULL;
  }
  return op;
}

void lg_interpreter_free_operators(TfLiteInterpreter* ip) {
  for (int i = 0; i < ip->num_operators; ++i) {
    TfLiteOperatorDelete(ip->operators[i].op);
  }
  free(ip->operators);
  ip->operators = NULL;
  ip->num_operators = 0;
  ip->operators_capacity = 0;
}

/* ---- Replacing nodes ----------------------------------------------------- */

/* The kernel registration of a Replace: a registration that only carries an
 * operator (the opaque API's) takes its name and version from it. Opaque
 * delegates must give an operator, and hand it over to the interpreter. */
static TfLiteStatus kernel_registration(lg_subgraph* s,
                                        TfLiteRegistration* registration,
                                        TfLiteDelegate* delegate) {
  TfLiteOperator* op = registration->registration_external;
  if (lg_delegate_is_opaque(delegate)) {
    if (op == NULL) {
      lg_report(reporter_of(s),
                "For a delegate with the 'opaque_delegate_builder' field set, "
                "the delegate kernel's TfLiteRegistration object must have "
                "the 'registration_external' field set.");
      return kTfLiteDelegateError;
    }
    TF_LITE_ENSURE_STATUS(own_operator(s, op));
  }
  registration->builtin_code = kTfLiteBuiltinDelegate;
  if (op == NULL) return kTfLiteOk;
  lg_operator_set_builtin_code(op, kTfLiteBuiltinDelegate);
  if (registration->custom_name == NULL) {
    registration->custom_name = TfLiteOperatorGetCustomName(op);
  }
  if (registration->version == 0) {
    registration->version = TfLiteOperatorGetVersion(op);
  }
  return kTfLiteOk;
}

static TfLiteStatus replace_node_subsets(TfLiteContext* context,
                                         TfLiteRegistration registration,
                                         const TfLiteIntArray* nodes,
                                         TfLiteDelegate* delegate) {
  lg_subgraph* s = lg_subgraph_from_context(context);
  /* An opaque delegate's operator is the interpreter's from here on,
   * whatever happens next. */
  TfLiteStatus status = kernel_registration(s, &registration, delegate);
  if (status != kTfLiteOk) {
    if (s->in_delegate_prepare) s->delegate_replace_failed = true;
    return status;
  }
  if (forbidden(s)) return kTfLiteError;
  if (!s->in_delegate_prepare) {
    lg_report(reporter_of(s),
              "ReplaceNodeSubsetsWithDelegateKernels: subgraph %d is only "
              "acquired (AcquireSubgraphContext); only the subgraph being "
              "delegated can be changed",
              s->index);
    return kTfLiteError;
  }
  status = check_claimed(s, nodes);
  const TfLiteNode** view_nodes =
      malloc(sizeof(*view_nodes) * (size_t)(s->num_nodes + 1));
  lg_node_subset* subsets = NULL;
  int count = 0, partitions = 0;
  const int plan_size = s->execution_plan->size;
  if (status == kTfLiteOk && view_nodes == NULL) status = kTfLiteError;
  if (status == kTfLiteOk) {
    lg_graph_view view = view_of(s, view_nodes);
    status = lg_partition_graph(&view, nodes, reporter_of(s), &subsets, &count);
  }
  if (status == kTfLiteOk) {
    status =
        rebuild_plan(s, registration, delegate, subsets, count, &partitions);
  }
  if (status == kTfLiteOk) {
    lg_report(reporter_of(s),
              "Replacing %d out of %d node(s) with delegate (%s) node, "
              "yielding %d partitions for the whole graph.",
              nodes->size, plan_size,
              registration.custom_name ? registration.custom_name : "unknown",
              partitions);
  } else {
    s->delegate_replace_failed = true;
  }
  lg_node_subsets_free(subsets, count);
  free(view_nodes);
  return status;
}

static void free_preview(lg_subgraph* s) {
  for (int i = 0; i < s->num_preview_params; ++i) {
    TfLiteIntArrayFree(s->preview_params[i].nodes_to_replace);
    TfLiteIntArrayFree(s->preview_params[i].input_tensors);
    TfLiteIntArrayFree(s->preview_params[i].output_tensors);
  }
  free(s->preview_params);
  s->preview_params = NULL;
  s->num_preview_params = 0;
}

/* Keeps the partition subsets as TfLiteDelegateParams (delegate NULL) owned
 * by the subgraph until the delegate's Prepare returns. */
static TfLiteStatus keep_preview(lg_subgraph* s, lg_node_subset* subsets,
                                 int count) {
  s->preview_params =
      calloc((size_t)(count ? count : 1), sizeof(TfLiteDelegateParams));
  if (s->preview_params == NULL) return kTfLiteError;
  for (int i = 0; i < count; ++i) {
    if (subsets[i].type != LG_SUBSET_PARTITION) continue;
    TfLiteDelegateParams* p = &s->preview_params[s->num_preview_params++];
    p->nodes_to_replace = subsets[i].nodes;
    p->input_tensors = subsets[i].input_tensors;
    p->output_tensors = subsets[i].output_tensors;
    subsets[i].nodes = NULL; /* moved */
    subsets[i].input_tensors = NULL;
    subsets[i].output_tensors = NULL;
  }
  return kTfLiteOk;
}

static TfLiteStatus preview_partitioning(TfLiteContext* context,
                                         const TfLiteIntArray* nodes,
                                         TfLiteDelegateParams** params,
                                         int* num_partitions) {
  lg_subgraph* s = lg_subgraph_from_context(context);
  if (forbidden(s)) return kTfLiteError;
  if (params == NULL || num_partitions == NULL) return kTfLiteError;
  free_preview(s);
  TfLiteStatus status = check_claimed(s, nodes);
  const TfLiteNode** view_nodes =
      malloc(sizeof(*view_nodes) * (size_t)(s->num_nodes + 1));
  lg_node_subset* subsets = NULL;
  int count = 0;
  if (status == kTfLiteOk && view_nodes != NULL) {
    lg_graph_view view = view_of(s, view_nodes);
    status = lg_partition_graph(&view, nodes, reporter_of(s), &subsets, &count);
    if (status == kTfLiteOk) status = keep_preview(s, subsets, count);
  } else {
    status = kTfLiteError;
  }
  lg_node_subsets_free(subsets, count);
  free(view_nodes);
  *params = status == kTfLiteOk ? s->preview_params : NULL;
  *num_partitions = status == kTfLiteOk ? s->num_preview_params : 0;
  return status;
}

/* ---- Other subgraphs ------------------------------------------------------
 */

static lg_subgraph* other_subgraph(lg_subgraph* s, int index,
                                   const char* function) {
  TfLiteInterpreter* ip = s->interpreter;
  if (index < 0 || index >= ip->num_subgraphs) {
    lg_report(reporter_of(s), "%s: subgraph index %d out of range [0, %d)",
              function, index, ip->num_subgraphs);
    return NULL;
  }
  return &ip->subgraphs[index];
}

TfLiteStatus lg_subgraph_acquire_context(lg_subgraph* s, int index,
                                         TfLiteContext** acquired) {
  lg_subgraph* other = other_subgraph(s, index, "AcquireSubgraphContext");
  if (other == NULL || acquired == NULL) return kTfLiteError;
  ++other->acquired;
  *acquired = &other->context;
  return kTfLiteOk;
}

TfLiteStatus lg_subgraph_release_context(lg_subgraph* s, int index) {
  lg_subgraph* other = other_subgraph(s, index, "ReleaseSubgraphContext");
  if (other == NULL) return kTfLiteError;
  /* An unbalanced release is harmless, as in TFLite. */
  if (other->acquired > 0) --other->acquired;
  return kTfLiteOk;
}

static TfLiteStatus acquire_subgraph_context(TfLiteContext* context,
                                             int subgraph_index,
                                             TfLiteContext** acquired) {
  lg_subgraph* s = lg_subgraph_from_context(context);
  if (forbidden(s)) return kTfLiteError;
  return lg_subgraph_acquire_context(s, subgraph_index, acquired);
}

static TfLiteStatus release_subgraph_context(TfLiteContext* context,
                                             int subgraph_index) {
  lg_subgraph* s = lg_subgraph_from_context(context);
  if (forbidden(s)) return kTfLiteError;
  return lg_subgraph_release_context(s, subgraph_index);
}

void lg_delegate_install_context(TfLiteContext* context) {
  context->GetExecutionPlan = get_execution_plan;
  context->GetNodeAndRegistration = get_node_and_registration;
  context->ReplaceNodeSubsetsWithDelegateKernels = replace_node_subsets;
  context->PreviewDelegatePartitioning = preview_partitioning;
  context->AcquireSubgraphContext = acquire_subgraph_context;
  context->ReleaseSubgraphContext = release_subgraph_context;
}

/* ---- Applying and removing ------------------------------------------------
 */

bool lg_subgraph_has_delegates(const lg_subgraph* s) {
  return s->original_plan != NULL;
}

static void free_buffer_handle(lg_subgraph* s, TfLiteTensor* t) {
  TfLiteDelegate* d = t->delegate;
  if (d != NULL && t->buffer_handle != kTfLiteNullBufferHandle) {
    if (lg_delegate_is_opaque(d)) {
      const TfLiteOpaqueDelegateBuilder* b = d->opaque_delegate_builder;
      if (b->FreeBufferHandle != NULL) {
        b->FreeBufferHandle(opaque_context(s), d, b->data, &t->buffer_handle);
      }
    } else if (d->FreeBufferHandle != NULL) {
      d->FreeBufferHandle(&s->context, d, &t->buffer_handle);
    }
  }
  t->buffer_handle = kTfLiteNullBufferHandle;
  t->data_is_stale = false;
  t->delegate = NULL;
}

TfLiteStatus lg_subgraph_set_buffer_handle(lg_subgraph* s, int tensor,
                                           TfLiteBufferHandle handle,
                                           TfLiteDelegate* delegate) {
  TfLiteTensor* t = &s->context.tensors[tensor];
  if (delegate == NULL || (t->delegate != NULL && t->delegate != delegate)) {
    lg_report(reporter_of(s), "SetBufferHandle: tensor %d: %s", tensor,
              delegate == NULL ? "the delegate is NULL"
                               : "it holds a buffer handle of another "
                                 "delegate");
    return kTfLiteError;
  }
  if (t->buffer_handle != handle) free_buffer_handle(s, t);
  t->delegate = delegate;
  t->buffer_handle = handle;
  return kTfLiteOk;
}

void lg_subgraph_remove_delegates(lg_subgraph* s) {
  if (!lg_subgraph_has_delegates(s)) return;
  for (size_t i = 0; i < s->context.tensors_size; ++i) {
    free_buffer_handle(s, &s->context.tensors[i]);
  }
  for (int i = s->num_model_nodes; i < s->num_nodes; ++i) {
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
    memset(node, 0, sizeof(*node));
  }
  s->num_nodes = s->num_model_nodes;
  TfLiteIntArrayFree(s->execution_plan);
  s->execution_plan = s->original_plan;
  s->original_plan = NULL;
  s->immutable = false;
  s->propagate_shapes = false;
  s->state = LG_STATE_UNPREPARED;
}

static TfLiteStatus reserve_nodes(lg_subgraph* s) {
  /* One delegate can add at most one node per plan entry; reserving that up
   * front keeps node pointers stable during the delegate's Prepare. */
  const int needed = s->num_nodes + s->execution_plan->size + 1;
  if (needed <= s->nodes_capacity) return kTfLiteOk;
  lg_node* nodes = realloc(s->nodes, sizeof(lg_node) * (size_t)needed);
  if (nodes == NULL) return kTfLiteError;
  s->nodes = nodes;
  s->nodes_capacity = needed;
  return kTfLiteOk;
}

static int first_dynamic_tensor(const lg_subgraph* s) {
  for (size_t i = 0; i < s->context.tensors_size; ++i) {
    if (s->context.tensors[i].allocation_type == kTfLiteDynamic) return (int)i;
  }
  return -1;
}

static TfLiteStatus undo(lg_subgraph* s) {
  lg_subgraph_remove_delegates(s);
  lg_report(reporter_of(s),
            "Restored original execution plan after delegate application "
            "failure.");
  /* Re-plan on the CPU now so that the graph is ready as before. */
  lg_subgraph_allocate_tensors(s);
  return kTfLiteDelegateError;
}

static TfLiteStatus run_prepare(lg_subgraph* s, TfLiteDelegate* delegate) {
  s->in_delegate_prepare = true;
  s->delegate_replace_failed = false;
  TfLiteStatus status;
  if (lg_delegate_is_opaque(delegate)) {
    const TfLiteOpaqueDelegateBuilder* b = delegate->opaque_delegate_builder;
    status = b->Prepare(opaque_context(s), delegate, b->data);
  } else {
    status = delegate->Prepare(&s->context, delegate);
  }
  s->in_delegate_prepare = false;
  free_preview(s);
  if (status == kTfLiteOk && s->delegate_replace_failed) status = kTfLiteError;
  return status;
}

static TfLiteStatus apply_delegate(lg_subgraph* s, TfLiteDelegate* delegate,
                                   bool dynamic_ok, bool propagate);

TfLiteStatus lg_subgraph_apply_delegate(lg_subgraph* s,
                                        TfLiteDelegate* delegate) {
  if (delegate == NULL) {
    lg_report(reporter_of(s), "Null delegate.");
    return kTfLiteDelegateError;
  }
  const bool has_prepare =
      lg_delegate_is_opaque(delegate)
          ? delegate->opaque_delegate_builder->Prepare != NULL
          : delegate->Prepare != NULL;
  if (!has_prepare) {
    lg_report(reporter_of(s),
              lg_delegate_is_opaque(delegate)
                  ? "Opaque delegate builder has no Prepare function"
                  : "Delegate has no Prepare function");
    return kTfLiteDelegateError;
  }
  const int64_t flags = delegate_flags(delegate);
  const bool dynamic_ok =
      (flags & kTfLiteDelegateFlagsAllowDynamicTensors) != 0;
  const bool propagate =
      (flags & kTfLiteDelegateFlagsRequirePropagatedShapes) != 0;
  s->tolerate_unresolved = true;
  const TfLiteStatus status =
      apply_delegate(s, delegate, dynamic_ok, propagate);
  s->tolerate_unresolved = false;
  /* A custom op no delegate took has no kernel: the graph is not ready. */
  if (lg_subgraph_has_unresolved(s)) s->state = LG_STATE_UNPREPARED;
  return status;
}

/* lg_subgraph_apply_delegate with unresolved custom ops passed over. */
static TfLiteStatus apply_delegate(lg_subgraph* s, TfLiteDelegate* delegate,
                                   bool dynamic_ok, bool propagate) {
  /* Shapes must be known: prepare the graph first. */
  if ((!dynamic_ok || propagate) &&
      lg_subgraph_allocate_tensors(s) != kTfLiteOk)
    return kTfLiteError;
  if (!dynamic_ok) {
    const int dynamic = first_dynamic_tensor(s);
    if (dynamic >= 0) {
      lg_report(reporter_of(s),
                "Attempting to use a delegate that only supports static-sized "
                "tensors with a graph that has dynamic-sized tensors "
                "(tensor#%d is a dynamic-sized tensor).",
                dynamic);
      return kTfLiteApplicationError;
    }
  }
  if (s->original_plan == NULL) {
    s->original_plan = TfLiteIntArrayCopy(s->execution_plan);
    if (s->original_plan == NULL) return kTfLiteError;
  }
  if (reserve_nodes(s) != kTfLiteOk) return undo(s);
  /* The delegate may read any constant, folded ones included. */
  if (lg_subgraph_restore_folded(s) != kTfLiteOk) return undo(s);
  if (run_prepare(s, delegate) != kTfLiteOk) return undo(s);
  if (propagate) s->propagate_shapes = true;
  s->state = LG_STATE_UNPREPARED;
  if (lg_subgraph_allocate_tensors(s) != kTfLiteOk) return undo(s);
  if (!dynamic_ok) s->immutable = true;
  return kTfLiteOk;
}

TfLiteStatus lg_subgraph_ensure_readable(lg_subgraph* s, int tensor,
                                         const TfLiteDelegate* reader) {
  TfLiteTensor* t = &s->context.tensors[tensor];
  if (!t->data_is_stale || t->delegate == NULL || t->delegate == reader ||
      t->buffer_handle == kTfLiteNullBufferHandle) {
    return kTfLiteOk;
  }
  TfLiteDelegate* d = t->delegate;
  TfLiteStatus status = kTfLiteError;
  if (lg_delegate_is_opaque(d)) {
    const TfLiteOpaqueDelegateBuilder* b = d->opaque_delegate_builder;
    if (b->CopyFromBufferHandle != NULL) {
      status =
          b->CopyFromBufferHandle(opaque_context(s), d, b->data,
                                  t->buffer_handle, (TfLiteOpaqueTensor*)t);
    }
  } else if (d->CopyFromBufferHandle != NULL) {
    status = d->CopyFromBufferHandle(&s->context, d, t->buffer_handle, t);
  }
  if (status != kTfLiteOk) {
    lg_report(reporter_of(s),
              "Tensor %d (%s): copying from the delegate's buffer handle %d "
              "failed",
              tensor, t->name ? t->name : "", t->buffer_handle);
    return kTfLiteError;
  }
  t->data_is_stale = false;
  return kTfLiteOk;
}
