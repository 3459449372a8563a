/* GPU lowerings of the binary family (ops/ops.def): two operands with
 * broadcasting and fused activations (shaders/kernels/binary.lgk; the op
 * code LG_OP is the manifest row's), PRELU, FLOOR_DIV, FLOOR_MOD and ADD_N
 * of two inputs included; the comparisons and LOGICAL_AND into bool
 * tensors (compare.lgk) and SELECT / SELECT_V2 (select_v2.lgk). Semantics
 * are the CPU kernels' (runtime/kernels/binary.c, prelu.c,
 * floor_div_mod.c, add_n.c, comparison.c, logical.c, select.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/gpu/gpu_lower.h"
#include "ops/op_manifest.h"
#include "runtime/kernels/kernel_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

/* ---- Binary ----------------------------------------------------------------
 */

/* Whether `small`'s dims, after its leading 1s, equal `out`'s trailing
 * dims (or it has one element): then flat index modulo its size works. */
static bool flat_broadcast(const TfLiteTensor* small, const TfLiteTensor* out) {
  if (lg_gpu_elements(small) == 1) return true;
  const TfLiteIntArray* s = small->dims;
  const TfLiteIntArray* o = out->dims;
  int first = 0;
  while (first < s->size && s->data[first] == 1) ++first;
  const int count = s->size - first;
  if (count > o->size) return false;
  for (int i = 0; i < count; ++i) {
    if (s->data[first + i] != o->data[o->size - count + i]) return false;
  }
  return true;
}

/* Operand strides over the 4-D output (0 where broadcast). */
static void broadcast_strides(const TfLiteTensor* t, const int32_t out4[4],
                              int32_t strides[4]) {
  int32_t d[4];
  lg_gpu_shape4(t, d);
  int32_t stride = 1;
  for (int i = 3; i >= 0; --i) {
    strides[i] = (d[i] == 1 && out4[i] != 1) ? 0 : stride;
    stride *= d[i];
  }
}

bool lg_gpu_limits_binary(LG_GPU_CHECK_ARGS) {
  (void)registration;
  if (node->inputs->size != 2 || node->outputs->size != 1) {
    snprintf(reason, size, "expects 2 inputs and 1 output.");
    return false;
  }
  float lo, hi;
  const char* define;
  if (!lg_gpu_activation(lg_kernel_binary_activation(registration->builtin_code,
                                                     node->builtin_data),
                         &lo, &hi, &define)) {
    snprintf(reason, size, "the fused activation is not supported.");
    return false;
  }
  const TfLiteTensor* out = lg_gpu_node_tensor(context, node->outputs, 0);
  if (out->dims == NULL || out->dims->size > 4) {
    snprintf(reason, size, "outputs of rank above 4 are not supported.");
    return false;
  }
  return true;
}

TfLiteStatus lg_gpu_lower_binary(lg_gpu_program* p, TfLiteContext* context,
                                 const TfLiteNode* node,
                                 const TfLiteRegistration* reg) {
  const TfLiteTensor* a = lg_gpu_node_tensor(context, node->inputs, 0);
  const TfLiteTensor* b = lg_gpu_node_tensor(context, node->inputs, 1);
  const TfLiteTensor* out = lg_gpu_node_tensor(context, node->outputs, 0);
  const int n = (int)lg_gpu_elements(out);
  float lo, hi;
  const char* act;
  lg_gpu_activation(
      lg_kernel_binary_activation(reg->builtin_code, node->builtin_data), &lo,
      &hi, &act);
  int32_t o4[4], sa[4], sb[4];
  lg_gpu_shape4(out, o4);
  broadcast_strides(a, o4, sa);
  broadcast_strides(b, o4, sb);
  const bool flat = flat_broadcast(a, out) && flat_broadcast(b, out);
  char defines[96];
  snprintf(defines, sizeof(defines), "-DLG_OP=%d -DLG_BCAST=%d %s",
           lg_op_gpu_opcode(reg->builtin_code), flat ? 0 : 1, act);
  const lg_gpu_operand args[] = {
      LG_GPU_TENSOR(node->inputs->data[0]),
      LG_GPU_TENSOR(node->inputs->data[1]),
      LG_GPU_TENSOR(node->outputs->data[0]),
      LG_GPU_INT(n),
      LG_GPU_INT(lg_gpu_elements(a)),
      LG_GPU_INT(lg_gpu_elements(b)),
      LG_GPU_FLOAT(lo),
      LG_GPU_FLOAT(hi),
      LG_GPU_INT(o4[1]),
      LG_GPU_INT(o4[2]),
      LG_GPU_INT(o4[3]),
      LG_GPU_INT(sa[0]),
      LG_GPU_INT(sa[1]),
      LG_GPU_INT(sa[2]),
      LG_GPU_INT(sa[3]),
      LG_GPU_INT(sb[0]),
      LG_GPU_INT(sb[1]),
      LG_GPU_INT(sb[2]),
      LG_GPU_INT(sb[3]),
  };
  const size_t global[1] = {(size_t)n};
  return lg_gpu_lower_dispatch(p, "binary", defines, args,
                               (int)(sizeof(args) / sizeof(args[0])), 1, global,
                               NULL);
}

/* ---- Comparisons, LOGICAL_AND, SELECT / SELECT_V2 ---------------------------
 *
 * Bool tensors hold one byte per element on the device, as on the CPU, so
 * they move across a partition's boundary unchanged (compare.lgk,
 * select_v2.lgk). */

/* Every operand of rank at most 4 whose dims broadcast to the output's (1
 * or equal, aligned at the end); the output of rank at most 4. */
static bool broadcasts_to(const TfLiteTensor* t, const TfLiteTensor* out) {
  if (t->dims == NULL || t->dims->size > out->dims->size) return false;
  const int shift = out->dims->size - t->dims->size;
  for (int i = 0; i < t->dims->size; ++i) {
    const int d = t->dims->data[i];
    if (d != 1 && d != out->dims->data[shift + i]) return false;
  }
  return true;
}

static bool limits_broadcast(LG_GPU_CHECK_ARGS, int inputs) {
  (void)registration;
  if (node->inputs->size != inputs || node->outputs->size != 1) {
    snprintf(reason, size, "expects %d inputs and 1 output.", inputs);
    return false;
  }
  const TfLiteTensor* out = lg_gpu_node_tensor(context, node->outputs, 0);
  if (out->dims == NULL || out->dims->size > 4 || lg_gpu_elements(out) == 0 ||
      lg_gpu_elements(out) > INT32_MAX) {
    snprintf(reason, size,
             "outputs of rank above 4, empty or above 2^31 elements are not "
             "supported.");
    return false;
  }
  for (int i = 0; i < inputs; ++i) {
    if (!broadcasts_to(lg_gpu_node_tensor(context, node->inputs, i), out)) {
      snprintf(reason, size, "input %d does not broadcast to the output.", i);
      return false;
    }
  }
  return true;
}

bool lg_gpu_limits_compare(LG_GPU_CHECK_ARGS) {
  return limits_broadcast(context, node, registration, reason, size, 2);
}

TfLiteStatus lg_gpu_lower_compare(lg_gpu_program* p, TfLiteContext* context,
                                  const TfLiteNode* node,
                                  const TfLiteRegistration* reg) {
  const TfLiteTensor* a = lg_gpu_node_tensor(context, node->inputs, 0);
  const TfLiteTensor* b = lg_gpu_node_tensor(context, node->inputs, 1);
  const TfLiteTensor* out = lg_gpu_node_tensor(context, node->outputs, 0);
  const int n = (int)lg_gpu_elements(out);
  int32_t o4[4], sa[4], sb[4];
  lg_gpu_shape4(out, o4);
  broadcast_strides(a, o4, sa);
  broadcast_strides(b, o4, sb);
  char defines[32];
  snprintf(defines, sizeof(defines), "-DLG_OP=%d",
           lg_op_gpu_opcode(reg->builtin_code));
  const lg_gpu_operand args[] = {
      LG_GPU_TENSOR(node->inputs->data[0]),
      LG_GPU_TENSOR(node->inputs->data[1]),
      LG_GPU_TENSOR(node->outputs->data[0]),
      LG_GPU_INT(n),
      LG_GPU_INT(o4[1]),
      LG_GPU_INT(o4[2]),
      LG_GPU_INT(o4[3]),
      LG_GPU_INT(sa[0]),
      LG_GPU_INT(sa[1]),
      LG_GPU_INT(sa[2]),
      LG_GPU_INT(sa[3]),
      LG_GPU_INT(sb[0]),
      LG_GPU_INT(sb[1]),
      LG_GPU_INT(sb[2]),
      LG_GPU_INT(sb[3]),
  };
  const size_t global[1] = {(size_t)n};
  return lg_gpu_lower_dispatch(p, "compare", defines, args,
                               (int)(sizeof(args) / sizeof(args[0])), 1, global,
                               NULL);
}

/* SELECT's rank-1 condition along x's first dim (SELECT v1's own rule) is
 * not a NumPy broadcast: it stays on the CPU. */
bool lg_gpu_limits_select(LG_GPU_CHECK_ARGS) {
  if (node->inputs->size == 3 && node->outputs->size == 1) {
    const TfLiteTensor* c = lg_gpu_node_tensor(context, node->inputs, 0);
    const TfLiteTensor* out = lg_gpu_node_tensor(context, node->outputs, 0);
    if (registration->builtin_code == kTfLiteBuiltinSelect && c->dims != NULL &&
        out->dims != NULL && c->dims->size == 1 && out->dims->size > 1 &&
        lg_gpu_elements(c) != 1) {
      snprintf(reason, size,
               "SELECT with a rank-1 condition along the first dim is not "
               "supported.");
      return false;
    }
  }
  if (!limits_broadcast(context, node, registration, reason, size, 3)) {
    return false;
  }
  const TfLiteTensor* c = lg_gpu_node_tensor(context, node->inputs, 0);
  if (c->type != kTfLiteBool) {
    snprintf(reason, size, "the condition must be a bool tensor.");
    return false;
  }
  return true;
}

TfLiteStatus lg_gpu_lower_select(lg_gpu_program* p, TfLiteContext* context,
                                 const TfLiteNode* node,
                                 const TfLiteRegistration* reg) {
  (void)reg;
  const TfLiteTensor* out = lg_gpu_node_tensor(context, node->outputs, 0);
  const int n = (int)lg_gpu_elements(out);
  int32_t o4[4], s[3][4];
  lg_gpu_shape4(out, o4);
  for (int k = 0; k < 3; ++k) {
    broadcast_strides(lg_gpu_node_tensor(context, node->inputs, k), o4, s[k]);
  }
  const lg_gpu_operand args[] = {
      LG_GPU_TENSOR(node->inputs->data[0]),
      LG_GPU_TENSOR(node->inputs->data[1]),
      LG_GPU_TENSOR(node->inputs->data[2]),
      LG_GPU_TENSOR(node->outputs->data[0]),
      LG_GPU_INT(n),
      LG_GPU_INT(o4[1]),
      LG_GPU_INT(o4[2]),
      LG_GPU_INT(o4[3]),
      LG_GPU_INT(s[0][0]),
      LG_GPU_INT(s[0][1]),
      LG_GPU_INT(s[0][2]),
      LG_GPU_INT(s[0][3]),
      LG_GPU_INT(s[1][0]),
      LG_GPU_INT(s[1][1]),
      LG_GPU_INT(s[1][2]),
      LG_GPU_INT(s[1][3]),
      LG_GPU_INT(s[2][0]),
      LG_GPU_INT(s[2][1]),
      LG_GPU_INT(s[2][2]),
      LG_GPU_INT(s[2][3]),
  };
  const size_t global[1] = {(size_t)n};
  return lg_gpu_lower_dispatch(p, "select_v2", NULL, args,
                               (int)(sizeof(args) / sizeof(args[0])), 1, global,
                               NULL);
}
