/* Arena planning: places tensors with known lifetimes in one block so that
 * tensors whose lifetimes do not overlap share memory.
 *
 * Greedy by size: requests are placed largest first, each at the lowest
 * aligned offset where it overlaps no already placed request whose lifetime
 * [first_use, last_use] intersects its own. Lifetimes are execution-plan
 * positions, inclusive.
 */
#ifndef LITEGPU_RUNTIME_ARENA_H_
#define LITEGPU_RUNTIME_ARENA_H_

#include <stddef.h>

#include "tensorflow/lite/c/c_api_types.h"

#define LG_ARENA_ALIGNMENT 64

typedef struct lg_arena_request {
  size_t bytes;
  int first_use;
  int last_use;
  size_t offset; /* output of lg_arena_plan */
} lg_arena_request;

/* Assigns every request an offset; *total is the block size needed.
 * kTfLiteError when memory for the plan itself runs out or sizes overflow. */
TfLiteStatus lg_arena_plan(lg_arena_request* requests, int count,
                           size_t alignment, size_t* total);

/* An aligned block that grows and never shrinks until released. */
typedef struct lg_arena {
  void* base;
  size_t capacity;
  size_t planned; /* size the last plan needed */
} lg_arena;

/* Makes the block at least `bytes`; contents are not kept. */
TfLiteStatus lg_arena_reserve(lg_arena* arena, size_t bytes);
void lg_arena_release(lg_arena* arena);

#endif /* LITEGPU_RUNTIME_ARENA_H_ */
