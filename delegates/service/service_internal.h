/* The service's pieces (service_server.c: connections and control
 * messages; service_model.c: prepared models; service_burst.c: burst
 * listeners and their memory-slot caches). Internal to delegates/service. */
#ifndef LITEGPU_DELEGATES_SERVICE_SERVICE_INTERNAL_H_
#define LITEGPU_DELEGATES_SERVICE_SERVICE_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "delegates/service/channel.h"
#include "delegates/service/fmq.h"
#include "delegates/service/service_server.h"
#include "delegates/service/wire.h"
#include "tensorflow/lite/c/c_api.h"

/* How long a listener waits for the client to provide a slot. */
#define LG_SVC_SLOT_WAIT_MS 5000

void svc_log(const lg_service_options* options, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- Prepared models (service_model.c) ------------------------------------
 */

typedef struct svc_model {
  uint32_t id;
  int refs; /* the client's list, plus one per burst (client lock) */
  void* map;
  size_t size;
  TfLiteModel* model;
  TfLiteInterpreter* interpreter;
  TfLiteDelegate* gpu;
  pthread_mutex_t run_lock; /* one execution at a time */
  unsigned delay_ms;
  uint32_t num_inputs;
  uint32_t num_outputs;
  lg_wire_tensor inputs[LG_WIRE_MAX_IO];
  lg_wire_tensor outputs[LG_WIRE_MAX_IO];
  char messages[LG_WIRE_ERROR_SIZE]; /* the interpreter's, per call */
  struct svc_model* next;
} svc_model;

/* Maps the sealed model file `fd` (declared `size` bytes) and builds its
 * interpreter. Returns an lg_wire_status; *out on LG_WIRE_OK. The
 * descriptor stays the caller's. */
int32_t svc_model_create(const lg_service_options* options, int fd,
                         uint64_t size, svc_model** out, char* error,
                         size_t error_size);

void svc_model_destroy(svc_model* model);

/* Copies the inputs in, invokes, copies the outputs out and gives their
 * shapes; buffers hold exactly the tensors' bytes (checked by the caller).
 * Returns an lg_wire_status. */
int32_t svc_model_run(svc_model* model, const uint8_t* const* inputs,
                      uint8_t* const* outputs, lg_wire_shape* shapes,
                      uint64_t* device_ns, char* error, size_t error_size);

/* Checks one execution's operands against the model (counts, and each
 * length against its tensor's bytes). Returns an lg_wire_status. */
int32_t svc_model_check_counts(const svc_model* model, uint32_t num_inputs,
                               uint32_t num_outputs, char* error,
                               size_t error_size);

/* ---- Clients and bursts ---------------------------------------------------
 */

struct svc_client;

enum { SVC_SLOT_ABSENT = 0, SVC_SLOT_ASKED, SVC_SLOT_MAPPED, SVC_SLOT_UNKNOWN };

typedef struct svc_slot {
  void* map;
  size_t size;
  int state;
} svc_slot;

typedef struct svc_burst {
  uint32_t id;
  struct svc_client* client;
  svc_model* model;
  lg_fmq* requests;
  lg_fmq* results;
  pthread_t thread;
  bool started;
  atomic_bool stop;
  bool broken; /* the request queue is corrupt: no more requests */
  /* The slot cache; the lock is held through each execution, so a slot is
   * never unmapped under one. */
  pthread_mutex_t lock;
  pthread_cond_t cond;
  svc_slot slots[LG_WIRE_MAX_SLOTS];
  lg_burst_datum in[LG_BURST_MAX_REQUEST_DATUMS];
  lg_burst_datum out[LG_BURST_MAX_RESULT_DATUMS];
  struct svc_burst* next;
} svc_burst;

typedef struct svc_client {
  struct lg_service* service;
  const lg_service_options* options;
  lg_channel* channel;
  pthread_t thread;
  atomic_bool done;
  pthread_mutex_t lock; /* models and bursts */
  svc_model* models;
  svc_burst* bursts;
  uint32_t next_id;
  struct svc_client* next;
} svc_client;

/* Starts a burst's listener over the client's queues (descriptors taken
 * on success). NULL with the reason. */
svc_burst* svc_burst_start(svc_client* client, svc_model* model, int request_fd,
                           int result_fd, uint32_t request_capacity,
                           uint32_t result_capacity, char* error,
                           size_t error_size);

/* Stops and joins the listener, unmaps every slot, frees the queues. */
void svc_burst_stop(svc_burst* burst);

/* A SLOT_PROVIDE arrived: maps the pool (or marks the slot unknown when
 * fd < 0) and wakes the listener. Returns an lg_wire_status. */
int32_t svc_burst_provide(svc_burst* burst, uint32_t slot, int fd,
                          uint64_t size, char* error, size_t error_size);

/* A SLOT_FREE: unmaps the slot (after any execution that uses it). */
int32_t svc_burst_free_slot(svc_burst* burst, uint32_t slot, char* error,
                            size_t error_size);

#endif /* LITEGPU_DELEGATES_SERVICE_SERVICE_INTERNAL_H_ */
