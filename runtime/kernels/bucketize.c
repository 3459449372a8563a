/* BUCKETIZE: the bucket index of each element against the sorted
 * boundaries of BucketizeOptions: the number of boundaries b with
 * !(x < b) (std::upper_bound's position, as TFLite), an INT32 output of the
 * input's shape. Inputs FLOAT32, FLOAT64, INT32 and INT64, compared as
 * C++ compares them against float boundaries: integers converted to float,
 * FLOAT64 against the boundaries widened to double. Boundaries must be
 * sorted (non-decreasing, as std::is_sorted checks); an empty list puts
 * every element in bucket 0, and options without the list are refused, as
 * TFLite's parser refuses them.
 *
 * Init copies the boundaries out of the model (they point into it and may
 * sit at any alignment there).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/builtin_op_data.h"
#include "tensorflow/lite/c/common.h"

#define LG_BUCKETIZE_OP "BUCKETIZE"

typedef struct lg_bucketize_data {
  bool missing; /* no boundaries vector at all (an empty one is fine) */
  int count;
  float boundaries[];
} lg_bucketize_data;

static void* lg_bucketize_init(TfLiteContext* context, const char* buffer,
                               size_t length) {
  (void)context;
  (void)length;
  const TfLiteBucketizeParams* params = (const TfLiteBucketizeParams*)buffer;
  int count = 0;
  if (params != NULL && params->boundaries != NULL &&
      params->num_boundaries > 0) {
    count = params->num_boundaries;
  }
  lg_bucketize_data* data =
      malloc(sizeof(lg_bucketize_data) + sizeof(float) * (size_t)count);
  if (data == NULL) return NULL;
  data->missing = params == NULL || params->boundaries == NULL;
  data->count = count;
  if (count > 0) {
    memcpy(data->boundaries, params->boundaries, sizeof(float) * (size_t)count);
  }
  return data;
}

static TfLiteStatus lg_bucketize_prepare(TfLiteContext* context,
                                         TfLiteNode* node) {
  const char* op = LG_BUCKETIZE_OP;
  const lg_bucketize_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, op, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  if (data->missing) {
    lg_kernel_log(context, op, "BucketizeOptions has no boundaries");
    return kTfLiteError;
  }
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 1, 1, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "input", input->type,
      LG_SHAPE_TYPE(kTfLiteFloat32) | LG_SHAPE_TYPE(kTfLiteFloat64) |
          LG_SHAPE_TYPE(kTfLiteInt32) | LG_SHAPE_TYPE(kTfLiteInt64)));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "output", output->type,
                                            LG_SHAPE_TYPE(kTfLiteInt32)));
  for (int i = 1; i < data->count; ++i) {
    if (data->boundaries[i] < data->boundaries[i - 1]) {
      lg_kernel_log(context, op,
                    "boundaries must be sorted (boundaries[%d] = %g is "
                    "below boundaries[%d] = %g)",
                    i, (double)data->boundaries[i], i - 1,
                    (double)data->boundaries[i - 1]);
      return kTfLiteError;
    }
  }
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "input", input, LG_SHAPE_MAX_RANK));
  return lg_shape_resize(context, op, output, input->dims->data,
                         input->dims->size);
}

/* The position std::upper_bound gives, by its own halving steps (so that
 * NaN boundaries, which the sort check lets through, land where TFLite's
 * do), with `LESS(x, b)` as the comparison. */
#define LG_BUCKETIZE_LOOP(T, LESS)                         \
  do {                                                     \
    const T* x = (const T*)input->data.raw;                \
    for (int64_t i = 0; i < n; ++i) {                      \
      int first = 0, count = data->count;                  \
      while (count > 0) {                                  \
        const int step = count / 2;                        \
        if (!LESS(x[i], data->boundaries[first + step])) { \
          first += step + 1;                               \
          count -= step + 1;                               \
        } else {                                           \
          count = step;                                    \
        }                                                  \
      }                                                    \
      out[i] = first;                                      \
    }                                                      \
  } while (0)

#define LG_LESS_FLOAT(x, b) ((float)(x) < (b))
#define LG_LESS_DOUBLE(x, b) ((x) < (double)(b))

static TfLiteStatus lg_bucketize_invoke(TfLiteContext* context,
                                        TfLiteNode* node) {
  const char* op = LG_BUCKETIZE_OP;
  const lg_bucketize_data* data = node->user_data;
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  const int64_t n = lg_kernel_num_elements(input);
  if (n != lg_kernel_num_elements(output)) {
    lg_kernel_log(context, op, "tensor shapes changed since prepare");
    return kTfLiteError;
  }
  if (n == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "input", input));
  TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "output", output));
  int32_t* out = output->data.i32;
  switch (input->type) {
    case kTfLiteFloat32:
      LG_BUCKETIZE_LOOP(float, LG_LESS_FLOAT);
      break;
    case kTfLiteFloat64:
      LG_BUCKETIZE_LOOP(double, LG_LESS_DOUBLE);
      break;
    case kTfLiteInt32:
      LG_BUCKETIZE_LOOP(int32_t, LG_LESS_FLOAT);
      break;
    default:
      LG_BUCKETIZE_LOOP(int64_t, LG_LESS_FLOAT);
      break;
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(BUCKETIZE, lg_bucketize_init, lg_kernel_free_data,
                       lg_bucketize_prepare, lg_bucketize_invoke)
