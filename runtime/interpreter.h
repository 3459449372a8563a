/* The interpreter's internal structures, shared by the C API, the opaque
 * operator API, the arena planner and the kernels.
 *
 * One lg_subgraph per model subgraph, all built at creation; subgraph 0 is
 * the one the interpreter's inputs and outputs belong to, the others run
 * through control-flow nodes (IF, WHILE, CALL_ONCE) or signatures. Its
 * TfLiteContext's impl_ points back at the lg_subgraph; its nodes are
 * lg_node structs whose first member is the TfLiteNode handed to kernels, so
 * a kernel's TfLiteNode* converts back with lg_node_from_tflite.
 *
 * State machine of a subgraph:
 *   LG_STATE_UNPREPARED --AllocateTensors--> LG_STATE_INVOKABLE
 *   LG_STATE_INVOKABLE --ResizeInputTensor--> LG_STATE_UNPREPARED
 * Invoke in LG_STATE_UNPREPARED is an error ("Invoke called on model that is
 * not ready.").
 */
#ifndef LITEGPU_RUNTIME_INTERPRETER_H_
#define LITEGPU_RUNTIME_INTERPRETER_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/report.h"
#include "base/tensor_util.h"
#include "base/thread_pool.h"
#include "runtime/arena.h"
#include "runtime/epilogue.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/model/model.h"
#include "runtime/op_resolver.h"
#include "runtime/operator.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/common.h"

/* A loaded model, shared by the interpreters created from it. */
struct TfLiteModel {
  lg_model* model;
  atomic_int refcount;
};

/* The delegates added to options, in order; the caller owns each. */
typedef struct lg_delegate_list {
  TfLiteDelegate** items;
  int count;
  int capacity;
} lg_delegate_list;

struct TfLiteInterpreterOptions {
  int32_t num_threads;
  lg_reporter reporter;
  lg_op_resolver resolver; /* registrations added through the options */
  lg_delegate_list delegates;
  bool enable_delegate_fallback;
  bool enable_cancellation;
};

typedef enum lg_state {
  LG_STATE_UNPREPARED = 0,
  LG_STATE_INVOKABLE = 1,
} lg_state;

typedef struct lg_node {
  TfLiteNode node;                 /* first: kernels see &lg_node.node */
  TfLiteRegistration registration; /* copy of the resolved registration */
  int op_index;                    /* index of the operator in the model */
  bool initialized;                /* init ran; free is owed */
  uint64_t profile_ns;             /* time in Invoke while profiling */
  uint64_t profile_count;
  /* A delegate kernel node: builtin_data is its TfLiteDelegateParams (an
   * opaque delegate's: TfLiteOpaqueDelegateParams), one block with its
   * arrays, owned by the node. */
  bool is_delegate_kernel;
  /* A custom op no registration resolved: a placeholder that a delegate
   * may claim; preparing it outside delegation fails in TFLite's words. */
  bool unresolved;
  /* Epilogue fusion (runtime/epilogue.h), decided at each AllocateTensors:
   * a producer runs `epilogue` right after its Invoke when active; a node
   * it absorbed is skipped at Invoke; `epilogue_at` is its producer's plan
   * position (memory planning counts it as running right after it). */
  lg_epilogue epilogue;
  bool in_epilogue;
  int epilogue_at;
  /* Its last Prepare offered to run an epilogue in its kernel's tasks
   * (lg_kernel_offer_epilogue). */
  bool offers_epilogue;
  /* Bit i: input i is a constant this node's last Prepare copied and reads
   * no more (lg_kernel_release_input); cleared before each Prepare. */
  uint64_t released_inputs;
  /* Its outputs are constants its last Prepare folded into blocks it owns,
   * and this frees them (lg_kernel_offer_folded); NULL otherwise. */
  lg_kernel_drop_fn drop_folded;
  /* drop_folded ran: the outputs have no data and the node does not run
   * until its next Prepare. */
  bool folded_dropped;
} lg_node;

/* An operator the interpreter owns (see TfLiteInterpreter.operators). */
typedef struct lg_owned_operator {
  TfLiteOperator* op;
  bool derived; /* made by the runtime to describe a node */
} lg_owned_operator;

/* Memory the interpreter owns for one tensor beyond the arena. */
typedef struct lg_tensor_info {
  void* heap;       /* dynamic, persistent or late-prepared arena tensor */
  size_t heap_size; /* bytes allocated at heap */
} lg_tensor_info;

typedef struct lg_subgraph {
  /* First: context.impl_ == this, and kernels read it as their environment
   * (runtime/kernels/kernel_context.h). */
  lg_kernel_env kernel_env;
  TfLiteContext context;
  struct TfLiteInterpreter* interpreter;
  const lg_model_subgraph* model_subgraph;
  int index;

  /* Tensors: context.tensors / context.tensors_size; grows by AddTensors. */
  size_t tensors_capacity;
  lg_tensor_info* tensor_info; /* parallel to context.tensors */
  int* inputs;
  int num_inputs;
  int* outputs;
  int num_outputs;
  int* variables; /* the is_variable tensors, in index order */
  int num_variables;

  lg_node* nodes;
  int num_nodes;
  int nodes_capacity;
  TfLiteIntArray* execution_plan;

  /* Delegation. Nodes [0, num_model_nodes) come from the model; delegate
   * kernel nodes follow. original_plan is the plan before the first
   * delegate (NULL while none is applied). */
  int num_model_nodes;
  TfLiteIntArray* original_plan;
  bool in_delegate_prepare; /* the delegate-only functions are allowed */
  bool delegate_replace_failed;
  TfLiteDelegateParams* preview_params; /* from PreviewDelegatePartitioning */
  int num_preview_params;
  bool immutable; /* a static-shape delegate is applied: no resizing */
  /* A delegate with kTfLiteDelegateFlagsRequirePropagatedShapes is applied:
   * AllocateTensors prepares original_plan's nodes before the plan's, so
   * the delegate kernels' Prepare sees the resized shapes. */
  bool propagate_shapes;
  /* AcquireSubgraphContext calls on this subgraph not yet released: the
   * delegate-only functions that read the graph are allowed meanwhile. */
  int acquired;
  /* While a delegate is applied, unresolved custom ops are passed over
   * (their outputs keep the model's shapes) instead of failing. */
  bool tolerate_unresolved;

  /* PAD folding (runtime/fold_pads.h): the candidate PAD nodes, and the
   * plan before AllocateTensors folded any away (NULL while none is). */
  struct lg_pad_fold* pad_folds;
  int num_pad_folds;
  TfLiteIntArray* unfolded_plan;

  lg_state state;
  bool preparing; /* inside AllocateTensors: a control-flow cycle fails */
  /* Nodes [0, first_unprepared) are prepared with static shapes; a node whose
   * outputs became dynamic stops static preparation, and the rest are
   * prepared during Invoke (their arena tensors then live on the heap). */
  int first_unprepared;
  lg_arena arena;
  bool invoking;  /* inside Invoke: arena tensors may not change size */
  bool profiling; /* time each node (litegpu/profiling.h) */
  /* Epilogues kernels take over (runtime/epilogue.h): the node being
   * invoked when it has an in_kernel chain (else NULL), whether its kernel
   * took the chain, and the chain's tensors handed to the kernel. */
  struct lg_node* epilogue_node;
  bool epilogue_taken;
  struct lg_kernel_epilogue epilogue_tensors;
  TfLiteExternalContext* external_contexts[kTfLiteMaxExternalContexts];
} lg_subgraph;

/* A resource variable (ASSIGN_VARIABLE, READ_VARIABLE): a value that lives
 * as long as the interpreter, shared by every subgraph. */
typedef struct lg_resource_variable {
  int32_t id;
  TfLiteType type;
  TfLiteIntArray* dims;
  void* data;
  size_t bytes;
} lg_resource_variable;

/* The interpreter's resources: the ids VAR_HANDLE hands out, one per
 * (container, shared_name) pair in order of first use, and the variables
 * assigned so far. */
typedef struct lg_resources {
  const char** containers; /* id -> container; strings point into the model */
  const char** shared_names;
  int32_t num_ids;
  int32_t ids_capacity;
  lg_resource_variable* variables;
  int32_t num_variables;
  int32_t variables_capacity;
  struct lg_hashtable** tables; /* HASHTABLE resources (runtime/hashtable.c) */
  int32_t num_tables;
  int32_t tables_capacity;
} lg_resources;

struct TfLiteInterpreter {
  TfLiteModel* model; /* a reference */
  lg_reporter reporter;
  lg_delegate_list delegates; /* copy of the options' list */
  bool enable_delegate_fallback;
  lg_op_resolver resolver; /* copy of the options' registrations */
  int32_t num_threads;
  lg_thread_pool* thread_pool;
  lg_subgraph* subgraphs;
  int num_subgraphs;
  lg_resources resources;
  /* Operators the interpreter owns, deleted after every subgraph (whose
   * delegate kernels call them) is released: the delegate kernels'
   * operators that opaque delegates handed over, and the ones made for
   * TfLiteOpaqueContextGetNodeAndRegistration of nodes without one
   * (`derived`, one per builtin code, custom name and version). TFLite
   * keeps them per subgraph; one list lets a delegate hand the same
   * operator to several subgraphs without it being deleted twice. */
  lg_owned_operator* operators;
  int num_operators;
  int operators_capacity;
  /* TfLiteInterpreterCancel sets the flag when cancellation is enabled; the
   * running Invoke stops before its next node and clears it. */
  bool cancellation_enabled;
  atomic_bool cancel_requested;
  /* TfLiteSetAllowBufferHandleOutput: the main graph's outputs that a
   * delegate keeps in its buffer handles stay there after Invoke (read
   * them with TfLiteInterpreterEnsureTensorDataIsReadable). */
  bool allow_buffer_handle_output;
  /* Tasks of async signature runners scheduled and not yet done
   * (runtime/async_signature_runner.c): while any is, the entry points
   * that run or reallocate a graph refuse (lg_interpreter_async_idle). */
  atomic_int async_in_flight;
  /* Held by an async runner's worker while it runs a task: the runners of
   * one interpreter share its tensors, thread pool and resources, so their
   * tasks run one at a time. */
  pthread_mutex_t async_execution;
};

static inline lg_node* lg_node_from_tflite(TfLiteNode* node) {
  return (lg_node*)node; /* TfLiteNode is lg_node's first member */
}

static inline lg_subgraph* lg_subgraph_from_context(
    const TfLiteContext* context) {
  return (lg_subgraph*)context->impl_;
}

/* True when no async task of the interpreter is in flight; otherwise
 * reports, naming `fn`, and returns false. */
bool lg_interpreter_async_idle(struct TfLiteInterpreter* interpreter,
                               const char* fn);

/* Reports through the interpreter's reporter. */
void lg_context_report(TfLiteContext* context, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* LITEGPU_RUNTIME_INTERPRETER_H_ */
