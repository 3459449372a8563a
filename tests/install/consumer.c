/* A program that uses litegpu the way TFLite's C API documentation uses
 * TFLite: it includes only TFLite's public headers (c_api.h, and the GPU
 * delegate's delegate.h) and links against the installed library.
 * run_install_test.sh builds it against an installed tree (through CMake's
 * find_package and through pkg-config) to prove that the installed headers,
 * libraries and package files are complete.
 *
 *   consumer MODEL.tflite [X [gpu]]
 *
 * Feeds one float X (default 1.0) to a model with one float input and one
 * float output (hello_world_float.tflite: y ~ sin(x)) and prints "y = ...".
 * With "gpu" the interpreter gets TFLite's GPU delegate with its default
 * options (TfLiteGpuDelegateV2Create(NULL)); creating it must succeed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/delegates/gpu/delegate.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL.tflite [X]\n", argv[0]);
    return 2;
  }
  const float x = argc > 2 ? strtof(argv[2], NULL) : 1.0f;
  const int use_gpu = argc > 3 && strcmp(argv[3], "gpu") == 0;
  float y = 0.0f;
  int rc = 1;
  TfLiteDelegate* gpu = NULL;

  TfLiteModel* model = TfLiteModelCreateFromFile(argv[1]);
  TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreter* interpreter = NULL;
  TfLiteTensor* input = NULL;
  const TfLiteTensor* output = NULL;
  if (model == NULL || options == NULL) {
    fprintf(stderr, "consumer: cannot load %s\n", argv[1]);
    goto done;
  }
  TfLiteInterpreterOptionsSetNumThreads(options, 2);
  if (use_gpu) {
    gpu = TfLiteGpuDelegateV2Create(NULL);
    if (gpu == NULL) {
      fprintf(stderr, "consumer: TfLiteGpuDelegateV2Create failed\n");
      goto done;
    }
    TfLiteInterpreterOptionsAddDelegate(options, gpu);
  }

  interpreter = TfLiteInterpreterCreate(model, options);
  if (interpreter == NULL) {
    fprintf(stderr, "consumer: TfLiteInterpreterCreate failed\n");
    goto done;
  }
  if (TfLiteInterpreterAllocateTensors(interpreter) != kTfLiteOk) {
    fprintf(stderr, "consumer: TfLiteInterpreterAllocateTensors failed\n");
    goto done;
  }

  input = TfLiteInterpreterGetInputTensor(interpreter, 0);
  if (input == NULL || TfLiteTensorType(input) != kTfLiteFloat32 ||
      TfLiteTensorCopyFromBuffer(input, &x, sizeof(x)) != kTfLiteOk) {
    fprintf(stderr, "consumer: expected one float32 input element\n");
    goto done;
  }
  if (TfLiteInterpreterInvoke(interpreter) != kTfLiteOk) {
    fprintf(stderr, "consumer: TfLiteInterpreterInvoke failed\n");
    goto done;
  }

  output = TfLiteInterpreterGetOutputTensor(interpreter, 0);
  if (output == NULL || TfLiteTensorType(output) != kTfLiteFloat32 ||
      TfLiteTensorCopyToBuffer(output, &y, sizeof(y)) != kTfLiteOk) {
    fprintf(stderr, "consumer: expected one float32 output element\n");
    goto done;
  }
  printf("TfLiteVersion %s%s\n", TfLiteVersion(),
         use_gpu ? ", GPU delegate" : "");
  printf("x = %.6f\n", (double)x);
  printf("y = %.6f\n", (double)y);
  rc = 0;

done:
  TfLiteInterpreterDelete(interpreter);
  TfLiteInterpreterOptionsDelete(options);
  TfLiteGpuDelegateV2Delete(gpu); /* after the interpreter */
  TfLiteModelDelete(model);
  return rc;
}
