/* The litegpu accelerator service (docs/service.md): the process that owns
 * the accelerator and runs models clients prepare in it.
 *
 * It listens on a Unix socket. Each client connection gets a control
 * thread that answers HELLO (the op list with each op's maximum version),
 * PREPARE (a .tflite in a sealed memfd becomes an interpreter, on the GPU
 * delegate or the CPU kernels), EXECUTE (one execution over a memory pool
 * the request carries), RELEASE_MODEL, BURST_CONFIGURE / BURST_RELEASE and
 * the burst's memory-slot messages. Each burst gets a listener thread that
 * spins a bounded time on its request queue, then sleeps on the queue's
 * event flag; it validates each request, maps the memory slots it names
 * (asking the client for unknown ones over the control channel), executes
 * and writes the result queue.
 *
 * A client that hangs up or dies ends its control thread, which stops and
 * joins its bursts' listeners and frees its models, bursts and slot
 * caches; the service keeps serving the others. lg_service_stop (safe in a
 * signal handler) makes lg_service_run close every connection, join every
 * thread and return.
 *
 *   lg_service_options o = lg_service_options_default();
 *   o.socket_path = "/tmp/litegpu.sock";
 *   lg_service* s = lg_service_create(&o, err, sizeof(err));
 *   ... from a SIGTERM handler: lg_service_stop(s);
 *   lg_service_run(s);
 *   lg_service_destroy(s);       removes the socket file
 *
 * Thread safety: lg_service_stop from any thread or signal handler; the
 * others from one thread.
 */
#ifndef LITEGPU_DELEGATES_SERVICE_SERVICE_SERVER_H_
#define LITEGPU_DELEGATES_SERVICE_SERVICE_SERVER_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum lg_service_kind {
  LG_SERVICE_GPU = 0, /* the GPU delegate, CPU kernels for what it leaves */
  LG_SERVICE_CPU = 1, /* litegpu's CPU kernels only */
} lg_service_kind;

typedef struct lg_service_options {
  const char* socket_path;
  lg_service_kind kind;
  int gpu_backend; /* litegpu_gpu_backend: 0 auto, 1 OpenCL, 2 Vulkan */
  int num_threads; /* of each prepared model's interpreter (-1: default) */
  /* How long a burst listener spins on its request queue after each
   * request before it sleeps on the event flag. */
  uint64_t listener_spin_ns;
  /* Tests only: each execution sleeps this long before it runs, so that a
   * test can kill the service while an execution is in flight. */
  unsigned test_execute_delay_ms;
  bool verbose; /* log connections and errors to stderr */
} lg_service_options;

lg_service_options lg_service_options_default(void);

typedef struct lg_service lg_service;

/* Checks the device (GPU kind: a GPU delegate must be creatable), builds
 * the op list and listens on the socket. NULL with the reason. */
lg_service* lg_service_create(const lg_service_options* options, char* error,
                              size_t error_size);

/* Serves until lg_service_stop; returns 0 (-1 when the accept loop
 * failed). */
int lg_service_run(lg_service* service);

/* Async-signal-safe: makes lg_service_run return. */
void lg_service_stop(lg_service* service);

/* Closes the socket and removes its file; NULL is a no-op. */
void lg_service_destroy(lg_service* service);

/* The device the service reports ("cpu", "gpu (OpenCL: <name>)"). */
const char* lg_service_device(const lg_service* service);

/* Runs a service in a forked child (no exec) that stops cleanly on SIGTERM
 * or SIGINT and exits 0, and waits up to `timeout_ms` until it accepts
 * connections. Returns the child's pid (the caller reaps it), or -1 with
 * the reason. Call it from a process with a single thread (tests, tools):
 * the child runs the service on what fork copied. */
pid_t lg_service_spawn(const lg_service_options* options, int timeout_ms,
                       char* error, size_t error_size);

#endif /* LITEGPU_DELEGATES_SERVICE_SERVICE_SERVER_H_ */
