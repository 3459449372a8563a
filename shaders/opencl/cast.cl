/* out[i] = (LG_DST)x[i] over n elements. LG_SRC/LG_DST: float, int or
 * uchar (bool); a bool result is x != 0; float to int truncates toward
 * zero, as C's conversion. */
#ifndef LG_SRC
#define LG_SRC int
#endif
#ifndef LG_DST
#define LG_DST float
#endif

__kernel void cast(__global const LG_SRC* x, __global LG_DST* out, int n) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
#ifdef LG_DST_BOOL
  out[i] = x[i] != (LG_SRC)0 ? (uchar)1 : (uchar)0;
#else
  out[i] = (LG_DST)x[i];
#endif
}
