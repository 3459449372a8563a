/* GPU lowerings of the shape family: RESHAPE, SQUEEZE, CONCATENATION, PAD, PADV2, MIRROR_PAD, SLICE, STRIDED_SLICE, TRANSPOSE, SPLIT, SPLIT_V, TILE, GATHER, DEPTH_TO_SPACE, SPACE_TO_DEPTH.
 * The table holds the ops lowered so far; the others stay on the CPU. */
#include <stddef.h>

#include "delegates/gpu/gpu_lower.h"

const lg_gpu_lowering* lg_gpu_lowerings_shape(int* count) {
  *count = 0;
  return NULL;
}
