/* dst[i] = src[i] over n float tensor elements (lg_types.cl), moved as
 * bits. The global size may be rounded up past n: every work item checks
 * its index. */
__kernel void copy(__global const LG_DATA* src, __global LG_DATA* dst, int n) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  ((__global LG_BITS*)dst)[i] = ((__global const LG_BITS*)src)[i];
}
