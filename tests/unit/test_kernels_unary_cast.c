/* CAST (cast.c) and DEQUANTIZE (dequantize.c) through the kernel runner:
 * every pair of the six CAST types with saturation, wrap-around, NaN and
 * infinities (the expected tables are LiteRT's own outputs for the same
 * inputs, checked by hand against the rules); chunk boundaries; DEQUANTIZE
 * per tensor and per channel on every axis, shared and per-channel zero
 * points, int16, float16 specials; every rejection message; seeded random
 * cases against double-precision references.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "runtime/kernels/fp16.h"
#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tests/unit/unary_test_util.h"

/* ---- CAST ---------------------------------------------------------------- */

static void cast_run(TfLiteType from, TfLiteType to, const void* in, int n,
                     void* out) {
  run_one(lg_register_CAST(), NULL, from, to, (int[]){n}, 1, in, out, 1);
}

/* Float sources: truncation toward zero, saturation at the target's range,
 * NaN to the maximum, nonzero (NaN too) to true. 2147483520 is the largest
 * float below 2^31; 2^63 is one past INT64_MAX and saturates (its plain C
 * conversion would overflow), -2^63 is INT64_MIN exactly. */
static const float kFloatIn[] = {
    NAN,    -INFINITY,     INFINITY, -1.7f,   2.9f,    -0.0f,   3e9f,
    -3e9f,  300.5f,        -200.2f,  255.9f,  127.9f,  -128.9f, 1e20f,
    -1e20f, 2147483520.0f, 0.3f,     0x1p63f, -0x1p63f};
#define N_FLOAT_IN 19

static void test_cast_from_float(void** state) {
  (void)state;
  const int32_t want_i32[N_FLOAT_IN] = {
      INT32_MAX, INT32_MIN,  INT32_MAX, -1,        2,        0,    INT32_MAX,
      INT32_MIN, 300,        -200,      255,       127,      -128, INT32_MAX,
      INT32_MIN, 2147483520, 0,         INT32_MAX, INT32_MIN};
  const int64_t want_i64[N_FLOAT_IN] = {
      INT64_MAX,   INT64_MIN,  INT64_MAX, -1,        2,        0,    3000000000,
      -3000000000, 300,        -200,      255,       127,      -128, INT64_MAX,
      INT64_MIN,   2147483520, 0,         INT64_MAX, INT64_MIN};
  const int8_t want_i8[N_FLOAT_IN] = {127,  -128, 127,  -1,  2,   0,    127,
                                      -128, 127,  -128, 127, 127, -128, 127,
                                      -128, 127,  0,    127, -128};
  const uint8_t want_u8[N_FLOAT_IN] = {255, 0,   255, 0,   2,   0, 255,
                                       0,   255, 0,   255, 127, 0, 255,
                                       0,   255, 0,   255, 0};
  const bool want_b[N_FLOAT_IN] = {1, 1, 1, 1, 1, 0, 1, 1, 1, 1,
                                   1, 1, 1, 1, 1, 1, 1, 1, 1};
  int32_t i32[N_FLOAT_IN];
  int64_t i64[N_FLOAT_IN];
  int8_t i8[N_FLOAT_IN];
  uint8_t u8[N_FLOAT_IN];
  bool b[N_FLOAT_IN];
  float f[N_FLOAT_IN];
  cast_run(kTfLiteFloat32, kTfLiteInt32, kFloatIn, N_FLOAT_IN, i32);
  assert_memory_equal(i32, want_i32, sizeof(i32));
  cast_run(kTfLiteFloat32, kTfLiteInt64, kFloatIn, N_FLOAT_IN, i64);
  assert_memory_equal(i64, want_i64, sizeof(i64));
  cast_run(kTfLiteFloat32, kTfLiteInt8, kFloatIn, N_FLOAT_IN, i8);
  assert_memory_equal(i8, want_i8, sizeof(i8));
  cast_run(kTfLiteFloat32, kTfLiteUInt8, kFloatIn, N_FLOAT_IN, u8);
  assert_memory_equal(u8, want_u8, sizeof(u8));
  cast_run(kTfLiteFloat32, kTfLiteBool, kFloatIn, N_FLOAT_IN, b);
  assert_memory_equal(b, want_b, sizeof(b));
  cast_run(kTfLiteFloat32, kTfLiteFloat32, kFloatIn, N_FLOAT_IN, f);
  expect_float_bits(f, kFloatIn, N_FLOAT_IN, "float -> float");
}

static void test_cast_from_int32(void** state) {
  (void)state;
  /* Narrowing wraps (two's complement); to float rounds to nearest:
   * INT32_MAX becomes 2^31. */
  const int32_t in[] = {INT32_MIN, INT32_MAX, -1, 0, 1, 255, 256, -129, 128};
  const float want_f[] = {
      -2147483648.0f, 2147483648.0f, -1, 0, 1, 255, 256, -129, 128};
  const int64_t want_i64[] = {INT32_MIN, INT32_MAX, -1,   0,  1,
                              255,       256,       -129, 128};
  const int8_t want_i8[] = {0, -1, -1, 0, 1, -1, 0, 127, -128};
  const uint8_t want_u8[] = {0, 255, 255, 0, 1, 255, 0, 127, 128};
  const bool want_b[] = {1, 1, 1, 0, 1, 1, 1, 1, 1};
  float f[9];
  int64_t i64[9];
  int32_t i32[9];
  int8_t i8[9];
  uint8_t u8[9];
  bool b[9];
  cast_run(kTfLiteInt32, kTfLiteFloat32, in, 9, f);
  expect_floats(f, want_f, 9, "int32 -> float");
  cast_run(kTfLiteInt32, kTfLiteInt64, in, 9, i64);
  assert_memory_equal(i64, want_i64, sizeof(i64));
  cast_run(kTfLiteInt32, kTfLiteInt32, in, 9, i32);
  assert_memory_equal(i32, in, sizeof(i32));
  cast_run(kTfLiteInt32, kTfLiteInt8, in, 9, i8);
  assert_memory_equal(i8, want_i8, sizeof(i8));
  cast_run(kTfLiteInt32, kTfLiteUInt8, in, 9, u8);
  assert_memory_equal(u8, want_u8, sizeof(u8));
  cast_run(kTfLiteInt32, kTfLiteBool, in, 9, b);
  assert_memory_equal(b, want_b, sizeof(b));
}

static void test_cast_from_int64(void** state) {
  (void)state;
  /* 2^40 + 1 and 2^24 + 1 need more than 24 bits: to float they round to
   * 2^40 and 2^24 (ties to even). */
  const int64_t in[] = {
      INT64_MIN, INT64_MAX, (INT64_C(1) << 40) + 1, -1, 0, 1, 255, 256, -129,
      128,       16777217};
  const float want_f[] = {-9223372036854775808.0f,
                          9223372036854775808.0f,
                          1099511627776.0f,
                          -1,
                          0,
                          1,
                          255,
                          256,
                          -129,
                          128,
                          16777216.0f};
  const int32_t want_i32[] = {0,   -1,  1,    -1,  0,       1,
                              255, 256, -129, 128, 16777217};
  const int8_t want_i8[] = {0, -1, 1, -1, 0, 1, -1, 0, 127, -128, 1};
  const uint8_t want_u8[] = {0, 255, 1, 255, 0, 1, 255, 0, 127, 128, 1};
  const bool want_b[] = {1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1};
  float f[11];
  int32_t i32[11];
  int8_t i8[11];
  uint8_t u8[11];
  bool b[11];
  cast_run(kTfLiteInt64, kTfLiteFloat32, in, 11, f);
  expect_floats(f, want_f, 11, "int64 -> float");
  cast_run(kTfLiteInt64, kTfLiteInt32, in, 11, i32);
  assert_memory_equal(i32, want_i32, sizeof(i32));
  cast_run(kTfLiteInt64, kTfLiteInt8, in, 11, i8);
  assert_memory_equal(i8, want_i8, sizeof(i8));
  cast_run(kTfLiteInt64, kTfLiteUInt8, in, 11, u8);
  assert_memory_equal(u8, want_u8, sizeof(u8));
  cast_run(kTfLiteInt64, kTfLiteBool, in, 11, b);
  assert_memory_equal(b, want_b, sizeof(b));
}

static void test_cast_small_types(void** state) {
  (void)state;
  /* uint8 <-> int8 reinterpret the byte; widening keeps the value. */
  const uint8_t u8_in[] = {0, 1, 127, 128, 255};
  const int8_t i8_in[] = {0, 1, 127, -128, -1};
  const float u8_f[] = {0, 1, 127, 128, 255};
  const float i8_f[] = {0, 1, 127, -128, -1};
  const int32_t u8_i32[] = {0, 1, 127, 128, 255};
  const int64_t i8_i64[] = {0, 1, 127, -128, -1};
  const bool nonzero[] = {0, 1, 1, 1, 1};
  float f[5];
  int32_t i32[5];
  int64_t i64[5];
  int8_t i8[5];
  uint8_t u8[5];
  bool b[5];
  cast_run(kTfLiteUInt8, kTfLiteInt8, u8_in, 5, i8);
  assert_memory_equal(i8, i8_in, sizeof(i8));
  cast_run(kTfLiteInt8, kTfLiteUInt8, i8_in, 5, u8);
  assert_memory_equal(u8, u8_in, sizeof(u8));
  cast_run(kTfLiteUInt8, kTfLiteFloat32, u8_in, 5, f);
  expect_floats(f, u8_f, 5, "uint8 -> float");
  cast_run(kTfLiteInt8, kTfLiteFloat32, i8_in, 5, f);
  expect_floats(f, i8_f, 5, "int8 -> float");
  cast_run(kTfLiteUInt8, kTfLiteInt32, u8_in, 5, i32);
  assert_memory_equal(i32, u8_i32, sizeof(i32));
  cast_run(kTfLiteInt8, kTfLiteInt64, i8_in, 5, i64);
  assert_memory_equal(i64, i8_i64, sizeof(i64));
  cast_run(kTfLiteUInt8, kTfLiteBool, u8_in, 5, b);
  assert_memory_equal(b, nonzero, sizeof(b));
  cast_run(kTfLiteInt8, kTfLiteBool, i8_in, 5, b);
  assert_memory_equal(b, nonzero, sizeof(b));
  /* bool -> every type is 0 or 1; a bool byte of 2 counts as true. */
  const uint8_t bools[] = {1, 0, 2};
  const float bf[] = {1, 0, 1};
  const int64_t bi64[] = {1, 0, 1};
  const uint8_t bu8[] = {1, 0, 1};
  cast_run(kTfLiteBool, kTfLiteFloat32, bools, 3, f);
  expect_floats(f, bf, 3, "bool -> float");
  cast_run(kTfLiteBool, kTfLiteInt64, bools, 3, i64);
  assert_memory_equal(i64, bi64, sizeof(bi64));
  cast_run(kTfLiteBool, kTfLiteUInt8, bools, 3, u8);
  assert_memory_equal(u8, bu8, sizeof(bu8));
  cast_run(kTfLiteBool, kTfLiteBool, bools, 3, b);
  assert_memory_equal(b, bu8, sizeof(bu8));
}

/* The reference for one element, through double and the rules. */
static double cast_ref_value(TfLiteType from, const void* in, int i) {
  switch (from) {
    case kTfLiteFloat32:
      return ((const float*)in)[i];
    case kTfLiteInt32:
      return ((const int32_t*)in)[i];
    case kTfLiteInt8:
      return ((const int8_t*)in)[i];
    default:
      return ((const uint8_t*)in)[i];
  }
}

static int64_t cast_ref_int(double v, bool from_float, int bits,
                            bool is_signed) {
  const double lo = is_signed ? -ldexp(1, bits - 1) : 0;
  const double hi = is_signed ? ldexp(1, bits - 1) - 1 : ldexp(1, bits) - 1;
  if (from_float) {
    if (isnan(v)) return (int64_t)hi;
    v = trunc(v);
    return (int64_t)(v < lo ? lo : (v > hi ? hi : v));
  }
  /* Wrap: v mod 2^bits into [lo, hi]. */
  const double m = ldexp(1, bits);
  double w = fmod(v, m);
  if (w < lo) w += m;
  if (w > hi) w -= m;
  return (int64_t)w;
}

static void test_cast_random_chunks(void** state) {
  (void)state;
  /* Sizes around the 256-element chunk of the kernel. */
  const int sizes[] = {1, 255, 256, 257, 1000};
  const TfLiteType from[] = {kTfLiteFloat32, kTfLiteInt32, kTfLiteInt8,
                             kTfLiteUInt8};
  static float fin[1000];
  static int32_t iin[1000], got_i32[1000];
  static int8_t i8in[1000], got_i8[1000];
  static uint8_t u8in[1000], got_u8[1000];
  static float got_f[1000];
  uint32_t seed = 0xca57u;
  for (int s = 0; s < ARRAY_SIZE(sizes); ++s) {
    const int n = sizes[s];
    for (int i = 0; i < n; ++i) {
      fin[i] = rng_uniform(&seed, -400.0f, 400.0f);
      iin[i] = (int32_t)rng_next(&seed) >> rng_int(&seed, 0, 24);
      i8in[i] = (int8_t)rng_next(&seed);
      u8in[i] = (uint8_t)rng_next(&seed);
    }
    const void* ins[] = {fin, iin, i8in, u8in};
    for (int k = 0; k < ARRAY_SIZE(from); ++k) {
      const bool ff = from[k] == kTfLiteFloat32;
      cast_run(from[k], kTfLiteInt32, ins[k], n, got_i32);
      cast_run(from[k], kTfLiteInt8, ins[k], n, got_i8);
      cast_run(from[k], kTfLiteUInt8, ins[k], n, got_u8);
      cast_run(from[k], kTfLiteFloat32, ins[k], n, got_f);
      for (int i = 0; i < n; ++i) {
        const double v = cast_ref_value(from[k], ins[k], i);
        if (got_i32[i] != cast_ref_int(v, ff, 32, true) ||
            got_i8[i] != cast_ref_int(v, ff, 8, true) ||
            got_u8[i] != cast_ref_int(v, ff, 8, false) ||
            got_f[i] != (float)v) {
          fail_msg("type %d size %d index %d: value %.9g -> %d %d %d %.9g",
                   from[k], n, i, v, got_i32[i], got_i8[i], got_u8[i],
                   (double)got_f[i]);
        }
      }
    }
  }
}

static void test_cast_shapes_and_rejections(void** state) {
  (void)state;
  /* The shape passes through; empty tensors are fine. */
  const float x[6] = {1.5f, -2.5f, 3, 4, 5, 6};
  int32_t got[6];
  const int32_t want[6] = {1, -2, 3, 4, 5, 6};
  run_one(lg_register_CAST(), NULL, kTfLiteFloat32, kTfLiteInt32,
          (int[]){2, 1, 3}, 3, x, got, 1);
  assert_memory_equal(got, want, sizeof(want));
  run_one(lg_register_CAST(), NULL, kTfLiteInt64, kTfLiteBool, (int[]){0, 4}, 2,
          x, got, 1);
  float scalar = 0;
  const int32_t seven = 7;
  run_one(lg_register_CAST(), NULL, kTfLiteInt32, kTfLiteFloat32, NULL, 0,
          &seven, &scalar, 1);
  assert_true(scalar == 7.0f);
  /* Options are informational: a contradicting CastOptions changes
   * nothing. */
  TfLiteCastParams params = {.in_data_type = kTfLiteInt8,
                             .out_data_type = kTfLiteBool};
  run_one(lg_register_CAST(), &params, kTfLiteFloat32, kTfLiteInt32, (int[]){6},
          1, x, got, 1);
  assert_memory_equal(got, want, sizeof(want));

  expect_one_rejected(lg_register_CAST(), NULL, kTfLiteFloat16, kTfLiteFloat32,
                      (int[]){2}, 1, x,
                      "CAST: input type FLOAT16 is not supported (expected "
                      "FLOAT32, INT32, INT64, BOOL, INT8 or UINT8)");
  expect_one_rejected(lg_register_CAST(), NULL, kTfLiteFloat32, kTfLiteInt16,
                      (int[]){2}, 1, x,
                      "CAST: output type INT16 is not supported");
  expect_one_rejected(lg_register_CAST(), NULL, kTfLiteUInt32, kTfLiteInt32,
                      (int[]){2}, 1, x,
                      "CAST: input type UINT32 is not supported");
  expect_one_rejected(lg_register_CAST(), NULL, kTfLiteFloat32, kTfLiteFloat64,
                      (int[]){2}, 1, x,
                      "CAST: output type FLOAT64 is not supported");
}

/* ---- DEQUANTIZE ---------------------------------------------------------- */

/* Gives tensor t affine quantization (freed by free_quantization). */
static void set_affine(TfLiteTensor* t, const float* scales, int n_scales,
                       const int* zero_points, int n_zero_points, int axis) {
  TfLiteAffineQuantization* q = calloc(1, sizeof(*q));
  assert_non_null(q);
  q->scale = TfLiteFloatArrayCreate(n_scales);
  q->zero_point = TfLiteIntArrayCreate(n_zero_points);
  assert_non_null(q->scale);
  assert_non_null(q->zero_point);
  for (int i = 0; i < n_scales; ++i) q->scale->data[i] = scales[i];
  for (int i = 0; i < n_zero_points; ++i) {
    q->zero_point->data[i] = zero_points[i];
  }
  q->quantized_dimension = axis;
  t->quantization.type = kTfLiteAffineQuantization;
  t->quantization.params = q;
  t->params.scale = scales[0];
  t->params.zero_point = zero_points[0];
}

typedef struct dq_setup {
  TfLiteType type;
  const int* dims;
  int rank;
  const void* data;
  const float* scales;
  int n_scales;
  const int* zero_points;
  int n_zero_points;
  int axis;
  TfLiteType out_type;
} dq_setup;

/* Runs DEQUANTIZE; with needle == NULL expects success and copies the
 * output into out. */
static void dq_run(const dq_setup* s, float* out, const char* needle) {
  lg_kernel_runner r;
  lg_kernel_runner_init(&r, lg_register_DEQUANTIZE(), NULL);
  const int a = add_tensor(&r, s->type, s->dims, s->rank, s->data);
  const int o = add_tensor(&r, s->out_type, NULL, 0, NULL);
  TfLiteTensor* in = lg_kernel_runner_tensor(&r, a);
  if (s->n_scales > 0) {
    set_affine(in, s->scales, s->n_scales, s->zero_points, s->n_zero_points,
               s->axis);
  }
  lg_kernel_runner_set_inputs(&r, &a, 1);
  lg_kernel_runner_set_outputs(&r, &o, 1);
  const TfLiteStatus status = lg_kernel_runner_run(&r);
  if (needle != NULL) {
    expect_error_text(&r, status, needle);
  } else {
    if (status != kTfLiteOk) fail_msg("%s", lg_kernel_runner_errors(&r));
    expect_shape(lg_kernel_runner_tensor(&r, o), s->dims, s->rank);
    int n = 1;
    for (int i = 0; i < s->rank; ++i) n *= s->dims[i];
    memcpy(out, lg_kernel_runner_tensor(&r, o)->data.f, sizeof(float) * n);
  }
  TfLiteQuantizationFree(&in->quantization);
  lg_kernel_runner_release(&r);
}

static void test_dequantize_per_tensor(void** state) {
  (void)state;
  float got[4];
  /* uint8, scale 0.5, zero point 128: (q - 128) / 2. */
  const uint8_t u8[] = {0, 128, 255, 1};
  const float want_u8[] = {-64.0f, 0.0f, 63.5f, -63.5f};
  dq_run(&(dq_setup){kTfLiteUInt8, (int[]){4}, 1, u8, (float[]){0.5f}, 1,
                     (int[]){128}, 1, 0, kTfLiteFloat32},
         got, NULL);
  expect_floats(got, want_u8, 4, "uint8");
  /* int8, scale 0.25, zero point -3: (q + 3) / 4. */
  const int8_t i8[] = {-128, -3, 127, 0};
  const float want_i8[] = {-31.25f, 0.0f, 32.5f, 0.75f};
  dq_run(&(dq_setup){kTfLiteInt8, (int[]){2, 2}, 2, i8, (float[]){0.25f}, 1,
                     (int[]){-3}, 1, 0, kTfLiteFloat32},
         got, NULL);
  expect_floats(got, want_i8, 4, "int8");
  /* int16, scale 0.125, zero point 10 (asymmetric int16 is allowed). */
  const int16_t i16[] = {-32768, 32767, 10, 15};
  const float want_i16[] = {-4097.25f, 4094.625f, 0.0f, 0.625f};
  dq_run(&(dq_setup){kTfLiteInt16, (int[]){4}, 1, i16, (float[]){0.125f}, 1,
                     (int[]){10}, 1, 0, kTfLiteFloat32},
         got, NULL);
  expect_floats(got, want_i16, 4, "int16");
  /* A scale that does not divide evenly rounds once: 3 * 0.1f. */
  const int8_t three[] = {3};
  dq_run(&(dq_setup){kTfLiteInt8, (int[]){1}, 1, three, (float[]){0.1f}, 1,
                     (int[]){0}, 1, 0, kTfLiteFloat32},
         got, NULL);
  const float want_three = (float)(3.0 * (double)0.1f);
  expect_float_bits(got, &want_three, 1, "3 * 0.1f");
}

static void test_dequantize_params_only(void** state) {
  (void)state;
  /* A hand-built tensor with TfLiteTensor.params and no affine block. */
  const int8_t q[] = {-1, 0, 5};
  const float want[] = {-1.0f, -0.5f, 2.0f};
  lg_kernel_runner r;
  lg_kernel_runner_init(&r, lg_register_DEQUANTIZE(), NULL);
  const int a = add_tensor(&r, kTfLiteInt8, (int[]){3}, 1, q);
  const int o = add_tensor(&r, kTfLiteFloat32, NULL, 0, NULL);
  lg_kernel_runner_tensor(&r, a)->params.scale = 0.5f;
  lg_kernel_runner_tensor(&r, a)->params.zero_point = 1;
  lg_kernel_runner_set_inputs(&r, &a, 1);
  lg_kernel_runner_set_outputs(&r, &o, 1);
  assert_int_equal(lg_kernel_runner_run(&r), kTfLiteOk);
  expect_floats(lg_kernel_runner_tensor(&r, o)->data.f, want, 3, "params");
  lg_kernel_runner_release(&r);
}

static void test_dequantize_per_channel(void** state) {
  (void)state;
  float got[12];
  /* Axis 0 of [2, 3], one shared zero point 0: rows scale by 0.5 and 2. */
  const int8_t a0[] = {2, -4, 6, 1, -1, 3};
  const float want_a0[] = {1, -2, 3, 2, -2, 6};
  dq_run(&(dq_setup){kTfLiteInt8, (int[]){2, 3}, 2, a0, (float[]){0.5f, 2.0f},
                     2, (int[]){0}, 1, 0, kTfLiteFloat32},
         got, NULL);
  expect_floats(got, want_a0, 6, "axis 0");
  /* Last axis of [2, 3]: columns scale by 1, 0.5, 0.25. */
  const float want_a1[] = {2, -2, 1.5f, 1, -0.5f, 0.75f};
  dq_run(&(dq_setup){kTfLiteInt8, (int[]){2, 3}, 2, a0,
                     (float[]){1.0f, 0.5f, 0.25f}, 3, (int[]){0, 0, 0}, 3, 1,
                     kTfLiteFloat32},
         got, NULL);
  expect_floats(got, want_a1, 6, "last axis");
  /* Middle axis of [2, 3, 2] with a zero point per channel:
   * channel c: (q - zp[c]) * scale[c], zp = {0, 1, -1}, scale = {1, 2, 3}. */
  const int8_t mid[] = {1, 2, 1, 3, -1, 0, 4, 5, 0, -2, 2, -1};
  const float want_mid[] = {1, 2, 0, 4, 0, 3, 4, 5, -2, -6, 9, 0};
  dq_run(&(dq_setup){kTfLiteInt8, (int[]){2, 3, 2}, 3, mid, (float[]){1, 2, 3},
                     3, (int[]){0, 1, -1}, 3, 1, kTfLiteFloat32},
         got, NULL);
  expect_floats(got, want_mid, 12, "middle axis");
  /* uint8 per channel (as TFLite allows): zero point 128 shared. */
  const uint8_t u8[] = {128, 130, 126, 129};
  const float want_u8[] = {0, 2, -0.5f, 0.25f};
  dq_run(&(dq_setup){kTfLiteUInt8, (int[]){2, 2}, 2, u8, (float[]){1.0f, 0.25f},
                     2, (int[]){128}, 1, 0, kTfLiteFloat32},
         got, NULL);
  expect_floats(got, want_u8, 4, "uint8 per channel");
}

static void test_dequantize_float16(void** state) {
  (void)state;
  /* 1, -2, the largest half, the smallest subnormal 2^-24, infinity, a
   * NaN, -0 and 0x3555 = 1.333 * 2^-2 = 0.33325195. */
  const uint16_t h[] = {0x3c00, 0xc000, 0x7bff, 0x0001,
                        0x7c00, 0xfe00, 0x8000, 0x3555};
  const float want[] = {1.0f,     -2.0f, 65504.0f, 0x1p-24f,
                        INFINITY, NAN,   -0.0f,    0.333251953f};
  float got[8];
  dq_run(&(dq_setup){kTfLiteFloat16, (int[]){2, 4}, 2, h, NULL, 0, NULL, 0, 0,
                     kTfLiteFloat32},
         got, NULL);
  expect_floats(got, want, 8, "float16");
  assert_true(signbit(got[6]));
}

static void test_dequantize_rejections(void** state) {
  (void)state;
  const int8_t q[6] = {0};
  float got[6];
  const int dims[] = {2, 3};
  dq_run(&(dq_setup){kTfLiteInt4, dims, 2, q, (float[]){1}, 1, (int[]){0}, 1, 0,
                     kTfLiteFloat32},
         got,
         "DEQUANTIZE: input type INT4 is not supported (expected UINT8, "
         "INT8, INT16 or FLOAT16)");
  dq_run(&(dq_setup){kTfLiteFloat32, dims, 2, q, NULL, 0, NULL, 0, 0,
                     kTfLiteFloat32},
         got, "DEQUANTIZE: input type FLOAT32 is not supported");
  dq_run(&(dq_setup){kTfLiteInt8, dims, 2, q, (float[]){1}, 1, (int[]){0}, 1, 0,
                     kTfLiteInt32},
         got,
         "DEQUANTIZE: output type INT32 is not supported (expected FLOAT32)");
  dq_run(&(dq_setup){kTfLiteInt8, dims, 2, q, (float[]){1, 2, 3}, 3, (int[]){0},
                     1, 2, kTfLiteFloat32},
         got,
         "DEQUANTIZE: quantized_dimension 2 is out of range for input shape "
         "[2,3]");
  dq_run(&(dq_setup){kTfLiteInt8, dims, 2, q, (float[]){1, 2, 3}, 3, (int[]){0},
                     1, 0, kTfLiteFloat32},
         got,
         "DEQUANTIZE: 3 scales do not match dimension 0 (size 2) of input "
         "shape [2,3]");
  dq_run(&(dq_setup){kTfLiteInt8, dims, 2, q, (float[]){1, 2, 3}, 3,
                     (int[]){0, 0}, 2, 1, kTfLiteFloat32},
         got, "DEQUANTIZE: 2 zero points for 3 scales (expected 1 or 3)");
  dq_run(
      &(dq_setup){kTfLiteInt8, dims, 2, q, NULL, 0, NULL, 0, 0, kTfLiteFloat32},
      got, "DEQUANTIZE: INT8 input has no quantization parameters");
}

static void test_dequantize_random(void** state) {
  (void)state;
  /* Random shapes, axes and per-tensor or per-channel parameters; the
   * reference multiplies in double and rounds once, so the match is
   * exact. */
  static int8_t q[4096];
  static float got[4096];
  float scales[17];
  int zps[17];
  uint32_t seed = 0xdeadu;
  for (int t = 0; t < 40; ++t) {
    const int rank = rng_int(&seed, 1, 4);
    int dims[4], n = 1;
    for (int i = 0; i < rank; ++i) {
      dims[i] = (int[]){1, 2, 3, 5, 7}[rng_int(&seed, 0, 4)];
      n *= dims[i];
    }
    for (int i = 0; i < n; ++i) q[i] = (int8_t)rng_next(&seed);
    const bool per_channel = rng_int(&seed, 0, 1);
    const int axis = rng_int(&seed, 0, rank - 1);
    const int channels = per_channel ? dims[axis] : 1;
    const bool zp_each = channels > 1 && rng_int(&seed, 0, 1);
    for (int c = 0; c < channels; ++c) {
      scales[c] = rng_uniform(&seed, 1e-3f, 2.0f);
      zps[c] = rng_int(&seed, -128, 127);
    }
    if (per_channel && channels == 1) continue; /* that is per tensor */
    dq_run(&(dq_setup){kTfLiteInt8, dims, rank, q, scales, channels, zps,
                       zp_each ? channels : 1, axis, kTfLiteFloat32},
           got, NULL);
    int inner = 1;
    for (int i = axis + 1; i < rank; ++i) inner *= dims[i];
    for (int i = 0; i < n; ++i) {
      const int c = channels > 1 ? (i / inner) % channels : 0;
      const int zp = zps[zp_each ? c : 0];
      const float want = (float)((double)scales[c] * (q[i] - zp));
      if (float_bits(got[i]) != float_bits(want)) {
        fail_msg("case %d index %d: got %.9g, want %.9g", t, i, (double)got[i],
                 (double)want);
      }
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cast_from_float),
      cmocka_unit_test(test_cast_from_int32),
      cmocka_unit_test(test_cast_from_int64),
      cmocka_unit_test(test_cast_small_types),
      cmocka_unit_test(test_cast_random_chunks),
      cmocka_unit_test(test_cast_shapes_and_rejections),
      cmocka_unit_test(test_dequantize_per_tensor),
      cmocka_unit_test(test_dequantize_params_only),
      cmocka_unit_test(test_dequantize_per_channel),
      cmocka_unit_test(test_dequantize_float16),
      cmocka_unit_test(test_dequantize_rejections),
      cmocka_unit_test(test_dequantize_random),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
