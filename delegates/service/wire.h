/* The service's wire format (docs/service.md): control messages on the
 * Unix socket and the datums of a burst's shared-memory queues.
 *
 * Control messages: one message per SOCK_SEQPACKET record, a 16-byte
 * header (magic "LGSV", type, reserved 0, payload length, sequence number)
 * then the payload: fixed-width little-endian-as-the-host integers,
 * strings as a 32-bit length and bytes (no terminator), arrays as a 32-bit
 * count and items. File descriptors (a model, a memory pool, a burst's
 * queues) travel as SCM_RIGHTS beside the record. Every request the client
 * sends is answered by exactly one reply carrying its sequence number,
 * except SLOT_PROVIDE; the service sends SLOT_REQUEST on its own while a
 * burst execution waits for memory.
 *
 * Burst datums: 32 bytes, a tag and seven 32-bit words. A request is a
 * REQUEST datum (datum count, serial, input and output counts, flags) and
 * one OPERAND datum per input then per output (slot, offset, length); a
 * result is a RESULT datum (count, serial, status, outputs, flags), a SHAPE
 * datum per output (plus SHAPE_MORE above rank 5), an optional TIMING
 * datum and optional TEXT datums holding the error message.
 *
 * The decoders trust nothing: the header, every count against its limit
 * and against the bytes that remain, every string's length, the exact end
 * of the payload, the descriptors a type carries, every tag, index, slot,
 * rank and dimension. A malformed input gives -1 and a message naming the
 * problem; never a read outside the input.
 *
 *   lg_wire_msg m;
 *   lg_wire_msg_init(&m, LG_MSG_HELLO);
 *   m.u.hello.protocol = LG_WIRE_PROTOCOL;
 *   uint8_t buf[LG_WIRE_MAX_MESSAGE];
 *   size_t size;
 *   lg_wire_encode(&m, buf, sizeof(buf), &size, err, sizeof(err));
 *   ... lg_wire_decode(buf, size, fds, nfds, &m, err, sizeof(err));
 *   lg_wire_msg_clear(&m);     frees the op list, closes unclaimed fds
 *
 * Thread safety: no shared state.
 */
#ifndef LITEGPU_DELEGATES_SERVICE_WIRE_H_
#define LITEGPU_DELEGATES_SERVICE_WIRE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LG_WIRE_MAGIC 0x5653474cu /* "LGSV" */
#define LG_WIRE_PROTOCOL 1u
#define LG_WIRE_HEADER_SIZE 16u
#define LG_WIRE_MAX_MESSAGE 65536u
#define LG_WIRE_MAX_FDS 2
#define LG_WIRE_MAX_IO 64 /* inputs, and outputs, of a prepared model */
#define LG_WIRE_MAX_RANK 8
#define LG_WIRE_MAX_OPS 512
#define LG_WIRE_NAME_SIZE 64
#define LG_WIRE_ERROR_SIZE 256
#define LG_WIRE_DEVICE_SIZE 128
#define LG_WIRE_MAX_SLOTS 64 /* memory slots per burst */
#define LG_WIRE_MAX_SLOT_LIST 16

typedef enum lg_wire_type {
  LG_MSG_HELLO = 1,       /* client: protocol, pid */
  LG_MSG_HELLO_REPLY,     /* service: protocol, device, op list */
  LG_MSG_PREPARE,         /* client + model memfd: size */
  LG_MSG_PREPARE_REPLY,   /* service: status, model id, inputs, outputs */
  LG_MSG_EXECUTE,         /* client + pool memfd: model, operands */
  LG_MSG_EXECUTE_REPLY,   /* service: status, output shapes, timing */
  LG_MSG_RELEASE_MODEL,   /* client: model id */
  LG_MSG_BURST_CONFIGURE, /* client + request and result queue memfds */
  LG_MSG_BURST_RELEASE,   /* client: burst id */
  LG_MSG_SLOT_FREE,       /* client: burst id, slot */
  LG_MSG_STATUS_REPLY,    /* service: status, value (a burst id) */
  LG_MSG_SLOT_REQUEST,    /* service: burst id, slots it lacks */
  LG_MSG_SLOT_PROVIDE,    /* client (+ pool memfd unless unknown): slot */
  LG_MSG_TYPE_END
} lg_wire_type;

/* Reply status codes. */
typedef enum lg_wire_status {
  LG_WIRE_OK = 0,
  LG_WIRE_INVALID_ARGUMENT = 1, /* a malformed or inconsistent request */
  LG_WIRE_UNSUPPORTED = 2,      /* a model the service cannot run */
  LG_WIRE_OUT_OF_MEMORY = 3,
  LG_WIRE_DEVICE_ERROR = 4, /* the execution failed */
  LG_WIRE_INVALID_STATE = 5 /* unknown model or burst, busy, ... */
} lg_wire_status;

const char* lg_wire_type_name(uint32_t type);
const char* lg_wire_status_name(int32_t status);

typedef struct lg_wire_op {
  int32_t builtin_code;
  int32_t max_version;
  char custom_name[LG_WIRE_NAME_SIZE]; /* "" for builtins */
} lg_wire_op;

typedef struct lg_wire_tensor {
  int32_t type; /* TfLiteType */
  uint32_t rank;
  int32_t dims[LG_WIRE_MAX_RANK];
  uint64_t bytes;
} lg_wire_tensor;

typedef struct lg_wire_arg {
  uint64_t offset;
  uint64_t length;
} lg_wire_arg;

typedef struct lg_wire_shape {
  uint32_t rank;
  int32_t dims[LG_WIRE_MAX_RANK];
} lg_wire_shape;

typedef struct lg_wire_timing {
  uint64_t device_ns;  /* the model's Invoke */
  uint64_t service_ns; /* request received to result sent */
} lg_wire_timing;

typedef struct lg_wire_msg {
  uint32_t type;
  uint32_t seq;
  /* Descriptors sent with, or received with, the message; -1 when taken.
   * Received ones belong to the message until a handler takes them. */
  int fds[LG_WIRE_MAX_FDS];
  int num_fds;
  union {
    struct {
      uint32_t protocol;
      uint32_t pid;
    } hello;
    struct {
      uint32_t protocol;
      char device[LG_WIRE_DEVICE_SIZE];
      uint32_t num_ops;
      lg_wire_op* ops; /* owned (lg_wire_msg_clear frees it) */
    } hello_reply;
    struct {
      uint64_t size; /* bytes of the model in fds[0] */
    } prepare;
    struct {
      int32_t status;
      uint32_t model_id;
      char error[LG_WIRE_ERROR_SIZE];
      uint32_t num_inputs;
      uint32_t num_outputs;
      lg_wire_tensor inputs[LG_WIRE_MAX_IO];
      lg_wire_tensor outputs[LG_WIRE_MAX_IO];
    } prepare_reply;
    struct {
      uint32_t model_id;
      uint32_t measure;
      uint32_t num_inputs;
      uint32_t num_outputs;
      lg_wire_arg inputs[LG_WIRE_MAX_IO]; /* in the pool, fds[0] */
      lg_wire_arg outputs[LG_WIRE_MAX_IO];
    } execute;
    struct {
      int32_t status;
      char error[LG_WIRE_ERROR_SIZE];
      uint32_t num_outputs;
      lg_wire_shape shapes[LG_WIRE_MAX_IO];
      lg_wire_timing timing;
    } execute_reply;
    struct {
      uint32_t model_id;
    } release_model;
    struct {
      uint32_t model_id;
      uint32_t datum_size;
      uint32_t request_capacity; /* fds[0] */
      uint32_t result_capacity;  /* fds[1] */
    } burst_configure;
    struct {
      uint32_t burst_id;
    } burst_release;
    struct {
      uint32_t burst_id;
      uint32_t slot;
    } slot_free;
    struct {
      int32_t status;
      uint32_t value;
      char error[LG_WIRE_ERROR_SIZE];
    } status_reply;
    struct {
      uint32_t burst_id;
      uint32_t count;
      uint32_t slots[LG_WIRE_MAX_SLOT_LIST];
    } slot_request;
    struct {
      uint32_t burst_id;
      uint32_t slot;
      uint64_t size; /* 0: the client does not know the slot (no fd) */
    } slot_provide;
  } u;
} lg_wire_msg;

/* Zeroes `msg`, sets the type and marks every descriptor absent. */
void lg_wire_msg_init(lg_wire_msg* msg, uint32_t type);

/* Frees what a decoded message owns (the op list) and closes the
 * descriptors no handler took; the message can be reused. Only for
 * received messages: one built for sending points at the sender's op list
 * and descriptors, which stay the sender's. */
void lg_wire_msg_clear(lg_wire_msg* msg);

/* How many descriptors a message of `type` carries (SLOT_PROVIDE: one
 * when size > 0). */
int lg_wire_fds_needed(const lg_wire_msg* msg);

/* Encodes into `buffer`; 0 and the byte count, or -1 with the reason
 * (a count above its limit, a string too long, the buffer too small). */
int lg_wire_encode(const lg_wire_msg* msg, uint8_t* buffer, size_t capacity,
                   size_t* size, char* error, size_t error_size);

/* Decodes one record with the descriptors received beside it (copied into
 * msg->fds; on failure they are left to the caller). 0, or -1 with the
 * reason. */
int lg_wire_decode(const uint8_t* data, size_t size, const int* fds,
                   int num_fds, lg_wire_msg* msg, char* error,
                   size_t error_size);

/* ---- Burst datums ---------------------------------------------------------
 */

#define LG_BURST_DATUM_SIZE 32u
#define LG_BURST_TAG_REQUEST 0xb5710001u
#define LG_BURST_TAG_OPERAND 0xb5710002u
#define LG_BURST_TAG_RESULT 0xb5710003u
#define LG_BURST_TAG_SHAPE 0xb5710004u
#define LG_BURST_TAG_SHAPE_MORE 0xb5710005u
#define LG_BURST_TAG_TIMING 0xb5710006u
#define LG_BURST_TAG_TEXT 0xb5710007u

/* Event bits of a burst's queues (fmq.h's LG_FMQ_EVENT_USER(0) and (1)),
 * beside LG_FMQ_EVENT_NOT_EMPTY: on the result queue, the service has sent
 * a SLOT_REQUEST the client must answer; on the request queue, the
 * listener must stop. */
#define LG_BURST_EVENT_CALLBACK 0x4u
#define LG_BURST_EVENT_TERMINATE 0x8u

#define LG_BURST_FLAG_MEASURE 0x1u /* request: time the execution */
#define LG_BURST_FLAG_TIMING 0x2u  /* result: a TIMING datum follows */
#define LG_BURST_FLAG_TEXT 0x4u    /* result: TEXT datums follow */

/* Datums of the largest request and result; the queues hold at least one
 * of each. */
#define LG_BURST_MAX_REQUEST_DATUMS (1u + 2u * LG_WIRE_MAX_IO)
#define LG_BURST_TEXT_BYTES 24u
#define LG_BURST_MAX_TEXT_DATUMS \
  ((LG_WIRE_ERROR_SIZE + LG_BURST_TEXT_BYTES - 1) / LG_BURST_TEXT_BYTES)
#define LG_BURST_MAX_RESULT_DATUMS \
  (2u + 2u * LG_WIRE_MAX_IO + LG_BURST_MAX_TEXT_DATUMS)

typedef struct lg_burst_datum {
  uint32_t tag;
  uint32_t w[7];
} lg_burst_datum;

typedef struct lg_burst_operand {
  uint32_t slot;
  uint64_t offset;
  uint64_t length;
} lg_burst_operand;

typedef struct lg_burst_request {
  uint32_t serial;
  bool measure;
  uint32_t num_inputs;
  uint32_t num_outputs;
  lg_burst_operand operands[2 * LG_WIRE_MAX_IO]; /* inputs, then outputs */
} lg_burst_request;

typedef struct lg_burst_result {
  uint32_t serial;
  int32_t status; /* lg_wire_status */
  uint32_t num_outputs;
  lg_wire_shape shapes[LG_WIRE_MAX_IO];
  bool has_timing;
  lg_wire_timing timing;
  char error[LG_WIRE_ERROR_SIZE]; /* "" unless the service sent one */
} lg_burst_result;

/* The datum count the first datum of a message announces, checked
 * against its tag and [1, capacity]. 0, or -1 with the reason. */
int lg_burst_message_count(const lg_burst_datum* first, uint32_t tag,
                           uint32_t capacity, uint32_t* count, char* error,
                           size_t error_size);

/* Encoders: the datum count written into `out` (room for `capacity`), or
 * -1 when it does not fit or a field is out of range. */
int lg_burst_request_encode(const lg_burst_request* request,
                            lg_burst_datum* out, uint32_t capacity);
int lg_burst_result_encode(const lg_burst_result* result, lg_burst_datum* out,
                           uint32_t capacity);

/* Decoders of one whole message of `count` datums; 0, or -1 with the
 * reason. */
int lg_burst_request_decode(const lg_burst_datum* datums, uint32_t count,
                            lg_burst_request* out, char* error,
                            size_t error_size);
int lg_burst_result_decode(const lg_burst_datum* datums, uint32_t count,
                           lg_burst_result* out, char* error,
                           size_t error_size);

/* Whether [offset, offset + length) lies within `size` bytes (no
 * overflow). */
bool lg_wire_range_ok(uint64_t offset, uint64_t length, uint64_t size);

#endif /* LITEGPU_DELEGATES_SERVICE_WIRE_H_ */
