/* The service's control channel (docs/service.md): wire.h messages over a
 * Unix SOCK_SEQPACKET socket, one message per record, descriptors as
 * SCM_RIGHTS.
 *
 * A record larger than LG_WIRE_MAX_MESSAGE, or with more descriptors than
 * a message carries, is malformed: its descriptors are closed and the
 * caller gets LG_CHANNEL_MALFORMED (the connection stays usable, as record
 * boundaries are kept). The peer's death shows as LG_CHANNEL_CLOSED on the
 * next receive (end of file or a reset), never as a hang, and sends never
 * raise SIGPIPE.
 *
 *   int fd = lg_channel_connect("/tmp/litegpu.sock", err, sizeof(err));
 *   lg_channel* ch = lg_channel_create(fd);
 *   lg_channel_send(ch, &msg, err, sizeof(err));
 *   lg_channel_recv(ch, &reply, -1, err, sizeof(err));
 *   lg_channel_destroy(ch);                 closes fd
 *
 * Thread safety: sends are serialized by the channel (any thread may
 * send); one thread at a time receives.
 */
#ifndef LITEGPU_DELEGATES_SERVICE_CHANNEL_H_
#define LITEGPU_DELEGATES_SERVICE_CHANNEL_H_

#include <stdbool.h>
#include <stddef.h>

#include "delegates/service/wire.h"

typedef enum lg_channel_status {
  LG_CHANNEL_OK = 0,
  LG_CHANNEL_CLOSED,    /* the peer hung up or died */
  LG_CHANNEL_TIMEOUT,   /* nothing arrived in time */
  LG_CHANNEL_MALFORMED, /* a record that does not decode (skipped) */
  LG_CHANNEL_ERROR,     /* a system call failed */
} lg_channel_status;

typedef struct lg_channel lg_channel;

/* Listens on `path`. A stale socket file there (nobody accepts on it) is
 * replaced; a live one, or a file that is not a socket, is an error.
 * Returns the listening descriptor, or -1 with the reason. */
int lg_channel_listen(const char* path, char* error, size_t error_size);

/* Connects to the socket at `path`; the descriptor, or -1 with the
 * reason. */
int lg_channel_connect(const char* path, char* error, size_t error_size);

/* Wraps a connected descriptor, which the channel then owns. NULL when out
 * of memory (the descriptor is then closed). */
lg_channel* lg_channel_create(int fd);

/* Closes the descriptor; NULL is a no-op. */
void lg_channel_destroy(lg_channel* channel);

int lg_channel_fd(const lg_channel* channel);

/* Shuts the connection down in both directions (a blocked receive on
 * either side returns LG_CHANNEL_CLOSED); the descriptor stays open. */
void lg_channel_shutdown(lg_channel* channel);

/* Encodes and sends `msg` with its descriptors (which stay the caller's). */
lg_channel_status lg_channel_send(lg_channel* channel, const lg_wire_msg* msg,
                                  char* error, size_t error_size);

/* Receives one message, waiting up to `timeout_ms` (negative: no limit).
 * On LG_CHANNEL_OK the caller clears `msg` (lg_wire_msg_clear) when done. */
lg_channel_status lg_channel_recv(lg_channel* channel, lg_wire_msg* msg,
                                  int timeout_ms, char* error,
                                  size_t error_size);

/* Whether the peer has hung up (without consuming anything): true also
 * when a record is waiting behind which the connection ended. */
bool lg_channel_peer_gone(const lg_channel* channel);

#endif /* LITEGPU_DELEGATES_SERVICE_CHANNEL_H_ */
