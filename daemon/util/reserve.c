/* reserve.c — see reserve.h.  The file's existence is the whole state, so
 * any thread (the history's writer, the spool's) may release it, and a
 * daemon started on a full file system finds it gone. */
#include "util/reserve.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "util/strutil.h"

/* Allocate the blocks of a new file; on failure it is removed. */
static int create(const char *path, uint64_t bytes)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        int r;

        if (fd < 0)
                return errno == EEXIST ? 0 : -errno;
        r = -posix_fallocate(fd, 0, (off_t)bytes);
        if (r >= 0 && fsync(fd) < 0)
                r = -errno;
        close(fd);
        if (r < 0) {
                (void)unlink(path);
                return r;
        }
        return 1;
}

int reserve_keep(const char *dir, uint64_t bytes)
{
        char *path = str_printf("%s/%s", dir, RESERVE_NAME);
        struct statvfs vfs;
        struct stat st;
        int r;

        if (!path)
                return -ENOMEM;
        if (lstat(path, &st) == 0)
                r = 0;
        else if (errno != ENOENT)
                r = -errno;
        else if (statvfs(dir, &vfs) < 0)
                r = -errno;
        else if ((uint64_t)vfs.f_bavail * vfs.f_frsize < 2 * bytes)
                r = 0;
        else
                r = create(path, bytes);
        free(path);
        return r;
}

bool reserve_make_room(const char *dir, int r)
{
        char *path;
        bool removed;

        if (!dir || (r != -ENOSPC && r != -EDQUOT))
                return false;
        path = str_printf("%s/%s", dir, RESERVE_NAME);
        removed = path && unlink(path) == 0;
        free(path);
        return removed;
}
