/* skeleton.c — the smallest complete plugin, to copy when writing a new one
 * (as fio keeps engines/skeleton_external.c).  It is built and tested with
 * the tree (tests/plugins/test_skeleton.c) but never installed, so it
 * cannot go stale and never shows up in `benchwatch plugins`.
 *
 * What it shows: a parameter table the core parses and validates (a plugin
 * never parses strings), a `check` for what the table cannot say (it runs in
 * the core at configuration load and before each run), a bounded `run` that
 * counts its work with h->progress(), stops on h->stopping() and before
 * run->deadline, records a latency histogram, and emits figures in base
 * units.  One event is `work` rounds of a xorshift generator: something to
 * time, nothing more.  See HACKING.md, "Adding a plugin". */
#include <errno.h>
#include <stdint.h>

#include "core/plugin.h"
#include "util/hist.h"
#include "util/timeutil.h"

enum { P_WORK, P_EVENTS, P_DURATION, P_COUNT };

static const struct bw_param_def skeleton_params[] = {
        [P_WORK] = {
                .name = "work", .type = BW_PARAM_INT, .default_value = "1000",
                .min = 1, .max = 100000000, .unit = "rounds",
                .help = "xorshift rounds per event (changes what an event "
                        "costs, so it is a label)",
                .flags = BW_PARAM_LABEL,
        },
        [P_EVENTS] = {
                .name = "events", .type = BW_PARAM_INT, .default_value = "0",
                .min = 0, .max = 1e12, .unit = "events",
                .help = "stop after exactly this many events; 0: run for "
                        "duration",
        },
        [P_DURATION] = {
                .name = "duration", .type = BW_PARAM_DURATION,
                .default_value = "1s", .min = 0, .max = 3600, .unit = "s",
                .help = "measured time; 0 needs events=N",
        },
        [P_COUNT] = { .name = NULL },
};

/* What the table cannot say: the two bounds together. */
static int skeleton_check(const struct bw_run *run, const struct bw_host *h)
{
        const struct bw_param_value *v = run->values;
        if (v[P_DURATION].d <= 0 && v[P_EVENTS].i <= 0)
                return h->fail(h, -EINVAL, "duration=0 needs events=N: a run "
                               "must be bounded");
        return 0;
}

static uint64_t one_event(uint64_t x, int64_t work)
{
        for (int64_t i = 0; i < work; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
        }
        return x;
}

/* True once the run must end: its bound, the deadline, or a stop. */
static bool done(const struct bw_run *run, const struct bw_host *h,
                 uint64_t n, uint64_t end_ns)
{
        const struct bw_param_value *v = run->values;
        if (v[P_EVENTS].i > 0 && n >= (uint64_t)v[P_EVENTS].i)
                return true;
        if (v[P_DURATION].d > 0 && now_ns() >= end_ns)
                return true;
        return now_mono() >= run->deadline || h->stopping(h);
}

static int skeleton_run(const struct bw_run *run, const struct bw_host *h)
{
        const struct bw_param_value *v = run->values;
        struct bw_hist hist;
        uint64_t n = 0, x = 88172645463325252ull, t0 = now_ns();
        uint64_t end_ns = t0 + (uint64_t)(v[P_DURATION].d * 1e9);
        bw_hist_init(&hist);
        while (!done(run, h, n, end_ns)) {
                uint64_t s = now_ns();
                x = one_event(x, v[P_WORK].i);
                bw_hist_record(&hist, now_ns() - s);
                h->progress(h, 1);
                n++;
        }
        if (h->stopping(h))
                return h->fail(h, -ECANCELED, "stopped before the end of the run");
        double taken = (double)(now_ns() - t0) / 1e9;
        h->log(h, 7, "last value %llu", (unsigned long long)x); /* keeps x live */
        h->counter(h, "events_total", "Events done", NULL, (double)n);
        h->gauge(h, "events_per_second", "Events per second", NULL,
                 taken > 0 ? (double)n / taken : 0);
        h->latency(h, "latency_seconds", "Time of one event", NULL, &hist);
        return 0;
}

BW_PLUGIN_DEFINE = {
        .abi_version = BW_PLUGIN_ABI_VERSION,
        .name = "skeleton",
        .description = "the template for a new plugin: timed xorshift rounds "
                       "(not installed)",
        .params = skeleton_params,
        .concurrency_param = NULL,
        .throughput_metric = "events_per_second",
        .check = skeleton_check,
        .run = skeleton_run,
};
