/* Helpers shared by the reduce family's kernels (pooling, reductions,
 * resize, arg-min/max, SHAPE, FILL, ZEROS_LIKE).
 *
 * Several of these ops take a shape-like input (axes, a size, dims). When it
 * is a constant of the model the kernel reads it in Prepare and sizes the
 * output there; otherwise the output is made dynamic in Prepare and resized
 * in Invoke, where context->ResizeTensor gives it memory (TFLite's
 * contract for outputs whose shape depends on input values).
 *
 * Nothing here allocates; none reports.
 */
#ifndef LITEGPU_RUNTIME_KERNELS_REDUCE_UTIL_H_
#define LITEGPU_RUNTIME_KERNELS_REDUCE_UTIL_H_

#include <stdbool.h>

#include "tensorflow/lite/c/common.h"

/* Whether the tensor's data is fixed for the interpreter's lifetime (a
 * constant of the model), so that Prepare may read it. */
static inline bool lg_reduce_is_constant(const TfLiteTensor* tensor) {
  return tensor->allocation_type == kTfLiteMmapRo ||
         tensor->allocation_type == kTfLitePersistentRo;
}

/* Makes `output` dynamic: its memory comes from ResizeTensor in Invoke.
 * Memory it had from an earlier plan is dropped (the owner keeps it). */
static inline void lg_reduce_set_dynamic(TfLiteTensor* output) {
  if (output->allocation_type != kTfLiteDynamic) {
    output->allocation_type = kTfLiteDynamic;
    output->data.raw = NULL;
  }
}

#endif /* LITEGPU_RUNTIME_KERNELS_REDUCE_UTIL_H_ */
