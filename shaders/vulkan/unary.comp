// out[i] = op(x[i]) over n elements (float32): the Vulkan twin of
// shaders/opencl/unary.cl, same arguments and semantics.
//
// Buffers: x, out. Push constants: n, alpha.
// LG_OP  0 logistic (default), 1 tanh, 2 relu, 3 relu6, 4 relu_n1_to_1,
//        5 exp, 6 neg, 7 abs, 8 sqrt, 9 square, 10 log, 11 rsqrt, 12 sin,
//        13 cos, 14 floor, 15 elu, 16 hard swish, 17 gelu (tanh
//        approximation), 18 gelu (erf), 19 leaky relu (slope alpha).
// The transcendental ops use lg_math.glsl (precise on every device); the
// two GELUs use forms without cancellation for negative x:
// 0.5 x (1 + tanh u) = x / (1 + e^(-2u)) and 0.5 x (1 + erf(x / sqrt 2)) =
// 0.5 x erfc(-x / sqrt 2). Clamps let NaN through, as the CPU kernels do.
// The global size may be rounded up past n: every invocation checks it.
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int LG_OP = 0;

layout(std430, set = 0, binding = 0) readonly buffer Input { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Output { float o[]; };

layout(push_constant) uniform Params {
  int n;
  float alpha;
} p;

#include "lg_math.glsl"

void main() {
  const uint gi = gl_GlobalInvocationID.x;
  if (gi >= uint(p.n)) return;
  const float v = x[gi];
  float r;
  switch (LG_OP) {
    case 1: r = lg_tanh(v); break;
    case 2: r = v < 0.0 ? 0.0 : v; break;
    case 3: r = v < 0.0 ? 0.0 : (v > 6.0 ? 6.0 : v); break;
    case 4: r = v < -1.0 ? -1.0 : (v > 1.0 ? 1.0 : v); break;
    case 5: r = lg_exp(v); break;
    case 6: r = -v; break;
    case 7: r = abs(v); break;
    case 8: r = sqrt(v); break;
    case 9: r = v * v; break;
    case 10: r = lg_log(v); break;
    case 11: r = 1.0 / sqrt(v); break;
    case 12: r = lg_sin(v); break;
    case 13: r = lg_cos(v); break;
    case 14: r = floor(v); break;
    case 15: r = v < 0.0 ? lg_expm1(v) : v; break;
    case 16: {
      float t = v + 3.0;
      t = t < 0.0 ? 0.0 : (t > 6.0 ? 6.0 : t);
      r = v * t / 6.0;
      break;
    }
    case 17: {
      const float u = 0.7978845608 * (v + 0.044715 * v * v * v);
      r = v / (1.0 + lg_exp(-2.0 * u));
      break;
    }
    case 18: r = 0.5 * v * lg_erfc(v * -0.70710678118654752); break;
    case 19: r = v < 0.0 ? p.alpha * v : v; break;
    default: r = lg_logistic(v); break;
  }
  o[gi] = r;
}
