/* FULLY_CONNECTED, float32: output[b, o] = activation(sum_i input[b, i] *
 * weights[o, i] + bias[o]).
 *
 * The input [..., in_depth] is read as [batch, in_depth] with batch =
 * elements / in_depth. The output is [batch, out_depth], or with
 * keep_num_dims (version 5) the input's shape with the last dim replaced by
 * out_depth. The bias is optional (version 6: two inputs, or input 2 set to
 * kTfLiteOptionalTensor).
 *
 * INT8 (version 4; per-channel weights along dim 0 too), TFLite's
 * reference integer kernel bit for bit:
 *   acc = sum_i (input + input_offset) * (weights + weights_offset) + bias
 *   output = clamp(round(acc * s_o) + output_zp)
 * with offsets minus the zero points, int32 bias, s_o = input_scale *
 * weights_scale[o] / output_scale and the product rounded once, in double
 * (TFLite's reference integer kernel with float scales), and the clamp the
 * fused activation's quantized range.
 *
 * 16x8 (INT16 input and output with zero points 0, INT8 weights, INT64 or
 * INT32 bias) is the same formula with an int64 (INT32 bias: int32) sum.
 *
 * Hybrid (float input and output, INT8 weights: versions 3, 9 with
 * asymmetric_quantize_inputs) is TFLite's dynamic-range kernel bit for bit
 * (hybrid.c).
 *
 * UINT8 (version 1: UINT8 input, weights and output, per-tensor weights
 * with any zero point, INT32 bias) is TFLite's legacy reference kernel bit
 * for bit: the same sum, rescaled by the fixed-point multiplier of
 * input_scale * weights_scale / output_scale (MultiplyByQuantizedMultiplier,
 * 32 bits).
 *
 * INT4 weights (versions 10 and 13, and hybrid) are unpacked once in
 * Prepare to INT8 (lg_nn_prepare_int4: they must be a model constant with
 * zero points 0) and then run as INT8 weights, which is what TFLite's
 * kernels compute after unpacking them.
 *
 * Every other variant the versions up to 13 add (UINT8 with INT16 output,
 * shuffled or sparse weights) is rejected in Prepare with a message naming
 * the types or the format.
 *
 * Fast path: one GEMM (m = batch, n = out_depth, k = in_depth) with the
 * weights as a transposed B. Constant weights are packed once in Prepare
 * into the GEMM's B layout; the GEMM's packing scratch is a temporary
 * tensor sized in Prepare, so Invoke allocates nothing. The GEMM splits the
 * output over the thread pool (rows, or columns when the batch is small);
 * the INT8 / UINT8 fast path splits each batch row's output channels.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/thread_pool.h"
#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/nn.h"
#include "runtime/kernels/quant_simd.h"
#include "runtime/kernels/quant_util.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_FC_OP "FULLY_CONNECTED"

enum {
  kInputTensor = 0,
  kWeightsTensor = 1,
  kBiasTensor = 2,
  kOutputTensor = 0,
};

enum {
  kScratchTemporary = 0,
  kNumTemporaries = 1,
};

typedef struct lg_fc_data {
  bool prepared;
  int batch;
  int in_depth;
  int out_depth;
  bool has_bias;
  float min, max;
  lg_gemm_isa isa;
  bool prepacked; /* the weights sit in `weights`, packed */
  lg_nn_buffer weights;
  int temporaries[kNumTemporaries];
  size_t scratch_floats;
  /* INT8 and 16x8 */
  bool quantized;
  TfLiteType type;
  bool wide_bias; /* INT64 bias */
  int32_t input_offset, weights_offset, output_offset;
  int32_t act_min, act_max;
  /* input_scale * weights_scale[o] / output_scale, per output channel */
  double* effective_scales;
  /* UINT8: that scale (one) as a fixed-point multiplier */
  int32_t output_multiplier;
  int output_shift;
  /* INT4 weights unpacked to INT8 in Prepare, else NULL */
  int8_t* unpacked;
  /* Hybrid: float input, INT8 weights */
  bool hybrid;
  lg_hybrid hybrid_data;
  /* INT8 fast path (AVX2, constant symmetric weights): the weights as
   * int16 rows of k_pad, a row of input + input_offset and its sums. */
  int16_t* packed;
  int16_t* row;
  int32_t* sums;
  int k_pad;
  /* INT8 on CPUs with AVX-512 VNNI instead: the weights in the VNNI
   * kernel's 16-output blocks (quant_simd.h), (input_offset - 128) x each
   * output's weight sum (the kernel reads input + 128), and a row of
   * 4 * k4 unsigned bytes; `sums` as above (16 * blocks values). */
  int8_t* packed8;
  int32_t* init;
  uint8_t* row8;
  int k4;
} lg_fc_data;

/* Stands in for the packed weights while only sizes matter (the scratch
 * size depends on whether B is prepacked). */
static const float kPackedMarker = 0.0f;

static void* lg_fc_init(TfLiteContext* context, const char* buffer,
                        size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  lg_fc_data* data = calloc(1, sizeof(lg_fc_data));
  if (data != NULL) data->temporaries[kScratchTemporary] = -1;
  return data;
}

static TfLiteStatus lg_fc_pack_int8(TfLiteContext* context, lg_fc_data* data,
                                    const TfLiteTensor* weights);

static void lg_fc_free_fast(lg_fc_data* data) {
  free(data->packed);
  free(data->row);
  free(data->sums);
  free(data->packed8);
  free(data->init);
  free(data->row8);
  data->packed = NULL;
  data->row = NULL;
  data->sums = NULL;
  data->packed8 = NULL;
  data->init = NULL;
  data->row8 = NULL;
}

static void lg_fc_free(TfLiteContext* context, void* buffer) {
  (void)context;
  lg_fc_data* data = buffer;
  if (data != NULL) {
    lg_nn_buffer_free(&data->weights);
    free(data->effective_scales);
    lg_hybrid_free(&data->hybrid_data);
    lg_fc_free_fast(data);
    free(data->unpacked);
  }
  free(data);
}

void lg_fully_connected_reference(int batch, int in_depth, int out_depth,
                                  const float* input, const float* weights,
                                  const float* bias, float act_min,
                                  float act_max, float* output) {
  for (int b = 0; b < batch; ++b) {
    for (int o = 0; o < out_depth; ++o) {
      float total = 0.0f;
      for (int i = 0; i < in_depth; ++i) {
        total +=
            input[(size_t)b * in_depth + i] * weights[(size_t)o * in_depth + i];
      }
      const float v = total + (bias != NULL ? bias[o] : 0.0f);
      output[(size_t)b * out_depth + o] =
          lg_kernel_clamp_float(v, act_min, act_max);
    }
  }
}

/* The GEMM without its data pointers: B[p][j] = weights[j][p]. */
static lg_gemm lg_fc_gemm(const lg_fc_data* data) {
  lg_gemm gemm = {
      .isa = data->isa,
      .m = data->batch,
      .n = data->out_depth,
      .k = data->in_depth,
      .a = {.row_stride = data->in_depth, .col_stride = 1},
      .b = {.row_stride = 1, .col_stride = data->in_depth},
      .ldc = data->out_depth,
      .min = data->min,
      .max = data->max,
  };
  gemm.b.packed = data->prepacked ? &kPackedMarker : NULL;
  return gemm;
}

/* Sizes the scratch temporary and packs constant weights. */
static TfLiteStatus lg_fc_plan(TfLiteContext* context, TfLiteNode* node,
                               lg_fc_data* data) {
  const TfLiteTensor* weights;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_FC_OP, kWeightsTensor, &weights));
  data->isa = lg_gemm_isa_default();
  const bool constant =
      lg_nn_is_constant(weights) && data->out_depth > 0 && data->in_depth > 0;
  data->prepacked = constant;
  lg_gemm gemm = lg_fc_gemm(data);
  const int threads = lg_thread_pool_size(lg_kernel_thread_pool(context));
  data->scratch_floats = lg_gemm_scratch_floats(&gemm, threads);
  TF_LITE_ENSURE_STATUS(lg_nn_set_temporaries(
      context, node, LG_FC_OP, data->temporaries, &data->scratch_floats, 1));
  if (!constant) return kTfLiteOk;
  /* AddTensors may have moved the tensors: look the weights up again. */
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_FC_OP, kWeightsTensor, &weights));
  data->prepacked = false;
  TF_LITE_ENSURE_STATUS(lg_nn_buffer_reserve(
      context, LG_FC_OP, &data->weights,
      lg_gemm_packed_b_floats(data->isa, data->in_depth, data->out_depth)));
  gemm.b.packed = NULL;
  gemm.b.data = weights->data.f;
  lg_gemm_pack_b(data->isa, data->in_depth, data->out_depth, &gemm.b,
                 data->weights.data);
  data->prepacked = true;
  lg_kernel_release_input(context, node, kWeightsTensor);
  return kTfLiteOk;
}

/* The quantized signatures: INT8 input, weights and output with an INT32
 * bias; INT16 input and output, INT8 weights, INT64 or INT32 bias. */
static TfLiteStatus lg_fc_check_quantized_types(TfLiteContext* context,
                                                const TfLiteTensor* input,
                                                const TfLiteTensor* weights,
                                                const TfLiteTensor* bias,
                                                const TfLiteTensor* output) {
  const bool wide = input->type == kTfLiteInt16;
  if (bias != NULL && bias->type != kTfLiteInt32 &&
      !(wide && bias->type == kTfLiteInt64)) {
    lg_kernel_log(context, LG_FC_OP,
                  "bias type %s is not supported with %s input and %s "
                  "weights (expected %s)",
                  TfLiteTypeGetName(bias->type), TfLiteTypeGetName(input->type),
                  TfLiteTypeGetName(weights->type),
                  wide ? "INT64 or INT32" : "INT32");
    return kTfLiteError;
  }
  if (output->type != input->type) {
    lg_kernel_log(context, LG_FC_OP,
                  "output type %s is not supported with %s input (expected "
                  "%s)",
                  TfLiteTypeGetName(output->type),
                  TfLiteTypeGetName(input->type),
                  TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_fc_check_types(TfLiteContext* context,
                                      const TfLiteTensor* input,
                                      const TfLiteTensor* weights,
                                      const TfLiteTensor* bias,
                                      const TfLiteTensor* output) {
  if (weights->sparsity != NULL) {
    lg_kernel_log(context, LG_FC_OP, "sparse weights are not supported");
    return kTfLiteError;
  }
  /* INT4 weights are unpacked to INT8: they go wherever INT8 ones do. */
  const bool w8 = weights->type == kTfLiteInt8 || weights->type == kTfLiteInt4;
  if (((input->type == kTfLiteInt8 || input->type == kTfLiteInt16) && w8) ||
      (input->type == kTfLiteUInt8 && weights->type == kTfLiteUInt8)) {
    return lg_fc_check_quantized_types(context, input, weights, bias, output);
  }
  const bool hybrid = input->type == kTfLiteFloat32 && w8;
  if (input->type != kTfLiteFloat32 ||
      (weights->type != kTfLiteFloat32 && !hybrid)) {
    lg_kernel_log(context, LG_FC_OP,
                  "input type %s with weights type %s is not supported "
                  "(expected FLOAT32 with FLOAT32, INT8 or INT4 weights, "
                  "INT8 or INT16 with INT8 or INT4 weights, or UINT8 with "
                  "UINT8 weights)",
                  TfLiteTypeGetName(input->type),
                  TfLiteTypeGetName(weights->type));
    return kTfLiteError;
  }
  if (bias != NULL && bias->type != kTfLiteFloat32) {
    lg_kernel_log(context, LG_FC_OP,
                  "bias type %s is not supported (expected FLOAT32)",
                  TfLiteTypeGetName(bias->type));
    return kTfLiteError;
  }
  if (output->type != kTfLiteFloat32) {
    lg_kernel_log(context, LG_FC_OP,
                  "output type %s is not supported (expected FLOAT32)",
                  TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Checks the shapes and fills batch, in_depth and out_depth. */
static TfLiteStatus lg_fc_check_shapes(TfLiteContext* context, lg_fc_data* data,
                                       const TfLiteTensor* input,
                                       const TfLiteTensor* weights,
                                       const TfLiteTensor* bias,
                                       bool keep_num_dims) {
  char shape[64];
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, LG_FC_OP, "input", input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, LG_FC_OP, "weights", weights));
  if (weights->dims->size != 2) {
    lg_kernel_log(context, LG_FC_OP, "weights shape %s is not 2-D",
                  lg_kernel_format_shape(weights->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  data->out_depth = weights->dims->data[0];
  data->in_depth = weights->dims->data[1];
  if (data->in_depth == 0) {
    lg_kernel_log(context, LG_FC_OP, "weights shape %s has input depth 0",
                  lg_kernel_format_shape(weights->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  const int64_t elements = lg_kernel_num_elements(input);
  if (elements % data->in_depth != 0) {
    lg_kernel_log(context, LG_FC_OP,
                  "input shape %s has %lld elements, not a multiple of the "
                  "weights' input depth %d",
                  lg_kernel_format_shape(input->dims, shape, sizeof(shape)),
                  (long long)elements, data->in_depth);
    return kTfLiteError;
  }
  data->batch = (int)(elements / data->in_depth);
  if (keep_num_dims &&
      (input->dims->size == 0 ||
       input->dims->data[input->dims->size - 1] != data->in_depth)) {
    lg_kernel_log(context, LG_FC_OP,
                  "keep_num_dims needs the input's last dim to equal the "
                  "weights' input depth %d; input shape is %s",
                  data->in_depth,
                  lg_kernel_format_shape(input->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (bias != NULL) {
    TF_LITE_ENSURE_STATUS(
        lg_kernel_check_shape(context, LG_FC_OP, "bias", bias));
    if (lg_kernel_num_elements(bias) != data->out_depth) {
      lg_kernel_log(context, LG_FC_OP,
                    "bias shape %s does not hold %d elements (the weights' "
                    "output depth)",
                    lg_kernel_format_shape(bias->dims, shape, sizeof(shape)),
                    data->out_depth);
      return kTfLiteError;
    }
  }
  if ((int64_t)data->batch * data->out_depth > INT32_MAX) {
    lg_kernel_log(context, LG_FC_OP, "the output of %d x %d is too large",
                  data->batch, data->out_depth);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteIntArray* lg_fc_output_shape(const lg_fc_data* data,
                                          const TfLiteTensor* input,
                                          bool keep_num_dims) {
  if (keep_num_dims) {
    TfLiteIntArray* shape = TfLiteIntArrayCopy(input->dims);
    if (shape != NULL) shape->data[shape->size - 1] = data->out_depth;
    return shape;
  }
  TfLiteIntArray* shape = TfLiteIntArrayCreate(2);
  if (shape != NULL) {
    shape->data[0] = data->batch;
    shape->data[1] = data->out_depth;
  }
  return shape;
}

/* Quantized: offsets, per-channel scales and the activation's range. */
static TfLiteStatus lg_fc_prepare_quantized(
    TfLiteContext* context, lg_fc_data* data, const TfLiteTensor* input,
    const TfLiteTensor* weights, const TfLiteTensor* bias,
    const TfLiteTensor* output, TfLiteFusedActivation activation) {
  lg_quant_layout in_q, w_q, out_q;
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, LG_FC_OP, "input", input, &in_q));
  TF_LITE_ENSURE_STATUS(
      lg_quant_layout_read(context, LG_FC_OP, "weights", weights, &w_q));
  TF_LITE_ENSURE_STATUS(
      lg_quant_tensor_read(context, LG_FC_OP, "output", output, &out_q));
  const bool per_channel = w_q.channels != 1;
  if (per_channel && input->type == kTfLiteUInt8) {
    lg_kernel_log(context, LG_FC_OP,
                  "UINT8 weights have %lld scales: UINT8 weights are quantized "
                  "per tensor (one scale)",
                  (long long)w_q.channels);
    return kTfLiteError;
  }
  if (per_channel && (w_q.outer != 1 || w_q.channels != data->out_depth)) {
    lg_kernel_log(context, LG_FC_OP,
                  "per-channel weights must be quantized along dimension 0 "
                  "(the output depth %d)",
                  data->out_depth);
    return kTfLiteError;
  }
  for (int64_t c = 1; c < w_q.channels; ++c) {
    if (lg_quant_zero_point(&w_q, c) != w_q.zero_point0) {
      lg_kernel_log(context, LG_FC_OP,
                    "per-channel weights need one zero point for all "
                    "channels (channel %lld has %d, channel 0 %d)",
                    (long long)c, (int)lg_quant_zero_point(&w_q, c),
                    (int)w_q.zero_point0);
      return kTfLiteError;
    }
  }
  if (input->type == kTfLiteInt16 &&
      (in_q.zero_point0 != 0 || out_q.zero_point0 != 0)) {
    lg_kernel_log(context, LG_FC_OP,
                  "INT16 zero points must be 0 (input %d, output %d): INT16 "
                  "quantization is symmetric",
                  (int)in_q.zero_point0, (int)out_q.zero_point0);
    return kTfLiteError;
  }
  data->type = input->type;
  data->wide_bias = bias != NULL && bias->type == kTfLiteInt64;
  data->input_offset = -in_q.zero_point0;
  data->weights_offset = -w_q.zero_point0;
  data->output_offset = out_q.zero_point0;
  const int n = data->out_depth > 0 ? data->out_depth : 1;
  free(data->effective_scales);
  data->effective_scales = malloc(sizeof(double) * (size_t)n);
  if (data->effective_scales == NULL) {
    lg_kernel_log(context, LG_FC_OP, "out of memory for %d output scales", n);
    return kTfLiteError;
  }
  for (int o = 0; o < n; ++o) {
    data->effective_scales[o] = (double)in_q.scale0 *
                                (double)lg_quant_scale(&w_q, o) /
                                (double)out_q.scale0;
  }
  lg_quantize_multiplier(data->effective_scales[0], &data->output_multiplier,
                         &data->output_shift);
  return lg_quant_activation_range(context, LG_FC_OP, activation, input->type,
                                   out_q.scale0, out_q.zero_point0,
                                   &data->act_min, &data->act_max);
}

static TfLiteStatus lg_fc_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_fc_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_FC_OP, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, LG_FC_OP, 2, 3, 1));
  const TfLiteTensor* input;
  const TfLiteTensor* weights;
  const TfLiteTensor* bias;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_FC_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_FC_OP, kWeightsTensor, &weights));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_optional_input(context, node, LG_FC_OP, kBiasTensor, &bias));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_FC_OP, kOutputTensor, &output));

  const TfLiteFullyConnectedParams* params = node->builtin_data;
  const TfLiteFusedActivation activation =
      params != NULL ? params->activation : kTfLiteActNone;
  const bool keep_num_dims = params != NULL && params->keep_num_dims;
  if (params != NULL &&
      params->weights_format != kTfLiteFullyConnectedWeightsFormatDefault) {
    lg_kernel_log(context, LG_FC_OP,
                  "weights format %s is not supported (expected DEFAULT)",
                  params->weights_format ==
                          kTfLiteFullyConnectedWeightsFormatShuffled4x16Int8
                      ? "SHUFFLED4x16INT8"
                      : "UNKNOWN");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(
      lg_fc_check_types(context, input, weights, bias, output));
  TfLiteTensor int4_view;
  TF_LITE_ENSURE_STATUS(lg_nn_prepare_int4(context, LG_FC_OP, true, &weights,
                                           &data->unpacked, &int4_view));
  data->quantized = input->type == kTfLiteInt8 || input->type == kTfLiteInt16 ||
                    input->type == kTfLiteUInt8;
  TF_LITE_ENSURE_STATUS(
      lg_fc_check_shapes(context, data, input, weights, bias, keep_num_dims));
  data->has_bias = bias != NULL;
  data->hybrid = input->type == kTfLiteFloat32 && weights->type == kTfLiteInt8;
  if (data->quantized) {
    TF_LITE_ENSURE_STATUS(lg_fc_prepare_quantized(context, data, input, weights,
                                                  bias, output, activation));
    TF_LITE_ENSURE_STATUS(lg_fc_pack_int8(context, data, weights));
  } else if (data->hybrid) {
    TF_LITE_ENSURE_STATUS(lg_kernel_activation_range_float(
        context, LG_FC_OP, activation, &data->min, &data->max));
    TF_LITE_ENSURE_STATUS(
        lg_hybrid_prepare(context, LG_FC_OP, weights, data->out_depth, 0,
                          params != NULL && params->asymmetric_quantize_inputs,
                          (int64_t)data->batch * data->in_depth, data->batch,
                          &data->hybrid_data));
    TF_LITE_ENSURE_STATUS(lg_hybrid_pack_fc(context, LG_FC_OP,
                                            &data->hybrid_data, weights,
                                            data->out_depth, data->in_depth));
  } else {
    TF_LITE_ENSURE_STATUS(lg_kernel_activation_range_float(
        context, LG_FC_OP, activation, &data->min, &data->max));
    TF_LITE_ENSURE_STATUS(lg_fc_plan(context, node, data));
  }
  /* AddTensors may have moved the tensors: look them up again. */
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_FC_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_FC_OP, kOutputTensor, &output));

  TfLiteIntArray* shape = lg_fc_output_shape(data, input, keep_num_dims);
  if (shape == NULL) {
    lg_kernel_log(context, LG_FC_OP, "out of memory for the output shape");
    return kTfLiteError;
  }
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, shape));
  data->prepared = true;
  return kTfLiteOk;
}

/* One quantized output: the sum rounded once in double, half away from
 * zero, as TFLite's reference integer kernel with float scales (and
 * XNNPACK) computes (the fixed-point multiplier of its optimized builtin
 * kernel rounds twice and differs on 21 of hello_world_int8's 256 inputs),
 * offset and clamped. */
static int32_t lg_fc_finish(const lg_fc_data* data, int64_t acc, int o) {
  /* In 64 bits: a scaled sum at the int32 limit (a huge output scale
   * ratio, or INT32_MIN for one out of range) plus the offset must not
   * overflow; the clamp then saturates it. */
  int64_t v =
      data->type == kTfLiteUInt8
          ? lg_multiply_by_quantized_multiplier(
                (int32_t)acc, data->output_multiplier, data->output_shift)
          : lg_quant_round_to_int_double((double)acc *
                                         data->effective_scales[o]);
  v += data->output_offset;
  if (v < data->act_min) v = data->act_min;
  if (v > data->act_max) v = data->act_max;
  return (int32_t)v;
}

/* INT8 (int32 sums, TFLite's) and INT16 (int64 sums; with an INT32 bias
 * TFLite sums in int32, whose wrap the cast reproduces), in TFLite's
 * reference order. */
#define LG_FC_QUANT_RUN(SUFFIX, T, W, ACC)                               \
  static void lg_fc_run_##SUFFIX(const lg_fc_data* data, const T* input, \
                                 const W* weights, const void* bias,     \
                                 T* output) {                            \
    const int depth = data->in_depth;                                    \
    for (int b = 0; b < data->batch; ++b) {                              \
      const T* x = input + (size_t)b * depth;                            \
      for (int o = 0; o < data->out_depth; ++o) {                        \
        const W* w = weights + (size_t)o * depth;                        \
        ACC acc = 0;                                                     \
        for (int i = 0; i < depth; ++i) {                                \
          acc += ((ACC)w[i] + data->weights_offset) *                    \
                 ((ACC)x[i] + data->input_offset);                       \
        }                                                                \
        if (bias != NULL) {                                              \
          acc += data->wide_bias ? (ACC)((const int64_t*)bias)[o]        \
                                 : (ACC)((const int32_t*)bias)[o];       \
        }                                                                \
        if (!data->wide_bias) acc = (int32_t)(uint32_t)(uint64_t)acc;    \
        output[(size_t)b * data->out_depth + o] =                        \
            (T)lg_fc_finish(data, acc, o);                               \
      }                                                                  \
    }                                                                    \
  }

LG_FC_QUANT_RUN(int8, int8_t, int8_t, int32_t)
LG_FC_QUANT_RUN(uint8, uint8_t, uint8_t, int32_t)

/* The INT8 fast path on AVX-512 VNNI: the weights in 16-output blocks of
 * 4-byte depth groups, the weight sums times (input_offset - 128). */
static TfLiteStatus lg_fc_pack_vnni(TfLiteContext* context, lg_fc_data* data,
                                    const TfLiteTensor* weights) {
  const size_t k = (size_t)data->in_depth, n = (size_t)data->out_depth;
  const size_t k4 = (k + 3) / 4, blocks = (n + 15) / 16;
  data->k4 = (int)k4;
  data->packed8 = calloc(blocks * k4 * 64, 1);
  data->init = calloc(blocks * 16, sizeof(int32_t));
  data->sums = calloc(blocks * 16, sizeof(int32_t));
  data->row8 = calloc(k4 * 4, 1);
  if (data->packed8 == NULL || data->init == NULL || data->sums == NULL ||
      data->row8 == NULL) {
    lg_fc_free_fast(data);
    lg_kernel_log(context, LG_FC_OP, "out of memory for the packed weights");
    return kTfLiteError;
  }
  const int8_t* w = weights->data.int8;
  for (size_t o = 0; o < n; ++o) {
    uint32_t sum = 0;
    for (size_t i = 0; i < k; ++i) {
      const int8_t v = w[o * k + i];
      data->packed8[(((o / 16) * k4 + i / 4) * 16 + o % 16) * 4 + i % 4] = v;
      sum += (uint32_t)(int32_t)v;
    }
    /* int32 wrapping, as TFLite's accumulator. */
    data->init[o] = (int32_t)((uint32_t)(data->input_offset - 128) * sum);
  }
  return kTfLiteOk;
}

/* The INT8 / UINT8 fast path's packing (AVX2 CPUs, constant weights): the
 * weights plus their offset as int16 (UINT8: in [-255, 255]), the same
 * int32 sums as the loops above, 16 products per instruction
 * (quant_simd.c). */
static TfLiteStatus lg_fc_pack_int8(TfLiteContext* context, lg_fc_data* data,
                                    const TfLiteTensor* weights) {
  lg_fc_free_fast(data);
  const bool u8 = data->type == kTfLiteUInt8;
  if (!LG_GEMM_HAVE_X86 || (data->type != kTfLiteInt8 && !u8) ||
      (!u8 && data->weights_offset != 0) || !lg_nn_is_constant(weights) ||
      weights->data.data == NULL || data->in_depth <= 0 ||
      data->out_depth <= 0 || lg_gemm_isa_default() < LG_GEMM_ISA_AVX2) {
    return kTfLiteOk;
  }
  if (!u8 && lg_int8_vnni_supported()) {
    return lg_fc_pack_vnni(context, data, weights);
  }
  const int64_t k_pad = lg_int16_dot_pad(data->in_depth);
  data->k_pad = (int)k_pad;
  data->packed =
      calloc((size_t)data->out_depth * (size_t)k_pad, sizeof(int16_t));
  data->row = calloc((size_t)k_pad, sizeof(int16_t));
  data->sums = calloc((size_t)data->out_depth, sizeof(int32_t));
  if (data->packed == NULL || data->row == NULL || data->sums == NULL) {
    lg_fc_free_fast(data);
    lg_kernel_log(context, LG_FC_OP, "out of memory for the packed weights");
    return kTfLiteError;
  }
  lg_int16_rows_from_bytes(weights->data.data, u8, data->weights_offset,
                           (size_t)data->in_depth, data->out_depth,
                           data->in_depth, data->packed, data->k_pad);
  return kTfLiteOk;
}

/* One batch row of the INT8 / UINT8 fast path, its output channels split
 * over num_tasks tasks (in blocks of 16, the VNNI layout's): every task
 * reads the shared input row and writes its own channels' sums and
 * outputs. */
typedef struct lg_fc_fast_job {
  const lg_fc_data* data;
  const int32_t* bias;
  void* output; /* the row's outputs */
  int num_tasks;
} lg_fc_fast_job;

static void lg_fc_fast_task(void* ctx, int index) {
  const lg_fc_fast_job* job = ctx;
  const lg_fc_data* data = job->data;
  const int blocks = (data->out_depth + 15) / 16;
  const int o0 = (int)((int64_t)blocks * index / job->num_tasks) * 16;
  int o1 = (int)((int64_t)blocks * (index + 1) / job->num_tasks) * 16;
  if (o1 > data->out_depth) o1 = data->out_depth;
  if (o0 >= o1) return;
#if LG_GEMM_HAVE_X86
  if (data->packed8 != NULL) {
    lg_uint8_dots_vnni(data->row8, data->packed8 + (size_t)o0 * data->k4 * 4,
                       data->k4, o1 - o0, data->init + o0, data->sums + o0);
  } else {
    lg_int16_dots_avx2(data->row, data->packed + (size_t)o0 * data->k_pad,
                       data->k_pad, o1 - o0, data->sums + o0);
  }
#endif
  const bool u8 = data->type == kTfLiteUInt8;
#if LG_GEMM_HAVE_X86
  if (!u8 && lg_int8_avx512_supported()) {
    /* The INT8 rescale 8 outputs at a time (the libm round per output
     * cost more than the dot products of a small layer). */
    int32_t* acc = data->sums + o0;
    if (job->bias != NULL) {
      for (int o = o0; o < o1; ++o) {
        acc[o - o0] =
            (int32_t)((uint32_t)data->sums[o] + (uint32_t)job->bias[o]);
      }
    }
    lg_scale_round_int8_avx512(acc, data->effective_scales + o0, o1 - o0,
                               data->output_offset, data->act_min,
                               data->act_max, (int8_t*)job->output + o0);
    return;
  }
#endif
  for (int o = o0; o < o1; ++o) {
    const int32_t acc =
        job->bias != NULL
            ? (int32_t)((uint32_t)data->sums[o] + (uint32_t)job->bias[o])
            : data->sums[o];
    const int32_t v = lg_fc_finish(data, acc, o);
    if (u8) {
      ((uint8_t*)job->output)[o] = (uint8_t)v;
    } else {
      ((int8_t*)job->output)[o] = (int8_t)v;
    }
  }
}

/* input and output: INT8 or UINT8 (data->type). Each batch row's input is
 * prepared once (shared scratch), then its channels run as tasks. */
static void lg_fc_run_8bit_fast(const lg_fc_data* data, const void* input,
                                const int32_t* bias, void* output,
                                lg_thread_pool* pool) {
  const bool u8 = data->type == kTfLiteUInt8;
  const int64_t row_macs = (int64_t)data->in_depth * data->out_depth;
  lg_fc_fast_job job = {data, bias, NULL, 1};
  /* One byte of weights per multiply-add, each read once per row: the
   * stream of weights decides (see LG_GEMM_MIN_PARALLEL_B_BYTES). */
  if (row_macs >= LG_GEMM_MIN_PARALLEL_B_BYTES) {
    job.num_tasks = lg_thread_pool_tasks(pool, (data->out_depth + 15) / 16);
  }
  for (int b = 0; b < data->batch; ++b) {
    const size_t at = (size_t)b * data->in_depth;
#if LG_GEMM_HAVE_X86
    if (data->packed8 != NULL) {
      const uint8_t* in = (const uint8_t*)input + at;
      for (int i = 0; i < data->in_depth; ++i) data->row8[i] = in[i] ^ 0x80u;
    } else {
      lg_int16_rows_from_bytes((const uint8_t*)input + at, u8,
                               data->input_offset, 0, 1, data->in_depth,
                               data->row, data->k_pad);
    }
#endif
    job.output = (uint8_t*)output + (size_t)b * data->out_depth;
    lg_thread_pool_run(pool, lg_fc_fast_task, &job, job.num_tasks);
  }
}
LG_FC_QUANT_RUN(int16, int16_t, int8_t, int64_t)

static TfLiteStatus lg_fc_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_fc_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, LG_FC_OP, "invoked before a successful prepare");
    return kTfLiteError;
  }
  const TfLiteTensor* input;
  const TfLiteTensor* weights;
  const TfLiteTensor* bias = NULL;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_FC_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_FC_OP, kWeightsTensor, &weights));
  if (data->has_bias) {
    TF_LITE_ENSURE_STATUS(
        lg_kernel_input(context, node, LG_FC_OP, kBiasTensor, &bias));
  }
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_FC_OP, kOutputTensor, &output));
  const int64_t out_elements = (int64_t)data->batch * data->out_depth;
  if (lg_kernel_num_elements(input) != (int64_t)data->batch * data->in_depth ||
      lg_kernel_num_elements(output) != out_elements) {
    lg_kernel_log(context, LG_FC_OP, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (out_elements == 0) return kTfLiteOk;
  /* Prepacked weights were released at Prepare: their data may be gone. */
  if (input->data.data == NULL ||
      (weights->data.data == NULL && !data->prepacked) ||
      (bias != NULL && bias->data.data == NULL) || output->data.data == NULL) {
    lg_kernel_log(context, LG_FC_OP, "a tensor has no data");
    return kTfLiteError;
  }
  const int8_t* weights8 =
      data->unpacked != NULL ? data->unpacked : weights->data.int8;
  if (data->hybrid) {
    lg_fc_hybrid_run(&data->hybrid_data, data->batch, data->in_depth,
                     data->out_depth, input->data.f, weights8,
                     bias != NULL ? bias->data.f : NULL, data->min, data->max,
                     output->data.f);
    return kTfLiteOk;
  }
  if (data->quantized) {
    const void* bias_data = bias != NULL ? bias->data.data : NULL;
    if (data->packed != NULL || data->packed8 != NULL) {
      lg_fc_run_8bit_fast(data, input->data.data, bias_data, output->data.data,
                          lg_kernel_thread_pool(context));
    } else if (data->type == kTfLiteInt16) {
      lg_fc_run_int16(data, input->data.i16, weights8, bias_data,
                      output->data.i16);
    } else if (data->type == kTfLiteUInt8) {
      lg_fc_run_uint8(data, input->data.uint8, weights->data.uint8, bias_data,
                      output->data.uint8);
    } else {
      lg_fc_run_int8(data, input->data.int8, weights8, bias_data,
                     output->data.int8);
    }
    return kTfLiteOk;
  }

  float* scratch = lg_nn_temporary(context, node, LG_FC_OP, kScratchTemporary,
                                   data->scratch_floats);
  if (scratch == NULL) return kTfLiteError;
  lg_gemm gemm = lg_fc_gemm(data);
  gemm.a.data = input->data.f;
  if (data->prepacked) {
    gemm.b.packed = data->weights.data;
  } else {
    gemm.b.data = weights->data.f;
  }
  gemm.c = output->data.f;
  gemm.bias = bias != NULL ? bias->data.f : NULL;
  lg_gemm_run(&gemm, lg_kernel_thread_pool(context), scratch,
              data->scratch_floats);
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(FULLY_CONNECTED, lg_fc_init, lg_fc_free, lg_fc_prepare,
                       lg_fc_invoke)
