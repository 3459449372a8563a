/* Runs a model once through TFLite's C API and prints its outputs, for the
 * selective registration tests (tests/python/test_selective_registration.py)
 * and size figures (docs/selective_registration.md). The same source is
 * linked against the full static library (selective_run_full) and against
 * selective ones (selective_run_hello, selective_run_mobilenet), so a
 * difference in output is the kernel table's doing.
 *
 *   selective_run MODEL.tflite
 *
 * Every input gets the same deterministic bytes: float32 inputs the values
 * ((i * 37) % 101) / 50 - 1 for element i, other types byte (i * 37) % 251.
 * Prints "output N TYPE BYTES" and then the output's bytes in hex, 32 to a
 * line. Exit status 1, with the interpreter's messages on stderr, when the
 * model does not load, resolve, allocate or run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/lite/c/c_api.h"

static int fill_input(TfLiteTensor* t) {
  size_t bytes = TfLiteTensorByteSize(t);
  uint8_t* data = malloc(bytes > 0 ? bytes : 1);
  if (data == NULL) return 0;
  if (TfLiteTensorType(t) == kTfLiteFloat32) {
    for (size_t i = 0; i < bytes / sizeof(float); ++i) {
      float v = (float)((i * 37) % 101) / 50.0f - 1.0f;
      memcpy(data + i * sizeof(float), &v, sizeof(v));
    }
  } else {
    for (size_t i = 0; i < bytes; ++i) data[i] = (uint8_t)((i * 37) % 251);
  }
  int ok = TfLiteTensorCopyFromBuffer(t, data, bytes) == kTfLiteOk;
  free(data);
  return ok;
}

static int print_output(int index, const TfLiteTensor* t) {
  size_t bytes = TfLiteTensorByteSize(t);
  const uint8_t* data = TfLiteTensorData(t);
  if (data == NULL && bytes > 0) return 0;
  printf("output %d %s %zu\n", index, TfLiteTypeGetName(TfLiteTensorType(t)),
         bytes);
  for (size_t i = 0; i < bytes; ++i) {
    printf("%02x%s", data[i], (i % 32 == 31 || i + 1 == bytes) ? "\n" : "");
  }
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL.tflite\n", argv[0]);
    return 2;
  }
  int rc = 1;
  TfLiteModel* model = TfLiteModelCreateFromFile(argv[1]);
  TfLiteInterpreter* interpreter = NULL;
  if (model == NULL) {
    fprintf(stderr, "selective_run: cannot load %s\n", argv[1]);
    goto done;
  }
  interpreter = TfLiteInterpreterCreate(model, NULL);
  if (interpreter == NULL) {
    fprintf(stderr, "selective_run: TfLiteInterpreterCreate failed\n");
    goto done;
  }
  if (TfLiteInterpreterAllocateTensors(interpreter) != kTfLiteOk) {
    fprintf(stderr, "selective_run: TfLiteInterpreterAllocateTensors failed\n");
    goto done;
  }
  for (int i = 0; i < TfLiteInterpreterGetInputTensorCount(interpreter); ++i) {
    if (!fill_input(TfLiteInterpreterGetInputTensor(interpreter, i))) {
      fprintf(stderr, "selective_run: cannot fill input %d\n", i);
      goto done;
    }
  }
  if (TfLiteInterpreterInvoke(interpreter) != kTfLiteOk) {
    fprintf(stderr, "selective_run: TfLiteInterpreterInvoke failed\n");
    goto done;
  }
  for (int i = 0; i < TfLiteInterpreterGetOutputTensorCount(interpreter); ++i) {
    if (!print_output(i, TfLiteInterpreterGetOutputTensor(interpreter, i))) {
      fprintf(stderr, "selective_run: cannot read output %d\n", i);
      goto done;
    }
  }
  rc = 0;
done:
  TfLiteInterpreterDelete(interpreter);
  TfLiteModelDelete(model);
  return rc;
}
