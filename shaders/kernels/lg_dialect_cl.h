/* The OpenCL side of the shared kernel dialect (shaders/kernels/lg_kernel.h
 * describes it). Part of the OpenCL preamble, after shaders/opencl/lg_types.cl
 * (LG_DATA, LG_LOADn, LG_STOREn, lg_real) and before lg_kernel.h. */
#define LG_OPENCL 1

/* Argument k is preceded by a comma unless it is the first. */
#define LG_SEP(k) LG_CAT(LG_SEP_, k)
#define LG_SEP_0
#define LG_SEP_1 ,
#define LG_SEP_2 ,
#define LG_SEP_3 ,
#define LG_SEP_4 ,
#define LG_SEP_5 ,
#define LG_SEP_6 ,
#define LG_SEP_7 ,
#define LG_SEP_8 ,
#define LG_SEP_9 ,
#define LG_SEP_10 ,
#define LG_SEP_11 ,
#define LG_SEP_12 ,
#define LG_SEP_13 ,
#define LG_SEP_14 ,
#define LG_SEP_15 ,
#define LG_SEP_16 ,
#define LG_SEP_17 ,
#define LG_SEP_18 ,
#define LG_SEP_19 ,
#define LG_SEP_20 ,
#define LG_SEP_21 ,
#define LG_SEP_22 ,
#define LG_SEP_23 ,
#define LG_SEP_24 ,
#define LG_SEP_25 ,
#define LG_SEP_26 ,
#define LG_SEP_27 ,
#define LG_SEP_28 ,
#define LG_SEP_29 ,
#define LG_SEP_30 ,
#define LG_SEP_31 ,

/* The interface: the kernel's parameter list. */
#define LG_KERNEL_BEGIN(name) __kernel void name(
#define LG_KERNEL_END )
#define LG_SCALARS_BEGIN
#define LG_SCALARS_END
#define LG_ARG_TENSOR_IN(k, name) LG_SEP(k) __global const LG_DATA* name
#define LG_ARG_TENSOR_RO(k, name) LG_SEP(k) __global const LG_DATA* name
#define LG_ARG_TENSOR_OUT(k, name) LG_SEP(k) __global LG_DATA* name
#define LG_ARG_TENSOR_RW(k, name) LG_SEP(k) __global LG_DATA* name
#define LG_ARG_INTS_IN(k, name) LG_SEP(k) __global const int* name
#define LG_ARG_INTS_OUT(k, name) LG_SEP(k) __global int* name
#define LG_ARG_INTS_RW(k, name) LG_SEP(k) __global int* name
#define LG_ARG_WORDS_IN(k, name) LG_SEP(k) __global const uint* name
#define LG_ARG_WORDS_RW(k, name) LG_SEP(k) __global uint* name
#define LG_ARG_INT(k, name) LG_SEP(k) int name
#define LG_ARG_UINT(k, name) LG_SEP(k) uint name
#define LG_ARG_FLOAT(k, name) LG_SEP(k) float name

/* A define's default (only reached when the define was not given), also
 * as LG_WORD_<name> for LG_WORD. */
#define LG_SPEC(id, name, value) enum { name = (value), LG_WORD_##name = (value) };
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
#define lg_inr(name, i) LG_LOADR1((i), (name))
#define lg_str(name, i, v) LG_STORER1((v), (i), (name))
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
