/* baseline.h — each probe's history of its own figures, kept across restarts.
 *
 * A probe's baseline is a set of *series*, one per figure whose direction
 * is clear, each with a detector (detector.h) holding the recent accepted
 * values and the regression state.  A series is a metric family plus the
 * labels that change its meaning, written as a canonical key: labels
 * sorted by name, values escaped as in the Prometheus text format (\\, \"
 * and \n), e.g.
 *     benchwatch_disk_iops{mode="randread",op="read"}
 *     benchwatch_disk_latency_seconds{op="read",quantile="0.99"}
 * Tracked: gauges named *_per_second or *iops* (higher is better) or
 * *latency*_seconds (lower is better), and of every summary named
 * *_seconds (a latency) the quantiles 0.5, 0.95 and 0.99 (lower is better).
 * In the exported gauges (benchwatch_baseline...) a series' quantile label
 * is called metric_quantile: `quantile` is reserved to summaries.
 * Not tracked: counters, benchwatch_probe_*, benchwatch_baseline and
 * benchwatch_regression*, and gauges with no clear "worse" (error counts,
 * durations, timestamps).
 *
 * The series survive restarts through baseline_store.h.
 *
 * Nothing here logs or touches a file: errors come back as -errno. */
#ifndef BENCHWATCH_BASELINE_H
#define BENCHWATCH_BASELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "detector.h"
#include "result.h"

struct baseline_series {
        char *key;            /* canonical, see above */
        char *metric;         /* family name, e.g. "benchwatch_disk_iops" */
        struct label *labels; /* the key's labels, sorted by name */
        size_t n_labels;
        enum detector_direction direction;
        struct detector det;  /* stored */
        /* Outcome of the last baseline_update()/baseline_compare() on this
         * object (not stored): whether the results had this series, and the
         * verdict on it. */
        bool seen;
        struct detector_verdict verdict;
};

struct baseline {
        char *probe;
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
 * above) or dir is DETECTOR_NONE; -EEXIST when b has it; -ENOMEM. */
int baseline_add_series(struct baseline *b, const char *key,
                        enum detector_direction dir, const struct detector *det);

/* Direction of a family, by its name and type (see the top of this file). */
enum detector_direction baseline_direction(const char *family,
                                           enum metric_type type);

/* Feed one run: every tracked figure of `res` updates its series (created
 * on first sight), and gets seen = true and its verdict; every other series
 * gets seen = false.  `counted` is false for runs that were deferred or
 * taken while the host was busy: they are judged, but change nothing.
 * A failed run (res->success false) changes nothing and sees nothing.
 * -EINVAL (bad config), -ENOMEM (b may then hold some updates). */
int baseline_update(struct baseline *b, const struct result *res,
                    const struct detector_config *c, bool counted);

/* For `verify`: judge the median of each tracked figure over runs[0..n)
 * (n <= DETECTOR_WINDOW_MAX; failed runs are skipped) against the stored
 * window, without changing any window or state.  Series get seen and
 * verdict as above; verdict.valid false means "no baseline yet" (series
 * new or still warming up), verdict.bad a regression.  New series are
 * added with an empty history.  -EINVAL, -ENOMEM. */
int baseline_compare(struct baseline *b, const struct result *const *runs,
                     size_t n_runs, const struct detector_config *c);

/* Append to res, for every series seen by the last update/compare:
 *   benchwatch_regression{metric="<family>",<series labels>} 0 or 1,
 * and once past warm-up
 *   benchwatch_baseline{...}        the baseline (in the figure's unit),
 *   benchwatch_regression_ratio{...} this run's figure / baseline.
 * The probe label is added by the encoders, as for every family; a series
 * label that is itself called "metric" becomes "exported_metric". */
int baseline_add_metrics(const struct baseline *b, struct result *res);

/* The journal line for a series whose last verdict entered or left a
 * regression, with the figures, e.g.
 *   probe 'root': benchwatch_disk_iops{mode="randread",op="read"} entered a
 *   regression: 812.5 against a baseline of 1003 (-19.0%; noise 12.1, lower is worse)
 * malloc'd; NULL when there was no transition or no memory. */
char *baseline_transition_message(const struct baseline *b,
                                  const struct baseline_series *s);

const struct baseline_series *baseline_find(const struct baseline *b,
                                            const char *key);

#endif
