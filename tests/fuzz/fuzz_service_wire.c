/* libFuzzer target for the service's decoders (delegates/service/wire.c):
 * what a hostile or corrupt peer can put on the control socket or into a
 * burst queue.
 *
 * The first byte picks the decoder, the rest is its input:
 *   0  a control record (lg_wire_decode), with 0 to 3 descriptors beside it
 *      (open /dev/null files, as SCM_RIGHTS would hand over);
 *   1  a burst request (lg_burst_message_count, then
 *      lg_burst_request_decode), the bytes read as 32-byte datums;
 *   2  a burst result (lg_burst_result_decode), the same way.
 * What a decoder accepts must encode again (a decoder that lets through a
 * value the encoder refuses has a hole), and a re-encoded burst message must
 * decode to the same fields; a violation aborts, which libFuzzer reports.
 * Every descriptor is closed on every path (the leak check counts them).
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "delegates/service/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void fuzz_control(const uint8_t* data, size_t size) {
  if (size == 0) return;
  int fds[3];
  const int num_fds = data[0] % 4;
  for (int i = 0; i < num_fds; ++i) fds[i] = open("/dev/null", O_RDONLY);
  lg_wire_msg msg;
  char error[256];
  if (lg_wire_decode(data + 1, size - 1, fds, num_fds, &msg, error,
                     sizeof(error)) != 0) {
    for (int i = 0; i < num_fds; ++i) close(fds[i]);
    return;
  }
  /* The descriptors the message does not take stay the caller's. */
  const int taken = lg_wire_fds_needed(&msg);
  for (int i = taken; i < num_fds; ++i) close(fds[i]);
  static uint8_t again[LG_WIRE_HEADER_SIZE + LG_WIRE_MAX_MESSAGE];
  size_t written = 0;
  if (lg_wire_encode(&msg, again, sizeof(again), &written, error,
                     sizeof(error)) != 0) {
    abort(); /* accepted but not encodable */
  }
  lg_wire_msg_clear(&msg);
}

/* The input as whole datums (at most `capacity`); returns the count. */
static uint32_t as_datums(const uint8_t* data, size_t size, lg_burst_datum* out,
                          uint32_t capacity) {
  uint32_t count = (uint32_t)(size / LG_BURST_DATUM_SIZE);
  if (count > capacity) count = capacity;
  memcpy(out, data, (size_t)count * LG_BURST_DATUM_SIZE);
  return count;
}

static void fuzz_request(const uint8_t* data, size_t size) {
  lg_burst_datum datums[LG_BURST_MAX_REQUEST_DATUMS];
  const uint32_t available =
      as_datums(data, size, datums, LG_BURST_MAX_REQUEST_DATUMS);
  uint32_t count = 0;
  char error[256];
  if (available == 0 ||
      lg_burst_message_count(&datums[0], LG_BURST_TAG_REQUEST,
                             LG_BURST_MAX_REQUEST_DATUMS, &count, error,
                             sizeof(error)) != 0 ||
      count > available) {
    return;
  }
  lg_burst_request request, decoded;
  if (lg_burst_request_decode(datums, count, &request, error, sizeof(error)) !=
      0) {
    return;
  }
  lg_burst_datum again[LG_BURST_MAX_REQUEST_DATUMS];
  const int n =
      lg_burst_request_encode(&request, again, LG_BURST_MAX_REQUEST_DATUMS);
  if (n < 0 || lg_burst_request_decode(again, (uint32_t)n, &decoded, error,
                                       sizeof(error)) != 0) {
    abort();
  }
  if (decoded.serial != request.serial || decoded.measure != request.measure ||
      decoded.num_inputs != request.num_inputs ||
      decoded.num_outputs != request.num_outputs) {
    abort();
  }
  for (uint32_t i = 0; i < request.num_inputs + request.num_outputs; ++i) {
    if (decoded.operands[i].slot != request.operands[i].slot ||
        decoded.operands[i].offset != request.operands[i].offset ||
        decoded.operands[i].length != request.operands[i].length) {
      abort();
    }
  }
}

static void fuzz_result(const uint8_t* data, size_t size) {
  static lg_burst_datum datums[LG_BURST_MAX_RESULT_DATUMS];
  const uint32_t available =
      as_datums(data, size, datums, LG_BURST_MAX_RESULT_DATUMS);
  uint32_t count = 0;
  char error[256];
  if (available == 0 ||
      lg_burst_message_count(&datums[0], LG_BURST_TAG_RESULT,
                             LG_BURST_MAX_RESULT_DATUMS, &count, error,
                             sizeof(error)) != 0 ||
      count > available) {
    return;
  }
  static lg_burst_result result, decoded;
  if (lg_burst_result_decode(datums, count, &result, error, sizeof(error)) !=
      0) {
    return;
  }
  static lg_burst_datum again[LG_BURST_MAX_RESULT_DATUMS];
  const int n =
      lg_burst_result_encode(&result, again, LG_BURST_MAX_RESULT_DATUMS);
  if (n < 0 || lg_burst_result_decode(again, (uint32_t)n, &decoded, error,
                                      sizeof(error)) != 0) {
    abort();
  }
  if (decoded.serial != result.serial || decoded.status != result.status ||
      decoded.num_outputs != result.num_outputs ||
      decoded.has_timing != result.has_timing ||
      strcmp(decoded.error, result.error) != 0) {
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  switch (data[0] % 3) {
    case 0:
      fuzz_control(data + 1, size - 1);
      break;
    case 1:
      fuzz_request(data + 1, size - 1);
      break;
    default:
      fuzz_result(data + 1, size - 1);
      break;
  }
  return 0;
}
