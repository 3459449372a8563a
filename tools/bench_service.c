/* bench_service: the round trip of one execution of a one-ADD model,
 * in-process and through the litegpu service per call and in a burst
 * (docs/service.md).
 *
 *   bench_service [--socket=PATH] [--delegate=cpu|gpu] [--size=N]
 *                 [--num_runs=N] [--spin_us=N] [--listener_spin_us=N]
 *                 [--check_targets]
 *   bench_service --help
 *
 * Each mode times TfLiteInterpreterInvoke of the same model (y = x + c
 * over N floats): on the CPU in this process, then with the service
 * delegate (burst = false: a request and reply on the socket per Invoke;
 * burst = true: shared-memory queues). Without --socket the tool forks its
 * own service on a socket in a temporary folder. The ratios come from one
 * run, so they compare like with like on the machine it ran on.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "delegates/service/service_server.h"
#include "litegpu/service_delegate.h"
#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/c_api.h"
#include "tools/tool_help.h"

typedef struct bench_options {
  const char* socket_path;
  lg_service_kind kind;
  int size;
  int num_runs;
  int spin_us;
  int listener_spin_us;
  bool check_targets;
} bench_options;

typedef struct stats {
  double p50, p90, p99, mean; /* microseconds */
} stats;

static void usage(FILE* out) {
  fprintf(out,
          "usage: bench_service [--socket=PATH] [--delegate=cpu|gpu] "
          "[--size=N] [--num_runs=N] [--spin_us=N] [--listener_spin_us=N] "
          "[--check_targets]\n");
}

static void help(void) {
  usage(stdout);
  printf(
      "Times one Invoke of a one-ADD model (y = x + c over N floats) three\n"
      "ways and prints the percentiles and the ratios between them:\n"
      "  in-process   litegpu's CPU kernels in this process\n"
      "  per-call     the service delegate, one socket request per Invoke\n"
      "  burst        the service delegate over shared-memory queues\n"
      "Options:\n"
      "  --socket=PATH          use a running litegpu_service (default: fork\n"
      "                         one on a socket in a temporary folder)\n"
      "  --delegate=cpu|gpu     the forked service's device (default cpu)\n"
      "  --size=N               floats per tensor (default 16)\n"
      "  --num_runs=N           timed Invokes per mode (default 5000, after\n"
      "                         500 untimed)\n"
      "  --spin_us=N            how long a burst Invoke spins before it\n"
      "                         sleeps (default 100)\n"
      "  --listener_spin_us=N   the forked service's listener spin (default\n"
      "                         200)\n"
      "  --check_targets        exit 1 unless the burst's p50 is at most\n"
      "                         10 us and at least 5x below per-call's\n"
      "Exit status: 0, 1 when a run fails (or a target is missed with\n"
      "--check_targets), 2 on a bad argument.\n");
}

static int parse_int(const char* text, int min, int* out) {
  char* end = NULL;
  const long v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < min || v > 100000000L) return -1;
  *out = (int)v;
  return 0;
}

static int parse(int argc, char** argv, bench_options* o) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (strncmp(a, "--socket=", 9) == 0 && a[9] != '\0') {
      o->socket_path = a + 9;
    } else if (strcmp(a, "--delegate=cpu") == 0) {
      o->kind = LG_SERVICE_CPU;
    } else if (strcmp(a, "--delegate=gpu") == 0) {
      o->kind = LG_SERVICE_GPU;
    } else if (strncmp(a, "--size=", 7) == 0 &&
               parse_int(a + 7, 1, &o->size) == 0) {
    } else if (strncmp(a, "--num_runs=", 11) == 0 &&
               parse_int(a + 11, 1, &o->num_runs) == 0) {
    } else if (strncmp(a, "--spin_us=", 10) == 0 &&
               parse_int(a + 10, 0, &o->spin_us) == 0) {
    } else if (strncmp(a, "--listener_spin_us=", 19) == 0 &&
               parse_int(a + 19, 0, &o->listener_spin_us) == 0) {
    } else if (strcmp(a, "--check_targets") == 0) {
      o->check_targets = true;
    } else {
      fprintf(stderr, "bench_service: bad argument: %s\n", a);
      return -1;
    }
  }
  return 0;
}

static void* add_model(int n, size_t* size) {
  lg_model_writer* w = lg_model_writer_create(NULL);
  if (w == NULL) return NULL;
  int32_t shape[2] = {1, n};
  float* c = calloc((size_t)n, sizeof(float));
  if (c == NULL) {
    lg_model_writer_destroy(w);
    return NULL;
  }
  for (int i = 0; i < n; ++i) c[i] = (float)i;
  lg_writer_tensor x = {
      .name = "x", .type = kTfLiteFloat32, .shape = shape, .num_dims = 2};
  int32_t in = lg_model_writer_add_tensor(w, &x);
  int32_t k = lg_model_writer_add_const_tensor(w, "c", kTfLiteFloat32, shape, 2,
                                               c, sizeof(float) * (size_t)n);
  x.name = "y";
  int32_t out = lg_model_writer_add_tensor(w, &x);
  int32_t ins[2] = {in, k};
  lg_model_writer_add_operator(w, kTfLiteBuiltinAdd, 1, ins, 2, &out, 1, NULL);
  lg_model_writer_set_inputs(w, &in, 1);
  lg_model_writer_set_outputs(w, &out, 1);
  void* data = NULL;
  if (lg_model_writer_finish(w, &data, size) != kTfLiteOk) data = NULL;
  lg_model_writer_destroy(w);
  free(c);
  return data;
}

static int compare_doubles(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y ? 1 : 0;
}

static stats summarize(double* us, int n) {
  qsort(us, (size_t)n, sizeof(double), compare_doubles);
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += us[i];
  stats s = {us[n / 2], us[(int)((long)n * 90 / 100)],
             us[(int)((long)n * 99 / 100)], sum / n};
  return s;
}

/* Times `runs` Invokes after 500 untimed ones; checks y = x + c. */
static int time_invokes(TfLiteInterpreter* it, int n, int runs, double* us) {
  float* x = TfLiteTensorData(TfLiteInterpreterGetInputTensor(it, 0));
  const float* y = TfLiteTensorData(TfLiteInterpreterGetOutputTensor(it, 0));
  for (int r = -500; r < runs; ++r) {
    x[0] = (float)r;
    const uint64_t start = lg_now_ns();
    if (TfLiteInterpreterInvoke(it) != kTfLiteOk) return -1;
    const uint64_t end = lg_now_ns();
    if (y[0] != (float)r) {
      fprintf(stderr, "bench_service: wrong output %g for %d\n", y[0], r);
      return -1;
    }
    if (r >= 0) us[r] = (double)(end - start) / 1e3;
  }
  (void)n;
  return 0;
}

/* One mode: mode 0 in-process, 1 per-call, 2 burst. */
static int run_mode(const bench_options* o, TfLiteModel* model, int mode,
                    double* us, stats* out) {
  TfLiteDelegate* d = NULL;
  if (mode > 0) {
    litegpu_service_delegate_options so =
        litegpu_service_delegate_options_default();
    so.socket_path = o->socket_path;
    so.burst = mode == 2;
    so.burst_spin_us = o->spin_us;
    char why[512] = "";
    d = litegpu_service_delegate_create(&so, why, sizeof(why));
    if (d == NULL) {
      fprintf(stderr, "bench_service: %s\n", why);
      return -1;
    }
  }
  TfLiteInterpreterOptions* io = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(io, 1);
  if (d != NULL) TfLiteInterpreterOptionsAddDelegate(io, d);
  TfLiteInterpreter* it = TfLiteInterpreterCreate(model, io);
  TfLiteInterpreterOptionsDelete(io);
  int rc = -1;
  if (it != NULL && TfLiteInterpreterAllocateTensors(it) == kTfLiteOk &&
      (d == NULL || litegpu_service_delegate_num_partitions(d) == 1)) {
    rc = time_invokes(it, o->size, o->num_runs, us);
  }
  if (rc == 0) *out = summarize(us, o->num_runs);
  TfLiteInterpreterDelete(it);
  litegpu_service_delegate_delete(d);
  return rc;
}

static pid_t spawn(bench_options* o, char* dir, size_t dir_size,
                   char* socket_path, size_t socket_size) {
  snprintf(dir, dir_size, "/tmp/litegpu-bench-XXXXXX");
  if (mkdtemp(dir) == NULL) return -1;
  snprintf(socket_path, socket_size, "%s/service.sock", dir);
  lg_service_options so = lg_service_options_default();
  so.socket_path = socket_path;
  so.kind = o->kind;
  so.listener_spin_ns = (uint64_t)o->listener_spin_us * 1000u;
  char why[1024] = "";
  const pid_t pid = lg_service_spawn(&so, 60000, why, sizeof(why));
  if (pid < 0) fprintf(stderr, "bench_service: %s\n", why);
  o->socket_path = socket_path;
  return pid;
}

int main(int argc, char** argv) {
  if (lg_tool_help_asked(argc, argv)) {
    help();
    return 0;
  }
  bench_options o = {NULL, LG_SERVICE_CPU, 16, 5000, 100, 200, false};
  if (parse(argc, argv, &o) != 0) {
    usage(stderr);
    return 2;
  }
  char dir[64] = "", socket_path[128] = "";
  pid_t service = -1;
  if (o.socket_path == NULL) {
    service = spawn(&o, dir, sizeof(dir), socket_path, sizeof(socket_path));
    if (service < 0) return 1;
  }
  size_t size = 0;
  void* data = add_model(o.size, &size);
  TfLiteModel* model = data ? TfLiteModelCreate(data, size) : NULL;
  double* us = calloc((size_t)o.num_runs, sizeof(double));
  static const char* const kNames[3] = {"in-process", "per-call", "burst"};
  stats s[3];
  int rc = model != NULL && us != NULL ? 0 : 1;
  for (int mode = 0; rc == 0 && mode < 3; ++mode) {
    if (run_mode(&o, model, mode, us, &s[mode]) != 0) {
      fprintf(stderr, "bench_service: the %s run failed\n", kNames[mode]);
      rc = 1;
    }
  }
  if (rc == 0) {
    printf("one ADD of %d floats, %d Invokes per mode (service: %s)\n", o.size,
           o.num_runs, o.socket_path);
    printf("%-12s %9s %9s %9s %9s\n", "mode", "p50 us", "p90 us", "p99 us",
           "mean us");
    for (int m = 0; m < 3; ++m) {
      printf("%-12s %9.2f %9.2f %9.2f %9.2f\n", kNames[m], s[m].p50, s[m].p90,
             s[m].p99, s[m].mean);
    }
    const double speedup = s[1].p50 / s[2].p50;
    printf("per-call / burst (p50): %.1fx\n", speedup);
    printf("burst / in-process (p50): %.1fx\n", s[2].p50 / s[0].p50);
    const bool fast = s[2].p50 <= 10.0, ratio = speedup >= 5.0;
    printf("targets: burst p50 <= 10 us: %s; per-call / burst >= 5x: %s\n",
           fast ? "met" : "missed", ratio ? "met" : "missed");
    if (o.check_targets && !(fast && ratio)) rc = 1;
  }
  TfLiteModelDelete(model);
  free(data);
  free(us);
  if (service > 0) {
    kill(service, SIGTERM);
    waitpid(service, NULL, 0);
    rmdir(dir);
  }
  return rc;
}
