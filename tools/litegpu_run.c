/* litegpu_run: run a .tflite model through the C API and print its outputs,
 * timing and memory plan.
 *
 *   litegpu_run MODEL [--input=V,V,...] [--num_threads=N] [--num_runs=N]
 *               [--custom_op_library=PATH ...]
 *   litegpu_run --help
 *
 * Input 0 takes the --input values (repeated to fill the tensor; more
 * values than it has elements is an error; integer and quantized tensors
 * take them as stored integers, clamped to the type); other inputs, and
 * input 0 without --input, get seeded pseudo-random values in [0, 1)
 * (integers: 0..9), so runs are reproducible. Each --custom_op_library is
 * loaded before the model and registers its ops on the interpreter's
 * options (tools/custom_op_library.h).
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
#include "tools/custom_op_library.h"
#include "tools/tool_help.h"

#define MAX_INPUT_VALUES 4096
#define PRINT_LIMIT 16

typedef struct run_options {
  const char* model_path;
  double input_values[MAX_INPUT_VALUES];
  int num_input_values;
  int num_threads;
  int num_runs;
  int help;
  lg_custom_op_libraries libraries; /* --custom_op_library */
} run_options;

static double now_ms(void) { return (double)lg_now_ns() / 1e6; }

static void usage(FILE* out) {
  fprintf(out,
          "usage: litegpu_run MODEL [--input=V,V,...] [--num_threads=N] "
          "[--num_runs=N] [--custom_op_library=PATH ...]\n");
}

static void help(void) {
  usage(stdout);
  printf(
      "Runs a .tflite model on litegpu's CPU through TFLite's C API and\n"
      "prints its inputs and outputs, the load / create / allocate / first\n"
      "invoke times, the invoke time over --num_runs runs and the memory\n"
      "plan. MediaPipe's custom ops are registered.\n"
      "  --input=V,V,...   input 0's values, repeated to fill it (at most\n"
      "                    its element count; integer and quantized\n"
      "                    tensors take them as stored integers)\n"
      "  --num_threads=N   interpreter threads (default 1; -1: the default)\n"
      "  --num_runs=N      timed invokes after the first (default 10)\n");
  fputs(LG_TOOL_HELP_CUSTOM_OP_LIBRARY, stdout);
  printf(
      "Other inputs get seeded pseudo-random values. Exit status: 0, 1 when\n"
      "the model fails, 2 on a bad argument (a custom-op library that cannot\n"
      "be opened, lacks litegpu_register_custom_ops or fails in it too).\n");
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
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      o->help = 1;
      return 0;
    } else if (strncmp(a, "--input=", 8) == 0) {
      bad = parse_values(a + 8, o);
    } else if (strncmp(a, "--num_threads=", 14) == 0) {
      bad = parse_int(a + 14, -1, &o->num_threads);
    } else if (strncmp(a, "--num_runs=", 11) == 0) {
      bad = parse_int(a + 11, 1, &o->num_runs);
    } else if (strncmp(a, "--custom_op_library=", 20) == 0) {
      char why[256];
      if (!lg_custom_op_libraries_add(&o->libraries, a + 20, why,
                                      sizeof(why))) {
        fprintf(stderr, "litegpu_run: %s\n", why);
        return -1;
      }
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

/* v as a stored integer of a type spanning [lo, hi], clamped. */
static int64_t clamp_value(double v, double lo, double hi) {
  if (!(v >= lo)) return (int64_t)lo; /* NaN too */
  return (int64_t)(v > hi ? hi : v);
}

/* --input values as stored integers (quantized and integer types other
 * than INT32); false for the types that take them otherwise. */
static int fill_integers(TfLiteTensor* t, const run_options* o) {
  void* data = TfLiteTensorData(t);
  const size_t bytes = TfLiteTensorByteSize(t);
  for (size_t i = 0;; ++i) {
    const double v = o->input_values[i % (size_t)o->num_input_values];
    switch (TfLiteTensorType(t)) {
      case kTfLiteInt8:
        if (i >= bytes) return 1;
        ((int8_t*)data)[i] = (int8_t)clamp_value(v, -128, 127);
        break;
      case kTfLiteUInt8:
        if (i >= bytes) return 1;
        ((uint8_t*)data)[i] = (uint8_t)clamp_value(v, 0, 255);
        break;
      case kTfLiteInt16:
        if (i >= bytes / 2) return 1;
        ((int16_t*)data)[i] = (int16_t)clamp_value(v, -32768, 32767);
        break;
      case kTfLiteInt64:
        if (i >= bytes / 8) return 1;
        ((int64_t*)data)[i] = clamp_value(v, -9.2e18, 9.2e18);
        break;
      default:
        return 0;
    }
  }
}

static void fill_input(TfLiteTensor* t, const run_options* o, int use_values,
                       uint32_t* rng) {
  size_t bytes = TfLiteTensorByteSize(t);
  void* data = TfLiteTensorData(t);
  if (use_values && fill_integers(t, o)) return;
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
  char why[1024];
  if (!lg_custom_op_libraries_register(&o->libraries, options, why,
                                       sizeof(why))) {
    fprintf(stderr, "litegpu_run: %s\n", why);
    rc = 2;
    goto done;
  }
  t0 = now_ms();
  ip = TfLiteInterpreterCreate(model, options);
  double t_create = now_ms() - t0;
  if (ip == NULL) goto done;
  t0 = now_ms();
  if (TfLiteInterpreterAllocateTensors(ip) != kTfLiteOk) goto done;
  double t_alloc = now_ms() - t0;
  uint32_t rng = 12345;
  if (o->num_input_values > 0 && TfLiteInterpreterGetInputTensorCount(ip) > 0) {
    const TfLiteTensor* t0_in = TfLiteInterpreterGetInputTensor(ip, 0);
    size_t elements = 1;
    for (int d = 0; d < TfLiteTensorNumDims(t0_in); ++d) {
      elements *= (size_t)TfLiteTensorDim(t0_in, d);
    }
    if ((size_t)o->num_input_values > elements) {
      fprintf(stderr,
              "litegpu_run: --input has %d values, but input 0 '%s' has %zu "
              "elements\n",
              o->num_input_values, TfLiteTensorName(t0_in), elements);
      goto done;
    }
  }
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
  if (rc == 1) fprintf(stderr, "litegpu_run: failed on %s\n", o->model_path);
  free(times);
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(options);
  TfLiteModelDelete(model);
  return rc;
}

int main(int argc, char** argv) {
  run_options o;
  if (parse_args(argc, argv, &o) != 0) {
    usage(stderr);
    return 2;
  }
  if (o.help) {
    help();
    return 0;
  }
  char why[1024];
  if (!lg_custom_op_libraries_load(&o.libraries, why, sizeof(why))) {
    fprintf(stderr, "litegpu_run: %s\n", why);
    lg_custom_op_libraries_close(&o.libraries);
    return 2;
  }
  const int rc = run(&o);
  lg_custom_op_libraries_close(&o.libraries);
  return rc;
}
