/* benchmark_model --use_service=PATH [--service_burst]: the service
 * delegate (include/litegpu/service_delegate.h) in place of the GPU
 * delegate, and what it did, read from its partition count and the
 * interpreter's execution plan. */
#include <stdlib.h>
#include <string.h>

#include "litegpu/service_delegate.h"
#include "tools/benchmark/benchmark.h"

/* The custom_name of the service delegate's kernel nodes. */
#define SERVICE_KERNEL_NAME "LiteGpuServiceDelegate"

TfLiteDelegate* lg_bench_service_create(const lg_bench_params* p, bool burst,
                                        char* why, size_t why_size) {
  litegpu_service_delegate_options o =
      litegpu_service_delegate_options_default();
  o.socket_path = p->use_service;
  o.burst = burst;
  o.max_delegated_partitions = p->max_delegated_partitions;
  o.min_nodes_per_partition = p->min_nodes_per_partition;
  why[0] = '\0';
  TfLiteDelegate* d = litegpu_service_delegate_create(&o, why, why_size);
  if (d == NULL && why[0] == '\0') {
    snprintf(why, why_size, "the service delegate could not be created");
  }
  return d;
}

bool lg_bench_service_read(const TfLiteDelegate* d, const lg_bench_graph* g,
                           int nodes_before, bool burst,
                           lg_bench_delegate_info* info) {
  memset(info, 0, sizeof(*info));
  info->service = true;
  snprintf(info->backend, sizeof(info->backend), "%s",
           burst ? "service (burst)" : "service (per call)");
  const char* device = litegpu_service_delegate_device(d);
  snprintf(info->device, sizeof(info->device), "%s", device ? device : "?");
  if (!g->primary || nodes_before < 0) {
    info->partitions = info->nodes_delegated = info->nodes_total = -1;
    info->dispatches_per_invoke = -1;
    return true;
  }
  const int plan_size = litegpu_interpreter_op_profile(g->ip, NULL, 0);
  litegpu_op_profile* plan =
      calloc((size_t)(plan_size > 0 ? plan_size : 0) + 1, sizeof(*plan));
  if (plan_size < 0 || plan == NULL) {
    free(plan);
    return false;
  }
  litegpu_interpreter_op_profile(g->ip, plan, plan_size);
  int kernels = 0;
  for (int i = 0; i < plan_size; ++i) {
    kernels += plan[i].op_name != NULL &&
               strcmp(plan[i].op_name, SERVICE_KERNEL_NAME) == 0;
  }
  free(plan);
  /* No kernel left although the delegate kept partitions: the runtime
   * removed it (fallback). Every node not left in the plan was replaced. */
  info->fell_back =
      kernels == 0 && litegpu_service_delegate_num_partitions(d) > 0;
  info->partitions = kernels;
  info->nodes_total = nodes_before;
  info->nodes_delegated = nodes_before - (plan_size - kernels);
  info->dispatches_per_invoke = kernels; /* one request per partition */
  return true;
}
