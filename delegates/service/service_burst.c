/* Burst listeners (service_internal.h): one thread per burst reads its
 * request queue, resolves the memory slots a request names through the
 * burst's cache (asking the client for the ones it has not seen), runs the
 * prepared model and writes the result queue.
 *
 * Nothing read from the queue is trusted: the message length, every datum
 * (lg_burst_request_decode), the operand counts against the model, each
 * slot against the cache and each [offset, offset + length) against the
 * slot's real size and the tensor's bytes. A bad request gets an error
 * result; a request queue whose counters are corrupt gets one error result
 * and is no longer read (the client must release the burst). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "delegates/service/service_internal.h"
#include "delegates/service/shm.h"

_Static_assert(LG_BURST_EVENT_CALLBACK == LG_FMQ_EVENT_USER(0) &&
                   LG_BURST_EVENT_TERMINATE == LG_FMQ_EVENT_USER(1),
               "the burst's event bits are the queue's user bits");

/* How long a listener sleeps between looks at its stop flag when nothing
 * wakes it (the flag's own wake-up normally comes first). */
#define LISTENER_SLICE_NS 1000000000LL

static void write_result(svc_burst* b, const lg_burst_result* r) {
  int n = lg_burst_result_encode(r, b->out, lg_fmq_capacity(b->results));
  if (n < 0) return; /* cannot happen: the queue holds the largest result */
  const lg_fmq_status s = lg_fmq_write(b->results, b->out, (uint32_t)n);
  if (s != LG_FMQ_OK) {
    svc_log(b->client->options, "burst %u: result %u dropped: %s", b->id,
            r->serial, lg_fmq_status_name(s));
  }
}

static void fail_request(svc_burst* b, uint32_t serial, int32_t status,
                         const char* error) {
  lg_burst_result r;
  memset(&r, 0, sizeof(r));
  r.serial = serial;
  r.status = status;
  snprintf(r.error, sizeof(r.error), "%s", error);
  write_result(b, &r);
}

/* After a malformed message start: drops its first datum and every datum
 * up to the next REQUEST tag, so a request written after the garbage is
 * still served. */
static void resync(svc_burst* b) {
  lg_burst_datum d;
  if (lg_fmq_read(b->requests, &d, 1) != LG_FMQ_OK) return;
  while (lg_fmq_peek(b->requests, &d) == LG_FMQ_OK &&
         d.tag != LG_BURST_TAG_REQUEST) {
    if (lg_fmq_read(b->requests, &d, 1) != LG_FMQ_OK) return;
  }
}

static void deadline_after(struct timespec* ts, long ms) {
  clock_gettime(CLOCK_MONOTONIC, ts);
  ts->tv_sec += ms / 1000;
  ts->tv_nsec += (ms % 1000) * 1000000L;
  if (ts->tv_nsec >= 1000000000L) {
    ts->tv_sec += 1;
    ts->tv_nsec -= 1000000000L;
  }
}

/* Asks the client for the slots of `list` (SLOT_REQUEST, then the result
 * queue's CALLBACK event wakes it). */
static int ask(svc_burst* b, const uint32_t* list, uint32_t count, char* error,
               size_t size) {
  lg_wire_msg m;
  lg_wire_msg_init(&m, LG_MSG_SLOT_REQUEST);
  m.u.slot_request.burst_id = b->id;
  m.u.slot_request.count = count;
  memcpy(m.u.slot_request.slots, list, sizeof(uint32_t) * count);
  char why[160];
  if (lg_channel_send(b->client->channel, &m, why, sizeof(why)) !=
      LG_CHANNEL_OK) {
    snprintf(error, size, "cannot ask the client for memory: %s", why);
    return -1;
  }
  lg_event_flag_wake(lg_fmq_event(b->results), LG_BURST_EVENT_CALLBACK);
  return 0;
}

/* Makes every slot the request names mapped, asking for the missing ones
 * and waiting (lock held, released while waiting). */
static int32_t ensure_slots(svc_burst* b, const lg_burst_request* r,
                            char* error, size_t size) {
  const uint32_t n = r->num_inputs + r->num_outputs;
  uint32_t missing[LG_WIRE_MAX_SLOT_LIST];
  uint32_t count = 0;
  for (uint32_t i = 0; i < n; ++i) {
    svc_slot* s = &b->slots[r->operands[i].slot];
    if (s->state != SVC_SLOT_ABSENT) continue;
    s->state = SVC_SLOT_ASKED;
    missing[count++] = r->operands[i].slot;
    if (count == LG_WIRE_MAX_SLOT_LIST) {
      if (ask(b, missing, count, error, size) != 0) return LG_WIRE_DEVICE_ERROR;
      count = 0;
    }
  }
  if (count > 0 && ask(b, missing, count, error, size) != 0) {
    return LG_WIRE_DEVICE_ERROR;
  }
  struct timespec deadline;
  deadline_after(&deadline, LG_SVC_SLOT_WAIT_MS);
  int32_t status = LG_WIRE_OK;
  for (uint32_t i = 0; i < n && status == LG_WIRE_OK; ++i) {
    const uint32_t slot = r->operands[i].slot;
    svc_slot* s = &b->slots[slot];
    while (s->state == SVC_SLOT_ASKED && !atomic_load(&b->stop)) {
      if (pthread_cond_timedwait(&b->cond, &b->lock, &deadline) == ETIMEDOUT) {
        break;
      }
    }
    if (s->state == SVC_SLOT_MAPPED) continue;
    snprintf(error, size,
             s->state == SVC_SLOT_UNKNOWN
                 ? "the client does not know memory slot %u"
                 : "the client did not provide memory slot %u",
             slot);
    status = LG_WIRE_INVALID_ARGUMENT;
  }
  /* Slots left asked or unknown are asked again by a later request. */
  for (uint32_t i = 0; i < n && status != LG_WIRE_OK; ++i) {
    svc_slot* s = &b->slots[r->operands[i].slot];
    if (s->state != SVC_SLOT_MAPPED) s->state = SVC_SLOT_ABSENT;
  }
  return status;
}

/* Each operand's range within its slot and its length against the
 * tensor. */
static int32_t resolve(svc_burst* b, const lg_burst_request* r,
                       const uint8_t** in, uint8_t** out, char* error,
                       size_t size) {
  const svc_model* m = b->model;
  for (uint32_t i = 0; i < r->num_inputs + r->num_outputs; ++i) {
    const lg_burst_operand* op = &r->operands[i];
    const svc_slot* s = &b->slots[op->slot];
    const bool is_input = i < r->num_inputs;
    const uint32_t k = is_input ? i : i - r->num_inputs;
    const uint64_t want = is_input ? m->inputs[k].bytes : m->outputs[k].bytes;
    if (!lg_wire_range_ok(op->offset, op->length, s->size) ||
        op->length != want) {
      snprintf(error, size,
               "%s %u: offset %llu length %llu in slot %u of %zu bytes; "
               "the tensor holds %llu",
               is_input ? "input" : "output", k, (unsigned long long)op->offset,
               (unsigned long long)op->length, op->slot, s->size,
               (unsigned long long)want);
      return LG_WIRE_INVALID_ARGUMENT;
    }
    uint8_t* p = (uint8_t*)s->map + op->offset;
    if (is_input) {
      in[k] = p;
    } else {
      out[k] = p;
    }
  }
  return LG_WIRE_OK;
}

static void execute(svc_burst* b, const lg_burst_request* r,
                    uint64_t received_ns) {
  lg_burst_result res;
  memset(&res, 0, sizeof(res));
  res.serial = r->serial;
  const uint8_t* in[LG_WIRE_MAX_IO];
  uint8_t* out[LG_WIRE_MAX_IO];
  uint64_t device_ns = 0;
  int32_t s = svc_model_check_counts(b->model, r->num_inputs, r->num_outputs,
                                     res.error, sizeof(res.error));
  pthread_mutex_lock(&b->lock);
  if (s == LG_WIRE_OK) s = ensure_slots(b, r, res.error, sizeof(res.error));
  if (s == LG_WIRE_OK) s = resolve(b, r, in, out, res.error, sizeof(res.error));
  if (s == LG_WIRE_OK) {
    s = svc_model_run(b->model, in, out, res.shapes, &device_ns, res.error,
                      sizeof(res.error));
  }
  pthread_mutex_unlock(&b->lock);
  res.status = s;
  if (s == LG_WIRE_OK) {
    res.num_outputs = r->num_outputs;
    res.error[0] = '\0';
  }
  if (r->measure) {
    res.has_timing = true;
    res.timing.device_ns = device_ns;
    res.timing.service_ns = lg_now_ns() - received_ns;
  }
  write_result(b, &res);
}

/* Reads one request (or the garbage where one should be) and answers it. */
static void serve_one(svc_burst* b) {
  const uint64_t received = lg_now_ns();
  char error[LG_WIRE_ERROR_SIZE];
  uint32_t count = 0;
  lg_burst_request request;
  if (lg_fmq_peek(b->requests, &b->in[0]) != LG_FMQ_OK) return;
  const uint32_t serial = b->in[0].w[1];
  if (lg_burst_message_count(&b->in[0], LG_BURST_TAG_REQUEST,
                             LG_BURST_MAX_REQUEST_DATUMS, &count, error,
                             sizeof(error)) != 0) {
    resync(b);
    fail_request(b, serial, LG_WIRE_INVALID_ARGUMENT, error);
    return;
  }
  if (lg_fmq_read(b->requests, b->in, count) != LG_FMQ_OK) {
    resync(b);
    fail_request(b, serial, LG_WIRE_INVALID_ARGUMENT,
                 "burst request: fewer datums than announced");
    return;
  }
  if (lg_burst_request_decode(b->in, count, &request, error, sizeof(error)) !=
      0) {
    fail_request(b, serial, LG_WIRE_INVALID_ARGUMENT, error);
    return;
  }
  execute(b, &request, received);
}

static void* listen_main(void* arg) {
  svc_burst* b = arg;
  const uint64_t spin = b->client->options->listener_spin_ns;
  while (!atomic_load(&b->stop)) {
    uint32_t bits = 0;
    if (b->broken) {
      lg_event_flag_wait(lg_fmq_event(b->requests), LG_BURST_EVENT_TERMINATE, 0,
                         LISTENER_SLICE_NS, &bits);
      continue;
    }
    const lg_fmq_status s = lg_fmq_wait_readable(
        b->requests, spin, LISTENER_SLICE_NS, LG_BURST_EVENT_TERMINATE, &bits);
    if (atomic_load(&b->stop)) break;
    if (s == LG_FMQ_CORRUPT) {
      svc_log(b->client->options, "burst %u: request queue corrupt", b->id);
      fail_request(b, 0, LG_WIRE_INVALID_ARGUMENT,
                   "burst request queue corrupt: release the burst");
      b->broken = true;
      continue;
    }
    if (s == LG_FMQ_OK && (bits & LG_FMQ_EVENT_NOT_EMPTY)) serve_one(b);
  }
  return NULL;
}

svc_burst* svc_burst_start(svc_client* client, svc_model* model, int request_fd,
                           int result_fd, uint32_t request_capacity,
                           uint32_t result_capacity, char* error,
                           size_t error_size) {
  if (request_capacity < LG_BURST_MAX_REQUEST_DATUMS ||
      result_capacity < LG_BURST_MAX_RESULT_DATUMS) {
    snprintf(error, error_size,
             "burst queues of %u and %u datums; at least %u and %u needed",
             request_capacity, result_capacity, LG_BURST_MAX_REQUEST_DATUMS,
             LG_BURST_MAX_RESULT_DATUMS);
    return NULL;
  }
  svc_burst* b = calloc(1, sizeof(*b));
  if (b == NULL) {
    snprintf(error, error_size, "out of memory");
    return NULL;
  }
  b->client = client;
  b->model = model;
  pthread_mutex_init(&b->lock, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&b->cond, &attr);
  pthread_condattr_destroy(&attr);
  /* The queues take duplicates: the caller keeps (and closes) its own. */
  const int rq = dup(request_fd), rs = dup(result_fd);
  if (rq >= 0) {
    b->requests = lg_fmq_attach(rq, LG_BURST_DATUM_SIZE, request_capacity,
                                error, error_size);
    if (b->requests == NULL) close(rq);
  }
  if (rs >= 0 && b->requests != NULL) {
    b->results = lg_fmq_attach(rs, LG_BURST_DATUM_SIZE, result_capacity, error,
                               error_size);
  }
  if (b->results == NULL && rs >= 0) close(rs);
  if (rq < 0 || rs < 0) {
    snprintf(error, error_size, "dup failed: %s", strerror(errno));
  }
  if (b->requests == NULL || b->results == NULL ||
      pthread_create(&b->thread, NULL, listen_main, b) != 0) {
    if (b->results != NULL) snprintf(error, error_size, "no listener thread");
    svc_burst_stop(b);
    return NULL;
  }
  b->started = true;
  return b;
}

void svc_burst_stop(svc_burst* b) {
  if (b == NULL) return;
  atomic_store(&b->stop, true);
  if (b->started) {
    lg_event_flag_wake(lg_fmq_event(b->requests), LG_BURST_EVENT_TERMINATE);
    pthread_mutex_lock(&b->lock);
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
    pthread_join(b->thread, NULL);
  }
  for (int i = 0; i < LG_WIRE_MAX_SLOTS; ++i) {
    lg_shm_unmap(b->slots[i].map, b->slots[i].size);
  }
  lg_fmq_destroy(b->requests);
  lg_fmq_destroy(b->results);
  pthread_cond_destroy(&b->cond);
  pthread_mutex_destroy(&b->lock);
  free(b);
}

int32_t svc_burst_provide(svc_burst* b, uint32_t slot, int fd, uint64_t size,
                          char* error, size_t error_size) {
  size_t real = 0;
  void* map = NULL;
  int32_t status = LG_WIRE_OK;
  if (slot >= LG_WIRE_MAX_SLOTS) return LG_WIRE_INVALID_ARGUMENT;
  if (fd >= 0) {
    /* The file's own size, never the one declared. */
    if (lg_shm_check(fd, size ? (size_t)size : 1, false, &real, error,
                     error_size) != 0 ||
        (map = lg_shm_map(fd, real, true, error, error_size)) == NULL) {
      status = LG_WIRE_INVALID_ARGUMENT;
    }
  }
  pthread_mutex_lock(&b->lock);
  svc_slot* s = &b->slots[slot];
  lg_shm_unmap(s->map, s->size);
  s->map = map;
  s->size = map ? real : 0;
  s->state = map ? SVC_SLOT_MAPPED : SVC_SLOT_UNKNOWN;
  pthread_cond_broadcast(&b->cond);
  pthread_mutex_unlock(&b->lock);
  return status;
}

int32_t svc_burst_free_slot(svc_burst* b, uint32_t slot, char* error,
                            size_t error_size) {
  if (slot >= LG_WIRE_MAX_SLOTS) {
    snprintf(error, error_size, "slot %u out of range", slot);
    return LG_WIRE_INVALID_ARGUMENT;
  }
  pthread_mutex_lock(&b->lock);
  svc_slot* s = &b->slots[slot];
  lg_shm_unmap(s->map, s->size);
  memset(s, 0, sizeof(*s));
  pthread_mutex_unlock(&b->lock);
  return LG_WIRE_OK;
}
