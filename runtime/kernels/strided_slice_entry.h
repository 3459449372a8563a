/* One STRIDED_SLICE entry resolved against one input dim.
 *
 * The one implementation of TFLite's per-entry rules, shared by the CPU
 * kernel (runtime/kernels/slice.c) and the GPU delegate's lowering
 * (delegates/gpu/lower_shape.c), so the two always cut the same box:
 *   - begin/end index from the back when negative and are clamped to the
 *     dim ([0, dim] for a positive stride, [-1, dim-1] for a negative one);
 *   - begin_mask / end_mask bit j ignores begin / end (the whole range in
 *     the stride's direction);
 *   - offset (version 8) reads end as the extent from begin (LiteRT ignores
 *     end_mask then);
 *   - shrink_axis_mask bit j takes the single element at the clamped begin,
 *     whatever the stride's sign (LiteRT computes nothing for a negative
 *     one), and drops the dim.
 * Index values beyond +-2^40 act like +-2^40 (dims are below 2^31); the
 * bound keeps begin + end, stop - start and the rounding free of overflow
 * for INT64 inputs.
 *
 * An entry that would read outside the dim (a shrink index, or an offset
 * slice, out of range) sets `bad`; callers fail only when the whole output
 * has elements, since LiteRT then reads nothing either. ellipsis_mask and
 * new_axis_mask are the caller's business: this sees one regular entry.
 *
 * A pure function on plain values: no allocation, no state, safe from any
 * thread.
 *
 * Example (begin -1, end 0, stride -1 over a dim of 5: indices 4, 3, 2, 1):
 *   lg_strided_entry e;
 *   lg_strided_slice_entry(&params, 0, -1, 0, -1, 5, &e);
 *   // e.start 4, e.step -1, e.count 4, e.keep true, e.bad false
 */
#ifndef LITEGPU_RUNTIME_KERNELS_STRIDED_SLICE_ENTRY_H_
#define LITEGPU_RUNTIME_KERNELS_STRIDED_SLICE_ENTRY_H_

#include <stdbool.h>
#include <stdint.h>

#include "tensorflow/lite/c/builtin_op_data.h"

typedef struct lg_strided_entry {
  int64_t start; /* first index read; 0 when nothing is read */
  int64_t step;  /* the stride, clamped to +-2^40 */
  int64_t count; /* elements taken (1 for a shrunk entry, 0 for dim 0) */
  bool keep;     /* the dim stays in the output (false: shrunk) */
  bool bad;      /* the entry would read outside the dim */
} lg_strided_entry;

/* Resolves entry j (begin, end, stride; stride non-zero) of a slice with
 * options `p` against an input dim of `dim` elements into *out. */
void lg_strided_slice_entry(const TfLiteStridedSliceParams* p, int j,
                            int64_t begin, int64_t end, int64_t stride,
                            int64_t dim, lg_strided_entry* out);

#endif /* LITEGPU_RUNTIME_KERNELS_STRIDED_SLICE_ENTRY_H_ */
