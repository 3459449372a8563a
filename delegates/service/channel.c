/* The control channel (channel.h). */
#include "delegates/service/channel.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

struct lg_channel {
  int fd;
  pthread_mutex_t send_lock;
  uint8_t send_buffer[LG_WIRE_HEADER_SIZE + LG_WIRE_MAX_MESSAGE];
  /* One byte more than the largest record, so that a larger one shows as
   * truncated. */
  uint8_t recv_buffer[LG_WIRE_HEADER_SIZE + LG_WIRE_MAX_MESSAGE + 1];
};

static int set_address(struct sockaddr_un* addr, const char* path, char* error,
                       size_t error_size) {
  memset(addr, 0, sizeof(*addr));
  addr->sun_family = AF_UNIX;
  if (path == NULL || path[0] == '\0' ||
      strlen(path) >= sizeof(addr->sun_path)) {
    snprintf(error, error_size,
             "socket path \"%s\" is empty or longer than %zu bytes",
             path ? path : "", sizeof(addr->sun_path) - 1);
    return -1;
  }
  memcpy(addr->sun_path, path, strlen(path) + 1);
  return 0;
}

int lg_channel_connect(const char* path, char* error, size_t error_size) {
  struct sockaddr_un addr;
  if (set_address(&addr, path, error, error_size) != 0) return -1;
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    snprintf(error, error_size, "socket failed: %s", strerror(errno));
    return -1;
  }
  int rc;
  do {
    rc = connect(fd, (struct sockaddr*)&addr, sizeof(addr));
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    snprintf(error, error_size, "cannot connect to %s: %s", path,
             strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

int lg_channel_listen(const char* path, char* error, size_t error_size) {
  struct sockaddr_un addr;
  if (set_address(&addr, path, error, error_size) != 0) return -1;
  struct stat st;
  if (lstat(path, &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      snprintf(error, error_size, "%s exists and is not a socket", path);
      return -1;
    }
    char ignored[256];
    const int live = lg_channel_connect(path, ignored, sizeof(ignored));
    if (live >= 0) {
      close(live);
      snprintf(error, error_size, "a service already listens on %s", path);
      return -1;
    }
    unlink(path); /* stale: left by a service that died */
  }
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    snprintf(error, error_size, "socket failed: %s", strerror(errno));
    return -1;
  }
  if (bind(fd, (struct sockaddr*)&addr, sizeof(addr)) != 0 ||
      listen(fd, 16) != 0) {
    snprintf(error, error_size, "cannot listen on %s: %s", path,
             strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

lg_channel* lg_channel_create(int fd) {
  lg_channel* ch = malloc(sizeof(*ch));
  if (ch == NULL) {
    close(fd);
    return NULL;
  }
  ch->fd = fd;
  pthread_mutex_init(&ch->send_lock, NULL);
  return ch;
}

void lg_channel_destroy(lg_channel* ch) {
  if (ch == NULL) return;
  close(ch->fd);
  pthread_mutex_destroy(&ch->send_lock);
  free(ch);
}

int lg_channel_fd(const lg_channel* ch) { return ch->fd; }

void lg_channel_shutdown(lg_channel* ch) { shutdown(ch->fd, SHUT_RDWR); }

static bool hung_up(int err) {
  return err == EPIPE || err == ECONNRESET || err == ENOTCONN ||
         err == ECONNREFUSED;
}

lg_channel_status lg_channel_send(lg_channel* ch, const lg_wire_msg* msg,
                                  char* error, size_t error_size) {
  const int nfds = lg_wire_fds_needed(msg);
  if (nfds > msg->num_fds) {
    snprintf(error, error_size, "%s needs %d descriptors, has %d",
             lg_wire_type_name(msg->type), nfds, msg->num_fds);
    return LG_CHANNEL_ERROR;
  }
  pthread_mutex_lock(&ch->send_lock);
  size_t size = 0;
  if (lg_wire_encode(msg, ch->send_buffer, sizeof(ch->send_buffer), &size,
                     error, error_size) != 0) {
    pthread_mutex_unlock(&ch->send_lock);
    return LG_CHANNEL_ERROR;
  }
  struct iovec iov = {ch->send_buffer, size};
  union {
    char buf[CMSG_SPACE(sizeof(int) * LG_WIRE_MAX_FDS)];
    struct cmsghdr align;
  } control;
  struct msghdr mh = {0};
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  if (nfds > 0) {
    memset(&control, 0, sizeof(control));
    mh.msg_control = control.buf;
    mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
    struct cmsghdr* c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
    memcpy(CMSG_DATA(c), msg->fds, sizeof(int) * (size_t)nfds);
  }
  ssize_t n;
  do {
    n = sendmsg(ch->fd, &mh, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  const int err = errno;
  pthread_mutex_unlock(&ch->send_lock);
  if (n == (ssize_t)size) return LG_CHANNEL_OK;
  if (n < 0 && hung_up(err)) {
    snprintf(error, error_size, "the peer closed the connection");
    return LG_CHANNEL_CLOSED;
  }
  snprintf(error, error_size, "sendmsg failed: %s",
           n < 0 ? strerror(err) : "short write");
  return LG_CHANNEL_ERROR;
}

/* Collects the SCM_RIGHTS descriptors of a record; any beyond the limit
 * (or in a truncated control buffer) are closed and make it malformed. */
static bool take_fds(struct msghdr* mh, int* fds, int* count) {
  bool ok = (mh->msg_flags & MSG_CTRUNC) == 0;
  *count = 0;
  for (struct cmsghdr* c = CMSG_FIRSTHDR(mh); c != NULL;
       c = CMSG_NXTHDR(mh, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < n; ++i) {
      int fd;
      memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      if (*count < LG_WIRE_MAX_FDS) {
        fds[(*count)++] = fd;
      } else {
        close(fd);
        ok = false;
      }
    }
  }
  return ok;
}

static void close_all(const int* fds, int count) {
  for (int i = 0; i < count; ++i) close(fds[i]);
}

lg_channel_status lg_channel_recv(lg_channel* ch, lg_wire_msg* msg,
                                  int timeout_ms, char* error,
                                  size_t error_size) {
  lg_wire_msg_init(msg, 0);
  struct pollfd p = {ch->fd, POLLIN, 0};
  int rc;
  do {
    rc = poll(&p, 1, timeout_ms);
  } while (rc < 0 && errno == EINTR);
  if (rc == 0) return LG_CHANNEL_TIMEOUT;
  if (rc < 0) {
    snprintf(error, error_size, "poll failed: %s", strerror(errno));
    return LG_CHANNEL_ERROR;
  }
  struct iovec iov = {ch->recv_buffer, sizeof(ch->recv_buffer)};
  union {
    char buf[CMSG_SPACE(sizeof(int) * (LG_WIRE_MAX_FDS + 2))];
    struct cmsghdr align;
  } control;
  struct msghdr mh = {0};
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  mh.msg_control = control.buf;
  mh.msg_controllen = sizeof(control.buf);
  ssize_t n;
  do {
    n = recvmsg(ch->fd, &mh, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n == 0 || (n < 0 && hung_up(errno))) {
    snprintf(error, error_size, "the peer closed the connection");
    return LG_CHANNEL_CLOSED;
  }
  if (n < 0) {
    snprintf(error, error_size, "recvmsg failed: %s", strerror(errno));
    return LG_CHANNEL_ERROR;
  }
  int fds[LG_WIRE_MAX_FDS];
  int nfds = 0;
  const bool fds_ok = take_fds(&mh, fds, &nfds);
  if (!fds_ok || (mh.msg_flags & MSG_TRUNC) ||
      (size_t)n > LG_WIRE_HEADER_SIZE + LG_WIRE_MAX_MESSAGE) {
    snprintf(error, error_size, "malformed record: %zd bytes%s, descriptors %s",
             n, (mh.msg_flags & MSG_TRUNC) ? " (truncated)" : "",
             fds_ok ? "ok" : "beyond the limit");
    close_all(fds, nfds);
    return LG_CHANNEL_MALFORMED;
  }
  if (lg_wire_decode(ch->recv_buffer, (size_t)n, fds, nfds, msg, error,
                     error_size) != 0) {
    close_all(fds, nfds);
    return LG_CHANNEL_MALFORMED;
  }
  return LG_CHANNEL_OK;
}

bool lg_channel_peer_gone(const lg_channel* ch) {
  struct pollfd p = {ch->fd, POLLIN | POLLRDHUP, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  return (p.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL)) != 0;
}
