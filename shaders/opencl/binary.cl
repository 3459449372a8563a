/* out = act(op(a, b)) over n elements (float tensor buffers, see
 * lg_types.cl), NumPy broadcasting.
 *
 * LG_BCAST 0: each operand is addressed by the flat index modulo its size
 *   (same shape, a scalar, or the output's trailing dims).
 * LG_BCAST 1: general broadcast of up to 4 dims: the output is
 *   [n / (d1*d2*d3), d1, d2, d3] and each operand has one stride per dim
 *   (0 where it is broadcast).
 * LG_OP  0 add, 1 sub, 2 mul, 3 div, 4 maximum, 5 minimum,
 *        6 squared difference, 7 prelu (a >= 0 ? a : b * a), 8 pow.
 * lo/hi: the fused activation's clamp (NaN passes, as on the CPU);
 * LG_ACT_TANH applies tanh after it. With LG_HALF_MATH every op but pow
 * (and tanh) computes in half, the clamp included. The global size may be
 * rounded up past n: every work item checks it. */
#ifndef LG_OP
#define LG_OP 0
#endif
#ifndef LG_BCAST
#define LG_BCAST 0
#endif

__kernel void binary(__global const LG_DATA* a, __global const LG_DATA* b,
                     __global LG_DATA* out, int n, int na, int nb, float lo,
                     float hi, int d1, int d2, int d3, int sa0, int sa1,
                     int sa2, int sa3, int sb0, int sb1, int sb2, int sb3) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
#if LG_BCAST == 1
  const int i3 = i % d3;
  const int i2 = (i / d3) % d2;
  const int i1 = (i / (d3 * d2)) % d1;
  const int i0 = i / (d3 * d2 * d1);
  const lg_real x = LG_LOADR1(i0 * sa0 + i1 * sa1 + i2 * sa2 + i3 * sa3, a);
  const lg_real y = LG_LOADR1(i0 * sb0 + i1 * sb1 + i2 * sb2 + i3 * sb3, b);
#else
  const lg_real x = LG_LOADR1(na == n ? i : i % na, a);
  const lg_real y = LG_LOADR1(nb == n ? i : i % nb, b);
#endif
#if LG_OP == 1
  lg_real r = x - y;
#elif LG_OP == 2
  lg_real r = x * y;
#elif LG_OP == 3
  lg_real r = x / y;
#elif LG_OP == 4
  lg_real r = x > y ? x : y;
#elif LG_OP == 5
  lg_real r = x < y ? x : y;
#elif LG_OP == 6
  const lg_real d = x - y;
  lg_real r = d * d;
#elif LG_OP == 7
  lg_real r = x >= (lg_real)0.0f ? x : y * x;
#elif LG_OP == 8
  lg_real r = (lg_real)pow((float)x, (float)y);
#else
  lg_real r = x + y;
#endif
  if (r < (lg_real)lo) r = (lg_real)lo;
  if (r > (lg_real)hi) r = (lg_real)hi;
#ifdef LG_ACT_TANH
  r = (lg_real)tanh((float)r);
#endif
  LG_STORER1(r, i, out);
}
