/* The service's wire format (delegates/service/wire.h): every control
 * message and burst datum sequence round-trips; corrupt inputs (truncated
 * at every length, byte flips, huge counts and strings, trailing bytes,
 * wrong descriptors, unknown tags, slots, offsets that overflow, shapes
 * out of range) are refused with a reason and never read past the input.
 * Run under ASan (build/asan) to catch an out-of-bounds read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "delegates/service/wire.h"

static uint8_t buffer[LG_WIRE_MAX_MESSAGE + LG_WIRE_HEADER_SIZE];
static char error[512];

static lg_wire_op kOps[3] = {
    {0, 5, ""}, {3, 2, ""}, {32, 1, "Convolution2DTransposeBias"}};

/* One message of each type, with every field set. */
static void sample(uint32_t type, lg_wire_msg* m) {
  lg_wire_msg_init(m, type);
  m->seq = 77;
  switch (type) {
    case LG_MSG_HELLO:
      m->u.hello.protocol = LG_WIRE_PROTOCOL;
      m->u.hello.pid = 1234;
      break;
    case LG_MSG_HELLO_REPLY:
      m->u.hello_reply.protocol = LG_WIRE_PROTOCOL;
      strcpy(m->u.hello_reply.device, "cpu");
      m->u.hello_reply.num_ops = 3;
      m->u.hello_reply.ops = kOps;
      break;
    case LG_MSG_PREPARE:
      m->u.prepare.size = 4096;
      m->num_fds = 1;
      m->fds[0] = 5;
      break;
    case LG_MSG_PREPARE_REPLY:
      m->u.prepare_reply.status = LG_WIRE_OK;
      m->u.prepare_reply.model_id = 9;
      m->u.prepare_reply.num_inputs = 2;
      m->u.prepare_reply.num_outputs = 1;
      m->u.prepare_reply.inputs[0] = (lg_wire_tensor){1, 2, {1, 5}, 20};
      m->u.prepare_reply.inputs[1] = (lg_wire_tensor){1, 1, {5}, 20};
      m->u.prepare_reply.outputs[0] =
          (lg_wire_tensor){1, 6, {1, 1, 1, 1, 1, 5}, 20};
      break;
    case LG_MSG_EXECUTE:
      m->u.execute.model_id = 9;
      m->u.execute.measure = 1;
      m->u.execute.num_inputs = 2;
      m->u.execute.num_outputs = 1;
      m->u.execute.inputs[0] = (lg_wire_arg){0, 20};
      m->u.execute.inputs[1] = (lg_wire_arg){64, 20};
      m->u.execute.outputs[0] = (lg_wire_arg){128, 20};
      m->num_fds = 1;
      m->fds[0] = 6;
      break;
    case LG_MSG_EXECUTE_REPLY:
      m->u.execute_reply.status = LG_WIRE_DEVICE_ERROR;
      strcpy(m->u.execute_reply.error, "ADD failed");
      m->u.execute_reply.num_outputs = 1;
      m->u.execute_reply.shapes[0] = (lg_wire_shape){2, {1, 5}};
      m->u.execute_reply.timing = (lg_wire_timing){1000, 5000};
      break;
    case LG_MSG_RELEASE_MODEL:
      m->u.release_model.model_id = 9;
      break;
    case LG_MSG_BURST_CONFIGURE:
      m->u.burst_configure.model_id = 9;
      m->u.burst_configure.datum_size = LG_BURST_DATUM_SIZE;
      m->u.burst_configure.request_capacity = 256;
      m->u.burst_configure.result_capacity = 256;
      m->num_fds = 2;
      m->fds[0] = 7;
      m->fds[1] = 8;
      break;
    case LG_MSG_BURST_RELEASE:
      m->u.burst_release.burst_id = 4;
      break;
    case LG_MSG_SLOT_FREE:
      m->u.slot_free.burst_id = 4;
      m->u.slot_free.slot = 3;
      break;
    case LG_MSG_STATUS_REPLY:
      m->u.status_reply.status = LG_WIRE_INVALID_STATE;
      m->u.status_reply.value = 4;
      strcpy(m->u.status_reply.error, "no such burst");
      break;
    case LG_MSG_SLOT_REQUEST:
      m->u.slot_request.burst_id = 4;
      m->u.slot_request.count = 2;
      m->u.slot_request.slots[0] = 0;
      m->u.slot_request.slots[1] = 63;
      break;
    case LG_MSG_SLOT_PROVIDE:
      m->u.slot_provide.burst_id = 4;
      m->u.slot_provide.slot = 63;
      m->u.slot_provide.size = 8192;
      m->num_fds = 1;
      m->fds[0] = 9;
      break;
  }
}

static size_t encode(const lg_wire_msg* m) {
  size_t size = 0;
  if (lg_wire_encode(m, buffer, sizeof(buffer), &size, error, sizeof(error)) !=
      0) {
    fail_msg("encode %s: %s", lg_wire_type_name(m->type), error);
  }
  return size;
}

static int decode(size_t size, const lg_wire_msg* like, lg_wire_msg* out) {
  return lg_wire_decode(buffer, size, like->fds, like->num_fds, out, error,
                        sizeof(error));
}

static void every_message_round_trips(void** state) {
  (void)state;
  for (uint32_t type = LG_MSG_HELLO; type < LG_MSG_TYPE_END; ++type) {
    lg_wire_msg m, back;
    sample(type, &m);
    const size_t size = encode(&m);
    if (decode(size, &m, &back) != 0) {
      fail_msg("decode %s: %s", lg_wire_type_name(type), error);
    }
    assert_int_equal(back.type, type);
    assert_int_equal(back.seq, 77);
    assert_int_equal(back.num_fds, m.num_fds);
    if (type == LG_MSG_HELLO_REPLY) {
      assert_int_equal(back.u.hello_reply.num_ops, 3);
      assert_memory_equal(back.u.hello_reply.ops, kOps, sizeof(kOps));
      assert_string_equal(back.u.hello_reply.device, "cpu");
      free(back.u.hello_reply.ops);
    } else {
      /* Every field of the union compares equal (samples start zeroed). */
      assert_memory_equal(&back.u, &m.u, sizeof(m.u));
    }
  }
}

/* A record cut short, with the header's length left alone or made to
 * match, never decodes. */
static void truncation_at_every_length_fails(void** state) {
  (void)state;
  for (uint32_t type = LG_MSG_HELLO; type < LG_MSG_TYPE_END; ++type) {
    lg_wire_msg m, back;
    sample(type, &m);
    const size_t size = encode(&m);
    for (size_t cut = 0; cut < size; ++cut) {
      uint8_t* copy = malloc(cut ? cut : 1);
      memcpy(copy, buffer, cut);
      if (lg_wire_decode(copy, cut, m.fds, m.num_fds, &back, error,
                         sizeof(error)) == 0) {
        fail_msg("%s cut to %zu bytes decoded", lg_wire_type_name(type), cut);
      }
      if (cut >= LG_WIRE_HEADER_SIZE) {
        const uint32_t length = (uint32_t)(cut - LG_WIRE_HEADER_SIZE);
        memcpy(copy + 8, &length, 4);
        if (lg_wire_decode(copy, cut, m.fds, m.num_fds, &back, error,
                           sizeof(error)) == 0) {
          fail_msg("%s truncated to %zu bytes decoded", lg_wire_type_name(type),
                   cut);
        }
      }
      free(copy);
    }
  }
}

static void header_and_descriptors_are_checked(void** state) {
  (void)state;
  lg_wire_msg m, back;
  sample(LG_MSG_EXECUTE, &m);
  size_t size = encode(&m);
  /* Descriptors: none, or two, where EXECUTE carries one. */
  assert_int_equal(
      lg_wire_decode(buffer, size, m.fds, 0, &back, error, sizeof(error)), -1);
  assert_non_null(strstr(error, "0 descriptors, expected 1"));
  int two[2] = {6, 7};
  assert_int_equal(
      lg_wire_decode(buffer, size, two, 2, &back, error, sizeof(error)), -1);
  /* Magic, reserved, type. */
  buffer[0] ^= 1;
  assert_int_equal(decode(size, &m, &back), -1);
  assert_non_null(strstr(error, "header magic"));
  buffer[0] ^= 1;
  buffer[6] = 1;
  assert_int_equal(decode(size, &m, &back), -1);
  buffer[6] = 0;
  const uint16_t bogus = LG_MSG_TYPE_END;
  memcpy(buffer + 4, &bogus, 2);
  assert_int_equal(decode(size, &m, &back), -1);
  /* Trailing bytes after a valid payload. */
  sample(LG_MSG_HELLO, &m);
  size = encode(&m);
  const uint32_t longer = (uint32_t)(size - LG_WIRE_HEADER_SIZE + 3);
  memcpy(buffer + 8, &longer, 4);
  assert_int_equal(decode(size + 3, &m, &back), -1);
  assert_non_null(strstr(error, "3 trailing bytes"));
  /* SLOT_PROVIDE of an unknown slot carries no descriptor. */
  sample(LG_MSG_SLOT_PROVIDE, &m);
  m.u.slot_provide.size = 0;
  m.num_fds = 0;
  size = encode(&m);
  assert_int_equal(decode(size, &m, &back), 0);
  assert_int_equal(
      lg_wire_decode(buffer, size, two, 1, &back, error, sizeof(error)), -1);
}

/* Writes a u32 at payload offset `at` of the encoded message. */
static void poke(size_t at, uint32_t value) {
  memcpy(buffer + LG_WIRE_HEADER_SIZE + at, &value, 4);
}

static void counts_strings_and_ranges_are_checked(void** state) {
  (void)state;
  lg_wire_msg m, back;
  /* HELLO_REPLY: protocol(4) device(4 + 3) count(4). */
  sample(LG_MSG_HELLO_REPLY, &m);
  size_t size = encode(&m);
  poke(11, 0xffffffffu);
  assert_int_equal(decode(size, &m, &back), -1);
  assert_non_null(strstr(error, "more than 512"));
  poke(11, 500);
  assert_int_equal(decode(size, &m, &back), -1);
  assert_non_null(strstr(error, "do not fit"));
  /* The device string's length. */
  size = encode(&m);
  poke(4, 0x7fffffffu);
  assert_int_equal(decode(size, &m, &back), -1);
  assert_non_null(strstr(error, "exceeds"));
  poke(4, 100);
  assert_int_equal(decode(size, &m, &back), -1);
  /* A model version of 0. */
  size = encode(&m);
  poke(15 + 4, 0);
  assert_int_equal(decode(size, &m, &back), -1);
  /* PREPARE_REPLY: a status out of range, a negative dimension. */
  sample(LG_MSG_PREPARE_REPLY, &m);
  size = encode(&m);
  poke(0, 99);
  assert_int_equal(decode(size, &m, &back), -1);
  assert_non_null(strstr(error, "not a status"));
  size = encode(&m);
  /* status(4) id(4) error(4) count(4) type(4) rank(4) dim0 */
  poke(24, (uint32_t)-3);
  assert_int_equal(decode(size, &m, &back), -1);
  assert_non_null(strstr(error, "dimension -3"));
  size = encode(&m);
  poke(20, LG_WIRE_MAX_RANK + 1);
  assert_int_equal(decode(size, &m, &back), -1);
  /* EXECUTE: more inputs than a model has, a measure flag of 2. */
  sample(LG_MSG_EXECUTE, &m);
  size = encode(&m);
  poke(8, LG_WIRE_MAX_IO + 1);
  assert_int_equal(decode(size, &m, &back), -1);
  size = encode(&m);
  poke(4, 2);
  assert_int_equal(decode(size, &m, &back), -1);
  /* Slots beyond the cache. */
  sample(LG_MSG_SLOT_REQUEST, &m);
  size = encode(&m);
  poke(8, LG_WIRE_MAX_SLOTS);
  assert_int_equal(decode(size, &m, &back), -1);
  sample(LG_MSG_SLOT_FREE, &m);
  size = encode(&m);
  poke(4, LG_WIRE_MAX_SLOTS);
  assert_int_equal(decode(size, &m, &back), -1);
  m.u.slot_free.slot = LG_WIRE_MAX_SLOTS;
  assert_int_equal(
      lg_wire_encode(&m, buffer, sizeof(buffer), &size, error, sizeof(error)),
      -1);
  /* The encoder refuses what the decoder would. */
  sample(LG_MSG_EXECUTE, &m);
  m.u.execute.num_inputs = LG_WIRE_MAX_IO + 1;
  assert_int_equal(
      lg_wire_encode(&m, buffer, sizeof(buffer), &size, error, sizeof(error)),
      -1);
  sample(LG_MSG_HELLO, &m);
  assert_int_equal(lg_wire_encode(&m, buffer, 20, &size, error, sizeof(error)),
                   -1);
}

/* A small seeded generator (the tests' inputs are reproducible). */
static uint32_t rng_state = 12345;
static uint32_t next_random(void) {
  rng_state = rng_state * 1664525u + 1013904223u;
  return rng_state >> 8;
}

/* Random flips of bytes and of 32-bit words in every message type: the
 * decoder accepts or refuses, and what it accepts encodes again. */
static void random_corruption_never_crashes(void** state) {
  (void)state;
  int accepted = 0, refused = 0;
  for (int round = 0; round < 20000; ++round) {
    const uint32_t type =
        LG_MSG_HELLO + next_random() % (LG_MSG_TYPE_END - LG_MSG_HELLO);
    lg_wire_msg m, back;
    sample(type, &m);
    const size_t size = encode(&m);
    const int flips = 1 + (int)(next_random() % 4);
    for (int f = 0; f < flips; ++f) {
      const size_t at = next_random() % size;
      if (next_random() % 2 && at + 4 <= size) {
        const uint32_t v = next_random() * 977u;
        memcpy(buffer + at, &v, 4);
      } else {
        buffer[at] ^= (uint8_t)(1u << (next_random() % 8));
      }
    }
    uint8_t* copy = malloc(size);
    memcpy(copy, buffer, size);
    if (lg_wire_decode(copy, size, m.fds, m.num_fds, &back, error,
                       sizeof(error)) == 0) {
      ++accepted;
      size_t again = 0;
      if (lg_wire_encode(&back, buffer, sizeof(buffer), &again, error,
                         sizeof(error)) != 0) {
        fail_msg("accepted %s does not encode: %s", lg_wire_type_name(type),
                 error);
      }
      if (back.type == LG_MSG_HELLO_REPLY) free(back.u.hello_reply.ops);
    } else {
      ++refused;
      assert_true(strlen(error) > 0);
    }
    free(copy);
  }
  assert_true(refused > 1000);
  assert_true(accepted > 100);
}

/* ---- Burst datums ---------------------------------------------------------
 */

static lg_burst_datum datums[512];

/* Field by field: the structs have padding. */
static void assert_requests_equal(const lg_burst_request* a,
                                  const lg_burst_request* b) {
  assert_int_equal(a->serial, b->serial);
  assert_int_equal(a->measure, b->measure);
  assert_int_equal(a->num_inputs, b->num_inputs);
  assert_int_equal(a->num_outputs, b->num_outputs);
  for (uint32_t i = 0; i < a->num_inputs + a->num_outputs; ++i) {
    assert_int_equal(a->operands[i].slot, b->operands[i].slot);
    assert_int_equal(a->operands[i].offset, b->operands[i].offset);
    assert_int_equal(a->operands[i].length, b->operands[i].length);
  }
}

static void assert_results_equal(const lg_burst_result* a,
                                 const lg_burst_result* b) {
  assert_int_equal(a->serial, b->serial);
  assert_int_equal(a->status, b->status);
  assert_int_equal(a->num_outputs, b->num_outputs);
  assert_memory_equal(a->shapes, b->shapes,
                      sizeof(a->shapes[0]) * a->num_outputs);
  assert_int_equal(a->has_timing, b->has_timing);
  assert_int_equal(a->timing.device_ns, b->timing.device_ns);
  assert_int_equal(a->timing.service_ns, b->timing.service_ns);
  assert_string_equal(a->error, b->error);
}

static void burst_request_round_trip(void** state) {
  (void)state;
  lg_burst_request r = {
      .serial = 3, .measure = true, .num_inputs = 2, .num_outputs = 1};
  r.operands[0] = (lg_burst_operand){0, 0, 20};
  r.operands[1] = (lg_burst_operand){1, 64, 20};
  r.operands[2] = (lg_burst_operand){63, 1ull << 40, 20};
  const int n = lg_burst_request_encode(&r, datums, 512);
  assert_int_equal(n, 4);
  uint32_t count = 0;
  assert_int_equal(lg_burst_message_count(datums, LG_BURST_TAG_REQUEST, 256,
                                          &count, error, sizeof(error)),
                   0);
  assert_int_equal(count, 4);
  lg_burst_request back;
  assert_int_equal(
      lg_burst_request_decode(datums, 4, &back, error, sizeof(error)), 0);
  assert_requests_equal(&back, &r);
  /* Too small a queue for the request. */
  assert_int_equal(lg_burst_request_encode(&r, datums, 3), -1);
  assert_int_equal(lg_burst_message_count(datums, LG_BURST_TAG_REQUEST, 3,
                                          &count, error, sizeof(error)),
                   -1);
  assert_int_equal(lg_burst_message_count(datums, LG_BURST_TAG_RESULT, 256,
                                          &count, error, sizeof(error)),
                   -1);
}

static void burst_request_corruption(void** state) {
  (void)state;
  lg_burst_request r = {.serial = 1, .num_inputs = 1, .num_outputs = 1};
  r.operands[0] = (lg_burst_operand){2, 0, 16};
  r.operands[1] = (lg_burst_operand){2, 16, 16};
  lg_burst_request back;
  struct {
    int datum, word;
    uint32_t value;
    const char* reason;
  } cases[] = {
      {0, -1, 0xdead, "first tag"}, /* the packet's tag */
      {0, 0, 5, "announcing"},      /* count != datums */
      {0, 2, 2, "inputs"},          /* inputs + outputs != count */
      {0, 2, 1000, "inputs"},       /* more inputs than allowed */
      {0, 4, 0x80, "flags"},        /* an unknown flag */
      {1, -1, LG_BURST_TAG_RESULT, "expected operand"},
      {2, 0, 0, "expected operand"}, /* operand index out of order */
      {1, 1, LG_WIRE_MAX_SLOTS, "slot"},
      {2, 3, 0xffffffffu, "overflows"}, /* offset near 2^64 */
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    assert_int_equal(lg_burst_request_encode(&r, datums, 16), 3);
    if (cases[i].datum == 2 && cases[i].word == 3) {
      datums[2].w[5] = 0xffffffffu; /* length near 2^64 as well */
    }
    if (cases[i].word < 0) {
      datums[cases[i].datum].tag = cases[i].value;
    } else {
      datums[cases[i].datum].w[cases[i].word] = cases[i].value;
    }
    if (lg_burst_request_decode(datums, 3, &back, error, sizeof(error)) == 0) {
      fail_msg("case %zu decoded", i);
    }
    if (strstr(error, cases[i].reason) == NULL) {
      fail_msg("case %zu: \"%s\" lacks \"%s\"", i, error, cases[i].reason);
    }
  }
  assert_int_equal(
      lg_burst_request_decode(datums, 0, &back, error, sizeof(error)), -1);
}

static void burst_result_round_trip(void** state) {
  (void)state;
  lg_burst_result r = {.serial = 9,
                       .status = LG_WIRE_DEVICE_ERROR,
                       .num_outputs = 2,
                       .has_timing = true};
  r.shapes[0] = (lg_wire_shape){2, {1, 5}};
  r.shapes[1] = (lg_wire_shape){7, {1, 2, 3, 4, 5, 6, 7}};
  r.timing = (lg_wire_timing){123, 456789};
  memset(r.error, 'x', sizeof(r.error) - 1); /* the longest message */
  const int n = lg_burst_result_encode(&r, datums, 512);
  assert_true(n > 0 && (uint32_t)n <= LG_BURST_MAX_RESULT_DATUMS);
  lg_burst_result back;
  assert_int_equal(
      lg_burst_result_decode(datums, (uint32_t)n, &back, error, sizeof(error)),
      0);
  assert_results_equal(&back, &r);
  /* Without text or timing. */
  memset(&r, 0, sizeof(r));
  r.serial = 1;
  r.num_outputs = 1;
  r.shapes[0] = (lg_wire_shape){0, {0}};
  assert_int_equal(lg_burst_result_encode(&r, datums, 512), 2);
  assert_int_equal(
      lg_burst_result_decode(datums, 2, &back, error, sizeof(error)), 0);
  assert_results_equal(&back, &r);
  assert_int_equal(lg_burst_result_encode(&r, datums, 1), -1);
}

static void burst_result_corruption(void** state) {
  (void)state;
  lg_burst_result r = {.serial = 2, .num_outputs = 1, .has_timing = true};
  r.shapes[0] = (lg_wire_shape){6, {1, 1, 1, 1, 1, 5}};
  strcpy(r.error, "a short message");
  lg_burst_result back;
  struct {
    int datum, word;
    uint32_t value;
  } cases[] = {
      {0, 2, 77},                 /* status */
      {0, 3, 65},                 /* outputs above the limit */
      {0, 3, 2},                  /* an output that is not there */
      {0, 4, 0x10},               /* unknown flag */
      {1, 1, 9},                  /* rank above the limit */
      {1, 2, 0x80000000u},        /* a negative dimension */
      {1, 0, 1},                  /* the wrong output index */
      {2, -1, LG_BURST_TAG_TEXT}, /* SHAPE_MORE missing */
      {3, -1, LG_BURST_TAG_TEXT}, /* TIMING missing */
      {4, 0, 3},                  /* text chunk out of order */
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    const int n = lg_burst_result_encode(&r, datums, 16);
    assert_int_equal(n, 5);
    if (cases[i].word < 0) {
      datums[cases[i].datum].tag = cases[i].value;
    } else {
      datums[cases[i].datum].w[cases[i].word] = cases[i].value;
    }
    if (lg_burst_result_decode(datums, 5, &back, error, sizeof(error)) == 0) {
      fail_msg("case %zu decoded", i);
    }
  }
  /* Two text chunks, then more text than a message holds. */
  assert_int_equal(lg_burst_result_encode(&r, datums, 16), 5);
  datums[5] = datums[4];
  datums[5].w[0] = 1;
  datums[0].w[0] = 6;
  assert_int_equal(
      lg_burst_result_decode(datums, 6, &back, error, sizeof(error)), 0);
  for (uint32_t t = 0; t < LG_BURST_MAX_TEXT_DATUMS + 2; ++t) {
    datums[4 + t] = datums[4];
    datums[4 + t].w[0] = t;
  }
  datums[0].w[0] = 4 + LG_BURST_MAX_TEXT_DATUMS + 2;
  assert_int_equal(
      lg_burst_result_decode(datums, 4 + LG_BURST_MAX_TEXT_DATUMS + 2, &back,
                             error, sizeof(error)),
      -1);
  /* Random words anywhere: accepted or refused, never out of bounds. */
  for (int round = 0; round < 20000; ++round) {
    const int n = lg_burst_result_encode(&r, datums, 16);
    datums[next_random() % (uint32_t)n].w[next_random() % 7] = next_random();
    if (next_random() % 4 == 0) datums[next_random() % 5].tag = next_random();
    lg_burst_result_decode(datums, (uint32_t)n, &back, error, sizeof(error));
    lg_burst_request req;
    lg_burst_request_decode(datums, (uint32_t)n, &req, error, sizeof(error));
  }
}

static void ranges(void** state) {
  (void)state;
  assert_true(lg_wire_range_ok(0, 0, 0));
  assert_true(lg_wire_range_ok(0, 10, 10));
  assert_true(lg_wire_range_ok(10, 0, 10));
  assert_false(lg_wire_range_ok(11, 0, 10));
  assert_false(lg_wire_range_ok(5, 6, 10));
  assert_false(lg_wire_range_ok(UINT64_MAX, 2, 10));
  assert_false(lg_wire_range_ok(2, UINT64_MAX, UINT64_MAX));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_message_round_trips),
      cmocka_unit_test(truncation_at_every_length_fails),
      cmocka_unit_test(header_and_descriptors_are_checked),
      cmocka_unit_test(counts_strings_and_ranges_are_checked),
      cmocka_unit_test(random_corruption_never_crashes),
      cmocka_unit_test(burst_request_round_trip),
      cmocka_unit_test(burst_request_corruption),
      cmocka_unit_test(burst_result_round_trip),
      cmocka_unit_test(burst_result_corruption),
      cmocka_unit_test(ranges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
