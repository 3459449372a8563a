/* out[i] = op(x[i]) over n elements (float32).
 *
 * LG_OP  0 logistic (default), 1 tanh, 2 relu, 3 relu6, 4 relu_n1_to_1,
 *        5 exp, 6 neg, 7 abs, 8 sqrt, 9 square, 10 log, 11 rsqrt, 12 sin,
 *        13 cos, 14 floor, 15 elu, 16 hard swish, 17 gelu (tanh
 *        approximation), 18 gelu (erf), 19 leaky relu (slope alpha).
 * Clamps let NaN through, as the CPU kernels do. The global size may be
 * rounded up past n: every work item checks it. */
#ifndef LG_OP
#define LG_OP 0
#endif

__kernel void unary(__global const float* x, __global float* out, int n,
                    float alpha) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  const float v = x[i];
#if LG_OP == 1
  const float r = tanh(v);
#elif LG_OP == 2
  const float r = v < 0.0f ? 0.0f : v;
#elif LG_OP == 3
  const float r = v < 0.0f ? 0.0f : (v > 6.0f ? 6.0f : v);
#elif LG_OP == 4
  const float r = v < -1.0f ? -1.0f : (v > 1.0f ? 1.0f : v);
#elif LG_OP == 5
  const float r = exp(v);
#elif LG_OP == 6
  const float r = -v;
#elif LG_OP == 7
  const float r = fabs(v);
#elif LG_OP == 8
  const float r = sqrt(v);
#elif LG_OP == 9
  const float r = v * v;
#elif LG_OP == 10
  const float r = log(v);
#elif LG_OP == 11
  const float r = 1.0f / sqrt(v);
#elif LG_OP == 12
  const float r = sin(v);
#elif LG_OP == 13
  const float r = cos(v);
#elif LG_OP == 14
  const float r = floor(v);
#elif LG_OP == 15
  const float r = v < 0.0f ? expm1(v) : v;
#elif LG_OP == 16
  float t = v + 3.0f;
  t = t < 0.0f ? 0.0f : (t > 6.0f ? 6.0f : t);
  const float r = v * t / 6.0f;
#elif LG_OP == 17
  /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
  const float r =
      0.5f * v * (1.0f + tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
#elif LG_OP == 18
  const float r = 0.5f * v * (1.0f + erf(v * 0.7071067812f));
#elif LG_OP == 19
  const float r = v < 0.0f ? alpha * v : v;
#else
  const float r = 1.0f / (1.0f + exp(-v));
#endif
  out[i] = r;
}
