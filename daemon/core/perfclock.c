/* perfclock.c — see perfclock.h. */
#include "core/perfclock.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct perfclock {
        int cycles, task;
};

static int open_counter(uint32_t type, uint64_t config, pid_t pid)
{
        struct perf_event_attr a;
        memset(&a, 0, sizeof(a));
        a.size = sizeof(a);
        a.type = type;
        a.config = config;
        a.inherit = 1;
        a.exclude_hv = 1;
        a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
        long fd = syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
        return fd < 0 ? -errno : (int)fd;
}

int perfclock_open(pid_t pid, struct perfclock **ret)
{
        struct perfclock *p = malloc(sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->task = -1;
        p->cycles = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, pid);
        if (p->cycles >= 0)
                p->task = open_counter(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, pid);
        int r = p->cycles < 0 ? p->cycles : p->task < 0 ? p->task : 0;
        if (r < 0) {
                perfclock_free(p);
                return r;
        }
        *ret = p;
        return 0;
}

/* A counter's value, scaled by enabled / running time when the PMU was
 * shared; -ENODATA when it never ran. */
static int read_counter(int fd, double *ret)
{
        uint64_t v[3]; /* value, time enabled, time running */
        ssize_t n = read(fd, v, sizeof(v));
        if (n < 0)
                return -errno;
        if (n != (ssize_t)sizeof(v))
                return -EIO;
        if (!v[2])
                return v[0] ? -EIO : -ENODATA;
        *ret = (double)v[0] * ((double)v[1] / (double)v[2]);
        return 0;
}

int perfclock_read(const struct perfclock *p, double *ret_cycles, double *ret_task_ns)
{
        double c, t;
        int r = read_counter(p->cycles, &c);
        if (r >= 0)
                r = read_counter(p->task, &t);
        if (r < 0)
                return r;
        *ret_cycles = c;
        *ret_task_ns = t;
        return 0;
}

void perfclock_free(struct perfclock *p)
{
        if (!p)
                return;
        if (p->cycles >= 0)
                close(p->cycles);
        if (p->task >= 0)
                close(p->task);
        free(p);
}
