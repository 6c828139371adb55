/* fdio.h — whole writes and reads on file descriptors, retried across
 * EINTR and short transfers: the runner's pipes carry one message each;
 * whole files (configuration, baselines); and the start of small kernel
 * files (/proc, /sys), which every module that looks at the host reads
 * the same way. */
#ifndef BENCHWATCH_FDIO_H
#define BENCHWATCH_FDIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* 0, or -errno. */
int fdio_write_all(int fd, const void *buf, size_t size);
/* Everything until EOF into a malloc'd buffer of at most max bytes.
 * 0, -EFBIG when there is more, -ENOMEM, or -errno. */
int fdio_read_all(int fd, size_t max, uint8_t **ret, size_t *ret_size);
/* The whole regular file at path (a configuration, a baseline), read as
 * fstat(2) sized it, NUL-terminated, in a malloc'd buffer; *ret_st (may
 * be NULL) gets its stat.  0, -EISDIR, -EINVAL (not a regular file),
 * -EFBIG (more than max bytes), -ENOMEM or -errno.  Opened O_NONBLOCK, so
 * a FIFO in its place is refused, not waited on. */
int fdio_read_file(const char *path, size_t max, char **ret, size_t *ret_len,
                   struct stat *ret_st);
/* The start of the file at path (at most size - 1 bytes), NUL-terminated.
 * 0 or -errno. */
int fdio_read_small(const char *path, char *buf, size_t size);
/* The whole of a kernel file at path however long (/proc says a size of
 * 0: read to its end), at most max bytes, NUL-terminated, in a malloc'd
 * buffer: a list of devices is not cut inside a line.  0, -EFBIG,
 * -ENOMEM or -errno. */
int fdio_read_proc(const char *path, size_t max, char **ret);
/* The same for dir/name, with trailing white space (the newline of a sysfs
 * attribute) removed. 0, -ENAMETOOLONG or -errno. */
int fdio_read_sysfs(const char *dir, const char *name, char *buf, size_t size);

#endif
