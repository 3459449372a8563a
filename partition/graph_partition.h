/* Cutting an execution plan into independent node subsets.
 *
 * Given the plan and the set of nodes a delegate claims, produces an ordered
 * list of subsets, each all-claimed (a partition) or all-unclaimed, such that
 * running the subsets in order respects every data dependency: no subset
 * needs a tensor that a later subset produces, so no cycle can arise between
 * partitions. This is TFLite's greedy "independent node subsets" scheme:
 * subsets are grown one at a time by sweeping the plan and adding every node
 * whose inputs are ready and whose kind matches the subset, until nothing
 * more fits; nodes that might have side effects keep their relative order.
 *
 * Each subset lists its input tensors (everything it reads that it does not
 * produce itself, constants and graph inputs included) and its output
 * tensors (what later subsets or the graph's outputs read), sorted and
 * without duplicates.
 */
#ifndef LITEGPU_PARTITION_GRAPH_PARTITION_H_
#define LITEGPU_PARTITION_GRAPH_PARTITION_H_

#include <stdbool.h>

#include "base/report.h"
#include "tensorflow/lite/c/common.h"

typedef enum lg_subset_type {
  LG_SUBSET_NON_PARTITION = 0, /* nodes the delegate did not claim */
  LG_SUBSET_PARTITION = 1,     /* claimed nodes: one delegate kernel */
} lg_subset_type;

typedef struct lg_node_subset {
  lg_subset_type type;
  TfLiteIntArray* nodes; /* node indices, in plan order */
  TfLiteIntArray* input_tensors;
  TfLiteIntArray* output_tensors;
} lg_node_subset;

/* What the partitioner reads of a graph. nodes[i] is node index i. */
typedef struct lg_graph_view {
  const TfLiteNode* const* nodes;
  int num_nodes;
  int num_tensors;
  const TfLiteIntArray* plan; /* node indices in execution order */
  const int* outputs;         /* graph outputs */
  int num_outputs;
} lg_graph_view;

/* Partitions `graph`'s plan by `claimed` (node indices). kTfLiteError, with a
 * message, when a claimed index is not in the plan, a tensor index is out of
 * range, or no order exists (a cycle). The caller frees the result with
 * lg_node_subsets_free. */
TfLiteStatus lg_partition_graph(const lg_graph_view* graph,
                                const TfLiteIntArray* claimed,
                                const lg_reporter* reporter,
                                lg_node_subset** subsets, int* num_subsets);

/* Frees what lg_partition_graph returned; NULL is a no-op. */
void lg_node_subsets_free(lg_node_subset* subsets, int num_subsets);

#endif /* LITEGPU_PARTITION_GRAPH_PARTITION_H_ */
