/* Helpers of the shape and data-movement kernels: type and rank checks,
 * index-tensor reading, dynamic outputs and the N-D copy engine. */
#include "runtime/kernels/shape_util.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"

TfLiteStatus lg_shape_check_type(TfLiteContext* context, const char* op,
                                 const char* what, TfLiteType type,
                                 uint32_t allowed) {
  if ((unsigned)type < 32 && (allowed & LG_SHAPE_TYPE(type)) != 0) {
    return kTfLiteOk;
  }
  char names[256];
  size_t used = 0;
  names[0] = '\0';
  for (unsigned t = 0; t < 32 && used < sizeof(names); ++t) {
    if ((allowed & (1u << t)) == 0) continue;
    const int n = snprintf(names + used, sizeof(names) - used, "%s%s",
                           used == 0 ? "" : ", ", TfLiteTypeGetName(t));
    if (n < 0) break;
    used += (size_t)n;
  }
  lg_kernel_log(context, op, "%s type %s is not supported (expected %s%s)",
                what, TfLiteTypeGetName(type),
                (allowed & (allowed - 1)) != 0 ? "one of " : "", names);
  return kTfLiteError;
}

TfLiteStatus lg_shape_check_same_type(TfLiteContext* context, const char* op,
                                      const TfLiteTensor* input,
                                      const TfLiteTensor* output) {
  if (output->type != input->type) {
    lg_kernel_log(context, op, "output type %s differs from input type %s",
                  TfLiteTypeGetName(output->type),
                  TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus lg_shape_check_rank(TfLiteContext* context, const char* op,
                                 const char* what, const TfLiteTensor* tensor,
                                 int max_rank) {
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, what, tensor));
  if (tensor->dims->size > max_rank) {
    char shape[LG_SHAPE_TEXT];
    lg_kernel_log(context, op,
                  "%s shape %s has rank %d, above the supported %d", what,
                  lg_kernel_format_shape(tensor->dims, shape, sizeof(shape)),
                  tensor->dims->size, max_rank);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus lg_shape_read_ints(TfLiteContext* context, const char* op,
                                const char* what, const TfLiteTensor* tensor,
                                int capacity, int64_t* values, int* count) {
  *count = 0;
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, what, tensor->type,
                                            LG_SHAPE_TYPES_INDEX));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, what, tensor));
  const int64_t n = lg_kernel_num_elements(tensor);
  if (n > capacity) {
    lg_kernel_log(context, op, "%s has %lld elements, more than %d", what,
                  (long long)n, capacity);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, what, tensor));
  for (int64_t i = 0; i < n; ++i) {
    values[i] = tensor->type == kTfLiteInt32 ? (int64_t)tensor->data.i32[i]
                                             : tensor->data.i64[i];
  }
  *count = (int)n;
  return kTfLiteOk;
}

TfLiteStatus lg_shape_resize(TfLiteContext* context, const char* op,
                             TfLiteTensor* output, const int* dims, int rank) {
  TfLiteIntArray* shape = TfLiteIntArrayCreate(rank);
  if (shape == NULL) {
    lg_kernel_log(context, op, "out of memory for the output shape");
    return kTfLiteError;
  }
  for (int i = 0; i < rank; ++i) shape->data[i] = dims[i];
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  return context->ResizeTensor(context, output, shape);
}

TfLiteStatus lg_shape_check_data(TfLiteContext* context, const char* op,
                                 const char* what, const TfLiteTensor* tensor) {
  if (tensor->data.raw == NULL && lg_kernel_num_elements(tensor) > 0) {
    lg_kernel_log(context, op, "%s has no data", what);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

const char* lg_shape_format_dims(const int* dims, int rank, char* buf,
                                 size_t size) {
  if (buf == NULL || size == 0) return "";
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i <= rank && used < size; ++i) {
    const int n = i == rank ? snprintf(buf + used, size - used, "%s]",
                                       rank == 0 ? "[" : "")
                            : snprintf(buf + used, size - used, "%s%d",
                                       i == 0 ? "[" : ",", dims[i]);
    if (n < 0) break;
    used += (size_t)n;
  }
  return buf;
}

int64_t lg_shape_product(const int* dims, int begin, int end) {
  int64_t product = 1;
  for (int i = begin; i < end; ++i) product *= dims[i];
  return product;
}

int lg_shape_dims(const TfLiteTensor* tensor, int* dims) {
  const int rank = tensor->dims->size < LG_SHAPE_MAX_RANK ? tensor->dims->size
                                                          : LG_SHAPE_MAX_RANK;
  for (int i = 0; i < rank; ++i) dims[i] = tensor->dims->data[i];
  return rank;
}

/* ---- N-D copies ---------------------------------------------------------*/

void lg_shape_copy_init(lg_shape_copy* copy, size_t elem_size) {
  memset(copy, 0, sizeof(*copy));
  copy->elem_size = elem_size;
  copy->elements = 1;
}

void lg_shape_copy_add_dim(lg_shape_copy* copy, int dim, ptrdiff_t src_stride,
                           ptrdiff_t dst_stride) {
  if (copy->rank >= LG_SHAPE_COPY_MAX_RANK) {
    copy->overflow = true;
    return;
  }
  copy->dims[copy->rank] = dim;
  copy->src_stride[copy->rank] = src_stride;
  copy->dst_stride[copy->rank] = dst_stride;
  copy->rank++;
}

int64_t lg_shape_copy_source(const lg_shape_copy* copy, int64_t k) {
  int64_t source = copy->src_offset;
  for (int j = copy->rank - 1; j >= 0; --j) {
    const int64_t dim = copy->dims[j];
    source += (k % dim) * copy->src_stride[j];
    k /= dim;
  }
  return source;
}

/* Dims shorter than this are not worth tiling. */
#define LG_SHAPE_BLOCK_MIN 4
/* Tile side in elements: 16 x 4-byte elements fill a 64-byte cache line. */
#define LG_SHAPE_TILE 16

/* Sets copy->blocked (see the header) and moves the contiguous source dim
 * next to the innermost one. The loop order of a copy does not change its
 * result: every element is written once from its own source. */
static void lg_shape_copy_pick_block(lg_shape_copy* copy) {
  const int last = copy->rank - 1;
  copy->blocked = false;
  if (last < 1 || copy->dst_stride[last] != 1 || copy->src_stride[last] == 1 ||
      copy->dims[last] < LG_SHAPE_BLOCK_MIN) {
    return;
  }
  int k = last - 1;
  while (k >= 0 && copy->src_stride[k] != 1) --k;
  if (k < 0 || copy->dims[k] < LG_SHAPE_BLOCK_MIN) return;
  const int dim = copy->dims[k];
  const ptrdiff_t ss = copy->src_stride[k], ds = copy->dst_stride[k];
  for (int i = k; i < last - 1; ++i) {
    copy->dims[i] = copy->dims[i + 1];
    copy->src_stride[i] = copy->src_stride[i + 1];
    copy->dst_stride[i] = copy->dst_stride[i + 1];
  }
  copy->dims[last - 1] = dim;
  copy->src_stride[last - 1] = ss;
  copy->dst_stride[last - 1] = ds;
  copy->blocked = true;
}

void lg_shape_copy_finish(lg_shape_copy* copy) {
  int64_t elements = 1;
  for (int k = 0; k < copy->rank; ++k) elements *= copy->dims[k];
  copy->elements = copy->overflow ? 0 : elements;
  /* Walk outermost to innermost, keeping dims > 1 and folding a dim into
   * the kept one before it when the outer one steps exactly over it. */
  int n = 0;
  for (int k = 0; k < copy->rank; ++k) {
    const int d = copy->dims[k];
    if (d == 1) continue;
    const ptrdiff_t ss = copy->src_stride[k], ds = copy->dst_stride[k];
    if (n > 0 && copy->src_stride[n - 1] == ss * d &&
        copy->dst_stride[n - 1] == ds * d) {
      copy->dims[n - 1] *= d;
      copy->src_stride[n - 1] = ss;
      copy->dst_stride[n - 1] = ds;
      continue;
    }
    copy->dims[n] = d;
    copy->src_stride[n] = ss;
    copy->dst_stride[n] = ds;
    ++n;
  }
  if (n == 0) { /* a single element (or an empty copy, never run) */
    copy->dims[0] = 1;
    copy->src_stride[0] = 1;
    copy->dst_stride[0] = 1;
    n = 1;
  }
  copy->rank = n;
  lg_shape_copy_pick_block(copy);
}

/* One innermost row of n elements. Fixed-size memcpy compiles to a single
 * load and store; contiguous rows are one memcpy. */
static void lg_shape_copy_row(const char* src, ptrdiff_t ss, char* dst,
                              ptrdiff_t ds, int n, size_t size) {
  if (ss == 1 && ds == 1) {
    memcpy(dst, src, (size_t)n * size);
    return;
  }
  const ptrdiff_t sb = ss * (ptrdiff_t)size, db = ds * (ptrdiff_t)size;
  switch (size) {
    case 1:
      for (int i = 0; i < n; ++i) dst[i * db] = src[i * sb];
      break;
    case 2:
      for (int i = 0; i < n; ++i) memcpy(dst + i * db, src + i * sb, 2);
      break;
    case 4:
      for (int i = 0; i < n; ++i) memcpy(dst + i * db, src + i * sb, 4);
      break;
    case 8:
      for (int i = 0; i < n; ++i) memcpy(dst + i * db, src + i * sb, 8);
      break;
    default:
      for (int i = 0; i < n; ++i) memcpy(dst + i * db, src + i * sb, size);
      break;
  }
}

/* An na x nb block: element (a, b) goes from src[a * sa + b * sb] to
 * dst[a * da + b * db] (strides in bytes), walked in LG_SHAPE_TILE square
 * tiles so that the strided side stays in cache. `size` is a constant at
 * each call, so the memcpy becomes one load and store. */
static inline __attribute__((always_inline)) void lg_shape_copy_tiles(
    const char* src, ptrdiff_t sa, ptrdiff_t sb, char* dst, ptrdiff_t da,
    ptrdiff_t db, int na, int nb, size_t size) {
  for (int a0 = 0; a0 < na; a0 += LG_SHAPE_TILE) {
    const int a1 = a0 + LG_SHAPE_TILE < na ? a0 + LG_SHAPE_TILE : na;
    for (int b0 = 0; b0 < nb; b0 += LG_SHAPE_TILE) {
      const int b1 = b0 + LG_SHAPE_TILE < nb ? b0 + LG_SHAPE_TILE : nb;
      for (int a = a0; a < a1; ++a) {
        for (int b = b0; b < b1; ++b) {
          memcpy(dst + a * da + b * db, src + a * sa + b * sb, size);
        }
      }
    }
  }
}

/* The last two dims of a blocked copy from the block's first elements. */
static void lg_shape_copy_block(const lg_shape_copy* copy, const char* src,
                                char* dst) {
  const int a = copy->rank - 2, b = copy->rank - 1;
  const ptrdiff_t size = (ptrdiff_t)copy->elem_size;
  const ptrdiff_t sa = copy->src_stride[a] * size,
                  sb = copy->src_stride[b] * size;
  const ptrdiff_t da = copy->dst_stride[a] * size,
                  db = copy->dst_stride[b] * size;
  const int na = copy->dims[a], nb = copy->dims[b];
  switch (copy->elem_size) {
    case 1:
      lg_shape_copy_tiles(src, sa, sb, dst, da, db, na, nb, 1);
      break;
    case 2:
      lg_shape_copy_tiles(src, sa, sb, dst, da, db, na, nb, 2);
      break;
    case 4:
      lg_shape_copy_tiles(src, sa, sb, dst, da, db, na, nb, 4);
      break;
    case 8:
      lg_shape_copy_tiles(src, sa, sb, dst, da, db, na, nb, 8);
      break;
    default:
      lg_shape_copy_tiles(src, sa, sb, dst, da, db, na, nb, copy->elem_size);
      break;
  }
}

void lg_shape_copy_run(const lg_shape_copy* copy, const void* src, void* dst) {
  if (copy->elements <= 0) return;
  const ptrdiff_t size = (ptrdiff_t)copy->elem_size;
  const int last = copy->rank - 1;
  /* The loop dims below `outer` run in the odometer; the rest are one row
   * (or one block). */
  const int outer = copy->blocked ? last - 1 : last;
  int64_t inner = copy->dims[last];
  if (copy->blocked) inner *= copy->dims[last - 1];
  const int64_t rows = copy->elements / inner;
  int index[LG_SHAPE_COPY_MAX_RANK] = {0};
  /* Byte offsets rather than pointers: with negative strides the running
   * position may step outside the tensor between rows. */
  ptrdiff_t s = copy->src_offset * size;
  ptrdiff_t d = copy->dst_offset * size;
  for (int64_t row = 0; row < rows; ++row) {
    if (copy->blocked) {
      lg_shape_copy_block(copy, (const char*)src + s, (char*)dst + d);
    } else {
      lg_shape_copy_row((const char*)src + s, copy->src_stride[last],
                        (char*)dst + d, copy->dst_stride[last],
                        copy->dims[last], copy->elem_size);
    }
    /* Odometer over the outer dims. */
    for (int k = outer - 1; k >= 0; --k) {
      s += copy->src_stride[k] * size;
      d += copy->dst_stride[k] * size;
      if (++index[k] < copy->dims[k]) break;
      s -= copy->src_stride[k] * copy->dims[k] * size;
      d -= copy->dst_stride[k] * copy->dims[k] * size;
      index[k] = 0;
    }
  }
}

void lg_shape_fill(void* dst, int64_t count, const void* value,
                   size_t elem_size) {
  if (count <= 0) return;
  char* out = dst;
  const size_t total = (size_t)count * elem_size;
  if (elem_size == 4 && total <= 256) {
    /* Short runs of 4-byte values (a channel pad per pixel, a block of
     * SPACE_TO_BATCH_ND padding): a plain loop costs less than the
     * doubling copies below. */
    uint32_t word;
    memcpy(&word, value, 4);
    for (size_t i = 0; i < total; i += 4) memcpy(out + i, &word, 4);
    return;
  }
  memcpy(out, value, elem_size);
  /* Doubling copies: each memcpy copies everything filled so far. */
  size_t filled = elem_size;
  while (filled < total) {
    const size_t chunk = filled < total - filled ? filled : total - filled;
    memcpy(out + filled, out, chunk);
    filled += chunk;
  }
}
