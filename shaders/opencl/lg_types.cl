/* The first part of the preamble of every OpenCL kernel, not a kernel
 * itself: the program builder (delegates/opencl/opencl_program.c) puts this
 * file, then shaders/kernels/lg_dialect_cl.h and lg_kernel.h, in front of
 * each kernel it compiles (shaders/kernels/NAME.lgk). These macros store float tensor data; what may
 * be computed in half is stated once, for both APIs, in
 * shaders/kernels/lg_kernel.h ("Precision").
 *
 * Float tensor buffers (inputs, outputs, weights, biases, float scratch)
 * are `__global LG_DATA*` and are only touched through the macros below;
 * int buffers stay int and float scalar arguments stay float.
 *
 *   (default)    LG_DATA is float: plain reads, vloadN and vstoreN.
 *   LG_FP16      half storage (the backend's fp16_storage): LG_DATA is
 *                half, read into float by vload_half/vload_halfN and
 *                written by vstore_half_rte/vstore_halfN_rte (round to
 *                nearest, ties to even). These are OpenCL 1.2 core
 *                built-ins, usable without cl_khr_fp16.
 *   LG_HALF_MATH with LG_FP16, passed only for devices with cl_khr_fp16
 *                (which this file then enables): lg_real, the type of the
 *                per-element arithmetic lg_kernel.h allows in half, is
 *                half; otherwise it is float.
 *
 * LG_LOADn(i, p) reads the n values at p + i * n as float (n = 1) or
 * floatn; LG_STOREn(v, i, p) writes float(n) v there; LG_STOREAn is
 * LG_STOREn for a vector that starts at a multiple of n values, i.e.
 * aligned to its own size (buffers start aligned to at least 128 bytes).
 * LG_LOADR1/LG_STORER1 read and write one lg_real. LG_BITS is an unsigned
 * integer of the element's size, for copies that move bits unchanged. */
#if defined(LG_HALF_MATH) && !defined(LG_FP16)
#error "LG_HALF_MATH needs LG_FP16"
#endif

#define LG_CAT_(a, b) a##b
#define LG_CAT(a, b) LG_CAT_(a, b)

#ifdef LG_FP16
#define LG_DATA half
#define LG_BITS ushort
#define LG_LOAD1(i, p) vload_half((i), (p))
#define LG_LOAD2(i, p) vload_half2((i), (p))
#define LG_LOAD4(i, p) vload_half4((i), (p))
#define LG_LOAD8(i, p) vload_half8((i), (p))
#define LG_LOAD16(i, p) vload_half16((i), (p))
#define LG_STORE1(v, i, p) vstore_half_rte((v), (i), (p))
#define LG_STORE2(v, i, p) vstore_half2_rte((v), (i), (p))
#define LG_STORE4(v, i, p) vstore_half4_rte((v), (i), (p))
#define LG_STORE8(v, i, p) vstore_half8_rte((v), (i), (p))
#define LG_STORE16(v, i, p) vstore_half16_rte((v), (i), (p))
#define LG_STOREA2(v, i, p) vstorea_half2_rte((v), (i), (p))
#define LG_STOREA4(v, i, p) vstorea_half4_rte((v), (i), (p))
#define LG_STOREA8(v, i, p) vstorea_half8_rte((v), (i), (p))
#define LG_STOREA16(v, i, p) vstorea_half16_rte((v), (i), (p))
#else
#define LG_DATA float
#define LG_BITS uint
#define LG_LOAD1(i, p) ((p)[i])
#define LG_LOAD2(i, p) vload2((i), (p))
#define LG_LOAD4(i, p) vload4((i), (p))
#define LG_LOAD8(i, p) vload8((i), (p))
#define LG_LOAD16(i, p) vload16((i), (p))
#define LG_STORE1(v, i, p) ((p)[i] = (v))
#define LG_STORE2(v, i, p) vstore2((v), (i), (p))
#define LG_STORE4(v, i, p) vstore4((v), (i), (p))
#define LG_STORE8(v, i, p) vstore8((v), (i), (p))
#define LG_STORE16(v, i, p) vstore16((v), (i), (p))
#define LG_STOREA2(v, i, p) (((__global float2*)(p))[i] = (v))
#define LG_STOREA4(v, i, p) (((__global float4*)(p))[i] = (v))
#define LG_STOREA8(v, i, p) (((__global float8*)(p))[i] = (v))
#define LG_STOREA16(v, i, p) (((__global float16*)(p))[i] = (v))
#endif

#ifdef LG_HALF_MATH
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half lg_real;
#define LG_LOADR1(i, p) ((p)[i])
#define LG_STORER1(v, i, p) ((p)[i] = (v))
#else
typedef float lg_real;
#define LG_LOADR1(i, p) LG_LOAD1(i, p)
#define LG_STORER1(v, i, p) LG_STORE1(v, i, p)
#endif
