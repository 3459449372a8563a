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

LG_TENSOR_IN(0, src);
LG_TENSOR_IN(1, w);
LG_TENSOR_IN(2, bias);
layout(std430, set = 0, binding = 3) writeonly buffer Output {
  lg_store dst[];
};
LG_TENSOR_IN(4, res);

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
    // Straight-line, as LG_STORE_LANES (see there).
    if (lanes > 0) v.x += lg_in(res, at);
    if (lanes > 1) v.y += lg_in(res, at + 1);
    if (lanes > 2) v.z += lg_in(res, at + 2);
    if (lanes > 3) v.w += lg_in(res, at + 3);
  }
  v = lg_clamp_act4(v, p.lo, p.hi);
  if (LG_ACT_TANH != 0) v = lg_tanh4(v);
  const lg_store4 h = lg_store4(v);
  LG_STORE_LANES(dst, at, h, lanes);
}

void main() {
  const uvec3 g = gl_GlobalInvocationID;
  const int p0 = int(LG_OC_FAST != 0 ? g.y : g.x) * LG_PIX;
  const int ob = int(LG_OC_FAST != 0 ? g.x : g.y);
  const int o0 = ob * OB;
  if (p0 >= p.pixels || o0 >= p.oc) return;
  int row[LG_PIX];
  for (int r = 0; r < LG_PIX; ++r) row[r] = min(p0 + r, p.pixels - 1) * p.ic;
  // Quad q of the weights of input channel k: lg_in4(w, wq + k * OQ).
  const int OQ = OB / 4;
  vec4 acc[LG_PIX];
  for (int q = 0; q < QUADS; ++q) {
    const int wq = ob * p.ic * OQ + q;
    for (int r = 0; r < LG_PIX; ++r) acc[r] = vec4(0.0);
    if ((p.ic & 3) == 0) {
      // Rows start on a quad: 4 input channels per load, summed in the
      // same order.
      for (int k = 0; k < p.ic; k += 4) {
        const int at = wq + k * OQ;
        const vec4 w0 = lg_in4(w, at);
        const vec4 w1 = lg_in4(w, at + OQ);
        const vec4 w2 = lg_in4(w, at + 2 * OQ);
        const vec4 w3 = lg_in4(w, at + 3 * OQ);
        for (int r = 0; r < LG_PIX; ++r) {
          const vec4 x = lg_in4(src, (row[r] + k) >> 2);
          acc[r] = fma(vec4(x.x), w0, acc[r]);
          acc[r] = fma(vec4(x.y), w1, acc[r]);
          acc[r] = fma(vec4(x.z), w2, acc[r]);
          acc[r] = fma(vec4(x.w), w3, acc[r]);
        }
      }
    } else {
      for (int k = 0; k < p.ic; ++k) {
        const vec4 wv = lg_in4(w, wq + k * OQ);
        for (int r = 0; r < LG_PIX; ++r) {
          acc[r] = fma(vec4(lg_in(src, row[r] + k)), wv, acc[r]);
        }
      }
    }
    const int i = o0 + 4 * q;
    const vec4 b = lg_in4(bias, i >> 2);
    for (int r = 0; r < LG_PIX; ++r) {
      if (p0 + r >= p.pixels) break;
      store4(acc[r] + b, (p0 + r) * p.oc + i, p.oc - i);
    }
  }
}
