/* The float32 elementwise rows (runtime/kernels/simd_f32.h) on every
 * instruction set this machine runs, against the ops' definitions written
 * out here element by element (TFLite's expressions): every length from 0
 * to 80 (vector bodies and every tail), both operands streamed or repeated,
 * in place, and operands drawn from special values (NaN, +-inf, +-0,
 * +-FLT_MAX, subnormals, the clamp bounds themselves) mixed with random
 * ones. Results must match bit for bit (NaN for NaN); a guard after the
 * row must stay untouched. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/kernels/gemm.h"
#include "runtime/kernels/simd_f32.h"

#define MAX_N 80
#define GUARD_VALUE (-12345.5f)

static uint32_t rng_next(uint32_t* state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

/* One in four values special, the rest uniform in [-8, 8). */
static float draw(uint32_t* state) {
  static const float special[] = {NAN,   -NAN,    INFINITY, -INFINITY, 0.0f,
                                  -0.0f, FLT_MAX, -FLT_MAX, 1e-40f,    -1e-40f,
                                  6.0f,  -1.0f,   1.0f,     -3.0f,     3.0f,
                                  1e30f, -1e30f};
  const uint32_t r = rng_next(state);
  if ((r & 3u) == 0) {
    return special[(r >> 2) % (sizeof(special) / sizeof(special[0]))];
  }
  return (float)((double)(r >> 8) / (double)(1u << 23) * 8.0 - 8.0);
}

static void fill(float* v, int n, uint32_t* state) {
  for (int i = 0; i < n; ++i) v[i] = draw(state);
}

static bool same_float(float a, float b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  return memcmp(&a, &b, sizeof(float)) == 0;
}

static void expect_row(const char* what, const float* got, const float* want,
                       int n, lg_gemm_isa isa) {
  for (int i = 0; i < n; ++i) {
    if (!same_float(got[i], want[i])) {
      fail_msg("%s on %s, n %d: element %d is %a, expected %a", what,
               lg_gemm_isa_name(isa), n, i, (double)got[i], (double)want[i]);
    }
  }
  if (memcmp(&got[n], &(float){GUARD_VALUE}, sizeof(float)) != 0) {
    fail_msg("%s on %s, n %d: wrote past the row", what, lg_gemm_isa_name(isa),
             n);
  }
}

/* ---- The definitions ------------------------------------------------------
 */

static float clamp_def(float x, float lo, float hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

static float binop_def(lg_f32_binop op, float a, float b, float lo, float hi) {
  switch (op) {
    case LG_F32_ADD:
      return clamp_def(a + b, lo, hi);
    case LG_F32_SUB:
      return clamp_def(a - b, lo, hi);
    case LG_F32_MUL:
      return clamp_def(a * b, lo, hi);
    case LG_F32_DIV:
      return clamp_def(a / b, lo, hi);
    case LG_F32_MAX:
      return a > b ? a : b;
    case LG_F32_MIN:
      return a < b ? a : b;
    case LG_F32_SQDIFF:
      return (a - b) * (a - b);
    default:
      return NAN;
  }
}

static float hard_swish_def(float x) {
  float r = x + 3.0f;
  r = 0.0f < r ? r : 0.0f;
  r = r < 6.0f ? r : 6.0f;
  return x * r / 6.0f;
}

/* ---- Cases ------------------------------------------------------------------
 */

/* The ISAs this machine runs; restores the default when done. */
static int supported_isas(lg_gemm_isa* isas) {
  int count = 0;
  for (int i = 0; i < LG_GEMM_ISA_COUNT; ++i) {
    if (lg_gemm_isa_supported((lg_gemm_isa)i)) isas[count++] = (lg_gemm_isa)i;
  }
  return count;
}

static const float kClamps[][2] = {
    {-FLT_MAX, FLT_MAX}, {0.0f, FLT_MAX}, {0.0f, 6.0f}, {-1.0f, 1.0f}};

static void test_binary_rows(void** state) {
  (void)state;
  lg_gemm_isa isas[LG_GEMM_ISA_COUNT];
  const int isa_count = supported_isas(isas);
  const lg_gemm_isa before = lg_gemm_isa_default();
  uint32_t seed = 0x9E3779B9u;
  float x[MAX_N + 1], y[MAX_N + 1], got[MAX_N + 1], want[MAX_N + 1];
  for (int k = 0; k < isa_count; ++k) {
    lg_gemm_isa_set_default(isas[k]);
    for (int op = 0; op < LG_F32_BINOP_COUNT; ++op) {
      for (int n = 0; n <= MAX_N; ++n) {
        for (int layout = 0; layout < 4; ++layout) {
          const ptrdiff_t sx = layout & 1, sy = (layout >> 1) & 1;
          const float* clamp = kClamps[(n + layout) % 4];
          fill(x, MAX_N, &seed);
          fill(y, MAX_N, &seed);
          for (int i = 0; i < n; ++i) {
            want[i] = binop_def((lg_f32_binop)op, x[i * sx], y[i * sy],
                                clamp[0], clamp[1]);
          }
          got[n] = GUARD_VALUE;
          lg_f32_binary_row((lg_f32_binop)op, x, sx, y, sy, got, n, clamp[0],
                            clamp[1]);
          char what[64];
          snprintf(what, sizeof(what), "binary op %d, strides %d/%d", op,
                   (int)sx, (int)sy);
          expect_row(what, got, want, n, isas[k]);
        }
        /* In place over the first operand. */
        fill(x, MAX_N, &seed);
        fill(y, MAX_N, &seed);
        for (int i = 0; i < n; ++i) {
          want[i] = binop_def((lg_f32_binop)op, x[i], y[i], 0.0f, 6.0f);
        }
        x[n] = GUARD_VALUE;
        lg_f32_binary_row((lg_f32_binop)op, x, 1, y, 1, x, n, 0.0f, 6.0f);
        expect_row("binary in place", x, want, n, isas[k]);
      }
    }
  }
  lg_gemm_isa_set_default(before);
}

/* Rows: a [rows, n] operand against a repeated [n] one (and the other way
 * round), every op, against the definition. */
static void test_binary_many_rows(void** state) {
  (void)state;
  lg_gemm_isa isas[LG_GEMM_ISA_COUNT];
  const int isa_count = supported_isas(isas);
  const lg_gemm_isa before = lg_gemm_isa_default();
  uint32_t seed = 0x1234567u;
  enum { kRows = 5, kMaxInner = 19 };
  float x[kRows * kMaxInner], y[kMaxInner];
  float got[kRows * kMaxInner + 1], want[kRows * kMaxInner];
  for (int k = 0; k < isa_count; ++k) {
    lg_gemm_isa_set_default(isas[k]);
    for (int op = 0; op < LG_F32_BINOP_COUNT; ++op) {
      for (int n = 1; n <= kMaxInner; n += 3) {
        for (int swap = 0; swap < 2; ++swap) {
          fill(x, kRows * n, &seed);
          fill(y, n, &seed);
          for (int r = 0; r < kRows; ++r) {
            for (int i = 0; i < n; ++i) {
              const float a = swap ? y[i] : x[r * n + i];
              const float b = swap ? x[r * n + i] : y[i];
              want[r * n + i] = binop_def((lg_f32_binop)op, a, b, -1.0f, 1.0f);
            }
          }
          got[kRows * n] = GUARD_VALUE;
          if (swap) {
            lg_f32_binary_rows((lg_f32_binop)op, y, 1, 0, x, 1, n, got, n,
                               kRows, -1.0f, 1.0f);
          } else {
            lg_f32_binary_rows((lg_f32_binop)op, x, 1, n, y, 1, 0, got, n,
                               kRows, -1.0f, 1.0f);
          }
          expect_row("binary rows", got, want, kRows * n, isas[k]);
        }
      }
    }
  }
  lg_gemm_isa_set_default(before);
}

/* Folds: acc op= every row, in row order, acc first or the row first, for
 * the four folding ops, against the definitions (NaN among the values:
 * which operand comes first decides MAXIMUM's and MINIMUM's result). */
static void test_fold_rows(void** state) {
  (void)state;
  lg_gemm_isa isas[LG_GEMM_ISA_COUNT];
  const int isa_count = supported_isas(isas);
  const lg_gemm_isa before = lg_gemm_isa_default();
  const lg_f32_binop ops[] = {LG_F32_ADD, LG_F32_MUL, LG_F32_MAX, LG_F32_MIN};
  uint32_t seed = 0xC0FFEEu;
  enum { kRows = 7, kMaxN = 70, kStride = 75 };
  float x[kRows * kStride], acc[kMaxN + 1], want[kMaxN];
  for (int k = 0; k < isa_count; ++k) {
    lg_gemm_isa_set_default(isas[k]);
    for (int o = 0; o < 4; ++o) {
      for (int n = 1; n <= kMaxN; n += 7) {
        for (int x_first = 0; x_first < 2; ++x_first) {
          fill(x, kRows * kStride, &seed);
          fill(acc, n, &seed);
          for (int i = 0; i < n; ++i) {
            float a = acc[i];
            for (int r = 0; r < kRows; ++r) {
              const float v = x[r * kStride + i];
              a = x_first ? binop_def(ops[o], v, a, -INFINITY, INFINITY)
                          : binop_def(ops[o], a, v, -INFINITY, INFINITY);
            }
            want[i] = a;
          }
          acc[n] = GUARD_VALUE;
          lg_f32_fold_rows(ops[o], x_first, acc, x, kStride, kRows, n);
          expect_row(x_first ? "fold (row first)" : "fold (acc first)", acc,
                     want, n, isas[k]);
        }
      }
    }
  }
  lg_gemm_isa_set_default(before);
}

/* Row sums against the sequential sum from +0: every row count to 35 (16
 * lanes, their tails, more than one block) and length to 40 (column
 * tails), bit for bit. Values span 2^0 to 2^19 in magnitude so that another
 * summation order rounds differently; every third case draws special
 * values too (NaN, infinities, -0). */
static void test_row_sums(void** state) {
  (void)state;
  lg_gemm_isa isas[LG_GEMM_ISA_COUNT];
  const int isa_count = supported_isas(isas);
  const lg_gemm_isa before = lg_gemm_isa_default();
  uint32_t seed = 0x5EED5u;
  enum { kMaxRows = 35, kMaxN = 40, kStride = kMaxN + 5 };
  static float x[kMaxRows * kStride];
  float got[kMaxRows + 1], want[kMaxRows];
  int cases = 0;
  for (int k = 0; k < isa_count; ++k) {
    lg_gemm_isa_set_default(isas[k]);
    for (int rows = 1; rows <= kMaxRows; ++rows) {
      for (int n = 0; n <= kMaxN; n += rows % 3 + 1, ++cases) {
        for (int i = 0; i < rows * kStride; ++i) {
          const uint32_t r = rng_next(&seed);
          x[i] = cases % 3 == 0 ? draw(&seed)
                                : ldexpf((float)(r >> 8) / 16777216.0f - 0.5f,
                                         (int)(r % 20));
        }
        for (int r = 0; r < rows; ++r) {
          float acc = 0.0f;
          for (int i = 0; i < n; ++i) acc += x[r * kStride + i];
          want[r] = acc;
        }
        got[rows] = GUARD_VALUE;
        lg_f32_row_sums(x, kStride, rows, n, got);
        expect_row("row sums", got, want, rows, isas[k]);
      }
    }
  }
  lg_gemm_isa_set_default(before);
}

static void test_activation_rows(void** state) {
  (void)state;
  lg_gemm_isa isas[LG_GEMM_ISA_COUNT];
  const int isa_count = supported_isas(isas);
  const lg_gemm_isa before = lg_gemm_isa_default();
  uint32_t seed = 0x2545F491u;
  float x[MAX_N + 1], a[MAX_N + 1], got[MAX_N + 1], want[MAX_N + 1];
  for (int k = 0; k < isa_count; ++k) {
    lg_gemm_isa_set_default(isas[k]);
    for (int n = 0; n <= MAX_N; ++n) {
      fill(x, MAX_N, &seed);
      fill(a, MAX_N, &seed);
      const float* clamp = kClamps[n % 4];
      const float lo = n % 5 == 0 ? 0.0f : clamp[0];
      const float hi = n % 5 == 0 ? INFINITY : clamp[1];
      for (int i = 0; i < n; ++i) want[i] = clamp_def(x[i], lo, hi);
      got[n] = GUARD_VALUE;
      lg_f32_clamp_row(x, got, n, lo, hi);
      expect_row("clamp", got, want, n, isas[k]);

      for (int step = 0; step < 2; ++step) {
        for (int i = 0; i < n; ++i) {
          want[i] = x[i] >= 0.0f ? x[i] : x[i] * a[i * step];
        }
        lg_f32_prelu_row(x, a, step, got, n);
        expect_row(step ? "prelu (alpha per element)" : "prelu (one alpha)",
                   got, want, n, isas[k]);
      }

      /* Rows of `inner` elements sharing one alpha per position. */
      for (int inner = 1; inner <= 20 && inner <= n; inner += 3) {
        const int rows = n / inner;
        for (int i = 0; i < rows * inner; ++i) {
          want[i] = x[i] >= 0.0f ? x[i] : x[i] * a[i % inner];
        }
        got[rows * inner] = GUARD_VALUE;
        lg_f32_prelu_rows(x, a, got, rows, inner);
        expect_row("prelu rows", got, want, rows * inner, isas[k]);
      }

      const float alpha = a[0];
      for (int i = 0; i < n; ++i) want[i] = x[i] > 0.0f ? x[i] : x[i] * alpha;
      lg_f32_leaky_relu_row(x, alpha, got, n);
      expect_row("leaky relu", got, want, n, isas[k]);

      for (int i = 0; i < n; ++i) want[i] = hard_swish_def(x[i]);
      lg_f32_hard_swish_row(x, got, n);
      expect_row("hard swish", got, want, n, isas[k]);

      /* In place. */
      x[n] = GUARD_VALUE;
      lg_f32_hard_swish_row(x, x, n);
      expect_row("hard swish in place", x, want, n, isas[k]);
    }
  }
  lg_gemm_isa_set_default(before);
}

/* HARD_SWISH divides by 6 without a divide where the quotient is safely
 * normal (simd_f32.c, lg_f32_div6_16): every binade from the smallest
 * subnormal to 2^10, both signs, seven mantissas each, around the 2^-122
 * bound of that path and the specials, against the division bit for bit. */
static void test_hard_swish_all_magnitudes(void** state) {
  (void)state;
  enum { N = 2 * 160 * 7 + 8 };
  static float x[N + 1], got[N + 1], want[N + 1];
  int n = 0;
  for (int e = -149; e <= 10; ++e) {
    for (int j = 0; j < 7; ++j) {
      x[n++] = ldexpf(1.0f + (float)j / 7.0f, e);
      x[n++] = -ldexpf(1.0f + (float)j / 7.0f, e);
    }
  }
  const float specials[] = {0.0f,      -0.0f,
                            INFINITY,  -INFINITY,
                            NAN,       0x1p-122f / 3.0f,
                            0x1p-124f, -0x1.fffffep-125f};
  for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); ++i) {
    x[n++] = specials[i];
  }
  assert_int_equal(n, N);
  for (int i = 0; i < n; ++i) want[i] = hard_swish_def(x[i]);
  lg_gemm_isa isas[LG_GEMM_ISA_COUNT];
  const int isa_count = supported_isas(isas);
  const lg_gemm_isa before = lg_gemm_isa_default();
  for (int k = 0; k < isa_count; ++k) {
    lg_gemm_isa_set_default(isas[k]);
    got[n] = GUARD_VALUE;
    lg_f32_hard_swish_row(x, got, n);
    expect_row("hard swish (all magnitudes)", got, want, n, isas[k]);
  }
  lg_gemm_isa_set_default(before);
}

/* Hand-derived values, so that a definition above cannot drift with the
 * code: RELU6 of -0 keeps -0, a NaN passes every clamp, inf clamps to
 * FLT_MAX under activation NONE, PRELU of -2 by 0.25 is -0.5, HARD_SWISH
 * of 1 is 4/6 and of NaN is NaN (NaN + 3 clamps to 0, NaN * 0 is NaN). */
static void test_hand_values(void** state) {
  (void)state;
  const float x[3] = {-0.0f, NAN, 7.0f};
  float out[3];
  lg_f32_clamp_row(x, out, 3, 0.0f, 6.0f);
  assert_true(out[0] == 0.0f && signbit(out[0]));
  assert_true(isnan(out[1]));
  assert_true(out[2] == 6.0f);

  const float big[2] = {INFINITY, -INFINITY};
  const float one[1] = {1.0f};
  lg_f32_binary_row(LG_F32_ADD, big, 1, one, 0, out, 2, -FLT_MAX, FLT_MAX);
  assert_true(out[0] == FLT_MAX && out[1] == -FLT_MAX);

  const float p[2] = {-2.0f, 3.0f};
  const float alpha[1] = {0.25f};
  lg_f32_prelu_row(p, alpha, 0, out, 2);
  assert_true(out[0] == -0.5f && out[1] == 3.0f);

  const float h[2] = {1.0f, NAN};
  lg_f32_hard_swish_row(h, out, 2);
  assert_true(out[0] == 4.0f / 6.0f);
  assert_true(isnan(out[1]));
}

/* ---- GELU (approximations: bounds, not bits) ----------------------------- */

/* The double formulas, erfc's argument rounded to float first as the
 * kernels compute it. */
static double gelu_erf_def(float x) {
  const float z = x * -0.707106781186547524f;
  return 0.5 * (double)x * erfc((double)z);
}
static double gelu_tanh_def(float x) {
  const double xd = x, k = sqrt(2.0 / 3.14159265358979323846);
  /* 0.5 (1 + tanh(u)) as 1 / (1 + e^(-2u)): no cancellation for u < 0 */
  return xd / (1.0 + exp(-2.0 * k * (xd + 0.044715 * xd * xd * xd)));
}

/* The bounds simd_f32.h states: `ulps` units of the float result down to
 * x = ulp_from, below that |x| * abs_per_x (and never more than the value
 * an ulp bound would give a normal result). */
static void expect_gelu(const char* what, const float* x, const float* got,
                        int n, bool approximate, lg_gemm_isa isa) {
  const double ulps = 8.0;
  const float ulp_from = approximate ? -2.0f : -12.5f;
  const double abs_per_x = approximate ? 1.1e-8 : 1e-42;
  for (int i = 0; i < n; ++i) {
    const double want = approximate ? gelu_tanh_def(x[i]) : gelu_erf_def(x[i]);
    const double error = fabs((double)got[i] - want);
    int exponent;
    frexp(want, &exponent);
    const double ulp =
        ldexp(1.0, (exponent - 24 < -149 ? -149 : exponent - 24));
    const double allowed =
        x[i] >= ulp_from ? ulps * ulp : fabs((double)x[i]) * abs_per_x;
    if (!(error <= allowed)) {
      fail_msg("%s (%s): x = %.9g: got %.9g, want %.9g", what,
               lg_gemm_isa_name(isa), (double)x[i], (double)got[i], want);
    }
  }
}

/* LOGISTIC as TFLite's reference defines it, in double. */
static double logistic_def(float x) {
  if (x > 16.619047164916992188) return 1.0;
  if (x < -9.0f) return exp((double)x);
  return 1.0 / (1.0 + exp(-(double)x));
}

/* lg_f32_logistic_row on every instruction set: a dense grid over [-120,
 * 30] (every tail length too, in place) within 3 ulps of the double
 * definition (the LOGISTIC kernel tests' bound), the cut-offs' both sides
 * and the special values. */
static void test_logistic_rows(void** state) {
  (void)state;
  lg_gemm_isa isas[LG_GEMM_ISA_COUNT];
  const int isa_count = supported_isas(isas);
  const lg_gemm_isa before = lg_gemm_isa_default();
  enum { GRID = 30001 };
  static float x[GRID], got[GRID + 1];
  for (int i = 0; i < GRID; ++i)
    x[i] = (float)(-120.0 + 150.0 * i / (GRID - 1));
  x[0] = 16.619047164916992188f;
  x[1] = nextafterf(x[0], INFINITY);
  x[2] = -9.0f;
  x[3] = nextafterf(-9.0f, -INFINITY);
  x[4] = 0.0f;
  x[5] = -0.0f;
  for (int k = 0; k < isa_count; ++k) {
    lg_gemm_isa_set_default(isas[k]);
    got[GRID] = GUARD_VALUE;
    lg_f32_logistic_row(x, got, GRID);
    assert_true(got[GRID] == GUARD_VALUE);
    for (int i = 0; i < GRID; ++i) {
      const double want = logistic_def(x[i]);
      int exponent;
      frexp(want, &exponent);
      const double ulp =
          ldexp(1.0, (exponent - 24 < -149 ? -149 : exponent - 24));
      if (!(fabs((double)got[i] - want) <= 3.0 * ulp)) {
        fail_msg("logistic (%s): x = %.9g: got %.9g, want %.9g",
                 lg_gemm_isa_name(isas[k]), (double)x[i], (double)got[i], want);
      }
    }
    assert_true(got[1] == 1.0f && got[4] == 0.5f && got[5] == 0.5f);
    for (int n = 0; n <= 40; ++n) {
      float row[41];
      memcpy(row, x + GRID / 2, sizeof(row));
      row[n] = GUARD_VALUE;
      lg_f32_logistic_row(row, row, n);
      expect_row("logistic in place", row, got + GRID / 2, n, isas[k]);
    }
    const float specials[] = {NAN, INFINITY, -INFINITY, FLT_MAX, -FLT_MAX};
    float out[5];
    lg_f32_logistic_row(specials, out, 5);
    assert_true(isnan(out[0]));
    assert_true(out[1] == 1.0f && out[3] == 1.0f);
    assert_true(out[2] == 0.0f && out[4] == 0.0f);
  }
  lg_gemm_isa_set_default(before);
}

static void test_gelu_rows(void** state) {
  (void)state;
  lg_gemm_isa isas[LG_GEMM_ISA_COUNT];
  const int isa_count = supported_isas(isas);
  const lg_gemm_isa before = lg_gemm_isa_default();
  /* A dense grid over [-20, 20] (an odd count: every tail) and a far
   * range, both forms, every instruction set; the scalar one has no vector
   * row and says so. */
  enum { GRID = 40001 };
  static float x[GRID], got[GRID + 1];
  const float specials[] = {NAN,     INFINITY, -INFINITY, 0.0f,   -0.0f,
                            FLT_MAX, -FLT_MAX, 1e30f,     -1e30f, 1e-40f};
  float special_got[10];
  for (int k = 0; k < isa_count; ++k) {
    lg_gemm_isa_set_default(isas[k]);
    for (int form = 0; form < 2; ++form) {
      const bool approximate = form == 1;
      for (int range = 0; range < 2; ++range) {
        const double half = range == 0 ? 20.0 : 1e4;
        for (int i = 0; i < GRID; ++i) {
          x[i] = (float)(-half + 2.0 * half * i / (GRID - 1));
        }
        got[GRID] = GUARD_VALUE;
        if (!lg_f32_gelu_row(x, got, GRID, approximate)) {
          assert_int_equal(isas[k], LG_GEMM_ISA_SCALAR);
          continue;
        }
        assert_true(got[GRID] == GUARD_VALUE);
        expect_gelu(approximate ? "GELU tanh" : "GELU erf", x, got, GRID,
                    approximate, isas[k]);
        /* Every short length (the two-vector body, one vector, masked
         * tails), in place: each lane as in the long row, and no more. */
        for (int n = 0; n <= 80; ++n) {
          float row[81];
          memcpy(row, x + GRID / 2 - 40, sizeof(row)); /* around 0 */
          row[n] = GUARD_VALUE;
          assert_true(lg_f32_gelu_row(row, row, n, approximate));
          expect_row("GELU in place", row, got + GRID / 2 - 40, n, isas[k]);
        }
      }
      if (!lg_f32_gelu_row(specials, special_got, 10, approximate)) continue;
      assert_true(isnan(special_got[0]));
      assert_true(special_got[1] == INFINITY);
      assert_true(isnan(special_got[2])); /* -inf * 0, as 0.5 x erfc(inf) */
      assert_true(special_got[3] == 0.0f && !signbit(special_got[3]));
      assert_true(special_got[4] == 0.0f && signbit(special_got[4]));
      assert_true(special_got[5] == FLT_MAX && special_got[7] == 1e30f);
      assert_true(special_got[6] == 0.0f && signbit(special_got[6]));
      assert_true(special_got[8] == 0.0f && signbit(special_got[8]));
      assert_true(special_got[9] == 0.5f * 1e-40f);
    }
  }
  lg_gemm_isa_set_default(before);
}

/* lg_f32_tanh_row and lg_f32_elu_row on every instruction set: a dense
 * grid over [-30, 30] and one over [-2, 2] (both polynomial cut-overs,
 * 0.55 and -1, inside), within 2 ulps of the double functions (the
 * TANH / ELU kernel tests' bound), every tail length in place, and the
 * special values. */
static void expect_within_ulps(const char* what, const float* x,
                               const float* got, int n, double (*f)(double),
                               double ulps, lg_gemm_isa isa) {
  for (int i = 0; i < n; ++i) {
    const double want = f((double)x[i]);
    int exponent;
    frexp(want, &exponent);
    const double ulp =
        ldexp(1.0, (exponent - 24 < -149 ? -149 : exponent - 24));
    if (!(fabs((double)got[i] - want) <= ulps * ulp)) {
      fail_msg("%s (%s): x = %.9g: got %.9g, want %.9g", what,
               lg_gemm_isa_name(isa), (double)x[i], (double)got[i], want);
    }
  }
}

static double elu_def(double x) { return x < 0 ? expm1(x) : x; }

static void test_tanh_elu_rows(void** state) {
  (void)state;
  lg_gemm_isa isas[LG_GEMM_ISA_COUNT];
  const int isa_count = supported_isas(isas);
  const lg_gemm_isa before = lg_gemm_isa_default();
  enum { GRID = 20001 };
  static float x[2][GRID], got[GRID + 1];
  for (int i = 0; i < GRID; ++i) {
    x[0][i] = (float)(-30.0 + 60.0 * i / (GRID - 1));
    x[1][i] = (float)(-2.0 + 4.0 * i / (GRID - 1));
  }
  for (int k = 0; k < isa_count; ++k) {
    lg_gemm_isa_set_default(isas[k]);
    for (int g = 0; g < 2; ++g) {
      got[GRID] = GUARD_VALUE;
      lg_f32_tanh_row(x[g], got, GRID);
      assert_true(got[GRID] == GUARD_VALUE);
      expect_within_ulps("tanh", x[g], got, GRID, tanh, 2.0, isas[k]);
      lg_f32_elu_row(x[g], got, GRID);
      assert_true(got[GRID] == GUARD_VALUE);
      expect_within_ulps("elu", x[g], got, GRID, elu_def, 2.0, isas[k]);
    }
    for (int n = 0; n <= 40; ++n) {
      float row[41], want[41];
      memcpy(row, x[1] + GRID / 2 - 20, sizeof(row));
      lg_f32_tanh_row(row, want, n);
      row[n] = GUARD_VALUE;
      lg_f32_tanh_row(row, row, n);
      expect_row("tanh in place", row, want, n, isas[k]);
    }
    const float specials[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f};
    float t[5], e[5];
    lg_f32_tanh_row(specials, t, 5);
    lg_f32_elu_row(specials, e, 5);
    assert_true(isnan(t[0]) && isnan(e[0]));
    assert_true(t[1] == 1.0f && t[2] == -1.0f);
    assert_true(e[1] == INFINITY && e[2] == -1.0f);
    assert_true(t[3] == 0.0f && !signbit(t[3]) && t[4] == 0.0f &&
                signbit(t[4]));
    assert_true(e[3] == 0.0f && !signbit(e[3]) && e[4] == 0.0f &&
                signbit(e[4]));
  }
  lg_gemm_isa_set_default(before);
}

/* A row spread over more than 87 (masked attention, confident logits):
 * exps below FLT_MIN are 0, not subnormals (simd_f32.h), the others as the
 * definition, on every instruction set, for the long-row path (37 floats)
 * and the one-register rows (13 floats, two rows). */
static void test_softmax_far_values(void** state) {
  (void)state;
  lg_gemm_isa isas[LG_GEMM_ISA_COUNT];
  const int isa_count = supported_isas(isas);
  const lg_gemm_isa before = lg_gemm_isa_default();
  float x[37], got[37];
  for (int i = 0; i < 37; ++i) x[i] = -7.5f * (float)i; /* 0 down to -270 */
  x[5] = -1e9f;                                         /* an attention mask */
  x[6] = -INFINITY;
  for (int k = 0; k < isa_count; ++k) {
    lg_gemm_isa_set_default(isas[k]);
    for (int shape = 0; shape < 2; ++shape) {
      const int depth = shape == 0 ? 37 : 13;
      const int rows = shape == 0 ? 1 : 2;
      if (!lg_f32_softmax_rows(x, got, rows, depth, 1.0f)) {
        assert_int_equal(isas[k], LG_GEMM_ISA_SCALAR);
        continue;
      }
      for (int r = 0; r < rows; ++r) {
        double sum = 0.0;
        for (int i = 0; i < depth; ++i) {
          const double a = (double)x[r * depth + i] - x[r * depth];
          if (a >= -87.33) sum += exp(a);
        }
        for (int i = 0; i < depth; ++i) {
          const double a = (double)x[r * depth + i] - x[r * depth];
          const double want = a >= -87.33 ? exp(a) / sum : 0.0;
          const float g = got[r * depth + i];
          if (a < -87.34 ? g != 0.0f
                         : !(fabs((double)g - want) <= 6e-7 * want + 1e-44)) {
            fail_msg(
                "softmax far (%s) depth %d: x = %.9g: got %.9g, want "
                "%.9g",
                lg_gemm_isa_name(isas[k]), depth, (double)x[r * depth + i],
                (double)g, want);
          }
        }
      }
    }
  }
  lg_gemm_isa_set_default(before);
}

/* SOFTMAX rows of every length to 80 against the steps in double: values
 * from draw() limited to finite ones for the bound check (the relative
 * bound covers exp's ulp, the sum's order and the division), then rows
 * holding a NaN or +inf (all NaN), -inf (0 there) and beta <= 0 (no
 * vector row). */
static void test_softmax_rows(void** state) {
  (void)state;
  lg_gemm_isa isas[LG_GEMM_ISA_COUNT];
  const int isa_count = supported_isas(isas);
  const lg_gemm_isa before = lg_gemm_isa_default();
  uint32_t seed = 0x6A09E667u;
  float x[MAX_N + 1], got[MAX_N + 1];
  for (int k = 0; k < isa_count; ++k) {
    lg_gemm_isa_set_default(isas[k]);
    for (int n = 1; n <= MAX_N; ++n) {
      for (int i = 0; i < n; ++i) {
        const float v = draw(&seed);
        x[i] = isfinite(v) && fabsf(v) < 100.0f ? v : (float)(i % 7) - 3.0f;
      }
      const float beta = n % 3 == 0 ? 0.5f : 1.0f;
      got[n] = GUARD_VALUE;
      if (!lg_f32_softmax_row(x, got, n, beta)) {
        assert_int_equal(isas[k], LG_GEMM_ISA_SCALAR);
        continue;
      }
      assert_true(got[n] == GUARD_VALUE);
      double max = -FLT_MAX, sum = 0.0;
      for (int i = 0; i < n; ++i) max = x[i] > max ? x[i] : max;
      for (int i = 0; i < n; ++i) sum += exp(((double)x[i] - max) * beta);
      for (int i = 0; i < n; ++i) {
        const double want = exp(((double)x[i] - max) * beta) / sum;
        if (!(fabs((double)got[i] - want) <= 6e-7 * want + 1e-44)) {
          fail_msg("softmax (%s) n=%d: x[%d] = %.9g: got %.9g, want %.9g",
                   lg_gemm_isa_name(isas[k]), n, i, (double)x[i],
                   (double)got[i], want);
        }
      }
    }
    const float specials[3][3] = {
        {1, 2, NAN}, {1, INFINITY, 2}, {-INFINITY, 0, 0}};
    for (int r = 0; r < 3; ++r) {
      float row[19], out[19];
      for (int i = 0; i < 19; ++i) row[i] = i < 3 ? specials[r][i] : -1.0f;
      if (!lg_f32_softmax_row(row, out, 19, 1.0f)) continue;
      for (int i = 0; i < 19; ++i) {
        if (r < 2) {
          assert_true(isnan(out[i]));
        } else if (i == 0) {
          assert_true(out[0] == 0.0f);
        }
      }
    }
    assert_false(lg_f32_softmax_row(x, got, 4, 0.0f));
    assert_false(lg_f32_softmax_row(x, got, 4, -1.0f));
  }
  lg_gemm_isa_set_default(before);
}

/* Several rows at once give each row's own result bit for bit, for
 * lengths 1..18 (one register and a partial one, exactly one, more than
 * one), beta 1 and 0.5, a row with a NaN and one with -inf among them,
 * and never write past the last row. */
static void test_softmax_many_rows(void** state) {
  (void)state;
  lg_gemm_isa isas[LG_GEMM_ISA_COUNT];
  const int isa_count = supported_isas(isas);
  const lg_gemm_isa before = lg_gemm_isa_default();
  enum { kRows = 5, kMaxDepth = 18 };
  uint32_t seed = 0xBB67AE85u;
  float x[kRows * kMaxDepth], got[kRows * kMaxDepth + 1], want[kMaxDepth];
  for (int k = 0; k < isa_count; ++k) {
    lg_gemm_isa_set_default(isas[k]);
    for (int depth = 1; depth <= kMaxDepth; ++depth) {
      for (int i = 0; i < kRows * depth; ++i) {
        const float v = draw(&seed);
        x[i] = isfinite(v) && fabsf(v) < 100.0f ? v : (float)(i % 5) - 2.0f;
      }
      x[1 * depth + depth / 2] = NAN;
      x[3 * depth] = -INFINITY;
      const float beta = depth % 2 == 0 ? 0.5f : 1.0f;
      got[kRows * depth] = GUARD_VALUE;
      if (!lg_f32_softmax_rows(x, got, kRows, depth, beta)) {
        assert_int_equal(isas[k], LG_GEMM_ISA_SCALAR);
        continue;
      }
      assert_true(got[kRows * depth] == GUARD_VALUE);
      for (int r = 0; r < kRows; ++r) {
        assert_true(lg_f32_softmax_row(x + r * depth, want, depth, beta));
        if (memcmp(got + r * depth, want, sizeof(float) * depth) != 0) {
          fail_msg(
              "softmax rows (%s) depth %d: row %d differs from the row "
              "function",
              lg_gemm_isa_name(isas[k]), depth, r);
        }
      }
      assert_true(isnan(got[1 * depth]));
      if (depth > 1) assert_true(got[3 * depth] == 0.0f);
    }
    assert_false(lg_f32_softmax_rows(x, got, 2, 4, 0.0f));
  }
  lg_gemm_isa_set_default(before);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_binary_rows),
      cmocka_unit_test(test_binary_many_rows),
      cmocka_unit_test(test_fold_rows),
      cmocka_unit_test(test_row_sums),
      cmocka_unit_test(test_activation_rows),
      cmocka_unit_test(test_hard_swish_all_magnitudes),
      cmocka_unit_test(test_hand_values),
      cmocka_unit_test(test_logistic_rows),
      cmocka_unit_test(test_tanh_elu_rows),
      cmocka_unit_test(test_gelu_rows),
      cmocka_unit_test(test_softmax_far_values),
      cmocka_unit_test(test_softmax_rows),
      cmocka_unit_test(test_softmax_many_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
