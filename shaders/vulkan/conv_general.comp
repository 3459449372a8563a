// 2-D convolution of any window, stride, dilation and padding (float32;
// float16 data with float32 sums under LG_FP16, lg_types.glsl):
// the Vulkan twin of shaders/opencl/conv_general.cl, same arguments,
// defines and results:
//   out[n, y, x, o] = act(bias[o] + sum over (fh, fw, c) of
//       in[n, y * SH - pad_top + fh * DH, x * SW - pad_left + fw * DW, c]
//       * w[o, fh, fw, c])
// with taps outside the input reading 0 (from `zeros`).
//
// Buffers: in, w, bias, zeros, out. Push constants: batch, in_h, in_w, ic,
// out_h, out_w, oc, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left,
// kh, kw, oc_blocks, lo, hi.
// Invocation (i, y, z) computes LG_PIX consecutive output columns
// [i * LG_PIX, +LG_PIX) of row y of image n = z / oc_blocks, times one block
// of LG_OB = LG_W * LG_NV output channels starting at (z % oc_blocks) *
// LG_OB. LG_OC_FAST puts the channel blocks on dimension 0: invocation
// (ob, y, z) with z = n * column_blocks + i, so neighbouring invocations
// share their columns (few columns, many channels: a work group's lanes
// then fill). OpenCL holds the whole block as LG_PIX x LG_NV vectors of LG_W
// floats; here the block is LG_OB / 4 quads (LG_W a multiple of 4: the
// lowering uses 16) computed one after the other, each as LG_PIX vec4
// accumulators over the whole window. Each output still sums its products
// in the OpenCL kernel's order ((fh, fw, c) ascending, fused
// multiply-adds), so results agree; the window loops are not unrolled
// ([[dont_unroll]]): fully unrolled windows with all accumulators live took
// Mesa's lavapipe seconds to tens of seconds per pipeline.
//   w:     packed on the host as [oc_pad / LG_OB][kh][kw][ic][LG_OB] (zero
//          padded), so the window is one linear run of weight vectors;
//   bias:  [oc_pad] (zeros without a bias);
//   zeros: at least `ic` zeros, the value of a tap outside the input. Here
//          such a tap reads 0.0 directly (the same value), so the loads need
//          no branch; the buffer stays bound, unread.
// Invocations whose whole window lies inside the input skip the checks.
// LG_IC, LG_KH, LG_KW, LG_SW and LG_DW, when defined (non-zero), fix ic,
// kh, kw, stride_w and dil_w at pipeline creation (constant trip counts
// and tap offsets).
// Columns past out_w and channels past oc are computed (on clamped columns
// and the padding) and not written. LG_ALIGNED (oc a multiple of LG_W) only
// picks OpenCL's store instruction: accepted, nothing to do here. lo/hi:
// the activation's clamp (NaN passes); LG_ACT_TANH applies tanh after it.
// The global size may be rounded up: every invocation checks.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int LG_W = 16;
layout(constant_id = 4) const int LG_NV = 2;
layout(constant_id = 5) const int LG_PIX = 8;
layout(constant_id = 6) const int LG_IC = 0;
layout(constant_id = 7) const int LG_KH = 0;
layout(constant_id = 8) const int LG_KW = 0;
layout(constant_id = 9) const int LG_SW = 0;
layout(constant_id = 10) const int LG_DW = 0;
layout(constant_id = 11) const int LG_ALIGNED = 0;
layout(constant_id = 12) const int LG_ACT_TANH = 0;
layout(constant_id = 13) const int LG_OC_FAST = 0;

LG_TENSOR_IN(0, src);
LG_TENSOR_IN(1, w);
LG_TENSOR_IN(2, bias);
layout(std430, set = 0, binding = 3) readonly buffer Zeros {
  lg_store zeros[];
};
layout(std430, set = 0, binding = 4) writeonly buffer Output {
  lg_store dst[];
};

layout(push_constant) uniform Params {
  int batch;
  int in_h;
  int in_w;
  int ic;
  int out_h;
  int out_w;
  int oc;
  int stride_h;
  int stride_w;
  int dil_h;
  int dil_w;
  int pad_top;
  int pad_left;
  int kh;
  int kw;
  int oc_blocks;
  float lo;
  float hi;
} p;

#include "lg_vec.glsl"

// Output channels per invocation, and the vec4s that hold them.
const int OB = LG_W * LG_NV;
const int QUADS = OB / 4;

// The clamp (NaN passes), tanh, and the store of the 4 channels from `at`
// of which `lanes` are below oc.
void store4(vec4 v, int at, int lanes) {
  v = lg_clamp_act4(v, p.lo, p.hi);
  if (LG_ACT_TANH != 0) v = lg_tanh4(v);
  const lg_store4 h = lg_store4(v);
  LG_STORE_LANES(dst, at, h, lanes);
}

// The quad at w[at] (at is a multiple of 4: OB and the packing are).
vec4 load_w(int at) { return lg_in4(w, at >> 2); }

void main() {
  // The fixed values where the defines give them.
  const int IC = LG_IC > 0 ? LG_IC : p.ic;
  const int KH = LG_KH > 0 ? LG_KH : p.kh;
  const int KW = LG_KW > 0 ? LG_KW : p.kw;
  const int SW = LG_SW > 0 ? LG_SW : p.stride_w;
  const int DW = LG_DW > 0 ? LG_DW : p.dil_w;
  const int y = int(gl_GlobalInvocationID.y);
  const int z = int(gl_GlobalInvocationID.z);
  const int inner = LG_OC_FAST != 0 ? (p.out_w + LG_PIX - 1) / LG_PIX
                                    : p.oc_blocks;
  const int n = z / inner;
  const int ob = LG_OC_FAST != 0 ? int(gl_GlobalInvocationID.x) : z - n * inner;
  const int x0 = (LG_OC_FAST != 0 ? z - n * inner
                                  : int(gl_GlobalInvocationID.x)) * LG_PIX;
  if (x0 >= p.out_w || y >= p.out_h || n >= p.batch || ob >= p.oc_blocks) {
    return;
  }
  const int o0 = ob * OB;
  const int top = y * p.stride_h - p.pad_top;
  const int left = x0 * SW - p.pad_left;
  const int image = n * p.in_h * p.in_w * IC;
  const int wp = ob * KH * KW * IC * OB;
  const bool interior = top >= 0 && top + (KH - 1) * p.dil_h < p.in_h &&
                        left >= 0 &&
                        left + (LG_PIX - 1) * SW + (KW - 1) * DW < p.in_w;
  // One quad of output channels at a time (see the header).
  int at[LG_PIX];
  bool inside[LG_PIX];
  vec4 acc[LG_PIX];
  const int out_at = ((n * p.out_h + y) * p.out_w + x0) * p.oc;
  for (int q = 0; q < QUADS; ++q) {
    for (int r = 0; r < LG_PIX; ++r) acc[r] = vec4(0.0);
    int wq = wp + 4 * q;
    [[dont_unroll]] for (int fh = 0; fh < KH; ++fh) {
      const int iy = top + fh * p.dil_h;
      const bool row_inside = interior || (iy >= 0 && iy < p.in_h);
      const int row = image + (row_inside ? iy : 0) * p.in_w * IC;
      [[dont_unroll]] for (int fw = 0; fw < KW; ++fw) {
        for (int r = 0; r < LG_PIX; ++r) {
          const int ix = left + r * SW + fw * DW;
          inside[r] = row_inside && (interior || (ix >= 0 && ix < p.in_w));
          at[r] = inside[r] ? row + ix * IC : 0;  // never an index outside
        }
        [[dont_unroll]] for (int c = 0; c < IC; ++c, wq += OB) {
          const vec4 wv = load_w(wq);
          for (int r = 0; r < LG_PIX; ++r) {
            // at[r] + c is inside the input either way: no branch.
            const float x = lg_in(src, at[r] + c);
            acc[r] = fma(vec4(inside[r] ? x : 0.0), wv, acc[r]);
          }
        }
      }
    }
    const int o = o0 + 4 * q;
    const vec4 b = lg_in4(bias, o >> 2);
    for (int r = 0; r < LG_PIX; ++r) {
      if (x0 + r >= p.out_w) break;
      store4(acc[r] + b, out_at + r * p.oc + o, p.oc - o);
    }
  }
}
