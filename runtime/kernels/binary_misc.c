/* ATAN2, BITWISE_XOR, RIGHT_SHIFT and the StableHLO elementwise builtins
 * (STABLEHLO_ADD, _MULTIPLY, _MAXIMUM, _MINIMUM, _AND, _SHIFT_LEFT): two inputs
 * of one type, one output of that type, element by element on the shared
 * broadcast plan (broadcast_plan.h).
 *
 * ATAN2 (FLOAT32, FLOAT64): atan2(y, x) with y input 0 and x input 1,
 * through libm's atan2f / atan2 as TFLite's std::atan2. TFLite reads both
 * inputs as the first one's element count, so they must have one shape
 * (no broadcasting); FLOAT16 and BFLOAT16, which TFLite also takes, are
 * rejected.
 *
 * BITWISE_XOR (INT8, UINT8, INT16, UINT16, INT32, UINT32): x ^ y, numpy
 * broadcasting up to 6-D (TFLite's up to 4-D).
 *
 * RIGHT_SHIFT (the same types): x >> y with y clamped to [0, bits - 1] as
 * TFLite does (so a negative shift is 0 and a long one leaves the sign),
 * arithmetic for the signed types; broadcasting as BITWISE_XOR.
 *
 * The StableHLO elementwise builtins take two operands of one shape (no
 * broadcasting, as StableHLO; the shapes must be equal) and compute plain
 * values, integers without quantization, as LiteRT's stablehlo kernels:
 *   STABLEHLO_ADD, STABLEHLO_MULTIPLY (FLOAT32, FLOAT64, INT8, INT16,
 *     INT32, INT64, UINT8, UINT16, UINT32, UINT64): a + b, a * b, integers
 *     wrapping modulo 2^bits;
 *   STABLEHLO_MAXIMUM, STABLEHLO_MINIMUM (the same types): std::max's
 *     (a < b ? b : a) and std::min's (b < a ? b : a), so a NaN in the first
 *     operand is kept and one in the second is not;
 *   STABLEHLO_AND (INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32,
 *     UINT64, BOOL): a & b;
 *   STABLEHLO_SHIFT_LEFT (INT8, INT16, INT32): a << b computed on 32 bits
 *     and truncated to the type; a shift outside [0, 31] gives 0 (LiteRT's
 *     C++ shift is undefined there; StableHLO's spec gives 0).
 * FLOAT16 and BFLOAT16, which LiteRT also takes for the arithmetic ones,
 * and BOOL for them, are rejected.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/kernels/broadcast_plan.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/c/common.h"

typedef enum lg_bm_op {
  LG_BM_ATAN2,
  LG_BM_BITWISE_XOR,
  LG_BM_RIGHT_SHIFT,
  LG_BM_SHLO_ADD,
  LG_BM_SHLO_MULTIPLY,
  LG_BM_SHLO_MAXIMUM,
  LG_BM_SHLO_MINIMUM,
  LG_BM_SHLO_AND,
  LG_BM_SHLO_SHIFT_LEFT,
} lg_bm_op;

typedef struct lg_bm_data {
  lg_bm_op op;
  const char* name;
  bool prepared;
  lg_broadcast_plan plan;
  lg_broadcast_row_fn row;
  int64_t elements[2]; /* of the inputs, checked again in Invoke */
} lg_bm_data;

/* Defines a row function for elements of type T with value EXPR of `a`
 * (input 0's element) and `b` (input 1's). */
#define LG_BM_ROW(name, T, EXPR)                                         \
  static void name(void* ctx, const void* const* in, const ptrdiff_t* s, \
                   void* out, int n) {                                   \
    (void)ctx;                                                           \
    const T* x = (const T*)in[0];                                        \
    const T* y = (const T*)in[1];                                        \
    T* o = (T*)out;                                                      \
    for (int i = 0; i < n; ++i) {                                        \
      const T a = x[i * s[0]], b = y[i * s[1]];                          \
      o[i] = (T)(EXPR);                                                  \
    }                                                                    \
  }

LG_BM_ROW(lg_bm_atan2_f32, float, atan2f(a, b))
LG_BM_ROW(lg_bm_atan2_f64, double, atan2(a, b))
LG_BM_ROW(lg_bm_xor8, uint8_t, a ^ b)
LG_BM_ROW(lg_bm_xor16, uint16_t, a ^ b)
LG_BM_ROW(lg_bm_xor32, uint32_t, a ^ b)

/* x >> clamp(y, 0, bits - 1) (unsigned y is never below 0). */
#define LG_BM_SHIFT_S(BITS) (a >> (b < 0 ? 0 : (b > (BITS)-1 ? (BITS)-1 : b)))
#define LG_BM_SHIFT_U(BITS) (a >> (b > (BITS)-1 ? (BITS)-1 : b))
LG_BM_ROW(lg_bm_shift_i8, int8_t, LG_BM_SHIFT_S(8))
LG_BM_ROW(lg_bm_shift_u8, uint8_t, LG_BM_SHIFT_U(8))
LG_BM_ROW(lg_bm_shift_i16, int16_t, LG_BM_SHIFT_S(16))
LG_BM_ROW(lg_bm_shift_u16, uint16_t, LG_BM_SHIFT_U(16))
LG_BM_ROW(lg_bm_shift_i32, int32_t, LG_BM_SHIFT_S(32))
LG_BM_ROW(lg_bm_shift_u32, uint32_t, LG_BM_SHIFT_U(32))

/* StableHLO arithmetic: integers in unsigned arithmetic of at least 32 bits
 * (no signed overflow, no promotion to int), truncated to the type. */
#define LG_BM_SHLO_ARITH(sfx, T, U)                 \
  LG_BM_ROW(lg_bm_shlo_add_##sfx, T, (U)a + (U)b)   \
  LG_BM_ROW(lg_bm_shlo_mul_##sfx, T, (U)a*(U)b)     \
  LG_BM_ROW(lg_bm_shlo_max_##sfx, T, a < b ? b : a) \
  LG_BM_ROW(lg_bm_shlo_min_##sfx, T, b < a ? b : a)
LG_BM_SHLO_ARITH(i8, int8_t, uint32_t)
LG_BM_SHLO_ARITH(u8, uint8_t, uint32_t)
LG_BM_SHLO_ARITH(i16, int16_t, uint32_t)
LG_BM_SHLO_ARITH(u16, uint16_t, uint32_t)
LG_BM_SHLO_ARITH(i32, int32_t, uint32_t)
LG_BM_SHLO_ARITH(u32, uint32_t, uint32_t)
LG_BM_SHLO_ARITH(i64, int64_t, uint64_t)
LG_BM_SHLO_ARITH(u64, uint64_t, uint64_t)
LG_BM_SHLO_ARITH(f32, float, float)
LG_BM_SHLO_ARITH(f64, double, double)
LG_BM_ROW(lg_bm_and8, uint8_t, (a & b))
LG_BM_ROW(lg_bm_and16, uint16_t, (a & b))
LG_BM_ROW(lg_bm_and32, uint32_t, (a & b))
LG_BM_ROW(lg_bm_and64, uint64_t, (a & b))
/* (int32)a << b on 32 bits, truncated; 0 outside [0, 31]. */
#define LG_BM_SHL(T) \
  ((b < 0 || b > 31) ? (T)0 : (T)((uint32_t)(int32_t)a << (uint32_t)b))
LG_BM_ROW(lg_bm_shl_i8, int8_t, LG_BM_SHL(int8_t))
LG_BM_ROW(lg_bm_shl_i16, int16_t, LG_BM_SHL(int16_t))
LG_BM_ROW(lg_bm_shl_i32, int32_t, LG_BM_SHL(int32_t))

/* The StableHLO arithmetic row of `op` (ADD, MULTIPLY, MAXIMUM, MINIMUM)
 * for `type`, or NULL. */
#define LG_BM_SHLO_PICK(sfx)                          \
  (op == LG_BM_SHLO_ADD        ? lg_bm_shlo_add_##sfx \
   : op == LG_BM_SHLO_MULTIPLY ? lg_bm_shlo_mul_##sfx \
   : op == LG_BM_SHLO_MAXIMUM  ? lg_bm_shlo_max_##sfx \
                               : lg_bm_shlo_min_##sfx)
static lg_broadcast_row_fn lg_bm_shlo_arith_row(lg_bm_op op, TfLiteType type) {
  switch (type) {
    case kTfLiteFloat32:
      return LG_BM_SHLO_PICK(f32);
    case kTfLiteFloat64:
      return LG_BM_SHLO_PICK(f64);
    case kTfLiteInt8:
      return LG_BM_SHLO_PICK(i8);
    case kTfLiteUInt8:
      return LG_BM_SHLO_PICK(u8);
    case kTfLiteInt16:
      return LG_BM_SHLO_PICK(i16);
    case kTfLiteUInt16:
      return LG_BM_SHLO_PICK(u16);
    case kTfLiteInt32:
      return LG_BM_SHLO_PICK(i32);
    case kTfLiteUInt32:
      return LG_BM_SHLO_PICK(u32);
    case kTfLiteInt64:
      return LG_BM_SHLO_PICK(i64);
    case kTfLiteUInt64:
      return LG_BM_SHLO_PICK(u64);
    default:
      return NULL;
  }
}

/* The accepted types of `op`, for messages. */
static const char* lg_bm_types(lg_bm_op op) {
  switch (op) {
    case LG_BM_ATAN2:
      return "FLOAT32 or FLOAT64";
    case LG_BM_BITWISE_XOR:
    case LG_BM_RIGHT_SHIFT:
      return "INT8, UINT8, INT16, UINT16, INT32 or UINT32";
    case LG_BM_SHLO_ADD:
    case LG_BM_SHLO_MULTIPLY:
    case LG_BM_SHLO_MAXIMUM:
    case LG_BM_SHLO_MINIMUM:
      return "FLOAT32, FLOAT64, INT8, UINT8, INT16, UINT16, INT32, UINT32, "
             "INT64 or UINT64";
    case LG_BM_SHLO_AND:
      return "INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, UINT64 or "
             "BOOL";
    case LG_BM_SHLO_SHIFT_LEFT:
      return "INT8, INT16 or INT32";
  }
  return "";
}

/* Whether `op` takes two operands of one shape (no broadcasting). */
static bool lg_bm_same_shape(lg_bm_op op) {
  return op != LG_BM_BITWISE_XOR && op != LG_BM_RIGHT_SHIFT;
}

/* The row function of `op` for `type`, or NULL when the op rejects it. */
static lg_broadcast_row_fn lg_bm_row_for(lg_bm_op op, TfLiteType type) {
  switch (op) {
    case LG_BM_ATAN2:
      return type == kTfLiteFloat32   ? lg_bm_atan2_f32
             : type == kTfLiteFloat64 ? lg_bm_atan2_f64
                                      : NULL;
    case LG_BM_BITWISE_XOR:
      switch (type) {
        case kTfLiteInt8:
        case kTfLiteUInt8:
          return lg_bm_xor8;
        case kTfLiteInt16:
        case kTfLiteUInt16:
          return lg_bm_xor16;
        case kTfLiteInt32:
        case kTfLiteUInt32:
          return lg_bm_xor32;
        default:
          return NULL;
      }
    case LG_BM_RIGHT_SHIFT:
      switch (type) {
        case kTfLiteInt8:
          return lg_bm_shift_i8;
        case kTfLiteUInt8:
          return lg_bm_shift_u8;
        case kTfLiteInt16:
          return lg_bm_shift_i16;
        case kTfLiteUInt16:
          return lg_bm_shift_u16;
        case kTfLiteInt32:
          return lg_bm_shift_i32;
        case kTfLiteUInt32:
          return lg_bm_shift_u32;
        default:
          return NULL;
      }
    case LG_BM_SHLO_ADD:
    case LG_BM_SHLO_MULTIPLY:
    case LG_BM_SHLO_MAXIMUM:
    case LG_BM_SHLO_MINIMUM:
      return lg_bm_shlo_arith_row(op, type);
    case LG_BM_SHLO_AND:
      switch (type) {
        case kTfLiteInt8:
        case kTfLiteUInt8:
        case kTfLiteBool:
          return lg_bm_and8;
        case kTfLiteInt16:
        case kTfLiteUInt16:
          return lg_bm_and16;
        case kTfLiteInt32:
        case kTfLiteUInt32:
          return lg_bm_and32;
        case kTfLiteInt64:
        case kTfLiteUInt64:
          return lg_bm_and64;
        default:
          return NULL;
      }
    case LG_BM_SHLO_SHIFT_LEFT:
      switch (type) {
        case kTfLiteInt8:
          return lg_bm_shl_i8;
        case kTfLiteInt16:
          return lg_bm_shl_i16;
        case kTfLiteInt32:
          return lg_bm_shl_i32;
        default:
          return NULL;
      }
  }
  return NULL;
}

static TfLiteStatus lg_bm_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_bm_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, "binary op", "no kernel data (out of memory)");
    return kTfLiteError;
  }
  const char* op = data->name;
  data->prepared = false;
  const TfLiteTensor *a, *b;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &a));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &b));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  if (a->type != b->type) {
    lg_kernel_log(context, op, "input types %s and %s differ",
                  TfLiteTypeGetName(a->type), TfLiteTypeGetName(b->type));
    return kTfLiteError;
  }
  data->row = lg_bm_row_for(data->op, a->type);
  if (data->row == NULL) {
    lg_kernel_log(context, op, "input type %s is not supported (expected %s)",
                  TfLiteTypeGetName(a->type), lg_bm_types(data->op));
    return kTfLiteError;
  }
  if (output->type != a->type) {
    lg_kernel_log(context, op, "output type %s differs from input type %s",
                  TfLiteTypeGetName(output->type), TfLiteTypeGetName(a->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "input 0", a));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "input 1", b));
  if (lg_bm_same_shape(data->op) && !TfLiteIntArrayEqual(a->dims, b->dims)) {
    char s0[128], s1[128];
    lg_kernel_log(context, op, "input shapes %s and %s differ",
                  lg_kernel_format_shape(a->dims, s0, sizeof(s0)),
                  lg_kernel_format_shape(b->dims, s1, sizeof(s1)));
    return kTfLiteError;
  }
  TfLiteIntArray* shape = NULL;
  TF_LITE_ENSURE_STATUS(lg_kernel_broadcast_shape(
      context, op, a->dims, b->dims, LG_BROADCAST_MAX_RANK, &shape));
  const int64_t elements = lg_kernel_num_elements_dims(shape);
  if (elements > INT32_MAX) {
    lg_kernel_log(context, op, "the broadcast output has %lld elements",
                  (long long)elements);
    TfLiteIntArrayFree(shape);
    return kTfLiteError;
  }
  size_t size = 0;
  TF_LITE_ENSURE_STATUS(TfLiteGetSizeOfType(a->type, &size));
  lg_broadcast_plan_build(&data->plan, 2,
                          (const TfLiteIntArray* const[]){a->dims, b->dims},
                          shape, (const size_t[]){size, size}, size);
  data->elements[0] = lg_kernel_num_elements(a);
  data->elements[1] = lg_kernel_num_elements(b);
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, shape));
  data->prepared = true;
  return kTfLiteOk;
}

static TfLiteStatus lg_bm_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_bm_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, data != NULL ? data->name : "binary op",
                  "invoked before a successful prepare");
    return kTfLiteError;
  }
  const char* op = data->name;
  const TfLiteTensor *a, *b;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &a));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &b));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  if (lg_kernel_num_elements(a) != data->elements[0] ||
      lg_kernel_num_elements(b) != data->elements[1] ||
      lg_kernel_num_elements(output) != data->plan.elements) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (data->plan.elements == 0) return kTfLiteOk;
  if (a->data.raw == NULL || b->data.raw == NULL || output->data.raw == NULL) {
    lg_kernel_log(context, op, "a tensor has no data");
    return kTfLiteError;
  }
  lg_broadcast_plan_walk(&data->plan, 0, data->plan.elements,
                         (const void* const[]){a->data.raw, b->data.raw},
                         output->data.raw, data->row, NULL);
  return kTfLiteOk;
}

static void* lg_bm_init_variant(lg_bm_op op, const char* name) {
  lg_bm_data* data = calloc(1, sizeof(lg_bm_data));
  if (data != NULL) {
    data->op = op;
    data->name = name;
  }
  return data;
}

LG_KERNEL_FAMILY_REGISTRATION(ATAN2, lg_bm, LG_BM_ATAN2)
LG_KERNEL_FAMILY_REGISTRATION(BITWISE_XOR, lg_bm, LG_BM_BITWISE_XOR)
LG_KERNEL_FAMILY_REGISTRATION(RIGHT_SHIFT, lg_bm, LG_BM_RIGHT_SHIFT)
LG_KERNEL_FAMILY_REGISTRATION(STABLEHLO_ADD, lg_bm, LG_BM_SHLO_ADD)
LG_KERNEL_FAMILY_REGISTRATION(STABLEHLO_MULTIPLY, lg_bm, LG_BM_SHLO_MULTIPLY)
LG_KERNEL_FAMILY_REGISTRATION(STABLEHLO_MAXIMUM, lg_bm, LG_BM_SHLO_MAXIMUM)
LG_KERNEL_FAMILY_REGISTRATION(STABLEHLO_MINIMUM, lg_bm, LG_BM_SHLO_MINIMUM)
LG_KERNEL_FAMILY_REGISTRATION(STABLEHLO_AND, lg_bm, LG_BM_SHLO_AND)
LG_KERNEL_FAMILY_REGISTRATION(STABLEHLO_SHIFT_LEFT, lg_bm,
                              LG_BM_SHLO_SHIFT_LEFT)
