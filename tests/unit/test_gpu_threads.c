/* The GPU delegate from several threads at once, as an app that runs two
 * models side by side uses it: each thread creates its own delegate and
 * interpreter.
 *
 *   1. Delegates created at the same moment (a barrier releases the threads
 *      together) must all find their device. This runs first in the
 *      process: PoCL initializes its devices inside the first
 *      clGetDeviceIDs, and a thread that asked while another was in there
 *      got no device (fixed by serializing discovery,
 *      delegates/opencl/opencl_device.c).
 *   2. Four interpreters (two on OpenCL, two on Vulkan) run kws_cnn.tflite
 *      concurrently, each on inputs of its own; every output must match the
 *      CPU's for the same input within the fp32 bound 1e-5 * max(1, |ref|).
 */
#define _POSIX_C_SOURCE 200809L /* pthread barriers */

#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "litegpu/gpu_delegate.h"
#include "tensorflow/lite/c/c_api.h"
#include "tests/support/vulkan_hold.h"

#define MODEL LITEGPU_SOURCE_DIR "/tests/models/kws_cnn.tflite"
#define RUNS 20
#define MAX_THREADS 4
#define INPUT_SETS 2
#define MAX_OUTPUT 64

static TfLiteModel* g_model;
static pthread_barrier_t g_barrier;
/* The CPU's outputs for each input set. */
static float g_reference[INPUT_SETS][MAX_OUTPUT];
static int g_outputs;

typedef struct worker {
  litegpu_gpu_backend backend;
  int first_set;
  TfLiteDelegate* delegate;
  char why[1024];
  int invoke_failures;
  int mismatches;
  double worst;
} worker;

/* Input set `set`: a smooth signal, different per set. */
static void fill_input(TfLiteInterpreter* ip, int set) {
  TfLiteTensor* in = TfLiteInterpreterGetInputTensor(ip, 0);
  float* data = TfLiteTensorData(in);
  const size_t n = TfLiteTensorByteSize(in) / sizeof(float);
  for (size_t i = 0; i < n; ++i) {
    data[i] = sinf(0.01f * (float)i + 1.7f * (float)set);
  }
}

static TfLiteDelegate* create_delegate(worker* w) {
  litegpu_gpu_delegate_options o = litegpu_gpu_delegate_options_default();
  o.backend = w->backend;
  o.tflite.is_precision_loss_allowed = 0; /* the fp32 bound */
  return litegpu_gpu_delegate_create(&o, w->why, sizeof(w->why));
}

static void* create_at_once(void* arg) {
  worker* w = arg;
  pthread_barrier_wait(&g_barrier);
  w->delegate = create_delegate(w);
  return NULL;
}

/* Runs `count` workers' create_at_once together; each must succeed. */
static void check_created_together(worker* workers, int count) {
  pthread_t threads[MAX_THREADS];
  assert_int_equal(pthread_barrier_init(&g_barrier, NULL, (unsigned)count), 0);
  for (int i = 0; i < count; ++i) {
    assert_int_equal(
        pthread_create(&threads[i], NULL, create_at_once, &workers[i]), 0);
  }
  for (int i = 0; i < count; ++i) pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&g_barrier);
  for (int i = 0; i < count; ++i) {
    if (workers[i].delegate == NULL) {
      fail_msg("thread %d: %s", i, workers[i].why);
    }
    TfLiteGpuDelegateV2Delete(workers[i].delegate);
    workers[i].delegate = NULL;
  }
}

static void test_delegates_created_at_once(void** state) {
  (void)state;
  worker cl[2] = {{.backend = LITEGPU_GPU_BACKEND_OPENCL},
                  {.backend = LITEGPU_GPU_BACKEND_OPENCL}};
  check_created_together(cl, 2);
  worker vk[2] = {{.backend = LITEGPU_GPU_BACKEND_VULKAN},
                  {.backend = LITEGPU_GPU_BACKEND_VULKAN}};
  check_created_together(vk, 2);
}

static void compute_reference(void) {
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(g_model, NULL);
  assert_non_null(ip);
  assert_int_equal(TfLiteInterpreterAllocateTensors(ip), kTfLiteOk);
  const TfLiteTensor* out = TfLiteInterpreterGetOutputTensor(ip, 0);
  g_outputs = (int)(TfLiteTensorByteSize(out) / sizeof(float));
  assert_true(g_outputs > 0 && g_outputs <= MAX_OUTPUT);
  for (int set = 0; set < INPUT_SETS; ++set) {
    fill_input(ip, set);
    assert_int_equal(TfLiteInterpreterInvoke(ip), kTfLiteOk);
    assert_int_equal(TfLiteTensorCopyToBuffer(out, g_reference[set],
                                              sizeof(float) * g_outputs),
                     kTfLiteOk);
  }
  /* The two sets must tell a swapped input apart. */
  assert_true(fabsf(g_reference[0][0] - g_reference[1][0]) > 1e-4f);
  TfLiteInterpreterDelete(ip);
}

static void* run_model(void* arg) {
  worker* w = arg;
  TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(options, 1);
  TfLiteInterpreterOptionsAddDelegate(options, w->delegate);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(g_model, options);
  if (ip == NULL || TfLiteInterpreterAllocateTensors(ip) != kTfLiteOk) {
    w->invoke_failures = RUNS;
    goto done;
  }
  pthread_barrier_wait(&g_barrier);
  float out[MAX_OUTPUT];
  for (int run = 0; run < RUNS; ++run) {
    const int set = (w->first_set + run) % INPUT_SETS;
    fill_input(ip, set);
    if (TfLiteInterpreterInvoke(ip) != kTfLiteOk) {
      w->invoke_failures++;
      continue;
    }
    TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(ip, 0), out,
                             sizeof(float) * g_outputs);
    for (int i = 0; i < g_outputs; ++i) {
      const double ref = g_reference[set][i];
      const double err = fabs(out[i] - ref);
      if (err > w->worst) w->worst = err;
      if (!(err <= 1e-5 * fmax(1.0, fabs(ref)))) w->mismatches++;
    }
  }
done:
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(options);
  return NULL;
}

static void test_interpreters_run_in_parallel(void** state) {
  (void)state;
  compute_reference();
  worker workers[MAX_THREADS] = {
      {.backend = LITEGPU_GPU_BACKEND_OPENCL, .first_set = 0},
      {.backend = LITEGPU_GPU_BACKEND_OPENCL, .first_set = 1},
      {.backend = LITEGPU_GPU_BACKEND_VULKAN, .first_set = 0},
      {.backend = LITEGPU_GPU_BACKEND_VULKAN, .first_set = 1},
  };
  for (int i = 0; i < MAX_THREADS; ++i) {
    workers[i].delegate = create_delegate(&workers[i]);
    if (workers[i].delegate == NULL) fail_msg("%s", workers[i].why);
  }
  pthread_t threads[MAX_THREADS];
  assert_int_equal(pthread_barrier_init(&g_barrier, NULL, MAX_THREADS), 0);
  for (int i = 0; i < MAX_THREADS; ++i) {
    assert_int_equal(pthread_create(&threads[i], NULL, run_model, &workers[i]),
                     0);
  }
  for (int i = 0; i < MAX_THREADS; ++i) pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&g_barrier);
  for (int i = 0; i < MAX_THREADS; ++i) {
    litegpu_gpu_delegate_stats stats;
    assert_int_equal(
        litegpu_gpu_delegate_get_stats(workers[i].delegate, &stats), kTfLiteOk);
    TfLiteGpuDelegateV2Delete(workers[i].delegate);
    if (workers[i].invoke_failures != 0 || workers[i].mismatches != 0) {
      fail_msg("thread %d (%s): %d failed invokes, %d outputs off (worst %g)",
               i, stats.backend, workers[i].invoke_failures,
               workers[i].mismatches, workers[i].worst);
    }
    /* The whole model ran on the GPU, not on a CPU fallback. */
    assert_int_equal(stats.partitions, 1);
  }
}

int main(void) {
  lg_test_hold_vulkan_libraries();
  g_model = TfLiteModelCreateFromFile(MODEL);
  if (g_model == NULL) {
    fprintf(stderr, "cannot load %s\n", MODEL);
    return 1;
  }
  const struct CMUnitTest tests[] = {
      /* First: the race is in the driver's first device query. */
      cmocka_unit_test(test_delegates_created_at_once),
      cmocka_unit_test(test_interpreters_run_in_parallel),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  TfLiteModelDelete(g_model);
  return failed;
}
