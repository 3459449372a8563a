/* The delegates the suite runs (conformance.h, conf_adapter): the GPU
 * delegate (litegpu/gpu_delegate.h) and the reference delegate
 * (litegpu/reference_delegate.h). Each adapter only forwards to the
 * delegate's own report API; adding a delegate is adding one adapter. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/gpu/op_support.h"
#include "litegpu/gpu_delegate.h"
#include "litegpu/reference_delegate.h"
#include "runtime/kernels/kernels.h"
#include "tests/conformance/conformance.h"

/* ---- GPU delegate -------------------------------------------------------- */

static TfLiteDelegate* gpu_create(const conf_delegate_options* options,
                                  char* error, size_t error_size) {
  if (options->fault != 0) {
    snprintf(error, error_size, "--fault is for the reference delegate");
    return NULL;
  }
  litegpu_gpu_delegate_options o = litegpu_gpu_delegate_options_default();
  o.backend = (litegpu_gpu_backend)options->backend;
  if (options->fp16) o.tflite.is_precision_loss_allowed = 1;
  return litegpu_gpu_delegate_create(&o, error, error_size);
}

static void gpu_destroy(TfLiteDelegate* delegate) {
  TfLiteGpuDelegateV2Delete(delegate);
}

static const char* gpu_node_reason(const TfLiteDelegate* delegate, int node) {
  return litegpu_gpu_delegate_node_reason(delegate, node);
}

static int gpu_num_nodes(const TfLiteDelegate* delegate) {
  return litegpu_gpu_delegate_num_nodes(delegate);
}

static bool gpu_claimed(const TfLiteDelegate* delegate) {
  return litegpu_gpu_delegate_num_partitions(delegate) > 0;
}

static int gpu_max_version(int32_t builtin_code) {
  const lg_kit_op* op = lg_gpu_op_find(builtin_code, NULL);
  return op == NULL ? 0 : op->max_version;
}

static bool gpu_fp16(const TfLiteDelegate* delegate) {
  litegpu_gpu_delegate_stats stats;
  memset(&stats, 0, sizeof(stats));
  return litegpu_gpu_delegate_get_stats(delegate, &stats) == kTfLiteOk &&
         stats.fp16 != 0;
}

static const conf_adapter kGpuAdapter = {
    .name = "gpu",
    .create = gpu_create,
    .destroy = gpu_destroy,
    .node_reason = gpu_node_reason,
    .num_nodes = gpu_num_nodes,
    .claimed = gpu_claimed,
    .max_version = gpu_max_version,
    .fp16 = gpu_fp16,
};

/* ---- Reference delegate -------------------------------------------------- */

/* It claims every builtin up to the highest version litegpu's kernels run,
 * so an op version above its kMaxVersion could not run on the CPU either.
 * The adapter therefore caps ADD one below the kernels' highest version: the
 * version case then writes a version the CPU runs and the delegate must
 * refuse. No other case writes that version. */

static int ref_kernel_max_version(int32_t builtin_code) {
  int lo = 0, hi = 0;
  lg_builtin_kernel_find(builtin_code, INT_MAX, &lo, &hi);
  return hi;
}

static TfLiteDelegate* ref_create(const conf_delegate_options* options,
                                  char* error, size_t error_size) {
  const litegpu_reference_op_limit cap = {
      kTfLiteBuiltinAdd, ref_kernel_max_version(kTfLiteBuiltinAdd) - 1};
  litegpu_reference_delegate_options o =
      litegpu_reference_delegate_options_default();
  o.op_limits = &cap;
  o.num_op_limits = 1;
  o.fault = (litegpu_reference_fault)options->fault;
  TfLiteDelegate* d = litegpu_reference_delegate_create(&o);
  if (d == NULL) snprintf(error, error_size, "reference delegate: no memory");
  return d;
}

static void ref_destroy(TfLiteDelegate* delegate) {
  litegpu_reference_delegate_delete(delegate);
}

static const char* ref_node_reason(const TfLiteDelegate* delegate, int node) {
  const int count = litegpu_reference_delegate_decisions(delegate, NULL, 0);
  if (count <= 0) return NULL;
  litegpu_delegate_decision* all = calloc((size_t)count, sizeof(*all));
  if (all == NULL) return NULL;
  litegpu_reference_delegate_decisions(delegate, all, count);
  const char* reason = NULL;
  for (int i = 0; i < count; ++i) {
    if (all[i].node_index == node) reason = all[i].reason;
  }
  free(all);
  return reason;
}

static int ref_num_nodes(const TfLiteDelegate* delegate) {
  const int count = litegpu_reference_delegate_decisions(delegate, NULL, 0);
  if (count <= 0) return 0;
  litegpu_delegate_decision* all = calloc((size_t)count, sizeof(*all));
  if (all == NULL) return 0;
  litegpu_reference_delegate_decisions(delegate, all, count);
  int bound = 0;
  for (int i = 0; i < count; ++i) {
    if (all[i].node_index >= bound) bound = all[i].node_index + 1;
  }
  free(all);
  return bound;
}

static bool ref_claimed(const TfLiteDelegate* delegate) {
  return litegpu_reference_delegate_num_partitions(delegate) > 0;
}

static int ref_max_version(int32_t builtin_code) {
  const int hi = ref_kernel_max_version(builtin_code);
  return builtin_code == kTfLiteBuiltinAdd ? hi - 1 : hi;
}

static bool ref_fp16(const TfLiteDelegate* delegate) {
  (void)delegate;
  return false;
}

static const conf_adapter kReferenceAdapter = {
    .name = "reference",
    .create = ref_create,
    .destroy = ref_destroy,
    .node_reason = ref_node_reason,
    .num_nodes = ref_num_nodes,
    .claimed = ref_claimed,
    .max_version = ref_max_version,
    .fp16 = ref_fp16,
};

const conf_adapter* conf_adapter_find(const char* name) {
  if (strcmp(name, "gpu") == 0) return &kGpuAdapter;
  if (strcmp(name, "reference") == 0) return &kReferenceAdapter;
  return NULL;
}
