#include "tests/support/test_interpreter.h"

#include "tensorflow/lite/c/c_api_experimental.h"

TfLiteInterpreter* lg_test_interpreter(const TfLiteModel* model,
                                       TfLiteDelegate* delegate,
                                       bool fallback) {
  TfLiteInterpreterOptions* o = TfLiteInterpreterOptionsCreate();
  if (o == NULL) return NULL;
  TfLiteInterpreterOptionsSetNumThreads(o, 1);
  TfLiteInterpreterOptionsSetEnableDelegateFallback(o, fallback);
  if (delegate != NULL) TfLiteInterpreterOptionsAddDelegate(o, delegate);
  TfLiteInterpreter* ip = TfLiteInterpreterCreate(model, o);
  TfLiteInterpreterOptionsDelete(o);
  if (ip != NULL && TfLiteInterpreterAllocateTensors(ip) != kTfLiteOk) {
    TfLiteInterpreterDelete(ip);
    return NULL;
  }
  return ip;
}
