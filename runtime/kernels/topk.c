/* TOPK_V2: the k largest values of each row (the last dimension) of the
 * input, in descending order, and their positions (INT32). Equal values
 * keep their order of position (the lower index first), as TFLite's kernel
 * orders them. k is a one-element INT32 tensor, at most the row length;
 * with a constant k the outputs are shaped in Prepare, else in Invoke.
 * Values: FLOAT32, INT32, INT64, UINT8, INT8 (version 3's int16 values, k
 * or indices are rejected with the type's name).
 *
 * Each row is ordered by a merge sort of positions in scratch memory that
 * Prepare sizes for the row length (Invoke does not allocate).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/common.h"

#define LG_TOPK_OP "TOPK_V2"
#define LG_TOPK_TYPES                                            \
  (LG_SHAPE_TYPE(kTfLiteFloat32) | LG_SHAPE_TYPE(kTfLiteInt32) | \
   LG_SHAPE_TYPE(kTfLiteInt64) | LG_SHAPE_TYPE(kTfLiteUInt8) |   \
   LG_SHAPE_TYPE(kTfLiteInt8))

typedef struct lg_topk_data {
  int32_t* order;   /* a row's positions, sorted */
  int32_t* scratch; /* the merge sort's second buffer */
  int capacity;     /* positions both hold */
} lg_topk_data;

static void* lg_topk_init(TfLiteContext* context, const char* buffer,
                          size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_topk_data));
}

static void lg_topk_free(TfLiteContext* context, void* buffer) {
  (void)context;
  lg_topk_data* data = buffer;
  if (data == NULL) return;
  free(data->order);
  free(data->scratch);
  free(data);
}

/* Whether position a of the row comes before position b: the larger value
 * first, then the lower position. */
static bool lg_topk_before(const TfLiteTensor* t, const char* row, int32_t a,
                           int32_t b) {
  switch (t->type) {
    case kTfLiteFloat32: {
      const float x = ((const float*)row)[a], y = ((const float*)row)[b];
      return x > y || (x == y && a < b);
    }
    case kTfLiteInt32: {
      const int32_t x = ((const int32_t*)row)[a], y = ((const int32_t*)row)[b];
      return x > y || (x == y && a < b);
    }
    case kTfLiteInt64: {
      const int64_t x = ((const int64_t*)row)[a], y = ((const int64_t*)row)[b];
      return x > y || (x == y && a < b);
    }
    case kTfLiteInt8: {
      const int8_t x = ((const int8_t*)row)[a], y = ((const int8_t*)row)[b];
      return x > y || (x == y && a < b);
    }
    default: {
      const uint8_t x = ((const uint8_t*)row)[a], y = ((const uint8_t*)row)[b];
      return x > y || (x == y && a < b);
    }
  }
}

/* Sorts order[0..n) (bottom-up merge sort; the result is in *order, which
 * may swap with *scratch). */
static void lg_topk_sort(const TfLiteTensor* t, const char* row, int n,
                         int32_t** order, int32_t** scratch) {
  int32_t* src = *order;
  int32_t* dst = *scratch;
  for (int width = 1; width < n; width *= 2) {
    for (int lo = 0; lo < n; lo += 2 * width) {
      const int mid = lo + width < n ? lo + width : n;
      const int hi = lo + 2 * width < n ? lo + 2 * width : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        dst[k++] = lg_topk_before(t, row, src[j], src[i]) ? src[j++] : src[i++];
      }
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    int32_t* swap = src;
    src = dst;
    dst = swap;
  }
  *order = src;
  *scratch = dst;
}

static TfLiteStatus lg_topk_shape(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_TOPK_OP;
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  const TfLiteTensor* k_t = &context->tensors[node->inputs->data[1]];
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "k", k_t));
  const int rank = input->dims->size;
  const int n = input->dims->data[rank - 1];
  const int32_t k = k_t->data.i32[0];
  if (k < 0 || k > n) {
    lg_kernel_log(context, op, "k = %d is not in [0, %d] (the row length)", k,
                  n);
    return kTfLiteError;
  }
  int dims[LG_SHAPE_MAX_RANK];
  for (int i = 0; i < rank; ++i) dims[i] = input->dims->data[i];
  dims[rank - 1] = k;
  for (int o = 0; o < 2; ++o) {
    TF_LITE_ENSURE_STATUS(lg_shape_resize(
        context, op, &context->tensors[node->outputs->data[o]], dims, rank));
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_topk_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_TOPK_OP;
  lg_topk_data* data = node->user_data;
  const TfLiteTensor *input, *k;
  TfLiteTensor *values, *indices;
  if (data == NULL) return kTfLiteError;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 2, 2, 2));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 1, &k));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &values));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 1, &indices));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_type(context, op, "input", input->type, LG_TOPK_TYPES));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "k", k->type,
                                            LG_SHAPE_TYPE(kTfLiteInt32)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "indices", indices->type, LG_SHAPE_TYPE(kTfLiteInt32)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_same_type(context, op, input, values));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "input", input, LG_SHAPE_MAX_RANK));
  if (input->dims->size < 1 || lg_kernel_num_elements(k) != 1) {
    lg_kernel_log(context, op,
                  "the input needs rank >= 1 and k must be one value");
    return kTfLiteError;
  }
  const int n = input->dims->data[input->dims->size - 1];
  if (n > data->capacity) {
    int32_t* order = realloc(data->order, sizeof(int32_t) * (size_t)n);
    if (order != NULL) data->order = order;
    int32_t* scratch = realloc(data->scratch, sizeof(int32_t) * (size_t)n);
    if (scratch != NULL) data->scratch = scratch;
    if (order == NULL || scratch == NULL) {
      lg_kernel_log(context, op, "out of memory for a row of %d", n);
      return kTfLiteError;
    }
    data->capacity = n;
  }
  if (!lg_kernel_is_constant(k)) {
    lg_kernel_set_dynamic(values);
    lg_kernel_set_dynamic(indices);
    return kTfLiteOk;
  }
  return lg_topk_shape(context, node);
}

static TfLiteStatus lg_topk_invoke(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_TOPK_OP;
  lg_topk_data* data = node->user_data;
  TfLiteTensor* values = &context->tensors[node->outputs->data[0]];
  TfLiteTensor* indices = &context->tensors[node->outputs->data[1]];
  if (values->allocation_type == kTfLiteDynamic) {
    TF_LITE_ENSURE_STATUS(lg_topk_shape(context, node));
  }
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  const int rank = input->dims->size;
  const int n = input->dims->data[rank - 1];
  const int k = values->dims->data[rank - 1];
  const int64_t rows = lg_shape_product(input->dims->data, 0, rank - 1);
  if (rows == 0 || k == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "values", values));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "indices", indices));
  size_t elem = 0;
  TfLiteGetSizeOfType(input->type, &elem);
  for (int64_t r = 0; r < rows; ++r) {
    const char* row = input->data.raw_const + (size_t)r * (size_t)n * elem;
    int32_t* order = data->order;
    int32_t* scratch = data->scratch;
    for (int i = 0; i < n; ++i) order[i] = i;
    lg_topk_sort(input, row, n, &order, &scratch);
    char* out = values->data.raw + (size_t)r * (size_t)k * elem;
    int32_t* out_index = indices->data.i32 + (size_t)r * (size_t)k;
    for (int i = 0; i < k; ++i) {
      memcpy(out + (size_t)i * elem, row + (size_t)order[i] * elem, elem);
      out_index[i] = order[i];
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(TOPK_V2, lg_topk_init, lg_topk_free, lg_topk_prepare,
                       lg_topk_invoke)
