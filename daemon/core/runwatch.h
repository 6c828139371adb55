/* runwatch.h — what the host went through during a run, beside its
 * figures.
 *
 * The daemon's runs and `verify`'s are judged alike (tracker.h), so both
 * record the same: the share of the CPU the hypervisor stole and the
 * pressure on each resource (busy.h), and the evidence of the host's
 * counters (evidence_window.h: its cgroup's throttling, the clock, heat,
 * memory errors, the run's disk, the kernel log).  A watch starts before
 * the probe process and is added to the run's result after it.  Nothing
 * here logs. */
#ifndef BENCHWATCH_RUNWATCH_H
#define BENCHWATCH_RUNWATCH_H

#include "core/busy.h"
#include "core/evidence.h"
#include "core/result.h"

struct perfclock;

struct runwatch {
        struct busy_snapshot load;
        struct evidence ev;
};

/* Where the host's counters are read: "/", or $BENCHWATCH_EVIDENCE_ROOT
 * (a test hook: a fixture tree whose counters a test moves). */
const char *runwatch_root(void);
/* h may be NULL (a host whose counters cannot be read: no evidence). */
void runwatch_start(struct runwatch *w, struct evidence_host *h);
/* The window since runwatch_start into res: steal and pressure, and the
 * evidence (the disk's of the run's device when it does disk I/O, the
 * clock from perf, NULL when it has no cycle counter).  0 or -ENOMEM. */
int runwatch_add(const struct runwatch *w, struct evidence_host *h,
                 const struct perfclock *perf, struct result *res);

#endif
