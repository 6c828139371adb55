/* baseline_report.h — what a baseline's verdicts say: to Prometheus, the
 * gauges appended to each run (benchwatch_regression, benchwatch_baseline
 * ...); to people, the change of a series against its reference, the
 * journal line of a series entering or leaving a regression, what changed
 * of the context since the reference, and a figure in people's units.
 * Pure formatting of a struct baseline (baseline.h): nothing here logs. */
#ifndef BENCHWATCH_BASELINE_REPORT_H
#define BENCHWATCH_BASELINE_REPORT_H

#include <stdbool.h>

#include "core/result.h"
#include "detect/baseline.h"

/* Append to res benchwatch_probe_counted (1 or 0) and, for every series
 * seen by the last update:
 *   benchwatch_regression{metric="<family>",<series labels>} 0 or 1,
 * and once the reference is pinned
 *   benchwatch_baseline{...}                 the pinned reference, figure's unit
 *   benchwatch_baseline_timestamp_seconds    when it was pinned or accepted
 *   benchwatch_baseline_noise_ratio          its relative noise per run
 *   benchwatch_regression_ratio{...}         this run's figure / reference
 *   benchwatch_regression_change_ratio       recent level / reference - 1
 *   benchwatch_regression_change_{low,high}_ratio  its 95% interval
 *   benchwatch_regression_evidence           CUSUM / alarm level
 * The probe label is added by the encoders, as for every family; a series
 * label that is itself called "metric" becomes "exported_metric". */
int baseline_report_metrics(const struct baseline *b, struct result *res, bool counted);

/* "-14.2% vs the reference of 2026-11-30 (95% CI -17..-11%)" for series s
 * (its verdict's reference time); malloc'd, NULL when out of memory. */
char *baseline_report_change(const struct baseline_series *s, double change, double lo,
                             double hi);

/* What differs between the reference's context and the last run's, or
 * NULL (also when either is unknown); malloc'd. */
char *baseline_report_context_change(const struct baseline *b);

/* The journal line for a series whose last verdict entered or left a
 * regression, e.g.
 *   probe 'root': benchwatch_disk_iops{mode="randread",op="read"} entered a
 *   regression: -14.2% vs the reference of 2026-11-30 (95% CI -17..-11%);
 *   this run 812, reference 1.00k (noise 2.1% a run, lower is worse)
 * and, on entering, what changed since the reference was learnt
 * ("; measured on another context than the reference: kernel A → B").
 * malloc'd; NULL when there was no transition or no memory. */
char *baseline_report_transition(const struct baseline *b, const struct baseline_series *s);

/* The series' figure for people: "64.5 µs" for a latency, "26.2k" for a
 * rate (format_quantity); buf returned. */
const char *baseline_report_figure(const struct baseline_series *s, double v, char *buf,
                                   unsigned size);

#endif
