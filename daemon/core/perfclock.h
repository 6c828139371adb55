/* perfclock.h — the clock a probe's threads actually ran at.
 *
 * A CPU that runs at 2.1 GHz instead of 2.9 GHz (a power cap, a BIOS
 * setting, a governor, heat) makes every CPU figure slower while nothing
 * else on the host moves.  The effective clock of a run is the CPU
 * cycles its threads used divided by the time they were on a CPU: two
 * perf events on the probe process (PERF_COUNT_HW_CPU_CYCLES and
 * PERF_COUNT_SW_TASK_CLOCK), inherited by the threads it starts after
 * they are opened (an inherited thread's counts reach the process's
 * counters when it exits, so they are read at the run's end).  Both count
 * the same threads in the same domain (user and kernel), so their ratio
 * holds even when a thread started before they were opened is missed.
 *
 * The kernel refuses them to a process without CAP_PERFMON when
 * kernel.perf_event_paranoid is above 1 (-EACCES), a systemd unit without
 * perf_event_open in its SystemCallFilter (-EPERM), and most VMs have no
 * hardware cycle counter (-ENOENT, -EOPNOTSUPP): then the clock comes
 * from cpufreq instead, or is not available.  Nothing here logs. */
#ifndef BENCHWATCH_PERFCLOCK_H
#define BENCHWATCH_PERFCLOCK_H

#include <sys/types.h>

struct perfclock;

/* pid 0: the calling thread (and the threads it starts). */
int perfclock_open(pid_t pid, struct perfclock **ret);
/* Cycles (scaled up when the counter was multiplexed) and on-CPU
 * nanoseconds so far.  0 or -errno. */
int perfclock_read(const struct perfclock *p, double *ret_cycles, double *ret_task_ns);
void perfclock_free(struct perfclock *p);

#endif
