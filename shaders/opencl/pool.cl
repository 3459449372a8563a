/* AVERAGE_POOL_2D / MAX_POOL_2D on NHWC float tensor buffers
 * (lg_types.cl; the average's sum is float in every precision).
 *
 * Work item (cv, ox, r): channels [cv * LG_VEC, cv * LG_VEC + LG_VEC) of
 * output pixel (batch r / out_h, row r % out_h, column ox). The window of
 * output index o along a dim starts at o * stride - pad and is cut at the
 * input's edges; only its valid elements count, folded in (row, column)
 * order as the CPU kernel folds them, so average sums agree bit for bit.
 *
 * LG_MAX 0 average (sum / number of valid elements), 1 max (starts from
 *   -FLT_MAX and takes only greater values: NaN is skipped).
 * LG_VEC 4 (channels % 4 == 0, float4 loads) or 1.
 * lo/hi: the fused activation's clamp (NaN passes); LG_ACT_TANH applies
 * tanh after it. The global size may be rounded up: every work item checks
 * its index. */
#ifndef LG_MAX
#define LG_MAX 0
#endif
#ifndef LG_VEC
#define LG_VEC 1
#endif

#if LG_VEC == 4
typedef float4 lg_floatv;
#define LG_LOAD(p, i) LG_LOAD4(0, (p) + (i))
#define LG_STORE(v, p, i) LG_STORE4((v), 0, (p) + (i))
#else
typedef float lg_floatv;
#define LG_LOAD(p, i) LG_LOAD1(i, p)
#define LG_STORE(v, p, i) LG_STORE1(v, i, p)
#endif

__kernel void pool(__global const LG_DATA* in, __global LG_DATA* out, int in_h,
                   int in_w, int vectors, int out_h, int out_w, int rows,
                   int stride_h, int stride_w, int filter_h, int filter_w,
                   int pad_h, int pad_w, float lo, float hi) {
  const int cv = (int)get_global_id(0);
  const int ox = (int)get_global_id(1);
  const int r = (int)get_global_id(2);
  if (cv >= vectors || ox >= out_w || r >= rows) return;
  const int channels = vectors * LG_VEC;
  const int b = r / out_h;
  const int oy = r - b * out_h;
  /* The valid window: rows [y, y + nh), columns [x, x + nw). */
  const int origin_y = oy * stride_h - pad_h;
  const int origin_x = ox * stride_w - pad_w;
  const int fy0 = origin_y < 0 ? -origin_y : 0;
  const int fx0 = origin_x < 0 ? -origin_x : 0;
  const int fy1 = in_h - origin_y < filter_h ? in_h - origin_y : filter_h;
  const int fx1 = in_w - origin_x < filter_w ? in_w - origin_x : filter_w;
  const int nh = fy1 - fy0;
  const int nw = fx1 - fx0;
  const int y = origin_y + fy0;
  const int x = origin_x + fx0;
#if LG_MAX
  lg_floatv acc = (lg_floatv)(-FLT_MAX);
#else
  lg_floatv acc = (lg_floatv)(0.0f);
#endif
  for (int fy = 0; fy < nh; ++fy) {
    int offset = ((b * in_h + y + fy) * in_w + x) * channels + cv * LG_VEC;
    for (int fx = 0; fx < nw; ++fx, offset += channels) {
      const lg_floatv v = LG_LOAD(in, offset);
#if LG_MAX
      acc = select(acc, v, isgreater(v, acc));
#else
      acc += v;
#endif
    }
  }
#if LG_MAX
  lg_floatv res = acc;
#else
  lg_floatv res = acc / (float)(nh * nw);
#endif
  res = select(res, (lg_floatv)(lo), isless(res, (lg_floatv)(lo)));
  res = select(res, (lg_floatv)(hi), isgreater(res, (lg_floatv)(hi)));
#ifdef LG_ACT_TANH
  res = tanh(res);
#endif
  LG_STORE(res, out, (r * out_w + ox) * channels + cv * LG_VEC);
}
