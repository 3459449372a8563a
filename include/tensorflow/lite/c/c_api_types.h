/* litegpu: TFLite-compatible C API types.
 *
 * Status codes, element types and the opaque handle types shared by the C API
 * (c_api.h), the opaque operator API (c_api_opaque.h) and the delegate API
 * (common.h). Every enum keeps TFLite's numeric values so that code and data
 * written for TFLite's C API work unchanged.
 */
#ifndef TENSORFLOW_LITE_C_C_API_TYPES_H_
#define TENSORFLOW_LITE_C_C_API_TYPES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TFL_CAPI_EXPORT
#if defined(_WIN32)
#define TFL_CAPI_EXPORT
#else
#define TFL_CAPI_EXPORT __attribute__((visibility("default")))
#endif
#endif

/* Result of every fallible call. */
typedef enum TfLiteStatus {
  kTfLiteOk = 0,
  kTfLiteError = 1,
  kTfLiteDelegateError = 2,
  kTfLiteApplicationError = 3,
  kTfLiteDelegateDataNotFound = 4,
  kTfLiteDelegateDataWriteError = 5,
  kTfLiteDelegateDataReadError = 6,
  kTfLiteUnresolvedOps = 7,
  kTfLiteCancelled = 8,
  kTfLiteOutputShapeNotKnown = 9,
} TfLiteStatus;

/* Runtime element types. The numbering differs from the schema's TensorType. */
typedef enum {
  kTfLiteNoType = 0,
  kTfLiteFloat32 = 1,
  kTfLiteInt32 = 2,
  kTfLiteUInt8 = 3,
  kTfLiteInt64 = 4,
  kTfLiteString = 5,
  kTfLiteBool = 6,
  kTfLiteInt16 = 7,
  kTfLiteComplex64 = 8,
  kTfLiteInt8 = 9,
  kTfLiteFloat16 = 10,
  kTfLiteFloat64 = 11,
  kTfLiteComplex128 = 12,
  kTfLiteUInt64 = 13,
  kTfLiteResource = 14,
  kTfLiteVariant = 15,
  kTfLiteUInt32 = 16,
  kTfLiteUInt16 = 17,
  kTfLiteInt4 = 18,
  kTfLiteBFloat16 = 19,
  kTfLiteInt2 = 20,
  kTfLiteUInt4 = 21,
  kTfLiteFloat8E4M3FN = 22,
  kTfLiteFloat8E5M2 = 23,
} TfLiteType;

/* Legacy per-tensor affine quantization: real = scale * (q - zero_point). */
typedef struct TfLiteQuantizationParams {
  float scale;
  int32_t zero_point;
} TfLiteQuantizationParams;

/* Opaque handles of the C API. */
typedef struct TfLiteModel TfLiteModel;
typedef struct TfLiteInterpreterOptions TfLiteInterpreterOptions;
typedef struct TfLiteInterpreter TfLiteInterpreter;
typedef struct TfLiteTensor TfLiteTensor;
typedef struct TfLiteSignatureRunner TfLiteSignatureRunner;

/* Opaque views of the delegate/kernel structures (see c_api_opaque.h). */
typedef struct TfLiteOpaqueContext TfLiteOpaqueContext;
typedef struct TfLiteOpaqueNode TfLiteOpaqueNode;
typedef struct TfLiteOpaqueTensor TfLiteOpaqueTensor;

/* A delegate as seen through the C API. litegpu, like TFLite's default build
 * (without TFLITE_WITH_STABLE_ABI), uses TfLiteDelegate itself. */
typedef struct TfLiteDelegate TfLiteDelegate;
typedef TfLiteDelegate TfLiteOpaqueDelegate;

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_LITE_C_C_API_TYPES_H_ */
