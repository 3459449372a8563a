/* Whole-model mode of litegpu_conformance: a model file on the CPU and with
 * the delegate, every output compared with the fp32 bound (the fp16 bound
 * when the delegate reports half precision); quantized models' outputs
 * within two quantization steps (readable_io).
 *
 * Inputs: seeded values in [-0.5, 0.5] for float32, the whole range for
 * quantized inputs. A model whose graph inputs or outputs are neither
 * float32 nor quantized is printed as SKIP and never counts as a pass. The
 * verdict also requires a reason for every node the delegate did not
 * take. conf_read_model_bounds: conformance.h. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/model/model.h"
#include "tests/conformance/conformance.h"

static bool quantized_type(const lg_model_tensor* t) {
  return (t->type == kTfLiteInt8 || t->type == kTfLiteUInt8 ||
          t->type == kTfLiteInt16) &&
         t->has_quantization && t->quantization.num_scale >= 1;
}

bool conf_read_model_bounds(const char* path, conf_model_bounds* out, char* why,
                            size_t size) {
  double* bounds = out->bounds;
  bool* hybrid = &out->hybrid;
  for (int k = 0; k < CONF_MAX_IO; ++k) bounds[k] = -1.0;
  out->quantized = false;
  lg_model* m = NULL;
  if (lg_model_load_file(path, NULL, &m) != kTfLiteOk) {
    snprintf(why, size, "cannot read the model");
    return false;
  }
  const lg_model_subgraph* g = &m->subgraphs[0];
  bool ok = true;
  for (int k = 0; ok && k < g->num_inputs + g->num_outputs; ++k) {
    const bool input = k < g->num_inputs;
    const int i = input ? k : k - g->num_inputs;
    const int32_t t = input ? g->inputs[i] : g->outputs[i];
    if (t < 0) continue;
    const lg_model_tensor* x = &g->tensors[t];
    if (x->type != kTfLiteFloat32 && !quantized_type(x)) {
      snprintf(why, size, "%s %d is %s: neither float32 nor quantized",
               input ? "input" : "output", i, TfLiteTypeGetName(x->type));
      ok = false;
      break;
    }
    if (input || i >= CONF_MAX_IO) continue;
    bounds[i] = quantized_type(x) ? 2.0 : -1.0;
    if (quantized_type(x)) out->quantized = true;
    for (int op = 0; x->type == kTfLiteFloat32 && op < g->num_operators; ++op) {
      const lg_model_operator* o = &g->operators[op];
      if (o->num_outputs < 1 || o->outputs[0] != t || o->num_inputs < 1 ||
          o->inputs[0] < 0) {
        continue;
      }
      const lg_model_tensor* from = &g->tensors[o->inputs[0]];
      if (quantized_type(from)) {
        bounds[i] = 2.0 * from->quantization.scale[0];
        out->quantized = true;
      }
    }
  }
  *hybrid = false;
  for (int op = 0; op < g->num_operators; ++op) {
    const lg_model_operator* o = &g->operators[op];
    bool float_input = false, int8_constant = false;
    for (int i = 0; i < o->num_inputs; ++i) {
      if (o->inputs[i] < 0) continue;
      const lg_model_tensor* x = &g->tensors[o->inputs[i]];
      const bool constant = m->buffers[x->buffer].data != NULL;
      if (!constant && x->type == kTfLiteFloat32) float_input = true;
      if (constant && x->type == kTfLiteInt8 && quantized_type(x)) {
        int8_constant = true;
      }
    }
    if (float_input && int8_constant) *hybrid = true;
  }
  lg_model_destroy(m);
  return ok;
}

static const char* base_name(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* Counts the delegate's claims; false when a refused node has no reason. */
static bool count_claims(const conf_adapter* adapter, TfLiteDelegate* d,
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

void conf_check_model(const char* path, const char* label,
                      const conf_adapter* adapter, TfLiteDelegate* delegate,
                      conf_totals* totals) {
  char detail[512] = "";
  const char* name = label ? label : base_name(path);
  conf_model_bounds q;
  if (!conf_read_model_bounds(path, &q, detail, sizeof(detail))) {
    const bool unreadable = strstr(detail, "neither") == NULL;
    conf_print_row(name, "(model)", unreadable ? "FAIL" : "SKIP", 0, 0, detail);
    if (unreadable) {
      totals->failed++;
    } else {
      totals->skipped++;
    }
    return;
  }
  TfLiteModel* model = TfLiteModelCreateFromFile(path);
  if (model == NULL) {
    conf_print_row(name, "(model)", "FAIL", 0, 0, "cannot load the model");
    totals->failed++;
    return;
  }
  conf_run_result* runs = calloc(2, sizeof(conf_run_result));
  if (runs == NULL) exit(2);
  conf_run_model(model, NULL, 0, NULL, 1, &runs[0]);
  conf_compare cmp;
  memset(&cmp, 0, sizeof(cmp));
  int claimed = 0, nodes = 0;
  bool pass = false;
  if (runs[0].status != kTfLiteOk) {
    snprintf(detail, sizeof(detail), "the CPU run failed at %s",
             runs[0].failed_step);
  } else {
    conf_run_model(model, NULL, 0, delegate, 1, &runs[1]);
    if (runs[1].status != kTfLiteOk) {
      snprintf(detail, sizeof(detail), "delegated run failed at %s: %.300s",
               runs[1].failed_step, runs[1].log);
    } else if (count_claims(adapter, delegate, &claimed, &nodes, detail,
                            sizeof(detail))) {
      const double tol =
          adapter->fp16(delegate) || q.hybrid ? CONF_TOL_FP16 : CONF_TOL_FP32;
      conf_compare_runs_bounded(&runs[0], &runs[1], tol, q.bounds, &cmp);
      pass = cmp.ok;
      if (pass) {
        snprintf(detail, sizeof(detail), "%d of %d nodes claimed", claimed,
                 nodes);
      } else {
        snprintf(detail, sizeof(detail), "%d of %d nodes claimed; %s", claimed,
                 nodes, cmp.why);
      }
    }
  }
  conf_print_row(
      name, "(model)",
      !pass ? "FAIL" : (claimed > 0 ? "PASS claimed" : "PASS rejected"),
      cmp.max_abs, cmp.nmse, detail);
  if (!pass) {
    totals->failed++;
  } else {
    totals->passed++;
    if (claimed > 0) {
      totals->claimed++;
    } else {
      totals->rejected++;
    }
  }
  conf_run_result_free(&runs[0]);
  conf_run_result_free(&runs[1]);
  free(runs);
  TfLiteModelDelete(model);
}

/* ---- Directories --------------------------------------------------------- */

typedef struct path_list {
  char** items;
  int count, capacity;
} path_list;

static void path_list_add(path_list* list, const char* path) {
  if (list->count == list->capacity) {
    list->capacity = list->capacity ? 2 * list->capacity : 16;
    char** items = realloc(list->items, (size_t)list->capacity * sizeof(char*));
    if (items == NULL) exit(2);
    list->items = items;
  }
  list->items[list->count] = strdup(path);
  if (list->items[list->count] == NULL) exit(2);
  list->count++;
}

static bool ends_with(const char* text, const char* suffix) {
  const size_t n = strlen(text), m = strlen(suffix);
  return n >= m && strcmp(text + n - m, suffix) == 0;
}

static void collect(const char* dir, path_list* list, int depth) {
  DIR* d = opendir(dir);
  if (d == NULL || depth > 8) {
    if (d != NULL) closedir(d);
    return;
  }
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      collect(path, list, depth + 1);
    } else if (ends_with(e->d_name, ".tflite")) {
      path_list_add(list, path);
    }
  }
  closedir(d);
}

static int compare_paths(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

int conf_check_model_dir(const char* dir, const conf_adapter* adapter,
                         TfLiteDelegate* delegate, conf_totals* totals) {
  path_list list = {NULL, 0, 0};
  collect(dir, &list, 0);
  if (list.count == 0) {
    conf_print_row(dir, "(models)", "FAIL", 0, 0, "no .tflite file found");
    totals->failed++;
  }
  qsort(list.items, (size_t)list.count, sizeof(char*), compare_paths);
  for (int i = 0; i < list.count; ++i) {
    const char* label = list.items[i] + strlen(dir);
    while (*label == '/') ++label;
    conf_check_model(list.items[i], label, adapter, delegate, totals);
    free(list.items[i]);
  }
  free(list.items);
  return list.count;
}
