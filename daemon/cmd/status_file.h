/* status_file.h — what the running daemon knows that no other file of the
 * state directory says, for `benchwatch status` to read while it runs.
 *
 * The baselines (baseline_store.h) and histories (history.h) hold the
 * references, verdicts and counted runs; the textfile and the spool show
 * themselves.  What only the daemon's memory held — when each probe runs
 * next, why its last run failed or was not counted, how often it was
 * deferred or yielded lately, the last error of each sink — the daemon
 * writes to <state_dir>/status.txt after every run, deferral and start,
 * replacing it atomically (atomicfile.h), so a reader sees the old file or
 * the new one:
 *
 *   benchwatch-status 1
 *   daemon <pid> <started> <written>
 *   probe <name> <plugin> <interval s> <next run> <last run> <ok 0|1>
 *       <counted 0|1> <deferred in 24h> <yielded in 24h>
 *       <last run's seconds, 0 unknown; absent from older files> (one line)
 *   why <name> <text: why the last run failed or was not counted>
 *   wait <name> <waiting since> <last try> <reason: none when the last
 *       try was a counted run, else why not: room, cpu, io, memory, load,
 *       cpu_wait, steal, failed>   (one line)
 *   sink <name> <last success> <last error> <text of the last error, may be empty>
 *
 * Times are UNIX times (0: never / unknown).  Text is the rest of its line
 * with newlines turned into spaces.  The sinks' lines are what the sink
 * set collected of their health (sink_health.h).  Nothing here logs. */
#ifndef BENCHWATCH_STATUS_FILE_H
#define BENCHWATCH_STATUS_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sink/sink_health.h"

#define STATUS_FILE_FORMAT_VERSION 1
#define STATUS_FILE_NAME "status.txt"

struct status_file_probe {
        char *name, *plugin;
        double interval;
        double next;              /* UNIX time of the next run; 0 unknown */
        double last;              /* UNIX time the last run ended; 0 none */
        double took;              /* how long it took, seconds; 0 unknown */
        bool ok, counted;
        char *why;                /* failed or not counted: why; else NULL */
        unsigned deferred_day;    /* deferred before starting, last 24 h */
        unsigned yielded_day;     /* stopped during the run, last 24 h */
        double waiting_since;     /* UNIX time of the last counted run's end
                                     (before one: when a daemon began
                                     to watch it; a restart soon after
                                     its last try keeps it) */
        double last_try;          /* UNIX time of the last run or deferral */
        char *wait_reason;        /* why the last try did not count; "none" */
};

struct status_file {
        long pid;
        double started, written;
        struct status_file_probe *probes;
        size_t n_probes;
        struct sink_health_entry *sinks;
        size_t n_sinks;
};

/* Replace <state_dir>/status.txt with sf (sf->written is set to now).
 * -errno with *ret_error naming the file. */
int status_file_write(const char *state_dir, struct status_file *sf, char **ret_error);
/* Read it.  -ENOENT when there is none (no daemon ran here), -EBADMSG
 * when it is not one; -errno and *ret_error naming the file. */
int status_file_read(const char *state_dir, struct status_file **ret, char **ret_error);
/* The same from an open file f: what status_file_read does once the
 * file is open, apart so that a fuzzer feeds it bytes.  -EBADMSG, -ENOMEM. */
int status_file_parse(FILE *f, struct status_file **ret);
void status_file_free(struct status_file *sf);
/* Free what sf holds and zero it (for one not from status_file_read). */
void status_file_clear(struct status_file *sf);
/* Free what one probe's entry holds and zero it. */
void status_file_probe_clear(struct status_file_probe *p);
const struct status_file_probe *status_file_find(const struct status_file *sf, const char *probe);
const struct sink_health_entry *status_file_find_sink(const struct status_file *sf,
                                                      const char *sink);

#endif
