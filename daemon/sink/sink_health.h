/* sink_health.h — what the sinks say of themselves: each one's last
 * delivery that worked and the last that failed (and why), which
 * `benchwatch status` shows, and their own figures (what remote write
 * sent, failed, dropped and holds spooled), which the textfile shows
 * beside the probes' as a result whose series carry no probe label.
 *
 * A sink reports through the record its set handed it at creation
 * (struct sink: health), from any of its threads; the set collects the
 * reports (sink_set_health) and a reload's new set takes over the old
 * one's record, so the counters only grow and a sink's last error
 * outlives the reload — the sinks write no process-wide table that a
 * layer above reads.  Every function takes a NULL record (a sink made
 * without a set, in a test) and does nothing.  Thread-safe; nothing here
 * logs. */
#ifndef BENCHWATCH_SINK_HEALTH_H
#define BENCHWATCH_SINK_HEALTH_H

#include <stddef.h>

#include "core/result.h"

struct sink_health;

struct sink_health_entry {
        char *name;                 /* the section: "pushgateway" */
        double last_ok, last_error; /* UNIX times; 0 never */
        char *error;                /* the last error; NULL when none */
};

/* A record with nothing reported, its one reference the caller's. */
int sink_health_new(struct sink_health **ret);
struct sink_health *sink_health_ref(struct sink_health *h);
void sink_health_unref(struct sink_health *h);

/* A delivery of sink `sink` that worked (now), or one that failed and
 * why. */
void sink_health_ok(struct sink_health *h, const char *sink);
void sink_health_error(struct sink_health *h, const char *sink, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Add delta to (counter) or set (gauge) the sinks' unlabelled figure
 * `name`, created at 0 on first use.  0, -EINVAL (another type under that
 * name) or -ENOMEM. */
int sink_health_count(struct sink_health *h, const char *name, const char *help,
                      double delta);
int sink_health_gauge(struct sink_health *h, const char *name, const char *help,
                      double value);

/* A copy of every figure as a result with an empty probe name, or NULL
 * when there is none (or no memory). */
struct result *sink_health_figures(struct sink_health *h);
/* A copy of every sink's entry, in the order they first reported
 * (*ret NULL and *ret_n 0 when none).  0 or -ENOMEM. */
int sink_health_entries(struct sink_health *h, struct sink_health_entry **ret, size_t *ret_n);
void sink_health_entries_free(struct sink_health_entry *e, size_t n);

#endif
