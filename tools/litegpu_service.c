/* litegpu_service: the accelerator service (docs/service.md).
 *
 *   litegpu_service --socket=PATH [--delegate=gpu|cpu]
 *                   [--gpu_backend=cl|vk|auto] [--num_threads=N]
 *                   [--listener_spin_us=N] [--verbose]
 *   litegpu_service --help
 *
 * Owns the accelerator and serves clients (the service delegate,
 * include/litegpu/service_delegate.h) on a Unix socket until SIGTERM or
 * SIGINT, then closes every connection, joins its threads, removes the
 * socket file and exits 0.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/service/service_server.h"
#include "tools/tool_help.h"

static lg_service* g_service;

static void on_signal(int sig) {
  (void)sig;
  if (g_service != NULL) lg_service_stop(g_service);
}

static void usage(FILE* out) {
  fprintf(out,
          "usage: litegpu_service --socket=PATH [--delegate=gpu|cpu] "
          "[--gpu_backend=cl|vk|auto] [--num_threads=N] "
          "[--listener_spin_us=N] [--verbose]\n");
}

static void help(void) {
  usage(stdout);
  printf(
      "Runs the litegpu accelerator service: clients (the service delegate)\n"
      "connect to the Unix socket PATH, read the op list (each op with its\n"
      "maximum version), prepare models sent as memory files and execute\n"
      "them per call or in bursts over shared-memory queues. A client that\n"
      "dies is cleaned up; the service keeps serving the others.\n"
      "  --socket=PATH          the socket to listen on (required; a stale\n"
      "                         socket file is replaced)\n"
      "  --delegate=gpu|cpu     run models on the GPU delegate (default;\n"
      "                         the CPU kernels take what it leaves) or on\n"
      "                         the CPU kernels only\n"
      "  --gpu_backend=cl|vk|auto  the GPU backend (default auto)\n"
      "  --num_threads=N        threads per model interpreter (default 1)\n"
      "  --listener_spin_us=N   how long a burst listener spins after a\n"
      "                         request before it sleeps (default 200)\n"
      "  --verbose              log connections and errors to stderr\n"
      "  --test_execute_delay_ms=N  (tests) sleep before each execution\n"
      "Prints \"litegpu_service: serving DEVICE on PATH\" when ready. Stops\n"
      "on SIGTERM or SIGINT. Exit status: 0 after a clean stop, 1 when the\n"
      "service cannot start, 2 on a bad argument.\n");
}

static int parse_int(const char* text, int min, int* out) {
  char* end = NULL;
  const long v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < min || v > 1000000000L) return -1;
  *out = (int)v;
  return 0;
}

static int parse(int argc, char** argv, lg_service_options* o) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    int v = 0;
    if (strncmp(a, "--socket=", 9) == 0 && a[9] != '\0') {
      o->socket_path = a + 9;
    } else if (strcmp(a, "--delegate=gpu") == 0) {
      o->kind = LG_SERVICE_GPU;
    } else if (strcmp(a, "--delegate=cpu") == 0) {
      o->kind = LG_SERVICE_CPU;
    } else if (strcmp(a, "--gpu_backend=auto") == 0) {
      o->gpu_backend = 0;
    } else if (strcmp(a, "--gpu_backend=cl") == 0) {
      o->gpu_backend = 1;
    } else if (strcmp(a, "--gpu_backend=vk") == 0) {
      o->gpu_backend = 2;
    } else if (strncmp(a, "--num_threads=", 14) == 0 &&
               parse_int(a + 14, -1, &v) == 0 && v != 0) {
      o->num_threads = v;
    } else if (strncmp(a, "--listener_spin_us=", 19) == 0 &&
               parse_int(a + 19, 0, &v) == 0) {
      o->listener_spin_ns = (uint64_t)v * 1000u;
    } else if (strncmp(a, "--test_execute_delay_ms=", 24) == 0 &&
               parse_int(a + 24, 0, &v) == 0) {
      o->test_execute_delay_ms = (unsigned)v;
    } else if (strcmp(a, "--verbose") == 0) {
      o->verbose = true;
    } else {
      fprintf(stderr, "litegpu_service: bad argument: %s\n", a);
      return -1;
    }
  }
  if (o->socket_path == NULL) {
    fprintf(stderr, "litegpu_service: --socket=PATH is required\n");
    return -1;
  }
  return 0;
}

int main(int argc, char** argv) {
  if (lg_tool_help_asked(argc, argv)) {
    help();
    return 0;
  }
  lg_service_options o = lg_service_options_default();
  if (parse(argc, argv, &o) != 0) {
    usage(stderr);
    return 2;
  }
  char error[1024] = "";
  lg_service* s = lg_service_create(&o, error, sizeof(error));
  if (s == NULL) {
    fprintf(stderr, "litegpu_service: %s\n", error);
    return 1;
  }
  g_service = s;
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  printf("litegpu_service: serving %s on %s\n", lg_service_device(s),
         o.socket_path);
  fflush(stdout);
  const int rc = lg_service_run(s);
  g_service = NULL;
  lg_service_destroy(s);
  return rc == 0 ? 0 : 1;
}
