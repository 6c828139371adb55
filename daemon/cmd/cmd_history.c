/* cmd_history.c — `benchwatch history PROBE`: the trend of a probe's
 * figures on a host without Prometheus, from the history the daemon keeps
 * (history.h): a table, CSV or JSON, and an SVG drawing with the reference
 * band and the regressions marked. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "cmd/history_plot.h"
#include "core/log.h"
#include "detect/history.h"
#include "detect/tracker.h"
#include "encode/report_format.h"
#include "util/format.h"
#include "util/parse.h"
#include "util/timeutil.h"

enum history_format { HF_TABLE, HF_CSV, HF_JSON };

struct history_opts {
        const char *probe, *metric, *plot;
        double since;
        enum history_format fmt;
};

static const char *state_name(enum history_state s)
{
        return s == HISTORY_LEARNING ? "learning" : s == HISTORY_REGRESSION ? "REGRESSION" : "ok";
}

/* The key names a figure of `metric`: the whole key, or its family. */
static bool matches(const char *key, const char *metric)
{
        size_t n = strlen(metric);
        return !strcmp(key, metric) || (!strncmp(key, metric, n) && key[n] == '{');
}

static void iso_time(double t, char *buf, size_t size)
{
        time_t tt = (time_t)t;
        struct tm tm;
        if (!gmtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
                snprintf(buf, size, "?");
}

static void put_csv(const char *s)
{
        putchar('"');
        for (; *s; s++) {
                if (*s == '"')
                        putchar('"');
                putchar(*s);
        }
        putchar('"');
}

static void print_entry(const struct history_opts *o, const struct history_entry *e, bool first)
{
        char when[32], v[32], ref[32] = "-", ch[16] = "-";
        iso_time(e->t, when, sizeof(when));
        if (o->fmt == HF_CSV) {
                printf("%s,", when);
                put_csv(e->key);
                printf(",%.9g,", e->value);
                if (isfinite(e->reference))
                        printf("%.9g", e->reference);
                printf(",%s,%d\n", state_name(e->state), e->counted);
        } else if (o->fmt == HF_JSON) {
                printf("%s{\"time\":%.3f,\"metric\":", first ? "" : ",", e->t);
                report_format_json_string(stdout, e->key);
                printf(",\"value\":%.9g,\"reference\":", e->value);
                if (isfinite(e->reference))
                        printf("%.9g", e->reference);
                else
                        printf("null");
                printf(",\"state\":\"%s\",\"counted\":%s}", state_name(e->state),
                       e->counted ? "true" : "false");
        } else {
                bool sec = history_key_in_seconds(e->key);
                format_quantity(e->value, sec, v, sizeof(v));
                if (isfinite(e->reference)) {
                        format_quantity(e->reference, sec, ref, sizeof(ref));
                        snprintf(ch, sizeof(ch), "%+.1f%%", (e->value / e->reference - 1) * 100);
                }
                /* the key last: as long as its labels make it, the columns stay put */
                printf("%-20s", when);
                report_format_cell(stdout, v, 10);
                report_format_cell(stdout, ref, 10);
                printf(" %8s  %-10s %-13s  %s\n", ch, state_name(e->state),
                       e->counted ? "" : "(not counted)", e->key);
        }
}

static int print_entries(const struct history_opts *o, const struct history_entry *e, size_t n)
{
        size_t shown = 0;
        if (o->fmt == HF_CSV)
                printf("time,metric,value,reference,state,counted\n");
        else if (o->fmt == HF_JSON) {
                printf("{\"probe\":");
                report_format_json_string(stdout, o->probe);
                printf(",\"entries\":[");
        } else
                printf("%-20s %10s %10s %8s  %-10s %-13s  %s\n", "time", "value", "reference",
                       "change", "state", "", "metric");
        for (size_t i = 0; i < n; i++)
                if (!o->metric || matches(e[i].key, o->metric))
                        print_entry(o, &e[i], shown++ == 0);
        if (o->fmt == HF_JSON)
                printf("]}\n");
        return (int)shown;
}

/* Where a probe has no history, a hint when no probe of that name is
 * configured (a typo, or a probe since removed). */
static const char *unconfigured(const struct app *app, const char *probe)
{
        return app->cfg && !conf_find_probe(app->cfg, probe)
                       ? "; no probe of that name is configured (`benchwatch status` lists them)"
                       : "";
}

static int plot(const struct history_opts *o, const struct history_entry *e, size_t n,
                double thr, const char *hint)
{
        struct history_entry *sel = malloc((n ? n : 1) * sizeof(*sel));
        size_t k = 0, runs = 0; /* a run's figures are entries side by side */
        for (size_t i = 0; sel && i < n; i++)
                if (!o->metric || matches(e[i].key, o->metric)) {
                        runs += !k || sel[k - 1].t != e[i].t;
                        sel[k++] = e[i]; /* borrowed keys */
                }
        if (!sel || !k) {
                log_error("history: no run of probe '%s'%s%s to draw%s", o->probe,
                          o->metric ? " with " : "", o->metric ? o->metric : "", hint);
                free(sel);
                return sel ? EXIT_USAGE : EXIT_ENV;
        }
        FILE *f = fopen(o->plot, "we");
        if (!f) {
                log_error("history: cannot write '%s': %s", o->plot, strerror(errno));
                free(sel);
                return EXIT_ENV;
        }
        int r = history_plot_svg(f, o->probe, sel, k, thr);
        free(sel);
        if (fclose(f) != 0 && r >= 0)
                r = -EIO;
        if (r < 0) {
                log_error("history: cannot write '%s': %s", o->plot, strerror(-r));
                return EXIT_ENV;
        }
        fprintf(stderr, "history: %zu run(s) drawn to %s\n", runs, o->plot);
        return EXIT_OK;
}

static void history_usage(FILE *f)
{
        fprintf(f, "Usage: benchwatch history PROBE [--since DURATION] [--metric KEY|FAMILY]\n"
                   "                          [--format=table|csv|json] [--plot FILE.svg]\n\n"
                   "Prints the figures the daemon recorded for PROBE (in state_dir, at most\n"
                   "[daemon] history_size bytes a probe), with the reference and the verdict\n"
                   "of each run; --since 7d keeps the last 7 days; --plot draws them (the\n"
                   "figure, the reference band of +-[regression] threshold, regressions in "
                   "red).\n");
}

static int parse_history_args(int argc, char **argv, struct history_opts *o)
{
        static const struct option opts[] = {
                { "since", required_argument, NULL, 's' },
                { "metric", required_argument, NULL, 'm' },
                { "format", required_argument, NULL, 'f' },
                { "plot", required_argument, NULL, 'p' },
                { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        static const char *const formats[] = { "table", "csv", "json" };
        double d;
        int c;
        while ((c = cli_getopt("history", argc, argv, "h", opts)) != -1) {
                if (c == 's' && parse_duration(optarg, &d) == 0 && d > 0) {
                        o->since = now_wall() - d;
                } else if (c == 'm') {
                        o->metric = optarg;
                } else if (c == 'p') {
                        o->plot = optarg;
                } else if (c == 'f' &&
                           (!strcmp(optarg, formats[0]) || !strcmp(optarg, formats[1]) ||
                            !strcmp(optarg, formats[2]))) {
                        o->fmt = !strcmp(optarg, "csv")    ? HF_CSV
                                 : !strcmp(optarg, "json") ? HF_JSON
                                                           : HF_TABLE;
                } else {
                        if (c == 's')
                                log_error("history: --since '%s' is not a duration (e.g. 90min, "
                                          "7d)",
                                          optarg);
                        else if (c == 'f')
                                log_error("history: unknown format '%s' (table, csv or json)",
                                          optarg);
                        history_usage(c == 'h' ? stdout : stderr);
                        return c == 'h' ? EXIT_OK : EXIT_USAGE;
                }
        }
        if (argc - optind != 1) {
                log_error(argc == optind ? "history: which probe?"
                                         : "history: one probe at a time");
                history_usage(stderr);
                return EXIT_USAGE;
        }
        o->probe = argv[optind];
        return -1;
}

int cmd_history(struct app *app, int argc, char **argv)
{
        struct history_opts o = { .since = -INFINITY, .fmt = HF_TABLE };
        struct history_entry *e = NULL;
        unsigned skipped = 0, first_bad = 0;
        char *why = NULL;
        size_t n = 0;
        int ex = parse_history_args(argc, argv, &o);
        if (ex >= 0)
                return ex;
        if ((ex = app_init(app)) != EXIT_OK)
                return ex;
        const char *state_dir = app_daemon_option(app, "state_dir")->s;
        int r = history_read(state_dir, o.probe, o.since, &e, &n, &skipped, &first_bad, &why);
        if (r < 0) {
                log_error("history: %s", r == -EINVAL ? "not a probe name"
                                         : why        ? why
                                                      : strerror(-r));
                free(why);
                app_done(app);
                return r == -EINVAL || r == -EBADMSG ? EXIT_USAGE : EXIT_ENV;
        }
        if (skipped)
                log_warning("history of probe '%s': %u line(s) that do not parse were skipped "
                            "(the first is line %u)", o.probe, skipped, first_bad);
        struct tracker_settings ts;
        tracker_settings(app->cfg, &ts);
        const char *hint = unconfigured(app, o.probe);
        if (!n && *hint) { /* a typo, in every format: a usage error, as --plot's */
                log_error("history: no run of probe '%s' in %s%s%s", o.probe, state_dir,
                          isinf(o.since) ? "" : " in that time", hint);
                ex = EXIT_USAGE;
        } else if (o.plot)
                ex = plot(&o, e, n, ts.det.threshold, hint);
        else if (print_entries(&o, e, n) == 0 && o.fmt == HF_TABLE)
                fprintf(stderr, "history: no run of probe '%s'%s%s in %s%s%s\n", o.probe,
                        o.metric ? " with " : "", o.metric ? o.metric : "", state_dir,
                        isinf(o.since) ? "" : " in that time", hint);
        history_entries_free(e, n);
        app_done(app);
        return ex;
}
