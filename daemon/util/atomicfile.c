/* atomicfile.c — see atomicfile.h. */
#include "util/atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fdio.h"
#include "util/strutil.h"

int fsync_directory(const char *dir)
{
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        int r = fsync(fd) < 0 ? -errno : 0;
        close(fd);
        return r;
}

int write_file_atomic(const char *dir, const char *path, const void *data, size_t len,
                      mode_t mode)
{
        char *tmp = str_printf("%s.tmp-XXXXXX", path);
        if (!tmp)
                return -ENOMEM;
        int fd = mkostemp(tmp, O_CLOEXEC);
        int r = fd < 0 ? -errno : 0;
        if (r >= 0)
                r = fd_write_all(fd, data, len);
        if (r >= 0 && fchmod(fd, mode) < 0)
                r = -errno;
        if (r >= 0 && fsync(fd) < 0)
                r = -errno;
        if (fd >= 0 && close(fd) < 0 && r >= 0)
                r = -errno;
        if (r >= 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0 && fd >= 0)
                unlink(tmp);
        if (r >= 0)
                r = fsync_directory(dir);
        free(tmp);
        return r;
}
