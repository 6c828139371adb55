/* result.h — the one value a probe run produces.
 *
 * Metric families (gauge, counter, or a latency summary carrying its whole
 * histogram) with labelled samples, plus the run's outcome.  Every output —
 * terminal table, JSON, Prometheus text, Pushgateway protobuf, journal,
 * textfile — is an encoding of this same value, and the runner carries it
 * from the child process to the daemon (codec.h).
 *
 * Family names are complete (benchwatch_cpu_events_per_second). The `probe`
 * label is not stored on samples; encoders add it from result->probe. */
#ifndef BENCHWATCH_RESULT_H
#define BENCHWATCH_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/hist.h"

enum metric_type { METRIC_GAUGE, METRIC_COUNTER, METRIC_SUMMARY };

struct label {
        char *name;
        char *value;
};

struct sample {
        struct label *labels;
        size_t n_labels;
        double value;         /* gauge/counter; summary: unused */
        struct bw_hist *hist; /* summary only: values in nanoseconds */
};

struct family {
        char *name;
        char *help;
        enum metric_type type;
        struct sample *samples;
        size_t n_samples;
};

struct result {
        char *probe;
        char *plugin;
        bool success;
        char *error;          /* why it failed; NULL on success */
        double started;       /* wall clock, seconds since the epoch */
        double duration;      /* seconds */
        /* Set when the run was stopped to make way for other work (yield.h):
         * the resource ("cpu", "io", "memory"; static), or when the plugin
         * made way for other work on its own device (plugin.h's -EBUSY:
         * RESULT_YIELDED_DEVICE, the one value the runner's wire carries).
         * Such a run is a deferral, not a failure. */
        const char *yielded;
        /* Where the run's priority came from, for the report (static;
         * NULL: not said): PRIO_FROM_* of priority.h. Not sent over the
         * runner's wire. */
        const char *priority_from;
        /* The plugin's work waits on a device or a server (BW_CAP_DISK_IO
         * or BW_CAP_NETWORK), so others' CPU use reaches it only as run
         * delay; disk_io: on a disk (BW_CAP_DISK_IO), whose I/O a
         * hypervisor serves in time it shows as steal (tracker.h).  Set by
         * the runner; not sent over the runner's wire. */
        bool io_bound, disk_io;
        struct label *params; /* every parameter as run (secrets omitted) */
        size_t n_params;
        struct family *families;
        size_t n_families;
};

/* result.yielded of a run whose plugin made way for other work on the
 * device it measures (a GPU probe beside another process on its GPU). */
#define RESULT_YIELDED_DEVICE "device"

/* Quantiles a summary is exported with; 1 is the maximum. */
extern const double result_quantiles[];
extern const size_t result_n_quantiles;

struct result *result_new(const char *probe, const char *plugin);
void result_free(struct result *r);
struct result *result_copy(const struct result *r);

/* Append a sample to family `name` (created on first use).  Labels are a
 * NULL-terminated name/value list.  -EINVAL when the family exists with
 * another type; -ENOMEM. */
int result_add(struct result *r, const char *name, const char *help,
               enum metric_type type, const char *const *labels, double value,
               const struct bw_hist *hist);
int result_add_param(struct result *r, const char *name, const char *value);
/* Drops the family `name` (nothing when there is none). */
void result_remove(struct result *r, const char *name);
int result_set_error(struct result *r, const char *error);
/* Adds benchwatch_probe_success, _duration_seconds and
 * _last_run_timestamp_seconds from the outcome fields. */
int result_add_probe_families(struct result *r);

const struct family *result_find(const struct result *r, const char *name);
/* The first sample of family `name` whose labels include all of the
 * NULL-terminated name/value pairs in `match` (NULL matches any). */
const struct sample *result_find_sample(const struct result *r,
                                        const char *name,
                                        const char *const *match);
const char *result_sample_label(const struct sample *s, const char *name);

#endif
