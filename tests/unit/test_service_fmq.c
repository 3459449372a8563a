/* The service's fast message queues (delegates/service/fmq.h): geometry
 * checks, write/read/peek, full and empty, wrap-around, a message larger
 * than the ring, corrupt counters and headers, attaching from another
 * process, and the futex event flag (timeouts, wake-ups across threads and
 * processes, no lost wake-up over many messages with a sleeping reader). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/clock.h"
#include "delegates/service/fmq.h"
#include "delegates/service/shm.h"

typedef struct datum {
  uint32_t seq;
  uint32_t payload[3];
} datum;

static datum make(uint32_t seq) {
  datum d = {seq, {seq * 3u, seq ^ 0x5a5a5a5au, ~seq}};
  return d;
}

static void check_datum(const datum* d, uint32_t seq) {
  const datum want = make(seq);
  if (memcmp(d, &want, sizeof(want)) != 0) {
    fail_msg("datum %u: got seq %u payload %u %u %u", seq, d->seq,
             d->payload[0], d->payload[1], d->payload[2]);
  }
}

static lg_fmq* new_queue(uint32_t capacity) {
  char error[256] = "";
  lg_fmq* q =
      lg_fmq_create("test", sizeof(datum), capacity, error, sizeof(error));
  if (q == NULL) fail_msg("lg_fmq_create: %s", error);
  return q;
}

/* The shared counters sit after the 16-byte geometry, one per cache line. */
static _Atomic uint64_t* shared_counter(lg_fmq* q, int which) {
  void* map = mmap(NULL, LG_FMQ_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
                   lg_fmq_fd(q), 0);
  assert_true(map != MAP_FAILED);
  return (_Atomic uint64_t*)((uint8_t*)map + 64 * (which + 1));
}

static void geometry_is_checked(void** state) {
  (void)state;
  assert_int_equal(lg_fmq_region_size(0, 4), 0);
  assert_int_equal(lg_fmq_region_size(16, 0), 0);
  assert_int_equal(lg_fmq_region_size(LG_FMQ_MAX_DATUM_SIZE + 1, 4), 0);
  assert_int_equal(lg_fmq_region_size(16, LG_FMQ_MAX_CAPACITY + 1), 0);
  assert_int_equal(lg_fmq_region_size(16, 4), LG_FMQ_HEADER_SIZE + 64);
  char error[256] = "";
  assert_null(lg_fmq_create("bad", 0, 4, error, sizeof(error)));
  assert_non_null(strstr(error, "out of range"));
}

static void write_read_peek(void** state) {
  (void)state;
  lg_fmq* q = new_queue(8);
  uint32_t n = 99;
  assert_int_equal(lg_fmq_available(q, &n), LG_FMQ_OK);
  assert_int_equal(n, 0);
  assert_int_equal(lg_fmq_space(q, &n), LG_FMQ_OK);
  assert_int_equal(n, 8);
  datum d[3] = {make(1), make(2), make(3)}, out[3];
  assert_int_equal(lg_fmq_peek(q, out), LG_FMQ_EMPTY);
  assert_int_equal(lg_fmq_read(q, out, 1), LG_FMQ_EMPTY);
  assert_int_equal(lg_fmq_write(q, d, 3), LG_FMQ_OK);
  assert_int_equal(lg_fmq_available(q, &n), LG_FMQ_OK);
  assert_int_equal(n, 3);
  assert_int_equal(lg_fmq_peek(q, out), LG_FMQ_OK);
  check_datum(&out[0], 1);
  /* Reading more than there is reads nothing. */
  assert_int_equal(lg_fmq_read(q, out, 4), LG_FMQ_EMPTY);
  assert_int_equal(lg_fmq_read(q, out, 3), LG_FMQ_OK);
  for (uint32_t i = 0; i < 3; ++i) check_datum(&out[i], i + 1);
  assert_int_equal(lg_fmq_write(q, NULL, 1), LG_FMQ_INVALID);
  assert_int_equal(lg_fmq_write(q, d, 0), LG_FMQ_OK);
  lg_fmq_destroy(q);
  lg_fmq_destroy(NULL);
}

static void full_and_too_large(void** state) {
  (void)state;
  lg_fmq* q = new_queue(5);
  datum d[6];
  for (uint32_t i = 0; i < 6; ++i) d[i] = make(i);
  /* A message larger than the whole ring can never be written. */
  assert_int_equal(lg_fmq_write(q, d, 6), LG_FMQ_TOO_LARGE);
  assert_int_equal(lg_fmq_read(q, d, 6), LG_FMQ_TOO_LARGE);
  uint32_t n = 0;
  assert_int_equal(lg_fmq_available(q, &n), LG_FMQ_OK);
  assert_int_equal(n, 0);
  assert_int_equal(lg_fmq_write(q, d, 4), LG_FMQ_OK);
  /* Two more do not fit: nothing is written. */
  assert_int_equal(lg_fmq_write(q, d + 4, 2), LG_FMQ_FULL);
  assert_int_equal(lg_fmq_available(q, &n), LG_FMQ_OK);
  assert_int_equal(n, 4);
  assert_int_equal(lg_fmq_write(q, d + 4, 1), LG_FMQ_OK);
  assert_int_equal(lg_fmq_space(q, &n), LG_FMQ_OK);
  assert_int_equal(n, 0);
  assert_int_equal(lg_fmq_write(q, d, 1), LG_FMQ_FULL);
  datum out[5];
  assert_int_equal(lg_fmq_read(q, out, 5), LG_FMQ_OK);
  for (uint32_t i = 0; i < 5; ++i) check_datum(&out[i], i);
  lg_fmq_destroy(q);
}

/* Messages of 1..capacity datums, so that runs start at every slot and
 * wrap past the ring's end in every split. */
static void wrap_around(void** state) {
  (void)state;
  const uint32_t capacity = 7;
  lg_fmq* q = new_queue(capacity);
  uint32_t next_write = 0, next_read = 0;
  datum buf[7];
  for (int round = 0; round < 500; ++round) {
    const uint32_t count = 1 + (uint32_t)(round * 5 % (int)capacity);
    for (uint32_t i = 0; i < count; ++i) buf[i] = make(next_write + i);
    assert_int_equal(lg_fmq_write(q, buf, count), LG_FMQ_OK);
    next_write += count;
    memset(buf, 0, sizeof(buf));
    assert_int_equal(lg_fmq_read(q, buf, count), LG_FMQ_OK);
    for (uint32_t i = 0; i < count; ++i) check_datum(&buf[i], next_read + i);
    next_read += count;
  }
  /* Partly full while wrapping: 3 stay behind each round. */
  for (uint32_t i = 0; i < 3; ++i) buf[i] = make(next_write + i);
  assert_int_equal(lg_fmq_write(q, buf, 3), LG_FMQ_OK);
  next_write += 3;
  for (int round = 0; round < 200; ++round) {
    const uint32_t count = 1 + (uint32_t)round % 4;
    for (uint32_t i = 0; i < count; ++i) buf[i] = make(next_write + i);
    assert_int_equal(lg_fmq_write(q, buf, count), LG_FMQ_OK);
    next_write += count;
    assert_int_equal(lg_fmq_read(q, buf, count), LG_FMQ_OK);
    for (uint32_t i = 0; i < count; ++i) check_datum(&buf[i], next_read + i);
    next_read += count;
  }
  lg_fmq_destroy(q);
}

static void corrupt_counters_are_reported(void** state) {
  (void)state;
  lg_fmq* q = new_queue(4);
  _Atomic uint64_t* w = shared_counter(q, 0);
  _Atomic uint64_t* r = shared_counter(q, 1);
  datum d[2] = {make(0), make(1)};
  assert_int_equal(lg_fmq_write(q, d, 2), LG_FMQ_OK);
  /* More than a ring ahead. */
  atomic_store(w, 1000);
  uint32_t n = 0;
  assert_int_equal(lg_fmq_available(q, &n), LG_FMQ_CORRUPT);
  assert_int_equal(lg_fmq_read(q, d, 1), LG_FMQ_CORRUPT);
  assert_int_equal(lg_fmq_write(q, d, 1), LG_FMQ_CORRUPT);
  assert_int_equal(lg_fmq_peek(q, d), LG_FMQ_CORRUPT);
  uint32_t bits = 0;
  assert_int_equal(lg_fmq_wait_readable(q, 0, 0, 0, &bits), LG_FMQ_CORRUPT);
  /* The reader ahead of the writer. */
  atomic_store(w, 2);
  atomic_store(r, 3);
  assert_int_equal(lg_fmq_available(q, &n), LG_FMQ_CORRUPT);
  /* Huge but consistent counters still index inside the ring. */
  atomic_store(w, UINT64_MAX - 1);
  atomic_store(r, UINT64_MAX - 2);
  assert_int_equal(lg_fmq_available(q, &n), LG_FMQ_OK);
  assert_int_equal(n, 1);
  assert_int_equal(lg_fmq_read(q, d, 1), LG_FMQ_OK);
  munmap((void*)((uint8_t*)w - 64), LG_FMQ_HEADER_SIZE);
  lg_fmq_destroy(q);
}

static void attach_checks_file_and_header(void** state) {
  (void)state;
  char error[256] = "";
  lg_fmq* q = new_queue(4);
  /* Another geometry than the creator's. */
  assert_null(
      lg_fmq_attach(lg_fmq_fd(q), sizeof(datum), 8, error, sizeof(error)));
  assert_null(lg_fmq_attach(lg_fmq_fd(q), 8, 4, error, sizeof(error)));
  /* A corrupt magic. */
  uint32_t* magic = mmap(NULL, LG_FMQ_HEADER_SIZE, PROT_READ | PROT_WRITE,
                         MAP_SHARED, lg_fmq_fd(q), 0);
  assert_true(magic != MAP_FAILED);
  *magic = 0xdeadbeef;
  assert_null(
      lg_fmq_attach(lg_fmq_fd(q), sizeof(datum), 4, error, sizeof(error)));
  assert_non_null(strstr(error, "does not match"));
  *magic = LG_FMQ_MAGIC;
  munmap(magic, LG_FMQ_HEADER_SIZE);
  /* A file that may shrink (no seals), and one too small. */
  int plain = memfd_create("plain", MFD_CLOEXEC);
  assert_true(plain >= 0);
  assert_int_equal(ftruncate(plain, 4096), 0);
  assert_null(lg_fmq_attach(plain, sizeof(datum), 4, error, sizeof(error)));
  assert_non_null(strstr(error, "not sealed"));
  close(plain);
  int small = -1;
  void* map = NULL;
  assert_int_equal(
      lg_shm_create("small", 100, &small, &map, error, sizeof(error)), 0);
  assert_null(lg_fmq_attach(small, sizeof(datum), 4, error, sizeof(error)));
  assert_non_null(strstr(error, "fewer than"));
  lg_shm_unmap(map, 100);
  close(small);
  /* A good attach shares the ring. */
  int fd = dup(lg_fmq_fd(q));
  lg_fmq* peer = lg_fmq_attach(fd, sizeof(datum), 4, error, sizeof(error));
  assert_non_null(peer);
  datum d = make(42), out;
  assert_int_equal(lg_fmq_write(q, &d, 1), LG_FMQ_OK);
  assert_int_equal(lg_fmq_read(peer, &out, 1), LG_FMQ_OK);
  check_datum(&out, 42);
  lg_fmq_destroy(peer);
  lg_fmq_destroy(q);
}

/* ---- Event flag ----------------------------------------------------------
 */

static void event_flag_timeout_and_bits(void** state) {
  (void)state;
  _Atomic uint32_t word = 0;
  uint32_t bits = 0;
  uint64_t start = lg_now_ns();
  assert_int_equal(lg_event_flag_wait(&word, 0x4, 100000, 20000000, &bits),
                   LG_FMQ_TIMEOUT);
  const uint64_t waited = lg_now_ns() - start;
  assert_true(waited >= 20000000);
  assert_true(waited < 2000000000);
  /* Bits set before the wait are taken at once; others stay. */
  lg_event_flag_wake(&word, 0x4 | 0x10);
  assert_int_equal(lg_event_flag_wait(&word, 0x4 | 0x8, 0, -1, &bits),
                   LG_FMQ_OK);
  assert_int_equal(bits, 0x4);
  assert_int_equal(atomic_load(&word), 0x10);
  assert_int_equal(lg_event_flag_wait(&word, 0, 0, 0, &bits), LG_FMQ_INVALID);
  assert_int_equal(lg_event_flag_wait(&word, 0x4, 0, 0, &bits), LG_FMQ_TIMEOUT);
}

typedef struct waker {
  _Atomic uint32_t* word;
  uint32_t bits;
  unsigned delay_us;
} waker;

static void* wake_later(void* arg) {
  waker* w = arg;
  usleep(w->delay_us);
  lg_event_flag_wake(w->word, w->bits);
  return NULL;
}

static void event_flag_wakes_a_sleeping_thread(void** state) {
  (void)state;
  _Atomic uint32_t word = 0;
  waker w = {&word, 0x20, 30000};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, wake_later, &w), 0);
  uint32_t bits = 0;
  /* No spinning: the wait sleeps in the futex. */
  assert_int_equal(lg_event_flag_wait(&word, 0x20, 0, 5000000000LL, &bits),
                   LG_FMQ_OK);
  assert_int_equal(bits, 0x20);
  pthread_join(t, NULL);
  assert_int_equal(atomic_load(&word) & LG_EVENT_FLAG_WAITERS, 0);
}

/* A reader that always sleeps (no spin) and a writer that never pauses:
 * every message arrives, in order, with no wait timing out (a lost
 * wake-up would leave the reader asleep until its timeout). */
typedef struct pump {
  lg_fmq* q;
  uint32_t count;
  int timeouts;
  int errors;
} pump;

static void* read_all(void* arg) {
  pump* p = arg;
  datum d;
  for (uint32_t seq = 0; seq < p->count; ++seq) {
    uint32_t bits = 0;
    lg_fmq_status s = lg_fmq_wait_readable(p->q, 0, 2000000000LL, 0, &bits);
    if (s == LG_FMQ_TIMEOUT) {
      ++p->timeouts;
      return NULL;
    }
    if (s != LG_FMQ_OK || lg_fmq_read(p->q, &d, 1) != LG_FMQ_OK ||
        d.seq != seq) {
      ++p->errors;
      return NULL;
    }
  }
  return NULL;
}

static void no_lost_wakeups(void** state) {
  (void)state;
  lg_fmq* q = new_queue(16);
  pump p = {q, 20000, 0, 0};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, read_all, &p), 0);
  for (uint32_t seq = 0; seq < p.count;) {
    datum d = make(seq);
    const lg_fmq_status s = lg_fmq_write(q, &d, 1);
    if (s == LG_FMQ_FULL) {
      uint32_t bits = 0;
      lg_event_flag_wait(lg_fmq_event(q), LG_FMQ_EVENT_NOT_FULL, 1000, 1000000,
                         &bits);
      continue;
    }
    assert_int_equal(s, LG_FMQ_OK);
    ++seq;
  }
  pthread_join(t, NULL);
  assert_int_equal(p.timeouts, 0);
  assert_int_equal(p.errors, 0);
  lg_fmq_destroy(q);
}

/* Ping-pong with a child process that attaches to both queues by
 * descriptor: requests of 1..5 datums, each answered with its sum. */
static int child_echo(int request_fd, int reply_fd, uint32_t rounds) {
  char error[256];
  lg_fmq* in =
      lg_fmq_attach(request_fd, sizeof(datum), 8, error, sizeof(error));
  lg_fmq* out = lg_fmq_attach(reply_fd, sizeof(datum), 8, error, sizeof(error));
  if (in == NULL || out == NULL) return 10;
  for (uint32_t r = 0; r < rounds; ++r) {
    uint32_t bits = 0;
    if (lg_fmq_wait_readable(in, 20000, 5000000000LL, 0, &bits) != LG_FMQ_OK) {
      return 11;
    }
    datum head;
    if (lg_fmq_peek(in, &head) != LG_FMQ_OK) return 12;
    const uint32_t count = head.payload[0];
    if (count == 0 || count > 5) return 13;
    datum buf[5];
    if (lg_fmq_read(in, buf, count) != LG_FMQ_OK) return 14;
    datum reply = {r, {0, 0, 0}};
    for (uint32_t i = 0; i < count; ++i) reply.payload[1] += buf[i].seq;
    if (lg_fmq_write(out, &reply, 1) != LG_FMQ_OK) return 15;
  }
  lg_fmq_destroy(in);
  lg_fmq_destroy(out);
  return 0;
}

static void cross_process_ping_pong(void** state) {
  (void)state;
  lg_fmq* requests = new_queue(8);
  lg_fmq* replies = new_queue(8);
  const uint32_t rounds = 3000;
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    _exit(
        child_echo(dup(lg_fmq_fd(requests)), dup(lg_fmq_fd(replies)), rounds));
  }
  for (uint32_t r = 0; r < rounds; ++r) {
    const uint32_t count = 1 + r % 5;
    datum buf[5];
    uint32_t sum = 0;
    for (uint32_t i = 0; i < count; ++i) {
      buf[i] = make(r * 10 + i);
      sum += buf[i].seq;
    }
    buf[0].payload[0] = count;
    assert_int_equal(lg_fmq_write(requests, buf, count), LG_FMQ_OK);
    uint32_t bits = 0;
    assert_int_equal(
        lg_fmq_wait_readable(replies, 20000, 5000000000LL, 0, &bits),
        LG_FMQ_OK);
    datum reply;
    assert_int_equal(lg_fmq_read(replies, &reply, 1), LG_FMQ_OK);
    assert_int_equal(reply.seq, r);
    assert_int_equal(reply.payload[1], sum);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  lg_fmq_destroy(requests);
  lg_fmq_destroy(replies);
}

/* An extra event bit wakes a reader waiting for data (the service's
 * callback signal), and is cleared when taken. */
static void wait_readable_returns_extra_bits(void** state) {
  (void)state;
  lg_fmq* q = new_queue(4);
  waker w = {lg_fmq_event(q), LG_FMQ_EVENT_USER(1), 20000};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, wake_later, &w), 0);
  uint32_t bits = 0;
  assert_int_equal(
      lg_fmq_wait_readable(q, 0, 5000000000LL, LG_FMQ_EVENT_USER(1), &bits),
      LG_FMQ_OK);
  assert_int_equal(bits, LG_FMQ_EVENT_USER(1));
  pthread_join(t, NULL);
  assert_int_equal(
      lg_fmq_wait_readable(q, 1000, 1000000, LG_FMQ_EVENT_USER(1), &bits),
      LG_FMQ_TIMEOUT);
  lg_fmq_destroy(q);
}

/* A wake from another process through a word in a shared memfd. */
static void event_flag_across_processes(void** state) {
  (void)state;
  char error[256];
  int fd = -1;
  void* map = NULL;
  assert_int_equal(lg_shm_create("flag", 64, &fd, &map, error, sizeof(error)),
                   0);
  _Atomic uint32_t* word = map;
  atomic_store(word, 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    uint32_t bits = 0;
    if (lg_event_flag_wait(word, 0x8, 0, 5000000000LL, &bits) != LG_FMQ_OK) {
      _exit(1);
    }
    lg_event_flag_wake(word, 0x100);
    _exit(bits == 0x8 ? 0 : 2);
  }
  usleep(20000);
  lg_event_flag_wake(word, 0x8);
  uint32_t bits = 0;
  assert_int_equal(lg_event_flag_wait(word, 0x100, 0, 5000000000LL, &bits),
                   LG_FMQ_OK);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  lg_shm_unmap(map, 64);
  close(fd);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(geometry_is_checked),
      cmocka_unit_test(write_read_peek),
      cmocka_unit_test(full_and_too_large),
      cmocka_unit_test(wrap_around),
      cmocka_unit_test(corrupt_counters_are_reported),
      cmocka_unit_test(attach_checks_file_and_header),
      cmocka_unit_test(event_flag_timeout_and_bits),
      cmocka_unit_test(event_flag_wakes_a_sleeping_thread),
      cmocka_unit_test(no_lost_wakeups),
      cmocka_unit_test(cross_process_ping_pong),
      cmocka_unit_test(wait_readable_returns_extra_bits),
      cmocka_unit_test(event_flag_across_processes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
