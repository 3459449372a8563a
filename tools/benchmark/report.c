/* benchmark_model: the text and JSON reports (the JSON keys are listed at
 * the top of tools/benchmark_model.c). */
#include <math.h>
#include <string.h>

#include "tools/benchmark/benchmark.h"

#define LG_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void print_flag_value(FILE* out, const lg_bench_params* p,
                             const lg_bench_flag* f) {
  const void* v = lg_bench_flag_value(p, f);
  switch (f->type) {
    case FLAG_INT:
      fprintf(out, "%d", *(const int*)v);
      break;
    case FLAG_FLOAT:
      fprintf(out, "%g", *(const double*)v);
      break;
    case FLAG_BOOL:
      fputs(*(const bool*)v ? "true" : "false", out);
      break;
    case FLAG_STRING:
      fputs(*(const char* const*)v, out);
      break;
    case FLAG_LIST: {
      const lg_bench_list* list = v;
      for (int i = 0; i < list->count; ++i) {
        fprintf(out, i ? ",%s" : "%s", list->items[i]);
      }
      break;
    }
  }
}

static double share_pct(uint64_t part, uint64_t total) {
  return total ? 100.0 * (double)part / (double)total : 0.0;
}

static double per_run_us(uint64_t ns, uint64_t runs) {
  return runs ? (double)ns / (double)runs / 1e3 : 0.0;
}

/* ---- Text report ----------------------------------------------------------
 */

static void print_shape(FILE* out, const TfLiteTensor* t) {
  fputc('[', out);
  for (int d = 0; d < TfLiteTensorNumDims(t); ++d) {
    fprintf(out, d ? ",%d" : "%d", TfLiteTensorDim(t, d));
  }
  fputc(']', out);
}

/* A signature's name for a tensor, and the tensor's own name after it when
 * they differ. */
static void text_tensor_name(FILE* out, const char* name,
                             const TfLiteTensor* t) {
  const char* tensor = lg_bench_tensor_name(t);
  fprintf(out, "'%s'", name);
  if (strcmp(name, tensor) != 0) fprintf(out, " (tensor '%s')", tensor);
}

/* Inputs with the random values each received, then outputs. */
static void text_tensors(FILE* out, const lg_bench* b,
                         const lg_bench_graph* g) {
  for (int i = 0; i < lg_bench_graph_input_count(g); ++i) {
    const TfLiteTensor* t = lg_bench_graph_input(g, i);
    const lg_fill* f = &b->fills[i];
    fprintf(out, "  input %d ", i);
    text_tensor_name(out, lg_bench_graph_input_name(g, i), t);
    fprintf(out, " %s ", TfLiteTypeGetName(TfLiteTensorType(t)));
    print_shape(out, t);
    fprintf(out, ": random in [%g, %g], %zu value(s)", f->low, f->high,
            f->count);
    if (f->count > 0) {
      fprintf(out, " from %g to %g", f->seen_min, f->seen_max);
    }
    fputc('\n', out);
  }
  for (int i = 0; i < lg_bench_graph_output_count(g); ++i) {
    const TfLiteTensor* t = lg_bench_graph_output(g, i);
    fprintf(out, "  output %d ", i);
    text_tensor_name(out, lg_bench_graph_output_name(g, i), t);
    fprintf(out, " %s ", TfLiteTypeGetName(TfLiteTensorType(t)));
    print_shape(out, t);
    fputc('\n', out);
  }
}

void lg_bench_text_flags(FILE* out, const lg_bench_params* p, const bool* set) {
  fprintf(out, "Flags (%s):\n",
          p->verbose ? "every flag; * = set on the command line"
                     : "set on the command line; --verbose "
                       "lists all");
  for (int i = 0; i < lg_bench_num_flags; ++i) {
    if (!set[i] && !p->verbose) continue;
    fprintf(out, "  %s--%s=", p->verbose && set[i] ? "*" : "",
            lg_bench_flags[i].name);
    print_flag_value(out, p, &lg_bench_flags[i]);
    fputc('\n', out);
  }
}

static void text_stats(FILE* out, const lg_stats* s) {
  if (s->count == 0) {
    fprintf(out, "  no runs\n");
    return;
  }
  fprintf(out, "  count=%zu mean=%.3f std=%.3f min=%.3f max=%.3f (us)\n",
          s->count, s->mean, s->std, s->min, s->max);
}

static void text_profile(FILE* out, const lg_profile* pr) {
  fprintf(out,
          "\nOperator profile (steady state, %llu runs), slowest "
          "first:\n",
          (unsigned long long)pr->runs);
  fprintf(out, "  %5s  %-28s %7s %12s %8s %10s\n", "node", "op", "version",
          "avg us", "share %", "count");
  for (int i = 0; i < pr->num_ops; ++i) {
    const litegpu_op_profile* op = &pr->ops[i];
    fprintf(out, "  %5d  %-28s %7d %12.3f %7.2f%% %10llu\n", op->node_index,
            op->op_name ? op->op_name : "?", op->version,
            per_run_us(op->total_ns, op->count),
            share_pct(op->total_ns, pr->total_ns),
            (unsigned long long)op->count);
  }
  fprintf(out, "\nSummary by operator type:\n");
  fprintf(out, "  %-28s %6s %12s %8s\n", "op", "nodes", "us per run",
          "share %");
  for (int g = 0; g < pr->num_groups; ++g) {
    const lg_op_group* grp = &pr->groups[g];
    fprintf(out, "  %-28s %6d %12.3f %7.2f%%\n", grp->op, grp->nodes,
            per_run_us(grp->total_ns, pr->runs),
            share_pct(grp->total_ns, pr->total_ns));
  }
  fprintf(out, "  operators total: %.3f us per run\n",
          per_run_us(pr->total_ns, pr->runs));
}

static void text_gpu_profile(FILE* out, const lg_gpu_profile* g) {
  fprintf(out,
          "\nGPU dispatch profile (%llu extra runs; device timestamps on "
          "Vulkan, else each dispatch waited for and timed alone, enqueue to "
          "completion), slowest first:\n",
          (unsigned long long)g->runs);
  fprintf(out, "  %4s  %5s  %-24s %-16s %12s %8s\n", "part", "node", "op",
          "kernel", "avg us", "share %");
  for (int i = 0; i < g->num_dispatches; ++i) {
    const litegpu_gpu_dispatch_profile* d = &g->dispatches[i];
    fprintf(out, "  %4d  %5d  %-24s %-16s %12.3f %7.2f%%\n", d->partition,
            d->node_index, d->op_name ? d->op_name : "?", d->kernel,
            per_run_us(d->total_ns, d->count),
            share_pct(d->total_ns, g->total_ns));
  }
  fprintf(out, "\nSummary by GPU kernel:\n");
  fprintf(out, "  %-16s %10s %12s %8s\n", "kernel", "dispatches", "us per run",
          "share %");
  for (int k = 0; k < g->num_kernels; ++k) {
    const lg_op_group* grp = &g->kernels[k];
    fprintf(out, "  %-16s %10d %12.3f %7.2f%%\n", grp->op, grp->nodes,
            per_run_us(grp->total_ns, g->runs),
            share_pct(grp->total_ns, g->total_ns));
  }
  fprintf(out, "  dispatches total: %.3f us per run\n",
          per_run_us(g->total_ns, g->runs));
}

static void text_memory(FILE* out, const lg_bench* b, const lg_bench_graph* g) {
  const double mb = 1024.0 * 1024.0;
  fprintf(out, "\nMemory:\n");
  fprintf(out,
          "  peak RSS %.3f MB (VmHWM high-water mark); RSS at start %.3f MB, "
          "peak after init %.3f MB\n  getrusage ru_maxrss %.3f MB (carries "
          "the size of a larger parent across exec)\n",
          (double)b->peak_end / mb, (double)b->rss_start / mb,
          (double)b->peak_after_init / mb, (double)b->ru_maxrss / mb);
  if (b->has_mem) {
    fprintf(out,
            "  arena %zu bytes for %zu bytes of planned tensors; heap "
            "%zu bytes; constants %zu bytes (mapped from the model file)\n",
            b->mem.arena_bytes, b->mem.non_constant_tensor_bytes,
            b->mem.heap_bytes, b->mem.constant_bytes);
  } else if (!g->primary) {
    fprintf(out,
            "  arena, heap and constants: not shown (the memory plan read "
            "is subgraph 0's, and signature '%s' runs another subgraph)\n",
            g->key);
  }
}

/* A count of the delegate report, "?" when unknown (-1). */
static void text_count(FILE* out, int v) {
  if (v >= 0) {
    fprintf(out, "%d", v);
  } else {
    fputc('?', out);
  }
}

/* "  partitions P, nodes delegated N of T" (no line end). */
static void text_nodes(FILE* out, const lg_bench_delegate_info* d) {
  fputs("  partitions ", out);
  text_count(out, d->partitions);
  fputs(", nodes delegated ", out);
  text_count(out, d->nodes_delegated);
  fputs(" of ", out);
  text_count(out, d->nodes_total);
}

/* --use_gpu: what the delegate took and what it costs per inference. */
static void text_delegate(FILE* out, const lg_bench_delegate_info* d) {
  const char* removed = d->fell_back
                            ? "; REMOVED by the runtime (delegate fallback): "
                              "the CPU ran every node"
                            : "";
  if (d->service) {
    fprintf(out, "\nService delegate: the litegpu service on '%s', %s%s\n",
            d->device, d->backend, removed);
    text_nodes(out, d);
    fputs(" (one request per partition and Invoke)\n", out);
    return;
  }
  fprintf(out, "\nGPU delegate: %s on '%s', %s precision%s\n", d->backend,
          d->device, d->fp16 ? "half" : "full", removed);
  text_nodes(out, d);
  fputs(", ", out);
  text_count(out, d->dispatches_per_invoke);
  fprintf(out, " dispatch%s per inference\n",
          d->dispatches_per_invoke == 1 ? "" : "es");
  if (d->nodes_total < 0) {
    fprintf(out,
            "  (?: not known; the execution plan the interpreter reports is "
            "subgraph 0's, and the signature runs another subgraph)\n");
  }
  fprintf(out,
          "  bytes per inference: %llu uploaded + %llu downloaded = %llu; "
          "device memory %llu bytes\n",
          (unsigned long long)d->bytes_uploaded,
          (unsigned long long)d->bytes_downloaded,
          (unsigned long long)(d->bytes_uploaded + d->bytes_downloaded),
          (unsigned long long)d->device_bytes);
  fprintf(out,
          "  kernel programs: %llu compiled, %llu from the cache (%llu cache "
          "files loaded)\n",
          (unsigned long long)d->programs_compiled,
          (unsigned long long)d->programs_from_cache,
          (unsigned long long)d->cache_files_loaded);
}

void lg_bench_print_text(FILE* out, const lg_bench* b,
                         const lg_bench_graph* g) {
  const lg_bench_params* p = b->p;
  double init_us = b->load_us + b->delegate_us + b->create_us + b->allocate_us;
  fprintf(out, "litegpu benchmark_model (TFLite C API %s)\n", TfLiteVersion());
  lg_bench_text_flags(out, b->p, b->set);
  fprintf(out, "\nModel: %s (%ld bytes, ", p->graph, b->model_bytes);
  if (b->num_nodes >= 0) {
    fprintf(out, "%d node%s)\n", b->num_nodes, b->num_nodes == 1 ? "" : "s");
  } else {
    fprintf(out, "nodes of the signature's subgraph not counted)\n");
  }
  if (g->key != NULL) {
    fprintf(out, "Signature: '%s' (%s), its inputs and outputs:\n", g->key,
            g->primary ? "subgraph 0" : "a subgraph other than 0");
  }
  text_tensors(out, b, g);
  fprintf(out, "\nInitialization:\n  load model %.3f ms\n", b->load_us / 1e3);
  if (b->has_delegate) {
    fprintf(out, "  create %s delegate %.3f ms\n",
            b->delegate.service ? "service" : "GPU", b->delegate_us / 1e3);
  }
  fprintf(out,
          "  create interpreter %.3f ms\n  resize inputs + AllocateTensors "
          "%.3f ms\n  init total %.3f ms\n",
          b->create_us / 1e3, b->allocate_us / 1e3, init_us / 1e3);
  fprintf(out, "\nFirst inference: %.3f us\n", b->first_us);
  fprintf(out, "\nWarm-up (at least %d runs and %g s):\n", p->warmup_runs,
          p->warmup_min_secs);
  text_stats(out, &b->warmup_stats);
  const lg_stats* s = &b->steady_stats;
  fprintf(out,
          "\nSteady state (at least %d runs and %g s, no run started "
          "after %g s): %zu runs in %.3f s\n",
          p->num_runs, p->min_secs, p->max_secs, s->count, b->steady_secs);
  text_stats(out, s);
  fprintf(out, "  p50=%.3f p90=%.3f p99=%.3f (us)\n", s->p50, s->p90, s->p99);
  fprintf(out,
          "Inference timings in us: Init: %.3f, First inference: %.3f, "
          "Warmup (avg): %.3f, Inference (avg): %.3f\n",
          init_us, b->first_us,
          b->warmup_stats.count ? b->warmup_stats.mean : 0.0, s->mean);
  if (b->has_delegate) text_delegate(out, &b->delegate);
  text_memory(out, b, g);
  if (b->has_profile) text_profile(out, &b->profile);
  if (b->has_gpu_profile) text_gpu_profile(out, &b->gpu_profile);
}

/* ---- JSON report ----------------------------------------------------------
 */

void lg_json_string(FILE* out, const char* s) {
  fputc('"', out);
  for (const unsigned char* c = (const unsigned char*)(s ? s : ""); *c; ++c) {
    if (*c == '"' || *c == '\\') {
      fprintf(out, "\\%c", *c);
    } else if (*c < 0x20) {
      fprintf(out, "\\u%04x", *c);
    } else {
      fputc(*c, out);
    }
  }
  fputc('"', out);
}

void lg_json_number(FILE* out, double v) {
  if (isfinite(v)) {
    fprintf(out, "%.3f", v);
  } else {
    fputs("null", out);
  }
}

/* Full precision, for values that are not times. */
void lg_json_real(FILE* out, double v) {
  if (isfinite(v)) {
    fprintf(out, "%.9g", v);
  } else {
    fputs("null", out);
  }
}

void lg_json_key(FILE* out, const char* key) {
  lg_json_string(out, key);
  fputc(':', out);
}

/* Writes the stats object without its closing brace, so that the caller
 * may add keys. */
static void json_stats_open(FILE* out, const lg_stats* s) {
  const double n = s->count ? 0.0 : NAN; /* null numbers without runs */
  const char* keys[] = {"mean_us", "std_us", "min_us", "max_us",
                        "p50_us",  "p90_us", "p99_us"};
  const double values[] = {s->mean, s->std, s->min, s->max,
                           s->p50,  s->p90, s->p99};
  fprintf(out, "{\"count\":%zu", s->count);
  for (int i = 0; i < LG_COUNT(keys); ++i) {
    fputc(',', out);
    lg_json_key(out, keys[i]);
    lg_json_number(out, values[i] + n);
  }
}

void lg_bench_json_flags(FILE* out, const lg_bench_params* p) {
  fputc('{', out);
  for (int i = 0; i < lg_bench_num_flags; ++i) {
    const lg_bench_flag* f = &lg_bench_flags[i];
    const void* v = lg_bench_flag_value(p, f);
    if (i) fputc(',', out);
    lg_json_key(out, f->name);
    switch (f->type) {
      case FLAG_INT:
        fprintf(out, "%d", *(const int*)v);
        break;
      case FLAG_FLOAT:
        fprintf(out, "%.17g", *(const double*)v);
        break;
      case FLAG_BOOL:
        fputs(*(const bool*)v ? "true" : "false", out);
        break;
      case FLAG_STRING:
        lg_json_string(out, *(const char* const*)v);
        break;
      case FLAG_LIST: {
        const lg_bench_list* list = v;
        fputc('[', out);
        for (int k = 0; k < list->count; ++k) {
          if (k) fputc(',', out);
          lg_json_string(out, list->items[k]);
        }
        fputc(']', out);
        break;
      }
    }
  }
  fputc('}', out);
}

/* {name, tensor, type, shape}; an input adds values {count, low, high, min,
 * max}: how many, the range asked for and the extremes drawn. `name` is the
 * signature's name for it (without a signature the tensor's). */
static void json_tensor(FILE* out, const char* name, const TfLiteTensor* t,
                        const lg_fill* f) {
  fputs("{\"name\":", out);
  lg_json_string(out, name);
  fputs(",\"tensor\":", out);
  lg_json_string(out, lg_bench_tensor_name(t));
  fputs(",\"type\":", out);
  lg_json_string(out, TfLiteTypeGetName(TfLiteTensorType(t)));
  fputs(",\"shape\":", out);
  print_shape(out, t);
  if (f != NULL) {
    const double none = f->count ? 0.0 : NAN;
    fprintf(out, ",\"values\":{\"count\":%zu,\"low\":", f->count);
    lg_json_real(out, f->low);
    fputs(",\"high\":", out);
    lg_json_real(out, f->high);
    fputs(",\"min\":", out);
    lg_json_real(out, f->seen_min + none);
    fputs(",\"max\":", out);
    lg_json_real(out, f->seen_max + none);
    fputc('}', out);
  }
  fputc('}', out);
}

/* A count, null when unknown (-1). */
static void json_count(FILE* out, int v) {
  if (v >= 0) {
    fprintf(out, "%d", v);
  } else {
    fputs("null", out);
  }
}

static void json_model(FILE* out, const lg_bench* b, const lg_bench_graph* g) {
  fputs("{\"path\":", out);
  lg_json_string(out, b->p->graph);
  fprintf(out, ",\"size_bytes\":%ld,\"num_nodes\":", b->model_bytes);
  json_count(out, b->num_nodes);
  fputs(",\"inputs\":[", out);
  for (int i = 0; i < lg_bench_graph_input_count(g); ++i) {
    if (i) fputc(',', out);
    json_tensor(out, lg_bench_graph_input_name(g, i),
                lg_bench_graph_input(g, i), &b->fills[i]);
  }
  fputs("],\"outputs\":[", out);
  for (int i = 0; i < lg_bench_graph_output_count(g); ++i) {
    if (i) fputc(',', out);
    json_tensor(out, lg_bench_graph_output_name(g, i),
                lg_bench_graph_output(g, i), NULL);
  }
  fputs("]}", out);
}

static void json_gpu_profile(FILE* out, const lg_gpu_profile* g) {
  fprintf(out, ",\"gpu_dispatch_profile\":{\"runs\":%llu,\"dispatches\":[",
          (unsigned long long)g->runs);
  for (int i = 0; i < g->num_dispatches; ++i) {
    const litegpu_gpu_dispatch_profile* d = &g->dispatches[i];
    fprintf(out, "%s{\"partition\":%d,\"node\":%d,\"op\":", i ? "," : "",
            d->partition, d->node_index);
    lg_json_string(out, d->op_name ? d->op_name : "?");
    fputs(",\"kernel\":", out);
    lg_json_string(out, d->kernel);
    fputs(",\"avg_us\":", out);
    lg_json_number(out, per_run_us(d->total_ns, d->count));
    fputs(",\"share_pct\":", out);
    lg_json_number(out, share_pct(d->total_ns, g->total_ns));
    fputc('}', out);
  }
  fputs("],\"kernels\":[", out);
  for (int k = 0; k < g->num_kernels; ++k) {
    const lg_op_group* grp = &g->kernels[k];
    fprintf(out, "%s{\"kernel\":", k ? "," : "");
    lg_json_string(out, grp->op);
    fprintf(out, ",\"dispatches\":%d,\"avg_us_per_run\":", grp->nodes);
    lg_json_number(out, per_run_us(grp->total_ns, g->runs));
    fputs(",\"share_pct\":", out);
    lg_json_number(out, share_pct(grp->total_ns, g->total_ns));
    fputc('}', out);
  }
  fputs("]}", out);
}

static void json_profile(FILE* out, const lg_profile* pr) {
  fputs(",\"op_profile\":[", out);
  for (int i = 0; i < pr->num_ops; ++i) {
    const litegpu_op_profile* op = &pr->ops[i];
    fprintf(out, "%s{\"node\":%d,\"op\":", i ? "," : "", op->node_index);
    lg_json_string(out, op->op_name ? op->op_name : "?");
    fprintf(out, ",\"version\":%d,\"avg_us\":", op->version);
    lg_json_number(out, per_run_us(op->total_ns, op->count));
    fputs(",\"total_us\":", out);
    lg_json_number(out, (double)op->total_ns / 1e3);
    fputs(",\"share_pct\":", out);
    lg_json_number(out, share_pct(op->total_ns, pr->total_ns));
    fprintf(out, ",\"count\":%llu}", (unsigned long long)op->count);
  }
  fputs("],\"op_type_summary\":[", out);
  for (int g = 0; g < pr->num_groups; ++g) {
    const lg_op_group* grp = &pr->groups[g];
    fprintf(out, "%s{\"op\":", g ? "," : "");
    lg_json_string(out, grp->op);
    fprintf(out, ",\"nodes\":%d,\"avg_us_per_run\":", grp->nodes);
    lg_json_number(out, per_run_us(grp->total_ns, pr->runs));
    fputs(",\"share_pct\":", out);
    lg_json_number(out, share_pct(grp->total_ns, pr->total_ns));
    fputc('}', out);
  }
  fputc(']', out);
}

static void json_memory(FILE* out, const lg_bench* b) {
  fprintf(out,
          ",\"memory\":{\"peak_rss_bytes\":%zu,\"ru_maxrss_bytes\":%zu,"
          "\"rss_at_start_bytes\":%zu,\"peak_rss_after_init_bytes\":%zu",
          b->peak_end, b->ru_maxrss, b->rss_start, b->peak_after_init);
  if (b->has_mem) {
    fprintf(out,
            ",\"arena_bytes\":%zu,\"non_constant_tensor_bytes\":%zu,"
            "\"heap_bytes\":%zu,\"constant_bytes\":%zu",
            b->mem.arena_bytes, b->mem.non_constant_tensor_bytes,
            b->mem.heap_bytes, b->mem.constant_bytes);
  }
  fputc('}', out);
}

static void json_delegate(FILE* out, const lg_bench_delegate_info* d) {
  fputs("{\"backend\":", out);
  lg_json_string(out, d->backend);
  fputs(",\"device\":", out);
  lg_json_string(out, d->device);
  fprintf(out, ",\"fp16\":%s,\"partitions\":", d->fp16 ? "true" : "false");
  json_count(out, d->partitions);
  fputs(",\"nodes_delegated\":", out);
  json_count(out, d->nodes_delegated);
  fputs(",\"nodes_total\":", out);
  json_count(out, d->nodes_total);
  fprintf(out,
          ",\"bytes_uploaded\":%llu,"
          "\"bytes_downloaded\":%llu,\"bytes_per_inference\":%llu,"
          "\"dispatches_per_invoke\":",
          (unsigned long long)d->bytes_uploaded,
          (unsigned long long)d->bytes_downloaded,
          (unsigned long long)(d->bytes_uploaded + d->bytes_downloaded));
  json_count(out, d->dispatches_per_invoke);
  fprintf(out,
          ",\"device_bytes\":%llu,"
          "\"programs_compiled\":%llu,\"programs_from_cache\":%llu,"
          "\"cache_files_loaded\":%llu,\"fell_back\":%s}",
          (unsigned long long)d->device_bytes,
          (unsigned long long)d->programs_compiled,
          (unsigned long long)d->programs_from_cache,
          (unsigned long long)d->cache_files_loaded,
          d->fell_back ? "true" : "false");
}

void lg_bench_print_json(FILE* out, const lg_bench* b,
                         const lg_bench_graph* g) {
  fputs("{\"tool\":\"litegpu benchmark_model\",\"tflite_version\":", out);
  lg_json_string(out, TfLiteVersion());
  fputs(",\"flags\":", out);
  lg_bench_json_flags(out, b->p);
  fputs(",\"signature\":", out);
  if (g->key != NULL) {
    lg_json_string(out, g->key);
  } else {
    fputs("null", out);
  }
  fputs(",\"model\":", out);
  json_model(out, b, g);
  fputs(",\"init_us\":{\"load\":", out);
  lg_json_number(out, b->load_us);
  fputs(",\"delegate\":", out);
  lg_json_number(out, b->delegate_us);
  fputs(",\"create\":", out);
  lg_json_number(out, b->create_us);
  fputs(",\"allocate\":", out);
  lg_json_number(out, b->allocate_us);
  fputs(",\"total\":", out);
  lg_json_number(out,
                 b->load_us + b->delegate_us + b->create_us + b->allocate_us);
  fputs("},\"first_inference_us\":", out);
  lg_json_number(out, b->first_us);
  fputs(",\"warmup\":", out);
  json_stats_open(out, &b->warmup_stats);
  fputs("},\"inference\":", out);
  json_stats_open(out, &b->steady_stats);
  fputs(",\"total_secs\":", out);
  lg_json_real(out, b->steady_secs);
  if (b->p->json_run_times) {
    fputs(",\"run_times_us\":[", out);
    for (size_t i = 0; i < b->steady.kept; ++i) {
      if (i) fputc(',', out);
      lg_json_number(out, b->steady.us[i]);
    }
    fputc(']', out);
  }
  fputc('}', out);
  json_memory(out, b);
  if (b->has_profile) {
    json_profile(out, &b->profile);
  } else {
    fputs(",\"op_profile\":null,\"op_type_summary\":null", out);
  }
  if (b->has_gpu_profile) {
    json_gpu_profile(out, &b->gpu_profile);
  } else {
    fputs(",\"gpu_dispatch_profile\":null", out);
  }
  fputs(",\"delegate\":", out);
  if (b->has_delegate) {
    json_delegate(out, &b->delegate);
  } else {
    fputs("null", out);
  }
  fputs("}\n", out);
}
