/* GPU lowerings of the mediapipe family (ops/ops.def): MediaPipe's
 * MaxPoolingWithArgmax2D and MaxUnpooling2D (shaders/kernels/pool_argmax.lgk,
 * max_unpool.lgk). Convolution2DTransposeBias shares TRANSPOSE_CONV's
 * lowering (lower_conv_matmul.c). Semantics are the CPU kernels'
 * (runtime/kernels/mediapipe_ops.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/gpu/gpu_lower.h"
#include "runtime/kernels/mediapipe_ops.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

/* ---- MediaPipe's MaxPoolingWithArgmax2D and MaxUnpooling2D --------------
 *
 * Their custom options are a raw TfLitePoolParams (mediapipe_ops.h); the
 * shapes are the CPU kernels' (already in the context). Positions travel
 * as floats, as MediaPipe stores them. */

bool lg_gpu_limits_mediapipe_pool(LG_GPU_CHECK_ARGS) {
  TfLitePoolParams params;
  float lo, hi;
  const char* act;
  if (!lg_mediapipe_pool_params(node, &params) ||
      !lg_gpu_activation(params.activation, &lo, &hi, &act) || act[0] != '\0') {
    snprintf(reason, size, "unreadable options or an unsupported activation.");
    return false;
  }
  (void)registration;
  const TfLiteIntArray* lists[2] = {node->inputs, node->outputs};
  for (int l = 0; l < 2; ++l) {
    for (int i = 0; i < lists[l]->size; ++i) {
      const TfLiteTensor* t = lg_gpu_node_tensor(context, lists[l], i);
      const size_t n = lg_gpu_elements(t);
      if (lg_gpu_rank(t) != 4 || n == 0 || n > INT32_MAX) {
        snprintf(reason, size, "needs non-empty 4-D (NHWC) tensors.");
        return false;
      }
    }
  }
  return true;
}

/* The arguments both kernels share after their buffers: the pooled side's
 * [in_h, in_w] against the unpooled side's [out_h, out_w]. */
static void window_args(const int* pooled, const int* full,
                        const TfLitePoolParams* w, bool unpool,
                        lg_gpu_operand* args) {
  const int* in = unpool ? pooled : full;
  const int* out = unpool ? full : pooled;
  const lg_gpu_operand list[12] = {
      LG_GPU_INT(in[1]),
      LG_GPU_INT(in[2]),
      LG_GPU_INT(in[3]),
      LG_GPU_INT(out[1]),
      LG_GPU_INT(out[2]),
      LG_GPU_INT(out[0] * out[1]),
      LG_GPU_INT(w->stride_height),
      LG_GPU_INT(w->stride_width),
      LG_GPU_INT(w->filter_height),
      LG_GPU_INT(w->filter_width),
      LG_GPU_INT(lg_gpu_pool_padding(full[1], w->filter_height,
                                     w->stride_height, pooled[1])),
      LG_GPU_INT(lg_gpu_pool_padding(full[2], w->filter_width, w->stride_width,
                                     pooled[2])),
  };
  memcpy(args, list, sizeof(list));
}

TfLiteStatus lg_gpu_lower_mediapipe_pool(lg_gpu_program* p,
                                         TfLiteContext* context,
                                         const TfLiteNode* node,
                                         const TfLiteRegistration* reg) {
  TfLitePoolParams w;
  lg_mediapipe_pool_params(node, &w);
  const bool unpool = strcmp(reg->custom_name, LG_MEDIAPIPE_MAX_UNPOOL) == 0;
  char what[96];
  snprintf(what, sizeof(what), "%s over a %dx%d window", reg->custom_name,
           w.filter_height, w.filter_width);
  if (lg_gpu_lower_check_loops(
          p, (int64_t)(w.filter_height + 1) * (w.filter_width + 2) + 1, what) !=
      kTfLiteOk) {
    return kTfLiteError;
  }
  /* The pooled side is the argmax's output and the unpooling's input. */
  const int* pooled =
      unpool ? lg_gpu_node_tensor(context, node->inputs, 0)->dims->data
             : lg_gpu_node_tensor(context, node->outputs, 0)->dims->data;
  const int* full =
      unpool ? lg_gpu_node_tensor(context, node->outputs, 0)->dims->data
             : lg_gpu_node_tensor(context, node->inputs, 0)->dims->data;
  lg_gpu_operand args[17];
  if (unpool) {
    args[0] = LG_GPU_TENSOR(node->inputs->data[0]);
    args[1] = LG_GPU_TENSOR(node->inputs->data[1]);
    args[2] = LG_GPU_TENSOR(node->outputs->data[0]);
  } else {
    args[0] = LG_GPU_TENSOR(node->inputs->data[0]);
    args[1] = LG_GPU_TENSOR(node->outputs->data[0]);
    args[2] = LG_GPU_TENSOR(node->outputs->data[1]);
  }
  window_args(pooled, full, &w, unpool, args + 3);
  int count = 15;
  if (!unpool) {
    float lo, hi;
    const char* act;
    lg_gpu_activation(w.activation, &lo, &hi, &act);
    args[count++] = LG_GPU_FLOAT(lo);
    args[count++] = LG_GPU_FLOAT(hi);
  }
  const int* out = unpool ? full : pooled;
  const size_t global[3] = {(size_t)out[3], (size_t)out[2],
                            (size_t)out[0] * (size_t)out[1]};
  return lg_gpu_lower_dispatch(p, unpool ? "max_unpool" : "pool_argmax", "",
                               args, count, 3, global, NULL);
}
