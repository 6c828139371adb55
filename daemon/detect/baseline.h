/* baseline.h — each probe's history of its own figures, kept across restarts.
 *
 * A probe's baseline is a set of *series*, one per figure whose direction
 * is clear, each with a detector (detector.h) holding its pinned reference,
 * its recent runs and the regression state.  A series is a metric family plus the
 * labels that change its meaning, written as a canonical key: labels
 * sorted by name, values escaped as in the Prometheus text format (\\, \"
 * and \n), e.g.
 *     benchwatch_disk_iops{mode="randread",op="read"}
 *     benchwatch_disk_latency_seconds{op="read",quantile="0.99"}
 * Tracked: gauges named *_per_second, *_per_cpu_second or *iops* (higher
 * is better) or
 * *latency*_seconds (lower is better), and of every summary named
 * *_seconds (a latency) the quantiles 0.5, 0.95 and 0.99 (lower is better).
 * In the exported gauges (benchwatch_baseline...) a series' quantile label
 * is called metric_quantile: `quantile` is reserved to summaries.
 * One figure of a pair is judged, not both: a CPU-bound probe reports its
 * work per second of wall time (X_per_second, the classic tool's figure)
 * and per second of its own threads' CPU time (X_per_cpu_second, which a
 * co-tenant taking the CPU, or the hypervisor stealing it, cannot lower);
 * when a run has both, one is exported but not judged (no series, no
 * regression): by default ([regression] judge = wall_clock) the CPU-time
 * one; with judge = cpu_time (detector_config.judge_cpu_time) the
 * wall-clock one.  The CPU-time figure is by far the steadier beside a
 * neighbour (lab/cost/contention.sh measures both), but a CPU quota on the
 * daemon, by design, does not lower it either: the wall-clock one sees it.
 * Not tracked: counters, benchwatch_probe_*, benchwatch_baseline* and
 * benchwatch_regression*, gauges with no clear "worse" (error counts,
 * durations, timestamps), and figures of 0 (no rate, no latency: nothing
 * to compare in logs).
 *
 * The keys are baseline_key.h's; the series survive restarts through
 * baseline_store.h; what their verdicts say to people and to Prometheus is
 * baseline_report.h's.
 *
 * Nothing here logs or touches a file: errors come back as -errno. */
#ifndef BENCHWATCH_BASELINE_H
#define BENCHWATCH_BASELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/result.h"
#include "detect/context.h"
#include "detect/detector.h"

struct baseline_series {
        char *key;            /* canonical, see above */
        char *metric;         /* family name, e.g. "benchwatch_disk_iops" */
        struct label *labels; /* the key's labels, sorted by name */
        size_t n_labels;
        enum detector_direction direction;
        struct detector det;  /* stored */
        /* Outcome of the last baseline_update()/baseline_verify() on this
         * object (not stored): whether the results had this series, the
         * verdict on it, and verify's comparison. */
        bool seen;
        struct detector_verdict verdict;
        struct detector_verify_verdict check;
};

struct baseline {
        char *probe;
        /* What the reference was learnt on, and what the last run ran on
         * (context.h); empty when unknown (a file of format 2). */
        struct context context;
        struct context seen;
        struct baseline_series *series;
        size_t n_series;
};

/* A probe name usable in a file name: not empty, at most 200 bytes, not
 * starting with '.', no '/' and no control characters. */
bool baseline_probe_name_ok(const char *probe);

/* An empty baseline; NULL when out of memory or !baseline_probe_name_ok(). */
struct baseline *baseline_new(const char *probe);
void baseline_free(struct baseline *b);

/* Add a series with a history (what the store reads back).  -EINVAL when
 * the key is not canonical (labels sorted by name, each once, escaped as
 * above), dir is DETECTOR_NONE or the history holds a value that is not
 * finite and > 0; -EEXIST when b has it; -ENOMEM. */
int baseline_add_series(struct baseline *b, const char *key,
                        enum detector_direction dir, const struct detector *det);

/* Direction of a family, by its name and type (see the top of this file). */
enum detector_direction baseline_direction(const char *family,
                                           enum metric_type type);

/* The run has a rate per wall-clock second judged by its CPU-time twin
 * instead (see the top of this file: only with c->judge_cpu_time). */
bool baseline_judges_cpu_time(const struct result *res, const struct detector_config *c);

/* Feed one run (at res->started): every tracked figure of `res` updates
 * its series (created on first sight), and gets seen = true and its
 * verdict; every other series gets seen = false.  `counted` is false for
 * runs taken while the host was busy: they are judged, but change nothing.
 * A failed run (res->success false) changes nothing and sees nothing.
 * -EINVAL (bad config), -ENOMEM (b may then hold some updates). */
int baseline_update(struct baseline *b, const struct result *res,
                    const struct detector_config *c, bool counted);

/* For `verify`: compare each tracked figure of runs[0..n) (failed runs
 * are skipped; n <= DETECTOR_REF_MAX) with its pinned reference
 * (detector_verify), changing nothing stored.  Series get seen, verdict
 * (the reference, and the fresh runs' median as value) and check.
 * Returns the probe's outcome: DETECTOR_VERIFY_FAIL when a series fails,
 * else DETECTOR_VERIFY_MORE when one is not clear yet, else PASS;
 * -ENODATA when no figure has a pinned reference yet; -EINVAL, -ENOMEM. */
int baseline_verify(struct baseline *b, const struct result *const *runs, size_t n_runs,
                    const struct detector_config *c, unsigned min_runs, unsigned max_runs);

/* `baseline accept`: every pinned series takes its recent level as its
 * new reference (detector_accept), at time t.  The number of series
 * accepted, or -EAGAIN when none could be (none pinned, too few runs). */
int baseline_accept(struct baseline *b, const struct detector_config *c, double t);

/* `baseline import`: pin the reference of series `key` (added when new)
 * on v[0..n) at time t.  -EINVAL for a key that is not canonical or too
 * few or bad values, -EDOM for a figure that is not tracked, -ENOMEM. */
int baseline_import(struct baseline *b, const char *key, const double *v, size_t n,
                    double t);




/* A run's context (context.h) for b: becomes the context of the last run,
 * and the reference's too while no series of b is pinned yet.  *ret_change
 * (malloc'd, NULL when nothing changed or b had seen no run yet) says what
 * differs from the last run's.  0 or -ENOMEM. */
int baseline_note_context(struct baseline *b, const struct context *now,
                          char **ret_change);

const struct baseline_series *baseline_find(const struct baseline *b,
                                            const char *key);

#endif
