// MediaPipe's MaxPoolingWithArgmax2D on NHWC float32 (float16 data under
// LG_FP16, lg_types.glsl): the Vulkan twin of shaders/opencl/pool_argmax.cl,
// same arguments and results.
//
// Buffers: in, out, positions. Push constants: in_h, in_w, channels, out_h,
// out_w, rows, stride_h, stride_w, filter_h, filter_w, pad_h, pad_w, lo,
// hi. Invocation (c, ox, r): channel c of output pixel (batch r / out_h,
// row r % out_h, column ox); the window starts at o * stride - pad and
// skips positions outside the input. The first maximum in (row, column)
// order wins and NaN never does; the value is clamped to [lo, hi] and its
// position written as y * filter_w + x + 0.1. The global size may be
// rounded up: every invocation checks its index.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, set = 0, binding = 0) readonly buffer Input { lg_store src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Output {
  lg_store dst[];
};
layout(std430, set = 0, binding = 2) writeonly buffer Positions {
  lg_store positions[];
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
  float lo;
  float hi;
} p;

#include "lg_vec.glsl"

void main() {
  const int c = int(gl_GlobalInvocationID.x);
  const int ox = int(gl_GlobalInvocationID.y);
  const int r = int(gl_GlobalInvocationID.z);
  if (c >= p.channels || ox >= p.out_w || r >= p.rows) return;
  const int b = r / p.out_h;
  const int oy = r - b * p.out_h;
  const int y0 = oy * p.stride_h - p.pad_h;
  const int x0 = ox * p.stride_w - p.pad_w;
  float best = -LG_FLT_MAX;
  int best_at = 0;
  for (int fy = 0; fy < p.filter_h; ++fy) {
    const int y = y0 + fy;
    if (y < 0 || y >= p.in_h) continue;
    for (int fx = 0; fx < p.filter_w; ++fx) {
      const int x = x0 + fx;
      if (x < 0 || x >= p.in_w) continue;
      const float v = float(src[((b * p.in_h + y) * p.in_w + x) * p.channels + c]);
      if (v > best) {
        best = v;
        best_at = fy * p.filter_w + fx;
      }
    }
  }
  const int o = (r * p.out_w + ox) * p.channels + c;
  dst[o] = lg_store(best < p.lo ? p.lo : (best > p.hi ? p.hi : best));
  positions[o] = lg_store(float(best_at) + 0.1);
}
