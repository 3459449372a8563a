/* Packs runtime B matrices for matmul.cl and transpose_conv.cl (float
 * tensor buffers, lg_types.cl; values pass through float unchanged):
 * each matrix becomes npad / LG_VEC column blocks, each block k vectors of
 * LG_VEC columns one after the other: dst[b][j / LG_VEC][p][j % LG_VEC] =
 * B[b][p][j] for j < n, 0 for n <= j < npad (npad a multiple of LG_VEC).
 *
 * src holds `batches` matrices, each [k][n] row-major, or [n][k] with
 * LG_TRANSPOSED (BATCH_MATMUL's adj_y, FULLY_CONNECTED's [out, in] weights,
 * TRANSPOSE_CONV's [out_c, kh * kw * in_c] weights).
 * Work item (p, jb, b) writes the vector of block jb for row p, so
 * neighbours write neighbouring vectors (and, transposed, read neighbouring
 * floats). The global size may be rounded up past (k, npad / LG_VEC,
 * batches): every work item checks it. */
#ifndef LG_VEC
#define LG_VEC 4
#endif
#ifndef LG_TRANSPOSED
#define LG_TRANSPOSED 0
#endif

__kernel void matmul_pack(__global const LG_DATA* src, __global LG_DATA* dst,
                          int n, int k, int npad, int batches) {
  const int p = (int)get_global_id(0);
  const int jb = (int)get_global_id(1);
  const int b = (int)get_global_id(2);
  if (p >= k || jb * LG_VEC >= npad || b >= batches) return;
  const __global LG_DATA* m = src + (size_t)b * (size_t)n * (size_t)k;
  float v[LG_VEC];
  for (int t = 0; t < LG_VEC; ++t) {
    const int j = jb * LG_VEC + t;
#if LG_TRANSPOSED
    v[t] = j < n ? LG_LOAD1((size_t)j * (size_t)k + (size_t)p, m) : 0.0f;
#else
    v[t] = j < n ? LG_LOAD1((size_t)p * (size_t)n + (size_t)j, m) : 0.0f;
#endif
  }
  __global LG_DATA* block = dst + (size_t)b * (size_t)k * (size_t)npad +
                            (size_t)jb * (size_t)k * LG_VEC;
  LG_CAT(LG_STORE, LG_VEC)(LG_CAT(vload, LG_VEC)(0, v), p, block);
}
