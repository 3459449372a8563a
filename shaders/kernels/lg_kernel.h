/* The shared GPU kernel dialect: one source per kernel for OpenCL and Vulkan.
 *
 * Every shaders/kernels/NAME.lgk is written once, in the common subset of
 * OpenCL C 1.2 and GLSL 450 plus the macros below, and built twice:
 *
 *   OpenCL  cmake/embed_sources.cmake embeds the file's text; the program
 *           builder (delegates/opencl/opencl_program.c) compiles it at run
 *           time after the preamble shaders/opencl/lg_types.cl (tensor
 *           storage macros), lg_dialect_cl.h and this file, with the
 *           lowering's -D defines (-DLG_OP=2) and -DLG_FP16 /
 *           -DLG_HALF_MATH from the backend.
 *   Vulkan  cmake/vulkan_shaders.cmake compiles a generated wrapper
 *           (#version 450, #include "lg_dialect_glsl.h", #include
 *           "NAME.lgk") with glslc into the four SPIR-V variants, and reads
 *           the kernel's interface (bindings, push constants,
 *           specialization constants) from the declarations below.
 *
 * ---- Interface ------------------------------------------------------------
 * The arguments are listed once, in the order the lowering passes them
 * (delegates/gpu/gpu_lower.h), as the entries of an LG_ARGS macro that the
 * kernel's head expands: BUF(K, KIND, name) is buffer K (the Vulkan
 * binding; buffers are numbered 0.. in order, at most 8, and the first
 * argument is BUF(0, ...)), VAL(KIND, name) the next scalar (a Vulkan push
 * constant; at least one). OpenCL takes them as the kernel's parameters in
 * this order; Vulkan expands the list twice, for the bindings and for the
 * push-constant block, so buffers and scalars may interleave:
 *
 *   #define LG_ARGS(BUF, VAL)  \
 *     BUF(0, TENSOR_IN, x)     \
 *     BUF(1, TENSOR_OUT, y)    \
 *     VAL(INT, n)              \
 *     VAL(FLOAT, alpha)
 *   LG_KERNEL(unary, LG_ARGS) {
 *     const int i = lg_gid(0);
 *     ...
 *   }
 *
 * Buffer kinds: TENSOR_IN (read-only float tensor; Vulkan binds it as a
 * texel buffer in the LG_TEXEL builds: read with lg_in, lg_in4, lg_inr),
 * TENSOR_RO (read-only float tensor, always a storage buffer: lg_ld,
 * lg_ld4), TENSOR_OUT (lg_st, lg_st4, lg_str), TENSOR_RW (both), INTS_IN,
 * INTS_OUT, INTS_RW (int32, indexed directly: idx[i]), WORDS_IN, WORDS_RW
 * (uint32 words holding bytes or float tensor elements: lg_word_u8,
 * lg_word_float and the statements lg_word_st_u8, lg_word_st_float; on
 * Vulkan a byte or half store is two atomics on its word). Scalar kinds:
 * INT, UINT, FLOAT. Names must not be GLSL keywords (in, out, input,
 * output, filter, sample, ...). Tensor copies that keep every bit pattern
 * use lg_mov(dst, j, src, i).
 *
 * A kernel with work-group local arrays declares them with its head and
 * ends with LG_KERNEL_CLOSE instead of braces of its own (OpenCL wants
 * them at kernel function scope, GLSL at global scope):
 *   LG_KERNEL_LOCAL(softmax, LG_ARGS, LG_LOCAL(float, part, 64))
 *     ... lg_barrier(); ...
 *   LG_KERNEL_CLOSE
 * A work group leaves together or not at all.
 *
 * ---- Compile-time selection -----------------------------------------------
 * A define the lowering passes (-DLG_OP=2, -DLG_ACT_TANH) is declared as
 *
 *   #ifndef LG_OP
 *   LG_SPEC(3, LG_OP, 0)
 *   #endif
 *
 * OpenCL: the -D macro when given, else an enum constant with the default;
 * Vulkan: specialization constant 3 (ids from 3 up, unique) that the
 * backend sets from the same define string. Branch on it with plain C
 * (`if (LG_OP == 2)`, `switch`, `?:`), never `#if`: both compilers fold the
 * constant and drop the dead code. Never join two such tests with || or
 * && (clang warns about a logical operator with a constant operand): nest
 * the ifs, or use a switch for sets of values. A define whose value is a
 * word (-DLG_SRC=float) numbers its words with `#define LG_WORD_float 0`
 * lines in the kernel (read by the Vulkan interface parser too) and is
 * compared as LG_WORD(LG_SRC) == 0.
 *
 * ---- Types and expressions --------------------------------------------------
 * int, uint, float, bool, float2/float4/int2/int4/uint4 and their .xyzw
 * swizzles; float literals carry an f (0.5f) so OpenCL does not compute in
 * double. Conversions are lg_cvt_float(x), lg_cvt_int(x), lg_cvt_uint(x),
 * lg_cvt_real(x); vectors are built with lg_float4(a, b, c, d) and
 * lg_float4s(s). `%` only on non-negative ints (GLSL's differs from C's
 * for negative ones: use lg_rem). Helper functions take and return values
 * only (no pointers, no out parameters, no buffers).
 *
 * Work items: lg_gid(d) (global id), lg_lid(d), lg_group(d), as int.
 * Four consecutive float tensor elements: lg_ld4(t, i), lg_st4(t, i, v)
 * (a statement); lanes: lg_gt4, lg_lt4 (false with NaN) and
 * lg_select4(a, b, cond) (cond ? b : a per lane). Exact evaluation order
 * (no fused multiply-add): LG_NO_FP_CONTRACT at file scope and LG_PRECISE
 * on each variable that needs it.
 * Math: sqrt, floor, mix, fma, and min, max and clamp on ints work in
 * both; float min, max and clamps are written as comparisons so that NaN
 * passes as on the CPU (lg_clamp_act). lg_abs, lg_exp, lg_expm1, lg_log,
 * lg_tanh, lg_logistic, lg_sin, lg_cos, lg_erfc and lg_pow are precise
 * float functions on both APIs (OpenCL's built-ins;
 * shaders/vulkan/lg_math.glsl on Vulkan, whose GLSL built-ins are only
 * loosely bounded).
 *
 * ---- Register blocking (the GEMM-like kernels) ----------------------------
 * A work item that computes a block of outputs keeps it in private arrays
 * with constant bounds, in loops marked LG_UNROLL (OpenCL's #pragma
 * unroll, GLSL's [[unroll]]): unrolled, the arrays live in registers.
 * LG_UNROLL_LARGE marks a loop with a large body whose count may be a
 * constant (a fixed small filter window): unrolled on OpenCL where the
 * count is known, kept rolled on Vulkan (lavapipe's compile time).
 * Integer offsets must not sit in such arrays where a loop adds a common
 * index to each of them (PoCL's vectorizer packs them into vector
 * registers and extracts each one on every step): read through windows
 * instead, one per row, named through an X-macro,
 *   LG_WINDOW(a, a0, offset);        (a window of tensor a from offset)
 *   x = lg_in_at(a, a0, q);          (its element q)
 *   x4 = lg_in4_at(a, a0, q);        (elements q..q+3; a0 + q a
 *                                     multiple of 4)
 *   p = lg_inn_at(n, a, a0, q);      (the piece at element q, below)
 * a pointer on OpenCL, an offset on Vulkan; where the count is a define,
 * an array of them: LG_WINDOWS(a, rows, LG_KH); then
 * LG_WINDOW_SET(a, rows[i], offset) and lg_in_at(a, rows[i], q).
 * Windows that may fall outside the input read zeros there:
 *   LG_ZERO_WINDOWS(a, zeros, px, LG_PIX);
 *   LG_ZERO_WINDOW_SET(a, zeros, px[r], inside, offset);
 *   x = lg_in_atz(a, zeros, px[r], c);
 * zeros is a buffer argument of zeros as long as the reads; OpenCL points
 * the window at it (a plain load; a select per read made conv_general
 * 1.5-1.8x slower on PoCL), Vulkan loads from the tensor and selects 0.0.
 * LG_UNSWITCH (1 on OpenCL, 0 on Vulkan) says whether to write a loop
 * body out twice to fold a run-time test in each copy: PoCL keeps each
 * copy in registers, lavapipe ran slower for the second copy's code.
 * Wide blocks: n lanes of consecutive channels (n = 1, 4, 8 or 16; a
 * literal or a define the lowering passes, as -DLG_VEC=8: on OpenCL it
 * names the type) are kept as pieces of LG_LANES(n) lanes (n on OpenCL,
 * which has float8 and float16; 4 on Vulkan, 1 for n = 1: lane x of a
 * vec4), so a block is n / LG_LANES(n) pieces of type lg_floatn(n):
 *   lg_floatns(n, s)                 a piece of s in every lane
 *   lg_inn(n, t, i), lg_ldn(n, t, i) the piece at element i (a multiple
 *                                    of 4) of a TENSOR_IN / TENSOR_RO
 *   lg_inn_part(n, t, i, lanes)      its first `lanes` lanes, zeros past
 *   lg_stn(n, t, i, v)               store a piece (a statement)
 *   lg_stna(n, t, i, v)              the same at i a multiple of n (one
 *                                    aligned store on OpenCL)
 *   lg_stn_part(n, t, i, v, lanes)   store its first `lanes` lanes
 *   lg_clamp_actn(n, v, lo, hi), lg_tanhn(n, v)
 * Piece arithmetic is +, -, * and fma. OpenCL computes a block in one
 * wide vector (one AVX instruction on PoCL), Vulkan in vec4s (what GPUs
 * and lavapipe load and compute natively).
 *
 * ---- Precision (LG_FP16, LG_HALF_MATH) -- the rules for every kernel -------
 *   * Storage: without LG_FP16 float tensors hold float32. With LG_FP16
 *     (the backend's fp16_storage) every float tensor buffer (inputs,
 *     outputs, weights, biases, float scratch) holds float16; lg_in, lg_ld
 *     return float32 and lg_st rounds to float16 (a magnitude past 65504
 *     becomes +-inf). Int buffers stay int32 and scalar float arguments
 *     (clamp bounds, pad values, softmax beta) stay float32.
 *   * lg_real is the type of per-element arithmetic: float16 when
 *     LG_HALF_MATH is defined, float32 otherwise. OpenCL defines it only
 *     with LG_FP16 on devices with cl_khr_fp16; the Vulkan prelude defines
 *     it in every LG_FP16 build (that backend needs shaderFloat16). Only an
 *     op that rounds once from half inputs and stays within the fp16 bound
 *     (1e-2 * max(1, |ref|)) may be written in lg_real (lg_inr, lg_str):
 *     the binary ops but pow, and the piecewise-linear unary ops (relus,
 *     neg, abs, floor, leaky relu) and square. This is TFLite GPU's
 *     F32_F16 mode.
 *   * Everything else stays float32 and is rounded once when stored: sums
 *     over many terms (CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV,
 *     FULLY_CONNECTED, BATCH_MATMUL, AVERAGE_POOL_2D, MEAN, SUM, SOFTMAX's
 *     sum; an intermediate kept in a float tensor, as SOFTMAX's
 *     exponentials, is computed again rather than stored in half and read
 *     back), transcendental functions (evaluated from the half inputs),
 *     bilinear interpolation, products that may pass 65504 before a final
 *     division (HARD_SWISH's x * relu6(x + 3)), and the fused-activation
 *     clamps, which compare in float32 against the float32 bounds (NaN
 *     passes).
 */
#ifndef LG_KERNEL_H_
#define LG_KERNEL_H_

/* The fused activation's clamp to [lo, hi]; NaN passes. */
float lg_clamp_act(float v, float lo, float hi) {
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return v;
}

float4 lg_clamp_act4(float4 v, float lo, float hi) {
  v = lg_select4(v, lg_float4s(lo), lg_lt4(v, lg_float4s(lo)));
  return lg_select4(v, lg_float4s(hi), lg_gt4(v, lg_float4s(hi)));
}

/* One step of a maximum that skips NaN: x replaces acc only when greater. */
float4 lg_max_step4(float4 acc, float4 x) {
  return lg_select4(acc, x, lg_gt4(x, acc));
}

float4 lg_tanh4(float4 v) {
  return lg_float4(lg_tanh(v.x), lg_tanh(v.y), lg_tanh(v.z), lg_tanh(v.w));
}

#endif /* LG_KERNEL_H_ */
