/* cmd_run.c — `benchwatch run PROBE [NAME=VALUE ...]`: one run, reported
 * at the terminal the way sysbench/fio/ab report theirs. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "format.h"
#include "log.h"
#include "parse.h"
#include "priority.h"
#include "precheck.h"

static void list_choices(const struct app *app)
{
        fprintf(stderr, "  plugins:");
        for (size_t i = 0; i < app->reg->n; i++)
                fprintf(stderr, " %s", app->reg->plugins[i]->name);
        fprintf(stderr, "\n  configured probes (%s):", app->cfg->source);
        for (size_t i = 0; i < app->cfg->n_probes; i++)
                fprintf(stderr, " %s", app->cfg->probes[i].name);
        fprintf(stderr, "\n");
}

int resolve_probe(const struct app *app, const char *name, char *const *assign,
                  int n_assign, const struct bw_plugin **ret_plugin,
                  struct param_set **ret_params, double *ret_timeout)
{
        const struct probe_cfg *pc = config_find_probe(app->cfg, name);
        const struct bw_plugin *plugin = pc ? pc->plugin : registry_find(app->reg, name);
        struct param_set *ps = NULL;
        char *why = NULL;
        if (!plugin) {
                log_error("unknown probe or plugin '%s'; choose one of:", name);
                list_choices(app);
                return EXIT_USAGE;
        }
        int r = pc ? param_set_copy(pc->params, &ps) : param_set_new(plugin->params, &ps, &why);
        for (int i = 0; r >= 0 && i < n_assign; i++)
                r = param_set_assign_kv(ps, assign[i], &why);
        if (r < 0) {
                log_error("%s probe '%s': command line: %s%s", plugin->name, name,
                          why ? why : strerror(-r),
                          r == -ENOENT ? " (see `benchwatch plugins`)" : "");
                free(why);
                param_set_free(ps);
                return EXIT_USAGE;
        }
        r = precheck_run(plugin, name, ps->values, app_daemon_option(app, "cache_dir")->s,
                         app_daemon_option(app, "state_dir")->s, &why);
        if (r < 0) {
                log_error("%s probe '%s': %s", plugin->name, name, why ? why : strerror(-r));
                free(why);
                param_set_free(ps);
                return EXIT_USAGE;
        }
        *ret_plugin = plugin;
        *ret_params = ps;
        *ret_timeout = pc ? pc->timeout : app_daemon_option(app, "timeout")->d;
        return EXIT_OK;
}

int run_override_parse(struct run_overrides *o, int opt, const char *arg)
{
        int r;
        if (opt == RUN_OPT_NICE) {
                r = prio_parse_nice(arg, &o->nice);
                o->nice_set = r >= 0;
        } else if (opt == RUN_OPT_YIELD) {
                o->yield = true;
                return 1;
        } else if (opt == RUN_OPT_IONICE) {
                r = prio_parse_ionice(arg, &o->io_class, &o->io_level);
                o->ionice_set = r >= 0;
        } else {
                return 0;
        }
        if (r < 0)
                log_error("invalid --%s value '%s'%s", opt == RUN_OPT_NICE ? "nice" : "ionice", arg,
                          opt == RUN_OPT_NICE ? " (-20 .. 19)"
                                              : " (idle, best-effort[:0-7] or realtime[:0-7])");
        return r < 0 ? r : 1;
}

void run_override_apply(const struct app *app, struct run_overrides *o,
                        struct run_spec *spec)
{
        if (o->yield) {
                app_yield_limits(app, true, &o->limits);
                spec->yield = &o->limits;
        }
        if (o->nice_set)
                spec->nice = o->nice;
        if (o->ionice_set) {
                spec->ioprio_class = o->io_class;
                spec->ioprio_level = o->io_level;
        }
}

static void run_usage(FILE *f)
{
        fprintf(f, "Usage: benchwatch run PROBE [NAME=VALUE ...] [OPTIONS]\n\n"
                   "Runs PROBE once — a probe of the configuration or a plugin with its\n"
                   "defaults — with parameters overridden by NAME=VALUE (see\n"
                   "`benchwatch plugins`), and prints the figures.\n\n"
                   "  --format=table|prometheus|json   output (default table)\n"
                   "  --timeout=DURATION               kill the run after this long\n"
                   RUN_OVERRIDE_HELP
                   "  -h, --help\n\n"
                   "Exit status: 0 success, 1 the run failed, 2 bad usage, 3 environment.\n");
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
                if ((r = run_override_parse(&ov, c, optarg)) != 0) {
                        if (r > 0)
                                continue;
                        run_usage(stderr);
                        return EXIT_USAGE;
                }
                if (c == 'f' && format_parse(optarg, &fmt) == 0)
                        continue;
                if (c == 't' && parse_duration(optarg, &timeout) == 0 && timeout > 0)
                        continue;
                if (c == 'h') {
                        run_usage(stdout);
                        return EXIT_OK;
                }
                if (c == 'f' || c == 't')
                        log_error("run: invalid --%s value '%s'", c == 'f' ? "format" : "timeout", optarg);
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
        const struct bw_plugin *plugin;
        struct param_set *ps;
        double cfg_timeout;
        const char *name = argv[optind];
        ex = resolve_probe(app, name, argv + optind + 1, argc - optind - 1, &plugin, &ps, &cfg_timeout);
        if (ex != EXIT_OK) {
                app_done(app);
                return ex;
        }
        struct run_spec spec;
        app_run_spec(app, name, plugin, ps, timeout > 0 ? timeout : cfg_timeout, &spec);
        run_override_apply(app, &ov, &spec);
        spec.progress = fmt == FORMAT_TABLE && isatty(STDERR_FILENO);
        r = app_ensure_dir(spec.cache_dir);
        if (r < 0) {
                log_error("cannot create cache directory '%s': %s", spec.cache_dir, strerror(-r));
                ex = EXIT_ENV;
        } else {
                struct result *res = runner_run_sync(&spec);
                if (!res || format_write(stdout, fmt, res, plugin->report) < 0)
                        ex = EXIT_ENV;
                else
                        ex = res->success ? EXIT_OK : EXIT_FAILED;
                if (res && !res->success && fmt != FORMAT_TABLE)
                        log_error("%s probe '%s': %s", plugin->name, name, res->error);
                result_free(res);
        }
        param_set_free(ps);
        app_done(app);
        return ex;
}
