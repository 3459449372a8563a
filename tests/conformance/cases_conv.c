/* Convolution and matrix cases: CONV_2D (1x1, 3x3 stride 1 and 2, SAME and
 * VALID, dilation 2, with and without bias, batch 2, 1x1 spatial, 64x64),
 * DEPTHWISE_CONV_2D (multiplier 1 and 2, stride 2, dilation 2),
 * TRANSPOSE_CONV, FULLY_CONNECTED (2-D and 4-D input, keep_num_dims both
 * ways), BATCH_MATMUL (adj_x / adj_y, broadcast batch, constant rhs) and
 * LSTM (peephole, projection, clips, CIFG, layer normalization; three
 * Invokes carrying the state), with the fused activations of the ops that have
 * one.
 *
 * Values: inputs in [-1, 1], weights in +-1/sqrt(K) for a reduction over K
 * terms and biases in [-0.5, 0.5], so outputs stay near 1 and summation
 * order (the GEMM's blocking against a device's) stays well inside the
 * 1e-5 bound. */
#include <math.h>

#include "tests/conformance/conformance.h"

static const TfLiteFusedActivation kActs[] = {kTfLiteActRelu, kTfLiteActRelu6,
                                              kTfLiteActReluN1To1};

/* Weights for a reduction over `k` terms. */
static int32_t scaled_weights(conf_builder* b, conf_shape shape, int k) {
  const float r = 1.0f / sqrtf((float)(k > 0 ? k : 1));
  return conf_weights(b, shape, -r, r);
}

static int32_t bias_or_none(conf_builder* b, bool bias, int count) {
  return bias ? conf_weights(b, CONF_SHAPE(count), -0.5f, 0.5f) : -1;
}

/* ---- CONV_2D ------------------------------------------------------------- */

typedef struct conv_case {
  const char* label;
  conf_shape input; /* NHWC */
  int out_c, kh, kw, stride, dilation;
  TfLitePadding padding;
  bool bias;
} conv_case;

static const conv_case kConv[] = {
    {"1x1_c3_o5", {4, {1, 8, 8, 3}}, 5, 1, 1, 1, 1, kTfLitePaddingSame, true},
    {"3x3_s1_same_c7_o17",
     {4, {1, 9, 9, 7}},
     17,
     3,
     3,
     1,
     1,
     kTfLitePaddingSame,
     true},
    {"3x3_s2_same_c3_o5",
     {4, {1, 9, 9, 3}},
     5,
     3,
     3,
     2,
     1,
     kTfLitePaddingSame,
     true},
    {"3x3_s2_valid_c5_o3",
     {4, {1, 10, 10, 5}},
     3,
     3,
     3,
     2,
     1,
     kTfLitePaddingValid,
     true},
    {"3x3_s1_valid_nobias_batch2",
     {4, {2, 7, 7, 3}},
     7,
     3,
     3,
     1,
     1,
     kTfLitePaddingValid,
     false},
    {"3x3_dilation2_same",
     {4, {1, 9, 9, 3}},
     5,
     3,
     3,
     1,
     2,
     kTfLitePaddingSame,
     true},
    {"5x5_c1_o1", {4, {1, 11, 11, 1}}, 1, 5, 5, 1, 1, kTfLitePaddingSame, true},
    {"1x1_spatial1_c17",
     {4, {1, 1, 1, 17}},
     5,
     1,
     1,
     1,
     1,
     kTfLitePaddingValid,
     true},
    {"3x3_large_64x64_o8",
     {4, {1, 64, 64, 3}},
     8,
     3,
     3,
     1,
     1,
     kTfLitePaddingSame,
     true},
    /* Few columns, many channels: on a device with lanes (Vulkan) one
     * 4-channel quad per work item, quads first (lower_conv.c's
     * fill_lanes). kws_cnn's first conv with 62 channels (a partial
     * quad); batch 2; a 1x1 with 7 blocks of 7 pixels. */
    {"10x4_s2_same_c1_o62",
     {4, {1, 49, 10, 1}},
     62,
     10,
     4,
     2,
     1,
     kTfLitePaddingSame,
     true},
    {"3x3_s1_same_c5_o40_batch2",
     {4, {2, 4, 3, 5}},
     40,
     3,
     3,
     1,
     1,
     kTfLitePaddingSame,
     true},
    {"1x1_7x7_c9_o36",
     {4, {1, 7, 7, 9}},
     36,
     1,
     1,
     1,
     1,
     kTfLitePaddingSame,
     true},
};

static int build_conv(conf_builder* b, const conf_case* c) {
  const conv_case* p = c->args;
  const int in_c = p->input.d[3];
  int32_t in[3];
  in[0] = conf_input(b, p->input, -1, 1);
  in[1] = scaled_weights(b, CONF_SHAPE(p->out_c, p->kh, p->kw, in_c),
                         p->kh * p->kw * in_c);
  in[2] = bias_or_none(b, p->bias, p->out_c);
  const TfLiteConvParams params = {.padding = p->padding,
                                   .stride_width = p->stride,
                                   .stride_height = p->stride,
                                   .activation = c->act,
                                   .dilation_width_factor = p->dilation,
                                   .dilation_height_factor = p->dilation,
                                   .quantized_bias_type = kTfLiteNoType};
  return conf_op1(b, kTfLiteBuiltinConv2d, in, 3, &params) < 0 ? -1 : 0;
}

/* ---- DEPTHWISE_CONV_2D --------------------------------------------------- */

typedef struct depthwise_case {
  const char* label;
  conf_shape input;
  int multiplier, kh, kw, stride, dilation;
  TfLitePadding padding;
  bool bias;
} depthwise_case;

static const depthwise_case kDepthwise[] = {
    {"m1_3x3_s1_same_c17",
     {4, {1, 9, 9, 17}},
     1,
     3,
     3,
     1,
     1,
     kTfLitePaddingSame,
     true},
    {"m1_3x3_s2_same_c5",
     {4, {1, 10, 10, 5}},
     1,
     3,
     3,
     2,
     1,
     kTfLitePaddingSame,
     true},
    {"m2_3x3_s1_valid_c3",
     {4, {1, 8, 8, 3}},
     2,
     3,
     3,
     1,
     1,
     kTfLitePaddingValid,
     true},
    {"m2_3x3_s2_batch2",
     {4, {2, 7, 7, 3}},
     2,
     3,
     3,
     2,
     1,
     kTfLitePaddingSame,
     false},
    {"m1_dilation2_c7",
     {4, {1, 9, 9, 7}},
     1,
     3,
     3,
     1,
     2,
     kTfLitePaddingSame,
     true},
    {"m1_5x5_c1", {4, {1, 8, 8, 1}}, 1, 5, 5, 1, 1, kTfLitePaddingSame, true},
    {"m1_3x3_large_64x64_c8",
     {4, {1, 64, 64, 8}},
     1,
     3,
     3,
     1,
     1,
     kTfLitePaddingSame,
     true},
};

static int build_depthwise(conf_builder* b, const conf_case* c) {
  const depthwise_case* p = c->args;
  const int out_c = p->input.d[3] * p->multiplier;
  int32_t in[3];
  in[0] = conf_input(b, p->input, -1, 1);
  in[1] = scaled_weights(b, CONF_SHAPE(1, p->kh, p->kw, out_c), p->kh * p->kw);
  in[2] = bias_or_none(b, p->bias, out_c);
  const TfLiteDepthwiseConvParams params = {
      .padding = p->padding,
      .stride_width = p->stride,
      .stride_height = p->stride,
      .depth_multiplier = p->multiplier,
      .activation = c->act,
      .dilation_width_factor = p->dilation,
      .dilation_height_factor = p->dilation};
  return conf_op1(b, kTfLiteBuiltinDepthwiseConv2d, in, 3, &params) < 0 ? -1
                                                                        : 0;
}

/* ---- TRANSPOSE_CONV ------------------------------------------------------ */

typedef struct transpose_conv_case {
  const char* label;
  conf_shape input;  /* NHWC */
  conf_shape output; /* NHWC: what a CONV_2D maps back to the input */
  int k, stride;
  TfLitePadding padding;
  bool bias;
} transpose_conv_case;

static const transpose_conv_case kTransposeConv[] = {
    {"3x3_s2_same_c5_o3",
     {4, {1, 4, 4, 5}},
     {4, {1, 8, 8, 3}},
     3,
     2,
     kTfLitePaddingSame,
     true},
    {"2x2_s2_valid_c3_o7",
     {4, {1, 5, 5, 3}},
     {4, {1, 10, 10, 7}},
     2,
     2,
     kTfLitePaddingValid,
     false},
    {"3x3_s1_same_batch2",
     {4, {2, 6, 6, 4}},
     {4, {2, 6, 6, 2}},
     3,
     1,
     kTfLitePaddingSame,
     true},
    {"4x4_s2_valid_c1",
     {4, {1, 3, 3, 1}},
     {4, {1, 8, 8, 1}},
     4,
     2,
     kTfLitePaddingValid,
     true},
};

static int build_transpose_conv(conf_builder* b, const conf_case* c) {
  const transpose_conv_case* p = c->args;
  const int in_c = p->input.d[3], out_c = p->output.d[3];
  int32_t in[4];
  in[0] = conf_const_i32_vec(b, 4, p->output.d);
  in[1] = scaled_weights(b, CONF_SHAPE(out_c, p->k, p->k, in_c),
                         p->k * p->k * in_c);
  in[2] = conf_input(b, p->input, -1, 1);
  in[3] = bias_or_none(b, p->bias, out_c);
  const TfLiteTransposeConvParams params = {
      .padding = p->padding,
      .stride_width = p->stride,
      .stride_height = p->stride,
      .activation = c->act,
      .quantized_bias_type = kTfLiteNoType};
  return conf_op1(b, kTfLiteBuiltinTransposeConv, in, p->bias ? 4 : 3,
                  &params) < 0
             ? -1
             : 0;
}

/* ---- FULLY_CONNECTED ----------------------------------------------------- */

typedef struct fc_case {
  const char* label;
  conf_shape input;
  int out_c, in_c; /* weights [out_c, in_c] */
  bool keep_num_dims, bias;
} fc_case;

static const fc_case kFc[] = {
    {"2d_batch3_i17_o5", {2, {3, 17}}, 5, 17, false, true},
    {"2d_i64_o10_nobias", {2, {1, 64}}, 10, 64, false, false},
    {"4d_rows_i8_o5", {4, {1, 4, 4, 8}}, 5, 8, false, true},
    {"4d_keep_num_dims_i8_o5", {4, {2, 3, 3, 8}}, 5, 8, true, true},
    {"4d_flatten_i12_o3", {4, {1, 2, 2, 3}}, 3, 12, false, true},
    {"2d_batch4_i256_o64", {2, {4, 256}}, 64, 256, false, true},
};

static int build_fc(conf_builder* b, const conf_case* c) {
  const fc_case* p = c->args;
  int32_t in[3];
  in[0] = conf_input(b, p->input, -1, 1);
  in[1] = scaled_weights(b, CONF_SHAPE(p->out_c, p->in_c), p->in_c);
  in[2] = bias_or_none(b, p->bias, p->out_c);
  const TfLiteFullyConnectedParams params = {
      .activation = c->act,
      .weights_format = kTfLiteFullyConnectedWeightsFormatDefault,
      .keep_num_dims = p->keep_num_dims,
      .asymmetric_quantize_inputs = false,
      .quantized_bias_type = kTfLiteNoType};
  return conf_op1(b, kTfLiteBuiltinFullyConnected, in, 3, &params) < 0 ? -1 : 0;
}

/* ---- BATCH_MATMUL -------------------------------------------------------- */

typedef struct matmul_case {
  const char* label;
  conf_shape x, y;
  bool adj_x, adj_y, y_const;
} matmul_case;

static const matmul_case kMatmul[] = {
    {"b2_3x5_5x4", {3, {2, 3, 5}}, {3, {2, 5, 4}}, false, false, false},
    {"adj_x", {3, {2, 5, 3}}, {3, {2, 5, 4}}, true, false, false},
    {"adj_y", {3, {2, 3, 5}}, {3, {2, 4, 5}}, false, true, false},
    {"adj_x_adj_y", {3, {2, 5, 3}}, {3, {2, 4, 5}}, true, true, false},
    {"bcast_rhs_const_2d", {3, {2, 3, 7}}, {2, {7, 5}}, false, false, true},
    {"4d_b1x2_3x7_7x5",
     {4, {1, 2, 3, 7}},
     {4, {1, 2, 7, 5}},
     false,
     false,
     false},
};

static int build_matmul(conf_builder* b, const conf_case* c) {
  const matmul_case* p = c->args;
  int32_t in[2];
  in[0] = conf_input(b, p->x, -1, 1);
  in[1] =
      p->y_const ? conf_weights(b, p->y, -1, 1) : conf_input(b, p->y, -1, 1);
  const TfLiteBatchMatMulParams params = {.adj_x = p->adj_x,
                                          .adj_y = p->adj_y,
                                          .asymmetric_quantize_inputs = false};
  return conf_op1(b, kTfLiteBuiltinBatchMatmul, in, 2, &params) < 0 ? -1 : 0;
}

/* ---- LSTM ----------------------------------------------------------------
 *
 * The FULL kernel, three Invokes on the same input so the second and third
 * read the states the previous ones left in the variable tensors. */

typedef struct lstm_case {
  const char* label;
  int batch, n_input, n_cell, n_output;
  bool cifg, peephole, projection, layer_norm;
  TfLiteFusedActivation act;
  float cell_clip, proj_clip;
  bool hybrid; /* INT8 gate, peephole and projection weights (version 3) */
} lstm_case;

enum { kLstmInvokes = 3 };

/* A hybrid case's bound: the CPU quantizes the input and the output state
 * to int8 per row (a step of up to 1/127 of the row's largest magnitude)
 * where the GPU computes in float. */
static const double kLstmHybridTol = 5e-3;

static const lstm_case kLstm[] = {
    /* peephole, projection with bias, both clips (reached: the cell state
     * grows past 0.6 over the three steps) */
    {"peephole_projection_clips", 1, 5, 8, 4, false, true, true, false,
     kTfLiteActTanh, 0.6f, 0.3f, false},
    {"cifg", 1, 6, 7, 7, true, false, false, false, kTfLiteActTanh, 0, 0,
     false},
    {"cifg_peephole", 1, 3, 5, 5, true, true, false, false, kTfLiteActTanh, 0,
     0, false},
    {"layer_norm", 1, 4, 6, 6, false, false, false, true, kTfLiteActTanh, 0, 0,
     false},
    {"layer_norm_cifg_peephole_projection", 1, 3, 7, 4, true, true, true, true,
     kTfLiteActTanh, 0, 0, false},
    /* TFLite's parser refuses a batch of 2: it stays on the CPU. */
    {"batch2", 2, 4, 5, 5, false, false, false, false, kTfLiteActTanh, 0, 0,
     false},
    /* Hybrid: the GPU dequantizes the weights and computes in float, the
     * CPU quantizes the input and state per row too (a looser bound). */
    {"hybrid", 1, 5, 6, 6, false, false, false, false, kTfLiteActTanh, 0, 0,
     true},
    {"hybrid_cifg_peephole_projection", 1, 4, 7, 3, true, true, true, false,
     kTfLiteActTanh, 0, 0, true},
};

/* A gate's (or the projection's) weights [rows, k]: float32, or INT8 of one
 * scale in a hybrid case, both of magnitude up to 1 / sqrt(k). */
static int32_t lstm_weights(conf_builder* b, const lstm_case* p, int rows,
                            int k) {
  if (!p->hybrid) return scaled_weights(b, CONF_SHAPE(rows, k), k);
  return conf_weights_int8(b, CONF_SHAPE(rows, k),
                           1.0f / (127.0f * sqrtf((float)k)));
}

static int build_lstm(conf_builder* b, const conf_case* c) {
  const lstm_case* p = c->args;
  int32_t in[24];
  for (int i = 0; i < 24; ++i) in[i] = -1;
  in[0] = conf_input(b, CONF_SHAPE(p->batch, p->n_input), -1, 1);
  for (int g = p->cifg ? 1 : 0; g < 4; ++g) {
    in[1 + g] = lstm_weights(b, p, p->n_cell, p->n_input);
    in[5 + g] = lstm_weights(b, p, p->n_cell, p->n_output);
    in[12 + g] = bias_or_none(b, true, p->n_cell);
    if (p->layer_norm) {
      in[20 + g] = conf_weights(b, CONF_SHAPE(p->n_cell), 0.5f, 1.5f);
    }
  }
  for (int g = p->cifg ? 1 : 0; p->peephole && g < 3; ++g) {
    in[9 + g] = p->hybrid
                    ? conf_weights_int8(b, CONF_SHAPE(p->n_cell), 0.5f / 127.0f)
                    : conf_weights(b, CONF_SHAPE(p->n_cell), -0.5f, 0.5f);
  }
  if (p->projection) {
    in[16] = lstm_weights(b, p, p->n_output, p->n_cell);
    in[17] = bias_or_none(b, true, p->n_output);
  }
  in[18] = conf_variable(b, CONF_SHAPE(p->batch, p->n_output));
  in[19] = conf_variable(b, CONF_SHAPE(p->batch, p->n_cell));
  b->invokes = kLstmInvokes;
  const TfLiteLSTMParams params = {.activation = p->act,
                                   .cell_clip = p->cell_clip,
                                   .proj_clip = p->proj_clip,
                                   .kernel_type = kTfLiteLSTMFullKernel,
                                   .asymmetric_quantize_inputs = false};
  return conf_op1(b, kTfLiteBuiltinLstm, in, p->layer_norm ? 24 : 20, &params) <
                 0
             ? -1
             : 0;
}

/* The BASIC kernel type: input, prev_activation, weights [4 * depth,
 * n_input + depth], biases, prev_state (variable tensors: the kernel
 * writes them back); four outputs. Three Invokes, as for FULL. The GPU's
 * refusals of other state tensors are checked in test_gpu_delegate. */
typedef struct lstm_basic_case {
  const char* label;
  int batch, n_input, depth;
  /* The two states are graph inputs, not variables: the CPU kernel still
   * writes the new state into them (TFLite's), so it carries across
   * Invokes; the GPU refuses the node (its state would not reach the
   * host's input tensors). */
  bool input_states;
} lstm_basic_case;

static const lstm_basic_case kLstmBasic[] = {
    {"basic", 1, 5, 6, false},
    {"basic_batch3", 3, 3, 4, false},
    {"basic_input_states", 2, 3, 4, true},
};

static int build_lstm_basic(conf_builder* b, const conf_case* c) {
  const lstm_basic_case* p = c->args;
  const int total = p->n_input + p->depth;
  int32_t in[5];
  in[0] = conf_input(b, CONF_SHAPE(p->batch, p->n_input), -1, 1);
  in[1] = p->input_states ? conf_input(b, CONF_SHAPE(p->batch, p->depth), -1, 1)
                          : conf_variable(b, CONF_SHAPE(p->batch, p->depth));
  in[2] = scaled_weights(b, CONF_SHAPE(4 * p->depth, total), total);
  in[3] = bias_or_none(b, true, 4 * p->depth);
  in[4] = p->input_states ? conf_input(b, CONF_SHAPE(p->batch, p->depth), -1, 1)
                          : conf_variable(b, CONF_SHAPE(p->batch, p->depth));
  int32_t out[4];
  for (int i = 0; i < 4; ++i) out[i] = conf_output(b);
  b->invokes = kLstmInvokes;
  const TfLiteLSTMParams params = {.activation = kTfLiteActTanh,
                                   .kernel_type = kTfLiteLSTMBasicKernel};
  return conf_op(b, kTfLiteBuiltinLstm, 0, in, 5, out, 4, &params) < 0 ? -1 : 0;
}

/* ---- Registration -------------------------------------------------------- */

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

void conf_add_conv_cases(conf_case_list* list) {
  for (size_t i = 0; i < COUNT(kConv); ++i) {
    conf_case_add(list, kTfLiteBuiltinConv2d, build_conv, &kConv[i],
                  kTfLiteActNone, 0, "conv_2d_%s", kConv[i].label);
  }
  for (size_t i = 0; i < COUNT(kDepthwise); ++i) {
    /* TFLite's GPU rules refuse a multiplier above 1 unless the input has
     * one channel ("depth_multiplier != 1 && input.c != 1"). */
    const depthwise_case* d = &kDepthwise[i];
    conf_case_add(list, kTfLiteBuiltinDepthwiseConv2d, build_depthwise, d,
                  kTfLiteActNone, 0, "depthwise_conv_2d_%s", d->label)
        ->may_refuse = d->multiplier != 1 && d->input.d[d->input.rank - 1] != 1;
  }
  for (size_t i = 0; i < COUNT(kTransposeConv); ++i) {
    conf_case_add(list, kTfLiteBuiltinTransposeConv, build_transpose_conv,
                  &kTransposeConv[i], kTfLiteActNone, 0, "transpose_conv_%s",
                  kTransposeConv[i].label);
  }
  for (size_t i = 0; i < COUNT(kFc); ++i) {
    conf_case_add(list, kTfLiteBuiltinFullyConnected, build_fc, &kFc[i],
                  kTfLiteActNone, 0, "fully_connected_%s", kFc[i].label);
  }
  for (size_t i = 0; i < COUNT(kMatmul); ++i) {
    conf_case_add(list, kTfLiteBuiltinBatchMatmul, build_matmul, &kMatmul[i],
                  kTfLiteActNone, 0, "batch_matmul_%s", kMatmul[i].label);
  }
  for (size_t i = 0; i < COUNT(kLstm); ++i) {
    conf_case_add(list, kTfLiteBuiltinLstm, build_lstm, &kLstm[i],
                  kTfLiteActNone, kLstm[i].hybrid ? kLstmHybridTol : 0,
                  "lstm_%s", kLstm[i].label)
        ->may_refuse = kLstm[i].batch != 1;
  }
  for (size_t i = 0; i < COUNT(kLstmBasic); ++i) {
    conf_case_add(list, kTfLiteBuiltinLstm, build_lstm_basic, &kLstmBasic[i],
                  kTfLiteActNone, 0, "lstm_%s", kLstmBasic[i].label)
        ->may_refuse = kLstmBasic[i].input_states;
  }
  /* Fused activations on one representative row of each op. */
  for (size_t a = 0; a < COUNT(kActs); ++a) {
    const char* act = conf_act_name(kActs[a]);
    conf_case_add(list, kTfLiteBuiltinConv2d, build_conv, &kConv[1], kActs[a],
                  0, "conv_2d_%s_%s", act, kConv[1].label);
    conf_case_add(list, kTfLiteBuiltinDepthwiseConv2d, build_depthwise,
                  &kDepthwise[0], kActs[a], 0, "depthwise_conv_2d_%s_%s", act,
                  kDepthwise[0].label);
    /* A fused activation makes TRANSPOSE_CONV version 4, above TFLite
     * GPU's kMaxVersion 3: a delegate following TFLite may refuse it. */
    conf_case_add(list, kTfLiteBuiltinTransposeConv, build_transpose_conv,
                  &kTransposeConv[0], kActs[a], 0, "transpose_conv_%s_%s", act,
                  kTransposeConv[0].label)
        ->may_refuse = true;
    conf_case_add(list, kTfLiteBuiltinFullyConnected, build_fc, &kFc[0],
                  kActs[a], 0, "fully_connected_%s_%s", act, kFc[0].label);
  }
}
