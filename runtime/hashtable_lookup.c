/* HASHTABLE_LOOKUP (builtin 10, version 1): looks int32 values up in a
 * table of sorted int32 keys, as TFLite's kernel does. An interpreter-level
 * kernel (like runtime/hashtable.c) because STRING outputs are written
 * with the interpreter's string writer.
 *
 * Inputs: lookups INT32 [N], keys INT32 [K] (sorted ascending), values
 * [K, ...] of any fixed-size type, or STRING [K]. Outputs: the found rows
 * [N, ...] of the values' type (STRING: [N]) and hits UINT8 [N] (1 found, 0
 * not). A row that is not found is zeros (an empty string).
 *
 * Each lookup is glibc's bsearch over the keys, comparing int32 values (TFLite
 * compares by the difference a - b, which its compiled kernel evaluates as
 * a comparison, without wrapping: LiteRT finds no key 2^31 - 1 past a key
 * -2^31), so keys that are not sorted give the same rows as TFLite's.
 * An empty table fails Invoke (as TFLite's kernel does). Sub-byte types
 * (INT4, UINT4, INT2), RESOURCE and VARIANT values are rejected in Prepare.
 *
 * Prepare sizes the string output's scratch; Invoke allocates only the
 * STRING output's buffer (through the interpreter's string writer).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/string_tensor.h"
#include "runtime/subgraph.h"

#define LG_HL_OP "HASHTABLE_LOOKUP"

enum { kLgHlLookup = 0, kLgHlKeys = 1, kLgHlValues = 2 };
enum { kLgHlOutput = 0, kLgHlHits = 1 };

typedef struct lg_hl_data {
  int count;            /* lookups the scratch holds */
  const char** strings; /* count: STRING rows */
  size_t* lengths;      /* count */
} lg_hl_data;

static void* lg_hl_init(TfLiteContext* context, const char* buffer,
                        size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_hl_data));
}

static void lg_hl_free(TfLiteContext* context, void* buffer) {
  (void)context;
  lg_hl_data* d = buffer;
  if (d == NULL) return;
  free(d->strings);
  free(d->lengths);
  free(d);
}

static TfLiteStatus lg_hl_check_1d_int32(TfLiteContext* context,
                                         const char* what,
                                         const TfLiteTensor* t) {
  char shape[64];
  if (t->dims->size != 1 || t->type != kTfLiteInt32) {
    lg_kernel_log(context, LG_HL_OP, "%s %s %s must be INT32 with rank 1", what,
                  TfLiteTypeGetName(t->type),
                  lg_kernel_format_shape(t->dims, shape, sizeof(shape)));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

static TfLiteStatus lg_hl_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_HL_OP;
  lg_hl_data* d = node->user_data;
  if (d == NULL) {
    lg_kernel_log(context, op, "no kernel data (out of memory in init)");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 3, 3, 2));
  const TfLiteTensor *lookup, *keys, *values;
  TfLiteTensor *output, *hits;
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kLgHlLookup, &lookup));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, kLgHlKeys, &keys));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_input(context, node, op, kLgHlValues, &values));
  TF_LITE_ENSURE_STATUS(
      lg_kernel_output(context, node, op, kLgHlOutput, &output));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, kLgHlHits, &hits));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "lookups", lookup));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "keys", keys));
  TF_LITE_ENSURE_STATUS(lg_kernel_check_shape(context, op, "values", values));
  TF_LITE_ENSURE_STATUS(lg_hl_check_1d_int32(context, "lookups", lookup));
  TF_LITE_ENSURE_STATUS(lg_hl_check_1d_int32(context, "keys", keys));
  char shape[64];
  if (values->dims->size < 1 || values->dims->data[0] != keys->dims->data[0] ||
      (values->type == kTfLiteString && values->dims->size != 1)) {
    lg_kernel_log(context, op, "values %s must have one row per key (%d)%s",
                  lg_kernel_format_shape(values->dims, shape, sizeof(shape)),
                  keys->dims->data[0],
                  values->type == kTfLiteString ? " and rank 1 (STRING)" : "");
    return kTfLiteError;
  }
  switch (values->type) {
    case kTfLiteInt4:
    case kTfLiteUInt4:
    case kTfLiteInt2:
    case kTfLiteResource:
    case kTfLiteVariant:
    case kTfLiteNoType:
      lg_kernel_log(context, op, "%s values are not supported",
                    TfLiteTypeGetName(values->type));
      return kTfLiteError;
    default:
      break;
  }
  if (output->type != values->type || hits->type != kTfLiteUInt8) {
    lg_kernel_log(context, op,
                  "output %s must be the values' type (%s) and hits %s "
                  "UINT8",
                  TfLiteTypeGetName(output->type),
                  TfLiteTypeGetName(values->type),
                  TfLiteTypeGetName(hits->type));
    return kTfLiteError;
  }
  const int n = lookup->dims->data[0];
  TfLiteIntArray* hit_dims = TfLiteIntArrayCreate(1);
  if (hit_dims == NULL) return kTfLiteError;
  hit_dims->data[0] = n;
  TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, hits, hit_dims));
  if (values->type == kTfLiteString) {
    if (d->count < n || d->strings == NULL) {
      const size_t m = n > 0 ? (size_t)n : 1;
      free(d->strings);
      free(d->lengths);
      d->strings = calloc(m, sizeof(*d->strings));
      d->lengths = calloc(m, sizeof(*d->lengths));
      d->count = 0;
      if (d->strings == NULL || d->lengths == NULL) {
        lg_kernel_log(context, op, "out of memory for %d lookups", n);
        return kTfLiteError;
      }
      d->count = n;
    }
    lg_kernel_set_dynamic(output);
    return kTfLiteOk;
  }
  TfLiteIntArray* out_dims = TfLiteIntArrayCopy(values->dims);
  if (out_dims == NULL) return kTfLiteError;
  out_dims->data[0] = n;
  return context->ResizeTensor(context, output, out_dims);
}

/* glibc's bsearch of x in keys[0..n), comparing values. */
static int lg_hl_find(const int32_t* keys, int n, int32_t x) {
  size_t lo = 0, hi = (size_t)n;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (x < keys[mid]) {
      hi = mid;
    } else if (x > keys[mid]) {
      lo = mid + 1;
    } else {
      return (int)mid;
    }
  }
  return -1;
}

static TfLiteStatus lg_hl_invoke(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_HL_OP;
  lg_hl_data* d = node->user_data;
  const TfLiteTensor* lookup =
      &context->tensors[node->inputs->data[kLgHlLookup]];
  const TfLiteTensor* keys = &context->tensors[node->inputs->data[kLgHlKeys]];
  const TfLiteTensor* values =
      &context->tensors[node->inputs->data[kLgHlValues]];
  const int out_index = node->outputs->data[kLgHlOutput];
  TfLiteTensor* output = &context->tensors[out_index];
  TfLiteTensor* hits = &context->tensors[node->outputs->data[kLgHlHits]];
  const int n = lookup->dims->data[0];
  const int rows = keys->dims->data[0];
  if (rows == 0) {
    lg_kernel_log(context, op, "the table has no keys");
    return kTfLiteError;
  }
  if ((n > 0 && (lookup->data.raw == NULL || hits->data.raw == NULL)) ||
      keys->data.raw == NULL) {
    lg_kernel_log(context, op, "a tensor has no data");
    return kTfLiteError;
  }
  if (values->type == kTfLiteString) {
    const char* why = NULL;
    const int32_t count = lg_string_count(values, &why);
    if (count != rows) {
      lg_kernel_log(context, op,
                    "the STRING values hold %d strings for %d "
                    "keys%s%s",
                    (int)count, rows, why ? ": " : "", why ? why : "");
      return kTfLiteError;
    }
    for (int i = 0; i < n; ++i) {
      const int at = lg_hl_find(keys->data.i32, rows, lookup->data.i32[i]);
      hits->data.uint8[i] = at >= 0;
      if (at >= 0) {
        lg_string_at(values, at, &d->strings[i], &d->lengths[i]);
      } else {
        d->strings[i] = "";
        d->lengths[i] = 0;
      }
    }
    lg_subgraph* s = lg_subgraph_of_kernel(context, op);
    if (s == NULL) return kTfLiteError;
    return lg_string_write(s, out_index, d->strings, d->lengths, n, NULL);
  }
  const size_t row_bytes = values->bytes / (size_t)rows;
  if (n > 0 && row_bytes > 0 &&
      (values->data.raw == NULL || output->data.raw == NULL)) {
    lg_kernel_log(context, op, "a tensor has no data");
    return kTfLiteError;
  }
  for (int i = 0; i < n; ++i) {
    const int at = lg_hl_find(keys->data.i32, rows, lookup->data.i32[i]);
    hits->data.uint8[i] = at >= 0;
    char* dst = output->data.raw + (size_t)i * row_bytes;
    if (at >= 0) {
      memcpy(dst, values->data.raw + (size_t)at * row_bytes, row_bytes);
    } else {
      memset(dst, 0, row_bytes);
    }
  }
  return kTfLiteOk;
}

LG_KERNEL_REGISTRATION(HASHTABLE_LOOKUP, lg_hl_init, lg_hl_free, lg_hl_prepare,
                       lg_hl_invoke)
