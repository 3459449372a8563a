/* A fixed pool of worker threads for kernels that split their work.
 *
 * lg_thread_pool_run(pool, fn, ctx, n) calls fn(ctx, i) for i in [0, n) spread
 * over the pool's threads and the calling thread, and returns when all calls
 * have finished. A pool of size 1 has no worker threads and runs every task
 * on the caller. One run at a time per pool (the interpreter is
 * single-threaded from the user's side). fn must not call run on the same
 * pool.
 */
#ifndef LITEGPU_BASE_THREAD_POOL_H_
#define LITEGPU_BASE_THREAD_POOL_H_

typedef struct lg_thread_pool lg_thread_pool;

typedef void (*lg_task_fn)(void* ctx, int task_index);

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

/* A process-wide pool of size 1 (tasks run on the caller), for contexts that
 * have no interpreter behind them (the kernel test harness). Never NULL, never
 * allocates; destroying it is a no-op. Safe to use from any thread, since a
 * pool of 1 keeps no per-run state. */
lg_thread_pool* lg_thread_pool_default(void);

#endif /* LITEGPU_BASE_THREAD_POOL_H_ */
