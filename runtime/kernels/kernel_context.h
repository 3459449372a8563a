/* What a CPU kernel may use beyond TfLiteContext's own functions.
 *
 * Kernels see the runtime only through TfLiteContext (TFLite's contract)
 * and this header, never through the interpreter's private types: whatever
 * owns the context (the interpreter's subgraph, or the test kernel runner)
 * points context->impl_ at a struct whose first member is an
 * lg_kernel_env.
 *
 *   typedef struct my_owner {
 *     lg_kernel_env kernel_env; // first: impl_ converts to it
 *     ...
 *   } my_owner;
 *   owner->kernel_env.thread_pool = pool;
 *   context->impl_ = owner;
 *   ... in a kernel's Invoke:
 *   lg_thread_pool_run(lg_kernel_thread_pool(context), task, &job, n);
 *
 * Reporting goes through context->ReportError (lg_kernel_log in
 * kernel_util.h); scratch memory through the context's scratch-buffer
 * functions, as in TFLite.
 *
 * Thread safety: the environment is read-only while kernels run.
 */
#ifndef LITEGPU_RUNTIME_KERNELS_KERNEL_CONTEXT_H_
#define LITEGPU_RUNTIME_KERNELS_KERNEL_CONTEXT_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/thread_pool.h"
#include "tensorflow/lite/c/common.h"

typedef struct lg_kernel_env {
  /* The pool kernels may split work over; NULL: lg_thread_pool_default(). */
  lg_thread_pool* thread_pool;
  /* The interpreter's subgraph when the owner is one, else NULL. Only the
   * kernels that call other subgraphs or the interpreter's resources
   * (runtime/control_flow.c, runtime/resource_variables.c) read it, and
   * refuse to run where it is NULL (e.g. inside a delegate's partition);
   * the runtime's own kernel functions (lg_kernel_release_input,
   * lg_kernel_take_epilogue, ...) find their subgraph through it. */
  void* interpreter_subgraph;
  /* The padding the owner folded into a convolution node (a zero PAD in
   * front of it that left the plan, runtime/fold_pads.h): true with pads =
   * top, bottom, left, right. NULL, or false for a node: its params'
   * padding holds. Called with the owner (impl_) in Prepare. */
  bool (*folded_padding)(const void* owner, const TfLiteNode* node,
                         int pads[4]);
} lg_kernel_env;

/* An epilogue a kernel took over (opaque; runtime/epilogue.h). */
typedef struct lg_kernel_epilogue lg_kernel_epilogue;

/* The thread pool of the context's owner (never NULL: a context without an
 * owner, or an owner without a pool, gets lg_thread_pool_default(); a pool
 * of 1 runs tasks on the caller). */
lg_thread_pool* lg_kernel_thread_pool(const TfLiteContext* context);

/* lg_kernel_env.folded_padding of the context's owner; false when the
 * context has no owner or the owner folds nothing. */
bool lg_kernel_folded_padding(const TfLiteContext* context,
                              const TfLiteNode* node, int pads[4]);

/* Epilogues run inside a kernel's tasks (implemented in runtime/epilogue.c;
 * only the interpreter hands them over: elsewhere there is none to take).
 * The interpreter may complete a float node's output with the elementwise
 * chain after it (ADD of a residual, PRELU, LOGISTIC, HARD_SWISH:
 * runtime/epilogue.h), by default as one more pass after the node's Invoke.
 *
 * lg_kernel_offer_epilogue: `node`'s Prepare says its Invoke will take the
 * chain, if one is planned (memory planning then keeps the node's inputs
 * and temporaries apart from the chain's output).
 *
 * lg_kernel_take_epilogue: during Invoke, once the kernel is sure to compute
 * every output element: the chain, which the kernel must then run with
 * lg_kernel_epilogue_run on every block of output it finishes (the
 * interpreter skips its own pass); NULL: nothing to run.
 *
 * lg_kernel_epilogue_run: the chain on channels [c0, c1) of output pixels
 * [first, first + count) (a pixel: one position of the output's last
 * dimension), bit for bit what the absorbed nodes' kernels give. Tasks may
 * run it at once on disjoint ranges. */
void lg_kernel_offer_epilogue(TfLiteContext* context, TfLiteNode* node);
const lg_kernel_epilogue* lg_kernel_take_epilogue(TfLiteContext* context,
                                                  const TfLiteNode* node);
void lg_kernel_epilogue_run(const lg_kernel_epilogue* epilogue, int64_t first,
                            int64_t count, int c0, int c1);

/* A StableHLO region (the body of a scatter or a reduction) that a kernel
 * computes itself instead of running it: subgraph `index` of the model must
 * take two scalars of `type` and give one, and either be one operator whose
 * inputs are its two inputs (in either order) and whose output is its
 * output (*builtin_code is that operator's code), or, when `allow_empty`, no
 * operator with its output its second input (*builtin_code is -1: "take the
 * second argument"). Anything else, an index out of range or the kernel's own
 * subgraph is an error naming `op`, `role` and the problem. Needs the
 * interpreter's subgraph (runtime/control_flow.c); allocates nothing. */
TfLiteStatus lg_kernel_region_binary(TfLiteContext* context, const char* op,
                                     const char* role, int index,
                                     TfLiteType type, bool allow_empty,
                                     int32_t* builtin_code);

/* Memory a kernel's copies make redundant (implemented in
 * runtime/execute.c; only the interpreter acts on them: elsewhere, e.g. a
 * delegate's partition or the kernel test runner, they do nothing).
 *
 * lg_kernel_release_input: `node`'s Prepare copied what it needs of its
 * constant input `input_index` (a filter packed into the kernel's layout)
 * and the node's Invoke never reads the tensor, whose data may be gone
 * until the node's next Prepare. When every node of the plan that reads
 * the tensor released it, after the Prepare that released it last, the
 * interpreter gives the memory back: the pages of a model file mapping
 * (lg_model_release_pages; the bytes stay readable, faulted in again from
 * the file) or a folded constant (below). Indexes out of range or above 63
 * are ignored.
 *
 * lg_kernel_offer_folded: `node`'s Prepare computed all its outputs as
 * constants (kTfLitePersistentRo) into blocks it owns, from constant
 * inputs. When every reader of every output released it, the interpreter
 * calls drop(context, node), which must free the blocks and set the
 * outputs' data to NULL; the node then does not run until its next Prepare
 * (which computes them again: the interpreter does so before a delegate is
 * applied, so that the delegate can read them). */
void lg_kernel_release_input(TfLiteContext* context, TfLiteNode* node,
                             int input_index);
typedef void (*lg_kernel_drop_fn)(TfLiteContext* context, TfLiteNode* node);
void lg_kernel_offer_folded(TfLiteContext* context, TfLiteNode* node,
                            lg_kernel_drop_fn drop);

#endif /* LITEGPU_RUNTIME_KERNELS_KERNEL_CONTEXT_H_ */
