#define _POSIX_C_SOURCE 200809L
/* The GPU delegate's matmul family on OpenCL (PoCL here): FULLY_CONNECTED,
 * BATCH_MATMUL and TRANSPOSE_CONV in one-op models against CPU-only runs,
 * with shapes around the kernels' tiles (blocks of 1, 4 or 8 rows or output
 * columns, 4 or 8 channels, with tails), constant and runtime (packed on
 * the device) operands, the edges of TRANSPOSE_CONV's gather, and the FC
 * layers of two real models. Needs an OpenCL device: without one the tests
 * fail (never skip).
 *
 * Bound: |gpu - cpu| <= 1e-5 * max(1, |cpu|) per element. Inputs lie in
 * [-1, 1) and sums are at most a few hundred terms, so the two summation
 * orders differ by far less than that. */
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
#include "tensorflow/lite/delegates/gpu/delegate.h"

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

/* Seeded values in [-1, 1). */
static void fill(float* v, size_t n, uint32_t seed) {
  for (size_t k = 0; k < n; ++k) {
    seed = seed * 1664525u + 1013904223u;
    v[k] = (float)(seed >> 8) / 8388608.0f - 1.0f;
  }
}

static size_t count_of(const int32_t* shape, int rank) {
  size_t n = 1;
  for (int i = 0; i < rank; ++i) n *= (size_t)shape[i];
  return n;
}

/* ---- Model building ------------------------------------------------------ */

typedef struct built_model {
  void* data;
  size_t size;
  TfLiteModel* model;
} built_model;

static void free_model(built_model* m) {
  TfLiteModelDelete(m->model);
  free(m->data);
}

/* Builds models of one operator whose inputs are runtime tensors (model
 * inputs, in order) or seeded float32 constants. */
typedef struct one_op {
  lg_model_writer* w;
  int32_t inputs[4];
  int num_inputs;
  int32_t runtime[4];
  int num_runtime;
  uint32_t seed;
} one_op;

static void one_op_begin(one_op* b) {
  memset(b, 0, sizeof(*b));
  b->w = lg_model_writer_create(NULL);
  assert_non_null(b->w);
  lg_model_writer_set_auto_versions(b->w, true);
  b->seed = 1234;
}

/* Adds a float32 operand: a runtime model input, or a seeded constant. */
static void one_op_float(one_op* b, const char* name, const int32_t* shape,
                         int rank, bool constant) {
  int32_t t;
  if (constant) {
    const size_t n = count_of(shape, rank);
    float* v = malloc((n > 0 ? n : 1) * sizeof(float));
    fill(v, n, b->seed++);
    t = lg_model_writer_add_const_tensor(b->w, name, kTfLiteFloat32, shape,
                                         rank, v, n * sizeof(float));
    free(v);
  } else {
    const lg_writer_tensor x = {
        .name = name, .type = kTfLiteFloat32, .shape = shape, .num_dims = rank};
    t = lg_model_writer_add_tensor(b->w, &x);
    b->runtime[b->num_runtime++] = t;
  }
  assert_true(t >= 0);
  b->inputs[b->num_inputs++] = t;
}

static void one_op_int32(one_op* b, const char* name, const int32_t* values,
                         int count) {
  const int32_t shape[1] = {count};
  const int32_t t = lg_model_writer_add_const_tensor(
      b->w, name, kTfLiteInt32, shape, 1, values, sizeof(int32_t) * count);
  assert_true(t >= 0);
  b->inputs[b->num_inputs++] = t;
}

static void one_op_omitted(one_op* b) { b->inputs[b->num_inputs++] = -1; }

static void one_op_finish(one_op* b, int32_t code, const void* params,
                          const int32_t* out_shape, int out_rank,
                          built_model* m) {
  const lg_writer_tensor y = {.name = "y",
                              .type = kTfLiteFloat32,
                              .shape = out_shape,
                              .num_dims = out_rank};
  const int32_t out = lg_model_writer_add_tensor(b->w, &y);
  assert_true(lg_model_writer_add_operator(
                  b->w, code, LG_MODEL_WRITER_VERSION_AUTO, b->inputs,
                  b->num_inputs, &out, 1, params) >= 0);
  lg_model_writer_set_inputs(b->w, b->runtime, b->num_runtime);
  lg_model_writer_set_outputs(b->w, &out, 1);
  const char* error = lg_model_writer_error(b->w);
  if (error != NULL) fail_msg("model writer: %s", error);
  assert_int_equal(lg_model_writer_finish(b->w, &m->data, &m->size), kTfLiteOk);
  lg_model_writer_destroy(b->w);
  m->model = TfLiteModelCreate(m->data, m->size);
  assert_non_null(m->model);
}

/* ---- Running and comparing ----------------------------------------------- */

/* Runs the model with seeded inputs; output 0 into *out (malloc'd). */
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
    for (int i = 0; i < TfLiteInterpreterGetInputTensorCount(ip); ++i) {
      TfLiteTensor* t = TfLiteInterpreterGetInputTensor(ip, i);
      fill(TfLiteTensorData(t), TfLiteTensorByteSize(t) / sizeof(float),
           (uint32_t)(7 + 13 * i));
    }
    status = TfLiteInterpreterInvoke(ip);
    const TfLiteTensor* y = TfLiteInterpreterGetOutputTensor(ip, 0);
    *count = TfLiteTensorByteSize(y) / sizeof(float);
    *out = malloc(TfLiteTensorByteSize(y) + 1);
    memcpy(*out, TfLiteTensorData(y), TfLiteTensorByteSize(y));
  }
  TfLiteInterpreterDelete(ip);
  return status;
}

static void expect_close(const char* what, const float* ref, const float* got,
                         size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float bound = 1e-5f * fmaxf(1.0f, fabsf(ref[i]));
    if (!(fabsf(ref[i] - got[i]) <= bound)) {
      fail_msg("%s: element %zu of %zu: cpu %.9g gpu %.9g", what, i, n,
               (double)ref[i], (double)got[i]);
    }
  }
}

/* CPU-only vs delegated. `node` must have been claimed (-1: none must be;
 * then `why` must occur in node 0's reason). */
static void compare(const char* what, TfLiteModel* model, TfLiteDelegate* d,
                    int node, const char* why) {
  float *cpu = NULL, *gpu = NULL;
  size_t nc = 0, ng = 0;
  capture c0 = {{0}, 0}, c1 = {{0}, 0};
  if (run(model, NULL, &c0, &cpu, &nc) != kTfLiteOk) {
    fail_msg("%s: CPU run failed:\n%s", what, c0.text);
  }
  if (run(model, d, &c1, &gpu, &ng) != kTfLiteOk) {
    fail_msg("%s: delegated run failed:\n%s", what, c1.text);
  }
  if (node >= 0) {
    const char* reason = litegpu_gpu_delegate_node_reason(d, node);
    if (reason == NULL || reason[0] != '\0') {
      fail_msg("%s: node %d not claimed: %s", what, node,
               reason ? reason : "(unknown node)");
    }
  } else {
    const char* reason = litegpu_gpu_delegate_node_reason(d, 0);
    assert_int_equal(litegpu_gpu_delegate_num_partitions(d), 0);
    if (reason == NULL || strstr(reason, why) == NULL) {
      fail_msg("%s: node 0's reason '%s' lacks '%s'", what,
               reason ? reason : "(none)", why);
    }
  }
  assert_int_equal(nc, ng);
  assert_true(nc > 0);
  expect_close(what, cpu, gpu, nc);
  free(cpu);
  free(gpu);
}

static int setup(void** state) {
  TfLiteGpuDelegateOptionsV2 o = TfLiteGpuDelegateOptionsV2Default();
  o.max_delegated_partitions = 8;
  TfLiteDelegate* d = TfLiteGpuDelegateV2Create(&o);
  if (d == NULL) return -1; /* no OpenCL device: fail, never skip */
  *state = d;
  return 0;
}

static int teardown(void** state) {
  TfLiteGpuDelegateV2Delete(*state);
  return 0;
}

/* ---- FULLY_CONNECTED ----------------------------------------------------- */

typedef struct fc_case {
  const char* name;
  int32_t in[4];
  int in_rank;
  int out_depth;
  int bias; /* 0: two inputs, 1: constant bias, 2: omitted (-1), 3: runtime */
  bool runtime_weights;
  bool keep_num_dims;
  TfLiteFusedActivation act;
} fc_case;

static void build_fc(const fc_case* c, built_model* m) {
  const int in_depth = c->in[c->in_rank - 1];
  one_op b;
  one_op_begin(&b);
  one_op_float(&b, "x", c->in, c->in_rank, false);
  const int32_t ws[2] = {c->out_depth, in_depth};
  one_op_float(&b, "w", ws, 2, !c->runtime_weights);
  const int32_t bs[1] = {c->out_depth};
  if (c->bias == 1 || c->bias == 3) one_op_float(&b, "b", bs, 1, c->bias == 1);
  if (c->bias == 2) one_op_omitted(&b);
  int32_t out[4];
  int out_rank;
  if (c->keep_num_dims) {
    memcpy(out, c->in, sizeof(out));
    out[c->in_rank - 1] = c->out_depth;
    out_rank = c->in_rank;
  } else {
    out[0] = (int32_t)(count_of(c->in, c->in_rank) / (size_t)in_depth);
    out[1] = c->out_depth;
    out_rank = 2;
  }
  const TfLiteFullyConnectedParams params = {.activation = c->act,
                                             .keep_num_dims = c->keep_num_dims};
  one_op_finish(&b, kTfLiteBuiltinFullyConnected, &params, out, out_rank, m);
}

static void test_fully_connected(void** state) {
  /* clang-format off */
  static const fc_case cases[] = {
      /* name, input, rank, out depth, bias, runtime weights, keep dims, act */
      {"fc 1x16 -> 8 bias", {1, 16}, 2, 8, 1, false, false, kTfLiteActNone},
      {"fc 3x5x7 -> 13 relu", {3, 5, 7}, 3, 13, 1, false, false,
       kTfLiteActRelu},
      {"fc keep 2x3x10 -> 37 relu6", {2, 3, 10}, 3, 37, 0, false, true,
       kTfLiteActRelu6},
      {"fc 5x33 -> 1 omitted bias", {5, 33}, 2, 1, 2, false, false,
       kTfLiteActReluN1To1},
      {"fc 7x100 -> 64 bias", {7, 100}, 2, 64, 1, false, false,
       kTfLiteActNone},
      {"fc runtime weights 4x9 -> 6", {4, 9}, 2, 6, 1, true, false,
       kTfLiteActNone},
      {"fc runtime bias 2x3x19 -> 24 keep", {2, 3, 19}, 3, 24, 3, false, true,
       kTfLiteActRelu},
  };
  /* clang-format on */
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    built_model m;
    build_fc(&cases[i], &m);
    compare(cases[i].name, m.model, *state, 0, NULL);
    free_model(&m);
  }
}

/* ---- BATCH_MATMUL -------------------------------------------------------- */

typedef struct bmm_case {
  const char* name;
  int32_t x[5], y[5];
  int x_rank, y_rank;
  bool adj_x, adj_y, y_const;
  const char* refused; /* NULL: must be claimed */
} bmm_case;

static void build_bmm(const bmm_case* c, built_model* m) {
  one_op b;
  one_op_begin(&b);
  one_op_float(&b, "x", c->x, c->x_rank, false);
  one_op_float(&b, "y", c->y, c->y_rank, c->y_const);
  const int rank = c->x_rank > c->y_rank ? c->x_rank : c->y_rank;
  int32_t out[5];
  for (int d = 0; d < rank - 2; ++d) {
    const int xi = d - (rank - c->x_rank), yi = d - (rank - c->y_rank);
    const int32_t xd = xi >= 0 ? c->x[xi] : 1, yd = yi >= 0 ? c->y[yi] : 1;
    out[d] = xd == 1 ? yd : xd;
  }
  out[rank - 2] = c->adj_x ? c->x[c->x_rank - 1] : c->x[c->x_rank - 2];
  out[rank - 1] = c->adj_y ? c->y[c->y_rank - 2] : c->y[c->y_rank - 1];
  const TfLiteBatchMatMulParams params = {.adj_x = c->adj_x, .adj_y = c->adj_y};
  one_op_finish(&b, kTfLiteBuiltinBatchMatmul, &params, out, rank, m);
}

static void test_batch_matmul(void** state) {
  /* clang-format off */
  static const bmm_case cases[] = {
      /* name, x, y, x rank, y rank, adj_x, adj_y, y constant, refusal */
      {"bmm 3x5 * 5x7", {3, 5}, {5, 7}, 2, 2, false, false, false, NULL},
      {"bmm adj_x 2x6x5 * 2x6x9", {2, 6, 5}, {2, 6, 9}, 3, 3, true, false,
       false, NULL},
      {"bmm adj_y 4x3x8 * 1x10x8", {4, 3, 8}, {1, 10, 8}, 3, 3, false, true,
       false, NULL},
      {"bmm both adj 2x1x4x3 * 1x3x6x4", {2, 1, 4, 3}, {1, 3, 6, 4}, 4, 4,
       true, true, false, NULL},
      {"bmm broadcast 5x4 * 3x4x2", {5, 4}, {3, 4, 2}, 2, 3, false, false,
       false, NULL},
      {"bmm adj_x 3x7x10 * 1x7x5", {3, 7, 10}, {1, 7, 5}, 3, 3, true, false,
       false, NULL},
      {"bmm const 2x9x17 * 17x12", {2, 9, 17}, {17, 12}, 3, 2, false, false,
       true, NULL},
      {"bmm const adj_y 6x40 * 33x40", {6, 40}, {33, 40}, 2, 2, false, true,
       true, NULL},
      /* Rank 5 stops at TFLite's tensor filter (op_support.c), before the
       * lowering's own check. */
      {"bmm rank 5 refused", {2, 1, 1, 3, 4}, {2, 1, 1, 4, 5}, 5, 5, false,
       false, false, "isn't compatible"},
  };
  /* clang-format on */
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    built_model m;
    build_bmm(&cases[i], &m);
    compare(cases[i].name, m.model, *state, cases[i].refused ? -1 : 0,
            cases[i].refused);
    free_model(&m);
  }
}

/* ---- TRANSPOSE_CONV ------------------------------------------------------ */

typedef struct tconv_case {
  const char* name;
  int32_t in[4];  /* NHWC */
  int32_t out[4]; /* NHWC, the output_shape values */
  int kh, kw, sh, sw;
  TfLitePadding padding;
  int bias; /* 0: three inputs, 1: constant bias, 2: omitted (-1) */
  bool runtime_weights;
  TfLiteFusedActivation act;
  const char* refused;
} tconv_case;

static void build_tconv(const tconv_case* c, built_model* m) {
  one_op b;
  one_op_begin(&b);
  one_op_int32(&b, "output_shape", c->out, 4);
  const int32_t ws[4] = {c->out[3], c->kh, c->kw, c->in[3]};
  one_op_float(&b, "w", ws, 4, !c->runtime_weights);
  one_op_float(&b, "x", c->in, 4, false);
  const int32_t bs[1] = {c->out[3]};
  if (c->bias == 1) one_op_float(&b, "b", bs, 1, true);
  if (c->bias == 2) one_op_omitted(&b);
  const TfLiteTransposeConvParams params = {.padding = c->padding,
                                            .stride_width = c->sw,
                                            .stride_height = c->sh,
                                            .activation = c->act};
  one_op_finish(&b, kTfLiteBuiltinTransposeConv, &params, c->out, 4, m);
}

static void test_transpose_conv(void** state) {
  /* clang-format off */
  static const tconv_case cases[] = {
      /* name, input, output, kh, kw, sh, sw, padding, bias, runtime
       * weights, act, refusal */
      {"tconv same s2 3x3 bias", {1, 4, 5, 3}, {1, 8, 10, 6}, 3, 3, 2, 2,
       kTfLitePaddingSame, 1, false, kTfLiteActNone, NULL},
      {"tconv valid s1 2x3", {2, 3, 4, 5}, {2, 4, 6, 4}, 2, 3, 1, 1,
       kTfLitePaddingValid, 0, false, kTfLiteActNone, NULL},
      {"tconv same s3x2 4x4 bias", {1, 3, 7, 8}, {1, 9, 14, 16}, 4, 4, 3, 2,
       kTfLitePaddingSame, 1, false, kTfLiteActNone, NULL},
      {"tconv valid s2 3x3 odd channels", {1, 5, 5, 9}, {1, 11, 11, 7}, 3, 3,
       2, 2, kTfLitePaddingValid, 2, false, kTfLiteActNone, NULL},
      {"tconv valid s1 3x3 wide", {1, 4, 10, 6}, {1, 6, 12, 8}, 3, 3, 1, 1,
       kTfLitePaddingValid, 1, false, kTfLiteActNone, NULL},
      {"tconv same s2 5x5 wide", {2, 3, 9, 5}, {2, 6, 18, 3}, 5, 5, 2, 2,
       kTfLitePaddingSame, 0, false, kTfLiteActNone, NULL},
      {"tconv runtime weights", {1, 3, 3, 4}, {1, 6, 6, 5}, 3, 3, 2, 2,
       kTfLitePaddingSame, 1, true, kTfLiteActNone, NULL},
      /* A fused activation makes version 4, above the GPU's kMaxVersion 3
       * (TFLite's table): it stays on the CPU. */
      {"tconv relu v4 refused", {1, 2, 2, 3}, {1, 4, 4, 3}, 2, 2, 2, 2,
       kTfLitePaddingSame, 1, false, kTfLiteActRelu, "Max version"},
  };
  /* clang-format on */
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    built_model m;
    build_tconv(&cases[i], &m);
    compare(cases[i].name, m.model, *state, cases[i].refused ? -1 : 0,
            cases[i].refused);
    free_model(&m);
  }
}

/* ---- Real models --------------------------------------------------------- */

/* The model's FC nodes must all be claimed (whatever else the GPU runs). */
static void compare_file(void** state, const char* path, const int* fc_nodes,
                         int count) {
  TfLiteModel* model = TfLiteModelCreateFromFile(path);
  if (model == NULL) fail_msg("cannot load %s", path);
  compare(path, model, *state, fc_nodes[0], NULL);
  for (int i = 1; i < count; ++i) {
    assert_string_equal(litegpu_gpu_delegate_node_reason(*state, fc_nodes[i]),
                        "");
  }
  TfLiteModelDelete(model);
}

static void test_models(void** state) {
  static const int hello_fc[] = {0, 1, 2};
  compare_file(
      state, LITEGPU_SHARED_DIR "/models/tflite-micro/hello_world_float.tflite",
      hello_fc, 3);
  static const int kws_fc[] = {10};
  compare_file(state, LITEGPU_SOURCE_DIR "/tests/models/kws_cnn.tflite", kws_fc,
               1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fully_connected),
      cmocka_unit_test(test_batch_matmul),
      cmocka_unit_test(test_transpose_conv),
      cmocka_unit_test(test_models),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
