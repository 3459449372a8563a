/* Graph rewrites the interpreter makes when it builds a subgraph, before
 * any delegate sees it. */
#ifndef LITEGPU_RUNTIME_FUSE_ACTIVATIONS_H_
#define LITEGPU_RUNTIME_FUSE_ACTIVATIONS_H_

#include <stdbool.h>

#include "runtime/interpreter.h"

/* Folds each float RELU / RELU6 / RELU_N1_TO_1 into the fused activation
 * of the CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD, SUB, MUL, DIV or
 * pooling node whose output it alone reads: the producer then writes the
 * activation's output and the activation leaves the execution plan (the
 * node itself stays, never prepared). Exact (see fuse_activations.c).
 * Runs on a freshly built subgraph, before its nodes' Init. kTfLiteError
 * only when memory runs out. */
TfLiteStatus lg_subgraph_fuse_activations(lg_subgraph* subgraph);

/* Helpers of the graph passes (this one, runtime/fold_pads.h and
 * runtime/epilogue.h). */

/* Whether the node runs litegpu's own kernel for its op and version (not a
 * registration the user added, not a placeholder, not a delegate's). */
bool lg_node_runs_builtin_kernel(const lg_node* node);

/* A calloc'd array: element t counts the plan's nodes reading tensor t (as
 * an input or an intermediate), plus one when t is a subgraph output; NULL
 * when memory runs out. The caller frees it. */
int* lg_subgraph_count_reads(const lg_subgraph* subgraph);

/* producer[t] (an array of tensors_size ints): the plan position of the
 * node writing tensor t, or -1. */
void lg_subgraph_index_producers(const lg_subgraph* subgraph, int* producer);

#endif /* LITEGPU_RUNTIME_FUSE_ACTIVATIONS_H_ */
