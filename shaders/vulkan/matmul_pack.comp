// Packs runtime B matrices for matmul.comp and transpose_conv.comp
// (float32, or float16 under LG_FP16: lg_types.glsl): the Vulkan twin of
// shaders/opencl/matmul_pack.cl, same arguments, defines and results. Each
// matrix becomes npad / LG_VEC column blocks, each block k vectors of
// LG_VEC columns one after the other:
//   dst[b][j / LG_VEC][p][j % LG_VEC] = B[b][p][j] for j < n,
//   0 for n <= j < npad (npad a multiple of LG_VEC).
//
// Buffers: src, dst. Push constants: n, k, npad, batches.
// src holds `batches` matrices, each [k][n] row-major, or [n][k] with
// LG_TRANSPOSED (BATCH_MATMUL's adj_y, FULLY_CONNECTED's [out, in]
// weights, TRANSPOSE_CONV's [out_c, kh * kw * in_c] weights). LG_VEC is 4
// or 8. Invocation (p, jb, b) writes the vector of block jb for row p. The
// global size may be rounded up past (k, npad / LG_VEC, batches): every
// invocation checks it.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int LG_VEC = 4;
layout(constant_id = 4) const int LG_TRANSPOSED = 0;

layout(std430, set = 0, binding = 0) readonly buffer Source { lg_store src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dest { lg_store dst[]; };

layout(push_constant) uniform Params {
  int n;
  int k;
  int npad;
  int batches;
} p;

void main() {
  const int row = int(gl_GlobalInvocationID.x);
  const int jb = int(gl_GlobalInvocationID.y);
  const int b = int(gl_GlobalInvocationID.z);
  if (row >= p.k || jb * LG_VEC >= p.npad || b >= p.batches) return;
  const int m = b * p.n * p.k;
  const int block = b * p.k * p.npad + jb * p.k * LG_VEC + row * LG_VEC;
  for (int t = 0; t < LG_VEC; ++t) {
    const int j = jb * LG_VEC + t;
    lg_store v = lg_store(0.0);
    if (j < p.n) {
      v = LG_TRANSPOSED != 0 ? src[m + j * p.k + row] : src[m + row * p.n + j];
    }
    dst[block + t] = v;
  }
}
