/* Finds an op's lowering across the op families (gpu_lower.h). */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "delegates/gpu/gpu_lower.h"

typedef const lg_gpu_lowering* (*family_fn)(int* count);

static const family_fn kFamilies[] = {
    lg_gpu_lowerings_elementwise, lg_gpu_lowerings_conv,
    lg_gpu_lowerings_matmul,      lg_gpu_lowerings_shape,
    lg_gpu_lowerings_reduce,
};

static bool same_op(const lg_gpu_lowering* l, int32_t builtin_code,
                    const char* custom_name) {
  if (l->builtin_code != builtin_code) return false;
  if (l->custom_name == NULL) return true;
  return custom_name != NULL && strcmp(l->custom_name, custom_name) == 0;
}

const lg_gpu_lowering* lg_gpu_lowering_find(int32_t builtin_code,
                                            const char* custom_name) {
  for (size_t f = 0; f < sizeof(kFamilies) / sizeof(kFamilies[0]); ++f) {
    int count = 0;
    const lg_gpu_lowering* table = kFamilies[f](&count);
    for (int i = 0; i < count; ++i) {
      if (same_op(&table[i], builtin_code, custom_name)) return &table[i];
    }
  }
  return NULL;
}
