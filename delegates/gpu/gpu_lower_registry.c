/* The lowering table, derived from the op manifest's GPU rows
 * (ops/ops.def, gpu_lower.h). */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "delegates/gpu/gpu_lower.h"

#define LOWERING_ROW(NAME, code, custom, family, cpu, cpu_min, cpu_max, gpu, \
                     max, support, lowering, ...)                            \
  LOWERING_ROW_##gpu(code, custom, lowering)
#define LOWERING_ROW_GPU(code, custom, lowering) \
  {code, lg_gpu_limits_##lowering, lg_gpu_lower_##lowering, custom},
#define LOWERING_ROW_NO_GPU(code, custom, lowering)

static const lg_gpu_lowering kLowerings[] = {
#define LG_MANIFEST_EACH LOWERING_ROW
#include "ops/op_manifest_each.h"
};

static bool same_op(const lg_gpu_lowering* l, int32_t builtin_code,
                    const char* custom_name) {
  if (l->builtin_code != builtin_code) return false;
  if (l->custom_name == NULL) return true;
  return custom_name != NULL && strcmp(l->custom_name, custom_name) == 0;
}

const lg_gpu_lowering* lg_gpu_lowering_find(int32_t builtin_code,
                                            const char* custom_name) {
  for (size_t i = 0; i < sizeof(kLowerings) / sizeof(kLowerings[0]); ++i) {
    if (same_op(&kLowerings[i], builtin_code, custom_name)) {
      return &kLowerings[i];
    }
  }
  return NULL;
}
