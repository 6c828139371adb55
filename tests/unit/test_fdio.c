/* test_fdio.c — whole reads and writes: everything written through a pipe
 * comes out, a read past its bound is refused (-EFBIG), a whole file is
 * read as it is and NUL-terminated, a directory or a device is no file
 * (-EISDIR, -EINVAL), a small read keeps size - 1 bytes, and a sysfs
 * attribute loses its line end. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "util/fdio.h"

#define BIG (256 * 1024) /* more than a pipe holds: the writer must loop */

struct pipe_end {
        int fd;
        int r; /* what the write returned */
};

static void *writer(void *arg)
{
        struct pipe_end *w = arg;
        uint8_t *buf = malloc(BIG);
        CHECK(buf);
        for (size_t i = 0; i < BIG; i++)
                buf[i] = (uint8_t)(i * 7 + 1);
        w->r = fdio_write_all(w->fd, buf, BIG);
        close(w->fd);
        free(buf);
        return NULL;
}

static void test_pipe(void)
{
        int fds[2];
        pthread_t t;
        uint8_t *got = NULL;
        size_t n = 0;
        struct pipe_end w;
        CHECK(pipe2(fds, O_CLOEXEC) == 0);
        w = (struct pipe_end){ .fd = fds[1] };
        CHECK(pthread_create(&t, NULL, writer, &w) == 0);
        CHECK(fdio_read_all(fds[0], 1 << 20, &got, &n) == 0);
        pthread_join(t, NULL);
        close(fds[0]);
        EXPECT(w.r == 0 && n == BIG);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
                bad += got[i] != (uint8_t)(i * 7 + 1);
        EXPECT(bad == 0);
        free(got);

        /* a bound smaller than what comes: refused, nothing handed out */
        CHECK(pipe2(fds, O_CLOEXEC) == 0);
        w = (struct pipe_end){ .fd = fds[1] };
        CHECK(pthread_create(&t, NULL, writer, &w) == 0);
        got = (uint8_t *)"untouched";
        EXPECT(fdio_read_all(fds[0], 16384, &got, &n) == -EFBIG);
        EXPECT(!strcmp((char *)got, "untouched"));
        close(fds[0]);
        pthread_join(t, NULL);
        EXPECT(w.r == -EPIPE); /* the writer is told, not killed */
}

static void put(const char *path, const char *text)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(fd >= 0 && fdio_write_all(fd, text, strlen(text)) == 0);
        close(fd);
}

static void test_files(const char *dir)
{
        char path[256], small[8], attr[32];
        char *text = NULL;
        size_t len = 0;
        struct stat st;
        snprintf(path, sizeof(path), "%s/f", dir);
        put(path, "line one\nline two \n");
        CHECK(fdio_read_file(path, 100, &text, &len, &st) == 0);
        EXPECT(len == 19 && !strcmp(text, "line one\nline two \n") && st.st_size == 19);
        free(text);
        EXPECT(fdio_read_file(path, 18, &text, &len, NULL) == -EFBIG);
        EXPECT(fdio_read_file(dir, 100, &text, &len, NULL) == -EISDIR);
        EXPECT(fdio_read_file("/dev/null", 100, &text, &len, NULL) == -EINVAL);
        snprintf(path, sizeof(path), "%s/none", dir);
        EXPECT(fdio_read_file(path, 100, &text, &len, NULL) == -ENOENT);
        EXPECT(fdio_read_small(path, small, sizeof(small)) == -ENOENT);
        EXPECT(fdio_read_proc(path, 100, &text) == -ENOENT);

        /* the start of a file, NUL-terminated within the buffer */
        snprintf(path, sizeof(path), "%s/f", dir);
        CHECK(fdio_read_small(path, small, sizeof(small)) == 0);
        EXPECT(!strcmp(small, "line on"));
        /* a kernel file whole: /proc says it has no size */
        CHECK(fdio_read_proc(path, 100, &text) == 0);
        EXPECT(!strcmp(text, "line one\nline two \n"));
        free(text);
        EXPECT(fdio_read_proc(path, 18, &text) == -EFBIG);
        char *many = malloc(70001); /* 1000 lines, beyond any first buffer */
        CHECK(many);
        for (int i = 0; i < 1000; i++)
                snprintf(many + 70 * i, 71, "%69d\n", i);
        snprintf(path, sizeof(path), "%s/many", dir);
        put(path, many);
        CHECK(fdio_read_proc(path, 1 << 20, &text) == 0);
        EXPECT(!strcmp(text, many));
        free(text);
        free(many);
        unlink(path);
        snprintf(path, sizeof(path), "%s/f", dir);
        CHECK(fdio_read_proc("/proc/self/stat", 1 << 20, &text) == 0);
        EXPECT(strlen(text) > 20 && strchr(text, ')'));
        free(text);
        /* an attribute: its trailing blanks and line end go */
        EXPECT(fdio_read_sysfs(dir, "f", attr, sizeof(attr)) == 0 &&
               !strcmp(attr, "line one\nline two"));
        snprintf(path, sizeof(path), "%s/empty", dir);
        put(path, "");
        EXPECT(fdio_read_sysfs(dir, "empty", attr, sizeof(attr)) == 0 && !*attr);
        EXPECT(fdio_read_file(path, 100, &text, &len, NULL) == 0 && len == 0 && !*text);
        free(text);
        char longname[5000];
        memset(longname, 'a', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = 0;
        EXPECT(fdio_read_sysfs(dir, longname, attr, sizeof(attr)) == -ENAMETOOLONG);
        unlink(path);
        snprintf(path, sizeof(path), "%s/f", dir);
        unlink(path);
}

int main(void)
{
        char dir[] = "/tmp/test_fdio.XXXXXX";
        CHECK(mkdtemp(dir));
        signal(SIGPIPE, SIG_IGN); /* a reader that gives up: EPIPE, not death */
        test_pipe();
        test_files(dir);
        EXPECT(rmdir(dir) == 0);
        if (!test_failures)
                printf("test_fdio: ok\n");
        return test_failures != 0;
}
