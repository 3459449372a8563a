// MediaPipe's MaxUnpooling2D on NHWC float32 (float16 data under LG_FP16,
// lg_types.glsl): the Vulkan twin of shaders/opencl/max_unpool.cl, same
// arguments and results.
//
// Buffers: in, positions, out. Push constants: in_h, in_w, channels,
// out_h, out_w, rows, stride_h, stride_w, filter_h, filter_w, pad_h,
// pad_w. Invocation (c, ox, r) gathers channel c of output pixel (batch
// r / out_h, row r % out_h, column ox): among the input pixels whose
// windows (starting at y * stride - pad) cover it, latest first, the first
// whose position (y * filter_w + x; outside [0, filter_h * filter_w)
// ignored) lands on it gives the value; else 0. The global size may be
// rounded up: every invocation checks its index.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, set = 0, binding = 0) readonly buffer Input { lg_store src[]; };
layout(std430, set = 0, binding = 1) readonly buffer Positions {
  lg_store positions[];
};
layout(std430, set = 0, binding = 2) writeonly buffer Output {
  lg_store dst[];
};

layout(push_constant) uniform Params {
  int in_h;
  int in_w;
  int channels;
  int out_h;
  int out_w;
  int rows;
  int stride_h;
  int stride_w;
  int filter_h;
  int filter_w;
  int pad_h;
  int pad_w;
} p;

void main() {
  const int c = int(gl_GlobalInvocationID.x);
  const int ox = int(gl_GlobalInvocationID.y);
  const int r = int(gl_GlobalInvocationID.z);
  if (c >= p.channels || ox >= p.out_w || r >= p.rows) return;
  const int b = r / p.out_h;
  const int oy = r - b * p.out_h;
  const float count = float(p.filter_h * p.filter_w);
  float value = 0.0;
  bool found = false;
  const int y_hi = min((oy + p.pad_h) / p.stride_h, p.in_h - 1);
  for (int y = y_hi; y >= 0 && !found; --y) {
    const int dy = oy - (y * p.stride_h - p.pad_h);
    if (dy >= p.filter_h) break;
    const int x_hi = min((ox + p.pad_w) / p.stride_w, p.in_w - 1);
    for (int x = x_hi; x >= 0 && !found; --x) {
      const int dx = ox - (x * p.stride_w - p.pad_w);
      if (dx >= p.filter_w) break;
      const int i = ((b * p.in_h + y) * p.in_w + x) * p.channels + c;
      const float at = float(positions[i]);
      if (!(at >= 0.0 && at < count)) continue;
      if (int(at) == dy * p.filter_w + dx) {
        value = float(src[i]);
        found = true;
      }
    }
  }
  dst[(r * p.out_w + ox) * p.channels + c] = lg_store(value);
}
