/* Test helpers for suites that build models from spec text
 * (runtime/writer/model_spec.h) and check the messages the runtime reports.
 */
#ifndef LITEGPU_TESTS_SUPPORT_SPEC_MODEL_H_
#define LITEGPU_TESTS_SUPPORT_SPEC_MODEL_H_

#include <stdarg.h>
#include <stddef.h>

#include "runtime/writer/model_writer.h"
#include "tensorflow/lite/c/c_api.h"

/* The messages a reporter received, one per line (cut at the buffer). */
typedef struct lg_test_capture {
  char text[16384];
  size_t length;
} lg_test_capture;

/* A TfLiteErrorReporterCallback appending to the lg_test_capture at
 * user_data. */
void lg_test_capture_report(void* user_data, const char* format, va_list args);

/* The model `w` writes (w is destroyed; NULL is refused), or NULL when the
 * writer or the model reader refuses it. *data receives the model's bytes,
 * which the caller frees after deleting the model. */
TfLiteModel* lg_test_model_from_writer(lg_model_writer* w, void** data);

/* The same for spec text. */
TfLiteModel* lg_test_model_from_spec(const char* spec, void** data);

/* A WHILE loop over (i INT32, x FLOAT32 [2]): cond i < 3, body (i + 1,
 * x * 2). From i = 0, x = (1, -2) it gives i = 3, x = (8, -16). A string
 * literal, so that suites can size buffers from it. */
#define LG_TEST_WHILE_SPEC                                   \
  "tensor i INT32 -\n"                                       \
  "tensor x FLOAT32 2\n"                                     \
  "tensor i_out INT32 -\n"                                   \
  "tensor x_out FLOAT32 2\n"                                 \
  "op WHILE 1 in=i,x out=i_out,x_out cond_subgraph_index=1 " \
  "body_subgraph_index=2\n"                                  \
  "inputs i,x\n"                                             \
  "outputs i_out,x_out\n"                                    \
  "subgraph cond\n"                                          \
  "tensor i INT32 -\n"                                       \
  "tensor x FLOAT32 2\n"                                     \
  "tensor limit INT32 - values=3\n"                          \
  "tensor more BOOL -\n"                                     \
  "op LESS 1 in=i,limit out=more\n"                          \
  "inputs i,x\n"                                             \
  "outputs more\n"                                           \
  "subgraph body\n"                                          \
  "tensor i INT32 -\n"                                       \
  "tensor x FLOAT32 2\n"                                     \
  "tensor one INT32 - values=1\n"                            \
  "tensor two FLOAT32 - values=2\n"                          \
  "tensor i2 INT32 -\n"                                      \
  "tensor x2 FLOAT32 2\n"                                    \
  "op ADD 1 in=i,one out=i2\n"                               \
  "op MUL 1 in=x,two out=x2\n"                               \
  "inputs i,x\n"                                             \
  "outputs i2,x2\n"

#endif /* LITEGPU_TESTS_SUPPORT_SPEC_MODEL_H_ */
