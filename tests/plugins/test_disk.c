/* test_disk.c — the disk plugin against the recording fake host.
 *
 * Runs every mode on a small test file in the fake host's cache_dir (on
 * the real local filesystem, with O_DIRECT), and checks that the figures
 * agree with each other (bytes/s = IOPS x block size, one latency sample per
 * I/O), that requests=N does exactly N I/Os, that rate caps IOPS, that
 * O_DIRECT really leaves the page cache untouched and is refused on tmpfs,
 * that the test file is real data, reused, recreated when truncated and
 * removed by cleanup, and that bad inputs fail cleanly: an unaligned block
 * size, a file larger than the free space, an unwritable path, a foreign
 * file, a write mode on a block device. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <dirent.h>

#include "../fakehost.h"

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

static uint64_t count(const struct fakehost *fh, const char *op)
{
        char l[32];
        snprintf(l, sizeof(l), "op=%s", op);
        const struct fake_metric *m = fakehost_find(fh, "latency_seconds", l);
        return m ? m->hist.count : 0;
}

/* Figures of one op agree with each other and with the block size. */
static void check_op(const struct fakehost *fh, const char *op, double bs)
{
        char l[32];
        snprintf(l, sizeof(l), "op=%s", op);
        double iops = fakehost_value(fh, "iops", l);
        CHECK(iops > 0);
        CHECK(fabs(fakehost_value(fh, "bytes_per_second", l) - iops * bs) < 1e-6 * iops * bs);
        CHECK(fakehost_value(fh, "errors_total", l) == 0);
        const struct fake_metric *lat = fakehost_find(fh, "latency_seconds", l);
        CHECK(lat && lat->hist.count > 0 && lat->hist.min_ns > 0);
        CHECK(lat->hist.max_ns < 5000000000ull);
}

static void test_modes(void)
{
        static const char *const modes[] = { "randread", "randwrite", "randrw",
                                             "read", "write" };
        for (int depth = 1; depth <= 4; depth += 3)
                for (size_t i = 0; i < 5; i++) {
                        struct fakehost fh;
                        fakehost_init(&fh);
                        char *m = xprintf("mode=%s", modes[i]);
                        char *d = xprintf("iodepth=%d", depth);
                        fprintf(stderr, "%s %s\n", m, d);
                        CHECK(fakehost_run(&fh, P, PARAMS(m, d, "threads=2",
                                "size=64M", "block_size=4k", "duration=500ms")) == 0);
                        bool r = strstr(modes[i], "read") || !strcmp(modes[i], "randrw");
                        bool w = strstr(modes[i], "write") || !strcmp(modes[i], "randrw");
                        if (r)
                                check_op(&fh, "read", 4096);
                        if (w)
                                check_op(&fh, "write", 4096);
                        CHECK(r == (fakehost_find(&fh, "iops", "op=read") != NULL));
                        CHECK(w == (fakehost_find(&fh, "iops", "op=write") != NULL));
                        CHECK(fh.progress == count(&fh, "read") + count(&fh, "write"));
                        free(m);
                        free(d);
                        fakehost_done(&fh);
                }
}

static void test_rwmix(void)
{
        struct fakehost fh;
        fakehost_init(&fh);
        CHECK(fakehost_run(&fh, P, PARAMS("mode=randrw", "rwmix_read=70",
                "size=64M", "block_size=4k", "requests=4000", "iodepth=8")) == 0);
        double reads = (double)count(&fh, "read"), all = reads + (double)count(&fh, "write");
        CHECK(all == 4000);
        CHECK(fabs(reads / all - 0.70) < 0.04);
        fakehost_done(&fh);
}

static void test_fsync(void)
{
        struct fakehost fh;
        fakehost_init(&fh); /* 2 threads x 100 writes, a sync every 10 */
        CHECK(fakehost_run(&fh, P, PARAMS("mode=randwrite", "fsync=10",
                "threads=2", "iodepth=4", "requests=200", "size=16M",
                "block_size=4k")) == 0);
        CHECK(fakehost_value(&fh, "fsyncs_total", "") == 20);
        CHECK(count(&fh, "write") == 200);
        fakehost_done(&fh);
        fakehost_init(&fh); /* randrw: reads do not count towards a sync */
        CHECK(fakehost_run(&fh, P, PARAMS("mode=randrw", "fsync=1",
                "requests=300", "size=16M", "block_size=4k")) == 0);
        CHECK(fakehost_value(&fh, "fsyncs_total", "") == count(&fh, "write"));
        CHECK(fakehost_find(&fh, "fsyncs_total", "") != NULL);
        fakehost_done(&fh);
        fakehost_init(&fh); /* fsync=0: none inside the measurement */
        CHECK(fakehost_run(&fh, P, PARAMS("mode=write", "requests=100",
                "size=16M", "block_size=4k")) == 0);
        CHECK(fakehost_value(&fh, "fsyncs_total", "") == 0);
        fakehost_done(&fh);
}

static void test_requests_exact(void)
{
        const char *const *cases[] = {
                PARAMS("requests=1001", "threads=3", "iodepth=4"),
                PARAMS("requests=501", "threads=2", "iodepth=1"),
                PARAMS("requests=7", "threads=5", "iodepth=2", "mode=write"),
                PARAMS("requests=333", "threads=1", "iodepth=16", "mode=randrw"),
        };
        const uint64_t want[] = { 1001, 501, 7, 333 };
        for (size_t i = 0; i < 4; i++) {
                struct fakehost fh;
                fakehost_init(&fh);
                const char *ps[8] = { "size=64M", "block_size=4k" };
                for (size_t k = 0; cases[i][k]; k++)
                        ps[2 + k] = cases[i][k];
                CHECK(fakehost_run(&fh, P, ps) == 0);
                CHECK(count(&fh, "read") + count(&fh, "write") == want[i]);
                CHECK(fh.progress == want[i]);
                fakehost_done(&fh);
        }
}

static void test_rate(void)
{
        const char *const *cases[] = {
                PARAMS("rate=400", "threads=2", "iodepth=1"),
                PARAMS("rate=600", "threads=1", "iodepth=8"),
        };
        const double want[] = { 400, 600 };
        for (size_t i = 0; i < 2; i++) {
                struct fakehost fh;
                fakehost_init(&fh);
                const char *ps[8] = { "size=64M", "block_size=4k", "duration=1500ms" };
                for (size_t k = 0; cases[i][k]; k++)
                        ps[3 + k] = cases[i][k];
                CHECK(fakehost_run(&fh, P, ps) == 0);
                double iops = fakehost_value(&fh, "iops", "op=read");
                fprintf(stderr, "rate %g: %g IOPS\n", want[i], iops);
                /* the cap holds; the floor only catches gross
                 * over-throttling (other tenants' I/O can stall the disk) */
                CHECK(iops > want[i] * 0.7 && iops < want[i] * 1.03);
                fakehost_done(&fh);
        }
}

static void test_direct_bypasses_cache(void)
{
        struct fakehost fh;
        fakehost_init(&fh);
        char *path = xprintf("path=%s/d.dat", fh.cache_dir);
        CHECK(fakehost_run(&fh, P, PARAMS(path, "size=64M", "requests=2000",
                "iodepth=4")) == 0);
        /* the run that made the file says where, and how it goes */
        CHECK(fh.logs && strstr(fh.logs, "made the test file") &&
              strstr(fh.logs, "benchwatch cleanup ") && strstr(fh.logs, path));
        size_t direct = fakehost_resident_pages(path + 5);
        CHECK(fakehost_run(&fh, P, PARAMS(path, "size=64M", "requests=2000",
                "iodepth=4", "direct=no")) == 0);
        size_t cached = fakehost_resident_pages(path + 5);
        /* the second reused it and says nothing of it */
        CHECK(!strstr(strstr(fh.logs, "made the test file") + 1, "made the test file"));
        fprintf(stderr, "resident pages: direct %zu, buffered %zu\n", direct, cached);
        CHECK(direct <= 4);   /* at most the check's own block */
        CHECK(cached > 500);  /* 2000 x 16k reads over 16384 pages */
        free(path);
        fakehost_done(&fh);
}

/* A worker that seldom sleeps set the pace itself: cached reads
 * (direct=no) are bounded by the CPU and the report says so; reads paced
 * by rate= wait, and it says nothing. */
static void test_cpu_bound_notice(void)
{
        struct fakehost fh;
        char *path = xprintf("path=%s/bw-cpu-bound-%d.dat", getenv("TMPDIR") ?
                             getenv("TMPDIR") : "/var/tmp", (int)getpid());
        fakehost_init(&fh);
        CHECK(fakehost_run(&fh, P, PARAMS(path, "size=16M", "requests=20000",
                "direct=no")) == 0);
        CHECK(fh.logs && strstr(fh.logs, "its CPU set the pace"));
        fakehost_done(&fh);
        /* queued, it is judged by the time spent in io_getevents, which
         * a CPU taken by others (preempted there) inflates: of three runs
         * on a busy host, one is enough */
        bool said = false;
        for (int k = 0; k < 3 && !said; k++) {
                fakehost_init(&fh);
                CHECK(fakehost_run(&fh, P, PARAMS(path, "size=16M", "requests=20000",
                        "iodepth=8", "direct=no")) == 0);
                said = fh.logs && strstr(fh.logs, "its CPU set the pace");
                fakehost_done(&fh);
        }
        CHECK(said);
        /* paced by rate=: it waits, synchronous or queued */
        for (int q = 0; q < 2; q++) {
                fakehost_init(&fh);
                CHECK(fakehost_run(&fh, P, PARAMS(path, "size=16M", "requests=3000",
                        "rate=5000", "direct=no", q ? "iodepth=8" : "iodepth=1")) == 0);
                CHECK(!fh.logs || !strstr(fh.logs, "its CPU set the pace"));
                fakehost_done(&fh);
        }
        unlink(path + 5);
        free(path);
}

static char *shm_file; /* removed even when a check fails */

static void remove_shm_file(void)
{
        if (shm_file)
                unlink(shm_file);
}

static void test_tmpfs_refused(void)
{
        struct stat st;
        if (stat("/dev/shm", &st) < 0) {
                fprintf(stderr, "no /dev/shm: tmpfs case skipped\n");
                return;
        }
        char *path = xprintf("path=/dev/shm/bw-test-disk-%d.dat", (int)getpid());
        shm_file = path + 5;
        atexit(remove_shm_file);
        struct fakehost fh;
        fakehost_init(&fh);
        CHECK(fakehost_run(&fh, P, PARAMS(path, "size=8M", "requests=20")) < 0);
        CHECK(strstr(fh.error, "O_DIRECT not supported on tmpfs at /dev/shm/"));
        CHECK(strstr(fh.error, "set direct=no"));
        CHECK(access(path + 5, F_OK) < 0 && errno == ENOENT); /* not kept */
        fakehost_done(&fh);
        fakehost_init(&fh);
        CHECK(fakehost_run(&fh, P, PARAMS(path, "size=8M", "requests=20",
                "direct=no")) == 0);
        CHECK(count(&fh, "read") == 20);
        CHECK(fakehost_cleanup(&fh, P, PARAMS(path)) == 0);
        CHECK(access(path + 5, F_OK) < 0 && errno == ENOENT);
        fakehost_done(&fh);
        shm_file = NULL;
        free(path);
}

static unsigned dio_align(const char *dir)
{
        char *f = xprintf("%s/align", dir);
        int fd = open(f, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
        struct statx sx = { 0 };
        CHECK(fd >= 0 && statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0);
        close(fd);
        unlink(f);
        free(f);
        return sx.stx_mask & STATX_DIOALIGN ? sx.stx_dio_offset_align : 4096;
}

static void test_alignment(void)
{
        struct fakehost fh;
        fakehost_init(&fh);
        CHECK(fakehost_run(&fh, P, PARAMS("block_size=1000", "size=8M")) < 0);
        CHECK(strstr(fh.error, "not a multiple of 512"));
        fakehost_done(&fh);
        fakehost_init(&fh); /* a buffered run has no alignment rule */
        CHECK(fakehost_run(&fh, P, PARAMS("block_size=1000", "size=8M",
                "direct=no", "requests=100")) == 0);
        CHECK(count(&fh, "read") == 100);
        fakehost_done(&fh);
        fakehost_init(&fh);
        unsigned a = dio_align(fh.cache_dir);
        int r = fakehost_run(&fh, P, PARAMS("block_size=1536", "size=8M",
                "requests=100"));
        fprintf(stderr, "direct I/O alignment %u: block_size=1536 -> %d\n", a, r);
        if (1536 % a == 0)
                CHECK(r == 0 && count(&fh, "read") == 100);
        else
                CHECK(r < 0 && strstr(fh.error, "direct I/O block size"));
        fakehost_done(&fh);
}

static void test_file_lifecycle(void)
{
        struct fakehost fh;
        struct stat a, b;
        char mark[80];
        fakehost_init(&fh);
        char *file = xprintf("%s/disk-disk.dat", fh.cache_dir); /* the default */
        CHECK(fakehost_run(&fh, P, PARAMS("size=16M", "requests=10")) == 0);
        CHECK(stat(file, &a) == 0 && a.st_size == 16 << 20);
        CHECK((uint64_t)a.st_blocks * 512 >= 16u << 20); /* not sparse */
        CHECK(getxattr(file, "user.benchwatch", mark, sizeof(mark)) > 0);
        int fd = open(file, O_RDONLY | O_CLOEXEC);
        uint64_t blk[512];
        CHECK(pread(fd, blk, sizeof(blk), 9 << 20) == sizeof(blk));
        close(fd);
        for (size_t i = 0; i < 512; i++)
                CHECK(blk[i] != 0);
        CHECK(fakehost_run(&fh, P, PARAMS("size=16M", "requests=10")) == 0);
        CHECK(stat(file, &b) == 0 && a.st_ino == b.st_ino &&
              a.st_mtim.tv_nsec == b.st_mtim.tv_nsec); /* reused */
        CHECK(truncate(file, 1 << 20) == 0);
        CHECK(fakehost_run(&fh, P, PARAMS("size=16M", "requests=10")) == 0);
        CHECK(stat(file, &b) == 0 && b.st_size == 16 << 20); /* recreated */
        CHECK(fakehost_run(&fh, P, PARAMS("size=8M", "requests=10")) == 0);
        CHECK(stat(file, &b) == 0 && b.st_size == 8 << 20); /* new size */
        CHECK(fakehost_cleanup(&fh, P, NULL) == 0);
        CHECK(stat(file, &b) < 0 && errno == ENOENT);
        CHECK(fakehost_cleanup(&fh, P, NULL) == 0); /* nothing to remove */
        CHECK(fh.error == NULL);
        free(file);
        fakehost_done(&fh);
}

static size_t dir_entries(const char *dir)
{
        DIR *d = opendir(dir);
        struct dirent *e;
        size_t n = 0;
        CHECK(d);
        while ((e = readdir(d)))
                n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
        closedir(d);
        return n;
}

static void test_bad_inputs(void)
{
        struct fakehost fh;
        fakehost_init(&fh); /* larger than the free space: nothing left */
        CHECK(fakehost_run(&fh, P, PARAMS("size=900T")) == -ENOSPC);
        CHECK(strstr(fh.error, "not enough free space"));
        CHECK(dir_entries(fh.cache_dir) == 0);
        fakehost_done(&fh);

        fakehost_init(&fh); /* a kernel filesystem: says so, not "no space" */
        CHECK(fakehost_run(&fh, P, PARAMS("path=/proc/bw-test/disk.dat",
                "size=8M")) == -EINVAL);
        CHECK(strstr(fh.error, "'/proc/bw-test/disk.dat' is on proc, a virtual filesystem"));
        fakehost_done(&fh);
        fakehost_init(&fh);
        CHECK(fakehost_run(&fh, P, PARAMS("path=/sys/bw.dat", "size=8M")) == -EINVAL);
        CHECK(strstr(fh.error, "is on sysfs") && !strstr(fh.error, "free space"));
        fakehost_done(&fh);

        fakehost_init(&fh); /* a file benchwatch did not create */
        char *path = xprintf("path=%s/foreign.dat", fh.cache_dir);
        FILE *f = fopen(path + 5, "w");
        CHECK(f && fputs("precious data\n", f) >= 0 && fclose(f) == 0);
        CHECK(fakehost_run(&fh, P, PARAMS(path, "size=8M", "mode=randwrite")) == -EEXIST);
        CHECK(strstr(fh.error, "not created by benchwatch"));
        CHECK(fakehost_cleanup(&fh, P, PARAMS(path)) == 0);
        struct stat st;
        CHECK(stat(path + 5, &st) == 0 && st.st_size == 14); /* untouched */
        free(path);
        fakehost_done(&fh);

        fakehost_init(&fh); /* a link to a test file: runs follow it, so does cleanup */
        char *real = xprintf("path=%s/real.dat", fh.cache_dir);
        char *link = xprintf("path=%s/link.dat", fh.cache_dir);
        CHECK(fakehost_run(&fh, P, PARAMS(real, "size=8M", "requests=10")) == 0);
        CHECK(symlink(real + 5, link + 5) == 0);
        CHECK(fakehost_run(&fh, P, PARAMS(link, "size=8M", "requests=10")) == 0);
        CHECK(fakehost_cleanup(&fh, P, PARAMS(link)) == 0 && !fh.error);
        CHECK(stat(real + 5, &st) < 0 && errno == ENOENT);  /* the file went */
        CHECK(lstat(link + 5, &st) == 0 && S_ISLNK(st.st_mode)); /* the link stays */
        CHECK(unlink(link + 5) == 0);
        free(real);
        free(link);
        fakehost_done(&fh);

        fakehost_init(&fh); /* a write mode on a block device */
        path = xprintf("path=%s/blockdev", fh.cache_dir);
        if (mknod(path + 5, S_IFBLK | 0600, makedev(7, 250)) == 0) {
                CHECK(fakehost_run(&fh, P, PARAMS(path, "mode=randrw")) == -EPERM);
                CHECK(strstr(fh.error, "never writes to a device"));
        } else
                fprintf(stderr, "mknod: %s: device case skipped\n", strerror(errno));
        free(path);
        fakehost_done(&fh);

        char *e;
        CHECK((e = fakehost_param_error(P, PARAMS("mode=randomread"))) != NULL);
        free(e);
        CHECK((e = fakehost_param_error(P, PARAMS("iodepth=0"))) != NULL);
        free(e);
        CHECK((e = fakehost_param_error(P, PARAMS("block_size=100"))) != NULL);
        free(e);
}

static void test_stop(void)
{
        struct fakehost fh;
        fakehost_init(&fh);
        fh.stop = true;
        CHECK(fakehost_run(&fh, P, PARAMS("size=8M", "duration=60s",
                "iodepth=4", "threads=2")) == -EINTR);
        fakehost_done(&fh);
}

int main(void)
{
        CHECK(!strcmp(P->concurrency_param, "threads"));
        CHECK(!strcmp(P->throughput_metric, "iops"));
        test_modes();
        test_rwmix();
        test_requests_exact();
        test_fsync();
        test_rate();
        test_direct_bypasses_cache();
        test_cpu_bound_notice();
        test_tmpfs_refused();
        test_alignment();
        test_file_lifecycle();
        test_bad_inputs();
        test_stop();
        fprintf(stderr, "test_disk: all passed\n");
        return 0;
}
