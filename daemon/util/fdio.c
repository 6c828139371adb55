/* fdio.c — see fdio.h. */
#include "util/fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

int fdio_write_all(int fd, const void *buf, size_t size)
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

int fdio_read_all(int fd, size_t max, uint8_t **ret, size_t *ret_size)
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

int fdio_read_file(const char *path, size_t max, char **ret, size_t *ret_len,
                   struct stat *ret_st)
{
        struct stat st;
        char *buf = NULL;
        size_t n = 0;
        int r = 0;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

        if (fd < 0 || fstat(fd, &st) < 0)
                r = -errno;
        else if (S_ISDIR(st.st_mode))
                r = -EISDIR;
        else if (!S_ISREG(st.st_mode))
                r = -EINVAL;
        else if ((uintmax_t)st.st_size > max)
                r = -EFBIG;
        else if (!(buf = malloc((size_t)st.st_size + 1)))
                r = -ENOMEM;
        while (r == 0 && n < (size_t)st.st_size) {
                ssize_t k = read(fd, buf + n, (size_t)st.st_size - n);
                if (k < 0 && errno != EINTR)
                        r = -errno;
                else if (k == 0)
                        break; /* shorter than fstat said: take what is there */
                else if (k > 0)
                        n += (size_t)k;
        }
        if (fd >= 0)
                close(fd);
        if (r < 0) {
                free(buf);
                return r;
        }
        buf[n] = 0;
        *ret = buf;
        *ret_len = n;
        if (ret_st)
                *ret_st = st;
        return 0;
}

int fdio_read_proc(const char *path, size_t max, char **ret)
{
        uint8_t *buf = NULL;
        size_t len = 0;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        int r = fd < 0 ? -errno : fdio_read_all(fd, max, &buf, &len);
        if (fd >= 0)
                close(fd);
        if (r >= 0 && len > max) /* read_all's buffer may hold a little more */
                r = -EFBIG;
        char *text = r >= 0 ? realloc(buf, len + 1) : NULL;
        if (r >= 0 && !text)
                r = -ENOMEM;
        if (r < 0) {
                free(buf);
                return r;
        }
        text[len] = 0;
        *ret = text;
        return 0;
}

int fdio_read_small(const char *path, char *buf, size_t size)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        size_t len = 0;
        while (len + 1 < size) {
                ssize_t n = read(fd, buf + len, size - 1 - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        int r = -errno;
                        close(fd);
                        return r;
                }
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        close(fd);
        buf[len] = 0;
        return 0;
}

int fdio_read_sysfs(const char *dir, const char *name, char *buf, size_t size)
{
        char path[4096];

        if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
                return -ENAMETOOLONG;
        int r = fdio_read_small(path, buf, size);
        if (r < 0)
                return r;
        size_t len = strlen(buf);
        while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\t'))
                buf[--len] = 0;
        return 0;
}
