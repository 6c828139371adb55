/* cmd_run.c — `benchwatch run PROBE [NAME=VALUE ...]`: one run, reported
 * at the terminal the way sysbench/fio/ab report theirs; with several
 * probes (`run A [NAME=VALUE ...] B [NAME=VALUE ...]`) they run one after
 * the other and are reported side by side (compare.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "cmd/compare.h"
#include "cmd/run_args.h"
#include "core/log.h"
#include "encode/prom_text.h"
#include "encode/report_format.h"
#include "util/format.h"
#include "util/parse.h"

static void run_usage(FILE *f)
{
        fprintf(f, "Usage: benchwatch run PROBE [NAME=VALUE ...] [PROBE [NAME=VALUE ...] ...]\n"
                   "                      [OPTIONS]\n\n"
                   "Runs PROBE once — a probe of the configuration or a plugin with its\n"
                   "defaults — with parameters overridden by NAME=VALUE (see\n"
                   "`benchwatch plugins`), and prints the figures.  Several probes (each\n"
                   "followed by its own NAME=VALUE) run one after the other and are\n"
                   "printed side by side, a column per probe; one that fails does not\n"
                   "stop the others.\n\n"
                   "  --format=table|prometheus|json   output (default table)\n"
                   "  --timeout=DURATION               kill the run after this long\n"
                   RUN_OVERRIDE_HELP
                   "  -h, --help\n\n"
                   "Exit status: 0 success, 1 a run failed, 2 bad usage, 3 environment.\n");
}

struct run_opts {
        enum output_format fmt;
        double timeout;             /* --timeout, 0: the probe's own */
        struct run_overrides *ov;
};

/* Runs one resolved probe of the command line; NULL when out of memory. */
static struct result *run_one(struct app *app, const struct run_opts *ro, const char *name,
                              const struct bw_plugin *plugin, const struct param_set *ps,
                              double cfg_timeout)
{
        struct run_spec spec;
        app_run_spec(app, name, plugin, ps, ro->timeout > 0 ? ro->timeout : cfg_timeout, &spec);
        const char *from = run_args_override_apply(app, ro->ov, conf_find_probe(app->cfg, name),
                                                   &spec);
        spec.progress = ro->fmt == FORMAT_TABLE && isatty(STDERR_FILENO);
        struct result *res = runner_run_sync(&spec);
        if (res)
                res->priority_from = from;
        if (res && !res->success && ro->fmt != FORMAT_TABLE)
                log_error("%s probe '%s': %s", plugin->name, name, res->error);
        return res;
}

static const struct bw_plugin *probe_plugin(const struct app *app, const char *name)
{
        const struct probe_cfg *pc = conf_find_probe(app->cfg, name);
        return pc ? pc->plugin : loader_find(app->reg, name);
}

/* Where each probe's arguments start: the first word, then each word
 * without '=' that names a configured probe, or a plugin that is not a
 * parameter of the probe before it (`run cpu threads` forgot a value;
 * the threads plugin then comes first or as a configured probe).  Any
 * other word stays with the probe before it, whose parameters say what is
 * wrong with it ("'threads' is not of the form NAME=VALUE"). */
static size_t split_probes(const struct app *app, int argc, char **argv, int *ret_start)
{
        const struct bw_plugin *cur = NULL;
        size_t n = 0;
        for (int i = 0; i < argc; i++) {
                if (i > 0 && (strchr(argv[i], '=') ||
                              (!conf_find_probe(app->cfg, argv[i]) &&
                               (!loader_find(app->reg, argv[i]) ||
                                (cur && param_index(cur->params, argv[i]) >= 0)))))
                        continue;
                ret_start[n++] = i;
                cur = probe_plugin(app, argv[i]);
        }
        ret_start[n] = argc;
        return n;
}

/* The results on stdout in the chosen format: one probe's report, or the
 * columns side by side. */
static int print_results(const struct run_opts *ro, struct compare_column *cols, size_t n)
{
        if (n == 1)
                return report_format_write(stdout, ro->fmt, cols[0].result, cols[0].plugin->report);
        if (ro->fmt == FORMAT_TABLE)
                return compare_table(stdout, cols, n);
        if (ro->fmt == FORMAT_JSON)
                return compare_json(stdout, cols, n);
        const struct result **res = calloc(n, sizeof(*res));
        if (!res)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                res[i] = cols[i].result;
        int r = prom_text_write(stdout, res, n);
        free(res);
        return r < 0 ? r : ferror(stdout) ? -EIO : 0;
}

/* What run_probes owns for each probe of the command line. */
struct probe_run {
        struct param_set *params;
        struct result *result;
        double timeout;
};

static void probe_runs_free(struct probe_run *pr, size_t n)
{
        for (size_t i = 0; pr && i < n; i++) {
                param_set_free(pr[i].params);
                result_free(pr[i].result);
        }
        free(pr);
}

/* EXIT_USAGE, said, when a duration set does not end before the run's
 * deadline (param_duration_past; the configuration refuses it too). */
static int check_duration(const char *name, const struct bw_plugin *plugin,
                          const struct param_set *ps, double timeout)
{
        double duration = param_duration_past(ps, timeout);
        if (!duration)
                return EXIT_OK;
        char a[32], b[32];
        log_error("%s probe '%s': duration %s does not end before the run's timeout %s: "
                  "the run would be cut short; raise --timeout or shorten duration",
                  plugin->name, name, format_duration(duration, a, sizeof(a)),
                  format_duration(timeout, b, sizeof(b)));
        return EXIT_USAGE;
}

/* Every probe is resolved and checked before the first one runs, so a
 * typo in the last is a usage error, not a failure after minutes. */
static int run_probes(struct app *app, const struct run_opts *ro, int argc, char **argv)
{
        int *start = calloc((size_t)argc + 1, sizeof(*start));
        size_t n = start ? split_probes(app, argc, argv, start) : 0;
        struct compare_column *cols = calloc(n ? n : 1, sizeof(*cols));
        struct probe_run *pr = calloc(n ? n : 1, sizeof(*pr));
        int ex = start && cols && pr ? EXIT_OK : EXIT_ENV;
        for (size_t i = 0; ex == EXIT_OK && i < n; i++) {
                cols[i].name = argv[start[i]];
                ex = run_args_resolve_probe(app, cols[i].name, argv + start[i] + 1,
                                            start[i + 1] - start[i] - 1, &cols[i].plugin,
                                            &pr[i].params, &pr[i].timeout);
                cols[i].params = pr[i].params;
                if (ex == EXIT_OK)
                        ex = check_duration(cols[i].name, cols[i].plugin, pr[i].params,
                                            ro->timeout > 0 ? ro->timeout : pr[i].timeout);
        }
        const char *cache_dir = app_daemon_option(app, "cache_dir")->s;
        int r = ex == EXIT_OK ? app_ensure_dir(cache_dir) : 0;
        if (r < 0) {
                log_error("cannot create cache directory '%s': %s", cache_dir, strerror(-r));
                ex = EXIT_ENV;
        }
        for (size_t i = 0; ex == EXIT_OK && i < n; i++) {
                if (n > 1 && ro->fmt == FORMAT_TABLE)
                        fprintf(stderr, "%s (%zu of %zu) ...\n", cols[i].name, i + 1, n);
                pr[i].result = run_one(app, ro, cols[i].name, cols[i].plugin,
                                       pr[i].params, pr[i].timeout);
                cols[i].result = pr[i].result;
                if (!pr[i].result)
                        ex = EXIT_ENV;
        }
        if (ex == EXIT_OK)
                ex = print_results(ro, cols, n) < 0 ? EXIT_ENV : EXIT_OK;
        for (size_t i = 0; ex == EXIT_OK && i < n; i++)
                if (!pr[i].result->success)
                        ex = EXIT_FAILED;
        probe_runs_free(pr, n);
        free(cols);
        free(start);
        return ex;
}

int cmd_run(struct app *app, int argc, char **argv)
{
        static const struct option opts[] = {
                { "format", required_argument, NULL, 'f' },
                { "timeout", required_argument, NULL, 't' },
                { "help", no_argument, NULL, 'h' },
                RUN_OVERRIDE_OPTIONS,
                { 0 },
        };
        enum output_format fmt = FORMAT_TABLE;
        struct run_overrides ov = { 0 };
        double timeout = 0;
        int c, r;
        while ((c = cli_getopt("run", argc, argv, "h", opts)) != -1) {
                if ((r = run_args_override_parse(&ov, c, optarg)) != 0) {
                        if (r > 0)
                                continue;
                        run_usage(stderr);
                        return EXIT_USAGE;
                }
                if (c == 'f' && report_format_parse(optarg, &fmt) == 0)
                        continue;
                if (c == 't' && run_args_timeout_parse(optarg, &timeout) == 0)
                        continue;
                if (c == 'h') {
                        run_usage(stdout);
                        return EXIT_OK;
                }
                if (c == 'f')
                        log_error("run: invalid --format value '%s'", optarg);
                run_usage(stderr);
                return EXIT_USAGE;
        }
        if (optind >= argc) {
                run_usage(stderr);
                return EXIT_USAGE;
        }
        int ex = app_init(app);
        if (ex != EXIT_OK)
                return ex;
        struct run_opts ro = { .fmt = fmt, .timeout = timeout, .ov = &ov };
        ex = run_probes(app, &ro, argc - optind, argv + optind);
        app_done(app);
        return ex;
}
