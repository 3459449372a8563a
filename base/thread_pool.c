/* A fixed pool of worker threads (pthreads) for kernels that split work.
 *
 * One run at a time: the caller publishes (fn, ctx, num_tasks) under the
 * mutex, bumps the run generation and wakes every worker; the caller and the
 * workers then claim task indices from an atomic counter until it passes
 * num_tasks. The counter carries the run's generation in its high half and
 * a claim succeeds only while that matches (compare-and-swap), so a worker
 * that wakes late can never claim from a newer run; the caller therefore
 * waits only for the tasks to finish, not for every worker to check in. A
 * worker descheduled by an oversubscribed machine (more runnable threads
 * than cores) used to hold every run until the kernel ran it again, even
 * when the caller had done all the tasks itself: small layers at 2 threads
 * took milliseconds. (The generation tag is 32 bits: a worker would have to
 * sleep through 2^32 runs between reading a run and claiming from it.)
 * Idle workers sleep on a condition variable; destroy sets `shutdown`,
 * wakes and joins them.
 *
 * Since tasks are claimed one at a time, a kernel that splits its work into
 * a few times more tasks than threads (lg_thread_pool_tasks) loses only one
 * task's time to a descheduled thread, not its whole fixed share. Kernels
 * whose tasks need scratch memory index it by the slot that
 * lg_thread_pool_run_slots passes (the caller is slot 0, worker i slot
 * i + 1), which stays below the pool's size however many tasks there are.
 *
 * Waking a sleeping thread costs tens of microseconds, which is more than
 * many kernels' share of work. So a worker that finishes a run first spins
 * (with a pause hint) for up to LG_SPIN_NS, watching the published
 * generation, before it sleeps; and the caller spins the same way before
 * sleeping on the last worker. Back-to-back runs (the layers of a model)
 * then hand over without a wake-up.
 */
#include "base/thread_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/clock.h"

/* Keeps a wild num_threads option from exhausting the process. */
#define LG_THREAD_POOL_MAX_THREADS 256

/* Tasks per thread that lg_thread_pool_tasks aims for. More than one makes a
 * descheduled thread's unfinished task a smaller part of the run, but each
 * task's fixed costs add up: on an idle 2-core machine, 2 threads, 2 per
 * thread took 2-24% longer than 1 on seven of eight corpus models (5
 * alternating rounds of benchmark_model), so the tasks are claimed
 * dynamically but there is one per thread. */
#define LG_TASKS_PER_THREAD 1

/* How long a thread spins before sleeping, in nanoseconds. */
#define LG_SPIN_NS 50000

typedef struct lg_worker {
  pthread_t thread;
  struct lg_thread_pool* pool;
  int slot; /* passed to slot tasks this worker runs; the caller's is 0 */
} lg_worker;

struct lg_thread_pool {
  int size;        /* threads running tasks, the caller included */
  int num_workers; /* workers started (size - 1 once created) */
  lg_worker* workers;
  pthread_mutex_t mutex;
  pthread_cond_t work_ready; /* a run started, or shutdown */
  pthread_cond_t work_done;  /* a worker finished the run's last task */

  /* Guarded by mutex. */
  uint64_t generation; /* incremented once per run */
  bool shutdown;
  lg_slot_task_fn fn;
  void* ctx;
  int num_tasks;

  /* (generation mod 2^32) << 32 | the run's next task index; claimed
   * without the mutex. */
  atomic_uint_fast64_t claim;
  /* Tasks of the current run that have returned. */
  atomic_int tasks_done;
  /* Mirrors of generation and shutdown that spinning threads read without
   * the mutex. */
  atomic_uint_fast64_t published;
  atomic_bool stopping;
};

/* The process-wide pool of size 1: no workers, so its mutex and condition
 * variables are never used; a static initializer is all it needs. */
static lg_thread_pool g_default_pool = {
    .size = 1,
    .num_workers = 0,
    .workers = NULL,
    .mutex = PTHREAD_MUTEX_INITIALIZER,
    .work_ready = PTHREAD_COND_INITIALIZER,
    .work_done = PTHREAD_COND_INITIALIZER,
};

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Spins until a run newer than `seen` is published, shutdown begins, or
 * LG_SPIN_NS pass. */
static void spin_for_work(lg_thread_pool* pool, uint64_t seen) {
  const uint64_t start = lg_now_ns();
  for (unsigned i = 1;; ++i) {
    if (atomic_load_explicit(&pool->published, memory_order_acquire) != seen ||
        atomic_load_explicit(&pool->stopping, memory_order_relaxed)) {
      return;
    }
    cpu_relax();
    if (i % 64 == 0 && lg_now_ns() - start > LG_SPIN_NS) return;
  }
}

/* Spins until the run's tasks have all returned, or LG_SPIN_NS pass. */
static void spin_for_tasks(lg_thread_pool* pool, int num_tasks) {
  const uint64_t start = lg_now_ns();
  for (unsigned i = 1;; ++i) {
    if (atomic_load_explicit(&pool->tasks_done, memory_order_acquire) ==
        num_tasks) {
      return;
    }
    cpu_relax();
    if (i % 64 == 0 && lg_now_ns() - start > LG_SPIN_NS) return;
  }
}

#define LG_CLAIM_INDEX_MASK UINT64_C(0xffffffff)

/* Claims and runs tasks of run `generation` as `slot` until none is left or
 * a newer run has replaced it. A worker (signal_last) that returns the run's
 * last task wakes the caller if it sleeps. */
static void lg_run_tasks(lg_thread_pool* pool, uint64_t generation,
                         lg_slot_task_fn fn, void* ctx, int num_tasks, int slot,
                         bool signal_last) {
  const uint64_t tag = (generation & LG_CLAIM_INDEX_MASK) << 32;
  uint_fast64_t claim =
      atomic_load_explicit(&pool->claim, memory_order_relaxed);
  for (;;) {
    if ((claim & ~LG_CLAIM_INDEX_MASK) != tag ||
        (claim & LG_CLAIM_INDEX_MASK) >= (uint64_t)num_tasks) {
      return;
    }
    if (!atomic_compare_exchange_weak_explicit(&pool->claim, &claim, claim + 1,
                                               memory_order_relaxed,
                                               memory_order_relaxed)) {
      continue; /* claim now holds the current value */
    }
    fn(ctx, (int)(claim & LG_CLAIM_INDEX_MASK), slot);
    const int done =
        atomic_fetch_add_explicit(&pool->tasks_done, 1, memory_order_acq_rel) +
        1;
    if (signal_last && done == num_tasks) {
      pthread_mutex_lock(&pool->mutex);
      pthread_cond_signal(&pool->work_done);
      pthread_mutex_unlock(&pool->mutex);
    }
    claim = atomic_load_explicit(&pool->claim, memory_order_relaxed);
  }
}

static void* lg_worker_main(void* arg) {
  const lg_worker* self = arg;
  lg_thread_pool* pool = self->pool;
  uint64_t seen = 0; /* the generation this worker last took part in */
  pthread_mutex_lock(&pool->mutex);
  for (;;) {
    if (!pool->shutdown && pool->generation == seen) {
      pthread_mutex_unlock(&pool->mutex);
      spin_for_work(pool, seen);
      pthread_mutex_lock(&pool->mutex);
    }
    while (!pool->shutdown && pool->generation == seen) {
      pthread_cond_wait(&pool->work_ready, &pool->mutex);
    }
    if (pool->shutdown) break;
    seen = pool->generation;
    const lg_slot_task_fn fn = pool->fn;
    void* const ctx = pool->ctx;
    const int num_tasks = pool->num_tasks;
    pthread_mutex_unlock(&pool->mutex);

    lg_run_tasks(pool, seen, fn, ctx, num_tasks, self->slot, true);

    pthread_mutex_lock(&pool->mutex);
  }
  pthread_mutex_unlock(&pool->mutex);
  return NULL;
}

/* How far creation got, so that cleanup undoes exactly that much. */
enum {
  LG_POOL_HAS_MUTEX = 1 << 0,
  LG_POOL_HAS_READY = 1 << 1,
  LG_POOL_HAS_DONE = 1 << 2,
};

static void lg_thread_pool_release(lg_thread_pool* pool, int stages) {
  if (pool->num_workers > 0) {
    pthread_mutex_lock(&pool->mutex);
    pool->shutdown = true;
    atomic_store(&pool->stopping, true);
    pthread_cond_broadcast(&pool->work_ready);
    pthread_mutex_unlock(&pool->mutex);
    for (int i = 0; i < pool->num_workers; ++i) {
      pthread_join(pool->workers[i].thread, NULL);
    }
  }
  if (stages & LG_POOL_HAS_DONE) pthread_cond_destroy(&pool->work_done);
  if (stages & LG_POOL_HAS_READY) pthread_cond_destroy(&pool->work_ready);
  if (stages & LG_POOL_HAS_MUTEX) pthread_mutex_destroy(&pool->mutex);
  free(pool->workers);
  free(pool);
}

lg_thread_pool* lg_thread_pool_create(int num_threads) {
  if (num_threads < 1) return NULL;
  if (num_threads > LG_THREAD_POOL_MAX_THREADS) {
    num_threads = LG_THREAD_POOL_MAX_THREADS;
  }
  lg_thread_pool* pool = calloc(1, sizeof(*pool));
  if (pool == NULL) return NULL;
  pool->size = num_threads;
  atomic_init(&pool->claim, 0);
  atomic_init(&pool->tasks_done, 0);
  atomic_init(&pool->published, 0);
  atomic_init(&pool->stopping, false);

  int stages = 0;
  if (pthread_mutex_init(&pool->mutex, NULL) != 0) goto fail;
  stages |= LG_POOL_HAS_MUTEX;
  if (pthread_cond_init(&pool->work_ready, NULL) != 0) goto fail;
  stages |= LG_POOL_HAS_READY;
  if (pthread_cond_init(&pool->work_done, NULL) != 0) goto fail;
  stages |= LG_POOL_HAS_DONE;

  if (num_threads > 1) {
    pool->workers = calloc((size_t)(num_threads - 1), sizeof(lg_worker));
    if (pool->workers == NULL) goto fail;
    for (int i = 0; i < num_threads - 1; ++i) {
      lg_worker* worker = &pool->workers[i];
      worker->pool = pool;
      worker->slot = i + 1;
      if (pthread_create(&worker->thread, NULL, lg_worker_main, worker) != 0) {
        goto fail; /* release joins the num_workers already started */
      }
      pool->num_workers++;
    }
  }
  return pool;

fail:
  lg_thread_pool_release(pool, stages);
  return NULL;
}

void lg_thread_pool_destroy(lg_thread_pool* pool) {
  if (pool == NULL || pool == &g_default_pool) return;
  lg_thread_pool_release(
      pool, LG_POOL_HAS_MUTEX | LG_POOL_HAS_READY | LG_POOL_HAS_DONE);
}

int lg_thread_pool_size(const lg_thread_pool* pool) {
  return pool == NULL ? 1 : pool->size;
}

lg_thread_pool* lg_thread_pool_default(void) { return &g_default_pool; }

int lg_thread_pool_tasks(const lg_thread_pool* pool, int64_t units) {
  const int threads = lg_thread_pool_size(pool);
  if (threads <= 1 || units <= 1) return 1;
  const int64_t most = (int64_t)threads * LG_TASKS_PER_THREAD;
  return (int)(units < most ? units : most);
}

void lg_thread_pool_run_slots(lg_thread_pool* pool, lg_slot_task_fn fn,
                              void* ctx, int num_tasks) {
  if (fn == NULL || num_tasks <= 0) return;
  /* No workers, or nothing to share: run on the caller, touching no shared
   * state (which keeps the default pool safe from any thread). */
  if (pool == NULL || pool->num_workers == 0 || num_tasks == 1) {
    for (int i = 0; i < num_tasks; ++i) fn(ctx, i, 0);
    return;
  }

  pthread_mutex_lock(&pool->mutex);
  pool->fn = fn;
  pool->ctx = ctx;
  pool->num_tasks = num_tasks;
  const uint64_t generation = ++pool->generation;
  atomic_store_explicit(&pool->tasks_done, 0, memory_order_relaxed);
  atomic_store_explicit(&pool->claim, (generation & LG_CLAIM_INDEX_MASK) << 32,
                        memory_order_relaxed);
  atomic_store_explicit(&pool->published, generation, memory_order_release);
  pthread_cond_broadcast(&pool->work_ready);
  pthread_mutex_unlock(&pool->mutex);

  lg_run_tasks(pool, generation, fn, ctx, num_tasks, 0, false);

  /* Only tasks that some thread claimed are outstanding: a worker that has
   * not claimed one by now never will. */
  spin_for_tasks(pool, num_tasks);
  pthread_mutex_lock(&pool->mutex);
  while (atomic_load_explicit(&pool->tasks_done, memory_order_acquire) <
         num_tasks) {
    pthread_cond_wait(&pool->work_done, &pool->mutex);
  }
  pthread_mutex_unlock(&pool->mutex);
}

/* A task without a slot, run through lg_thread_pool_run_slots. */
typedef struct lg_plain_task {
  lg_task_fn fn;
  void* ctx;
} lg_plain_task;

static void lg_plain_task_run(void* ctx, int task_index, int slot) {
  (void)slot;
  const lg_plain_task* plain = ctx;
  plain->fn(plain->ctx, task_index);
}

void lg_thread_pool_run(lg_thread_pool* pool, lg_task_fn fn, void* ctx,
                        int num_tasks) {
  if (fn == NULL) return;
  lg_plain_task plain = {fn, ctx};
  lg_thread_pool_run_slots(pool, lg_plain_task_run, &plain, num_tasks);
}
