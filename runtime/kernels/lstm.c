/* The LSTM family, float32: LSTM (one step), UNIDIRECTIONAL_SEQUENCE_LSTM
 * and BIDIRECTIONAL_SEQUENCE_LSTM. One cell (lg_lstm_step) serves all three.
 *
 * Inputs of one direction, TFLite's layout (LSTM and the unidirectional op;
 * the bidirectional op has two such blocks, see lg_lstm_bidi_slots):
 *    0 input                     1-4  input_to_{input,forget,cell,output}
 *    5-8 recurrent_to_{input,forget,cell,output}
 *    9-11 cell_to_{input,forget,output} (peephole, optional)
 *   12-15 {input,forget,cell,output}_gate_bias
 *   16 projection_weights, 17 projection_bias (optional)
 *   18 output_state, 19 cell_state (variable tensors)
 *   20-23 {input,forget,cell,output}_layer_norm_coefficients (optional)
 * input_to_input, recurrent_to_input and input_gate_bias are absent together
 * (CIFG: the input gate is 1 - forget gate).
 *
 * One step, for gates i, f, o (sigmoid) and g (the options' activation):
 *   gate = bias + W_x x + W_h h_prev (+ peephole w_c * c; i, f use c_prev,
 *          o uses the new c), with layer norm the sum is normalized per batch
 *          row, scaled by the coefficients, then the bias is added
 *   c = f * c_prev + i * g, clipped to +-cell_clip when cell_clip > 0
 *   h = o * act(c), projected (W_p h + b_p, clipped to +-proj_clip when
 *       proj_clip > 0) when projection weights are given
 * The state tensors are variable: they carry h and c from one Invoke to the
 * next and are zeroed by TfLiteInterpreterResetVariableTensors.
 *
 * Hybrid kernels (float input and states, INT8 matrices, peephole and
 * projection weights of one scale each; float biases and layer norm) are
 * TFLite's hybrid LSTM step: every product through
 * lg_recurrent_gates_hybrid (each batch row of the input, the output state
 * and, for the projection, the hidden values quantized on the fly,
 * asymmetrically with asymmetric_quantize_inputs), the peephole weights
 * dequantized as (float)q * scale, the rest as in float.
 *
 * The bidirectional op's auxiliary inputs (float32): see lg_lstm_aux. LSTM's
 * BASIC kernel type (version 2, float and quantized): see lg_lstm_basic_bind's
 * section.
 *
 * LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM with an INT8 input run TFLite's
 * integer 8x8->16 kernel: lstm_integer.c.
 *
 * Not computed (rejected in Prepare naming them): INT16 inputs (the 16x8
 * kernel), an INT8 BIDIRECTIONAL_SEQUENCE_LSTM, the integer forms
 * lstm_integer.c lists, uint8 or per-channel weights (outside the BASIC
 * kernel), diagonal recurrent weights in a hybrid node.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/lstm_integer.h"
#include "runtime/kernels/nn.h"
#include "runtime/kernels/quant_util.h"
#include "runtime/kernels/recurrent.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

enum { kGateInput = 0, kGateForget = 1, kGateCell = 2, kGateOutput = 3 };

static const char* const kGateNames[4] = {"input", "forget", "cell", "output"};

/* Input slots of one direction; -1 where the layout has no such slot. */
typedef struct lg_lstm_slots {
  int w_x[4];
  int w_h[4];
  int peep[3]; /* cell_to_input, cell_to_forget, cell_to_output */
  int bias[4];
  int proj_w, proj_b;
  int h_state, c_state;
  int ln[4];
} lg_lstm_slots;

/* One direction's weights, resolved for a step. */
typedef struct lg_lstm_cell {
  const float* w_x[4];
  const float* w_h[4];
  const float* peep[3];
  const float* bias[4];
  const float* ln[4];
  const float* proj_w;
  const float* proj_b;
  float* h_state;
  float* c_state;
  int n_input, n_cell, n_output;
  bool cifg, diagonal;
  TfLiteFusedActivation activation;
  float cell_clip, proj_clip;
  /* Hybrid: INT8 matrices, peephole and projection weights with their
   * scales (the float pointers above are then NULL); the biases and layer
   * norm coefficients stay float. */
  bool hybrid, asymmetric;
  const int8_t* w_xq[4];
  const int8_t* w_hq[4];
  const int8_t* peep_q[3];
  const int8_t* proj_q;
  float w_x_scale[4], w_h_scale[4], peep_scale[3], proj_scale;
  /* Bidirectional cross-linking mode: the aux_input_to_* weights [n_cell,
   * n_aux] (NULL otherwise; the input gate's NULL with CIFG). */
  const float* w_aux[4];
  const int8_t* w_auxq[4]; /* hybrid */
  float w_aux_scale[4];
  int n_aux;
} lg_lstm_cell;

/* The largest row the hybrid kernel quantizes. */
static int lg_lstm_quantized_row(const lg_lstm_cell* c) {
  int q = c->n_input > c->n_output ? c->n_input : c->n_output;
  if (c->n_aux > q) q = c->n_aux;
  return c->n_cell > q ? c->n_cell : q;
}

/* Scratch floats of one step over n_batch rows: four gates, the hidden
 * values and the projected ones; hybrid adds the dequantized peephole
 * weights and one quantized row (int8). */
static size_t lg_lstm_scratch_floats(const lg_lstm_cell* c, int n_batch) {
  size_t n = (size_t)n_batch * (5 * (size_t)c->n_cell + (size_t)c->n_output);
  if (c->hybrid) {
    n += 3 * (size_t)c->n_cell + ((size_t)lg_lstm_quantized_row(c) + 3) / 4;
  }
  return n;
}

/* Checks a weight of the cell, FLOAT32 or (hybrid) INT8 with its scale. */
static TfLiteStatus lg_lstm_weight(TfLiteContext* context, const char* op,
                                   const char* name, const TfLiteTensor* t,
                                   int rank, const int* dims, bool hybrid,
                                   const float** f, const int8_t** q,
                                   float* scale) {
  if (hybrid) {
    TF_LITE_ENSURE_STATUS(
        lg_recurrent_check_int8(context, op, name, t, rank, dims, scale));
    *q = t->data.int8;
    return kTfLiteOk;
  }
  TF_LITE_ENSURE_STATUS(
      lg_recurrent_check_float(context, op, name, t, rank, dims));
  *f = t->data.f;
  return kTfLiteOk;
}

static void lg_lstm_slots_single(lg_lstm_slots* s, bool layer_norm) {
  for (int g = 0; g < 4; ++g) {
    s->w_x[g] = 1 + g;
    s->w_h[g] = 5 + g;
    s->bias[g] = 12 + g;
    s->ln[g] = layer_norm ? 20 + g : -1;
  }
  for (int p = 0; p < 3; ++p) s->peep[p] = 9 + p;
  s->proj_w = 16;
  s->proj_b = 17;
  s->h_state = 18;
  s->c_state = 19;
}

/* BIDIRECTIONAL_SEQUENCE_LSTM: forward weights at 1-17, backward at 18-34,
 * states fw h 35, fw c 36, bw h 37, bw c 38; no layer norm. */
static void lg_lstm_bidi_slots(lg_lstm_slots* s, int direction) {
  lg_lstm_slots_single(s, false);
  const int shift = direction == 0 ? 0 : 17;
  for (int g = 0; g < 4; ++g) {
    s->w_x[g] += shift;
    s->w_h[g] += shift;
    s->bias[g] += shift;
  }
  for (int p = 0; p < 3; ++p) s->peep[p] += shift;
  s->proj_w += shift;
  s->proj_b += shift;
  s->h_state = direction == 0 ? 35 : 37;
  s->c_state = direction == 0 ? 36 : 38;
}

static TfLiteStatus lg_lstm_opt(TfLiteContext* context, const TfLiteNode* node,
                                const char* op, int slot,
                                const TfLiteTensor** t) {
  *t = NULL;
  if (slot < 0) return kTfLiteOk;
  return lg_kernel_optional_input(context, node, op, slot, t);
}

static TfLiteStatus lg_lstm_vector(TfLiteContext* context, const char* op,
                                   const char* prefix, const char* what,
                                   const TfLiteTensor* t, int n,
                                   const float** data) {
  char name[96];
  snprintf(name, sizeof(name), "%s%s", prefix, what);
  const int dims[1] = {n};
  TF_LITE_ENSURE_STATUS(
      lg_recurrent_check_float(context, op, name, t, 1, dims));
  *data = t->data.f;
  return kTfLiteOk;
}

/* Resolves and checks one direction's tensors for `n_batch` rows of
 * `n_input` features. `prefix` names the direction in messages ("fw_"). */
static TfLiteStatus lg_lstm_bind(TfLiteContext* context, const TfLiteNode* node,
                                 const char* op, const char* prefix,
                                 const lg_lstm_slots* s,
                                 const TfLiteTensor* input, int n_batch,
                                 int n_input, bool diagonal, lg_lstm_cell* c) {
  memset(c, 0, sizeof(*c));
  c->n_input = n_input;
  c->diagonal = diagonal;
  char name[96];
  const TfLiteTensor* t[4];
  const TfLiteTensor* r[4];
  for (int g = 0; g < 4; ++g) {
    TF_LITE_ENSURE_STATUS(lg_lstm_opt(context, node, op, s->w_x[g], &t[g]));
    TF_LITE_ENSURE_STATUS(lg_lstm_opt(context, node, op, s->w_h[g], &r[g]));
    if (g != kGateInput && (t[g] == NULL || r[g] == NULL)) {
      lg_kernel_log(context, op,
                    "%sinput_to_%s_weights and "
                    "%srecurrent_to_%s_weights are required",
                    prefix, kGateNames[g], prefix, kGateNames[g]);
      return kTfLiteError;
    }
  }
  TF_LITE_ENSURE_STATUS(lg_recurrent_check_kernel_types(context, op, input,
                                                        t[kGateForget], true));
  const bool hybrid = t[kGateForget]->type == kTfLiteInt8;
  c->hybrid = hybrid;
  if (hybrid && diagonal) {
    lg_kernel_log(context, op,
                  "diagonal recurrent weights in a hybrid node are not "
                  "supported");
    return kTfLiteError;
  }
  if (t[kGateForget]->dims->size != 2) {
    lg_kernel_log(context, op, "%sinput_to_forget_weights must be 2-D", prefix);
    return kTfLiteError;
  }
  const int n_cell = t[kGateForget]->dims->data[0];
  c->n_cell = n_cell;
  const TfLiteTensor* proj_w;
  const TfLiteTensor* proj_b;
  TF_LITE_ENSURE_STATUS(lg_lstm_opt(context, node, op, s->proj_w, &proj_w));
  TF_LITE_ENSURE_STATUS(lg_lstm_opt(context, node, op, s->proj_b, &proj_b));
  int n_output;
  if (diagonal) {
    n_output = n_cell;
  } else if (r[kGateForget]->dims->size == 2) {
    n_output = r[kGateForget]->dims->data[1];
  } else {
    lg_kernel_log(context, op, "%srecurrent_to_forget_weights must be 2-D",
                  prefix);
    return kTfLiteError;
  }
  if (proj_w == NULL && proj_b != NULL) {
    lg_kernel_log(context, op, "%sprojection_bias needs projection_weights",
                  prefix);
    return kTfLiteError;
  }
  if (proj_w != NULL) {
    if (proj_w->dims->size != 2) {
      lg_kernel_log(context, op, "%sprojection_weights must be 2-D", prefix);
      return kTfLiteError;
    }
    if (diagonal) {
      lg_kernel_log(context, op,
                    "diagonal recurrent weights with a projection are not "
                    "supported");
      return kTfLiteError;
    }
    const int dims[2] = {n_output, n_cell};
    snprintf(name, sizeof(name), "%sprojection_weights", prefix);
    TF_LITE_ENSURE_STATUS(lg_lstm_weight(context, op, name, proj_w, 2, dims,
                                         hybrid, &c->proj_w, &c->proj_q,
                                         &c->proj_scale));
    if (proj_b != NULL) {
      TF_LITE_ENSURE_STATUS(lg_lstm_vector(context, op, prefix,
                                           "projection_bias", proj_b, n_output,
                                           &c->proj_b));
    }
  } else if (n_output != n_cell) {
    lg_kernel_log(context, op,
                  "%soutput size %d differs from the cell count %d without "
                  "projection weights",
                  prefix, n_output, n_cell);
    return kTfLiteError;
  }
  c->n_output = n_output;
  /* CIFG: the input gate's weights and bias are absent together. */
  const TfLiteTensor* input_bias;
  TF_LITE_ENSURE_STATUS(
      lg_lstm_opt(context, node, op, s->bias[kGateInput], &input_bias));
  const bool cifg = t[kGateInput] == NULL;
  if ((r[kGateInput] == NULL) != cifg || (input_bias == NULL) != cifg) {
    lg_kernel_log(context, op,
                  "%sinput_to_input_weights, %srecurrent_to_input_weights and "
                  "%sinput_gate_bias must be all given or all absent (CIFG)",
                  prefix, prefix, prefix);
    return kTfLiteError;
  }
  c->cifg = cifg;
  for (int g = cifg ? 1 : 0; g < 4; ++g) {
    const int wx[2] = {n_cell, n_input};
    snprintf(name, sizeof(name), "%sinput_to_%s_weights", prefix,
             kGateNames[g]);
    TF_LITE_ENSURE_STATUS(lg_lstm_weight(context, op, name, t[g], 2, wx, hybrid,
                                         &c->w_x[g], &c->w_xq[g],
                                         &c->w_x_scale[g]));
    snprintf(name, sizeof(name), "%srecurrent_to_%s_weights", prefix,
             kGateNames[g]);
    if (diagonal) {
      const int wd[1] = {n_cell};
      TF_LITE_ENSURE_STATUS(
          lg_recurrent_check_float(context, op, name, r[g], 1, wd));
    } else {
      const int wh[2] = {n_cell, n_output};
      TF_LITE_ENSURE_STATUS(lg_lstm_weight(context, op, name, r[g], 2, wh,
                                           hybrid, &c->w_h[g], &c->w_hq[g],
                                           &c->w_h_scale[g]));
    }
    if (diagonal) c->w_h[g] = r[g]->data.f;
    const TfLiteTensor* b;
    TF_LITE_ENSURE_STATUS(lg_lstm_opt(context, node, op, s->bias[g], &b));
    if (b == NULL) {
      lg_kernel_log(context, op, "%s%s_gate_bias is required", prefix,
                    kGateNames[g]);
      return kTfLiteError;
    }
    snprintf(name, sizeof(name), "%s_gate_bias", kGateNames[g]);
    TF_LITE_ENSURE_STATUS(
        lg_lstm_vector(context, op, prefix, name, b, n_cell, &c->bias[g]));
  }
  /* Peephole: cell_to_forget and cell_to_output together, cell_to_input
   * too unless CIFG (where it is not used). */
  const TfLiteTensor* p[3];
  for (int k = 0; k < 3; ++k) {
    TF_LITE_ENSURE_STATUS(lg_lstm_opt(context, node, op, s->peep[k], &p[k]));
  }
  const bool peephole = p[1] != NULL || p[2] != NULL || (!cifg && p[0] != NULL);
  if (peephole && (p[1] == NULL || p[2] == NULL || (!cifg && p[0] == NULL))) {
    lg_kernel_log(context, op,
                  "%speephole weights (cell_to_*) must be all given or all "
                  "absent",
                  prefix);
    return kTfLiteError;
  }
  if (peephole) {
    static const char* const kPeep[3] = {"cell_to_input_weights",
                                         "cell_to_forget_weights",
                                         "cell_to_output_weights"};
    for (int k = cifg ? 1 : 0; k < 3; ++k) {
      if (hybrid) {
        snprintf(name, sizeof(name), "%s%s", prefix, kPeep[k]);
        TF_LITE_ENSURE_STATUS(lg_recurrent_check_int8(
            context, op, name, p[k], 1, &n_cell, &c->peep_scale[k]));
        c->peep_q[k] = p[k]->data.int8;
      } else {
        TF_LITE_ENSURE_STATUS(lg_lstm_vector(context, op, prefix, kPeep[k],
                                             p[k], n_cell, &c->peep[k]));
      }
    }
  }
  /* Layer norm: the forget coefficients decide; then cell and output are
   * required, input too unless CIFG. */
  const TfLiteTensor* ln[4];
  for (int g = 0; g < 4; ++g) {
    TF_LITE_ENSURE_STATUS(lg_lstm_opt(context, node, op, s->ln[g], &ln[g]));
  }
  if (ln[kGateForget] != NULL) {
    for (int g = cifg ? 1 : 0; g < 4; ++g) {
      snprintf(name, sizeof(name), "%s_layer_norm_coefficients", kGateNames[g]);
      if (ln[g] == NULL) {
        lg_kernel_log(context, op, "%s is required with layer norm", name);
        return kTfLiteError;
      }
      TF_LITE_ENSURE_STATUS(
          lg_lstm_vector(context, op, prefix, name, ln[g], n_cell, &c->ln[g]));
    }
  } else if (ln[kGateInput] != NULL || ln[kGateCell] != NULL ||
             ln[kGateOutput] != NULL) {
    lg_kernel_log(context, op,
                  "layer norm coefficients are given without "
                  "forget_layer_norm_coefficients");
    return kTfLiteError;
  }
  /* The states. */
  const TfLiteTensor* h;
  const TfLiteTensor* cs;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, s->h_state, &h));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, s->c_state, &cs));
  snprintf(name, sizeof(name), "%soutput_state", prefix);
  TF_LITE_ENSURE_STATUS(
      lg_recurrent_check_state(context, op, name, h, n_batch, n_output));
  snprintf(name, sizeof(name), "%scell_state", prefix);
  TF_LITE_ENSURE_STATUS(
      lg_recurrent_check_state(context, op, name, cs, n_batch, n_cell));
  c->h_state = h->data.f;
  c->c_state = cs->data.f;
  return kTfLiteOk;
}

/* One gate over all batch rows: the shared gates-from-weights sum, the
 * peephole term on `cell`, layer norm, then the activation. */
static void lg_lstm_gate(const lg_lstm_cell* c, int g, const float* peep,
                         int n_batch, const float* x, ptrdiff_t x_stride,
                         const float* aux, ptrdiff_t aux_stride,
                         const float* cell, TfLiteFusedActivation activation,
                         int8_t* q, float* out) {
  const int n = c->n_cell;
  const float* ln = c->ln[g];
  if (c->hybrid && aux != NULL && c->w_auxq[g] != NULL) {
    /* TFLite's order: bias, input, aux input, then the recurrent term. */
    lg_recurrent_gates_hybrid(out, n, n_batch, ln != NULL ? NULL : c->bias[g],
                              c->w_xq[g], c->w_x_scale[g], c->n_input, x,
                              x_stride, NULL, 0.0f, 0, NULL, 0, c->asymmetric,
                              q);
    lg_recurrent_hybrid_term(out, n, n_batch, c->w_auxq[g], c->w_aux_scale[g],
                             c->n_aux, aux, aux_stride, c->asymmetric, q);
    lg_recurrent_hybrid_term(out, n, n_batch, c->w_hq[g], c->w_h_scale[g],
                             c->n_output, c->h_state, c->n_output,
                             c->asymmetric, q);
  } else if (c->hybrid) {
    lg_recurrent_gates_hybrid(
        out, n, n_batch, ln != NULL ? NULL : c->bias[g], c->w_xq[g],
        c->w_x_scale[g], c->n_input, x, x_stride, c->w_hq[g], c->w_h_scale[g],
        c->n_output, c->h_state, c->n_output, c->asymmetric, q);
  } else if (aux != NULL && c->w_aux[g] != NULL) {
    /* TFLite's order: bias, input, aux input, then the recurrent term. */
    lg_recurrent_gates(out, n, n_batch, ln != NULL ? NULL : c->bias[g],
                       c->w_x[g], c->n_input, x, x_stride, NULL, 0, false, NULL,
                       0);
    lg_recurrent_add_product(out, n, n_batch, c->w_aux[g], c->n_aux, aux,
                             aux_stride);
    lg_recurrent_add_product(out, n, n_batch, c->w_h[g], c->n_output,
                             c->h_state, c->n_output);
  } else {
    lg_recurrent_gates(out, n, n_batch, ln != NULL ? NULL : c->bias[g],
                       c->w_x[g], c->n_input, x, x_stride, c->w_h[g],
                       c->n_output, c->diagonal, c->h_state, c->n_output);
  }
  const size_t count = (size_t)n_batch * (size_t)n;
  if (peep != NULL) {
    for (size_t i = 0; i < count; ++i) out[i] += peep[i % (size_t)n] * cell[i];
  }
  if (ln != NULL) {
    for (int b = 0; b < n_batch; ++b) {
      float* v = out + (size_t)b * (size_t)n;
      float sum = 0.0f;
      for (int u = 0; u < n; ++u) sum += v[u];
      const float mean = sum / (float)n;
      float sq = 0.0f;
      for (int u = 0; u < n; ++u) sq += (v[u] - mean) * (v[u] - mean);
      const float inv = 1.0f / sqrtf(sq / (float)n + 1e-8f);
      for (int u = 0; u < n; ++u) {
        v[u] = (v[u] - mean) * inv * ln[u] + c->bias[g][u];
      }
    }
  }
  lg_recurrent_activate(out, out, count, activation);
}

static void lg_lstm_clip(float* v, size_t count, float clip) {
  if (clip > 0.0f) {
    for (size_t i = 0; i < count; ++i)
      v[i] = lg_kernel_clamp_float(v[i], -clip, clip);
  }
}

/* One time step for n_batch rows: row b of the input at x + b * x_stride,
 * of the output at out + b * out_stride; updates the cell's states. */
static void lg_lstm_step(const lg_lstm_cell* c, int n_batch, const float* x,
                         ptrdiff_t x_stride, const float* aux,
                         ptrdiff_t aux_stride, float* out, ptrdiff_t out_stride,
                         float* scratch) {
  const size_t nc = (size_t)n_batch * (size_t)c->n_cell;
  float* gi = scratch;
  float* gf = gi + nc;
  float* gg = gf + nc;
  float* go = gg + nc;
  float* hidden = go + nc;
  float* projected = hidden + nc;
  float* cell = c->c_state;
  /* Hybrid: the peephole weights dequantized as (float)q * scale, as
   * TFLite's VectorScalarMultiply, and room for one quantized row. */
  const float* peep[3] = {c->peep[0], c->peep[1], c->peep[2]};
  int8_t* q = NULL;
  if (c->hybrid) {
    float* dequantized = projected + (size_t)n_batch * (size_t)c->n_output;
    for (int k = 0; k < 3; ++k) {
      if (c->peep_q[k] == NULL) continue;
      float* d = dequantized + (size_t)k * (size_t)c->n_cell;
      for (int i = 0; i < c->n_cell; ++i) {
        d[i] = (float)c->peep_q[k][i] * c->peep_scale[k];
      }
      peep[k] = d;
    }
    q = (int8_t*)(dequantized + 3 * (size_t)c->n_cell);
  }
  if (!c->cifg) {
    lg_lstm_gate(c, kGateInput, peep[0], n_batch, x, x_stride, aux, aux_stride,
                 cell, kTfLiteActSigmoid, q, gi);
  }
  lg_lstm_gate(c, kGateForget, peep[1], n_batch, x, x_stride, aux, aux_stride,
               cell, kTfLiteActSigmoid, q, gf);
  lg_lstm_gate(c, kGateCell, NULL, n_batch, x, x_stride, aux, aux_stride, cell,
               c->activation, q, gg);
  for (size_t i = 0; i < nc; ++i) {
    const float in_gate = c->cifg ? 1.0f - gf[i] : gi[i];
    float v = cell[i] * gf[i];
    v += gg[i] * in_gate;
    cell[i] = v;
  }
  lg_lstm_clip(cell, nc, c->cell_clip);
  lg_lstm_gate(c, kGateOutput, peep[2], n_batch, x, x_stride, aux, aux_stride,
               cell, kTfLiteActSigmoid, q, go);
  lg_recurrent_activate(cell, hidden, nc, c->activation);
  for (size_t i = 0; i < nc; ++i) hidden[i] = go[i] * hidden[i];
  const float* result = hidden;
  if (c->proj_q != NULL) {
    lg_recurrent_gates_hybrid(
        projected, c->n_output, n_batch, c->proj_b, c->proj_q, c->proj_scale,
        c->n_cell, hidden, c->n_cell, NULL, 0.0f, 0, NULL, 0, c->asymmetric, q);
    lg_lstm_clip(projected, (size_t)n_batch * (size_t)c->n_output,
                 c->proj_clip);
    result = projected;
  } else if (c->proj_w != NULL) {
    lg_recurrent_gates(projected, c->n_output, n_batch, c->proj_b, c->proj_w,
                       c->n_cell, hidden, c->n_cell, NULL, 0, false, NULL, 0);
    lg_lstm_clip(projected, (size_t)n_batch * (size_t)c->n_output,
                 c->proj_clip);
    result = projected;
  }
  const size_t row = (size_t)c->n_output * sizeof(float);
  memcpy(c->h_state, result, (size_t)n_batch * row);
  for (int b = 0; b < n_batch; ++b) {
    memcpy(out + b * out_stride, result + (size_t)b * (size_t)c->n_output, row);
  }
}

/* ---- The ops ---------------------------------------------------------------
 */

typedef enum lg_lstm_kind {
  LG_LSTM_SINGLE,
  LG_LSTM_UNIDIRECTIONAL,
  LG_LSTM_BIDIRECTIONAL,
} lg_lstm_kind;

typedef lg_recurrent_data lg_lstm_data;

static void* lg_lstm_init_variant(int kind, const char* name) {
  return lg_recurrent_init_variant(kind, name);
}

/* The options every variant shares. */
typedef struct lg_lstm_options {
  TfLiteFusedActivation activation;
  float cell_clip, proj_clip;
  bool time_major, diagonal, merge_outputs, asymmetric;
} lg_lstm_options;

static TfLiteStatus lg_lstm_read_options(TfLiteContext* context,
                                         const TfLiteNode* node,
                                         const lg_lstm_data* d,
                                         lg_lstm_options* o) {
  memset(o, 0, sizeof(*o));
  o->activation = kTfLiteActTanh;
  const char* op = d->name;
  if (d->kind == LG_LSTM_SINGLE) {
    const TfLiteLSTMParams* p = node->builtin_data;
    if (p != NULL) {
      if (p->kernel_type != kTfLiteLSTMFullKernel) {
        lg_kernel_log(context, op, "unknown kernel_type %d",
                      (int)p->kernel_type);
        return kTfLiteError;
      }
      o->activation = p->activation;
      o->cell_clip = p->cell_clip;
      o->proj_clip = p->proj_clip;
      o->asymmetric = p->asymmetric_quantize_inputs;
    }
  } else if (d->kind == LG_LSTM_UNIDIRECTIONAL) {
    const TfLiteUnidirectionalSequenceLSTMParams* p = node->builtin_data;
    if (p != NULL) {
      o->activation = p->activation;
      o->cell_clip = p->cell_clip;
      o->proj_clip = p->proj_clip;
      o->time_major = p->time_major;
      o->diagonal = p->diagonal_recurrent_tensors;
      o->asymmetric = p->asymmetric_quantize_inputs;
    }
  } else {
    const TfLiteBidirectionalSequenceLSTMParams* p = node->builtin_data;
    o->time_major = true;
    if (p != NULL) {
      o->activation = p->activation;
      o->cell_clip = p->cell_clip;
      o->proj_clip = p->proj_clip;
      o->time_major = p->time_major;
      o->merge_outputs = p->merge_outputs;
      o->asymmetric = p->asymmetric_quantize_inputs;
    }
  }
  if (o->cell_clip < 0.0f || o->proj_clip < 0.0f || isnan(o->cell_clip) ||
      isnan(o->proj_clip)) {
    lg_kernel_log(context, op, "cell_clip %g and proj_clip %g must be >= 0",
                  (double)o->cell_clip, (double)o->proj_clip);
    return kTfLiteError;
  }
  return lg_recurrent_check_activation(context, op, o->activation);
}

/* ---- LSTM's BASIC kernel type (version 2) ----------------------------------
 *
 * TFLite's five-input LSTM cell: 0 input [batch, input_depth],
 * 1 prev_activation [batch, depth], 2 weights [4 * depth, input_depth +
 * depth], 3 biases [4 * depth], 4 prev_state [batch, depth]; outputs
 * 0 activation [batch, depth], 1 state [batch, depth], 2 concat_temp [batch,
 * input_depth + depth], 3 activation_temp [batch, 4 * depth]. One step:
 *   concat_temp = [input, prev_activation] (per batch row)
 *   activation_temp = biases + weights * concat_temp
 *   with the four depth-wide blocks of activation_temp in the order input
 *   gate (sigmoid), new input (tanh), forget gate (sigmoid), output gate
 *   (sigmoid):
 *   state = input_gate * new_input + forget_gate * prev_state
 *   activation = output_gate * tanh(state)
 * Then, as TFLite does, the new activation and state are copied back into
 * prev_activation and prev_state (so a variable or input tensor carries
 * them to the next Invoke); constant state inputs are rejected for that
 * reason. The options' activation and clips are not used (TFLite's basic
 * kernel ignores them).
 *
 * TFLite's quantized variant (UINT8 input, prev_activation, weights,
 * activation and concat_temp; INT32 biases; INT16 state and
 * activation_temp) is its LstmCell<4>: the concatenation's values less 128
 * (activations at scale 1/128, zero point 128, as TFLite assumes) times
 * the weights less their zero point, plus the bias, rescaled by 4096 *
 * bias scale to Q3.12 (activation_temp); gemmlowp's int16 logistic and
 * tanh of the gates (lg_fixed16_*), the state in Q4.11 (its scale must be
 * 2^-11, TFLite's only case): state = sat(rescale(i * g) + f * state_prev),
 * activation = 128 + clamp(rdiv(o * tanh(state as Q3.12), 8), -128, 127).
 */

static const char* const kBasicInputNames[5] = {
    "input", "prev_activation", "weights", "biases", "prev_state"};
static const char* const kBasicOutputNames[4] = {
    "activation", "state", "concat_temp", "activation_temp"};
static const TfLiteType kBasicQuantizedInputTypes[5] = {
    kTfLiteUInt8, kTfLiteUInt8, kTfLiteUInt8, kTfLiteInt32, kTfLiteInt16};
static const TfLiteType kBasicQuantizedOutputTypes[4] = {
    kTfLiteUInt8, kTfLiteInt16, kTfLiteUInt8, kTfLiteInt16};

/* Reads the five inputs, checks their types and shapes and gives the batch,
 * input depth and output depth. */
static TfLiteStatus lg_lstm_basic_bind(TfLiteContext* context,
                                       const TfLiteNode* node, const char* op,
                                       const TfLiteTensor* t[5], int* n_batch,
                                       int* n_input, int* depth) {
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 5, 5, 4));
  for (int i = 0; i < 5; ++i) {
    TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, i, &t[i]));
  }
  const bool quantized = t[kLgLstmBasicInput]->type == kTfLiteUInt8;
  for (int i = 0; i < 5; ++i) {
    const TfLiteType want =
        quantized ? kBasicQuantizedInputTypes[i] : kTfLiteFloat32;
    if (t[i]->type != want) {
      lg_kernel_log(context, op,
                    "BASIC kernel: %s has type %s, expected %s (the %s "
                    "kernel)",
                    kBasicInputNames[i], TfLiteTypeGetName(t[i]->type),
                    TfLiteTypeGetName(want), quantized ? "quantized" : "float");
      return kTfLiteError;
    }
    TF_LITE_ENSURE_STATUS(
        lg_kernel_check_shape(context, op, kBasicInputNames[i], t[i]));
  }
  const TfLiteTensor* input = t[kLgLstmBasicInput];
  const TfLiteTensor* prev = t[kLgLstmBasicPrevActivation];
  if (input->dims->size != 2 || prev->dims->size != 2) {
    lg_kernel_log(context, op,
                  "BASIC kernel: input and prev_activation must be 2-D, got "
                  "%d-D and %d-D",
                  input->dims->size, prev->dims->size);
    return kTfLiteError;
  }
  *n_batch = input->dims->data[0];
  *n_input = input->dims->data[1];
  *depth = prev->dims->data[1];
  if (*depth > INT32_MAX / 4 || *n_input > INT32_MAX - *depth) {
    lg_kernel_log(context, op, "BASIC kernel: depth %d is too large", *depth);
    return kTfLiteError;
  }
  const int w[2] = {4 * *depth, *n_input + *depth};
  const int b[1] = {4 * *depth};
  const int s[2] = {*n_batch, *depth};
  TF_LITE_ENSURE_STATUS(
      lg_recurrent_check_dims(context, op, "prev_activation", prev, 2, s));
  TF_LITE_ENSURE_STATUS(lg_recurrent_check_dims(context, op, "weights",
                                                t[kLgLstmBasicWeights], 2, w));
  TF_LITE_ENSURE_STATUS(lg_recurrent_check_dims(context, op, "biases",
                                                t[kLgLstmBasicBiases], 1, b));
  TF_LITE_ENSURE_STATUS(lg_recurrent_check_dims(
      context, op, "prev_state", t[kLgLstmBasicPrevState], 2, s));
  for (int i = kLgLstmBasicPrevActivation; i <= kLgLstmBasicPrevState; i += 3) {
    if (lg_kernel_is_constant(t[i])) {
      lg_kernel_log(context, op,
                    "BASIC kernel: %s is a constant tensor, but the kernel "
                    "writes the new state back into it",
                    kBasicInputNames[i]);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_lstm_basic_prepare(TfLiteContext* context,
                                          TfLiteNode* node, const char* op) {
  const TfLiteTensor* t[5];
  int n_batch = 0, n_input = 0, depth = 0;
  TF_LITE_ENSURE_STATUS(
      lg_lstm_basic_bind(context, node, op, t, &n_batch, &n_input, &depth));
  const int cols[4] = {depth, depth, n_input + depth, 4 * depth};
  for (int i = 0; i < 4; ++i) {
    TfLiteTensor* out;
    TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, i, &out));
    const TfLiteType want = t[kLgLstmBasicInput]->type == kTfLiteUInt8
                                ? kBasicQuantizedOutputTypes[i]
                                : kTfLiteFloat32;
    if (out->type != want) {
      lg_kernel_log(context, op,
                    "BASIC kernel: output %s has type %s, expected %s",
                    kBasicOutputNames[i], TfLiteTypeGetName(out->type),
                    TfLiteTypeGetName(want));
      return kTfLiteError;
    }
    TfLiteIntArray* dims = TfLiteIntArrayCreate(2);
    if (dims == NULL) {
      lg_kernel_log(context, op, "out of memory");
      return kTfLiteError;
    }
    dims->data[0] = n_batch;
    dims->data[1] = cols[i];
    TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, out, dims));
  }
  return kTfLiteOk;
}

static float lg_lstm_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

/* The quantized BASIC kernel's fixed-point parameters: the weights' zero
 * point and the accumulator rescale 4096 * bias scale. The state output's
 * scale must be 2^-11 (4 integer bits). */
static TfLiteStatus lg_lstm_basic_quantized_params(
    TfLiteContext* context, const char* op, const TfLiteTensor* weights,
    const TfLiteTensor* bias, const TfLiteTensor* state_out,
    int32_t* weights_zp, int32_t* multiplier, int* shift) {
  lg_quant_layout wq, bq, sq;
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, op, "weights", weights, &wq));
  TF_LITE_ENSURE_STATUS(lg_quant_tensor_read(context, op, "biases", bias, &bq));
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, op, "state", state_out, &sq));
  const float log2 = logf(sq.scale0) * (1.0f / logf(2.0f));
  if (fabsf(log2 - roundf(log2)) >= 1e-3f || (int)roundf(log2) != -11) {
    lg_kernel_log(context, op,
                  "BASIC kernel: the state's scale %g must be 2^-11 (4 "
                  "integer bits, TFLite's only quantized case)",
                  (double)sq.scale0);
    return kTfLiteError;
  }
  *weights_zp = wq.zero_point0;
  const float factor = 4096 * bq.scale0;
  if (!isfinite(factor)) {
    lg_kernel_log(context, op,
                  "BASIC kernel: the biases' scale %g gives a rescale factor "
                  "out of float's range",
                  (double)bq.scale0);
    return kTfLiteError;
  }
  lg_quantize_multiplier((double)factor, multiplier, shift);
  return kTfLiteOk;
}

/* TFLite's quantized LstmCell<4> (see the section's comment). */
static TfLiteStatus lg_lstm_basic_quantized_invoke(
    TfLiteContext* context, const char* op, const TfLiteTensor* t[5],
    TfLiteTensor* out[4], int n_batch, int n_input, int depth) {
  int32_t weights_zp = 0, multiplier = 0;
  int shift = 0;
  TF_LITE_ENSURE_STATUS(lg_lstm_basic_quantized_params(
      context, op, t[kLgLstmBasicWeights], t[kLgLstmBasicBiases], out[1],
      &weights_zp, &multiplier, &shift));
  const int total = n_input + depth;
  uint8_t* concat = out[2]->data.uint8;
  int16_t* gates = out[3]->data.i16;
  uint8_t* prev_activation = t[kLgLstmBasicPrevActivation]->data.uint8;
  int16_t* prev_state = t[kLgLstmBasicPrevState]->data.i16;
  const uint8_t* weights = t[kLgLstmBasicWeights]->data.uint8;
  const int32_t* bias = t[kLgLstmBasicBiases]->data.i32;
  for (int b = 0; b < n_batch; ++b) {
    uint8_t* row = concat + (size_t)b * (size_t)total;
    memcpy(row, t[kLgLstmBasicInput]->data.uint8 + (size_t)b * (size_t)n_input,
           (size_t)n_input);
    memcpy(row + n_input, prev_activation + (size_t)b * (size_t)depth,
           (size_t)depth);
    for (int o = 0; o < 4 * depth; ++o) {
      const uint8_t* w = weights + (size_t)o * (size_t)total;
      uint32_t acc = (uint32_t)bias[o]; /* wraps as TFLite's int32 sum */
      for (int k = 0; k < total; ++k) {
        acc +=
            (uint32_t)(((int32_t)row[k] - 128) * ((int32_t)w[k] - weights_zp));
      }
      int32_t v =
          lg_multiply_by_quantized_multiplier((int32_t)acc, multiplier, shift);
      v = lg_kernel_clamp_int(v, INT16_MIN, INT16_MAX);
      gates[(size_t)b * 4 * (size_t)depth + (size_t)o] = (int16_t)v;
    }
  }
  uint8_t* activation = out[0]->data.uint8;
  int16_t* state = out[1]->data.i16;
  for (int b = 0; b < n_batch; ++b) {
    const int16_t* g = gates + (size_t)b * 4 * (size_t)depth;
    for (int c = 0; c < depth; ++c) {
      const size_t i = (size_t)b * (size_t)depth + (size_t)c;
      const int16_t input_gate = lg_fixed16_logistic(g[c], 3);
      const int16_t new_input = lg_fixed16_tanh(g[depth + c], 3);
      const int16_t forget_gate = lg_fixed16_logistic(g[2 * depth + c], 3);
      const int16_t output_gate = lg_fixed16_logistic(g[3 * depth + c], 3);
      /* Q0.15 products; i * g rescaled to Q4.11, f * state stays Q4.11. */
      const int16_t added =
          lg_fixed16_divide_by_pot(lg_fixed16_mul(input_gate, new_input), 4);
      const int16_t kept = lg_fixed16_mul(forget_gate, prev_state[i]);
      int32_t s = (int32_t)added + kept;
      s = lg_kernel_clamp_int(s, INT16_MIN, INT16_MAX);
      state[i] = (int16_t)s;
      /* tanh of the state as Q3.12 (a saturating doubling). */
      const int32_t doubled = 2 * s;
      const int16_t q3 =
          (int16_t)lg_kernel_clamp_int(doubled, INT16_MIN, INT16_MAX);
      const int16_t h = lg_fixed16_mul(output_gate, lg_fixed16_tanh(q3, 3));
      int16_t a = lg_fixed16_divide_by_pot(h, 8);
      a = lg_kernel_clamp_int(a, -128, 127);
      activation[i] = (uint8_t)(128 + a);
    }
  }
  memcpy(prev_activation, activation, (size_t)n_batch * (size_t)depth);
  memcpy(prev_state, state, (size_t)n_batch * (size_t)depth * sizeof(int16_t));
  return kTfLiteOk;
}

static TfLiteStatus lg_lstm_basic_invoke(TfLiteContext* context,
                                         TfLiteNode* node, const char* op) {
  const TfLiteTensor* t[5];
  int n_batch = 0, n_input = 0, depth = 0;
  TF_LITE_ENSURE_STATUS(
      lg_lstm_basic_bind(context, node, op, t, &n_batch, &n_input, &depth));
  TfLiteTensor* out[4];
  const int64_t cols[4] = {depth, depth, n_input + depth, 4 * (int64_t)depth};
  for (int i = 0; i < 4; ++i) {
    TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, i, &out[i]));
    if (lg_kernel_num_elements(out[i]) != (int64_t)n_batch * cols[i]) {
      lg_kernel_log(context, op, "output %s was not prepared for this input",
                    kBasicOutputNames[i]);
      return kTfLiteError;
    }
  }
  if (n_batch == 0 || depth == 0) return kTfLiteOk;
  for (int i = 0; i < 5; ++i) {
    if (t[i]->data.raw == NULL) {
      lg_kernel_log(context, op, "%s has no data", kBasicInputNames[i]);
      return kTfLiteError;
    }
  }
  for (int i = 0; i < 4; ++i) {
    if (out[i]->data.raw == NULL) {
      lg_kernel_log(context, op, "output %s has no data", kBasicOutputNames[i]);
      return kTfLiteError;
    }
  }
  if (t[kLgLstmBasicInput]->type == kTfLiteUInt8) {
    return lg_lstm_basic_quantized_invoke(context, op, t, out, n_batch, n_input,
                                          depth);
  }
  const int total = n_input + depth;
  float* concat = out[2]->data.f;
  float* gates = out[3]->data.f;
  float* prev_activation = t[kLgLstmBasicPrevActivation]->data.f;
  float* prev_state = t[kLgLstmBasicPrevState]->data.f;
  for (int b = 0; b < n_batch; ++b) {
    float* row = concat + (size_t)b * (size_t)total;
    memcpy(row, t[kLgLstmBasicInput]->data.f + (size_t)b * (size_t)n_input,
           (size_t)n_input * sizeof(float));
    memcpy(row + n_input, prev_activation + (size_t)b * (size_t)depth,
           (size_t)depth * sizeof(float));
  }
  lg_recurrent_gates(gates, 4 * depth, n_batch, t[kLgLstmBasicBiases]->data.f,
                     t[kLgLstmBasicWeights]->data.f, total, concat, total, NULL,
                     0, false, NULL, 0);
  float* activation = out[0]->data.f;
  float* state = out[1]->data.f;
  for (int b = 0; b < n_batch; ++b) {
    const float* g = gates + (size_t)b * 4 * (size_t)depth;
    for (int c = 0; c < depth; ++c) {
      const size_t i = (size_t)b * (size_t)depth + (size_t)c;
      const float input_gate = lg_lstm_sigmoid(g[c]);
      const float new_input = tanhf(g[depth + c]);
      const float forget_gate = lg_lstm_sigmoid(g[2 * depth + c]);
      const float output_gate = lg_lstm_sigmoid(g[3 * depth + c]);
      const float s = input_gate * new_input + forget_gate * prev_state[i];
      state[i] = s;
      activation[i] = output_gate * tanhf(s);
    }
  }
  const size_t bytes = (size_t)n_batch * (size_t)depth * sizeof(float);
  memcpy(prev_activation, activation, bytes);
  memcpy(prev_state, state, bytes);
  return kTfLiteOk;
}

static bool lg_lstm_is_basic(const TfLiteNode* node, const lg_lstm_data* d) {
  const TfLiteLSTMParams* p = node->builtin_data;
  return d->kind == LG_LSTM_SINGLE && p != NULL &&
         p->kernel_type == kTfLiteLSTMBasicKernel;
}

static TfLiteStatus lg_lstm_resize(TfLiteContext* context, const char* op,
                                   TfLiteTensor* output,
                                   const TfLiteTensor* input, int features) {
  if (input->type == kTfLiteInt8) {
    TF_LITE_ENSURE_STATUS(lg_lstm_int_output_check(context, op, output));
  } else if (output->type != kTfLiteFloat32) {
    lg_kernel_log(context, op, "output has type %s, expected FLOAT32",
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  TfLiteIntArray* dims = TfLiteIntArrayCopy(input->dims);
  if (dims == NULL) {
    lg_kernel_log(context, op, "out of memory");
    return kTfLiteError;
  }
  dims->data[dims->size - 1] = features;
  return context->ResizeTensor(context, output, dims);
}

/* BIDIRECTIONAL_SEQUENCE_LSTM's auxiliary inputs: input 39 aux_input,
 * 40-43 fw_aux_input_to_{input,forget,cell,output}_weights, 44-47 the bw
 * ones. As TFLite's kernel: with aux weights (cross-linking mode) both
 * directions read the input and add aux_to_gate * aux_input to each gate;
 * with aux_input alone (non-cross-linking mode) the backward direction reads
 * aux_input instead of the input. A hybrid node's aux weights are INT8 of
 * one scale, each aux_input row quantized as the input's. */
typedef struct lg_lstm_aux {
  const TfLiteTensor* input; /* aux_input, NULL when absent */
  bool cross;                /* the aux weights are given */
  int n_aux;                 /* aux_input's features */
} lg_lstm_aux;

static TfLiteStatus lg_lstm_bind_aux(TfLiteContext* context,
                                     const TfLiteNode* node, const char* op,
                                     const TfLiteTensor* input,
                                     lg_lstm_aux* aux) {
  memset(aux, 0, sizeof(*aux));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_optional_input(context, node, op, 39, &aux->input));
  const TfLiteTensor* w[8];
  int given = 0;
  for (int i = 0; i < 8; ++i) {
    TF_LITE_ENSURE_STATUS(
        lg_kernel_optional_input(context, node, op, 40 + i, &w[i]));
    /* the input gates' (40, 44) may be absent with CIFG */
    if (i % 4 != 0 && w[i] != NULL) ++given;
  }
  if (given != 0 && given != 6) {
    lg_kernel_log(context, op,
                  "the fw_ and bw_aux_input_to_{forget,cell,output}_weights "
                  "(inputs 41-43, 45-47) must be all given or all absent");
    return kTfLiteError;
  }
  aux->cross = given == 6;
  if (given == 0 && (w[0] != NULL || w[4] != NULL)) {
    lg_kernel_log(context, op,
                  "aux_input_to_input_weights are given without the other "
                  "aux weights");
    return kTfLiteError;
  }
  if (aux->input == NULL) {
    if (aux->cross) {
      lg_kernel_log(context, op,
                    "auxiliary weights are given without aux_input (input "
                    "39)");
      return kTfLiteError;
    }
    return kTfLiteOk;
  }
  if (aux->input->type != kTfLiteFloat32 || input->type != kTfLiteFloat32) {
    lg_kernel_log(context, op,
                  "aux_input has type %s with a %s input, only FLOAT32 is "
                  "supported",
                  TfLiteTypeGetName(aux->input->type),
                  TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_recurrent_check_aux_input(
      context, op, aux->input, input, aux->cross, &aux->n_aux));
  return kTfLiteOk;
}

/* The cross-linking aux weights of one direction (slots first..first+3). */
static TfLiteStatus lg_lstm_bind_aux_weights(TfLiteContext* context,
                                             const TfLiteNode* node,
                                             const char* op, const char* prefix,
                                             int first, int n_aux,
                                             lg_lstm_cell* c) {
  c->n_aux = n_aux;
  char name[96];
  for (int g = 0; g < 4; ++g) {
    const TfLiteTensor* w;
    TF_LITE_ENSURE_STATUS(
        lg_kernel_optional_input(context, node, op, first + g, &w));
    snprintf(name, sizeof(name), "%saux_input_to_%s_weights", prefix,
             kGateNames[g]);
    if (g == kGateInput && (w == NULL) != c->cifg) {
      lg_kernel_log(context, op, "%s must be given exactly when %s", name,
                    c->cifg ? "the direction is not CIFG"
                            : "the "
                              "direction has input_to_input_weights");
      return kTfLiteError;
    }
    if (w == NULL) continue;
    const int dims[2] = {c->n_cell, n_aux};
    if (c->hybrid) {
      TF_LITE_ENSURE_STATUS(lg_recurrent_check_int8(context, op, name, w, 2,
                                                    dims, &c->w_aux_scale[g]));
      c->w_auxq[g] = w->data.int8;
    } else {
      TF_LITE_ENSURE_STATUS(
          lg_recurrent_check_float(context, op, name, w, 2, dims));
      c->w_aux[g] = w->data.f;
    }
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_lstm_bind_all(
    TfLiteContext* context, const TfLiteNode* node, const lg_lstm_data* d,
    const lg_lstm_options* o, const TfLiteTensor* input,
    const lg_recurrent_shape* s, lg_lstm_cell cells[2], int* directions,
    lg_lstm_aux* aux) {
  lg_lstm_slots slots;
  memset(aux, 0, sizeof(*aux));
  if (d->kind == LG_LSTM_BIDIRECTIONAL) {
    *directions = 2;
    TF_LITE_ENSURE_STATUS(lg_lstm_bind_aux(context, node, d->name, input, aux));
    for (int dir = 0; dir < 2; ++dir) {
      const char* prefix = dir == 0 ? "fw_" : "bw_";
      lg_lstm_bidi_slots(&slots, dir);
      TF_LITE_ENSURE_STATUS(lg_lstm_bind(context, node, d->name, prefix, &slots,
                                         input, s->n_batch, s->n_input, false,
                                         &cells[dir]));
      if (aux->cross) {
        TF_LITE_ENSURE_STATUS(lg_lstm_bind_aux_weights(
            context, node, d->name, prefix, dir == 0 ? 40 : 44, aux->n_aux,
            &cells[dir]));
      }
    }
  } else {
    *directions = 1;
    lg_lstm_slots_single(&slots, node->inputs->size == 24);
    TF_LITE_ENSURE_STATUS(lg_lstm_bind(context, node, d->name, "", &slots,
                                       input, s->n_batch, s->n_input,
                                       o->diagonal, &cells[0]));
  }
  for (int dir = 0; dir < *directions; ++dir) {
    cells[dir].activation = o->activation;
    cells[dir].cell_clip = o->cell_clip;
    cells[dir].proj_clip = o->proj_clip;
    cells[dir].asymmetric = o->asymmetric;
  }
  return kTfLiteOk;
}

/* LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM with an INT8 input run TFLite's
 * integer kernel (lstm_integer.c). */
static bool lg_lstm_is_integer(const lg_lstm_data* d,
                               const TfLiteTensor* input) {
  return d->kind != LG_LSTM_BIDIRECTIONAL && input->type == kTfLiteInt8;
}

static lg_lstm_int_options lg_lstm_int_options_of(const lg_lstm_data* d,
                                                  const lg_lstm_options* o) {
  lg_lstm_int_options io;
  io.cell_clip = o->cell_clip;
  io.proj_clip = o->proj_clip;
  io.time_major = o->time_major || d->kind == LG_LSTM_SINGLE;
  return io;
}

static TfLiteStatus lg_lstm_integer_prepare(TfLiteContext* context,
                                            TfLiteNode* node, lg_lstm_data* d,
                                            const lg_lstm_options* o,
                                            const lg_recurrent_shape* s) {
  const lg_lstm_int_options io = lg_lstm_int_options_of(d, o);
  int n_cell = 0, n_output = 0;
  TF_LITE_ENSURE_STATUS(lg_lstm_int_check(
      context, node, d->name, &io, &context->tensors[node->inputs->data[0]],
      s->n_batch, s->n_input, &n_cell, &n_output));
  TF_LITE_ENSURE_STATUS(lg_recurrent_scratch(
      context, node, d->name, &d->scratch_id,
      lg_lstm_int_scratch_floats(s->n_batch, s->n_input, n_cell, n_output)));
  /* AddTensors may have moved the tensors. */
  return lg_lstm_resize(context, d->name,
                        &context->tensors[node->outputs->data[0]],
                        &context->tensors[node->inputs->data[0]], n_output);
}

static TfLiteStatus lg_lstm_integer_invoke(TfLiteContext* context,
                                           TfLiteNode* node,
                                           const lg_lstm_data* d,
                                           const lg_lstm_options* o,
                                           const lg_recurrent_shape* s) {
  const lg_lstm_int_options io = lg_lstm_int_options_of(d, o);
  return lg_lstm_int_run(context, node, d->name, &io,
                         &context->tensors[node->inputs->data[0]],
                         &context->tensors[node->outputs->data[0]], s->n_batch,
                         s->n_time, s->n_input);
}

static TfLiteStatus lg_lstm_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_lstm_data* d = node->user_data;
  const char* op = d->name;
  if (lg_lstm_is_basic(node, d))
    return lg_lstm_basic_prepare(context, node, op);
  lg_lstm_options o;
  TF_LITE_ENSURE_STATUS(lg_lstm_read_options(context, node, d, &o));
  if (d->kind == LG_LSTM_BIDIRECTIONAL) {
    TF_LITE_ENSURE_STATUS(
        lg_kernel_check_io(context, node, op, 48, 48, o.merge_outputs ? 1 : 2));
  } else {
    if (node->inputs->size != 20 && node->inputs->size != 24) {
      lg_kernel_log(context, op, "expected 20 or 24 inputs, got %d",
                    node->inputs->size);
      return kTfLiteError;
    }
    TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 20, 24, 1));
  }
  const TfLiteTensor* input;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  lg_recurrent_shape s;
  TF_LITE_ENSURE_STATUS(lg_recurrent_input_shape(
      context, d->name, d->kind == LG_LSTM_SINGLE, o.time_major, input, &s));
  if (lg_lstm_is_integer(d, input)) {
    return lg_lstm_integer_prepare(context, node, d, &o, &s);
  }
  lg_lstm_cell cells[2];
  int directions = 0;
  lg_lstm_aux aux;
  TF_LITE_ENSURE_STATUS(lg_lstm_bind_all(context, node, d, &o, input, &s, cells,
                                         &directions, &aux));
  size_t floats = lg_lstm_scratch_floats(&cells[0], s.n_batch);
  if (directions == 2) {
    const size_t bw = lg_lstm_scratch_floats(&cells[1], s.n_batch);
    if (bw > floats) floats = bw;
  }
  TF_LITE_ENSURE_STATUS(
      lg_recurrent_scratch(context, node, op, &d->scratch_id, floats));
  /* AddTensors may have moved the tensors. */
  input = &context->tensors[node->inputs->data[0]];
  if (directions == 2 && o.merge_outputs) {
    return lg_lstm_resize(context, op,
                          &context->tensors[node->outputs->data[0]], input,
                          cells[0].n_output + cells[1].n_output);
  }
  for (int dir = 0; dir < directions; ++dir) {
    TF_LITE_ENSURE_STATUS(
        lg_lstm_resize(context, op, &context->tensors[node->outputs->data[dir]],
                       input, cells[dir].n_output));
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_lstm_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_lstm_data* d = node->user_data;
  const char* op = d->name;
  if (lg_lstm_is_basic(node, d)) return lg_lstm_basic_invoke(context, node, op);
  lg_lstm_options o;
  TF_LITE_ENSURE_STATUS(lg_lstm_read_options(context, node, d, &o));
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  lg_recurrent_shape s;
  TF_LITE_ENSURE_STATUS(lg_recurrent_input_shape(
      context, d->name, d->kind == LG_LSTM_SINGLE, o.time_major, input, &s));
  if (lg_lstm_is_integer(d, input)) {
    return lg_lstm_integer_invoke(context, node, d, &o, &s);
  }
  lg_lstm_cell cells[2];
  int directions = 0;
  lg_lstm_aux aux;
  TF_LITE_ENSURE_STATUS(lg_lstm_bind_all(context, node, d, &o, input, &s, cells,
                                         &directions, &aux));
  size_t floats = lg_lstm_scratch_floats(&cells[0], s.n_batch);
  if (directions == 2) {
    const size_t bw = lg_lstm_scratch_floats(&cells[1], s.n_batch);
    if (bw > floats) floats = bw;
  }
  float* scratch = lg_nn_temporary(context, node, op, 0, floats);
  if (scratch == NULL) return kTfLiteError;
  if (s.n_batch == 0 || s.n_time == 0) return kTfLiteOk;
  const int n_in = s.n_input;
  for (int dir = 0; dir < directions; ++dir) {
    const lg_lstm_cell* c = &cells[dir];
    TfLiteTensor* output =
        &context->tensors[node->outputs->data[o.merge_outputs ? 0 : dir]];
    const int64_t want =
        (int64_t)s.n_batch * s.n_time *
        (o.merge_outputs ? cells[0].n_output + cells[1].n_output : c->n_output);
    if (output->dims->size != input->dims->size ||
        lg_kernel_num_elements(output) != want) {
      lg_kernel_log(context, op, "output %d was not prepared for this input",
                    o.merge_outputs ? 0 : dir);
      return kTfLiteError;
    }
    const int out_features = output->dims->data[output->dims->size - 1];
    float* out_base =
        output->data.f + (o.merge_outputs && dir == 1 ? cells[0].n_output : 0);
    /* Non-cross-linking mode: the backward direction reads aux_input. */
    const TfLiteTensor* source =
        dir == 1 && aux.input != NULL && !aux.cross ? aux.input : input;
    const float* aux_data = aux.cross ? aux.input->data.f : NULL;
    if (source->data.f == NULL || output->data.f == NULL ||
        c->h_state == NULL || c->c_state == NULL ||
        (aux.cross && aux_data == NULL)) {
      lg_kernel_log(context, op, "a tensor has no data");
      return kTfLiteError;
    }
    for (int k = 0; k < s.n_time; ++k) {
      const int t = dir == 1 ? s.n_time - 1 - k : k;
      const float* x;
      const float* a = NULL;
      float* out;
      ptrdiff_t x_stride, a_stride, out_stride;
      const int n_aux = aux.n_aux;
      if (o.time_major || d->kind == LG_LSTM_SINGLE) {
        x = source->data.f + (size_t)t * (size_t)s.n_batch * (size_t)n_in;
        x_stride = n_in;
        if (aux_data != NULL) {
          a = aux_data + (size_t)t * (size_t)s.n_batch * (size_t)n_aux;
        }
        a_stride = n_aux;
        out = out_base + (size_t)t * (size_t)s.n_batch * (size_t)out_features;
        out_stride = out_features;
      } else {
        x = source->data.f + (size_t)t * (size_t)n_in;
        x_stride = (ptrdiff_t)s.n_time * n_in;
        if (aux_data != NULL) a = aux_data + (size_t)t * (size_t)n_aux;
        a_stride = (ptrdiff_t)s.n_time * n_aux;
        out = out_base + (size_t)t * (size_t)out_features;
        out_stride = (ptrdiff_t)s.n_time * out_features;
      }
      lg_lstm_step(c, s.n_batch, x, x_stride, a, a_stride, out, out_stride,
                   scratch);
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_FAMILY_REGISTRATION(LSTM, lg_lstm, LG_LSTM_SINGLE)
LG_KERNEL_FAMILY_REGISTRATION(UNIDIRECTIONAL_SEQUENCE_LSTM, lg_lstm,
                              LG_LSTM_UNIDIRECTIONAL)
LG_KERNEL_FAMILY_REGISTRATION(BIDIRECTIONAL_SEQUENCE_LSTM, lg_lstm,
                              LG_LSTM_BIDIRECTIONAL)
