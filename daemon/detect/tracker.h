/* tracker.h — the daemon's memory of each probe's references, and its one
 * door into detect/.
 *
 * After every run the daemon hands the result here (tracker_observe), and
 * the tracker decides what the run is worth: whether it counts towards
 * the references (tracker_run_counts) and the verdict.  The probe's
 * baseline is loaded (read around every run, so a `baseline reset` or `accept` made
 * meanwhile by another process is never overwritten), updated with the
 * run's figures, saved atomically, and the verdict metrics
 * (benchwatch_baseline, benchwatch_regression, _ratio, _change_ratio,
 * _evidence...) are appended to the result before it goes to the sinks.
 * Entering or leaving a regression is logged at warning level with the
 * size of the change, against what, how sure and, when entering, what the
 * run's context has that the reference's had not; a change of context
 * between two runs is a journal event of its own (BENCHWATCH_EVENT=
 * context-change, with the items before and after as fields).  The [regression]
 * section tunes the detector and verify; the tracker reads it once per
 * configuration (tracker_new, tracker_reload), not per run. */
#ifndef BENCHWATCH_TRACKER_H
#define BENCHWATCH_TRACKER_H

#include <stdbool.h>

#include "core/conf.h"
#include "core/result.h"
#include "detect/context.h"
#include "detect/detector.h"

/* The [regression] section's options. */
extern const struct bw_param_def tracker_options[];

struct tracker_settings {
        struct detector_config det;
        unsigned verify_min_runs, verify_max_runs;
        double max_steal;  /* a run with more of the host's CPU time stolen
                              by the hypervisor is judged but not counted */
        double max_run_delay;  /* the same for the probe's threads' waits
                                  for a CPU */
};

/* Settings from the config's [regression] section (defaults when absent
 * or cfg is NULL). */
void tracker_settings(const struct config *cfg, struct tracker_settings *ret);

/* What a [regression] section's option ranges cannot say (clamp >
 * allowance...): -EINVAL and a malloc'd message; the conf reader's
 * section check (cfg_section_type), which adds its file and line. */
int tracker_check(const char *section, const struct param_set *ps, const char *state_dir,
                  char **ret_error);

/* Whether a run counts towards the references: by what the run got, not
 * by how busy the rest of the host was.
 *   - a CPU-bound probe (not res->io_bound) is not counted when its
 *     threads waited for a CPU more than max_run_delay of the time they
 *     wanted one (benchwatch_probe_cpu_wait_ratio): a neighbour took the
 *     CPU from them.  A CPU quota on the daemon holds them runnable, a
 *     wait too (CFS bandwidth throttles the group, not the task): each
 *     thread's share of the time its cgroup was throttled
 *     (benchwatch_probe_cpu_throttled_seconds) is left out of the wait,
 *     so such runs count, and a quota is seen;
 *   - a probe that waits on a device or a server (res->io_bound) is not
 *     counted when its threads were runnable but not running for more
 *     than max_run_delay of the run (benchwatch_probe_run_delay_ratio);
 *   - a probe judged by a wall-clock figure, unless it waits on a disk
 *     (res->disk_io: the hypervisor serving its own I/O shows as steal),
 *     when more than max_steal of the host's CPU time went to the
 *     hypervisor (benchwatch_probe_steal_ratio, recorded by the
 *     scheduler): a CPU-bound probe, and an http or mysql one, whose
 *     round trips wait for the CPUs of both ends (its server's too, when
 *     on this host).
 * A figure the run lacks excludes nothing.  *ret_reason (static, may be
 * NULL: "cpu_wait" or "steal") and *ret_why (malloc'd, may be NULL) say
 * why not. */
bool tracker_run_counts(const struct tracker_settings *ts, const struct result *res,
                        const char **ret_reason, char **ret_why);

/* The run's judged figures are ones host steal cannot move: the plugin
 * waits on a device or a server (res->io_bound), or the run is judged by
 * a CPU-time figure (baseline_judges_cpu_time; not with judge =
 * wall_clock). */
bool tracker_judged_on_own_time(const struct tracker_settings *ts, const struct result *res);

struct tracker;
/* host: the host's context (context.h), copied; each run's context is it
 * plus the run's device.  cfg: the configuration the daemon runs (its
 * [regression] settings, probe intervals and history size), the caller's;
 * it outlives the tracker or the next tracker_reload (NULL: defaults). */
int tracker_new(const char *state_dir, const struct context *host,
                const struct config *cfg, struct tracker **ret);
/* A new configuration (a reload): its settings from the next run on. */
void tracker_reload(struct tracker *t, const struct config *cfg);

/* What the tracker made of a run, for the daemon's status file. */
struct tracker_outcome {
        bool counted;       /* towards the references (a failed run: no) */
        const char *reason; /* NULL when counted; else "failed", "cpu_wait"
                               or "steal" (static) */
        char *why;          /* NULL when counted; else why not, for people
                               (malloc'd) */
};

/* A run, into detect/: a failed one is only said not to count; a
 * successful one counts unless tracker_run_counts says otherwise (logged
 * at notice level: judged but not counted), then updates the probe's
 * baseline, history and cause and gets the verdict metrics appended.
 * *ret says what was decided (tracker_outcome_clear frees it).  Logs its
 * own problems. */
void tracker_observe(struct tracker *t, struct result *res, struct tracker_outcome *ret);
void tracker_outcome_clear(struct tracker_outcome *o);
void tracker_free(struct tracker *t);

#endif
