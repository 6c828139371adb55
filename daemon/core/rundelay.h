/* rundelay.h — how long a probe's threads waited for a CPU, and ran on one.
 *
 * A run is disturbed by the host's other work only when the probe's own
 * threads were runnable but not running: the scheduler's run delay, the
 * second field (ns) of /proc/PID/task/TID/schedstat.  Host steal is not
 * that: on a VM the hypervisor serving the probe's own I/O shows as steal
 * while the probe's thread sleeps on that I/O, and time stolen
 * from a running thread is left out of its CPU time by the kernel's steal
 * accounting.  So a figure the steal cannot move (an I/O-bound probe's, or
 * a CPU-time figure) is judged by this instead (tracker.h).
 *
 * The runner samples the probe process's threads every RUNDELAY_INTERVAL
 * and keeps each thread's last reading, so a thread that exits before the
 * run ends still counts with what it had waited up to its last sample (at
 * most one interval of its waiting is missed; the probes' workers live to
 * the end of the run).  Sampling from outside was chosen over having each
 * worker read /proc/thread-self/schedstat at its end: it needs nothing of
 * the plugins (no ABI change, every plugin and every thread a library
 * starts are covered alike).  Nothing here logs. */
#ifndef BENCHWATCH_RUNDELAY_H
#define BENCHWATCH_RUNDELAY_H

#include <sys/types.h>

#define RUNDELAY_INTERVAL 0.1 /* seconds between samples */

struct rundelay;

/* Watches process pid under proc ("/proc", or a test's copy). */
int rundelay_new(const char *proc, pid_t pid, struct rundelay **ret);
/* Reads every thread's run delay; 0, or -errno (-ENOENT: the process is
 * gone; what was read before is kept). */
int rundelay_sample(struct rundelay *d);
/* Run delay summed over every thread seen so far, in seconds. */
double rundelay_seconds(const struct rundelay *d);
/* Time on a CPU (the first field of schedstat) summed likewise: what the
 * run got; per second of the run, the CPUs it kept busy. */
double rundelay_cpu_seconds(const struct rundelay *d);
/* Of the time the threads wanted a CPU (on one, or runnable and waiting),
 * the share they waited: what a neighbour took from the run, whatever
 * its thread count.  A CPU quota's throttled time is in neither (the
 * throttled threads are not runnable), nor is steal (left out of the
 * on-CPU time by the kernel's steal accounting).  NAN before any. */
double rundelay_wait_share(const struct rundelay *d);
/* Threads seen so far. */
size_t rundelay_threads(const struct rundelay *d);
/* Threads runnable (state R: on a CPU or waiting for one) at the last
 * sample: a thread that shows neither run nor wait since the sample before
 * was either held off the CPU all along (R) or asleep. */
size_t rundelay_runnable(const struct rundelay *d);
/* Threads that ran between the last two samples (a thread's first sample
 * is not counted): the ones doing the probe's work, not its idle helpers. */
size_t rundelay_active(const struct rundelay *d);
/* When the last sample was taken (now_mono()); 0 before any: the waits
 * and runs between two readings of the sums above are of the time
 * between their samples, not between the readings. */
double rundelay_sampled_at(const struct rundelay *d);
void rundelay_free(struct rundelay *d);

#endif
