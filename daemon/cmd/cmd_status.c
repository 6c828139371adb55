/* cmd_status.c — `benchwatch status`: is the daemon healthy, what is it
 * waiting for, and when can it first say "slower"?  One screen an operator
 * reads in five seconds, or JSON for a script, and an exit status a
 * monitoring check can use (0 fine, 1 a probe's last run failed or a
 * figure is in regression, 2 usage or configuration, 3 the state cannot
 * be read).
 *
 * Everything comes from files, so it works beside a running daemon and
 * after it stopped: the baselines (references, verdicts), the daemon's
 * status.txt (status_file.h: last runs, next runs, deferrals, the sinks'
 * last errors), the textfile's modification time and the remote-write
 * spool's files. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "cmd/status_file.h"
#include "core/log.h"
#include "detect/baseline_store.h"
#include "detect/evidence_store.h"
#include "detect/tracker.h"
#include "encode/report_format.h"
#include "sink/sink.h"
#include "sink/sinkconf.h"
#include "util/format.h"
#include "util/strutil.h"
#include "util/timeutil.h"

/* One probe's summary over its series. */
struct probe_status {
        const struct probe_cfg *pc;
        const struct status_file_probe *sp;     /* NULL: no daemon wrote of it */
        unsigned held;            /* reference runs held (fewest of its series) */
        bool pinned;              /* every series pinned */
        double pinned_at;         /* earliest pinning */
        bool any_series, regression, verdict;
        bool unreadable;          /* its baseline file is not one this reads */
        const char *key;          /* the series shown: the worst change */
        bool key_regression, key_valid;
        double worse_by;          /* its change, worse positive */
        double change, lo, hi;    /* its change and 95% interval, own sign */
        double first_due;         /* UNIX time of the first verdict; NAN: has one / unknown */
        struct evidence_store ev; /* the cause named, while in regression */
};

struct status_ctx {
        const struct app *app;
        struct tracker_settings ts;
        const char *state_dir;
        struct status_file *sf;
        bool daemon_running;
        double now;
        bool json;
        int name_width;         /* the probe column: its longest name */
};

/* "12s", "5min", "3h": rounded for people. */
static const char *ago(double now, double t, char *buf, unsigned size)
{
        char d[32];
        if (t <= 0)
                snprintf(buf, size, "never");
        else
                snprintf(buf, size, "%s ago", format_duration_about(now - t, d, sizeof(d)));
        return buf;
}

static const char *in(double now, double t, char *buf, unsigned size)
{
        char d[32];
        if (t <= now + 0.5)
                snprintf(buf, size, "now");
        else
                snprintf(buf, size, "in %s", format_duration_about(t - now, d, sizeof(d)));
        return buf;
}

/* How much worse the change is (positive: worse). */
static double worse(const struct baseline_series *s, double change)
{
        return s->direction == DETECTOR_LOWER_IS_BETTER ? change : -change;
}

static int summarise(const struct status_ctx *c, const struct probe_cfg *pc,
                     struct baseline **ret_b, struct probe_status *ret)
{
        struct baseline *b = NULL;
        char *why = NULL;
        *ret = (struct probe_status){ .pc = pc, .sp = status_file_find(c->sf, pc->name),
                                      .first_due = NAN, .pinned = true };
        int r = baseline_store_read(c->state_dir, pc->name, &b, &why);
        if (r == -EBADMSG || r == -EPROTONOSUPPORT) {
                /* said, and left for the daemon: this probe is shown without
                 * its reference, the others as they are */
                log_error("status: %s", why ? why : strerror(-r));
                free(why);
                why = NULL;
                ret->unreadable = true;
                r = (b = baseline_new(pc->name)) ? 0 : -ENOMEM;
        }
        if (r < 0) {
                log_error("status: %s", why ? why : strerror(-r));
                free(why);
                return r;
        }
        for (size_t i = 0; i < b->n_series; i++) {
                const struct baseline_series *s = &b->series[i];
                struct detector_verdict v;
                detector_state(&s->det, &c->ts.det, s->direction, &v);
                ret->held = !ret->any_series || s->det.n_ref < ret->held ? s->det.n_ref : ret->held;
                ret->pinned &= s->det.pinned;
                if (s->det.pinned && (!ret->pinned_at || s->det.pinned_at < ret->pinned_at))
                        ret->pinned_at = s->det.pinned_at;
                ret->regression |= s->det.regression;
                double w = isfinite(v.change) ? worse(s, v.change) : -INFINITY;
                /* shown: a regression first, then a verdict, then the worst change */
                bool better = !ret->key ||
                              (s->det.regression != ret->key_regression ? s->det.regression :
                               v.valid != ret->key_valid ? v.valid : w > ret->worse_by);
                if (better) {
                        ret->key = s->key;
                        ret->key_regression = s->det.regression;
                        ret->key_valid = v.valid;
                        ret->worse_by = w;
                        /* while learning there is no reference to change against */
                        ret->change = v.valid ? v.change : NAN;
                        ret->lo = v.valid ? v.change_lo : NAN;
                        ret->hi = v.valid ? v.change_hi : NAN;
                }
                ret->verdict |= v.valid;
                ret->any_series = true;
        }
        if (!ret->any_series)
                ret->pinned = false;
        unsigned need = c->ts.det.min_runs < c->ts.det.reference_runs ? c->ts.det.min_runs
                                                                       : c->ts.det.reference_runs;
        if (!ret->verdict && ret->held < need) {
                double last = ret->sp && ret->sp->last > 0 ? ret->sp->last : c->now;
                double took = ret->sp && ret->sp->took > 0 ? ret->sp->took : NAN;
                double period = conf_daemon_mean_period(c->app->cfg->daemon->values,
                                                        pc->interval, took);
                ret->first_due = last + (need - ret->held) * period;
        }
        if (ret->regression && evidence_store_load(c->state_dir, pc->name, &ret->ev, &why) < 0) {
                log_warning("status: %s", why ? why : "cannot read the evidence");
                free(why);
        }
        *ret_b = b;
        return 0;
}

/* The change of the shown series, in its own sign: "-14.2% (-17.0..-11.1%)". */
static void change_text(const struct probe_status *p, char *buf, size_t size)
{
        double change = p->change, lo = p->lo, hi = p->hi;
        if (!p->key || !isfinite(change))
                snprintf(buf, size, "-");
        else if (isfinite(lo) && isfinite(hi))
                snprintf(buf, size, "%+.1f%% (%+.1f..%+.1f%%)", change * 100, lo * 100, hi * 100);
        else
                snprintf(buf, size, "%+.1f%%", change * 100);
}

static const char *verdict_word(const struct probe_status *p)
{
        return p->regression ? "REGRESSION" : p->verdict ? "ok" : "learning";
}

static bool failing(const struct probe_status *p)
{
        return p->sp && p->sp->last > 0 && !p->sp->ok;
}

/* ---- table ------------------------------------------------------------------- */

static void table_probe(const struct status_ctx *c, const struct probe_status *p)
{
        char last[48] = "never", counted[8] = "-", defer[24], ref[48], change[64];
        char due[32] = "-", next[32] = "-", t[32];
        if (p->sp && p->sp->last > 0) {
                snprintf(last, sizeof(last), "%s %s", ago(c->now, p->sp->last, t, sizeof(t)),
                         p->sp->ok ? "ok" : "FAILED");
                snprintf(counted, sizeof(counted), "%s", p->sp->counted ? "yes" : "no");
        }
        snprintf(defer, sizeof(defer), "%u/%u", p->sp ? p->sp->deferred_day : 0,
                 p->sp ? p->sp->yielded_day : 0);
        if (p->pinned) {
                char day[16] = "?";
                time_t pt = (time_t)p->pinned_at;
                struct tm tm;
                if (gmtime_r(&pt, &tm))
                        strftime(day, sizeof(day), "%Y-%m-%d", &tm);
                snprintf(ref, sizeof(ref), "%u/%u since %s", p->held,
                         c->ts.det.reference_runs, day);
        } else {
                snprintf(ref, sizeof(ref), "%u/%u", p->held, c->ts.det.reference_runs);
        }
        change_text(p, change, sizeof(change));
        if (isfinite(p->first_due))
                in(c->now, p->first_due, due, sizeof(due));
        if (p->sp && c->daemon_running)
                in(c->now, p->sp->next, next, sizeof(next));
        printf("%-*s %-16s %-7s %-9s %-24s %-10s %-26s %-13s %s\n", c->name_width,
               p->pc->name, last, counted, defer, ref, verdict_word(p), change, due, next);
}

/* Why a probe's last try did not count, for people. */
static const char *wait_words(const char *reason)
{
        static const struct { const char *reason, *words; } w[] = {
                { "room", "no room for it on the host's CPUs" },
                { "cpu", "CPU pressure, or it took CPU from others" },
                { "io", "others' disk I/O or I/O pressure" },
                { "memory", "memory pressure" },
                { "load", "the load average" },
                { "cpu_wait", "its threads waited for a CPU, runs not counted" },
                { "steal", "the hypervisor took the CPU, runs not counted" },
                { "failed", "its runs failed" },
        };
        for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
                if (!strcmp(w[i].reason, reason))
                        return w[i].words;
        return reason;
}

static void table_notes(const struct status_ctx *c, const struct probe_status *p)
{
        char t[32];
        /* with the daemon gone, the wait goes on but its reason is old */
        if (p->sp && p->sp->wait_reason && strcmp(p->sp->wait_reason, "none"))
                printf("  %s: no counted run for %s: %s%s\n", p->pc->name,
                       format_duration_about(c->now - p->sp->waiting_since, t, sizeof(t)),
                       wait_words(p->sp->wait_reason),
                       c->daemon_running ? "" : " (at its last try; the daemon is not running)");
        if (p->sp && p->sp->why)
                printf("  %s: last run %s: %s\n", p->pc->name,
                       p->sp->ok ? "not counted" : "failed", p->sp->why);
        if (p->regression && p->key)
                printf("  %s: in regression: %s\n", p->pc->name, p->key);
        if (p->regression && p->ev.cause_label)
                printf("  %s: cause: %s: %s\n", p->pc->name, p->ev.cause_label,
                       p->ev.cause_text ? p->ev.cause_text : "");
}

/* ---- the sinks ----------------------------------------------------------------- */

struct sink_status {
        const char *name;
        char *where;              /* textfile path, spool directory */
        double last_write;        /* textfile: its mtime; 0 none */
        size_t spooled;
        uint64_t spooled_bytes;
        const struct sink_health_entry *health;
};

static void spool_usage(const char *dir, size_t *ret_n, uint64_t *ret_bytes)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        *ret_n = 0;
        *ret_bytes = 0;
        while (d && (de = readdir(d))) {
                size_t len = strlen(de->d_name);
                struct stat st;
                if (len < 4 || strcmp(de->d_name + len - 3, ".rw") ||
                    fstatat(dirfd(d), de->d_name, &st, 0) < 0)
                        continue;
                (*ret_n)++;
                *ret_bytes += (uint64_t)st.st_size;
        }
        if (d)
                closedir(d);
}

/* The enabled sinks that leave something to look at; how many. */
static size_t sinks_of(const struct status_ctx *c, struct sink_status *ret)
{
        size_t n = 0;
        const struct param_set *tf = conf_section(c->app->cfg, "textfile");
        const struct param_set *rw = conf_section(c->app->cfg, "remote_write");
        const struct param_set *pg = conf_section(c->app->cfg, "pushgateway");
        if (tf && sinkconf_opt(tf, "enabled")->b) {
                const char *path = sinkconf_opt(tf, "path")->s;
                struct stat st;
                ret[n] = (struct sink_status){ .name = "textfile" };
                ret[n].where =
                        *path == '/' ? strdup(path) : str_printf("%s/%s", c->state_dir, path);
                if (ret[n].where && stat(ret[n].where, &st) == 0)
                        ret[n].last_write = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
                ret[n].health = status_file_find_sink(c->sf, "textfile");
                n++;
        }
        if (rw && sinkconf_opt(rw, "enabled")->b) {
                const char *dir = sinkconf_opt(rw, "spool_dir")->s;
                ret[n] = (struct sink_status){ .name = "remote_write" };
                ret[n].where = *dir ? strdup(dir) : str_printf("%s/remote-write", c->state_dir);
                if (ret[n].where)
                        spool_usage(ret[n].where, &ret[n].spooled, &ret[n].spooled_bytes);
                ret[n].health = status_file_find_sink(c->sf, "remote_write");
                n++;
        }
        if (pg && sinkconf_opt(pg, "enabled")->b && *sinkconf_opt(pg, "url")->s) {
                ret[n] = (struct sink_status){ .name = "pushgateway" };
                ret[n].health = status_file_find_sink(c->sf, "pushgateway");
                n++;
        }
        return n;
}

static void table_sink(const struct status_ctx *c, const struct sink_status *s)
{
        char t[32], size[32];
        printf("%-12s ", s->name);
        if (!strcmp(s->name, "textfile"))
                printf("%s written %s", s->where ? s->where : "?",
                       ago(c->now, s->last_write, t, sizeof(t)));
        else if (!strcmp(s->name, "remote_write"))
                printf("%zu run(s) spooled (%s bytes) in %s", s->spooled,
                       format_quantity((double)s->spooled_bytes, false, size, sizeof(size)),
                       s->where ? s->where : "?");
        else
                printf("last push %s", ago(c->now, s->health ? s->health->last_ok : 0, t,
                                           sizeof(t)));
        if (s->health && s->health->error && s->health->last_error >= s->health->last_ok)
                printf("; FAILING since %s: %s", ago(c->now, s->health->last_error, t, sizeof(t)),
                       s->health->error);
        else if (s->health && s->health->error)
                printf("; last error %s: %s", ago(c->now, s->health->last_error, t, sizeof(t)),
                       s->health->error);
        putchar('\n');
}

/* ---- JSON ------------------------------------------------------------------------ */

/* A number, null when there is none (NAN). */
static void json_num(const char *name, double v, bool comma)
{
        printf("\"%s\":", name);
        if (isfinite(v))
                printf("%.17g", v);
        else
                printf("null");
        if (comma)
                putchar(',');
}

/* A time, null for never (0 or NAN). */
static void json_time(const char *name, double t, bool comma)
{
        json_num(name, t > 0 ? t : NAN, comma);
}

static void json_str(const char *name, const char *v, bool comma)
{
        printf("\"%s\":", name);
        if (v)
                report_format_json_string(stdout, v);
        else
                printf("null");
        if (comma)
                putchar(',');
}

static void json_probe(const struct status_ctx *c, const struct probe_status *p)
{
        const struct status_file_probe *sp = p->sp;
        bool ran = sp && sp->last > 0;
        printf("{");
        json_str("name", p->pc->name, true);
        json_str("plugin", p->pc->plugin->name, true);
        printf("\"interval\":%.17g,\"last_run\":", p->pc->interval);
        if (ran) {
                printf("{");
                json_time("time", sp->last, true);
                printf("\"ok\":%s,\"counted\":%s,", sp->ok ? "true" : "false",
                       sp->counted ? "true" : "false");
                json_str("why", sp->why, false);
                printf("},");
        } else {
                printf("null,");
        }
        printf("\"deferred_24h\":%u,\"yielded_24h\":%u,", sp ? sp->deferred_day : 0,
               sp ? sp->yielded_day : 0);
        if (sp && sp->wait_reason) {
                printf("\"waiting\":{");
                json_time("since", sp->waiting_since, true);
                json_time("last_try", sp->last_try, true);
                json_str("reason", sp->wait_reason, false);
                printf("},");
        }
        printf("\"reference\":{\"runs\":%u,\"reference_runs\":%u,\"min_runs\":%u,"
               "\"pinned\":%s,", p->held, c->ts.det.reference_runs, c->ts.det.min_runs,
               p->pinned ? "true" : "false");
        json_time("pinned_since", p->pinned ? p->pinned_at : NAN, false);
        printf("},\"verdict\":\"%s\",", p->regression ? "regression"
                                        : p->verdict  ? "ok"
                                                      : "learning");
        json_str("series", p->key, true);
        if (p->regression && p->ev.cause_label) {
                printf("\"cause\":{");
                json_str("label", p->ev.cause_label, true);
                json_str("evidence", p->ev.cause_text, false);
                printf("},");
        }
        json_num("change", p->key ? p->change : NAN, true);
        json_num("change_lo", p->key ? p->lo : NAN, true);
        json_num("change_hi", p->key ? p->hi : NAN, true);
        json_time("first_verdict_due", p->first_due, true);
        json_time("next_run", sp && c->daemon_running ? sp->next : NAN, false);
        printf("}");
}

static void json_sink(const struct sink_status *s)
{
        printf("{");
        json_str("name", s->name, true);
        if (!strcmp(s->name, "textfile")) {
                json_str("path", s->where, true);
                json_time("last_write", s->last_write, true);
        } else if (!strcmp(s->name, "remote_write")) {
                json_str("spool_dir", s->where, true);
                printf("\"spooled_runs\":%zu,\"spooled_bytes\":%llu,", s->spooled,
                       (unsigned long long)s->spooled_bytes);
        }
        json_time("last_ok", s->health ? s->health->last_ok : NAN, true);
        json_time("last_error_time", s->health ? s->health->last_error : NAN, true);
        json_str("last_error", s->health ? s->health->error : NULL, false);
        printf("}");
}

/* ---- the command --------------------------------------------------------------------- */

static void header(const struct status_ctx *c)
{
        char t[32];
        if (c->json) {
                printf("{");
                json_str("state_dir", c->state_dir, true);
                printf("\"daemon\":{\"running\":%s,", c->daemon_running ? "true" : "false");
                printf("\"pid\":%ld,", c->sf ? c->sf->pid : 0L);
                json_time("started", c->sf ? c->sf->started : NAN, true);
                json_time("written", c->sf ? c->sf->written : NAN, false);
                printf("},\"probes\":[");
                return;
        }
        if (!c->sf)
                printf("daemon: has not run with state_dir %s\n", c->state_dir);
        else if (c->daemon_running)
                printf("daemon: running (pid %ld, up %s), state in %s\n", c->sf->pid,
                       format_duration_about(c->now - c->sf->started, t, sizeof(t)), c->state_dir);
        else
                printf("daemon: NOT RUNNING (last seen %s), state in %s\n",
                       ago(c->now, c->sf->written, t, sizeof(t)), c->state_dir);
        printf("%-*s %-16s %-7s %-9s %-24s %-10s %-26s %-13s %s\n", c->name_width, "probe",
               "last run", "counted", "defer/yld", "reference", "verdict", "change (95% CI)",
               "first verdict", "next run");
}

static int status_print(struct status_ctx *c)
{
        const struct config *cfg = c->app->cfg;
        struct probe_status *ps = calloc(cfg->n_probes + 1, sizeof(*ps));
        struct baseline **bs = calloc(cfg->n_probes + 1, sizeof(*bs));
        struct sink_status sinks[4];
        size_t n = 0, bad = 0, unreadable = 0, n_sinks;
        int ex = ps && bs ? EXIT_OK : EXIT_ENV;
        for (size_t i = 0; ex == EXIT_OK && i < cfg->n_probes; i++) {
                if (!cfg->probes[i].enabled)
                        continue;
                if (summarise(c, &cfg->probes[i], &bs[n], &ps[n]) < 0)
                        ex = EXIT_ENV;
                else
                        bad += failing(&ps[n]) || ps[n].regression,
                        unreadable += ps[n].unreadable, n++;
        }
        if (ex != EXIT_OK)
                goto out;
        header(c);
        for (size_t i = 0; i < n; i++) {
                if (c->json && i)
                        putchar(',');
                (c->json ? json_probe : table_probe)(c, &ps[i]);
        }
        for (size_t i = 0; !c->json && i < n; i++)
                table_notes(c, &ps[i]);
        n_sinks = sinks_of(c, sinks);
        printf(c->json ? "],\"sinks\":[" : n_sinks ? "sinks:\n" : "");
        for (size_t i = 0; i < n_sinks; i++) {
                if (c->json && i)
                        putchar(',');
                if (c->json)
                        json_sink(&sinks[i]);
                else
                        table_sink(c, &sinks[i]);
                free(sinks[i].where);
        }
        ex = unreadable ? EXIT_ENV : bad ? EXIT_FAILED : EXIT_OK;
        if (c->json)
                printf("],\"problems\":%zu,\"exit\":%d}\n", bad, ex);
        else if (bad)
                printf("%zu probe(s) failing or in regression\n", bad);
out:
        for (size_t i = 0; bs && i < n; i++)
                baseline_free(bs[i]);
        for (size_t i = 0; ps && i < n; i++)
                evidence_store_clear(&ps[i].ev);
        free(bs);
        free(ps);
        return ex;
}

static void status_usage(FILE *f)
{
        fprintf(f, "Usage: benchwatch [--config FILE] status [--format=table|json]\n\n"
                   "What the daemon is doing, from its state directory: per probe the last\n"
                   "run, whether it counted, deferrals and yields of the last day, the\n"
                   "reference, the verdict, when the first verdict is due and the next run;\n"
                   "the sinks' health.\n\n"
                   "Exit status: 0 fine (also while learning), 1 a probe's last run failed\n"
                   "or a figure is in regression, 2 bad usage or configuration,\n"
                   "3 the state directory or a probe's baseline file cannot be read.\n");
}

/* The daemon that wrote status.txt still runs: its pid is alive and is a
 * benchwatch (not a later process that got the same pid). */
static bool pid_alive(long pid)
{
        char path[64], comm[32] = "";
        if (pid <= 0 || (kill((pid_t)pid, 0) < 0 && errno != EPERM))
                return false;
        snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
        FILE *f = fopen(path, "re");
        if (!f)
                return true; /* no /proc to ask: trust kill() */
        bool ours = fgets(comm, sizeof(comm), f) && !strncmp(comm, "benchwatch", 10);
        fclose(f);
        return ours;
}

int cmd_status(struct app *app, int argc, char **argv)
{
        static const struct option opts[] = {
                { "format", required_argument, NULL, 'f' },
                { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        struct status_ctx c = { .app = app };
        int ch;
        while ((ch = cli_getopt("status", argc, argv, "h", opts)) != -1) {
                if (ch == 'f' && (!strcmp(optarg, "table") || !strcmp(optarg, "json"))) {
                        c.json = !strcmp(optarg, "json");
                        continue;
                }
                if (ch == 'f')
                        log_error("status: unknown format '%s' (table or json)", optarg);
                status_usage(ch == 'h' ? stdout : stderr);
                return ch == 'h' ? EXIT_OK : EXIT_USAGE;
        }
        if (optind < argc) {
                cli_reject("status", argv[optind]);
                status_usage(stderr);
                return EXIT_USAGE;
        }
        app->plugins_on_demand = true;
        int ex = app_init(app);
        if (ex != EXIT_OK)
                return ex;
        char *why = NULL;
        c.state_dir = app_daemon_option(app, "state_dir")->s;
        tracker_settings(app->cfg, &c.ts);
        c.name_width = 12;
        for (size_t i = 0; i < app->cfg->n_probes; i++)
                if ((int)strlen(app->cfg->probes[i].name) > c.name_width)
                        c.name_width = (int)strlen(app->cfg->probes[i].name);
        int r = status_file_read(c.state_dir, &c.sf, &why);
        if (r < 0 && r != -ENOENT) {
                log_error("status: %s", why ? why : strerror(-r));
                free(why);
                app_done(app);
                return EXIT_ENV;
        }
        c.now = now_wall();
        c.daemon_running = c.sf && pid_alive(c.sf->pid);
        ex = status_print(&c);
        status_file_free(c.sf);
        app_done(app);
        return ex;
}
