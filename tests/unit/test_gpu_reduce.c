/* The GPU delegate's reduce family on OpenCL (PoCL here): AVERAGE_POOL_2D,
 * MAX_POOL_2D, MEAN, SUM, REDUCE_MAX, SOFTMAX, RESIZE_BILINEAR and
 * RESIZE_NEAREST_NEIGHBOR, each as a one-op model run CPU-only and with the
 * delegate, which must claim the node (one partition).
 * Needs an OpenCL device: without one the tests fail (never skip).
 *
 * Bound: |gpu - cpu| <= 1e-5 * max(1, |cpu|) per element. Sums and means
 * fold in the CPU's order (bit for bit), so the bound holds for the long
 * reductions below too (up to 1,000,000 elements into one output). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "litegpu/gpu_delegate.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tensorflow/lite/delegates/gpu/delegate.h"

#define MAX_RANK 4 /* the GPU delegate claims ranks up to 4 */

typedef struct capture {
  char text[16384];
  size_t length;
} capture;

static void capture_report(void* user_data, const char* format, va_list args) {
  capture* c = user_data;
  if (c->length >= sizeof(c->text) - 2) return;
  int n =
      vsnprintf(c->text + c->length, sizeof(c->text) - c->length, format, args);
  if (n > 0) c->length += (size_t)n;
  if (c->length > sizeof(c->text) - 2) c->length = sizeof(c->text) - 2;
  c->text[c->length++] = '\n';
  c->text[c->length] = '\0';
}

/* One single-op model: y = op(x[, constant int32 aux]). */
typedef struct one_op {
  int32_t code;
  int32_t in[MAX_RANK];
  int in_rank;
  int32_t out[MAX_RANK];
  int out_rank;
  const int32_t* aux; /* axes or size; NULL: no second input */
  int aux_count;
  const void* params;
} one_op;

typedef struct built_model {
  void* data;
  size_t size;
  TfLiteModel* model;
} built_model;

static void build(const one_op* op, built_model* m) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  assert_non_null(w);
  lg_writer_tensor t = {.name = "x",
                        .type = kTfLiteFloat32,
                        .shape = op->in,
                        .num_dims = op->in_rank};
  int32_t ins[2] = {lg_model_writer_add_tensor(w, &t), -1};
  if (op->aux != NULL) {
    const int32_t aux_shape[1] = {op->aux_count};
    ins[1] = lg_model_writer_add_const_tensor(
        w, "aux", kTfLiteInt32, aux_shape, 1, op->aux,
        (size_t)op->aux_count * sizeof(int32_t));
  }
  t.name = "y";
  t.shape = op->out;
  t.num_dims = op->out_rank;
  const int32_t y = lg_model_writer_add_tensor(w, &t);
  assert_true(lg_model_writer_add_operator(w, op->code, 1, ins,
                                           op->aux != NULL ? 2 : 1, &y, 1,
                                           op->params) >= 0);
  lg_model_writer_set_inputs(w, ins, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  assert_int_equal(lg_model_writer_finish(w, &m->data, &m->size), kTfLiteOk);
  lg_model_writer_destroy(w);
  m->model = TfLiteModelCreate(m->data, m->size);
  assert_non_null(m->model);
}

static void fill(float* v, size_t n, uint32_t seed) {
  for (size_t k = 0; k < n; ++k) {
    seed = seed * 1664525u + 1013904223u;
    v[k] = (float)(seed >> 8) / 16777216.0f * 8 - 4;
  }
}

/* Runs the model on seeded input; output 0 into *out (malloc'd). */
static TfLiteStatus run(TfLiteModel* model, TfLiteDelegate* delegate,
                        capture* c, float** out, size_t* count) {
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  TfLiteInterpreterOptionsSetErrorReporter(o, capture_report, c);
  if (delegate) TfLiteInterpreterOptionsAddDelegate(o, delegate);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(model, o);
  TfLiteInterpreterOptionsDelete(o);
  *out = NULL;
  *count = 0;
  if (ip == NULL) return kTfLiteError;
  TfLiteStatus status = TfLiteInterpreterAllocateTensors(ip);
  if (status == kTfLiteOk) {
    TfLiteTensor* x = TfLiteInterpreterGetInputTensor(ip, 0);
    fill(TfLiteTensorData(x), TfLiteTensorByteSize(x) / sizeof(float), 7);
    status = TfLiteInterpreterInvoke(ip);
    const TfLiteTensor* y = TfLiteInterpreterGetOutputTensor(ip, 0);
    *count = TfLiteTensorByteSize(y) / sizeof(float);
    *out = malloc(TfLiteTensorByteSize(y) + 1);
    memcpy(*out, TfLiteTensorData(y), TfLiteTensorByteSize(y));
  }
  TfLiteInterpreterDelete(ip);
  return status;
}

/* CPU-only vs delegated: the delegate must claim the node, and every
 * element must be within the bound. */
static void compare(const char* name, const one_op* op, TfLiteDelegate* d) {
  built_model m;
  build(op, &m);
  float *cpu = NULL, *gpu = NULL;
  size_t nc = 0, ng = 0;
  capture c0 = {{0}, 0}, c1 = {{0}, 0};
  if (run(m.model, NULL, &c0, &cpu, &nc) != kTfLiteOk) {
    fail_msg("%s: CPU run failed:\n%s", name, c0.text);
  }
  if (run(m.model, d, &c1, &gpu, &ng) != kTfLiteOk) {
    fail_msg("%s: delegated run failed:\n%s", name, c1.text);
  }
  if (litegpu_gpu_delegate_num_partitions(d) != 1) {
    const char* why = litegpu_gpu_delegate_node_reason(d, 0);
    fail_msg("%s: %d partitions, want 1; node 0: %s", name,
             litegpu_gpu_delegate_num_partitions(d), why ? why : "?");
  }
  assert_int_equal(nc, ng);
  for (size_t i = 0; i < nc; ++i) {
    const float bound = 1e-5f * fmaxf(1.0f, fabsf(cpu[i]));
    if (!(fabsf(cpu[i] - gpu[i]) <= bound)) {
      fail_msg("%s: element %zu of %zu: cpu %.9g gpu %.9g", name, i, nc,
               (double)cpu[i], (double)gpu[i]);
    }
  }
  free(cpu);
  free(gpu);
  TfLiteModelDelete(m.model);
  free(m.data);
}

static TfLiteDelegate* make_delegate(void) {
  TfLiteGpuDelegateOptionsV2 o = TfLiteGpuDelegateOptionsV2Default();
  TfLiteDelegate* d = TfLiteGpuDelegateV2Create(&o);
  assert_non_null(d); /* no OpenCL device: fail, never skip */
  return d;
}

/* ---- Pooling ------------------------------------------------------------- */

typedef struct pool_case {
  const char* name;
  int32_t code;
  int32_t n, h, w, c;
  int filter_h, filter_w, stride_h, stride_w;
  TfLitePadding padding;
  TfLiteFusedActivation act;
} pool_case;

static int32_t pool_out(TfLitePadding padding, int in, int filter, int stride) {
  return padding == kTfLitePaddingSame ? (in + stride - 1) / stride
                                       : (in - filter + stride) / stride;
}

static void test_pool(void** state) {
  (void)state;
  static const pool_case cases[] = {
      {"avg 3x3/2 same c5", kTfLiteBuiltinAveragePool2d, 2, 9, 11, 5, 3, 3, 2,
       2, kTfLitePaddingSame, kTfLiteActNone},
      {"avg 3x3/2 same c8 relu6", kTfLiteBuiltinAveragePool2d, 1, 10, 7, 8, 3,
       3, 2, 2, kTfLitePaddingSame, kTfLiteActRelu6},
      {"avg 2x3/1x2 valid c3", kTfLiteBuiltinAveragePool2d, 1, 8, 9, 3, 2, 3, 1,
       2, kTfLitePaddingValid, kTfLiteActRelu},
      {"avg 4x4/3 same c12 relu1", kTfLiteBuiltinAveragePool2d, 3, 13, 5, 12, 4,
       4, 3, 3, kTfLitePaddingSame, kTfLiteActReluN1To1},
      {"avg global 7x7 c1280", kTfLiteBuiltinAveragePool2d, 1, 7, 7, 1280, 7, 7,
       1, 1, kTfLitePaddingValid, kTfLiteActNone},
      {"max 3x3/2 same c5", kTfLiteBuiltinMaxPool2d, 2, 9, 11, 5, 3, 3, 2, 2,
       kTfLitePaddingSame, kTfLiteActNone},
      {"max 2x2/2 valid c16", kTfLiteBuiltinMaxPool2d, 1, 12, 13, 16, 2, 2, 2,
       2, kTfLitePaddingValid, kTfLiteActRelu},
      {"max 5x3/1 same c4 relu6", kTfLiteBuiltinMaxPool2d, 1, 6, 5, 4, 5, 3, 1,
       1, kTfLitePaddingSame, kTfLiteActRelu6},
      {"max 1x1/3 valid c7", kTfLiteBuiltinMaxPool2d, 2, 10, 10, 7, 1, 1, 3, 3,
       kTfLitePaddingValid, kTfLiteActNone},
  };
  TfLiteDelegate* d = make_delegate();
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    const pool_case* k = &cases[i];
    const TfLitePoolParams params = {.padding = k->padding,
                                     .stride_width = k->stride_w,
                                     .stride_height = k->stride_h,
                                     .filter_width = k->filter_w,
                                     .filter_height = k->filter_h,
                                     .activation = k->act};
    const one_op op = {
        .code = k->code,
        .in = {k->n, k->h, k->w, k->c},
        .in_rank = 4,
        .out = {k->n, pool_out(k->padding, k->h, k->filter_h, k->stride_h),
                pool_out(k->padding, k->w, k->filter_w, k->stride_w), k->c},
        .out_rank = 4,
        .params = &params,
    };
    compare(k->name, &op, d);
  }
  TfLiteGpuDelegateV2Delete(d);
}

/* ---- MEAN, SUM, REDUCE_MAX ----------------------------------------------- */

typedef struct reduce_case {
  const char* name;
  int32_t code;
  int32_t in[MAX_RANK];
  int rank;
  int32_t axes[MAX_RANK];
  int num_axes;
  bool keep_dims;
} reduce_case;

/* The output shape of a reduction (the CPU kernel resizes to the same). */
static int reduce_shape(const reduce_case* k, int32_t* out) {
  bool reduced[MAX_RANK] = {false};
  for (int i = 0; i < k->num_axes; ++i) {
    reduced[k->axes[i] < 0 ? k->axes[i] + k->rank : k->axes[i]] = true;
  }
  int n = 0;
  for (int i = 0; i < k->rank; ++i) {
    if (!reduced[i]) {
      out[n++] = k->in[i];
    } else if (k->keep_dims) {
      out[n++] = 1;
    }
  }
  return n;
}

static void run_reduce_cases(const reduce_case* cases, size_t count) {
  TfLiteDelegate* d = make_delegate();
  for (size_t i = 0; i < count; ++i) {
    const reduce_case* k = &cases[i];
    const TfLiteReducerParams params = {.keep_dims = k->keep_dims};
    one_op op = {.code = k->code,
                 .in_rank = k->rank,
                 .aux = k->axes,
                 .aux_count = k->num_axes,
                 .params = &params};
    memcpy(op.in, k->in, sizeof(op.in));
    op.out_rank = reduce_shape(k, op.out);
    compare(k->name, &op, d);
  }
  TfLiteGpuDelegateV2Delete(d);
}

#define MEAN kTfLiteBuiltinMean
#define SUM kTfLiteBuiltinSum
#define RMAX kTfLiteBuiltinReduceMax

static void test_reduce_axes(void** state) {
  (void)state;
  static const reduce_case cases[] = {
      /* Global pooling as MobileNet heads write it (inner kept, float4). */
      {"mean hw keep c1280", MEAN, {1, 7, 7, 1280}, 4, {1, 2}, 2, true},
      {"mean hw drop c12", MEAN, {2, 7, 7, 12}, 4, {1, 2}, 2, false},
      {"sum hw c5", SUM, {2, 5, 3, 5}, 4, {2, 1}, 2, false},
      {"max hw c8", RMAX, {3, 4, 6, 8}, 4, {1, 2}, 2, true},
      /* Innermost reduced: contiguous runs. */
      {"sum last", SUM, {3, 5, 1003}, 3, {-1}, 1, false},
      {"mean last keep", MEAN, {4, 37}, 2, {1}, 1, true},
      {"max last", RMAX, {6, 13}, 2, {-1}, 1, false},
      /* Non-contiguous axes, negative and duplicate ones. */
      {"sum 0,2 of 4d", SUM, {3, 4, 5, 6}, 4, {0, 2}, 2, false},
      {"sum 1,3 of 4d", SUM, {3, 4, 5, 6}, 4, {1, -1}, 2, true},
      {"mean dup neg", MEAN, {3, 4, 5, 6}, 4, {-1, 3, 1, -3}, 4, false},
      {"max 0,2 of 4d", RMAX, {2, 3, 4, 5}, 4, {0, 2}, 2, false},
      {"mean 0,3 of 4d", MEAN, {3, 4, 5, 8}, 4, {0, 3}, 2, true},
      {"sum 0,1,3 of 4d", SUM, {2, 3, 4, 5}, 4, {0, 1, 3}, 3, false},
      {"max 1,3 of 4d", RMAX, {3, 2, 3, 2}, 4, {1, 3}, 2, true},
      /* Size-1 dims (nothing left to fold), everything. */
      {"sum over 1s", SUM, {1, 5, 1, 7}, 4, {0, 2}, 2, false},
      {"mean of a dim of 1", MEAN, {3, 1, 7}, 3, {1}, 1, false},
      {"max all", RMAX, {3, 4, 5}, 3, {0, 1, 2}, 3, false},
  };
  run_reduce_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void test_reduce_long(void** state) {
  (void)state;
  static const reduce_case cases[] = {
      /* One output folding 1,000,000 elements (a single contiguous run). */
      {"sum all 1e6", SUM, {1000, 1000}, 2, {0, 1}, 2, false},
      {"mean all 1e6", MEAN, {1000, 1000}, 2, {1, 0}, 2, true},
      /* Long strided folds, innermost kept (scalar and float4). */
      {"sum axis0 100000x7", SUM, {100000, 7}, 2, {0}, 1, false},
      {"mean axis0 65536x8", MEAN, {65536, 8}, 2, {0}, 1, false},
      /* REDUCE_MAX of long runs: one work group per output. */
      {"max last 3x50000", RMAX, {3, 50000}, 2, {1}, 1, false},
      {"max last 2x3x1024", RMAX, {2, 3, 1024}, 3, {2}, 1, true},
      {"max all 1e6", RMAX, {1000, 1000}, 2, {0, 1}, 2, false},
  };
  run_reduce_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* ---- SOFTMAX ------------------------------------------------------------- */

static void test_softmax(void** state) {
  (void)state;
  static const struct {
    const char* name;
    int32_t shape[4];
    int rank;
  } cases[] = {
      {"classifier 1001", {1, 1001}, 2}, /* a work group per row */
      {"rows of 129", {2, 3, 5, 129}, 4},
      {"rows of 4096", {3, 4096}, 2},
      {"rows of 33", {7, 33}, 2}, /* a work item per row */
      {"rows of 1", {4, 1}, 2},
      {"rank 1", {17}, 1},
      {"pixels x 21", {1, 19, 23, 21}, 4},
  };
  TfLiteDelegate* d = make_delegate();
  const TfLiteSoftmaxParams params = {.beta = 1.0f};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    one_op op = {.code = kTfLiteBuiltinSoftmax,
                 .in_rank = cases[i].rank,
                 .out_rank = cases[i].rank,
                 .params = &params};
    memcpy(op.in, cases[i].shape, sizeof(cases[i].shape));
    memcpy(op.out, cases[i].shape, sizeof(cases[i].shape));
    compare(cases[i].name, &op, d);
  }
  TfLiteGpuDelegateV2Delete(d);
}

/* ---- RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR ---------------------------- */

typedef struct resize_case {
  const char* name;
  int32_t n, h, w, c;
  int32_t out_h, out_w;
  bool align_corners, half_pixel;
} resize_case;

static void test_resize(void** state) {
  (void)state;
  static const resize_case cases[] = {
      {"up c3", 1, 5, 7, 3, 9, 13, false, false},
      {"up c3 align", 1, 5, 7, 3, 9, 13, true, false},
      {"up c3 half", 1, 5, 7, 3, 9, 13, false, true},
      {"up x2 c8", 2, 4, 6, 8, 8, 12, false, false},
      {"up x2 c8 half", 2, 4, 6, 8, 8, 12, false, true},
      {"down c4", 2, 8, 8, 4, 3, 5, false, false},
      {"down c4 align", 2, 8, 8, 4, 3, 5, true, false},
      {"down c5 half", 1, 11, 9, 5, 4, 2, false, true},
      {"to 1x1 align", 1, 6, 5, 2, 1, 1, true, false},
      {"from 1x1", 1, 1, 1, 6, 3, 4, false, true},
  };
  static const int32_t codes[2] = {kTfLiteBuiltinResizeBilinear,
                                   kTfLiteBuiltinResizeNearestNeighbor};
  TfLiteDelegate* d = make_delegate();
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    const resize_case* k = &cases[i];
    const TfLiteResizeBilinearParams bilinear = {
        .align_corners = k->align_corners, .half_pixel_centers = k->half_pixel};
    const TfLiteResizeNearestNeighborParams nearest = {
        .align_corners = k->align_corners, .half_pixel_centers = k->half_pixel};
    const int32_t size[2] = {k->out_h, k->out_w};
    for (int j = 0; j < 2; ++j) {
      const one_op op = {
          .code = codes[j],
          .in = {k->n, k->h, k->w, k->c},
          .in_rank = 4,
          .out = {k->n, k->out_h, k->out_w, k->c},
          .out_rank = 4,
          .aux = size,
          .aux_count = 2,
          .params = j == 0 ? (const void*)&bilinear : (const void*)&nearest,
      };
      char name[96];
      snprintf(name, sizeof(name), "%s %s", j == 0 ? "bilinear" : "nearest",
               k->name);
      compare(name, &op, d);
    }
  }
  TfLiteGpuDelegateV2Delete(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pool),        cmocka_unit_test(test_reduce_axes),
      cmocka_unit_test(test_reduce_long), cmocka_unit_test(test_softmax),
      cmocka_unit_test(test_resize),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
