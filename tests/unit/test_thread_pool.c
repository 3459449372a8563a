/* lg_thread_pool: every task runs exactly once, for pool sizes 1..4 and task
 * counts 0, 1, 7 and 1000, over repeated runs; creation limits; the default
 * pool; destroy(NULL); tasks are claimed dynamically (a blocked thread does
 * not keep the others from finishing every other task); slots are distinct
 * among running tasks; lg_thread_pool_tasks. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "base/thread_pool.h"

#define MAX_TASKS 1000

typedef struct counts {
  atomic_int hits[MAX_TASKS];
  atomic_int total;
  atomic_int on_caller; /* tasks that ran on the thread that called run */
  pthread_t caller;
} counts;

static void count_task(void* ctx, int index) {
  counts* c = ctx;
  atomic_fetch_add(&c->hits[index], 1);
  atomic_fetch_add(&c->total, 1);
  if (pthread_equal(pthread_self(), c->caller)) {
    atomic_fetch_add(&c->on_caller, 1);
  }
}

static void reset(counts* c) {
  for (int i = 0; i < MAX_TASKS; ++i) atomic_store(&c->hits[i], 0);
  atomic_store(&c->total, 0);
  atomic_store(&c->on_caller, 0);
  c->caller = pthread_self();
}

/* Runs num_tasks tasks and checks each ran once; the message names the pool
 * size, the task count, the run and the first bad index. */
static void run_and_check(lg_thread_pool* pool, counts* c, int num_tasks,
                          int run) {
  reset(c);
  lg_thread_pool_run(pool, count_task, c, num_tasks);
  for (int i = 0; i < num_tasks; ++i) {
    const int hits = atomic_load(&c->hits[i]);
    if (hits != 1) {
      fail_msg("pool of %d, %d tasks, run %d: task %d ran %d times",
               lg_thread_pool_size(pool), num_tasks, run, i, hits);
    }
  }
  for (int i = num_tasks; i < MAX_TASKS; ++i) {
    assert_int_equal(atomic_load(&c->hits[i]), 0);
  }
  assert_int_equal(atomic_load(&c->total), num_tasks);
}

static void test_every_task_runs_once(void** state) {
  (void)state;
  static counts c; /* large; keep it off the stack */
  const int task_counts[] = {0, 1, 7, MAX_TASKS};
  for (int size = 1; size <= 4; ++size) {
    lg_thread_pool* pool = lg_thread_pool_create(size);
    assert_non_null(pool);
    assert_int_equal(lg_thread_pool_size(pool), size);
    for (size_t k = 0; k < sizeof(task_counts) / sizeof(task_counts[0]); ++k) {
      run_and_check(pool, &c, task_counts[k], 0);
    }
    lg_thread_pool_destroy(pool);
  }
}

static void test_repeated_runs(void** state) {
  (void)state;
  static counts c;
  for (int size = 1; size <= 4; ++size) {
    lg_thread_pool* pool = lg_thread_pool_create(size);
    assert_non_null(pool);
    /* Alternate counts so that a stale worker from one run would show up as
     * an extra hit in the next. */
    for (int run = 0; run < 300; ++run) {
      const int n = (run % 3 == 0) ? 7 : (run % 3 == 1 ? 1 : 64 + run % 50);
      run_and_check(pool, &c, n, run);
    }
    lg_thread_pool_destroy(pool);
  }
}

/* Many short runs on more threads than this machine's cores, alternating
 * two contexts: workers often wake after the caller has done every task
 * itself and moved on (the run no longer waits for them), so a late worker
 * that still claimed from the run it read would hit the other context or
 * a task twice. */
static void test_late_workers_claim_nothing(void** state) {
  (void)state;
  static counts c[2];
  lg_thread_pool* pool = lg_thread_pool_create(4);
  assert_non_null(pool);
  for (int run = 0; run < 3000; ++run) {
    counts* now = &c[run % 2];
    counts* other = &c[1 - run % 2];
    reset(other);
    run_and_check(pool, now, 1 + run % 3, run);
    assert_int_equal(atomic_load(&other->total), 0);
  }
  lg_thread_pool_destroy(pool);
}

static void test_size_one_runs_on_caller(void** state) {
  (void)state;
  static counts c;
  lg_thread_pool* pool = lg_thread_pool_create(1);
  assert_non_null(pool);
  run_and_check(pool, &c, 7, 0);
  assert_int_equal(atomic_load(&c.on_caller), 7);
  lg_thread_pool_destroy(pool);
}

/* Each task waits (bounded) until two tasks are running at once, which only
 * happens when a worker and the caller share the run. */
typedef struct rendezvous {
  atomic_int arrived;
  atomic_int met;
} rendezvous;

static void meet_task(void* ctx, int index) {
  (void)index;
  rendezvous* r = ctx;
  atomic_fetch_add(&r->arrived, 1);
  for (long spin = 0; spin < 200000000L; ++spin) {
    if (atomic_load(&r->arrived) >= 2) {
      atomic_store(&r->met, 1);
      return;
    }
  }
}

static void test_workers_run_in_parallel(void** state) {
  (void)state;
  lg_thread_pool* pool = lg_thread_pool_create(2);
  assert_non_null(pool);
  rendezvous r;
  atomic_init(&r.arrived, 0);
  atomic_init(&r.met, 0);
  lg_thread_pool_run(pool, meet_task, &r, 2);
  assert_int_equal(atomic_load(&r.met), 1);
  lg_thread_pool_destroy(pool);
}

/* Task 0 (claimed first) blocks until every other task has finished, as a
 * descheduled thread would: with dynamic claiming the other thread runs
 * them all; with fixed equal shares half of them would wait behind task 0
 * and the bounded wait would run out. */
typedef struct blocked_run {
  int num_tasks;
  atomic_int done;
  atomic_int others_finished_first;
} blocked_run;

static void blocking_task(void* ctx, int index) {
  blocked_run* b = ctx;
  if (index == 0) {
    for (long spin = 0; spin < 2000000000L; ++spin) {
      if (atomic_load(&b->done) == b->num_tasks - 1) {
        atomic_store(&b->others_finished_first, 1);
        break;
      }
    }
  }
  atomic_fetch_add(&b->done, 1);
}

static void test_blocked_thread_holds_only_its_task(void** state) {
  (void)state;
  lg_thread_pool* pool = lg_thread_pool_create(2);
  assert_non_null(pool);
  for (int run = 0; run < 3; ++run) {
    blocked_run b = {.num_tasks = 16};
    atomic_init(&b.done, 0);
    atomic_init(&b.others_finished_first, 0);
    lg_thread_pool_run(pool, blocking_task, &b, b.num_tasks);
    assert_int_equal(atomic_load(&b.done), b.num_tasks);
    if (atomic_load(&b.others_finished_first) != 1) {
      fail_msg("run %d: tasks 1..15 did not finish while task 0 blocked", run);
    }
  }
  lg_thread_pool_destroy(pool);
}

/* Each task marks its slot busy while it runs: a slot out of range, or one
 * already busy, fails the test. */
typedef struct slot_check {
  int size;
  atomic_int busy[8];
  atomic_int bad;
  atomic_int ran;
} slot_check;

static void slot_task(void* ctx, int index, int slot) {
  (void)index;
  slot_check* s = ctx;
  if (slot < 0 || slot >= s->size) {
    atomic_store(&s->bad, 1);
    return;
  }
  if (atomic_exchange(&s->busy[slot], 1) != 0) atomic_store(&s->bad, 1);
  for (volatile int spin = 0; spin < 2000; ++spin) {
  }
  atomic_store(&s->busy[slot], 0);
  atomic_fetch_add(&s->ran, 1);
}

static void test_slots_are_distinct(void** state) {
  (void)state;
  for (int size = 1; size <= 4; ++size) {
    lg_thread_pool* pool = lg_thread_pool_create(size);
    assert_non_null(pool);
    slot_check s = {.size = size};
    for (int i = 0; i < 8; ++i) atomic_init(&s.busy[i], 0);
    atomic_init(&s.bad, 0);
    atomic_init(&s.ran, 0);
    lg_thread_pool_run_slots(pool, slot_task, &s, 200);
    assert_int_equal(atomic_load(&s.ran), 200);
    if (atomic_load(&s.bad) != 0) {
      fail_msg("pool of %d: a slot out of range or shared", size);
    }
    lg_thread_pool_destroy(pool);
  }
}

static void test_task_counts(void** state) {
  (void)state;
  lg_thread_pool* two = lg_thread_pool_create(2);
  assert_non_null(two);
  assert_int_equal(lg_thread_pool_tasks(NULL, 100), 1);
  assert_int_equal(lg_thread_pool_tasks(lg_thread_pool_default(), 100), 1);
  assert_int_equal(lg_thread_pool_tasks(two, 100), 2); /* 1 per thread */
  assert_int_equal(lg_thread_pool_tasks(two, 1), 1);
  assert_int_equal(lg_thread_pool_tasks(two, 0), 1);
  lg_thread_pool_destroy(two);
}

static void test_creation_limits(void** state) {
  (void)state;
  assert_null(lg_thread_pool_create(0));
  assert_null(lg_thread_pool_create(-1));
  lg_thread_pool* big = lg_thread_pool_create(100000);
  assert_non_null(big);
  assert_int_equal(lg_thread_pool_size(big), 256);
  lg_thread_pool_destroy(big);
}

static void test_destroy_null_and_idle(void** state) {
  (void)state;
  lg_thread_pool_destroy(NULL);
  /* Created and destroyed without ever running. */
  for (int size = 1; size <= 4; ++size) {
    lg_thread_pool_destroy(lg_thread_pool_create(size));
  }
}

static void test_default_pool(void** state) {
  (void)state;
  static counts c;
  lg_thread_pool* pool = lg_thread_pool_default();
  assert_non_null(pool);
  assert_ptr_equal(pool, lg_thread_pool_default());
  assert_int_equal(lg_thread_pool_size(pool), 1);
  run_and_check(pool, &c, MAX_TASKS, 0);
  assert_int_equal(atomic_load(&c.on_caller), MAX_TASKS);
  lg_thread_pool_destroy(pool); /* a no-op */
  run_and_check(lg_thread_pool_default(), &c, 7, 1);
}

static void test_null_arguments(void** state) {
  (void)state;
  static counts c;
  lg_thread_pool* pool = lg_thread_pool_create(3);
  assert_non_null(pool);
  lg_thread_pool_run(pool, NULL, &c, 10); /* no function: nothing runs */
  lg_thread_pool_run(pool, count_task, &c, -5);
  run_and_check(NULL, &c, 7, 0); /* a NULL pool runs on the caller */
  assert_int_equal(lg_thread_pool_size(NULL), 1);
  run_and_check(pool, &c, 7, 1);
  lg_thread_pool_destroy(pool);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_task_runs_once),
      cmocka_unit_test(test_repeated_runs),
      cmocka_unit_test(test_late_workers_claim_nothing),
      cmocka_unit_test(test_size_one_runs_on_caller),
      cmocka_unit_test(test_workers_run_in_parallel),
      cmocka_unit_test(test_blocked_thread_holds_only_its_task),
      cmocka_unit_test(test_slots_are_distinct),
      cmocka_unit_test(test_task_counts),
      cmocka_unit_test(test_creation_limits),
      cmocka_unit_test(test_destroy_null_and_idle),
      cmocka_unit_test(test_default_pool),
      cmocka_unit_test(test_null_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
