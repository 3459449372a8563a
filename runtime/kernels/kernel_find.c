/* Searching the builtin kernel table (kernels.h): lg_builtin_kernels and
 * lg_custom_kernels come from the table object that is linked, the full one
 * (register.c) or a selective one (tools/selective_registration.c).
 */
#include <stddef.h>
#include <string.h>

#include "runtime/kernels/kernels.h"

const lg_custom_kernel* lg_custom_kernel_find(const char* custom_name,
                                              int version, int* min_version,
                                              int* max_version) {
  int lo = 0, hi = 0;
  size_t count = 0;
  const lg_custom_kernel* table = lg_custom_kernels(&count);
  for (size_t i = 0; custom_name != NULL && i < count; ++i) {
    const lg_custom_kernel* k = &table[i];
    if (strcmp(k->custom_name, custom_name) != 0) continue;
    if (version >= k->min_version && version <= k->max_version) return k;
    if (lo == 0 || k->min_version < lo) lo = k->min_version;
    if (k->max_version > hi) hi = k->max_version;
  }
  if (min_version != NULL) *min_version = lo;
  if (max_version != NULL) *max_version = hi;
  return NULL;
}

const lg_builtin_kernel* lg_builtin_kernel_find(int32_t builtin_code,
                                                int version, int* min_version,
                                                int* max_version) {
  int lo = 0, hi = 0;
  size_t count = 0;
  const lg_builtin_kernel* table = lg_builtin_kernels(&count);
  for (size_t i = 0; i < count; ++i) {
    const lg_builtin_kernel* k = &table[i];
    if (k->builtin_code != builtin_code) continue;
    if (version >= k->min_version && version <= k->max_version) return k;
    if (lo == 0 || k->min_version < lo) lo = k->min_version;
    if (k->max_version > hi) hi = k->max_version;
  }
  if (min_version != NULL) *min_version = lo;
  if (max_version != NULL) *max_version = hi;
  return NULL;
}
