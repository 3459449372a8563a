/* bench_gpu_chain: what zero-copy binding saves when two models run one
 * after the other on the GPU delegate (include/litegpu/gpu_delegate.h,
 * "Zero-copy I/O").
 *
 * Usage: bench_gpu_chain [--n=65536] [--runs=200] [--backends=cl,vk]
 *
 * Model A is (x + c1) * c2 and model B is a * c3 + c4, over [1, n] float32
 * (two GPU nodes each). For each backend two paths run the chain A then B:
 *   copy   the plain way: x into A's input tensor, Invoke A (upload,
 *          download), A's output copied into B's input tensor, Invoke B
 *          (upload, download), B's output read on the host;
 *   bound  x lives in a device buffer bound to A's input, one buffer is
 *          A's output and B's input, one more B's output
 *          (TfLiteSetAllowBufferHandleOutput): two Invokes and no copy. The
 *          input buffer is written once before the runs and the output
 *          read once after them, so the time is the chain's alone.
 * In both paths B's delegate shares A's device (share_device_with), so
 * only the binding differs. The paths take turns in blocks of 20 runs
 * after 20 warm-up runs each; per path the mean, p50 and min per chained
 * inference in microseconds and the bytes the delegates copied between
 * host and device per inference. Both paths' outputs are checked against
 * the formula. Exit status: 0 when every backend asked for ran right, 1 on
 * a wrong output, 2 when one could not run (or on bad arguments). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "litegpu/gpu_delegate.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tools/tool_help.h"

#define WARMUP_RUNS 20
#define BLOCK_RUNS 20

static const char kUsage[] =
    "usage: bench_gpu_chain [--n=65536] [--runs=200] [--backends=cl,vk]\n"
    "  Two models chained on the GPU delegate, A = (x + c1) * c2 and\n"
    "  B = a * c3 + c4 over [1, n] float32: per chained inference, the\n"
    "  time with host copies between them (copy) and with device buffers\n"
    "  bound to their inputs and outputs (bound), and the bytes copied.\n"
    "Exit status: 0 when every backend ran right, 1 on a wrong output, 2\n"
    "when a backend could not run or on bad arguments.\n";

static float constant_value(int k, int i) {
  return (float)((i * 7 + k * 3) % 11 - 5) * 0.25f + 0.125f;
}

/* y = (x `first` c[ka]) `second` c[kb]; NULL when the writer fails. */
static void* build_pair(int n, int32_t first, int32_t second, int ka, int kb,
                        size_t* size) {
  float* ca = malloc(sizeof(float) * (size_t)n);
  float* cb = malloc(sizeof(float) * (size_t)n);
  lg_model_writer* w = lg_model_writer_create(NULL);
  void* data = NULL;
  if (ca != NULL && cb != NULL && w != NULL) {
    for (int i = 0; i < n; ++i) {
      ca[i] = constant_value(ka, i);
      cb[i] = constant_value(kb, i);
    }
    const int32_t cshape[1] = {n}, shape[2] = {1, n};
    const int32_t a = lg_model_writer_add_const_tensor(
        w, "ca", kTfLiteFloat32, cshape, 1, ca, sizeof(float) * (size_t)n);
    const int32_t b = lg_model_writer_add_const_tensor(
        w, "cb", kTfLiteFloat32, cshape, 1, cb, sizeof(float) * (size_t)n);
    lg_writer_tensor t = {
        .name = "x", .type = kTfLiteFloat32, .shape = shape, .num_dims = 2};
    const int32_t x = lg_model_writer_add_tensor(w, &t);
    t.name = "t";
    const int32_t mid = lg_model_writer_add_tensor(w, &t);
    t.name = "y";
    const int32_t y = lg_model_writer_add_tensor(w, &t);
    lg_model_writer_add_operator(w, first, 1, (int32_t[]){x, a}, 2, &mid, 1,
                                 NULL);
    lg_model_writer_add_operator(w, second, 1, (int32_t[]){mid, b}, 2, &y, 1,
                                 NULL);
    lg_model_writer_set_inputs(w, &x, 1);
    lg_model_writer_set_outputs(w, &y, 1);
    if (lg_model_writer_finish(w, &data, size) != kTfLiteOk) data = NULL;
  }
  lg_model_writer_destroy(w);
  free(ca);
  free(cb);
  return data;
}

typedef struct chain {
  TfLiteDelegate *da, *db;
  TfLiteInterpreter *ia, *ib;
  litegpu_gpu_buffer *in, *mid, *out; /* bound path only */
} chain;

static TfLiteInterpreter* make_interpreter(TfLiteModel* model,
                                           TfLiteDelegate* d) {
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  TfLiteInterpreterOptionsAddDelegate(o, d);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(model, o);
  TfLiteInterpreterOptionsDelete(o);
  if (ip != NULL && TfLiteInterpreterAllocateTensors(ip) != kTfLiteOk) {
    TfLiteInterpreterDelete(ip);
    return NULL;
  }
  return ip;
}

static void chain_free(chain* c) {
  TfLiteInterpreterDelete(c->ia);
  TfLiteInterpreterDelete(c->ib);
  litegpu_gpu_buffer_delete(c->in);
  litegpu_gpu_buffer_delete(c->mid);
  litegpu_gpu_buffer_delete(c->out);
  TfLiteGpuDelegateV2Delete(c->da);
  TfLiteGpuDelegateV2Delete(c->db);
  memset(c, 0, sizeof(*c));
}

/* The two interpreters on `backend`, B's delegate on A's device, and with
 * `bound` the three bound buffers. */
static bool chain_make(chain* c, litegpu_gpu_backend backend, bool bound,
                       TfLiteModel* ma, TfLiteModel* mb, size_t bytes) {
  memset(c, 0, sizeof(*c));
  litegpu_gpu_delegate_options o = litegpu_gpu_delegate_options_default();
  o.backend = backend;
  char why[2048] = "";
  c->da = litegpu_gpu_delegate_create(&o, why, sizeof(why));
  o.share_device_with = c->da; /* both paths: only the binding differs */
  if (c->da != NULL) c->db = litegpu_gpu_delegate_create(&o, why, sizeof(why));
  if (c->db == NULL) {
    fprintf(stderr, "bench_gpu_chain: %s\n", why);
    chain_free(c);
    return false;
  }
  c->ia = make_interpreter(ma, c->da);
  c->ib = make_interpreter(mb, c->db);
  if (c->ia == NULL || c->ib == NULL) {
    fprintf(stderr, "bench_gpu_chain: an interpreter could not be made\n");
    chain_free(c);
    return false;
  }
  if (!bound) return true;
  c->in = litegpu_gpu_delegate_create_buffer(c->da, bytes);
  c->mid = litegpu_gpu_delegate_create_buffer(c->da, bytes);
  c->out = litegpu_gpu_delegate_create_buffer(c->da, bytes);
  const bool ok =
      c->in != NULL && c->mid != NULL && c->out != NULL &&
      litegpu_gpu_delegate_bind_buffer(
          c->da, c->in, TfLiteInterpreterGetInputTensorIndex(c->ia, 0)) ==
          kTfLiteOk &&
      litegpu_gpu_delegate_bind_buffer(
          c->da, c->mid, TfLiteInterpreterGetOutputTensorIndex(c->ia, 0)) ==
          kTfLiteOk &&
      litegpu_gpu_delegate_bind_buffer(
          c->db, c->mid, TfLiteInterpreterGetInputTensorIndex(c->ib, 0)) ==
          kTfLiteOk &&
      litegpu_gpu_delegate_bind_buffer(
          c->db, c->out, TfLiteInterpreterGetOutputTensorIndex(c->ib, 0)) ==
          kTfLiteOk;
  if (!ok) {
    fprintf(stderr, "bench_gpu_chain: binding failed: %s\n",
            litegpu_gpu_delegate_last_error(c->db)[0] != '\0'
                ? litegpu_gpu_delegate_last_error(c->db)
                : litegpu_gpu_delegate_last_error(c->da));
    chain_free(c);
    return false;
  }
  TfLiteSetAllowBufferHandleOutput(c->ia, true);
  TfLiteSetAllowBufferHandleOutput(c->ib, true);
  return true;
}

/* One chained inference; the copy path moves x in and A's output to B. */
static bool chain_run(chain* c, const float* x, size_t bytes) {
  if (c->in == NULL) {
    TfLiteTensor* a_in = TfLiteInterpreterGetInputTensor(c->ia, 0);
    if (TfLiteTensorCopyFromBuffer(a_in, x, bytes) != kTfLiteOk ||
        TfLiteInterpreterInvoke(c->ia) != kTfLiteOk) {
      return false;
    }
    const TfLiteTensor* a_out = TfLiteInterpreterGetOutputTensor(c->ia, 0);
    TfLiteTensor* b_in = TfLiteInterpreterGetInputTensor(c->ib, 0);
    memcpy(TfLiteTensorData(b_in), TfLiteTensorData(a_out), bytes);
    return TfLiteInterpreterInvoke(c->ib) == kTfLiteOk;
  }
  return TfLiteInterpreterInvoke(c->ia) == kTfLiteOk &&
         TfLiteInterpreterInvoke(c->ib) == kTfLiteOk;
}

static bool chain_output(chain* c, float* y, size_t bytes) {
  if (c->out != NULL)
    return litegpu_gpu_buffer_read(c->out, 0, y, bytes) == kTfLiteOk;
  memcpy(y, TfLiteTensorData(TfLiteInterpreterGetOutputTensor(c->ib, 0)),
         bytes);
  return true;
}

static uint64_t copied_bytes(const chain* c) {
  uint64_t total = 0;
  const TfLiteDelegate* ds[2] = {c->da, c->db};
  for (int i = 0; i < 2; ++i) {
    litegpu_gpu_delegate_stats s;
    if (litegpu_gpu_delegate_get_stats(ds[i], &s) != kTfLiteOk) continue;
    total += s.bytes_uploaded + s.bytes_downloaded;
  }
  return total;
}

static int compare_u64(const void* a, const void* b) {
  const uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

static void report(const char* backend, const char* path, uint64_t* ns,
                   int runs, uint64_t copied) {
  double sum = 0;
  for (int i = 0; i < runs; ++i) sum += (double)ns[i];
  qsort(ns, (size_t)runs, sizeof(*ns), compare_u64);
  printf(
      "%-6s %-5s mean %9.1f us  p50 %9.1f us  min %9.1f us  copied %llu "
      "bytes/inference\n",
      backend, path, sum / runs / 1e3, (double)ns[runs / 2] / 1e3,
      (double)ns[0] / 1e3, (unsigned long long)copied);
}

/* 0 ok, 1 wrong output, 2 could not run. */
static int bench_backend(litegpu_gpu_backend backend, const char* name,
                         TfLiteModel* ma, TfLiteModel* mb, int n, int runs) {
  const size_t bytes = sizeof(float) * (size_t)n;
  float* x = malloc(bytes);
  float* want = malloc(bytes);
  float* got = malloc(bytes);
  uint64_t* times[2] = {calloc((size_t)runs, sizeof(uint64_t)),
                        calloc((size_t)runs, sizeof(uint64_t))};
  chain paths[2];
  int status = 2;
  bool made[2] = {false, false};
  if (x == NULL || want == NULL || got == NULL || times[0] == NULL ||
      times[1] == NULL) {
    goto done;
  }
  for (int i = 0; i < n; ++i) {
    x[i] = (float)(i % 17) - 8.5f;
    want[i] = ((x[i] + constant_value(1, i)) * constant_value(2, i)) *
                  constant_value(3, i) +
              constant_value(4, i);
  }
  for (int p = 0; p < 2; ++p) {
    made[p] = chain_make(&paths[p], backend, p == 1, ma, mb, bytes);
    if (!made[p]) goto done;
  }
  if (litegpu_gpu_buffer_write(paths[1].in, 0, x, bytes) != kTfLiteOk) {
    goto done;
  }
  for (int p = 0; p < 2; ++p) {
    for (int r = 0; r < WARMUP_RUNS; ++r) {
      if (!chain_run(&paths[p], x, bytes)) goto done;
    }
  }
  for (int done_runs = 0; done_runs < runs; done_runs += BLOCK_RUNS) {
    for (int p = 0; p < 2; ++p) {
      for (int r = done_runs; r < done_runs + BLOCK_RUNS && r < runs; ++r) {
        const uint64_t start = lg_now_ns();
        if (!chain_run(&paths[p], x, bytes)) goto done;
        times[p][r] = lg_now_ns() - start;
      }
    }
  }
  status = 0;
  for (int p = 0; p < 2 && status == 0; ++p) {
    if (!chain_output(&paths[p], got, bytes)) {
      status = 2;
      break;
    }
    for (int i = 0; i < n; ++i) {
      if (!(fabsf(got[i] - want[i]) <= 1e-5f * fmaxf(1.0f, fabsf(want[i])))) {
        fprintf(stderr, "bench_gpu_chain: %s %s: element %d is %g, not %g\n",
                name, p == 0 ? "copy" : "bound", i, (double)got[i],
                (double)want[i]);
        status = 1;
        break;
      }
    }
  }
  if (status == 0) {
    report(name, "copy", times[0], runs, copied_bytes(&paths[0]));
    report(name, "bound", times[1], runs, copied_bytes(&paths[1]));
  }
done:
  for (int p = 0; p < 2; ++p) {
    if (made[p]) chain_free(&paths[p]);
  }
  free(x);
  free(want);
  free(got);
  free(times[0]);
  free(times[1]);
  return status;
}

int main(int argc, char** argv) {
  if (lg_tool_help_asked(argc, argv)) {
    fputs(kUsage, stdout);
    return 0;
  }
  int n = 65536, runs = 200;
  const char* backends = "cl,vk";
  for (int i = 1; i < argc; ++i) {
    if (strncmp(argv[i], "--n=", 4) == 0) {
      n = atoi(argv[i] + 4);
    } else if (strncmp(argv[i], "--runs=", 7) == 0) {
      runs = atoi(argv[i] + 7);
    } else if (strncmp(argv[i], "--backends=", 11) == 0) {
      backends = argv[i] + 11;
    } else {
      fputs(kUsage, stderr);
      return 2;
    }
  }
  if (n < 1 || runs < 1) {
    fputs(kUsage, stderr);
    return 2;
  }
  size_t size_a = 0, size_b = 0;
  void* data_a =
      build_pair(n, kTfLiteBuiltinAdd, kTfLiteBuiltinMul, 1, 2, &size_a);
  void* data_b =
      build_pair(n, kTfLiteBuiltinMul, kTfLiteBuiltinAdd, 3, 4, &size_b);
  TfLiteModel* ma = data_a ? TfLiteModelCreate(data_a, size_a) : NULL;
  TfLiteModel* mb = data_b ? TfLiteModelCreate(data_b, size_b) : NULL;
  int status = ma != NULL && mb != NULL ? 0 : 2;
  printf(
      "chain of two models over [1, %d] float32 (%zu bytes per tensor), "
      "%d runs\n",
      n, sizeof(float) * (size_t)n, runs);
  if (status == 0 && strstr(backends, "cl") != NULL) {
    status =
        bench_backend(LITEGPU_GPU_BACKEND_OPENCL, "OpenCL", ma, mb, n, runs);
  }
  if (status == 0 && strstr(backends, "vk") != NULL) {
    status =
        bench_backend(LITEGPU_GPU_BACKEND_VULKAN, "Vulkan", ma, mb, n, runs);
  }
  TfLiteModelDelete(ma);
  TfLiteModelDelete(mb);
  free(data_a);
  free(data_b);
  return status;
}
