/* cmd_daemon.c — `benchwatch daemon`: the service.  Loads plugins, config
 * and sinks, then runs the scheduler on an sd-event loop until SIGTERM;
 * SIGHUP reloads (a bad new configuration is reported and the old one
 * kept); talks sd_notify (READY, STATUS, RELOADING, STOPPING, WATCHDOG).
 * On a terminal it also prints each result as it arrives. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include "commands.h"
#include "format.h"
#include "log.h"
#include "scheduler.h"
#include "sink.h"

struct daemon {
        struct app *app;
        sd_event *event;
        struct sched *sched;
        struct sink_set *sinks;
        bool print;
};

static int make_sinks(const struct config *cfg, struct sink_set **ret, char **ret_error)
{
        size_t n = 0;
        while (sink_types[n])
                n++;
        const struct param_set *opts[n + 1];
        for (size_t i = 0; i < n; i++)
                opts[i] = config_section(cfg, sink_types[i]->section);
        opts[n] = NULL;
        return sink_set_new(opts, ret, ret_error);
}

static void notify_status(struct daemon *d)
{
        char *st = sched_status(d->sched);
        if (st)
                sd_notifyf(false, "STATUS=%s", st);
        free(st);
}

static void on_result(struct result *res, void *userdata)
{
        struct daemon *d = userdata;
        if (d->print) {
                format_line(stdout, res);
                fflush(stdout);
        }
        if (!res->success)
                log_warning("%s probe '%s' failed: %s", res->plugin, res->probe, res->error);
        sink_set_publish(d->sinks, res);
        result_free(res);
        notify_status(d);
}

static int on_reload(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        struct daemon *d = userdata;
        struct config *cfg = NULL;
        struct sink_set *sinks = NULL;
        char *why = NULL;
        sd_notify(false, "RELOADING=1\nSTATUS=reloading configuration");
        int r = app_load_config(d->app, &cfg, &why);
        if (r >= 0)
                r = make_sinks(cfg, &sinks, &why);
        if (r < 0) {
                log_error("reload failed, keeping the running configuration:\n%s",
                          why ? why : strerror(-r));
                config_free(cfg);
        } else {
                config_free(d->app->cfg);
                d->app->cfg = cfg;
                sink_set_free(d->sinks);
                d->sinks = sinks;
                sched_reload(d->sched);
                log_info("configuration reloaded from %s: %zu probe(s)", cfg->source, cfg->n_probes);
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
        sched_stop(d->sched, on_idle, d);
        return 0;
}

static int setup_loop(struct daemon *d)
{
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGCHLD);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        signal(SIGPIPE, SIG_IGN);
        int r = sd_event_default(&d->event);
        if (r >= 0)
                r = sd_event_add_signal(d->event, NULL, SIGTERM, on_term, d);
        if (r >= 0)
                r = sd_event_add_signal(d->event, NULL, SIGINT, on_term, d);
        if (r >= 0)
                r = sd_event_add_signal(d->event, NULL, SIGHUP, on_reload, d);
        if (r >= 0)
                r = sd_event_set_watchdog(d->event, true);
        return r;
}

static void daemon_usage(FILE *f)
{
        fprintf(f, "Usage: benchwatch [--config FILE] daemon [--print]\n\n"
                   "Runs every enabled probe on its interval, never two at once, and\n"
                   "sends each result to the configured sinks. SIGHUP reloads the\n"
                   "configuration (a bad one is reported and the old one kept);\n"
                   "SIGTERM stops the running probe and exits.\n\n"
                   "  --print   print each result on stdout (default when stdout is a terminal)\n");
}

int cmd_daemon(struct app *app, int argc, char **argv)
{
        static const struct option opts[] = {
                { "print", no_argument, NULL, 'p' },
                { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        struct daemon d = { .app = app, .print = isatty(STDOUT_FILENO) };
        int c;
        while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
                if (c == 'p') {
                        d.print = true;
                        continue;
                }
                daemon_usage(c == 'h' ? stdout : stderr);
                return c == 'h' ? EXIT_OK : EXIT_USAGE;
        }
        int ex = app_init(app);
        if (ex != EXIT_OK)
                return ex;
        char *why = NULL;
        int r = make_sinks(app->cfg, &d.sinks, &why);
        if (r < 0) {
                log_error("%s", why ? why : strerror(-r));
                free(why);
                app_done(app);
                return EXIT_USAGE;
        }
        r = setup_loop(&d);
        if (r >= 0)
                r = sched_new(d.event, app, on_result, &d, &d.sched);
        if (r < 0) {
                log_error("cannot start the scheduler: %s", strerror(-r));
                ex = EXIT_ENV;
        } else {
                log_info("benchwatch %s started: %zu probe(s) from %s, %zu sink(s)",
                         PACKAGE_VERSION, app->cfg->n_probes, app->cfg->source,
                         sink_set_count(d.sinks));
                sd_notify(false, "READY=1");
                notify_status(&d);
                r = sd_event_loop(d.event);
                ex = r < 0 ? EXIT_ENV : EXIT_OK;
        }
        sched_free(d.sched);
        sink_set_free(d.sinks);
        sd_event_unref(d.event);
        app_done(app);
        return ex;
}
