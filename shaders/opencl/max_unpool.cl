/* MediaPipe's MaxUnpooling2D on NHWC float tensor buffers (lg_types.cl):
 * each input value goes back to the position in its window that
 * `positions` names (y * filter_w + x, as MaxPoolingWithArgmax2D writes
 * it); every other output element is 0. Semantics are the CPU kernel's
 * (runtime/kernels/mediapipe_ops.c): the input pixel (y, x) owns the
 * window starting at (y * stride - pad, x * stride - pad); a position
 * outside [0, filter_h * filter_w) is ignored; where several inputs name
 * one output, the last in (batch, row, column) order wins.
 *
 * Gathered per output element: work item (c, ox, r) takes channel c of
 * output pixel (batch r / out_h, row r % out_h, column ox) and looks at
 * the input pixels whose windows cover it, latest first; the first whose
 * position lands on it gives the value. The global size may be rounded
 * up: every work item checks its index. */
__kernel void max_unpool(__global const LG_DATA* in,
                         __global const LG_DATA* positions,
                         __global LG_DATA* out, int in_h, int in_w,
                         int channels, int out_h, int out_w, int rows,
                         int stride_h, int stride_w, int filter_h,
                         int filter_w, int pad_h, int pad_w) {
  const int c = (int)get_global_id(0);
  const int ox = (int)get_global_id(1);
  const int r = (int)get_global_id(2);
  if (c >= channels || ox >= out_w || r >= rows) return;
  const int b = r / out_h;
  const int oy = r - b * out_h;
  const float count = (float)(filter_h * filter_w);
  float value = 0.0f;
  bool found = false;
  /* Input rows y with y * stride_h - pad_h <= oy < that + filter_h. */
  const int y_hi = min((oy + pad_h) / stride_h, in_h - 1);
  for (int y = y_hi; y >= 0 && !found; --y) {
    const int dy = oy - (y * stride_h - pad_h);
    if (dy >= filter_h) break;
    const int x_hi = min((ox + pad_w) / stride_w, in_w - 1);
    for (int x = x_hi; x >= 0 && !found; --x) {
      const int dx = ox - (x * stride_w - pad_w);
      if (dx >= filter_w) break;
      const int i = ((b * in_h + y) * in_w + x) * channels + c;
      const float at = LG_LOAD1(i, positions);
      if (!(at >= 0.0f && at < count)) continue;
      const int index = (int)at;
      if (index == dy * filter_w + dx) {
        value = LG_LOAD1(i, in);
        found = true;
      }
    }
  }
  LG_STORE1(value, (r * out_w + ox) * channels + c, out);
}
