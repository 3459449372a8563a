// out[i] = op(x[i]) over n elements (float32, or float16 under LG_FP16:
// lg_types.glsl): the Vulkan twin of shaders/opencl/unary.cl, same
// arguments and semantics.
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
// Under LG_FP16 the piecewise-linear ops (relus, neg, abs, square, floor,
// leaky relu) compute in float16 and the others in float32 (hard swish's
// v * t passes the float16 range where its result does not).
// The global size may be rounded up past n: every invocation checks it.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int LG_OP = 0;

LG_TENSOR_IN(0, x);
layout(std430, set = 0, binding = 1) writeonly buffer Output { lg_store o[]; };

layout(push_constant) uniform Params {
  int n;
  float alpha;
} p;

#include "lg_math.glsl"

// The ops computed per element in lg_half (float16 under LG_FP16).
bool is_simple() {
  return LG_OP == 2 || LG_OP == 3 || LG_OP == 4 || LG_OP == 6 || LG_OP == 7 ||
         LG_OP == 9 || LG_OP == 14 || LG_OP == 19;
}

lg_half simple_op(lg_half v) {
  const lg_half zero = lg_half(0.0);
  const lg_half one = lg_half(1.0);
  const lg_half six = lg_half(6.0);
  switch (LG_OP) {
    case 2: return v < zero ? zero : v;
    case 3: return v < zero ? zero : (v > six ? six : v);
    case 4: return v < -one ? -one : (v > one ? one : v);
    case 6: return -v;
    case 7: return abs(v);
    case 9: return v * v;
    case 14: return floor(v);
    default: return v < zero ? lg_half(p.alpha) * v : v;  // 19
  }
}

// The other ops, in float32.
float float_op(float v) {
  switch (LG_OP) {
    case 1: return lg_tanh(v);
    case 5: return lg_exp(v);
    case 8: return sqrt(v);
    case 10: return lg_log(v);
    case 11: return 1.0 / sqrt(v);
    case 12: return lg_sin(v);
    case 13: return lg_cos(v);
    case 15: return v < 0.0 ? lg_expm1(v) : v;
    case 16: return v * clamp(v + 3.0, 0.0, 6.0) / 6.0;
    case 17: {
      const float u = 0.7978845608 * (v + 0.044715 * v * v * v);
      return v / (1.0 + lg_exp(-2.0 * u));
    }
    case 18: return 0.5 * v * lg_erfc(v * -0.70710678118654752);
    default: return lg_logistic(v);
  }
}

void main() {
  const uint gi = gl_GlobalInvocationID.x;
  if (gi >= uint(p.n)) return;
  const lg_half v = lg_half(lg_in(x, int(gi)));
  o[gi] = is_simple() ? lg_store(simple_op(v)) : lg_store(float_op(float(v)));
}
