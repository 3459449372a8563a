/* Private to gpu_delegate.c (the delegate, its partitions and device) and
 * gpu_binding.c (zero-copy binding: buffer handles and the public bind
 * calls): the delegate's state, shared by them. The public API is
 * include/litegpu/gpu_delegate.h. */
#ifndef LITEGPU_DELEGATES_GPU_GPU_DELEGATE_INTERNAL_H_
#define LITEGPU_DELEGATES_GPU_GPU_DELEGATE_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>

#include "delegates/backend/gpu_backend.h"
#include "delegates/gpu/gpu_program.h"
#include "litegpu/gpu_delegate.h"
#include "partition/delegate_kit.h"

/* A backend shared by the delegates created on it (share_device_with) and
 * the buffers made on it: destroyed with the last reference. */
typedef struct lg_gpu_device_ref {
  lg_gpu_backend* backend;
  int refs;
} lg_gpu_device_ref;

void lg_gpu_device_ref_release(lg_gpu_device_ref* device);

typedef struct gpu_delegate gpu_delegate;

/* One delegated partition: its program and the context it runs in. */
struct lg_gpu_run;
struct TfLiteExecutionTask;

/* A task of the async kernel and its run on the device (NULL once
 * completed early, with the status its wait returns). */
typedef struct gpu_task_run {
  struct TfLiteExecutionTask* task;
  struct lg_gpu_run* run;
  TfLiteStatus status;
} gpu_task_run;

typedef struct gpu_partition {
  gpu_delegate* delegate;
  lg_gpu_program* program;
  TfLiteContext* context;
  /* The partition's inputs that a node outside it writes (at Init): such
   * an input cannot be bound, since the GPU would not see the write. */
  TfLiteIntArray* written_outside;
  /* Its asynchronous execution (TfLiteRegistration.async_kernel): eval
   * enqueues the program, wait completes it; NULL when out of memory (the
   * async runner then uses its worker). */
  struct TfLiteAsyncKernel* async_kernel;
  /* Its synchronization types: no_sync_obj, then the backend's (for
   * inputs; for outputs too where the backend can signal them), then its
   * input-only one (Vulkan's VkFence); and the tensors whose type
   * SetAttributes made one of the backend's, with that type. */
  const char* sync_types[3];
  size_t num_input_sync_types, num_output_sync_types;
  int* sync_tensors;
  const char** sync_tensor_types;
  int num_sync_tensors;
  gpu_task_run* runs; /* the tasks evaluated and not yet waited for */
  int num_runs;
} gpu_partition;

/* The partition's async kernel (gpu_async_kernel.c), into
 * part->async_kernel; false without memory. destroy releases it and its
 * synchronization state. */
bool lg_gpu_async_kernel_create(gpu_partition* part);
void lg_gpu_async_kernel_destroy(gpu_partition* part);

/* A buffer handle: a bound buffer and the tensor it holds. */
typedef struct gpu_binding {
  lg_gpu_buffer* buffer; /* the wrapped buffer; NULL: a free handle */
  gpu_partition* part;   /* NULL once the partition is gone */
  int tensor;
} gpu_binding;

struct gpu_delegate {
  TfLiteDelegate base; /* first: the TfLiteDelegate* converts back */
  litegpu_gpu_delegate_options options;
  lg_gpu_device_ref* device;
  lg_gpu_backend* backend; /* device->backend */
  lg_delegate_kit kit;
  lg_gpu_kernel_cache kernels; /* shared by every partition */
  lg_gpu_tuning* tuning;       /* SUSTAINED_SPEED's (kernels.tuning) */
  /* The live partitions, for stats, profiles and binding. */
  gpu_partition** parts;
  int num_parts, parts_capacity;
  bool profiling; /* litegpu_gpu_delegate_enable_profiling */
  /* Buffer handles, indexed by TfLiteBufferHandle. */
  gpu_binding* bindings;
  int num_bindings;
  uint64_t bytes_copied_by_handles;
  char last_error[LG_GPU_ERROR_SIZE + 256];
};

static inline gpu_delegate* lg_gpu_delegate_from(const TfLiteDelegate* d) {
  return (gpu_delegate*)d;
}

/* gpu_binding.c */

/* Installs the buffer-handle callbacks in gd->base. */
void lg_gpu_bindings_install(gpu_delegate* gd);
/* The partition inputs that a node of the execution plan outside
 * `params->nodes_to_replace` writes (called from the kernel's Init, inside
 * the delegate's Prepare); NULL when out of memory. */
TfLiteIntArray* lg_gpu_written_outside(TfLiteContext* context,
                                       const TfLiteDelegateParams* params);
/* After a partition ran: its bound tensors' data is in their buffers. */
void lg_gpu_bindings_ran(gpu_delegate* gd, const gpu_partition* part);
/* Before a partition goes: its bindings stop reaching it. */
void lg_gpu_bindings_forget(gpu_delegate* gd, const gpu_partition* part);
/* Releases every buffer handle left (at the delegate's deletion). */
void lg_gpu_bindings_release(gpu_delegate* gd);

#endif /* LITEGPU_DELEGATES_GPU_GPU_DELEGATE_INTERNAL_H_ */
