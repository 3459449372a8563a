// out = act(op(a, b)) over n elements (float32), NumPy broadcasting: the
// Vulkan twin of shaders/opencl/binary.cl, same arguments and semantics.
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
// LG_ACT_TANH applies tanh after it. The global size may be rounded up past
// n: every invocation checks it.
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int LG_OP = 0;
layout(constant_id = 4) const int LG_BCAST = 0;
layout(constant_id = 5) const int LG_ACT_TANH = 0;

layout(std430, set = 0, binding = 0) readonly buffer InputA { float a[]; };
layout(std430, set = 0, binding = 1) readonly buffer InputB { float b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Output { float o[]; };

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
  float x;
  float y;
  if (LG_BCAST == 1) {
    const int i3 = i % p.d3;
    const int i2 = (i / p.d3) % p.d2;
    const int i1 = (i / (p.d3 * p.d2)) % p.d1;
    const int i0 = i / (p.d3 * p.d2 * p.d1);
    x = a[i0 * p.sa0 + i1 * p.sa1 + i2 * p.sa2 + i3 * p.sa3];
    y = b[i0 * p.sb0 + i1 * p.sb1 + i2 * p.sb2 + i3 * p.sb3];
  } else {
    x = a[p.na == p.n ? i : i % p.na];
    y = b[p.nb == p.n ? i : i % p.nb];
  }
  float r;
  switch (LG_OP) {
    case 1: r = x - y; break;
    case 2: r = x * y; break;
    case 3: r = x / y; break;
    case 4: r = x > y ? x : y; break;
    case 5: r = x < y ? x : y; break;
    case 6: {
      const float d = x - y;
      r = d * d;
      break;
    }
    case 7: r = x >= 0.0 ? x : y * x; break;
    case 8: r = lg_pow(x, y); break;
    default: r = x + y; break;
  }
  if (r < p.lo) r = p.lo;
  if (r > p.hi) r = p.hi;
  if (LG_ACT_TANH != 0) r = lg_tanh(r);
  o[i] = r;
}
