/* MediaPipe's custom ops on the CPU (mediapipe_ops.h): their semantics are
 * MediaPipe's own kernels' (mediapipe/util/tflite/operations), with one
 * difference kept on purpose: MaxUnpooling2D ignores a position outside
 * [0, filter_h * filter_w) (MediaPipe decodes it into some other output
 * element), so an index tensor from anywhere never writes outside the
 * unpooled window.
 *
 * The transposed convolution's kernel is TRANSPOSE_CONV's column GEMM and
 * gather (transpose_conv.c; its sums in another order than MediaPipe's,
 * which adds the bias first); its geometry is read here. */
#include "runtime/kernels/mediapipe_ops.h"

#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "litegpu/mediapipe_ops.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/nn.h"
#include "tensorflow/lite/c/c_api_experimental.h"

/* ---- Options ---------------------------------------------------------------
 */

/* `count` little-endian int32 values from the node's custom options. */
static bool read_ints(const TfLiteNode* node, int count, int32_t* out) {
  const uint8_t* p = node->custom_initial_data;
  if (p == NULL || node->custom_initial_data_size < 4 * count) return false;
  for (int i = 0; i < count; ++i, p += 4) {
    out[i] = (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
                       (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
  }
  return true;
}

static bool valid_padding(int32_t padding) {
  return padding == kTfLitePaddingSame || padding == kTfLitePaddingValid;
}

bool lg_mediapipe_transpose_conv_params(const TfLiteNode* node,
                                        TfLiteTransposeConvParams* params) {
  int32_t v[3];
  if (!read_ints(node, 3, v) || !valid_padding(v[0]) || v[1] < 1 || v[2] < 1) {
    return false;
  }
  memset(params, 0, sizeof(*params));
  params->padding = (TfLitePadding)v[0];
  params->stride_width = v[1];
  params->stride_height = v[2];
  params->activation = kTfLiteActNone;
  return true;
}

bool lg_mediapipe_pool_params(const TfLiteNode* node,
                              TfLitePoolParams* params) {
  int32_t v[6];
  if (!read_ints(node, 6, v) || !valid_padding(v[0])) return false;
  for (int i = 1; i < 5; ++i) {
    if (v[i] < 1) return false;
  }
  memset(params, 0, sizeof(*params));
  params->padding = (TfLitePadding)v[0];
  params->stride_width = v[1];
  params->stride_height = v[2];
  params->filter_width = v[3];
  params->filter_height = v[4];
  params->activation = (TfLiteFusedActivation)v[5];
  return true;
}

int lg_mediapipe_transpose_conv_out(TfLitePadding padding, int in, int filter,
                                    int stride) {
  int pad_total = 0;
  if (padding == kTfLitePaddingSame) {
    pad_total = filter - (in - 1) % stride - 1;
    if (pad_total < 0) pad_total = 0;
  }
  return stride * (in - 1) + filter - pad_total;
}

/* ---- Shared checks ---------------------------------------------------------
 */

/* Every listed tensor float32 and 4-D (the rest of the node's shapes are
 * the kernel's). */
static TfLiteStatus check_float_4d(TfLiteContext* context, const char* op,
                                   const TfLiteTensor* const* tensors,
                                   int count) {
  for (int i = 0; i < count; ++i) {
    if (tensors[i]->type != kTfLiteFloat32) {
      lg_kernel_log(context, op,
                    "tensor type %s is not supported (expected "
                    "FLOAT32)",
                    TfLiteTypeGetName(tensors[i]->type));
      return kTfLiteError;
    }
  }
  if (tensors[0]->dims == NULL || tensors[0]->dims->size != 4) {
    lg_kernel_log(context, op, "the input must be 4-D");
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus resize4(TfLiteContext* context, TfLiteTensor* t, int n,
                            int h, int w, int c) {
  TfLiteIntArray* shape = TfLiteIntArrayCreate(4);
  if (shape == NULL) return kTfLiteError;
  shape->data[0] = n;
  shape->data[1] = h;
  shape->data[2] = w;
  shape->data[3] = c;
  return context->ResizeTensor(context, t, shape);
}

/* ---- Convolution2DTransposeBias -------------------------------------------
 */

#define TCB_OP LG_MEDIAPIPE_TRANSPOSE_CONV_BIAS

TfLiteStatus lg_mediapipe_transpose_conv_geometry(TfLiteContext* context,
                                                  const TfLiteNode* node,
                                                  lg_conv_geometry* g) {
  TfLiteTransposeConvParams params;
  if (!lg_mediapipe_transpose_conv_params(node, &params)) {
    lg_kernel_log(context, TCB_OP,
                  "custom options must hold a TfLiteTransposeConvParams "
                  "(padding SAME or VALID, strides >= 1; got %d bytes)",
                  node->custom_initial_data_size);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, TCB_OP, 3, 3, 1));
  const TfLiteTensor *in, *w, *b;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, TCB_OP, 0, &in));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, TCB_OP, 1, &w));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, TCB_OP, 2, &b));
  const TfLiteTensor* all[3] = {in, w, b};
  TF_LITE_ENSURE_STATUS(check_float_4d(context, TCB_OP, all, 3));
  if (w->dims->size != 4 || b->dims->size != 1 ||
      w->dims->data[0] != b->dims->data[0] ||
      w->dims->data[3] != in->dims->data[3]) {
    lg_kernel_log(context, TCB_OP,
                  "weights must be [O, kh, kw, I] with I the input's "
                  "channels, and the bias [O]");
    return kTfLiteError;
  }
  memset(g, 0, sizeof(*g));
  g->batch = in->dims->data[0];
  g->in_h = in->dims->data[1];
  g->in_w = in->dims->data[2];
  g->in_c = in->dims->data[3];
  g->out_c = w->dims->data[0];
  g->filter_h = w->dims->data[1];
  g->filter_w = w->dims->data[2];
  g->stride_h = params.stride_height;
  g->stride_w = params.stride_width;
  g->dilation_h = g->dilation_w = 1;
  g->out_h = lg_mediapipe_transpose_conv_out(params.padding, g->in_h,
                                             g->filter_h, g->stride_h);
  g->out_w = lg_mediapipe_transpose_conv_out(params.padding, g->in_w,
                                             g->filter_w, g->stride_w);
  g->pad_top = ((g->in_h - 1) * g->stride_h + g->filter_h - g->out_h) / 2;
  g->pad_left = ((g->in_w - 1) * g->stride_w + g->filter_w - g->out_w) / 2;
  g->act_min = -FLT_MAX;
  g->act_max = FLT_MAX;
  if (g->in_h < 1 || g->in_w < 1 || g->out_h < 1 || g->out_w < 1) {
    lg_kernel_log(context, TCB_OP, "empty input or output");
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* ---- MaxPoolingWithArgmax2D and MaxUnpooling2D -----------------------------
 */

/* A pooling window's geometry: output size and padding before. */
typedef struct window {
  TfLitePoolParams params;
  int pad_h, pad_w;
  float act_min, act_max;
} window;

static TfLiteStatus read_window(TfLiteContext* context, const TfLiteNode* node,
                                const char* op, window* win) {
  if (!lg_mediapipe_pool_params(node, &win->params)) {
    lg_kernel_log(context, op,
                  "custom options must hold a TfLitePoolParams (padding "
                  "SAME or VALID, strides and filter >= 1; got %d bytes)",
                  node->custom_initial_data_size);
    return kTfLiteError;
  }
  return lg_kernel_activation_range_float(context, op, win->params.activation,
                                          &win->act_min, &win->act_max);
}

/* TFLite's padding before a dim of a window op that maps `in` to `out`. */
static int pad_before(int in, int filter, int stride, int out) {
  const int64_t total = ((int64_t)out - 1) * stride + filter - in;
  return total > 0 ? (int)(total / 2) : 0;
}

#define ARGMAX_OP LG_MEDIAPIPE_MAX_POOL_ARGMAX

static int pool_out(const TfLitePoolParams* p, int in, int filter, int stride) {
  return p->padding == kTfLitePaddingSame ? (in + stride - 1) / stride
                                          : (in - filter + stride) / stride;
}

static TfLiteStatus argmax_prepare(TfLiteContext* context, TfLiteNode* node) {
  window win;
  TF_LITE_ENSURE_STATUS(read_window(context, node, ARGMAX_OP, &win));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, ARGMAX_OP, 1, 1, 2));
  const TfLiteTensor* in;
  TfLiteTensor *out, *indices;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, ARGMAX_OP, 0, &in));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, ARGMAX_OP, 0, &out));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, ARGMAX_OP, 1, &indices));
  const TfLiteTensor* all[3] = {in, out, indices};
  TF_LITE_ENSURE_STATUS(check_float_4d(context, ARGMAX_OP, all, 3));
  const int* d = in->dims->data;
  const TfLitePoolParams* p = &win.params;
  const int oh = pool_out(p, d[1], p->filter_height, p->stride_height);
  const int ow = pool_out(p, d[2], p->filter_width, p->stride_width);
  if (oh < 0 || ow < 0) {
    lg_kernel_log(context, ARGMAX_OP, "the window is larger than the input");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(resize4(context, out, d[0], oh, ow, d[3]));
  return resize4(context, indices, d[0], oh, ow, d[3]);
}

/* One output element: the window's maximum (the first one on ties; NaN
 * never wins) and its position in the window. */
static void argmax_element(const window* win, const float* in, const int* d,
                           int b, int oy, int ox, int c, float* value,
                           float* index) {
  const TfLitePoolParams* p = &win->params;
  const int y0 = oy * p->stride_height - win->pad_h;
  const int x0 = ox * p->stride_width - win->pad_w;
  float best = -FLT_MAX;
  int best_y = 0, best_x = 0;
  for (int fy = 0; fy < p->filter_height; ++fy) {
    if (y0 + fy < 0 || y0 + fy >= d[1]) continue;
    for (int fx = 0; fx < p->filter_width; ++fx) {
      if (x0 + fx < 0 || x0 + fx >= d[2]) continue;
      const float v =
          in[(((size_t)b * d[1] + y0 + fy) * d[2] + x0 + fx) * d[3] + c];
      if (v > best) {
        best = v;
        best_y = fy;
        best_x = fx;
      }
    }
  }
  *value = lg_kernel_clamp_float(best, win->act_min, win->act_max);
  *index = (float)(best_y * p->filter_width + best_x) + 0.1f;
}

static TfLiteStatus argmax_invoke(TfLiteContext* context, TfLiteNode* node) {
  window win;
  TF_LITE_ENSURE_STATUS(read_window(context, node, ARGMAX_OP, &win));
  const TfLiteTensor* in;
  TfLiteTensor *out, *indices;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, ARGMAX_OP, 0, &in));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, ARGMAX_OP, 0, &out));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, ARGMAX_OP, 1, &indices));
  const int* d = in->dims->data;
  const int oh = out->dims->data[1], ow = out->dims->data[2];
  win.pad_h =
      pad_before(d[1], win.params.filter_height, win.params.stride_height, oh);
  win.pad_w =
      pad_before(d[2], win.params.filter_width, win.params.stride_width, ow);
  size_t k = 0;
  for (int b = 0; b < d[0]; ++b) {
    for (int oy = 0; oy < oh; ++oy) {
      for (int ox = 0; ox < ow; ++ox) {
        for (int c = 0; c < d[3]; ++c, ++k) {
          argmax_element(&win, in->data.f, d, b, oy, ox, c, &out->data.f[k],
                         &indices->data.f[k]);
        }
      }
    }
  }
  return kTfLiteOk;
}

const TfLiteRegistration* lg_register_mediapipe_max_pool_argmax(void) {
  static const TfLiteRegistration registration = {
      .prepare = argmax_prepare,
      .invoke = argmax_invoke,
      .builtin_code = kTfLiteBuiltinCustom,
      .custom_name = LG_MEDIAPIPE_MAX_POOL_ARGMAX,
      .version = 1,
  };
  return &registration;
}

#define UNPOOL_OP LG_MEDIAPIPE_MAX_UNPOOL

static TfLiteStatus unpool_prepare(TfLiteContext* context, TfLiteNode* node) {
  window win;
  TF_LITE_ENSURE_STATUS(read_window(context, node, UNPOOL_OP, &win));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, UNPOOL_OP, 2, 2, 1));
  const TfLiteTensor *in, *indices;
  TfLiteTensor* out;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, UNPOOL_OP, 0, &in));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, UNPOOL_OP, 1, &indices));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, UNPOOL_OP, 0, &out));
  const TfLiteTensor* all[3] = {in, indices, out};
  TF_LITE_ENSURE_STATUS(check_float_4d(context, UNPOOL_OP, all, 3));
  if (!TfLiteIntArrayEqual(in->dims, indices->dims)) {
    lg_kernel_log(context, UNPOOL_OP,
                  "the indices must have the values' shape");
    return kTfLiteError;
  }
  const int* d = in->dims->data;
  return resize4(context, out, d[0], d[1] * win.params.filter_height,
                 d[2] * win.params.filter_width, d[3]);
}

static TfLiteStatus unpool_invoke(TfLiteContext* context, TfLiteNode* node) {
  window win;
  TF_LITE_ENSURE_STATUS(read_window(context, node, UNPOOL_OP, &win));
  const TfLiteTensor *in, *indices;
  TfLiteTensor* out;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, UNPOOL_OP, 0, &in));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, UNPOOL_OP, 1, &indices));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, UNPOOL_OP, 0, &out));
  const TfLitePoolParams* p = &win.params;
  const int* d = in->dims->data;
  const int oh = out->dims->data[1], ow = out->dims->data[2];
  /* MediaPipe's padding: the pooling that maps the output to the input. */
  const int pad_h = pad_before(oh, p->filter_height, p->stride_height, d[1]);
  const int pad_w = pad_before(ow, p->filter_width, p->stride_width, d[2]);
  const float positions = (float)(p->filter_height * p->filter_width);
  memset(out->data.raw, 0, out->bytes);
  size_t k = 0;
  for (int b = 0; b < d[0]; ++b) {
    for (int y = 0; y < d[1]; ++y) {
      for (int x = 0; x < d[2]; ++x) {
        for (int c = 0; c < d[3]; ++c, ++k) {
          const float at = indices->data.f[k];
          if (!(at >= 0.0f && at < positions)) continue;
          const int index = (int)at;
          const int oy = y * p->stride_height - pad_h + index / p->filter_width;
          const int ox = x * p->stride_width - pad_w + index % p->filter_width;
          if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
          out->data.f[(((size_t)b * oh + oy) * ow + ox) * d[3] + c] =
              in->data.f[k];
        }
      }
    }
  }
  return kTfLiteOk;
}

const TfLiteRegistration* lg_register_mediapipe_max_unpool(void) {
  static const TfLiteRegistration registration = {
      .prepare = unpool_prepare,
      .invoke = unpool_invoke,
      .builtin_code = kTfLiteBuiltinCustom,
      .custom_name = LG_MEDIAPIPE_MAX_UNPOOL,
      .version = 1,
  };
  return &registration;
}

/* ---- Registration ----------------------------------------------------------
 */

TfLiteStatus litegpu_add_mediapipe_ops(TfLiteInterpreterOptions* options) {
  if (options == NULL) return kTfLiteError;
  const TfLiteRegistration* ops[6] = {
      lg_register_mediapipe_transpose_conv_bias(),
      lg_register_mediapipe_max_pool_argmax(),
      lg_register_mediapipe_max_unpool(),
      lg_register_mediapipe_landmarks_to_matrix(),
      lg_register_mediapipe_transform_tensor_bilinear(),
      lg_register_mediapipe_transform_landmarks()};
  /* Each op at the one version its kernel implements: 1 for the first
   * three, 2 for the landmark ops. */
  for (int i = 0; i < 6; ++i) {
    TfLiteInterpreterOptionsAddCustomOp(options, ops[i]->custom_name, ops[i],
                                        ops[i]->version, ops[i]->version);
  }
  return kTfLiteOk;
}
