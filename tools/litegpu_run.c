/* litegpu_run: run a .tflite model through the C API and print its outputs,
 * timing and memory plan.
 *
 *   litegpu_run MODEL [--input=V,V,...] [--num_threads=N] [--num_runs=N]
 *
 * Input 0 takes the --input values (repeated to fill the tensor); other
 * inputs, and input 0 without --input, get seeded pseudo-random values in
 * [0, 1) (integers: 0..9), so runs are reproducible.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "litegpu/interpreter_info.h"
#include "litegpu/mediapipe_ops.h"
#include "tensorflow/lite/c/c_api.h"

#define MAX_INPUT_VALUES 4096
#define PRINT_LIMIT 16

typedef struct run_options {
  const char* model_path;
  double input_values[MAX_INPUT_VALUES];
  int num_input_values;
  int num_threads;
  int num_runs;
} run_options;

static double now_ms(void) { return (double)lg_now_ns() / 1e6; }

static void usage(void) {
  fprintf(stderr,
          "usage: litegpu_run MODEL [--input=V,V,...] [--num_threads=N] "
          "[--num_runs=N]\n");
}

static int parse_values(const char* text, run_options* o) {
  char* end = NULL;
  o->num_input_values = 0;
  while (*text != '\0' && o->num_input_values < MAX_INPUT_VALUES) {
    double v = strtod(text, &end);
    if (end == text) return -1;
    o->input_values[o->num_input_values++] = v;
    text = (*end == ',') ? end + 1 : end;
  }
  return *text == '\0' ? 0 : -1;
}

static int parse_int(const char* text, int min, int* out) {
  char* end = NULL;
  long v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < min || v > 1000000) return -1;
  *out = (int)v;
  return 0;
}

static int parse_args(int argc, char** argv, run_options* o) {
  memset(o, 0, sizeof(*o));
  o->num_threads = 1;
  o->num_runs = 10;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    int bad = 0;
    if (strncmp(a, "--input=", 8) == 0) {
      bad = parse_values(a + 8, o);
    } else if (strncmp(a, "--num_threads=", 14) == 0) {
      bad = parse_int(a + 14, -1, &o->num_threads);
    } else if (strncmp(a, "--num_runs=", 11) == 0) {
      bad = parse_int(a + 11, 1, &o->num_runs);
    } else if (a[0] != '-' && o->model_path == NULL) {
      o->model_path = a;
    } else {
      bad = 1;
    }
    if (bad) {
      fprintf(stderr, "litegpu_run: bad argument '%s'\n", a);
      return -1;
    }
  }
  return o->model_path == NULL ? -1 : 0;
}

/* A small linear congruential generator: reproducible inputs. */
static double next_random(uint32_t* state) {
  *state = *state * 1664525u + 1013904223u;
  return (*state >> 8) / 16777216.0;
}

static void fill_input(TfLiteTensor* t, const run_options* o, int use_values,
                       uint32_t* rng) {
  size_t bytes = TfLiteTensorByteSize(t);
  void* data = TfLiteTensorData(t);
  switch (TfLiteTensorType(t)) {
    case kTfLiteFloat32:
      for (size_t i = 0; i < bytes / sizeof(float); ++i) {
        ((float*)data)[i] =
            use_values ? (float)o->input_values[i % o->num_input_values]
                       : (float)next_random(rng);
      }
      break;
    case kTfLiteInt32:
      for (size_t i = 0; i < bytes / sizeof(int32_t); ++i) {
        ((int32_t*)data)[i] =
            use_values ? (int32_t)o->input_values[i % o->num_input_values]
                       : (int32_t)(next_random(rng) * 10);
      }
      break;
    default:
      for (size_t i = 0; i < bytes; ++i) {
        ((uint8_t*)data)[i] = (uint8_t)(next_random(rng) * 10);
      }
  }
}

static void print_tensor(const char* role, int index, const TfLiteTensor* t) {
  printf("%s %d '%s' %s [", role, index, TfLiteTensorName(t),
         TfLiteTypeGetName(TfLiteTensorType(t)));
  for (int d = 0; d < TfLiteTensorNumDims(t); ++d) {
    printf(d ? ",%d" : "%d", TfLiteTensorDim(t, d));
  }
  printf("]:");
  const void* data = TfLiteTensorData(t);
  size_t count = 0;
  if (TfLiteTensorType(t) == kTfLiteFloat32) {
    count = TfLiteTensorByteSize(t) / sizeof(float);
    for (size_t i = 0; i < count && i < PRINT_LIMIT; ++i) {
      printf(" %.7g", ((const float*)data)[i]);
    }
  } else if (TfLiteTensorType(t) == kTfLiteInt32) {
    count = TfLiteTensorByteSize(t) / sizeof(int32_t);
    for (size_t i = 0; i < count && i < PRINT_LIMIT; ++i) {
      printf(" %d", ((const int32_t*)data)[i]);
    }
  } else {
    count = TfLiteTensorByteSize(t);
    for (size_t i = 0; i < count && i < PRINT_LIMIT; ++i) {
      printf(" %d", ((const int8_t*)data)[i]);
    }
  }
  printf(count > PRINT_LIMIT ? " ... (%zu values)\n" : "\n", count);
}

static int compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static int run(const run_options* o) {
  int rc = 1;
  TfLiteInterpreterOptions* options = NULL;
  TfLiteInterpreter* ip = NULL;
  double* times = NULL;
  double t0 = now_ms();
  TfLiteModel* model = TfLiteModelCreateFromFile(o->model_path);
  double t_load = now_ms() - t0;
  if (model == NULL) goto done;
  options = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(options, o->num_threads);
  litegpu_add_mediapipe_ops(options); /* MediaPipe's custom ops' kernels */
  t0 = now_ms();
  ip = TfLiteInterpreterCreate(model, options);
  double t_create = now_ms() - t0;
  if (ip == NULL) goto done;
  t0 = now_ms();
  if (TfLiteInterpreterAllocateTensors(ip) != kTfLiteOk) goto done;
  double t_alloc = now_ms() - t0;
  uint32_t rng = 12345;
  for (int i = 0; i < TfLiteInterpreterGetInputTensorCount(ip); ++i) {
    TfLiteTensor* t = TfLiteInterpreterGetInputTensor(ip, i);
    fill_input(t, o, i == 0 && o->num_input_values > 0, &rng);
    print_tensor("input ", i, t);
  }
  t0 = now_ms();
  if (TfLiteInterpreterInvoke(ip) != kTfLiteOk) goto done;
  double t_first = now_ms() - t0;
  times = malloc(sizeof(double) * (size_t)o->num_runs);
  if (times == NULL) goto done;
  for (int r = 0; r < o->num_runs; ++r) {
    t0 = now_ms();
    if (TfLiteInterpreterInvoke(ip) != kTfLiteOk) goto done;
    times[r] = now_ms() - t0;
  }
  for (int i = 0; i < TfLiteInterpreterGetOutputTensorCount(ip); ++i) {
    print_tensor("output", i, TfLiteInterpreterGetOutputTensor(ip, i));
  }
  double sum = 0;
  for (int r = 0; r < o->num_runs; ++r) sum += times[r];
  qsort(times, (size_t)o->num_runs, sizeof(double), compare_doubles);
  printf(
      "load %.3f ms, create %.3f ms, allocate %.3f ms, first invoke "
      "%.3f ms\n",
      t_load, t_create, t_alloc, t_first);
  printf("invoke over %d runs: mean %.4f ms, median %.4f ms, min %.4f ms\n",
         o->num_runs, sum / o->num_runs, times[o->num_runs / 2], times[0]);
  litegpu_memory_info info;
  if (litegpu_interpreter_memory_info(ip, &info) == kTfLiteOk) {
    printf(
        "memory: arena %zu bytes for %zu bytes of tensors, heap %zu "
        "bytes, constants %zu bytes (mapped, not copied)\n",
        info.arena_bytes, info.non_constant_tensor_bytes, info.heap_bytes,
        info.constant_bytes);
  }
  rc = 0;
done:
  if (rc != 0) fprintf(stderr, "litegpu_run: failed on %s\n", o->model_path);
  free(times);
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(options);
  TfLiteModelDelete(model);
  return rc;
}

int main(int argc, char** argv) {
  run_options o;
  if (parse_args(argc, argv, &o) != 0) {
    usage();
    return 2;
  }
  return run(&o);
}
