// out[b][i][j] = act(sum_p A[b][i][p] * B[b][p][j] + bias[j]) (float32;
// float16 data with float32 sums under LG_FP16, lg_types.glsl),
// FULLY_CONNECTED and BATCH_MATMUL: the Vulkan twin of
// shaders/opencl/matmul.cl, same arguments, defines and results.
//
// Buffers: a, b, bias, out. Push constants: has_bias, m, n, k, npad,
// batches, d1, sa0, sa1, sb0, sb1, lo, hi.
// B is packed (on the host for constants, by matmul_pack.comp otherwise):
// each B matrix is npad / LG_VEC column blocks (zeros past n), each block
// k vectors of LG_VEC columns one after the other, so an invocation
// streams its block and no load needs a bound check. A is the activations
// as they are: [m][k] row-major, or [k][m] with LG_ADJ_X.
//
// Invocation (g0, g1, g2): output columns [g0 * LG_VEC, +LG_VEC), rows
// [g1 * LG_ROWS, +LG_ROWS) of output batch g2 (LG_VEC 4 or 8: one or two
// vec4 per row; LG_ROWS 1, 2, 4 or 8). The accumulators are arrays sized by
// the specialization constants, so the driver unrolls the loops over them
// and keeps them in registers. Rows past m read row m - 1 and are not
// stored. Batches: g2 = b0 * d1 + b1; A's matrix is b0 * sa0 + b1 * sa1
// and B's b0 * sb0 + b1 * sb1 (stride 0 where broadcast).
// has_bias: bias holds n floats (else it is not read). lo/hi: the fused
// activation's clamp (NaN passes, as on the CPU); LG_ACT_TANH applies tanh
// after it. The global size may be rounded up: every invocation checks its
// indices.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lg_types.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int LG_VEC = 4;
layout(constant_id = 4) const int LG_ROWS = 4;
layout(constant_id = 5) const int LG_ADJ_X = 0;
layout(constant_id = 6) const int LG_ACT_TANH = 0;

LG_TENSOR_IN(0, a);
LG_TENSOR_IN(1, b);
LG_TENSOR_IN(2, bias);
layout(std430, set = 0, binding = 3) writeonly buffer Output {
  lg_store dst[];
};

layout(push_constant) uniform Params {
  int has_bias;
  int m;
  int n;
  int k;
  int npad;
  int batches;
  int d1;
  int sa0;
  int sa1;
  int sb0;
  int sb1;
  float lo;
  float hi;
} p;

#include "lg_vec.glsl"

// vec4s per vector of LG_VEC columns.
const int HALVES = LG_VEC / 4;
const int ACCS = LG_ROWS * HALVES;

// The clamp (NaN passes), tanh, and the store of the 4 columns from `at`
// of which `lanes` are below n.
void store4(vec4 v, int at, int lanes) {
  v = lg_clamp_act4(v, p.lo, p.hi);
  if (LG_ACT_TANH != 0) v = lg_tanh4(v);
  const lg_store4 h = lg_store4(v);
  LG_STORE_LANES(dst, at, h, lanes);
}

void main() {
  const int col = int(gl_GlobalInvocationID.x) * LG_VEC;
  const int row0 = int(gl_GlobalInvocationID.y) * LG_ROWS;
  const int batch = int(gl_GlobalInvocationID.z);
  if (col >= p.n || row0 >= p.m || batch >= p.batches) return;
  const int b0 = batch / p.d1, b1 = batch % p.d1;
  const int a_base = (b0 * p.sa0 + b1 * p.sa1) * p.m * p.k;
  // This invocation's column block: k vectors, one after the other.
  const int bp = (b0 * p.sb0 + b1 * p.sb1) * p.k * p.npad + col * p.k;
  // A's element (row, q) is a[arow[row] + q * a_step].
  const int a_step = LG_ADJ_X != 0 ? p.m : 1;
  int arow[LG_ROWS];
  vec4 acc[ACCS];
  for (int r = 0; r < LG_ROWS; ++r) {
    const int row = min(row0 + r, p.m - 1);
    arow[r] = a_base + (LG_ADJ_X != 0 ? row : row * p.k);
    for (int h = 0; h < HALVES; ++h) acc[r * HALVES + h] = vec4(0.0);
  }
  vec4 w[HALVES];
  for (int q = 0; q < p.k; ++q) {
    for (int h = 0; h < HALVES; ++h) {
      // A multiple of 4: npad and col are multiples of LG_VEC.
      w[h] = lg_in4(b, (bp + q * LG_VEC + 4 * h) >> 2);
    }
    for (int r = 0; r < LG_ROWS; ++r) {
      const float x = lg_in(a, arow[r] + q * a_step);
      for (int h = 0; h < HALVES; ++h) {
        acc[r * HALVES + h] += x * w[h];
      }
    }
  }
  // The bias of the columns below n (0 past them and without a bias).
  vec4 add[HALVES];
  for (int h = 0; h < HALVES; ++h) {
    add[h] = vec4(0.0);
    for (int l = 0; l < 4; ++l) {
      const int j = col + 4 * h + l;
      if (p.has_bias != 0 && j < p.n) add[h][l] = lg_in(bias, j);
    }
  }
  const int out_base = batch * p.m * p.n + col;
  for (int r = 0; r < LG_ROWS; ++r) {
    if (row0 + r >= p.m) break;
    const int at = out_base + (row0 + r) * p.n;
    for (int h = 0; h < HALVES; ++h) {
      store4(acc[r * HALVES + h] + add[h], at + 4 * h, p.n - col - 4 * h);
    }
  }
}
