/* The shape family's RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR, SHAPE, FILL
 * and ZEROS_LIKE through the kernel runner: hand-derived values, every
 * parameter combination, empty tensors, dynamic outputs, every rejection,
 * threads, and seeded random resizes against a reference loop in double.
 * The runner checks guard bytes after every output. */
#include <float.h>

#include "reduce_test_util.h"
#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

/* ---- Resize: set-up and reference ------------------------------------------
 */

typedef struct resize_case {
  lg_kernel_runner r;
  TfLiteResizeBilinearParams bp;
  TfLiteResizeNearestNeighborParams np;
  int32_t size[2];
  int out, size_tensor;
} resize_case;

static void resize_setup(resize_case* c, bool bilinear, const int* dims,
                         const float* x, int h, int w, bool align, bool half,
                         bool size_runtime) {
  c->bp = (TfLiteResizeBilinearParams){align, half};
  c->np = (TfLiteResizeNearestNeighborParams){align, half};
  c->size[0] = h;
  c->size[1] = w;
  lg_kernel_runner_init(&c->r,
                        bilinear ? lg_register_RESIZE_BILINEAR()
                                 : lg_register_RESIZE_NEAREST_NEIGHBOR(),
                        bilinear ? (void*)&c->bp : (void*)&c->np);
  const int in = add_tensor(&c->r, kTfLiteFloat32, dims, 4, x);
  c->size_tensor = add_tensor(&c->r, kTfLiteInt32, (int[]){2}, 1, c->size);
  if (size_runtime) make_runtime_input(&c->r, c->size_tensor);
  c->out = add_output(&c->r, kTfLiteFloat32);
  set_io(&c->r, (int[]){in, c->size_tensor}, 2, c->out);
}

static const float* resize_out(resize_case* c) {
  return tensor_at(&c->r, c->out)->data.f;
}

/* The coordinate rules, in float as TFLite computes them (the indices must
 * match exactly); the blend is done in double by the caller. */
static float ref_scale(int in, int out, bool align) {
  return align && out > 1 ? (float)(in - 1) / (float)(out - 1)
                          : (float)in / (float)out;
}

static void ref_source(int v, float scale, bool half, int in, float* src,
                       int* lo, int* hi) {
  *src = half ? ((float)v + 0.5f) * scale - 0.5f : (float)v * scale;
  *lo = (int)floorf(*src) > 0 ? (int)floorf(*src) : 0;
  *hi = (int)ceilf(*src) < in - 1 ? (int)ceilf(*src) : in - 1;
}

static int ref_nearest(int v, int in, int out, bool align, bool half) {
  const float src =
      ((float)v + (half ? 0.5f : 0.0f)) * ref_scale(in, out, align);
  int i = align ? (int)roundf(src) : (int)floorf(src);
  if (i > in - 1) i = in - 1;
  if (half && i < 0) i = 0;
  return i;
}

/* Reference resize of x [b,h,w,c] to [b,oh,ow,c]. */
static void ref_resize(bool bilinear, const int* d, const float* x, int oh,
                       int ow, bool align, bool half, double* out,
                       double* tol) {
  const float sh = ref_scale(d[1], oh, align), sw = ref_scale(d[2], ow, align);
  int n = 0;
  for (int b = 0; b < d[0]; ++b)
    for (int y = 0; y < oh; ++y)
      for (int xo = 0; xo < ow; ++xo)
        for (int c = 0; c < d[3]; ++c, ++n) {
#define AT(yy, xx) ((double)x[((b * d[1] + (yy)) * d[2] + (xx)) * d[3] + c])
          if (!bilinear) {
            out[n] = AT(ref_nearest(y, d[1], oh, align, half),
                        ref_nearest(xo, d[2], ow, align, half));
            tol[n] = 0;
            continue;
          }
          float fy, fx;
          int y0, y1, x0, x1;
          ref_source(y, sh, half, d[1], &fy, &y0, &y1);
          ref_source(xo, sw, half, d[2], &fx, &x0, &x1);
          const double dy = (double)(fy - (float)y0);
          const double dx = (double)(fx - (float)x0);
          out[n] = AT(y0, x0) * (1 - dy) * (1 - dx) +
                   AT(y1, x0) * dy * (1 - dx) + AT(y0, x1) * (1 - dy) * dx +
                   AT(y1, x1) * dy * dx;
          tol[n] = 8 * FLT_EPSILON *
                   (fabs(AT(y0, x0)) + fabs(AT(y1, x0)) + fabs(AT(y0, x1)) +
                    fabs(AT(y1, x1)));
#undef AT
        }
}

/* ---- Resize: tests
 * ------------------------------------------------------------ */

static void test_bilinear_hand(void** state) {
  (void)state;
  /* A 1x2 row [0, 4] to width 4:
   *   default: scale 0.5, sources 0, 0.5, 1, 1.5 (upper cut to 1):
   *            0, 2, 4, 4;
   *   align_corners: scale 1/3, sources 0, 1/3, 2/3, 1: 0, 4/3, 8/3, 4;
   *   half_pixel: sources -0.25, 0.25, 0.75, 1.25 -> the edges repeat:
   *            0, 1, 3, 4. */
  const float x[] = {0, 4};
  const struct {
    bool align, half;
    double want[4];
  } cases[] = {
      {false, false, {0, 2, 4, 4}},
      {true, false, {0, 4.0 / 3, 8.0 / 3, 4}},
      {false, true, {0, 1, 3, 4}},
  };
  for (int i = 0; i < ARRAY_SIZE(cases); ++i) {
    resize_case c;
    resize_setup(&c, true, (int[]){1, 1, 2, 1}, x, 1, 4, cases[i].align,
                 cases[i].half, false);
    run_ok(&c.r, "RESIZE_BILINEAR");
    expect_shape(tensor_at(&c.r, c.out), (int[]){1, 1, 4, 1}, 4);
    const double tol[4] = {1e-6, 1e-6, 1e-6, 1e-6};
    expect_near(resize_out(&c), cases[i].want, tol, 4);
    lg_kernel_runner_release(&c.r);
  }
  /* 2x2 [[0,1],[2,3]] to 3x3 (scale 2/3): the centre is the blend at
   * (2/3, 2/3): 0*(1/3)(1/3) + 2*(2/3)(1/3) + 1*(1/3)(2/3) + 3*(2/3)(2/3)
   * = (4 + 2 + 12) / 9 = 2. */
  resize_case c;
  resize_setup(&c, true, (int[]){1, 2, 2, 1}, (float[]){0, 1, 2, 3}, 3, 3,
               false, false, false);
  run_ok(&c.r, "RESIZE_BILINEAR");
  assert_true(fabsf(resize_out(&c)[4] - 2.0f) < 1e-6f);
  lg_kernel_runner_release(&c.r);
}

static void test_nearest_hand(void** state) {
  (void)state;
  /* Up: [10, 20] to width 5. default scale 0.4: floor(0, .4, .8, 1.2,
   * 1.6) = 0,0,0,1,1. align: scale 1/4, round(0, .25, .5, .75, 1) =
   * 0,0,1,1,1 (half away from zero). half_pixel: floor((v+.5)*.4) =
   * floor(.2, .6, 1, 1.4, 1.8) = 0,0,1,1,1. Both: round((v+.5)/4) =
   * round(.125 .. 1.125) = 0,0,1,1,1.
   * Down: 0..4 to width 2. default scale 2.5: 0, 2; half: floor(1.25,
   * 3.75) = 1, 3; align: scale 4: 0, 4; both: round(2, 6) cut to 4: 2, 4. */
  const struct {
    bool align, half;
    float up[5], down[2];
  } cases[] = {
      {false, false, {10, 10, 10, 20, 20}, {0, 2}},
      {true, false, {10, 10, 20, 20, 20}, {0, 4}},
      {false, true, {10, 10, 20, 20, 20}, {1, 3}},
      {true, true, {10, 10, 20, 20, 20}, {2, 4}},
  };
  for (int i = 0; i < ARRAY_SIZE(cases); ++i) {
    resize_case c;
    resize_setup(&c, false, (int[]){1, 1, 2, 1}, (float[]){10, 20}, 1, 5,
                 cases[i].align, cases[i].half, i % 2 == 1);
    run_ok(&c.r, "RESIZE_NEAREST_NEIGHBOR");
    expect_shape(tensor_at(&c.r, c.out), (int[]){1, 1, 5, 1}, 4);
    expect_floats(resize_out(&c), cases[i].up, 5);
    lg_kernel_runner_release(&c.r);
    resize_setup(&c, false, (int[]){1, 5, 1, 1}, (float[]){0, 1, 2, 3, 4}, 2, 1,
                 cases[i].align, cases[i].half, false);
    run_ok(&c.r, "RESIZE_NEAREST_NEIGHBOR");
    expect_floats(resize_out(&c), cases[i].down, 2);
    lg_kernel_runner_release(&c.r);
  }
}

static void test_nearest_int32(void** state) {
  (void)state;
  /* Nearest copies int32 elements unchanged: [[a, b]] to 1x3 picks
   * floor(0, 2/3, 4/3) = 0, 0, 1. Two channels each. */
  const int32_t x[] = {INT32_MIN, 7, INT32_MAX, -1};
  const int32_t want[] = {INT32_MIN, 7, INT32_MIN, 7, INT32_MAX, -1};
  TfLiteResizeNearestNeighborParams p = {false, false};
  lg_kernel_runner r;
  lg_kernel_runner_init(&r, lg_register_RESIZE_NEAREST_NEIGHBOR(), &p);
  const int in = add_tensor(&r, kTfLiteInt32, (int[]){1, 1, 2, 2}, 4, x);
  const int sz = add_tensor(&r, kTfLiteInt32, (int[]){2}, 1, (int32_t[]){1, 3});
  const int out = add_output(&r, kTfLiteInt32);
  set_io(&r, (int[]){in, sz}, 2, out);
  run_ok(&r, "RESIZE_NEAREST_NEIGHBOR");
  expect_shape(tensor_at(&r, out), (int[]){1, 1, 3, 2}, 4);
  expect_ints32(tensor_at(&r, out)->data.i32, want, 6);
  lg_kernel_runner_release(&r);
  /* Bilinear has no int32 kernel. */
  TfLiteResizeBilinearParams bp = {false, false};
  lg_kernel_runner_init(&r, lg_register_RESIZE_BILINEAR(), &bp);
  const int in2 = add_tensor(&r, kTfLiteInt32, (int[]){1, 1, 2, 2}, 4, x);
  const int sz2 =
      add_tensor(&r, kTfLiteInt32, (int[]){2}, 1, (int32_t[]){1, 3});
  set_io(&r, (int[]){in2, sz2}, 2, add_output(&r, kTfLiteInt32));
  expect_run_error(&r,
                   "RESIZE_BILINEAR: input type INT32 is not supported "
                   "(expected FLOAT32, UINT8, INT8 or INT16)");
}

static void check_resize_random(bool bilinear, const int* d, int oh, int ow,
                                bool align, bool half, int threads,
                                uint32_t seed) {
  const int n_in = count_of(d, 4), n_out = d[0] * oh * ow * d[3];
  float* x = malloc(sizeof(float) * (size_t)(n_in + 1));
  double* want = malloc(sizeof(double) * (size_t)(n_out + 1));
  double* tol = malloc(sizeof(double) * (size_t)(n_out + 1));
  assert_true(x != NULL && want != NULL && tol != NULL);
  rng_fill(&seed, x, n_in, -10.0f, 10.0f);
  ref_resize(bilinear, d, x, oh, ow, align, half, want, tol);
  resize_case c;
  resize_setup(&c, bilinear, d, x, oh, ow, align, half, seed % 2 == 0);
  if (threads > 1) {
    assert_int_equal(lg_kernel_runner_set_threads(&c.r, threads), kTfLiteOk);
  }
  run_ok(&c.r, bilinear ? "RESIZE_BILINEAR" : "RESIZE_NEAREST_NEIGHBOR");
  expect_shape(tensor_at(&c.r, c.out), (int[]){d[0], oh, ow, d[3]}, 4);
  expect_near(resize_out(&c), want, tol, n_out);
  lg_kernel_runner_release(&c.r);
  free(x);
  free(want);
  free(tol);
}

static void test_resize_random(void** state) {
  (void)state;
  static const struct {
    int d[4], oh, ow;
  } cases[] = {
      {{1, 3, 5, 1}, 7, 17}, {{2, 8, 8, 3}, 3, 5}, {{1, 1, 1, 5}, 4, 4},
      {{3, 5, 7, 67}, 5, 7}, {{1, 4, 6, 2}, 1, 1}, {{2, 17, 3, 1}, 33, 2},
      {{1, 2, 2, 7}, 0, 3},  {{0, 2, 2, 1}, 3, 3},
  };
  uint32_t seed = 31337;
  for (int i = 0; i < ARRAY_SIZE(cases); ++i) {
    for (int f = 0; f < 4; ++f) {
      const bool align = f & 1, half = (f & 2) != 0;
      /* Bilinear refuses both flags and an empty size. */
      if (!(align && half) && cases[i].oh > 0 && cases[i].ow > 0) {
        check_resize_random(true, cases[i].d, cases[i].oh, cases[i].ow, align,
                            half, 1, seed++);
      }
      check_resize_random(false, cases[i].d, cases[i].oh, cases[i].ow, align,
                          half, 1, seed++);
    }
  }
}

static void test_resize_threads(void** state) {
  (void)state;
  check_resize_random(true, (int[]){2, 31, 17, 9}, 63, 40, false, true, 2, 5);
  check_resize_random(false, (int[]){3, 20, 20, 8}, 41, 39, true, false, 3, 6);
}

static void test_resize_dynamic_size(void** state) {
  (void)state;
  /* A runtime size: the output is dynamic and follows each Invoke's size. */
  resize_case c;
  resize_setup(&c, false, (int[]){1, 1, 2, 1}, (float[]){1, 2}, 1, 4, false,
               false, true);
  run_ok(&c.r, "RESIZE_NEAREST_NEIGHBOR");
  assert_int_equal(tensor_at(&c.r, c.out)->allocation_type, kTfLiteDynamic);
  expect_floats(resize_out(&c), (float[]){1, 1, 2, 2}, 4);
  c.size[1] = 1;
  assert_int_equal(lg_kernel_runner_invoke(&c.r), kTfLiteOk);
  expect_shape(tensor_at(&c.r, c.out), (int[]){1, 1, 1, 1}, 4);
  expect_floats(resize_out(&c), (float[]){1}, 1);
  c.size[0] = -1;
  expect_error(&c.r, lg_kernel_runner_invoke(&c.r),
               "RESIZE_NEAREST_NEIGHBOR: size (-1, 1) has a negative "
               "dimension");
  lg_kernel_runner_release(&c.r);
}

static void test_resize_rejections(void** state) {
  (void)state;
  const float x[8] = {0};
  const int d4[] = {1, 2, 2, 2};
  resize_case c;
  resize_setup(&c, true, d4, x, 3, 3, true, true, false);
  expect_run_error(&c.r,
                   "RESIZE_BILINEAR: align_corners and "
                   "half_pixel_centers cannot both be true");
  resize_setup(&c, true, d4, x, -2, 3, false, false, false);
  expect_run_error(&c.r, "RESIZE_BILINEAR: size (-2, 3) has a negative");
  resize_setup(&c, true, d4, x, 2, 0, false, false, true);
  expect_run_error(&c.r, "RESIZE_BILINEAR: size (2, 0) must be positive");
  resize_setup(&c, false, d4, x, 100000, 100000, false, false, false);
  expect_run_error(&c.r,
                   "RESIZE_NEAREST_NEIGHBOR: an output of "
                   "20000000000 elements is too large");
  resize_setup(&c, false, (int[]){1, 0, 2, 1}, x, 2, 2, false, false, false);
  expect_run_error(&c.r, "cannot resize an input of height 0, width 2");
}

static void test_resize_type_and_shape_rejections(void** state) {
  (void)state;
  const float x[8] = {0};
  const int d4[] = {1, 2, 2, 2};
  resize_case c;
  static const struct {
    TfLiteType in_type, size_type, out_type;
    int in_rank, size_dims[2], size_rank;
    const char* message;
  } bad[] = {
      {kTfLiteInt8,
       kTfLiteInt32,
       kTfLiteInt8,
       4,
       {2},
       1,
       "RESIZE_BILINEAR: input tensor '(unnamed)' (INT8) has no "
       "quantization"},
      {kTfLiteFloat32,
       kTfLiteInt32,
       kTfLiteInt32,
       4,
       {2},
       1,
       "output type INT32 differs from input type FLOAT32"},
      {kTfLiteFloat32,
       kTfLiteInt32,
       kTfLiteFloat32,
       3,
       {2},
       1,
       "input must be 4-D (NHWC), got [1,2,2]"},
      {kTfLiteFloat32,
       kTfLiteInt64,
       kTfLiteFloat32,
       4,
       {2},
       1,
       "size type INT64 is not supported (expected INT32)"},
      {kTfLiteFloat32,
       kTfLiteInt32,
       kTfLiteFloat32,
       4,
       {3},
       1,
       "size must have shape [2], got [3]"},
      {kTfLiteFloat32,
       kTfLiteInt32,
       kTfLiteFloat32,
       4,
       {1, 2},
       2,
       "size must have shape [2], got [1,2]"},
  };
  const int64_t sizes[3] = {2, 2, 2};
  for (int i = 0; i < ARRAY_SIZE(bad); ++i) {
    c.bp = (TfLiteResizeBilinearParams){false, false};
    lg_kernel_runner_init(&c.r, lg_register_RESIZE_BILINEAR(), &c.bp);
    const int in = add_tensor(&c.r, bad[i].in_type, d4, bad[i].in_rank, x);
    const int sz = add_tensor(&c.r, bad[i].size_type, bad[i].size_dims,
                              bad[i].size_rank, sizes);
    set_io(&c.r, (int[]){in, sz}, 2, add_output(&c.r, bad[i].out_type));
    expect_run_error(&c.r, bad[i].message);
  }
  lg_kernel_runner_init(&c.r, lg_register_RESIZE_BILINEAR(), NULL);
  const int in = add_tensor(&c.r, kTfLiteFloat32, d4, 4, x);
  set_io(&c.r, &in, 1, add_output(&c.r, kTfLiteFloat32));
  expect_run_error(&c.r, "RESIZE_BILINEAR: expected 2 inputs, got 1");
}

/* ---- SHAPE, FILL, ZEROS_LIKE
 * --------------------------------------------------- */

static void test_shape(void** state) {
  (void)state;
  const float x[24] = {0};
  lg_kernel_runner r;
  TfLiteShapeParams p = {kTfLiteInt32};
  lg_kernel_runner_init(&r, lg_register_SHAPE(), &p);
  int in = add_tensor(&r, kTfLiteFloat32, (int[]){2, 3, 4}, 3, x);
  int out = add_output(&r, kTfLiteInt32);
  set_io(&r, &in, 1, out);
  run_ok(&r, "SHAPE");
  expect_shape(tensor_at(&r, out), (int[]){3}, 1);
  expect_ints32(tensor_at(&r, out)->data.i32, (int32_t[]){2, 3, 4}, 3);
  lg_kernel_runner_release(&r);
  /* INT64, any input type, and a scalar input (an empty shape). */
  p.out_type = kTfLiteInt64;
  lg_kernel_runner_init(&r, lg_register_SHAPE(), &p);
  in = add_tensor(&r, kTfLiteBool, (int[]){0, 7}, 2, x);
  out = add_output(&r, kTfLiteInt64);
  set_io(&r, &in, 1, out);
  run_ok(&r, "SHAPE");
  expect_ints64(tensor_at(&r, out)->data.i64, (int64_t[]){0, 7}, 2);
  lg_kernel_runner_release(&r);
  lg_kernel_runner_init(&r, lg_register_SHAPE(), &p);
  in = add_tensor(&r, kTfLiteFloat32, NULL, 0, x);
  out = add_output(&r, kTfLiteInt64);
  set_io(&r, &in, 1, out);
  run_ok(&r, "SHAPE");
  expect_shape(tensor_at(&r, out), (int[]){0}, 1);
  lg_kernel_runner_release(&r);
  /* Rejections. */
  p.out_type = kTfLiteFloat32;
  lg_kernel_runner_init(&r, lg_register_SHAPE(), &p);
  in = add_tensor(&r, kTfLiteFloat32, (int[]){2}, 1, x);
  set_io(&r, &in, 1, add_output(&r, kTfLiteFloat32));
  expect_run_error(&r,
                   "SHAPE: out_type FLOAT32 is not supported (expected "
                   "INT32 or INT64)");
  p.out_type = kTfLiteInt32;
  lg_kernel_runner_init(&r, lg_register_SHAPE(), &p);
  in = add_tensor(&r, kTfLiteFloat32, (int[]){2}, 1, x);
  set_io(&r, &in, 1, add_output(&r, kTfLiteInt64));
  expect_run_error(&r, "SHAPE: output type INT64 differs from out_type INT32");
  lg_kernel_runner_init(&r, lg_register_SHAPE(), NULL);
  in = add_tensor(&r, kTfLiteFloat32, (int[]){2}, 1, x);
  set_io(&r, &in, 1, add_output(&r, kTfLiteInt32));
  expect_run_error(&r, "SHAPE: missing ShapeOptions parameters");
}

/* FILL with dims of `dims_type` holding dims[0..rank) and a scalar value. */
static int fill_setup(lg_kernel_runner* r, TfLiteType dims_type,
                      const void* dims, int rank, TfLiteType value_type,
                      const void* value, bool dims_runtime) {
  lg_kernel_runner_init(r, lg_register_FILL(), NULL);
  const int d = add_tensor(r, dims_type, &rank, 1, dims);
  if (dims_runtime) make_runtime_input(r, d);
  const int v = add_tensor(r, value_type, NULL, 0, value);
  const int out = add_output(r, value_type);
  set_io(r, (int[]){d, v}, 2, out);
  return out;
}

static void test_fill(void** state) {
  (void)state;
  lg_kernel_runner r;
  const float v = 2.5f;
  for (int runtime = 0; runtime < 2; ++runtime) {
    int out = fill_setup(&r, kTfLiteInt32, (int32_t[]){2, 3}, 2, kTfLiteFloat32,
                         &v, runtime);
    run_ok(&r, "FILL");
    expect_shape(tensor_at(&r, out), (int[]){2, 3}, 2);
    expect_floats(tensor_at(&r, out)->data.f,
                  (float[]){2.5f, 2.5f, 2.5f, 2.5f, 2.5f, 2.5f}, 6);
    lg_kernel_runner_release(&r);
  }
  /* INT64 dims with int32, int64 and bool values; no dims is a scalar, a
   * zero dim an empty output. */
  const int32_t i32 = -7;
  const int64_t i64 = INT64_MIN;
  const bool t = true;
  int out = fill_setup(&r, kTfLiteInt64, (int64_t[]){3}, 1, kTfLiteInt32, &i32,
                       false);
  run_ok(&r, "FILL");
  expect_ints32(tensor_at(&r, out)->data.i32, (int32_t[]){-7, -7, -7}, 3);
  lg_kernel_runner_release(&r);
  out = fill_setup(&r, kTfLiteInt32, NULL, 0, kTfLiteInt64, &i64, true);
  run_ok(&r, "FILL");
  expect_shape(tensor_at(&r, out), NULL, 0);
  expect_ints64(tensor_at(&r, out)->data.i64, &i64, 1);
  lg_kernel_runner_release(&r);
  out = fill_setup(&r, kTfLiteInt32, (int32_t[]){2, 1}, 2, kTfLiteBool, &t,
                   false);
  run_ok(&r, "FILL");
  assert_true(tensor_at(&r, out)->data.b[0] && tensor_at(&r, out)->data.b[1]);
  lg_kernel_runner_release(&r);
  out = fill_setup(&r, kTfLiteInt32, (int32_t[]){4, 0}, 2, kTfLiteFloat32, &v,
                   true);
  run_ok(&r, "FILL");
  expect_shape(tensor_at(&r, out), (int[]){4, 0}, 2);
  lg_kernel_runner_release(&r);
}

static void test_fill_rejections(void** state) {
  (void)state;
  lg_kernel_runner r;
  const float v = 1.0f;
  const int8_t v8 = 1;
  fill_setup(&r, kTfLiteInt32, (int32_t[]){2, -3}, 2, kTfLiteFloat32, &v,
             false);
  expect_run_error(&r, "FILL: dimension 1 is negative (-3)");
  fill_setup(&r, kTfLiteInt64, (int64_t[]){(int64_t)1 << 40}, 1, kTfLiteFloat32,
             &v, true);
  expect_run_error(&r, "FILL: dimension 0 is too large (1099511627776)");
  fill_setup(&r, kTfLiteInt32, (int32_t[]){65536, 65536}, 2, kTfLiteFloat32, &v,
             false);
  expect_run_error(&r, "FILL: the output would have more than 2147483647");
  fill_setup(&r, kTfLiteInt32, (int32_t[]){2}, 1, kTfLiteInt8, &v8, false);
  expect_run_error(&r,
                   "FILL: value type INT8 is not supported (expected "
                   "FLOAT32, INT32, INT64, BOOL or STRING)");
  fill_setup(&r, kTfLiteFloat32, (float[]){2}, 1, kTfLiteFloat32, &v, false);
  expect_run_error(&r, "FILL: dims type FLOAT32 is not supported");
  /* Shapes: dims 2-D, value not a scalar; output type. */
  lg_kernel_runner_init(&r, lg_register_FILL(), NULL);
  int d = add_tensor(&r, kTfLiteInt32, (int[]){1, 2}, 2, (int32_t[]){1, 2});
  int val = add_tensor(&r, kTfLiteFloat32, NULL, 0, &v);
  set_io(&r, (int[]){d, val}, 2, add_output(&r, kTfLiteFloat32));
  expect_run_error(&r, "FILL: dims must be 1-D, got shape [1,2]");
  lg_kernel_runner_init(&r, lg_register_FILL(), NULL);
  d = add_tensor(&r, kTfLiteInt32, (int[]){1}, 1, (int32_t[]){1});
  val = add_tensor(&r, kTfLiteFloat32, (int[]){1}, 1, &v);
  set_io(&r, (int[]){d, val}, 2, add_output(&r, kTfLiteFloat32));
  expect_run_error(&r, "FILL: value must be a scalar, got shape [1]");
  lg_kernel_runner_init(&r, lg_register_FILL(), NULL);
  d = add_tensor(&r, kTfLiteInt32, (int[]){1}, 1, (int32_t[]){1});
  val = add_tensor(&r, kTfLiteFloat32, NULL, 0, &v);
  set_io(&r, (int[]){d, val}, 2, add_output(&r, kTfLiteInt32));
  expect_run_error(&r,
                   "FILL: output type INT32 differs from value type "
                   "FLOAT32");
}

static void test_zeros_like(void** state) {
  (void)state;
  /* The runner fills outputs with 0xA5 bytes first, so every zero was
   * written. */
  const int64_t x[6] = {1, 2, 3, 4, 5, 6};
  const TfLiteType types[] = {kTfLiteFloat32, kTfLiteInt32, kTfLiteInt64};
  for (int i = 0; i < ARRAY_SIZE(types); ++i) {
    lg_kernel_runner r;
    lg_kernel_runner_init(&r, lg_register_ZEROS_LIKE(), NULL);
    const int in = add_tensor(&r, types[i], (int[]){2, 3}, 2, x);
    const int out = add_output(&r, types[i]);
    set_io(&r, &in, 1, out);
    run_ok(&r, "ZEROS_LIKE");
    expect_shape(tensor_at(&r, out), (int[]){2, 3}, 2);
    const unsigned char* bytes =
        (const unsigned char*)tensor_at(&r, out)->data.raw;
    for (size_t b = 0; b < tensor_at(&r, out)->bytes; ++b) {
      if (bytes[b] != 0) fail_msg("type %d: byte %zu is not 0", i, b);
    }
    lg_kernel_runner_release(&r);
  }
  lg_kernel_runner r;
  lg_kernel_runner_init(&r, lg_register_ZEROS_LIKE(), NULL);
  int in = add_tensor(&r, kTfLiteFloat32, (int[]){3, 0}, 2, x);
  int out = add_output(&r, kTfLiteFloat32);
  set_io(&r, &in, 1, out);
  run_ok(&r, "ZEROS_LIKE");
  expect_shape(tensor_at(&r, out), (int[]){3, 0}, 2);
  lg_kernel_runner_release(&r);
  lg_kernel_runner_init(&r, lg_register_ZEROS_LIKE(), NULL);
  in = add_tensor(&r, kTfLiteInt8, (int[]){2}, 1, x);
  set_io(&r, &in, 1, add_output(&r, kTfLiteInt8));
  expect_run_error(&r, "ZEROS_LIKE: input type INT8 is not supported");
  lg_kernel_runner_init(&r, lg_register_ZEROS_LIKE(), NULL);
  in = add_tensor(&r, kTfLiteInt32, (int[]){2}, 1, x);
  set_io(&r, &in, 1, add_output(&r, kTfLiteInt64));
  expect_run_error(&r,
                   "ZEROS_LIKE: output type INT64 differs from input "
                   "type INT32");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bilinear_hand),
      cmocka_unit_test(test_nearest_hand),
      cmocka_unit_test(test_nearest_int32),
      cmocka_unit_test(test_resize_random),
      cmocka_unit_test(test_resize_threads),
      cmocka_unit_test(test_resize_dynamic_size),
      cmocka_unit_test(test_resize_rejections),
      cmocka_unit_test(test_resize_type_and_shape_rejections),
      cmocka_unit_test(test_shape),
      cmocka_unit_test(test_fill),
      cmocka_unit_test(test_fill_rejections),
      cmocka_unit_test(test_zeros_like),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
