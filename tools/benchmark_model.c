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
 * happens). Each time is the wall clock around one TfLiteInterpreterInvoke,
 * in microseconds; --run_delay sleeps between runs, outside the timing.
 * Operator profiles (--enable_op_profiling) cover the steady state only.
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
 * litegpu additions:
 *   --report=text|json  text (default): the report for people.
 *                       json: one JSON object on stdout, nothing else there:
 *     tool, tflite_version, flags {every flag: its value},
 *     model {path, size_bytes, num_nodes,
 *            inputs/outputs [{name, type, shape}] (shapes after resizing;
 *            an input adds values {count, low, high, min, max}: the random
 *            range and the extremes drawn)},
 *     init_us {load, create, allocate (resizing the inputs and
 *              AllocateTensors), total},
 *     first_inference_us,
 *     warmup, inference: {count, mean_us, std_us, min_us, max_us, p50_us,
 *                         p90_us, p99_us} (null numbers when count is 0);
 *                        inference adds total_secs, and run_times_us with
 *                        --json_run_times,
 *     memory {peak_rss_bytes, ru_maxrss_bytes, rss_at_start_bytes,
 *             peak_rss_after_init_bytes,
 *             arena_bytes, non_constant_tensor_bytes, heap_bytes,
 *             constant_bytes},
 *     op_profile: null, or [{node, op, version, avg_us, total_us, share_pct,
 *                            count}] one entry per node, slowest first,
 *     op_type_summary: null, or [{op, nodes, avg_us_per_run, share_pct}].
 *   --json_run_times    list every steady-state run time in the JSON.
 *   --verbose           (TFLite's) also lists the flags left at defaults.
 *
 * Percentiles are nearest-rank, exact up to 16384 runs and beyond that read
 * from a histogram with buckets under 0.8% wide (so that the tool's own
 * memory stays under 200 KB however many runs); std is the population
 * deviation. Peak RSS is this process's high-water mark, VmHWM from
 * /proc/self/status: Linux carries getrusage's ru_maxrss (also reported)
 * across execve, so a tool started by a larger process (a Python script)
 * would report that one's size. Messages go to stderr. Exit status: 0 done;
 * 1 the model failed (load, create, resize, allocate, invoke) or memory ran
 * out; 2 a bad command line.
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

#include "litegpu/interpreter_info.h"
#include "litegpu/profiling.h"
#include "tensorflow/lite/c/c_api.h"
#include "tools/benchmark/benchmark.h"

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
    {"random_seed", FLAG_INT, FIELD(random_seed), "1234", 0, INT_MAX, NULL,
     "seed of the random input values"},
    {"verbose", FLAG_BOOL, FIELD(verbose), "false", 0, 0, NULL,
     "list every flag in the report, defaults too"},
    {"report", FLAG_STRING, FIELD(report), "text", 0, 0, "text|json",
     "litegpu: the report on stdout, text or one JSON object"},
    {"json_run_times", FLAG_BOOL, FIELD(json_run_times), "false", 0, 0, NULL,
     "litegpu: the JSON report lists every steady-state run time"},
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
        snprintf(why, why_size, "expected one of %s", f->choices);
        return false;
      }
      *(const char**)flag_field(p, f) = value;
      return true;
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
  static const char* kTypeNames[] = {"int", "float", "bool", "string"};
  for (int i = 0; i < NUM_FLAGS; ++i) {
    const lg_bench_flag* f = &lg_bench_flags[i];
    char left[64];
    snprintf(left, sizeof(left), "--%s=%s", f->name, f->fallback);
    fprintf(out, "  %-28s %-6s %s\n", left, kTypeNames[f->type], f->help);
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
    if (eq == NULL && f->type != FLAG_BOOL) {
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
  return PARSE_OK;
}

static bool out_of_memory(const char* what) {
  fprintf(stderr, "benchmark_model: out of memory for %s\n", what);
  return false;
}

/* ---- Timing and statistics ------------------------------------------------
 */

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

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

/* Nearest rank: the smallest value with at least p% of the values <= it. */
static size_t nearest_rank(size_t n, double p) {
  size_t rank = (size_t)ceil(p / 100.0 * (double)n);
  return rank == 0 ? 0 : (rank > n ? n - 1 : rank - 1);
}

static double hist_percentile(const lg_samples* s, double p) {
  size_t rank = nearest_rank(s->count, p);
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
  st->p50 = sorted[nearest_rank(s->count, 50)];
  st->p90 = sorted[nearest_rank(s->count, 90)];
  st->p99 = sorted[nearest_rank(s->count, 99)];
  if (sorted != s->us) free(sorted);
  return true;
}

/* At least `min_runs` runs and `min_secs` seconds; no run starts after
 * max_secs, except the first. */
static bool run_phase(TfLiteInterpreter* ip, const lg_bench_params* p,
                      int min_runs, double min_secs, const char* phase,
                      lg_samples* out) {
  size_t expected = (size_t)min_runs;
  if (!samples_reserve(
          out, expected < LG_EXACT_SAMPLES ? expected : LG_EXACT_SAMPLES)) {
    return out_of_memory("the run times");
  }
  double start = now_us();
  for (uint64_t run = 0;; ++run) {
    double elapsed = (now_us() - start) / 1e6;
    if (run >= (uint64_t)min_runs && elapsed >= min_secs) break;
    if (run > 0 && elapsed >= p->max_secs) break;
    double t0 = now_us();
    TfLiteStatus status = TfLiteInterpreterInvoke(ip);
    double t = now_us() - t0;
    if (status != kTfLiteOk) {
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
static void report_library_error(void* user_data, const char* format,
                                 va_list args) {
  (void)user_data;
  char message[4096];
  vsnprintf(message, sizeof(message), format, args);
  size_t n = strlen(message);
  while (n > 0 && (message[n - 1] == '\n' || message[n - 1] == ' ')) {
    message[--n] = '\0';
  }
  fprintf(stderr, "benchmark_model: litegpu: %s\n", message);
}

static long file_size(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return -1;
  long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  fclose(f);
  return size;
}

/* Load, create, resize, allocate: the "init" of TFLite's report. */
static bool init_interpreter(lg_bench* b, lg_bench_inputs* in,
                             TfLiteModel** model,
                             TfLiteInterpreterOptions** options,
                             TfLiteInterpreter** ip) {
  const lg_bench_params* p = b->p;
  b->model_bytes = file_size(p->graph);
  if (b->model_bytes < 0) {
    fprintf(stderr, "benchmark_model: cannot open model '%s'\n", p->graph);
    return false;
  }
  double t0 = now_us();
  *model = TfLiteModelCreateFromFileWithErrorReporter(
      p->graph, report_library_error, NULL);
  b->load_us = now_us() - t0;
  if (*model == NULL) {
    fprintf(stderr, "benchmark_model: cannot load model '%s'\n", p->graph);
    return false;
  }
  *options = TfLiteInterpreterOptionsCreate();
  if (*options == NULL) return out_of_memory("the interpreter options");
  TfLiteInterpreterOptionsSetNumThreads(*options, p->num_threads);
  TfLiteInterpreterOptionsSetErrorReporter(*options, report_library_error,
                                           NULL);
  t0 = now_us();
  *ip = TfLiteInterpreterCreate(*model, *options);
  b->create_us = now_us() - t0;
  if (*ip == NULL) {
    fprintf(stderr,
            "benchmark_model: cannot create an interpreter for "
            "'%s'\n",
            p->graph);
    return false;
  }
  t0 = now_us();
  if (!lg_bench_inputs_resize(*ip, in)) return false;
  if (TfLiteInterpreterAllocateTensors(*ip) != kTfLiteOk) {
    fprintf(stderr, "benchmark_model: AllocateTensors failed\n");
    return false;
  }
  b->allocate_us = now_us() - t0;
  b->num_nodes = litegpu_interpreter_op_profile(*ip, NULL, 0);
  b->has_mem = litegpu_interpreter_memory_info(*ip, &b->mem) == kTfLiteOk;
  return true;
}

static bool run_benchmark(lg_bench* b, TfLiteInterpreter* ip) {
  const lg_bench_params* p = b->p;
  if (!run_phase(ip, p, p->warmup_runs, p->warmup_min_secs, "warm-up",
                 &b->warmup)) {
    return false;
  }
  if (p->enable_op_profiling &&
      litegpu_interpreter_enable_op_profiling(ip, true) != kTfLiteOk) {
    return false;
  }
  double t0 = now_us();
  if (!run_phase(ip, p, p->num_runs, p->min_secs, "benchmark", &b->steady))
    return false;
  b->steady_secs = (now_us() - t0) / 1e6;
  const lg_samples* first = b->warmup.count ? &b->warmup : &b->steady;
  b->first_us = first->us[0];
  if (!compute_stats(&b->warmup, &b->warmup_stats) ||
      !compute_stats(&b->steady, &b->steady_stats)) {
    return false;
  }
  if (p->enable_op_profiling) {
    b->has_profile = collect_profile(ip, b->steady.count, &b->profile);
    if (!b->has_profile) return false;
  }
  b->peak_end = peak_rss_bytes();
  b->ru_maxrss = ru_maxrss_bytes();
  return true;
}

/* ---- main -----------------------------------------------------------------
 */

static int benchmark(const lg_bench_params* p, const bool* set) {
  lg_bench b = {.p = p, .set = set, .rss_start = proc_status_bytes("VmRSS")};
  b.steady.keep_all = p->json_run_times;
  lg_bench_inputs in = {0};
  TfLiteModel* model = NULL;
  TfLiteInterpreterOptions* options = NULL;
  TfLiteInterpreter* ip = NULL;
  bool json = strcmp(p->report, "json") == 0;
  int rc = EXIT_MODEL_FAILED;
  if (!lg_bench_inputs_parse(p, &in)) {
    rc = EXIT_USAGE;
    goto done;
  }
  if (!init_interpreter(&b, &in, &model, &options, &ip)) goto done;
  b.peak_after_init = peak_rss_bytes();
  b.fills = calloc((size_t)TfLiteInterpreterGetInputTensorCount(ip) + 1,
                   sizeof(lg_fill));
  if (b.fills == NULL) {
    out_of_memory("the inputs");
    goto done;
  }
  if (!lg_bench_inputs_fill(ip, &in, p->random_seed, b.fills)) goto done;
  if (!run_benchmark(&b, ip)) goto done;
  if (json) {
    lg_bench_print_json(stdout, &b, ip);
  } else {
    lg_bench_print_text(stdout, &b, ip);
  }
  rc = fflush(stdout) == 0 ? 0 : EXIT_MODEL_FAILED;
done:
  if (rc == EXIT_MODEL_FAILED) {
    fprintf(stderr, "benchmark_model: benchmark of '%s' failed\n", p->graph);
  }
  samples_free(&b.warmup);
  samples_free(&b.steady);
  free(b.profile.ops);
  free(b.profile.groups);
  free(b.fills);
  lg_bench_inputs_free(&in);
  TfLiteInterpreterDelete(ip);
  TfLiteInterpreterOptionsDelete(options);
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
  return benchmark(&p, set);
}
