/* Greedy-by-size arena planning (see arena.h). */
#include "runtime/arena.h"

#include <stdint.h>
#include <stdlib.h>

static size_t align_up(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

static int lifetimes_overlap(const lg_arena_request* a,
                             const lg_arena_request* b) {
  return a->first_use <= b->last_use && b->first_use <= a->last_use;
}

/* A sort key that carries what the comparison needs, so qsort needs no
 * global state (interpreters on different threads plan concurrently). */
typedef struct sort_key {
  size_t bytes;
  int first_use;
  int index;
} sort_key;

/* Larger first; ties by earlier first use, then index: deterministic. */
static int compare_keys(const void* pa, const void* pb) {
  const sort_key* a = pa;
  const sort_key* b = pb;
  if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
  if (a->first_use != b->first_use) return a->first_use < b->first_use ? -1 : 1;
  return a->index - b->index;
}

/* Insertion sort of placed indices by offset keeps the gap search linear. */
static void insert_by_offset(int* placed, int count, int index,
                             const lg_arena_request* requests) {
  int i = count;
  while (i > 0 && requests[placed[i - 1]].offset > requests[index].offset) {
    placed[i] = placed[i - 1];
    --i;
  }
  placed[i] = index;
}

/* The lowest aligned offset where `r` fits between the placed requests that
 * are alive at the same time. */
static size_t find_offset(const lg_arena_request* r,
                          const lg_arena_request* requests, const int* placed,
                          int num_placed, size_t alignment) {
  size_t candidate = 0;
  for (int i = 0; i < num_placed; ++i) {
    const lg_arena_request* other = &requests[placed[i]];
    if (!lifetimes_overlap(r, other)) continue;
    if (other->offset >= candidate && other->offset - candidate >= r->bytes) {
      break; /* fits in the gap before `other` */
    }
    size_t end = align_up(other->offset + other->bytes, alignment);
    if (end > candidate) candidate = end;
  }
  return candidate;
}

TfLiteStatus lg_arena_plan(lg_arena_request* requests, int count,
                           size_t alignment, size_t* total) {
  *total = 0;
  if (count <= 0) return kTfLiteOk;
  if (alignment == 0) alignment = LG_ARENA_ALIGNMENT;
  sort_key* order = malloc(sizeof(sort_key) * (size_t)count);
  int* placed = malloc(sizeof(int) * (size_t)count);
  if (order == NULL || placed == NULL) goto fail;
  for (int i = 0; i < count; ++i) {
    if (requests[i].bytes > SIZE_MAX / 2) goto fail;
    order[i] = (sort_key){requests[i].bytes, requests[i].first_use, i};
  }
  qsort(order, (size_t)count, sizeof(sort_key), compare_keys);
  size_t needed = 0;
  int num_placed = 0;
  for (int k = 0; k < count; ++k) {
    const int index = order[k].index;
    lg_arena_request* r = &requests[index];
    r->offset = r->bytes == 0
                    ? 0
                    : find_offset(r, requests, placed, num_placed, alignment);
    if (r->bytes == 0) continue; /* empty tensors take no room */
    insert_by_offset(placed, num_placed++, index, requests);
    size_t end = align_up(r->offset + r->bytes, alignment);
    if (end > needed) needed = end;
  }
  free(order);
  free(placed);
  *total = needed;
  return kTfLiteOk;
fail:
  free(order);
  free(placed);
  return kTfLiteError;
}

TfLiteStatus lg_arena_reserve(lg_arena* arena, size_t bytes) {
  arena->planned = bytes;
  if (bytes <= arena->capacity && arena->base != NULL) return kTfLiteOk;
  size_t rounded = align_up(bytes == 0 ? 1 : bytes, LG_ARENA_ALIGNMENT);
  void* block = aligned_alloc(LG_ARENA_ALIGNMENT, rounded);
  if (block == NULL) return kTfLiteError;
  free(arena->base);
  arena->base = block;
  arena->capacity = rounded;
  return kTfLiteOk;
}

void lg_arena_release(lg_arena* arena) {
  if (arena == NULL) return;
  free(arena->base);
  arena->base = NULL;
  arena->capacity = 0;
  arena->planned = 0;
}
