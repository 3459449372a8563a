// out[i] = (LG_DST)x[i] over n elements: the Vulkan twin of
// shaders/opencl/cast.cl, same arguments and semantics.
//
// Buffers: x, out. Push constants: n. LG_SRC / LG_DST name the element
// types (the defines may spell them as OpenCL does: -DLG_SRC=float):
// lg_value float = 0
// lg_value int = 1
// lg_value uchar = 2
// A uchar (bool) result with LG_DST_BOOL is x != 0; float to int truncates
// toward zero, as C's conversion. Buffers are read and written as 32-bit
// words, so bytes need no 8-bit storage feature: a byte is read by shift
// and written with two atomics on its word (other invocations write the
// word's other bytes at the same time). The backend sizes buffers to whole
// words. Under LG_FP16 a float element is a float16, a 16-bit half of a
// word: read with unpackHalf2x16 and written like a byte, with two atomics
// on its word. The global size may be rounded up past n: every invocation
// checks it.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int LG_SRC = 1;
layout(constant_id = 4) const int LG_DST = 0;
layout(constant_id = 5) const int LG_DST_BOOL = 0;

layout(std430, set = 0, binding = 0) readonly buffer Input { uint x[]; };
layout(std430, set = 0, binding = 1) buffer Output { uint o[]; };

layout(push_constant) uniform Params {
  int n;
} p;

void main() {
  const uint gi = gl_GlobalInvocationID.x;
  if (gi >= uint(p.n)) return;
  float fv;
  int iv;
  bool nonzero;
  if (LG_SRC == 0) {
#ifdef LG_FP16
    fv = unpackHalf2x16(x[gi >> 1u])[gi & 1u];
#else
    fv = uintBitsToFloat(x[gi]);
#endif
    iv = int(fv);
    nonzero = !(fv == 0.0);  // NaN counts as nonzero, as in C
  } else if (LG_SRC == 2) {
    iv = int((x[gi >> 2u] >> (8u * (gi & 3u))) & 0xffu);
    fv = float(iv);
    nonzero = iv != 0;
  } else {
    iv = int(x[gi]);
    fv = float(iv);
    nonzero = iv != 0;
  }
  if (LG_DST == 2 || LG_DST_BOOL != 0) {
    const uint byte_value =
        LG_DST_BOOL != 0 ? (nonzero ? 1u : 0u) : (uint(iv) & 0xffu);
    const uint shift = 8u * (gi & 3u);
    atomicAnd(o[gi >> 2u], ~(0xffu << shift));
    atomicOr(o[gi >> 2u], byte_value << shift);
  } else if (LG_DST == 1) {
    o[gi] = uint(iv);
  } else {
#ifdef LG_FP16
    const uint shift = 16u * (gi & 1u);
    atomicAnd(o[gi >> 1u], ~(0xffffu << shift));
    atomicOr(o[gi >> 1u], (packHalf2x16(vec2(fv, 0.0)) & 0xffffu) << shift);
#else
    o[gi] = floatBitsToUint(fv);
#endif
  }
}
