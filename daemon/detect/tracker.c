/* tracker.c — see tracker.h. */
#include "detect/tracker.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "detect/baseline.h"
#include "detect/baseline_report.h"
#include "detect/baseline_store.h"
#include "detect/history.h"
#include "detect/tracker_cause.h"
#include "util/format.h"
#include "util/parse.h"
#include "util/reserve.h"
#include "util/strutil.h"

enum {
        T_MIN_RUNS, T_REFERENCE_RUNS, T_RECENT_RUNS, T_THRESHOLD, T_ALLOWANCE, T_ALARM, T_CLAMP,
        T_DRIFT_ALARM,
        T_MAX_STEAL, T_VERIFY_MIN_RUNS, T_VERIFY_RUNS, T_MAX_RUN_DELAY, T_JUDGE,
        T_OBSOLETE, /* options no longer used: the per-run rule's, from
                     * before the CUSUM, and the host-wide share */
        T_WINDOW = T_OBSOLETE, T_WARMUP, T_NOISE_K, T_DEBOUNCE, T_MAX_OTHERS_CPU,
};

#define OBSOLETE PARAM_OBSOLETE_HELP

static const char *const judge_choices[] = { "cpu_time", "wall_clock", NULL };

const struct bw_param_def tracker_options[] = {
        [T_MIN_RUNS] = {
                .name = "min_runs", .type = BW_PARAM_INT,
                .default_value = "10", .min = DETECTOR_REF_MIN,
                .max = DETECTOR_REF_MAX, .unit = "runs",
                .help = "counted runs the reference must hold before the first "
                        "verdict; until reference_runs, verdicts allow for the "
                        "reference's own uncertainty",
        },
        [T_REFERENCE_RUNS] = {
                .name = "reference_runs", .type = BW_PARAM_INT,
                .default_value = "100", .min = DETECTOR_REF_MIN,
                .max = DETECTOR_REF_MAX, .unit = "runs",
                .help = "counted runs the reference (level and noise) is "
                        "learnt over, then pinned",
        },
        [T_RECENT_RUNS] = {
                .name = "recent_runs", .type = BW_PARAM_INT,
                .default_value = "6", .min = 1, .max = DETECTOR_RECENT_MAX,
                .unit = "runs",
                .help = "counted runs the recent level (median) is taken over",
        },
        [T_THRESHOLD] = {
                .name = "threshold", .type = BW_PARAM_DOUBLE,
                .default_value = "0.05", .min = 0, .max = 0.99,
                .unit = "fraction",
                .help = "minimum change that is a regression (0.05 = 5% worse "
                        "than the reference)",
        },
        [T_ALLOWANCE] = {
                .name = "allowance", .type = BW_PARAM_DOUBLE,
                .default_value = "0.6", .min = 0, .max = 10,
                .unit = "noise units",
                .help = "CUSUM allowance: evidence a run adds is its residual "
                        "minus this",
        },
        [T_ALARM] = {
                .name = "alarm", .type = BW_PARAM_DOUBLE,
                .default_value = "8.5", .min = 0.1, .max = 1000,
                .unit = "noise units",
                .help = "CUSUM decision interval: accumulated evidence that "
                        "declares a regression",
        },
        [T_CLAMP] = {
                .name = "clamp", .type = BW_PARAM_DOUBLE,
                .default_value = "2.75", .min = 0.1, .max = 100,
                .unit = "noise units",
                .help = "most evidence one run can add, so no single wild run "
                        "alarms",
        },
        [T_DRIFT_ALARM] = {
                .name = "drift_alarm", .type = BW_PARAM_DOUBLE,
                .default_value = "3.9", .min = 0, .max = 100,
                .unit = "noise units",
                .help = "decision level of the drift test (the likelihood "
                        "of a decline of 0.5% a run over the last runs against "
                        "the pinned reference); 0 turns it off",
        },
        [T_MAX_STEAL] = {
                .name = "max_steal", .type = BW_PARAM_DOUBLE,
                .default_value = "0.10", .min = 0, .max = 1, .unit = "fraction",
                .help = "a run of a probe judged by a wall-clock CPU figure "
                        "during which more of the host's CPU time was stolen "
                        "by the hypervisor is judged but not counted",
        },
        [T_VERIFY_MIN_RUNS] = {
                .name = "verify_min_runs", .type = BW_PARAM_INT,
                .default_value = "3", .min = 1, .max = DETECTOR_REF_MAX,
                .unit = "runs",
                .help = "fewest runs `benchwatch verify` decides on",
        },
        [T_VERIFY_RUNS] = {
                .name = "verify_runs", .type = BW_PARAM_INT,
                .default_value = "20", .min = 1, .max = DETECTOR_REF_MAX,
                .unit = "runs",
                .help = "most runs `benchwatch verify` makes of a probe; it "
                        "stops as soon as the answer is clear",
        },
        [T_MAX_RUN_DELAY] = {
                .name = "max_run_delay", .type = BW_PARAM_DOUBLE,
                .default_value = "0.10", .min = 0, .max = 100,
                .unit = "fraction",
                .help = "a run whose threads were kept from a CPU by other "
                        "work is judged but not counted: a CPU-bound probe's "
                        "(cpu, threads, memory) when they waited for a CPU "
                        "more than this share of the time they wanted one "
                        "(benchwatch_probe_cpu_wait_ratio), one waiting on a "
                        "device or server (disk, seqread, http, mysql) when "
                        "they were runnable but not running for more than "
                        "this share of the run (benchwatch_probe_run_delay_ratio)",
        },
        [T_JUDGE] = {
                .name = "judge", .type = BW_PARAM_ENUM,
                .default_value = "wall_clock", .choices = judge_choices,
                .help = "of a CPU-bound probe's rate, judge the work per "
                        "second of wall time, sysbench's figure (wall_clock), "
                        "or of its own CPU time (cpu_time: a neighbour cannot "
                        "lower it, nor can a CPU quota); the other is exported "
                        "only",
        },
        [T_WINDOW] = {
                .name = "window", .type = BW_PARAM_INT,
                .default_value = "20", .min = 3, .max = 100, .unit = "runs",
                .help = OBSOLETE "see reference_runs and recent_runs",
        },
        [T_WARMUP] = {
                .name = "warmup", .type = BW_PARAM_INT,
                .default_value = "5", .min = 1, .max = 100, .unit = "runs",
                .help = OBSOLETE "see reference_runs",
        },
        [T_NOISE_K] = {
                .name = "noise_k", .type = BW_PARAM_DOUBLE,
                .default_value = "3", .min = 0, .max = 100, .unit = "",
                .help = OBSOLETE "see allowance and alarm",
        },
        [T_DEBOUNCE] = {
                .name = "debounce", .type = BW_PARAM_INT,
                .default_value = "3", .min = 1, .max = 100, .unit = "runs",
                .help = OBSOLETE "see alarm",
        },
        [T_MAX_OTHERS_CPU] = {
                .name = "max_others_cpu", .type = BW_PARAM_DOUBLE,
                .default_value = "0.5", .min = 0, .max = 1, .unit = "fraction",
                .help = OBSOLETE "a run counts by what its own threads got "
                        "(see max_run_delay), not by how busy the host was",
        },
        { .name = NULL },
};

/* The settings of a [regression] section's options (NULL: none). */
static void settings_of(const struct param_set *ps, struct tracker_settings *ret)
{
        *ret = (struct tracker_settings){ 0 };
        detector_config_default(&ret->det);
        ret->verify_min_runs = 3;
        ret->verify_max_runs = 20;
        ret->max_steal = 0.10;
        ret->max_run_delay = 0.10;
        if (!ps)
                return;
        ret->det.min_runs = (unsigned)ps->values[T_MIN_RUNS].i;
        ret->det.reference_runs = (unsigned)ps->values[T_REFERENCE_RUNS].i;
        ret->det.recent_runs = (unsigned)ps->values[T_RECENT_RUNS].i;
        ret->det.threshold = ps->values[T_THRESHOLD].d;
        ret->det.allowance = ps->values[T_ALLOWANCE].d;
        ret->det.alarm = ps->values[T_ALARM].d;
        ret->det.clamp = ps->values[T_CLAMP].d;
        ret->det.drift_alarm = ps->values[T_DRIFT_ALARM].d;
        ret->max_steal = ps->values[T_MAX_STEAL].d;
        ret->max_run_delay = ps->values[T_MAX_RUN_DELAY].d;
        ret->det.judge_cpu_time = ps->values[T_JUDGE].i == 0;
        ret->verify_min_runs = (unsigned)ps->values[T_VERIFY_MIN_RUNS].i;
        ret->verify_max_runs = (unsigned)ps->values[T_VERIFY_RUNS].i;
}

void tracker_settings(const struct config *cfg, struct tracker_settings *ret)
{
        settings_of(cfg ? conf_section(cfg, "regression") : NULL, ret);
}

int tracker_check(const char *section, const struct param_set *ps, const char *state_dir,
                  char **ret_error)
{
        struct tracker_settings ts;
        (void)section, (void)state_dir;
        settings_of(ps, &ts);
        if (!(ts.det.clamp > ts.det.allowance)) {
                *ret_error = str_printf("clamp (%g) must be larger than allowance (%g)",
                                        ts.det.clamp, ts.det.allowance);
                return -EINVAL;
        }
        if (ps->values[T_MIN_RUNS].is_set && ts.det.min_runs > ts.det.reference_runs) {
                *ret_error = str_printf("min_runs (%u) is larger than reference_runs (%u)",
                                        ts.det.min_runs, ts.det.reference_runs);
                return -EINVAL;
        }
        if (ts.verify_min_runs > ts.verify_max_runs) {
                *ret_error = str_printf("verify_min_runs (%u) is larger than verify_runs (%u)",
                                        ts.verify_min_runs, ts.verify_max_runs);
                return -EINVAL;
        }
        return 0;
}

/* The run's figure named family, when it is above limit; else NAN. */
static double over(const struct result *res, const char *family, double limit)
{
        const struct sample *s = result_find_sample(res, family, NULL);
        return s && s->value > limit ? s->value : NAN;
}

/* The run's figure named family, or NAN. */
static double figure(const struct result *res, const char *family)
{
        const struct sample *s = result_find_sample(res, family, NULL);
        return s ? s->value : NAN;
}

/* The threads a run ran: its "threads" parameter, else 1. */
static double threads_of(const struct result *res)
{
        double n;
        for (size_t i = 0; i < res->n_params; i++)
                if (!strcmp(res->params[i].name, "threads") &&
                    parse_double(res->params[i].value, &n) >= 0 && n >= 1)
                        return n;
        return 1;
}

/* Of the time a CPU-bound run's threads wanted a CPU, the share they
 * waited for one that the daemon's CPU quota does not explain.  A thread
 * its cgroup's quota holds stays runnable (CFS bandwidth throttles the
 * group, not the task), so its run delay takes in the throttled time
 * (benchwatch_probe_cpu_throttled_seconds), up to all of it for each
 * thread: that wait is the quota's, which the run must still see (the
 * cause engine names it), not a neighbour's.  Without a quota's throttling
 * it is benchwatch_probe_cpu_wait_ratio; NAN when the run has none. */
static double wait_share_beyond_quota(const struct result *res)
{
        double share = figure(res, "benchwatch_probe_cpu_wait_ratio");
        double cpu = figure(res, "benchwatch_probe_cpu_seconds");
        double held = figure(res, "benchwatch_probe_cpu_throttled_seconds");
        if (!(held > 0) || !(cpu > 0) || !(share >= 0 && share < 1))
                return share;
        double wait = share * cpu / (1 - share) - threads_of(res) * held;
        return wait > 0 ? wait / (wait + cpu) : 0;
}

bool tracker_run_counts(const struct tracker_settings *ts, const struct result *res,
                        const char **ret_reason, char **ret_why)
{
        char *why = NULL;
        const char *reason = "cpu_wait";
        double v = res->io_bound ? NAN : wait_share_beyond_quota(res);
        if (!res->io_bound && v > ts->max_run_delay)
                why = str_printf("the probe's threads waited for a CPU %.1f%% of the time they "
                                 "wanted one%s (max_run_delay %.0f%%)", v * 100,
                                 figure(res, "benchwatch_probe_cpu_throttled_seconds") > 0 ?
                                 ", beyond their CPU quota's throttling" : "",
                                 ts->max_run_delay * 100);
        else if (res->io_bound &&
                 (v = figure(res, "benchwatch_probe_run_delay_ratio") / threads_of(res)) >
                 ts->max_run_delay)
                /* summed over the threads: each one's share, on average */
                why = str_printf("the probe's threads waited for a CPU %.1f%% of the run%s "
                                 "(max_run_delay %.0f%%)", v * 100,
                                 threads_of(res) > 1 ? " each, on average" : "",
                                 ts->max_run_delay * 100);
        else if (!res->disk_io && !baseline_judges_cpu_time(res, &ts->det) &&
                 !isnan(v = over(res, "benchwatch_probe_steal_ratio", ts->max_steal)) &&
                 (reason = "steal"))
                why = str_printf("%.1f%% of the CPU time was stolen by the hypervisor "
                                 "during the run (max_steal %.0f%%)", v * 100,
                                 ts->max_steal * 100);
        else
                return true;
        if (ret_reason)
                *ret_reason = reason;
        if (ret_why)
                *ret_why = why;
        else
                free(why);
        return false;
}

bool tracker_judged_on_own_time(const struct tracker_settings *ts, const struct result *res)
{
        return res->io_bound || baseline_judges_cpu_time(res, &ts->det);
}

struct tracker {
        char *state_dir;
        struct context host;
        const struct config *cfg;         /* the caller's; NULL: defaults */
        struct tracker_settings ts;       /* cfg's [regression] */
        struct log_ratelimit errors;
        struct tracker_cause_peers peers;  /* the probes seen run, those in regression */
};

void tracker_reload(struct tracker *t, const struct config *cfg)
{
        t->cfg = cfg;
        tracker_settings(cfg, &t->ts);
}

int tracker_new(const char *state_dir, const struct context *host,
                const struct config *cfg, struct tracker **ret)
{
        struct tracker *t = calloc(1, sizeof(*t));
        if (!t || !(t->state_dir = strdup(state_dir)) ||
            context_copy(&t->host, host) < 0) {
                if (t)
                        free(t->state_dir);
                free(t);
                return -ENOMEM;
        }
        t->errors.interval = 3600;
        tracker_reload(t, cfg);
        *ret = t;
        return 0;
}

void tracker_free(struct tracker *t)
{
        if (!t)
                return;
        free(t->state_dir);
        context_clear(&t->host);
        tracker_cause_peers_clear(&t->peers);
        free(t);
}

/* The stored baseline; a corrupt file was set aside: start afresh. */
static struct baseline *load(struct tracker *t, const char *probe)
{
        struct baseline *b = NULL;
        char *why = NULL;
        int r = baseline_store_load(t->state_dir, probe, &b, &why);
        if (r == -EBADMSG || r == -EPROTONOSUPPORT) {
                log_warning("%s", why ? why : strerror(-r));
                b = baseline_new(probe);
        } else if (r < 0 && log_ratelimit_ok(&t->errors)) {
                log_error("%s", why ? why : strerror(-r));
        }
        free(why);
        return b;
}

/* A figure that recovered; one that entered a regression is said with its
 * cause (name_cause). */
static void log_transitions(const struct baseline *b)
{
        for (size_t i = 0; i < b->n_series; i++) {
                if (b->series[i].verdict.transition != DETECTOR_LEFT)
                        continue;
                char *m = baseline_report_transition(b, &b->series[i]);
                if (m)
                        log_warning("%s", m);
                free(m);
        }
}

/* The run's tracked figures, with their reference and state, appended to
 * the probe's history. */
static void record_history(struct tracker *t, const struct baseline *b,
                           const struct result *res, bool counted)
{
        const struct config *cfg = t->cfg;
        struct history_entry e[b->n_series ? b->n_series : 1];
        size_t n = 0;
        char *why = NULL;
        for (size_t i = 0; i < b->n_series; i++) {
                const struct baseline_series *s = &b->series[i];
                const struct detector_verdict *v = &s->verdict;
                if (!s->seen)
                        continue;
                e[n++] = (struct history_entry){
                        .t = res->started, .counted = counted, .value = v->value,
                        .state = !v->valid ? HISTORY_LEARNING :
                                 v->regression ? HISTORY_REGRESSION : HISTORY_OK,
                        .reference = v->valid ? v->reference : NAN, .key = s->key,
                };
        }
        size_t max = cfg ? (size_t)cfg->daemon->values[CFG_D_HISTORY_SIZE].i : 8u << 20;
        int r = n ? history_append(t->state_dir, res->probe, e, n, max, &why) : 0;
        if (reserve_make_room(t->state_dir, r)) {
                free(why); /* the file system was full: again, in the reserve's room */
                why = NULL;
                r = history_append(t->state_dir, res->probe, e, n, max, &why);
        }
        if (r < 0 && log_ratelimit_ok(&t->errors))
                log_error("%s", why ? why : "cannot append to the history");
        free(why);
}

/* "kernel_release" -> "KERNEL_RELEASE": journal fields are upper case. */
static char *journal_field_name(const char *item)
{
        char *f = strdup(item);
        for (char *p = f; p && *p; p++)
                *p = (*p >= 'a' && *p <= 'z') ? (char)(*p - 'a' + 'A') :
                     ((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) ? *p : '_';
        return f;
}

/* One journal event per change of context between two runs of a probe. */
static void log_context_change(const struct baseline *b, const struct context *before,
                               const char *change)
{
        const struct context *now = &b->seen;
        char *owned[2 * now->n + 2];      /* the probe, the change, each item's 2 */
        const char *fields[2 * now->n + 5]; /* 2 more, and the NULL */
        size_t n = 0, k = 0;
        owned[k++] = str_printf("BENCHWATCH_PROBE=%s", b->probe);
        owned[k++] = str_printf("BENCHWATCH_CONTEXT_CHANGE=%s", change);
        for (size_t i = 0; i < now->n; i++) {
                const char *was = context_get(before, now->items[i].name);
                if (was && !strcmp(was, now->items[i].value))
                        continue;
                char *field = journal_field_name(now->items[i].name);
                owned[k++] = field ? str_printf("BENCHWATCH_%s_BEFORE=%s", field,
                                                was ? was : "") : NULL;
                owned[k++] = field ? str_printf("BENCHWATCH_%s_AFTER=%s", field,
                                                now->items[i].value) : NULL;
                free(field);
        }
        fields[n++] = "MESSAGE_ID=8d868cd2b3f64028a42c1320bee7683f";
        fields[n++] = "BENCHWATCH_EVENT=context-change";
        for (size_t i = 0; i < k; i++)
                if (owned[i])
                        fields[n++] = owned[i];
        fields[n] = NULL;
        log_event(LOG_NOTICE, fields, "probe '%s': measured on another context than its "
                  "last run: %s", b->probe, change);
        for (size_t i = 0; i < k; i++)
                free(owned[i]);
}

/* The run's context into b; a change is logged.  True when b changed in a
 * way worth saving even if the run is not counted. */
static bool note_context(struct tracker *t, struct baseline *b, const struct result *res)
{
        struct context now = { 0 }, before = { 0 };
        char *change = NULL;
        bool first = !b->seen.n;
        if (context_of_run(&t->host, res, &now) < 0 || context_copy(&before, &b->seen) < 0 ||
            baseline_note_context(b, &now, &change) < 0) {
                context_clear(&now);
                context_clear(&before);
                return false;
        }
        if (change)
                log_context_change(b, &before, change);
        free(change);
        bool changed = first || !context_equal(&before, &now);
        context_clear(&now);
        context_clear(&before);
        return changed;
}

/* The fewest runs any figure of this run has in its reference, or -1 when
 * every seen reference is pinned. */
static int learning_runs(const struct baseline *b)
{
        int least = -1;
        for (size_t i = 0; i < b->n_series; i++) {
                const struct baseline_series *s = &b->series[i];
                if (s->seen && !s->det.pinned && (least < 0 || (int)s->det.n_ref < least))
                        least = (int)s->det.n_ref;
        }
        return least;
}

/* While the reference is learnt: the journal says how many runs it holds
 * and when verdicts start (at notice level when they do and on the first
 * run, at info level between), and the textfile when the first verdict is
 * due (benchwatch_baseline_first_verdict_timestamp_seconds): runs a mean
 * period apart, the interval and its splay or, for long runs, the duty
 * cycle's pause (conf_daemon_mean_period). */
static int note_learning(const struct tracker *t, const struct baseline *b,
                         struct result *res, bool counted)
{
        const struct config *cfg = t->cfg;
        const struct tracker_settings *ts = &t->ts;
        int held = learning_runs(b);
        unsigned min = ts->det.min_runs < ts->det.reference_runs ? ts->det.min_runs :
                       ts->det.reference_runs;
        if (held < 0)
                return 0;
        const struct probe_cfg *pc = cfg ? conf_find_probe(cfg, res->probe) : NULL;
        double period = pc ? conf_daemon_mean_period(cfg->daemon->values, pc->interval,
                                                        res->duration) : NAN;
        if ((unsigned)held >= min) {
                if (counted && (unsigned)held == min)
                        log_notice("probe '%s': its reference holds %d counted runs: verdicts "
                                   "from now on, surer as it grows to %u runs, where it is pinned",
                                   b->probe, held, ts->det.reference_runs);
                return 0;
        }
        unsigned more = min - (unsigned)held;
        char when[32] = "";
        if (isfinite(period))
                format_duration_about(more * period, when, sizeof(when));
        if (counted)
                log_msg(held == 1 ? LOG_NOTICE : LOG_INFO,
                        "probe '%s': its reference holds %d of %u counted runs; the first "
                        "verdict after %u more%s%s", b->probe, held, ts->det.reference_runs,
                        more, *when ? ", in about " : "", when);
        if (!isfinite(period))
                return 0;
        return result_add(res, "benchwatch_baseline_first_verdict_timestamp_seconds",
                          "When the probe's first verdict is due if no run is deferred, while "
                          "its reference holds fewer than [regression] min_runs counted runs, "
                          "UNIX time",
                          METRIC_GAUGE, NULL, res->started + more * period, NULL);
}

/* Other probes' regressions that began within this of a probe's are one
 * event: twice the longest interval, at least 10 minutes. */
static double peer_window(const struct config *cfg)
{
        double w = 600;
        for (size_t i = 0; cfg && i < cfg->n_probes; i++)
                w = fmax(w, 2 * cfg->probes[i].interval);
        return w;
}

/* Whether the run just counted joined its figures' reference: one still
 * learnt (or pinned by this run), and no figure in regression (the
 * detector keeps those runs out of it; their evidence is the regression's,
 * not the reference's). */
static bool joined_reference(const struct baseline *b, double t)
{
        bool learnt = false;
        for (size_t i = 0; i < b->n_series; i++) {
                const struct baseline_series *s = &b->series[i];
                if (!s->seen)
                        continue;
                if (s->det.regression)
                        return false;
                learnt |= !s->det.pinned || s->det.pinned_at == t;
        }
        return learnt;
}

/* The cause of the probe's regression, named on the run and, when it is
 * entered or changes, in the journal with its evidence. */
static void name_cause(struct tracker *t, const struct baseline *b, struct result *res,
                       bool counted)
{
        struct tracker_cause_out out;
        int r = tracker_cause_note(t->state_dir, &t->peers, b, &t->ts.det, res, counted,
                                   joined_reference(b, res->started), peer_window(t->cfg),
                                   &out);
        if ((r < 0 || out.error) && log_ratelimit_ok(&t->errors))
                log_error("probe '%s': %s", res->probe,
                          out.error ? out.error : strerror(-r));
        if (out.line) {
                char *probe = str_printf("BENCHWATCH_PROBE=%s", res->probe);
                char *cause = str_printf("BENCHWATCH_CAUSE=%s", out.label ? out.label : "");
                const char *fields[] = { "BENCHWATCH_EVENT=regression", probe ? probe : "",
                                         cause ? cause : "", NULL };
                log_event(LOG_WARNING, fields, "%s", out.line);
                free(probe);
                free(cause);
        }
        tracker_cause_out_clear(&out);
}

/* Update the probe's baseline with a successful run and append the
 * verdict metrics to res. */
static void judge(struct tracker *t, struct result *res, bool counted)
{
        char *why = NULL;
        struct baseline *b = load(t, res->probe);
        if (!b)
                return;
        bool context_changed = note_context(t, b, res);
        int r = baseline_update(b, res, &t->ts.det, counted);
        if (r >= 0)
                log_transitions(b);
        if (r >= 0)
                r = baseline_report_metrics(b, res, counted);
        if (r >= 0)
                r = note_learning(t, b, res, counted);
        if (r >= 0)
                name_cause(t, b, res, counted);
        if (r >= 0 && (counted || context_changed) &&
            baseline_store_save(b, t->state_dir, &why) < 0 && log_ratelimit_ok(&t->errors))
                log_error("%s", why ? why : "cannot save the baseline");
        if (r >= 0)
                record_history(t, b, res, counted);
        free(why);
        baseline_free(b);
}

void tracker_observe(struct tracker *t, struct result *res, struct tracker_outcome *ret)
{
        *ret = (struct tracker_outcome){ .counted = res->success };
        if (!res->success) {
                ret->reason = "failed";
                ret->why = strdup(res->error ? res->error : "failed");
                return;
        }
        /* a run whose threads did not get their CPU is judged, not counted */
        if (!tracker_run_counts(&t->ts, res, &ret->reason, &ret->why)) {
                ret->counted = false;
                if (!ret->why)
                        ret->why = strdup("host busy");
                log_notice("%s probe '%s': run judged but not counted in the reference: %s",
                           res->plugin, res->probe, ret->why ? ret->why : "host busy");
        }
        judge(t, res, ret->counted);
}

void tracker_outcome_clear(struct tracker_outcome *o)
{
        free(o->why);
        *o = (struct tracker_outcome){ 0 };
}
