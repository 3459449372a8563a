/* Helpers of the StableHLO kernels with dimension-number attributes
 * (STABLEHLO_GATHER, STABLEHLO_SCATTER): checks of the int64 dimension lists
 * TFLite's params hold, and the element types those kernels move.
 */
#ifndef LITEGPU_RUNTIME_KERNELS_STABLEHLO_UTIL_H_
#define LITEGPU_RUNTIME_KERNELS_STABLEHLO_UTIL_H_

#include <stdbool.h>
#include <stdint.h>

#include "runtime/kernels/shape_util.h"
#include "tensorflow/lite/c/common.h"

/* Every fixed-size type of 8, 16, 32 or 64 bits: LiteRT's StableHLO gather
 * and scatter move elements by their size. */
#define LG_STABLEHLO_TYPES_FIXED_SIZE                               \
  (LG_SHAPE_TYPES_MOVE | LG_SHAPE_TYPE(kTfLiteFloat16) |            \
   LG_SHAPE_TYPE(kTfLiteBFloat16) | LG_SHAPE_TYPE(kTfLiteFloat64) | \
   LG_SHAPE_TYPE(kTfLiteUInt16) | LG_SHAPE_TYPE(kTfLiteUInt32) |    \
   LG_SHAPE_TYPE(kTfLiteUInt64) | LG_SHAPE_TYPE(kTfLiteComplex64))

/* True when dims[0..count) holds value. */
bool lg_stablehlo_dims_contain(const int64_t* dims, int count, int64_t value);

/* Checks a dimension list: 0 <= count <= LG_SHAPE_MAX_RANK, every element in
 * [0, bound), no element twice and, when `sorted`, ascending ("OP: what[1] =
 * 5 is out of range [0, 3)", "OP: what is not sorted"). */
TfLiteStatus lg_stablehlo_check_dims(TfLiteContext* context, const char* op,
                                     const char* what, const int64_t* dims,
                                     int count, int bound, bool sorted);

#endif /* LITEGPU_RUNTIME_KERNELS_STABLEHLO_UTIL_H_ */
