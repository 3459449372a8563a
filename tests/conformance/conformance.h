/* The per-delegate conformance suite (litegpu_conformance).
 *
 * One table of single-op cases that any delegate runs. Each case writes a
 * one-op float32 model with the model writer (constant weights as buffers),
 * fills its inputs with seeded values, runs it on the CPU (no delegate: the
 * reference) and with the delegate under test (no delegate fallback), and
 * passes when either
 *   (a) the delegate claimed the node and every output element satisfies
 *       |d - ref| <= tol * max(1, |ref|), or
 *   (b) the delegate refused the node with a non-empty reason
 *       (and the outputs, then computed on the CPU, still match).
 *
 * Pieces:
 *   builder.c       conf_builder: writes a case's model, records its inputs
 *   adapters.c      conf_adapter per delegate (gpu, reference)
 *   runner.c        command line, building and judging cases, the table
 *   execute.c       running a model once, comparing two runs
 *   models.c        whole-model mode (--model, --model-dir)
 *   compare.c       --compare-backends: OpenCL against Vulkan
 *   cases_*.c       the cases, one file per op family
 *
 * Adding a case: add a row to a family's table in cases_<family>.c (or a
 * family: a build function plus conf_add_<family>_cases, listed in
 * runner.c). A build function adds inputs, constants, one operator and its
 * outputs through the conf_builder calls below; it never sizes outputs (the
 * runner learns output shapes from the CPU kernels and writes them).
 *
 * Single-threaded; everything is freed before the program exits.
 */
#ifndef LITEGPU_TESTS_CONFORMANCE_CONFORMANCE_H_
#define LITEGPU_TESTS_CONFORMANCE_CONFORMANCE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/c_api.h"

/* ---- Shapes -------------------------------------------------------------- */

#define CONF_MAX_RANK 6
#define CONF_MAX_IO 8

typedef struct conf_shape {
  int rank;
  int32_t d[CONF_MAX_RANK];
} conf_shape;

/* CONF_SHAPE(1, 8, 8, 3): a shape from its dims (rank 1 or more). */
#define CONF_SHAPE(...)                                                    \
  ((conf_shape){(int)(sizeof((int32_t[]){__VA_ARGS__}) / sizeof(int32_t)), \
                {__VA_ARGS__}})

size_t conf_shape_elements(conf_shape shape);

/* ---- Building a case's model --------------------------------------------- */

/* One graph input: how the runner fills it. */
typedef struct conf_input_spec {
  int32_t tensor;
  TfLiteType type; /* float32, or int32 (rounded values) */
  float lo, hi;    /* uniform in [lo, hi] */
} conf_input_spec;

typedef struct conf_builder {
  lg_model_writer* writer;
  uint32_t seed; /* constants' generator state */
  int32_t case_op;
  int case_node; /* first operator of case_op (-1: none yet) */
  int num_ops;
  int num_tensors;
  conf_input_spec inputs[CONF_MAX_IO];
  int num_inputs;
  int32_t outputs[CONF_MAX_IO];
  int num_outputs;
  int invokes; /* Invokes per run (0: one); a build function may raise it */
  /* Output shapes learnt from the CPU (NULL on the first pass: outputs are
   * written as [1] and the CPU kernels' Prepare resizes them). */
  const conf_shape* out_shapes;
  int num_out_shapes;
} conf_builder;

/* Starts a case's model: subgraph 0, auto versions on. `seed` seeds the
 * constants; `out_shapes` as in conf_builder. 0, or -1 when out of memory. */
int conf_builder_init(conf_builder* b, int32_t case_op, uint32_t seed,
                      const conf_shape* out_shapes, int num_out_shapes);

/* Sets the graph inputs and outputs, serializes (a malloc'd block the
 * caller frees) and destroys the writer, also on failure. */
TfLiteStatus conf_builder_finish(conf_builder* b, void** data, size_t* size);

/* Destroys the writer of an unfinished model. */
void conf_builder_discard(conf_builder* b);

/* The seeded generator shared by constants and inputs: uniform in [0, 1). */
float conf_random(uint32_t* state);

/* A float32 graph input filled uniformly in [lo, hi]. Returns the tensor. */
int32_t conf_input(conf_builder* b, conf_shape shape, float lo, float hi);

/* A graph input of `type` (float32 or int32) filled in [lo, hi]. */
int32_t conf_input_typed(conf_builder* b, TfLiteType type, conf_shape shape,
                         float lo, float hi);

/* A float32 constant (weights) of seeded values uniform in [lo, hi]. */
int32_t conf_weights(conf_builder* b, conf_shape shape, float lo, float hi);

/* A float16 constant of seeded values in [lo, hi]. */
int32_t conf_weights_f16(conf_builder* b, conf_shape shape, float lo, float hi);

/* An INT8 constant of seeded values in [-127, 127] with one scale, zero
 * point 0: the weights of a hybrid op. */
int32_t conf_weights_int8(conf_builder* b, conf_shape shape, float scale);

/* Constants with the given values (shape's element count of them). */
int32_t conf_const_f32(conf_builder* b, conf_shape shape, const float* values);
int32_t conf_const_i32(conf_builder* b, conf_shape shape,
                       const int32_t* values);

/* A rank-1 int32 constant [count] (axes, shapes, multiples, ...). */
int32_t conf_const_i32_vec(conf_builder* b, int count, const int32_t* values);

/* A float32 variable tensor (zeros at AllocateTensors): a stateful op's
 * state, carried across Invokes. */
int32_t conf_variable(conf_builder* b, conf_shape shape);

/* A tensor between two operators (neither input nor output). */
int32_t conf_intermediate(conf_builder* b, TfLiteType type, conf_shape shape);

/* A constant [rows, cols] FLOAT32 or FLOAT16 tensor stored sparse (dim 0
 * dense, dim 1 CSR: TFLite's SparsityParameters) whose dense values are
 * seeded in [lo, hi] with about a third kept and the rest 0: the input of
 * a DENSIFY. */
int32_t conf_sparse_weights(conf_builder* b, TfLiteType type, int rows,
                            int cols, float lo, float hi);

/* A tensor between two operators quantized per tensor (INT8 or UINT8). */
int32_t conf_intermediate_quant(conf_builder* b, TfLiteType type,
                                conf_shape shape, float scale,
                                int64_t zero_point);

/* A graph output of `type`, shaped from the first pass (see above). */
int32_t conf_output_typed(conf_builder* b, TfLiteType type);
int32_t conf_output(conf_builder* b); /* float32 */

/* An operator; version 0 asks the writer for the version the op needs
 * (TFLite's rules, as the converter stamps it). Returns the operator
 * index, or -1 (the writer reports why). */
int conf_op(conf_builder* b, int32_t code, int version, const int32_t* inputs,
            int num_inputs, const int32_t* outputs, int num_outputs,
            const void* params);

/* A version-1 custom operator `name` with raw custom options; the case's
 * node when the case's op is kTfLiteBuiltinCustom. Returns its index, or
 * -1. */
int conf_custom_op(conf_builder* b, const char* name, const int32_t* inputs,
                   int num_inputs, const int32_t* outputs, int num_outputs,
                   const void* options, size_t options_size);

/* The common one-output form: conf_op(..., &out, 1, params) after adding a
 * float32 output. Returns the operator index, or -1. */
int conf_op1(conf_builder* b, int32_t code, const int32_t* inputs,
             int num_inputs, const void* params);

/* ---- Cases --------------------------------------------------------------- */

struct conf_case;
typedef int (*conf_build_fn)(conf_builder* b, const struct conf_case* c);

typedef struct conf_case {
  char name[80];
  int32_t op;              /* the builtin under test */
  const char* custom_name; /* its name when op is kTfLiteBuiltinCustom */
  conf_build_fn build;     /* returns 0, or -1 when the model cannot be built */
  const void* args;        /* the family's table row (static storage) */
  int index;               /* a second row index of the family's own */
  TfLiteFusedActivation act; /* for ops with a fused activation */
  double tol; /* fp32 bound (0: CONF_TOL_FP32); in fp16 the larger of it
                 and CONF_TOL_FP16 */
  /* When set, the delegate must refuse the node with a reason containing
   * this text (the version case); --expect-claimed does not apply. */
  const char* expect_reason;
  /* A form TFLite's GPU compatibility rules refuse for some ops (e.g. a
   * broadcast along inner dims): --expect-claimed accepts a refusal with a
   * reason; a claim must still match. */
  bool may_refuse;
} conf_case;

#define CONF_TOL_FP32 1e-5
#define CONF_TOL_FP16 1e-2

typedef struct conf_case_list {
  conf_case* items;
  int count;
  int capacity;
} conf_case_list;

/* Appends a case named by printf-style `format` and returns it (for the
 * optional fields); exits the program when out of memory. */
conf_case* conf_case_add(conf_case_list* list, int32_t op, conf_build_fn build,
                         const void* args, TfLiteFusedActivation act,
                         double tol, const char* format, ...)
    __attribute__((format(printf, 7, 8)));

/* The families (cases_*.c). */
void conf_add_binary_cases(conf_case_list* list);
void conf_add_conv_cases(conf_case_list* list);
void conf_add_reduce_cases(conf_case_list* list);
void conf_add_shape_cases(conf_case_list* list);
void conf_add_unary_cases(conf_case_list* list);
void conf_add_mediapipe_cases(conf_case_list* list);

/* Lower-case names of fused activations for case names ("relu6"). */
const char* conf_act_name(TfLiteFusedActivation act);

/* ---- Delegates ----------------------------------------------------------- */

typedef struct conf_delegate_options {
  int backend; /* litegpu_gpu_backend for the GPU delegate */
  bool fp16;   /* allow precision loss */
  /* Reference delegate only: a litegpu_reference_fault to inject (the
   * runner's own test: every case must then fail). */
  int fault;
} conf_delegate_options;

/* What the runner needs from a delegate: creation, the verdict on a node
 * of the last application, and the few facts the cases depend on. */
typedef struct conf_adapter {
  const char* name;
  /* NULL on failure, with the reason in `error`. */
  TfLiteDelegate* (*create)(const conf_delegate_options* options, char* error,
                            size_t error_size);
  void (*destroy)(TfLiteDelegate* delegate); /* NULL is a no-op */
  /* "" when the node was claimed, the reason when not, NULL when unknown
   * (last application only). */
  const char* (*node_reason)(const TfLiteDelegate* delegate, int node);
  /* One past the largest node index decided on: indices below it without
   * a decision are nodes the delegate never saw (activations the
   * interpreter fused into their producers). */
  int (*num_nodes)(const TfLiteDelegate* delegate);
  /* Whether the last application replaced any node. */
  bool (*claimed)(const TfLiteDelegate* delegate);
  /* The delegate's kMaxVersion for a builtin (the version case). */
  int (*max_version)(int32_t builtin_code);
  /* Whether kernels run in half precision (after an application). */
  bool (*fp16)(const TfLiteDelegate* delegate);
} conf_adapter;

/* "gpu" or "reference"; NULL for other names. */
const conf_adapter* conf_adapter_find(const char* name);

/* ---- Running models (execute.c, runner.c)
 * ------------------------------------------- */

/* The kMaxVersion of the delegate under test for a builtin (0: none). */
int conf_delegate_max_version(int32_t builtin_code);

typedef struct conf_output_data {
  TfLiteType type;
  conf_shape shape;
  float* values; /* malloc'd, converted to float */
  size_t count;
} conf_output_data;

typedef struct conf_run_result {
  TfLiteStatus status;
  const char* failed_step; /* "create", "allocate", "invoke" or NULL */
  conf_output_data outputs[CONF_MAX_IO];
  int num_outputs;
  char log[8192]; /* what the interpreter reported */
  size_t log_length;
} conf_run_result;

/* Runs `model`: inputs filled from `specs` (the i-th graph input from
 * specs[i]; missing specs fill float32 in [-0.5, 0.5]), with `delegate`
 * when not NULL, one thread, no fallback, then `invokes` Invokes on the
 * same inputs (the outputs are the last one's; more than one carries a
 * stateful op's variable tensors along). With invokes 0 it stops after
 * AllocateTensors (output shapes only). Free with conf_run_result_free. */
void conf_run_model(TfLiteModel* model, const conf_input_spec* specs,
                    int num_specs, TfLiteDelegate* delegate, int invokes,
                    conf_run_result* result);
void conf_run_result_free(conf_run_result* result);

/* The Invokes a case's run makes: its builder's count, at least one. */
static inline int conf_invokes(const conf_builder* b) {
  return b->invokes > 0 ? b->invokes : 1;
}

/* With `on`, conf_run_model rounds every float32 input value to the nearest
 * float16 (the runner's --fp16): the CPU reference and a delegate storing
 * tensors as half then see the same inputs, so the fp16 bound measures the
 * kernels, not the input rounding (FLOOR of -3.0004, stored as -3.0, is -3
 * on the device and -4 on the CPU). */
void conf_set_half_inputs(bool on);

/* --record-opencl-programs=DIR (record_programs.c): writes every distinct
 * OpenCL program the run builds to DIR (NNN.cl, NNN.opts). */
void conf_record_opencl_programs(const char* dir);
/* How many were written; -1 when one could not be written. */
int conf_recorded_opencl_programs(void);
void conf_record_opencl_programs_end(void);

/* Element-wise comparison of two runs' outputs. */
typedef struct conf_compare {
  bool ok;
  double max_abs; /* largest |d - ref| */
  double nmse;    /* sum (d - ref)^2 / sum ref^2 (0 when both are 0) */
  char why[256];  /* the first failure, when !ok */
} conf_compare;

void conf_compare_runs(const conf_run_result* ref, const conf_run_result* got,
                       double tol, conf_compare* out);

/* What a model file's quantization asks of the comparison (models.c):
 * bounds[k] >= 0 is output k's absolute bound (2 for a quantized output,
 * compared as raw integers; 2 * scale for a float output made from a
 * quantized tensor: TFLite's GPU delegate stays within two quantization
 * steps of the CPU), -1 the float bound; `quantized` when some bound is
 * set; `hybrid` for a dynamic-range model (an op reads a float32 runtime
 * tensor and a constant INT8 one: the CPU quantizes activations to 8 bits,
 * the GPU computes in float), whose float outputs get the fp16 bound. */
typedef struct conf_model_bounds {
  double bounds[CONF_MAX_IO];
  bool quantized, hybrid;
} conf_model_bounds;

/* Reads them from the file; false when the file cannot be read or an input
 * or output is neither float32 nor quantized ("neither" in `why`). */
bool conf_read_model_bounds(const char* path, conf_model_bounds* out, char* why,
                            size_t size);

/* conf_compare_runs with an absolute bound per output: output k passes
 * within abs_bounds[k] when that is >= 0 (quantized outputs, compared as
 * raw integers or dequantized floats), within the relative tol otherwise;
 * abs_bounds NULL: tol for all. */
void conf_compare_runs_bounded(const conf_run_result* ref,
                               const conf_run_result* got, double tol,
                               const double* abs_bounds, conf_compare* out);

/* Two delegates' runs a and b of one model against each other, element by
 * element, with the bound tol * max(scale, |cpu|): scale is scales[k] for
 * output k, or 1 for every output when scales is NULL. max_abs is the
 * largest |a - b|, nmse sums (a - b)^2 over sum cpu^2; why begins
 * "output K". */
void conf_compare_pair_runs(const conf_run_result* cpu,
                            const conf_run_result* a, const conf_run_result* b,
                            const double* scales, double tol,
                            conf_compare* out);

/* The output element of largest magnitude (the first on ties): false when
 * the run has no element. */
bool conf_largest_element(const conf_run_result* r, int* k, size_t* i);

/* Whether conf_compare_pair_runs notices a difference: b's value at the
 * largest |cpu| moved 4 bounds from a's must fail it (b is restored);
 * false when there is no element, so nothing was compared. */
bool conf_pair_comparison_can_fail(const conf_run_result* cpu,
                                   const conf_run_result* a, conf_run_result* b,
                                   const double* scales, double tol);

/* ---- Whole models (models.c) --------------------------------------------- */

typedef struct conf_totals {
  int passed, claimed, rejected, failed, skipped;
} conf_totals;

/* Compares CPU and delegate on one model file; prints one row named
 * `label` (NULL: the file name). */
void conf_check_model(const char* path, const char* label,
                      const conf_adapter* adapter, TfLiteDelegate* delegate,
                      conf_totals* totals);

/* Every *.tflite under `dir` (recursively), sorted; returns how many were
 * checked. */
int conf_check_model_dir(const char* dir, const conf_adapter* adapter,
                         TfLiteDelegate* delegate, conf_totals* totals);

/* Prints one table row (runner.c). */
void conf_print_row(const char* name, const char* op, const char* outcome,
                    double max_abs, double nmse, const char* detail);

/* ---- OpenCL against Vulkan (compare.c) ------------------------------------
 *
 * --compare-backends (with --delegate=gpu) runs every case, or every
 * --model, on the CPU and on the GPU delegate forced to OpenCL and forced
 * to Vulkan, in one process on the same inputs. A case passes when each
 * backend's run passes the runner's own judgement, both backends make the
 * same decision (a refusal with the same reason text: the op-support table
 * is shared), and the two GPU outputs agree element-wise within the case's
 * bound, |cl - vk| <= tol * max(1, |cpu|). That last check is not implied
 * by the others: each backend may be a bound away from the CPU in opposite
 * directions. A backend that cannot be created fails the whole run.
 *
 *   conf_pair pair = {0};   (conf_pair_parse_arg for each argument)
 *   conf_pair_create(&pair, adapter, &options, error, sizeof(error));
 *   ... conf_pair_run_case / conf_pair_check_model ...
 *   conf_pair_destroy(&pair);
 */

#define CONF_PAIR_BACKENDS 2 /* [0] OpenCL, [1] Vulkan */

typedef struct conf_pair {
  bool enabled; /* --compare-backends */
  /* --compare-fault=cl|vk:AMOUNT (the runner's own test): AMOUNT is added
   * to every output element of that backend (1 OpenCL, 2 Vulkan) after its
   * check against the CPU and before the backends are compared. */
  int fault_backend;
  double fault_offset;
  /* Set by conf_pair_create. */
  const conf_adapter* adapter;
  TfLiteDelegate* delegates[CONF_PAIR_BACKENDS];
  char devices[CONF_PAIR_BACKENDS][256];
} conf_pair;

/* 1 when `arg` is one of the options above (recorded in `pair`), 0 when it
 * is not, -1 (reported on stderr) when its value is malformed. */
int conf_pair_parse_arg(conf_pair* pair, const char* arg);

/* Creates the delegate forced to each backend: 0, or -1 with the reason in
 * `error` (a missing device, or an adapter other than "gpu"). */
int conf_pair_create(conf_pair* pair, const conf_adapter* adapter,
                     const conf_delegate_options* options, char* error,
                     size_t error_size);

/* Destroys both delegates; safe on a pair that was never created. */
void conf_pair_destroy(conf_pair* pair);

/* One delegated run judged the way the runner judges it. */
typedef struct conf_verdict {
  bool pass, claimed;
  char detail[512];
  conf_compare cmp; /* against the CPU */
} conf_verdict;

/* The runner's judgement of `got` (a run with `delegate`) against the CPU's
 * `ref` for case `c` whose operator is `node`; `ctx` is the runner's. */
typedef void (*conf_judge_fn)(const void* ctx, const conf_case* c,
                              TfLiteDelegate* delegate, int node,
                              const conf_run_result* ref, conf_run_result* got,
                              conf_verdict* verdict);

typedef struct conf_pair_verdict {
  bool pass, claimed; /* claimed: by both backends */
  char detail[512];
  /* OpenCL against the CPU, Vulkan against the CPU, OpenCL against
   * Vulkan. */
  double max_abs[3];
} conf_pair_verdict;

/* Runs a case's built `model` (inputs and operator from `b`) with each
 * backend into got[0] (OpenCL) and got[1] (Vulkan), which the caller frees
 * with conf_run_result_free, and judges the pair against the CPU's `ref`. */
void conf_pair_run_case(const conf_pair* pair, const conf_case* c,
                        TfLiteModel* model, const conf_builder* b,
                        const conf_run_result* ref,
                        conf_run_result got[CONF_PAIR_BACKENDS],
                        conf_judge_fn judge, const void* ctx,
                        conf_pair_verdict* verdict);

/* A whole model file on the CPU and both backends; prints its row. Models
 * whose outputs are not float32 are SKIPped. */
void conf_pair_check_model(const conf_pair* pair, const char* path,
                           conf_totals* totals);

/* The table's header (backends and devices, column names) and one row:
 * max_abs as in conf_pair_verdict; the time is since the previous row. */
void conf_pair_print_header(const conf_pair* pair);
void conf_pair_print_row(const char* name, const char* op, const char* outcome,
                         const double max_abs[3], const char* detail);

/* --compare-fault: moves every output element of the chosen backend
 * (after both were judged against the CPU, before they are compared). */
void conf_pair_apply_fault(const conf_pair* pair,
                           conf_run_result got[CONF_PAIR_BACKENDS]);

/* At the end of a comparing run that has no failure: fails it when nothing
 * was claimed by both backends (a comparison that compared nothing on the
 * GPU). */
void conf_pair_finish(const conf_pair* pair, conf_totals* totals);

/* ---- Whole graphs (graphs.c, graph_gen.c) --------------------------------
 *
 * Random graphs and kept graph specs on the CPU and on the delegate (or on
 * both backends of a --compare-backends pair); see graphs.c. */

#define CONF_MAX_GRAPH_SPECS 16

typedef struct conf_graph_options {
  int random_graphs;                       /* --random-graphs=N */
  uint32_t seed;                           /* --seed=S */
  int max_nodes;                           /* --graph-nodes=MAX */
  const char* save_dir;                    /* --save-failures=DIR */
  const char* specs[CONF_MAX_GRAPH_SPECS]; /* --graph=PATH */
  int num_specs;
  const char* spec_dirs[CONF_MAX_GRAPH_SPECS]; /* --graph-dir=DIR */
  int num_spec_dirs;
  double min_claimed; /* --min-claimed=F */
} conf_graph_options;

/* Whether any graph option was given. */
static inline bool conf_graphs_requested(const conf_graph_options* o) {
  return o->random_graphs > 0 || o->num_specs > 0 || o->num_spec_dirs > 0;
}

/* 1 when `arg` is a graph option (recorded in `o`), 0 when it is not, -1
 * (reported on stderr) when its value is malformed. */
int conf_graph_parse_arg(conf_graph_options* o, const char* arg);

/* Runs the specs, then the random graphs; prints a row per graph. */
void conf_run_graphs(const conf_graph_options* o, const conf_adapter* adapter,
                     TfLiteDelegate* delegate, const conf_pair* pair,
                     conf_totals* totals);

#endif /* LITEGPU_TESTS_CONFORMANCE_CONFORMANCE_H_ */
