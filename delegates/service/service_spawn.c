/* lg_service_spawn (service_server.h): a service in a forked child, for
 * tests and benchmarks that want a real second process without finding
 * the litegpu_service binary. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "delegates/service/channel.h"
#include "delegates/service/service_server.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

static lg_service* g_spawned;

static void on_stop_signal(int sig) {
  (void)sig;
  if (g_spawned != NULL) lg_service_stop(g_spawned);
}

static void child(const lg_service_options* options) {
  char error[1024] = "";
  lg_service* s = lg_service_create(options, error, sizeof(error));
  if (s == NULL) {
    fprintf(stderr, "litegpu service (child): %s\n", error);
    _exit(1);
  }
  g_spawned = s;
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  const int rc = lg_service_run(s);
  g_spawned = NULL;
  lg_service_destroy(s);
#ifdef __SANITIZE_ADDRESS__
  /* _exit skips LeakSanitizer's exit check: a leak in the service then
   * ends the child with LeakSanitizer's status, which its owner sees. */
  __lsan_do_leak_check();
#endif
  _exit(rc == 0 ? 0 : 1);
}

pid_t lg_service_spawn(const lg_service_options* options, int timeout_ms,
                       char* error, size_t error_size) {
  const pid_t pid = fork();
  if (pid < 0) {
    snprintf(error, error_size, "fork failed: %s", strerror(errno));
    return -1;
  }
  if (pid == 0) child(options);
  const uint64_t deadline = lg_now_ns() + (uint64_t)timeout_ms * 1000000u;
  for (;;) {
    char why[256];
    const int fd = lg_channel_connect(options->socket_path, why, sizeof(why));
    if (fd >= 0) {
      close(fd);
      return pid;
    }
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      snprintf(error, error_size, "the service exited during start (%s %d)",
               WIFEXITED(status) ? "status" : "signal",
               WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
      return -1;
    }
    if (lg_now_ns() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      snprintf(error, error_size, "the service did not listen within %d ms",
               timeout_ms);
      return -1;
    }
    usleep(5000);
  }
}
