/* cmd_sweep.c — `benchwatch sweep PROBE PARAM=v1,v2,...`: run a probe at
 * each level of one parameter, print throughput and latency per level as
 * a capacity planner tabulates a fio sweep, and mark the knee (sweep.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "cmd/run_args.h"
#include "cmd/sweep.h"
#include "core/log.h"
#include "core/priority.h"
#include "encode/prom_text.h"
#include "encode/report_format.h"
#include "util/parse.h"
#include "util/strutil.h"

struct sweep_opts {
        enum output_format fmt;
        double q, target, timeout;
        const char *plot;
        struct run_overrides ov;
};

static void sweep_usage(FILE *f)
{
        fprintf(f, "Usage: benchwatch sweep PROBE PARAM=V1,V2,... [NAME=VALUE ...] [OPTIONS]\n\n"
                   "Runs PROBE once per value of PARAM (any parameter; typically the\n"
                   "plugin's concurrency, e.g. threads=10,20,40 or iodepth=1,2,4,8) and\n"
                   "marks the knee: the level with the best throughput whose latency\n"
                   "quantile stays under --latency-target, or, without a target, the\n"
                   "lowest level within 5%% of the best throughput.\n\n"
                   "  --quantile=Q             latency quantile to judge by (default 0.95)\n"
                   "  --latency-target=DUR     e.g. 10ms\n"
                   "  --format=table|json|prometheus\n"
                   "  --plot=FILE.svg          draw throughput and latency against the level\n"
                   "  --timeout=DUR            per run\n"
                   RUN_OVERRIDE_HELP);
}

static int parse_opts(int argc, char **argv, struct sweep_opts *o)
{
        static const struct option opts[] = {
                { "format", required_argument, NULL, 'f' },
                { "quantile", required_argument, NULL, 'q' },
                { "latency-target", required_argument, NULL, 'l' },
                { "plot", required_argument, NULL, 'p' },
                { "timeout", required_argument, NULL, 't' },
                { "help", no_argument, NULL, 'h' },
                RUN_OVERRIDE_OPTIONS,
                { 0 },
        };
        int c;
        while ((c = cli_getopt("sweep", argc, argv, "h", opts)) != -1) {
                int r = run_args_override_parse(&o->ov, c, optarg);
                if (r < 0) {
                        sweep_usage(stderr);
                        return EXIT_USAGE;
                }
                switch (r ? 0 : c) {
                case 0: break;
                case 'f': r = report_format_parse(optarg, &o->fmt); break;
                case 'q':
                        r = parse_double(optarg, &o->q);
                        r = r < 0 || o->q <= 0 || o->q > 1 ? -1 : 0;
                        break;
                case 'l': r = parse_duration(optarg, &o->target); break;
                case 'p': o->plot = optarg; break;
                case 't': r = run_args_timeout_parse(optarg, &o->timeout); break;
                case 'h': sweep_usage(stdout); return EXIT_OK + 100;
                default: r = -1;
                }
                if (r < 0) {
                        if (c != '?' && c != 't') /* --timeout said why */
                                log_error("sweep: invalid value '%s' for --%s", optarg,
                                          opts[c == 'f'   ? 0
                                               : c == 'q' ? 1
                                               : c == 'l' ? 2
                                                          : 4]
                                                  .name);
                        sweep_usage(stderr);
                        return EXIT_USAGE;
                }
        }
        if (argc - optind < 2) {
                sweep_usage(stderr);
                return EXIT_USAGE;
        }
        /* the plot's directory before every level has run, not after */
        char *dir = o->plot ? strdup(o->plot) : NULL;
        char *slash = dir ? strrchr(dir, '/') : NULL;
        if (slash && slash == dir)
                dir[1] = 0; /* "/x.svg": the root */
        else if (slash)
                *slash = 0;
        if (dir && access(slash ? dir : ".", W_OK) < 0) {
                log_error("--plot: cannot write '%s': %m", o->plot);
                free(dir);
                return EXIT_ENV;
        }
        free(dir);
        return EXIT_OK;
}

/* Splits "threads=10,20,40" into the name and a NULL-terminated list. */
static char **split_levels(const char *arg, char **ret_name)
{
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg || !eq[1])
                return NULL;
        size_t n = 1;
        for (const char *c = eq + 1; *c; c++)
                n += *c == ',';
        char **v = calloc(n + 1, sizeof(char *));
        char *name = strndup(arg, (size_t)(eq - arg));
        if (!v || !name) {
                free(v);
                free(name);
                return NULL;
        }
        const char *s = eq + 1;
        for (size_t i = 0; i < n; i++) {
                const char *e = strchr(s, ',');
                v[i] = e ? strndup(s, (size_t)(e - s)) : strdup(s);
                s = e ? e + 1 : s;
        }
        *ret_name = name;
        return v;
}

/* The first result that says at which priority it ran (all levels run
 * with the same). */
static const struct result *with_priority(struct result *const *results, size_t n)
{
        struct priority p;
        for (size_t i = 0; i < n; i++)
                if (results[i] && priority_from_result(results[i], &p) == 0)
                        return results[i];
        return NULL;
}

/* Whether the levels have a bandwidth beside their throughput (disk: IOPS
 * and MiB/s, as fio reports both). */
static bool has_bandwidth(const struct sweep_point *pts, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (pts[i].ok && pts[i].bandwidth >= 0)
                        return true;
        return false;
}

/* The latency unit of the table: ms as sysbench prints it,
 * unless the fastest level's mean would show fewer than two digits at
 * three decimals (a memory sweep's events take nanoseconds). */
static void latency_unit(const struct sweep_point *pts, size_t n,
                         const char **ret_unit, double *ret_scale)
{
        double low = 0;
        for (size_t i = 0; i < n; i++)
                if (pts[i].ok && pts[i].mean > 0 && (low == 0 || pts[i].mean < low))
                        low = pts[i].mean;
        *ret_unit = "ms", *ret_scale = 1e3;
        if (low > 0 && low < 10e-9)
                *ret_unit = "ns", *ret_scale = 1e9;
        else if (low > 0 && low < 10e-6)
                *ret_unit = "us", *ret_scale = 1e6;
}

static void print_table(const char *param, const char *tname, double q,
                        const struct sweep_point *pts, size_t n, int knee)
{
        bool bw = has_bandwidth(pts, n), pq = q != 0.95 && q != 0.99;
        const char *unit;
        double scale;
        char head[3][16];
        latency_unit(pts, n, &unit, &scale);
        printf("%10s %16s", param, tname);
        if (bw)
                printf(" %10s", "MiB/s");
        snprintf(head[0], sizeof(head[0]), "avg(%s)", unit);
        snprintf(head[1], sizeof(head[1]), "p95(%s)", unit);
        snprintf(head[2], sizeof(head[2]), "p99(%s)", unit);
        printf(" %10s %10s %10s", head[0], head[1], head[2]);
        if (pq)
                printf("  p%g(%s)", q * 100, unit);
        printf("\n");
        for (size_t i = 0; i < n; i++) {
                if (!pts[i].ok) {
                        printf("%10s %16s\n", pts[i].level, "failed");
                        continue;
                }
                printf("%10s %16.2f", pts[i].level, pts[i].throughput);
                if (bw)
                        printf(" %10.2f", pts[i].bandwidth / 1048576.0);
                printf(" %10.3f %10.3f %10.3f", pts[i].mean * scale, pts[i].p95 * scale,
                       pts[i].p99 * scale);
                if (pq)
                        printf(" %10.3f", pts[i].quantile * scale);
                printf("%s\n", (int)i == knee ? "   <- knee" : "");
        }
}

static void print_json(const char *probe, const char *param, const char *tname, double q,
                       double target, const struct sweep_point *pts, size_t n, int knee,
                       const struct result *prio)
{
        printf("{\"probe\":");
        report_format_json_string(stdout, probe);
        if (prio)
                report_format_json_priority(stdout, prio);
        printf(",\"param\":");
        report_format_json_string(stdout, param);
        printf(",\"throughput_metric\":");
        report_format_json_string(stdout, tname);
        printf(",\"quantile\":%g,\"latency_target\":%g,\"levels\":[", q, target);
        for (size_t i = 0; i < n; i++) {
                printf("%s{\"level\":", i ? "," : "");
                report_format_json_string(stdout, pts[i].level);
                printf(",\"success\":%s,\"throughput\":%.17g,\"latency\":{\"mean\":%.9g,"
                       "\"p50\":%.9g,\"p95\":%.9g,\"p99\":%.9g,\"quantile\":%.9g}",
                       pts[i].ok ? "true" : "false", pts[i].throughput, pts[i].mean,
                       pts[i].p50, pts[i].p95, pts[i].p99, pts[i].quantile);
                if (pts[i].bandwidth >= 0)
                        printf(",\"bytes_per_second\":%.17g", pts[i].bandwidth);
                printf("}");
        }
        printf("],\"knee\":");
        if (knee >= 0)
                report_format_json_string(stdout, pts[knee].level);
        else
                printf("null");
        printf("}\n");
}

struct sweep_run {
        struct app *app;
        const char *probe;
        const struct bw_plugin *plugin;
        const struct param_set *base;
        double timeout;
        struct sweep_opts *o;
};

/* One level: the base parameters with PARAM=level. */
static struct result *run_level(const struct sweep_run *s, const char *param,
                                const char *level)
{
        struct param_set *ps;
        char *why = NULL;
        if (param_set_copy(s->base, &ps) < 0)
                return NULL;
        if (param_set_assign(ps, param, level, &why) < 0) {
                log_error("%s probe '%s': sweep level %s", s->plugin->name, s->probe, why);
                free(why);
                param_set_free(ps);
                return NULL;
        }
        struct run_spec spec;
        app_run_spec(s->app, s->probe, s->plugin, ps, s->timeout, &spec);
        const char *from = run_args_override_apply(s->app, &s->o->ov,
                                                   conf_find_probe(s->app->cfg, s->probe), &spec);
        struct result *res = runner_run_sync(&spec);
        if (res)
                res->priority_from = from;
        param_set_free(ps);
        return res;
}

/* Every level checked before the first runs: a typo in the last level of
 * a long disk sweep is a usage error at once, not after minutes. */
static int check_levels(const struct sweep_run *s, const char *param, char **levels)
{
        for (size_t i = 0; levels[i]; i++) {
                struct param_set *ps;
                char *why = NULL;
                if (param_set_copy(s->base, &ps) < 0)
                        return EXIT_ENV;
                int r = param_set_assign(ps, param, levels[i], &why);
                param_set_free(ps);
                if (r < 0) {
                        log_error("%s probe '%s': sweep level %s", s->plugin->name, s->probe,
                                  why ? why : levels[i]);
                        free(why);
                        return EXIT_USAGE;
                }
        }
        return EXIT_OK;
}

static int sweep_all(const struct sweep_run *s, const char *param, char **levels)
{
        size_t n = 0;
        while (levels[n])
                n++;
        struct sweep_point *pts = calloc(n, sizeof(*pts));
        struct result **results = calloc(n, sizeof(*results));
        char *tname = str_printf("benchwatch_%s_%s", s->plugin->name,
                                 s->plugin->throughput_metric ? s->plugin->throughput_metric : "?");
        char *lname = str_printf("benchwatch_%s_latency_seconds", s->plugin->name);
        /* a bandwidth column beside a throughput that is not one already */
        char *bname = s->plugin->throughput_metric &&
                      strcmp(s->plugin->throughput_metric, "bytes_per_second")
                ? str_printf("benchwatch_%s_bytes_per_second", s->plugin->name) : NULL;
        int ex = pts && results && tname && lname ? EXIT_OK : EXIT_ENV;
        size_t done = 0;
        for (; ex == EXIT_OK && done < n; done++) {
                if (s->o->fmt == FORMAT_TABLE)
                        fprintf(stderr, "%s=%s ...\n", param, levels[done]);
                results[done] = run_level(s, param, levels[done]);
                if (!results[done]) {
                        ex = EXIT_USAGE;
                        break;
                }
                pts[done].level = levels[done];
                sweep_point_from_result(&pts[done], results[done], tname, bname, lname,
                                        s->o->q);
                if (!results[done]->success) {
                        log_error("%s=%s: %s", param, levels[done], results[done]->error);
                        ex = EXIT_FAILED;
                } else if (!result_find(results[done], tname)) {
                        /* e.g. memory mode=latency: seconds per load, no rate */
                        log_error("sweep: %s probe '%s' with %s=%s reports no %s: "
                                  "sweep ranks levels by it, and these parameters do "
                                  "not measure it", s->plugin->name, s->probe, param,
                                  levels[done], tname);
                        ex = EXIT_USAGE;
                }
        }
        if (ex == EXIT_OK || ex == EXIT_FAILED) {
                int knee = sweep_knee(pts, done, s->o->target);
                const char *tshort =
                        s->plugin->throughput_metric ? s->plugin->throughput_metric : "throughput";
                const struct result *prio = with_priority(results, done);
                if (s->o->fmt == FORMAT_TABLE && prio)
                        report_format_priority(stdout, prio);
                if (s->o->fmt == FORMAT_TABLE)
                        print_table(param, tshort, s->o->q, pts, done, knee);
                else if (s->o->fmt == FORMAT_JSON)
                        print_json(s->probe, param, tname, s->o->q, s->o->target, pts, done,
                                   knee, prio);
                else
                        prom_text_write(stdout, (const struct result *const *)results, done);
                if (s->o->plot) {
                        char *title = str_printf("benchwatch sweep %s %s", s->probe, param);
                        int r = sweep_plot_svg(s->o->plot, title ? title : "sweep", param, tshort,
                                               s->o->q, pts, done, knee);
                        if (r < 0) {
                                log_error("cannot write '%s': %s", s->o->plot, strerror(-r));
                                ex = EXIT_ENV;
                        }
                        free(title);
                }
        }
        for (size_t i = 0; results && i < n; i++)
                result_free(results[i]);
        free(results);
        free(pts);
        free(tname);
        free(lname);
        free(bname);
        return ex;
}

int cmd_sweep(struct app *app, int argc, char **argv)
{
        struct sweep_opts o = { .fmt = FORMAT_TABLE, .q = 0.95 };
        int ex = parse_opts(argc, argv, &o);
        if (ex != EXIT_OK)
                return ex == EXIT_OK + 100 ? EXIT_OK : ex;
        char *param = NULL;
        char **levels = split_levels(argv[optind + 1], &param);
        if (!levels) {
                log_error("sweep: '%s' is not of the form PARAM=V1,V2,...", argv[optind + 1]);
                return EXIT_USAGE;
        }
        ex = app_init(app);
        struct sweep_run s = { .app = app, .probe = argv[optind], .o = &o };
        struct param_set *base = NULL;
        if (ex == EXIT_OK)
                ex = run_args_resolve_probe(app, s.probe, argv + optind + 2, argc - optind - 2,
                                            &s.plugin, &base, &s.timeout);
        if (ex == EXIT_OK && param_index(s.plugin->params, param) < 0) {
                log_error("sweep: plugin %s has no parameter '%s'%s%s", s.plugin->name, param,
                          s.plugin->concurrency_param ? "; its concurrency parameter is " : "",
                          s.plugin->concurrency_param ? s.plugin->concurrency_param : "");
                ex = EXIT_USAGE;
        }
        if (ex == EXIT_OK && !s.plugin->throughput_metric) {
                log_error("sweep: plugin %s declares no throughput figure to rank levels by",
                          s.plugin->name);
                ex = EXIT_USAGE;
        }
        if (ex == EXIT_OK) {
                s.base = base;
                if (o.timeout > 0)
                        s.timeout = o.timeout;
                ex = check_levels(&s, param, levels);
        }
        if (ex == EXIT_OK) {
                ex = app_ensure_dir(app_daemon_option(app, "cache_dir")->s) < 0
                             ? EXIT_ENV
                             : sweep_all(&s, param, levels);
        }
        param_set_free(base);
        for (size_t i = 0; levels[i]; i++)
                free(levels[i]);
        free(levels);
        free(param);
        if (app->reg)
                app_done(app);
        return ex;
}
