/* The interop objects of TFLite's asynchronous API
 * (tensorflow/lite/core/async/interop/c/): backend buffers,
 * synchronizations, attribute maps and the sync type constant. */
#include <stdlib.h>
#include <string.h>

#include "runtime/async_kernel_internal.h"
#include "tensorflow/lite/core/async/interop/c/attribute_map.h"
#include "tensorflow/lite/core/async/interop/c/constants.h"
#include "tensorflow/lite/core/async/interop/c/types.h"

const char kTfLiteSyncTypeNoSyncObj[] = "no_sync_obj";

/* ---- Backend buffers and synchronizations ------------------------------ */

struct TfLiteBackendBuffer {
  void* ptr;
};

TfLiteBackendBuffer* TfLiteBackendBufferCreate(void) {
  return calloc(1, sizeof(TfLiteBackendBuffer));
}

void TfLiteBackendBufferDelete(TfLiteBackendBuffer* buf) { free(buf); }

void TfLiteBackendBufferSetPtr(TfLiteBackendBuffer* buf, void* ptr) {
  if (buf != NULL) buf->ptr = ptr;
}

void* TfLiteBackendBufferGetPtr(const TfLiteBackendBuffer* buf) {
  return buf ? buf->ptr : NULL;
}

struct TfLiteSynchronization {
  void* ptr;
};

TfLiteSynchronization* TfLiteSynchronizationCreate(void) {
  return calloc(1, sizeof(TfLiteSynchronization));
}

void TfLiteSynchronizationDelete(TfLiteSynchronization* sync) { free(sync); }

void TfLiteSynchronizationSetPtr(TfLiteSynchronization* sync, void* ptr) {
  if (sync != NULL) sync->ptr = ptr;
}

void* TfLiteSynchronizationGetPtr(const TfLiteSynchronization* sync) {
  return sync ? sync->ptr : NULL;
}

/* ---- Attribute maps ------------------------------------------------------ */

typedef enum attr_kind { ATTR_INT, ATTR_SIZE_T, ATTR_STRING } attr_kind;

typedef struct attr {
  char* custom_key; /* owned; NULL for a numeric key */
  uint32_t key;
  attr_kind kind;
  union {
    int i;
    size_t z;
    const char* s; /* not owned */
  } value;
} attr;

struct TfLiteAttributeMap {
  TfLiteAttrMapType type;
  attr* items;
  size_t count;
  size_t capacity;
};

TfLiteAttributeMap* TfLiteAttributeMapCreate(TfLiteAttrMapType type) {
  TfLiteAttributeMap* m = calloc(1, sizeof(*m));
  if (m != NULL) m->type = type;
  return m;
}

static void clear(TfLiteAttributeMap* m) {
  for (size_t i = 0; i < m->count; ++i) free(m->items[i].custom_key);
  m->count = 0;
}

void TfLiteAttributeMapDelete(TfLiteAttributeMap* attrs) {
  if (attrs == NULL) return;
  clear(attrs);
  free(attrs->items);
  free(attrs);
}

bool TfLiteAttributeMapIsBufferAttributeMap(const TfLiteAttributeMap* attrs) {
  return attrs != NULL && attrs->type == kTfLiteAttrMapTypeBuffer;
}

bool TfLiteAttributeMapIsSyncAttributeMap(const TfLiteAttributeMap* attrs) {
  return attrs != NULL && attrs->type == kTfLiteAttrMapTypeSync;
}

/* The entry for a numeric key (custom_key NULL) or a custom key. */
static attr* find(const TfLiteAttributeMap* m, uint32_t key,
                  const char* custom_key) {
  for (size_t i = 0; i < m->count; ++i) {
    attr* a = &m->items[i];
    if (custom_key == NULL
            ? a->custom_key == NULL && a->key == key
            : a->custom_key != NULL && strcmp(a->custom_key, custom_key) == 0) {
      return a;
    }
  }
  return NULL;
}

/* The entry to overwrite for the key, appended when new; NULL when memory
 * runs out. */
static attr* slot(TfLiteAttributeMap* m, uint32_t key, const char* custom_key) {
  attr* a = find(m, key, custom_key);
  if (a != NULL) return a;
  if (m->count == m->capacity) {
    const size_t capacity = m->capacity ? 2 * m->capacity : 4;
    attr* items = realloc(m->items, capacity * sizeof(*items));
    if (items == NULL) return NULL;
    m->items = items;
    m->capacity = capacity;
  }
  char* copy = NULL;
  if (custom_key != NULL && (copy = strdup(custom_key)) == NULL) return NULL;
  a = &m->items[m->count++];
  memset(a, 0, sizeof(*a));
  a->custom_key = copy;
  a->key = key;
  return a;
}

void TfLiteAttributeMapCopy(const TfLiteAttributeMap* src,
                            TfLiteAttributeMap* dst) {
  if (src == NULL || dst == NULL || src == dst) return;
  clear(dst);
  dst->type = src->type;
  for (size_t i = 0; i < src->count; ++i) {
    const attr* from = &src->items[i];
    attr* to = slot(dst, from->key, from->custom_key);
    if (to == NULL) return; /* out of memory: a partial copy */
    to->kind = from->kind;
    to->value = from->value;
  }
}

static bool get(const TfLiteAttributeMap* m, uint32_t key,
                const char* custom_key, attr_kind kind, const attr** out) {
  if (m == NULL) return false;
  const attr* a = find(m, key, custom_key);
  if (a == NULL || a->kind != kind) return false;
  *out = a;
  return true;
}

static bool set(TfLiteAttributeMap* m, uint32_t key, const char* custom_key,
                attr_kind kind, const attr* value) {
  if (m == NULL) return false;
  attr* a = slot(m, key, custom_key);
  if (a == NULL) return false;
  a->kind = kind;
  a->value = value->value;
  return true;
}

/* The untyped accessors by numeric and by custom key, for one value type. */
#define LG_DEFINE_ATTR_ACCESSOR(type, type_name, member, kind)                 \
  bool TfLiteAttributeMapGet##type_name##Attr(const TfLiteAttributeMap* attrs, \
                                              uint32_t key, type* val) {       \
    const attr* a;                                                             \
    if (val == NULL || !get(attrs, key, NULL, kind, &a)) return false;         \
    *val = a->value.member;                                                    \
    return true;                                                               \
  }                                                                            \
  void TfLiteAttributeMapSet##type_name##Attr(TfLiteAttributeMap* attrs,       \
                                              uint32_t key, type val) {        \
    attr a = {.value.member = val};                                            \
    (void)set(attrs, key, NULL, kind, &a);                                     \
  }                                                                            \
  bool TfLiteAttributeMapGetCustom##type_name##Attr(                           \
      const TfLiteAttributeMap* attrs, const char* key, type* val) {           \
    const attr* a;                                                             \
    if (key == NULL || val == NULL || !get(attrs, 0, key, kind, &a)) {         \
      return false;                                                            \
    }                                                                          \
    *val = a->value.member;                                                    \
    return true;                                                               \
  }                                                                            \
  void TfLiteAttributeMapSetCustom##type_name##Attr(                           \
      TfLiteAttributeMap* attrs, const char* key, type val) {                  \
    attr a = {.value.member = val};                                            \
    if (key != NULL) (void)set(attrs, 0, key, kind, &a);                       \
  }

LG_DEFINE_ATTR_ACCESSOR(int, Int, i, ATTR_INT)
LG_DEFINE_ATTR_ACCESSOR(size_t, SizeT, z, ATTR_SIZE_T)
LG_DEFINE_ATTR_ACCESSOR(const char*, String, s, ATTR_STRING)

#undef LG_DEFINE_ATTR_ACCESSOR

/* ---- Typed accessors ------------------------------------------------------
 */

bool TfLiteAttributeMapGetSizeTBufferAttr(const TfLiteAttributeMap* attrs,
                                          TfLiteBufferAttrKey key,
                                          size_t* val) {
  return TfLiteAttributeMapIsBufferAttributeMap(attrs) &&
         TfLiteAttributeMapGetSizeTAttr(attrs, (uint32_t)key, val);
}

bool TfLiteAttributeMapSetSizeTBufferAttr(TfLiteAttributeMap* attrs,
                                          TfLiteBufferAttrKey key, size_t val) {
  attr a = {.value.z = val};
  return TfLiteAttributeMapIsBufferAttributeMap(attrs) &&
         set(attrs, (uint32_t)key, NULL, ATTR_SIZE_T, &a);
}

bool TfLiteAttributeMapGetStringBufferAttr(const TfLiteAttributeMap* attrs,
                                           TfLiteBufferAttrKey key,
                                           const char** val) {
  return TfLiteAttributeMapIsBufferAttributeMap(attrs) &&
         TfLiteAttributeMapGetStringAttr(attrs, (uint32_t)key, val);
}

bool TfLiteAttributeMapSetStringBufferAttr(TfLiteAttributeMap* attrs,
                                           TfLiteBufferAttrKey key,
                                           const char* val) {
  attr a = {.value.s = val};
  return TfLiteAttributeMapIsBufferAttributeMap(attrs) &&
         set(attrs, (uint32_t)key, NULL, ATTR_STRING, &a);
}

bool TfLiteAttributeMapGetStringSyncAttr(const TfLiteAttributeMap* attrs,
                                         TfLiteSynchronizationAttrKey key,
                                         const char** val) {
  return TfLiteAttributeMapIsSyncAttributeMap(attrs) &&
         TfLiteAttributeMapGetStringAttr(attrs, (uint32_t)key, val);
}

bool TfLiteAttributeMapSetStringSyncAttr(TfLiteAttributeMap* attrs,
                                         TfLiteSynchronizationAttrKey key,
                                         const char* val) {
  attr a = {.value.s = val};
  return TfLiteAttributeMapIsSyncAttributeMap(attrs) &&
         set(attrs, (uint32_t)key, NULL, ATTR_STRING, &a);
}

/* ---- TfLiteAsyncKernel ---------------------------------------------------
 */

struct TfLiteAsyncKernel {
  void* kernel_data;
  TfLiteStatus (*eval)(TfLiteAsyncKernel*, TfLiteOpaqueContext*,
                       TfLiteOpaqueNode*, TfLiteExecutionTask*);
  TfLiteStatus (*wait)(TfLiteAsyncKernel*, TfLiteOpaqueContext*,
                       TfLiteExecutionTask*);
  TfLiteStatus (*finish)(TfLiteAsyncKernel*, TfLiteOpaqueContext*,
                         TfLiteExecutionTask*);
  void (*supported_synchronizations)(const TfLiteAsyncKernel*, TfLiteIoType,
                                     const char* const**, size_t*);
  TfLiteStatus (*set_attributes)(TfLiteAsyncKernel*, TfLiteOpaqueContext*,
                                 TfLiteOpaqueNode*, int,
                                 const TfLiteAttributeMap*);
  TfLiteStatus (*register_buffer)(TfLiteAsyncKernel*, TfLiteOpaqueContext*,
                                  TfLiteIoType, const TfLiteBackendBuffer*,
                                  const TfLiteAttributeMap*,
                                  TfLiteBufferHandle);
  TfLiteStatus (*register_buffer_slice)(TfLiteAsyncKernel*,
                                        TfLiteOpaqueContext*,
                                        TfLiteBufferHandle,
                                        const TfLiteAttributeMap*,
                                        TfLiteBufferHandle);
  TfLiteStatus (*unregister_buffer)(TfLiteAsyncKernel*, TfLiteOpaqueContext*,
                                    TfLiteBufferHandle);
  void (*supported_buffer_types)(const TfLiteAsyncKernel*, TfLiteIoType,
                                 const char* const**, size_t*);
  bool (*reconcile_restrictions)(const TfLiteAsyncKernel*,
                                 const TfLiteOpaqueContext*,
                                 const TfLiteOpaqueNode*, int,
                                 const TfLiteAttributeMap*, TfLiteAttributeMap*,
                                 TfLiteAttributeMap*);
  TfLiteStatus (*prepare)(TfLiteAsyncKernel*, TfLiteOpaqueContext*,
                          TfLiteOpaqueNode*);
};

TfLiteAsyncKernel* TfLiteAsyncKernelCreate(void* kernel_data) {
  TfLiteAsyncKernel* kernel = calloc(1, sizeof(*kernel));
  if (kernel != NULL) kernel->kernel_data = kernel_data;
  return kernel;
}

void* TfLiteAsyncKernelGetKernelData(const TfLiteAsyncKernel* async_kernel) {
  return async_kernel != NULL ? async_kernel->kernel_data : NULL;
}

void TfLiteAsyncKernelSetEval(
    TfLiteAsyncKernel* async_kernel,
    TfLiteStatus (*eval)(TfLiteAsyncKernel* async_kernel,
                         TfLiteOpaqueContext* context, TfLiteOpaqueNode* node,
                         TfLiteExecutionTask* task)) {
  if (async_kernel != NULL) async_kernel->eval = eval;
}

void TfLiteAsyncKernelSetWait(
    TfLiteAsyncKernel* async_kernel,
    TfLiteStatus (*wait)(TfLiteAsyncKernel* async_kernel,
                         TfLiteOpaqueContext* context,
                         TfLiteExecutionTask* task)) {
  if (async_kernel != NULL) async_kernel->wait = wait;
}

void TfLiteAsyncKernelSetFinish(
    TfLiteAsyncKernel* async_kernel,
    TfLiteStatus (*finish)(TfLiteAsyncKernel* async_kernel,
                           TfLiteOpaqueContext* context,
                           TfLiteExecutionTask* task)) {
  if (async_kernel != NULL) async_kernel->finish = finish;
}

void TfLiteAsyncKernelSetSupportedSynchronizations(
    TfLiteAsyncKernel* async_kernel,
    void (*supported_synchronizations)(const TfLiteAsyncKernel* async_kernel,
                                       TfLiteIoType io_type,
                                       const char* const** types,
                                       size_t* n_types)) {
  if (async_kernel != NULL) {
    async_kernel->supported_synchronizations = supported_synchronizations;
  }
}

void TfLiteAsyncKernelSetSetAttributes(
    TfLiteAsyncKernel* async_kernel,
    TfLiteStatus (*set_attributes)(TfLiteAsyncKernel* async_kernel,
                                   TfLiteOpaqueContext* context,
                                   TfLiteOpaqueNode* node, int tensor_index,
                                   const TfLiteAttributeMap* attrs)) {
  if (async_kernel != NULL) async_kernel->set_attributes = set_attributes;
}

void TfLiteAsyncKernelSetRegisterBuffer(
    TfLiteAsyncKernel* async_kernel,
    TfLiteStatus (*register_buffer)(
        TfLiteAsyncKernel* async_kernel, TfLiteOpaqueContext* context,
        TfLiteIoType io_type, const TfLiteBackendBuffer* buffer,
        const TfLiteAttributeMap* attrs, TfLiteBufferHandle handle)) {
  if (async_kernel != NULL) async_kernel->register_buffer = register_buffer;
}

void TfLiteAsyncKernelSetRegisterBufferSlice(
    TfLiteAsyncKernel* async_kernel,
    TfLiteStatus (*register_buffer_slice)(TfLiteAsyncKernel* async_kernel,
                                          TfLiteOpaqueContext* context,
                                          TfLiteBufferHandle buffer_pool,
                                          const TfLiteAttributeMap* attrs,
                                          TfLiteBufferHandle handle)) {
  if (async_kernel != NULL) {
    async_kernel->register_buffer_slice = register_buffer_slice;
  }
}

void TfLiteAsyncKernelSetUnregisterBuffer(
    TfLiteAsyncKernel* async_kernel,
    TfLiteStatus (*unregister_buffer)(TfLiteAsyncKernel* async_kernel,
                                      TfLiteOpaqueContext* context,
                                      TfLiteBufferHandle handle)) {
  if (async_kernel != NULL) async_kernel->unregister_buffer = unregister_buffer;
}

void TfLiteAsyncKernelSetSupportedBufferTypes(
    TfLiteAsyncKernel* async_kernel,
    void (*supported_buffer_types)(const TfLiteAsyncKernel* async_kernel,
                                   TfLiteIoType io_type,
                                   const char* const** types,
                                   size_t* n_types)) {
  if (async_kernel != NULL) {
    async_kernel->supported_buffer_types = supported_buffer_types;
  }
}

void TfLiteAsyncKernelSetReconcileRestrictions(
    TfLiteAsyncKernel* async_kernel,
    bool (*reconcile_restrictions)(
        const TfLiteAsyncKernel* async_kernel,
        const TfLiteOpaqueContext* context, const TfLiteOpaqueNode* node,
        int tensor_index, const TfLiteAttributeMap* user_provided_attributes,
        TfLiteAttributeMap* merged, TfLiteAttributeMap* conflict)) {
  if (async_kernel != NULL) {
    async_kernel->reconcile_restrictions = reconcile_restrictions;
  }
}

void TfLiteAsyncKernelSetPrepare(
    TfLiteAsyncKernel* async_kernel,
    TfLiteStatus (*prepare)(TfLiteAsyncKernel* async_kernel,
                            TfLiteOpaqueContext* context,
                            TfLiteOpaqueNode* node)) {
  if (async_kernel != NULL) async_kernel->prepare = prepare;
}

void TfLiteAsyncKernelDelete(TfLiteAsyncKernel* async_kernel) {
  free(async_kernel);
}

bool lg_async_kernel_runnable(const TfLiteAsyncKernel* kernel) {
  return kernel != NULL && kernel->eval != NULL && kernel->wait != NULL;
}

TfLiteStatus lg_async_kernel_eval(TfLiteAsyncKernel* kernel,
                                  TfLiteOpaqueContext* context,
                                  TfLiteOpaqueNode* node,
                                  TfLiteExecutionTask* task) {
  return kernel->eval(kernel, context, node, task);
}

TfLiteStatus lg_async_kernel_wait(TfLiteAsyncKernel* kernel,
                                  TfLiteOpaqueContext* context,
                                  TfLiteExecutionTask* task) {
  return kernel->wait(kernel, context, task);
}

TfLiteStatus lg_async_kernel_finish(TfLiteAsyncKernel* kernel,
                                    TfLiteOpaqueContext* context,
                                    TfLiteExecutionTask* task) {
  return kernel->finish != NULL ? kernel->finish(kernel, context, task)
                                : kTfLiteOk;
}

bool lg_async_kernel_supported_synchronizations(const TfLiteAsyncKernel* kernel,
                                                TfLiteIoType io_type,
                                                const char* const** types,
                                                size_t* num_types) {
  if (kernel == NULL || kernel->supported_synchronizations == NULL) {
    return false;
  }
  *types = NULL;
  *num_types = 0;
  kernel->supported_synchronizations(kernel, io_type, types, num_types);
  return true;
}

TfLiteStatus lg_async_kernel_set_attributes(TfLiteAsyncKernel* kernel,
                                            TfLiteOpaqueContext* context,
                                            TfLiteOpaqueNode* node,
                                            int tensor_index,
                                            const TfLiteAttributeMap* attrs) {
  return kernel->set_attributes != NULL
             ? kernel->set_attributes(kernel, context, node, tensor_index,
                                      attrs)
             : kTfLiteOk;
}

bool lg_async_kernel_supported_buffer_types(const TfLiteAsyncKernel* kernel,
                                            TfLiteIoType io_type,
                                            const char* const** types,
                                            size_t* num_types) {
  if (kernel == NULL || kernel->supported_buffer_types == NULL) return false;
  *types = NULL;
  *num_types = 0;
  kernel->supported_buffer_types(kernel, io_type, types, num_types);
  return true;
}

bool lg_async_kernel_reconciles(const TfLiteAsyncKernel* kernel) {
  return kernel != NULL && kernel->reconcile_restrictions != NULL;
}

bool lg_async_kernel_reconcile(const TfLiteAsyncKernel* kernel,
                               const TfLiteOpaqueContext* context,
                               const TfLiteOpaqueNode* node, int tensor_index,
                               const TfLiteAttributeMap* user,
                               TfLiteAttributeMap* merged,
                               TfLiteAttributeMap* conflict) {
  return kernel->reconcile_restrictions(kernel, context, node, tensor_index,
                                        user, merged, conflict);
}

TfLiteStatus lg_async_kernel_prepare(TfLiteAsyncKernel* kernel,
                                     TfLiteOpaqueContext* context,
                                     TfLiteOpaqueNode* node) {
  return kernel->prepare != NULL ? kernel->prepare(kernel, context, node)
                                 : kTfLiteOk;
}

TfLiteStatus lg_async_kernel_register_buffer(TfLiteAsyncKernel* kernel,
                                             TfLiteOpaqueContext* context,
                                             TfLiteIoType io_type,
                                             const TfLiteBackendBuffer* buffer,
                                             const TfLiteAttributeMap* attrs,
                                             TfLiteBufferHandle handle) {
  return kernel->register_buffer != NULL
             ? kernel->register_buffer(kernel, context, io_type, buffer, attrs,
                                       handle)
             : kTfLiteOk;
}

TfLiteStatus lg_async_kernel_register_buffer_slice(
    TfLiteAsyncKernel* kernel, TfLiteOpaqueContext* context,
    TfLiteBufferHandle pool, const TfLiteAttributeMap* attrs,
    TfLiteBufferHandle handle) {
  return kernel->register_buffer_slice != NULL
             ? kernel->register_buffer_slice(kernel, context, pool, attrs,
                                             handle)
             : kTfLiteOk;
}

TfLiteStatus lg_async_kernel_unregister_buffer(TfLiteAsyncKernel* kernel,
                                               TfLiteOpaqueContext* context,
                                               TfLiteBufferHandle handle) {
  return kernel->unregister_buffer != NULL
             ? kernel->unregister_buffer(kernel, context, handle)
             : kTfLiteOk;
}
