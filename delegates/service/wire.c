/* The service's wire format (wire.h).
 *
 * Each control message's layout is written once, in walk(), as a list of
 * fields that a codec either writes or reads, so the encoder and the
 * decoder cannot disagree; the reading side checks every field as it goes.
 */
#include "delegates/service/wire.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char* const kTypeNames[LG_MSG_TYPE_END] = {
    [LG_MSG_HELLO] = "HELLO",
    [LG_MSG_HELLO_REPLY] = "HELLO_REPLY",
    [LG_MSG_PREPARE] = "PREPARE",
    [LG_MSG_PREPARE_REPLY] = "PREPARE_REPLY",
    [LG_MSG_EXECUTE] = "EXECUTE",
    [LG_MSG_EXECUTE_REPLY] = "EXECUTE_REPLY",
    [LG_MSG_RELEASE_MODEL] = "RELEASE_MODEL",
    [LG_MSG_BURST_CONFIGURE] = "BURST_CONFIGURE",
    [LG_MSG_BURST_RELEASE] = "BURST_RELEASE",
    [LG_MSG_SLOT_FREE] = "SLOT_FREE",
    [LG_MSG_STATUS_REPLY] = "STATUS_REPLY",
    [LG_MSG_SLOT_REQUEST] = "SLOT_REQUEST",
    [LG_MSG_SLOT_PROVIDE] = "SLOT_PROVIDE",
};

const char* lg_wire_type_name(uint32_t type) {
  if (type == 0 || type >= LG_MSG_TYPE_END) return "unknown";
  return kTypeNames[type];
}

const char* lg_wire_status_name(int32_t status) {
  switch (status) {
    case LG_WIRE_OK:
      return "ok";
    case LG_WIRE_INVALID_ARGUMENT:
      return "invalid argument";
    case LG_WIRE_UNSUPPORTED:
      return "unsupported";
    case LG_WIRE_OUT_OF_MEMORY:
      return "out of memory";
    case LG_WIRE_DEVICE_ERROR:
      return "device error";
    case LG_WIRE_INVALID_STATE:
      return "invalid state";
  }
  return "unknown status";
}

void lg_wire_msg_init(lg_wire_msg* msg, uint32_t type) {
  memset(msg, 0, sizeof(*msg));
  msg->type = type;
  for (int i = 0; i < LG_WIRE_MAX_FDS; ++i) msg->fds[i] = -1;
}

void lg_wire_msg_clear(lg_wire_msg* msg) {
  if (msg->type == LG_MSG_HELLO_REPLY) free(msg->u.hello_reply.ops);
  for (int i = 0; i < msg->num_fds && i < LG_WIRE_MAX_FDS; ++i) {
    if (msg->fds[i] >= 0) close(msg->fds[i]);
  }
  lg_wire_msg_init(msg, msg->type);
}

int lg_wire_fds_needed(const lg_wire_msg* msg) {
  switch (msg->type) {
    case LG_MSG_PREPARE:
    case LG_MSG_EXECUTE:
      return 1;
    case LG_MSG_BURST_CONFIGURE:
      return 2;
    case LG_MSG_SLOT_PROVIDE:
      return msg->u.slot_provide.size > 0 ? 1 : 0;
    default:
      return 0;
  }
}

/* ---- The codec ------------------------------------------------------------
 */

typedef struct codec {
  bool decode;
  uint8_t* out;      /* encode */
  const uint8_t* in; /* decode */
  size_t size;       /* capacity (encode) or length (decode) */
  size_t pos;
  bool failed;
  const char* type_name;
  char* error;
  size_t error_size;
} codec;

__attribute__((format(printf, 2, 3))) static void fail(codec* c,
                                                       const char* format,
                                                       ...) {
  if (c->failed) return;
  c->failed = true;
  char detail[192];
  va_list args;
  va_start(args, format);
  vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  snprintf(c->error, c->error_size, "%s %s message: %s",
           c->decode ? "malformed" : "cannot encode", c->type_name, detail);
}

static void bytes(codec* c, void* value, size_t n, const char* what) {
  if (c->failed) return;
  if (n > c->size - c->pos) {
    if (c->decode) {
      fail(c, "truncated reading %s at byte %zu of %zu", what, c->pos, c->size);
    } else {
      fail(c, "%s does not fit in %zu bytes", what, c->size);
    }
    return;
  }
  if (c->decode) {
    memcpy(value, c->in + c->pos, n);
  } else {
    memcpy(c->out + c->pos, value, n);
  }
  c->pos += n;
}

static void u32(codec* c, uint32_t* v, const char* what) {
  bytes(c, v, sizeof(*v), what);
}
static void i32(codec* c, int32_t* v, const char* what) {
  bytes(c, v, sizeof(*v), what);
}
static void u64(codec* c, uint64_t* v, const char* what) {
  bytes(c, v, sizeof(*v), what);
}

/* A string of at most cap - 1 bytes (decoded with a terminator). */
static void str(codec* c, char* s, size_t cap, const char* what) {
  uint32_t n = c->decode ? 0 : (uint32_t)strnlen(s, cap);
  if (!c->decode && n >= cap) {
    fail(c, "%s is not terminated within %zu bytes", what, cap);
    return;
  }
  u32(c, &n, what);
  if (c->failed) return;
  if (n >= cap) {
    fail(c, "%s of %u bytes exceeds %zu", what, n, cap - 1);
    return;
  }
  bytes(c, s, n, what);
  if (c->decode && !c->failed) s[n] = '\0';
}

/* A count of at most `max` items of at least `item_bytes` each, which must
 * fit in what remains of the input. */
static void count(codec* c, uint32_t* n, uint32_t max, size_t item_bytes,
                  const char* what) {
  if (!c->decode && *n > max) {
    fail(c, "%u %s, more than %u", *n, what, max);
    return;
  }
  u32(c, n, what);
  if (c->failed || !c->decode) return;
  if (*n > max) {
    fail(c, "%u %s, more than %u", *n, what, max);
  } else if ((uint64_t)*n * item_bytes > c->size - c->pos) {
    fail(c, "%u %s do not fit in the %zu bytes left", *n, what,
         c->size - c->pos);
  }
}

static void status(codec* c, int32_t* s) {
  i32(c, s, "status");
  if (!c->failed && (*s < LG_WIRE_OK || *s > LG_WIRE_INVALID_STATE)) {
    fail(c, "status %d is not a status", *s);
  }
}

static void dims(codec* c, uint32_t* rank, int32_t* d, const char* what) {
  count(c, rank, LG_WIRE_MAX_RANK, sizeof(int32_t), what);
  for (uint32_t i = 0; i < *rank && !c->failed; ++i) {
    i32(c, &d[i], what);
    if (!c->failed && d[i] < 0) fail(c, "%s has dimension %d", what, d[i]);
  }
}

static void tensor(codec* c, lg_wire_tensor* t) {
  i32(c, &t->type, "tensor type");
  dims(c, &t->rank, t->dims, "tensor shape");
  u64(c, &t->bytes, "tensor bytes");
}

static void args(codec* c, uint32_t* n, lg_wire_arg* a, const char* what) {
  count(c, n, LG_WIRE_MAX_IO, 2 * sizeof(uint64_t), what);
  for (uint32_t i = 0; i < *n && !c->failed; ++i) {
    u64(c, &a[i].offset, what);
    u64(c, &a[i].length, what);
  }
}

static void ops(codec* c, lg_wire_msg* m) {
  uint32_t* n = &m->u.hello_reply.num_ops;
  count(c, n, LG_WIRE_MAX_OPS, 3 * sizeof(uint32_t), "ops");
  if (c->failed) return;
  if (c->decode) {
    m->u.hello_reply.ops = calloc(*n ? *n : 1, sizeof(lg_wire_op));
    if (m->u.hello_reply.ops == NULL) {
      fail(c, "out of memory for %u ops", *n);
      return;
    }
  }
  for (uint32_t i = 0; i < *n && !c->failed; ++i) {
    lg_wire_op* op = &m->u.hello_reply.ops[i];
    i32(c, &op->builtin_code, "op code");
    i32(c, &op->max_version, "op version");
    str(c, op->custom_name, sizeof(op->custom_name), "op name");
    if (!c->failed && (op->builtin_code < 0 || op->max_version < 1)) {
      fail(c, "op %u: code %d, max version %d", i, op->builtin_code,
           op->max_version);
    }
  }
}

static void walk(codec* c, lg_wire_msg* m) {
  switch (m->type) {
    case LG_MSG_HELLO:
      u32(c, &m->u.hello.protocol, "protocol");
      u32(c, &m->u.hello.pid, "pid");
      break;
    case LG_MSG_HELLO_REPLY:
      u32(c, &m->u.hello_reply.protocol, "protocol");
      str(c, m->u.hello_reply.device, LG_WIRE_DEVICE_SIZE, "device");
      ops(c, m);
      break;
    case LG_MSG_PREPARE:
      u64(c, &m->u.prepare.size, "model size");
      if (!c->failed && m->u.prepare.size == 0) fail(c, "empty model");
      break;
    case LG_MSG_PREPARE_REPLY: {
      __typeof__(m->u.prepare_reply)* p = &m->u.prepare_reply;
      status(c, &p->status);
      u32(c, &p->model_id, "model id");
      str(c, p->error, LG_WIRE_ERROR_SIZE, "error");
      count(c, &p->num_inputs, LG_WIRE_MAX_IO, 16, "inputs");
      for (uint32_t i = 0; i < p->num_inputs && !c->failed; ++i) {
        tensor(c, &p->inputs[i]);
      }
      count(c, &p->num_outputs, LG_WIRE_MAX_IO, 16, "outputs");
      for (uint32_t i = 0; i < p->num_outputs && !c->failed; ++i) {
        tensor(c, &p->outputs[i]);
      }
      break;
    }
    case LG_MSG_EXECUTE:
      u32(c, &m->u.execute.model_id, "model id");
      u32(c, &m->u.execute.measure, "measure");
      args(c, &m->u.execute.num_inputs, m->u.execute.inputs, "inputs");
      args(c, &m->u.execute.num_outputs, m->u.execute.outputs, "outputs");
      if (!c->failed && m->u.execute.measure > 1) {
        fail(c, "measure flag %u", m->u.execute.measure);
      }
      break;
    case LG_MSG_EXECUTE_REPLY: {
      __typeof__(m->u.execute_reply)* r = &m->u.execute_reply;
      status(c, &r->status);
      str(c, r->error, LG_WIRE_ERROR_SIZE, "error");
      count(c, &r->num_outputs, LG_WIRE_MAX_IO, 4, "output shapes");
      for (uint32_t i = 0; i < r->num_outputs && !c->failed; ++i) {
        dims(c, &r->shapes[i].rank, r->shapes[i].dims, "output shape");
      }
      u64(c, &r->timing.device_ns, "timing");
      u64(c, &r->timing.service_ns, "timing");
      break;
    }
    case LG_MSG_RELEASE_MODEL:
      u32(c, &m->u.release_model.model_id, "model id");
      break;
    case LG_MSG_BURST_CONFIGURE:
      u32(c, &m->u.burst_configure.model_id, "model id");
      u32(c, &m->u.burst_configure.datum_size, "datum size");
      u32(c, &m->u.burst_configure.request_capacity, "request capacity");
      u32(c, &m->u.burst_configure.result_capacity, "result capacity");
      break;
    case LG_MSG_BURST_RELEASE:
      u32(c, &m->u.burst_release.burst_id, "burst id");
      break;
    case LG_MSG_SLOT_FREE:
      u32(c, &m->u.slot_free.burst_id, "burst id");
      u32(c, &m->u.slot_free.slot, "slot");
      if (!c->failed && m->u.slot_free.slot >= LG_WIRE_MAX_SLOTS) {
        fail(c, "slot %u of at most %u", m->u.slot_free.slot,
             LG_WIRE_MAX_SLOTS);
      }
      break;
    case LG_MSG_STATUS_REPLY:
      status(c, &m->u.status_reply.status);
      u32(c, &m->u.status_reply.value, "value");
      str(c, m->u.status_reply.error, LG_WIRE_ERROR_SIZE, "error");
      break;
    case LG_MSG_SLOT_REQUEST: {
      __typeof__(m->u.slot_request)* s = &m->u.slot_request;
      u32(c, &s->burst_id, "burst id");
      count(c, &s->count, LG_WIRE_MAX_SLOT_LIST, 4, "slots");
      for (uint32_t i = 0; i < s->count && !c->failed; ++i) {
        u32(c, &s->slots[i], "slot");
        if (!c->failed && s->slots[i] >= LG_WIRE_MAX_SLOTS) {
          fail(c, "slot %u of at most %u", s->slots[i], LG_WIRE_MAX_SLOTS);
        }
      }
      break;
    }
    case LG_MSG_SLOT_PROVIDE:
      u32(c, &m->u.slot_provide.burst_id, "burst id");
      u32(c, &m->u.slot_provide.slot, "slot");
      u64(c, &m->u.slot_provide.size, "size");
      if (!c->failed && m->u.slot_provide.slot >= LG_WIRE_MAX_SLOTS) {
        fail(c, "slot %u of at most %u", m->u.slot_provide.slot,
             LG_WIRE_MAX_SLOTS);
      }
      break;
    default:
      fail(c, "unknown type %u", m->type);
      break;
  }
}

int lg_wire_encode(const lg_wire_msg* msg, uint8_t* buffer, size_t capacity,
                   size_t* size, char* error, size_t error_size) {
  codec c = {.decode = false,
             .out = buffer,
             .size = capacity,
             .pos = LG_WIRE_HEADER_SIZE,
             .type_name = lg_wire_type_name(msg->type),
             .error = error,
             .error_size = error_size};
  if (capacity < LG_WIRE_HEADER_SIZE) {
    fail(&c, "a buffer of %zu bytes", capacity);
    return -1;
  }
  /* walk() only reads through the pointer when encoding. */
  walk(&c, (lg_wire_msg*)msg);
  if (c.failed) return -1;
  if (c.pos - LG_WIRE_HEADER_SIZE > LG_WIRE_MAX_MESSAGE) {
    fail(&c, "%zu bytes exceed the limit", c.pos);
    return -1;
  }
  const uint32_t magic = LG_WIRE_MAGIC;
  const uint16_t type = (uint16_t)msg->type, reserved = 0;
  const uint32_t length = (uint32_t)(c.pos - LG_WIRE_HEADER_SIZE);
  memcpy(buffer, &magic, 4);
  memcpy(buffer + 4, &type, 2);
  memcpy(buffer + 6, &reserved, 2);
  memcpy(buffer + 8, &length, 4);
  memcpy(buffer + 12, &msg->seq, 4);
  *size = c.pos;
  return 0;
}

int lg_wire_decode(const uint8_t* data, size_t size, const int* fds,
                   int num_fds, lg_wire_msg* msg, char* error,
                   size_t error_size) {
  lg_wire_msg_init(msg, 0);
  if (data == NULL || size < LG_WIRE_HEADER_SIZE) {
    snprintf(error, error_size, "malformed message: %zu bytes, no header",
             size);
    return -1;
  }
  uint32_t magic = 0, length = 0;
  uint16_t type = 0, reserved = 0;
  memcpy(&magic, data, 4);
  memcpy(&type, data + 4, 2);
  memcpy(&reserved, data + 6, 2);
  memcpy(&length, data + 8, 4);
  memcpy(&msg->seq, data + 12, 4);
  if (magic != LG_WIRE_MAGIC || reserved != 0 || type == 0 ||
      type >= LG_MSG_TYPE_END || length > LG_WIRE_MAX_MESSAGE ||
      length != size - LG_WIRE_HEADER_SIZE) {
    snprintf(error, error_size,
             "malformed message: header magic 0x%x type %u reserved %u "
             "length %u in a record of %zu bytes",
             magic, type, reserved, length, size);
    return -1;
  }
  msg->type = type;
  codec c = {.decode = true,
             .in = data,
             .size = size,
             .pos = LG_WIRE_HEADER_SIZE,
             .type_name = lg_wire_type_name(type),
             .error = error,
             .error_size = error_size};
  walk(&c, msg);
  if (!c.failed && c.pos != size) {
    fail(&c, "%zu trailing bytes", size - c.pos);
  }
  if (!c.failed && num_fds != lg_wire_fds_needed(msg)) {
    fail(&c, "%d descriptors, expected %d", num_fds, lg_wire_fds_needed(msg));
  }
  if (c.failed) {
    if (msg->type == LG_MSG_HELLO_REPLY) free(msg->u.hello_reply.ops);
    lg_wire_msg_init(msg, type);
    return -1;
  }
  msg->num_fds = num_fds;
  for (int i = 0; i < num_fds; ++i) msg->fds[i] = fds[i];
  return 0;
}

/* ---- Burst datums ---------------------------------------------------------
 */

_Static_assert(sizeof(lg_burst_datum) == LG_BURST_DATUM_SIZE,
               "a burst datum is 32 bytes");

static void put64(uint32_t* w, uint64_t v) {
  w[0] = (uint32_t)v;
  w[1] = (uint32_t)(v >> 32);
}

static uint64_t get64(const uint32_t* w) {
  return (uint64_t)w[0] | ((uint64_t)w[1] << 32);
}

bool lg_wire_range_ok(uint64_t offset, uint64_t length, uint64_t size) {
  return offset <= size && length <= size - offset;
}

__attribute__((format(printf, 3, 4))) static int bad(char* error, size_t size,
                                                     const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(error, size, format, args);
  va_end(args);
  return -1;
}

int lg_burst_message_count(const lg_burst_datum* first, uint32_t tag,
                           uint32_t capacity, uint32_t* count, char* error,
                           size_t error_size) {
  *count = 0;
  if (first->tag != tag) {
    return bad(error, error_size,
               "burst message starts with tag 0x%x, not 0x%x", first->tag, tag);
  }
  if (first->w[0] == 0 || first->w[0] > capacity) {
    return bad(error, error_size,
               "burst message announces %u datums; the queue holds %u",
               first->w[0], capacity);
  }
  *count = first->w[0];
  return 0;
}

int lg_burst_request_encode(const lg_burst_request* r, lg_burst_datum* out,
                            uint32_t capacity) {
  if (r->num_inputs > LG_WIRE_MAX_IO || r->num_outputs > LG_WIRE_MAX_IO) {
    return -1;
  }
  const uint32_t n = r->num_inputs + r->num_outputs;
  if (1 + n > capacity) return -1;
  memset(out, 0, sizeof(*out) * (1 + n));
  out[0].tag = LG_BURST_TAG_REQUEST;
  out[0].w[0] = 1 + n;
  out[0].w[1] = r->serial;
  out[0].w[2] = r->num_inputs;
  out[0].w[3] = r->num_outputs;
  out[0].w[4] = r->measure ? LG_BURST_FLAG_MEASURE : 0;
  for (uint32_t i = 0; i < n; ++i) {
    lg_burst_datum* d = &out[1 + i];
    d->tag = LG_BURST_TAG_OPERAND;
    d->w[0] = i;
    d->w[1] = r->operands[i].slot;
    put64(&d->w[2], r->operands[i].offset);
    put64(&d->w[4], r->operands[i].length);
  }
  return (int)(1 + n);
}

int lg_burst_request_decode(const lg_burst_datum* d, uint32_t count,
                            lg_burst_request* out, char* error,
                            size_t error_size) {
  memset(out, 0, sizeof(*out));
  if (count == 0 || d[0].tag != LG_BURST_TAG_REQUEST || d[0].w[0] != count) {
    return bad(error, error_size,
               "burst request: %u datums, first tag 0x%x announcing %u", count,
               count ? d[0].tag : 0, count ? d[0].w[0] : 0);
  }
  const uint32_t ni = d[0].w[2], no = d[0].w[3], flags = d[0].w[4];
  if (ni > LG_WIRE_MAX_IO || no > LG_WIRE_MAX_IO || 1 + ni + no != count ||
      (flags & ~LG_BURST_FLAG_MEASURE) != 0 || d[0].w[5] || d[0].w[6]) {
    return bad(error, error_size,
               "burst request: %u inputs and %u outputs in %u datums, flags "
               "0x%x",
               ni, no, count, flags);
  }
  out->serial = d[0].w[1];
  out->measure = (flags & LG_BURST_FLAG_MEASURE) != 0;
  out->num_inputs = ni;
  out->num_outputs = no;
  for (uint32_t i = 0; i < ni + no; ++i) {
    const lg_burst_datum* op = &d[1 + i];
    if (op->tag != LG_BURST_TAG_OPERAND || op->w[0] != i) {
      return bad(error, error_size,
                 "burst request: datum %u has tag 0x%x index %u, expected "
                 "operand %u",
                 1 + i, op->tag, op->w[0], i);
    }
    if (op->w[1] >= LG_WIRE_MAX_SLOTS || op->w[6] != 0) {
      return bad(error, error_size,
                 "burst request: operand %u names slot %u (at most %u)", i,
                 op->w[1], LG_WIRE_MAX_SLOTS - 1);
    }
    out->operands[i].slot = op->w[1];
    out->operands[i].offset = get64(&op->w[2]);
    out->operands[i].length = get64(&op->w[4]);
    if (out->operands[i].offset > UINT64_MAX - out->operands[i].length) {
      return bad(error, error_size,
                 "burst request: operand %u offset %llu + length %llu "
                 "overflows",
                 i, (unsigned long long)out->operands[i].offset,
                 (unsigned long long)out->operands[i].length);
    }
  }
  return 0;
}

int lg_burst_result_encode(const lg_burst_result* r, lg_burst_datum* out,
                           uint32_t capacity) {
  if (r->num_outputs > LG_WIRE_MAX_IO) return -1;
  uint32_t n = 1;
  const size_t text = strnlen(r->error, LG_WIRE_ERROR_SIZE - 1);
  const uint32_t text_datums =
      (uint32_t)((text + LG_BURST_TEXT_BYTES - 1) / LG_BURST_TEXT_BYTES);
  uint32_t need = 1 + (r->has_timing ? 1 : 0) + text_datums;
  for (uint32_t i = 0; i < r->num_outputs; ++i) {
    if (r->shapes[i].rank > LG_WIRE_MAX_RANK) return -1;
    need += r->shapes[i].rank > 5 ? 2 : 1;
  }
  if (need > capacity) return -1;
  memset(out, 0, sizeof(*out) * need);
  out[0].tag = LG_BURST_TAG_RESULT;
  out[0].w[0] = need;
  out[0].w[1] = r->serial;
  out[0].w[2] = (uint32_t)r->status;
  out[0].w[3] = r->num_outputs;
  out[0].w[4] = (r->has_timing ? LG_BURST_FLAG_TIMING : 0) |
                (text_datums ? LG_BURST_FLAG_TEXT : 0);
  for (uint32_t i = 0; i < r->num_outputs; ++i) {
    const lg_wire_shape* s = &r->shapes[i];
    lg_burst_datum* d = &out[n++];
    d->tag = LG_BURST_TAG_SHAPE;
    d->w[0] = i;
    d->w[1] = s->rank;
    for (uint32_t k = 0; k < s->rank && k < 5; ++k) {
      d->w[2 + k] = (uint32_t)s->dims[k];
    }
    if (s->rank > 5) {
      d = &out[n++];
      d->tag = LG_BURST_TAG_SHAPE_MORE;
      d->w[0] = i;
      for (uint32_t k = 5; k < s->rank; ++k) {
        d->w[1 + k - 5] = (uint32_t)s->dims[k];
      }
    }
  }
  if (r->has_timing) {
    lg_burst_datum* d = &out[n++];
    d->tag = LG_BURST_TAG_TIMING;
    put64(&d->w[0], r->timing.device_ns);
    put64(&d->w[2], r->timing.service_ns);
  }
  for (uint32_t t = 0; t < text_datums; ++t) {
    lg_burst_datum* d = &out[n++];
    d->tag = LG_BURST_TAG_TEXT;
    d->w[0] = t;
    const size_t at = (size_t)t * LG_BURST_TEXT_BYTES;
    const size_t len =
        text - at < LG_BURST_TEXT_BYTES ? text - at : LG_BURST_TEXT_BYTES;
    memcpy(&d->w[1], r->error + at, len);
  }
  return (int)n;
}

static int decode_shape(const lg_burst_datum* d, uint32_t count, uint32_t* n,
                        uint32_t index, lg_wire_shape* s, char* error,
                        size_t error_size) {
  const lg_burst_datum* head = &d[*n];
  if (head->tag != LG_BURST_TAG_SHAPE || head->w[0] != index ||
      head->w[1] > LG_WIRE_MAX_RANK) {
    return bad(error, error_size,
               "burst result: datum %u has tag 0x%x index %u rank %u, "
               "expected the shape of output %u",
               *n, head->tag, head->w[0], head->w[1], index);
  }
  s->rank = head->w[1];
  ++*n;
  for (uint32_t k = 0; k < s->rank && k < 5; ++k) {
    s->dims[k] = (int32_t)head->w[2 + k];
  }
  if (s->rank > 5) {
    if (*n >= count || d[*n].tag != LG_BURST_TAG_SHAPE_MORE ||
        d[*n].w[0] != index) {
      return bad(error, error_size,
                 "burst result: output %u of rank %u lacks its other "
                 "dimensions",
                 index, s->rank);
    }
    for (uint32_t k = 5; k < s->rank; ++k) {
      s->dims[k] = (int32_t)d[*n].w[1 + k - 5];
    }
    ++*n;
  }
  for (uint32_t k = 0; k < s->rank; ++k) {
    if (s->dims[k] < 0) {
      return bad(error, error_size, "burst result: output %u dimension %d",
                 index, s->dims[k]);
    }
  }
  return 0;
}

int lg_burst_result_decode(const lg_burst_datum* d, uint32_t count,
                           lg_burst_result* out, char* error,
                           size_t error_size) {
  memset(out, 0, sizeof(*out));
  if (count == 0 || d[0].tag != LG_BURST_TAG_RESULT || d[0].w[0] != count) {
    return bad(error, error_size,
               "burst result: %u datums, first tag 0x%x announcing %u", count,
               count ? d[0].tag : 0, count ? d[0].w[0] : 0);
  }
  const uint32_t flags = d[0].w[4];
  const int32_t status = (int32_t)d[0].w[2];
  if (d[0].w[3] > LG_WIRE_MAX_IO ||
      (flags & ~(LG_BURST_FLAG_TIMING | LG_BURST_FLAG_TEXT)) != 0 ||
      status < LG_WIRE_OK || status > LG_WIRE_INVALID_STATE) {
    return bad(error, error_size,
               "burst result: %u outputs, flags 0x%x, status %d", d[0].w[3],
               flags, status);
  }
  out->serial = d[0].w[1];
  out->status = status;
  out->num_outputs = d[0].w[3];
  uint32_t n = 1;
  for (uint32_t i = 0; i < out->num_outputs; ++i) {
    if (n >= count) {
      return bad(error, error_size, "burst result: output %u missing", i);
    }
    if (decode_shape(d, count, &n, i, &out->shapes[i], error, error_size)) {
      return -1;
    }
  }
  if (flags & LG_BURST_FLAG_TIMING) {
    if (n >= count || d[n].tag != LG_BURST_TAG_TIMING) {
      return bad(error, error_size, "burst result: timing missing");
    }
    out->has_timing = true;
    out->timing.device_ns = get64(&d[n].w[0]);
    out->timing.service_ns = get64(&d[n].w[2]);
    ++n;
  }
  size_t text = 0;
  for (uint32_t t = 0; (flags & LG_BURST_FLAG_TEXT) && n < count; ++t, ++n) {
    if (d[n].tag != LG_BURST_TAG_TEXT || d[n].w[0] != t ||
        t >= LG_BURST_MAX_TEXT_DATUMS) {
      return bad(error, error_size, "burst result: datum %u is not text %u", n,
                 t);
    }
    const size_t room = LG_WIRE_ERROR_SIZE - 1 - text;
    const size_t len = room < LG_BURST_TEXT_BYTES ? room : LG_BURST_TEXT_BYTES;
    memcpy(out->error + text, &d[n].w[1], len);
    text += len;
  }
  out->error[text] = '\0'; /* text <= LG_WIRE_ERROR_SIZE - 1 */
  if (n != count) {
    return bad(error, error_size, "burst result: %u datums left over",
               count - n);
  }
  return 0;
}
