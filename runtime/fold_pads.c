/* PAD folding (see fold_pads.h).
 *
 * MediaPipe's models pad explicitly ("PAD [[0,0],[1,1],[1,1],[0,0]]") in
 * front of convolutions with VALID padding, with stride 1 (SAME padding)
 * and stride 2 (where SAME would pad 0 before). The convolution kernels
 * apply padding for free by skipping the taps outside the input, from the
 * geometry's pad_top / pad_left and output size (lg_nn_window_padding), so
 * the PAD's pass over memory and its output buffer can go.
 *
 * Whether a fold is possible depends on the input's H and W, which a resize
 * may change, so the candidates are found once (from what the model fixes)
 * and the fold itself is decided on every AllocateTensors, after the PAD's
 * own Prepare gave its output the current shape. Every plan starts
 * unfolded, and the graph a delegate sees is unfolded: the rewrite stays
 * inside litegpu's CPU plan (a delegate's kernels never see the padding).
 *
 * Exact: a tap in the zero padding adds 0 * w (float) or (zero_point -
 * zero_point) * w (int8), a skipped tap adds nothing, and the windows are
 * the same. Windows wholly in the padding are never folded (TFLite's own
 * SAME padding never makes one), so kernels meet no new case. */
#include "runtime/fold_pads.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/fuse_activations.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/nn.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

#define LG_PAD_FOLD_MAX_CONSUMERS 4
/* Paddings beyond this are left alone (no convolution window is so big,
 * and in + before + after stays far from INT_MAX). */
#define LG_PAD_FOLD_MAX_PADDING 4096

struct lg_pad_fold {
  int pad_node;
  int input, output;
  int top, bottom, left, right;
  int consumers[LG_PAD_FOLD_MAX_CONSUMERS];
  int num_consumers;
  bool folded;
};

static const TfLiteTensor* tensor_at(const lg_subgraph* s, int index) {
  if (index < 0 || (size_t)index >= s->context.tensors_size) return NULL;
  return &s->context.tensors[index];
}

static bool is_pad_op(const lg_node* node) {
  const int32_t code = node->registration.builtin_code;
  return code == kTfLiteBuiltinPad || code == kTfLiteBuiltinPadv2;
}

static bool same_quantization(const TfLiteTensor* a, const TfLiteTensor* b) {
  return a->params.scale == b->params.scale &&
         a->params.zero_point == b->params.zero_point;
}

/* Element i of an INT32 or INT64 constant. */
static int64_t int_at(const TfLiteTensor* t, int i) {
  return t->type == kTfLiteInt32 ? t->data.i32[i] : t->data.i64[i];
}

/* Reads the H and W paddings of a constant [4, 2] paddings tensor that pads
 * nothing else; false otherwise. */
static bool read_paddings(const TfLiteTensor* p, struct lg_pad_fold* fold) {
  if (p == NULL || !lg_kernel_is_constant(p) || p->data.raw == NULL ||
      (p->type != kTfLiteInt32 && p->type != kTfLiteInt64) || p->dims == NULL ||
      p->dims->size != 2 || p->dims->data[0] != 4 || p->dims->data[1] != 2) {
    return false;
  }
  int64_t v[8];
  for (int i = 0; i < 8; ++i) {
    v[i] = int_at(p, i);
    if (v[i] < 0 || v[i] > LG_PAD_FOLD_MAX_PADDING) return false;
  }
  if (v[0] != 0 || v[1] != 0 || v[6] != 0 || v[7] != 0) return false;
  fold->top = (int)v[2];
  fold->bottom = (int)v[3];
  fold->left = (int)v[4];
  fold->right = (int)v[5];
  return true;
}

/* Whether the pad value is the zero the convolutions' SAME padding
 * stands for: +0.0f for float (no -0.0), the zero point for int8. */
static bool pads_with_zero(const lg_subgraph* s, const TfLiteNode* pad,
                           const TfLiteTensor* out) {
  if (pad->inputs->size < 3 || pad->inputs->data[2] < 0) return true;
  const TfLiteTensor* value = tensor_at(s, pad->inputs->data[2]);
  if (value == NULL || !lg_kernel_is_constant(value) ||
      value->data.raw == NULL || value->type != out->type ||
      value->bytes != (out->type == kTfLiteFloat32 ? 4u : 1u)) {
    return false;
  }
  if (out->type == kTfLiteInt8) {
    return value->data.int8[0] == out->params.zero_point;
  }
  uint32_t bits;
  memcpy(&bits, value->data.raw, sizeof(bits));
  return bits == 0;
}

static TfLitePadding* padding_field(lg_node* node) {
  void* p = node->node.builtin_data;
  if (p == NULL) return NULL;
  switch (node->registration.builtin_code) {
    case kTfLiteBuiltinConv2d:
      return &((TfLiteConvParams*)p)->padding;
    case kTfLiteBuiltinDepthwiseConv2d:
      return &((TfLiteDepthwiseConvParams*)p)->padding;
    default:
      return NULL;
  }
}

/* Whether `node` reads `tensor` as its data input only, and is a litegpu
 * convolution with VALID padding. */
static bool is_valid_conv_reading(lg_node* node, int tensor) {
  const TfLitePadding* padding = padding_field(node);
  if (padding == NULL || *padding != kTfLitePaddingValid ||
      !lg_node_runs_builtin_kernel(node)) {
    return false;
  }
  const TfLiteIntArray* in = node->node.inputs;
  if (in == NULL || in->size < 2 || in->data[0] != tensor) return false;
  for (int i = 1; i < in->size; ++i) {
    if (in->data[i] == tensor) return false;
  }
  return true;
}

static bool lists(const TfLiteIntArray* list, int tensor) {
  for (int i = 0; list != NULL && i < list->size; ++i) {
    if (list->data[i] == tensor) return true;
  }
  return false;
}

/* Fills fold->consumers with the plan's readers of fold->output; false
 * unless they are all VALID convolutions reading it as data and account
 * for all its `reads`. */
static bool find_consumers(lg_subgraph* s, struct lg_pad_fold* fold,
                           int reads) {
  for (int p = 0; p < s->execution_plan->size; ++p) {
    const int index = s->execution_plan->data[p];
    lg_node* node = &s->nodes[index];
    if (!lists(node->node.inputs, fold->output) &&
        !lists(node->node.intermediates, fold->output)) {
      continue;
    }
    if (!is_valid_conv_reading(node, fold->output) ||
        lists(node->node.intermediates, fold->output) ||
        fold->num_consumers == LG_PAD_FOLD_MAX_CONSUMERS) {
      return false;
    }
    fold->consumers[fold->num_consumers++] = index;
  }
  return fold->num_consumers > 0 && fold->num_consumers == reads;
}

/* Fills *fold for the PAD node `index` when it is a candidate. */
static bool describe_candidate(lg_subgraph* s, int index, const int* reads,
                               struct lg_pad_fold* fold) {
  lg_node* node = &s->nodes[index];
  const TfLiteNode* n = &node->node;
  if (!is_pad_op(node) || !lg_node_runs_builtin_kernel(node) ||
      n->inputs == NULL || n->inputs->size < 2 || n->outputs == NULL ||
      n->outputs->size != 1) {
    return false;
  }
  memset(fold, 0, sizeof(*fold));
  fold->pad_node = index;
  fold->input = n->inputs->data[0];
  fold->output = n->outputs->data[0];
  const TfLiteTensor* in = tensor_at(s, fold->input);
  const TfLiteTensor* out = tensor_at(s, fold->output);
  if (in == NULL || out == NULL || in->type != out->type ||
      (in->type != kTfLiteFloat32 && in->type != kTfLiteInt8) ||
      out->is_variable || in->dims == NULL || in->dims->size != 4 ||
      (in->type == kTfLiteInt8 && !same_quantization(in, out))) {
    return false;
  }
  return read_paddings(tensor_at(s, n->inputs->data[1]), fold) &&
         pads_with_zero(s, n, out) &&
         find_consumers(s, fold, reads[fold->output]);
}

TfLiteStatus lg_subgraph_find_pad_folds(lg_subgraph* s) {
  int* reads = lg_subgraph_count_reads(s);
  if (reads == NULL) return kTfLiteError;
  for (int p = 0; p < s->execution_plan->size; ++p) {
    struct lg_pad_fold fold;
    if (!describe_candidate(s, s->execution_plan->data[p], reads, &fold)) {
      continue;
    }
    struct lg_pad_fold* grown =
        realloc(s->pad_folds, sizeof(fold) * (size_t)(s->num_pad_folds + 1));
    if (grown == NULL) {
      free(reads);
      return kTfLiteError;
    }
    s->pad_folds = grown;
    s->pad_folds[s->num_pad_folds++] = fold;
  }
  free(reads);
  return kTfLiteOk;
}

static void set_consumers(lg_subgraph* s, const struct lg_pad_fold* fold,
                          int input) {
  for (int c = 0; c < fold->num_consumers; ++c) {
    s->nodes[fold->consumers[c]].node.inputs->data[0] = input;
  }
}

void lg_subgraph_unfold_pads(lg_subgraph* s) {
  bool changed = false;
  for (int f = 0; f < s->num_pad_folds; ++f) {
    struct lg_pad_fold* fold = &s->pad_folds[f];
    if (!fold->folded) continue;
    set_consumers(s, fold, fold->output);
    fold->folded = false;
    changed = true;
  }
  if (s->unfolded_plan != NULL) {
    TfLiteIntArrayFree(s->execution_plan);
    s->execution_plan = s->unfolded_plan;
    s->unfolded_plan = NULL;
    changed = true;
  }
  if (changed) s->state = LG_STATE_UNPREPARED;
}

/* Whether padding `before` and `after` an extent `in`, then a VALID window,
 * gives the windows SAME padding gives. */
static bool is_same_padding(int in, int before, int after, int filter,
                            int stride, int dilation) {
  const int out =
      lg_nn_out_size(kTfLitePaddingSame, in, filter, stride, dilation);
  if (out < 1) return false;
  return before == lg_nn_pad_before(in, filter, stride, dilation, out) &&
         out == lg_nn_out_size(kTfLitePaddingValid, in + before + after, filter,
                               stride, dilation);
}

/* Whether the kernels can take this padding along one dim as explicit
 * padding: at least one output, and every window holds an input element,
 * as under SAME (a padding like SAME's, or an undilated window longer than
 * either padding). */
static bool kernels_take_padding(int in, int before, int after, int filter,
                                 int stride, int dilation) {
  if (in < 1 || lg_nn_out_size(kTfLitePaddingValid, in + before + after, filter,
                               stride, dilation) < 1) {
    return false;
  }
  return is_same_padding(in, before, after, filter, stride, dilation) ||
         (dilation == 1 && before < filter && after < filter);
}

static bool consumer_takes_padding(const lg_subgraph* s,
                                   const struct lg_pad_fold* fold,
                                   const lg_node* node,
                                   const TfLiteTensor* in) {
  const TfLiteTensor* filter = tensor_at(s, node->node.inputs->data[1]);
  if (filter == NULL || filter->dims == NULL || filter->dims->size != 4) {
    return false;
  }
  int stride_h, stride_w, dilation_h, dilation_w;
  if (node->registration.builtin_code == kTfLiteBuiltinConv2d) {
    const TfLiteConvParams* p = node->node.builtin_data;
    stride_h = p->stride_height;
    stride_w = p->stride_width;
    dilation_h = p->dilation_height_factor;
    dilation_w = p->dilation_width_factor;
  } else {
    const TfLiteDepthwiseConvParams* p = node->node.builtin_data;
    stride_h = p->stride_height;
    stride_w = p->stride_width;
    dilation_h = p->dilation_height_factor;
    dilation_w = p->dilation_width_factor;
  }
  return kernels_take_padding(in->dims->data[1], fold->top, fold->bottom,
                              filter->dims->data[1], stride_h, dilation_h) &&
         kernels_take_padding(in->dims->data[2], fold->left, fold->right,
                              filter->dims->data[2], stride_w, dilation_w);
}

/* Whether node `index` sits in the plan after position `after`. */
static bool planned_after(const lg_subgraph* s, int index, int after) {
  for (int p = after + 1; p < s->execution_plan->size; ++p) {
    if (s->execution_plan->data[p] == index) return true;
  }
  return false;
}

static bool can_fold(const lg_subgraph* s, const struct lg_pad_fold* fold,
                     int plan_index) {
  const TfLiteTensor* in = tensor_at(s, fold->input);
  if (in->dims == NULL || in->dims->size != 4) return false;
  for (int c = 0; c < fold->num_consumers; ++c) {
    const lg_node* node = &s->nodes[fold->consumers[c]];
    if (!planned_after(s, fold->consumers[c], plan_index) ||
        !consumer_takes_padding(s, fold, node, in)) {
      return false;
    }
  }
  return true;
}

bool lg_subgraph_fold_pad_at(lg_subgraph* s, int plan_index) {
  const int index = s->execution_plan->data[plan_index];
  struct lg_pad_fold* fold = NULL;
  for (int f = 0; f < s->num_pad_folds && fold == NULL; ++f) {
    if (s->pad_folds[f].pad_node == index) fold = &s->pad_folds[f];
  }
  if (fold == NULL || fold->folded || !can_fold(s, fold, plan_index)) {
    return false;
  }
  if (s->unfolded_plan == NULL) {
    s->unfolded_plan = TfLiteIntArrayCopy(s->execution_plan);
    if (s->unfolded_plan == NULL) return false;
  }
  set_consumers(s, fold, fold->input);
  fold->folded = true;
  TfLiteIntArray* plan = s->execution_plan;
  memmove(&plan->data[plan_index], &plan->data[plan_index + 1],
          sizeof(int) * (size_t)(plan->size - plan_index - 1));
  --plan->size;
  return true;
}

bool lg_subgraph_folded_padding(const void* owner, const TfLiteNode* node,
                                int pads[4]) {
  const lg_subgraph* s = owner;
  /* The kernels see &lg_node.node, its first member. */
  const uintptr_t at = (uintptr_t)(const lg_node*)node;
  const uintptr_t first = (uintptr_t)s->nodes;
  if (s->nodes == NULL || at < first ||
      at >= first + sizeof(lg_node) * (size_t)s->num_nodes ||
      (at - first) % sizeof(lg_node) != 0) {
    return false;
  }
  const int index = (int)((at - first) / sizeof(lg_node));
  for (int f = 0; f < s->num_pad_folds; ++f) {
    const struct lg_pad_fold* fold = &s->pad_folds[f];
    for (int c = 0; fold->folded && c < fold->num_consumers; ++c) {
      if (fold->consumers[c] != index) continue;
      pads[0] = fold->top;
      pads[1] = fold->bottom;
      pads[2] = fold->left;
      pads[3] = fold->right;
      return true;
    }
  }
  return false;
}

void lg_subgraph_release_pad_folds(lg_subgraph* s) {
  free(s->pad_folds);
  s->pad_folds = NULL;
  s->num_pad_folds = 0;
  TfLiteIntArrayFree(s->unfolded_plan);
  s->unfolded_plan = NULL;
}
