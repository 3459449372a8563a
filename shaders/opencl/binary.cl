/* out[i] = act(op(a[i % na], b[i % nb])) over n elements (float32).
 *
 * An operand with fewer elements than n is broadcast: its shape is the
 * output's trailing dims (or a single element), so the flat index modulo its
 * size addresses it.
 *
 * Defines:
 *   LG_OP  0 add (default), 1 sub, 2 mul, 3 div, 4 maximum, 5 minimum,
 *          6 squared difference.
 * Arguments lo/hi are the fused activation's range (NONE is
 * [-FLT_MAX, FLT_MAX]); NaN passes the clamp, as on the CPU.
 * The global size may be rounded up past n: every work item checks it. */
#ifndef LG_OP
#define LG_OP 0
#endif

__kernel void binary(__global const float* a, __global const float* b,
                     __global float* out, int n, int na, int nb, float lo,
                     float hi) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  const float x = a[na == n ? i : i % na];
  const float y = b[nb == n ? i : i % nb];
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
#else
  float r = x + y;
#endif
  if (r < lo) r = lo;
  if (r > hi) r = hi;
  out[i] = r;
}
