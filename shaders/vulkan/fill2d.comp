// out[y * width + x] = y * width + x over a width x height grid: the Vulkan
// twin of shaders/opencl/fill2d.cl, a 2-D kernel for tests of work-group
// selection and of dispatches split past maxComputeWorkGroupCount.
// Buffers: out. Push constants: width, height. The global size may be
// rounded up past the grid: every invocation checks its index.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, set = 0, binding = 0) writeonly buffer Output { float o[]; };

layout(push_constant) uniform Params {
  int width;
  int height;
} p;

void main() {
  const uint x = gl_GlobalInvocationID.x;
  const uint y = gl_GlobalInvocationID.y;
  if (x >= uint(p.width) || y >= uint(p.height)) return;
  o[y * uint(p.width) + x] = float(y * uint(p.width) + x);
}
