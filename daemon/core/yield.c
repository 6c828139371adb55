/* yield.c — see yield.h.  How the probe's own use is told from others':
 *
 * Room.  Each cpuN line of /proc/stat for the CPUs the watched process may
 * run on (its affinity): idle + iowait over the CPU's time without steal,
 * summed, is how many of those CPUs sat idle.  Chosen over the host's
 * share of busy time (a 1-thread probe on 16 CPUs with 12 busy has room;
 * at "75% busy" it had none) and over the runnable count (one instant).
 *
 * Others' CPU waits.  PSI cpu "some total" grows by the time in which at
 * least one task waited for a CPU.  The probe's threads' run delay over
 * the same sample (rundelay.h; the runner samples them apart, so it is
 * taken over its own samples' window, scaled) is time in which at least
 * one of its tasks waited, so what is left is a lower bound of the time
 * only others waited: a run yields when that rises above what the look
 * saw before it, i.e. when the probe's threads take CPU from others.  A
 * probe run under SCHED_IDLE (cpu_policy) is preempted at once and takes
 * nothing; a disk, http or mysql probe at nice 10 can.
 *
 * The probe starved.  Of the time its threads wanted a CPU (on one, or
 * waiting), the share they waited, over the runner's samples of them
 * between two of the monitor's (for a probe that waits on a disk or a
 * server: their waits per second of those): when the host's own work
 * keeps the probe off the CPUs the run can no longer count, and stepping
 * aside frees what it still takes (its wake-ups, its cache).
 *
 * Others' CPU share, for the record: the host's busy jiffies (user, nice,
 * system, irq, softirq) minus the probe process's utime + stime
 * (/proc/PID/stat, all its threads), over the CPU time the host was given
 * (steal left out of both).
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
 * step aside whoever caused it. */
#include "core/yield.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/evidence.h"
#include "core/plugin.h"
#include "core/rundelay.h"
#include "util/fdio.h"
#include "util/strutil.h"
#include "util/timeutil.h"

#define STAT_MAX (256 << 10)     /* /proc/stat of a few thousand CPUs */
#define DISKSTATS_MAX (16 << 20) /* 100,000 devices */
#define MAX_DISKS 64

enum { R_CPU, R_IO, R_MEMORY, R_N };
static const char *const reasons[R_N] = { "cpu", "io", "memory" };

struct sample {
        double mono;
        struct yield_cpu_times cpu;  /* jiffies; cpu.allowed 0: unreadable */
        double probe_cpu;            /* jiffies (USER_HZ, as /proc/stat) */
        double probe_wait, probe_run; /* seconds, its threads (rundelay) */
        double probe_at;             /* when rundelay sampled them; 0: never */
        size_t probe_runnable;       /* its threads runnable at the sample */
        size_t probe_active;         /* its threads that ran lately */
        struct evidence_throttled throttled; /* its cgroup's levels' held time */
        double psi_cpu_us;           /* NAN when the kernel has no PSI */
        double disk_bytes, probe_bytes;
        double psi_memory_us;
};

struct yield_monitor {
        struct yield_limits lim;
        pid_t pid;
        bool disk_io, io_bound;
        const struct rundelay *delay;
        struct evidence_host *quota;
        cpu_set_t *affinity;     /* NULL: every CPU */
        size_t affinity_size;
        char *stat_buf;          /* STAT_MAX */
        char *disks[MAX_DISKS];  /* names of the physical disks */
        size_t n_disks;
        struct sample first, last;
        double io_high;          /* highest cumulative others' I/O so far */
        unsigned over[R_N];      /* samples in a row over the limit */
        unsigned starved;        /* samples in a row the probe starved */
};

bool yield_limits_any(const struct yield_limits *lim)
{
        return lim && (lim->cpu_wait > 0 || lim->starved || lim->io > 0 || lim->memory > 0);
}

/* user nice system idle iowait irq softirq steal of one cpu line. */
static int cpu_fields(const char *line, double f[8])
{
        return sscanf(line, "%lf %lf %lf %lf %lf %lf %lf %lf", &f[0], &f[1], &f[2], &f[3],
                      &f[4], &f[5], &f[6], &f[7]) == 8 ? 0 : -EINVAL;
}

int yield_parse_stat(const char *text, bool (*allowed)(unsigned cpu, void *userdata),
                     void *userdata, struct yield_cpu_times *ret)
{
        struct yield_cpu_times t = { 0 };
        double f[8];
        if (strncmp(text, "cpu ", 4) || cpu_fields(text + 4, f) < 0)
                return -EINVAL;
        t.busy = f[0] + f[1] + f[2] + f[5] + f[6];
        t.total = f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6];
        for (const char *line = strchr(text, '\n'); line && !strncmp(line + 1, "cpu", 3);
             line = strchr(line + 1, '\n')) {
                char *end;
                unsigned long n = strtoul(line + 4, &end, 10);
                if (end == line + 4 || *end != ' ' || cpu_fields(end, f) < 0)
                        return -EINVAL;
                if (allowed && !allowed((unsigned)n, userdata))
                        continue;
                t.idle += f[3] + f[4];
                t.total_allowed += f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6];
                t.allowed++;
        }
        *ret = t;
        return 0;
}

double yield_idle_cpus(const struct yield_cpu_times *a, const struct yield_cpu_times *b)
{
        double idle = b->idle - a->idle, given = b->total_allowed - a->total_allowed;
        if (!(given > 0) || !b->allowed || a->allowed != b->allowed)
                return NAN;
        /* idle jiffies over the jiffies of one CPU (the allowed CPUs'
         * total over their number) */
        return fmin(fmax(idle / (given / b->allowed), 0), b->allowed);
}

double yield_room_needed(double room, double needs, unsigned cpus)
{
        return fmin(room * needs, YIELD_ALL_IDLE * cpus);
}

static bool in_affinity(unsigned cpu, void *userdata)
{
        const struct yield_monitor *m = userdata;
        return !m->affinity || CPU_ISSET_S(cpu, m->affinity_size, m->affinity);
}

/* The CPUs pid may run on; none known: every CPU counts. */
static void find_affinity(struct yield_monitor *m)
{
        long n = sysconf(_SC_NPROCESSORS_CONF);
        size_t cpus = n > 0 ? (size_t)n : 1;
        m->affinity_size = CPU_ALLOC_SIZE(cpus);
        m->affinity = CPU_ALLOC(cpus);
        if (m->affinity && sched_getaffinity(m->pid, m->affinity_size, m->affinity) < 0) {
                CPU_FREE(m->affinity);
                m->affinity = NULL;
        }
}

/* utime + stime of /proc/PID/stat (fields 14 and 15, after the comm). */
static int read_probe_cpu(pid_t pid, double *ret)
{
        char path[64], buf[1024];
        unsigned long long ut, st;
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        int r = fdio_read_small(path, buf, sizeof(buf));
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
        int r = fdio_read_small(path, buf, sizeof(buf));
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
        char *buf = NULL, name[64];
        unsigned long long rd, wr;
        double sum = 0;
        int r = fdio_read_proc("/proc/diskstats", DISKSTATS_MAX, &buf);
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

/* "some total=" of a /proc/pressure file; NAN when absent. */
static double read_psi_total(const char *path)
{
        char buf[512];
        const char *p;
        double v = 0;
        if (fdio_read_small(path, buf, sizeof(buf)) < 0 || strncmp(buf, "some ", 5) ||
            !(p = strstr(buf, " total=")) || sscanf(p, " total=%lf", &v) != 1)
                return NAN;
        return v;
}

static int take(const struct yield_monitor *m, struct sample *s)
{
        int r = fdio_read_small("/proc/stat", m->stat_buf, STAT_MAX);
        if (r >= 0)
                r = yield_parse_stat(m->stat_buf, in_affinity, (void *)m, &s->cpu);
        if (r >= 0)
                r = read_probe_cpu(m->pid, &s->probe_cpu);
        if (r >= 0 && m->disk_io && m->lim.io > 0) {
                r = read_disks(m, &s->disk_bytes);
                if (r >= 0)
                        r = read_probe_io(m->pid, &s->probe_bytes);
        }
        s->probe_wait = m->delay ? rundelay_seconds(m->delay) : 0;
        s->probe_run = m->delay ? rundelay_cpu_seconds(m->delay) : 0;
        s->probe_at = m->delay ? rundelay_sampled_at(m->delay) : 0;
        s->probe_runnable = m->delay ? rundelay_runnable(m->delay) : 0;
        s->probe_active = m->delay ? rundelay_active(m->delay) : 0;
        evidence_host_throttled(m->quota && m->lim.starved ? m->quota : NULL, &s->throttled);
        s->psi_cpu_us = read_psi_total("/proc/pressure/cpu");
        s->psi_memory_us = m->lim.memory > 0 ? read_psi_total("/proc/pressure/memory") : 0;
        s->mono = now_mono();
        return r;
}

int yield_monitor_new(const struct yield_limits *lim, pid_t pid, uint32_t caps,
                      const struct rundelay *delay, struct evidence_host *quota,
                      struct yield_monitor **ret)
{
        struct yield_monitor *m = calloc(1, sizeof(*m));
        if (!m || !(m->stat_buf = malloc(STAT_MAX))) {
                free(m);
                return -ENOMEM;
        }
        m->lim = *lim;
        m->pid = pid;
        m->disk_io = caps & BW_CAP_DISK_IO;
        m->io_bound = caps & BW_CAP_WAITS;
        m->delay = delay;
        m->quota = quota;
        find_affinity(m);
        if (m->disk_io && lim->io > 0)
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

double yield_others_wait(double some, double own, double busy, double dt)
{
        if (!(dt > 0) || isnan(some))
                return NAN;
        double own_in_some = busy > dt ? own * dt / busy : own;
        return fmin(fmax((some - own_in_some) / dt, 0), 1);
}

/* The seconds of the probe's threads' waits and runs that a and b read:
 * between the runner's samples of them (every RUNDELAY_INTERVAL, apart
 * from these: 0.2 or 0.3 s where a..b is 0.25 s), 0 where there was none
 * between; a..b where unknown. */
static double probe_dt(const struct sample *a, const struct sample *b)
{
        return a->probe_at > 0 && b->probe_at > 0 ? b->probe_at - a->probe_at :
                                                    b->mono - a->mono;
}

/* The share of a..b in which only others waited for a CPU (NAN: no PSI). */
static double others_wait(const struct sample *a, const struct sample *b)
{
        static double clk_tck;
        if (!clk_tck)
                clk_tck = sysconf(_SC_CLK_TCK) > 0 ? (double)sysconf(_SC_CLK_TCK) : 100;
        double dt = b->mono - a->mono, pdt = probe_dt(a, b);
        double own = b->probe_wait - a->probe_wait; /* over pdt: as over dt */
        return yield_others_wait((b->psi_cpu_us - a->psi_cpu_us) / 1e6,
                                 pdt > 0 ? own * dt / pdt : own,
                                 (b->cpu.busy - a->cpu.busy) / clk_tck, dt);
}

/* Of the time the probe's threads wanted a CPU in a..b (probe_dt), the
 * share they waited (0 when they wanted none; NAN when they were not
 * sampled between a and b: not known); of an I/O-bound probe, the
 * waits per second of each of its threads that ran lately (its idle
 * helper threads left out).  A thread's wait is accounted (schedstat)
 * only when it gets the CPU: a CPU-bound thread held off for longer than
 * a sample shows neither run nor wait.  Where one of the threads is
 * runnable at b, the part of a..b accounted as neither is such a wait
 * still under way; where none is, it was sleep (a probe that pauses
 * between its phases, as the memory probe's release), which no neighbour
 * caused. */
static double probe_wait_share(const struct yield_monitor *m, const struct sample *a,
                               const struct sample *b)
{
        double wait = b->probe_wait - a->probe_wait, run = b->probe_run - a->probe_run;
        double dt = probe_dt(a, b);
        if (!(dt > 0))
                return NAN;
        if (m->io_bound) /* each working thread's, as the tracker counts runs */
                return wait / dt / (double)(b->probe_active ? b->probe_active : 1);
        if (dt > wait + run && b->probe_runnable > 0)
                wait = dt - run;
        return wait + run > 0 ? wait / (wait + run) : 0;
}

/* Others' use of each resource between the last sample and b, in the
 * limits' units (CPU: percentage points of waiting above before). */
static void others(struct yield_monitor *m, const struct sample *b, double use[R_N])
{
        const struct sample *a = &m->last;
        double dt = b->mono - a->mono;
        double wait = others_wait(a, b);
        use[R_CPU] = isnan(wait) ? 0 : 100 * (wait - m->lim.cpu_wait_before);
        use[R_IO] = dt > 0 ? others_io(m, b) / dt : 0;
        use[R_MEMORY] = dt > 0 ? (b->psi_memory_us - a->psi_memory_us) / (dt * 1e4) : 0;
}

static char *describe(const struct yield_monitor *m, int res, double use)
{
        if (res == R_CPU)
                return str_printf("other tasks waited for a CPU %.0f%% of the time (%.0f%% "
                                  "before the run)", use + 100 * m->lim.cpu_wait_before,
                                  100 * m->lim.cpu_wait_before);
        if (res == R_IO)
                return str_printf("other processes moved %.1f MB/s to and from disk", use / 1e6);
        return str_printf("some tasks stalled on memory %.0f%% of the time", use);
}

/* The daemon's cgroup was held by its CPU quota for a tenth of a..b or
 * more. */
static bool quota_held(const struct sample *a, const struct sample *b)
{
        double dt = b->mono - a->mono;
        double held = evidence_throttled_between(&a->throttled, &b->throttled);
        return dt > 0 && held > 0.1 * dt;
}

/* 1 with *ret_why when the probe has been starved YIELD_SAMPLES in a row
 * (a sample that could not tell leaves the count as it was). */
static int starved(struct yield_monitor *m, const struct sample *b, char **ret_why)
{
        double share = probe_wait_share(m, &m->last, b);
        if (isnan(share))
                return 0;
        m->starved = m->lim.starved && share > YIELD_STARVED && !quota_held(&m->last, b) ?
                     m->starved + 1 : 0;
        if (m->starved < YIELD_SAMPLES)
                return 0;
        *ret_why = m->io_bound ?
                   str_printf("the host's work kept the probe's threads waiting for a CPU "
                              "%.0f%% of the time", 100 * share) :
                   str_printf("the host's work kept the probe's threads waiting for a CPU "
                              "%.0f%% of the time they wanted one", 100 * share);
        return *ret_why ? 1 : -ENOMEM;
}

int yield_monitor_sample(struct yield_monitor *m, const char **ret_reason, char **ret_why)
{
        struct sample now;
        double use[R_N];
        const double lim[R_N] = { m->lim.cpu_wait, m->lim.io, m->lim.memory };
        int r = take(m, &now);
        if (r < 0)
                return r;
        others(m, &now, use);
        r = starved(m, &now, ret_why);
        m->last = now;
        if (r != 0) {
                *ret_reason = reasons[R_CPU];
                return r;
        }
        for (int i = 0; i < R_N; i++) {
                m->over[i] = lim[i] > 0 && use[i] > lim[i] ? m->over[i] + 1 : 0;
                if (m->over[i] < YIELD_SAMPLES)
                        continue;
                *ret_reason = reasons[i];
                *ret_why = describe(m, i, use[i]);
                return *ret_why ? 1 : -ENOMEM;
        }
        return 0;
}

void yield_monitor_others(const struct yield_monitor *m, struct yield_others *ret)
{
        const struct sample *a = &m->first, *b = &m->last;
        double dt = b->mono - a->mono, total = b->cpu.total - a->cpu.total;
        double cpu = (b->cpu.busy - a->cpu.busy) - (b->probe_cpu - a->probe_cpu);
        ret->cpus = b->cpu.allowed;
        ret->idle_cpus = yield_idle_cpus(&a->cpu, &b->cpu);
        ret->cpu = total > 0 ? (cpu > 0 ? cpu : 0) / total : 0;
        ret->cpu_wait = others_wait(a, b);
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
        if (m->affinity)
                CPU_FREE(m->affinity);
        free(m->stat_buf);
        free(m);
}
