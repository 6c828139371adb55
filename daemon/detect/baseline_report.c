/* baseline_report.c — see baseline_report.h. */
#include "detect/baseline_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/format.h"
#include "util/strutil.h"

/* Label list of a series' gauges: metric="<family>" then its labels. */
static const char **series_labels(const struct baseline_series *s)
{
        const char **lv = malloc((2 * s->n_labels + 3) * sizeof(*lv));
        if (!lv)
                return NULL;
        lv[0] = "metric";
        lv[1] = s->metric;
        for (size_t i = 0; i < s->n_labels; i++) {
                /* "metric" is ours here (Prometheus' way out of a clash),
                 * and "quantile" is reserved to summaries: these are gauges */
                const char *n = s->labels[i].name;
                lv[2 + 2 * i] = !strcmp(n, "metric")     ? "exported_metric"
                                : !strcmp(n, "quantile") ? "metric_quantile"
                                                         : n;
                lv[3 + 2 * i] = s->labels[i].value;
        }
        lv[2 + 2 * s->n_labels] = NULL;
        return lv;
}

static const struct {
        const char *name, *help;
} series_families[] = {
        { "benchwatch_regression", "1 while the figure named by `metric` is in a regression "
                                   "against its reference, else 0" },
        { "benchwatch_baseline_runs", "Counted runs the reference of the figure named by `metric` "
                                      "holds: verdicts from [regression] min_runs, pinned at "
                                      "reference_runs" },
        { "benchwatch_baseline", "Reference of the figure named by `metric` (learnt over the "
                                 "commissioning window, pinned at its end), in its unit" },
        { "benchwatch_baseline_timestamp_seconds", "When the reference of the figure named by "
                                                   "`metric` was pinned or last accepted, UNIX "
                                                   "time" },
        { "benchwatch_baseline_noise_ratio", "Relative per-run noise of the figure named by "
                                             "`metric` in its reference window (robust sd of the "
                                             "log)" },
        { "benchwatch_regression_ratio", "This run's figure divided by its reference" },
        { "benchwatch_regression_change_ratio", "Recent level of the figure against its reference, "
                                                "minus 1 (-0.14 is 14% lower): the median of the "
                                                "runs since the evidence began to accumulate (in a "
                                                "regression, since its likeliest start), else of "
                                                "the last recent_runs counted runs" },
        { "benchwatch_regression_change_low_ratio", "Lower end of the 95% confidence interval of "
                                                    "the change ratio" },
        { "benchwatch_regression_change_high_ratio", "Upper end of the 95% confidence interval of "
                                                     "the change ratio" },
        { "benchwatch_regression_evidence", "Accumulated evidence that the figure got worse (CUSUM "
                                            "over the alarm level): 1 or more is enough" },
};

static int add_series_metrics(const struct baseline_series *s, struct result *res)
{
        const struct detector_verdict *v = &s->verdict;
        const double values[] = {
                v->regression ? 1 : 0, v->learnt, v->reference,
                v->pinned ? v->reference_time : NAN, v->noise, v->ratio,
                v->change, v->change_lo, v->change_hi, v->evidence,
        };
        const char **lv = series_labels(s);
        int r = lv ? 0 : -ENOMEM;
        for (size_t i = 0; i < sizeof(values) / sizeof(values[0]) && r >= 0; i++) {
                /* state and runs always; the figures once verdicts are given */
                if (i > 1 && (!v->valid || !isfinite(values[i])))
                        continue;
                r = result_add(res, series_families[i].name, series_families[i].help,
                               METRIC_GAUGE, lv, values[i], NULL);
        }
        free(lv);
        return r;
}

int baseline_report_metrics(const struct baseline *b, struct result *res, bool counted)
{
        int r = result_add(res, "benchwatch_probe_counted",
                           "1 when the run counted towards the references, 0 when it was "
                           "judged only (taken while the host was busy)", METRIC_GAUGE, NULL,
                           counted ? 1 : 0, NULL);
        for (size_t i = 0; i < b->n_series && r >= 0; i++)
                if (b->series[i].seen)
                        r = add_series_metrics(&b->series[i], res);
        return r;
}

/* "of 2026-11-30", UTC, of the reference's pinning; a reference still
 * being learnt (verdicts start at its tenth run) has no day yet. */
static void format_reference_day(double t, char *buf, size_t size)
{
        time_t tt = (time_t)t;
        struct tm tm;
        char day[16];
        if (!(t > 0) || !gmtime_r(&tt, &tm) || !strftime(day, sizeof(day), "%Y-%m-%d", &tm))
                snprintf(buf, size, "learnt so far");
        else
                snprintf(buf, size, "of %s", day);
}

char *baseline_report_change(const struct baseline_series *s, double change, double lo,
                             double hi)
{
        char day[32];
        format_reference_day(s->verdict.reference_time, day, sizeof(day));
        return str_printf("%+.1f%% vs the reference %s (95%% CI %+.0f..%+.0f%%)",
                          change * 100, day, lo * 100, hi * 100);
}

char *baseline_report_context_change(const struct baseline *b)
{
        return context_diff(&b->context, &b->seen);
}

char *baseline_report_transition(const struct baseline *b, const struct baseline_series *s)
{
        const struct detector_verdict *v = &s->verdict;
        if (!s->seen || v->transition == DETECTOR_STEADY)
                return NULL;
        char *change = baseline_report_change(s, v->change, v->change_lo, v->change_hi);
        char *ctx = v->transition == DETECTOR_ENTERED ? baseline_report_context_change(b) : NULL;
        char run[32], ref[32];
        baseline_report_figure(s, v->value, run, sizeof(run));
        baseline_report_figure(s, v->reference, ref, sizeof(ref));
        char *m =
                change ? str_printf("probe '%s': %s %s: %s; this run %s, reference %s "
                                    "(noise %.1f%% a run, %s is worse)%s%s",
                                    b->probe, s->key,
                                    v->transition == DETECTOR_ENTERED ? "entered a regression"
                                                                      : "recovered from its "
                                                                        "regression",
                                    change, run, ref, v->noise * 100,
                                    s->direction == DETECTOR_HIGHER_IS_BETTER ? "lower" : "higher",
                                    ctx ? "; measured on another context than the reference: " : "",
                                    ctx ? ctx : "")
                       : NULL;
        free(ctx);
        free(change);
        return m;
}

const char *baseline_report_figure(const struct baseline_series *s, double v, char *buf,
                                   unsigned size)
{
        return format_quantity(v, str_has_suffix(s->metric, "_seconds"), buf, size);
}
