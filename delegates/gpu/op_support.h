/* The GPU delegate's op support table (backend-neutral).
 *
 * Exactly the builtin ops the GPU backends run, as the delegate kit's ops
 * table (partition/delegate_kit.h): for each op TFLite's GPU kMaxVersion
 * (model_builder.cc CheckMaxSupportedOpVersion) and a check that applies
 * TFLite's GPU compatibility rules for the op (gpu_compatibility.cc, plus the
 * few conditions TFLite's parsers reject later, so a claimed node always
 * builds) and then the delegate's common tensor filter:
 *   - any input or output of rank 5 or more is refused;
 *   - every non-constant input and output must be float32 or float16 (CAST
 *     also takes int32/bool, GATHER int32 indices);
 * with TFLite's detail "OP is supported, but tensor type/shape isn't
 * compatible.". Refusals carry TFLite's detail strings where TFLite has one;
 * the version refusal ("Max version supported: 3. Requested version 4.") is
 * the kit's own.
 *
 * Ops TFLite checks no version for have max_version LG_GPU_ANY_VERSION.
 *
 *   int count = 0;
 *   const lg_kit_op* ops = lg_gpu_op_table(&count);
 *   lg_delegate_kit kit = {.name = "TfLiteGpuDelegateV2", .ops = ops,
 *                          .num_ops = count, .kernel = ...};
 *   ... in the delegate's Prepare: lg_delegate_kit_prepare(&kit, ctx, d);
 *
 *   char why[LG_KIT_REASON_SIZE];
 *   if (!lg_gpu_op_supported(ctx, node, reg, why, sizeof(why))) ...
 *
 * Ownership: the table is static and lives for the program. Thread safety:
 * the table is read-only; the checks only read the context, so they may run
 * on any thread that may read it.
 */
#ifndef LITEGPU_DELEGATES_GPU_OP_SUPPORT_H_
#define LITEGPU_DELEGATES_GPU_OP_SUPPORT_H_

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "ops/op_manifest.h"
#include "partition/delegate_kit.h"
#include "tensorflow/lite/c/common.h"

/* max_version of the ops TFLite's GPU delegate takes at every version. */
#define LG_GPU_ANY_VERSION LG_OP_ANY_VERSION

/* The detail TFLite gives when an op passes but a tensor does not. */
#define LG_GPU_TENSOR_REASON \
  "OP is supported, but tensor type/shape isn't compatible."

/* The ops table; *count (may be NULL) receives its length. */
const lg_kit_op* lg_gpu_op_table(int* count);

/* The table entry for a builtin code (a custom op: kTfLiteBuiltinCustom and
 * its name), or NULL when the GPU does not run it. */
const lg_kit_op* lg_gpu_op_find(int32_t builtin_code, const char* custom_name);

/* Decides one node as the kit would: true when the GPU takes it; otherwise
 * the reason (without the op name: "Operation is not supported.", the
 * version refusal, or the op's check) goes into `reason` (may be NULL when
 * `size` is 0). */
bool lg_gpu_op_supported(TfLiteContext* context, const TfLiteNode* node,
                         const TfLiteRegistration* registration, char* reason,
                         size_t size);

#endif /* LITEGPU_DELEGATES_GPU_OP_SUPPORT_H_ */
