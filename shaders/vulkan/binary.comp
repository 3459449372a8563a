// out = act(op(a, b)) over n elements (float32, or float16 under LG_FP16:
// lg_types.glsl), NumPy broadcasting: the Vulkan twin of
// shaders/opencl/binary.cl, same arguments and semantics.
//
// Buffers (bindings in argument order): a, b, out. Push constants (in
// argument order): n, na, nb, lo, hi, d1, d2, d3, sa0..sa3, sb0..sb3.
// LG_BCAST 0: each operand is addressed by the flat index modulo its size
//   (same shape, a scalar, or the output's trailing dims).
// LG_BCAST 1: general broadcast of up to 4 dims: the output is
//   [n / (d1*d2*d3), d1, d2, d3] and each operand has one stride per dim
//   (0 where it is broadcast).
// LG_OP  0 add, 1 sub, 2 mul, 3 div, 4 maximum, 5 minimum,
//        6 squared difference, 7 prelu (a >= 0 ? a : b * a), 8 pow.
// lo/hi: the fused activation's clamp (NaN passes, as on the CPU);
// LG_ACT_TANH applies tanh after it. Under LG_FP16 the op is computed in
// float16 (pow, the clamp and tanh in float32). The global size may be
// rounded up past n: every invocation checks it.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int LG_OP = 0;
layout(constant_id = 4) const int LG_BCAST = 0;
layout(constant_id = 5) const int LG_ACT_TANH = 0;

LG_TENSOR_IN(0, a);
LG_TENSOR_IN(1, b);
layout(std430, set = 0, binding = 2) writeonly buffer Output { lg_store o[]; };

layout(push_constant) uniform Params {
  int n;
  int na;
  int nb;
  float lo;
  float hi;
  int d1;
  int d2;
  int d3;
  int sa0;
  int sa1;
  int sa2;
  int sa3;
  int sb0;
  int sb1;
  int sb2;
  int sb3;
} p;

#include "lg_math.glsl"

void main() {
  const uint gi = gl_GlobalInvocationID.x;
  if (gi >= uint(p.n)) return;
  const int i = int(gi);
  lg_half x;
  lg_half y;
  if (LG_BCAST == 1) {
    const int i3 = i % p.d3;
    const int i2 = (i / p.d3) % p.d2;
    const int i1 = (i / (p.d3 * p.d2)) % p.d1;
    const int i0 = i / (p.d3 * p.d2 * p.d1);
    x = lg_half(lg_in(a, i0 * p.sa0 + i1 * p.sa1 + i2 * p.sa2 + i3 * p.sa3));
    y = lg_half(lg_in(b, i0 * p.sb0 + i1 * p.sb1 + i2 * p.sb2 + i3 * p.sb3));
  } else {
    x = lg_half(lg_in(a, p.na == p.n ? i : i % p.na));
    y = lg_half(lg_in(b, p.nb == p.n ? i : i % p.nb));
  }
  lg_half h;
  switch (LG_OP) {
    case 1: h = x - y; break;
    case 2: h = x * y; break;
    case 3: h = x / y; break;
    case 4: h = x > y ? x : y; break;
    case 5: h = x < y ? x : y; break;
    case 6: {
      const lg_half d = x - y;
      h = d * d;
      break;
    }
    case 7: h = x >= lg_half(0.0) ? x : y * x; break;
    case 8: h = lg_half(0.0); break;  // float32 below
    default: h = x + y; break;
  }
  float r = LG_OP == 8 ? lg_pow(float(x), float(y)) : float(h);
  if (r < p.lo) r = p.lo;
  if (r > p.hi) r = p.hi;
  if (LG_ACT_TANH != 0) r = lg_tanh(r);
  o[i] = lg_store(r);
}
