/* GPU lowerings of the unary family (ops/ops.def): elementwise unary ops
 * and activations (shaders/kernels/unary.lgk; the op code LG_OP is the
 * manifest row's), CAST (cast.lgk), DEQUANTIZE (constants converted on the
 * host into a device constant, runtime tensors fake-quantized), QUANTIZE
 * (fake quantization: gpu_quant.c) and SOFTMAX
 * (softmax.lgk: it subtracts the row maximum; wide rows use a work group
 * each). Semantics are the CPU kernels' (runtime/kernels/unary.c, cast.c,
 * dequantize.c, softmax.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/gpu/gpu_lower.h"
#include "ops/op_manifest.h"
#include "runtime/kernels/fp16.h"
#include "runtime/kernels/kernel_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

/* SOFTMAX rows from which one work group per row beats one work item. */
#define SOFTMAX_GROUP_MIN_DEPTH 128

/* ---- Unary ------------------------------------------------------------------
 */

static int unary_lg_op(int32_t code, const void* data) {
  if (code == kTfLiteBuiltinGelu && data != NULL &&
      ((const TfLiteGeluParams*)data)->approximate) {
    return LG_OPCODE_GELU_APPROXIMATE;
  }
  return lg_op_gpu_opcode(code);
}

bool lg_gpu_limits_unary(LG_GPU_CHECK_ARGS) {
  (void)context;
  (void)registration;
  if (node->inputs->size != 1 || node->outputs->size != 1) {
    snprintf(reason, size, "expects 1 input and 1 output.");
    return false;
  }
  return true;
}

TfLiteStatus lg_gpu_lower_unary(lg_gpu_program* p, TfLiteContext* context,
                                const TfLiteNode* node,
                                const TfLiteRegistration* reg) {
  const int n =
      (int)lg_gpu_elements(lg_gpu_node_tensor(context, node->outputs, 0));
  float alpha = 0.0f;
  if (reg->builtin_code == kTfLiteBuiltinLeakyRelu &&
      node->builtin_data != NULL) {
    alpha = ((const TfLiteLeakyReluParams*)node->builtin_data)->alpha;
  }
  char defines[32];
  snprintf(defines, sizeof(defines), "-DLG_OP=%d",
           unary_lg_op(reg->builtin_code, node->builtin_data));
  const lg_gpu_operand args[] = {LG_GPU_TENSOR(node->inputs->data[0]),
                                 LG_GPU_TENSOR(node->outputs->data[0]),
                                 LG_GPU_INT(n), LG_GPU_FLOAT(alpha)};
  const size_t global[1] = {(size_t)n};
  return lg_gpu_lower_dispatch(p, "unary", defines, args, 4, 1, global, NULL);
}

/* ---- CAST
 * -------------------------------------------------------------------- */

static const char* cl_type(TfLiteType t) {
  switch (t) {
    case kTfLiteFloat32:
      return "float";
    case kTfLiteInt32:
      return "int";
    case kTfLiteBool:
      return "uchar";
    default:
      return NULL;
  }
}

bool lg_gpu_limits_cast(LG_GPU_CHECK_ARGS) {
  (void)registration;
  const TfLiteTensor* in = lg_gpu_node_tensor(context, node->inputs, 0);
  const TfLiteTensor* out = lg_gpu_node_tensor(context, node->outputs, 0);
  if (cl_type(in->type) == NULL || cl_type(out->type) == NULL ||
      in->type == out->type) {
    snprintf(reason, size,
             "CAST runs between float32, int32 and bool only (%s to %s).",
             TfLiteTypeGetName(in->type), TfLiteTypeGetName(out->type));
    return false;
  }
  return true;
}

TfLiteStatus lg_gpu_lower_cast(lg_gpu_program* p, TfLiteContext* context,
                               const TfLiteNode* node,
                               const TfLiteRegistration* reg) {
  (void)reg;
  const TfLiteTensor* in = lg_gpu_node_tensor(context, node->inputs, 0);
  const TfLiteTensor* out = lg_gpu_node_tensor(context, node->outputs, 0);
  const int n = (int)lg_gpu_elements(out);
  char defines[96];
  snprintf(defines, sizeof(defines), "-DLG_SRC=%s -DLG_DST=%s%s",
           cl_type(in->type), cl_type(out->type),
           out->type == kTfLiteBool ? " -DLG_DST_BOOL" : "");
  const lg_gpu_operand args[] = {LG_GPU_TENSOR(node->inputs->data[0]),
                                 LG_GPU_TENSOR(node->outputs->data[0]),
                                 LG_GPU_INT(n)};
  const size_t global[1] = {(size_t)n};
  return lg_gpu_lower_dispatch(p, "cast", defines, args, 3, 1, global, NULL);
}

/* ---- DEQUANTIZE and QUANTIZE ------------------------------------------- */

bool lg_gpu_limits_dequantize(LG_GPU_CHECK_ARGS) {
  (void)registration;
  const TfLiteTensor* in = lg_gpu_node_tensor(context, node->inputs, 0);
  const TfLiteTensor* out = lg_gpu_node_tensor(context, node->outputs, 0);
  const bool half_constant = in->type == kTfLiteFloat16 &&
                             lg_kernel_is_constant(in) && in->data.raw != NULL;
  if (out->type != kTfLiteFloat32 ||
      (!half_constant && !lg_gpu_is_constant_floats(out) &&
       !lg_gpu_dequantizable_constant(in) &&
       !lg_gpu_quantized_activation(in, NULL))) {
    snprintf(reason, size,
             "DEQUANTIZE runs from a constant float16, INT8 or UINT8 tensor "
             "or a per-tensor quantized INT8/UINT8 one, to float32.");
    return false;
  }
  return true;
}

/* A constant's values dequantized on the host into a device constant
 * (float16 weights, quantized weights), or a runtime tensor's fake
 * quantization onto its own grid (TFLite's DequantizeOperationParser). */
TfLiteStatus lg_gpu_lower_dequantize(lg_gpu_program* p, TfLiteContext* context,
                                     const TfLiteNode* node,
                                     const TfLiteRegistration* reg) {
  (void)reg;
  const TfLiteTensor* in = lg_gpu_node_tensor(context, node->inputs, 0);
  const TfLiteTensor* out = lg_gpu_node_tensor(context, node->outputs, 0);
  /* The CPU kernel converts a constant input in Prepare and leaves a
   * read-only output: the program uploads that tensor as a constant. */
  if (lg_gpu_is_constant_floats(out)) return kTfLiteOk;
  lg_gpu_quant q;
  if (lg_gpu_quantized_activation(in, &q)) {
    return lg_gpu_lower_fake_quant(p, node->inputs->data[0],
                                   node->outputs->data[0], &q, false);
  }
  const size_t n = lg_gpu_elements(in);
  if (in->type != kTfLiteFloat16) {
    const float* values = lg_gpu_constant_floats(p, in);
    if (values == NULL) return lg_gpu_lower_fail(p, "out of host memory");
    return lg_gpu_lower_constant_tensor(p, node->outputs->data[0], values,
                                        n * sizeof(float));
  }
  float* values = malloc((n > 0 ? n : 1) * sizeof(float));
  if (values == NULL) return lg_gpu_lower_fail(p, "out of host memory");
  lg_fp16_to_fp32_array((const uint16_t*)in->data.raw, values, n);
  const TfLiteStatus status = lg_gpu_lower_constant_tensor(
      p, node->outputs->data[0], values, n * sizeof(float));
  free(values);
  return status;
}

bool lg_gpu_limits_quantize(LG_GPU_CHECK_ARGS) {
  (void)registration;
  const TfLiteTensor* in = lg_gpu_node_tensor(context, node->inputs, 0);
  const TfLiteTensor* out = lg_gpu_node_tensor(context, node->outputs, 0);
  if ((in->type != kTfLiteFloat32 && !lg_gpu_quantized_activation(in, NULL)) ||
      !lg_gpu_quantized_activation(out, NULL)) {
    snprintf(reason, size,
             "QUANTIZE runs from float32 or per-tensor INT8/UINT8 to "
             "per-tensor INT8/UINT8 (%s to %s).",
             TfLiteTypeGetName(in->type), TfLiteTypeGetName(out->type));
    return false;
  }
  return true;
}

/* The input's floats snapped onto the output's grid (TFLite's
 * QuantizeOperationParser): quantization (ties away from zero, as the
 * CPU), and requantization, which rounds as the CPU's multiplier/shift. */
TfLiteStatus lg_gpu_lower_quantize(lg_gpu_program* p, TfLiteContext* context,
                                   const TfLiteNode* node,
                                   const TfLiteRegistration* reg) {
  (void)reg;
  lg_gpu_quant q, from;
  lg_gpu_quantized_activation(lg_gpu_node_tensor(context, node->outputs, 0),
                              &q);
  if (lg_gpu_quantized_activation(lg_gpu_node_tensor(context, node->inputs, 0),
                                  &from)) {
    return lg_gpu_lower_requantize(p, node->inputs->data[0],
                                   node->outputs->data[0], &from, &q);
  }
  return lg_gpu_lower_fake_quant(p, node->inputs->data[0],
                                 node->outputs->data[0], &q, true);
}

/* ---- DENSIFY --------------------------------------------------------------
 * The CPU kernel densifies its constant input in Prepare and leaves a
 * read-only output; its consumers upload that as a constant (TFLite GPU's
 * MergeDensify folds it into their weights the same way). */

bool lg_gpu_limits_densify(LG_GPU_CHECK_ARGS) {
  (void)registration;
  const TfLiteTensor* out = lg_gpu_node_tensor(context, node->outputs, 0);
  if (out->allocation_type != kTfLitePersistentRo || out->data.raw == NULL) {
    snprintf(reason, size,
             "DENSIFY runs only when the CPU made its output a constant.");
    return false;
  }
  return true;
}

TfLiteStatus lg_gpu_lower_densify(lg_gpu_program* p, TfLiteContext* context,
                                  const TfLiteNode* node,
                                  const TfLiteRegistration* reg) {
  (void)p;
  (void)context;
  (void)node;
  (void)reg;
  return kTfLiteOk;
}

/* ---- SOFTMAX ------------------------------------------------------------- */

bool lg_gpu_limits_softmax(LG_GPU_CHECK_ARGS) {
  (void)registration;
  if (!lg_gpu_lower_check_sizes(context, node, reason, size)) return false;
  if (lg_gpu_rank(lg_gpu_node_tensor(context, node->inputs, 0)) < 1) {
    snprintf(reason, size, "SOFTMAX needs an input of rank 1 or more.");
    return false;
  }
  return true;
}

TfLiteStatus lg_gpu_lower_softmax(lg_gpu_program* p, TfLiteContext* context,
                                  const TfLiteNode* node,
                                  const TfLiteRegistration* reg) {
  (void)reg;
  const TfLiteTensor* in = lg_gpu_node_tensor(context, node->inputs, 0);
  const int depth = in->dims->data[in->dims->size - 1];
  const int rows = (int)(lg_gpu_elements(in) / (size_t)depth);
  const TfLiteSoftmaxParams* params = node->builtin_data;
  /* A missing options table means the schema default, as on the CPU. */
  const float beta = params != NULL ? params->beta : 0.0f;
  const lg_gpu_operand args[] = {
      LG_GPU_TENSOR(node->inputs->data[0]),
      LG_GPU_TENSOR(node->outputs->data[0]),
      LG_GPU_INT(rows),
      LG_GPU_INT(depth),
      LG_GPU_FLOAT(beta),
  };
  /* Three passes over the row: a group's items share them. */
  const size_t group =
      depth < SOFTMAX_GROUP_MIN_DEPTH ? 1 : lg_gpu_lower_group_size(p);
  char what[64];
  snprintf(what, sizeof(what), "SOFTMAX over %d values", depth);
  if (lg_gpu_lower_check_loops(
          p, 3 * ((depth + (int64_t)group - 1) / (int64_t)group) + 64, what) !=
      kTfLiteOk) {
    return kTfLiteError;
  }
  if (depth < SOFTMAX_GROUP_MIN_DEPTH) {
    const size_t global[1] = {(size_t)rows};
    return lg_gpu_lower_dispatch(p, "softmax", NULL, args, 5, 1, global, NULL);
  }
  const size_t local[1] = {lg_gpu_lower_group_size(p)};
  const size_t global[1] = {(size_t)rows * local[0]};
  char defines[32];
  snprintf(defines, sizeof(defines), "-DLG_WG=%zu", local[0]);
  return lg_gpu_lower_dispatch(p, "softmax", defines, args, 5, 1, global,
                               local);
}
