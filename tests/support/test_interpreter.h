/* An interpreter as most delegate tests want one: one thread, the delegate
 * (may be NULL: the CPU alone), delegate fallback on or off, tensors
 * allocated.
 *
 *   TfLiteInterpreter* ip = lg_test_interpreter(model, delegate, false);
 *   assert_non_null(ip);
 */
#ifndef LITEGPU_TESTS_SUPPORT_TEST_INTERPRETER_H_
#define LITEGPU_TESTS_SUPPORT_TEST_INTERPRETER_H_

#include <stdbool.h>

#include "tensorflow/lite/c/c_api.h"

/* NULL when creating the interpreter or allocating its tensors fails. */
TfLiteInterpreter* lg_test_interpreter(const TfLiteModel* model,
                                       TfLiteDelegate* delegate, bool fallback);

#endif /* LITEGPU_TESTS_SUPPORT_TEST_INTERPRETER_H_ */
