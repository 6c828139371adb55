/* disklat.c — a disk's per-read latency at almost no cost, as ioping -D.
 *
 * A disk that is wearing out, or a virtual disk whose backend is in
 * trouble, first answers each request more slowly; the saturating disk
 * probe sees that too, but it reads about a gigabyte an hour to do so and
 * takes a CPU of a small VM while it runs.  ioping's idea answers the same
 * question with a trickle: one block read with O_DIRECT at a random
 * offset of a file larger than the device's cache, at queue depth 1, then
 * a pause, and again, at a fixed rate (`rate`, 100 a second by default,
 * for `duration`).  Each read is timed as ioping times it, from just
 * before the pread to its return, so the figure is the device's service
 * time and not the scheduler's wake-up; the schedule is fixed, so a read
 * that takes longer than the interval delays the next one (counted in
 * late_total) rather than making a burst.  Like ioping (`-a 1`), the first
 * `warmup` reads are not in the histogram: after an idle pause a disk (and
 * the hypervisor behind a virtual one) answers slowly while it wakes up;
 * the first is reported apart, as first_read_seconds.  The test file, its
 * O_DIRECT checks and the histogram are the disk plugin's (common/testfile,
 * util/hist), and the file is the same one (<cache_dir>/disk-<probe>.dat),
 * so a probe moving from the disk plugin to this one reuses it. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "common/sbrand.h"
#include "common/testfile.h"
#include "core/plugin.h"
#include "util/hist.h"
#include "util/timeutil.h"

enum { P_BLOCK_SIZE, P_RATE, P_DURATION, P_WARMUP, P_DIRECT, P_PATH, P_SIZE };

#define STOP_MARGIN 1.0 /* seconds kept before the run's deadline */

struct trickle {
        const struct bw_host *h;
        int fd;
        char *buf;
        uint64_t bs, nblocks, interval_ns, end_ns, rng;
        unsigned warmup;
        uint64_t reads, errors, late, first_ns;
        int first_err;
        struct bw_hist hist;
};

/* One read of one block at a random offset; its time in ns, or 0. */
static uint64_t read_one(struct trickle *t)
{
        uint64_t x = sb_splitmix64(&t->rng);
        uint64_t blk = (uint64_t)(((unsigned __int128)x * t->nblocks) >> 64);
        uint64_t t0 = now_ns();
        ssize_t n = pread(t->fd, t->buf, t->bs, (off_t)(blk * t->bs));
        uint64_t t1 = now_ns();
        if (n == (ssize_t)t->bs)
                return t1 - t0 ? t1 - t0 : 1;
        t->errors++;
        if (!t->first_err)
                t->first_err = n < 0 ? -errno : -EIO;
        return 0;
}

/* The fixed schedule: a read every interval_ns from start until end_ns. */
static void trickle_run(struct trickle *t, uint64_t start_ns)
{
        uint64_t due = start_ns, done = 0;
        while (due < t->end_ns && !t->h->stopping(t->h)) {
                sleep_until_ns(due);
                uint64_t ns = read_one(t);
                if (ns && done < t->warmup) {
                        if (!done)
                                t->first_ns = ns;
                } else if (ns) {
                        bw_hist_record(&t->hist, ns);
                        t->reads++;
                }
                done++;
                t->h->progress(t->h, 1);
                due += t->interval_ns;
                uint64_t now = now_ns();
                if (due < now) { /* the read outlasted the interval */
                        t->late++;
                        due = now;
                }
        }
}

static void emit(const struct bw_host *h, const struct trickle *t)
{
        const char *const none[] = { NULL };
        h->latency(h, "latency_seconds", "Time of one read at queue depth 1, "
                   "from the pread to its return (ioping's request time), "
                   "warm-up reads left out", none, &t->hist);
        if (t->first_ns)
                h->gauge(h, "first_read_seconds", "Time of the run's first "
                         "read, after the idle pause (left out of "
                         "latency_seconds, as ioping does)", none,
                         (double)t->first_ns / 1e9);
        h->counter(h, "reads_total", "Reads in latency_seconds", none,
                   (double)t->reads);
        h->counter(h, "late_total", "Reads issued late because the one "
                   "before outlasted the interval", none, (double)t->late);
        h->counter(h, "errors_total", "Reads that failed or were short",
                   none, (double)t->errors);
}

static int verdict(const struct bw_host *h, const struct trickle *t,
                   const char *path)
{
        if (h->stopping(h))
                return h->fail(h, -EINTR, "disklat run on '%s' interrupted",
                               path);
        if (!t->reads && t->errors)
                return h->fail(h, t->first_err, "reads of '%s' failed: %s",
                               path, strerror(-t->first_err));
        if (!t->reads)
                return h->fail(h, -ETIME, "no read of '%s' beyond the %u "
                               "warm-up read(s) fitted in the run: raise "
                               "duration or rate", path, t->warmup);
        if (t->errors)
                h->log(h, LOG_WARNING, "%" PRIu64 " reads of '%s' failed, "
                       "first: %s", t->errors, path, strerror(-t->first_err));
        return 0;
}

static int measure(const struct bw_run *run, const struct bw_host *h,
                   const struct testfile *tf)
{
        const struct bw_param_value *v = run->values;
        struct trickle t = { .h = h, .bs = (uint64_t)v[P_BLOCK_SIZE].i,
                             .warmup = (unsigned)v[P_WARMUP].i };
        unsigned align = 4096;
        t.fd = testfile_open(h, tf, false, v[P_DIRECT].b, t.bs, &align);
        if (t.fd < 0)
                return t.fd;
        t.nblocks = tf->size / t.bs;
        t.interval_ns = (uint64_t)(1e9 / v[P_RATE].d);
        t.rng = now_ns() ^ (uint64_t)getpid() << 32;
        bw_hist_init(&t.hist);
        int r = t.nblocks ? 0 : h->fail(h, -EINVAL, "'%s' is smaller than "
                                        "one block of %" PRIu64 " bytes",
                                        tf->path, t.bs);
        if (r == 0 && posix_memalign((void **)&t.buf, align < 4096 ? 4096 :
                                     align, t.bs))
                r = h->fail(h, -ENOMEM, "out of memory");
        if (r == 0) {
                uint64_t start = now_ns();
                uint64_t stop_by = (uint64_t)((run->deadline - STOP_MARGIN) * 1e9);
                t.end_ns = start + (uint64_t)(v[P_DURATION].d * 1e9);
                if (stop_by < t.end_ns)
                        t.end_ns = stop_by;
                trickle_run(&t, start);
                r = verdict(h, &t, tf->path);
        }
        if (r == 0)
                emit(h, &t);
        free(t.buf);
        close(t.fd);
        return r;
}

static int disklat_check(const struct bw_run *run, const struct bw_host *h)
{
        const struct bw_param_value *v = run->values;
        uint64_t bs = (uint64_t)v[P_BLOCK_SIZE].i;
        if (v[P_DIRECT].b && bs % 512)
                return h->fail(h, -EINVAL, "block_size %" PRIu64 " is not a "
                               "multiple of 512 bytes, as O_DIRECT needs (or "
                               "set direct=no)", bs);
        if (bs > (uint64_t)v[P_SIZE].i)
                return h->fail(h, -EINVAL, "size %" PRIu64 " is smaller than "
                               "one block of %" PRIu64 " bytes",
                               (uint64_t)v[P_SIZE].i, bs);
        if (v[P_DURATION].d * v[P_RATE].d < (double)v[P_WARMUP].i + 1)
                return h->fail(h, -EINVAL, "duration x rate leaves no read "
                               "after the %" PRId64 " warm-up read(s)",
                               v[P_WARMUP].i);
        return *v[P_PATH].s ? testfile_check_place(h, v[P_PATH].s) : 0;
}

static int disklat_run(const struct bw_run *run, const struct bw_host *h)
{
        const struct bw_param_value *v = run->values;
        int r = disklat_check(run, h);
        if (r < 0)
                return r;
        /* the disk plugin's file: a probe moving to disklat reuses it */
        return testfile_run(run, h, "disk", v[P_PATH].s, (uint64_t)v[P_SIZE].i,
                            v[P_SIZE].is_set, run->deadline - STOP_MARGIN,
                            measure);
}

static int disklat_cleanup(const struct bw_run *run, const struct bw_host *h)
{
        return testfile_cleanup(run, h, "disk", run->values[P_PATH].s);
}

static const struct bw_param_def disklat_params[] = {
        [P_BLOCK_SIZE] = { .name = "block_size", .type = BW_PARAM_SIZE,
                .default_value = "4k", .min = 512, .max = 64 << 20,
                .unit = "bytes", .flags = BW_PARAM_LABEL,
                .help = "size of every read (ioping's -s, same default); "
                        "offsets are multiples of it" },
        [P_RATE] = { .name = "rate", .type = BW_PARAM_DOUBLE,
                .default_value = "100", .min = 0.1, .max = 10000,
                .unit = "reads/s", .flags = BW_PARAM_LABEL,
                .help = "reads a second, one at a time on a fixed schedule "
                        "(ioping's -i is 1/rate)" },
        [P_DURATION] = { .name = "duration", .type = BW_PARAM_DURATION,
                .default_value = "5s", .min = 0.01, .max = 86400, .unit = "s",
                .help = "length of the run" },
        [P_WARMUP] = { .name = "warmup", .type = BW_PARAM_INT,
                .default_value = "1", .min = 0, .max = 1000000, .unit = "reads",
                .help = "first reads left out of the latency figures (ioping's "
                        "-a, same default); the first is reported as "
                        "first_read_seconds" },
        [P_DIRECT] = { .name = "direct", .type = BW_PARAM_BOOL,
                .default_value = "yes", .flags = BW_PARAM_LABEL,
                .help = "O_DIRECT: bypass the page cache (checked to be "
                        "honoured; with no, the file's cached pages are "
                        "dropped first)" },
        [P_PATH] = { .name = "path", .type = BW_PARAM_STRING,
                .default_value = "",
                .help = "test file (created and marked by benchwatch; an "
                        "existing file it did not create is refused) or block "
                        "device (only read); default <cache_dir>/disk-<probe>.dat, "
                        "the disk plugin's" },
        [P_SIZE] = { .name = "size", .type = BW_PARAM_SIZE,
                .default_value = "1G", .min = 1 << 20, .max = 1ull << 50,
                .unit = "bytes",
                .help = "size of the test file, larger than the device's cache; "
                        "on a device the region used (default: all of it)" },
        { .name = NULL },
};

#define LINE(l, s, f, ...) { .label = (l), .show = (s), .figure = (f), __VA_ARGS__ }
static const struct bw_report_line disklat_report[] = {
        LINE("Block size:", BW_SHOW_PARAM, "block_size"),
        LINE("Reads per second:", BW_SHOW_PARAM, "rate"),
        LINE("Reads timed:", BW_SHOW_VALUE, "reads_total"),
        LINE("Mean read time:", BW_SHOW_MEAN, "latency_seconds", .scale = 1e3,
             .unit = "ms", .decimals = 3),
        LINE("First read (left out):", BW_SHOW_VALUE, "first_read_seconds",
             .scale = 1e3, .unit = "ms", .decimals = 3),
        LINE("Late reads:", BW_SHOW_VALUE, "late_total"),
        LINE("Failed reads:", BW_SHOW_VALUE, "errors_total"),
        LINE("", BW_SHOW_HEADING, NULL),
        LINE("Percentage of the reads served within a certain time (ms)",
             BW_SHOW_PERCENTILES, "latency_seconds", .decimals = 3),
        { .label = NULL },
};
#undef LINE

BW_PLUGIN_DEFINE = {
        .abi_version = BW_PLUGIN_ABI_VERSION,
        .name = "disklat",
        .description = "a disk's read latency from a trickle of O_DIRECT "
                "reads at queue depth 1 (ioping -D): latency quantiles",
        .caps = BW_CAP_DISK_IO,
        .params = disklat_params,
        .check = disklat_check,
        .run = disklat_run,
        .cleanup = disklat_cleanup,
        .report = disklat_report,
};
