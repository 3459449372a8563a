/* --compare-backends (conformance.h, "OpenCL against Vulkan"): each case
 * and model on the CPU and on the GPU delegate forced to each backend.
 *
 * The per-backend judgement is the runner's own (a callback), so a
 * comparing run is at least as strict as two single-backend runs; on top
 * of it the backends must decide alike and agree with each other within
 * the case's bound, scaled by the CPU's value (not by either backend's, so
 * the check is symmetric). Like the runner's comparison against the CPU,
 * the backends' comparison checks that it could fail: moving one element
 * by 4 bounds must be noticed.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "litegpu/gpu_delegate.h"
#include "tests/conformance/conformance.h"

/* Index k of every per-backend array: the name the delegate reports (and
 * the table prints), the option value, the --compare-fault spelling. */
static const char* const kBackendName[CONF_PAIR_BACKENDS] = {"OpenCL",
                                                             "Vulkan"};
static const int kBackendOption[CONF_PAIR_BACKENDS] = {
    LITEGPU_GPU_BACKEND_OPENCL, LITEGPU_GPU_BACKEND_VULKAN};
static const char* const kBackendFlag[CONF_PAIR_BACKENDS] = {"cl", "vk"};

#define REASON_SIZE 512

/* ---- Options and the two delegates --------------------------------------- */

int conf_pair_parse_arg(conf_pair* pair, const char* arg) {
  static const char kFault[] = "--compare-fault=";
  if (strcmp(arg, "--compare-backends") == 0) {
    pair->enabled = true;
    return 1;
  }
  if (strncmp(arg, kFault, sizeof(kFault) - 1) != 0) return 0;
  const char* value = arg + sizeof(kFault) - 1;
  for (int k = 0; k < CONF_PAIR_BACKENDS; ++k) {
    const size_t n = strlen(kBackendFlag[k]);
    if (strncmp(value, kBackendFlag[k], n) != 0 || value[n] != ':') continue;
    char* end = NULL;
    const double amount = strtod(value + n + 1, &end);
    if (end != value + n + 1 && *end == '\0' && isfinite(amount) &&
        amount != 0) {
      pair->fault_backend = k + 1;
      pair->fault_offset = amount;
      return 1;
    }
  }
  fprintf(stderr,
          "litegpu_conformance: --compare-fault wants cl:AMOUNT or "
          "vk:AMOUNT (AMOUNT a non-zero number), got '%s'\n",
          value);
  return -1;
}

int conf_pair_create(conf_pair* pair, const conf_adapter* adapter,
                     const conf_delegate_options* options, char* error,
                     size_t error_size) {
  pair->adapter = adapter;
  if (strcmp(adapter->name, "gpu") != 0) {
    snprintf(error, error_size,
             "--compare-backends compares the GPU delegate's backends; "
             "use --delegate=gpu");
    return -1;
  }
  for (int k = 0; k < CONF_PAIR_BACKENDS; ++k) {
    conf_delegate_options o = *options;
    o.backend = kBackendOption[k];
    char why[1024] = "";
    pair->delegates[k] = adapter->create(&o, why, sizeof(why));
    if (pair->delegates[k] == NULL) {
      snprintf(error, error_size,
               "--compare-backends needs both OpenCL and Vulkan, and %s "
               "cannot run (%.900s): nothing would be compared",
               kBackendName[k], why);
      conf_pair_destroy(pair);
      return -1;
    }
    /* The delegate must run on the backend it was forced to: a fallback
     * would compare a backend with itself. */
    litegpu_gpu_delegate_stats stats;
    if (litegpu_gpu_delegate_get_stats(pair->delegates[k], &stats) !=
            kTfLiteOk ||
        strcmp(stats.backend, kBackendName[k]) != 0) {
      snprintf(error, error_size,
               "--compare-backends asked for %s and got another backend",
               kBackendName[k]);
      conf_pair_destroy(pair);
      return -1;
    }
    snprintf(pair->devices[k], sizeof(pair->devices[k]), "%s",
             stats.device_name);
  }
  return 0;
}

void conf_pair_destroy(conf_pair* pair) {
  for (int k = 0; k < CONF_PAIR_BACKENDS; ++k) {
    if (pair->adapter != NULL) pair->adapter->destroy(pair->delegates[k]);
    pair->delegates[k] = NULL;
  }
}

/* ---- Comparing the backends' outputs ------------------------------------- */

/* The bound both backends are held to: the fp16 one when either runs in
 * half precision, else the case's (0: CONF_TOL_FP32), as the runner's. */
static double pair_tol(const conf_pair* pair, double case_tol) {
  for (int k = 0; k < CONF_PAIR_BACKENDS; ++k) {
    if (pair->adapter->fp16(pair->delegates[k])) return CONF_TOL_FP16;
  }
  return case_tol > 0 ? case_tol : CONF_TOL_FP32;
}

void conf_pair_apply_fault(const conf_pair* pair,
                           conf_run_result got[CONF_PAIR_BACKENDS]) {
  if (pair->fault_backend < 1 || pair->fault_backend > CONF_PAIR_BACKENDS) {
    return;
  }
  conf_run_result* r = &got[pair->fault_backend - 1];
  for (int k = 0; k < r->num_outputs; ++k) {
    if (r->outputs[k].values == NULL) continue;
    for (size_t i = 0; i < r->outputs[k].count; ++i) {
      r->outputs[k].values[i] += (float)pair->fault_offset;
    }
  }
}

/* The backends against each other (both already passed against the CPU):
 * true when they agree; else v->detail says why. Sets v->max_abs[2]. */
static bool backends_agree(const conf_pair* pair, double tol,
                           const conf_run_result* cpu,
                           conf_run_result got[CONF_PAIR_BACKENDS],
                           conf_pair_verdict* v) {
  conf_pair_apply_fault(pair, got);
  conf_compare cmp;
  conf_compare_pair_runs(cpu, &got[0], &got[1], NULL, tol, &cmp);
  v->max_abs[2] = cmp.max_abs;
  if (!cmp.ok) {
    snprintf(v->detail, sizeof(v->detail), "OpenCL and Vulkan differ: %s",
             cmp.why);
    return false;
  }
  if (!conf_pair_comparison_can_fail(cpu, &got[0], &got[1], NULL, tol)) {
    snprintf(v->detail, sizeof(v->detail),
             "a difference between the backends would pass: the "
             "comparison is broken");
    return false;
  }
  return true;
}

/* ---- Cases --------------------------------------------------------------- */

/* The pair's verdict on a case from each backend's judgement and reason. */
static void judge_pair(const conf_pair* pair, const conf_case* c,
                       const conf_verdict judged[CONF_PAIR_BACKENDS],
                       char reason[CONF_PAIR_BACKENDS][REASON_SIZE],
                       const conf_run_result* ref,
                       conf_run_result got[CONF_PAIR_BACKENDS],
                       conf_pair_verdict* v) {
  if (!judged[0].pass && !judged[1].pass) {
    snprintf(v->detail, sizeof(v->detail), "OpenCL: %.240s; Vulkan: %.240s",
             judged[0].detail, judged[1].detail);
    return;
  }
  for (int k = 0; k < CONF_PAIR_BACKENDS; ++k) {
    if (!judged[k].pass) {
      snprintf(v->detail, sizeof(v->detail), "%s: %.480s", kBackendName[k],
               judged[k].detail);
      return;
    }
  }
  if (judged[0].claimed != judged[1].claimed) {
    const int refused = judged[0].claimed ? 1 : 0;
    snprintf(v->detail, sizeof(v->detail),
             "the backends decide differently: %s claimed, %s refused: "
             "%.400s",
             kBackendName[1 - refused], kBackendName[refused], reason[refused]);
    return;
  }
  if (!judged[0].claimed && strcmp(reason[0], reason[1]) != 0) {
    snprintf(v->detail, sizeof(v->detail),
             "the refusals differ: OpenCL \"%.220s\", Vulkan \"%.220s\"",
             reason[0], reason[1]);
    return;
  }
  if (!backends_agree(pair, pair_tol(pair, c->tol), ref, got, v)) return;
  v->pass = true;
  v->claimed = judged[0].claimed;
  snprintf(v->detail, sizeof(v->detail), "%s", judged[0].detail);
}

void conf_pair_run_case(const conf_pair* pair, const conf_case* c,
                        TfLiteModel* model, const conf_builder* b,
                        const conf_run_result* ref,
                        conf_run_result got[CONF_PAIR_BACKENDS],
                        conf_judge_fn judge, const void* ctx,
                        conf_pair_verdict* verdict) {
  memset(verdict, 0, sizeof(*verdict));
  conf_verdict judged[CONF_PAIR_BACKENDS];
  char reason[CONF_PAIR_BACKENDS][REASON_SIZE];
  for (int k = 0; k < CONF_PAIR_BACKENDS; ++k) {
    TfLiteDelegate* d = pair->delegates[k];
    memset(&judged[k], 0, sizeof(judged[k]));
    conf_run_model(model, b->inputs, b->num_inputs, d, conf_invokes(b),
                   &got[k]);
    judge(ctx, c, d, b->case_node, ref, &got[k], &judged[k]);
    /* Copied now: the delegate's reasons last until its next application. */
    const char* r = pair->adapter->node_reason(d, b->case_node);
    snprintf(reason[k], sizeof(reason[k]), "%s", r ? r : "(no decision)");
    verdict->max_abs[k] = judged[k].cmp.max_abs;
  }
  judge_pair(pair, c, judged, reason, ref, got, verdict);
}

/* ---- Whole models -------------------------------------------------------- */

/* Every node's decision of one backend's last application ("" claimed). */
typedef struct decisions {
  char** reasons;
  int count, claimed;
} decisions;

static void decisions_collect(const conf_adapter* adapter, TfLiteDelegate* d,
                              decisions* out) {
  memset(out, 0, sizeof(*out));
  out->count = adapter->num_nodes(d);
  out->reasons = calloc(out->count ? (size_t)out->count : 1, sizeof(char*));
  if (out->reasons == NULL) exit(2);
  for (int node = 0; node < out->count; ++node) {
    /* NULL stays NULL: a node fused away before the delegate ran. */
    const char* reason = adapter->node_reason(d, node);
    if (reason == NULL) continue;
    out->reasons[node] = strdup(reason);
    if (out->reasons[node] == NULL) exit(2);
    if (reason[0] == '\0') out->claimed++;
  }
}

static void decisions_free(decisions* d) {
  for (int node = 0; node < d->count; ++node) free(d->reasons[node]);
  free(d->reasons);
  memset(d, 0, sizeof(*d));
}

/* False (with `why`) at the first node the backends decide differently. */
static bool decisions_match(const decisions* a, const decisions* b, char* why,
                            size_t size) {
  if (a->count != b->count) {
    snprintf(why, size, "OpenCL decided %d nodes, Vulkan %d", a->count,
             b->count);
    return false;
  }
  for (int node = 0; node < a->count; ++node) {
    const char* ra = a->reasons[node];
    const char* rb = b->reasons[node];
    if (ra == NULL && rb == NULL) continue;
    if (ra != NULL && rb != NULL && strcmp(ra, rb) == 0) continue;
    snprintf(why, size,
             "node %d decided differently: OpenCL \"%.180s\", Vulkan "
             "\"%.180s\"",
             node, ra ? (ra[0] ? ra : "(claimed)") : "(none)",
             rb ? (rb[0] ? rb : "(claimed)") : "(none)");
    return false;
  }
  return true;
}

static bool float_outputs(const conf_run_result* r) {
  for (int k = 0; k < r->num_outputs; ++k) {
    if (r->outputs[k].type != kTfLiteFloat32) return false;
  }
  return true;
}

/* One backend's run of a model against the CPU: true when it ran, its
 * refusals have reasons and its outputs are within the bound. */
static bool model_backend_ok(const conf_pair* pair, int k, TfLiteModel* model,
                             const conf_model_bounds* q,
                             const conf_run_result* cpu, conf_run_result* got,
                             decisions* dec, conf_pair_verdict* v) {
  TfLiteDelegate* d = pair->delegates[k];
  conf_run_model(model, NULL, 0, d, 1, got);
  if (got->status != kTfLiteOk) {
    snprintf(v->detail, sizeof(v->detail),
             "%s: delegated run failed at %s: %.300s", kBackendName[k],
             got->failed_step, got->log);
    return false;
  }
  decisions_collect(pair->adapter, d, dec);
  if (dec->claimed > 0 && !pair->adapter->claimed(d)) {
    snprintf(v->detail, sizeof(v->detail),
             "%s: %d nodes marked claimed but no partition", kBackendName[k],
             dec->claimed);
    return false;
  }
  conf_compare cmp;
  const double tol =
      q->hybrid ? fmax(CONF_TOL_FP16, pair_tol(pair, 0)) : pair_tol(pair, 0);
  conf_compare_runs_bounded(cpu, got, tol, q->bounds, &cmp);
  v->max_abs[k] = cmp.max_abs;
  if (!cmp.ok) {
    snprintf(v->detail, sizeof(v->detail), "%s: %.450s", kBackendName[k],
             cmp.why);
    return false;
  }
  return true;
}

static const char* base_name(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* The pair's verdict on a model; `skip` set when it is neither a float nor
 * a quantized model. A quantized one (conf_read_model_bounds) is checked
 * per backend against the CPU with its bounds; the two backends, each
 * within two steps of the CPU, are not compared with each other. */
static void judge_model(const conf_pair* pair, const char* path,
                        TfLiteModel* model,
                        conf_run_result runs[1 + CONF_PAIR_BACKENDS],
                        conf_pair_verdict* v, bool* skip) {
  conf_model_bounds q;
  if (!conf_read_model_bounds(path, &q, v->detail, sizeof(v->detail))) {
    *skip = strstr(v->detail, "neither") != NULL;
    return;
  }
  conf_run_model(model, NULL, 0, NULL, 1, &runs[0]);
  if (runs[0].status != kTfLiteOk) {
    snprintf(v->detail, sizeof(v->detail), "the CPU run failed at %s",
             runs[0].failed_step);
    return;
  }
  const bool quantized = q.quantized || q.hybrid;
  if (!quantized && !float_outputs(&runs[0])) {
    snprintf(v->detail, sizeof(v->detail), "not a float model");
    *skip = true;
    return;
  }
  decisions dec[CONF_PAIR_BACKENDS];
  memset(dec, 0, sizeof(dec));
  bool ok = true;
  for (int k = 0; ok && k < CONF_PAIR_BACKENDS; ++k) {
    ok = model_backend_ok(pair, k, model, &q, &runs[0], &runs[1 + k], &dec[k],
                          v);
  }
  if (ok && decisions_match(&dec[0], &dec[1], v->detail, sizeof(v->detail)) &&
      (quantized ||
       backends_agree(pair, pair_tol(pair, 0), &runs[0], &runs[1], v))) {
    v->pass = true;
    v->claimed = dec[0].claimed > 0;
    snprintf(v->detail, sizeof(v->detail), "%d of %d nodes claimed on both",
             dec[0].claimed, dec[0].count);
  }
  for (int k = 0; k < CONF_PAIR_BACKENDS; ++k) decisions_free(&dec[k]);
}

void conf_pair_check_model(const conf_pair* pair, const char* path,
                           conf_totals* totals) {
  conf_pair_verdict v;
  memset(&v, 0, sizeof(v));
  bool skip = false;
  TfLiteModel* model = TfLiteModelCreateFromFile(path);
  conf_run_result* runs = calloc(1 + CONF_PAIR_BACKENDS, sizeof(*runs));
  if (runs == NULL) exit(2);
  if (model == NULL) {
    snprintf(v.detail, sizeof(v.detail), "cannot load the model");
  } else {
    judge_model(pair, path, model, runs, &v, &skip);
  }
  const char* outcome = skip        ? "SKIP"
                        : !v.pass   ? "FAIL"
                        : v.claimed ? "PASS claimed"
                                    : "PASS rejected";
  conf_pair_print_row(base_name(path), "(model)", outcome, v.max_abs, v.detail);
  if (skip) {
    totals->skipped++;
  } else if (!v.pass) {
    totals->failed++;
  } else {
    totals->passed++;
    if (v.claimed) {
      totals->claimed++;
    } else {
      totals->rejected++;
    }
  }
  for (int k = 0; k < 1 + CONF_PAIR_BACKENDS; ++k) {
    conf_run_result_free(&runs[k]);
  }
  free(runs);
  TfLiteModelDelete(model);
}

/* ---- The table ----------------------------------------------------------- */

static double g_row_start;

void conf_pair_print_header(const conf_pair* pair) {
  printf("comparing OpenCL (%s) with Vulkan (%s)%s\n", pair->devices[0],
         pair->devices[1],
         pair->fault_backend ? " (with an injected difference)" : "");
  printf("%-44s %-22s %-14s %10s %10s %10s %7s  %s\n", "case", "op", "outcome",
         "cl_max_abs", "vk_max_abs", "cl_vs_vk", "ms", "detail");
  g_row_start = lg_now_seconds();
}

void conf_pair_print_row(const char* name, const char* op, const char* outcome,
                         const double max_abs[3], const char* detail) {
  const double now = lg_now_seconds();
  printf("%-44s %-22s %-14s %10.3e %10.3e %10.3e %7.0f  %s\n", name, op,
         outcome, max_abs[0], max_abs[1], max_abs[2], (now - g_row_start) * 1e3,
         detail ? detail : "");
  g_row_start = now;
}

void conf_pair_finish(const conf_pair* pair, conf_totals* totals) {
  /* Only a run that would otherwise pass: a failure already fails it. */
  if (!pair->enabled || totals->claimed > 0 || totals->failed > 0) return;
  printf(
      "\n--compare-backends: nothing was claimed by both backends, so no "
      "GPU output was compared\n");
  totals->failed++;
}
