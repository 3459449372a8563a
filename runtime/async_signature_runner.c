/* TFLite's asynchronous signature runner and execution tasks
 * (tensorflow/lite/core/async/c/async_signature_runner.h, task.h) over the
 * interpreter's signatures.
 *
 * When the signature's subgraph is one delegate node whose registration
 * has an async kernel (async_kernel.h; the GPU delegate's), InvokeAsync
 * points the signature's tensors at the task's buffers and calls its eval
 * on the caller's thread, which returns once the work is submitted (having
 * waited for, or queued a wait for, the inputs' sync objects and filled the
 * outputs'), then gives the tensors their own data back: the kernel keeps
 * where they pointed. Wait calls its wait for the task. Several tasks may
 * be evaluated and not yet waited for; whether they share the device or
 * run one after the other is the kernel's business. The kernel's
 * synchronization types are the signature's (kTfLiteSyncTypeNoSyncObj
 * alone otherwise); SetAttributes records each tensor's.
 *
 * Otherwise every runner executes its tasks on one worker thread of its
 * own, started by the first InvokeAsync, in the order they were scheduled.
 * A task's execution copies its input buffers into the signature's input
 * tensors, runs the subgraph's synchronous Invoke (delegate kernels
 * included) and copies the outputs into its output buffers. Buffers are
 * host memory the application registered.
 *
 * Locking: the interpreter's async_execution mutex makes the workers of
 * all its runners run one task at a time. The runner's mutex guards the buffer
 * table, the queue, the task list and every task's state and bindings. The
 * worker drops it while it copies and invokes; the buffers it uses then cannot
 * be unregistered (their in_flight count is held from InvokeAsync to the end of
 * the execution). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "litegpu/async.h"
#include "runtime/async_kernel_internal.h"
#include "runtime/interpreter.h"
#include "runtime/operator.h"
#include "runtime/subgraph.h"
#include "tensorflow/lite/core/async/c/async_signature_runner.h"
#include "tensorflow/lite/core/async/c/task.h"
#include "tensorflow/lite/core/async/interop/c/constants.h"

/* A registered buffer or slice. */
typedef struct async_buffer {
  TfLiteBufferHandle handle;
  uint8_t* bytes; /* the buffer's pointer plus its offset */
  size_t size;
  TfLiteBufferHandle pool; /* a slice's buffer; kTfLiteNullBufferHandle */
  int num_slices;          /* slices of this buffer still registered */
  int in_flight;           /* bindings of tasks in flight */
  bool host;               /* host memory; else an async kernel's type */
} async_buffer;

typedef enum task_state {
  TASK_NEVER_RUN = 0,
  TASK_IN_FLIGHT = 1, /* scheduled or running */
  TASK_DONE = 2,
} task_state;

struct TfLiteExecutionTask {
  TfLiteAsyncSignatureRunner* runner;
  /* Per signature tensor: inputs first, then outputs. */
  TfLiteBufferHandle* handles;
  TfLiteSynchronization** syncs;
  /* Resolved by InvokeAsync for the worker. */
  uint8_t** bound;
  task_state state;
  bool evaluated; /* by the async kernel; its wait not yet called */
  atomic_int status;
  TfLiteExecutionTask* next_queued;
};

struct TfLiteAsyncSignatureRunner {
  TfLiteInterpreter* interpreter;
  const lg_model_signature* signature;
  lg_model_signature primary; /* the signature_key NULL runner's */
  lg_subgraph* subgraph;
  int* input_indices; /* subgraph tensor indices, in signature order */
  int* output_indices;
  /* Per task slot: the synchronization type SetAttributes chose (one of the
   * supported types' strings; kTfLiteSyncTypeNoSyncObj by default), and,
   * during the async kernel's eval, the tensor's own data pointer (the
   * task's buffer stands in for it). */
  const char** sync_types;
  void** tensor_data;
  bool prepared; /* PrepareBackends since the last SetAttributes */

  pthread_mutex_t mutex;
  pthread_cond_t work_ready; /* the worker waits for the queue */
  pthread_cond_t task_done;  /* Wait waits for its task */
  pthread_t worker;
  bool worker_started;
  bool stopping;
  TfLiteExecutionTask* queue_head;
  TfLiteExecutionTask* queue_tail;

  async_buffer* buffers;
  int num_buffers, buffers_capacity;
  TfLiteBufferHandle next_handle;

  TfLiteExecutionTask** tasks; /* created and not finished */
  int num_tasks, tasks_capacity;

  /* The subgraph's one delegate node and its async kernel (found by
   * PrepareBackends), or NULL: the worker runs the tasks. */
  TfLiteAsyncKernel* kernel;
  TfLiteNode* kernel_node;
};

static const char* const kBufferTypes[] = {LITEGPU_BUFFER_TYPE_HOST_MEMORY};
static const char* const kSyncTypes[] = {kTfLiteSyncTypeNoSyncObj};

static const lg_reporter* reporter_of(const TfLiteAsyncSignatureRunner* r) {
  return &r->interpreter->reporter;
}

static int num_io(const TfLiteAsyncSignatureRunner* r) {
  return r->signature->num_inputs + r->signature->num_outputs;
}

/* Grows *items (each `size` bytes) to hold one more; false without memory. */
static bool reserve_one(void** items, int count, int* capacity, size_t size) {
  if (count < *capacity) return true;
  const int grown = *capacity ? 2 * *capacity : 4;
  void* p = realloc(*items, (size_t)grown * size);
  if (p == NULL) return false;
  *items = p;
  *capacity = grown;
  return true;
}

/* ---- Creation and names ---------------------------------------------------
 */

static int* tensor_indices(const lg_model_tensor_map* map, int32_t count) {
  int* out = malloc(sizeof(int) * (size_t)(count > 0 ? count : 1));
  for (int32_t i = 0; out != NULL && i < count; ++i) {
    out[i] = (int)map[i].tensor_index;
  }
  return out;
}

static void runner_free(TfLiteAsyncSignatureRunner* r) {
  free(r->primary.inputs);
  free(r->primary.outputs);
  free(r->input_indices);
  free(r->output_indices);
  free(r->sync_types);
  free(r->tensor_data);
  free(r->buffers);
  free(r->tasks);
  free(r);
}

/* A map naming each of `count` tensors by its own name ("" when it has
 * none); NULL without memory. */
static lg_model_tensor_map* map_by_tensor_names(const lg_subgraph* s,
                                                const int* tensors, int count) {
  lg_model_tensor_map* map =
      malloc(sizeof(*map) * (size_t)(count > 0 ? count : 1));
  for (int i = 0; map != NULL && i < count; ++i) {
    const char* name = s->context.tensors[tensors[i]].name;
    map[i].name = name ? name : "";
    map[i].tensor_index = (uint32_t)tensors[i];
  }
  return map;
}

/* The signature-less runner's view of subgraph 0: its inputs and outputs,
 * named by their tensors' names. */
static bool make_primary(TfLiteAsyncSignatureRunner* r) {
  const lg_subgraph* s = &r->interpreter->subgraphs[0];
  lg_model_signature* sig = &r->primary;
  sig->key = "(primary subgraph)";
  sig->subgraph_index = 0;
  sig->num_inputs = s->num_inputs;
  sig->num_outputs = s->num_outputs;
  sig->inputs = map_by_tensor_names(s, s->inputs, s->num_inputs);
  sig->outputs = map_by_tensor_names(s, s->outputs, s->num_outputs);
  return sig->inputs != NULL && sig->outputs != NULL;
}

TfLiteAsyncSignatureRunner* TfLiteInterpreterGetAsyncSignatureRunner(
    const TfLiteInterpreter* interpreter, const char* signature_key) {
  if (interpreter == NULL) return NULL;
  const lg_model* m = interpreter->model->model;
  const lg_model_signature* sig = NULL;
  for (int32_t i = 0; signature_key != NULL && i < m->num_signatures; ++i) {
    if (strcmp(m->signatures[i].key, signature_key) == 0) {
      sig = &m->signatures[i];
    }
  }
  if (sig == NULL && signature_key != NULL) {
    lg_report(&interpreter->reporter,
              "TfLiteInterpreterGetAsyncSignatureRunner: the model has no "
              "signature '%s'",
              signature_key);
    return NULL;
  }
  TfLiteAsyncSignatureRunner* r = calloc(1, sizeof(*r));
  if (r == NULL) return NULL;
  r->interpreter = (TfLiteInterpreter*)interpreter;
  if (sig == NULL) {
    if (!make_primary(r)) {
      runner_free(r);
      return NULL;
    }
    sig = &r->primary;
  }
  r->signature = sig;
  r->subgraph = &interpreter->subgraphs[sig->subgraph_index];
  r->input_indices = tensor_indices(sig->inputs, sig->num_inputs);
  r->output_indices = tensor_indices(sig->outputs, sig->num_outputs);
  const size_t slots = (size_t)(num_io(r) > 0 ? num_io(r) : 1);
  r->sync_types = malloc(slots * sizeof(*r->sync_types));
  r->tensor_data = calloc(slots, sizeof(*r->tensor_data));
  if (r->input_indices == NULL || r->output_indices == NULL ||
      r->sync_types == NULL || r->tensor_data == NULL) {
    runner_free(r);
    return NULL;
  }
  for (size_t i = 0; i < slots; ++i)
    r->sync_types[i] = kTfLiteSyncTypeNoSyncObj;
  if (pthread_mutex_init(&r->mutex, NULL) != 0) {
    runner_free(r);
    return NULL;
  }
  if (pthread_cond_init(&r->work_ready, NULL) != 0) {
    pthread_mutex_destroy(&r->mutex);
    runner_free(r);
    return NULL;
  }
  if (pthread_cond_init(&r->task_done, NULL) != 0) {
    pthread_cond_destroy(&r->work_ready);
    pthread_mutex_destroy(&r->mutex);
    runner_free(r);
    return NULL;
  }
  return r;
}

size_t TfLiteAsyncSignatureRunnerGetInputCount(
    const TfLiteAsyncSignatureRunner* async_signature_runner) {
  return async_signature_runner
             ? (size_t)async_signature_runner->signature->num_inputs
             : 0;
}

size_t TfLiteAsyncSignatureRunnerGetOutputCount(
    const TfLiteAsyncSignatureRunner* async_signature_runner) {
  return async_signature_runner
             ? (size_t)async_signature_runner->signature->num_outputs
             : 0;
}

static const char* io_name(const TfLiteAsyncSignatureRunner* r,
                           TfLiteIoType io_type, int32_t index,
                           const char* fn) {
  if (r == NULL) return NULL;
  const bool input = io_type == kTfLiteIoTypeInput;
  const int32_t count =
      input ? r->signature->num_inputs : r->signature->num_outputs;
  if (index < 0 || index >= count) {
    lg_report(reporter_of(r), "%s: index %d out of range [0, %d)", fn,
              (int)index, (int)count);
    return NULL;
  }
  return (input ? r->signature->inputs : r->signature->outputs)[index].name;
}

const char* TfLiteAsyncSignatureRunnerGetInputName(
    const TfLiteAsyncSignatureRunner* async_signature_runner,
    int32_t input_index) {
  return io_name(async_signature_runner, kTfLiteIoTypeInput, input_index,
                 "TfLiteAsyncSignatureRunnerGetInputName");
}

const char* TfLiteAsyncSignatureRunnerGetOutputName(
    const TfLiteAsyncSignatureRunner* async_signature_runner,
    int32_t output_index) {
  return io_name(async_signature_runner, kTfLiteIoTypeOutput, output_index,
                 "TfLiteAsyncSignatureRunnerGetOutputName");
}

const int* TfLiteAsyncSignatureRunnerInputTensorIndices(
    const TfLiteAsyncSignatureRunner* async_signature_runner) {
  return async_signature_runner ? async_signature_runner->input_indices : NULL;
}

const int* TfLiteAsyncSignatureRunnerOutputTensorIndices(
    const TfLiteAsyncSignatureRunner* async_signature_runner) {
  return async_signature_runner ? async_signature_runner->output_indices : NULL;
}

/* The task slot (0.. inputs, then outputs) of the tensor `name`, or -1,
 * reported with `fn`. */
static int slot_by_name(const TfLiteAsyncSignatureRunner* r, int32_t io_type,
                        const char* name, const char* fn) {
  const lg_model_signature* sig = r->signature;
  if (io_type != kTfLiteIoTypeInput && io_type != kTfLiteIoTypeOutput) {
    lg_report(reporter_of(r),
              "%s: io_type %d is neither kTfLiteIoTypeInput nor "
              "kTfLiteIoTypeOutput",
              fn, (int)io_type);
    return -1;
  }
  const bool input = io_type == kTfLiteIoTypeInput;
  const lg_model_tensor_map* map = input ? sig->inputs : sig->outputs;
  const int32_t count = input ? sig->num_inputs : sig->num_outputs;
  for (int32_t i = 0; name != NULL && i < count; ++i) {
    if (strcmp(map[i].name, name) == 0) {
      return input ? (int)i : (int)(sig->num_inputs + i);
    }
  }
  lg_report(reporter_of(r), "%s: signature '%s' has no %s named '%s'", fn,
            sig->key, input ? "input" : "output", name ? name : "(null)");
  return -1;
}

/* The task slot of subgraph tensor `tensor_index`, or -1 (reported). */
static int slot_by_index(const TfLiteAsyncSignatureRunner* r, int tensor_index,
                         const char* fn) {
  for (int i = 0; i < r->signature->num_inputs; ++i) {
    if (r->input_indices[i] == tensor_index) return i;
  }
  for (int i = 0; i < r->signature->num_outputs; ++i) {
    if (r->output_indices[i] == tensor_index) {
      return r->signature->num_inputs + i;
    }
  }
  lg_report(reporter_of(r),
            "%s: tensor %d is neither an input nor an output of signature "
            "'%s'",
            fn, tensor_index, r->signature->key);
  return -1;
}

static int slot_tensor_index(const TfLiteAsyncSignatureRunner* r, int slot) {
  const int num_inputs = r->signature->num_inputs;
  return slot < num_inputs ? r->input_indices[slot]
                           : r->output_indices[slot - num_inputs];
}

static const char* slot_name(const TfLiteAsyncSignatureRunner* r, int slot) {
  const int num_inputs = r->signature->num_inputs;
  return slot < num_inputs ? r->signature->inputs[slot].name
                           : r->signature->outputs[slot - num_inputs].name;
}

static TfLiteTensor* slot_tensor(const TfLiteAsyncSignatureRunner* r,
                                 int slot) {
  return &r->subgraph->context.tensors[slot_tensor_index(r, slot)];
}

/* The tensor of `slot` as the API hands it out; NULL for slot -1. */
static const TfLiteOpaqueTensor* opaque_slot_tensor(
    const TfLiteAsyncSignatureRunner* r, int slot) {
  return slot < 0 ? NULL : (const TfLiteOpaqueTensor*)slot_tensor(r, slot);
}

const TfLiteOpaqueTensor* TfLiteAsyncSignatureRunnerGetInputTensor(
    TfLiteAsyncSignatureRunner* async_signature_runner,
    const char* input_name) {
  TfLiteAsyncSignatureRunner* r = async_signature_runner;
  return r == NULL
             ? NULL
             : opaque_slot_tensor(
                   r, slot_by_name(r, kTfLiteIoTypeInput, input_name,
                                   "TfLiteAsyncSignatureRunnerGetInputTensor"));
}

const TfLiteOpaqueTensor* TfLiteAsyncSignatureRunnerGetOutputTensor(
    const TfLiteAsyncSignatureRunner* async_signature_runner,
    const char* output_name) {
  const TfLiteAsyncSignatureRunner* r = async_signature_runner;
  return r == NULL ? NULL
                   : opaque_slot_tensor(
                         r, slot_by_name(
                                r, kTfLiteIoTypeOutput, output_name,
                                "TfLiteAsyncSignatureRunnerGetOutputTensor"));
}

const TfLiteOpaqueTensor* TfLiteAsyncSignatureRunnerGetTensor(
    const TfLiteAsyncSignatureRunner* async_signature_runner, int index) {
  const TfLiteAsyncSignatureRunner* r = async_signature_runner;
  return r == NULL
             ? NULL
             : opaque_slot_tensor(
                   r, slot_by_index(r, index,
                                    "TfLiteAsyncSignatureRunnerGetTensor"));
}

/* ---- Types and restrictions -------------------------------------------- */

static TfLiteAsyncKernel* find_async_kernel(const TfLiteAsyncSignatureRunner* r,
                                            TfLiteNode** node);

/* The buffer types of the signature's `io_type` tensors: its async
 * kernel's, or host memory alone. */
static void buffer_types_of(const TfLiteAsyncSignatureRunner* r,
                            TfLiteIoType io_type, const char* const** types,
                            size_t* num_types) {
  TfLiteNode* node = NULL;
  const TfLiteAsyncKernel* kernel = find_async_kernel(r, &node);
  if (!lg_async_kernel_supported_buffer_types(kernel, io_type, types,
                                              num_types) ||
      *num_types == 0) {
    *types = kBufferTypes;
    *num_types = 1;
  }
}

TfLiteStatus TfLiteAsyncSignatureRunnerGetSupportedBufferTypes(
    const TfLiteAsyncSignatureRunner* async_signature_runner,
    TfLiteIoType io_type, const char* const** types, size_t* num_types) {
  if (async_signature_runner == NULL || types == NULL || num_types == NULL) {
    return kTfLiteError;
  }
  buffer_types_of(async_signature_runner, io_type, types, num_types);
  return kTfLiteOk;
}

/* The synchronization types of the signature's `io_type` tensors: its
 * async kernel's, or kTfLiteSyncTypeNoSyncObj alone. */
static void sync_types_of(const TfLiteAsyncSignatureRunner* r,
                          TfLiteIoType io_type, const char* const** types,
                          size_t* num_types) {
  TfLiteNode* node = NULL;
  const TfLiteAsyncKernel* kernel = find_async_kernel(r, &node);
  if (!lg_async_kernel_supported_synchronizations(kernel, io_type, types,
                                                  num_types) ||
      *num_types == 0) {
    *types = kSyncTypes;
    *num_types = 1;
  }
}

TfLiteStatus TfLiteAsyncSignatureRunnerGetSupportedSynchronizationTypes(
    const TfLiteAsyncSignatureRunner* async_signature_runner,
    TfLiteIoType io_type, const char* const** types, size_t* num_types) {
  if (async_signature_runner == NULL || types == NULL || num_types == NULL) {
    return kTfLiteError;
  }
  sync_types_of(async_signature_runner, io_type, types, num_types);
  return kTfLiteOk;
}

static TfLiteIoType slot_io_type(const TfLiteAsyncSignatureRunner* r,
                                 int slot) {
  return slot < r->signature->num_inputs ? kTfLiteIoTypeInput
                                         : kTfLiteIoTypeOutput;
}

/* The entry of `types` named `type` (the list's own string), or NULL;
 * the list, joined with ", ", in `names`. */
static const char* find_type(const char* const* types, size_t n,
                             const char* type, char* names, size_t names_size) {
  const char* found = NULL;
  size_t used = 0;
  names[0] = '\0';
  for (size_t i = 0; i < n; ++i) {
    if (type != NULL && strcmp(types[i], type) == 0) found = types[i];
    const int wrote = snprintf(names + used, names_size - used, "%s%s",
                               i > 0 ? ", " : "", types[i]);
    if (wrote > 0 && (size_t)wrote < names_size - used) used += (size_t)wrote;
  }
  return found;
}

/* The slot's supported sync type named `type`, as find_type. */
static const char* find_sync_type(const TfLiteAsyncSignatureRunner* r, int slot,
                                  const char* type, char* names,
                                  size_t names_size) {
  const char* const* types = NULL;
  size_t n = 0;
  sync_types_of(r, slot_io_type(r, slot), &types, &n);
  return find_type(types, n, type, names, names_size);
}

/* Reconciles a buffer map for `tensor` (see the header). */
static bool reconcile_buffer(const TfLiteTensor* tensor,
                             TfLiteAttributeMap* merged,
                             TfLiteAttributeMap* conflict) {
  bool ok = true;
  const char* type = NULL;
  if (!TfLiteAttributeMapGetStringBufferAttr(
          merged, kTfLiteBufferAttrKeyResourceTypeName, &type)) {
    TfLiteAttributeMapSetStringBufferAttr(merged,
                                          kTfLiteBufferAttrKeyResourceTypeName,
                                          LITEGPU_BUFFER_TYPE_HOST_MEMORY);
  } else if (strcmp(type, LITEGPU_BUFFER_TYPE_HOST_MEMORY) != 0) {
    ok = false;
    TfLiteAttributeMapSetStringAttr(conflict,
                                    kTfLiteBufferAttrKeyResourceTypeName,
                                    LITEGPU_BUFFER_TYPE_HOST_MEMORY);
  }
  size_t size = 0;
  if (!TfLiteAttributeMapGetSizeTBufferAttr(merged, kTfLiteBufferAttrKeySize,
                                            &size)) {
    TfLiteAttributeMapSetSizeTBufferAttr(merged, kTfLiteBufferAttrKeySize,
                                         tensor->bytes);
  } else if (size < tensor->bytes) {
    ok = false;
    TfLiteAttributeMapSetSizeTAttr(conflict, kTfLiteBufferAttrKeySize,
                                   tensor->bytes);
  }
  return ok;
}

/* Reconciles a sync map for task slot `slot`: its type must be one the
 * slot supports (reported with `fn`, naming the tensor and the type). */
static bool reconcile_sync(const TfLiteAsyncSignatureRunner* r, int slot,
                           TfLiteAttributeMap* merged,
                           TfLiteAttributeMap* conflict, const char* fn) {
  const char* type = NULL;
  if (!TfLiteAttributeMapGetStringSyncAttr(
          merged, kTfLiteSynchronizationAttrKeyObjectTypeName, &type)) {
    TfLiteAttributeMapSetStringSyncAttr(
        merged, kTfLiteSynchronizationAttrKeyObjectTypeName,
        kTfLiteSyncTypeNoSyncObj);
    return true;
  }
  if (strcmp(type, kTfLiteSyncTypeNoSyncObj) == 0) return true;
  char names[256];
  if (find_sync_type(r, slot, type, names, sizeof(names)) != NULL) return true;
  TfLiteAttributeMapSetStringAttr(conflict,
                                  kTfLiteSynchronizationAttrKeyObjectTypeName,
                                  kTfLiteSyncTypeNoSyncObj);
  lg_report(reporter_of(r),
            "%s: %s '%s' asks for synchronization type '%s'; signature '%s' "
            "takes %s",
            fn, slot < r->signature->num_inputs ? "input" : "output",
            slot_name(r, slot), type, r->signature->key, names);
  return false;
}

/* Merges `user` into `merged` for task slot `slot` (reported failures). */
static bool reconcile_slot(const TfLiteAsyncSignatureRunner* r, int slot,
                           const TfLiteAttributeMap* user,
                           TfLiteAttributeMap* merged,
                           TfLiteAttributeMap* conflict, const char* fn) {
  if (user == NULL || merged == NULL) {
    lg_report(reporter_of(r), "%s: the attribute maps must not be NULL", fn);
    return false;
  }
  const bool is_buffer = TfLiteAttributeMapIsBufferAttributeMap(user);
  if (!is_buffer && !TfLiteAttributeMapIsSyncAttributeMap(user)) {
    lg_report(reporter_of(r),
              "%s: the attribute map is neither a buffer nor a sync map", fn);
    return false;
  }
  TfLiteNode* node = NULL;
  const TfLiteAsyncKernel* kernel = find_async_kernel(r, &node);
  if (lg_async_kernel_reconciles(kernel)) {
    if (lg_async_kernel_reconcile(
            kernel, (const TfLiteOpaqueContext*)&r->subgraph->context,
            (const TfLiteOpaqueNode*)node, slot_tensor_index(r, slot), user,
            merged, conflict)) {
      return true;
    }
    lg_report(reporter_of(r),
              "%s: the async kernel reports a conflict in the attributes of "
              "'%s'",
              fn, slot_name(r, slot));
    return false;
  }
  TfLiteAttributeMapCopy(user, merged);
  if (!is_buffer) return reconcile_sync(r, slot, merged, conflict, fn);
  const bool ok = reconcile_buffer(slot_tensor(r, slot), merged, conflict);
  if (!ok) {
    lg_report(reporter_of(r),
              "%s: the buffer attributes of '%s' conflict with litegpu's: "
              "buffers are %s of at least %zu bytes",
              fn, slot_name(r, slot), LITEGPU_BUFFER_TYPE_HOST_MEMORY,
              slot_tensor(r, slot)->bytes);
  }
  return ok;
}

bool TfLiteAsyncSignatureRunnerReconcileRestrictions(
    const TfLiteAsyncSignatureRunner* async_signature_runner,
    TfLiteIoType io_type, const char* name,
    const TfLiteAttributeMap* user_provided_attributes,
    TfLiteAttributeMap* merged, TfLiteAttributeMap* conflict) {
  static const char fn[] = "TfLiteAsyncSignatureRunnerReconcileRestrictions";
  if (async_signature_runner == NULL) return false;
  const int slot = slot_by_name(async_signature_runner, io_type, name, fn);
  return slot >= 0 &&
         reconcile_slot(async_signature_runner, slot, user_provided_attributes,
                        merged, conflict, fn);
}

bool TfLiteAsyncSignatureRunnerReconcileRestrictionsByIndex(
    const TfLiteAsyncSignatureRunner* async_signature_runner, int tensor_index,
    const TfLiteAttributeMap* user_provided_attributes,
    TfLiteAttributeMap* merged, TfLiteAttributeMap* conflict) {
  static const char fn[] =
      "TfLiteAsyncSignatureRunnerReconcileRestrictionsByIndex";
  if (async_signature_runner == NULL) return false;
  const int slot = slot_by_index(async_signature_runner, tensor_index, fn);
  return slot >= 0 &&
         reconcile_slot(async_signature_runner, slot, user_provided_attributes,
                        merged, conflict, fn);
}

bool lg_interpreter_async_idle(TfLiteInterpreter* interpreter, const char* fn) {
  const int in_flight = atomic_load(&interpreter->async_in_flight);
  if (in_flight == 0) return true;
  lg_report(&interpreter->reporter,
            "%s: %d async task(s) of the interpreter are in flight; Wait for "
            "them first",
            fn, in_flight);
  return false;
}

/* Fails (reported) while tasks of the interpreter are in flight: the
 * tensors must not change under a worker. */
static bool idle(TfLiteAsyncSignatureRunner* r, const char* fn) {
  return lg_interpreter_async_idle(r->interpreter, fn);
}

static TfLiteStatus set_attributes(TfLiteAsyncSignatureRunner* r, int slot,
                                   const TfLiteAttributeMap* attrs,
                                   const char* fn) {
  if (slot < 0 || !idle(r, fn)) return kTfLiteError;
  TfLiteAttributeMap* merged = TfLiteAttributeMapCreate(
      TfLiteAttributeMapIsSyncAttributeMap(attrs) ? kTfLiteAttrMapTypeSync
                                                  : kTfLiteAttrMapTypeBuffer);
  if (merged == NULL) return kTfLiteError;
  bool ok = reconcile_slot(r, slot, attrs, merged, NULL, fn);
  TfLiteNode* node = NULL;
  TfLiteAsyncKernel* kernel = find_async_kernel(r, &node);
  if (ok && kernel != NULL &&
      lg_async_kernel_set_attributes(
          kernel, (TfLiteOpaqueContext*)&r->subgraph->context,
          (TfLiteOpaqueNode*)node, slot_tensor_index(r, slot),
          merged) != kTfLiteOk) {
    lg_report(reporter_of(r),
              "%s: the async kernel refused the attributes "
              "of '%s'",
              fn, slot_name(r, slot));
    ok = false;
  }
  const char* type = NULL;
  if (ok && TfLiteAttributeMapIsSyncAttributeMap(merged) &&
      TfLiteAttributeMapGetStringSyncAttr(
          merged, kTfLiteSynchronizationAttrKeyObjectTypeName, &type)) {
    char names[256];
    const char* found = find_sync_type(r, slot, type, names, sizeof(names));
    r->sync_types[slot] = found != NULL ? found : kTfLiteSyncTypeNoSyncObj;
  }
  TfLiteAttributeMapDelete(merged);
  if (!ok) return kTfLiteError;
  r->prepared = false;
  return kTfLiteOk;
}

TfLiteStatus TfLiteAsyncSignatureRunnerSetAttributes(
    TfLiteAsyncSignatureRunner* async_signature_runner, TfLiteIoType io_type,
    const char* name, const TfLiteAttributeMap* attrs) {
  static const char fn[] = "TfLiteAsyncSignatureRunnerSetAttributes";
  if (async_signature_runner == NULL) return kTfLiteError;
  return set_attributes(async_signature_runner,
                        slot_by_name(async_signature_runner, io_type, name, fn),
                        attrs, fn);
}

TfLiteStatus TfLiteAsyncSignatureRunnerSetAttributesByIndex(
    TfLiteAsyncSignatureRunner* async_signature_runner, int tensor_index,
    const TfLiteAttributeMap* attrs) {
  static const char fn[] = "TfLiteAsyncSignatureRunnerSetAttributesByIndex";
  if (async_signature_runner == NULL) return kTfLiteError;
  return set_attributes(async_signature_runner,
                        slot_by_index(async_signature_runner, tensor_index, fn),
                        attrs, fn);
}

/* Whether the runner can move a tensor of this type as its bytes. */
static bool fixed_size_type(TfLiteType type) {
  return type != kTfLiteString && type != kTfLiteResource &&
         type != kTfLiteVariant && type != kTfLiteNoType;
}

/* The async kernel of the subgraph's only node when its registration
 * offers a runnable one (TfLiteRegistration.async_kernel, a delegate
 * kernel's; else its TfLiteOperator's, a custom operator's); else NULL. */
static TfLiteAsyncKernel* find_async_kernel(const TfLiteAsyncSignatureRunner* r,
                                            TfLiteNode** node) {
  lg_subgraph* s = r->subgraph;
  *node = NULL;
  if (s->execution_plan == NULL || s->execution_plan->size != 1) return NULL;
  lg_node* only = &s->nodes[s->execution_plan->data[0]];
  TfLiteAsyncKernel* kernel =
      only->registration.async_kernel != NULL
          ? only->registration.async_kernel(&s->context, &only->node)
          : lg_operator_async_kernel(only->registration.registration_external,
                                     (TfLiteOpaqueContext*)&s->context,
                                     (TfLiteOpaqueNode*)&only->node);
  if (!lg_async_kernel_runnable(kernel)) return NULL;
  *node = &only->node;
  return kernel;
}

TfLiteStatus TfLiteAsyncSignatureRunnerPrepareBackends(
    TfLiteAsyncSignatureRunner* async_signature_runner) {
  static const char fn[] = "TfLiteAsyncSignatureRunnerPrepareBackends";
  TfLiteAsyncSignatureRunner* r = async_signature_runner;
  if (r == NULL || !idle(r, fn)) return kTfLiteError;
  if (lg_subgraph_allocate_tensors(r->subgraph) != kTfLiteOk) {
    return kTfLiteError;
  }
  for (int slot = 0; slot < num_io(r); ++slot) {
    const TfLiteTensor* t = slot_tensor(r, slot);
    if (!fixed_size_type(t->type)) {
      lg_report(reporter_of(r),
                "%s: '%s' of signature '%s' is a %s tensor; the async "
                "signature runner moves tensors of fixed-size types only",
                fn, slot_name(r, slot), r->signature->key,
                TfLiteTypeGetName(t->type));
      return kTfLiteError;
    }
  }
  r->kernel = find_async_kernel(r, &r->kernel_node);
  if (r->kernel != NULL &&
      lg_async_kernel_prepare(r->kernel,
                              (TfLiteOpaqueContext*)&r->subgraph->context,
                              (TfLiteOpaqueNode*)r->kernel_node) != kTfLiteOk) {
    lg_report(reporter_of(r), "%s: the async kernel's Prepare failed", fn);
    return kTfLiteError;
  }
  for (int slot = 0; r->kernel == NULL && slot < num_io(r); ++slot) {
    if (strcmp(r->sync_types[slot], kTfLiteSyncTypeNoSyncObj) != 0) {
      lg_report(reporter_of(r),
                "%s: '%s' has synchronization type '%s', but signature '%s' "
                "runs on the CPU path, which takes %s only",
                fn, slot_name(r, slot), r->sync_types[slot], r->signature->key,
                kTfLiteSyncTypeNoSyncObj);
      return kTfLiteError;
    }
  }
  r->prepared = true;
  return kTfLiteOk;
}

/* ---- Buffers ----------------------------------------------------------- */

/* The registered buffer `handle`, or NULL; the caller holds the lock. */
static async_buffer* find_buffer(TfLiteAsyncSignatureRunner* r,
                                 TfLiteBufferHandle handle) {
  for (int i = 0; i < r->num_buffers; ++i) {
    if (r->buffers[i].handle == handle) return &r->buffers[i];
  }
  return NULL;
}

/* Adds a buffer under the lock and returns its handle through *handle. */
static TfLiteStatus add_buffer(TfLiteAsyncSignatureRunner* r, uint8_t* bytes,
                               size_t size, TfLiteBufferHandle pool,
                               TfLiteBufferHandle* handle) {
  if (!reserve_one((void**)&r->buffers, r->num_buffers, &r->buffers_capacity,
                   sizeof(*r->buffers))) {
    return kTfLiteError;
  }
  async_buffer* b = &r->buffers[r->num_buffers++];
  memset(b, 0, sizeof(*b));
  b->handle = r->next_handle++;
  b->bytes = bytes;
  b->size = size;
  b->pool = pool;
  b->host = true;
  *handle = b->handle;
  return kTfLiteOk;
}

/* Whether `type` is one of the `io_type` buffer types (the list, joined,
 * in `names`). */
static bool find_buffer_type(const TfLiteAsyncSignatureRunner* r,
                             TfLiteIoType io_type, const char* type,
                             char* names, size_t names_size) {
  const char* const* types = NULL;
  size_t n = 0;
  buffer_types_of(r, io_type, &types, &n);
  return find_type(types, n, type, names, names_size) != NULL;
}

TfLiteStatus TfLiteAsyncSignatureRunnerRegisterBuffer(
    TfLiteAsyncSignatureRunner* async_signature_runner, TfLiteIoType io_type,
    const TfLiteBackendBuffer* buffer, const TfLiteAttributeMap* attrs,
    TfLiteBufferHandle* handle) {
  static const char fn[] = "TfLiteAsyncSignatureRunnerRegisterBuffer";
  TfLiteAsyncSignatureRunner* r = async_signature_runner;
  if (r == NULL) return kTfLiteError;
  if (io_type != kTfLiteIoTypeInput && io_type != kTfLiteIoTypeOutput) {
    lg_report(reporter_of(r), "%s: io_type %d is neither input nor output", fn,
              (int)io_type);
    return kTfLiteError;
  }
  if (handle == NULL || TfLiteBackendBufferGetPtr(buffer) == NULL) {
    lg_report(reporter_of(r), "%s: needs a buffer with a pointer and a handle",
              fn);
    return kTfLiteError;
  }
  const char* type = NULL;
  size_t size = 0, offset = 0;
  char names[256];
  TfLiteAttributeMapGetStringBufferAttr(
      attrs, kTfLiteBufferAttrKeyResourceTypeName, &type);
  if (!find_buffer_type(r, io_type, type, names, sizeof(names))) {
    lg_report(reporter_of(r),
              "%s: the buffer attributes must name a resource type of "
              "signature '%s' (%s; got '%s')",
              fn, r->signature->key, names, type ? type : "none");
    return kTfLiteError;
  }
  const bool host = strcmp(type, LITEGPU_BUFFER_TYPE_HOST_MEMORY) == 0;
  if (!TfLiteAttributeMapGetSizeTBufferAttr(attrs, kTfLiteBufferAttrKeySize,
                                            &size)) {
    lg_report(reporter_of(r),
              "%s: the buffer attributes must give its size "
              "(kTfLiteBufferAttrKeySize)",
              fn);
    return kTfLiteError;
  }
  TfLiteAttributeMapGetSizeTBufferAttr(attrs, kTfLiteBufferAttrKeyOffset,
                                       &offset);
  uint8_t* bytes = (uint8_t*)TfLiteBackendBufferGetPtr(buffer) +
                   (host ? offset : 0); /* another type: the kernel's */
  pthread_mutex_lock(&r->mutex);
  TfLiteStatus status =
      add_buffer(r, bytes, size, kTfLiteNullBufferHandle, handle);
  if (status == kTfLiteOk) {
    r->buffers[r->num_buffers - 1].host = host;
    TfLiteNode* node = NULL;
    TfLiteAsyncKernel* kernel = find_async_kernel(r, &node);
    if (kernel != NULL &&
        lg_async_kernel_register_buffer(
            kernel, (TfLiteOpaqueContext*)&r->subgraph->context, io_type,
            buffer, attrs, *handle) != kTfLiteOk) {
      lg_report(reporter_of(r), "%s: the async kernel refused the buffer", fn);
      r->num_buffers--;
      *handle = kTfLiteNullBufferHandle;
      status = kTfLiteError;
    }
  }
  pthread_mutex_unlock(&r->mutex);
  return status;
}

TfLiteStatus TfLiteAsyncSignatureRunnerRegisterBufferSlice(
    TfLiteAsyncSignatureRunner* async_signature_runner,
    TfLiteBufferHandle buffer_pool, const TfLiteAttributeMap* attrs,
    TfLiteBufferHandle* handle) {
  static const char fn[] = "TfLiteAsyncSignatureRunnerRegisterBufferSlice";
  TfLiteAsyncSignatureRunner* r = async_signature_runner;
  if (r == NULL) return kTfLiteError;
  size_t offset = 0, size = 0;
  if (handle == NULL || !TfLiteAttributeMapGetSizeTBufferAttr(
                            attrs, kTfLiteBufferAttrKeySize, &size)) {
    lg_report(reporter_of(r),
              "%s: needs a handle and buffer attributes with the slice's "
              "size (kTfLiteBufferAttrKeySize)",
              fn);
    return kTfLiteError;
  }
  TfLiteAttributeMapGetSizeTBufferAttr(attrs, kTfLiteBufferAttrKeyOffset,
                                       &offset);
  pthread_mutex_lock(&r->mutex);
  TfLiteStatus status = kTfLiteError;
  async_buffer* pool = find_buffer(r, buffer_pool);
  if (pool == NULL) {
    lg_report(reporter_of(r), "%s: buffer handle %d is not registered", fn,
              (int)buffer_pool);
  } else if (!pool->host) {
    lg_report(reporter_of(r),
              "%s: buffer %d is of the async kernel's own type; slices are "
              "cut from host memory",
              fn, (int)buffer_pool);
  } else if (pool->pool != kTfLiteNullBufferHandle) {
    lg_report(reporter_of(r),
              "%s: buffer handle %d is a slice; slices are cut from "
              "registered buffers only",
              fn, (int)buffer_pool);
  } else if (offset > pool->size || size > pool->size - offset) {
    lg_report(reporter_of(r),
              "%s: the slice [%zu, %zu + %zu) exceeds buffer %d's %zu bytes",
              fn, offset, offset, size, (int)buffer_pool, pool->size);
  } else {
    uint8_t* bytes = pool->bytes + offset;
    status = add_buffer(r, bytes, size, buffer_pool, handle);
    TfLiteNode* node = NULL;
    TfLiteAsyncKernel* kernel = find_async_kernel(r, &node);
    if (status == kTfLiteOk && kernel != NULL &&
        lg_async_kernel_register_buffer_slice(
            kernel, (TfLiteOpaqueContext*)&r->subgraph->context, buffer_pool,
            attrs, *handle) != kTfLiteOk) {
      lg_report(reporter_of(r), "%s: the async kernel refused the slice", fn);
      r->num_buffers--;
      *handle = kTfLiteNullBufferHandle;
      status = kTfLiteError;
    }
    /* add_buffer may move the table: find the pool again. */
    if (status == kTfLiteOk) find_buffer(r, buffer_pool)->num_slices++;
  }
  pthread_mutex_unlock(&r->mutex);
  return status;
}

/* Whether the async kernel (if any) unregistered `handle`. */
static bool kernel_unregisters(const TfLiteAsyncSignatureRunner* r,
                               TfLiteBufferHandle handle) {
  TfLiteNode* node = NULL;
  TfLiteAsyncKernel* kernel = find_async_kernel(r, &node);
  return kernel == NULL ||
         lg_async_kernel_unregister_buffer(
             kernel, (TfLiteOpaqueContext*)&r->subgraph->context, handle) ==
             kTfLiteOk;
}

TfLiteStatus TfLiteAsyncSignatureRunnerUnregisterBuffer(
    TfLiteAsyncSignatureRunner* async_signature_runner,
    TfLiteBufferHandle handle) {
  static const char fn[] = "TfLiteAsyncSignatureRunnerUnregisterBuffer";
  TfLiteAsyncSignatureRunner* r = async_signature_runner;
  if (r == NULL) return kTfLiteError;
  pthread_mutex_lock(&r->mutex);
  TfLiteStatus status = kTfLiteError;
  async_buffer* b = find_buffer(r, handle);
  if (b == NULL) {
    lg_report(reporter_of(r), "%s: buffer handle %d is not registered", fn,
              (int)handle);
  } else if (b->num_slices > 0) {
    lg_report(reporter_of(r),
              "%s: buffer %d still has %d registered slice(s); unregister "
              "them first",
              fn, (int)handle, b->num_slices);
  } else if (b->in_flight > 0) {
    lg_report(reporter_of(r), "%s: buffer %d is used by a task in flight", fn,
              (int)handle);
  } else if (!kernel_unregisters(r, handle)) {
    lg_report(reporter_of(r),
              "%s: the async kernel refused to unregister "
              "buffer %d",
              fn, (int)handle);
  } else {
    if (b->pool != kTfLiteNullBufferHandle) {
      find_buffer(r, b->pool)->num_slices--;
    }
    *b = r->buffers[--r->num_buffers];
    status = kTfLiteOk;
  }
  pthread_mutex_unlock(&r->mutex);
  return status;
}

/* ---- Tasks --------------------------------------------------------------- */

static void task_free(TfLiteExecutionTask* t) {
  free(t->handles);
  free(t->syncs);
  free(t->bound);
  free(t);
}

TfLiteExecutionTask* TfLiteAsyncSignatureRunnerCreateTask(
    TfLiteAsyncSignatureRunner* async_signature_runner) {
  TfLiteAsyncSignatureRunner* r = async_signature_runner;
  if (r == NULL) return NULL;
  if (!r->prepared) {
    lg_report(reporter_of(r),
              "TfLiteAsyncSignatureRunnerCreateTask: call "
              "TfLiteAsyncSignatureRunnerPrepareBackends first");
    return NULL;
  }
  const size_t n = (size_t)(num_io(r) > 0 ? num_io(r) : 1);
  TfLiteExecutionTask* t = calloc(1, sizeof(*t));
  if (t == NULL) return NULL;
  t->runner = r;
  t->handles = malloc(n * sizeof(*t->handles));
  t->syncs = calloc(n, sizeof(*t->syncs));
  t->bound = calloc(n, sizeof(*t->bound));
  if (t->handles == NULL || t->syncs == NULL || t->bound == NULL) {
    task_free(t);
    return NULL;
  }
  for (size_t i = 0; i < n; ++i) t->handles[i] = kTfLiteNullBufferHandle;
  atomic_init(&t->status, kTfLiteOk);
  pthread_mutex_lock(&r->mutex);
  const bool added = reserve_one((void**)&r->tasks, r->num_tasks,
                                 &r->tasks_capacity, sizeof(*r->tasks));
  if (added) r->tasks[r->num_tasks++] = t;
  pthread_mutex_unlock(&r->mutex);
  if (!added) {
    task_free(t);
    return NULL;
  }
  return t;
}

/* The slot of the task's tensor `name`, with the runner locked so that it
 * may change; -1 (reported, unlocked) for an unknown name or a task in
 * flight. */
static int lock_slot_to_change(TfLiteExecutionTask* task, int32_t io_type,
                               const char* name, const char* fn) {
  TfLiteAsyncSignatureRunner* r = task->runner;
  const int slot = slot_by_name(r, io_type, name, fn);
  if (slot < 0) return -1;
  pthread_mutex_lock(&r->mutex);
  if (task->state != TASK_IN_FLIGHT) return slot;
  pthread_mutex_unlock(&r->mutex);
  lg_report(reporter_of(r), "%s: the task is in flight; Wait for it first", fn);
  return -1;
}

TfLiteStatus TfLiteExecutionTaskSetBuffer(TfLiteExecutionTask* task,
                                          int32_t io_type,
                                          const char* tensor_signature_name,
                                          TfLiteBufferHandle handle) {
  const int slot =
      task == NULL ? -1
                   : lock_slot_to_change(task, io_type, tensor_signature_name,
                                         "TfLiteExecutionTaskSetBuffer");
  if (slot < 0) return kTfLiteError;
  task->handles[slot] = handle;
  pthread_mutex_unlock(&task->runner->mutex);
  return kTfLiteOk;
}

TfLiteStatus TfLiteExecutionTaskSetSync(TfLiteExecutionTask* task,
                                        int32_t io_type,
                                        const char* tensor_signature_name,
                                        TfLiteSynchronization* sync) {
  const int slot =
      task == NULL ? -1
                   : lock_slot_to_change(task, io_type, tensor_signature_name,
                                         "TfLiteExecutionTaskSetSync");
  if (slot < 0) return kTfLiteError;
  task->syncs[slot] = sync;
  pthread_mutex_unlock(&task->runner->mutex);
  return kTfLiteOk;
}

/* The slot a getter reads: by tensor index when by_index, else by io_type
 * and name; -1 (reported) when there is none. */
static int task_slot(const TfLiteExecutionTask* task, int32_t io_type,
                     const char* name, int tensor_index, bool by_index,
                     const char* fn) {
  if (task == NULL) return -1;
  return by_index ? slot_by_index(task->runner, tensor_index, fn)
                  : slot_by_name(task->runner, io_type, name, fn);
}

TfLiteBufferHandle TfLiteExecutionTaskGetBufferByName(
    const TfLiteExecutionTask* task, int32_t io_type,
    const char* tensor_signature_name) {
  const int slot = task_slot(task, io_type, tensor_signature_name, 0, false,
                             "TfLiteExecutionTaskGetBufferByName");
  return slot < 0 ? kTfLiteNullBufferHandle : task->handles[slot];
}

TfLiteBufferHandle TfLiteExecutionTaskGetBufferByIndex(
    const TfLiteExecutionTask* task, int tensor_index) {
  const int slot = task_slot(task, 0, NULL, tensor_index, true,
                             "TfLiteExecutionTaskGetBufferByIndex");
  return slot < 0 ? kTfLiteNullBufferHandle : task->handles[slot];
}

TfLiteSynchronization* TfLiteExecutionTaskGetSyncByName(
    const TfLiteExecutionTask* task, int32_t io_type,
    const char* tensor_signature_name) {
  const int slot = task_slot(task, io_type, tensor_signature_name, 0, false,
                             "TfLiteExecutionTaskGetSyncByName");
  return slot < 0 ? NULL : task->syncs[slot];
}

TfLiteSynchronization* TfLiteExecutionTaskGetSyncByIndex(
    const TfLiteExecutionTask* task, int tensor_index) {
  const int slot = task_slot(task, 0, NULL, tensor_index, true,
                             "TfLiteExecutionTaskGetSyncByIndex");
  return slot < 0 ? NULL : task->syncs[slot];
}

TfLiteStatus TfLiteExecutionTaskGetStatus(const TfLiteExecutionTask* task) {
  if (task == NULL) return kTfLiteError;
  return (TfLiteStatus)atomic_load(&((TfLiteExecutionTask*)task)->status);
}

void TfLiteExecutionTaskSetStatus(const TfLiteExecutionTask* task,
                                  TfLiteStatus status) {
  if (task != NULL) {
    atomic_store(&((TfLiteExecutionTask*)task)->status, (int)status);
  }
}

/* ---- Execution ------------------------------------------------------------
 */

static void copy_inputs(TfLiteAsyncSignatureRunner* r,
                        const TfLiteExecutionTask* t) {
  for (int slot = 0; slot < r->signature->num_inputs; ++slot) {
    TfLiteTensor* tensor = slot_tensor(r, slot);
    if (tensor->bytes > 0)
      memcpy(tensor->data.raw, t->bound[slot], tensor->bytes);
  }
}

/* Copies the output tensors into the task's buffers; the caller holds the
 * runner's lock. */
static TfLiteStatus copy_outputs(TfLiteAsyncSignatureRunner* r,
                                 const TfLiteExecutionTask* t) {
  for (int slot = r->signature->num_inputs; slot < num_io(r); ++slot) {
    const TfLiteTensor* tensor = slot_tensor(r, slot);
    /* The buffer's size was checked against the planned size; a dynamic
     * output may have grown during Invoke. */
    const size_t capacity = find_buffer(r, t->handles[slot])->size;
    if (tensor->bytes > capacity) {
      lg_report(reporter_of(r),
                "Async signature '%s': output '%s' has %zu bytes after "
                "Invoke, more than its buffer's %zu",
                r->signature->key, slot_name(r, slot), tensor->bytes, capacity);
      return kTfLiteError;
    }
    if (tensor->bytes > 0)
      memcpy(t->bound[slot], tensor->data.raw, tensor->bytes);
  }
  return kTfLiteOk;
}

/* Copies the inputs in, invokes, copies the outputs out; without the lock
 * (the runner's one worker is the only one touching the tensors while
 * tasks are in flight). */
static TfLiteStatus execute(TfLiteAsyncSignatureRunner* r,
                            TfLiteExecutionTask* t) {
  copy_inputs(r, t);
  /* A Cancel before this execution does not cancel it (as Invoke). */
  atomic_store(&r->interpreter->cancel_requested, false);
  if (lg_subgraph_invoke(r->subgraph) != kTfLiteOk) return kTfLiteError;
  pthread_mutex_lock(&r->mutex);
  const TfLiteStatus status = copy_outputs(r, t);
  pthread_mutex_unlock(&r->mutex);
  return status;
}

/* Releases the task's buffers and marks it done; the caller holds the
 * lock. */
static void complete(TfLiteAsyncSignatureRunner* r, TfLiteExecutionTask* t,
                     TfLiteStatus status) {
  for (int slot = 0; slot < num_io(r); ++slot) {
    async_buffer* b = find_buffer(r, t->handles[slot]);
    if (b != NULL) b->in_flight--;
  }
  atomic_store(&t->status, (int)status);
  t->state = TASK_DONE;
  atomic_fetch_sub(&r->interpreter->async_in_flight, 1);
  pthread_cond_broadcast(&r->task_done);
}

static void* worker_main(void* arg) {
  TfLiteAsyncSignatureRunner* r = arg;
  pthread_mutex_lock(&r->mutex);
  for (;;) {
    while (r->queue_head == NULL && !r->stopping) {
      pthread_cond_wait(&r->work_ready, &r->mutex);
    }
    TfLiteExecutionTask* t = r->queue_head;
    if (t == NULL) break; /* stopping with nothing left */
    r->queue_head = t->next_queued;
    if (r->queue_head == NULL) r->queue_tail = NULL;
    pthread_mutex_unlock(&r->mutex);
    pthread_mutex_lock(&r->interpreter->async_execution);
    const TfLiteStatus status = execute(r, t);
    pthread_mutex_unlock(&r->interpreter->async_execution);
    pthread_mutex_lock(&r->mutex);
    complete(r, t, status);
  }
  pthread_mutex_unlock(&r->mutex);
  return NULL;
}

/* Checks the task's bindings and resolves them into t->bound; the caller
 * holds the lock. Reports the first problem. */
static bool bind(TfLiteAsyncSignatureRunner* r, TfLiteExecutionTask* t) {
  static const char fn[] = "TfLiteAsyncSignatureRunnerInvokeAsync";
  for (int slot = 0; slot < num_io(r); ++slot) {
    const char* what = slot < r->signature->num_inputs ? "input" : "output";
    const async_buffer* b = find_buffer(r, t->handles[slot]);
    const size_t bytes = slot_tensor(r, slot)->bytes;
    if (b == NULL) {
      lg_report(reporter_of(r),
                "%s: %s '%s' has no registered buffer (handle %d)", fn, what,
                slot_name(r, slot), (int)t->handles[slot]);
      return false;
    }
    if (b->size < bytes) {
      lg_report(reporter_of(r),
                "%s: %s '%s' needs %zu bytes; buffer %d holds %zu", fn, what,
                slot_name(r, slot), bytes, (int)b->handle, b->size);
      return false;
    }
    if (!b->host && r->kernel == NULL) {
      lg_report(reporter_of(r),
                "%s: %s '%s' is bound to buffer %d of an async kernel's type, "
                "but signature '%s' runs on the CPU path (host memory only)",
                fn, what, slot_name(r, slot), (int)b->handle,
                r->signature->key);
      return false;
    }
    /* An output's object is the kernel's to fill (or, of type
     * no_sync_obj, ignored, as TFLite does). */
    const bool input = slot < r->signature->num_inputs;
    if (input && TfLiteSynchronizationGetPtr(t->syncs[slot]) != NULL &&
        strcmp(r->sync_types[slot], kTfLiteSyncTypeNoSyncObj) == 0) {
      char names[256];
      find_sync_type(r, slot, NULL, names, sizeof(names));
      lg_report(reporter_of(r),
                "%s: input '%s' carries a synchronization object, but its "
                "synchronization type is %s; choose one of signature '%s''s "
                "types (%s) with TfLiteAsyncSignatureRunnerSetAttributes "
                "first",
                fn, slot_name(r, slot), kTfLiteSyncTypeNoSyncObj,
                r->signature->key, names);
      return false;
    }
    t->bound[slot] = b->host ? b->bytes : NULL;
  }
  return true;
}

static bool start_worker(TfLiteAsyncSignatureRunner* r) {
  if (r->worker_started) return true;
  if (pthread_create(&r->worker, NULL, worker_main, r) != 0) {
    lg_report(reporter_of(r),
              "TfLiteAsyncSignatureRunnerInvokeAsync: could not start the "
              "worker thread");
    return false;
  }
  r->worker_started = true;
  return true;
}

/* Whether `task` is one of `r`'s (reported when it is another runner's). */
static bool owns(TfLiteAsyncSignatureRunner* r, const TfLiteExecutionTask* task,
                 const char* fn) {
  if (r == NULL || task == NULL) return false;
  if (task->runner == r) return true;
  lg_report(reporter_of(r), "%s: the task belongs to another runner", fn);
  return false;
}

/* Marks the task's buffers in use and the task in flight; the caller holds
 * the lock. */
static void mark_in_flight(TfLiteAsyncSignatureRunner* r,
                           TfLiteExecutionTask* t) {
  for (int slot = 0; slot < num_io(r); ++slot) {
    find_buffer(r, t->handles[slot])->in_flight++;
  }
  t->state = TASK_IN_FLIGHT;
  atomic_fetch_add(&r->interpreter->async_in_flight, 1);
}

/* Points the signature's tensors at the task's buffers, so the async
 * kernel reads its inputs and writes its outputs there (an input or output
 * sync object then signals the buffer itself), keeping their own data. */
static void lend_buffers(TfLiteAsyncSignatureRunner* r,
                         const TfLiteExecutionTask* t) {
  for (int slot = 0; slot < num_io(r); ++slot) {
    TfLiteTensor* tensor = slot_tensor(r, slot);
    r->tensor_data[slot] = tensor->data.raw;
    /* A buffer of the kernel's own type: the kernel finds it by handle. */
    if (t->bound[slot] != NULL) tensor->data.raw = (char*)t->bound[slot];
  }
}

static void take_buffers_back(TfLiteAsyncSignatureRunner* r) {
  for (int slot = 0; slot < num_io(r); ++slot) {
    slot_tensor(r, slot)->data.raw = r->tensor_data[slot];
  }
}

/* Waits for an evaluated task through the async kernel (its outputs are
 * then in the task's buffers); the caller holds the lock. */
static void settle(TfLiteAsyncSignatureRunner* r, TfLiteExecutionTask* t) {
  if (!t->evaluated) return;
  t->evaluated = false;
  TfLiteOpaqueContext* context = (TfLiteOpaqueContext*)&r->subgraph->context;
  pthread_mutex_lock(&r->interpreter->async_execution);
  const TfLiteStatus status = lg_async_kernel_wait(r->kernel, context, t);
  pthread_mutex_unlock(&r->interpreter->async_execution);
  complete(r, t, status);
}

/* The async kernel path: eval (no wait) with the tensors on the task's
 * buffers; the caller holds the lock. */
static TfLiteStatus evaluate(TfLiteAsyncSignatureRunner* r,
                             TfLiteExecutionTask* t) {
  pthread_mutex_lock(&r->interpreter->async_execution);
  lend_buffers(r, t);
  const TfLiteStatus status = lg_async_kernel_eval(
      r->kernel, (TfLiteOpaqueContext*)&r->subgraph->context,
      (TfLiteOpaqueNode*)r->kernel_node, t);
  take_buffers_back(r);
  pthread_mutex_unlock(&r->interpreter->async_execution);
  if (status != kTfLiteOk) return kTfLiteError;
  mark_in_flight(r, t);
  t->evaluated = true;
  return kTfLiteOk;
}

TfLiteStatus TfLiteAsyncSignatureRunnerInvokeAsync(
    TfLiteAsyncSignatureRunner* async_signature_runner,
    TfLiteExecutionTask* task) {
  static const char fn[] = "TfLiteAsyncSignatureRunnerInvokeAsync";
  TfLiteAsyncSignatureRunner* r = async_signature_runner;
  if (!owns(r, task, fn)) return kTfLiteError;
  pthread_mutex_lock(&r->mutex);
  TfLiteStatus status = kTfLiteError;
  if (task->state == TASK_IN_FLIGHT) {
    lg_report(reporter_of(r), "%s: the task is already in flight", fn);
  } else if (!r->prepared) {
    lg_report(reporter_of(r),
              "%s: call TfLiteAsyncSignatureRunnerPrepareBackends again after "
              "SetAttributes",
              fn);
  } else if (r->kernel != NULL) {
    if (bind(r, task)) status = evaluate(r, task);
  } else if (bind(r, task) && start_worker(r)) {
    mark_in_flight(r, task);
    task->next_queued = NULL;
    if (r->queue_tail != NULL) {
      r->queue_tail->next_queued = task;
    } else {
      r->queue_head = task;
    }
    r->queue_tail = task;
    pthread_cond_signal(&r->work_ready);
    status = kTfLiteOk;
  }
  pthread_mutex_unlock(&r->mutex);
  return status;
}

/* Waits under the lock for the task to leave flight. */
static void wait_locked(TfLiteAsyncSignatureRunner* r,
                        const TfLiteExecutionTask* t) {
  while (t->state == TASK_IN_FLIGHT) {
    pthread_cond_wait(&r->task_done, &r->mutex);
  }
}

TfLiteStatus TfLiteAsyncSignatureRunnerWait(
    TfLiteAsyncSignatureRunner* async_signature_runner,
    TfLiteExecutionTask* task) {
  static const char fn[] = "TfLiteAsyncSignatureRunnerWait";
  TfLiteAsyncSignatureRunner* r = async_signature_runner;
  if (!owns(r, task, fn)) return kTfLiteError;
  pthread_mutex_lock(&r->mutex);
  const bool never_run = task->state == TASK_NEVER_RUN;
  settle(r, task);
  wait_locked(r, task);
  pthread_mutex_unlock(&r->mutex);
  if (never_run) {
    lg_report(reporter_of(r),
              "%s: the task was never scheduled (call "
              "TfLiteAsyncSignatureRunnerInvokeAsync first)",
              fn);
    return kTfLiteError;
  }
  return TfLiteExecutionTaskGetStatus(task);
}

TfLiteStatus TfLiteAsyncSignatureRunnerFinish(
    TfLiteAsyncSignatureRunner* async_signature_runner,
    TfLiteExecutionTask* task) {
  TfLiteAsyncSignatureRunner* r = async_signature_runner;
  if (!owns(r, task, "TfLiteAsyncSignatureRunnerFinish")) return kTfLiteError;
  pthread_mutex_lock(&r->mutex);
  settle(r, task);
  wait_locked(r, task);
  TfLiteStatus finished = kTfLiteOk;
  if (r->kernel != NULL && task->state == TASK_DONE) {
    finished = lg_async_kernel_finish(
        r->kernel, (TfLiteOpaqueContext*)&r->subgraph->context, task);
  }
  for (int i = 0; i < r->num_tasks; ++i) {
    if (r->tasks[i] == task) {
      r->tasks[i] = r->tasks[--r->num_tasks];
      break;
    }
  }
  pthread_mutex_unlock(&r->mutex);
  TfLiteStatus status = TfLiteExecutionTaskGetStatus(task);
  if (status == kTfLiteOk) status = finished;
  task_free(task);
  return status;
}

void TfLiteAsyncSignatureRunnerDelete(
    TfLiteAsyncSignatureRunner* signature_runner) {
  TfLiteAsyncSignatureRunner* r = signature_runner;
  if (r == NULL) return;
  pthread_mutex_lock(&r->mutex);
  for (int i = 0; i < r->num_tasks; ++i) settle(r, r->tasks[i]);
  r->stopping = true; /* the worker drains the queue, then stops */
  pthread_cond_signal(&r->work_ready);
  pthread_mutex_unlock(&r->mutex);
  if (r->worker_started) pthread_join(r->worker, NULL);
  for (int i = 0; i < r->num_tasks; ++i) task_free(r->tasks[i]);
  pthread_cond_destroy(&r->task_done);
  pthread_cond_destroy(&r->work_ready);
  pthread_mutex_destroy(&r->mutex);
  runner_free(r);
}
