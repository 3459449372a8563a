/* bench_gpu_resize: what resizing an input costs with the GPU delegate,
 * against the delegate's cold init, and whether the outputs after the
 * resize still equal the CPU's.
 *
 * Usage: bench_gpu_resize MODEL --shape=D0,D1,... [--backend=cl|vk]
 *                         [--fp16]
 *
 * Cold init: creating the delegate and the interpreter with it, and the
 * first AllocateTensors. Then one Invoke at the model's shape, a resize of
 * input 0 to --shape (ResizeInputTensor + AllocateTensors: the CPU shape
 * propagation and the partitions lowered again in their kernels' Prepare),
 * an Invoke, the resize back, an Invoke. Each resize's time is printed with
 * its share of the cold init and the kernels compiled by it
 * (litegpu_gpu_delegate_stats.programs_compiled), and the median of 5
 * further Invokes at that shape. Each Invoke's outputs are
 * compared with a CPU-only interpreter at the same shape and inputs: the
 * largest |gpu - cpu| / max(1, |cpu|) is printed.
 * Inputs are float32 and filled with a fixed pseudo-random sequence.
 * Exit status: 0 when every step ran, 1 when one failed, 2 on bad
 * arguments. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "litegpu/gpu_delegate.h"
#include "tensorflow/lite/c/c_api.h"
#include "tools/tool_help.h"

#define MAX_DIMS 8

typedef struct args {
  const char* model;
  int shape[MAX_DIMS];
  int rank;
  litegpu_gpu_backend backend;
  bool fp16;
} args;

static bool parse_shape(const char* text, args* a) {
  a->rank = 0;
  while (*text != '\0' && a->rank < MAX_DIMS) {
    char* end = NULL;
    const long v = strtol(text, &end, 10);
    if (end == text || v < 0 || v > 1 << 20) return false;
    a->shape[a->rank++] = (int)v;
    text = *end == ',' ? end + 1 : end;
    if (*end != ',' && *end != '\0') return false;
  }
  return *text == '\0' && a->rank > 0;
}

static bool parse_args(int argc, char** argv, args* a) {
  memset(a, 0, sizeof(*a));
  a->backend = LITEGPU_GPU_BACKEND_OPENCL;
  for (int i = 1; i < argc; ++i) {
    const char* s = argv[i];
    if (strncmp(s, "--shape=", 8) == 0) {
      if (!parse_shape(s + 8, a)) return false;
    } else if (strcmp(s, "--backend=cl") == 0) {
      a->backend = LITEGPU_GPU_BACKEND_OPENCL;
    } else if (strcmp(s, "--backend=vk") == 0) {
      a->backend = LITEGPU_GPU_BACKEND_VULKAN;
    } else if (strcmp(s, "--fp16") == 0) {
      a->fp16 = true;
    } else if (s[0] != '-' && a->model == NULL) {
      a->model = s;
    } else {
      return false;
    }
  }
  return a->model != NULL && a->rank > 0;
}

static void fill_inputs(TfLiteInterpreter* ip) {
  for (int i = 0; i < TfLiteInterpreterGetInputTensorCount(ip); ++i) {
    TfLiteTensor* t = TfLiteInterpreterGetInputTensor(ip, i);
    if (TfLiteTensorType(t) != kTfLiteFloat32) continue;
    float* v = TfLiteTensorData(t);
    uint32_t seed = 17u + 31u * (uint32_t)i;
    for (size_t k = 0; k < TfLiteTensorByteSize(t) / sizeof(float); ++k) {
      seed = seed * 1664525u + 1013904223u;
      v[k] = (float)(seed >> 8) / 16777216.0f * 2 - 1;
    }
  }
}

/* Resizes input 0 (when dims is not NULL), allocates, fills, invokes. */
static bool step(TfLiteInterpreter* ip, const int* dims, int rank,
                 double* allocate_ms) {
  const uint64_t t0 = lg_now_ns();
  if (dims != NULL &&
      TfLiteInterpreterResizeInputTensor(ip, 0, dims, rank) != kTfLiteOk) {
    return false;
  }
  if (TfLiteInterpreterAllocateTensors(ip) != kTfLiteOk) return false;
  if (allocate_ms != NULL) *allocate_ms = (double)(lg_now_ns() - t0) / 1e6;
  fill_inputs(ip);
  return TfLiteInterpreterInvoke(ip) == kTfLiteOk;
}

/* The largest |gpu - cpu| / max(1, |cpu|) over the float outputs. */
static double max_error(TfLiteInterpreter* gpu, TfLiteInterpreter* cpu) {
  double worst = 0;
  for (int o = 0; o < TfLiteInterpreterGetOutputTensorCount(cpu); ++o) {
    const TfLiteTensor* a = TfLiteInterpreterGetOutputTensor(cpu, o);
    const TfLiteTensor* b = TfLiteInterpreterGetOutputTensor(gpu, o);
    if (TfLiteTensorType(a) != kTfLiteFloat32 ||
        TfLiteTensorByteSize(a) != TfLiteTensorByteSize(b)) {
      return INFINITY;
    }
    const float* x = TfLiteTensorData(a);
    const float* y = TfLiteTensorData(b);
    for (size_t k = 0; k < TfLiteTensorByteSize(a) / sizeof(float); ++k) {
      const double e = fabs((double)x[k] - y[k]) / fmax(1.0, fabs(x[k]));
      if (!(e <= worst)) worst = e; /* NaN counts as the worst */
    }
  }
  return worst;
}

static long long programs_compiled(const TfLiteDelegate* d) {
  litegpu_gpu_delegate_stats st;
  return litegpu_gpu_delegate_get_stats(d, &st) == kTfLiteOk
             ? (long long)st.programs_compiled
             : -1;
}

static TfLiteInterpreter* create(TfLiteModel* model, TfLiteDelegate* d) {
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  if (d != NULL) TfLiteInterpreterOptionsAddDelegate(o, d);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(model, o);
  TfLiteInterpreterOptionsDelete(o);
  return ip;
}

#define TIMED_INVOKES 5

static int compare_doubles(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The median time of TIMED_INVOKES Invokes (same inputs), -1 on failure. */
static double median_invoke_ms(TfLiteInterpreter* ip) {
  double ms[TIMED_INVOKES];
  for (int i = 0; i < TIMED_INVOKES; ++i) {
    const uint64_t t0 = lg_now_ns();
    if (TfLiteInterpreterInvoke(ip) != kTfLiteOk) return -1;
    ms[i] = (double)(lg_now_ns() - t0) / 1e6;
  }
  qsort(ms, TIMED_INVOKES, sizeof(double), compare_doubles);
  return ms[TIMED_INVOKES / 2];
}

/* Runs both interpreters at a shape and prints the comparison. */
static bool compare_at(const char* label, TfLiteInterpreter* gpu,
                       TfLiteInterpreter* cpu, const TfLiteDelegate* d,
                       const int* dims, int rank, double cold_ms) {
  const long long before = programs_compiled(d);
  double ms = 0;
  if (!step(gpu, dims, rank, &ms) || !step(cpu, dims, rank, NULL)) {
    fprintf(stderr, "bench_gpu_resize: %s failed\n", label);
    return false;
  }
  const double invoke_ms = median_invoke_ms(gpu);
  if (invoke_ms < 0) {
    fprintf(stderr, "bench_gpu_resize: %s: Invoke failed\n", label);
    return false;
  }
  const TfLiteTensor* in = TfLiteInterpreterGetInputTensor(gpu, 0);
  printf("%-8s input0 [", label);
  for (int i = 0; i < TfLiteTensorNumDims(in); ++i) {
    printf("%s%d", i ? "," : "", TfLiteTensorDim(in, i));
  }
  printf("]  allocate %.1f ms", ms);
  if (dims != NULL) {
    printf(" (%.1f%% of cold init), %lld kernels compiled", 100 * ms / cold_ms,
           programs_compiled(d) - before);
  }
  printf("  invoke %.1f ms  max rel error vs CPU %.3g\n", invoke_ms,
         max_error(gpu, cpu));
  return true;
}

static const char kUsage[] =
    "usage: bench_gpu_resize MODEL --shape=D0,D1,... [--backend=cl|vk] "
    "[--fp16]\n"
    "  Times ResizeInputTensor + AllocateTensors of input 0 to --shape and\n"
    "  back with the GPU delegate (default OpenCL), against its cold init,\n"
    "  prints the median of 5 Invokes at each shape, and compares each\n"
    "  Invoke's outputs with the CPU's.\n";

int main(int argc, char** argv) {
  if (lg_tool_help_asked(argc, argv)) {
    fputs(kUsage, stdout);
    return 0;
  }
  args a;
  if (!parse_args(argc, argv, &a)) {
    fputs(kUsage, stderr);
    return 2;
  }
  TfLiteModel* model = TfLiteModelCreateFromFile(a.model);
  if (model == NULL) return 2;
  const uint64_t t0 = lg_now_ns();
  litegpu_gpu_delegate_options o = litegpu_gpu_delegate_options_default();
  o.backend = a.backend;
  if (a.fp16) o.tflite.is_precision_loss_allowed = 1;
  char error[512] = "";
  TfLiteDelegate* d = litegpu_gpu_delegate_create(&o, error, sizeof(error));
  TfLiteInterpreter* gpu = d != NULL ? create(model, d) : NULL;
  TfLiteInterpreter* cpu = create(model, NULL);
  int status = 1;
  if (gpu == NULL || cpu == NULL ||
      TfLiteInterpreterAllocateTensors(gpu) != kTfLiteOk) {
    fprintf(stderr, "bench_gpu_resize: setup failed %s\n", error);
    goto done;
  }
  const double cold_ms = (double)(lg_now_ns() - t0) / 1e6;
  litegpu_gpu_delegate_stats st;
  litegpu_gpu_delegate_get_stats(d, &st);
  printf(
      "%s on %s (%s): %d partitions, %d nodes; cold init %.1f ms, %lld "
      "kernels compiled\n",
      a.model, st.backend, st.device_name, st.partitions, st.nodes_delegated,
      cold_ms, programs_compiled(d));
  const TfLiteTensor* in = TfLiteInterpreterGetInputTensor(gpu, 0);
  int original[MAX_DIMS];
  const int rank = TfLiteTensorNumDims(in);
  for (int i = 0; i < rank && i < MAX_DIMS; ++i) {
    original[i] = TfLiteTensorDim(in, i);
  }
  if (compare_at("model", gpu, cpu, d, NULL, 0, cold_ms) &&
      compare_at("resize", gpu, cpu, d, a.shape, a.rank, cold_ms) &&
      compare_at("back", gpu, cpu, d, original, rank, cold_ms)) {
    status = 0;
  }
done:
  TfLiteInterpreterDelete(gpu);
  TfLiteInterpreterDelete(cpu);
  if (d != NULL) TfLiteGpuDelegateV2Delete(d);
  TfLiteModelDelete(model);
  return status;
}
