/* Building, planning and running one subgraph (see interpreter.h for the
 * structures and the state machine). */
#ifndef LITEGPU_RUNTIME_SUBGRAPH_H_
#define LITEGPU_RUNTIME_SUBGRAPH_H_

#include "runtime/interpreter.h"

/* Creates the tensors and nodes of model subgraph `index`, resolves every
 * operator through interpreter->resolver and runs each node's Init. On
 * failure reports why (unresolved ops in TFLite's words) and returns an
 * error; lg_subgraph_release must still be called. Unresolved operators give
 * kTfLiteUnresolvedOps. */
TfLiteStatus lg_subgraph_build(lg_subgraph* subgraph,
                               struct TfLiteInterpreter* interpreter,
                               int index);

/* Frees every node (Free paired with each Init), tensor and buffer. */
void lg_subgraph_release(lg_subgraph* subgraph);

/* Prepares the nodes and plans memory (a no-op when already invokable). */
TfLiteStatus lg_subgraph_allocate_tensors(lg_subgraph* subgraph);

/* Prepares again the plan's nodes whose folded constant outputs were
 * dropped (kernel_context.h), so that those tensors have data again: before
 * a delegate reads the graph. */
TfLiteStatus lg_subgraph_restore_folded(lg_subgraph* subgraph);

TfLiteStatus lg_subgraph_invoke(lg_subgraph* subgraph);

/* Sets the dims of input `input_index` (an index into the subgraph's
 * inputs); takes no ownership. */
TfLiteStatus lg_subgraph_resize_input(lg_subgraph* subgraph, int input_index,
                                      const int* dims, int num_dims);

/* As lg_subgraph_resize_input, but only dimensions that are -1 in the
 * tensor's dims_signature may change (TFLite's ResizeInputTensorStrict). */
TfLiteStatus lg_subgraph_resize_input_strict(lg_subgraph* subgraph,
                                             int input_index, const int* dims,
                                             int num_dims);

/* Sets a tensor's dims and byte size (reallocating a dynamic tensor); takes
 * ownership of new_size, also on failure. Backs context->ResizeTensor. */
TfLiteStatus lg_subgraph_set_dims(lg_subgraph* subgraph, TfLiteTensor* tensor,
                                  TfLiteIntArray* new_size);

/* The interpreter subgraph a kernel of op `op` runs in, or NULL (reported)
 * when its context belongs to something else (a delegate's private
 * graph). For kernels that call other subgraphs or the interpreter's
 * resources. */
lg_subgraph* lg_subgraph_of_kernel(TfLiteContext* context, const char* op);

/* The op's name for messages: the schema name of a builtin or the custom
 * name. */
const char* lg_node_op_name(const lg_node* node);

/* Whether the execution plan still holds an unresolved custom op (a
 * placeholder no delegate claimed). */
bool lg_subgraph_has_unresolved(const lg_subgraph* s);

/* The subgraph whose node's Prepare or Invoke runs on this thread (NULL
 * outside them): what TfLiteOpaqueTensorWriteStrings writes through. The
 * executor sets it around each kernel call and restores the previous one
 * after (nested subgraphs of control flow included); set returns the
 * previous value. */
lg_subgraph* lg_subgraph_running(void);
lg_subgraph* lg_subgraph_set_running(lg_subgraph* subgraph);

#endif /* LITEGPU_RUNTIME_SUBGRAPH_H_ */
