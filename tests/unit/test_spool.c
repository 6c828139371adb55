/* test_spool.c — the remote-write spool: runs come back oldest first,
 * also after a reopen (a daemon restart); the byte bound drops the oldest
 * and counts them; a run larger than the bound is dropped alone; files
 * are private; a temporary file a crash left behind is removed and
 * foreign files are left alone; a spool in memory behaves the same; a run
 * that could not be written is kept in memory and written by the next add
 * that can (until then a kill -9 would lose it), or by the last chance a
 * stop or a reload gives it (spool_persist), or handed to a reload's
 * new spool (spool_add_held). */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "sink/spool.h"

static char *pop_str(struct spool *s)
{
        uint8_t *d;
        size_t n;
        char *str;

        if (spool_peek(s, &d, &n) < 0)
                return NULL;
        str = strndup((char *)d, n);
        free(d);
        assert(spool_pop(s) == 0);
        return str;
}

static uint64_t dir_bytes(const char *dir, size_t *ret_files)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        uint64_t sum = 0;
        char p[4096];
        struct stat st;

        *ret_files = 0;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
                assert(stat(p, &st) == 0);
                sum += (uint64_t)st.st_size;
                (*ret_files)++;
        }
        closedir(d);
        return sum;
}

int main(void)
{
        char tmpl[] = "/tmp/test_spool.XXXXXX", dir[64], p[128];
        struct spool *s;
        size_t dropped, files;
        struct stat st;
        char *x;

        assert(mkdtemp(tmpl));
        snprintf(dir, sizeof(dir), "%s/spool", tmpl);
        CHECK(spool_open(dir, 100, &s) == 0);
        CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
        for (int i = 0; i < 5; i++) {
                char run[32];
                snprintf(run, sizeof(run), "run-%d-xxxxxx", i); /* 12 bytes */
                EXPECT(spool_add(s, run, strlen(run), &dropped) == 0 && dropped == 0);
        }
        EXPECT(spool_count(s) == 5 && spool_bytes(s) == 60);
        x = pop_str(s);
        EXPECT(x && !strcmp(x, "run-0-xxxxxx"));
        free(x);
        spool_free(s);

        /* a restart: same order; a crash's temporary file goes */
        snprintf(p, sizeof(p), "%s/00000000000000000009.rw.tmp-abcdef", dir);
        close(open(p, O_CREAT | O_WRONLY, 0600));
        snprintf(p, sizeof(p), "%s/README", dir);
        close(open(p, O_CREAT | O_WRONLY, 0600));
        CHECK(spool_open(dir, 50, &s) == 0);
        EXPECT(spool_count(s) == 4);
        EXPECT(spool_trim(s) == 0 && spool_count(s) == 4); /* 48 bytes fit in 50 */
        snprintf(p, sizeof(p), "%s/00000000000000000009.rw.tmp-abcdef", dir);
        EXPECT(access(p, F_OK) < 0);
        snprintf(p, sizeof(p), "%s/README", dir);
        EXPECT(access(p, F_OK) == 0);
        unlink(p);
        spool_free(s);

        CHECK(spool_open(dir, 30, &s) == 0);
        EXPECT(spool_trim(s) == 2 && spool_bytes(s) == 24); /* a smaller bound */
        EXPECT(spool_add(s, "new-run-xxxx", 12, &dropped) == 0 && dropped == 1);
        EXPECT(spool_bytes(s) == 24 && spool_count(s) == 2);
        EXPECT(dir_bytes(dir, &files) <= 30 && files == spool_count(s));
        EXPECT(spool_add(s, "far-too-large-for-a-30-byte-spool", 33, &dropped) == 0 &&
               dropped == 1);
        x = pop_str(s);
        EXPECT(x && !strcmp(x, "run-4-xxxxxx"));
        free(x);
        x = pop_str(s);
        EXPECT(x && !strcmp(x, "new-run-xxxx"));
        free(x);
        EXPECT(spool_peek(s, (uint8_t **)&x, &files) == -ENOENT);
        EXPECT(dir_bytes(dir, &files) == 0 && files == 0);
        spool_free(s);

        /* a spool in memory: same order and bound, no files */
        CHECK(spool_open_memory(30, &s) == 0);
        EXPECT(spool_add(s, "mem-run-1xxx", 12, &dropped) == 0 && dropped == 0);
        EXPECT(spool_add(s, "mem-run-2xxx", 12, &dropped) == 0 && dropped == 0);
        EXPECT(spool_add(s, "mem-run-3xxx", 12, &dropped) == 0 && dropped == 1);
        x = pop_str(s);
        EXPECT(x && !strcmp(x, "mem-run-2xxx"));
        free(x);
        spool_free(s);
        EXPECT(dir_bytes(dir, &files) == 0 && files == 0);

        /* the directory unusable (a file where it was: root cannot write
         * there either): runs kept in memory, on disk once it is back */
        snprintf(p, sizeof(p), "%s.away", dir);
        CHECK(spool_open(dir, 100, &s) == 0);
        CHECK(rename(dir, p) == 0);
        close(open(dir, O_CREAT | O_WRONLY, 0600));
        EXPECT(spool_add(s, "kept-run-1xx", 12, &dropped) < 0 && spool_count(s) == 1);
        EXPECT(spool_add(s, "kept-run-2xx", 12, &dropped) < 0 && spool_count(s) == 2);
        EXPECT(spool_persist(s) == 2); /* the disk takes them not yet */
        {
                /* a reload to a spool that can: it takes them, after its own */
                char dir2[80];
                struct spool *s2;

                snprintf(dir2, sizeof(dir2), "%s/spool2", tmpl);
                CHECK(spool_open(dir2, 30, &s2) == 0);
                EXPECT(spool_add(s2, "its-own-run", 11, &dropped) == 0);
                EXPECT(spool_add_held(s2, s, &dropped) == 2 && dropped == 1);
                EXPECT(spool_count(s2) == 2 && spool_persist(s2) == 0);
                EXPECT(dir_bytes(dir2, &files) == 24 && files == 2);
                x = pop_str(s2); /* the bound of 30 bytes dropped its own */
                EXPECT(x && !strcmp(x, "kept-run-1xx"));
                free(x);
                x = pop_str(s2);
                EXPECT(x && !strcmp(x, "kept-run-2xx"));
                free(x);
                spool_free(s2);
                rmdir(dir2);
                EXPECT(spool_count(s) == 2); /* src is left as it was */
        }
        unlink(dir);
        CHECK(rename(p, dir) == 0);
        EXPECT(spool_persist(s) == 0 && spool_count(s) == 2); /* a stop's last chance */
        EXPECT(dir_bytes(dir, &files) == 24 && files == 2);
        EXPECT(spool_add(s, "disk-run-3xx", 12, &dropped) == 0 && spool_count(s) == 3);
        EXPECT(dir_bytes(dir, &files) == 36 && files == 3);
        spool_free(s);
        CHECK(spool_open(dir, 100, &s) == 0); /* a restart finds all three */
        x = pop_str(s);
        EXPECT(x && !strcmp(x, "kept-run-1xx"));
        free(x);
        x = pop_str(s);
        EXPECT(x && !strcmp(x, "kept-run-2xx"));
        free(x);
        x = pop_str(s);
        EXPECT(x && !strcmp(x, "disk-run-3xx"));
        free(x);
        spool_free(s);

        EXPECT(spool_check_dir(dir) == 0);
        chmod(dir, 0500);
        if (geteuid() != 0) /* root writes anyway */
                EXPECT(spool_check_dir(dir) == -EACCES);
        chmod(dir, 0700);
        EXPECT(spool_check_dir("/nonexistent/dir") == -ENOENT);
        rmdir(dir);
        rmdir(tmpl);
        if (test_failures)
                fprintf(stderr, "%u check(s) failed\n", test_failures);
        return test_failures ? 1 : 0;
}
