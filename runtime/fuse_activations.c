/* Activation fusion, once, when a subgraph is built (see fuse_activations.h).
 *
 * A float RELU, RELU6 or RELU_N1_TO_1 whose input is the only use of a
 * float CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD, SUB, MUL, DIV,
 * AVERAGE_POOL_2D or MAX_POOL_2D output becomes that producer's fused
 * activation: the producer writes the RELU's output tensor and the RELU
 * leaves the execution plan, saving one pass over the tensor.
 *
 * The result is exact. Those producers clamp even without an activation to
 * [-FLT_MAX, FLT_MAX] (TFLite's float kernels do; NaN passes), so the RELU
 * family's separate clamp to [lo, +inf] or [lo, hi] and the fused clamp to
 * [lo, FLT_MAX] or [lo, hi] give the same value for every input.
 *
 * The rewritten graph is itself a valid TFLite graph, so delegates applied
 * afterwards (and the service, which serialises nodes from their params)
 * see fused nodes they already understand. Only litegpu's own kernels are
 * fused: a registration the user supplied for either op is left alone. */
#include "runtime/fuse_activations.h"

#include <stdbool.h>
#include <stdlib.h>

#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

/* The fused activation field of a producer's params, or NULL when the op
 * is not one fusion rewrites. */
static TfLiteFusedActivation* activation_field(lg_node* node) {
  void* p = node->node.builtin_data;
  if (p == NULL) return NULL;
  switch (node->registration.builtin_code) {
    case kTfLiteBuiltinConv2d:
      return &((TfLiteConvParams*)p)->activation;
    case kTfLiteBuiltinDepthwiseConv2d:
      return &((TfLiteDepthwiseConvParams*)p)->activation;
    case kTfLiteBuiltinFullyConnected:
      return &((TfLiteFullyConnectedParams*)p)->activation;
    case kTfLiteBuiltinAdd:
      return &((TfLiteAddParams*)p)->activation;
    case kTfLiteBuiltinSub:
      return &((TfLiteSubParams*)p)->activation;
    case kTfLiteBuiltinMul:
      return &((TfLiteMulParams*)p)->activation;
    case kTfLiteBuiltinDiv:
      return &((TfLiteDivParams*)p)->activation;
    case kTfLiteBuiltinAveragePool2d:
    case kTfLiteBuiltinMaxPool2d:
      return &((TfLitePoolParams*)p)->activation;
    default:
      return NULL;
  }
}

/* The fused activation equal to a standalone activation op, or
 * kTfLiteActNone when the op is not one. */
static TfLiteFusedActivation activation_of_op(int32_t builtin_code) {
  switch (builtin_code) {
    case kTfLiteBuiltinRelu:
      return kTfLiteActRelu;
    case kTfLiteBuiltinRelu6:
      return kTfLiteActRelu6;
    case kTfLiteBuiltinReluN1To1:
      return kTfLiteActReluN1To1;
    default:
      return kTfLiteActNone;
  }
}

bool lg_node_runs_builtin_kernel(const lg_node* node) {
  if (node->unresolved || node->is_delegate_kernel) return false;
  int lo = 0, hi = 0;
  const lg_builtin_kernel* k = lg_builtin_kernel_find(
      node->registration.builtin_code, node->registration.version, &lo, &hi);
  return k != NULL && k->registration()->invoke == node->registration.invoke;
}

static bool is_float_tensor(const lg_subgraph* s, int index) {
  return index >= 0 && (size_t)index < s->context.tensors_size &&
         s->context.tensors[index].type == kTfLiteFloat32 &&
         !s->context.tensors[index].is_variable;
}

static void count_list(int* uses, const TfLiteIntArray* list,
                       size_t num_tensors) {
  if (list == NULL) return;
  for (int i = 0; i < list->size; ++i) {
    int t = list->data[i];
    if (t >= 0 && (size_t)t < num_tensors) ++uses[t];
  }
}

int* lg_subgraph_count_reads(const lg_subgraph* s) {
  size_t n = s->context.tensors_size;
  int* uses = calloc(n > 0 ? n : 1, sizeof(int));
  if (uses == NULL) return NULL;
  for (int p = 0; p < s->execution_plan->size; ++p) {
    const TfLiteNode* node = &s->nodes[s->execution_plan->data[p]].node;
    count_list(uses, node->inputs, n);
    count_list(uses, node->intermediates, n);
  }
  for (int i = 0; i < s->num_outputs; ++i) {
    if (s->outputs[i] >= 0 && (size_t)s->outputs[i] < n) ++uses[s->outputs[i]];
  }
  return uses;
}

void lg_subgraph_index_producers(const lg_subgraph* s, int* producer) {
  for (size_t t = 0; t < s->context.tensors_size; ++t) producer[t] = -1;
  for (int p = 0; p < s->execution_plan->size; ++p) {
    const TfLiteNode* node = &s->nodes[s->execution_plan->data[p]].node;
    for (int o = 0; node->outputs != NULL && o < node->outputs->size; ++o) {
      int t = node->outputs->data[o];
      if (t >= 0 && (size_t)t < s->context.tensors_size) producer[t] = p;
    }
  }
}

/* Fuses the activation node at plan position `p` into its producer when
 * every condition holds; returns whether it did. `plan` is the plan as it
 * was before any fusion (positions index it). */
static bool fuse_one(lg_subgraph* s, const int* plan, int p, const int* uses,
                     const int* producer) {
  lg_node* act = &s->nodes[plan[p]];
  TfLiteFusedActivation fused =
      activation_of_op(act->registration.builtin_code);
  if (fused == kTfLiteActNone || !lg_node_runs_builtin_kernel(act))
    return false;
  const TfLiteNode* a = &act->node;
  if (a->inputs == NULL || a->inputs->size != 1 || a->outputs == NULL ||
      a->outputs->size != 1) {
    return false;
  }
  int mid = a->inputs->data[0];
  int out = a->outputs->data[0];
  if (!is_float_tensor(s, mid) || !is_float_tensor(s, out)) return false;
  if (uses[mid] != 1 || producer[mid] < 0 || producer[mid] >= p) return false;
  lg_node* prod = &s->nodes[plan[producer[mid]]];
  TfLiteFusedActivation* field = activation_field(prod);
  if (field == NULL || *field != kTfLiteActNone ||
      !lg_node_runs_builtin_kernel(prod))
    return false;
  TfLiteIntArray* outputs = prod->node.outputs;
  if (outputs == NULL || outputs->size != 1 || outputs->data[0] != mid) {
    return false;
  }
  *field = fused;
  outputs->data[0] = out;
  return true;
}

TfLiteStatus lg_subgraph_fuse_activations(lg_subgraph* s) {
  if (s->execution_plan == NULL || s->execution_plan->size < 2) {
    return kTfLiteOk;
  }
  int size = s->execution_plan->size;
  int* uses = lg_subgraph_count_reads(s);
  size_t n = s->context.tensors_size;
  int* producer = malloc(sizeof(int) * (n > 0 ? n : 1));
  int* plan = malloc(sizeof(int) * (size_t)size);
  if (uses == NULL || producer == NULL || plan == NULL) {
    free(uses);
    free(producer);
    free(plan);
    return kTfLiteError;
  }
  lg_subgraph_index_producers(s, producer);
  for (int p = 0; p < size; ++p) plan[p] = s->execution_plan->data[p];
  int kept = 0;
  for (int p = 0; p < size; ++p) {
    if (!fuse_one(s, plan, p, uses, producer)) {
      s->execution_plan->data[kept++] = plan[p];
    }
  }
  s->execution_plan->size = kept;
  free(uses);
  free(producer);
  free(plan);
  return kTfLiteOk;
}
