/* cmd_verify.c — `benchwatch verify`: after maintenance, is this host as
 * fast as its references?
 *
 * Each enabled probe runs until the comparison of its fresh runs with its
 * reference window is clear (detector_verify: a change worse than the
 * minimum effect with 99% confidence fails, one clearly inside it passes)
 * or [regression] verify_runs is reached, when the estimate decides.  The
 * reference may still be learnt: from [regression] min_runs counted runs
 * on, its own uncertainty widens the interval.  A table says, per figure,
 * the change, its 95% interval, the smallest worsening these runs would
 * have caught, how many runs it took and why it stopped; the exit code is
 * the verdict. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "cmd/status_file.h"
#include "core/evidence.h"
#include "core/log.h"
#include "core/runwatch.h"
#include "detect/baseline.h"
#include "detect/baseline_report.h"
#include "detect/baseline_store.h"
#include "detect/cause.h"
#include "detect/context.h"
#include "detect/tracker.h"
#include "detect/tracker_cause.h"
#include "encode/report_format.h"
#include "util/format.h"

static bool selected(const char *probe, char **names, size_t n)
{
        if (!n)
                return true;
        for (size_t i = 0; i < n; i++)
                if (!strcmp(names[i], probe))
                        return true;
        return false;
}

static const char *verdict_text(const struct baseline_series *s)
{
        if (!s->verdict.valid)
                return "learning";
        if (s->check.outcome == DETECTOR_VERIFY_FAIL)
                return "REGRESSION";
        return s->check.outcome == DETECTOR_VERIFY_PASS ? "ok" : "unclear";
}

static void print_json_row(const struct baseline *b, const struct baseline_series *s)
{
        const struct detector_verdict *v = &s->verdict;
        const struct detector_verify_verdict *c = &s->check;
        printf("{\"probe\":");
        report_format_json_string(stdout, b->probe);
        printf(",\"metric\":");
        report_format_json_string(stdout, s->key);
        printf(",\"baseline\":%.9g,\"now\":%.9g", isfinite(v->reference) ? v->reference : 0,
               v->value);
        printf(",\"reference_runs\":%u,\"pinned\":%s", s->det.n_ref,
               s->det.pinned ? "true" : "false");
        if (v->valid)
                printf(",\"change\":%.6g,\"change_low\":%.6g,\"change_high\":%.6g,"
                       "\"detectable\":%.6g,\"p_worse\":%.4g,\"runs\":%u,\"decided\":\"%s\"",
                       c->change, c->change_lo, c->change_hi, c->detectable, c->p_worse, c->runs,
                       c->at_bound                          ? "bound"
                       : c->outcome == DETECTOR_VERIFY_MORE ? "unclear"
                                                            : "clear");
        printf(",\"verdict\":\"%s\"}", verdict_text(s));
}

static void print_table_row(const struct baseline *b, const struct baseline_series *s)
{
        const struct detector_verdict *v = &s->verdict;
        const struct detector_verify_verdict *c = &s->check;
        char ci[48] = "-", ch[16] = "-", ref[32] = "-", now[32], runs[16] = "-", mde[16] = "-";
        if (v->valid) {
                snprintf(ch, sizeof(ch), "%+.1f%%", c->change * 100);
                snprintf(ci, sizeof(ci), "%+.1f..%+.1f%%", c->change_lo * 100, c->change_hi * 100);
                snprintf(mde, sizeof(mde), "%.1f%%", c->detectable * 100);
                snprintf(runs, sizeof(runs), "%u", c->runs);
                baseline_report_figure(s, v->reference, ref, sizeof(ref));
        }
        baseline_report_figure(s, v->value, now, sizeof(now));
        /* the key last: as long as its labels make it, the columns stay put */
        printf("%-14s", b->probe);
        report_format_cell(stdout, ref, 10);
        report_format_cell(stdout, now, 10);
        printf(" %8s %16s %8s %4s  %-10s  %s\n", ch, ci, mde, runs, verdict_text(s), s->key);
}

static void print_rows(const struct baseline *b, enum output_format fmt, bool *first)
{
        for (size_t i = 0; i < b->n_series; i++) {
                const struct baseline_series *s = &b->series[i];
                if (!s->seen)
                        continue;
                if (fmt == FORMAT_JSON) {
                        printf("%s", *first ? "" : ",");
                        print_json_row(b, s);
                } else {
                        print_table_row(b, s);
                }
                *first = false;
        }
}

/* The first failing figure, for the probe's summary line. */
static const struct baseline_series *first_failure(const struct baseline *b)
{
        for (size_t i = 0; i < b->n_series; i++)
                if (b->series[i].seen && b->series[i].check.outcome == DETECTOR_VERIFY_FAIL)
                        return &b->series[i];
        return NULL;
}

/* What the last run was measured on that the reference was not. */
static char *context_change(const struct baseline *b, const struct result *last)
{
        struct context host = { 0 }, now = { 0 };
        char *change = NULL;
        if (context_read_this_host(&host) >= 0 && context_of_run(&host, last, &now) >= 0)
                change = context_diff(&b->context, &now);
        context_clear(&host);
        context_clear(&now);
        return change;
}

/* " (a reference of 12 runs, still being learnt)" or "". */
static const char *learning_note(const struct baseline *b, const struct tracker_settings *ts)
{
        static char note[96];
        unsigned least = ts->det.reference_runs;
        for (size_t i = 0; i < b->n_series; i++)
                if (b->series[i].seen && !b->series[i].det.pinned &&
                    b->series[i].det.n_ref < least)
                        least = b->series[i].det.n_ref;
        if (least >= ts->det.reference_runs)
                return "";
        snprintf(note, sizeof(note), " (against a reference of %u runs, still being learnt)",
                 least);
        return note;
}

/* Why verify stopped with this probe, on stderr. */
static void print_stop(const struct probe_cfg *pc, const struct baseline *b, int outcome,
                       size_t runs, const struct tracker_settings *ts,
                       const struct result *last)
{
        const struct baseline_series *f = first_failure(b);
        bool bound = runs >= ts->verify_max_runs;
        if (f) {
                char *t = baseline_report_change(f, f->check.change, f->check.change_lo,
                                                 f->check.change_hi);
                char *ctx = context_change(b, last);
                fprintf(stderr, "%s: FAIL after %zu run(s)%s%s: %s %s\n", pc->name, runs,
                        bound ? " (the bound)" : "", learning_note(b, ts), f->key, t ? t : "");
                if (ctx)
                        fprintf(stderr, "%s: measured on another context than the reference: %s\n",
                                pc->name, ctx);
                free(ctx);
                free(t);
        } else if (outcome == DETECTOR_VERIFY_PASS && !bound) {
                fprintf(stderr, "%s: pass after %zu run(s): no figure is worse than its "
                                "reference by %.0f%% or more, clearly%s\n", pc->name, runs,
                        ts->det.threshold * 100, learning_note(b, ts));
        } else {
                fprintf(stderr, "%s: pass at the bound (%zu runs, [regression] verify_runs): "
                                "no figure is significantly worse than its reference by %.0f%% "
                                "or more%s\n", pc->name, runs, ts->det.threshold * 100,
                        learning_note(b, ts));
        }
}

/* How long the probe's last run took, as the daemon's status.txt says
 * (seconds); NAN when it does not say. */
static double last_took(const char *state_dir, const char *probe)
{
        struct status_file *sf = NULL;
        char *why = NULL;
        double took = NAN;
        if (status_file_read(state_dir, &sf, &why) >= 0 && sf) {
                const struct status_file_probe *sp = status_file_find(sf, probe);
                if (sp && sp->took > 0)
                        took = sp->took;
        }
        free(why);
        status_file_free(sf);
        return took;
}

/* The probe's references; EXIT_USAGE, with a line per probe saying how
 * many runs its reference holds and when a verdict is possible, while no
 * figure has min_runs yet. */
static int load_reference(const struct app *app, const char *state_dir,
                          const struct probe_cfg *pc, const struct tracker_settings *ts,
                          struct baseline **ret, size_t *waiting)
{
        char *why = NULL;
        int r = baseline_store_read(state_dir, pc->name, ret, &why);
        if (r < 0) {
                log_error("%s", why ? why : strerror(-r));
                free(why);
                return EXIT_USAGE;
        }
        unsigned most = 0, min = ts->det.min_runs < ts->det.reference_runs ?
                                 ts->det.min_runs : ts->det.reference_runs;
        for (size_t i = 0; i < (*ret)->n_series; i++) {
                const struct detector *d = &(*ret)->series[i].det;
                if (d->pinned || d->n_ref >= min)
                        return EXIT_OK;
                if (d->n_ref > most)
                        most = d->n_ref;
        }
        /* as status and the daemon say it: runs a mean period apart, each
         * as long as the last (the duty cycle's pause after a long one) */
        char when[32];
        double period = conf_daemon_mean_period(app->cfg->daemon->values, pc->interval,
                                                last_took(state_dir, pc->name));
        format_duration_about((min - most) * period, when, sizeof(when));
        log_error("%s probe '%s': no verdict possible yet: its reference in %s holds %u of "
                  "the %u counted runs a verdict needs ([regression] min_runs); the daemon "
                  "adds %u more in about %s",
                  pc->plugin->name, pc->name, state_dir, most, min, min - most, when);
        baseline_free(*ret);
        *ret = NULL;
        (*waiting)++;
        return EXIT_USAGE;
}

/* One run of the probe, with what the host went through during it (the
 * CPU time the hypervisor stole, pressure, the evidence of its counters)
 * recorded beside its figures, as the daemon records it. */
static struct result *verify_run(struct app *app, const struct probe_cfg *pc,
                                 struct evidence_host *ev)
{
        struct run_spec spec;
        struct runwatch w;
        app_run_spec(app, pc->name, pc->plugin, pc->params, pc->timeout, &spec);
        runwatch_start(&w, ev);
        struct result *res = runner_run_sync(&spec);
        if (res && res->success)
                (void)runwatch_add(&w, ev, NULL, res);
        return res;
}

/* The cause of the failing figure's regression over these runs. */
static void print_cause(const char *state_dir, const struct probe_cfg *pc,
                        const struct baseline *b, struct result *const *res, size_t n)
{
        const struct baseline_series *f = first_failure(b);
        struct cause c;
        if (!f || tracker_cause_verify(state_dir, f, f->check.change,
                                       (const struct result *const *)res, n, &c) < 0)
                return;
        if (c.label)
                fprintf(stderr, "%s: cause: %s%s%s\n", pc->name, c.name,
                        c.evidence ? ", " : "", c.evidence ? c.evidence : "");
        cause_clear(&c);
}

/* Runs one probe until its comparison is clear; returns an exit code. */
static int verify_probe(struct app *app, const struct probe_cfg *pc,
                        const struct tracker_settings *ts, enum output_format fmt, bool *first,
                        size_t *waiting, struct evidence_host *ev)
{
        const char *state_dir = app_daemon_option(app, "state_dir")->s;
        struct baseline *b = NULL;
        int ex = load_reference(app, state_dir, pc, ts, &b, waiting);
        if (ex != EXIT_OK)
                return ex;
        struct result *res[ts->verify_max_runs];
        int outcome = DETECTOR_VERIFY_MORE;
        size_t n = 0, stolen = 0;
        while (ex == EXIT_OK && outcome == DETECTOR_VERIFY_MORE && n < ts->verify_max_runs) {
                if (fmt == FORMAT_TABLE)
                        fprintf(stderr, "%s: run %zu (at most %u) ...\n", pc->name, n + 1,
                                ts->verify_max_runs);
                res[n] = verify_run(app, pc, ev);
                if (!res[n] || !res[n]->success) {
                        log_error("%s probe '%s': %s", pc->plugin->name, pc->name,
                                  res[n] ? res[n]->error : "out of memory");
                        n += res[n] != NULL;
                        ex = EXIT_USAGE;
                        break;
                }
                /* as in the daemon: a run the hypervisor took the CPU from is
                 * not a measurement of this host; it is run again (as often
                 * as verify_runs at most) */
                char *why = NULL;
                if (!tracker_run_counts(ts, res[n], NULL, &why) && stolen < ts->verify_max_runs) {
                        stolen++;
                        log_notice("%s probe '%s': run not counted, run again: %s",
                                   pc->plugin->name, pc->name, why ? why : "host busy");
                        free(why);
                        result_free(res[n]);
                        continue;
                }
                free(why);
                n++;
                outcome = baseline_verify(b, (const struct result *const *)res, n, &ts->det,
                                          ts->verify_min_runs, ts->verify_max_runs);
                if (outcome < 0) {
                        log_error("%s probe '%s': %s", pc->plugin->name, pc->name,
                                  outcome == -ENODATA ? "no figure of these runs has a reference"
                                                      : strerror(-outcome));
                        ex = outcome == -ENODATA ? EXIT_USAGE : EXIT_ENV;
                }
        }
        if (ex == EXIT_OK) {
                ex = outcome == DETECTOR_VERIFY_FAIL ? EXIT_FAILED : EXIT_OK;
                if (fmt == FORMAT_TABLE)
                        print_stop(pc, b, outcome, n, ts, res[n - 1]);
                if (fmt == FORMAT_TABLE && outcome == DETECTOR_VERIFY_FAIL)
                        print_cause(state_dir, pc, b, res, n);
                print_rows(b, fmt, first);
        }
        for (size_t i = 0; i < n; i++)
                result_free(res[i]);
        baseline_free(b);
        return ex;
}

static void verify_usage(FILE *f)
{
        fprintf(f, "Usage: benchwatch verify [--probe NAME ...] [--format=table|json]\n\n"
                   "Runs each configured probe until the comparison of its fresh runs with\n"
                   "its reference is clear (at least [regression] verify_min_runs, at most\n"
                   "verify_runs runs), and prints the change of every figure with its 95%%\n"
                   "confidence interval and the smallest worsening the runs would have\n"
                   "caught (\"detects\", with 80%% power).  A figure fails when it is worse\n"
                   "than its reference by more than [regression] threshold with 99%%\n"
                   "confidence.  A reference still being learnt serves from [regression]\n"
                   "min_runs counted runs on, its own uncertainty in the interval.\n"
                   "Exit status: 0 all pass, 1 a regression, 2 an error (e.g. a reference\n"
                   "with fewer than min_runs runs).\n");
}

static int parse_verify_args(int argc, char **argv, char **names, size_t *n_names,
                             enum output_format *fmt)
{
        static const struct option opts[] = {
                { "probe", required_argument, NULL, 'p' },
                { "format", required_argument, NULL, 'f' },
                { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        int c;
        while ((c = cli_getopt("verify", argc, argv, "h", opts)) != -1) {
                if (c == 'p')
                        names[(*n_names)++] = optarg;
                else if (c == 'f' && report_format_parse(optarg, fmt) == 0 &&
                         *fmt != FORMAT_PROMETHEUS)
                        continue;
                else {
                        if (c == 'f')
                                log_error("verify: unknown format '%s' (table or json)", optarg);
                        verify_usage(c == 'h' ? stdout : stderr);
                        return c == 'h' ? EXIT_OK : EXIT_USAGE;
                }
        }
        if (optind < argc) {
                log_error("verify: unexpected argument '%s'", argv[optind]);
                verify_usage(stderr);
                return EXIT_USAGE;
        }
        return -1;
}

int cmd_verify(struct app *app, int argc, char **argv)
{
        enum output_format fmt = FORMAT_TABLE;
        char *names[argc];
        size_t n_names = 0;
        int ex = parse_verify_args(argc, argv, names, &n_names, &fmt);
        if (ex >= 0)
                return ex;
        ex = app_init(app);
        if (ex != EXIT_OK)
                return ex;
        for (size_t i = 0; i < n_names; i++)
                if (!conf_find_probe(app->cfg, names[i])) {
                        log_error("verify: no configured probe '%s' in %s", names[i],
                                  app->cfg->source);
                        ex = EXIT_USAGE;
                }
        if (ex == EXIT_USAGE) { /* nothing checked: no table to show */
                app_done(app);
                return ex;
        }
        struct tracker_settings ts;
        tracker_settings(app->cfg, &ts);
        bool first = true;
        if (fmt == FORMAT_TABLE)
                printf("%-14s %10s %10s %8s %16s %8s %4s  %-10s  %s\n", "probe", "reference",
                       "now", "change", "95% CI", "detects", "runs", "verdict", "metric");
        else
                printf("{\"results\":[");
        size_t checked = 0, waiting = 0;
        bool bad_usage = false;
        struct evidence_host *ev = NULL; /* none: the runs have no evidence */
        (void)evidence_host_new(runwatch_root(), KMSG_FROM_NOW, &ev);
        for (size_t i = 0; !bad_usage && i < app->cfg->n_probes; i++) {
                const struct probe_cfg *pc = &app->cfg->probes[i];
                if (!pc->enabled || !selected(pc->name, names, n_names))
                        continue;
                size_t was_waiting = waiting;
                int r = verify_probe(app, pc, &ts, fmt, &first, &waiting, ev);
                checked++;
                /* a probe whose reference is too short does not stop the others */
                bad_usage = r == EXIT_USAGE && waiting == was_waiting;
                if (r != EXIT_OK && (ex == EXIT_OK || r == EXIT_USAGE || r == EXIT_ENV))
                        ex = r;
        }
        evidence_host_free(ev);
        if (!checked && ex == EXIT_OK) {
                log_error("verify: no enabled probe to check in %s", app->cfg->source);
                ex = EXIT_USAGE;
        }
        if (fmt == FORMAT_JSON)
                printf("],\"status\":\"%s\"}\n", ex == EXIT_OK       ? "pass"
                                                 : ex == EXIT_FAILED ? "regression"
                                                                     : "error");
        else if (waiting)
                printf("\nERROR: no verdict possible yet for %zu of %zu probe(s): their "
                       "references are still too short (see above)\n", waiting, checked);
        else
                printf("\n%s: %zu probe(s) checked\n",
                       ex == EXIT_OK       ? "PASS"
                       : ex == EXIT_FAILED ? "FAIL (regression)"
                                           : "ERROR",
                       checked);
        app_done(app);
        return ex;
}
