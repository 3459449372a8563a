/* benchmark_model --compare=cpu,cl,vk: every backend on one model, in one
 * process, on the same seeded inputs, reported in one table.
 *
 * Order: the CPU runs first, listed or not: its outputs are the reference
 * and its mean the base of the speed-ups (unlisted, its row is marked as
 * the reference). Then each listed backend in the order given: "cl"
 * (OpenCL), "vk" (Vulkan), "gpu" (the delegate's automatic choice), "svc"
 * and "burst" (the service delegate on --use_service, per call and in
 * burst mode: one init, no kernel cache to warm; its prec column is "-",
 * the service's device deciding).
 *
 * Per backend:
 *   init cold  GPU: a fresh, empty serialization dir (mkdtemp in $TMPDIR or
 *              /tmp); create the delegate and the interpreter, resize the
 *              inputs, AllocateTensors; the kernels are compiled and written
 *              to the dir; then all of it is deleted. CPU: the interpreter,
 *              the resize and AllocateTensors.
 *   init warm  GPU only: the same again with the dir the cold init filled,
 *              so kernels come from the cache. This second interpreter is
 *              the one measured; the dir is removed after its runs.
 *   runs       the seeded inputs (--random_seed), then the warm-up and the
 *              steady state as without --compare (--warmup_runs,
 *              --warmup_min_secs, --num_runs, --min_secs, --max_secs,
 *              --run_delay); the first warm-up run is the first inference.
 *   outputs    after the runs, every float output (float32, float16,
 *              float64) against the CPU's: the largest absolute difference
 *              (NaN against NaN counts as equal, NaN against a number as
 *              infinite).
 *   paired     after every row ran, the rows' interpreters (the CPU's and
 *              each GPU backend's warm one, all kept) take turns in blocks
 *              of PAIR_BLOCK Invokes, ceil(--num_runs / PAIR_BLOCK) rounds,
 *              so that the machine's load of the moment falls on all of
 *              them: the mean of those Invokes, and the CPU's paired mean
 *              over the row's, the paired speed-up. On a shared machine it
 *              is the steadier ratio; the steady-state columns show each
 *              row alone.
 * The model is loaded once, outside the init times. Delegate fallback is
 * off, so that a delegate that fails fails its row rather than timing the
 * CPU under its name. With --require_full_delegation a GPU backend that
 * leaves a node on the CPU fails its row with the node and the reason. A
 * backend that cannot be created or run gets its reason instead of numbers;
 * only a failing CPU reference fails the command (exit 1).
 *
 * PoCL keeps compiled kernels in its own cache (~/.cache/pocl), which would
 * make a cold init warm: before its first OpenCL call the comparison sets
 * POCL_KERNEL_CACHE=0 unless the environment already sets it, and the
 * report shows the value used.
 *
 * JSON "comparison": one object per row, in table order. A row that ran:
 *   backend, listed (false for a CPU run only as the reference), ok: true,
 *   device ("CPU" on the CPU), init_cold_ms, init_warm_ms (null on the CPU),
 *   first_inference_ms, runs, mean_ms, std_ms, p50_ms, p90_ms, p99_ms,
 *   paired_mean_ms, paired_speedup (null when a paired Invoke failed),
 *   nodes_delegated, nodes_total, partitions, bytes_uploaded,
 *   bytes_downloaded, bytes_per_inference (the last Invoke's), fp16,
 *   programs_cold, programs_warm ({compiled, from_cache, cache_files}
 *   after each init; null on the CPU), max_abs_diff (real values:
 *   quantized outputs dequantized; null without float or quantized
 *   outputs), speedup (CPU mean / this mean).
 * A row that failed: backend, listed, ok: false, reason.
 *
 * The text table's "prec" column is the precision the row computes in
 * (fp16 when the GPU delegate chose half precision). --plot=FILE.svg draws
 * the same rows (tools/benchmark/plot.c) from each row's sorted
 * steady-state times.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "litegpu/mediapipe_ops.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tools/benchmark/benchmark.h"

#define CPU_ROW (-1)   /* cmp_row.backend of the CPU */
#define SVC_ROW (-2)   /* the service delegate, one request per Invoke */
#define BURST_ROW (-3) /* the service delegate in burst mode */
#define PAIR_BLOCK 5   /* Invokes per row per round of the paired runs */

typedef struct cmp_programs {
  uint64_t compiled, from_cache, cache_files;
} cmp_programs;

typedef struct cmp_row {
  const char* name; /* "cpu", "cl", "vk", "gpu" */
  int backend;      /* litegpu_gpu_backend, or CPU_ROW */
  bool listed, ok;
  char reason[1024];
  double init_cold_us, init_warm_us, first_us;
  lg_stats stats;
  lg_bench_delegate_info info; /* GPU rows */
  cmp_programs cold, warm;
  double max_abs_diff;    /* NAN without float outputs */
  lg_bench_instance live; /* kept for the paired runs */
  char dir[PATH_MAX];     /* GPU rows: the kernel cache dir, or "" */
  double paired_us;       /* mean of the paired Invokes; NAN: none */
  double* sorted_us;      /* steady-state times, ascending (--plot) */
  size_t kept;            /* how many */
} cmp_row;

typedef struct cmp_output {
  TfLiteType type;
  size_t bytes;
  void* data;
  TfLiteQuantizationParams quant; /* INT8/UINT8: compared dequantized */
} cmp_output;

typedef struct cmp_run {
  lg_bench_params params; /* the flags, without profiling */
  lg_bench_inputs inputs;
  TfLiteModel* model;
  long model_bytes;
  int nodes_total;
  cmp_output* reference; /* the CPU's outputs */
  int num_reference;
  cmp_row rows[LG_COMPARE_MAX + 1];
  int num_rows;
  lg_bench_message last; /* the library's last message */
  char pocl_cache[64];
  bool pocl_set_here;
} cmp_run;

/* ---- The list ----------------------------------------------------------- */

static const char* const kNames[] = {"cpu", "cl", "vk", "gpu", "svc", "burst"};

/* The next comma-separated item of *list into `item`; false at the end. */
static bool next_name(const char** list, char* item, size_t size) {
  if (*list == NULL) return false;
  const char* comma = strchr(*list, ',');
  size_t len = comma ? (size_t)(comma - *list) : strlen(*list);
  snprintf(item, size, "%.*s", (int)(len < size ? len : size - 1), *list);
  *list = comma ? comma + 1 : NULL;
  return true;
}

static const char* known_name(const char* item) {
  for (size_t i = 0; i < sizeof(kNames) / sizeof(kNames[0]); ++i) {
    if (strcmp(kNames[i], item) == 0) return kNames[i];
  }
  return NULL;
}

bool lg_bench_compare_check(const char* list, char* why, size_t why_size) {
  if (list[0] == '\0') return true;
  char item[32];
  const char* seen[LG_COMPARE_MAX] = {0};
  int count = 0;
  for (const char* cursor = list; next_name(&cursor, item, sizeof(item));) {
    const char* name = known_name(item);
    if (name == NULL) {
      snprintf(why, why_size, "'%s' is not one of cpu, cl, vk, gpu, svc, burst",
               item);
      return false;
    }
    for (int i = 0; i < count; ++i) {
      if (seen[i] == name) {
        snprintf(why, why_size, "'%s' is listed twice", item);
        return false;
      }
    }
    seen[count++] = name;
  }
  return true;
}

static void add_row(cmp_run* c, const char* name, bool listed) {
  cmp_row* row = &c->rows[c->num_rows++];
  row->name = name;
  row->backend = strcmp(name, "cpu") == 0     ? CPU_ROW
                 : strcmp(name, "svc") == 0   ? SVC_ROW
                 : strcmp(name, "burst") == 0 ? BURST_ROW
                                              : lg_bench_gpu_backend(name);
  row->listed = listed;
  row->max_abs_diff = NAN;
  row->init_warm_us = NAN;
  row->paired_us = NAN;
}

/* The table's rows in the listed order, the CPU first when not listed. */
static void plan_rows(cmp_run* c, const char* list) {
  char item[32];
  bool cpu_listed = false;
  for (const char* cursor = list; next_name(&cursor, item, sizeof(item));) {
    cpu_listed = cpu_listed || strcmp(item, "cpu") == 0;
  }
  if (!cpu_listed) add_row(c, "cpu", false);
  for (const char* cursor = list; next_name(&cursor, item, sizeof(item));) {
    add_row(c, known_name(item), true);
  }
}

static bool is_service(const cmp_row* row) {
  return row->backend == SVC_ROW || row->backend == BURST_ROW;
}

/* ---- One interpreter ---------------------------------------------------- */

__attribute__((format(printf, 2, 3))) static bool row_fail(cmp_row* row,
                                                           const char* format,
                                                           ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(row->reason, sizeof(row->reason), format, args);
  va_end(args);
  row->ok = false;
  return false;
}

static const char* last_message(const cmp_run* c) {
  return c->last.text[0] ? c->last.text : "(no message; see above)";
}

static bool create_interpreter(cmp_run* c, cmp_row* row,
                               lg_bench_instance* in) {
  in->options = TfLiteInterpreterOptionsCreate();
  if (in->options == NULL) return row_fail(row, "out of memory");
  TfLiteInterpreterOptionsSetNumThreads(in->options, c->params.num_threads);
  TfLiteInterpreterOptionsSetErrorReporter(
      in->options, lg_bench_report_library_error, &c->last);
  litegpu_add_mediapipe_ops(in->options); /* as benchmark_model.c */
  if (!lg_bench_add_custom_ops(in->options)) {
    return row_fail(row, "a custom-op library failed to register its ops");
  }
  c->last.text[0] = '\0';
  in->ip = TfLiteInterpreterCreate(c->model, in->options);
  if (in->ip == NULL) {
    return row_fail(row, "cannot create the interpreter: %s", last_message(c));
  }
  in->graph = lg_bench_graph_of(in->ip); /* no signatures with --compare */
  if (!lg_bench_inputs_resize(&in->graph, &c->inputs)) {
    return row_fail(row, "resizing the inputs failed");
  }
  /* After the resize, so the partitions are lowered once at these shapes. */
  if (in->delegate != NULL && TfLiteInterpreterModifyGraphWithDelegate(
                                  in->ip, in->delegate) != kTfLiteOk) {
    return row_fail(row, "applying the delegate failed: %s", last_message(c));
  }
  if (TfLiteInterpreterAllocateTensors(in->ip) != kTfLiteOk) {
    return row_fail(row, "AllocateTensors failed: %s", last_message(c));
  }
  return true;
}

/* Delegate (GPU rows; kernels cached in `dir`), interpreter, tensors: the
 * init, timed into *init_us. False with the row's reason. */
static bool instance_create(cmp_run* c, cmp_row* row, const char* dir,
                            lg_bench_instance* in, double* init_us) {
  double t0 = lg_bench_now_us();
  if (is_service(row)) {
    char why[1024];
    in->service = true;
    in->delegate = lg_bench_service_create(
        &c->params, row->backend == BURST_ROW, why, sizeof(why));
    if (in->delegate == NULL) return row_fail(row, "%s", why);
  } else if (row->backend != CPU_ROW) {
    char why[1024];
    in->delegate = lg_bench_gpu_create(
        &c->params, (litegpu_gpu_backend)row->backend, dir, why, sizeof(why));
    if (in->delegate == NULL) return row_fail(row, "%s", why);
  }
  if (!create_interpreter(c, row, in)) return false;
  *init_us = lg_bench_now_us() - t0;
  return true;
}

/* A copy of the steady-state times, which lg_bench_run left sorted (the
 * first LG_EXACT_SAMPLES of them), for the chart. */
static bool keep_times(cmp_row* row, const lg_samples* steady) {
  free(row->sorted_us);
  row->kept = steady->kept;
  row->sorted_us = malloc((steady->kept + 1) * sizeof(double));
  if (row->sorted_us == NULL) return row_fail(row, "out of memory");
  if (steady->kept > 0) {
    memcpy(row->sorted_us, steady->us, steady->kept * sizeof(double));
  }
  return true;
}

/* Warm-up and steady runs on the seeded inputs. */
static bool row_measure(cmp_run* c, cmp_row* row, lg_bench_graph* g) {
  lg_bench b = {.p = &c->params};
  int inputs = lg_bench_graph_input_count(g);
  b.fills = calloc((size_t)inputs + 1, sizeof(lg_fill));
  c->last.text[0] = '\0';
  bool ok =
      b.fills != NULL &&
      lg_bench_inputs_fill(g, &c->inputs, c->params.random_seed, b.fills) &&
      lg_bench_run(&b, g);
  if (ok) {
    row->first_us = b.first_us;
    row->stats = b.steady_stats;
    ok = keep_times(row, &b.steady);
  } else {
    row_fail(row, "the runs failed: %s", last_message(c));
  }
  lg_bench_free_runs(&b);
  free(b.fills);
  return ok;
}

/* ---- Outputs ------------------------------------------------------------ */

static double half_value(uint16_t h) {
  int exponent = (h >> 10) & 0x1F;
  int mantissa = h & 0x3FF;
  double v = exponent == 0    ? ldexp(mantissa, -24)
             : exponent == 31 ? (mantissa ? NAN : INFINITY)
                              : ldexp(mantissa + 1024, exponent - 25);
  return (h & 0x8000) ? -v : v;
}

static size_t float_size(TfLiteType type) {
  switch (type) {
    case kTfLiteFloat32:
      return 4;
    case kTfLiteFloat16:
      return 2;
    case kTfLiteFloat64:
      return 8;
    default:
      return 0;
  }
}

/* The size of an output's elements when compared as real values: floats,
 * and INT8/UINT8 with a quantization scale (dequantized); 0 otherwise. */
static size_t value_size(const cmp_output* o) {
  if ((o->type == kTfLiteInt8 || o->type == kTfLiteUInt8) &&
      o->quant.scale > 0.0f) {
    return 1;
  }
  return float_size(o->type);
}

static double float_value(const void* data, TfLiteType type, size_t i) {
  const char* at = (const char*)data + i * float_size(type);
  if (type == kTfLiteFloat32) {
    float f;
    memcpy(&f, at, sizeof(f));
    return f;
  }
  if (type == kTfLiteFloat64) {
    double d;
    memcpy(&d, at, sizeof(d));
    return d;
  }
  uint16_t h;
  memcpy(&h, at, sizeof(h));
  return half_value(h);
}

static bool keep_reference(cmp_run* c, TfLiteInterpreter* ip) {
  int n = TfLiteInterpreterGetOutputTensorCount(ip);
  c->reference = calloc((size_t)n + 1, sizeof(cmp_output));
  if (c->reference == NULL) return false;
  c->num_reference = n;
  for (int i = 0; i < n; ++i) {
    const TfLiteTensor* t = TfLiteInterpreterGetOutputTensor(ip, i);
    cmp_output* ref = &c->reference[i];
    ref->type = TfLiteTensorType(t);
    ref->bytes = TfLiteTensorByteSize(t);
    ref->quant = TfLiteTensorQuantizationParams(t);
    ref->data = malloc(ref->bytes + 1);
    if (ref->data == NULL) return false;
    if (ref->bytes > 0) memcpy(ref->data, TfLiteTensorData(t), ref->bytes);
  }
  return true;
}

/* Element i of an output's data as a real value (quantized ones
 * dequantized). */
static double real_value(const cmp_output* o, const void* data, size_t i) {
  if (o->type == kTfLiteInt8 || o->type == kTfLiteUInt8) {
    const int q = o->type == kTfLiteInt8 ? ((const int8_t*)data)[i]
                                         : ((const uint8_t*)data)[i];
    return ((double)q - o->quant.zero_point) * o->quant.scale;
  }
  return float_value(data, o->type, i);
}

/* The largest |backend - CPU| over every float or quantized output (real
 * values); NAN without one, INFINITY when an output differs in type or
 * size. */
static double max_abs_diff(const cmp_run* c, TfLiteInterpreter* ip) {
  double worst = NAN;
  for (int i = 0; i < c->num_reference; ++i) {
    const cmp_output* ref = &c->reference[i];
    if (value_size(ref) == 0) continue;
    const TfLiteTensor* t = TfLiteInterpreterGetOutputTensor(ip, i);
    if (TfLiteTensorType(t) != ref->type ||
        TfLiteTensorByteSize(t) != ref->bytes) {
      return INFINITY;
    }
    if (isnan(worst)) worst = 0.0;
    for (size_t k = 0; k < ref->bytes / value_size(ref); ++k) {
      double a = real_value(ref, ref->data, k);
      double b = real_value(ref, TfLiteTensorData(t), k);
      double d = isnan(a) && isnan(b) ? 0.0 : fabs(a - b);
      worst = fmax(worst, isnan(d) ? INFINITY : d);
    }
  }
  return worst;
}

/* ---- Rows --------------------------------------------------------------- */

static bool run_cpu(cmp_run* c, cmp_row* row) {
  lg_bench_instance* in = &row->live;
  bool ok = instance_create(c, row, NULL, in, &row->init_cold_us) &&
            row_measure(c, row, &in->graph);
  if (ok) {
    c->nodes_total = litegpu_interpreter_op_profile(in->ip, NULL, 0);
    row->info.nodes_total = c->nodes_total;
    row->max_abs_diff = 0.0;
    if (!keep_reference(c, in->ip)) ok = row_fail(row, "out of memory");
  }
  if (!ok) lg_bench_instance_destroy(in);
  row->ok = ok;
  return ok;
}

static bool read_programs(cmp_row* row, const lg_bench_instance* in,
                          cmp_programs* out) {
  if (!lg_bench_delegate_read(in->delegate, &in->graph, &row->info)) {
    return row_fail(row, "cannot read the GPU delegate's stats");
  }
  out->compiled = row->info.programs_compiled;
  out->from_cache = row->info.programs_from_cache;
  out->cache_files = row->info.cache_files_loaded;
  return true;
}

/* Cold init (then deleted) and warm init into *warm, both on `dir`. */
static bool gpu_init_twice(cmp_run* c, cmp_row* row, const char* dir,
                           lg_bench_instance* warm) {
  lg_bench_instance cold = {0};
  bool ok = instance_create(c, row, dir, &cold, &row->init_cold_us) &&
            read_programs(row, &cold, &row->cold);
  lg_bench_instance_destroy(&cold);
  if (!ok) return false;
  if (!instance_create(c, row, dir, warm, &row->init_warm_us) ||
      !read_programs(row, warm, &row->warm)) {
    return false;
  }
  char why[1024];
  if (c->params.require_full_delegation &&
      !lg_bench_fully_delegated(warm->delegate, warm->ip, &row->info, why,
                                sizeof(why))) {
    return row_fail(row, "--require_full_delegation: %s", why);
  }
  return true;
}

static int remove_entry(const char* path, const struct stat* st, int flag,
                        struct FTW* ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  if (remove(path) != 0) {
    fprintf(stderr, "benchmark_model: warning: cannot remove '%s': %s\n", path,
            strerror(errno));
  }
  return 0;
}

/* The row's interpreter and, for a GPU row, its kernel cache dir. */
static void row_release(cmp_row* row) {
  lg_bench_instance_destroy(&row->live);
  if (row->dir[0] != '\0') {
    nftw(row->dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    row->dir[0] = '\0';
  }
}

static void run_gpu(cmp_run* c, cmp_row* row) {
  const char* tmp = getenv("TMPDIR");
  char dir[PATH_MAX];
  snprintf(dir, sizeof(dir), "%s/litegpu-bench-XXXXXX",
           tmp && tmp[0] ? tmp : "/tmp");
  if (mkdtemp(dir) == NULL) {
    row_fail(row, "mkdtemp '%s' failed: %s", dir, strerror(errno));
    return;
  }
  memcpy(row->dir, dir, sizeof(dir));
  lg_bench_instance* in = &row->live;
  bool ok = gpu_init_twice(c, row, dir, in) && row_measure(c, row, &in->graph);
  if (ok && !lg_bench_delegate_read(in->delegate, &in->graph, &row->info)) {
    ok = row_fail(row, "cannot read the GPU delegate's stats");
  }
  if (ok) row->max_abs_diff = max_abs_diff(c, in->ip);
  if (!ok) row_release(row);
  row->ok = ok;
}

/* A service row: one init (the service keeps no kernel cache to warm), the
 * runs, what the delegate took. */
static void run_service(cmp_run* c, cmp_row* row) {
  lg_bench_instance* in = &row->live;
  bool ok = instance_create(c, row, NULL, in, &row->init_cold_us) &&
            row_measure(c, row, &in->graph);
  if (ok && !lg_bench_service_read(in->delegate, &in->graph, c->nodes_total,
                                   row->backend == BURST_ROW, &row->info)) {
    ok = row_fail(row, "cannot read the service delegate's partitions");
  }
  char why[64];
  if (ok && c->params.require_full_delegation &&
      row->info.nodes_delegated != row->info.nodes_total) {
    snprintf(why, sizeof(why), "%d of the %d nodes were delegated",
             row->info.nodes_delegated, row->info.nodes_total);
    ok = row_fail(row, "--require_full_delegation: %s", why);
  }
  if (ok) row->max_abs_diff = max_abs_diff(c, in->ip);
  if (!ok) row_release(row);
  row->ok = ok;
}

/* The paired runs (see the header): every row that ran takes turns. */
static void run_paired(cmp_run* c) {
  const int rounds = (c->params.num_runs + PAIR_BLOCK - 1) / PAIR_BLOCK;
  double total[LG_COMPARE_MAX + 1] = {0};
  bool failed[LG_COMPARE_MAX + 1] = {false};
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < c->num_rows; ++i) {
      cmp_row* row = &c->rows[i];
      for (int k = 0; k < PAIR_BLOCK && row->ok && !failed[i]; ++k) {
        const double t0 = lg_bench_now_us();
        failed[i] = TfLiteInterpreterInvoke(row->live.ip) != kTfLiteOk;
        total[i] += lg_bench_now_us() - t0;
      }
    }
  }
  for (int i = 0; i < c->num_rows; ++i) {
    if (c->rows[i].ok && !failed[i] && rounds > 0) {
      c->rows[i].paired_us = total[i] / ((double)rounds * PAIR_BLOCK);
    }
  }
}

/* ---- Reports ------------------------------------------------------------ */

static const cmp_row* cpu_row(const cmp_run* c) {
  for (int i = 0; i < c->num_rows; ++i) {
    if (c->rows[i].backend == CPU_ROW) return &c->rows[i];
  }
  return NULL;
}

static double speedup(const cmp_run* c, const cmp_row* row) {
  const cmp_row* cpu = cpu_row(c);
  return cpu && row->stats.mean > 0 ? cpu->stats.mean / row->stats.mean : NAN;
}

/* NAN when either side has no paired mean. */
static double paired_speedup(const cmp_run* c, const cmp_row* row) {
  const cmp_row* cpu = cpu_row(c);
  return cpu && row->paired_us > 0 ? cpu->paired_us / row->paired_us : NAN;
}

static void text_ms(FILE* out, int width, double us) {
  if (isfinite(us)) {
    fprintf(out, " %*.3f", width, us / 1e3);
  } else {
    fprintf(out, " %*s", width, "-");
  }
}

/* The precision the row computes in: the GPU's (half when the delegate
 * chose float16), the CPU's float32 kernels. */
static const char* precision(const cmp_row* row) {
  if (is_service(row)) return "-"; /* the service's own device decides */
  return row->backend != CPU_ROW && row->info.fp16 ? "fp16" : "fp32";
}

static void text_row(FILE* out, const cmp_run* c, const cmp_row* row) {
  char name[16];
  snprintf(name, sizeof(name), "%s%s", row->name, row->listed ? "" : "*");
  fprintf(out, "%-7s", name);
  if (!row->ok) {
    fprintf(out, "  no result: %s\n", row->reason);
    return;
  }
  fprintf(out, " %4s", precision(row));
  const double t[] = {row->init_cold_us, row->init_warm_us, row->first_us,
                      row->stats.mean,   row->stats.std,    row->stats.p50,
                      row->stats.p90,    row->stats.p99};
  for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); ++i) text_ms(out, 9, t[i]);
  char nodes[32];
  snprintf(nodes, sizeof(nodes), "%d/%d", row->info.nodes_delegated,
           row->info.nodes_total);
  fprintf(out, " %9s %5d %10llu", nodes, row->info.partitions,
          (unsigned long long)(row->info.bytes_uploaded +
                               row->info.bytes_downloaded));
  if (row->backend == CPU_ROW) {
    fprintf(out, " %12s", "reference");
  } else if (isnan(row->max_abs_diff)) {
    fprintf(out, " %12s", "-");
  } else {
    fprintf(out, " %12.3g", row->max_abs_diff);
  }
  fprintf(out, " %7.2fx", speedup(c, row));
  text_ms(out, 9, row->paired_us);
  const double paired = paired_speedup(c, row);
  if (isfinite(paired)) {
    fprintf(out, " %7.2fx\n", paired);
  } else {
    fprintf(out, " %8s\n", "-");
  }
}

static void text_gpu_notes(FILE* out, const cmp_run* c) {
  for (int i = 0; i < c->num_rows; ++i) {
    const cmp_row* row = &c->rows[i];
    if (!row->ok || row->backend == CPU_ROW) continue;
    if (is_service(row)) {
      fprintf(out, "  %s: the litegpu service at '%s' on '%s', %s\n", row->name,
              c->params.use_service, row->info.device, row->info.backend);
      continue;
    }
    fprintf(out,
            "  %s: %s on '%s', %s precision; kernel programs: cold init %llu "
            "compiled + %llu from cache (%llu cache files), warm init %llu "
            "compiled + %llu from cache (%llu cache files)\n",
            row->name, row->info.backend, row->info.device,
            row->info.fp16 ? "half" : "full",
            (unsigned long long)row->cold.compiled,
            (unsigned long long)row->cold.from_cache,
            (unsigned long long)row->cold.cache_files,
            (unsigned long long)row->warm.compiled,
            (unsigned long long)row->warm.from_cache,
            (unsigned long long)row->warm.cache_files);
    if (strcmp(row->info.backend, "Vulkan") == 0 && row->warm.from_cache == 0 &&
        row->warm.cache_files > 0) {
      fprintf(out,
              "      (Vulkan builds every pipeline at each init, from the "
              "pipeline-cache files when warm; a pipeline counts as from "
              "the cache only when the driver reports a hit, which this "
              "one does not)\n");
    }
  }
}

static void print_text(FILE* out, const cmp_run* c, const bool* set) {
  const lg_bench_params* p = &c->params;
  fprintf(out, "litegpu benchmark_model (TFLite C API %s): comparison\n",
          TfLiteVersion());
  lg_bench_text_flags(out, p, set);
  fprintf(out,
          "\nModel: %s (%ld bytes, %d node%s); inputs seeded with %d; "
          "POCL_KERNEL_CACHE=%s (%s)\n",
          p->graph, c->model_bytes, c->nodes_total,
          c->nodes_total == 1 ? "" : "s", p->random_seed, c->pocl_cache,
          c->pocl_set_here ? "set by benchmark_model for cold kernel builds"
                           : "from the environment");
  fprintf(out,
          "Times in ms. prec: the precision the backend computes in. init: "
          "delegate + interpreter + AllocateTensors "
          "(cold: empty kernel cache; warm: the cache the cold init "
          "filled). first: the warm interpreter's first Invoke, with whatever "
          "the driver compiles at a kernel's first launch (PoCL does). "
          "bytes/inf: uploaded + downloaded per inference. "
          "paired: the mean over the rows taking turns in blocks of %d "
          "Invokes after all ran, and its speed-up (the steadier ratio on "
          "a shared machine).\n\n",
          PAIR_BLOCK);
  fprintf(out,
          "%-7s %4s %9s %9s %9s %9s %9s %9s %9s %9s %9s %5s %10s %12s %8s "
          "%9s %8s\n",
          "backend", "prec", "init cold", "init warm", "first", "mean", "std",
          "p50", "p90", "p99", "delegated", "parts", "bytes/inf",
          "max abs diff", "speed-up", "paired", "speed-up");
  for (int i = 0; i < c->num_rows; ++i) text_row(out, c, &c->rows[i]);
  if (!c->rows[0].listed) {
    fprintf(out,
            "* not in --compare: run as the reference for the outputs "
            "and the speed-ups\n");
  }
  text_gpu_notes(out, c);
}

static void json_programs(FILE* out, const char* key, const cmp_row* row,
                          const cmp_programs* pr) {
  fprintf(out, ",\"%s\":", key);
  if (row->backend == CPU_ROW || is_service(row)) {
    fputs("null", out);
  } else {
    fprintf(out, "{\"compiled\":%llu,\"from_cache\":%llu,\"cache_files\":%llu}",
            (unsigned long long)pr->compiled,
            (unsigned long long)pr->from_cache,
            (unsigned long long)pr->cache_files);
  }
}

static void json_times(FILE* out, const cmp_row* row) {
  const char* keys[] = {"init_cold_ms", "init_warm_ms", "first_inference_ms",
                        "mean_ms",      "std_ms",       "p50_ms",
                        "p90_ms",       "p99_ms"};
  const double us[] = {row->init_cold_us, row->init_warm_us, row->first_us,
                       row->stats.mean,   row->stats.std,    row->stats.p50,
                       row->stats.p90,    row->stats.p99};
  for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); ++i) {
    fputc(',', out);
    lg_json_key(out, keys[i]);
    lg_json_real(out, us[i] / 1e3);
  }
  fprintf(out, ",\"runs\":%zu", row->stats.count);
}

static void json_row(FILE* out, const cmp_run* c, const cmp_row* row) {
  fputs("{\"backend\":", out);
  lg_json_string(out, row->name);
  fprintf(out, ",\"listed\":%s,\"ok\":%s", row->listed ? "true" : "false",
          row->ok ? "true" : "false");
  if (!row->ok) {
    fputs(",\"reason\":", out);
    lg_json_string(out, row->reason);
    fputc('}', out);
    return;
  }
  fputs(",\"reason\":null,\"device\":", out);
  lg_json_string(out, row->backend == CPU_ROW ? "CPU" : row->info.device);
  json_times(out, row);
  const lg_bench_delegate_info* d = &row->info;
  fprintf(out,
          ",\"nodes_delegated\":%d,\"nodes_total\":%d,\"partitions\":%d,"
          "\"bytes_uploaded\":%llu,\"bytes_downloaded\":%llu,"
          "\"bytes_per_inference\":%llu,\"fp16\":%s",
          d->nodes_delegated, d->nodes_total, d->partitions,
          (unsigned long long)d->bytes_uploaded,
          (unsigned long long)d->bytes_downloaded,
          (unsigned long long)(d->bytes_uploaded + d->bytes_downloaded),
          d->fp16 ? "true" : "false");
  json_programs(out, "programs_cold", row, &row->cold);
  json_programs(out, "programs_warm", row, &row->warm);
  fputs(",\"max_abs_diff\":", out);
  lg_json_real(out, row->max_abs_diff);
  fputs(",\"speedup\":", out);
  lg_json_real(out, speedup(c, row));
  fputs(",\"paired_mean_ms\":", out);
  lg_json_real(out, row->paired_us / 1e3);
  fputs(",\"paired_speedup\":", out);
  lg_json_real(out, paired_speedup(c, row));
  fputc('}', out);
}

static void print_json(FILE* out, const cmp_run* c) {
  fputs("{\"tool\":\"litegpu benchmark_model\",\"tflite_version\":", out);
  lg_json_string(out, TfLiteVersion());
  fputs(",\"flags\":", out);
  lg_bench_json_flags(out, &c->params);
  fputs(",\"model\":{\"path\":", out);
  lg_json_string(out, c->params.graph);
  fprintf(out, ",\"size_bytes\":%ld,\"num_nodes\":%d}", c->model_bytes,
          c->nodes_total);
  fputs(",\"pocl_kernel_cache\":", out);
  lg_json_string(out, c->pocl_cache);
  fputs(",\"comparison\":[", out);
  for (int i = 0; i < c->num_rows; ++i) {
    if (i) fputc(',', out);
    json_row(out, c, &c->rows[i]);
  }
  fputs("]}\n", out);
}

/* ---- The chart (--plot) -------------------------------------------------- */

static bool write_plot(FILE* out, const cmp_run* c) {
  lg_plot_row rows[LG_COMPARE_MAX + 1];
  char labels[LG_COMPARE_MAX + 1][64];
  for (int i = 0; i < c->num_rows; ++i) {
    const cmp_row* row = &c->rows[i];
    const char* api = row->backend == CPU_ROW ? "CPU"
                      : row->ok               ? row->info.backend
                                              : "GPU";
    const bool prec = row->ok && !is_service(row);
    snprintf(labels[i], sizeof(labels[i]), "%s%s%s%s", api, prec ? ", " : "",
             prec ? precision(row) : "", row->listed ? "" : " (reference)");
    rows[i] = (lg_plot_row){
        .name = row->name,
        .label = labels[i],
        .ok = row->ok,
        .reason = row->reason,
        .sorted_us = row->sorted_us,
        .kept = row->ok ? row->kept : 0,
        .runs = row->stats.count,
        .p50_us = row->stats.p50,
        .mean_us = row->stats.mean,
        .speedup = speedup(c, row),
        .paired_speedup = paired_speedup(c, row),
        .reference = row->backend == CPU_ROW,
    };
  }
  char note[128];
  snprintf(note, sizeof(note),
           "at least %d steady-state runs per backend after at least %d "
           "warm-up runs",
           c->params.num_runs, c->params.warmup_runs);
  const lg_plot plot = {c->params.graph, note, c->params.num_threads, rows,
                        c->num_rows};
  return lg_bench_write_plot(out, &plot);
}

/* The chart's file, opened before the runs so that a path that cannot be
 * written fails at once. */
static FILE* open_plot(const char* path) {
  FILE* f = fopen(path, "w");
  if (f == NULL) {
    fprintf(stderr, "benchmark_model: cannot write the --plot file '%s': %s\n",
            path, strerror(errno));
  }
  return f;
}

/* Writes and closes the chart; false after saying why. */
static bool finish_plot(FILE* f, const cmp_run* c) {
  bool ok = write_plot(f, c);
  ok = fclose(f) == 0 && ok;
  if (ok) {
    fprintf(stderr, "benchmark_model: wrote the chart to '%s'\n",
            c->params.plot);
  } else {
    fprintf(stderr, "benchmark_model: writing the --plot file '%s' failed\n",
            c->params.plot);
  }
  return ok;
}

/* ---- The comparison ----------------------------------------------------- */

/* PoCL's own kernel cache off (unless the user chose), before any OpenCL
 * call, so that cold inits compile. */
static void quiet_pocl_cache(cmp_run* c) {
  const char* value = getenv("POCL_KERNEL_CACHE");
  if (value == NULL) {
    setenv("POCL_KERNEL_CACHE", "0", 0);
    c->pocl_set_here = true;
    value = "0";
  }
  snprintf(c->pocl_cache, sizeof(c->pocl_cache), "%s", value);
}

static bool load_model(cmp_run* c) {
  c->model_bytes = lg_bench_file_size(c->params.graph);
  if (c->model_bytes < 0) {
    fprintf(stderr, "benchmark_model: cannot open model '%s': %s\n",
            c->params.graph, strerror(errno));
    return false;
  }
  c->model = TfLiteModelCreateFromFileWithErrorReporter(
      c->params.graph, lg_bench_report_library_error, NULL);
  if (c->model == NULL) {
    fprintf(stderr, "benchmark_model: cannot load model '%s'\n",
            c->params.graph);
  }
  return c->model != NULL;
}

/* The CPU first, then every other row in order. */
static bool run_rows(cmp_run* c) {
  for (int i = 0; i < c->num_rows; ++i) {
    cmp_row* row = &c->rows[i];
    if (row->backend != CPU_ROW) continue;
    if (!run_cpu(c, row)) {
      fprintf(stderr, "benchmark_model: the CPU reference failed: %s\n",
              row->reason);
      return false;
    }
  }
  for (int i = 0; i < c->num_rows; ++i) {
    cmp_row* row = &c->rows[i];
    if (is_service(row)) {
      run_service(c, row);
    } else if (row->backend != CPU_ROW) {
      run_gpu(c, row);
    }
  }
  run_paired(c);
  for (int i = 0; i < c->num_rows; ++i) row_release(&c->rows[i]);
  return true;
}

int lg_bench_compare(const lg_bench_params* p, const bool* set) {
  cmp_run* c = calloc(1, sizeof(*c));
  if (c == NULL) {
    fprintf(stderr, "benchmark_model: out of memory\n");
    return 1;
  }
  c->params = *p;
  c->params.enable_op_profiling = false;
  c->params.json_run_times = false;
  plan_rows(c, p->compare);
  quiet_pocl_cache(c);
  int rc = 1;
  FILE* plot = NULL;
  if (!lg_bench_inputs_parse(p, &c->inputs) ||
      (p->plot[0] != '\0' && (plot = open_plot(p->plot)) == NULL)) {
    rc = 2;
  } else if (load_model(c) && run_rows(c)) {
    if (strcmp(p->report, "json") == 0) {
      print_json(stdout, c);
    } else {
      print_text(stdout, c, set);
    }
    rc = fflush(stdout) == 0 ? 0 : 1;
    if (plot != NULL && !finish_plot(plot, c)) rc = 1;
    plot = NULL;
  }
  if (plot != NULL) fclose(plot); /* the runs failed: an empty file */
  if (rc == 1) {
    fprintf(stderr, "benchmark_model: comparison on '%s' failed\n", p->graph);
  }
  for (int i = 0; i < c->num_rows; ++i) free(c->rows[i].sorted_us);
  for (int i = 0; i < c->num_reference; ++i) free(c->reference[i].data);
  free(c->reference);
  lg_bench_inputs_free(&c->inputs);
  TfLiteModelDelete(c->model);
  free(c);
  return rc;
}
