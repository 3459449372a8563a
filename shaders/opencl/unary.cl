/* out[i] = op(x[i]) over n elements (float tensor buffers, see
 * lg_types.cl).
 *
 * LG_OP  0 logistic (default), 1 tanh, 2 relu, 3 relu6, 4 relu_n1_to_1,
 *        5 exp, 6 neg, 7 abs, 8 sqrt, 9 square, 10 log, 11 rsqrt, 12 sin,
 *        13 cos, 14 floor, 15 elu, 16 hard swish, 17 gelu (tanh
 *        approximation), 18 gelu (erf), 19 leaky relu (slope alpha).
 * Clamps let NaN through, as the CPU kernels do. With LG_HALF_MATH the
 * piecewise-linear ops and square (relu family, neg, abs, square, floor,
 * leaky relu) compute in half (lg_real); the others stay float (hard
 * swish's v * t may pass the half range where its result does not). The
 * global size may be rounded up past n: every work item checks it. */
#ifndef LG_OP
#define LG_OP 0
#endif

/* A constant in the type of the per-element arithmetic. */
#define R(c) ((lg_real)(c))

__kernel void unary(__global const LG_DATA* x, __global LG_DATA* out, int n,
                    float alpha) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
#if LG_OP == 2 || LG_OP == 3 || LG_OP == 4 || LG_OP == 6 || LG_OP == 7 || \
    LG_OP == 9 || LG_OP == 14 || LG_OP == 19
  const lg_real v = LG_LOADR1(i, x);
#else
  const float v = LG_LOAD1(i, x);
#endif
#if LG_OP == 1
  const float r = tanh(v);
#elif LG_OP == 2
  const lg_real r = v < R(0.0f) ? R(0.0f) : v;
#elif LG_OP == 3
  const lg_real r = v < R(0.0f) ? R(0.0f) : (v > R(6.0f) ? R(6.0f) : v);
#elif LG_OP == 4
  const lg_real r = v < R(-1.0f) ? R(-1.0f) : (v > R(1.0f) ? R(1.0f) : v);
#elif LG_OP == 5
  const float r = exp(v);
#elif LG_OP == 6
  const lg_real r = -v;
#elif LG_OP == 7
  const lg_real r = fabs(v);
#elif LG_OP == 8
  const float r = sqrt(v);
#elif LG_OP == 9
  const lg_real r = v * v;
#elif LG_OP == 10
  const float r = log(v);
#elif LG_OP == 11
  const float r = 1.0f / sqrt(v);
#elif LG_OP == 12
  const float r = sin(v);
#elif LG_OP == 13
  const float r = cos(v);
#elif LG_OP == 14
  const lg_real r = floor(v);
#elif LG_OP == 15
  const float r = v < 0.0f ? expm1(v) : v;
#elif LG_OP == 16
  float t = v + 3.0f;
  t = t < 0.0f ? 0.0f : (t > 6.0f ? 6.0f : t);
  const float r = v * t / 6.0f; /* float: v * t can pass 65504 */
#elif LG_OP == 17
  /* 0.5 x (1 + tanh u), u = sqrt(2/pi) (x + 0.044715 x^3), written as
   * x / (1 + e^(-2u)): no cancellation of 1 + tanh u for negative x, where
   * a tanh that rounds short of -1 would leave x * 6e-8 instead of 0. */
  const float u = 0.7978845608f * (v + 0.044715f * v * v * v);
  const float r = v / (1.0f + exp(-2.0f * u));
#elif LG_OP == 18
  /* 0.5 x (1 + erf(x / sqrt 2)) = 0.5 x erfc(-x / sqrt 2), likewise. */
  const float r = 0.5f * v * erfc(v * -0.7071067812f);
#elif LG_OP == 19
  const lg_real r = v < R(0.0f) ? R(alpha) * v : v;
#else
  const float r = 1.0f / (1.0f + exp(-v));
#endif
  /* A half r converts to float and back exactly. */
  LG_STORE1((float)r, i, out);
}
