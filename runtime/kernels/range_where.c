/* RANGE and WHERE: ops whose output size depends on input values.
 *
 * RANGE: start, limit and delta (one value each, INT32, INT64 or FLOAT32,
 * one type) give [start, start + delta, ...) up to limit. The size is
 * ceil(|limit - start| / |delta|) (integer arithmetic for integers), the
 * values accumulate delta as TFLite's kernel does (so float rounding
 * matches). A zero delta, or a delta pointing away from limit, fails.
 * WHERE: the coordinates (INT64, [count, rank], row-major order) of every
 * non-zero (true) element of its input (BOOL, FLOAT32, INT32, INT64, INT8
 * or UINT8).
 * Both outputs are dynamic unless every input is constant (RANGE).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/common.h"

/* ---- RANGE -----------------------------------------------------------------
 */

#define LG_RANGE_OP "RANGE"

static TfLiteStatus lg_range_size(TfLiteContext* context,
                                  const TfLiteTensor* const in[3],
                                  int64_t* size) {
  if (in[0]->type == kTfLiteFloat32) {
    const float start = in[0]->data.f[0], limit = in[1]->data.f[0],
                delta = in[2]->data.f[0];
    if (delta == 0.0f || (start > limit && delta > 0.0f) ||
        (start < limit && delta < 0.0f)) {
      lg_kernel_log(context, LG_RANGE_OP,
                    "delta %g cannot reach limit %g from start %g",
                    (double)delta, (double)limit, (double)start);
      return kTfLiteError;
    }
    const float n = ceilf(fabsf((limit - start) / delta));
    if (!(n >= 0.0f && n < 2147483648.0f)) {
      lg_kernel_log(context, LG_RANGE_OP, "the range has too many values");
      return kTfLiteError;
    }
    *size = (int64_t)n;
    return kTfLiteOk;
  }
  const int64_t start = lg_shape_int_at(in[0], 0),
                limit = lg_shape_int_at(in[1], 0),
                delta = lg_shape_int_at(in[2], 0);
  if (delta == 0 || (start > limit && delta > 0) ||
      (start < limit && delta < 0)) {
    lg_kernel_log(context, LG_RANGE_OP,
                  "delta %lld cannot reach limit %lld from start %lld",
                  (long long)delta, (long long)limit, (long long)start);
    return kTfLiteError;
  }
  /* |limit - start| in unsigned arithmetic: the difference of two int64
   * values may not fit int64. */
  const uint64_t span = start < limit ? (uint64_t)limit - (uint64_t)start
                                      : (uint64_t)start - (uint64_t)limit;
  const uint64_t step = delta < 0 ? 0 - (uint64_t)delta : (uint64_t)delta;
  const uint64_t n = span / step + (span % step != 0);
  if (n > 0x7fffffff) {
    lg_kernel_log(context, LG_RANGE_OP, "the range has too many values");
    return kTfLiteError;
  }
  *size = (int64_t)n;
  return kTfLiteOk;
}

static TfLiteStatus lg_range_shape(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in[3];
  for (int i = 0; i < 3; ++i) in[i] = &context->tensors[node->inputs->data[i]];
  for (int i = 0; i < 3; ++i) {
    TF_LITE_ENSURE_STATUS(
        lg_shape_check_data(context, LG_RANGE_OP, "input", in[i]));
  }
  int64_t size = 0;
  TF_LITE_ENSURE_STATUS(lg_range_size(context, in, &size));
  const int dims[1] = {(int)size};
  return lg_shape_resize(context, LG_RANGE_OP,
                         &context->tensors[node->outputs->data[0]], dims, 1);
}

static TfLiteStatus lg_range_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_RANGE_OP;
  const TfLiteTensor* in[3];
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 3, 3, 1));
  for (int i = 0; i < 3; ++i) {
    TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, i, &in[i]));
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(
      context, op, "start", in[0]->type,
      LG_SHAPE_TYPES_INDEX | LG_SHAPE_TYPE(kTfLiteFloat32)));
  bool constant = true;
  for (int i = 0; i < 3; ++i) {
    if (in[i]->type != in[0]->type || lg_kernel_num_elements(in[i]) != 1) {
      lg_kernel_log(context, op,
                    "start, limit and delta must be one value each of one "
                    "type (input %d is %s with %lld values)",
                    i, TfLiteTypeGetName(in[i]->type),
                    (long long)lg_kernel_num_elements(in[i]));
      return kTfLiteError;
    }
    constant = constant && lg_kernel_is_constant(in[i]);
  }
  if (output->type != in[0]->type) {
    lg_kernel_log(context, op, "output type %s differs from input type %s",
                  TfLiteTypeGetName(output->type),
                  TfLiteTypeGetName(in[0]->type));
    return kTfLiteError;
  }
  if (!constant) {
    lg_kernel_set_dynamic(output);
    return kTfLiteOk;
  }
  return lg_range_shape(context, node);
}

static TfLiteStatus lg_range_invoke(TfLiteContext* context, TfLiteNode* node) {
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  if (output->allocation_type == kTfLiteDynamic) {
    TF_LITE_ENSURE_STATUS(lg_range_shape(context, node));
  }
  const TfLiteTensor* start = &context->tensors[node->inputs->data[0]];
  const TfLiteTensor* delta = &context->tensors[node->inputs->data[2]];
  const int n = output->dims->data[0];
  if (n == 0) return kTfLiteOk;
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_data(context, LG_RANGE_OP, "output", output));
  switch (output->type) {
    case kTfLiteFloat32: {
      float v = start->data.f[0];
      for (int i = 0; i < n; ++i, v += delta->data.f[0]) output->data.f[i] = v;
      break;
    }
    case kTfLiteInt32: {
      int32_t v = start->data.i32[0];
      for (int i = 0; i < n; ++i) {
        output->data.i32[i] = v;
        v = (int32_t)((uint32_t)v + (uint32_t)delta->data.i32[0]);
      }
      break;
    }
    default: {
      int64_t v = start->data.i64[0];
      for (int i = 0; i < n; ++i) {
        output->data.i64[i] = v;
        v = (int64_t)((uint64_t)v + (uint64_t)delta->data.i64[0]);
      }
      break;
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(RANGE, NULL, NULL, lg_range_prepare, lg_range_invoke)

/* ---- WHERE -----------------------------------------------------------------
 */

#define LG_WHERE_OP "WHERE"
#define LG_WHERE_TYPES                                          \
  (LG_SHAPE_TYPE(kTfLiteBool) | LG_SHAPE_TYPE(kTfLiteFloat32) | \
   LG_SHAPE_TYPE(kTfLiteInt32) | LG_SHAPE_TYPE(kTfLiteInt64) |  \
   LG_SHAPE_TYPE(kTfLiteInt8) | LG_SHAPE_TYPE(kTfLiteUInt8))

static bool lg_where_true(const TfLiteTensor* t, int64_t i) {
  switch (t->type) {
    case kTfLiteFloat32:
      return t->data.f[i] != 0.0f; /* -0.0 is false */
    case kTfLiteInt32:
      return t->data.i32[i] != 0;
    case kTfLiteInt64:
      return t->data.i64[i] != 0;
    case kTfLiteInt8:
      return t->data.int8[i] != 0;
    default: /* BOOL, UINT8 */
      return t->data.uint8[i] != 0;
  }
}

static TfLiteStatus lg_where_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_WHERE_OP;
  const TfLiteTensor* cond;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 1, 1, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &cond));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "condition",
                                            cond->type, LG_WHERE_TYPES));
  TF_LITE_ENSURE_STATUS(lg_shape_check_type(context, op, "output", output->type,
                                            LG_SHAPE_TYPE(kTfLiteInt64)));
  TF_LITE_ENSURE_STATUS(
      lg_shape_check_rank(context, op, "condition", cond, LG_SHAPE_MAX_RANK));
  lg_kernel_set_dynamic(output);
  return kTfLiteOk;
}

static TfLiteStatus lg_where_invoke(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_WHERE_OP;
  const TfLiteTensor* cond = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  const int64_t n = lg_kernel_num_elements(cond);
  if (n > 0)
    TF_LITE_ENSURE_STATUS(lg_shape_check_data(context, op, "condition", cond));
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += lg_where_true(cond, i);
  const int rank = cond->dims->size;
  const int dims[2] = {(int)count, rank};
  TF_LITE_ENSURE_STATUS(lg_shape_resize(context, op, output, dims, 2));
  if (count == 0 || rank == 0) return kTfLiteOk;
  int64_t* out = output->data.i64;
  for (int64_t i = 0; i < n; ++i) {
    if (!lg_where_true(cond, i)) continue;
    int64_t rest = i;
    for (int d = rank - 1; d >= 0; --d) {
      out[d] = rest % cond->dims->data[d];
      rest /= cond->dims->data[d];
    }
    out += rank;
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(WHERE, NULL, NULL, lg_where_prepare, lg_where_invoke)
