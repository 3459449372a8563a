/* Tensor helpers (tensor_util.h). */
#include "base/tensor_util.h"

#include <stdint.h>

TfLiteStatus lg_tensor_byte_size(TfLiteType type, const TfLiteIntArray* dims,
                                 size_t* bytes) {
  size_t size = 0;
  /* Sub-byte types are packed: elements per byte (count rounded up). */
  size_t per_byte = 1;
  /* A RESOURCE tensor holds int32 resource ids (what VAR_HANDLE writes). */
  if (type == kTfLiteResource) {
    size = sizeof(int32_t);
  } else if (type == kTfLiteInt4 || type == kTfLiteUInt4) {
    size = 1;
    per_byte = 2;
  } else if (type == kTfLiteInt2) {
    size = 1;
    per_byte = 4;
  } else if (TfLiteGetSizeOfType(type, &size) != kTfLiteOk) {
    return kTfLiteError;
  }
  if (dims == NULL) {
    *bytes = 0;
    return kTfLiteOk;
  }
  for (int i = 0; i < dims->size; ++i) {
    if (dims->data[i] < 0) return kTfLiteError;
    size_t d = (size_t)dims->data[i];
    if (d != 0 && size > SIZE_MAX / d) return kTfLiteError;
    size *= d;
  }
  *bytes = size / per_byte + (size % per_byte != 0);
  return kTfLiteOk;
}
