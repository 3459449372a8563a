// Float32 math for the Vulkan shaders, included with #include "lg_math.glsl".
//
// Vulkan only bounds GLSL's built-ins loosely (exp: 3 + 2|x| ulp, log and
// sin/cos: an absolute 2^-21 / 2^-11 near their zeros, tanh: whatever its
// formula gives), and GLSL has no expm1 or erf. The kernels must match the
// CPU path to about 1e-6 relative on every Vulkan 1.1 device, so the
// transcendental ops are computed here from +, *, / and ldexp, which Vulkan
// specifies tightly: Cody-Waite range reduction and short polynomials, a
// few ulp over the ranges the ops meet. NaN passes through every function.

#define LG_INF uintBitsToFloat(0x7f800000u)
#define LG_NAN uintBitsToFloat(0x7fc00000u)
// ln 2 = LG_LN2_HI + LG_LN2_LO; LG_LN2_HI has 16 significant bits, so
// k * LG_LN2_HI is exact for |k| < 256.
const float LG_LN2_HI = 0.693145751953125;
const float LG_LN2_LO = 1.4286068202862268e-06;

// e^x: x = k ln2 + r with |r| <= ln2 / 2, e^r by its Taylor series to r^7
// (truncation below 1e-8 relative), then 2^k applied in two halves so no
// intermediate power of two overflows.
float lg_exp(float x) {
  if (isnan(x)) return x;
  if (x > 88.72284) return LG_INF;
  if (x < -103.972084) return 0.0;
  const float k = floor(x * 1.4426950408889634 + 0.5);
  const float r = (x - k * LG_LN2_HI) - k * LG_LN2_LO;
  const float p =
      1.0 +
      r * (1.0 +
           r * (0.5 +
                r * (1.0 / 6.0 +
                     r * (1.0 / 24.0 +
                          r * (1.0 / 120.0 +
                               r * (1.0 / 720.0 + r * (1.0 / 5040.0)))))));
  const int ki = int(k);
  return ldexp(ldexp(p, ki / 2), ki - ki / 2);
}

// e^x - 1 without cancellation near 0 (Taylor series to x^9 below 0.35).
float lg_expm1(float x) {
  if (abs(x) >= 0.35) return lg_exp(x) - 1.0;
  return x *
         (1.0 +
          x * (0.5 +
               x * (1.0 / 6.0 +
                    x * (1.0 / 24.0 +
                         x * (1.0 / 120.0 +
                              x * (1.0 / 720.0 +
                                   x * (1.0 / 5040.0 +
                                        x * (1.0 / 40320.0 +
                                             x * (1.0 / 362880.0)))))))));
}

// tanh x = e / (e + 2) with e = expm1(2|x|): no cancellation near 0 and
// no overflow (tanh(15) is 1 in float).
float lg_tanh(float x) {
  if (isnan(x)) return x;
  const float e = lg_expm1(2.0 * min(abs(x), 15.0));
  const float r = e / (e + 2.0);
  return x < 0.0 ? -r : r;
}

// 1 / (1 + e^-x).
float lg_logistic(float x) { return 1.0 / (1.0 + lg_exp(-x)); }

// ln x: x = 2^e m with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s) with
// s = (m - 1) / (m + 1), |s| < 0.172, by its odd series to s^9.
float lg_log(float x) {
  if (isnan(x) || x < 0.0) return LG_NAN;
  if (x == 0.0) return -LG_INF;
  if (isinf(x)) return x;
  int e;
  float m = frexp(x, e);
  if (m < 0.70710678118654752) {
    m *= 2.0;
    e -= 1;
  }
  const float f = m - 1.0;
  const float s = f / (2.0 + f);
  const float s2 = s * s;
  const float l =
      2.0 * s *
      (1.0 + s2 * (1.0 / 3.0 + s2 * (1.0 / 5.0 + s2 * (1.0 / 7.0 + s2 / 9.0))));
  const float fe = float(e);
  return fe * LG_LN2_HI + (l + fe * LG_LN2_LO);
}

// sin and cos: x = q pi/2 + r with |r| <= pi/4 (pi/2 split in three parts;
// accurate for |x| below about 6000), then the quadrant's Taylor series.
float lg_sin_poly(float r) {
  const float r2 = r * r;
  return r *
         (1.0 +
          r2 * (-1.0 / 6.0 +
                r2 * (1.0 / 120.0 +
                      r2 * (-1.0 / 5040.0 + r2 * (1.0 / 362880.0)))));
}

float lg_cos_poly(float r) {
  const float r2 = r * r;
  return 1.0 +
         r2 * (-0.5 +
               r2 * (1.0 / 24.0 +
                     r2 * (-1.0 / 720.0 +
                           r2 * (1.0 / 40320.0 + r2 * (-1.0 / 3628800.0)))));
}

// Returns r and sets the quadrant (0..3).
float lg_reduce_half_pi(float x, out int quadrant) {
  const float q = floor(x * 0.63661977236758134 + 0.5);
  quadrant = int(q) & 3;
  return ((x - q * 1.5703125) - q * 4.838705062866211e-4) -
         q * -4.371139006309477e-08;
}

float lg_sin(float x) {
  int quadrant;
  const float r = lg_reduce_half_pi(x, quadrant);
  if (quadrant == 0) return lg_sin_poly(r);
  if (quadrant == 1) return lg_cos_poly(r);
  if (quadrant == 2) return -lg_sin_poly(r);
  return -lg_cos_poly(r);
}

float lg_cos(float x) {
  int quadrant;
  const float r = lg_reduce_half_pi(x, quadrant);
  if (quadrant == 0) return lg_cos_poly(r);
  if (quadrant == 1) return -lg_sin_poly(r);
  if (quadrant == 2) return -lg_cos_poly(r);
  return lg_sin_poly(r);
}

// erfc x. Below 1: 1 - erf x, erf by its Taylor series (13 terms). From 1
// on: e^(-x^2) times the Laplace continued fraction of erfcx, evaluated
// backward from depth 60 (1e-8 relative at x = 1, better above), which
// keeps the tail's relative precision. Negative x: 2 - erfc(-x).
float lg_erfc(float x) {
  if (isnan(x)) return x;
  const float z = abs(x);
  float r;
  if (z < 1.0) {
    const float z2 = z * z;
    float term = z;
    float sum = 0.0;
    for (int n = 0; n < 13; ++n) {
      sum += term / float(2 * n + 1);
      term *= -z2 / float(n + 1);
    }
    r = 1.0 - 1.1283791670955126 * sum;
  } else if (z > 10.0) {
    r = 0.0;
  } else {
    float t = z;
    for (int k = 60; k > 0; --k) t = z + (0.5 * float(k)) / t;
    r = lg_exp(-z * z) / (t * 1.7724538509055160);
  }
  return x < 0.0 ? 2.0 - r : r;
}

// x^y with C's rules for the cases the CPU kernel meets: y == 0 or x == 1
// give 1 (even with NaN), a negative x needs an integral y (else NaN) and
// an odd y keeps its sign; x == 0 gives 0 or inf through ln 0 = -inf.
float lg_pow(float x, float y) {
  if (y == 0.0 || x == 1.0) return 1.0;
  if (isnan(x) || isnan(y)) return LG_NAN;
  const bool integral = floor(y) == y;
  if (x < 0.0 && !integral) return LG_NAN;
  const float r = lg_exp(y * lg_log(abs(x)));
  const bool odd = integral && abs(y) < 16777216.0 && (int(abs(y)) & 1) == 1;
  return x < 0.0 && odd ? -r : r;
}
