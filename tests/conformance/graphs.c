/* Graph mode of litegpu_conformance: whole graphs on the CPU and on the
 * delegate under test (or on both GPU backends with --compare-backends).
 *
 *   --random-graphs=N [--seed=S] [--graph-nodes=MAX] [--save-failures=DIR]
 *       N graphs from graph_gen.c, graph i drawn from (S, i)
 *   --graph=PATH.spec, --graph-dir=DIR
 *       graphs kept as model specs (the shrunk failures of earlier runs and
 *       hand-written cases), with their "# range" and "# scale" directives
 *   --min-claimed=F
 *       fails the run when the delegate claimed under a share F of all
 *       nodes (a delegate that stops claiming tests nothing)
 *
 * A graph passes when the delegated run succeeds, every refused node has
 * a reason and every output element is within
 * tol * max(scale, |cpu|), where scale is the output's directive (the
 * largest magnitude on its path): 1e-4 in float32, 1e-2 in float16. With
 * --compare-backends both backends must also decide every node alike and
 * agree with each other within the same bound. As everywhere in the
 * suite, the comparison must be able to fail: one element moved by 4
 * bounds has to be caught.
 *
 * A random graph that fails is shrunk (graph_gen.h: outputs dropped, nodes
 * cut into graph inputs or bypassed, for as long as the graph still
 * fails), printed as a spec, and with --save-failures written to
 * DIR/graph_S_I.spec: a new conformance case for tests/conformance/graphs/.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "litegpu/gpu_delegate.h"
#include "runtime/writer/model_spec.h"
#include "tests/conformance/conformance.h"
#include "tests/conformance/graph_gen.h"

#define GRAPH_TOL_FP32 1e-4
#define GRAPH_TOL_FP16 1e-2
#define SHRINK_BUDGET 300 /* graph runs per shrink */
#define MAX_SPECS 64

/* ---- Building a graph's model --------------------------------------------
 */

typedef struct graph_model {
  void* data;
  TfLiteModel* model;
  gg_directives io;
  char error[512];
} graph_model;

static void capture(void* user_data, const char* format, va_list args) {
  graph_model* m = user_data;
  if (m->error[0] == '\0') vsnprintf(m->error, sizeof(m->error), format, args);
}

static bool graph_model_build(graph_model* m, const char* spec,
                              const char* name) {
  memset(m, 0, sizeof(*m));
  if (!gg_parse_directives(spec, &m->io, m->error, sizeof(m->error))) {
    return false;
  }
  lg_reporter reporter = {capture, m};
  lg_model_writer* w = lg_model_spec_read_text(spec, name, NULL, &reporter);
  size_t size = 0;
  if (w == NULL || lg_model_writer_finish(w, &m->data, &size) != kTfLiteOk) {
    lg_model_writer_destroy(w);
    if (m->error[0] == '\0') snprintf(m->error, sizeof(m->error), "no model");
    return false;
  }
  lg_model_writer_destroy(w);
  m->model = TfLiteModelCreate(m->data, size);
  if (m->model == NULL) {
    snprintf(m->error, sizeof(m->error), "the written model does not load");
    return false;
  }
  return true;
}

static void graph_model_free(graph_model* m) {
  TfLiteModelDelete(m->model);
  free(m->data);
  memset(m, 0, sizeof(*m));
}

/* ---- Judging --------------------------------------------------------------
 */

typedef struct graph_verdict {
  bool pass;
  int claimed, nodes; /* of the (first) delegate */
  double max_abs[3];  /* delegate (OpenCL) / Vulkan / between them */
  char detail[512];
} graph_verdict;

typedef struct graph_runner {
  const conf_adapter* adapter;
  TfLiteDelegate* delegate; /* single mode */
  const conf_pair* pair;    /* --compare-backends, else NULL */
  int claimed_nodes, total_nodes;
} graph_runner;

/* Every node's decision; false when a refusal has no reason. */
static bool count_decisions(const conf_adapter* adapter, TfLiteDelegate* d,
                            int* claimed, int* nodes, char* why, size_t size) {
  *claimed = *nodes = 0;
  for (int node = 0; node < adapter->num_nodes(d); ++node) {
    const char* reason = adapter->node_reason(d, node);
    if (reason == NULL) continue; /* fused away before the delegate ran */
    ++*nodes;
    if (reason[0] == '\0') ++*claimed;
  }
  if (*claimed > 0 && !adapter->claimed(d)) {
    snprintf(why, size, "%d nodes marked claimed but no partition", *claimed);
    return false;
  }
  return true;
}

static double delegate_tol(const conf_adapter* adapter, TfLiteDelegate* d) {
  return adapter->fp16(d) ? GRAPH_TOL_FP16 : GRAPH_TOL_FP32;
}

/* One delegate's run against the CPU's. */
static bool delegate_ok(const graph_runner* r, TfLiteDelegate* d,
                        const char* label, const graph_model* m,
                        const conf_run_result* cpu, conf_run_result* got,
                        graph_verdict* v, int slot) {
  conf_run_model(m->model, m->io.inputs, m->io.num_inputs, d, 1, got);
  if (got->status != kTfLiteOk) {
    snprintf(v->detail, sizeof(v->detail), "%s: run failed at %s: %.300s",
             label, got->failed_step, got->log);
    return false;
  }
  char why[400] = "";
  int claimed, nodes;
  if (!count_decisions(r->adapter, d, &claimed, &nodes, why, sizeof(why))) {
    snprintf(v->detail, sizeof(v->detail), "%s: %s", label, why);
    return false;
  }
  if (slot == 0) {
    v->claimed = claimed;
    v->nodes = nodes;
  }
  const double tol = delegate_tol(r->adapter, d);
  conf_compare cmp;
  conf_compare_pair_runs(cpu, got, cpu, m->io.scales, tol, &cmp);
  v->max_abs[slot] = cmp.max_abs;
  if (!cmp.ok) {
    snprintf(v->detail, sizeof(v->detail), "%s against the CPU: %s", label,
             cmp.why);
    return false;
  }
  if (!conf_pair_comparison_can_fail(cpu, cpu, got, m->io.scales, tol)) {
    snprintf(v->detail, sizeof(v->detail),
             "%s: a wrong element would pass: the comparison is broken", label);
    return false;
  }
  return true;
}

/* The backends' decisions must match node by node. */
static bool same_decisions(const graph_runner* r, char* why, size_t size) {
  const int na = r->adapter->num_nodes(r->pair->delegates[0]);
  const int nb = r->adapter->num_nodes(r->pair->delegates[1]);
  for (int node = 0; node < (na > nb ? na : nb); ++node) {
    const char* a = r->adapter->node_reason(r->pair->delegates[0], node);
    const char* b = r->adapter->node_reason(r->pair->delegates[1], node);
    if (a == NULL && b == NULL) continue;
    if (a == NULL || b == NULL || strcmp(a, b) != 0) {
      snprintf(why, size,
               "node %d decided differently: OpenCL \"%.150s\", Vulkan "
               "\"%.150s\"",
               node, a ? (a[0] ? a : "(claimed)") : "(none)",
               b ? (b[0] ? b : "(claimed)") : "(none)");
      return false;
    }
  }
  return true;
}

/* Both backends against the CPU and each other (each delegate keeps its
 * decisions until its next application, so both can be read here). */
static void judge_pair(graph_runner* r, const graph_model* m,
                       const conf_run_result* cpu, conf_run_result got[2],
                       graph_verdict* v) {
  static const char* const kLabels[2] = {"OpenCL", "Vulkan"};
  for (int k = 0; k < 2; ++k) {
    if (!delegate_ok(r, r->pair->delegates[k], kLabels[k], m, cpu, &got[k], v,
                     k)) {
      return;
    }
  }
  if (!same_decisions(r, v->detail, sizeof(v->detail))) return;
  double tol = GRAPH_TOL_FP32;
  for (int k = 0; k < 2; ++k) {
    tol = fmax(tol, delegate_tol(r->adapter, r->pair->delegates[k]));
  }
  conf_pair_apply_fault(r->pair, got);
  conf_compare cmp;
  conf_compare_pair_runs(cpu, &got[0], &got[1], m->io.scales, tol, &cmp);
  v->max_abs[2] = cmp.max_abs;
  if (!cmp.ok) {
    snprintf(v->detail, sizeof(v->detail), "OpenCL and Vulkan differ: %s",
             cmp.why);
    return;
  }
  if (!conf_pair_comparison_can_fail(cpu, &got[0], &got[1], m->io.scales,
                                     tol)) {
    snprintf(v->detail, sizeof(v->detail),
             "a difference between the backends would pass");
    return;
  }
  v->pass = true;
}

static void judge_graph(graph_runner* r, const graph_model* m,
                        graph_verdict* v) {
  memset(v, 0, sizeof(*v));
  conf_run_result* runs = calloc(3, sizeof(conf_run_result));
  if (runs == NULL) exit(2);
  conf_run_model(m->model, m->io.inputs, m->io.num_inputs, NULL, 1, &runs[0]);
  if (runs[0].status != kTfLiteOk) {
    snprintf(v->detail, sizeof(v->detail), "the CPU run failed at %s: %.300s",
             runs[0].failed_step, runs[0].log);
  } else if (r->pair != NULL) {
    judge_pair(r, m, &runs[0], &runs[1], v);
  } else {
    v->pass =
        delegate_ok(r, r->delegate, "delegate", m, &runs[0], &runs[1], v, 0);
  }
  for (int k = 0; k < 3; ++k) conf_run_result_free(&runs[k]);
  free(runs);
}

/* Builds and judges a spec; false when it cannot even be built. */
static bool judge_spec(graph_runner* r, const char* spec, const char* name,
                       graph_verdict* v) {
  graph_model m;
  memset(v, 0, sizeof(*v));
  if (!graph_model_build(&m, spec, name)) {
    snprintf(v->detail, sizeof(v->detail), "cannot build the graph: %.400s",
             m.error);
    graph_model_free(&m);
    return false;
  }
  judge_graph(r, &m, v);
  graph_model_free(&m);
  return true;
}

static void print_row(const graph_runner* r, const char* name,
                      const graph_verdict* v) {
  char detail[700];
  snprintf(detail, sizeof(detail), "%d of %d nodes claimed%s%.560s", v->claimed,
           v->nodes, v->pass ? "" : "; ", v->pass ? "" : v->detail);
  const char* outcome = !v->pass         ? "FAIL"
                        : v->claimed > 0 ? "PASS claimed"
                                         : "PASS rejected";
  if (r->pair != NULL) {
    conf_pair_print_row(name, "(graph)", outcome, v->max_abs, detail);
  } else {
    conf_print_row(name, "(graph)", outcome, v->max_abs[0], 0, detail);
  }
}

static void count_verdict(graph_runner* r, const graph_verdict* v,
                          conf_totals* totals) {
  r->claimed_nodes += v->claimed;
  r->total_nodes += v->nodes;
  if (!v->pass) {
    totals->failed++;
    return;
  }
  totals->passed++;
  if (v->claimed > 0) {
    totals->claimed++;
  } else {
    totals->rejected++;
  }
}

/* ---- Shrinking ------------------------------------------------------------
 */

typedef struct shrinker {
  graph_runner* runner;
  int runs;
} shrinker;

/* Whether `candidate` still fails (frees it when it does not). */
static bool still_fails(shrinker* s, gg_graph* candidate) {
  if (s->runs >= SHRINK_BUDGET) {
    gg_free(candidate);
    return false;
  }
  s->runs++;
  char* spec = gg_to_spec(candidate, "shrinking");
  graph_verdict v;
  const bool fails =
      spec != NULL && judge_spec(s->runner, spec, "shrinking", &v) && !v.pass;
  free(spec);
  if (!fails) gg_free(candidate);
  return fails;
}

typedef bool (*shrink_step)(gg_graph* dst, const gg_graph* src, int i);

/* One pass of a step over every index; true when the graph got smaller. */
static bool try_step(shrinker* s, gg_graph* g, shrink_step step, int count) {
  gg_graph* candidate = malloc(sizeof(*candidate));
  if (candidate == NULL) exit(2);
  bool shrunk = false;
  for (int i = count - 1; i >= 0; --i) {
    if (!step(candidate, g, i)) continue;
    if (still_fails(s, candidate)) {
      gg_free(g);
      memcpy(g, candidate, sizeof(*g));
      shrunk = true;
    }
  }
  free(candidate);
  return shrunk;
}

static void shrink(graph_runner* r, gg_graph* g) {
  shrinker s = {r, 0};
  bool shrunk = true;
  while (shrunk && s.runs < SHRINK_BUDGET) {
    shrunk = try_step(&s, g, gg_shrink_drop_output, g->num_tensors);
    shrunk |= try_step(&s, g, gg_shrink_cut, g->num_nodes);
    shrunk |= try_step(&s, g, gg_shrink_bypass, g->num_nodes);
  }
}

static void save_spec(const char* dir, const char* name, const char* spec) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s.spec", dir, name);
  FILE* f = fopen(path, "w");
  if (f == NULL || fputs(spec, f) < 0 || fclose(f) != 0) {
    printf("    could not write %s\n", path);
    return;
  }
  printf("    written to %s\n", path);
}

/* Shrinks a failing graph and prints (and saves) the result. */
static void report_failure(graph_runner* r, gg_graph* g, const char* name,
                           uint32_t seed, int index, const char* save_dir) {
  const int before = gg_live_nodes(g);
  shrink(r, g);
  char title[200];
  snprintf(title, sizeof(title),
           "litegpu_conformance --random-graphs: seed %u graph %d, shrunk "
           "from %d to %d nodes",
           seed, index, before, gg_live_nodes(g));
  char* spec = gg_to_spec(g, title);
  if (spec == NULL) return;
  graph_verdict v;
  judge_spec(r, spec, name, &v);
  printf("    shrunk to %d nodes: %s\n", gg_live_nodes(g), v.detail);
  printf("    ---- %s.spec ----\n%s    ----\n", name, spec);
  if (save_dir != NULL) save_spec(save_dir, name, spec);
  free(spec);
}

/* ---- Runs -----------------------------------------------------------------
 */

static void run_random(graph_runner* r, const conf_graph_options* o,
                       conf_totals* totals) {
  gg_graph* g = malloc(sizeof(*g));
  if (g == NULL) exit(2);
  for (int i = 0; i < o->random_graphs; ++i) {
    char name[64];
    snprintf(name, sizeof(name), "graph_%u_%d", o->seed, i);
    gg_generate(g, o->seed * 1000003u + (uint32_t)i,
                o->max_nodes > 0 ? o->max_nodes : 12);
    char title[160];
    snprintf(title, sizeof(title),
             "litegpu_conformance --random-graphs: seed %u graph %d", o->seed,
             i);
    char* spec = gg_to_spec(g, title);
    graph_verdict v;
    if (spec == NULL) {
      snprintf(v.detail, sizeof(v.detail), "out of memory");
      v.pass = false;
    } else {
      judge_spec(r, spec, name, &v);
    }
    free(spec);
    print_row(r, name, &v);
    count_verdict(r, &v, totals);
    if (!v.pass) report_failure(r, g, name, o->seed, i, o->save_dir);
    gg_free(g);
  }
  free(g);
}

static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  char* data = NULL;
  size_t length = 0, capacity = 0;
  for (;;) {
    if (length + 4096 + 1 > capacity) {
      capacity = 2 * capacity + 4096 + 1;
      char* grown = realloc(data, capacity);
      if (grown == NULL) break;
      data = grown;
    }
    const size_t n = fread(data + length, 1, 4096, f);
    length += n;
    if (n < 4096) break;
  }
  fclose(f);
  if (data != NULL) data[length] = '\0';
  return data;
}

static void run_spec_file(graph_runner* r, const char* path,
                          conf_totals* totals) {
  const char* slash = strrchr(path, '/');
  const char* name = slash ? slash + 1 : path;
  graph_verdict v;
  memset(&v, 0, sizeof(v));
  char* spec = read_file(path);
  if (spec == NULL) {
    snprintf(v.detail, sizeof(v.detail), "cannot read %s", path);
  } else {
    judge_spec(r, spec, name, &v);
  }
  free(spec);
  print_row(r, name, &v);
  count_verdict(r, &v, totals);
}

static int compare_names(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

static bool has_spec_suffix(const char* name) {
  const size_t n = strlen(name);
  return n > 5 && strcmp(name + n - 5, ".spec") == 0;
}

/* Every *.spec in `dir`, in name order; none is a failure. */
static void run_spec_dir(graph_runner* r, const char* dir,
                         conf_totals* totals) {
  char* paths[MAX_SPECS];
  int count = 0;
  DIR* d = opendir(dir);
  struct dirent* e;
  while (d != NULL && (e = readdir(d)) != NULL && count < MAX_SPECS) {
    if (!has_spec_suffix(e->d_name)) continue;
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    if ((paths[count] = strdup(path)) != NULL) ++count;
  }
  if (d != NULL) closedir(d);
  if (count == 0) {
    conf_print_row(dir, "(graphs)", "FAIL", 0, 0, "no .spec file found");
    totals->failed++;
  }
  qsort(paths, (size_t)count, sizeof(char*), compare_names);
  for (int i = 0; i < count; ++i) {
    run_spec_file(r, paths[i], totals);
    free(paths[i]);
  }
}

static bool parse_number(const char* text, double lo, double hi, double* out) {
  char* end = NULL;
  const double v = strtod(text, &end);
  if (end == text || *end != '\0' || !(v >= lo && v <= hi)) return false;
  *out = v;
  return true;
}

int conf_graph_parse_arg(conf_graph_options* o, const char* arg) {
  static const struct {
    const char* prefix;
    double lo, hi;
  } kNumbers[] = {{"--random-graphs=", 1, 1e7},
                  {"--seed=", 0, 4294967295.0},
                  {"--graph-nodes=", 2, GG_MAX_NODES},
                  {"--min-claimed=", 0, 1}};
  for (int k = 0; k < 4; ++k) {
    const size_t n = strlen(kNumbers[k].prefix);
    if (strncmp(arg, kNumbers[k].prefix, n) != 0) continue;
    double v;
    if (!parse_number(arg + n, kNumbers[k].lo, kNumbers[k].hi, &v)) {
      fprintf(stderr, "litegpu_conformance: %s wants a number in [%g, %g]\n",
              kNumbers[k].prefix, kNumbers[k].lo, kNumbers[k].hi);
      return -1;
    }
    if (k == 0) o->random_graphs = (int)v;
    if (k == 1) o->seed = (uint32_t)v;
    if (k == 2) o->max_nodes = (int)v;
    if (k == 3) o->min_claimed = v;
    return 1;
  }
  if (strncmp(arg, "--save-failures=", 16) == 0) {
    o->save_dir = arg + 16;
    return 1;
  }
  const bool dir = strncmp(arg, "--graph-dir=", 12) == 0;
  if (!dir && strncmp(arg, "--graph=", 8) != 0) return 0;
  int* count = dir ? &o->num_spec_dirs : &o->num_specs;
  if (*count >= CONF_MAX_GRAPH_SPECS) {
    fprintf(stderr,
            "litegpu_conformance: at most %d --graph and %d "
            "--graph-dir\n",
            CONF_MAX_GRAPH_SPECS, CONF_MAX_GRAPH_SPECS);
    return -1;
  }
  (dir ? o->spec_dirs : o->specs)[(*count)++] = arg + (dir ? 12 : 8);
  return 1;
}

void conf_run_graphs(const conf_graph_options* o, const conf_adapter* adapter,
                     TfLiteDelegate* delegate, const conf_pair* pair,
                     conf_totals* totals) {
  graph_runner r = {adapter, delegate, pair && pair->enabled ? pair : NULL, 0,
                    0};
  for (int i = 0; i < o->num_specs; ++i) {
    run_spec_file(&r, o->specs[i], totals);
  }
  for (int i = 0; i < o->num_spec_dirs; ++i) {
    run_spec_dir(&r, o->spec_dirs[i], totals);
  }
  run_random(&r, o, totals);
  const double share =
      r.total_nodes > 0 ? (double)r.claimed_nodes / r.total_nodes : 0;
  printf("\ngraphs: %d of %d nodes claimed (%.1f%%)\n", r.claimed_nodes,
         r.total_nodes, 100 * share);
  if (o->min_claimed > 0 && share < o->min_claimed) {
    printf("--min-claimed=%.2f: only %.1f%% of the nodes were claimed\n",
           o->min_claimed, 100 * share);
    totals->failed++;
  }
}
