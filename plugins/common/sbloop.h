/* sbloop.h — sysbench 1.0's event loop, for the plugins that reproduce its
 * built-in tests (cpu, threads, memory).
 *
 * What a sysbench figure means depends as much on the loop around an event
 * as on the event itself: every worker checks the time limit and the shared
 * event budget before each event, times each event on its own, and the rate
 * is all events over the wall time from the moment every thread is ready to
 * the moment the last one has finished.  Keeping that loop in one place makes
 * the three plugins count the same way, and the same way sysbench does. */
#ifndef BENCHWATCH_SBLOOP_H
#define BENCHWATCH_SBLOOP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/plugin.h"
#include "util/hist.h"

/* The parameters every sysbench-style plugin shares, as sysbench spells
 * them (--threads, --time, --events). */
#define SBLOOP_PARAM_THREADS SBLOOP_PARAM_THREADS_APPLIES(NULL)
/* The same for a plugin with a mode that runs no threads (`applies`). */
#define SBLOOP_PARAM_THREADS_APPLIES(when) { \
        .name = "threads", .type = BW_PARAM_INT, .default_value = "1", \
        .min = 1, .max = 1024, \
        .help = "Worker threads running events concurrently", \
        .flags = BW_PARAM_LABEL, .applies = (when) }
#define SBLOOP_PARAM_DURATION { \
        .name = "duration", .type = BW_PARAM_DURATION, \
        .default_value = "10s", .min = 0.001, .max = 86400, .unit = "s", \
        .help = "Run length (sysbench --time)" }
#define SBLOOP_PARAM_EVENTS { \
        .name = "events", .type = BW_PARAM_INT, .default_value = "0", \
        .min = 0, .max = 1e15, \
        .help = "Stop after this many events if the duration has not " \
                "ended first; 0: no limit (sysbench --events)" }

struct sbloop_spec {
        unsigned threads;
        double duration;            /* seconds, > 0 (sysbench --time) */
        uint64_t max_events;        /* shared budget, 0: none (--events) */
        uint64_t per_thread_events; /* each thread's own quota, 0: none */
        double deadline;            /* run->deadline; the loop ends before */
        /* One event of worker `tid` (0..threads-1): 0 or -errno, which
         * ends the whole run. Called concurrently from all workers. */
        int (*event)(void *arg, unsigned tid);
        void *arg;
};

struct sbloop_result {
        uint64_t events;
        double seconds;        /* start of all workers to end of the last */
        double cpu_seconds;    /* the workers' own CPU time, summed: what a
                                  co-tenant taking the CPU cannot inflate */
        bool stopped;          /* h->stopping() said so: cut short */
        double sysbench_p95;   /* seconds, from sysbench's own histogram */
        struct bw_hist hist;   /* latency of every event, all workers */
};

/* A start line for worker threads: they wait until it opens, and learn
 * whether the run was called off meanwhile (a later thread could not be
 * created), so no thread is ever left waiting on a barrier. */
struct sbloop_gate {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        bool open;
        bool aborted;
};

void sbloop_gate_init(struct sbloop_gate *g);
void sbloop_gate_destroy(struct sbloop_gate *g);
/* Waits for sbloop_gate_open(); true to go on, false if the run was aborted. */
bool sbloop_gate_wait(struct sbloop_gate *g);
void sbloop_gate_open(struct sbloop_gate *g, bool abort_run);

/* Runs the loop. Returns 0 (also when stopped: see ret->stopped), the
 * first -errno of an event, or -errno when threads cannot be started. */
int sbloop_run(const struct sbloop_spec *spec, const struct bw_host *h,
               struct sbloop_result *ret);

/* work / res->cpu_seconds: a figure per second of the workers' CPU time
 * (0 when they used none). */
double sbloop_per_cpu_second(double work, const struct sbloop_result *res);

/* What a plugin returns once sbloop_run() is over: 0, or h->fail()'s
 * -errno where threads of spec could not be started (r) or the run was
 * stopped before its end (nothing of it is reported). */
int sbloop_outcome(const struct bw_host *h, const struct sbloop_spec *spec, int r,
                   const struct sbloop_result *res);

/* The figures every sysbench-style plugin reports: events_per_second,
 * events_total, latency_seconds, latency_sysbench_p95_seconds and
 * total_time_seconds, and beside the rate its CPU-time twin
 * events_per_cpu_second (events over the workers' summed CPU time, the
 * figure the detector judges: baseline.h) with worker_cpu_seconds. `what` names the
 * event for the help text ("sysbench cpu event"). */
void sbloop_emit(const struct bw_host *h, const struct sbloop_result *res,
                 const char *what);

#endif
