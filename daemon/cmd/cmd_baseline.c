/* cmd_baseline.c — `benchwatch baseline show|reset|accept|import`: look
 * at the references, and change them on purpose only: forget them
 * (a new disk: the daemon learns afresh), take the recent level as the new
 * normal (an intended change, e.g. a slower but safer kernel setting), or
 * seed one from a history the operator already has. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "detect/baseline.h"
#include "detect/baseline_report.h"
#include "detect/baseline_store.h"
#include "detect/evidence_store.h"
#include "detect/series_file.h"
#include "detect/tracker.h"
#include "encode/report_format.h"
#include "util/timeutil.h"

static void show_series(const struct baseline *b, const struct baseline_series *s,
                        const struct tracker_settings *ts)
{
        struct detector_verdict v;
        char state[32], day[32] = "-", change[16] = "-";
        detector_state(&s->det, &ts->det, s->direction, &v);
        /* a reference still being learnt gives verdicts from min_runs on:
         * its figures are shown from then, its state says how far it is */
        if (s->det.regression)
                snprintf(state, sizeof(state), "REGRESSION");
        else if (!s->det.pinned)
                snprintf(state, sizeof(state), "learning %u/%u", s->det.n_ref,
                         ts->det.reference_runs);
        else
                snprintf(state, sizeof(state), "ok");
        if (s->det.pinned) {
                time_t t = (time_t)s->det.pinned_at;
                struct tm tm;
                if (gmtime_r(&t, &tm))
                        strftime(day, sizeof(day), "%Y-%m-%d", &tm);
        }
        if (v.valid && isfinite(v.change))
                snprintf(change, sizeof(change), "%+.1f%%", v.change * 100);
        char ref[32] = "-", noise[16] = "-";
        if (v.valid && isfinite(v.reference))
                baseline_report_figure(s, v.reference, ref, sizeof(ref));
        if (v.valid && isfinite(v.noise))
                snprintf(noise, sizeof(noise), "%.1f%%", v.noise * 100);
        /* the key last: as long as its labels make it, the columns stay put */
        printf("%-14s %-14s", b->probe, state);
        report_format_cell(stdout, ref, 10);
        printf(" %7s %-10s %8s  %s\n", noise, day, change, s->key);
}

static int for_probes(const char *state_dir, char **probes, int n, char ***ret_all,
                      int *ret_n)
{
        if (n) {
                *ret_all = NULL;
                *ret_n = n;
                return 0;
        }
        char **all = NULL;
        int r = baseline_store_list(state_dir, &all);
        if (r < 0) {
                log_error("cannot list the baselines in %s: %s", state_dir, strerror(-r));
                return EXIT_ENV;
        }
        for (n = 0; all[n]; n++)
                ;
        *ret_all = all;
        *ret_n = n;
        return 0;
}

/* The cause named for a probe in regression, with its evidence. */
static void show_cause(const char *state_dir, const struct baseline *b)
{
        struct evidence_store es = { 0 };
        char *why = NULL;
        bool regression = false;
        for (size_t k = 0; k < b->n_series; k++)
                regression |= b->series[k].det.regression;
        if (!regression)
                return;
        if (evidence_store_load(state_dir, b->probe, &es, &why) < 0)
                log_warning("%s", why ? why : "cannot read the evidence");
        else if (es.cause_label)
                printf("%-14s cause of its regression: %s: %s\n", b->probe, es.cause_label,
                       es.cause_text ? es.cause_text : "");
        free(why);
        evidence_store_clear(&es);
}

static int baseline_show(const char *state_dir, char **probes, int n,
                         const struct tracker_settings *ts)
{
        char **all = NULL;
        int ex = for_probes(state_dir, probes, n, &all, &n);
        if (ex)
                return ex;
        if (all)
                probes = all;
        printf("%-14s %-14s %10s %7s %-10s %8s  %s\n", "probe", "state", "reference",
               "noise", "since", "recent", "metric");
        for (int i = 0; i < n; i++) {
                struct baseline *b = NULL;
                char *why = NULL;
                int r = baseline_store_read(state_dir, probes[i], &b, &why);
                if (r < 0) {
                        log_error("%s", why ? why : strerror(-r));
                        free(why);
                        ex = EXIT_ENV;
                        continue;
                }
                for (size_t k = 0; k < b->n_series; k++)
                        show_series(b, &b->series[k], ts);
                if (!b->n_series)
                        printf("%-14s (no baseline)\n", probes[i]);
                char *ctx = baseline_report_context_change(b);
                if (ctx)
                        printf("%-14s the last run was measured on another context than the "
                               "reference: %s\n", probes[i], ctx);
                free(ctx);
                show_cause(state_dir, b);
                baseline_free(b);
        }
        baseline_store_strv_free(all);
        return ex;
}

static int baseline_reset_cmd(const char *state_dir, char **probes, int n, bool all_flag)
{
        char **all = NULL;
        int ex = EXIT_OK;
        if (!all_flag && !n) {
                log_error("baseline reset: name the probes to reset, or --all");
                return EXIT_USAGE;
        }
        if (all_flag && (ex = for_probes(state_dir, NULL, 0, &all, &n)))
                return ex;
        if (all)
                probes = all;
        for (int i = 0; i < n; i++) {
                int r = baseline_store_reset(state_dir, probes[i]);
                int e = evidence_store_reset(state_dir, probes[i]);
                if (e < 0)
                        log_warning("cannot remove the evidence of '%s' in %s: %s", probes[i],
                                    state_dir, strerror(-e));
                if (r == -ENOENT)
                        printf("%s: had no baseline\n", probes[i]);
                else if (r < 0) {
                        log_error("cannot reset the baseline of '%s' in %s: %s", probes[i],
                                  state_dir, strerror(-r));
                        ex = EXIT_ENV;
                } else
                        printf("%s: baseline reset; the next [regression] reference_runs counted "
                               "runs learn a new reference\n", probes[i]);
        }
        baseline_store_strv_free(all);
        return ex;
}

static int load_for_change(const char *state_dir, const char *probe, struct baseline **ret)
{
        char *why = NULL;
        int r = baseline_store_load(state_dir, probe, ret, &why);
        if (r < 0) {
                log_error("%s", why ? why : strerror(-r));
                free(why);
                return r == -EBADMSG || r == -EPROTONOSUPPORT ? EXIT_USAGE : EXIT_ENV;
        }
        return EXIT_OK;
}

static int save(const char *state_dir, const struct baseline *b)
{
        char *why = NULL;
        int r = app_ensure_dir(state_dir);
        if (r < 0) {
                log_error("cannot create '%s': %s", state_dir, strerror(-r));
                return EXIT_ENV;
        }
        r = baseline_store_save(b, state_dir, &why);
        if (r < 0) {
                log_error("%s", why ? why : strerror(-r));
                free(why);
                return EXIT_ENV;
        }
        return EXIT_OK;
}

/* After accept: the recent runs' evidence is the reference's, no cause. */
static void accept_evidence(const char *state_dir, const char *probe, unsigned recent)
{
        struct evidence_store es = { 0 };
        char *why = NULL;
        int r = evidence_store_load(state_dir, probe, &es, &why);
        if (r >= 0) {
                evidence_store_accept(&es, recent);
                r = evidence_store_set_cause(&es, NULL, NULL);
        }
        if (r >= 0)
                r = evidence_store_save(state_dir, probe, &es, &why);
        if (r < 0)
                log_warning("%s", why ? why : strerror(-r));
        free(why);
        evidence_store_clear(&es);
}

static int accept_one(const char *state_dir, const char *probe,
                      const struct tracker_settings *ts)
{
        struct baseline *b = NULL;
        int ex = load_for_change(state_dir, probe, &b);
        if (ex)
                return ex;
        double before[b->n_series ? b->n_series : 1];
        for (size_t i = 0; i < b->n_series; i++)
                before[i] = exp(b->series[i].det.rs.log_level);
        int r = baseline_accept(b, &ts->det, now_wall());
        if (r == -EAGAIN) {
                log_error("baseline accept: probe '%s' has no pinned reference with recent runs "
                          "to accept yet%s", probe, b->n_series ? "" : " (no baseline at all)");
                ex = EXIT_USAGE;
        } else if ((ex = save(state_dir, b)) == EXIT_OK) {
                accept_evidence(state_dir, probe, ts->det.recent_runs);
                printf("%s: the recent level is the new reference of %d figure(s):\n", probe, r);
                for (size_t i = 0; i < b->n_series; i++) {
                        double after = exp(b->series[i].det.rs.log_level);
                        char was[32], now[32];
                        if (!b->series[i].det.pinned || after == before[i])
                                continue;
                        /* as in show: the key last, the figures aligned */
                        printf(" ");
                        report_format_cell(stdout, baseline_report_figure(&b->series[i],
                                                                          before[i], was,
                                                                          sizeof(was)), 10);
                        printf(" ->");
                        report_format_cell(stdout, baseline_report_figure(&b->series[i], after, now,
                                                                          sizeof(now)), -10);
                        printf(" (%+.1f%%)  %s\n", (after / before[i] - 1) * 100, b->series[i].key);
                }
        }
        baseline_free(b);
        return ex;
}

/* The series key a `--metric` names: a whole key, or a family with one
 * series in the probe's baseline. */
static int pick_key(const struct baseline *b, const char *metric, const char **ret)
{
        size_t hits = 0, n = strlen(metric ? metric : "");
        if (metric && strchr(metric, '{')) {
                *ret = metric;
                return EXIT_OK;
        }
        for (size_t i = 0; i < b->n_series; i++)
                if (!metric || !strcmp(b->series[i].metric, metric)) {
                        *ret = b->series[i].key;
                        hits++;
                }
        if (hits == 1)
                return EXIT_OK;
        if (hits == 0 && n && !b->n_series) {
                *ret = metric; /* a family without labels */
                return EXIT_OK;
        }
        log_error("baseline import: %s; name one with --metric KEY:", hits ?
                  "several figures match" : "no figure of the probe matches");
        for (size_t i = 0; i < b->n_series; i++)
                if (!metric || !strncmp(b->series[i].key, metric, n))
                        fprintf(stderr, "  %s\n", b->series[i].key);
        if (!b->n_series)
                fprintf(stderr, "  (the probe has no baseline yet: give the whole key, e.g. "
                                "'benchwatch_cpu_events_per_second{max_prime=\"10000\",threads="
                                "\"1\"}',"
                                " as `benchwatch run PROBE --format=prometheus` names it)\n");
        return EXIT_USAGE;
}

static int import_one(const char *state_dir, const char *probe, const char *metric,
                      const char *file)
{
        struct series_point *pts = NULL;
        struct baseline *b = NULL;
        const char *key = NULL;
        char *why = NULL;
        size_t n = 0;
        int r = series_file_read(file, &pts, &n, &why);
        if (r < 0) {
                log_error("baseline import: %s", why ? why : strerror(-r));
                free(why);
                /* a bad file is bad input; one that cannot be read, the environment */
                return r == -EINVAL || r == -EISDIR ? EXIT_USAGE : EXIT_ENV;
        }
        int ex = load_for_change(state_dir, probe, &b);
        if (ex == EXIT_OK)
                ex = pick_key(b, metric, &key);
        double *v = ex == EXIT_OK ? malloc((n ? n : 1) * sizeof(*v)) : NULL;
        if (ex == EXIT_OK && !v)
                ex = EXIT_ENV;
        for (size_t i = 0; v && i < n; i++)
                v[i] = pts[i].value;
        double t = n && !isnan(pts[n - 1].t) ? pts[n - 1].t : now_wall();
        if (v && (r = baseline_import(b, key, v, n, t)) < 0) {
                if (r == -EINVAL && n < DETECTOR_REF_MIN)
                        log_error("baseline import: %s has %zu value(s); a reference needs at "
                                  "least %d", file, n, DETECTOR_REF_MIN);
                else
                        log_error("baseline import: '%s' %s", key,
                                  r == -EDOM ? "is not a figure benchwatch tracks (no clear "
                                               "\"worse\")"
                                             : "is not a series key (metric{label=\"value\",...}, "
                                               "labels sorted)");
                ex = EXIT_USAGE;
        } else if (v && (ex = save(state_dir, b)) == EXIT_OK) {
                const struct baseline_series *s = baseline_find(b, key);
                char lvl[32];
                printf("%s: reference of %s pinned on the last %u of %zu run(s) in %s: "
                       "%s, noise %.1f%% a run\n", probe, key, s->det.n_ref, n, file,
                       baseline_report_figure(s, exp(s->det.rs.log_level), lvl, sizeof(lvl)),
                       s->det.rs.sigma * 100);
        }
        free(v);
        free(pts);
        baseline_free(b);
        return ex;
}

static void baseline_usage(FILE *f)
{
        fprintf(f, "Usage: benchwatch baseline show [PROBE ...]\n"
                   "       benchwatch baseline reset PROBE ...|--all\n"
                   "       benchwatch baseline accept PROBE ...\n"
                   "       benchwatch baseline import PROBE FILE [--metric KEY]\n\n"
                   "show    the references: level, noise, since when pinned (or how many runs\n"
                   "        of [regression] reference_runs they hold while learnt; verdicts from\n"
                   "        min_runs on), and the recent change\n"
                   "reset   forget them after an intended change (a new disk): the daemon learns\n"
                   "        new ones, with verdicts again after [regression] min_runs runs\n"
                   "accept  take the recent level as the new reference (an intended slowdown);\n"
                   "        a further change from there is still caught\n"
                   "import  pin the reference of one figure on a history (one value a line, or\n"
                   "        timestamp,value), e.g. years of sysbench results\n");
}

static int import_cmd(const char *state_dir, int argc, char **argv)
{
        static const struct option opts[] = {
                { "metric", required_argument, NULL, 'm' },
                { 0 },
        };
        const char *metric = NULL;
        int c;
        optind = 0;
        while ((c = cli_getopt("baseline import", argc, argv, "", opts)) != -1) {
                if (c != 'm') {
                        baseline_usage(stderr);
                        return EXIT_USAGE;
                }
                metric = optarg;
        }
        if (argc - optind != 2) {
                log_error("baseline import: takes a probe and a file (got %d argument(s))",
                          argc - optind);
                baseline_usage(stderr);
                return EXIT_USAGE;
        }
        return import_one(state_dir, argv[optind], metric, argv[optind + 1]);
}

int cmd_baseline(struct app *app, int argc, char **argv)
{
        const char *verbs[] = { "show", "reset", "accept", "import" };
        int verb = -1;
        for (int i = 0; argc > 1 && i < 4; i++)
                if (!strcmp(argv[1], verbs[i]))
                        verb = i;
        if (verb < 0) {
                bool help = argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
                if (!help)
                        log_error(argc > 1 ? "baseline: unknown action '%s'"
                                           : "baseline: say show, reset, accept or import%s",
                                  argc > 1 ? argv[1] : "");
                baseline_usage(help ? stdout : stderr);
                return help ? EXIT_OK : EXIT_USAGE;
        }
        if (verb == 2 && argc < 3) {
                log_error("baseline accept: name the probes whose recent level is the new normal");
                return EXIT_USAGE;
        }
        for (int i = 2; verb != 3 && i < argc; i++)
                if (argv[i][0] == '-' && (verb != 1 || strcmp(argv[i], "--all"))) {
                        cli_reject("baseline", argv[i]);
                        baseline_usage(stderr);
                        return EXIT_USAGE;
                }
        int ex = app_init(app);
        if (ex != EXIT_OK)
                return ex;
        const char *state_dir = app_daemon_option(app, "state_dir")->s;
        struct tracker_settings ts;
        tracker_settings(app->cfg, &ts);
        bool all_flag = argc > 2 && !strcmp(argv[2], "--all");
        if (verb == 0)
                ex = baseline_show(state_dir, argv + 2, argc - 2, &ts);
        else if (verb == 1)
                ex = baseline_reset_cmd(state_dir, argv + 2 + all_flag, argc - 2 - all_flag,
                                        all_flag);
        else if (verb == 2)
                for (int i = 2; i < argc; i++) {
                        int r = accept_one(state_dir, argv[i], &ts);
                        ex = ex == EXIT_OK ? r : ex;
                }
        else
                ex = import_cmd(state_dir, argc - 1, argv + 1);
        app_done(app);
        return ex;
}
