// dst[o] = src[s] over an up-to-6-D iteration space (float32, or float16
// under LG_FP16: lg_types.glsl), the data movement of the shape ops: the
// Vulkan twin of shaders/opencl/remap.cl, same arguments, defines and
// results (delegates/gpu/lower_shape.c builds the tables; the layout
// constants live in delegates/gpu/lower_shape_internal.h).
//
// Buffers: src, dst, table (ints). Push constants: job, value, lo, hi.
// The table of one dispatch starts at table[job]:
//   [0] src_base  [1] dst_base  [2] z_count (product of the sizes of dims
//   0..3), then 7 fields per dim d = 0..5, outermost first, at 3 + 7 * d:
//   size, src_stride, dst_stride, start, step, src_dim, mode.
//   o = dst_base + sum(i_d * dst_stride_d)
//   s = src_base + sum(c_d * src_stride_d), c_d = start_d + i_d * step_d
// Invocation (x, y, z) moves up to CHUNK elements along dim 5 from index
// x * CHUNK, at index y of dim 4; z walks dims 0..3. Unused outer dims
// have size 1.
//
// LG_MODES 0: every dim is plain (the host folds starts and steps into
// src_base and the strides, so c_d = i_d). LG_MODES 1: mode selects what
// happens to a coordinate c outside [0, src_dim):
//   0 plain (never outside), 1 constant (the element is `value`: PAD),
//   2 reflect (edge not repeated), 3 symmetric (edge repeated): MIRROR_PAD,
//   4 modulo (TILE; C's remainder, as in OpenCL).
// Mirrored and wrapped coordinates are clamped into [0, src_dim) as well,
// so no table makes a read leave the source. LG_CLAMP clamps the result to
// [lo, hi] (a fused activation; NaN passes, as on the CPU). The global size
// may be rounded up past the sizes: every invocation checks its index.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int LG_MODES = 0;
layout(constant_id = 4) const int LG_CLAMP = 0;

layout(std430, set = 0, binding = 0) readonly buffer Source { lg_store src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dest { lg_store dst[]; };
layout(std430, set = 0, binding = 2) readonly buffer Table { int table[]; };

layout(push_constant) uniform Params {
  int job;
  float value;
  float lo;
  float hi;
} p;

#include "lg_vec.glsl"

// remap.cl's LG_CHUNK (lower_shape_internal.h's LG_REMAP_CHUNK).
const int CHUNK = 8;
const int HEADER = 3;
const int FIELDS = 7;
const int SIZE = 0;
const int SRC_STRIDE = 1;
const int DST_STRIDE = 2;
const int START = 3;
const int STEP = 4;
const int SRC_DIM = 5;
const int MODE = 6;

int field(int d, int f) { return table[p.job + HEADER + d * FIELDS + f]; }

// The table's fields of every dim, read once at the top of main, before
// any branch: their addresses are then uniform and outside control flow,
// so Mesa's lavapipe loads each once for all lanes instead of lane by lane
// (and the element loop below no longer reloads them).
int f_size[6], f_src_stride[6], f_dst_stride[6], f_start[6], f_step[6],
    f_src_dim[6], f_mode[6];

void load_fields() {
  for (int d = 0; d < 6; ++d) {
    f_size[d] = field(d, SIZE);
    f_src_stride[d] = field(d, SRC_STRIDE);
    f_dst_stride[d] = field(d, DST_STRIDE);
    f_start[d] = field(d, START);
    f_step[d] = field(d, STEP);
    f_src_dim[d] = field(d, SRC_DIM);
    f_mode[d] = field(d, MODE);
  }
}

// The source offset of index i along dim d. Plain without LG_MODES; with
// it, sets `outside` when a constant dim's coordinate leaves the source.
int source(int d, int i, inout bool outside) {
  if (LG_MODES == 0) return i * f_src_stride[d];
  int c = f_start[d] + i * f_step[d];
  const int n = f_src_dim[d];
  const int mode = f_mode[d];
  if (mode == 1) {
    if (c < 0 || c >= n) {
      outside = true;
      c = 0;
    }
  } else if (mode == 2 || mode == 3) {
    const int edge = mode == 2 ? 0 : 1;
    if (c < 0) c = -c - edge;
    if (c >= n) c = 2 * n - 2 + edge - c;
    c = clamp(c, 0, n - 1);
  } else if (mode == 4) {
    c = clamp(lg_rem(c, n), 0, n - 1);
  }
  return c * f_src_stride[d];
}

// The clamp (in float32) and the conversion to the storage type.
lg_store finish(float v) {
  return lg_store(LG_CLAMP != 0 ? lg_clamp_act(v, p.lo, p.hi) : v);
}

void main() {
  const int t = p.job;
  load_fields();
  const int src_base = table[t], dst_base = table[t + 1];
  const int z_count = table[t + 2];
  const int n5 = f_size[5];
  const int x0 = int(gl_GlobalInvocationID.x) * CHUNK;
  const int y = int(gl_GlobalInvocationID.y);
  const int z = int(gl_GlobalInvocationID.z);
  if (x0 >= n5 || y >= f_size[4] || z >= z_count) return;
  const int n3 = f_size[3], n2 = f_size[2];
  const int n1 = f_size[1];
  const int i3 = z % n3;
  const int i2 = (z / n3) % n2;
  const int i1 = (z / (n3 * n2)) % n1;
  const int i0 = z / (n3 * n2 * n1);
  bool outside = false;
  const int o = dst_base + i0 * f_dst_stride[0] + i1 * f_dst_stride[1] +
                i2 * f_dst_stride[2] + i3 * f_dst_stride[3] +
                y * f_dst_stride[4];
  const int s = src_base + source(0, i0, outside) + source(1, i1, outside) +
                source(2, i2, outside) + source(3, i3, outside) +
                source(4, y, outside);
  const int count = min(CHUNK, n5 - x0);
  const int ds5 = f_dst_stride[5];
  for (int i = 0; i < count; ++i) {
    bool out_i = outside;
    const int s5 = source(5, x0 + i, out_i);
    const float v = out_i ? p.value : float(src[s + s5]);
    dst[o + (x0 + i) * ds5] = finish(v);
  }
}
