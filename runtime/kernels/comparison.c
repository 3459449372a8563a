/* Comparisons with numpy-style broadcasting up to 6-D, BOOL output: LESS,
 * LESS_EQUAL, GREATER, GREATER_EQUAL (FLOAT32, INT32, INT64) and EQUAL,
 * NOT_EQUAL (those and BOOL). They run on the shared binary kernel
 * (binary.h); only the row functions live here.
 *
 * Every comparison with a NaN operand is false except NOT_EQUAL, which is
 * true (IEEE, as in TFLite). BOOL inputs compare as truth values, so a byte
 * other than 0 and 1 counts as true. The int8, uint8, int16 and string
 * variants inside the registered version ranges are rejected in Prepare
 * with the type's name.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/kernels/binary.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/common.h"

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

static const lg_binary_op kLess = {
    .name = "LESS",
    .builtin_code = kTfLiteBuiltinLess,
    .bool_output = true,
    .types = "FLOAT32, INT32 or INT64",
    .f32 = lg_less_f32,
    .i32 = lg_less_i32,
    .i64 = lg_less_i64,
};
static const lg_binary_op kLessEqual = {
    .name = "LESS_EQUAL",
    .builtin_code = kTfLiteBuiltinLessEqual,
    .bool_output = true,
    .types = "FLOAT32, INT32 or INT64",
    .f32 = lg_less_equal_f32,
    .i32 = lg_less_equal_i32,
    .i64 = lg_less_equal_i64,
};
static const lg_binary_op kGreater = {
    .name = "GREATER",
    .builtin_code = kTfLiteBuiltinGreater,
    .bool_output = true,
    .types = "FLOAT32, INT32 or INT64",
    .f32 = lg_greater_f32,
    .i32 = lg_greater_i32,
    .i64 = lg_greater_i64,
};
static const lg_binary_op kGreaterEqual = {
    .name = "GREATER_EQUAL",
    .builtin_code = kTfLiteBuiltinGreaterEqual,
    .bool_output = true,
    .types = "FLOAT32, INT32 or INT64",
    .f32 = lg_greater_equal_f32,
    .i32 = lg_greater_equal_i32,
    .i64 = lg_greater_equal_i64,
};
static const lg_binary_op kEqual = {
    .name = "EQUAL",
    .builtin_code = kTfLiteBuiltinEqual,
    .bool_output = true,
    .types = "FLOAT32, INT32, INT64 or BOOL",
    .f32 = lg_equal_f32,
    .i32 = lg_equal_i32,
    .i64 = lg_equal_i64,
    .boolean = lg_equal_bool,
};
static const lg_binary_op kNotEqual = {
    .name = "NOT_EQUAL",
    .builtin_code = kTfLiteBuiltinNotEqual,
    .bool_output = true,
    .types = "FLOAT32, INT32, INT64 or BOOL",
    .f32 = lg_not_equal_f32,
    .i32 = lg_not_equal_i32,
    .i64 = lg_not_equal_i64,
    .boolean = lg_not_equal_bool,
};

LG_KERNEL_FAMILY_REGISTRATION(LESS, lg_binary, &kLess)
LG_KERNEL_FAMILY_REGISTRATION(LESS_EQUAL, lg_binary, &kLessEqual)
LG_KERNEL_FAMILY_REGISTRATION(GREATER, lg_binary, &kGreater)
LG_KERNEL_FAMILY_REGISTRATION(GREATER_EQUAL, lg_binary, &kGreaterEqual)
LG_KERNEL_FAMILY_REGISTRATION(EQUAL, lg_binary, &kEqual)
LG_KERNEL_FAMILY_REGISTRATION(NOT_EQUAL, lg_binary, &kNotEqual)
