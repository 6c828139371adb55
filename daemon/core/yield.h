/* yield.h — a probe run steps aside when other work starts needing what
 * the probe uses.
 *
 * The deferral check (busy.h) looks at the host's pressure before a run;
 * this looks during one, and in the half second before one (the
 * scheduler's look, with the daemon in the probe's place): every
 * YIELD_INTERVAL the runner samples the host and the probe process, and
 * after YIELD_SAMPLES samples in a row in which other work used more than
 * a limit of a resource the run is stopped and counted as deferred, not
 * as a failure (see yield.c for how "other" is told from
 * the probe's own use).  Nothing here logs. */
#ifndef BENCHWATCH_YIELD_H
#define BENCHWATCH_YIELD_H

#include <stdbool.h>
#include <sys/types.h>

#define YIELD_INTERVAL 0.25  /* seconds between samples */
#define YIELD_SAMPLES 2      /* in a row over a limit before yielding */
#define YIELD_ACCURACY_USEC 10000 /* of the sampling timers: sd-event's
                                   * default (250 ms) would double the interval */

/* 0 disables a check. */
struct yield_limits {
        double cpu;      /* % of the host's CPU time (steal left out) used by
                          * other processes */
        double io;       /* bytes/s other processes move to and from disks */
        double memory;   /* % of the time some task stalled on memory (PSI) */
};

struct yield_monitor;

bool yield_limits_any(const struct yield_limits *lim);
/* Watches probe process pid; disk_io: the probe does disk I/O (then the
 * I/O check applies; a probe without its own disk I/O is never disturbed
 * by others' I/O much).  Takes the first sample. */
int yield_monitor_new(const struct yield_limits *lim, pid_t pid, bool disk_io,
                      struct yield_monitor **ret);
/* One sample: 1 when the run should yield, with *ret_reason "cpu", "io" or
 * "memory" (static) and *ret_why (malloc'd: "other processes used 87% of
 * the CPU"); 0 when not; -errno (the probe process is gone). */
int yield_monitor_sample(struct yield_monitor *m, const char **ret_reason,
                         char **ret_why);
/* What others took over the whole run so far (first to last sample), the
 * same measures as the limits, for the record of a run that did not
 * yield: others' share of the host's CPU time, steal left out (0..1),
 * their disk bytes per second (NAN unless the I/O check applies), the
 * share of the time some task stalled on memory (0..1, NAN unless the
 * memory check applies). */
struct yield_others {
        double cpu, io, memory;
};
void yield_monitor_others(const struct yield_monitor *m, struct yield_others *ret);
void yield_monitor_free(struct yield_monitor *m);
/* The busy jiffies (user, nice, system, irq, softirq) and the total
 * without steal (the CPU time the host was given) of the "cpu" line of a
 * /proc/stat file; the monitor reads /proc/stat so, the tests a file. */
int yield_host_cpu(const char *path, double *ret_busy, double *ret_total);

#endif
