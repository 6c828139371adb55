/* priority.h — the CPU and I/O priority a probe process runs at.
 *
 * The daemon runs its probes politely (nice 10, I/O best-effort 7 by
 * default), and a figure measured at nice 10 is not comparable with one
 * sysbench, fio or wrk measured at nice 0.  So the child applies the
 * priority it was asked for, reads back what the kernel really gave it, and
 * reports that beside the figures (benchwatch_probe_nice and
 * benchwatch_probe_io_priority{class}); `run` and `sweep` can choose it for
 * one run with --nice and --ionice, spelled like ionice(1).
 *
 * A CPU-bound probe in the daemon can also run under the CPU scheduling
 * policy SCHED_IDLE (or SCHED_BATCH): nice 10 still takes a tenth of a
 * CPU from a nice-0 web server whose request wakes up, SCHED_IDLE gives
 * it up at once (the waking task preempts it), so a co-tenant's latency
 * does not feel the probe; the probe's run is only stretched, which its
 * CPU-time figures do not see.  `run` keeps SCHED_OTHER, the policy
 * sysbench is compared at.  Nothing here logs. */
#ifndef BENCHWATCH_PRIORITY_H
#define BENCHWATCH_PRIORITY_H

/* Where a run's priority came from (result.h's priority_from): a
 * configured probe runs at the daemon's, a plugin run by hand at a classic
 * tool's (nice 0, the default I/O priority), unless the command line says. */
#define PRIO_FROM_DAEMON "daemon"
#define PRIO_FROM_ONE_OFF "one-off"
#define PRIO_FROM_COMMAND_LINE "command line"

/* The kernel's IOPRIO_CLASS_*; NONE: leave the I/O priority alone. */
enum { PRIO_IO_NONE, PRIO_IO_REALTIME, PRIO_IO_BEST_EFFORT, PRIO_IO_IDLE };
/* CPU scheduling policies a probe may run under (OTHER: the default
 * SCHED_OTHER, left alone); the order of priority_cpu_policy_names. */
enum { PRIO_CPU_OTHER, PRIO_CPU_BATCH, PRIO_CPU_IDLE };

struct priority {
        int nice;        /* -20 .. 19 */
        int io_class;    /* PRIO_IO_* */
        int io_level;    /* 0 (highest) .. 7; 0 for idle */
        int cpu_policy;  /* PRIO_CPU_* */
};

/* "other", "batch", "idle", NULL: for a configuration enum. */
extern const char *const priority_cpu_policy_names[];
const char *priority_cpu_policy_name(int policy);

/* "realtime", "best-effort", "idle" (or "none"). */
const char *priority_io_class_name(int io_class);
/* "idle", "best-effort[:LEVEL]" or "realtime[:LEVEL]" (also ionice's class
 * numbers 1..3); the level defaults to 4, as ionice's; idle takes none. */
int priority_parse_ionice(const char *s, int *ret_class, int *ret_level);
/* -20 .. 19. */
int priority_parse_nice(const char *s, int *ret_nice);

/* Sets this process's nice (when it differs), I/O priority (unless
 * io_class is NONE) and CPU policy (unless OTHER; threads started later
 * inherit it); -errno of the first change the kernel refused. */
int priority_apply(const struct priority *want);
/* What this process runs at.  Class NONE is reported as the kernel
 * treats it: best-effort at level (nice + 20) / 5. */
int priority_current(struct priority *ret);

struct result;
/* benchwatch_probe_nice, benchwatch_probe_io_priority{class} = level and
 * benchwatch_probe_cpu_policy{policy} = 1. */
int priority_add_metrics(const struct priority *p, struct result *res);
/* The priority recorded in res; -ENOENT when it holds none. */
int priority_from_result(const struct result *res, struct priority *ret);

#endif
