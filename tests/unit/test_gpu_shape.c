#define _POSIX_C_SOURCE 200809L
/* The GPU delegate's shape family (delegates/gpu/lower_shape.c) on OpenCL
 * (PoCL here): every op against a CPU-only run of the same one-op model,
 * with parameter variants and odd sizes, each node asserted claimed; a
 * chain through RESHAPE aliases; refusals with reasons; GATHER's clamp of
 * runtime indices out of range, checked against hand-derived values.
 * Needs an OpenCL device: without one the tests fail (never skip).
 *
 * Bound: |gpu - cpu| <= 1e-5 * max(1, |cpu|) per element (these ops only
 * move floats, so any difference is a wrong element). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "delegates/backend/gpu_backend.h"
#include "delegates/gpu/lower_shape_internal.h"
#include "delegates/opencl/opencl_backend.h"
#include "litegpu/gpu_delegate.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tensorflow/lite/delegates/gpu/delegate.h"

#define MAX_IO 8

/* One delegate for every case, so each kernel variant compiles once. */
static TfLiteDelegate* g_delegate;

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

/* ---- Building one-op models ---------------------------------------------- */

typedef struct op_model {
  lg_model_writer* w;
  int32_t inputs[MAX_IO]; /* the op's inputs (-1: omitted) */
  int num_inputs;
  int32_t graph_inputs[MAX_IO];
  int num_graph_inputs;
  int32_t outputs[MAX_IO];
  int num_outputs;
  void* data;
  size_t size;
  TfLiteModel* model;
  const int32_t* int_fill; /* values of int32 graph inputs (cycled) */
  int int_fill_count;
} op_model;

static void om_begin(op_model* m) {
  memset(m, 0, sizeof(*m));
  m->w = lg_model_writer_create(NULL);
  assert_non_null(m->w);
}

static int32_t om_tensor(op_model* m, TfLiteType type, const int32_t* shape,
                         int rank) {
  lg_writer_tensor t = {
      .name = "t", .type = type, .shape = shape, .num_dims = rank};
  const int32_t index = lg_model_writer_add_tensor(m->w, &t);
  assert_true(index >= 0);
  return index;
}

/* A runtime input of the graph and the op. */
static void om_input(op_model* m, TfLiteType type, const int32_t* shape,
                     int rank) {
  const int32_t t = om_tensor(m, type, shape, rank);
  m->graph_inputs[m->num_graph_inputs++] = t;
  m->inputs[m->num_inputs++] = t;
}

static void om_const_ints(op_model* m, const int32_t* shape, int rank,
                          const int32_t* values, size_t count) {
  const int32_t t = lg_model_writer_add_const_tensor(
      m->w, "c", kTfLiteInt32, shape, rank, values, count * sizeof(int32_t));
  assert_true(t >= 0);
  m->inputs[m->num_inputs++] = t;
}

static void om_const_int1(op_model* m, const int32_t* values, int count) {
  om_const_ints(m, (int32_t[]){count}, 1, values, (size_t)count);
}

static float value_at(uint32_t seed, size_t k) {
  uint32_t x = seed * 2654435761u + (uint32_t)k * 40503u + 12345u;
  x ^= x >> 13;
  x *= 1664525u;
  x ^= x >> 16;
  return (float)(x % 20001u) / 1000.0f - 10.0f;
}

static void om_const_floats(op_model* m, const int32_t* shape, int rank,
                            uint32_t seed) {
  size_t n = 1;
  for (int i = 0; i < rank; ++i) n *= (size_t)shape[i];
  float* v = malloc((n ? n : 1) * sizeof(float));
  for (size_t k = 0; k < n; ++k) v[k] = value_at(seed, k);
  const int32_t t = lg_model_writer_add_const_tensor(
      m->w, "f", kTfLiteFloat32, shape, rank, v, n * sizeof(float));
  free(v);
  assert_true(t >= 0);
  m->inputs[m->num_inputs++] = t;
}

/* An output; the CPU's Prepare gives it its final shape. */
static void om_output(op_model* m) {
  m->outputs[m->num_outputs++] =
      om_tensor(m, kTfLiteFloat32, (int32_t[]){1}, 1);
}

static void om_finish(op_model* m, int32_t code, const void* params) {
  assert_true(lg_model_writer_add_operator(m->w, code, 1, m->inputs,
                                           m->num_inputs, m->outputs,
                                           m->num_outputs, params) >= 0);
  lg_model_writer_set_inputs(m->w, m->graph_inputs, m->num_graph_inputs);
  lg_model_writer_set_outputs(m->w, m->outputs, m->num_outputs);
  assert_int_equal(lg_model_writer_finish(m->w, &m->data, &m->size), kTfLiteOk);
  lg_model_writer_destroy(m->w);
  m->w = NULL;
  m->model = TfLiteModelCreate(m->data, m->size);
  assert_non_null(m->model);
}

static void om_free(op_model* m) {
  TfLiteModelDelete(m->model);
  free(m->data);
}

/* ---- Running ------------------------------------------------------------- */

typedef struct outputs {
  float* values[MAX_IO];
  size_t counts[MAX_IO];
  int n;
} outputs;

static void outputs_free(outputs* o) {
  for (int i = 0; i < o->n; ++i) free(o->values[i]);
  o->n = 0;
}

static TfLiteInterpreter* create(const op_model* m, TfLiteDelegate* d,
                                 capture* c) {
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  TfLiteInterpreterOptionsSetErrorReporter(o, capture_report, c);
  if (d != NULL) TfLiteInterpreterOptionsAddDelegate(o, d);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(m->model, o);
  TfLiteInterpreterOptionsDelete(o);
  return ip;
}

/* Seeded float inputs; int32 inputs cycle through m->int_fill. */
static void fill_inputs(const op_model* m, TfLiteInterpreter* ip) {
  for (int i = 0; i < TfLiteInterpreterGetInputTensorCount(ip); ++i) {
    TfLiteTensor* t = TfLiteInterpreterGetInputTensor(ip, i);
    if (TfLiteTensorType(t) == kTfLiteInt32) {
      int32_t* v = TfLiteTensorData(t);
      const size_t n = TfLiteTensorByteSize(t) / sizeof(int32_t);
      for (size_t k = 0; k < n; ++k) {
        v[k] = m->int_fill[k % (size_t)m->int_fill_count];
      }
    } else {
      float* v = TfLiteTensorData(t);
      const size_t n = TfLiteTensorByteSize(t) / sizeof(float);
      for (size_t k = 0; k < n; ++k) v[k] = value_at(7u + 13u * (uint32_t)i, k);
    }
  }
}

static TfLiteStatus run(const op_model* m, TfLiteDelegate* d, capture* c,
                        outputs* out) {
  memset(out, 0, sizeof(*out));
  TfLiteInterpreter* ip = create(m, d, c);
  if (ip == NULL) return kTfLiteError;
  TfLiteStatus status = TfLiteInterpreterAllocateTensors(ip);
  if (status == kTfLiteOk) {
    fill_inputs(m, ip);
    status = TfLiteInterpreterInvoke(ip);
  }
  for (int i = 0; status == kTfLiteOk &&
                  i < TfLiteInterpreterGetOutputTensorCount(ip) && i < MAX_IO;
       ++i) {
    const TfLiteTensor* y = TfLiteInterpreterGetOutputTensor(ip, i);
    const size_t bytes = TfLiteTensorByteSize(y);
    out->values[i] = malloc(bytes + 1);
    if (bytes > 0) memcpy(out->values[i], TfLiteTensorData(y), bytes);
    out->counts[i] = bytes / sizeof(float);
    out->n = i + 1;
  }
  TfLiteInterpreterDelete(ip);
  return status;
}

/* CPU-only vs delegated: the delegated run must have claimed the op
 * (one partition, node 0 without a reason), and every output agree. */
static void compare(const char* name, const op_model* m) {
  outputs cpu, gpu;
  capture c0 = {{0}, 0}, c1 = {{0}, 0};
  if (run(m, NULL, &c0, &cpu) != kTfLiteOk) {
    fail_msg("%s: CPU run failed:\n%s", name, c0.text);
  }
  if (run(m, g_delegate, &c1, &gpu) != kTfLiteOk) {
    fail_msg("%s: delegated run failed:\n%s", name, c1.text);
  }
  const char* why = litegpu_gpu_delegate_node_reason(g_delegate, 0);
  if (litegpu_gpu_delegate_num_partitions(g_delegate) != 1 || why == NULL ||
      why[0] != '\0') {
    fail_msg("%s: not claimed (%d partitions): %s", name,
             litegpu_gpu_delegate_num_partitions(g_delegate), why ? why : "?");
  }
  assert_int_equal(cpu.n, gpu.n);
  for (int o = 0; o < cpu.n; ++o) {
    if (cpu.counts[o] != gpu.counts[o]) {
      fail_msg("%s: output %d has %zu elements on the CPU, %zu on the GPU",
               name, o, cpu.counts[o], gpu.counts[o]);
    }
    for (size_t i = 0; i < cpu.counts[o]; ++i) {
      const float r = cpu.values[o][i], g = gpu.values[o][i];
      if (!(fabsf(r - g) <= 1e-5f * fmaxf(1.0f, fabsf(r)))) {
        fail_msg("%s: output %d element %zu: cpu %.9g gpu %.9g", name, o, i,
                 (double)r, (double)g);
      }
    }
  }
  outputs_free(&cpu);
  outputs_free(&gpu);
}

/* The delegate refuses node 0 with a reason containing `part`. */
static void expect_refused(const char* name, const op_model* m,
                           const char* part) {
  capture c = {{0}, 0};
  TfLiteInterpreter* ip = create(m, g_delegate, &c);
  if (ip == NULL) fail_msg("%s: creation failed:\n%s", name, c.text);
  const char* why = litegpu_gpu_delegate_node_reason(g_delegate, 0);
  if (litegpu_gpu_delegate_num_partitions(g_delegate) != 0 || why == NULL ||
      strstr(why, part) == NULL) {
    fail_msg("%s: want refusal with '%s', got %d partitions, reason '%s'", name,
             part, litegpu_gpu_delegate_num_partitions(g_delegate),
             why ? why : "(null)");
  }
  TfLiteInterpreterDelete(ip);
}

/* ---- Cases -----------------------------------------------------------------
 */

static void test_reshape_squeeze_alias(void** state) {
  (void)state;
  op_model m;
  om_begin(&m);
  om_input(&m, kTfLiteFloat32, (int32_t[]){2, 3, 5}, 3);
  om_const_int1(&m, (int32_t[]){6, 5}, 2);
  om_output(&m);
  TfLiteReshapeParams rp = {.shape = {6, 5}, .num_dimensions = 2};
  om_finish(&m, kTfLiteBuiltinReshape, &rp);
  compare("RESHAPE [2,3,5]->[6,5]", &m);
  om_free(&m);

  om_begin(&m);
  om_input(&m, kTfLiteFloat32, (int32_t[]){1, 7, 1, 3}, 4);
  om_output(&m);
  TfLiteSqueezeParams sp = {.num_squeeze_dims = 0};
  om_finish(&m, kTfLiteBuiltinSqueeze, &sp);
  compare("SQUEEZE [1,7,1,3]", &m);
  om_free(&m);
}

/* TRANSPOSE -> RESHAPE -> SLICE in one partition: the alias sits between
 * two dispatches. */
static void test_alias_inside_partition(void** state) {
  (void)state;
  lg_model_writer* w = lg_model_writer_create(NULL);
  op_model m;
  memset(&m, 0, sizeof(m));
  m.w = w;
  const int32_t x = om_tensor(&m, kTfLiteFloat32, (int32_t[]){1, 4, 3, 5}, 4);
  const int32_t t1 = om_tensor(&m, kTfLiteFloat32, (int32_t[]){1, 5, 4, 3}, 4);
  const int32_t t2 = om_tensor(&m, kTfLiteFloat32, (int32_t[]){1, 5, 12}, 3);
  const int32_t y = om_tensor(&m, kTfLiteFloat32, (int32_t[]){1, 3, 7}, 3);
  const int32_t perm = lg_model_writer_add_const_tensor(
      w, "perm", kTfLiteInt32, (int32_t[]){4}, 1, (int32_t[]){0, 3, 1, 2}, 16);
  const int32_t shape = lg_model_writer_add_const_tensor(
      w, "shape", kTfLiteInt32, (int32_t[]){3}, 1, (int32_t[]){1, 5, 12}, 12);
  const int32_t begin = lg_model_writer_add_const_tensor(
      w, "begin", kTfLiteInt32, (int32_t[]){3}, 1, (int32_t[]){0, 1, 2}, 12);
  const int32_t size = lg_model_writer_add_const_tensor(
      w, "size", kTfLiteInt32, (int32_t[]){3}, 1, (int32_t[]){1, 3, 7}, 12);
  TfLiteReshapeParams rp = {.shape = {1, 5, 12}, .num_dimensions = 3};
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinTranspose, 1,
                                           (int32_t[]){x, perm}, 2, &t1, 1,
                                           NULL) >= 0);
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinReshape, 1,
                                           (int32_t[]){t1, shape}, 2, &t2, 1,
                                           &rp) >= 0);
  assert_true(lg_model_writer_add_operator(w, kTfLiteBuiltinSlice, 1,
                                           (int32_t[]){t2, begin, size}, 3, &y,
                                           1, NULL) >= 0);
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  assert_int_equal(lg_model_writer_finish(w, &m.data, &m.size), kTfLiteOk);
  lg_model_writer_destroy(w);
  m.model = TfLiteModelCreate(m.data, m.size);
  assert_non_null(m.model);
  compare("TRANSPOSE->RESHAPE->SLICE", &m);
  for (int n = 1; n < 3; ++n) {
    assert_string_equal(litegpu_gpu_delegate_node_reason(g_delegate, n), "");
  }
  om_free(&m);
}

static void test_concatenation(void** state) {
  (void)state;
  static const int32_t axes[] = {0, 1, 2, 3, -1, -3};
  for (size_t a = 0; a < sizeof(axes) / sizeof(axes[0]); ++a) {
    const int axis = axes[a] < 0 ? axes[a] + 4 : axes[a];
    op_model m;
    om_begin(&m);
    for (int i = 0; i < 3; ++i) {
      int32_t shape[4] = {2, 3, 5, 7};
      shape[axis] = 1 + 2 * i; /* 1, 3, 5 */
      if (i == 1) {
        om_const_floats(&m, shape, 4, 99); /* a constant input */
      } else {
        om_input(&m, kTfLiteFloat32, shape, 4);
      }
    }
    om_output(&m);
    TfLiteConcatenationParams p = {
        .axis = axes[a],
        .activation = a == 3 ? kTfLiteActRelu6 : kTfLiteActNone};
    om_finish(&m, kTfLiteBuiltinConcatenation, &p);
    char name[64];
    snprintf(name, sizeof(name), "CONCATENATION axis %d", axes[a]);
    compare(name, &m);
    om_free(&m);
  }
  /* Rank 2, a RELU_N1_TO_1, five inputs. */
  op_model m;
  om_begin(&m);
  for (int i = 0; i < 5; ++i) {
    om_input(&m, kTfLiteFloat32, (int32_t[]){13, 1 + i}, 2);
  }
  om_output(&m);
  TfLiteConcatenationParams p = {.axis = 1, .activation = kTfLiteActReluN1To1};
  om_finish(&m, kTfLiteBuiltinConcatenation, &p);
  compare("CONCATENATION rank 2", &m);
  om_free(&m);
}

static void test_pad(void** state) {
  (void)state;
  static const int32_t pads4[8] = {0, 0, 1, 2, 3, 0, 0, 1};
  static const int32_t pads3[6] = {2, 1, 0, 0, 1, 3};
  for (int v2 = 0; v2 < 2; ++v2) {
    op_model m;
    om_begin(&m);
    om_input(&m, kTfLiteFloat32, (int32_t[]){2, 5, 7, 3}, 4);
    om_const_ints(&m, (int32_t[]){4, 2}, 2, pads4, 8);
    if (v2) om_const_floats(&m, (int32_t[]){1}, 1, 5);
    om_output(&m);
    om_finish(&m, v2 ? kTfLiteBuiltinPadv2 : kTfLiteBuiltinPad, NULL);
    compare(v2 ? "PADV2 rank 4" : "PAD rank 4", &m);
    om_free(&m);

    om_begin(&m);
    om_input(&m, kTfLiteFloat32, (int32_t[]){3, 1, 9}, 3);
    om_const_ints(&m, (int32_t[]){3, 2}, 2, pads3, 6);
    if (v2) om_const_floats(&m, (int32_t[]){1}, 1, 6);
    om_output(&m);
    om_finish(&m, v2 ? kTfLiteBuiltinPadv2 : kTfLiteBuiltinPad, NULL);
    compare(v2 ? "PADV2 rank 3" : "PAD rank 3", &m);
    om_free(&m);
  }
}

static void test_mirror_pad(void** state) {
  (void)state;
  static const int32_t pads4[8] = {0, 0, 2, 1, 0, 3, 1, 1};
  static const int32_t pads3[6] = {1, 0, 2, 2, 0, 4};
  TfLiteMirrorPaddingParams reflect = {.mode = kTfLiteMirrorPaddingReflect};
  op_model m;
  om_begin(&m);
  om_input(&m, kTfLiteFloat32, (int32_t[]){1, 4, 5, 3}, 4);
  om_const_ints(&m, (int32_t[]){4, 2}, 2, pads4, 8);
  om_output(&m);
  om_finish(&m, kTfLiteBuiltinMirrorPad, &reflect);
  compare("MIRROR_PAD REFLECT rank 4", &m);
  om_free(&m);

  om_begin(&m);
  om_input(&m, kTfLiteFloat32, (int32_t[]){2, 3, 5}, 3);
  om_const_ints(&m, (int32_t[]){3, 2}, 2, pads3, 6);
  om_output(&m);
  om_finish(&m, kTfLiteBuiltinMirrorPad, &reflect);
  compare("MIRROR_PAD REFLECT rank 3", &m);
  om_free(&m);

  /* TFLite's GPU rules keep SYMMETRIC on the CPU. */
  TfLiteMirrorPaddingParams symmetric = {.mode = kTfLiteMirrorPaddingSymmetric};
  om_begin(&m);
  om_input(&m, kTfLiteFloat32, (int32_t[]){2, 3, 5}, 3);
  om_const_ints(&m, (int32_t[]){3, 2}, 2, pads3, 6);
  om_output(&m);
  om_finish(&m, kTfLiteBuiltinMirrorPad, &symmetric);
  expect_refused("MIRROR_PAD SYMMETRIC", &m, "Reflective");
  om_free(&m);
}

static void test_slice(void** state) {
  (void)state;
  op_model m;
  om_begin(&m);
  om_input(&m, kTfLiteFloat32, (int32_t[]){2, 7, 9, 5}, 4);
  om_const_int1(&m, (int32_t[]){1, 2, 0, 1}, 4);
  om_const_int1(&m, (int32_t[]){1, 4, -1, 3}, 4);
  om_output(&m);
  om_finish(&m, kTfLiteBuiltinSlice, NULL);
  compare("SLICE rank 4", &m);
  om_free(&m);

  om_begin(&m);
  om_input(&m, kTfLiteFloat32, (int32_t[]){5, 11, 3}, 3);
  om_const_int1(&m, (int32_t[]){4, 0, 2}, 3);
  om_const_int1(&m, (int32_t[]){1, 11, 1}, 3);
  om_output(&m);
  om_finish(&m, kTfLiteBuiltinSlice, NULL);
  compare("SLICE rank 3", &m);
  om_free(&m);
}

typedef struct strided_case {
  const char* name;
  int32_t shape[4];
  int rank;
  int32_t begin[4], end[4], strides[4];
  TfLiteStridedSliceParams params;
} strided_case;

static void test_strided_slice(void** state) {
  (void)state;
  static const strided_case cases[] = {
      {"steps 2 and 3",
       {2, 9, 10, 5},
       4,
       {0, 1, 0, 1},
       {2, 9, 10, 5},
       {1, 2, 3, 2},
       {0}},
      {"negative steps",
       {2, 9, 10, 5},
       4,
       {1, -1, 8, 4},
       {0, 0, 1, 0},
       {-1, -2, -3, -1},
       {.end_mask = 0x9}},
      {"masks",
       {3, 7, 6},
       3,
       {2, 5, 4},
       {0, -1, 1},
       {1, 1, -1},
       {.begin_mask = 0x1, .end_mask = 0x2}},
      {"clamped", {3, 7, 6}, 3, {-9, 2, -100}, {100, 6, 100}, {1, 3, 2}, {0}},
      {"fewer entries",
       {2, 9, 10, 5},
       4,
       {1, 2, 0, 0},
       {2, 7, 0, 0},
       {1, 2, 1, 1},
       {0}},
      {"offset",
       {3, 7, 6},
       3,
       {1, 2, 0},
       {2, 4, 6},
       {1, 2, 2},
       {.offset = true}},
  };
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
    const strided_case* k = &cases[c];
    /* "fewer entries" gives two of four entries. */
    const int n = strcmp(k->name, "fewer entries") == 0 ? 2 : k->rank;
    op_model m;
    om_begin(&m);
    om_input(&m, kTfLiteFloat32, k->shape, k->rank);
    om_const_int1(&m, k->begin, n);
    om_const_int1(&m, k->end, n);
    om_const_int1(&m, k->strides, n);
    om_output(&m);
    om_finish(&m, kTfLiteBuiltinStridedSlice, &k->params);
    compare(k->name, &m);
    om_free(&m);
  }
}

static void test_transpose(void** state) {
  (void)state;
  static const int32_t perms[][4] = {
      {0, 3, 1, 2}, {0, 2, 3, 1}, {3, 2, 1, 0}, {1, 0, -1, 2}};
  for (size_t i = 0; i < sizeof(perms) / sizeof(perms[0]); ++i) {
    op_model m;
    om_begin(&m);
    om_input(&m, kTfLiteFloat32, (int32_t[]){2, 17, 19, 3}, 4);
    om_const_int1(&m, perms[i], 4);
    om_output(&m);
    om_finish(&m, kTfLiteBuiltinTranspose, NULL);
    char name[64];
    snprintf(name, sizeof(name), "TRANSPOSE perm %zu", i);
    compare(name, &m);
    om_free(&m);
  }
  op_model m;
  om_begin(&m);
  om_input(&m, kTfLiteFloat32, (int32_t[]){13, 29}, 2);
  om_const_int1(&m, (int32_t[]){1, 0}, 2);
  om_output(&m);
  om_finish(&m, kTfLiteBuiltinTranspose, NULL);
  compare("TRANSPOSE rank 2", &m);
  om_free(&m);
}

static void test_split(void** state) {
  (void)state;
  /* SPLIT: axis 2 (9 -> 3 x 3) and axis -1 (6 -> 2 x 3). */
  static const int32_t axes[] = {2, -1};
  static const int splits[] = {3, 2};
  for (int i = 0; i < 2; ++i) {
    op_model m;
    om_begin(&m);
    om_const_int1(&m, &axes[i], 1);
    om_input(&m, kTfLiteFloat32, (int32_t[]){2, 5, 9, 6}, 4);
    for (int k = 0; k < splits[i]; ++k) om_output(&m);
    TfLiteSplitParams p = {.num_splits = splits[i]};
    om_finish(&m, kTfLiteBuiltinSplit, &p);
    compare(i == 0 ? "SPLIT axis 2" : "SPLIT axis -1", &m);
    om_free(&m);
  }
  op_model m;
  om_begin(&m);
  om_input(&m, kTfLiteFloat32, (int32_t[]){3, 11, 4}, 3);
  om_const_int1(&m, (int32_t[]){2, -1, 3}, 3);
  om_const_int1(&m, (int32_t[]){1}, 1);
  for (int k = 0; k < 3; ++k) om_output(&m);
  TfLiteSplitVParams p = {.num_splits = 3};
  om_finish(&m, kTfLiteBuiltinSplitV, &p);
  compare("SPLIT_V [2,-1,3] axis 1", &m);
  om_free(&m);
}

static void test_tile(void** state) {
  (void)state;
  static const int32_t shapes[][4] = {{2, 3, 1, 5}, {1, 4, 3, 2}};
  static const int32_t multiples[][4] = {{1, 2, 3, 1}, {2, 1, 3, 2}};
  for (int i = 0; i < 2; ++i) {
    op_model m;
    om_begin(&m);
    om_input(&m, kTfLiteFloat32, shapes[i], 4);
    om_const_int1(&m, multiples[i], 4);
    om_output(&m);
    om_finish(&m, kTfLiteBuiltinTile, NULL);
    compare(i == 0 ? "TILE [1,2,3,1]" : "TILE [2,1,3,2]", &m);
    om_free(&m);
  }
}

static void test_space_depth(void** state) {
  (void)state;
  typedef struct sd_case {
    int32_t code;
    int32_t shape[4];
    int block;
  } sd_case;
  static const sd_case cases[] = {
      {kTfLiteBuiltinDepthToSpace, {1, 3, 5, 8}, 2},
      {kTfLiteBuiltinDepthToSpace, {2, 2, 3, 18}, 3},
      {kTfLiteBuiltinSpaceToDepth, {1, 6, 4, 3}, 2},
      {kTfLiteBuiltinSpaceToDepth, {2, 3, 6, 5}, 3},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    op_model m;
    om_begin(&m);
    om_input(&m, kTfLiteFloat32, cases[i].shape, 4);
    om_output(&m);
    TfLiteDepthToSpaceParams d2s = {.block_size = cases[i].block};
    TfLiteSpaceToDepthParams s2d = {.block_size = cases[i].block};
    const bool to_space = cases[i].code == kTfLiteBuiltinDepthToSpace;
    om_finish(&m, cases[i].code, to_space ? (const void*)&d2s : &s2d);
    char name[64];
    snprintf(name, sizeof(name), "%s block %d",
             to_space ? "DEPTH_TO_SPACE" : "SPACE_TO_DEPTH", cases[i].block);
    compare(name, &m);
    om_free(&m);
  }
}

static void test_gather(void** state) {
  (void)state;
  static const int32_t idx[] = {3, 0, 2, 2, 1};
  /* Constant indices along each axis (and a negative axis). */
  static const int axes[] = {0, 1, 2, -1};
  for (size_t a = 0; a < sizeof(axes) / sizeof(axes[0]); ++a) {
    op_model m;
    om_begin(&m);
    om_input(&m, kTfLiteFloat32, (int32_t[]){4, 5, 7}, 3);
    om_const_int1(&m, idx, 5);
    om_output(&m);
    TfLiteGatherParams p = {.axis = axes[a]};
    om_finish(&m, kTfLiteBuiltinGather, &p);
    char name[64];
    snprintf(name, sizeof(name), "GATHER const indices axis %d", axes[a]);
    compare(name, &m);
    om_free(&m);
  }
  /* Runtime indices, and constant params with runtime indices. */
  for (int const_params = 0; const_params < 2; ++const_params) {
    op_model m;
    om_begin(&m);
    if (const_params) {
      om_const_floats(&m, (int32_t[]){6, 3, 5}, 3, 11);
    } else {
      om_input(&m, kTfLiteFloat32, (int32_t[]){6, 3, 5}, 3);
    }
    om_input(&m, kTfLiteInt32, (int32_t[]){7}, 1);
    m.int_fill = (const int32_t[]){5, 0, 4, 4, 1, 3, 2};
    m.int_fill_count = 7;
    om_output(&m);
    TfLiteGatherParams p = {.axis = 0};
    om_finish(&m, kTfLiteBuiltinGather, &p);
    compare(const_params ? "GATHER const params" : "GATHER runtime indices",
            &m);
    om_free(&m);
  }
}

/* Runtime indices out of range: the CPU fails its Invoke; the GPU clamps
 * into [0, axis_size) (documented in shape_gather.lgk). params[r, c] =
 * value_at(11, 3r + c) (a constant), so the expected rows are known. */
static void test_gather_clamps_runtime_indices(void** state) {
  (void)state;
  op_model m;
  om_begin(&m);
  om_const_floats(&m, (int32_t[]){4, 3}, 2, 11);
  om_input(&m, kTfLiteInt32, (int32_t[]){3}, 1);
  m.int_fill = (const int32_t[]){-5, 9, 2};
  m.int_fill_count = 3;
  om_output(&m);
  TfLiteGatherParams p = {.axis = 0};
  om_finish(&m, kTfLiteBuiltinGather, &p);
  outputs cpu, gpu;
  capture c0 = {{0}, 0}, c1 = {{0}, 0};
  assert_int_not_equal(run(&m, NULL, &c0, &cpu), kTfLiteOk);
  assert_non_null(strstr(c0.text, "out of range"));
  outputs_free(&cpu);
  if (run(&m, g_delegate, &c1, &gpu) != kTfLiteOk) {
    fail_msg("delegated run failed:\n%s", c1.text);
  }
  assert_int_equal(litegpu_gpu_delegate_num_partitions(g_delegate), 1);
  static const int rows[3] = {0, 3, 2};
  assert_int_equal(gpu.counts[0], 9);
  for (int i = 0; i < 3; ++i) {
    for (int c = 0; c < 3; ++c) {
      assert_true(gpu.values[0][3 * i + c] ==
                  value_at(11, (size_t)(3 * rows[i] + c)));
    }
  }
  outputs_free(&gpu);
  om_free(&m);
}

/* What the lowering itself refuses, with its reason; the CPU runs it. */
static void test_refusals(void** state) {
  (void)state;
  op_model m;
  /* Constant indices out of range: left to the CPU, which reports them. */
  om_begin(&m);
  om_input(&m, kTfLiteFloat32, (int32_t[]){4, 3}, 2);
  om_const_int1(&m, (int32_t[]){1, 4}, 2);
  om_output(&m);
  TfLiteGatherParams p = {.axis = 0};
  om_finish(&m, kTfLiteBuiltinGather, &p);
  expect_refused("GATHER bad constant index", &m, "indices[1] = 4");
  om_free(&m);
  /* batch_dims 1. */
  om_begin(&m);
  om_input(&m, kTfLiteFloat32, (int32_t[]){3, 4}, 2);
  om_const_int1(&m, (int32_t[]){1, 0, 3}, 3);
  om_output(&m);
  TfLiteGatherParams bp = {.axis = 1, .batch_dims = 1};
  om_finish(&m, kTfLiteBuiltinGather, &bp);
  expect_refused("GATHER batch_dims 1", &m, "batch_dims");
  outputs cpu;
  capture c = {{0}, 0};
  assert_int_equal(run(&m, g_delegate, &c, &cpu), kTfLiteOk);
  assert_int_equal(cpu.counts[0], 3);
  outputs_free(&cpu);
  om_free(&m);
}

/* ---- remap.lgk itself ------------------------------------------------------
 */

/* Tensors of TFLite's GPU rules stay at rank 4 and SYMMETRIC stays on the
 * CPU, so this runs remap.lgk directly: a 6-D table (every dim used, so the
 * z decomposition covers dims 0..3) that reverses the dims of a [11,3,2,3,
 * 2,4] source and puts a different mode on five of them (the innermost
 * over more than one LG_REMAP_CHUNK), against a plain host loop. Table
 * layout: shaders/kernels/remap.lgk. */
typedef struct kdim {
  int size, src_stride, start, src_dim, mode;
} kdim;

/* The source coordinate of iteration index i, or -1 outside (constant). */
static int host_coordinate(const kdim* d, int i) {
  const int n = d->src_dim;
  int c = d->start + i;
  switch (d->mode) {
    case 1:
      return c < 0 || c >= n ? -1 : c;
    case 2:
      return c < 0 ? -c : (c >= n ? 2 * n - 2 - c : c);
    case 3:
      return c < 0 ? -c - 1 : (c >= n ? 2 * n - 1 - c : c);
    case 4:
      return c % n;
    default:
      return c;
  }
}

static void test_remap_kernel_6d_modes(void** state) {
  (void)state;
  /* Source dims S = [11,3,2,3,2,4]; output dim d walks source dim 5 - d. */
  const int src_dims[6] = {11, 3, 2, 3, 2, 4};
  int src_strides[6], s = 1;
  for (int k = 5; k >= 0; --k) {
    src_strides[k] = s;
    s *= src_dims[k];
  }
  const int src_n = s;
  kdim d[6];
  for (int k = 0; k < 6; ++k) {
    const int from = 5 - k;
    d[k] = (kdim){src_dims[from], src_strides[from], 0, src_dims[from], 0};
  }
  d[0].size = 8; /* modulo: 4 -> 8 */
  d[0].mode = 4;
  d[1] = (kdim){4, src_strides[4], -1, 2, 1}; /* constant: 1 + 2 + 1 */
  d[2] = (kdim){6, src_strides[3], -2, 3, 3}; /* symmetric: 2 + 3 + 1 */
  d[4] = (kdim){5, src_strides[1], -1, 3, 2}; /* reflect: 1 + 3 + 1 */
  /* The innermost dim: reflect 2 + 11 + 4, over two chunks and a part. */
  d[5] = (kdim){17, src_strides[0], -2, 11, 2};
  int dst_strides[6], dst_n = 1;
  for (int k = 5; k >= 0; --k) {
    dst_strides[k] = dst_n;
    dst_n *= d[k].size;
  }
  /* Bases of 5 on both sides: the kernel adds them to every offset. */
  const int base = 5;
  int32_t table[LG_REMAP_INTS];
  table[0] = base;
  table[1] = base;
  table[2] = d[0].size * d[1].size * d[2].size * d[3].size;
  for (int k = 0; k < 6; ++k) {
    const int32_t f[7] = {
        d[k].size, d[k].src_stride, dst_strides[k], d[k].start,
        1,         d[k].src_dim,    d[k].mode};
    memcpy(&table[LG_REMAP_HEADER + LG_REMAP_FIELDS * k], f, sizeof(f));
  }
  float* src = malloc(sizeof(float) * (size_t)(src_n + base));
  float* want = malloc(sizeof(float) * (size_t)(dst_n + base));
  float* got = malloc(sizeof(float) * (size_t)(dst_n + base));
  for (int k = 0; k < src_n + base; ++k) src[k] = value_at(3, (size_t)k);
  for (int k = 0; k < base; ++k) want[k] = -1.0f;
  const float pad_value = 7.5f;
  for (int o = 0; o < dst_n; ++o) {
    int rest = o, offset = base;
    bool outside = false;
    for (int k = 5; k >= 0; --k) {
      const int c = host_coordinate(&d[k], rest % d[k].size);
      rest /= d[k].size;
      if (c < 0) outside = true;
      offset += (c < 0 ? 0 : c) * d[k].src_stride;
    }
    want[base + o] = outside ? pad_value : src[offset];
  }

  lg_gpu_backend* be = NULL;
  lg_gpu_error error = {{0}};
  if (lg_opencl_backend_create(NULL, &be, &error) != kTfLiteOk) {
    fail_msg("%s", error.message); /* no OpenCL device: fail */
  }
  const lg_gpu_backend_ops* ops = be->ops;
  lg_gpu_buffer *bs = NULL, *bd = NULL, *bt = NULL;
  lg_gpu_kernel* kernel = NULL;
  const size_t src_bytes = sizeof(float) * (size_t)(src_n + base);
  const size_t dst_bytes = sizeof(float) * (size_t)(dst_n + base);
  assert_int_equal(ops->buffer_create(be, src_bytes, &bs, &error), kTfLiteOk);
  assert_int_equal(ops->buffer_create(be, dst_bytes, &bd, &error), kTfLiteOk);
  assert_int_equal(ops->buffer_create(be, sizeof(table), &bt, &error),
                   kTfLiteOk);
  assert_int_equal(lg_gpu_buffer_upload(be, bs, 0, src, src_bytes, &error),
                   kTfLiteOk);
  float* sentinel = malloc(dst_bytes);
  for (int k = 0; k < dst_n + base; ++k) sentinel[k] = -1.0f;
  assert_int_equal(lg_gpu_buffer_upload(be, bd, 0, sentinel, dst_bytes, &error),
                   kTfLiteOk); /* the first `base` elements stay -1 */
  assert_int_equal(
      lg_gpu_buffer_upload(be, bt, 0, table, sizeof(table), &error), kTfLiteOk);
  if (ops->kernel_create(be, "remap", "-DLG_MODES", &kernel, &error) !=
      kTfLiteOk) {
    fail_msg("%s", error.message);
  }
  const lg_gpu_arg args[] = {
      LG_GPU_ARG_BUFFER(bs),       LG_GPU_ARG_BUFFER(bd),
      LG_GPU_ARG_BUFFER(bt),       LG_GPU_ARG_INT(0),
      LG_GPU_ARG_FLOAT(pad_value), LG_GPU_ARG_FLOAT(0.0f),
      LG_GPU_ARG_FLOAT(0.0f),
  };
  const size_t global[3] = {
      (size_t)(d[5].size + LG_REMAP_CHUNK - 1) / LG_REMAP_CHUNK,
      (size_t)d[4].size, (size_t)table[2]};
  assert_int_equal(
      lg_gpu_dispatch(be, kernel, args, 7, 3, global, NULL, &error), kTfLiteOk);
  if (ops->submit != NULL) {
    assert_int_equal(ops->submit(be, &error), kTfLiteOk);
  }
  assert_int_equal(lg_gpu_buffer_download(be, bd, 0, got, dst_bytes, &error),
                   kTfLiteOk);
  for (int k = 0; k < dst_n + base; ++k) {
    if (got[k] != want[k]) {
      fail_msg("element %d: want %.9g got %.9g", k - base, (double)want[k],
               (double)got[k]);
    }
  }
  ops->kernel_release(be, kernel);
  ops->buffer_release(be, bt);
  ops->buffer_release(be, bd);
  ops->buffer_release(be, bs);
  lg_gpu_backend_destroy(be);
  free(src);
  free(want);
  free(got);
  free(sentinel);
}

static int setup(void** state) {
  (void)state;
  TfLiteGpuDelegateOptionsV2 o = TfLiteGpuDelegateOptionsV2Default();
  g_delegate = TfLiteGpuDelegateV2Create(&o);
  return g_delegate != NULL ? 0 : -1; /* no OpenCL device: fail */
}

static int teardown(void** state) {
  (void)state;
  TfLiteGpuDelegateV2Delete(g_delegate);
  g_delegate = NULL;
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reshape_squeeze_alias),
      cmocka_unit_test(test_alias_inside_partition),
      cmocka_unit_test(test_concatenation),
      cmocka_unit_test(test_pad),
      cmocka_unit_test(test_mirror_pad),
      cmocka_unit_test(test_slice),
      cmocka_unit_test(test_strided_slice),
      cmocka_unit_test(test_transpose),
      cmocka_unit_test(test_split),
      cmocka_unit_test(test_tile),
      cmocka_unit_test(test_space_depth),
      cmocka_unit_test(test_gather),
      cmocka_unit_test(test_gather_clamps_runtime_indices),
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_remap_kernel_6d_modes),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
