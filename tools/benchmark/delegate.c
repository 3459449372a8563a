/* benchmark_model: the GPU flags (documented at the top of
 * tools/benchmark_model.c) turned into litegpu_gpu_delegate_options, and
 * what the delegate did, read from its stats and the interpreter's
 * execution plan. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "litegpu/service_delegate.h"
#include "tools/benchmark/benchmark.h"

/* The custom_name of the delegate's kernel nodes (TFLite's name). */
#define GPU_KERNEL_NAME "TfLiteGpuDelegateV2"

int lg_bench_gpu_backend(const char* name) {
  if (name[0] == '\0' || strcmp(name, "gpu") == 0) {
    return LITEGPU_GPU_BACKEND_AUTO;
  }
  if (strcmp(name, "cl") == 0) return LITEGPU_GPU_BACKEND_OPENCL;
  if (strcmp(name, "vk") == 0) return LITEGPU_GPU_BACKEND_VULKAN;
  return -1;
}

/* The model file's base name: the delegate's model_token. */
static const char* model_token(const char* graph) {
  const char* slash = strrchr(graph, '/');
  return slash ? slash + 1 : graph;
}

TfLiteDelegate* lg_bench_gpu_create(const lg_bench_params* p,
                                    litegpu_gpu_backend backend,
                                    const char* serialize_dir, char* why,
                                    size_t why_size) {
  litegpu_gpu_delegate_options o = litegpu_gpu_delegate_options_default();
  o.backend = backend;
  o.tflite.is_precision_loss_allowed = p->gpu_precision_loss_allowed ? 1 : 0;
  if (p->gpu_inference_for_sustained_speed) {
    o.tflite.inference_preference =
        TFLITE_GPU_INFERENCE_PREFERENCE_SUSTAINED_SPEED;
  }
  /* TFLite's flag default 0 means every partition; the delegate reads a
   * non-positive limit as 1, so "all" is passed as the largest count. */
  o.tflite.max_delegated_partitions =
      p->max_delegated_partitions > 0 ? p->max_delegated_partitions : INT32_MAX;
  o.min_nodes_per_partition = p->min_nodes_per_partition;
  if (serialize_dir != NULL && serialize_dir[0] != '\0') {
    o.tflite.experimental_flags |=
        TFLITE_GPU_EXPERIMENTAL_FLAGS_ENABLE_SERIALIZATION;
    o.tflite.serialization_dir = serialize_dir;
    o.tflite.model_token = model_token(p->graph);
  }
  why[0] = '\0';
  TfLiteDelegate* d = litegpu_gpu_delegate_create(&o, why, why_size);
  if (d == NULL && why[0] == '\0') {
    snprintf(why, why_size, "the GPU delegate could not be created");
  }
  return d;
}

/* The execution plan, one entry per node; NULL when out of memory. */
static litegpu_op_profile* plan_entries(TfLiteInterpreter* ip, int* count) {
  *count = litegpu_interpreter_op_profile(ip, NULL, 0);
  if (*count < 0) return NULL;
  litegpu_op_profile* plan = calloc((size_t)*count + 1, sizeof(*plan));
  if (plan != NULL) litegpu_interpreter_op_profile(ip, plan, *count);
  return plan;
}

static bool is_delegate_kernel(const litegpu_op_profile* entry) {
  return entry->op_name != NULL && strcmp(entry->op_name, GPU_KERNEL_NAME) == 0;
}

/* The delegate's own figures: the same whichever subgraph runs. */
static void read_delegate_wide(const litegpu_gpu_delegate_stats* st,
                               lg_bench_delegate_info* info) {
  snprintf(info->backend, sizeof(info->backend), "%s",
           st->backend ? st->backend : "?");
  snprintf(info->device, sizeof(info->device), "%s", st->device_name);
  info->fp16 = st->fp16 != 0;
  info->device_bytes = st->device_bytes;
  info->programs_compiled = st->programs_compiled;
  info->programs_from_cache = st->programs_from_cache;
  info->cache_files_loaded = st->cache_files_loaded;
}

/* The nodes the delegate's last Prepare claimed (its decisions with an
 * empty reason). Indices without a decision are skipped: the activations
 * the interpreter fused into their producers left the plan before the
 * delegate saw it. */
static int claimed_nodes(const TfLiteDelegate* d) {
  int claimed = 0;
  for (int node = 0; node < litegpu_gpu_delegate_num_nodes(d); ++node) {
    const char* reason = litegpu_gpu_delegate_node_reason(d, node);
    claimed += reason != NULL && reason[0] == '\0';
  }
  return claimed;
}

bool lg_bench_delegate_read(const TfLiteDelegate* d, const lg_bench_graph* g,
                            lg_bench_delegate_info* info) {
  memset(info, 0, sizeof(*info));
  litegpu_gpu_delegate_stats st;
  memset(&st, 0, sizeof(st));
  if (litegpu_gpu_delegate_get_stats(d, &st) != kTfLiteOk) return false;
  read_delegate_wide(&st, info);
  if (!g->primary) {
    /* The execution plan the interpreter exposes is subgraph 0's, not the
     * signature's: its counts are unknown. The byte counts are the last
     * Invoke's of each partition, and only the signature's subgraph (with
     * what it calls) ran. Whether the delegate was refused is known to the
     * caller (a signature runner has no Invoke-time fallback). */
    info->partitions = -1;
    info->nodes_delegated = -1;
    info->nodes_total = -1;
    info->dispatches_per_invoke = -1;
    info->bytes_uploaded = st.bytes_uploaded;
    info->bytes_downloaded = st.bytes_downloaded;
    return true;
  }
  int plan_size = 0;
  litegpu_op_profile* plan = plan_entries(g->ip, &plan_size);
  if (plan == NULL) return false;
  int kernels = 0;
  for (int i = 0; i < plan_size; ++i) kernels += is_delegate_kernel(&plan[i]);
  free(plan);
  /* No kernel left in the plan although the delegate kept partitions: the
   * runtime removed it (fallback), and the CPU runs everything. */
  info->fell_back = kernels == 0 && st.partitions > 0;
  info->partitions = kernels;
  /* The delegate's stats sum its programs over every subgraph; the nodes
   * of subgraph 0 it took are its claimed decisions (the main graph is the
   * last it was applied to). */
  info->nodes_delegated = kernels > 0 ? claimed_nodes(d) : 0;
  info->nodes_total = plan_size - kernels + info->nodes_delegated;
  info->dispatches_per_invoke = kernels > 0 ? st.dispatches_per_invoke : 0;
  info->bytes_uploaded = kernels > 0 ? st.bytes_uploaded : 0;
  info->bytes_downloaded = kernels > 0 ? st.bytes_downloaded : 0;
  return true;
}

/* The op name of model node `node` while it is still in the plan. */
static const char* node_op_name(TfLiteInterpreter* ip, int node, char* buf,
                                size_t size) {
  int count = 0;
  litegpu_op_profile* plan = plan_entries(ip, &count);
  snprintf(buf, size, "?");
  for (int i = 0; plan != NULL && i < count; ++i) {
    if (plan[i].node_index == node && !is_delegate_kernel(&plan[i])) {
      snprintf(buf, size, "%s", plan[i].op_name ? plan[i].op_name : "?");
    }
  }
  free(plan);
  return buf;
}

bool lg_bench_fully_delegated(const TfLiteDelegate* d, TfLiteInterpreter* ip,
                              const lg_bench_delegate_info* info, char* why,
                              size_t why_size) {
  if (info->fell_back) {
    snprintf(why, why_size,
             "the runtime removed the GPU delegate (its messages are above)");
    return false;
  }
  for (int node = 0; node < litegpu_gpu_delegate_num_nodes(d); ++node) {
    const char* reason = litegpu_gpu_delegate_node_reason(d, node);
    if (reason == NULL || reason[0] == '\0') continue; /* none, or claimed */
    char op[64];
    snprintf(why, why_size, "node %d (%s) was not delegated: %s", node,
             node_op_name(ip, node, op, sizeof(op)), reason);
    return false;
  }
  if (info->nodes_delegated != info->nodes_total) {
    snprintf(why, why_size, "%d of the %d nodes were delegated",
             info->nodes_delegated, info->nodes_total);
    return false;
  }
  return true;
}

static int compare_dispatches(const void* a, const void* b) {
  const litegpu_gpu_dispatch_profile *x = a, *y = b;
  if (x->total_ns != y->total_ns) return x->total_ns < y->total_ns ? 1 : -1;
  if (x->partition != y->partition) return x->partition - y->partition;
  return x->node_index - y->node_index;
}

static int compare_kernels(const void* a, const void* b) {
  const lg_op_group *x = a, *y = b;
  if (x->total_ns != y->total_ns) return x->total_ns < y->total_ns ? 1 : -1;
  return strcmp(x->op, y->op);
}

/* Groups the (sorted) dispatches by kernel name. */
static void group_kernels(lg_gpu_profile* out) {
  for (int i = 0; i < out->num_dispatches; ++i) {
    const litegpu_gpu_dispatch_profile* d = &out->dispatches[i];
    out->total_ns += d->total_ns;
    int g = 0;
    while (g < out->num_kernels && strcmp(out->kernels[g].op, d->kernel) != 0) {
      ++g;
    }
    if (g == out->num_kernels) out->kernels[out->num_kernels++].op = d->kernel;
    out->kernels[g].nodes += 1;
    out->kernels[g].total_ns += d->total_ns;
  }
  qsort(out->kernels, (size_t)out->num_kernels, sizeof(*out->kernels),
        compare_kernels);
}

bool lg_bench_gpu_profile(TfLiteDelegate* d, lg_bench_graph* g, uint64_t runs,
                          lg_gpu_profile* out) {
  memset(out, 0, sizeof(*out));
  if (litegpu_gpu_delegate_enable_profiling(d, true) != kTfLiteOk) {
    fprintf(stderr, "benchmark_model: cannot profile the GPU delegate\n");
    return false;
  }
  bool ok = true;
  for (uint64_t r = 0; r < runs && ok; ++r) {
    ok = lg_bench_graph_invoke(g) == kTfLiteOk;
  }
  const int n = litegpu_gpu_delegate_dispatch_profile(d, NULL, 0);
  out->dispatches =
      calloc((size_t)(n > 0 ? n : 0) + 1, sizeof(*out->dispatches));
  out->kernels = calloc((size_t)(n > 0 ? n : 0) + 1, sizeof(*out->kernels));
  if (ok && n >= 0 && out->dispatches != NULL && out->kernels != NULL) {
    out->num_dispatches =
        litegpu_gpu_delegate_dispatch_profile(d, out->dispatches, n);
    out->runs = runs;
    qsort(out->dispatches, (size_t)out->num_dispatches,
          sizeof(*out->dispatches), compare_dispatches);
    group_kernels(out);
  } else {
    fprintf(stderr, "benchmark_model: the GPU dispatch profile failed (%s)\n",
            ok ? "out of memory" : "an Invoke failed");
    ok = false;
  }
  litegpu_gpu_delegate_enable_profiling(d, false);
  return ok;
}

void lg_bench_gpu_profile_free(lg_gpu_profile* p) {
  free(p->dispatches);
  free(p->kernels);
  memset(p, 0, sizeof(*p));
}

void lg_bench_instance_destroy(lg_bench_instance* in) {
  lg_bench_graph_close(&in->graph); /* a runner goes before its interpreter */
  TfLiteInterpreterDelete(in->ip);
  TfLiteInterpreterOptionsDelete(in->options);
  if (in->service) {
    litegpu_service_delegate_delete(in->delegate);
  } else {
    TfLiteGpuDelegateV2Delete(in->delegate);
  }
  memset(in, 0, sizeof(*in));
}
