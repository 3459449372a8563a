/* TFLite_Detection_PostProcess: the custom op SSD detection models end
 * with, which TFLite's BuiltinOpResolver registers by name (version 1);
 * litegpu's default resolver resolves it too (ops/ops.def's custom row with
 * a CPU range).
 *
 * Inputs: box_encodings [1, N, >=4] (y, x, h, w per anchor, further values
 * ignored), class_predictions [1, N, C] (C = num_classes, or num_classes + 1
 * with a background class first), anchors [N, 4] (y, x, h, w). Box
 * encodings and anchors are FLOAT32, or both UINT8 (dequantized as
 * (q - zero_point) * scale, in float); class predictions FLOAT32 or UINT8.
 * TFLite's kernel computes nothing else; INT8 and other types are rejected
 * in Prepare.
 * Outputs (FLOAT32): boxes [1, D, 4] (ymin, xmin, ymax, xmax), classes
 * [1, D], scores [1, D], num_detections [1], where D = max_detections *
 * max_classes_per_detection.
 *
 * Options (the node's custom_options, a FlexBuffers map read by
 * runtime/model/flexbuffers.c): max_detections, max_classes_per_detection,
 * detections_per_class (default 100), use_regular_nms (default false),
 * nms_score_threshold, nms_iou_threshold, num_classes, y_scale, x_scale,
 * h_scale, w_scale. A key TFLite reads and the map lacks reads as 0, as in
 * TFLite; a malformed map fails Prepare with the reader's message.
 *
 * Decoding is TFLite's, in double: ycenter = y / y_scale * anchor.h +
 * anchor.y, half_h = 0.5 * exp(h / h_scale) * anchor.h (and x, w alike);
 * a decoded box with ymin > ymax or xmin > xmax fails Invoke. The
 * single-class NMS keeps scores >= nms_score_threshold, orders them by
 * score (stable, so ties keep anchor order), and drops a box whose IoU with
 * a kept one is > nms_iou_threshold (which must be in (0, 1]).
 *  - Fast NMS (use_regular_nms false): each anchor's best
 *    min(max_classes_per_detection, num_classes) classes (ordered as
 *    TFLite's std::partial_sort orders them: libstdc++'s heap select and
 *    heap sort, reproduced here; one class is the first maximum), NMS on
 *    the best score with max_detections; detection k fills slots
 *    k * max_classes_per_detection + j.
 *  - Regular NMS: NMS per class with min(detections_per_class,
 *    max_detections), each class's picks merged by score into the best
 *    max_detections (equal scores keep the earlier class first).
 * Slots past the detections are zeros (TFLite's regular NMS writes zeros,
 * its fast NMS leaves them as they were). num_detections is the number of
 * detections (not of slots).
 *
 * Prepare sizes every scratch array; Invoke does not allocate.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/model/flexbuffers.h"
#include "tensorflow/lite/c/common.h"

#define LG_DP_OP "TFLite_Detection_PostProcess"

enum { kLgDpBoxes = 0, kLgDpClasses = 1, kLgDpAnchors = 2 };
enum {
  kLgDpOutBoxes = 0,
  kLgDpOutClasses = 1,
  kLgDpOutScores = 2,
  kLgDpOutCount = 3
};

typedef struct lg_dp_pick {
  int index; /* anchor * C + class column */
  float score;
} lg_dp_pick;

typedef struct lg_dp_data {
  /* Options. */
  int max_detections;
  int max_classes_per_detection;
  int detections_per_class;
  bool use_regular_nms;
  float score_threshold;
  float iou_threshold;
  int num_classes;
  float y_scale, x_scale, h_scale, w_scale;
  bool options_ok;
  char options_error[200];
  /* Scratch, sized by Prepare for num_boxes N and C columns. */
  void* scratch;
  float* decoded;       /* N * 4 */
  float* scores;        /* N * C, dequantized class predictions */
  float* single;        /* N: one class's scores, or each anchor's best */
  int* keep;            /* N: anchors at or above the score threshold */
  float* keep_scores;   /* N */
  int* order;           /* N: positions in keep, by score */
  int* order_tmp;       /* N: the merge sort's second buffer */
  uint8_t* active;      /* N */
  int* selected;        /* N: one NMS's picks */
  int* class_order;     /* N * num_classes: fast NMS's classes per anchor */
  lg_dp_pick* picks;    /* 2 * max_detections: regular NMS's best */
  lg_dp_pick* pick_tmp; /* max_detections */
} lg_dp_data;

/* ---- Options ------------------------------------------------------------ */

static bool lg_dp_float_option(lg_flex_map* map, const char* key, float* out,
                               char* error, size_t error_size) {
  lg_flex_number n;
  if (!lg_flex_map_number(map, key, &n)) {
    snprintf(error, error_size, "custom options: %s", map->error);
    return false;
  }
  *out = (float)n.d;
  return true;
}

static void lg_dp_read_options(lg_dp_data* d, const char* buffer,
                               size_t length) {
  char* err = d->options_error;
  const size_t n = sizeof(d->options_error);
  lg_flex_map map;
  if (!lg_flex_open_map((const uint8_t*)buffer, length, &map)) {
    snprintf(err, n, "custom options: %s", map.error);
    return;
  }
  bool has_per_class = false, has_regular = false;
  int per_class = 0, regular = 0;
  if (!lg_flex_map_int32(&map, "max_detections", &d->max_detections, NULL, err,
                         n) ||
      !lg_flex_map_int32(&map, "max_classes_per_detection",
                         &d->max_classes_per_detection, NULL, err, n) ||
      !lg_flex_map_int32(&map, "detections_per_class", &per_class,
                         &has_per_class, err, n) ||
      !lg_flex_map_int32(&map, "use_regular_nms", &regular, &has_regular, err,
                         n) ||
      !lg_dp_float_option(&map, "nms_score_threshold", &d->score_threshold, err,
                          n) ||
      !lg_dp_float_option(&map, "nms_iou_threshold", &d->iou_threshold, err,
                          n) ||
      !lg_flex_map_int32(&map, "num_classes", &d->num_classes, NULL, err, n) ||
      !lg_dp_float_option(&map, "y_scale", &d->y_scale, err, n) ||
      !lg_dp_float_option(&map, "x_scale", &d->x_scale, err, n) ||
      !lg_dp_float_option(&map, "h_scale", &d->h_scale, err, n) ||
      !lg_dp_float_option(&map, "w_scale", &d->w_scale, err, n)) {
    return;
  }
  d->detections_per_class = has_per_class ? per_class : 100;
  d->use_regular_nms = has_regular && regular != 0;
  d->options_ok = true;
}

static void* lg_dp_init(TfLiteContext* context, const char* buffer,
                        size_t length) {
  (void)context;
  lg_dp_data* d = calloc(1, sizeof(lg_dp_data));
  if (d != NULL) lg_dp_read_options(d, buffer, length);
  return d;
}

static void lg_dp_free(TfLiteContext* context, void* buffer) {
  (void)context;
  lg_dp_data* d = buffer;
  if (d == NULL) return;
  free(d->scratch);
  free(d);
}

/* ---- Sorting as TFLite's std:: calls order ------------------------------ */

/* libstdc++'s heap primitives on anchor/class indices f[], with the
 * comparison "v[a] > v[b]" of TFLite's partial sort (so the heap's top is
 * the smallest value). */
static void lg_dp_push_heap(int* f, const float* v, int hole, int top,
                            int value) {
  int parent = (hole - 1) / 2;
  while (hole > top && v[f[parent]] > v[value]) {
    f[hole] = f[parent];
    hole = parent;
    parent = (hole - 1) / 2;
  }
  f[hole] = value;
}

static void lg_dp_adjust_heap(int* f, const float* v, int hole, int len,
                              int value) {
  const int top = hole;
  int child = hole;
  while (child < (len - 1) / 2) {
    child = 2 * (child + 1);
    if (v[f[child]] > v[f[child - 1]]) --child;
    f[hole] = f[child];
    hole = child;
  }
  if ((len & 1) == 0 && child == (len - 2) / 2) {
    child = 2 * (child + 1);
    f[hole] = f[child - 1];
    hole = child - 1;
  }
  lg_dp_push_heap(f, v, hole, top, value);
}

/* The first `middle` of f[0..last) become the largest values in decreasing
 * order, exactly as std::partial_sort (heap select, then heap sort) leaves
 * them; f starts as 0..last-1. */
static void lg_dp_partial_sort(int* f, int middle, int last, const float* v) {
  if (middle >= 2) {
    for (int parent = (middle - 2) / 2;; --parent) {
      lg_dp_adjust_heap(f, v, parent, middle, f[parent]);
      if (parent == 0) break;
    }
  }
  for (int i = middle; i < last; ++i) {
    if (v[f[i]] > v[f[0]]) {
      const int value = f[i];
      f[i] = f[0];
      lg_dp_adjust_heap(f, v, 0, middle, value);
    }
  }
  for (int end = middle; end > 1;) {
    --end;
    const int value = f[end];
    f[end] = f[0];
    lg_dp_adjust_heap(f, v, 0, end, value);
  }
}

/* A stable sort of order[0..n) by decreasing v[order[i]] (bottom-up merge
 * sort; the result may end in *tmp, which is then swapped in). */
static void lg_dp_stable_sort(int** order, int** tmp, int n, const float* v) {
  int* src = *order;
  int* dst = *tmp;
  for (int width = 1; width < n; width *= 2) {
    for (int lo = 0; lo < n; lo += 2 * width) {
      const int mid = lo + width < n ? lo + width : n;
      const int hi = lo + 2 * width < n ? lo + 2 * width : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        dst[k++] = v[src[j]] > v[src[i]] ? src[j++] : src[i++];
      }
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    int* swap = src;
    src = dst;
    dst = swap;
  }
  *order = src;
  *tmp = dst;
}

/* ---- NMS ----------------------------------------------------------------- */

static float lg_dp_max(float a, float b) { return a < b ? b : a; }
static float lg_dp_min(float a, float b) { return b < a ? b : a; }

static float lg_dp_iou(const float* boxes, int i, int j) {
  const float* a = boxes + 4 * (size_t)i;
  const float* b = boxes + 4 * (size_t)j;
  const float area_a = (a[2] - a[0]) * (a[3] - a[1]);
  const float area_b = (b[2] - b[0]) * (b[3] - b[1]);
  if (area_a <= 0.0f || area_b <= 0.0f) return 0.0f;
  const float ymin = lg_dp_max(a[0], b[0]), xmin = lg_dp_max(a[1], b[1]);
  const float ymax = lg_dp_min(a[2], b[2]), xmax = lg_dp_min(a[3], b[3]);
  const float inter =
      lg_dp_max(ymax - ymin, 0.0f) * lg_dp_max(xmax - xmin, 0.0f);
  return inter / (area_a + area_b - inter);
}

/* Single-class NMS over scores[0..n): at most max_out anchors into
 * d->selected; returns how many. */
static int lg_dp_nms(lg_dp_data* d, const float* scores, int n, int max_out) {
  int kept = 0;
  for (int i = 0; i < n; ++i) {
    if (scores[i] >= d->score_threshold) {
      d->keep[kept] = i;
      d->keep_scores[kept] = scores[i];
      ++kept;
    }
  }
  int* order = d->order;
  int* tmp = d->order_tmp;
  for (int i = 0; i < kept; ++i) order[i] = i;
  lg_dp_stable_sort(&order, &tmp, kept, d->keep_scores);
  const int out_size = kept < max_out ? kept : max_out;
  int count = 0;
  int active = kept;
  memset(d->active, 1, (size_t)kept);
  for (int i = 0; i < kept; ++i) {
    if (active == 0 || count >= out_size) break;
    if (!d->active[i]) continue;
    const int box = d->keep[order[i]];
    d->selected[count++] = box;
    d->active[i] = 0;
    --active;
    for (int j = i + 1; j < kept; ++j) {
      if (d->active[j] &&
          lg_dp_iou(d->decoded, box, d->keep[order[j]]) > d->iou_threshold) {
        d->active[j] = 0;
        --active;
      }
    }
  }
  return count;
}

/* ---- Prepare ------------------------------------------------------------- */

static TfLiteStatus lg_dp_check_float_out(TfLiteContext* context,
                                          const TfLiteTensor* t,
                                          const char* what) {
  if (t->type != kTfLiteFloat32) {
    lg_kernel_log(context, LG_DP_OP, "output %s must be FLOAT32, not %s", what,
                  TfLiteTypeGetName(t->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_dp_resize(TfLiteContext* context, TfLiteTensor* t,
                                 int rank, int d0, int d1, int d2) {
  TfLiteIntArray* shape = TfLiteIntArrayCreate(rank);
  if (shape == NULL) {
    lg_kernel_log(context, LG_DP_OP, "out of memory for an output shape");
    return kTfLiteError;
  }
  const int dims[3] = {d0, d1, d2};
  for (int i = 0; i < rank; ++i) shape->data[i] = dims[i];
  return context->ResizeTensor(context, t, shape);
}

/* Carves every scratch array out of one block (float and int arrays of
 * four-byte elements, the picks after them). */
static TfLiteStatus lg_dp_alloc(TfLiteContext* context, lg_dp_data* d, int n,
                                int c) {
  const size_t nn = (size_t)n, nc = (size_t)n * (size_t)c;
  const size_t classes = (size_t)n * (size_t)d->num_classes;
  const size_t md = (size_t)d->max_detections;
  const size_t words = 4 * nn + nc + 6 * nn + classes;
  const size_t bytes =
      words * 4 + nn /* active */ + 8 /* pad */ + 3 * md * sizeof(lg_dp_pick);
  free(d->scratch);
  d->scratch = malloc(bytes > 0 ? bytes : 1);
  if (d->scratch == NULL) {
    lg_kernel_log(context, LG_DP_OP, "out of memory for %d anchors", n);
    return kTfLiteError;
  }
  char* p = d->scratch;
  d->picks = (lg_dp_pick*)p;
  p += 2 * md * sizeof(lg_dp_pick);
  d->pick_tmp = (lg_dp_pick*)p;
  p += md * sizeof(lg_dp_pick);
  d->decoded = (float*)p;
  p += 4 * nn * 4;
  d->scores = (float*)p;
  p += nc * 4;
  d->single = (float*)p;
  p += nn * 4;
  d->keep = (int*)p;
  p += nn * 4;
  d->keep_scores = (float*)p;
  p += nn * 4;
  d->order = (int*)p;
  p += nn * 4;
  d->order_tmp = (int*)p;
  p += nn * 4;
  d->selected = (int*)p;
  p += nn * 4;
  d->class_order = (int*)p;
  p += classes * 4;
  d->active = (uint8_t*)p;
  return kTfLiteOk;
}

static TfLiteStatus lg_dp_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_DP_OP;
  lg_dp_data* d = node->user_data;
  if (d == NULL) return kTfLiteError;
  if (!d->options_ok) {
    lg_kernel_log(context, op, "%s", d->options_error);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 3, 3, 4));
  const TfLiteTensor *boxes, *classes, *anchors;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kLgDpBoxes, &boxes));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kLgDpClasses, &classes));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kLgDpAnchors, &anchors));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, op, "box_encodings", boxes));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, op, "class_predictions", classes));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "anchors", anchors));
  char b1[64], b2[64], b3[64];
  if (boxes->dims->size != 3 || classes->dims->size != 3 ||
      anchors->dims->size != 2) {
    lg_kernel_log(context, op,
                  "box_encodings %s and class_predictions %s must have rank "
                  "3, anchors %s rank 2",
                  lg_kernel_format_shape(boxes->dims, b1, sizeof(b1)),
                  lg_kernel_format_shape(classes->dims, b2, sizeof(b2)),
                  lg_kernel_format_shape(anchors->dims, b3, sizeof(b3)));
    return kTfLiteError;
  }
  const int n = boxes->dims->data[1];
  const int c = classes->dims->data[2];
  if (boxes->dims->data[0] != 1 || boxes->dims->data[2] < 4 ||
      classes->dims->data[0] != 1 || classes->dims->data[1] != n ||
      anchors->dims->data[0] != n || anchors->dims->data[1] != 4) {
    lg_kernel_log(context, op,
                  "expected box_encodings [1,N,>=4], class_predictions "
                  "[1,N,C] and anchors [N,4], got %s, %s and %s",
                  lg_kernel_format_shape(boxes->dims, b1, sizeof(b1)),
                  lg_kernel_format_shape(classes->dims, b2, sizeof(b2)),
                  lg_kernel_format_shape(anchors->dims, b3, sizeof(b3)));
    return kTfLiteError;
  }
  if ((boxes->type != kTfLiteFloat32 && boxes->type != kTfLiteUInt8) ||
      (classes->type != kTfLiteFloat32 && classes->type != kTfLiteUInt8)) {
    lg_kernel_log(context, op,
                  "box_encodings %s and class_predictions %s: TFLite's kernel "
                  "takes FLOAT32 or UINT8 only",
                  TfLiteTypeGetName(boxes->type),
                  TfLiteTypeGetName(classes->type));
    return kTfLiteError;
  }
  if (anchors->type != boxes->type) {
    lg_kernel_log(context, op,
                  "anchors are %s, box_encodings %s: they must be the same "
                  "type",
                  TfLiteTypeGetName(anchors->type),
                  TfLiteTypeGetName(boxes->type));
    return kTfLiteError;
  }
  if (d->max_detections < 0 || d->max_classes_per_detection < 0 ||
      d->detections_per_class < 0 || d->num_classes <= 0) {
    lg_kernel_log(context, op,
                  "max_detections %d, max_classes_per_detection %d and "
                  "detections_per_class %d must be >= 0, num_classes %d > 0",
                  d->max_detections, d->max_classes_per_detection,
                  d->detections_per_class, d->num_classes);
    return kTfLiteError;
  }
  const int64_t slots =
      (int64_t)d->max_detections * (int64_t)d->max_classes_per_detection;
  if (slots > INT32_MAX / 4 || (int64_t)d->max_detections * 2 > INT32_MAX ||
      (int64_t)n * c > INT32_MAX / 4 ||
      (int64_t)n * d->num_classes > INT32_MAX / 4) {
    lg_kernel_log(context, op,
                  "max_detections %d * max_classes_per_detection %d or the "
                  "%d anchors * %d classes are too many",
                  d->max_detections, d->max_classes_per_detection, n, c);
    return kTfLiteError;
  }
  if (c != d->num_classes && c != d->num_classes + 1) {
    lg_kernel_log(context, op,
                  "class_predictions have %d columns: num_classes %d, or one "
                  "more with a background class",
                  c, d->num_classes);
    return kTfLiteError;
  }
  if (!(d->iou_threshold > 0.0f && d->iou_threshold <= 1.0f)) {
    lg_kernel_log(context, op, "nms_iou_threshold %g is not in (0, 1]",
                  (double)d->iou_threshold);
    return kTfLiteError;
  }
  if (d->use_regular_nms) {
    const int per = d->detections_per_class < d->max_detections
                        ? d->detections_per_class
                        : d->max_detections;
    if (per <= 0) {
      lg_kernel_log(context, op,
                    "regular NMS needs detections_per_class %d and "
                    "max_detections %d above 0",
                    d->detections_per_class, d->max_detections);
      return kTfLiteError;
    }
  } else if (d->max_classes_per_detection <= 0) {
    lg_kernel_log(context, op,
                  "fast NMS needs max_classes_per_detection above 0");
    return kTfLiteError;
  }
  TfLiteTensor* out[4];
  static const char* const names[4] = {"detection_boxes", "detection_classes",
                                       "detection_scores", "num_detections"};
  for (int o = 0; o < 4; ++o) {
    TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, o, &out[o]));
    TF_LITE_ENSURE_STATUS(lg_dp_check_float_out(context, out[o], names[o]));
  }
  TF_LITE_ENSURE_STATUS(lg_dp_alloc(context, d, n, c));
  const int s = (int)slots;
  TF_LITE_ENSURE_STATUS(lg_dp_resize(context, out[kLgDpOutBoxes], 3, 1, s, 4));
  TF_LITE_ENSURE_STATUS(
      lg_dp_resize(context, out[kLgDpOutClasses], 2, 1, s, 0));
  TF_LITE_ENSURE_STATUS(lg_dp_resize(context, out[kLgDpOutScores], 2, 1, s, 0));
  return lg_dp_resize(context, out[kLgDpOutCount], 1, 1, 0, 0);
}

/* ---- Invoke -------------------------------------------------------------- */

/* One value of a FLOAT32 or UINT8 tensor as TFLite's kernel reads it:
 * (q - zero_point) * scale in float for UINT8. */
static float lg_dp_value(const TfLiteTensor* t, size_t i) {
  if (t->type == kTfLiteFloat32) return t->data.f[i];
  return ((float)t->data.uint8[i] - (float)t->params.zero_point) *
         t->params.scale;
}

static TfLiteStatus lg_dp_decode(TfLiteContext* context, lg_dp_data* d,
                                 const TfLiteTensor* boxes,
                                 const TfLiteTensor* anchors, int n) {
  const size_t stride = (size_t)boxes->dims->data[2];
  for (int i = 0; i < n; ++i) {
    const size_t b = (size_t)i * stride, a = (size_t)i * 4;
    const double y = lg_dp_value(boxes, b), x = lg_dp_value(boxes, b + 1);
    const double h = lg_dp_value(boxes, b + 2), w = lg_dp_value(boxes, b + 3);
    const double ay = lg_dp_value(anchors, a), ax = lg_dp_value(anchors, a + 1);
    const double ah = lg_dp_value(anchors, a + 2);
    const double aw = lg_dp_value(anchors, a + 3);
    const float yc = (float)(y / (double)d->y_scale * ah + ay);
    const float xc = (float)(x / (double)d->x_scale * aw + ax);
    const float half_h = (float)(0.5 * exp(h / (double)d->h_scale) * ah);
    const float half_w = (float)(0.5 * exp(w / (double)d->w_scale) * aw);
    float* box = d->decoded + 4 * (size_t)i;
    box[0] = yc - half_h;
    box[1] = xc - half_w;
    box[2] = yc + half_h;
    box[3] = xc + half_w;
    if (box[0] > box[2] || box[1] > box[3]) {
      lg_kernel_log(context, LG_DP_OP,
                    "decoded box %d (%g, %g, %g, %g) has ymin > ymax or xmin "
                    "> xmax",
                    i, (double)box[0], (double)box[1], (double)box[2],
                    (double)box[3]);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

static void lg_dp_regular(lg_dp_data* d, const float* scores, int n, int c,
                          TfLiteTensor* const out[4]) {
  const int offset = c - d->num_classes;
  const int max_det = d->max_detections;
  const int per =
      d->detections_per_class < max_det ? d->detections_per_class : max_det;
  int size = 0;
  for (int col = 0; col < d->num_classes; ++col) {
    for (int row = 0; row < n; ++row) {
      d->single[row] = scores[(size_t)row * (size_t)c + (size_t)(col + offset)];
    }
    const int count = lg_dp_nms(d, d->single, n, per);
    if (count == 0) continue;
    /* Merge the class's picks (by decreasing score) into the best so far;
     * on equal scores the earlier ones stay first. */
    for (int i = 0; i < size; ++i) d->pick_tmp[i] = d->picks[i];
    int i = 0, j = 0, k = 0;
    while (i < size && j < count) {
      const int a = d->selected[j];
      const float sj = d->single[a];
      if (sj > d->pick_tmp[i].score) {
        d->picks[k].index = a * c + col + offset;
        d->picks[k++].score = sj;
        ++j;
      } else {
        d->picks[k++] = d->pick_tmp[i++];
      }
    }
    while (i < size) d->picks[k++] = d->pick_tmp[i++];
    while (j < count) {
      const int a = d->selected[j++];
      d->picks[k].index = a * c + col + offset;
      d->picks[k++].score = d->single[a];
    }
    size = k < max_det ? k : max_det;
  }
  for (int i = 0; i < size; ++i) {
    const int anchor = d->picks[i].index / c;
    const int cls = d->picks[i].index - anchor * c - offset;
    memcpy(out[kLgDpOutBoxes]->data.f + 4 * (size_t)i,
           d->decoded + 4 * (size_t)anchor, 4 * sizeof(float));
    out[kLgDpOutClasses]->data.f[i] = (float)cls;
    out[kLgDpOutScores]->data.f[i] = d->picks[i].score;
  }
  out[kLgDpOutCount]->data.f[0] = (float)size;
}

static void lg_dp_fast(lg_dp_data* d, const float* scores, int n, int c,
                       TfLiteTensor* const out[4]) {
  const int offset = c - d->num_classes;
  const int nc = d->num_classes;
  const int per_anchor =
      d->max_classes_per_detection < nc ? d->max_classes_per_detection : nc;
  for (int row = 0; row < n; ++row) {
    const float* v = scores + (size_t)row * (size_t)c + offset;
    int* order = d->class_order + (size_t)row * (size_t)nc;
    if (per_anchor == 1) {
      int best = 0;
      for (int k = 1; k < nc; ++k) {
        if (v[k] > v[best]) best = k;
      }
      order[0] = best;
    } else {
      for (int k = 0; k < nc; ++k) order[k] = k;
      lg_dp_partial_sort(order, per_anchor, nc, v);
    }
    d->single[row] = v[order[0]];
  }
  const int count = lg_dp_nms(d, d->single, n, d->max_detections);
  for (int k = 0; k < count; ++k) {
    const int anchor = d->selected[k];
    const float* v = scores + (size_t)anchor * (size_t)c + offset;
    const int* order = d->class_order + (size_t)anchor * (size_t)nc;
    for (int col = 0; col < per_anchor; ++col) {
      const size_t slot =
          (size_t)d->max_classes_per_detection * (size_t)k + (size_t)col;
      memcpy(out[kLgDpOutBoxes]->data.f + 4 * slot,
             d->decoded + 4 * (size_t)anchor, 4 * sizeof(float));
      out[kLgDpOutClasses]->data.f[slot] = (float)order[col];
      out[kLgDpOutScores]->data.f[slot] = v[order[col]];
    }
  }
  out[kLgDpOutCount]->data.f[0] = (float)count;
}

static TfLiteStatus lg_dp_invoke(TfLiteContext* context, TfLiteNode* node) {
  lg_dp_data* d = node->user_data;
  const TfLiteTensor* boxes = &context->tensors[node->inputs->data[0]];
  const TfLiteTensor* classes = &context->tensors[node->inputs->data[1]];
  const TfLiteTensor* anchors = &context->tensors[node->inputs->data[2]];
  TfLiteTensor* out[4];
  for (int o = 0; o < 4; ++o) {
    out[o] = &context->tensors[node->outputs->data[o]];
  }
  const int n = boxes->dims->data[1];
  const int c = classes->dims->data[2];
  const TfLiteTensor* all[7] = {boxes,  classes, anchors, out[0],
                                out[1], out[2],  out[3]};
  for (int i = 0; i < 7; ++i) {
    if (all[i]->data.raw == NULL && lg_kernel_num_elements(all[i]) > 0) {
      lg_kernel_log(context, LG_DP_OP, "a tensor has no data");
      return kTfLiteError;
    }
  }
  for (int o = 0; o < 3; ++o) {
    if (out[o]->bytes > 0) memset(out[o]->data.raw, 0, out[o]->bytes);
  }
  out[kLgDpOutCount]->data.f[0] = 0.0f;
  TF_LITE_ENSURE_STATUS(lg_dp_decode(context, d, boxes, anchors, n));
  const float* scores = classes->data.f;
  if (classes->type == kTfLiteUInt8) {
    const size_t total = (size_t)n * (size_t)c;
    for (size_t i = 0; i < total; ++i) d->scores[i] = lg_dp_value(classes, i);
    scores = d->scores;
  }
  if (d->use_regular_nms) {
    lg_dp_regular(d, scores, n, c, out);
  } else {
    lg_dp_fast(d, scores, n, c, out);
  }
  return kTfLiteOk;
}

const TfLiteRegistration* lg_register_DETECTION_POSTPROCESS(void) {
  static const TfLiteRegistration registration = {
      .init = lg_dp_init,
      .free = lg_dp_free,
      .prepare = lg_dp_prepare,
      .invoke = lg_dp_invoke,
      .builtin_code = kTfLiteBuiltinCustom,
      .custom_name = LG_DP_OP,
      .version = 1,
  };
  return &registration;
}
