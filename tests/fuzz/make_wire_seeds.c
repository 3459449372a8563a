/* Writes the seed corpus of fuzz_service_wire into a folder: one valid
 * message of each control type and a burst request and result, encoded by
 * the service's own encoders and prefixed by the fuzz target's selector
 * byte (0 control, with the descriptor count in the next byte; 1 burst
 * request; 2 burst result).
 *
 *   make_wire_seeds OUT_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/service/wire.h"

static int write_seed(const char* dir, const char* name, uint8_t selector,
                      const uint8_t* prefix, size_t prefix_size,
                      const void* body, size_t size) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE* f = fopen(path, "wb");
  if (f == NULL) {
    perror(path);
    return 1;
  }
  int rc =
      fwrite(&selector, 1, 1, f) != 1 ||
      (prefix_size > 0 && fwrite(prefix, 1, prefix_size, f) != prefix_size) ||
      fwrite(body, 1, size, f) != size;
  return (fclose(f) != 0 || rc) ? 1 : 0;
}

static int control_seed(const char* dir, const char* name,
                        const lg_wire_msg* msg) {
  static uint8_t buffer[LG_WIRE_HEADER_SIZE + LG_WIRE_MAX_MESSAGE];
  size_t size = 0;
  char error[256];
  if (lg_wire_encode(msg, buffer, sizeof(buffer), &size, error,
                     sizeof(error)) != 0) {
    fprintf(stderr, "make_wire_seeds: %s: %s\n", name, error);
    return 1;
  }
  const uint8_t fds = (uint8_t)lg_wire_fds_needed(msg);
  return write_seed(dir, name, 0, &fds, 1, buffer, size);
}

static int control_seeds(const char* dir) {
  static lg_wire_op ops[3] = {{0, 5, ""}, {3, 6, ""}, {32, 1, "Atan"}};
  lg_wire_msg m;
  int rc = 0;
  lg_wire_msg_init(&m, LG_MSG_HELLO);
  m.u.hello.protocol = 1;
  m.u.hello.pid = 42;
  rc |= control_seed(dir, "hello", &m);
  lg_wire_msg_init(&m, LG_MSG_HELLO_REPLY);
  m.u.hello_reply.protocol = 1;
  snprintf(m.u.hello_reply.device, sizeof(m.u.hello_reply.device), "cpu");
  m.u.hello_reply.num_ops = 3;
  m.u.hello_reply.ops = ops;
  rc |= control_seed(dir, "hello_reply", &m);
  lg_wire_msg_init(&m, LG_MSG_PREPARE);
  m.u.prepare.size = 4096;
  rc |= control_seed(dir, "prepare", &m);
  lg_wire_msg_init(&m, LG_MSG_PREPARE_REPLY);
  m.u.prepare_reply.num_inputs = m.u.prepare_reply.num_outputs = 1;
  m.u.prepare_reply.inputs[0] = (lg_wire_tensor){1, 2, {1, 4}, 16};
  m.u.prepare_reply.outputs[0] = (lg_wire_tensor){1, 2, {1, 4}, 16};
  rc |= control_seed(dir, "prepare_reply", &m);
  lg_wire_msg_init(&m, LG_MSG_EXECUTE);
  m.u.execute.model_id = 1;
  m.u.execute.num_inputs = m.u.execute.num_outputs = 1;
  m.u.execute.inputs[0] = (lg_wire_arg){0, 16};
  m.u.execute.outputs[0] = (lg_wire_arg){64, 16};
  rc |= control_seed(dir, "execute", &m);
  lg_wire_msg_init(&m, LG_MSG_EXECUTE_REPLY);
  m.u.execute_reply.num_outputs = 1;
  m.u.execute_reply.shapes[0] = (lg_wire_shape){2, {1, 4}};
  rc |= control_seed(dir, "execute_reply", &m);
  lg_wire_msg_init(&m, LG_MSG_BURST_CONFIGURE);
  m.u.burst_configure.model_id = 1;
  m.u.burst_configure.datum_size = LG_BURST_DATUM_SIZE;
  m.u.burst_configure.request_capacity = 256;
  m.u.burst_configure.result_capacity = 256;
  rc |= control_seed(dir, "burst_configure", &m);
  lg_wire_msg_init(&m, LG_MSG_STATUS_REPLY);
  m.u.status_reply.status = LG_WIRE_INVALID_STATE;
  snprintf(m.u.status_reply.error, sizeof(m.u.status_reply.error), "busy");
  rc |= control_seed(dir, "status_reply", &m);
  lg_wire_msg_init(&m, LG_MSG_SLOT_REQUEST);
  m.u.slot_request.burst_id = 1;
  m.u.slot_request.count = 2;
  m.u.slot_request.slots[1] = 3;
  rc |= control_seed(dir, "slot_request", &m);
  lg_wire_msg_init(&m, LG_MSG_SLOT_PROVIDE);
  m.u.slot_provide.burst_id = 1;
  m.u.slot_provide.size = 4096;
  rc |= control_seed(dir, "slot_provide", &m);
  return rc;
}

static int burst_seeds(const char* dir) {
  lg_burst_request request = {
      .serial = 7, .measure = true, .num_inputs = 2, .num_outputs = 1};
  request.operands[0] = (lg_burst_operand){0, 0, 64};
  request.operands[1] = (lg_burst_operand){1, 128, 32};
  request.operands[2] = (lg_burst_operand){0, 256, 64};
  lg_burst_datum datums[LG_BURST_MAX_RESULT_DATUMS];
  int n =
      lg_burst_request_encode(&request, datums, LG_BURST_MAX_REQUEST_DATUMS);
  int rc = n < 0 || write_seed(dir, "burst_request", 1, NULL, 0, datums,
                               (size_t)n * LG_BURST_DATUM_SIZE);
  static lg_burst_result result = {
      .serial = 7, .num_outputs = 1, .has_timing = true};
  result.shapes[0] = (lg_wire_shape){4, {1, 8, 8, 3}};
  result.timing = (lg_wire_timing){1000, 2000};
  n = lg_burst_result_encode(&result, datums, LG_BURST_MAX_RESULT_DATUMS);
  rc |= n < 0 || write_seed(dir, "burst_result", 2, NULL, 0, datums,
                            (size_t)n * LG_BURST_DATUM_SIZE);
  result.status = LG_WIRE_DEVICE_ERROR;
  result.has_timing = false;
  snprintf(result.error, sizeof(result.error),
           "the execution failed on the device, a message long enough to "
           "take several text datums");
  n = lg_burst_result_encode(&result, datums, LG_BURST_MAX_RESULT_DATUMS);
  rc |= n < 0 || write_seed(dir, "burst_result_error", 2, NULL, 0, datums,
                            (size_t)n * LG_BURST_DATUM_SIZE);
  return rc;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_wire_seeds OUT_DIR\n");
    return 2;
  }
  return control_seeds(argv[1]) | burst_seeds(argv[1]) ? 1 : 0;
}
