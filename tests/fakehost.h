/* fakehost.h — a recording fake of struct bw_host for plugin unit tests.
 *
 * It runs one plugin in-process with parameters given as "name=value"
 * strings (parsed by the real params module, so tests see the same
 * validation as users), and records every figure the plugin emits so the
 * test can assert on values.  Its callbacks are as thread-safe as plugin.h
 * promises (the records change under `lock`), so a plugin's worker threads
 * may emit, log and fail here as they do in the daemon.  Beside it, the
 * checks more than one plugin's test makes: a sysbench-style run's event
 * figures, their CPU-time twins, a file's pages in the page cache. */
#ifndef BENCHWATCH_FAKEHOST_H
#define BENCHWATCH_FAKEHOST_H

#include <pthread.h>

#include "core/plugin.h"
#include "unit/test.h"
#include "util/hist.h"

enum fake_kind { FAKE_GAUGE, FAKE_COUNTER, FAKE_LATENCY, FAKE_INFO };

struct fake_metric {
        enum fake_kind kind;
        char *name;   /* as emitted, without the benchwatch_<plugin>_ prefix
                         (an info metric: its whole family name) */
        char *labels; /* "k=v,k=v" in the order given, "" for none */
        double value; /* gauge/counter value; latency: the mean in seconds */
        struct bw_hist hist; /* FAKE_LATENCY only */
};

struct fakehost {
        struct bw_host host;
        struct fake_metric *metrics;
        size_t n_metrics, cap_metrics; /* cap: allocated, grown by doubling */
        char *error;          /* first h->fail() message, or NULL */
        int fail_code;
        uint64_t progress;    /* sum of h->progress() */
        unsigned n_logs;
        char *last_log;
        char *logs;           /* every log line so far, each ending in '\n' */
        bool stop;            /* what h->stopping() returns */
        char cache_dir[256];  /* a fresh temporary directory */
        pthread_mutex_t lock; /* guards metrics, error, the logs */
};

void fakehost_init(struct fakehost *fh);
void fakehost_done(struct fakehost *fh); /* frees, removes cache_dir */
/* Parse params (NULL-terminated "name=value" list; a bad one aborts the
 * test with a message), then check() and run(). Returns run()'s value. */
int fakehost_run(struct fakehost *fh, const struct bw_plugin *p,
                 const char *const *params);
/* Like fakehost_run but calls cleanup(). */
int fakehost_cleanup(struct fakehost *fh, const struct bw_plugin *p,
                     const char *const *params);
/* Parameter parsing error for a bad value, or NULL if it parses. */
char *fakehost_param_error(const struct bw_plugin *p,
                           const char *const *params);
/* Aborts the test unless the parameter assignment is refused. */
void fakehost_expect_param_error(const struct bw_plugin *p, const char *param);
const struct fake_metric *fakehost_find(const struct fakehost *fh,
                                        const char *name, const char *labels);
double fakehost_value(const struct fakehost *fh, const char *name,
                      const char *labels);

/* How many pages of the file at path are in the page cache (mincore). */
size_t fakehost_resident_pages(const char *path);

/* The figures of a sysbench-style run (cpu, threads): its rate, events,
 * wall time and per-event latency histogram. */
struct fake_events {
        double rate, events, seconds;
        const struct fake_metric *lat;
};
/* fakehost_init() and a run of p with params, which must succeed; its
 * event figures in *f (the test aborts if one is missing). */
void fakehost_run_events(struct fakehost *fh, const struct bw_plugin *p,
                         const char *const *params, struct fake_events *f);
/* The CPU-time twin of the rate (events_per_cpu_second and
 * worker_cpu_seconds), in 0.3-s runs of p at 1 and 2 threads: it agrees
 * with the run's events, no worker had more CPU time than the wall time,
 * and so per thread it is at least the wall-clock rate; prints both
 * rates on stderr.  Aborts the test otherwise. */
void fakehost_check_cpu_twins(const struct bw_plugin *p);


#endif
