/* runner.h — runs one probe in a child process and gets its result back.
 *
 * The child is a fresh exec of benchwatch (child.h) with lowered priority,
 * in its own process group, fed its request on a pipe (so secrets never
 * appear in argv or the environment) and returning its result on another.
 * The runner enforces the deadline (the group is killed) and turns every
 * way a child can go wrong — crash, hang, error exit, garbage — into a
 * failed result with a reason.  With yield limits it also watches the host
 * while the probe runs and stops it when other work needs the CPU, disks
 * or memory.  It lives on the caller's sd-event loop, so
 * the daemon keeps beating its watchdog while a probe runs. */
#ifndef BENCHWATCH_RUNNER_H
#define BENCHWATCH_RUNNER_H

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "core/param.h"
#include "core/result.h"
#include "core/yield.h"

struct run_spec {
        const char *probe;
        const struct bw_plugin *plugin;
        const struct param_set *params;
        const char *plugin_dir;
        const char *cache_dir;
        const char *state_dir;
        double timeout;      /* seconds; the child is killed after it */
        bool progress;       /* the child draws progress on stderr */
        bool cleanup;        /* run the plugin's cleanup instead */
        int nice;
        int ioprio_class;    /* 0 leave, 1 realtime, 2 best-effort, 3 idle */
        int ioprio_level;
        int cpu_policy;      /* PRIO_CPU_* (priority.h): 0 leave, 1 batch, 2 idle */
        /* Stop the run when other work needs what it uses (yield.h); NULL:
         * never.  The result then has `yielded` set. */
        const struct yield_limits *yield;
        /* The host's counters (evidence.h; borrowed, may be NULL): the
         * watch reads the daemon's cgroup's throttling from them. */
        struct evidence_host *evidence;
};

struct runner;
/* Called once with the result (owned by the callee); never NULL. */
typedef void (*runner_done_fn)(struct runner *rn, struct result *res,
                               void *userdata);

/* Path of the benchwatch executable to spawn; default /proc/self/exe. */
void runner_set_executable(const char *path);
/* Where the host's count of OOM kills is read; default /proc/vmstat.  A
 * probe process ended by a SIGKILL the runner did not send, while that
 * count rose, is said to be most likely the OOM killer's (the count is the
 * host's: another's SIGKILL at the same time would read the same). */
void runner_set_vmstat(const char *path);

int runner_start(sd_event *e, const struct run_spec *spec, runner_done_fn done,
                 void *userdata, struct runner **ret);
/* The failed run of a probe process that could not start (err, a negative
 * errno, from runner_start or before it): what the sinks show of it, as of
 * a run that failed (NULL when out of memory). */
struct result *runner_failed_start(const struct run_spec *spec, int err);
/* Ask the child to stop (SIGTERM), kill its group after grace seconds. */
void runner_stop(struct runner *rn, double grace);
pid_t runner_pid(const struct runner *rn);
/* The probe process's cycle counter (perfclock.h), or NULL. */
struct perfclock;
const struct perfclock *runner_perfclock(const struct runner *rn);
void runner_free(struct runner *rn);

/* Convenience for commands: run to completion on a private loop; SIGINT
 * and SIGTERM stop the child cleanly.  Returns the result (never NULL
 * unless out of memory). */
struct result *runner_run_sync(const struct run_spec *spec);

#endif
