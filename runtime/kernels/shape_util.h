/* Helpers shared by the shape and data-movement kernels (RESHAPE, CONCAT,
 * SPLIT, SLICE, PAD, TRANSPOSE, GATHER, TILE, DEPTH_TO_SPACE ...).
 *
 * These kernels move elements without looking at them, so one byte-size
 * generic implementation serves every element type: lg_shape_copy describes
 * an N-D copy as loop extents with source and destination strides (in
 * elements, possibly zero or negative) and runs it with memcpy for
 * contiguous rows and fixed-size element moves otherwise.
 *
 * Shape-computing inputs (axis, begin/end, paddings, multiples, shape) are
 * read with lg_shape_read_ints. When every such input is constant the
 * kernel reads it in Prepare; otherwise it marks its outputs dynamic
 * (lg_kernel_set_dynamic) and computes the shapes in Invoke, where
 * context->ResizeTensor reallocates the dynamic outputs.
 *
 * Nothing here allocates, and every failing helper reports "OP: message"
 * through context->ReportError and returns kTfLiteError.
 *
 * Example (TRANSPOSE of a [2,3] matrix of 4-byte elements):
 *   lg_shape_copy copy;
 *   lg_shape_copy_init(&copy, 4);
 *   lg_shape_copy_add_dim(&copy, 3, 1, 2);  // output rows: input columns
 *   lg_shape_copy_add_dim(&copy, 2, 3, 1);
 *   lg_shape_copy_finish(&copy);
 *   lg_shape_copy_run(&copy, input, output);  // writes output rows in order
 */
#ifndef LITEGPU_RUNTIME_KERNELS_SHAPE_UTIL_H_
#define LITEGPU_RUNTIME_KERNELS_SHAPE_UTIL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/c/common.h"

/* The highest tensor rank the shape kernels accept (TFLite's own limits are
 * lower for most of them: 5 for SLICE and STRIDED_SLICE, 6 for TRANSPOSE). */
#define LG_SHAPE_MAX_RANK 8
/* Loop dims of one copy: TILE views a rank-8 tensor as 16 dims. */
#define LG_SHAPE_COPY_MAX_RANK (2 * LG_SHAPE_MAX_RANK)
/* Room for a formatted shape in a message. */
#define LG_SHAPE_TEXT 128

/* A set of TfLiteType values (every type value is below 32). */
#define LG_SHAPE_TYPE(type) (1u << (unsigned)(type))
/* The element types the data-movement kernels accept where TFLite does. */
#define LG_SHAPE_TYPES_MOVE                                      \
  (LG_SHAPE_TYPE(kTfLiteFloat32) | LG_SHAPE_TYPE(kTfLiteInt32) | \
   LG_SHAPE_TYPE(kTfLiteInt64) | LG_SHAPE_TYPE(kTfLiteInt8) |    \
   LG_SHAPE_TYPE(kTfLiteUInt8) | LG_SHAPE_TYPE(kTfLiteInt16) |   \
   LG_SHAPE_TYPE(kTfLiteBool))
/* Index tensors (begin, size, paddings, multiples, shape, axis). */
#define LG_SHAPE_TYPES_INDEX \
  (LG_SHAPE_TYPE(kTfLiteInt32) | LG_SHAPE_TYPE(kTfLiteInt64))

/* Checks `type` is in `allowed`, else reports e.g. "GATHER: input type
 * FLOAT16 is not supported (expected one of FLOAT32, INT32)". `what` names
 * the tensor ("input", "indices"). */
TfLiteStatus lg_shape_check_type(TfLiteContext* context, const char* op,
                                 const char* what, TfLiteType type,
                                 uint32_t allowed);

/* Checks output->type == input->type ("OP: output type X differs from
 * input type Y"). */
TfLiteStatus lg_shape_check_same_type(TfLiteContext* context, const char* op,
                                      const TfLiteTensor* input,
                                      const TfLiteTensor* output);

/* Checks the tensor's shape (lg_kernel_check_shape) and that its rank is at
 * most max_rank ("OP: input rank 9 is above the supported 8"). */
TfLiteStatus lg_shape_check_rank(TfLiteContext* context, const char* op,
                                 const char* what, const TfLiteTensor* tensor,
                                 int max_rank);

/* Reads every element of an INT32 or INT64 tensor (any rank) into values.
 * Errors: another type, more than `capacity` elements, or no data. */
TfLiteStatus lg_shape_read_ints(TfLiteContext* context, const char* op,
                                const char* what, const TfLiteTensor* tensor,
                                int capacity, int64_t* values, int* count);

/* Element i of an INT32 or INT64 tensor whose type and size were checked
 * (lg_shape_check_type with LG_SHAPE_TYPES_INDEX). */
static inline int64_t lg_shape_int_at(const TfLiteTensor* tensor, int64_t i) {
  return tensor->type == kTfLiteInt32 ? (int64_t)tensor->data.i32[i]
                                      : tensor->data.i64[i];
}

/* Resizes `output` to dims[0..rank) (a new array that ResizeTensor owns). */
TfLiteStatus lg_shape_resize(TfLiteContext* context, const char* op,
                             TfLiteTensor* output, const int* dims, int rank);

/* Checks that a tensor about to be read or written has data when it has
 * elements ("OP: input has no data"). */
TfLiteStatus lg_shape_check_data(TfLiteContext* context, const char* op,
                                 const char* what, const TfLiteTensor* tensor);

/* Writes dims[0..rank) as "[2,3]" into buf (cut to fit). Returns buf. */
const char* lg_shape_format_dims(const int* dims, int rank, char* buf,
                                 size_t size);

/* elements * dim, saturating at cap (> 0) so that many large dims cannot
 * overflow a running product; a zero dim still gives 0. For element counts
 * of shapes that the caller then checks against cap - 1. */
static inline int64_t lg_shape_mul_capped(int64_t elements, int64_t dim,
                                          int64_t cap) {
  return dim > 0 && elements > cap / dim ? cap : elements * dim;
}

/* The product of dims[begin..end) (1 when empty). */
int64_t lg_shape_product(const int* dims, int begin, int end);

/* Copies the tensor's dims into dims[] (at most LG_SHAPE_MAX_RANK) and
 * returns the rank. */
int lg_shape_dims(const TfLiteTensor* tensor, int* dims);

/* ---- N-D copies ---------------------------------------------------------*/

typedef struct lg_shape_copy {
  size_t elem_size; /* bytes per element */
  int rank;         /* loop dims, outermost first */
  int dims[LG_SHAPE_COPY_MAX_RANK];
  ptrdiff_t src_stride[LG_SHAPE_COPY_MAX_RANK]; /* in elements */
  ptrdiff_t dst_stride[LG_SHAPE_COPY_MAX_RANK];
  ptrdiff_t src_offset; /* of the first element, in elements */
  ptrdiff_t dst_offset;
  int64_t elements; /* set by lg_shape_copy_finish */
  bool overflow;    /* more than LG_SHAPE_COPY_MAX_RANK dims were added */
  /* The last two dims are copied as tiled 2-D blocks (a transpose: the
   * source is contiguous along dim rank-2, the destination along rank-1). */
  bool blocked;
} lg_shape_copy;

/* An empty copy of one element (rank 0) with zero offsets. */
void lg_shape_copy_init(lg_shape_copy* copy, size_t elem_size);
/* Appends an inner loop dim of `dim` steps. */
void lg_shape_copy_add_dim(lg_shape_copy* copy, int dim, ptrdiff_t src_stride,
                           ptrdiff_t dst_stride);
/* Drops dims of 1, merges neighbouring dims that walk memory as one, counts
 * the elements, and when the innermost dim reads with a stride while another
 * dim reads contiguously (a transpose), moves that dim next to the innermost
 * so that Run copies tiles instead of strided rows. Call once, after the
 * last add_dim. */
void lg_shape_copy_finish(lg_shape_copy* copy);
/* The source element (src_offset included) of destination element k of a
 * copy not yet finished whose dims were added outermost first with
 * row-major destination strides (dst_offset 0): how a kernel that moves
 * STRING elements one at a time follows its copy plan. */
int64_t lg_shape_copy_source(const lg_shape_copy* copy, int64_t k);
/* Runs the copy: dst[dst_offset + sum(i_k * dst_stride_k)] =
 * src[src_offset + sum(i_k * src_stride_k)] for every index. Nothing is
 * read or written when a dim is 0. */
void lg_shape_copy_run(const lg_shape_copy* copy, const void* src, void* dst);

/* Fills `count` elements of elem_size bytes at dst with the value at
 * `value`. */
void lg_shape_fill(void* dst, int64_t count, const void* value,
                   size_t elem_size);

#endif /* LITEGPU_RUNTIME_KERNELS_SHAPE_UTIL_H_ */
