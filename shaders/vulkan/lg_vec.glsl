// Helpers shared by the Vulkan-only shaders (shaders/vulkan/*.comp, the
// twins of OpenCL kernels not yet in the shared dialect; lg_kernel.h has
// the shared kernels' versions), included with #include "lg_vec.glsl" (it
// includes lg_math.glsl itself).
//
// OpenCL's select(a, b, isgreater(b, a)) and its fused-activation clamps
// become mix() with a boolean vector: a comparison with NaN is false, so a
// NaN keeps its place exactly as in the OpenCL kernels and on the CPU.
#ifndef LG_VEC_GLSL_
#define LG_VEC_GLSL_

#include "lg_math.glsl"

// FLT_MAX of OpenCL C and <float.h>.
const float LG_FLT_MAX = 3.402823466e+38;

// The fused activation's clamp to [lo, hi]; NaN passes.
float lg_clamp_act(float v, float lo, float hi) {
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return v;
}

vec4 lg_clamp_act4(vec4 v, float lo, float hi) {
  v = mix(v, vec4(lo), lessThan(v, vec4(lo)));
  return mix(v, vec4(hi), greaterThan(v, vec4(hi)));
}

// Stores lanes x, y, z, w of `h` (an lg_store4) at dst[at], dst[at + 1],
// ... as far as `lanes` (channels left below the tensor's end) reaches.
// Straight-line code on purpose: a loop over the lanes here kept NIR from
// unrolling the callers' pixel loops around the store, so their
// accumulator arrays were indexed dynamically and lived in memory, which
// made conv_1x1 six times slower on Mesa's lavapipe. A macro because
// buffers cannot be passed to functions.
#define LG_STORE_LANES(dst, at, h, lanes) \
  {                                       \
    if ((lanes) > 0) dst[(at)] = (h).x;     \
    if ((lanes) > 1) dst[(at) + 1] = (h).y; \
    if ((lanes) > 2) dst[(at) + 2] = (h).z; \
    if ((lanes) > 3) dst[(at) + 3] = (h).w; \
  }

// tanh of each lane (lg_math.glsl's precise one).
vec4 lg_tanh4(vec4 v) {
  return vec4(lg_tanh(v.x), lg_tanh(v.y), lg_tanh(v.z), lg_tanh(v.w));
}

// One step of a maximum that skips NaN: x replaces acc only when greater.
vec4 lg_max_step4(vec4 acc, vec4 x) {
  return mix(acc, x, greaterThan(x, acc));
}

// C's remainder (the sign of a), where GLSL's % on ints is OpSMod (the
// sign of b) for negative operands.
int lg_rem(int a, int b) { return a - (a / b) * b; }

#endif  // LG_VEC_GLSL_
