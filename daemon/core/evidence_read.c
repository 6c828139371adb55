/* evidence_read.c — see evidence_read.h. */
#include "core/evidence_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "core/sysparse.h"

#define CPU_STAT_MAX 1024 /* a v2 cpu.stat is about 300 bytes */

/* All of fd from offset 0 into buf (size - 1 bytes at most). */
static int read_from_start(int fd, char *buf, size_t size)
{
        size_t len = 0;
        while (len + 1 < size) {
                ssize_t n = pread(fd, buf + len, size - 1 - len, (off_t)len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        buf[len] = 0;
        return len + 1 >= size ? -EFBIG : 0;
}

static int open_file(struct evidence_file *f)
{
        f->fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        return f->fd < 0 ? -errno : 0;
}

int evidence_read_file(struct evidence_file *f, char *buf, size_t size)
{
        int r = f->fd >= 0 ? 0 : open_file(f);
        if (r >= 0)
                r = read_from_start(f->fd, buf, size);
        if (r < 0 && r != -EFBIG && f->keep && f->fd >= 0) {
                /* the file may have gone and come back: once more, afresh */
                evidence_read_close(f);
                if ((r = open_file(f)) >= 0)
                        r = read_from_start(f->fd, buf, size);
        }
        if (!f->keep || r < 0)
                evidence_read_close(f);
        return r;
}

void evidence_read_close(struct evidence_file *f)
{
        if (f->fd >= 0)
                close(f->fd);
        f->fd = -1;
}

int evidence_read_whole(const char *path, char *buf, size_t size)
{
        struct evidence_file f = { .path = (char *)path, .fd = -1 };
        return evidence_read_file(&f, buf, size);
}

int evidence_read_counter(struct evidence_file *f, double *ret)
{
        char buf[32];
        uint64_t v;
        int r = evidence_read_file(f, buf, sizeof(buf));
        if (r >= 0)
                r = sysparse_u64(buf, &v);
        if (r >= 0)
                *ret = (double)v;
        return r;
}

int evidence_read_cgroup_stat(struct evidence_file *f, struct evidence_cgroup_stat *ret)
{
        char buf[CPU_STAT_MAX];
        double periods, throttled, us;
        int r = evidence_read_file(f, buf, sizeof(buf));
        if (r >= 0)
                r = sysparse_keyed(buf, "nr_periods", &periods);
        if (r >= 0)
                r = sysparse_keyed(buf, "nr_throttled", &throttled);
        if (r >= 0) {
                r = sysparse_keyed(buf, "throttled_usec", &us);
                if (r == -ENOENT && (r = sysparse_keyed(buf, "throttled_time", &us)) >= 0)
                        us /= 1e3; /* v1: nanoseconds */
        }
        if (r < 0)
                return r;
        *ret = (struct evidence_cgroup_stat){ periods, throttled, us };
        return 0;
}
