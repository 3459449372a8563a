/* The manifest's rows as data (see op_manifest.h). */
#include "ops/op_manifest.h"

#include <stddef.h>
#include <string.h>

#define LG_OP_INFO_ROW(NAME, code, custom, family, cpu, cpu_min, cpu_max, gpu, \
                       gpu_max, support, lowering, opcode)                     \
  {#NAME, code, custom, #family, cpu_min, cpu_max, gpu_max, opcode},

static const lg_op_info kOps[] = {
#define LG_MANIFEST_EACH LG_OP_INFO_ROW
#include "ops/op_manifest_each.h"
};

const lg_op_info* lg_op_manifest(int* count) {
  if (count != NULL) *count = (int)(sizeof(kOps) / sizeof(kOps[0]));
  return kOps;
}

const lg_op_info* lg_op_find(int32_t builtin_code, const char* custom_name) {
  const bool custom = builtin_code == kTfLiteBuiltinCustom;
  if (custom && custom_name == NULL) return NULL;
  for (size_t i = 0; i < sizeof(kOps) / sizeof(kOps[0]); ++i) {
    const lg_op_info* op = &kOps[i];
    if (op->builtin_code != builtin_code) continue;
    if (!custom || strcmp(op->custom_name, custom_name) == 0) return op;
  }
  return NULL;
}
