/* litegpu extension: what an interpreter's memory plan costs.
 *
 *   litegpu_memory_info info;
 *   if (litegpu_interpreter_memory_info(interpreter, &info) == kTfLiteOk)
 *     printf("arena %zu of %zu bytes\n", info.arena_bytes,
 *            info.non_constant_tensor_bytes);
 *
 * Valid after TfLiteInterpreterAllocateTensors; figures describe the primary
 * subgraph. Thread safety: as the interpreter.
 */
#ifndef LITEGPU_INTERPRETER_INFO_H_
#define LITEGPU_INTERPRETER_INFO_H_

#include <stddef.h>

#include "tensorflow/lite/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct litegpu_memory_info {
  /* Bytes of the arena block the last plan needed (tensors share it by
   * lifetime). */
  size_t arena_bytes;
  /* Sum of the byte sizes of every arena-planned tensor: the memory a plan
   * without reuse would take. */
  size_t non_constant_tensor_bytes;
  /* Heap bytes held for variables, kernel-persistent and dynamic tensors. */
  size_t heap_bytes;
  /* Bytes of constant tensors, which point into the model (not copied). */
  size_t constant_bytes;
} litegpu_memory_info;

/* kTfLiteError when an argument is NULL or tensors are not allocated. */
TFL_CAPI_EXPORT TfLiteStatus litegpu_interpreter_memory_info(
    const TfLiteInterpreter* interpreter, litegpu_memory_info* info);

/* Writes `count` strings (strings[k] of lengths[k] bytes, any bytes) into a
 * STRING tensor of the interpreter (an input, typically) in TFLite's
 * layout. The tensor keeps its shape, whose element count must be `count`;
 * `dims` (num_dims entries), when not NULL, must equal it (to change the
 * shape, resize the input and allocate tensors first, as for any input).
 * TFLite's C API has no string writer; this is litegpu's. A constant
 * tensor, another type, or a tensor of another interpreter is refused
 * (reported). Reading needs nothing new:
 * TfLiteTensorData and TfLiteTensorByteSize give the buffer, whose layout
 * is TFLite's (an int32 count, count + 1 int32 offsets, the bytes). */
TFL_CAPI_EXPORT TfLiteStatus litegpu_tensor_write_strings(
    TfLiteInterpreter* interpreter, TfLiteTensor* tensor,
    const char* const* strings, const size_t* lengths, int32_t count,
    const int* dims, int num_dims);

#ifdef __cplusplus
}
#endif

#endif /* LITEGPU_INTERPRETER_INFO_H_ */
