/* yield.c — see yield.h.  How the probe's own use is told from others':
 *
 * CPU.  Others' CPU time is the host's busy time (the user, nice, system,
 * irq and softirq jiffies of /proc/stat) minus the probe process's utime
 * + stime (/proc/PID/stat, which sums all its threads), as a share of the
 * CPU time the host was given over the sample: steal (the hypervisor's
 * other guests) is left out of both, as nothing here can yield to it.
 * A share of all the time, steal included, could never reach a limit of
 * 90% on a VM losing 10% to steal, however saturated its services.  Chosen over the runnable count
 * (procs_running minus the probe's running threads): that is one instant,
 * noisy, and does not say how much CPU the others got; and over PSI cpu,
 * which a probe with as many threads as CPUs drives up itself and whose
 * avg10 takes seconds to move.  A hog at the probe's nice or lower (the
 * probe runs at nice 10) gets most of the CPU it wants, so it shows.
 *
 * I/O (probes that do disk I/O).  Others' I/O is the bytes read and
 * written by the whole physical disks of /proc/diskstats (those with a
 * /sys/block/NAME/device: partitions, dm, md and loop devices would count
 * the same I/O twice) minus the probe's read_bytes + write_bytes
 * (/proc/PID/io), per second.  Direct I/O (the disk probe's default) is
 * accounted as it is submitted, so the two agree; buffered writes (the
 * test file being written) are accounted when dirtied and reach the disk
 * later, at writeback or the final fdatasync.  So the difference is kept
 * cumulative from the run's start and only its rise above its highest
 * point so far counts as others' I/O: the probe's own writes in flight are
 * a credit that its writeback uses up first (others' I/O meanwhile is
 * masked by as much: erring on the side of not yielding).  PSI io "some"
 * cannot tell: a disk probe stalls on I/O by design.
 *
 * Memory.  The growth of PSI memory "some total" over the sample: a probe
 * stalls on memory only when the host is short of it, and then it should
 * step aside whoever caused it.
 *
 * A sample is over a limit for one resource; YIELD_SAMPLES in a row (half
 * a second) decide, so one burst (a cron job's start) does not. */
#include "core/yield.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fdio.h"
#include "util/strutil.h"
#include "util/timeutil.h"

#define STAT_MAX 4096            /* the "cpu" line is first in /proc/stat */
#define DISKSTATS_MAX (64 << 10)
#define MAX_DISKS 64

enum { R_CPU, R_IO, R_MEMORY, R_N };
static const char *const reasons[R_N] = { "cpu", "io", "memory" };

struct sample {
        double mono;
        double busy, total;      /* host jiffies */
        double probe_cpu;        /* jiffies (USER_HZ, as /proc/stat) */
        double disk_bytes, probe_bytes;
        double psi_memory_us;
};

struct yield_monitor {
        struct yield_limits lim;
        pid_t pid;
        bool disk_io;
        char *disks[MAX_DISKS];  /* names of the physical disks */
        size_t n_disks;
        struct sample first, last;
        double io_high;          /* highest cumulative others' I/O so far */
        unsigned over[R_N];      /* samples in a row over the limit */
};

bool yield_limits_any(const struct yield_limits *lim)
{
        return lim && (lim->cpu > 0 || lim->io > 0 || lim->memory > 0);
}

/* user nice system idle iowait irq softirq steal of the "cpu" line. */
int yield_host_cpu(const char *path, double *ret_busy, double *ret_total)
{
        char buf[STAT_MAX];
        double f[8];
        int r = read_small_file(path, buf, sizeof(buf));
        if (r < 0)
                return r;
        if (strncmp(buf, "cpu ", 4) ||
            sscanf(buf + 4, "%lf %lf %lf %lf %lf %lf %lf %lf", &f[0], &f[1], &f[2], &f[3],
                   &f[4], &f[5], &f[6], &f[7]) != 8)
                return -EINVAL;
        *ret_busy = f[0] + f[1] + f[2] + f[5] + f[6];
        *ret_total = f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6];
        return 0;
}

/* utime + stime of /proc/PID/stat (fields 14 and 15, after the comm). */
static int read_probe_cpu(pid_t pid, double *ret)
{
        char path[64], buf[1024];
        unsigned long long ut, st;
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        int r = read_small_file(path, buf, sizeof(buf));
        if (r < 0)
                return r;
        const char *p = strrchr(buf, ')');
        if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
                         &ut, &st) != 2)
                return -EINVAL;
        *ret = (double)(ut + st);
        return 0;
}

/* read_bytes + write_bytes of /proc/PID/io. */
static int read_probe_io(pid_t pid, double *ret)
{
        char path[64], buf[1024];
        unsigned long long rb = 0, wb = 0;
        snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
        int r = read_small_file(path, buf, sizeof(buf));
        if (r < 0)
                return r;
        const char *p = strstr(buf, "\nread_bytes: "), *q = strstr(buf, "\nwrite_bytes: ");
        if (!p || !q || sscanf(p, "\nread_bytes: %llu", &rb) != 1 ||
            sscanf(q, "\nwrite_bytes: %llu", &wb) != 1)
                return -EINVAL;
        *ret = (double)(rb + wb);
        return 0;
}

static bool is_disk(const struct yield_monitor *m, const char *name)
{
        for (size_t i = 0; i < m->n_disks; i++)
                if (!strcmp(m->disks[i], name))
                        return true;
        return false;
}

/* Sectors read and written (fields 6 and 10) of the physical disks. */
static int read_disks(const struct yield_monitor *m, double *ret_bytes)
{
        char *buf = malloc(DISKSTATS_MAX), name[64];
        unsigned long long rd, wr;
        double sum = 0;
        int r = buf ? read_small_file("/proc/diskstats", buf, DISKSTATS_MAX) : -ENOMEM;
        for (char *line = buf; r >= 0 && line && *line;) {
                char *next = strchr(line, '\n');
                if (sscanf(line, " %*u %*u %63s %*u %*u %llu %*u %*u %*u %llu", name, &rd,
                           &wr) == 3 && is_disk(m, name))
                        sum += (double)(rd + wr) * 512;
                line = next ? next + 1 : NULL;
        }
        free(buf);
        if (r >= 0)
                *ret_bytes = sum;
        return r;
}

static void find_disks(struct yield_monitor *m)
{
        DIR *d = opendir("/sys/block");
        struct dirent *e;
        char path[300];
        struct stat st;
        while (d && m->n_disks < MAX_DISKS && (e = readdir(d))) {
                snprintf(path, sizeof(path), "/sys/block/%s/device", e->d_name);
                if (e->d_name[0] != '.' && stat(path, &st) == 0 &&
                    (m->disks[m->n_disks] = strdup(e->d_name)))
                        m->n_disks++;
        }
        if (d)
                closedir(d);
}

/* "some total=" of /proc/pressure/memory, or NAN-free 0 when absent. */
static double read_psi_memory(void)
{
        char buf[512];
        const char *p;
        double v = 0;
        if (read_small_file("/proc/pressure/memory", buf, sizeof(buf)) < 0 ||
            strncmp(buf, "some ", 5) || !(p = strstr(buf, " total=")) ||
            sscanf(p, " total=%lf", &v) != 1)
                return 0;
        return v;
}

static int take(const struct yield_monitor *m, struct sample *s)
{
        int r = yield_host_cpu("/proc/stat", &s->busy, &s->total);
        if (r >= 0)
                r = read_probe_cpu(m->pid, &s->probe_cpu);
        if (r >= 0 && m->disk_io && m->lim.io > 0) {
                r = read_disks(m, &s->disk_bytes);
                if (r >= 0)
                        r = read_probe_io(m->pid, &s->probe_bytes);
        }
        s->psi_memory_us = m->lim.memory > 0 ? read_psi_memory() : 0;
        s->mono = now_mono();
        return r;
}

int yield_monitor_new(const struct yield_limits *lim, pid_t pid, bool disk_io,
                      struct yield_monitor **ret)
{
        struct yield_monitor *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->lim = *lim;
        m->pid = pid;
        m->disk_io = disk_io;
        if (disk_io && lim->io > 0)
                find_disks(m);
        int r = take(m, &m->first);
        m->last = m->first;
        if (r < 0) {
                yield_monitor_free(m);
                return r;
        }
        *ret = m;
        return 0;
}

/* Others' new I/O bytes up to b: the rise of the cumulative difference
 * above its highest point so far. */
static double others_io(struct yield_monitor *m, const struct sample *b)
{
        double cum = (b->disk_bytes - m->first.disk_bytes) -
                     (b->probe_bytes - m->first.probe_bytes);
        double rise = cum > m->io_high ? cum - m->io_high : 0;
        if (cum > m->io_high)
                m->io_high = cum;
        return rise;
}

/* Others' use of each resource between the last sample and b, in the
 * limits' units. */
static void others(struct yield_monitor *m, const struct sample *b, double use[R_N])
{
        const struct sample *a = &m->last;
        double dt = b->mono - a->mono, total = b->total - a->total;
        double cpu = (b->busy - a->busy) - (b->probe_cpu - a->probe_cpu);
        double io = others_io(m, b);
        use[R_CPU] = total > 0 ? 100 * (cpu > 0 ? cpu : 0) / total : 0;
        use[R_IO] = dt > 0 ? io / dt : 0;
        use[R_MEMORY] = dt > 0 ? (b->psi_memory_us - a->psi_memory_us) / (dt * 1e4) : 0;
}

static char *describe(int res, double use)
{
        if (res == R_CPU)
                return str_printf("other processes used %.0f%% of the CPU", use);
        if (res == R_IO)
                return str_printf("other processes moved %.1f MB/s to and from disk", use / 1e6);
        return str_printf("some tasks stalled on memory %.0f%% of the time", use);
}

int yield_monitor_sample(struct yield_monitor *m, const char **ret_reason, char **ret_why)
{
        struct sample now;
        double use[R_N];
        const double lim[R_N] = { m->lim.cpu, m->lim.io, m->lim.memory };
        int r = take(m, &now);
        if (r < 0)
                return r;
        others(m, &now, use);
        m->last = now;
        for (int i = 0; i < R_N; i++) {
                m->over[i] = lim[i] > 0 && use[i] > lim[i] ? m->over[i] + 1 : 0;
                if (m->over[i] < YIELD_SAMPLES)
                        continue;
                *ret_reason = reasons[i];
                *ret_why = describe(i, use[i]);
                return *ret_why ? 1 : -ENOMEM;
        }
        return 0;
}

void yield_monitor_others(const struct yield_monitor *m, struct yield_others *ret)
{
        const struct sample *a = &m->first, *b = &m->last;
        double dt = b->mono - a->mono, total = b->total - a->total;
        double cpu = (b->busy - a->busy) - (b->probe_cpu - a->probe_cpu);
        ret->cpu = total > 0 ? (cpu > 0 ? cpu : 0) / total : 0;
        ret->io = m->disk_io && m->lim.io > 0 && dt > 0 ? m->io_high / dt : NAN;
        ret->memory = m->lim.memory > 0 && dt > 0 ?
                      (b->psi_memory_us - a->psi_memory_us) / (dt * 1e6) : NAN;
}

void yield_monitor_free(struct yield_monitor *m)
{
        if (!m)
                return;
        for (size_t i = 0; i < m->n_disks; i++)
                free(m->disks[i]);
        free(m);
}
