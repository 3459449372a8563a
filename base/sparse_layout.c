/* The sparse tensor walk (sparse_layout.h). */
#include "base/sparse_layout.h"

#include <stdio.h>
#include <string.h>

int64_t lg_sparse_index_at(const lg_sparse_index* v, int64_t i) {
  switch (v->bytes) {
    case 1:
      return ((const uint8_t*)v->data)[i];
    case 2:
      return ((const uint16_t*)v->data)[i];
    default:
      return ((const int32_t*)v->data)[i];
  }
}

/* The block size of original dim d (1 when not blocked) and, for expanded
 * dims, their extent; false when the block levels are malformed. */
typedef struct expanded_dims {
  int64_t size[LG_SPARSE_MAX_LEVELS];  /* per expanded dim */
  int64_t block[LG_SPARSE_MAX_LEVELS]; /* per original dim */
  int block_of[LG_SPARSE_MAX_LEVELS];  /* per original dim: j, or -1 */
} expanded_dims;

static int level_of(const lg_sparse_layout* l, int expanded) {
  for (int k = 0; k < l->num_levels; ++k) {
    if (l->traversal_order[k] == expanded) return k;
  }
  return -1;
}

static bool check_orders(const lg_sparse_layout* l, char* why, size_t size) {
  if (l->rank < 1 || l->num_blocks < 0 || l->num_blocks > l->rank ||
      l->num_levels != l->rank + l->num_blocks ||
      l->num_levels > LG_SPARSE_MAX_LEVELS) {
    snprintf(why, size,
             "its sparsity has %d traversal levels for a %d-D tensor with %d "
             "block dims (want rank + blocks, at most %d)",
             l->num_levels, l->rank, l->num_blocks, LG_SPARSE_MAX_LEVELS);
    return false;
  }
  bool seen[LG_SPARSE_MAX_LEVELS] = {false};
  for (int k = 0; k < l->num_levels; ++k) {
    const int32_t e = l->traversal_order[k];
    if (e < 0 || e >= l->num_levels || seen[e]) {
      snprintf(why, size,
               "its sparsity traversal_order is not a permutation of 0..%d",
               l->num_levels - 1);
      return false;
    }
    seen[e] = true;
  }
  bool blocked[LG_SPARSE_MAX_LEVELS] = {false};
  for (int j = 0; j < l->num_blocks; ++j) {
    const int32_t d = l->block_map[j];
    if (d < 0 || d >= l->rank || blocked[d]) {
      snprintf(why, size,
               "its sparsity block_map entry %d (%d) is not a distinct dim of "
               "the %d-D tensor",
               j, (int)d, l->rank);
      return false;
    }
    blocked[d] = true;
  }
  return true;
}

static bool expand(const lg_sparse_layout* l, expanded_dims* x, char* why,
                   size_t size) {
  for (int d = 0; d < l->rank; ++d) {
    x->block[d] = 1;
    x->block_of[d] = -1;
    if (l->shape[d] < 0) {
      snprintf(why, size, "its dense shape has a negative dim %d", d);
      return false;
    }
  }
  for (int j = 0; j < l->num_blocks; ++j) {
    const int k = level_of(l, l->rank + j);
    const lg_sparse_level* b = &l->levels[k];
    const int32_t d = l->block_map[j];
    if (b->format != LG_SPARSE_DENSE || b->dense_size < 1 ||
        l->shape[d] % b->dense_size != 0) {
      snprintf(why, size,
               "its sparsity block %d (level %d) must be DENSE with a size "
               "dividing dim %d (%d)",
               j, k, (int)d, (int)l->shape[d]);
      return false;
    }
    x->block[d] = b->dense_size;
    x->block_of[d] = j;
    x->size[l->rank + j] = b->dense_size;
  }
  for (int d = 0; d < l->rank; ++d) x->size[d] = l->shape[d] / x->block[d];
  return true;
}

/* A CSR level's segments below `parents` nodes: 0 first, non-decreasing,
 * the number of its indices last, and each index inside its dim. */
static bool check_csr(const lg_sparse_level* v, int k, int64_t parents,
                      int64_t extent, char* why, size_t size) {
  if (v->segments.count != parents + 1 ||
      lg_sparse_index_at(&v->segments, 0) != 0 ||
      lg_sparse_index_at(&v->segments, parents) != v->indices.count) {
    snprintf(why, size,
             "its sparsity level %d (CSR) needs %lld + 1 segments from 0 to "
             "its %d indices, and has %d",
             k, (long long)parents, (int)v->indices.count,
             (int)v->segments.count);
    return false;
  }
  for (int64_t n = 0; n < parents; ++n) {
    if (lg_sparse_index_at(&v->segments, n + 1) <
        lg_sparse_index_at(&v->segments, n)) {
      snprintf(why, size, "its sparsity level %d (CSR) segments decrease", k);
      return false;
    }
  }
  for (int32_t i = 0; i < v->indices.count; ++i) {
    const int64_t x = lg_sparse_index_at(&v->indices, i);
    if (x < 0 || x >= extent) {
      snprintf(why, size,
               "its sparsity level %d (CSR) index %d is %lld, outside its "
               "dim of %lld",
               k, (int)i, (long long)x, (long long)extent);
      return false;
    }
  }
  return true;
}

bool lg_sparse_check(const lg_sparse_layout* l, uint64_t num_values, char* why,
                     size_t size) {
  expanded_dims x;
  if (!check_orders(l, why, size) || !expand(l, &x, why, size)) return false;
  int64_t nodes = 1;
  for (int k = 0; k < l->num_levels; ++k) {
    const lg_sparse_level* v = &l->levels[k];
    const int64_t extent = x.size[l->traversal_order[k]];
    if (v->format == LG_SPARSE_DENSE) {
      if (v->dense_size != extent) {
        snprintf(why, size,
                 "its sparsity level %d (DENSE) has dense_size %d for a dim "
                 "of %lld",
                 k, (int)v->dense_size, (long long)extent);
        return false;
      }
      if (extent > 0 && nodes > INT64_MAX / 4 / extent) {
        snprintf(why, size, "its sparsity levels overflow");
        return false;
      }
      nodes *= extent;
    } else if (v->format == LG_SPARSE_CSR) {
      if (!check_csr(v, k, nodes, extent, why, size)) return false;
      nodes = v->indices.count;
    } else {
      snprintf(why, size, "its sparsity level %d has unknown format %d", k,
               v->format);
      return false;
    }
  }
  if ((uint64_t)nodes != num_values) {
    snprintf(why, size,
             "its sparsity layout places %lld values but the buffer holds "
             "%llu",
             (long long)nodes, (unsigned long long)num_values);
    return false;
  }
  return true;
}

/* The walk's fixed state. */
typedef struct densify_walk {
  const lg_sparse_layout* l;
  expanded_dims x;
  int64_t stride[LG_SPARSE_MAX_LEVELS]; /* per original dim */
  int64_t index[LG_SPARSE_MAX_LEVELS];  /* per expanded dim */
  const char* values;
  size_t elem_size;
  char* dense;
} densify_walk;

static void place(densify_walk* w, int64_t value) {
  const lg_sparse_layout* l = w->l;
  int64_t offset = 0;
  for (int d = 0; d < l->rank; ++d) {
    int64_t c = w->index[d];
    const int j = w->x.block_of[d];
    if (j >= 0) c = c * w->x.block[d] + w->index[l->rank + j];
    offset += c * w->stride[d];
  }
  memcpy(w->dense + (size_t)offset * w->elem_size,
         w->values + (size_t)value * w->elem_size, w->elem_size);
}

static void walk(densify_walk* w, int k, int64_t node) {
  const lg_sparse_layout* l = w->l;
  if (k == l->num_levels) {
    place(w, node);
    return;
  }
  const lg_sparse_level* v = &l->levels[k];
  const int e = l->traversal_order[k];
  if (v->format == LG_SPARSE_DENSE) {
    for (int64_t i = 0; i < v->dense_size; ++i) {
      w->index[e] = i;
      walk(w, k + 1, node * v->dense_size + i);
    }
    return;
  }
  const int64_t end = lg_sparse_index_at(&v->segments, node + 1);
  for (int64_t i = lg_sparse_index_at(&v->segments, node); i < end; ++i) {
    w->index[e] = lg_sparse_index_at(&v->indices, i);
    walk(w, k + 1, i);
  }
}

void lg_sparse_densify(const lg_sparse_layout* l, const void* values,
                       size_t elem_size, void* dense) {
  densify_walk w = {
      .l = l, .values = values, .elem_size = elem_size, .dense = dense};
  char why[8];
  if (!expand(l, &w.x, why, sizeof(why))) return; /* checked before */
  int64_t stride = 1;
  for (int d = l->rank - 1; d >= 0; --d) {
    w.stride[d] = stride;
    stride *= l->shape[d];
  }
  walk(&w, 0, 0);
}
