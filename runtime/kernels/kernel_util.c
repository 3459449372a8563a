/* Helpers shared by the builtin kernels: tensor lookup with checks, shapes,
 * broadcasting and fused activation ranges. */
#include "runtime/kernels/kernel_util.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tensorflow/lite/builtin_ops.h"

/* Long enough for any message a kernel writes; longer ones are cut. */
#define LG_KERNEL_MESSAGE_SIZE 512
/* Room for a shape of LG_KERNEL_MAX_RANK 11-character dims, and more. */
#define LG_KERNEL_SHAPE_TEXT 128

void lg_kernel_log(TfLiteContext* context, const char* op, const char* format,
                   ...) {
  if (context == NULL || context->ReportError == NULL) return;
  char message[LG_KERNEL_MESSAGE_SIZE];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  context->ReportError(context, "%s: %s", op != NULL ? op : "KERNEL", message);
}

TfLiteStatus lg_kernel_check_io(TfLiteContext* context, const TfLiteNode* node,
                                const char* op, int min_inputs, int max_inputs,
                                int num_outputs) {
  const int inputs = node->inputs != NULL ? node->inputs->size : 0;
  const int outputs = node->outputs != NULL ? node->outputs->size : 0;
  if (inputs < min_inputs || inputs > max_inputs) {
    if (min_inputs == max_inputs) {
      lg_kernel_log(context, op, "expected %d inputs, got %d", min_inputs,
                    inputs);
    } else {
      lg_kernel_log(context, op, "expected %d to %d inputs, got %d", min_inputs,
                    max_inputs, inputs);
    }
    return kTfLiteError;
  }
  if (outputs != num_outputs) {
    lg_kernel_log(context, op, "expected %d outputs, got %d", num_outputs,
                  outputs);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* The tensor behind index `index`, or NULL when it is out of range. */
static TfLiteTensor* lg_kernel_tensor_at(TfLiteContext* context, int index) {
  if (index < 0 || (size_t)index >= context->tensors_size) return NULL;
  if (context->tensors != NULL) return &context->tensors[index];
  if (context->GetTensor != NULL) return context->GetTensor(context, index);
  return NULL;
}

/* Shared by the input and output lookups; `kind` is "input" or "output". */
static TfLiteStatus lg_kernel_slot(TfLiteContext* context,
                                   const TfLiteIntArray* indices,
                                   const char* op, const char* kind, int slot,
                                   bool optional, TfLiteTensor** tensor) {
  *tensor = NULL;
  const int count = indices != NULL ? indices->size : 0;
  if (slot < 0 || slot >= count) {
    if (optional && slot >= 0) return kTfLiteOk;
    lg_kernel_log(context, op, "%s %d is missing (the node has %d)", kind, slot,
                  count);
    return kTfLiteError;
  }
  const int index = indices->data[slot];
  if (index == kTfLiteOptionalTensor) {
    if (optional) return kTfLiteOk;
    lg_kernel_log(context, op, "%s %d is absent", kind, slot);
    return kTfLiteError;
  }
  *tensor = lg_kernel_tensor_at(context, index);
  if (*tensor == NULL) {
    lg_kernel_log(context, op, "%s %d refers to tensor %d, out of range", kind,
                  slot, index);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus lg_kernel_input(TfLiteContext* context, const TfLiteNode* node,
                             const char* op, int slot,
                             const TfLiteTensor** tensor) {
  TfLiteTensor* found = NULL;
  const TfLiteStatus status =
      lg_kernel_slot(context, node->inputs, op, "input", slot, false, &found);
  *tensor = found;
  return status;
}

TfLiteStatus lg_kernel_output(TfLiteContext* context, const TfLiteNode* node,
                              const char* op, int slot, TfLiteTensor** tensor) {
  return lg_kernel_slot(context, node->outputs, op, "output", slot, false,
                        tensor);
}

TfLiteStatus lg_kernel_optional_input(TfLiteContext* context,
                                      const TfLiteNode* node, const char* op,
                                      int slot, const TfLiteTensor** tensor) {
  TfLiteTensor* found = NULL;
  const TfLiteStatus status =
      lg_kernel_slot(context, node->inputs, op, "input", slot, true, &found);
  *tensor = found;
  return status;
}

int64_t lg_kernel_num_elements_dims(const TfLiteIntArray* dims) {
  if (dims == NULL) return 0;
  /* Up to this count any dim (an int) multiplies without overflow. Every
   * Invoke counts its tensors' elements, so the 64-bit division that guards
   * the product runs only past it (it was 5% of a small transformer's
   * inference). */
  const int64_t always_fits = INT64_MAX / INT_MAX;
  int64_t count = 1;
  for (int i = 0; i < dims->size; ++i) {
    if (dims->data[i] <= 0) return 0;
    /* Saturate instead of overflowing; callers reject counts above INT_MAX
     * through lg_kernel_check_shape. */
    if (count > always_fits && count > INT64_MAX / dims->data[i]) {
      return INT64_MAX;
    }
    count *= dims->data[i];
  }
  return count;
}

const char* lg_kernel_format_shape(const TfLiteIntArray* dims, char* buf,
                                   size_t size) {
  if (buf == NULL || size == 0) return "";
  if (dims == NULL) {
    snprintf(buf, size, "[?]");
    return buf;
  }
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i <= dims->size && used < size; ++i) {
    const char* lead = i == 0 ? "[" : ",";
    int n;
    if (i == dims->size) {
      n = snprintf(buf + used, size - used, "%s]", i == 0 ? "[" : "");
    } else {
      n = snprintf(buf + used, size - used, "%s%d", lead, dims->data[i]);
    }
    if (n < 0) break;
    used += (size_t)n;
  }
  return buf;
}

TfLiteStatus lg_kernel_check_shape(TfLiteContext* context, const char* op,
                                   const char* what,
                                   const TfLiteTensor* tensor) {
  if (tensor->dims == NULL) {
    lg_kernel_log(context, op, "%s has no shape", what);
    return kTfLiteError;
  }
  for (int i = 0; i < tensor->dims->size; ++i) {
    if (tensor->dims->data[i] < 0) {
      char shape[LG_KERNEL_SHAPE_TEXT];
      lg_kernel_log(context, op, "%s has a negative dimension in shape %s",
                    what,
                    lg_kernel_format_shape(tensor->dims, shape, sizeof(shape)));
      return kTfLiteError;
    }
  }
  if (lg_kernel_num_elements(tensor) > INT_MAX) {
    char shape[LG_KERNEL_SHAPE_TEXT];
    lg_kernel_log(context, op, "%s shape %s has more than %d elements", what,
                  lg_kernel_format_shape(tensor->dims, shape, sizeof(shape)),
                  INT_MAX);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus lg_kernel_broadcast_shape(TfLiteContext* context, const char* op,
                                       const TfLiteIntArray* a,
                                       const TfLiteIntArray* b, int max_rank,
                                       TfLiteIntArray** out) {
  *out = NULL;
  if (a == NULL || b == NULL) {
    lg_kernel_log(context, op, "an input has no shape");
    return kTfLiteError;
  }
  if (max_rank > LG_KERNEL_MAX_RANK) max_rank = LG_KERNEL_MAX_RANK;
  const int rank = a->size > b->size ? a->size : b->size;
  if (rank > max_rank) {
    char sa[LG_KERNEL_SHAPE_TEXT], sb[LG_KERNEL_SHAPE_TEXT];
    lg_kernel_log(context, op,
                  "input shapes %s and %s have rank %d, above the supported %d",
                  lg_kernel_format_shape(a, sa, sizeof(sa)),
                  lg_kernel_format_shape(b, sb, sizeof(sb)), rank, max_rank);
    return kTfLiteError;
  }
  int dims[LG_KERNEL_MAX_RANK];
  for (int i = 0; i < rank; ++i) {
    /* Aligned at the last dim: i counts from the end. */
    const int da = i < a->size ? a->data[a->size - 1 - i] : 1;
    const int db = i < b->size ? b->data[b->size - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) {
      char sa[LG_KERNEL_SHAPE_TEXT], sb[LG_KERNEL_SHAPE_TEXT];
      lg_kernel_log(context, op, "input shapes %s and %s are not broadcastable",
                    lg_kernel_format_shape(a, sa, sizeof(sa)),
                    lg_kernel_format_shape(b, sb, sizeof(sb)));
      return kTfLiteError;
    }
    dims[rank - 1 - i] = da == 1 ? db : da;
  }
  TfLiteIntArray* shape = TfLiteIntArrayCreate(rank);
  if (shape == NULL) {
    lg_kernel_log(context, op, "out of memory for the output shape");
    return kTfLiteError;
  }
  for (int i = 0; i < rank; ++i) shape->data[i] = dims[i];
  *out = shape;
  return kTfLiteOk;
}

TfLiteFusedActivation lg_kernel_binary_activation(int32_t builtin_code,
                                                  const void* builtin_data) {
  if (builtin_data == NULL) return kTfLiteActNone;
  switch (builtin_code) {
    case kTfLiteBuiltinAdd:
      return ((const TfLiteAddParams*)builtin_data)->activation;
    case kTfLiteBuiltinSub:
      return ((const TfLiteSubParams*)builtin_data)->activation;
    case kTfLiteBuiltinMul:
      return ((const TfLiteMulParams*)builtin_data)->activation;
    case kTfLiteBuiltinDiv:
      return ((const TfLiteDivParams*)builtin_data)->activation;
    default:
      return kTfLiteActNone;
  }
}

const char* lg_kernel_activation_name(TfLiteFusedActivation activation) {
  switch (activation) {
    case kTfLiteActNone:
      return "NONE";
    case kTfLiteActRelu:
      return "RELU";
    case kTfLiteActReluN1To1:
      return "RELU_N1_TO_1";
    case kTfLiteActRelu6:
      return "RELU6";
    case kTfLiteActTanh:
      return "TANH";
    case kTfLiteActSignBit:
      return "SIGN_BIT";
    case kTfLiteActSigmoid:
      return "SIGMOID";
  }
  return "UNKNOWN";
}

static TfLiteStatus lg_kernel_unsupported_activation(
    TfLiteContext* context, const char* op, TfLiteFusedActivation activation) {
  lg_kernel_log(context, op,
                "fused activation %s (%d) is not supported; expected NONE, "
                "RELU, RELU_N1_TO_1 or RELU6",
                lg_kernel_activation_name(activation), (int)activation);
  return kTfLiteError;
}

TfLiteStatus lg_kernel_activation_range_float(TfLiteContext* context,
                                              const char* op,
                                              TfLiteFusedActivation activation,
                                              float* min, float* max) {
  switch (activation) {
    /* TFLite's float kernels clamp to the type's finite range even without
     * an activation (its reference and builtin kernels turn inf into
     * FLT_MAX), so litegpu does the same; NaN still passes through. */
    case kTfLiteActNone:
      *min = -FLT_MAX;
      *max = FLT_MAX;
      return kTfLiteOk;
    case kTfLiteActRelu:
      *min = 0.0f;
      *max = FLT_MAX;
      return kTfLiteOk;
    case kTfLiteActReluN1To1:
      *min = -1.0f;
      *max = 1.0f;
      return kTfLiteOk;
    case kTfLiteActRelu6:
      *min = 0.0f;
      *max = 6.0f;
      return kTfLiteOk;
    default:
      break;
  }
  return lg_kernel_unsupported_activation(context, op, activation);
}

TfLiteStatus lg_kernel_activation_range_int32(TfLiteContext* context,
                                              const char* op,
                                              TfLiteFusedActivation activation,
                                              int32_t* min, int32_t* max) {
  switch (activation) {
    case kTfLiteActNone:
      *min = INT32_MIN;
      *max = INT32_MAX;
      return kTfLiteOk;
    case kTfLiteActRelu:
      *min = 0;
      *max = INT32_MAX;
      return kTfLiteOk;
    case kTfLiteActReluN1To1:
      *min = -1;
      *max = 1;
      return kTfLiteOk;
    case kTfLiteActRelu6:
      *min = 0;
      *max = 6;
      return kTfLiteOk;
    default:
      break;
  }
  return lg_kernel_unsupported_activation(context, op, activation);
}

void lg_kernel_free_data(TfLiteContext* context, void* data) {
  (void)context;
  free(data);
}
