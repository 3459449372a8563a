// MEAN, SUM and REDUCE_MAX over any set of axes, float32 (float16 data with
// float32 sums under LG_FP16, lg_types.glsl): the Vulkan twin
// of shaders/opencl/reduce.cl, same arguments, defines and results.
//
// Buffers: in, out, plan (16 ints). Push constants: outputs, inner, mean,
// count. The host merges neighbouring dims that are both kept or both
// reduced into groups and writes `plan`:
//   [0..4)   kept group sizes outside the innermost group, outermost first
//   [4..8)   their input strides
//   [8..12)  reduced group sizes outside the innermost group
//   [12..16) their input strides
// padded at the front with size 1, stride 0. `inner` is the innermost
// group's extent (stride 1).
//
// Every output folds its elements in increasing input order, as the CPU
// kernel does, so sums and means agree with it bit for bit:
// LG_LAYOUT 0 the innermost group is kept: invocation (c, row) folds
//   outputs [c * LG_VEC, c * LG_VEC + LG_VEC) of output row `row` (LG_VEC 4
//   needs inner % 4 == 0) over every reduced position.
// LG_LAYOUT 1 the innermost group is reduced: invocation o folds output o,
//   a run of `inner` contiguous elements at every reduced position.
// LG_LAYOUT 2 (REDUCE_MAX only, whose result does not depend on the order)
//   one work group of LG_WG invocations (the local size, a power of two)
//   per output whose elements are one contiguous run of `inner`; the global
//   size is outputs * LG_WG.
// LG_MAX 0 sum, then divided by `count` when `mean` is nonzero; 1 max (from
//   -FLT_MAX, taking only greater values: NaN is skipped, as on the CPU).
// Global sizes may be rounded up: every invocation checks its index.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int LG_MAX = 0;
layout(constant_id = 4) const int LG_LAYOUT = 0;
layout(constant_id = 5) const int LG_VEC = 1;
layout(constant_id = 6) const int LG_WG = 1;

layout(std430, set = 0, binding = 0) readonly buffer Input { lg_store src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Output {
  lg_store dst[];
};
layout(std430, set = 0, binding = 2) readonly buffer Plan { int plan[]; };

layout(push_constant) uniform Params {
  int outputs;
  int inner;
  int mean;
  float count;
} p;

#include "lg_vec.glsl"

// Layout 2's partial maxima (one per invocation of the group).
shared float part[LG_WG];

const float INIT = LG_MAX != 0 ? -LG_FLT_MAX : 0.0;

float step1(float acc, float x) {
  return LG_MAX != 0 ? (x > acc ? x : acc) : acc + x;
}

vec4 step4(vec4 acc, vec4 x) {
  return LG_MAX != 0 ? lg_max_step4(acc, x) : acc + x;
}

// The input offset of kept position `index` (row-major over the kept
// groups).
int outer_offset(int index) {
  int offset = 0;
  for (int k = 3; k >= 0; --k) {
    const int size = plan[k];
    const int q = index / size;
    offset += (index - q * size) * plan[4 + k];
    index = q;
  }
  return offset;
}

// One work group per output (layout 2).
void reduce_group() {
  const int o = int(gl_WorkGroupID.x);
  const int lid = int(gl_LocalInvocationID.x);
  if (o >= p.outputs) return;  // the whole group leaves together
  const int x = outer_offset(o);
  float acc = INIT;
  for (int i = lid; i < p.inner; i += LG_WG) acc = step1(acc, src[x + i]);
  part[lid] = acc;
  barrier();
  for (int s = LG_WG / 2; s > 0; s >>= 1) {
    if (lid < s) part[lid] = step1(part[lid], part[lid + s]);
    barrier();
  }
  if (lid == 0) dst[o] = lg_store(p.mean != 0 ? part[0] / p.count : part[0]);
}

void main() {
  if (LG_LAYOUT == 2) {
    reduce_group();
    return;
  }
  const int n0 = plan[8], n1 = plan[9], n2 = plan[10], n3 = plan[11];
  const int s0 = plan[12], s1 = plan[13], s2 = plan[14], s3 = plan[15];
  int c = 0;
  int row;
  if (LG_LAYOUT == 0) {
    // outputs: the number of output rows; inner: the row length.
    c = int(gl_GlobalInvocationID.x) * LG_VEC;
    row = int(gl_GlobalInvocationID.y);
    if (c >= p.inner || row >= p.outputs) return;
  } else {
    row = int(gl_GlobalInvocationID.x);
    if (row >= p.outputs) return;
  }
  const int base = outer_offset(row) + c;
  vec4 acc = vec4(INIT);
  float acc1 = INIT;
  for (int i0 = 0, o0 = base; i0 < n0; ++i0, o0 += s0) {
    for (int i1 = 0, o1 = o0; i1 < n1; ++i1, o1 += s1) {
      for (int i2 = 0, o2 = o1; i2 < n2; ++i2, o2 += s2) {
        for (int i3 = 0, o3 = o2; i3 < n3; ++i3, o3 += s3) {
          if (LG_LAYOUT != 0) {
            for (int i = 0; i < p.inner; ++i) acc1 = step1(acc1, src[o3 + i]);
          } else if (LG_VEC == 4) {
            acc = step4(acc, vec4(src[o3], src[o3 + 1], src[o3 + 2],
                                  src[o3 + 3]));
          } else {
            acc1 = step1(acc1, src[o3]);
          }
        }
      }
    }
  }
  if (LG_LAYOUT == 0 && LG_VEC == 4) {
    const lg_store4 v = lg_store4(p.mean != 0 ? acc / p.count : acc);
    const int at = row * p.inner + c;
    dst[at] = v.x;
    dst[at + 1] = v.y;
    dst[at + 2] = v.z;
    dst[at + 3] = v.w;
  } else {
    dst[LG_LAYOUT == 0 ? row * p.inner + c : row] =
        lg_store(p.mean != 0 ? acc1 / p.count : acc1);
  }
}
