// The GLSL side of the shared kernel dialect (shaders/kernels/lg_kernel.h
// describes it), included by the wrapper cmake/vulkan_shaders.cmake
// generates for each shaders/kernels/NAME.lgk, right after #version 450.
#ifndef LG_DIALECT_GLSL_H_
#define LG_DIALECT_GLSL_H_

// Its #extension lines (LG_FP16) must precede every declaration.
#include "lg_types.glsl"
#extension GL_EXT_control_flow_attributes : require
// The op codes LG_OP selects, written from ops/ops.def at build time.
#include "lg_op_codes.h"

#define LG_GLSL 1
// The Vulkan backend only runs LG_FP16 builds on devices with
// shaderFloat16: per-element arithmetic may always use half there.
#ifdef LG_FP16
#define LG_HALF_MATH 1
#endif

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

// The interface (lg_kernel.h): LG_ARGS is expanded twice, for the buffer
// bindings and for the push-constant block of the scalars.
#define LG_KERNEL(name, args)                            \
  args(LG_GL_BUF_, LG_GL_SKIP2_)                         \
  layout(push_constant) uniform lg_scalars_ {            \
    args(LG_GL_SKIP3_, LG_GL_VAL_)                       \
  };                                                     \
  void main()
#define LG_KERNEL_LOCAL(name, args, decls) \
  decls LG_KERNEL(name, args) {
#define LG_KERNEL_CLOSE }
#define LG_LOCAL(type, name, size) shared type name[size];
#define lg_barrier() barrier()

#define LG_GL_SKIP2_(kind, name)
#define LG_GL_SKIP3_(b, kind, name)
#define LG_GL_BUF_(b, kind, name) LG_GL_##kind(b, name)
#define LG_GL_VAL_(kind, name) LG_GL_##kind name;
#define LG_GL_TENSOR_IN(b, name) LG_TENSOR_IN(b, name);
#define LG_GL_BUFFER_(b, qualifier, type, name)                     \
  layout(std430, set = 0, binding = b) qualifier buffer name##_ { \
    type name[];                                                  \
  };
#define LG_GL_TENSOR_RO(b, name) LG_GL_BUFFER_(b, readonly, lg_store, name)
#define LG_GL_TENSOR_OUT(b, name) LG_GL_BUFFER_(b, writeonly, lg_store, name)
#define LG_GL_TENSOR_RW(b, name) LG_GL_BUFFER_(b, , lg_store, name)
#define LG_GL_INTS_IN(b, name) LG_GL_BUFFER_(b, readonly, int, name)
#define LG_GL_INTS_OUT(b, name) LG_GL_BUFFER_(b, writeonly, int, name)
#define LG_GL_INTS_RW(b, name) LG_GL_BUFFER_(b, , int, name)
#define LG_GL_WORDS_IN(b, name) LG_GL_BUFFER_(b, readonly, uint, name)
#define LG_GL_WORDS_RW(b, name) LG_GL_BUFFER_(b, , uint, name)
#define LG_GL_INT int
#define LG_GL_UINT uint
#define LG_GL_FLOAT float

// A define is a specialization constant (the backend maps the define's
// name to the id); word values are numbered by the lg_value lines.
#define LG_SPEC(id, name, value) \
  layout(constant_id = id) const int name = value;
#define LG_WORD(x) (x)

// Work items.
#define lg_gid(d) int(gl_GlobalInvocationID[d])
#define lg_lid(d) int(gl_LocalInvocationID[d])
#define lg_group(d) int(gl_WorkGroupID[d])

// Per-element arithmetic (lg_kernel.h: precision).
#define lg_real lg_half
#define lg_real4 lg_half4

// Float tensors (LG_FP16: float16 storage converted at the access).
#define lg_ld(name, i) float(name[i])
#define lg_st(name, i, v) (name[i] = lg_store(v))
#define lg_ld4(name, i)                                           \
  vec4(float(name[i]), float(name[(i) + 1]), float(name[(i) + 2]), \
       float(name[(i) + 3]))
#define lg_st4(name, i, v)                    \
  {                                           \
    const lg_store4 lg_h_ = lg_store4(v);     \
    name[i] = lg_h_.x;                        \
    name[(i) + 1] = lg_h_.y;                  \
    name[(i) + 2] = lg_h_.z;                  \
    name[(i) + 3] = lg_h_.w;                  \
  }
// A window into a float tensor from element `offset` on (lg_kernel.h):
// only the offset here.
#define LG_WINDOW(t, v, offset) const int v = (offset)
#define LG_WINDOWS(t, v, count) int v[count]
#define LG_WINDOW_SET(t, v, offset) ((v) = (offset))
#define lg_in_at(t, v, i) lg_in(t, (v) + (i))
// Windows that read zeros where they fall outside the input: the offset,
// or -1 outside; a read there loads a valid element (i) and returns 0.0 in
// its place (mix with a bool: a select, the load unconditional, no
// branch). z is not read here.
#define LG_ZERO_WINDOWS(t, z, v, count) int v[count]
#define LG_ZERO_WINDOW_SET(t, z, v, inside, offset) \
  ((v) = (inside) ? (offset) : -1)
#define lg_in_atz(t, z, v, i) \
  mix(0.0, lg_in(t, max((v), 0) + (i)), (v) >= 0)
#define lg_in4_at(t, v, i) lg_in4(t, ((v) + (i)) >> 2)

// Whether a kernel writes a loop body out twice to fold a run-time test
// (lg_kernel.h): not here, lavapipe ran depthwise_conv 1.2-1.45x slower
// with its column checks unswitched (each copy's registers and code).
#define LG_UNSWITCH 0

// Pieces of n-lane blocks (lg_kernel.h: "Register blocking"): a piece is
// a vec4 here, so a block of n = 4, 8 or 16 lanes is n / 4 pieces; a block
// of 1 lane is lane x of one vec4 (the other lanes are neither read nor
// written).
#define LG_LANES(n) ((n) >= 4 ? 4 : 1)
#define lg_floatn(n) vec4
#define lg_floatns(n, s) vec4(s)
#define lg_inn(n, t, i) \
  (LG_LANES(n) == 4 ? lg_in4(t, (i) >> 2) : vec4(lg_in(t, i), 0.0, 0.0, 0.0))
#define lg_inn_at(n, t, v, i) lg_inn(n, t, (v) + (i))
#define lg_ldn(n, t, i) \
  (LG_LANES(n) == 4 ? lg_ld4(t, i) : vec4(lg_ld(t, i), 0.0, 0.0, 0.0))
// Straight-line on purpose: a loop over the lanes kept NIR from unrolling
// the callers' loops around it, so their accumulator arrays were indexed
// dynamically and lived in memory (conv_1x1 six times slower on lavapipe).
#define lg_inn_part(n, t, i, lanes)                                  \
  vec4((lanes) > 0 ? lg_in(t, i) : 0.0,                              \
       min((lanes), LG_LANES(n)) > 1 ? lg_in(t, (i) + 1) : 0.0,      \
       min((lanes), LG_LANES(n)) > 2 ? lg_in(t, (i) + 2) : 0.0,      \
       min((lanes), LG_LANES(n)) > 3 ? lg_in(t, (i) + 3) : 0.0)
#define lg_stn_part(n, t, i, v, lanes)                   \
  {                                                      \
    const int lg_l_ = min((lanes), LG_LANES(n));         \
    const lg_store4 lg_p_ = lg_store4(v);                \
    if (lg_l_ > 0) t[i] = lg_p_.x;                       \
    if (lg_l_ > 1) t[(i) + 1] = lg_p_.y;                 \
    if (lg_l_ > 2) t[(i) + 2] = lg_p_.z;                 \
    if (lg_l_ > 3) t[(i) + 3] = lg_p_.w;                 \
  }
#define lg_stn(n, t, i, v) lg_stn_part(n, t, i, v, 4)
#define lg_stna(n, t, i, v) lg_stn_part(n, t, i, v, 4)
#define lg_clamp_actn(n, v, lo, hi) lg_clamp_act4(v, lo, hi)
#define lg_tanhn(n, v) \
  (LG_LANES(n) == 4 ? lg_tanh4(v) : vec4(lg_tanh((v).x), 0.0, 0.0, 0.0))
#define lg_inr(name, i) lg_real(lg_in(name, i))
#define lg_str(name, i, v) (name[i] = lg_store(v))
#define lg_mov(dst, j, src, i) (dst[j] = src[i])

// Elements of word buffers (LG_ARG_WORDS_*): element i of an array of
// bytes, float16 or float32 values held in 32-bit words (no 8- or 16-bit
// storage feature needed). A byte or float16 is written with two atomics on
// its word, as other invocations write the word's other parts at the same
// time; the backend sizes buffers to whole words.
#define lg_word_u8(w, i) ((w[(i) >> 2] >> (8u * uint((i)&3))) & 0xffu)
// The store macros are statements in braces.
#define lg_word_st_u8(w, i, v)                                     \
  {                                                                \
    const uint lg_shift_ = 8u * uint((i)&3);                       \
    atomicAnd(w[(i) >> 2], ~(0xffu << lg_shift_));                 \
    atomicOr(w[(i) >> 2], (uint(v) & 0xffu) << lg_shift_);         \
  }
#ifdef LG_FP16
#define lg_word_float(w, i) unpackHalf2x16(w[(i) >> 1])[(i)&1]
#define lg_word_st_float(w, i, v)                                    \
  {                                                                  \
    const uint lg_shift_ = 16u * uint((i)&1);                        \
    atomicAnd(w[(i) >> 1], ~(0xffffu << lg_shift_));                 \
    atomicOr(w[(i) >> 1], (packHalf2x16(vec2((v), 0.0)) & 0xffffu)  \
                              << lg_shift_);                         \
  }
#else
#define lg_word_float(w, i) uintBitsToFloat(w[i])
#define lg_word_st_float(w, i, v) (w[i] = floatBitsToUint(float(v)))
#endif

// Conversions and vectors.
#define float2 vec2
#define float4 vec4
#define int2 ivec2
#define int4 ivec4
#define uint4 uvec4
#define lg_cvt_float(x) float(x)
#define lg_cvt_int(x) int(x)
#define lg_cvt_uint(x) uint(x)
#define lg_cvt_real(x) lg_real(x)
#define lg_float4(a, b, c, d) vec4((a), (b), (c), (d))
#define lg_float4s(s) vec4(s)
#define lg_int_as_float(x) intBitsToFloat(x)
#define lg_gt4(a, b) greaterThan((a), (b))
#define lg_lt4(a, b) lessThan((a), (b))
#define lg_select4(a, b, c) mix((a), (b), (c))
#define LG_NO_FP_CONTRACT
#define LG_PRECISE precise
#define LG_UNROLL [[unroll]]
// A loop with a large body (lg_kernel.h): kept rolled here; lavapipe's
// compile time grows with every copy.
#define LG_UNROLL_LARGE [[dont_unroll]]

// Math: lg_math.glsl's precise functions (lg_exp, lg_expm1, lg_log,
// lg_tanh, lg_logistic, lg_sin, lg_cos, lg_erfc, lg_pow).
#include "lg_math.glsl"
const float LG_FLT_MAX = 3.402823466e+38;
#define lg_abs(x) abs(x)
// C's remainder (the sign of a); GLSL's % on ints is OpSMod (the sign of b).
int lg_rem(int a, int b) { return a - (a / b) * b; }

// The helpers every kernel shares, written in the dialect.
#include "lg_kernel.h"

#endif  // LG_DIALECT_GLSL_H_
