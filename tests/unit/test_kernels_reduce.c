/* AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D and the reductions (MEAN, SUM,
 * REDUCE_PROD, REDUCE_MAX, REDUCE_MIN) through the kernel runner:
 * hand-derived values, TFLite's padding and NaN/Inf rules, empty tensors,
 * every parameter and rejection, dynamic axes, threads, and seeded random
 * cases against double-precision reference loops. The runner checks guard
 * bytes after every output. */
#include <float.h>

#include "reduce_test_util.h"
#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

/* ---- Pooling: set-up and reference ----------------------------------------
 */

typedef enum { POOL_AVG, POOL_MAX, POOL_L2 } pool_kind;

static const TfLiteRegistration* pool_registration(pool_kind kind) {
  return kind == POOL_AVG   ? lg_register_AVERAGE_POOL_2D()
         : kind == POOL_MAX ? lg_register_MAX_POOL_2D()
                            : lg_register_L2_POOL_2D();
}

typedef struct pool_case {
  lg_kernel_runner r;
  TfLitePoolParams p;
  int out;
} pool_case;

/* Strides and filter sizes are (w, h) pairs, as the schema orders them. */
static void pool_setup(pool_case* c, pool_kind kind, const int* dims,
                       const float* x, TfLitePadding padding, int sw, int sh,
                       int fw, int fh, TfLiteFusedActivation act) {
  memset(&c->p, 0, sizeof(c->p));
  c->p.padding = padding;
  c->p.stride_width = sw;
  c->p.stride_height = sh;
  c->p.filter_width = fw;
  c->p.filter_height = fh;
  c->p.activation = act;
  lg_kernel_runner_init(&c->r, pool_registration(kind), &c->p);
  const int in = add_tensor(&c->r, kTfLiteFloat32, dims, 4, x);
  c->out = add_output(&c->r, kTfLiteFloat32);
  set_io(&c->r, &in, 1, c->out);
}

static const float* pool_out(pool_case* c) {
  return tensor_at(&c->r, c->out)->data.f;
}

/* The reference in double: TFLite's output size and padding, windows cut
 * at the edges, MAX from -FLT_MAX skipping NaN. tol[i] bounds the float
 * kernel's rounding (sums of `count` terms). Returns the output count. */
static int ref_pool(pool_kind kind, const int* d, const float* x,
                    const TfLitePoolParams* p, double lo, double hi, int* od,
                    double* out, double* tol) {
  int out_hw[2];
  const int in_hw[2] = {d[1], d[2]}, f[2] = {p->filter_height, p->filter_width};
  const int s[2] = {p->stride_height, p->stride_width};
  int pad[2];
  for (int k = 0; k < 2; ++k) {
    out_hw[k] = p->padding == kTfLitePaddingSame
                    ? (in_hw[k] + s[k] - 1) / s[k]
                    : (in_hw[k] - f[k] + s[k]) / s[k];
    const int total = (out_hw[k] - 1) * s[k] + f[k] - in_hw[k];
    pad[k] = total > 0 ? total / 2 : 0;
  }
  od[0] = d[0], od[1] = out_hw[0], od[2] = out_hw[1], od[3] = d[3];
  int n = 0;
  for (int b = 0; b < d[0]; ++b)
    for (int oy = 0; oy < out_hw[0]; ++oy)
      for (int ox = 0; ox < out_hw[1]; ++ox)
        for (int c = 0; c < d[3]; ++c, ++n) {
          double acc = kind == POOL_MAX ? -FLT_MAX : 0.0, mag = 0.0;
          /* Float sums of `count` terms: relative error (count + 2) eps of
           * the magnitude; the division and sqrt add an ulp or two. */
          int count = 0;
          for (int fy = 0; fy < f[0]; ++fy)
            for (int fx = 0; fx < f[1]; ++fx) {
              const int y = oy * s[0] - pad[0] + fy;
              const int xx = ox * s[1] - pad[1] + fx;
              if (y < 0 || y >= d[1] || xx < 0 || xx >= d[2]) continue;
              const double v = x[((b * d[1] + y) * d[2] + xx) * d[3] + c];
              ++count;
              mag += fabs(v);
              if (kind == POOL_MAX) {
                if (v > acc) acc = v;
              } else {
                acc += kind == POOL_L2 ? v * v : v;
              }
            }
          double r = acc;
          if (kind == POOL_AVG) r = acc / count;
          if (kind == POOL_L2) r = sqrt(acc / count);
          out[n] = r < lo ? lo : (r > hi ? hi : r);
          tol[n] = kind == POOL_MAX ? 0.0
                   : kind == POOL_AVG
                       ? (count + 4) * FLT_EPSILON * (mag / count)
                       : (count + 4) * FLT_EPSILON * r; /* no cancellation */
        }
  return n;
}

static void activation_range(TfLiteFusedActivation act, double* lo,
                             double* hi) {
  *lo = -INFINITY, *hi = INFINITY;
  if (act == kTfLiteActRelu) *lo = 0;
  if (act == kTfLiteActRelu6) *lo = 0, *hi = 6;
  if (act == kTfLiteActReluN1To1) *lo = -1, *hi = 1;
}

/* Runs a seeded random case and compares with ref_pool. */
static void check_pool_random(pool_kind kind, const int* dims,
                              TfLitePadding padding, int sw, int sh, int fw,
                              int fh, TfLiteFusedActivation act, int threads,
                              uint32_t seed) {
  const int n_in = count_of(dims, 4);
  float* x = malloc(sizeof(float) * (size_t)(n_in > 0 ? n_in : 1));
  double* want = malloc(sizeof(double) * (size_t)(n_in > 0 ? n_in : 1));
  double* tol = malloc(sizeof(double) * (size_t)(n_in > 0 ? n_in : 1));
  assert_true(x != NULL && want != NULL && tol != NULL);
  rng_fill(&seed, x, n_in, -8.0f, 8.0f);
  pool_case c;
  pool_setup(&c, kind, dims, x, padding, sw, sh, fw, fh, act);
  if (threads > 1) {
    assert_int_equal(lg_kernel_runner_set_threads(&c.r, threads), kTfLiteOk);
  }
  double lo, hi;
  activation_range(act, &lo, &hi);
  int od[4];
  const int n = ref_pool(kind, dims, x, &c.p, lo, hi, od, want, tol);
  run_ok(&c.r, "pool");
  expect_shape(tensor_at(&c.r, c.out), od, 4);
  expect_near(pool_out(&c), want, tol, n);
  lg_kernel_runner_release(&c.r);
  free(x);
  free(want);
  free(tol);
}

/* ---- Pooling: tests --------------------------------------------------------
 */

static void test_avg_pool_valid(void** state) {
  (void)state;
  /* x = 0..8 as a 3x3 image; 2x2 windows at stride 1:
   * (0+1+3+4)/4 = 2, (1+2+4+5)/4 = 3, (3+4+6+7)/4 = 5, (4+5+7+8)/4 = 6. */
  const float x[] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  const float want[] = {2, 3, 5, 6};
  pool_case c;
  pool_setup(&c, POOL_AVG, (int[]){1, 3, 3, 1}, x, kTfLitePaddingValid, 1, 1, 2,
             2, kTfLiteActNone);
  run_ok(&c.r, "AVERAGE_POOL_2D");
  expect_shape(tensor_at(&c.r, c.out), (int[]){1, 2, 2, 1}, 4);
  expect_floats(pool_out(&c), want, 4);
  lg_kernel_runner_release(&c.r);
}

static void test_avg_pool_same_counts_valid_elements(void** state) {
  (void)state;
  /* 3x3 at stride 2 with 2x2 windows, SAME: out 2x2, total padding
   * (2-1)*2+2-3 = 1, all after. Windows: {0,1,3,4} -> 2, {2,5} -> 3.5,
   * {6,7} -> 6.5, {8} -> 8: the divisor is the number of valid elements. */
  const float x[] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  const float want[] = {2, 3.5f, 6.5f, 8};
  pool_case c;
  pool_setup(&c, POOL_AVG, (int[]){1, 3, 3, 1}, x, kTfLitePaddingSame, 2, 2, 2,
             2, kTfLiteActNone);
  run_ok(&c.r, "AVERAGE_POOL_2D");
  expect_shape(tensor_at(&c.r, c.out), (int[]){1, 2, 2, 1}, 4);
  expect_floats(pool_out(&c), want, 4);
  lg_kernel_runner_release(&c.r);
}

static void test_pool_same_padding_split(void** state) {
  (void)state;
  /* A 1x4 row, 1x3 window, stride 1, SAME: out 4, total padding 2 -> 1
   * before and 1 after. Max: {x0,x1}, {x0..x2}, {x1..x3}, {x2,x3}. With
   * x = 5,1,2,7: 5, 5, 7, 7. A 1x2 window at stride 1: total 1 -> 0
   * before, 1 after: {5,1}, {1,2}, {2,7}, {7}: 5, 2, 7, 7. */
  const float x[] = {5, 1, 2, 7};
  pool_case c;
  pool_setup(&c, POOL_MAX, (int[]){1, 1, 4, 1}, x, kTfLitePaddingSame, 1, 1, 3,
             1, kTfLiteActNone);
  run_ok(&c.r, "MAX_POOL_2D");
  expect_floats(pool_out(&c), (float[]){5, 5, 7, 7}, 4);
  lg_kernel_runner_release(&c.r);
  pool_setup(&c, POOL_MAX, (int[]){1, 1, 4, 1}, x, kTfLitePaddingSame, 1, 1, 2,
             1, kTfLiteActNone);
  run_ok(&c.r, "MAX_POOL_2D");
  expect_floats(pool_out(&c), (float[]){5, 2, 7, 7}, 4);
  lg_kernel_runner_release(&c.r);
}

static void test_max_pool_nan_and_inf(void** state) {
  (void)state;
  /* As LiteRT's reference kernel: NaN never wins, and a window of -inf
   * only gives -FLT_MAX (the start value). 3x3, 2x2 windows, stride 2,
   * SAME: {nan,1,nan,nan} -> 1, {-inf,-inf} -> -FLT_MAX, {1,2} -> 2,
   * {3} -> 3. */
  const float x[] = {NAN, 1, -INFINITY, NAN, NAN, -INFINITY, 1, 2, 3};
  const float want[] = {1, -FLT_MAX, 2, 3};
  pool_case c;
  pool_setup(&c, POOL_MAX, (int[]){1, 3, 3, 1}, x, kTfLitePaddingSame, 2, 2, 2,
             2, kTfLiteActNone);
  run_ok(&c.r, "MAX_POOL_2D");
  expect_floats(pool_out(&c), want, 4);
  lg_kernel_runner_release(&c.r);
  /* Average and L2 propagate NaN; an infinite result is clamped to
   * TFLite's finite activation range, FLT_MAX even with NONE (LiteRT does
   * the same). 2x1 windows over columns {nan, 2} and {1, inf}. */
  const float y[] = {NAN, 1, 2, INFINITY};
  pool_setup(&c, POOL_AVG, (int[]){1, 2, 2, 1}, y, kTfLitePaddingValid, 1, 1, 1,
             2, kTfLiteActNone);
  run_ok(&c.r, "AVERAGE_POOL_2D");
  expect_floats(pool_out(&c), (float[]){NAN, FLT_MAX}, 2);
  lg_kernel_runner_release(&c.r);
  pool_setup(&c, POOL_L2, (int[]){1, 2, 2, 1}, y, kTfLitePaddingValid, 1, 1, 1,
             2, kTfLiteActRelu);
  run_ok(&c.r, "L2_POOL_2D");
  expect_floats(pool_out(&c), (float[]){NAN, FLT_MAX}, 2);
  lg_kernel_runner_release(&c.r);
  /* MAX of {-inf, -inf} and {+inf}: -FLT_MAX and FLT_MAX. */
  const float z[] = {-INFINITY, -INFINITY, INFINITY};
  pool_setup(&c, POOL_MAX, (int[]){1, 1, 3, 1}, z, kTfLitePaddingSame, 2, 1, 2,
             1, kTfLiteActNone);
  run_ok(&c.r, "MAX_POOL_2D");
  expect_floats(pool_out(&c), (float[]){-FLT_MAX, FLT_MAX}, 2);
  lg_kernel_runner_release(&c.r);
}

static void test_l2_pool_values(void** state) {
  (void)state;
  /* 1x2 windows at stride 2, SAME, on a 1x3 row: out 2, total padding
   * (2-1)*2+2-3 = 1, after. {3,4} -> sqrt((9+16)/2) = sqrt(12.5) and
   * {-2} -> sqrt(4/1) = 2. */
  const float x[] = {3, 4, -2};
  pool_case c;
  pool_setup(&c, POOL_L2, (int[]){1, 1, 3, 1}, x, kTfLitePaddingSame, 2, 1, 2,
             1, kTfLiteActNone);
  run_ok(&c.r, "L2_POOL_2D");
  expect_floats(pool_out(&c), (float[]){sqrtf(12.5f), 2}, 2);
  lg_kernel_runner_release(&c.r);
}

static void test_pool_activations(void** state) {
  (void)state;
  /* Average of 1x2 windows over -8,-4 | 2,3 | 10,12 -> -6, 2.5, 11, then
   * each clamp. */
  const float x[] = {-8, -4, 2, 3, 10, 12};
  const struct {
    TfLiteFusedActivation act;
    float want[3];
  } cases[] = {
      {kTfLiteActNone, {-6, 2.5f, 11}},
      {kTfLiteActRelu, {0, 2.5f, 11}},
      {kTfLiteActRelu6, {0, 2.5f, 6}},
      {kTfLiteActReluN1To1, {-1, 1, 1}},
  };
  for (int i = 0; i < ARRAY_SIZE(cases); ++i) {
    pool_case c;
    pool_setup(&c, POOL_AVG, (int[]){1, 1, 6, 1}, x, kTfLitePaddingValid, 2, 1,
               2, 1, cases[i].act);
    run_ok(&c.r, "AVERAGE_POOL_2D");
    expect_floats(pool_out(&c), cases[i].want, 3);
    lg_kernel_runner_release(&c.r);
  }
}

static void test_pool_random(void** state) {
  (void)state;
  static const struct {
    int dims[4];
    TfLitePadding padding;
    int sw, sh, fw, fh;
  } cases[] = {
      {{1, 5, 5, 1}, kTfLitePaddingSame, 1, 1, 3, 3},
      {{2, 7, 6, 3}, kTfLitePaddingValid, 1, 2, 3, 2},
      {{1, 17, 13, 67}, kTfLitePaddingSame, 2, 2, 3, 3}, /* > 64 channels */
      {{3, 1, 1, 5}, kTfLitePaddingValid, 1, 1, 1, 1},
      {{1, 4, 4, 2}, kTfLitePaddingSame, 3, 3, 5, 5}, /* filter > input */
      {{2, 9, 9, 7}, kTfLitePaddingSame, 2, 3, 2, 4},
      {{1, 8, 3, 129}, kTfLitePaddingValid, 1, 3, 1, 3},
      {{2, 0, 4, 3}, kTfLitePaddingSame, 1, 1, 2, 2}, /* empty */
  };
  const TfLiteFusedActivation acts[] = {kTfLiteActNone, kTfLiteActRelu,
                                        kTfLiteActRelu6, kTfLiteActReluN1To1};
  uint32_t seed = 1234;
  for (int i = 0; i < ARRAY_SIZE(cases); ++i) {
    for (int k = 0; k < 3; ++k) {
      check_pool_random((pool_kind)k, cases[i].dims, cases[i].padding,
                        cases[i].sw, cases[i].sh, cases[i].fw, cases[i].fh,
                        acts[(i + k) % 4], 1, seed++);
    }
  }
}

static void test_pool_threads(void** state) {
  (void)state;
  /* 4*32*32*16 outputs x 9 reads: well above the parallel threshold; odd
   * row counts so the shares differ. */
  for (int k = 0; k < 3; ++k) {
    check_pool_random((pool_kind)k, (int[]){3, 31, 32, 16}, kTfLitePaddingSame,
                      1, 1, 3, 3, kTfLiteActNone, 2, 77 + (uint32_t)k);
    check_pool_random((pool_kind)k, (int[]){1, 5, 64, 40}, kTfLitePaddingValid,
                      2, 1, 2, 3, kTfLiteActRelu, 3, 99 + (uint32_t)k);
  }
}

static void test_pool_empty_outputs(void** state) {
  (void)state;
  /* VALID: (2 - 3 + 2) / 2 = 0 rows: an empty output, as in TFLite. */
  const float x[] = {1, 2, 3, 4};
  pool_case c;
  pool_setup(&c, POOL_AVG, (int[]){1, 2, 2, 1}, x, kTfLitePaddingValid, 2, 2, 3,
             3, kTfLiteActNone);
  run_ok(&c.r, "AVERAGE_POOL_2D");
  expect_shape(tensor_at(&c.r, c.out), (int[]){1, 0, 0, 1}, 4);
  lg_kernel_runner_release(&c.r);
  /* Batch 0. */
  pool_setup(&c, POOL_MAX, (int[]){0, 2, 2, 1}, x, kTfLitePaddingSame, 1, 1, 2,
             2, kTfLiteActNone);
  run_ok(&c.r, "MAX_POOL_2D");
  expect_shape(tensor_at(&c.r, c.out), (int[]){0, 2, 2, 1}, 4);
  lg_kernel_runner_release(&c.r);
}

static void test_pool_rejections(void** state) {
  (void)state;
  const float x[16] = {0};
  const int d4[] = {1, 2, 2, 4};
  pool_case c;
  /* Strides, filters, padding, activation. */
  pool_setup(&c, POOL_AVG, d4, x, kTfLitePaddingSame, 0, 1, 1, 1,
             kTfLiteActNone);
  expect_run_error(&c.r, "AVERAGE_POOL_2D: stride_w 0 and stride_h 1 must");
  pool_setup(&c, POOL_MAX, d4, x, kTfLitePaddingSame, 1, 1, 2, -1,
             kTfLiteActNone);
  expect_run_error(&c.r, "MAX_POOL_2D: filter_width 2 and filter_height -1");
  pool_setup(&c, POOL_L2, d4, x, kTfLitePaddingUnknown, 1, 1, 1, 1,
             kTfLiteActNone);
  expect_run_error(&c.r, "L2_POOL_2D: padding 0 is not SAME or VALID");
  pool_setup(&c, POOL_AVG, d4, x, kTfLitePaddingSame, 1, 1, 1, 1,
             kTfLiteActTanh);
  expect_run_error(&c.r, "AVERAGE_POOL_2D: fused activation TANH");
  /* VALID with a window larger than the input by more than a stride:
   * (2 - 5 + 1) / 1 = -2. */
  pool_setup(&c, POOL_MAX, d4, x, kTfLitePaddingValid, 1, 1, 5, 5,
             kTfLiteActNone);
  expect_run_error(&c.r, "MAX_POOL_2D: VALID padding with a 5x5 (h x w)");
  /* No params. */
  lg_kernel_runner_init(&c.r, lg_register_MAX_POOL_2D(), NULL);
  int in = add_tensor(&c.r, kTfLiteFloat32, d4, 4, x);
  set_io(&c.r, &in, 1, add_output(&c.r, kTfLiteFloat32));
  expect_run_error(&c.r, "MAX_POOL_2D: missing Pool2DOptions parameters");
  /* Types, rank and node arity. */
  c.p = (TfLitePoolParams){.padding = kTfLitePaddingSame,
                           .stride_width = 1,
                           .stride_height = 1,
                           .filter_width = 1,
                           .filter_height = 1};
  lg_kernel_runner_init(&c.r, lg_register_AVERAGE_POOL_2D(), &c.p);
  in = add_tensor(&c.r, kTfLiteInt32, d4, 4, x);
  set_io(&c.r, &in, 1, add_output(&c.r, kTfLiteInt32));
  expect_run_error(&c.r,
                   "AVERAGE_POOL_2D: input type INT32 is not supported "
                   "(expected FLOAT32, INT8, UINT8 or INT16)");
  /* INT8 needs quantization parameters (this tensor has none). */
  lg_kernel_runner_init(&c.r, lg_register_AVERAGE_POOL_2D(), &c.p);
  in = add_tensor(&c.r, kTfLiteInt8, d4, 4, x);
  set_io(&c.r, &in, 1, add_output(&c.r, kTfLiteInt8));
  expect_run_error(&c.r, "AVERAGE_POOL_2D: input tensor");
  lg_kernel_runner_init(&c.r, lg_register_AVERAGE_POOL_2D(), &c.p);
  in = add_tensor(&c.r, kTfLiteFloat32, d4, 4, x);
  set_io(&c.r, &in, 1, add_output(&c.r, kTfLiteInt32));
  expect_run_error(&c.r, "output type INT32 differs from input type FLOAT32");
  lg_kernel_runner_init(&c.r, lg_register_L2_POOL_2D(), &c.p);
  in = add_tensor(&c.r, kTfLiteFloat32, (int[]){2, 2, 4}, 3, x);
  set_io(&c.r, &in, 1, add_output(&c.r, kTfLiteFloat32));
  expect_run_error(&c.r, "L2_POOL_2D: input must be 4-D (NHWC), got [2,2,4]");
  lg_kernel_runner_init(&c.r, lg_register_L2_POOL_2D(), &c.p);
  in = add_tensor(&c.r, kTfLiteFloat32, d4, 4, x);
  set_io(&c.r, (int[]){in, in}, 2, add_output(&c.r, kTfLiteFloat32));
  expect_run_error(&c.r, "L2_POOL_2D: expected 1 inputs, got 2");
}

/* ---- Reductions: set-up and reference ---------------------------------------
 */

typedef enum { R_SUM, R_MEAN, R_PROD, R_MAX, R_MIN } red_op;

static const TfLiteRegistration* red_registration(red_op op) {
  switch (op) {
    case R_SUM:
      return lg_register_SUM();
    case R_MEAN:
      return lg_register_MEAN();
    case R_PROD:
      return lg_register_REDUCE_PROD();
    case R_MAX:
      return lg_register_REDUCE_MAX();
    default:
      return lg_register_REDUCE_MIN();
  }
}

typedef struct red_case {
  lg_kernel_runner r;
  TfLiteReducerParams p;
  int out, axis;
} red_case;

/* out = op(x, axes) with keep_dims; the axes tensor is [num_axes] and a
 * runtime input when axes_runtime. */
static void red_setup(red_case* c, red_op op, TfLiteType type, const int* dims,
                      int rank, const void* x, const int32_t* axes,
                      int num_axes, bool keep, bool axes_runtime) {
  c->p.keep_dims = keep;
  lg_kernel_runner_init(&c->r, red_registration(op), &c->p);
  const int in = add_tensor(&c->r, type, dims, rank, x);
  c->axis = add_tensor(&c->r, kTfLiteInt32, &num_axes, 1, axes);
  if (axes_runtime) make_runtime_input(&c->r, c->axis);
  c->out = add_output(&c->r, type);
  set_io(&c->r, (int[]){in, c->axis}, 2, c->out);
}

static const TfLiteTensor* red_out(red_case* c) {
  return tensor_at(&c->r, c->out);
}

/* Runs a float case expecting `want` of shape od[0..orank). */
static void red_expect_f32(red_op op, const int* dims, int rank, const float* x,
                           const int32_t* axes, int num_axes, bool keep,
                           const int* od, int orank, const float* want) {
  for (int runtime = 0; runtime < 2; ++runtime) {
    red_case c;
    red_setup(&c, op, kTfLiteFloat32, dims, rank, x, axes, num_axes, keep,
              runtime);
    run_ok(&c.r, "reduction");
    expect_shape(red_out(&c), od, orank);
    expect_floats(red_out(&c)->data.f, want, count_of(od, orank));
    lg_kernel_runner_release(&c.r);
  }
}

/* The reference: every input element folded in double into its output
 * (reduced coordinates dropped). tol[o] bounds float32 accumulation. */
static void ref_reduce(red_op op, const int* dims, int rank, const float* x,
                       const bool* reduced, double* out, double* tol) {
  const int n = count_of(dims, rank);
  int n_out = 1, fold = 1;
  for (int i = 0; i < rank; ++i) {
    if (reduced[i]) fold *= dims[i];
    if (!reduced[i]) n_out *= dims[i];
  }
  double* mag = calloc((size_t)n_out + 1, sizeof(double));
  assert_non_null(mag);
  for (int o = 0; o < n_out; ++o) {
    out[o] = op == R_PROD  ? 1.0
             : op == R_MAX ? -FLT_MAX
             : op == R_MIN ? FLT_MAX
                           : 0.0;
  }
  for (int i = 0; i < n; ++i) {
    int rest = i, o = 0, scale = 1;
    for (int k = rank - 1; k >= 0; --k) {
      const int coord = rest % dims[k];
      rest /= dims[k];
      if (!reduced[k]) o += coord * scale, scale *= dims[k];
    }
    const double v = x[i];
    if (op == R_SUM || op == R_MEAN) out[o] += v, mag[o] += fabs(v);
    if (op == R_PROD) out[o] *= v;
    if (op == R_MAX && v > out[o]) out[o] = v;
    if (op == R_MIN && v < out[o]) out[o] = v;
  }
  for (int o = 0; o < n_out; ++o) {
    tol[o] = (fold + 2) * FLT_EPSILON *
             (op == R_PROD                 ? fabs(out[o])
              : op == R_MAX || op == R_MIN ? 0.0
                                           : mag[o]);
    if (op == R_MEAN) out[o] /= fold, tol[o] /= fold;
  }
  free(mag);
}

/* ---- Reductions: tests
 * ------------------------------------------------------- */

static void test_reduce_hand_values(void** state) {
  (void)state;
  /* x = [[1,2,3],[4,5,6]]. Over axis 1: sums 6, 15; means 2, 5; products
   * 6, 120; max 3, 6; min 1, 4. Over axis 0: sums 5,7,9. */
  const float x[] = {1, 2, 3, 4, 5, 6};
  const int d[] = {2, 3};
  const int32_t ax1[] = {1}, ax0[] = {0}, both[] = {0, 1};
  red_expect_f32(R_SUM, d, 2, x, ax1, 1, false, (int[]){2}, 1,
                 (float[]){6, 15});
  red_expect_f32(R_MEAN, d, 2, x, ax1, 1, false, (int[]){2}, 1,
                 (float[]){2, 5});
  red_expect_f32(R_PROD, d, 2, x, ax1, 1, false, (int[]){2}, 1,
                 (float[]){6, 120});
  red_expect_f32(R_MAX, d, 2, x, ax1, 1, false, (int[]){2}, 1, (float[]){3, 6});
  red_expect_f32(R_MIN, d, 2, x, ax1, 1, false, (int[]){2}, 1, (float[]){1, 4});
  red_expect_f32(R_SUM, d, 2, x, ax0, 1, false, (int[]){3}, 1,
                 (float[]){5, 7, 9});
  /* keep_dims keeps reduced dims as 1; all axes give a scalar (21). */
  red_expect_f32(R_SUM, d, 2, x, ax0, 1, true, (int[]){1, 3}, 2,
                 (float[]){5, 7, 9});
  red_expect_f32(R_SUM, d, 2, x, both, 2, false, NULL, 0, (float[]){21});
  red_expect_f32(R_MEAN, d, 2, x, both, 2, true, (int[]){1, 1}, 2,
                 (float[]){3.5f});
}

static void test_reduce_axes_forms(void** state) {
  (void)state;
  /* [2,3,2]: x[i][j][k] = 6i + 2j + k. Axis -1 == axis 2: pairs summed
   * 1, 5, 9, 13, 17, 21. Duplicates count once: {1, -2, 1} is axis 1:
   * sums over j: (0+2+4, 1+3+5, 6+8+10, 7+9+11) = 6, 9, 24, 27. */
  float x[12];
  for (int i = 0; i < 12; ++i) x[i] = (float)i;
  const int d[] = {2, 3, 2};
  const float pairs[] = {1, 5, 9, 13, 17, 21};
  red_expect_f32(R_SUM, d, 3, x, (int32_t[]){-1}, 1, false, (int[]){2, 3}, 2,
                 pairs);
  red_expect_f32(R_SUM, d, 3, x, (int32_t[]){2}, 1, false, (int[]){2, 3}, 2,
                 pairs);
  red_expect_f32(R_SUM, d, 3, x, (int32_t[]){1, -2, 1}, 3, true,
                 (int[]){2, 1, 2}, 3, (float[]){6, 9, 24, 27});
  /* No axes: nothing reduced, the input comes back (MEAN divides by 1). */
  red_expect_f32(R_MEAN, d, 3, x, NULL, 0, false, d, 3, x);
  red_expect_f32(R_MAX, d, 3, x, NULL, 0, true, d, 3, x);
  /* Reducing outer and inner dims around a kept middle one: axes {0, 2}
   * of [2,3,2]: max over i,k of 6i+2j+k = 7 + 2j: 7, 9, 11. */
  red_expect_f32(R_MAX, d, 3, x, (int32_t[]){0, 2}, 2, false, (int[]){3}, 1,
                 (float[]){7, 9, 11});
  /* A scalar axis tensor (rank 0, one element) works too. */
  red_case c;
  c.p.keep_dims = false;
  lg_kernel_runner_init(&c.r, lg_register_SUM(), &c.p);
  const int in = add_tensor(&c.r, kTfLiteFloat32, d, 3, x);
  const int axis = add_tensor(&c.r, kTfLiteInt32, NULL, 0, (int32_t[]){0});
  c.out = add_output(&c.r, kTfLiteFloat32);
  set_io(&c.r, (int[]){in, axis}, 2, c.out);
  run_ok(&c.r, "SUM");
  expect_floats(red_out(&c)->data.f, (float[]){6, 8, 10, 12, 14, 16}, 6);
  lg_kernel_runner_release(&c.r);
}

static void test_reduce_nan_inf_and_empty(void** state) {
  (void)state;
  /* MAX/MIN skip NaN; -inf alone gives -FLT_MAX (LiteRT's start value);
   * SUM and MEAN propagate NaN. */
  const float x[] = {NAN, 1, 2, -INFINITY, -INFINITY, -INFINITY};
  const int d[] = {2, 3};
  const int32_t ax[] = {1};
  red_expect_f32(R_MAX, d, 2, x, ax, 1, false, (int[]){2}, 1,
                 (float[]){2, -FLT_MAX});
  red_expect_f32(R_MIN, d, 2, x, ax, 1, false, (int[]){2}, 1,
                 (float[]){1, -INFINITY});
  red_expect_f32(R_SUM, d, 2, x, ax, 1, false, (int[]){2}, 1,
                 (float[]){NAN, -INFINITY});
  /* MIN starts from FLT_MAX: +inf and NaN never replace it. */
  const float y[] = {INFINITY, INFINITY, NAN, NAN};
  red_expect_f32(R_MIN, (int[]){2, 2}, 2, y, ax, 1, false, (int[]){2}, 1,
                 (float[]){FLT_MAX, FLT_MAX});
  /* Reducing an empty dim gives each op's identity; MEAN is 0/0. */
  const int e[] = {2, 0};
  red_expect_f32(R_SUM, e, 2, x, ax, 1, false, (int[]){2}, 1, (float[]){0, 0});
  red_expect_f32(R_PROD, e, 2, x, ax, 1, true, (int[]){2, 1}, 2,
                 (float[]){1, 1});
  red_expect_f32(R_MAX, e, 2, x, ax, 1, false, (int[]){2}, 1,
                 (float[]){-FLT_MAX, -FLT_MAX});
  red_expect_f32(R_MIN, e, 2, x, ax, 1, false, (int[]){2}, 1,
                 (float[]){FLT_MAX, FLT_MAX});
  red_expect_f32(R_MEAN, e, 2, x, ax, 1, false, (int[]){2}, 1,
                 (float[]){NAN, NAN});
  /* Keeping the empty dim: an empty output. */
  red_expect_f32(R_SUM, e, 2, x, (int32_t[]){0}, 1, false, (int[]){0}, 1, NULL);
}

static void test_reduce_int32(void** state) {
  (void)state;
  /* MEAN sums in int64 and truncates towards zero: [1,2] -> 1,
   * [-1,-2] -> -1, [INT32_MAX, INT32_MAX] -> INT32_MAX, [-3,0] -> -1.
   * SUM wraps: INT32_MAX + 1 -> INT32_MIN. PROD wraps: 65536^2 -> 0. */
  const int32_t x[] = {1, 2, -1, -2, INT32_MAX, INT32_MAX, -3, 0};
  const int32_t want_mean[] = {1, -1, INT32_MAX, -1};
  red_case c;
  red_setup(&c, R_MEAN, kTfLiteInt32, (int[]){4, 2}, 2, x, (int32_t[]){1}, 1,
            false, false);
  run_ok(&c.r, "MEAN");
  expect_ints32(red_out(&c)->data.i32, want_mean, 4);
  lg_kernel_runner_release(&c.r);
  const int32_t s[] = {INT32_MAX, 1, 65536, 65536, -3, 7};
  const struct {
    red_op op;
    int32_t want[3];
  } cases[] = {
      {R_SUM, {INT32_MIN, 131072, 4}},
      {R_PROD, {INT32_MAX, 0, -21}},
      {R_MAX, {INT32_MAX, 65536, 7}},
      {R_MIN, {1, 65536, -3}},
  };
  for (int i = 0; i < ARRAY_SIZE(cases); ++i) {
    red_setup(&c, cases[i].op, kTfLiteInt32, (int[]){3, 2}, 2, s,
              (int32_t[]){-1}, 1, false, i % 2 == 1);
    run_ok(&c.r, "int32 reduction");
    expect_ints32(red_out(&c)->data.i32, cases[i].want, 3);
    lg_kernel_runner_release(&c.r);
  }
  /* Empty reductions: MEAN gives 0, MAX INT32_MIN, MIN INT32_MAX. */
  const red_op ops[] = {R_MEAN, R_MAX, R_MIN, R_SUM, R_PROD};
  const int32_t ids[] = {0, INT32_MIN, INT32_MAX, 0, 1};
  for (int i = 0; i < ARRAY_SIZE(ops); ++i) {
    red_setup(&c, ops[i], kTfLiteInt32, (int[]){1, 0}, 2, s, (int32_t[]){1}, 1,
              false, false);
    run_ok(&c.r, "empty int32 reduction");
    expect_ints32(red_out(&c)->data.i32, &ids[i], 1);
    lg_kernel_runner_release(&c.r);
  }
}

/* One seeded random float case: shape, axes (with negatives and
 * duplicates) and keep_dims drawn from `seed`; `threads` > 1 uses a pool. */
static void check_reduce_random(red_op op, uint32_t seed, int max_rank,
                                int max_dim, int threads) {
  int rank = rng_int(&seed, 1, max_rank), dims[5];
  for (int i = 0; i < rank; ++i) dims[i] = rng_int(&seed, 1, max_dim);
  if (rng_int(&seed, 0, 4) == 0) dims[rng_int(&seed, 0, rank - 1)] = 17;
  const int n = count_of(dims, rank);
  float* x = malloc(sizeof(float) * (size_t)n);
  double* want = malloc(sizeof(double) * (size_t)n);
  double* tol = malloc(sizeof(double) * (size_t)n);
  assert_true(x != NULL && want != NULL && tol != NULL);
  /* Products of factors near 1 stay far from underflow and overflow. */
  if (op == R_PROD) {
    rng_fill(&seed, x, n, 0.99f, 1.01f);
  } else {
    rng_fill(&seed, x, n, -4.0f, 4.0f);
  }
  int32_t axes[6];
  bool reduced[5] = {false};
  const int num_axes = rng_int(&seed, 0, 6);
  for (int i = 0; i < num_axes; ++i) {
    axes[i] = rng_int(&seed, -rank, rank - 1);
    reduced[axes[i] < 0 ? axes[i] + rank : axes[i]] = true;
  }
  const bool keep = rng_int(&seed, 0, 1) == 1;
  int od[5], orank = 0;
  for (int i = 0; i < rank; ++i) {
    if (!reduced[i] || keep) od[orank++] = reduced[i] ? 1 : dims[i];
  }
  ref_reduce(op, dims, rank, x, reduced, want, tol);
  red_case c;
  red_setup(&c, op, kTfLiteFloat32, dims, rank, x, axes, num_axes, keep,
            seed % 2 == 0);
  if (threads > 1) {
    assert_int_equal(lg_kernel_runner_set_threads(&c.r, threads), kTfLiteOk);
  }
  run_ok(&c.r, "random reduction");
  expect_shape(red_out(&c), od, orank);
  expect_near(red_out(&c)->data.f, want, tol, count_of(od, orank));
  lg_kernel_runner_release(&c.r);
  free(x);
  free(want);
  free(tol);
}

static void test_reduce_random(void** state) {
  (void)state;
  for (uint32_t s = 1; s <= 60; ++s) {
    check_reduce_random((red_op)(s % 5), 1000 + s * 7919, 5, 7, 1);
  }
}

static void test_reduce_threads(void** state) {
  (void)state;
  /* Dims up to 24 over rank up to 4: most cases pass the parallel
   * threshold; both the reduced-inner and kept-inner loops are drawn. */
  for (uint32_t s = 1; s <= 25; ++s) {
    check_reduce_random((red_op)(s % 5), 5000 + s * 104729, 4, 24,
                        2 + (int)(s % 2));
  }
}

static void test_reduce_global_pool_nan_inf(void** state) {
  (void)state;
  /* SUM, MEAN and PROD over H and W with the channels kept (the vector fold
   * of simd_f32.c, 17 channels: a partial vector), by hand: NaN and inf
   * propagate as in float arithmetic (+inf with -inf, 0 with inf: NaN). */
  enum { kC = 17 };
  float x[4 * kC];
  for (int p = 0; p < 4; ++p) {
    for (int c = 0; c < kC; ++c) x[p * kC + c] = (float)c;
  }
  x[1 * kC + 0] = NAN;
  x[2 * kC + 1] = INFINITY;
  x[0 * kC + 2] = INFINITY;
  x[3 * kC + 2] = -INFINITY;
  x[0 * kC + 3] = INFINITY; /* channel 3's product: inf * 0 */
  x[1 * kC + 3] = 0.0f;
  x[3 * kC + 16] = -INFINITY;
  float sum[kC], mean[kC], prod[kC];
  for (int c = 0; c < kC; ++c) {
    sum[c] = 4.0f * (float)c;
    mean[c] = (float)c;
    prod[c] = (float)c * (float)c * (float)c * (float)c;
  }
  sum[0] = mean[0] = prod[0] = NAN;
  sum[1] = mean[1] = prod[1] = INFINITY;
  sum[2] = mean[2] = NAN;
  prod[2] = -INFINITY; /* inf * 2 * 2 * -inf */
  sum[3] = mean[3] = INFINITY;
  prod[3] = NAN;
  sum[16] = mean[16] = prod[16] = -INFINITY;
  const int d[] = {1, 2, 2, kC};
  const int32_t ax[] = {1, 2};
  const int od[] = {1, 1, 1, kC};
  red_expect_f32(R_SUM, d, 4, x, ax, 2, true, od, 4, sum);
  red_expect_f32(R_MEAN, d, 4, x, ax, 2, true, od, 4, mean);
  red_expect_f32(R_PROD, d, 4, x, ax, 2, true, od, 4, prod);
}

static void test_reduce_global_pool_threads(void** state) {
  (void)state;
  /* MEAN over H and W of NHWC (a global average pool): one output row per
   * batch, split over threads in 64-channel pieces; 130 channels give
   * pieces of 64, 64 and 2, and the tasks' ranges cross rows. */
  const int dims[] = {3, 9, 70, 130};
  const int n = count_of(dims, 4);
  float* x = malloc(sizeof(float) * (size_t)n);
  double want[3 * 130], tol[3 * 130];
  assert_non_null(x);
  uint32_t seed = 2024;
  rng_fill(&seed, x, n, -3.0f, 3.0f);
  const bool reduced[] = {false, true, true, false};
  for (int op = 0; op < 5; ++op) {
    if (op == R_PROD) continue; /* 630 factors of [-3, 3) overflow */
    ref_reduce((red_op)op, dims, 4, x, reduced, want, tol);
    for (int threads = 1; threads <= 3; ++threads) {
      red_case c;
      red_setup(&c, (red_op)op, kTfLiteFloat32, dims, 4, x, (int32_t[]){1, 2},
                2, true, false);
      assert_int_equal(lg_kernel_runner_set_threads(&c.r, threads), kTfLiteOk);
      run_ok(&c.r, "global reduction");
      expect_shape(red_out(&c), (int[]){3, 1, 1, 130}, 4);
      expect_near(red_out(&c)->data.f, want, tol, 3 * 130);
      lg_kernel_runner_release(&c.r);
    }
  }
  free(x);
}

static void test_reduce_int32_random(void** state) {
  (void)state;
  uint32_t seed = 4242;
  for (int t = 0; t < 20; ++t) {
    const red_op op = (red_op)(t % 5);
    const int dims[3] = {rng_int(&seed, 1, 5), rng_int(&seed, 1, 70),
                         rng_int(&seed, 1, 5)};
    const int n = count_of(dims, 3);
    int32_t x[5 * 70 * 5], want[5 * 70 * 5];
    for (int i = 0; i < n; ++i) x[i] = (int32_t)rng_next(&seed);
    const int32_t axis = t % 3;
    int od[2], k = 0, stride_in = 1, outer = 1;
    for (int i = 0; i < 3; ++i) {
      if (i != axis) od[k++] = dims[i];
      if (i > axis) stride_in *= dims[i];
      if (i < axis) outer *= dims[i];
    }
    for (int o = 0; o < outer; ++o) {
      for (int in = 0; in < stride_in; ++in) {
        int64_t sum = 0, mx = INT32_MIN, mn = INT32_MAX;
        uint32_t prod = 1, wrap = 0;
        for (int a = 0; a < dims[axis]; ++a) {
          const int32_t v = x[(o * dims[axis] + a) * stride_in + in];
          sum += v, wrap += (uint32_t)v, prod *= (uint32_t)v;
          mx = v > mx ? v : mx, mn = v < mn ? v : mn;
        }
        const int64_t r = op == R_SUM    ? (int32_t)wrap
                          : op == R_MEAN ? sum / dims[axis]
                          : op == R_PROD ? (int32_t)prod
                          : op == R_MAX  ? mx
                                         : mn;
        want[o * stride_in + in] = (int32_t)r;
      }
    }
    red_case c;
    red_setup(&c, op, kTfLiteInt32, dims, 3, x, &axis, 1, false, t % 2 == 1);
    run_ok(&c.r, "int32 random reduction");
    expect_shape(red_out(&c), od, 2);
    expect_ints32(red_out(&c)->data.i32, want, outer * stride_in);
    lg_kernel_runner_release(&c.r);
  }
}

static void test_reduce_dynamic_axes_change(void** state) {
  (void)state;
  /* With runtime axes each Invoke reads them again: the same node gives
   * [2] then [3] outputs, and a bad axis fails at Invoke. */
  const float x[] = {1, 2, 3, 4, 5, 6};
  int32_t axis = 1;
  red_case c;
  red_setup(&c, R_SUM, kTfLiteFloat32, (int[]){2, 3}, 2, x, &axis, 1, false,
            true);
  run_ok(&c.r, "SUM");
  assert_int_equal(red_out(&c)->allocation_type, kTfLiteDynamic);
  expect_shape(red_out(&c), (int[]){2}, 1);
  expect_floats(red_out(&c)->data.f, (float[]){6, 15}, 2);
  axis = 0;
  assert_int_equal(lg_kernel_runner_invoke(&c.r), kTfLiteOk);
  expect_shape(red_out(&c), (int[]){3}, 1);
  expect_floats(red_out(&c)->data.f, (float[]){5, 7, 9}, 3);
  axis = 2;
  expect_error(&c.r, lg_kernel_runner_invoke(&c.r),
               "SUM: axis 2 is out of range for an input of rank 2 "
               "(expected -2 to 1)");
  lg_kernel_runner_release(&c.r);
}

static void test_reduce_rejections(void** state) {
  (void)state;
  const float x[8] = {0};
  red_case c;
  red_setup(&c, R_MEAN, kTfLiteFloat32, (int[]){2, 4}, 2, x, (int32_t[]){-3}, 1,
            false, false);
  expect_run_error(&c.r,
                   "MEAN: axis -3 is out of range for an input of rank 2");
  red_setup(&c, R_SUM, kTfLiteInt16, (int[]){2, 4}, 2, x, (int32_t[]){0}, 1,
            false, false);
  expect_run_error(&c.r,
                   "SUM: input type INT16 is not supported (expected "
                   "FLOAT32, INT32 or INT8)");
  red_setup(&c, R_PROD, kTfLiteInt64, (int[]){2}, 1, x, (int32_t[]){0}, 1,
            false, false);
  expect_run_error(&c.r, "REDUCE_PROD: input type INT64 is not supported");
  /* Output type, axis type, rank and arity. */
  lg_kernel_runner_init(&c.r, lg_register_REDUCE_MAX(), &c.p);
  int in = add_tensor(&c.r, kTfLiteFloat32, (int[]){8}, 1, x);
  int ax = add_tensor(&c.r, kTfLiteInt32, (int[]){1}, 1, (int32_t[]){0});
  set_io(&c.r, (int[]){in, ax}, 2, add_output(&c.r, kTfLiteInt32));
  expect_run_error(&c.r,
                   "REDUCE_MAX: output type INT32 differs from input type "
                   "FLOAT32");
  lg_kernel_runner_init(&c.r, lg_register_REDUCE_MIN(), &c.p);
  in = add_tensor(&c.r, kTfLiteFloat32, (int[]){8}, 1, x);
  ax = add_tensor(&c.r, kTfLiteInt64, (int[]){1}, 1, (int64_t[]){0});
  set_io(&c.r, (int[]){in, ax}, 2, add_output(&c.r, kTfLiteFloat32));
  expect_run_error(&c.r,
                   "REDUCE_MIN: axis type INT64 is not supported "
                   "(expected INT32)");
  lg_kernel_runner_init(&c.r, lg_register_SUM(), &c.p);
  in = add_tensor(&c.r, kTfLiteFloat32, (int[]){1, 1, 1, 1, 1, 1, 1, 1, 1}, 9,
                  x);
  ax = add_tensor(&c.r, kTfLiteInt32, (int[]){1}, 1, (int32_t[]){0});
  set_io(&c.r, (int[]){in, ax}, 2, add_output(&c.r, kTfLiteFloat32));
  expect_run_error(&c.r, "SUM: input rank 9 is above the supported 8");
  lg_kernel_runner_init(&c.r, lg_register_MEAN(), &c.p);
  in = add_tensor(&c.r, kTfLiteFloat32, (int[]){8}, 1, x);
  set_io(&c.r, &in, 1, add_output(&c.r, kTfLiteFloat32));
  expect_run_error(&c.r, "MEAN: expected 2 inputs, got 1");
  /* A constant axis tensor without data. */
  lg_kernel_runner_init(&c.r, lg_register_SUM(), &c.p);
  in = add_tensor(&c.r, kTfLiteFloat32, (int[]){8}, 1, x);
  ax = add_tensor(&c.r, kTfLiteInt32, (int[]){1}, 1, NULL);
  lg_kernel_runner_tensor(&c.r, ax)->allocation_type = kTfLiteMmapRo;
  set_io(&c.r, (int[]){in, ax}, 2, add_output(&c.r, kTfLiteFloat32));
  expect_run_error(&c.r, "SUM: axis tensor has no data");
}

static void test_versions_in_table(void** state) {
  (void)state;
  /* TFLite's BuiltinOpResolver ranges. */
  static const struct {
    int32_t code;
    int max;
  } ops[] = {
      {kTfLiteBuiltinAveragePool2d, 3},
      {kTfLiteBuiltinMaxPool2d, 3},
      {kTfLiteBuiltinL2Pool2d, 1},
      {kTfLiteBuiltinMean, 3},
      {kTfLiteBuiltinSum, 2},
      {kTfLiteBuiltinReduceMax, 3},
      {kTfLiteBuiltinReduceMin, 3},
      {kTfLiteBuiltinReduceProd, 2},
      {kTfLiteBuiltinResizeBilinear, 4},
      {kTfLiteBuiltinResizeNearestNeighbor, 4},
      {kTfLiteBuiltinArgMax, 3},
      {kTfLiteBuiltinArgMin, 3},
      {kTfLiteBuiltinShape, 1},
      {kTfLiteBuiltinFill, 4},
      {kTfLiteBuiltinZerosLike, 1},
  };
  for (int i = 0; i < ARRAY_SIZE(ops); ++i) {
    for (int v = 1; v <= ops[i].max; ++v) {
      const lg_builtin_kernel* k =
          lg_builtin_kernel_find(ops[i].code, v, NULL, NULL);
      if (k == NULL) fail_msg("op %d version %d is not found", ops[i].code, v);
      assert_int_equal(k->registration()->builtin_code, ops[i].code);
    }
    int lo = 0, hi = 0;
    assert_null(lg_builtin_kernel_find(ops[i].code, ops[i].max + 1, &lo, &hi));
    assert_int_equal(lo, 1);
    assert_int_equal(hi, ops[i].max);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_avg_pool_valid),
      cmocka_unit_test(test_avg_pool_same_counts_valid_elements),
      cmocka_unit_test(test_pool_same_padding_split),
      cmocka_unit_test(test_max_pool_nan_and_inf),
      cmocka_unit_test(test_l2_pool_values),
      cmocka_unit_test(test_pool_activations),
      cmocka_unit_test(test_pool_random),
      cmocka_unit_test(test_pool_threads),
      cmocka_unit_test(test_pool_empty_outputs),
      cmocka_unit_test(test_pool_rejections),
      cmocka_unit_test(test_reduce_hand_values),
      cmocka_unit_test(test_reduce_axes_forms),
      cmocka_unit_test(test_reduce_nan_inf_and_empty),
      cmocka_unit_test(test_reduce_int32),
      cmocka_unit_test(test_reduce_random),
      cmocka_unit_test(test_reduce_threads),
      cmocka_unit_test(test_reduce_global_pool_nan_inf),
      cmocka_unit_test(test_reduce_global_pool_threads),
      cmocka_unit_test(test_reduce_int32_random),
      cmocka_unit_test(test_reduce_dynamic_axes_change),
      cmocka_unit_test(test_reduce_rejections),
      cmocka_unit_test(test_versions_in_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
