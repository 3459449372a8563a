// SOFTMAX over the last axis, float32, rows of `depth` contiguous elements:
// the Vulkan twin of shaders/opencl/softmax.cl, same arguments, defines and
// results.
//
// Buffers: in, out. Push constants: rows, depth, beta.
// As the CPU kernel: max = the row's maximum, folded from -FLT_MAX taking
// only greater values (NaN is skipped); e[c] = exp((x[c] - max) * beta)
// (lg_math.glsl's precise exp); out[c] = e[c] / sum(e). A NaN in a row makes
// the row NaN through the sum.
//
// LG_WG 0 (no define): one invocation computes a row, summing in the CPU's
// order. LG_WG > 0 (a power of two, the local size): one work group of
// LG_WG invocations computes a row: each strides over the row, then the
// partial maxima and sums are combined in shared memory. The global size is
// then rows * LG_WG. Global sizes may be rounded up: invocations check.
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int LG_WG = 0;

layout(std430, set = 0, binding = 0) readonly buffer Input { float src[]; };
// Read back: each row's exponentials are stored, then divided in place.
layout(std430, set = 0, binding = 1) buffer Output { float dst[]; };

layout(push_constant) uniform Params {
  int rows;
  int depth;
  float beta;
} p;

#include "lg_vec.glsl"

const int PART_SIZE = LG_WG > 0 ? LG_WG : 1;
shared float part[PART_SIZE];

// One work group per row.
void softmax_group() {
  const int r = int(gl_WorkGroupID.x);
  const int lid = int(gl_LocalInvocationID.x);
  if (r >= p.rows) return;  // the whole group leaves together
  const int x = r * p.depth;
  float m = -LG_FLT_MAX;
  for (int c = lid; c < p.depth; c += LG_WG) {
    m = m < src[x + c] ? src[x + c] : m;
  }
  part[lid] = m;
  barrier();
  for (int s = LG_WG / 2; s > 0; s >>= 1) {
    if (lid < s && part[lid] < part[lid + s]) part[lid] = part[lid + s];
    barrier();
  }
  m = part[0];
  barrier();  // everyone has read part[0]
  float sum = 0.0;
  for (int c = lid; c < p.depth; c += LG_WG) {
    const float e = lg_exp((src[x + c] - m) * p.beta);
    dst[x + c] = e;
    sum += e;
  }
  part[lid] = sum;
  barrier();
  for (int s = LG_WG / 2; s > 0; s >>= 1) {
    if (lid < s) part[lid] += part[lid + s];
    barrier();
  }
  sum = part[0];
  // Each invocation divides the elements it wrote itself.
  for (int c = lid; c < p.depth; c += LG_WG) dst[x + c] = dst[x + c] / sum;
}

void main() {
  if (LG_WG > 0) {
    softmax_group();
    return;
  }
  const int r = int(gl_GlobalInvocationID.x);
  if (r >= p.rows) return;
  const int x = r * p.depth;
  float m = -LG_FLT_MAX;
  for (int c = 0; c < p.depth; ++c) m = m < src[x + c] ? src[x + c] : m;
  float sum = 0.0;
  for (int c = 0; c < p.depth; ++c) {
    const float e = lg_exp((src[x + c] - m) * p.beta);
    dst[x + c] = e;
    sum += e;
  }
  for (int c = 0; c < p.depth; ++c) dst[x + c] = dst[x + c] / sum;
}
