/* Greedy independent-node-subset partitioning (see graph_partition.h). */
#include "partition/graph_partition.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EPOCH_READY (-2)   /* graph input or constant: always available */
#define EPOCH_PENDING (-1) /* produced by a node not yet placed */

typedef struct int_list {
  int* data;
  int size;
  int capacity;
} int_list;

static bool list_push(int_list* l, int value) {
  if (l->size == l->capacity) {
    int capacity = l->capacity ? l->capacity * 2 : 8;
    int* data = realloc(l->data, sizeof(int) * (size_t)capacity);
    if (data == NULL) return false;
    l->data = data;
    l->capacity = capacity;
  }
  l->data[l->size++] = value;
  return true;
}

typedef struct subset_lists {
  int_list nodes, inputs, outputs;
  lg_subset_type type;
  bool typed;
} subset_lists;

typedef struct partitioner {
  const lg_graph_view* g;
  const lg_reporter* reporter;
  int8_t* kind;      /* per node: -1 not in plan, 0 unclaimed, 1 claimed */
  int* tensor_epoch; /* per tensor: EPOCH_READY, EPOCH_PENDING or subset */
  int* node_epoch;   /* per node: subset index or -1 */
  int* prev_effect;  /* per plan position: previous side-effect position */
  subset_lists* subsets;
  int num_subsets;
  int capacity;
} partitioner;

static bool valid_tensor(const partitioner* p, int t) {
  return t >= 0 && t < p->g->num_tensors;
}

/* Marks plan membership, claims and the tensors some node produces. */
static TfLiteStatus classify(partitioner* p, const TfLiteIntArray* claimed) {
  const lg_graph_view* g = p->g;
  for (int i = 0; i < g->num_nodes; ++i) p->kind[i] = -1;
  for (int i = 0; i < g->num_tensors; ++i) p->tensor_epoch[i] = EPOCH_READY;
  int last_effect = -1;
  for (int pos = 0; pos < g->plan->size; ++pos) {
    const int n = g->plan->data[pos];
    if (n < 0 || n >= g->num_nodes) {
      lg_report(p->reporter,
                "partition: plan entry %d is node %d, out of "
                "range [0, %d)",
                pos, n, g->num_nodes);
      return kTfLiteError;
    }
    p->kind[n] = 0;
    p->node_epoch[n] = -1;
    p->prev_effect[pos] = last_effect;
    if (g->nodes[n]->might_have_side_effect) last_effect = pos;
    const TfLiteIntArray* out = g->nodes[n]->outputs;
    for (int k = 0; out != NULL && k < out->size; ++k) {
      if (!valid_tensor(p, out->data[k])) {
        lg_report(p->reporter,
                  "partition: node %d output %d is tensor %d, "
                  "out of range",
                  n, k, out->data[k]);
        return kTfLiteError;
      }
      p->tensor_epoch[out->data[k]] = EPOCH_PENDING;
    }
  }
  for (int i = 0; claimed != NULL && i < claimed->size; ++i) {
    const int n = claimed->data[i];
    if (n < 0 || n >= g->num_nodes || p->kind[n] < 0) {
      lg_report(p->reporter,
                "partition: node %d is not in the execution "
                "plan",
                n);
      return kTfLiteError;
    }
    p->kind[n] = 1;
  }
  return kTfLiteOk;
}

/* True when every non-optional input of node n is available. */
static TfLiteStatus inputs_ready(const partitioner* p, int n, bool* ready) {
  const TfLiteIntArray* in = p->g->nodes[n]->inputs;
  *ready = true;
  for (int k = 0; in != NULL && k < in->size; ++k) {
    const int t = in->data[k];
    if (t == kTfLiteOptionalTensor) continue;
    if (!valid_tensor(p, t)) {
      lg_report(p->reporter,
                "partition: node %d input %d is tensor %d, out "
                "of range",
                n, k, t);
      return kTfLiteError;
    }
    if (p->tensor_epoch[t] == EPOCH_PENDING) *ready = false;
  }
  return kTfLiteOk;
}

static bool place_node(partitioner* p, int subset, int n) {
  subset_lists* s = &p->subsets[subset];
  p->node_epoch[n] = subset;
  if (!list_push(&s->nodes, n)) return false;
  const TfLiteIntArray* in = p->g->nodes[n]->inputs;
  for (int k = 0; in != NULL && k < in->size; ++k) {
    const int t = in->data[k];
    if (t == kTfLiteOptionalTensor || p->tensor_epoch[t] == subset) continue;
    if (!list_push(&s->inputs, t)) return false;
    const int producer = p->tensor_epoch[t];
    if (producer >= 0 && !list_push(&p->subsets[producer].outputs, t)) {
      return false;
    }
  }
  const TfLiteIntArray* out = p->g->nodes[n]->outputs;
  for (int k = 0; out != NULL && k < out->size; ++k) {
    p->tensor_epoch[out->data[k]] = subset;
  }
  return true;
}

/* Sweeps the plan until no node fits the subset; *added counts the nodes. */
static TfLiteStatus fill_subset(partitioner* p, int subset, int* added) {
  subset_lists* s = &p->subsets[subset];
  const TfLiteIntArray* plan = p->g->plan;
  *added = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (int pos = 0; pos < plan->size; ++pos) {
      const int n = plan->data[pos];
      if (p->node_epoch[n] != -1) continue;
      const int prev = p->prev_effect[pos];
      if (prev >= 0 && p->node_epoch[plan->data[prev]] == -1) continue;
      bool ready = false;
      TF_LITE_ENSURE_STATUS(inputs_ready(p, n, &ready));
      if (!ready) continue;
      const lg_subset_type type =
          p->kind[n] == 1 ? LG_SUBSET_PARTITION : LG_SUBSET_NON_PARTITION;
      if (!s->typed) {
        s->type = type;
        s->typed = true;
      } else if (s->type != type) {
        continue;
      }
      if (!place_node(p, subset, n)) return kTfLiteError;
      ++*added;
      changed = true;
    }
  }
  return kTfLiteOk;
}

static bool push_subset(partitioner* p) {
  if (p->num_subsets == p->capacity) {
    int capacity = p->capacity ? p->capacity * 2 : 4;
    subset_lists* s = realloc(p->subsets, sizeof(*s) * (size_t)capacity);
    if (s == NULL) return false;
    p->subsets = s;
    p->capacity = capacity;
  }
  memset(&p->subsets[p->num_subsets++], 0, sizeof(subset_lists));
  return true;
}

static int compare_ints(const void* a, const void* b) {
  int x = *(const int*)a, y = *(const int*)b;
  return (x > y) - (x < y);
}

/* A sorted, de-duplicated TfLiteIntArray copy of `l`. */
static TfLiteIntArray* to_sorted_array(int_list* l) {
  if (l->size > 1) qsort(l->data, (size_t)l->size, sizeof(int), compare_ints);
  int unique = 0;
  for (int i = 0; i < l->size; ++i) {
    if (i == 0 || l->data[i] != l->data[unique - 1]) {
      l->data[unique++] = l->data[i];
    }
  }
  TfLiteIntArray* a = TfLiteIntArrayCreate(unique);
  if (a != NULL && unique > 0) {
    memcpy(a->data, l->data, sizeof(int) * (size_t)unique);
  }
  return a;
}

static TfLiteIntArray* to_array(const int_list* l) {
  TfLiteIntArray* a = TfLiteIntArrayCreate(l->size);
  if (a != NULL && l->size > 0) {
    memcpy(a->data, l->data, sizeof(int) * (size_t)l->size);
  }
  return a;
}

/* Graph outputs leave the subset that produced them. */
static bool add_graph_outputs(partitioner* p) {
  for (int i = 0; i < p->g->num_outputs; ++i) {
    const int t = p->g->outputs[i];
    if (!valid_tensor(p, t) || p->tensor_epoch[t] < 0) continue;
    if (!list_push(&p->subsets[p->tensor_epoch[t]].outputs, t)) return false;
  }
  return true;
}

static TfLiteStatus export_subsets(partitioner* p, lg_node_subset** out,
                                   int* count) {
  lg_node_subset* result =
      calloc((size_t)(p->num_subsets ? p->num_subsets : 1), sizeof(*result));
  if (result == NULL) return kTfLiteError;
  for (int i = 0; i < p->num_subsets; ++i) {
    subset_lists* s = &p->subsets[i];
    result[i].type = s->type;
    result[i].nodes = to_array(&s->nodes);
    result[i].input_tensors = to_sorted_array(&s->inputs);
    result[i].output_tensors = to_sorted_array(&s->outputs);
    if (!result[i].nodes || !result[i].input_tensors ||
        !result[i].output_tensors) {
      lg_node_subsets_free(result, i + 1);
      return kTfLiteError;
    }
  }
  *out = result;
  *count = p->num_subsets;
  return kTfLiteOk;
}

static TfLiteStatus run(partitioner* p, const TfLiteIntArray* claimed,
                        lg_node_subset** subsets, int* num_subsets) {
  TF_LITE_ENSURE_STATUS(classify(p, claimed));
  for (;;) {
    if (!push_subset(p)) return kTfLiteError;
    int added = 0;
    TF_LITE_ENSURE_STATUS(fill_subset(p, p->num_subsets - 1, &added));
    if (added == 0) {
      p->num_subsets--; /* the empty last subset ends the loop */
      break;
    }
  }
  for (int pos = 0; pos < p->g->plan->size; ++pos) {
    if (p->node_epoch[p->g->plan->data[pos]] == -1) {
      lg_report(p->reporter,
                "partition: node %d cannot be scheduled (its "
                "inputs form a cycle)",
                p->g->plan->data[pos]);
      return kTfLiteError;
    }
  }
  if (!add_graph_outputs(p)) return kTfLiteError;
  return export_subsets(p, subsets, num_subsets);
}

TfLiteStatus lg_partition_graph(const lg_graph_view* graph,
                                const TfLiteIntArray* claimed,
                                const lg_reporter* reporter,
                                lg_node_subset** subsets, int* num_subsets) {
  *subsets = NULL;
  *num_subsets = 0;
  partitioner p = {graph, reporter, NULL, NULL, NULL, NULL, NULL, 0, 0};
  const size_t nodes = (size_t)(graph->num_nodes > 0 ? graph->num_nodes : 1);
  const size_t tensors =
      (size_t)(graph->num_tensors > 0 ? graph->num_tensors : 1);
  const size_t plan = (size_t)(graph->plan->size > 0 ? graph->plan->size : 1);
  p.kind = malloc(nodes);
  p.node_epoch = malloc(sizeof(int) * nodes);
  p.tensor_epoch = malloc(sizeof(int) * tensors);
  p.prev_effect = malloc(sizeof(int) * plan);
  TfLiteStatus status = kTfLiteError;
  if (p.kind && p.node_epoch && p.tensor_epoch && p.prev_effect) {
    status = run(&p, claimed, subsets, num_subsets);
  }
  for (int i = 0; i < p.num_subsets; ++i) {
    free(p.subsets[i].nodes.data);
    free(p.subsets[i].inputs.data);
    free(p.subsets[i].outputs.data);
  }
  free(p.subsets);
  free(p.kind);
  free(p.node_epoch);
  free(p.tensor_epoch);
  free(p.prev_effect);
  return status;
}

void lg_node_subsets_free(lg_node_subset* subsets, int num_subsets) {
  if (subsets == NULL) return;
  for (int i = 0; i < num_subsets; ++i) {
    TfLiteIntArrayFree(subsets[i].nodes);
    TfLiteIntArrayFree(subsets[i].input_tensors);
    TfLiteIntArrayFree(subsets[i].output_tensors);
  }
  free(subsets);
}
