/* TRANSPOSE_CONV, float32: the gradient of CONV_2D with respect to its
 * input. Inputs: 0 output_shape (int32 [4]: the output's NHWC shape), 1
 * weights OHWI [out_c, filter_h, filter_w, in_c], 2 input NHWC, 3 optional
 * bias [out_c] (version 3). Every input pixel (y, x) adds input[n, y, x, :]
 * . weights[o, kh, kw, :] to output[n, y * stride_h - pad_top + kh,
 * x * stride_w - pad_left + kw, o] where that lies inside the output; then
 * the bias and the fused activation (version 4) apply. The padding is
 * TFLite's: that of a CONV_2D from the output's size with the same filter,
 * strides and padding mode (lg_nn_out_size / lg_nn_pad_before applied to
 * the output dims), and as in TFLite that CONV_2D must map the output's
 * size back to the input's. Quantized TRANSPOSE_CONV (INT8, version 2, and
 * 16x8 with an INT64 bias, version 5; per-channel weights along dim 0)
 * runs conv_quant.c's kernel, bit for bit with TFLite's reference; hybrid
 * (float input, INT8 weights) runs hybrid.c's, bit for bit too.
 *
 * Fast path: one GEMM computes the column buffer col[p, t * out_c + o] =
 * sum_c input[p, c] * weights[o, t, c] for every input pixel p and filter
 * tap t = kh * filter_w + kw (B is read straight from the OHWI weights by
 * a packing callback; constant weights are packed once in Prepare); then
 * each output pixel gathers the taps that reach it (a gather rather than a
 * scatter, so output rows split over threads without conflicts). The
 * column buffer and the GEMM scratch are temporary tensors sized in
 * Prepare.
 *
 * A constant output_shape fixes the output in Prepare. Otherwise the output
 * is dynamic and Invoke resizes it (the one case where this kernel's
 * Invoke lets the interpreter allocate, as in TFLite); the temporaries do
 * not depend on the output size.
 */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/mediapipe_ops.h"
#include "runtime/kernels/nn.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_TC_OP "TRANSPOSE_CONV"
/* Output values (each a sum over a few taps) below which the gather runs
 * on one thread; see LG_GEMM_MIN_PARALLEL_MACS on the pool's cost. */
#define LG_TC_MIN_PARALLEL (1 << 19)

enum {
  kOutputShapeTensor = 0,
  kWeightsTensor = 1,
  kInputTensor = 2,
  kBiasTensor = 3,
  kOutputTensor = 0,
};

enum {
  kColumnsTemporary = 0,
  kScratchTemporary = 1,
  kNumTemporaries = 2,
};

typedef struct lg_tc_data {
  bool prepared;
  /* The weights' input index: kWeightsTensor, or 1 for MediaPipe's
   * Convolution2DTransposeBias (input, weights, bias). */
  int weights_input;
  lg_conv_geometry geo; /* out_h / out_w / pads set once the shape is known */
  TfLitePadding padding;
  bool has_bias;
  bool dynamic_output; /* output_shape is not constant */
  lg_gemm_isa isa;
  bool prepacked;
  lg_nn_buffer weights;
  int temporaries[kNumTemporaries];
  size_t sizes[kNumTemporaries];
  int64_t input_elements;
  bool quantized; /* INT8 or INT16: conv_quant.c, no GEMM plan */
  lg_conv_quant q;
  bool hybrid; /* float input, INT8 weights: hybrid.c, no GEMM plan */
  lg_hybrid hybrid_data;
} lg_tc_data;

/* What the B-packing callback reads. */
typedef struct lg_tc_weights {
  const float* data;
  int taps, out_c, in_c;
} lg_tc_weights;

/* One gather's work, shared read-only by its tasks. */
typedef struct lg_tc_job {
  const lg_conv_geometry* geo;
  const float* columns;
  const float* bias;
  float* output;
  int rows; /* batch * out_h */
  int num_tasks;
} lg_tc_job;

static void* lg_tc_init(TfLiteContext* context, const char* buffer,
                        size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  lg_tc_data* data = calloc(1, sizeof(lg_tc_data));
  if (data != NULL) {
    data->weights_input = kWeightsTensor;
    for (int i = 0; i < kNumTemporaries; ++i) data->temporaries[i] = -1;
  }
  return data;
}

static void lg_tc_free(TfLiteContext* context, void* buffer) {
  (void)context;
  lg_tc_data* data = buffer;
  if (data != NULL) {
    lg_nn_buffer_free(&data->weights);
    lg_conv_quant_free(&data->q);
    lg_hybrid_free(&data->hybrid_data);
  }
  free(data);
}

/* ---- Reference ---------------------------------------------------------- */

void lg_transpose_conv_reference(const lg_conv_geometry* g, const float* input,
                                 const float* weights, const float* bias,
                                 float* output) {
  const size_t out_count = (size_t)g->batch * g->out_h * g->out_w * g->out_c;
  for (size_t i = 0; i < out_count; ++i) output[i] = 0.0f;
  for (int n = 0; n < g->batch; ++n) {
    for (int y = 0; y < g->in_h; ++y) {
      for (int x = 0; x < g->in_w; ++x) {
        const float* in =
            input + (((size_t)n * g->in_h + y) * g->in_w + x) * g->in_c;
        for (int kh = 0; kh < g->filter_h; ++kh) {
          const int oy = y * g->stride_h - g->pad_top + kh;
          if (oy < 0 || oy >= g->out_h) continue;
          for (int kw = 0; kw < g->filter_w; ++kw) {
            const int ox = x * g->stride_w - g->pad_left + kw;
            if (ox < 0 || ox >= g->out_w) continue;
            float* out =
                output +
                (((size_t)n * g->out_h + oy) * g->out_w + ox) * g->out_c;
            for (int o = 0; o < g->out_c; ++o) {
              const float* w =
                  weights +
                  (((size_t)o * g->filter_h + kh) * g->filter_w + kw) * g->in_c;
              for (int c = 0; c < g->in_c; ++c) out[o] += in[c] * w[c];
            }
          }
        }
      }
    }
  }
  for (size_t i = 0; i < out_count; ++i) {
    const float v = output[i] + (bias != NULL ? bias[i % g->out_c] : 0.0f);
    output[i] = lg_kernel_clamp_float(v, g->act_min, g->act_max);
  }
}

/* ---- Prepare ------------------------------------------------------------ */

static TfLiteStatus lg_tc_check_types(TfLiteContext* context,
                                      const TfLiteTensor* output_shape,
                                      const TfLiteTensor* weights,
                                      const TfLiteTensor* input,
                                      const TfLiteTensor* bias,
                                      const TfLiteTensor* output) {
  if (output_shape->type != kTfLiteInt32) {
    lg_kernel_log(context, LG_TC_OP,
                  "output_shape type %s is not supported (expected INT32)",
                  TfLiteTypeGetName(output_shape->type));
    return kTfLiteError;
  }
  if (input->type == kTfLiteInt8 || input->type == kTfLiteInt16) {
    return lg_conv_quant_check_types(context, LG_TC_OP, input, weights, bias,
                                     output);
  }
  TF_LITE_ENSURE_STATUS(lg_nn_check_float(context, LG_TC_OP, "input", input));
  if (weights->type != kTfLiteInt8) { /* INT8: hybrid */
    TF_LITE_ENSURE_STATUS(
        lg_nn_check_float(context, LG_TC_OP, "weights", weights));
  }
  if (bias != NULL) {
    TF_LITE_ENSURE_STATUS(lg_nn_check_float(context, LG_TC_OP, "bias", bias));
  }
  return lg_nn_check_float(context, LG_TC_OP, "output", output);
}

/* Shapes of input, weights and bias; fills everything in the geometry but
 * the output's spatial size and the padding. */
static TfLiteStatus lg_tc_check_shapes(TfLiteContext* context,
                                       const TfLiteTensor* output_shape,
                                       const TfLiteTensor* weights,
                                       const TfLiteTensor* input,
                                       const TfLiteTensor* bias,
                                       lg_conv_geometry* g) {
  char shape[128];
  TF_LITE_ENSURE_STATUS(
      lg_nn_check_rank(context, LG_TC_OP, "output_shape", output_shape, 1));
  if (output_shape->dims->data[0] != 4) {
    lg_kernel_log(
        context, LG_TC_OP, "output_shape must hold 4 values, got %s",
        lg_kernel_format_shape(output_shape->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      lg_nn_check_rank(context, LG_TC_OP, "weights", weights, 4));
  TF_LITE_ENSURE_STATUS(lg_nn_check_rank(context, LG_TC_OP, "input", input, 4));
  g->batch = input->dims->data[0];
  g->in_h = input->dims->data[1];
  g->in_w = input->dims->data[2];
  g->in_c = input->dims->data[3];
  g->out_c = weights->dims->data[0];
  g->filter_h = weights->dims->data[1];
  g->filter_w = weights->dims->data[2];
  g->filter_c = weights->dims->data[3];
  if (g->filter_h == 0 || g->filter_w == 0) {
    lg_kernel_log(context, LG_TC_OP, "weights shape %s has an empty window",
                  lg_kernel_format_shape(weights->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (g->filter_c != g->in_c) {
    lg_kernel_log(context, LG_TC_OP,
                  "input channels %d differ from the weights' input channels "
                  "%d",
                  g->in_c, g->filter_c);
    return kTfLiteError;
  }
  if (bias != NULL) {
    TF_LITE_ENSURE_STATUS(
        lg_kernel_check_shape(context, LG_TC_OP, "bias", bias));
    if (lg_kernel_num_elements(bias) != g->out_c) {
      lg_kernel_log(context, LG_TC_OP,
                    "bias shape %s does not hold %d elements (the weights' "
                    "output channels)",
                    lg_kernel_format_shape(bias->dims, shape, sizeof(shape)),
                    g->out_c);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

/* Takes the output's shape from output_shape's values and computes the
 * padding from it. */
static TfLiteStatus lg_tc_output_geometry(TfLiteContext* context,
                                          const int32_t* values,
                                          TfLitePadding padding,
                                          lg_conv_geometry* g) {
  if (values[0] != g->batch || values[3] != g->out_c) {
    lg_kernel_log(context, LG_TC_OP,
                  "output_shape [%d,%d,%d,%d] must have the input's batch %d "
                  "and the weights' output channels %d",
                  (int)values[0], (int)values[1], (int)values[2],
                  (int)values[3], g->batch, g->out_c);
    return kTfLiteError;
  }
  if (values[1] < 0 || values[2] < 0 ||
      (int64_t)values[0] * values[1] * values[2] * values[3] > INT_MAX) {
    lg_kernel_log(context, LG_TC_OP,
                  "output_shape [%d,%d,%d,%d] is negative or too large",
                  (int)values[0], (int)values[1], (int)values[2],
                  (int)values[3]);
    return kTfLiteError;
  }
  g->out_h = values[1];
  g->out_w = values[2];
  const int conv_h =
      lg_nn_out_size(padding, g->out_h, g->filter_h, g->stride_h, 1);
  const int conv_w =
      lg_nn_out_size(padding, g->out_w, g->filter_w, g->stride_w, 1);
  /* As TFLite: the input must be what the matching CONV_2D makes of the
   * output. */
  if (conv_h != g->in_h || conv_w != g->in_w) {
    lg_kernel_log(context, LG_TC_OP,
                  "input %dx%d does not match output_shape %dx%d: a %s "
                  "CONV_2D with stride %dx%d maps that to %dx%d",
                  g->in_h, g->in_w, g->out_h, g->out_w,
                  lg_nn_padding_name(padding), g->stride_h, g->stride_w, conv_h,
                  conv_w);
    return kTfLiteError;
  }
  g->pad_top = lg_nn_pad_before(g->out_h, g->filter_h, g->stride_h, 1, conv_h);
  g->pad_left = lg_nn_pad_before(g->out_w, g->filter_w, g->stride_w, 1, conv_w);
  return kTfLiteOk;
}

static TfLiteStatus lg_tc_resize_output(TfLiteContext* context,
                                        TfLiteTensor* output,
                                        const lg_conv_geometry* g) {
  TfLiteIntArray* shape = TfLiteIntArrayCreate(4);
  if (shape == NULL) {
    lg_kernel_log(context, LG_TC_OP, "out of memory for the output shape");
    return kTfLiteError;
  }
  shape->data[0] = g->batch;
  shape->data[1] = g->out_h;
  shape->data[2] = g->out_w;
  shape->data[3] = g->out_c;
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  return context->ResizeTensor(context, output, shape);
}

/* The column GEMM without data pointers: m input pixels, n taps x out_c,
 * k in_c, C the column buffer. */
static lg_gemm lg_tc_gemm(const lg_tc_data* data) {
  const lg_conv_geometry* g = &data->geo;
  lg_gemm gemm = {
      .isa = data->isa,
      .m = g->batch * g->in_h * g->in_w,
      .n = g->filter_h * g->filter_w * g->out_c,
      .k = g->in_c,
      .ldc = (ptrdiff_t)g->filter_h * g->filter_w * g->out_c,
      .min = -INFINITY,
      .max = INFINITY,
  };
  return gemm;
}

/* B-packing callback: B[c][t * out_c + o] = weights[o, t, c]. */
static void lg_tc_pack_b(const void* ctx, int p0, int depth, int j0, int cols,
                         float* dst, int ld) {
  const lg_tc_weights* w = ctx;
  for (int j = 0; j < cols; ++j) {
    const int t = (j0 + j) / w->out_c, o = (j0 + j) % w->out_c;
    const float* src = w->data + ((size_t)o * w->taps + t) * w->in_c + p0;
    for (int p = 0; p < depth; ++p) dst[(size_t)p * ld + j] = src[p];
  }
}

static TfLiteStatus lg_tc_plan(TfLiteContext* context, TfLiteNode* node,
                               lg_tc_data* data) {
  const TfLiteTensor* weights;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_TC_OP, data->weights_input, &weights));
  const lg_conv_geometry* geo = &data->geo;
  const int64_t pixels = (int64_t)geo->batch * geo->in_h * geo->in_w;
  const int64_t width = (int64_t)geo->filter_h * geo->filter_w * geo->out_c;
  const int64_t columns = pixels * width;
  if (pixels > INT_MAX || width > INT_MAX || columns > INT_MAX) {
    lg_kernel_log(context, LG_TC_OP,
                  "the column buffer (%lld x %lld floats) is too large",
                  (long long)pixels, (long long)width);
    return kTfLiteError;
  }
  data->isa = lg_gemm_isa_default();
  lg_gemm gemm = lg_tc_gemm(data);
  static const float kPackedMarker = 0.0f; /* only "is B prepacked" counts */
  gemm.b.packed = lg_nn_is_constant(weights) ? &kPackedMarker : NULL;
  const int threads = lg_thread_pool_size(lg_kernel_thread_pool(context));
  data->sizes[kColumnsTemporary] = (size_t)columns;
  data->sizes[kScratchTemporary] = lg_gemm_scratch_floats(&gemm, threads);
  TF_LITE_ENSURE_STATUS(lg_nn_set_temporaries(context, node, LG_TC_OP,
                                              data->temporaries, data->sizes,
                                              kNumTemporaries));
  /* AddTensors may have moved the tensors: look the weights up again. */
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_TC_OP, data->weights_input, &weights));
  data->prepacked = false;
  if (gemm.b.packed != NULL) {
    const lg_conv_geometry* g = &data->geo;
    const lg_tc_weights w = {weights->data.f, g->filter_h * g->filter_w,
                             g->out_c, g->in_c};
    const lg_gemm_b b = {.pack = lg_tc_pack_b, .pack_ctx = &w};
    TF_LITE_ENSURE_STATUS(lg_nn_buffer_reserve(
        context, LG_TC_OP, &data->weights,
        lg_gemm_packed_b_floats(data->isa, gemm.k, gemm.n)));
    lg_gemm_pack_b(data->isa, gemm.k, gemm.n, &b, data->weights.data);
    data->prepacked = true;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_tc_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_tc_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_TC_OP, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, LG_TC_OP, 3, 4, 1));
  const TfLiteTransposeConvParams* params = node->builtin_data;
  if (params == NULL) {
    lg_kernel_log(context, LG_TC_OP, "missing TransposeConvOptions parameters");
    return kTfLiteError;
  }
  const TfLiteTensor *output_shape, *weights, *input, *bias;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, LG_TC_OP,
                                        kOutputShapeTensor, &output_shape));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_TC_OP, kWeightsTensor, &weights));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_TC_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_optional_input(context, node, LG_TC_OP, kBiasTensor, &bias));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_TC_OP, kOutputTensor, &output));
  TF_LITE_ENSURE_STATUS(
      lg_tc_check_types(context, output_shape, weights, input, bias, output));
  lg_conv_geometry* g = &data->geo;
  memset(g, 0, sizeof(*g));
  TF_LITE_ENSURE_STATUS(
      lg_tc_check_shapes(context, output_shape, weights, input, bias, g));
  TF_LITE_ENSURE_STATUS(lg_nn_check_window(context, LG_TC_OP, params->padding,
                                           params->stride_width,
                                           params->stride_height, 1, 1));
  g->stride_h = params->stride_height;
  g->stride_w = params->stride_width;
  g->dilation_h = g->dilation_w = 1;
  data->quantized = input->type == kTfLiteInt8 || input->type == kTfLiteInt16;
  if (data->quantized) {
    TF_LITE_ENSURE_STATUS(
        lg_conv_quant_prepare(context, LG_TC_OP, input, weights, bias, output,
                              params->activation, g->out_c, 0, &data->q));
    TF_LITE_ENSURE_STATUS(lg_transpose_conv_quant_pack(
        context, LG_TC_OP, &data->q, g, weights,
        lg_thread_pool_size(lg_kernel_thread_pool(context))));
  } else {
    TF_LITE_ENSURE_STATUS(lg_kernel_activation_range_float(
        context, LG_TC_OP, params->activation, &g->act_min, &g->act_max));
  }
  data->hybrid = !data->quantized && weights->type == kTfLiteInt8;
  if (data->hybrid) {
    TF_LITE_ENSURE_STATUS(lg_hybrid_prepare(
        context, LG_TC_OP, weights, g->out_c, 0, true,
        lg_kernel_num_elements(input), g->batch, &data->hybrid_data));
  }
  data->padding = params->padding;
  data->has_bias = bias != NULL;
  data->input_elements = lg_kernel_num_elements(input);
  data->dynamic_output = !lg_nn_is_constant(output_shape);
  if (!data->dynamic_output) {
    TF_LITE_ENSURE_STATUS(lg_tc_output_geometry(context, output_shape->data.i32,
                                                data->padding, g));
  }
  if (!data->quantized && !data->hybrid) {
    TF_LITE_ENSURE_STATUS(lg_tc_plan(context, node, data));
  }
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_TC_OP, kOutputTensor, &output));
  if (data->dynamic_output) {
    output->allocation_type = kTfLiteDynamic;
  } else {
    TF_LITE_ENSURE_STATUS(lg_tc_resize_output(context, output, g));
  }
  data->prepared = true;
  return kTfLiteOk;
}

/* ---- Invoke ------------------------------------------------------------- */

/* Output rows [row0, row1) of batch * out_h: each pixel sums the column
 * entries of the taps that reach it, then adds the bias and clamps. */
static void lg_tc_gather(const lg_tc_job* job, int row0, int row1) {
  const lg_conv_geometry* g = job->geo;
  const size_t tap_stride = (size_t)g->out_c;
  const size_t pixel_stride = (size_t)g->filter_h * g->filter_w * g->out_c;
  for (int row = row0; row < row1; ++row) {
    const int n = row / g->out_h, y = row % g->out_h;
    for (int x = 0; x < g->out_w; ++x) {
      float* out =
          job->output + (((size_t)n * g->out_h + y) * g->out_w + x) * g->out_c;
      for (int o = 0; o < g->out_c; ++o) out[o] = 0.0f;
      for (int kh = 0; kh < g->filter_h; ++kh) {
        const int sy = y + g->pad_top - kh;
        if (sy < 0 || sy % g->stride_h != 0 || sy / g->stride_h >= g->in_h) {
          continue;
        }
        for (int kw = 0; kw < g->filter_w; ++kw) {
          const int sx = x + g->pad_left - kw;
          if (sx < 0 || sx % g->stride_w != 0 || sx / g->stride_w >= g->in_w) {
            continue;
          }
          const size_t pixel =
              ((size_t)n * g->in_h + sy / g->stride_h) * g->in_w +
              sx / g->stride_w;
          const float* col = job->columns + pixel * pixel_stride +
                             ((size_t)kh * g->filter_w + kw) * tap_stride;
          for (int o = 0; o < g->out_c; ++o) out[o] += col[o];
        }
      }
      for (int o = 0; o < g->out_c; ++o) {
        const float v = out[o] + (job->bias != NULL ? job->bias[o] : 0.0f);
        out[o] = lg_kernel_clamp_float(v, g->act_min, g->act_max);
      }
    }
  }
}

/* Column taps (kw, input column) per output column, listed once per task
 * where out_w * filter_w fits LG_TC_COLUMN_TAPS. */
#define LG_TC_COLUMN_TAPS 4096

/* The same gather with each output column's taps listed up front (no
 * division or remainder per pixel and tap). */
static void lg_tc_gather_listed(const lg_tc_job* job, int row0, int row1) {
  const lg_conv_geometry* g = job->geo;
  int32_t kws[LG_TC_COLUMN_TAPS], xs[LG_TC_COLUMN_TAPS];
  int32_t first[LG_TC_COLUMN_TAPS / 1 + 1];
  int count = 0;
  for (int x = 0; x < g->out_w; ++x) {
    first[x] = count;
    for (int kw = 0; kw < g->filter_w; ++kw) {
      const int sx = x + g->pad_left - kw;
      if (sx < 0 || sx % g->stride_w != 0 || sx / g->stride_w >= g->in_w) {
        continue;
      }
      kws[count] = kw;
      xs[count] = sx / g->stride_w;
      ++count;
    }
  }
  first[g->out_w] = count;
  const size_t oc = (size_t)g->out_c;
  const size_t pixel_stride = (size_t)g->filter_h * g->filter_w * oc;
  for (int row = row0; row < row1; ++row) {
    const int n = row / g->out_h, y = row % g->out_h;
    float* out = job->output + (size_t)row * g->out_w * oc;
    for (size_t i = 0; i < (size_t)g->out_w * oc; ++i) out[i] = 0.0f;
    for (int kh = 0; kh < g->filter_h; ++kh) {
      const int sy = y + g->pad_top - kh;
      if (sy < 0 || sy % g->stride_h != 0 || sy / g->stride_h >= g->in_h) {
        continue;
      }
      const float* cols =
          job->columns +
          ((size_t)n * g->in_h + sy / g->stride_h) * g->in_w * pixel_stride +
          (size_t)kh * g->filter_w * oc;
      for (int x = 0; x < g->out_w; ++x) {
        float* o = out + (size_t)x * oc;
        for (int t = first[x]; t < first[x + 1]; ++t) {
          const float* col =
              cols + (size_t)xs[t] * pixel_stride + (size_t)kws[t] * oc;
          for (size_t c = 0; c < oc; ++c) o[c] += col[c];
        }
      }
    }
    for (int x = 0; x < g->out_w; ++x) {
      float* o = out + (size_t)x * oc;
      for (size_t c = 0; c < oc; ++c) {
        const float v = o[c] + (job->bias != NULL ? job->bias[c] : 0.0f);
        o[c] = lg_kernel_clamp_float(v, g->act_min, g->act_max);
      }
    }
  }
}

static void lg_tc_task(void* ctx, int index) {
  const lg_tc_job* job = ctx;
  const int row0 = (int)((int64_t)job->rows * index / job->num_tasks);
  const int row1 = (int)((int64_t)job->rows * (index + 1) / job->num_tasks);
  const lg_conv_geometry* g = job->geo;
  if ((int64_t)g->out_w * g->filter_w <= LG_TC_COLUMN_TAPS &&
      g->out_w < LG_TC_COLUMN_TAPS) {
    lg_tc_gather_listed(job, row0, row1);
    return;
  }
  lg_tc_gather(job, row0, row1);
}

/* For a non-constant output_shape: checks its values and resizes the
 * output. */
static TfLiteStatus lg_tc_resize_dynamic(TfLiteContext* context,
                                         TfLiteNode* node, lg_tc_data* data,
                                         TfLiteTensor** output) {
  const TfLiteTensor* output_shape;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, LG_TC_OP,
                                        kOutputShapeTensor, &output_shape));
  if (output_shape->data.i32 == NULL) {
    lg_kernel_log(context, LG_TC_OP, "output_shape has no data");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_tc_output_geometry(context, output_shape->data.i32,
                                              data->padding, &data->geo));
  TF_LITE_ENSURE_STATUS(lg_tc_resize_output(context, *output, &data->geo));
  return lg_kernel_output(context, node, LG_TC_OP, kOutputTensor, output);
}

static TfLiteStatus lg_tc_compute(TfLiteContext* context, TfLiteNode* node,
                                  const lg_tc_data* data,
                                  const TfLiteTensor* weights,
                                  const TfLiteTensor* input,
                                  const TfLiteTensor* bias,
                                  TfLiteTensor* output) {
  float* columns = lg_nn_temporary(context, node, LG_TC_OP, kColumnsTemporary,
                                   data->sizes[kColumnsTemporary]);
  float* scratch = lg_nn_temporary(context, node, LG_TC_OP, kScratchTemporary,
                                   data->sizes[kScratchTemporary]);
  if (columns == NULL || scratch == NULL) return kTfLiteError;
  const lg_conv_geometry* g = &data->geo;
  lg_thread_pool* pool = lg_kernel_thread_pool(context);
  lg_gemm gemm = lg_tc_gemm(data);
  const lg_tc_weights w = {weights->data.f, g->filter_h * g->filter_w, g->out_c,
                           g->in_c};
  gemm.a.data = input->data.f;
  gemm.a.row_stride = g->in_c;
  gemm.a.col_stride = 1;
  if (data->prepacked) {
    gemm.b.packed = data->weights.data;
  } else {
    gemm.b.pack = lg_tc_pack_b;
    gemm.b.pack_ctx = &w;
  }
  gemm.c = columns;
  lg_gemm_run(&gemm, pool, scratch, data->sizes[kScratchTemporary]);

  lg_tc_job job = {
      .geo = g,
      .columns = columns,
      .bias = bias != NULL ? bias->data.f : NULL,
      .output = output->data.f,
      .rows = g->batch * g->out_h,
      .num_tasks = 1,
  };
  if (lg_kernel_num_elements(output) >= LG_TC_MIN_PARALLEL) {
    job.num_tasks = lg_thread_pool_tasks(pool, job.rows);
  }
  lg_thread_pool_run(pool, lg_tc_task, &job, job.num_tasks);
  return kTfLiteOk;
}

static TfLiteStatus lg_tc_invoke(TfLiteContext* context, TfLiteNode* node) {
  lg_tc_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, LG_TC_OP, "invoked before a successful prepare");
    return kTfLiteError;
  }
  const TfLiteTensor *weights, *input, *bias = NULL;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_TC_OP, kOutputTensor, &output));
  if (data->dynamic_output) {
    TF_LITE_ENSURE_STATUS(lg_tc_resize_dynamic(context, node, data, &output));
  }
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_TC_OP, kWeightsTensor, &weights));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_TC_OP, kInputTensor, &input));
  if (data->has_bias) {
    TF_LITE_ENSURE_STATUS(
        lg_kernel_input(context, node, LG_TC_OP, kBiasTensor, &bias));
  }
  const lg_conv_geometry* g = &data->geo;
  const int64_t out_elements =
      (int64_t)g->batch * g->out_h * g->out_w * g->out_c;
  if (lg_kernel_num_elements(input) != data->input_elements ||
      lg_kernel_num_elements(output) != out_elements) {
    lg_kernel_log(context, LG_TC_OP, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (out_elements == 0) return kTfLiteOk;
  if ((data->input_elements > 0 &&
       (input->data.f == NULL || weights->data.f == NULL)) ||
      output->data.f == NULL || (bias != NULL && bias->data.f == NULL)) {
    lg_kernel_log(context, LG_TC_OP, "a tensor has no data");
    return kTfLiteError;
  }
  if (data->hybrid) {
    lg_transpose_conv_hybrid_run(
        &data->hybrid_data, g, input->data.f, weights->data.int8,
        bias != NULL ? bias->data.f : NULL, output->data.f);
    return kTfLiteOk;
  }
  if (data->quantized) {
    lg_transpose_conv_quant_run(
        g, &data->q, input->data.data, weights->data.int8,
        bias != NULL ? bias->data.data : NULL, output->data.data,
        lg_kernel_thread_pool(context));
    return kTfLiteOk;
  }
  return lg_tc_compute(context, node, data, weights, input, bias, output);
}

LG_KERNEL_REGISTRATION(TRANSPOSE_CONV, lg_tc_init, lg_tc_free, lg_tc_prepare,
                       lg_tc_invoke)

/* ---- MediaPipe's Convolution2DTransposeBias ------------------------------
 * The same column GEMM and gather with MediaPipe's layout (input, weights
 * OHWI, bias; no output_shape: the geometry comes from the custom options,
 * mediapipe_ops.c) and no activation. */

#define LG_TCB_OP LG_MEDIAPIPE_TRANSPOSE_CONV_BIAS

static void* lg_tcb_init(TfLiteContext* context, const char* buffer,
                         size_t length) {
  lg_tc_data* data = lg_tc_init(context, buffer, length);
  if (data != NULL) data->weights_input = 1;
  return data;
}

static TfLiteStatus lg_tcb_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_tc_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_TCB_OP, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(
      lg_mediapipe_transpose_conv_geometry(context, node, &data->geo));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, LG_TCB_OP, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, LG_TCB_OP, 0, &output));
  if (output->type != kTfLiteFloat32) {
    lg_kernel_log(context, LG_TCB_OP, "the output must be FLOAT32");
    return kTfLiteError;
  }
  data->has_bias = true;
  data->input_elements = lg_kernel_num_elements(input);
  TF_LITE_ENSURE_STATUS(lg_tc_plan(context, node, data));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, LG_TCB_OP, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_tc_resize_output(context, output, &data->geo));
  data->prepared = true;
  return kTfLiteOk;
}

static TfLiteStatus lg_tcb_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_tc_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, LG_TCB_OP, "invoked before a successful prepare");
    return kTfLiteError;
  }
  const TfLiteTensor *input, *weights, *bias;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, LG_TCB_OP, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, LG_TCB_OP, 1, &weights));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, LG_TCB_OP, 2, &bias));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, LG_TCB_OP, 0, &output));
  const lg_conv_geometry* g = &data->geo;
  if (lg_kernel_num_elements(input) != data->input_elements ||
      lg_kernel_num_elements(output) !=
          (int64_t)g->batch * g->out_h * g->out_w * g->out_c) {
    lg_kernel_log(context, LG_TCB_OP, "tensors changed since prepare");
    return kTfLiteError;
  }
  if (input->data.f == NULL || weights->data.f == NULL ||
      bias->data.f == NULL || output->data.f == NULL) {
    lg_kernel_log(context, LG_TCB_OP, "a tensor has no data");
    return kTfLiteError;
  }
  return lg_tc_compute(context, node, data, weights, input, bias, output);
}

const TfLiteRegistration* lg_register_mediapipe_transpose_conv_bias(void) {
  static const TfLiteRegistration registration = {
      .init = lg_tcb_init,
      .free = lg_tc_free,
      .prepare = lg_tcb_prepare,
      .invoke = lg_tcb_invoke,
      .builtin_code = kTfLiteBuiltinCustom,
      .custom_name = LG_MEDIAPIPE_TRANSPOSE_CONV_BIAS,
      .version = 1,
  };
  return &registration;
}
