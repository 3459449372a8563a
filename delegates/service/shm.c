/* Sealed memfds (shm.h). */
#include "delegates/service/shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SIZE_SEALS (F_SEAL_SHRINK | F_SEAL_GROW)

static int fail(char* error, size_t size, const char* what, int err) {
  if (error != NULL && size > 0) {
    snprintf(error, size, "%s failed: %s", what, strerror(err));
  }
  return -1;
}

static int new_memfd(const char* name, size_t size, char* error,
                     size_t error_size) {
  int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return fail(error, error_size, "memfd_create", errno);
  if (ftruncate(fd, (off_t)size) != 0) {
    const int err = errno;
    close(fd);
    return fail(error, error_size, "ftruncate", err);
  }
  return fd;
}

int lg_shm_create(const char* name, size_t size, int* fd, void** map,
                  char* error, size_t error_size) {
  *fd = -1;
  *map = NULL;
  if (size == 0) size = 1;
  int f = new_memfd(name, size, error, error_size);
  if (f < 0) return -1;
  if (fcntl(f, F_ADD_SEALS, SIZE_SEALS) != 0) {
    const int err = errno;
    close(f);
    return fail(error, error_size, "fcntl(F_ADD_SEALS)", err);
  }
  void* p = lg_shm_map(f, size, true, error, error_size);
  if (p == NULL) {
    close(f);
    return -1;
  }
  *fd = f;
  *map = p;
  return 0;
}

int lg_shm_create_sealed_copy(const char* name, const void* data, size_t size,
                              char* error, size_t error_size) {
  int fd = new_memfd(name, size ? size : 1, error, error_size);
  if (fd < 0) return -1;
  const char* p = data;
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(fd, p + done, size - done, (off_t)done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      close(fd);
      return fail(error, error_size, "pwrite", err);
    }
    done += (size_t)n;
  }
  if (fcntl(fd, F_ADD_SEALS, SIZE_SEALS | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
    const int err = errno;
    close(fd);
    return fail(error, error_size, "fcntl(F_ADD_SEALS)", err);
  }
  return fd;
}

int lg_shm_check(int fd, size_t min_size, bool need_write_seal, size_t* size,
                 char* error, size_t error_size) {
  struct stat st;
  if (fstat(fd, &st) != 0) return fail(error, error_size, "fstat", errno);
  if (!S_ISREG(st.st_mode)) {
    snprintf(error, error_size, "the descriptor is not a memory file");
    return -1;
  }
  const int seals = fcntl(fd, F_GET_SEALS);
  if (seals < 0) return fail(error, error_size, "fcntl(F_GET_SEALS)", errno);
  if ((seals & F_SEAL_SHRINK) == 0 ||
      (need_write_seal && (seals & F_SEAL_WRITE) == 0)) {
    snprintf(error, error_size,
             "the memory file is not sealed against %s (seals 0x%x)",
             (seals & F_SEAL_SHRINK) == 0 ? "shrinking" : "writes", seals);
    return -1;
  }
  if (st.st_size < 0 || (uint64_t)st.st_size < (uint64_t)min_size) {
    snprintf(error, error_size,
             "the memory file holds %lld bytes, fewer than the %zu needed",
             (long long)st.st_size, min_size);
    return -1;
  }
  *size = (size_t)st.st_size;
  return 0;
}

void* lg_shm_map(int fd, size_t size, bool writable, char* error,
                 size_t error_size) {
  const int prot = PROT_READ | (writable ? PROT_WRITE : 0);
  void* p = mmap(NULL, size ? size : 1, prot, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    fail(error, error_size, "mmap", errno);
    return NULL;
  }
  return p;
}

void lg_shm_unmap(void* map, size_t size) {
  if (map != NULL) munmap(map, size ? size : 1);
}
