/* evidence_read.c — see evidence_read.h. */
#include "core/evidence_read.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "core/sysparse.h"
#include "util/fdio.h"

#define CPU_STAT_MAX 1024 /* a v2 cpu.stat is about 300 bytes */

int evidence_read_whole(const char *path, char *buf, size_t size)
{
        int r = read_small_file(path, buf, size);
        if (r >= 0 && strlen(buf) >= size - 1)
                return -EFBIG;
        return r;
}

int evidence_read_counter(const char *path, double *ret)
{
        char buf[32];
        uint64_t v;
        int r = evidence_read_whole(path, buf, sizeof(buf));
        if (r >= 0)
                r = sysparse_u64(buf, &v);
        if (r >= 0)
                *ret = (double)v;
        return r;
}

int evidence_read_cgroup_stat(const char *path, struct evidence_cgroup_stat *ret)
{
        char buf[CPU_STAT_MAX];
        double periods, throttled, us;
        int r = evidence_read_whole(path, buf, sizeof(buf));
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
