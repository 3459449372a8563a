/* SOFTMAX over the last axis, on float tensor buffers (lg_types.cl; max,
 * exponentials and the sum are float in every precision): rows of `depth`
 * contiguous elements.
 *
 * As the CPU kernel: max = the row's maximum, folded from -FLT_MAX taking
 * only greater values (NaN is skipped); e[c] = exp((x[c] - max) * beta);
 * out[c] = e[c] / sum(e). A NaN in a row makes the row NaN through the sum.
 *
 * Without LG_WG one work item computes a row, summing in the CPU's order.
 * With LG_WG (a power of two, the fixed local size) one work group of
 * LG_WG items computes a row: each item strides over the row, then the
 * partial maxima and sums are combined in local memory (the sum's order
 * differs from the CPU's; every output is at most 1, and the sum's relative
 * rounding error stays far below the 1e-5 bound). The global size is then
 * rows * LG_WG. Global sizes may be rounded up: work items check. */

__kernel void softmax(__global const LG_DATA* in, __global LG_DATA* out,
                      int rows, int depth, float beta) {
#ifdef LG_WG
  __local float part[LG_WG];
  const int r = (int)get_group_id(0);
  const int lid = (int)get_local_id(0);
  if (r >= rows) return; /* the whole group leaves together */
  const __global LG_DATA* x = in + (size_t)r * (size_t)depth;
  __global LG_DATA* y = out + (size_t)r * (size_t)depth;
  float m = -FLT_MAX;
  for (int c = lid; c < depth; c += LG_WG) {
    const float v = LG_LOAD1(c, x);
    m = m < v ? v : m;
  }
  part[lid] = m;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = LG_WG / 2; s > 0; s >>= 1) {
    if (lid < s && part[lid] < part[lid + s]) part[lid] = part[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  m = part[0];
  barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read part[0] */
  float sum = 0.0f;
  for (int c = lid; c < depth; c += LG_WG) {
    const float e = exp((LG_LOAD1(c, x) - m) * beta);
    LG_STORE1(e, c, y);
    sum += e;
  }
  part[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = LG_WG / 2; s > 0; s >>= 1) {
    if (lid < s) part[lid] += part[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  sum = part[0];
  /* Each item divides the elements it wrote itself. */
  for (int c = lid; c < depth; c += LG_WG) {
    LG_STORE1(LG_LOAD1(c, y) / sum, c, y);
  }
#else
  const int r = (int)get_global_id(0);
  if (r >= rows) return;
  const __global LG_DATA* x = in + (size_t)r * (size_t)depth;
  __global LG_DATA* y = out + (size_t)r * (size_t)depth;
  float m = -FLT_MAX;
  for (int c = 0; c < depth; ++c) {
    const float v = LG_LOAD1(c, x);
    m = m < v ? v : m;
  }
  float sum = 0.0f;
  for (int c = 0; c < depth; ++c) {
    const float e = exp((LG_LOAD1(c, x) - m) * beta);
    LG_STORE1(e, c, y);
    sum += e;
  }
  for (int c = 0; c < depth; ++c) LG_STORE1(LG_LOAD1(c, y) / sum, c, y);
#endif
}
