/* Comparisons with numpy-style broadcasting up to 6-D, BOOL output: LESS,
 * LESS_EQUAL, GREATER, GREATER_EQUAL (FLOAT32, INT32, INT64, INT8, UINT8)
 * and EQUAL, NOT_EQUAL (those and BOOL). They run on the shared binary
 * kernel (binary.h); only the row functions and the quantized parameters
 * live here.
 *
 * Every comparison with a NaN operand is false except NOT_EQUAL, which is
 * true (IEEE, as in TFLite). BOOL inputs compare as truth values, so a byte
 * other than 0 and 1 counts as true.
 *
 * INT8 and UINT8 (per-tensor quantized) compare as TFLite's
 * ComparisonQuantized does: each input's value minus its zero point,
 * shifted left by 8, is multiplied by that input's own scale in fixed
 * point (QuantizeMultiplierSmallerThanOneExp of the scale, a rounding high
 * multiply and a rounding right shift), and the two int32 results are
 * compared. Values closer than the rounding step therefore compare equal,
 * as in TFLite. The rescale is a right shift only: a scale of 1 or more
 * is refused in Prepare (TFLite's kernel aborts or shifts by a negative
 * amount there). The int16 variants inside the registered version
 * ranges are rejected in Prepare with the type's name.
 *
 * EQUAL and NOT_EQUAL also compare STRING inputs (version 3): two strings
 * are equal when they hold the same bytes (NUL and non-ASCII bytes
 * included), as TFLite's StringRef comparison.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runtime/kernels/binary.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/quant_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/common.h"

/* TFLite's headroom before the rescale (comparisons.cc's left_shift). */
#define LG_COMPARE_LEFT_SHIFT 8

/* A quantized input's value at its rescaled int32 form. shift <= 0 (checked
 * in Prepare), so this is TFLite's
 * MultiplyByQuantizedMultiplierSmallerThanOneExp; |q + offset| <= 255
 * keeps the shifted value within int32. */
static inline int32_t lg_compare_rescale(int32_t q, int32_t offset,
                                         int32_t multiplier, int shift,
                                         int left_shift) {
  return lg_multiply_by_quantized_multiplier((q + offset) * (1 << left_shift),
                                             multiplier, shift);
}

static inline int32_t lg_compare_x(int32_t a, const lg_binary_params* p) {
  return lg_compare_rescale(a, p->in1_offset, p->in1_multiplier, p->in1_shift,
                            p->left_shift);
}

static inline int32_t lg_compare_y(int32_t b, const lg_binary_params* p) {
  return lg_compare_rescale(b, p->in2_offset, p->in2_multiplier, p->in2_shift,
                            p->left_shift);
}

/* Outputs are TFLite BOOL tensors: one byte, 0 or 1. */
LG_BINARY_ROW(lg_less_f32, float, uint8_t, a < b)
LG_BINARY_ROW(lg_less_i32, int32_t, uint8_t, a < b)
LG_BINARY_ROW(lg_less_i64, int64_t, uint8_t, a < b)
LG_BINARY_ROW(lg_less_equal_f32, float, uint8_t, a <= b)
LG_BINARY_ROW(lg_less_equal_i32, int32_t, uint8_t, a <= b)
LG_BINARY_ROW(lg_less_equal_i64, int64_t, uint8_t, a <= b)
LG_BINARY_ROW(lg_greater_f32, float, uint8_t, a > b)
LG_BINARY_ROW(lg_greater_i32, int32_t, uint8_t, a > b)
LG_BINARY_ROW(lg_greater_i64, int64_t, uint8_t, a > b)
LG_BINARY_ROW(lg_greater_equal_f32, float, uint8_t, a >= b)
LG_BINARY_ROW(lg_greater_equal_i32, int32_t, uint8_t, a >= b)
LG_BINARY_ROW(lg_greater_equal_i64, int64_t, uint8_t, a >= b)
LG_BINARY_ROW(lg_equal_f32, float, uint8_t, a == b)
LG_BINARY_ROW(lg_equal_i32, int32_t, uint8_t, a == b)
LG_BINARY_ROW(lg_equal_i64, int64_t, uint8_t, a == b)
LG_BINARY_ROW(lg_equal_bool, uint8_t, uint8_t, (a != 0) == (b != 0))
LG_BINARY_ROW(lg_not_equal_f32, float, uint8_t, a != b)
LG_BINARY_ROW(lg_not_equal_i32, int32_t, uint8_t, a != b)
LG_BINARY_ROW(lg_not_equal_i64, int64_t, uint8_t, a != b)
LG_BINARY_ROW(lg_not_equal_bool, uint8_t, uint8_t, (a != 0) != (b != 0))

/* STRING: x and y point into the inputs' offset tables (p->str1, p->str2
 * are the buffers); element i of an input is the bytes between its offset
 * and the next. The tables were checked (lg_string_check_input). */
static bool lg_compare_string(const char* base1, const char* x,
                              const char* base2, const char* y) {
  int32_t a[2], b[2];
  memcpy(a, x, sizeof a);
  memcpy(b, y, sizeof b);
  return a[1] - a[0] == b[1] - b[0] &&
         memcmp(base1 + a[0], base2 + b[0], (size_t)(a[1] - a[0])) == 0;
}

static void lg_compare_string_row(const void* xv, ptrdiff_t sx, const void* yv,
                                  ptrdiff_t sy, uint8_t* o, int n,
                                  const lg_binary_params* p, bool equal) {
  const char* x = xv;
  const char* y = yv;
  for (int i = 0; i < n; ++i) {
    const bool same =
        lg_compare_string(p->str1, x + (size_t)(i * sx) * sizeof(int32_t),
                          p->str2, y + (size_t)(i * sy) * sizeof(int32_t));
    o[i] = (uint8_t)(same == equal);
  }
}

static void lg_equal_str(const void* x, ptrdiff_t sx, const void* y,
                         ptrdiff_t sy, void* out, int n,
                         const lg_binary_params* p) {
  lg_compare_string_row(x, sx, y, sy, out, n, p, true);
}

static void lg_not_equal_str(const void* x, ptrdiff_t sx, const void* y,
                             ptrdiff_t sy, void* out, int n,
                             const lg_binary_params* p) {
  lg_compare_string_row(x, sx, y, sy, out, n, p, false);
}

/* INT8 and UINT8: the rescaled values compared as int32. */
#define LG_COMPARE_Q_ROWS(name, CMP)                       \
  LG_BINARY_ROW(name##_i8, int8_t, uint8_t,                \
                lg_compare_x(a, p) CMP lg_compare_y(b, p)) \
  LG_BINARY_ROW(name##_u8, uint8_t, uint8_t,               \
                lg_compare_x(a, p) CMP lg_compare_y(b, p))
LG_COMPARE_Q_ROWS(lg_less, <)
LG_COMPARE_Q_ROWS(lg_less_equal, <=)
LG_COMPARE_Q_ROWS(lg_greater, >)
LG_COMPARE_Q_ROWS(lg_greater_equal, >=)
LG_COMPARE_Q_ROWS(lg_equal, ==)
LG_COMPARE_Q_ROWS(lg_not_equal, !=)
#undef LG_COMPARE_Q_ROWS

/* TFLite's ComparisonQuantized parameters: offsets minus the zero points and
 * each input's own scale as its multiplier. There is no common scale: the
 * rescaled values approximate the real values times 2^8. */
static TfLiteStatus lg_compare_quant_params(TfLiteContext* context,
                                            const lg_binary_op* op,
                                            const TfLiteTensor* input1,
                                            const TfLiteTensor* input2,
                                            lg_binary_params* params) {
  static const char* const kRoles[2] = {"input 0", "input 1"};
  const TfLiteTensor* const tensors[2] = {input1, input2};
  int32_t offsets[2], multipliers[2];
  int shifts[2];
  for (int i = 0; i < 2; ++i) {
    lg_quant_layout q;
    TF_LITE_ENSURE_STATUS(
        lg_quant_tensor_read(context, op->name, kRoles[i], tensors[i], &q));
    lg_quantize_multiplier((double)q.scale0, &multipliers[i], &shifts[i]);
    if (shifts[i] > 0) {
      lg_kernel_log(context, op->name,
                    "%s tensor '%s' has scale %g; TFLite's quantized "
                    "comparison takes scales below 1 (it rescales each input "
                    "by a right shift)",
                    kRoles[i], lg_quant_tensor_name(tensors[i]),
                    (double)q.scale0);
      return kTfLiteError;
    }
    offsets[i] = -q.zero_point0;
  }
  params->left_shift = LG_COMPARE_LEFT_SHIFT;
  params->in1_offset = offsets[0];
  params->in2_offset = offsets[1];
  params->in1_multiplier = multipliers[0];
  params->in2_multiplier = multipliers[1];
  params->in1_shift = shifts[0];
  params->in2_shift = shifts[1];
  return kTfLiteOk;
}

static const lg_binary_op kLess = {
    .name = "LESS",
    .builtin_code = kTfLiteBuiltinLess,
    .bool_output = true,
    .types = "FLOAT32, INT32, INT64, INT8 or UINT8",
    .f32 = lg_less_f32,
    .i32 = lg_less_i32,
    .i64 = lg_less_i64,
    .i8 = lg_less_i8,
    .u8 = lg_less_u8,
    .quant_params = lg_compare_quant_params,
};
static const lg_binary_op kLessEqual = {
    .name = "LESS_EQUAL",
    .builtin_code = kTfLiteBuiltinLessEqual,
    .bool_output = true,
    .types = "FLOAT32, INT32, INT64, INT8 or UINT8",
    .f32 = lg_less_equal_f32,
    .i32 = lg_less_equal_i32,
    .i64 = lg_less_equal_i64,
    .i8 = lg_less_equal_i8,
    .u8 = lg_less_equal_u8,
    .quant_params = lg_compare_quant_params,
};
static const lg_binary_op kGreater = {
    .name = "GREATER",
    .builtin_code = kTfLiteBuiltinGreater,
    .bool_output = true,
    .types = "FLOAT32, INT32, INT64, INT8 or UINT8",
    .f32 = lg_greater_f32,
    .i32 = lg_greater_i32,
    .i64 = lg_greater_i64,
    .i8 = lg_greater_i8,
    .u8 = lg_greater_u8,
    .quant_params = lg_compare_quant_params,
};
static const lg_binary_op kGreaterEqual = {
    .name = "GREATER_EQUAL",
    .builtin_code = kTfLiteBuiltinGreaterEqual,
    .bool_output = true,
    .types = "FLOAT32, INT32, INT64, INT8 or UINT8",
    .f32 = lg_greater_equal_f32,
    .i32 = lg_greater_equal_i32,
    .i64 = lg_greater_equal_i64,
    .i8 = lg_greater_equal_i8,
    .u8 = lg_greater_equal_u8,
    .quant_params = lg_compare_quant_params,
};
static const lg_binary_op kEqual = {
    .name = "EQUAL",
    .builtin_code = kTfLiteBuiltinEqual,
    .bool_output = true,
    .types = "FLOAT32, INT32, INT64, BOOL, INT8, UINT8 or STRING",
    .f32 = lg_equal_f32,
    .i32 = lg_equal_i32,
    .i64 = lg_equal_i64,
    .boolean = lg_equal_bool,
    .i8 = lg_equal_i8,
    .u8 = lg_equal_u8,
    .str = lg_equal_str,
    .quant_params = lg_compare_quant_params,
};
static const lg_binary_op kNotEqual = {
    .name = "NOT_EQUAL",
    .builtin_code = kTfLiteBuiltinNotEqual,
    .bool_output = true,
    .types = "FLOAT32, INT32, INT64, BOOL, INT8, UINT8 or STRING",
    .f32 = lg_not_equal_f32,
    .i32 = lg_not_equal_i32,
    .i64 = lg_not_equal_i64,
    .boolean = lg_not_equal_bool,
    .i8 = lg_not_equal_i8,
    .u8 = lg_not_equal_u8,
    .str = lg_not_equal_str,
    .quant_params = lg_compare_quant_params,
};

LG_KERNEL_FAMILY_REGISTRATION(LESS, lg_binary, &kLess)
LG_KERNEL_FAMILY_REGISTRATION(LESS_EQUAL, lg_binary, &kLessEqual)
LG_KERNEL_FAMILY_REGISTRATION(GREATER, lg_binary, &kGreater)
LG_KERNEL_FAMILY_REGISTRATION(GREATER_EQUAL, lg_binary, &kGreaterEqual)
LG_KERNEL_FAMILY_REGISTRATION(EQUAL, lg_binary, &kEqual)
LG_KERNEL_FAMILY_REGISTRATION(NOT_EQUAL, lg_binary, &kNotEqual)
