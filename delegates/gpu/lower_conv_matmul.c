/* GPU lowerings of the matmul family: FULLY_CONNECTED, BATCH_MATMUL
 * (shaders/kernels/matmul.lgk), TRANSPOSE_CONV with MediaPipe's
 * Convolution2DTransposeBias (transpose_conv.cl) and LSTM (matmul.lgk with
 * the binary, unary, reduce and copy kernels, and remap and lstm_cell for
 * the BASIC kernel type; see their sections).
 *
 * Every B operand (FC weights, BATCH_MATMUL's rhs, TRANSPOSE_CONV's
 * weights) is read by the kernels in one packed layout: per matrix, the
 * output columns in blocks of 4 or 8 (the vector width; zeros past n), each
 * block k vectors one after the other, so a work item streams its block
 * with vector loads and no bound checks (on a GPU the neighbouring work
 * items' loads are whole 16- or 32-byte sectors). Constant operands are
 * packed here, once, into a device constant; runtime ones are packed on the
 * device by matmul_pack.lgk into a scratch buffer before the product.
 * Activations are read in their own (host) layout.
 *
 * Each matmul work item computes up to 8 rows x 4 or 8 columns; each
 * transpose_conv work item up to 8 output columns of one phase (columns
 * that share their filter taps) x 4 or 8 output channels. Semantics are
 * the CPU kernels' (runtime/kernels/fully_connected.c, batch_matmul.c,
 * transpose_conv.c). */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/gpu/gpu_lower.h"
#include "delegates/gpu/lower_shape_internal.h"
#include "runtime/kernels/mediapipe_ops.h"
#include "runtime/kernels/nn.h"
#include "runtime/kernels/recurrent.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

/* A block of 8 (or 4) rows or output columns per work item once there are
 * that many; fewer get one each. On PoCL (AVX-512, 2 cores) 8 rows x 8
 * columns ran a 256x1024x1024 product at about 50-70 GMAC/s, 4 x 8 at
 * about 35, 1 x 8 at under 10: each B vector load feeds more FMAs. */
static int block_of(int count) { return count >= 8 ? 8 : (count >= 4 ? 4 : 1); }

/* Input `i` of the node, or NULL when absent or omitted (-1). */
static const TfLiteTensor* input_at(const TfLiteContext* context,
                                    const TfLiteNode* node, int i) {
  if (i >= node->inputs->size || node->inputs->data[i] < 0) return NULL;
  return &context->tensors[node->inputs->data[i]];
}

static const TfLiteTensor* output0(const TfLiteContext* context,
                                   const TfLiteNode* node) {
  return &context->tensors[node->outputs->data[0]];
}

static bool is_constant(const TfLiteTensor* t) {
  return t->allocation_type == kTfLiteMmapRo ||
         t->allocation_type == kTfLitePersistentRo;
}

static int round_up(int x, int multiple) {
  return (x + multiple - 1) / multiple * multiple;
}

static int ceil_div(int x, int y) { return (x + y - 1) / y; }

/* The vector width over output columns: 8 where it wastes little. */
static int vector_width(int n) { return (n >= 32 || n % 8 == 0) ? 8 : 4; }

static bool fail(char* reason, size_t size, const char* message) {
  snprintf(reason, size, "%s", message);
  return false;
}

/* Whether every element count the kernels index fits an int. */
static bool fits_int(const TfLiteTensor* t) {
  return lg_gpu_elements(t) <= (size_t)INT_MAX;
}

/* ---- Packed B operands --------------------------------------------------- */

/* Where a B operand comes from: `batches` matrices of k x n, stored [k][n]
 * or, when transposed, [n][k]. */
typedef struct b_source {
  int tensor; /* context index */
  int batches, k, n;
  bool transposed;
} b_source;

/* Packs a constant B on the host into a device constant (its id, or -1):
 * npad / vec column blocks per matrix, each k vectors of vec columns (the
 * layout of matmul_pack.lgk). */
static int pack_constant(lg_gpu_program* p, const float* src, const b_source* s,
                         int npad, int vec) {
  const size_t count = (size_t)s->batches * (size_t)s->k * (size_t)npad;
  float* packed = calloc(count > 0 ? count : 1, sizeof(float));
  if (packed == NULL) {
    lg_gpu_lower_fail(p, "out of host memory packing %zu weights", count);
    return -1;
  }
  for (int b = 0; b < s->batches; ++b) {
    const float* m = src + (size_t)b * s->k * s->n;
    float* dst = packed + (size_t)b * s->k * npad;
    for (int j = 0; j < s->n; ++j) {
      float* block = dst + (size_t)(j / vec) * s->k * vec + j % vec;
      for (int r = 0; r < s->k; ++r) {
        block[(size_t)r * vec] =
            s->transposed ? m[(size_t)j * s->k + r] : m[(size_t)r * s->n + j];
      }
    }
  }
  /* Weights are tensor data: float16 on a half-precision backend. */
  return lg_gpu_lower_constant_floats_taken(p, packed, count);
}

/* The packed B as a kernel operand: a constant packed now, or a scratch
 * buffer that a matmul_pack dispatch fills from the runtime tensor. */
static TfLiteStatus packed_b(lg_gpu_program* p, const TfLiteContext* context,
                             const b_source* s, int npad, int vec,
                             lg_gpu_operand* out) {
  const float* data = lg_gpu_constant_floats(p, &context->tensors[s->tensor]);
  if (data != NULL) {
    const int id = pack_constant(p, data, s, npad, vec);
    if (id < 0) return kTfLiteError;
    *out = LG_GPU_CONSTANT(id);
    return kTfLiteOk;
  }
  const size_t count = (size_t)s->batches * (size_t)s->k * (size_t)npad;
  const int id = lg_gpu_lower_scratch_floats(p, count);
  if (id < 0) return kTfLiteError;
  const lg_gpu_operand args[] = {
      LG_GPU_TENSOR(s->tensor), LG_GPU_SCRATCH(id), LG_GPU_INT(s->n),
      LG_GPU_INT(s->k),         LG_GPU_INT(npad),   LG_GPU_INT(s->batches)};
  const size_t global[3] = {(size_t)s->k, (size_t)(npad / vec),
                            (size_t)s->batches};
  char defines[48];
  snprintf(defines, sizeof(defines), "-DLG_VEC=%d -DLG_TRANSPOSED=%d", vec,
           s->transposed ? 1 : 0);
  if (lg_gpu_lower_dispatch(p, "matmul_pack", defines, args, 6, 3, global,
                            NULL) != kTfLiteOk) {
    return kTfLiteError;
  }
  *out = LG_GPU_SCRATCH(id);
  return kTfLiteOk;
}

/* ---- The matmul dispatch ------------------------------------------------- */

/* One matmul.lgk dispatch: out[batch] = act(A[...] x B[...] + bias). */
typedef struct matmul_spec {
  int m, n, k;
  int batches, d1;        /* output batches = d0 * d1 */
  int sa0, sa1, sb0, sb1; /* matrix strides over (b0, b1), 0: broadcast */
  bool adj_x;             /* A is [k][m] */
  int a, out;             /* context tensors */
  int bias;               /* context tensor, -1: none */
  /* When set, these replace a, out and bias (a scratch buffer of an LSTM's
   * steps; a bias operand is read per output column). */
  const lg_gpu_operand *a_op, *out_op, *bias_op;
  b_source b;
  TfLiteFusedActivation act; /* kTfLiteActNone also clamps to +-FLT_MAX */
  bool clamp;                /* false: no clamp at all (BATCH_MATMUL) */
  float clip;                /* > 0: clamp to [-clip, clip] instead */
} matmul_spec;

static TfLiteStatus emit_matmul(lg_gpu_program* p, const TfLiteContext* context,
                                const matmul_spec* s) {
  const int vec = vector_width(s->n);
  const int npad = round_up(s->n, vec);
  const int rows = block_of(s->m);
  char what[64];
  snprintf(what, sizeof(what), "a matrix product over k=%d", s->k);
  if (lg_gpu_lower_check_loops(p, (int64_t)s->k + 8, what) != kTfLiteOk) {
    return kTfLiteError;
  }
  lg_gpu_operand b;
  if (packed_b(p, context, &s->b, npad, vec, &b) != kTfLiteOk) {
    return kTfLiteError;
  }
  float lo = -INFINITY, hi = INFINITY;
  const char* act = "";
  if (s->clip > 0.0f) {
    lo = -s->clip;
    hi = s->clip;
  } else if (s->clamp && !lg_gpu_activation(s->act, &lo, &hi, &act)) {
    return lg_gpu_lower_fail(p, "unsupported fused activation %d", (int)s->act);
  }
  const bool has_bias = s->bias_op != NULL || s->bias >= 0;
  const lg_gpu_operand a = s->a_op ? *s->a_op : LG_GPU_TENSOR(s->a);
  const lg_gpu_operand out = s->out_op ? *s->out_op : LG_GPU_TENSOR(s->out);
  const lg_gpu_operand bias =
      s->bias_op ? *s->bias_op
                 : (s->bias >= 0 ? LG_GPU_TENSOR(s->bias) : a); /* unread */
  char defines[128];
  snprintf(defines, sizeof(defines),
           "-DLG_VEC=%d -DLG_ROWS=%d -DLG_ADJ_X=%d %s", vec, rows,
           s->adj_x ? 1 : 0, act);
  const lg_gpu_operand args[] = {
      a,
      b,
      bias,
      LG_GPU_INT(has_bias ? 1 : 0),
      out,
      LG_GPU_INT(s->m),
      LG_GPU_INT(s->n),
      LG_GPU_INT(s->k),
      LG_GPU_INT(npad),
      LG_GPU_INT(s->batches),
      LG_GPU_INT(s->d1),
      LG_GPU_INT(s->sa0),
      LG_GPU_INT(s->sa1),
      LG_GPU_INT(s->sb0),
      LG_GPU_INT(s->sb1),
      LG_GPU_FLOAT(lo),
      LG_GPU_FLOAT(hi),
  };
  const size_t global[3] = {(size_t)(npad / vec), (size_t)ceil_div(s->m, rows),
                            (size_t)s->batches};
  return lg_gpu_lower_dispatch(p, "matmul", defines, args,
                               (int)(sizeof(args) / sizeof(args[0])), 3, global,
                               NULL);
}

/* ---- FULLY_CONNECTED ----------------------------------------------------- */

enum { kFcInput = 0, kFcWeights = 1, kFcBias = 2 };

bool lg_gpu_limits_fully_connected(LG_GPU_CHECK_ARGS) {
  (void)registration;
  const TfLiteFullyConnectedParams* params = node->builtin_data;
  if (params == NULL) return fail(reason, size, "missing FC parameters.");
  if (params->weights_format != kTfLiteFullyConnectedWeightsFormatDefault) {
    return fail(reason, size, "only the DEFAULT weights format runs.");
  }
  float lo, hi;
  const char* act;
  if (!lg_gpu_activation(params->activation, &lo, &hi, &act)) {
    return fail(reason, size, "the fused activation is not supported.");
  }
  if (node->inputs->size < 2 || node->outputs->size != 1) {
    return fail(reason, size, "expects 2 or 3 inputs and 1 output.");
  }
  const TfLiteTensor* input = input_at(context, node, kFcInput);
  const TfLiteTensor* weights = input_at(context, node, kFcWeights);
  const TfLiteTensor* bias = input_at(context, node, kFcBias);
  const TfLiteTensor* out = output0(context, node);
  if (input == NULL || weights == NULL || !lg_gpu_float_tensor(input) ||
      !lg_gpu_float_tensor(weights) ||
      (bias != NULL && !lg_gpu_float_tensor(bias))) {
    return fail(reason, size,
                "input, weights and bias must be float32 or quantized as the "
                "GPU takes them (INT8/UINT8 per tensor, constant weights per "
                "channel).");
  }
  if (weights->sparsity != NULL) {
    return fail(reason, size, "sparse weights are not supported.");
  }
  if (lg_gpu_rank(weights) != 2 || weights->dims->data[1] <= 0) {
    return fail(reason, size, "weights must be 2-D [out, in] with in > 0.");
  }
  const size_t in_depth = (size_t)weights->dims->data[1];
  const size_t out_depth = (size_t)weights->dims->data[0];
  const size_t rows = lg_gpu_elements(input) / in_depth;
  if (lg_gpu_elements(input) % in_depth != 0 ||
      lg_gpu_elements(out) != rows * out_depth ||
      (bias != NULL && lg_gpu_elements(bias) != out_depth)) {
    return fail(reason, size, "tensor shapes do not match the weights.");
  }
  if (!fits_int(input) || !fits_int(weights) || !fits_int(out)) {
    return fail(reason, size, "tensors above 2^31 elements are not supported.");
  }
  return true;
}

TfLiteStatus lg_gpu_lower_fully_connected(lg_gpu_program* p,
                                          TfLiteContext* context,
                                          const TfLiteNode* node,
                                          const TfLiteRegistration* reg) {
  (void)reg;
  const TfLiteFullyConnectedParams* params = node->builtin_data;
  const TfLiteTensor* input = input_at(context, node, kFcInput);
  const TfLiteTensor* weights = input_at(context, node, kFcWeights);
  const int k = weights->dims->data[1];
  const int n = weights->dims->data[0];
  const matmul_spec s = {
      .m = (int)(lg_gpu_elements(input) / (size_t)k),
      .n = n,
      .k = k,
      .batches = 1,
      .d1 = 1,
      .a = node->inputs->data[kFcInput],
      .out = node->outputs->data[0],
      .bias = input_at(context, node, kFcBias) != NULL
                  ? node->inputs->data[kFcBias]
                  : -1,
      .b = {.tensor = node->inputs->data[kFcWeights],
            .batches = 1,
            .k = k,
            .n = n,
            .transposed = true},
      .act = params->activation,
      .clamp = true,
  };
  return emit_matmul(p, context, &s);
}

/* ---- BATCH_MATMUL -------------------------------------------------------- */

#define BMM_MAX_RANK 4

/* Both operands' dims right-aligned to 4 and the output's batch dims. */
typedef struct bmm_shape {
  int32_t x[4], y[4];
  int out0, out1;
  int m, n, k;
  bool adj_x, adj_y;
} bmm_shape;

static bool bmm_shape_of(const TfLiteContext* context, const TfLiteNode* node,
                         bmm_shape* s, char* reason, size_t size) {
  const TfLiteTensor* x = input_at(context, node, 0);
  const TfLiteTensor* y = input_at(context, node, 1);
  const TfLiteBatchMatMulParams* params = node->builtin_data;
  s->adj_x = params != NULL && params->adj_x;
  s->adj_y = params != NULL && params->adj_y;
  if (lg_gpu_rank(x) < 2 || lg_gpu_rank(y) < 2 ||
      lg_gpu_rank(x) > BMM_MAX_RANK || lg_gpu_rank(y) > BMM_MAX_RANK) {
    return fail(reason, size, "operands must have rank 2 to 4.");
  }
  lg_gpu_shape4(x, s->x);
  lg_gpu_shape4(y, s->y);
  for (int d = 0; d < 2; ++d) {
    if (s->x[d] != s->y[d] && s->x[d] != 1 && s->y[d] != 1) {
      return fail(reason, size, "batch dims do not broadcast.");
    }
  }
  s->out0 = s->x[0] == 1 ? s->y[0] : s->x[0];
  s->out1 = s->x[1] == 1 ? s->y[1] : s->x[1];
  s->m = s->adj_x ? s->x[3] : s->x[2];
  s->k = s->adj_x ? s->x[2] : s->x[3];
  s->n = s->adj_y ? s->y[2] : s->y[3];
  const int ky = s->adj_y ? s->y[3] : s->y[2];
  if (s->k != ky) return fail(reason, size, "operands do not contract.");
  return true;
}

bool lg_gpu_limits_batch_matmul(LG_GPU_CHECK_ARGS) {
  (void)registration;
  if (node->inputs->size != 2 || node->outputs->size != 1) {
    return fail(reason, size, "expects 2 inputs and 1 output.");
  }
  const TfLiteTensor* x = input_at(context, node, 0);
  const TfLiteTensor* y = input_at(context, node, 1);
  const TfLiteTensor* out = output0(context, node);
  if (x == NULL || y == NULL || !lg_gpu_float_tensor(x) ||
      !lg_gpu_float_tensor(y)) {
    return fail(reason, size, "operands must be float32 or quantized.");
  }
  bmm_shape s;
  if (!bmm_shape_of(context, node, &s, reason, size)) return false;
  const size_t want = (size_t)s.out0 * s.out1 * s.m * s.n;
  if (lg_gpu_elements(out) != want) {
    return fail(reason, size, "the output shape does not match.");
  }
  if (!fits_int(x) || !fits_int(y) || !fits_int(out)) {
    return fail(reason, size, "tensors above 2^31 elements are not supported.");
  }
  return true;
}

TfLiteStatus lg_gpu_lower_batch_matmul(lg_gpu_program* p,
                                       TfLiteContext* context,
                                       const TfLiteNode* node,
                                       const TfLiteRegistration* reg) {
  (void)reg;
  bmm_shape g;
  char reason[128];
  if (!bmm_shape_of(context, node, &g, reason, sizeof(reason))) {
    return lg_gpu_lower_fail(p, "BATCH_MATMUL: %s", reason);
  }
  const matmul_spec s = {
      .m = g.m,
      .n = g.n,
      .k = g.k,
      .batches = g.out0 * g.out1,
      .d1 = g.out1,
      .sa0 = g.x[0] == 1 ? 0 : g.x[1],
      .sa1 = g.x[1] == 1 ? 0 : 1,
      .sb0 = g.y[0] == 1 ? 0 : g.y[1],
      .sb1 = g.y[1] == 1 ? 0 : 1,
      .adj_x = g.adj_x,
      .a = node->inputs->data[0],
      .out = node->outputs->data[0],
      .bias = -1,
      .b = {.tensor = node->inputs->data[1],
            .batches = g.y[0] * g.y[1],
            .k = g.k,
            .n = g.n,
            .transposed = g.adj_y},
      .act = kTfLiteActNone,
      .clamp = false,
  };
  return emit_matmul(p, context, &s);
}

/* ---- TRANSPOSE_CONV ------------------------------------------------------ */

enum { kTcOutputShape = 0, kTcWeights = 1, kTcInput = 2, kTcBias = 3 };

/* A transposed convolution: TRANSPOSE_CONV (output_shape, weights, input,
 * optional bias) or MediaPipe's Convolution2DTransposeBias (input,
 * weights, bias; its options a raw TfLiteTransposeConvParams). */
typedef struct tconv_op {
  TfLiteTransposeConvParams params;
  int input, weights, bias, output; /* tensor indices; bias -1 if none */
  bool custom;
} tconv_op;

static bool tconv_op_of(const TfLiteNode* node, const TfLiteRegistration* reg,
                        tconv_op* op, char* reason, size_t size) {
  memset(op, 0, sizeof(*op));
  op->custom = reg->builtin_code == kTfLiteBuiltinCustom;
  const int n = node->inputs->size;
  if (node->outputs->size != 1 || n < 3 || (op->custom ? n != 3 : n > 4)) {
    return fail(reason, size,
                op->custom ? "expects 3 inputs and 1 output."
                           : "expects 3 or 4 inputs and 1 output.");
  }
  const int* in = node->inputs->data;
  op->output = node->outputs->data[0];
  if (op->custom) {
    if (!lg_mediapipe_transpose_conv_params(node, &op->params)) {
      return fail(reason, size, "unreadable custom options.");
    }
    op->input = in[0];
    op->weights = in[1];
    op->bias = in[2];
    return true;
  }
  if (node->builtin_data == NULL)
    return fail(reason, size, "missing parameters.");
  op->params = *(const TfLiteTransposeConvParams*)node->builtin_data;
  op->input = in[kTcInput];
  op->weights = in[kTcWeights];
  op->bias = n > kTcBias ? in[kTcBias] : -1;
  return true;
}

static const TfLiteTensor* tensor_or_null(const TfLiteContext* context, int t) {
  return t >= 0 ? &context->tensors[t] : NULL;
}

/* The geometry, from the context's (final) dims. */
typedef struct tconv_shape {
  int batch, in_h, in_w, in_c;
  int out_h, out_w, out_c;
  int kh, kw;
  int pad_top, pad_left;
} tconv_shape;

static bool tconv_shape_of(const TfLiteContext* context, const tconv_op* op,
                           tconv_shape* g, char* reason, size_t size) {
  const TfLiteTransposeConvParams* params = &op->params;
  const TfLiteTensor* w = tensor_or_null(context, op->weights);
  const TfLiteTensor* in = tensor_or_null(context, op->input);
  const TfLiteTensor* out = tensor_or_null(context, op->output);
  if (w == NULL || in == NULL || out == NULL || lg_gpu_rank(w) != 4 ||
      lg_gpu_rank(in) != 4 || lg_gpu_rank(out) != 4) {
    return fail(reason, size, "weights, input and output must be 4-D.");
  }
  *g = (tconv_shape){
      .batch = in->dims->data[0],
      .in_h = in->dims->data[1],
      .in_w = in->dims->data[2],
      .in_c = in->dims->data[3],
      .out_h = out->dims->data[1],
      .out_w = out->dims->data[2],
      .out_c = out->dims->data[3],
      .kh = w->dims->data[1],
      .kw = w->dims->data[2],
  };
  if (out->dims->data[0] != g->batch || w->dims->data[0] != g->out_c ||
      w->dims->data[3] != g->in_c) {
    return fail(reason, size, "weights, input and output shapes disagree.");
  }
  const int conv_h = lg_nn_out_size(params->padding, g->out_h, g->kh,
                                    params->stride_height, 1);
  const int conv_w =
      lg_nn_out_size(params->padding, g->out_w, g->kw, params->stride_width, 1);
  if (conv_h != g->in_h || conv_w != g->in_w) {
    return fail(reason, size, "the output size does not map to the input's.");
  }
  g->pad_top =
      lg_nn_pad_before(g->out_h, g->kh, params->stride_height, 1, conv_h);
  g->pad_left =
      lg_nn_pad_before(g->out_w, g->kw, params->stride_width, 1, conv_w);
  return true;
}

bool lg_gpu_limits_transpose_conv(LG_GPU_CHECK_ARGS) {
  tconv_op op;
  if (!tconv_op_of(node, registration, &op, reason, size)) return false;
  const TfLiteTransposeConvParams* params = &op.params;
  if (params->padding != kTfLitePaddingSame &&
      params->padding != kTfLitePaddingValid) {
    return fail(reason, size, "padding must be SAME or VALID.");
  }
  if (params->stride_height < 1 || params->stride_width < 1) {
    return fail(reason, size, "strides must be at least 1.");
  }
  float lo, hi;
  const char* act;
  if (!lg_gpu_activation(params->activation, &lo, &hi, &act)) {
    return fail(reason, size, "the fused activation is not supported.");
  }
  if (!op.custom && !is_constant(input_at(context, node, kTcOutputShape))) {
    return fail(reason, size, "output_shape must be constant.");
  }
  const TfLiteTensor* w = tensor_or_null(context, op.weights);
  const TfLiteTensor* in = tensor_or_null(context, op.input);
  const TfLiteTensor* bias = tensor_or_null(context, op.bias);
  if (w == NULL || in == NULL || !lg_gpu_float_tensor(w) ||
      !lg_gpu_float_tensor(in) ||
      (bias != NULL && !lg_gpu_float_tensor(bias))) {
    return fail(reason, size,
                "input, weights and bias must be float32 or quantized as the "
                "GPU takes them.");
  }
  tconv_shape g;
  if (!tconv_shape_of(context, &op, &g, reason, size)) return false;
  if (bias != NULL && lg_gpu_elements(bias) != (size_t)g.out_c) {
    return fail(reason, size, "the bias must hold one value per channel.");
  }
  if (!fits_int(in) || !fits_int(w) || !fits_int(output0(context, node))) {
    return fail(reason, size, "tensors above 2^31 elements are not supported.");
  }
  return true;
}

TfLiteStatus lg_gpu_lower_transpose_conv(lg_gpu_program* p,
                                         TfLiteContext* context,
                                         const TfLiteNode* node,
                                         const TfLiteRegistration* reg) {
  tconv_op op;
  tconv_shape g;
  char reason[128];
  if (!tconv_op_of(node, reg, &op, reason, sizeof(reason)) ||
      !tconv_shape_of(context, &op, &g, reason, sizeof(reason))) {
    return lg_gpu_lower_fail(p, "transposed convolution: %s", reason);
  }
  const TfLiteTransposeConvParams* params = &op.params;
  /* Of the window's taps, those of one stride phase read the input: the
   * channel loop runs for ceil(kh / sh) x ceil(kw / sw) of them. */
  const int64_t taps_read = (int64_t)ceil_div(g.kh, params->stride_height) *
                            ceil_div(g.kw, params->stride_width);
  char what[80];
  snprintf(what, sizeof(what), "TRANSPOSE_CONV over a %dx%dx%d window", g.kh,
           g.kw, g.in_c);
  if (lg_gpu_lower_check_loops(
          p, (int64_t)g.kh * g.kw + taps_read * (g.in_c + 16) + 32, what) !=
      kTfLiteOk) {
    return kTfLiteError;
  }
  const int vec = vector_width(g.out_c);
  const int ocpad = round_up(g.out_c, vec);
  /* W [out_c][kh][kw][in_c] is B transposed with k = kh * kw * in_c. */
  const b_source src = {.tensor = op.weights,
                        .batches = 1,
                        .k = g.kh * g.kw * g.in_c,
                        .n = g.out_c,
                        .transposed = true};
  lg_gpu_operand w;
  if (packed_b(p, context, &src, ocpad, vec, &w) != kTfLiteOk) {
    return kTfLiteError;
  }
  float lo, hi;
  const char* act;
  lg_gpu_activation(params->activation, &lo, &hi, &act);
  const int sw = params->stride_width;
  const int per_phase = ceil_div(g.out_w, sw);
  const int cols = block_of(per_phase);
  const int x_blocks = ceil_div(per_phase, cols);
  const bool has_bias = op.bias >= 0;
  char defines[128];
  snprintf(defines, sizeof(defines), "-DLG_VEC=%d -DLG_COLS=%d %s", vec, cols,
           act);
  const lg_gpu_operand args[] = {
      LG_GPU_TENSOR(op.input),
      w,
      LG_GPU_TENSOR(has_bias ? op.bias : op.input),
      LG_GPU_INT(has_bias ? 1 : 0),
      LG_GPU_TENSOR(op.output),
      LG_GPU_INT(g.in_h),
      LG_GPU_INT(g.in_w),
      LG_GPU_INT(g.in_c),
      LG_GPU_INT(g.out_h),
      LG_GPU_INT(g.out_w),
      LG_GPU_INT(g.out_c),
      LG_GPU_INT(ocpad),
      LG_GPU_INT(g.kh),
      LG_GPU_INT(g.kw),
      LG_GPU_INT(params->stride_height),
      LG_GPU_INT(sw),
      LG_GPU_INT(g.pad_top),
      LG_GPU_INT(g.pad_left),
      LG_GPU_INT(x_blocks),
      LG_GPU_INT(g.batch * g.out_h),
      LG_GPU_FLOAT(lo),
      LG_GPU_FLOAT(hi),
  };
  const size_t global[3] = {(size_t)(ocpad / vec), (size_t)x_blocks * sw,
                            (size_t)g.batch * g.out_h};
  return lg_gpu_lower_dispatch(p, "transpose_conv", defines, args,
                               (int)(sizeof(args) / sizeof(args[0])), 3, global,
                               NULL);
}

/* ---- LSTM ---------------------------------------------------------------
 *
 * The FULL kernel of one batch row, as TFLite's GPU delegate builds it
 * (lstm_parser.cc), on the matmul, binary, unary, reduce and copy kernels:
 *
 *   gate  = act(x * Wx' + h * Wh' [+ peephole .* c] + bias)  per gate
 *   i     = 1 - f                                             with CIFG
 *   c'    = clip(f .* c + i .* g, cell_clip)
 *   h'    = o .* act(c')  [then clip(proj * h' + proj_bias, proj_clip)]
 *
 * The gates' activation is the sigmoid, the cell gate's and the output's
 * the node's (sigmoid or tanh). The bias rides the first product's bias
 * operand and the first product the second's (one row: a bias vector is
 * the whole product). c' is written into the cell-state variable after the
 * last read of c, h' into the output-state variable after the last read of
 * h, and the output is a copy of h'; both variables are downloaded to the
 * CPU after each run (lg_gpu_lower_update_variable). With layer
 * normalization the bias comes after it: two reduce.lgk means (the CPU's
 * order), the centered sum scaled by 1 / sqrt(variance + 1e-8), times the
 * coefficients. Gate, peephole, projection and layer norm weights may be
 * constant INT8 (hybrid): dequantized once at lowering, computed in float.
 * The BASIC kernel type has its own section below. */

enum {
  kLstmInput = 0,
  kLstmInputWeights = 1, /* + gate: input, forget, cell, output */
  kLstmRecurrentWeights = 5,
  kLstmPeephole = 9, /* input, forget, output */
  kLstmBias = 12,
  kLstmProjection = 16,
  kLstmProjectionBias = 17,
  kLstmOutputState = 18,
  kLstmCellState = 19,
  kLstmLayerNorm = 20,
};
enum { kGateInput = 0, kGateForget = 1, kGateCell = 2, kGateOutput = 3 };

/* Input `i` of the node as a tensor index, -1 when absent or omitted. */
static int lstm_tensor(const TfLiteNode* node, int i) {
  return i < node->inputs->size ? node->inputs->data[i] : -1;
}

/* Whether a present tensor has `rank` dims, the first `d0` (or any when
 * -1) and the last `d1`. */
static bool lstm_dims_ok(const TfLiteTensor* x, int rank, int d0, int d1) {
  if (lg_gpu_rank(x) != rank) return false;
  if (d0 >= 0 && x->dims->data[0] != d0) return false;
  return x->dims->data[rank - 1] == d1;
}

/* A present input must be a float32 tensor of those dims. */
static bool lstm_shape_ok(const TfLiteContext* context, int t, int rank, int d0,
                          int d1) {
  if (t < 0) return true;
  const TfLiteTensor* x = &context->tensors[t];
  return x->type == kTfLiteFloat32 && lstm_dims_ok(x, rank, d0, d1);
}

/* A present weight tensor (gate, peephole, projection, layer norm) may also
 * be a constant INT8 one, per tensor or per channel (a hybrid LSTM): it is
 * dequantized once when lowered and computed in float, as TFLite's GPU
 * delegate does, where the CPU's hybrid kernel quantizes the input and
 * state too (and, preparing first, takes one scale per tensor only). */
static bool lstm_weight_ok(const TfLiteContext* context, int t, int rank,
                           int d0, int d1) {
  if (t < 0) return true;
  const TfLiteTensor* x = &context->tensors[t];
  const bool hybrid =
      x->type == kTfLiteInt8 && lg_gpu_dequantizable_constant(x);
  return (x->type == kTfLiteFloat32 || hybrid) && lstm_dims_ok(x, rank, d0, d1);
}

/* ---- LSTM's BASIC kernel type ---------------------------------------------
 *
 * Five inputs: 0 input [batch, n_input], 1 prev_activation [batch, depth],
 * 2 weights [4 * depth, n_input + depth], 3 biases [4 * depth],
 * 4 prev_state [batch, depth]; four outputs: 0 activation, 1 state [batch,
 * depth], 2 concat_temp [batch, n_input + depth], 3 activation_temp [batch,
 * 4 * depth] (the CPU kernel's section in runtime/kernels/lstm.c). Lowered
 * as TFLite's GPU delegate builds it: two remap jobs concatenate input and
 * prev_activation into concat_temp, one matmul computes activation_temp =
 * concat_temp * weights' + biases, lstm_cell.lgk computes the gates, state
 * and activation, and two copies write those back into prev_activation and
 * prev_state, which must therefore be variable tensors (downloaded after
 * each run, lg_gpu_lower_update_variable). */

/* The BASIC node's sizes, read from input and prev_activation. */
typedef struct lstm_basic_dims {
  int batch, n_input, depth;
} lstm_basic_dims;

static lstm_basic_dims lstm_basic_dims_of(const TfLiteContext* context,
                                          const TfLiteNode* node) {
  const TfLiteTensor* x = input_at(context, node, kLgLstmBasicInput);
  const TfLiteTensor* h = input_at(context, node, kLgLstmBasicPrevActivation);
  return (lstm_basic_dims){.batch = x->dims->data[0],
                           .n_input = x->dims->data[1],
                           .depth = h->dims->data[1]};
}

static bool lstm_basic_limits(const TfLiteContext* context,
                              const TfLiteNode* node, char* reason,
                              size_t size) {
  if (node->inputs->size != 5 || node->outputs->size != 4) {
    return fail(reason, size, "the BASIC kernel expects 5 inputs, 4 outputs.");
  }
  for (int i = 0; i < 5; ++i) {
    if (input_at(context, node, i) == NULL) {
      return fail(reason, size, "the BASIC kernel's inputs must be present.");
    }
  }
  const TfLiteTensor* x = input_at(context, node, kLgLstmBasicInput);
  const TfLiteTensor* h = input_at(context, node, kLgLstmBasicPrevActivation);
  if (lg_gpu_rank(x) != 2 || lg_gpu_rank(h) != 2 || x->dims->data[0] <= 0 ||
      x->dims->data[1] <= 0 || h->dims->data[1] <= 0 ||
      h->dims->data[1] > INT_MAX / 4 ||
      x->dims->data[1] > INT_MAX - h->dims->data[1]) {
    return fail(reason, size,
                "the BASIC kernel's input and prev_activation must be "
                "[batch, n] with n > 0.");
  }
  const lstm_basic_dims d = lstm_basic_dims_of(context, node);
  const int total = d.n_input + d.depth;
  const int* in = node->inputs->data;
  const int* out = node->outputs->data;
  const bool ok =
      lstm_shape_ok(context, in[kLgLstmBasicInput], 2, d.batch, d.n_input) &&
      lstm_shape_ok(context, in[kLgLstmBasicPrevActivation], 2, d.batch,
                    d.depth) &&
      lstm_shape_ok(context, in[kLgLstmBasicWeights], 2, 4 * d.depth, total) &&
      lstm_shape_ok(context, in[kLgLstmBasicBiases], 1, 4 * d.depth,
                    4 * d.depth) &&
      lstm_shape_ok(context, in[kLgLstmBasicPrevState], 2, d.batch, d.depth) &&
      lstm_shape_ok(context, out[0], 2, d.batch, d.depth) &&
      lstm_shape_ok(context, out[1], 2, d.batch, d.depth) &&
      lstm_shape_ok(context, out[2], 2, d.batch, total) &&
      lstm_shape_ok(context, out[3], 2, d.batch, 4 * d.depth);
  if (!ok) {
    return fail(reason, size,
                "the BASIC kernel's inputs and outputs must be float32 of "
                "its shapes.");
  }
  if (!fits_int(&context->tensors[out[2]]) ||
      !fits_int(&context->tensors[out[3]])) {
    return fail(reason, size, "the BASIC kernel's outputs are too large.");
  }
  if (!h->is_variable ||
      !context->tensors[in[kLgLstmBasicPrevState]].is_variable) {
    return fail(reason, size,
                "the BASIC kernel writes the new activation and state back "
                "into prev_activation and prev_state, which must be "
                "variable tensors.");
  }
  if (in[kLgLstmBasicPrevActivation] == in[kLgLstmBasicPrevState]) {
    return fail(reason, size,
                "prev_activation and prev_state must be distinct tensors.");
  }
  return true;
}

/* concat_temp = [input, prev_activation] per batch row: one remap job each
 * (lower_shape_internal.h). */
static TfLiteStatus lstm_basic_concat(lg_gpu_program* p,
                                      const TfLiteContext* context,
                                      const TfLiteNode* node,
                                      const lstm_basic_dims* d) {
  char reason[LG_KIT_REASON_SIZE] = "";
  lg_gpu_shape_plan plan;
  lg_gpu_shape_plan_init(&plan, context, reason, sizeof(reason));
  const int total = d->n_input + d->depth;
  const int parts[2] = {kLgLstmBasicInput, kLgLstmBasicPrevActivation};
  const int64_t widths[2] = {d->n_input, d->depth};
  bool ok = true;
  for (int i = 0; i < 2 && ok; ++i) {
    const int64_t dims[2] = {d->batch, widths[i]};
    lg_gpu_remap_job job;
    lg_gpu_shape_job_init(&job, node->inputs->data[parts[i]],
                          node->outputs->data[2], dims, 2);
    job.dim[0].src_stride = widths[i];
    job.dim[1].src_stride = 1;
    job.dim[0].dst_stride = total;
    job.dst_base = i == 0 ? 0 : d->n_input;
    ok = lg_gpu_shape_plan_add(&plan, &job);
  }
  const TfLiteStatus status = ok ? lg_gpu_lower_shape_plan(p, &plan)
                                 : lg_gpu_lower_fail(p, "%s", reason);
  lg_gpu_shape_plan_free(&plan);
  return status;
}

/* Copies n elements of tensor `from` over variable `to` after its reads. */
static TfLiteStatus lstm_write_back(lg_gpu_program* p, int from, int to,
                                    int n) {
  const lg_gpu_operand args[] = {LG_GPU_TENSOR(from), LG_GPU_TENSOR(to),
                                 LG_GPU_INT(n)};
  const size_t global[1] = {(size_t)n};
  if (lg_gpu_lower_dispatch(p, "copy", NULL, args, 3, 1, global, NULL) !=
      kTfLiteOk) {
    return kTfLiteError;
  }
  return lg_gpu_lower_update_variable(p, to);
}

static TfLiteStatus lstm_basic_lower(lg_gpu_program* p,
                                     const TfLiteContext* context,
                                     const TfLiteNode* node) {
  const lstm_basic_dims d = lstm_basic_dims_of(context, node);
  const int total = d.n_input + d.depth;
  const int* in = node->inputs->data;
  const int* out = node->outputs->data;
  const matmul_spec gates = {
      .m = d.batch,
      .n = 4 * d.depth,
      .k = total,
      .batches = 1,
      .d1 = 1,
      .a = out[2],
      .out = out[3],
      .bias = in[kLgLstmBasicBiases],
      .b = {.tensor = in[kLgLstmBasicWeights],
            .batches = 1,
            .k = total,
            .n = 4 * d.depth,
            .transposed = true},
      .act = kTfLiteActNone,
      .clamp = false,
  };
  const int n = d.batch * d.depth;
  const lg_gpu_operand cell[] = {
      LG_GPU_TENSOR(out[3]), LG_GPU_TENSOR(in[kLgLstmBasicPrevState]),
      LG_GPU_TENSOR(out[0]), LG_GPU_TENSOR(out[1]),
      LG_GPU_INT(n),         LG_GPU_INT(d.depth)};
  const size_t global[1] = {(size_t)n};
  if (lstm_basic_concat(p, context, node, &d) != kTfLiteOk ||
      emit_matmul(p, context, &gates) != kTfLiteOk ||
      lg_gpu_lower_dispatch(p, "lstm_cell", NULL, cell, 6, 1, global, NULL) !=
          kTfLiteOk) {
    return kTfLiteError;
  }
  if (lstm_write_back(p, out[0], in[kLgLstmBasicPrevActivation], n) !=
      kTfLiteOk) {
    return kTfLiteError;
  }
  return lstm_write_back(p, out[1], in[kLgLstmBasicPrevState], n);
}

bool lg_gpu_limits_lstm(LG_GPU_CHECK_ARGS) {
  (void)registration;
  const TfLiteLSTMParams* params = node->builtin_data;
  if (params == NULL) return fail(reason, size, "missing LSTM parameters.");
  if (params->kernel_type == kTfLiteLSTMBasicKernel) {
    return lstm_basic_limits(context, node, reason, size);
  }
  if (node->inputs->size != 20 && node->inputs->size != 24) {
    return fail(reason, size, "expects 20 or 24 inputs.");
  }
  const int out_state = lstm_tensor(node, kLstmOutputState);
  const int cell_state = lstm_tensor(node, kLstmCellState);
  const int input = lstm_tensor(node, kLstmInput);
  if (input < 0 || out_state < 0 || cell_state < 0 ||
      !context->tensors[out_state].is_variable ||
      !context->tensors[cell_state].is_variable) {
    return fail(reason, size,
                "the input and both states must be present, the states "
                "variable tensors.");
  }
  const TfLiteTensor* x = &context->tensors[input];
  const TfLiteTensor* c = &context->tensors[cell_state];
  const TfLiteTensor* h = &context->tensors[out_state];
  if (lg_gpu_rank(x) != 2 || lg_gpu_rank(c) != 2 || lg_gpu_rank(h) != 2 ||
      x->dims->data[0] != 1 || x->dims->data[1] <= 0 || c->dims->data[1] <= 0 ||
      h->dims->data[1] <= 0) {
    return fail(reason, size,
                "input and states must be [1, n] with n > 0 (one batch row).");
  }
  const int n_input = x->dims->data[1];
  const int n_cell = c->dims->data[1];
  const int n_output = h->dims->data[1];
  const bool cifg = lstm_tensor(node, kLstmInputWeights) < 0;
  const bool projection = lstm_tensor(node, kLstmProjection) >= 0;
  const bool layer_norm = lstm_tensor(node, kLstmLayerNorm + 1) >= 0;
  bool ok = lstm_shape_ok(context, input, 2, 1, n_input) &&
            lstm_shape_ok(context, cell_state, 2, 1, n_cell) &&
            lstm_shape_ok(context, out_state, 2, 1, n_output);
  for (int g = 0; g < 4; ++g) {
    const bool needed = !(cifg && g == kGateInput);
    const int wx = lstm_tensor(node, kLstmInputWeights + g);
    const int wh = lstm_tensor(node, kLstmRecurrentWeights + g);
    const int b = lstm_tensor(node, kLstmBias + g);
    const int norm = lstm_tensor(node, kLstmLayerNorm + g);
    if (needed && (wx < 0 || wh < 0 || b < 0 || (norm < 0) != !layer_norm)) {
      ok = false;
    }
    ok = ok && lstm_weight_ok(context, wx, 2, n_cell, n_input) &&
         lstm_weight_ok(context, wh, 2, n_cell, n_output) &&
         lstm_shape_ok(context, b, 1, -1, n_cell) &&
         lstm_weight_ok(context, norm, 1, -1, n_cell);
  }
  for (int g = 0; g < 3; ++g) {
    ok = ok && lstm_weight_ok(context, lstm_tensor(node, kLstmPeephole + g), 1,
                              -1, n_cell);
  }
  ok = ok &&
       lstm_weight_ok(context, lstm_tensor(node, kLstmProjection), 2, n_output,
                      n_cell) &&
       lstm_shape_ok(context, lstm_tensor(node, kLstmProjectionBias), 1, -1,
                     n_output) &&
       (projection || n_output == n_cell) &&
       lstm_shape_ok(context, node->outputs->data[0], 2, 1, n_output);
  if (!ok) {
    return fail(reason, size,
                "weights (float32 or constant INT8), biases, states and "
                "output (float32) must have the LSTM's shapes.");
  }
  return true;
}

/* What the LSTM's steps share. */
typedef struct lstm_plan {
  lg_gpu_program* p;
  const TfLiteContext* context;
  const TfLiteNode* node;
  int n_input, n_cell, n_output;
} lstm_plan;

/* dst = op(a, b) over n elements (a, b of n elements or one), clamped to
 * [lo, hi]: the binary kernel of ADD, SUB, MUL, MINIMUM. */
static TfLiteStatus lstm_binary(const lstm_plan* L, int32_t code,
                                lg_gpu_operand a, int na, lg_gpu_operand b,
                                int nb, lg_gpu_operand dst, int n, float lo,
                                float hi) {
  char defines[48];
  snprintf(defines, sizeof(defines), "-DLG_OP=%d -DLG_BCAST=0",
           lg_op_gpu_opcode(code));
  const lg_gpu_operand args[] = {
      a,
      b,
      dst,
      LG_GPU_INT(n),
      LG_GPU_INT(na),
      LG_GPU_INT(nb),
      LG_GPU_FLOAT(lo),
      LG_GPU_FLOAT(hi),
      LG_GPU_INT(1),
      LG_GPU_INT(1),
      LG_GPU_INT(n),
      LG_GPU_INT(0),
      LG_GPU_INT(0),
      LG_GPU_INT(0),
      LG_GPU_INT(1),
      LG_GPU_INT(0),
      LG_GPU_INT(0),
      LG_GPU_INT(0),
      LG_GPU_INT(1),
  };
  const size_t global[1] = {(size_t)n};
  return lg_gpu_lower_dispatch(L->p, "binary", defines, args,
                               (int)(sizeof(args) / sizeof(args[0])), 1, global,
                               NULL);
}

static TfLiteStatus lstm_plain(const lstm_plan* L, int32_t code,
                               lg_gpu_operand a, int na, lg_gpu_operand b,
                               int nb, lg_gpu_operand dst, int n) {
  return lstm_binary(L, code, a, na, b, nb, dst, n, -INFINITY, INFINITY);
}

/* dst = sigmoid(x) or tanh(x) over n elements: the unary kernel. */
static TfLiteStatus lstm_activation(const lstm_plan* L,
                                    TfLiteFusedActivation act, lg_gpu_operand x,
                                    lg_gpu_operand dst, int n) {
  const int32_t code =
      act == kTfLiteActTanh ? kTfLiteBuiltinTanh : kTfLiteBuiltinLogistic;
  char defines[32];
  snprintf(defines, sizeof(defines), "-DLG_OP=%d", lg_op_gpu_opcode(code));
  const lg_gpu_operand args[] = {x, dst, LG_GPU_INT(n), LG_GPU_FLOAT(0.0f)};
  const size_t global[1] = {(size_t)n};
  return lg_gpu_lower_dispatch(L->p, "unary", defines, args, 4, 1, global,
                               NULL);
}

/* A scratch vector of n floats as an operand; false (recorded) when out of
 * memory. */
static bool lstm_scratch(const lstm_plan* L, int n, lg_gpu_operand* out) {
  const int id = lg_gpu_lower_scratch_floats(L->p, (size_t)n);
  if (id < 0) return false;
  *out = LG_GPU_SCRATCH(id);
  return true;
}

/* dst = a * W' + bias for one row a of k values and W [n][k] (context
 * tensor), optionally clamped to +-clip. */
static TfLiteStatus lstm_product(const lstm_plan* L, lg_gpu_operand a, int k,
                                 int weights, int n, const lg_gpu_operand* bias,
                                 lg_gpu_operand dst, float clip) {
  const matmul_spec s = {
      .m = 1,
      .n = n,
      .k = k,
      .batches = 1,
      .d1 = 1,
      .bias = -1,
      .a_op = &a,
      .out_op = &dst,
      .bias_op = bias,
      .b =
          {.tensor = weights, .batches = 1, .k = k, .n = n, .transposed = true},
      .act = kTfLiteActNone,
      .clamp = false,
      .clip = clip,
  };
  return emit_matmul(L->p, L->context, &s);
}

/* dst[0] = the mean of src's n values: the reduce kernel folding one run in
 * order, as the CPU sums them, then dividing by n. */
static TfLiteStatus lstm_mean(const lstm_plan* L, lg_gpu_operand src,
                              lg_gpu_operand dst, int n) {
  /* One kept and one reduced position (sizes 1, strides 0), the run of n
   * innermost. */
  static const int32_t kOneRun[16] = {1, 1, 1, 1, 0, 0, 0, 0,
                                      1, 1, 1, 1, 0, 0, 0, 0};
  const int table = lg_gpu_lower_constant(L->p, kOneRun, sizeof(kOneRun));
  if (table < 0 ||
      lg_gpu_lower_check_loops(L->p, (int64_t)n + 8, "a layer norm's mean") !=
          kTfLiteOk) {
    return kTfLiteError;
  }
  const lg_gpu_operand args[] = {
      src,           dst,           LG_GPU_CONSTANT(table), LG_GPU_INT(1),
      LG_GPU_INT(n), LG_GPU_INT(1), LG_GPU_FLOAT((float)n)};
  const size_t global[1] = {1};
  return lg_gpu_lower_dispatch(L->p, "reduce",
                               "-DLG_RED=0 -DLG_LAYOUT=1 -DLG_VEC=1", args, 7,
                               1, global, NULL);
}

/* dst = (v - mean) / sqrt(variance + 1e-8) .* coefficients + bias over the
 * gate's n values, the CPU's layer normalization (two passes). The scale
 * is capped at 1 / sqrt(1e-8) = 1e4, which it never exceeds in float: in
 * half precision 1e-8 is 0, and a variance of 0 (every value equal) would
 * otherwise give 0 * inf. */
static TfLiteStatus lstm_layer_norm(const lstm_plan* L, lg_gpu_operand v,
                                    int coefficients, int bias,
                                    lg_gpu_operand dst) {
  static const float kEpsilon = 1e-8f, kMaxScale = 1e4f;
  const int n = L->n_cell;
  lg_gpu_operand mean, centered, squared, variance, shifted, raw, inv,
      normalized, scaled;
  const int epsilon = lg_gpu_lower_constant_floats(L->p, &kEpsilon, 1);
  const int cap = lg_gpu_lower_constant_floats(L->p, &kMaxScale, 1);
  if (epsilon < 0 || cap < 0 || !lstm_scratch(L, 1, &mean) ||
      !lstm_scratch(L, n, &centered) || !lstm_scratch(L, n, &squared) ||
      !lstm_scratch(L, 1, &variance) || !lstm_scratch(L, 1, &shifted) ||
      !lstm_scratch(L, 1, &raw) || !lstm_scratch(L, 1, &inv) ||
      !lstm_scratch(L, n, &normalized) || !lstm_scratch(L, n, &scaled)) {
    return kTfLiteError;
  }
  char rsqrt[32];
  snprintf(rsqrt, sizeof(rsqrt), "-DLG_OP=%d",
           lg_op_gpu_opcode(kTfLiteBuiltinRsqrt));
  const lg_gpu_operand rsqrt_args[] = {shifted, raw, LG_GPU_INT(1),
                                       LG_GPU_FLOAT(0.0f)};
  const size_t one[1] = {1};
  if (lstm_mean(L, v, mean, n) != kTfLiteOk ||
      lstm_plain(L, kTfLiteBuiltinSub, v, n, mean, 1, centered, n) !=
          kTfLiteOk ||
      lstm_plain(L, kTfLiteBuiltinMul, centered, n, centered, n, squared, n) !=
          kTfLiteOk ||
      lstm_mean(L, squared, variance, n) != kTfLiteOk ||
      lstm_plain(L, kTfLiteBuiltinAdd, variance, 1, LG_GPU_CONSTANT(epsilon), 1,
                 shifted, 1) != kTfLiteOk ||
      lg_gpu_lower_dispatch(L->p, "unary", rsqrt, rsqrt_args, 4, 1, one,
                            NULL) != kTfLiteOk ||
      lstm_plain(L, kTfLiteBuiltinMinimum, raw, 1, LG_GPU_CONSTANT(cap), 1, inv,
                 1) != kTfLiteOk ||
      lstm_plain(L, kTfLiteBuiltinMul, centered, n, inv, 1, normalized, n) !=
          kTfLiteOk ||
      lstm_plain(L, kTfLiteBuiltinMul, normalized, n,
                 LG_GPU_TENSOR(coefficients), n, scaled, n) != kTfLiteOk) {
    return kTfLiteError;
  }
  return lstm_plain(L, kTfLiteBuiltinAdd, scaled, n, LG_GPU_TENSOR(bias), n,
                    dst, n);
}

/* One gate: act(x * Wx' + h * Wh' [+ peephole .* cell] + bias) into dst;
 * with layer normalization act(norm(x * Wx' + h * Wh' [+ peephole .* cell])
 * .* coefficients + bias). */
static TfLiteStatus lstm_gate(const lstm_plan* L, int gate, int peephole,
                              lg_gpu_operand cell, TfLiteFusedActivation act,
                              lg_gpu_operand dst) {
  const int n = L->n_cell;
  const int bias_tensor = lstm_tensor(L->node, kLstmBias + gate);
  const int norm = lstm_tensor(L->node, kLstmLayerNorm + gate);
  lg_gpu_operand bias = LG_GPU_TENSOR(bias_tensor), recurrent, pre;
  const lg_gpu_operand* first = norm >= 0 ? NULL : &bias;
  if (peephole >= 0) {
    lg_gpu_operand scaled, sum;
    if (!lstm_scratch(L, n, &scaled) ||
        lstm_plain(L, kTfLiteBuiltinMul, LG_GPU_TENSOR(peephole), n, cell, n,
                   scaled, n) != kTfLiteOk) {
      return kTfLiteError;
    }
    bias = scaled;
    if (norm < 0) {
      if (!lstm_scratch(L, n, &sum) ||
          lstm_plain(L, kTfLiteBuiltinAdd, scaled, n,
                     LG_GPU_TENSOR(bias_tensor), n, sum, n) != kTfLiteOk) {
        return kTfLiteError;
      }
      bias = sum;
    }
    first = &bias;
  }
  if (!lstm_scratch(L, n, &recurrent) || !lstm_scratch(L, n, &pre)) {
    return kTfLiteError;
  }
  const int out_state = lstm_tensor(L->node, kLstmOutputState);
  if (lstm_product(L, LG_GPU_TENSOR(out_state), L->n_output,
                   lstm_tensor(L->node, kLstmRecurrentWeights + gate), n, first,
                   recurrent, 0.0f) != kTfLiteOk ||
      lstm_product(L, LG_GPU_TENSOR(lstm_tensor(L->node, kLstmInput)),
                   L->n_input, lstm_tensor(L->node, kLstmInputWeights + gate),
                   n, &recurrent, pre, 0.0f) != kTfLiteOk) {
    return kTfLiteError;
  }
  if (norm >= 0) {
    lg_gpu_operand normalized;
    if (!lstm_scratch(L, n, &normalized) ||
        lstm_layer_norm(L, pre, norm, bias_tensor, normalized) != kTfLiteOk) {
      return kTfLiteError;
    }
    pre = normalized;
  }
  return lstm_activation(L, act, pre, dst, n);
}

TfLiteStatus lg_gpu_lower_lstm(lg_gpu_program* p, TfLiteContext* context,
                               const TfLiteNode* node,
                               const TfLiteRegistration* reg) {
  (void)reg;
  const TfLiteLSTMParams* params = node->builtin_data;
  if (params->kernel_type == kTfLiteLSTMBasicKernel) {
    return lstm_basic_lower(p, context, node);
  }
  const int out_state = lstm_tensor(node, kLstmOutputState);
  const int cell_state = lstm_tensor(node, kLstmCellState);
  const lstm_plan L = {
      .p = p,
      .context = context,
      .node = node,
      .n_input = context->tensors[lstm_tensor(node, kLstmInput)].dims->data[1],
      .n_cell = context->tensors[cell_state].dims->data[1],
      .n_output = context->tensors[out_state].dims->data[1],
  };
  const int n = L.n_cell;
  const bool cifg = lstm_tensor(node, kLstmInputWeights) < 0;
  const lg_gpu_operand c = LG_GPU_TENSOR(cell_state);
  lg_gpu_operand f, i, g, o, kept, added, activated;
  if (!lstm_scratch(&L, n, &f) || !lstm_scratch(&L, n, &i) ||
      !lstm_scratch(&L, n, &g) || !lstm_scratch(&L, n, &o) ||
      !lstm_scratch(&L, n, &kept) || !lstm_scratch(&L, n, &added) ||
      !lstm_scratch(&L, n, &activated)) {
    return kTfLiteError;
  }
  /* The gates that read the old cell state, then the new state over it. */
  if (lstm_gate(&L, kGateForget, lstm_tensor(node, kLstmPeephole + 1), c,
                kTfLiteActSigmoid, f) != kTfLiteOk) {
    return kTfLiteError;
  }
  if (cifg) {
    static const float kOne = 1.0f;
    const int one = lg_gpu_lower_constant_floats(p, &kOne, 1);
    if (one < 0 || lstm_plain(&L, kTfLiteBuiltinSub, LG_GPU_CONSTANT(one), 1, f,
                              n, i, n) != kTfLiteOk) {
      return kTfLiteError;
    }
  } else if (lstm_gate(&L, kGateInput, lstm_tensor(node, kLstmPeephole), c,
                       kTfLiteActSigmoid, i) != kTfLiteOk) {
    return kTfLiteError;
  }
  const float cell_clip =
      params->cell_clip > 0.0f ? params->cell_clip : INFINITY;
  if (lstm_gate(&L, kGateCell, -1, c, params->activation, g) != kTfLiteOk ||
      lstm_plain(&L, kTfLiteBuiltinMul, f, n, c, n, kept, n) != kTfLiteOk ||
      lstm_plain(&L, kTfLiteBuiltinMul, i, n, g, n, added, n) != kTfLiteOk ||
      lstm_binary(&L, kTfLiteBuiltinAdd, kept, n, added, n, c, n, -cell_clip,
                  cell_clip) != kTfLiteOk ||
      lg_gpu_lower_update_variable(p, cell_state) != kTfLiteOk) {
    return kTfLiteError;
  }
  /* The output gate's peephole reads the new cell state. */
  if (lstm_gate(&L, kGateOutput, lstm_tensor(node, kLstmPeephole + 2), c,
                kTfLiteActSigmoid, o) != kTfLiteOk ||
      lstm_activation(&L, params->activation, c, activated, n) != kTfLiteOk) {
    return kTfLiteError;
  }
  const lg_gpu_operand h = LG_GPU_TENSOR(out_state);
  const int projection = lstm_tensor(node, kLstmProjection);
  if (projection < 0) {
    if (lstm_plain(&L, kTfLiteBuiltinMul, o, n, activated, n, h, n) !=
        kTfLiteOk) {
      return kTfLiteError;
    }
  } else {
    lg_gpu_operand gated;
    const int bias_tensor = lstm_tensor(node, kLstmProjectionBias);
    const lg_gpu_operand bias = LG_GPU_TENSOR(bias_tensor);
    if (!lstm_scratch(&L, n, &gated) ||
        lstm_plain(&L, kTfLiteBuiltinMul, o, n, activated, n, gated, n) !=
            kTfLiteOk ||
        lstm_product(&L, gated, n, projection, L.n_output,
                     bias_tensor >= 0 ? &bias : NULL, h,
                     params->proj_clip > 0.0f ? params->proj_clip : 0.0f) !=
            kTfLiteOk) {
      return kTfLiteError;
    }
  }
  if (lg_gpu_lower_update_variable(p, out_state) != kTfLiteOk) {
    return kTfLiteError;
  }
  const lg_gpu_operand copy[] = {h, LG_GPU_TENSOR(node->outputs->data[0]),
                                 LG_GPU_INT(L.n_output)};
  const size_t global[1] = {(size_t)L.n_output};
  return lg_gpu_lower_dispatch(p, "copy", NULL, copy, 3, 1, global, NULL);
}
