/* litegpu extension: per-operator timing.
 *
 *   litegpu_interpreter_enable_op_profiling(interpreter, true);
 *   ... TfLiteInterpreterInvoke(interpreter) several times ...
 *   int n = litegpu_interpreter_op_profile(interpreter, NULL, 0);
 *   litegpu_op_profile* p = calloc(n, sizeof(*p));
 *   litegpu_interpreter_op_profile(interpreter, p, n);
 *
 * Times are wall-clock nanoseconds of each node's Invoke (and of its Prepare
 * when it runs during Invoke after a dynamic tensor), summed over every
 * Invoke since profiling was enabled or reset. Enabling resets the counts.
 * Thread safety: as the interpreter.
 */
#ifndef LITEGPU_PROFILING_H_
#define LITEGPU_PROFILING_H_

#include <stdbool.h>
#include <stdint.h>

#include "tensorflow/lite/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct litegpu_op_profile {
  int node_index;      /* the node's index in the model's operator list */
  const char* op_name; /* "CONV_2D", or the custom op's name */
  int version;         /* the operator version the model asks for */
  uint64_t total_ns;   /* summed over `count` invocations */
  uint64_t count;      /* how many times the node ran */
} litegpu_op_profile;

/* Turns timing on (resetting the counts) or off. kTfLiteError on NULL. */
TFL_CAPI_EXPORT TfLiteStatus litegpu_interpreter_enable_op_profiling(
    TfLiteInterpreter* interpreter, bool enable);

/* Copies up to `capacity` entries, one per node in execution order, into
 * `profiles` and returns the number of nodes (so a first call with NULL, 0
 * sizes the array); -1 on a NULL interpreter. */
TFL_CAPI_EXPORT int litegpu_interpreter_op_profile(
    const TfLiteInterpreter* interpreter, litegpu_op_profile* profiles,
    int capacity);

#ifdef __cplusplus
}
#endif

#endif /* LITEGPU_PROFILING_H_ */
