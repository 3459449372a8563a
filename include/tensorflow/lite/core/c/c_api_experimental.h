/* litegpu: TFLite also ships this header under core/c/; it forwards to the
 * one under c/, so code including either path builds. */
#ifndef TENSORFLOW_LITE_CORE_C_C_API_EXPERIMENTAL_H_
#define TENSORFLOW_LITE_CORE_C_C_API_EXPERIMENTAL_H_

#include "tensorflow/lite/c/c_api_experimental.h"

#endif /* TENSORFLOW_LITE_CORE_C_C_API_EXPERIMENTAL_H_ */
