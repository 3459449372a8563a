/* Runs one kernel registration on hand-built tensors, with no model file and
 * no interpreter (in the spirit of TFLite Micro's KernelRunner).
 *
 * The runner owns a TfLiteContext, a TfLiteNode and up to
 * LG_KERNEL_RUNNER_MAX_TENSORS tensors. Its context:
 *   - ReportError appends each message to a buffer (lg_kernel_runner_errors);
 *   - ResizeTensor frees the tensor's old dims and takes the new ones (also
 *     on failure, as TFLite's does); a runner-allocated tensor that the
 *     kernel made kTfLiteDynamic gets fresh memory (fill and guard bytes as
 *     below) for its new shape at once, as the interpreter gives it;
 *   - GetTensor returns tensors by index; AddTensors adds tensors (kernel
 *     temporaries), which the runner allocates after Prepare like outputs;
 *   - the delegate-only functions report an error, as outside a delegate;
 *   - impl_ is NULL, so lg_kernel_thread_pool gives the process-wide pool of
 *     one thread (or the runner's own pool, see lg_kernel_runner_set_threads).
 *
 * Tensors added with data == NULL are outputs the runner allocates after a
 * successful Prepare, sized from their (resized) dims, filled with 0xA5 bytes
 * and followed by LG_KERNEL_RUNNER_GUARD_BYTES guard bytes that Invoke checks
 * afterwards: an overwritten guard fails the invoke with a message. Tensors
 * with data point at caller memory that must outlive the runner.
 *
 * Use:
 *   lg_kernel_runner r;
 *   lg_kernel_runner_init(&r, lg_register_ADD(), &params);
 *   int a = lg_kernel_runner_add_tensor(&r, kTfLiteFloat32, dims, 2, x);
 *   int b = lg_kernel_runner_add_tensor(&r, kTfLiteFloat32, dims, 2, y);
 *   int o = lg_kernel_runner_add_tensor(&r, kTfLiteFloat32, NULL, 0, NULL);
 *   lg_kernel_runner_set_inputs(&r, (int[]){a, b}, 2);
 *   lg_kernel_runner_set_outputs(&r, (int[]){o}, 1);
 *   if (lg_kernel_runner_run(&r) != kTfLiteOk)
 * puts(lg_kernel_runner_errors(&r)); const float* out =
 * lg_kernel_runner_tensor(&r, o)->data.f; lg_kernel_runner_release(&r);
 *
 * Not thread safe; one runner per test.
 */
#ifndef LITEGPU_TESTS_SUPPORT_KERNEL_RUNNER_H_
#define LITEGPU_TESTS_SUPPORT_KERNEL_RUNNER_H_

#include <stdbool.h>
#include <stddef.h>

#include "base/thread_pool.h"
#include "runtime/kernels/kernel_context.h"
#include "tensorflow/lite/c/common.h"

#define LG_KERNEL_RUNNER_MAX_TENSORS 16
#define LG_KERNEL_RUNNER_MAX_IO 8
#define LG_KERNEL_RUNNER_GUARD_BYTES 64
#define LG_KERNEL_RUNNER_ERROR_SIZE 4096

typedef struct lg_kernel_runner {
  TfLiteContext context;
  TfLiteNode node;
  const TfLiteRegistration* registration;
  TfLiteTensor tensors[LG_KERNEL_RUNNER_MAX_TENSORS];
  /* Outputs the runner allocated (with guard bytes after `bytes`). */
  void* owned_data[LG_KERNEL_RUNNER_MAX_TENSORS];
  size_t owned_bytes[LG_KERNEL_RUNNER_MAX_TENSORS];
  bool runner_allocates[LG_KERNEL_RUNNER_MAX_TENSORS];
  int num_tensors;
  TfLiteIntArray* inputs;
  TfLiteIntArray* outputs;
  TfLiteIntArray* empty; /* intermediates and temporaries */
  bool initialized;      /* init ran; free is owed */
  bool prepared;         /* the last prepare succeeded */
  /* context.impl_ points here once a pool is set: kernels read it as
   * their environment (runtime/kernels/kernel_context.h). */
  lg_kernel_env env;
  int error_count;
  size_t error_length;
  char errors[LG_KERNEL_RUNNER_ERROR_SIZE];
} lg_kernel_runner;

/* builtin_data is the op's params struct (or NULL); it must outlive the
 * runner. For a custom op, set node.custom_initial_data and
 * custom_initial_data_size before the first prepare: init then gets them,
 * as the interpreter passes a node's custom options. */
void lg_kernel_runner_init(lg_kernel_runner* runner,
                           const TfLiteRegistration* registration,
                           void* builtin_data);
/* Frees what the runner holds (calling the kernel's free if init ran). */
void lg_kernel_runner_release(lg_kernel_runner* runner);

/* Adds a tensor of `rank` dims (copied; dims may be NULL when rank is 0) and
 * returns its index, or -1 when the runner is full or memory runs out. With
 * data == NULL the runner allocates the tensor after Prepare. */
int lg_kernel_runner_add_tensor(lg_kernel_runner* runner, TfLiteType type,
                                const int* dims, int rank, void* data);
/* The tensor at `index` (to adjust fields such as sparsity), or NULL. */
TfLiteTensor* lg_kernel_runner_tensor(lg_kernel_runner* runner, int index);
/* The node's inputs / outputs; an index may be kTfLiteOptionalTensor. */
void lg_kernel_runner_set_inputs(lg_kernel_runner* runner, const int* indices,
                                 int count);
void lg_kernel_runner_set_outputs(lg_kernel_runner* runner, const int* indices,
                                  int count);
/* Runs kernels on a pool of `num_threads` instead of the default pool of 1.
 * kTfLiteError when the pool cannot be created. */
TfLiteStatus lg_kernel_runner_set_threads(lg_kernel_runner* runner,
                                          int num_threads);

/* Calls init (first time only) and prepare, then allocates the outputs. */
TfLiteStatus lg_kernel_runner_prepare(lg_kernel_runner* runner);
/* Calls invoke and checks the outputs' guard bytes. */
TfLiteStatus lg_kernel_runner_invoke(lg_kernel_runner* runner);
/* prepare, then invoke. */
TfLiteStatus lg_kernel_runner_run(lg_kernel_runner* runner);

/* Every message reported so far, one per line ("" when none). */
const char* lg_kernel_runner_errors(const lg_kernel_runner* runner);
void lg_kernel_runner_clear_errors(lg_kernel_runner* runner);

#endif /* LITEGPU_TESTS_SUPPORT_KERNEL_RUNNER_H_ */
