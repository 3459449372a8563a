/* The delegate kit (see delegate_kit.h). */
#include "partition/delegate_kit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/op_manifest.h"
#include "runtime/model/builtin_options.h"
#include "tensorflow/lite/builtin_ops.h"

static const char* op_name(const TfLiteRegistration* r) {
  if ((r->builtin_code == kTfLiteBuiltinCustom ||
       r->builtin_code == kTfLiteBuiltinDelegate) &&
      r->custom_name != NULL) {
    return r->custom_name;
  }
  return lg_builtin_op_name(r->builtin_code);
}

static const lg_kit_op* find_op(const lg_delegate_kit* kit,
                                const TfLiteRegistration* r) {
  for (int i = 0; i < kit->num_ops; ++i) {
    const lg_kit_op* op = &kit->ops[i];
    if (lg_op_same(op->builtin_code, op->custom_name, r->builtin_code,
                   r->custom_name)) {
      return op;
    }
  }
  return NULL;
}

/* The op's own check, then the delegate-wide one. */
static bool node_passes(const lg_delegate_kit* kit, const lg_kit_op* op,
                        TfLiteContext* context, const TfLiteNode* node,
                        const TfLiteRegistration* reg, char* reason,
                        size_t size) {
  if (op->check != NULL && !op->check(context, node, reg, reason, size)) {
    return false;
  }
  return kit->node_check == NULL ||
         kit->node_check(kit->user_data, context, node, reg, reason, size);
}

/* Step 1: one decision per plan entry; claimed nodes into `supported`. */
static TfLiteStatus decide_nodes(lg_delegate_kit* kit, TfLiteContext* context,
                                 TfLiteIntArray* supported) {
  TfLiteIntArray* plan = NULL;
  TF_LITE_ENSURE_STATUS(context->GetExecutionPlan(context, &plan));
  kit->decisions =
      calloc((size_t)(plan->size ? plan->size : 1), sizeof(lg_kit_decision));
  if (kit->decisions == NULL) return kTfLiteError;
  supported->size = 0;
  for (int i = 0; i < plan->size; ++i) {
    TfLiteNode* node = NULL;
    TfLiteRegistration* reg = NULL;
    TF_LITE_ENSURE_STATUS(
        context->GetNodeAndRegistration(context, plan->data[i], &node, &reg));
    lg_kit_decision* d = &kit->decisions[kit->num_decisions++];
    d->node_index = plan->data[i];
    d->builtin_code = reg->builtin_code;
    d->op_name = op_name(reg);
    d->version = reg->version;
    const lg_kit_op* op = find_op(kit, reg);
    if (op == NULL) {
      snprintf(d->reason, sizeof(d->reason), "Operation is not supported.");
    } else if (reg->version > op->max_version) {
      snprintf(d->reason, sizeof(d->reason),
               "Max version supported: %d. Requested version %d.",
               op->max_version, reg->version);
    } else if (node_passes(kit, op, context, node, reg, d->reason,
                           sizeof(d->reason))) {
      d->claimed = true;
      d->reason[0] = '\0';
      supported->data[supported->size++] = plan->data[i];
    } else if (d->reason[0] == '\0') {
      snprintf(d->reason, sizeof(d->reason), "Parameters are not supported.");
    }
  }
  return kTfLiteOk;
}

static lg_kit_decision* decision_of(lg_delegate_kit* kit, int node) {
  for (int i = 0; i < kit->num_decisions; ++i) {
    if (kit->decisions[i].node_index == node) return &kit->decisions[i];
  }
  return NULL;
}

/* Larger partitions first; equal sizes by their first node, so the choice
 * is deterministic. */
static int compare_sizes(const void* a, const void* b) {
  const TfLiteDelegateParams* x = *(const TfLiteDelegateParams* const*)a;
  const TfLiteDelegateParams* y = *(const TfLiteDelegateParams* const*)b;
  if (x->nodes_to_replace->size != y->nodes_to_replace->size) {
    return y->nodes_to_replace->size - x->nodes_to_replace->size;
  }
  return x->nodes_to_replace->data[0] - y->nodes_to_replace->data[0];
}

/* Un-claims the nodes of a partition that is not kept, with the reason. */
static void drop_partition(lg_delegate_kit* kit, const TfLiteIntArray* nodes,
                           const char* format, int value) {
  for (int k = 0; k < nodes->size; ++k) {
    lg_kit_decision* d = decision_of(kit, nodes->data[k]);
    if (d == NULL) continue;
    d->claimed = false;
    snprintf(d->reason, sizeof(d->reason), format, nodes->size, value);
  }
}

/* Step 2: keep the largest partitions; the kept nodes into `kept`. */
static TfLiteStatus choose_partitions(lg_delegate_kit* kit,
                                      TfLiteContext* context,
                                      TfLiteIntArray* supported,
                                      TfLiteIntArray* kept) {
  kept->size = 0;
  kit->num_partitions = 0;
  if (supported->size == 0) return kTfLiteOk;
  TfLiteDelegateParams* params = NULL;
  int count = 0;
  TF_LITE_ENSURE_STATUS(context->PreviewDelegatePartitioning(context, supported,
                                                             &params, &count));
  const TfLiteDelegateParams** order =
      malloc(sizeof(*order) * (size_t)(count ? count : 1));
  if (order == NULL) return kTfLiteError;
  kit->partitions =
      calloc((size_t)(count ? count : 1), sizeof(*kit->partitions));
  if (kit->partitions == NULL) {
    free(order);
    return kTfLiteError;
  }
  for (int i = 0; i < count; ++i) order[i] = &params[i];
  qsort(order, (size_t)count, sizeof(*order), compare_sizes);
  const int limit =
      kit->max_delegated_partitions > 0 ? kit->max_delegated_partitions : count;
  for (int i = 0; i < count; ++i) {
    const TfLiteIntArray* nodes = order[i]->nodes_to_replace;
    if (i >= limit) {
      drop_partition(kit, nodes,
                     "In a partition of %d nodes, outside the %d largest "
                     "(max_delegated_partitions).",
                     limit);
    } else if (nodes->size < kit->min_nodes_per_partition) {
      drop_partition(kit, nodes,
                     "In a partition of %d nodes, fewer than "
                     "min_nodes_per_partition (%d).",
                     kit->min_nodes_per_partition);
    } else {
      for (int k = 0; k < nodes->size; ++k) {
        kept->data[kept->size++] = nodes->data[k];
      }
      kit->partitions[kit->num_partitions] = TfLiteIntArrayCopy(nodes);
      if (kit->partitions[kit->num_partitions++] == NULL) {
        free(order);
        return kTfLiteError;
      }
    }
  }
  free(order);
  kit->num_claimed = kept->size;
  return kTfLiteOk;
}

/* One refusal line of the report: "OP: reason", and how many nodes. */
typedef struct refusal {
  const char* op;
  const char* reason;
  int count;
} refusal;

static int compare_refusals(const void* a, const void* b) {
  const refusal* x = a;
  const refusal* y = b;
  const int by_op = strcmp(x->op, y->op);
  return by_op != 0 ? by_op : strcmp(x->reason, y->reason);
}

/* The refused nodes' distinct (op, reason) pairs, sorted, with counts;
 * returns how many (0 when out of memory: the report then lists none). */
static int collect_refusals(const lg_delegate_kit* kit, refusal** out) {
  refusal* list = calloc((size_t)kit->num_decisions + 1, sizeof(*list));
  *out = list;
  if (list == NULL) return 0;
  int n = 0;
  for (int i = 0; i < kit->num_decisions; ++i) {
    const lg_kit_decision* d = &kit->decisions[i];
    if (d->claimed) continue;
    list[n++] = (refusal){d->op_name, d->reason, 1};
  }
  qsort(list, (size_t)n, sizeof(*list), compare_refusals);
  int unique = 0;
  for (int i = 0; i < n; ++i) {
    if (unique > 0 && compare_refusals(&list[unique - 1], &list[i]) == 0) {
      list[unique - 1].count++;
    } else {
      list[unique++] = list[i];
    }
  }
  return unique;
}

/* TFLite's GPU-delegate report: the sorted distinct "OP: reason" lines (a
 * count after those several nodes share), then how many operations run
 * where. Built to its full length: never cut. */
static void log_unsupported(const lg_delegate_kit* kit,
                            TfLiteContext* context) {
  if (kit->num_claimed == kit->num_decisions) return;
  refusal* list = NULL;
  const int count = collect_refusals(kit, &list);
  size_t size = 1;
  for (int i = 0; i < count; ++i) {
    size += strlen(list[i].op) + strlen(list[i].reason) + 32;
  }
  char* lines = malloc(size);
  size_t used = 0;
  for (int i = 0; lines != NULL && i < count; ++i) {
    const int n =
        list[i].count > 1
            ? snprintf(lines + used, size - used, "%s: %s (%d nodes)\n",
                       list[i].op, list[i].reason, list[i].count)
            : snprintf(lines + used, size - used, "%s: %s\n", list[i].op,
                       list[i].reason);
    if (n > 0) used += (size_t)n;
  }
  if (lines != NULL) lines[used] = '\0';
  const char* who = kit->report_name ? kit->report_name : kit->name;
  const char* where = kit->report_target ? kit->report_target : "delegate";
  const int rest = kit->num_decisions - kit->num_claimed;
  if (kit->num_claimed > 0) {
    context->ReportError(context,
                         "Following operations are not supported by %s:\n%s%d "
                         "operations will run on the %s, and the remaining %d "
                         "operations will run on the CPU.",
                         who, lines ? lines : "", kit->num_claimed, where,
                         rest);
  } else {
    context->ReportError(context,
                         "Following operations are not supported by %s:\n%sNo "
                         "operations will run on the %s, and all %d "
                         "operations will run on the CPU.",
                         who, lines ? lines : "", where, rest);
  }
  free(lines);
  free(list);
}

static TfLiteStatus decide_and_choose(lg_delegate_kit* kit,
                                      TfLiteContext* context,
                                      TfLiteIntArray** kept) {
  lg_delegate_kit_release(kit);
  TfLiteIntArray* plan = NULL;
  TF_LITE_ENSURE_STATUS(context->GetExecutionPlan(context, &plan));
  TfLiteIntArray* supported = TfLiteIntArrayCreate(plan->size);
  *kept = TfLiteIntArrayCreate(plan->size);
  TfLiteStatus status = kTfLiteError;
  if (supported != NULL && *kept != NULL) {
    status = decide_nodes(kit, context, supported);
    if (status == kTfLiteOk) {
      status = choose_partitions(kit, context, supported, *kept);
    }
  }
  TfLiteIntArrayFree(supported);
  return status;
}

TfLiteStatus lg_delegate_kit_preview(lg_delegate_kit* kit,
                                     TfLiteContext* context) {
  TfLiteIntArray* kept = NULL;
  TfLiteStatus status = decide_and_choose(kit, context, &kept);
  TfLiteIntArrayFree(kept);
  return status;
}

TfLiteStatus lg_delegate_kit_prepare(lg_delegate_kit* kit,
                                     TfLiteContext* context,
                                     TfLiteDelegate* delegate) {
  TfLiteIntArray* kept = NULL;
  TfLiteStatus status = decide_and_choose(kit, context, &kept);
  if (status == kTfLiteOk) {
    log_unsupported(kit, context);
    TfLiteRegistration kernel = kit->kernel;
    kernel.custom_name = kit->name;
    status = context->ReplaceNodeSubsetsWithDelegateKernels(context, kernel,
                                                            kept, delegate);
  }
  TfLiteIntArrayFree(kept);
  return status;
}

void lg_delegate_kit_release(lg_delegate_kit* kit) {
  for (int i = 0; i < kit->num_partitions; ++i) {
    TfLiteIntArrayFree(kit->partitions[i]);
  }
  free(kit->partitions);
  kit->partitions = NULL;
  free(kit->decisions);
  kit->decisions = NULL;
  kit->num_decisions = 0;
  kit->num_claimed = 0;
  kit->num_partitions = 0;
}
