/* sink.h — where results go: the sink interface and the fan-out to every
 * configured sink.
 *
 * A sink type is a config section ([pushgateway], [remote_write],
 * [journal], [syslog], [textfile]) with a declarative option table (the same struct bw_param_def
 * plugins use, so the config module parses every section the same way) and
 * a constructor.  A sink is enabled when its section exists, unless it says
 * `enabled = no`; [journal] is on even without a section.  A constructor
 * may decline (*ret = NULL), e.g. [pushgateway] without a url.
 *
 * publish() never blocks on the network or the disk: the Pushgateway and
 * textfile sinks keep the latest result of every probe in a mailbox
 * (mailbox.h) for their own worker thread, so a slow or failing sink
 * never holds up another sink or the scheduler.  Sinks log their own failures (rate-limited). */
#ifndef BENCHWATCH_SINK_H
#define BENCHWATCH_SINK_H

#include <stdbool.h>
#include <stddef.h>

#include "core/param.h"
#include "core/result.h"
#include "sink/sink_health.h"

struct sink {
        const char *name; /* the section: "pushgateway" */
        /* Take r into account; r stays the caller's (copy what you keep).
         * 0 or -errno (only -ENOMEM in practice; delivery errors are the
         * sink's business). Called from one thread at a time. */
        int (*publish)(struct sink *s, const struct result *r);
        /* Stops the sink's worker after a last attempt and frees it. */
        void (*free)(struct sink *s);
        /* Optional: show r as a probe's current state, not as a new run:
         * the host's info (probe ""), a deferral's (the probe's latest
         * result with its deferral counts and wait brought up to date, or
         * those figures alone before its first run), a reload's hand-over
         * of each probe's latest.  The sinks that keep every probe's state
         * (textfile, Pushgateway) show it as they show a run; one that
         * sends or logs runs (remote write, the journal) keeps what it
         * needs of it or has none. */
        int (*show)(struct sink *s, const struct result *r);
        /* Writes where another type's sink would (a [journal] without
         * journald writes to syslog): the fan-out drops it when a sink of
         * a type that supersedes its own is configured too. */
        bool stand_in;
        /* Where the sink reports its deliveries and its own figures, from
         * any of its threads (sink_health.h): env->health, which the
         * constructor keeps here; the set collects the reports. */
        struct sink_health *health;
};

/* What a sink may need to know of the daemon beyond its own section. */
struct sink_env {
        const char *state_dir; /* [daemon] state_dir; NULL: none (a test) */
        /* the daemon's configured probes, NULL-terminated: what a sink
         * keeps on a receiver for probes no longer configured may go
         * (the Pushgateway's groups); NULL: not the daemon's, keep all */
        const char *const *probes;
        /* the set's health record (the set fills it in; NULL: none) */
        struct sink_health *health;
};

struct sink_type {
        const char *section;
        const struct bw_param_def *options; /* ends with { .name = NULL } */
        bool default_on;                    /* enabled without a section */
        /* The section whose stand-in sinks give way to this one's ([syslog]
         * supersedes a [journal] writing to syslog); NULL: none. */
        const char *supersedes;
        /* 0 with *ret = NULL when the options say "nothing to do";
         * -EINVAL etc. with *ret_error (malloc'd) saying why. */
        int (*create)(const struct param_set *opts, const struct sink_env *env,
                      struct sink **ret, char **ret_error);
        /* What create would refuse in opts, found with no side effect (no
         * thread, no connection, no file made), so that the configuration
         * is refused when it is read; NULL: nothing beyond the options'
         * own types.  0, or -EINVAL etc. with *ret_error (malloc'd). */
        int (*check)(const struct param_set *opts, const struct sink_env *env,
                     char **ret_error);
};

/* Every sink type, NULL-terminated. */
extern const struct sink_type *const sink_types[];
const struct sink_type *sink_type_find(const char *section);

/* ---- the fan-out --------------------------------------------------------- */

struct sink_set;

/* opts[i] belongs to sink_types[i]: the parsed section, or NULL when the
 * config has no such section (default_on types then use their defaults).
 * prev (may be NULL) is the set the new one replaces (a reload): the new
 * set takes over its health record, so what the sinks reported before
 * the reload, and what prev's sinks report while they stop, is kept.
 * On failure *ret_error names the section: "[textfile]: path ...". */
int sink_set_new(const struct param_set *const *opts,
                 const struct sink_env *env, const struct sink_set *prev,
                 struct sink_set **ret, char **ret_error);
/* Hand a run's result r to every sink; returns the first error, after
 * trying them all. */
int sink_set_publish(struct sink_set *set, const struct result *r);
/* Show r, a probe's current state that is not a new run (struct sink:
 * show), to every sink that has the callback: the host's info, a
 * deferral, and after a reload each probe's latest result (the scheduler
 * keeps them), so that what the sinks show keeps every configured probe
 * before its next run.  The first error, after trying every sink. */
int sink_set_show(struct sink_set *set, const struct result *r);
size_t sink_set_count(const struct sink_set *set);
/* What the set's sinks reported of themselves (sink_health.h), for the
 * daemon's status; the set's, valid until sink_set_free. */
struct sink_health *sink_set_health(const struct sink_set *set);
void sink_set_free(struct sink_set *set);

#endif
