/* scheduler.h — decides which probe runs next, and runs it.
 *
 * Each enabled probe runs on its own interval with random splay, so a fleet
 * started together does not measure in lockstep; never two runs at once
 * (a probe that is due while another runs waits its turn).  It lives on
 * the daemon's sd-event loop and sleeps on one timer until the next probe
 * is due, so an idle daemon costs nothing.
 *
 * It keeps the daemon polite: a due run is deferred while the host is busy
 * (busy.h, and half a second's look by the test a running probe yields by,
 * yield.h; retried after a backoff of a minute or less, doubling, capped at
 * the probe's interval and 15 minutes) and every deferral is counted in
 * benchwatch_probe_deferred_total{probe}; the duty cycle of [daemon] is a
 * quiet time after each run (a run of d seconds is followed by at least
 * d x (1/duty_cycle - 1) seconds without any).
 *
 * A new configuration (reload) keeps the schedule of probes that did not
 * change; a probe whose plugin, parameters, interval or timeout changed is
 * scheduled afresh, as a new one. */
#ifndef BENCHWATCH_SCHEDULER_H
#define BENCHWATCH_SCHEDULER_H

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "core/conf.h"
#include "core/loader.h"
#include "core/result.h"

struct scheduler;

struct scheduler_callbacks {
        /* A run finished. res carries benchwatch_probe_deferred_total; the
         * callee may add to it (verdicts) but does not free it: the
         * scheduler keeps it as the probe's latest result. */
        void (*result)(struct result *res, void *userdata);
        /* A due run was deferred (host busy, no room) or yielded. state is
         * the probe's state, not a run: its latest result with the counter
         * brought up to date (or, before its first run, the counter alone),
         * for the sinks to show; it is the scheduler's and only valid
         * during the call.  reason: the counter's label ("cpu", "io",
         * "memory", "load", "room"; static).  Optional. */
        void (*deferred)(const struct result *state, const char *reason, const char *why,
                         void *userdata);
        /* The scheduler's state changed (a run started...): a chance to
         * update STATUS=. Optional. */
        void (*changed)(void *userdata);
};

/* Schedules cfg's enabled probes, run with the plugins of reg (its
 * directory); both are the caller's and outlive the scheduler (cfg until
 * the next scheduler_reload). */
int scheduler_new(sd_event *e, const struct config *cfg, const struct plugin_registry *reg,
                  const struct scheduler_callbacks *cb, void *userdata, struct scheduler **ret);
/* Take cfg (after a reload): new probes are scheduled with splay, removed
 * ones dropped, changed ones rescheduled, unchanged ones keep their next
 * time.  A run in progress finishes with the settings it started with.  On
 * failure the scheduler goes on with the configuration it had. */
int scheduler_reload(struct scheduler *s, const struct config *cfg);
/* Run every probe once now, one after the other in the configuration's
 * order, without splay or duty-cycle pause between them, then go on as
 * usual (`daemon --first-pass`: `make demo` shows every probe's first
 * result within a minute).  The host-busy checks still apply. */
void scheduler_first_pass(struct scheduler *s);
/* Stop: the running child (if any) is asked to stop (SIGTERM, killed after
 * a grace period); `idle` is called when nothing runs any more. */
void scheduler_stop(struct scheduler *s, void (*idle)(void *userdata), void *userdata);
bool scheduler_busy(const struct scheduler *s);
/* The evidence sources this host lacks, "thermal_throttle (no ...), ..."
 * (malloc'd); NULL when it has every one. */
char *scheduler_evidence_absent(const struct scheduler *s);
/* NULL while the scheduler makes progress; else why not (a run outlived
 * its deadline and could not be reaped, or a due run did not start). The
 * daemon stops feeding the watchdog then. */
const char *scheduler_stalled(const struct scheduler *s);
/* The latest result of the i-th scheduled probe (NULL before its first
 * run); i < scheduler_count(). */
size_t scheduler_count(const struct scheduler *s);
const struct result *scheduler_latest(const struct scheduler *s, size_t i);
/* What `benchwatch status` shows of the i-th scheduled probe. */
struct scheduler_probe_info {
        const char *name;       /* the scheduler's */
        double interval;
        double next;            /* UNIX time its next run may start */
        bool running;
        unsigned deferred_day;  /* deferred before starting, about the last 24 h */
        unsigned yielded_day;   /* stopped during a run, about the last 24 h */
};
void scheduler_probe_info(const struct scheduler *s, size_t i, struct scheduler_probe_info *ret);
/* One-line state for STATUS=: "3 probe(s); 12 run(s), 0 failed, ..." */
char *scheduler_status(const struct scheduler *s);
void scheduler_free(struct scheduler *s);

#endif
