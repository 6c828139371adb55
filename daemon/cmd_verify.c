/* cmd_verify.c — `benchwatch verify` (after maintenance: run every probe a
 * few times and judge the median against the stored baseline, pass/fail)
 * and `benchwatch baseline show|reset` (inspect, or forget after an
 * intended change such as a new disk). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "baseline_store.h"
#include "commands.h"
#include "format.h"
#include "log.h"
#include "tracker.h"

struct verify_row {
        const char *probe;
        const struct baseline_series *s;
};

static bool selected(const char *probe, char **names, size_t n)
{
        if (!n)
                return true;
        for (size_t i = 0; i < n; i++)
                if (!strcmp(names[i], probe))
                        return true;
        return false;
}

static const char *verdict_text(const struct detector_verdict *v)
{
        if (!v->valid)
                return "no baseline";
        return v->bad ? "REGRESSION" : "ok";
}

static void print_rows(const struct baseline *b, enum output_format fmt, bool *first)
{
        for (size_t i = 0; i < b->n_series; i++) {
                const struct baseline_series *s = &b->series[i];
                if (!s->seen)
                        continue;
                const struct detector_verdict *v = &s->verdict;
                if (fmt == FORMAT_JSON) {
                        printf("%s{\"probe\":", *first ? "" : ",");
                        format_json_string(stdout, b->probe);
                        printf(",\"metric\":");
                        format_json_string(stdout, s->key);
                        printf(",\"baseline\":%.9g,\"now\":%.9g,\"change\":%.6g,\"verdict\":\"%s\"}",
                               isfinite(v->baseline) ? v->baseline : 0, v->value,
                               isfinite(v->ratio) ? v->ratio - 1 : 0, verdict_text(v));
                } else {
                        printf("%-14s %-58s %12.6g %12.6g %+8.1f%%  %s\n", b->probe, s->key,
                               v->baseline, v->value, isfinite(v->ratio) ? (v->ratio - 1) * 100 : 0,
                               verdict_text(v));
                }
                *first = false;
        }
}

/* Runs one probe `runs` times and judges it; returns an exit code. */
static int verify_probe(struct app *app, const struct probe_cfg *pc, unsigned runs,
                        const struct detector_config *dc, enum output_format fmt, bool *first)
{
        const char *state_dir = app_daemon_option(app, "state_dir")->s;
        struct baseline *b = NULL;
        char *why = NULL;
        int r = baseline_load(state_dir, pc->name, &b, &why);
        if (r < 0) {
                log_error("%s", why ? why : strerror(-r));
                free(why);
                return EXIT_USAGE;
        }
        if (!b->n_series) {
                log_error("%s probe '%s': no baseline yet in %s: let the daemon run it "
                          "at least %u times first", pc->plugin->name, pc->name, state_dir, dc->warmup);
                baseline_free(b);
                return EXIT_USAGE;
        }
        struct result *res[runs];
        int ex = EXIT_OK;
        size_t n = 0;
        for (; n < runs; n++) {
                struct run_spec spec;
                app_run_spec(app, pc->name, pc->plugin, pc->params, pc->timeout, &spec);
                if (fmt == FORMAT_TABLE)
                        fprintf(stderr, "%s: run %zu of %u ...\n", pc->name, n + 1, runs);
                res[n] = runner_run_sync(&spec);
                if (!res[n] || !res[n]->success) {
                        log_error("%s probe '%s': %s", pc->plugin->name, pc->name,
                                  res[n] ? res[n]->error : "out of memory");
                        ex = EXIT_USAGE;
                        n += res[n] != NULL;
                        break;
                }
        }
        if (ex == EXIT_OK && baseline_compare(b, (const struct result *const *)res, n, dc) < 0)
                ex = EXIT_ENV;
        size_t judged = 0;
        for (size_t i = 0; ex == EXIT_OK && i < b->n_series; i++) {
                const struct baseline_series *s = &b->series[i];
                judged += s->seen && s->verdict.valid;
                if (s->seen && s->verdict.bad)
                        ex = EXIT_FAILED;
        }
        if (ex == EXIT_OK && !judged) {
                log_error("%s probe '%s': no baseline yet: still warming up (a verdict "
                          "needs %u recorded runs)", pc->plugin->name, pc->name, dc->warmup);
                ex = EXIT_USAGE;
        }
        if (ex != EXIT_ENV)
                print_rows(b, fmt, first);
        for (size_t i = 0; i < n; i++)
                result_free(res[i]);
        baseline_free(b);
        return ex;
}

static void verify_usage(FILE *f)
{
        fprintf(f, "Usage: benchwatch verify [--probe NAME ...] [--format=table|json]\n\n"
                   "Runs each configured probe a few times ([regression] verify_runs) and\n"
                   "compares the median with the stored baseline.\n"
                   "Exit status: 0 all pass, 1 a regression, 2 an error (e.g. no baseline yet).\n");
}

int cmd_verify(struct app *app, int argc, char **argv)
{
        static const struct option opts[] = {
                { "probe", required_argument, NULL, 'p' },
                { "format", required_argument, NULL, 'f' },
                { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        enum output_format fmt = FORMAT_TABLE;
        char *names[argc];
        size_t n_names = 0;
        int c;
        while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
                if (c == 'p')
                        names[n_names++] = optarg;
                else if (c == 'f' && format_parse(optarg, &fmt) == 0 && fmt != FORMAT_PROMETHEUS)
                        continue;
                else {
                        verify_usage(c == 'h' ? stdout : stderr);
                        return c == 'h' ? EXIT_OK : EXIT_USAGE;
                }
        }
        int ex = app_init(app);
        if (ex != EXIT_OK)
                return ex;
        for (size_t i = 0; i < n_names; i++)
                if (!config_find_probe(app->cfg, names[i])) {
                        log_error("verify: no configured probe '%s' in %s", names[i], app->cfg->source);
                        ex = EXIT_USAGE;
                }
        struct detector_config dc;
        unsigned runs;
        tracker_settings(app->cfg, &dc, &runs);
        bool first = true;
        if (fmt == FORMAT_TABLE)
                printf("%-14s %-58s %12s %12s %9s  %s\n", "probe", "metric", "baseline", "now",
                       "change", "verdict");
        else
                printf("{\"results\":[");
        size_t checked = 0;
        for (size_t i = 0; ex != EXIT_USAGE && i < app->cfg->n_probes; i++) {
                const struct probe_cfg *pc = &app->cfg->probes[i];
                if (!pc->enabled || !selected(pc->name, names, n_names))
                        continue;
                int r = verify_probe(app, pc, runs, &dc, fmt, &first);
                checked++;
                if (r != EXIT_OK && (ex == EXIT_OK || r == EXIT_USAGE || r == EXIT_ENV))
                        ex = r;
        }
        if (fmt == FORMAT_JSON)
                printf("],\"status\":\"%s\"}\n", ex == EXIT_OK ? "pass" : ex == EXIT_FAILED ? "regression" : "error");
        else
                printf("\n%s: %zu probe(s) checked\n",
                       ex == EXIT_OK ? "PASS" : ex == EXIT_FAILED ? "FAIL (regression)" : "ERROR", checked);
        if (!checked && ex == EXIT_OK) {
                log_error("verify: no enabled probe to check in %s", app->cfg->source);
                ex = EXIT_USAGE;
        }
        app_done(app);
        return ex;
}

static int baseline_show(struct app *app, const char *state_dir, char **probes, int n)
{
        char **all = NULL;
        int ex = EXIT_OK;
        if (!n) {
                if (baseline_list(state_dir, &all) < 0)
                        return EXIT_ENV;
                probes = all;
                while (all[n])
                        n++;
        }
        printf("%-14s %-58s %6s %12s %10s  %s\n", "probe", "metric", "runs", "baseline",
               "noise", "state");
        for (int i = 0; i < n; i++) {
                struct baseline *b = NULL;
                char *why = NULL;
                int r = baseline_load(state_dir, probes[i], &b, &why);
                if (r < 0) {
                        log_error("%s", why ? why : strerror(-r));
                        free(why);
                        ex = EXIT_ENV;
                        continue;
                }
                for (size_t k = 0; k < b->n_series; k++) {
                        const struct baseline_series *s = &b->series[k];
                        double med = detector_median(s->det.values, s->det.n_values);
                        printf("%-14s %-58s %6u %12.6g %10s  %s\n", b->probe, s->key,
                               s->det.n_values, med, "",
                               s->det.regression ? "REGRESSION" : "ok");
                }
                if (!b->n_series)
                        printf("%-14s (no baseline)\n", probes[i]);
                baseline_free(b);
        }
        baseline_strv_free(all);
        return ex;
}

static int baseline_reset_cmd(const char *state_dir, char **probes, int n, bool all_flag)
{
        char **all = NULL;
        int ex = EXIT_OK;
        if (all_flag) {
                if (baseline_list(state_dir, &all) < 0)
                        return EXIT_ENV;
                probes = all;
                for (n = 0; all[n]; n++)
                        ;
        } else if (!n) {
                log_error("baseline reset: name the probes to reset, or --all");
                return EXIT_USAGE;
        }
        for (int i = 0; i < n; i++) {
                int r = baseline_reset(state_dir, probes[i]);
                if (r == -ENOENT)
                        printf("%s: had no baseline\n", probes[i]);
                else if (r < 0) {
                        log_error("cannot reset the baseline of '%s' in %s: %s", probes[i],
                                  state_dir, strerror(-r));
                        ex = EXIT_ENV;
                } else
                        printf("%s: baseline reset; the next %s runs build a new one\n",
                               probes[i], "warm-up");
        }
        baseline_strv_free(all);
        return ex;
}

int cmd_baseline(struct app *app, int argc, char **argv)
{
        bool show = argc > 1 && !strcmp(argv[1], "show");
        bool reset = argc > 1 && !strcmp(argv[1], "reset");
        if (!show && !reset) {
                bool help = argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
                fprintf(help ? stdout : stderr,
                        "Usage: benchwatch baseline show [PROBE ...]\n"
                        "       benchwatch baseline reset PROBE ...|--all\n\n"
                        "Shows the stored baselines, or forgets them after an intended change\n"
                        "(a new disk): the daemon then builds a new one from the next runs.\n");
                return help ? EXIT_OK : EXIT_USAGE;
        }
        int ex = app_init(app);
        if (ex != EXIT_OK)
                return ex;
        const char *state_dir = app_daemon_option(app, "state_dir")->s;
        bool all_flag = argc > 2 && !strcmp(argv[2], "--all");
        ex = show ? baseline_show(app, state_dir, argv + 2, argc - 2)
                  : baseline_reset_cmd(state_dir, argv + 2 + all_flag, argc - 2 - all_flag, all_flag);
        app_done(app);
        return ex;
}
