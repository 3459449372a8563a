/* FLOOR_DIV and FLOOR_MOD with numpy-style broadcasting, on the shared
 * binary kernel (binary.h).
 *
 * TFLite's semantics: FLOOR_DIV is floor(x / y) computed in double
 * precision and converted back (float32 and int32); FLOOR_MOD is the
 * truncated remainder (fmod for float32), moved into the divisor's sign
 * when the two differ (int32, int64, float32). A zero divisor fails
 * Invoke, as in TFLite ("Division by 0"), for every FLOOR_DIV type and for
 * FLOOR_MOD's integers (its float32 remainder by zero is NaN). The int8 and
 * int16
 * versions (FLOOR_DIV 3, FLOOR_MOD 2, plain integers in TFLite) are
 * rejected in Prepare with the type's name.
 *
 * Conversions TFLite leaves undefined are pinned down: an int32 quotient
 * out of range (INT32_MIN / -1) gives INT32_MIN, as x86's conversion does,
 * and INT_MIN % -1 gives 0 instead of trapping.
 */
#include <math.h>
#include <stdint.h>

#include "runtime/kernels/binary.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/common.h"

static inline int32_t lg_floor_div_i32(int32_t a, int32_t b) {
  const double q = floor((double)a / (double)b);
  return q >= 2147483648.0 || q < -2147483648.0 ? INT32_MIN : (int32_t)q;
}

static inline int32_t lg_floor_mod_i32(int32_t a, int32_t b) {
  if (b == -1) return 0;
  const int32_t r = a % b;
  return r != 0 && ((b < 0) != (r < 0)) ? r + b : r;
}

static inline int64_t lg_floor_mod_i64(int64_t a, int64_t b) {
  if (b == -1) return 0;
  const int64_t r = a % b;
  return r != 0 && ((b < 0) != (r < 0)) ? r + b : r;
}

static inline float lg_floor_mod_f32(float a, float b) {
  const float r = fmodf(a, b);
  return r != 0.0f && ((b < 0.0f) != (r < 0.0f)) ? r + b : r;
}

LG_BINARY_ROW(lg_floor_div_f32_row, float, float,
              (float)floor((double)a / (double)b))
LG_BINARY_ROW(lg_floor_div_i32_row, int32_t, int32_t, lg_floor_div_i32(a, b))
LG_BINARY_ROW(lg_floor_mod_f32_row, float, float, lg_floor_mod_f32(a, b))
LG_BINARY_ROW(lg_floor_mod_i32_row, int32_t, int32_t, lg_floor_mod_i32(a, b))
LG_BINARY_ROW(lg_floor_mod_i64_row, int64_t, int64_t, lg_floor_mod_i64(a, b))

/* TFLite fails on any zero divisor (FLOOR_DIV, integer FLOOR_MOD). */
static TfLiteStatus lg_no_zero_divisor(TfLiteContext* context, const char* op,
                                       const TfLiteTensor* input1,
                                       const TfLiteTensor* input2) {
  (void)input1;
  const int64_t n = lg_kernel_num_elements(input2);
  for (int64_t i = 0; i < n; ++i) {
    const bool zero = input2->type == kTfLiteInt32 ? input2->data.i32[i] == 0
                      : input2->type == kTfLiteInt64
                          ? input2->data.i64[i] == 0
                          : input2->data.f[i] == 0.0f;
    if (zero) {
      lg_kernel_log(context, op, "Division by 0 (input 1 at index %lld)",
                    (long long)i);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

static const lg_binary_op kFloorDiv = {
    .name = "FLOOR_DIV",
    .builtin_code = kTfLiteBuiltinFloorDiv,
    .types = "FLOAT32 or INT32",
    .f32 = lg_floor_div_f32_row,
    .i32 = lg_floor_div_i32_row,
    .check_i32 = lg_no_zero_divisor,
    .check_f32 = lg_no_zero_divisor,
};
static const lg_binary_op kFloorMod = {
    .name = "FLOOR_MOD",
    .builtin_code = kTfLiteBuiltinFloorMod,
    .types = "FLOAT32, INT32 or INT64",
    .f32 = lg_floor_mod_f32_row,
    .i32 = lg_floor_mod_i32_row,
    .i64 = lg_floor_mod_i64_row,
    .check_i32 = lg_no_zero_divisor,
    .check_i64 = lg_no_zero_divisor,
};

LG_KERNEL_FAMILY_REGISTRATION(FLOOR_DIV, lg_binary, &kFloorDiv)
LG_KERNEL_FAMILY_REGISTRATION(FLOOR_MOD, lg_binary, &kFloorMod)
