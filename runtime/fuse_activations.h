/* Graph rewrites the interpreter makes when it builds a subgraph, before
 * any delegate sees it. */
#ifndef LITEGPU_RUNTIME_FUSE_ACTIVATIONS_H_
#define LITEGPU_RUNTIME_FUSE_ACTIVATIONS_H_

#include "runtime/interpreter.h"

/* Folds each float RELU / RELU6 / RELU_N1_TO_1 into the fused activation
 * of the CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD, SUB, MUL, DIV or
 * pooling node whose output it alone reads: the producer then writes the
 * activation's output and the activation leaves the execution plan (the
 * node itself stays, never prepared). Exact (see fuse_activations.c).
 * Runs on a freshly built subgraph, before its nodes' Init. kTfLiteError
 * only when memory runs out. */
TfLiteStatus lg_subgraph_fuse_activations(lg_subgraph* subgraph);

#endif /* LITEGPU_RUNTIME_FUSE_ACTIVATIONS_H_ */
