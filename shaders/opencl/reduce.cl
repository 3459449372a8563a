/* MEAN, SUM and REDUCE_MAX over any set of axes, on float tensor buffers
 * (lg_types.cl; sums are float in every precision).
 *
 * The host merges neighbouring dims that are both kept or both reduced into
 * groups (as the CPU kernel does) and writes `plan`, 16 ints:
 *   [0..4)   kept group sizes outside the innermost group, outermost first
 *   [4..8)   their input strides
 *   [8..12)  reduced group sizes outside the innermost group
 *   [12..16) their input strides
 * padded at the front with size 1, stride 0. `inner` is the innermost
 * group's extent (stride 1).
 *
 * Every output folds its elements in increasing input order, as the CPU
 * kernel does, so sums and means agree with it bit for bit (a different
 * order would not stay within 1e-5 on long sums: the CPU's own rounding
 * error grows with the length):
 * LG_LAYOUT 0 the innermost group is kept: work item (c, row) folds outputs
 *   [c * LG_VEC, c * LG_VEC + LG_VEC) of output row `row` (LG_VEC 4 needs
 *   inner % 4 == 0) over every reduced position.
 * LG_LAYOUT 1 the innermost group is reduced: work item o folds output o,
 *   a run of `inner` contiguous elements at every reduced position.
 * LG_LAYOUT 2 (REDUCE_MAX only, whose result does not depend on the order)
 *   one work group of LG_WG items per output whose elements are one
 *   contiguous run of `inner`; the global size is outputs * LG_WG.
 * LG_MAX 0 sum, then divided by `count` when `mean` is nonzero (SUM and
 *   MEAN share the variant); 1 max (from -FLT_MAX, taking only greater
 *   values: NaN is skipped, as on the CPU).
 * Global sizes may be rounded up: every work item checks its index. */
#ifndef LG_MAX
#define LG_MAX 0
#endif
#ifndef LG_LAYOUT
#define LG_LAYOUT 0
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

#if LG_MAX
#define LG_INIT (-FLT_MAX)
#define LG_STEP(acc, x) select((acc), (x), isgreater((x), (acc)))
#else
#define LG_INIT 0.0f
#define LG_STEP(acc, x) ((acc) + (x))
#endif

#define LG_FINAL(acc) (mean ? (acc) / count : (acc))

/* The input offset of kept position `index` (row-major over the kept
 * groups). */
static int outer_offset(__global const int* plan, int index) {
  int offset = 0;
  for (int k = 3; k >= 0; --k) {
    const int size = plan[k];
    const int q = index / size;
    offset += (index - q * size) * plan[4 + k];
    index = q;
  }
  return offset;
}

__kernel void reduce(__global const LG_DATA* in, __global LG_DATA* out,
                     __global const int* plan, int outputs, int inner,
                     int mean, float count) {
#if LG_LAYOUT == 2
  __local float part[LG_WG];
  const int o = (int)get_group_id(0);
  const int lid = (int)get_local_id(0);
  if (o >= outputs) return; /* the whole group leaves together */
  const __global LG_DATA* x = in + outer_offset(plan, o);
  float acc = LG_INIT;
  for (int i = lid; i < inner; i += LG_WG) {
    acc = LG_STEP(acc, LG_LOAD1(i, x));
  }
  part[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = LG_WG / 2; s > 0; s >>= 1) {
    if (lid < s) part[lid] = LG_STEP(part[lid], part[lid + s]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) LG_STORE1(LG_FINAL(part[0]), o, out);
#else
  const int n0 = plan[8], n1 = plan[9], n2 = plan[10], n3 = plan[11];
  const int s0 = plan[12], s1 = plan[13], s2 = plan[14], s3 = plan[15];
#if LG_LAYOUT == 0
  /* outputs: the number of output rows; inner: the row length. */
  const int c = (int)get_global_id(0) * LG_VEC;
  const int row = (int)get_global_id(1);
  if (c >= inner || row >= outputs) return;
  const int base = outer_offset(plan, row) + c;
#else
  const int row = (int)get_global_id(0);
  if (row >= outputs) return;
  const int base = outer_offset(plan, row);
#endif
  lg_floatv acc = (lg_floatv)(LG_INIT);
  for (int i0 = 0, o0 = base; i0 < n0; ++i0, o0 += s0) {
    for (int i1 = 0, o1 = o0; i1 < n1; ++i1, o1 += s1) {
      for (int i2 = 0, o2 = o1; i2 < n2; ++i2, o2 += s2) {
        for (int i3 = 0, o3 = o2; i3 < n3; ++i3, o3 += s3) {
#if LG_LAYOUT == 0
          acc = LG_STEP(acc, LG_LOAD(in, o3));
#else
          for (int i = 0; i < inner; ++i) {
            acc = LG_STEP(acc, LG_LOAD1(o3 + i, in));
          }
#endif
        }
      }
    }
  }
#if LG_LAYOUT == 0
  LG_STORE(LG_FINAL(acc), out, row * inner + c);
#else
  LG_STORE1(LG_FINAL(acc), row, out);
#endif
#endif
}
