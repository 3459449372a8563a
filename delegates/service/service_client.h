/* The client side of the litegpu service (docs/service.md): a connection,
 * prepared models, memory pools, per-call executions and bursts. The
 * service delegate is built on it; tests and the benchmark use it
 * directly.
 *
 * A connection says HELLO and keeps the service's op list. Pools are
 * sealed memfds mapped here; an execution names [offset, length) ranges of
 * pools for each input and output. A per-call execution sends its pool's
 * descriptor with every request and waits for the reply on the socket. A
 * burst owns two queues in shared memory (requests, results) and a slot
 * table: the first time a request names a pool the burst gives it a slot
 * id, and the service asks for the pool's descriptor over the control
 * channel (waking this side through the result queue's event flag), maps
 * it once and keeps it; destroying a pool frees its slot in every burst.
 *
 * Dead service: every wait either ends with the reply or notices the
 * socket's hang-up (a blocking receive returns at end of file; a burst
 * wait looks at the socket at least every LG_SVC_DEAD_CHECK_MS), so a
 * call in flight when the service dies fails within that time with
 * "the litegpu service at PATH died ...". The connection is then dead and
 * every later call fails at once.
 *
 *   lg_svc_client* c = lg_svc_client_connect(path, err, sizeof(err));
 *   lg_svc_model_info info;
 *   lg_svc_prepare(c, tflite, size, &info, err, sizeof(err));
 *   lg_svc_pool* pool = lg_svc_pool_create(c, 4096, err, sizeof(err));
 *   lg_svc_io in = {pool, 0, 20}, out = {pool, 64, 20};
 *   lg_svc_burst* b = lg_svc_burst_create(c, info.id, 0, err, sizeof(err));
 *   lg_svc_burst_execute(b, &in, 1, &out, 1, false, &result, err, ...);
 *   lg_svc_burst_destroy(b); lg_svc_pool_destroy(pool);
 *   lg_svc_client_close(c);
 *
 * Thread safety: a connection serializes its calls with a mutex, so
 * several threads may share it (each burst and pool belongs to one).
 */
#ifndef LITEGPU_DELEGATES_SERVICE_SERVICE_CLIENT_H_
#define LITEGPU_DELEGATES_SERVICE_SERVICE_CLIENT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "delegates/service/wire.h"

/* The longest a burst wait goes without looking for the service's death. */
#define LG_SVC_DEAD_CHECK_MS 50
/* Queue sizes a client gives its bursts. */
#define LG_SVC_REQUEST_CAPACITY 256u
#define LG_SVC_RESULT_CAPACITY 256u

typedef struct lg_svc_client lg_svc_client;
typedef struct lg_svc_pool lg_svc_pool;
typedef struct lg_svc_burst lg_svc_burst;

/* Connects and says HELLO. NULL with the reason ("cannot reach the
 * litegpu service at PATH: ..."). */
lg_svc_client* lg_svc_client_connect(const char* path, char* error,
                                     size_t error_size);

/* Hangs up (the service frees everything this connection held); bursts
 * and pools must be destroyed first. NULL is a no-op. */
void lg_svc_client_close(lg_svc_client* client);

/* The service's op list and device (valid while the client lives). */
const lg_wire_op* lg_svc_client_ops(const lg_svc_client* client,
                                    uint32_t* count);
const char* lg_svc_client_device(const lg_svc_client* client);
const char* lg_svc_client_path(const lg_svc_client* client);
/* False once the service has been found dead. */
bool lg_svc_client_alive(const lg_svc_client* client);

typedef struct lg_svc_model_info {
  uint32_t id;
  uint32_t num_inputs;
  uint32_t num_outputs;
  lg_wire_tensor inputs[LG_WIRE_MAX_IO];
  lg_wire_tensor outputs[LG_WIRE_MAX_IO];
} lg_svc_model_info;

/* How long an execution (per call or burst) may wait for its answer
 * (<= 0: as long as the service lives). Past it the service counts as
 * hung: the connection is shut down and this and every later call fail
 * naming the timeout. */
void lg_svc_client_set_execute_timeout(lg_svc_client* client, int timeout_ms);

/* Sends a .tflite (copied into a sealed memfd) and prepares it. 0, or -1
 * with the reason. */
int lg_svc_prepare(lg_svc_client* client, const void* model, size_t size,
                   lg_svc_model_info* info, char* error, size_t error_size);

int lg_svc_release_model(lg_svc_client* client, uint32_t model_id, char* error,
                         size_t error_size);

/* A pool of `size` bytes of shared memory. */
lg_svc_pool* lg_svc_pool_create(lg_svc_client* client, size_t size, char* error,
                                size_t error_size);
void* lg_svc_pool_data(const lg_svc_pool* pool);
size_t lg_svc_pool_size(const lg_svc_pool* pool);
/* Frees the pool's slot in every burst that has one (SLOT_FREE), then
 * unmaps and closes it. NULL is a no-op. */
void lg_svc_pool_destroy(lg_svc_pool* pool);

typedef struct lg_svc_io {
  lg_svc_pool* pool;
  uint64_t offset;
  uint64_t length;
} lg_svc_io;

typedef struct lg_svc_result {
  uint32_t num_outputs;
  lg_wire_shape shapes[LG_WIRE_MAX_IO];
  bool has_timing;
  lg_wire_timing timing;
} lg_svc_result;

/* One per-call execution: every operand in the same pool (its descriptor
 * travels with the request). 0, or -1 with the reason. */
int lg_svc_execute(lg_svc_client* client, uint32_t model_id,
                   const lg_svc_io* inputs, uint32_t num_inputs,
                   const lg_svc_io* outputs, uint32_t num_outputs, bool measure,
                   lg_svc_result* result, char* error, size_t error_size);

/* Configures a burst over a prepared model. `spin_ns`: how long an
 * execution spins on the result queue before sleeping (0: a default of
 * 100 us). NULL with the reason. */
lg_svc_burst* lg_svc_burst_create(lg_svc_client* client, uint32_t model_id,
                                  uint64_t spin_ns, char* error,
                                  size_t error_size);

/* One execution through the queues. 0, or -1 with the reason. */
int lg_svc_burst_execute(lg_svc_burst* burst, const lg_svc_io* inputs,
                         uint32_t num_inputs, const lg_svc_io* outputs,
                         uint32_t num_outputs, bool measure,
                         lg_svc_result* result, char* error, size_t error_size);

/* Releases the burst in the service (its listener, queues and slot
 * cache). NULL is a no-op. */
void lg_svc_burst_destroy(lg_svc_burst* burst);

/* How many slots the service asked this burst for so far (tests). */
uint32_t lg_svc_burst_slot_requests(const lg_svc_burst* burst);

/* Tests: the request queue, to write corrupt datums into. */
struct lg_fmq* lg_svc_burst_request_queue(lg_svc_burst* burst);

#endif /* LITEGPU_DELEGATES_SERVICE_SERVICE_CLIENT_H_ */
