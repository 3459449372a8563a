/* dst[o] = src[s] over an up-to-6-D iteration space: the data movement of
 * the shape ops (delegates/gpu/lower_shape.c builds the tables; the layout
 * constants live in delegates/gpu/lower_shape_internal.h). src and dst are
 * float tensor buffers (lg_types.cl); values pass through float, which
 * keeps every half value.
 *
 * The table of one dispatch starts at table[job] (int32):
 *   [0] src_base  [1] dst_base  [2] z_count (product of the sizes of dims
 *   0..3), then 7 fields per dim d = 0..5, outermost first, at 3 + 7 * d:
 *   size, src_stride, dst_stride, start, step, src_dim, mode.
 *   o = dst_base + sum(i_d * dst_stride_d)
 *   s = src_base + sum(c_d * src_stride_d), c_d = start_d + i_d * step_d
 * Work item (x, y, z) moves up to LG_CHUNK elements along dim 5 from index
 * x * LG_CHUNK, at index y of dim 4; z walks dims 0..3. Unused outer dims
 * have size 1. The chunk amortizes the table reads and the divisions of z
 * over several elements (per element they cost PoCL ~30x a plain copy).
 *
 * Without LG_MODES every dim is plain (the host folds starts and steps into
 * src_base and the strides, so c_d = i_d). With LG_MODES, mode selects what
 * happens to a coordinate c outside [0, src_dim):
 *   0 plain (never outside), 1 constant (the element is `value`: PAD),
 *   2 reflect (edge not repeated), 3 symmetric (edge repeated): MIRROR_PAD,
 *   4 modulo (TILE).
 * Mirrored and wrapped coordinates are clamped into [0, src_dim) as well, so
 * no table makes a read leave the source. LG_CLAMP clamps the result to
 * [lo, hi] (a fused activation; NaN passes, as on the CPU). The global size
 * may be rounded up past the sizes: every work item checks its index. */
#define LG_CHUNK 8
#define LG_REMAP_HEADER 3
#define LG_REMAP_FIELDS 7
#define LG_FIELD(d, f) t[LG_REMAP_HEADER + (d) * LG_REMAP_FIELDS + (f)]
#define LG_SIZE 0
#define LG_SRC_STRIDE 1
#define LG_DST_STRIDE 2
#define LG_START 3
#define LG_STEP 4
#define LG_SRC_DIM 5
#define LG_MODE 6

#ifdef LG_MODES
/* The source offset of index i along the dim whose fields start at f; sets
 * *outside when a constant dim's coordinate leaves the source. */
static inline int lg_source(__constant const int* f, int i, int* outside) {
  int c = f[LG_START] + i * f[LG_STEP];
  const int n = f[LG_SRC_DIM];
  const int mode = f[LG_MODE];
  if (mode == 1) {
    if (c < 0 || c >= n) {
      *outside = 1;
      c = 0;
    }
  } else if (mode == 2 || mode == 3) {
    const int edge = mode == 2 ? 0 : 1;
    if (c < 0) c = -c - edge;
    if (c >= n) c = 2 * n - 2 + edge - c;
    c = clamp(c, 0, n - 1);
  } else if (mode == 4) {
    c = clamp(c % n, 0, n - 1);
  }
  return c * f[LG_SRC_STRIDE];
}
#define LG_SRC(d, i) \
  lg_source(t + LG_REMAP_HEADER + (d) * LG_REMAP_FIELDS, i, &outside)
#else
#define LG_SRC(d, i) ((i) * LG_FIELD(d, LG_SRC_STRIDE))
#endif
#define LG_DST(d, i) ((i) * LG_FIELD(d, LG_DST_STRIDE))

static inline float lg_finish(float v, float lo, float hi) {
#ifdef LG_CLAMP
  if (v < lo) v = lo;
  if (v > hi) v = hi;
#endif
  return v;
}

__kernel void remap(__global const LG_DATA* restrict src,
                    __global LG_DATA* restrict dst,
                    __constant int* restrict table, int job, float value,
                    float lo, float hi) {
  __constant int* t = table + job;
  const int n5 = LG_FIELD(5, LG_SIZE);
  const int x0 = (int)get_global_id(0) * LG_CHUNK;
  const int y = (int)get_global_id(1);
  const int z = (int)get_global_id(2);
  if (x0 >= n5 || y >= LG_FIELD(4, LG_SIZE) || z >= t[2]) return;
  const int n3 = LG_FIELD(3, LG_SIZE), n2 = LG_FIELD(2, LG_SIZE);
  const int n1 = LG_FIELD(1, LG_SIZE);
  const int i3 = z % n3;
  const int i2 = (z / n3) % n2;
  const int i1 = (z / (n3 * n2)) % n1;
  const int i0 = z / (n3 * n2 * n1);
#ifdef LG_MODES
  int outside = 0; /* set by LG_SRC for a constant dim's coordinate */
#endif
  const int o = t[1] + LG_DST(0, i0) + LG_DST(1, i1) + LG_DST(2, i2) +
                LG_DST(3, i3) + LG_DST(4, y);
  const int s = t[0] + LG_SRC(0, i0) + LG_SRC(1, i1) + LG_SRC(2, i2) +
                LG_SRC(3, i3) + LG_SRC(4, y);
  const int count = min(LG_CHUNK, n5 - x0);
  const int ds5 = LG_FIELD(5, LG_DST_STRIDE);
#ifdef LG_MODES
  __constant const int* f5 = t + LG_REMAP_HEADER + 5 * LG_REMAP_FIELDS;
  for (int i = 0; i < count; ++i) {
    int out = outside;
    const int s5 = lg_source(f5, x0 + i, &out);
    float v = value;
    if (!out) v = LG_LOAD1(s + s5, src);
    LG_STORE1(lg_finish(v, lo, hi), o + (x0 + i) * ds5, dst);
  }
#else
  (void)value;
  const int ss5 = LG_FIELD(5, LG_SRC_STRIDE);
  for (int i = 0; i < count; ++i) {
    LG_STORE1(lg_finish(LG_LOAD1(s + (x0 + i) * ss5, src), lo, hi),
              o + (x0 + i) * ds5, dst);
  }
#endif
}
