/* litegpu: custom-op libraries, the plugins that litegpu's tools load with
 * --custom_op_library=PATH (benchmark_model, litegpu_run, inspect).
 *
 * A custom-op library is a shared object that exports one function,
 * litegpu_register_custom_ops (of type litegpu_register_custom_ops_fn
 * below), and is otherwise written against TFLite's C API headers only
 * (c_api.h, c_api_opaque.h): it is not linked against litegpu, whose
 * functions it gets from the program that loads it. The tool
 * dlopens the library, looks the function up by name and calls it on the
 * interpreter options of every interpreter it creates, before creating it;
 * the function adds the library's operators to those options:
 *
 *   TfLiteStatus litegpu_register_custom_ops(
 *       TfLiteInterpreterOptions* options) {
 *     TfLiteInterpreterOptionsAddOperator(options, MyOperator());
 *     return kTfLiteOk;
 *   }
 *
 * Operators added this way must outlive the interpreters (options keep
 * pointers to them): make them once and keep them (the tools never unload a
 * library while an interpreter exists). Any status other than kTfLiteOk
 * makes the tool stop with an error. examples/custom_op_atan/atan_op.c is a
 * complete library; docs/custom_ops.md walks through it.
 */
#ifndef LITEGPU_CUSTOM_OP_LIBRARY_H_
#define LITEGPU_CUSTOM_OP_LIBRARY_H_

#include "tensorflow/lite/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The name the tools look the function up by (dlsym). */
#define LITEGPU_REGISTER_CUSTOM_OPS_SYMBOL "litegpu_register_custom_ops"

/* The function's type. A library declares and defines the function
 * itself, with default visibility so that it is exported also when the
 * library builds with -fvisibility=hidden (this header does not declare it:
 * litegpu does not define it):
 *
 *   TFL_CAPI_EXPORT TfLiteStatus
 *   litegpu_register_custom_ops(TfLiteInterpreterOptions* options);
 */
typedef TfLiteStatus (*litegpu_register_custom_ops_fn)(
    TfLiteInterpreterOptions* options);

#ifdef __cplusplus
}
#endif

#endif /* LITEGPU_CUSTOM_OP_LIBRARY_H_ */
