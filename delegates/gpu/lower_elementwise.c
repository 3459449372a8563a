/* GPU lowerings of the elementwise family: binary ops with broadcasting and
 * fused activations (shaders/opencl/binary.cl), unary ops
 * (shaders/opencl/unary.cl), CAST (cast.cl) and DEQUANTIZE of constant
 * float16 weights (converted on the host into a device constant). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/gpu/gpu_lower.h"
#include "ops/op_manifest.h"
#include "runtime/kernels/fp16.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

#define CHECK_ARGS                                \
  TfLiteContext *context, const TfLiteNode *node, \
      const TfLiteRegistration *registration, char *reason, size_t size

static const TfLiteTensor* tensor_of(const TfLiteContext* context,
                                     const TfLiteIntArray* list, int i) {
  return &context->tensors[list->data[i]];
}

/* ---- Binary ----------------------------------------------------------------
 */

/* The LG_OP of an op's GPU kernel: its manifest row's code. */
static int manifest_opcode(int32_t code) {
  const lg_op_info* op = lg_op_find(code, NULL);
  return op != NULL ? op->gpu_opcode : -1;
}

static TfLiteFusedActivation binary_activation(int32_t code, const void* data) {
  if (data == NULL) return kTfLiteActNone;
  switch (code) {
    case kTfLiteBuiltinAdd:
      return ((const TfLiteAddParams*)data)->activation;
    case kTfLiteBuiltinSub:
      return ((const TfLiteSubParams*)data)->activation;
    case kTfLiteBuiltinMul:
      return ((const TfLiteMulParams*)data)->activation;
    case kTfLiteBuiltinDiv:
      return ((const TfLiteDivParams*)data)->activation;
    default:
      return kTfLiteActNone;
  }
}

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

bool lg_gpu_limits_binary(CHECK_ARGS) {
  (void)registration;
  if (node->inputs->size != 2 || node->outputs->size != 1) {
    snprintf(reason, size, "expects 2 inputs and 1 output.");
    return false;
  }
  float lo, hi;
  const char* define;
  if (!lg_gpu_activation(
          binary_activation(registration->builtin_code, node->builtin_data),
          &lo, &hi, &define)) {
    snprintf(reason, size, "the fused activation is not supported.");
    return false;
  }
  const TfLiteTensor* out = tensor_of(context, node->outputs, 0);
  if (out->dims == NULL || out->dims->size > 4) {
    snprintf(reason, size, "outputs of rank above 4 are not supported.");
    return false;
  }
  return true;
}

TfLiteStatus lg_gpu_lower_binary(lg_gpu_program* p, TfLiteContext* context,
                                 const TfLiteNode* node,
                                 const TfLiteRegistration* reg) {
  const TfLiteTensor* a = tensor_of(context, node->inputs, 0);
  const TfLiteTensor* b = tensor_of(context, node->inputs, 1);
  const TfLiteTensor* out = tensor_of(context, node->outputs, 0);
  const int n = (int)lg_gpu_elements(out);
  float lo, hi;
  const char* act;
  lg_gpu_activation(binary_activation(reg->builtin_code, node->builtin_data),
                    &lo, &hi, &act);
  int32_t o4[4], sa[4], sb[4];
  lg_gpu_shape4(out, o4);
  broadcast_strides(a, o4, sa);
  broadcast_strides(b, o4, sb);
  const bool flat = flat_broadcast(a, out) && flat_broadcast(b, out);
  char defines[96];
  snprintf(defines, sizeof(defines), "-DLG_OP=%d -DLG_BCAST=%d %s",
           manifest_opcode(reg->builtin_code), flat ? 0 : 1, act);
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

/* ---- Unary ------------------------------------------------------------------
 */

static int unary_lg_op(int32_t code, const void* data) {
  if (code == kTfLiteBuiltinGelu && data != NULL &&
      ((const TfLiteGeluParams*)data)->approximate) {
    return LG_OPCODE_GELU_APPROXIMATE;
  }
  return manifest_opcode(code);
}

bool lg_gpu_limits_unary(CHECK_ARGS) {
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
  const int n = (int)lg_gpu_elements(tensor_of(context, node->outputs, 0));
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

bool lg_gpu_limits_cast(CHECK_ARGS) {
  (void)registration;
  const TfLiteTensor* in = tensor_of(context, node->inputs, 0);
  const TfLiteTensor* out = tensor_of(context, node->outputs, 0);
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
  const TfLiteTensor* in = tensor_of(context, node->inputs, 0);
  const TfLiteTensor* out = tensor_of(context, node->outputs, 0);
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

/* ---- DEQUANTIZE
 * ---------------------------------------------------------------- */

bool lg_gpu_limits_dequantize(CHECK_ARGS) {
  (void)registration;
  const TfLiteTensor* in = tensor_of(context, node->inputs, 0);
  const TfLiteTensor* out = tensor_of(context, node->outputs, 0);
  if (in->type != kTfLiteFloat16 || out->type != kTfLiteFloat32 ||
      in->data.raw == NULL) {
    snprintf(reason, size,
             "DEQUANTIZE runs only from constant float16 to float32.");
    return false;
  }
  return true;
}

TfLiteStatus lg_gpu_lower_dequantize(lg_gpu_program* p, TfLiteContext* context,
                                     const TfLiteNode* node,
                                     const TfLiteRegistration* reg) {
  (void)reg;
  const TfLiteTensor* in = tensor_of(context, node->inputs, 0);
  const TfLiteTensor* out = tensor_of(context, node->outputs, 0);
  /* The CPU kernel converts a constant input in Prepare and leaves a
   * read-only output: the program uploads that tensor as a constant. */
  if (lg_gpu_constant_floats(out) != NULL) return kTfLiteOk;
  const size_t n = lg_gpu_elements(in);
  float* values = malloc((n > 0 ? n : 1) * sizeof(float));
  if (values == NULL) return lg_gpu_lower_fail(p, "out of host memory");
  lg_fp16_to_fp32_array((const uint16_t*)in->data.raw, values, n);
  const TfLiteStatus status = lg_gpu_lower_constant_tensor(
      p, node->outputs->data[0], values, n * sizeof(float));
  free(values);
  return status;
}
