/* GPU lowerings of the reduce family: AVERAGE_POOL_2D, MAX_POOL_2D, MEAN, SUM, REDUCE_MAX, SOFTMAX, RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR.
 * The table holds the ops lowered so far; the others stay on the CPU. */
#include <stddef.h>

#include "delegates/gpu/gpu_lower.h"

const lg_gpu_lowering* lg_gpu_lowerings_reduce(int* count) {
  *count = 0;
  return NULL;
}
