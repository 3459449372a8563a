/* Op resolver (see op_resolver.h). */
#include "runtime/op_resolver.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernels.h"
#include "runtime/operator.h"
#include "tensorflow/lite/builtin_ops.h"

void lg_op_resolver_init(lg_op_resolver* resolver) {
  memset(resolver, 0, sizeof(*resolver));
  resolver->use_builtin_kernels = true;
}

void lg_op_resolver_release(lg_op_resolver* resolver) {
  if (resolver == NULL) return;
  for (int i = 0; i < resolver->count; ++i) {
    free(resolver->entries[i].custom_name);
  }
  free(resolver->entries);
  resolver->entries = NULL;
  resolver->count = 0;
  resolver->capacity = 0;
}

static TfLiteStatus grow(lg_op_resolver* resolver) {
  if (resolver->count < resolver->capacity) return kTfLiteOk;
  int capacity = resolver->capacity == 0 ? 8 : resolver->capacity * 2;
  lg_resolver_entry* entries =
      realloc(resolver->entries, sizeof(*entries) * (size_t)capacity);
  if (entries == NULL) return kTfLiteError;
  resolver->entries = entries;
  resolver->capacity = capacity;
  return kTfLiteOk;
}

TfLiteStatus lg_op_resolver_add(lg_op_resolver* resolver, int32_t builtin_code,
                                const char* custom_name,
                                const TfLiteRegistration* registration,
                                int min_version, int max_version) {
  if (resolver == NULL || registration == NULL || min_version < 1 ||
      max_version < min_version) {
    return kTfLiteError;
  }
  const bool is_custom = builtin_code == kTfLiteBuiltinCustom;
  if (is_custom && (custom_name == NULL || custom_name[0] == '\0')) {
    return kTfLiteError;
  }
  if (grow(resolver) != kTfLiteOk) return kTfLiteError;
  char* name_copy = NULL;
  if (is_custom) {
    name_copy = strdup(custom_name);
    if (name_copy == NULL) return kTfLiteError;
  }
  lg_resolver_entry* e = &resolver->entries[resolver->count++];
  e->builtin_code = builtin_code;
  e->custom_name = name_copy;
  e->min_version = min_version;
  e->max_version = max_version;
  e->registration = *registration;
  e->registration.builtin_code = builtin_code;
  e->registration.custom_name = name_copy;
  return kTfLiteOk;
}

TfLiteStatus lg_op_resolver_copy(lg_op_resolver* dst,
                                 const lg_op_resolver* src) {
  lg_op_resolver_release(dst);
  dst->use_builtin_kernels = src->use_builtin_kernels;
  dst->callbacks = src->callbacks;
  for (int i = 0; i < src->count; ++i) {
    const lg_resolver_entry* e = &src->entries[i];
    if (lg_op_resolver_add(dst, e->builtin_code, e->custom_name,
                           &e->registration, e->min_version,
                           e->max_version) != kTfLiteOk) {
      lg_op_resolver_release(dst);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

static bool same_op(int32_t code_a, const char* name_a, int32_t code_b,
                    const char* name_b) {
  if (code_a != code_b) return false;
  if (code_a != kTfLiteBuiltinCustom) return true;
  return name_a != NULL && name_b != NULL && strcmp(name_a, name_b) == 0;
}

/* Widens the supported range reported when the version is not covered. */
static void note_range(lg_resolve_result* result, int min_version,
                       int max_version) {
  if (result->status == LG_RESOLVE_NOT_FOUND) {
    result->status = LG_RESOLVE_VERSION_UNSUPPORTED;
    result->min_supported = min_version;
    result->max_supported = max_version;
    return;
  }
  if (min_version < result->min_supported) result->min_supported = min_version;
  if (max_version > result->max_supported) result->max_supported = max_version;
}

static bool has_callbacks(const lg_resolver_callbacks* cb) {
  return cb->find_builtin_op_external != NULL ||
         cb->find_custom_op_external != NULL || cb->find_builtin_op != NULL ||
         cb->find_custom_op != NULL;
}

/* TFLite's callback resolver: the operator callback, then the registration
 * one. */
static lg_resolve_result find_by_callbacks(const lg_resolver_callbacks* cb,
                                           int32_t builtin_code,
                                           const char* custom_name,
                                           int version) {
  lg_resolve_result result;
  memset(&result, 0, sizeof(result));
  result.status = LG_RESOLVE_NOT_FOUND;
  const bool custom = builtin_code == kTfLiteBuiltinCustom;
  if (custom && custom_name == NULL) return result;
  const TfLiteOperator* op = NULL;
  if (custom && cb->find_custom_op_external != NULL) {
    op = cb->find_custom_op_external(cb->user_data, custom_name, version);
  } else if (!custom && cb->find_builtin_op_external != NULL) {
    op =
        cb->find_builtin_op_external(cb->user_data, (int)builtin_code, version);
  }
  if (lg_operator_has_callbacks(op)) {
    result.status = LG_RESOLVE_FOUND;
    result.registration = lg_operator_registration(op);
    return result;
  }
  const TfLiteRegistration* registration = NULL;
  if (custom && cb->find_custom_op != NULL) {
    registration = cb->find_custom_op(cb->user_data, custom_name, version);
  } else if (!custom && cb->find_builtin_op != NULL) {
    registration = cb->find_builtin_op(
        cb->user_data, (TfLiteBuiltinOperator)builtin_code, version);
  }
  if (registration != NULL) {
    result.status = LG_RESOLVE_FOUND;
    result.registration = *registration;
  }
  return result;
}

lg_resolve_result lg_op_resolver_find(const lg_op_resolver* resolver,
                                      int32_t builtin_code,
                                      const char* custom_name, int version) {
  if (has_callbacks(&resolver->callbacks)) {
    return find_by_callbacks(&resolver->callbacks, builtin_code, custom_name,
                             version);
  }
  lg_resolve_result result;
  memset(&result, 0, sizeof(result));
  result.status = LG_RESOLVE_NOT_FOUND;
  for (int i = resolver->count - 1; i >= 0; --i) {
    const lg_resolver_entry* e = &resolver->entries[i];
    if (!same_op(e->builtin_code, e->custom_name, builtin_code, custom_name)) {
      continue;
    }
    if (version >= e->min_version && version <= e->max_version) {
      result.status = LG_RESOLVE_FOUND;
      result.registration = e->registration;
      return result;
    }
    note_range(&result, e->min_version, e->max_version);
  }
  if (!resolver->use_builtin_kernels) return result;
  int lo = 0, hi = 0;
  if (builtin_code == kTfLiteBuiltinCustom) {
    /* The custom ops TFLite's BuiltinOpResolver registers by name. */
    const lg_custom_kernel* ck =
        lg_custom_kernel_find(custom_name, version, &lo, &hi);
    if (ck != NULL) {
      result.status = LG_RESOLVE_FOUND;
      result.registration = *ck->registration();
    } else if (hi > 0) {
      note_range(&result, lo, hi);
    }
    return result;
  }
  const lg_builtin_kernel* k =
      lg_builtin_kernel_find(builtin_code, version, &lo, &hi);
  if (k != NULL) {
    result.status = LG_RESOLVE_FOUND;
    result.registration = *k->registration();
  } else if (hi > 0) {
    note_range(&result, lo, hi);
  }
  return result;
}
