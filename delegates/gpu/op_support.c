/* The GPU delegate's op support table (see op_support.h).
 *
 * Each check follows TFLite's GPU rules for its op (the wording of its
 * refusals is TFLite's where TFLite has one) and ends with the common tensor
 * filter. A check writes its reason with fail() and returns false.
 */
#include "delegates/gpu/op_support.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/mediapipe_ops.h"
#include "runtime/model/builtin_options.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

/* ---- Helpers ----------------------------------------------------------- */

static bool fail(char* reason, size_t size, const char* format, ...) {
  if (reason != NULL && size > 0) {
    va_list args;
    va_start(args, format);
    vsnprintf(reason, size, format, args);
    va_end(args);
  }
  return false;
}

/* The tensor at position `i` of `indices`, or NULL (omitted or absent). */
static const TfLiteTensor* tensor_at(const TfLiteContext* context,
                                     const TfLiteIntArray* indices, int i) {
  if (indices == NULL || i < 0 || i >= indices->size) return NULL;
  const int t = indices->data[i];
  if (t < 0 || (size_t)t >= context->tensors_size) return NULL;
  return &context->tensors[t];
}

static const TfLiteTensor* input(const TfLiteContext* context,
                                 const TfLiteNode* node, int i) {
  return tensor_at(context, node->inputs, i);
}

static const TfLiteTensor* output(const TfLiteContext* context,
                                  const TfLiteNode* node, int i) {
  return tensor_at(context, node->outputs, i);
}

/* Constant: data from the model (read-only), as TFLite's IsConstantTensor;
 * litegpu keeps misaligned model constants as kTfLitePersistentRo. */
static bool is_const(const TfLiteTensor* t) {
  return t != NULL && (t->allocation_type == kTfLiteMmapRo ||
                       t->allocation_type == kTfLitePersistentRo);
}

static bool is_float(TfLiteType t) {
  return t == kTfLiteFloat32 || t == kTfLiteFloat16;
}

static int rank(const TfLiteTensor* t) {
  return (t != NULL && t->dims != NULL) ? t->dims->size : 0;
}

static int dim(const TfLiteTensor* t, int i) {
  return (i >= 0 && i < rank(t)) ? t->dims->data[i] : 1;
}

static int num_inputs(const TfLiteNode* node) {
  return node->inputs ? node->inputs->size : 0;
}

static int num_outputs(const TfLiteNode* node) {
  return node->outputs ? node->outputs->size : 0;
}

/* Inputs that are present and not constant. */
static int runtime_inputs(const TfLiteContext* context,
                          const TfLiteNode* node) {
  int n = 0;
  for (int i = 0; i < num_inputs(node); ++i) {
    const TfLiteTensor* t = input(context, node, i);
    if (t != NULL && !is_const(t)) ++n;
  }
  return n;
}

static int const_inputs(const TfLiteContext* context, const TfLiteNode* node) {
  int n = 0;
  for (int i = 0; i < num_inputs(node); ++i) {
    if (is_const(input(context, node, i))) ++n;
  }
  return n;
}

/* TFLite's CheckInputsOutputs. */
static bool check_io(const TfLiteContext* context, const TfLiteNode* node,
                     int runtime, int outputs, char* reason, size_t size) {
  const int have = runtime_inputs(context, node);
  if (have != runtime) {
    return fail(reason, size,
                "Expected %d runtime input tensor(s), but node has %d "
                "runtime input(s).",
                runtime, have);
  }
  if (num_outputs(node) != outputs) {
    return fail(reason, size,
                "Expected %d output tensor(s), but node has %d output(s).",
                outputs, num_outputs(node));
  }
  return true;
}

/* TFLite's CheckInputsConstsOutputs. */
static bool check_ico(const TfLiteContext* context, const TfLiteNode* node,
                      int runtime, int consts, int outputs, char* reason,
                      size_t size) {
  const int have = const_inputs(context, node);
  if (have != consts) {
    return fail(reason, size,
                "Expected %d const input tensor(s), but node has %d const "
                "input(s).",
                consts, have);
  }
  return check_io(context, node, runtime, outputs, reason, size);
}

/* Two runtime operands, or one runtime and one constant. */
static bool check_operands(const TfLiteContext* context, const TfLiteNode* node,
                           char* reason, size_t size) {
  if (check_ico(context, node, 2, 0, 1, NULL, 0) ||
      check_ico(context, node, 1, 1, 1, NULL, 0)) {
    return true;
  }
  return fail(reason, size, "Op can only handle 1 or 2 operand(s).");
}

static bool check_activation(TfLiteFusedActivation a, char* reason,
                             size_t size) {
  if (a == kTfLiteActSignBit) {
    return fail(reason, size, "TfLiteFusedActivation.kTfLiteActSignBit");
  }
  return true;
}

static bool check_params(const TfLiteNode* node, char* reason, size_t size) {
  if (node->builtin_data == NULL) {
    return fail(reason, size, "Unable to retrieve builtin_data.");
  }
  return true;
}

static bool check_strides(int h, int w, char* reason, size_t size) {
  if (h <= 0 || w <= 0) {
    return fail(reason, size,
                "Incorrect stride values: stride_height = %d, stride_width = "
                "%d",
                h, w);
  }
  return true;
}

static bool check_dilation(int h, int w, char* reason, size_t size) {
  if (h <= 0 || w <= 0) {
    return fail(reason, size,
                "Incorrect dilation values: dilation_height = %d, "
                "dilation_width = %d",
                h, w);
  }
  return true;
}

/* TFLite's CheckConvoultionInputOutput. */
static bool check_conv_io(const TfLiteContext* context, const TfLiteNode* node,
                          char* reason, size_t size) {
  const int runtime = runtime_inputs(context, node);
  if (runtime > 2) {
    return fail(reason, size,
                "Expected 1 or 2 input tensor(s), but node has %d runtime "
                "inputs.",
                runtime);
  }
  if (num_outputs(node) != 1) {
    return fail(reason, size,
                "Expected 1 output tensor(s), but node has %d runtime "
                "outputs.",
                num_outputs(node));
  }
  if (runtime == 1 && num_inputs(node) < 2) {
    return fail(reason, size, "Requested index goes beyond array size: 1 vs %d",
                num_inputs(node));
  }
  return true;
}

/* TFLite's CheckAxesAreInt32Const on input 1. */
static bool check_axes(const TfLiteContext* context, const TfLiteNode* node,
                       int32_t code, char* reason, size_t size) {
  const TfLiteTensor* axes = input(context, node, 1);
  const char* name = lg_builtin_op_name(code);
  if (axes == NULL || !is_const(axes)) {
    return fail(reason, size, "%s is only supported with constant axes.", name);
  }
  if (axes->type != kTfLiteInt32) {
    return fail(reason, size,
                "%s supports int32 tensor for axes. But node has %s", name,
                TfLiteTypeGetName(axes->type));
  }
  return true;
}

/* Writes "[d0,d1,...]" of a tensor's shape. */
static void format_dims(const TfLiteTensor* t, char* out, size_t size) {
  size_t used = (size_t)snprintf(out, size, "[");
  for (int i = 0; i < rank(t) && used < size; ++i) {
    used += (size_t)snprintf(out + used, size - used, i ? ",%d" : "%d",
                             t->dims->data[i]);
  }
  if (used < size) snprintf(out + used, size - used, "]");
}

/* TFLite's standard ADD/MUL broadcast rule for operands of different ranks
 * (both above 1): 3-D to 4-D with batch 1, [1,1] or [b,c] to [b,h,w,c]. */
static bool check_broadcast(const TfLiteTensor* a, const TfLiteTensor* b,
                            char* reason, size_t size) {
  const int ra = rank(a), rb = rank(b);
  if (ra <= 1 || rb <= 1 || ra == rb) return true;
  const TfLiteTensor* lo = ra >= rb ? a : b;
  const TfLiteTensor* sh = ra >= rb ? b : a;
  const int rl = rank(lo), rs = rank(sh);
  bool ok = false;
  if (rl == 4 && rs == 3 && dim(lo, 0) == 1) {
    ok = true;
  } else if (rl == 4 && rs == 2 && dim(lo, 0) == 1 && dim(sh, 0) == 1 &&
             dim(sh, 1) == 1) {
    ok = true;
  } else if (rl == 4 && rs == 2 && dim(lo, 0) == dim(sh, 0) &&
             dim(lo, 3) == dim(sh, 1)) {
    ok = true;
  }
  if (ok) return true;
  char da[96], db[96];
  format_dims(a, da, sizeof(da));
  format_dims(b, db, sizeof(db));
  return fail(reason, size,
              "Doesn't support broadcasting - input0: %s, input1: %s", da, db);
}

/* ---- The common tensor filter ----------------------------------------- */

static bool type_allowed(TfLiteType type, const TfLiteType* extra,
                         int num_extra) {
  if (type == kTfLiteFloat32 || type == kTfLiteFloat16) return true;
  for (int i = 0; i < num_extra; ++i) {
    if (type == extra[i]) return true;
  }
  return false;
}

static bool tensors_allowed(const TfLiteContext* context,
                            const TfLiteIntArray* indices,
                            const TfLiteType* extra, int num_extra) {
  for (int i = 0; indices != NULL && i < indices->size; ++i) {
    const TfLiteTensor* t = tensor_at(context, indices, i);
    if (t == NULL) continue;
    if (rank(t) >= 5) return false;
    if (!is_const(t) && !type_allowed(t->type, extra, num_extra)) return false;
  }
  return true;
}

/* TFLite's IsLogicalCode: the comparisons, whose output may be BOOL. */
static bool is_comparison(int32_t code) {
  return code == kTfLiteBuiltinLess || code == kTfLiteBuiltinLessEqual ||
         code == kTfLiteBuiltinGreater || code == kTfLiteBuiltinGreaterEqual ||
         code == kTfLiteBuiltinEqual || code == kTfLiteBuiltinNotEqual;
}

/* TFLite's GetOpsToReplace filter with allow_quant_ops (INT8 and UINT8
 * runtime tensors; the delegate's node check refuses them without
 * TFLITE_GPU_EXPERIMENTAL_FLAGS_ENABLE_QUANT). BOOL passes where TFLite
 * lets it: the comparisons' output, LOGICAL_AND's inputs and output,
 * SELECT's and SELECT_V2's inputs (the condition); INT32 inputs of GATHER
 * and ONE_HOT. */
static bool check_tensors(const TfLiteContext* context, const TfLiteNode* node,
                          int32_t code, char* reason, size_t size) {
  static const TfLiteType quant_types[2] = {kTfLiteInt8, kTfLiteUInt8};
  static const TfLiteType cast_types[4] = {kTfLiteInt8, kTfLiteUInt8,
                                           kTfLiteInt32, kTfLiteBool};
  static const TfLiteType gather_types[3] = {kTfLiteInt8, kTfLiteUInt8,
                                             kTfLiteInt32};
  static const TfLiteType bool_types[3] = {kTfLiteInt8, kTfLiteUInt8,
                                           kTfLiteBool};
  const TfLiteType* in_extra = quant_types;
  const TfLiteType* out_extra = quant_types;
  int in_n = 2, out_n = 2;
  if (code == kTfLiteBuiltinCast) {
    in_extra = out_extra = cast_types;
    in_n = out_n = 4;
  } else if (code == kTfLiteBuiltinGather || code == kTfLiteBuiltinOneHot) {
    in_extra = gather_types;
    in_n = 3;
  } else if (is_comparison(code)) {
    out_extra = bool_types;
    out_n = 3;
  } else if (code == kTfLiteBuiltinLogicalAnd) {
    in_extra = out_extra = bool_types;
    in_n = out_n = 3;
  } else if (code == kTfLiteBuiltinSelect || code == kTfLiteBuiltinSelectV2) {
    in_extra = bool_types;
    in_n = 3;
  }
  if (!tensors_allowed(context, node->inputs, in_extra, in_n) ||
      !tensors_allowed(context, node->outputs, out_extra, out_n)) {
    return fail(reason, size, LG_GPU_TENSOR_REASON);
  }
  return true;
}

/* ---- Per-op checks ----------------------------------------------------- */

#define CHECK_ARGS                                \
  TfLiteContext *context, const TfLiteNode *node, \
      const TfLiteRegistration *registration, char *reason, size_t size

/* ADD and MUL: TFLite's broadcast rule between operands of different
 * ranks (check_broadcast). Operands of one rank may broadcast both ways
 * ([1,16,1] * [1,1,64]: the scale of a layer norm): TFLite's GPU delegate
 * refuses that for MUL ("MUL requires one tensor that not less than second
 * in all dimensions."), litegpu's binary kernel takes a stride per operand
 * and dimension, so it claims it, as it does for ADD. */
static bool check_add_or_mul(CHECK_ARGS, const char* name,
                             TfLiteFusedActivation activation) {
  (void)registration;
  if (num_inputs(node) != 2) {
    return fail(reason, size, "%s requires two input tensors.", name);
  }
  if (!check_broadcast(input(context, node, 0), input(context, node, 1), reason,
                       size) ||
      !check_operands(context, node, reason, size) ||
      !check_params(node, reason, size)) {
    return false;
  }
  return check_activation(activation, reason, size);
}

static bool check_add(CHECK_ARGS) {
  return check_add_or_mul(
      context, node, registration, reason, size, "ADD",
      lg_kernel_binary_activation(kTfLiteBuiltinAdd, node->builtin_data));
}

static bool check_mul(CHECK_ARGS) {
  return check_add_or_mul(
      context, node, registration, reason, size, "MUL",
      lg_kernel_binary_activation(kTfLiteBuiltinMul, node->builtin_data));
}

/* SUB, DIV, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE, POW, FLOOR_DIV,
 * FLOOR_MOD, the comparisons and LOGICAL_AND. */
static bool check_binary(CHECK_ARGS) {
  if (!check_operands(context, node, reason, size)) return false;
  return check_activation(lg_kernel_binary_activation(
                              registration->builtin_code, node->builtin_data),
                          reason, size);
}

/* ADD_N: TFLite's GPU delegate takes exactly two inputs (of one shape, as
 * the CPU kernel requires); the sum runs on the binary kernel. */
static bool check_add_n(CHECK_ARGS) {
  (void)context;
  (void)registration;
  if (num_inputs(node) != 2) {
    return fail(reason, size, "ADD_N only supports 2 inputs.");
  }
  return true;
}

/* SELECT and SELECT_V2 (TFLite's CheckSelectV2GpuDelegateCompatibility):
 * a float or bool condition, float x and y each of the output's shape or a
 * single element. */
static bool check_select(CHECK_ARGS) {
  (void)registration;
  if (num_inputs(node) != 3 || num_outputs(node) != 1) {
    return fail(reason, size, "Expected 3 inputs and 1 output");
  }
  static const char kError[] =
      "Cond must be float or bool type, if, else tensors must be float and "
      "either be same the shape as output or constant, scalar.";
  const TfLiteTensor* c = input(context, node, 0);
  const TfLiteTensor* out = output(context, node, 0);
  if (c == NULL || out == NULL ||
      (c->type != kTfLiteBool && !is_float(c->type))) {
    return fail(reason, size, kError);
  }
  for (int i = 1; i <= 2; ++i) {
    const TfLiteTensor* t = input(context, node, i);
    if (t == NULL || !is_float(t->type)) return fail(reason, size, kError);
    bool same = rank(t) == rank(out);
    for (int d = 0; same && d < rank(t); ++d) {
      same = t->dims->data[d] == out->dims->data[d];
    }
    if (rank(t) != 0 && !same && (rank(t) > 1 || dim(t, 0) > 1)) {
      return fail(reason, size, kError);
    }
  }
  return true;
}

/* CUMSUM (TFLite's CheckCumsumGpuDelegateCompatibility): a float input and
 * output of one type, a constant int32 axis. */
static bool check_cumsum(CHECK_ARGS) {
  (void)registration;
  if (num_inputs(node) != 2) {
    return fail(reason, size, "Expects 2 inputs and 1 output");
  }
  const TfLiteTensor* in = input(context, node, 0);
  const TfLiteTensor* axis = input(context, node, 1);
  const TfLiteTensor* out = output(context, node, 0);
  if (in == NULL || axis == NULL || out == NULL || !is_float(in->type) ||
      out->type != in->type || axis->type != kTfLiteInt32 || !is_const(axis)) {
    return fail(reason, size,
                "Input/output must be float type and indices must be constant "
                "int32 type");
  }
  return true;
}

/* ONE_HOT (TFLite's CheckOneHotGpuDelegateCompatibility): int32 indices
 * whose dims but the last (and the first of 4 or more) are 1, axis -1 (or
 * TFLite's comparison of the axis with the last dim's size), constant
 * float32 on/off values of at most one element. */
static bool check_one_hot(CHECK_ARGS) {
  (void)registration;
  if (num_inputs(node) != 4 || num_outputs(node) != 1) {
    return fail(reason, size, "Expects 4 inputs and 1 output");
  }
  static const char kError[] =
      "Indices must be int32 type, on/off tensors must be constant, scalar, "
      "float type, axis must be -1 or last dim";
  const TfLiteTensor* idx = input(context, node, 0);
  if (idx == NULL || idx->type != kTfLiteInt32 ||
      !check_params(node, reason, size)) {
    return fail(reason, size, kError);
  }
  const int axis = ((const TfLiteOneHotParams*)node->builtin_data)->axis;
  const int n = rank(idx);
  if (axis != -1 && (n == 0 || axis != dim(idx, n - 1))) {
    return fail(reason, size, kError);
  }
  for (int i = 0; i < n - 1; ++i) {
    if (n > 3 && i == 0) continue;
    if (dim(idx, i) != 1) {
      return fail(reason, size, "Unspported non-singleton dim at %d", i);
    }
  }
  for (int i = 2; i <= 3; ++i) {
    const TfLiteTensor* v = input(context, node, i);
    if (v == NULL || v->type != kTfLiteFloat32 || !is_const(v) || rank(v) > 1 ||
        (rank(v) == 1 && dim(v, 0) > 1)) {
      return fail(reason, size, kError);
    }
  }
  return true;
}

/* PACK and UNPACK: TFLite checks nothing but the tensor filter. */
static bool check_pack(CHECK_ARGS) {
  (void)context;
  (void)node;
  (void)registration;
  (void)reason;
  (void)size;
  return true;
}

/* One runtime input, no constants, one output. */
static bool check_unary(CHECK_ARGS) {
  (void)registration;
  return check_ico(context, node, 1, 0, 1, reason, size);
}

/* One runtime input (constants allowed), one output. */
static bool check_one_runtime(CHECK_ARGS) {
  (void)registration;
  return check_io(context, node, 1, 1, reason, size);
}

/* RELU, RELU6, RELU_N1_TO_1, LEAKY_RELU: TFLite checks only the version. */
static bool check_relu(CHECK_ARGS) {
  (void)context;
  (void)node;
  (void)registration;
  (void)reason;
  (void)size;
  return true;
}

static bool check_conv(CHECK_ARGS) {
  (void)registration;
  if (!check_conv_io(context, node, reason, size) ||
      !check_params(node, reason, size)) {
    return false;
  }
  const TfLiteConvParams* p = node->builtin_data;
  return check_strides(p->stride_height, p->stride_width, reason, size) &&
         check_dilation(p->dilation_height_factor, p->dilation_width_factor,
                        reason, size) &&
         check_activation(p->activation, reason, size);
}

/* Shapes of a depthwise convolution: 4-D input, filter [1,h,w,out_c] and
 * output; out_c == in_c * depth_multiplier; bias of out_c values. */
static bool check_depthwise_shapes(const TfLiteContext* context,
                                   const TfLiteNode* node, int multiplier,
                                   char* reason, size_t size) {
  const TfLiteTensor* in = input(context, node, 0);
  const TfLiteTensor* filter = input(context, node, 1);
  const TfLiteTensor* bias = input(context, node, 2);
  const TfLiteTensor* out = output(context, node, 0);
  if (rank(in) != 4) return fail(reason, size, "input.dims.size != 4");
  if (rank(filter) != 4) return fail(reason, size, "filter.dims.size != 4");
  if (rank(out) != 4) return fail(reason, size, "output.dims.size != 4");
  if (dim(in, 0) != dim(out, 0)) {
    return fail(reason, size, "input.b != output.b");
  }
  const int in_c = dim(in, 3), out_c = dim(out, 3);
  if (dim(filter, 3) != out_c) {
    return fail(reason, size, "filter.i != output.c");
  }
  if (out_c != in_c * multiplier) {
    return fail(reason, size, "output.c != input.c * depth_multiplier");
  }
  if (bias != NULL) {
    long long n = 1;
    for (int i = 0; i < rank(bias); ++i) n *= bias->dims->data[i];
    if (n != out_c) return fail(reason, size, "bias.size != output.c");
  }
  if (multiplier != 1 && in_c != 1) {
    return fail(reason, size, "depth_multiplier != 1 && input.c != 1");
  }
  return true;
}

static bool check_depthwise(CHECK_ARGS) {
  (void)registration;
  if (!check_conv_io(context, node, reason, size) ||
      !check_params(node, reason, size)) {
    return false;
  }
  const TfLiteDepthwiseConvParams* p = node->builtin_data;
  return check_strides(p->stride_height, p->stride_width, reason, size) &&
         check_dilation(p->dilation_height_factor, p->dilation_width_factor,
                        reason, size) &&
         check_activation(p->activation, reason, size) &&
         check_depthwise_shapes(context, node, p->depth_multiplier, reason,
                                size);
}

static bool check_transpose_conv(CHECK_ARGS) {
  (void)registration;
  if (!check_conv_io(context, node, reason, size) ||
      !check_params(node, reason, size)) {
    return false;
  }
  const TfLiteTransposeConvParams* p = node->builtin_data;
  return check_strides(p->stride_height, p->stride_width, reason, size) &&
         check_activation(p->activation, reason, size);
}

static bool check_fully_connected(CHECK_ARGS) {
  (void)registration;
  if (!check_params(node, reason, size)) return false;
  const TfLiteFullyConnectedParams* p = node->builtin_data;
  if (p->weights_format != kTfLiteFullyConnectedWeightsFormatDefault) {
    return fail(reason, size, "Unsupported FullyConnected weights format: %d",
                (int)p->weights_format);
  }
  if (runtime_inputs(context, node) > 2) {
    return fail(reason, size,
                "FullyConnected doesn't support more than 2 runtime inputs.");
  }
  if (is_const(input(context, node, 0))) {
    return fail(reason, size, "FullyConnected doesn't support constant input.");
  }
  if (p->keep_num_dims &&
      rank(input(context, node, 0)) != rank(output(context, node, 0))) {
    return fail(reason, size,
                "Input and output dimensions different and FullyConnected "
                "doesn't support keep_num_dims.");
  }
  return check_activation(p->activation, reason, size);
}

/* Two runtime operands, or a runtime one times a constant 2-D matrix (which
 * the GPU runs as a 1x1 convolution). */
static bool check_batch_matmul(CHECK_ARGS) {
  (void)registration;
  if (num_inputs(node) != 2 || num_outputs(node) != 1) {
    return fail(reason, size,
                "Expected 2 inputs and 1 output, got: %d inputs and %d "
                "outputs",
                num_inputs(node), num_outputs(node));
  }
  const int runtime = runtime_inputs(context, node);
  const TfLiteTensor* b = input(context, node, 1);
  if (runtime == 2 || (runtime == 1 && is_const(b) && rank(b) == 2)) {
    return true;
  }
  return fail(reason, size, "Not supported batched mat mul case");
}

/* LSTM (gpu_compatibility.cc): the FULL kernel with 20 or 24 inputs (24:
 * layer normalization) and one output, sigmoid or tanh activation, any
 * clips; the BASIC kernel with 3 runtime and 2 constant inputs and 4
 * outputs, tanh and no clips. TFLite's full-kernel parser then refuses a
 * cell state of batch other than 1 ("Batched execution is not supported
 * for LSTM"), which would fail the delegate; here it leaves the node on the
 * CPU. */
static bool check_lstm(CHECK_ARGS) {
  (void)registration;
  if (!check_params(node, reason, size)) return false;
  const TfLiteLSTMParams* p = node->builtin_data;
  if (p->kernel_type == kTfLiteLSTMBasicKernel) {
    if (!check_ico(context, node, 3, 2, 4, reason, size)) return false;
    if (p->activation != kTfLiteActTanh) {
      return fail(reason, size,
                  "Only TANH activation is supported. but node has %d",
                  (int)p->activation);
    }
    if (p->cell_clip != 0.0f) {
      return fail(reason, size, "cell_clip is not supported.");
    }
    if (p->proj_clip != 0.0f) {
      return fail(reason, size, "proj_clip is not supported.");
    }
    return true;
  }
  const int inputs = num_inputs(node);
  if (inputs != 20 && inputs != 24) {
    return fail(reason, size,
                "Expected 20 or 24 input tensors, but node has %d input(s).",
                inputs);
  }
  if (num_outputs(node) != 1) {
    return fail(reason, size,
                "Expected 1 output tensor, but node has %d output(s).",
                num_outputs(node));
  }
  if (p->activation != kTfLiteActSigmoid && p->activation != kTfLiteActTanh) {
    return fail(reason, size,
                "Only sigmoid or tanh activation is supported, but node has "
                "%d",
                (int)p->activation);
  }
  const TfLiteTensor* cell_state = input(context, node, 19);
  if (cell_state != NULL && dim(cell_state, 0) != 1) {
    return fail(reason, size, "Batched execution is not supported for LSTM");
  }
  return true;
}

static bool check_pool(CHECK_ARGS) {
  (void)registration;
  if (!check_params(node, reason, size) ||
      !check_io(context, node, 1, 1, reason, size)) {
    return false;
  }
  const TfLitePoolParams* p = node->builtin_data;
  if (p->filter_height <= 0 || p->filter_width <= 0) {
    return fail(reason, size,
                "Incorrect kernel values: kernel_height = %d, kernel_width = "
                "%d",
                p->filter_height, p->filter_width);
  }
  return check_strides(p->stride_height, p->stride_width, reason, size) &&
         check_activation(p->activation, reason, size);
}

static bool check_mean(CHECK_ARGS) {
  return check_ico(context, node, 1, 1, 1, reason, size) &&
         check_axes(context, node, registration->builtin_code, reason, size);
}

/* SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD. */
static bool check_reduce(CHECK_ARGS) {
  return check_io(context, node, 1, 1, reason, size) &&
         check_axes(context, node, registration->builtin_code, reason, size);
}

static bool check_concatenation(CHECK_ARGS) {
  (void)context;
  (void)registration;
  if (!check_params(node, reason, size)) return false;
  const TfLiteConcatenationParams* p = node->builtin_data;
  return check_activation(p->activation, reason, size);
}

/* PAD, PADV2, MIRROR_PAD: constant paddings of shape 4x2 or 3x2. */
static bool check_pad(CHECK_ARGS) {
  if (registration->builtin_code == kTfLiteBuiltinMirrorPad) {
    if (!check_params(node, reason, size)) return false;
    const TfLiteMirrorPaddingParams* p = node->builtin_data;
    if (p->mode != kTfLiteMirrorPaddingReflect) {
      return fail(reason, size,
                  "Only Reflective padding is supported for Mirror Pad "
                  "operation. But node has %d",
                  (int)p->mode);
    }
  }
  if (!check_io(context, node, 1, 1, reason, size)) return false;
  const TfLiteTensor* pads = input(context, node, 1);
  if (pads == NULL) {
    return fail(reason, size, "Requested index goes beyond array size: 1 vs %d",
                num_inputs(node));
  }
  if (rank(pads) != 2) {
    return fail(reason, size,
                "Invalid paddings tensor dimension: expected 2 dim, got %d dim",
                rank(pads));
  }
  if ((dim(pads, 0) != 3 && dim(pads, 0) != 4) || dim(pads, 1) != 2) {
    return fail(reason, size,
                "Invalid paddings tensor shape: expected 4x2 or 3x2, got %dx%d",
                dim(pads, 0), dim(pads, 1));
  }
  return true;
}

/* SLICE: rank 3 or 4, begin and size constant (the GPU reads them when it
 * builds the program). */
static bool check_slice(CHECK_ARGS) {
  (void)registration;
  if (num_inputs(node) < 3) {
    return fail(reason, size,
                "SLICE requires 3 inputs, but node has %d inputs.",
                num_inputs(node));
  }
  const int r = rank(input(context, node, 0));
  if (r != 3 && r != 4) {
    return fail(reason, size,
                "SLICE supports for 3 or 4 dimensional tensors only, but node "
                "has %d dimensional tensors.",
                r);
  }
  return check_io(context, node, 1, 1, reason, size);
}

static bool check_strided_slice(CHECK_ARGS) {
  (void)registration;
  if (!check_params(node, reason, size)) return false;
  const TfLiteStridedSliceParams* p = node->builtin_data;
  if (p->ellipsis_mask) {
    return fail(reason, size, "Slice does not support ellipsis_mask.");
  }
  if (p->new_axis_mask) {
    return fail(reason, size, "Slice does not support new_axis_mask.");
  }
  if (p->shrink_axis_mask) {
    return fail(reason, size,
                "Slice does not support shrink_axis_mask parameter. ");
  }
  if (num_inputs(node) < 4) {
    return fail(reason, size, "STRIDED_SLICE requires 4 inputs.");
  }
  const int r = rank(input(context, node, 0));
  if (r != 3 && r != 4) {
    return fail(reason, size,
                "STRIDED_SLICE supports for 3 or 4 dimensional tensors only.");
  }
  return check_io(context, node, 1, 1, reason, size);
}

/* SPLIT and SPLIT_V: one runtime input; the axis (and sizes) constant. */
static bool check_split(CHECK_ARGS) {
  (void)registration;
  const int have = runtime_inputs(context, node);
  if (have != 1) {
    return fail(reason, size,
                "Expected 1 runtime input tensor(s), but node has %d runtime "
                "input(s).",
                have);
  }
  return true;
}

static bool check_gather(CHECK_ARGS) {
  (void)registration;
  if (!check_ico(context, node, 2, 0, 1, NULL, 0) &&
      !check_ico(context, node, 1, 1, 1, NULL, 0)) {
    return fail(reason, size, "Op can only handle 1 or 2 operand(s).");
  }
  const TfLiteTensor* params = input(context, node, 0);
  const TfLiteTensor* indices = input(context, node, 1);
  if (params != NULL && params->type == kTfLiteInt32) {
    return fail(reason, size, "Does not accept INT32 input.");
  }
  if (rank(indices) != 1) {
    return fail(reason, size, "Only support 1D indices");
  }
  if (indices->type != kTfLiteInt32) {
    return fail(reason, size, "Only accept INT32 indices");
  }
  return true;
}

/* DEPTH_TO_SPACE and SPACE_TO_DEPTH: block_size > 1. */
static bool check_block(CHECK_ARGS) {
  if (!check_io(context, node, 1, 1, reason, size) ||
      !check_params(node, reason, size)) {
    return false;
  }
  /* Both params structs hold only block_size. */
  const int block =
      ((const TfLiteDepthToSpaceParams*)node->builtin_data)->block_size;
  const char* name = lg_builtin_op_name(registration->builtin_code);
  if (block == 1) {
    return fail(reason, size, "%s block_size = 1 is a no-op.", name);
  }
  if (block < 1) {
    return fail(reason, size, "%s block_size must be > 1.", name);
  }
  return true;
}

/* RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR. TFLite refuses both flags
 * only for bilinear; the GPU kernels here take the same rule for both. */
static bool check_resize(CHECK_ARGS) {
  (void)registration;
  if (!check_io(context, node, 1, 1, reason, size) ||
      !check_params(node, reason, size)) {
    return false;
  }
  /* Both params structs are {align_corners, half_pixel_centers}. */
  const TfLiteResizeBilinearParams* p = node->builtin_data;
  if (p->align_corners && p->half_pixel_centers) {
    return fail(reason, size,
                "If half_pixel_centers is True, align_corners must be False.");
  }
  return true;
}

static bool check_softmax(CHECK_ARGS) {
  (void)context;
  (void)registration;
  if (!check_params(node, reason, size)) return false;
  const TfLiteSoftmaxParams* p = node->builtin_data;
  if (p->beta != 1.0f) {
    return fail(reason, size, "Softmax.beta != 1 is not supported.");
  }
  return true;
}

/* DEQUANTIZE (TFLite's rule): one input and one output, not INT16. A
 * constant input becomes a constant on the device; a runtime one (INT8 or
 * UINT8, ENABLE_QUANT) a fake quantization onto its grid. */
static bool check_dequantize(CHECK_ARGS) {
  (void)registration;
  if (num_inputs(node) != 1 || num_outputs(node) != 1) {
    return fail(reason, size,
                "Expected 1 input & output each from Dequantize, got: %d, %d",
                num_inputs(node), num_outputs(node));
  }
  const TfLiteTensor* in = input(context, node, 0);
  if (in != NULL && in->type == kTfLiteInt16) {
    return fail(reason, size, "Unsupported dequantization type.");
  }
  return true;
}

/* DENSIFY (TFLite's rule): no runtime input, one output. */
static bool check_densify(CHECK_ARGS) {
  (void)registration;
  return check_io(context, node, 0, 1, reason, size);
}

/* QUANTIZE (TFLite's QuantizeOperationParser, a parser only with
 * allow_quant_ops): one runtime input and one output. */
static bool check_quantize(CHECK_ARGS) {
  (void)registration;
  return check_io(context, node, 1, 1, reason, size);
}

/* Counts the execution plan's nodes that write tensor `t` (*producers)
 * and read it (*consumers); the last producer's builtin code goes into
 * *producer_code. TFLite's GetTensorInfo. A context without a plan (a
 * hand-built one) has neither. */
static void tensor_users(TfLiteContext* context, int t, int* producers,
                         int* consumers, int32_t* producer_code) {
  *producers = *consumers = 0;
  *producer_code = -1;
  TfLiteIntArray* plan = NULL;
  if (context->GetExecutionPlan == NULL ||
      context->GetExecutionPlan(context, &plan) != kTfLiteOk || plan == NULL) {
    return;
  }
  for (int i = 0; i < plan->size; ++i) {
    TfLiteNode* n = NULL;
    TfLiteRegistration* r = NULL;
    if (context->GetNodeAndRegistration(context, plan->data[i], &n, &r) !=
        kTfLiteOk) {
      continue;
    }
    for (int k = 0; n->outputs != NULL && k < n->outputs->size; ++k) {
      if (n->outputs->data[k] != t) continue;
      ++*producers;
      *producer_code = r->builtin_code;
    }
    for (int k = 0; n->inputs != NULL && k < n->inputs->size; ++k) {
      if (n->inputs->data[k] == t) ++*consumers;
    }
  }
}

/* CAST (TFLite's CastOperationParser, then gpu_compatibility.cc): bool to
 * float only as the sequence comparison -> bool tensor -> CAST -> float,
 * the bool tensor written by one comparison and read by this CAST alone;
 * float to bool; between float32 and int32. */
static bool check_cast(CHECK_ARGS) {
  (void)registration;
  const TfLiteTensor* in = input(context, node, 0);
  const TfLiteTensor* out = output(context, node, 0);
  const TfLiteType a = in ? in->type : kTfLiteNoType;
  const TfLiteType b = out ? out->type : kTfLiteNoType;
  if (a == kTfLiteBool && is_float(b)) {
    int producers, consumers;
    int32_t producer;
    tensor_users(context, node->inputs->data[0], &producers, &consumers,
                 &producer);
    if (producers != 1 || consumers != 1 || !is_comparison(producer)) {
      return fail(reason, size, "Not supported cast case");
    }
  }
  if (!check_io(context, node, 1, 1, reason, size)) return false;
  if ((a == kTfLiteBool && is_float(b)) || (is_float(a) && b == kTfLiteBool) ||
      ((a == kTfLiteFloat32 || a == kTfLiteInt32) &&
       (b == kTfLiteFloat32 || b == kTfLiteInt32))) {
    return true;
  }
  return fail(reason, size,
              "Not supported Cast case. Input type: %s and output type: %s",
              TfLiteTypeGetName(a), TfLiteTypeGetName(b));
}

/* ---- MediaPipe's custom ops --------------------------------------------
 *
 * TFLite's GPU delegate parses the three MediaPipe ops (custom_parsers):
 * their custom options are raw TfLiteTransposeConvParams and
 * TfLitePoolParams structs (runtime/kernels/mediapipe_ops.h reads them). */

static bool check_transpose_conv_bias(CHECK_ARGS) {
  (void)registration;
  TfLiteTransposeConvParams p;
  if (!lg_mediapipe_transpose_conv_params(node, &p)) {
    return fail(reason, size, "Unable to retrieve custom_initial_data.");
  }
  if (num_inputs(node) != 3 || !is_const(input(context, node, 1)) ||
      !is_const(input(context, node, 2))) {
    return fail(reason, size,
                "Expected an input, constant weights and a constant bias.");
  }
  return check_io(context, node, 1, 1, reason, size);
}

/* MaxPoolingWithArgmax2D (1 input, values and positions) and
 * MaxUnpooling2D (values and positions, 1 output). */
static bool check_mediapipe_pool(CHECK_ARGS) {
  TfLitePoolParams p;
  if (!lg_mediapipe_pool_params(node, &p)) {
    return fail(reason, size, "Unable to retrieve custom_initial_data.");
  }
  const bool unpool =
      strcmp(registration->custom_name, LG_MEDIAPIPE_MAX_UNPOOL) == 0;
  return check_io(context, node, unpool ? 2 : 1, unpool ? 1 : 2, reason,
                  size) &&
         check_activation(p.activation, reason, size);
}

/* ---- The table --------------------------------------------------------- */

/* Every table check: the op's rules, then the tensor filter. */
#define GPU_CHECK(fn)                                                       \
  static bool gpu_##fn(CHECK_ARGS) {                                        \
    return fn(context, node, registration, reason, size) &&                 \
           check_tensors(context, node, registration->builtin_code, reason, \
                         size);                                             \
  }

GPU_CHECK(check_add)
GPU_CHECK(check_mul)
GPU_CHECK(check_binary)
GPU_CHECK(check_add_n)
GPU_CHECK(check_select)
GPU_CHECK(check_pack)
GPU_CHECK(check_cumsum)
GPU_CHECK(check_one_hot)
GPU_CHECK(check_unary)
GPU_CHECK(check_one_runtime)
GPU_CHECK(check_relu)
GPU_CHECK(check_conv)
GPU_CHECK(check_depthwise)
GPU_CHECK(check_transpose_conv)
GPU_CHECK(check_fully_connected)
GPU_CHECK(check_batch_matmul)
GPU_CHECK(check_lstm)
GPU_CHECK(check_pool)
GPU_CHECK(check_mean)
GPU_CHECK(check_reduce)
GPU_CHECK(check_concatenation)
GPU_CHECK(check_pad)
GPU_CHECK(check_slice)
GPU_CHECK(check_strided_slice)
GPU_CHECK(check_split)
GPU_CHECK(check_gather)
GPU_CHECK(check_block)
GPU_CHECK(check_resize)
GPU_CHECK(check_softmax)
GPU_CHECK(check_dequantize)
GPU_CHECK(check_quantize)
GPU_CHECK(check_densify)
GPU_CHECK(check_cast)
GPU_CHECK(check_transpose_conv_bias)
GPU_CHECK(check_mediapipe_pool)

/* The table: the manifest's GPU rows (ops/ops.def), each with TFLite's
 * kMaxVersion and its check gpu_check_<support>. */
#define GPU_ROW(NAME, code, custom, family, cpu, cpu_min, cpu_max, gpu, max, \
                support, ...)                                                \
  GPU_ROW_##gpu(code, custom, max, support)
#define GPU_ROW_GPU(code, custom, max, support) \
  {code, custom, max, gpu_check_##support},
#define GPU_ROW_NO_GPU(code, custom, max, support)

static const lg_kit_op kGpuOps[] = {
#define LG_MANIFEST_EACH GPU_ROW
#include "ops/op_manifest_each.h"
};

#undef GPU_ROW
#undef GPU_ROW_GPU
#undef GPU_ROW_NO_GPU

const lg_kit_op* lg_gpu_op_table(int* count) {
  if (count != NULL) *count = (int)(sizeof(kGpuOps) / sizeof(kGpuOps[0]));
  return kGpuOps;
}

const lg_kit_op* lg_gpu_op_find(int32_t builtin_code, const char* custom_name) {
  for (size_t i = 0; i < sizeof(kGpuOps) / sizeof(kGpuOps[0]); ++i) {
    const lg_kit_op* op = &kGpuOps[i];
    if (lg_op_same(op->builtin_code, op->custom_name, builtin_code,
                   custom_name)) {
      return op;
    }
  }
  return NULL;
}

bool lg_gpu_op_supported(TfLiteContext* context, const TfLiteNode* node,
                         const TfLiteRegistration* registration, char* reason,
                         size_t size) {
  if (reason != NULL && size > 0) reason[0] = '\0';
  const lg_kit_op* op =
      lg_gpu_op_find(registration->builtin_code, registration->custom_name);
  if (op == NULL) return fail(reason, size, "Operation is not supported.");
  if (registration->version > op->max_version) {
    return fail(reason, size,
                "Max version supported: %d. Requested version %d.",
                op->max_version, registration->version);
  }
  return op->check(context, node, registration, reason, size);
}
