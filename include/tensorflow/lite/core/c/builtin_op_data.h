/* litegpu: TFLite also ships this header under core/c/; it forwards to the
 * one under c/, so code including either path builds. */
#ifndef TENSORFLOW_LITE_CORE_C_BUILTIN_OP_DATA_H_
#define TENSORFLOW_LITE_CORE_C_BUILTIN_OP_DATA_H_

#include "tensorflow/lite/c/builtin_op_data.h"

#endif /* TENSORFLOW_LITE_CORE_C_BUILTIN_OP_DATA_H_ */
