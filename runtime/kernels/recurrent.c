/* Shared float pieces of the recurrent kernels (see recurrent.h). */
#include "runtime/kernels/recurrent.h"

#include <math.h>
#include <stdlib.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/nn.h"
#include "tensorflow/lite/c/common.h"

void lg_recurrent_gates(float* gate, int n, int n_batch, const float* bias,
                        const float* w_x, int n_x, const float* x,
                        ptrdiff_t x_stride, const float* w_h, int n_h,
                        bool h_diagonal, const float* h, ptrdiff_t h_stride) {
  for (int b = 0; b < n_batch; ++b) {
    float* g = gate + (size_t)b * (size_t)n;
    const float* xb = x != NULL ? x + b * x_stride : NULL;
    const float* hb = h != NULL ? h + b * h_stride : NULL;
    for (int u = 0; u < n; ++u) {
      float v = bias != NULL ? bias[u] : 0.0f;
      if (w_x != NULL) {
        const float* row = w_x + (size_t)u * (size_t)n_x;
        float dot = 0.0f;
        for (int k = 0; k < n_x; ++k) dot += row[k] * xb[k];
        v += dot;
      }
      if (w_h != NULL && h_diagonal) {
        v += w_h[u] * hb[u];
      } else if (w_h != NULL) {
        const float* row = w_h + (size_t)u * (size_t)n_h;
        float dot = 0.0f;
        for (int k = 0; k < n_h; ++k) dot += row[k] * hb[k];
        v += dot;
      }
      g[u] = v;
    }
  }
}

void lg_recurrent_add_product(float* gate, int n, int n_batch, const float* w,
                              int k_count, const float* x, ptrdiff_t x_stride) {
  for (int b = 0; b < n_batch; ++b) {
    float* g = gate + (size_t)b * (size_t)n;
    const float* xb = x + b * x_stride;
    for (int u = 0; u < n; ++u) {
      const float* row = w + (size_t)u * (size_t)k_count;
      float dot = 0.0f;
      for (int k = 0; k < k_count; ++k) dot += row[k] * xb[k];
      g[u] += dot;
    }
  }
}

/* gate[b * n + u] += (float)(sum_k w[u][k] * q[k] - zp * sum_k w[u][k]) *
 * factor for one batch row's quantized values q. */
static void lg_recurrent_int8_rows(float* gate, int n, const int8_t* w, int k,
                                   const int8_t* q, int32_t zp, float factor) {
  for (int u = 0; u < n; ++u) {
    const int8_t* row = w + (size_t)u * (size_t)k;
    int32_t acc = 0;
    int32_t sum = 0;
    for (int i = 0; i < k; ++i) {
      acc += (int32_t)row[i] * (int32_t)q[i];
      sum += row[i];
    }
    gate[u] += (float)(acc - zp * sum) * factor;
  }
}

void lg_recurrent_hybrid_term(float* gate, int n, int n_batch, const int8_t* w,
                              float w_scale, int k, const float* x,
                              ptrdiff_t stride, bool asymmetric, int8_t* q) {
  for (int b = 0; b < n_batch; ++b) {
    const float* row = x + b * stride;
    float scale = 1.0f;
    int32_t zp = 0;
    if (asymmetric) {
      lg_hybrid_quantize_asymmetric(row, k, q, &scale, &zp);
    } else {
      lg_hybrid_quantize_symmetric(row, k, q, &scale);
    }
    lg_recurrent_int8_rows(gate + (size_t)b * (size_t)n, n, w, k, q, zp,
                           scale * w_scale);
  }
}

void lg_recurrent_gates_hybrid(float* gate, int n, int n_batch,
                               const float* bias, const int8_t* w_x,
                               float w_x_scale, int n_x, const float* x,
                               ptrdiff_t x_stride, const int8_t* w_h,
                               float w_h_scale, int n_h, const float* h,
                               ptrdiff_t h_stride, bool asymmetric, int8_t* q) {
  for (int b = 0; b < n_batch; ++b) {
    float* g = gate + (size_t)b * (size_t)n;
    for (int u = 0; u < n; ++u) g[u] = bias != NULL ? bias[u] : 0.0f;
  }
  if (w_x != NULL) {
    lg_recurrent_hybrid_term(gate, n, n_batch, w_x, w_x_scale, n_x, x, x_stride,
                             asymmetric, q);
  }
  if (w_h != NULL) {
    lg_recurrent_hybrid_term(gate, n, n_batch, w_h, w_h_scale, n_h, h, h_stride,
                             asymmetric, q);
  }
}

void lg_recurrent_activate(const float* in, float* out, size_t count,
                           TfLiteFusedActivation activation) {
  switch (activation) {
    case kTfLiteActRelu:
      for (size_t i = 0; i < count; ++i) out[i] = in[i] < 0.0f ? 0.0f : in[i];
      break;
    case kTfLiteActReluN1To1:
      for (size_t i = 0; i < count; ++i) {
        out[i] = lg_kernel_clamp_float(in[i], -1.0f, 1.0f);
      }
      break;
    case kTfLiteActRelu6:
      for (size_t i = 0; i < count; ++i) {
        out[i] = lg_kernel_clamp_float(in[i], 0.0f, 6.0f);
      }
      break;
    case kTfLiteActTanh:
      for (size_t i = 0; i < count; ++i) out[i] = tanhf(in[i]);
      break;
    case kTfLiteActSigmoid:
      for (size_t i = 0; i < count; ++i) out[i] = 1.0f / (1.0f + expf(-in[i]));
      break;
    case kTfLiteActSignBit:
      for (size_t i = 0; i < count; ++i) out[i] = signbit(in[i]) ? 1.0f : 0.0f;
      break;
    default: /* NONE (Prepare rejected the rest) */
      if (out != in) {
        for (size_t i = 0; i < count; ++i) out[i] = in[i];
      }
      break;
  }
}

TfLiteStatus lg_recurrent_check_activation(TfLiteContext* context,
                                           const char* op,
                                           TfLiteFusedActivation activation) {
  switch (activation) {
    case kTfLiteActNone:
    case kTfLiteActRelu:
    case kTfLiteActReluN1To1:
    case kTfLiteActRelu6:
    case kTfLiteActTanh:
    case kTfLiteActSigmoid:
    case kTfLiteActSignBit:
      return kTfLiteOk;
    default:
      lg_kernel_log(context, op, "activation %s is not supported",
                    lg_kernel_activation_name(activation));
      return kTfLiteError;
  }
}

TfLiteStatus lg_recurrent_check_float(TfLiteContext* context, const char* op,
                                      const char* what,
                                      const TfLiteTensor* tensor, int rank,
                                      const int* dims) {
  if (tensor->type != kTfLiteFloat32) {
    if (tensor->type == kTfLiteInt8 || tensor->type == kTfLiteUInt8) {
      lg_kernel_log(context, op,
                    "%s is %s: hybrid and quantized kernels (%s weights) are "
                    "not supported, only FLOAT32",
                    what, TfLiteTypeGetName(tensor->type),
                    TfLiteTypeGetName(tensor->type));
    } else {
      lg_kernel_log(context, op, "%s has type %s, only FLOAT32 is supported",
                    what, TfLiteTypeGetName(tensor->type));
    }
    return kTfLiteError;
  }
  return lg_recurrent_check_dims(context, op, what, tensor, rank, dims);
}

TfLiteStatus lg_recurrent_check_dims(TfLiteContext* context, const char* op,
                                     const char* what,
                                     const TfLiteTensor* tensor, int rank,
                                     const int* dims) {
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, what, tensor));
  bool same = tensor->dims->size == rank;
  for (int i = 0; same && i < rank; ++i) {
    same = tensor->dims->data[i] == dims[i];
  }
  if (!same) {
    char got[64];
    char want[64];
    TfLiteIntArray* w = TfLiteIntArrayCreate(rank);
    if (w == NULL) {
      lg_kernel_log(context, op, "out of memory");
      return kTfLiteError;
    }
    for (int i = 0; i < rank; ++i) w->data[i] = dims[i];
    lg_kernel_format_shape(w, want, sizeof(want));
    TfLiteIntArrayFree(w);
    lg_kernel_log(context, op, "%s has shape %s, expected %s", what,
                  lg_kernel_format_shape(tensor->dims, got, sizeof(got)), want);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus lg_recurrent_check_kernel_types(TfLiteContext* context,
                                             const char* op,
                                             const TfLiteTensor* input,
                                             const TfLiteTensor* weights,
                                             bool hybrid_ok) {
  if (input->type == kTfLiteFloat32 && weights->type == kTfLiteFloat32) {
    return kTfLiteOk;
  }
  if (hybrid_ok && input->type == kTfLiteFloat32 &&
      weights->type == kTfLiteInt8) {
    return kTfLiteOk;
  }
  if (input->type == kTfLiteFloat32 &&
      (weights->type == kTfLiteInt8 || weights->type == kTfLiteUInt8)) {
    lg_kernel_log(context, op,
                  "hybrid kernel (FLOAT32 input, %s weights) is not "
                  "supported, only FLOAT32 weights",
                  TfLiteTypeGetName(weights->type));
  } else if (input->type == kTfLiteInt8 || input->type == kTfLiteInt16 ||
             input->type == kTfLiteUInt8) {
    lg_kernel_log(context, op,
                  "integer kernel (%s input, %s weights) is not supported, "
                  "only FLOAT32",
                  TfLiteTypeGetName(input->type),
                  TfLiteTypeGetName(weights->type));
  } else {
    lg_kernel_log(context, op,
                  "input type %s with %s weights is not supported, only "
                  "FLOAT32",
                  TfLiteTypeGetName(input->type),
                  TfLiteTypeGetName(weights->type));
  }
  return kTfLiteError;
}

TfLiteStatus lg_recurrent_check_int8(TfLiteContext* context, const char* op,
                                     const char* what,
                                     const TfLiteTensor* tensor, int rank,
                                     const int* dims, float* scale) {
  if (tensor->type != kTfLiteInt8) {
    lg_kernel_log(context, op,
                  "%s has type %s; a hybrid node's weights are all INT8", what,
                  TfLiteTypeGetName(tensor->type));
    return kTfLiteError;
  }
  const TfLiteAffineQuantization* q = tensor->quantization.params;
  if (tensor->quantization.type != kTfLiteAffineQuantization || q == NULL ||
      q->scale == NULL || q->scale->size != 1 ||
      (q->zero_point != NULL && q->zero_point->size > 0 &&
       q->zero_point->data[0] != 0) ||
      !(q->scale->data[0] > 0.0f) || isinf(q->scale->data[0])) {
    lg_kernel_log(context, op,
                  "%s must have one scale > 0 and zero point 0 (per-channel "
                  "weights are not supported)",
                  what);
    return kTfLiteError;
  }
  *scale = q->scale->data[0];
  TfLiteTensor as_float = *tensor;
  as_float.type = kTfLiteFloat32;
  return lg_recurrent_check_float(context, op, what, &as_float, rank, dims);
}

TfLiteStatus lg_recurrent_check_state(TfLiteContext* context, const char* op,
                                      const char* what,
                                      const TfLiteTensor* tensor, int rows,
                                      int cols) {
  TF_LITE_ENSURE_STATUS(lg_recurrent_check_variable(context, op, what, tensor));
  const int dims[2] = {rows, cols};
  return lg_recurrent_check_float(context, op, what, tensor, 2, dims);
}

TfLiteStatus lg_recurrent_check_variable(TfLiteContext* context, const char* op,
                                         const char* what,
                                         const TfLiteTensor* tensor) {
  if (!tensor->is_variable) {
    lg_kernel_log(context, op,
                  "%s must be a variable tensor (is_variable), which keeps the "
                  "state between invocations",
                  what);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus lg_recurrent_scratch(TfLiteContext* context, TfLiteNode* node,
                                  const char* op, int* id, size_t floats) {
  return lg_nn_set_temporaries(context, node, op, id, &floats, 1);
}

TfLiteStatus lg_recurrent_input_shape(TfLiteContext* context, const char* op,
                                      bool single_step, bool time_major,
                                      const TfLiteTensor* input,
                                      lg_recurrent_shape* s) {
  const int rank = single_step ? 2 : 3;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "input", input));
  if (input->dims->size != rank) {
    lg_kernel_log(context, op, "input must be %d-D, got %d-D", rank,
                  input->dims->size);
    return kTfLiteError;
  }
  const int* dims = input->dims->data;
  if (rank == 2) {
    s->n_batch = dims[0];
    s->n_time = 1;
  } else {
    s->n_time = time_major ? dims[0] : dims[1];
    s->n_batch = time_major ? dims[1] : dims[0];
  }
  s->n_input = dims[rank - 1];
  return kTfLiteOk;
}

void* lg_recurrent_init_variant(int kind, const char* name) {
  lg_recurrent_data* d = malloc(sizeof(*d));
  if (d != NULL) {
    d->kind = kind;
    d->name = name;
    d->scratch_id = -1;
  }
  return d;
}

TfLiteStatus lg_recurrent_check_aux_input(TfLiteContext* context,
                                          const char* op,
                                          const TfLiteTensor* aux_input,
                                          const TfLiteTensor* input, bool cross,
                                          int* n_aux) {
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, op, "aux_input", aux_input));
  const TfLiteIntArray* a = aux_input->dims;
  const TfLiteIntArray* x = input->dims;
  bool same = a->size == 3 && x->size == 3 && a->data[0] == x->data[0] &&
              a->data[1] == x->data[1];
  if (!cross && same) same = a->data[2] == x->data[2];
  if (!same) {
    char got[64], want[64];
    lg_kernel_log(context, op, "aux_input has shape %s, expected %s%s",
                  lg_kernel_format_shape(a, got, sizeof(got)),
                  lg_kernel_format_shape(x, want, sizeof(want)),
                  cross ? " but for the last dimension"
                        : " (without aux weights the backward direction "
                          "reads it in place of the input)");
    return kTfLiteError;
  }
  *n_aux = a->data[2];
  return kTfLiteOk;
}
