/* STRING tensors (string_tensor.h). */
#include "runtime/string_tensor.h"

#include <stdlib.h>
#include <string.h>

#include "litegpu/interpreter_info.h"
#include "runtime/subgraph.h"

static int32_t read_i32(const char* at) {
  int32_t v;
  memcpy(&v, at, sizeof v);
  return v;
}

int32_t lg_string_count(const TfLiteTensor* t, const char** why) {
  const char* unused;
  if (why == NULL) why = &unused;
  if (t->bytes == 0) return 0;
  if (t->data.raw_const == NULL) {
    *why = "it has no data";
    return -1;
  }
  if (t->bytes < sizeof(int32_t)) {
    *why = "it is shorter than its count";
    return -1;
  }
  const char* base = t->data.raw_const;
  const int32_t n = read_i32(base);
  if (n < 0 || (size_t)n + 2 > t->bytes / sizeof(int32_t)) {
    *why = "its count does not fit its size";
    return -1;
  }
  const int32_t header = (int32_t)(sizeof(int32_t) * ((size_t)n + 2));
  int32_t previous = header;
  for (int32_t i = 0; i <= n; ++i) {
    const int32_t offset = read_i32(base + sizeof(int32_t) * (size_t)(i + 1));
    if (offset < previous || (size_t)offset > t->bytes) {
      *why = "its offsets are not increasing within its size";
      return -1;
    }
    previous = offset;
  }
  return n;
}

void lg_string_at(const TfLiteTensor* t, int32_t i, const char** data,
                  size_t* length) {
  const char* base = t->data.raw_const;
  const int32_t start = read_i32(base + sizeof(int32_t) * (size_t)(i + 1));
  const int32_t end = read_i32(base + sizeof(int32_t) * (size_t)(i + 2));
  *data = base + start;
  *length = (size_t)(end - start);
}

/* Checks that `count` strings of `total` bytes (header included) may be
 * written to tensor `index` under `dims` (taken, also on failure), then
 * gives the tensor a buffer of `total` bytes holding the count and the
 * shape; the caller writes the offsets and the bytes. NULL on failure
 * (reported). */
static char* string_reserve(lg_subgraph* s, int index, int32_t count,
                            size_t total, TfLiteIntArray* dims) {
  const lg_reporter* rep = &s->interpreter->reporter;
  TfLiteTensor* t = &s->context.tensors[index];
  int64_t elements = 1;
  for (int i = 0; i < dims->size && elements >= 0 && elements <= INT32_MAX;
       ++i) {
    elements = dims->data[i] < 0 ? -1 : elements * dims->data[i];
  }
  const char* problem = t->type != kTfLiteString ? "it is not a STRING tensor"
                        : t->allocation_type == kTfLiteMmapRo ||
                                t->allocation_type == kTfLitePersistentRo
                            ? "it is a constant"
                        : count < 0 || elements != count
                            ? "the shape does not hold that many "
                              "strings"
                        : total > INT32_MAX ? "the strings are too long"
                                            : NULL;
  if (problem != NULL) {
    lg_report(rep, "Writing %d strings to tensor %d (%s): %s", (int)count,
              index, t->name ? t->name : "", problem);
    TfLiteIntArrayFree(dims);
    return NULL;
  }
  lg_tensor_info* info = &s->tensor_info[index];
  char* buffer = realloc(info->heap, total);
  if (buffer == NULL) {
    lg_report(rep, "Writing strings to tensor %d: out of memory (%zu bytes)",
              index, total);
    TfLiteIntArrayFree(dims);
    return NULL;
  }
  info->heap = buffer;
  info->heap_size = total;
  int32_t v = count;
  memcpy(buffer, &v, sizeof v);
  TfLiteIntArrayFree(t->dims);
  t->dims = dims;
  t->allocation_type = kTfLiteDynamic;
  t->data.raw = buffer;
  t->bytes = total;
  return buffer;
}

static size_t string_header(int32_t count) {
  return sizeof(int32_t) * ((size_t)count + 2);
}

static void write_i32(char* at, int32_t v) { memcpy(at, &v, sizeof v); }

TfLiteStatus lg_string_write(lg_subgraph* s, int index,
                             const char* const* strings, const size_t* lengths,
                             int32_t count, TfLiteIntArray* dims) {
  if (dims == NULL) {
    dims = TfLiteIntArrayCreate(1);
    if (dims == NULL) return kTfLiteError;
    dims->data[0] = count;
  }
  size_t total = count < 0 ? 0 : string_header(count);
  for (int32_t i = 0; i < count && total <= INT32_MAX; ++i) total += lengths[i];
  char* buffer = string_reserve(s, index, count, total, dims);
  if (buffer == NULL) return kTfLiteError;
  int32_t offset = (int32_t)string_header(count);
  for (int32_t i = 0; i <= count; ++i) {
    write_i32(buffer + sizeof(int32_t) * (size_t)(i + 1), offset);
    if (i < count) {
      if (lengths[i] > 0) memcpy(buffer + offset, strings[i], lengths[i]);
      offset += (int32_t)lengths[i];
    }
  }
  return kTfLiteOk;
}

TfLiteStatus lg_string_write_vector(lg_subgraph* s, int index,
                                    const char* const* strings,
                                    const int* lengths, int32_t count) {
  TfLiteIntArray* dims = TfLiteIntArrayCreate(1);
  if (dims == NULL) return kTfLiteError;
  dims->data[0] = count;
  size_t total = count < 0 ? 0 : string_header(count);
  for (int32_t i = 0; i < count && total <= INT32_MAX; ++i) {
    if (lengths[i] < 0 || (lengths[i] > 0 && strings[i] == NULL)) {
      lg_report(&s->interpreter->reporter,
                "Writing strings to tensor %d: string %d has %s", index, (int)i,
                lengths[i] < 0 ? "a negative length" : "no data");
      TfLiteIntArrayFree(dims);
      return kTfLiteError;
    }
    total += (size_t)lengths[i];
  }
  char* buffer = string_reserve(s, index, count, total, dims);
  if (buffer == NULL) return kTfLiteError;
  int32_t offset = (int32_t)string_header(count);
  for (int32_t i = 0; i <= count; ++i) {
    write_i32(buffer + sizeof(int32_t) * (size_t)(i + 1), offset);
    if (i < count) {
      if (lengths[i] > 0)
        memcpy(buffer + offset, strings[i], (size_t)lengths[i]);
      offset += lengths[i];
    }
  }
  return kTfLiteOk;
}

TfLiteStatus lg_string_copy(lg_subgraph* s, int index,
                            const TfLiteTensor* src) {
  if (src == &s->context.tensors[index]) return kTfLiteOk; /* in place */
  const char* why = NULL;
  const int32_t count = lg_string_count(src, &why);
  if (count < 0) {
    lg_report(&s->interpreter->reporter,
              "Copying strings to tensor %d: the source is malformed: %s",
              index, why);
    return kTfLiteError;
  }
  TfLiteIntArray* dims = TfLiteIntArrayCopy(src->dims);
  if (dims == NULL) return kTfLiteError;
  /* A tensor without bytes holds no strings: write the empty layout. */
  const size_t total = src->bytes == 0 ? string_header(0) : src->bytes;
  char* buffer = string_reserve(s, index, count, total, dims);
  if (buffer == NULL) return kTfLiteError;
  if (src->bytes == 0) {
    write_i32(buffer + sizeof(int32_t), (int32_t)string_header(0));
  } else {
    memcpy(buffer, src->data.raw_const, total);
  }
  return kTfLiteOk;
}

TfLiteStatus lg_string_check_input(TfLiteContext* context, const char* op,
                                   const char* what,
                                   const TfLiteTensor* tensor) {
  const char* why = NULL;
  const int32_t count = lg_string_count(tensor, &why);
  if (count < 0) {
    context->ReportError(context, "%s: STRING %s is malformed: %s", op, what,
                         why);
    return kTfLiteError;
  }
  int64_t elements = 1;
  for (int i = 0; i < tensor->dims->size; ++i) {
    elements *= tensor->dims->data[i];
    if (elements > INT32_MAX || elements < 0) break;
  }
  if (elements != count) {
    context->ReportError(context,
                         "%s: STRING %s holds %d strings for %lld elements", op,
                         what, (int)count, (long long)elements);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus lg_string_write_mapped(TfLiteContext* context, const char* op,
                                    TfLiteTensor* output,
                                    const TfLiteTensor* input, const int* dims,
                                    int rank, lg_string_map_fn map,
                                    const void* ctx) {
  lg_subgraph* s = lg_subgraph_of_kernel(context, op);
  if (s == NULL) return kTfLiteError;
  const ptrdiff_t index = output - context->tensors;
  if (index < 0 || (size_t)index >= context->tensors_size) {
    context->ReportError(context, "%s: the output is not a tensor of its graph",
                         op);
    return kTfLiteError;
  }
  int64_t count = 1;
  for (int i = 0; i < rank && count <= INT32_MAX; ++i) count *= dims[i];
  if (count > INT32_MAX) {
    context->ReportError(context, "%s: the output has too many strings", op);
    return kTfLiteError;
  }
  TfLiteIntArray* shape = TfLiteIntArrayCreate(rank);
  if (shape == NULL) return kTfLiteError;
  for (int i = 0; i < rank; ++i) shape->data[i] = dims[i];
  size_t total = string_header((int32_t)count);
  for (int64_t k = 0; k < count && total <= INT32_MAX; ++k) {
    const char* data;
    size_t length;
    lg_string_at(input, (int32_t)(map != NULL ? map(ctx, k) : k), &data,
                 &length);
    total += length;
  }
  char* buffer = string_reserve(s, (int)index, (int32_t)count, total, shape);
  if (buffer == NULL) return kTfLiteError;
  int32_t offset = (int32_t)string_header((int32_t)count);
  for (int64_t k = 0; k <= count; ++k) {
    write_i32(buffer + sizeof(int32_t) * (size_t)(k + 1), offset);
    if (k == count) break;
    const char* data;
    size_t length;
    lg_string_at(input, (int32_t)(map != NULL ? map(ctx, k) : k), &data,
                 &length);
    if (length > 0) memcpy(buffer + offset, data, length);
    offset += (int32_t)length;
  }
  return kTfLiteOk;
}

bool lg_string_find_tensor(const TfLiteInterpreter* ip, const TfLiteTensor* t,
                           lg_subgraph** s, int* index) {
  for (int g = 0; g < ip->num_subgraphs; ++g) {
    lg_subgraph* sub = &ip->subgraphs[g];
    const TfLiteTensor* first = sub->context.tensors;
    if (first != NULL && t >= first && t < first + sub->context.tensors_size) {
      *s = sub;
      *index = (int)(t - first);
      return true;
    }
  }
  return false;
}

TfLiteStatus litegpu_tensor_write_strings(TfLiteInterpreter* interpreter,
                                          TfLiteTensor* tensor,
                                          const char* const* strings,
                                          const size_t* lengths, int32_t count,
                                          const int* dims, int num_dims) {
  lg_subgraph* s = NULL;
  int index = 0;
  if (interpreter == NULL || tensor == NULL ||
      (count > 0 && (strings == NULL || lengths == NULL)) ||
      (dims == NULL && num_dims != 0) || num_dims < 0) {
    lg_report(interpreter ? &interpreter->reporter : NULL,
              "litegpu_tensor_write_strings: invalid argument");
    return kTfLiteError;
  }
  if (!lg_string_find_tensor(interpreter, tensor, &s, &index)) {
    lg_report(&interpreter->reporter,
              "litegpu_tensor_write_strings: the tensor is not one of this "
              "interpreter's");
    return kTfLiteError;
  }
  /* The shape is the tensor's: changing it is a resize, which the graph
   * must be prepared for (TfLiteInterpreterResizeInputTensor and
   * AllocateTensors first), as in TFLite. */
  if (dims != NULL &&
      !TfLiteIntArrayEqualsArray(tensor->dims, num_dims, dims)) {
    lg_report(&interpreter->reporter,
              "litegpu_tensor_write_strings: tensor %d (%s) has another "
              "shape; resize it (TfLiteInterpreterResizeInputTensor) and "
              "allocate tensors first",
              index, tensor->name ? tensor->name : "");
    return kTfLiteError;
  }
  TfLiteIntArray* shape = TfLiteIntArrayCopy(tensor->dims);
  if (shape == NULL) return kTfLiteError;
  return lg_string_write(s, index, strings, lengths, count, shape);
}
