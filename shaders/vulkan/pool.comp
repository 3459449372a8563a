// AVERAGE_POOL_2D / MAX_POOL_2D on NHWC float32 (float16 data with float32
// sums under LG_FP16, lg_types.glsl): the Vulkan twin of
// shaders/opencl/pool.cl, same arguments, defines and results.
//
// Buffers: in, out. Push constants: in_h, in_w, vectors, out_h, out_w,
// rows, stride_h, stride_w, filter_h, filter_w, pad_h, pad_w, lo, hi.
// Invocation (cv, ox, r): channels [cv * LG_VEC, cv * LG_VEC + LG_VEC) of
// output pixel (batch r / out_h, row r % out_h, column ox). The window of
// output index o along a dim starts at o * stride - pad and is cut at the
// input's edges; only its valid elements count, folded in (row, column)
// order as the CPU kernel folds them.
// LG_MAX 0 average (sum / number of valid elements), 1 max (from -FLT_MAX,
//   taking only greater values: NaN is skipped).
// LG_VEC 4 (channels % 4 == 0, a vec4 per invocation) or 1.
// lo/hi: the fused activation's clamp (NaN passes); LG_ACT_TANH applies
// tanh after it. The global size may be rounded up: every invocation
// checks its index.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int LG_MAX = 0;
layout(constant_id = 4) const int LG_VEC = 1;
layout(constant_id = 5) const int LG_ACT_TANH = 0;

layout(std430, set = 0, binding = 0) readonly buffer Input { lg_store src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Output {
  lg_store dst[];
};

layout(push_constant) uniform Params {
  int in_h;
  int in_w;
  int vectors;
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

// LG_VEC floats from src[i] (the other lanes 0).
vec4 load_vec(int i) {
  if (LG_VEC == 4) return vec4(src[i], src[i + 1], src[i + 2], src[i + 3]);
  return vec4(src[i], 0.0, 0.0, 0.0);
}

void store_vec(vec4 v, int i) {
  const lg_store4 h = lg_store4(v);
  dst[i] = h.x;
  if (LG_VEC == 4) {
    dst[i + 1] = h.y;
    dst[i + 2] = h.z;
    dst[i + 3] = h.w;
  }
}

void main() {
  const int cv = int(gl_GlobalInvocationID.x);
  const int ox = int(gl_GlobalInvocationID.y);
  const int r = int(gl_GlobalInvocationID.z);
  if (cv >= p.vectors || ox >= p.out_w || r >= p.rows) return;
  const int channels = p.vectors * LG_VEC;
  const int b = r / p.out_h;
  const int oy = r - b * p.out_h;
  // The valid window: rows [y, y + nh), columns [x, x + nw).
  const int origin_y = oy * p.stride_h - p.pad_h;
  const int origin_x = ox * p.stride_w - p.pad_w;
  const int fy0 = origin_y < 0 ? -origin_y : 0;
  const int fx0 = origin_x < 0 ? -origin_x : 0;
  const int fy1 = min(p.in_h - origin_y, p.filter_h);
  const int fx1 = min(p.in_w - origin_x, p.filter_w);
  const int nh = fy1 - fy0;
  const int nw = fx1 - fx0;
  const int y = origin_y + fy0;
  const int x = origin_x + fx0;
  vec4 acc = vec4(LG_MAX != 0 ? -LG_FLT_MAX : 0.0);
  for (int fy = 0; fy < nh; ++fy) {
    int offset = ((b * p.in_h + y + fy) * p.in_w + x) * channels + cv * LG_VEC;
    for (int fx = 0; fx < nw; ++fx, offset += channels) {
      const vec4 v = load_vec(offset);
      acc = LG_MAX != 0 ? lg_max_step4(acc, v) : acc + v;
    }
  }
  vec4 res = LG_MAX != 0 ? acc : acc / float(nh * nw);
  res = lg_clamp_act4(res, p.lo, p.hi);
  if (LG_ACT_TANH != 0) {
    res = LG_VEC == 4 ? lg_tanh4(res) : vec4(lg_tanh(res.x));
  }
  store_vec(res, (r * p.out_w + ox) * channels + cv * LG_VEC);
}
