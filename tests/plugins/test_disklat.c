/* test_disklat.c — the disklat plugin against the recording fake host.
 *
 * Runs the trickle on a small test file in the fake host's cache_dir (on
 * the real local filesystem, with O_DIRECT) and checks what a user relies
 * on: the schedule gives rate x duration reads, one latency sample per read
 * after the warm-up ones, the first reported apart; the reads bypass the
 * page cache; the test file is the disk plugin's (disk-<probe>.dat), made,
 * reused and removed by cleanup; tmpfs without direct=no, too short a run
 * and a stop are refused or honoured with their messages. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../fakehost.h"
#include "util/timeutil.h"

extern const struct bw_plugin benchwatch_plugin;
#define P (&benchwatch_plugin)
#define PARAMS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xprintf(const char *fmt, ...)
{
        va_list ap;
        char *s;
        va_start(ap, fmt);
        CHECK(vasprintf(&s, fmt, ap) >= 0);
        va_end(ap);
        return s;
}

static const struct bw_hist *hist(const struct fakehost *fh)
{
        const struct fake_metric *m = fakehost_find(fh, "latency_seconds", "");
        CHECK(m != NULL);
        return &m->hist;
}

/* 200 reads a second for 1 s: 200 on the schedule, the first left out. */
static void test_schedule(void)
{
        struct fakehost fh;
        fakehost_init(&fh);
        double t0 = now_mono();
        CHECK(fakehost_run(&fh, P, PARAMS("size=32M", "rate=200",
                "duration=1s")) == 0);
        double took = now_mono() - t0;
        const struct bw_hist *h = hist(&fh);
        uint64_t late = (uint64_t)fakehost_value(&fh, "late_total", "");
        fprintf(stderr, "%llu reads timed, %llu late, p50 %.1f us, first "
                "%.1f us, run %.2f s\n", (unsigned long long)h->count,
                (unsigned long long)late,
                bw_hist_quantile_ns(h, 0.5) / 1e3,
                fakehost_value(&fh, "first_read_seconds", "") * 1e6, took);
        /* a late read pushes the schedule back: fewer, never more */
        CHECK(h->count <= 199 && h->count + late >= 150);
        CHECK(h->count == (uint64_t)fakehost_value(&fh, "reads_total", ""));
        CHECK(fh.progress == h->count + 1);
        CHECK(h->min_ns > 0 && h->max_ns < 2000000000ull);
        CHECK(fakehost_value(&fh, "first_read_seconds", "") > 0);
        CHECK(fakehost_value(&fh, "errors_total", "") == 0);
        /* spaced out, not saturating: the run lasts its duration */
        CHECK(fakehost_find(&fh, "iops", "") == NULL);
        fakehost_done(&fh);

        fakehost_init(&fh); /* warmup=0: every read counts, no first apart */
        CHECK(fakehost_run(&fh, P, PARAMS("size=32M", "rate=100",
                "duration=300ms", "warmup=0")) == 0);
        CHECK(hist(&fh)->count >= 20 && hist(&fh)->count <= 30);
        CHECK(fakehost_find(&fh, "first_read_seconds", "") == NULL);
        fakehost_done(&fh);
}

/* O_DIRECT reads leave the cache alone; the file is the disk plugin's. */
static void test_direct_and_file(void)
{
        struct fakehost fh;
        struct stat a, b;
        fakehost_init(&fh);
        char *file = xprintf("%s/disk-disklat.dat", fh.cache_dir);
        CHECK(fakehost_run(&fh, P, PARAMS("size=16M", "rate=1000",
                "duration=300ms")) == 0);
        CHECK(stat(file, &a) == 0 && a.st_size == 16 << 20);
        size_t direct = fakehost_resident_pages(file);
        fprintf(stderr, "resident pages after direct reads: %zu\n", direct);
        CHECK(direct <= 4); /* at most the O_DIRECT check's own block */
        CHECK(fakehost_run(&fh, P, PARAMS("size=16M", "rate=1000",
                "duration=300ms")) == 0);
        CHECK(stat(file, &b) == 0 && a.st_ino == b.st_ino); /* reused */
        CHECK(fakehost_cleanup(&fh, P, NULL) == 0);
        CHECK(stat(file, &b) < 0 && errno == ENOENT);
        free(file);
        fakehost_done(&fh);
}

static void test_refusals(void)
{
        struct fakehost fh;
        fakehost_init(&fh);
        CHECK(fakehost_run(&fh, P, PARAMS("size=8M", "rate=2",
                "duration=500ms")) == -EINVAL);
        CHECK(strstr(fh.error, "leaves no read after the 1 warm-up"));
        fakehost_done(&fh);
        fakehost_init(&fh);
        CHECK(fakehost_run(&fh, P, PARAMS("size=8M", "block_size=1000")) == -EINVAL);
        CHECK(strstr(fh.error, "not a multiple of 512"));
        fakehost_done(&fh);
        struct stat st;
        if (stat("/dev/shm", &st) == 0) {
                char *path = xprintf("path=/dev/shm/bw-test-disklat-%d.dat",
                                     (int)getpid());
                fakehost_init(&fh);
                CHECK(fakehost_run(&fh, P, PARAMS(path, "size=8M",
                        "duration=100ms")) < 0);
                CHECK(strstr(fh.error, "O_DIRECT not supported on tmpfs"));
                CHECK(access(path + 5, F_OK) < 0); /* not kept */
                fakehost_done(&fh);
                free(path);
        }
        char *e;
        CHECK((e = fakehost_param_error(P, PARAMS("rate=0"))) != NULL);
        free(e);
        fakehost_init(&fh);
        fh.stop = true;
        CHECK(fakehost_run(&fh, P, PARAMS("size=8M", "duration=60s")) == -EINTR);
        fakehost_done(&fh);
}

int main(void)
{
        CHECK(P->concurrency_param == NULL);
        test_schedule();
        test_direct_and_file();
        test_refusals();
        return 0;
}
