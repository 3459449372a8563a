/* The plain-data helpers declared in common.h: int/float arrays, type names,
 * quantization cleanup and the zeroed delegate. */
#include "tensorflow/lite/c/common.h"

#include <stdlib.h>
#include <string.h>

size_t TfLiteIntArrayGetSizeInBytes(int size) {
  return sizeof(TfLiteIntArray) + sizeof(int) * (size_t)(size > 0 ? size : 0);
}

TfLiteIntArray* TfLiteIntArrayCreate(int size) {
  if (size < 0) return NULL;
  TfLiteIntArray* a = malloc(TfLiteIntArrayGetSizeInBytes(size));
  if (a != NULL) a->size = size;
  return a;
}

int TfLiteIntArrayEqual(const TfLiteIntArray* a, const TfLiteIntArray* b) {
  if (a == b) return 1;
  if (a == NULL || b == NULL) return 0;
  return TfLiteIntArrayEqualsArray(a, b->size, b->data);
}

int TfLiteIntArrayEqualsArray(const TfLiteIntArray* a, int b_size,
                              const int b_data[]) {
  if (a == NULL) return b_size == 0;
  if (a->size != b_size) return 0;
  for (int i = 0; i < b_size; ++i) {
    if (a->data[i] != b_data[i]) return 0;
  }
  return 1;
}

TfLiteIntArray* TfLiteIntArrayCopy(const TfLiteIntArray* src) {
  if (src == NULL) return NULL;
  TfLiteIntArray* a = TfLiteIntArrayCreate(src->size);
  if (a != NULL && src->size > 0) {
    memcpy(a->data, src->data, sizeof(int) * (size_t)src->size);
  }
  return a;
}

void TfLiteIntArrayFree(TfLiteIntArray* a) { free(a); }

int TfLiteFloatArrayGetSizeInBytes(int size) {
  return (int)(sizeof(TfLiteFloatArray) +
               sizeof(float) * (size_t)(size > 0 ? size : 0));
}

TfLiteFloatArray* TfLiteFloatArrayCreate(int size) {
  if (size < 0) return NULL;
  TfLiteFloatArray* a = malloc((size_t)TfLiteFloatArrayGetSizeInBytes(size));
  if (a != NULL) a->size = size;
  return a;
}

TfLiteFloatArray* TfLiteFloatArrayCopy(const TfLiteFloatArray* src) {
  if (src == NULL) return NULL;
  TfLiteFloatArray* a = TfLiteFloatArrayCreate(src->size);
  if (a != NULL && src->size > 0) {
    memcpy(a->data, src->data, sizeof(float) * (size_t)src->size);
  }
  return a;
}

void TfLiteFloatArrayFree(TfLiteFloatArray* a) { free(a); }

const char* TfLiteTypeGetName(TfLiteType type) {
  switch (type) {
    case kTfLiteNoType:
      return "NOTYPE";
    case kTfLiteFloat32:
      return "FLOAT32";
    case kTfLiteInt32:
      return "INT32";
    case kTfLiteUInt8:
      return "UINT8";
    case kTfLiteInt64:
      return "INT64";
    case kTfLiteString:
      return "STRING";
    case kTfLiteBool:
      return "BOOL";
    case kTfLiteInt16:
      return "INT16";
    case kTfLiteComplex64:
      return "COMPLEX64";
    case kTfLiteInt8:
      return "INT8";
    case kTfLiteFloat16:
      return "FLOAT16";
    case kTfLiteFloat64:
      return "FLOAT64";
    case kTfLiteComplex128:
      return "COMPLEX128";
    case kTfLiteUInt64:
      return "UINT64";
    case kTfLiteResource:
      return "RESOURCE";
    case kTfLiteVariant:
      return "VARIANT";
    case kTfLiteUInt32:
      return "UINT32";
    case kTfLiteUInt16:
      return "UINT16";
    case kTfLiteInt4:
      return "INT4";
    case kTfLiteBFloat16:
      return "BFLOAT16";
    case kTfLiteInt2:
      return "INT2";
    case kTfLiteUInt4:
      return "UINT4";
    case kTfLiteFloat8E4M3FN:
      return "FLOAT8E4M3FN";
    case kTfLiteFloat8E5M2:
      return "FLOAT8E5M2";
  }
  return "Unknown type";
}

TfLiteStatus TfLiteGetSizeOfType(TfLiteType type, size_t* bytes) {
  size_t size = 0;
  switch (type) {
    case kTfLiteFloat32:
      size = sizeof(float);
      break;
    case kTfLiteInt32:
      size = sizeof(int32_t);
      break;
    case kTfLiteUInt32:
      size = sizeof(uint32_t);
      break;
    case kTfLiteUInt8:
      size = 1;
      break;
    case kTfLiteInt8:
      size = 1;
      break;
    case kTfLiteBool:
      size = sizeof(bool);
      break;
    case kTfLiteInt64:
      size = sizeof(int64_t);
      break;
    case kTfLiteUInt64:
      size = sizeof(uint64_t);
      break;
    case kTfLiteInt16:
      size = sizeof(int16_t);
      break;
    case kTfLiteUInt16:
      size = sizeof(uint16_t);
      break;
    case kTfLiteFloat16:
      size = 2;
      break;
    case kTfLiteBFloat16:
      size = 2;
      break;
    case kTfLiteFloat64:
      size = sizeof(double);
      break;
    case kTfLiteComplex64:
      size = 2 * sizeof(float);
      break;
    case kTfLiteComplex128:
      size = 2 * sizeof(double);
      break;
    case kTfLiteFloat8E4M3FN:
      size = 1;
      break;
    case kTfLiteFloat8E5M2:
      size = 1;
      break;
    default:
      return kTfLiteError;
  }
  if (bytes != NULL) *bytes = size;
  return kTfLiteOk;
}

void TfLiteQuantizationFree(TfLiteQuantization* quantization) {
  if (quantization == NULL) return;
  if (quantization->type == kTfLiteAffineQuantization &&
      quantization->params != NULL) {
    TfLiteAffineQuantization* q = quantization->params;
    TfLiteFloatArrayFree(q->scale);
    TfLiteIntArrayFree(q->zero_point);
    free(q);
  }
  quantization->params = NULL;
  quantization->type = kTfLiteNoQuantization;
}

void TfLiteSparsityFree(TfLiteSparsity* sparsity) {
  if (sparsity == NULL) return;
  TfLiteIntArrayFree(sparsity->traversal_order);
  TfLiteIntArrayFree(sparsity->block_map);
  for (int i = 0;
       sparsity->dim_metadata != NULL && i < sparsity->dim_metadata_size; ++i) {
    TfLiteIntArrayFree(sparsity->dim_metadata[i].array_segments);
    TfLiteIntArrayFree(sparsity->dim_metadata[i].array_indices);
  }
  free(sparsity->dim_metadata);
  free(sparsity);
}

TfLiteDelegate TfLiteDelegateCreate(void) {
  TfLiteDelegate d;
  memset(&d, 0, sizeof(d));
  return d;
}
