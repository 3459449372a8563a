/* SLICE, STRIDED_SLICE, PAD, PADV2, MIRROR_PAD, TRANSPOSE and the shape
 * family's copy engine (runtime/kernels/shape_util.h) through the kernel
 * runner: hand-derived values, every parameter and mask, element types of
 * every size, constant and non-constant (dynamic) index inputs, every
 * rejection message, and seeded random cases against reference index
 * loops written here. The runner checks guard bytes after every output.
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
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"
#include "tests/support/kernel_runner.h"
#include "tests/unit/shape_test_util.h"

/* 0..23 as floats: element i holds i, so a misplaced element shows. */
static float g_x[4096];

static int setup(void** state) {
  (void)state;
  for (int i = 0; i < 4096; ++i) g_x[i] = (float)i;
  return 0;
}

/* ---- Copy engine --------------------------------------------------------*/

static void test_copy_engine(void** state) {
  (void)state;
  /* A contiguous 3-D copy merges into one loop. */
  lg_shape_copy c;
  lg_shape_copy_init(&c, 4);
  lg_shape_copy_add_dim(&c, 2, 12, 12);
  lg_shape_copy_add_dim(&c, 3, 4, 4);
  lg_shape_copy_add_dim(&c, 4, 1, 1);
  lg_shape_copy_finish(&c);
  assert_int_equal(c.rank, 1);
  assert_int_equal(c.dims[0], 24);
  assert_int_equal(c.elements, 24);
  float out[32];
  lg_shape_copy_run(&c, g_x, out);
  sh_expect_floats(out, g_x, 24);
  /* A reversed row (negative stride, offset at the last element) with
   * dims of 1 dropped: [5,4,3,2,1,0]. */
  lg_shape_copy_init(&c, 4);
  lg_shape_copy_add_dim(&c, 1, 100, 100);
  lg_shape_copy_add_dim(&c, 6, -1, 1);
  lg_shape_copy_add_dim(&c, 1, 7, 7);
  c.src_offset = 5;
  lg_shape_copy_finish(&c);
  assert_int_equal(c.rank, 1);
  lg_shape_copy_run(&c, g_x, out);
  sh_expect_floats(out, (const float[]){5, 4, 3, 2, 1, 0}, 6);
  /* A 2-byte transpose of [2,3]: out[j][i] = in[i][j] -> 0,3,1,4,2,5. */
  const int16_t in16[] = {0, 1, 2, 3, 4, 5};
  int16_t out16[6];
  lg_shape_copy_init(&c, 2);
  lg_shape_copy_add_dim(&c, 3, 1, 2);
  lg_shape_copy_add_dim(&c, 2, 3, 1);
  lg_shape_copy_finish(&c);
  lg_shape_copy_run(&c, in16, out16);
  sh_expect_bytes(out16, (const int16_t[]){0, 3, 1, 4, 2, 5}, 6, 2);
  /* A zero dim: nothing is touched. */
  lg_shape_copy_init(&c, 4);
  lg_shape_copy_add_dim(&c, 3, 1, 1);
  lg_shape_copy_add_dim(&c, 0, 1, 1);
  lg_shape_copy_finish(&c);
  assert_int_equal(c.elements, 0);
  out[0] = -1.0f;
  lg_shape_copy_run(&c, g_x, out);
  assert_true(out[0] == -1.0f);
  /* Too many dims: flagged and never run. */
  lg_shape_copy_init(&c, 4);
  for (int i = 0; i <= LG_SHAPE_COPY_MAX_RANK; ++i) {
    lg_shape_copy_add_dim(&c, 2, 1, 1);
  }
  lg_shape_copy_finish(&c);
  assert_true(c.overflow);
  assert_int_equal(c.elements, 0);
  /* Fill with a 8-byte pattern over an odd count. */
  int64_t filled[7], value = 0x0102030405060708;
  lg_shape_fill(filled, 7, &value, 8);
  for (int i = 0; i < 7; ++i) assert_true(filled[i] == value);
  char text[32];
  assert_string_equal(
      lg_shape_format_dims((const int[]){2, 0, 3}, 3, text, sizeof(text)),
      "[2,0,3]");
  assert_string_equal(lg_shape_format_dims(NULL, 0, text, sizeof(text)), "[]");
}

/* A transpose copy of odd sizes around the tile (37 x 19, then 16 x 33 with
 * an outer dim of 3) takes the blocked path for every element size and
 * matches out[j][i] = in[i][j]. */
static void test_copy_engine_blocked(void** state) {
  (void)state;
  static unsigned char in[8 * 3 * 37 * 33], out[8 * 3 * 37 * 33];
  for (size_t i = 0; i < sizeof(in); ++i) in[i] = (unsigned char)(i * 97 + 3);
  const size_t sizes[] = {1, 2, 4, 8};
  const int shapes[][3] = {{1, 37, 19}, {3, 16, 33}, {2, 5, 4}};
  for (int z = 0; z < ARRAY_SIZE(sizes); ++z) {
    for (int t = 0; t < ARRAY_SIZE(shapes); ++t) {
      const int o = shapes[t][0], r = shapes[t][1], c = shapes[t][2];
      lg_shape_copy copy;
      lg_shape_copy_init(&copy, sizes[z]);
      /* Output [o, c, r] from input [o, r, c]. */
      lg_shape_copy_add_dim(&copy, o, (ptrdiff_t)r * c, (ptrdiff_t)r * c);
      lg_shape_copy_add_dim(&copy, c, 1, r);
      lg_shape_copy_add_dim(&copy, r, c, 1);
      lg_shape_copy_finish(&copy);
      assert_true(copy.blocked);
      memset(out, 0, sizeof(out));
      lg_shape_copy_run(&copy, in, out);
      for (int k = 0; k < o; ++k) {
        for (int j = 0; j < c; ++j) {
          for (int i = 0; i < r; ++i) {
            const size_t got = ((size_t)(k * c + j) * r + i) * sizes[z];
            const size_t want = ((size_t)(k * r + i) * c + j) * sizes[z];
            if (memcmp(out + got, in + want, sizes[z]) != 0) {
              fail_msg("size %zu shape %d: element (%d,%d,%d) differs",
                       sizes[z], t, k, j, i);
            }
          }
        }
      }
    }
  }
  /* Dims below the tiling threshold stay unblocked. */
  lg_shape_copy copy;
  lg_shape_copy_init(&copy, 4);
  lg_shape_copy_add_dim(&copy, 3, 1, 2);
  lg_shape_copy_add_dim(&copy, 2, 3, 1);
  lg_shape_copy_finish(&copy);
  assert_false(copy.blocked);
}

/* ---- SLICE --------------------------------------------------------------*/

static void test_slice(void** state) {
  (void)state;
  sh_run s;
  /* x = 3x4 of 0..11; begin (1,1), size (2,-1): rows 1..2, cols 1..3 ->
   * [[5,6,7],[9,10,11]]. */
  const int32_t b[] = {1, 1}, sz[] = {2, -1};
  sh_init(&s, lg_register_SLICE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 4), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(2), b);
  sh_const(&s, kTfLiteInt32, DIMS(2), sz);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(2, 3), (const float[]){5, 6, 7, 9, 10, 11}, 4);
  lg_kernel_runner_release(&s.r);
  /* INT64, non-constant: begin (0,3), size (3,1) -> column 3 = [3,7,11];
   * then begin (2,0) size (1,4) at the next Invoke -> row 2. */
  int64_t b64[] = {0, 3}, s64[] = {3, 1};
  sh_init(&s, lg_register_SLICE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 4), g_x);
  sh_var(&s, kTfLiteInt64, DIMS(2), b64);
  sh_var(&s, kTfLiteInt64, DIMS(2), s64);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  assert_int_equal(sh_output(&s, 0)->allocation_type, kTfLiteDynamic);
  sh_expect(&s, 0, DIMS(3, 1), (const float[]){3, 7, 11}, 4);
  b64[0] = 2, b64[1] = 0, s64[0] = 1, s64[1] = 4;
  assert_int_equal(lg_kernel_runner_invoke(&s.r), kTfLiteOk);
  sh_expect(&s, 0, DIMS(1, 4), g_x + 8, 4);
  lg_kernel_runner_release(&s.r);
  /* An empty slice (size 0) and a slice of an empty dim. */
  const int32_t b0[] = {3, 0}, s0[] = {0, -1};
  sh_init(&s, lg_register_SLICE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 4), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(2), b0);
  sh_const(&s, kTfLiteInt32, DIMS(2), s0);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect_shape(sh_output(&s, 0), DIMS(0, 4));
  lg_kernel_runner_release(&s.r);
}

static void test_slice_rejections(void** state) {
  (void)state;
  sh_run s;
  const int32_t b[] = {1, 1}, sz[] = {2, -1};
  /* Rejections. */
  const struct {
    int32_t b[2], s[2];
    const char* msg;
  } bad[] = {
      {{-1, 0},
       {1, 1},
       "SLICE: begin -1 and size 1 of dim 0 are out of range "
       "for input [3,4]"},
      {{1, 2}, {1, 3}, "SLICE: begin 2 and size 3 of dim 1 are out of range"},
      {{0, 0}, {-2, 1}, "SLICE: begin 0 and size -2 of dim 0"},
      {{4, 0}, {-1, 1}, "SLICE: begin 4 and size -1 of dim 0"},
  };
  for (int i = 0; i < ARRAY_SIZE(bad); ++i) {
    sh_init(&s, lg_register_SLICE(), NULL);
    sh_const(&s, kTfLiteFloat32, DIMS(3, 4), g_x);
    sh_const(&s, kTfLiteInt32, DIMS(2), bad[i].b);
    sh_const(&s, kTfLiteInt32, DIMS(2), bad[i].s);
    sh_out(&s, kTfLiteFloat32);
    sh_fails(&s, bad[i].msg);
  }
  sh_init(&s, lg_register_SLICE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 4), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(3), bad[0].b);
  sh_const(&s, kTfLiteInt32, DIMS(2), bad[0].s);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "SLICE: begin must be 1-D with 2 elements, got [3]");
  sh_init(&s, lg_register_SLICE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 4), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(2), b);
  sh_const(&s, kTfLiteInt16, DIMS(2), sz);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "SLICE: size type INT16 is not supported");
}

/* ---- STRIDED_SLICE ------------------------------------------------------*/

typedef struct ss_case {
  const char* what;
  int dims[4];
  int rank;
  int n;
  int32_t begin[4], end[4], strides[4];
  TfLiteStridedSliceParams p;
  int out_dims[4];
  int out_rank;
  float want[24];
} ss_case;

static void ss_run_case(const ss_case* c) {
  sh_run s;
  TfLiteStridedSliceParams p = c->p;
  sh_init(&s, lg_register_STRIDED_SLICE(), &p);
  sh_const(&s, kTfLiteFloat32, c->dims, c->rank, g_x);
  sh_const(&s, kTfLiteInt32, &c->n, 1, c->begin);
  sh_const(&s, kTfLiteInt32, &c->n, 1, c->end);
  sh_const(&s, kTfLiteInt32, &c->n, 1, c->strides);
  sh_out(&s, kTfLiteFloat32);
  if (lg_kernel_runner_run(&s.r) != kTfLiteOk) {
    fail_msg("%s: %s", c->what, lg_kernel_runner_errors(&s.r));
  }
  sh_expect_shape(sh_output(&s, 0), c->out_dims, c->out_rank);
  int n = 1;
  for (int i = 0; i < c->out_rank; ++i) n *= c->out_dims[i];
  sh_expect_floats(sh_output(&s, 0)->data.f, c->want, n);
  lg_kernel_runner_release(&s.r);
}

/* x = 3x4 of 0..11 (or 2x3x4 of 0..23), then dims, spec length, begin,
 * end, strides, params, output shape, values. */
/* clang-format off */
static const ss_case kStridedCases[] = {
    {"reverse rows", {3, 4}, 2, 2, {-1, 0}, {-4, 4}, {-1, 1}, {0},
     {3, 4}, 2, {8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3}},
    /* Every other row and column from column 1. */
    {"stride 2", {3, 4}, 2, 2, {0, 1}, {3, 4}, {2, 2}, {0}, {2, 2}, 2,
     {1, 3, 9, 11}},
    /* begin 7 clamps to 3 -> no rows. */
    {"clamped empty", {3, 4}, 2, 2, {7, 0}, {9, 4}, {1, 1}, {0}, {0, 4}, 2,
     {0}},
    /* begin_mask bit 1 (the last column for a negative stride), end_mask
     * bit 0 (to the end): rows 1.., columns 3 down to 0 step -2 -> 3, 1. */
    {"masks", {3, 4}, 2, 2, {1, 99}, {0, -5}, {1, -2},
     {.begin_mask = 2, .end_mask = 1}, {2, 2}, 2, {7, 5, 11, 9}},
    /* shrink_axis bit 0 with begin -1: the last row, dim dropped. */
    {"shrink", {3, 4}, 2, 2, {-1, 0}, {0, 4}, {1, 1},
     {.shrink_axis_mask = 1}, {4}, 1, {8, 9, 10, 11}},
    /* Both dims shrunk: the scalar x[1][2] = 6. */
    {"scalar", {3, 4}, 2, 2, {1, 2}, {0, 0}, {1, 1},
     {.shrink_axis_mask = 3}, {0}, 0, {6}},
    /* Fewer entries than dims: the rest are whole. x[1:3] of 3x4. */
    {"short spec", {3, 4}, 2, 1, {1}, {3}, {1}, {0}, {2, 4}, 2,
     {4, 5, 6, 7, 8, 9, 10, 11}},
    /* new_axis at entry 0 gives [1,...]; entry 1 ([0:1]) takes row 0. */
    {"new axis", {3, 4}, 2, 2, {0, 0}, {0, 1}, {1, 1},
     {.new_axis_mask = 1}, {1, 1, 4}, 3, {0, 1, 2, 3}},
    /* Ellipsis at entry 0, then column 1 shrunk: x[..., 1] of 2x3x4. */
    {"ellipsis", {2, 3, 4}, 3, 2, {0, 1}, {0, 2}, {1, 1},
     {.ellipsis_mask = 1, .shrink_axis_mask = 2}, {2, 3}, 2,
     {1, 5, 9, 13, 17, 21}},
    /* Ellipsis in the middle: x[1:2, ..., ::-2] of 2x3x4 ->
     * 12 + 4j + {3, 1}. */
    {"mid ellipsis", {2, 3, 4}, 3, 3, {1, 0, 0}, {2, 0, 0}, {1, 1, -2},
     {.ellipsis_mask = 2, .begin_mask = 4, .end_mask = 4}, {1, 3, 2}, 3,
     {15, 13, 19, 17, 23, 21}},
    /* An ellipsis that would cover no dim still covers one (LiteRT): spec
     * [..., ::-1, ::-1] on 3x4 keeps dim 0 whole and reverses dim 1; the
     * third entry is ignored. */
    {"ellipsis covers one", {3, 4}, 2, 3, {0, 0, 0}, {0, 0, 0}, {1, -1, -1},
     {.ellipsis_mask = 1, .begin_mask = 6, .end_mask = 6}, {3, 4}, 2,
     {3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8}},
    /* offset: end is the extent from begin: rows 1..2, columns 2..3. */
    {"offset", {3, 4}, 2, 2, {1, -2}, {2, 2}, {1, 1}, {.offset = true},
     {2, 2}, 2, {6, 7, 10, 11}},
    /* A shrunk dim with a negative stride takes the element at begin. */
    {"shrink negative", {3, 4}, 2, 2, {1, 3}, {0, 0}, {-1, -1},
     {.shrink_axis_mask = 1, .end_mask = 2}, {4}, 1, {7, 6, 5, 4}},
};
/* clang-format on */

static void test_strided_slice_cases(void** state) {
  (void)state;
  for (int i = 0; i < ARRAY_SIZE(kStridedCases); ++i) {
    ss_run_case(&kStridedCases[i]);
  }
}

static void test_strided_slice_dynamic_and_int64(void** state) {
  (void)state;
  sh_run s;
  /* INT64, non-constant begin/end/strides on 6 elements: [5:0:-2] -> 5,3,1;
   * then [0:6:4] -> 0, 4. */
  int64_t b[] = {5}, e[] = {0}, st[] = {-2};
  sh_init(&s, lg_register_STRIDED_SLICE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(6), g_x);
  sh_var(&s, kTfLiteInt64, DIMS(1), b);
  sh_var(&s, kTfLiteInt64, DIMS(1), e);
  sh_var(&s, kTfLiteInt64, DIMS(1), st);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(3), (const float[]){5, 3, 1}, 4);
  b[0] = 0, e[0] = 6, st[0] = 4;
  assert_int_equal(lg_kernel_runner_invoke(&s.r), kTfLiteOk);
  sh_expect(&s, 0, DIMS(2), (const float[]){0, 4}, 4);
  lg_kernel_runner_release(&s.r);
  /* Huge INT64 values clamp: [-2^62 : 2^62] is everything. */
  const int64_t hb[] = {-((int64_t)1 << 62)}, he[] = {(int64_t)1 << 62},
                hs[] = {INT64_MAX};
  sh_init(&s, lg_register_STRIDED_SLICE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(6), g_x);
  sh_const(&s, kTfLiteInt64, DIMS(1), hb);
  sh_const(&s, kTfLiteInt64, DIMS(1), he);
  sh_const(&s, kTfLiteInt64, DIMS(1), hs);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(1), g_x, 4);
  lg_kernel_runner_release(&s.r);
}

static void test_strided_slice_rejections(void** state) {
  (void)state;
  sh_run s;
  const int32_t zero[] = {0, 0}, one[] = {1, 1}, bad_stride[] = {1, 0};
  sh_init(&s, lg_register_STRIDED_SLICE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 4), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(2), zero);
  sh_const(&s, kTfLiteInt32, DIMS(2), one);
  sh_const(&s, kTfLiteInt32, DIMS(2), bad_stride);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "STRIDED_SLICE: strides[1] is 0 (strides must be non-zero)");
  /* A shrink index past the dim. */
  const int32_t far[] = {3, 0};
  TfLiteStridedSliceParams shrink = {.shrink_axis_mask = 1};
  sh_init(&s, lg_register_STRIDED_SLICE(), &shrink);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 4), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(2), far);
  sh_const(&s, kTfLiteInt32, DIMS(2), one);
  sh_const(&s, kTfLiteInt32, DIMS(2), one);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "STRIDED_SLICE: entry 0 (begin 3, end 1, stride 1, shrunk) "
           "reads outside its input dim");
  /* An offset slice running past the dim. */
  const int32_t ext[] = {3, 1};
  TfLiteStridedSliceParams offset = {.offset = true};
  sh_init(&s, lg_register_STRIDED_SLICE(), &offset);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 4), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(2), one);
  sh_const(&s, kTfLiteInt32, DIMS(2), ext);
  sh_const(&s, kTfLiteInt32, DIMS(2), one);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "STRIDED_SLICE: entry 0 (begin 1, end 3, stride 1, offset) "
           "reads outside its input dim");
}

static void test_strided_slice_spec_rejections(void** state) {
  (void)state;
  sh_run s;
  const int32_t zero[] = {0, 0}, one[] = {1, 1};
  TfLiteStridedSliceParams two = {.ellipsis_mask = 3};
  sh_init(&s, lg_register_STRIDED_SLICE(), &two);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 4), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(2), zero);
  sh_const(&s, kTfLiteInt32, DIMS(2), one);
  sh_const(&s, kTfLiteInt32, DIMS(2), one);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "STRIDED_SLICE: ellipsis_mask 0x3 has more than one bit set");
  sh_init(&s, lg_register_STRIDED_SLICE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 4), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(2), zero);
  sh_const(&s, kTfLiteInt32, DIMS(1), one);
  sh_const(&s, kTfLiteInt32, DIMS(2), one);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "STRIDED_SLICE: end must be 1-D with 2 elements, got [1]");
  sh_init(&s, lg_register_STRIDED_SLICE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(3, 4), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(2), zero);
  sh_const(&s, kTfLiteInt32, DIMS(2), one);
  sh_const(&s, kTfLiteFloat32, DIMS(2), one);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "STRIDED_SLICE: strides type FLOAT32 is not supported");
  /* new axes that leave entries indexing past the input's dims. */
  TfLiteStridedSliceParams p = {.new_axis_mask = 4};
  const int32_t z3[] = {0, 0, 0}, o3[] = {1, 1, 1};
  sh_init(&s, lg_register_STRIDED_SLICE(), &p);
  sh_const(&s, kTfLiteFloat32, DIMS(3), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(3), z3);
  sh_const(&s, kTfLiteInt32, DIMS(3), o3);
  sh_const(&s, kTfLiteInt32, DIMS(3), o3);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "STRIDED_SLICE: the slice entries index more dims than the "
           "input's 1");
}

/* The indices a Python-style slice [b:e:s] of a dim of size d takes, with
 * masks; shrink takes the single index b. Returns the count. */
static int ss_ref_indices(int d, int b, int e, int st, bool bm, bool em,
                          bool shrink, int* out) {
  if (shrink) {
    out[0] = b < 0 ? b + d : b;
    return 1;
  }
  int start, stop, n = 0;
  if (st > 0) {
    start = bm ? 0 : (b < 0 ? (b + d > 0 ? b + d : 0) : (b < d ? b : d));
    stop = em ? d : (e < 0 ? (e + d > 0 ? e + d : 0) : (e < d ? e : d));
    for (int i = start; i < stop; i += st) out[n++] = i;
  } else {
    start = bm ? d - 1
               : (b < 0 ? (b + d > -1 ? b + d : -1) : (b < d - 1 ? b : d - 1));
    stop =
        em ? -1 : (e < 0 ? (e + d > -1 ? e + d : -1) : (e < d - 1 ? e : d - 1));
    for (int i = start; i > stop; i += st) out[n++] = i;
  }
  return n;
}

/* Random full-spec STRIDED_SLICE cases (masks, negative strides, clamping,
 * shrink with valid indices) against the Python-slice reference. */
static void test_strided_slice_random(void** state) {
  (void)state;
  uint32_t seed = 31337u;
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = sh_rng_int(&seed, 1, 4);
    int dims[4], idx[4][8], cnt[4];
    int32_t b[4], e[4], st[4];
    TfLiteStridedSliceParams p = {0};
    for (int k = 0; k < rank; ++k) {
      dims[k] = sh_rng_int(&seed, 1, 5);
      b[k] = sh_rng_int(&seed, -7, 7);
      e[k] = sh_rng_int(&seed, -7, 7);
      st[k] = sh_rng_int(&seed, 1, 3) * (sh_rng(&seed) & 1 ? -1 : 1);
      if (sh_rng(&seed) % 4 == 0) p.begin_mask |= 1 << k;
      if (sh_rng(&seed) % 4 == 0) p.end_mask |= 1 << k;
      if (sh_rng(&seed) % 5 == 0) {
        p.shrink_axis_mask |= 1 << k;
        b[k] = sh_rng_int(&seed, -dims[k], dims[k] - 1);
        p.begin_mask &= ~(1 << k);
      }
    }
    int out_dims[4], out_rank = 0;
    int64_t total = 1;
    for (int k = 0; k < rank; ++k) {
      const bool shrink = (p.shrink_axis_mask >> k) & 1;
      cnt[k] =
          ss_ref_indices(dims[k], b[k], e[k], st[k], (p.begin_mask >> k) & 1,
                         (p.end_mask >> k) & 1, shrink, idx[k]);
      total *= cnt[k];
      if (!shrink) out_dims[out_rank++] = cnt[k];
    }
    sh_run s;
    sh_init(&s, lg_register_STRIDED_SLICE(), &p);
    sh_const(&s, kTfLiteFloat32, dims, rank, g_x);
    sh_const(&s, kTfLiteInt32, &rank, 1, b);
    sh_const(&s, kTfLiteInt32, &rank, 1, e);
    sh_const(&s, kTfLiteInt32, &rank, 1, st);
    sh_out(&s, kTfLiteFloat32);
    sh_ok(&s);
    sh_expect_shape(sh_output(&s, 0), out_dims, out_rank);
    int64_t strides[4];
    sh_strides(dims, rank, strides);
    for (int64_t f = 0; f < total; ++f) {
      int o[4];
      sh_unravel(f, cnt, rank, o);
      int64_t src = 0;
      for (int k = 0; k < rank; ++k) src += idx[k][o[k]] * strides[k];
      if (sh_output(&s, 0)->data.f[f] != g_x[src]) {
        fail_msg("trial %d: output %lld = %g, want %g", trial, (long long)f,
                 (double)sh_output(&s, 0)->data.f[f], (double)g_x[src]);
      }
    }
    lg_kernel_runner_release(&s.r);
  }
}

static void test_slice_limits(void** state) {
  (void)state;
  sh_run s;
  /* STRIDED_SLICE: 9 entries; a new axis on a rank-8 input (rank 9 out). */
  const int32_t nine[9] = {0}, one[1] = {1}, zero[1] = {0};
  sh_init(&s, lg_register_STRIDED_SLICE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(3), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(9), nine);
  sh_const(&s, kTfLiteInt32, DIMS(9), nine);
  sh_const(&s, kTfLiteInt32, DIMS(9), nine);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "STRIDED_SLICE: begin must be 1-D with at most 8 elements, "
           "got [9]");
  TfLiteStridedSliceParams p = {.new_axis_mask = 1};
  sh_init(&s, lg_register_STRIDED_SLICE(), &p);
  sh_const(&s, kTfLiteFloat32, DIMS(1, 1, 1, 1, 1, 1, 1, 1), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(1), zero);
  sh_const(&s, kTfLiteInt32, DIMS(1), one);
  sh_const(&s, kTfLiteInt32, DIMS(1), one);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "STRIDED_SLICE: the output rank is above the supported 8");
  /* PAD: [2^16, 2^14] padded to [2^16, 3 * 2^14]: 3 * 2^30 elements. */
  const int32_t pads[] = {0, 0, 0, 1 << 15};
  sh_init(&s, lg_register_PAD(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(1 << 16, 1 << 14), NULL);
  sh_const(&s, kTfLiteInt32, DIMS(2, 2), pads);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "PAD: the padded output has more than 2147483647 elements");
}

/* ---- PAD / PADV2 --------------------------------------------------------*/

static void test_pad(void** state) {
  (void)state;
  sh_run s;
  /* [[1,2],[3,4]] padded ((1,0),(0,2)) with 0:
   * [[0,0,0,0],[1,2,0,0],[3,4,0,0]]. PADV2 with 9 instead of 0. */
  const float x[] = {1, 2, 3, 4};
  const int32_t pads[] = {1, 0, 0, 2};
  const float want0[] = {0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0};
  const float want9[] = {9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9};
  const float nine = 9.0f;
  sh_init(&s, lg_register_PAD(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 2), x);
  sh_const(&s, kTfLiteInt32, DIMS(2, 2), pads);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(3, 4), want0, 4);
  lg_kernel_runner_release(&s.r);
  sh_init(&s, lg_register_PADV2(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 2), x);
  sh_const(&s, kTfLiteInt32, DIMS(2, 2), pads);
  sh_const(&s, kTfLiteFloat32, SCALAR, &nine);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(3, 4), want9, 4);
  lg_kernel_runner_release(&s.r);
  /* int8 with zero point -3 pads with -3; uint8 zero point 130 with 130. */
  const int8_t q[] = {5, 6};
  const int64_t pad1[] = {2, 1};
  sh_init(&s, lg_register_PAD(), NULL);
  sh_const(&s, kTfLiteInt8, DIMS(2), q);
  sh_const(&s, kTfLiteInt64, DIMS(1, 2), pad1);
  const int out = sh_out(&s, kTfLiteInt8);
  sh_tensor(&s, 0)->params = (TfLiteQuantizationParams){0.5f, -3};
  sh_tensor(&s, out)->params = (TfLiteQuantizationParams){0.5f, -3};
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(5), (const int8_t[]){-3, -3, 5, 6, -3}, 1);
  lg_kernel_runner_release(&s.r);
  const uint8_t u[] = {5};
  sh_init(&s, lg_register_PAD(), NULL);
  sh_const(&s, kTfLiteUInt8, DIMS(1), u);
  sh_const(&s, kTfLiteInt64, DIMS(1, 2), pad1);
  const int uout = sh_out(&s, kTfLiteUInt8);
  sh_tensor(&s, uout)->params = (TfLiteQuantizationParams){0.5f, 130};
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(4), (const uint8_t[]){130, 130, 5, 130}, 1);
  lg_kernel_runner_release(&s.r);
  /* bool with constant true; int16 with -7; a scalar input (rank 0). */
  const uint8_t bt[] = {0}, on = 1;
  sh_init(&s, lg_register_PADV2(), NULL);
  sh_const(&s, kTfLiteBool, DIMS(1), bt);
  sh_const(&s, kTfLiteInt64, DIMS(1, 2), pad1);
  sh_const(&s, kTfLiteBool, DIMS(1), &on);
  sh_out(&s, kTfLiteBool);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(4), (const uint8_t[]){1, 1, 0, 1}, 1);
  lg_kernel_runner_release(&s.r);
  const int32_t none[1] = {0};
  sh_init(&s, lg_register_PAD(), NULL);
  sh_const(&s, kTfLiteFloat32, SCALAR, x);
  sh_const(&s, kTfLiteInt32, DIMS(0, 2), none);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, SCALAR, x, 4);
  lg_kernel_runner_release(&s.r);
}

static void test_pad_dynamic(void** state) {
  (void)state;
  sh_run s;
  /* Non-constant paddings: dynamic output. [1,2] with ((0,1)) -> [1,2,0],
   * then ((1,1)) -> [0,1,2,0]. */
  const float x[] = {1, 2};
  int32_t pads[] = {0, 1};
  sh_init(&s, lg_register_PAD(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(2), x);
  sh_var(&s, kTfLiteInt32, DIMS(1, 2), pads);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(3), (const float[]){1, 2, 0}, 4);
  pads[0] = 1;
  assert_int_equal(lg_kernel_runner_invoke(&s.r), kTfLiteOk);
  sh_expect(&s, 0, DIMS(4), (const float[]){0, 1, 2, 0}, 4);
  lg_kernel_runner_release(&s.r);
}

static void test_pad_rejections(void** state) {
  (void)state;
  sh_run s;
  const float x[] = {1, 2};
  const int32_t pads[] = {0, 1};
  /* Rejections. */
  const int32_t neg[] = {-1, 0}, three[] = {0, 1, 2};
  sh_init(&s, lg_register_PAD(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(2), x);
  sh_const(&s, kTfLiteInt32, DIMS(1, 2), neg);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "PAD: paddings (-1, 0) of dim 0 are negative; they must be "
           ">= 0");
  sh_init(&s, lg_register_PAD(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(2), x);
  sh_const(&s, kTfLiteInt32, DIMS(3), three);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "PAD: paddings shape [3] is not [1,2] (input rank 1)");
  const int32_t cv = 1;
  sh_init(&s, lg_register_PADV2(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(2), x);
  sh_const(&s, kTfLiteInt32, DIMS(1, 2), pads);
  sh_const(&s, kTfLiteInt32, SCALAR, &cv);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "PADV2: constant_values type INT32 differs from input type "
           "FLOAT32");
  sh_init(&s, lg_register_PADV2(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(2), x);
  sh_const(&s, kTfLiteInt32, DIMS(1, 2), pads);
  sh_const(&s, kTfLiteFloat32, DIMS(2), x);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "PADV2: constant_values must hold 1 element, shape [2]");
  const int8_t q = 1;
  sh_init(&s, lg_register_PADV2(), NULL);
  sh_const(&s, kTfLiteInt8, DIMS(1), &q);
  sh_const(&s, kTfLiteInt32, DIMS(1, 2), pads);
  const int value = sh_const(&s, kTfLiteInt8, SCALAR, &q);
  const int out = sh_out(&s, kTfLiteInt8);
  sh_tensor(&s, value)->params = (TfLiteQuantizationParams){0.25f, 0};
  sh_tensor(&s, out)->params = (TfLiteQuantizationParams){0.5f, 3};
  sh_fails(&s,
           "PADV2: constant_values quantization (scale 0.25, zero point "
           "0) differs from the output's (scale 0.5, zero point 3)");
  const float fp[] = {0, 1};
  sh_init(&s, lg_register_PAD(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(2), x);
  sh_const(&s, kTfLiteFloat32, DIMS(1, 2), fp);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "PAD: paddings type FLOAT32 is not supported");
  sh_init(&s, lg_register_PAD(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(1, 1, 1, 1, 1, 1, 1, 1, 1), x);
  sh_const(&s, kTfLiteInt32, DIMS(9, 2), g_x);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "PAD: input shape [1,1,1,1,1,1,1,1,1] has rank 9, above the "
           "supported 8");
}

/* Random 1..6-D PADV2 cases against out[i] = in[i - before] or the value. */
static void test_pad_random(void** state) {
  (void)state;
  uint32_t seed = 2718u;
  for (int trial = 0; trial < 60; ++trial) {
    const int rank = sh_rng_int(&seed, 1, 6);
    int dims[6], out_dims[6];
    int32_t pads[12];
    for (int k = 0; k < rank; ++k) {
      dims[k] = sh_rng_int(&seed, 1, 3);
      pads[2 * k] = sh_rng_int(&seed, 0, 2);
      pads[2 * k + 1] = sh_rng_int(&seed, 0, 2);
      out_dims[k] = dims[k] + pads[2 * k] + pads[2 * k + 1];
    }
    const float value = -1.5f;
    sh_run s;
    sh_init(&s, lg_register_PADV2(), NULL);
    sh_const(&s, kTfLiteFloat32, dims, rank, g_x);
    sh_const(&s, kTfLiteInt32, (const int[]){rank, 2}, 2, pads);
    sh_const(&s, kTfLiteFloat32, SCALAR, &value);
    sh_out(&s, kTfLiteFloat32);
    sh_ok(&s);
    sh_expect_shape(sh_output(&s, 0), out_dims, rank);
    int64_t n = 1;
    for (int k = 0; k < rank; ++k) n *= out_dims[k];
    for (int64_t f = 0; f < n; ++f) {
      int o[6];
      sh_unravel(f, out_dims, rank, o);
      int64_t src = 0;
      bool inside = true;
      for (int k = 0; k < rank; ++k) {
        const int i = o[k] - pads[2 * k];
        inside = inside && i >= 0 && i < dims[k];
        src = src * dims[k] + i;
      }
      const float want = inside ? g_x[src] : value;
      if (sh_output(&s, 0)->data.f[f] != want) {
        fail_msg("trial %d: output %lld = %g, want %g", trial, (long long)f,
                 (double)sh_output(&s, 0)->data.f[f], (double)want);
      }
    }
    lg_kernel_runner_release(&s.r);
  }
}

/* ---- MIRROR_PAD ---------------------------------------------------------*/

static void test_mirror_pad(void** state) {
  (void)state;
  sh_run s;
  /* [0,1,2] padded (2,2): REFLECT (edge left out) -> [2,1,0,1,2,1,0];
   * SYMMETRIC (edge repeated) -> [1,0,0,1,2,2,1]. */
  const int32_t pads[] = {2, 2};
  TfLiteMirrorPaddingParams reflect = {.mode = kTfLiteMirrorPaddingReflect};
  TfLiteMirrorPaddingParams symmetric = {.mode = kTfLiteMirrorPaddingSymmetric};
  sh_init(&s, lg_register_MIRROR_PAD(), &reflect);
  sh_const(&s, kTfLiteFloat32, DIMS(3), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(1, 2), pads);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(7), (const float[]){2, 1, 0, 1, 2, 1, 0}, 4);
  lg_kernel_runner_release(&s.r);
  sh_init(&s, lg_register_MIRROR_PAD(), &symmetric);
  sh_const(&s, kTfLiteFloat32, DIMS(3), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(1, 2), pads);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(7), (const float[]){1, 0, 0, 1, 2, 2, 1}, 4);
  lg_kernel_runner_release(&s.r);
  /* 2-D REFLECT of [[0,1],[2,3]] by ((1,0),(0,1)): the rows are row 1, row
   * 0, row 1; each row [a,b] becomes [a,b,a] -> [[2,3,2],[0,1,0],[2,3,2]].
   * INT64 paddings, non-constant. */
  int64_t pads2[] = {1, 0, 0, 1};
  sh_init(&s, lg_register_MIRROR_PAD(), &reflect);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 2), g_x);
  sh_var(&s, kTfLiteInt64, DIMS(2, 2), pads2);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(3, 3), (const float[]){2, 3, 2, 0, 1, 0, 2, 3, 2}, 4);
  lg_kernel_runner_release(&s.r);
  /* Rejections. */
  const int32_t three[] = {3, 0};
  sh_init(&s, lg_register_MIRROR_PAD(), &reflect);
  sh_const(&s, kTfLiteFloat32, DIMS(3), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(1, 2), three);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "MIRROR_PAD: paddings (3, 0) of dim 0 (size 3) exceed 2 "
           "(REFLECT pads at most dim - 1)");
  const int32_t four[] = {0, 4};
  sh_init(&s, lg_register_MIRROR_PAD(), &symmetric);
  sh_const(&s, kTfLiteFloat32, DIMS(3), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(1, 2), four);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "MIRROR_PAD: paddings (0, 4) of dim 0 (size 3) exceed 3 "
           "(SYMMETRIC pads at most dim)");
  TfLiteMirrorPaddingParams unknown = {.mode = kTfLiteMirrorPaddingUnknown};
  sh_init(&s, lg_register_MIRROR_PAD(), &unknown);
  sh_const(&s, kTfLiteFloat32, DIMS(3), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(1, 2), pads);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "MIRROR_PAD: mode 0 is not supported (expected REFLECT or "
           "SYMMETRIC)");
  sh_init(&s, lg_register_MIRROR_PAD(), &reflect);
  sh_const(&s, kTfLiteFloat32, DIMS(3), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(1, 2), pads);
  sh_const(&s, kTfLiteFloat32, SCALAR, g_x);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s, "MIRROR_PAD: expected 2 inputs, got 3");
}

/* The input index of output index o along a mirrored dim, by walking:
 * reflect the position back inside [0, n) one bounce at a time. */
static int mirror_ref(int o, int before, int n, bool reflect) {
  int i = o - before;
  while (i < 0 || i >= n) {
    if (i < 0) i = reflect ? -i : -i - 1;
    if (i >= n) i = reflect ? 2 * (n - 1) - i : 2 * n - 1 - i;
  }
  return i;
}

static void test_mirror_pad_random(void** state) {
  (void)state;
  uint32_t seed = 161u;
  int8_t in[1024];
  for (int i = 0; i < 1024; ++i) in[i] = (int8_t)(i * 37);
  for (int trial = 0; trial < 80; ++trial) {
    const bool reflect = trial % 2 == 0;
    const int rank = sh_rng_int(&seed, 1, 5);
    int dims[5], out_dims[5];
    int32_t pads[10];
    for (int k = 0; k < rank; ++k) {
      dims[k] = sh_rng_int(&seed, 1, 4);
      const int limit = reflect ? dims[k] - 1 : dims[k];
      pads[2 * k] = sh_rng_int(&seed, 0, limit);
      pads[2 * k + 1] = sh_rng_int(&seed, 0, limit);
      out_dims[k] = dims[k] + pads[2 * k] + pads[2 * k + 1];
    }
    TfLiteMirrorPaddingParams p = {.mode = reflect
                                               ? kTfLiteMirrorPaddingReflect
                                               : kTfLiteMirrorPaddingSymmetric};
    sh_run s;
    sh_init(&s, lg_register_MIRROR_PAD(), &p);
    sh_const(&s, kTfLiteInt8, dims, rank, in);
    sh_const(&s, kTfLiteInt32, (const int[]){rank, 2}, 2, pads);
    sh_out(&s, kTfLiteInt8);
    sh_ok(&s);
    sh_expect_shape(sh_output(&s, 0), out_dims, rank);
    int64_t n = 1;
    for (int k = 0; k < rank; ++k) n *= out_dims[k];
    for (int64_t f = 0; f < n; ++f) {
      int o[5];
      sh_unravel(f, out_dims, rank, o);
      int64_t src = 0;
      for (int k = 0; k < rank; ++k) {
        src = src * dims[k] + mirror_ref(o[k], pads[2 * k], dims[k], reflect);
      }
      if (sh_output(&s, 0)->data.int8[f] != in[src]) {
        fail_msg("trial %d: output %lld = %d, want %d", trial, (long long)f,
                 sh_output(&s, 0)->data.int8[f], in[src]);
      }
    }
    lg_kernel_runner_release(&s.r);
  }
}

/* ---- TRANSPOSE ----------------------------------------------------------*/

static void test_transpose(void** state) {
  (void)state;
  sh_run s;
  /* [2,3] transposed: [[0,3],[1,4],[2,5]]. */
  const int32_t p10[] = {1, 0};
  sh_init(&s, lg_register_TRANSPOSE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 3), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(2), p10);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(3, 2), (const float[]){0, 3, 1, 4, 2, 5}, 4);
  lg_kernel_runner_release(&s.r);
  /* [2,2,3] with perm (2,0,1) written as (-1,0,1):
   * out[k][i][j] = in[i][j][k] -> k=0: 0,3,6,9; k=1: 1,4,7,10; ... */
  const int32_t pn[] = {-1, 0, 1};
  const float want[] = {0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11};
  sh_init(&s, lg_register_TRANSPOSE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 2, 3), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(3), pn);
  sh_out(&s, kTfLiteFloat32);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(3, 2, 2), want, 4);
  lg_kernel_runner_release(&s.r);
  /* Non-constant INT64 perm on bool data: identity, then (1,0). */
  const uint8_t b[] = {1, 0, 0, 1, 1, 0};
  int64_t p64[] = {0, 1};
  sh_init(&s, lg_register_TRANSPOSE(), NULL);
  sh_const(&s, kTfLiteBool, DIMS(2, 3), b);
  sh_var(&s, kTfLiteInt64, DIMS(2), p64);
  sh_out(&s, kTfLiteBool);
  sh_ok(&s);
  sh_expect(&s, 0, DIMS(2, 3), b, 1);
  p64[0] = 1, p64[1] = 0;
  assert_int_equal(lg_kernel_runner_invoke(&s.r), kTfLiteOk);
  sh_expect(&s, 0, DIMS(3, 2), (const uint8_t[]){1, 1, 0, 1, 0, 0}, 1);
  lg_kernel_runner_release(&s.r);
  /* Rejections. */
  const int32_t dup[] = {0, 0}, far[] = {0, 2}, one[] = {0};
  const int32_t* perms[] = {dup, far};
  for (int i = 0; i < 2; ++i) {
    sh_init(&s, lg_register_TRANSPOSE(), NULL);
    sh_const(&s, kTfLiteFloat32, DIMS(2, 3), g_x);
    sh_const(&s, kTfLiteInt32, DIMS(2), perms[i]);
    sh_out(&s, kTfLiteFloat32);
    sh_fails(&s, i == 0 ? "TRANSPOSE: perm[1] = 0: perm must hold each dim of "
                          "0..1 (or -2..-1) once"
                        : "TRANSPOSE: perm[1] = 2: perm must hold each dim");
  }
  sh_init(&s, lg_register_TRANSPOSE(), NULL);
  sh_const(&s, kTfLiteFloat32, DIMS(2, 3), g_x);
  sh_const(&s, kTfLiteInt32, DIMS(1), one);
  sh_out(&s, kTfLiteFloat32);
  sh_fails(&s,
           "TRANSPOSE: perm must be 1-D with 2 elements (the input "
           "rank), got [1]");
}

/* Runs TRANSPOSE of `in` (dims[0..rank), elements of `size` bytes) by
 * perm and checks every output element against out[i] = in[perm-mapped
 * i]. */
static void check_transpose(TfLiteType type, size_t size, const int* dims,
                            int rank, const int32_t* perm, const void* in,
                            int trial) {
  int out_dims[8];
  int64_t total = 1;
  for (int k = 0; k < rank; ++k) {
    out_dims[k] = dims[perm[k]];
    total *= dims[k];
  }
  sh_run s;
  sh_init(&s, lg_register_TRANSPOSE(), NULL);
  sh_const(&s, type, dims, rank, in);
  sh_const(&s, kTfLiteInt32, &rank, 1, perm);
  sh_out(&s, type);
  sh_ok(&s);
  sh_expect_shape(sh_output(&s, 0), out_dims, rank);
  int64_t strides[8];
  sh_strides(dims, rank, strides);
  const unsigned char* got = (const unsigned char*)sh_output(&s, 0)->data.raw;
  const unsigned char* src_bytes = in;
  for (int64_t f = 0; f < total; ++f) {
    int o[8];
    sh_unravel(f, out_dims, rank, o);
    int64_t src = 0;
    for (int k = 0; k < rank; ++k) src += o[k] * strides[perm[k]];
    if (memcmp(got + f * (int64_t)size, src_bytes + src * (int64_t)size,
               size) != 0) {
      fail_msg("case %d (rank %d, %zu-byte): output %lld differs", trial, rank,
               size, (long long)f);
    }
  }
  lg_kernel_runner_release(&s.r);
}

/* Random 1..8-D TRANSPOSE cases of every element size against
 * out[i] = in[perm-mapped i]. */
static void test_transpose_random(void** state) {
  (void)state;
  uint32_t seed = 8086u;
  const TfLiteType types[] = {kTfLiteInt8, kTfLiteInt16, kTfLiteFloat32,
                              kTfLiteInt64};
  const size_t sizes[] = {1, 2, 4, 8};
  unsigned char in[8 * 4096];
  for (size_t i = 0; i < sizeof(in); ++i) in[i] = (unsigned char)(i * 131 + 7);
  for (int trial = 0; trial < 120; ++trial) {
    const int t = trial % 4;
    const int rank = sh_rng_int(&seed, 1, 8);
    int dims[8], perm32[8];
    for (int k = 0; k < rank; ++k) {
      dims[k] = sh_rng_int(&seed, 1, rank > 5 ? 3 : 5);
      perm32[k] = k;
    }
    for (int k = rank - 1; k > 0; --k) { /* Fisher-Yates */
      const int j = sh_rng_int(&seed, 0, k);
      const int tmp = perm32[k];
      perm32[k] = perm32[j];
      perm32[j] = tmp;
    }
    check_transpose(types[t], sizes[t], dims, rank, perm32, in, trial);
  }
}

/* 4-byte transposes that merge to at most 3 loop dims take explicit loops:
 * attention's head split and merge ([1,S,H,D] <-> [1,H,S,D]: contiguous
 * rows of D, D = 7 with a tail and 16 without), its key transpose
 * ([1,S,H,D] -> [1,H,D,S]: 2-D blocks), a 2-D block of more rows than one
 * packing chunk (70), rows long enough for memcpy (300), and a 4-D
 * reversal that stays on the general path. */
static void test_transpose_float_paths(void** state) {
  (void)state;
  static float in[3 * 2 * 300];
  for (int i = 0; i < 3 * 2 * 300; ++i) in[i] = (float)i + 0.25f;
  const struct {
    int rank;
    int dims[4];
    int32_t perm[4];
  } cases[] = {
      {4, {1, 5, 3, 7}, {0, 2, 1, 3}},
      {4, {1, 5, 3, 7}, {0, 2, 3, 1}},
      {4, {1, 16, 4, 16}, {0, 2, 1, 3}},
      {4, {1, 16, 4, 16}, {0, 2, 3, 1}},
      {3, {4, 16, 16}, {1, 0, 2}},
      {2, {70, 5}, {1, 0}},
      {2, {5, 70}, {1, 0}},
      {3, {3, 2, 300}, {1, 0, 2}},
      {4, {2, 3, 4, 5}, {3, 2, 1, 0}},
  };
  for (int c = 0; c < (int)(sizeof(cases) / sizeof(cases[0])); ++c) {
    check_transpose(kTfLiteFloat32, 4, cases[c].dims, cases[c].rank,
                    cases[c].perm, in, c);
    check_transpose(kTfLiteInt32, 4, cases[c].dims, cases[c].rank,
                    cases[c].perm, in, c);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_copy_engine),
      cmocka_unit_test(test_copy_engine_blocked),
      cmocka_unit_test(test_slice),
      cmocka_unit_test(test_slice_rejections),
      cmocka_unit_test(test_strided_slice_cases),
      cmocka_unit_test(test_strided_slice_dynamic_and_int64),
      cmocka_unit_test(test_strided_slice_rejections),
      cmocka_unit_test(test_strided_slice_spec_rejections),
      cmocka_unit_test(test_strided_slice_random),
      cmocka_unit_test(test_slice_limits),
      cmocka_unit_test(test_pad),
      cmocka_unit_test(test_pad_dynamic),
      cmocka_unit_test(test_pad_rejections),
      cmocka_unit_test(test_pad_random),
      cmocka_unit_test(test_mirror_pad),
      cmocka_unit_test(test_mirror_pad_random),
      cmocka_unit_test(test_transpose),
      cmocka_unit_test(test_transpose_random),
      cmocka_unit_test(test_transpose_float_paths),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
