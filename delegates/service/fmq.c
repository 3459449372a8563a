/* Shared-memory SPSC rings and futex event flags (fmq.h). */
#include "delegates/service/fmq.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "delegates/service/shm.h"

/* Both processes operate on the same words: the atomics must be lock-free
 * (address-free), which 32- and 64-bit ones are on every Linux target
 * litegpu builds for. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "32-bit atomics must be lock-free");
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free");

typedef struct lg_fmq_shared {
  uint32_t magic;
  uint32_t version;
  uint32_t datum_size;
  uint32_t capacity;
  alignas(64) _Atomic uint64_t write_count;
  alignas(64) _Atomic uint64_t read_count;
  alignas(64) _Atomic uint32_t event;
} lg_fmq_shared;

_Static_assert(sizeof(lg_fmq_shared) <= LG_FMQ_HEADER_SIZE,
               "the header must fit its 256 bytes");

struct lg_fmq {
  int fd;
  void* map;
  size_t map_size;
  lg_fmq_shared* shared;
  uint8_t* ring;
  /* Private copies: never re-read from shared memory. */
  uint32_t datum_size;
  uint32_t capacity;
};

const char* lg_fmq_status_name(lg_fmq_status status) {
  switch (status) {
    case LG_FMQ_OK:
      return "ok";
    case LG_FMQ_EMPTY:
      return "empty";
    case LG_FMQ_FULL:
      return "full";
    case LG_FMQ_TOO_LARGE:
      return "larger than the ring";
    case LG_FMQ_CORRUPT:
      return "corrupt counters";
    case LG_FMQ_TIMEOUT:
      return "timed out";
    case LG_FMQ_INVALID:
      return "invalid argument";
  }
  return "unknown";
}

size_t lg_fmq_region_size(uint32_t datum_size, uint32_t capacity) {
  if (datum_size == 0 || datum_size > LG_FMQ_MAX_DATUM_SIZE || capacity == 0 ||
      capacity > LG_FMQ_MAX_CAPACITY) {
    return 0;
  }
  return LG_FMQ_HEADER_SIZE + (size_t)datum_size * capacity;
}

static lg_fmq* wrap(int fd, void* map, size_t size, uint32_t datum_size,
                    uint32_t capacity) {
  lg_fmq* q = calloc(1, sizeof(*q));
  if (q == NULL) return NULL;
  q->fd = fd;
  q->map = map;
  q->map_size = size;
  q->shared = map;
  q->ring = (uint8_t*)map + LG_FMQ_HEADER_SIZE;
  q->datum_size = datum_size;
  q->capacity = capacity;
  return q;
}

lg_fmq* lg_fmq_create(const char* name, uint32_t datum_size, uint32_t capacity,
                      char* error, size_t error_size) {
  const size_t size = lg_fmq_region_size(datum_size, capacity);
  if (size == 0) {
    snprintf(error, error_size,
             "queue geometry out of range: %u datums of %u bytes (at most "
             "%u of at most %u)",
             capacity, datum_size, LG_FMQ_MAX_CAPACITY, LG_FMQ_MAX_DATUM_SIZE);
    return NULL;
  }
  int fd = -1;
  void* map = NULL;
  if (lg_shm_create(name, size, &fd, &map, error, error_size) != 0) {
    return NULL;
  }
  lg_fmq_shared* h = map;
  h->magic = LG_FMQ_MAGIC;
  h->version = LG_FMQ_VERSION;
  h->datum_size = datum_size;
  h->capacity = capacity;
  atomic_init(&h->write_count, 0);
  atomic_init(&h->read_count, 0);
  atomic_init(&h->event, 0);
  lg_fmq* q = wrap(fd, map, size, datum_size, capacity);
  if (q == NULL) {
    snprintf(error, error_size, "out of memory");
    lg_shm_unmap(map, size);
    close(fd);
  }
  return q;
}

lg_fmq* lg_fmq_attach(int fd, uint32_t datum_size, uint32_t capacity,
                      char* error, size_t error_size) {
  const size_t size = lg_fmq_region_size(datum_size, capacity);
  size_t real = 0;
  if (size == 0) {
    snprintf(error, error_size, "queue geometry out of range: %u x %u",
             capacity, datum_size);
    return NULL;
  }
  if (lg_shm_check(fd, size, false, &real, error, error_size) != 0) {
    return NULL;
  }
  void* map = lg_shm_map(fd, size, true, error, error_size);
  if (map == NULL) return NULL;
  const lg_fmq_shared* h = map;
  const uint64_t w = atomic_load(&h->write_count);
  const uint64_t r = atomic_load(&h->read_count);
  if (h->magic != LG_FMQ_MAGIC || h->version != LG_FMQ_VERSION ||
      h->datum_size != datum_size || h->capacity != capacity || w < r ||
      w - r > capacity) {
    snprintf(error, error_size,
             "queue header does not match: magic 0x%x version %u, %u datums "
             "of %u bytes (expected %u of %u), counters %llu/%llu",
             h->magic, h->version, h->capacity, h->datum_size, capacity,
             datum_size, (unsigned long long)w, (unsigned long long)r);
    lg_shm_unmap(map, size);
    return NULL;
  }
  lg_fmq* q = wrap(fd, map, size, datum_size, capacity);
  if (q == NULL) {
    snprintf(error, error_size, "out of memory");
    lg_shm_unmap(map, size);
  }
  return q;
}

void lg_fmq_destroy(lg_fmq* q) {
  if (q == NULL) return;
  lg_shm_unmap(q->map, q->map_size);
  if (q->fd >= 0) close(q->fd);
  free(q);
}

int lg_fmq_fd(const lg_fmq* q) { return q->fd; }
uint32_t lg_fmq_capacity(const lg_fmq* q) { return q->capacity; }
uint32_t lg_fmq_datum_size(const lg_fmq* q) { return q->datum_size; }
_Atomic uint32_t* lg_fmq_event(lg_fmq* q) { return &q->shared->event; }

/* The reader's counter is trusted by the reader, the writer's by the
 * writer; both are stored in shared memory for the peer. A counter the
 * peer moved backwards or more than a ring ahead is corruption. */
static lg_fmq_status used(const lg_fmq* q, uint32_t* count) {
  /* Sequentially consistent: a reader that clears NOT_EMPTY and then
   * finds the ring empty must not miss a write that set it (see
   * lg_event_flag_wake). */
  const uint64_t w = atomic_load(&q->shared->write_count);
  const uint64_t r = atomic_load(&q->shared->read_count);
  if (w < r || w - r > q->capacity) return LG_FMQ_CORRUPT;
  *count = (uint32_t)(w - r);
  return LG_FMQ_OK;
}

lg_fmq_status lg_fmq_available(const lg_fmq* q, uint32_t* count) {
  *count = 0;
  return q == NULL ? LG_FMQ_INVALID : used(q, count);
}

lg_fmq_status lg_fmq_space(const lg_fmq* q, uint32_t* count) {
  *count = 0;
  if (q == NULL) return LG_FMQ_INVALID;
  uint32_t n = 0;
  const lg_fmq_status s = used(q, &n);
  if (s == LG_FMQ_OK) *count = q->capacity - n;
  return s;
}

/* Copies `count` datums between the ring at counter `at` and `buffer`,
 * in two pieces where the run wraps past the ring's end. */
static void copy_ring(const lg_fmq* q, uint64_t at, void* buffer,
                      uint32_t count, bool to_ring) {
  const uint32_t first = (uint32_t)(at % q->capacity);
  const uint32_t run =
      count < q->capacity - first ? count : q->capacity - first;
  const size_t ds = q->datum_size;
  uint8_t* slot = q->ring + (size_t)first * ds;
  uint8_t* buf = buffer;
  if (to_ring) {
    memcpy(slot, buf, run * ds);
    memcpy(q->ring, buf + run * ds, (count - run) * ds);
  } else {
    memcpy(buf, slot, run * ds);
    memcpy(buf + run * ds, q->ring, (count - run) * ds);
  }
}

lg_fmq_status lg_fmq_write(lg_fmq* q, const void* datums, uint32_t count) {
  if (q == NULL || (datums == NULL && count > 0)) return LG_FMQ_INVALID;
  if (count > q->capacity) return LG_FMQ_TOO_LARGE;
  if (count == 0) return LG_FMQ_OK;
  uint32_t space = 0;
  const lg_fmq_status s = lg_fmq_space(q, &space);
  if (s != LG_FMQ_OK) return s;
  if (space < count) return LG_FMQ_FULL;
  const uint64_t w =
      atomic_load_explicit(&q->shared->write_count, memory_order_relaxed);
  copy_ring(q, w, (void*)datums, count, true);
  atomic_store(&q->shared->write_count, w + count);
  lg_event_flag_wake(&q->shared->event, LG_FMQ_EVENT_NOT_EMPTY);
  return LG_FMQ_OK;
}

lg_fmq_status lg_fmq_read(lg_fmq* q, void* datums, uint32_t count) {
  if (q == NULL || (datums == NULL && count > 0)) return LG_FMQ_INVALID;
  if (count > q->capacity) return LG_FMQ_TOO_LARGE;
  if (count == 0) return LG_FMQ_OK;
  uint32_t available = 0;
  const lg_fmq_status s = used(q, &available);
  if (s != LG_FMQ_OK) return s;
  if (available < count) return LG_FMQ_EMPTY;
  const uint64_t r =
      atomic_load_explicit(&q->shared->read_count, memory_order_relaxed);
  copy_ring(q, r, datums, count, false);
  atomic_store(&q->shared->read_count, r + count);
  lg_event_flag_wake(&q->shared->event, LG_FMQ_EVENT_NOT_FULL);
  return LG_FMQ_OK;
}

lg_fmq_status lg_fmq_peek(const lg_fmq* q, void* datum) {
  if (q == NULL || datum == NULL) return LG_FMQ_INVALID;
  uint32_t available = 0;
  const lg_fmq_status s = used(q, &available);
  if (s != LG_FMQ_OK) return s;
  if (available == 0) return LG_FMQ_EMPTY;
  const uint64_t r =
      atomic_load_explicit(&q->shared->read_count, memory_order_relaxed);
  copy_ring(q, r, datum, 1, false);
  return LG_FMQ_OK;
}

/* ---- Event flag ----------------------------------------------------------
 */

static long futex(_Atomic uint32_t* word, int op, uint32_t value,
                  const struct timespec* timeout) {
  return syscall(SYS_futex, (uint32_t*)word, op, value, timeout, NULL, 0);
}

void lg_event_flag_wake(_Atomic uint32_t* word, uint32_t bits) {
  bits &= ~LG_EVENT_FLAG_WAITERS;
  /* Sequentially consistent with the sleeper's announcement (sleep_on):
   * either the sleeper's compare-exchange comes first and this sees the
   * waiters bit, or it comes after and fails on the new bits. The system
   * call is made only when someone sleeps. */
  const uint32_t old = atomic_fetch_or(word, bits);
  if (old & LG_EVENT_FLAG_WAITERS) {
    atomic_fetch_and(word, ~LG_EVENT_FLAG_WAITERS);
    futex(word, FUTEX_WAKE, INT32_MAX, NULL);
  }
}

/* Takes the bits of `mask` that are set, if any. */
static uint32_t take(_Atomic uint32_t* word, uint32_t mask) {
  const uint32_t v = atomic_load(word) & mask;
  return v != 0 ? atomic_fetch_and(word, ~v) & v : 0;
}

/* One step of a bounded spin: a yield, not a pause. With a free core per
 * side it returns at once (no other thread wants this core) and the loop
 * looks again; when the peer waits for this very core (fewer free cores
 * than the two sides), it runs the peer now. Pausing instead made a burst
 * round trip on one shared core wait out both sides' spins: 306 us with
 * 100 + 200 us spins, 10 us with 3 us of pausing before yielding, 3.6 us
 * yielding from the start. */
static void spin_step(void) { sched_yield(); }

static int64_t remaining(uint64_t start, int64_t timeout_ns) {
  if (timeout_ns < 0) return -1;
  const uint64_t spent = lg_now_ns() - start;
  return spent >= (uint64_t)timeout_ns ? 0 : timeout_ns - (int64_t)spent;
}

/* Sleeps until the word changes or `left_ns` passes (negative: no
 * limit), after announcing a sleeper. */
static void sleep_on(_Atomic uint32_t* word, uint32_t mask, int64_t left_ns) {
  uint32_t v = atomic_load(word);
  if (v & mask) return;
  if (!atomic_compare_exchange_strong(word, &v, v | LG_EVENT_FLAG_WAITERS)) {
    return; /* it changed: the caller looks again */
  }
  struct timespec ts, *limit = NULL;
  if (left_ns >= 0) {
    ts.tv_sec = (time_t)(left_ns / 1000000000);
    ts.tv_nsec = (long)(left_ns % 1000000000);
    limit = &ts;
  }
  futex(word, FUTEX_WAIT, v | LG_EVENT_FLAG_WAITERS, limit);
}

lg_fmq_status lg_event_flag_wait(_Atomic uint32_t* word, uint32_t mask,
                                 uint64_t spin_ns, int64_t timeout_ns,
                                 uint32_t* bits) {
  uint32_t got = 0;
  if (bits != NULL) *bits = 0;
  mask &= ~LG_EVENT_FLAG_WAITERS;
  if (word == NULL || mask == 0) return LG_FMQ_INVALID;
  const uint64_t start = lg_now_ns();
  for (;;) {
    got = take(word, mask);
    if (got != 0) break;
    const uint64_t spent = lg_now_ns() - start;
    if (spent < spin_ns) {
      spin_step();
      continue;
    }
    const int64_t left = remaining(start, timeout_ns);
    if (left == 0) return LG_FMQ_TIMEOUT;
    sleep_on(word, mask, left);
  }
  if (bits != NULL) *bits = got;
  return LG_FMQ_OK;
}

lg_fmq_status lg_fmq_wait_readable(lg_fmq* q, uint64_t spin_ns,
                                   int64_t timeout_ns, uint32_t extra,
                                   uint32_t* bits) {
  if (bits != NULL) *bits = 0;
  if (q == NULL) return LG_FMQ_INVALID;
  extra &= ~(LG_EVENT_FLAG_WAITERS | LG_FMQ_EVENT_NOT_EMPTY);
  const uint32_t mask = LG_FMQ_EVENT_NOT_EMPTY | extra;
  const uint64_t start = lg_now_ns();
  for (;;) {
    uint32_t n = 0;
    const lg_fmq_status s = used(q, &n);
    if (s != LG_FMQ_OK) return s;
    const uint32_t got = extra ? take(&q->shared->event, extra) : 0;
    if (n > 0 || got != 0) {
      if (bits != NULL) *bits = got | (n > 0 ? LG_FMQ_EVENT_NOT_EMPTY : 0);
      return LG_FMQ_OK;
    }
    const uint64_t spent = lg_now_ns() - start;
    if (spent < spin_ns) {
      spin_step();
      continue;
    }
    const int64_t left = remaining(start, timeout_ns);
    if (left == 0) return LG_FMQ_TIMEOUT;
    /* NOT_EMPTY may be left over from a message already read: clear it,
     * then look at the counters again before sleeping on the word. */
    take(&q->shared->event, LG_FMQ_EVENT_NOT_EMPTY);
    if (used(q, &n) == LG_FMQ_OK && n > 0) continue;
    sleep_on(&q->shared->event, mask, left);
  }
}
