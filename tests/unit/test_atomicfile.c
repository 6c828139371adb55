/* test_atomicfile.c — a file replaced whole: the new content and mode are
 * there, no temporary file is left, a failed write leaves the old file as
 * it was, and the temporary files an interrupted write left (NAME.tmp-
 * and six characters) are removed at start, nothing else. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "util/atomicfile.h"
#include "util/fdio.h"

static int entries(const char *dir)
{
        int n = 0;
        DIR *d = opendir(dir);
        for (struct dirent *e; d && (e = readdir(d));)
                n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
        if (d)
                closedir(d);
        return n;
}

static void put(const char *path, const char *text)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(fd >= 0 && fdio_write_all(fd, text, strlen(text)) == 0);
        close(fd);
}

int main(void)
{
        char dir[] = "/tmp/test_atomicfile.XXXXXX";
        char path[256], buf[64];
        struct stat st;
        CHECK(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/state.txt", dir);

        CHECK(atomicfile_write(dir, path, "first\n", 6, 0640) == 0);
        EXPECT(fdio_read_small(path, buf, sizeof(buf)) == 0 && !strcmp(buf, "first\n"));
        EXPECT(stat(path, &st) == 0 && (st.st_mode & 07777) == 0640);
        CHECK(atomicfile_write(dir, path, "second", 6, 0644) == 0);
        EXPECT(fdio_read_small(path, buf, sizeof(buf)) == 0 && !strcmp(buf, "second"));
        EXPECT(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644);
        EXPECT(entries(dir) == 1); /* no temporary file left */

        /* a write that cannot happen (its directory is gone) leaves no file */
        char gone[300];
        snprintf(gone, sizeof(gone), "%s/sub/x.txt", dir);
        EXPECT(atomicfile_write(dir, gone, "x", 1, 0644) == -ENOENT);
        EXPECT(entries(dir) == 1);
        EXPECT(fdio_read_small(path, buf, sizeof(buf)) == 0 && !strcmp(buf, "second"));

        /* what an interrupted write left: removed; look-alikes stay */
        char tmp[300], other[300], short_one[300];
        snprintf(tmp, sizeof(tmp), "%s.tmp-a1B2c3", path);
        snprintf(other, sizeof(other), "%s/notes.tmp", dir);
        snprintf(short_one, sizeof(short_one), "%s/x.tmp-", dir);
        put(tmp, "half");
        put(other, "keep");
        put(short_one, "keep");
        EXPECT(atomicfile_remove_temps(dir) == 1);
        EXPECT(access(tmp, F_OK) < 0 && access(other, F_OK) == 0 &&
               access(short_one, F_OK) == 0);
        EXPECT(atomicfile_remove_temps(dir) == 0);
        char missing[300];
        snprintf(missing, sizeof(missing), "%s/none", dir);
        EXPECT(atomicfile_remove_temps(missing) == 0); /* nothing to clean */
        EXPECT(atomicfile_fsync_dir(dir) == 0);
        EXPECT(atomicfile_fsync_dir(missing) == -ENOENT);

        unlink(path);
        unlink(other);
        unlink(short_one);
        EXPECT(rmdir(dir) == 0);
        if (!test_failures)
                printf("test_atomicfile: ok\n");
        return test_failures != 0;
}
