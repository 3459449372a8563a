// Helpers shared by the Vulkan twins of the OpenCL kernels, included with
// #include "lg_vec.glsl" (it includes lg_math.glsl itself).
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
