// dst[i] = src[i] over n float32 elements (float16 under LG_FP16,
// lg_types.glsl): the Vulkan twin of shaders/opencl/copy.cl. Buffers: src,
// dst. Push constants: n. The global size may be rounded up past n: every
// invocation checks its index.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, set = 0, binding = 0) readonly buffer Source { lg_store src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dest { lg_store dst[]; };

layout(push_constant) uniform Params {
  int n;
} p;

void main() {
  const uint gi = gl_GlobalInvocationID.x;
  if (gi >= uint(p.n)) return;
  dst[gi] = src[gi];
}
