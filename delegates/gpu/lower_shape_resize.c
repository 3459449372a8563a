/* GPU lowerings of the shape family's resizes (ops/ops.def):
 * RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR (shaders/kernels/resize.lgk).
 * Source coordinates are computed here, on the host, with the CPU kernel's
 * float arithmetic (runtime/kernels/resize.c), into a small constant table,
 * so every index and weight is exactly the CPU's. Channels are read as
 * float4 where the channel count allows. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/gpu/gpu_lower.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/builtin_op_data.h"

/* ---- RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR ---------------------------- */

/* Both params structs hold (align_corners, half_pixel_centers). */
static void resize_flags(int32_t code, const void* params, bool* align,
                         bool* half_pixel) {
  *align = *half_pixel = false;
  if (params == NULL) return;
  if (code == kTfLiteBuiltinResizeBilinear) {
    const TfLiteResizeBilinearParams* b = params;
    *align = b->align_corners;
    *half_pixel = b->half_pixel_centers;
  } else {
    const TfLiteResizeNearestNeighborParams* n = params;
    *align = n->align_corners;
    *half_pixel = n->half_pixel_centers;
  }
}

bool lg_gpu_limits_resize(LG_GPU_CHECK_ARGS) {
  if (!lg_gpu_lower_check_sizes(context, node, reason, size)) return false;
  if (lg_gpu_rank(lg_gpu_node_tensor(context, node->inputs, 0)) != 4 ||
      lg_gpu_rank(lg_gpu_node_tensor(context, node->outputs, 0)) != 4) {
    snprintf(reason, size, "resizing needs a 4-D (NHWC) input and output.");
    return false;
  }
  bool align, half_pixel;
  resize_flags(registration->builtin_code, node->builtin_data, &align,
               &half_pixel);
  if (align && half_pixel) {
    snprintf(reason, size,
             "align_corners and half_pixel_centers cannot both be true.");
    return false;
  }
  return true;
}

/* The CPU kernel's scale from `in` to `out` positions (out > 0). */
static float resize_scale(int in, int out, bool align) {
  if (align && out > 1) return (float)(in - 1) / (float)(out - 1);
  return (float)in / (float)out;
}

/* Bilinear entries of `out` positions along one dim: lower and upper
 * source index and the float bits of the upper weight. */
static void bilinear_entries(int in, int out, bool align, bool half_pixel,
                             int32_t* t) {
  const float scale = resize_scale(in, out, align);
  for (int v = 0; v < out; ++v) {
    const float src =
        half_pixel ? ((float)v + 0.5f) * scale - 0.5f : (float)v * scale;
    const int f = (int)floorf(src);
    const int c = (int)ceilf(src);
    const int lo = f > 0 ? f : 0;
    const float d = src - (float)lo;
    t[3 * v] = lo;
    t[3 * v + 1] = c < in - 1 ? c : in - 1;
    memcpy(&t[3 * v + 2], &d, sizeof(d));
  }
}

/* Nearest source index of `out` positions along one dim. */
static void nearest_entries(int in, int out, bool align, bool half_pixel,
                            int32_t* t) {
  const float scale = resize_scale(in, out, align);
  for (int v = 0; v < out; ++v) {
    const float src = ((float)v + (half_pixel ? 0.5f : 0.0f)) * scale;
    int index = align ? (int)roundf(src) : (int)floorf(src);
    if (index > in - 1) index = in - 1;
    if (half_pixel && index < 0) index = 0;
    t[v] = index;
  }
}

/* The coordinate table (resize.lgk) as a device constant; its id or -1. */
static int resize_table(lg_gpu_program* p, bool nearest, const int* id,
                        const int* od, bool align, bool half_pixel) {
  const int per = nearest ? 1 : 3;
  const size_t count = (size_t)per * ((size_t)od[1] + (size_t)od[2]);
  int32_t* t = malloc(count * sizeof(int32_t));
  if (t == NULL) {
    lg_gpu_lower_fail(p, "out of host memory for a resize table");
    return -1;
  }
  if (nearest) {
    nearest_entries(id[1], od[1], align, half_pixel, t);
    nearest_entries(id[2], od[2], align, half_pixel, t + od[1]);
  } else {
    bilinear_entries(id[1], od[1], align, half_pixel, t);
    bilinear_entries(id[2], od[2], align, half_pixel, t + 3 * od[1]);
  }
  const int c = lg_gpu_lower_constant(p, t, count * sizeof(int32_t));
  free(t);
  return c;
}

TfLiteStatus lg_gpu_lower_resize(lg_gpu_program* p, TfLiteContext* context,
                                 const TfLiteNode* node,
                                 const TfLiteRegistration* reg) {
  const int* id = lg_gpu_node_tensor(context, node->inputs, 0)->dims->data;
  const int* od = lg_gpu_node_tensor(context, node->outputs, 0)->dims->data;
  bool align, half_pixel;
  resize_flags(reg->builtin_code, node->builtin_data, &align, &half_pixel);
  const bool nearest = reg->builtin_code == kTfLiteBuiltinResizeNearestNeighbor;
  const int table = resize_table(p, nearest, id, od, align, half_pixel);
  if (table < 0) return kTfLiteError;
  const int channels = id[3];
  const int vec = channels % 4 == 0 ? 4 : 1;
  char defines[48];
  snprintf(defines, sizeof(defines), "-DLG_VEC=%d%s", vec,
           nearest ? " -DLG_NEAREST" : "");
  const lg_gpu_operand args[] = {
      LG_GPU_TENSOR(node->inputs->data[0]),
      LG_GPU_TENSOR(node->outputs->data[0]),
      LG_GPU_CONSTANT(table),
      LG_GPU_INT(id[1]),
      LG_GPU_INT(id[2]),
      LG_GPU_INT(channels / vec),
      LG_GPU_INT(od[1]),
      LG_GPU_INT(od[2]),
      LG_GPU_INT(od[0] * od[1]),
  };
  const size_t global[3] = {(size_t)(channels / vec), (size_t)od[2],
                            (size_t)od[0] * (size_t)od[1]};
  return lg_gpu_lower_dispatch(p, "resize", defines, args,
                               (int)(sizeof(args) / sizeof(args[0])), 3, global,
                               NULL);
}
