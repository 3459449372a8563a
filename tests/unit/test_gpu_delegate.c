#define _POSIX_C_SOURCE 200809L
/* The GPU delegate on OpenCL (PoCL here): TFLite's option defaults, every
 * elementwise op of the first slice against CPU-only runs, partitions of
 * mixed graphs, kMaxVersion refusals, and injected OpenCL failures (and
 * two Vulkan ones).
 * Needs an OpenCL device: without one the tests fail (never skip).
 *
 * Bound: |gpu - cpu| <= 1e-5 * max(1, |cpu|) per element for every op,
 * transcendentals included: OpenCL 1.2 allows 3-4 ulp for exp/tanh and
 * 2.5-3 ulp for divide/sqrt, i.e. < 5e-7 relative, well inside 1e-5. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "delegates/opencl/opencl_internal.h"
#include "delegates/vulkan/vulkan_internal.h"
#include "litegpu/gpu_delegate.h"
#include "runtime/kernels/fp16.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tensorflow/lite/delegates/gpu/delegate.h"
#include "tests/support/cache_dir_util.h"
#include "tests/support/test_interpreter.h"
#include "tests/support/vulkan_hold.h"

typedef struct capture {
  char text[32768];
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

typedef struct built_model {
  void* data;
  size_t size;
  TfLiteModel* model;
} built_model;

static void finish_model(lg_model_writer* w, built_model* m) {
  assert_int_equal(lg_model_writer_finish(w, &m->data, &m->size), kTfLiteOk);
  lg_model_writer_destroy(w);
  m->model = TfLiteModelCreate(m->data, m->size);
  assert_non_null(m->model);
}

static void free_model(built_model* m) {
  TfLiteModelDelete(m->model);
  free(m->data);
}

static int32_t tensor(lg_model_writer* w, const char* name,
                      const int32_t* shape, int rank) {
  lg_writer_tensor t = {
      .name = name, .type = kTfLiteFloat32, .shape = shape, .num_dims = rank};
  return lg_model_writer_add_tensor(w, &t);
}

static TfLiteDelegate* make_delegate(int max_partitions) {
  TfLiteGpuDelegateOptionsV2 o = TfLiteGpuDelegateOptionsV2Default();
  o.max_delegated_partitions = max_partitions;
  TfLiteDelegate* d = TfLiteGpuDelegateV2Create(&o);
  assert_non_null(d); /* no OpenCL device: fail, never skip */
  return d;
}

/* How inputs are filled. */
typedef enum fill_mode { FILL_ANY, FILL_NONNEG, FILL_AWAY_FROM_ZERO } fill_mode;

static void fill(float* v, size_t n, uint32_t seed, fill_mode mode) {
  for (size_t k = 0; k < n; ++k) {
    seed = seed * 1664525u + 1013904223u;
    float x = (float)(seed >> 8) / 16777216.0f * 8 - 4;
    if (mode == FILL_NONNEG) x = fabsf(x);
    if (mode == FILL_AWAY_FROM_ZERO && fabsf(x) < 0.25f)
      x += x < 0 ? -0.5f : 0.5f;
    v[k] = x;
  }
}

/* Runs the model; output 0 into *out (malloc'd). */
static TfLiteStatus run(TfLiteModel* model, TfLiteDelegate* delegate,
                        bool fallback, capture* c, const fill_mode* modes,
                        float** out, size_t* count) {
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  TfLiteInterpreterOptionsSetErrorReporter(o, capture_report, c);
  TfLiteInterpreterOptionsSetEnableDelegateFallback(o, fallback);
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
           (uint32_t)(7 + 13 * i), modes ? modes[i] : FILL_ANY);
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

static void expect_close(const float* ref, const float* got, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float bound = 1e-5f * fmaxf(1.0f, fabsf(ref[i]));
    if (!(fabsf(ref[i] - got[i]) <= bound)) {
      fail_msg("element %zu: cpu %.9g gpu %.9g", i, (double)ref[i],
               (double)got[i]);
    }
  }
}

/* CPU-only vs delegated; the delegated run must have claimed
 * `want_partitions` partitions (-1: TFLite's own broadcast rules decide). */
static void compare(TfLiteModel* model, TfLiteDelegate* d,
                    const fill_mode* modes, int want_partitions) {
  float *cpu = NULL, *gpu = NULL;
  size_t nc = 0, ng = 0;
  capture c0 = {{0}, 0}, c1 = {{0}, 0};
  if (run(model, NULL, false, &c0, modes, &cpu, &nc) != kTfLiteOk) {
    fail_msg("CPU run failed:\n%s", c0.text);
  }
  TfLiteStatus s = run(model, d, false, &c1, modes, &gpu, &ng);
  if (s != kTfLiteOk) fail_msg("delegated run failed:\n%s", c1.text);
  if (want_partitions >= 0 &&
      litegpu_gpu_delegate_num_partitions(d) != want_partitions) {
    const char* why = litegpu_gpu_delegate_node_reason(d, 0);
    fail_msg("%d partitions, want %d; node 0: %s",
             litegpu_gpu_delegate_num_partitions(d), want_partitions,
             why ? why : "?");
  }
  assert_int_equal(nc, ng);
  expect_close(cpu, gpu, nc);
  free(cpu);
  free(gpu);
}

static void test_options_defaults(void** state) {
  (void)state;
  TfLiteGpuDelegateOptionsV2 o = TfLiteGpuDelegateOptionsV2Default();
  assert_int_equal(o.is_precision_loss_allowed, -1);
  assert_int_equal(o.inference_preference,
                   TFLITE_GPU_INFERENCE_PREFERENCE_FAST_SINGLE_ANSWER);
  assert_int_equal(o.inference_priority1,
                   TFLITE_GPU_INFERENCE_PRIORITY_MAX_PRECISION);
  assert_int_equal(o.inference_priority2, TFLITE_GPU_INFERENCE_PRIORITY_AUTO);
  assert_int_equal(o.inference_priority3, TFLITE_GPU_INFERENCE_PRIORITY_AUTO);
  assert_int_equal(o.experimental_flags, 1);
  assert_int_equal(o.max_delegated_partitions, 1);
  assert_null(o.serialization_dir);
  assert_null(o.model_token);
  assert_int_equal(offsetof(TfLiteGpuDelegateOptionsV2, experimental_flags) % 8,
                   0);
  /* NULL options are the defaults; Vulkan is refused with a reason. */
  TfLiteDelegate* d = TfLiteGpuDelegateV2Create(NULL);
  assert_non_null(d);
  TfLiteGpuDelegateV2Delete(d);
  TfLiteGpuDelegateV2Delete(NULL);
  litegpu_gpu_delegate_options lo = litegpu_gpu_delegate_options_default();
  char why[2048] = "";
  lo.backend = LITEGPU_GPU_BACKEND_VULKAN; /* lavapipe here */
  d = litegpu_gpu_delegate_create(&lo, why, sizeof(why));
  if (d == NULL) fail_msg("Vulkan: %s", why);
  litegpu_gpu_delegate_stats st;
  assert_int_equal(litegpu_gpu_delegate_get_stats(d, &st), kTfLiteOk);
  assert_string_equal(st.backend, "Vulkan");
  TfLiteGpuDelegateV2Delete(d);
  lo.device_index = 1000;
  assert_null(litegpu_gpu_delegate_create(&lo, why, sizeof(why)));
  assert_non_null(strstr(why, "no usable Vulkan device"));
  lo.backend = LITEGPU_GPU_BACKEND_OPENCL;
  assert_null(litegpu_gpu_delegate_create(&lo, why, sizeof(why)));
  assert_non_null(strstr(why, "no usable OpenCL device"));
  lo.backend = LITEGPU_GPU_BACKEND_AUTO; /* names both reasons */
  assert_null(litegpu_gpu_delegate_create(&lo, why, sizeof(why)));
  assert_non_null(strstr(why, "no usable OpenCL device"));
  assert_non_null(strstr(why, "no usable Vulkan device"));
  lo.backend = (litegpu_gpu_backend)7;
  lo.device_index = 0;
  assert_null(litegpu_gpu_delegate_create(&lo, why, sizeof(why)));
  assert_non_null(strstr(why, "unknown backend"));
}

/* y = op(a, b) with b constant when b_const. */
static void build_binary(built_model* m, int32_t code, const int32_t* sa,
                         int ra, const int32_t* sb, int rb, bool b_const,
                         TfLiteFusedActivation act) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t* so = sa;
  int ro = ra;
  size_t na = 1, nb = 1;
  for (int i = 0; i < ra; ++i) na *= (size_t)sa[i];
  for (int i = 0; i < rb; ++i) nb *= (size_t)sb[i];
  if (nb > na || (nb == na && rb > ra)) {
    so = sb;
    ro = rb;
  }
  int32_t a = tensor(w, "a", sa, ra), b;
  if (b_const) {
    float* v = malloc(nb * sizeof(float));
    fill(v, nb, 99, FILL_AWAY_FROM_ZERO);
    b = lg_model_writer_add_const_tensor(w, "b", kTfLiteFloat32, sb, rb, v,
                                         nb * sizeof(float));
    free(v);
  } else {
    b = tensor(w, "b", sb, rb);
  }
  int32_t y = tensor(w, "y", so, ro);
  TfLiteAddParams add = {.activation = act};
  TfLiteSubParams sub = {.activation = act};
  TfLiteMulParams mul = {.activation = act};
  TfLiteDivParams div = {.activation = act};
  const void* params = NULL;
  if (code == kTfLiteBuiltinAdd) params = &add;
  if (code == kTfLiteBuiltinSub) params = &sub;
  if (code == kTfLiteBuiltinMul) params = &mul;
  if (code == kTfLiteBuiltinDiv) params = &div;
  assert_true(lg_model_writer_add_operator(w, code, 1, (int32_t[]){a, b}, 2, &y,
                                           1, params) >= 0);
  int32_t ins[2] = {a, b};
  lg_model_writer_set_inputs(w, ins, b_const ? 1 : 2);
  lg_model_writer_set_outputs(w, &y, 1);
  finish_model(w, m);
}

static const int32_t kBinaryOps[] = {kTfLiteBuiltinAdd,
                                     kTfLiteBuiltinSub,
                                     kTfLiteBuiltinMul,
                                     kTfLiteBuiltinDiv,
                                     kTfLiteBuiltinMaximum,
                                     kTfLiteBuiltinMinimum,
                                     kTfLiteBuiltinSquaredDifference};

static bool has_activation(int32_t code) {
  return code == kTfLiteBuiltinAdd || code == kTfLiteBuiltinSub ||
         code == kTfLiteBuiltinMul || code == kTfLiteBuiltinDiv;
}

static void test_binary_same_shape_and_activations(void** state) {
  (void)state;
  TfLiteDelegate* d = make_delegate(1);
  static const int32_t sizes[] = {1, 3, 17, 1003};
  static const TfLiteFusedActivation acts[] = {
      kTfLiteActNone, kTfLiteActRelu, kTfLiteActReluN1To1, kTfLiteActRelu6};
  for (size_t o = 0; o < sizeof(kBinaryOps) / sizeof(kBinaryOps[0]); ++o) {
    const int32_t code = kBinaryOps[o];
    const fill_mode modes[2] = {
        FILL_ANY, code == kTfLiteBuiltinDiv ? FILL_AWAY_FROM_ZERO : FILL_ANY};
    for (size_t s = 0; s < 4; ++s) {
      for (size_t a = 0; a < (has_activation(code) ? 4u : 1u); ++a) {
        built_model m;
        const int32_t shape[2] = {1, sizes[s]};
        build_binary(&m, code, shape, 2, shape, 2, false, acts[a]);
        compare(m.model, d, modes, 1);
        free_model(&m);
      }
    }
  }
  TfLiteGpuDelegateV2Delete(d);
}

static void test_binary_broadcasts(void** state) {
  (void)state;
  TfLiteDelegate* d = make_delegate(1);
  const int32_t big[3] = {2, 3, 17}, row[1] = {17}, plane[2] = {3, 17};
  const int32_t scalar1[1] = {1}, ones[3] = {1, 1, 17};
  for (size_t o = 0; o < sizeof(kBinaryOps) / sizeof(kBinaryOps[0]); ++o) {
    const int32_t code = kBinaryOps[o];
    const fill_mode modes[2] = {
        FILL_ANY, code == kTfLiteBuiltinDiv ? FILL_AWAY_FROM_ZERO : FILL_ANY};
    const fill_mode swapped[2] = {FILL_ANY, FILL_ANY};
    built_model m;
    build_binary(&m, code, big, 3, row, 1, false, kTfLiteActRelu6);
    compare(m.model, d, modes, 1);
    free_model(&m);
    /* TFLite's GPU check refuses some rank-changing broadcasts
     * ("Doesn't support broadcasting"); either way the output is right. */
    build_binary(&m, code, big, 3, plane, 2, false, kTfLiteActNone);
    compare(m.model, d, modes, -1);
    free_model(&m);
    build_binary(&m, code, big, 3, scalar1, 1, false, kTfLiteActRelu);
    compare(m.model, d, modes, 1);
    free_model(&m);
    build_binary(&m, code, big, 3, ones, 3, true, kTfLiteActNone);
    compare(m.model, d, modes, 1);
    free_model(&m);
    if (code != kTfLiteBuiltinDiv) {
      build_binary(&m, code, row, 1, big, 3, false, kTfLiteActNone);
      compare(m.model, d, swapped, 1);
      free_model(&m);
    }
  }
  /* Broadcasts along an inner dim take the strided path (here with a
   * constant operand and a fused RELU6 as well). */
  const int32_t col[3] = {2, 3, 1};
  built_model m;
  build_binary(&m, kTfLiteBuiltinAdd, big, 3, col, 3, false, kTfLiteActNone);
  compare(m.model, d, NULL, 1);
  free_model(&m);
  build_binary(&m, kTfLiteBuiltinMul, big, 3, col, 3, true, kTfLiteActRelu6);
  compare(m.model, d, NULL, 1);
  free_model(&m);
  TfLiteGpuDelegateV2Delete(d);
}

static void test_unary_ops(void** state) {
  (void)state;
  static const int32_t codes[] = {
      kTfLiteBuiltinLogistic, kTfLiteBuiltinTanh,      kTfLiteBuiltinRelu,
      kTfLiteBuiltinRelu6,    kTfLiteBuiltinReluN1To1, kTfLiteBuiltinExp,
      kTfLiteBuiltinNeg,      kTfLiteBuiltinAbs,       kTfLiteBuiltinSqrt,
      kTfLiteBuiltinSquare};
  static const int32_t sizes[] = {1, 3, 17, 1003};
  TfLiteDelegate* d = make_delegate(1);
  for (size_t o = 0; o < sizeof(codes) / sizeof(codes[0]); ++o) {
    const fill_mode mode =
        codes[o] == kTfLiteBuiltinSqrt ? FILL_NONNEG : FILL_ANY;
    for (size_t s = 0; s < 4; ++s) {
      lg_model_writer* w = lg_model_writer_create(NULL);
      const int32_t shape[2] = {1, sizes[s]};
      int32_t x = tensor(w, "x", shape, 2), y = tensor(w, "y", shape, 2);
      assert_true(lg_model_writer_add_operator(w, codes[o], 1, &x, 1, &y, 1,
                                               NULL) >= 0);
      lg_model_writer_set_inputs(w, &x, 1);
      lg_model_writer_set_outputs(w, &y, 1);
      built_model m;
      finish_model(w, &m);
      compare(m.model, d, &mode, 1);
      free_model(&m);
    }
  }
  TfLiteGpuDelegateV2Delete(d);
}

/* x -ADD-> t1 -MUL-> t2 -LOG_SOFTMAX-> t3 -MUL-> y over [1,5]; ADD at
 * add_version. LOG_SOFTMAX is not a GPU op: it splits the graph. */
static void build_mixed(built_model* m, int add_version) {
  static const float c[5] = {0.5f, -1.25f, 2, 3.75f, -4};
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t s1[1] = {5}, sx[2] = {1, 5};
  int32_t cst = lg_model_writer_add_const_tensor(w, "c", kTfLiteFloat32, s1, 1,
                                                 c, sizeof(c));
  int32_t x = tensor(w, "x", sx, 2), t1 = tensor(w, "t1", sx, 2);
  int32_t t2 = tensor(w, "t2", sx, 2), t3 = tensor(w, "t3", sx, 2);
  int32_t y = tensor(w, "y", sx, 2);
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, add_version,
                               (int32_t[]){x, cst}, 2, &t1, 1, NULL);
  lg_model_writer_add_operator(w, kTfLiteBuiltinMul, 1, (int32_t[]){t1, cst}, 2,
                               &t2, 1, NULL);
  lg_model_writer_add_operator(w, kTfLiteBuiltinLogSoftmax, 1, &t2, 1, &t3, 1,
                               NULL);
  lg_model_writer_add_operator(w, kTfLiteBuiltinMul, 1, (int32_t[]){t3, cst}, 2,
                               &y, 1, NULL);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  finish_model(w, m);
}

static void test_mixed_graph_partitions(void** state) {
  (void)state;
  built_model m;
  build_mixed(&m, 1);
  TfLiteDelegate* d = make_delegate(1);
  compare(m.model, d, NULL, 1); /* the largest: ADD, MUL */
  assert_string_equal(litegpu_gpu_delegate_node_reason(d, 0), "");
  assert_string_equal(litegpu_gpu_delegate_node_reason(d, 1), "");
  assert_non_null(strstr(litegpu_gpu_delegate_node_reason(d, 2),
                         "Operation is not supported."));
  assert_string_not_equal(litegpu_gpu_delegate_node_reason(d, 3), "");
  TfLiteGpuDelegateV2Delete(d);
  d = make_delegate(0); /* <= 0 is taken as 1, as TFLite */
  compare(m.model, d, NULL, 1);
  TfLiteGpuDelegateV2Delete(d);
  d = make_delegate(4);
  compare(m.model, d, NULL, 2);
  TfLiteGpuDelegateV2Delete(d);
  free_model(&m);
}

/* x -ADD-> t1 -RELU-> t2 -MUL-> y over [1,5]: the interpreter fuses the
 * RELU into the ADD before the delegate sees the plan, so node 1 has no
 * decision while nodes 0 and 2 are claimed. */
static void test_fused_activation_has_no_decision(void** state) {
  (void)state;
  static const float c[5] = {0.5f, -1.25f, 2, 3.75f, -4};
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t s1[1] = {5}, sx[2] = {1, 5};
  int32_t cst = lg_model_writer_add_const_tensor(w, "c", kTfLiteFloat32, s1, 1,
                                                 c, sizeof(c));
  int32_t x = tensor(w, "x", sx, 2), t1 = tensor(w, "t1", sx, 2);
  int32_t t2 = tensor(w, "t2", sx, 2), y = tensor(w, "y", sx, 2);
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, (int32_t[]){x, cst}, 2,
                               &t1, 1, NULL);
  lg_model_writer_add_operator(w, kTfLiteBuiltinRelu, 1, &t1, 1, &t2, 1, NULL);
  lg_model_writer_add_operator(w, kTfLiteBuiltinMul, 1, (int32_t[]){t2, cst}, 2,
                               &y, 1, NULL);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  built_model m;
  finish_model(w, &m);
  TfLiteDelegate* d = make_delegate(4);
  assert_int_equal(litegpu_gpu_delegate_num_nodes(d), 0); /* none yet */
  assert_int_equal(litegpu_gpu_delegate_num_nodes(NULL), -1);
  compare(m.model, d, NULL, 1);
  assert_int_equal(litegpu_gpu_delegate_num_nodes(d), 3);
  assert_string_equal(litegpu_gpu_delegate_node_reason(d, 0), "");
  assert_null(litegpu_gpu_delegate_node_reason(d, 1));
  assert_string_equal(litegpu_gpu_delegate_node_reason(d, 2), "");
  assert_null(litegpu_gpu_delegate_node_reason(d, 3));
  TfLiteGpuDelegateV2Delete(d);
  free_model(&m);
}

/* TFLite's experimental flags: GL_ONLY is refused (no OpenGL ES here),
 * CL_ONLY keeps to OpenCL and contradicts an explicit Vulkan backend. */
static void test_cl_only_and_gl_only_flags(void** state) {
  (void)state;
  litegpu_gpu_delegate_options o = litegpu_gpu_delegate_options_default();
  char why[1024] = "";
  o.tflite.experimental_flags |= TFLITE_GPU_EXPERIMENTAL_FLAGS_GL_ONLY;
  assert_null(litegpu_gpu_delegate_create(&o, why, sizeof(why)));
  assert_non_null(strstr(why, "GL_ONLY asks for OpenGL ES"));
  o = litegpu_gpu_delegate_options_default();
  o.tflite.experimental_flags |= TFLITE_GPU_EXPERIMENTAL_FLAGS_CL_ONLY;
  o.backend = LITEGPU_GPU_BACKEND_VULKAN;
  assert_null(litegpu_gpu_delegate_create(&o, why, sizeof(why)));
  assert_non_null(strstr(why, "CL_ONLY and the Vulkan backend"));
  o.backend = LITEGPU_GPU_BACKEND_AUTO;
  TfLiteDelegate* d = litegpu_gpu_delegate_create(&o, why, sizeof(why));
  if (d == NULL) fail_msg("CL_ONLY: %s", why);
  litegpu_gpu_delegate_stats stats;
  assert_int_equal(litegpu_gpu_delegate_get_stats(d, &stats), kTfLiteOk);
  assert_string_equal(stats.backend, "OpenCL");
  TfLiteGpuDelegateV2Delete(d);
}

/* Programs compiled by one delegate on `model` with the given cache
 * options: how many came from the cache. */
static uint64_t cached_programs(TfLiteModel* model, const char* dir,
                                const char* token, bool flag) {
  litegpu_gpu_delegate_options o = litegpu_gpu_delegate_options_default();
  o.backend = LITEGPU_GPU_BACKEND_OPENCL;
  o.tflite.serialization_dir = dir;
  o.tflite.model_token = token;
  if (flag) {
    o.tflite.experimental_flags |=
        TFLITE_GPU_EXPERIMENTAL_FLAGS_ENABLE_SERIALIZATION;
  }
  char why[1024] = "";
  TfLiteDelegate* d = litegpu_gpu_delegate_create(&o, why, sizeof(why));
  if (d == NULL) fail_msg("OpenCL: %s", why);
  compare(model, d, NULL, 1);
  litegpu_gpu_delegate_stats stats;
  assert_int_equal(litegpu_gpu_delegate_get_stats(d, &stats), kTfLiteOk);
  assert_true(stats.programs_compiled + stats.programs_from_cache > 0);
  TfLiteGpuDelegateV2Delete(d);
  return stats.programs_from_cache;
}

/* TFLite's serialization rule: programs are kept in serialization_dir only
 * with ENABLE_SERIALIZATION and a model_token, and the token keys them. */
static void test_serialization_needs_the_flag_and_a_token(void** state) {
  (void)state;
  char root[512], dir[600];
  assert_int_equal(lg_test_temp_root_create(root, sizeof(root), "gpu_ser"), 0);
  lg_test_make_dir(dir, sizeof(dir), root, "cache");
  built_model m;
  build_mixed(&m, 1);
  assert_int_equal(cached_programs(m.model, dir, "model_a", false), 0);
  assert_int_equal(cached_programs(m.model, dir, NULL, true), 0);
  assert_int_equal(cached_programs(m.model, dir, "", true), 0);
  assert_int_equal(lg_test_cache_files(dir, "litegpu-cl-", NULL, 0), 0);
  assert_int_equal(cached_programs(m.model, dir, "model_a", true), 0);
  const int files = lg_test_cache_files(dir, "litegpu-cl-", NULL, 0);
  assert_true(files > 0);
  assert_int_equal(cached_programs(m.model, dir, "model_a", true),
                   (uint64_t)files);
  /* Another token neither reads nor overwrites model_a's entries. */
  assert_int_equal(cached_programs(m.model, dir, "model_b", true), 0);
  assert_int_equal(lg_test_cache_files(dir, "litegpu-cl-", NULL, 0), 2 * files);
  free_model(&m);
  lg_test_clear_dir(dir);
  lg_test_temp_root_remove(root);
}

static void test_max_version_stays_on_cpu(void** state) {
  (void)state;
  built_model m;
  build_mixed(&m, 3); /* ADD v3 > kMaxVersion 2 */
  TfLiteDelegate* d = make_delegate(4);
  float *cpu = NULL, *gpu = NULL;
  size_t nc = 0, ng = 0;
  capture c = {{0}, 0};
  assert_int_equal(run(m.model, NULL, false, &c, NULL, &cpu, &nc), kTfLiteOk);
  c.length = 0;
  assert_int_equal(run(m.model, d, false, &c, NULL, &gpu, &ng), kTfLiteOk);
  assert_non_null(
      strstr(c.text, "ADD: Max version supported: 2. Requested version 3."));
  assert_non_null(strstr(litegpu_gpu_delegate_node_reason(d, 0),
                         "Max version supported: 2"));
  assert_int_equal(litegpu_gpu_delegate_num_partitions(d), 2);
  assert_int_equal(nc, ng);
  expect_close(cpu, gpu, nc);
  free(cpu);
  free(gpu);
  TfLiteGpuDelegateV2Delete(d);
  free_model(&m);
}

/* A chain of six unary ops on 1000 floats needs two device buffers: each
 * intermediate's lifetime ends as the next one's starts, so the plan
 * alternates two buffers (input and output included). The stats count
 * exactly the partition's input and output bytes per Invoke. */
static void test_memory_plan_and_stats(void** state) {
  (void)state;
  static const int32_t codes[6] = {kTfLiteBuiltinRelu, kTfLiteBuiltinNeg,
                                   kTfLiteBuiltinAbs,  kTfLiteBuiltinNeg,
                                   kTfLiteBuiltinAbs,  kTfLiteBuiltinExp};
  const int32_t shape[2] = {1, 1000};
  lg_model_writer* w = lg_model_writer_create(NULL);
  int32_t t[7];
  for (int i = 0; i < 7; ++i) {
    char name[8];
    snprintf(name, sizeof(name), "t%d", i);
    t[i] = tensor(w, name, shape, 2);
  }
  for (int i = 0; i < 6; ++i) {
    assert_true(lg_model_writer_add_operator(w, codes[i], 1, &t[i], 1,
                                             &t[i + 1], 1, NULL) >= 0);
  }
  lg_model_writer_set_inputs(w, &t[0], 1);
  lg_model_writer_set_outputs(w, &t[6], 1);
  built_model m;
  finish_model(w, &m);
  TfLiteDelegate* d = make_delegate(1);
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsAddDelegate(o, d);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  TfLiteInterpreterOptionsDelete(o);
  assert_non_null(ip);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  float* x = TfLiteTensorData(TfLiteInterpreterGetInputTensor(ip, 0));
  for (int i = 0; i < 1000; ++i) x[i] = (float)(i % 7) * 0.25f - 0.75f;
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  const float* y = TfLiteTensorData(TfLiteInterpreterGetOutputTensor(ip, 0));
  for (int i = 0; i < 1000; ++i) {
    const float v = (float)(i % 7) * 0.25f - 0.75f;
    const float want = expf(v > 0.0f ? v : 0.0f); /* exp(|-relu(v)|) */
    assert_true(fabsf(y[i] - want) <= 1e-5f * fmaxf(1.0f, want));
  }
  litegpu_gpu_delegate_stats st;
  assert_int_equal(litegpu_gpu_delegate_get_stats(d, &st), kTfLiteOk);
  assert_string_equal(st.backend, "OpenCL");
  assert_true(st.device_name[0] != '\0');
  assert_int_equal(st.partitions, 1);
  assert_int_equal(st.nodes_delegated, 6);
  assert_int_equal(st.dispatches_per_invoke, 6);
  assert_int_equal(st.device_bytes, 2 * 4000);
  assert_int_equal(st.bytes_uploaded, 4000);
  assert_int_equal(st.bytes_downloaded, 4000);
  assert_int_equal(st.fp16, 0);
  assert_int_equal(litegpu_gpu_delegate_get_stats(NULL, &st), kTfLiteError);
  assert_int_equal(litegpu_gpu_delegate_get_stats(d, NULL), kTfLiteError);
  TfLiteInterpreterDelete(ip);
  TfLiteGpuDelegateV2Delete(d);
  free_model(&m);
}

/* Float16 weights as converters write them: every weight and bias is a
 * constant FLOAT16 tensor behind a DEQUANTIZE. The CPU kernel converts
 * them in Prepare into read-only tensors (the DEQUANTIZE outputs are
 * kTfLitePersistentRo with their values before any Invoke), so the
 * delegate takes them as constants: all 6 nodes in one partition, and per
 * Invoke only the input and the output cross (on the 4 partitions the
 * refused convolutions made before, the weights crossed too). */
/* A float32 constant of fill(seed) values times `scale`. */
static int32_t float_constant(lg_model_writer* w, const char* name,
                              const int32_t* shape, int rank, uint32_t seed,
                              float scale) {
  size_t count = 1;
  for (int i = 0; i < rank; ++i) count *= (size_t)shape[i];
  float* v = malloc(sizeof(float) * count);
  assert_non_null(v);
  fill(v, count, seed, FILL_ANY);
  for (size_t i = 0; i < count; ++i) v[i] *= scale;
  const int32_t t = lg_model_writer_add_const_tensor(
      w, name, kTfLiteFloat32, shape, rank, v, sizeof(float) * count);
  free(v);
  return t;
}

/* CONV_2D's options for a stride-1 SAME window. */
static const TfLiteConvParams kSameConv = {.padding = kTfLitePaddingSame,
                                           .stride_width = 1,
                                           .stride_height = 1,
                                           .dilation_width_factor = 1,
                                           .dilation_height_factor = 1};

static int32_t f16_constant(lg_model_writer* w, const char* name,
                            const int32_t* shape, int rank, uint32_t seed) {
  int count = 1;
  for (int i = 0; i < rank; ++i) count *= shape[i];
  uint16_t* h = malloc(sizeof(uint16_t) * (size_t)count);
  float* f = malloc(sizeof(float) * (size_t)count);
  fill(f, (size_t)count, seed, FILL_ANY);
  for (int i = 0; i < count; ++i) h[i] = lg_fp32_to_fp16(f[i] * 0.125f);
  const int32_t t = lg_model_writer_add_const_tensor(
      w, name, kTfLiteFloat16, shape, rank, h, sizeof(uint16_t) * count);
  free(h);
  free(f);
  return t;
}

static int32_t dequantized(lg_model_writer* w, const char* name,
                           const int32_t* shape, int rank, uint32_t seed) {
  char half_name[32];
  snprintf(half_name, sizeof(half_name), "%s_f16", name);
  const int32_t h = f16_constant(w, half_name, shape, rank, seed);
  const int32_t f = tensor(w, name, shape, rank);
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinDequantize, 3, &h,
                                           1, &f, 1, NULL) >= 0);
  return f;
}

static void build_f16_weights(built_model* m, int32_t* weights_tensor) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t xs[4] = {1, 8, 8, 3}, ys[4] = {1, 8, 8, 5};
  const int32_t cw[4] = {5, 3, 3, 3}, cb[1] = {5};
  const int32_t dw[4] = {1, 3, 3, 5};
  const int32_t x = tensor(w, "x", xs, 4);
  const int32_t conv_w = dequantized(w, "conv_w", cw, 4, 11);
  *weights_tensor = conv_w;
  const int32_t conv_b = dequantized(w, "conv_b", cb, 1, 12);
  const int32_t dw_w = dequantized(w, "dw_w", dw, 4, 13);
  const int32_t dw_b = dequantized(w, "dw_b", cb, 1, 14);
  const int32_t c = tensor(w, "c", ys, 4), y = tensor(w, "y", ys, 4);
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinConv2d, 1,
                                           (int32_t[]){x, conv_w, conv_b}, 3,
                                           &c, 1, &kSameConv) >= 0);
  TfLiteDepthwiseConvParams dp = {.padding = kTfLitePaddingSame,
                                  .stride_width = 1,
                                  .stride_height = 1,
                                  .depth_multiplier = 1,
                                  .dilation_width_factor = 1,
                                  .dilation_height_factor = 1};
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinDepthwiseConv2d, 1,
                                           (int32_t[]){c, dw_w, dw_b}, 3, &y, 1,
                                           &dp) >= 0);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  finish_model(w, m);
}

static void test_float16_weights_are_constants(void** state) {
  (void)state;
  built_model m;
  int32_t weights = -1;
  build_f16_weights(&m, &weights);
  /* The CPU: converted in Prepare, before any Invoke; the convolution,
   * the one reader, packs it, after which the float32 block is freed
   * (docs/architecture.md, "Constants a kernel copied"). */
  TfLiteInterpreter* cpu = TfLiteInterpreterCreate(m.model, NULL);
  assert_non_null(cpu);
  assert_int_equal(TfLiteInterpreterAllocateTensors(cpu), kTfLiteOk);
  const TfLiteTensor* folded = TfLiteInterpreterGetTensor(cpu, weights);
  assert_int_equal(folded->allocation_type, kTfLitePersistentRo);
  assert_int_equal(folded->bytes, 5 * 3 * 3 * 3 * sizeof(float));
  assert_null(folded->data.raw);
  TfLiteInterpreterDelete(cpu);
  /* The GPU: everything in one partition, only the I/O crosses. */
  TfLiteDelegate* d = make_delegate(1);
  compare(m.model, d, NULL, 1);
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsAddDelegate(o, d);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  TfLiteInterpreterOptionsDelete(o);
  assert_non_null(ip);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  litegpu_gpu_delegate_stats st;
  assert_int_equal(litegpu_gpu_delegate_get_stats(d, &st), kTfLiteOk);
  assert_int_equal(st.partitions, 1);
  assert_int_equal(st.nodes_delegated, 6);
  assert_int_equal(st.bytes_uploaded, 8 * 8 * 3 * sizeof(float));
  assert_int_equal(st.bytes_downloaded, 8 * 8 * 5 * sizeof(float));
  TfLiteInterpreterDelete(ip);
  TfLiteGpuDelegateV2Delete(d);
  free_model(&m);
}

/* The unsupported-ops report: each distinct (op, reason) once, sorted,
 * with a count where nodes share it, in TFLite's GPU wording, and never
 * cut (60 distinct lines, about 2.6 KB: the old report stopped at 2 KB). */
static TfLiteStatus identity_prepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in = &context->tensors[node->inputs->data[0]];
  return context->ResizeTensor(context,
                               &context->tensors[node->outputs->data[0]],
                               TfLiteIntArrayCopy(in->dims));
}

static TfLiteStatus identity_invoke(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in = &context->tensors[node->inputs->data[0]];
  memcpy(context->tensors[node->outputs->data[0]].data.raw, in->data.raw,
         in->bytes);
  return kTfLiteOk;
}

static void test_unsupported_report_is_whole(void** state) {
  (void)state;
  enum { kDistinct = 60, kRepeats = 5 };
  const int32_t shape[2] = {1, 4};
  lg_model_writer* w = lg_model_writer_create(NULL);
  int32_t t = tensor(w, "x", shape, 2);
  const int32_t x = t;
  char name[32];
  for (int i = 0; i < kDistinct + kRepeats; ++i) {
    snprintf(name, sizeof(name), "t%d", i);
    const int32_t next = tensor(w, name, shape, 2);
    snprintf(name, sizeof(name), "OpaqueCpuOnlyOperation%02d",
             i < kDistinct ? i : 0);
    assert_true(lg_model_writer_add_custom_operator(w, name, 1, &t, 1, &next, 1,
                                                    NULL, 0) >= 0);
    t = next;
  }
  const int32_t y = tensor(w, "y", shape, 2);
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1,
                                           (int32_t[]){t, t}, 2, &y, 1,
                                           NULL) >= 0);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  built_model m;
  finish_model(w, &m);
  TfLiteRegistration identity = {0};
  identity.prepare = identity_prepare;
  identity.invoke = identity_invoke;
  capture c = {{0}, 0};
  TfLiteDelegate* d = make_delegate(1);
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetErrorReporter(o, capture_report, &c);
  for (int i = 0; i < kDistinct; ++i) {
    snprintf(name, sizeof(name), "OpaqueCpuOnlyOperation%02d", i);
    TfLiteInterpreterOptionsAddCustomOp(o, name, &identity, 1, 1);
  }
  TfLiteInterpreterOptionsAddDelegate(o, d);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  TfLiteInterpreterOptionsDelete(o);
  if (ip == NULL) fail_msg("creation failed:\n%s", c.text);
  const char* head = strstr(c.text,
                            "Following operations are not supported by GPU "
                            "delegate:\nOpaqueCpuOnlyOperation00: Operation "
                            "is not supported. (6 nodes)\n"
                            "OpaqueCpuOnlyOperation01: Operation is not "
                            "supported.\n");
  if (head == NULL) fail_msg("report:\n%s", c.text);
  const char* tail = strstr(head,
                            "OpaqueCpuOnlyOperation59: Operation is not "
                            "supported.\n1 operations will run on the GPU, "
                            "and the remaining 65 operations will run on the "
                            "CPU.");
  if (tail == NULL) fail_msg("report cut or misordered:\n%s", head);
  /* Each op once: line 00 does not come back. */
  const char* line00 = strstr(head, "OpaqueCpuOnlyOperation00: ");
  assert_null(strstr(line00 + 1, "OpaqueCpuOnlyOperation00: "));
  TfLiteInterpreterDelete(ip);
  TfLiteGpuDelegateV2Delete(d);
  free_model(&m);
}

/* A delegate on Vulkan (lavapipe here: fail, never skip). */
static TfLiteDelegate* make_vulkan_delegate(void) {
  litegpu_gpu_delegate_options o = litegpu_gpu_delegate_options_default();
  o.backend = LITEGPU_GPU_BACKEND_VULKAN;
  char why[2048] = "";
  TfLiteDelegate* d = litegpu_gpu_delegate_create(&o, why, sizeof(why));
  if (d == NULL) fail_msg("Vulkan: %s", why);
  return d;
}

/* One op over a long window: x [1, side, side, in_c] -> CONV_2D (out_c
 * channels, k x k, SAME, weights +-1/sqrt(k * k * in_c)) or, with out_c 0,
 * AVERAGE_POOL_2D over the whole side x side input (VALID). */
static void build_long_window(built_model* m, int side, int in_c, int out_c,
                              int k) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t xs[4] = {1, side, side, in_c};
  const int32_t x = tensor(w, "x", xs, 4);
  int32_t y;
  if (out_c == 0) {
    const int32_t ys[4] = {1, 1, 1, in_c};
    y = tensor(w, "y", ys, 4);
    TfLitePoolParams pp = {.padding = kTfLitePaddingValid,
                           .stride_width = 1,
                           .stride_height = 1,
                           .filter_width = side,
                           .filter_height = side};
    assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinAveragePool2d, 1,
                                             &x, 1, &y, 1, &pp) >= 0);
  } else {
    const int32_t ws[4] = {out_c, k, k, in_c}, bs[1] = {out_c};
    const int32_t ys[4] = {1, side, side, out_c};
    const int32_t wt =
        float_constant(w, "w", ws, 4, 21, 0.25f / sqrtf((float)(k * k * in_c)));
    const int32_t bt = float_constant(w, "b", bs, 1, 22, 1.0f);
    y = tensor(w, "y", ys, 4);
    assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinConv2d, 1,
                                             (int32_t[]){x, wt, bt}, 3, &y, 1,
                                             &kSameConv) >= 0);
  }
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  finish_model(w, m);
}

/* Windows whose loops run past 65535 iterations per invocation: lavapipe
 * (Mesa's llvmpipe) ends a shader's loops there, all loops counted
 * together, and the outputs came out wrong without an error (a 5x5 conv
 * over 896 channels into 13: its fourth quad of channels summed part of
 * the window). The 896-channel conv fits with one quad per work item and
 * must run on the GPU and match; the 2700-channel conv and the 260x260
 * pooling do not fit even so: where the device has the limit they stay on
 * the CPU with a reason naming it, elsewhere they run and match. */
static void test_long_loops_on_vulkan(void** state) {
  (void)state;
  static const int kCases[][4] = {
      {1, 896, 13, 5}, /* side, in_c, out_c (0: pooling), k */
      {5, 2700, 4, 5}, /* output (0, 0) reads the window's last taps */
      {260, 4, 0, 0},
  };
  for (size_t i = 0; i < sizeof(kCases) / sizeof(kCases[0]); ++i) {
    const int* c = kCases[i];
    built_model m;
    build_long_window(&m, c[0], c[1], c[2], c[3]);
    TfLiteDelegate* d = make_vulkan_delegate();
    compare(m.model, d, NULL, i == 0 ? 1 : -1);
    if (litegpu_gpu_delegate_num_partitions(d) == 0) {
      const char* why = litegpu_gpu_delegate_node_reason(d, 0);
      print_message("case %zu stays on the CPU: %s\n", i, why ? why : "?");
      assert_non_null(why);
      assert_non_null(strstr(why,
                             "loop iterations per invocation, over the "
                             "device's limit of 65535"));
    }
    TfLiteGpuDelegateV2Delete(d);
    free_model(&m);
  }
}

/* An injected failure of the first use of `call` after delegate creation,
 * on OpenCL or (`vulkan`) on Vulkan: without the interpreter's fallback an
 * error naming the call, with it the CPU's result. */
/* Where an injected failure may surface. */
typedef enum fault_stage {
  AT_PREPARE,
  AT_INVOKE,
  /* vkQueueSubmit: at Invoke where device memory is host-visible
   * (lavapipe), already at Prepare where constants go through a staging
   * copy (NVIDIA). */
  AT_PREPARE_OR_INVOKE,
} fault_stage;

static void check_fault(const char* call, fault_stage stage, bool vulkan) {
  built_model m;
  build_mixed(&m, 1);
  float *cpu = NULL, *out = NULL;
  size_t nc = 0, n = 0;
  capture c = {{0}, 0};
  assert_int_equal(run(m.model, NULL, false, &c, NULL, &cpu, &nc), kTfLiteOk);
  for (int fallback = 0; fallback < 2; ++fallback) {
    TfLiteDelegate* d = vulkan ? make_vulkan_delegate() : make_delegate(1);
    c.length = 0;
    c.text[0] = '\0';
    if (vulkan) {
      lg_vulkan_fail_call(call, 1);
    } else {
      lg_opencl_fail_call(call, 1);
    }
    TfLiteStatus s = run(m.model, d, fallback, &c, NULL, &out, &n);
    assert_true(vulkan ? lg_vulkan_fail_fired() : lg_opencl_fail_fired());
    lg_vulkan_fail_call(NULL, 0);
    lg_opencl_fail_call(NULL, 0);
    const bool at_invoke =
        stage == AT_INVOKE ||
        (stage == AT_PREPARE_OR_INVOKE &&
         strstr(c.text, "TfLiteGpuDelegate Invoke: ") != NULL);
    const char* where =
        at_invoke ? "TfLiteGpuDelegate Invoke: " : "TfLiteGpuDelegate ";
    if (strstr(c.text, call) == NULL || strstr(c.text, where) == NULL) {
      fail_msg("%s (fallback %d): the log lacks '%s' or '%s':\n%s", call,
               fallback, call, where, c.text);
    }
    if (!fallback) {
      assert_int_equal(s, kTfLiteError);
    } else {
      assert_int_equal(s, at_invoke ? kTfLiteDelegateError : kTfLiteOk);
      assert_int_equal(n, nc);
      expect_close(cpu, out, nc);
    }
    free(out);
    out = NULL;
    TfLiteGpuDelegateV2Delete(d);
  }
  free(cpu);
  free_model(&m);
}

static void test_injected_failures(void** state) {
  (void)state;
  const long live = lg_opencl_live_objects();
  check_fault("clBuildProgram", AT_PREPARE, false);
  check_fault("clCreateBuffer", AT_PREPARE, false);
  check_fault("clEnqueueNDRangeKernel", AT_INVOKE, false);
  check_fault("clEnqueueReadBuffer", AT_INVOKE, false);
  assert_int_equal(lg_opencl_live_objects(), live);
  /* Vulkan creates the partition's pipelines together, at delegate Init
   * (several threads): a failed one still leaves the run to the CPU. */
  const long vk_live = lg_vulkan_live_objects();
  check_fault("vkCreateComputePipelines", AT_PREPARE, true);
  check_fault("vkQueueSubmit", AT_PREPARE_OR_INVOKE, true);
  assert_int_equal(lg_vulkan_live_objects(), vk_live);
}

/* Dispatch profiling over two partitions ({ADD 0, MUL 1} and {MUL 3}, with
 * LOG_SOFTMAX 2 on the CPU): one entry per dispatch naming its node, op and
 * kernel, counting every Invoke while on; re-enabling resets; the outputs
 * stay right while timed. */
static void check_profile_entry(const litegpu_gpu_dispatch_profile* e, int node,
                                const char* op, uint64_t count) {
  assert_int_equal(e->node_index, node);
  assert_string_equal(e->op_name, op);
  assert_true(e->kernel[0] != '\0');
  assert_int_equal(e->count, count);
  if (count > 0) assert_true(e->total_ns > 0);
  if (count == 0) assert_int_equal(e->total_ns, 0);
}

static void test_dispatch_profile(void** state) {
  (void)state;
  built_model m;
  build_mixed(&m, 1);
  float* cpu = NULL;
  size_t nc = 0;
  capture c = {{0}, 0};
  assert_int_equal(run(m.model, NULL, false, &c, NULL, &cpu, &nc), kTfLiteOk);
  TfLiteDelegate* d = make_delegate(4);
  /* On before the partitions exist: they start timed. */
  assert_int_equal(litegpu_gpu_delegate_enable_profiling(d, true), kTfLiteOk);
  assert_int_equal(litegpu_gpu_delegate_dispatch_profile(d, NULL, 0), 0);
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsAddDelegate(o, d);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m.model, o);
  TfLiteInterpreterOptionsDelete(o);
  assert_non_null(ip);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  TfLiteTensor* x = TfLiteInterpreterGetInputTensor(ip, 0);
  fill(TfLiteTensorData(x), 5, 7, FILL_ANY); /* run()'s input 0 */
  for (int i = 0; i < 3; ++i) {
    assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  }
  const TfLiteTensor* y = TfLiteInterpreterGetOutputTensor(ip, 0);
  assert_int_equal(TfLiteTensorByteSize(y), nc * sizeof(float));
  expect_close(cpu, TfLiteTensorData(y), nc);

  litegpu_gpu_dispatch_profile p[4];
  memset(p, 0, sizeof(p));
  assert_int_equal(litegpu_gpu_delegate_dispatch_profile(d, NULL, 0), 3);
  assert_int_equal(litegpu_gpu_delegate_dispatch_profile(d, p, 4), 3);
  /* Partitions in either order; dispatches in run order within one. */
  const int first = p[0].node_index == 0 ? 0 : 1;
  const int second = first == 0 ? 2 : 0;
  check_profile_entry(&p[first], 0, "ADD", 3);
  check_profile_entry(&p[first + 1], 1, "MUL", 3);
  check_profile_entry(&p[second], 3, "MUL", 3);
  assert_int_equal(p[first].partition, p[first + 1].partition);
  assert_int_not_equal(p[first].partition, p[second].partition);
  /* A short array gets the first entries and the full count. */
  litegpu_gpu_dispatch_profile one = {0};
  assert_int_equal(litegpu_gpu_delegate_dispatch_profile(d, &one, 1), 3);
  assert_int_equal(one.node_index, p[0].node_index);

  /* Re-enabling resets; off, Invokes are not timed. */
  assert_int_equal(litegpu_gpu_delegate_enable_profiling(d, true), kTfLiteOk);
  assert_int_equal(litegpu_gpu_delegate_enable_profiling(d, false), kTfLiteOk);
  assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  expect_close(cpu, TfLiteTensorData(y), nc);
  assert_int_equal(litegpu_gpu_delegate_dispatch_profile(d, p, 4), 3);
  check_profile_entry(&p[first], 0, "ADD", 0);
  check_profile_entry(&p[second], 3, "MUL", 0);

  assert_int_equal(litegpu_gpu_delegate_enable_profiling(NULL, true),
                   kTfLiteError);
  assert_int_equal(litegpu_gpu_delegate_dispatch_profile(NULL, p, 4), -1);
  TfLiteInterpreterDelete(ip);
  TfLiteGpuDelegateV2Delete(d);
  free(cpu);
  free_model(&m);
}

/* The weights of a hybrid LSTM: INT8 values k % 7 - 3 of scale 0.02, zero
 * point 0 (LSTM_HYBRID), or those values dequantized into a float32
 * constant (LSTM_DEQUANTIZED: the float LSTM the GPU must compute). */
typedef enum lstm_weights {
  LSTM_FLOAT,
  LSTM_HYBRID,
  LSTM_DEQUANTIZED
} lstm_weights;

static const float kLstmWeightScale = 0.02f;

static int8_t lstm_int8_value(size_t k) { return (int8_t)((int)(k % 7) - 3); }

static int32_t int8_constant(lg_model_writer* w, const int32_t* shape) {
  int8_t v[16];
  const size_t count = (size_t)shape[0] * (size_t)shape[1];
  assert_true(count <= sizeof(v));
  for (size_t k = 0; k < count; ++k) v[k] = lstm_int8_value(k);
  static const int64_t zero = 0;
  const lg_writer_quantization q = {.scale = &kLstmWeightScale,
                                    .num_scale = 1,
                                    .zero_point = &zero,
                                    .num_zero_point = 1};
  lg_writer_tensor t = {.name = "wq",
                        .type = kTfLiteInt8,
                        .shape = shape,
                        .num_dims = 2,
                        .buffer = lg_model_writer_add_buffer(w, v, count),
                        .quantization = &q};
  return lg_model_writer_add_tensor(w, &t);
}

static int32_t dequantized_constant(lg_model_writer* w, const int32_t* shape) {
  float v[16];
  const size_t count = (size_t)shape[0] * (size_t)shape[1];
  assert_true(count <= sizeof(v) / sizeof(v[0]));
  for (size_t k = 0; k < count; ++k) {
    v[k] = (float)lstm_int8_value(k) * kLstmWeightScale;
  }
  return lg_model_writer_add_const_tensor(w, "wd", kTfLiteFloat32, shape, 2, v,
                                          sizeof(float) * count);
}

static int32_t lstm_weight(lg_model_writer* w, lstm_weights kind,
                           const char* name, const int32_t* shape,
                           uint32_t seed) {
  switch (kind) {
    case LSTM_HYBRID:
      return int8_constant(w, shape);
    case LSTM_DEQUANTIZED:
      return dequantized_constant(w, shape);
    default:
      return float_constant(w, name, shape, 2, seed, 0.15f);
  }
}

/* x[1,3] -LSTM (CIFG, 4 cells, no projection)-> y[1,4], its states in
 * variable tensors (output state 18, cell state 19); LSTM_HYBRID's weight
 * matrices are INT8 (version 3). */
static void build_lstm(built_model* m, lstm_weights kind) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t sx[2] = {1, 3}, sh[2] = {1, 4}, sw[2] = {4, 3};
  const int32_t sr[2] = {4, 4}, sb[1] = {4};
  int32_t in[20];
  for (int i = 0; i < 20; ++i) in[i] = -1;
  in[0] = tensor(w, "x", sx, 2);
  for (int g = 1; g < 4; ++g) {
    in[1 + g] = lstm_weight(w, kind, "wx", sw, 100u + (uint32_t)g);
    in[5 + g] = lstm_weight(w, kind, "wh", sr, 200u + (uint32_t)g);
    in[12 + g] = float_constant(w, "b", sb, 1, 300u + (uint32_t)g, 0.1f);
  }
  lg_writer_tensor h = {.name = "h",
                        .type = kTfLiteFloat32,
                        .shape = sh,
                        .num_dims = 2,
                        .is_variable = true};
  lg_writer_tensor c = h;
  c.name = "c";
  in[18] = lg_model_writer_add_tensor(w, &h);
  in[19] = lg_model_writer_add_tensor(w, &c);
  const int32_t y = tensor(w, "y", sh, 2);
  const TfLiteLSTMParams p = {.activation = kTfLiteActTanh,
                              .kernel_type = kTfLiteLSTMFullKernel};
  lg_model_writer_add_operator(w, kTfLiteBuiltinLstm,
                               kind == LSTM_HYBRID ? 3 : 1, in, 20, &y, 1, &p);
  lg_model_writer_set_inputs(w, &in[0], 1);
  lg_model_writer_set_outputs(w, &y, 1);
  finish_model(w, m);
}

/* Invokes `ip` `steps` times on x and copies y into out[4]. */
static void lstm_steps(TfLiteInterpreter* ip, int steps, float out[4]) {
  static const float x[3] = {0.5f, -1.0f, 0.25f};
  memcpy(TfLiteTensorData(TfLiteInterpreterGetInputTensor(ip, 0)), x,
         sizeof(x));
  for (int k = 0; k < steps; ++k) {
    assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
  }
  memcpy(out, TfLiteTensorData(TfLiteInterpreterGetOutputTensor(ip, 0)),
         4 * sizeof(float));
}

static TfLiteInterpreter* lstm_interpreter(TfLiteModel* model,
                                           TfLiteDelegate* d) {
  TfLiteInterpreter* ip = lg_test_interpreter(model, d, false);
  assert_non_null(ip);
  return ip;
}

/* The GPU's LSTM keeps the CPU's variable tensors as the state: after each
 * Invoke the output state holds the output, a second step differs from
 * the first as on the CPU, and ResetVariableTensors starts over. */
static void test_lstm_state_follows_variable_tensors(void** state) {
  (void)state;
  built_model m;
  build_lstm(&m, LSTM_FLOAT);
  TfLiteDelegate* d = make_delegate(1);
  TfLiteInterpreter* cpu = lstm_interpreter(m.model, NULL);
  TfLiteInterpreter* gpu = lstm_interpreter(m.model, d);
  assert_int_equal(litegpu_gpu_delegate_num_partitions(d), 1);
  float c1[4], c2[4], g1[4], g2[4], g3[4];
  lstm_steps(cpu, 1, c1);
  lstm_steps(cpu, 1, c2);
  lstm_steps(gpu, 1, g1);
  expect_close(c1, g1, 4);
  assert_int_equal(TfLiteInterpreterGetVariableTensorCount(gpu), 2);
  const TfLiteTensor* h = TfLiteInterpreterGetVariableTensor(gpu, 0);
  expect_close(g1, TfLiteTensorData(h), 4);
  lstm_steps(gpu, 1, g2);
  expect_close(c2, g2, 4);
  assert_true(fabsf(g2[0] - g1[0]) > 1e-3f); /* the state moved it */
  assert_int_equal(TfLiteInterpreterResetVariableTensors(gpu), kTfLiteOk);
  lstm_steps(gpu, 1, g3);
  expect_close(g1, g3, 4);
  TfLiteInterpreterDelete(gpu);
  TfLiteInterpreterDelete(cpu);
  TfLiteGpuDelegateV2Delete(d);
  free_model(&m);
}

/* A hybrid LSTM (INT8 weights) runs on the GPU as TFLite's GPU delegate
 * runs it: the weights dequantized once, everything computed in float, so
 * its steps are the CPU's float LSTM over the dequantized weights (the
 * CPU's hybrid kernel, which quantizes the input and state too, differs
 * from both). */
static void test_hybrid_lstm_runs_dequantized(void** state) {
  (void)state;
  built_model hybrid, dequantized;
  build_lstm(&hybrid, LSTM_HYBRID);
  build_lstm(&dequantized, LSTM_DEQUANTIZED);
  TfLiteDelegate* d = make_delegate(1);
  TfLiteInterpreter* gpu = lstm_interpreter(hybrid.model, d);
  TfLiteInterpreter* cpu = lstm_interpreter(dequantized.model, NULL);
  assert_int_equal(litegpu_gpu_delegate_num_partitions(d), 1);
  float c1[4], c2[4], g1[4], g2[4];
  lstm_steps(cpu, 1, c1);
  lstm_steps(cpu, 1, c2);
  lstm_steps(gpu, 1, g1);
  lstm_steps(gpu, 1, g2);
  expect_close(c1, g1, 4);
  expect_close(c2, g2, 4);
  assert_true(fabsf(g2[0] - g1[0]) > 1e-3f); /* the state moved it */
  TfLiteInterpreterDelete(cpu);
  TfLiteInterpreterDelete(gpu);
  TfLiteGpuDelegateV2Delete(d);
  free_model(&dequantized);
  free_model(&hybrid);
}

/* How a BASIC LSTM's state inputs (prev_activation, prev_state) are
 * given: variable tensors, graph inputs, or one variable as both. */
typedef enum basic_states {
  BASIC_VARIABLES,
  BASIC_INPUTS,
  BASIC_SHARED
} basic_states;

/* x[1,3] -LSTM (BASIC kernel type, depth 4)-> activation, state,
 * concat_temp, activation_temp. */
static void build_basic_lstm(built_model* m, basic_states states) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  const int32_t sx[2] = {1, 3}, sh[2] = {1, 4}, sw[2] = {16, 7};
  const int32_t sb[1] = {16}, sc[2] = {1, 7}, sg[2] = {1, 16};
  lg_writer_tensor state = {.name = "h",
                            .type = kTfLiteFloat32,
                            .shape = sh,
                            .num_dims = 2,
                            .is_variable = states != BASIC_INPUTS};
  int32_t in[5];
  in[0] = tensor(w, "x", sx, 2);
  in[1] = lg_model_writer_add_tensor(w, &state);
  in[2] = float_constant(w, "w", sw, 2, 400u, 0.3f);
  in[3] = float_constant(w, "b", sb, 1, 401u, 0.1f);
  state.name = "c";
  in[4] =
      states == BASIC_SHARED ? in[1] : lg_model_writer_add_tensor(w, &state);
  const int32_t out[4] = {tensor(w, "activation", sh, 2),
                          tensor(w, "state", sh, 2), tensor(w, "concat", sc, 2),
                          tensor(w, "gates", sg, 2)};
  const TfLiteLSTMParams p = {.activation = kTfLiteActTanh,
                              .kernel_type = kTfLiteLSTMBasicKernel};
  lg_model_writer_add_operator(w, kTfLiteBuiltinLstm, 2, in, 5, out, 4, &p);
  const int32_t graph_inputs[3] = {in[0], in[1], in[4]};
  lg_model_writer_set_inputs(w, graph_inputs, states == BASIC_INPUTS ? 3 : 1);
  lg_model_writer_set_outputs(w, out, 4);
  finish_model(w, m);
}

/* The BASIC kernel writes the new activation and state back into its
 * state inputs: the GPU takes it when they are two variable tensors (the
 * values are the conformance suite's) and otherwise leaves it on the CPU
 * with the reason, where it runs. */
static void test_basic_lstm_states(void** state) {
  (void)state;
  static const struct {
    basic_states states;
    const char* reason; /* NULL: claimed */
  } kCases[] = {
      {BASIC_VARIABLES, NULL},
      {BASIC_INPUTS, "must be variable tensors"},
      {BASIC_SHARED, "must be distinct tensors"},
  };
  for (size_t i = 0; i < sizeof(kCases) / sizeof(kCases[0]); ++i) {
    built_model m;
    build_basic_lstm(&m, kCases[i].states);
    TfLiteDelegate* d = make_delegate(1);
    TfLiteInterpreter* ip = lstm_interpreter(m.model, d);
    if (kCases[i].reason == NULL) {
      assert_int_equal(litegpu_gpu_delegate_num_partitions(d), 1);
    } else {
      assert_int_equal(litegpu_gpu_delegate_num_partitions(d), 0);
      const char* why = litegpu_gpu_delegate_node_reason(d, 0);
      if (why == NULL || strstr(why, kCases[i].reason) == NULL) {
        fail_msg("case %zu: %s", i, why ? why : "(no reason)");
      }
    }
    assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
    TfLiteInterpreterDelete(ip);
    TfLiteGpuDelegateV2Delete(d);
    free_model(&m);
  }
}

int main(void) {
  lg_test_hold_vulkan_libraries(); /* see tests/support/vulkan_hold.h */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_options_defaults),
      cmocka_unit_test(test_binary_same_shape_and_activations),
      cmocka_unit_test(test_binary_broadcasts),
      cmocka_unit_test(test_unary_ops),
      cmocka_unit_test(test_mixed_graph_partitions),
      cmocka_unit_test(test_fused_activation_has_no_decision),
      cmocka_unit_test(test_cl_only_and_gl_only_flags),
      cmocka_unit_test(test_serialization_needs_the_flag_and_a_token),
      cmocka_unit_test(test_max_version_stays_on_cpu),
      cmocka_unit_test(test_memory_plan_and_stats),
      cmocka_unit_test(test_float16_weights_are_constants),
      cmocka_unit_test(test_unsupported_report_is_whole),
      cmocka_unit_test(test_long_loops_on_vulkan),
      cmocka_unit_test(test_injected_failures),
      cmocka_unit_test(test_dispatch_profile),
      cmocka_unit_test(test_lstm_state_follows_variable_tensors),
      cmocka_unit_test(test_hybrid_lstm_runs_dequantized),
      cmocka_unit_test(test_basic_lstm_states),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
