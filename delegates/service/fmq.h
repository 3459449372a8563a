/* Fast message queues (docs/service.md): single-producer single-consumer
 * rings of fixed-size datums in shared memory, and event flags (futex
 * words) that wake the other side.
 *
 * Layout of a queue's memory file: a 256-byte header (magic, version,
 * datum size, capacity, then the write counter, the read counter and the
 * event word, each on its own cache line) followed by `capacity` datums.
 * The counters only grow; a datum's slot is counter % capacity. The writer
 * advances the write counter and the reader the read counter. Each side
 * keeps the ring's geometry in private memory (checked once, at attach)
 * and takes every index modulo its own capacity, and counters that cannot
 * be (the writer behind the reader, or more than a ring ahead) are
 * reported as LG_FMQ_CORRUPT: a peer that scribbles over the header can
 * make a queue fail, never make this side touch memory outside the ring.
 *
 * Messages: lg_fmq_write publishes all of its datums at once (or none), so
 * a reader that sees a message's first datum sees all of it. A write larger
 * than the ring fails with LG_FMQ_TOO_LARGE; one that does not fit now,
 * with LG_FMQ_FULL. Nothing blocks except the wait functions, which take a
 * timeout.
 *
 * Event flag: a 32-bit word of event bits. lg_event_flag_wake sets bits
 * and wakes sleepers (a futex system call only when someone sleeps);
 * lg_event_flag_wait spins for a bounded time (yielding the CPU at each
 * step, so a peer that waits for this core runs), then sleeps on the futex
 * until one of its bits is set or the timeout passes, and clears the bits
 * it returns. Writes set LG_FMQ_EVENT_NOT_EMPTY on the queue's own word,
 * reads LG_FMQ_EVENT_NOT_FULL; callers may use the LG_FMQ_EVENT_USER bits.
 * The futex is not process-private: both processes map the same word.
 *
 *   lg_fmq* q = lg_fmq_create("requests", 32, 128, err, sizeof(err));
 *   ... send lg_fmq_fd(q); the peer: lg_fmq_attach(fd, 32, 128, ...)
 *   lg_fmq_write(q, datums, 3);                 producer
 *   uint32_t bits;
 *   lg_fmq_wait_readable(q, 20000, 50000000, 0, &bits);   consumer
 *   lg_fmq_read(q, datums, 3);
 *   lg_fmq_destroy(q);
 *
 * Thread safety: one producer thread and one consumer thread per queue
 * (possibly in different processes); the event functions are safe from
 * any thread or process.
 */
#ifndef LITEGPU_DELEGATES_SERVICE_FMQ_H_
#define LITEGPU_DELEGATES_SERVICE_FMQ_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LG_FMQ_MAGIC 0x514d464cu /* "LFMQ" */
#define LG_FMQ_VERSION 1u
#define LG_FMQ_HEADER_SIZE 256u
/* Limits a queue's geometry so that its size fits easily in 32 bits. */
#define LG_FMQ_MAX_DATUM_SIZE 4096u
#define LG_FMQ_MAX_CAPACITY (1u << 20)

/* Event bits. The top bit is the flag's own (someone sleeps on it). */
#define LG_FMQ_EVENT_NOT_EMPTY 0x1u
#define LG_FMQ_EVENT_NOT_FULL 0x2u
#define LG_FMQ_EVENT_USER(n) (0x4u << (n)) /* n in 0..28 */
#define LG_EVENT_FLAG_WAITERS 0x80000000u

typedef enum lg_fmq_status {
  LG_FMQ_OK = 0,
  LG_FMQ_EMPTY,     /* fewer datums than asked for */
  LG_FMQ_FULL,      /* not enough free space now */
  LG_FMQ_TOO_LARGE, /* more datums than the ring holds */
  LG_FMQ_CORRUPT,   /* the shared counters are inconsistent */
  LG_FMQ_TIMEOUT,
  LG_FMQ_INVALID, /* a bad argument */
} lg_fmq_status;

/* "ok", "empty", ... (static strings). */
const char* lg_fmq_status_name(lg_fmq_status status);

typedef struct lg_fmq lg_fmq;

/* Bytes of a queue's memory file, or 0 when the geometry is out of range
 * (a datum size of 0 or above LG_FMQ_MAX_DATUM_SIZE, a capacity of 0 or
 * above LG_FMQ_MAX_CAPACITY). */
size_t lg_fmq_region_size(uint32_t datum_size, uint32_t capacity);

/* A new queue in its own sealed memfd, empty. NULL with the reason. */
lg_fmq* lg_fmq_create(const char* name, uint32_t datum_size, uint32_t capacity,
                      char* error, size_t error_size);

/* Maps a queue another process created, after checking the file (size,
 * seals) and the header against the geometry the caller expects, and the
 * counters. On success the queue owns `fd`; on failure (NULL, with the
 * reason) the caller still does. */
lg_fmq* lg_fmq_attach(int fd, uint32_t datum_size, uint32_t capacity,
                      char* error, size_t error_size);

/* Unmaps and closes; NULL is a no-op. */
void lg_fmq_destroy(lg_fmq* queue);

int lg_fmq_fd(const lg_fmq* queue);
uint32_t lg_fmq_capacity(const lg_fmq* queue);
uint32_t lg_fmq_datum_size(const lg_fmq* queue);
/* The queue's event word in shared memory. */
_Atomic uint32_t* lg_fmq_event(lg_fmq* queue);

/* Datums ready to read / free slots to write (LG_FMQ_CORRUPT when the
 * peer's counter is impossible). */
lg_fmq_status lg_fmq_available(const lg_fmq* queue, uint32_t* count);
lg_fmq_status lg_fmq_space(const lg_fmq* queue, uint32_t* count);

/* Writes `count` datums (datum_size bytes each) all at once and sets
 * LG_FMQ_EVENT_NOT_EMPTY; LG_FMQ_FULL or LG_FMQ_TOO_LARGE write nothing. */
lg_fmq_status lg_fmq_write(lg_fmq* queue, const void* datums, uint32_t count);

/* Reads `count` datums; LG_FMQ_EMPTY when fewer are there (none read). */
lg_fmq_status lg_fmq_read(lg_fmq* queue, void* datums, uint32_t count);

/* Copies the first unread datum without consuming it. */
lg_fmq_status lg_fmq_peek(const lg_fmq* queue, void* datum);

/* Waits until a datum can be read or one of `extra` event bits is set:
 * spins up to `spin_ns`, then sleeps on the event word, for at most
 * `timeout_ns` in all (negative: no limit). *bits (may be NULL) receives
 * LG_FMQ_EVENT_NOT_EMPTY when data is there, plus the extra bits that were
 * set (and are now cleared). LG_FMQ_TIMEOUT when neither happened. */
lg_fmq_status lg_fmq_wait_readable(lg_fmq* queue, uint64_t spin_ns,
                                   int64_t timeout_ns, uint32_t extra,
                                   uint32_t* bits);

/* Sets `bits` and wakes every sleeper on the word. */
void lg_event_flag_wake(_Atomic uint32_t* word, uint32_t bits);

/* Waits until one of the bits in `mask` is set; spins up to `spin_ns`,
 * then sleeps, for at most `timeout_ns` in all (negative: no limit).
 * Clears and returns in *bits the bits of `mask` that were set. */
lg_fmq_status lg_event_flag_wait(_Atomic uint32_t* word, uint32_t mask,
                                 uint64_t spin_ns, int64_t timeout_ns,
                                 uint32_t* bits);

#endif /* LITEGPU_DELEGATES_SERVICE_FMQ_H_ */
