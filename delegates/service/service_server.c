/* The service's connections and control messages (service_server.h). */
#include "delegates/service/service_server.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "delegates/gpu/op_support.h"
#include "delegates/service/service_internal.h"
#include "delegates/service/shm.h"
#include "litegpu/gpu_delegate.h"
#include "ops/op_manifest.h"

struct lg_service {
  lg_service_options options;
  char* socket_path;
  int listen_fd;
  /* The accept loop's wake-up: 's' (stop, from lg_service_stop) or 'r' (a
   * client thread ended and can be joined). */
  int wake[2];
  lg_wire_op* ops;
  uint32_t num_ops;
  char device[LG_WIRE_DEVICE_SIZE];
  pthread_mutex_t lock; /* clients */
  svc_client* clients;
};

lg_service_options lg_service_options_default(void) {
  lg_service_options o;
  memset(&o, 0, sizeof(o));
  o.kind = LG_SERVICE_GPU;
  o.num_threads = 1;
  o.listener_spin_ns = 200000;
  return o;
}

const char* lg_service_device(const lg_service* s) { return s->device; }

/* ---- The op list ----------------------------------------------------------
 */

static int add_op(lg_service* s, int32_t code, const char* custom,
                  int max_version) {
  if (s->num_ops >= LG_WIRE_MAX_OPS) return -1;
  lg_wire_op* op = &s->ops[s->num_ops++];
  op->builtin_code = code;
  op->max_version = max_version;
  snprintf(op->custom_name, sizeof(op->custom_name), "%s",
           custom ? custom : "");
  return 0;
}

/* CPU: every manifest op with a CPU kernel, at its kernel's newest
 * version, and MediaPipe's custom ops (the service registers them); not
 * the control-flow family, which runs subgraphs a partition lacks. GPU:
 * the GPU delegate's table with TFLite's kMaxVersion. */
static int build_ops(lg_service* s) {
  s->ops = calloc(LG_WIRE_MAX_OPS, sizeof(lg_wire_op));
  if (s->ops == NULL) return -1;
  if (s->options.kind == LG_SERVICE_GPU) {
    int count = 0;
    const lg_kit_op* table = lg_gpu_op_table(&count);
    for (int i = 0; i < count; ++i) {
      if (add_op(s, table[i].builtin_code, table[i].custom_name,
                 table[i].max_version) != 0) {
        return -1;
      }
    }
    return 0;
  }
  int count = 0;
  const lg_op_info* rows = lg_op_manifest(&count);
  for (int i = 0; i < count; ++i) {
    const lg_op_info* r = &rows[i];
    if (strcmp(r->family, "control") == 0) continue;
    const int version = r->custom_name ? 1 : r->cpu_max_version;
    if (version <= 0) continue;
    if (add_op(s, r->builtin_code, r->custom_name, version) != 0) return -1;
  }
  return 0;
}

/* The GPU kind needs a device now, not at the first model. */
static int check_device(lg_service* s, char* error, size_t size) {
  if (s->options.kind == LG_SERVICE_CPU) {
    snprintf(s->device, sizeof(s->device), "cpu");
    return 0;
  }
  litegpu_gpu_delegate_options g = litegpu_gpu_delegate_options_default();
  g.backend = (litegpu_gpu_backend)s->options.gpu_backend;
  char why[512] = "";
  TfLiteDelegate* d = litegpu_gpu_delegate_create(&g, why, sizeof(why));
  if (d == NULL) {
    snprintf(error, size, "no GPU for the service: %s", why);
    return -1;
  }
  litegpu_gpu_delegate_stats stats;
  memset(&stats, 0, sizeof(stats));
  litegpu_gpu_delegate_get_stats(d, &stats);
  snprintf(s->device, sizeof(s->device), "gpu (%s: %.100s)",
           stats.backend ? stats.backend : "?", stats.device_name);
  TfLiteGpuDelegateV2Delete(d);
  return 0;
}

lg_service* lg_service_create(const lg_service_options* options, char* error,
                              size_t error_size) {
  lg_service* s = calloc(1, sizeof(*s));
  if (s == NULL) {
    snprintf(error, error_size, "out of memory");
    return NULL;
  }
  s->options = options ? *options : lg_service_options_default();
  s->listen_fd = -1;
  s->wake[0] = s->wake[1] = -1;
  pthread_mutex_init(&s->lock, NULL);
  s->socket_path =
      s->options.socket_path ? strdup(s->options.socket_path) : NULL;
  s->options.socket_path = s->socket_path;
  if (s->socket_path == NULL) {
    snprintf(error, error_size, "no socket path");
    goto fail;
  }
  if (build_ops(s) != 0) {
    snprintf(error, error_size, "cannot build the op list");
    goto fail;
  }
  if (check_device(s, error, error_size) != 0) goto fail;
  if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    snprintf(error, error_size, "pipe2 failed: %s", strerror(errno));
    goto fail;
  }
  s->listen_fd = lg_channel_listen(s->socket_path, error, error_size);
  if (s->listen_fd < 0) goto fail;
  return s;
fail:
  lg_service_destroy(s);
  return NULL;
}

void lg_service_stop(lg_service* s) {
  const char c = 's';
  ssize_t ignored = write(s->wake[1], &c, 1);
  (void)ignored;
}

void lg_service_destroy(lg_service* s) {
  if (s == NULL) return;
  if (s->listen_fd >= 0) {
    close(s->listen_fd);
    unlink(s->socket_path);
  }
  if (s->wake[0] >= 0) close(s->wake[0]);
  if (s->wake[1] >= 0) close(s->wake[1]);
  pthread_mutex_destroy(&s->lock);
  free(s->ops);
  free(s->socket_path);
  free(s);
}

/* ---- One client's control messages ----------------------------------------
 */

static void reply(svc_client* c, lg_wire_msg* m, uint32_t seq) {
  char error[256];
  m->seq = seq;
  const lg_channel_status s =
      lg_channel_send(c->channel, m, error, sizeof(error));
  if (s != LG_CHANNEL_OK) svc_log(c->options, "reply failed: %s", error);
}

static void reply_status(svc_client* c, uint32_t seq, int32_t status,
                         uint32_t value, const char* error) {
  lg_wire_msg m;
  lg_wire_msg_init(&m, LG_MSG_STATUS_REPLY);
  m.u.status_reply.status = status;
  m.u.status_reply.value = value;
  snprintf(m.u.status_reply.error, sizeof(m.u.status_reply.error), "%s",
           status == LG_WIRE_OK ? "" : error);
  reply(c, &m, seq);
}

static svc_model* find_model(svc_client* c, uint32_t id) {
  for (svc_model* m = c->models; m != NULL; m = m->next) {
    if (m->id == id) return m;
  }
  return NULL;
}

static svc_burst* find_burst(svc_client* c, uint32_t id) {
  for (svc_burst* b = c->bursts; b != NULL; b = b->next) {
    if (b->id == id) return b;
  }
  return NULL;
}

static void model_unref(svc_client* c, svc_model* m) {
  pthread_mutex_lock(&c->lock);
  const bool last = --m->refs == 0;
  pthread_mutex_unlock(&c->lock);
  if (last) svc_model_destroy(m);
}

static void on_hello(svc_client* c, const lg_wire_msg* in) {
  svc_log(c->options, "client pid %u, protocol %u", in->u.hello.pid,
          in->u.hello.protocol);
  lg_wire_msg m;
  lg_wire_msg_init(&m, LG_MSG_HELLO_REPLY);
  m.u.hello_reply.protocol = LG_WIRE_PROTOCOL;
  snprintf(m.u.hello_reply.device, sizeof(m.u.hello_reply.device), "%s",
           c->service->device);
  m.u.hello_reply.num_ops = c->service->num_ops;
  m.u.hello_reply.ops = c->service->ops;
  reply(c, &m, in->seq);
}

static void on_prepare(svc_client* c, const lg_wire_msg* in) {
  lg_wire_msg m;
  lg_wire_msg_init(&m, LG_MSG_PREPARE_REPLY);
  svc_model* model = NULL;
  m.u.prepare_reply.status = svc_model_create(
      c->options, in->fds[0], in->u.prepare.size, &model,
      m.u.prepare_reply.error, sizeof(m.u.prepare_reply.error));
  if (model != NULL) {
    pthread_mutex_lock(&c->lock);
    model->id = ++c->next_id;
    model->refs = 1;
    model->next = c->models;
    c->models = model;
    pthread_mutex_unlock(&c->lock);
    m.u.prepare_reply.model_id = model->id;
    m.u.prepare_reply.num_inputs = model->num_inputs;
    m.u.prepare_reply.num_outputs = model->num_outputs;
    memcpy(m.u.prepare_reply.inputs, model->inputs, sizeof(model->inputs));
    memcpy(m.u.prepare_reply.outputs, model->outputs, sizeof(model->outputs));
    svc_log(c->options, "model %u prepared (%llu bytes)", model->id,
            (unsigned long long)in->u.prepare.size);
  } else {
    svc_log(c->options, "prepare failed: %s", m.u.prepare_reply.error);
  }
  reply(c, &m, in->seq);
}

/* Each operand's range within the pool and its length against the
 * tensor, then the pointers. */
static int32_t pool_pointers(const svc_model* model, const lg_wire_msg* in,
                             uint8_t* pool, size_t size, const uint8_t** ins,
                             uint8_t** outs, char* error, size_t error_size) {
  const uint32_t ni = in->u.execute.num_inputs;
  for (uint32_t i = 0; i < ni + in->u.execute.num_outputs; ++i) {
    const bool is_input = i < ni;
    const uint32_t k = is_input ? i : i - ni;
    const lg_wire_arg* a =
        is_input ? &in->u.execute.inputs[k] : &in->u.execute.outputs[k];
    const uint64_t want =
        is_input ? model->inputs[k].bytes : model->outputs[k].bytes;
    if (!lg_wire_range_ok(a->offset, a->length, size) || a->length != want) {
      snprintf(error, error_size,
               "%s %u: offset %llu length %llu in a pool of %zu bytes; the "
               "tensor holds %llu",
               is_input ? "input" : "output", k, (unsigned long long)a->offset,
               (unsigned long long)a->length, size, (unsigned long long)want);
      return LG_WIRE_INVALID_ARGUMENT;
    }
    if (is_input) {
      ins[k] = pool + a->offset;
    } else {
      outs[k] = pool + a->offset;
    }
  }
  return LG_WIRE_OK;
}

static void on_execute(svc_client* c, const lg_wire_msg* in) {
  const uint64_t start = lg_now_ns();
  lg_wire_msg m;
  lg_wire_msg_init(&m, LG_MSG_EXECUTE_REPLY);
  char* error = m.u.execute_reply.error;
  const size_t error_size = sizeof(m.u.execute_reply.error);
  pthread_mutex_lock(&c->lock);
  svc_model* model = find_model(c, in->u.execute.model_id);
  pthread_mutex_unlock(&c->lock);
  size_t size = 0;
  uint8_t* pool = NULL;
  const uint8_t* ins[LG_WIRE_MAX_IO];
  uint8_t* outs[LG_WIRE_MAX_IO];
  int32_t s = LG_WIRE_OK;
  if (model == NULL) {
    snprintf(error, error_size, "no model %u", in->u.execute.model_id);
    s = LG_WIRE_INVALID_STATE;
  }
  if (s == LG_WIRE_OK) {
    s = svc_model_check_counts(model, in->u.execute.num_inputs,
                               in->u.execute.num_outputs, error, error_size);
  }
  if (s == LG_WIRE_OK &&
      (lg_shm_check(in->fds[0], 1, false, &size, error, error_size) != 0 ||
       (pool = lg_shm_map(in->fds[0], size, true, error, error_size)) ==
           NULL)) {
    s = LG_WIRE_INVALID_ARGUMENT;
  }
  if (s == LG_WIRE_OK) {
    s = pool_pointers(model, in, pool, size, ins, outs, error, error_size);
  }
  if (s == LG_WIRE_OK) {
    s = svc_model_run(model, ins, outs, m.u.execute_reply.shapes,
                      &m.u.execute_reply.timing.device_ns, error, error_size);
  }
  lg_shm_unmap(pool, size);
  m.u.execute_reply.status = s;
  if (s == LG_WIRE_OK) {
    m.u.execute_reply.num_outputs = model->num_outputs;
    error[0] = '\0';
  }
  if (in->u.execute.measure) {
    m.u.execute_reply.timing.service_ns = lg_now_ns() - start;
  } else {
    m.u.execute_reply.timing.device_ns = 0;
  }
  reply(c, &m, in->seq);
}

static void on_release_model(svc_client* c, const lg_wire_msg* in) {
  pthread_mutex_lock(&c->lock);
  svc_model** p = &c->models;
  while (*p != NULL && (*p)->id != in->u.release_model.model_id) {
    p = &(*p)->next;
  }
  svc_model* m = *p;
  if (m != NULL) *p = m->next;
  pthread_mutex_unlock(&c->lock);
  if (m == NULL) {
    reply_status(c, in->seq, LG_WIRE_INVALID_STATE, 0, "no such model");
    return;
  }
  model_unref(c, m); /* bursts over it keep it until they end */
  reply_status(c, in->seq, LG_WIRE_OK, 0, "");
}

static void on_burst_configure(svc_client* c, const lg_wire_msg* in) {
  char error[LG_WIRE_ERROR_SIZE] = "";
  pthread_mutex_lock(&c->lock);
  svc_model* m = find_model(c, in->u.burst_configure.model_id);
  if (m != NULL) ++m->refs;
  pthread_mutex_unlock(&c->lock);
  if (m == NULL) {
    reply_status(c, in->seq, LG_WIRE_INVALID_STATE, 0, "no such model");
    return;
  }
  svc_burst* b = NULL;
  if (in->u.burst_configure.datum_size != LG_BURST_DATUM_SIZE) {
    snprintf(error, sizeof(error), "datums of %u bytes, not %u",
             in->u.burst_configure.datum_size, LG_BURST_DATUM_SIZE);
  } else {
    b = svc_burst_start(
        c, m, in->fds[0], in->fds[1], in->u.burst_configure.request_capacity,
        in->u.burst_configure.result_capacity, error, sizeof(error));
  }
  if (b == NULL) {
    model_unref(c, m);
    reply_status(c, in->seq, LG_WIRE_INVALID_ARGUMENT, 0, error);
    return;
  }
  pthread_mutex_lock(&c->lock);
  b->id = ++c->next_id;
  b->next = c->bursts;
  c->bursts = b;
  pthread_mutex_unlock(&c->lock);
  svc_log(c->options, "burst %u on model %u", b->id, m->id);
  reply_status(c, in->seq, LG_WIRE_OK, b->id, "");
}

static void on_burst_release(svc_client* c, const lg_wire_msg* in) {
  pthread_mutex_lock(&c->lock);
  svc_burst** p = &c->bursts;
  while (*p != NULL && (*p)->id != in->u.burst_release.burst_id) {
    p = &(*p)->next;
  }
  svc_burst* b = *p;
  if (b != NULL) *p = b->next;
  pthread_mutex_unlock(&c->lock);
  if (b == NULL) {
    reply_status(c, in->seq, LG_WIRE_INVALID_STATE, 0, "no such burst");
    return;
  }
  svc_model* m = b->model;
  svc_burst_stop(b);
  model_unref(c, m);
  reply_status(c, in->seq, LG_WIRE_OK, 0, "");
}

/* Only this thread removes bursts, so one found stays valid here. */
static svc_burst* burst_of(svc_client* c, uint32_t id) {
  pthread_mutex_lock(&c->lock);
  svc_burst* b = find_burst(c, id);
  pthread_mutex_unlock(&c->lock);
  return b;
}

static void on_slot_provide(svc_client* c, lg_wire_msg* in) {
  char error[LG_WIRE_ERROR_SIZE] = "";
  svc_burst* b = burst_of(c, in->u.slot_provide.burst_id);
  if (b == NULL) return; /* released meanwhile: nothing to do */
  const int fd = in->num_fds > 0 ? in->fds[0] : -1;
  if (svc_burst_provide(b, in->u.slot_provide.slot, fd, in->u.slot_provide.size,
                        error, sizeof(error)) != LG_WIRE_OK) {
    svc_log(c->options, "burst %u slot %u refused: %s", b->id,
            in->u.slot_provide.slot, error);
  }
}

static void on_slot_free(svc_client* c, const lg_wire_msg* in) {
  char error[LG_WIRE_ERROR_SIZE] = "";
  svc_burst* b = burst_of(c, in->u.slot_free.burst_id);
  if (b == NULL) {
    reply_status(c, in->seq, LG_WIRE_INVALID_STATE, 0, "no such burst");
    return;
  }
  const int32_t s =
      svc_burst_free_slot(b, in->u.slot_free.slot, error, sizeof(error));
  reply_status(c, in->seq, s, 0, error);
}

static void handle(svc_client* c, lg_wire_msg* in) {
  switch (in->type) {
    case LG_MSG_HELLO:
      on_hello(c, in);
      break;
    case LG_MSG_PREPARE:
      on_prepare(c, in);
      break;
    case LG_MSG_EXECUTE:
      on_execute(c, in);
      break;
    case LG_MSG_RELEASE_MODEL:
      on_release_model(c, in);
      break;
    case LG_MSG_BURST_CONFIGURE:
      on_burst_configure(c, in);
      break;
    case LG_MSG_BURST_RELEASE:
      on_burst_release(c, in);
      break;
    case LG_MSG_SLOT_PROVIDE:
      on_slot_provide(c, in);
      break;
    case LG_MSG_SLOT_FREE:
      on_slot_free(c, in);
      break;
    default:
      reply_status(c, in->seq, LG_WIRE_INVALID_ARGUMENT, 0,
                   "not a request the service answers");
      break;
  }
}

/* Everything the client held: its bursts (listeners joined), then its
 * models. */
static void release_all(svc_client* c) {
  pthread_mutex_lock(&c->lock);
  svc_burst* bursts = c->bursts;
  svc_model* models = c->models;
  c->bursts = NULL;
  c->models = NULL;
  pthread_mutex_unlock(&c->lock);
  while (bursts != NULL) {
    svc_burst* next = bursts->next;
    svc_model* m = bursts->model;
    svc_burst_stop(bursts);
    if (--m->refs == 0) svc_model_destroy(m);
    bursts = next;
  }
  while (models != NULL) {
    svc_model* next = models->next;
    if (--models->refs == 0) svc_model_destroy(models);
    models = next;
  }
}

static void* client_main(void* arg) {
  svc_client* c = arg;
  char error[256];
  for (;;) {
    lg_wire_msg msg;
    const lg_channel_status s =
        lg_channel_recv(c->channel, &msg, -1, error, sizeof(error));
    if (s == LG_CHANNEL_CLOSED || s == LG_CHANNEL_ERROR) break;
    if (s == LG_CHANNEL_MALFORMED) {
      svc_log(c->options, "%s", error);
      reply_status(c, 0, LG_WIRE_INVALID_ARGUMENT, 0, error);
      continue;
    }
    if (s != LG_CHANNEL_OK) continue;
    handle(c, &msg);
    lg_wire_msg_clear(&msg);
  }
  svc_log(c->options, "client gone: releasing what it held");
  release_all(c);
  atomic_store(&c->done, true);
  const char r = 'r';
  ssize_t ignored = write(c->service->wake[1], &r, 1);
  (void)ignored;
  return NULL;
}

/* ---- The accept loop ------------------------------------------------------
 */

static void free_client(svc_client* c) {
  lg_channel_destroy(c->channel);
  pthread_mutex_destroy(&c->lock);
  free(c);
}

/* Joins and frees the clients whose threads ended (all of them when
 * `all`, after shutting their connections). */
static void reap(lg_service* s, bool all) {
  pthread_mutex_lock(&s->lock);
  svc_client** p = &s->clients;
  while (*p != NULL) {
    svc_client* c = *p;
    if (all) lg_channel_shutdown(c->channel);
    if (!all && !atomic_load(&c->done)) {
      p = &c->next;
      continue;
    }
    *p = c->next;
    pthread_mutex_unlock(&s->lock);
    pthread_join(c->thread, NULL);
    free_client(c);
    pthread_mutex_lock(&s->lock);
  }
  pthread_mutex_unlock(&s->lock);
}

static void accept_one(lg_service* s) {
  const int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
  if (fd < 0) return;
  svc_client* c = calloc(1, sizeof(*c));
  if (c == NULL) {
    close(fd);
    return;
  }
  c->service = s;
  c->options = &s->options;
  pthread_mutex_init(&c->lock, NULL);
  c->channel = lg_channel_create(fd);
  if (c->channel == NULL ||
      pthread_create(&c->thread, NULL, client_main, c) != 0) {
    free_client(c);
    return;
  }
  pthread_mutex_lock(&s->lock);
  c->next = s->clients;
  s->clients = c;
  pthread_mutex_unlock(&s->lock);
}

int lg_service_run(lg_service* s) {
  svc_log(&s->options, "serving %s on %s, %u ops", s->device, s->socket_path,
          s->num_ops);
  int status = 0;
  for (;;) {
    struct pollfd p[2] = {{s->listen_fd, POLLIN, 0}, {s->wake[0], POLLIN, 0}};
    const int rc = poll(p, 2, -1);
    if (rc < 0 && errno != EINTR) {
      status = -1;
      break;
    }
    bool stop = false;
    char buf[64];
    ssize_t n;
    while ((n = read(s->wake[0], buf, sizeof(buf))) > 0) {
      stop = stop || memchr(buf, 's', (size_t)n) != NULL;
    }
    reap(s, false);
    if (stop) break;
    if (rc > 0 && (p[0].revents & POLLIN)) accept_one(s);
  }
  reap(s, true);
  svc_log(&s->options, "stopped");
  return status;
}
