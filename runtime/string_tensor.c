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

TfLiteStatus lg_string_write(lg_subgraph* s, int index,
                             const char* const* strings, const size_t* lengths,
                             int32_t count, TfLiteIntArray* dims) {
  const lg_reporter* rep = &s->interpreter->reporter;
  TfLiteTensor* t = &s->context.tensors[index];
  if (dims == NULL) {
    dims = TfLiteIntArrayCreate(1);
    if (dims == NULL) return kTfLiteError;
    dims->data[0] = count;
  }
  int64_t elements = 1;
  for (int i = 0; i < dims->size && elements >= 0 && elements <= INT32_MAX;
       ++i) {
    elements = dims->data[i] < 0 ? -1 : elements * dims->data[i];
  }
  size_t total = sizeof(int32_t) * ((size_t)count + 2);
  for (int32_t i = 0; i < count && total <= INT32_MAX; ++i) total += lengths[i];
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
    return kTfLiteError;
  }
  lg_tensor_info* info = &s->tensor_info[index];
  char* buffer = realloc(info->heap, total);
  if (buffer == NULL) {
    lg_report(rep, "Writing strings to tensor %d: out of memory (%zu bytes)",
              index, total);
    TfLiteIntArrayFree(dims);
    return kTfLiteError;
  }
  info->heap = buffer;
  info->heap_size = total;
  int32_t v = count;
  memcpy(buffer, &v, sizeof v);
  int32_t offset = (int32_t)(sizeof(int32_t) * ((size_t)count + 2));
  for (int32_t i = 0; i <= count; ++i) {
    memcpy(buffer + sizeof(int32_t) * (size_t)(i + 1), &offset, sizeof offset);
    if (i < count) {
      if (lengths[i] > 0) memcpy(buffer + offset, strings[i], lengths[i]);
      offset += (int32_t)lengths[i];
    }
  }
  TfLiteIntArrayFree(t->dims);
  t->dims = dims;
  t->allocation_type = kTfLiteDynamic;
  t->data.raw = buffer;
  t->bytes = total;
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
