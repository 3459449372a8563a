/* Expands every row of ops/ops.def through the macro LG_MANIFEST_EACH names
 * (see ops/op_manifest.h), then undefines it. No include guard: each
 * inclusion expands the rows again. It includes nothing (it is often
 * included inside an array initializer): include ops/op_manifest.h first. */
#ifndef LITEGPU_OPS_OP_MANIFEST_H_
#error "include ops/op_manifest.h before ops/op_manifest_each.h"
#endif
#ifndef LG_MANIFEST_EACH
#error "define LG_MANIFEST_EACH before including ops/op_manifest_each.h"
#endif

#define ANY LG_OP_ANY_VERSION
#define LG_OP(NAME, Code, family, cpu, gpu)                                   \
  LG_MANIFEST_ROW(LG_MANIFEST_EACH, NAME, kTfLiteBuiltin##Code, NULL, family, \
                  cpu, gpu)
#define LG_CUSTOM_OP(NAME, custom, family, cpu, gpu)                    \
  LG_MANIFEST_ROW(LG_MANIFEST_EACH, NAME, kTfLiteBuiltinCustom, custom, \
                  family, cpu, gpu)

#include "ops/ops.def"

#undef LG_OP
#undef LG_CUSTOM_OP
#undef ANY
#undef LG_MANIFEST_EACH
