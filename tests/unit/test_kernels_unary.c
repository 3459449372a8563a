/* The elementwise unary kernels (unary.c), the fp16 conversion (fp16.c) and
 * the unary family's registration table, through the kernel runner:
 * hand-derived values with NaN, infinities, signed zeros, cut-offs and
 * ties; every parameter; int32 / int64 paths; every rejection message;
 * shapes from scalar and empty to odd sizes and batches; seeded random
 * inputs against double-precision references with per-op tolerances; one
 * and two threads. The runner checks guard bytes after every output.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "runtime/kernels/fp16.h"
#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tests/unit/unary_test_util.h"

#define PI_F 3.14159265358979f

/* ---- fp16 ---------------------------------------------------------------- */

/* The value of half bits h from the definition, in double. */
static double half_value(uint16_t h) {
  const int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v;
  if (exponent == 0) {
    v = ldexp(mantissa, -24); /* subnormal: mantissa * 2^-24 */
  } else if (exponent == 31) {
    v = mantissa == 0 ? INFINITY : NAN;
  } else {
    v = ldexp(1024 + mantissa, exponent - 25); /* 1.m * 2^(e-15) */
  }
  return sign ? -v : v;
}

static void test_fp16_to_fp32_every_half(void** state) {
  (void)state;
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const float got = lg_fp16_to_fp32((uint16_t)h);
    const double want = half_value((uint16_t)h);
    if (isnan(want)) {
      /* Sign and payload move bit for bit (signaling NaNs too), as LiteRT
       * converts them: 0x7c01 -> 0x7f802000. */
      const uint32_t bits = float_bits(got);
      const uint32_t want_bits =
          ((h & 0x8000u) << 16) | 0x7f800000u | ((h & 0x3ffu) << 13);
      if (bits != want_bits) {
        fail_msg("half 0x%04x: got 0x%08x, want 0x%08x", h, bits, want_bits);
      }
    } else if ((double)got != want || !signbit(got) != !signbit(want)) {
      fail_msg("half 0x%04x: got %.9g, want %.9g", h, (double)got, want);
    }
  }
}

static void test_fp16_round_trip(void** state) {
  (void)state;
  /* Every half survives half -> float -> half; a NaN comes back as the
   * canonical quiet NaN with its sign. */
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const uint16_t back = lg_fp32_to_fp16(lg_fp16_to_fp32((uint16_t)h));
    const bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
    const uint16_t want = nan ? (uint16_t)((h & 0x8000) | 0x7e00) : (uint16_t)h;
    if (back != want) fail_msg("half 0x%04x came back as 0x%04x", h, back);
  }
}

static void test_fp32_to_fp16_rounding(void** state) {
  (void)state;
  const struct {
    float f;
    uint16_t want;
  } cases[] = {
      {1.0f, 0x3c00},
      {-2.0f, 0xc000},
      {65504.0f, 0x7bff},        /* the largest half */
      {65519.996f, 0x7bff},      /* below the midpoint 65520 */
      {65520.0f, 0x7c00},        /* the midpoint rounds to even: infinity */
      {1e10f, 0x7c00},           /* overflow */
      {-INFINITY, 0xfc00},       /* infinity */
      {0x1p-14f, 0x0400},        /* the smallest normal */
      {0x1p-24f, 0x0001},        /* the smallest subnormal */
      {0x1p-25f, 0x0000},        /* half of it: a tie, to the even zero */
      {0x1.000002p-25f, 0x0001}, /* just above the tie */
      {0x1.8p-24f, 0x0002},      /* 1.5 units: tie, to even 2 */
      {0x1.4p-23f, 0x0002},      /* 2.5 units: tie, to even 2 */
      {-0x1p-30f, 0x8000},       /* underflow keeps the sign */
      {1e-45f, 0x0000},          /* a float subnormal */
      {-0.0f, 0x8000},
      {0x1.004p0f, 0x3c01}, /* 1 + 2^-10, one half ulp above 1 */
      {0x1.002p0f, 0x3c00}, /* 1 + 2^-11: tie, to even 1 */
      {0x1.006p0f, 0x3c02}, /* 1 + 3*2^-11: tie, to even 1 + 2^-9 */
      /* Halves in [1024, 2048) are 1 apart, so 2047.5 ties between 2047
       * (0x67ff, odd mantissa) and 2048 (0x6800): the even one wins, and
       * the carry moves into the exponent. */
      {2047.5f, 0x6800},
  };
  for (int i = 0; i < ARRAY_SIZE(cases); ++i) {
    const uint16_t want = cases[i].want;
    const uint16_t got = lg_fp32_to_fp16(cases[i].f);
    if (got != want) {
      fail_msg("case %d: %.9g -> 0x%04x, want 0x%04x", i, (double)cases[i].f,
               got, want);
    }
  }
  /* Any NaN (quiet or signaling, any payload) becomes 0x7e00 with its
   * sign, as LiteRT's CAST to float16. */
  assert_int_equal(lg_fp32_to_fp16(bits_float(0xffc00000u)), 0xfe00);
  assert_int_equal(lg_fp32_to_fp16(bits_float(0x7f800001u)), 0x7e00);
  assert_int_equal(lg_fp32_to_fp16(bits_float(0x7fbfffffu)), 0x7e00);
}

/* The half nearest to f by search over all finite halves (ties to even),
 * infinity beyond 65520. */
static uint16_t nearest_half(float f) {
  const double x = fabs((double)f);
  if (x >= 65520.0) return (uint16_t)((signbit(f) ? 0x8000 : 0) | 0x7c00);
  uint16_t best = 0;
  double best_err = INFINITY;
  for (uint16_t h = 0; h < 0x7c00; ++h) {
    const double err = fabs(half_value(h) - x);
    if (err < best_err || (err == best_err && (h & 1) == 0)) {
      best = h;
      best_err = err;
    }
  }
  return (uint16_t)((signbit(f) ? 0x8000 : 0) | best);
}

static void test_fp32_to_fp16_random(void** state) {
  (void)state;
  uint32_t seed = 0x5eed1601u;
  for (int i = 0; i < 300; ++i) {
    /* Random bits with the exponent in the half range and around it. */
    const uint32_t sign = rng_next(&seed) & 0x80000000u;
    const uint32_t exponent = (uint32_t)rng_int(&seed, 95, 145) << 23;
    const uint32_t mantissa = rng_next(&seed) & 0x7fffffu;
    const float f = bits_float(sign | exponent | mantissa);
    const uint16_t want = nearest_half(f);
    const uint16_t got = lg_fp32_to_fp16(f);
    if (got != want) {
      fail_msg("%a -> 0x%04x, want 0x%04x", (double)f, got, want);
    }
  }
  /* The array forms run the same conversions. */
  const float in[] = {1.5f, -0.0f, 65504.0f, 0x1p-24f};
  uint16_t halves[4];
  float back[4];
  lg_fp32_to_fp16_array(in, halves, 4);
  lg_fp16_to_fp32_array(halves, back, 4);
  expect_float_bits(back, in, 4, "array round trip");
}

/* ---- Elementwise: hand-derived values ------------------------------------ */

typedef struct pair {
  float x, want;
} pair;

typedef struct hand_case {
  const char* name;
  const TfLiteRegistration* (*reg)(void);
  const pair* pairs;
  int count;
  int ulps; /* 0: exact */
} hand_case;

/* Each want is the real function's value rounded to float, so one-ulp
 * libm differences are allowed for the transcendental ones. */
static const pair kExp[] = {
    {0.0f, 1.0f},         {-0.0f, 1.0f},     {1.0f, 2.71828175f},
    {-1.0f, 0.36787945f}, {-INFINITY, 0.0f}, {INFINITY, INFINITY},
    {NAN, NAN},           {89.0f, INFINITY}, /* e^89 = 4.5e38 > FLT_MAX */
    {-104.0f, 0.0f}, /* e^-104 = 6.8e-46 < half the least subnormal */
};
static const pair kLog[] = {
    {1.0f, 0.0f},       {2.71828175f, 1.0f},   {0.0f, -INFINITY},
    {-0.0f, -INFINITY}, {-1.0f, NAN},          {INFINITY, INFINITY},
    {NAN, NAN},         {0.5f, -0.693147182f}, {1024.0f, 6.93147182f},
};
static const pair kSqrt[] = {
    {4.0f, 2.0f},   {0.25f, 0.5f}, {2.0f, 1.41421354f},  {0.0f, 0.0f},
    {-0.0f, -0.0f}, {-1.0f, NAN},  {INFINITY, INFINITY}, {NAN, NAN},
};
static const pair kRsqrt[] = {
    {4.0f, 0.5f},     {0.25f, 2.0f},      {1.0f, 1.0f},
    {0.0f, INFINITY}, {-0.0f, -INFINITY}, {-4.0f, NAN},
    {INFINITY, 0.0f}, {NAN, NAN},         {2.0f, 0.707106769f},
};
static const pair kSquare[] = {
    {3.0f, 9.0f},      {-3.0f, 9.0f},         {0.5f, 0.25f}, {-0.0f, 0.0f},
    {1e20f, INFINITY}, {-INFINITY, INFINITY}, {NAN, NAN},    {1e-30f, 0.0f},
};
static const pair kAbs[] = {
    {-2.5f, 2.5f},         {2.5f, 2.5f}, {-0.0f, 0.0f},
    {-INFINITY, INFINITY}, {NAN, NAN},   {-FLT_MAX, FLT_MAX},
    {-1e-45f, 1e-45f},
};
static const pair kNeg[] = {
    {2.5f, -2.5f},         {-2.5f, 2.5f}, {0.0f, -0.0f},
    {INFINITY, -INFINITY}, {NAN, NAN},    {FLT_MAX, -FLT_MAX},
};
static const pair kSin[] = {
    {0.0f, 0.0f},    {-0.0f, -0.0f},   {PI_F / 2, 1.0f}, {PI_F / 6, 0.5f},
    {INFINITY, NAN}, {-INFINITY, NAN}, {NAN, NAN},       {-PI_F / 2, -1.0f},
};
static const pair kCos[] = {
    {0.0f, 1.0f}, {PI_F / 3, 0.5f}, {PI_F, -1.0f}, {INFINITY, NAN}, {NAN, NAN},
};
static const pair kFloor[] = {
    {2.5f, 2.0f},         {-2.5f, -3.0f},
    {-0.5f, -1.0f},       {0.5f, 0.0f},
    {-0.0f, -0.0f},       {3.0f, 3.0f},
    {INFINITY, INFINITY}, {-INFINITY, -INFINITY},
    {NAN, NAN},           {8388607.5f, 8388607.0f},
    {1e30f, 1e30f},
};
static const pair kCeil[] = {
    {2.5f, 3.0f},   {-2.5f, -2.0f},
    {-0.5f, -0.0f}, {0.5f, 1.0f},
    {3.0f, 3.0f},   {-INFINITY, -INFINITY},
    {NAN, NAN},     {8388607.5f, 8388608.0f},
};
/* Half to even: ties go to the even neighbour; 8388607.5 = 2^23 - 0.5 is
 * the largest float with a fraction. */
static const pair kRound[] = {
    {0.5f, 0.0f},
    {1.5f, 2.0f},
    {2.5f, 2.0f},
    {-0.5f, -0.0f},
    {-1.5f, -2.0f},
    {-2.5f, -2.0f},
    {2.4f, 2.0f},
    {2.6f, 3.0f},
    {-2.6f, -3.0f},
    {8388607.5f, 8388608.0f},
    {8388606.5f, 8388606.0f},
    {INFINITY, INFINITY},
    {-INFINITY, -INFINITY},
    {NAN, NAN},
    {1e30f, 1e30f},
    {0.49999997f, 0.0f},
};
static const pair kSign[] = {
    {3.0f, 1.0f},  {-3.0f, -1.0f},   {0.0f, 0.0f},
    {-0.0f, 0.0f}, {INFINITY, 1.0f}, {-INFINITY, -1.0f},
    {NAN, NAN},    {1e-45f, 1.0f},   {-1e-45f, -1.0f},
};
/* LOGISTIC: above 16.619047 exactly 1; below -9 exp(x) (so -10 gives
 * e^-10, and -100 gives e^-100 = 26.55 * 2^-149, a subnormal that rounds
 * to 27 * 2^-149); -9 itself takes 1 / (1 + e^9). */
static const pair kLogistic[] = {
    {0.0f, 0.5f},
    {INFINITY, 1.0f},
    {-INFINITY, 0.0f},
    {NAN, NAN},
    {20.0f, 1.0f},
    {16.7f, 1.0f},
    {-10.0f, 4.5399931e-05f},
    {-9.0f, 0.00012339458f},
    {2.0f, 0.880797088f},
    {-2.0f, 0.119202919f},
    {-100.0f, 0x1.bp-145f},
};
static const pair kTanh[] = {
    {0.0f, 0.0f},       {-0.0f, -0.0f},  {INFINITY, 1.0f},
    {-INFINITY, -1.0f}, {NAN, NAN},      {0.5f, 0.462117165f},
    {20.0f, 1.0f},      {-20.0f, -1.0f}, {1.0f, 0.761594176f},
};
static const pair kRelu[] = {
    {-1.0f, 0.0f},        {1.0f, 1.0f}, {-0.0f, 0.0f}, {-INFINITY, 0.0f},
    {INFINITY, INFINITY}, {NAN, NAN},   {0.5f, 0.5f},
};
static const pair kRelu6[] = {
    {-1.0f, 0.0f},    {3.0f, 3.0f},
    {6.0f, 6.0f},     {7.0f, 6.0f},
    {INFINITY, 6.0f}, {-INFINITY, 0.0f},
    {NAN, NAN},       {5.99999952f, 5.99999952f},
};
static const pair kReluN1To1[] = {
    {-2.0f, -1.0f},   {-1.0f, -1.0f},     {0.5f, 0.5f}, {2.0f, 1.0f},
    {INFINITY, 1.0f}, {-INFINITY, -1.0f}, {NAN, NAN},
};
static const pair kRelu0To1[] = {
    {-2.0f, 0.0f},    {0.5f, 0.5f},      {1.0f, 1.0f}, {2.0f, 1.0f},
    {INFINITY, 1.0f}, {-INFINITY, 0.0f}, {NAN, NAN},
};
/* ELU: expm1 keeps tiny negatives exact; e^-20 - 1 rounds to -1. */
static const pair kElu[] = {
    {0.0f, 0.0f},       {1.0f, 1.0f},         {-1.0f, -0.63212055f},
    {-INFINITY, -1.0f}, {INFINITY, INFINITY}, {NAN, NAN},
    {-1e-8f, -1e-8f},   {-20.0f, -1.0f},
};
/* HARD_SWISH: x * min(6, max(0, x + 3)) / 6: -1 -> -1 * 2 / 6; 1 -> 4 / 6;
 * 0.5 -> 1.75 / 6; -inf -> -inf * 0 = NaN. The product comes first, as in
 * TFLite: 0.7 -> (0.7 * 3.7) / 6 = 0.431666642, where 0.7 * (3.7 / 6) would
 * round to 0.431666672 (likewise 1.1 and 2.7). */
static const pair kHardSwish[] = {
    {-4.0f, -0.0f},       {-3.0f, -0.0f},       {-1.0f, -0.333333343f},
    {0.0f, 0.0f},         {1.0f, 0.666666687f}, {3.0f, 3.0f},
    {4.0f, 4.0f},         {INFINITY, INFINITY}, {-INFINITY, NAN},
    {NAN, NAN},           {0.5f, 0.291666657f}, {0.7f, 0.431666642f},
    {1.1f, 0.751666725f}, {2.7f, 2.56499982f},
};

static const hand_case kHandCases[] = {
    {"EXP", lg_register_EXP, kExp, ARRAY_SIZE(kExp), 1},
    {"LOG", lg_register_LOG, kLog, ARRAY_SIZE(kLog), 1},
    {"SQRT", lg_register_SQRT, kSqrt, ARRAY_SIZE(kSqrt), 0},
    {"RSQRT", lg_register_RSQRT, kRsqrt, ARRAY_SIZE(kRsqrt), 1},
    {"SQUARE", lg_register_SQUARE, kSquare, ARRAY_SIZE(kSquare), 0},
    {"ABS", lg_register_ABS, kAbs, ARRAY_SIZE(kAbs), 0},
    {"NEG", lg_register_NEG, kNeg, ARRAY_SIZE(kNeg), 0},
    {"SIN", lg_register_SIN, kSin, ARRAY_SIZE(kSin), 1},
    {"COS", lg_register_COS, kCos, ARRAY_SIZE(kCos), 1},
    {"FLOOR", lg_register_FLOOR, kFloor, ARRAY_SIZE(kFloor), 0},
    {"CEIL", lg_register_CEIL, kCeil, ARRAY_SIZE(kCeil), 0},
    {"ROUND", lg_register_ROUND, kRound, ARRAY_SIZE(kRound), 0},
    {"SIGN", lg_register_SIGN, kSign, ARRAY_SIZE(kSign), 0},
    {"LOGISTIC", lg_register_LOGISTIC, kLogistic, ARRAY_SIZE(kLogistic), 1},
    {"TANH", lg_register_TANH, kTanh, ARRAY_SIZE(kTanh), 1},
    {"RELU", lg_register_RELU, kRelu, ARRAY_SIZE(kRelu), 0},
    {"RELU6", lg_register_RELU6, kRelu6, ARRAY_SIZE(kRelu6), 0},
    {"RELU_N1_TO_1", lg_register_RELU_N1_TO_1, kReluN1To1,
     ARRAY_SIZE(kReluN1To1), 0},
    {"RELU_0_TO_1", lg_register_RELU_0_TO_1, kRelu0To1, ARRAY_SIZE(kRelu0To1),
     0},
    {"ELU", lg_register_ELU, kElu, ARRAY_SIZE(kElu), 1},
    {"HARD_SWISH", lg_register_HARD_SWISH, kHardSwish, ARRAY_SIZE(kHardSwish),
     0},
};

static void check_pairs(const char* name, const TfLiteRegistration* reg,
                        void* params, const pair* pairs, int count, int ulps) {
  float x[32], want[32], got[32];
  assert_true(count <= 32);
  for (int i = 0; i < count; ++i) {
    x[i] = pairs[i].x;
    want[i] = pairs[i].want;
  }
  run_one(reg, params, kTfLiteFloat32, kTfLiteFloat32, (int[]){count}, 1, x,
          got, 1);
  expect_floats_near(got, want, count, ulps, 0.0, name);
}

static void test_hand_values(void** state) {
  (void)state;
  for (int c = 0; c < ARRAY_SIZE(kHandCases); ++c) {
    const hand_case* hc = &kHandCases[c];
    check_pairs(hc->name, hc->reg(), NULL, hc->pairs, hc->count, hc->ulps);
  }
}

static void test_leaky_relu_alpha(void** state) {
  (void)state;
  /* x > 0 ? x : alpha * x, for several alphas, including alpha > 1 and
   * alpha < 0 (no max() shortcut applies). */
  const float alphas[] = {0.2f, 0.0f, -0.5f, 1.5f};
  for (int a = 0; a < ARRAY_SIZE(alphas); ++a) {
    TfLiteLeakyReluParams params = {.alpha = alphas[a]};
    const float al = alphas[a];
    const pair pairs[] = {
        {1.0f, 1.0f},         {-1.0f, -al},
        {-5.0f, -5.0f * al},  {0.0f, 0.0f * al},
        {INFINITY, INFINITY}, {-INFINITY, al == 0.0f ? NAN : -INFINITY * al},
        {NAN, NAN},
    };
    check_pairs("LEAKY_RELU", lg_register_LEAKY_RELU(), &params, pairs,
                ARRAY_SIZE(pairs), 0);
  }
  /* x > 0 picks the branch, as TFLite: +0 takes alpha * 0, which is -0 for
   * a negative alpha. */
  TfLiteLeakyReluParams negative = {.alpha = -0.5f};
  const float zeros[] = {0.0f, -0.0f};
  const float zeros_want[] = {-0.0f, 0.0f};
  float zeros_got[2];
  run_one(lg_register_LEAKY_RELU(), &negative, kTfLiteFloat32, kTfLiteFloat32,
          (int[]){2}, 1, zeros, zeros_got, 1);
  expect_float_bits(zeros_got, zeros_want, 2, "LEAKY_RELU signed zeros");
  /* No params: the schema default alpha = 0. */
  const pair defaults[] = {{-3.0f, -0.0f}, {3.0f, 3.0f}};
  check_pairs("LEAKY_RELU default", lg_register_LEAKY_RELU(), NULL, defaults, 2,
              0);
}

static void test_gelu_modes(void** state) {
  (void)state;
  /* approximate: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
  TfLiteGeluParams approximate = {.approximate = true};
  const pair tanh_form[] = {
      {0.0f, 0.0f},   {INFINITY, INFINITY}, {-INFINITY, NAN},
      {NAN, NAN},     {1.0f, 0.841192007f}, {-1.0f, -0.158808008f},
      {10.0f, 10.0f}, {0.5f, 0.345714003f},
  };
  check_pairs("GELU approximate", lg_register_GELU(), &approximate, tanh_form,
              ARRAY_SIZE(tanh_form), 2);
  /* At x = -10, 1 + tanh(u) is 0 in float (the scalar libm formula gives
   * -0) while the vector rows' x logistic(2u) keeps the true -1.2e-37:
   * either is right to within 1.3e-37 and neither may be positive. */
  const float minus_ten = -10.0f;
  float tail;
  run_one(lg_register_GELU(), &approximate, kTfLiteFloat32, kTfLiteFloat32,
          (int[]){1}, 1, &minus_ten, &tail, 1);
  assert_true(tail <= 0.0f && tail >= -1.3e-37f);
  /* exact: 0.5 x erfc(-x / sqrt(2)); at -10 that is -5 erfc(7.07) =
   * -7.6e-23, not 0: the erfc form keeps the far tail. */
  TfLiteGeluParams exact = {.approximate = false};
  const pair erf_form[] = {
      {0.0f, 0.0f},
      {INFINITY, INFINITY},
      {-INFINITY, NAN},
      {NAN, NAN},
      {1.0f, 0.841344774f},
      {-1.0f, -0.158655256f},
      {-10.0f, -7.61985298e-23f},
      {0.5f, 0.345731229f},
  };
  check_pairs("GELU exact", lg_register_GELU(), &exact, erf_form,
              ARRAY_SIZE(erf_form), 4);
  /* No params: approximate = false (the schema default). */
  check_pairs("GELU default", lg_register_GELU(), NULL, erf_form,
              ARRAY_SIZE(erf_form), 4);
}

/* ---- Integer paths ------------------------------------------------------- */

static void test_int32_int64_paths(void** state) {
  (void)state;
  const int32_t in[] = {INT32_MIN, -5, -1, 0, 7, INT32_MAX};
  int32_t got[6];
  /* ABS wraps at INT32_MIN (there is no +2^31), as TFLite's std::abs. */
  const int32_t abs_want[] = {INT32_MIN, 5, 1, 0, 7, INT32_MAX};
  run_one(lg_register_ABS(), NULL, kTfLiteInt32, kTfLiteInt32, (int[]){2, 3}, 2,
          in, got, 1);
  assert_memory_equal(got, abs_want, sizeof(got));
  const int32_t neg_want[] = {INT32_MIN, 5, 1, 0, -7, -INT32_MAX};
  run_one(lg_register_NEG(), NULL, kTfLiteInt32, kTfLiteInt32, (int[]){6}, 1,
          in, got, 1);
  assert_memory_equal(got, neg_want, sizeof(got));
  const int32_t sign_want[] = {-1, -1, -1, 0, 1, 1};
  run_one(lg_register_SIGN(), NULL, kTfLiteInt32, kTfLiteInt32, (int[]){6}, 1,
          in, got, 1);
  assert_memory_equal(got, sign_want, sizeof(got));

  const int64_t in64[] = {INT64_MIN, -(INT64_C(1) << 40), 0, 3, INT64_MAX};
  const int64_t neg64_want[] = {INT64_MIN, INT64_C(1) << 40, 0, -3, -INT64_MAX};
  int64_t got64[5];
  run_one(lg_register_NEG(), NULL, kTfLiteInt64, kTfLiteInt64, (int[]){5}, 1,
          in64, got64, 1);
  assert_memory_equal(got64, neg64_want, sizeof(got64));
}

/* ---- Rejections ---------------------------------------------------------- */

static void test_type_rejections(void** state) {
  (void)state;
  const int8_t i8[4] = {0};
  const int32_t i32[4] = {0};
  const float f32[4] = {0};
  const int dims[] = {4};
  expect_one_rejected(lg_register_EXP(), NULL, kTfLiteInt8, kTfLiteInt8, dims,
                      1, i8,
                      "EXP: input type INT8 is not supported (expected "
                      "FLOAT32)");
  expect_one_rejected(lg_register_ABS(), NULL, kTfLiteInt16, kTfLiteInt16, dims,
                      1, i32,
                      "ABS: input type INT16 is not supported (expected "
                      "FLOAT32 or INT32)");
  expect_one_rejected(lg_register_NEG(), NULL, kTfLiteUInt8, kTfLiteUInt8, dims,
                      1, i8,
                      "NEG: input type UINT8 is not supported (expected "
                      "FLOAT32, INT32 or INT64)");
  /* TFLite's SQUARE is float only; the activations take quantized INT8
   * (and some INT16), which needs quantization parameters, and no other
   * integer type. */
  expect_one_rejected(lg_register_SQUARE(), NULL, kTfLiteInt32, kTfLiteInt32,
                      dims, 1, i32,
                      "SQUARE: input type INT32 is not supported");
  expect_one_rejected(lg_register_LOGISTIC(), NULL, kTfLiteInt8, kTfLiteInt8,
                      dims, 1, i8,
                      "LOGISTIC: input tensor '(unnamed)' (INT8) has no "
                      "quantization");
  expect_one_rejected(lg_register_LOGISTIC(), NULL, kTfLiteInt32, kTfLiteInt32,
                      dims, 1, i32,
                      "LOGISTIC: input type INT32 is not supported (expected "
                      "FLOAT32, INT8, UINT8 or INT16)");
  expect_one_rejected(lg_register_RELU(), NULL, kTfLiteFloat32, kTfLiteInt32,
                      dims, 1, f32,
                      "RELU: output type INT32 differs from input type "
                      "FLOAT32");
  expect_one_rejected(lg_register_SIGN(), NULL, kTfLiteInt64, kTfLiteInt64,
                      dims, 1, i32, "SIGN: input type INT64 is not supported");
  expect_one_rejected(lg_register_TANH(), NULL, kTfLiteFloat32, kTfLiteFloat32,
                      (int[]){2, -1}, 2, f32,
                      "TANH: input has a negative dimension in shape [2,-1]");
}

static void test_io_rejections(void** state) {
  (void)state;
  const float x[2] = {1, 2};
  lg_kernel_runner r;
  /* Two inputs. */
  lg_kernel_runner_init(&r, lg_register_COS(), NULL);
  int a = add_tensor(&r, kTfLiteFloat32, (int[]){2}, 1, x);
  int b = add_tensor(&r, kTfLiteFloat32, (int[]){2}, 1, x);
  int o = add_tensor(&r, kTfLiteFloat32, NULL, 0, NULL);
  lg_kernel_runner_set_inputs(&r, (int[]){a, b}, 2);
  lg_kernel_runner_set_outputs(&r, &o, 1);
  expect_error_text(&r, lg_kernel_runner_prepare(&r),
                    "COS: expected 1 inputs, got 2");
  lg_kernel_runner_release(&r);
  /* No output. */
  lg_kernel_runner_init(&r, lg_register_ELU(), NULL);
  a = add_tensor(&r, kTfLiteFloat32, (int[]){2}, 1, x);
  lg_kernel_runner_set_inputs(&r, &a, 1);
  expect_error_text(&r, lg_kernel_runner_prepare(&r),
                    "ELU: expected 1 outputs, got 0");
  lg_kernel_runner_release(&r);
  /* An omitted input. */
  lg_kernel_runner_init(&r, lg_register_GELU(), NULL);
  o = add_tensor(&r, kTfLiteFloat32, NULL, 0, NULL);
  lg_kernel_runner_set_inputs(&r, (int[]){kTfLiteOptionalTensor}, 1);
  lg_kernel_runner_set_outputs(&r, &o, 1);
  expect_error_text(&r, lg_kernel_runner_prepare(&r),
                    "GELU: input 0 is absent");
  lg_kernel_runner_release(&r);
}

static void test_shape_changed_after_prepare(void** state) {
  (void)state;
  const float x[6] = {1, 2, 3, 4, 5, 6};
  lg_kernel_runner r;
  lg_kernel_runner_init(&r, lg_register_EXP(), NULL);
  const int a = add_tensor(&r, kTfLiteFloat32, (int[]){2, 3}, 2, x);
  const int o = add_tensor(&r, kTfLiteFloat32, NULL, 0, NULL);
  lg_kernel_runner_set_inputs(&r, &a, 1);
  lg_kernel_runner_set_outputs(&r, &o, 1);
  assert_int_equal(lg_kernel_runner_prepare(&r), kTfLiteOk);
  /* Grow the input behind the kernel's back: Invoke must refuse, not read
   * past the 6 prepared elements. */
  TfLiteTensor* t = lg_kernel_runner_tensor(&r, a);
  t->dims->data[1] = 4;
  expect_error_text(&r, lg_kernel_runner_invoke(&r),
                    "EXP: tensors changed since prepare");
  lg_kernel_runner_release(&r);
}

/* ---- Shapes and threads -------------------------------------------------- */

static void test_shapes(void** state) {
  (void)state;
  /* Scalar: one element, rank 0 kept. */
  const float s = -2.0f;
  float got = 0.0f;
  run_one(lg_register_ABS(), NULL, kTfLiteFloat32, kTfLiteFloat32, NULL, 0, &s,
          &got, 1);
  assert_true(got == 2.0f);
  /* Empty: the shape passes through, nothing is computed. */
  const float dummy = 0.0f;
  run_one(lg_register_LOG(), NULL, kTfLiteFloat32, kTfLiteFloat32,
          (int[]){2, 0, 3}, 3, &dummy, &got, 1);
  run_one(lg_register_NEG(), NULL, kTfLiteInt64, kTfLiteInt64, (int[]){0}, 1,
          &dummy, &got, 1);
  /* Odd sizes, size-1 dims and batches: every element is transformed in
   * place of the same index. */
  const int shapes[][4] = {{1, 1, 1, 1},  {3, 1, 1, 1}, {5, 7, 1, 1},
                           {1, 17, 1, 1}, {2, 3, 5, 7}, {4, 1, 17, 3}};
  uint32_t seed = 0xa11ce5u;
  static float x[2 * 3 * 5 * 7 * 4], out[2 * 3 * 5 * 7 * 4];
  for (int k = 0; k < ARRAY_SIZE(shapes); ++k) {
    int n = 1;
    for (int i = 0; i < 4; ++i) n *= shapes[k][i];
    for (int i = 0; i < n; ++i) x[i] = rng_uniform(&seed, -4.0f, 4.0f);
    run_one(lg_register_RELU6(), NULL, kTfLiteFloat32, kTfLiteFloat32,
            shapes[k], 4, x, out, 1);
    for (int i = 0; i < n; ++i) {
      const float want = x[i] < 0.0f ? 0.0f : (x[i] > 6.0f ? 6.0f : x[i]);
      if (out[i] != want) fail_msg("shape %d index %d", k, i);
    }
  }
}

static void test_two_threads_match_one(void** state) {
  (void)state;
  /* Above the parallel threshold, with a size that does not split evenly:
   * each element is computed the same way on either thread. */
  enum { N = 40001 };
  static float x[N], one[N], two[N];
  static int32_t xi[N], onei[N], twoi[N];
  uint32_t seed = 0x7e4ead5u;
  for (int i = 0; i < N; ++i) {
    x[i] = rng_uniform(&seed, -20.0f, 20.0f);
    xi[i] = (int32_t)rng_next(&seed);
  }
  const TfLiteRegistration* regs[] = {lg_register_EXP(), lg_register_TANH(),
                                      lg_register_HARD_SWISH()};
  for (int k = 0; k < ARRAY_SIZE(regs); ++k) {
    run_one(regs[k], NULL, kTfLiteFloat32, kTfLiteFloat32, (int[]){N}, 1, x,
            one, 1);
    run_one(regs[k], NULL, kTfLiteFloat32, kTfLiteFloat32, (int[]){N}, 1, x,
            two, 2);
    expect_float_bits(two, one, N, "two threads");
  }
  run_one(lg_register_ABS(), NULL, kTfLiteInt32, kTfLiteInt32, (int[]){N}, 1,
          xi, onei, 1);
  run_one(lg_register_ABS(), NULL, kTfLiteInt32, kTfLiteInt32, (int[]){N}, 1,
          xi, twoi, 2);
  assert_memory_equal(onei, twoi, sizeof(onei));
  for (int i = 0; i < N; ++i) {
    const int32_t want = xi[i] == INT32_MIN ? INT32_MIN : abs(xi[i]);
    if (onei[i] != want) fail_msg("ABS index %d", i);
  }
}

/* ---- Seeded random inputs against double references ---------------------- */

static double ref_rsqrt(double x) { return 1.0 / sqrt(x); }
static double ref_square(double x) { return x * x; }
static double ref_neg(double x) { return -x; }
static double ref_round(double x) { return nearbyint(x); }
static double ref_sign(double x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }
static double ref_logistic(double x) {
  if (x > 16.619047164916992188) return 1.0;
  if (x < -9.0) return exp(x);
  return 1.0 / (1.0 + exp(-x));
}
static double ref_relu(double x) { return x < 0 ? 0 : x; }
static double ref_relu6(double x) { return fmin(6.0, fmax(0.0, x)); }
static double ref_relu_n1(double x) { return fmin(1.0, fmax(-1.0, x)); }
static double ref_relu_01(double x) { return fmin(1.0, fmax(0.0, x)); }
static double ref_elu(double x) { return x < 0 ? expm1(x) : x; }
static double ref_hard_swish(double x) {
  return x * fmin(6.0, fmax(0.0, x + 3.0)) / 6.0;
}
static double ref_leaky(double x) { return x > 0 ? x : 0.25 * x; }
/* The erfc argument is rounded to float first, as the kernel (and
 * TFLite's) computes it: in the far tail erfc magnifies that rounding
 * (relative error about 2 z^2 ulps, 1e-5 at x = -12), which belongs to the
 * formula in float, not to the kernel. */
static double ref_gelu_erf(double x) {
  const float z = (float)x * -0.707106781186547524f;
  return 0.5 * x * erfc((double)z);
}
static double ref_gelu_tanh(double x) {
  const double k = sqrt(2.0 / 3.14159265358979323846);
  return 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
}

typedef struct random_case {
  const char* name;
  const TfLiteRegistration* (*reg)(void);
  double (*ref)(double);
  float lo, hi;     /* input range */
  int ulps;         /* float results against the double reference */
  double abs_per_x; /* extra absolute slack, times |x| (GELU's tanh form) */
} random_case;

/* Tolerances: exact ops 0; glibc's float exp/log/sin/cos/tanh/expm1/erfc
 * are within 1-2 ulps; RSQRT rounds twice (sqrt, then 1/); LOGISTIC and
 * HARD_SWISH round three times. GELU's tanh form loses precision in
 * 1 + tanh(...) when tanh is near -1, an absolute error of about
 * |x| * 2^-23 that ulps of the small result cannot express. */
static const random_case kRandomCases[] = {
    {"EXP", lg_register_EXP, exp, -87.0f, 88.0f, 2, 0},
    {"LOG", lg_register_LOG, log, 1e-30f, 1e30f, 2, 0},
    {"SQRT", lg_register_SQRT, sqrt, 0.0f, 1e6f, 0, 0},
    {"RSQRT", lg_register_RSQRT, ref_rsqrt, 1e-6f, 1e6f, 1, 0},
    {"SQUARE", lg_register_SQUARE, ref_square, -1e5f, 1e5f, 0, 0},
    {"ABS", lg_register_ABS, fabs, -1e3f, 1e3f, 0, 0},
    {"NEG", lg_register_NEG, ref_neg, -1e3f, 1e3f, 0, 0},
    {"SIN", lg_register_SIN, sin, -100.0f, 100.0f, 2, 0},
    {"COS", lg_register_COS, cos, -100.0f, 100.0f, 2, 0},
    {"FLOOR", lg_register_FLOOR, floor, -1e3f, 1e3f, 0, 0},
    {"CEIL", lg_register_CEIL, ceil, -1e3f, 1e3f, 0, 0},
    {"ROUND", lg_register_ROUND, ref_round, -8.0f, 8.0f, 0, 0},
    {"SIGN", lg_register_SIGN, ref_sign, -2.0f, 2.0f, 0, 0},
    {"LOGISTIC", lg_register_LOGISTIC, ref_logistic, -30.0f, 30.0f, 3, 0},
    {"TANH", lg_register_TANH, tanh, -10.0f, 10.0f, 2, 0},
    {"RELU", lg_register_RELU, ref_relu, -10.0f, 10.0f, 0, 0},
    {"RELU6", lg_register_RELU6, ref_relu6, -10.0f, 10.0f, 0, 0},
    {"RELU_N1_TO_1", lg_register_RELU_N1_TO_1, ref_relu_n1, -3.0f, 3.0f, 0, 0},
    {"RELU_0_TO_1", lg_register_RELU_0_TO_1, ref_relu_01, -3.0f, 3.0f, 0, 0},
    {"ELU", lg_register_ELU, ref_elu, -20.0f, 20.0f, 2, 0},
    {"HARD_SWISH", lg_register_HARD_SWISH, ref_hard_swish, -8.0f, 8.0f, 3, 0},
};

/* Runs `reg` on n seeded inputs in [lo, hi) and compares with ref. */
static void check_random(const char* name, const TfLiteRegistration* reg,
                         void* params, double (*ref)(double), float lo,
                         float hi, int ulps, double abs_per_x, uint32_t seed) {
  enum { N = 997 }; /* prime: no even split anywhere */
  static float x[N], got[N];
  for (int i = 0; i < N; ++i) {
    /* Mostly uniform, with the exact ends and some half-integers (ROUND's
     * ties) mixed in. */
    x[i] = rng_uniform(&seed, lo, hi);
    if (i % 50 == 0) x[i] = lo;
    if (i % 7 == 3) x[i] = floorf(x[i]) + 0.5f;
  }
  run_one(reg, params, kTfLiteFloat32, kTfLiteFloat32, (int[]){N}, 1, x, got,
          1);
  for (int i = 0; i < N; ++i) {
    const float want = (float)ref((double)x[i]);
    const double slack = abs_per_x * fabs((double)x[i]);
    if (!float_close(got[i], want, ulps, slack)) {
      fail_msg("%s: x[%d] = %.9g: got %.9g, want %.9g", name, i, (double)x[i],
               (double)got[i], (double)want);
    }
  }
}

static void test_random_against_double(void** state) {
  (void)state;
  for (int c = 0; c < ARRAY_SIZE(kRandomCases); ++c) {
    const random_case* rc = &kRandomCases[c];
    check_random(rc->name, rc->reg(), NULL, rc->ref, rc->lo, rc->hi, rc->ulps,
                 rc->abs_per_x, 0x1234567u + (uint32_t)c);
  }
  TfLiteLeakyReluParams leaky = {.alpha = 0.25f};
  check_random("LEAKY_RELU", lg_register_LEAKY_RELU(), &leaky, ref_leaky,
               -10.0f, 10.0f, 0, 0, 99);
  TfLiteGeluParams exact = {.approximate = false};
  /* GELU runs simd_f32's approximations where the CPU has vectors: 8 ulps
   * (simd_f32.h's measured bound; LiteRT's own Eigen-based GELU is up to
   * 8e-7 relative from the libm formula). */
  check_random("GELU exact", lg_register_GELU(), &exact, ref_gelu_erf, -12.0f,
               12.0f, 8, 0, 100);
  TfLiteGeluParams approximate = {.approximate = true};
  check_random("GELU approximate", lg_register_GELU(), &approximate,
               ref_gelu_tanh, -12.0f, 12.0f, 8, 3e-7, 101);
}

/* ---- Registration table -------------------------------------------------- */

static void test_registration_ranges(void** state) {
  (void)state;
  /* LiteRT's BuiltinOpResolver ranges (see ops/ops.def): every version
   * in range finds the op's kernel, the next one finds nothing. */
  const struct {
    int32_t code;
    int max;
  } ops[] = {
      {kTfLiteBuiltinAbs, 5},       {kTfLiteBuiltinNeg, 1},
      {kTfLiteBuiltinExp, 2},       {kTfLiteBuiltinLog, 2},
      {kTfLiteBuiltinSqrt, 2},      {kTfLiteBuiltinRsqrt, 3},
      {kTfLiteBuiltinSquare, 1},    {kTfLiteBuiltinSin, 2},
      {kTfLiteBuiltinCos, 2},       {kTfLiteBuiltinFloor, 1},
      {kTfLiteBuiltinCeil, 1},      {kTfLiteBuiltinRound, 1},
      {kTfLiteBuiltinSign, 2},      {kTfLiteBuiltinLogistic, 3},
      {kTfLiteBuiltinTanh, 3},      {kTfLiteBuiltinRelu, 3},
      {kTfLiteBuiltinRelu6, 3},     {kTfLiteBuiltinReluN1To1, 1},
      {kTfLiteBuiltinRelu0To1, 1},  {kTfLiteBuiltinElu, 1},
      {kTfLiteBuiltinHardSwish, 1}, {kTfLiteBuiltinLeakyRelu, 2},
      {kTfLiteBuiltinGelu, 3},      {kTfLiteBuiltinPrelu, 1},
      {kTfLiteBuiltinSoftmax, 4},   {kTfLiteBuiltinLogSoftmax, 2},
      {kTfLiteBuiltinCast, 9},      {kTfLiteBuiltinDequantize, 9},
  };
  for (int i = 0; i < ARRAY_SIZE(ops); ++i) {
    for (int v = 1; v <= ops[i].max; ++v) {
      const lg_builtin_kernel* k =
          lg_builtin_kernel_find(ops[i].code, v, NULL, NULL);
      if (k == NULL) fail_msg("op %d version %d not found", ops[i].code, v);
      if (k->registration()->builtin_code != ops[i].code) {
        fail_msg("op %d: registration has code %d", ops[i].code,
                 k->registration()->builtin_code);
      }
    }
    int lo = -1, hi = -1;
    assert_null(lg_builtin_kernel_find(ops[i].code, ops[i].max + 1, &lo, &hi));
    if (lo != 1 || hi != ops[i].max) {
      fail_msg("op %d: range %d..%d, want 1..%d", ops[i].code, lo, hi,
               ops[i].max);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fp16_to_fp32_every_half),
      cmocka_unit_test(test_fp16_round_trip),
      cmocka_unit_test(test_fp32_to_fp16_rounding),
      cmocka_unit_test(test_fp32_to_fp16_random),
      cmocka_unit_test(test_hand_values),
      cmocka_unit_test(test_leaky_relu_alpha),
      cmocka_unit_test(test_gelu_modes),
      cmocka_unit_test(test_int32_int64_paths),
      cmocka_unit_test(test_type_rejections),
      cmocka_unit_test(test_io_rejections),
      cmocka_unit_test(test_shape_changed_after_prepare),
      cmocka_unit_test(test_shapes),
      cmocka_unit_test(test_two_threads_match_one),
      cmocka_unit_test(test_random_against_double),
      cmocka_unit_test(test_registration_ranges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
