/* Shared memory for the service (docs/service.md): anonymous memory files
 * (memfd) that travel between processes as file descriptors.
 *
 * The creator sizes a memfd and seals it against shrinking and growing, so
 * that a peer which maps it can never touch a page that disappears under
 * it (a shrunk file would raise SIGBUS in the peer). The receiver never
 * trusts a size it is told: lg_shm_check reads the file's real size and
 * seals and refuses a file that could still shrink.
 *
 *   int fd = -1;
 *   void* p = NULL;
 *   if (lg_shm_create("pool", 4096, &fd, &p, err, sizeof(err)) != 0) ...
 *   ... send fd; the peer: lg_shm_check(fd, 4096, false, &size, ...) and
 *   lg_shm_map(fd, size, true, ...)
 *   lg_shm_unmap(p, 4096); close(fd);
 *
 * Thread safety: the functions keep no state.
 */
#ifndef LITEGPU_DELEGATES_SERVICE_SHM_H_
#define LITEGPU_DELEGATES_SERVICE_SHM_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A memfd of `size` bytes (at least 1), sealed against shrinking and
 * growing, mapped read-write into *map. Returns 0, or -1 with the reason in
 * `error`. The caller owns *fd (close-on-exec) and the mapping. */
int lg_shm_create(const char* name, size_t size, int* fd, void** map,
                  char* error, size_t error_size);

/* A memfd holding a copy of `data`, sealed against every change (writes
 * included): the receiver may map it read-only and trust that it stays as
 * it was checked. Returns the descriptor, or -1 with the reason. */
int lg_shm_create_sealed_copy(const char* name, const void* data, size_t size,
                              char* error, size_t error_size);

/* Checks a received descriptor: a regular file of at least `min_size`
 * bytes, sealed against shrinking (and against writes when
 * `need_write_seal`). Writes its real size into *size. Returns 0, or -1
 * with the reason. */
int lg_shm_check(int fd, size_t min_size, bool need_write_seal, size_t* size,
                 char* error, size_t error_size);

/* Maps `size` bytes of `fd` shared (read-write or read-only). NULL with the
 * reason on failure. */
void* lg_shm_map(int fd, size_t size, bool writable, char* error,
                 size_t error_size);

/* Unmaps a mapping from lg_shm_create or lg_shm_map; NULL is a no-op. */
void lg_shm_unmap(void* map, size_t size);

#endif /* LITEGPU_DELEGATES_SERVICE_SHM_H_ */
