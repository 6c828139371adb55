/* sbloop.c — sysbench 1.0's worker loop (see sbloop.h for why it is shared).
 *
 * The per-event steps mirror sysbench's thread_run(): sb_more_events() (a
 * clock read for the time limit, a fetch-and-add on the shared budget only
 * when --events is set), a clock read on each side of the event, each
 * under the thread's timer spinlock as sb_timer_start()/sb_timer_stop() do,
 * then sb_event_stop()'s accounting: the thread's event count and an atomic
 * increment in sysbench's latency histogram (1024 log buckets in 128
 * randomly picked slots).  For small events (a 1 KiB memory block takes
 * ~150 ns) that bookkeeping is a fifth of the time sysbench reports, so it
 * is done the same way rather than made cheaper (without it 1 KiB memory
 * figures came out 25-40% above sysbench's); the lock guards nothing else,
 * and the histogram earns its keep as sysbench's own 95th percentile.  Our
 * latency figure comes from a per-thread bw_hist.
 * Each of those steps is a call of its own, never inlined, as sysbench's
 * are (sb_more_events, the test's next_event, sb_event_start, the event,
 * sb_event_stop, sb_histogram_update): inlined into one loop, the same
 * steps ran 1 KiB memory events 4% faster than sysbench (1.040 of its
 * figure; 1.014 with the calls, pinned alternating runs, benchmarks.md).
 * Progress and h->stopping() are looked at every 10 ms, not per event. */
#include "sbloop.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "sbrand.h"
#include "util/timeutil.h"

#define SBLOOP_TICK_NS 10000000u    /* progress / stop check period */
#define SBLOOP_MARGIN_NS 250000000u /* finish this long before the deadline */
#define SBLOOP_STACK (256u * 1024u) /* workers use little stack; 1024 of them */

/* sysbench's sb_latency_histogram: OPER_LOG_GRANULARITY buckets between
 * OPER_LOG_MIN_VALUE and OPER_LOG_MAX_VALUE milliseconds, in each slot. */
#define SBHIST_SLOTS 128
#define SBHIST_SIZE 1024
#define SBHIST_MIN_MS 0.001
#define SBHIST_MAX_MS 100000.0

struct sbhist {
        uint64_t *slots; /* SBHIST_SLOTS x SBHIST_SIZE counters, atomic */
        double deduct, mult;
};

struct sbloop {
        const struct sbloop_spec *spec;
        const struct bw_host *h;
        struct sbloop_gate gate;
        bool stop;          /* atomic: wind down now */
        bool stopped;       /* atomic: because the host asked */
        uint64_t end_ns;    /* written before the gate opens */
        uint64_t issued;    /* atomic: events handed out (--events) */
        struct sbhist sbh;
};

struct sbloop_worker {
        pthread_t thread;
        struct sbloop *loop;
        unsigned tid;
        int r;
        uint64_t events;
        uint64_t event_t0;  /* when the current event started */
        uint64_t cpu_ns;    /* the thread's CPU time from the gate to its end */
        int timer_lock;     /* sysbench's per-thread timer spinlock */
        uint64_t rng[2];    /* picks the histogram slot, as in sysbench */
        struct bw_hist hist;
};

static int sbhist_init(struct sbhist *sh)
{
        sh->slots = calloc((size_t)SBHIST_SLOTS * SBHIST_SIZE, sizeof(uint64_t));
        if (!sh->slots)
                return -ENOMEM;
        sh->deduct = log(SBHIST_MIN_MS);
        sh->mult = (SBHIST_SIZE - 1) / (log(SBHIST_MAX_MS) - sh->deduct);
        return 0;
}

/* A clock read under the timer's spinlock, as sb_timer_start/stop(). */
static inline uint64_t timer_read(int *lock)
{
        uint64_t t;

        while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE))
                ;
        t = now_ns();
        __atomic_store_n(lock, 0, __ATOMIC_RELEASE);
        return t;
}

/* sb_histogram_update() */
static __attribute__((noinline)) void sbhist_update(const struct sbhist *sh,
                                                   uint64_t rng[2], uint64_t ns)
{
        size_t slot = sb_xoroshiro_next(rng) % SBHIST_SLOTS;
        double ms = (double)ns / 1e6;
        double i = ms > 0 ? floor((log(ms) - sh->deduct) * sh->mult + 0.5) : 0;
        size_t k = i < 0 ? 0 : i >= SBHIST_SIZE ? SBHIST_SIZE - 1 : (size_t)i;

        __atomic_fetch_add(&sh->slots[slot * SBHIST_SIZE + k], 1,
                           __ATOMIC_RELAXED);
}

/* sb_histogram_get_pct_cumulative(), in seconds; 0 without events. */
static double sbhist_pct(const struct sbhist *sh, double pct)
{
        uint64_t total = 0, seen = 0, want;
        size_t n;

        for (size_t i = 0; i < (size_t)SBHIST_SLOTS * SBHIST_SIZE; i++)
                total += sh->slots[i];
        if (!total)
                return 0;
        want = (uint64_t)floor((double)total * pct / 100 + 0.5);
        for (n = 0; n < SBHIST_SIZE; n++) {
                for (size_t s = 0; s < SBHIST_SLOTS; s++)
                        seen += sh->slots[s * SBHIST_SIZE + n];
                if (seen >= want)
                        break;
        }
        return exp((double)n / sh->mult + sh->deduct) / 1e3;
}

void sbloop_gate_init(struct sbloop_gate *g)
{
        pthread_mutex_init(&g->lock, NULL);
        pthread_cond_init(&g->cond, NULL);
        g->open = g->aborted = false;
}

void sbloop_gate_destroy(struct sbloop_gate *g)
{
        pthread_cond_destroy(&g->cond);
        pthread_mutex_destroy(&g->lock);
}

bool sbloop_gate_wait(struct sbloop_gate *g)
{
        bool go;

        pthread_mutex_lock(&g->lock);
        while (!g->open)
                pthread_cond_wait(&g->cond, &g->lock);
        go = !g->aborted;
        pthread_mutex_unlock(&g->lock);
        return go;
}

void sbloop_gate_open(struct sbloop_gate *g, bool abort_run)
{
        pthread_mutex_lock(&g->lock);
        g->aborted = abort_run;
        g->open = true;
        pthread_cond_broadcast(&g->cond);
        pthread_mutex_unlock(&g->lock);
}

/* sb_more_events() */
static __attribute__((noinline)) bool loop_more(struct sbloop *l)
{
        const struct sbloop_spec *s = l->spec;

        if (__atomic_load_n(&l->stop, __ATOMIC_RELAXED))
                return false;
        if (now_ns() >= l->end_ns)
                return false;
        if (s->max_events &&
            __atomic_fetch_add(&l->issued, 1, __ATOMIC_RELAXED) >= s->max_events)
                return false;
        return true;
}

/* memory's next_event(): the thread's share of --memory-total-size. */
static __attribute__((noinline)) bool loop_next(const struct sbloop_spec *s,
                                                const struct sbloop_worker *w)
{
        return !s->per_thread_events || w->events < s->per_thread_events;
}

/* sb_event_start() */
static __attribute__((noinline)) void loop_event_start(struct sbloop_worker *w)
{
        w->event_t0 = timer_read(&w->timer_lock);
}

/* sb_event_stop(): the event's time and its accounting; returns its end. */
static __attribute__((noinline)) uint64_t loop_event_stop(struct sbloop *l,
                                                          struct sbloop_worker *w)
{
        uint64_t t1 = timer_read(&w->timer_lock);

        bw_hist_record(&w->hist, t1 - w->event_t0);
        sbhist_update(&l->sbh, w->rng, t1 - w->event_t0);
        w->events++;
        return t1;
}

static void loop_tick(struct sbloop *l, uint64_t done)
{
        l->h->progress(l->h, done);
        if (l->h->stopping(l->h)) {
                __atomic_store_n(&l->stopped, true, __ATOMIC_RELAXED);
                __atomic_store_n(&l->stop, true, __ATOMIC_RELAXED);
        }
}

static void *loop_worker(void *arg)
{
        struct sbloop_worker *w = arg;
        struct sbloop *l = w->loop;
        const struct sbloop_spec *s = l->spec;
        uint64_t reported = 0, last;

        if (!sbloop_gate_wait(&l->gate))
                return NULL;
        uint64_t cpu0 = thread_cpu_ns();
        last = now_ns();
        while (loop_more(l) && loop_next(s, w)) {
                loop_event_start(w);
                int r = s->event(s->arg, w->tid);
                uint64_t t1 = loop_event_stop(l, w);
                if (r < 0) {
                        w->r = r;
                        __atomic_store_n(&l->stop, true, __ATOMIC_RELAXED);
                        break;
                }
                if (t1 - last >= SBLOOP_TICK_NS) {
                        loop_tick(l, w->events - reported);
                        reported = w->events;
                        last = t1;
                }
        }
        l->h->progress(l->h, w->events - reported);
        w->cpu_ns = thread_cpu_ns() - cpu0;
        return NULL;
}

/* sysbench's --time, cut short if the core's deadline comes first. */
static uint64_t loop_end(const struct sbloop_spec *s, const struct bw_host *h,
                         uint64_t start)
{
        uint64_t end = start + (uint64_t)(s->duration * 1e9);

        if (s->deadline > 0) {
                uint64_t dl = (uint64_t)(s->deadline * 1e9);
                dl = dl > start + SBLOOP_MARGIN_NS ? dl - SBLOOP_MARGIN_NS : start;
                if (dl < end) {
                        h->log(h, LOG_WARNING, "duration %.2fs cut to %.2fs by "
                               "the run's deadline", s->duration,
                               (double)(dl - start) / 1e9);
                        end = dl;
                }
        }
        return end;
}

static int loop_start(struct sbloop *l, struct sbloop_worker *w,
                      unsigned *ret_started)
{
        pthread_attr_t attr;
        unsigned i;
        int r = -pthread_attr_init(&attr);

        if (r < 0)
                return r;
        pthread_attr_setstacksize(&attr, SBLOOP_STACK);
        for (i = 0; i < l->spec->threads; i++) {
                w[i].loop = l;
                w[i].tid = i;
                bw_hist_init(&w[i].hist);
                w[i].rng[0] = now_ns() * UINT64_C(0x9E3779B97F4A7C15) + i;
                w[i].rng[1] = (i + UINT64_C(1)) * UINT64_C(0xBF58476D1CE4E5B9);
                r = -pthread_create(&w[i].thread, &attr, loop_worker, &w[i]);
                if (r < 0)
                        break;
        }
        pthread_attr_destroy(&attr);
        *ret_started = i;
        return r;
}

static void loop_collect(const struct sbloop_worker *w, unsigned n,
                         struct sbloop_result *res)
{
        uint64_t cpu = 0;

        res->events = 0;
        bw_hist_init(&res->hist);
        for (unsigned i = 0; i < n; i++) {
                res->events += w[i].events;
                cpu += w[i].cpu_ns;
                bw_hist_merge(&res->hist, &w[i].hist);
        }
        res->cpu_seconds = (double)cpu / 1e9;
}

int sbloop_run(const struct sbloop_spec *spec, const struct bw_host *h,
               struct sbloop_result *ret)
{
        struct sbloop l = { .spec = spec, .h = h };
        struct sbloop_worker *w;
        unsigned started = 0;
        uint64_t t0, t1;
        int r;

        if (spec->threads < 1)
                return -EINVAL;
        w = calloc(spec->threads, sizeof(*w));
        if (!w || sbhist_init(&l.sbh) < 0) {
                free(w);
                return -ENOMEM;
        }
        sbloop_gate_init(&l.gate);

        r = loop_start(&l, w, &started);
        t0 = now_ns();
        l.end_ns = loop_end(spec, h, t0);
        sbloop_gate_open(&l.gate, r < 0);
        for (unsigned i = 0; i < started; i++)
                pthread_join(w[i].thread, NULL);
        t1 = now_ns();

        for (unsigned i = 0; r >= 0 && i < started; i++)
                if (w[i].r < 0)
                        r = w[i].r;
        if (r >= 0) {
                loop_collect(w, started, ret);
                ret->seconds = (double)(t1 - t0) / 1e9;
                ret->stopped = __atomic_load_n(&l.stopped, __ATOMIC_RELAXED);
                ret->sysbench_p95 = sbhist_pct(&l.sbh, 95);
        }
        sbloop_gate_destroy(&l.gate);
        free(l.sbh.slots);
        free(w);
        return r;
}

double sbloop_per_cpu_second(double work, const struct sbloop_result *res)
{
        return res->cpu_seconds > 0 ? work / res->cpu_seconds : 0;
}

int sbloop_outcome(const struct bw_host *h, const struct sbloop_spec *spec, int r,
                   const struct sbloop_result *res)
{
        if (r < 0)
                return h->fail(h, r, "cannot run %u worker threads: %s", spec->threads,
                               strerror(-r));
        if (res->stopped)
                return h->fail(h, -ECANCELED, "stopped before the end of the run");
        /* a rate of 0 would be a figure, and a regression: say why none */
        if (!res->events)
                return h->fail(h, -ETIMEDOUT, "no event completed in the run's %.3gs (%u "
                               "threads): too short a duration for one", spec->duration,
                               spec->threads);
        return 0;
}

void sbloop_emit(const struct bw_host *h, const struct sbloop_result *res,
                 const char *what)
{
        char help[160];
        double rate = res->seconds > 0 ? (double)res->events / res->seconds : 0;

        snprintf(help, sizeof(help), "Rate of %ss over the run, as sysbench "
                 "reports it (events over total time)", what);
        h->gauge(h, "events_per_second", help, NULL, rate);
        snprintf(help, sizeof(help), "%ss per second of the worker threads' "
                 "own CPU time (events over their summed CPU time)", what);
        h->gauge(h, "events_per_cpu_second", help, NULL,
                 sbloop_per_cpu_second((double)res->events, res));
        h->gauge(h, "worker_cpu_seconds", "CPU time of the worker threads, "
                 "summed (CLOCK_THREAD_CPUTIME_ID from the start line to "
                 "each one's end)", NULL, res->cpu_seconds);
        snprintf(help, sizeof(help), "%ss completed in the run", what);
        h->counter(h, "events_total", help, NULL, (double)res->events);
        snprintf(help, sizeof(help), "Time taken by one %s", what);
        h->latency(h, "latency_seconds", help, NULL, &res->hist);
        h->gauge(h, "latency_sysbench_p95_seconds", "95th percentile of the "
                 "event latency as sysbench computes it (1024 log buckets), "
                 "to set beside sysbench's own output", NULL,
                 res->sysbench_p95);
        h->gauge(h, "total_time_seconds", "Wall time from the start of all "
                 "threads to the end of the last one", NULL, res->seconds);
}
