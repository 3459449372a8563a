/* GATHER, TILE, BROADCAST_TO, DEPTH_TO_SPACE and SPACE_TO_DEPTH through
 * the kernel runner: hand-derived values, every parameter, element types of
 * every size, empty tensors, constant and non-constant (dynamic) shape
 * inputs, every rejection message (GATHER's out-of-range indices at Invoke),
 * and seeded random cases against reference index loops written here. The
 * runner checks guard bytes after every output.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"
#include "tests/support/kernel_runner.h"
#include "tests/unit/shape_test_util.h"

/* ---- GATHER -------------------------------------------------------------*/

static void test_gather_axes(void** state) {
  (void)state;
  sh_run s;
  /* params [3,2] = [[0,1],[2,3],[4,5]], indices [2,0,2]:
   * axis 0 -> [[4,5],[0,1],[4,5]]. */
  const float par[] = {0, 1, 2, 3, 4, 5};
  const int32_t idx[] = {2, 0, 2};
  TfLiteGatherParams p0 = {.axis = 0};
  sh_init(&s, lg_register_GATHER(), &p0);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 2), par);
  sh_const(&s, kTfLiteInt32, DIMS(3), idx);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(3, 2), (const float[]){4, 5, 0, 1, 4, 5}, 4);
  lg_kernel_runner_release(&s.r);
  /* axis 1 (and -1) with INT64 indices [[1],[0]] ([2,1]): output [3,2,1],
   * out[i][j][0] = par[i][idx[j]] -> [[1],[0]], [[3],[2]], [[5],[4]]. */
  const int64_t idx64[] = {1, 0};
  const int axes[] = {1, -1};
  for (int a = 0; a < 2; ++a) {
    TfLiteGatherParams p = {.axis = axes[a]};
    sh_init(&s, lg_register_GATHER(), &p);
    sh_const(&s, kTfLiteFloat32, DIMS(3, 2), par);
    sh_const(&s, kTfLiteInt64, DIMS(2, 1), idx64);
    sh_out(&s, kTfLiteFloat32);
    sh_ok(&s);
    sh_expect(&s, 0, DIMS(3, 2, 1), (const float[]){1, 0, 3, 2, 5, 4}, 4);
    lg_kernel_runner_release(&s.r);
  }
  /* A scalar index drops the axis: axis 0, index 1 -> [2,3]. */
  const int32_t one = 1;
  sh_init(&s, lg_register_GATHER(), &p0);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 2), par);
  sh_const(&s, kTfLiteInt32, SCALAR, &one);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(2), (const float[]){2, 3}, 4);
  lg_kernel_runner_release(&s.r);
  /* Empty indices: [0,2]. */
  sh_init(&s, lg_register_GATHER(), &p0);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 2), par);
  sh_const(&s, kTfLiteInt32, DIMS(0), idx);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect_shape(sh_output(&s, 0), DIMS(0, 2));
  lg_kernel_runner_release(&s.r);
}

static void test_gather_batch_dims(void** state) {
  (void)state;
  sh_run s;
  /* params [2,3] (batch 2), indices [[2,0],[1,1]] with batch_dims 1 and
   * axis 1: out[b][i] = par[b][idx[b][i]] -> [[2,0],[4,4]]. batch_dims -1
   * is 2 - 1 = 1 too. */
  const int8_t par[] = {0, 1, 2, 3, 4, 5};
  const int32_t idx[] = {2, 0, 1, 1};
  const int bds[] = {1, -1};
  for (int i = 0; i < 2; ++i) {
    TfLiteGatherParams p = {.axis = 1, .batch_dims = bds[i]};
    sh_init(&s, lg_register_GATHER(), &p);
    sh_const(&s, kTfLiteInt8, DIMS(2, 3), par);
    sh_const(&s, kTfLiteInt32, DIMS(2, 2), idx);
    sh_out(&s, kTfLiteInt8);
    sh_ok(&s);
    sh_expect(&s, 0, DIMS(2, 2), (const int8_t[]){2, 0, 4, 4}, 1);
    lg_kernel_runner_release(&s.r);
  }
  /* Rejections. */
  TfLiteGatherParams far = {.axis = 1, .batch_dims = 2};
  sh_init(&s, lg_register_GATHER(), &far);
  sh_const(&s, kTfLiteInt8, DIMS(2, 3), par);
  sh_const(&s, kTfLiteInt32, DIMS(2, 2), idx);
  sh_out(&s, kTfLiteInt8);
  sh_fails(&s,
           "GATHER: batch_dims 2 is out of range (at most the indices "
           "rank 2 and the axis 1)");
  TfLiteGatherParams mismatch = {.axis = 1, .batch_dims = 1};
  sh_init(&s, lg_register_GATHER(), &mismatch);
  sh_const(&s, kTfLiteInt8, DIMS(2, 3), par);
  sh_const(&s, kTfLiteInt32, DIMS(4), idx);
  sh_out(&s, kTfLiteInt8);
  sh_fails(&s,
           "GATHER: batch dim 0 differs between params [2,3] and indices "
           "[4]");
  TfLiteGatherParams axis2 = {.axis = 2};
  sh_init(&s, lg_register_GATHER(), &axis2);
  sh_const(&s, kTfLiteInt8, DIMS(2, 3), par);
  sh_const(&s, kTfLiteInt32, DIMS(4), idx);
  sh_out(&s, kTfLiteInt8);
  sh_fails(&s, "GATHER: axis 2 is out of range for params of rank 2");
}

static void test_gather_invoke_errors(void** state) {
  (void)state;
  sh_run s;
  const float par[] = {0, 1, 2, 3, 4, 5};
  /* Out of range and negative indices fail at Invoke, before writing. */
  const int32_t bad[] = {0, 3};
  const int64_t neg[] = {-1};
  TfLiteGatherParams p = {.axis = 0};
  sh_init(&s, lg_register_GATHER(), &p);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 2), par);
  sh_const(&s, kTfLiteInt32, DIMS(2), bad);
  sh_out(&s, kTfLiteFloat32);
  assert_int_equal(lg_kernel_runner_prepare(&s.r), kTfLiteOk);
  assert_int_not_equal(lg_kernel_runner_invoke(&s.r), kTfLiteOk);
  assert_non_null(strstr(lg_kernel_runner_errors(&s.r),
                         "GATHER: indices[1] = 3 is out of range [0, 3)"));
  lg_kernel_runner_release(&s.r);
  sh_init(&s, lg_register_GATHER(), &p);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 2), par);
  sh_var(&s, kTfLiteInt64, DIMS(1), neg);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "GATHER: indices[0] = -1 is out of range [0, 3)");
  /* Types. */
  const int16_t i16[] = {0};
  sh_init(&s, lg_register_GATHER(), &p);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 2), par);
  sh_const(&s, kTfLiteInt16, DIMS(1), i16);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "GATHER: indices type INT16 is not supported (expected one of "
           "INT32, INT64)");
  sh_init(&s, lg_register_GATHER(), &p);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 2), par);
  sh_const(&s, kTfLiteInt32, DIMS(1), bad);
  sh_out(&s, kTfLiteInt32);
  sh_fails(&s, "GATHER: output type INT32 differs from params type FLOAT32");
}

/* Random GATHER cases (axis, batch_dims, shapes) against a reference. */
static void test_gather_random(void** state) {
  (void)state;
  uint32_t seed = 4242u;
  static float par[4096];
  static int32_t idx[2048];
  sh_iota(par, 4096, -3.0f);
  for (int trial = 0; trial < 80; ++trial) {
    const int rank = sh_rng_int(&seed, 1, 4);
    const int axis = sh_rng_int(&seed, 0, rank - 1);
    const int batch = sh_rng_int(&seed, 0, axis);
    const int irank = batch + sh_rng_int(&seed, 0, 2);
    int pd[4], id[4];
    for (int k = 0; k < rank; ++k) pd[k] = sh_rng_int(&seed, 1, 5);
    for (int k = 0; k < irank; ++k) {
      id[k] = k < batch ? pd[k] : sh_rng_int(&seed, 1, 3);
    }
    int64_t ni = 1;
    for (int k = 0; k < irank; ++k) ni *= id[k];
    for (int64_t i = 0; i < ni; ++i)
      idx[i] = sh_rng_int(&seed, 0, pd[axis] - 1);
    TfLiteGatherParams p = {.axis = axis, .batch_dims = batch};
    sh_run s;
    sh_init(&s, lg_register_GATHER(), &p);
    sh_const(&s, kTfLiteFloat32, pd, rank, par);
    sh_const(&s, kTfLiteInt32, id, irank, idx);
    sh_out(&s, kTfLiteFloat32);
    sh_ok(&s);
    /* Reference over output indices: params index = out[:axis] +
     * indices[out[:batch] + out[axis:axis+irank-batch]] + rest. */
    const TfLiteTensor* out = sh_output(&s, 0);
    const int orank = out->dims->size;
    int64_t n = 1, ps[4], is[4];
    for (int k = 0; k < orank; ++k) n *= out->dims->data[k];
    sh_strides(pd, rank, ps);
    sh_strides(id, irank, is);
    for (int64_t f = 0; f < n; ++f) {
      int o[8];
      sh_unravel(f, out->dims->data, orank, o);
      int64_t ipos = 0;
      for (int k = 0; k < batch; ++k) ipos += o[k] * is[k];
      for (int k = batch; k < irank; ++k) ipos += o[axis + k - batch] * is[k];
      int64_t src = 0;
      for (int k = 0; k < axis; ++k) src += o[k] * ps[k];
      src += idx[ipos] * ps[axis];
      for (int k = axis + 1; k < rank; ++k) {
        src += o[k - 1 + irank - batch] * ps[k];
      }
      if (out->data.f[f] != par[src]) {
        fail_msg("trial %d: output %lld = %g, want %g", trial, (long long)f,
                 (double)out->data.f[f], (double)par[src]);
      }
    }
    lg_kernel_runner_release(&s.r);
  }
}

/* ---- TILE / BROADCAST_TO ------------------------------------------------*/

static void test_tile(void** state) {
  (void)state;
  sh_run s;
  /* [[1,2],[3,4]] tiled (2,3): rows repeat twice, each row three times:
   * [[1,2,1,2,1,2],[3,4,3,4,3,4]] twice. */
  const int32_t x[] = {1, 2, 3, 4};
  const int32_t mult[] = {2, 3};
  const int32_t want[] = {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,
                          1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4};
  sh_init(&s, lg_register_TILE(), NULL);
  sh_const(&s, kTfLiteInt32, DIMS(2, 2), x);
  sh_const(&s, kTfLiteInt32, DIMS(2), mult);
  sh_out(&s, kTfLiteInt32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(4, 6), want, 4);
  lg_kernel_runner_release(&s.r);
  /* Non-constant INT64 multiples with a 0: [0,2] (empty). Then (1,1). */
  int64_t m64[] = {0, 1};
  sh_init(&s, lg_register_TILE(), NULL);
  sh_const(&s, kTfLiteInt32, DIMS(2, 2), x);
  sh_var(&s, kTfLiteInt64, DIMS(2), m64);
  sh_out(&s, kTfLiteInt32);
  sh_ok(&s);
  sh_expect_shape(sh_output(&s, 0), DIMS(0, 2));
  m64[0] = 1;
  assert_int_equal(lg_kernel_runner_invoke(&s.r), kTfLiteOk);
  sh_expect(&s, 0, DIMS(2, 2), x, 4);
  lg_kernel_runner_release(&s.r);
  /* Rejections. */
  const int32_t neg[] = {1, -1};
  sh_init(&s, lg_register_TILE(), NULL);
  sh_const(&s, kTfLiteInt32, DIMS(2, 2), x);
  sh_const(&s, kTfLiteInt32, DIMS(2), neg);
  sh_out(&s, kTfLiteInt32);
  sh_fails(&s, "TILE: multiples[1] = -1 is out of range for dim 1 (size 2)");
  sh_init(&s, lg_register_TILE(), NULL);
  sh_const(&s, kTfLiteInt32, DIMS(2, 2), x);
  sh_const(&s, kTfLiteInt32, DIMS(1), neg);
  sh_out(&s, kTfLiteInt32);
  sh_fails(&s,
           "TILE: multiples must be 1-D with 2 elements (the input rank), "
           "got [1]");
}

/* Random TILE cases against out[i] = in[i mod dims]. */
static void test_tile_random(void** state) {
  (void)state;
  uint32_t seed = 99u;
  int16_t in[256];
  for (int i = 0; i < 256; ++i) in[i] = (int16_t)(i * 7 - 300);
  for (int trial = 0; trial < 60; ++trial) {
    const int rank = sh_rng_int(&seed, 1, 5);
    int dims[5], out_dims[5];
    int32_t mult[5];
    for (int k = 0; k < rank; ++k) {
      dims[k] = sh_rng_int(&seed, 1, 3);
      mult[k] = sh_rng_int(&seed, 1, 3);
      out_dims[k] = dims[k] * mult[k];
    }
    sh_run s;
    sh_init(&s, lg_register_TILE(), NULL);
    sh_const(&s, kTfLiteInt16, dims, rank, in);
    sh_const(&s, kTfLiteInt32, (const int[]){rank}, 1, mult);
    sh_out(&s, kTfLiteInt16);
    sh_ok(&s);
    sh_expect_shape(sh_output(&s, 0), out_dims, rank);
    int64_t n = 1;
    for (int k = 0; k < rank; ++k) n *= out_dims[k];
    const int16_t* got = sh_output(&s, 0)->data.i16;
    for (int64_t f = 0; f < n; ++f) {
      int o[5];
      sh_unravel(f, out_dims, rank, o);
      int64_t src = 0;
      for (int k = 0; k < rank; ++k) src = src * dims[k] + o[k] % dims[k];
      if (got[f] != in[src]) {
        fail_msg("trial %d: output %lld = %d, want %d", trial, (long long)f,
                 got[f], in[src]);
      }
    }
    lg_kernel_runner_release(&s.r);
  }
}

static void test_broadcast_to(void** state) {
  (void)state;
  sh_run s;
  /* [3,1] = [[1],[2],[3]] to [2,3,2]: each row value repeated along the
   * last dim, the whole repeated along the new leading dim. */
  const uint8_t x[] = {1, 2, 3};
  const int32_t shape[] = {2, 3, 2};
  const uint8_t want[] = {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3};
  sh_init(&s, lg_register_BROADCAST_TO(), NULL);
  sh_const(&s, kTfLiteUInt8, DIMS(3, 1), x);
  sh_const(&s, kTfLiteInt32, DIMS(3), shape);
  sh_out(&s, kTfLiteUInt8);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(2, 3, 2), want, 1);
  lg_kernel_runner_release(&s.r);
  /* Non-constant INT64 shape [2,0,3]: an empty output. A scalar to [4]. */
  int64_t shape64[] = {2, 0, 3};
  sh_init(&s, lg_register_BROADCAST_TO(), NULL);
  sh_const(&s, kTfLiteUInt8, DIMS(3), x);
  sh_var(&s, kTfLiteInt64, DIMS(3), shape64);
  sh_out(&s, kTfLiteUInt8);
  sh_ok(&s);
  sh_expect_shape(sh_output(&s, 0), DIMS(2, 0, 3));
  lg_kernel_runner_release(&s.r);
  const int32_t four[] = {4};
  sh_init(&s, lg_register_BROADCAST_TO(), NULL);
  sh_const(&s, kTfLiteUInt8, SCALAR, x);
  sh_const(&s, kTfLiteInt32, DIMS(1), four);
  sh_out(&s, kTfLiteUInt8);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(4), (const uint8_t[]){1, 1, 1, 1}, 1);
  lg_kernel_runner_release(&s.r);
  /* Rejections: [3] to [2,2]; [3,1] to [3] (fewer dims); -1. */
  const int32_t s22[] = {2, 2}, s3[] = {3}, sneg[] = {-1, 3};
  const int32_t* shapes[] = {s22, s3, sneg};
  const int ranks[] = {2, 1, 2};
  const int in_ranks[] = {1, 2, 1};
  const char* msgs[] = {
      "BROADCAST_TO: cannot broadcast input [3] to shape [2,2]",
      "BROADCAST_TO: cannot broadcast input [3,1] to shape [3]",
      "BROADCAST_TO: cannot broadcast input [3] to shape [-1,3]"};
  for (int i = 0; i < 3; ++i) {
    sh_init(&s, lg_register_BROADCAST_TO(), NULL);
    sh_const(&s, kTfLiteUInt8, (const int[]){3, 1}, in_ranks[i], x);
    sh_const(&s, kTfLiteInt32, (const int[]){ranks[i]}, 1, shapes[i]);
    sh_out(&s, kTfLiteUInt8);
    sh_fails(&s, msgs[i]);
  }
}

/* ---- DEPTH_TO_SPACE / SPACE_TO_DEPTH ------------------------------------*/

static void test_depth_space(void** state) {
  (void)state;
  sh_run s;
  /* [1,1,1,4] = [0,1,2,3] with block 2 -> [1,2,2,1] = [[0,1],[2,3]]:
   * out[0, i, j, 0] = in[0, 0, 0, i*2 + j]. */
  const float x4[] = {0, 1, 2, 3};
  TfLiteDepthToSpaceParams d2s = {.block_size = 2};
  sh_init(&s, lg_register_DEPTH_TO_SPACE(), &d2s);
  sh_const(&s, kTfLiteFloat32, DIMS(1, 1, 1, 4), x4);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(1, 2, 2, 1), x4, 4);
  lg_kernel_runner_release(&s.r);
  /* [1,1,2,8] (w = 0..1, c = 0..7, value 10w + c) with block 2:
   * out[0, i, 2w + j, c'] = in[0, 0, w, (2i + j) * 2 + c'] (c' < 2):
   * row i=0: w0: c 0,1 | 2,3 ; w1: 10,11 | 12,13
   * row i=1: w0: 4,5 | 6,7 ; w1: 14,15 | 16,17. */
  const float x[] = {0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17};
  const float want[] = {0, 1, 2, 3, 10, 11, 12, 13, 4, 5, 6, 7, 14, 15, 16, 17};
  sh_init(&s, lg_register_DEPTH_TO_SPACE(), &d2s);
  sh_const(&s, kTfLiteFloat32, DIMS(1, 1, 2, 8), x);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(1, 2, 4, 2), want, 4);
  lg_kernel_runner_release(&s.r);
  /* SPACE_TO_DEPTH inverts it exactly. */
  TfLiteSpaceToDepthParams s2d = {.block_size = 2};
  sh_init(&s, lg_register_SPACE_TO_DEPTH(), &s2d);
  sh_const(&s, kTfLiteFloat32, DIMS(1, 2, 4, 2), want);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(1, 1, 2, 8), x, 4);
  lg_kernel_runner_release(&s.r);
  /* Rejections. */
  sh_init(&s, lg_register_DEPTH_TO_SPACE(), &d2s);
  sh_const(&s, kTfLiteFloat32, DIMS(1, 1, 1, 6), x);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "DEPTH_TO_SPACE: input depth 6 of [1,1,1,6] is not a multiple "
           "of block_size^2 = 4");
  sh_init(&s, lg_register_SPACE_TO_DEPTH(), &s2d);
  sh_const(&s, kTfLiteFloat32, DIMS(1, 3, 2, 1), x);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "SPACE_TO_DEPTH: input height and width of [1,3,2,1] are not "
           "multiples of block_size 2");
  sh_init(&s, lg_register_SPACE_TO_DEPTH(), &s2d);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 2, 4), x);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "SPACE_TO_DEPTH: input must be 4-D (NHWC), got [2,2,4]");
  TfLiteDepthToSpaceParams zero = {.block_size = 0};
  sh_init(&s, lg_register_DEPTH_TO_SPACE(), &zero);
  sh_const(&s, kTfLiteFloat32, DIMS(1, 1, 1, 4), x);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "DEPTH_TO_SPACE: block_size 0 is out of range [1, 65535]");
  sh_init(&s, lg_register_DEPTH_TO_SPACE(), &d2s);
  sh_const(&s, kTfLiteInt16, DIMS(1, 1, 1, 4), x);
  sh_out(&s, kTfLiteInt16);
  sh_fails(&s, "DEPTH_TO_SPACE: input type INT16 is not supported");
}

/* Random DEPTH_TO_SPACE cases (batch > 1, odd sizes) against the formula,
 * then SPACE_TO_DEPTH back to the input. */
static void test_depth_space_random(void** state) {
  (void)state;
  uint32_t seed = 5u;
  int64_t in[2048];
  for (int i = 0; i < 2048; ++i) in[i] = (int64_t)i * 1000003 - 7;
  for (int trial = 0; trial < 40; ++trial) {
    const int b = sh_rng_int(&seed, 1, 3);
    const int n = sh_rng_int(&seed, 1, 2), h = sh_rng_int(&seed, 1, 3);
    const int w = sh_rng_int(&seed, 1, 3), c = b * b * sh_rng_int(&seed, 1, 3);
    TfLiteDepthToSpaceParams p = {.block_size = b};
    sh_run s;
    sh_init(&s, lg_register_DEPTH_TO_SPACE(), &p);
    sh_const(&s, kTfLiteInt64, (const int[]){n, h, w, c}, 4, in);
    sh_out(&s, kTfLiteInt64);
    sh_ok(&s);
    const int oc = c / (b * b);
    sh_expect_shape(sh_output(&s, 0), (const int[]){n, h * b, w * b, oc}, 4);
    const int64_t* got = sh_output(&s, 0)->data.i64;
    int64_t f = 0;
    for (int in_ = 0; in_ < n; ++in_) {
      for (int y = 0; y < h * b; ++y) {
        for (int x = 0; x < w * b; ++x) {
          for (int k = 0; k < oc; ++k, ++f) {
            const int ch = ((y % b) * b + x % b) * oc + k;
            const int64_t src =
                ((int64_t)(in_ * h + y / b) * w + x / b) * c + ch;
            if (got[f] != in[src])
              fail_msg("trial %d: output %lld", trial, (long long)f);
          }
        }
      }
    }
    int64_t back[2048];
    memcpy(back, got, sizeof(int64_t) * (size_t)f);
    TfLiteSpaceToDepthParams q = {.block_size = b};
    sh_run t;
    sh_init(&t, lg_register_SPACE_TO_DEPTH(), &q);
    sh_const(&t, kTfLiteInt64, (const int[]){n, h * b, w * b, oc}, 4, back);
    sh_out(&t, kTfLiteInt64);
    sh_ok(&t);
    sh_expect(&t, 0, (const int[]){n, h, w, c}, 4, in, 8);
    lg_kernel_runner_release(&t.r);
    lg_kernel_runner_release(&s.r);
  }
}

/* ---- Limits ---------------------------------------------------------------
 * Outputs too large for an int element count, and ranks above the
 * supported 8, built from tensors with no data (Prepare reads only dims). */

static void test_output_limits(void** state) {
  (void)state;
  sh_run s;
  const int big = 1 << 30;
  /* GATHER: [2, 2^20] by 2^12 indices -> 2^33 elements. */
  TfLiteGatherParams g = {.axis = 0};
  sh_init(&s, lg_register_GATHER(), &g);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 1 << 20), NULL);
  sh_const(&s, kTfLiteInt32, DIMS(1 << 12), NULL);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "GATHER: the output has 4294967296 elements, above 2147483647");
  /* GATHER: rank 5 params by rank 5 indices -> rank 9. */
  sh_init(&s, lg_register_GATHER(), &g);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 1, 1, 1, 1), NULL);
  sh_const(&s, kTfLiteInt32, DIMS(1, 1, 1, 1, 1), NULL);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "GATHER: the output rank 9 is above the supported 8");
  /* TILE: [2^15, 2] by (2, 2^15) -> 2^32 elements. */
  const int32_t mult[] = {2, 1 << 15};
  sh_init(&s, lg_register_TILE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(1 << 15, 2), NULL);
  sh_const(&s, kTfLiteInt32, DIMS(2), mult);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "TILE: the output has more than 2147483647 elements");
  /* BROADCAST_TO [1] to (2^16, 2^16). */
  const int32_t target[] = {1 << 16, 1 << 16};
  sh_init(&s, lg_register_BROADCAST_TO(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(1), NULL);
  sh_const(&s, kTfLiteInt32, DIMS(2), target);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "BROADCAST_TO: cannot broadcast input [1] to shape "
           "[65536,65536]");
  /* Empty inputs whose outputs would have a dim above INT_MAX. */
  TfLiteDepthToSpaceParams d2s = {.block_size = 2};
  sh_init(&s, lg_register_DEPTH_TO_SPACE(), &d2s);
  sh_const(&s, kTfLiteFloat32, DIMS(1, big, 1, 0), NULL);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "DEPTH_TO_SPACE: the output of [1,1073741824,1,0] is too "
           "large");
  TfLiteSpaceToDepthParams s2d = {.block_size = 2};
  sh_init(&s, lg_register_SPACE_TO_DEPTH(), &s2d);
  sh_const(&s, kTfLiteFloat32, DIMS(1, 0, 2, big), NULL);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "SPACE_TO_DEPTH: the output of [1,0,2,1073741824] is too "
           "large");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gather_axes),
      cmocka_unit_test(test_gather_batch_dims),
      cmocka_unit_test(test_gather_invoke_errors),
      cmocka_unit_test(test_gather_random),
      cmocka_unit_test(test_tile),
      cmocka_unit_test(test_tile_random),
      cmocka_unit_test(test_broadcast_to),
      cmocka_unit_test(test_depth_space),
      cmocka_unit_test(test_depth_space_random),
      cmocka_unit_test(test_output_limits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
