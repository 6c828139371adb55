/* slowdisk.c — a disk that gets slower on demand, for tests and benches.
 *
 * The failure a dying disk shows first is not fewer IOPS but each request
 * taking longer, and a test of the detector needs that failure for real,
 * on a block device, where the host has no device mapper (dm-delay).  This
 * is a FUSE file system (libfuse3) of two files: `disk`, whose reads and
 * writes pass to a backing file after a delay, and `delay_us`, the delay
 * per request in microseconds, which can be read and written while the
 * file system is mounted (`echo 2000 > MNT/delay_us`).  Both are opened
 * with direct_io, so every read reaches this process and no page cache
 * hides the delay; a loop device over MNT/disk (losetup --direct-io=on)
 * gives a block device whose every read is that much slower.
 *
 * Usage: slowdisk BACKING_FILE MOUNTPOINT [--delay-us=N] [fuse options]
 * (run it with -f to keep it in the foreground; unmount with
 * fusermount3 -u MOUNTPOINT). */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int backing_fd = -1;
static off_t backing_size;
static _Atomic uint64_t delay_us;

#define DISK_NAME "disk"
#define CTL_NAME "delay_us"
#define DISK "/" DISK_NAME
#define CTL "/" CTL_NAME
#define MAX_DELAY_US 10000000u /* 10 s */

static int parse_us(const char *s, uint64_t *ret)
{
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        while (*end == '\n' || *end == ' ')
                end++;
        if (errno || end == s || *end || v > MAX_DELAY_US || *s == '-')
                return -EINVAL;
        *ret = v;
        return 0;
}

static void delay(void)
{
        uint64_t us = atomic_load(&delay_us);
        if (!us)
                return;
        struct timespec ts = { (time_t)(us / 1000000u),
                               (long)(us % 1000000u) * 1000 };
        while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
                ;
}

static int sd_getattr(const char *path, struct stat *st,
                      struct fuse_file_info *fi)
{
        (void)fi;
        memset(st, 0, sizeof(*st));
        st->st_uid = getuid();
        st->st_gid = getgid();
        if (!strcmp(path, "/")) {
                st->st_mode = S_IFDIR | 0755;
                st->st_nlink = 2;
        } else if (!strcmp(path, DISK)) {
                st->st_mode = S_IFREG | 0644;
                st->st_nlink = 1;
                st->st_size = backing_size;
                st->st_blksize = 4096;
                st->st_blocks = backing_size / 512;
        } else if (!strcmp(path, CTL)) {
                st->st_mode = S_IFREG | 0644;
                st->st_nlink = 1;
                st->st_size = 0; /* direct_io: read returns what there is */
        } else
                return -ENOENT;
        return 0;
}

static int sd_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
                      off_t off, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags)
{
        (void)off;
        (void)fi;
        (void)flags;
        if (strcmp(path, "/"))
                return -ENOENT;
        fill(buf, ".", NULL, 0, 0);
        fill(buf, "..", NULL, 0, 0);
        fill(buf, DISK_NAME, NULL, 0, 0);
        fill(buf, CTL_NAME, NULL, 0, 0);
        return 0;
}

static int sd_open(const char *path, struct fuse_file_info *fi)
{
        if (strcmp(path, DISK) && strcmp(path, CTL))
                return -ENOENT;
        fi->direct_io = 1; /* every read and write comes here */
        fi->keep_cache = 0;
        return 0;
}

static int sd_read(const char *path, char *buf, size_t size, off_t off,
                   struct fuse_file_info *fi)
{
        (void)fi;
        if (!strcmp(path, CTL)) {
                char text[32];
                int n = snprintf(text, sizeof(text), "%" PRIu64 "\n",
                                 atomic_load(&delay_us));
                if (off >= n)
                        return 0;
                size_t len = (size_t)(n - off) < size ? (size_t)(n - off) : size;
                memcpy(buf, text + off, len);
                return (int)len;
        }
        delay();
        ssize_t r = pread(backing_fd, buf, size, off);
        return r < 0 ? -errno : (int)r;
}

static int sd_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
        (void)fi;
        if (!strcmp(path, CTL)) {
                char text[32];
                uint64_t us;
                if (off != 0 || size >= sizeof(text))
                        return -EINVAL;
                memcpy(text, buf, size);
                text[size] = '\0';
                if (parse_us(text, &us) < 0)
                        return -EINVAL;
                atomic_store(&delay_us, us);
                return (int)size;
        }
        if (off + (off_t)size > backing_size)
                return -ENOSPC;
        delay();
        ssize_t r = pwrite(backing_fd, buf, size, off);
        return r < 0 ? -errno : (int)r;
}

static int sd_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
        (void)fi;
        (void)size;
        return strcmp(path, CTL) ? -EPERM : 0; /* `echo N > delay_us` */
}

static int sd_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
        (void)fi;
        if (strcmp(path, DISK))
                return 0;
        return (datasync ? fdatasync(backing_fd) : fsync(backing_fd)) < 0 ? -errno : 0;
}

static const struct fuse_operations ops = {
        .getattr = sd_getattr,
        .readdir = sd_readdir,
        .open = sd_open,
        .read = sd_read,
        .write = sd_write,
        .truncate = sd_truncate,
        .fsync = sd_fsync,
};

int main(int argc, char **argv)
{
        if (argc < 3) {
                fprintf(stderr, "usage: %s BACKING_FILE MOUNTPOINT [--delay-us=N] "
                        "[fuse options]\n", argv[0]);
                return 2;
        }
        backing_fd = open(argv[1], O_RDWR | O_CLOEXEC);
        struct stat st;
        if (backing_fd < 0 || fstat(backing_fd, &st) < 0) {
                fprintf(stderr, "slowdisk: cannot open '%s': %s\n", argv[1],
                        strerror(errno));
                return 1;
        }
        backing_size = st.st_size;
        /* argv for fuse: program, mountpoint, then the rest but our own */
        char **fargv = calloc((size_t)argc + 1, sizeof(*fargv));
        int fargc = 0;
        if (!fargv)
                return 1;
        fargv[fargc++] = argv[0];
        fargv[fargc++] = argv[2];
        for (int i = 3; i < argc; i++) {
                uint64_t us;
                if (!strncmp(argv[i], "--delay-us=", 11)) {
                        if (parse_us(argv[i] + 11, &us) < 0) {
                                fprintf(stderr, "slowdisk: bad delay '%s' "
                                        "(microseconds, at most %u)\n",
                                        argv[i] + 11, MAX_DELAY_US);
                                return 2;
                        }
                        atomic_store(&delay_us, us);
                } else
                        fargv[fargc++] = argv[i];
        }
        int r = fuse_main(fargc, fargv, &ops, NULL);
        free(fargv);
        close(backing_fd);
        return r;
}
