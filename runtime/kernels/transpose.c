/* TRANSPOSE: output dim i is input dim perm[i], for any permutation of up
 * to LG_SHAPE_MAX_RANK dims (TFLite itself stops at 6).
 *
 * perm is a 1-D INT32 or INT64 tensor holding each of 0..rank-1 once
 * (negative entries count from the end, as in LiteRT; LiteRT itself reads
 * perm as INT32 whatever its type). The
 * copy walks the output in order and reads the input with the permuted
 * strides; lg_shape_copy drops dims of 1 and merges dims that stay
 * neighbours, so e.g. NHWC -> NCHW runs as a 3-D copy and an identity
 * permutation as one memcpy. A non-constant perm makes the output dynamic.
 *
 * 4-byte elements whose copy merges to at most 3 loop dims (attention's
 * head splits and merges, [1,S,H,D] <-> [1,H,S,D] and [1,S,H,D] ->
 * [1,H,D,S]) skip the general odometer: short contiguous rows are moved
 * inline rather than through a memcpy call per row, and 2-D transposes run
 * in 4 x 4 SSE blocks (lg_gemm_pack_rows).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_TRANSPOSE_OP "TRANSPOSE"

enum {
  kInputTensor = 0,
  kPermTensor = 1,
  kOutputTensor = 0,
};

typedef struct lg_transpose_data {
  bool prepared;
  bool dynamic; /* the plan is built in Invoke */
  lg_shape_copy copy;
  int64_t elements;
} lg_transpose_data;

static void* lg_transpose_init(TfLiteContext* context, const char* buffer,
                               size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_transpose_data));
}

/* Reads and checks perm into perm[0..rank). */
static TfLiteStatus lg_transpose_read_perm(TfLiteContext* context,
                                           const TfLiteTensor* tensor, int rank,
                                           int* perm) {
  char shape[LG_SHAPE_TEXT];
  if (tensor->dims == NULL || tensor->dims->size != 1 ||
      tensor->dims->data[0] != rank) {
    lg_kernel_log(context, LG_TRANSPOSE_OP,
                  "perm must be 1-D with %d elements (the input rank), got %s",
                  rank,
                  lg_kernel_format_shape(tensor->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  int64_t values[LG_SHAPE_MAX_RANK];
  int count = 0;
  TF_LITE_ENSURE_STATUS(lg_shape_read_ints(context, LG_TRANSPOSE_OP, "perm",
                                           tensor, LG_SHAPE_MAX_RANK, values,
                                           &count));
  bool seen[LG_SHAPE_MAX_RANK] = {false};
  for (int i = 0; i < rank; ++i) {
    /* Negative entries count from the end, as in LiteRT. */
    const int64_t p = values[i] < 0 ? values[i] + rank : values[i];
    if (p < 0 || p >= rank || seen[p]) {
      lg_kernel_log(context, LG_TRANSPOSE_OP,
                    "perm[%d] = %lld: perm must hold each dim of 0..%d (or "
                    "-%d..-1) once",
                    i, (long long)values[i], rank - 1, rank);
      return kTfLiteError;
    }
    seen[p] = true;
    perm[i] = (int)p;
  }
  return kTfLiteOk;
}

/* Reads perm, plans the copy and resizes the output. */
static TfLiteStatus lg_transpose_build(TfLiteContext* context, TfLiteNode* node,
                                       lg_transpose_data* data) {
  const TfLiteTensor *input, *perm_tensor;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_TRANSPOSE_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, LG_TRANSPOSE_OP,
                                        kPermTensor, &perm_tensor));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_TRANSPOSE_OP, kOutputTensor, &output));
  int in_dims[LG_SHAPE_MAX_RANK], perm[LG_SHAPE_MAX_RANK];
  const int rank = lg_shape_dims(input, in_dims);
  TF_LITE_ENSURE_STATUS(
      lg_transpose_read_perm(context, perm_tensor, rank, perm));
  ptrdiff_t in_stride[LG_SHAPE_MAX_RANK], out_stride[LG_SHAPE_MAX_RANK];
  int out_dims[LG_SHAPE_MAX_RANK];
  ptrdiff_t s = 1;
  for (int k = rank - 1; k >= 0; --k) {
    in_stride[k] = s;
    s *= in_dims[k];
  }
  s = 1;
  for (int i = rank - 1; i >= 0; --i) {
    out_dims[i] = in_dims[perm[i]];
    out_stride[i] = s;
    s *= out_dims[i];
  }
  size_t size = 0;
  TfLiteGetSizeOfType(input->type, &size);
  lg_shape_copy_init(&data->copy, size);
  for (int i = 0; i < rank; ++i) {
    lg_shape_copy_add_dim(&data->copy, out_dims[i], in_stride[perm[i]],
                          out_stride[i]);
  }
  lg_shape_copy_finish(&data->copy);
  data->elements = lg_kernel_num_elements(input);
  return lg_shape_resize(context, LG_TRANSPOSE_OP, output, out_dims, rank);
}

/* Rows of at least this many floats go through memcpy: the call then
 * costs little next to the copy. */
#define LG_TRANSPOSE_MEMCPY_FLOATS 256
/* Rows transposed per lg_gemm_pack_rows call (its row pointer array). */
#define LG_TRANSPOSE_CHUNK 64

/* n floats from src to dst (not overlapping). */
static void lg_transpose_copy_row(const float* src, float* dst, int n) {
  if (n >= LG_TRANSPOSE_MEMCPY_FLOATS) {
    memcpy(dst, src, sizeof(float) * (size_t)n);
    return;
  }
  lg_gemm_copy_floats(dst, src, n);
}

/* dst[a * lda + b] = src[a + b * ldb] for a < na, b < nb (lda >= nb). */
static void lg_transpose_block(const float* src, ptrdiff_t ldb, int na, int nb,
                               float* dst, ptrdiff_t lda) {
  const float* rows[LG_TRANSPOSE_CHUNK];
  for (int b0 = 0; b0 < nb; b0 += LG_TRANSPOSE_CHUNK) {
    const int count =
        nb - b0 < LG_TRANSPOSE_CHUNK ? nb - b0 : LG_TRANSPOSE_CHUNK;
    for (int r = 0; r < count; ++r) rows[r] = src + (ptrdiff_t)(b0 + r) * ldb;
    lg_gemm_pack_rows(rows, count, na, dst + b0, (int)lda);
  }
}

/* Whether lg_transpose_run_f32 handles the copy: 4-byte elements, at most
 * 3 loop dims, and either contiguous innermost rows or a blocked 2-D
 * transpose whose destination rows hold a whole block row. */
static bool lg_transpose_fits_f32(const lg_shape_copy* c) {
  if (c->elem_size != 4 || c->rank > 3 || c->src_offset != 0 ||
      c->dst_offset != 0) {
    return false;
  }
  const int last = c->rank - 1;
  if (c->blocked) {
    return c->dst_stride[last] == 1 && c->src_stride[last - 1] == 1 &&
           c->dst_stride[last - 1] >= c->dims[last] &&
           c->dst_stride[last - 1] <= INT32_MAX;
  }
  return c->src_stride[last] == 1 && c->dst_stride[last] == 1;
}

/* The copy as explicit loops (lg_transpose_fits_f32 holds): the loop dims
 * are right-aligned into three, missing outer ones running once. */
static void lg_transpose_run_f32(const lg_shape_copy* c, const float* src,
                                 float* dst) {
  int dims[3] = {1, 1, 1};
  ptrdiff_t ss[3] = {0, 0, 0}, ds[3] = {0, 0, 0};
  const int pad = 3 - c->rank;
  for (int k = 0; k < c->rank; ++k) {
    dims[pad + k] = c->dims[k];
    ss[pad + k] = c->src_stride[k];
    ds[pad + k] = c->dst_stride[k];
  }
  if (c->blocked) {
    for (int i = 0; i < dims[0]; ++i) {
      lg_transpose_block(src + i * ss[0], ss[2], dims[1], dims[2],
                         dst + i * ds[0], ds[1]);
    }
    return;
  }
  for (int i = 0; i < dims[0]; ++i) {
    for (int j = 0; j < dims[1]; ++j) {
      lg_transpose_copy_row(src + i * ss[0] + j * ss[1],
                            dst + i * ds[0] + j * ds[1], dims[2]);
    }
  }
}

static TfLiteStatus lg_transpose_prepare(TfLiteContext* context,
                                         TfLiteNode* node) {
  lg_transpose_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_TRANSPOSE_OP,
                  "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  data->dynamic = false;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_io(context, node, LG_TRANSPOSE_OP, 2, 2, 1));
  const TfLiteTensor *input, *perm;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_TRANSPOSE_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_TRANSPOSE_OP, kPermTensor, &perm));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_TRANSPOSE_OP, kOutputTensor, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, LG_TRANSPOSE_OP, "input",
                                            input->type, LG_SHAPE_TYPES_MOVE));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_same_type(context, LG_TRANSPOSE_OP, input, output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_rank(context, LG_TRANSPOSE_OP, "input",
                                            input, LG_SHAPE_MAX_RANK));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, LG_TRANSPOSE_OP, "perm",
                                            perm->type, LG_SHAPE_TYPES_INDEX));
  if (lg_kernel_is_constant(perm)) {
    TF_LITE_ENSURE_STATUS(lg_transpose_build(context, node, data));
  } else {
    lg_kernel_set_dynamic(output);
    data->dynamic = true;
  }
  data->prepared = true;
  return kTfLiteOk;
}

static TfLiteStatus lg_transpose_invoke(TfLiteContext* context,
                                        TfLiteNode* node) {
  lg_transpose_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, LG_TRANSPOSE_OP,
                  "invoked before a successful prepare");
    return kTfLiteError;
  }
  if (data->dynamic)
    TF_LITE_ENSURE_STATUS(lg_transpose_build(context, node, data));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_TRANSPOSE_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_TRANSPOSE_OP, kOutputTensor, &output));
  if (lg_kernel_num_elements(input) != data->elements ||
      lg_kernel_num_elements(output) != data->elements) {
    lg_kernel_log(context, LG_TRANSPOSE_OP,
                  "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (data->elements == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, LG_TRANSPOSE_OP, "input", input));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, LG_TRANSPOSE_OP, "output", output));
  if (lg_transpose_fits_f32(&data->copy)) {
    lg_transpose_run_f32(&data->copy, input->data.f, output->data.f);
  } else {
    lg_shape_copy_run(&data->copy, input->data.raw, output->data.raw);
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(TRANSPOSE, lg_transpose_init, lg_kernel_free_data,
                       lg_transpose_prepare, lg_transpose_invoke)
