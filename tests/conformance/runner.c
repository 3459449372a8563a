/* litegpu_conformance: every single-op case (cases_*.c) on one delegate,
 * against the CPU; or whole models (models.c).
 *
 *   litegpu_conformance --delegate=gpu|reference [--backend=cl|vk|auto]
 *       [--fp16] [--expect-fp16]
 *       [--expect-claimed=ADD,CONV_2D|all|gpu-manifest]
 *       [--filter=SUBSTR] [--list] [--model=PATH ...] [--model-dir=DIR ...]
 *       [--record-opencl-programs=DIR]
 *
 * A case passes when the delegate claimed its node and every output
 * element is within the bound (conformance.h), or when the delegate refused
 * the node with a reason. Anything else fails: an output off the bound, a
 * failed interpreter creation or Invoke, a refusal without a reason, a
 * refusal of an op named in --expect-claimed (gpu-manifest: every builtin
 * ops/ops.def gives the GPU), a claim while the delegate
 * does not report fp16 under --expect-fp16 (so a device or backend that
 * silently stays in float32 fails an fp16 run). Each row also gives the
 * case's wall time in ms. --fp16 rounds float inputs to half for both runs
 * (conf_set_half_inputs).
 *
 * Every op ops/ops.def gives the GPU must have a case: a missing one fails
 * the run (unless --filter narrows it) and names the file to add it to.
 *
 * With --model or --model-dir only those models run (--expect-claimed does
 * not apply to them); see models.c.
 *
 * --compare-backends (with --delegate=gpu) runs each case or --model on
 * both OpenCL and Vulkan and also compares the two; see compare.c.
 *
 * Exit status: 0 when nothing failed, 1 when something did (or no case
 * matched the filter), 2 on a usage or setup error (e.g. the delegate
 * cannot be created).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "ops/op_manifest.h"
#include "runtime/model/builtin_options.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tests/conformance/conformance.h"
#include "tests/support/vulkan_hold.h"

#define CONF_MAX_BUILTIN 256
#define CONF_MAX_MODELS 32

typedef struct conf_settings {
  const conf_adapter* adapter;
  conf_delegate_options options;
  bool expect_all;
  bool expect[CONF_MAX_BUILTIN];
  bool expect_fp16;       /* --expect-fp16: claims must run in fp16 */
  const char* record_dir; /* --record-opencl-programs=DIR */
  const char* filter;
  bool list;
  const char* models[CONF_MAX_MODELS];
  int num_models;
  const char* model_dirs[CONF_MAX_MODELS];
  int num_model_dirs;
  conf_pair pair;            /* --compare-backends (compare.c) */
  conf_graph_options graphs; /* graphs.c */
} conf_settings;

typedef struct op_summary {
  int cases, claimed, rejected, failed;
} op_summary;

static const conf_adapter* g_adapter;

int conf_delegate_max_version(int32_t builtin_code) {
  return g_adapter ? g_adapter->max_version(builtin_code) : 0;
}

static uint32_t hash_text(const char* text) {
  uint32_t h = 2166136261u;
  for (; *text; ++text) h = (h ^ (uint8_t)*text) * 16777619u;
  return h;
}

/* ---- Output -------------------------------------------------------------- */

/* When the previous row was printed: each row's time is its case's. */
static double g_row_start;

void conf_print_row(const char* name, const char* op, const char* outcome,
                    double max_abs, double nmse, const char* detail) {
  const double now = lg_now_seconds();
  printf("%-44s %-22s %-14s %10.3e %10.3e %7.0f  %s\n", name, op, outcome,
         max_abs, nmse, (now - g_row_start) * 1e3, detail ? detail : "");
  g_row_start = now;
}

static void print_log(const char* label, const conf_run_result* r) {
  if (r->log_length == 0) return;
  printf("    %s reported:\n", label);
  const char* line = r->log;
  for (int n = 0; *line && n < 12;) {
    const char* end = strchr(line, '\n');
    const int len = end ? (int)(end - line) : (int)strlen(line);
    if (len > 0) {
      printf("      %.*s\n", len, line);
      ++n;
    }
    line = end ? end + 1 : line + len;
  }
}

/* ---- One case ------------------------------------------------------------ */

/* Writes the case's model; out_shapes as in conf_builder. */
static TfLiteModel* build_case(const conf_case* c, const conf_shape* shapes,
                               int num_shapes, conf_builder* b, void** data) {
  size_t size = 0;
  *data = NULL;
  if (conf_builder_init(b, c->op, hash_text(c->name), shapes, num_shapes)) {
    return NULL;
  }
  if (c->build(b, c) != 0) {
    conf_builder_discard(b);
    return NULL;
  }
  if (conf_builder_finish(b, data, &size) != kTfLiteOk) return NULL;
  return TfLiteModelCreate(*data, size);
}

typedef struct case_verdict {
  bool pass, claimed;
  char detail[512];
  conf_compare cmp;
} case_verdict;

static void verdict_fail(case_verdict* v, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
static void verdict_fail(case_verdict* v, const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(v->detail, sizeof(v->detail), format, args);
  va_end(args);
  v->pass = false;
}

/* Whether the comparison notices a wrong element: the delegate's value at
 * the largest |ref| moved by 4 bounds must fail it (a check of the case
 * and of the comparison; `got` is restored). */
static bool comparison_can_fail(const conf_run_result* ref,
                                conf_run_result* got, double tol) {
  int best_k;
  size_t best_i;
  if (!conf_largest_element(ref, &best_k, &best_i)) return false;
  float* slot = &got->outputs[best_k].values[best_i];
  const float saved = *slot;
  const double r = ref->outputs[best_k].values[best_i];
  *slot = (float)(r + 4 * tol * fmax(1.0, fabs(r)));
  conf_compare cmp;
  conf_compare_runs(ref, got, tol, &cmp);
  *slot = saved;
  return !cmp.ok;
}

/* Whether every reference output element is 0 (a case that tests little). */
static bool all_zero(const conf_run_result* ref) {
  for (int k = 0; k < ref->num_outputs; ++k) {
    for (size_t i = 0; i < ref->outputs[k].count; ++i) {
      if (ref->outputs[k].values[i] != 0) return false;
    }
  }
  return true;
}

/* Judges the delegated run of a built model against the CPU's. */
static void judge(const conf_settings* s, const conf_case* c, TfLiteDelegate* d,
                  int node, const conf_run_result* ref, conf_run_result* got,
                  case_verdict* v) {
  const char* op = lg_builtin_op_name(c->op);
  if (got->status != kTfLiteOk) {
    verdict_fail(v, "delegated run failed at %s", got->failed_step);
    return;
  }
  const char* reason = s->adapter->node_reason(d, node);
  if (reason == NULL) {
    verdict_fail(v, "the delegate has no decision for node %d", node);
    return;
  }
  v->claimed = reason[0] == '\0';
  if (v->claimed && !s->adapter->claimed(d)) {
    verdict_fail(v, "node %d refused without a reason", node);
    return;
  }
  const bool fp16 = s->adapter->fp16(d);
  if (v->claimed && s->expect_fp16 && !fp16) {
    verdict_fail(v,
                 "claimed, but the delegate does not run in fp16 "
                 "(--expect-fp16)");
    return;
  }
  const double tol = fp16 ? fmax(CONF_TOL_FP16, c->tol)
                          : (c->tol > 0 ? c->tol : CONF_TOL_FP32);
  conf_compare_runs(ref, got, tol, &v->cmp);
  if (!v->cmp.ok) {
    verdict_fail(v, "%s %s",
                 v->claimed ? "claimed," : "refused, CPU path:", v->cmp.why);
    return;
  }
  if (all_zero(ref)) {
    verdict_fail(v, "the CPU output is all zeros: the case tests nothing");
    return;
  }
  if (!comparison_can_fail(ref, got, tol)) {
    verdict_fail(v, "a wrong element would pass: the comparison is broken");
    return;
  }
  if (c->expect_reason != NULL) {
    if (v->claimed || strstr(reason, c->expect_reason) == NULL) {
      verdict_fail(v, "expected a refusal naming \"%s\", got %s%s",
                   c->expect_reason, v->claimed ? "a claim" : "",
                   v->claimed ? "" : reason);
      return;
    }
  } else if (!v->claimed && !c->may_refuse &&
             (s->expect_all || s->expect[c->op])) {
    verdict_fail(v, "expected claimed; refused: %s: %s", op, reason);
    return;
  }
  v->pass = true;
  if (v->claimed) {
    snprintf(v->detail, sizeof(v->detail), "%s", fp16 ? "(fp16 bound)" : "");
  } else {
    snprintf(v->detail, sizeof(v->detail), "%s: %s", op, reason);
  }
}

/* judge() as compare.c calls it for each backend (ctx: the settings). */
static void judge_hook(const void* ctx, const conf_case* c, TfLiteDelegate* d,
                       int node, const conf_run_result* ref,
                       conf_run_result* got, conf_verdict* out) {
  case_verdict v;
  memset(&v, 0, sizeof(v));
  judge(ctx, c, d, node, ref, got, &v);
  out->pass = v.pass;
  out->claimed = v.claimed;
  out->cmp = v.cmp;
  snprintf(out->detail, sizeof(out->detail), "%s", v.detail);
}

static void run_case(const conf_settings* s, const conf_case* c,
                     TfLiteDelegate* d, op_summary* summary) {
  conf_builder b;
  void* data1 = NULL;
  void* data2 = NULL;
  conf_run_result* runs = calloc(4, sizeof(conf_run_result));
  case_verdict v;
  memset(&v, 0, sizeof(v));
  conf_pair_verdict pv; /* --compare-backends: runs[2] OpenCL, runs[3] Vulkan */
  memset(&pv, 0, sizeof(pv));
  if (runs == NULL) {
    fprintf(stderr, "litegpu_conformance: out of memory\n");
    exit(2);
  }
  /* Pass 1 learns the output shapes from the CPU kernels' Prepare. */
  TfLiteModel* m1 = build_case(c, NULL, 0, &b, &data1);
  if (m1 != NULL) {
    conf_run_model(m1, b.inputs, b.num_inputs, NULL, 0, &runs[0]);
  }
  conf_shape shapes[CONF_MAX_IO];
  for (int i = 0; i < runs[0].num_outputs; ++i) {
    shapes[i] = runs[0].outputs[i].shape;
  }
  TfLiteModel* m2 = NULL;
  if (m1 == NULL) {
    verdict_fail(&v, "the case's model could not be written");
  } else if (runs[0].status != kTfLiteOk) {
    verdict_fail(&v, "the CPU refused the model at %s", runs[0].failed_step);
  } else if ((m2 = build_case(c, shapes, runs[0].num_outputs, &b, &data2)) ==
             NULL) {
    verdict_fail(&v, "the case's model could not be written (pass 2)");
  } else {
    conf_run_model(m2, b.inputs, b.num_inputs, NULL, conf_invokes(&b),
                   &runs[1]);
    if (runs[1].status != kTfLiteOk) {
      verdict_fail(&v, "the CPU run failed at %s", runs[1].failed_step);
    } else if (s->pair.enabled) {
      conf_pair_run_case(&s->pair, c, m2, &b, &runs[1], &runs[2], judge_hook, s,
                         &pv);
      v.pass = pv.pass;
      v.claimed = pv.claimed;
      snprintf(v.detail, sizeof(v.detail), "%s", pv.detail);
    } else {
      conf_run_model(m2, b.inputs, b.num_inputs, d, conf_invokes(&b), &runs[2]);
      judge(s, c, d, b.case_node, &runs[1], &runs[2], &v);
    }
  }
  const char* op = lg_builtin_op_name(c->op);
  const char* outcome =
      v.pass ? (v.claimed ? "PASS claimed" : "PASS rejected") : "FAIL";
  if (s->pair.enabled) {
    conf_pair_print_row(c->name, op, outcome, pv.max_abs, v.detail);
  } else {
    conf_print_row(c->name, op, outcome, v.cmp.max_abs, v.cmp.nmse, v.detail);
  }
  if (!v.pass) {
    print_log("CPU (shapes)", &runs[0]);
    print_log("CPU", &runs[1]);
    print_log(s->pair.enabled ? "OpenCL" : "delegate", &runs[2]);
    print_log("Vulkan", &runs[3]);
  }
  op_summary* o = &summary[c->op];
  o->cases++;
  if (!v.pass) {
    o->failed++;
  } else if (v.claimed) {
    o->claimed++;
  } else {
    o->rejected++;
  }
  for (int i = 0; i < 4; ++i) conf_run_result_free(&runs[i]);
  free(runs);
  TfLiteModelDelete(m1);
  TfLiteModelDelete(m2);
  free(data1);
  free(data2);
}

/* ---- Command line -------------------------------------------------------- */

static int32_t builtin_by_name(const char* name, size_t length) {
  for (int32_t code = 0; code < CONF_MAX_BUILTIN; ++code) {
    const char* n = lg_builtin_op_name(code);
    if (strlen(n) == length && strncmp(n, name, length) == 0) return code;
  }
  return -1;
}

/* The ops the op manifest says the GPU delegate runs (ops/ops.def). */
static void expect_manifest_gpu_ops(conf_settings* s) {
  int count = 0;
  const lg_op_info* ops = lg_op_manifest(&count);
  for (int i = 0; i < count; ++i) {
    const int32_t code = ops[i].builtin_code;
    if (ops[i].gpu_max_version > 0 && code >= 0 && code < CONF_MAX_BUILTIN &&
        code != kTfLiteBuiltinCustom) {
      s->expect[code] = true;
    }
  }
}

static int parse_expect(conf_settings* s, const char* list) {
  if (strcmp(list, "all") == 0) {
    s->expect_all = true;
    return 0;
  }
  if (strcmp(list, "gpu-manifest") == 0) {
    expect_manifest_gpu_ops(s);
    return 0;
  }
  while (*list) {
    const char* end = strchr(list, ',');
    const size_t length = end ? (size_t)(end - list) : strlen(list);
    const int32_t code = builtin_by_name(list, length);
    if (code < 0) {
      fprintf(stderr, "litegpu_conformance: unknown op '%.*s'\n", (int)length,
              list);
      return -1;
    }
    s->expect[code] = true;
    list += length + (end ? 1 : 0);
  }
  return 0;
}

static int usage(void) {
  fprintf(stderr,
          "usage: litegpu_conformance --delegate=gpu|reference "
          "[--backend=cl|vk|auto] [--fp16] [--expect-fp16]\n"
          "         [--expect-claimed=OP,...|all|gpu-manifest] "
          "[--filter=SUBSTR] [--list]\n"
          "         [--model=PATH ...] [--model-dir=DIR ...]\n"
          "         [--compare-backends] (gpu: OpenCL against Vulkan)\n"
          "         [--random-graphs=N [--seed=S] [--graph-nodes=MAX]\n"
          "          [--save-failures=DIR]] [--graph=PATH.spec ...]\n"
          "         [--graph-dir=DIR ...] [--min-claimed=F] (graphs.c)\n"
          "         [--record-opencl-programs=DIR] (every OpenCL program "
          "built, for tests/check_opencl_programs.sh)\n"
          "         [--fault=prepare|init|prepare-kernel|invoke]"
          " (reference delegate: injected failures)\n");
  return 2;
}

static int parse_args(int argc, char** argv, conf_settings* s) {
  const char* delegate = "reference";
  int pair_arg = 0;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (strncmp(a, "--delegate=", 11) == 0) {
      delegate = a + 11;
    } else if (strcmp(a, "--backend=cl") == 0) {
      s->options.backend = 1;
    } else if (strcmp(a, "--backend=vk") == 0) {
      s->options.backend = 2;
    } else if (strcmp(a, "--backend=auto") == 0) {
      s->options.backend = 0;
    } else if (strcmp(a, "--fp16") == 0) {
      s->options.fp16 = true;
      conf_set_half_inputs(true);
    } else if (strcmp(a, "--expect-fp16") == 0) {
      s->expect_fp16 = true;
    } else if (strncmp(a, "--record-opencl-programs=", 25) == 0) {
      s->record_dir = a + 25;
    } else if (strncmp(a, "--expect-claimed=", 17) == 0) {
      if (parse_expect(s, a + 17) != 0) return -1;
    } else if (strncmp(a, "--filter=", 9) == 0) {
      s->filter = a + 9;
    } else if (strncmp(a, "--fault=", 8) == 0) {
      static const char* const kFaults[] = {"prepare", "init", "prepare-kernel",
                                            "invoke"};
      for (int f = 0; f < 4; ++f) {
        if (strcmp(a + 8, kFaults[f]) == 0) s->options.fault = f + 1;
      }
      if (s->options.fault == 0) {
        fprintf(stderr, "litegpu_conformance: unknown fault '%s'\n", a + 8);
        return -1;
      }
    } else if (strcmp(a, "--list") == 0) {
      s->list = true;
    } else if ((pair_arg = conf_pair_parse_arg(&s->pair, a)) != 0) {
      if (pair_arg < 0) return -1;
    } else if ((pair_arg = conf_graph_parse_arg(&s->graphs, a)) != 0) {
      if (pair_arg < 0) return -1;
    } else if (strncmp(a, "--model=", 8) == 0 &&
               s->num_models < CONF_MAX_MODELS) {
      s->models[s->num_models++] = a + 8;
    } else if (strncmp(a, "--model-dir=", 12) == 0 &&
               s->num_model_dirs < CONF_MAX_MODELS) {
      s->model_dirs[s->num_model_dirs++] = a + 12;
    } else {
      fprintf(stderr, "litegpu_conformance: unknown argument '%s'\n", a);
      return -1;
    }
  }
  s->adapter = conf_adapter_find(delegate);
  if (s->adapter == NULL) {
    fprintf(stderr, "litegpu_conformance: unknown delegate '%s'\n", delegate);
    return -1;
  }
  if (s->pair.enabled && s->num_model_dirs > 0) {
    fprintf(stderr,
            "litegpu_conformance: --compare-backends takes --model, not "
            "--model-dir\n");
    return -1;
  }
  if (s->pair.fault_backend != 0 && !s->pair.enabled) {
    fprintf(stderr,
            "litegpu_conformance: --compare-fault needs --compare-backends\n");
    return -1;
  }
  return 0;
}

static void print_summary(const op_summary* summary) {
  printf("\nper op: op, cases, claimed, rejected, failed\n");
  for (int32_t code = 0; code < CONF_MAX_BUILTIN; ++code) {
    const op_summary* o = &summary[code];
    if (o->cases == 0) continue;
    printf("  %-24s %4d %4d %4d %4d\n", lg_builtin_op_name(code), o->cases,
           o->claimed, o->rejected, o->failed);
  }
}

static void run_cases(const conf_settings* s, const conf_case_list* cases,
                      TfLiteDelegate* d, conf_totals* totals) {
  op_summary* summary = calloc(CONF_MAX_BUILTIN, sizeof(op_summary));
  if (summary == NULL) exit(2);
  for (int i = 0; i < cases->count; ++i) {
    const conf_case* c = &cases->items[i];
    if (s->filter && strstr(c->name, s->filter) == NULL) continue;
    run_case(s, c, d, summary);
  }
  int ran = 0;
  for (int32_t code = 0; code < CONF_MAX_BUILTIN; ++code) {
    totals->claimed += summary[code].claimed;
    totals->rejected += summary[code].rejected;
    totals->passed += summary[code].claimed + summary[code].rejected;
    totals->failed += summary[code].failed;
    ran += summary[code].cases;
  }
  if (ran == 0) {
    printf("no case matches the filter\n");
    totals->failed++;
  }
  print_summary(summary);
  free(summary);
}

/* Whether some case runs the manifest row `op`. */
static bool has_case(const conf_case_list* cases, const lg_op_info* op) {
  for (int i = 0; i < cases->count; ++i) {
    const conf_case* c = &cases->items[i];
    if (lg_op_same(op->builtin_code, op->custom_name, c->op, c->custom_name)) {
      return true;
    }
  }
  return false;
}

/* Every op the manifest gives the GPU has cases: adding a GPU op without
 * conformance cases fails the suite. Returns the number missing. */
static int check_manifest_coverage(const conf_case_list* cases) {
  int count = 0, missing = 0;
  const lg_op_info* ops = lg_op_manifest(&count);
  for (int i = 0; i < count; ++i) {
    if (ops[i].gpu_max_version <= 0 || has_case(cases, &ops[i])) continue;
    printf(
        "no conformance case for %s (ops/ops.def gives it to the GPU): "
        "add one to tests/conformance/cases_%s.c\n",
        ops[i].custom_name ? ops[i].custom_name : ops[i].name, ops[i].family);
    ++missing;
  }
  return missing;
}

int main(int argc, char** argv) {
  lg_test_hold_vulkan_libraries(); /* see tests/support/vulkan_hold.h */
  conf_settings s;
  memset(&s, 0, sizeof(s));
  if (parse_args(argc, argv, &s) != 0) return usage();
  conf_case_list cases = {NULL, 0, 0};
  conf_add_binary_cases(&cases);
  conf_add_unary_cases(&cases);
  conf_add_conv_cases(&cases);
  conf_add_reduce_cases(&cases);
  conf_add_shape_cases(&cases);
  conf_add_mediapipe_cases(&cases);
  if (s.list) {
    for (int i = 0; i < cases.count; ++i) {
      if (s.filter && strstr(cases.items[i].name, s.filter) == NULL) continue;
      printf("%s %s\n", cases.items[i].name,
             lg_builtin_op_name(cases.items[i].op));
    }
    free(cases.items);
    return 0;
  }
  char error[1024] = "";
  TfLiteDelegate* d = NULL;
  const bool ready =
      s.pair.enabled
          ? conf_pair_create(&s.pair, s.adapter, &s.options, error,
                             sizeof(error)) == 0
          : (d = s.adapter->create(&s.options, error, sizeof(error))) != NULL;
  if (!ready) {
    fprintf(stderr, "litegpu_conformance: %s delegate: %s\n", s.adapter->name,
            error);
    free(cases.items);
    return 2;
  }
  g_adapter = s.adapter;
  if (s.record_dir != NULL) conf_record_opencl_programs(s.record_dir);
  const double start = lg_now_seconds();
  printf("litegpu_conformance: delegate %s%s\n", s.adapter->name,
         s.options.fp16 ? " (fp16 allowed)" : "");
  if (s.pair.enabled) {
    conf_pair_print_header(&s.pair);
  } else {
    printf("%-44s %-22s %-14s %10s %10s %7s  %s\n", "case", "op", "outcome",
           "max_abs", "nmse", "ms", "detail");
  }
  g_row_start = lg_now_seconds();
  conf_totals totals = {0, 0, 0, 0, 0};
  if (conf_graphs_requested(&s.graphs)) {
    conf_run_graphs(&s.graphs, s.adapter, d, &s.pair, &totals);
  } else if (s.num_models == 0 && s.num_model_dirs == 0) {
    if (s.filter == NULL) totals.failed += check_manifest_coverage(&cases);
    run_cases(&s, &cases, d, &totals);
  }
  for (int i = 0; i < s.num_models; ++i) {
    if (s.pair.enabled) {
      conf_pair_check_model(&s.pair, s.models[i], &totals);
    } else {
      conf_check_model(s.models[i], NULL, s.adapter, d, &totals);
    }
  }
  conf_pair_finish(&s.pair, &totals);
  for (int i = 0; i < s.num_model_dirs; ++i) {
    conf_check_model_dir(s.model_dirs[i], s.adapter, d, &totals);
  }
  if (s.expect_fp16 && totals.claimed > 0 && !s.adapter->fp16(d)) {
    printf("--expect-fp16: the delegate claimed but does not run in fp16\n");
    totals.failed++; /* the models' claims (cases fail in judge) */
  }
  if (s.record_dir != NULL) {
    const int recorded = conf_recorded_opencl_programs();
    printf("--record-opencl-programs: %d programs written to %s\n", recorded,
           s.record_dir);
    if (recorded <= 0) totals.failed++; /* nothing to check is a failure */
    conf_record_opencl_programs_end();
  }
  printf(
      "\ntotal: %d passed (%d claimed, %d rejected), %d failed, "
      "%d skipped; %.1f s\n",
      totals.passed, totals.claimed, totals.rejected, totals.failed,
      totals.skipped, lg_now_seconds() - start);
  s.adapter->destroy(d);
  conf_pair_destroy(&s.pair);
  free(cases.items);
  return totals.failed == 0 ? 0 : 1;
}
