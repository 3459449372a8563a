/* UNIQUE: the distinct values of a 1-D input in order of first appearance
 * (output 0, dynamic: its length depends on the values) and, for each
 * input element, the position of its value there (output 1, INT32 or INT64
 * as UniqueOptions.idx_out_type says). Inputs FLOAT32, INT32, INT64, INT16,
 * INT8 or UINT8. Floats compare by value (-0.0 equals 0.0; every NaN is one
 * value, TFLite's ordered map leaves NaN unspecified).
 *
 * Invoke does not allocate: a temporary of one int32 per element holds the
 * positions, heap-sorted by (value, position), so equal values form runs
 * whose first position is the first appearance; O(n log n).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/nn.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_UNIQUE_OP "UNIQUE"
#define LG_UNIQUE_TYPES                                          \
  (LG_SHAPE_TYPE(kTfLiteFloat32) | LG_SHAPE_TYPE(kTfLiteInt32) | \
   LG_SHAPE_TYPE(kTfLiteInt64) | LG_SHAPE_TYPE(kTfLiteInt16) |   \
   LG_SHAPE_TYPE(kTfLiteInt8) | LG_SHAPE_TYPE(kTfLiteUInt8))

typedef struct lg_unique_data {
  int temporaries[1];
} lg_unique_data;

static void* lg_unique_init(TfLiteContext* context, const char* buffer,
                            size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  lg_unique_data* data = malloc(sizeof(*data));
  if (data != NULL) data->temporaries[0] = -1;
  return data;
}

static TfLiteStatus lg_unique_prepare(TfLiteContext* context,
                                      TfLiteNode* node) {
  const char* op = LG_UNIQUE_OP;
  lg_unique_data* data = node->user_data;
  const TfLiteTensor* input;
  TfLiteTensor *values, *idx;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 1, 1, 2));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &values));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 1, &idx));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_type(context, op, "input", input->type, LG_UNIQUE_TYPES));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, input, values));
  const TfLiteUniqueParams* params = node->builtin_data;
  const TfLiteType idx_type =
      params != NULL ? params->index_out_type : kTfLiteInt32;
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "idx_out_type",
                                            idx_type, LG_SHAPE_TYPES_INDEX));
  if (idx->type != idx_type) {
    lg_kernel_log(context, op, "output 1 type %s differs from idx_out_type %s",
                  TfLiteTypeGetName(idx->type), TfLiteTypeGetName(idx_type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "input", input));
  if (input->dims->size != 1) {
    lg_kernel_log(context, op, "input must be 1-D (got rank %d)",
                  input->dims->size);
    return kTfLiteError;
  }
  const int n = input->dims->data[0];
  const size_t scratch = (size_t)n;
  TF_LITE_ENSURE_STATUS(
      lg_nn_set_temporaries(context, node, op, data->temporaries, &scratch, 1));
  /* AddTensors may have moved the tensors. */
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &values));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 1, &idx));
  lg_kernel_set_dynamic(values);
  const int dims[1] = {n};
  return lg_shape_resize(context, op, idx, dims, 1);
}

/* -1, 0 or 1 as element a of t is below, equal to or above element b. */
static int lg_unique_cmp_values(const TfLiteTensor* t, int32_t a, int32_t b) {
  switch (t->type) {
    case kTfLiteFloat32: {
      const float x = t->data.f[a], y = t->data.f[b];
      const bool xn = x != x, yn = y != y; /* NaN sorts last, equal */
      if (xn || yn) return xn == yn ? 0 : (xn ? 1 : -1);
      return x < y ? -1 : (y < x ? 1 : 0);
    }
    case kTfLiteInt32:
      return (t->data.i32[a] > t->data.i32[b]) -
             (t->data.i32[a] < t->data.i32[b]);
    case kTfLiteInt64:
      return (t->data.i64[a] > t->data.i64[b]) -
             (t->data.i64[a] < t->data.i64[b]);
    case kTfLiteInt16:
      return (t->data.i16[a] > t->data.i16[b]) -
             (t->data.i16[a] < t->data.i16[b]);
    case kTfLiteInt8:
      return (t->data.int8[a] > t->data.int8[b]) -
             (t->data.int8[a] < t->data.int8[b]);
    default:
      return (t->data.uint8[a] > t->data.uint8[b]) -
             (t->data.uint8[a] < t->data.uint8[b]);
  }
}

/* Orders positions by value, then position. */
static bool lg_unique_less(const TfLiteTensor* t, int32_t a, int32_t b) {
  const int c = lg_unique_cmp_values(t, a, b);
  return c != 0 ? c < 0 : a < b;
}

static void lg_unique_sift(const TfLiteTensor* t, int32_t* heap, int64_t root,
                           int64_t n) {
  for (;;) {
    int64_t child = 2 * root + 1;
    if (child >= n) return;
    if (child + 1 < n && lg_unique_less(t, heap[child], heap[child + 1])) {
      ++child;
    }
    if (!lg_unique_less(t, heap[root], heap[child])) return;
    const int32_t tmp = heap[root];
    heap[root] = heap[child];
    heap[child] = tmp;
    root = child;
  }
}

static int64_t lg_unique_get(const TfLiteTensor* idx, int64_t i) {
  return idx->type == kTfLiteInt32 ? idx->data.i32[i] : idx->data.i64[i];
}

static void lg_unique_set(TfLiteTensor* idx, int64_t i, int64_t v) {
  if (idx->type == kTfLiteInt32) {
    idx->data.i32[i] = (int32_t)v;
  } else {
    idx->data.i64[i] = v;
  }
}

static TfLiteStatus lg_unique_invoke(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_UNIQUE_OP;
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* values = &context->tensors[node->outputs->data[0]];
  TfLiteTensor* idx = &context->tensors[node->outputs->data[1]];
  const int64_t n = input->dims->data[0];
  if (n == 0) {
    const int dims[1] = {0};
    return lg_shape_resize(context, op, values, dims, 1);
  }
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output 1", idx));
  int32_t* perm = (int32_t*)lg_nn_temporary(context, node, op, 0, (size_t)n);
  if (perm == NULL) return kTfLiteError;
  for (int64_t i = 0; i < n; ++i) perm[i] = (int32_t)i;
  for (int64_t i = n / 2 - 1; i >= 0; --i) lg_unique_sift(input, perm, i, n);
  for (int64_t end = n - 1; end > 0; --end) {
    const int32_t tmp = perm[0];
    perm[0] = perm[end];
    perm[end] = tmp;
    lg_unique_sift(input, perm, 0, end);
  }
  /* Each element's idx is first the position of its run's first element
   * (its value's first appearance). */
  int64_t lead = perm[0];
  for (int64_t r = 0; r < n; ++r) {
    if (r > 0 && lg_unique_cmp_values(input, perm[r - 1], perm[r]) != 0) {
      lead = perm[r];
    }
    lg_unique_set(idx, perm[r], lead);
  }
  /* In position order a first appearance (idx == its own position) takes
   * the next unique number, and perm[number] its position; every later
   * element reads its first appearance's number. */
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t first = lg_unique_get(idx, i);
    if (first == i) {
      perm[count] = (int32_t)i;
      lg_unique_set(idx, i, count++);
    } else {
      lg_unique_set(idx, i, lg_unique_get(idx, first));
    }
  }
  const int dims[1] = {(int)count};
  TF_LITE_ENSURE_STATUS(lg_shape_resize(context, op, values, dims, 1));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output 0", values));
  size_t elem = 0;
  TfLiteGetSizeOfType(input->type, &elem);
  for (int64_t u = 0; u < count; ++u) {
    memcpy(values->data.raw + (size_t)u * elem,
           input->data.raw_const + (size_t)perm[u] * elem, elem);
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(UNIQUE, lg_unique_init, lg_kernel_free_data,
                       lg_unique_prepare, lg_unique_invoke)
