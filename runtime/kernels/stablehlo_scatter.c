/* STABLEHLO_SCATTER: StableHLO's scatter
 * (https://github.com/openxla/stablehlo/blob/main/docs/spec.md#scatter)
 * with one operand, as LiteRT runs it.
 *
 * The output starts as a copy of the operand. Every element of `updates`, in
 * row-major order, goes to the operand position given by its scatter
 * (batch) dims, which pick an index vector of scatter_indices (along
 * index_vector_dim; scattered into operand dims by
 * scatter_dims_to_operand_dims), plus its window dims (update_window_dims,
 * placed in the operand dims that are not inserted_window_dims). A position
 * outside the operand is skipped, element by element (LiteRT's choice; the
 * spec leaves it to the implementation). The element there becomes
 * f(element, update) for the update computation f, a subgraph that LiteRT
 * and litegpu recognise instead of running: one STABLEHLO_ADD,
 * STABLEHLO_MULTIPLY, STABLEHLO_MAXIMUM or STABLEHLO_MINIMUM on its two
 * arguments, or no operator, returning the update (replace). MAXIMUM and
 * MINIMUM keep LiteRT's std::max(element, update) / std::min order (NaN in
 * the element stays); BOOL adds as OR and multiplies as AND (C++'s bool
 * arithmetic); integers wrap.
 *
 * Types: FLOAT16, FLOAT32, FLOAT64, INT8..INT64, UINT8..UINT64 and BOOL
 * (LiteRT's list); scatter_indices INT32 or INT64.
 */
#include <string.h>

#include "runtime/kernels/fp16.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "runtime/kernels/stablehlo_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/common.h"

#define LG_SCATTER_OP "STABLEHLO_SCATTER"

#define LG_SCATTER_TYPES                                          \
  (LG_SHAPE_TYPES_MOVE | LG_SHAPE_TYPE(kTfLiteFloat16) |          \
   LG_SHAPE_TYPE(kTfLiteFloat64) | LG_SHAPE_TYPE(kTfLiteUInt16) | \
   LG_SHAPE_TYPE(kTfLiteUInt32) | LG_SHAPE_TYPE(kTfLiteUInt64))

typedef struct lg_scatter_plan {
  int operand_rank, indices_rank, updates_rank;
  int index_vector_size;
  bool is_window[LG_SHAPE_MAX_RANK];         /* updates dim is a window dim */
  int window_operand_dim[LG_SHAPE_MAX_RANK]; /* operand dim of window i */
  int32_t computation; /* a builtin code, -1 for replace */
} lg_scatter_plan;

static TfLiteStatus lg_scatter_io(TfLiteContext* context, TfLiteNode* node,
                                  const TfLiteTensor** operand,
                                  const TfLiteTensor** indices,
                                  const TfLiteTensor** updates,
                                  TfLiteTensor** output,
                                  const TfLiteStablehloScatterParams** p) {
  const char* op = LG_SCATTER_OP;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 3, 3, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, operand));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, indices));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 2, updates));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, output));
  *p = node->builtin_data;
  if (*p == NULL) {
    lg_kernel_log(context, op, "the node has no StablehloScatterOptions");
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_scatter_plan_make(TfLiteContext* context,
                                         const TfLiteStablehloScatterParams* p,
                                         const TfLiteTensor* operand,
                                         const TfLiteTensor* indices,
                                         const TfLiteTensor* updates,
                                         lg_scatter_plan* plan) {
  const char* op = LG_SCATTER_OP;
  const int orank = operand->dims->size;
  const int irank = indices->dims->size;
  const int urank = updates->dims->size;
  memset(plan, 0, sizeof(*plan));
  plan->operand_rank = orank;
  plan->indices_rank = irank;
  plan->updates_rank = urank;
  if (p->index_vector_dim < 0 || p->index_vector_dim > irank) {
    lg_kernel_log(context, op,
                  "index_vector_dim %lld is out of range [0, %d] (the rank "
                  "of scatter_indices)",
                  (long long)p->index_vector_dim, irank);
    return kTfLiteError;
  }
  const int ivd = (int)p->index_vector_dim;
  plan->index_vector_size = ivd < irank ? indices->dims->data[ivd] : 1;
  TF_LITE_ENSURE_STATUS(lg_stablehlo_check_dims(
      context, op, "update_window_dims", p->update_window_dims,
      p->num_update_window_dims, urank, true));
  TF_LITE_ENSURE_STATUS(lg_stablehlo_check_dims(
      context, op, "inserted_window_dims", p->inserted_window_dims,
      p->num_inserted_window_dims, orank, true));
  TF_LITE_ENSURE_STATUS(lg_stablehlo_check_dims(
      context, op, "scatter_dims_to_operand_dims",
      p->scatter_dims_to_operand_dims, p->num_scatter_dims_to_operand_dims,
      orank, false));
  if (p->num_scatter_dims_to_operand_dims != plan->index_vector_size) {
    lg_kernel_log(context, op,
                  "scatter_dims_to_operand_dims has %d elements, but an index "
                  "vector has %d",
                  p->num_scatter_dims_to_operand_dims, plan->index_vector_size);
    return kTfLiteError;
  }
  if (p->num_update_window_dims + p->num_inserted_window_dims != orank) {
    lg_kernel_log(context, op,
                  "update_window_dims (%d) and inserted_window_dims (%d) "
                  "together must have the operand rank %d elements",
                  p->num_update_window_dims, p->num_inserted_window_dims,
                  orank);
    return kTfLiteError;
  }
  const int batch_rank = ivd < irank ? irank - 1 : irank;
  if (urank != batch_rank + p->num_update_window_dims) {
    lg_kernel_log(context, op,
                  "updates rank %d is not %d (%d scatter dims and %d "
                  "update_window_dims)",
                  urank, batch_rank + p->num_update_window_dims, batch_rank,
                  p->num_update_window_dims);
    return kTfLiteError;
  }
  int next_operand_dim = 0, w = 0, b = 0;
  for (int d = 0; d < urank; ++d) {
    plan->is_window[d] = lg_stablehlo_dims_contain(
        p->update_window_dims, p->num_update_window_dims, d);
    const int size = updates->dims->data[d];
    if (plan->is_window[d]) {
      while (lg_stablehlo_dims_contain(p->inserted_window_dims,
                                       p->num_inserted_window_dims,
                                       next_operand_dim)) {
        ++next_operand_dim;
      }
      const int od = next_operand_dim++;
      plan->window_operand_dim[w++] = od;
      if (size > operand->dims->data[od]) {
        lg_kernel_log(context, op,
                      "updates dimension %d (%d) is larger than operand "
                      "dimension %d (%d)",
                      d, size, od, operand->dims->data[od]);
        return kTfLiteError;
      }
    } else {
      if (b == ivd) ++b;
      if (size != indices->dims->data[b]) {
        lg_kernel_log(context, op,
                      "updates dimension %d (%d) differs from scatter_indices "
                      "dimension %d (%d)",
                      d, size, b, indices->dims->data[b]);
        return kTfLiteError;
      }
      ++b;
    }
  }
  int32_t code;
  TF_LITE_ENSURE_STATUS(lg_kernel_region_binary(
      context, op, "update_computation", p->update_computation_subgraph_index,
      operand->type, true, &code));
  if (code != -1 && code != kTfLiteBuiltinStablehloAdd &&
      code != kTfLiteBuiltinStablehloMultiply &&
      code != kTfLiteBuiltinStablehloMaximum &&
      code != kTfLiteBuiltinStablehloMinimum) {
    lg_kernel_log(context, op,
                  "the update computation's operator (builtin %d) is not "
                  "supported (expected STABLEHLO_ADD, STABLEHLO_MULTIPLY, "
                  "STABLEHLO_MAXIMUM, STABLEHLO_MINIMUM or none)",
                  (int)code);
    return kTfLiteError;
  }
  plan->computation = code;
  return kTfLiteOk;
}

static TfLiteStatus lg_scatter_prepare(TfLiteContext* context,
                                       TfLiteNode* node) {
  const char* op = LG_SCATTER_OP;
  const TfLiteTensor *operand, *indices, *updates;
  TfLiteTensor* output;
  const TfLiteStablehloScatterParams* p;
  TF_LITE_ENSURE_STATUS(
      lg_scatter_io(context, node, &operand, &indices, &updates, &output, &p));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "operand",
                                            operand->type, LG_SCATTER_TYPES));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "scatter_indices", indices->type, LG_SHAPE_TYPES_INDEX));
  if (updates->type != operand->type) {
    lg_kernel_log(context, op, "updates type %s differs from operand type %s",
                  TfLiteTypeGetName(updates->type),
                  TfLiteTypeGetName(operand->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, operand, output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "operand", operand, LG_SHAPE_MAX_RANK));
  TF_LITE_ENSURE_STATUS(lg_shape_check_rank(context, op, "scatter_indices",
                                            indices, LG_SHAPE_MAX_RANK));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "updates", updates, LG_SHAPE_MAX_RANK));
  lg_scatter_plan plan;
  TF_LITE_ENSURE_STATUS(
      lg_scatter_plan_make(context, p, operand, indices, updates, &plan));
  return lg_shape_resize(context, op, output, operand->dims->data,
                         operand->dims->size);
}

/* Wrap-around arithmetic through an unsigned type at least as wide (and
 * no narrower than unsigned int, so nothing promotes to int). */
#define LG_SCATTER_INT(T, U, dst, upd, code)                           \
  do {                                                                 \
    T a, b;                                                            \
    memcpy(&a, dst, sizeof(T));                                        \
    memcpy(&b, upd, sizeof(T));                                        \
    T r = code == kTfLiteBuiltinStablehloAdd        ? (T)((U)a + (U)b) \
          : code == kTfLiteBuiltinStablehloMultiply ? (T)((U)a * (U)b) \
          : code == kTfLiteBuiltinStablehloMaximum  ? (a < b ? b : a)  \
                                                    : (b < a ? b : a);  \
    memcpy(dst, &r, sizeof(T));                                        \
  } while (0)

#define LG_SCATTER_FLOAT(T, dst, upd, code)                           \
  do {                                                                \
    T a, b;                                                           \
    memcpy(&a, dst, sizeof(T));                                       \
    memcpy(&b, upd, sizeof(T));                                       \
    T r = code == kTfLiteBuiltinStablehloAdd        ? a + b           \
          : code == kTfLiteBuiltinStablehloMultiply ? a * b           \
          : code == kTfLiteBuiltinStablehloMaximum  ? (a < b ? b : a) \
                                                    : (b < a ? b : a); \
    memcpy(dst, &r, sizeof(T));                                       \
  } while (0)

/* dst = f(dst, upd) for the update computation `code` (not replace). */
static void lg_scatter_apply(TfLiteType type, int32_t code, char* dst,
                             const char* upd) {
  switch (type) {
    case kTfLiteFloat32:
      LG_SCATTER_FLOAT(float, dst, upd, code);
      break;
    case kTfLiteFloat64:
      LG_SCATTER_FLOAT(double, dst, upd, code);
      break;
    case kTfLiteFloat16: {
      uint16_t ha, hb;
      memcpy(&ha, dst, 2);
      memcpy(&hb, upd, 2);
      const float a = lg_fp16_to_fp32(ha), b = lg_fp16_to_fp32(hb);
      const float r = code == kTfLiteBuiltinStablehloAdd        ? a + b
                      : code == kTfLiteBuiltinStablehloMultiply ? a * b
                      : code == kTfLiteBuiltinStablehloMaximum
                          ? (a < b ? b : a)
                          : (b < a ? b : a);
      /* max and min keep one operand's bits (its NaN payload included). */
      const uint16_t h =
          code == kTfLiteBuiltinStablehloMaximum   ? (a < b ? hb : ha)
          : code == kTfLiteBuiltinStablehloMinimum ? (b < a ? hb : ha)
                                                   : lg_fp32_to_fp16(r);
      memcpy(dst, &h, 2);
      break;
    }
    case kTfLiteInt8:
      LG_SCATTER_INT(int8_t, uint32_t, dst, upd, code);
      break;
    case kTfLiteUInt8:
      LG_SCATTER_INT(uint8_t, uint32_t, dst, upd, code);
      break;
    case kTfLiteInt16:
      LG_SCATTER_INT(int16_t, uint32_t, dst, upd, code);
      break;
    case kTfLiteUInt16:
      LG_SCATTER_INT(uint16_t, uint32_t, dst, upd, code);
      break;
    case kTfLiteInt32:
      LG_SCATTER_INT(int32_t, uint32_t, dst, upd, code);
      break;
    case kTfLiteUInt32:
      LG_SCATTER_INT(uint32_t, uint32_t, dst, upd, code);
      break;
    case kTfLiteInt64:
      LG_SCATTER_INT(int64_t, uint64_t, dst, upd, code);
      break;
    case kTfLiteUInt64:
      LG_SCATTER_INT(uint64_t, uint64_t, dst, upd, code);
      break;
    default: { /* BOOL: + is OR, * is AND, max is OR, min is AND */
      const bool a = *dst != 0, b = *upd != 0;
      const bool r = code == kTfLiteBuiltinStablehloAdd ||
                             code == kTfLiteBuiltinStablehloMaximum
                         ? (a || b)
                         : (a && b);
      *dst = (char)r;
      break;
    }
  }
}

static TfLiteStatus lg_scatter_invoke(TfLiteContext* context,
                                      TfLiteNode* node) {
  const char* op = LG_SCATTER_OP;
  const TfLiteTensor *operand, *indices, *updates;
  TfLiteTensor* output;
  const TfLiteStablehloScatterParams* p;
  TF_LITE_ENSURE_STATUS(
      lg_scatter_io(context, node, &operand, &indices, &updates, &output, &p));
  lg_scatter_plan plan;
  TF_LITE_ENSURE_STATUS(
      lg_scatter_plan_make(context, p, operand, indices, updates, &plan));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "operand", operand));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  if (output->bytes != operand->bytes) {
    lg_kernel_log(context, op, "output holds %zu bytes, not the operand's %zu",
                  output->bytes, operand->bytes);
    return kTfLiteError;
  }
  if (operand->bytes > 0 && output->data.raw != operand->data.raw_const) {
    memcpy(output->data.raw, operand->data.raw_const, operand->bytes);
  }
  const int64_t total = lg_kernel_num_elements(updates);
  if (total == 0 || lg_kernel_num_elements(operand) == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, op, "scatter_indices", indices));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "updates", updates));
  size_t elem = 0;
  TfLiteGetSizeOfType(operand->type, &elem);
  const int orank = plan.operand_rank, irank = plan.indices_rank;
  const int urank = plan.updates_rank;
  const int ivd = (int)p->index_vector_dim;
  const int* odims = operand->dims->data;
  int64_t ostride[LG_SHAPE_MAX_RANK], istride[LG_SHAPE_MAX_RANK];
  int64_t s = 1;
  for (int d = orank - 1; d >= 0; --d) {
    ostride[d] = s;
    s *= odims[d];
  }
  s = 1;
  for (int d = irank - 1; d >= 0; --d) {
    istride[d] = s;
    s *= indices->dims->data[d];
  }
  const int64_t istep = ivd < irank ? istride[ivd] : 0;
  int uidx[LG_SHAPE_MAX_RANK] = {0};
  const char* upd = updates->data.raw_const;
  char* out = output->data.raw;
  for (int64_t n = 0; n < total; ++n) {
    int64_t ibase = 0, window[LG_SHAPE_MAX_RANK] = {0};
    for (int d = 0, b = 0, w = 0; d < urank; ++d) {
      if (plan.is_window[d]) {
        window[plan.window_operand_dim[w++]] = uidx[d];
      } else {
        if (b == ivd) ++b;
        ibase += uidx[d] * istride[b++];
      }
    }
    int64_t start[LG_SHAPE_MAX_RANK] = {0};
    for (int k = 0; k < plan.index_vector_size; ++k) {
      start[p->scatter_dims_to_operand_dims[k]] =
          lg_shape_int_at(indices, ibase + k * istep);
    }
    bool inside = true;
    int64_t flat = 0;
    for (int d = 0; d < orank && inside; ++d) {
      /* start + window in [0, dim), without overflowing start + window. */
      inside = start[d] >= -window[d] && start[d] < odims[d] - window[d];
      if (inside) flat += (start[d] + window[d]) * ostride[d];
    }
    if (inside) {
      char* dst = out + (size_t)flat * elem;
      const char* src = upd + (size_t)n * elem;
      if (plan.computation == -1) {
        memcpy(dst, src, elem);
      } else {
        lg_scatter_apply(operand->type, plan.computation, dst, src);
      }
    }
    for (int d = urank - 1; d >= 0; --d) {
      if (++uidx[d] < updates->dims->data[d]) break;
      uidx[d] = 0;
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(STABLEHLO_SCATTER, NULL, NULL, lg_scatter_prepare,
                       lg_scatter_invoke)
