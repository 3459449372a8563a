/* 2-D convolution of any window, stride, dilation and padding, on float
 * tensor buffers (lg_types.cl; float accumulators in every precision):
 *   out[n, y, x, o] = act(bias[o] + sum over (fh, fw, c) of
 *       in[n, y * SH - pad_top + fh * DH, x * SW - pad_left + fw * DW, c]
 *       * w[o, fh, fw, c])
 * with taps outside the input reading 0.
 *
 * Work item (i, y, z) computes LG_PIX consecutive output columns
 * [i * LG_PIX, +LG_PIX) of row y of image n = z / oc_blocks, times one block
 * of LG_OB = LG_W * LG_NV output channels starting at (z % oc_blocks) *
 * LG_OB, as LG_PIX * LG_NV vectors of LG_W floats. LG_OC_FAST puts the
 * channel blocks on dimension 0: work item (ob, y, z) with z = n *
 * column_blocks + i, so neighbouring work items share their columns.
 *   w:     packed on the host as [oc_pad / LG_OB][kh][kw][ic][LG_OB] (zero
 *          padded), so the window is one linear run of weight vectors;
 *   bias:  [oc_pad] (zeros without a bias);
 *   zeros: at least `ic` zeros: a tap outside the input reads its channels
 *          from here, which keeps the channel loop free of bounds checks.
 * Work items whose whole window lies inside the input skip every check.
 * LG_IC, LG_KH, LG_KW, LG_SW and LG_DW, when defined, fix ic, kh, kw,
 * stride_w and dil_w at compile time (for small first layers: the loops
 * unroll and the tap addresses become constant offsets).
 * Columns past out_w and channels past oc are computed (on clamped columns
 * and the padding) and not written. lo/hi: the activation's clamp (NaN
 * passes); LG_ACT_TANH applies tanh after it. The global size may be
 * rounded up: every work item checks. */
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

#ifdef LG_IC
#define IC LG_IC
#else
#define IC ic
#endif
#ifdef LG_KH
#define KH LG_KH
#else
#define KH kh
#endif
#ifdef LG_KW
#define KW LG_KW
#else
#define KW kw
#endif
#ifdef LG_SW
#define SW LG_SW
#else
#define SW stride_w
#endif
#ifdef LG_DW
#define DW LG_DW
#else
#define DW dil_w
#endif

/* Clamp (NaN passes), optional tanh, store `lanes` floats. */
LG_INLINE void conv_general_store(VT v, float lo, float hi,
                                  __global LG_DATA* dst, int lanes) {
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

/* The window sums of the work item into acc. `checked` (a constant at each
 * call, so it folds away) adds the bounds checks of rows and columns. */
LG_INLINE void conv_general_sum(const __global LG_DATA* image,
                                const __global LG_DATA* wp,
                                const __global LG_DATA* zeros, int in_h,
                                int in_w, int ic, int kh, int kw, int dil_h,
                                int stride_w, int dil_w, int top, int left,
                                bool checked, VT acc[LG_PIX][LG_NV]) {
#pragma unroll
  for (int r = 0; r < LG_PIX; ++r) {
#pragma unroll
    for (int v = 0; v < LG_NV; ++v) acc[r][v] = (VT)(0.0f);
  }
#ifdef LG_KH
#pragma unroll
#endif
  for (int fh = 0; fh < KH; ++fh) {
    const int iy = top + fh * dil_h;
    const bool row_inside = !checked || (iy >= 0 && iy < in_h);
    const __global LG_DATA* row =
        image + (size_t)(row_inside ? iy : 0) * in_w * IC;
#ifdef LG_KW
#pragma unroll
#endif
    for (int fw = 0; fw < KW; ++fw) {
      const __global LG_DATA* src[LG_PIX];
#pragma unroll
      for (int r = 0; r < LG_PIX; ++r) {
        const int ix = left + r * SW + fw * DW;
        const bool inside = row_inside && (!checked || (ix >= 0 && ix < in_w));
        src[r] = inside ? row + ix * IC : zeros;
      }
#ifdef LG_IC
#pragma unroll
#endif
      for (int c = 0; c < IC; ++c) {
        VT wv[LG_NV];
#pragma unroll
        for (int v = 0; v < LG_NV; ++v) wv[v] = VLOAD(v, wp);
        wp += LG_OB;
#pragma unroll
        for (int r = 0; r < LG_PIX; ++r) {
          const VT x = (VT)(LG_LOAD1(c, src[r]));
#pragma unroll
          for (int v = 0; v < LG_NV; ++v) {
            acc[r][v] = fma(x, wv[v], acc[r][v]);
          }
        }
      }
    }
  }
}

__kernel void conv_general(__global const LG_DATA* restrict in,
                           __global const LG_DATA* restrict w,
                           __global const LG_DATA* restrict bias,
                           __global const LG_DATA* restrict zeros,
                           __global LG_DATA* restrict out, int batch, int in_h,
                           int in_w, int ic, int out_h, int out_w, int oc,
                           int stride_h, int stride_w, int dil_h, int dil_w,
                           int pad_top, int pad_left, int kh, int kw,
                           int oc_blocks, float lo, float hi) {
  const int y = (int)get_global_id(1);
  const int z = (int)get_global_id(2);
#ifdef LG_OC_FAST
  const int column_blocks = (out_w + LG_PIX - 1) / LG_PIX;
  const int n = z / column_blocks;
  const int ob = (int)get_global_id(0);
  const int x0 = (z - n * column_blocks) * LG_PIX;
#else
  const int n = z / oc_blocks;
  const int ob = z - n * oc_blocks;
  const int x0 = (int)get_global_id(0) * LG_PIX;
#endif
  if (x0 >= out_w || y >= out_h || n >= batch || ob >= oc_blocks) return;
  const int o0 = ob * LG_OB;
  const int top = y * stride_h - pad_top;
  const int left = x0 * SW - pad_left;
  const __global LG_DATA* image = in + (size_t)n * in_h * in_w * IC;
  const __global LG_DATA* wp = w + (size_t)ob * KH * KW * IC * LG_OB;
  const bool interior = top >= 0 && top + (KH - 1) * dil_h < in_h &&
                        left >= 0 &&
                        left + (LG_PIX - 1) * SW + (KW - 1) * DW < in_w;
  VT acc[LG_PIX][LG_NV];
  if (interior) {
    conv_general_sum(image, wp, zeros, in_h, in_w, ic, kh, kw, dil_h, stride_w,
                     dil_w, top, left, false, acc);
  } else {
    conv_general_sum(image, wp, zeros, in_h, in_w, ic, kh, kw, dil_h, stride_w,
                     dil_w, top, left, true, acc);
  }
  VT b[LG_NV];
#pragma unroll
  for (int v = 0; v < LG_NV; ++v) b[v] = VLOAD(v, bias + o0);
  __global LG_DATA* dst =
      out + (((size_t)n * out_h + y) * out_w + x0) * oc + o0;
#pragma unroll
  for (int r = 0; r < LG_PIX; ++r) {
    if (x0 + r < out_w) {
#pragma unroll
      for (int v = 0; v < LG_NV; ++v) {
        conv_general_store(acc[r][v] + b[v], lo, hi,
                           dst + (size_t)r * oc + v * LG_W, oc - o0 - v * LG_W);
      }
    }
  }
}
