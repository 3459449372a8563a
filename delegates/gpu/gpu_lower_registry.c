/* The lowering table, derived from the op manifest's GPU rows
 * (ops/ops.def, gpu_lower.h). */
#include <stddef.h>

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

const lg_gpu_lowering* lg_gpu_lowering_find(int32_t builtin_code,
                                            const char* custom_name) {
  for (size_t i = 0; i < sizeof(kLowerings) / sizeof(kLowerings[0]); ++i) {
    if (lg_op_same(kLowerings[i].builtin_code, kLowerings[i].custom_name,
                   builtin_code, custom_name)) {
      return &kLowerings[i];
    }
  }
  return NULL;
}
