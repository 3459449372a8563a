/* bench_async: inferences in flight through the async signature runner
 * (tensorflow/lite/core/async/c/async_signature_runner.h) against
 * back-to-back synchronous Invokes.
 *
 *   bench_async --graph=MODEL [--signature=KEY] [--num_runs=N]
 *               [--in_flight=K] [--host_work_us=US] [--num_threads=T]
 *               [--repeats=R] [--use_gpu] [--gpu_backend=cl|vk]
 *
 * Both phases run N inferences on the same interpreter and copy the same
 * host buffers in and out of the signature's tensors (KEY, or without one
 * the interpreter's inputs and outputs). Before each inference the caller
 * spends --host_work_us busy on its own thread, standing for the
 * application's pre- and post-processing (decoding the next frame, reading
 * the last result). Back to back: work, copy in, Invoke, copy out, N times.
 * Async: K tasks, each with its own buffers; the caller does the work for
 * a task and schedules it, and once K are in flight waits for the oldest
 * before reusing it. The runner executes one task at a time, so what K > 1
 * buys is the caller's work overlapping the execution.
 *
 * The two phases alternate R times (default 5); the figures are the
 * medians, so that a machine busy with other work skews both alike.
 * Prints both wall times, the per-inference time and the speed-up, and
 * checks that an async output equals the synchronous one for the same
 * input (exit 1 when not). Exit 2 on a bad command line, 1 when the model
 * does not load or run. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "litegpu/async.h"
#include "litegpu/gpu_delegate.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_opaque.h"
#include "tensorflow/lite/core/async/c/async_signature_runner.h"
#include "tensorflow/lite/core/async/c/task.h"
#include "tools/tool_help.h"

#define USAGE                                                                  \
  "usage: bench_async --graph=MODEL [--signature=KEY] [--num_runs=N]\n"        \
  "                   [--in_flight=K] [--host_work_us=US] [--num_threads=T]\n" \
  "                   [--repeats=R] [--use_gpu] [--gpu_backend=cl|vk]\n"       \
  "  --num_runs=N      inferences per phase (default 50)\n"                    \
  "  --in_flight=K     async tasks in flight (default 2)\n"                    \
  "  --host_work_us=US the caller's busy time per inference (default 0)\n"     \
  "  --repeats=R       alternations of the two phases, medians (default 5)\n"  \
  "Exit status: 0 done, 1 the model failed or the outputs differ, 2 bad\n"     \
  "arguments.\n"

typedef struct config {
  const char* graph;
  const char* signature; /* NULL: the interpreter's inputs and outputs */
  int num_runs, in_flight, host_work_us, num_threads, repeats;
  bool use_gpu;
  litegpu_gpu_backend backend;
} config;

static bool int_flag(const char* arg, const char* name, int min, int* out) {
  const size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  char* end;
  const long v = strtol(arg + n + 1, &end, 10);
  if (*end != '\0' || v < min || v > 1000000) {
    fprintf(stderr, "bench_async: %s must be an integer >= %d\n", name, min);
    exit(2);
  }
  *out = (int)v;
  return true;
}

static config parse(int argc, char** argv) {
  config c = {NULL, NULL, 50, 2, 0, 1, 5, false, LITEGPU_GPU_BACKEND_AUTO};
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (strncmp(a, "--graph=", 8) == 0) {
      c.graph = a + 8;
    } else if (strncmp(a, "--signature=", 12) == 0) {
      c.signature = a + 12;
    } else if (strcmp(a, "--use_gpu") == 0) {
      c.use_gpu = true;
    } else if (strcmp(a, "--gpu_backend=cl") == 0) {
      c.backend = LITEGPU_GPU_BACKEND_OPENCL;
    } else if (strcmp(a, "--gpu_backend=vk") == 0) {
      c.backend = LITEGPU_GPU_BACKEND_VULKAN;
    } else if (!int_flag(a, "--num_runs", 1, &c.num_runs) &&
               !int_flag(a, "--in_flight", 1, &c.in_flight) &&
               !int_flag(a, "--host_work_us", 0, &c.host_work_us) &&
               !int_flag(a, "--num_threads", 1, &c.num_threads) &&
               !int_flag(a, "--repeats", 1, &c.repeats)) {
      fprintf(stderr, "bench_async: unknown argument '%s'\n%s", a, USAGE);
      exit(2);
    }
  }
  if (c.graph == NULL) {
    fprintf(stderr, "bench_async: --graph is required\n%s", USAGE);
    exit(2);
  }
  return c;
}

/* The application's own work: the calling thread busy for `us`. */
static void host_work(int us) {
  const uint64_t end = lg_now_ns() + (uint64_t)us * 1000u;
  while (lg_now_ns() < end) {
  }
}

/* One task's host buffers: inputs then outputs, each its tensor's bytes. */
typedef struct slot {
  TfLiteExecutionTask* task;
  void** buffers;
} slot;

typedef struct bench {
  config cfg;
  TfLiteInterpreter* interpreter;
  TfLiteAsyncSignatureRunner* runner;
  TfLiteSignatureRunner* sync_runner; /* with --signature */
  int num_inputs, num_outputs;
  slot* slots;
} bench;

static const TfLiteOpaqueTensor* io_tensor(const bench* b, int io) {
  return io < b->num_inputs
             ? TfLiteAsyncSignatureRunnerGetInputTensor(
                   b->runner,
                   TfLiteAsyncSignatureRunnerGetInputName(b->runner, io))
             : TfLiteAsyncSignatureRunnerGetOutputTensor(
                   b->runner, TfLiteAsyncSignatureRunnerGetOutputName(
                                  b->runner, io - b->num_inputs));
}

static const char* io_name(const bench* b, int io) {
  return io < b->num_inputs
             ? TfLiteAsyncSignatureRunnerGetInputName(b->runner, io)
             : TfLiteAsyncSignatureRunnerGetOutputName(b->runner,
                                                       io - b->num_inputs);
}

/* Random bytes for inputs: floats in [-0.5, 0.5], other types byte noise
 * kept small (0..3) so indices stay in range. */
static void fill_input(void* data, size_t bytes, TfLiteType type,
                       unsigned* seed) {
  if (type == kTfLiteFloat32) {
    float* f = data;
    for (size_t i = 0; i < bytes / 4; ++i) {
      f[i] = (float)rand_r(seed) / (float)RAND_MAX - 0.5f;
    }
    return;
  }
  uint8_t* u = data;
  memset(u, 0, bytes);
  for (size_t i = 0; i < bytes; ++i) u[i] = (uint8_t)(rand_r(seed) & 3);
}

static bool make_slots(bench* b) {
  const int n = b->num_inputs + b->num_outputs;
  b->slots = calloc((size_t)b->cfg.in_flight, sizeof(slot));
  if (b->slots == NULL) return false;
  unsigned seed = 1;
  for (int k = 0; k < b->cfg.in_flight; ++k) {
    slot* s = &b->slots[k];
    s->buffers = calloc((size_t)n, sizeof(void*));
    s->task = TfLiteAsyncSignatureRunnerCreateTask(b->runner);
    if (s->buffers == NULL || s->task == NULL) return false;
    for (int io = 0; io < n; ++io) {
      const TfLiteOpaqueTensor* t = io_tensor(b, io);
      const size_t bytes = TfLiteOpaqueTensorByteSize(t);
      s->buffers[io] = calloc(1, bytes ? bytes : 1);
      if (s->buffers[io] == NULL) return false;
      if (io < b->num_inputs) {
        fill_input(s->buffers[io], bytes, TfLiteOpaqueTensorType(t), &seed);
      }
      TfLiteBackendBuffer* buf = TfLiteBackendBufferCreate();
      TfLiteAttributeMap* a =
          TfLiteAttributeMapCreate(kTfLiteAttrMapTypeBuffer);
      TfLiteBackendBufferSetPtr(buf, s->buffers[io]);
      TfLiteAttributeMapSetStringBufferAttr(
          a, kTfLiteBufferAttrKeyResourceTypeName,
          LITEGPU_BUFFER_TYPE_HOST_MEMORY);
      TfLiteAttributeMapSetSizeTBufferAttr(a, kTfLiteBufferAttrKeySize, bytes);
      const TfLiteIoType io_type =
          io < b->num_inputs ? kTfLiteIoTypeInput : kTfLiteIoTypeOutput;
      TfLiteBufferHandle h = kTfLiteNullBufferHandle;
      const TfLiteStatus st = TfLiteAsyncSignatureRunnerRegisterBuffer(
          b->runner, io_type, buf, a, &h);
      TfLiteAttributeMapDelete(a);
      TfLiteBackendBufferDelete(buf);
      if (st != kTfLiteOk ||
          TfLiteExecutionTaskSetBuffer(s->task, io_type, io_name(b, io), h) !=
              kTfLiteOk) {
        return false;
      }
    }
  }
  return true;
}

/* The tensor the synchronous path reads or writes for io entry `io`. */
static TfLiteTensor* sync_tensor(const bench* b, int io) {
  if (b->sync_runner != NULL) {
    return io < b->num_inputs
               ? TfLiteSignatureRunnerGetInputTensor(b->sync_runner,
                                                     io_name(b, io))
               : (TfLiteTensor*)TfLiteSignatureRunnerGetOutputTensor(
                     b->sync_runner, io_name(b, io));
  }
  return io < b->num_inputs
             ? TfLiteInterpreterGetInputTensor(b->interpreter, io)
             : (TfLiteTensor*)TfLiteInterpreterGetOutputTensor(
                   b->interpreter, io - b->num_inputs);
}

/* One synchronous inference on slot `k`'s buffers. */
static bool run_sync(bench* b, int k) {
  slot* s = &b->slots[k];
  for (int io = 0; io < b->num_inputs; ++io) {
    TfLiteTensor* t = sync_tensor(b, io);
    if (TfLiteTensorCopyFromBuffer(t, s->buffers[io],
                                   TfLiteTensorByteSize(t)) != kTfLiteOk) {
      return false;
    }
  }
  const TfLiteStatus st = b->sync_runner
                              ? TfLiteSignatureRunnerInvoke(b->sync_runner)
                              : TfLiteInterpreterInvoke(b->interpreter);
  if (st != kTfLiteOk) return false;
  for (int io = b->num_inputs; io < b->num_inputs + b->num_outputs; ++io) {
    const TfLiteTensor* t = sync_tensor(b, io);
    if (TfLiteTensorCopyToBuffer(t, s->buffers[io], TfLiteTensorByteSize(t)) !=
        kTfLiteOk) {
      return false;
    }
  }
  return true;
}

static double back_to_back_ms(bench* b) {
  const uint64_t start = lg_now_ns();
  for (int i = 0; i < b->cfg.num_runs; ++i) {
    host_work(b->cfg.host_work_us);
    if (!run_sync(b, i % b->cfg.in_flight)) return -1;
  }
  return (double)(lg_now_ns() - start) / 1e6;
}

static double in_flight_ms(bench* b) {
  const int k = b->cfg.in_flight, n = b->cfg.num_runs;
  const uint64_t start = lg_now_ns();
  int issued = 0;
  for (; issued < k && issued < n; ++issued) {
    host_work(b->cfg.host_work_us);
    if (TfLiteAsyncSignatureRunnerInvokeAsync(
            b->runner, b->slots[issued].task) != kTfLiteOk) {
      return -1;
    }
  }
  for (int done = 0; done < n; ++done) {
    TfLiteExecutionTask* t = b->slots[done % k].task;
    if (TfLiteAsyncSignatureRunnerWait(b->runner, t) != kTfLiteOk) return -1;
    if (issued < n) {
      host_work(b->cfg.host_work_us);
      if (TfLiteAsyncSignatureRunnerInvokeAsync(b->runner, t) != kTfLiteOk) {
        return -1;
      }
      ++issued;
    }
  }
  return (double)(lg_now_ns() - start) / 1e6;
}

/* Slot 0's outputs from the async phase against a synchronous run. */
static bool outputs_match(bench* b) {
  const int first = b->num_inputs, n = b->num_inputs + b->num_outputs;
  bool same = true;
  void** saved = calloc((size_t)n, sizeof(void*));
  if (saved == NULL) return false;
  for (int io = first; io < n; ++io) {
    const size_t bytes = TfLiteOpaqueTensorByteSize(io_tensor(b, io));
    saved[io] = malloc(bytes ? bytes : 1);
    if (saved[io] != NULL) memcpy(saved[io], b->slots[0].buffers[io], bytes);
    same = same && saved[io] != NULL;
  }
  same = same && run_sync(b, 0);
  for (int io = first; io < n; ++io) {
    const size_t bytes = TfLiteOpaqueTensorByteSize(io_tensor(b, io));
    if (same && memcmp(saved[io], b->slots[0].buffers[io], bytes) != 0) {
      fprintf(stderr, "bench_async: output '%s' differs from Invoke's\n",
              io_name(b, io));
      same = false;
    }
    free(saved[io]);
  }
  free(saved);
  return same;
}

static int compare_doubles(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The medians of the two phases over cfg.repeats alternations; false when
 * a run fails. */
static bool measure(bench* b, double* sync_ms, double* async_ms) {
  const int r = b->cfg.repeats;
  double* times = calloc(2 * (size_t)r, sizeof(double));
  if (times == NULL) return false;
  bool ok = true;
  for (int i = 0; ok && i < r; ++i) {
    times[i] = back_to_back_ms(b);
    times[r + i] = times[i] < 0 ? -1 : in_flight_ms(b);
    ok = times[i] >= 0 && times[r + i] >= 0;
  }
  qsort(times, (size_t)r, sizeof(double), compare_doubles);
  qsort(times + r, (size_t)r, sizeof(double), compare_doubles);
  *sync_ms = times[r / 2];
  *async_ms = times[r + r / 2];
  free(times);
  return ok;
}

static int run(const config* cfg) {
  int rc = 1;
  bench b = {.cfg = *cfg};
  TfLiteDelegate* gpu = NULL;
  TfLiteModel* model = TfLiteModelCreateFromFile(cfg->graph);
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  if (model == NULL || o == NULL) goto done;
  TfLiteInterpreterOptionsSetNumThreads(o, cfg->num_threads);
  if (cfg->use_gpu) {
    litegpu_gpu_delegate_options go = litegpu_gpu_delegate_options_default();
    go.backend = cfg->backend;
    char why[256] = "";
    gpu = litegpu_gpu_delegate_create(&go, why, sizeof(why));
    if (gpu == NULL) {
      fprintf(stderr, "bench_async: no GPU delegate: %s\n", why);
      goto done;
    }
    TfLiteInterpreterOptionsAddDelegate(o, gpu);
  }
  b.interpreter = TfLiteInterpreterCreate(model, o);
  if (b.interpreter == NULL ||
      TfLiteInterpreterAllocateTensors(b.interpreter) != kTfLiteOk) {
    goto done;
  }
  b.runner =
      TfLiteInterpreterGetAsyncSignatureRunner(b.interpreter, cfg->signature);
  if (b.runner == NULL ||
      TfLiteAsyncSignatureRunnerPrepareBackends(b.runner) != kTfLiteOk) {
    goto done;
  }
  if (cfg->signature != NULL) {
    b.sync_runner =
        TfLiteInterpreterGetSignatureRunner(b.interpreter, cfg->signature);
    if (b.sync_runner == NULL) goto done;
  }
  b.num_inputs = (int)TfLiteAsyncSignatureRunnerGetInputCount(b.runner);
  b.num_outputs = (int)TfLiteAsyncSignatureRunnerGetOutputCount(b.runner);
  if (!make_slots(&b)) goto done;
  for (int i = 0; i < 3; ++i) { /* warm up (GPU programs, caches) */
    if (!run_sync(&b, 0)) goto done;
  }
  double sync_ms, async_ms;
  if (!measure(&b, &sync_ms, &async_ms) || !outputs_match(&b)) goto done;
  const int n = cfg->num_runs;
  printf(
      "model %s%s%s, %d runs, host work %d us per inference, medians of "
      "%d\n",
      cfg->graph, cfg->use_gpu ? ", GPU delegate" : ", CPU",
      cfg->use_gpu && cfg->backend == LITEGPU_GPU_BACKEND_VULKAN   ? " (vk)"
      : cfg->use_gpu && cfg->backend == LITEGPU_GPU_BACKEND_OPENCL ? " (cl)"
                                                                   : "",
      n, cfg->host_work_us, cfg->repeats);
  printf("back-to-back Invoke: %9.2f ms  %9.1f us/inference\n", sync_ms,
         sync_ms * 1e3 / n);
  printf("%d in flight (async): %9.2f ms  %9.1f us/inference  x%.2f\n",
         cfg->in_flight, async_ms, async_ms * 1e3 / n, sync_ms / async_ms);
  printf("outputs: async equal to Invoke\n");
  rc = 0;
done:
  if (rc != 0) fprintf(stderr, "bench_async: failed\n");
  for (int k = 0; b.slots != NULL && k < cfg->in_flight; ++k) {
    if (b.slots[k].task != NULL) {
      TfLiteAsyncSignatureRunnerFinish(b.runner, b.slots[k].task);
    }
  }
  TfLiteAsyncSignatureRunnerDelete(b.runner); /* unregisters the buffers */
  for (int k = 0; b.slots != NULL && k < cfg->in_flight; ++k) {
    for (int io = 0;
         b.slots[k].buffers != NULL && io < b.num_inputs + b.num_outputs;
         ++io) {
      free(b.slots[k].buffers[io]);
    }
    free(b.slots[k].buffers);
  }
  free(b.slots);
  TfLiteSignatureRunnerDelete(b.sync_runner);
  TfLiteInterpreterDelete(b.interpreter);
  TfLiteInterpreterOptionsDelete(o);
  if (gpu != NULL) TfLiteGpuDelegateV2Delete(gpu);
  TfLiteModelDelete(model);
  return rc;
}

int main(int argc, char** argv) {
  if (lg_tool_help_asked(argc, argv)) {
    fputs(USAGE, stdout);
    return 0;
  }
  const config cfg = parse(argc, argv);
  return run(&cfg);
}
