/* The integer LSTM of TFLite (its 8x8->16 kernel) for LSTM and
 * UNIDIRECTIONAL_SEQUENCE_LSTM: INT8 input, output and output state, INT8
 * weights of one scale each (zero point 0), INT32 gate biases, an INT16
 * cell state whose scale is a power of two, and the node's five
 * intermediates (the converter's gate scales and, at 4, the hidden
 * value's scale and zero point). lstm.c hands INT8 inputs here.
 *
 * One step, per batch row, for gates i, f, o (sigmoid) and g (the
 * options' activation, TANH or SIGMOID), each gate an int16 Q3.12 value:
 *   gate = clamp16(round((bias + (x - x_zp) . W_x) * s_x))
 *   gate = clamp16(gate + round(((h - h_zp) . W_h) * s_h))
 * with s_x = input scale * W_x scale / 2^-12 and s_h = output-state scale
 * * W_h scale / 2^-12 as TFLite's (multiplier, shift) pairs (the bias
 * enters with the input product, as TFLite folds it there); then the
 * gate's activation in gemmlowp's int16 fixed point (lg_fixed16_logistic
 * and lg_fixed16_tanh on Q3.12) to Q0.15.
 *   c = clamp16(rdiv(f * c, 15) + rdiv(i * g, 30 + cell_log2))
 * (rdiv: gemmlowp's rounding division by a power of two), clipped to
 * +-round-toward-zero(cell_clip / cell scale) when cell_clip > 0;
 *   hidden = clamp8(round(o * tanh(c) * 2^-30 / hidden scale) + hidden_zp)
 * with tanh(c) on c's 15 + cell_log2 integer bits. hidden is the new
 * output state and the step's output row.
 *
 * Not computed (rejected in Prepare naming them): layer norm, peephole,
 * projection and CIFG in integer nodes, TFLite's 8x8->8 kernel (12
 * intermediates), INT16 activations (the 16x8 kernel), per-channel
 * weights, a cell scale that is not 2^-15..2^-9 (TFLite's tanh covers 0
 * to 6 integer bits).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/lstm_integer.h"
#include "runtime/kernels/nn.h"
#include "runtime/kernels/quant_util.h"
#include "runtime/kernels/recurrent.h"
#include "tensorflow/lite/c/common.h"

static const char* const kGateNames[4] = {"input", "forget", "cell", "output"};

/* A real multiplier as TFLite's (multiplier, shift) pair. */
typedef struct lg_lstm_int_scale {
  int32_t multiplier;
  int shift;
} lg_lstm_int_scale;

typedef struct lg_lstm_int_cell {
  const int8_t* w_x[4];
  const int8_t* w_h[4];
  const int32_t* bias[4];
  lg_lstm_int_scale s_x[4], s_h[4], hidden;
  int8_t* h_state;
  int16_t* c_state;
  int32_t x_zp, h_zp, hidden_zp;
  int cell_log2;
  int16_t cell_clip;
  bool cell_sigmoid; /* the options' activation is SIGMOID, else TANH */
  int n_input, n_cell;
} lg_lstm_int_cell;

/* A rescale factor of the scales (in float, as TFLite computes it); one
 * that overflows float is an error naming `what`. */
static TfLiteStatus lg_lstm_int_scale_of(TfLiteContext* context, const char* op,
                                         const char* what, float real,
                                         lg_lstm_int_scale* s) {
  if (!isfinite(real)) {
    lg_kernel_log(context, op,
                  "the scales give %s a rescale factor out of "
                  "float's range",
                  what);
    return kTfLiteError;
  }
  lg_quantize_multiplier((double)real, &s->multiplier, &s->shift);
  return kTfLiteOk;
}

/* A per-tensor quantized tensor of `type` and exactly `rank` dims; its
 * scale and zero point out. */
static TfLiteStatus lg_lstm_int_tensor(TfLiteContext* context, const char* op,
                                       const char* what, const TfLiteTensor* t,
                                       TfLiteType type, int rank,
                                       const int* dims, float* scale,
                                       int32_t* zero_point) {
  if (t->type != type) {
    lg_kernel_log(context, op, "%s has type %s, the integer kernel needs %s",
                  what, TfLiteTypeGetName(t->type), TfLiteTypeGetName(type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      lg_recurrent_check_dims(context, op, what, t, rank, dims));
  lg_quant_layout q;
  TF_LITE_ENSURE_STATUS(lg_quant_tensor_read(context, op, what, t, &q));
  *scale = q.scale0;
  *zero_point = q.zero_point0;
  return kTfLiteOk;
}

static TfLiteStatus lg_lstm_int_weight(TfLiteContext* context, const char* op,
                                       const char* what, const TfLiteTensor* t,
                                       int rows, int cols, float* scale) {
  const int dims[2] = {rows, cols};
  int32_t zp = 0;
  TF_LITE_ENSURE_STATUS(lg_lstm_int_tensor(context, op, what, t, kTfLiteInt8, 2,
                                           dims, scale, &zp));
  if (zp != 0) {
    lg_kernel_log(context, op,
                  "%s has zero point %d, the integer kernel needs 0", what,
                  (int)zp);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_lstm_int_state(TfLiteContext* context, const char* op,
                                      const char* what, const TfLiteTensor* t,
                                      TfLiteType type, int rows, int cols,
                                      float* scale, int32_t* zero_point) {
  TF_LITE_ENSURE_STATUS(lg_recurrent_check_variable(context, op, what, t));
  const int dims[2] = {rows, cols};
  return lg_lstm_int_tensor(context, op, what, t, type, 2, dims, scale,
                            zero_point);
}

/* Refuses the optional inputs the integer kernel does not compute. */
static TfLiteStatus lg_lstm_int_refuse(TfLiteContext* context,
                                       const TfLiteNode* node, const char* op) {
  static const struct {
    int first, count;
    const char* what;
  } kRefused[] = {
      {1, 1, "CIFG (no input_to_input_weights)"},
      {9, 3, "peephole weights (cell_to_*)"},
      {16, 2, "projection weights or bias"},
      {20, 4, "layer norm coefficients"},
  };
  for (size_t r = 0; r < sizeof(kRefused) / sizeof(kRefused[0]); ++r) {
    for (int k = 0; k < kRefused[r].count; ++k) {
      const int slot = kRefused[r].first + k;
      if (slot >= node->inputs->size) continue;
      const bool given = node->inputs->data[slot] >= 0;
      /* CIFG is the input gate's weights being absent. */
      if (r == 0 ? !given : given) {
        lg_kernel_log(context, op,
                      "the integer (INT8) kernel with %s is not supported",
                      kRefused[r].what);
        return kTfLiteError;
      }
    }
  }
  return kTfLiteOk;
}

/* The hidden value's scale and zero point: intermediate 4 (TFLite's
 * 8x8->16 kernel needs all five intermediates). */
static TfLiteStatus lg_lstm_int_hidden(TfLiteContext* context,
                                       const TfLiteNode* node, const char* op,
                                       float* scale, int32_t* zero_point) {
  const int count = node->intermediates ? node->intermediates->size : 0;
  if (count != 5) {
    lg_kernel_log(context, op,
                  "the integer (INT8) kernel needs 5 intermediates (TFLite's "
                  "8x8->16 kernel; 12 is its 8x8->8 kernel, not supported), "
                  "got %d",
                  count);
    return kTfLiteError;
  }
  const int index = node->intermediates->data[4];
  if (index < 0 || index >= (int)context->tensors_size) {
    lg_kernel_log(context, op, "intermediate 4 (the hidden scale) is missing");
    return kTfLiteError;
  }
  const TfLiteTensor* t = &context->tensors[index];
  if (t->quantization.type != kTfLiteAffineQuantization) {
    lg_kernel_log(context, op,
                  "intermediate 4 (the hidden scale) is not quantized");
    return kTfLiteError;
  }
  lg_quant_layout q;
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, op, "intermediate 4 (hidden)", t, &q));
  *scale = q.scale0;
  *zero_point = q.zero_point0;
  return kTfLiteOk;
}

/* log2 of a power-of-two scale, as TFLite's CheckedLog2 (within 1e-3). */
static bool lg_lstm_int_log2(float scale, int* result) {
  const float l = logf(scale) * (1.0f / logf(2.0f));
  const float rounded = roundf(l);
  *result = (int)rounded;
  return fabsf(l - rounded) < 1e-3f;
}

static TfLiteStatus lg_lstm_int_bind(TfLiteContext* context,
                                     const TfLiteNode* node, const char* op,
                                     const lg_lstm_int_options* o,
                                     const TfLiteTensor* input, int n_batch,
                                     int n_input, lg_lstm_int_cell* c) {
  memset(c, 0, sizeof(*c));
  TF_LITE_ENSURE_STATUS(lg_lstm_int_refuse(context, node, op));
  if (o->activation != kTfLiteActTanh && o->activation != kTfLiteActSigmoid) {
    lg_kernel_log(context, op,
                  "the integer kernel computes the TANH or SIGMOID cell "
                  "activation, got activation %d",
                  (int)o->activation);
    return kTfLiteError;
  }
  c->cell_sigmoid = o->activation == kTfLiteActSigmoid;
  lg_quant_layout xq;
  TF_LITE_ENSURE_STATUS(lg_quant_tensor_read(context, op, "input", input, &xq));
  const float x_scale = xq.scale0;
  c->x_zp = xq.zero_point0;
  const TfLiteTensor* w;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 2, &w));
  if (w->dims->size != 2) {
    lg_kernel_log(context, op, "input_to_forget_weights must be 2-D");
    return kTfLiteError;
  }
  const int n_cell = w->dims->data[0];
  c->n_cell = n_cell;
  c->n_input = n_input;
  /* The states; without projection n_output is n_cell. */
  const TfLiteTensor* h;
  const TfLiteTensor* cs;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 18, &h));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 19, &cs));
  float h_scale = 0.0f, c_scale = 0.0f;
  int32_t c_zp = 0;
  TF_LITE_ENSURE_STATUS(lg_lstm_int_state(context, op, "output_state", h,
                                          kTfLiteInt8, n_batch, n_cell,
                                          &h_scale, &c->h_zp));
  TF_LITE_ENSURE_STATUS(lg_lstm_int_state(context, op, "cell_state", cs,
                                          kTfLiteInt16, n_batch, n_cell,
                                          &c_scale, &c_zp));
  if (!lg_lstm_int_log2(c_scale, &c->cell_log2) || c->cell_log2 < -15 ||
      c->cell_log2 > -9) {
    lg_kernel_log(context, op,
                  "cell_state scale %g must be a power of two from 2^-15 to "
                  "2^-9 for the integer kernel",
                  (double)c_scale);
    return kTfLiteError;
  }
  c->h_state = h->data.int8;
  c->c_state = cs->data.i16;
  float hidden_scale = 0.0f;
  TF_LITE_ENSURE_STATUS(
      lg_lstm_int_hidden(context, node, op, &hidden_scale, &c->hidden_zp));
  /* TFLite's effective scales, in float as it computes them. */
  const float gate_scale = powf(2.0f, -12.0f);
  char name[64];
  for (int g = 0; g < 4; ++g) {
    const TfLiteTensor* wx;
    const TfLiteTensor* wh;
    const TfLiteTensor* b;
    TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1 + g, &wx));
    TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 5 + g, &wh));
    TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 12 + g, &b));
    float wx_scale = 0.0f, wh_scale = 0.0f;
    snprintf(name, sizeof(name), "input_to_%s_weights", kGateNames[g]);
    TF_LITE_ENSURE_STATUS(
        lg_lstm_int_weight(context, op, name, wx, n_cell, n_input, &wx_scale));
    snprintf(name, sizeof(name), "recurrent_to_%s_weights", kGateNames[g]);
    TF_LITE_ENSURE_STATUS(
        lg_lstm_int_weight(context, op, name, wh, n_cell, n_cell, &wh_scale));
    snprintf(name, sizeof(name), "%s_gate_bias", kGateNames[g]);
    if (b->type != kTfLiteInt32 || b->dims->size != 1 ||
        b->dims->data[0] != n_cell) {
      lg_kernel_log(context, op, "%s must be INT32 [%d] for the integer kernel",
                    name, n_cell);
      return kTfLiteError;
    }
    c->w_x[g] = wx->data.int8;
    c->w_h[g] = wh->data.int8;
    c->bias[g] = b->data.i32;
    snprintf(name, sizeof(name), "the %s gate", kGateNames[g]);
    TF_LITE_ENSURE_STATUS(lg_lstm_int_scale_of(
        context, op, name, wx_scale * x_scale / gate_scale, &c->s_x[g]));
    TF_LITE_ENSURE_STATUS(lg_lstm_int_scale_of(
        context, op, name, wh_scale * h_scale / gate_scale, &c->s_h[g]));
  }
  TF_LITE_ENSURE_STATUS(lg_lstm_int_scale_of(
      context, op, "the hidden value",
      powf(2.0f, -15.0f) / hidden_scale * powf(2.0f, -15.0f), &c->hidden));
  c->cell_clip = 0;
  if (o->cell_clip > 0.0f) {
    const float q = o->cell_clip / c_scale;
    c->cell_clip = (int16_t)lg_kernel_clamp_float(q, -32768.0f, 32767.0f);
  }
  return kTfLiteOk;
}

/* out[u] = clamp16(out[u] + round(acc * s)) with acc = bias[u] + (x -
 * zp) . w[u], the sum wrapping as TFLite's int32 sum of its folded zero
 * point terms does. */
static void lg_lstm_int_product(int16_t* out, int n, const int8_t* x,
                                int32_t zp, const int8_t* w, int k,
                                const int32_t* bias,
                                const lg_lstm_int_scale* s) {
  for (int u = 0; u < n; ++u) {
    uint32_t acc = bias != NULL ? (uint32_t)bias[u] : 0u;
    const int8_t* row = w + (size_t)u * (size_t)k;
    for (int j = 0; j < k; ++j) {
      acc += (uint32_t)(((int32_t)x[j] - zp) * (int32_t)row[j]);
    }
    const int32_t v = lg_multiply_by_quantized_multiplier(
                          (int32_t)acc, s->multiplier, s->shift) +
                      out[u];
    out[u] = (int16_t)lg_kernel_clamp_int(v, INT16_MIN, INT16_MAX);
  }
}

static void lg_lstm_int_gate(const lg_lstm_int_cell* c, int g, const int8_t* x,
                             const int8_t* h, bool tanh_gate, int16_t* out) {
  memset(out, 0, (size_t)c->n_cell * sizeof(int16_t));
  lg_lstm_int_product(out, c->n_cell, x, c->x_zp, c->w_x[g], c->n_input,
                      c->bias[g], &c->s_x[g]);
  lg_lstm_int_product(out, c->n_cell, h, c->h_zp, c->w_h[g], c->n_cell, NULL,
                      &c->s_h[g]);
  for (int u = 0; u < c->n_cell; ++u) {
    out[u] =
        tanh_gate ? lg_fixed16_tanh(out[u], 3) : lg_fixed16_logistic(out[u], 3);
  }
}

/* One step of one batch row: x (n_input int8 values) in, the row's states
 * updated, the new output state written to out. `scratch` holds 4 n_cell
 * int16 values. */
static void lg_lstm_int_step(const lg_lstm_int_cell* c, int b, const int8_t* x,
                             int8_t* out, int16_t* scratch) {
  const int n = c->n_cell;
  int8_t* h = c->h_state + (size_t)b * (size_t)n;
  int16_t* cell = c->c_state + (size_t)b * (size_t)n;
  int16_t* gi = scratch;
  int16_t* gf = gi + n;
  int16_t* gg = gf + n;
  int16_t* go = gg + n;
  lg_lstm_int_gate(c, 0, x, h, false, gi);
  lg_lstm_int_gate(c, 1, x, h, false, gf);
  lg_lstm_int_gate(c, 2, x, h, !c->cell_sigmoid, gg);
  lg_lstm_int_gate(c, 3, x, h, false, go);
  for (int u = 0; u < n; ++u) {
    const int16_t kept =
        (int16_t)lg_fixed_divide_by_pot((int32_t)gf[u] * cell[u], 15);
    const int16_t added = (int16_t)lg_fixed_divide_by_pot(
        (int32_t)gi[u] * gg[u], 30 + c->cell_log2);
    int32_t v = (int32_t)kept + added;
    v = lg_kernel_clamp_int(v, INT16_MIN, INT16_MAX);
    if (c->cell_clip > 0) {
      v = lg_kernel_clamp_int(v, -c->cell_clip, c->cell_clip);
    }
    cell[u] = (int16_t)v;
  }
  for (int u = 0; u < n; ++u) {
    const int16_t t = lg_fixed16_tanh(cell[u], 15 + c->cell_log2);
    int32_t v = lg_multiply_by_quantized_multiplier(
        (int32_t)go[u] * t, c->hidden.multiplier, c->hidden.shift);
    v += c->hidden_zp;
    v = lg_kernel_clamp_int(v, -128, 127);
    h[u] = (int8_t)v;
  }
  memcpy(out, h, (size_t)n);
}

size_t lg_lstm_int_scratch_floats(int n_cell) {
  return ((size_t)4 * (size_t)n_cell * sizeof(int16_t) + sizeof(float) - 1) /
         sizeof(float);
}

TfLiteStatus lg_lstm_int_check(TfLiteContext* context, const TfLiteNode* node,
                               const char* op, const lg_lstm_int_options* o,
                               const TfLiteTensor* input, int n_batch,
                               int n_input, int* n_cell) {
  lg_lstm_int_cell c;
  TF_LITE_ENSURE_STATUS(
      lg_lstm_int_bind(context, node, op, o, input, n_batch, n_input, &c));
  *n_cell = c.n_cell;
  return kTfLiteOk;
}

TfLiteStatus lg_lstm_int_output_check(TfLiteContext* context, const char* op,
                                      const TfLiteTensor* output) {
  if (output->type != kTfLiteInt8) {
    lg_kernel_log(context, op,
                  "output has type %s, the integer kernel writes INT8",
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus lg_lstm_int_run(TfLiteContext* context, const TfLiteNode* node,
                             const char* op, const lg_lstm_int_options* o,
                             const TfLiteTensor* input, TfLiteTensor* output,
                             int n_batch, int n_time, int n_input,
                             float* scratch) {
  lg_lstm_int_cell c;
  TF_LITE_ENSURE_STATUS(
      lg_lstm_int_bind(context, node, op, o, input, n_batch, n_input, &c));
  if (input->data.int8 == NULL || output->data.int8 == NULL ||
      c.h_state == NULL || c.c_state == NULL) {
    lg_kernel_log(context, op, "a tensor has no data");
    return kTfLiteError;
  }
  int16_t* gates = (int16_t*)scratch;
  for (int t = 0; t < n_time; ++t) {
    for (int b = 0; b < n_batch; ++b) {
      /* time-major (and the one-step op): [time, batch, features], else
       * [batch, time, features] */
      const size_t row = o->time_major ? (size_t)t * (size_t)n_batch + (size_t)b
                                       : (size_t)b * (size_t)n_time + (size_t)t;
      lg_lstm_int_step(&c, b, input->data.int8 + row * (size_t)n_input,
                       output->data.int8 + row * (size_t)c.n_cell, gates);
    }
  }
  return kTfLiteOk;
}
