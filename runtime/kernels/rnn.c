/* The fully connected RNN family, float32: RNN (one step),
 * UNIDIRECTIONAL_SEQUENCE_RNN and BIDIRECTIONAL_SEQUENCE_RNN.
 *
 * One step for each batch row: h = act(bias + W x + R h_prev) (the shared
 * lg_recurrent_gates sum, then the options' activation); h is the output
 * row and the new state. Inputs (TFLite's layout):
 *   RNN, UNIDIRECTIONAL_SEQUENCE_RNN: 0 input, 1 input weights [units,
 *     input], 2 recurrent weights [units, units], 3 bias [units], 4 hidden
 *     state [batch, units] (a variable tensor)
 *   BIDIRECTIONAL_SEQUENCE_RNN: 0 input, 1-4 the forward weights, bias and
 *     state, 5-8 the backward ones, 9 aux_input, 10-11 fw_ and bw_aux
 *     weights [units, aux features] (optional). As TFLite's kernel: with
 *     the aux weights (cross-linking mode) both directions read the input
 *     and add W_aux aux_input after W x (h = act(bias + W x + W_aux aux +
 *     R h_prev)); with aux_input alone (non-cross-linking mode) the
 *     backward direction of a time-major node reads aux_input (of the
 *     input's shape) in place of the input. Two LiteRT quirks: its
 *     batch-major loop reads the input in both directions (aux_input alone
 *     is then unused; litegpu does the same), and its time-major loop steps
 *     through aux_input by the input's feature count, so that an aux_input
 *     of other features is misread (litegpu steps by aux_input's own)
 * The sequence ops' input is [time, batch, input] (time_major) or [batch,
 * time, input]; the output has the same layout with units (or, with
 * merge_outputs, forward and backward units side by side) as last dim. The
 * backward direction runs from the last time step to the first.
 *
 * Hybrid kernels (versions 2 and 3: float input and state, INT8 weights of
 * one scale each) are TFLite's hybrid RnnBatchStep through
 * lg_recurrent_gates_hybrid: each batch row of the input and of the state
 * quantized on the fly (asymmetrically with asymmetric_quantize_inputs).
 * UINT8 and per-channel weights are rejected, and so are aux weights in a
 * hybrid node (aux_input alone works: it is only the backward input).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/nn.h"
#include "runtime/kernels/recurrent.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

typedef enum lg_rnn_kind {
  LG_RNN_SINGLE,
  LG_RNN_UNIDIRECTIONAL,
  LG_RNN_BIDIRECTIONAL,
} lg_rnn_kind;

typedef lg_recurrent_data lg_rnn_data;

static void* lg_rnn_init_variant(int kind, const char* name) {
  return lg_recurrent_init_variant(kind, name);
}

typedef struct lg_rnn_options {
  TfLiteFusedActivation activation;
  bool time_major, merge_outputs, asymmetric;
} lg_rnn_options;

static void lg_rnn_read_options(const TfLiteNode* node, const lg_rnn_data* d,
                                lg_rnn_options* o) {
  memset(o, 0, sizeof(*o));
  if (d->kind == LG_RNN_SINGLE) {
    const TfLiteRNNParams* p = node->builtin_data;
    if (p != NULL) {
      o->activation = p->activation;
      o->asymmetric = p->asymmetric_quantize_inputs;
    }
  } else if (d->kind == LG_RNN_UNIDIRECTIONAL) {
    const TfLiteSequenceRNNParams* p = node->builtin_data;
    if (p != NULL) {
      o->activation = p->activation;
      o->time_major = p->time_major;
      o->asymmetric = p->asymmetric_quantize_inputs;
    }
  } else {
    const TfLiteBidirectionalSequenceRNNParams* p = node->builtin_data;
    if (p != NULL) {
      o->activation = p->activation;
      o->time_major = p->time_major;
      o->merge_outputs = p->merge_outputs;
      o->asymmetric = p->asymmetric_quantize_inputs;
    }
  }
}

/* One direction's tensors. */
typedef struct lg_rnn_cell {
  const float* w;
  const float* r;
  /* Hybrid: INT8 weights and their scales (w and r NULL). */
  const int8_t* wq;
  const int8_t* rq;
  float w_scale, r_scale;
  const float* bias;
  float* h_state;
  int n_units;
  const float* w_aux; /* cross-linking mode: [n_units, n_aux] */
} lg_rnn_cell;

/* The aux inputs of BIDIRECTIONAL_SEQUENCE_RNN (see the top). */
typedef struct lg_rnn_aux {
  const TfLiteTensor* input;
  bool cross;
  int n_aux;
} lg_rnn_aux;

static TfLiteStatus lg_rnn_bind(TfLiteContext* context, const TfLiteNode* node,
                                const char* op, const char* prefix, int first,
                                const TfLiteTensor* input, int n_batch,
                                int n_input, lg_rnn_cell* c) {
  const TfLiteTensor *w, *r, *b, *h;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, first, &w));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, first + 1, &r));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, first + 2, &b));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, first + 3, &h));
  TF_LITE_ENSURE_STATUS(
      lg_recurrent_check_kernel_types(context, op, input, w, true));
  memset(c, 0, sizeof(*c));
  const bool hybrid = w->type == kTfLiteInt8;
  if (w->dims->size != 2) {
    lg_kernel_log(context, op, "%sinput weights must be 2-D", prefix);
    return kTfLiteError;
  }
  const int units = w->dims->data[0];
  char name[64];
  const int wd[2] = {units, n_input};
  const int rd[2] = {units, units};
  if (hybrid) {
    snprintf(name, sizeof(name), "%sinput weights", prefix);
    TF_LITE_ENSURE_STATUS(
        lg_recurrent_check_int8(context, op, name, w, 2, wd, &c->w_scale));
    snprintf(name, sizeof(name), "%srecurrent weights", prefix);
    TF_LITE_ENSURE_STATUS(
        lg_recurrent_check_int8(context, op, name, r, 2, rd, &c->r_scale));
    c->wq = w->data.int8;
    c->rq = r->data.int8;
  } else {
    snprintf(name, sizeof(name), "%sinput weights", prefix);
    TF_LITE_ENSURE_STATUS(
        lg_recurrent_check_float(context, op, name, w, 2, wd));
    snprintf(name, sizeof(name), "%srecurrent weights", prefix);
    TF_LITE_ENSURE_STATUS(
        lg_recurrent_check_float(context, op, name, r, 2, rd));
    c->w = w->data.f;
    c->r = r->data.f;
  }
  snprintf(name, sizeof(name), "%sbias", prefix);
  TF_LITE_ENSURE_STATUS(
      lg_recurrent_check_float(context, op, name, b, 1, &units));
  snprintf(name, sizeof(name), "%shidden state", prefix);
  TF_LITE_ENSURE_STATUS(
      lg_recurrent_check_state(context, op, name, h, n_batch, units));
  c->bias = b->data.f;
  c->h_state = h->data.f;
  c->n_units = units;
  return kTfLiteOk;
}

static TfLiteStatus lg_rnn_bind_aux(TfLiteContext* context,
                                    const TfLiteNode* node, const char* op,
                                    const TfLiteTensor* input,
                                    lg_rnn_cell cells[2], lg_rnn_aux* aux) {
  const TfLiteTensor* w[2];
  TF_LITE_ENSURE_STATUS(
      lg_kernel_optional_input(context, node, op, 9, &aux->input));
  TF_LITE_ENSURE_STATUS(lg_kernel_optional_input(context, node, op, 10, &w[0]));
  TF_LITE_ENSURE_STATUS(lg_kernel_optional_input(context, node, op, 11, &w[1]));
  if ((w[0] == NULL) != (w[1] == NULL)) {
    lg_kernel_log(context, op,
                  "fw_aux_weights and bw_aux_weights (inputs 10, 11) must be "
                  "both given or both absent");
    return kTfLiteError;
  }
  aux->cross = w[0] != NULL;
  if (aux->input == NULL) {
    if (aux->cross) {
      lg_kernel_log(context, op,
                    "aux weights are given without aux_input (input 9)");
      return kTfLiteError;
    }
    return kTfLiteOk;
  }
  if (aux->input->type != kTfLiteFloat32) {
    lg_kernel_log(context, op,
                  "aux_input has type %s, only FLOAT32 is supported",
                  TfLiteTypeGetName(aux->input->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_recurrent_check_aux_input(
      context, op, aux->input, input, aux->cross, &aux->n_aux));
  if (!aux->cross) return kTfLiteOk;
  for (int dir = 0; dir < 2; ++dir) {
    const char* name = dir == 0 ? "fw_aux_weights" : "bw_aux_weights";
    if (cells[dir].wq != NULL) {
      lg_kernel_log(context, op,
                    "aux weights in a hybrid node (INT8 weights) are not "
                    "supported, only FLOAT32");
      return kTfLiteError;
    }
    const int dims[2] = {cells[dir].n_units, aux->n_aux};
    TF_LITE_ENSURE_STATUS(
        lg_recurrent_check_float(context, op, name, w[dir], 2, dims));
    cells[dir].w_aux = w[dir]->data.f;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_rnn_bind_all(
    TfLiteContext* context, const TfLiteNode* node, const lg_rnn_data* d,
    const TfLiteTensor* input, const lg_recurrent_shape* s,
    lg_rnn_cell cells[2], int* directions, lg_rnn_aux* aux) {
  memset(aux, 0, sizeof(*aux));
  if (d->kind != LG_RNN_BIDIRECTIONAL) {
    *directions = 1;
    return lg_rnn_bind(context, node, d->name, "", 1, input, s->n_batch,
                       s->n_input, &cells[0]);
  }
  *directions = 2;
  TF_LITE_ENSURE_STATUS(lg_rnn_bind(context, node, d->name, "fw_", 1, input,
                                    s->n_batch, s->n_input, &cells[0]));
  TF_LITE_ENSURE_STATUS(lg_rnn_bind(context, node, d->name, "bw_", 5, input,
                                    s->n_batch, s->n_input, &cells[1]));
  return lg_rnn_bind_aux(context, node, d->name, input, cells, aux);
}

/* Scratch floats: the step's output rows, then max(input, units) int8
 * values for the hybrid kernel's quantized rows. */
static size_t lg_rnn_scratch_floats(const lg_recurrent_shape* s,
                                    int max_units) {
  const int q = s->n_input > max_units ? s->n_input : max_units;
  return (size_t)s->n_batch * (size_t)max_units + ((size_t)q + 3) / 4;
}

static TfLiteStatus lg_rnn_resize(TfLiteContext* context, const char* op,
                                  TfLiteTensor* output,
                                  const TfLiteTensor* input, int features) {
  if (output->type != kTfLiteFloat32) {
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

static TfLiteStatus lg_rnn_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_rnn_data* d = node->user_data;
  const char* op = d->name;
  lg_rnn_options o;
  lg_rnn_read_options(node, d, &o);
  if (d->kind == LG_RNN_BIDIRECTIONAL) {
    TF_LITE_ENSURE_STATUS(
        lg_kernel_check_io(context, node, op, 12, 12, o.merge_outputs ? 1 : 2));
  } else {
    TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 5, 5, 1));
  }
  TF_LITE_ENSURE_STATUS(
      lg_recurrent_check_activation(context, op, o.activation));
  const TfLiteTensor* input;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  lg_recurrent_shape s;
  TF_LITE_ENSURE_STATUS(lg_recurrent_input_shape(
      context, d->name, d->kind == LG_RNN_SINGLE, o.time_major, input, &s));
  lg_rnn_cell cells[2];
  int directions = 0;
  lg_rnn_aux aux;
  TF_LITE_ENSURE_STATUS(
      lg_rnn_bind_all(context, node, d, input, &s, cells, &directions, &aux));
  int max_units = cells[0].n_units;
  if (directions == 2 && cells[1].n_units > max_units) {
    max_units = cells[1].n_units;
  }
  TF_LITE_ENSURE_STATUS(lg_recurrent_scratch(
      context, node, op, &d->scratch_id, lg_rnn_scratch_floats(&s, max_units)));
  input = &context->tensors[node->inputs->data[0]];
  if (directions == 2 && o.merge_outputs) {
    return lg_rnn_resize(context, op, &context->tensors[node->outputs->data[0]],
                         input, cells[0].n_units + cells[1].n_units);
  }
  for (int dir = 0; dir < directions; ++dir) {
    TF_LITE_ENSURE_STATUS(
        lg_rnn_resize(context, op, &context->tensors[node->outputs->data[dir]],
                      input, cells[dir].n_units));
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_rnn_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_rnn_data* d = node->user_data;
  const char* op = d->name;
  lg_rnn_options o;
  lg_rnn_read_options(node, d, &o);
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  lg_recurrent_shape s;
  TF_LITE_ENSURE_STATUS(lg_recurrent_input_shape(
      context, d->name, d->kind == LG_RNN_SINGLE, o.time_major, input, &s));
  lg_rnn_cell cells[2];
  int directions = 0;
  lg_rnn_aux aux;
  TF_LITE_ENSURE_STATUS(
      lg_rnn_bind_all(context, node, d, input, &s, cells, &directions, &aux));
  int max_units = cells[0].n_units;
  if (directions == 2 && cells[1].n_units > max_units) {
    max_units = cells[1].n_units;
  }
  float* scratch = lg_nn_temporary(context, node, op, 0,
                                   lg_rnn_scratch_floats(&s, max_units));
  if (scratch == NULL) return kTfLiteError;
  if (s.n_batch == 0 || s.n_time == 0) return kTfLiteOk;
  const int n_in = s.n_input;
  for (int dir = 0; dir < directions; ++dir) {
    const lg_rnn_cell* c = &cells[dir];
    TfLiteTensor* output =
        &context->tensors[node->outputs->data[o.merge_outputs ? 0 : dir]];
    const int64_t want =
        (int64_t)s.n_batch * s.n_time *
        (o.merge_outputs ? cells[0].n_units + cells[1].n_units : c->n_units);
    if (output->dims->size != input->dims->size ||
        lg_kernel_num_elements(output) != want) {
      lg_kernel_log(context, op, "output %d was not prepared for this input",
                    o.merge_outputs ? 0 : dir);
      return kTfLiteError;
    }
    const int features = output->dims->data[output->dims->size - 1];
    /* Non-cross-linking mode: the backward direction reads aux_input, when
     * time-major only (LiteRT's batch-major loop reads the input there). */
    const TfLiteTensor* source =
        dir == 1 && aux.input != NULL && !aux.cross && o.time_major ? aux.input
                                                                    : input;
    const float* aux_data = aux.cross ? aux.input->data.f : NULL;
    if (source->data.f == NULL || output->data.f == NULL ||
        c->h_state == NULL || (aux.cross && aux_data == NULL)) {
      lg_kernel_log(context, op, "a tensor has no data");
      return kTfLiteError;
    }
    float* out_base =
        output->data.f + (o.merge_outputs && dir == 1 ? cells[0].n_units : 0);
    const size_t row = (size_t)c->n_units * sizeof(float);
    for (int k = 0; k < s.n_time; ++k) {
      const int t = dir == 1 ? s.n_time - 1 - k : k;
      const bool tm = o.time_major || d->kind == LG_RNN_SINGLE;
      const float* x =
          source->data.f + (tm ? (size_t)t * (size_t)s.n_batch * (size_t)n_in
                               : (size_t)t * (size_t)n_in);
      const ptrdiff_t x_stride = tm ? n_in : (ptrdiff_t)s.n_time * n_in;
      float* out = out_base + (tm ? (size_t)t * (size_t)s.n_batch * features
                                  : (size_t)t * (size_t)features);
      const ptrdiff_t out_stride =
          tm ? features : (ptrdiff_t)s.n_time * features;
      if (c->wq != NULL) {
        int8_t* q = (int8_t*)(scratch + (size_t)s.n_batch * (size_t)max_units);
        lg_recurrent_gates_hybrid(scratch, c->n_units, s.n_batch, c->bias,
                                  c->wq, c->w_scale, n_in, x, x_stride, c->rq,
                                  c->r_scale, c->n_units, c->h_state,
                                  c->n_units, o.asymmetric, q);
      } else if (c->w_aux != NULL) {
        /* TFLite's order: bias, input, aux input, then the recurrent term. */
        const int n_aux = aux.n_aux;
        const float* a =
            aux_data + (tm ? (size_t)t * (size_t)s.n_batch * (size_t)n_aux
                           : (size_t)t * (size_t)n_aux);
        const ptrdiff_t a_stride = tm ? n_aux : (ptrdiff_t)s.n_time * n_aux;
        lg_recurrent_gates(scratch, c->n_units, s.n_batch, c->bias, c->w, n_in,
                           x, x_stride, NULL, 0, false, NULL, 0);
        lg_recurrent_add_product(scratch, c->n_units, s.n_batch, c->w_aux,
                                 n_aux, a, a_stride);
        lg_recurrent_add_product(scratch, c->n_units, s.n_batch, c->r,
                                 c->n_units, c->h_state, c->n_units);
      } else {
        lg_recurrent_gates(scratch, c->n_units, s.n_batch, c->bias, c->w, n_in,
                           x, x_stride, c->r, c->n_units, false, c->h_state,
                           c->n_units);
      }
      const size_t count = (size_t)s.n_batch * (size_t)c->n_units;
      lg_recurrent_activate(scratch, scratch, count, o.activation);
      memcpy(c->h_state, scratch, count * sizeof(float));
      for (int b = 0; b < s.n_batch; ++b) {
        memcpy(out + b * out_stride, scratch + (size_t)b * c->n_units, row);
      }
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_FAMILY_REGISTRATION(RNN, lg_rnn, LG_RNN_SINGLE)
LG_KERNEL_FAMILY_REGISTRATION(UNIDIRECTIONAL_SEQUENCE_RNN, lg_rnn,
                              LG_RNN_UNIDIRECTIONAL)
LG_KERNEL_FAMILY_REGISTRATION(BIDIRECTIONAL_SEQUENCE_RNN, lg_rnn,
                              LG_RNN_BIDIRECTIONAL)
