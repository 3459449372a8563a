/* GATHER along one axis (batch_dims 0), float params (a float tensor
 * buffer, lg_types.cl, moved as bits), int32 indices:
 *   out[z, y, x] = params[z, indices[y], x]
 * with params viewed as [outer, axis_size, inner] and the output as
 * [outer, coords, inner]; work item (x, y, z) is (inner, coord, outer).
 *
 * Out-of-range indices: the CPU kernel fails the Invoke; a device cannot
 * report that, so an index outside [0, axis_size) is clamped to the nearest
 * valid one (a valid model never has one, and no read leaves params). The
 * global size may be rounded up past the sizes: every work item checks its
 * index. */
__kernel void shape_gather(__global const LG_DATA* params,
                           __global const int* indices, __global LG_DATA* out,
                           int inner, int coords, int outer, int axis_size) {
  const int x = (int)get_global_id(0);
  const int y = (int)get_global_id(1);
  const int z = (int)get_global_id(2);
  if (x >= inner || y >= coords || z >= outer) return;
  const int k = clamp(indices[y], 0, axis_size - 1);
  ((__global LG_BITS*)out)[(z * coords + y) * inner + x] =
      ((__global const LG_BITS*)params)[(z * axis_size + k) * inner + x];
}
