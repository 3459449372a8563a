/* out[i] = op(x[i]) over n elements (float32).
 *
 * Defines:
 *   LG_OP  0 logistic (default), 1 tanh, 2 relu, 3 relu6, 4 relu_n1_to_1,
 *          5 exp, 6 neg, 7 abs, 8 sqrt, 9 square.
 * Clamps let NaN through, as the CPU kernels do. The global size may be
 * rounded up past n: every work item checks it. */
#ifndef LG_OP
#define LG_OP 0
#endif

__kernel void unary(__global const float* x, __global float* out, int n) {
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
#else
  const float r = 1.0f / (1.0f + exp(-v));
#endif
  out[i] = r;
}
