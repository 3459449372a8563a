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

bool lg_op_same(int32_t op_code, const char* op_custom_name, int32_t code,
                const char* custom_name) {
  if (op_code != code) return false;
  if (code != kTfLiteBuiltinCustom) return true;
  return op_custom_name != NULL && custom_name != NULL &&
         strcmp(op_custom_name, custom_name) == 0;
}

const lg_op_info* lg_op_find(int32_t builtin_code, const char* custom_name) {
  for (size_t i = 0; i < sizeof(kOps) / sizeof(kOps[0]); ++i) {
    if (lg_op_same(kOps[i].builtin_code, kOps[i].custom_name, builtin_code,
                   custom_name)) {
      return &kOps[i];
    }
  }
  return NULL;
}

int lg_op_gpu_opcode(int32_t builtin_code) {
  const lg_op_info* op = lg_op_find(builtin_code, NULL);
  return op != NULL ? op->gpu_opcode : -1;
}
