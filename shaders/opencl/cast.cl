/* out[i] = (LG_DST)x[i] over n elements. LG_SRC/LG_DST: float, int or
 * uchar (bool); a bool result is x != 0; float to int truncates toward
 * zero, as C's conversion. A float side is a float tensor buffer
 * (lg_types.cl: half with LG_FP16), the others stay as named. */
#ifndef LG_SRC
#define LG_SRC int
#endif
#ifndef LG_DST
#define LG_DST float
#endif

/* LG_CAT(LG_IS_, T) is 1 for T = float and 0 (undefined) otherwise. */
#define LG_IS_float 1

#if LG_CAT(LG_IS_, LG_SRC)
#define SRC_T LG_DATA
#define LOAD(i, p) LG_LOAD1(i, p)
#else
#define SRC_T LG_SRC
#define LOAD(i, p) ((p)[i])
#endif
#if LG_CAT(LG_IS_, LG_DST)
#define DST_T LG_DATA
#define STORE(v, i, p) LG_STORE1(v, i, p)
#else
#define DST_T LG_DST
#define STORE(v, i, p) ((p)[i] = (v))
#endif

__kernel void cast(__global const SRC_T* x, __global DST_T* out, int n) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  const LG_SRC v = LOAD(i, x);
#ifdef LG_DST_BOOL
  out[i] = v != (LG_SRC)0 ? (uchar)1 : (uchar)0;
#else
  STORE((LG_DST)v, i, out);
#endif
}
