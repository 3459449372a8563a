// GATHER along one axis (batch_dims 0), float32 params (float16 under
// LG_FP16, lg_types.glsl), int32 indices:
// the Vulkan twin of shaders/opencl/shape_gather.cl, same arguments and
// results:
//   out[z, y, x] = params[z, indices[y], x]
// with params viewed as [outer, axis_size, inner] and the output as
// [outer, coords, inner]; invocation (x, y, z) is (inner, coord, outer).
//
// Buffers: params, indices, out. Push constants: inner, coords, outer,
// axis_size. Elements are moved as raw bits, lg_bits (every bit pattern
// survives). An index outside [0, axis_size) is clamped to the nearest
// valid one (a valid model never has one, and no read leaves params). The
// global size may be rounded up past the sizes: every invocation checks
// its index.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, set = 0, binding = 0) readonly buffer Params {
  lg_bits params[];
};
layout(std430, set = 0, binding = 1) readonly buffer Indices { int indices[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Output { lg_bits dst[]; };

layout(push_constant) uniform Sizes {
  int inner;
  int coords;
  int outer;
  int axis_size;
} p;

void main() {
  const int x = int(gl_GlobalInvocationID.x);
  const int y = int(gl_GlobalInvocationID.y);
  const int z = int(gl_GlobalInvocationID.z);
  if (x >= p.inner || y >= p.coords || z >= p.outer) return;
  const int k = clamp(indices[y], 0, p.axis_size - 1);
  dst[(z * p.coords + y) * p.inner + x] =
      params[(z * p.axis_size + k) * p.inner + x];
}
