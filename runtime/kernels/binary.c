/* Binary elementwise arithmetic with numpy-style broadcasting up to 6-D:
 * ADD, SUB, MUL, DIV (fused activation; FLOAT32 and INT32),
 * SQUARED_DIFFERENCE and POW (FLOAT32 and INT32), MAXIMUM and MINIMUM
 * (FLOAT32, INT32 and INT64), and the shared Prepare / Invoke that the
 * comparisons (comparison.c) use too (see binary.h).
 *
 * Semantics follow TFLite's kernels, checked against LiteRT:
 * - The float activation range of NONE is [-FLT_MAX, FLT_MAX] and of RELU
 *   [0, FLT_MAX] (TFLite's CalculateActivationRange uses the type's lowest()
 *   and max()), so an infinite ADD/SUB/MUL/DIV result comes out as
 *   +-FLT_MAX; NaN passes every clamp.
 * - Float DIV by zero is IEEE (then clamped): 1/0 -> FLT_MAX, 0/0 -> NaN.
 *   INT32 DIV truncates toward zero; a zero anywhere in the divisor fails
 *   Invoke, as TFLite's does; INT32_MIN / -1 gives INT32_MAX (LiteRT's
 *   result).
 * - INT32 ADD, SUB, MUL and SQUARED_DIFFERENCE wrap around on overflow.
 * - MAXIMUM is `a > b ? a : b` and MINIMUM `a < b ? a : b`: a NaN on the
 *   left yields the right operand, a NaN on the right yields NaN.
 * - POW: float is powf (a negative base with a non-integer exponent gives
 *   NaN, 0^-1 gives inf, no clamp). INT32 POW fails Invoke on a negative
 *   exponent anywhere in input 1; 0^0 = 1; a result outside the int32 range
 *   is INT32_MIN (TFLite converts a double pow to int32, which gives that
 *   value on x86).
 * ADD, SUB and MUL compute INT8, UINT8 (TFLite's legacy uint8 kernels: the
 * INT8 arithmetic on uint8 values, the same 20-bit headroom) and INT16;
 * SQUARED_DIFFERENCE INT8. Other quantized, int64 (arithmetic) and float16
 * variants inside the registered version ranges are rejected in Prepare with
 * the type's name.
 */
#include "runtime/kernels/binary.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/thread_pool.h"
#include "runtime/kernels/broadcast_plan.h"
#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/quant_simd.h"
#include "runtime/kernels/quant_util.h"
#include "runtime/kernels/simd_f32.h"
#include "runtime/string_tensor.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

/* Output elements below which splitting over threads costs more than it
 * saves (an elementwise op is bound by memory bandwidth), and the least
 * work each task gets. */
#define LG_BINARY_MIN_PARALLEL (1 << 16)
#define LG_BINARY_MIN_TASK (1 << 15)

enum {
  kInputTensor1 = 0,
  kInputTensor2 = 1,
  kOutputTensor = 0,
};

typedef struct lg_binary_data {
  const lg_binary_op* op; /* recorded by Init */
  bool prepared;
  lg_broadcast_plan plan;
  lg_binary_params params;
  lg_binary_row_fn row;
  lg_binary_check_fn check; /* NULL: nothing to check before computing */
  /* Element counts the plan was built for, checked again in Invoke. */
  int64_t elements1;
  int64_t elements2;
} lg_binary_data;

/* One Invoke's work, shared read-only by its tasks. */
typedef struct lg_binary_job {
  const lg_broadcast_plan* plan;
  const void* inputs[2];
  void* output;
  lg_binary_row_fn row;
  const lg_binary_params* params;
  int f32_simd; /* the op's, for FLOAT32 inputs; 0 otherwise */
  int num_tasks;
} lg_binary_job;

/* ---- Element functions -------------------------------------------------- */

static inline int32_t lg_clamp_i32(int32_t v, const lg_binary_params* p) {
  return v < p->min_i ? p->min_i : (v > p->max_i ? p->max_i : v);
}

/* Wrapping int32 arithmetic (C's signed overflow is undefined, so compute
 * in unsigned; the conversion back is modulo 2^32 on every target). */
static inline int32_t lg_wrap_add(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a + (uint32_t)b);
}
static inline int32_t lg_wrap_sub(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a - (uint32_t)b);
}
static inline int32_t lg_wrap_mul(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a * (uint32_t)b);
}

/* INT8, UINT8 and INT16 ADD / SUB (sign -1) / MUL as TFLite's reference
 * integer kernels: ADD and SUB bring both inputs to the common scale
 * 2 * max(scale) in fixed point with 2^left_shift headroom (20 bits for
 * INT8, 15 for INT16), add, and rescale to the output; MUL multiplies the
 * offset values and rescales once. The result is clamped to the
 * activation's quantized range, which lies within the output type's. */
static inline int32_t lg_add_q(int32_t a, int32_t b, int sign,
                               const lg_binary_params* p) {
  const int32_t x = lg_multiply_by_quantized_multiplier(
      (a + p->in1_offset) * (1 << p->left_shift), p->in1_multiplier,
      p->in1_shift);
  const int32_t y = lg_multiply_by_quantized_multiplier(
      (b + p->in2_offset) * (1 << p->left_shift), p->in2_multiplier,
      p->in2_shift);
  const int32_t sum = sign > 0 ? x + y : x - y;
  const int32_t q = lg_multiply_by_quantized_multiplier(sum, p->out_multiplier,
                                                        p->out_shift) +
                    p->out_offset;
  return lg_clamp_i32(q, p);
}

/* INT16 ADD / SUB with power-of-two scales and zero points 0 (TFLite's
 * path for pot_scale_int16, meant for LSTM cells): each input is brought
 * to the output's scale by a rounding right shift (at most one of the two
 * shifts is non-zero), then added and clamped. */
static inline int32_t lg_add_pot16(int32_t a, int32_t b, int sign,
                                   const lg_binary_params* p) {
  const int32_t x = lg_fixed_divide_by_pot(a, -p->in1_shift);
  const int32_t y = lg_fixed_divide_by_pot(b, -p->in2_shift);
  return lg_clamp_i32(sign > 0 ? x + y : x - y, p);
}

/* INT8 SQUARED_DIFFERENCE as TFLite's: both inputs brought to
 * 2 * max(scale) with 7 bits of headroom, the difference squared (at most
 * 255^2 * 2^14, within int32) and rescaled to the output. */
static inline int32_t lg_sqdiff_q(int32_t a, int32_t b,
                                  const lg_binary_params* p) {
  const int32_t x = lg_multiply_by_quantized_multiplier(
      (a + p->in1_offset) * (1 << p->left_shift), p->in1_multiplier,
      p->in1_shift);
  const int32_t y = lg_multiply_by_quantized_multiplier(
      (b + p->in2_offset) * (1 << p->left_shift), p->in2_multiplier,
      p->in2_shift);
  const int32_t d = x - y;
  const int32_t q = lg_multiply_by_quantized_multiplier(
                        d * d, p->out_multiplier, p->out_shift) +
                    p->out_offset;
  return lg_clamp_i32(q, p);
}

/* INT16 products of two int16 values stay within int32: |a * b| <= 2^30
 * (TFLite requires zero points 0 for INT16, so the offsets are 0). */
static inline int32_t lg_mul_q(int32_t a, int32_t b,
                               const lg_binary_params* p) {
  const int32_t q = lg_multiply_by_quantized_multiplier(
                        (a + p->in1_offset) * (b + p->in2_offset),
                        p->out_multiplier, p->out_shift) +
                    p->out_offset;
  return lg_clamp_i32(q, p);
}

/* Truncating division; b == 0 never reaches here (Invoke checks first). */
static inline int32_t lg_div_i32(int32_t a, int32_t b) {
  if (b == 0) return 0;
  if (b == -1 && a == INT32_MIN) return INT32_MAX;
  return a / b;
}

static inline int32_t lg_squared_difference_i32(int32_t a, int32_t b) {
  const int32_t d = lg_wrap_sub(a, b);
  return lg_wrap_mul(d, d);
}

/* base^exp for exp >= 0 (Invoke rejects negative exponents first). */
static int32_t lg_pow_i32(int32_t base, int32_t exponent) {
  if (exponent <= 0) return 1;
  if (base == 0 || base == 1) return base;
  if (base == -1) return (exponent & 1) ? -1 : 1;
  /* |base| >= 2 leaves the int32 range within 32 steps. */
  int64_t r = 1;
  for (int32_t e = 0; e < exponent; ++e) {
    r *= base;
    if (r > INT32_MAX || r < INT32_MIN) return INT32_MIN;
  }
  return (int32_t)r;
}

/* ---- Row functions ------------------------------------------------------ */

/* Float rows run on simd_f32's vector rows (the same results as the
 * scalar expressions; the activation clamp comes from the params). */
#define LG_BINARY_F32_ROW(name, op)                                          \
  static void name(const void* x, ptrdiff_t sx, const void* y, ptrdiff_t sy, \
                   void* out, int n, const lg_binary_params* p) {            \
    lg_f32_binary_row(op, (const float*)x, sx, (const float*)y, sy,          \
                      (float*)out, n, p->min_f, p->max_f);                   \
  }

LG_BINARY_ROW(lg_add_i8, int8_t, int8_t, lg_add_q(a, b, 1, p))
LG_BINARY_ROW(lg_sub_i8, int8_t, int8_t, lg_add_q(a, b, -1, p))
LG_BINARY_ROW(lg_mul_i8, int8_t, int8_t, lg_mul_q(a, b, p))
LG_BINARY_ROW(lg_add_u8, uint8_t, uint8_t, lg_add_q(a, b, 1, p))
LG_BINARY_ROW(lg_sub_u8, uint8_t, uint8_t, lg_add_q(a, b, -1, p))
LG_BINARY_ROW(lg_mul_u8, uint8_t, uint8_t, lg_mul_q(a, b, p))
LG_BINARY_ROW(lg_add_i16, int16_t, int16_t, lg_add_q(a, b, 1, p))
LG_BINARY_ROW(lg_sub_i16, int16_t, int16_t, lg_add_q(a, b, -1, p))
LG_BINARY_ROW(lg_mul_i16, int16_t, int16_t, lg_mul_q(a, b, p))
LG_BINARY_ROW(lg_add_pot_i16, int16_t, int16_t, lg_add_pot16(a, b, 1, p))
LG_BINARY_ROW(lg_sub_pot_i16, int16_t, int16_t, lg_add_pot16(a, b, -1, p))
LG_BINARY_F32_ROW(lg_add_f32, LG_F32_ADD)
LG_BINARY_ROW(lg_add_i32, int32_t, int32_t, lg_clamp_i32(lg_wrap_add(a, b), p))
LG_BINARY_F32_ROW(lg_sub_f32, LG_F32_SUB)
LG_BINARY_ROW(lg_sub_i32, int32_t, int32_t, lg_clamp_i32(lg_wrap_sub(a, b), p))
LG_BINARY_F32_ROW(lg_mul_f32, LG_F32_MUL)
LG_BINARY_ROW(lg_mul_i32, int32_t, int32_t, lg_clamp_i32(lg_wrap_mul(a, b), p))
LG_BINARY_F32_ROW(lg_div_f32, LG_F32_DIV)
LG_BINARY_ROW(lg_div_i32_row, int32_t, int32_t,
              lg_clamp_i32(lg_div_i32(a, b), p))
LG_BINARY_F32_ROW(lg_sqdiff_f32, LG_F32_SQDIFF)
LG_BINARY_ROW(lg_sqdiff_i8, int8_t, int8_t, lg_sqdiff_q(a, b, p))
LG_BINARY_ROW(lg_sqdiff_i32, int32_t, int32_t, lg_squared_difference_i32(a, b))
LG_BINARY_F32_ROW(lg_max_f32, LG_F32_MAX)
LG_BINARY_ROW(lg_max_i32, int32_t, int32_t, a > b ? a : b)
LG_BINARY_ROW(lg_max_i64, int64_t, int64_t, a > b ? a : b)
LG_BINARY_F32_ROW(lg_min_f32, LG_F32_MIN)
LG_BINARY_ROW(lg_min_i32, int32_t, int32_t, a < b ? a : b)
LG_BINARY_ROW(lg_min_i64, int64_t, int64_t, a < b ? a : b)
LG_BINARY_ROW(lg_pow_f32, float, float, powf(a, b))
LG_BINARY_ROW(lg_pow_i32_row, int32_t, int32_t, lg_pow_i32(a, b))

/* ---- Value checks ------------------------------------------------------- */

static TfLiteStatus lg_check_no_zero_divisor(TfLiteContext* context,
                                             const char* op,
                                             const TfLiteTensor* input1,
                                             const TfLiteTensor* input2) {
  (void)input1;
  const int64_t n = lg_kernel_num_elements(input2);
  const int32_t* y = input2->data.i32;
  for (int64_t i = 0; i < n; ++i) {
    if (y[i] == 0) {
      lg_kernel_log(context, op,
                    "input 1 holds a zero divisor at index %lld (integer "
                    "division by zero)",
                    (long long)i);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_check_no_negative_exponent(TfLiteContext* context,
                                                  const char* op,
                                                  const TfLiteTensor* input1,
                                                  const TfLiteTensor* input2) {
  (void)input1;
  const int64_t n = lg_kernel_num_elements(input2);
  const int32_t* y = input2->data.i32;
  for (int64_t i = 0; i < n; ++i) {
    if (y[i] < 0) {
      lg_kernel_log(context, op,
                    "input 1 holds the negative exponent %d at index %lld "
                    "(INT32 POW takes exponents >= 0)",
                    (int)y[i], (long long)i);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

/* INT8 ADD / SUB / MUL / SQUARED_DIFFERENCE rows with AVX2 (quant_simd.c) where
 * both operands run along the row; the scalar rows otherwise. Bit for bit the
 * same. */
#if LG_GEMM_HAVE_X86
/* sign 1: ADD, -1: SUB, 0: MUL, 2: SQUARED_DIFFERENCE. */
static void lg_add_sub_i8_simd(const void* xv, ptrdiff_t sx, const void* yv,
                               ptrdiff_t sy, void* ov, int n,
                               const lg_binary_params* p, int sign) {
  if ((sx != 1 && sy != 1) || (sx == 0 && sy == 0)) {
    const lg_binary_row_fn scalar = sign == 1    ? lg_add_i8
                                    : sign == -1 ? lg_sub_i8
                                    : sign == 2  ? lg_sqdiff_i8
                                                 : lg_mul_i8;
    scalar(xv, sx, yv, sy, ov, n, p);
    return;
  }
  /* One operand repeated along the row: blocks of copies of it. */
  if (sx == 0 || sy == 0) {
    int8_t repeated[256];
    memset(repeated, sx == 0 ? *(const int8_t*)xv : *(const int8_t*)yv,
           sizeof(repeated));
    for (int i = 0; i < n; i += (int)sizeof(repeated)) {
      const int m =
          n - i < (int)sizeof(repeated) ? n - i : (int)sizeof(repeated);
      const int8_t* x = sx == 0 ? repeated : (const int8_t*)xv + i;
      const int8_t* y = sy == 0 ? repeated : (const int8_t*)yv + i;
      lg_add_sub_i8_simd(x, 1, y, 1, (int8_t*)ov + i, m, p, sign);
    }
    return;
  }
  const lg_int8_add_params q = {
      .in1_offset = p->in1_offset,
      .in2_offset = p->in2_offset,
      .out_offset = p->out_offset,
      .in1_multiplier = p->in1_multiplier,
      .in2_multiplier = p->in2_multiplier,
      .out_multiplier = p->out_multiplier,
      .in1_shift = p->in1_shift,
      .in2_shift = p->in2_shift,
      .out_shift = p->out_shift,
      .left_shift = p->left_shift,
      .min = p->min_i,
      .max = p->max_i,
  };
  if (sign == 0) {
    (n >= 16 && lg_int8_avx512_supported()
         ? lg_mul_int8_avx512
         : lg_mul_int8_avx2)(xv, yv, n, &q, ov);
  } else if (n >= 16 && lg_int8_avx512_supported()) {
    lg_add_int8_avx512(xv, yv, n, sign, &q, ov);
  } else {
    lg_add_int8_avx2(xv, yv, n, sign, &q, ov);
  }
}

static void lg_sqdiff_i8_simd(const void* x, ptrdiff_t sx, const void* y,
                              ptrdiff_t sy, void* out, int n,
                              const lg_binary_params* p) {
  lg_add_sub_i8_simd(x, sx, y, sy, out, n, p, 2);
}

static void lg_mul_i8_simd(const void* x, ptrdiff_t sx, const void* y,
                           ptrdiff_t sy, void* out, int n,
                           const lg_binary_params* p) {
  lg_add_sub_i8_simd(x, sx, y, sy, out, n, p, 0);
}

static void lg_add_i8_simd(const void* x, ptrdiff_t sx, const void* y,
                           ptrdiff_t sy, void* out, int n,
                           const lg_binary_params* p) {
  lg_add_sub_i8_simd(x, sx, y, sy, out, n, p, 1);
}

static void lg_sub_i8_simd(const void* x, ptrdiff_t sx, const void* y,
                           ptrdiff_t sy, void* out, int n,
                           const lg_binary_params* p) {
  lg_add_sub_i8_simd(x, sx, y, sy, out, n, p, -1);
}

/* UINT8 ADD / SUB / MUL on the INT8 vector rows: TFLite's arithmetic only
 * sees q - zero_point, so uint8 q is the int8 q - 128 (its bits with the top
 * one flipped) with every offset moved by 128 (inputs: -zp + 128, output:
 * zp - 128, the clamp range - 128; all still in INT8's ranges). Blocks of
 * 256 are flipped into int8 scratch on the stack, computed, flipped back. */
static void lg_add_sub_u8_simd(const void* xv, ptrdiff_t sx, const void* yv,
                               ptrdiff_t sy, void* ov, int n,
                               const lg_binary_params* p, int sign) {
  if ((sx != 1 && sy != 1) || (sx == 0 && sy == 0)) {
    const lg_binary_row_fn scalar = sign == 1    ? lg_add_u8
                                    : sign == -1 ? lg_sub_u8
                                                 : lg_mul_u8;
    scalar(xv, sx, yv, sy, ov, n, p);
    return;
  }
  lg_binary_params q = *p;
  q.in1_offset += 128;
  q.in2_offset += 128;
  q.out_offset -= 128;
  q.min_i -= 128;
  q.max_i -= 128;
  const uint8_t* x = xv;
  const uint8_t* y = yv;
  uint8_t* out = ov;
  int8_t a[256], b[256], r[256];
  for (int i = 0; i < n; i += 256) {
    const int m = n - i < 256 ? n - i : 256;
    for (int k = 0; k < m; ++k) {
      a[k] = (int8_t)(x[sx * (i + k)] ^ 0x80u);
      b[k] = (int8_t)(y[sy * (i + k)] ^ 0x80u);
    }
    lg_add_sub_i8_simd(a, 1, b, 1, r, m, &q, sign);
    for (int k = 0; k < m; ++k) out[i + k] = (uint8_t)r[k] ^ 0x80u;
  }
}

static void lg_add_u8_simd(const void* x, ptrdiff_t sx, const void* y,
                           ptrdiff_t sy, void* out, int n,
                           const lg_binary_params* p) {
  lg_add_sub_u8_simd(x, sx, y, sy, out, n, p, 1);
}

static void lg_sub_u8_simd(const void* x, ptrdiff_t sx, const void* y,
                           ptrdiff_t sy, void* out, int n,
                           const lg_binary_params* p) {
  lg_add_sub_u8_simd(x, sx, y, sy, out, n, p, -1);
}

static void lg_mul_u8_simd(const void* x, ptrdiff_t sx, const void* y,
                           ptrdiff_t sy, void* out, int n,
                           const lg_binary_params* p) {
  lg_add_sub_u8_simd(x, sx, y, sy, out, n, p, 0);
}
#endif

/* ---- The shared kernel -------------------------------------------------- */

void* lg_binary_init_variant(const lg_binary_op* op, const char* name) {
  (void)name; /* the descriptor has it */
  lg_binary_data* data = calloc(1, sizeof(lg_binary_data));
  if (data != NULL) data->op = op;
  return data;
}

static lg_binary_row_fn lg_binary_row_for(const lg_binary_op* op,
                                          TfLiteType type) {
  switch (type) {
    case kTfLiteFloat32:
      return op->f32;
    case kTfLiteInt32:
      return op->i32;
    case kTfLiteInt64:
      return op->i64;
    case kTfLiteBool:
      return op->boolean;
    case kTfLiteInt8:
      return op->i8;
    case kTfLiteUInt8:
      return op->u8;
    case kTfLiteInt16:
      return op->i16;
    case kTfLiteString:
      return op->str;
    default:
      return NULL;
  }
}

static TfLiteStatus lg_binary_check_types(TfLiteContext* context,
                                          const lg_binary_op* op,
                                          const TfLiteTensor* input1,
                                          const TfLiteTensor* input2,
                                          const TfLiteTensor* output) {
  if (input1->type != input2->type) {
    lg_kernel_log(context, op->name, "input types %s and %s differ",
                  TfLiteTypeGetName(input1->type),
                  TfLiteTypeGetName(input2->type));
    return kTfLiteError;
  }
  if (lg_binary_row_for(op, input1->type) == NULL) {
    lg_kernel_log(context, op->name,
                  "input type %s is not supported (expected %s)",
                  TfLiteTypeGetName(input1->type), op->types);
    return kTfLiteError;
  }
  if (op->bool_output && output->type != kTfLiteBool) {
    lg_kernel_log(context, op->name,
                  "output type %s is not supported (expected BOOL)",
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  if (!op->bool_output && output->type != input1->type) {
    lg_kernel_log(
        context, op->name, "output type %s differs from input type %s",
        TfLiteTypeGetName(output->type), TfLiteTypeGetName(input1->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* The clamp range of the op's activation for `type`: TFLite's, whose
 * unbounded ends are the type's finite extremes. */
static TfLiteStatus lg_binary_params_for(TfLiteContext* context,
                                         const lg_binary_op* op,
                                         const void* builtin_data,
                                         TfLiteType type,
                                         lg_binary_params* params) {
  params->min_f = -FLT_MAX;
  params->max_f = FLT_MAX;
  params->min_i = INT32_MIN;
  params->max_i = INT32_MAX;
  if (!op->has_activation) return kTfLiteOk;
  const TfLiteFusedActivation act =
      lg_kernel_binary_activation(op->builtin_code, builtin_data);
  /* lg_binary_params_quantized */
  if (type == kTfLiteInt8 || type == kTfLiteInt16 || type == kTfLiteUInt8) {
    return kTfLiteOk;
  }
  if (type == kTfLiteInt32) {
    return lg_kernel_activation_range_int32(context, op->name, act,
                                            &params->min_i, &params->max_i);
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_activation_range_float(
      context, op->name, act, &params->min_f, &params->max_f));
  if (params->min_f < -FLT_MAX) params->min_f = -FLT_MAX;
  if (params->max_f > FLT_MAX) params->max_f = FLT_MAX;
  return kTfLiteOk;
}

/* INT16 ADD and SUB take the power-of-two path when the op's
 * pot_scale_int16 is set and every scale is a power of two
 * (lg_quant_scale_log2). */
static bool lg_binary_pot_scale_option(const lg_binary_op* op,
                                       const void* builtin_data) {
  if (builtin_data == NULL) return false;
  if (op->builtin_code == kTfLiteBuiltinAdd) {
    return ((const TfLiteAddParams*)builtin_data)->pot_scale_int16;
  }
  if (op->builtin_code == kTfLiteBuiltinSub) {
    return ((const TfLiteSubParams*)builtin_data)->pot_scale_int16;
  }
  return false;
}

/* The power-of-two INT16 path's shifts: each input's scale over the
 * output's, as a non-positive power of two, at most one of them non-zero
 * (TFLite's conditions, reported here by name). */
static TfLiteStatus lg_binary_params_pot16(TfLiteContext* context,
                                           const lg_binary_op* op,
                                           const int log2s[3],
                                           lg_binary_params* params) {
  params->in1_shift = log2s[0] - log2s[2];
  params->in2_shift = log2s[1] - log2s[2];
  if (params->in1_shift > 0 || params->in2_shift > 0 ||
      (params->in1_shift != 0 && params->in2_shift != 0)) {
    lg_kernel_log(context, op->name,
                  "INT16 with power-of-two scales needs one input at the "
                  "output's scale and the other at or below it (input "
                  "scales 2^%d and 2^%d, output 2^%d)",
                  log2s[0], log2s[1], log2s[2]);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* ADD and SUB in general scales: add.cc's and sub.cc's Prepare. */
static void lg_binary_params_add_general(const lg_quant_layout* q1,
                                         const lg_quant_layout* q2,
                                         const lg_quant_layout* qo,
                                         TfLiteType type,
                                         lg_binary_params* params) {
  params->left_shift = type == kTfLiteInt16 ? 15 : 20;
  const double twice_max =
      2.0 * (double)(q1->scale0 > q2->scale0 ? q1->scale0 : q2->scale0);
  lg_quantize_multiplier((double)q1->scale0 / twice_max,
                         &params->in1_multiplier, &params->in1_shift);
  lg_quantize_multiplier((double)q2->scale0 / twice_max,
                         &params->in2_multiplier, &params->in2_shift);
  lg_quantize_multiplier(
      twice_max / ((double)(1 << params->left_shift) * (double)qo->scale0),
      &params->out_multiplier, &params->out_shift);
}

/* SQUARED_DIFFERENCE: squared_difference.cc's Prepare (2 * max(scale) in
 * float, as TFLite computes it). Its output rescale must stay below 1:
 * TFLite aborts above it. */
static TfLiteStatus lg_binary_params_sqdiff(TfLiteContext* context,
                                            const lg_binary_op* op,
                                            const lg_quant_layout* q1,
                                            const lg_quant_layout* q2,
                                            const lg_quant_layout* qo,
                                            lg_binary_params* params) {
  params->left_shift = 7;
  const double twice_max =
      (double)(2.0f * (q1->scale0 > q2->scale0 ? q1->scale0 : q2->scale0));
  const double out_real =
      twice_max * twice_max / (double)((float)(1 << 14) * qo->scale0);
  if (!(out_real < 1.0)) {
    lg_kernel_log(context, op->name,
                  "output scale %g is too small for the input scales %g and "
                  "%g (TFLite's rescale (2 * max input scale)^2 / 2^14 / "
                  "output scale = %g must be below 1)",
                  (double)qo->scale0, (double)q1->scale0, (double)q2->scale0,
                  out_real);
    return kTfLiteError;
  }
  lg_quantize_multiplier((double)q1->scale0 / twice_max,
                         &params->in1_multiplier, &params->in1_shift);
  lg_quantize_multiplier((double)q2->scale0 / twice_max,
                         &params->in2_multiplier, &params->in2_shift);
  lg_quantize_multiplier(out_real, &params->out_multiplier, &params->out_shift);
  return kTfLiteOk;
}

/* INT8, UINT8 and INT16: TFLite's quantized parameters (ADD / SUB: add.cc's and
 * sub.cc's Prepare; MUL: the scales' product over the output scale, in
 * float as mul.cc computes it) and
 * the activation's quantized range. INT16 is symmetric: every zero point
 * must be 0. Sets *pot for INT16 ADD / SUB on the power-of-two path. */
static TfLiteStatus lg_binary_params_quantized(
    TfLiteContext* context, const lg_binary_op* op, const void* builtin_data,
    const TfLiteTensor* const tensors[3], lg_binary_params* params, bool* pot) {
  static const char* const kRoles[3] = {"input 0", "input 1", "output"};
  const TfLiteType type = tensors[0]->type;
  lg_quant_layout q[3];
  int log2s[3];
  bool all_pot = true;
  for (int i = 0; i < 3; ++i) {
    TF_LITE_ENSURE_STATUS(
        lg_quant_tensor_read(context, op->name, kRoles[i], tensors[i], &q[i]));
    if (type == kTfLiteInt16 && q[i].zero_point0 != 0) {
      lg_kernel_log(context, op->name,
                    "%s of type INT16 has zero point %d; INT16 quantization "
                    "is symmetric (zero point 0)",
                    kRoles[i], (int)q[i].zero_point0);
      return kTfLiteError;
    }
    all_pot = lg_quant_scale_log2(q[i].scale0, &log2s[i]) && all_pot;
  }
  params->in1_offset = -q[0].zero_point0;
  params->in2_offset = -q[1].zero_point0;
  params->out_offset = q[2].zero_point0;
  *pot = type == kTfLiteInt16 && op->builtin_code != kTfLiteBuiltinMul &&
         lg_binary_pot_scale_option(op, builtin_data) && all_pot;
  if (*pot) {
    TF_LITE_ENSURE_STATUS(lg_binary_params_pot16(context, op, log2s, params));
  } else if (op->builtin_code == kTfLiteBuiltinSquaredDifference) {
    TF_LITE_ENSURE_STATUS(
        lg_binary_params_sqdiff(context, op, &q[0], &q[1], &q[2], params));
  } else if (op->builtin_code == kTfLiteBuiltinMul) {
    /* mul.cc multiplies and divides the float scales in float, then widens
     * the ratio to double (the double product differs in the last bits and,
     * after the rounding shift, in some outputs). */
    const float real = q[0].scale0 * q[1].scale0 / q[2].scale0;
    lg_quantize_multiplier((double)real, &params->out_multiplier,
                           &params->out_shift);
  } else {
    lg_binary_params_add_general(&q[0], &q[1], &q[2], type, params);
  }
  const TfLiteFusedActivation act =
      lg_kernel_binary_activation(op->builtin_code, builtin_data);
  return lg_quant_activation_range(context, op->name, act, type, q[2].scale0,
                                   q[2].zero_point0, &params->min_i,
                                   &params->max_i);
}

/* Checks the shapes, resizes the output and builds the plan. */
static TfLiteStatus lg_binary_prepare_shapes(TfLiteContext* context,
                                             const lg_binary_op* op,
                                             lg_binary_data* data,
                                             const TfLiteTensor* input1,
                                             const TfLiteTensor* input2,
                                             TfLiteTensor* output) {
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, op->name, "input 0", input1));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, op->name, "input 1", input2));
  /* The types were checked: both have fixed sizes. */
  size_t in_size = sizeof(int32_t), out_size = 0; /* STRING: offsets */
  if (input1->type != kTfLiteString) {
    TF_LITE_ENSURE_STATUS(TfLiteGetSizeOfType(input1->type, &in_size));
  }
  TF_LITE_ENSURE_STATUS(TfLiteGetSizeOfType(output->type, &out_size));
  TfLiteIntArray* shape = NULL;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_broadcast_shape(context, op->name, input1->dims, input2->dims,
                                LG_BROADCAST_MAX_RANK, &shape));
  const int64_t elements_out = lg_kernel_num_elements_dims(shape);
  if (elements_out > INT32_MAX) {
    lg_kernel_log(context, op->name,
                  "the broadcast output has %lld elements, above %d",
                  (long long)elements_out, INT32_MAX);
    TfLiteIntArrayFree(shape);
    return kTfLiteError;
  }
  lg_broadcast_plan_build(
      &data->plan, 2,
      (const TfLiteIntArray* const[]){input1->dims, input2->dims}, shape,
      (const size_t[]){in_size, in_size}, out_size);
  data->elements1 = lg_kernel_num_elements(input1);
  data->elements2 = lg_kernel_num_elements(input2);
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  return context->ResizeTensor(context, output, shape);
}

TfLiteStatus lg_binary_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_binary_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, "binary op",
                  "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  const lg_binary_op* op = data->op;
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op->name, 2, 2, 1));
  const TfLiteTensor* input1;
  const TfLiteTensor* input2;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op->name, kInputTensor1, &input1));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op->name, kInputTensor2, &input2));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op->name, kOutputTensor, &output));
  TF_LITE_ENSURE_STATUS(
      lg_binary_check_types(context, op, input1, input2, output));
  TF_LITE_ENSURE_STATUS(lg_binary_params_for(context, op, node->builtin_data,
                                             input1->type, &data->params));
  data->row = lg_binary_row_for(op, input1->type);
  const bool quant8 =
      input1->type == kTfLiteInt8 || input1->type == kTfLiteUInt8;
  if (quant8 && op->quant_params != NULL) {
    TF_LITE_ENSURE_STATUS(
        op->quant_params(context, op, input1, input2, &data->params));
  } else if (quant8 || input1->type == kTfLiteInt16) {
    bool pot = false;
    TF_LITE_ENSURE_STATUS(lg_binary_params_quantized(
        context, op, node->builtin_data,
        (const TfLiteTensor* const[]){input1, input2, output}, &data->params,
        &pot));
    if (pot) data->row = op->i16_pot;
#if LG_GEMM_HAVE_X86
    if (lg_gemm_isa_default() >= LG_GEMM_ISA_AVX2) {
      if (data->row == lg_add_i8) data->row = lg_add_i8_simd;
      if (data->row == lg_sub_i8) data->row = lg_sub_i8_simd;
      if (data->row == lg_mul_i8) data->row = lg_mul_i8_simd;
      if (data->row == lg_add_u8) data->row = lg_add_u8_simd;
      if (data->row == lg_sub_u8) data->row = lg_sub_u8_simd;
      if (data->row == lg_mul_u8) data->row = lg_mul_u8_simd;
      if (data->row == lg_sqdiff_i8) data->row = lg_sqdiff_i8_simd;
    }
#endif
  }
  data->check = input1->type == kTfLiteInt32     ? op->check_i32
                : input1->type == kTfLiteInt64   ? op->check_i64
                : input1->type == kTfLiteFloat32 ? op->check_f32
                                                 : NULL;
  TF_LITE_ENSURE_STATUS(
      lg_binary_prepare_shapes(context, op, data, input1, input2, output));
  data->prepared = true;
  return kTfLiteOk;
}

static void lg_binary_row_adapter(void* ctx, const void* const* inputs,
                                  const ptrdiff_t* strides, void* output,
                                  int n) {
  const lg_binary_job* job = ctx;
  job->row(inputs[0], strides[0], inputs[1], strides[1], output, n,
           job->params);
}

/* A FLOAT32 two-dim plan on simd_f32's rows: task `index`'s share of the
 * rows in one call. */
static void lg_binary_rows_task(const lg_binary_job* job, int index) {
  const lg_broadcast_plan* plan = job->plan;
  const int64_t rows = plan->dims[0], n = plan->dims[1];
  const int64_t r0 = rows * index / job->num_tasks;
  const int64_t r1 = rows * (index + 1) / job->num_tasks;
  const float* x = (const float*)job->inputs[0] + r0 * plan->strides[0][0];
  const float* y = (const float*)job->inputs[1] + r0 * plan->strides[1][0];
  lg_f32_binary_rows((lg_f32_binop)(job->f32_simd - 1), x, plan->strides[0][1],
                     plan->strides[0][0], y, plan->strides[1][1],
                     plan->strides[1][0], (float*)job->output + r0 * n, n,
                     r1 - r0, job->params->min_f, job->params->max_f);
}

/* Task `index` of num_tasks equal shares of the output elements. */
static void lg_binary_task(void* ctx, int index) {
  const lg_binary_job* job = ctx;
  if (job->f32_simd != 0 && job->plan->rank == 2) {
    lg_binary_rows_task(job, index);
    return;
  }
  const int64_t total = job->plan->elements;
  const int64_t begin = total * index / job->num_tasks;
  const int64_t end = total * (index + 1) / job->num_tasks;
  lg_broadcast_plan_walk(job->plan, begin, end, job->inputs, job->output,
                         lg_binary_row_adapter, ctx);
}

/* Walks the plan, split over the context's threads when large enough. */
static void lg_binary_run(TfLiteContext* context, lg_binary_job* job) {
  lg_thread_pool* pool = lg_kernel_thread_pool(context);
  const int threads = lg_thread_pool_size(pool);
  const int64_t elements = job->plan->elements;
  job->num_tasks = 1;
  if (threads > 1 && elements >= LG_BINARY_MIN_PARALLEL) {
    job->num_tasks = lg_thread_pool_tasks(pool, elements / LG_BINARY_MIN_TASK);
  }
  if (job->num_tasks == 1) {
    lg_binary_task(job, 0);
  } else {
    lg_thread_pool_run(pool, lg_binary_task, job, job->num_tasks);
  }
}

TfLiteStatus lg_binary_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_binary_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, data != NULL ? data->op->name : "binary op",
                  "invoked before a successful prepare");
    return kTfLiteError;
  }
  const lg_binary_op* op = data->op;
  const TfLiteTensor* input1;
  const TfLiteTensor* input2;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op->name, kInputTensor1, &input1));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op->name, kInputTensor2, &input2));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op->name, kOutputTensor, &output));
  /* The plan indexes by these counts; a shape changed without a new
   * Prepare would read or write out of bounds. */
  if (lg_kernel_num_elements(input1) != data->elements1 ||
      lg_kernel_num_elements(input2) != data->elements2 ||
      lg_kernel_num_elements(output) != data->plan.elements) {
    lg_kernel_log(context, op->name, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if ((data->elements1 > 0 && input1->data.data == NULL) ||
      (data->elements2 > 0 && input2->data.data == NULL) ||
      (data->plan.elements > 0 && output->data.data == NULL)) {
    lg_kernel_log(context, op->name, "a tensor has no data");
    return kTfLiteError;
  }
  /* TFLite checks every element of input 1, even when the output is
   * empty. */
  if (data->check != NULL) {
    TF_LITE_ENSURE_STATUS(data->check(context, op->name, input1, input2));
  }
  lg_binary_params params = data->params;
  const void* in1 = input1->data.data;
  const void* in2 = input2->data.data;
  if (input1->type == kTfLiteString) {
    TF_LITE_ENSURE_STATUS(
        lg_string_check_input(context, op->name, "input 0", input1));
    TF_LITE_ENSURE_STATUS(
        lg_string_check_input(context, op->name, "input 1", input2));
    params.str1 = input1->data.raw_const;
    params.str2 = input2->data.raw_const;
    /* The rows read each element's offset pair from the offset tables. */
    if (data->elements1 > 0) in1 = params.str1 + sizeof(int32_t);
    if (data->elements2 > 0) in2 = params.str2 + sizeof(int32_t);
  }
  if (data->plan.elements == 0) return kTfLiteOk;
  lg_binary_job job = {
      .plan = &data->plan,
      .inputs = {in1, in2},
      .output = output->data.data,
      .row = data->row,
      .params = &params,
      .f32_simd = input1->type == kTfLiteFloat32 ? op->f32_simd : 0,
  };
  lg_binary_run(context, &job);
  return kTfLiteOk;
}

/* ---- The ops ------------------------------------------------------------ */

static const lg_binary_op kAdd = {
    .name = "ADD",
    .builtin_code = kTfLiteBuiltinAdd,
    .has_activation = true,
    .types = "FLOAT32, INT32, INT8, UINT8 or INT16",
    .f32 = lg_add_f32,
    .f32_simd = LG_F32_ADD + 1,
    .i32 = lg_add_i32,
    .i8 = lg_add_i8,
    .u8 = lg_add_u8,
    .i16 = lg_add_i16,
    .i16_pot = lg_add_pot_i16,
};
static const lg_binary_op kSub = {
    .name = "SUB",
    .builtin_code = kTfLiteBuiltinSub,
    .has_activation = true,
    .types = "FLOAT32, INT32, INT8, UINT8 or INT16",
    .f32 = lg_sub_f32,
    .f32_simd = LG_F32_SUB + 1,
    .i32 = lg_sub_i32,
    .i8 = lg_sub_i8,
    .u8 = lg_sub_u8,
    .i16 = lg_sub_i16,
    .i16_pot = lg_sub_pot_i16,
};
static const lg_binary_op kMul = {
    .name = "MUL",
    .builtin_code = kTfLiteBuiltinMul,
    .has_activation = true,
    .types = "FLOAT32, INT32, INT8, UINT8 or INT16",
    .f32 = lg_mul_f32,
    .f32_simd = LG_F32_MUL + 1,
    .i32 = lg_mul_i32,
    .i8 = lg_mul_i8,
    .u8 = lg_mul_u8,
    .i16 = lg_mul_i16,
};
static const lg_binary_op kDiv = {
    .name = "DIV",
    .builtin_code = kTfLiteBuiltinDiv,
    .has_activation = true,
    .types = "FLOAT32 or INT32",
    .f32 = lg_div_f32,
    .f32_simd = LG_F32_DIV + 1,
    .i32 = lg_div_i32_row,
    .check_i32 = lg_check_no_zero_divisor,
};
static const lg_binary_op kSquaredDifference = {
    .name = "SQUARED_DIFFERENCE",
    .builtin_code = kTfLiteBuiltinSquaredDifference,
    .types = "FLOAT32, INT32 or INT8",
    .f32 = lg_sqdiff_f32,
    .f32_simd = LG_F32_SQDIFF + 1,
    .i32 = lg_sqdiff_i32,
    .i8 = lg_sqdiff_i8,
};
static const lg_binary_op kMaximum = {
    .name = "MAXIMUM",
    .builtin_code = kTfLiteBuiltinMaximum,
    .types = "FLOAT32, INT32 or INT64",
    .f32 = lg_max_f32,
    .f32_simd = LG_F32_MAX + 1,
    .i32 = lg_max_i32,
    .i64 = lg_max_i64,
};
static const lg_binary_op kMinimum = {
    .name = "MINIMUM",
    .builtin_code = kTfLiteBuiltinMinimum,
    .types = "FLOAT32, INT32 or INT64",
    .f32 = lg_min_f32,
    .f32_simd = LG_F32_MIN + 1,
    .i32 = lg_min_i32,
    .i64 = lg_min_i64,
};
static const lg_binary_op kPow = {
    .name = "POW",
    .builtin_code = kTfLiteBuiltinPow,
    .types = "FLOAT32 or INT32",
    .f32 = lg_pow_f32,
    .i32 = lg_pow_i32_row,
    .check_i32 = lg_check_no_negative_exponent,
};

LG_KERNEL_FAMILY_REGISTRATION(ADD, lg_binary, &kAdd)
LG_KERNEL_FAMILY_REGISTRATION(SUB, lg_binary, &kSub)
LG_KERNEL_FAMILY_REGISTRATION(MUL, lg_binary, &kMul)
LG_KERNEL_FAMILY_REGISTRATION(DIV, lg_binary, &kDiv)
LG_KERNEL_FAMILY_REGISTRATION(SQUARED_DIFFERENCE, lg_binary,
                              &kSquaredDifference)
LG_KERNEL_FAMILY_REGISTRATION(MAXIMUM, lg_binary, &kMaximum)
LG_KERNEL_FAMILY_REGISTRATION(MINIMUM, lg_binary, &kMinimum)
LG_KERNEL_FAMILY_REGISTRATION(POW, lg_binary, &kPow)
