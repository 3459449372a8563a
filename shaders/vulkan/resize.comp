// RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR on NHWC float32 (float16 under
// LG_FP16, lg_types.glsl): the Vulkan twin of shaders/opencl/resize.cl,
// same arguments, defines and results.
//
// Buffers: in, out, table (ints). Push constants: in_h, in_w, vectors,
// out_h, out_w, rows. The source coordinates are computed on the host,
// exactly as the CPU kernel computes them, into `table`:
//   bilinear: per output row oy, entries 3 * oy + {0, 1, 2} = lower row,
//     upper row, and the float bits of the weight dy = src - lower; then
//     the same per output column, from entry 3 * out_h;
//   nearest: the source row of each output row, then from entry out_h the
//     source column of each output column.
// Invocation (cv, ox, r): channels [cv * LG_VEC, cv * LG_VEC + LG_VEC) of
// output pixel (batch r / out_h, row r % out_h, column ox).
//
// LG_NEAREST copies the elements unchanged (the buffers are read as raw
// bits, lg_bits, so every bit pattern survives); otherwise
//   out = p00 * wy * wx + p10 * dy * wx + p01 * wy * dx + p11 * dy * dx
// with wy = 1 - dy, wx = 1 - dx, in the CPU kernel's order and `precise`
// (no contraction into fma), so results agree bit for bit (under LG_FP16
// computed in float32 from the half inputs and rounded to half).
// LG_VEC 4 (channels % 4 == 0) or 1. The global size may be rounded up:
// every invocation checks its index.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int LG_VEC = 1;
layout(constant_id = 4) const int LG_NEAREST = 0;

layout(std430, set = 0, binding = 0) readonly buffer Input { lg_bits src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Output { lg_bits dst[]; };
layout(std430, set = 0, binding = 2) readonly buffer Table { int table[]; };

layout(push_constant) uniform Params {
  int in_h;
  int in_w;
  int vectors;
  int out_h;
  int out_w;
  int rows;
} p;

vec4 load_vec(int i) {
  if (LG_VEC == 4) {
    return vec4(lg_bits_to_float(src[i]), lg_bits_to_float(src[i + 1]),
                lg_bits_to_float(src[i + 2]), lg_bits_to_float(src[i + 3]));
  }
  return vec4(lg_bits_to_float(src[i]), 0.0, 0.0, 0.0);
}

void main() {
  const int cv = int(gl_GlobalInvocationID.x);
  const int ox = int(gl_GlobalInvocationID.y);
  const int r = int(gl_GlobalInvocationID.z);
  if (cv >= p.vectors || ox >= p.out_w || r >= p.rows) return;
  const int channels = p.vectors * LG_VEC;
  const int b = r / p.out_h;
  const int oy = r - b * p.out_h;
  const int c = cv * LG_VEC;
  const int at = (r * p.out_w + ox) * channels + c;
  if (LG_NEAREST != 0) {
    const int y = table[oy];
    const int x = table[p.out_h + ox];
    const int from = ((b * p.in_h + y) * p.in_w + x) * channels + c;
    for (int l = 0; l < LG_VEC; ++l) dst[at + l] = src[from + l];
    return;
  }
  const int y0 = table[3 * oy], y1 = table[3 * oy + 1];
  const float dy = intBitsToFloat(table[3 * oy + 2]);
  const int tx = 3 * (p.out_h + ox);
  const int x0 = table[tx], x1 = table[tx + 1];
  const float dx = intBitsToFloat(table[tx + 2]);
  precise const float wy = 1.0 - dy;
  precise const float wx = 1.0 - dx;
  const int row0 = (b * p.in_h + y0) * p.in_w;
  const int row1 = (b * p.in_h + y1) * p.in_w;
  const vec4 p00 = load_vec((row0 + x0) * channels + c);
  const vec4 p01 = load_vec((row0 + x1) * channels + c);
  const vec4 p10 = load_vec((row1 + x0) * channels + c);
  const vec4 p11 = load_vec((row1 + x1) * channels + c);
  precise const vec4 v =
      p00 * wy * wx + p10 * dy * wx + p01 * wy * dx + p11 * dy * dx;
  dst[at] = lg_float_to_bits(v.x);
  if (LG_VEC == 4) {
    dst[at + 1] = lg_float_to_bits(v.y);
    dst[at + 2] = lg_float_to_bits(v.z);
    dst[at + 3] = lg_float_to_bits(v.w);
  }
}
