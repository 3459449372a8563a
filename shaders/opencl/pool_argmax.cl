/* MediaPipe's MaxPoolingWithArgmax2D on NHWC float tensor buffers
 * (lg_types.cl): MAX_POOL_2D that also writes where each maximum lies in
 * its window, as a float y * filter_w + x + 0.1 (the CPU kernel's value,
 * runtime/kernels/mediapipe_ops.c).
 *
 * Work item (c, ox, r): channel c of output pixel (batch r / out_h, row
 * r % out_h, column ox). The window of output index o along a dim starts
 * at o * stride - pad; positions outside the input are skipped. The first
 * maximum in (row, column) order wins; NaN never does (the start is
 * -FLT_MAX and only greater values replace it). lo/hi: the fused
 * activation's clamp of the value. The global size may be rounded up:
 * every work item checks its index. */
__kernel void pool_argmax(__global const LG_DATA* in, __global LG_DATA* out,
                          __global LG_DATA* positions, int in_h, int in_w,
                          int channels, int out_h, int out_w, int rows,
                          int stride_h, int stride_w, int filter_h,
                          int filter_w, int pad_h, int pad_w, float lo,
                          float hi) {
  const int c = (int)get_global_id(0);
  const int ox = (int)get_global_id(1);
  const int r = (int)get_global_id(2);
  if (c >= channels || ox >= out_w || r >= rows) return;
  const int b = r / out_h;
  const int oy = r - b * out_h;
  const int y0 = oy * stride_h - pad_h;
  const int x0 = ox * stride_w - pad_w;
  float best = -FLT_MAX;
  int best_at = 0;
  for (int fy = 0; fy < filter_h; ++fy) {
    const int y = y0 + fy;
    if (y < 0 || y >= in_h) continue;
    for (int fx = 0; fx < filter_w; ++fx) {
      const int x = x0 + fx;
      if (x < 0 || x >= in_w) continue;
      const float v = LG_LOAD1(((b * in_h + y) * in_w + x) * channels + c, in);
      if (v > best) {
        best = v;
        best_at = fy * filter_w + fx;
      }
    }
  }
  const int o = (r * out_w + ox) * channels + c;
  LG_STORE1(best < lo ? lo : (best > hi ? hi : best), o, out);
  LG_STORE1((float)best_at + 0.1f, o, positions);
}
