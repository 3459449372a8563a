/* bench_gpu_conv: CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV and
 * FULLY_CONNECTED on the GPU delegate against litegpu's CPU kernels.
 *
 * Usage:
 *   bench_gpu_conv [--threads=N] [--runs=N]             MobileNetV2's layers
 *   bench_gpu_conv --layer=conv:H,W,IC,OC,K,S [...]     one layer
 *   bench_gpu_conv --layer=dw:H,W,C,K,S [...]
 *   bench_gpu_conv --layer=tconv:H,W,IC,OC,K,S [...]    (SAME: out H*S x W*S)
 *   bench_gpu_conv --layer=fc:M,K,N [...]               [M,K] x [N,K]^T
 *   bench_gpu_conv --model=FILE [--threads=N] [--runs=N] a whole model
 * --layer may be repeated. --cpu_time times the process's CPU time (all
 * threads) instead of wall time; --gpu_only skips the CPU interpreter's
 * invokes in the model mode. --gpu_backend=cl|vk picks the backend (default
 * automatic) and --gpu_precision_loss_allowed=false keeps float32 (default
 * true, as TFLite's flag).
 *
 * A layer is timed without the delegate's transfers: the model holds R
 * copies of the op, all reading the graph input, and only the last copy's
 * output is a graph output, so (t(R = 1 + extra) - t(R = 1)) / extra is the
 * time of one op, on the CPU (N threads, default 2) and on the GPU. The four
 * models are invoked in turn, --runs times (default 30) after warm-up, and
 * each keeps its fastest invoke (other work on a shared machine only ever
 * adds time). The model mode alternates CPU and GPU invokes the same way and
 * prints ms per invoke of both and the largest difference of output 0
 * relative to max(1, |cpu|).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "litegpu/gpu_delegate.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/delegates/gpu/delegate.h"
#include "tools/tool_help.h"

#define EXTRA_COPIES 6

typedef enum layer_kind { CONV, DEPTHWISE, TRANSPOSE, FULLY } layer_kind;

/* A layer; FULLY reads h as M, ic as K and oc as N. */
typedef struct layer {
  layer_kind kind;
  int h, w, ic, oc, k, s;
  int count; /* how often MobileNetV2 has it */
} layer;

#define DW DEPTHWISE
/* MobileNetV2 (224x224, width 1.0): every conv and depthwise shape. */
static const layer kMobileNetV2[] = {
    {CONV, 224, 224, 3, 32, 3, 2, 1},  {DW, 112, 112, 32, 32, 3, 1, 1},
    {CONV, 112, 112, 32, 16, 1, 1, 1}, {CONV, 112, 112, 16, 96, 1, 1, 1},
    {DW, 112, 112, 96, 96, 3, 2, 1},   {CONV, 56, 56, 96, 24, 1, 1, 1},
    {CONV, 56, 56, 24, 144, 1, 1, 2},  {DW, 56, 56, 144, 144, 3, 1, 1},
    {CONV, 56, 56, 144, 24, 1, 1, 1},  {DW, 56, 56, 144, 144, 3, 2, 1},
    {CONV, 28, 28, 144, 32, 1, 1, 1},  {CONV, 28, 28, 32, 192, 1, 1, 3},
    {DW, 28, 28, 192, 192, 3, 1, 2},   {CONV, 28, 28, 192, 32, 1, 1, 2},
    {DW, 28, 28, 192, 192, 3, 2, 1},   {CONV, 14, 14, 192, 64, 1, 1, 1},
    {CONV, 14, 14, 64, 384, 1, 1, 4},  {DW, 14, 14, 384, 384, 3, 1, 4},
    {CONV, 14, 14, 384, 64, 1, 1, 3},  {CONV, 14, 14, 384, 96, 1, 1, 1},
    {CONV, 14, 14, 96, 576, 1, 1, 3},  {DW, 14, 14, 576, 576, 3, 1, 2},
    {CONV, 14, 14, 576, 96, 1, 1, 2},  {DW, 14, 14, 576, 576, 3, 2, 1},
    {CONV, 7, 7, 576, 160, 1, 1, 1},   {CONV, 7, 7, 160, 960, 1, 1, 3},
    {DW, 7, 7, 960, 960, 3, 1, 3},     {CONV, 7, 7, 960, 160, 1, 1, 2},
    {CONV, 7, 7, 960, 320, 1, 1, 1},   {CONV, 7, 7, 320, 1280, 1, 1, 1},
};

/* CLOCK_MONOTONIC, or with --cpu_time the CPU time of every thread of the
 * process (PoCL's workers included), which other processes on a shared
 * machine inflate less. */
static clockid_t g_clock = CLOCK_MONOTONIC;

/* --gpu_only: the model mode invokes only the delegated interpreter (for
 * profiling it alone). */
static bool g_gpu_only = false;

/* --gpu_backend and --gpu_precision_loss_allowed. */
static litegpu_gpu_backend g_backend = LITEGPU_GPU_BACKEND_AUTO;
static bool g_precision_loss = true;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(g_clock, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fill(float* v, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = (float)(seed >> 8) / 16777216.0f * 2.0f - 1.0f;
  }
}

/* The shapes of layer `l`'s tensors: input, output, weights, bias, and for a
 * transposed convolution its output-shape operand. */
typedef struct layer_shapes {
  int32_t in[4], out[4], f[4], b[1];
  int in_dims, out_dims;
} layer_shapes;

static layer_shapes shapes_of(const layer* l) {
  layer_shapes sh;
  memset(&sh, 0, sizeof(sh));
  if (l->kind == FULLY) {
    sh.in_dims = sh.out_dims = 2;
    sh.in[0] = sh.out[0] = l->h;
    sh.in[1] = l->ic;
    sh.out[1] = l->oc;
    sh.f[0] = l->oc;
    sh.f[1] = l->ic;
    sh.f[2] = sh.f[3] = 1;
  } else {
    const bool up = l->kind == TRANSPOSE;
    const int oh = up ? l->h * l->s : (l->h + l->s - 1) / l->s;
    const int ow = up ? l->w * l->s : (l->w + l->s - 1) / l->s;
    sh.in_dims = sh.out_dims = 4;
    const int32_t in[4] = {1, l->h, l->w, l->ic};
    const int32_t out[4] = {1, oh, ow, l->oc};
    const int32_t f[4] = {l->kind == DEPTHWISE ? 1 : l->oc, l->k, l->k,
                          l->kind == DEPTHWISE ? l->oc : l->ic};
    memcpy(sh.in, in, sizeof(in));
    memcpy(sh.out, out, sizeof(out));
    memcpy(sh.f, f, sizeof(f));
  }
  sh.b[0] = l->oc;
  return sh;
}

/* Adds one op of layer `l` reading x, f and b (and `out_shape` for a
 * transposed convolution), writing y. */
static void add_layer_op(lg_model_writer* w, const layer* l, int32_t x,
                         int32_t f, int32_t b, int32_t out_shape, int32_t y) {
  const TfLiteConvParams conv = {.padding = kTfLitePaddingSame,
                                 .stride_width = l->s,
                                 .stride_height = l->s,
                                 .activation = kTfLiteActRelu6,
                                 .dilation_width_factor = 1,
                                 .dilation_height_factor = 1};
  const TfLiteDepthwiseConvParams dw = {.padding = kTfLitePaddingSame,
                                        .stride_width = l->s,
                                        .stride_height = l->s,
                                        .depth_multiplier = 1,
                                        .activation = kTfLiteActRelu6,
                                        .dilation_width_factor = 1,
                                        .dilation_height_factor = 1};
  const TfLiteTransposeConvParams up = {.padding = kTfLitePaddingSame,
                                        .stride_width = l->s,
                                        .stride_height = l->s};
  const TfLiteFullyConnectedParams fc = {.activation = kTfLiteActRelu6};
  const int32_t ins[3] = {x, f, b};
  const int32_t up_ins[4] = {out_shape, f, x, b};
  switch (l->kind) {
    case CONV:
      lg_model_writer_add_operator(w, kTfLiteBuiltinConv2d, 1, ins, 3, &y, 1,
                                   &conv);
      break;
    case DEPTHWISE:
      lg_model_writer_add_operator(w, kTfLiteBuiltinDepthwiseConv2d, 1, ins, 3,
                                   &y, 1, &dw);
      break;
    case TRANSPOSE:
      lg_model_writer_add_operator(w, kTfLiteBuiltinTransposeConv, 3, up_ins, 4,
                                   &y, 1, &up);
      break;
    case FULLY:
      lg_model_writer_add_operator(w, kTfLiteBuiltinFullyConnected, 1, ins, 3,
                                   &y, 1, &fc);
      break;
  }
}

/* A model of `copies` ops of layer `l`, all reading the input; only the last
 * output is a graph output. NULL data on failure. */
static void* build_layer_model(const layer* l, int copies, size_t* size) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  if (w == NULL) return NULL;
  const layer_shapes sh = shapes_of(l);
  const size_t nf = (size_t)sh.f[0] * sh.f[1] * sh.f[2] * sh.f[3];
  float* values = malloc(sizeof(float) * (nf + (size_t)l->oc));
  if (values == NULL) {
    lg_model_writer_destroy(w);
    return NULL;
  }
  fill(values, nf + (size_t)l->oc, 5);
  lg_writer_tensor t = {.name = "x",
                        .type = kTfLiteFloat32,
                        .shape = sh.in,
                        .num_dims = sh.in_dims};
  const int32_t x = lg_model_writer_add_tensor(w, &t);
  const int32_t f = lg_model_writer_add_const_tensor(
      w, "f", kTfLiteFloat32, sh.f, l->kind == FULLY ? 2 : 4, values,
      nf * sizeof(float));
  const int32_t b = lg_model_writer_add_const_tensor(
      w, "b", kTfLiteFloat32, sh.b, 1, values + nf,
      (size_t)l->oc * sizeof(float));
  free(values);
  const int32_t four[1] = {4};
  const int32_t out_shape = lg_model_writer_add_const_tensor(
      w, "out_shape", kTfLiteInt32, four, 1, sh.out, sizeof(sh.out));
  int32_t y = -1;
  for (int c = 0; c < copies; ++c) {
    t.name = "y";
    t.shape = sh.out;
    t.num_dims = sh.out_dims;
    y = lg_model_writer_add_tensor(w, &t);
    add_layer_op(w, l, x, f, b, out_shape, y);
  }
  lg_model_writer_set_inputs(w, &x, 1);
  lg_model_writer_set_outputs(w, &y, 1);
  void* data = NULL;
  if (lg_model_writer_finish(w, &data, size) != kTfLiteOk) data = NULL;
  lg_model_writer_destroy(w);
  return data;
}

typedef struct session {
  void* data; /* the model's bytes when the session built them, or NULL */
  TfLiteModel* model;
  TfLiteDelegate* delegate;
  TfLiteInterpreter* interpreter;
} session;

static void session_close(session* s) {
  TfLiteInterpreterDelete(s->interpreter);
  if (s->delegate != NULL) TfLiteGpuDelegateV2Delete(s->delegate);
  TfLiteModelDelete(s->model);
  free(s->data);
  memset(s, 0, sizeof(*s));
}

static bool session_open(session* s, TfLiteModel* model, bool gpu,
                         int threads) {
  memset(s, 0, sizeof(*s));
  s->model = model;
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(o, threads);
  if (gpu) {
    litegpu_gpu_delegate_options go = litegpu_gpu_delegate_options_default();
    go.backend = g_backend;
    go.tflite.is_precision_loss_allowed = g_precision_loss ? 1 : 0;
    char why[512];
    s->delegate = litegpu_gpu_delegate_create(&go, why, sizeof(why));
    if (s->delegate == NULL) {
      fprintf(stderr, "bench_gpu_conv: the GPU delegate: %s\n", why);
      TfLiteInterpreterOptionsDelete(o);
      return false;
    }
    TfLiteInterpreterOptionsAddDelegate(o, s->delegate);
  }
  s->interpreter = TfLiteInterpreterCreate(model, o);
  TfLiteInterpreterOptionsDelete(o);
  if (s->interpreter == NULL ||
      TfLiteInterpreterAllocateTensors(s->interpreter) != kTfLiteOk) {
    return false;
  }
  for (int i = 0; i < TfLiteInterpreterGetInputTensorCount(s->interpreter);
       ++i) {
    TfLiteTensor* t = TfLiteInterpreterGetInputTensor(s->interpreter, i);
    fill(TfLiteTensorData(t), TfLiteTensorByteSize(t) / sizeof(float),
         (uint32_t)(11 + i));
  }
  return true;
}

/* Seconds of one invoke, or -1 on failure. */
static double invoke_once(session* s) {
  const double start = now_seconds();
  if (TfLiteInterpreterInvoke(s->interpreter) != kTfLiteOk) return -1.0;
  return now_seconds() - start;
}

/* Opens a session on a layer model with `copies` ops (the model is owned by
 * the session); false on failure or when the GPU did not take the ops. */
static bool open_layer(session* s, const layer* l, int copies, bool gpu,
                       int threads) {
  memset(s, 0, sizeof(*s));
  size_t size = 0;
  void* data = build_layer_model(l, copies, &size);
  if (data == NULL) return false;
  TfLiteModel* model = TfLiteModelCreate(data, size);
  bool ok = model != NULL && session_open(s, model, gpu, threads) &&
            (!gpu || litegpu_gpu_delegate_num_partitions(s->delegate) == 1);
  s->data = data;
  return ok;
}

/* Microseconds of one op of layer `l`: CPU (per[0]) and GPU (per[1]). The
 * four models (1 and 1 + EXTRA_COPIES ops, CPU and GPU) are invoked in turn
 * so that they meet the same load; each keeps its fastest invoke. */
static void time_layer(const layer* l, int threads, int runs, double per[2]) {
  session s[4];
  bool ok = true;
  for (int i = 0; i < 4; ++i) {
    const bool gpu = i >= 2;
    const int copies = i % 2 == 0 ? 1 : 1 + EXTRA_COPIES;
    if (!open_layer(&s[i], l, copies, gpu, threads)) ok = false;
  }
  double best[4] = {-1.0, -1.0, -1.0, -1.0};
  for (int r = 0; ok && r < runs + 3; ++r) {
    for (int i = 0; i < 4 && ok; ++i) {
      const double t = invoke_once(&s[i]);
      if (t < 0) ok = false;
      if (r >= 3 && (best[i] < 0 || t < best[i])) best[i] = t;
    }
  }
  for (int g = 0; g < 2; ++g) {
    per[g] = ok ? (best[2 * g + 1] - best[2 * g]) / EXTRA_COPIES * 1e6 : -1.0;
  }
  for (int i = 0; i < 4; ++i) session_close(&s[i]);
}

static void bench_layers(const layer* layers, int count, int threads,
                         int runs) {
  double total_cpu = 0, total_gpu = 0;
  printf("%-34s %5s %10s %10s %7s\n", "layer", "count", "cpu us", "gpu us",
         "gpu/cpu");
  for (int i = 0; i < count; ++i) {
    const layer* l = &layers[i];
    double per[2];
    time_layer(l, threads, runs, per);
    char name[64];
    static const char* const kKindNames[] = {"conv", "dw", "tconv", "fc"};
    if (l->kind == FULLY) {
      snprintf(name, sizeof(name), "fc %dx%d->%d", l->h, l->ic, l->oc);
    } else {
      snprintf(name, sizeof(name), "%s %dx%dx%d->%d k%d s%d",
               kKindNames[l->kind], l->h, l->w, l->ic, l->oc, l->k, l->s);
    }
    printf("%-34s %5d %10.1f %10.1f %7.2f\n", name, l->count, per[0], per[1],
           per[0] > 0 ? per[1] / per[0] : 0.0);
    total_cpu += per[0] * l->count;
    total_gpu += per[1] * l->count;
  }
  printf("weighted total: cpu %.3f ms, gpu %.3f ms (%.2fx)\n", total_cpu * 1e-3,
         total_gpu * 1e-3, total_cpu > 0 ? total_gpu / total_cpu : 0.0);
}

static int bench_model(const char* path, int threads, int runs) {
  session s[2]; /* CPU, GPU */
  memset(s, 0, sizeof(s));
  const int count = 2;
  bool ok = true;
  for (int i = 0; i < count && ok; ++i) {
    TfLiteModel* m = TfLiteModelCreateFromFile(path);
    if (m == NULL) {
      fprintf(stderr, "bench_gpu_conv: cannot load %s\n", path);
      ok = false;
      break;
    }
    if (!session_open(&s[i], m, i > 0, threads)) ok = false;
  }
  if (ok) {
    /* Alternate so that all meet the same load; keep each one's fastest. */
    double best[2] = {-1.0, -1.0};
    for (int r = 0; r < runs + 3 && ok; ++r) {
      for (int i = g_gpu_only ? 1 : 0; i < count; ++i) {
        const double t = invoke_once(&s[i]);
        if (t < 0) ok = false;
        if (r >= 3 && (best[i] < 0 || t < best[i])) best[i] = t;
      }
    }
    const TfLiteTensor* a =
        TfLiteInterpreterGetOutputTensor(s[0].interpreter, 0);
    const TfLiteTensor* b =
        TfLiteInterpreterGetOutputTensor(s[1].interpreter, 0);
    const float* x = TfLiteTensorData(a);
    const float* y = TfLiteTensorData(b);
    double worst = 0;
    for (size_t i = 0;
         !g_gpu_only && i < TfLiteTensorByteSize(a) / sizeof(float); ++i) {
      const double d =
          fabs((double)x[i] - y[i]) / fmax(1.0, fabs((double)x[i]));
      if (d > worst) worst = d;
    }
    litegpu_gpu_delegate_stats st;
    memset(&st, 0, sizeof(st));
    litegpu_gpu_delegate_get_stats(s[1].delegate, &st);
    if (g_gpu_only) {
      printf("%s: gpu %.3f ms; %d nodes in %d partitions, %d dispatches\n",
             path, best[1] * 1e3, st.nodes_delegated, st.partitions,
             st.dispatches_per_invoke);
    } else {
      printf(
          "%s: cpu (%d threads) %.3f ms, gpu %.3f ms (%.2fx); %d nodes "
          "in %d partitions, %d dispatches; max rel diff %.3g\n",
          path, threads, best[0] * 1e3, best[1] * 1e3,
          best[0] > 0 ? best[1] / best[0] : 0.0, st.nodes_delegated,
          st.partitions, st.dispatches_per_invoke, worst);
    }
  }
  if (!ok) fprintf(stderr, "bench_gpu_conv: interpreter setup failed\n");
  for (int i = 0; i < 2; ++i) session_close(&s[i]);
  return ok ? 0 : 1;
}

static bool parse_layer(const char* text, layer* l) {
  memset(l, 0, sizeof(*l));
  l->count = 1;
  if (strncmp(text, "conv:", 5) == 0 || strncmp(text, "tconv:", 6) == 0) {
    l->kind = text[0] == 't' ? TRANSPOSE : CONV;
    return sscanf(strchr(text, ':') + 1, "%d,%d,%d,%d,%d,%d", &l->h, &l->w,
                  &l->ic, &l->oc, &l->k, &l->s) == 6;
  }
  if (strncmp(text, "dw:", 3) == 0) {
    l->kind = DEPTHWISE;
    const bool ok = sscanf(text + 3, "%d,%d,%d,%d,%d", &l->h, &l->w, &l->ic,
                           &l->k, &l->s) == 5;
    l->oc = l->ic;
    return ok;
  }
  if (strncmp(text, "fc:", 3) == 0) {
    l->kind = FULLY;
    l->w = l->k = l->s = 1;
    return sscanf(text + 3, "%d,%d,%d", &l->h, &l->ic, &l->oc) == 3;
  }
  return false;
}

#define MAX_LAYERS 32

static const char kUsage[] =
    "usage: bench_gpu_conv [--model=FILE | --layer=conv:H,W,IC,OC,K,S | "
    "--layer=dw:H,W,C,K,S | --layer=tconv:H,W,IC,OC,K,S | "
    "--layer=fc:M,K,N ...] [--threads=N] [--runs=N] [--cpu_time] "
    "[--gpu_only] [--gpu_backend=cl|vk] "
    "[--gpu_precision_loss_allowed=true|false]\n";

int main(int argc, char** argv) {
  if (lg_tool_help_asked(argc, argv)) {
    fputs(kUsage, stdout);
    return 0;
  }
  int threads = 2, runs = 30;
  const char* model = NULL;
  layer chosen[MAX_LAYERS];
  int count = 0;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (strncmp(a, "--threads=", 10) == 0) {
      threads = atoi(a + 10);
    } else if (strncmp(a, "--runs=", 7) == 0) {
      runs = atoi(a + 7);
    } else if (strcmp(a, "--gpu_only") == 0) {
      g_gpu_only = true;
    } else if (strcmp(a, "--cpu_time") == 0) {
      g_clock = CLOCK_PROCESS_CPUTIME_ID;
    } else if (strcmp(a, "--gpu_backend=cl") == 0) {
      g_backend = LITEGPU_GPU_BACKEND_OPENCL;
    } else if (strcmp(a, "--gpu_backend=vk") == 0) {
      g_backend = LITEGPU_GPU_BACKEND_VULKAN;
    } else if (strcmp(a, "--gpu_precision_loss_allowed=true") == 0) {
      g_precision_loss = true;
    } else if (strcmp(a, "--gpu_precision_loss_allowed=false") == 0) {
      g_precision_loss = false;
    } else if (strncmp(a, "--model=", 8) == 0) {
      model = a + 8;
    } else if (strncmp(a, "--layer=", 8) == 0 && count < MAX_LAYERS &&
               parse_layer(a + 8, &chosen[count])) {
      ++count;
    } else {
      fputs(kUsage, stderr);
      return 2;
    }
  }
  if (runs < 1) runs = 1;
  if (model != NULL) return bench_model(model, threads, runs);
  if (count > 0) {
    bench_layers(chosen, count, threads, runs);
  } else {
    bench_layers(kMobileNetV2,
                 (int)(sizeof(kMobileNetV2) / sizeof(kMobileNetV2[0])), threads,
                 runs);
  }
  return 0;
}
