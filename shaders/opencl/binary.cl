/* out = act(op(a, b)) over n elements (float32), NumPy broadcasting.
 *
 * LG_BCAST 0: each operand is addressed by the flat index modulo its size
 *   (same shape, a scalar, or the output's trailing dims).
 * LG_BCAST 1: general broadcast of up to 4 dims: the output is
 *   [n / (d1*d2*d3), d1, d2, d3] and each operand has one stride per dim
 *   (0 where it is broadcast).
 * LG_OP  0 add, 1 sub, 2 mul, 3 div, 4 maximum, 5 minimum,
 *        6 squared difference, 7 prelu (a >= 0 ? a : b * a), 8 pow.
 * lo/hi: the fused activation's clamp (NaN passes, as on the CPU);
 * LG_ACT_TANH applies tanh after it. The global size may be rounded up past
 * n: every work item checks it. */
#ifndef LG_OP
#define LG_OP 0
#endif
#ifndef LG_BCAST
#define LG_BCAST 0
#endif

__kernel void binary(__global const float* a, __global const float* b,
                     __global float* out, int n, int na, int nb, float lo,
                     float hi, int d1, int d2, int d3, int sa0, int sa1,
                     int sa2, int sa3, int sb0, int sb1, int sb2, int sb3) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
#if LG_BCAST == 1
  const int i3 = i % d3;
  const int i2 = (i / d3) % d2;
  const int i1 = (i / (d3 * d2)) % d1;
  const int i0 = i / (d3 * d2 * d1);
  const float x = a[i0 * sa0 + i1 * sa1 + i2 * sa2 + i3 * sa3];
  const float y = b[i0 * sb0 + i1 * sb1 + i2 * sb2 + i3 * sb3];
#else
  const float x = a[na == n ? i : i % na];
  const float y = b[nb == n ? i : i % nb];
#endif
#if LG_OP == 1
  float r = x - y;
#elif LG_OP == 2
  float r = x * y;
#elif LG_OP == 3
  float r = x / y;
#elif LG_OP == 4
  float r = x > y ? x : y;
#elif LG_OP == 5
  float r = x < y ? x : y;
#elif LG_OP == 6
  const float d = x - y;
  float r = d * d;
#elif LG_OP == 7
  float r = x >= 0.0f ? x : y * x;
#elif LG_OP == 8
  float r = pow(x, y);
#else
  float r = x + y;
#endif
  if (r < lo) r = lo;
  if (r > hi) r = hi;
#ifdef LG_ACT_TANH
  r = tanh(r);
#endif
  out[i] = r;
}
