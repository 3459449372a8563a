/* lg_thread_pool: every task runs exactly once, for pool sizes 1..4 and task
 * counts 0, 1, 7 and 1000, over repeated runs; creation limits; the default
 * pool; destroy(NULL). */
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
      cmocka_unit_test(test_creation_limits),
      cmocka_unit_test(test_destroy_null_and_idle),
      cmocka_unit_test(test_default_pool),
      cmocka_unit_test(test_null_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
