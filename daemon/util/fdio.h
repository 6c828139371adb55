/* fdio.h — whole writes and reads on file descriptors, retried across
 * EINTR and short transfers: the runner's pipes carry one message each. */
#ifndef BENCHWATCH_FDIO_H
#define BENCHWATCH_FDIO_H

#include <stddef.h>
#include <stdint.h>

/* 0, or -errno. */
int fd_write_all(int fd, const void *buf, size_t size);
/* Everything until EOF into a malloc'd buffer of at most max bytes.
 * 0, -EFBIG when there is more, -ENOMEM, or -errno. */
int fd_read_all(int fd, size_t max, uint8_t **ret, size_t *ret_size);
/* The start of a small file (a /proc or /sys file of a few lines) into
 * buf, NUL-terminated: at most size - 1 bytes.  0 or -errno. */
int file_read_small(const char *path, char *buf, size_t size);

#endif
