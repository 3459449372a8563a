// SOFTMAX over the last axis, float32, rows of `depth` contiguous elements:
// the Vulkan twin of shaders/opencl/softmax.cl, same arguments, defines and
// results. Under LG_FP16 (lg_types.glsl) the data is float16 and max, sum
// and exponentials are float32; the exponentials are computed again in the
// last pass instead of being stored as half and read back.
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
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int LG_WG = 0;

layout(std430, set = 0, binding = 0) readonly buffer Input { lg_store src[]; };
// Read back in float32: each row's exponentials are stored, then divided
// in place (under LG_FP16 it is written once).
layout(std430, set = 0, binding = 1) buffer Output { lg_store dst[]; };

layout(push_constant) uniform Params {
  int rows;
  int depth;
  float beta;
} p;

#include "lg_vec.glsl"

const int PART_SIZE = LG_WG > 0 ? LG_WG : 1;
shared float part[PART_SIZE];

// Element c of the row at x, in float32.
float at(int x, int c) { return float(src[x + c]); }

// The last pass: out = e / sum, e stored by the pass before (float32) or
// computed again (float16: no exponential rounded to half on the way).
void divide(int x, int c, float m, float sum) {
#ifdef LG_FP16
  dst[x + c] = lg_store(lg_exp((at(x, c) - m) * p.beta) / sum);
#else
  dst[x + c] = dst[x + c] / sum;
#endif
}

// The pass that sums: float32 stores its exponential for divide().
void keep(int x, int c, float e) {
#ifndef LG_FP16
  dst[x + c] = e;
#endif
}

// One work group per row.
void softmax_group() {
  const int r = int(gl_WorkGroupID.x);
  const int lid = int(gl_LocalInvocationID.x);
  if (r >= p.rows) return;  // the whole group leaves together
  const int x = r * p.depth;
  float m = -LG_FLT_MAX;
  for (int c = lid; c < p.depth; c += LG_WG) {
    m = m < at(x, c) ? at(x, c) : m;
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
    const float e = lg_exp((at(x, c) - m) * p.beta);
    keep(x, c, e);
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
  for (int c = lid; c < p.depth; c += LG_WG) divide(x, c, m, sum);
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
  for (int c = 0; c < p.depth; ++c) m = m < at(x, c) ? at(x, c) : m;
  float sum = 0.0;
  for (int c = 0; c < p.depth; ++c) {
    const float e = lg_exp((at(x, c) - m) * p.beta);
    keep(x, c, e);
    sum += e;
  }
  for (int c = 0; c < p.depth; ++c) divide(x, c, m, sum);
}
