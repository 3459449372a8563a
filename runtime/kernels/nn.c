/* Shared helpers of the nn kernel family: window geometry, checks,
 * temporaries and kernel-owned buffers. */
#include "runtime/kernels/nn.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/kernels/kernel_util.h"

/* Kernel-owned buffers start on a cache line. */
#define LG_NN_ALIGN 64

int lg_nn_out_size(TfLitePadding padding, int in, int filter, int stride,
                   int dilation) {
  if (stride < 1 || dilation < 1) return 0;
  const int64_t effective = (int64_t)(filter - 1) * dilation + 1;
  switch (padding) {
    case kTfLitePaddingSame:
      return (int)(((int64_t)in + stride - 1) / stride);
    case kTfLitePaddingValid:
      return (int)(((int64_t)in + stride - effective) / stride);
    default:
      return 0;
  }
}

int lg_nn_pad_before(int in, int filter, int stride, int dilation, int out) {
  const int64_t effective = (int64_t)(filter - 1) * dilation + 1;
  const int64_t total = ((int64_t)out - 1) * stride + effective - in;
  return total > 0 ? (int)(total / 2) : 0;
}

void lg_conv_interior_columns(const lg_conv_geometry* g, int* x_lo, int* x_hi) {
  const int span = (g->filter_w - 1) * g->dilation_w;
  int lo = (g->pad_left + g->stride_w - 1) / g->stride_w;
  const int last = g->in_w - 1 - span + g->pad_left;
  int hi = last < 0 ? 0 : last / g->stride_w + 1;
  if (lo > g->out_w) lo = g->out_w;
  if (hi > g->out_w) hi = g->out_w;
  *x_lo = lo;
  *x_hi = hi > lo ? hi : lo;
}

const char* lg_nn_padding_name(TfLitePadding padding) {
  switch (padding) {
    case kTfLitePaddingSame:
      return "SAME";
    case kTfLitePaddingValid:
      return "VALID";
    default:
      return "UNKNOWN";
  }
}

TfLiteStatus lg_nn_check_window(TfLiteContext* context, const char* op,
                                TfLitePadding padding, int stride_w,
                                int stride_h, int dilation_w, int dilation_h) {
  if (padding != kTfLitePaddingSame && padding != kTfLitePaddingValid) {
    lg_kernel_log(context, op,
                  "padding %s (%d) is not supported (expected SAME or VALID)",
                  lg_nn_padding_name(padding), (int)padding);
    return kTfLiteError;
  }
  const struct {
    const char* name;
    int value;
  } factors[] = {{"stride_w", stride_w},
                 {"stride_h", stride_h},
                 {"dilation_w_factor", dilation_w},
                 {"dilation_h_factor", dilation_h}};
  for (size_t i = 0; i < sizeof(factors) / sizeof(factors[0]); ++i) {
    if (factors[i].value < 1) {
      lg_kernel_log(context, op, "%s must be at least 1, got %d",
                    factors[i].name, factors[i].value);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

TfLiteStatus lg_nn_check_rank(TfLiteContext* context, const char* op,
                              const char* what, const TfLiteTensor* tensor,
                              int rank) {
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, what, tensor));
  if (tensor->dims->size != rank) {
    char shape[128];
    lg_kernel_log(context, op, "%s must be %d-D, got %s", what, rank,
                  lg_kernel_format_shape(tensor->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus lg_nn_check_float(TfLiteContext* context, const char* op,
                               const char* what, const TfLiteTensor* tensor) {
  if (tensor->type != kTfLiteFloat32) {
    lg_kernel_log(context, op, "%s type %s is not supported (expected FLOAT32)",
                  what, TfLiteTypeGetName(tensor->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

bool lg_nn_is_constant(const TfLiteTensor* tensor) {
  return tensor->data.raw != NULL &&
         (tensor->allocation_type == kTfLiteMmapRo ||
          tensor->allocation_type == kTfLitePersistentRo);
}

/* TFLite's INT4 weights are symmetric: every zero point must be 0. */
static TfLiteStatus lg_nn_check_int4_zero_points(TfLiteContext* context,
                                                 const char* op,
                                                 const TfLiteTensor* weights) {
  if (weights->quantization.type != kTfLiteAffineQuantization ||
      weights->quantization.params == NULL) {
    return kTfLiteOk; /* the kernel's quantization checks report it */
  }
  const TfLiteAffineQuantization* q = weights->quantization.params;
  for (int i = 0; q->zero_point != NULL && i < q->zero_point->size; ++i) {
    if (q->zero_point->data[i] != 0) {
      lg_kernel_log(context, op,
                    "INT4 weights have zero point %d at %d: INT4 weights "
                    "are symmetric (zero point 0)",
                    q->zero_point->data[i], i);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

TfLiteStatus lg_nn_prepare_int4(TfLiteContext* context, const char* op,
                                bool accepted, const TfLiteTensor** weights_io,
                                int8_t** unpacked, TfLiteTensor* view) {
  free(*unpacked);
  *unpacked = NULL;
  const TfLiteTensor* weights = *weights_io;
  if (weights->type != kTfLiteInt4 || !accepted) return kTfLiteOk;
  if (!lg_nn_is_constant(weights)) {
    lg_kernel_log(context, op,
                  "INT4 weights must be a model constant (they are unpacked "
                  "once, in Prepare)");
    return kTfLiteError;
  }
  const int64_t n = lg_kernel_num_elements(weights);
  if (n < 0 || weights->bytes != (size_t)((n + 1) / 2)) {
    lg_kernel_log(context, op,
                  "INT4 weights of %lld values hold %zu bytes (expected "
                  "%lld: two values a byte)",
                  (long long)n, weights->bytes, (long long)((n + 1) / 2));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_nn_check_int4_zero_points(context, op, weights));
  *unpacked = malloc(n > 0 ? (size_t)n : 1);
  if (*unpacked == NULL) {
    lg_kernel_log(context, op, "out of memory for %lld unpacked INT4 weights",
                  (long long)n);
    return kTfLiteError;
  }
  const uint8_t* packed = weights->data.uint8;
  for (int64_t i = 0; i < n; ++i) {
    const unsigned nibble = (packed[i / 2] >> (4 * (i % 2))) & 0xFu;
    (*unpacked)[i] = (int8_t)((int)(nibble ^ 0x8u) - 8);
  }
  *view = *weights;
  view->type = kTfLiteInt8;
  view->data.int8 = *unpacked;
  view->bytes = (size_t)n;
  *weights_io = view;
  return kTfLiteOk;
}

static TfLiteTensor* lg_nn_tensor(TfLiteContext* context, int index) {
  if (index < 0 || (size_t)index >= context->tensors_size) return NULL;
  if (context->tensors != NULL) return &context->tensors[index];
  return context->GetTensor != NULL ? context->GetTensor(context, index) : NULL;
}

/* Gives temporary tensor `index` the shape [floats] as float32 arena
 * memory. */
static TfLiteStatus lg_nn_shape_temporary(TfLiteContext* context,
                                          const char* op, int index,
                                          size_t floats) {
  TfLiteTensor* t = lg_nn_tensor(context, index);
  if (t == NULL) {
    lg_kernel_log(context, op, "temporary tensor %d is out of range", index);
    return kTfLiteError;
  }
  if (floats > (size_t)INT_MAX) {
    lg_kernel_log(context, op, "needs %zu floats of scratch, above %d", floats,
                  INT_MAX);
    return kTfLiteError;
  }
  t->type = kTfLiteFloat32;
  t->allocation_type = kTfLiteArenaRw;
  if (t->dims != NULL && t->dims->size == 1 &&
      t->dims->data[0] == (int)floats) {
    return kTfLiteOk;
  }
  TfLiteIntArray* shape = TfLiteIntArrayCreate(1);
  if (shape == NULL) {
    lg_kernel_log(context, op, "out of memory for a temporary's shape");
    return kTfLiteError;
  }
  shape->data[0] = (int)floats;
  return context->ResizeTensor(context, t, shape);
}

TfLiteStatus lg_nn_set_temporaries(TfLiteContext* context, TfLiteNode* node,
                                   const char* op, int* ids,
                                   const size_t* floats, int count) {
  for (int i = 0; i < count; ++i) {
    if (ids[i] >= 0) continue;
    if (context->AddTensors == NULL ||
        context->AddTensors(context, 1, &ids[i]) != kTfLiteOk) {
      ids[i] = -1;
      lg_kernel_log(context, op, "cannot add a temporary tensor");
      return kTfLiteError;
    }
  }
  if (node->temporaries == NULL || node->temporaries->size != count) {
    TfLiteIntArray* list = TfLiteIntArrayCreate(count);
    if (list == NULL) {
      lg_kernel_log(context, op, "out of memory for the temporaries list");
      return kTfLiteError;
    }
    TfLiteIntArrayFree(node->temporaries);
    node->temporaries = list;
  }
  for (int i = 0; i < count; ++i) {
    node->temporaries->data[i] = ids[i];
    TF_LITE_ENSURE_STATUS(
        lg_nn_shape_temporary(context, op, ids[i], floats[i]));
  }
  return kTfLiteOk;
}

float* lg_nn_temporary(TfLiteContext* context, const TfLiteNode* node,
                       const char* op, int slot, size_t floats) {
  const TfLiteIntArray* list = node->temporaries;
  TfLiteTensor* t = NULL;
  if (list != NULL && slot >= 0 && slot < list->size) {
    t = lg_nn_tensor(context, list->data[slot]);
  }
  if (t == NULL || (floats > 0 && t->data.f == NULL) ||
      t->bytes < floats * sizeof(float)) {
    lg_kernel_log(context, op, "temporary %d is missing or too small", slot);
    return NULL;
  }
  return t->data.f;
}

TfLiteStatus lg_nn_buffer_reserve(TfLiteContext* context, const char* op,
                                  lg_nn_buffer* buffer, size_t floats) {
  if (buffer->data != NULL && buffer->floats >= floats) return kTfLiteOk;
  lg_nn_buffer_free(buffer);
  if (floats > (SIZE_MAX - LG_NN_ALIGN) / sizeof(float)) {
    lg_kernel_log(context, op, "a buffer of %zu floats is too large", floats);
    return kTfLiteError;
  }
  /* aligned_alloc wants a multiple of the alignment. */
  const size_t bytes =
      (floats * sizeof(float) + LG_NN_ALIGN - 1) / LG_NN_ALIGN * LG_NN_ALIGN;
  buffer->data = aligned_alloc(LG_NN_ALIGN, bytes > 0 ? bytes : LG_NN_ALIGN);
  if (buffer->data == NULL) {
    lg_kernel_log(context, op, "out of memory for %zu bytes of packed weights",
                  bytes);
    return kTfLiteError;
  }
  buffer->floats = floats;
  return kTfLiteOk;
}

void lg_nn_buffer_free(lg_nn_buffer* buffer) {
  if (buffer == NULL) return;
  free(buffer->data);
  buffer->data = NULL;
  buffer->floats = 0;
}

TfLiteStatus lg_nn_invoke_io(TfLiteContext* context, const TfLiteNode* node,
                             const char* op, bool prepared, bool filter_copied,
                             bool has_bias, int64_t input_elements,
                             int64_t output_elements, lg_nn_io* io,
                             bool* empty) {
  *empty = false;
  if (!prepared) {
    lg_kernel_log(context, op, "invoked before a successful prepare");
    return kTfLiteError;
  }
  io->bias = NULL;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &io->input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &io->filter));
  if (has_bias) {
    TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 2, &io->bias));
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &io->output));
  if (lg_kernel_num_elements(io->input) != input_elements ||
      lg_kernel_num_elements(io->output) != output_elements) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (output_elements == 0) {
    *empty = true;
    return kTfLiteOk;
  }
  if (io->input->data.f == NULL ||
      (io->filter->data.f == NULL && !filter_copied) ||
      io->output->data.f == NULL ||
      (io->bias != NULL && io->bias->data.f == NULL)) {
    lg_kernel_log(context, op, "a tensor has no data");
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus lg_nn_check_conv3d(TfLiteContext* context, const char* op,
                                const TfLiteConv3DParams* params,
                                const TfLiteTensor* bias, int channels,
                                float* act_min, float* act_max) {
  if (bias != NULL) {
    TF_LITE_ENSURE_STATUS(lg_nn_check_float(context, op, "bias", bias));
    TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "bias", bias));
    if (lg_kernel_num_elements(bias) != channels) {
      lg_kernel_log(context, op, "bias has %lld elements, expected %d",
                    (long long)lg_kernel_num_elements(bias), channels);
      return kTfLiteError;
    }
  }
  TF_LITE_ENSURE_STATUS(lg_nn_check_window(
      context, op, params->padding, params->stride_width, params->stride_height,
      params->dilation_width_factor, params->dilation_height_factor));
  if (params->stride_depth < 1 || params->dilation_depth_factor < 1) {
    lg_kernel_log(context, op, "%s must be at least 1, got %d",
                  params->stride_depth < 1 ? "stride_d" : "dilation_d_factor",
                  params->stride_depth < 1 ? params->stride_depth
                                           : params->dilation_depth_factor);
    return kTfLiteError;
  }
  return lg_kernel_activation_range_float(context, op, params->activation,
                                          act_min, act_max);
}
