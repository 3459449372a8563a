/* The client side of the litegpu service (service_client.h). */
#include "delegates/service/service_client.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "delegates/service/channel.h"
#include "delegates/service/fmq.h"
#include "delegates/service/shm.h"

#define DEFAULT_SPIN_NS 100000u

struct lg_svc_client {
  lg_channel* channel;
  char* path;
  pthread_mutex_t lock; /* every call */
  bool dead;
  char dead_reason[256];
  uint32_t seq;
  lg_wire_op* ops;
  uint32_t num_ops;
  char device[LG_WIRE_DEVICE_SIZE];
  lg_svc_burst* bursts;
  int execute_timeout_ms; /* 0: wait as long as the service lives */
};

struct lg_svc_pool {
  lg_svc_client* client;
  int fd;
  void* map;
  size_t size;
};

struct lg_svc_burst {
  lg_svc_client* client;
  uint32_t id;
  lg_fmq* requests;
  lg_fmq* results;
  lg_svc_pool* slots[LG_WIRE_MAX_SLOTS];
  uint32_t serial;
  uint64_t spin_ns;
  uint32_t slot_requests;
  bool broken;
  char broken_reason[LG_WIRE_ERROR_SIZE];
  lg_burst_datum out[LG_BURST_MAX_REQUEST_DATUMS];
  lg_burst_datum in[LG_SVC_RESULT_CAPACITY];
  lg_svc_burst* next;
};

__attribute__((format(printf, 3, 4))) static int fail(char* error, size_t size,
                                                      const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(error, size, format, args);
  va_end(args);
  return -1;
}

static int dead_error(lg_svc_client* c, char* error, size_t size) {
  return fail(error, size, "%s", c->dead_reason);
}

static int mark_dead(lg_svc_client* c, char* error, size_t size) {
  if (!c->dead) {
    c->dead = true;
    snprintf(c->dead_reason, sizeof(c->dead_reason),
             "the litegpu service at %s died (its socket closed)", c->path);
  }
  return dead_error(c, error, size);
}

/* An execution that got no answer in time: the service is alive but hung.
 * The connection is shut down (the service frees what it held when it
 * sees the hang-up) and every later call fails with this reason, as after
 * a death: a late answer can never be taken for another request's. */
static int mark_hung(lg_svc_client* c, char* error, size_t size) {
  if (!c->dead) {
    c->dead = true;
    snprintf(c->dead_reason, sizeof(c->dead_reason),
             "the litegpu service at %s did not answer an execution within "
             "%d ms (alive but hung); the connection is closed",
             c->path, c->execute_timeout_ms);
    lg_channel_shutdown(c->channel);
  }
  return dead_error(c, error, size);
}

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Milliseconds left before `deadline_ns` for a poll: -1 without a deadline
 * (0), at least 1 before it, 0 once it has passed. */
static int ms_left(int64_t deadline_ns) {
  if (deadline_ns == 0) return -1;
  const int64_t left = deadline_ns - now_ns();
  if (left <= 0) return 0;
  return (int)((left + 999999) / 1000000);
}

/* ---- Messages from the service --------------------------------------------
 */

static lg_svc_burst* burst_by_id(lg_svc_client* c, uint32_t id) {
  for (lg_svc_burst* b = c->bursts; b != NULL; b = b->next) {
    if (b->id == id) return b;
  }
  return NULL;
}

/* Answers a SLOT_REQUEST: each slot's pool descriptor, or size 0 when the
 * burst has no such slot. */
static lg_channel_status serve_slots(lg_svc_client* c, const lg_wire_msg* in,
                                     char* error, size_t size) {
  lg_svc_burst* b = burst_by_id(c, in->u.slot_request.burst_id);
  for (uint32_t i = 0; i < in->u.slot_request.count; ++i) {
    const uint32_t slot = in->u.slot_request.slots[i];
    const lg_svc_pool* pool = b ? b->slots[slot] : NULL;
    lg_wire_msg m;
    lg_wire_msg_init(&m, LG_MSG_SLOT_PROVIDE);
    m.u.slot_provide.burst_id = in->u.slot_request.burst_id;
    m.u.slot_provide.slot = slot;
    if (pool != NULL) {
      m.u.slot_provide.size = pool->size;
      m.fds[0] = pool->fd;
      m.num_fds = 1;
    }
    const lg_channel_status s = lg_channel_send(c->channel, &m, error, size);
    if (s != LG_CHANNEL_OK) return s;
  }
  if (b != NULL) ++b->slot_requests;
  return LG_CHANNEL_OK;
}

/* Handles what the service sent on its own (slot requests) until nothing
 * is waiting; -1 when the service is gone. */
static int pump(lg_svc_client* c, char* error, size_t size) {
  for (;;) {
    lg_wire_msg m;
    lg_channel_status s = lg_channel_recv(c->channel, &m, 0, error, size);
    if (s == LG_CHANNEL_TIMEOUT) return 0;
    if (s == LG_CHANNEL_CLOSED) return mark_dead(c, error, size);
    if (s != LG_CHANNEL_OK) return -1;
    if (m.type == LG_MSG_SLOT_REQUEST) s = serve_slots(c, &m, error, size);
    lg_wire_msg_clear(&m);
    if (s == LG_CHANNEL_CLOSED) return mark_dead(c, error, size);
  }
}

/* Sends a request and waits for its reply, answering slot requests that
 * arrive meanwhile; with `timeout_ms` > 0, no longer than that (then the
 * service counts as hung). On 0 the caller clears `reply`. */
static int call_within(lg_svc_client* c, lg_wire_msg* request,
                       uint32_t reply_type, lg_wire_msg* reply, int timeout_ms,
                       char* error, size_t size) {
  if (c->dead) return dead_error(c, error, size);
  request->seq = ++c->seq;
  lg_channel_status s = lg_channel_send(c->channel, request, error, size);
  if (s == LG_CHANNEL_CLOSED) return mark_dead(c, error, size);
  if (s != LG_CHANNEL_OK) return -1;
  const int64_t deadline =
      timeout_ms > 0 ? now_ns() + (int64_t)timeout_ms * 1000000LL : 0;
  for (;;) {
    const int wait_ms = ms_left(deadline);
    s = wait_ms == 0 ? LG_CHANNEL_TIMEOUT
                     : lg_channel_recv(c->channel, reply, wait_ms, error, size);
    if (s == LG_CHANNEL_TIMEOUT) return mark_hung(c, error, size);
    if (s == LG_CHANNEL_CLOSED) return mark_dead(c, error, size);
    if (s != LG_CHANNEL_OK) return -1;
    if (reply->type == LG_MSG_SLOT_REQUEST) {
      s = serve_slots(c, reply, error, size);
      lg_wire_msg_clear(reply);
      if (s == LG_CHANNEL_CLOSED) return mark_dead(c, error, size);
      continue;
    }
    if (reply->seq != request->seq) { /* a stale answer: not ours */
      lg_wire_msg_clear(reply);
      continue;
    }
    if (reply->type == reply_type) return 0;
    if (reply->type == LG_MSG_STATUS_REPLY) {
      fail(error, size, "the service refused %s: %s",
           lg_wire_type_name(request->type), reply->u.status_reply.error);
    } else {
      fail(error, size, "the service answered %s with %s",
           lg_wire_type_name(request->type), lg_wire_type_name(reply->type));
    }
    lg_wire_msg_clear(reply);
    return -1;
  }
}

static int call(lg_svc_client* c, lg_wire_msg* request, uint32_t reply_type,
                lg_wire_msg* reply, char* error, size_t size) {
  return call_within(c, request, reply_type, reply, 0, error, size);
}

/* A request answered by STATUS_REPLY; *value (may be NULL) gets its
 * value. */
static int call_status(lg_svc_client* c, lg_wire_msg* request, uint32_t* value,
                       char* error, size_t size) {
  lg_wire_msg r;
  if (call(c, request, LG_MSG_STATUS_REPLY, &r, error, size) != 0) return -1;
  const int32_t status = r.u.status_reply.status;
  if (value != NULL) *value = r.u.status_reply.value;
  if (status != LG_WIRE_OK) {
    fail(error, size, "%s failed: %s (%s)", lg_wire_type_name(request->type),
         r.u.status_reply.error, lg_wire_status_name(status));
  }
  lg_wire_msg_clear(&r);
  return status == LG_WIRE_OK ? 0 : -1;
}

/* ---- Connection -----------------------------------------------------------
 */

lg_svc_client* lg_svc_client_connect(const char* path, char* error,
                                     size_t size) {
  char why[256] = "";
  const int fd = lg_channel_connect(path, why, sizeof(why));
  if (fd < 0) {
    fail(error, size, "cannot reach the litegpu service at %s: %s",
         path ? path : "(null)", why);
    return NULL;
  }
  lg_svc_client* c = calloc(1, sizeof(*c));
  if (c == NULL) {
    close(fd);
    fail(error, size, "out of memory");
    return NULL;
  }
  pthread_mutex_init(&c->lock, NULL);
  c->path = strdup(path);
  c->channel = lg_channel_create(fd);
  if (c->path == NULL || c->channel == NULL) {
    fail(error, size, "out of memory");
    lg_svc_client_close(c);
    return NULL;
  }
  lg_wire_msg hello, r;
  lg_wire_msg_init(&hello, LG_MSG_HELLO);
  hello.u.hello.protocol = LG_WIRE_PROTOCOL;
  hello.u.hello.pid = (uint32_t)getpid();
  if (call(c, &hello, LG_MSG_HELLO_REPLY, &r, why, sizeof(why)) != 0) {
    fail(error, size, "the litegpu service at %s does not answer: %s", path,
         why);
    lg_svc_client_close(c);
    return NULL;
  }
  if (r.u.hello_reply.protocol != LG_WIRE_PROTOCOL) {
    fail(error, size, "the litegpu service at %s speaks protocol %u, not %u",
         path, r.u.hello_reply.protocol, LG_WIRE_PROTOCOL);
    lg_wire_msg_clear(&r);
    lg_svc_client_close(c);
    return NULL;
  }
  c->ops = r.u.hello_reply.ops; /* taken from the message */
  c->num_ops = r.u.hello_reply.num_ops;
  r.u.hello_reply.ops = NULL;
  memcpy(c->device, r.u.hello_reply.device, sizeof(c->device));
  lg_wire_msg_clear(&r);
  return c;
}

void lg_svc_client_close(lg_svc_client* c) {
  if (c == NULL) return;
  lg_channel_destroy(c->channel);
  pthread_mutex_destroy(&c->lock);
  free(c->ops);
  free(c->path);
  free(c);
}

const lg_wire_op* lg_svc_client_ops(const lg_svc_client* c, uint32_t* count) {
  *count = c->num_ops;
  return c->ops;
}

const char* lg_svc_client_device(const lg_svc_client* c) { return c->device; }
const char* lg_svc_client_path(const lg_svc_client* c) { return c->path; }
bool lg_svc_client_alive(const lg_svc_client* c) { return !c->dead; }

/* ---- Models ----------------------------------------------------------------
 */

void lg_svc_client_set_execute_timeout(lg_svc_client* c, int timeout_ms) {
  pthread_mutex_lock(&c->lock);
  c->execute_timeout_ms = timeout_ms > 0 ? timeout_ms : 0;
  pthread_mutex_unlock(&c->lock);
}

int lg_svc_prepare(lg_svc_client* c, const void* model, size_t size,
                   lg_svc_model_info* info, char* error, size_t error_size) {
  const int fd = lg_shm_create_sealed_copy("litegpu-model", model, size, error,
                                           error_size);
  if (fd < 0) return -1;
  lg_wire_msg m, r;
  lg_wire_msg_init(&m, LG_MSG_PREPARE);
  m.u.prepare.size = size;
  m.fds[0] = fd;
  m.num_fds = 1;
  pthread_mutex_lock(&c->lock);
  int rc = call(c, &m, LG_MSG_PREPARE_REPLY, &r, error, error_size);
  pthread_mutex_unlock(&c->lock);
  close(fd);
  if (rc != 0) return -1;
  if (r.u.prepare_reply.status != LG_WIRE_OK) {
    fail(error, error_size, "the service cannot prepare the model: %s (%s)",
         r.u.prepare_reply.error,
         lg_wire_status_name(r.u.prepare_reply.status));
    rc = -1;
  } else {
    info->id = r.u.prepare_reply.model_id;
    info->num_inputs = r.u.prepare_reply.num_inputs;
    info->num_outputs = r.u.prepare_reply.num_outputs;
    memcpy(info->inputs, r.u.prepare_reply.inputs, sizeof(info->inputs));
    memcpy(info->outputs, r.u.prepare_reply.outputs, sizeof(info->outputs));
  }
  lg_wire_msg_clear(&r);
  return rc;
}

int lg_svc_release_model(lg_svc_client* c, uint32_t model_id, char* error,
                         size_t size) {
  lg_wire_msg m;
  lg_wire_msg_init(&m, LG_MSG_RELEASE_MODEL);
  m.u.release_model.model_id = model_id;
  pthread_mutex_lock(&c->lock);
  const int rc = call_status(c, &m, NULL, error, size);
  pthread_mutex_unlock(&c->lock);
  return rc;
}

/* ---- Pools ----------------------------------------------------------------
 */

lg_svc_pool* lg_svc_pool_create(lg_svc_client* c, size_t size, char* error,
                                size_t error_size) {
  lg_svc_pool* p = calloc(1, sizeof(*p));
  if (p == NULL) {
    fail(error, error_size, "out of memory");
    return NULL;
  }
  p->client = c;
  p->size = size ? size : 1;
  if (lg_shm_create("litegpu-pool", p->size, &p->fd, &p->map, error,
                    error_size) != 0) {
    free(p);
    return NULL;
  }
  return p;
}

void* lg_svc_pool_data(const lg_svc_pool* p) { return p->map; }
size_t lg_svc_pool_size(const lg_svc_pool* p) { return p->size; }

void lg_svc_pool_destroy(lg_svc_pool* p) {
  if (p == NULL) return;
  lg_svc_client* c = p->client;
  pthread_mutex_lock(&c->lock);
  for (lg_svc_burst* b = c->bursts; b != NULL; b = b->next) {
    for (uint32_t slot = 0; slot < LG_WIRE_MAX_SLOTS; ++slot) {
      if (b->slots[slot] != p) continue;
      b->slots[slot] = NULL;
      lg_wire_msg m;
      lg_wire_msg_init(&m, LG_MSG_SLOT_FREE);
      m.u.slot_free.burst_id = b->id;
      m.u.slot_free.slot = slot;
      char ignored[256];
      call_status(c, &m, NULL, ignored, sizeof(ignored));
    }
  }
  pthread_mutex_unlock(&c->lock);
  lg_shm_unmap(p->map, p->size);
  close(p->fd);
  free(p);
}

/* ---- Per-call execution ---------------------------------------------------
 */

static void copy_result(uint32_t num_outputs, const lg_wire_shape* shapes,
                        bool has_timing, const lg_wire_timing* timing,
                        lg_svc_result* out) {
  if (out == NULL) return;
  memset(out, 0, sizeof(*out));
  out->num_outputs = num_outputs;
  memcpy(out->shapes, shapes, sizeof(*shapes) * num_outputs);
  out->has_timing = has_timing;
  out->timing = *timing;
}

int lg_svc_execute(lg_svc_client* c, uint32_t model_id, const lg_svc_io* inputs,
                   uint32_t num_inputs, const lg_svc_io* outputs,
                   uint32_t num_outputs, bool measure, lg_svc_result* result,
                   char* error, size_t size) {
  if (num_inputs > LG_WIRE_MAX_IO || num_outputs > LG_WIRE_MAX_IO) {
    return fail(error, size, "%u inputs and %u outputs: at most %d each",
                num_inputs, num_outputs, LG_WIRE_MAX_IO);
  }
  const lg_svc_pool* pool = num_inputs    ? inputs[0].pool
                            : num_outputs ? outputs[0].pool
                                          : NULL;
  lg_wire_msg m, r;
  lg_wire_msg_init(&m, LG_MSG_EXECUTE);
  m.u.execute.model_id = model_id;
  m.u.execute.measure = measure ? 1 : 0;
  m.u.execute.num_inputs = num_inputs;
  m.u.execute.num_outputs = num_outputs;
  for (uint32_t i = 0; i < num_inputs + num_outputs; ++i) {
    const lg_svc_io* io =
        i < num_inputs ? &inputs[i] : &outputs[i - num_inputs];
    if (io->pool == NULL || io->pool != pool) {
      return fail(error, size, "a per-call execution takes one pool");
    }
    lg_wire_arg* a = i < num_inputs ? &m.u.execute.inputs[i]
                                    : &m.u.execute.outputs[i - num_inputs];
    a->offset = io->offset;
    a->length = io->length;
  }
  if (pool == NULL) return fail(error, size, "an execution without operands");
  m.fds[0] = pool->fd;
  m.num_fds = 1;
  pthread_mutex_lock(&c->lock);
  int rc = call_within(c, &m, LG_MSG_EXECUTE_REPLY, &r, c->execute_timeout_ms,
                       error, size);
  pthread_mutex_unlock(&c->lock);
  if (rc != 0) return -1;
  if (r.u.execute_reply.status != LG_WIRE_OK) {
    rc = fail(error, size, "the service failed the execution: %s (%s)",
              r.u.execute_reply.error,
              lg_wire_status_name(r.u.execute_reply.status));
  } else if (r.u.execute_reply.num_outputs != num_outputs) {
    rc = fail(error, size, "the service returned %u outputs, not %u",
              r.u.execute_reply.num_outputs, num_outputs);
  } else {
    copy_result(num_outputs, r.u.execute_reply.shapes, measure,
                &r.u.execute_reply.timing, result);
  }
  lg_wire_msg_clear(&r);
  return rc;
}

/* ---- Bursts ---------------------------------------------------------------
 */

lg_svc_burst* lg_svc_burst_create(lg_svc_client* c, uint32_t model_id,
                                  uint64_t spin_ns, char* error, size_t size) {
  lg_svc_burst* b = calloc(1, sizeof(*b));
  if (b == NULL) {
    fail(error, size, "out of memory");
    return NULL;
  }
  b->client = c;
  b->spin_ns = spin_ns ? spin_ns : DEFAULT_SPIN_NS;
  b->requests = lg_fmq_create("litegpu-burst-requests", LG_BURST_DATUM_SIZE,
                              LG_SVC_REQUEST_CAPACITY, error, size);
  b->results = b->requests
                   ? lg_fmq_create("litegpu-burst-results", LG_BURST_DATUM_SIZE,
                                   LG_SVC_RESULT_CAPACITY, error, size)
                   : NULL;
  if (b->results == NULL) {
    lg_fmq_destroy(b->requests);
    free(b);
    return NULL;
  }
  lg_wire_msg m;
  lg_wire_msg_init(&m, LG_MSG_BURST_CONFIGURE);
  m.u.burst_configure.model_id = model_id;
  m.u.burst_configure.datum_size = LG_BURST_DATUM_SIZE;
  m.u.burst_configure.request_capacity = LG_SVC_REQUEST_CAPACITY;
  m.u.burst_configure.result_capacity = LG_SVC_RESULT_CAPACITY;
  m.fds[0] = lg_fmq_fd(b->requests);
  m.fds[1] = lg_fmq_fd(b->results);
  m.num_fds = 2;
  pthread_mutex_lock(&c->lock);
  const int rc = call_status(c, &m, &b->id, error, size);
  if (rc == 0) {
    b->next = c->bursts;
    c->bursts = b;
  }
  pthread_mutex_unlock(&c->lock);
  if (rc != 0) {
    lg_fmq_destroy(b->requests);
    lg_fmq_destroy(b->results);
    free(b);
    return NULL;
  }
  return b;
}

void lg_svc_burst_destroy(lg_svc_burst* b) {
  if (b == NULL) return;
  lg_svc_client* c = b->client;
  pthread_mutex_lock(&c->lock);
  lg_svc_burst** p = &c->bursts;
  while (*p != NULL && *p != b) p = &(*p)->next;
  if (*p != NULL) *p = b->next;
  lg_wire_msg m;
  lg_wire_msg_init(&m, LG_MSG_BURST_RELEASE);
  m.u.burst_release.burst_id = b->id;
  char ignored[256];
  if (!c->dead) call_status(c, &m, NULL, ignored, sizeof(ignored));
  pthread_mutex_unlock(&c->lock);
  lg_fmq_destroy(b->requests);
  lg_fmq_destroy(b->results);
  free(b);
}

uint32_t lg_svc_burst_slot_requests(const lg_svc_burst* b) {
  return b->slot_requests;
}

struct lg_fmq* lg_svc_burst_request_queue(lg_svc_burst* b) {
  return b->requests;
}

/* The slot of a pool in this burst, given a new one on first use. */
static int slot_of(lg_svc_burst* b, lg_svc_pool* pool, uint32_t* slot) {
  int free_slot = -1;
  for (uint32_t i = 0; i < LG_WIRE_MAX_SLOTS; ++i) {
    if (b->slots[i] == pool) {
      *slot = i;
      return 0;
    }
    if (b->slots[i] == NULL && free_slot < 0) free_slot = (int)i;
  }
  if (free_slot < 0) return -1;
  b->slots[free_slot] = pool;
  *slot = (uint32_t)free_slot;
  return 0;
}

static int broken(lg_svc_burst* b, char* error, size_t size, const char* format,
                  ...) __attribute__((format(printf, 4, 5)));

static int broken(lg_svc_burst* b, char* error, size_t size, const char* format,
                  ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(b->broken_reason, sizeof(b->broken_reason), format, args);
  va_end(args);
  b->broken = true;
  return fail(error, size, "%s", b->broken_reason);
}

static int send_request(lg_svc_burst* b, const lg_svc_io* inputs,
                        uint32_t num_inputs, const lg_svc_io* outputs,
                        uint32_t num_outputs, bool measure, char* error,
                        size_t size) {
  lg_burst_request r;
  memset(&r, 0, sizeof(r));
  r.serial = ++b->serial;
  r.measure = measure;
  r.num_inputs = num_inputs;
  r.num_outputs = num_outputs;
  for (uint32_t i = 0; i < num_inputs + num_outputs; ++i) {
    const lg_svc_io* io =
        i < num_inputs ? &inputs[i] : &outputs[i - num_inputs];
    if (io->pool == NULL || slot_of(b, io->pool, &r.operands[i].slot) != 0) {
      return fail(error, size, "operand %u: no pool, or more than %d pools", i,
                  LG_WIRE_MAX_SLOTS);
    }
    r.operands[i].offset = io->offset;
    r.operands[i].length = io->length;
  }
  const int n = lg_burst_request_encode(&r, b->out, LG_SVC_REQUEST_CAPACITY);
  const lg_fmq_status s =
      n < 0 ? LG_FMQ_TOO_LARGE : lg_fmq_write(b->requests, b->out, (uint32_t)n);
  if (s != LG_FMQ_OK) {
    return broken(b, error, size, "burst request not sent: queue %s",
                  lg_fmq_status_name(s));
  }
  return 0;
}

/* Reads one result; 1 when it answers `serial`, 0 for a stale one. */
static int read_result(lg_svc_burst* b, uint32_t serial, lg_burst_result* out,
                       char* error, size_t size) {
  char why[LG_WIRE_ERROR_SIZE];
  uint32_t count = 0;
  if (lg_fmq_peek(b->results, &b->in[0]) != LG_FMQ_OK ||
      lg_burst_message_count(&b->in[0], LG_BURST_TAG_RESULT,
                             LG_SVC_RESULT_CAPACITY, &count, why,
                             sizeof(why)) != 0 ||
      lg_fmq_read(b->results, b->in, count) != LG_FMQ_OK ||
      lg_burst_result_decode(b->in, count, out, why, sizeof(why)) != 0) {
    return broken(b, error, size, "bad burst result: %s", why);
  }
  return out->serial == serial ? 1 : 0;
}

int lg_svc_burst_execute(lg_svc_burst* b, const lg_svc_io* inputs,
                         uint32_t num_inputs, const lg_svc_io* outputs,
                         uint32_t num_outputs, bool measure,
                         lg_svc_result* result, char* error, size_t size) {
  lg_svc_client* c = b->client;
  if (num_inputs > LG_WIRE_MAX_IO || num_outputs > LG_WIRE_MAX_IO) {
    return fail(error, size, "%u inputs and %u outputs: at most %d each",
                num_inputs, num_outputs, LG_WIRE_MAX_IO);
  }
  pthread_mutex_lock(&c->lock);
  int rc = 0;
  if (c->dead) {
    rc = dead_error(c, error, size);
  } else if (b->broken) {
    rc = fail(error, size, "%s", b->broken_reason);
  } else {
    rc = send_request(b, inputs, num_inputs, outputs, num_outputs, measure,
                      error, size);
  }
  lg_burst_result r;
  const uint32_t serial = b->serial;
  const int64_t deadline =
      c->execute_timeout_ms > 0
          ? now_ns() + (int64_t)c->execute_timeout_ms * 1000000LL
          : 0;
  while (rc == 0) {
    uint32_t bits = 0;
    int64_t slice = LG_SVC_DEAD_CHECK_MS * 1000000LL;
    if (deadline != 0) {
      const int64_t left = deadline - now_ns();
      if (left <= 0) {
        rc = mark_hung(c, error, size);
        break;
      }
      if (left < slice) slice = left;
    }
    const lg_fmq_status s = lg_fmq_wait_readable(
        b->results, b->spin_ns, slice, LG_BURST_EVENT_CALLBACK, &bits);
    if (s == LG_FMQ_CORRUPT) {
      rc = broken(b, error, size, "burst result queue corrupt");
    } else if (bits & LG_FMQ_EVENT_NOT_EMPTY) {
      const int got = read_result(b, serial, &r, error, size);
      if (got != 0) {
        rc = got < 0 ? -1 : 0;
        break;
      }
    } else if ((bits & LG_BURST_EVENT_CALLBACK) ||
               (s == LG_FMQ_TIMEOUT && !lg_channel_peer_gone(c->channel))) {
      rc = pump(c, error, size); /* slot requests, or a check */
    } else if (s == LG_FMQ_TIMEOUT) {
      rc = mark_dead(c, error, size);
    }
    /* A timed-out slice with the service alive loops back to the deadline
     * check. */
  }
  pthread_mutex_unlock(&c->lock);
  if (rc != 0) return -1;
  if (r.status != LG_WIRE_OK) {
    return fail(error, size, "the service failed the execution: %s (%s)",
                r.error, lg_wire_status_name(r.status));
  }
  if (r.num_outputs != num_outputs) {
    return fail(error, size, "the service returned %u outputs, not %u",
                r.num_outputs, num_outputs);
  }
  copy_result(num_outputs, r.shapes, r.has_timing, &r.timing, result);
  return 0;
}
