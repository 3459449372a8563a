// DEPTHWISE_CONV_2D (float32; float16 data with float32 sums under LG_FP16,
// lg_types.glsl): the Vulkan twin of
// shaders/opencl/depthwise_conv.cl, same arguments, defines and results.
// Output channel o reads input channel o / mult (mult = out_c / in_c):
//   out[n, y, x, o] = act(bias[o] + sum over (fh, fw) of
//       in[n, y * LG_SH - pad_top + fh * LG_DH,
//             x * LG_SW - pad_left + fw * LG_DW, o / mult] * w[fh, fw, o])
// with taps outside the input reading 0 (from `zeros`).
//
// Buffers: in, w, bias, zeros, out. Push constants: rows, in_h, in_w,
// in_c, out_h, out_w, out_c, c_pad, mult, pad_top, pad_left, chunk, lo, hi.
// Invocation (i, j, k) computes output columns [j * chunk, +chunk) of
// output row k (flattened over batch and rows) for LG_CV output channels
// [i * LG_CV, +LG_CV), LG_PIX columns per step. LG_CV channels are
// LG_CV / 4 quads (LG_CV 4, 8 or 16), or lane x of one vec4 (LG_CV 1),
// computed one quad after the other. As in OpenCL, the SPAN input columns
// of a step are loaded once per filter row and shared by the row's taps;
// each tap loads its weight quad. (With the tap loops unrolled, lavapipe
// once took 4-30 s per pipeline; that was the lane loop of the store
// helper keeping the accumulators in memory, see LG_STORE_LANES. Loading
// the span once made MobileNetV2's depthwise layers 26 -> 20 ms there.)
// Each output sums its taps in the
// OpenCL kernel's order (fh, then fw, fused multiply-adds), so results
// agree. Steps whose columns are all inside the input skip the column
// checks; a tap outside the input (a row above or below, a column left or
// right) reads 0.0, the value OpenCL reads from `zeros`, without a branch
// around the load (the buffer stays bound, unread).
// Channel modes:
//   LG_CV > 1, no LG_DW_BCAST: mult == 1 and LG_CV divides the channels;
//   LG_DW_BCAST: one input channel (out_c == mult), broadcast to the lanes;
//   LG_CV == 1: any multiplier, one channel per invocation.
//   w:     [LG_KH * LG_KW][c_pad] (zero padded to c_pad, a multiple of
//          LG_CV);
//   bias:  [c_pad] (zeros without a bias);
//   zeros: a zero row (in_w * in_c floats, at least LG_CV).
// The window (LG_KH, LG_KW), strides (LG_SH, LG_SW) and dilations (LG_DH,
// LG_DW) are specialization constants. Channels past out_c are computed on
// the padding and not written. LG_ALIGNED (out_c a multiple of LG_CV) only
// picks OpenCL's store instruction: accepted, nothing to do here. lo/hi:
// the activation's clamp (NaN passes); LG_ACT_TANH applies tanh after it.
// The global size may be rounded up: every invocation checks.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int LG_CV = 4;
layout(constant_id = 4) const int LG_PIX = 4;
layout(constant_id = 5) const int LG_KH = 3;
layout(constant_id = 6) const int LG_KW = 3;
layout(constant_id = 7) const int LG_SH = 1;
layout(constant_id = 8) const int LG_SW = 1;
layout(constant_id = 9) const int LG_DH = 1;
layout(constant_id = 10) const int LG_DW = 1;
layout(constant_id = 11) const int LG_DW_BCAST = 0;
layout(constant_id = 12) const int LG_ALIGNED = 0;
layout(constant_id = 13) const int LG_ACT_TANH = 0;

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
  int rows;
  int in_h;
  int in_w;
  int in_c;
  int out_h;
  int out_w;
  int out_c;
  int c_pad;
  int mult;
  int pad_top;
  int pad_left;
  int chunk;
  float lo;
  float hi;
} p;

#include "lg_vec.glsl"

// vec4s per LG_CV channels, and the lanes of each used.
const int QUADS = LG_CV >= 4 ? LG_CV / 4 : 1;
const int LANES = LG_CV >= 4 ? 4 : 1;
// Input columns one step's window covers.
const int SPAN = (LG_PIX - 1) * LG_SW + (LG_KW - 1) * LG_DW + 1;

// LANES floats from w / bias at i (the other lanes 0). With 4 lanes, i is
// a multiple of 4 (c_pad and the channel blocks are).
vec4 load_w(int i) {
  if (LANES == 4) return lg_in4(w, i >> 2);
  return vec4(lg_in(w, i), 0.0, 0.0, 0.0);
}

vec4 load_bias(int i) {
  if (LANES == 4) return lg_in4(bias, i >> 2);
  return vec4(lg_in(bias, i), 0.0, 0.0, 0.0);
}

// Quad q of the input column at src[at]: LANES channels, or channel 0
// broadcast; 0.0 where `zero` (a tap outside the input: the value the zero
// buffer holds). `at` is an index inside the input either way, so the load
// needs no branch.
vec4 load_column(bool zero, int at, int q) {
  vec4 v;
  if (LG_DW_BCAST != 0) {
    v = vec4(lg_in(src, at));
  } else if (LANES == 1) {
    v = vec4(lg_in(src, at), 0.0, 0.0, 0.0);
  } else {
    // A multiple of 4: in_c and the channel block are (mult == 1).
    v = lg_in4(src, (at >> 2) + q);
  }
  return zero ? vec4(0.0) : v;
}

// The clamp (NaN passes), tanh, and the store of LANES channels from `at`
// of which `lanes` are below out_c.
void store(vec4 v, int at, int lanes) {
  v = lg_clamp_act4(v, p.lo, p.hi);
  if (LANES == 1) {
    dst[at] = lg_store(LG_ACT_TANH != 0 ? lg_tanh(v.x) : v.x);
    return;
  }
  if (LG_ACT_TANH != 0) v = lg_tanh4(v);
  const lg_store4 h = lg_store4(v);
  LG_STORE_LANES(dst, at, h, lanes);
}

void main() {
  const int o0 = int(gl_GlobalInvocationID.x) * LG_CV;
  const int xs = int(gl_GlobalInvocationID.y) * p.chunk;
  const int ny = int(gl_GlobalInvocationID.z);
  if (o0 >= p.out_c || xs >= p.out_w || ny >= p.rows) return;
  const int xe = min(xs + p.chunk, p.out_w);
  const int n = ny / p.out_h;
  const int y = ny - n * p.out_h;
  const int c0 = LG_DW_BCAST != 0 ? 0 : (LG_CV == 1 ? o0 / p.mult : o0);
  // Filter row fh reads src from row_at[fh], or the zero row from 0.
  int row_at[LG_KH];
  bool row_zero[LG_KH];
  for (int fh = 0; fh < LG_KH; ++fh) {
    const int iy = y * LG_SH - p.pad_top + fh * LG_DH;
    row_zero[fh] = iy < 0 || iy >= p.in_h;
    row_at[fh] = row_zero[fh] ? 0 : ((n * p.in_h + iy) * p.in_w) * p.in_c + c0;
  }
  // One quad of channels at a time, one tap at a time (see the header).
  vec4 acc[LG_PIX];
  for (int q = 0; q < QUADS; ++q) {
    const vec4 b = load_bias(o0 + 4 * q);
    for (int x0 = xs; x0 < xe; x0 += LG_PIX) {
      const int left = x0 * LG_SW - p.pad_left;
      const bool checked = !(left >= 0 && left + SPAN <= p.in_w);
      for (int r = 0; r < LG_PIX; ++r) acc[r] = vec4(0.0);
      for (int fh = 0; fh < LG_KH; ++fh) {
        const int base = row_at[fh] + left * p.in_c;
        vec4 col[SPAN];
        for (int j = 0; j < SPAN; ++j) {
          const bool zero = row_zero[fh] ||
                            (checked && (left + j < 0 || left + j >= p.in_w));
          col[j] = load_column(zero, zero ? 0 : base + j * p.in_c, q);
        }
        for (int fw = 0; fw < LG_KW; ++fw) {
          const vec4 wv = load_w((fh * LG_KW + fw) * p.c_pad + o0 + 4 * q);
          for (int r = 0; r < LG_PIX; ++r) {
            acc[r] = fma(col[r * LG_SW + fw * LG_DW], wv, acc[r]);
          }
        }
      }
      const int out_at = (ny * p.out_w + x0) * p.out_c + o0 + 4 * q;
      for (int r = 0; r < LG_PIX; ++r) {
        if (x0 + r >= xe) break;
        store(acc[r] + b, out_at + r * p.out_c, p.out_c - o0 - 4 * q);
      }
    }
  }
}
