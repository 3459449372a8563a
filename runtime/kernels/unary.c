/* Elementwise unary ops: output[i] = f(input[i]), same shape and type.
 *
 * One table (kLgUnaryOps) maps each op to its row functions: float32 for all
 * of them, and int32 / int64 where TFLite has an integer path (ABS int32 is
 * ABS version 5, NEG runs int32 and int64, SIGN int32 is SIGN version 2).
 * Every op shares the same init/prepare/invoke; only the per-op init differs
 * (it records which row of the table the node runs). Prepare checks the
 * type against the table row and rejects every other type (the quantized
 * and int16 variants of the ops' later versions) with the type's name.
 *
 * The formulas are those of TFLite's reference kernels, element by element,
 * in float32 and with the same libm functions, so that results match LiteRT
 * bit for bit wherever libm agrees:
 *   LOGISTIC  x > 16.619047 -> 1, x < -9 -> exp(x), else 1 / (1 + exp(-x))
 *   ROUND     half to even (floor, then the 0.5 tie goes to the even side)
 *   SIGN      NaN stays NaN, else -1, 0 or 1
 *   RSQRT     1 / sqrt(x)
 *   HARD_SWISH x * min(6, max(0, x + 3)) / 6
 *   ELU       x < 0 ? expm1(x) : x
 *   LEAKY_RELU x > 0 ? x : alpha * x
 *   GELU      approximate: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)));
 *             exact: 0.5 x erfc(-x / sqrt(2)) (erfc avoids the cancellation
 *             of 1 + erf for large negative x)
 *   RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1 clamp, and NaN passes through.
 * Integer ABS and NEG wrap (INT32_MIN stays INT32_MIN), as TFLite's do in
 * practice, computed in unsigned arithmetic so that C has no overflow.
 *
 * Quantized (INT8, and INT16 with zero points 0), as TFLite's kernels:
 *   RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1  out_zp + M(x - in_zp) clamped
 *       to [max(qmin, out_zp + round(lo / s_out)),
 *           min(qmax, out_zp + round(hi / s_out))], M = s_in / s_out;
 *   LEAKY_RELU  out_zp + M(x - in_zp) for x >= in_zp, else
 *       out_zp + M_alpha(x - in_zp) with M_alpha = s_in * alpha / s_out
 *       (a negative alpha rescales by |alpha| and negates), clamped to the
 *       type's range;
 * with M the fixed-point rescale (lg_multiply_by_quantized_multiplier).
 * INT8 runs through a 256-entry table built in Prepare from the same
 * element function, INT16 computes each element. LOGISTIC, TANH, ELU and
 * GELU tabulate their float function for INT8 (TFLite's LUTPopulate);
 * LOGISTIC and TANH also for UINT8 (version 1), as TFLite's legacy uint8
 * reference kernels do (LOGISTIC's output scale 1/256 as for INT8), and for
 * INT16 (version 3, 16x8 models) through an interpolated fixed-point
 * sigmoid table (built as described below), bit for bit with TFLite's
 * reference kernels. LiteRT's default kernels take another path, gemmlowp's
 * fixed-point functions, only for the input scales 2^-12 (and TANH's
 * 2^-11); for every other input scale the two agree.
 *
 * Invoke splits large tensors into contiguous ranges over the context's
 * thread pool; every element is computed the same way on any thread count.
 */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/thread_pool.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/logistic_f32.h"
#include "runtime/kernels/quant_util.h"
#include "runtime/kernels/simd_f32.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

/* Elements below which splitting over threads costs more than it saves. */
#define LG_UNARY_MIN_PARALLEL 16384
/* Elements a task gets at least, so that claiming it stays cheap. */
#define LG_UNARY_MIN_TASK 4096
/* sqrt(2 / pi) and 1 / sqrt(2), rounded to float. */
#define LG_SQRT_2_OVER_PI 0.797884560802865355f
#define LG_SQRT_HALF 0.707106781186547524f

enum {
  kInputTensor = 0,
  kOutputTensor = 0,
};

/* Parameters some ops read (the rest ignore them). */
typedef struct lg_unary_params {
  float alpha;      /* LEAKY_RELU */
  bool approximate; /* GELU */
} lg_unary_params;

/* A quantized op's parameters, from the tensors' quantization. */
typedef struct lg_unary_qparams {
  int32_t in_zp, out_zp;
  int32_t identity_multiplier, alpha_multiplier;
  int identity_shift, alpha_shift;
  bool alpha_negative;
  int32_t act_min, act_max;
  /* HARD_SWISH: 16-bit fixed-point multipliers and their exponents */
  int16_t hs_output_multiplier, hs_reluish_multiplier;
  int hs_output_exponent, hs_reluish_exponent;
  /* INT16 LOGISTIC and TANH: the input rescale to the sigmoid table's
   * fixed point, (x * sigmoid_multiplier + rounding) >> sigmoid_shift */
  int32_t sigmoid_multiplier;
  int sigmoid_shift;
} lg_unary_qparams;

typedef void (*lg_unary_f32_fn)(const float* in, float* out, int64_t n,
                                const lg_unary_params* params);
typedef int32_t (*lg_unary_q_fn)(int32_t x, const lg_unary_qparams* p);
typedef float (*lg_unary_lut_fn)(float x, const lg_unary_params* p);
typedef void (*lg_unary_i32_fn)(const int32_t* in, int32_t* out, int64_t n);
typedef void (*lg_unary_i64_fn)(const int64_t* in, int64_t* out, int64_t n);

typedef struct lg_unary_op {
  const char* name;
  lg_unary_f32_fn f32; /* every op has a float32 path */
  lg_unary_i32_fn i32; /* NULL: no int32 path */
  lg_unary_i64_fn i64; /* NULL: no int64 path */
  lg_unary_q_fn q;     /* NULL: no quantized path; else INT8 */
  bool q_int16;        /* the quantized path takes INT16 too */
  float q_lo, q_hi;    /* the RELU family's real clamp range */
  /* INT8 through a table of the float function (TFLite's LUTPopulate);
   * lut_scale > 0: the output scale TFLite requires. */
  lg_unary_lut_fn lut;
  float lut_scale;
  bool lut_uint8; /* the table takes UINT8 too (LOGISTIC, TANH) */
  /* INT16 through the interpolated sigmoid table (LOGISTIC, TANH); NULL:
   * INT16 goes through q where q_int16 is set. */
  lg_unary_q_fn q16_sigmoid;
  bool q16_sigmoid_tanh; /* TANH's input range; else LOGISTIC's */
  /* Quantized inputs below the zero point are an error in Invoke. */
  bool q_positive;
} lg_unary_op;

typedef struct lg_unary_data {
  const lg_unary_op* op;
  bool prepared;
  TfLiteType type;
  int64_t count; /* elements, checked again in Invoke */
  lg_unary_params params;
  lg_unary_qparams qparams;
  int8_t table[256];     /* INT8: output by input + 128 */
  uint8_t table_u8[256]; /* UINT8: output by input */
} lg_unary_data;

/* ---- Scalar functions ---------------------------------------------------- */

/* Half to even. floor(x) + 1 also carries NaN and infinities through (x -
 * floor(x) is NaN for them, so no branch returns early). */
static inline float lg_unary_round(float x) {
  const float lower = floorf(x);
  const float diff = x - lower;
  if (diff < 0.5f) return lower;
  if (diff > 0.5f) return lower + 1.0f;
  return fmodf(lower, 2.0f) == 0.0f ? lower : lower + 1.0f;
}

static inline float lg_unary_sign(float x) {
  if (x > 0.0f) return 1.0f;
  if (x < 0.0f) return -1.0f;
  return x != x ? x : 0.0f; /* NaN stays NaN; both zeros give +0 */
}

static inline float lg_unary_gelu(float x, bool approximate) {
  if (approximate) {
    const float inner = LG_SQRT_2_OVER_PI * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + tanhf(inner));
  }
  return 0.5f * x * erfcf(x * -LG_SQRT_HALF);
}

static inline int32_t lg_unary_abs1_i32(int32_t x) {
  return x < 0 ? (int32_t)(0u - (uint32_t)x) : x;
}

/* ---- Row functions ------------------------------------------------------- */

/* Defines lg_unary_f32_<name>: out[i] = expr, with the element named x and
 * the op's parameters named p. */
#define LG_UNARY_F32(name, expr)                                          \
  static void lg_unary_f32_##name(const float* in, float* out, int64_t n, \
                                  const lg_unary_params* p) {             \
    (void)p;                                                              \
    for (int64_t i = 0; i < n; ++i) {                                     \
      const float x = in[i];                                              \
      out[i] = (expr);                                                    \
    }                                                                     \
  }
/* A function with its own simd_f32 row (lg_f32_NAME_row). */
#define LG_UNARY_F32_ROW(name)                                            \
  static void lg_unary_f32_##name(const float* in, float* out, int64_t n, \
                                  const lg_unary_params* p) {             \
    (void)p;                                                              \
    lg_f32_##name##_row(in, out, n);                                      \
  }
/* The same for the clamping activations, on simd_f32's vector rows. */
#define LG_UNARY_F32_CLAMP(name, lo, hi)                                  \
  static void lg_unary_f32_##name(const float* in, float* out, int64_t n, \
                                  const lg_unary_params* p) {             \
    (void)p;                                                              \
    lg_f32_clamp_row(in, out, n, lo, hi);                                 \
  }
#define LG_UNARY_INT(name, type, expr)                                \
  static void lg_unary_##name(const type* in, type* out, int64_t n) { \
    for (int64_t i = 0; i < n; ++i) {                                 \
      const type x = in[i];                                           \
      out[i] = (expr);                                                \
    }                                                                 \
  }

LG_UNARY_F32(exp, expf(x))
LG_UNARY_F32(log, logf(x))
LG_UNARY_F32(sqrt, sqrtf(x))
LG_UNARY_F32(rsqrt, 1.0f / sqrtf(x))
LG_UNARY_F32(square, x* x)
LG_UNARY_F32(abs, fabsf(x))
LG_UNARY_F32(neg, -x)
LG_UNARY_F32(sin, sinf(x))
LG_UNARY_F32(cos, cosf(x))
LG_UNARY_F32(floor, floorf(x))
LG_UNARY_F32(ceil, ceilf(x))
LG_UNARY_F32(round, lg_unary_round(x))
LG_UNARY_F32(sign, lg_unary_sign(x))
LG_UNARY_F32_ROW(logistic)
LG_UNARY_F32_ROW(tanh)
/* RELU is `x < 0 ? 0 : x`: the clamp to [0, +inf] (NaN passes). */
LG_UNARY_F32_CLAMP(relu, 0.0f, INFINITY)
LG_UNARY_F32_CLAMP(relu6, 0.0f, 6.0f)
LG_UNARY_F32_CLAMP(relu_n1_to_1, -1.0f, 1.0f)
LG_UNARY_F32_CLAMP(relu_0_to_1, 0.0f, 1.0f)
LG_UNARY_F32_ROW(elu)
LG_UNARY_F32_ROW(hard_swish)
static void lg_unary_f32_leaky_relu(const float* in, float* out, int64_t n,
                                    const lg_unary_params* p) {
  lg_f32_leaky_relu_row(in, p->alpha, out, n);
}
/* The vector rows where the CPU has them (simd_f32.h: approximations of
 * the same functions), else the libm formulas. */
static void lg_unary_f32_gelu(const float* in, float* out, int64_t n,
                              const lg_unary_params* p) {
  if (lg_f32_gelu_row(in, out, n, p->approximate)) return;
  for (int64_t i = 0; i < n; ++i) out[i] = lg_unary_gelu(in[i], p->approximate);
}

LG_UNARY_INT(abs_i32, int32_t, lg_unary_abs1_i32(x))
LG_UNARY_INT(neg_i32, int32_t, (int32_t)(0u - (uint32_t)x))
LG_UNARY_INT(neg_i64, int64_t, (int64_t)(UINT64_C(0) - (uint64_t)x))
LG_UNARY_INT(sign_i32, int32_t, x > 0 ? 1 : (x < 0 ? -1 : 0))

/* ---- The op table -------------------------------------------------------- */

enum {
  LG_UNARY_EXP,
  LG_UNARY_LOG,
  LG_UNARY_SQRT,
  LG_UNARY_RSQRT,
  LG_UNARY_SQUARE,
  LG_UNARY_ABS,
  LG_UNARY_NEG,
  LG_UNARY_SIN,
  LG_UNARY_COS,
  LG_UNARY_FLOOR,
  LG_UNARY_CEIL,
  LG_UNARY_ROUND,
  LG_UNARY_SIGN,
  LG_UNARY_LOGISTIC,
  LG_UNARY_TANH,
  LG_UNARY_RELU,
  LG_UNARY_RELU6,
  LG_UNARY_RELU_N1_TO_1,
  LG_UNARY_RELU_0_TO_1,
  LG_UNARY_ELU,
  LG_UNARY_HARD_SWISH,
  LG_UNARY_LEAKY_RELU,
  LG_UNARY_GELU,
  LG_UNARY_COUNT,
};

/* ---- Quantized element functions ---------------------------------------- */

static inline int32_t lg_unary_q_clamp(int32_t v, const lg_unary_qparams* p) {
  return v < p->act_min ? p->act_min : (v > p->act_max ? p->act_max : v);
}

static int32_t lg_unary_q_relu(int32_t x, const lg_unary_qparams* p) {
  return lg_unary_q_clamp(
      p->out_zp + lg_multiply_by_quantized_multiplier(
                      x - p->in_zp, p->identity_multiplier, p->identity_shift),
      p);
}

static int32_t lg_unary_q_leaky_relu(int32_t x, const lg_unary_qparams* p) {
  const int32_t v = x - p->in_zp;
  if (v >= 0) {
    return lg_unary_q_clamp(
        p->out_zp + lg_multiply_by_quantized_multiplier(
                        v, p->identity_multiplier, p->identity_shift),
        p);
  }
  const int32_t scaled = lg_multiply_by_quantized_multiplier(
      v, p->alpha_multiplier, p->alpha_shift);
  return lg_unary_q_clamp(p->out_zp + (p->alpha_negative ? -scaled : scaled),
                          p);
}

/* ---- INT8 HARD_SWISH, TFLite's 16-bit fixed-point reference ------------- */

/* TFLite's truncating (not rounding) variant for the final product. */
static int16_t lg_hs_high_mul(int16_t a, int16_t b) {
  if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
  return (int16_t)(((int32_t)a * (int32_t)b) / (1 << 15));
}

static int16_t lg_hs_saturating_left_shift(int16_t v, int amount) {
  const int64_t r = (int64_t)v * ((int64_t)1 << amount);
  return (int16_t)(r > INT16_MAX ? INT16_MAX : (r < INT16_MIN ? INT16_MIN : r));
}

/* x * relu6(x + 3) / 6: the input at 2^7 times its scale; a "reluish"
 * factor in [0, 1] from (x + 3) / 6 at scale 3/32768; their product
 * rescaled to the output. */
static int32_t lg_unary_q_hard_swish(int32_t x, const lg_unary_qparams* p) {
  const int16_t value = (int16_t)(x - p->in_zp);
  const int16_t hires = (int16_t)(value * (1 << 7));
  const int16_t preshift_output =
      lg_fixed16_mul(hires, p->hs_output_multiplier);
  int16_t reluish = hires;
  if (p->hs_reluish_exponent > 0) {
    reluish = lg_hs_saturating_left_shift(reluish, p->hs_reluish_exponent - 1);
  }
  reluish = lg_fixed16_mul(reluish, p->hs_reluish_multiplier);
  if (p->hs_reluish_exponent > 0) {
    reluish = lg_hs_saturating_left_shift(reluish, 1);
  }
  if (p->hs_reluish_exponent < 0) {
    reluish = lg_fixed16_divide_by_pot(reluish, -p->hs_reluish_exponent);
  }
  reluish = (int16_t)((reluish + (1 << 15)) >> 1);
  const int16_t product = lg_hs_high_mul(reluish, preshift_output);
  int16_t out = lg_fixed16_divide_by_pot(product, -p->hs_output_exponent);
  out = (int16_t)(out + p->out_zp); /* int16 arithmetic, as TFLite's */
  return out < -128 ? -128 : (out > 127 ? 127 : out);
}

/* INT8 RSQRT as TFLite's: 1/sqrt of the integer value x - in_zp in fixed
 * point (lg_fixed_inv_sqrt), taken to 2^20 times its value, then rescaled
 * by 1 / (sqrt(input scale) * output scale) and offset; 0 gives the
 * largest output. Values below the zero point are refused in Invoke. */
static int32_t lg_unary_q_rsqrt(int32_t x, const lg_unary_qparams* p) {
  enum { kShift = 20 };
  const int32_t value = x - p->in_zp;
  if (value <= 0) return 127;
  int32_t m = 0;
  int shift = 0;
  lg_fixed_inv_sqrt(value, &m, &shift);
  const int32_t scaled =
      lg_multiply_by_quantized_multiplier(1, m, shift + kShift);
  const int32_t out =
      lg_multiply_by_quantized_multiplier(scaled, p->identity_multiplier,
                                          p->identity_shift - kShift) +
      p->out_zp;
  return out < -128 ? -128 : (out > 127 ? 127 : out);
}

/* TFLite's DownScaleInt32ToInt16Multiplier: the top 16 bits, rounded. */
static int16_t lg_hs_multiplier16(int32_t m) {
  if (m >= INT32_MAX - (1 << 15)) return INT16_MAX;
  return (int16_t)((m + (1 << 15)) >> 16);
}

/* HARD_SWISH's fixed-point parameters from the scales (in float, as
 * TFLite); the output rescale must not be above 1. */
static TfLiteStatus lg_unary_hard_swish_params(TfLiteContext* context,
                                               float in_scale, float out_scale,
                                               lg_unary_qparams* p) {
  const float hires_scale = (1.0f / 128.0f) * in_scale;
  const float reluish_scale = 3.0f / 32768.0f;
  int32_t m = 0;
  lg_quantize_multiplier((double)(hires_scale / out_scale), &m,
                         &p->hs_output_exponent);
  p->hs_output_multiplier = lg_hs_multiplier16(m);
  if (p->hs_output_exponent > 0) {
    lg_kernel_log(context, "HARD_SWISH",
                  "input scale %g over output scale %g is too large for "
                  "TFLite's fixed-point kernel (at most 128)",
                  (double)in_scale, (double)out_scale);
    return kTfLiteError;
  }
  lg_quantize_multiplier((double)(hires_scale / reluish_scale), &m,
                         &p->hs_reluish_exponent);
  p->hs_reluish_multiplier = lg_hs_multiplier16(m);
  return kTfLiteOk;
}

/* ---- INT16 LOGISTIC and TANH ---------------------------------------------
 *
 * TFLite's 16x8 kernels interpolate one table of the sigmoid at steps of
 * 1/24, in unsigned 0.16 fixed point. The input is first rescaled to
 * v = (x * multiplier + rounding) >> shift, where one unit of v is
 * 1 / (3 * 4096) in real terms: LOGISTIC steps through the table every 512
 * units of v, TANH (= 2 sigmoid(2x) - 1) every 256. Both functions are
 * symmetric, so the table is read at |v| and the result mirrored for v < 0.
 * Output scale 2^-15, zero points 0.
 *
 * The entries are not plain roundings of the sigmoid: on x > 0 the function
 * is concave, so a straight line between two exact entries runs below it.
 * Each entry i < 255 is lifted by half of the error at the middle of the
 * segment after it, 65536 * sigmoid(i / 24) + (s(i + 1/2) - (s(i) +
 * s(i + 1)) / 2) / 2, rounded, which centres the interpolation's error;
 * the last entry is the function's limit, 65535. This rule, derived here,
 * gives TFLite's reference results bit for bit over every INT16 input
 * (tests/python/ops/test_ops_unary.py); every rounded value lies at least
 * 0.0039 from a rounding tie, far beyond double's error in exp. */
enum { kLgSigmoidTableSize = 256 };
static uint16_t g_lg_sigmoid_table[kLgSigmoidTableSize];
static pthread_once_t g_lg_sigmoid_table_once = PTHREAD_ONCE_INIT;

static double lg_sigmoid_16(double step) {
  return 65536.0 / (1.0 + exp(-step / 24.0));
}

static void lg_sigmoid_table_build(void) {
  for (int i = 0; i + 1 < kLgSigmoidTableSize; ++i) {
    const double at = lg_sigmoid_16(i);
    const double chord_middle = (at + lg_sigmoid_16(i + 1)) / 2.0;
    const double middle_error = lg_sigmoid_16(i + 0.5) - chord_middle;
    g_lg_sigmoid_table[i] = (uint16_t)lround(at + middle_error / 2.0);
  }
  g_lg_sigmoid_table[kLgSigmoidTableSize - 1] = 65535;
}

/* Builds the table once per process; Prepare calls it, so Invoke (which
 * the thread pool's hand-off orders after Prepare) reads it directly. */
static void lg_sigmoid_table_ensure(void) {
  pthread_once(&g_lg_sigmoid_table_once, lg_sigmoid_table_build);
}

/* TFLite's input rescale, in 64 bits: its 32-bit product overflows only
 * for input scales above about 5.3, where every |x| >= 2 lies past the
 * table's end anyway; here such inputs saturate as the function does. */
static int64_t lg_sigmoid16_input(int32_t x, const lg_unary_qparams* p) {
  const int64_t rounding =
      p->sigmoid_shift > 0 ? (int64_t)1 << (p->sigmoid_shift - 1) : 0;
  return ((int64_t)x * p->sigmoid_multiplier + rounding) >> p->sigmoid_shift;
}

static uint64_t lg_sigmoid16_magnitude(int64_t v) {
  return v < 0 ? (uint64_t)(-v) : (uint64_t)v;
}

/* The table at `magnitude`, whose low `frac_bits` bits are the fraction of
 * a step, times 2^frac_bits: the entry below plus that fraction of the
 * step to the next one; past the table's end `top` (times 2^frac_bits). */
static uint32_t lg_sigmoid16_interpolate(uint64_t magnitude, int frac_bits,
                                         uint32_t top) {
  const uint64_t index = magnitude >> frac_bits;
  if (index >= 255) return top << frac_bits;
  /* Built by lg_sigmoid_table() in Prepare. */
  const uint32_t lo = g_lg_sigmoid_table[index];
  const uint32_t hi = g_lg_sigmoid_table[index + 1];
  const uint32_t fraction =
      (uint32_t)(magnitude & ((UINT64_C(1) << frac_bits) - 1));
  return (lo << frac_bits) + fraction * (hi - lo);
}

/* sigmoid(|v|) in 0.25 fixed point, to 0.15 rounding half up; for v < 0
 * 1 - sigmoid(|v|), rounded so that the two halves mirror each other. */
static int32_t lg_unary_q16_logistic(int32_t x, const lg_unary_qparams* p) {
  const int64_t v = lg_sigmoid16_input(x, p);
  const uint32_t s =
      lg_sigmoid16_interpolate(lg_sigmoid16_magnitude(v), 9, 65534);
  const uint32_t r = v >= 0 ? s + (1u << 9) : (1u << 25) - s + (1u << 9) - 1;
  return (int32_t)(r >> 10);
}

/* sigmoid(2|x|) in 0.24 fixed point; tanh = 2 sigmoid(2x) - 1 in 0.15 is
 * (s - 2^23) / 2^8, rounded half up and mirrored for v < 0 (the shift of a
 * negative value is arithmetic, a floor). */
static int32_t lg_unary_q16_tanh(int32_t x, const lg_unary_qparams* p) {
  const int64_t v = lg_sigmoid16_input(x, p);
  const int32_t s =
      (int32_t)lg_sigmoid16_interpolate(lg_sigmoid16_magnitude(v), 8, 65535);
  const int32_t r =
      v >= 0 ? s - (1 << 23) + (1 << 7) : -s + (1 << 23) + (1 << 7) - 1;
  return r >> 8;
}

/* The INT16 kernels' parameters (TFLite's Prepare): output scale 2^-15
 * (LOGISTIC exactly; TANH a power of two within lg_quant_scale_log2's
 * tolerance). An input scale of 2^-12 (TANH also 2^-11) is already the
 * table's fixed point over 3 (over 6): multiplier 3 (6), no shift. Any
 * other scale s gets multiplier trunc(s * 12288 * 2^shift), in double,
 * with the smallest shift (at most 31) that takes it above 16383.5. */
static TfLiteStatus lg_unary_prepare_sigmoid16(TfLiteContext* context,
                                               const lg_unary_op* op,
                                               const lg_quant_layout* in_q,
                                               const lg_quant_layout* out_q,
                                               lg_unary_qparams* p) {
  lg_sigmoid_table_ensure();
  const bool tanh_range = op->q16_sigmoid_tanh;
  int out_log2 = 0;
  const bool out_ok =
      tanh_range
          ? lg_quant_scale_log2(out_q->scale0, &out_log2) && out_log2 == -15
          : out_q->scale0 == 1.0f / 32768.0f;
  if (!out_ok) {
    lg_kernel_log(context, op->name,
                  "INT16 output scale %g is not supported (expected 1/32768)",
                  (double)out_q->scale0);
    return kTfLiteError;
  }
  int in_log2 = 0;
  const bool pot = lg_quant_scale_log2(in_q->scale0, &in_log2);
  const int pot_shift = 12 + in_log2;
  if (pot && (pot_shift == 0 || (tanh_range && pot_shift == 1))) {
    p->sigmoid_multiplier = 3 << pot_shift;
    p->sigmoid_shift = 0;
    return kTfLiteOk;
  }
  double multiplier = (double)in_q->scale0 * 4096.0 * 3.0;
  int shift = 0;
  while (multiplier <= 32767.0 / 2.0 && shift <= 30) {
    ++shift;
    multiplier *= 2.0;
  }
  if (!(multiplier >= 1.0 && multiplier < 2147483648.0)) {
    lg_kernel_log(context, op->name,
                  "INT16 input scale %g is out of the range of TFLite's "
                  "fixed-point kernel (its input multiplier %g must lie in "
                  "[1, 2^31))",
                  (double)in_q->scale0, multiplier);
    return kTfLiteError;
  }
  p->sigmoid_multiplier = (int32_t)multiplier;
  p->sigmoid_shift = shift;
  return kTfLiteOk;
}

/* The float functions TFLite tabulates for INT8 (its LUT lambdas, in
 * float with libm's float functions). */
static float lg_unary_lut_logistic(float x, const lg_unary_params* p) {
  (void)p;
  return 1.0f / (1.0f + expf(-x));
}
static float lg_unary_lut_tanh(float x, const lg_unary_params* p) {
  (void)p;
  return tanhf(x);
}
static float lg_unary_lut_elu(float x, const lg_unary_params* p) {
  (void)p;
  return x < 0.0f ? expm1f(x) : x;
}
static float lg_unary_lut_gelu(float x, const lg_unary_params* p) {
  return lg_unary_gelu(x, p->approximate);
}

static const lg_unary_op kLgUnaryOps[LG_UNARY_COUNT] = {
    [LG_UNARY_EXP] = {.name = "EXP", .f32 = lg_unary_f32_exp},
    [LG_UNARY_LOG] = {.name = "LOG", .f32 = lg_unary_f32_log},
    [LG_UNARY_SQRT] = {.name = "SQRT", .f32 = lg_unary_f32_sqrt},
    [LG_UNARY_RSQRT] = {.name = "RSQRT",
                        .f32 = lg_unary_f32_rsqrt,
                        .q = lg_unary_q_rsqrt,
                        .q_lo = -INFINITY,
                        .q_hi = INFINITY,
                        .q_positive = true},
    [LG_UNARY_SQUARE] = {.name = "SQUARE", .f32 = lg_unary_f32_square},
    [LG_UNARY_ABS] = {.name = "ABS",
                      .f32 = lg_unary_f32_abs,
                      .i32 = lg_unary_abs_i32},
    [LG_UNARY_NEG] = {.name = "NEG",
                      .f32 = lg_unary_f32_neg,
                      .i32 = lg_unary_neg_i32,
                      .i64 = lg_unary_neg_i64},
    [LG_UNARY_SIN] = {.name = "SIN", .f32 = lg_unary_f32_sin},
    [LG_UNARY_COS] = {.name = "COS", .f32 = lg_unary_f32_cos},
    [LG_UNARY_FLOOR] = {.name = "FLOOR", .f32 = lg_unary_f32_floor},
    [LG_UNARY_CEIL] = {.name = "CEIL", .f32 = lg_unary_f32_ceil},
    [LG_UNARY_ROUND] = {.name = "ROUND", .f32 = lg_unary_f32_round},
    [LG_UNARY_SIGN] = {.name = "SIGN",
                       .f32 = lg_unary_f32_sign,
                       .i32 = lg_unary_sign_i32},
    [LG_UNARY_LOGISTIC] = {.name = "LOGISTIC",
                           .f32 = lg_unary_f32_logistic,
                           .lut = lg_unary_lut_logistic,
                           .lut_scale = 1.0f / 256.0f,
                           .lut_uint8 = true,
                           .q16_sigmoid = lg_unary_q16_logistic},
    [LG_UNARY_TANH] = {.name = "TANH",
                       .f32 = lg_unary_f32_tanh,
                       .lut = lg_unary_lut_tanh,
                       .lut_uint8 = true,
                       .q16_sigmoid = lg_unary_q16_tanh,
                       .q16_sigmoid_tanh = true},
    [LG_UNARY_RELU] = {.name = "RELU",
                       .f32 = lg_unary_f32_relu,
                       .q = lg_unary_q_relu,
                       .q_int16 = true,
                       .q_lo = 0.0f,
                       .q_hi = INFINITY},
    [LG_UNARY_RELU6] = {.name = "RELU6",
                        .f32 = lg_unary_f32_relu6,
                        .q = lg_unary_q_relu,
                        .q_int16 = true,
                        .q_lo = 0.0f,
                        .q_hi = 6.0f},
    [LG_UNARY_RELU_N1_TO_1] = {.name = "RELU_N1_TO_1",
                               .f32 = lg_unary_f32_relu_n1_to_1,
                               .q = lg_unary_q_relu,
                               .q_lo = -1.0f,
                               .q_hi = 1.0f},
    [LG_UNARY_RELU_0_TO_1] = {.name = "RELU_0_TO_1",
                              .f32 = lg_unary_f32_relu_0_to_1,
                              .q = lg_unary_q_relu,
                              .q_lo = 0.0f,
                              .q_hi = 1.0f},
    [LG_UNARY_ELU] = {.name = "ELU",
                      .f32 = lg_unary_f32_elu,
                      .lut = lg_unary_lut_elu},
    [LG_UNARY_HARD_SWISH] = {.name = "HARD_SWISH",
                             .f32 = lg_unary_f32_hard_swish,
                             .q = lg_unary_q_hard_swish,
                             .q_lo = -INFINITY,
                             .q_hi = INFINITY},
    [LG_UNARY_LEAKY_RELU] = {.name = "LEAKY_RELU",
                             .f32 = lg_unary_f32_leaky_relu,
                             .q = lg_unary_q_leaky_relu,
                             .q_int16 = true,
                             .q_lo = -INFINITY,
                             .q_hi = INFINITY},
    [LG_UNARY_GELU] = {.name = "GELU",
                       .f32 = lg_unary_f32_gelu,
                       .lut = lg_unary_lut_gelu},
};

/* ---- Kernel -------------------------------------------------------------- */

static void* lg_unary_init_variant(int op, const char* name) {
  (void)name; /* the table row has it */
  lg_unary_data* data = calloc(1, sizeof(*data));
  if (data != NULL) data->op = &kLgUnaryOps[op];
  return data;
}

static bool lg_unary_supports(const lg_unary_op* op, TfLiteType type) {
  return type == kTfLiteFloat32 || (type == kTfLiteInt32 && op->i32 != NULL) ||
         (type == kTfLiteInt64 && op->i64 != NULL) ||
         (type == kTfLiteInt8 && (op->q != NULL || op->lut != NULL)) ||
         (type == kTfLiteUInt8 && op->lut_uint8) ||
         (type == kTfLiteInt16 && (op->q_int16 || op->q16_sigmoid != NULL));
}

static TfLiteStatus lg_unary_check_types(TfLiteContext* context,
                                         const lg_unary_op* op,
                                         const TfLiteTensor* input,
                                         const TfLiteTensor* output) {
  if (!lg_unary_supports(op, input->type)) {
    char expected[64];
    if (op->q != NULL || op->lut != NULL) {
      snprintf(expected, sizeof(expected), "FLOAT32%s",
               op->q16_sigmoid != NULL ? ", INT8, UINT8 or INT16"
               : op->q_int16           ? ", INT8 or INT16"
               : op->lut_uint8         ? ", INT8 or UINT8"
                                       : " or INT8");
    } else {
      snprintf(
          expected, sizeof(expected), "FLOAT32%s%s",
          op->i32 != NULL ? (op->i64 != NULL ? ", INT32" : " or INT32") : "",
          op->i64 != NULL ? " or INT64" : "");
    }
    lg_kernel_log(context, op->name,
                  "input type %s is not supported (expected %s)",
                  TfLiteTypeGetName(input->type), expected);
    return kTfLiteError;
  }
  if (output->type != input->type) {
    lg_kernel_log(
        context, op->name, "output type %s differs from input type %s",
        TfLiteTypeGetName(output->type), TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Reads the op's parameters; NULL params mean the schema defaults. */
static void lg_unary_read_params(const lg_unary_data* data,
                                 const TfLiteNode* node,
                                 lg_unary_params* params) {
  params->alpha = 0.0f;
  params->approximate = false;
  if (node->builtin_data == NULL) return;
  if (data->op == &kLgUnaryOps[LG_UNARY_LEAKY_RELU]) {
    params->alpha = ((const TfLiteLeakyReluParams*)node->builtin_data)->alpha;
  } else if (data->op == &kLgUnaryOps[LG_UNARY_GELU]) {
    params->approximate =
        ((const TfLiteGeluParams*)node->builtin_data)->approximate;
  }
}

/* The quantized clamp range of the RELU family: [lo, hi] in real values
 * as quantized values of the output, within the type's range (TFLite's
 * QuantizedReluX, rounding in float). */
static void lg_unary_q_range(const lg_unary_op* op, TfLiteType type,
                             const lg_quant_layout* out_q,
                             lg_unary_qparams* p) {
  int32_t qmin = 0, qmax = 0;
  lg_quant_type_range(type, &qmin, &qmax);
  p->act_min = qmin;
  p->act_max = qmax;
  if (isfinite(op->q_lo)) {
    const int32_t lo =
        out_q->zero_point0 + lg_quant_round_to_int(op->q_lo / out_q->scale0);
    if (lo > qmin) p->act_min = lo;
  }
  if (isfinite(op->q_hi)) {
    const int32_t hi =
        out_q->zero_point0 + lg_quant_round_to_int(op->q_hi / out_q->scale0);
    if (hi < qmax) p->act_max = hi;
  }
}

/* INT8 (UINT8) through the op's float function, as TFLite's LUTPopulate:
 * each input value dequantized in float, transformed, divided by the output
 * scale (times its float inverse), rounded, offset and clamped to the
 * type. */
static TfLiteStatus lg_unary_prepare_lut(TfLiteContext* context,
                                         lg_unary_data* data, TfLiteType type,
                                         const lg_quant_layout* in_q,
                                         const lg_quant_layout* out_q) {
  const lg_unary_op* op = data->op;
  if (op->lut_scale > 0.0f && out_q->scale0 != op->lut_scale) {
    lg_kernel_log(context, op->name,
                  "%s output scale %g is not supported (expected 1/%g)",
                  TfLiteTypeGetName(type), (double)out_q->scale0,
                  1.0 / (double)op->lut_scale);
    return kTfLiteError;
  }
  int32_t lo = 0, hi = 0;
  lg_quant_type_range(type, &lo, &hi);
  const float inverse_scale = 1.0f / out_q->scale0;
  for (int32_t v = lo; v <= hi; ++v) {
    const float real = in_q->scale0 * (float)(v - in_q->zero_point0);
    const float y = op->lut(real, &data->params);
    const float rescaled = roundf(y * inverse_scale);
    int32_t q = lg_quant_round_to_int(rescaled + (float)out_q->zero_point0);
    q = q < lo ? lo : (q > hi ? hi : q);
    if (type == kTfLiteUInt8) {
      data->table_u8[v] = (uint8_t)q;
    } else {
      data->table[v + 128] = (int8_t)q;
    }
  }
  return kTfLiteOk;
}

/* Reads the quantization of a quantized node and fills its parameters and,
 * for INT8, its table. */
static TfLiteStatus lg_unary_prepare_quantized(TfLiteContext* context,
                                               lg_unary_data* data,
                                               const TfLiteTensor* input,
                                               const TfLiteTensor* output) {
  const char* name = data->op->name;
  lg_quant_layout in_q, out_q;
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, name, "input", input, &in_q));
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, name, "output", output, &out_q));
  if (input->type == kTfLiteInt16 &&
      (in_q.zero_point0 != 0 || out_q.zero_point0 != 0)) {
    lg_kernel_log(context, name,
                  "INT16 zero points must be 0 (input %d, output %d): INT16 "
                  "quantization is symmetric",
                  (int)in_q.zero_point0, (int)out_q.zero_point0);
    return kTfLiteError;
  }
  if (input->type == kTfLiteInt16 && data->op->q16_sigmoid != NULL) {
    return lg_unary_prepare_sigmoid16(context, data->op, &in_q, &out_q,
                                      &data->qparams);
  }
  if (data->op->lut != NULL) {
    return lg_unary_prepare_lut(context, data, input->type, &in_q, &out_q);
  }
  lg_unary_qparams* p = &data->qparams;
  p->in_zp = in_q.zero_point0;
  p->out_zp = out_q.zero_point0;
  /* TFLite computes both ratios in float, then widens them. */
  const float identity = in_q.scale0 / out_q.scale0;
  lg_quantize_multiplier((double)identity, &p->identity_multiplier,
                         &p->identity_shift);
  const float alpha = data->params.alpha;
  p->alpha_negative = alpha < 0.0f;
  const float alpha_ratio = in_q.scale0 * fabsf(alpha) / out_q.scale0;
  lg_quantize_multiplier((double)alpha_ratio, &p->alpha_multiplier,
                         &p->alpha_shift);
  lg_unary_q_range(data->op, input->type, &out_q, p);
  if (data->op == &kLgUnaryOps[LG_UNARY_RSQRT]) {
    /* 1 / (sqrt(input scale) * output scale), the product in float. */
    lg_quantize_multiplier(1.0 / (double)(sqrtf(in_q.scale0) * out_q.scale0),
                           &p->identity_multiplier, &p->identity_shift);
  }
  if (data->op == &kLgUnaryOps[LG_UNARY_HARD_SWISH]) {
    TF_LITE_ENSURE_STATUS(
        lg_unary_hard_swish_params(context, in_q.scale0, out_q.scale0, p));
  }
  if (input->type == kTfLiteInt8) {
    for (int v = -128; v < 128; ++v) {
      data->table[v + 128] = (int8_t)data->op->q(v, p);
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_unary_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_unary_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, "UNARY", "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  const char* name = data->op->name;
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, name, 1, 1, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, name, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, name, kOutputTensor, &output));
  TF_LITE_ENSURE_STATUS(lg_unary_check_types(context, data->op, input, output));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, name, "input", input));
  lg_unary_read_params(data, node, &data->params);
  if (input->type == kTfLiteInt8 || input->type == kTfLiteInt16 ||
      input->type == kTfLiteUInt8) {
    TF_LITE_ENSURE_STATUS(
        lg_unary_prepare_quantized(context, data, input, output));
  }
  data->type = input->type;
  data->count = lg_kernel_num_elements(input);
  TfLiteIntArray* shape = TfLiteIntArrayCopy(input->dims);
  if (shape == NULL) {
    lg_kernel_log(context, name, "out of memory for the output shape");
    return kTfLiteError;
  }
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, shape));
  data->prepared = true;
  return kTfLiteOk;
}

/* One Invoke's work, shared read-only by its tasks. */
typedef struct lg_unary_job {
  const lg_unary_data* data;
  const void* input;
  void* output;
  int num_tasks;
} lg_unary_job;

/* Runs elements [begin, end) on the row function of the node's type. */
static void lg_unary_range(const lg_unary_job* job, int64_t begin,
                           int64_t end) {
  const lg_unary_data* data = job->data;
  const int64_t n = end - begin;
  switch (data->type) {
    case kTfLiteInt32:
      data->op->i32((const int32_t*)job->input + begin,
                    (int32_t*)job->output + begin, n);
      break;
    case kTfLiteInt64:
      data->op->i64((const int64_t*)job->input + begin,
                    (int64_t*)job->output + begin, n);
      break;
    case kTfLiteInt8: {
      const int8_t* in = (const int8_t*)job->input + begin;
      int8_t* out = (int8_t*)job->output + begin;
      for (int64_t i = 0; i < n; ++i) out[i] = data->table[in[i] + 128];
      break;
    }
    case kTfLiteUInt8: {
      const uint8_t* in = (const uint8_t*)job->input + begin;
      uint8_t* out = (uint8_t*)job->output + begin;
      for (int64_t i = 0; i < n; ++i) out[i] = data->table_u8[in[i]];
      break;
    }
    case kTfLiteInt16: {
      const int16_t* in = (const int16_t*)job->input + begin;
      int16_t* out = (int16_t*)job->output + begin;
      const lg_unary_q_fn q =
          data->op->q16_sigmoid != NULL ? data->op->q16_sigmoid : data->op->q;
      for (int64_t i = 0; i < n; ++i) {
        out[i] = (int16_t)q(in[i], &data->qparams);
      }
      break;
    }
    default:
      data->op->f32((const float*)job->input + begin,
                    (float*)job->output + begin, n, &data->params);
      break;
  }
}

static void lg_unary_task(void* ctx, int index) {
  const lg_unary_job* job = ctx;
  const int64_t total = job->data->count;
  lg_unary_range(job, total * index / job->num_tasks,
                 total * (index + 1) / job->num_tasks);
}

/* RSQRT's quantized input must not lie below the zero point (TFLite checks
 * every element before computing). */
static TfLiteStatus lg_unary_check_positive(TfLiteContext* context,
                                            const lg_unary_data* data,
                                            const TfLiteTensor* input) {
  const int8_t* in = input->data.int8;
  for (int64_t i = 0; i < data->count; ++i) {
    if (in[i] < data->qparams.in_zp) {
      lg_kernel_log(context, data->op->name,
                    "input element %lld is %d, below the zero point %d: the "
                    "op is only defined for non-negative values",
                    (long long)i, (int)in[i], (int)data->qparams.in_zp);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_unary_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_unary_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, data != NULL ? data->op->name : "UNARY",
                  "invoked before a successful prepare");
    return kTfLiteError;
  }
  const char* name = data->op->name;
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, name, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, name, kOutputTensor, &output));
  if (lg_kernel_num_elements(input) != data->count ||
      lg_kernel_num_elements(output) != data->count ||
      input->type != data->type || output->type != data->type) {
    lg_kernel_log(context, name, "tensors changed since prepare");
    return kTfLiteError;
  }
  if (data->count == 0) return kTfLiteOk;
  if (input->data.data == NULL || output->data.data == NULL) {
    lg_kernel_log(context, name, "a tensor has no data");
    return kTfLiteError;
  }
  if (data->op->q_positive && data->type == kTfLiteInt8) {
    TF_LITE_ENSURE_STATUS(lg_unary_check_positive(context, data, input));
  }
  lg_unary_job job = {.data = data,
                      .input = input->data.data,
                      .output = output->data.data,
                      .num_tasks = 1};
  lg_thread_pool* pool = lg_kernel_thread_pool(context);
  const int threads = lg_thread_pool_size(pool);
  if (threads > 1 && data->count >= LG_UNARY_MIN_PARALLEL) {
    job.num_tasks = lg_thread_pool_tasks(pool, data->count / LG_UNARY_MIN_TASK);
  }
  lg_thread_pool_run(pool, lg_unary_task, &job, job.num_tasks);
  return kTfLiteOk;
}

/* ---- Registrations ------------------------------------------------------- */

LG_KERNEL_FAMILY_REGISTRATION(EXP, lg_unary, LG_UNARY_EXP)
LG_KERNEL_FAMILY_REGISTRATION(LOG, lg_unary, LG_UNARY_LOG)
LG_KERNEL_FAMILY_REGISTRATION(SQRT, lg_unary, LG_UNARY_SQRT)
LG_KERNEL_FAMILY_REGISTRATION(RSQRT, lg_unary, LG_UNARY_RSQRT)
LG_KERNEL_FAMILY_REGISTRATION(SQUARE, lg_unary, LG_UNARY_SQUARE)
LG_KERNEL_FAMILY_REGISTRATION(ABS, lg_unary, LG_UNARY_ABS)
LG_KERNEL_FAMILY_REGISTRATION(NEG, lg_unary, LG_UNARY_NEG)
LG_KERNEL_FAMILY_REGISTRATION(SIN, lg_unary, LG_UNARY_SIN)
LG_KERNEL_FAMILY_REGISTRATION(COS, lg_unary, LG_UNARY_COS)
LG_KERNEL_FAMILY_REGISTRATION(FLOOR, lg_unary, LG_UNARY_FLOOR)
LG_KERNEL_FAMILY_REGISTRATION(CEIL, lg_unary, LG_UNARY_CEIL)
LG_KERNEL_FAMILY_REGISTRATION(ROUND, lg_unary, LG_UNARY_ROUND)
LG_KERNEL_FAMILY_REGISTRATION(SIGN, lg_unary, LG_UNARY_SIGN)
LG_KERNEL_FAMILY_REGISTRATION(LOGISTIC, lg_unary, LG_UNARY_LOGISTIC)
LG_KERNEL_FAMILY_REGISTRATION(TANH, lg_unary, LG_UNARY_TANH)
LG_KERNEL_FAMILY_REGISTRATION(RELU, lg_unary, LG_UNARY_RELU)
LG_KERNEL_FAMILY_REGISTRATION(RELU6, lg_unary, LG_UNARY_RELU6)
LG_KERNEL_FAMILY_REGISTRATION(RELU_N1_TO_1, lg_unary, LG_UNARY_RELU_N1_TO_1)
LG_KERNEL_FAMILY_REGISTRATION(RELU_0_TO_1, lg_unary, LG_UNARY_RELU_0_TO_1)
LG_KERNEL_FAMILY_REGISTRATION(ELU, lg_unary, LG_UNARY_ELU)
LG_KERNEL_FAMILY_REGISTRATION(HARD_SWISH, lg_unary, LG_UNARY_HARD_SWISH)
LG_KERNEL_FAMILY_REGISTRATION(LEAKY_RELU, lg_unary, LG_UNARY_LEAKY_RELU)
LG_KERNEL_FAMILY_REGISTRATION(GELU, lg_unary, LG_UNARY_GELU)
