/* litegpu extension: the service delegate, which runs delegated partitions
 * in the litegpu accelerator service (tools/litegpu_service, another
 * process that owns the accelerator), as TFLite reaches a driver through
 * NNAPI. See docs/service.md.
 *
 * Creating the delegate connects to the service's Unix socket and reads
 * its op list (each op with its maximum version). Applying it claims, with
 * the delegate kit, the nodes whose op the service lists at that version
 * and whose tensors can travel (no string, resource, variable or sparse
 * tensors); each partition is written as a small .tflite, sent as a
 * sealed memfd and prepared in the service. Each Invoke copies the
 * partition's inputs into a shared-memory pool, has the service execute
 * and copies the outputs back:
 *   - burst = false: one request and reply over the socket per Invoke (the
 *     pool's descriptor travels with each request);
 *   - burst = true: the request and the result go through two queues in
 *     shared memory with a futex event flag; the service maps the pool
 *     once (its memory-slot cache) and a listener thread waits for
 *     requests; this Invoke spins briefly, then sleeps on the flag.
 *
 * Failure: litegpu_service_delegate_create returns NULL and writes the
 * reason into `error` (may be NULL), e.g. "cannot reach the litegpu service
 * at /tmp/litegpu.sock: ... No such file or directory". When the service
 * dies, an Invoke in flight returns kTfLiteError within about 50 ms with
 * "the litegpu service at PATH died (its socket closed)", and so does
 * every later Invoke; it never hangs. A service that is alive but hung
 * blocks an Invoke until execute_timeout_ms (below) runs out, when set.
 *
 *   litegpu_service_delegate_options o =
 *       litegpu_service_delegate_options_default();
 *   o.socket_path = "/tmp/litegpu.sock";
 *   o.burst = true;
 *   char why[512];
 *   TfLiteDelegate* d = litegpu_service_delegate_create(&o, why, sizeof(why));
 *   TfLiteInterpreterOptionsAddDelegate(options, d);
 *   ... create, run and delete the interpreter ...
 *   litegpu_service_delegate_delete(d);
 *
 * Ownership and lifetime: the options are copied; the delegate must
 * outlive every interpreter it is applied to. Thread safety: interpreters
 * on different threads may share the delegate (its connection serializes
 * their calls).
 */
#ifndef LITEGPU_SERVICE_DELEGATE_H_
#define LITEGPU_SERVICE_DELEGATE_H_

#include <stdbool.h>
#include <stddef.h>

#include "tensorflow/lite/c/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct litegpu_service_delegate_options {
  /* The service's socket (required). */
  const char* socket_path;
  /* Burst executions through shared-memory queues (default false: one
   * socket request per Invoke). */
  bool burst;
  /* Keep only the N largest partitions (0: all). */
  int max_delegated_partitions;
  /* Skip partitions with fewer nodes (0: none). */
  int min_nodes_per_partition;
  /* Burst only: how long an Invoke spins on the result before it sleeps
   * on the event flag, in microseconds (0: 100). */
  int burst_spin_us;
  /* How long an Invoke waits for the service to answer an execution, in
   * milliseconds (0: as long as the service lives). A service that is
   * alive but does not answer in time counts as hung: the Invoke returns
   * kTfLiteError with "the litegpu service at PATH did not answer an
   * execution within N ms", the connection is closed (the service frees
   * what it held) and later Invokes fail as after the service's death. */
  int execute_timeout_ms;
} litegpu_service_delegate_options;

TFL_CAPI_EXPORT litegpu_service_delegate_options
litegpu_service_delegate_options_default(void);

/* Connects to the service. NULL, with the reason in `error` (may be NULL;
 * then printed to stderr), when the service cannot be reached or does not
 * answer. */
TFL_CAPI_EXPORT TfLiteDelegate* litegpu_service_delegate_create(
    const litegpu_service_delegate_options* options, char* error,
    size_t error_size);

/* Hangs up; the service releases what this delegate prepared. NULL is a
 * no-op. */
TFL_CAPI_EXPORT void litegpu_service_delegate_delete(TfLiteDelegate* delegate);

/* Partitions the last application kept (-1 for NULL). */
TFL_CAPI_EXPORT int litegpu_service_delegate_num_partitions(
    const TfLiteDelegate* delegate);

/* The service's device ("cpu", "gpu (OpenCL: ...)"); NULL for NULL. */
TFL_CAPI_EXPORT const char* litegpu_service_delegate_device(
    const TfLiteDelegate* delegate);

#ifdef __cplusplus
}
#endif

#endif /* LITEGPU_SERVICE_DELEGATE_H_ */
