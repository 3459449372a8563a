/* out[y * width + x] = y * width + x over a width x height grid: a 2-D
 * kernel for tests of work-group selection. The global size may be rounded
 * up past the grid: every work item checks its index. */
__kernel void fill2d(__global float* out, int width, int height) {
  const int x = (int)get_global_id(0);
  const int y = (int)get_global_id(1);
  if (x >= width || y >= height) return;
  out[y * width + x] = (float)(y * width + x);
}
