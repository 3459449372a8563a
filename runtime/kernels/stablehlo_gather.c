/* STABLEHLO_GATHER: StableHLO's gather
 * (https://github.com/openxla/stablehlo/blob/main/docs/spec.md#gather).
 *
 * For every batch position of start_indices (its dims without
 * index_vector_dim) the index vector along index_vector_dim, scattered into
 * the operand's dims by start_index_map, is the start of a slice of
 * slice_sizes; each start is clamped to [0, operand_dim - slice_size] (as the
 * spec and LiteRT do: no index is ever out of range). The result's dims are
 * the batch dims with the slice's dims (without collapsed_slice_dims) placed
 * at offset_dims. index_vector_dim equal to the rank of start_indices means
 * an index vector of one element (the spec's implicit trailing 1).
 *
 * Operand: any fixed-size type of 8, 16, 32 or 64 bits (LiteRT moves
 * elements by size); start_indices INT32 or INT64. The attributes are
 * checked against the spec's constraints in Prepare (LiteRT checks fewer).
 */
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "runtime/kernels/stablehlo_util.h"
#include "tensorflow/lite/c/common.h"

#define LG_GATHER_OP "STABLEHLO_GATHER"

/* The shape facts Invoke needs, derived from the params and the shapes. */
typedef struct lg_gather_plan {
  int operand_rank, indices_rank, result_rank;
  int index_vector_size;                     /* elements of one index vector */
  bool is_offset[LG_SHAPE_MAX_RANK];         /* result dim is an offset dim */
  int offset_operand_dim[LG_SHAPE_MAX_RANK]; /* operand dim of offset i */
} lg_gather_plan;

static TfLiteStatus lg_gather_plan_make(TfLiteContext* context,
                                        const TfLiteStablehloGatherParams* p,
                                        const TfLiteTensor* operand,
                                        const TfLiteTensor* indices,
                                        lg_gather_plan* plan,
                                        int* result_dims) {
  const char* op = LG_GATHER_OP;
  const int orank = operand->dims->size;
  const int irank = indices->dims->size;
  memset(plan, 0, sizeof(*plan));
  plan->operand_rank = orank;
  plan->indices_rank = irank;
  if (p->num_slice_sizes != orank) {
    lg_kernel_log(context, op,
                  "slice_sizes has %d elements, expected the operand rank %d",
                  p->num_slice_sizes, orank);
    return kTfLiteError;
  }
  if (p->index_vector_dim < 0 || p->index_vector_dim > irank) {
    lg_kernel_log(context, op,
                  "index_vector_dim %lld is out of range [0, %d] (the rank "
                  "of start_indices)",
                  (long long)p->index_vector_dim, irank);
    return kTfLiteError;
  }
  const int ivd = (int)p->index_vector_dim;
  plan->index_vector_size = ivd < irank ? indices->dims->data[ivd] : 1;
  const int batch_rank = ivd < irank ? irank - 1 : irank;
  const int rrank = batch_rank + p->num_offset_dims;
  if (rrank > LG_SHAPE_MAX_RANK) {
    lg_kernel_log(context, op, "result rank %d is above the supported %d",
                  rrank, LG_SHAPE_MAX_RANK);
    return kTfLiteError;
  }
  plan->result_rank = rrank;
  TF_LITE_ENSURE_STATUS(
      lg_stablehlo_check_dims(context, op, "offset_dims", p->offset_dims,
                              p->num_offset_dims, rrank, true));
  TF_LITE_ENSURE_STATUS(lg_stablehlo_check_dims(
      context, op, "collapsed_slice_dims", p->collapsed_slice_dims,
      p->num_collapsed_slice_dims, orank, true));
  TF_LITE_ENSURE_STATUS(lg_stablehlo_check_dims(
      context, op, "start_index_map", p->start_index_map,
      p->num_start_index_map, orank, false));
  if (p->num_start_index_map != plan->index_vector_size) {
    lg_kernel_log(context, op,
                  "start_index_map has %d elements, but an index vector has "
                  "%d",
                  p->num_start_index_map, plan->index_vector_size);
    return kTfLiteError;
  }
  if (p->num_offset_dims != orank - p->num_collapsed_slice_dims) {
    lg_kernel_log(context, op,
                  "offset_dims has %d elements, expected %d (operand rank %d "
                  "less %d collapsed_slice_dims)",
                  p->num_offset_dims, orank - p->num_collapsed_slice_dims,
                  orank, p->num_collapsed_slice_dims);
    return kTfLiteError;
  }
  for (int d = 0; d < orank; ++d) {
    const int64_t size = p->slice_sizes[d];
    if (size < 0 || size > operand->dims->data[d]) {
      lg_kernel_log(context, op,
                    "slice_sizes[%d] = %lld is out of range [0, %d] (operand "
                    "dimension %d)",
                    d, (long long)size, operand->dims->data[d], d);
      return kTfLiteError;
    }
  }
  for (int i = 0; i < p->num_collapsed_slice_dims; ++i) {
    const int d = (int)p->collapsed_slice_dims[i];
    if (p->slice_sizes[d] != 1) {
      lg_kernel_log(context, op,
                    "slice_sizes[%d] = %lld for collapsed dimension %d, "
                    "expected 1",
                    d, (long long)p->slice_sizes[d], d);
      return kTfLiteError;
    }
  }
  /* Offset dims take the uncollapsed slice dims in order. */
  int next_slice_dim = 0;
  for (int i = 0; i < p->num_offset_dims; ++i) {
    while (lg_stablehlo_dims_contain(
        p->collapsed_slice_dims, p->num_collapsed_slice_dims, next_slice_dim)) {
      ++next_slice_dim;
    }
    plan->offset_operand_dim[i] = next_slice_dim++;
  }
  int batch = 0, offset = 0;
  for (int d = 0; d < rrank; ++d) {
    plan->is_offset[d] =
        lg_stablehlo_dims_contain(p->offset_dims, p->num_offset_dims, d);
    if (plan->is_offset[d]) {
      result_dims[d] = (int)p->slice_sizes[plan->offset_operand_dim[offset++]];
    } else {
      if (batch == ivd) ++batch;
      result_dims[d] = indices->dims->data[batch++];
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_gather_inputs(TfLiteContext* context, TfLiteNode* node,
                                     const TfLiteTensor** operand,
                                     const TfLiteTensor** indices,
                                     TfLiteTensor** output,
                                     const TfLiteStablehloGatherParams** p) {
  const char* op = LG_GATHER_OP;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, operand));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, indices));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, output));
  *p = node->builtin_data;
  if (*p == NULL) {
    lg_kernel_log(context, op, "the node has no StablehloGatherOptions");
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_gather_prepare(TfLiteContext* context,
                                      TfLiteNode* node) {
  const char* op = LG_GATHER_OP;
  const TfLiteTensor *operand, *indices;
  TfLiteTensor* output;
  const TfLiteStablehloGatherParams* p;
  TF_LITE_ENSURE_STATUS(
      lg_gather_inputs(context, node, &operand, &indices, &output, &p));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "operand", operand->type, LG_STABLEHLO_TYPES_FIXED_SIZE));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "start_indices", indices->type, LG_SHAPE_TYPES_INDEX));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, operand, output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "operand", operand, LG_SHAPE_MAX_RANK));
  TF_LITE_ENSURE_STATUS(lg_shape_check_rank(context, op, "start_indices",
                                            indices, LG_SHAPE_MAX_RANK));
  lg_gather_plan plan;
  int dims[LG_SHAPE_MAX_RANK];
  TF_LITE_ENSURE_STATUS(
      lg_gather_plan_make(context, p, operand, indices, &plan, dims));
  return lg_shape_resize(context, op, output, dims, plan.result_rank);
}

static TfLiteStatus lg_gather_invoke(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_GATHER_OP;
  const TfLiteTensor *operand, *indices;
  TfLiteTensor* output;
  const TfLiteStablehloGatherParams* p;
  TF_LITE_ENSURE_STATUS(
      lg_gather_inputs(context, node, &operand, &indices, &output, &p));
  lg_gather_plan plan;
  int rdims[LG_SHAPE_MAX_RANK];
  TF_LITE_ENSURE_STATUS(
      lg_gather_plan_make(context, p, operand, indices, &plan, rdims));
  const int64_t total = lg_kernel_num_elements(output);
  if (total == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "operand", operand));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, op, "start_indices", indices));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  size_t elem = 0;
  TfLiteGetSizeOfType(operand->type, &elem);
  const int orank = plan.operand_rank, irank = plan.indices_rank;
  const int ivd = (int)p->index_vector_dim;
  int64_t ostride[LG_SHAPE_MAX_RANK], istride[LG_SHAPE_MAX_RANK];
  int64_t s = 1;
  for (int d = orank - 1; d >= 0; --d) {
    ostride[d] = s;
    s *= operand->dims->data[d];
  }
  s = 1;
  for (int d = irank - 1; d >= 0; --d) {
    istride[d] = s;
    s *= indices->dims->data[d];
  }
  int ridx[LG_SHAPE_MAX_RANK] = {0};
  const char* src = operand->data.raw_const;
  char* dst = output->data.raw;
  for (int64_t n = 0; n < total; ++n) {
    /* The batch position's first element in start_indices. */
    int64_t ibase = 0;
    int64_t start[LG_SHAPE_MAX_RANK] = {0};
    int64_t flat = 0;
    for (int d = 0, b = 0, o = 0; d < plan.result_rank; ++d) {
      if (plan.is_offset[d]) {
        flat += ridx[d] * ostride[plan.offset_operand_dim[o++]];
      } else {
        if (b == ivd) ++b;
        ibase += ridx[d] * istride[b++];
      }
    }
    const int64_t istep = ivd < irank ? istride[ivd] : 0;
    for (int k = 0; k < plan.index_vector_size; ++k) {
      start[p->start_index_map[k]] =
          lg_shape_int_at(indices, ibase + k * istep);
    }
    for (int d = 0; d < orank; ++d) {
      const int64_t hi = operand->dims->data[d] - p->slice_sizes[d];
      const int64_t v = start[d] < 0 ? 0 : (start[d] > hi ? hi : start[d]);
      flat += v * ostride[d];
    }
    memcpy(dst + (size_t)n * elem, src + (size_t)flat * elem, elem);
    for (int d = plan.result_rank - 1; d >= 0; --d) {
      if (++ridx[d] < rdims[d]) break;
      ridx[d] = 0;
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(STABLEHLO_GATHER, NULL, NULL, lg_gather_prepare,
                       lg_gather_invoke)
