/* The integer LSTM of TFLite (its 8x8->16 kernel) for LSTM and
 * UNIDIRECTIONAL_SEQUENCE_LSTM: INT8 input, output and output state, INT8
 * weights of one scale each (zero point 0), INT32 gate biases, an INT16
 * cell state whose scale is a power of two, and the node's five
 * intermediates (the gate scales, read with layer norm, and at 4 the
 * hidden value's scale and zero point); optionally CIFG, INT16 peephole
 * weights, INT16 layer-norm coefficients and INT8 projection weights with
 * an INT32 projection bias. lstm.c hands INT8 inputs here.
 *
 * One step, per batch row, for gates i, f, o (sigmoid) and g (tanh; the
 * options' activation is not read, as TFLite's integer kernel does not),
 * each gate an int16 value of scale s_gate: 2^-12 (Q3.12), or with layer
 * norm the scale of the gate's intermediate:
 *   gate = clamp16(round((bias + (x - x_zp) . W_x) * s_x))
 *   gate = clamp16(gate + round(((h - h_zp) . W_h) * s_h))
 *   gate = clamp16(gate + round(w_peephole * c * s_p))   (peephole; i, f
 *          read the old cell state, o the new one)
 * with s_x = input scale * W_x scale / s_gate, s_h = output-state scale *
 * W_h scale / s_gate and s_p = cell scale * peephole scale / s_gate as
 * TFLite's (multiplier, shift) pairs (the bias enters with the input
 * product, as TFLite folds it there; with layer norm it is the layer
 * norm's bias instead). Layer norm, per row: TFLite's integer mean and
 * variance (in 2^10 steps, the variance floored by a guard), the
 * normalized values times the coefficients plus the bias, rounded by
 * 2^10, rescaled by the coefficients' scale to Q3.12. Then the gate's
 * activation in gemmlowp's int16 fixed point (lg_fixed16_logistic and
 * lg_fixed16_tanh on Q3.12) to Q0.15. With CIFG, i = 32767 - f.
 *   c = clamp16(rdiv(f * c, 15) + rdiv(i * g, 30 + cell_log2))
 * (rdiv: gemmlowp's rounding division by a power of two), clipped to
 * +-round-toward-zero(cell_clip / cell scale) when cell_clip > 0;
 *   hidden = round(o * tanh(c) * 2^-30 / hidden scale)
 * with tanh(c) on c's 15 + cell_log2 integer bits. Without projection the
 * output state is clamp8(hidden + hidden_zp); with it, as TFLite computes
 * it, r = clamp8(hidden - hidden_zp) and
 *   h = clamp8(round((proj_bias + (r + hidden_zp) . W_p) * s_proj) + h_zp)
 * with s_proj = W_p scale * hidden scale / output-state scale, clipped to
 * +-round-toward-zero(proj_clip / output scale) when proj_clip > 0. h is
 * the new output state and the step's output row.
 *
 * Not computed (rejected in Prepare naming them): TFLite's 8x8->8 kernel
 * (12 intermediates, the one-step LSTM only: CIFG with layer norm, float
 * layer norm and activations; its output gate reads the scale arrays of
 * TFLite's parameters past their end, so it has no defined result to
 * match), peephole weights with a projection wider than the cells (TFLite
 * reads past the cell state), INT16 activations (the 16x8 kernel), per-channel
 * weights, a cell scale that is not 2^-15..2^-9 (TFLite's tanh covers 0
 * to 6 integer bits).
 */
#include <math.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/lstm_integer.h"
#include "runtime/kernels/nn.h"
#include "runtime/kernels/quant_util.h"
#include "runtime/kernels/recurrent.h"
#include "tensorflow/lite/c/common.h"

enum { LG_GATE_INPUT, LG_GATE_FORGET, LG_GATE_CELL, LG_GATE_OUTPUT };
/* Each gate's input names (TFLite's), for messages. */
typedef struct lg_lstm_int_gate_names {
  const char *input_weights, *recurrent_weights, *bias, *peephole, *layer_norm,
      *gate, *intermediate;
} lg_lstm_int_gate_names;
static const lg_lstm_int_gate_names kNames[4] = {
    {"input_to_input_weights", "recurrent_to_input_weights", "input_gate_bias",
     "cell_to_input_weights", "input_layer_norm_coefficients", "the input gate",
     "intermediate 0 (input)"},
    {"input_to_forget_weights", "recurrent_to_forget_weights",
     "forget_gate_bias", "cell_to_forget_weights",
     "forget_layer_norm_coefficients", "the forget gate",
     "intermediate 1 (forget)"},
    {"input_to_cell_weights", "recurrent_to_cell_weights", "cell_gate_bias",
     NULL, "cell_layer_norm_coefficients", "the cell gate",
     "intermediate 2 (cell)"},
    {"input_to_output_weights", "recurrent_to_output_weights",
     "output_gate_bias", "cell_to_output_weights",
     "output_layer_norm_coefficients", "the output gate",
     "intermediate 3 (output)"},
};
/* The peephole slot of each gate (the cell gate has none). */
static const int kPeepholeSlot[4] = {9, 10, -1, 11};

/* A real multiplier as TFLite's (multiplier, shift) pair. */
typedef struct lg_lstm_int_scale {
  int32_t multiplier;
  int shift;
} lg_lstm_int_scale;

/* One gate's constants (w_x is NULL for a CIFG node's input gate). */
typedef struct lg_lstm_int_gate_data {
  const int8_t* w_x;
  const int8_t* w_h;
  const int32_t* bias;      /* added to the input product; NULL with LN */
  const int16_t* peephole;  /* cell_to_<gate>_weights or NULL */
  const int16_t* ln_weight; /* layer norm coefficients or NULL */
  const int32_t* ln_bias;   /* the gate bias, with layer norm */
  lg_lstm_int_scale s_x, s_h, s_peephole, s_ln;
  int32_t ln_variance_guard;
} lg_lstm_int_gate_data;

typedef struct lg_lstm_int_cell {
  lg_lstm_int_gate_data gate[4];
  const int8_t* proj_weight; /* NULL without projection */
  const int32_t* proj_bias;  /* NULL when absent */
  lg_lstm_int_scale hidden, proj;
  int8_t* h_state;
  int16_t* c_state;
  int32_t x_zp, h_zp, hidden_zp;
  int cell_log2;
  int16_t cell_clip;
  int8_t proj_clip;
  bool cifg;
  int n_input, n_cell, n_output;
} lg_lstm_int_cell;

/* Which optional inputs a node gives. */
typedef struct lg_lstm_int_forms {
  bool cifg, peephole, layer_norm, projection;
} lg_lstm_int_forms;

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

/* A constant of input `slot`: `type`, [rows, cols] (cols 0: [rows]), zero
 * point 0; its data and scale out. */
static TfLiteStatus lg_lstm_int_const(TfLiteContext* context,
                                      const TfLiteNode* node, const char* op,
                                      int slot, const char* what,
                                      TfLiteType type, int rows, int cols,
                                      const void** data, float* scale) {
  const TfLiteTensor* t;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, slot, &t));
  const int dims[2] = {rows, cols};
  int32_t zp = 0;
  TF_LITE_ENSURE_STATUS(lg_lstm_int_tensor(context, op, what, t, type,
                                           cols > 0 ? 2 : 1, dims, scale, &zp));
  if (zp != 0) {
    lg_kernel_log(context, op,
                  "%s has zero point %d, the integer kernel needs 0", what,
                  (int)zp);
    return kTfLiteError;
  }
  if (t->data.raw == NULL) {
    lg_kernel_log(context, op, "%s has no data", what);
    return kTfLiteError;
  }
  *data = t->data.raw;
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

static bool lg_lstm_int_given(const TfLiteNode* node, int slot) {
  return slot < node->inputs->size && node->inputs->data[slot] >= 0;
}

/* A per-gate group of optional inputs (peephole, layer norm): slots
 * first..last (forget to output) all given or all absent, and input_slot
 * (the input gate's) given with them unless the node is CIFG; *given
 * says whether they are, `message` is the error otherwise. */
static TfLiteStatus lg_lstm_int_group(TfLiteContext* context,
                                      const TfLiteNode* node, const char* op,
                                      bool cifg, int input_slot, int first,
                                      int last, const char* message,
                                      bool* given) {
  *given = lg_lstm_int_given(node, first);
  bool ok = lg_lstm_int_given(node, input_slot) == (*given && !cifg);
  for (int slot = first + 1; slot <= last; ++slot) {
    ok = ok && lg_lstm_int_given(node, slot) == *given;
  }
  if (!ok) {
    lg_kernel_log(context, op, "%s", message);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* The node's forms, from which optional inputs it gives; groups given in
 * part are errors. */
static TfLiteStatus lg_lstm_int_forms_of(TfLiteContext* context,
                                         const TfLiteNode* node, const char* op,
                                         lg_lstm_int_forms* f) {
  f->cifg = !lg_lstm_int_given(node, 1);
  if (lg_lstm_int_given(node, 5) == f->cifg ||
      lg_lstm_int_given(node, 12) == f->cifg) {
    lg_kernel_log(context, op,
                  "input_to_input_weights, recurrent_to_input_weights and "
                  "input_gate_bias must be all given or all absent (CIFG)");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_lstm_int_group(
      context, node, op, f->cifg, 9, 10, 11,
      "cell_to_forget_weights and cell_to_output_weights must be both given "
      "or both absent, cell_to_input_weights given with them unless the node "
      "is CIFG",
      &f->peephole));
  TF_LITE_ENSURE_STATUS(lg_lstm_int_group(
      context, node, op, f->cifg, 20, 21, 23,
      "the forget, cell and output layer norm coefficients must be all given "
      "or all absent, the input gate's given with them unless the node is "
      "CIFG",
      &f->layer_norm));
  f->projection = lg_lstm_int_given(node, 16);
  if (lg_lstm_int_given(node, 17) && !f->projection) {
    lg_kernel_log(context, op,
                  "projection_bias is given without projection_weights");
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Intermediate `index`'s scale and zero point (TFLite's 8x8->16 kernel
 * needs all five intermediates; it reads 0..3 only with layer norm). */
static TfLiteStatus lg_lstm_int_intermediate(TfLiteContext* context,
                                             const TfLiteNode* node,
                                             const char* op, int index,
                                             float* scale,
                                             int32_t* zero_point) {
  const int count = node->intermediates ? node->intermediates->size : 0;
  if (count != 5) {
    lg_kernel_log(context, op,
                  "the integer (INT8) kernel needs 5 intermediates (TFLite's "
                  "8x8->16 kernel; 12 is its 8x8->8 kernel, not supported), "
                  "got %d",
                  count);
    return kTfLiteError;
  }
  const int tensor = node->intermediates->data[index];
  const char* what = index == 4 ? "intermediate 4 (the hidden scale)"
                                : kNames[index].intermediate;
  if (tensor < 0 || tensor >= (int)context->tensors_size) {
    lg_kernel_log(context, op, "%s is missing", what);
    return kTfLiteError;
  }
  const TfLiteTensor* t = &context->tensors[tensor];
  if (t->quantization.type != kTfLiteAffineQuantization) {
    lg_kernel_log(context, op, "%s is not quantized", what);
    return kTfLiteError;
  }
  lg_quant_layout q;
  TF_LITE_ENSURE_STATUS(lg_quant_tensor_read(context, op, what, t, &q));
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

/* Gate g's weights, bias, peephole and layer norm constants and scales;
 * `gate_scale` is the gate's int16 scale before its activation. */
static TfLiteStatus lg_lstm_int_bind_gate(
    TfLiteContext* context, const TfLiteNode* node, const char* op,
    const lg_lstm_int_forms* f, int g, float x_scale, float h_scale,
    float gate_scale, lg_lstm_int_cell* c) {
  lg_lstm_int_gate_data* d = &c->gate[g];
  const lg_lstm_int_gate_names* names = &kNames[g];
  float wx_scale = 0.0f, wh_scale = 0.0f, unused = 0.0f;
  const void* data = NULL;
  TF_LITE_ENSURE_STATUS(
      lg_lstm_int_const(context, node, op, 1 + g, names->input_weights,
                        kTfLiteInt8, c->n_cell, c->n_input, &data, &wx_scale));
  d->w_x = data;
  TF_LITE_ENSURE_STATUS(
      lg_lstm_int_const(context, node, op, 5 + g, names->recurrent_weights,
                        kTfLiteInt8, c->n_cell, c->n_output, &data, &wh_scale));
  d->w_h = data;
  /* TFLite does not read the bias's scale. */
  TF_LITE_ENSURE_STATUS(lg_lstm_int_const(context, node, op, 12 + g,
                                          names->bias, kTfLiteInt32, c->n_cell,
                                          0, &data, &unused));
  if (f->layer_norm) {
    d->ln_bias = data;
  } else {
    d->bias = data;
  }
  TF_LITE_ENSURE_STATUS(lg_lstm_int_scale_of(
      context, op, names->gate, wx_scale * x_scale / gate_scale, &d->s_x));
  TF_LITE_ENSURE_STATUS(lg_lstm_int_scale_of(
      context, op, names->gate, wh_scale * h_scale / gate_scale, &d->s_h));
  if (f->peephole && kPeepholeSlot[g] >= 0) {
    float scale = 0.0f;
    TF_LITE_ENSURE_STATUS(lg_lstm_int_const(context, node, op, kPeepholeSlot[g],
                                            names->peephole, kTfLiteInt16,
                                            c->n_cell, 0, &data, &scale));
    d->peephole = data;
    /* TFLite's 2^cell_log2 is a double here: the product is rounded to
     * float once. */
    TF_LITE_ENSURE_STATUS(lg_lstm_int_scale_of(
        context, op, names->peephole,
        (float)(ldexp(1.0, c->cell_log2) * (double)scale / (double)gate_scale),
        &d->s_peephole));
  }
  if (f->layer_norm) {
    float scale = 0.0f;
    TF_LITE_ENSURE_STATUS(lg_lstm_int_const(context, node, op, 20 + g,
                                            names->layer_norm, kTfLiteInt16,
                                            c->n_cell, 0, &data, &scale));
    d->ln_weight = data;
    TF_LITE_ENSURE_STATUS(
        lg_lstm_int_scale_of(context, op, names->layer_norm, scale, &d->s_ln));
    /* TFLite's guard for a zero variance ("10000 keeps the kernel from
     * overflowing"). */
    const int32_t guard = (int32_t)(10000.0f * scale);
    d->ln_variance_guard = guard > 1 ? guard : 1;
  }
  return kTfLiteOk;
}

/* The projection's weights, bias, scale and clip. */
static TfLiteStatus lg_lstm_int_bind_projection(
    TfLiteContext* context, const TfLiteNode* node, const char* op,
    const lg_lstm_int_options* o, float hidden_scale, float h_scale,
    lg_lstm_int_cell* c) {
  float w_scale = 0.0f, unused = 0.0f;
  const void* data = NULL;
  TF_LITE_ENSURE_STATUS(
      lg_lstm_int_const(context, node, op, 16, "projection_weights",
                        kTfLiteInt8, c->n_output, c->n_cell, &data, &w_scale));
  c->proj_weight = data;
  if (lg_lstm_int_given(node, 17)) {
    TF_LITE_ENSURE_STATUS(lg_lstm_int_const(context, node, op, 17,
                                            "projection_bias", kTfLiteInt32,
                                            c->n_output, 0, &data, &unused));
    c->proj_bias = data;
  }
  TF_LITE_ENSURE_STATUS(lg_lstm_int_scale_of(context, op, "the projection",
                                             w_scale * hidden_scale / h_scale,
                                             &c->proj));
  if (o->proj_clip > 0.0f) {
    /* TFLite clips in the output tensor's steps. */
    TfLiteTensor* out;
    TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &out));
    lg_quant_layout q;
    TF_LITE_ENSURE_STATUS(lg_quant_tensor_read(context, op, "output", out, &q));
    const float clip = o->proj_clip / q.scale0;
    c->proj_clip = (int8_t)lg_kernel_clamp_float(clip, -128.0f, 127.0f);
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_lstm_int_bind(TfLiteContext* context,
                                     const TfLiteNode* node, const char* op,
                                     const lg_lstm_int_options* o,
                                     const TfLiteTensor* input, int n_batch,
                                     int n_input, lg_lstm_int_cell* c) {
  memset(c, 0, sizeof(*c));
  lg_lstm_int_forms f;
  TF_LITE_ENSURE_STATUS(lg_lstm_int_forms_of(context, node, op, &f));
  c->cifg = f.cifg;
  lg_quant_layout xq;
  TF_LITE_ENSURE_STATUS(lg_quant_tensor_read(context, op, "input", input, &xq));
  const float x_scale = xq.scale0;
  c->x_zp = xq.zero_point0;
  const TfLiteTensor* wx;
  const TfLiteTensor* wh;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 2, &wx));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 6, &wh));
  if (wx->dims->size != 2 || wh->dims->size != 2) {
    lg_kernel_log(context, op,
                  "input_to_forget_weights and recurrent_to_forget_weights "
                  "must be 2-D");
    return kTfLiteError;
  }
  c->n_cell = wx->dims->data[0];
  c->n_output = wh->dims->data[1];
  c->n_input = n_input;
  if (f.peephole && c->n_output > c->n_cell) {
    lg_kernel_log(context, op,
                  "peephole weights with a projection to %d outputs from %d "
                  "cells are not supported (TFLite's kernel reads past the "
                  "cell state)",
                  c->n_output, c->n_cell);
    return kTfLiteError;
  }
  if (!f.projection && c->n_output != c->n_cell) {
    lg_kernel_log(context, op,
                  "recurrent_to_forget_weights has %d columns; without "
                  "projection the output state has the %d cells",
                  c->n_output, c->n_cell);
    return kTfLiteError;
  }
  const TfLiteTensor* h;
  const TfLiteTensor* cs;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 18, &h));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 19, &cs));
  float h_scale = 0.0f, c_scale = 0.0f;
  int32_t c_zp = 0;
  TF_LITE_ENSURE_STATUS(lg_lstm_int_state(context, op, "output_state", h,
                                          kTfLiteInt8, n_batch, c->n_output,
                                          &h_scale, &c->h_zp));
  TF_LITE_ENSURE_STATUS(lg_lstm_int_state(context, op, "cell_state", cs,
                                          kTfLiteInt16, n_batch, c->n_cell,
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
  TF_LITE_ENSURE_STATUS(lg_lstm_int_intermediate(context, node, op, 4,
                                                 &hidden_scale, &c->hidden_zp));
  for (int g = 0; g < 4; ++g) {
    if (g == LG_GATE_INPUT && f.cifg) continue;
    /* Q3.12, or with layer norm the gate's intermediate. */
    float gate_scale = powf(2.0f, -12.0f);
    int32_t unused_zp = 0;
    if (f.layer_norm) {
      TF_LITE_ENSURE_STATUS(lg_lstm_int_intermediate(context, node, op, g,
                                                     &gate_scale, &unused_zp));
    }
    TF_LITE_ENSURE_STATUS(lg_lstm_int_bind_gate(
        context, node, op, &f, g, x_scale, h_scale, gate_scale, c));
  }
  TF_LITE_ENSURE_STATUS(lg_lstm_int_scale_of(
      context, op, "the hidden value",
      powf(2.0f, -15.0f) / hidden_scale * powf(2.0f, -15.0f), &c->hidden));
  if (f.projection) {
    TF_LITE_ENSURE_STATUS(lg_lstm_int_bind_projection(
        context, node, op, o, hidden_scale, h_scale, c));
  }
  if (o->cell_clip > 0.0f) {
    const float q = o->cell_clip / c_scale;
    c->cell_clip = (int16_t)lg_kernel_clamp_float(q, -32768.0f, 32767.0f);
  }
  return kTfLiteOk;
}

/* x . w over k values, wrapping in 32 bits as TFLite's int32 sums do;
 * x holds int8 values less a zero point (|x| <= 255). Blocks of 16 keep
 * the partial sums exact and let the compiler vectorize them at -O2. */
static int32_t lg_lstm_int_dot(const int16_t* x, const int8_t* w, int k) {
  enum { kBlock = 16 };
  uint32_t acc = 0;
  int j = 0;
  for (; j + kBlock <= k; j += kBlock) {
    int32_t part = 0;
    for (int l = 0; l < kBlock; ++l) part += x[j + l] * (int32_t)w[j + l];
    acc += (uint32_t)part;
  }
  for (; j < k; ++j) acc += (uint32_t)(x[j] * (int32_t)w[j]);
  return (int32_t)acc;
}

/* dst[j] = src[j] - zp: the int8 values a product reads, less their zero
 * point. */
static void lg_lstm_int_widen(int16_t* dst, const int8_t* src, int k,
                              int32_t zp) {
  for (int j = 0; j < k; ++j) dst[j] = (int16_t)((int32_t)src[j] - zp);
}

/* out[u] = clamp16(out[u] + round(acc * s)) with acc = bias[u] + x . w[u]
 * (x less its zero point), the sum wrapping as TFLite's int32 sum of its
 * folded zero point terms does. */
static void lg_lstm_int_product(int16_t* out, int n, const int16_t* x,
                                const int8_t* w, int k, const int32_t* bias,
                                const lg_lstm_int_scale* s) {
  for (int u = 0; u < n; ++u) {
    uint32_t acc = bias != NULL ? (uint32_t)bias[u] : 0u;
    acc += (uint32_t)lg_lstm_int_dot(x, w + (size_t)u * (size_t)k, k);
    const int32_t v = lg_multiply_by_quantized_multiplier(
                          (int32_t)acc, s->multiplier, s->shift) +
                      out[u];
    out[u] = (int16_t)lg_kernel_clamp_int(v, INT16_MIN, INT16_MAX);
  }
}

/* TFLite's integer layer norm of one row of n int16 values, in place. */
static void lg_lstm_int_layer_norm(const lg_lstm_int_gate_data* d, int16_t* v,
                                   int n) {
  int64_t sum = 0, sum_sq = 0;
  for (int j = 0; j < n; ++j) {
    sum += v[j];
    sum_sq += (int32_t)v[j] * v[j];
  }
  /* The mean and variance in 2^10 steps (TFLite's 2^20 / n is exact only
   * for a power-of-two n; the kernel computes it so anyway). */
  const int32_t mean = (int32_t)(sum * 1024 / n);
  const int32_t per_element = (1 << 20) / n;
  const int64_t variance = sum_sq * per_element - (int64_t)mean * mean;
  int32_t variance_steps = (int32_t)(variance / (1 << 20));
  if (variance_steps < 1) variance_steps = d->ln_variance_guard;
  int32_t inv_multiplier = 0;
  int inv_shift = 0;
  lg_fixed_inv_sqrt(variance_steps, &inv_multiplier, &inv_shift);
  for (int j = 0; j < n; ++j) {
    const int32_t shifted = 1024 * (int32_t)v[j] - mean;
    const int32_t normalized =
        lg_multiply_by_quantized_multiplier(shifted, inv_multiplier, inv_shift);
    /* TFLite's int32 product and sum (wrapping), then widened. */
    const int64_t scaled =
        (int32_t)((uint32_t)normalized * (uint32_t)(int32_t)d->ln_weight[j] +
                  (uint32_t)d->ln_bias[j]);
    const int32_t rounded =
        (int32_t)((scaled > 0 ? scaled + 512 : scaled - 512) / 1024);
    const int32_t out = lg_multiply_by_quantized_multiplier(
        rounded, d->s_ln.multiplier, d->s_ln.shift + 12);
    v[j] = (int16_t)lg_kernel_clamp_int(out, INT16_MIN, INT16_MAX);
  }
}

/* One time step's rows: row b of the input at x + b * x_stride, of the
 * output at out + b * out_stride; their output and cell states from h and
 * cell on (row after row). */
typedef struct lg_lstm_int_rows {
  int16_t* wide; /* n_input + n_output (at least n_cell) int16 values */
  const int8_t* x;
  int8_t* out;
  int8_t* h;
  int16_t* cell;
  size_t x_stride, out_stride;
  int n_batch;
} lg_lstm_int_rows;

/* Gate g of every row from the inputs, the output states and the cell
 * states (read by peepholes), activated, into out [n_batch, n_cell]. */
static void lg_lstm_int_gate(const lg_lstm_int_cell* c, int g,
                             const lg_lstm_int_rows* r, int16_t* out) {
  const lg_lstm_int_gate_data* d = &c->gate[g];
  const int n = c->n_cell;
  const size_t total = (size_t)r->n_batch * (size_t)n;
  memset(out, 0, total * sizeof(int16_t));
  int16_t* xw = r->wide;
  int16_t* hw = r->wide + c->n_input;
  for (int b = 0; b < r->n_batch; ++b) {
    int16_t* row = out + (size_t)b * (size_t)n;
    lg_lstm_int_widen(xw, r->x + (size_t)b * r->x_stride, c->n_input, c->x_zp);
    lg_lstm_int_widen(hw, r->h + (size_t)b * (size_t)c->n_output, c->n_output,
                      c->h_zp);
    lg_lstm_int_product(row, n, xw, d->w_x, c->n_input, d->bias, &d->s_x);
    lg_lstm_int_product(row, n, hw, d->w_h, c->n_output, NULL, &d->s_h);
  }
  if (d->peephole != NULL) {
    /* TFLite walks the peephole over n_output values per row of the flat
     * [n_batch, n_cell] arrays: with a narrowing projection it pairs the
     * weights with other cells (and rows) than their own; bind refuses a
     * widening one, which would read past the cell state. */
    const size_t width = (size_t)c->n_output;
    const size_t count = (size_t)r->n_batch * width;
    for (size_t k = 0; k < count; ++k) {
      const int32_t v = lg_multiply_by_quantized_multiplier(
                            (int32_t)d->peephole[k % width] * r->cell[k],
                            d->s_peephole.multiplier, d->s_peephole.shift) +
                        out[k];
      out[k] = (int16_t)lg_kernel_clamp_int(v, INT16_MIN, INT16_MAX);
    }
  }
  if (d->ln_weight != NULL) {
    for (int b = 0; b < r->n_batch; ++b) {
      lg_lstm_int_layer_norm(d, out + (size_t)b * (size_t)n, n);
    }
  }
  for (size_t k = 0; k < total; ++k) {
    out[k] = g == LG_GATE_CELL ? lg_fixed16_tanh(out[k], 3)
                               : lg_fixed16_logistic(out[k], 3);
  }
}

/* c = clamp16(rdiv(f * c, 15) + rdiv(i * g, 30 + cell_log2)), clipped,
 * over `total` cells; with CIFG i is 1 - f. */
static void lg_lstm_int_update_cell(const lg_lstm_int_cell* c, int16_t* cell,
                                    size_t total, const int16_t* gi,
                                    const int16_t* gf, const int16_t* gg) {
  for (size_t k = 0; k < total; ++k) {
    const int16_t kept =
        (int16_t)lg_fixed_divide_by_pot((int32_t)gf[k] * cell[k], 15);
    const int16_t input_gate = c->cifg ? (int16_t)(INT16_MAX - gf[k]) : gi[k];
    const int16_t added = (int16_t)lg_fixed_divide_by_pot(
        (int32_t)input_gate * gg[k], 30 + c->cell_log2);
    int32_t v = (int32_t)kept + added;
    v = lg_kernel_clamp_int(v, INT16_MIN, INT16_MAX);
    if (c->cell_clip > 0) {
      v = lg_kernel_clamp_int(v, -c->cell_clip, c->cell_clip);
    }
    cell[k] = (int16_t)v;
  }
}

/* Row b's new output state h from its output gate and new cell state;
 * `hidden` holds n_cell int8 values of scratch for the projection. */
static void lg_lstm_int_output(const lg_lstm_int_cell* c,
                               const lg_lstm_int_rows* r, int b,
                               const int16_t* go, int8_t* hidden) {
  const int16_t* cell = r->cell + (size_t)b * (size_t)c->n_cell;
  int8_t* h = r->h + (size_t)b * (size_t)c->n_output;
  /* Without projection the hidden value is the output state. */
  const bool projection = c->proj_weight != NULL;
  const int32_t zp = projection ? -c->hidden_zp : c->hidden_zp;
  int8_t* dst = projection ? hidden : h;
  for (int u = 0; u < c->n_cell; ++u) {
    const int16_t t = lg_fixed16_tanh(cell[u], 15 + c->cell_log2);
    int32_t v = lg_multiply_by_quantized_multiplier(
        (int32_t)go[u] * t, c->hidden.multiplier, c->hidden.shift);
    dst[u] = (int8_t)lg_kernel_clamp_int(v + zp, -128, 127);
  }
  if (!projection) return;
  /* TFLite stores hidden - 2 hidden_zp (b/246629213) and folds hidden_zp
   * times the weights' row sums into the bias: (r + hidden_zp) . W_p. */
  int16_t* wide = r->wide;
  lg_lstm_int_widen(wide, hidden, c->n_cell, -c->hidden_zp);
  for (int p = 0; p < c->n_output; ++p) {
    uint32_t acc = c->proj_bias != NULL ? (uint32_t)c->proj_bias[p] : 0u;
    acc += (uint32_t)lg_lstm_int_dot(
        wide, c->proj_weight + (size_t)p * (size_t)c->n_cell, c->n_cell);
    int32_t v = lg_multiply_by_quantized_multiplier(
                    (int32_t)acc, c->proj.multiplier, c->proj.shift) +
                c->h_zp;
    v = lg_kernel_clamp_int(v, -128, 127);
    if (c->proj_clip > 0)
      v = lg_kernel_clamp_int(v, -c->proj_clip, c->proj_clip);
    h[p] = (int8_t)v;
  }
}

/* One time step of every row, as TFLite orders it: i, f and g from the
 * old states, the cell states, o (its peephole reads the new cell
 * states), the output states, copied to the output rows. `scratch` is
 * laid out as lg_lstm_int_scratch_floats counts it. */
static void lg_lstm_int_step(const lg_lstm_int_cell* c, lg_lstm_int_rows* r,
                             int16_t* scratch) {
  const size_t total = (size_t)r->n_batch * (size_t)c->n_cell;
  int16_t* gi = scratch;
  int16_t* gf = gi + total;
  int16_t* gg = gf + total;
  int16_t* go = gg + total;
  r->wide = go + total;
  const int widest = c->n_output > c->n_cell ? c->n_output : c->n_cell;
  int8_t* hidden = (int8_t*)(r->wide + c->n_input + widest);
  if (!c->cifg) lg_lstm_int_gate(c, LG_GATE_INPUT, r, gi);
  lg_lstm_int_gate(c, LG_GATE_FORGET, r, gf);
  lg_lstm_int_gate(c, LG_GATE_CELL, r, gg);
  lg_lstm_int_update_cell(c, r->cell, total, gi, gf, gg);
  lg_lstm_int_gate(c, LG_GATE_OUTPUT, r, go);
  for (int b = 0; b < r->n_batch; ++b) {
    lg_lstm_int_output(c, r, b, go + (size_t)b * (size_t)c->n_cell, hidden);
    memcpy(r->out + (size_t)b * r->out_stride,
           r->h + (size_t)b * (size_t)c->n_output, (size_t)c->n_output);
  }
}

size_t lg_lstm_int_scratch_floats(int n_batch, int n_input, int n_cell,
                                  int n_output) {
  /* the four gates of every row, one row's widened input and output state
   * (or hidden value), one row's int8 hidden value */
  const size_t widest = (size_t)(n_output > n_cell ? n_output : n_cell);
  const size_t bytes = ((size_t)4 * (size_t)n_batch * (size_t)n_cell +
                        (size_t)n_input + widest) *
                           sizeof(int16_t) +
                       (size_t)n_cell * sizeof(int8_t);
  return (bytes + sizeof(float) - 1) / sizeof(float);
}

TfLiteStatus lg_lstm_int_check(TfLiteContext* context, const TfLiteNode* node,
                               const char* op, const lg_lstm_int_options* o,
                               const TfLiteTensor* input, int n_batch,
                               int n_input, int* n_cell, int* n_output) {
  lg_lstm_int_cell c;
  TF_LITE_ENSURE_STATUS(
      lg_lstm_int_bind(context, node, op, o, input, n_batch, n_input, &c));
  *n_cell = c.n_cell;
  *n_output = c.n_output;
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
                             int n_batch, int n_time, int n_input) {
  lg_lstm_int_cell c;
  TF_LITE_ENSURE_STATUS(
      lg_lstm_int_bind(context, node, op, o, input, n_batch, n_input, &c));
  TF_LITE_ENSURE_STATUS(lg_lstm_int_output_check(context, op, output));
  if (output->dims->size != input->dims->size ||
      lg_kernel_num_elements(output) !=
          (int64_t)n_batch * n_time * c.n_output) {
    lg_kernel_log(context, op, "output 0 was not prepared for this input");
    return kTfLiteError;
  }
  float* scratch = lg_nn_temporary(
      context, node, op, 0,
      lg_lstm_int_scratch_floats(n_batch, n_input, c.n_cell, c.n_output));
  if (scratch == NULL) return kTfLiteError;
  if (n_batch == 0 || n_time == 0) return kTfLiteOk;
  if (input->data.int8 == NULL || output->data.int8 == NULL ||
      c.h_state == NULL || c.c_state == NULL) {
    lg_kernel_log(context, op, "a tensor has no data");
    return kTfLiteError;
  }
  /* As TFLite: time-major (and the one-step op), [time, batch, features],
   * a step over every row at once; batch-major, [batch, time, features],
   * each row's whole sequence in turn (peepholes with a projection tell
   * the two apart). */
  const int groups = o->time_major ? 1 : n_batch;
  const int rows = o->time_major ? n_batch : 1;
  for (int b = 0; b < groups; ++b) {
    lg_lstm_int_rows r = {.n_batch = rows,
                          .x_stride = (size_t)n_input,
                          .out_stride = (size_t)c.n_output,
                          .h = c.h_state + (size_t)b * (size_t)c.n_output,
                          .cell = c.c_state + (size_t)b * (size_t)c.n_cell};
    for (int t = 0; t < n_time; ++t) {
      /* the step's first row */
      const size_t first = o->time_major ? (size_t)t * (size_t)n_batch
                                         : (size_t)b * (size_t)n_time + t;
      r.x = input->data.int8 + first * (size_t)n_input;
      r.out = output->data.int8 + first * (size_t)c.n_output;
      lg_lstm_int_step(&c, &r, (int16_t*)scratch);
    }
  }
  return kTfLiteOk;
}
