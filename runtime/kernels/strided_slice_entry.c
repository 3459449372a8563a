/* One STRIDED_SLICE entry against one dim (see strided_slice_entry.h). */
#include "runtime/kernels/strided_slice_entry.h"

#include <stdbool.h>
#include <stdint.h>

/* Index values beyond +-2^40 act like +-2^40 (see the header). */
#define LG_STRIDED_LIMIT ((int64_t)1 << 40)

static int64_t lg_strided_clamp(int64_t x, int64_t lo, int64_t hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

/* The element count of a slice from `start` to `stop` (exclusive) in steps
 * of `step`; 0 when the direction is wrong. */
static int64_t lg_strided_count(int64_t start, int64_t stop, int64_t step) {
  const int64_t count = step > 0 ? (stop - start + step - 1) / step
                                 : (start - stop - step - 1) / -step;
  return count < 0 ? 0 : count;
}

void lg_strided_slice_entry(const TfLiteStridedSliceParams* p, int j,
                            int64_t begin, int64_t end, int64_t stride,
                            int64_t dim, lg_strided_entry* out) {
  const int64_t L = LG_STRIDED_LIMIT;
  const int64_t step = lg_strided_clamp(stride, -L, L);
  const int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? dim : dim - 1;
  bool bad = false;
  int64_t start = lg_strided_clamp(begin, -L, L);
  if ((p->begin_mask >> j) & 1) start = step > 0 ? -2 * L : 2 * L;
  if (start < 0) start += dim;
  start = lg_strided_clamp(start, lo, hi);
  int64_t count;
  if (p->offset) {
    /* end is the extent from begin; end_mask does not apply. */
    count = lg_strided_count(0, lg_strided_clamp(end, -L, L), step);
    const int64_t last = start + (count - 1) * step;
    if (count > 0 && (start < 0 || start >= dim || last < 0 || last >= dim)) {
      bad = true;
    }
  } else {
    int64_t stop = lg_strided_clamp(end, -L, L);
    if ((p->end_mask >> j) & 1) stop = step > 0 ? 2 * L : -2 * L;
    if (stop < 0) stop += dim;
    count = lg_strided_count(start, lg_strided_clamp(stop, lo, hi), step);
  }
  if (dim == 0) count = 0;
  out->keep = !((p->shrink_axis_mask >> j) & 1);
  if (!out->keep) {
    /* The single element at the clamped begin, whatever the stride's sign. */
    count = 1;
    if (start < 0 || start >= dim) bad = true;
  }
  out->start = count > 0 && start >= 0 && start < dim ? start : 0;
  out->step = step;
  out->count = count;
  out->bad = bad;
}
