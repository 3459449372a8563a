/* Applying delegates to a subgraph, with TFLite's semantics.
 *
 * lg_subgraph_apply_delegate runs the delegate's Prepare with the
 * delegate-only context functions enabled (GetExecutionPlan,
 * GetNodeAndRegistration, ReplaceNodeSubsetsWithDelegateKernels,
 * PreviewDelegatePartitioning); each Replace partitions the plan
 * (graph_partition.h) and puts one delegate kernel node in place of each
 * claimed subset. Then the graph is re-allocated, which prepares the delegate
 * kernels. If Prepare, a Replace or that allocation fails, every delegate is
 * removed (the original plan restored), the runtime reports
 * "Restored original execution plan after delegate application failure." and
 * the call returns kTfLiteDelegateError; the graph then runs on the CPU.
 *
 * Opaque delegates (TfLiteOpaqueDelegateCreate) take the same path: their
 * builder's Prepare, flags and buffer-handle callbacks stand in for the
 * TfLiteDelegate ones, their kernels get TfLiteOpaqueDelegateParams, and
 * the TfLiteOperator they hand to Replace becomes the interpreter's.
 */
#ifndef LITEGPU_RUNTIME_DELEGATE_H_
#define LITEGPU_RUNTIME_DELEGATE_H_

#include "runtime/interpreter.h"

/* kTfLiteDelegateError (graph restored) or kTfLiteApplicationError (a
 * static-shape delegate on a graph with dynamic tensors: nothing applied). */
TfLiteStatus lg_subgraph_apply_delegate(lg_subgraph* subgraph,
                                        TfLiteDelegate* delegate);

/* Removes every delegate kernel node, frees buffer handles and restores the
 * original plan; the graph must be allocated again. No-op without
 * delegates. */
void lg_subgraph_remove_delegates(lg_subgraph* subgraph);

/* True when delegate kernels are in the plan. */
bool lg_subgraph_has_delegates(const lg_subgraph* subgraph);

/* Makes a delegated tensor's CPU data current: when it is stale and owned by
 * a delegate other than `reader` (NULL: the CPU), copies it back with the
 * delegate's CopyFromBufferHandle. */
TfLiteStatus lg_subgraph_ensure_readable(lg_subgraph* subgraph, int tensor,
                                         const TfLiteDelegate* reader);

/* TfLiteInterpreterSetBufferHandle (TFLite's rule): refuses a NULL
 * delegate and a tensor holding a handle of another delegate (reported);
 * frees a different handle the tensor held, then sets the handle and its
 * owner. */
TfLiteStatus lg_subgraph_set_buffer_handle(lg_subgraph* subgraph, int tensor,
                                           TfLiteBufferHandle handle,
                                           TfLiteDelegate* delegate);

/* True for a delegate made with TfLiteOpaqueDelegateCreate (or filled the
 * same way): opaque_delegate_builder set and Prepare NULL, TFLite's test. Its
 * builder's callbacks and flags then stand in for the TfLiteDelegate ones. */
bool lg_delegate_is_opaque(const TfLiteDelegate* delegate);

/* The TfLiteOperator that describes node `node_index` for the opaque API:
 * the node's own operator when it was resolved to one, else an operator
 * the interpreter owns with the node's code, custom name and version (one
 * per such triple). NULL (reported) when memory runs out. */
TfLiteOperator* lg_subgraph_node_operator(lg_subgraph* subgraph,
                                          int node_index);

/* Deletes the operators the interpreter owns; after every subgraph is
 * released. */
void lg_interpreter_free_operators(struct TfLiteInterpreter* interpreter);

/* AcquireSubgraphContext: the context of the interpreter's subgraph
 * `index`, whose read-only delegate functions work until the matching
 * lg_subgraph_release_context. kTfLiteError (reported) out of range. */
TfLiteStatus lg_subgraph_acquire_context(lg_subgraph* subgraph, int index,
                                         TfLiteContext** acquired);
TfLiteStatus lg_subgraph_release_context(lg_subgraph* subgraph, int index);

/* Installs the delegate-only context functions (they report "The function is
 * forbidden if not calling in delegate." outside a delegate's Prepare). */
void lg_delegate_install_context(TfLiteContext* context);

#endif /* LITEGPU_RUNTIME_DELEGATE_H_ */
