/* bench_gpu_conv: CONV_2D and DEPTHWISE_CONV_2D on the GPU delegate against
 * litegpu's CPU kernels.
 *
 * Usage:
 *   bench_gpu_conv [--threads=N] [--runs=N]             MobileNetV2's layers
 *   bench_gpu_conv --layer=conv:H,W,IC,OC,K,S [...]     one layer
 *   bench_gpu_conv --layer=dw:H,W,C,K,S [...]
 *   bench_gpu_conv --model=FILE [--threads=N] [--runs=N] a whole model
 * --cpu_time times the process's CPU time (all threads) instead of wall
 * time; --gpu_only skips the CPU interpreter's invokes in the model mode.
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

#define EXTRA_COPIES 6

typedef struct layer {
  bool depthwise;
  int h, w, ic, oc, k, s;
  int count; /* how often MobileNetV2 has it */
} layer;

/* MobileNetV2 (224x224, width 1.0): every conv and depthwise shape. */
static const layer kMobileNetV2[] = {
    {false, 224, 224, 3, 32, 3, 2, 1},  {true, 112, 112, 32, 32, 3, 1, 1},
    {false, 112, 112, 32, 16, 1, 1, 1}, {false, 112, 112, 16, 96, 1, 1, 1},
    {true, 112, 112, 96, 96, 3, 2, 1},  {false, 56, 56, 96, 24, 1, 1, 1},
    {false, 56, 56, 24, 144, 1, 1, 2},  {true, 56, 56, 144, 144, 3, 1, 1},
    {false, 56, 56, 144, 24, 1, 1, 1},  {true, 56, 56, 144, 144, 3, 2, 1},
    {false, 28, 28, 144, 32, 1, 1, 1},  {false, 28, 28, 32, 192, 1, 1, 3},
    {true, 28, 28, 192, 192, 3, 1, 2},  {false, 28, 28, 192, 32, 1, 1, 2},
    {true, 28, 28, 192, 192, 3, 2, 1},  {false, 14, 14, 192, 64, 1, 1, 1},
    {false, 14, 14, 64, 384, 1, 1, 4},  {true, 14, 14, 384, 384, 3, 1, 4},
    {false, 14, 14, 384, 64, 1, 1, 3},  {false, 14, 14, 384, 96, 1, 1, 1},
    {false, 14, 14, 96, 576, 1, 1, 3},  {true, 14, 14, 576, 576, 3, 1, 2},
    {false, 14, 14, 576, 96, 1, 1, 2},  {true, 14, 14, 576, 576, 3, 2, 1},
    {false, 7, 7, 576, 160, 1, 1, 1},   {false, 7, 7, 160, 960, 1, 1, 3},
    {true, 7, 7, 960, 960, 3, 1, 3},    {false, 7, 7, 960, 160, 1, 1, 2},
    {false, 7, 7, 960, 320, 1, 1, 1},   {false, 7, 7, 320, 1280, 1, 1, 1},
};

/* CLOCK_MONOTONIC, or with --cpu_time the CPU time of every thread of the
 * process (PoCL's workers included), which other processes on a shared
 * machine inflate less. */
static clockid_t g_clock = CLOCK_MONOTONIC;

/* --gpu_only: the model mode invokes only the delegated interpreter (for
 * profiling it alone). */
static bool g_gpu_only = false;

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

/* A model of `copies` ops of layer `l`, all reading the input; only the last
 * output is a graph output. NULL data on failure. */
static void* build_layer_model(const layer* l, int copies, size_t* size) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  if (w == NULL) return NULL;
  const int oh = (l->h + l->s - 1) / l->s, ow = (l->w + l->s - 1) / l->s;
  const int32_t in_shape[4] = {1, l->h, l->w, l->ic};
  const int32_t out_shape[4] = {1, oh, ow, l->oc};
  const int32_t f_shape[4] = {l->depthwise ? 1 : l->oc, l->k, l->k,
                              l->depthwise ? l->oc : l->ic};
  const int32_t b_shape[1] = {l->oc};
  const size_t nf = (size_t)f_shape[0] * l->k * l->k * f_shape[3];
  float* values = malloc(sizeof(float) * (nf + (size_t)l->oc));
  if (values == NULL) {
    lg_model_writer_destroy(w);
    return NULL;
  }
  fill(values, nf + (size_t)l->oc, 5);
  lg_writer_tensor t = {
      .name = "x", .type = kTfLiteFloat32, .shape = in_shape, .num_dims = 4};
  const int32_t x = lg_model_writer_add_tensor(w, &t);
  const int32_t f = lg_model_writer_add_const_tensor(
      w, "f", kTfLiteFloat32, f_shape, 4, values, nf * sizeof(float));
  const int32_t b = lg_model_writer_add_const_tensor(
      w, "b", kTfLiteFloat32, b_shape, 1, values + nf,
      (size_t)l->oc * sizeof(float));
  free(values);
  TfLiteConvParams conv = {.padding = kTfLitePaddingSame,
                           .stride_width = l->s,
                           .stride_height = l->s,
                           .activation = kTfLiteActRelu6,
                           .dilation_width_factor = 1,
                           .dilation_height_factor = 1};
  TfLiteDepthwiseConvParams dw = {.padding = kTfLitePaddingSame,
                                  .stride_width = l->s,
                                  .stride_height = l->s,
                                  .depth_multiplier = 1,
                                  .activation = kTfLiteActRelu6,
                                  .dilation_width_factor = 1,
                                  .dilation_height_factor = 1};
  int32_t y = -1;
  for (int c = 0; c < copies; ++c) {
    t.name = "y";
    t.shape = out_shape;
    y = lg_model_writer_add_tensor(w, &t);
    const int32_t ins[3] = {x, f, b};
    lg_model_writer_add_operator(
        w, l->depthwise ? kTfLiteBuiltinDepthwiseConv2d : kTfLiteBuiltinConv2d,
        1, ins, 3, &y, 1, l->depthwise ? (const void*)&dw : (const void*)&conv);
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
    TfLiteGpuDelegateOptionsV2 go = TfLiteGpuDelegateOptionsV2Default();
    s->delegate = TfLiteGpuDelegateV2Create(&go);
    if (s->delegate == NULL) {
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
    snprintf(name, sizeof(name), "%s %dx%dx%d->%d k%d s%d",
             l->depthwise ? "dw" : "conv", l->h, l->w, l->ic, l->oc, l->k,
             l->s);
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
  if (strncmp(text, "conv:", 5) == 0) {
    return sscanf(text + 5, "%d,%d,%d,%d,%d,%d", &l->h, &l->w, &l->ic, &l->oc,
                  &l->k, &l->s) == 6;
  }
  if (strncmp(text, "dw:", 3) == 0) {
    l->depthwise = true;
    const bool ok = sscanf(text + 3, "%d,%d,%d,%d,%d", &l->h, &l->w, &l->ic,
                           &l->k, &l->s) == 5;
    l->oc = l->ic;
    return ok;
  }
  return false;
}

int main(int argc, char** argv) {
  int threads = 2, runs = 30;
  const char* model = NULL;
  layer one;
  bool have_one = false;
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
    } else if (strncmp(a, "--model=", 8) == 0) {
      model = a + 8;
    } else if (strncmp(a, "--layer=", 8) == 0 && parse_layer(a + 8, &one)) {
      have_one = true;
    } else {
      fprintf(stderr,
              "usage: bench_gpu_conv [--model=FILE | --layer=conv:H,W,IC,OC,"
              "K,S | --layer=dw:H,W,C,K,S] [--threads=N] [--runs=N] "
              "[--cpu_time] [--gpu_only]\n");
      return 2;
    }
  }
  if (runs < 1) runs = 1;
  if (model != NULL) return bench_model(model, threads, runs);
  if (have_one) {
    bench_layers(&one, 1, threads, runs);
  } else {
    bench_layers(kMobileNetV2,
                 (int)(sizeof(kMobileNetV2) / sizeof(kMobileNetV2[0])), threads,
                 runs);
  }
  return 0;
}
