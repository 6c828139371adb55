/* seqread.c — the two figures of `hdparm -Tt`, measured the way hdparm does.
 *
 * Operators have years of `hdparm -Tt` numbers; this plugin keeps producing
 * comparable ones.  Like hdparm it reads with plain read(2) into a 2 MiB
 * buffer (touching every 512-byte sector of it so the copy is complete):
 * "cached reads" re-read the first 2 MiB from offset 0 for about 2 s — the
 * speed of the page cache, CPU and memory — with the cost of the lseek and
 * clock reads measured separately and subtracted; "buffered disk reads"
 * first flush the cache (fdatasync, BLKFLSBUF on a device, and
 * POSIX_FADV_DONTNEED, which also works on files where BLKFLSBUF does not)
 * and then read 2 MiB chunks sequentially from offset 0 for about 3 s or
 * until the end of the device or file.  hdparm's "MB" is 2^20 bytes; here
 * everything is bytes per second.  hdparm's settling pauses are kept
 * (`settle`, on by default): 1 s after the flush before the cached reads,
 * 4 s between the flush that ends them and the disk reads.  They look like
 * politeness but change the figure: on a virtual disk, reads that start
 * after an idle pause run at a different speed from reads that follow
 * busy work at once (on the development VM, 1.8x faster without them). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/testfile.h"
#include "core/plugin.h"
#include "util/timeutil.h"

enum { P_PATH, P_SIZE, P_CACHE_DURATION, P_DISK_DURATION, P_SETTLE };

#define TIMING_BUF (2u << 20) /* hdparm's TIMING_BUF_BYTES */
#define STOP_MARGIN 1.0
#define SETTLE_BEFORE_CACHE 1.0 /* hdparm time_cache(): sleep(1) */
#define SETTLE_BEFORE_DISK 4.0  /* sleep(1) ending time_cache(), sleep(3) in
                                   prepare_timing_buf() for time_device() */

struct timing {
        int fd;
        bool is_device;
        char *buf;
        uint64_t size;
        const struct bw_host *h;
        double stop_by;
        bool settle;
};

static int read_big_block(const struct timing *t)
{
        ssize_t n = read(t->fd, t->buf, TIMING_BUF);
        if (n != (ssize_t)TIMING_BUF)
                return n < 0 ? -errno : -ENODATA;
        for (unsigned i = 0; i < TIMING_BUF; i += 512)
                t->buf[i] &= 1; /* make sure every sector really arrived */
        return 0;
}

static int seek_to_zero(const struct timing *t)
{
        return lseek(t->fd, 0, SEEK_SET) == 0 ? 0 : -errno;
}

/* hdparm's settling pause (when `settle` is on), cut short by a stop
 * request or the run's deadline. */
static void settle(const struct timing *t, double seconds)
{
        if (!t->settle)
                return;
        uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
        if ((double)end / 1e9 > t->stop_by)
                end = (uint64_t)(t->stop_by * 1e9);
        for (uint64_t now = now_ns(); now < end && !t->h->stopping(t->h);
             now = now_ns()) {
                uint64_t step = now + 100000000u; /* look at stopping 10x/s */
                sleep_until_ns(step < end ? step : end);
        }
}

static bool keep_going(const struct timing *t, uint64_t start, uint64_t now,
                       double duration)
{
        return (double)(now - start) / 1e9 < duration &&
               (double)now / 1e9 < t->stop_by && !t->h->stopping(t->h);
}

/* hdparm's time_cache(): bytes per second re-reading the first 2 MiB. */
static int time_cache(const struct timing *t, double duration, double *ret)
{
        uint64_t iterations = 0, start, now;
        int r = seek_to_zero(t);
        if (r == 0)
                r = read_big_block(t);
        testfile_drop_cache(t->fd, t->is_device);
        settle(t, SETTLE_BEFORE_CACHE);
        start = now = now_ns();
        while (r == 0 && (iterations == 0 || keep_going(t, start, now, duration))) {
                iterations++;
                r = seek_to_zero(t);
                if (r == 0)
                        r = read_big_block(t);
                now = now_ns();
        }
        if (r < 0)
                return r;
        double elapsed = (double)(now - start);
        /* remove the lseek() and clock overheads, as hdparm does */
        uint64_t t0 = now_ns(), t1 = t0;
        for (uint64_t i = 0; i < iterations; i++) {
                seek_to_zero(t);
                t1 = now_ns();
        }
        elapsed -= (double)(t1 - t0);
        *ret = (double)iterations * TIMING_BUF / (elapsed / 1e9);
        testfile_drop_cache(t->fd, t->is_device);
        return 0;
}

/* hdparm's time_device(): sequential buffered reads after a flush. */
static int time_device(const struct timing *t, double duration, double *ret)
{
        uint64_t max_iterations = t->size / TIMING_BUF, iterations = 0;
        testfile_drop_cache(t->fd, t->is_device);
        settle(t, SETTLE_BEFORE_DISK);
        int r = seek_to_zero(t);
        uint64_t start = now_ns(), now = start;
        while (r == 0 && iterations < max_iterations &&
               (iterations == 0 || keep_going(t, start, now, duration))) {
                iterations++;
                r = read_big_block(t);
                now = now_ns();
        }
        if (r < 0)
                return r;
        *ret = (double)iterations * TIMING_BUF / ((double)(now - start) / 1e9);
        return 0;
}

static int measure(const struct bw_run *run, const struct bw_host *h,
                   const struct testfile *tf, struct timing *t)
{
        const struct bw_param_value *v = run->values;
        double cache = 0, disk = 0;
        int r = time_cache(t, v[P_CACHE_DURATION].d, &cache);
        if (r < 0)
                return h->fail(h, r, "cached reads of '%s' failed: %s", tf->path,
                               r == -ENODATA ? "short read" : strerror(-r));
        r = time_device(t, v[P_DISK_DURATION].d, &disk);
        if (r < 0)
                return h->fail(h, r, "disk reads of '%s' failed: %s", tf->path,
                               r == -ENODATA ? "short read" : strerror(-r));
        if (h->stopping(h))
                return h->fail(h, -EINTR, "seqread run on '%s' interrupted",
                               tf->path);
        static const char help[] = "Bytes read per second: from the page "
                "cache (hdparm -T) or from the device after a cache flush "
                "(hdparm -t)";
        h->gauge(h, "bytes_per_second", help,
                 (const char *const[]){ "source", "cache", NULL }, cache);
        h->gauge(h, "bytes_per_second", help,
                 (const char *const[]){ "source", "disk", NULL }, disk);
        return 0;
}

static int seqread_time(const struct bw_run *run, const struct bw_host *h,
                        const struct testfile *tf)
{
        struct timing t = { .is_device = tf->is_device, .size = tf->size,
                            .h = h, .stop_by = run->deadline - STOP_MARGIN,
                            .settle = run->values[P_SETTLE].b };
        if (tf->size < TIMING_BUF)
                return h->fail(h, -EINVAL, "'%s' is smaller than 2 MiB",
                               tf->path);
        t.fd = open(tf->path, O_RDONLY | O_CLOEXEC);
        if (t.fd < 0)
                return h->fail(h, -errno, "cannot open '%s': %s", tf->path,
                               strerror(errno));
        /* hdparm's buffer: anonymous memory, present and locked; mmap lets
         * the kernel back it the same way (e.g. by a huge page) */
        int r = 0;
        t.buf = mmap(NULL, TIMING_BUF, PROT_READ | PROT_WRITE,
                     MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
        if (t.buf == MAP_FAILED)
                r = h->fail(h, -errno, "cannot allocate the read buffer: %s",
                            strerror(errno));
        if (r == 0) {
                for (unsigned i = 0; i < TIMING_BUF; i += 4096)
                        t.buf[i] = 0;
                bool locked = mlock(t.buf, TIMING_BUF) == 0;
                r = measure(run, h, tf, &t);
                if (locked)
                        munlock(t.buf, TIMING_BUF);
                munmap(t.buf, TIMING_BUF);
        }
        close(t.fd);
        return r;
}

static int seqread_run(const struct bw_run *run, const struct bw_host *h)
{
        const struct bw_param_value *v = run->values;
        return testfile_run(run, h, "seqread", v[P_PATH].s, (uint64_t)v[P_SIZE].i,
                            v[P_SIZE].is_set, run->deadline - STOP_MARGIN,
                            seqread_time);
}

static int seqread_check(const struct bw_run *run, const struct bw_host *h)
{
        const char *path = run->values[P_PATH].s;
        return *path ? testfile_check_place(h, path) : 0;
}

static int seqread_cleanup(const struct bw_run *run, const struct bw_host *h)
{
        return testfile_cleanup(run, h, "seqread", run->values[P_PATH].s);
}

static const struct bw_param_def seqread_params[] = {
        [P_PATH] = {
                .name = "path", .type = BW_PARAM_STRING,
                .default_value = "",
                .help = "block device or test file (created and marked by "
                        "benchwatch); default <cache_dir>/seqread-<probe>.dat",
        },
        [P_SIZE] = {
                .name = "size", .type = BW_PARAM_SIZE,
                .default_value = "1G", .min = 2 << 20, .max = 1ull << 50,
                .unit = "bytes",
                .help = "size of the test file; on a device the most that the "
                        "disk reads cover (default: all of it)",
        },
        [P_CACHE_DURATION] = {
                .name = "cache_duration", .type = BW_PARAM_DURATION,
                .default_value = "2s", .min = 0.01, .max = 600, .unit = "s",
                .help = "time spent on cached reads (hdparm -T: 2 s)",
        },
        [P_DISK_DURATION] = {
                .name = "disk_duration", .type = BW_PARAM_DURATION,
                .default_value = "3s", .min = 0.01, .max = 600, .unit = "s",
                .help = "time spent on buffered disk reads at most (hdparm -t: "
                        "3 s)",
        },
        [P_SETTLE] = {
                .name = "settle", .type = BW_PARAM_BOOL,
                .default_value = "yes",
                .help = "pause as hdparm -Tt does before each timing (1 s "
                        "before the cached reads, 4 s before the disk reads), "
                        "so the figures compare with hdparm's; no: 5 s shorter",
        },
        { .name = NULL },
};

BW_PLUGIN_DEFINE = {
        .abi_version = BW_PLUGIN_ABI_VERSION,
        .name = "seqread",
        .description = "hdparm -Tt: cached reads and buffered disk reads of "
                "a device or file, in bytes/s",
        .caps = BW_CAP_DISK_IO,
        .params = seqread_params,
        .concurrency_param = NULL,
        .throughput_metric = "bytes_per_second",
        .check = seqread_check,
        .run = seqread_run,
        .cleanup = seqread_cleanup,
};
