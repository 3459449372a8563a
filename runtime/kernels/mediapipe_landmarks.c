/* MediaPipe's landmark custom ops on the CPU, version 2 of each (the
 * versions MediaPipe's face_landmark_with_attention model carries), written
 * from MediaPipe's definitions (mediapipe/util/tflite/operations and the
 * option parsers of TFLite's GPU delegate under
 * delegates/gpu/common/mediapipe):
 *
 *   Landmarks2TransformMatrix  landmarks [1, N, 3] -> [1, 4, 4]: the affine
 *     matrix that maps an output_width x output_height crop's pixel
 *     coordinates to the landmarks' coordinates. The crop is rotated by
 *     theta = atan2(right.y - left.y, right.x - left.x) -
 *     target_rotation_radians (left and right: the landmarks
 *     left_rotation_idx and right_rotation_idx); its centre and size are
 *     the bounding box of the subset_idxs landmarks measured in that rotated
 *     frame, its size scaled by scale_x and scale_y. With R the rotation by
 *     theta, c the box's centre (back in the landmarks' frame), w and h its
 *     size, sx = scale_x * w / output_width and sy = scale_y * h /
 *     output_height: M = T(c) R diag(sx, sy) T(-output_width / 2,
 *     -output_height / 2). FlexBuffers options: subset_idxs (a vector of
 *     ints, read as pairs; the points are all its entries), left_ and
 *     right_rotation_idx, target_rotation_radians, output_height,
 *     output_width, scale_x, scale_y.
 *   TransformTensorBilinear  a feature map [1, H, W, C] and a matrix
 *     [1, 4, 4] -> [1, output_height, output_width, C]: output pixel (x, y)
 *     samples the input bilinearly at the matrix's first two rows applied
 *     to (x + 0.5, y + 0.5, 0, 1), minus 0.5 (pixel centres: MediaPipe's
 *     align-corners correction); a sample point outside [0, W - 1] x
 *     [0, H - 1] gives 0. FlexBuffers options: output_height, output_width.
 *   TransformLandmarks  landmarks [1, N, 2 or 3] and a matrix [1, 4, 4] ->
 *     landmarks: (x, y) becomes the matrix's first two rows applied to
 *     (x, y, 0, 1); z is kept. No options.
 *
 * Differences kept on purpose: every index is checked against N (MediaPipe
 * reads whatever lies there), an empty subset is an error (MediaPipe reads
 * past its vector), a NaN sample point gives 0, and the shapes are checked
 * in Prepare (batch 1, the matrix [1, 4, 4]). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/mediapipe_ops.h"
#include "runtime/model/flexbuffers.h"
#include "tensorflow/lite/c/c_api_types.h"

#define L2M_OP LG_MEDIAPIPE_LANDMARKS_TO_MATRIX
#define TTB_OP LG_MEDIAPIPE_TRANSFORM_TENSOR_BILINEAR
#define TLM_OP LG_MEDIAPIPE_TRANSFORM_LANDMARKS

/* ---- Options -------------------------------------------------------------
 */

typedef struct landmarks_options {
  bool ok;
  char error[200];
  /* Landmarks2TransformMatrix. */
  int32_t* subset; /* subset_idxs' entries */
  size_t subset_count;
  int left, right;
  float target_rotation;
  float scale_x, scale_y;
  /* Both ops with options. */
  int out_h, out_w;
} landmarks_options;

static bool read_float(lg_flex_map* map, const char* key, float* out,
                       char* error, size_t size) {
  lg_flex_number n;
  if (!lg_flex_map_number(map, key, &n)) {
    snprintf(error, size, "custom options: %s", map->error);
    return false;
  }
  *out = (float)n.d;
  return true;
}

/* output_height and output_width, both required and >= 1. */
static bool read_output_size(lg_flex_map* map, landmarks_options* o) {
  const size_t n = sizeof(o->error);
  bool has_h = false, has_w = false;
  if (!lg_flex_map_int32(map, "output_height", &o->out_h, &has_h, o->error,
                         n) ||
      !lg_flex_map_int32(map, "output_width", &o->out_w, &has_w, o->error, n)) {
    return false;
  }
  if (!has_h || !has_w) {
    snprintf(o->error, n,
             "custom options must set output_height and "
             "output_width");
    return false;
  }
  if (o->out_h < 1 || o->out_w < 1) {
    snprintf(o->error, n,
             "output size %d x %d (height x width) is not "
             "positive",
             o->out_h, o->out_w);
    return false;
  }
  return true;
}

static void read_matrix_options(landmarks_options* o, const uint8_t* buffer,
                                size_t length) {
  char* err = o->error;
  const size_t n = sizeof(o->error);
  lg_flex_map map;
  if (!lg_flex_open_map(buffer, length, &map)) {
    snprintf(err, n, "custom options: %s", map.error);
    return;
  }
  size_t count = 0;
  bool found = false;
  if (!lg_flex_map_int32_vector(&map, "subset_idxs", NULL, 0, &count, &found)) {
    snprintf(err, n, "custom options: %s", map.error);
    return;
  }
  if (count == 0) {
    snprintf(err, n, "custom options: subset_idxs is %s",
             found ? "empty" : "missing");
    return;
  }
  o->subset = malloc(count * sizeof(int32_t));
  if (o->subset == NULL) {
    snprintf(err, n, "out of memory for %zu subset indices", count);
    return;
  }
  o->subset_count = count;
  if (!lg_flex_map_int32_vector(&map, "subset_idxs", o->subset, count, &count,
                                &found) ||
      !lg_flex_map_int32(&map, "left_rotation_idx", &o->left, NULL, err, n) ||
      !lg_flex_map_int32(&map, "right_rotation_idx", &o->right, NULL, err, n) ||
      !read_float(&map, "target_rotation_radians", &o->target_rotation, err,
                  n) ||
      !read_float(&map, "scale_x", &o->scale_x, err, n) ||
      !read_float(&map, "scale_y", &o->scale_y, err, n) ||
      !read_output_size(&map, o)) {
    if (err[0] == '\0') snprintf(err, n, "custom options: %s", map.error);
    return;
  }
  if (!(o->scale_x > 0.0f) || !(o->scale_y > 0.0f)) {
    snprintf(err, n, "scale_x (%g) and scale_y (%g) must be positive",
             (double)o->scale_x, (double)o->scale_y);
    return;
  }
  if (!isfinite(o->target_rotation) || !isfinite(o->scale_x) ||
      !isfinite(o->scale_y)) {
    snprintf(err, n,
             "target_rotation_radians, scale_x and scale_y must be "
             "finite");
    return;
  }
  o->ok = true;
}

static void* matrix_init(TfLiteContext* context, const char* buffer,
                         size_t length) {
  (void)context;
  landmarks_options* o = calloc(1, sizeof(*o));
  if (o != NULL) read_matrix_options(o, (const uint8_t*)buffer, length);
  return o;
}

static void* bilinear_init(TfLiteContext* context, const char* buffer,
                           size_t length) {
  (void)context;
  landmarks_options* o = calloc(1, sizeof(*o));
  if (o == NULL) return NULL;
  lg_flex_map map;
  if (!lg_flex_open_map((const uint8_t*)buffer, length, &map)) {
    snprintf(o->error, sizeof(o->error), "custom options: %s", map.error);
  } else if (read_output_size(&map, o)) {
    o->ok = true;
  }
  return o;
}

static void options_free(TfLiteContext* context, void* buffer) {
  (void)context;
  landmarks_options* o = buffer;
  if (o == NULL) return;
  free(o->subset);
  free(o);
}

static TfLiteStatus check_options(TfLiteContext* context,
                                  const TfLiteNode* node, const char* op) {
  const landmarks_options* o = node->user_data;
  if (o == NULL) {
    lg_kernel_log(context, op, "out of memory for the options");
    return kTfLiteError;
  }
  if (!o->ok) {
    lg_kernel_log(context, op, "%s", o->error);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* ---- Shared checks --------------------------------------------------------
 */

static TfLiteStatus check_float(TfLiteContext* context, const char* op,
                                const char* what, const TfLiteTensor* t) {
  if (t->type != kTfLiteFloat32) {
    lg_kernel_log(context, op, "%s has type %s (expected FLOAT32)", what,
                  TfLiteTypeGetName(t->type));
    return kTfLiteError;
  }
  return lg_kernel_check_shape(context, op, what, t);
}

/* Landmarks [1, N, dims] with N >= 1 and dims one of the allowed. */
static TfLiteStatus check_landmarks(TfLiteContext* context, const char* op,
                                    const TfLiteTensor* t, int min_dims,
                                    int max_dims) {
  TF_LITE_ENSURE_STATUS(check_float(context, op, "the landmarks", t));
  const TfLiteIntArray* d = t->dims;
  if (d->size != 3 || d->data[0] != 1 || d->data[1] < 1 ||
      d->data[2] < min_dims || d->data[2] > max_dims) {
    char shape[64];
    if (min_dims == max_dims) {
      lg_kernel_log(context, op, "the landmarks must be [1, N, %d], not %s",
                    min_dims, lg_kernel_format_shape(d, shape, sizeof(shape)));
    } else {
      lg_kernel_log(
          context, op, "the landmarks must be [1, N, %d] or [1, N, %d], not %s",
          min_dims, max_dims, lg_kernel_format_shape(d, shape, sizeof(shape)));
    }
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus check_matrix(TfLiteContext* context, const char* op,
                                 const TfLiteTensor* t) {
  TF_LITE_ENSURE_STATUS(check_float(context, op, "the matrix", t));
  const TfLiteIntArray* d = t->dims;
  if (d->size != 3 || d->data[0] != 1 || d->data[1] != 4 || d->data[2] != 4) {
    char shape[64];
    lg_kernel_log(context, op, "the matrix must be [1, 4, 4], not %s",
                  lg_kernel_format_shape(d, shape, sizeof(shape)));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus resize(TfLiteContext* context, TfLiteTensor* t, int rank,
                           const int* dims) {
  TfLiteIntArray* shape = TfLiteIntArrayCreate(rank);
  if (shape == NULL) return kTfLiteError;
  for (int i = 0; i < rank; ++i) shape->data[i] = dims[i];
  return context->ResizeTensor(context, t, shape);
}

/* ---- Landmarks2TransformMatrix --------------------------------------------
 */

static TfLiteStatus check_index(TfLiteContext* context, const char* what,
                                int index, int count) {
  if (index < 0 || index >= count) {
    lg_kernel_log(context, L2M_OP, "%s = %d is out of range for %d landmarks",
                  what, index, count);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus matrix_prepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_STATUS(check_options(context, node, L2M_OP));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, L2M_OP, 1, 1, 1));
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, L2M_OP, 0, &in));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, L2M_OP, 0, &out));
  TF_LITE_ENSURE_STATUS(check_landmarks(context, L2M_OP, in, 3, 3));
  if (out->type != kTfLiteFloat32) {
    lg_kernel_log(context, L2M_OP, "the output has type %s (expected FLOAT32)",
                  TfLiteTypeGetName(out->type));
    return kTfLiteError;
  }
  const landmarks_options* o = node->user_data;
  const int count = in->dims->data[1];
  TF_LITE_ENSURE_STATUS(
      check_index(context, "left_rotation_idx", o->left, count));
  TF_LITE_ENSURE_STATUS(
      check_index(context, "right_rotation_idx", o->right, count));
  for (size_t i = 0; i < o->subset_count; ++i) {
    char what[48];
    snprintf(what, sizeof(what), "subset_idxs[%zu]", i);
    TF_LITE_ENSURE_STATUS(check_index(context, what, o->subset[i], count));
  }
  static const int kShape[3] = {1, 4, 4};
  return resize(context, out, 3, kShape);
}

static TfLiteStatus matrix_invoke(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, L2M_OP, 0, &in));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, L2M_OP, 0, &out));
  const landmarks_options* o = node->user_data;
  const float* p = in->data.f;
  const double theta = atan2((double)p[3 * o->right + 1] - p[3 * o->left + 1],
                             (double)p[3 * o->right] - p[3 * o->left]) -
                       o->target_rotation;
  const double c = cos(theta), s = sin(theta);
  /* The subset's bounding box in the frame rotated by -theta (there the
   * crop is upright). */
  double min_x = INFINITY, min_y = INFINITY;
  double max_x = -INFINITY, max_y = -INFINITY;
  for (size_t i = 0; i < o->subset_count; ++i) {
    const double x = p[3 * o->subset[i]], y = p[3 * o->subset[i] + 1];
    const double u = c * x + s * y, v = -s * x + c * y;
    min_x = fmin(min_x, u);
    max_x = fmax(max_x, u);
    min_y = fmin(min_y, v);
    max_y = fmax(max_y, v);
  }
  const double mid_u = (min_x + max_x) / 2, mid_v = (min_y + max_y) / 2;
  const double center_x = c * mid_u - s * mid_v;
  const double center_y = s * mid_u + c * mid_v;
  const double sx = o->scale_x * (max_x - min_x) / o->out_w;
  const double sy = o->scale_y * (max_y - min_y) / o->out_h;
  /* The 2x2 block R diag(sx, sy), then the translation that sends the
   * crop's centre (out_w / 2, out_h / 2) to the box's centre. */
  const double a = c * sx, b = -s * sy, d = s * sx, e = c * sy;
  const double half_w = o->out_w / 2.0, half_h = o->out_h / 2.0;
  const float m[16] = {
      (float)a, (float)b, 0.0f, (float)(center_x - a * half_w - b * half_h),
      (float)d, (float)e, 0.0f, (float)(center_y - d * half_w - e * half_h),
      0.0f,     0.0f,     1.0f, 0.0f,
      0.0f,     0.0f,     0.0f, 1.0f};
  memcpy(out->data.f, m, sizeof(m));
  return kTfLiteOk;
}

const TfLiteRegistration* lg_register_mediapipe_landmarks_to_matrix(void) {
  static const TfLiteRegistration registration = {
      .init = matrix_init,
      .free = options_free,
      .prepare = matrix_prepare,
      .invoke = matrix_invoke,
      .builtin_code = kTfLiteBuiltinCustom,
      .custom_name = LG_MEDIAPIPE_LANDMARKS_TO_MATRIX,
      .version = 2,
  };
  return &registration;
}

/* ---- TransformTensorBilinear ----------------------------------------------
 */

static TfLiteStatus bilinear_prepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_STATUS(check_options(context, node, TTB_OP));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, TTB_OP, 2, 2, 1));
  const TfLiteTensor *in, *matrix;
  TfLiteTensor* out;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, TTB_OP, 0, &in));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, TTB_OP, 1, &matrix));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, TTB_OP, 0, &out));
  TF_LITE_ENSURE_STATUS(check_float(context, TTB_OP, "the input", in));
  TF_LITE_ENSURE_STATUS(check_matrix(context, TTB_OP, matrix));
  const TfLiteIntArray* d = in->dims;
  if (d->size != 4 || d->data[0] != 1) {
    char shape[64];
    lg_kernel_log(context, TTB_OP, "the input must be [1, H, W, C], not %s",
                  lg_kernel_format_shape(d, shape, sizeof(shape)));
    return kTfLiteError;
  }
  if (out->type != kTfLiteFloat32) {
    lg_kernel_log(context, TTB_OP, "the output has type %s (expected FLOAT32)",
                  TfLiteTypeGetName(out->type));
    return kTfLiteError;
  }
  const landmarks_options* o = node->user_data;
  if ((int64_t)o->out_h * o->out_w * d->data[3] > INT32_MAX) {
    lg_kernel_log(context, TTB_OP, "the output %d x %d x %d is too large",
                  o->out_h, o->out_w, d->data[3]);
    return kTfLiteError;
  }
  const int shape[4] = {1, o->out_h, o->out_w, d->data[3]};
  return resize(context, out, 4, shape);
}

static TfLiteStatus bilinear_invoke(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor *in, *matrix;
  TfLiteTensor* out;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, TTB_OP, 0, &in));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, TTB_OP, 1, &matrix));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, TTB_OP, 0, &out));
  const int h = in->dims->data[1], w = in->dims->data[2];
  const int channels = in->dims->data[3];
  const int out_h = out->dims->data[1], out_w = out->dims->data[2];
  const float* m = matrix->data.f;
  /* Rows 0 and 1 with the pixel-centre correction folded into the
   * translation: sample = M (x + 0.5, y + 0.5) - 0.5. */
  const float ax = m[0], ay = m[1];
  const float at = m[3] + 0.5f * m[0] + 0.5f * m[1] - 0.5f;
  const float bx = m[4], by = m[5];
  const float bt = m[7] + 0.5f * m[4] + 0.5f * m[5] - 0.5f;
  const float* src = in->data.f;
  float* dst = out->data.f;
  for (int y = 0; y < out_h; ++y) {
    for (int x = 0; x < out_w; ++x, dst += channels) {
      const float sx = ax * (float)x + ay * (float)y + at;
      const float sy = bx * (float)x + by * (float)y + bt;
      /* Outside [0, w - 1] x [0, h - 1], or NaN: zeros. */
      if (!(sx >= 0.0f && sx <= (float)(w - 1) && sy >= 0.0f &&
            sy <= (float)(h - 1))) {
        memset(dst, 0, (size_t)channels * sizeof(float));
        continue;
      }
      const int x0 = (int)floorf(sx), y0 = (int)floorf(sy);
      const float fx = sx - (float)x0, fy = sy - (float)y0;
      /* The right column and lower row exist unless the point lies on the
       * last one (then their weight is 0). */
      const int x1 = x0 + 1 < w ? x0 + 1 : x0;
      const int y1 = y0 + 1 < h ? y0 + 1 : y0;
      const float* q00 = src + ((size_t)y0 * w + x0) * channels;
      const float* q01 = src + ((size_t)y0 * w + x1) * channels;
      const float* q10 = src + ((size_t)y1 * w + x0) * channels;
      const float* q11 = src + ((size_t)y1 * w + x1) * channels;
      const float wx1 = x0 + 1 < w ? fx : 0.0f;
      const float wy1 = y0 + 1 < h ? fy : 0.0f;
      for (int k = 0; k < channels; ++k) {
        const float upper = (1.0f - wx1) * q00[k] + wx1 * q01[k];
        const float lower = (1.0f - wx1) * q10[k] + wx1 * q11[k];
        dst[k] = wy1 * lower + (1.0f - wy1) * upper;
      }
    }
  }
  return kTfLiteOk;
}

const TfLiteRegistration* lg_register_mediapipe_transform_tensor_bilinear(
    void) {
  static const TfLiteRegistration registration = {
      .init = bilinear_init,
      .free = options_free,
      .prepare = bilinear_prepare,
      .invoke = bilinear_invoke,
      .builtin_code = kTfLiteBuiltinCustom,
      .custom_name = LG_MEDIAPIPE_TRANSFORM_TENSOR_BILINEAR,
      .version = 2,
  };
  return &registration;
}

/* ---- TransformLandmarks ---------------------------------------------------
 */

static TfLiteStatus transform_prepare(TfLiteContext* context,
                                      TfLiteNode* node) {
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, TLM_OP, 2, 2, 1));
  const TfLiteTensor *in, *matrix;
  TfLiteTensor* out;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, TLM_OP, 0, &in));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, TLM_OP, 1, &matrix));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, TLM_OP, 0, &out));
  TF_LITE_ENSURE_STATUS(check_landmarks(context, TLM_OP, in, 2, 3));
  TF_LITE_ENSURE_STATUS(check_matrix(context, TLM_OP, matrix));
  if (out->type != kTfLiteFloat32) {
    lg_kernel_log(context, TLM_OP, "the output has type %s (expected FLOAT32)",
                  TfLiteTypeGetName(out->type));
    return kTfLiteError;
  }
  return resize(context, out, 3, in->dims->data);
}

static TfLiteStatus transform_invoke(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor *in, *matrix;
  TfLiteTensor* out;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, TLM_OP, 0, &in));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, TLM_OP, 1, &matrix));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, TLM_OP, 0, &out));
  const int count = in->dims->data[1], dims = in->dims->data[2];
  const float* m = matrix->data.f;
  const float* src = in->data.f;
  float* dst = out->data.f;
  for (int i = 0; i < count; ++i, src += dims, dst += dims) {
    const float x = src[0], y = src[1];
    dst[0] = m[0] * x + m[1] * y + m[3];
    dst[1] = m[4] * x + m[5] * y + m[7];
    if (dims == 3) dst[2] = src[2];
  }
  return kTfLiteOk;
}

const TfLiteRegistration* lg_register_mediapipe_transform_landmarks(void) {
  static const TfLiteRegistration registration = {
      .prepare = transform_prepare,
      .invoke = transform_invoke,
      .builtin_code = kTfLiteBuiltinCustom,
      .custom_name = LG_MEDIAPIPE_TRANSFORM_LANDMARKS,
      .version = 2,
  };
  return &registration;
}
