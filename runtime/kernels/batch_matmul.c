/* BATCH_MATMUL, float32: output[..., i, j] = sum_p x[..., i, p] y[..., p, j]
 * where x is lhs (or its last two dims transposed with adj_x) and y is rhs
 * (transposed with adj_y). Ranks 2..5; the leading (batch) dims broadcast
 * numpy-style after both shapes are extended with leading 1s to the larger
 * rank, which is the output's.
 *
 * INT8 (version 2) and INT16 (version 3, zero points 0) are TFLite's
 * reference kernel bit for bit: sum_p (x - x_zp)(y - y_zp) in int32
 * (INT16: int64), rescaled by lhs_scale * rhs_scale / output_scale (the
 * scales' product in float) with the fixed-point multiplier (INT16: its
 * int64 variant), offset and clamped to the type. The hybrid variant
 * (float lhs, INT8 rhs: version 4) is rejected in Prepare with the type's
 * name.
 *
 * Fast path: one GEMM per output batch; the transposes are free (they are
 * strides of the GEMM's operands). A constant rhs is packed once in Prepare
 * (one packed matrix per rhs batch). Many small products are split over
 * the thread pool by batch (each task runs whole GEMMs on its own scratch
 * slice); large ones are split inside each GEMM. The GEMM scratch is a
 * temporary tensor sized in Prepare.
 */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/nn.h"
#include "runtime/kernels/quant_simd.h"
#include "runtime/kernels/quant_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_BMM_OP "BATCH_MATMUL"
/* Products with fewer multiply-adds than this are not split inside; with
 * several batches they are split by batch instead. */
#define LG_BMM_SMALL_MACS (1 << 20)

enum {
  kLhsTensor = 0,
  kRhsTensor = 1,
  kOutputTensor = 0,
};

enum {
  kScratchTemporary = 0,
  kNumTemporaries = 1,
};

typedef struct lg_bmm_data {
  bool prepared;
  lg_batch_matmul_geometry geo;
  int m, n, k;
  int batches;     /* product of the output's batch dims */
  int rhs_batches; /* product of rhs's (extended) batch dims */
  lg_gemm_isa isa;
  bool prepacked;
  lg_nn_buffer packed_rhs;
  size_t packed_floats; /* per rhs batch */
  int temporaries[kNumTemporaries];
  size_t scratch_floats;
  int64_t lhs_elements, rhs_elements, output_elements;
  /* INT8 / INT16 */
  bool quantized;
  TfLiteType type;
  int32_t lhs_offset, rhs_offset, output_offset;
  int32_t multiplier;
  int shift;
  int32_t out_min, out_max;
  /* INT8 fast path (AVX2): one batch's lhs rows and rhs columns as int16
   * rows of k_pad (the values plus their offsets), and one row's sums. */
  int16_t* lhs_rows;
  int16_t* rhs_cols;
  int32_t* sums;
  int k_pad;
} lg_bmm_data;

/* Whole GEMMs split over tasks by batch. */
typedef struct lg_bmm_job {
  const lg_bmm_data* data;
  const float* lhs;
  const float* rhs;
  float* output;
  float* scratch;
  size_t slot_floats;
  int num_tasks;
} lg_bmm_job;

static void* lg_bmm_init(TfLiteContext* context, const char* buffer,
                         size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  lg_bmm_data* data = calloc(1, sizeof(lg_bmm_data));
  if (data != NULL) data->temporaries[kScratchTemporary] = -1;
  return data;
}

static void lg_bmm_free(TfLiteContext* context, void* buffer) {
  (void)context;
  lg_bmm_data* data = buffer;
  if (data != NULL) {
    lg_nn_buffer_free(&data->packed_rhs);
    free(data->lhs_rows);
    free(data->rhs_cols);
    free(data->sums);
  }
  free(data);
}

/* ---- Batch indexing ----------------------------------------------------- */

/* The lhs and rhs matrix indices of output batch `b` (row-major over the
 * output's batch dims; a dim of 1 repeats). */
static void lg_bmm_batch_offsets(const lg_batch_matmul_geometry* g, int b,
                                 size_t* lhs_batch, size_t* rhs_batch) {
  size_t li = 0, ri = 0, lstride = 1, rstride = 1;
  for (int d = g->rank - 3; d >= 0; --d) {
    const int coord = b % g->out[d];
    b /= g->out[d];
    li += (g->lhs[d] == 1 ? 0 : (size_t)coord) * lstride;
    ri += (g->rhs[d] == 1 ? 0 : (size_t)coord) * rstride;
    lstride *= (size_t)g->lhs[d];
    rstride *= (size_t)g->rhs[d];
  }
  *lhs_batch = li;
  *rhs_batch = ri;
}

/* ---- Reference ---------------------------------------------------------- */

void lg_batch_matmul_reference(const lg_batch_matmul_geometry* g,
                               const float* lhs, const float* rhs,
                               float* output) {
  const int r = g->rank;
  const int m = g->adj_x ? g->lhs[r - 1] : g->lhs[r - 2];
  const int k = g->adj_x ? g->lhs[r - 2] : g->lhs[r - 1];
  const int n = g->adj_y ? g->rhs[r - 2] : g->rhs[r - 1];
  int batches = 1;
  for (int d = 0; d < r - 2; ++d) batches *= g->out[d];
  for (int b = 0; b < batches; ++b) {
    size_t lb, rb;
    lg_bmm_batch_offsets(g, b, &lb, &rb);
    const float* x = lhs + lb * (size_t)m * k;
    const float* y = rhs + rb * (size_t)k * n;
    float* out = output + (size_t)b * m * n;
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        float total = 0.0f;
        for (int p = 0; p < k; ++p) {
          const float xv =
              g->adj_x ? x[(size_t)p * m + i] : x[(size_t)i * k + p];
          const float yv =
              g->adj_y ? y[(size_t)j * k + p] : y[(size_t)p * n + j];
          total += xv * yv;
        }
        out[(size_t)i * n + j] = total;
      }
    }
  }
}

/* ---- Prepare ------------------------------------------------------------ */

static TfLiteStatus lg_bmm_check_types(TfLiteContext* context,
                                       const TfLiteTensor* lhs,
                                       const TfLiteTensor* rhs,
                                       const TfLiteTensor* output) {
  if (lhs->type == kTfLiteInt8 || lhs->type == kTfLiteInt16) {
    if (rhs->type != lhs->type || output->type != lhs->type) {
      lg_kernel_log(context, LG_BMM_OP,
                    "%s lhs with rhs %s and output %s is not supported "
                    "(expected all three %s)",
                    TfLiteTypeGetName(lhs->type), TfLiteTypeGetName(rhs->type),
                    TfLiteTypeGetName(output->type),
                    TfLiteTypeGetName(lhs->type));
      return kTfLiteError;
    }
    return kTfLiteOk;
  }
  TF_LITE_ENSURE_STATUS(lg_nn_check_float(context, LG_BMM_OP, "lhs", lhs));
  TF_LITE_ENSURE_STATUS(lg_nn_check_float(context, LG_BMM_OP, "rhs", rhs));
  return lg_nn_check_float(context, LG_BMM_OP, "output", output);
}

static TfLiteStatus lg_bmm_check_rank(TfLiteContext* context, const char* what,
                                      const TfLiteTensor* t) {
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, LG_BMM_OP, what, t));
  if (t->dims->size < 2 || t->dims->size > LG_BATCH_MATMUL_MAX_RANK) {
    char shape[128];
    lg_kernel_log(context, LG_BMM_OP, "%s must have rank 2 to %d, got %s", what,
                  LG_BATCH_MATMUL_MAX_RANK,
                  lg_kernel_format_shape(t->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Extends both shapes to the output rank and broadcasts the batch dims. */
static TfLiteStatus lg_bmm_geometry_of(TfLiteContext* context,
                                       const TfLiteTensor* lhs,
                                       const TfLiteTensor* rhs,
                                       lg_batch_matmul_geometry* g) {
  char sl[128], sr[128];
  const int lr = lhs->dims->size, rr = rhs->dims->size;
  g->rank = lr > rr ? lr : rr;
  for (int d = 0; d < g->rank; ++d) {
    const int li = d - (g->rank - lr), ri = d - (g->rank - rr);
    g->lhs[d] = li >= 0 ? lhs->dims->data[li] : 1;
    g->rhs[d] = ri >= 0 ? rhs->dims->data[ri] : 1;
  }
  for (int d = 0; d < g->rank - 2; ++d) {
    if (g->lhs[d] != g->rhs[d] && g->lhs[d] != 1 && g->rhs[d] != 1) {
      lg_kernel_log(context, LG_BMM_OP,
                    "batch dims of lhs %s and rhs %s are not broadcastable",
                    lg_kernel_format_shape(lhs->dims, sl, sizeof(sl)),
                    lg_kernel_format_shape(rhs->dims, sr, sizeof(sr)));
      return kTfLiteError;
    }
    g->out[d] = g->lhs[d] == 1 ? g->rhs[d] : g->lhs[d];
  }
  const int r = g->rank;
  const int k_lhs = g->adj_x ? g->lhs[r - 2] : g->lhs[r - 1];
  const int k_rhs = g->adj_y ? g->rhs[r - 1] : g->rhs[r - 2];
  if (k_lhs != k_rhs) {
    lg_kernel_log(context, LG_BMM_OP,
                  "lhs %s%s and rhs %s%s do not contract: %d != %d",
                  lg_kernel_format_shape(lhs->dims, sl, sizeof(sl)),
                  g->adj_x ? " (adj_x)" : "",
                  lg_kernel_format_shape(rhs->dims, sr, sizeof(sr)),
                  g->adj_y ? " (adj_y)" : "", k_lhs, k_rhs);
    return kTfLiteError;
  }
  g->out[r - 2] = g->adj_x ? g->lhs[r - 1] : g->lhs[r - 2];
  g->out[r - 1] = g->adj_y ? g->rhs[r - 2] : g->rhs[r - 1];
  return kTfLiteOk;
}

/* Sizes in data from the geometry; an error when they overflow an int. */
static TfLiteStatus lg_bmm_sizes(TfLiteContext* context, lg_bmm_data* data) {
  const lg_batch_matmul_geometry* g = &data->geo;
  const int r = g->rank;
  data->m = g->out[r - 2];
  data->n = g->out[r - 1];
  data->k = g->adj_x ? g->lhs[r - 2] : g->lhs[r - 1];
  int64_t batches = 1, rhs_batches = 1;
  for (int d = 0; d < r - 2; ++d) {
    batches *= g->out[d];
    rhs_batches *= g->rhs[d];
  }
  const int64_t out = batches * data->m * data->n;
  if (out > INT_MAX || batches > INT_MAX) {
    lg_kernel_log(context, LG_BMM_OP, "the output (%lld elements) is too large",
                  (long long)out);
    return kTfLiteError;
  }
  data->batches = (int)batches;
  data->rhs_batches = (int)rhs_batches;
  data->output_elements = out;
  return kTfLiteOk;
}

/* Stands in for the packed rhs while only sizes matter (the scratch size
 * depends on whether B is prepacked). */
static const float kPackedMarker = 0.0f;

/* The GEMM of one batch without its data pointers. */
static lg_gemm lg_bmm_gemm(const lg_bmm_data* data) {
  const lg_batch_matmul_geometry* g = &data->geo;
  lg_gemm gemm = {
      .isa = data->isa,
      .m = data->m,
      .n = data->n,
      .k = data->k,
      .a = {.row_stride = g->adj_x ? 1 : data->k,
            .col_stride = g->adj_x ? data->m : 1},
      .b = {.row_stride = g->adj_y ? 1 : data->n,
            .col_stride = g->adj_y ? data->k : 1},
      .ldc = data->n,
      .min = -INFINITY,
      .max = INFINITY,
  };
  gemm.b.packed = data->prepacked ? &kPackedMarker : NULL;
  return gemm;
}

static TfLiteStatus lg_bmm_plan(TfLiteContext* context, TfLiteNode* node,
                                lg_bmm_data* data) {
  const TfLiteTensor* rhs;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_BMM_OP, kRhsTensor, &rhs));
  data->isa = lg_gemm_isa_default();
  const bool constant = lg_nn_is_constant(rhs) && data->rhs_elements > 0;
  data->prepacked = constant;
  lg_gemm gemm = lg_bmm_gemm(data);
  const int threads = lg_thread_pool_size(lg_kernel_thread_pool(context));
  data->scratch_floats = lg_gemm_scratch_floats(&gemm, threads);
  TF_LITE_ENSURE_STATUS(lg_nn_set_temporaries(
      context, node, LG_BMM_OP, data->temporaries, &data->scratch_floats, 1));
  /* AddTensors may have moved the tensors: look rhs up again. */
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_BMM_OP, kRhsTensor, &rhs));
  if (!constant) return kTfLiteOk;
  data->prepacked = false;
  data->packed_floats = lg_gemm_packed_b_floats(data->isa, data->k, data->n);
  TF_LITE_ENSURE_STATUS(
      lg_nn_buffer_reserve(context, LG_BMM_OP, &data->packed_rhs,
                           data->packed_floats * (size_t)data->rhs_batches));
  for (int b = 0; b < data->rhs_batches; ++b) {
    lg_gemm_b operand = gemm.b;
    operand.packed = NULL;
    operand.data = rhs->data.f + (size_t)b * data->k * data->n;
    lg_gemm_pack_b(data->isa, data->k, data->n, &operand,
                   data->packed_rhs.data + data->packed_floats * (size_t)b);
  }
  data->prepacked = true;
  return kTfLiteOk;
}

/* The INT8 fast path's scratch, on AVX2 CPUs. */
static TfLiteStatus lg_bmm_prepare_fast(TfLiteContext* context,
                                        lg_bmm_data* data) {
  free(data->lhs_rows);
  free(data->rhs_cols);
  free(data->sums);
  data->lhs_rows = NULL;
  data->rhs_cols = NULL;
  data->sums = NULL;
  if (!LG_GEMM_HAVE_X86 || data->type != kTfLiteInt8 || data->k <= 0 ||
      data->m <= 0 || data->n <= 0 ||
      lg_gemm_isa_default() < LG_GEMM_ISA_AVX2) {
    return kTfLiteOk;
  }
  const int64_t k_pad = lg_int16_dot_pad(data->k);
  data->k_pad = (int)k_pad;
  data->lhs_rows = calloc((size_t)data->m * (size_t)k_pad, sizeof(int16_t));
  data->rhs_cols = calloc((size_t)data->n * (size_t)k_pad, sizeof(int16_t));
  data->sums = calloc((size_t)data->n, sizeof(int32_t));
  if (data->lhs_rows == NULL || data->rhs_cols == NULL || data->sums == NULL) {
    lg_kernel_log(context, LG_BMM_OP, "out of memory for %d x %d x %d", data->m,
                  data->n, data->k);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* INT8 / INT16: offsets, the rescale and the type's range. */
static TfLiteStatus lg_bmm_prepare_quantized(TfLiteContext* context,
                                             lg_bmm_data* data,
                                             const TfLiteTensor* lhs,
                                             const TfLiteTensor* rhs,
                                             const TfLiteTensor* output) {
  lg_quant_layout lq, rq, oq;
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, LG_BMM_OP, "lhs", lhs, &lq));
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, LG_BMM_OP, "rhs", rhs, &rq));
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, LG_BMM_OP, "output", output, &oq));
  if (lhs->type == kTfLiteInt16 &&
      (lq.zero_point0 != 0 || rq.zero_point0 != 0 || oq.zero_point0 != 0)) {
    lg_kernel_log(context, LG_BMM_OP,
                  "INT16 zero points must be 0 (lhs %d, rhs %d, output %d): "
                  "INT16 quantization is symmetric",
                  (int)lq.zero_point0, (int)rq.zero_point0,
                  (int)oq.zero_point0);
    return kTfLiteError;
  }
  data->type = lhs->type;
  data->lhs_offset = -lq.zero_point0;
  data->rhs_offset = -rq.zero_point0;
  data->output_offset = oq.zero_point0;
  lg_quantize_multiplier((double)(lq.scale0 * rq.scale0) / (double)oq.scale0,
                         &data->multiplier, &data->shift);
  if (lhs->type == kTfLiteInt16 && data->shift > 14) {
    lg_kernel_log(context, LG_BMM_OP,
                  "the rescale lhs scale x rhs scale / output scale is above "
                  "2^14");
    return kTfLiteError;
  }
  lg_quant_type_range(lhs->type, &data->out_min, &data->out_max);
  return lg_bmm_prepare_fast(context, data);
}

static TfLiteStatus lg_bmm_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_bmm_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_BMM_OP, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, LG_BMM_OP, 2, 2, 1));
  const TfLiteTensor *lhs, *rhs;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_BMM_OP, kLhsTensor, &lhs));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_BMM_OP, kRhsTensor, &rhs));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_BMM_OP, kOutputTensor, &output));
  TF_LITE_ENSURE_STATUS(lg_bmm_check_types(context, lhs, rhs, output));
  TF_LITE_ENSURE_STATUS(lg_bmm_check_rank(context, "lhs", lhs));
  TF_LITE_ENSURE_STATUS(lg_bmm_check_rank(context, "rhs", rhs));
  const TfLiteBatchMatMulParams* params = node->builtin_data;
  memset(&data->geo, 0, sizeof(data->geo));
  data->geo.adj_x = params != NULL && params->adj_x;
  data->geo.adj_y = params != NULL && params->adj_y;
  TF_LITE_ENSURE_STATUS(lg_bmm_geometry_of(context, lhs, rhs, &data->geo));
  TF_LITE_ENSURE_STATUS(lg_bmm_sizes(context, data));
  data->lhs_elements = lg_kernel_num_elements(lhs);
  data->rhs_elements = lg_kernel_num_elements(rhs);
  data->quantized = lhs->type == kTfLiteInt8 || lhs->type == kTfLiteInt16;
  if (data->quantized) {
    TF_LITE_ENSURE_STATUS(
        lg_bmm_prepare_quantized(context, data, lhs, rhs, output));
  } else {
    TF_LITE_ENSURE_STATUS(lg_bmm_plan(context, node, data));
  }

  TfLiteIntArray* shape = TfLiteIntArrayCreate(data->geo.rank);
  if (shape == NULL) {
    lg_kernel_log(context, LG_BMM_OP, "out of memory for the output shape");
    return kTfLiteError;
  }
  memcpy(shape->data, data->geo.out, sizeof(int) * (size_t)data->geo.rank);
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_BMM_OP, kOutputTensor, &output));
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, shape));
  data->prepared = true;
  return kTfLiteOk;
}

/* ---- Invoke ------------------------------------------------------------- */

/* The GEMM of output batch `b`. */
static lg_gemm lg_bmm_batch_gemm(const lg_bmm_data* data, const float* lhs,
                                 const float* rhs, float* output, int b) {
  lg_gemm gemm = lg_bmm_gemm(data);
  gemm.c = output + (size_t)b * data->m * data->n;
  if (data->k == 0) return gemm; /* C = 0; the operands are empty */
  size_t lb, rb;
  lg_bmm_batch_offsets(&data->geo, b, &lb, &rb);
  gemm.a.data = lhs + lb * (size_t)data->m * data->k;
  if (data->prepacked) {
    gemm.b.packed = data->packed_rhs.data + rb * data->packed_floats;
  } else {
    gemm.b.data = rhs + rb * (size_t)data->k * data->n;
  }
  return gemm;
}

/* Quantized products for element type T with accumulator ACC. */
#define LG_BMM_QUANT(SUFFIX, T, ACC)                                           \
  static void lg_bmm_run_##SUFFIX(const lg_bmm_data* d, const T* lhs,          \
                                  const T* rhs, T* output) {                   \
    const lg_batch_matmul_geometry* g = &d->geo;                               \
    const int m = d->m, n = d->n, k = d->k;                                    \
    for (int b = 0; b < d->batches; ++b) {                                     \
      size_t lb, rb;                                                           \
      lg_bmm_batch_offsets(g, b, &lb, &rb);                                    \
      const T* x = lhs + lb * (size_t)m * k;                                   \
      const T* y = rhs + rb * (size_t)k * n;                                   \
      T* out = output + (size_t)b * m * n;                                     \
      for (int i = 0; i < m; ++i) {                                            \
        for (int j = 0; j < n; ++j) {                                          \
          ACC total = 0;                                                       \
          for (int p = 0; p < k; ++p) {                                        \
            const ACC xv =                                                     \
                g->adj_x ? x[(size_t)p * m + i] : x[(size_t)i * k + p];        \
            const ACC yv =                                                     \
                g->adj_y ? y[(size_t)j * k + p] : y[(size_t)p * n + j];        \
            total += (xv + d->lhs_offset) * (yv + d->rhs_offset);              \
          }                                                                    \
          int32_t v = lg_bmm_rescale_##SUFFIX(d, total) + d->output_offset;    \
          v = v < d->out_min ? d->out_min : (v > d->out_max ? d->out_max : v); \
          out[(size_t)i * n + j] = (T)v;                                       \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

static inline int32_t lg_bmm_rescale_i8(const lg_bmm_data* d, int32_t total) {
  return lg_multiply_by_quantized_multiplier(total, d->multiplier, d->shift);
}

static inline int32_t lg_bmm_rescale_i16(const lg_bmm_data* d, int64_t total) {
  return lg_multiply_by_quantized_multiplier_int64(total, d->multiplier,
                                                   d->shift);
}

LG_BMM_QUANT(i8, int8_t, int32_t)

/* INT8 on AVX2: per batch, the lhs rows and rhs columns (adjoints
 * resolved) become int16 rows with their offsets added, then each output
 * row is one set of dot products (quant_simd.c): the reference's sums. */
static void lg_bmm_run_i8_fast(const lg_bmm_data* d, const int8_t* lhs,
                               const int8_t* rhs, int8_t* output) {
  const lg_batch_matmul_geometry* g = &d->geo;
  const int m = d->m, n = d->n, k = d->k;
  for (int b = 0; b < d->batches; ++b) {
    size_t lb, rb;
    lg_bmm_batch_offsets(g, b, &lb, &rb);
    const int8_t* x = lhs + lb * (size_t)m * k;
    const int8_t* y = rhs + rb * (size_t)k * n;
    for (int i = 0; i < m; ++i) {
      int16_t* row = d->lhs_rows + (size_t)i * d->k_pad;
      for (int p = 0; p < k; ++p) {
        const int8_t v = g->adj_x ? x[(size_t)p * m + i] : x[(size_t)i * k + p];
        row[p] = (int16_t)(v + d->lhs_offset);
      }
    }
    for (int j = 0; j < n; ++j) {
      int16_t* col = d->rhs_cols + (size_t)j * d->k_pad;
      for (int p = 0; p < k; ++p) {
        const int8_t v = g->adj_y ? y[(size_t)j * k + p] : y[(size_t)p * n + j];
        col[p] = (int16_t)(v + d->rhs_offset);
      }
    }
    int8_t* out = output + (size_t)b * m * n;
    for (int i = 0; i < m; ++i) {
#if LG_GEMM_HAVE_X86
      lg_int16_dots_avx2(d->lhs_rows + (size_t)i * d->k_pad, d->rhs_cols,
                         d->k_pad, n, d->sums);
#endif
      for (int j = 0; j < n; ++j) {
        int32_t v = lg_bmm_rescale_i8(d, d->sums[j]) + d->output_offset;
        v = v < d->out_min ? d->out_min : (v > d->out_max ? d->out_max : v);
        out[(size_t)i * n + j] = (int8_t)v;
      }
    }
  }
}
LG_BMM_QUANT(i16, int16_t, int64_t)

static void lg_bmm_task(void* ctx, int index) {
  const lg_bmm_job* job = ctx;
  const lg_bmm_data* data = job->data;
  const int b0 = (int)((int64_t)data->batches * index / job->num_tasks);
  const int b1 = (int)((int64_t)data->batches * (index + 1) / job->num_tasks);
  float* scratch = job->scratch + job->slot_floats * (size_t)index;
  for (int b = b0; b < b1; ++b) {
    const lg_gemm gemm =
        lg_bmm_batch_gemm(data, job->lhs, job->rhs, job->output, b);
    lg_gemm_compute(&gemm, 0, gemm.m, 0, gemm.n, scratch);
  }
}

static TfLiteStatus lg_bmm_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_bmm_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, LG_BMM_OP, "invoked before a successful prepare");
    return kTfLiteError;
  }
  const TfLiteTensor *lhs, *rhs;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_BMM_OP, kLhsTensor, &lhs));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_BMM_OP, kRhsTensor, &rhs));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_BMM_OP, kOutputTensor, &output));
  if (lg_kernel_num_elements(lhs) != data->lhs_elements ||
      lg_kernel_num_elements(rhs) != data->rhs_elements ||
      lg_kernel_num_elements(output) != data->output_elements) {
    lg_kernel_log(context, LG_BMM_OP, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (data->output_elements == 0) return kTfLiteOk;
  if (output->data.f == NULL ||
      (data->k > 0 && (lhs->data.f == NULL || rhs->data.f == NULL))) {
    lg_kernel_log(context, LG_BMM_OP, "a tensor has no data");
    return kTfLiteError;
  }
  if (data->quantized) {
    if (data->type == kTfLiteInt16) {
      lg_bmm_run_i16(data, lhs->data.i16, rhs->data.i16, output->data.i16);
    } else {
      if (data->lhs_rows != NULL) {
        lg_bmm_run_i8_fast(data, lhs->data.int8, rhs->data.int8,
                           output->data.int8);
      } else {
        lg_bmm_run_i8(data, lhs->data.int8, rhs->data.int8, output->data.int8);
      }
    }
    return kTfLiteOk;
  }
  float* scratch = lg_nn_temporary(context, node, LG_BMM_OP, kScratchTemporary,
                                   data->scratch_floats);
  if (scratch == NULL) return kTfLiteError;
  lg_thread_pool* pool = lg_kernel_thread_pool(context);
  const int threads = lg_thread_pool_size(pool);
  lg_gemm one = lg_bmm_gemm(data);
  const size_t slot = lg_gemm_scratch_floats(&one, 1);
  const int slots = (int)(data->scratch_floats / slot);
  const int64_t macs = (int64_t)data->m * data->n * (data->k > 0 ? data->k : 1);
  if (threads > 1 && slots > 1 && data->batches > 1 &&
      macs < LG_BMM_SMALL_MACS &&
      macs * data->batches >= LG_GEMM_MIN_PARALLEL_MACS) {
    int tasks = threads < slots ? threads : slots;
    if (tasks > data->batches) tasks = data->batches;
    lg_bmm_job job = {data,    lhs->data.f, rhs->data.f, output->data.f,
                      scratch, slot,        tasks};
    lg_thread_pool_run(pool, lg_bmm_task, &job, tasks);
    return kTfLiteOk;
  }
  for (int b = 0; b < data->batches; ++b) {
    const lg_gemm gemm =
        lg_bmm_batch_gemm(data, lhs->data.f, rhs->data.f, output->data.f, b);
    lg_gemm_run(&gemm, pool, scratch, data->scratch_floats);
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(BATCH_MATMUL, lg_bmm_init, lg_bmm_free, lg_bmm_prepare,
                       lg_bmm_invoke)
