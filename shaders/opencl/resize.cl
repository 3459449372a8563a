/* RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR on NHWC float tensor buffers
 * (lg_types.cl; bilinear weights and sums are float in every precision).
 *
 * The source coordinates are computed on the host, exactly as the CPU
 * kernel computes them, into `table` (ints):
 *   bilinear: per output row oy, entries 3 * oy + {0, 1, 2} = lower row,
 *     upper row, and the float bits of the weight dy = src - lower; then
 *     the same per output column, from entry 3 * out_h;
 *   nearest: the source row of each output row, then from entry out_h the
 *     source column of each output column.
 * Work item (cv, ox, r): channels [cv * LG_VEC, cv * LG_VEC + LG_VEC) of
 * output pixel (batch r / out_h, row r % out_h, column ox).
 *
 * LG_NEAREST copies the elements' bits unchanged (LG_BITS); otherwise
 *   out = p00 * wy * wx + p10 * dy * wx + p01 * wy * dx + p11 * dy * dx
 * with wy = 1 - dy, wx = 1 - dx, in the CPU kernel's order and without
 * contraction, so results agree bit for bit.
 * LG_VEC 4 (channels % 4 == 0) or 1. The global size may be rounded up:
 * every work item checks its index. */
#pragma OPENCL FP_CONTRACT OFF

#ifndef LG_VEC
#define LG_VEC 1
#endif

#if LG_VEC == 4
typedef float4 lg_floatv;
#define LG_LOAD(p, i) LG_LOAD4(0, (p) + (i))
#define LG_STORE(v, p, i) LG_STORE4((v), 0, (p) + (i))
#define LG_COPY(src, dst)                                    \
  vstore4(vload4(0, (__global const LG_BITS*)in + (src)), 0, \
          (__global LG_BITS*)out + (dst))
#else
typedef float lg_floatv;
#define LG_LOAD(p, i) LG_LOAD1(i, p)
#define LG_STORE(v, p, i) LG_STORE1(v, i, p)
#define LG_COPY(src, dst) \
  (((__global LG_BITS*)out)[dst] = ((__global const LG_BITS*)in)[src])
#endif

__kernel void resize(__global const LG_DATA* in, __global LG_DATA* out,
                     __global const int* table, int in_h, int in_w, int vectors,
                     int out_h, int out_w, int rows) {
  const int cv = (int)get_global_id(0);
  const int ox = (int)get_global_id(1);
  const int r = (int)get_global_id(2);
  if (cv >= vectors || ox >= out_w || r >= rows) return;
  const int channels = vectors * LG_VEC;
  const int b = r / out_h;
  const int oy = r - b * out_h;
  const int c = cv * LG_VEC;
  const int dst = (r * out_w + ox) * channels + c;
#ifdef LG_NEAREST
  const int y = table[oy];
  const int x = table[out_h + ox];
  const int src = ((b * in_h + y) * in_w + x) * channels + c;
  LG_COPY(src, dst);
#else
  const int y0 = table[3 * oy], y1 = table[3 * oy + 1];
  const float dy = as_float(table[3 * oy + 2]);
  const int tx = 3 * (out_h + ox);
  const int x0 = table[tx], x1 = table[tx + 1];
  const float dx = as_float(table[tx + 2]);
  const float wy = 1.0f - dy, wx = 1.0f - dx;
  const int row0 = (b * in_h + y0) * in_w;
  const int row1 = (b * in_h + y1) * in_w;
  const lg_floatv p00 = LG_LOAD(in, (row0 + x0) * channels + c);
  const lg_floatv p01 = LG_LOAD(in, (row0 + x1) * channels + c);
  const lg_floatv p10 = LG_LOAD(in, (row1 + x0) * channels + c);
  const lg_floatv p11 = LG_LOAD(in, (row1 + x1) * channels + c);
  const lg_floatv v =
      p00 * wy * wx + p10 * dy * wx + p01 * wy * dx + p11 * dy * dx;
  LG_STORE(v, out, dst);
#endif
}
