/* skeleton.c — the smallest complete plugin, to copy when writing a new one
 * (as fio keeps engines/skeleton_external.c).  It is built and tested with
 * the tree (tests/plugins/test_skeleton.c) but never installed, so it
 * cannot go stale and never shows up in `benchwatch plugins`.
 *
 * What it shows: every callback of struct bw_plugin and every service of
 * struct bw_host.  A parameter table the core parses and validates (a plugin
 * never parses strings), a `check` for what the table cannot say (it runs in
 * the core at configuration load and before each run), a bounded `run` that
 * counts its work with h->progress(), stops on h->stopping() and before
 * run->deadline, records a latency histogram, emits figures in base units
 * and an info metric, logs at LOG_DEBUG; a `cleanup` for the file a run
 * leaves behind (the generator's state, so the next run continues its
 * sequence) and a `report` for `benchwatch run`'s table.  One event is
 * `work` rounds of a xorshift generator: something to time, nothing more.
 * See HACKING.md, "Adding a plugin". */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "core/plugin.h"
#include "util/atomicfile.h"
#include "util/fdio.h"
#include "util/hist.h"
#include "util/parse.h"
#include "util/strutil.h"
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

/* The generator's state between runs: a file in the cache directory that
 * only `cleanup` removes. */
static char *state_path(const struct bw_run *run)
{
        return str_printf("%s/skeleton-%s.state", run->cache_dir, run->probe);
}

static uint64_t load_state(const char *path)
{
        char buf[32];
        int64_t x = 0;
        if (fdio_read_small(path, buf, sizeof(buf)) < 0 ||
            parse_int64(buf, &x) < 0 || x <= 0)
                return 88172645463325252ull; /* no state yet: the usual seed */
        return (uint64_t)x;
}

static int save_state(const struct bw_run *run, const char *path, uint64_t x)
{
        char *text = str_printf("%" PRId64, (int64_t)(x & INT64_MAX) | 1);
        int r = text ? atomicfile_write(run->cache_dir, path, text, strlen(text), 0644)
                     : -ENOMEM;
        free(text);
        return r;
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
        char *path = state_path(run);
        if (!path)
                return h->fail(h, -ENOMEM, "out of memory");
        struct bw_hist hist;
        uint64_t n = 0, x = load_state(path), t0 = now_ns();
        uint64_t end_ns = t0 + (uint64_t)(v[P_DURATION].d * 1e9);
        bw_hist_init(&hist);
        while (!done(run, h, n, end_ns)) {
                uint64_t s = now_ns();
                x = one_event(x, v[P_WORK].i);
                bw_hist_record(&hist, now_ns() - s);
                h->progress(h, 1);
                n++;
        }
        double taken = (double)(now_ns() - t0) / 1e9;
        int r = h->stopping(h) ? -ECANCELED : save_state(run, path, x);
        if (r == -ECANCELED)
                r = h->fail(h, r, "stopped before the end of the run");
        else if (r < 0)
                r = h->fail(h, r, "cannot write '%s': %s", path, strerror(-r));
        free(path);
        if (r < 0)
                return r;
        h->log(h, LOG_DEBUG, "generator at %" PRIu64 " after %" PRIu64 " events", x, n);
        h->counter(h, "events_total", "Events done", NULL, (double)n);
        h->gauge(h, "events_per_second", "Events per second", NULL,
                 taken > 0 ? (double)n / taken : 0);
        h->latency(h, "latency_seconds", "Time of one event", NULL, &hist);
        h->info(h, "benchwatch_skeleton_info", "What the events compute",
                (const char *const[]){ "generator", "xorshift64", NULL });
        return 0;
}

/* `benchwatch cleanup`: what runs left behind. */
static int skeleton_cleanup(const struct bw_run *run, const struct bw_host *h)
{
        char *path = state_path(run);
        if (!path)
                return h->fail(h, -ENOMEM, "out of memory");
        int r = unlink(path) < 0 ? -errno : 1;
        if (r == -ENOENT)
                r = 0;
        if (r < 0)
                r = h->fail(h, r, "cannot remove '%s': %s", path, strerror(-r));
        else
                bw_cleanup_report(h, (unsigned)r, 0);
        free(path);
        return r < 0 ? r : 0;
}

/* `benchwatch run skeleton` prints these lines (NULL: a generic list). */
static const struct bw_report_line skeleton_report[] = {
        { .label = "Events:", .show = BW_SHOW_VALUE, .figure = "events_total" },
        { .label = "Events per second:", .show = BW_SHOW_VALUE,
          .figure = "events_per_second", .decimals = 1 },
        { .label = "Time per event:", .show = BW_SHOW_MEAN, .figure = "latency_seconds",
          .scale = 1e6, .unit = "µs", .decimals = 3 },
        { .label = "Rounds per event:", .show = BW_SHOW_PARAM, .figure = "work" },
        { .label = NULL },
};

BW_PLUGIN_DEFINE = {
        .abi_version = BW_PLUGIN_ABI_VERSION,
        .name = "skeleton",
        .description = "the template for a new plugin: timed xorshift rounds "
                       "(not installed)",
        .caps = 0, /* BW_CAP_*: what the core must know (root, disk I/O...) */
        .params = skeleton_params,
        .concurrency_param = NULL, /* no threads: nothing for `sweep` */
        .throughput_metric = "events_per_second",
        .check = skeleton_check,
        .run = skeleton_run,
        .cleanup = skeleton_cleanup,
        .report = skeleton_report,
};
