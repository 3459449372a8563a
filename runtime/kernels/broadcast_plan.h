/* A loop plan for elementwise kernels over numpy-broadcast inputs.
 *
 * Prepare builds the plan once from the input shapes and the broadcast
 * output shape: output dims of size 1 are dropped and neighbouring dims with
 * the same broadcast pattern (which inputs repeat along them) are merged, so
 * that equal shapes become one flat loop, a scalar operand one loop with a
 * repeated element, [N,C] against [C] two loops, and only genuinely
 * interleaved patterns keep more dims. Each input gets a stride per merged
 * dim, 0 along the dims it repeats.
 *
 * Invoke walks any element range [begin, end) of the output in rows: the
 * callback sees each run of the innermost merged dim with one pointer per
 * input and that input's innermost stride (0 or 1), so it can pick a loop
 * the compiler vectorizes. Ranges let a kernel split the output over
 * threads; the walk neither allocates nor fails.
 *
 * Example (a binary kernel):
 *   Prepare: lg_broadcast_plan_build(&data->plan, 2, (const TfLiteIntArray*[])
 *                {a->dims, b->dims}, out_shape, (size_t[]){4, 4}, 4);
 *   Invoke:  lg_broadcast_plan_walk(&data->plan, 0, data->plan.elements,
 *                (const void*[]){a->data.raw, b->data.raw}, out->data.raw,
 *                row_fn, &args);
 *
 * A plan is plain data (no pointers), safe to read from many threads.
 */
#ifndef LITEGPU_RUNTIME_KERNELS_BROADCAST_PLAN_H_
#define LITEGPU_RUNTIME_KERNELS_BROADCAST_PLAN_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/c/common.h"

/* The highest output rank a plan takes (TFLite's broadcasting kernels go to
 * 6-D; 5-D is their documented contract). */
#define LG_BROADCAST_MAX_RANK 6
/* The most inputs a plan walks together (SELECT_V2 has three). */
#define LG_BROADCAST_MAX_INPUTS 3

typedef struct lg_broadcast_plan {
  int num_inputs;
  /* The merged loop nest, outermost first; rank >= 1. */
  int rank;
  int dims[LG_BROADCAST_MAX_RANK];
  ptrdiff_t strides[LG_BROADCAST_MAX_INPUTS][LG_BROADCAST_MAX_RANK];
  size_t input_size[LG_BROADCAST_MAX_INPUTS]; /* bytes per element */
  size_t output_size;
  int64_t elements; /* of the output */
} lg_broadcast_plan;

/* Called for each row: n output elements at `output`, input k starting at
 * inputs[k] and advancing by strides[k] (0 or 1) elements per output
 * element. */
typedef void (*lg_broadcast_row_fn)(void* ctx, const void* const* inputs,
                                    const ptrdiff_t* strides, void* output,
                                    int n);

/* Builds the plan for `num_inputs` (1..LG_BROADCAST_MAX_INPUTS) inputs of
 * the given shapes, already checked to broadcast to `output` (rank at most
 * LG_BROADCAST_MAX_RANK; every input rank at most the output rank). Element
 * sizes are in bytes. */
void lg_broadcast_plan_build(lg_broadcast_plan* plan, int num_inputs,
                             const TfLiteIntArray* const* inputs,
                             const TfLiteIntArray* output,
                             const size_t* input_sizes, size_t output_size);

/* Calls fn for the rows covering output elements [begin, end) (row-major
 * order), 0 <= begin <= end <= plan->elements. */
void lg_broadcast_plan_walk(const lg_broadcast_plan* plan, int64_t begin,
                            int64_t end, const void* const* inputs,
                            void* output, lg_broadcast_row_fn fn, void* ctx);

#endif /* LITEGPU_RUNTIME_KERNELS_BROADCAST_PLAN_H_ */
