/* litegpu: backend buffers, synchronization objects and attribute keys of
 * TFLite's asynchronous API.
 *
 * A TfLiteBackendBuffer and a TfLiteSynchronization each carry one pointer
 * to a platform object; neither owns it. The attribute map that goes with
 * them (attribute_map.h) says what the pointer is: for buffers the
 * kTfLiteBufferAttrKeyResourceTypeName attribute, for synchronizations
 * kTfLiteSynchronizationAttrKeyObjectTypeName. litegpu's buffer type is
 * host memory (LITEGPU_BUFFER_TYPE_HOST_MEMORY in litegpu/async.h). */
#ifndef TENSORFLOW_LITE_CORE_ASYNC_INTEROP_C_TYPES_H_
#define TENSORFLOW_LITE_CORE_ASYNC_INTEROP_C_TYPES_H_

#include <stdint.h>

#include "tensorflow/lite/c/c_api_types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TfLiteBackendBuffer TfLiteBackendBuffer;

/* An empty buffer (pointer NULL), owned by the caller; NULL without
 * memory. */
TFL_CAPI_EXPORT TfLiteBackendBuffer* TfLiteBackendBufferCreate(void);
/* Leaves the object the pointer names alone. NULL is a no-op. */
TFL_CAPI_EXPORT void TfLiteBackendBufferDelete(TfLiteBackendBuffer* buf);
/* `ptr` must outlive `buf`; it is not copied or owned. */
TFL_CAPI_EXPORT void TfLiteBackendBufferSetPtr(TfLiteBackendBuffer* buf,
                                               void* ptr);
TFL_CAPI_EXPORT void* TfLiteBackendBufferGetPtr(const TfLiteBackendBuffer* buf);

typedef struct TfLiteSynchronization TfLiteSynchronization;

/* An empty synchronization (pointer NULL), owned by the caller. */
TFL_CAPI_EXPORT TfLiteSynchronization* TfLiteSynchronizationCreate(void);
TFL_CAPI_EXPORT void TfLiteSynchronizationDelete(TfLiteSynchronization* sync);
TFL_CAPI_EXPORT void TfLiteSynchronizationSetPtr(TfLiteSynchronization* sync,
                                                 void* ptr);
TFL_CAPI_EXPORT void* TfLiteSynchronizationGetPtr(
    const TfLiteSynchronization* sync);

/* What an attribute map describes, and so how its keys read. */
typedef enum TfLiteAttrMapType {
  kTfLiteAttrMapTypeUnknown = 0,
  kTfLiteAttrMapTypeBuffer = 1, /* keys are TfLiteBufferAttrKey */
  kTfLiteAttrMapTypeSync = 2,   /* keys are TfLiteSynchronizationAttrKey */
} TfLiteAttrMapType;

/* Buffer attribute keys, with the value type each takes. */
typedef enum TfLiteBufferAttrKey {
  kTfLiteBufferAttrKeyUnknown = 0,
  kTfLiteBufferAttrKeyResourceTypeName = 1,            /* const char* */
  kTfLiteBufferAttrKeyAlignment = 2,                   /* size_t */
  kTfLiteBufferAttrKeyPadding = 3,                     /* size_t */
  kTfLiteBufferAttrKeyOffset = 4,                      /* size_t */
  kTfLiteBufferAttrKeySize = 5,                        /* size_t, padded size */
  kTfLiteBufferAttrKeyCurrentHostCoherencyState = 6,   /* bool */
  kTfLiteBufferAttrKeyPreferredHostCoherencyState = 7, /* bool */
  kTfLiteBufferAttrKeyCurrentHostCacheState = 8,       /* bool */
  kTfLiteBufferAttrKeyPreferredHostCacheState = 9,     /* bool */
} TfLiteBufferAttrKey;

/* Synchronization attribute keys. */
typedef enum TfLiteSynchronizationAttrKey {
  kTfLiteSynchronizationAttrKeyUnknown = 0,
  kTfLiteSynchronizationAttrKeyObjectTypeName = 1, /* const char* */
} TfLiteSynchronizationAttrKey;

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_LITE_CORE_ASYNC_INTEROP_C_TYPES_H_ */
