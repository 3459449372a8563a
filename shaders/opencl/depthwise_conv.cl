/* DEPTHWISE_CONV_2D on float tensor buffers (lg_types.cl; float
 * accumulators in every precision): output channel o reads input channel
 * o / mult (mult = out_c / in_c, the depth multiplier):
 *   out[n, y, x, o] = act(bias[o] + sum over (fh, fw) of
 *       in[n, y * LG_SH - pad_top + fh * LG_DH,
 *             x * LG_SW - pad_left + fw * LG_DW, o / mult] * w[fh, fw, o])
 * with taps outside the input reading 0.
 *
 * Work item (i, j, k) computes output columns [j * chunk, +chunk) of output
 * row k (flattened over batch and rows) for LG_CV output channels
 * [i * LG_CV, +LG_CV), one vector of LG_CV floats per column, LG_PIX columns
 * per step. A step loads the LG_SPAN input columns its window covers once
 * per filter row and shares them between taps and columns. Filter rows
 * outside the input read `zeros` as their row (so every row has the same
 * column stride); steps whose columns are all inside the input skip the
 * column checks.
 * Channel modes:
 *   LG_CV > 1, no LG_DW_BCAST: mult == 1 and LG_CV divides the channels,
 *       so each column is one vector load;
 *   LG_DW_BCAST: one input channel (out_c == mult), broadcast to the lanes;
 *   LG_CV == 1: any multiplier, one channel per work item.
 *   w:     [LG_KH * LG_KW][c_pad] (zero padded to c_pad, a multiple of LG_CV);
 *   bias:  [c_pad] (zeros without a bias);
 *   zeros: a zero row (in_w * in_c floats, at least LG_CV), read for taps
 *          outside the input.
 * The window (LG_KH, LG_KW), strides (LG_SH, LG_SW) and dilations (LG_DH,
 * LG_DW) are compile-time constants so that the tap loops unroll.
 * Channels past out_c are computed on the padding and not written.
 * lo/hi: the activation's clamp (NaN passes); LG_ACT_TANH applies tanh after
 * it. The global size may be rounded up: every work item checks. */
#ifndef LG_CV
#define LG_CV 4
#endif
#ifndef LG_PIX
#define LG_PIX 4
#endif
#ifndef LG_KH
#define LG_KH 3
#endif
#ifndef LG_KW
#define LG_KW 3
#endif
#ifndef LG_SH
#define LG_SH 1
#endif
#ifndef LG_SW
#define LG_SW 1
#endif
#ifndef LG_DH
#define LG_DH 1
#endif
#ifndef LG_DW
#define LG_DW 1
#endif
#define LG_SPAN ((LG_PIX - 1) * LG_SW + (LG_KW - 1) * LG_DW + 1)

/* Helpers must inline (their private arrays then live in registers). */
#if defined(__clang__)
#define LG_INLINE static inline __attribute__((always_inline))
#else
#define LG_INLINE static inline
#endif

#if LG_CV == 1
#define VT float
#else
#define VT LG_CAT(float, LG_CV)
#endif
#define VLOAD LG_CAT(LG_LOAD, LG_CV)
#define VSTORE LG_CAT(LG_STORE, LG_CV)

/* A whole-vector store: aligned (through a vector pointer in float32) when
 * LG_ALIGNED (the channel count is a multiple of LG_CV, so vectors are
 * aligned within buffers OpenCL aligns to at least 128 bytes), else
 * vstoreN. */
#if defined(LG_ALIGNED) && LG_CV > 1
#define STORE_VEC(v, p) LG_CAT(LG_STOREA, LG_CV)(v, 0, p)
#else
#define STORE_VEC(v, p) VSTORE(v, 0, p)
#endif

#if defined(LG_DW_BCAST)
#define LOAD_COLUMN(p) ((VT)(LG_LOAD1(0, p)))
#else
#define LOAD_COLUMN(p) VLOAD(0, p)
#endif

LG_INLINE void depthwise_conv_store(VT v, float lo, float hi,
                                    __global LG_DATA* dst, int lanes) {
  v = select(v, (VT)(lo), v < (VT)(lo));
  v = select(v, (VT)(hi), v > (VT)(hi));
#ifdef LG_ACT_TANH
  v = tanh(v);
#endif
#if LG_CV == 1
  (void)lanes;
  LG_STORE1(v, 0, dst);
#else
  if (lanes >= LG_CV) {
    STORE_VEC(v, dst);
  } else {
    float tmp[LG_CV];
    LG_CAT(vstore, LG_CV)(v, 0, tmp);
    for (int l = 0; l < lanes; ++l) LG_STORE1(tmp[l], l, dst);
  }
#endif
}

/* LG_PIX output columns whose window starts at input column `left`;
 * `checked` adds the column bounds checks (a constant at each call, so it
 * folds away). row[fh] points at column 0 of filter row fh's input row (or
 * at the zero row), columns are `in_c` floats apart. */
LG_INLINE void depthwise_conv_step(const __global LG_DATA* row[LG_KH], int in_c,
                                   const __global LG_DATA* zeros,
                                   const VT wv[LG_KH][LG_KW], int left,
                                   int in_w, bool checked, VT acc[LG_PIX]) {
#pragma unroll
  for (int r = 0; r < LG_PIX; ++r) acc[r] = (VT)(0.0f);
#pragma unroll
  for (int fh = 0; fh < LG_KH; ++fh) {
    const __global LG_DATA* column = row[fh] + left * in_c;
    VT col[LG_SPAN];
#pragma unroll
    for (int j = 0; j < LG_SPAN; ++j) {
      const bool outside = checked && (left + j < 0 || left + j >= in_w);
      col[j] = LOAD_COLUMN(outside ? zeros : column);
      column += in_c;
    }
#pragma unroll
    for (int fw = 0; fw < LG_KW; ++fw) {
#pragma unroll
      for (int r = 0; r < LG_PIX; ++r) {
        acc[r] = fma(col[r * LG_SW + fw * LG_DW], wv[fh][fw], acc[r]);
      }
    }
  }
}

__kernel void depthwise_conv(__global const LG_DATA* restrict in,
                             __global const LG_DATA* restrict w,
                             __global const LG_DATA* restrict bias,
                             __global const LG_DATA* restrict zeros,
                             __global LG_DATA* restrict out, int rows, int in_h,
                             int in_w, int in_c, int out_h, int out_w,
                             int out_c, int c_pad, int mult, int pad_top,
                             int pad_left, int chunk, float lo, float hi) {
  const int o0 = (int)get_global_id(0) * LG_CV;
  const int xs = (int)get_global_id(1) * chunk;
  const int ny = (int)get_global_id(2);
  if (o0 >= out_c || xs >= out_w || ny >= rows) return;
  const int xe = min(xs + chunk, out_w);
  const int n = ny / out_h;
  const int y = ny - n * out_h;
#if defined(LG_DW_BCAST)
  const int c0 = 0;
  (void)mult;
#elif LG_CV == 1
  const int c0 = o0 / mult;
#else
  const int c0 = o0;
  (void)mult;
#endif
  const __global LG_DATA* row[LG_KH];
  VT wv[LG_KH][LG_KW];
#pragma unroll
  for (int fh = 0; fh < LG_KH; ++fh) {
    const int iy = y * LG_SH - pad_top + fh * LG_DH;
    const bool inside = iy >= 0 && iy < in_h;
    row[fh] = inside ? in + ((size_t)n * in_h + iy) * in_w * in_c + c0 : zeros;
#pragma unroll
    for (int fw = 0; fw < LG_KW; ++fw) {
      wv[fh][fw] = VLOAD(0, w + (fh * LG_KW + fw) * c_pad + o0);
    }
  }
  const VT b = VLOAD(0, bias + o0);
  for (int x0 = xs; x0 < xe; x0 += LG_PIX) {
    const int left = x0 * LG_SW - pad_left;
    VT acc[LG_PIX];
    if (left >= 0 && left + LG_SPAN <= in_w) {
      depthwise_conv_step(row, in_c, zeros, wv, left, in_w, false, acc);
    } else {
      depthwise_conv_step(row, in_c, zeros, wv, left, in_w, true, acc);
    }
    __global LG_DATA* dst = out + ((size_t)ny * out_w + x0) * out_c + o0;
#pragma unroll
    for (int r = 0; r < LG_PIX; ++r) {
      if (x0 + r < xe) {
        depthwise_conv_store(acc[r] + b, lo, hi, dst + (size_t)r * out_c,
                             out_c - o0);
      }
    }
  }
}
