/* Internals of the benchmark_model tool, shared by its files:
 *   tools/benchmark_model.c     main, the flag table, the timed phases
 *   tools/benchmark/graph.c     the graph that runs: the interpreter's own
 *                               inputs and outputs, or a signature's
 *                               (--signature_to_run_for)
 *   tools/benchmark/inputs.c    --input_layer* flags and random input values
 *   tools/benchmark/delegate.c  the GPU flags: delegate options, creation,
 *                               what the delegate did, full delegation
 *   tools/benchmark/service.c   --use_service: the service delegate
 *   tools/benchmark/compare.c   --compare: every backend on the same inputs
 *   tools/benchmark/report.c    the text and JSON reports
 *   tools/benchmark/plot.c      --plot: the comparison as an SVG chart
 * The flags, the phases and the JSON keys are described at the top of
 * tools/benchmark_model.c. Single-threaded; nothing here is a library API.
 */
#ifndef LITEGPU_TOOLS_BENCHMARK_BENCHMARK_H_
#define LITEGPU_TOOLS_BENCHMARK_BENCHMARK_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "litegpu/gpu_delegate.h"
#include "litegpu/interpreter_info.h"
#include "litegpu/profiling.h"
#include "tensorflow/lite/c/c_api.h"

/* ---- Flags ------------------------------------------------------------- */

/* FLAG_LIST: a repeatable string flag; each occurrence appends its value
 * to an lg_bench_list (the default "" is the empty list). */
typedef enum {
  FLAG_INT,
  FLAG_FLOAT,
  FLAG_BOOL,
  FLAG_STRING,
  FLAG_LIST
} lg_flag_type;

#define LG_BENCH_LIST_MAX 16
typedef struct lg_bench_list {
  const char* items[LG_BENCH_LIST_MAX]; /* point into argv */
  int count;
} lg_bench_list;

/* Every flag's value; the defaults come from lg_bench_flags. Strings point
 * into argv or at the table's literals. */
typedef struct lg_bench_params {
  const char* graph;
  int num_runs;
  int warmup_runs;
  double min_secs;
  double warmup_min_secs;
  double max_secs;
  double run_delay;
  int num_threads;
  bool enable_op_profiling;
  const char* input_layer;
  const char* input_layer_shape;
  const char* input_layer_value_range;
  const char* signature_to_run_for; /* "": the interpreter's own subgraph 0 */
  int random_seed;
  bool verbose;
  const char* report;
  bool json_run_times;
  /* GPU (TFLite's delegate provider flags) */
  bool use_gpu;
  bool gpu_precision_loss_allowed;
  bool gpu_inference_for_sustained_speed;
  const char* gpu_backend; /* "", "cl" or "vk" */
  int max_delegated_partitions;
  int min_nodes_per_partition;
  bool require_full_delegation;
  const char* delegate_serialize_dir;
  /* litegpu's accelerator service (include/litegpu/service_delegate.h) */
  const char* use_service; /* its socket; "": none */
  bool service_burst;
  const char* compare; /* "cpu,cl,vk": the comparison mode */
  const char* plot;    /* --plot=FILE.svg with --compare; "": none */
  /* Custom-op libraries (tools/custom_op_library.h), in flag order. */
  lg_bench_list custom_op_library;
} lg_bench_params;

typedef struct lg_bench_flag {
  const char* name;
  lg_flag_type type;
  size_t offset;        /* of the value in lg_bench_params */
  const char* fallback; /* the default, parsed like a command-line value */
  double min, max;      /* numeric flags: the accepted range, inclusive */
  const char* choices;  /* string flags: "a|b", or NULL for any text */
  const char* help;
} lg_bench_flag;

extern const lg_bench_flag lg_bench_flags[];
extern const int lg_bench_num_flags;

/* The address of a flag's value inside `p`. */
static inline const void* lg_bench_flag_value(const lg_bench_params* p,
                                              const lg_bench_flag* f) {
  return (const char*)p + f->offset;
}

/* ---- The graph that runs (graph.c) -------------------------------------- */

/* What the tool resizes, allocates, fills, invokes and reports: the
 * interpreter's own inputs and outputs (subgraph 0), or one SignatureDef
 * (--signature_to_run_for) through its runner. A signature's inputs and
 * outputs are its names, in its order, and may belong to a subgraph other
 * than 0. Input i of a signature is the tensor named
 * TfLiteSignatureRunnerGetInputName(runner, i). */
typedef struct lg_bench_graph {
  TfLiteInterpreter* ip;
  TfLiteSignatureRunner* runner; /* NULL: the interpreter's own subgraph 0 */
  const char* key;               /* the signature key; NULL without one */
  /* It runs subgraph 0, the one that the interpreter-wide reports
   * (operator profile, memory plan, execution plan) describe. */
  bool primary;
} lg_bench_graph;

/* The interpreter's own inputs and outputs. */
lg_bench_graph lg_bench_graph_of(TfLiteInterpreter* ip);
/* The signature `key` of the interpreter's model; false after printing why
 * (an unknown key: with the model's keys). */
bool lg_bench_graph_open_signature(lg_bench_graph* g, TfLiteInterpreter* ip,
                                   const char* key);
/* Deletes the runner; before the interpreter. */
void lg_bench_graph_close(lg_bench_graph* g);
int lg_bench_graph_input_count(const lg_bench_graph* g);
int lg_bench_graph_output_count(const lg_bench_graph* g);
/* The name an input or output goes by: the signature's name, or without a
 * signature the tensor's ("" for none). */
const char* lg_bench_graph_input_name(const lg_bench_graph* g, int i);
const char* lg_bench_graph_output_name(const lg_bench_graph* g, int i);
TfLiteTensor* lg_bench_graph_input(const lg_bench_graph* g, int i);
const TfLiteTensor* lg_bench_graph_output(const lg_bench_graph* g, int i);
/* A signature resizes strictly: only the dimensions that the model leaves
 * unknown (-1 in the tensor's dims_signature). */
TfLiteStatus lg_bench_graph_resize(lg_bench_graph* g, int i,
                                   const int32_t* dims, int num_dims);
TfLiteStatus lg_bench_graph_allocate(lg_bench_graph* g);
TfLiteStatus lg_bench_graph_invoke(lg_bench_graph* g);

/* ---- Inputs (inputs.c) ------------------------------------------------- */

typedef struct lg_bench_layer {
  const char* name; /* points into lg_bench_inputs.names */
  int32_t* dims;    /* NULL: keep the model's shape */
  int num_dims;
  int input; /* the graph input it names; -1 until resolved */
} lg_bench_layer;

typedef struct lg_bench_range {
  const char* name; /* points into lg_bench_inputs.ranges_text */
  double low, high;
} lg_bench_range;

/* The parsed --input_layer, --input_layer_shape, --input_layer_value_range. */
typedef struct lg_bench_inputs {
  char* names; /* writable copies, split in place */
  char* ranges_text;
  lg_bench_layer* layers;
  int num_layers;
  lg_bench_range* ranges;
  int num_ranges;
} lg_bench_inputs;

/* The random values one input received. */
typedef struct lg_fill {
  double low, high;          /* the range asked for */
  double seen_min, seen_max; /* the values drawn */
  size_t count;
} lg_fill;

/* Syntax only (no model needed); false after printing why. */
bool lg_bench_inputs_parse(const lg_bench_params* p, lg_bench_inputs* in);
/* Maps the names to the graph's inputs and applies the shapes. */
bool lg_bench_inputs_resize(lg_bench_graph* g, lg_bench_inputs* in);
/* Fills every input (after AllocateTensors); fills[i] describes input i. */
bool lg_bench_inputs_fill(const lg_bench_graph* g, const lg_bench_inputs* in,
                          int random_seed, lg_fill* fills);
void lg_bench_inputs_free(lg_bench_inputs* in);

/* TfLiteTensorName, or "" for a tensor without a name. */
static inline const char* lg_bench_tensor_name(const TfLiteTensor* t) {
  const char* name = TfLiteTensorName(t);
  return name ? name : "";
}

/* ---- Results ----------------------------------------------------------- */

/* Run times. The first LG_EXACT_SAMPLES are kept (all of them with
 * keep_all), so that percentiles are exact; past that a histogram with
 * buckets under 0.8% wide takes over, so that a long run of a fast model does
 * not grow the memory the report measures. */
#define LG_EXACT_SAMPLES 16384
typedef struct lg_samples {
  double* us; /* the first `kept` times, in run order */
  size_t kept, capacity;
  bool keep_all;
  size_t count;    /* runs recorded */
  double mean, m2; /* Welford's running mean and squared deviations */
  double min, max;
  uint64_t* histogram; /* NULL until more than LG_EXACT_SAMPLES runs */
} lg_samples;

/* Nearest-rank percentiles (from the histogram past LG_EXACT_SAMPLES runs);
 * std is the population standard deviation. */
typedef struct lg_stats {
  size_t count;
  double mean, std, min, max, p50, p90, p99;
} lg_stats;

typedef struct lg_op_group {
  const char* op;
  int nodes;
  uint64_t total_ns;
} lg_op_group;

typedef struct lg_profile {
  litegpu_op_profile* ops; /* one per node, slowest first */
  int num_ops;
  lg_op_group* groups; /* by op name, slowest first */
  int num_groups;
  uint64_t total_ns;
  uint64_t runs; /* steady-state runs profiled */
} lg_profile;

/* The GPU delegate's dispatch profile (--enable_op_profiling with
 * --use_gpu), from extra runs after the steady state in which every
 * dispatch is waited for and timed on its own. */
typedef struct lg_gpu_profile {
  litegpu_gpu_dispatch_profile* dispatches; /* slowest first */
  int num_dispatches;
  lg_op_group* kernels; /* by kernel name, slowest first */
  int num_kernels;
  uint64_t total_ns;
  uint64_t runs;
} lg_gpu_profile;

/* What a GPU delegate did, read after the runs (the byte counts are the
 * last Invoke's). With a signature on a subgraph other than 0 the counts
 * that come from the execution plan (partitions, nodes_delegated,
 * nodes_total, dispatches_per_invoke) are -1: unknown. */
typedef struct lg_bench_delegate_info {
  char backend[32];
  char device[256];
  int partitions;      /* delegate kernels in the execution plan */
  int nodes_delegated; /* model nodes they replaced */
  int nodes_total;     /* the nodes of the plan the delegate was given
                        * (the model's, less the activations fused into
                        * their producers) */
  int dispatches_per_invoke;
  uint64_t device_bytes;
  uint64_t bytes_uploaded, bytes_downloaded;
  uint64_t programs_compiled, programs_from_cache, cache_files_loaded;
  bool fp16;
  /* The runtime removed the delegate (delegate fallback): at creation, or
   * after a failed Invoke that it reran on the CPU. */
  bool fell_back;
  /* The service delegate: backend says per call or burst, device is the
   * service's; the byte, program and precision fields stay 0. */
  bool service;
} lg_bench_delegate_info;

typedef struct lg_bench {
  const lg_bench_params* p;
  const bool* set; /* which flags the command line set */
  long model_bytes;
  double load_us, delegate_us, create_us, allocate_us;
  lg_samples warmup, steady;
  double first_us, steady_secs;
  lg_stats warmup_stats, steady_stats;
  size_t rss_start, peak_after_init, peak_end; /* VmRSS, VmHWM, VmHWM */
  size_t ru_maxrss;                            /* getrusage's peak at the end */
  litegpu_memory_info mem;
  bool has_mem;
  int num_nodes; /* subgraph 0's; -1 for a signature on another one */
  lg_profile profile;
  bool has_profile;
  lg_gpu_profile gpu_profile;
  bool has_gpu_profile;
  lg_fill* fills;            /* one per input: the random values given to it */
  bool has_delegate;         /* --use_gpu or --use_service */
  int nodes_before_delegate; /* the plan's size before it was applied */
  bool delegate_refused;     /* applying it failed: the graph ran without it */
  lg_bench_delegate_info delegate;
} lg_bench;

/* ---- Timed phases (benchmark_model.c) ------------------------------------ */

double lg_bench_now_us(void);
/* Warm-up, then the steady state: fills b->warmup, b->steady, their stats,
 * first_us, steady_secs, the profile and the peak RSS. False after printing
 * why. */
bool lg_bench_run(lg_bench* b, lg_bench_graph* g);
/* Frees what lg_bench_run allocated. */
void lg_bench_free_runs(lg_bench* b);
/* An error reporter for TfLiteInterpreterOptionsSetErrorReporter and the
 * model loader: prints each library message on one line to stderr; a
 * non-NULL user_data is a lg_bench_message that keeps the last one. */
typedef struct lg_bench_message {
  char text[1024];
} lg_bench_message;
void lg_bench_report_library_error(void* user_data, const char* format,
                                   va_list args);
/* The file's size in bytes, -1 (errno says why) when it cannot be
 * opened. */
long lg_bench_file_size(const char* path);
/* Registers the ops of every --custom_op_library (loaded by main) on
 * `options`; every interpreter the tool creates gets them. False after
 * printing why. */
bool lg_bench_add_custom_ops(TfLiteInterpreterOptions* options);

/* ---- GPU delegate (delegate.c) ------------------------------------------- */

/* An interpreter with its options and delegate (NULL on the CPU), and the
 * graph of it that runs. */
typedef struct lg_bench_instance {
  TfLiteDelegate* delegate;
  bool service; /* the delegate is the service delegate */
  TfLiteInterpreterOptions* options;
  TfLiteInterpreter* ip;
  lg_bench_graph graph;
} lg_bench_instance;

/* "" (auto), "gpu" (auto), "cl", "vk"; -1 for anything else. */
int lg_bench_gpu_backend(const char* name);
/* Creates the delegate the GPU flags describe, on `backend`, caching
 * kernels in `serialize_dir` ("" or NULL: none) under the model file's base
 * name. NULL with the reason in `why`. */
TfLiteDelegate* lg_bench_gpu_create(const lg_bench_params* p,
                                    litegpu_gpu_backend backend,
                                    const char* serialize_dir, char* why,
                                    size_t why_size);
/* The dispatch profile over `runs` extra Invokes (profiling is turned on
 * for them and off after); false after printing why. */
bool lg_bench_gpu_profile(TfLiteDelegate* d, lg_bench_graph* g, uint64_t runs,
                          lg_gpu_profile* out);
void lg_bench_gpu_profile_free(lg_gpu_profile* p);
/* Reads the delegate's stats and the interpreter's execution plan (of
 * subgraph 0: left out, -1, when the graph runs another). */
bool lg_bench_delegate_read(const TfLiteDelegate* d, const lg_bench_graph* g,
                            lg_bench_delegate_info* info);
/* True when every node was delegated; otherwise writes which node was not
 * and why ("node 0 (FULLY_CONNECTED) was not delegated: ..."). */
bool lg_bench_fully_delegated(const TfLiteDelegate* d, TfLiteInterpreter* ip,
                              const lg_bench_delegate_info* info, char* why,
                              size_t why_size);
/* Deletes the graph's runner, the interpreter, then its options, then the
 * delegate. */
void lg_bench_instance_destroy(lg_bench_instance* in);

/* ---- Service delegate (service.c) ------------------------------------------
 */

/* Connects to the service at --use_service (per call, or burst), with the
 * partition flags. NULL with the reason in `why`. */
TfLiteDelegate* lg_bench_service_create(const lg_bench_params* p, bool burst,
                                        char* why, size_t why_size);
/* What the service delegate did: partitions and replaced nodes from the
 * execution plan, against `nodes_before`, the plan's size before the
 * delegate was applied (-1: unknown; the counts are then -1 too). */
bool lg_bench_service_read(const TfLiteDelegate* d, const lg_bench_graph* g,
                           int nodes_before, bool burst,
                           lg_bench_delegate_info* info);

/* ---- Comparison (compare.c) --------------------------------------------- */

#define LG_COMPARE_MAX 6 /* cpu, cl, vk, gpu, svc, burst: each once */
/* Checks the --compare list; false with the reason in `why`. */
bool lg_bench_compare_check(const char* list, char* why, size_t why_size);
/* Runs the comparison and prints its report; the exit status. */
int lg_bench_compare(const lg_bench_params* p, const bool* set);

/* ---- The chart (plot.c) -------------------------------------------------- */

/* One backend's band. */
typedef struct lg_plot_row {
  const char* name;  /* "cpu", "cl", "vk", "gpu" */
  const char* label; /* the second line: API and precision */
  bool ok;           /* false: `reason` instead of figures */
  const char* reason;
  const double* sorted_us;        /* steady-state run times, ascending */
  size_t kept;                    /* how many of them (>= 1 when ok) */
  size_t runs;                    /* runs made (more than kept past 16384) */
  double p50_us, mean_us;         /* the table's figures */
  double speedup, paired_speedup; /* NAN when none */
  bool reference;                 /* the CPU: no speed-up bars */
} lg_plot_row;

typedef struct lg_plot {
  const char* model;     /* its path; the chart shows the base name */
  const char* runs_note; /* e.g. "100 runs per backend after 10 warm-up" */
  int threads;
  const lg_plot_row* rows;
  int num_rows;
} lg_plot;

/* Writes the SVG; false when writing failed. */
bool lg_bench_write_plot(FILE* out, const lg_plot* plot);

/* The nearest-rank index of percentile p (0-100) among n sorted values:
 * the smallest with at least p% of the values <= it (n >= 1). */
size_t lg_bench_nearest_rank(size_t n, double p);

/* ---- JSON pieces (report.c) ---------------------------------------------- */

void lg_json_string(FILE* out, const char* s);
void lg_json_key(FILE* out, const char* key);
void lg_json_number(FILE* out, double v); /* %.3f, null when not finite */
void lg_json_real(FILE* out, double v);   /* %.9g, null when not finite */
void lg_bench_json_flags(FILE* out, const lg_bench_params* p);
void lg_bench_text_flags(FILE* out, const lg_bench_params* p, const bool* set);

/* ---- Reports (report.c) ------------------------------------------------ */

void lg_bench_print_text(FILE* out, const lg_bench* b, const lg_bench_graph* g);
void lg_bench_print_json(FILE* out, const lg_bench* b, const lg_bench_graph* g);

#endif /* LITEGPU_TOOLS_BENCHMARK_BENCHMARK_H_ */
