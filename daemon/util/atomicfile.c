/* atomicfile.c — see atomicfile.h. */
#include "util/atomicfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fdio.h"
#include "util/strutil.h"

int atomicfile_fsync_dir(const char *dir)
{
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        int r = fsync(fd) < 0 ? -errno : 0;
        close(fd);
        return r;
}

#define TEMP_SUFFIX ".tmp-XXXXXX"

int atomicfile_write(const char *dir, const char *path, const void *data, size_t len,
                     mode_t mode)
{
        char *tmp = str_printf("%s" TEMP_SUFFIX, path);
        if (!tmp)
                return -ENOMEM;
        int fd = mkostemp(tmp, O_CLOEXEC);
        int r = fd < 0 ? -errno : 0;
        if (r >= 0)
                r = fdio_write_all(fd, data, len);
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
                r = atomicfile_fsync_dir(dir);
        free(tmp);
        return r;
}

/* NAME.tmp- and the six characters mkostemp() put for XXXXXX. */
static bool is_atomic_temp(const char *name)
{
        size_t n = strlen(name), k = strlen(TEMP_SUFFIX);
        return n > k && !strncmp(name + n - k, TEMP_SUFFIX, k - 6);
}

int atomicfile_remove_temps(const char *dir)
{
        DIR *d = opendir(dir);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        int removed = 0, r = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                struct stat st;
                if (!is_atomic_temp(de->d_name) ||
                    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                    !S_ISREG(st.st_mode))
                        continue;
                if (unlinkat(dirfd(d), de->d_name, 0) == 0)
                        removed++;
                else if (errno != ENOENT && r == 0)
                        r = -errno;
        }
        closedir(d);
        return r < 0 ? r : removed;
}
