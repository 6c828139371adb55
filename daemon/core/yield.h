/* yield.h — room for a probe before its run, and stepping aside during it.
 *
 * A production host is busy; what matters is whether it has room for what
 * this probe needs, and whether the run takes from others, not how busy
 * the rest of the host is.  The scheduler's look before a run and the
 * runner's watch during it sample the host every YIELD_INTERVAL with the
 * same monitor (the daemon in the probe's place for the look):
 *
 *   - room: the idle CPUs among those the probe may run on (each CPU's
 *     idle share of the time it was given, steal left out, summed) against
 *     the CPUs the probe keeps busy; the scheduler decides with it;
 *   - others' CPU waits: the share of the time in which tasks other than
 *     the probe's waited for a CPU (PSI cpu "some", less the probe's own
 *     threads' run delay: a lower bound), against what it was before the
 *     run: a run yields when it rises by more than a limit, i.e. when the
 *     probe takes CPU from others;
 *   - the probe starved: its threads waited for a CPU more than half of
 *     the time they wanted one, i.e. the host's work needs the CPUs and
 *     the run could no longer count (not while benchwatch's own CPU quota
 *     throttled it: a quota's threads wait as runnable, and stepping
 *     aside gives nobody anything; the quota is for the verdict to see);
 *   - others' disk I/O (probes that do disk I/O) and memory stalls, as
 *     shares of the host.
 * A sample is over a limit for one resource; YIELD_SAMPLES in a row decide
 * (see yield.c for how the probe's own use is told from others').
 * Nothing here logs. */
#ifndef BENCHWATCH_YIELD_H
#define BENCHWATCH_YIELD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define YIELD_INTERVAL 0.25  /* seconds between samples */
#define YIELD_SAMPLES 2      /* in a row over a limit before yielding */
#define YIELD_ACCURACY_USEC 10000 /* of the sampling timers: sd-event's
                                   * default (250 ms) would double the interval */
#define YIELD_STARVED 0.5    /* of the time the probe's threads wanted a CPU,
                              * the share they waited that stops the run */
#define YIELD_ALL_IDLE 0.95  /* of the CPUs, as a look reads them all idle: its
                              * own samples and the kernel's threads take a
                              * little */

/* 0 disables a check. */
struct yield_limits {
        double cpu_wait;        /* percentage points by which others' CPU waits
                                 * may rise above cpu_wait_before */
        double cpu_wait_before; /* others' CPU waits before the run (0..1,
                                 * the look's figure) */
        bool starved;           /* stop a run whose threads are starved */
        double io;              /* bytes/s other processes move to and from
                                 * disks */
        double memory;          /* % of the time some task stalled on memory
                                 * (PSI) */
};

struct yield_monitor;
struct rundelay;

bool yield_limits_any(const struct yield_limits *lim);
/* Watches process pid of a probe of a plugin with capabilities caps
 * (BW_CAP_*): one that does disk I/O meets the I/O check (a probe without
 * its own disk I/O is never disturbed by others' I/O much); one that waits
 * on a disk or a server is starved when its threads wait for a CPU more
 * than YIELD_STARVED of the sample's time (its threads mostly sleep: their
 * short wake-ups would make any wait a large share of their wants).
 * delay: the probe's threads' run delay, as the runner samples it
 * (borrowed; NULL: none, as for the daemon in the look); quota: where the
 * daemon's cgroup's throttling is read (evidence.h; borrowed, may be
 * NULL).  Takes the first sample. */
struct evidence_host;
int yield_monitor_new(const struct yield_limits *lim, pid_t pid, uint32_t caps,
                      const struct rundelay *delay, struct evidence_host *quota,
                      struct yield_monitor **ret);
/* One sample: 1 when the run should yield, with *ret_reason "cpu", "io" or
 * "memory" (static) and *ret_why (malloc'd: "other tasks waited for a CPU
 * 34% of the time (12% before the run)"); 0 when not; -errno (the probe
 * process is gone). */
int yield_monitor_sample(struct yield_monitor *m, const char **ret_reason,
                         char **ret_why);
/* What the host had and others took over the whole watch so far (first to
 * last sample), for the look's decision and a run's record: idle CPUs
 * among those pid may run on (NAN when unreadable) and how many those
 * are; others' share of the host's CPU time, steal left out (0..1); the
 * share of the time others waited for a CPU (0..1, NAN without PSI);
 * their disk bytes per second (NAN unless the I/O check applies); the
 * share of the time some task stalled on memory (0..1, NAN unless the
 * memory check applies). */
struct yield_others {
        double idle_cpus;
        unsigned cpus;
        double cpu, cpu_wait, io, memory;
};
void yield_monitor_others(const struct yield_monitor *m, struct yield_others *ret);
void yield_monitor_free(struct yield_monitor *m);

/* Of dt seconds, the share in which tasks other than the probe waited for
 * a CPU: PSI cpu "some" (`some` seconds: the host's CPUs' "some" time,
 * averaged over them weighted by each one's busy time) less the probe's
 * own threads' run delay (`own`, summed over its threads) as it shows in
 * that average: spread over the busy CPUs (`busy` CPU-seconds of the
 * host), not whole (16 threads waiting 0.1 s each on 16 busy CPUs add
 * 0.1 s to "some", not 1.6 s).  Still a lower bound: where others waited
 * on a CPU at the same time as the probe, "some" counted the time once.
 * NAN without PSI. */
double yield_others_wait(double some, double own, double busy, double dt);
/* From a /proc/stat text: the busy jiffies (user, nice, system, irq,
 * softirq) and the total without steal of the "cpu" line, and the idle
 * (idle + iowait) and total without steal summed over the cpuN lines for
 * which allowed(N) is true (all when allowed is NULL), with how many
 * there were.  -EINVAL when the text is not /proc/stat. */
struct yield_cpu_times {
        double busy, total;          /* the host */
        double idle, total_allowed;  /* the allowed CPUs */
        unsigned allowed;
};
int yield_parse_stat(const char *text, bool (*allowed)(unsigned cpu, void *userdata),
                     void *userdata, struct yield_cpu_times *ret);
/* The allowed CPUs idle from a to b: each one's idle share of the time
 * it was given, summed (0 .. their number); NAN when none was given, or
 * when their number changed between them, a CPU gone off or come on line
 * (each sum is of other CPUs: one come back brings its idle time of
 * before; one off and another on within a look go unseen). */
double yield_idle_cpus(const struct yield_cpu_times *a, const struct yield_cpu_times *b);
/* The idle CPUs a run needs of the cpus it may run on: room times the
 * CPUs it keeps busy (needs), at most all of them idle (YIELD_ALL_IDLE):
 * at room 1 or above, a probe that keeps each of them busy would
 * otherwise never run. */
double yield_room_needed(double room, double needs, unsigned cpus);

#endif
