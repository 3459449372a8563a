/* Tensor helpers shared by the runtime, the model reader and delegates.
 *
 * Thread safety: pure functions. */
#ifndef LITEGPU_BASE_TENSOR_UTIL_H_
#define LITEGPU_BASE_TENSOR_UTIL_H_

#include <stddef.h>

#include "tensorflow/lite/c/common.h"

/* The byte size of `dims` elements of `type` into *bytes; kTfLiteError on
 * overflow or a type without a fixed element size. A RESOURCE element is an
 * int32 resource id; INT4 and UINT4 (two a byte) and INT2 (four a byte) are
 * packed, as TFLite stores them, the last byte possibly part used. */
TfLiteStatus lg_tensor_byte_size(TfLiteType type, const TfLiteIntArray* dims,
                                 size_t* bytes);

#endif /* LITEGPU_BASE_TENSOR_UTIL_H_ */
