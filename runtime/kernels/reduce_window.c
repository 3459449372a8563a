/* REDUCE_WINDOW (TFLite's builtin) and STABLEHLO_REDUCE_WINDOW: each output
 * element folds one window of the input, starting from the init value.
 *
 * Inputs: the input (rank 1..6), the init value (one element of the input's
 * type), and three constant INT64 tensors of rank elements: window_shape,
 * window_strides and window_dilations (all > 0). The function comes from
 * ReduceWindowOptions (builtin_options_2): ADD, MUL, MINIMUM, MAXIMUM, ALL,
 * ANY. No padding and no base dilation (the converter pads first).
 *
 * Output dim i = (d - w') / stride + 1 with w' = (w - 1) * dilation + 1, or
 * 0 when d < w'. Output element o folds, in row-major window order, the
 * input elements at o_i * stride_i + k_i * dilation_i, as LiteRT does:
 * accu = f(accu, x) with MAXIMUM accu >= x ? accu : x and MINIMUM
 * accu <= x ? accu : x (so a NaN in the input is kept, a NaN accumulator
 * replaced), ALL / ANY logical (0 or 1). Integer sums and products wrap.
 * Types: FLOAT32, FLOAT64, INT8, INT16, INT32, INT64, UINT8, BOOL (BOOL is
 * folded as int8, as LiteRT).
 *
 * STABLEHLO_REDUCE_WINDOW (StablehloReduceWindowOptions in
 * builtin_options_2) takes the input and the init value only; the window
 * attributes are options, and base dilations and (low, high) padding per dim
 * are added: the window slides over the input dilated by base_dilations and
 * padded (negative padding crops), both with the init value, which LiteRT
 * materialises and folds like any element; the fold here reads the init
 * value at those positions instead. The function is the body subgraph's one
 * operator (ADD or STABLEHLO_ADD, MUL or STABLEHLO_MULTIPLY, MAXIMUM,
 * MINIMUM, LOGICAL_AND or STABLEHLO_AND, LOGICAL_OR or STABLEHLO_OR, as
 * LiteRT recognises; kernel_context.h's lg_kernel_region_binary).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_RW_OP "REDUCE_WINDOW"
#define LG_RW_MAX_RANK 6

typedef struct lg_rw_data {
  bool prepared;
  const char* op; /* the op's name, for Invoke's messages */
  int rank;
  TfLiteReduceWindowFunction fn;
  int in_dims[LG_RW_MAX_RANK];
  int out_dims[LG_RW_MAX_RANK];
  int64_t window[LG_RW_MAX_RANK];
  int64_t stride[LG_RW_MAX_RANK];
  int64_t dilation[LG_RW_MAX_RANK];
  int64_t in_strides[LG_RW_MAX_RANK];
  /* STABLEHLO_REDUCE_WINDOW (1 and 0 for REDUCE_WINDOW): the input's base
   * dilation, low padding, and its size once dilated. */
  int64_t base_dilation[LG_RW_MAX_RANK];
  int64_t pad_low[LG_RW_MAX_RANK];
  int64_t dilated_dims[LG_RW_MAX_RANK];
} lg_rw_data;

static void* lg_rw_init(TfLiteContext* context, const char* buffer,
                        size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_rw_data));
}

/* Reads one of the window tensors (input `index`, named `what`) into out. */
static TfLiteStatus lg_rw_read_window(TfLiteContext* context,
                                      const TfLiteNode* node, int index,
                                      const char* what, int rank,
                                      int64_t* out) {
  const TfLiteTensor* t;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, LG_RW_OP, index, &t));
  if (t->type != kTfLiteInt64) {
    lg_kernel_log(context, LG_RW_OP,
                  "%s type %s is not supported (expected "
                  "INT64)",
                  what, TfLiteTypeGetName(t->type));
    return kTfLiteError;
  }
  if (!lg_kernel_is_constant(t)) {
    lg_kernel_log(context, LG_RW_OP, "%s must be a constant tensor", what);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, LG_RW_OP, what, t));
  if (lg_kernel_num_elements(t) != rank) {
    lg_kernel_log(context, LG_RW_OP,
                  "%s has %lld elements, expected %d (the input rank)", what,
                  (long long)lg_kernel_num_elements(t), rank);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, LG_RW_OP, what, t));
  for (int i = 0; i < rank; ++i) {
    int64_t v;
    memcpy(&v, (const char*)t->data.raw_const + 8 * (size_t)i, sizeof(v));
    if (v <= 0 || v > INT32_MAX) {
      lg_kernel_log(context, LG_RW_OP, "%s[%d] = %lld is out of range [1, %d]",
                    what, i, (long long)v, INT32_MAX);
      return kTfLiteError;
    }
    out[i] = v;
  }
  return kTfLiteOk;
}

/* Output dims from the window attributes in `data` (and, for StableHLO, the
 * (low, high) `padding` pairs; NULL: none), then the output resized. */
static TfLiteStatus lg_rw_finish_prepare(TfLiteContext* context, const char* op,
                                         lg_rw_data* data,
                                         const TfLiteTensor* input,
                                         const int64_t* padding,
                                         TfLiteTensor* output) {
  const int rank = data->rank;
  int64_t window_elements = 1;
  for (int i = 0; i < rank; ++i) {
    window_elements =
        lg_shape_mul_capped(window_elements, data->window[i], INT64_MAX);
  }
  if (window_elements > INT32_MAX) {
    lg_kernel_log(context, op, "the window has more than %d elements",
                  INT32_MAX);
    return kTfLiteError;
  }
  bool padded_any = false;
  for (int i = 0; padding != NULL && i < 2 * rank; ++i) {
    padded_any = padded_any || padding[i] != 0;
  }
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    const int64_t d = input->dims->data[i];
    data->in_dims[i] = (int)d;
    data->in_strides[i] = stride;
    stride *= d;
    /* Every factor is at most INT32_MAX: no overflow. */
    data->dilated_dims[i] = d == 0 ? 0 : (d - 1) * data->base_dilation[i] + 1;
    const int64_t padded =
        data->dilated_dims[i] +
        (padding != NULL ? padding[2 * i] + padding[2 * i + 1] : 0);
    if (padded < 0 || padded > INT32_MAX) {
      lg_kernel_log(context, op,
                    "dimension %d is %lld once dilated and padded (expected "
                    "0 to %d)",
                    i, (long long)padded, INT32_MAX);
      return kTfLiteError;
    }
    if (padded == 0 && padded_any) {
      /* LiteRT refuses to pad into an empty tensor (it does not refuse
       * an empty input it need not pad). */
      lg_kernel_log(context, op,
                    "the padding gives an empty tensor (dimension %d is 0 "
                    "once dilated and padded)",
                    i);
      return kTfLiteError;
    }
    const int64_t span = (data->window[i] - 1) * data->dilation[i] + 1;
    data->out_dims[i] =
        padded < span ? 0 : (int)((padded - span) / data->stride[i] + 1);
  }
  TF_LITE_ENSURE_STATUS(
      lg_shape_resize(context, op, output, data->out_dims, rank));
  data->prepared = true;
  return kTfLiteOk;
}

/* The input, init value and output types and shapes both ops share. */
static TfLiteStatus lg_rw_check_tensors(TfLiteContext* context, const char* op,
                                        const TfLiteTensor* input,
                                        const TfLiteTensor* init,
                                        const TfLiteTensor* output) {
  const uint32_t types =
      LG_SHAPE_TYPE(kTfLiteFloat32) | LG_SHAPE_TYPE(kTfLiteFloat64) |
      LG_SHAPE_TYPE(kTfLiteInt8) | LG_SHAPE_TYPE(kTfLiteInt16) |
      LG_SHAPE_TYPE(kTfLiteInt32) | LG_SHAPE_TYPE(kTfLiteInt64) |
      LG_SHAPE_TYPE(kTfLiteUInt8) | LG_SHAPE_TYPE(kTfLiteBool);
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_type(context, op, "input", input->type, types));
  if (init->type != input->type) {
    lg_kernel_log(context, op, "init value type %s differs from input type %s",
                  TfLiteTypeGetName(init->type),
                  TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, input, output));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "input", input, LG_RW_MAX_RANK));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "init value", init));
  if (lg_kernel_num_elements(init) != 1) {
    lg_kernel_log(context, op, "the init value has %lld elements, not 1",
                  (long long)lg_kernel_num_elements(init));
    return kTfLiteError;
  }
  if (input->dims->size < 1) {
    lg_kernel_log(context, op, "the input is a scalar (rank 1 to %d)",
                  LG_RW_MAX_RANK);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_rw_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_RW_OP;
  lg_rw_data* data = node->user_data;
  const TfLiteReduceWindowParams* params = node->builtin_data;
  if (data == NULL || params == NULL) {
    lg_kernel_log(context, op, "no %s",
                  data == NULL ? "kernel data" : "params");
    return kTfLiteError;
  }
  data->prepared = false;
  data->op = op;
  const TfLiteTensor *input, *init;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 5, 5, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &init));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_rw_check_tensors(context, op, input, init, output));
  const int rank = input->dims->size;
  const int fn = (int)params->reduce_function;
  if (fn < TfLiteReduceWindowFunctionAdd ||
      fn > TfLiteReduceWindowFunctionAny) {
    lg_kernel_log(context, op,
                  "reduce_function %d is not supported (expected ADD, MUL, "
                  "MINIMUM, MAXIMUM, ALL or ANY: 1 to 6)",
                  fn);
    return kTfLiteError;
  }
  data->fn = (TfLiteReduceWindowFunction)fn;
  data->rank = rank;
  TF_LITE_ENSURE_STATUS(
      lg_rw_read_window(context, node, 2, "window_shape", rank, data->window));
  TF_LITE_ENSURE_STATUS(lg_rw_read_window(context, node, 3, "window_strides",
                                          rank, data->stride));
  TF_LITE_ENSURE_STATUS(lg_rw_read_window(context, node, 4, "window_dilations",
                                          rank, data->dilation));
  for (int i = 0; i < rank; ++i) {
    data->base_dilation[i] = 1;
    data->pad_low[i] = 0;
  }
  return lg_rw_finish_prepare(context, op, data, input, NULL, output);
}

/* Defines the fold of one window for element type T (U: the unsigned type
 * integer sums and products wrap in). */
#define LG_RW_FOLD(sfx, T, U)                                               \
  static void lg_rw_run_##sfx(const lg_rw_data* d, const void* in_v,        \
                              const void* init_v, void* out_v, int64_t n) { \
    const T* in = (const T*)in_v;                                           \
    T* out = (T*)out_v;                                                     \
    T init;                                                                 \
    memcpy(&init, init_v, sizeof(T));                                       \
    const int rank = d->rank;                                               \
    int64_t wcount = 1;                                                     \
    for (int i = 0; i < rank; ++i) wcount *= d->window[i];                  \
    int64_t o_idx[LG_RW_MAX_RANK] = {0};                                    \
    for (int64_t k = 0; k < n; ++k) {                                       \
      T accu = init;                                                        \
      int64_t w_idx[LG_RW_MAX_RANK] = {0};                                  \
      for (int64_t w = 0; w < wcount; ++w) {                                \
        int64_t at = 0;                                                     \
        bool hole = false;                                                  \
        for (int i = 0; i < rank && !hole; ++i) {                           \
          /* The position in the dilated input (padding removed). */        \
          const int64_t q = o_idx[i] * d->stride[i] +                       \
                            w_idx[i] * d->dilation[i] - d->pad_low[i];      \
          hole = q < 0 || q >= d->dilated_dims[i] ||                        \
                 q % d->base_dilation[i] != 0;                              \
          at += q / d->base_dilation[i] * d->in_strides[i];                 \
        }                                                                   \
        const T x = hole ? init : in[at];                                   \
        switch (d->fn) {                                                    \
          case TfLiteReduceWindowFunctionAdd:                               \
            accu = (T)((U)accu + (U)x);                                     \
            break;                                                          \
          case TfLiteReduceWindowFunctionMul:                               \
            accu = (T)((U)accu * (U)x);                                     \
            break;                                                          \
          case TfLiteReduceWindowFunctionMin:                               \
            accu = accu <= x ? accu : x;                                    \
            break;                                                          \
          case TfLiteReduceWindowFunctionMax:                               \
            accu = accu >= x ? accu : x;                                    \
            break;                                                          \
          case TfLiteReduceWindowFunctionAll:                               \
            accu = (T)((accu != 0) && (x != 0));                            \
            break;                                                          \
          default:                                                          \
            accu = (T)((accu != 0) || (x != 0));                            \
            break;                                                          \
        }                                                                   \
        for (int i = rank - 1; i >= 0; --i) {                               \
          if (++w_idx[i] < d->window[i]) break;                             \
          w_idx[i] = 0;                                                     \
        }                                                                   \
      }                                                                     \
      out[k] = accu;                                                        \
      for (int i = rank - 1; i >= 0; --i) {                                 \
        if (++o_idx[i] < d->out_dims[i]) break;                             \
        o_idx[i] = 0;                                                       \
      }                                                                     \
    }                                                                       \
  }

LG_RW_FOLD(f32, float, float)
LG_RW_FOLD(f64, double, double)
LG_RW_FOLD(i8, int8_t, uint32_t)
LG_RW_FOLD(u8, uint8_t, uint32_t)
LG_RW_FOLD(i16, int16_t, uint32_t)
LG_RW_FOLD(i32, int32_t, uint32_t)
LG_RW_FOLD(i64, int64_t, uint64_t)

static TfLiteStatus lg_rw_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_rw_data* data = node->user_data;
  const char* op = data != NULL && data->op != NULL ? data->op : LG_RW_OP;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, op, "invoked before a successful prepare");
    return kTfLiteError;
  }
  const TfLiteTensor *input, *init;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &init));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  if (input->dims->size != data->rank || output->dims->size != data->rank) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  for (int i = 0; i < data->rank; ++i) {
    if (input->dims->data[i] != data->in_dims[i] ||
        output->dims->data[i] != data->out_dims[i]) {
      lg_kernel_log(context, op, "tensor shapes changed since prepare");
      return kTfLiteError;
    }
  }
  const int64_t n = lg_kernel_num_elements(output);
  if (n == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "init value", init));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  const void* in = input->data.raw_const;
  const void* iv = init->data.raw_const;
  void* out = output->data.raw;
  switch (input->type) {
    case kTfLiteFloat32:
      lg_rw_run_f32(data, in, iv, out, n);
      break;
    case kTfLiteFloat64:
      lg_rw_run_f64(data, in, iv, out, n);
      break;
    case kTfLiteInt8:
    case kTfLiteBool:
      lg_rw_run_i8(data, in, iv, out, n);
      break;
    case kTfLiteUInt8:
      lg_rw_run_u8(data, in, iv, out, n);
      break;
    case kTfLiteInt16:
      lg_rw_run_i16(data, in, iv, out, n);
      break;
    case kTfLiteInt32:
      lg_rw_run_i32(data, in, iv, out, n);
      break;
    case kTfLiteInt64:
      lg_rw_run_i64(data, in, iv, out, n);
      break;
    default:
      lg_kernel_log(context, op, "input type %s is not supported",
                    TfLiteTypeGetName(input->type));
      return kTfLiteError;
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(REDUCE_WINDOW, lg_rw_init, lg_kernel_free_data,
                       lg_rw_prepare, lg_rw_invoke)

/* ---- STABLEHLO_REDUCE_WINDOW --------------------------------------------- */

/* The fold of a body subgraph's operator, or Unsupported. */
static TfLiteReduceWindowFunction lg_rw_body_function(int32_t code) {
  switch (code) {
    case kTfLiteBuiltinAdd:
    case kTfLiteBuiltinStablehloAdd:
      return TfLiteReduceWindowFunctionAdd;
    case kTfLiteBuiltinMul:
    case kTfLiteBuiltinStablehloMultiply:
      return TfLiteReduceWindowFunctionMul;
    case kTfLiteBuiltinMaximum:
    case kTfLiteBuiltinStablehloMaximum:
      return TfLiteReduceWindowFunctionMax;
    case kTfLiteBuiltinMinimum:
    case kTfLiteBuiltinStablehloMinimum:
      return TfLiteReduceWindowFunctionMin;
    case kTfLiteBuiltinLogicalAnd:
    case kTfLiteBuiltinStablehloAnd:
      return TfLiteReduceWindowFunctionAll;
    case kTfLiteBuiltinLogicalOr:
    case kTfLiteBuiltinStablehloOr:
      return TfLiteReduceWindowFunctionAny;
    default:
      return TfLiteReduceWindowFunctionUnsupported;
  }
}

/* Checks attribute `what` (rank elements of `values`) are in [1, INT32_MAX]
 * and copies them. */
static TfLiteStatus lg_srw_attribute(TfLiteContext* context, const char* op,
                                     const char* what, const int64_t* values,
                                     int rank, int64_t* out) {
  for (int i = 0; i < rank; ++i) {
    if (values[i] <= 0 || values[i] > INT32_MAX) {
      lg_kernel_log(context, op, "%s[%d] = %lld is out of range [1, %d]", what,
                    i, (long long)values[i], INT32_MAX);
      return kTfLiteError;
    }
    out[i] = values[i];
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_srw_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = "STABLEHLO_REDUCE_WINDOW";
  lg_rw_data* data = node->user_data;
  const TfLiteStablehloReduceWindowParams* params = node->builtin_data;
  if (data == NULL || params == NULL) {
    lg_kernel_log(context, op, "no %s",
                  data == NULL ? "kernel data" : "params");
    return kTfLiteError;
  }
  data->prepared = false;
  data->op = op;
  const TfLiteTensor *input, *init;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &init));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_rw_check_tensors(context, op, input, init, output));
  const int rank = input->dims->size;
  data->rank = rank;
  TF_LITE_ENSURE_STATUS(lg_srw_attribute(context, op, "window_dimensions",
                                         params->window_dimensions, rank,
                                         data->window));
  TF_LITE_ENSURE_STATUS(lg_srw_attribute(context, op, "window_strides",
                                         params->window_strides, rank,
                                         data->stride));
  TF_LITE_ENSURE_STATUS(lg_srw_attribute(context, op, "base_dilations",
                                         params->base_dilations, rank,
                                         data->base_dilation));
  TF_LITE_ENSURE_STATUS(lg_srw_attribute(context, op, "window_dilations",
                                         params->window_dilations, rank,
                                         data->dilation));
  for (int i = 0; i < 2 * rank; ++i) {
    if (params->padding[i] < -INT32_MAX || params->padding[i] > INT32_MAX) {
      lg_kernel_log(context, op, "padding[%d] = %lld is out of range [%d, %d]",
                    i, (long long)params->padding[i], -INT32_MAX, INT32_MAX);
      return kTfLiteError;
    }
  }
  for (int i = 0; i < rank; ++i) data->pad_low[i] = params->padding[2 * i];
  int32_t code;
  TF_LITE_ENSURE_STATUS(lg_kernel_region_binary(context, op, "body",
                                                params->body_subgraph_index,
                                                input->type, false, &code));
  data->fn = lg_rw_body_function(code);
  if (data->fn == TfLiteReduceWindowFunctionUnsupported) {
    lg_kernel_log(context, op,
                  "the body's operator (builtin %d) is not supported "
                  "(expected ADD, MUL, MAXIMUM, MINIMUM, LOGICAL_AND, "
                  "LOGICAL_OR or their STABLEHLO_ forms)",
                  (int)code);
    return kTfLiteError;
  }
  return lg_rw_finish_prepare(context, op, data, input, params->padding,
                              output);
}

LG_KERNEL_REGISTRATION(STABLEHLO_REDUCE_WINDOW, lg_rw_init, lg_kernel_free_data,
                       lg_srw_prepare, lg_rw_invoke)
