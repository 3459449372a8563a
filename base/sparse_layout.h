/* Sparse tensors as TFLite's schema stores them (SparsityParameters): the
 * one walk of that format, shared by the model verifier (a malformed
 * layout is rejected at load) and the DENSIFY kernel.
 *
 * A tensor of `rank` dims, `num_blocks` of them split into blocks
 * (block_map[j] is the dim; expanded dim rank + j runs inside a block), is
 * stored as a tree with one level per expanded dim, in traversal_order.
 * A DENSE level visits every index of its dim (dense_size of them); a
 * SPARSE_CSR level visits, below node n of the level above, the indices
 * indices[segments[n]] .. indices[segments[n + 1] - 1]. Nodes are numbered
 * per level in visiting order, so the leaves' numbers are the positions of
 * the stored values. Index vectors hold 1-, 2- or 4-byte unsigned (4:
 * signed) integers, as the schema's Uint8Vector, Uint16Vector and
 * Int32Vector.
 */
#ifndef LITEGPU_BASE_SPARSE_LAYOUT_H_
#define LITEGPU_BASE_SPARSE_LAYOUT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LG_SPARSE_MAX_LEVELS 16
#define LG_SPARSE_DENSE 0
#define LG_SPARSE_CSR 1

typedef struct lg_sparse_index {
  const void* data; /* NULL when count is 0 */
  int32_t count;
  uint8_t bytes; /* 1, 2 or 4 */
} lg_sparse_index;

typedef struct lg_sparse_level {
  int format; /* LG_SPARSE_DENSE or LG_SPARSE_CSR */
  int32_t dense_size;
  lg_sparse_index segments, indices;
} lg_sparse_level;

typedef struct lg_sparse_layout {
  int rank;
  const int32_t* shape; /* the dense shape, rank entries */
  int num_levels;       /* rank + num_blocks */
  const int32_t* traversal_order;
  int num_blocks;
  const int32_t* block_map;
  lg_sparse_level levels[LG_SPARSE_MAX_LEVELS];
} lg_sparse_layout;

/* Entry i of an index vector. */
int64_t lg_sparse_index_at(const lg_sparse_index* v, int64_t i);

/* Checks the layout against its dense shape and the number of stored
 * values; false with the first problem in `why` (a sentence without the
 * tensor's name). */
bool lg_sparse_check(const lg_sparse_layout* layout, uint64_t num_values,
                     char* why, size_t size);

/* Writes every stored value (`elem_size` bytes each) to its place in
 * `dense` (the whole dense tensor, zeroed first). The layout must have
 * passed lg_sparse_check. */
void lg_sparse_densify(const lg_sparse_layout* layout, const void* values,
                       size_t elem_size, void* dense);

#endif /* LITEGPU_BASE_SPARSE_LAYOUT_H_ */
