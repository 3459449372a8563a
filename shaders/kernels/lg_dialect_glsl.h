// The GLSL side of the shared kernel dialect (shaders/kernels/lg_kernel.h
// describes it), included by the wrapper cmake/vulkan_shaders.cmake
// generates for each shaders/kernels/NAME.lgk, right after #version 450.
#ifndef LG_DIALECT_GLSL_H_
#define LG_DIALECT_GLSL_H_

// Its #extension lines (LG_FP16) must precede every declaration.
#include "lg_types.glsl"

#define LG_GLSL 1
// The Vulkan backend only runs LG_FP16 builds on devices with
// shaderFloat16: per-element arithmetic may always use half there.
#ifdef LG_FP16
#define LG_HALF_MATH 1
#endif

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

// The interface: bindings, push constants, main().
#define LG_KERNEL_BEGIN(name)
#define LG_KERNEL_END void main()
#define LG_SCALARS_BEGIN layout(push_constant) uniform lg_scalars_ {
#define LG_SCALARS_END };
#define LG_ARG_TENSOR_IN(k, name) LG_TENSOR_IN(k, name);
#define LG_ARG_TENSOR_RO(k, name)                                \
  layout(std430, set = 0, binding = k) readonly buffer name##_ { \
    lg_store name[];                                             \
  };
#define LG_ARG_TENSOR_OUT(k, name)                                \
  layout(std430, set = 0, binding = k) writeonly buffer name##_ { \
    lg_store name[];                                              \
  };
#define LG_ARG_TENSOR_RW(k, name)                       \
  layout(std430, set = 0, binding = k) buffer name##_ { \
    lg_store name[];                                    \
  };
#define LG_ARG_INTS_IN(k, name)                                  \
  layout(std430, set = 0, binding = k) readonly buffer name##_ { \
    int name[];                                                  \
  };
#define LG_ARG_INTS_OUT(k, name)                                  \
  layout(std430, set = 0, binding = k) writeonly buffer name##_ { \
    int name[];                                                   \
  };
#define LG_ARG_INTS_RW(k, name)                         \
  layout(std430, set = 0, binding = k) buffer name##_ { \
    int name[];                                         \
  };
#define LG_ARG_WORDS_IN(k, name)                                 \
  layout(std430, set = 0, binding = k) readonly buffer name##_ { \
    uint name[];                                                 \
  };
#define LG_ARG_WORDS_RW(k, name)                        \
  layout(std430, set = 0, binding = k) buffer name##_ { \
    uint name[];                                        \
  };
#define LG_ARG_INT(k, name) int name;
#define LG_ARG_UINT(k, name) uint name;
#define LG_ARG_FLOAT(k, name) float name;

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
