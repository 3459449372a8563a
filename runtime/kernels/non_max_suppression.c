/* NON_MAX_SUPPRESSION_V4 and NON_MAX_SUPPRESSION_V5: greedy selection of
 * boxes by score, dropping boxes that overlap a selected one too much.
 *
 * Inputs: boxes FLOAT32 [N, 4] (y1, x1, y2, x2: two opposite corners in
 * either order), scores FLOAT32 [N], max_output_size INT32 scalar,
 * iou_threshold and score_threshold FLOAT32 scalars; V5 adds soft_nms_sigma
 * (FLOAT32 scalar, >= 0).
 * Outputs: selected_indices INT32 [max_output_size] (zeros after the
 * selected ones), V5's selected_scores FLOAT32 [max_output_size] (zeros
 * after them), valid_outputs INT32 scalar.
 *
 * The selection is TFLite's: the candidates are the boxes whose score is
 * above score_threshold, held in a max-heap by score; the top candidate is
 * compared with the boxes selected since it was last looked at (newest
 * first); an IoU >= iou_threshold drops it; with sigma > 0 each smaller IoU
 * multiplies its score by exp(-0.5 / sigma * iou^2), and a candidate whose
 * score changed goes back into the heap (if still above the threshold)
 * instead of being selected. Equal scores come out of the heap in the order
 * TFLite's std::priority_queue (libstdc++'s push_heap / pop_heap) gives
 * them, which this file's heap reproduces step for step; so ties select the
 * same boxes as TFLite.
 *
 * With a constant max_output_size the outputs are shaped in Prepare, else
 * they are dynamic and shaped in Invoke. The heap is sized for N in Prepare.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/common.h"

enum {
  kLgNmsBoxes = 0,
  kLgNmsScores = 1,
  kLgNmsMaxOutputSize = 2,
  kLgNmsIouThreshold = 3,
  kLgNmsScoreThreshold = 4,
  kLgNmsSigma = 5,
};

typedef struct lg_nms_candidate {
  int index;
  float score;
  int suppress_begin; /* selections before this one were compared */
} lg_nms_candidate;

typedef struct lg_nms_data {
  bool soft; /* V5 */
  lg_nms_candidate* heap;
  int capacity;
} lg_nms_data;

static const char* lg_nms_name(const lg_nms_data* data) {
  return data->soft ? "NON_MAX_SUPPRESSION_V5" : "NON_MAX_SUPPRESSION_V4";
}

static void* lg_nms_init_common(bool soft) {
  lg_nms_data* data = calloc(1, sizeof(lg_nms_data));
  if (data != NULL) data->soft = soft;
  return data;
}

static void* lg_nms_init_v4(TfLiteContext* context, const char* buffer,
                            size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return lg_nms_init_common(false);
}

static void* lg_nms_init_v5(TfLiteContext* context, const char* buffer,
                            size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return lg_nms_init_common(true);
}

static void lg_nms_free(TfLiteContext* context, void* buffer) {
  (void)context;
  lg_nms_data* data = buffer;
  if (data == NULL) return;
  free(data->heap);
  free(data);
}

/* ---- The heap: libstdc++'s std::push_heap / std::pop_heap with the
 * comparison "a's score < b's score", so that equal scores leave it in the
 * same order as from TFLite's priority queue. */

static bool lg_nms_less(const lg_nms_candidate* a, const lg_nms_candidate* b) {
  return a->score < b->score;
}

/* Moves `value` up from the hole at `hole` towards `top`. */
static void lg_nms_sift_up(lg_nms_candidate* heap, int hole, int top,
                           lg_nms_candidate value) {
  int parent = (hole - 1) / 2;
  while (hole > top && lg_nms_less(&heap[parent], &value)) {
    heap[hole] = heap[parent];
    hole = parent;
    parent = (hole - 1) / 2;
  }
  heap[hole] = value;
}

static void lg_nms_push(lg_nms_candidate* heap, int* size,
                        lg_nms_candidate value) {
  const int hole = (*size)++;
  lg_nms_sift_up(heap, hole, 0, value);
}

/* Removes heap[0] (the caller has read it): the hole at the root moves down
 * along the larger child (the right one on ties) to a leaf, and the last
 * element is sifted up from there. */
static void lg_nms_pop(lg_nms_candidate* heap, int* size) {
  const int len = --(*size);
  if (len <= 0) return;
  const lg_nms_candidate value = heap[len];
  int hole = 0;
  int child = 0;
  while (child < (len - 1) / 2) {
    child = 2 * (child + 1);
    if (lg_nms_less(&heap[child], &heap[child - 1])) --child;
    heap[hole] = heap[child];
    hole = child;
  }
  if ((len & 1) == 0 && child == (len - 2) / 2) {
    child = 2 * (child + 1);
    heap[hole] = heap[child - 1];
    hole = child - 1;
  }
  lg_nms_sift_up(heap, hole, 0, value);
}

/* ---- Geometry ---------------------------------------------------------------
 */

/* std::min and std::max as TFLite calls them (NaN handling included). */
static float lg_nms_min(float a, float b) { return b < a ? b : a; }
static float lg_nms_max(float a, float b) { return a < b ? b : a; }

/* The IoU of boxes i and j; 0 when either has no area. */
static float lg_nms_iou(const float* boxes, int i, int j) {
  const float* a = boxes + 4 * (size_t)i;
  const float* b = boxes + 4 * (size_t)j;
  const float a_ymin = lg_nms_min(a[0], a[2]), a_ymax = lg_nms_max(a[0], a[2]);
  const float a_xmin = lg_nms_min(a[1], a[3]), a_xmax = lg_nms_max(a[1], a[3]);
  const float b_ymin = lg_nms_min(b[0], b[2]), b_ymax = lg_nms_max(b[0], b[2]);
  const float b_xmin = lg_nms_min(b[1], b[3]), b_xmax = lg_nms_max(b[1], b[3]);
  const float area_a = (a_ymax - a_ymin) * (a_xmax - a_xmin);
  const float area_b = (b_ymax - b_ymin) * (b_xmax - b_xmin);
  if (area_a <= 0.0f || area_b <= 0.0f) return 0.0f;
  const float h = lg_nms_min(a_ymax, b_ymax) - lg_nms_max(a_ymin, b_ymin);
  const float w = lg_nms_min(a_xmax, b_xmax) - lg_nms_max(a_xmin, b_xmin);
  const float inter = lg_nms_max(h, 0.0f) * lg_nms_max(w, 0.0f);
  return inter / (area_a + area_b - inter);
}

/* ---- Prepare / Invoke ------------------------------------------------------
 */

static TfLiteStatus lg_nms_check_scalar(TfLiteContext* context, const char* op,
                                        const char* what, const TfLiteTensor* t,
                                        TfLiteType type) {
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_type(context, op, what, t->type, LG_SHAPE_TYPE(type)));
  if (t->dims == NULL || t->dims->size != 0) {
    char buf[LG_SHAPE_TEXT];
    lg_kernel_log(context, op, "%s must be a scalar, not %s", what,
                  lg_kernel_format_shape(t->dims, buf, sizeof(buf)));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* Reads max_output_size (data checked) and shapes the index and score
 * outputs [max_output_size]. */
static TfLiteStatus lg_nms_shape(TfLiteContext* context, TfLiteNode* node,
                                 const char* op, int num_outputs) {
  const TfLiteTensor* max_size =
      &context->tensors[node->inputs->data[kLgNmsMaxOutputSize]];
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, op, "max_output_size", max_size));
  const int32_t n = max_size->data.i32[0];
  if (n < 0) {
    lg_kernel_log(context, op, "max_output_size %d is negative", n);
    return kTfLiteError;
  }
  const int dims[1] = {n};
  for (int o = 0; o + 1 < num_outputs; ++o) {
    TF_LITE_ENSURE_STATUS(lg_shape_resize(
        context, op, &context->tensors[node->outputs->data[o]], dims, 1));
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_nms_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_nms_data* data = node->user_data;
  if (data == NULL) return kTfLiteError;
  const char* op = lg_nms_name(data);
  const int num_inputs = data->soft ? 6 : 5;
  const int num_outputs = data->soft ? 3 : 2;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, num_inputs,
                                           num_inputs, num_outputs));
  const TfLiteTensor *boxes, *scores, *max_size, *iou, *score_threshold;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kLgNmsBoxes, &boxes));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kLgNmsScores, &scores));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kLgNmsMaxOutputSize, &max_size));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kLgNmsIouThreshold, &iou));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kLgNmsScoreThreshold,
                                        &score_threshold));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "boxes", boxes->type,
                                            LG_SHAPE_TYPE(kTfLiteFloat32)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "scores", scores->type,
                                            LG_SHAPE_TYPE(kTfLiteFloat32)));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "boxes", boxes));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "scores", scores));
  char buf[LG_SHAPE_TEXT], buf2[LG_SHAPE_TEXT];
  if (boxes->dims->size != 2 || boxes->dims->data[1] != 4) {
    lg_kernel_log(context, op, "boxes must be [num_boxes, 4], not %s",
                  lg_kernel_format_shape(boxes->dims, buf, sizeof(buf)));
    return kTfLiteError;
  }
  const int num_boxes = boxes->dims->data[0];
  if (scores->dims->size != 1 || scores->dims->data[0] != num_boxes) {
    lg_kernel_log(context, op, "scores %s must be [%d] for boxes %s",
                  lg_kernel_format_shape(scores->dims, buf, sizeof(buf)),
                  num_boxes,
                  lg_kernel_format_shape(boxes->dims, buf2, sizeof(buf2)));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_nms_check_scalar(context, op, "max_output_size",
                                            max_size, kTfLiteInt32));
  TF_LITE_ENSURE_STATUS(
      lg_nms_check_scalar(context, op, "iou_threshold", iou, kTfLiteFloat32));
  TF_LITE_ENSURE_STATUS(lg_nms_check_scalar(context, op, "score_threshold",
                                            score_threshold, kTfLiteFloat32));
  if (data->soft) {
    const TfLiteTensor* sigma;
    TF_LITE_ENSURE_STATUS(
        lg_kernel_input(context, node, op, kLgNmsSigma, &sigma));
    TF_LITE_ENSURE_STATUS(lg_nms_check_scalar(context, op, "soft_nms_sigma",
                                              sigma, kTfLiteFloat32));
  }
  TfLiteTensor* outputs[3];
  for (int o = 0; o < num_outputs; ++o) {
    TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, o, &outputs[o]));
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "selected_indices",
                                            outputs[0]->type,
                                            LG_SHAPE_TYPE(kTfLiteInt32)));
  if (data->soft) {
    TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "selected_scores",
                                              outputs[1]->type,
                                              LG_SHAPE_TYPE(kTfLiteFloat32)));
  }
  TfLiteTensor* valid = outputs[num_outputs - 1];
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "valid_outputs", valid->type, LG_SHAPE_TYPE(kTfLiteInt32)));
  TF_LITE_ENSURE_STATUS(lg_shape_resize(context, op, valid, NULL, 0));
  if (num_boxes > data->capacity) {
    lg_nms_candidate* heap =
        realloc(data->heap, sizeof(lg_nms_candidate) * (size_t)num_boxes);
    if (heap == NULL) {
      lg_kernel_log(context, op, "out of memory for %d boxes", num_boxes);
      return kTfLiteError;
    }
    data->heap = heap;
    data->capacity = num_boxes;
  }
  if (!lg_kernel_is_constant(max_size)) {
    for (int o = 0; o + 1 < num_outputs; ++o) {
      lg_kernel_set_dynamic(outputs[o]);
    }
    return kTfLiteOk;
  }
  return lg_nms_shape(context, node, op, num_outputs);
}

static TfLiteStatus lg_nms_invoke(TfLiteContext* context, TfLiteNode* node) {
  lg_nms_data* data = node->user_data;
  const char* op = lg_nms_name(data);
  const int num_outputs = data->soft ? 3 : 2;
  TfLiteTensor* indices_t = &context->tensors[node->outputs->data[0]];
  TfLiteTensor* scores_out_t =
      data->soft ? &context->tensors[node->outputs->data[1]] : NULL;
  TfLiteTensor* valid_t =
      &context->tensors[node->outputs->data[num_outputs - 1]];
  if (indices_t->allocation_type == kTfLiteDynamic) {
    TF_LITE_ENSURE_STATUS(lg_nms_shape(context, node, op, num_outputs));
  }
  const TfLiteTensor* in[6];
  for (int i = 0; i < (data->soft ? 6 : 5); ++i) {
    in[i] = &context->tensors[node->inputs->data[i]];
  }
  static const char* const names[6] = {"boxes",           "scores",
                                       "max_output_size", "iou_threshold",
                                       "score_threshold", "soft_nms_sigma"};
  for (int i = 0; i < (data->soft ? 6 : 5); ++i) {
    TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, names[i], in[i]));
  }
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, op, "selected_indices", indices_t));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, op, "valid_outputs", valid_t));
  if (scores_out_t != NULL) {
    TF_LITE_ENSURE_STATUS(
        lg_shape_check_data(context, op, "selected_scores", scores_out_t));
  }
  const int32_t max_output = in[kLgNmsMaxOutputSize]->data.i32[0];
  if (max_output < 0) {
    lg_kernel_log(context, op, "max_output_size %d is negative", max_output);
    return kTfLiteError;
  }
  /* The outputs hold max_output_size elements (a constant input shaped
   * them in Prepare, a dynamic one just now). */
  if (indices_t->dims->size != 1 || indices_t->dims->data[0] != max_output ||
      (scores_out_t != NULL && (scores_out_t->dims->size != 1 ||
                                scores_out_t->dims->data[0] != max_output))) {
    lg_kernel_log(context, op, "the outputs do not hold max_output_size %d",
                  max_output);
    return kTfLiteError;
  }
  const float iou_threshold = in[kLgNmsIouThreshold]->data.f[0];
  const float score_threshold = in[kLgNmsScoreThreshold]->data.f[0];
  float sigma = 0.0f;
  if (data->soft) {
    sigma = in[kLgNmsSigma]->data.f[0];
    if (sigma < 0.0f) {
      lg_kernel_log(context, op, "soft_nms_sigma %g is negative",
                    (double)sigma);
      return kTfLiteError;
    }
  }
  const float* boxes = in[kLgNmsBoxes]->data.f;
  const float* scores = in[kLgNmsScores]->data.f;
  const int num_boxes = in[kLgNmsBoxes]->dims->data[0];
  int32_t* selected = indices_t->data.i32;
  float* selected_scores = scores_out_t != NULL ? scores_out_t->data.f : NULL;
  lg_nms_candidate* heap = data->heap;
  int heap_size = 0;
  for (int i = 0; i < num_boxes; ++i) {
    if (scores[i] > score_threshold) {
      const lg_nms_candidate c = {i, scores[i], 0};
      lg_nms_push(heap, &heap_size, c);
    }
  }
  const int num_outputs_max = heap_size < max_output ? heap_size : max_output;
  /* TFLite computes -0.5 / sigma in double and keeps it as a float. */
  const float scale = sigma > 0.0f ? (float)(-0.5 / (double)sigma) : 0.0f;
  int count = 0;
  while (count < num_outputs_max && heap_size > 0) {
    lg_nms_candidate next = heap[0];
    const float original = next.score;
    lg_nms_pop(heap, &heap_size);
    bool hard = false;
    for (int j = count - 1; j >= next.suppress_begin; --j) {
      const float iou = lg_nms_iou(boxes, next.index, selected[j]);
      if (iou >= iou_threshold) {
        hard = true;
        break;
      }
      if (sigma > 0.0f) next.score = next.score * expf(scale * iou * iou);
      if (next.score <= score_threshold) break;
    }
    next.suppress_begin = count;
    if (hard) continue;
    if (next.score == original) {
      selected[count] = next.index;
      if (selected_scores != NULL) selected_scores[count] = next.score;
      ++count;
    }
    if (next.score > score_threshold) lg_nms_push(heap, &heap_size, next);
  }
  for (int i = count; i < max_output; ++i) {
    selected[i] = 0;
    if (selected_scores != NULL) selected_scores[i] = 0.0f;
  }
  valid_t->data.i32[0] = count;
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(NON_MAX_SUPPRESSION_V4, lg_nms_init_v4, lg_nms_free,
                       lg_nms_prepare, lg_nms_invoke)
LG_KERNEL_REGISTRATION(NON_MAX_SUPPRESSION_V5, lg_nms_init_v5, lg_nms_free,
                       lg_nms_prepare, lg_nms_invoke)
