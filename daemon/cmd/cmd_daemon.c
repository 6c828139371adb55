/* cmd_daemon.c — `benchwatch daemon`: the service.  Loads plugins, config
 * and sinks, then runs the scheduler on an sd-event loop until SIGTERM;
 * SIGHUP reloads (a bad new configuration is reported and the old one
 * kept); talks sd_notify (READY, STATUS, RELOADING, STOPPING, WATCHDOG).
 * On a terminal it also prints each result as it arrives.
 *
 * The watchdog is fed by a timer on the same loop, at half of
 * WATCHDOG_USEC, and only while the scheduler says it makes progress: a
 * wedged loop stops feeding it because the timer never fires, and a loop
 * that spins without progress because scheduler_stalled() says so.  Either
 * way systemd kills and restarts the service. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>
#include <time.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "cmd/status_file.h"
#include "core/log.h"
#include "core/scheduler.h"
#include "detect/context.h"
#include "detect/tracker.h"
#include "encode/report_format.h"
#include "sink/sink.h"
#include "util/atomicfile.h"
#include "util/reserve.h"
#include "util/strutil.h"
#include "util/timeutil.h"

struct daemon {
        struct app *app;
        sd_event *event;
        struct scheduler *sched;
        struct sink_set *sinks;
        struct tracker *tracker;
        struct context host;  /* read once at start */
        sd_event_source *watchdog;
        uint64_t watchdog_usec;
        bool stalled;
        bool print;
        bool first_pass;         /* --first-pass */
        struct status_file state;  /* what status.txt says (status_file.h) */
        bool state_failing;
};

static int make_sinks(const struct config *cfg, const struct sink_set *prev,
                      struct sink_set **ret, char **ret_error)
{
        size_t n = 0;
        while (sink_types[n])
                n++;
        const struct param_set *opts[n + 1];
        for (size_t i = 0; i < n; i++)
                opts[i] = conf_section(cfg, sink_types[i]->section);
        opts[n] = NULL;
        /* every configured probe, absent here or not: a group of one stays */
        const char *probes[cfg->n_probes + 1];
        for (size_t i = 0; i < cfg->n_probes; i++)
                probes[i] = cfg->probes[i].name;
        probes[cfg->n_probes] = NULL;
        const struct sink_env env = {
                .state_dir = cfg->daemon->values[CFG_D_STATE_DIR].s,
                .probes = probes,
        };
        return sink_set_new(opts, &env, prev, ret, ret_error);
}

/* The state and cache directories of cfg (systemd creates them for the
 * unit; a hand-started daemon makes them), before anything uses them: the
 * sinks (the remote-write spool is in state_dir), the tracker, the runs.
 * The one place the daemon creates them, at start and at each reload. */
static int make_dirs(const struct config *cfg)
{
        const char *dirs[] = { cfg->daemon->values[CFG_D_STATE_DIR].s,
                               cfg->daemon->values[CFG_D_CACHE_DIR].s };
        for (size_t i = 0; i < 2; i++) {
                int r = app_ensure_dir(dirs[i]);
                if (r < 0) {
                        log_error("cannot create '%s': %s", dirs[i], strerror(-r));
                        return r;
                }
        }
        return 0;
}

/* One daemon a state_dir: a second would write the same baselines, history
 * and status, and take the first's writes in progress for interrupted
 * ones.  The lock is the kernel's (flock): it goes with the process, and
 * the file stays, naming the last daemon's pid.  The fd is the daemon's
 * for its life (close-on-exec: probes do not hold it). */
static int lock_state_dir(const struct config *cfg, int *ret_fd)
{
        const char *dir = cfg->daemon->values[CFG_D_STATE_DIR].s;
        char *path = str_printf("%s/daemon.lock", dir), holder[32] = "";
        int fd = path ? open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600) : -1;
        int r = fd < 0 ? (path ? -errno : -ENOMEM) : 0;
        if (r >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0)
                r = -errno;
        if (r == -EWOULDBLOCK) {
                ssize_t n = pread(fd, holder, sizeof(holder) - 1, 0);
                holder[n > 0 ? strcspn(holder, "\n") : 0] = 0;
                log_error("another benchwatch daemon%s%s uses state_dir '%s' (it holds the lock "
                          "on '%s'): one daemon a state directory", *holder ? ", pid " : "",
                          holder, dir, path);
        } else if (r < 0) {
                log_error("cannot lock '%s': %s", path ? path : dir, strerror(-r));
        } else if (ftruncate(fd, 0) < 0 || dprintf(fd, "%ld\n", (long)getpid()) < 0) {
                log_warning("cannot write the pid to '%s': %m", path); /* still locked */
        }
        free(path);
        if (r < 0) {
                if (fd >= 0)
                        close(fd);
                return r;
        }
        *ret_fd = fd;
        return 0;
}

/* At start, before any writer of ours runs (not at a reload: the textfile
 * sink's thread may be writing): the temporary files of writes that a kill
 * -9 interrupted between their create and their rename. */
static void remove_interrupted_writes(const struct config *cfg)
{
        const char *dir = cfg->daemon->values[CFG_D_STATE_DIR].s;
        int n = atomicfile_remove_temps(dir);
        if (n > 0)
                log_info("removed %d temporary file(s) an interrupted write left in '%s'", n, dir);
        else if (n < 0)
                log_warning("cannot remove the temporary files an interrupted write left in "
                            "'%s': %s", dir, strerror(-n));
}

static void notify_status(struct daemon *d)
{
        char *st = scheduler_status(d->sched);
        if (st)
                sd_notifyf(false, "STATUS=%s", st);
        free(st);
}

/* The probes of the state file in the scheduler's order, each keeping what
 * its last run left. */
static int state_probes(struct daemon *d)
{
        size_t n = scheduler_count(d->sched);
        struct status_file_probe *probes = calloc(n + 1, sizeof(*probes));
        if (!probes)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                struct scheduler_probe_info info;
                scheduler_probe_info(d->sched, i, &info);
                struct status_file_probe *old = (struct status_file_probe *)
                        status_file_find(&d->state, info.name);
                const struct probe_cfg *pc = conf_find_probe(d->app->cfg, info.name);
                struct status_file_probe *p = &probes[i];
                if (old && pc && old->plugin && strcmp(old->plugin, pc->plugin->name)) {
                        /* a reload gave the name to another plugin's probe */
                        status_file_probe_clear(old);
                        old = NULL;
                }
                if (old) {
                        *p = *old;
                        *old = (struct status_file_probe){ 0 };
                } else {
                        /* since the daemon began to watch it: its start,
                         * or the reload that added it */
                        p->name = strdup(info.name);
                        p->waiting_since = now_wall();
                }
                free(p->plugin);
                p->plugin = strdup(pc ? pc->plugin->name : "?");
                p->interval = info.interval;
                p->next = info.next;
                p->deferred_day = info.deferred_day;
                p->yielded_day = info.yielded_day;
        }
        struct status_file old = { .probes = d->state.probes, .n_probes = d->state.n_probes };
        d->state.probes = probes;
        d->state.n_probes = n;
        status_file_clear(&old);
        for (size_t i = 0; i < n; i++)
                if (!probes[i].name || !probes[i].plugin)
                        return -ENOMEM;
        return 0;
}

/* Each probe's wait as the daemon before this one left it in status.txt,
 * where that daemon tried the probe within RESTORE_WAIT_MAX: a restart
 * does not start the wait afresh, or a daemon that keeps restarting would
 * never be seen not measuring; after a longer stop the time it was down
 * is no wait.  A probe now of another plugin by the same name starts
 * afresh. */
#define RESTORE_WAIT_MAX (3 * 3600.0) /* as BenchwatchHostStale's 3 hours */
static void restore_waits(struct daemon *d)
{
        struct status_file *old = NULL;
        char *why = NULL;
        int r = status_file_read(app_daemon_option(d->app, "state_dir")->s, &old, &why);
        free(why);
        if (r < 0 || state_probes(d) < 0) {
                status_file_free(old);
                return;
        }
        for (size_t i = 0; i < d->state.n_probes; i++) {
                struct status_file_probe *p = &d->state.probes[i];
                const struct status_file_probe *o = status_file_find(old, p->name);
                if (!o || !o->wait_reason || !(o->waiting_since > 0) || !o->plugin ||
                    strcmp(o->plugin, p->plugin) ||
                    !(now_wall() - o->last_try < RESTORE_WAIT_MAX))
                        continue;
                char *reason = strdup(o->wait_reason);
                if (!reason)
                        break;
                free(p->wait_reason);
                p->wait_reason = reason;
                p->waiting_since = o->waiting_since;
                p->last_try = o->last_try;
        }
        status_file_free(old);
}

/* What the sinks reported of themselves, into the state file. */
static int take_sink_health(struct daemon *d)
{
        struct sink_health_entry *e = NULL;
        size_t n = 0;
        int r = sink_health_entries(sink_set_health(d->sinks), &e, &n);
        if (r < 0)
                return r;
        sink_health_entries_free(d->state.sinks, d->state.n_sinks);
        d->state.sinks = e;
        d->state.n_sinks = n;
        return 0;
}

/* Rewrite <state_dir>/status.txt for `benchwatch status`; a failure is
 * logged once until it works again. */
static void save_state(struct daemon *d)
{
        char *why = NULL;
        int r = state_probes(d);
        if (r >= 0)
                r = take_sink_health(d);
        if (r >= 0)
                r = status_file_write(app_daemon_option(d->app, "state_dir")->s, &d->state, &why);
        if (r < 0 && !d->state_failing)
                log_warning("status: %s (benchwatch status will show less)",
                            why ? why : strerror(-r));
        d->state_failing = r < 0;
        free(why);
}

static struct status_file_probe *state_probe(struct daemon *d, const char *probe)
{
        struct status_file_probe *p =
                (struct status_file_probe *)status_file_find(&d->state, probe);
        if (!p && state_probes(d) >= 0)
                p = (struct status_file_probe *)status_file_find(&d->state, probe);
        return p;
}

/* The last try of the probe and, unless it was a counted run, why not. */
static void note_try(struct status_file_probe *p, double when, const char *reason)
{
        char *r = strdup(reason ? reason : "none");
        if (!r)
                return;
        p->last_try = when;
        if (!reason)
                p->waiting_since = when;
        free(p->wait_reason);
        p->wait_reason = r;
}

/* What status.txt says of a probe's last run, as the tracker judged it. */
static void note_run(struct daemon *d, const struct result *res,
                     const struct tracker_outcome *o)
{
        struct status_file_probe *p = state_probe(d, res->probe);
        if (!p)
                return;
        p->last = res->started + res->duration;
        p->took = res->duration;
        p->ok = res->success;
        p->counted = o->counted;
        free(p->why);
        p->why = o->why ? strdup(o->why) : NULL;
        note_try(p, p->last, o->reason);
}

/* Beside a probe's figures, how long it has waited for a counted run and
 * why (benchwatch_probe_waiting_since_timestamp_seconds{reason}), and its
 * last try: an alert tells "too busy to measure" from "the daemon is
 * gone" by them. */
static void add_wait_figures(struct daemon *d, struct result *res)
{
        const struct status_file_probe *p = status_file_find(&d->state, res->probe);
        if (!p || !p->wait_reason)
                return;
        const char *lv[] = { "reason", p->wait_reason, NULL };
        result_remove(res, "benchwatch_probe_last_try_timestamp_seconds");
        result_remove(res, "benchwatch_probe_waiting_since_timestamp_seconds");
        (void)result_add(res, "benchwatch_probe_last_try_timestamp_seconds",
                         "When the daemon last ran the probe or deferred its run, UNIX time",
                         METRIC_GAUGE, NULL, p->last_try, NULL);
        (void)result_add(res, "benchwatch_probe_waiting_since_timestamp_seconds",
                         "When the probe's last counted run ended (before one: when a daemon "
                         "began to watch it), UNIX time; reason: why its last try did not "
                         "count (none: it did)", METRIC_GAUGE, lv, p->waiting_since, NULL);
}

static void on_result(struct result *res, void *userdata)
{
        struct daemon *d = userdata;
        if (d->print) {
                report_format_line(stdout, res);
                fflush(stdout);
        }
        else if (!res->success)
                log_warning("%s probe '%s' failed: %s", res->plugin, res->probe, res->error);
        /* deferred runs never get here */
        struct tracker_outcome o;
        tracker_observe(d->tracker, res, &o);
        note_run(d, res, &o);
        tracker_outcome_clear(&o);
        add_wait_figures(d, res);
        sink_set_publish(d->sinks, res);
        notify_status(d);
        save_state(d);
        /* the room for the next runs' records on a full file system, back
         * once there is room to spare (util/reserve.h) */
        (void)reserve_keep(app_daemon_option(d->app, "state_dir")->s, RESERVE_BYTES);
        /* a run's transient allocations (decoding, history, formatting) are
         * freed by now: hand the free pages back, so that the daemon's
         * resident memory between runs is what it keeps, not its peak */
        malloc_trim(0);
}

/* A deferral: the sinks show the probe's deferral count and how long it
 * has waited at once, so a host that is always busy is visible even
 * though its probes never run.  Not a run: shown, not published. */
static void on_deferred(const struct result *state, const char *reason, const char *why,
                        void *userdata)
{
        struct daemon *d = userdata;
        struct status_file_probe *p = state_probe(d, state->probe);
        struct result *shown = result_copy(state);
        if (p)
                note_try(p, now_wall(), reason);
        if (shown)
                add_wait_figures(d, shown);
        sink_set_show(d->sinks, shown ? shown : state);
        result_free(shown);
        save_state(d);
}

static void on_changed(void *userdata)
{
        notify_status(userdata);
        save_state(userdata);
}

static int on_watchdog(sd_event_source *s, uint64_t usec, void *userdata)
{
        struct daemon *d = userdata;
        const char *why = scheduler_stalled(d->sched);
        if (!why) {
                if (d->stalled)
                        log_notice("scheduler making progress again");
                d->stalled = false;
                sd_notify(false, "WATCHDOG=1");
        } else if (!d->stalled) {
                d->stalled = true;
                log_error("%s: no longer feeding the watchdog", why);
                sd_notifyf(false, "STATUS=stalled: %s", why);
        }
        return sd_event_source_set_time(s, usec + d->watchdog_usec / 2);
}

/* A timer at half of WATCHDOG_USEC when the service manager asks for one. */
static int setup_watchdog(struct daemon *d)
{
        uint64_t now = 0;
        if (sd_watchdog_enabled(false, &d->watchdog_usec) <= 0 || d->watchdog_usec < 2)
                return 0;
        int r = sd_event_now(d->event, CLOCK_MONOTONIC, &now);
        if (r >= 0)
                r = sd_event_add_time(d->event, &d->watchdog, CLOCK_MONOTONIC,
                                      now + d->watchdog_usec / 2, d->watchdog_usec / 20,
                                      on_watchdog, d);
        if (r >= 0)
                r = sd_event_source_set_enabled(d->watchdog, SD_EVENT_ON);
        return r;
}

/* A reload's new sinks start from what the old ones showed: the host's
 * info and each configured probe's latest result (a removed probe's series
 * leave the textfile). */
static void seed_sinks(struct daemon *d, struct sink_set *sinks)
{
        struct result *info = context_info_result(&d->host);
        if (info)
                sink_set_show(sinks, info);
        result_free(info);
        for (size_t i = 0; i < scheduler_count(d->sched); i++)
                if (scheduler_latest(d->sched, i))
                        sink_set_show(sinks, scheduler_latest(d->sched, i));
}

/* The probes the configuration keeps but this host cannot run (no GPU
 * driver...): the scheduler leaves them out; one line each per load. */
static void log_absent(const struct config *cfg)
{
        for (size_t i = 0; i < cfg->n_probes; i++)
                if (cfg->probes[i].absent)
                        log_notice("%s probe '%s' skipped on this host: %s",
                                   cfg->probes[i].plugin->name, cfg->probes[i].name,
                                   cfg->probes[i].absent);
}

/* A state_dir the reload would move: the tracker keeps the running one's
 * references, history and evidence open there, and half the state would
 * go to each; a restart moves it whole. */
static int same_state_dir(const struct config *old, const struct config *cfg, char **ret_why)
{
        const char *was = old->daemon->values[CFG_D_STATE_DIR].s;
        const char *now = cfg->daemon->values[CFG_D_STATE_DIR].s;
        if (!strcmp(was, now))
                return 0;
        *ret_why = str_printf("%s: [daemon] state_dir: '%s' is not the running daemon's '%s': "
                              "a reload cannot move the references; restart the daemon",
                              cfg->source, now, was);
        return *ret_why ? -EINVAL : -ENOMEM;
}

/* Load and check the configuration whole, then swap it in; on any error
 * the running configuration stays as it was. */
static int reload_config(struct daemon *d, char **ret_why)
{
        struct config *cfg = NULL, *old = d->app->cfg;
        struct sink_set *sinks = NULL;
        int r = app_load_config(d->app, &cfg, ret_why);
        if (r >= 0)
                r = same_state_dir(old, cfg, ret_why);
        if (r >= 0)
                r = make_dirs(cfg);
        if (r >= 0)
                r = make_sinks(cfg, d->sinks, &sinks, ret_why);
        if (r >= 0) {
                d->app->cfg = cfg;
                r = scheduler_reload(d->sched, cfg);
        }
        if (r >= 0)
                tracker_reload(d->tracker, cfg);
        if (r < 0) {
                d->app->cfg = old;
                sink_set_free(sinks);
                conf_free(cfg);
                return r;
        }
        conf_free(old);
        /* the old sinks' last round first: a push of theirs still on its
         * way would bring back a group the new ones delete (pg_ledger.h) */
        sink_set_free(d->sinks);
        d->sinks = sinks;
        seed_sinks(d, sinks);
        return 0;
}

static int on_reload(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        struct daemon *d = userdata;
        char *why = NULL;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        sd_notifyf(false, "RELOADING=1\nMONOTONIC_USEC=%llu\nSTATUS=reloading configuration",
                   (unsigned long long)ts.tv_sec * 1000000ULL +
                           (unsigned long long)ts.tv_nsec / 1000);
        int r = reload_config(d, &why);
        if (r < 0) {
                log_error("reload failed, keeping the running configuration:\n%s",
                          why ? why : strerror(-r));
        } else {
                log_info("configuration reloaded from %s: %zu probe(s)", d->app->cfg->source,
                         d->app->cfg->n_probes);
                app_warn_obsolete(d->app);
                log_absent(d->app->cfg);
        }
        free(why);
        sd_notify(false, "READY=1");
        notify_status(d);
        return 0;
}

static void on_idle(void *userdata)
{
        struct daemon *d = userdata;
        sd_event_exit(d->event, 0);
}

static int on_term(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        struct daemon *d = userdata;
        sd_notify(false, "STOPPING=1\nSTATUS=stopping");
        log_info("stopping (signal %s)", sigabbrev_np((int)si->ssi_signo));
        scheduler_stop(d->sched, on_idle, d);
        return 0;
}

/* Before any thread exists (the sinks start workers), so that every thread
 * inherits the mask and the signals reach the loop's signalfd only: a
 * worker with SIGTERM unblocked would take the default action, killing
 * the daemon without stopping its probe. */
static void block_signals(void)
{
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGCHLD);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        signal(SIGPIPE, SIG_IGN);
}

static int setup_loop(struct daemon *d)
{
        int r = sd_event_default(&d->event);
        if (r >= 0)
                r = sd_event_add_signal(d->event, NULL, SIGTERM, on_term, d);
        if (r >= 0)
                r = sd_event_add_signal(d->event, NULL, SIGINT, on_term, d);
        if (r >= 0)
                r = sd_event_add_signal(d->event, NULL, SIGHUP, on_reload, d);
        return r;
}

/* The host's context and the baseline tracker. */
static int prepare_tracker(struct daemon *d)
{
        if (context_read_this_host(&d->host) < 0 ||
            tracker_new(app_daemon_option(d->app, "state_dir")->s, &d->host, d->app->cfg,
                        &d->tracker) < 0)
                return EXIT_ENV;
        return EXIT_OK;
}

/* benchwatch_build_info and _host_info: the sinks keep them beside the
 * probes' results (a reload shows them again: seed_sinks). */
static void show_host_info(struct daemon *d)
{
        struct result *info = context_info_result(&d->host);
        if (info)
                sink_set_show(d->sinks, info);
        result_free(info);
}

static void daemon_usage(FILE *f)
{
        fprintf(f, "Usage: benchwatch [--config FILE] daemon [--print] [--first-pass]\n\n"
                   "Runs every enabled probe on its interval, never two at once, and\n"
                   "sends each result to the configured sinks. SIGHUP reloads the\n"
                   "configuration (a bad one is reported and the old one kept);\n"
                   "SIGTERM stops the running probe and exits.\n\n"
                   "  --print        print each result on stdout (default when stdout is a "
                   "terminal)\n"
                   "  --first-pass   run every probe once at start, one after the other, without\n"
                   "                 splay or duty-cycle pause (a demonstration), then as usual\n");
}

/* The loop, from READY=1 to the end of the stop. */
static int run(struct daemon *d)
{
        static const struct scheduler_callbacks cb = {
                .result = on_result, .deferred = on_deferred, .changed = on_changed,
        };
        int r = setup_loop(d);
        if (r >= 0)
                r = scheduler_new(d->event, d->app->cfg, d->app->reg, &cb, d, &d->sched);
        if (r >= 0)
                r = setup_watchdog(d);
        if (r >= 0 && d->first_pass)
                scheduler_first_pass(d->sched);
        if (r < 0) {
                log_error("cannot start the scheduler: %s", strerror(-r));
                return EXIT_ENV;
        }
        log_info("benchwatch %s started: %zu probe(s) from %s, %zu sink(s)",
                 PACKAGE_VERSION, d->app->cfg->n_probes, d->app->cfg->source,
                 sink_set_count(d->sinks));
        app_warn_obsolete(d->app);
        log_absent(d->app->cfg);
        show_host_info(d);
        d->state.pid = (long)getpid();
        d->state.started = now_wall();
        restore_waits(d);
        save_state(d);
        sd_notify(false, "READY=1");
        notify_status(d);
        r = sd_event_loop(d->event);
        if (r < 0)
                log_error("event loop failed: %s", strerror(-r));
        return r < 0 ? EXIT_ENV : EXIT_OK;
}

int cmd_daemon(struct app *app, int argc, char **argv)
{
        static const struct option opts[] = {
                { "print", no_argument, NULL, 'p' },
                { "first-pass", no_argument, NULL, 'F' },
                { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        struct daemon d = { .app = app, .print = isatty(STDOUT_FILENO) };
        int c;
        while ((c = cli_getopt("daemon", argc, argv, "h", opts)) != -1) {
                if (c == 'p' || c == 'F') {
                        d.print |= c == 'p';
                        d.first_pass |= c == 'F';
                        continue;
                }
                daemon_usage(c == 'h' ? stdout : stderr);
                return c == 'h' ? EXIT_OK : EXIT_USAGE;
        }
        if (optind < argc) {
                cli_reject("daemon", argv[optind]);
                daemon_usage(stderr);
                return EXIT_USAGE;
        }
        block_signals();
        /* one malloc arena for the sinks' threads too: each reload starts
         * new threads while the old ones wind down, and each new one got an
         * arena of its own, whose pages stayed resident (malloc_trim gives
         * back a thread arena's free chunks, never its top): RssAnon crept
         * up ~10 kB a reload until 8 arenas a CPU were there (+400 kB in
         * tests/integration/memory_flat.sh's reloads; +500 kB, 16%, in a
         * 20-minute fault campaign).
         * The threads are few and idle between runs: nothing to contend */
        (void)mallopt(M_ARENA_MAX, 1);
        /* the daemon only validates and schedules: its probes run in
         * processes of their own, so it loads no plugin it has no probe of */
        app->plugins_on_demand = true;
        int ex = app_init(app);
        if (ex != EXIT_OK)
                return ex;
        char *why = NULL;
        int lock_fd = -1;
        if (make_dirs(app->cfg) < 0 || lock_state_dir(app->cfg, &lock_fd) < 0) {
                app_done(app);
                return EXIT_ENV;
        }
        remove_interrupted_writes(app->cfg);
        int r = make_sinks(app->cfg, NULL, &d.sinks, &why);
        if (r < 0) {
                log_error("%s", why ? why : strerror(-r));
                free(why);
                close(lock_fd);
                app_done(app);
                return EXIT_USAGE;
        }
        ex = prepare_tracker(&d);
        if (ex == EXIT_OK)
                ex = run(&d);
        tracker_free(d.tracker);
        status_file_clear(&d.state);
        context_clear(&d.host);
        sd_event_source_disable_unref(d.watchdog);
        scheduler_free(d.sched);
        sink_set_free(d.sinks);
        sd_event_unref(d.event);
        close(lock_fd);
        app_done(app);
        return ex;
}
