/* TRANSPOSE_CONV (NHWC, float tensor buffers, lg_types.cl; float
 * accumulators in every precision), computed as a gather: output pixel
 * (n, oy, ox) sums, over the taps (fy, fx) with oy + pad_top - fy = iy * sh
 * and ox + pad_left - fx = ix * sw for an input pixel (iy, ix) inside the
 * input, the products in[n, iy, ix, :] . W[:, fy, fx, :]; then the bias
 * and the fused activation.
 *
 * w is packed (matmul_pack.cl's layout): ocpad / LG_VEC channel blocks,
 * each kh * kw * in_c vectors of LG_VEC output channels in (fy, fx, c)
 * order, zeros past out_c; a work item streams its block.
 *
 * Work item (g0, g1, g2): output channels [g0 * LG_VEC, +LG_VEC); g1 =
 * q * sw + phase picks the LG_COLS output columns ox = phase + (q * LG_COLS
 * + j) * sw, j < LG_COLS, which share their taps and read neighbouring
 * input columns (LG_COLS 1, 4 or 8, named variables so that they stay in
 * registers); g2 = n * out_h + oy. x_blocks = ceil(ceil(out_w / sw) /
 * LG_COLS).
 * has_bias: bias holds out_c floats (else it is not read). lo/hi: the
 * fused activation's clamp (NaN passes); LG_ACT_TANH applies tanh after it. The
 * global size may be rounded up: every work item checks its indices. */
#ifndef LG_VEC
#define LG_VEC 4
#endif
#ifndef LG_COLS
#define LG_COLS 4
#endif

#if LG_VEC == 8
typedef float8 floatv;
typedef int8 intv;
#else
typedef float4 floatv;
typedef int4 intv;
#endif
#define VLOAD LG_CAT(LG_LOAD, LG_VEC)
#define VSTORE LG_CAT(LG_STORE, LG_VEC)

#if LG_COLS == 1
#define FOR_COLS(X) X(0)
#elif LG_COLS == 4
#define FOR_COLS(X) X(0) X(1) X(2) X(3)
#else
#define FOR_COLS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#endif

/* Column j: accumulator acc_j; x_j points at its input pixel, v_j says
 * whether that pixel exists (at the left and right edges it may not). */
#define DECLARE_COL(j) floatv acc##j = (floatv)(0.0f);
#define POINT_COL(j)                                    \
  const bool v##j = ix0 + (j) >= 0 && ix0 + (j) < in_w; \
  const __global LG_DATA* x##j =                        \
      in_row + (size_t)clamp(ix0 + (j), 0, in_w - 1) * (size_t)in_c;
#define ACCUMULATE_COL(j) acc##j += LG_LOAD1(c, x##j) * wv;
#define ACCUMULATE_EDGE_COL(j) acc##j += (v##j ? LG_LOAD1(c, x##j) : 0.0f) * wv;
#define STORE_COL(j)                                                           \
  if (ox0 + (j)*sw < out_w) {                                                  \
    store(acc##j + add, o + (size_t)((j)*sw) * (size_t)out_c, full, o0, out_c, \
          lo, hi);                                                             \
  }

/* The clamp (NaN passes), tanh, and the store of LG_VEC channels starting
 * at dst (only those below out_c when !full). */
static void store(floatv v, __global LG_DATA* dst, bool full, int o0, int out_c,
                  float lo, float hi) {
  v = select(v, (floatv)(lo), (intv)(v < (floatv)(lo)));
  v = select(v, (floatv)(hi), (intv)(v > (floatv)(hi)));
#ifdef LG_ACT_TANH
  v = tanh(v);
#endif
  if (full) {
    VSTORE(v, 0, dst);
  } else {
    float tail[LG_VEC];
    LG_CAT(vstore, LG_VEC)(v, 0, tail);
    for (int t = 0; o0 + t < out_c; ++t) LG_STORE1(tail[t], t, dst);
  }
}

__kernel void transpose_conv(__global const LG_DATA* in,
                             __global const LG_DATA* w,
                             __global const LG_DATA* bias, int has_bias,
                             __global LG_DATA* out, int in_h, int in_w,
                             int in_c, int out_h, int out_w, int out_c,
                             int ocpad, int kh, int kw, int sh, int sw,
                             int pad_top, int pad_left, int x_blocks, int rows,
                             float lo, float hi) {
  const int o0 = (int)get_global_id(0) * LG_VEC;
  const int g1 = (int)get_global_id(1);
  const int g2 = (int)get_global_id(2);
  if (o0 >= out_c || g1 >= x_blocks * sw || g2 >= rows) return;
  const int phase = g1 % sw, q = g1 / sw;
  const int ox0 = phase + q * LG_COLS * sw;
  if (ox0 >= out_w) return;
  const int n = g2 / out_h, oy = g2 % out_h;
  const int taps = kh * kw * in_c;

  FOR_COLS(DECLARE_COL)
  for (int fy = 0; fy < kh; ++fy) {
    const int ty = oy + pad_top - fy;
    if (ty < 0 || ty % sh != 0 || ty / sh >= in_h) continue;
    const __global LG_DATA* in_row =
        in + ((size_t)n * (size_t)in_h + (size_t)(ty / sh)) * (size_t)in_w *
                 (size_t)in_c;
    for (int fx = 0; fx < kw; ++fx) {
      const int tx = ox0 + pad_left - fx;
      /* tx may be negative: test divisibility on a non-negative value. */
      if ((tx % sw + sw) % sw != 0) continue;
      const int ix0 = tx / sw; /* exact, so truncation is right */
      if (ix0 >= in_w || ix0 + LG_COLS <= 0) continue;
      /* This work item's channel block: in_c vectors per tap. */
      const __global LG_DATA* wp =
          w + (size_t)o0 * (size_t)taps +
          (size_t)((fy * kw + fx) * in_c) * (size_t)LG_VEC;
      FOR_COLS(POINT_COL)
      if (ix0 >= 0 && ix0 + LG_COLS <= in_w) {
        for (int c = 0; c < in_c; ++c) {
          const floatv wv = VLOAD(c, wp);
          FOR_COLS(ACCUMULATE_COL)
        }
      } else {
        for (int c = 0; c < in_c; ++c) {
          const floatv wv = VLOAD(c, wp);
          FOR_COLS(ACCUMULATE_EDGE_COL)
        }
      }
    }
  }

  const bool full = o0 + LG_VEC <= out_c;
  floatv add = (floatv)(0.0f);
  if (has_bias && full) {
    add = VLOAD(0, bias + o0);
  } else if (has_bias) {
    float tail[LG_VEC];
    for (int j = 0; j < LG_VEC; ++j) {
      tail[j] = o0 + j < out_c ? LG_LOAD1(o0 + j, bias) : 0.0f;
    }
    add = LG_CAT(vload, LG_VEC)(0, tail);
  }
  __global LG_DATA* o =
      out +
      (((size_t)n * (size_t)out_h + (size_t)oy) * (size_t)out_w + (size_t)ox0) *
          (size_t)out_c +
      o0;
  FOR_COLS(STORE_COL)
}
