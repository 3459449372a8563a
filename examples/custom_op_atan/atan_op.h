/* The Atan custom op (y = atan(x), float32, elementwise) of
 * docs/custom_ops.md, written against TFLite's C API only.
 *
 * atan_op.c defines it once and registers it in both spellings of the
 * operator API: TfLiteOperator (current TFLite) and TfLiteRegistrationExternal
 * (TFLite 2.13 to 2.15). It is built as the custom-op library
 * litegpu_example_atan (loaded by the tools' --custom_op_library, which calls
 * litegpu_register_custom_ops) and compiled into
 * tests/unit/test_custom_op_atan.c, which runs every registration route.
 */
#ifndef LITEGPU_EXAMPLES_CUSTOM_OP_ATAN_ATAN_OP_H_
#define LITEGPU_EXAMPLES_CUSTOM_OP_ATAN_ATAN_OP_H_

#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/common.h"

/* The custom name the model's CUSTOM operator carries. */
#define ATAN_OP_NAME "Atan"

/* TfLiteOperator spelling: the operator, made on the first call and kept
 * (never deleted: interpreters borrow it). Register it with
 * TfLiteInterpreterOptionsAddOperator. Not thread-safe on the first call. */
TfLiteOperator* AtanOperator(void);

/* TFLite 2.13 to 2.15 spelling: the same kernel behind a
 * TfLiteRegistrationExternal made with the TfLiteRegistrationExternal*
 * functions, and a TfLiteRegistration that carries it in
 * registration_external (its own callbacks NULL), for
 * TfLiteInterpreterOptionsAddCustomOp (c_api_experimental.h). Made on the
 * first call and kept. */
TfLiteRegistrationExternal* AtanOpRegistrationExternal(void);
const TfLiteRegistration* AtanOpRegistration(void);

/* The custom-op library's entry point (include/litegpu/custom_op_library.h):
 * adds AtanOperator() to `options`. The library's only exported symbol. */
TFL_CAPI_EXPORT TfLiteStatus
litegpu_register_custom_ops(TfLiteInterpreterOptions* options);

#endif /* LITEGPU_EXAMPLES_CUSTOM_OP_ATAN_ATAN_OP_H_ */
