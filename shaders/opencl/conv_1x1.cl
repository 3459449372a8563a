/* 1x1 convolution, stride 1, no padding: a GEMM over pixels on float
 * tensor buffers (lg_types.cl; float accumulators in every precision).
 *   out[p, o] = act(sum_k in[p, k] * w[o, k] + bias[o])
 * for p < pixels (batch * height * width, NHWC rows of `ic` floats).
 *
 * Work item (i, j) computes LG_PIX consecutive pixels [i * LG_PIX, +LG_PIX)
 * times one block of LG_OB = LG_W * LG_NV output channels [j * LG_OB, +LG_OB),
 * held as LG_PIX * LG_NV vectors of LG_W floats; every weight vector loaded
 * feeds LG_PIX fused multiply-adds. LG_OC_FAST swaps the two dimensions
 * (work item (j, i)), so neighbouring work items share their pixels.
 *   w:    packed on the host as [oc_pad / LG_OB][ic][LG_OB] (zero padded),
 *   bias: [oc_pad] (zeros without a bias).
 * Pixels past the end read the last pixel and are not written; channels past
 * `oc` are computed on the zero padding and not written.
 * lo/hi: the fused activation's clamp (NaN passes); LG_ACT_TANH applies tanh
 * after it. LG_RESIDUAL adds res[p, o] (a following ADD absorbed by the
 * lowering) before the activation; without it `res` is not read. The
 * global size may be rounded up: every work item checks. */
#ifndef LG_W
#define LG_W 16
#endif
#ifndef LG_NV
#define LG_NV 2
#endif
#ifndef LG_PIX
#define LG_PIX 8
#endif

/* Helpers must inline (their private arrays then live in registers). */
#if defined(__clang__)
#define LG_INLINE static inline __attribute__((always_inline))
#else
#define LG_INLINE static inline
#endif

#define VT LG_CAT(float, LG_W)
#define VLOAD LG_CAT(LG_LOAD, LG_W)
#define VSTORE LG_CAT(LG_STORE, LG_W)
#define LG_OB (LG_W * LG_NV)

/* A whole-vector store. LG_ALIGNED (set when the channel count is a
 * multiple of LG_W, so every vector starts a multiple of LG_W values into a
 * buffer whose base OpenCL aligns to at least 128 bytes) stores it aligned
 * (through a vector pointer in float32): one store, where vstoreN may be
 * split. */
#ifdef LG_ALIGNED
#define STORE_VEC(v, p) LG_CAT(LG_STOREA, LG_W)(v, 0, p)
#else
#define STORE_VEC(v, p) VSTORE(v, 0, p)
#endif

/* Clamp (NaN passes), optional tanh, store; a partial vector at the channel
 * end is stored lane by lane. */
LG_INLINE void conv_1x1_store(VT v, float lo, float hi, __global LG_DATA* dst,
                              const __global LG_DATA* res, int lanes) {
#ifdef LG_RESIDUAL
  if (lanes >= LG_W) {
    v += VLOAD(0, res);
  } else {
    float tmp[LG_W];
    LG_CAT(vstore, LG_W)(v, 0, tmp);
    for (int l = 0; l < lanes; ++l) tmp[l] += LG_LOAD1(l, res);
    v = LG_CAT(vload, LG_W)(0, tmp);
  }
#else
  (void)res;
#endif
  v = select(v, (VT)(lo), v < (VT)(lo));
  v = select(v, (VT)(hi), v > (VT)(hi));
#ifdef LG_ACT_TANH
  v = tanh(v);
#endif
  if (lanes >= LG_W) {
    STORE_VEC(v, dst);
  } else if (lanes > 0) {
    float tmp[LG_W];
    LG_CAT(vstore, LG_W)(v, 0, tmp);
    for (int l = 0; l < lanes; ++l) LG_STORE1(tmp[l], l, dst);
  }
}

__kernel void conv_1x1(__global const LG_DATA* restrict in,
                       __global const LG_DATA* restrict w,
                       __global const LG_DATA* restrict bias,
                       __global LG_DATA* restrict out, int pixels, int ic,
                       int oc, float lo, float hi,
                       __global const LG_DATA* restrict res) {
#ifdef LG_OC_FAST
  const int p0 = (int)get_global_id(1) * LG_PIX;
  const int ob = (int)get_global_id(0);
#else
  const int p0 = (int)get_global_id(0) * LG_PIX;
  const int ob = (int)get_global_id(1);
#endif
  const int o0 = ob * LG_OB;
  if (p0 >= pixels || o0 >= oc) return;
  const __global LG_DATA* src[LG_PIX];
#pragma unroll
  for (int r = 0; r < LG_PIX; ++r) {
    src[r] = in + (size_t)min(p0 + r, pixels - 1) * ic;
  }
  VT acc[LG_PIX][LG_NV];
#pragma unroll
  for (int r = 0; r < LG_PIX; ++r) {
#pragma unroll
    for (int v = 0; v < LG_NV; ++v) acc[r][v] = (VT)(0.0f);
  }
  const __global LG_DATA* wp = w + (size_t)ob * ic * LG_OB;
  for (int k = 0; k < ic; ++k) {
    VT wv[LG_NV];
#pragma unroll
    for (int v = 0; v < LG_NV; ++v) wv[v] = VLOAD(v, wp);
    wp += LG_OB;
#pragma unroll
    for (int r = 0; r < LG_PIX; ++r) {
      const VT x = (VT)(LG_LOAD1(k, src[r]));
#pragma unroll
      for (int v = 0; v < LG_NV; ++v) acc[r][v] = fma(x, wv[v], acc[r][v]);
    }
  }
  VT b[LG_NV];
#pragma unroll
  for (int v = 0; v < LG_NV; ++v) b[v] = VLOAD(v, bias + o0);
#pragma unroll
  for (int r = 0; r < LG_PIX; ++r) {
    if (p0 + r >= pixels) break;
    __global LG_DATA* dst = out + (size_t)(p0 + r) * oc + o0;
    const __global LG_DATA* add = res + (size_t)(p0 + r) * oc + o0;
#pragma unroll
    for (int v = 0; v < LG_NV; ++v) {
      conv_1x1_store(acc[r][v] + b[v], lo, hi, dst + v * LG_W, add + v * LG_W,
                     oc - o0 - v * LG_W);
    }
  }
}
