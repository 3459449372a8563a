/* CONV_3D_TRANSPOSE: FLOAT32 only. Inputs: the output shape (INT32, 5
 * values [N, OD, OH, OW, C_out]), the filter [KD, KH, KW, C_out, C_in],
 * the input [N, D, H, W, C_in] and an optional bias [C_out]. Conv3DOptions
 * as CONV_3D's. The output shape must be one a CONV_3D with these options
 * would turn back into the input's spatial size (TFLite's check), its batch
 * the input's and its channels the filter's.
 *
 * TFLite's reference kernel, step for step (so results match it bit for
 * bit): the output starts at zero, every input element adds input * filter
 * into each output it reaches (input position, input channel, filter
 * depth, height, width, output channel order), then the bias is added and
 * the activation clamps. A constant output shape sizes the output in
 * Prepare; otherwise the output is dynamic and sized in Invoke.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/nn.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_CONV3DT_OP "CONV_3D_TRANSPOSE"

enum { kShapeTensor = 0, kFilterTensor = 1, kInputTensor = 2, kBiasTensor = 3 };

typedef struct lg_conv3dt_data {
  bool prepared;
  bool dynamic;    /* the output shape is read in Invoke */
  bool configured; /* out[] and pad[] hold the current shapes' values */
  TfLitePadding padding;
  int out[5]; /* N, OD, OH, OW, C_out */
  int stride[3], dilation[3], pad[3];
  float act_min, act_max;
} lg_conv3dt_data;

static void* lg_conv3dt_init(TfLiteContext* context, const char* buffer,
                             size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_conv3dt_data));
}

/* Reads the output shape, checks it against the input and filter, computes
 * the padding and resizes the output. */
static TfLiteStatus lg_conv3dt_configure(TfLiteContext* context,
                                         lg_conv3dt_data* data,
                                         const TfLiteTensor* shape,
                                         const TfLiteTensor* filter,
                                         const TfLiteTensor* input,
                                         TfLiteTensor* output) {
  const char* op = LG_CONV3DT_OP;
  data->configured = false;
  if (shape->data.i32 == NULL) {
    lg_kernel_log(context, op, "output shape has no data");
    return kTfLiteError;
  }
  int out[5];
  memcpy(out, shape->data.i32, sizeof(out));
  for (int i = 0; i < 5; ++i) {
    if (out[i] < 0) {
      lg_kernel_log(context, op, "output shape[%d] = %d is negative", i,
                    out[i]);
      return kTfLiteError;
    }
  }
  const int* in = input->dims->data;
  const int* f = filter->dims->data;
  if (out[0] != in[0] || out[4] != f[3]) {
    lg_kernel_log(context, op,
                  "output shape batch %d and channels %d must be the input's "
                  "batch %d and the filter's dimension 3 (%d)",
                  out[0], out[4], in[0], f[3]);
    return kTfLiteError;
  }
  static const char* const kDims[3] = {"depth", "height", "width"};
  int64_t elements = (int64_t)out[0] * out[4];
  for (int i = 0; i < 3; ++i) {
    const int back = lg_nn_out_size(data->padding, out[i + 1], f[i],
                                    data->stride[i], data->dilation[i]);
    if (back != in[i + 1]) {
      lg_kernel_log(context, op,
                    "output %s %d gives %d under the filter, not the input's "
                    "%d",
                    kDims[i], out[i + 1], back, in[i + 1]);
      return kTfLiteError;
    }
    data->pad[i] = lg_nn_pad_before(out[i + 1], f[i], data->stride[i],
                                    data->dilation[i], in[i + 1]);
    elements *= out[i + 1];
    if (elements > INT32_MAX) {
      lg_kernel_log(context, op, "the output is too large");
      return kTfLiteError;
    }
  }
  memcpy(data->out, out, sizeof(out));
  TfLiteIntArray* dims = TfLiteIntArrayCreate(5);
  if (dims == NULL) {
    lg_kernel_log(context, op, "out of memory for the output shape");
    return kTfLiteError;
  }
  memcpy(dims->data, out, sizeof(out));
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, dims));
  data->configured = true;
  return kTfLiteOk;
}

static TfLiteStatus lg_conv3dt_get(TfLiteContext* context, TfLiteNode* node,
                                   const TfLiteTensor** shape,
                                   const TfLiteTensor** filter,
                                   const TfLiteTensor** input,
                                   const TfLiteTensor** bias,
                                   TfLiteTensor** output) {
  const char* op = LG_CONV3DT_OP;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kShapeTensor, shape));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kFilterTensor, filter));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kInputTensor, input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_optional_input(context, node, op, kBiasTensor, bias));
  return lg_kernel_output(context, node, op, 0, output);
}

static TfLiteStatus lg_conv3dt_prepare(TfLiteContext* context,
                                       TfLiteNode* node) {
  const char* op = LG_CONV3DT_OP;
  lg_conv3dt_data* data = node->user_data;
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
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 3, 4, 1));
  const TfLiteTensor *shape, *filter, *input, *bias;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_conv3dt_get(context, node, &shape, &filter, &input, &bias, &output));
  TF_LITE_ENSURE_STATUS(lg_nn_check_float(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_nn_check_float(context, op, "filter", filter));
  TF_LITE_ENSURE_STATUS(lg_nn_check_float(context, op, "output", output));
  TF_LITE_ENSURE_STATUS(lg_nn_check_rank(context, op, "input", input, 5));
  TF_LITE_ENSURE_STATUS(lg_nn_check_rank(context, op, "filter", filter, 5));
  TF_LITE_ENSURE_STATUS(
      lg_nn_check_rank(context, op, "output shape", shape, 1));
  if (shape->type != kTfLiteInt32 || shape->dims->data[0] != 5) {
    lg_kernel_log(context, op,
                  "output shape must be 5 INT32 values, got %d of %s",
                  shape->dims->data[0], TfLiteTypeGetName(shape->type));
    return kTfLiteError;
  }
  const int* in = input->dims->data;
  const int* f = filter->dims->data;
  if (in[4] != f[4]) {
    lg_kernel_log(context, op,
                  "input has %d channels, the filter takes %d (its "
                  "dimension 4)",
                  in[4], f[4]);
    return kTfLiteError;
  }
  for (int i = 0; i < 5; ++i) {
    if (f[i] < 1) {
      lg_kernel_log(context, op, "filter dimension %d is 0", i);
      return kTfLiteError;
    }
  }
  TF_LITE_ENSURE_STATUS(lg_nn_check_conv3d(context, op, params, bias, f[3],
                                           &data->act_min, &data->act_max));
  data->padding = params->padding;
  data->stride[0] = params->stride_depth;
  data->stride[1] = params->stride_height;
  data->stride[2] = params->stride_width;
  data->dilation[0] = params->dilation_depth_factor;
  data->dilation[1] = params->dilation_height_factor;
  data->dilation[2] = params->dilation_width_factor;
  data->configured = false;
  data->dynamic = !lg_kernel_is_constant(shape);
  if (data->dynamic) {
    lg_kernel_set_dynamic(output);
  } else {
    TF_LITE_ENSURE_STATUS(
        lg_conv3dt_configure(context, data, shape, filter, input, output));
  }
  data->prepared = true;
  return kTfLiteOk;
}

static TfLiteStatus lg_conv3dt_invoke(TfLiteContext* context,
                                      TfLiteNode* node) {
  const char* op = LG_CONV3DT_OP;
  lg_conv3dt_data* d = node->user_data;
  if (d == NULL || !d->prepared) {
    lg_kernel_log(context, op, "invoked before a successful prepare");
    return kTfLiteError;
  }
  const TfLiteTensor *shape, *filter, *input, *bias;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_conv3dt_get(context, node, &shape, &filter, &input, &bias, &output));
  if (d->dynamic) {
    TF_LITE_ENSURE_STATUS(
        lg_conv3dt_configure(context, d, shape, filter, input, output));
  }
  const int* in = input->dims->data;
  const int* fd = filter->dims->data;
  const int64_t out_count =
      (int64_t)d->out[0] * d->out[1] * d->out[2] * d->out[3] * d->out[4];
  if (!d->configured || input->dims->size != 5 || filter->dims->size != 5 ||
      lg_kernel_num_elements(output) != out_count) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (out_count == 0) return kTfLiteOk;
  if (output->data.f == NULL ||
      (lg_kernel_num_elements(input) > 0 && input->data.f == NULL) ||
      filter->data.f == NULL || (bias != NULL && bias->data.f == NULL)) {
    lg_kernel_log(context, op, "a tensor has no data");
    return kTfLiteError;
  }
  const float* x = input->data.f;
  const float* w = filter->data.f;
  float* y = output->data.f;
  const int ic = in[4], oc = d->out[4];
  const int kd = fd[0], kh = fd[1], kw = fd[2];
  const int od = d->out[1], oh = d->out[2], ow = d->out[3];
  for (int64_t i = 0; i < out_count; ++i) y[i] = 0.0f;
  for (int b = 0; b < in[0]; ++b) {
    for (int iz = 0; iz < in[1]; ++iz) {
      for (int iy = 0; iy < in[2]; ++iy) {
        for (int ix = 0; ix < in[3]; ++ix) {
          const int z0 = iz * d->stride[0] - d->pad[0];
          const int y0 = iy * d->stride[1] - d->pad[1];
          const int x0 = ix * d->stride[2] - d->pad[2];
          const float* xp =
              x + (((int64_t)b * in[1] + iz) * in[2] + iy) * in[3] * ic +
              (int64_t)ix * ic;
          for (int c = 0; c < ic; ++c) {
            const float v = xp[c];
            for (int fz = 0; fz < kd; ++fz) {
              const int oz = z0 + d->dilation[0] * fz;
              if (oz < 0 || oz >= od) continue;
              for (int fy = 0; fy < kh; ++fy) {
                const int oy = y0 + d->dilation[1] * fy;
                if (oy < 0 || oy >= oh) continue;
                for (int fx = 0; fx < kw; ++fx) {
                  const int ox = x0 + d->dilation[2] * fx;
                  if (ox < 0 || ox >= ow) continue;
                  float* yp =
                      y + ((((int64_t)b * od + oz) * oh + oy) * ow + ox) * oc;
                  const float* wp =
                      w + (((int64_t)fz * kh + fy) * kw + fx) * oc * ic + c;
                  for (int o = 0; o < oc; ++o) yp[o] += v * wp[o * ic];
                }
              }
            }
          }
        }
      }
    }
  }
  const float* bv = bias != NULL ? bias->data.f : NULL;
  for (int64_t i = 0; i < out_count; ++i) {
    const float v = bv != NULL ? y[i] + bv[i % oc] : y[i];
    y[i] = lg_kernel_clamp_float(v, d->act_min, d->act_max);
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(CONV_3D_TRANSPOSE, lg_conv3dt_init, lg_kernel_free_data,
                       lg_conv3dt_prepare, lg_conv3dt_invoke)
