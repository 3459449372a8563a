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
// Precision policy under LG_FP16 (TFLite's GPU delegate runs the same way
// in its F32_F16 mode):
//   * Storage is float16: every float tensor buffer (inputs, outputs,
//     weights, biases, float scratch) holds lg_store elements. Int buffers
//     (indices, coordinate and remap tables) stay int32, and push-constant
//     floats (clamp bounds, pad values, softmax beta) stay float32.
//   * Per-element arithmetic is float16 (lg_half) where the result stays
//     within the fp16 bound 1e-2 * max(1, |ref|): the binary ops and the
//     piecewise-linear unary ops round once, from half inputs.
//   * Sums over many terms accumulate in float32 and only the result is
//     rounded to half: CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV,
//     FULLY_CONNECTED and BATCH_MATMUL, AVERAGE_POOL_2D, MEAN and SUM, and
//     SOFTMAX's sum (its exponentials are not stored as half in between).
//   * Transcendental functions (lg_math.glsl: exp, log, tanh, logistic,
//     sin, cos, erfc, pow, the GELUs) and bilinear interpolation are
//     evaluated in float32 from the half inputs and rounded to half.
//   * Fused-activation clamps compare in float32 against float32 bounds;
//     NaN still passes.
//   * A value whose magnitude exceeds 65504 becomes +-inf when it is
//     stored (the device's float32 -> float16 conversion), as on any fp16
//     GPU; nothing guards against it. Stores round as the device's
//     conversion does (to nearest or toward zero: Vulkan allows either).
#ifndef LG_TYPES_GLSL_
#define LG_TYPES_GLSL_

#ifdef LG_FP16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

// One element of a float tensor in a storage buffer, and four of them.
#define lg_store float16_t
#define lg_store4 f16vec4
// Per-element arithmetic (see the policy above).
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
