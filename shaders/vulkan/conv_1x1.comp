// 1x1 convolution, stride 1, no padding (float32; float16 data with float32
// sums under LG_FP16, lg_types.glsl), a GEMM over pixels: the
// Vulkan twin of shaders/opencl/conv_1x1.cl, same arguments, defines and
// results:
//   out[p, o] = act(sum_k in[p, k] * w[o, k] + bias[o])
// for p < pixels (batch * height * width, NHWC rows of `ic` floats).
//
// Buffers: in, w, bias, out, res. Push constants: pixels, ic, oc, lo, hi.
// Invocation (i, j) computes LG_PIX consecutive pixels [i * LG_PIX,
// +LG_PIX) times one block of LG_OB = LG_W * LG_NV output channels
// [j * LG_OB, +LG_OB); LG_OC_FAST swaps the two global dims (invocation
// (j, i)), so neighbouring invocations share their pixels. OpenCL holds
// the whole block as LG_PIX x LG_NV vectors of LG_W floats; here the block
// is LG_OB / 4 quads (LG_W a multiple of 4: the lowering uses 16) computed
// one after the other, each as LG_PIX vec4 accumulators over the whole ic
// loop. Each output still sums its products in the OpenCL kernel's order
// (k ascending, fused multiply-adds), so results agree; the quad loop only
// keeps few values live: with all LG_PIX x LG_OB accumulators live, Mesa's
// lavapipe took 15-35 s to compile one pipeline.
//   w:    packed on the host as [oc_pad / LG_OB][ic][LG_OB] (zero padded),
//   bias: [oc_pad] (zeros without a bias).
// Pixels past the end read the last pixel and are not written; channels
// past `oc` are computed on the zero padding and not written. LG_ALIGNED
// (oc a multiple of LG_W) only picks OpenCL's store instruction: accepted,
// nothing to do here.
// lo/hi: the fused activation's clamp (NaN passes); LG_ACT_TANH applies
// tanh after it. LG_RESIDUAL adds res[p, o] (a following ADD absorbed by
// the lowering) before the activation; without it `res` is not read. The
// global size may be rounded up: every invocation checks.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int LG_W = 16;
layout(constant_id = 4) const int LG_NV = 2;
layout(constant_id = 5) const int LG_PIX = 8;
layout(constant_id = 6) const int LG_OC_FAST = 0;
layout(constant_id = 7) const int LG_ALIGNED = 0;
layout(constant_id = 8) const int LG_RESIDUAL = 0;
layout(constant_id = 9) const int LG_ACT_TANH = 0;

layout(std430, set = 0, binding = 0) readonly buffer Input { lg_store src[]; };
layout(std430, set = 0, binding = 1) readonly buffer Weights { lg_store w[]; };
layout(std430, set = 0, binding = 2) readonly buffer Bias { lg_store bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Output {
  lg_store dst[];
};
layout(std430, set = 0, binding = 4) readonly buffer Residual {
  lg_store res[];
};

layout(push_constant) uniform Params {
  int pixels;
  int ic;
  int oc;
  float lo;
  float hi;
} p;

#include "lg_vec.glsl"

// Output channels per invocation, and the vec4s that hold them.
const int OB = LG_W * LG_NV;
const int QUADS = OB / 4;

// The residual, the clamp (NaN passes), tanh, and the store of the 4
// channels from `at` of which `lanes` are below oc.
void store4(vec4 v, int at, int lanes) {
  if (LG_RESIDUAL != 0) {
    for (int l = 0; l < min(lanes, 4); ++l) v[l] += res[at + l];
  }
  v = lg_clamp_act4(v, p.lo, p.hi);
  if (LG_ACT_TANH != 0) v = lg_tanh4(v);
  const lg_store4 h = lg_store4(v);
  if (lanes >= 4) {
    dst[at] = h.x;
    dst[at + 1] = h.y;
    dst[at + 2] = h.z;
    dst[at + 3] = h.w;
  } else {
    for (int l = 0; l < lanes; ++l) dst[at + l] = h[l];
  }
}

vec4 load_w(int at) { return vec4(w[at], w[at + 1], w[at + 2], w[at + 3]); }

void main() {
  const uvec3 g = gl_GlobalInvocationID;
  const int p0 = int(LG_OC_FAST != 0 ? g.y : g.x) * LG_PIX;
  const int ob = int(LG_OC_FAST != 0 ? g.x : g.y);
  const int o0 = ob * OB;
  if (p0 >= p.pixels || o0 >= p.oc) return;
  int row[LG_PIX];
  for (int r = 0; r < LG_PIX; ++r) row[r] = min(p0 + r, p.pixels - 1) * p.ic;
  const int w0 = ob * p.ic * OB;
  vec4 acc[LG_PIX];
  for (int q = 0; q < QUADS; ++q) {
    for (int r = 0; r < LG_PIX; ++r) acc[r] = vec4(0.0);
    for (int k = 0; k < p.ic; ++k) {
      const vec4 wv = load_w(w0 + k * OB + 4 * q);
      for (int r = 0; r < LG_PIX; ++r) {
        acc[r] = fma(vec4(src[row[r] + k]), wv, acc[r]);
      }
    }
    const int i = o0 + 4 * q;
    const vec4 b = vec4(bias[i], bias[i + 1], bias[i + 2], bias[i + 3]);
    for (int r = 0; r < LG_PIX; ++r) {
      if (p0 + r >= p.pixels) break;
      store4(acc[r] + b, (p0 + r) * p.oc + i, p.oc - i);
    }
  }
}
