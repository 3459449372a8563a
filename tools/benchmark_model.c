/* benchmark_model: times a .tflite model in litegpu, with the flags and the
 * phases of TFLite's benchmark_model (tensorflow/lite/tools/benchmark).
 *
 *   benchmark_model --graph=MODEL [--num_runs=50] [--num_threads=2]
 *                   [--enable_op_profiling=true] [--report=json] ...
 *   benchmark_model --help          lists every flag with its default
 *
 * Flags are --name=value; a bool flag alone means true. Phases, as in
 * TFLite: load the model; create the interpreter; resize the
 * inputs given by --input_layer/--input_layer_shape; AllocateTensors (the
 * three together are "init"); fill every input with seeded random values;
 * warm up (at least --warmup_runs runs and --warmup_min_secs seconds); then
 * the steady state (at least --num_runs runs and --min_secs seconds). A
 * phase starts no run once --max_secs have passed (its first run always
 * happens). Each time is the wall clock around one TfLiteInterpreterInvoke
 * (with a signature, TfLiteSignatureRunnerInvoke), in microseconds;
 * --run_delay sleeps between runs, outside the timing.
 * Operator profiles (--enable_op_profiling) cover the steady state only.
 * With --use_gpu they add the GPU delegate's dispatch profile, taken over
 * up to 50 extra runs after the steady state, not in the stats (device
 * timestamps around each dispatch on Vulkan; elsewhere each dispatch is
 * waited for and timed alone, so those runs are slower).
 *
 * Random inputs: float types uniform in [-0.5, 0.5] (as TFLite); int8 and
 * uint8 over their whole range; wider integers in [0, 99]; bool 0 or 1.
 * --input_layer_value_range=NAME,LOW,HIGH:... sets an inclusive range per
 * input (TFLite takes it for integer inputs; litegpu for floats as well).
 *
 * --input_layer names inputs. When every name is one of the model's input
 * names, the names pick the inputs (any subset, any order); otherwise, as in
 * TFLite, the list must cover every input in the interpreter's order and a
 * name that differs from the model's only draws a warning. A shape in
 * --input_layer_shape resizes the input of the same position in the list.
 *
 * Signatures (TFLite's --signature_to_run_for=KEY): runs the SignatureDef
 * KEY through its signature runner, on the subgraph it names (which may be
 * another than 0): the inputs are the signature's input names in its
 * order, and --input_layer and --input_layer_value_range use those names
 * (as TFLite's tool does); the reports list the signature's inputs and
 * outputs by those names (with the tensors' own names beside them). A
 * signature resizes strictly: --input_layer_shape may change only the
 * dimensions the model leaves unknown (-1 in the input's shape signature);
 * any other shape fails, naming the shape signature (exit 1). A key the
 * model lacks fails with the model's keys (exit 1). Empty (the default):
 * the interpreter's own inputs and outputs, on subgraph 0. The operator
 * profile, the memory plan, the node count and the delegate's execution
 * plan are read from the interpreter, which describes subgraph 0: for a
 * signature on another subgraph --enable_op_profiling and (with --use_gpu)
 * --require_full_delegation are refused (exit 1), and the node count, the
 * arena figures and the delegate's plan counts are reported as unknown.
 * --use_gpu works: the interpreter applies the delegate to every subgraph.
 * A signature runner has no Invoke-time delegate fallback: a delegate that
 * fails in Invoke fails the run. --compare does not take a
 * signature (exit 2).
 *
 * GPU flags (TFLite's GPU delegate provider; include/litegpu/gpu_delegate.h):
 *   --use_gpu                     apply the GPU delegate (with delegate
 *                                 fallback on: a delegate the runtime
 *                                 removes is reported as "fell back")
 *   --gpu_precision_loss_allowed  default true -> is_precision_loss_allowed
 *   --gpu_inference_for_sustained_speed  default false; true ->
 *                                 inference_preference SUSTAINED_SPEED
 *                                 (work-group sizes timed in Init)
 *   --gpu_backend=cl|vk           OpenCL or Vulkan; empty (default): auto.
 *                                 A backend without a usable device fails
 *                                 with the delegate's reason (exit 1)
 *   --max_delegated_partitions=N  the N largest partitions; 0 (TFLite's
 *                                 default) means all of them, passed to the
 *                                 delegate as INT32_MAX (the delegate itself
 *                                 reads <= 0 as 1)
 *   --min_nodes_per_partition=N   smaller partitions stay on the CPU
 *   --require_full_delegation     exit 1 naming the first node the delegate
 *                                 did not take and its reason
 *   --delegate_serialize_dir=DIR  serialization_dir, with model_token the
 *                                 model file's base name and the
 *                                 ENABLE_SERIALIZATION flag
 * The GPU flags other than --use_gpu do nothing without it (a warning says
 * so). Init then includes creating the delegate (init_us.delegate).
 *
 * Service flags (litegpu's accelerator service, docs/service.md):
 *   --use_service=SOCKET          apply the service delegate instead: the
 *                                 partitions run in the litegpu_service
 *                                 listening on SOCKET (with delegate
 *                                 fallback); refused with --use_gpu (exit 2);
 *                                 a service that cannot be reached: exit 1
 *   --service_burst               burst executions (shared-memory queues)
 *                                 instead of a socket request per Invoke
 * The partition flags and --require_full_delegation apply to it too. The
 * JSON "delegate" has the same keys: backend "service (per call)" or
 * "service (burst)", device the service's, the byte and program counts 0.
 *
 * Comparison (--compare=cpu,cl,vk; any subset in any order, "gpu" = the
 * automatic backend): see tools/benchmark/compare.c. One process, one model
 * load, the same seeded inputs for every backend; the CPU runs first as the
 * reference even when not listed. Each GPU backend is initialized twice,
 * with an empty kernel cache (cold) and again with the cache the first
 * filled (warm); then the usual warm-up and steady runs on the warm one.
 * One table (text) or "comparison" (JSON); a backend that cannot be created
 * or run gets its reason instead of numbers. The comparison sets
 * Rows svc and burst (with --use_service) run the service delegate, per call
 * and in bursts. The comparison sets
 * POCL_KERNEL_CACHE=0 unless the environment sets it, so that PoCL's own
 * cache does not make cold numbers warm. --use_gpu, --gpu_backend,
 * --delegate_serialize_dir, --enable_op_profiling and --json_run_times are
 * not used there; --signature_to_run_for is refused (exit 2).
 * --plot=FILE.svg (with --compare only; exit 2 without it, or when FILE
 * cannot be opened for writing, checked before any run) also draws the
 * comparison as an SVG chart: each backend's steady-state run times as a
 * distribution on a log axis, and its speed-ups (tools/benchmark/plot.c).
 *
 * litegpu additions:
 *   --report=text|json  text (default): the report for people.
 *                       json: one JSON object on stdout, nothing else there:
 *     tool, tflite_version, flags {every flag: its value},
 *     signature (the --signature_to_run_for key that ran, or null),
 *     model {path, size_bytes, num_nodes (the model's nodes: those of
 *            subgraph 0; null for a signature on another subgraph),
 *            inputs/outputs [{name, tensor, type, shape}] (name: the
 *            signature's name for it, without a signature the tensor's;
 *            tensor: the tensor's name; shapes after resizing; an input
 *            adds values {count, low, high, min, max}: the random range and
 *            the extremes drawn)},
 *     init_us {load, delegate (creating the GPU delegate; 0 without),
 *              create, allocate (resizing the inputs and AllocateTensors),
 *              total},
 *     first_inference_us,
 *     warmup, inference: {count, mean_us, std_us, min_us, max_us, p50_us,
 *                         p90_us, p99_us} (null numbers when count is 0);
 *                        inference adds total_secs, and run_times_us with
 *                        --json_run_times,
 *     memory {peak_rss_bytes, ru_maxrss_bytes, rss_at_start_bytes,
 *             peak_rss_after_init_bytes,
 *             arena_bytes, non_constant_tensor_bytes, heap_bytes,
 *             constant_bytes (these four of subgraph 0: absent for a
 *             signature on another subgraph)},
 *     op_profile: null, or [{node, op, version, avg_us, total_us, share_pct,
 *                            count}] one entry per node, slowest first,
 *     op_type_summary: null, or [{op, nodes, avg_us_per_run, share_pct}],
 *     gpu_dispatch_profile: null, or {runs, dispatches [{partition, node,
 *               op, kernel, avg_us, share_pct}] slowest first, kernels
 *               [{kernel, dispatches, avg_us_per_run, share_pct}]},
 *     delegate: null without --use_gpu, else {backend, device, fp16,
 *               partitions, nodes_delegated, nodes_total, bytes_uploaded,
 *               bytes_downloaded, bytes_per_inference (the last Invoke's
 *               uploads + downloads), dispatches_per_invoke, device_bytes,
 *               programs_compiled, programs_from_cache,
 *               cache_files_loaded, fell_back}; for a signature on
 *               another subgraph than 0, partitions, nodes_delegated,
 *               nodes_total and dispatches_per_invoke are null (the
 *               execution plan the interpreter reports is subgraph 0's).
 *   With --compare the object is instead: tool, tflite_version, flags,
 *     model {path, size_bytes, num_nodes}, pocl_kernel_cache (the value
 *     the comparison ran with), comparison [one object per backend, listed
 *     in compare.c].
 *   --json_run_times    list every steady-state run time in the JSON.
 *   --verbose           (TFLite's) also lists the flags left at defaults.
 *   --custom_op_library=PATH  (repeatable) a custom-op library
 *                       (include/litegpu/custom_op_library.h): loaded before
 *                       the model, its litegpu_register_custom_ops called on
 *                       the options of every interpreter the tool creates
 *                       (with --compare, every row's). A file that cannot be
 *                       opened (dlerror's text), one without the function,
 *                       or a function that fails: exit 2. The custom ops
 *                       show in the operator profile by their names. JSON
 *                       flags: a list of the paths.
 *
 * Percentiles are nearest-rank, exact up to 16384 runs and beyond that read
 * from a histogram with buckets under 0.8% wide (so that the tool's own
 * memory stays under 200 KB however many runs); std is the population
 * deviation. Peak RSS is this process's high-water mark, VmHWM from
 * /proc/self/status: Linux carries getrusage's ru_maxrss (also reported)
 * across execve, so a tool started by a larger process (a Python script)
 * would report that one's size. Messages go to stderr. Exit status: 0 done;
 * 1 the model failed (load, create, resize, allocate, invoke), does not
 * have what the flags name (an --input_layer name, a --signature_to_run_for
 * key; a flag refused for the signature's subgraph) or memory ran out; 2 a
 * bad command line. With --compare a backend that fails only
 * fails its row: the status is 1 only when the CPU reference fails.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "litegpu/interpreter_info.h"
#include "litegpu/mediapipe_ops.h"
#include "litegpu/profiling.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tools/benchmark/benchmark.h"
#include "tools/custom_op_library.h"

#define EXIT_MODEL_FAILED 1
#define EXIT_USAGE 2
#define LG_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- Flags ----------------------------------------------------------------
 */

#define FIELD(f) offsetof(lg_bench_params, f)
/* One row per flag: adding a flag is a field in lg_bench_params
 * (tools/benchmark/benchmark.h) and a row here. */
const lg_bench_flag lg_bench_flags[] = {
    {"graph", FLAG_STRING, FIELD(graph), "", 0, 0, NULL,
     "path of the .tflite model (required)"},
    {"num_runs", FLAG_INT, FIELD(num_runs), "50", 1, INT_MAX, NULL,
     "minimum number of timed runs (see min_secs, max_secs)"},
    {"warmup_runs", FLAG_INT, FIELD(warmup_runs), "1", 0, INT_MAX, NULL,
     "minimum number of warm-up runs"},
    {"min_secs", FLAG_FLOAT, FIELD(min_secs), "1", 0, 1e9, NULL,
     "run for at least this many seconds, even past num_runs"},
    {"warmup_min_secs", FLAG_FLOAT, FIELD(warmup_min_secs), "0.5", 0, 1e9, NULL,
     "warm up for at least this many seconds"},
    {"max_secs", FLAG_FLOAT, FIELD(max_secs), "150", 0, 1e9, NULL,
     "start no run after this many seconds of a phase, even short of "
     "num_runs"},
    {"run_delay", FLAG_FLOAT, FIELD(run_delay), "-1", -1e9, 1e9, NULL,
     "seconds to sleep between runs; non-positive: no delay"},
    {"num_threads", FLAG_INT, FIELD(num_threads), "-1", -1, 1024, NULL,
     "interpreter threads; -1: the platform default (one per online CPU)"},
    {"enable_op_profiling", FLAG_BOOL, FIELD(enable_op_profiling), "false", 0,
     0, NULL, "time every operator in the steady state"},
    {"input_layer", FLAG_STRING, FIELD(input_layer), "", 0, 0, NULL,
     "comma-separated input names, e.g. 'x,y'"},
    {"input_layer_shape", FLAG_STRING, FIELD(input_layer_shape), "", 0, 0, NULL,
     "colon-separated shapes, one per input_layer name, e.g. "
     "'1,224,224,3:1,10'"},
    {"input_layer_value_range", FLAG_STRING, FIELD(input_layer_value_range), "",
     0, 0, NULL, "inclusive random value ranges, e.g. 'x,0,9:y,-1,1'"},
    {"signature_to_run_for", FLAG_STRING, FIELD(signature_to_run_for), "", 0, 0,
     NULL,
     "the key of the SignatureDef to run (its input names, its subgraph); "
     "empty: the interpreter's own inputs and outputs (subgraph 0)"},
    {"random_seed", FLAG_INT, FIELD(random_seed), "1234", 0, INT_MAX, NULL,
     "seed of the random input values"},
    {"verbose", FLAG_BOOL, FIELD(verbose), "false", 0, 0, NULL,
     "list every flag in the report, defaults too"},
    {"report", FLAG_STRING, FIELD(report), "text", 0, 0, "text|json",
     "litegpu: the report on stdout, text or one JSON object"},
    {"json_run_times", FLAG_BOOL, FIELD(json_run_times), "false", 0, 0, NULL,
     "litegpu: the JSON report lists every steady-state run time"},
    {"use_gpu", FLAG_BOOL, FIELD(use_gpu), "false", 0, 0, NULL,
     "apply the GPU delegate"},
    {"gpu_precision_loss_allowed", FLAG_BOOL, FIELD(gpu_precision_loss_allowed),
     "true", 0, 0, NULL, "let the GPU compute in half precision"},
    {"gpu_inference_for_sustained_speed", FLAG_BOOL,
     FIELD(gpu_inference_for_sustained_speed), "false", 0, 0, NULL,
     "time work-group sizes at init (SUSTAINED_SPEED)"},
    {"gpu_backend", FLAG_STRING, FIELD(gpu_backend), "", 0, 0, "|cl|vk",
     "GPU backend: cl (OpenCL) or vk (Vulkan); empty: automatic"},
    {"max_delegated_partitions", FLAG_INT, FIELD(max_delegated_partitions), "0",
     0, INT_MAX, NULL, "delegate the N largest partitions; 0: all"},
    {"min_nodes_per_partition", FLAG_INT, FIELD(min_nodes_per_partition), "0",
     0, INT_MAX, NULL, "smaller partitions stay on the CPU; 0: no minimum"},
    {"require_full_delegation", FLAG_BOOL, FIELD(require_full_delegation),
     "false", 0, 0, NULL, "fail unless the delegate takes every node"},
    {"delegate_serialize_dir", FLAG_STRING, FIELD(delegate_serialize_dir), "",
     0, 0, NULL, "directory for the GPU delegate's compiled kernels"},
    {"use_service", FLAG_STRING, FIELD(use_service), "", 0, 0, NULL,
     "litegpu: run delegated partitions in the litegpu service listening "
     "on this socket (tools/litegpu_service) instead of the GPU delegate; "
     "with --compare, the socket of the svc and burst rows"},
    {"service_burst", FLAG_BOOL, FIELD(service_burst), "false", 0, 0, NULL,
     "litegpu: with --use_service, burst executions (shared-memory queues) "
     "instead of one socket request per Invoke"},
    {"compare", FLAG_STRING, FIELD(compare), "", 0, 0, NULL,
     "litegpu: compare backends on the same inputs, e.g. cpu,cl,vk "
     "(gpu: automatic; svc, burst: the service of --use_service)"},
    {"plot", FLAG_STRING, FIELD(plot), "", 0, 0, NULL,
     "litegpu: with --compare, also write the comparison as an SVG chart "
     "(latency distributions and speed-ups) to this file"},
    {"custom_op_library", FLAG_LIST, FIELD(custom_op_library), "", 0, 0, NULL,
     "litegpu: load a custom-op library (a shared object exporting "
     "litegpu_register_custom_ops) and register its ops on every "
     "interpreter; repeatable"},
};
const int lg_bench_num_flags = LG_COUNT(lg_bench_flags);
#define NUM_FLAGS LG_COUNT(lg_bench_flags)

static void* flag_field(lg_bench_params* p, const lg_bench_flag* f) {
  return (char*)p + f->offset;
}

static bool choice_ok(const char* choices, const char* value) {
  size_t n = strlen(value);
  for (const char* c = choices; c != NULL && *c != '\0';) {
    const char* bar = strchr(c, '|');
    size_t len = bar ? (size_t)(bar - c) : strlen(c);
    if (len == n && strncmp(c, value, n) == 0) return true;
    c = bar ? bar + 1 : NULL;
  }
  return false;
}

/* Stores `value` into the flag's field; on failure writes why into `why`. */
static bool flag_set_value(lg_bench_params* p, const lg_bench_flag* f,
                           const char* value, char* why, size_t why_size) {
  char* end = NULL;
  switch (f->type) {
    case FLAG_INT: {
      long long v = strtoll(value, &end, 10);
      if (end == value || *end != '\0') break;
      if (v < f->min || v > f->max) {
        snprintf(why, why_size, "out of range [%.0f, %.0f]", f->min, f->max);
        return false;
      }
      *(int*)flag_field(p, f) = (int)v;
      return true;
    }
    case FLAG_FLOAT: {
      double v = strtod(value, &end);
      if (end == value || *end != '\0' || !isfinite(v)) break;
      if (v < f->min || v > f->max) {
        snprintf(why, why_size, "out of range [%g, %g]", f->min, f->max);
        return false;
      }
      *(double*)flag_field(p, f) = v;
      return true;
    }
    case FLAG_BOOL: {
      bool yes = strcmp(value, "true") == 0 || strcmp(value, "1") == 0;
      bool no = strcmp(value, "false") == 0 || strcmp(value, "0") == 0;
      if (!yes && !no) {
        snprintf(why, why_size, "expected true or false");
        return false;
      }
      *(bool*)flag_field(p, f) = yes;
      return true;
    }
    case FLAG_STRING:
      if (f->choices != NULL && !choice_ok(f->choices, value)) {
        bool may_be_empty = f->choices[0] == '|';
        snprintf(why, why_size, "expected %s%s",
                 may_be_empty ? "empty or one of " : "one of ",
                 f->choices + may_be_empty);
        return false;
      }
      *(const char**)flag_field(p, f) = value;
      return true;
    case FLAG_LIST: {
      lg_bench_list* list = flag_field(p, f);
      if (value[0] == '\0') return true; /* the default: no entries */
      if (list->count == LG_BENCH_LIST_MAX) {
        snprintf(why, why_size, "more than %d of this flag", LG_BENCH_LIST_MAX);
        return false;
      }
      list->items[list->count++] = value;
      return true;
    }
  }
  snprintf(why, why_size, "%s",
           f->type == FLAG_INT ? "not an integer" : "not a finite number");
  return false;
}

static const lg_bench_flag* flag_find(const char* name, size_t len) {
  for (int i = 0; i < NUM_FLAGS; ++i) {
    if (strlen(lg_bench_flags[i].name) == len &&
        strncmp(lg_bench_flags[i].name, name, len) == 0)
      return &lg_bench_flags[i];
  }
  return NULL;
}

static void print_usage(FILE* out) {
  fprintf(out,
          "usage: benchmark_model --graph=MODEL.tflite [--flag=value ...]\n"
          "Flags (TFLite's benchmark_model names; a bool flag alone means "
          "true):\n");
  static const char* kTypeNames[] = {"int", "float", "bool", "string",
                                     "string"};
  for (int i = 0; i < NUM_FLAGS; ++i) {
    const lg_bench_flag* f = &lg_bench_flags[i];
    char left[64];
    snprintf(left, sizeof(left), "--%s=%s", f->name, f->fallback);
    fprintf(out, "  %-33s %-6s %s\n", left, kTypeNames[f->type], f->help);
  }
}

static bool flag_was_set(const bool* set, const char* name) {
  const lg_bench_flag* f = flag_find(name, strlen(name));
  return f != NULL && set[f - lg_bench_flags];
}

/* Flags that act only together with another draw a warning when alone. */
static void warn_unused_flags(const lg_bench_params* p, const bool* set) {
  static const char* const kGpuOnly[] = {
      "gpu_precision_loss_allowed",       "gpu_backend",
      "max_delegated_partitions",         "min_nodes_per_partition",
      "require_full_delegation",          "delegate_serialize_dir",
      "gpu_inference_for_sustained_speed"};
  static const char* const kNotCompared[] = {"use_gpu",
                                             "gpu_backend",
                                             "delegate_serialize_dir",
                                             "enable_op_profiling",
                                             "json_run_times",
                                             "service_burst"};
  bool compare = p->compare[0] != '\0';
  const char* const* names = compare ? kNotCompared : kGpuOnly;
  int count = compare ? LG_COUNT(kNotCompared) : LG_COUNT(kGpuOnly);
  if (!compare && p->service_burst && p->use_service[0] == '\0') {
    fprintf(stderr,
            "benchmark_model: warning: --service_burst has no effect "
            "without --use_service\n");
  }
  if (!compare && (p->use_gpu || p->use_service[0] != '\0')) return;
  for (int i = 0; i < count; ++i) {
    if (!flag_was_set(set, names[i])) continue;
    fprintf(stderr, "benchmark_model: warning: --%s %s\n", names[i],
            compare ? "is not used with --compare"
                    : "has no effect without --use_gpu");
  }
}

typedef enum { PARSE_OK, PARSE_HELP, PARSE_ERROR } lg_parse_status;

/* Defaults first (from the table), then every argument in order. */
static lg_parse_status parse_flags(int argc, char** argv, lg_bench_params* p,
                                   bool* set) {
  char why[128];
  memset(p, 0, sizeof(*p));
  for (int i = 0; i < NUM_FLAGS; ++i) {
    set[i] = false;
    if (!flag_set_value(p, &lg_bench_flags[i], lg_bench_flags[i].fallback, why,
                        sizeof(why)))
      return PARSE_ERROR; /* a broken table row; cannot happen */
  }
  for (int a = 1; a < argc; ++a) {
    const char* arg = argv[a];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) return PARSE_HELP;
    if (strncmp(arg, "--", 2) != 0) {
      fprintf(stderr,
              "benchmark_model: unexpected argument '%s': flags are "
              "--name=value (--help lists them)\n",
              arg);
      return PARSE_ERROR;
    }
    const char* name = arg + 2;
    const char* eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const lg_bench_flag* f = flag_find(name, len);
    if (f == NULL) {
      fprintf(stderr,
              "benchmark_model: unknown flag '%.*s' (--help lists the "
              "flags)\n",
              (int)len + 2, arg);
      return PARSE_ERROR;
    }
    if ((eq == NULL && f->type != FLAG_BOOL) ||
        (f->type == FLAG_LIST && eq[1] == '\0')) {
      fprintf(stderr, "benchmark_model: --%s needs a value: --%s=VALUE\n",
              f->name, f->name);
      return PARSE_ERROR;
    }
    if (!flag_set_value(p, f, eq ? eq + 1 : "true", why, sizeof(why))) {
      fprintf(stderr, "benchmark_model: bad value in '%s': %s\n", arg, why);
      return PARSE_ERROR;
    }
    set[f - lg_bench_flags] = true;
  }
  if (p->graph[0] == '\0') {
    fprintf(stderr, "benchmark_model: --graph=MODEL.tflite is required\n");
    return PARSE_ERROR;
  }
  if (p->num_threads == 0) {
    fprintf(stderr,
            "benchmark_model: bad value in '--num_threads=0': use -1 "
            "(platform default) or a positive count\n");
    return PARSE_ERROR;
  }
  if (p->compare[0] != '\0' && p->signature_to_run_for[0] != '\0') {
    fprintf(stderr,
            "benchmark_model: --signature_to_run_for cannot be combined with "
            "--compare: the comparison runs the model's own inputs and "
            "outputs (subgraph 0); benchmark the signature on each backend "
            "without --compare (--use_gpu, --gpu_backend)\n");
    return PARSE_ERROR;
  }
  if (p->plot[0] != '\0' && p->compare[0] == '\0') {
    fprintf(stderr,
            "benchmark_model: --plot charts a comparison: add "
            "--compare=cpu,cl,vk (or any of them)\n");
    return PARSE_ERROR;
  }
  if (p->use_gpu && p->use_service[0] != '\0') {
    fprintf(stderr,
            "benchmark_model: --use_gpu and --use_service each apply a "
            "delegate: give one (--compare runs both kinds side by side)\n");
    return PARSE_ERROR;
  }
  if (!lg_bench_compare_check(p->compare, why, sizeof(why))) {
    fprintf(stderr, "benchmark_model: bad value in '--compare=%s': %s\n",
            p->compare, why);
    return PARSE_ERROR;
  }
  if ((strstr(p->compare, "svc") != NULL ||
       strstr(p->compare, "burst") != NULL) &&
      p->use_service[0] == '\0') {
    fprintf(stderr,
            "benchmark_model: the svc and burst rows of --compare run in the "
            "litegpu service: add --use_service=SOCKET\n");
    return PARSE_ERROR;
  }
  warn_unused_flags(p, set);
  return PARSE_OK;
}

static bool out_of_memory(const char* what) {
  fprintf(stderr, "benchmark_model: out of memory for %s\n", what);
  return false;
}

/* ---- Timing and statistics ------------------------------------------------
 */

double lg_bench_now_us(void) { return (double)lg_now_ns() / 1e3; }

static void sleep_secs(double secs) {
  struct timespec ts = {(time_t)secs, (long)((secs - floor(secs)) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* Histogram buckets from the bits of a time in microseconds: its binary
 * exponent and the top HIST_MANT_BITS bits of its mantissa, so that each
 * bucket is under 0.8% wide, from 2^-10 us (1 ns) to 2^35 us (9.5 hours).
 * Bit arithmetic, not log(): libm's code pages would show in the peak RSS
 * this tool reports. */
#define HIST_MANT_BITS 7
#define HIST_MIN_EXP (-10)
#define HIST_MAX_EXP 35
#define HIST_BUCKETS ((size_t)(HIST_MAX_EXP - HIST_MIN_EXP) << HIST_MANT_BITS)

static size_t hist_bucket(double us) {
  uint64_t bits;
  memcpy(&bits, &us, sizeof(bits));
  int exponent = (int)((bits >> 52) & 0x7FF) - 1023;
  if (!(us > 0) || exponent < HIST_MIN_EXP) return 0;
  if (exponent >= HIST_MAX_EXP) return HIST_BUCKETS - 1;
  size_t mantissa = (size_t)(bits >> (52 - HIST_MANT_BITS)) &
                    (((size_t)1 << HIST_MANT_BITS) - 1);
  return ((size_t)(exponent - HIST_MIN_EXP) << HIST_MANT_BITS) | mantissa;
}

/* The middle of bucket k, clamped to the times seen. */
static double hist_value(const lg_samples* s, size_t k) {
  uint64_t exponent =
      (uint64_t)((int)(k >> HIST_MANT_BITS) + HIST_MIN_EXP + 1023);
  uint64_t mantissa = k & (((uint64_t)1 << HIST_MANT_BITS) - 1);
  uint64_t bits = exponent << 52 | mantissa << (52 - HIST_MANT_BITS) |
                  (uint64_t)1 << (51 - HIST_MANT_BITS);
  double v;
  memcpy(&v, &bits, sizeof(v));
  return v < s->min ? s->min : (v > s->max ? s->max : v);
}

static bool samples_reserve(lg_samples* s, size_t capacity) {
  if (capacity <= s->capacity) return true;
  double* grown = realloc(s->us, capacity * sizeof(double));
  if (grown == NULL) return false;
  s->us = grown;
  s->capacity = capacity;
  return true;
}

/* Records one time. Room for the expected runs is reserved up front, so
 * that growing (and the freed blocks it leaves resident) is rare. */
static bool samples_push(lg_samples* s, double v) {
  if (s->kept == s->capacity && (s->keep_all || s->kept < LG_EXACT_SAMPLES) &&
      !samples_reserve(s, s->capacity ? s->capacity * 2 : 64)) {
    return false;
  }
  if (s->kept < s->capacity) {
    s->us[s->kept++] = v;
  } else if (s->histogram == NULL) { /* the first time left out */
    s->histogram = calloc(HIST_BUCKETS, sizeof(uint64_t));
    if (s->histogram == NULL) return false;
    for (size_t i = 0; i < s->kept; ++i) ++s->histogram[hist_bucket(s->us[i])];
  }
  if (s->histogram != NULL) ++s->histogram[hist_bucket(v)];
  s->count += 1;
  double delta = v - s->mean;
  s->mean += delta / (double)s->count;
  s->m2 += delta * (v - s->mean);
  if (s->count == 1 || v < s->min) s->min = v;
  if (s->count == 1 || v > s->max) s->max = v;
  return true;
}

static void samples_free(lg_samples* s) {
  free(s->us);
  free(s->histogram);
}

static void sift_down(double* a, size_t root, size_t n) {
  for (size_t child; (child = 2 * root + 1) < n; root = child) {
    if (child + 1 < n && a[child + 1] > a[child]) ++child;
    if (a[root] >= a[child]) return;
    double t = a[root];
    a[root] = a[child];
    a[child] = t;
  }
}

/* Heapsort: in place, where glibc's qsort would allocate a copy that counts
 * in the peak RSS this tool reports. */
static void sort_doubles(double* a, size_t n) {
  for (size_t i = n / 2; i-- > 0;) sift_down(a, i, n);
  for (size_t end = n; end-- > 1;) {
    double t = a[0];
    a[0] = a[end];
    a[end] = t;
    sift_down(a, 0, end);
  }
}

size_t lg_bench_nearest_rank(size_t n, double p) {
  size_t rank = (size_t)ceil(p / 100.0 * (double)n);
  return rank == 0 ? 0 : (rank > n ? n - 1 : rank - 1);
}

static double hist_percentile(const lg_samples* s, double p) {
  size_t rank = lg_bench_nearest_rank(s->count, p);
  uint64_t seen = 0;
  for (size_t k = 0; k < HIST_BUCKETS; ++k) {
    seen += s->histogram[k];
    if (seen > rank) return hist_value(s, k);
  }
  return s->max;
}

/* Sorts the kept times in place unless they are to be printed in order. */
static bool compute_stats(lg_samples* s, lg_stats* st) {
  memset(st, 0, sizeof(*st));
  st->count = s->count;
  if (s->count == 0) return true;
  st->mean = s->mean;
  st->std = sqrt(s->m2 / (double)s->count);
  st->min = s->min;
  st->max = s->max;
  if (s->histogram != NULL) {
    st->p50 = hist_percentile(s, 50);
    st->p90 = hist_percentile(s, 90);
    st->p99 = hist_percentile(s, 99);
    return true;
  }
  double* sorted = s->us;
  if (s->keep_all) {
    sorted = malloc(s->count * sizeof(double));
    if (sorted == NULL) return out_of_memory("the statistics");
    memcpy(sorted, s->us, s->count * sizeof(double));
  }
  sort_doubles(sorted, s->count);
  st->p50 = sorted[lg_bench_nearest_rank(s->count, 50)];
  st->p90 = sorted[lg_bench_nearest_rank(s->count, 90)];
  st->p99 = sorted[lg_bench_nearest_rank(s->count, 99)];
  if (sorted != s->us) free(sorted);
  return true;
}

/* At least `min_runs` runs and `min_secs` seconds; no run starts after
 * max_secs, except the first. */
static bool run_phase(lg_bench_graph* g, const lg_bench_params* p, int min_runs,
                      double min_secs, const char* phase, lg_samples* out) {
  size_t expected = (size_t)min_runs;
  if (!samples_reserve(
          out, expected < LG_EXACT_SAMPLES ? expected : LG_EXACT_SAMPLES)) {
    return out_of_memory("the run times");
  }
  double start = lg_bench_now_us();
  for (uint64_t run = 0;; ++run) {
    double elapsed = (lg_bench_now_us() - start) / 1e6;
    if (run >= (uint64_t)min_runs && elapsed >= min_secs) break;
    if (run > 0 && elapsed >= p->max_secs) break;
    double t0 = lg_bench_now_us();
    TfLiteStatus status = lg_bench_graph_invoke(g);
    double t = lg_bench_now_us() - t0;
    if (status == kTfLiteDelegateError) { /* rerun on the CPU: valid */
      fprintf(stderr,
              "benchmark_model: warning: the delegate failed in %s run %llu; "
              "the runtime removed it and reran on the CPU (delegate "
              "fallback), so the runs from here on are CPU runs\n",
              phase, (unsigned long long)run + 1);
    } else if (status != kTfLiteOk) {
      fprintf(stderr,
              "benchmark_model: Invoke failed (status %d) in %s run "
              "%llu\n",
              (int)status, phase, (unsigned long long)run + 1);
      return false;
    }
    if (!samples_push(out, t)) return out_of_memory("the run times");
    if (p->run_delay > 0) sleep_secs(p->run_delay);
  }
  return true;
}

/* ---- Memory ---------------------------------------------------------------
 */

/* A "Key:   123 kB" line of /proc/self/status, in bytes; 0 without one. */
static size_t proc_status_bytes(const char* key) {
  FILE* f = fopen("/proc/self/status", "r");
  if (f == NULL) return 0;
  char line[256];
  size_t key_len = strlen(key);
  unsigned long long kb = 0;
  while (fgets(line, sizeof(line), f) != NULL) {
    if (strncmp(line, key, key_len) == 0 && line[key_len] == ':') {
      if (sscanf(line + key_len + 1, "%llu", &kb) != 1) kb = 0;
      break;
    }
  }
  fclose(f);
  return (size_t)kb * 1024;
}

/* getrusage's high-water mark. Linux keeps it across execve, so a process
 * started by a larger one (a fork of Python) reports the parent's size. */
static size_t ru_maxrss_bytes(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return (size_t)ru.ru_maxrss * 1024; /* Linux reports kilobytes */
}

/* This process image's own high-water mark (VmHWM), else getrusage's. */
static size_t peak_rss_bytes(void) {
  size_t hwm = proc_status_bytes("VmHWM");
  return hwm ? hwm : ru_maxrss_bytes();
}

/* ---- Operator profile -----------------------------------------------------
 */

static int compare_ops(const void* a, const void* b) {
  const litegpu_op_profile *x = a, *y = b;
  if (x->total_ns != y->total_ns) return x->total_ns < y->total_ns ? 1 : -1;
  return (x->node_index > y->node_index) - (x->node_index < y->node_index);
}

static int compare_groups(const void* a, const void* b) {
  const lg_op_group *x = a, *y = b;
  if (x->total_ns != y->total_ns) return x->total_ns < y->total_ns ? 1 : -1;
  return strcmp(x->op, y->op);
}

static bool collect_profile(TfLiteInterpreter* ip, uint64_t runs,
                            lg_profile* pr) {
  int n = litegpu_interpreter_op_profile(ip, NULL, 0);
  if (n < 0) return false;
  pr->runs = runs;
  pr->ops = calloc((size_t)n + 1, sizeof(*pr->ops));
  pr->groups = calloc((size_t)n + 1, sizeof(*pr->groups));
  if (pr->ops == NULL || pr->groups == NULL) {
    return out_of_memory("the operator profile");
  }
  pr->num_ops = litegpu_interpreter_op_profile(ip, pr->ops, n);
  for (int i = 0; i < pr->num_ops; ++i) {
    const litegpu_op_profile* op = &pr->ops[i];
    const char* name = op->op_name ? op->op_name : "?";
    pr->total_ns += op->total_ns;
    int g = 0;
    while (g < pr->num_groups && strcmp(pr->groups[g].op, name) != 0) ++g;
    if (g == pr->num_groups) pr->groups[pr->num_groups++].op = name;
    pr->groups[g].nodes += 1;
    pr->groups[g].total_ns += op->total_ns;
  }
  qsort(pr->ops, (size_t)pr->num_ops, sizeof(*pr->ops), compare_ops);
  qsort(pr->groups, (size_t)pr->num_groups, sizeof(*pr->groups),
        compare_groups);
  return true;
}

/* ---- The benchmark --------------------------------------------------------
 */

/* Library messages, one line each, marked as coming from the library. */
void lg_bench_report_library_error(void* user_data, const char* format,
                                   va_list args) {
  char message[4096];
  vsnprintf(message, sizeof(message), format, args);
  size_t n = strlen(message);
  while (n > 0 && (message[n - 1] == '\n' || message[n - 1] == ' ')) {
    message[--n] = '\0';
  }
  fprintf(stderr, "benchmark_model: litegpu: %s\n", message);
  if (user_data != NULL) {
    lg_bench_message* last = user_data;
    size_t keep = n < sizeof(last->text) - 1 ? n : sizeof(last->text) - 1;
    memcpy(last->text, message, keep); /* truncated when longer */
    last->text[keep] = '\0';
  }
}

/* The --custom_op_library files, opened by main before anything runs. */
static lg_custom_op_libraries g_custom_ops;

bool lg_bench_add_custom_ops(TfLiteInterpreterOptions* options) {
  char why[1024];
  if (lg_custom_op_libraries_register(&g_custom_ops, options, why,
                                      sizeof(why))) {
    return true;
  }
  fprintf(stderr, "benchmark_model: %s\n", why);
  return false;
}

/* Loads every --custom_op_library (tools/custom_op_library.h: a bad
 * library is a bad argument, found before the model loads). False after
 * printing why. */
static bool open_custom_ops(const lg_bench_params* p) {
  char why[1024];
  bool ok = true;
  for (int i = 0; ok && i < p->custom_op_library.count; ++i) {
    ok = lg_custom_op_libraries_add(
        &g_custom_ops, p->custom_op_library.items[i], why, sizeof(why));
  }
  ok = ok && lg_custom_op_libraries_load(&g_custom_ops, why, sizeof(why));
  if (!ok) fprintf(stderr, "benchmark_model: %s\n", why);
  return ok;
}

long lg_bench_file_size(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return -1;
  long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  const int error = errno;
  fclose(f);
  errno = error;
  return size;
}

/* The GPU or service delegate the flags ask for, created before the
 * interpreter (with delegate fallback on, so a failing Invoke is retried on
 * the CPU) and applied once the inputs have their shapes
 * (apply_delegate). */
static bool create_delegate(lg_bench* b, lg_bench_instance* in) {
  const lg_bench_params* p = b->p;
  char why[1024];
  double t0 = lg_bench_now_us();
  in->service = p->use_service[0] != '\0';
  if (in->service) {
    in->delegate =
        lg_bench_service_create(p, p->service_burst, why, sizeof(why));
  } else {
    in->delegate = lg_bench_gpu_create(
        p, (litegpu_gpu_backend)lg_bench_gpu_backend(p->gpu_backend),
        p->delegate_serialize_dir, why, sizeof(why));
  }
  b->delegate_us = lg_bench_now_us() - t0;
  if (in->delegate == NULL) {
    fprintf(stderr, "benchmark_model: %s: %s\n",
            in->service ? "--use_service" : "--use_gpu", why);
    return false;
  }
  TfLiteInterpreterOptionsSetEnableDelegateFallback(in->options, true);
  return true;
}

/* After the inputs are resized, as TFLite's benchmark_model does (a
 * static-shape delegate leaves the graph immutable; the GPU delegate would
 * lower its partitions again on a later resize, but this way they are
 * lowered once, at the benchmarked shapes). A
 * delegate that cannot be applied leaves the graph on the CPU (the
 * fallback TfLiteInterpreterCreate gives an options delegate). */
static bool apply_delegate(lg_bench* b, lg_bench_instance* in) {
  b->nodes_before_delegate =
      in->graph.primary ? litegpu_interpreter_op_profile(in->ip, NULL, 0) : -1;
  double t0 = lg_bench_now_us();
  TfLiteStatus status =
      TfLiteInterpreterModifyGraphWithDelegate(in->ip, in->delegate);
  b->create_us += lg_bench_now_us() - t0;
  if (status == kTfLiteDelegateError || status == kTfLiteApplicationError) {
    fprintf(stderr,
            "benchmark_model: warning: the %s delegate could not be "
            "applied; the graph runs without it\n",
            in->service ? "service" : "GPU");
    b->delegate_refused = true;
    return true;
  }
  if (status != kTfLiteOk) {
    fprintf(stderr,
            "benchmark_model: applying the %s delegate failed (see the "
            "messages above)\n",
            in->service ? "service" : "GPU");
    return false;
  }
  return true;
}

/* What the delegate did. A signature on another subgraph than 0 runs
 * through its runner, which has no Invoke-time fallback: the delegate was
 * removed only if applying it failed. */
static bool read_delegate(lg_bench* b, const lg_bench_instance* in) {
  const bool ok =
      in->service
          ? lg_bench_service_read(in->delegate, &in->graph,
                                  b->nodes_before_delegate, b->p->service_burst,
                                  &b->delegate)
          : lg_bench_delegate_read(in->delegate, &in->graph, &b->delegate);
  if (!ok) return false;
  if (!in->graph.primary && b->delegate_refused) {
    b->delegate.fell_back = true;
    b->delegate.bytes_uploaded = 0;
    b->delegate.bytes_downloaded = 0;
  }
  return true;
}

/* After AllocateTensors: what the delegate took, and whether that is all
 * of the graph when --require_full_delegation asks for it. */
static bool check_delegation(lg_bench* b, lg_bench_instance* in) {
  b->has_delegate = read_delegate(b, in);
  if (!b->has_delegate) {
    fprintf(stderr, "benchmark_model: cannot read the delegate's stats\n");
    return false;
  }
  b->num_nodes = b->delegate.nodes_total;
  char why[1024];
  if (in->service) {
    snprintf(why, sizeof(why), "%d of the %d nodes were delegated",
             b->delegate.nodes_delegated, b->delegate.nodes_total);
  }
  if (b->p->require_full_delegation &&
      (in->service
           ? b->delegate.nodes_delegated != b->delegate.nodes_total ||
                 b->delegate.fell_back
           : !lg_bench_fully_delegated(in->delegate, in->ip, &b->delegate, why,
                                       sizeof(why)))) {
    fprintf(stderr, "benchmark_model: --require_full_delegation: %s\n", why);
    return false;
  }
  return true;
}

static bool create_interpreter(lg_bench* b, TfLiteModel* model,
                               lg_bench_instance* in) {
  const lg_bench_params* p = b->p;
  in->options = TfLiteInterpreterOptionsCreate();
  if (in->options == NULL) return out_of_memory("the interpreter options");
  TfLiteInterpreterOptionsSetNumThreads(in->options, p->num_threads);
  TfLiteInterpreterOptionsSetErrorReporter(in->options,
                                           lg_bench_report_library_error, NULL);
  /* litegpu has CPU kernels for MediaPipe's custom ops: models that use
   * them (selfie segmentation) run on the CPU too. */
  litegpu_add_mediapipe_ops(in->options);
  if (!lg_bench_add_custom_ops(in->options)) return false;
  if ((p->use_gpu || p->use_service[0] != '\0') && !create_delegate(b, in)) {
    return false;
  }
  double t0 = lg_bench_now_us();
  in->ip = TfLiteInterpreterCreate(model, in->options);
  b->create_us = lg_bench_now_us() - t0;
  if (in->ip == NULL) {
    fprintf(stderr, "benchmark_model: cannot create an interpreter for '%s'\n",
            p->graph);
    return false;
  }
  return true;
}

/* The graph that runs: the interpreter's own, or the signature that
 * --signature_to_run_for names. The reports that read subgraph 0 (the
 * operator profile, --require_full_delegation's execution plan) are
 * refused for a signature on another subgraph rather than given wrong. */
static bool open_graph(lg_bench* b, lg_bench_instance* in) {
  const lg_bench_params* p = b->p;
  if (p->signature_to_run_for[0] == '\0') {
    in->graph = lg_bench_graph_of(in->ip);
    return true;
  }
  lg_bench_graph* g = &in->graph;
  if (!lg_bench_graph_open_signature(g, in->ip, p->signature_to_run_for)) {
    return false;
  }
  if (g->primary) return true;
  const char* refused = NULL;
  if (p->enable_op_profiling) {
    refused = "--enable_op_profiling times the nodes of subgraph 0 only";
  } else if ((p->use_gpu || p->use_service[0] != '\0') &&
             p->require_full_delegation) {
    refused =
        "--require_full_delegation reads the execution plan of subgraph 0 "
        "only";
  }
  if (refused != NULL) {
    fprintf(stderr,
            "benchmark_model: %s, and signature '%s' (--signature_to_run_for) "
            "runs another subgraph: drop one of the two flags\n",
            refused, g->key);
    return false;
  }
  return true;
}

/* Load, create, resize, allocate: the "init" of TFLite's report. */
static bool init_interpreter(lg_bench* b, lg_bench_inputs* inputs,
                             TfLiteModel** model, lg_bench_instance* in) {
  const lg_bench_params* p = b->p;
  b->model_bytes = lg_bench_file_size(p->graph);
  if (b->model_bytes < 0) {
    fprintf(stderr, "benchmark_model: cannot open model '%s': %s\n", p->graph,
            strerror(errno));
    return false;
  }
  double t0 = lg_bench_now_us();
  *model = TfLiteModelCreateFromFileWithErrorReporter(
      p->graph, lg_bench_report_library_error, NULL);
  b->load_us = lg_bench_now_us() - t0;
  if (*model == NULL) {
    fprintf(stderr, "benchmark_model: cannot load model '%s'\n", p->graph);
    return false;
  }
  if (!create_interpreter(b, *model, in)) return false;
  if (!open_graph(b, in)) return false;
  t0 = lg_bench_now_us();
  if (!lg_bench_inputs_resize(&in->graph, inputs)) return false;
  const double resize_us = lg_bench_now_us() - t0;
  if (in->delegate != NULL && !apply_delegate(b, in)) return false;
  t0 = lg_bench_now_us();
  if (lg_bench_graph_allocate(&in->graph) != kTfLiteOk) {
    fprintf(stderr, "benchmark_model: AllocateTensors failed\n");
    return false;
  }
  b->allocate_us = resize_us + lg_bench_now_us() - t0;
  /* The node count and the memory plan are subgraph 0's. */
  b->num_nodes = -1;
  if (in->graph.primary) {
    b->num_nodes = litegpu_interpreter_op_profile(in->ip, NULL, 0);
    b->has_mem = litegpu_interpreter_memory_info(in->ip, &b->mem) == kTfLiteOk;
  }
  return in->delegate == NULL || check_delegation(b, in);
}

bool lg_bench_run(lg_bench* b, lg_bench_graph* g) {
  const lg_bench_params* p = b->p;
  if (!run_phase(g, p, p->warmup_runs, p->warmup_min_secs, "warm-up",
                 &b->warmup)) {
    return false;
  }
  /* The profile is subgraph 0's: open_graph refused it for another. */
  if (p->enable_op_profiling &&
      litegpu_interpreter_enable_op_profiling(g->ip, true) != kTfLiteOk) {
    return false;
  }
  double t0 = lg_bench_now_us();
  if (!run_phase(g, p, p->num_runs, p->min_secs, "benchmark", &b->steady))
    return false;
  b->steady_secs = (lg_bench_now_us() - t0) / 1e6;
  const lg_samples* first = b->warmup.count ? &b->warmup : &b->steady;
  b->first_us = first->us[0];
  if (!compute_stats(&b->warmup, &b->warmup_stats) ||
      !compute_stats(&b->steady, &b->steady_stats)) {
    return false;
  }
  if (p->enable_op_profiling) {
    b->has_profile = collect_profile(g->ip, b->steady.count, &b->profile);
    if (!b->has_profile) return false;
  }
  b->peak_end = peak_rss_bytes();
  b->ru_maxrss = ru_maxrss_bytes();
  return true;
}

void lg_bench_free_runs(lg_bench* b) {
  samples_free(&b->warmup);
  samples_free(&b->steady);
  free(b->profile.ops);
  free(b->profile.groups);
  lg_bench_gpu_profile_free(&b->gpu_profile);
  memset(&b->warmup, 0, sizeof(b->warmup));
  memset(&b->steady, 0, sizeof(b->steady));
  memset(&b->profile, 0, sizeof(b->profile));
}

/* ---- main -----------------------------------------------------------------
 */

static int benchmark(const lg_bench_params* p, const bool* set) {
  lg_bench b = {.p = p, .set = set, .rss_start = proc_status_bytes("VmRSS")};
  b.steady.keep_all = p->json_run_times;
  lg_bench_inputs in = {0};
  TfLiteModel* model = NULL;
  lg_bench_instance instance = {0};
  bool json = strcmp(p->report, "json") == 0;
  int rc = EXIT_MODEL_FAILED;
  if (!lg_bench_inputs_parse(p, &in)) {
    rc = EXIT_USAGE;
    goto done;
  }
  if (!init_interpreter(&b, &in, &model, &instance)) goto done;
  lg_bench_graph* g = &instance.graph;
  b.peak_after_init = peak_rss_bytes();
  b.fills = calloc((size_t)lg_bench_graph_input_count(g) + 1, sizeof(lg_fill));
  if (b.fills == NULL) {
    out_of_memory("the inputs");
    goto done;
  }
  if (!lg_bench_inputs_fill(g, &in, p->random_seed, b.fills)) goto done;
  if (!lg_bench_run(&b, g)) goto done;
  if (p->enable_op_profiling && b.has_delegate && !instance.service) {
    /* After the steady state: timing each dispatch alone slows the runs. */
    const uint64_t runs = b.steady.count < 50 ? b.steady.count : 50;
    b.has_gpu_profile = lg_bench_gpu_profile(
        instance.delegate, g, runs > 0 ? runs : 1, &b.gpu_profile);
    if (!b.has_gpu_profile) goto done;
  }
  if (b.has_delegate && !read_delegate(&b, &instance)) goto done;
  if (json) {
    lg_bench_print_json(stdout, &b, g);
  } else {
    lg_bench_print_text(stdout, &b, g);
  }
  rc = fflush(stdout) == 0 ? 0 : EXIT_MODEL_FAILED;
done:
  if (rc == EXIT_MODEL_FAILED) {
    fprintf(stderr, "benchmark_model: benchmark of '%s' failed\n", p->graph);
  }
  lg_bench_free_runs(&b);
  free(b.fills);
  lg_bench_inputs_free(&in);
  lg_bench_instance_destroy(&instance);
  TfLiteModelDelete(model);
  return rc;
}

int main(int argc, char** argv) {
  lg_bench_params p;
  bool set[NUM_FLAGS];
  switch (parse_flags(argc, argv, &p, set)) {
    case PARSE_HELP:
      print_usage(stdout);
      return 0;
    case PARSE_ERROR:
      return EXIT_USAGE;
    case PARSE_OK:
      break;
  }
  int rc = EXIT_USAGE;
  if (open_custom_ops(&p)) {
    rc = p.compare[0] != '\0' ? lg_bench_compare(&p, set) : benchmark(&p, set);
  }
  lg_custom_op_libraries_close(&g_custom_ops);
  return rc;
}
