/* test_seqread.c — the seqread plugin (hdparm -Tt) against the fake host.
 *
 * Runs on a small test file in the fake host's cache_dir and checks both
 * figures exist and relate as they must: re-reading 2 MiB that sit in the
 * page cache is faster than reading the file after its pages were dropped,
 * which must be no faster than the file could possibly be read (bounded
 * by size / time); that the disk phase stops at the end of the file as
 * hdparm's does, after hdparm's settling pauses (1 s + 4 s, left out with
 * settle=no); that the file is made and removed like the disk plugin's,
 * and a foreign file is refused. */
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

static void test_figures(void)
{
        struct fakehost fh, made;
        char *path;
        fakehost_init(&made); /* creates the file, kept for the timed run */
        CHECK(asprintf(&path, "path=%s/seq.dat", made.cache_dir) > 0);
        CHECK(fakehost_run(&made, P, PARAMS(path, "size=64M", "settle=no",
                "cache_duration=100ms", "disk_duration=100ms")) == 0);
        fakehost_init(&fh);
        double t0 = now_mono();
        CHECK(fakehost_run(&fh, P, PARAMS(path, "size=64M",
                "cache_duration=400ms", "disk_duration=5s")) == 0);
        double took = now_mono() - t0;
        double cache = fakehost_value(&fh, "bytes_per_second", "source=cache");
        double disk = fakehost_value(&fh, "bytes_per_second", "source=disk");
        fprintf(stderr, "cache %.0f MiB/s, disk %.0f MiB/s, run %.2f s\n",
                cache / 1048576, disk / 1048576, took);
        CHECK(cache > disk && disk > 0);
        CHECK(cache > 200e6); /* memory copies, on any machine we run on */
        /* hdparm's pauses, 1 s and 4 s; the disk phase ends at the end of
         * the 64 MiB file, long before 5 s unless the disk is slower than
         * ~15 MiB/s */
        CHECK(took < 5.0 + 0.4 + 64.0 * 1048576 / disk + 1.0);
        CHECK(took >= 5.0 + 0.4);
        fakehost_done(&fh);
        fakehost_done(&made);
        free(path);
}

static void test_file(void)
{
        struct fakehost fh;
        struct stat st;
        fakehost_init(&fh);
        char *file, *foreign;
        CHECK(asprintf(&file, "%s/seqread-seqread.dat", fh.cache_dir) > 0);
        CHECK(fakehost_run(&fh, P, PARAMS("size=4M", "cache_duration=50ms",
                "disk_duration=50ms", "settle=no")) == 0);
        CHECK(stat(file, &st) == 0 && st.st_size == 4 << 20);
        CHECK(fakehost_cleanup(&fh, P, NULL) == 0);
        CHECK(stat(file, &st) < 0 && errno == ENOENT);
        CHECK(asprintf(&foreign, "path=%s/mine.img", fh.cache_dir) > 0);
        FILE *f = fopen(foreign + 5, "w");
        CHECK(f && fclose(f) == 0);
        CHECK(fakehost_run(&fh, P, PARAMS(foreign)) == -EEXIST);
        CHECK(strstr(fh.error, "not created by benchwatch"));
        free(file);
        free(foreign);
        fakehost_done(&fh);
        fakehost_init(&fh); /* a kernel filesystem: says so, not "no space" */
        CHECK(fakehost_run(&fh, P, PARAMS("path=/proc/bw.img")) == -EINVAL);
        CHECK(strstr(fh.error, "'/proc/bw.img' is on proc, a virtual filesystem"));
        fakehost_done(&fh);
}

int main(void)
{
        CHECK(P->concurrency_param == NULL);
        test_figures();
        test_file();
        fprintf(stderr, "test_seqread: all passed\n");
        return 0;
}
