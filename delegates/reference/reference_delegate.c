/* The reference delegate (include/litegpu/reference_delegate.h): the
 * delegate kit with an ops table of litegpu's CPU kernels, and a partition
 * kernel that runs a private copy of its nodes (ref_graph). */
#include "litegpu/reference_delegate.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/reference/ref_graph.h"
#include "partition/delegate_kit.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/mediapipe_ops.h"
#include "tensorflow/lite/builtin_ops.h"

#define LG_REFERENCE_NAME "LiteGpuReferenceDelegate"
/* Builtin codes 0..LG_MAX_BUILTIN are searched for kernels. */
#define LG_MAX_BUILTIN 209

typedef struct reference_delegate {
  TfLiteDelegate base; /* first: the TfLiteDelegate* converts back */
  litegpu_reference_delegate_options options;
  lg_kit_op* ops;
  lg_delegate_kit kit;
  /* Decisions of the last application, in the public form. */
  litegpu_delegate_decision* decisions;
} reference_delegate;

static reference_delegate* from_base(const TfLiteDelegate* d) {
  return (reference_delegate*)d;
}

/* ---- Partition kernel -------------------------------------------------------
 */

static void* kernel_init(TfLiteContext* context, const char* buffer,
                         size_t length) {
  (void)length;
  const TfLiteDelegateParams* params = (const TfLiteDelegateParams*)buffer;
  const reference_delegate* rd = from_base(params->delegate);
  if (rd->options.fault == LITEGPU_REFERENCE_FAULT_KERNEL_INIT) {
    context->ReportError(context, "reference delegate: injected Init fault");
    return NULL;
  }
  return ref_graph_create(context, params);
}

static void kernel_free(TfLiteContext* context, void* data) {
  (void)context;
  ref_graph_destroy(data);
}

static TfLiteStatus kernel_prepare(TfLiteContext* context, TfLiteNode* node) {
  const reference_delegate* rd = from_base(node->delegate);
  if (node->user_data == NULL) {
    context->ReportError(context,
                         "reference delegate: the partition kernel "
                         "has no state (Init failed)");
    return kTfLiteError;
  }
  if (rd->options.fault == LITEGPU_REFERENCE_FAULT_KERNEL_PREPARE) {
    context->ReportError(context,
                         "reference delegate: injected Prepare "
                         "fault");
    return kTfLiteError;
  }
  return ref_graph_prepare(node->user_data);
}

static TfLiteStatus kernel_invoke(TfLiteContext* context, TfLiteNode* node) {
  const reference_delegate* rd = from_base(node->delegate);
  if (rd->options.fault == LITEGPU_REFERENCE_FAULT_KERNEL_INVOKE) {
    context->ReportError(context,
                         "reference delegate: injected Invoke "
                         "fault");
    return kTfLiteError;
  }
  return ref_graph_invoke(node->user_data);
}

/* ---- The delegate ----------------------------------------------------------
 */

static TfLiteStatus export_decisions(reference_delegate* rd) {
  free(rd->decisions);
  rd->decisions =
      calloc((size_t)(rd->kit.num_decisions + 1), sizeof(*rd->decisions));
  if (rd->decisions == NULL) return kTfLiteError;
  for (int i = 0; i < rd->kit.num_decisions; ++i) {
    const lg_kit_decision* d = &rd->kit.decisions[i];
    rd->decisions[i] = (litegpu_delegate_decision){
        d->node_index, d->op_name, d->version, d->claimed, d->reason};
  }
  return kTfLiteOk;
}

static TfLiteStatus delegate_prepare(TfLiteContext* context,
                                     TfLiteDelegate* delegate) {
  reference_delegate* rd = from_base(delegate);
  if (rd->options.fault == LITEGPU_REFERENCE_FAULT_PREPARE) {
    context->ReportError(context,
                         "reference delegate: injected delegate "
                         "Prepare fault");
    return kTfLiteError;
  }
  TfLiteStatus status = lg_delegate_kit_prepare(&rd->kit, context, delegate);
  if (export_decisions(rd) != kTfLiteOk) return kTfLiteError;
  return status;
}

static int limit_of(const litegpu_reference_delegate_options* o, int32_t code,
                    int kernel_max) {
  for (int i = 0; i < o->num_op_limits; ++i) {
    if (o->op_limits[i].builtin_code == code)
      return o->op_limits[i].max_version;
  }
  return kernel_max;
}

static bool allowed(const litegpu_reference_delegate_options* o, int32_t code) {
  if (o->supported_ops == NULL) return true;
  for (int i = 0; i < o->num_supported_ops; ++i) {
    if (o->supported_ops[i] == code) return true;
  }
  return false;
}

/* A custom op runs when the interpreter resolved it (litegpu's MediaPipe
 * kernels, registered by litegpu_add_mediapipe_ops): its registration, not
 * an unresolved placeholder, is what the partition runs. */
static bool has_custom_kernel(TfLiteContext* context, const TfLiteNode* node,
                              const TfLiteRegistration* registration,
                              char* reason, size_t size) {
  (void)context;
  (void)node;
  if (registration->prepare != NULL || registration->init != NULL ||
      registration->registration_external != NULL) {
    return true;
  }
  snprintf(reason, size, "no kernel is registered for the custom op.");
  return false;
}

static const char* const kCustomOps[] = {LG_MEDIAPIPE_TRANSPOSE_CONV_BIAS,
                                         LG_MEDIAPIPE_MAX_POOL_ARGMAX,
                                         LG_MEDIAPIPE_MAX_UNPOOL};
#define NUM_CUSTOM_OPS ((int)(sizeof(kCustomOps) / sizeof(kCustomOps[0])))

/* Control flow and resource variables (the manifest's "control" family)
 * call into the interpreter's subgraphs and resources, which a partition's
 * private graph does not have: they stay with the interpreter. */
static bool runs_subgraphs(int32_t code) {
  const lg_op_info* info = lg_op_find(code, NULL);
  return info != NULL && strcmp(info->family, "control") == 0;
}

/* Every builtin with a litegpu kernel (and allowed by the options), at the
 * highest version its kernel accepts unless limited, and MediaPipe's
 * custom ops (version 1) where the options allow kTfLiteBuiltinCustom. */
static TfLiteStatus build_ops(reference_delegate* rd) {
  rd->ops = calloc(LG_MAX_BUILTIN + 1 + NUM_CUSTOM_OPS, sizeof(lg_kit_op));
  if (rd->ops == NULL) return kTfLiteError;
  int count = 0;
  for (int32_t code = 0; code <= LG_MAX_BUILTIN; ++code) {
    int lo = 0, hi = 0;
    if (code == kTfLiteBuiltinCustom || code == kTfLiteBuiltinDelegate ||
        !allowed(&rd->options, code)) {
      continue;
    }
    lg_builtin_kernel_find(code, INT_MAX, &lo, &hi);
    if (hi == 0 || runs_subgraphs(code)) continue;
    rd->ops[count++] =
        (lg_kit_op){code, NULL, limit_of(&rd->options, code, hi), NULL};
  }
  for (int i = 0; i < NUM_CUSTOM_OPS; ++i) {
    if (!allowed(&rd->options, kTfLiteBuiltinCustom)) break;
    rd->ops[count++] =
        (lg_kit_op){kTfLiteBuiltinCustom, kCustomOps[i], 1, has_custom_kernel};
  }
  rd->kit.ops = rd->ops;
  rd->kit.num_ops = count;
  return kTfLiteOk;
}

litegpu_reference_delegate_options litegpu_reference_delegate_options_default(
    void) {
  litegpu_reference_delegate_options o;
  memset(&o, 0, sizeof(o));
  return o;
}

static void* copy_array(const void* src, int count, size_t size) {
  if (src == NULL || count <= 0) return NULL;
  void* dst = malloc(size * (size_t)count);
  if (dst != NULL) memcpy(dst, src, size * (size_t)count);
  return dst;
}

TfLiteDelegate* litegpu_reference_delegate_create(
    const litegpu_reference_delegate_options* options) {
  reference_delegate* rd = calloc(1, sizeof(*rd));
  if (rd == NULL) return NULL;
  rd->options =
      options ? *options : litegpu_reference_delegate_options_default();
  rd->options.supported_ops =
      copy_array(rd->options.supported_ops, rd->options.num_supported_ops,
                 sizeof(int32_t));
  rd->options.op_limits =
      copy_array(rd->options.op_limits, rd->options.num_op_limits,
                 sizeof(litegpu_reference_op_limit));
  if (build_ops(rd) != kTfLiteOk) {
    litegpu_reference_delegate_delete(&rd->base);
    return NULL;
  }
  rd->base = TfLiteDelegateCreate();
  rd->base.data_ = rd;
  rd->base.Prepare = delegate_prepare;
  rd->base.flags = rd->options.flags;
  rd->kit.name = LG_REFERENCE_NAME;
  rd->kit.max_delegated_partitions = rd->options.max_delegated_partitions;
  rd->kit.min_nodes_per_partition = rd->options.min_nodes_per_partition;
  rd->kit.kernel.init = kernel_init;
  rd->kit.kernel.free = kernel_free;
  rd->kit.kernel.prepare = kernel_prepare;
  rd->kit.kernel.invoke = kernel_invoke;
  rd->kit.kernel.version = 1;
  return &rd->base;
}

void litegpu_reference_delegate_delete(TfLiteDelegate* delegate) {
  if (delegate == NULL) return;
  reference_delegate* rd = from_base(delegate);
  lg_delegate_kit_release(&rd->kit);
  free((void*)rd->options.supported_ops);
  free((void*)rd->options.op_limits);
  free(rd->ops);
  free(rd->decisions);
  free(rd);
}

int litegpu_reference_delegate_decisions(const TfLiteDelegate* delegate,
                                         litegpu_delegate_decision* decisions,
                                         int capacity) {
  if (delegate == NULL) return -1;
  const reference_delegate* rd = from_base(delegate);
  for (int i = 0; i < rd->kit.num_decisions && i < capacity; ++i) {
    decisions[i] = rd->decisions[i];
  }
  return rd->kit.num_decisions;
}

int litegpu_reference_delegate_num_partitions(const TfLiteDelegate* delegate) {
  return delegate == NULL ? -1 : from_base(delegate)->kit.num_partitions;
}

int litegpu_reference_delegate_partition_nodes(const TfLiteDelegate* delegate,
                                               int index, int* nodes,
                                               int capacity) {
  if (delegate == NULL) return -1;
  const lg_delegate_kit* kit = &from_base(delegate)->kit;
  if (index < 0 || index >= kit->num_partitions) return -1;
  const TfLiteIntArray* p = kit->partitions[index];
  for (int i = 0; i < p->size && i < capacity && nodes != NULL; ++i) {
    nodes[i] = p->data[i];
  }
  return p->size;
}
