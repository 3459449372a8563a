/* A fixed pool of worker threads for kernels that split their work.
 *
 * lg_thread_pool_run(pool, fn, ctx, n) calls fn(ctx, i) for i in [0, n) spread
 * over the pool's threads and the calling thread, and returns when all calls
 * have finished. A pool of size 1 has no worker threads and runs every task
 * on the caller. One run at a time per pool (the interpreter is
 * single-threaded from the user's side). fn must not call run on the same
 * pool.
 *
 * Threads claim tasks one at a time from a shared counter, so a kernel that
 * splits its work into more tasks than threads (lg_thread_pool_tasks) keeps
 * going when one thread is descheduled: the others claim the rest, and the
 * run waits only for the task that thread holds. Which thread runs a task is
 * not fixed, so a task's result must depend only on its index.
 */
#ifndef LITEGPU_BASE_THREAD_POOL_H_
#define LITEGPU_BASE_THREAD_POOL_H_

typedef struct lg_thread_pool lg_thread_pool;

#include <stdint.h>

typedef void (*lg_task_fn)(void* ctx, int task_index);
/* slot: which of the pool's threads runs the task, in [0, size): the caller
 * is 0. Two tasks running at once never share a slot, so a task may use
 * scratch memory indexed by it. */
typedef void (*lg_slot_task_fn)(void* ctx, int task_index, int slot);

/* num_threads counts the caller: 1 = no workers. Requests above 256 get 256
 * threads. NULL when num_threads < 1 or a thread cannot be started (nothing
 * is left running then). */
lg_thread_pool* lg_thread_pool_create(int num_threads);
/* Joins the workers; NULL is a no-op. */
void lg_thread_pool_destroy(lg_thread_pool* pool);
/* Threads that run tasks, the caller included. */
int lg_thread_pool_size(const lg_thread_pool* pool);
void lg_thread_pool_run(lg_thread_pool* pool, lg_task_fn fn, void* ctx,
                        int num_tasks);
/* As lg_thread_pool_run, passing each task the slot of the thread that runs
 * it. */
void lg_thread_pool_run_slots(lg_thread_pool* pool, lg_slot_task_fn fn,
                              void* ctx, int num_tasks);
/* How many tasks to split `units` independent pieces of work (rows, blocks)
 * into: 1 for a pool of one thread, else LG_TASKS_PER_THREAD (thread_pool.c)
 * per thread, at most `units`.
 * Callers decide first whether the work is worth threading at all. */
int lg_thread_pool_tasks(const lg_thread_pool* pool, int64_t units);

/* A process-wide pool of size 1 (tasks run on the caller), for contexts that
 * have no interpreter behind them (the kernel test harness). Never NULL, never
 * allocates; destroying it is a no-op. Safe to use from any thread, since a
 * pool of 1 keeps no per-run state. */
lg_thread_pool* lg_thread_pool_default(void);

#endif /* LITEGPU_BASE_THREAD_POOL_H_ */
