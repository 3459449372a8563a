/* The reference delegate's private copy of one partition: its own context,
 * tensors, node instances and memory, run with the original registrations.
 *
 * Built from the main context while the delegate's Prepare runs (node
 * lookups are only allowed then). Tensor indices are the main graph's, so
 * the partition's TfLiteDelegateParams apply unchanged; tensors the kernels
 * add come after them. Constant tensors share the main graph's data; every
 * other tensor has its own heap block, sized whenever it is resized.
 */
#ifndef LITEGPU_DELEGATES_REFERENCE_REF_GRAPH_H_
#define LITEGPU_DELEGATES_REFERENCE_REF_GRAPH_H_

#include <stdbool.h>
#include <stddef.h>

#include "tensorflow/lite/c/common.h"

typedef struct ref_node {
  TfLiteNode node;
  TfLiteRegistration registration;
  bool initialized;
} ref_node;

typedef struct ref_graph {
  TfLiteContext context; /* first: callbacks cast back to ref_graph */
  TfLiteContext* main;   /* the interpreter's context */
  void** heap;           /* per tensor: owned data, or NULL */
  size_t capacity;
  ref_node* nodes;
  int num_nodes;
  TfLiteIntArray* inputs;  /* partition inputs (main indices) */
  TfLiteIntArray* outputs; /* partition outputs */
} ref_graph;

/* Copies the partition's nodes and tensors from `main` and runs each node's
 * Init. NULL on failure (reported through main). */
ref_graph* ref_graph_create(TfLiteContext* main,
                            const TfLiteDelegateParams* params);

/* Pulls input shapes from main, prepares every node, and resizes the main
 * graph's partition outputs to what the nodes produce. */
TfLiteStatus ref_graph_prepare(ref_graph* graph);

/* Copies inputs in, runs the nodes, copies outputs out, and the variable
 * inputs back (the state a stateful kernel rewrote in place). */
TfLiteStatus ref_graph_invoke(ref_graph* graph);

/* Frees every node (Free after each Init) and buffer; NULL is a no-op. */
void ref_graph_destroy(ref_graph* graph);

#endif /* LITEGPU_DELEGATES_REFERENCE_REF_GRAPH_H_ */
