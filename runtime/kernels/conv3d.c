/* CONV_3D: FLOAT32 only, input [N, D, H, W, C_in], filter [KD, KH, KW,
 * C_in, C_out], optional bias [C_out], output [N, OD, OH, OW, C_out].
 * Conv3DOptions: padding SAME / VALID, strides and dilations per spatial
 * dim, a fused activation (NONE, RELU, RELU_N1_TO_1, RELU6).
 *
 * A direct loop in TFLite's reference order: each output sums filter
 * depth, height, width and input channel in that order, skipping taps
 * outside the input (zero padding), then adds the bias and clamps, so
 * results agree with LiteRT's reference kernel bit for bit. Output sizes
 * (infinities clamp to float's finite extremes even without an
 * activation, as TFLite's range does) and padding follow TFLite (SAME: ceil(in
 * / stride); VALID: (in - dilated filter + stride) / stride; padding before is
 * half the total, rounded down); a geometry that leaves no output along a dim
 * is refused.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/nn.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_CONV3D_OP "CONV_3D"

typedef struct lg_conv3d_data {
  bool prepared;
  bool has_bias;
  int64_t in_elements, out_elements;
  int in[4];     /* D, H, W, C_in */
  int out[4];    /* OD, OH, OW, C_out */
  int filter[3]; /* KD, KH, KW */
  int stride[3], dilation[3], pad[3];
  float act_min, act_max;
} lg_conv3d_data;

static void* lg_conv3d_init(TfLiteContext* context, const char* buffer,
                            size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_conv3d_data));
}

static TfLiteStatus lg_conv3d_prepare(TfLiteContext* context,
                                      TfLiteNode* node) {
  const char* op = LG_CONV3D_OP;
  lg_conv3d_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, op, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  const TfLiteConv3DParams* params = node->builtin_data;
  if (params == NULL) {
    lg_kernel_log(context, op, "missing Conv3DOptions");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 3, 1));
  const TfLiteTensor *input, *filter, *bias;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &filter));
  TF_LITE_ENSURE_STATUS(lg_kernel_optional_input(context, node, op, 2, &bias));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_nn_check_float(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_nn_check_float(context, op, "filter", filter));
  TF_LITE_ENSURE_STATUS(lg_nn_check_float(context, op, "output", output));
  TF_LITE_ENSURE_STATUS(lg_nn_check_rank(context, op, "input", input, 5));
  TF_LITE_ENSURE_STATUS(lg_nn_check_rank(context, op, "filter", filter, 5));
  const int* in = input->dims->data;
  const int* f = filter->dims->data;
  if (in[4] != f[3]) {
    lg_kernel_log(context, op,
                  "input has %d channels, the filter takes %d (its "
                  "dimension 3)",
                  in[4], f[3]);
    return kTfLiteError;
  }
  for (int i = 0; i < 5; ++i) {
    if (f[i] < 1 || (i > 0 && in[i] < 1)) {
      lg_kernel_log(context, op, "%s dimension %d is 0",
                    f[i] < 1 ? "filter" : "input", i);
      return kTfLiteError;
    }
  }
  data->has_bias = bias != NULL;
  TF_LITE_ENSURE_STATUS(lg_nn_check_conv3d(context, op, params, bias, f[4],
                                           &data->act_min, &data->act_max));
  data->stride[0] = params->stride_depth;
  data->stride[1] = params->stride_height;
  data->stride[2] = params->stride_width;
  data->dilation[0] = params->dilation_depth_factor;
  data->dilation[1] = params->dilation_height_factor;
  data->dilation[2] = params->dilation_width_factor;
  static const char* const kDims[3] = {"depth", "height", "width"};
  int64_t out_elements = in[0];
  for (int i = 0; i < 3; ++i) {
    data->in[i] = in[i + 1];
    data->filter[i] = f[i];
    const int o = lg_nn_out_size(params->padding, in[i + 1], f[i],
                                 data->stride[i], data->dilation[i]);
    if (o < 1) {
      lg_kernel_log(context, op,
                    "the filter's %s (%d, dilation %d) leaves no output "
                    "from an input %s of %d",
                    kDims[i], f[i], data->dilation[i], kDims[i], in[i + 1]);
      return kTfLiteError;
    }
    data->out[i] = o;
    data->pad[i] = lg_nn_pad_before(in[i + 1], f[i], data->stride[i],
                                    data->dilation[i], o);
    out_elements *= o;
    if (out_elements > INT32_MAX) {
      lg_kernel_log(context, op, "the output is too large");
      return kTfLiteError;
    }
  }
  data->in[3] = in[4];
  data->out[3] = f[4];
  out_elements *= f[4];
  if (out_elements > INT32_MAX) {
    lg_kernel_log(context, op, "the output is too large");
    return kTfLiteError;
  }
  TfLiteIntArray* shape = TfLiteIntArrayCreate(5);
  if (shape == NULL) {
    lg_kernel_log(context, op, "out of memory for the output shape");
    return kTfLiteError;
  }
  shape->data[0] = in[0];
  for (int i = 0; i < 4; ++i) shape->data[i + 1] = data->out[i];
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, shape));
  data->in_elements = lg_kernel_num_elements(input);
  data->out_elements = out_elements;
  data->prepared = true;
  return kTfLiteOk;
}

static TfLiteStatus lg_conv3d_invoke(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_CONV3D_OP;
  const lg_conv3d_data* d = node->user_data;
  lg_nn_io io;
  bool empty = false;
  TF_LITE_ENSURE_STATUS(
      lg_nn_invoke_io(context, node, op, d != NULL && d->prepared, false,
                      d != NULL && d->has_bias, d != NULL ? d->in_elements : 0,
                      d != NULL ? d->out_elements : 0, &io, &empty));
  if (empty) return kTfLiteOk;
  const float* x = io.input->data.f;
  const float* w = io.filter->data.f;
  const float* bias = io.bias != NULL ? io.bias->data.f : NULL;
  float* y = io.output->data.f;
  const int batches = io.input->dims->data[0];
  const int ic = d->in[3], oc = d->out[3];
  const int64_t in_w_stride = ic;
  const int64_t in_h_stride = in_w_stride * d->in[2];
  const int64_t in_d_stride = in_h_stride * d->in[1];
  const int64_t in_b_stride = in_d_stride * d->in[0];
  const int64_t f_x_stride = (int64_t)ic * oc;
  const int64_t f_y_stride = f_x_stride * d->filter[2];
  const int64_t f_d_stride = f_y_stride * d->filter[1];
  for (int b = 0; b < batches; ++b) {
    for (int od = 0; od < d->out[0]; ++od) {
      const int d0 = od * d->stride[0] - d->pad[0];
      for (int oy = 0; oy < d->out[1]; ++oy) {
        const int y0 = oy * d->stride[1] - d->pad[1];
        for (int ox = 0; ox < d->out[2]; ++ox) {
          const int x0 = ox * d->stride[2] - d->pad[2];
          for (int o = 0; o < oc; ++o) {
            float total = 0.0f;
            for (int fd = 0; fd < d->filter[0]; ++fd) {
              const int id = d0 + d->dilation[0] * fd;
              if (id < 0 || id >= d->in[0]) continue;
              for (int fy = 0; fy < d->filter[1]; ++fy) {
                const int iy = y0 + d->dilation[1] * fy;
                if (iy < 0 || iy >= d->in[1]) continue;
                for (int fx = 0; fx < d->filter[2]; ++fx) {
                  const int ix = x0 + d->dilation[2] * fx;
                  if (ix < 0 || ix >= d->in[2]) continue;
                  const float* xp = x + b * in_b_stride + id * in_d_stride +
                                    iy * in_h_stride + ix * in_w_stride;
                  const float* wp = w + fd * f_d_stride + fy * f_y_stride +
                                    fx * f_x_stride + o;
                  for (int c = 0; c < ic; ++c) total += xp[c] * wp[c * oc];
                }
              }
            }
            const float v = total + (bias != NULL ? bias[o] : 0.0f);
            *y++ = lg_kernel_clamp_float(v, d->act_min, d->act_max);
          }
        }
      }
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(CONV_3D, lg_conv3d_init, lg_kernel_free_data,
                       lg_conv3d_prepare, lg_conv3d_invoke)
