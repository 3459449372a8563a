/* out[y * width + x] = y * width + x over a width x height grid of float
 * tensor elements (lg_types.cl): a 2-D kernel for tests of work-group
 * selection. The global size may be rounded up past the grid: every work
 * item checks its index. */
__kernel void fill2d(__global LG_DATA* out, int width, int height) {
  const int x = (int)get_global_id(0);
  const int y = (int)get_global_id(1);
  if (x >= width || y >= height) return;
  LG_STORE1((float)(y * width + x), y * width + x, out);
}
