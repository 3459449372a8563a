/* Shared float pieces of the recurrent kernels (see recurrent.h). */
#include "runtime/kernels/recurrent.h"

#include <math.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/nn.h"

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
                                             const TfLiteTensor* weights) {
  if (input->type == kTfLiteFloat32 && weights->type == kTfLiteFloat32) {
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

TfLiteStatus lg_recurrent_check_state(TfLiteContext* context, const char* op,
                                      const char* what,
                                      const TfLiteTensor* tensor, int rows,
                                      int cols) {
  if (!tensor->is_variable) {
    lg_kernel_log(context, op,
                  "%s must be a variable tensor (is_variable), which keeps the "
                  "state between invocations",
                  what);
    return kTfLiteError;
  }
  const int dims[2] = {rows, cols};
  return lg_recurrent_check_float(context, op, what, tensor, 2, dims);
}

TfLiteStatus lg_recurrent_scratch(TfLiteContext* context, TfLiteNode* node,
                                  const char* op, int* id, size_t floats) {
  return lg_nn_set_temporaries(context, node, op, id, &floats, 1);
}
