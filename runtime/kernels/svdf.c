/* SVDF, float32: a rank-`rank` singular value decomposition filter with
 * `memory_size` steps of memory (TFLite's SVDF).
 *
 * Inputs: 0 input [batch, input], 1 weights_feature [filters, input],
 * 2 weights_time [filters, memory_size], 3 bias [units] (optional), 4 the
 * activation state [batch, filters * memory_size] (a variable tensor).
 * units = filters / rank. Per Invoke and batch row b:
 *   the state of each filter moves one step back in time (the oldest value
 *   drops out), and its newest slot gets the filter's feature
 *   weights_feature[f] . input[b] (the shared gates-from-weights sum);
 *   scratch[f] = state[b, f, :] . weights_time[f, :];
 *   output[b, u] = act(bias[u] + sum over r < rank of scratch[u * rank + r]).
 * Hybrid kernels (versions 2 and 4: float input, INT8 weights_feature and
 * weights_time of one scale each) are TFLite's EvalHybridSVDF: each batch
 * row of the input quantized on the fly (asymmetrically with
 * asymmetric_quantize_inputs) for the feature products, weights_time
 * dequantized as (float)q * scale, the rest as in float.
 *
 * The integer kernel (version 3: INT8 input and output, INT8
 * weights_feature, INT16 weights_time, INT32 bias, an INT16 state of zero
 * point 0; activation RELU, which TFLite requires and then leaves to the
 * output's clamp) is TFLite's EvalIntegerSVDF:
 *   state's newest slot = clamp16(round(((x - x_zp) . weights_feature[f])
 *                                       * s1)), s1 = x scale * feature
 *                         scale / state scale;
 *   scratch[f] = state[b, f, :] . weights_time[f, :] (int32);
 *   output = clamp8(round((bias[u] + sum over the rank) * s2) + out_zp),
 *            s2 = state scale * time scale / output scale,
 * each s as TFLite's (multiplier, shift) of the float ratio.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/nn.h"
#include "runtime/kernels/quant_util.h"
#include "runtime/kernels/recurrent.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_SVDF_OP "SVDF"

typedef struct lg_svdf_data {
  int scratch_id;
} lg_svdf_data;

static void* lg_svdf_init(TfLiteContext* context, const char* buffer,
                          size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  lg_svdf_data* d = malloc(sizeof(*d));
  if (d != NULL) d->scratch_id = -1;
  return d;
}

typedef struct lg_svdf_dims {
  int batch, input, filters, memory, units, rank;
  TfLiteFusedActivation activation;
  bool hybrid, asymmetric;
  float feature_scale, time_scale; /* hybrid weights' scales */
  /* Integer kernel: the two rescales and the zero points. */
  bool integer;
  int32_t m1, m2, input_zp, output_zp;
  int shift1, shift2;
} lg_svdf_dims;

/* Scratch floats: the filters' values per batch row; hybrid adds the
 * dequantized weights_time and one quantized input row (int8). */
static size_t lg_svdf_scratch_floats(const lg_svdf_dims* s) {
  size_t n = (size_t)s->batch * (size_t)s->filters;
  if (s->hybrid) {
    n += (size_t)s->filters * (size_t)s->memory + ((size_t)s->input + 3) / 4;
  }
  return n;
}

/* A per-tensor quantized tensor of `type` (zero point 0 unless
 * `any_zero_point`): its scale and zero point out. */
static TfLiteStatus lg_svdf_int_tensor(TfLiteContext* context, const char* what,
                                       const TfLiteTensor* t, TfLiteType type,
                                       bool any_zero_point, float* scale,
                                       int32_t* zero_point) {
  const char* op = LG_SVDF_OP;
  if (t->type != type) {
    lg_kernel_log(context, op, "%s has type %s, the integer kernel needs %s",
                  what, TfLiteTypeGetName(t->type), TfLiteTypeGetName(type));
    return kTfLiteError;
  }
  lg_quant_layout q;
  TF_LITE_ENSURE_STATUS(lg_quant_tensor_read(context, op, what, t, &q));
  if (!any_zero_point && q.zero_point0 != 0) {
    lg_kernel_log(context, op,
                  "%s has zero point %d, the integer kernel needs 0", what,
                  (int)q.zero_point0);
    return kTfLiteError;
  }
  *scale = q.scale0;
  *zero_point = q.zero_point0;
  return kTfLiteOk;
}

/* The integer kernel's types, quantization and rescales (shapes are
 * checked with the float ones). */
static TfLiteStatus lg_svdf_check_integer(TfLiteContext* context,
                                          const TfLiteNode* node,
                                          lg_svdf_dims* s) {
  const char* op = LG_SVDF_OP;
  const TfLiteTensor* t[5];
  TfLiteTensor* output;
  for (int i = 0; i < 5; ++i) {
    TF_LITE_ENSURE_STATUS(
        lg_kernel_optional_input(context, node, op, i, &t[i]));
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  if (s->activation != kTfLiteActRelu) {
    lg_kernel_log(context, op,
                  "the integer kernel (INT8 input) computes activation RELU "
                  "only, as TFLite's, got %d",
                  (int)s->activation);
    return kTfLiteError;
  }
  float in_scale, wf_scale, wt_scale, state_scale, out_scale;
  int32_t zp;
  TF_LITE_ENSURE_STATUS(lg_svdf_int_tensor(context, "input", t[0], kTfLiteInt8,
                                           true, &in_scale, &s->input_zp));
  TF_LITE_ENSURE_STATUS(lg_svdf_int_tensor(context, "weights_feature", t[1],
                                           kTfLiteInt8, false, &wf_scale, &zp));
  TF_LITE_ENSURE_STATUS(lg_svdf_int_tensor(
      context, "weights_time", t[2], kTfLiteInt16, false, &wt_scale, &zp));
  if (t[3] != NULL && t[3]->type != kTfLiteInt32) {
    lg_kernel_log(context, op,
                  "bias has type %s, the integer kernel needs INT32",
                  TfLiteTypeGetName(t[3]->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_svdf_int_tensor(context, "activation state", t[4],
                                           kTfLiteInt16, false, &state_scale,
                                           &zp));
  TF_LITE_ENSURE_STATUS(lg_svdf_int_tensor(
      context, "output", output, kTfLiteInt8, true, &out_scale, &s->output_zp));
  /* TFLite computes the ratios in float. */
  const float feature_factor = in_scale * wf_scale / state_scale;
  const float time_factor = state_scale * wt_scale / out_scale;
  if (!isfinite(feature_factor) || !isfinite(time_factor)) {
    lg_kernel_log(context, op,
                  "the scales give a rescale factor out of float's range");
    return kTfLiteError;
  }
  lg_quantize_multiplier((double)feature_factor, &s->m1, &s->shift1);
  lg_quantize_multiplier((double)time_factor, &s->m2, &s->shift2);
  return kTfLiteOk;
}

static TfLiteStatus lg_svdf_check(TfLiteContext* context,
                                  const TfLiteNode* node, lg_svdf_dims* s) {
  const char* op = LG_SVDF_OP;
  const TfLiteSVDFParams* p = node->builtin_data;
  s->rank = p != NULL ? p->rank : 0;
  s->activation = p != NULL ? p->activation : kTfLiteActNone;
  s->asymmetric = p != NULL && p->asymmetric_quantize_inputs;
  const TfLiteTensor *input, *wf, *wt, *bias, *state;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 5, 5, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &wf));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 2, &wt));
  TF_LITE_ENSURE_STATUS(lg_kernel_optional_input(context, node, op, 3, &bias));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 4, &state));
  s->integer = input->type == kTfLiteInt8;
  if (s->integer) {
    TF_LITE_ENSURE_STATUS(lg_svdf_check_integer(context, node, s));
  } else {
    TF_LITE_ENSURE_STATUS(
        lg_recurrent_check_kernel_types(context, op, input, wf, true));
    TF_LITE_ENSURE_STATUS(
        lg_recurrent_check_activation(context, op, s->activation));
  }
  s->hybrid = !s->integer && wf->type == kTfLiteInt8;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "input", input));
  if (input->dims->size != 2 || wf->dims->size != 2 || wt->dims->size != 2) {
    lg_kernel_log(context, op,
                  "input, weights_feature and weights_time must be 2-D");
    return kTfLiteError;
  }
  s->batch = input->dims->data[0];
  s->input = input->dims->data[1];
  s->filters = wf->dims->data[0];
  s->memory = wt->dims->data[1];
  if (s->rank < 1 || s->filters % s->rank != 0) {
    lg_kernel_log(context, op, "rank %d must be >= 1 and divide the %d filters",
                  s->rank, s->filters);
    return kTfLiteError;
  }
  s->units = s->filters / s->rank;
  const int wfd[2] = {s->filters, s->input};
  const int wtd[2] = {s->filters, s->memory};
  if (s->integer) {
    TF_LITE_ENSURE_STATUS(
        lg_recurrent_check_dims(context, op, "weights_feature", wf, 2, wfd));
    TF_LITE_ENSURE_STATUS(
        lg_recurrent_check_dims(context, op, "weights_time", wt, 2, wtd));
  } else if (s->hybrid) {
    TF_LITE_ENSURE_STATUS(lg_recurrent_check_int8(
        context, op, "weights_feature", wf, 2, wfd, &s->feature_scale));
    TF_LITE_ENSURE_STATUS(lg_recurrent_check_int8(context, op, "weights_time",
                                                  wt, 2, wtd, &s->time_scale));
  } else {
    TF_LITE_ENSURE_STATUS(
        lg_recurrent_check_float(context, op, "weights_feature", wf, 2, wfd));
    TF_LITE_ENSURE_STATUS(
        lg_recurrent_check_float(context, op, "weights_time", wt, 2, wtd));
  }
  if (bias != NULL && s->integer) {
    TF_LITE_ENSURE_STATUS(
        lg_recurrent_check_dims(context, op, "bias", bias, 1, &s->units));
  } else if (bias != NULL) {
    TF_LITE_ENSURE_STATUS(
        lg_recurrent_check_float(context, op, "bias", bias, 1, &s->units));
  }
  if ((int64_t)s->filters * s->memory > 0x7fffffff) {
    lg_kernel_log(context, op, "the state is too large");
    return kTfLiteError;
  }
  if (s->integer) {
    TF_LITE_ENSURE_STATUS(
        lg_recurrent_check_variable(context, op, "activation state", state));
    const int sd[2] = {s->batch, s->filters * s->memory};
    return lg_recurrent_check_dims(context, op, "activation state", state, 2,
                                   sd);
  }
  return lg_recurrent_check_state(context, op, "activation state", state,
                                  s->batch, s->filters * s->memory);
}

static TfLiteStatus lg_svdf_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_svdf_data* d = node->user_data;
  lg_svdf_dims s;
  TF_LITE_ENSURE_STATUS(lg_svdf_check(context, node, &s));
  TF_LITE_ENSURE_STATUS(lg_recurrent_scratch(
      context, node, LG_SVDF_OP, &d->scratch_id, lg_svdf_scratch_floats(&s)));
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  if (output->type != (s.integer ? kTfLiteInt8 : kTfLiteFloat32)) {
    lg_kernel_log(context, LG_SVDF_OP, "output has type %s, expected %s",
                  TfLiteTypeGetName(output->type),
                  s.integer ? "INT8" : "FLOAT32");
    return kTfLiteError;
  }
  TfLiteIntArray* dims = TfLiteIntArrayCreate(2);
  if (dims == NULL) {
    lg_kernel_log(context, LG_SVDF_OP, "out of memory");
    return kTfLiteError;
  }
  dims->data[0] = s.batch;
  dims->data[1] = s.units;
  return context->ResizeTensor(context, output, dims);
}

/* TFLite's EvalIntegerSVDF (see the file's comment); `scratch` holds
 * batch * filters int32 values. */
static void lg_svdf_run_integer(const lg_svdf_dims* s, const int8_t* x,
                                const int8_t* wf, const int16_t* wt,
                                const int32_t* bias, int16_t* state,
                                int8_t* out, int32_t* scratch) {
  const int m = s->memory;
  for (int b = 0; b < s->batch; ++b) {
    for (int f = 0; f < s->filters; ++f) {
      int16_t* row = state + ((size_t)b * s->filters + (size_t)f) * (size_t)m;
      if (m > 1) memmove(row, row + 1, (size_t)(m - 1) * sizeof(int16_t));
      const int8_t* w = wf + (size_t)f * (size_t)s->input;
      const int8_t* in = x + (size_t)b * (size_t)s->input;
      uint32_t dot = 0; /* wraps as TFLite's int32 sum */
      for (int k = 0; k < s->input; ++k) {
        dot += (uint32_t)((int32_t)w[k] * ((int32_t)in[k] - s->input_zp));
      }
      int32_t v =
          lg_multiply_by_quantized_multiplier((int32_t)dot, s->m1, s->shift1);
      v = lg_kernel_clamp_int(v, INT16_MIN, INT16_MAX);
      if (m > 0) row[m - 1] = (int16_t)v;
      const int16_t* time = wt + (size_t)f * (size_t)m;
      uint32_t sum = 0;
      for (int k = 0; k < m; ++k) {
        sum += (uint32_t)((int32_t)time[k] * (int32_t)row[k]);
      }
      scratch[(size_t)b * s->filters + (size_t)f] = (int32_t)sum;
    }
  }
  for (int b = 0; b < s->batch; ++b) {
    for (int u = 0; u < s->units; ++u) {
      const int32_t* part =
          scratch + (size_t)b * s->filters + (size_t)u * s->rank;
      uint32_t acc = bias != NULL ? (uint32_t)bias[u] : 0u;
      for (int r = 0; r < s->rank; ++r) acc += (uint32_t)part[r];
      int32_t v =
          lg_multiply_by_quantized_multiplier((int32_t)acc, s->m2, s->shift2) +
          s->output_zp;
      v = lg_kernel_clamp_int(v, -128, 127);
      out[(size_t)b * s->units + u] = (int8_t)v;
    }
  }
}

static TfLiteStatus lg_svdf_invoke(TfLiteContext* context, TfLiteNode* node) {
  lg_svdf_dims s;
  TF_LITE_ENSURE_STATUS(lg_svdf_check(context, node, &s));
  float* scratch =
      lg_nn_temporary(context, node, LG_SVDF_OP, 0, lg_svdf_scratch_floats(&s));
  if (scratch == NULL) return kTfLiteError;
  if (s.integer) {
    const TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
    const TfLiteTensor* t[5];
    for (int i = 0; i < 5; ++i) {
      t[i] = node->inputs->data[i] == kTfLiteOptionalTensor
                 ? NULL
                 : &context->tensors[node->inputs->data[i]];
    }
    if (lg_kernel_num_elements(output) != (int64_t)s.batch * s.units) {
      lg_kernel_log(context, LG_SVDF_OP,
                    "the output was not prepared for this input");
      return kTfLiteError;
    }
    if (s.batch == 0) return kTfLiteOk;
    if (t[0]->data.raw == NULL || t[4]->data.raw == NULL ||
        output->data.raw == NULL) {
      lg_kernel_log(context, LG_SVDF_OP, "a tensor has no data");
      return kTfLiteError;
    }
    lg_svdf_run_integer(&s, t[0]->data.int8, t[1]->data.int8, t[2]->data.i16,
                        t[3] != NULL ? t[3]->data.i32 : NULL, t[4]->data.i16,
                        output->data.int8, (int32_t*)scratch);
    return kTfLiteOk;
  }
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  const TfLiteTensor* wf_t = &context->tensors[node->inputs->data[1]];
  const TfLiteTensor* wt_t = &context->tensors[node->inputs->data[2]];
  const float* wt = wt_t->data.f;
  const float* bias = NULL;
  if (node->inputs->data[3] != kTfLiteOptionalTensor) {
    bias = context->tensors[node->inputs->data[3]].data.f;
  }
  float* state = context->tensors[node->inputs->data[4]].data.f;
  const TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  float* out = output->data.f;
  if (lg_kernel_num_elements(output) != (int64_t)s.batch * s.units) {
    lg_kernel_log(context, LG_SVDF_OP,
                  "the output was not prepared for this input");
    return kTfLiteError;
  }
  if (s.batch == 0) return kTfLiteOk;
  if (input->data.f == NULL || state == NULL || out == NULL) {
    lg_kernel_log(context, LG_SVDF_OP, "a tensor has no data");
    return kTfLiteError;
  }
  const int m = s.memory;
  const size_t rows = (size_t)s.batch * (size_t)s.filters;
  /* Features first (into scratch), then the shift makes room for them. */
  if (s.hybrid) {
    /* TFLite dequantizes weights_time once as (float)q * scale. */
    float* dequantized = scratch + rows;
    const size_t count = (size_t)s.filters * (size_t)m;
    for (size_t i = 0; i < count; ++i) {
      dequantized[i] = (float)wt_t->data.int8[i] * s.time_scale;
    }
    wt = dequantized;
    lg_recurrent_gates_hybrid(scratch, s.filters, s.batch, NULL,
                              wf_t->data.int8, s.feature_scale, s.input,
                              input->data.f, s.input, NULL, 0.0f, 0, NULL, 0,
                              s.asymmetric, (int8_t*)(dequantized + count));
  } else {
    lg_recurrent_gates(scratch, s.filters, s.batch, NULL, wf_t->data.f, s.input,
                       input->data.f, s.input, NULL, 0, false, NULL, 0);
  }
  for (size_t i = 0; i < rows; ++i) {
    float* row = state + i * (size_t)m;
    if (m > 1) memmove(row, row + 1, (size_t)(m - 1) * sizeof(float));
    if (m > 0) row[m - 1] = scratch[i];
  }
  for (size_t i = 0; i < rows; ++i) {
    const float* row = state + i * (size_t)m;
    const float* w = wt + (i % (size_t)s.filters) * (size_t)m;
    float dot = 0.0f;
    for (int k = 0; k < m; ++k) dot += row[k] * w[k];
    scratch[i] = dot;
  }
  for (int b = 0; b < s.batch; ++b) {
    for (int u = 0; u < s.units; ++u) {
      const float* part = scratch + (size_t)b * s.filters + (size_t)u * s.rank;
      /* TFLite's order: the rank's terms summed, then added to the bias. */
      float sum = 0.0f;
      for (int r = 0; r < s.rank; ++r) sum += part[r];
      out[(size_t)b * s.units + u] = (bias != NULL ? bias[u] : 0.0f) + sum;
    }
  }
  lg_recurrent_activate(out, out, (size_t)s.batch * (size_t)s.units,
                        s.activation);
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(SVDF, lg_svdf_init, lg_kernel_free_data, lg_svdf_prepare,
                       lg_svdf_invoke)
