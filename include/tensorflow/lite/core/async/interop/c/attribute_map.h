/* litegpu: TfLiteAttributeMap, the key/value attributes of a backend buffer
 * or a synchronization object, through which the application and the
 * runtime agree on an input's or output's buffers (async_signature_runner.h:
 * ReconcileRestrictions, SetAttributes, RegisterBuffer).
 *
 * Keys are TfLiteBufferAttrKey or TfLiteSynchronizationAttrKey values (by
 * the map's type), or custom strings. Getters return false when the key is
 * not set or holds a value of another type. String values are not copied:
 * the caller keeps them alive as long as the map; custom key names are
 * copied. A setter replaces the key's previous value. */
#ifndef TENSORFLOW_LITE_CORE_ASYNC_INTEROP_C_ATTRIBUTE_MAP_H_
#define TENSORFLOW_LITE_CORE_ASYNC_INTEROP_C_ATTRIBUTE_MAP_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/core/async/interop/c/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TfLiteAttributeMap TfLiteAttributeMap;

/* An empty map of `type`, owned by the caller; NULL without memory. */
TFL_CAPI_EXPORT TfLiteAttributeMap* TfLiteAttributeMapCreate(
    TfLiteAttrMapType type);
/* NULL is a no-op. */
TFL_CAPI_EXPORT void TfLiteAttributeMapDelete(TfLiteAttributeMap* attrs);

/* False for NULL. */
TFL_CAPI_EXPORT bool TfLiteAttributeMapIsBufferAttributeMap(
    const TfLiteAttributeMap* attrs);
TFL_CAPI_EXPORT bool TfLiteAttributeMapIsSyncAttributeMap(
    const TfLiteAttributeMap* attrs);

/* Replaces every attribute of `dst` (and its type) with `src`'s; nothing
 * when either is NULL. */
TFL_CAPI_EXPORT void TfLiteAttributeMapCopy(const TfLiteAttributeMap* src,
                                            TfLiteAttributeMap* dst);

/* Typed accessors: false when `attrs` is not a map of the key's kind (and
 * for getters, when the key is unset or of another value type). */
TFL_CAPI_EXPORT bool TfLiteAttributeMapGetSizeTBufferAttr(
    const TfLiteAttributeMap* attrs, TfLiteBufferAttrKey key, size_t* val);
TFL_CAPI_EXPORT bool TfLiteAttributeMapSetSizeTBufferAttr(
    TfLiteAttributeMap* attrs, TfLiteBufferAttrKey key, size_t val);
TFL_CAPI_EXPORT bool TfLiteAttributeMapGetStringBufferAttr(
    const TfLiteAttributeMap* attrs, TfLiteBufferAttrKey key, const char** val);
TFL_CAPI_EXPORT bool TfLiteAttributeMapSetStringBufferAttr(
    TfLiteAttributeMap* attrs, TfLiteBufferAttrKey key, const char* val);
TFL_CAPI_EXPORT bool TfLiteAttributeMapGetStringSyncAttr(
    const TfLiteAttributeMap* attrs, TfLiteSynchronizationAttrKey key,
    const char** val);
TFL_CAPI_EXPORT bool TfLiteAttributeMapSetStringSyncAttr(
    TfLiteAttributeMap* attrs, TfLiteSynchronizationAttrKey key,
    const char* val);

/* Accessors that do not check the key against the map's type, by numeric
 * key or by custom string key. */
#define LG_DECLARE_ATTR_MAP_ACCESSOR(type, type_name)                \
  TFL_CAPI_EXPORT bool TfLiteAttributeMapGet##type_name##Attr(       \
      const TfLiteAttributeMap* attrs, uint32_t key, type* val);     \
  TFL_CAPI_EXPORT void TfLiteAttributeMapSet##type_name##Attr(       \
      TfLiteAttributeMap* attrs, uint32_t key, type val);            \
  TFL_CAPI_EXPORT bool TfLiteAttributeMapGetCustom##type_name##Attr( \
      const TfLiteAttributeMap* attrs, const char* key, type* val);  \
  TFL_CAPI_EXPORT void TfLiteAttributeMapSetCustom##type_name##Attr( \
      TfLiteAttributeMap* attrs, const char* key, type val);

LG_DECLARE_ATTR_MAP_ACCESSOR(int, Int)
LG_DECLARE_ATTR_MAP_ACCESSOR(size_t, SizeT)
LG_DECLARE_ATTR_MAP_ACCESSOR(const char*, String)

#undef LG_DECLARE_ATTR_MAP_ACCESSOR

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_LITE_CORE_ASYNC_INTEROP_C_ATTRIBUTE_MAP_H_ */
