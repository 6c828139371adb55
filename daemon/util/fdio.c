/* fdio.c — see fdio.h. */
#include "fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int fd_write_all(int fd, const void *buf, size_t size)
{
        const uint8_t *p = buf;
        while (size) {
                ssize_t n = write(fd, p, size);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                p += n;
                size -= (size_t)n;
        }
        return 0;
}

int fd_read_all(int fd, size_t max, uint8_t **ret, size_t *ret_size)
{
        size_t size = 0, cap = 4096;
        uint8_t *buf = malloc(cap);
        int r = buf ? 0 : -ENOMEM;
        while (r == 0) {
                if (size == cap) {
                        uint8_t *nb = cap < max ? realloc(buf, cap * 2) : NULL;
                        if (!nb) {
                                r = cap < max ? -ENOMEM : -EFBIG;
                                break;
                        }
                        buf = nb;
                        cap *= 2;
                }
                ssize_t n = read(fd, buf + size, cap - size);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        r = -errno;
                else if (n == 0)
                        break;
                else
                        size += (size_t)n;
        }
        if (r < 0) {
                free(buf);
                return r;
        }
        *ret = buf;
        *ret_size = size;
        return 0;
}

int file_read_small(const char *path, char *buf, size_t size)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        size_t len = 0;
        int r = fd < 0 ? -errno : 0;
        while (r == 0 && len + 1 < size) {
                ssize_t n = read(fd, buf + len, size - 1 - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        r = -errno;
                if (n <= 0)
                        break;
                len += (size_t)n;
        }
        if (fd >= 0)
                close(fd);
        if (r == 0)
                buf[len] = 0;
        return r;
}
