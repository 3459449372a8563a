// TRANSPOSE_CONV (float32, NHWC; float16 data with float32 sums under
// LG_FP16, lg_types.glsl) computed as a gather: the Vulkan twin of
// shaders/opencl/transpose_conv.cl, same arguments, defines and results.
// Output pixel (n, oy, ox) sums, over the taps (fy, fx) with
// oy + pad_top - fy = iy * sh and ox + pad_left - fx = ix * sw for an input
// pixel (iy, ix) inside the input, the products in[n, iy, ix, :] .
// W[:, fy, fx, :]; then the bias and the fused activation.
//
// Buffers: in, w, bias, out. Push constants: has_bias, in_h, in_w, in_c,
// out_h, out_w, out_c, ocpad, kh, kw, sh, sw, pad_top, pad_left, x_blocks,
// rows, lo, hi.
// w is packed (matmul_pack's layout): ocpad / LG_VEC channel blocks, each
// kh * kw * in_c vectors of LG_VEC output channels in (fy, fx, c) order,
// zeros past out_c; an invocation streams its block.
//
// Invocation (g0, g1, g2): output channels [g0 * LG_VEC, +LG_VEC) (LG_VEC 4
// or 8: one or two vec4); g1 = q * sw + phase picks the LG_COLS output
// columns ox = phase + (q * LG_COLS + j) * sw, j < LG_COLS, which share
// their taps and read neighbouring input columns (LG_COLS 1, 4 or 8;
// arrays sized by the specialization constants); g2 = n * out_h + oy.
// x_blocks = ceil(ceil(out_w / sw) / LG_COLS). A column whose input pixel
// lies outside the input (at the edges) multiplies 0 instead.
// has_bias: bias holds out_c floats (else it is not read). lo/hi: the fused
// activation's clamp (NaN passes); LG_ACT_TANH applies tanh after it. The
// global size may be rounded up: every invocation checks its indices.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int LG_VEC = 4;
layout(constant_id = 4) const int LG_COLS = 4;
layout(constant_id = 5) const int LG_ACT_TANH = 0;

layout(std430, set = 0, binding = 0) readonly buffer Input { lg_store src[]; };
layout(std430, set = 0, binding = 1) readonly buffer Weights { lg_store w[]; };
layout(std430, set = 0, binding = 2) readonly buffer Bias { lg_store bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Output {
  lg_store dst[];
};

layout(push_constant) uniform Params {
  int has_bias;
  int in_h;
  int in_w;
  int in_c;
  int out_h;
  int out_w;
  int out_c;
  int ocpad;
  int kh;
  int kw;
  int sh;
  int sw;
  int pad_top;
  int pad_left;
  int x_blocks;
  int rows;
  float lo;
  float hi;
} p;

#include "lg_vec.glsl"

// vec4s per vector of LG_VEC channels.
const int HALVES = LG_VEC / 4;
const int ACCS = LG_COLS * HALVES;

// The clamp (NaN passes), tanh, and the store of the 4 channels from `at`
// of which `lanes` are below out_c.
void store4(vec4 v, int at, int lanes) {
  v = lg_clamp_act4(v, p.lo, p.hi);
  if (LG_ACT_TANH != 0) v = lg_tanh4(v);
  const lg_store4 h = lg_store4(v);
  LG_STORE_LANES(dst, at, h, lanes);
}

void main() {
  const int o0 = int(gl_GlobalInvocationID.x) * LG_VEC;
  const int g1 = int(gl_GlobalInvocationID.y);
  const int g2 = int(gl_GlobalInvocationID.z);
  if (o0 >= p.out_c || g1 >= p.x_blocks * p.sw || g2 >= p.rows) return;
  const int phase = g1 % p.sw, q = g1 / p.sw;
  const int ox0 = phase + q * LG_COLS * p.sw;
  if (ox0 >= p.out_w) return;
  const int n = g2 / p.out_h, oy = g2 % p.out_h;
  const int taps = p.kh * p.kw * p.in_c;

  vec4 acc[ACCS];
  for (int i = 0; i < ACCS; ++i) acc[i] = vec4(0.0);
  int x_at[LG_COLS];
  bool x_valid[LG_COLS];
  vec4 wv[HALVES];
  for (int fy = 0; fy < p.kh; ++fy) {
    const int ty = oy + p.pad_top - fy;
    if (ty < 0 || ty % p.sh != 0 || ty / p.sh >= p.in_h) continue;
    const int in_row = (n * p.in_h + ty / p.sh) * p.in_w * p.in_c;
    for (int fx = 0; fx < p.kw; ++fx) {
      const int tx = ox0 + p.pad_left - fx;
      // tx may be negative: C's remainder, as in OpenCL.
      if (lg_rem(lg_rem(tx, p.sw) + p.sw, p.sw) != 0) continue;
      const int ix0 = tx / p.sw;  // exact, so truncation is right
      if (ix0 >= p.in_w || ix0 + LG_COLS <= 0) continue;
      // This invocation's channel block: in_c vectors per tap.
      const int wp = o0 * taps + (fy * p.kw + fx) * p.in_c * LG_VEC;
      for (int j = 0; j < LG_COLS; ++j) {
        x_valid[j] = ix0 + j >= 0 && ix0 + j < p.in_w;
        x_at[j] = in_row + clamp(ix0 + j, 0, p.in_w - 1) * p.in_c;
      }
      for (int c = 0; c < p.in_c; ++c) {
        for (int h = 0; h < HALVES; ++h) {
          const int at = wp + c * LG_VEC + 4 * h;
          wv[h] = vec4(w[at], w[at + 1], w[at + 2], w[at + 3]);
        }
        for (int j = 0; j < LG_COLS; ++j) {
          const float x = x_valid[j] ? src[x_at[j] + c] : 0.0;
          for (int h = 0; h < HALVES; ++h) acc[j * HALVES + h] += x * wv[h];
        }
      }
    }
  }

  // The bias of the channels below out_c (0 past them and without one).
  vec4 add[HALVES];
  for (int h = 0; h < HALVES; ++h) {
    add[h] = vec4(0.0);
    for (int l = 0; l < 4; ++l) {
      const int oc = o0 + 4 * h + l;
      if (p.has_bias != 0 && oc < p.out_c) add[h][l] = bias[oc];
    }
  }
  const int out_base = ((n * p.out_h + oy) * p.out_w + ox0) * p.out_c + o0;
  for (int j = 0; j < LG_COLS; ++j) {
    if (ox0 + j * p.sw >= p.out_w) continue;
    const int at = out_base + j * p.sw * p.out_c;
    for (int h = 0; h < HALVES; ++h) {
      store4(acc[j * HALVES + h] + add[h], at + 4 * h, p.out_c - o0 - 4 * h);
    }
  }
}
