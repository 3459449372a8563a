/* MEAN, SUM, REDUCE_PROD, REDUCE_MAX and REDUCE_MIN: float32 and int32;
 * MEAN, REDUCE_MAX and REDUCE_MIN also quantized INT8 and INT16, SUM INT8,
 * MEAN UINT8 (version 1: the same QuantizedMeanOrSum arithmetic, LiteRT's
 * reference for uint8 too).
 * REDUCE_ALL and REDUCE_ANY: BOOL only (TensorFlow's All and Any), with the
 * same axes; an empty reduction gives true (ALL) / false (ANY), and a
 * nonzero byte counts as true.
 *
 * Inputs: the data and an INT32 axes tensor of any shape whose elements are
 * the axes to reduce (negative ones count from the end, duplicates are
 * ignored, none at all reduces nothing). keep_dims keeps each reduced dim as
 * a 1; otherwise reduced dims are dropped (all of them: a scalar).
 *
 * Semantics are TFLite's reference kernels, checked against LiteRT:
 *   - float sums, products and means accumulate in float32, each output's
 *     elements in increasing input order, so results agree bit for bit;
 *     MEAN divides that sum by the element count (an empty reduction is
 *     0/0 = NaN);
 *   - int32 SUM and PROD wrap around; int32 MEAN sums in int64 and divides
 *     truncating towards zero (an empty reduction gives 0);
 *   - MAX and MIN start from the lowest / highest finite value and take a
 *     value only when it is strictly greater / smaller: NaN is skipped, an
 *     empty reduction gives -FLT_MAX / FLT_MAX (INT32_MIN / INT32_MAX), and
 *     a reduction over -inf only gives -FLT_MAX;
 *   - quantized MEAN (TFLite's QuantizedMeanOrSum): the integer sum S of n
 *     elements, then out_zp + M'(S - in_zp * n) clamped, where M' is the
 *     rescale in_scale / out_scale with 1/n folded into its fixed-point
 *     multiplier (multiplier << k / n with k = floor(log2 n), at most 32
 *     and at most 31 + shift, and shift - k); INT16 zero points are 0;
 *   - quantized SUM (INT8, version 2), as LiteRT's builtin kernel
 *     computes it in float: round(S * r + b) + out_zp clamped, with the
 *     integer sum S of the stored values, r = in_scale / out_scale and
 *     b = -in_zp * r * n, all float32, rounding half away from zero; an
 *     empty reduction gives 0. (LiteRT 2.3's reference kernel reads INT8
 *     data as UINT8 there, and XNNPACK breaks ties to even: the builtin
 *     kernel is the one followed.)
 *   - quantized REDUCE_MAX / REDUCE_MIN compare the stored integers (the
 *     input and output quantization must be equal, as TFLite requires);
 *     an empty reduction gives the type's lowest / highest value.
 *
 * One set of helpers serves the five ops: lg_reduce_axes turns the axes
 * tensor into a mask of reduced dims, lg_reduce_output_shape gives the
 * output shape, and lg_reduce_make_plan merges neighbouring dims that are
 * both kept or both reduced into groups. The innermost group decides the
 * loop: when it is reduced each output folds contiguous runs of input;
 * when it is kept a row of outputs is folded together, LG_REDUCE_CHUNK
 * accumulators at a time, over every reduced position (with one reduced
 * group, at a single stride, on simd_f32's vector fold: a global pooling
 * over 56x56x16 from 49 to 14 us). Both keep each output's increasing
 * input order.
 *
 * A constant axes tensor is read in Prepare; otherwise the output is made
 * dynamic and Invoke reads the axes, plans and resizes it. Work units
 * (outputs, or pieces of output rows) are split over the thread pool when
 * the input is large enough; a single output is never split, which would
 * change the order of its sum.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/thread_pool.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/quant_util.h"
#include "runtime/kernels/simd_f32.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_REDUCE_MAX_RANK LG_KERNEL_MAX_RANK
/* Outputs of a kept innermost row folded together (stack accumulators). */
#define LG_REDUCE_CHUNK 64
/* Input elements below which splitting over threads costs more than it
 * saves: MobileNetV3's squeeze-excite MEAN over 14x14x192 (37,632) took
 * 4 us on one thread and 6 us split over two (op profile, 2-core machine). */
#define LG_REDUCE_MIN_PARALLEL (1 << 16)
/* Outputs from which float SUM and MEAN over the last axis sum their runs
 * in vector lanes (lg_f32_row_sums, a transpose per 16 x 16 block); fewer
 * leave the shuffles idle lanes and fold side by side instead. */
#define LG_REDUCE_LANE_ROWS 8
/* Each (op, type, loop shape) combination gets its own loop, so that the
 * fold is a constant the compiler can specialize. */
#define LG_REDUCE_INLINE static inline __attribute__((always_inline))

enum {
  kInputTensor = 0,
  kAxisTensor = 1,
  kOutputTensor = 0,
};

typedef enum lg_reduce_op {
  LG_REDUCE_SUM,
  LG_REDUCE_MEAN,
  LG_REDUCE_PROD,
  LG_REDUCE_MAX,
  LG_REDUCE_MIN,
  LG_REDUCE_ALL,
  LG_REDUCE_ANY,
} lg_reduce_op;

/* The loop plan of one reduction over merged groups of dims. */
typedef struct lg_reduce_plan {
  int64_t in_count;   /* input elements */
  int64_t out_count;  /* output elements */
  int64_t fold_count; /* input elements folded into each output */
  int64_t inner;      /* extent of the innermost group (stride 1) */
  bool inner_reduced; /* that group is reduced, else kept */
  /* Kept groups outside the innermost, outermost first, with their input
   * strides: they enumerate the work units in output order. */
  int num_outer;
  int64_t outer_size[LG_REDUCE_MAX_RANK];
  int64_t outer_stride[LG_REDUCE_MAX_RANK];
  /* Reduced groups outside the innermost. */
  int num_red;
  int64_t red_size[LG_REDUCE_MAX_RANK];
  int64_t red_stride[LG_REDUCE_MAX_RANK];
  int64_t red_count; /* product of red_size */
  /* Work units: outputs (inner reduced), or LG_REDUCE_CHUNK-wide pieces of
   * output rows, `chunks` per row (inner kept; so that a global pooling
   * such as MEAN over H and W still splits over threads). */
  int64_t chunks;
  int64_t units;
} lg_reduce_plan;

/* Quantized MEAN's arithmetic (lg_reduce_quant_mean_params). */
typedef struct lg_reduce_quant {
  int32_t in_zp, out_zp;
  int32_t base_multiplier; /* in_scale / out_scale */
  int base_shift;
  int32_t multiplier; /* with 1 / fold_count folded in */
  int shift;
  float sum_scale; /* SUM: in_scale / out_scale, in float as TFLite */
  int32_t type_min, type_max;
} lg_reduce_quant;

typedef struct lg_reduce_data {
  lg_reduce_op op;
  const char* name;
  bool prepared;
  bool dynamic; /* the axes are read in Invoke */
  lg_reduce_plan plan;
  lg_reduce_quant quant;
} lg_reduce_data;

/* A row-major walk over some groups, tracking the input offset. */
typedef struct lg_reduce_odometer {
  int n;
  const int64_t* size;
  const int64_t* stride;
  int64_t index[LG_REDUCE_MAX_RANK];
  int64_t offset;
} lg_reduce_odometer;

/* One Invoke's work, shared read-only by its tasks. */
typedef struct lg_reduce_job {
  const lg_reduce_plan* plan;
  lg_reduce_op op;
  TfLiteType type;
  const void* input;
  void* output;
  const lg_reduce_quant* quant;
  int num_tasks;
} lg_reduce_job;

/* ---- Axes, output shape and plan (shared by the five ops) --------------- */

/* Folds 1 / count into quantized MEAN's rescale, as TFLite's
 * QuantizedMeanOrSum does (count 0 leaves it: nothing is divided). */
static void lg_reduce_quant_fold(lg_reduce_quant* q, int64_t count) {
  q->multiplier = q->base_multiplier;
  q->shift = q->base_shift;
  if (count <= 0) return;
  int k = 63;
  while (!((uint64_t)count >> k)) --k; /* floor(log2 count) */
  if (k > 32) k = 32;
  if (k > 31 + q->base_shift) k = 31 + q->base_shift;
  q->multiplier =
      (int32_t)(((int64_t)q->base_multiplier * ((int64_t)1 << k)) / count);
  q->shift = q->base_shift - k;
}

/* Marks the dims the axes tensor names in reduced[0..rank). Errors: an axis
 * outside [-rank, rank), or axes without data. */
static TfLiteStatus lg_reduce_axes(TfLiteContext* context, const char* op,
                                   const TfLiteTensor* axis, int rank,
                                   bool* reduced) {
  for (int i = 0; i < rank; ++i) reduced[i] = false;
  const int64_t count = lg_kernel_num_elements(axis);
  if (count > 0 && axis->data.i32 == NULL) {
    lg_kernel_log(context, op, "axis tensor has no data");
    return kTfLiteError;
  }
  for (int64_t i = 0; i < count; ++i) {
    const int32_t a = axis->data.i32[i];
    if (a < -rank || a >= rank) {
      lg_kernel_log(context, op,
                    "axis %d is out of range for an input of rank %d "
                    "(expected %d to %d)",
                    (int)a, rank, -rank, rank - 1);
      return kTfLiteError;
    }
    reduced[a < 0 ? a + rank : a] = true;
  }
  return kTfLiteOk;
}

/* The output shape: reduced dims become 1 (keep_dims) or are dropped. NULL
 * when out of memory. */
static TfLiteIntArray* lg_reduce_output_shape(const TfLiteIntArray* in,
                                              const bool* reduced,
                                              bool keep_dims) {
  int rank = 0;
  for (int i = 0; i < in->size; ++i) {
    if (keep_dims || !reduced[i]) ++rank;
  }
  TfLiteIntArray* shape = TfLiteIntArrayCreate(rank);
  if (shape == NULL) return NULL;
  int k = 0;
  for (int i = 0; i < in->size; ++i) {
    if (!reduced[i]) {
      shape->data[k++] = in->data[i];
    } else if (keep_dims) {
      shape->data[k++] = 1;
    }
  }
  return shape;
}

/* Splits the merged groups 0..n-2 into kept (outer) and reduced lists. */
static void lg_reduce_split_groups(lg_reduce_plan* p, const int64_t* size,
                                   const bool* red, int n) {
  int64_t stride = p->inner;
  int64_t strides[LG_REDUCE_MAX_RANK];
  for (int k = n - 2; k >= 0; --k) {
    strides[k] = stride;
    stride *= size[k];
  }
  p->num_outer = p->num_red = 0;
  p->red_count = 1;
  for (int k = 0; k < n - 1; ++k) {
    if (red[k]) {
      p->red_size[p->num_red] = size[k];
      p->red_stride[p->num_red++] = strides[k];
      p->red_count *= size[k];
    } else {
      p->outer_size[p->num_outer] = size[k];
      p->outer_stride[p->num_outer++] = strides[k];
    }
  }
}

/* Builds the loop plan of reducing the dims marked in `reduced`. */
static void lg_reduce_make_plan(const TfLiteIntArray* dims, const bool* reduced,
                                lg_reduce_plan* p) {
  int64_t size[LG_REDUCE_MAX_RANK];
  bool red[LG_REDUCE_MAX_RANK];
  int n = 0;
  p->out_count = p->fold_count = 1;
  for (int i = 0; i < dims->size; ++i) {
    const int64_t d = dims->data[i];
    if (reduced[i]) {
      p->fold_count *= d;
    } else {
      p->out_count *= d;
    }
    if (d == 1) continue; /* adds nothing to the loops */
    if (n > 0 && red[n - 1] == reduced[i]) {
      size[n - 1] *= d;
    } else {
      size[n] = d;
      red[n++] = reduced[i];
    }
  }
  if (n == 0) { /* a single element */
    size[0] = 1;
    red[0] = false;
    n = 1;
  }
  p->in_count = p->out_count * p->fold_count;
  p->inner = size[n - 1];
  p->inner_reduced = red[n - 1];
  lg_reduce_split_groups(p, size, red, n);
  p->chunks =
      p->inner_reduced ? 1 : (p->inner + LG_REDUCE_CHUNK - 1) / LG_REDUCE_CHUNK;
  p->units = 0;
  if (p->out_count > 0) {
    p->units =
        p->inner_reduced ? p->out_count : p->out_count / p->inner * p->chunks;
  }
}

/* Reads the axes, plans and resizes the output. */
static TfLiteStatus lg_reduce_configure(TfLiteContext* context,
                                        lg_reduce_data* data,
                                        const TfLiteTensor* input,
                                        const TfLiteTensor* axis,
                                        TfLiteTensor* output, bool keep_dims) {
  bool reduced[LG_REDUCE_MAX_RANK];
  TF_LITE_ENSURE_STATUS(
      lg_reduce_axes(context, data->name, axis, input->dims->size, reduced));
  TfLiteIntArray* shape =
      lg_reduce_output_shape(input->dims, reduced, keep_dims);
  if (shape == NULL) {
    lg_kernel_log(context, data->name, "out of memory for the output shape");
    return kTfLiteError;
  }
  lg_reduce_make_plan(input->dims, reduced, &data->plan);
  lg_reduce_quant_fold(&data->quant, data->plan.fold_count);
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  return context->ResizeTensor(context, output, shape);
}

/* ---- Prepare ------------------------------------------------------------ */

static bool lg_reduce_is_quantized_type(TfLiteType type) {
  return type == kTfLiteInt8 || type == kTfLiteInt16 || type == kTfLiteUInt8;
}

static TfLiteStatus lg_reduce_check_types(TfLiteContext* context,
                                          const lg_reduce_data* data,
                                          const TfLiteTensor* input,
                                          const TfLiteTensor* axis,
                                          const TfLiteTensor* output) {
  const char* op = data->name;
  const bool logical = data->op == LG_REDUCE_ALL || data->op == LG_REDUCE_ANY;
  if (logical && input->type != kTfLiteBool) {
    lg_kernel_log(context, op, "input type %s is not supported (expected BOOL)",
                  TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  const bool quantized_op = data->op == LG_REDUCE_MEAN ||
                            data->op == LG_REDUCE_MAX ||
                            data->op == LG_REDUCE_MIN;
  const bool int8_sum = data->op == LG_REDUCE_SUM && input->type == kTfLiteInt8;
  /* UINT8: MEAN only (TFLite's legacy uint8 mean). */
  const bool u8_ok = input->type != kTfLiteUInt8 || data->op == LG_REDUCE_MEAN;
  if (!logical && input->type != kTfLiteFloat32 &&
      input->type != kTfLiteInt32 &&
      !(quantized_op && lg_reduce_is_quantized_type(input->type) && u8_ok) &&
      !int8_sum) {
    lg_kernel_log(context, op,
                  "input type %s is not supported (expected FLOAT32%s)",
                  TfLiteTypeGetName(input->type),
                  data->op == LG_REDUCE_MEAN  ? ", INT32, INT8, UINT8 or INT16"
                  : quantized_op              ? ", INT32, INT8 or INT16"
                  : data->op == LG_REDUCE_SUM ? ", INT32 or INT8"
                                              : " or INT32");
    return kTfLiteError;
  }
  if (output->type != input->type) {
    lg_kernel_log(context, op, "output type %s differs from input type %s",
                  TfLiteTypeGetName(output->type),
                  TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  if (axis->type != kTfLiteInt32) {
    lg_kernel_log(context, op, "axis type %s is not supported (expected INT32)",
                  TfLiteTypeGetName(axis->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* The quantization of INT8 / INT16 input and output: INT16 zero points 0;
 * MEAN's rescale; REDUCE_MAX / REDUCE_MIN need equal parameters. */
static TfLiteStatus lg_reduce_prepare_quantized(TfLiteContext* context,
                                                lg_reduce_data* data,
                                                const TfLiteTensor* input,
                                                const TfLiteTensor* output) {
  const char* op = data->name;
  lg_quant_layout in_q, out_q;
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, op, "input", input, &in_q));
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, op, "output", output, &out_q));
  if (input->type == kTfLiteInt16 &&
      (in_q.zero_point0 != 0 || out_q.zero_point0 != 0)) {
    lg_kernel_log(context, op,
                  "INT16 zero points must be 0 (input %d, output %d): INT16 "
                  "quantization is symmetric",
                  (int)in_q.zero_point0, (int)out_q.zero_point0);
    return kTfLiteError;
  }
  const bool rescales = data->op == LG_REDUCE_MEAN || data->op == LG_REDUCE_SUM;
  if (!rescales &&
      (in_q.scale0 != out_q.scale0 || in_q.zero_point0 != out_q.zero_point0)) {
    lg_kernel_log(context, op,
                  "input quantization (%g, %d) and output quantization (%g, "
                  "%d) must be equal",
                  (double)in_q.scale0, (int)in_q.zero_point0,
                  (double)out_q.scale0, (int)out_q.zero_point0);
    return kTfLiteError;
  }
  lg_reduce_quant* q = &data->quant;
  q->in_zp = in_q.zero_point0;
  q->out_zp = out_q.zero_point0;
  lg_quant_type_range(input->type, &q->type_min, &q->type_max);
  lg_quantize_multiplier((double)in_q.scale0 / (double)out_q.scale0,
                         &q->base_multiplier, &q->base_shift);
  q->sum_scale = in_q.scale0 / out_q.scale0;
  lg_reduce_quant_fold(q, data->plan.fold_count);
  return kTfLiteOk;
}

static TfLiteStatus lg_reduce_get(TfLiteContext* context, TfLiteNode* node,
                                  const char* op, const TfLiteTensor** input,
                                  const TfLiteTensor** axis,
                                  TfLiteTensor** output) {
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kAxisTensor, axis));
  return lg_kernel_output(context, node, op, kOutputTensor, output);
}

static bool lg_reduce_keep_dims(const TfLiteNode* node) {
  const TfLiteReducerParams* params = node->builtin_data;
  return params != NULL && params->keep_dims;
}

static TfLiteStatus lg_reduce_prepare(TfLiteContext* context,
                                      TfLiteNode* node) {
  lg_reduce_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, "REDUCE", "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  const char* op = data->name;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  const TfLiteTensor* input;
  const TfLiteTensor* axis;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_reduce_get(context, node, op, &input, &axis, &output));
  TF_LITE_ENSURE_STATUS(
      lg_reduce_check_types(context, data, input, axis, output));
  if (lg_reduce_is_quantized_type(input->type)) {
    TF_LITE_ENSURE_STATUS(
        lg_reduce_prepare_quantized(context, data, input, output));
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "axis", axis));
  if (input->dims->size > LG_REDUCE_MAX_RANK) {
    lg_kernel_log(context, op, "input rank %d is above the supported %d",
                  input->dims->size, LG_REDUCE_MAX_RANK);
    return kTfLiteError;
  }
  data->dynamic = !lg_kernel_is_constant(axis);
  if (data->dynamic) {
    lg_kernel_set_dynamic(output);
  } else {
    TF_LITE_ENSURE_STATUS(lg_reduce_configure(
        context, data, input, axis, output, lg_reduce_keep_dims(node)));
  }
  data->prepared = true;
  return kTfLiteOk;
}

/* ---- The loops ---------------------------------------------------------- */

static void lg_reduce_odometer_start(lg_reduce_odometer* o, int n,
                                     const int64_t* size, const int64_t* stride,
                                     int64_t flat) {
  o->n = n;
  o->size = size;
  o->stride = stride;
  o->offset = 0;
  for (int k = n - 1; k >= 0; --k) {
    /* A group of 0 is never walked (its loops run 0 times). */
    o->index[k] = size[k] > 0 ? flat % size[k] : 0;
    flat = size[k] > 0 ? flat / size[k] : 0;
    o->offset += o->index[k] * stride[k];
  }
}

static inline void lg_reduce_odometer_next(lg_reduce_odometer* o) {
  for (int k = o->n - 1; k >= 0; --k) {
    o->offset += o->stride[k];
    if (++o->index[k] < o->size[k]) return;
    o->offset -= o->stride[k] * o->size[k];
    o->index[k] = 0;
  }
}

LG_REDUCE_INLINE float lg_reduce_init_f32(lg_reduce_op op) {
  switch (op) {
    case LG_REDUCE_PROD:
      return 1.0f;
    case LG_REDUCE_MAX:
      return -FLT_MAX;
    case LG_REDUCE_MIN:
      return FLT_MAX;
    default:
      return 0.0f;
  }
}

LG_REDUCE_INLINE float lg_reduce_step_f32(lg_reduce_op op, float acc, float x) {
  switch (op) {
    case LG_REDUCE_PROD:
      return acc * x;
    case LG_REDUCE_MAX:
      return x > acc ? x : acc;
    case LG_REDUCE_MIN:
      return x < acc ? x : acc;
    default:
      return acc + x;
  }
}

/* acc[k] = step(acc[k], row[k]) for `rows` rows at `stride` on simd_f32's
 * fold: the same operations as lg_reduce_step_f32's in the same order (an
 * unbounded clamp is none; MAX and MIN take the row's value only when it
 * is strictly greater / smaller). */
static void lg_reduce_fold_f32(lg_reduce_op op, float* acc, const float* x,
                               int64_t stride, int64_t rows, int m) {
  switch (op) {
    case LG_REDUCE_PROD:
      lg_f32_fold_rows(LG_F32_MUL, false, acc, x, stride, rows, m);
      break;
    case LG_REDUCE_MAX:
      lg_f32_fold_rows(LG_F32_MAX, true, acc, x, stride, rows, m);
      break;
    case LG_REDUCE_MIN:
      lg_f32_fold_rows(LG_F32_MIN, true, acc, x, stride, rows, m);
      break;
    default:
      lg_f32_fold_rows(LG_F32_ADD, false, acc, x, stride, rows, m);
      break;
  }
}

LG_REDUCE_INLINE float lg_reduce_final_f32(lg_reduce_op op, float acc,
                                           int64_t count) {
  if (op != LG_REDUCE_MEAN) return acc;
  return count > 0 ? acc / (float)count : NAN;
}

/* int32 accumulates in int64: SUM and PROD wrap (unsigned arithmetic, cut
 * to 32 bits at the end, as TFLite's int32 arithmetic wraps), MEAN's sum
 * cannot overflow. */
LG_REDUCE_INLINE int64_t lg_reduce_init_i32(lg_reduce_op op) {
  switch (op) {
    case LG_REDUCE_PROD:
      return 1;
    case LG_REDUCE_MAX:
      return INT32_MIN;
    case LG_REDUCE_MIN:
      return INT32_MAX;
    default:
      return 0;
  }
}

LG_REDUCE_INLINE int64_t lg_reduce_step_i32(lg_reduce_op op, int64_t acc,
                                            int32_t x) {
  switch (op) {
    case LG_REDUCE_PROD:
      return (int64_t)((uint64_t)acc * (uint64_t)(int64_t)x);
    case LG_REDUCE_MAX:
      return x > acc ? x : acc;
    case LG_REDUCE_MIN:
      return x < acc ? x : acc;
    case LG_REDUCE_ALL:
      return acc & (x != 0);
    case LG_REDUCE_ANY:
      return acc | (x != 0);
    default:
      return (int64_t)((uint64_t)acc + (uint64_t)(int64_t)x);
  }
}

LG_REDUCE_INLINE int32_t lg_reduce_final_i32(lg_reduce_op op, int64_t acc,
                                             int64_t count) {
  if (op == LG_REDUCE_MEAN) return count > 0 ? (int32_t)(acc / count) : 0;
  return (int32_t)(uint32_t)(uint64_t)acc;
}

/* The most outputs lg_reduce_fold_side_f32 folds side by side. */
#define LG_REDUCE_SIDE 8

/* Folds outputs [u, u + width) side by side (width at most LG_REDUCE_SIDE,
 * a constant where this is inlined), advancing `outer` past them. */
LG_REDUCE_INLINE void lg_reduce_fold_block_f32(lg_reduce_op op,
                                               const lg_reduce_plan* p,
                                               const float* in, float* out,
                                               int64_t u, int width,
                                               lg_reduce_odometer* outer) {
  const float* x[LG_REDUCE_SIDE];
  float a[LG_REDUCE_SIDE];
#pragma GCC unroll 8
  for (int k = 0; k < width; ++k) {
    x[k] = in + outer->offset;
    a[k] = lg_reduce_init_f32(op);
    lg_reduce_odometer_next(outer);
  }
  for (int64_t i = 0; i < p->inner; ++i) {
#pragma GCC unroll 8
    for (int k = 0; k < width; ++k)
      a[k] = lg_reduce_step_f32(op, a[k], x[k][i]);
  }
#pragma GCC unroll 8
  for (int k = 0; k < width; ++k) {
    out[u + k] = lg_reduce_final_f32(op, a[k], p->fold_count);
  }
}

/* When each output folds one contiguous run (no reduced group outside the
 * innermost), eight outputs (then four) are folded side by side:
 * independent chains keep the adder busy (eight cover an add's latency on
 * two ports; four left half of a layer norm's MEAN waiting) while each
 * output still sums in its own order. Returns the first unit left for the
 * caller; `outer` is advanced past the units done. */
LG_REDUCE_INLINE int64_t lg_reduce_fold_side_f32(lg_reduce_op op,
                                                 const lg_reduce_plan* p,
                                                 const float* in, float* out,
                                                 int64_t u0, int64_t u1,
                                                 lg_reduce_odometer* outer) {
  int64_t u = u0;
  for (; u + LG_REDUCE_SIDE <= u1; u += LG_REDUCE_SIDE) {
    lg_reduce_fold_block_f32(op, p, in, out, u, LG_REDUCE_SIDE, outer);
  }
  if (u + 4 <= u1) {
    lg_reduce_fold_block_f32(op, p, in, out, u, 4, outer);
    u += 4;
  }
  return u;
}

/* Units [u0, u1) when the innermost group is reduced: unit u is output u,
 * folding `inner` contiguous elements at every reduced position. */
LG_REDUCE_INLINE void lg_reduce_fold_runs_f32(lg_reduce_op op,
                                              const lg_reduce_plan* p,
                                              const float* in, float* out,
                                              int64_t u0, int64_t u1) {
  lg_reduce_odometer outer, red;
  lg_reduce_odometer_start(&outer, p->num_outer, p->outer_size, p->outer_stride,
                           u0);
  int64_t u = u0;
  if ((op == LG_REDUCE_SUM || op == LG_REDUCE_MEAN) && p->num_red == 0 &&
      p->num_outer == 1 && u1 - u0 >= LG_REDUCE_LANE_ROWS) {
    /* Runs at one stride (a layer norm's MEAN over the last axis): summed
     * in vector lanes, each in its own order. */
    lg_f32_row_sums(in + outer.offset, p->outer_stride[0], u1 - u0, p->inner,
                    out + u0);
    for (; u < u1; ++u) out[u] = lg_reduce_final_f32(op, out[u], p->fold_count);
    return;
  }
  if (p->num_red == 0)
    u = lg_reduce_fold_side_f32(op, p, in, out, u0, u1, &outer);
  for (; u < u1; ++u, lg_reduce_odometer_next(&outer)) {
    float acc = lg_reduce_init_f32(op);
    lg_reduce_odometer_start(&red, p->num_red, p->red_size, p->red_stride, 0);
    for (int64_t r = 0; r < p->red_count; ++r) {
      const float* x = in + outer.offset + red.offset;
      for (int64_t i = 0; i < p->inner; ++i) {
        acc = lg_reduce_step_f32(op, acc, x[i]);
      }
      lg_reduce_odometer_next(&red);
    }
    out[u] = lg_reduce_final_f32(op, acc, p->fold_count);
  }
}

/* Units [u0, u1) when the innermost group is kept: unit u is chunk
 * u % chunks (LG_REDUCE_CHUNK outputs) of output row u / chunks. */
LG_REDUCE_INLINE void lg_reduce_fold_rows_f32(lg_reduce_op op,
                                              const lg_reduce_plan* p,
                                              const float* in, float* out,
                                              int64_t u0, int64_t u1) {
  lg_reduce_odometer outer, red;
  int64_t row = u0 / p->chunks;
  lg_reduce_odometer_start(&outer, p->num_outer, p->outer_size, p->outer_stride,
                           row);
  for (int64_t u = u0; u < u1; ++u) {
    if (u / p->chunks != row) { /* the next row */
      lg_reduce_odometer_next(&outer);
      ++row;
    }
    const int64_t c0 = u % p->chunks * LG_REDUCE_CHUNK;
    const int64_t rest = p->inner - c0;
    const int m = rest < LG_REDUCE_CHUNK ? (int)rest : LG_REDUCE_CHUNK;
    float acc[LG_REDUCE_CHUNK];
    for (int k = 0; k < m; ++k) acc[k] = lg_reduce_init_f32(op);
    if (p->num_red == 1) {
      /* One reduced group: its rows lie at a single stride (a global
       * pooling over H and W). */
      lg_reduce_fold_f32(op, acc, in + outer.offset + c0, p->red_stride[0],
                         p->red_count, m);
    } else {
      lg_reduce_odometer_start(&red, p->num_red, p->red_size, p->red_stride, 0);
      for (int64_t r = 0; r < p->red_count; ++r) {
        const float* x = in + outer.offset + red.offset + c0;
        for (int k = 0; k < m; ++k) {
          acc[k] = lg_reduce_step_f32(op, acc[k], x[k]);
        }
        lg_reduce_odometer_next(&red);
      }
    }
    float* dst = out + row * p->inner + c0;
    for (int k = 0; k < m; ++k)
      dst[k] = lg_reduce_final_f32(op, acc[k], p->fold_count);
  }
}

/* The int32 twins of the two loops above. */
LG_REDUCE_INLINE void lg_reduce_fold_runs_i32(lg_reduce_op op,
                                              const lg_reduce_plan* p,
                                              const int32_t* in, int32_t* out,
                                              int64_t u0, int64_t u1) {
  lg_reduce_odometer outer, red;
  lg_reduce_odometer_start(&outer, p->num_outer, p->outer_size, p->outer_stride,
                           u0);
  for (int64_t u = u0; u < u1; ++u, lg_reduce_odometer_next(&outer)) {
    int64_t acc = lg_reduce_init_i32(op);
    lg_reduce_odometer_start(&red, p->num_red, p->red_size, p->red_stride, 0);
    for (int64_t r = 0; r < p->red_count; ++r) {
      const int32_t* x = in + outer.offset + red.offset;
      for (int64_t i = 0; i < p->inner; ++i) {
        acc = lg_reduce_step_i32(op, acc, x[i]);
      }
      lg_reduce_odometer_next(&red);
    }
    out[u] = lg_reduce_final_i32(op, acc, p->fold_count);
  }
}

LG_REDUCE_INLINE void lg_reduce_fold_rows_i32(lg_reduce_op op,
                                              const lg_reduce_plan* p,
                                              const int32_t* in, int32_t* out,
                                              int64_t u0, int64_t u1) {
  lg_reduce_odometer outer, red;
  int64_t row = u0 / p->chunks;
  lg_reduce_odometer_start(&outer, p->num_outer, p->outer_size, p->outer_stride,
                           row);
  for (int64_t u = u0; u < u1; ++u) {
    if (u / p->chunks != row) { /* the next row */
      lg_reduce_odometer_next(&outer);
      ++row;
    }
    const int64_t c0 = u % p->chunks * LG_REDUCE_CHUNK;
    const int64_t rest = p->inner - c0;
    const int m = rest < LG_REDUCE_CHUNK ? (int)rest : LG_REDUCE_CHUNK;
    int64_t acc[LG_REDUCE_CHUNK];
    for (int k = 0; k < m; ++k) acc[k] = lg_reduce_init_i32(op);
    lg_reduce_odometer_start(&red, p->num_red, p->red_size, p->red_stride, 0);
    for (int64_t r = 0; r < p->red_count; ++r) {
      const int32_t* x = in + outer.offset + red.offset + c0;
      for (int k = 0; k < m; ++k) acc[k] = lg_reduce_step_i32(op, acc[k], x[k]);
      lg_reduce_odometer_next(&red);
    }
    int32_t* dst = out + row * p->inner + c0;
    for (int k = 0; k < m; ++k)
      dst[k] = lg_reduce_final_i32(op, acc[k], p->fold_count);
  }
}

/* Quantized SUM: TFLite's float rescale of the int32 sum (see the top). */
LG_REDUCE_INLINE int32_t lg_reduce_final_sum_q(int64_t acc, int64_t count,
                                               const lg_reduce_quant* q) {
  if (count == 0) return 0;
  const float scale = q->sum_scale;
  const float bias = (float)-q->in_zp * scale * (float)count;
  /* TFLite keeps the sum in int32 (it wraps there). */
  const float scaled = (float)(int32_t)(uint32_t)(uint64_t)acc * scale;
  const float v = roundf(scaled + bias) + (float)q->out_zp;
  if (!(v >= (float)q->type_min)) return q->type_min;
  return v > (float)q->type_max ? q->type_max : (int32_t)v;
}

/* Quantized: MAX and MIN keep the stored integer; MEAN and SUM rescale
 * their sum. */
LG_REDUCE_INLINE int32_t lg_reduce_final_q(lg_reduce_op op, int64_t acc,
                                           int64_t count,
                                           const lg_reduce_quant* q) {
  if (op == LG_REDUCE_SUM) return lg_reduce_final_sum_q(acc, count, q);
  if (op != LG_REDUCE_MEAN) return (int32_t)acc;
  if (count == 0) return 0;
  /* TFLite keeps S - zp * n in int32 (it wraps there). */
  const int32_t centered =
      (int32_t)(uint32_t)(uint64_t)(acc - (int64_t)q->in_zp * count);
  int32_t v =
      lg_multiply_by_quantized_multiplier(centered, q->multiplier, q->shift) +
      q->out_zp;
  v = v < q->type_min ? q->type_min : v;
  return v > q->type_max ? q->type_max : v;
}

LG_REDUCE_INLINE int64_t lg_reduce_init_q(lg_reduce_op op,
                                          const lg_reduce_quant* q) {
  if (op == LG_REDUCE_MAX) return q->type_min;
  if (op == LG_REDUCE_MIN) return q->type_max;
  return op == LG_REDUCE_ALL ? 1 : 0;
}

/* The quantized twins of the loops, for storage type T: int64 sums; BOOL
 * (ALL, ANY) uses them too, with 0 / 1 accumulators. */
#define LG_REDUCE_QUANT_LOOPS(SUFFIX, T)                                     \
  LG_REDUCE_INLINE void lg_reduce_fold_runs_##SUFFIX(                        \
      lg_reduce_op op, const lg_reduce_plan* p, const lg_reduce_quant* q,    \
      const T* in, T* out, int64_t u0, int64_t u1) {                         \
    lg_reduce_odometer outer, red;                                           \
    lg_reduce_odometer_start(&outer, p->num_outer, p->outer_size,            \
                             p->outer_stride, u0);                           \
    for (int64_t u = u0; u < u1; ++u, lg_reduce_odometer_next(&outer)) {     \
      int64_t acc = lg_reduce_init_q(op, q);                                 \
      lg_reduce_odometer_start(&red, p->num_red, p->red_size, p->red_stride, \
                               0);                                           \
      for (int64_t r = 0; r < p->red_count; ++r) {                           \
        const T* x = in + outer.offset + red.offset;                         \
        for (int64_t i = 0; i < p->inner; ++i) {                             \
          acc = lg_reduce_step_i32(op, acc, x[i]);                           \
        }                                                                    \
        lg_reduce_odometer_next(&red);                                       \
      }                                                                      \
      out[u] = (T)lg_reduce_final_q(op, acc, p->fold_count, q);              \
    }                                                                        \
  }                                                                          \
                                                                             \
  LG_REDUCE_INLINE void lg_reduce_fold_rows_##SUFFIX(                        \
      lg_reduce_op op, const lg_reduce_plan* p, const lg_reduce_quant* q,    \
      const T* in, T* out, int64_t u0, int64_t u1) {                         \
    lg_reduce_odometer outer, red;                                           \
    int64_t row = u0 / p->chunks;                                            \
    lg_reduce_odometer_start(&outer, p->num_outer, p->outer_size,            \
                             p->outer_stride, row);                          \
    for (int64_t u = u0; u < u1; ++u) {                                      \
      if (u / p->chunks != row) {                                            \
        lg_reduce_odometer_next(&outer);                                     \
        ++row;                                                               \
      }                                                                      \
      const int64_t c0 = u % p->chunks * LG_REDUCE_CHUNK;                    \
      const int64_t rest = p->inner - c0;                                    \
      const int m = rest < LG_REDUCE_CHUNK ? (int)rest : LG_REDUCE_CHUNK;    \
      int64_t acc[LG_REDUCE_CHUNK];                                          \
      for (int k = 0; k < m; ++k) acc[k] = lg_reduce_init_q(op, q);          \
      lg_reduce_odometer_start(&red, p->num_red, p->red_size, p->red_stride, \
                               0);                                           \
      for (int64_t r = 0; r < p->red_count; ++r) {                           \
        const T* x = in + outer.offset + red.offset + c0;                    \
        for (int k = 0; k < m; ++k) {                                        \
          acc[k] = lg_reduce_step_i32(op, acc[k], x[k]);                     \
        }                                                                    \
        lg_reduce_odometer_next(&red);                                       \
      }                                                                      \
      T* dst = out + row * p->inner + c0;                                    \
      for (int k = 0; k < m; ++k) {                                          \
        dst[k] = (T)lg_reduce_final_q(op, acc[k], p->fold_count, q);         \
      }                                                                      \
    }                                                                        \
  }

LG_REDUCE_QUANT_LOOPS(i8, int8_t)
LG_REDUCE_QUANT_LOOPS(i16, int16_t)
/* One-byte elements: UINT8 (MEAN) and BOOL (REDUCE_ALL / REDUCE_ANY). */
LG_REDUCE_QUANT_LOOPS(u8, uint8_t)

LG_REDUCE_INLINE void lg_reduce_units(lg_reduce_op op, const lg_reduce_job* j,
                                      int64_t u0, int64_t u1) {
  const lg_reduce_plan* p = j->plan;
  if (j->type == kTfLiteInt8) {
    if (p->inner_reduced) {
      lg_reduce_fold_runs_i8(op, p, j->quant, j->input, j->output, u0, u1);
    } else {
      lg_reduce_fold_rows_i8(op, p, j->quant, j->input, j->output, u0, u1);
    }
  } else if (j->type == kTfLiteUInt8 || j->type == kTfLiteBool) {
    if (p->inner_reduced) {
      lg_reduce_fold_runs_u8(op, p, j->quant, j->input, j->output, u0, u1);
    } else {
      lg_reduce_fold_rows_u8(op, p, j->quant, j->input, j->output, u0, u1);
    }
  } else if (j->type == kTfLiteInt16) {
    if (p->inner_reduced) {
      lg_reduce_fold_runs_i16(op, p, j->quant, j->input, j->output, u0, u1);
    } else {
      lg_reduce_fold_rows_i16(op, p, j->quant, j->input, j->output, u0, u1);
    }
  } else if (j->type == kTfLiteFloat32) {
    if (p->inner_reduced) {
      lg_reduce_fold_runs_f32(op, p, j->input, j->output, u0, u1);
    } else {
      lg_reduce_fold_rows_f32(op, p, j->input, j->output, u0, u1);
    }
  } else {
    if (p->inner_reduced) {
      lg_reduce_fold_runs_i32(op, p, j->input, j->output, u0, u1);
    } else {
      lg_reduce_fold_rows_i32(op, p, j->input, j->output, u0, u1);
    }
  }
}

/* Task `index` of num_tasks equal shares of the work units. */
static void lg_reduce_task(void* ctx, int index) {
  const lg_reduce_job* job = ctx;
  const int64_t units = job->plan->units;
  const int64_t u0 = units * index / job->num_tasks;
  const int64_t u1 = units * (index + 1) / job->num_tasks;
  switch (job->op) {
    case LG_REDUCE_SUM:
      lg_reduce_units(LG_REDUCE_SUM, job, u0, u1);
      break;
    case LG_REDUCE_MEAN:
      lg_reduce_units(LG_REDUCE_MEAN, job, u0, u1);
      break;
    case LG_REDUCE_PROD:
      lg_reduce_units(LG_REDUCE_PROD, job, u0, u1);
      break;
    case LG_REDUCE_MAX:
      lg_reduce_units(LG_REDUCE_MAX, job, u0, u1);
      break;
    case LG_REDUCE_MIN:
      lg_reduce_units(LG_REDUCE_MIN, job, u0, u1);
      break;
    case LG_REDUCE_ALL:
      lg_reduce_units(LG_REDUCE_ALL, job, u0, u1);
      break;
    case LG_REDUCE_ANY:
      lg_reduce_units(LG_REDUCE_ANY, job, u0, u1);
      break;
  }
}

/* ---- Invoke ------------------------------------------------------------- */

static TfLiteStatus lg_reduce_invoke(TfLiteContext* context, TfLiteNode* node) {
  lg_reduce_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, data != NULL ? data->name : "REDUCE",
                  "invoked before a successful prepare");
    return kTfLiteError;
  }
  const char* op = data->name;
  const TfLiteTensor* input;
  const TfLiteTensor* axis;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_reduce_get(context, node, op, &input, &axis, &output));
  if (data->dynamic) {
    TF_LITE_ENSURE_STATUS(lg_reduce_configure(
        context, data, input, axis, output, lg_reduce_keep_dims(node)));
  }
  const lg_reduce_plan* plan = &data->plan;
  if (lg_kernel_num_elements(input) != plan->in_count ||
      lg_kernel_num_elements(output) != plan->out_count) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (plan->out_count == 0) return kTfLiteOk;
  if ((plan->in_count > 0 && input->data.raw == NULL) ||
      output->data.raw == NULL) {
    lg_kernel_log(context, op, "a tensor has no data");
    return kTfLiteError;
  }
  lg_reduce_job job = {
      .plan = plan,
      .op = data->op,
      .type = input->type,
      .input = input->data.raw,
      .output = output->data.raw,
      .quant = &data->quant,
      .num_tasks = 1,
  };
  lg_thread_pool* pool = lg_kernel_thread_pool(context);
  const int threads = lg_thread_pool_size(pool);
  if (threads > 1 && plan->in_count >= LG_REDUCE_MIN_PARALLEL) {
    job.num_tasks = lg_thread_pool_tasks(pool, plan->units);
  }
  lg_thread_pool_run(pool, lg_reduce_task, &job, job.num_tasks);
  return kTfLiteOk;
}

/* ---- Registrations ------------------------------------------------------ */

static void* lg_reduce_init_variant(lg_reduce_op op, const char* name) {
  lg_reduce_data* data = calloc(1, sizeof(lg_reduce_data));
  if (data != NULL) {
    data->op = op;
    data->name = name;
  }
  return data;
}

LG_KERNEL_FAMILY_REGISTRATION(MEAN, lg_reduce, LG_REDUCE_MEAN)
LG_KERNEL_FAMILY_REGISTRATION(SUM, lg_reduce, LG_REDUCE_SUM)
LG_KERNEL_FAMILY_REGISTRATION(REDUCE_PROD, lg_reduce, LG_REDUCE_PROD)
LG_KERNEL_FAMILY_REGISTRATION(REDUCE_MAX, lg_reduce, LG_REDUCE_MAX)
LG_KERNEL_FAMILY_REGISTRATION(REDUCE_MIN, lg_reduce, LG_REDUCE_MIN)
LG_KERNEL_FAMILY_REGISTRATION(REDUCE_ALL, lg_reduce, LG_REDUCE_ALL)
LG_KERNEL_FAMILY_REGISTRATION(REDUCE_ANY, lg_reduce, LG_REDUCE_ANY)
