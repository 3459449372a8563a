/* out[b][i][j] = act(sum_p A[b][i][p] * B[b][p][j] + bias[j]) on float
 * tensor buffers (lg_types.cl; float accumulators in every precision):
 * FULLY_CONNECTED and BATCH_MATMUL.
 *
 * B is packed (on the host for constants, by matmul_pack.cl otherwise):
 * each B matrix is npad / LG_VEC column blocks (npad a multiple of LG_VEC,
 * zeros past n), each block k vectors of LG_VEC columns one after the
 * other, so a work item streams its block with vector loads and no load
 * needs a bound check. A is the activations as they are: [m][k] row-major,
 * or [k][m] with LG_ADJ_X.
 *
 * Work item (g0, g1, g2): output columns [g0 * LG_VEC, +LG_VEC), rows
 * [g1 * LG_ROWS, +LG_ROWS) of output batch g2 (LG_VEC 4 or 8, LG_ROWS 1,
 * 2, 4 or 8); the rows are named variables (FOR_ROWS), not an array, so
 * that they stay in registers. Rows past m read row m - 1 and are not
 * stored. Batches: g2 = b0 * d1 + b1; A's matrix is b0 * sa0 + b1 * sa1
 * and B's b0 * sb0 + b1 * sb1 (stride 0 where broadcast).
 * has_bias: bias holds n floats (else it is not read).
 * lo/hi: the fused activation's clamp (NaN passes, as on the CPU);
 * LG_ACT_TANH applies tanh after it. The global size may be rounded up:
 * every work item checks its indices. */
#ifndef LG_VEC
#define LG_VEC 4
#endif
#ifndef LG_ROWS
#define LG_ROWS 4
#endif
#ifndef LG_ADJ_X
#define LG_ADJ_X 0
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

#if LG_ROWS == 1
#define FOR_ROWS(X) X(0)
#elif LG_ROWS == 2
#define FOR_ROWS(X) X(0) X(1)
#elif LG_ROWS == 4
#define FOR_ROWS(X) X(0) X(1) X(2) X(3)
#else
#define FOR_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#endif

/* A's element (row, p) is ar[p * A_STEP] for the row's pointer ar. */
#if LG_ADJ_X
#define A_ROW(row) (a_base + (size_t)(row))
#define A_STEP m
#else
#define A_ROW(row) (a_base + (size_t)(row) * (size_t)k)
#define A_STEP 1
#endif

#define DECLARE_ROW(r)                                          \
  const __global LG_DATA* a##r = A_ROW(min(row0 + (r), m - 1)); \
  floatv c##r = (floatv)(0.0f);
#define ACCUMULATE_ROW(r) c##r += LG_LOAD1((size_t)p * A_STEP, a##r) * w;
#define STORE_ROW(r)                                                          \
  if (row0 + (r) < m) {                                                       \
    store(c##r + add, o + (size_t)(row0 + (r)) * (size_t)n, full, col, n, lo, \
          hi);                                                                \
  }

/* Adds nothing more: the clamp (NaN passes), tanh, and the store of
 * LG_VEC columns starting at dst (only those below n when !full). */
static void store(floatv v, __global LG_DATA* dst, bool full, int col, int n,
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
    for (int j = 0; col + j < n; ++j) LG_STORE1(tail[j], j, dst);
  }
}

__kernel void matmul(__global const LG_DATA* a, __global const LG_DATA* b,
                     __global const LG_DATA* bias, int has_bias,
                     __global LG_DATA* out, int m, int n, int k, int npad,
                     int batches, int d1, int sa0, int sa1, int sb0, int sb1,
                     float lo, float hi) {
  const int col = (int)get_global_id(0) * LG_VEC;
  const int row0 = (int)get_global_id(1) * LG_ROWS;
  const int batch = (int)get_global_id(2);
  if (col >= n || row0 >= m || batch >= batches) return;
  const int b0 = batch / d1, b1 = batch % d1;
  const __global LG_DATA* a_base =
      a + (size_t)(b0 * sa0 + b1 * sa1) * (size_t)m * (size_t)k;
  /* This work item's column block: k vectors, one after the other. */
  const __global LG_DATA* bp =
      b + (size_t)(b0 * sb0 + b1 * sb1) * (size_t)k * (size_t)npad +
      (size_t)col * (size_t)k;

  FOR_ROWS(DECLARE_ROW)
  for (int p = 0; p < k; ++p) {
    const floatv w = VLOAD(p, bp);
    FOR_ROWS(ACCUMULATE_ROW)
  }

  const bool full = col + LG_VEC <= n;
  floatv add = (floatv)(0.0f);
  if (has_bias && full) {
    add = VLOAD(0, bias + col);
  } else if (has_bias) {
    float tail[LG_VEC];
    for (int j = 0; j < LG_VEC; ++j) {
      tail[j] = col + j < n ? LG_LOAD1(col + j, bias) : 0.0f;
    }
    add = LG_CAT(vload, LG_VEC)(0, tail);
  }
  __global LG_DATA* o = out + (size_t)batch * (size_t)m * (size_t)n + col;
  FOR_ROWS(STORE_ROW)
}
