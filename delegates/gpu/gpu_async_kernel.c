/* The GPU delegate's TfLiteAsyncKernel (core/async/c/async_kernel.h): a
 * partition's program run in two halves, eval enqueueing a run
 * (lg_gpu_program_enqueue_run) and wait completing the task's, with the
 * caller's synchronization objects of the backend's type
 * (litegpu/async.h): an input's is waited for before the run reads it, an
 * output's is filled with an object that signals the download into the
 * output's buffer. The async signature runner points the partition's
 * tensors at the task's buffers during eval; the run keeps where they
 * pointed. Several tasks are on the device at once where the program
 * overlaps runs (OpenCL, Vulkan); eval first completes the runs in flight
 * that the device has finished, or all of them where the program does not
 * overlap runs (an input converted on the host); their waits then return
 * the status kept. */
#include <stdlib.h>
#include <string.h>

#include "delegates/gpu/gpu_delegate_internal.h"
#include "delegates/gpu/gpu_program.h"
#include "tensorflow/lite/core/async/c/async_kernel.h"
#include "tensorflow/lite/core/async/c/task.h"
#include "tensorflow/lite/core/async/interop/c/constants.h"

static bool is_sync_tensor(const gpu_partition* part, int tensor) {
  for (int i = 0; i < part->num_sync_tensors; ++i) {
    if (part->sync_tensors[i] == tensor) return true;
  }
  return false;
}

static bool is_node_output(const TfLiteNode* node, int tensor) {
  for (int i = 0; i < node->outputs->size; ++i) {
    if (node->outputs->data[i] == tensor) return true;
  }
  return false;
}

static void supported_synchronizations(const TfLiteAsyncKernel* kernel,
                                       TfLiteIoType io_type,
                                       const char* const** types,
                                       size_t* num_types) {
  const gpu_partition* part = TfLiteAsyncKernelGetKernelData(kernel);
  *types = part->sync_types;
  *num_types = io_type == kTfLiteIoTypeOutput ? part->num_output_sync_types
                                              : part->num_input_sync_types;
}

/* The backend's type named `type` (the backend's own string), or NULL. */
static const char* backend_sync_type(const gpu_partition* part,
                                     const char* type) {
  for (size_t i = 1; i < part->num_input_sync_types; ++i) {
    if (strcmp(type, part->sync_types[i]) == 0) return part->sync_types[i];
  }
  return NULL;
}

static void forget_sync_tensor(gpu_partition* part, int i) {
  const int last = --part->num_sync_tensors;
  part->sync_tensors[i] = part->sync_tensors[last];
  part->sync_tensor_types[i] = part->sync_tensor_types[last];
}

static bool grow_sync_tensors(gpu_partition* part) {
  const size_t n = (size_t)part->num_sync_tensors + 1;
  int* tensors = realloc(part->sync_tensors, sizeof(int) * n);
  if (tensors != NULL) part->sync_tensors = tensors;
  const char** types =
      realloc(part->sync_tensor_types, sizeof(const char*) * n);
  if (types != NULL) part->sync_tensor_types = types;
  return tensors != NULL && types != NULL;
}

/* Records which of the backend's synchronization types `tensor` takes, if
 * any. */
static TfLiteStatus set_attributes(TfLiteAsyncKernel* kernel,
                                   TfLiteOpaqueContext* opaque_context,
                                   TfLiteOpaqueNode* node, int tensor,
                                   const TfLiteAttributeMap* attrs) {
  (void)node;
  gpu_partition* part = TfLiteAsyncKernelGetKernelData(kernel);
  TfLiteContext* context = (TfLiteContext*)opaque_context;
  const char* type = NULL;
  if (!TfLiteAttributeMapIsSyncAttributeMap(attrs) ||
      !TfLiteAttributeMapGetStringSyncAttr(
          attrs, kTfLiteSynchronizationAttrKeyObjectTypeName, &type)) {
    return kTfLiteOk; /* buffers: the runner's (host memory) */
  }
  const char* wanted = backend_sync_type(part, type);
  if (wanted == NULL && strcmp(type, kTfLiteSyncTypeNoSyncObj) != 0) {
    context->ReportError(context,
                         "TfLiteGpuDelegate async SetAttributes: tensor %d: "
                         "synchronization type '%s' is not this backend's",
                         tensor, type);
    return kTfLiteError;
  }
  for (int i = 0; i < part->num_sync_tensors; ++i) {
    if (part->sync_tensors[i] != tensor) continue;
    if (wanted == NULL) {
      forget_sync_tensor(part, i);
    } else {
      part->sync_tensor_types[i] = wanted;
    }
    return kTfLiteOk;
  }
  if (wanted == NULL) return kTfLiteOk;
  if (!grow_sync_tensors(part)) {
    context->ReportError(
        context, "TfLiteGpuDelegate async SetAttributes: out of memory");
    return kTfLiteError;
  }
  part->sync_tensors[part->num_sync_tensors] = tensor;
  part->sync_tensor_types[part->num_sync_tensors++] = wanted;
  return kTfLiteOk;
}

/* The synchronization type `tensor` takes (SetAttributes), or NULL. */
static const char* sync_tensor_type(const gpu_partition* part, int tensor) {
  for (int i = 0; i < part->num_sync_tensors; ++i) {
    if (part->sync_tensors[i] == tensor) return part->sync_tensor_types[i];
  }
  return NULL;
}

/* Whether output `tensor` takes a fence signalled after the run
 * (lg_gpu_program_fence_output) rather than an object given before it. */
static bool is_fence_output(const gpu_partition* part, int tensor) {
  const char* type = sync_tensor_type(part, tensor);
  return lg_gpu_program_fences_outputs(part->program) && type != NULL &&
         strcmp(type, lg_gpu_program_input_sync_type(part->program)) == 0;
}

/* The task's synchronization of `tensor` when the tensor takes the
 * backend's type, else NULL. */
static TfLiteSynchronization* task_sync(const gpu_partition* part,
                                        TfLiteExecutionTask* task, int tensor) {
  if (!is_sync_tensor(part, tensor)) return NULL;
  return TfLiteExecutionTaskGetSyncByIndex(task, tensor);
}

/* Refuses, before anything runs, an output sync the program cannot
 * signal. */
static TfLiteStatus check_output_syncs(gpu_partition* part,
                                       TfLiteContext* context,
                                       const TfLiteNode* node,
                                       TfLiteExecutionTask* task) {
  for (int i = 0; i < node->outputs->size; ++i) {
    const int tensor = node->outputs->data[i];
    if (task_sync(part, task, tensor) == NULL) continue;
    const char* why = lg_gpu_program_output_sync_problem(part->program, tensor);
    if (why != NULL) {
      const char* name = context->tensors[tensor].name;
      context->ReportError(context,
                           "TfLiteGpuDelegate async Eval: output '%s' (tensor "
                           "%d) cannot carry a %s: %s",
                           name ? name : "", tensor,
                           sync_tensor_type(part, tensor), why);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

/* Profiling that times each dispatch on the host (a backend without
 * device timestamps) waits for every dispatch inside Eval: with an input's
 * object the device waits for, Eval would block until the caller signals
 * it. Refused before anything is taken, naming the input. */
static TfLiteStatus check_profiled_inputs(gpu_partition* part,
                                          TfLiteContext* context,
                                          const TfLiteNode* node,
                                          TfLiteExecutionTask* task) {
  if (!lg_gpu_program_profiles_on_host(part->program)) return kTfLiteOk;
  for (int i = 0; i < part->num_sync_tensors; ++i) {
    const int tensor = part->sync_tensors[i];
    if (is_node_output(node, tensor) ||
        TfLiteSynchronizationGetPtr(task_sync(part, task, tensor)) == NULL) {
      continue;
    }
    const char* name = context->tensors[tensor].name;
    context->ReportError(
        context,
        "TfLiteGpuDelegate async Eval: input '%s' (tensor %d) carries a %s, "
        "but dispatch profiling on this device waits for each dispatch on "
        "the host, which would block InvokeAsync until it signals: turn "
        "profiling off (litegpu_gpu_delegate_enable_profiling) or give no "
        "synchronization object",
        name ? name : "", tensor, part->sync_tensor_types[i]);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Makes the run wait for every input's synchronization object; each is
 * consumed (the task's pointer set to NULL). */
static TfLiteStatus wait_for_inputs(gpu_partition* part, const TfLiteNode* node,
                                    TfLiteExecutionTask* task) {
  TfLiteStatus status = kTfLiteOk;
  for (int i = 0; i < part->num_sync_tensors; ++i) {
    const int tensor = part->sync_tensors[i];
    if (is_node_output(node, tensor)) continue;
    TfLiteSynchronization* sync = task_sync(part, task, tensor);
    void* native = TfLiteSynchronizationGetPtr(sync);
    if (native == NULL) continue;
    TfLiteSynchronizationSetPtr(sync, NULL);
    const char* type = part->sync_tensor_types[i];
    if (status == kTfLiteOk) {
      status =
          lg_gpu_program_wait_for_input(part->program, tensor, type, native);
    } else {
      /* Still consumed: a wait that runs at once releases it. */
      lg_gpu_program_wait_for_input(part->program, tensor, type, native);
    }
  }
  return status;
}

/* The task's entry in part->runs, or NULL. */
static gpu_task_run* find_run(gpu_partition* part,
                              const TfLiteExecutionTask* task) {
  for (int i = 0; i < part->num_runs; ++i) {
    if (part->runs[i].task == task) return &part->runs[i];
  }
  return NULL;
}

/* Completes the runs still on the device (their waits return the status
 * kept here): every one when the program cannot take another beside them,
 * else those the device has finished (`done_only`), which lets the next
 * run start on an idle device, the cheaper way where device memory is
 * host-mapped (direct uploads, no queue copies). */
static void complete_runs(gpu_partition* part, TfLiteContext* context,
                          bool done_only) {
  for (int i = 0; i < part->num_runs; ++i) {
    gpu_task_run* e = &part->runs[i];
    if (e->run == NULL) continue;
    if (done_only && !lg_gpu_program_run_done(part->program, e->run)) continue;
    e->status = lg_gpu_program_complete_run(part->program, e->run);
    e->run = NULL;
    if (e->status != kTfLiteOk) {
      context->ReportError(context, "TfLiteGpuDelegate async Wait: %s",
                           lg_gpu_program_error(part->program));
    }
  }
}

/* Records `run` for `task` (replacing a settled entry of the task). */
static bool add_run(gpu_partition* part, TfLiteExecutionTask* task,
                    lg_gpu_run* run) {
  gpu_task_run* e = find_run(part, task);
  if (e == NULL) {
    gpu_task_run* grown =
        realloc(part->runs, sizeof(*grown) * (size_t)(part->num_runs + 1));
    if (grown == NULL) return false;
    part->runs = grown;
    e = &part->runs[part->num_runs++];
  }
  *e = (gpu_task_run){task, run, kTfLiteOk};
  return true;
}

static void remove_run(gpu_partition* part, gpu_task_run* e) {
  *e = part->runs[--part->num_runs];
}

/* Reports the program's error for output `tensor`, naming it. */
static TfLiteStatus output_failed(const gpu_partition* part,
                                  TfLiteContext* context, int tensor) {
  const char* name = context->tensors[tensor].name;
  context->ReportError(context,
                       "TfLiteGpuDelegate async Eval: output '%s' (tensor %d): "
                       "%s",
                       name ? name : "", tensor,
                       lg_gpu_program_error(part->program));
  return kTfLiteError;
}

/* Backends that take the caller's output objects before the run
 * (Vulkan's timeline points): the run enqueued next signals each. */
static TfLiteStatus signal_outputs(gpu_partition* part, TfLiteContext* context,
                                   const TfLiteNode* node,
                                   TfLiteExecutionTask* task) {
  if (!lg_gpu_program_signals_before_run(part->program)) return kTfLiteOk;
  for (int i = 0; i < node->outputs->size; ++i) {
    const int tensor = node->outputs->data[i];
    void* native = TfLiteSynchronizationGetPtr(task_sync(part, task, tensor));
    if (native == NULL || is_fence_output(part, tensor)) continue;
    if (lg_gpu_program_signal_output(part->program, tensor, native) !=
        kTfLiteOk) {
      return output_failed(part, context, tensor);
    }
  }
  return kTfLiteOk;
}

/* Takes back the objects export_outputs handed out for node outputs
 * [0, upto) (the caller never saw them: eval fails). */
static void take_back_outputs(gpu_partition* part, const TfLiteNode* node,
                              TfLiteExecutionTask* task, int upto) {
  for (int i = 0; i < upto; ++i) {
    TfLiteSynchronization* sync = task_sync(part, task, node->outputs->data[i]);
    if (sync == NULL) continue;
    lg_gpu_program_release_sync(part->program,
                                TfLiteSynchronizationGetPtr(sync));
    TfLiteSynchronizationSetPtr(sync, NULL);
  }
}

/* Fills each output's synchronization with an object of its own; on a
 * failure, none stays handed out and the error names the tensor. */
static TfLiteStatus export_outputs(gpu_partition* part, TfLiteContext* context,
                                   const TfLiteNode* node,
                                   TfLiteExecutionTask* task,
                                   const lg_gpu_run* run) {
  if (lg_gpu_program_signals_before_run(part->program)) return kTfLiteOk;
  for (int i = 0; i < node->outputs->size; ++i) {
    const int tensor = node->outputs->data[i];
    TfLiteSynchronization* sync = task_sync(part, task, tensor);
    if (sync == NULL) continue;
    void* native = NULL;
    if (lg_gpu_program_export_run_sync(part->program, run, &native) !=
        kTfLiteOk) {
      take_back_outputs(part, node, task, i);
      return output_failed(part, context, tensor);
    }
    TfLiteSynchronizationSetPtr(sync, native);
  }
  return kTfLiteOk;
}

/* Backends that signal the caller's fences after the run (Vulkan's
 * VkFence): each output's fence signals once the run enqueued is done
 * (`check_only`, before the run: each is checked, none signalled). */
static TfLiteStatus fence_outputs(gpu_partition* part, TfLiteContext* context,
                                  const TfLiteNode* node,
                                  TfLiteExecutionTask* task, bool check_only) {
  for (int i = 0; i < node->outputs->size; ++i) {
    const int tensor = node->outputs->data[i];
    if (!is_fence_output(part, tensor)) continue;
    void* native = TfLiteSynchronizationGetPtr(task_sync(part, task, tensor));
    if (native == NULL) continue;
    if (lg_gpu_program_fence_output(part->program, tensor, native,
                                    check_only) != kTfLiteOk) {
      return output_failed(part, context, tensor);
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus async_eval(TfLiteAsyncKernel* kernel,
                               TfLiteOpaqueContext* opaque_context,
                               TfLiteOpaqueNode* opaque_node,
                               TfLiteExecutionTask* task) {
  gpu_partition* part = TfLiteAsyncKernelGetKernelData(kernel);
  TfLiteContext* context = (TfLiteContext*)opaque_context;
  const TfLiteNode* node = (const TfLiteNode*)opaque_node;
  if (check_output_syncs(part, context, node, task) != kTfLiteOk ||
      check_profiled_inputs(part, context, node, task) != kTfLiteOk ||
      fence_outputs(part, context, node, task, true) != kTfLiteOk) {
    return kTfLiteError;
  }
  complete_runs(part, context, lg_gpu_program_overlaps_runs(part->program));
  lg_gpu_run* run = NULL;
  if (wait_for_inputs(part, node, task) != kTfLiteOk) {
    lg_gpu_program_cancel_syncs(part->program);
    context->ReportError(context, "TfLiteGpuDelegate async Eval: %s",
                         lg_gpu_program_error(part->program));
    return kTfLiteError;
  }
  if (signal_outputs(part, context, node, task) != kTfLiteOk) {
    lg_gpu_program_cancel_syncs(part->program);
    return kTfLiteError;
  }
  if (lg_gpu_program_enqueue_run(part->program, context, &run) != kTfLiteOk) {
    /* Refused before a submission (a run already in flight, out of
     * memory): the waits and signals given for it must not go with the
     * next one. */
    lg_gpu_program_cancel_syncs(part->program);
    context->ReportError(context, "TfLiteGpuDelegate async Eval: %s",
                         lg_gpu_program_error(part->program));
    return kTfLiteError;
  }
  if (export_outputs(part, context, node, task, run) != kTfLiteOk ||
      fence_outputs(part, context, node, task, false) != kTfLiteOk) {
    /* Not in flight for the runner: drop the run here. */
    lg_gpu_program_release_run(part->program, run);
    return kTfLiteError;
  }
  if (!add_run(part, task, run)) {
    take_back_outputs(part, node, task, node->outputs->size);
    context->ReportError(context,
                         "TfLiteGpuDelegate async Eval: out of memory");
    lg_gpu_program_release_run(part->program, run);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus async_wait(TfLiteAsyncKernel* kernel,
                               TfLiteOpaqueContext* opaque_context,
                               TfLiteExecutionTask* task) {
  gpu_partition* part = TfLiteAsyncKernelGetKernelData(kernel);
  TfLiteContext* context = (TfLiteContext*)opaque_context;
  gpu_task_run* e = find_run(part, task);
  if (e == NULL) {
    context->ReportError(context,
                         "TfLiteGpuDelegate async Wait: the task has no run "
                         "in flight");
    return kTfLiteError;
  }
  TfLiteStatus status = e->status;
  if (e->run != NULL) {
    status = lg_gpu_program_complete_run(part->program, e->run);
    if (status != kTfLiteOk) {
      context->ReportError(context, "TfLiteGpuDelegate async Wait: %s",
                           lg_gpu_program_error(part->program));
    }
  }
  remove_run(part, e);
  lg_gpu_bindings_ran(part->delegate, part);
  return status;
}

bool lg_gpu_async_kernel_create(gpu_partition* part) {
  part->async_kernel = TfLiteAsyncKernelCreate(part);
  if (part->async_kernel == NULL) return false;
  part->sync_types[0] = kTfLiteSyncTypeNoSyncObj;
  part->num_input_sync_types = part->num_output_sync_types = 1;
  const char* type = lg_gpu_program_sync_type(part->program);
  if (type != NULL) {
    part->sync_types[1] = type;
    part->num_input_sync_types = 2;
    if (lg_gpu_program_signals_outputs(part->program)) {
      part->num_output_sync_types = 2;
    }
    const char* second = lg_gpu_program_input_sync_type(part->program);
    if (second != NULL) {
      part->sync_types[part->num_input_sync_types++] = second;
      /* Listed after the first: outputs may take it too. */
      if (part->num_output_sync_types == 2 &&
          lg_gpu_program_fences_outputs(part->program)) {
        part->num_output_sync_types = 3;
      }
    }
  }
  TfLiteAsyncKernelSetSupportedSynchronizations(part->async_kernel,
                                                supported_synchronizations);
  TfLiteAsyncKernelSetSetAttributes(part->async_kernel, set_attributes);
  TfLiteAsyncKernelSetEval(part->async_kernel, async_eval);
  TfLiteAsyncKernelSetWait(part->async_kernel, async_wait);
  return true;
}

void lg_gpu_async_kernel_destroy(gpu_partition* part) {
  for (int i = 0; i < part->num_runs; ++i) {
    lg_gpu_program_release_run(part->program, part->runs[i].run);
  }
  free(part->runs);
  part->runs = NULL;
  part->num_runs = 0;
  TfLiteAsyncKernelDelete(part->async_kernel);
  part->async_kernel = NULL;
  free(part->sync_tensors);
  part->sync_tensors = NULL;
  free(part->sync_tensor_types);
  part->sync_tensor_types = NULL;
  part->num_sync_tensors = 0;
}
