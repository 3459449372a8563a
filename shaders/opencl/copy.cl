/* dst[i] = src[i] over n float32 elements. The global size may be rounded
 * up past n: every work item checks its index. */
__kernel void copy(__global const float* src, __global float* dst, int n) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  dst[i] = src[i];
}
