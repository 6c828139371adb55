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
 * textfile sinks keep the latest result of every probe and hand it to their
 * own worker thread, so a slow or failing sink never holds up another sink
 * or the scheduler.  Sinks log their own failures (rate-limited). */
#ifndef BENCHWATCH_SINK_H
#define BENCHWATCH_SINK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "params.h"
#include "result.h"

struct sink {
        const char *name; /* the section: "pushgateway" */
        /* Take r into account; r stays the caller's (copy what you keep).
         * 0 or -errno (only -ENOMEM in practice; delivery errors are the
         * sink's business). Called from one thread at a time. */
        int (*publish)(struct sink *s, const struct result *r);
        /* Stops the sink's worker after a last attempt and frees it. */
        void (*free)(struct sink *s);
        /* Optional: take r as a probe's current state without treating it
         * as a new run (a reload hands over the previous set's results:
         * the textfile keeps every probe, the journal logs nothing). */
        int (*seed)(struct sink *s, const struct result *r);
};

/* What a sink may need to know of the daemon beyond its own section. */
struct sink_env {
        const char *state_dir; /* [daemon] state_dir; NULL: none (a test) */
};

struct sink_type {
        const char *section;
        const struct bw_param_def *options; /* ends with { .name = NULL } */
        bool default_on;                    /* enabled without a section */
        /* 0 with *ret = NULL when the options say "nothing to do";
         * -EINVAL etc. with *ret_error (malloc'd) saying why. */
        int (*create)(const struct param_set *opts, const struct sink_env *env,
                      struct sink **ret, char **ret_error);
};

/* Every sink type, NULL-terminated. */
extern const struct sink_type *const sink_types[];
const struct sink_type *sink_type_find(const char *section);

/* ---- the fan-out --------------------------------------------------------- */

struct sink_set;

/* opts[i] belongs to sink_types[i]: the parsed section, or NULL when the
 * config has no such section (default_on types then use their defaults).
 * On failure *ret_error names the section: "[textfile]: path ...". */
int sink_set_new(const struct param_set *const *opts,
                 const struct sink_env *env, struct sink_set **ret,
                 char **ret_error);
/* Hand r to every sink; returns the first error, after trying them all. */
int sink_set_publish(struct sink_set *set, const struct result *r);
/* After a reload: seed the new set with every probe's latest result from
 * the old one (before freeing the old one). 0 or -ENOMEM. */
int sink_set_carry_over(struct sink_set *to, const struct sink_set *from);
size_t sink_set_count(const struct sink_set *set);
void sink_set_free(struct sink_set *set);

/* ---- helpers for sinks that keep the latest result per probe ---------------
 * A mutex, a condition variable on CLOCK_MONOTONIC and one slot per probe
 * (a private copy of its latest result and a "not yet delivered" flag). */
struct sink_latest {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        struct result **results;
        bool *dirty;
        size_t n;
        bool stopping;
};

int sink_latest_init(struct sink_latest *l);
void sink_latest_done(struct sink_latest *l);
/* Copy r into its probe's slot, mark it dirty, wake the worker. */
int sink_latest_put(struct sink_latest *l, const struct result *r);
/* With the lock held: wait until a slot is dirty, stopping is set or the
 * CLOCK_MONOTONIC time `until` (seconds; 0 = no limit) has passed. */
void sink_latest_wait(struct sink_latest *l, double until);
/* With the lock held: wait until stopping is set or `until` has passed,
 * whatever else happens (a retry backoff). */
void sink_latest_sleep(struct sink_latest *l, double until);
/* With the lock held: one wait for a put()/stop or `until` (0 = none). */
void sink_latest_wait_once(struct sink_latest *l, double until);
/* With the lock held: the first dirty slot, or -1. */
int sink_latest_next_dirty(const struct sink_latest *l);
/* Tell the worker to finish. */
void sink_latest_stop(struct sink_latest *l);

/* The value of option `name` of a sink's table (asserts it exists). */
const struct bw_param_value *sink_opt(const struct param_set *ps,
                                      const char *name);

#endif
