/* A delegated partition as a GPU program: what the GPU delegate builds in
 * its kernel's Init, plans and uploads in Prepare and runs in Invoke.
 *
 * Built by lowering each node with its lg_gpu_lowering (gpu_lower.h) into
 * dispatches; lg_gpu_program_prepare then plans device memory by tensor
 * lifetime (gpu_lower.h describes the plan), creates the buffers and uploads
 * the constants; lg_gpu_program_run uploads the partition inputs, records
 * every dispatch, and downloads the partition outputs, except those bound
 * to an application's buffer (lg_gpu_program_bind).
 *
 *   lg_gpu_program* p = lg_gpu_program_create(be, &kernel_cache, context);
 *   for each node: lg_gpu_program_lower_node(p, context, node_index);
 *   lg_gpu_program_set_boundary(p, inputs, outputs);
 *   lg_gpu_program_build_kernels(p);      // pipelines, several at once
 *   lg_gpu_program_prepare(p, context);   // buffers, constants
 *   lg_gpu_program_run(p, context);       // per Invoke
 *   lg_gpu_program_destroy(p);
 *
 * Errors: each call returns kTfLiteError with the reason in
 * lg_gpu_program_error(p). Ownership: the program owns its buffers and
 * dispatches; kernels belong to the kernel cache, which must outlive it.
 * One thread at a time (the backend's rule).
 */
#ifndef LITEGPU_DELEGATES_GPU_GPU_PROGRAM_H_
#define LITEGPU_DELEGATES_GPU_GPU_PROGRAM_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "delegates/backend/gpu_backend.h"
#include "delegates/gpu/gpu_lower.h"
#include "delegates/gpu/gpu_tune.h"
#include "litegpu/gpu_delegate.h"
#include "tensorflow/lite/c/common.h"

/* Kernels built once per (name, defines) and shared by every partition of a
 * delegate, with the work-group tuning when the delegate tunes
 * (SUSTAINED_SPEED; NULL otherwise, and not owned by the cache). */
typedef struct lg_gpu_kernel_cache {
  struct lg_gpu_kernel_entry* entries;
  int count, capacity;
  lg_gpu_tuning* tuning;
} lg_gpu_kernel_cache;

/* Releases every kernel (not the tuning); the cache can be reused. */
void lg_gpu_kernel_cache_release(lg_gpu_kernel_cache* cache,
                                 lg_gpu_backend* be);

lg_gpu_program* lg_gpu_program_create(lg_gpu_backend* be,
                                      lg_gpu_kernel_cache* kernels,
                                      const TfLiteContext* context);
void lg_gpu_program_destroy(lg_gpu_program* p);

/* The partition's nodes and output tensors, before lowering, so that a
 * lowering may absorb a later node (lg_gpu_lower_fuse_add) and the
 * partition can be lowered again at new shapes (lg_gpu_program_relower).
 * Called where GetNodeAndRegistration works (the kernel's Init): the nodes
 * and registrations are copied. Optional: a program without them fuses
 * nothing and cannot be lowered again. */
TfLiteStatus lg_gpu_program_set_partition(lg_gpu_program* p,
                                          TfLiteContext* context,
                                          const TfLiteIntArray* nodes,
                                          const TfLiteIntArray* outputs);

/* Lowers one node with its registered lowering (nothing for a node an
 * earlier lowering absorbed). */
TfLiteStatus lg_gpu_program_lower_node(lg_gpu_program* p,
                                       TfLiteContext* context, int node_index);

/* Whether the node lowers on this backend: runs its lowering without
 * building kernels or touching the device, checking that the backend has
 * every kernel it dispatches. On false, `reason` says why. */
bool lg_gpu_program_can_lower(lg_gpu_backend* be, TfLiteContext* context,
                              const TfLiteNode* node,
                              const TfLiteRegistration* reg, char* reason,
                              size_t size);

/* The partition's boundary (TfLiteDelegateParams' tensors). */
TfLiteStatus lg_gpu_program_set_boundary(lg_gpu_program* p,
                                         const TfLiteIntArray* inputs,
                                         const TfLiteIntArray* outputs);

/* After the last node: builds what the dispatches need before they run
 * (the backend's kernels_prepare: Vulkan's pipelines, created in
 * parallel), so a failure shows while the partition can still go to the
 * CPU. Optional: without it the first dispatches build the same. */
TfLiteStatus lg_gpu_program_build_kernels(lg_gpu_program* p);

/* Plans memory, creates the buffers, uploads the constants, chooses the
 * work-group sizes the lowerings left open when the kernel cache has a
 * tuning (gpu_tune.h) and records the dispatches, once: a later call does
 * nothing (see lg_gpu_program_relower for new shapes). */
TfLiteStatus lg_gpu_program_prepare(lg_gpu_program* p, TfLiteContext* context);

/* Whether `tensor` is an input or an output of the partition. */
bool lg_gpu_program_is_boundary(const lg_gpu_program* p, int tensor);

/* Zero-copy binding: the partition reads input (writes output) `tensor`
 * in `buffer` itself, with no upload (download) at run; NULL unbinds.
 * `buffer` is not owned and must outlive the binding. Refused, with the
 * reason, for a tensor that is not a boundary tensor, one whose device
 * form differs from its host bytes (float16, quantized), a buffer smaller
 * than the tensor, or a tensor sharing its device bytes with another
 * boundary tensor. Before or after prepare (a backend's recording is
 * recorded again). */
TfLiteStatus lg_gpu_program_bind(lg_gpu_program* p, int tensor,
                                 lg_gpu_buffer* buffer);
TfLiteStatus lg_gpu_program_run(lg_gpu_program* p, TfLiteContext* context);

/* lg_gpu_program_run in two halves, for asynchronous execution: enqueue
 * uploads the inputs, submits the dispatches and starts the outputs'
 * download without waiting (on a backend with download_begin); complete
 * waits for it and converts float16 and quantized outputs into their
 * tensors. The input tensors' data stays unchanged and the output tensors'
 * data allocated in between; one run is in flight at a time, and nothing
 * else may use the program's backend until complete returns. */
TfLiteStatus lg_gpu_program_enqueue(lg_gpu_program* p, TfLiteContext* context);
TfLiteStatus lg_gpu_program_complete(lg_gpu_program* p, TfLiteContext* context);

/* Caller synchronization objects around enqueue (the async kernel's;
 * litegpu/async.h). lg_gpu_program_sync_type: the backend's type name, NULL
 * when it takes none; signals_outputs: whether it can hand out objects for
 * outputs (OpenCL's events; Vulkan's timeline points, for bound outputs).
 * wait_for_input, before enqueue, makes the run wait for `native` of
 * `type` before it reads input `tensor` (backend sync_wait_input; on the
 * host when the program converts that input on the host).
 * output_sync_problem: NULL when output `tensor` can be signalled by an
 * object, else why not (converted on the host, bound to a device buffer,
 * a backend that cannot). */
const char* lg_gpu_program_sync_type(const lg_gpu_program* p);
bool lg_gpu_program_signals_outputs(const lg_gpu_program* p);
TfLiteStatus lg_gpu_program_wait_for_input(lg_gpu_program* p, int tensor,
                                           const char* type, void* native);
const char* lg_gpu_program_output_sync_problem(const lg_gpu_program* p,
                                               int tensor);
/* input_sync_type: a second type the backend takes for inputs (Vulkan's
 * VkFence; outputs too where fences_outputs, below), or NULL. Vulkan's output
 * objects are given before the run (signals_before_run): signal_output, before
 * enqueue_run, makes that run signal `native` once its dispatches are done;
 * cancel_syncs forgets the waits and signals given for a run that is not
 * enqueued after all. */
const char* lg_gpu_program_input_sync_type(const lg_gpu_program* p);
bool lg_gpu_program_signals_before_run(const lg_gpu_program* p);
TfLiteStatus lg_gpu_program_signal_output(lg_gpu_program* p, int tensor,
                                          void* native);
void lg_gpu_program_cancel_syncs(lg_gpu_program* p);
/* fences_outputs: outputs take input_sync_type too (Vulkan's VkFence, for
 * bound outputs): fence_output, after enqueue_run, makes `native` signal
 * once everything enqueued so far is done; with `check_only`, before the
 * run, it only refuses an object it could not signal (already
 * signalled). */
bool lg_gpu_program_fences_outputs(const lg_gpu_program* p);
TfLiteStatus lg_gpu_program_fence_output(lg_gpu_program* p, int tensor,
                                         void* native, bool check_only);

/* Runs in flight together, the async kernel's (on a backend with
 * non-blocking downloads): enqueue_run is lg_gpu_program_enqueue whose
 * downloads go to the output tensors' data as it is at enqueue (outputs
 * converted on the host through a staging of the run's own, converted
 * into that data by complete_run), so the tensors may point elsewhere
 * until complete_run, which waits for the run and frees it (on failure
 * too). Another run may be enqueued before complete_run only when
 * overlaps_runs: the backend keeps several downloads pending (OpenCL's
 * in-order queue, Vulkan's readback buffer per download) and no input is
 * converted on the host (its one staging would be overwritten); else the
 * caller completes the run first. release_run drops a run never completed
 * (after a device wait). export_run_sync: an object that signals when the
 * run's downloads are in host memory (the caller's). */
typedef struct lg_gpu_run lg_gpu_run;
bool lg_gpu_program_overlaps_runs(const lg_gpu_program* p);
TfLiteStatus lg_gpu_program_enqueue_run(lg_gpu_program* p,
                                        TfLiteContext* context,
                                        lg_gpu_run** out);
TfLiteStatus lg_gpu_program_complete_run(lg_gpu_program* p, lg_gpu_run* run);
void lg_gpu_program_release_run(lg_gpu_program* p, lg_gpu_run* run);
/* Whether complete_run would return without waiting for the device (false
 * when the backend cannot tell). */
bool lg_gpu_program_run_done(const lg_gpu_program* p, const lg_gpu_run* run);
TfLiteStatus lg_gpu_program_export_run_sync(lg_gpu_program* p,
                                            const lg_gpu_run* run,
                                            void** native);
/* Drops an object export_run_sync handed out that never reached the
 * caller (NULL: no-op). */
void lg_gpu_program_release_sync(lg_gpu_program* p, void* native);

/* Whether a tensor the program reads or writes has another shape in
 * `context` than the one it was lowered at (inputs resized, shapes
 * propagated by the CPU kernels' Prepare). */
bool lg_gpu_program_shapes_changed(const lg_gpu_program* p,
                                   const TfLiteContext* context);

/* A program for old's partition at the current shapes, prepared: each node
 * checked and lowered again; kernels come from the shared cache (a kernel
 * compiles again only when its defines changed); buffers of unchanged size
 * and constants of unchanged bytes move over from `old` instead of being
 * created and uploaded. On failure (a node that does not run on the GPU at
 * these shapes, a device error) returns kTfLiteError with the reason in
 * lg_gpu_program_error(old), and old is as it was.
 * `rebind` (may be NULL) binds the application's buffers to the new
 * program (lg_gpu_program_bind) before it owns what it took from `old`:
 * when it fails, old keeps its buffers and stays runnable. */
typedef TfLiteStatus (*lg_gpu_rebind_fn)(void* user, lg_gpu_program* fresh);
TfLiteStatus lg_gpu_program_relower(lg_gpu_program* old, TfLiteContext* context,
                                    lg_gpu_rebind_fn rebind, void* user,
                                    lg_gpu_program** out);

const char* lg_gpu_program_error(const lg_gpu_program* p);

typedef struct lg_gpu_program_stats {
  int nodes;       /* lowered, absorbed ones included */
  int fused_nodes; /* absorbed into an earlier node's kernel */
  int dispatches;
  uint64_t device_bytes;     /* planned buffers + constants */
  uint64_t unplanned_bytes;  /* what one buffer per tensor would take */
  uint64_t bytes_uploaded;   /* by the last run */
  uint64_t bytes_downloaded; /* by the last run */
} lg_gpu_program_stats;

void lg_gpu_program_get_stats(const lg_gpu_program* p,
                              lg_gpu_program_stats* out);

/* Dispatch timing (litegpu_gpu_delegate_enable_profiling): while on, each
 * run adds each dispatch's time to its total. With a backend that has
 * timed recordings (Vulkan with timestamps) a run replays the dispatches
 * recorded with a device timestamp around each and never waits on the
 * host; otherwise it waits for every dispatch in turn, timing it on the
 * host (lg_gpu_program_profiles_on_host). Turning it on resets the
 * totals. */
void lg_gpu_program_set_profiling(lg_gpu_program* p, bool on);
bool lg_gpu_program_profiles_on_host(const lg_gpu_program* p);

/* Copies up to `capacity` entries, one per dispatch in run order (the
 * partition field left 0), and returns the number of dispatches. */
int lg_gpu_program_profile(const lg_gpu_program* p,
                           litegpu_gpu_dispatch_profile* out, int capacity);

#endif /* LITEGPU_DELEGATES_GPU_GPU_PROGRAM_H_ */
