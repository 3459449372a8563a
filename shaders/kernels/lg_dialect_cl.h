/* The OpenCL side of the shared kernel dialect (shaders/kernels/lg_kernel.h
 * describes it). Part of the OpenCL preamble, after shaders/opencl/lg_types.cl
 * (LG_DATA, LG_LOADn, LG_STOREn, lg_real) and before lg_kernel.h. */
#define LG_OPENCL 1

/* The interface (lg_kernel.h): LG_KERNEL(name, LG_ARGS) is the kernel's
 * head, its parameters in the order LG_ARGS lists them. Buffer binding 0
 * is the first parameter; every other parameter follows a comma. */
#define LG_KERNEL(name, args) __kernel void name(args(LG_CL_BUF_, LG_CL_VAL_))
#define LG_KERNEL_LOCAL(name, args, decls) LG_KERNEL(name, args) { decls
#define LG_KERNEL_CLOSE }
#define LG_LOCAL(type, name, size) __local type name[size];
#define lg_barrier() barrier(CLK_LOCAL_MEM_FENCE)

#define LG_CL_BUF_(b, kind, name) LG_CAT(LG_CL_SEP_, b) LG_CL_##kind name
#define LG_CL_VAL_(kind, name) , LG_CL_##kind name
#define LG_CL_SEP_0
#define LG_CL_SEP_1 ,
#define LG_CL_SEP_2 ,
#define LG_CL_SEP_3 ,
#define LG_CL_SEP_4 ,
#define LG_CL_SEP_5 ,
#define LG_CL_SEP_6 ,
#define LG_CL_SEP_7 ,
#define LG_CL_TENSOR_IN __global const LG_DATA*
#define LG_CL_TENSOR_RO __global const LG_DATA*
#define LG_CL_TENSOR_OUT __global LG_DATA*
#define LG_CL_TENSOR_RW __global LG_DATA*
#define LG_CL_INTS_IN __global const int*
#define LG_CL_INTS_OUT __global int*
#define LG_CL_INTS_RW __global int*
#define LG_CL_WORDS_IN __global const uint*
#define LG_CL_WORDS_RW __global uint*
#define LG_CL_INT int
#define LG_CL_UINT uint
#define LG_CL_FLOAT float

/* A define's default (only reached when the define was not given), also
 * as LG_WORD_<name> for LG_WORD. */
#define LG_SPEC(id, name, value) \
  enum { name = (value), LG_WORD_##name = (value) };
/* A define whose value is a word (-DLG_SRC=float): LG_WORD_<word> is its
 * number. */
#define LG_WORD(x) LG_CAT(LG_WORD_, x)

/* Work items. */
#define lg_gid(d) ((int)get_global_id(d))
#define lg_lid(d) ((int)get_local_id(d))
#define lg_group(d) ((int)get_group_id(d))

/* Float tensors (LG_FP16: half storage converted at the access). */
#define lg_in(name, i) LG_LOAD1((i), (name))
#define lg_in4(name, q) LG_LOAD4((q), (name))
#define lg_ld(name, i) LG_LOAD1((i), (name))
#define lg_st(name, i, v) LG_STORE1((v), (i), (name))
#define lg_ld4(name, i) LG_LOAD4(0, (name) + (i))
#define lg_st4(name, i, v) LG_STORE4((v), 0, (name) + (i))
#define lg_inr(name, i) LG_LOADR1((i), (name))
#define lg_str(name, i, v) LG_STORER1((v), (i), (name))
/* A window into a float tensor from element `offset` on (lg_kernel.h):
 * a pointer here, so that reads through several windows at one common
 * index are base + index addresses. */
#define LG_WINDOW(t, v, offset) \
  __global const LG_DATA* const v = (t) + (offset)
/* An array of windows: LG_WINDOWS(t, v, count); then
 * LG_WINDOW_SET(t, v[i], offset) points v[i] at element offset. */
#define LG_WINDOWS(t, v, count) __global const LG_DATA* v[count]
#define LG_WINDOW_SET(t, v, offset) ((v) = (t) + (offset))
#define lg_in_at(t, v, i) LG_LOAD1((i), (v))
/* Windows that read zeros where they fall outside the input: a pointer to
 * t + offset, or to z, a buffer of zeros as long as the reads (no test at
 * the read). */
#define LG_ZERO_WINDOWS(t, z, v, count) __global const LG_DATA* v[count]
#define LG_ZERO_WINDOW_SET(t, z, v, inside, offset) \
  ((v) = (inside) ? (t) + (offset) : (z))
#define lg_in_atz(t, z, v, i) LG_LOAD1((i), (v))
#define lg_in4_at(t, v, i) LG_LOAD4(0, (v) + (i))

/* Whether a kernel writes a loop body out twice to fold a run-time test
 * in each copy (unswitching by hand): the compilers keep each copy in
 * registers (depthwise_conv's column checks: 1.2-2.2x the time on PoCL
 * with the test inside). */
#define LG_UNSWITCH 1

/* Pieces of n-lane blocks (lg_kernel.h: "Register blocking"): OpenCL keeps
 * a block of n = 1, 4, 8 or 16 lanes as one value of type lg_vfn (float or
 * floatn), so a piece is the whole block (n must be a literal or a -D
 * define here: it names a type). */
typedef float lg_vf1;
typedef float4 lg_vf4;
typedef float8 lg_vf8;
typedef float16 lg_vf16;
#define LG_STOREA1(v, i, p) LG_STORE1(v, i, p)
#define LG_LANES(n) (n)
#define lg_floatn(n) LG_CAT(lg_vf, n)
#define lg_floatns(n, s) ((LG_CAT(lg_vf, n))(s))
#define lg_inn(n, t, i) LG_CAT(LG_LOAD, n)(0, (t) + (i))
#define lg_inn_at(n, t, v, i) LG_CAT(LG_LOAD, n)(0, (v) + (i))
#define lg_ldn(n, t, i) LG_CAT(LG_LOAD, n)(0, (t) + (i))
#define lg_stn(n, t, i, v) LG_CAT(LG_STORE, n)((v), 0, (t) + (i))
/* A store at an element i that is a multiple of n: one aligned vector
 * store (vstoren may be split). */
#define lg_stna(n, t, i, v) LG_CAT(LG_STOREA, n)((v), 0, (t) + (i))
#define lg_inn_part(n, t, i, lanes) LG_CAT(lg_cl_in_part, n)((t) + (i), (lanes))
#define lg_stn_part(n, t, i, v, lanes) \
  LG_CAT(lg_cl_st_part, n)((t) + (i), (v), (lanes))
#define lg_clamp_actn(n, v, lo, hi) LG_CAT(lg_cl_clamp_act, n)((v), (lo), (hi))
#define lg_tanhn(n, v) tanh(v)
/* The first `lanes` lanes of a piece (all of them when lanes >= n; zeros
 * past them on loads), and the fused activation's clamp (NaN passes).
 * Plain functions, as lg_kernel.h's: a kernel that uses none of them
 * compiles without an unused-function warning. */
#define LG_CL_PART(n)                                                       \
  lg_vf##n lg_cl_in_part##n(const __global LG_DATA* p, int lanes) {         \
    if (lanes >= n) return LG_LOAD##n(0, p);                                \
    float tmp[n];                                                           \
    for (int l = 0; l < n; ++l) tmp[l] = l < lanes ? LG_LOAD1(l, p) : 0.0f; \
    return vload##n(0, tmp);                                                \
  }                                                                         \
  void lg_cl_st_part##n(__global LG_DATA* p, lg_vf##n v, int lanes) {       \
    if (lanes >= n) {                                                       \
      LG_STORE##n(v, 0, p);                                                 \
      return;                                                               \
    }                                                                       \
    float tmp[n];                                                           \
    vstore##n(v, 0, tmp);                                                   \
    for (int l = 0; l < lanes; ++l) LG_STORE1(tmp[l], l, p);                \
  }                                                                         \
  lg_vf##n lg_cl_clamp_act##n(lg_vf##n v, float lo, float hi) {             \
    v = select(v, (lg_vf##n)(lo), isless(v, (lg_vf##n)(lo)));               \
    return select(v, (lg_vf##n)(hi), isgreater(v, (lg_vf##n)(hi)));         \
  }
LG_CL_PART(4)
LG_CL_PART(8)
LG_CL_PART(16)
float lg_cl_in_part1(const __global LG_DATA* p, int lanes) {
  return lanes >= 1 ? LG_LOAD1(0, p) : 0.0f;
}
void lg_cl_st_part1(__global LG_DATA* p, float v, int lanes) {
  if (lanes >= 1) LG_STORE1(v, 0, p);
}
float lg_cl_clamp_act1(float v, float lo, float hi) {
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return v;
}

/* dst[j] = src[i] as bits (every pattern survives). */
#define lg_mov(dst, j, src, i) \
  (((__global LG_BITS*)(dst))[j] = ((__global const LG_BITS*)(src))[i])

/* Elements of word buffers (LG_ARG_WORDS_*): element i of an array of
 * bytes, float16 or float32 values held in 32-bit words. The float ones
 * are float tensor elements: float16 under LG_FP16. */
#define lg_word_u8(w, i) ((uint)((__global const uchar*)(w))[i])
#define lg_word_st_u8(w, i, v) (((__global uchar*)(w))[i] = (uchar)(v))
#ifdef LG_FP16
#define lg_word_float(w, i) vload_half((i), (__global const half*)(w))
#define lg_word_st_float(w, i, v) vstore_half_rte((v), (i), (__global half*)(w))
#else
#define lg_word_float(w, i) as_float((w)[i])
#define lg_word_st_float(w, i, v) ((w)[i] = as_uint((float)(v)))
#endif

/* Conversions and vectors. */
#define lg_cvt_float(x) ((float)(x))
#define lg_cvt_int(x) ((int)(x))
#define lg_cvt_uint(x) ((uint)(x))
#define lg_cvt_real(x) ((lg_real)(x))
#define lg_float4(a, b, c, d) ((float4)((a), (b), (c), (d)))
#define lg_float4s(s) ((float4)(s))
#define lg_int_as_float(x) as_float(x)
/* Lane-wise a > b, a < b (false with NaN) and c ? b : a. */
#define lg_gt4(a, b) isgreater((a), (b))
#define lg_lt4(a, b) isless((a), (b))
#define lg_select4(a, b, c) select((a), (b), (c))
/* Exact evaluation order: LG_NO_FP_CONTRACT at file scope, and LG_PRECISE
 * on the variables whose expressions must not be fused (Vulkan). */
#define LG_NO_FP_CONTRACT _Pragma("OPENCL FP_CONTRACT OFF")
/* A loop with constant bounds unrolled whole (its private arrays then live
 * in registers). */
#define LG_UNROLL _Pragma("unroll")
/* A loop with a large body whose count may be a compile-time constant:
 * unrolled whole where it is (#pragma unroll leaves a run-time count
 * alone). */
#define LG_UNROLL_LARGE _Pragma("unroll")
#define LG_PRECISE

/* Math: OpenCL's built-ins are precise enough. */
#define LG_FLT_MAX FLT_MAX
#define lg_abs(x) fabs(x)
#define lg_exp(x) exp(x)
#define lg_expm1(x) expm1(x)
#define lg_log(x) log(x)
#define lg_tanh(x) tanh(x)
#define lg_sin(x) sin(x)
#define lg_cos(x) cos(x)
#define lg_erfc(x) erfc(x)
#define lg_pow(x, y) pow((x), (y))
#define lg_logistic(x) (1.0f / (1.0f + exp(-(x))))
#define lg_rem(a, b) ((a) % (b))
