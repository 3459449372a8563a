/* CAST between FLOAT32, INT32, INT64, BOOL, INT8 and UINT8, with LiteRT's
 * conversion rules:
 *   float -> integer  truncation toward zero, saturating at the target's
 *                     range; NaN gives the target's maximum
 *   float -> bool     nonzero is true (NaN too), +-0 is false
 *   integer -> integer two's complement wrap to the target width
 *   integer -> float  the nearest float (ties to even)
 *   integer -> bool   nonzero is true; bool -> anything is 0 or 1
 * The input and output types come from the tensors; CastOptions'
 * in_data_type / out_data_type are informational (TFLite ignores them too,
 * and writers may leave the options table out).
 *
 * Later versions add types this kernel does not convert (2: UINT32, 4:
 * UINT16, 5: FLOAT16 and FLOAT64, 6: INT4, 7: BFLOAT16, 8: INT2 and UINT4,
 * 9: newer ones; INT16 and COMPLEX64 are version 1 types); Prepare rejects
 * them by name.
 *
 * Invoke converts in chunks through two small stack buffers: the source is
 * read as float (float input) or as int64 (every other input, exact), then
 * written to the target type, so each type needs one reader and one writer
 * instead of a function per pair.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/common.h"

#define LG_CAST_OP "CAST"
/* Elements converted per pass through the stack buffers. */
#define LG_CAST_CHUNK 256

enum {
  kInputTensor = 0,
  kOutputTensor = 0,
};

typedef struct lg_cast_data {
  bool prepared;
  TfLiteType from;
  TfLiteType to;
  int64_t count;
} lg_cast_data;

static void* lg_cast_init(TfLiteContext* context, const char* buffer,
                          size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_cast_data));
}

static bool lg_cast_supported(TfLiteType type) {
  switch (type) {
    case kTfLiteFloat32:
    case kTfLiteInt32:
    case kTfLiteInt64:
    case kTfLiteBool:
    case kTfLiteInt8:
    case kTfLiteUInt8:
      return true;
    default:
      return false;
  }
}

static TfLiteStatus lg_cast_check_type(TfLiteContext* context, const char* what,
                                       TfLiteType type) {
  if (lg_cast_supported(type)) return kTfLiteOk;
  lg_kernel_log(context, LG_CAST_OP,
                "%s type %s is not supported (expected FLOAT32, INT32, INT64, "
                "BOOL, INT8 or UINT8)",
                what, TfLiteTypeGetName(type));
  return kTfLiteError;
}

static TfLiteStatus lg_cast_prepare(TfLiteContext* context, TfLiteNode* node) {
  lg_cast_data* data = node->user_data;
  if (data == NULL) {
    lg_kernel_log(context, LG_CAST_OP,
                  "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  data->prepared = false;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, LG_CAST_OP, 1, 1, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_CAST_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_CAST_OP, kOutputTensor, &output));
  TF_LITE_ENSURE_STATUS(lg_cast_check_type(context, "input", input->type));
  TF_LITE_ENSURE_STATUS(lg_cast_check_type(context, "output", output->type));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_check_shape(context, LG_CAST_OP, "input", input));
  data->from = input->type;
  data->to = output->type;
  data->count = lg_kernel_num_elements(input);
  TfLiteIntArray* shape = TfLiteIntArrayCopy(input->dims);
  if (shape == NULL) {
    lg_kernel_log(context, LG_CAST_OP, "out of memory for the output shape");
    return kTfLiteError;
  }
  /* ResizeTensor owns `shape` from here on, also when it fails. */
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, output, shape));
  data->prepared = true;
  return kTfLiteOk;
}

/* ---- Readers and writers ------------------------------------------------- */

/* Reads n integer-like elements (everything but FLOAT32) from index `at`. */
static void lg_cast_read_int(const void* in, TfLiteType type, int64_t at, int n,
                             int64_t* v) {
  switch (type) {
    case kTfLiteInt32:
      for (int i = 0; i < n; ++i) v[i] = ((const int32_t*)in)[at + i];
      break;
    case kTfLiteInt64:
      for (int i = 0; i < n; ++i) v[i] = ((const int64_t*)in)[at + i];
      break;
    case kTfLiteInt8:
      for (int i = 0; i < n; ++i) v[i] = ((const int8_t*)in)[at + i];
      break;
    default: /* UINT8 and BOOL: a bool byte other than 0 counts as true */
      for (int i = 0; i < n; ++i) {
        const uint8_t byte = ((const uint8_t*)in)[at + i];
        v[i] = type == kTfLiteBool ? byte != 0 : byte;
      }
      break;
  }
}

/* Writes n int64 values to an integer or bool target from index `at`,
 * wrapping to the target's width (the narrowing conversions are modular in
 * GCC and Clang). */
static void lg_cast_write_int(const int64_t* v, int n, void* out,
                              TfLiteType type, int64_t at) {
  switch (type) {
    case kTfLiteInt32:
      for (int i = 0; i < n; ++i)
        ((int32_t*)out)[at + i] = (int32_t)(uint32_t)(uint64_t)v[i];
      break;
    case kTfLiteInt64:
      for (int i = 0; i < n; ++i) ((int64_t*)out)[at + i] = v[i];
      break;
    case kTfLiteInt8:
      for (int i = 0; i < n; ++i)
        ((int8_t*)out)[at + i] = (int8_t)(uint8_t)(uint64_t)v[i];
      break;
    case kTfLiteUInt8:
      for (int i = 0; i < n; ++i)
        ((uint8_t*)out)[at + i] = (uint8_t)(uint64_t)v[i];
      break;
    default: /* BOOL */
      for (int i = 0; i < n; ++i) ((bool*)out)[at + i] = v[i] != 0;
      break;
  }
}

/* The integer range of an integer target type. */
static void lg_cast_int_range(TfLiteType type, int64_t* lo, int64_t* hi) {
  switch (type) {
    case kTfLiteInt32:
      *lo = INT32_MIN;
      *hi = INT32_MAX;
      break;
    case kTfLiteInt8:
      *lo = INT8_MIN;
      *hi = INT8_MAX;
      break;
    case kTfLiteUInt8:
      *lo = 0;
      *hi = UINT8_MAX;
      break;
    default: /* INT64 */
      *lo = INT64_MIN;
      *hi = INT64_MAX;
      break;
  }
}

/* Truncates toward zero and saturates to [lo, hi]; NaN gives hi. In double,
 * lo and hi + 1 are exact powers of two (or small integers), so the bounds
 * are exact for every target, int64 included. */
static int64_t lg_cast_saturate(float f, int64_t lo, int64_t hi) {
  const double d = f;
  if (isnan(d)) return hi;
  if (d < (double)lo) return lo;
  if (d >= (double)hi + 1.0) return hi;
  return (int64_t)d;
}

/* Converts n floats to the target type. */
static void lg_cast_from_float(const float* f, int n, void* out,
                               TfLiteType type, int64_t at) {
  if (type == kTfLiteFloat32) {
    for (int i = 0; i < n; ++i) ((float*)out)[at + i] = f[i];
    return;
  }
  if (type == kTfLiteBool) {
    for (int i = 0; i < n; ++i) ((bool*)out)[at + i] = f[i] != 0.0f;
    return;
  }
  int64_t v[LG_CAST_CHUNK];
  int64_t lo, hi;
  lg_cast_int_range(type, &lo, &hi);
  for (int i = 0; i < n; ++i) v[i] = lg_cast_saturate(f[i], lo, hi);
  lg_cast_write_int(v, n, out, type, at);
}

static void lg_cast_run(const lg_cast_data* data, const void* in, void* out) {
  for (int64_t at = 0; at < data->count; at += LG_CAST_CHUNK) {
    const int64_t left = data->count - at;
    const int n = left < LG_CAST_CHUNK ? (int)left : LG_CAST_CHUNK;
    if (data->from == kTfLiteFloat32) {
      lg_cast_from_float((const float*)in + at, n, out, data->to, at);
      continue;
    }
    int64_t v[LG_CAST_CHUNK];
    lg_cast_read_int(in, data->from, at, n, v);
    if (data->to == kTfLiteFloat32) {
      for (int i = 0; i < n; ++i) ((float*)out)[at + i] = (float)v[i];
    } else {
      lg_cast_write_int(v, n, out, data->to, at);
    }
  }
}

static TfLiteStatus lg_cast_invoke(TfLiteContext* context, TfLiteNode* node) {
  const lg_cast_data* data = node->user_data;
  if (data == NULL || !data->prepared) {
    lg_kernel_log(context, LG_CAST_OP, "invoked before a successful prepare");
    return kTfLiteError;
  }
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, LG_CAST_OP, kInputTensor, &input));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, LG_CAST_OP, kOutputTensor, &output));
  if (lg_kernel_num_elements(input) != data->count ||
      lg_kernel_num_elements(output) != data->count ||
      input->type != data->from || output->type != data->to) {
    lg_kernel_log(context, LG_CAST_OP, "tensors changed since prepare");
    return kTfLiteError;
  }
  if (data->count == 0) return kTfLiteOk;
  if (input->data.data == NULL || output->data.data == NULL) {
    lg_kernel_log(context, LG_CAST_OP, "a tensor has no data");
    return kTfLiteError;
  }
  lg_cast_run(data, input->data.data, output->data.data);
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(CAST, lg_cast_init, lg_kernel_free_data, lg_cast_prepare,
                       lg_cast_invoke)
