// The element types of the Vulkan shaders' tensor data, included by every
// shader right after its #version and include-extension lines (before any
// declaration) with #include "lg_types.glsl".
//
// cmake/vulkan_shaders.cmake compiles every shader twice: as written
// (float32) and with -DLG_FP16 (float16). The backend builds the LG_FP16
// SPIR-V when it runs in half precision (lg_gpu_backend.fp16_storage:
// precision loss allowed and the device enabled shaderFloat16 and
// storageBuffer16BitAccess); the program then keeps every float32 tensor
// and every float constant as float16 on the device and converts on the
// host (delegates/gpu/gpu_lower.h).
//
// What runs in float16 under LG_FP16 (storage, per-element arithmetic in
// lg_half, float32 sums, transcendental functions and clamps) is stated
// once, for both APIs, in shaders/kernels/lg_kernel.h ("Precision"); the
// shared-dialect kernels use lg_half as lg_real. Stores round as the
// device's float32 -> float16 conversion does (to nearest or toward zero:
// Vulkan allows either); a magnitude past 65504 becomes +-inf.
#ifndef LG_TYPES_GLSL_
#define LG_TYPES_GLSL_

#ifdef LG_FP16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

// One element of a float tensor in a storage buffer, and four of them.
#define lg_store float16_t
#define lg_store4 f16vec4
// Per-element arithmetic (lg_kernel.h: precision).
#define lg_half float16_t
#define lg_half4 f16vec4
// A tensor element moved as raw bits (every pattern survives a copy),
// and its conversions from and to float32. Macros: 16-bit types may only
// be loaded, stored and converted, not passed to functions.
#define lg_bits uint16_t
#define lg_bits_to_float(b) unpackHalf2x16(uint(b)).x
#define lg_float_to_bits(v) lg_bits(packHalf2x16(vec2((v), 0.0)) & 0xffffu)
#else
#define lg_store float
#define lg_store4 vec4
#define lg_half float
#define lg_half4 vec4
#define lg_bits uint
#define lg_bits_to_float(b) uintBitsToFloat(b)
#define lg_float_to_bits(v) floatBitsToUint(v)
#endif

// Read-only float tensors: `LG_TENSOR_IN(K, name);` declares binding K,
// read with lg_in(name, i) (element i, a float) and lg_in4(name, q)
// (elements 4q..4q+3, a vec4). The backend decides how they are bound
// (delegates/vulkan: texel_reads):
//   * plain builds: a storage buffer of lg_store elements, as any other;
//   * LG_TEXEL builds: a uniform texel buffer, viewed as 4-channel texels
//     (R32G32B32A32_SFLOAT, or R16G16B16A16_SFLOAT under LG_FP16: the
//     fetch converts to float32). A texel fetch is a plain vector load on
//     any GPU; on Mesa's lavapipe, whose storage-buffer loads are
//     per-lane loops with bounds branches, it made a 1x1 convolution 3-5x
//     faster. Buffers are whole 16-byte multiples, so every element has a
//     texel.
// Both return the same float32 values.
#ifdef LG_TEXEL
#define LG_TENSOR_IN(b, name) \
  layout(set = 0, binding = b) uniform samplerBuffer name
#define lg_in4(name, q) texelFetch(name, (q))
#define lg_in(name, i) (texelFetch(name, (i) >> 2)[(i)&3])
#else
#define LG_TENSOR_IN(b, name)                                    \
  layout(std430, set = 0, binding = b) readonly buffer name##_ { \
    lg_store name[];                                             \
  }
#define lg_in4(name, q)                                       \
  vec4(name[4 * (q)], name[4 * (q) + 1], name[4 * (q) + 2], \
       name[4 * (q) + 3])
#define lg_in(name, i) float(name[i])
#endif

#endif  // LG_TYPES_GLSL_
