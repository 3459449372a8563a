// out[y * width + x] = y * width + x over a width x height grid (float32,
// or float16 under LG_FP16: lg_types.glsl; exact below 2048): the Vulkan
// twin of shaders/opencl/fill2d.cl, a 2-D kernel for tests of work-group
// selection and of dispatches split past maxComputeWorkGroupCount.
// Buffers: out. Push constants: width, height. The global size may be
// rounded up past the grid: every invocation checks its index.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, set = 0, binding = 0) writeonly buffer Output { lg_store o[]; };

layout(push_constant) uniform Params {
  int width;
  int height;
} p;

void main() {
  const uint x = gl_GlobalInvocationID.x;
  const uint y = gl_GlobalInvocationID.y;
  if (x >= uint(p.width) || y >= uint(p.height)) return;
  o[y * uint(p.width) + x] = lg_store(float(y * uint(p.width) + x));
}
