/* testfile.c — see testfile.h for why the test file is made this way. */
#include "testfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <syslog.h>
#include <unistd.h>

#include "blockdev.h"
#include "sbrand.h"
#include "util/strutil.h"
#include "util/timeutil.h"

#define CHUNK (1u << 20)
#define MARK_PREFIX "benchwatch test file v1 size="

static void closep(int *fd)
{
        if (*fd >= 0)
                close(*fd);
}
#define _cleanup_close_ __attribute__((cleanup(closep)))

static void freep(void *p)
{
        free(*(void **)p);
}
#define _cleanup_free_ __attribute__((cleanup(freep)))

/* `path` if non-empty, else "<cache_dir>/<prefix>-<probe>.dat". */
static int testfile_path(const struct bw_run *run, const char *prefix,
                         const char *path, char **ret)
{
        char *p = path && *path ? strdup(path)
                : str_printf("%s/%s-%s.dat", run->cache_dir, prefix, run->probe);
        if (!p)
                return -ENOMEM;
        *ret = p;
        return 0;
}

/* Name of the filesystem holding fd ("ext4", "tmpfs", or its magic). */
static void testfile_fs_name(int fd, char *buf, unsigned size)
{
        static const struct { long magic; const char *name; } fs[] = {
                { EXT4_SUPER_MAGIC, "ext4" }, { XFS_SUPER_MAGIC, "xfs" },
                { BTRFS_SUPER_MAGIC, "btrfs" }, { TMPFS_MAGIC, "tmpfs" },
                { RAMFS_MAGIC, "ramfs" }, { OVERLAYFS_SUPER_MAGIC, "overlayfs" },
                { NFS_SUPER_MAGIC, "nfs" }, { 0x2fc12fc1, "zfs" },
                { 0x65735546, "fuse" }, { F2FS_SUPER_MAGIC, "f2fs" },
                { BDEVFS_MAGIC, "bdev" },
        };
        struct statfs sf;
        if (fstatfs(fd, &sf) < 0) {
                snprintf(buf, size, "an unknown filesystem");
                return;
        }
        for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
                if ((long)sf.f_type == fs[i].magic) {
                        snprintf(buf, size, "%s", fs[i].name);
                        return;
                }
        snprintf(buf, size, "filesystem 0x%lx", (unsigned long)sf.f_type);
}

/* Our mark on fd: 1 with the recorded size, 0 none, -errno unreadable. */
static int mark_read(int fd, uint64_t *ret_size)
{
        char v[64];
        ssize_t n = fgetxattr(fd, TESTFILE_XATTR, v, sizeof(v) - 1);
        if (n < 0)
                return errno == ENODATA ? 0 : -errno;
        v[n] = '\0';
        size_t plen = strlen(MARK_PREFIX);
        if (strncmp(v, MARK_PREFIX, plen))
                return 0;
        char *end;
        errno = 0;
        unsigned long long s = strtoull(v + plen, &end, 10);
        if (errno || *end)
                return 0;
        *ret_size = s;
        return 1;
}

static int mark_write(int fd, uint64_t size)
{
        char v[64];
        int n = snprintf(v, sizeof(v), MARK_PREFIX "%" PRIu64, size);
        return fsetxattr(fd, TESTFILE_XATTR, v, (size_t)n, 0) < 0 ? -errno : 0;
}

/* Incompressible, never-zero data, different in every chunk. */
static void fill_random(uint64_t *buf, size_t words, uint64_t *seed)
{
        for (size_t i = 0; i < words; i++)
                buf[i] = sb_splitmix64(seed) | 1;
}

static const char *human(uint64_t bytes, char *buf, unsigned size)
{
        static const char units[] = "KMGTP";
        double v = (double)bytes;
        int u = -1;
        while (v >= 1024 && u < 4) {
                v /= 1024;
                u++;
        }
        if (u < 0)
                snprintf(buf, size, "%" PRIu64 " bytes", bytes);
        else
                snprintf(buf, size, "%.1f %ciB", v, units[u]);
        return buf;
}

/* The name of a virtual filesystem (kernel state, not storage), or NULL. */
static const char *virtual_fs(long type)
{
        static const struct { long magic; const char *name; } fs[] = {
                { PROC_SUPER_MAGIC, "proc" }, { SYSFS_MAGIC, "sysfs" },
                { DEVPTS_SUPER_MAGIC, "devpts" }, { CGROUP_SUPER_MAGIC, "cgroup" },
                { CGROUP2_SUPER_MAGIC, "cgroup2" }, { DEBUGFS_MAGIC, "debugfs" },
                { TRACEFS_MAGIC, "tracefs" }, { SECURITYFS_MAGIC, "securityfs" },
                { BPF_FS_MAGIC, "bpf" }, { PSTOREFS_MAGIC, "pstore" },
                { EFIVARFS_MAGIC, "efivarfs" }, { SELINUX_MAGIC, "selinuxfs" },
                { NSFS_MAGIC, "nsfs" }, { HUGETLBFS_MAGIC, "hugetlbfs" },
                { 0x62656570, "configfs" }, { 0x6e736673, "nsfs" },
        };
        for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
                if (type == fs[i].magic)
                        return fs[i].name;
        return NULL;
}

int testfile_check_place(const struct bw_host *h, const char *path)
{
        struct statfs sf;
        _cleanup_free_ char *d = strdup(path);
        if (!d)
                return h->fail(h, -ENOMEM, "out of memory");
        /* the nearest existing ancestor tells where the file would go */
        char *at = d;
        while (statfs(at, &sf) < 0) {
                if (errno != ENOENT || !strcmp(at, "/") || !strcmp(at, "."))
                        return 0;
                at = dirname(at);
        }
        const char *name = virtual_fs((long)sf.f_type);
        if (!name)
                return 0;
        return h->fail(h, -EINVAL, "'%s' is on %s, a virtual filesystem of "
                       "the kernel that cannot hold a test file: choose a path "
                       "on a disk (path=, or [daemon] cache_dir)", path, name);
}

static int check_space(const struct bw_host *h, const char *dir,
                       uint64_t size)
{
        struct statvfs sv;
        char need_s[32], avail_s[32];
        int r = testfile_check_place(h, dir);
        if (r < 0)
                return r;
        if (statvfs(dir, &sv) < 0)
                return h->fail(h, -errno, "cannot create a test file in '%s': %s",
                               dir, strerror(errno));
        uint64_t avail = (uint64_t)sv.f_bavail * sv.f_frsize;
        uint64_t need = size + size / 64 + CHUNK; /* leave some room */
        if (avail < need)
                return h->fail(h, -ENOSPC, "not enough free space in '%s' for "
                               "the test file: it needs %s, %s available "
                               "(lower size= or choose another path)", dir,
                               human(need, need_s, sizeof(need_s)),
                               human(avail, avail_s, sizeof(avail_s)));
        return 0;
}

static int write_data(const struct bw_host *h, int fd, const char *path,
                      uint64_t size, double deadline)
{
        _cleanup_free_ uint64_t *buf = malloc(CHUNK);
        uint64_t seed = now_ns() ^ ((uint64_t)getpid() << 32);
        if (!buf)
                return h->fail(h, -ENOMEM, "out of memory");
        int r = fallocate(fd, 0, 0, (off_t)size);
        if (r < 0 && errno != EOPNOTSUPP && errno != ENOSYS)
                return h->fail(h, -errno, "cannot allocate %" PRIu64
                               " bytes for '%s': %s", size, path, strerror(errno));
        for (uint64_t off = 0; off < size; off += CHUNK) {
                size_t len = size - off < CHUNK ? (size_t)(size - off) : CHUNK;
                fill_random(buf, CHUNK / 8, &seed);
                ssize_t n = pwrite(fd, buf, len, (off_t)off);
                if (n != (ssize_t)len)
                        return h->fail(h, n < 0 ? -errno : -EIO,
                                       "cannot write test file '%s': %s", path,
                                       n < 0 ? strerror(errno) : "short write");
                if (h->stopping(h))
                        return h->fail(h, -EINTR, "interrupted while creating "
                                       "test file '%s'", path);
                if (now_mono() > deadline)
                        return h->fail(h, -ETIME, "creating test file '%s' did "
                                       "not finish in time (raise the probe's "
                                       "timeout or lower size=)", path);
        }
        if (fdatasync(fd) < 0)
                return h->fail(h, -errno, "cannot sync test file '%s': %s",
                               path, strerror(errno));
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        return 0;
}

/* The hidden temporary name used where O_TMPFILE is not supported. */
static char *tmp_name(const char *path)
{
        _cleanup_free_ char *d = strdup(path), *b = strdup(path);
        if (!d || !b)
                return NULL;
        return str_printf("%s/.%s.benchwatch-tmp", dirname(d), basename(b));
}

/* Removes a stale temporary file of ours; refuses a foreign one. */
static int open_named_tmp(const struct bw_host *h, const char *tmp)
{
        int fd = open(tmp, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd >= 0) {
                uint64_t s;
                int r = mark_read(fd, &s);
                close(fd);
                if (r <= 0)
                        return h->fail(h, -EEXIST, "'%s' exists and was not "
                                       "made by benchwatch: remove it", tmp);
                if (unlink(tmp) < 0 && errno != ENOENT)
                        return h->fail(h, -errno, "cannot remove stale '%s': %s",
                                       tmp, strerror(errno));
        }
        fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0)
                return h->fail(h, -errno, "cannot create '%s': %s", tmp,
                               strerror(errno));
        return fd;
}

/* Publish the complete file under its name without replacing anything. */
static int publish(int fd, const char *tmp, const char *path)
{
        if (!tmp) {
                char proc[64];
                snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
                return linkat(AT_FDCWD, proc, AT_FDCWD, path,
                              AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
        }
        if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
                return 0;
        if (errno != EINVAL && errno != ENOSYS)
                return -errno;
        if (link(tmp, path) < 0)
                return -errno;
        unlink(tmp);
        return 0;
}

static int fill_and_publish(const struct bw_host *h, int fd, const char *tmp,
                            const char *path, uint64_t size, double deadline)
{
        int r = mark_write(fd, size);
        if (r < 0)
                return h->fail(h, r, "cannot mark '%s' as benchwatch's test "
                               "file (extended attribute %s): %s; choose a path "
                               "on a filesystem with user xattrs", path,
                               TESTFILE_XATTR, strerror(-r));
        r = write_data(h, fd, path, size, deadline);
        if (r < 0)
                return r;
        r = publish(fd, tmp, path);
        if (r < 0)
                return h->fail(h, r, "cannot create test file '%s': %s", path,
                               strerror(-r));
        return 0;
}

static int create(const struct bw_host *h, const char *path, uint64_t size,
                  double deadline)
{
        _cleanup_free_ char *d = strdup(path), *tmp = NULL;
        if (!d)
                return h->fail(h, -ENOMEM, "out of memory");
        const char *dir = dirname(d);
        int r = check_space(h, dir, size);
        if (r < 0)
                return r;
        _cleanup_close_ int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR ||
                       errno == EINVAL)) {
                tmp = tmp_name(path);
                if (!tmp)
                        return h->fail(h, -ENOMEM, "out of memory");
                fd = open_named_tmp(h, tmp);
                if (fd < 0)
                        return fd;
        } else if (fd < 0)
                return h->fail(h, -errno, "cannot create test file '%s': %s",
                               path, strerror(errno));
        r = fill_and_publish(h, fd, tmp, path, size, deadline);
        if (r < 0 && tmp)
                unlink(tmp);
        return r;
}

static int use_device(const struct bw_host *h, const char *path,
                      uint64_t size, bool size_given, struct testfile *tf)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        uint64_t devsize = 0;
        if (fd < 0)
                return h->fail(h, -errno, "cannot open device '%s': %s", path,
                               strerror(errno));
        if (ioctl(fd, BLKGETSIZE64, &devsize) < 0)
                return h->fail(h, -errno, "cannot get the size of '%s': %s",
                               path, strerror(errno));
        tf->is_device = true;
        tf->size = size_given && size < devsize ? size : devsize;
        snprintf(tf->fs, sizeof(tf->fs), "block device");
        return 0;
}

/* 1: ours and complete, 0: ours but must be recreated, or a failure. */
static int inspect_file(const struct bw_host *h, const char *path,
                        uint64_t size, const struct stat *st)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        uint64_t marked = 0;
        if (fd < 0)
                return h->fail(h, -errno, "cannot open '%s': %s", path,
                               strerror(errno));
        int r = mark_read(fd, &marked);
        if (r < 0 && r != -EOPNOTSUPP)
                return h->fail(h, r, "cannot read the mark of '%s': %s", path,
                               strerror(-r));
        if (r <= 0)
                return h->fail(h, -EEXIST, "'%s' exists and was not created by "
                               "benchwatch (no %s mark): refusing to use it; "
                               "choose another path", path, TESTFILE_XATTR);
        return marked == size && (uint64_t)st->st_size == size;
}

/* 1: created, 0: reused, or a failure. */
static int use_file(const struct bw_host *h, const char *path, uint64_t size,
                    double deadline, const struct stat *st)
{
        int r = st ? inspect_file(h, path, size, st) : 0;
        if (r != 0)
                return r < 0 ? r : 0;
        if (st) {
                h->log(h, LOG_INFO, "recreating test file '%s' (its length is not %"
                       PRIu64 ")", path, size);
                if (unlink(path) < 0)
                        return h->fail(h, -errno, "cannot remove '%s': %s",
                                       path, strerror(errno));
        }
        r = create(h, path, size, deadline);
        return r < 0 ? r : 1;
}

/* Make sure `path` is a complete test file of `size` bytes (creating or
 * recreating it), or a block device (then `size` only caps the usable
 * region when size_given). Fails through h->fail with a message that names
 * the path and why. */
static int testfile_prepare(const struct bw_host *h, const char *path,
                            uint64_t size, bool size_given, double deadline,
                            struct testfile *ret)
{
        struct testfile tf = { .size = size };
        struct stat st;
        int r;
        if (stat(path, &st) < 0) {
                if (errno != ENOENT)
                        return h->fail(h, -errno, "cannot access '%s': %s",
                                       path, strerror(errno));
                r = use_file(h, path, size, deadline, NULL);
        } else if (S_ISBLK(st.st_mode))
                r = use_device(h, path, size, size_given, &tf);
        else if (S_ISREG(st.st_mode))
                r = use_file(h, path, size, deadline, &st);
        else
                return h->fail(h, -EINVAL, "'%s' is neither a regular file nor "
                               "a block device", path);
        if (r < 0)
                return r;
        tf.created = r > 0;
        tf.path = strdup(path);
        if (!tf.path)
                return h->fail(h, -ENOMEM, "out of memory");
        *ret = tf;
        return 0;
}

static void testfile_done(struct testfile *tf)
{
        free(tf->path);
        tf->path = NULL;
}

enum { MARKED_ABSENT, MARKED_REMOVED, MARKED_LEFT };

/* MARKED_REMOVED, MARKED_LEFT (not ours: a notice says so),
 * MARKED_ABSENT, or -errno. */
static int remove_marked(const struct bw_host *h, const char *path)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
                                      O_NONBLOCK);
        uint64_t s;
        struct stat st;
        if (fd < 0)
                return errno == ENOENT ? MARKED_ABSENT : h->fail(h, -errno,
                        "cannot open '%s': %s", path, strerror(errno));
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || mark_read(fd, &s) <= 0) {
                h->log(h, LOG_NOTICE, "leaving '%s' alone: not a benchwatch test file",
                       path);
                return MARKED_LEFT;
        }
        if (unlink(path) < 0)
                return h->fail(h, -errno, "cannot remove '%s': %s", path,
                               strerror(errno));
        return MARKED_REMOVED;
}

/* Remove a test file if it carries our mark (and a stale temporary one);
 * anything else is left alone.  The files removed and left alone are
 * added to *removed and *left where not NULL. */
static int testfile_remove(const struct bw_host *h, const char *path, unsigned *removed,
                           unsigned *left)
{
        _cleanup_free_ char *tmp = tmp_name(path);
        const char *which[] = { tmp, path };
        if (!tmp)
                return h->fail(h, -ENOMEM, "out of memory");
        for (size_t i = 0; i < 2; i++) {
                int r = remove_marked(h, which[i]);
                if (r < 0)
                        return r;
                if (r == MARKED_REMOVED && i == 1)
                        h->log(h, LOG_INFO, "removed test file '%s'", path);
                if (r == MARKED_REMOVED && removed)
                        ++*removed;
                if (r == MARKED_LEFT && left)
                        ++*left;
        }
        return 0;
}

/* O_DIRECT alignment of offsets and lengths for fd (files: statx
 * STATX_DIOALIGN, falling back to st_blksize; devices: BLKSSZGET).
 * -EOPNOTSUPP when the file system says it has no direct I/O. */
static int testfile_dio_align(int fd, bool is_device, unsigned *ret_align)
{
        int lbs = 0;
        if (is_device) {
                if (ioctl(fd, BLKSSZGET, &lbs) < 0)
                        return -errno;
                *ret_align = (unsigned)lbs;
                return 0;
        }
        struct statx sx = { 0 };
        if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN | STATX_BLOCKS, &sx) < 0)
                return -errno;
        if (sx.stx_mask & STATX_DIOALIGN) {
                if (!sx.stx_dio_offset_align)
                        return -EOPNOTSUPP;
                unsigned a = sx.stx_dio_offset_align;
                *ret_align = sx.stx_dio_mem_align > a ? sx.stx_dio_mem_align : a;
                return 0;
        }
        *ret_align = sx.stx_blksize ? sx.stx_blksize : 4096;
        return 0;
}

/* How many pages of [off, off+len) are in the page cache; -errno. */
static int resident_pages(int fd, uint64_t off, unsigned len)
{
        long pg = sysconf(_SC_PAGESIZE);
        uint64_t start = off & ~(uint64_t)(pg - 1);
        size_t maplen = (size_t)(off + len - start);
        size_t npages = (maplen + (size_t)pg - 1) / (size_t)pg;
        unsigned char vec[64];
        if (npages > sizeof(vec))
                return -E2BIG;
        void *m = mmap(NULL, maplen, PROT_READ, MAP_SHARED, fd, (off_t)start);
        if (m == MAP_FAILED)
                return -errno;
        int r = mincore(m, maplen, vec) < 0 ? -errno : 0;
        munmap(m, maplen);
        for (size_t i = 0; r >= 0 && i < npages; i++)
                r += vec[i] & 1;
        return r;
}

/* Whether O_DIRECT reads on dfd (opened with O_DIRECT) really bypass the
 * page cache: drop a block from the cache, read it with O_DIRECT and look
 * (mincore) whether it came back into the cache.  1 honoured, 0 not, or
 * -errno when the check could not be made. */
static int testfile_direct_honoured(int dfd, uint64_t off, unsigned len)
{
        char proc[64];
        void *buf;
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dfd);
        _cleanup_close_ int fd = open(proc, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        fdatasync(fd);
        posix_fadvise(fd, (off_t)off, len, POSIX_FADV_DONTNEED);
        if (resident_pages(fd, off, len) > 0)
                return 0; /* cannot leave memory: tmpfs, ramfs */
        if (posix_memalign(&buf, 4096, len))
                return -ENOMEM;
        ssize_t n = pread(dfd, buf, len, (off_t)off);
        int e = errno;
        free(buf);
        if (n < 0)
                return -e;
        int r = resident_pages(fd, off, len);
        return r < 0 ? r : r == 0;
}

void testfile_drop_cache(int fd, bool is_device)
{
        fdatasync(fd);
        if (is_device)
                ioctl(fd, BLKFLSBUF, 0);
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

int testfile_run(const struct bw_run *run, const struct bw_host *h,
                 const char *prefix, const char *path, uint64_t size,
                 bool size_given, double stop_by, testfile_measure_fn measure)
{
        _cleanup_free_ char *p = NULL;
        struct testfile tf = { 0 };
        if (testfile_path(run, prefix, path, &p) < 0)
                return h->fail(h, -ENOMEM, "out of memory");
        int r = testfile_prepare(h, p, size, size_given, stop_by, &tf);
        if (r == 0) {
                blockdev_report(h, tf.path);
                r = measure(run, h, &tf);
        }
        if (r == -EOPNOTSUPP && tf.created)
                testfile_remove(h, p, NULL, NULL); /* useless without O_DIRECT */
        else if (tf.created)
                /* where it is, and how it goes: a one-off run leaves it too */
                h->log(h, LOG_NOTICE, "made the test file '%s' (%.0f MiB), kept for the "
                       "next runs: `benchwatch cleanup %s%s%s` removes it", p,
                       (double)size / (1024.0 * 1024.0), run->probe,
                       path && *path ? " path=" : "", path && *path ? path : "");
        testfile_done(&tf);
        return r;
}

int testfile_cleanup(const struct bw_run *run, const struct bw_host *h,
                     const char *prefix, const char *path)
{
        _cleanup_free_ char *p = NULL;
        struct stat st;
        unsigned removed = 0, left = 0;
        if (testfile_path(run, prefix, path, &p) < 0)
                return h->fail(h, -ENOMEM, "out of memory");
        if (stat(p, &st) == 0 && S_ISBLK(st.st_mode)) {
                bw_cleanup_report(h, 0, 0);
                return 0;
        }
        /* a link the runs followed to their file: that file (if it is
         * ours) goes, the link stays (removal itself never follows one) */
        if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode)) {
                char *target = realpath(p, NULL);
                if (!target && errno != ENOENT)
                        return h->fail(h, -errno, "cannot resolve '%s': %s", p,
                                       strerror(errno));
                if (!target) { /* a dangling link: nothing of ours */
                        bw_cleanup_report(h, 0, 0);
                        return 0;
                }
                free(p);
                p = target;
        }
        int r = testfile_remove(h, p, &removed, &left);
        if (r == 0)
                bw_cleanup_report(h, removed, left);
        return r;
}

/* ---- opening it for measurement --------------------------------------- */

static int fail_no_direct(const struct bw_host *h, const struct testfile *tf,
                          int fd)
{
        char fs[32];
        if (fd >= 0)
                testfile_fs_name(fd, fs, sizeof(fs));
        else
                snprintf(fs, sizeof(fs), "this filesystem");
        return h->fail(h, -EOPNOTSUPP, "O_DIRECT not supported on %s at %s: "
                       "set direct=no to measure through the page cache",
                       fs, tf->path);
}

/* O_DIRECT must be accepted, aligned and really bypass the cache. */
static int check_direct(const struct bw_host *h, const struct testfile *tf,
                        int fd, uint64_t bs)
{
        unsigned align = 0;
        int r = testfile_dio_align(fd, tf->is_device, &align);
        if (r == -EOPNOTSUPP)
                return fail_no_direct(h, tf, fd);
        if (r < 0)
                return h->fail(h, r, "cannot find the direct I/O alignment of "
                               "'%s': %s", tf->path, strerror(-r));
        if (bs % align)
                return h->fail(h, -EINVAL, "block_size %" PRIu64 " is not a "
                               "multiple of %u, the direct I/O block size of "
                               "'%s'", bs, align, tf->path);
        if (tf->is_device)
                return (int)align;
        r = testfile_direct_honoured(fd, 0, align < 4096 ? 4096 : align);
        if (r == 0)
                return fail_no_direct(h, tf, fd);
        if (r < 0)
                h->log(h, LOG_NOTICE, "could not verify that O_DIRECT bypasses "
                       "the page cache on '%s': %s", tf->path, strerror(-r));
        return (int)align;
}

int testfile_open(const struct bw_host *h, const struct testfile *tf,
                  bool writable, bool direct, uint64_t bs, unsigned *ret_align)
{
        int flags = O_CLOEXEC | (writable ? O_RDWR : O_RDONLY);
        int fd = open(tf->path, flags | (direct ? O_DIRECT : 0));
        if (fd < 0 && direct && errno == EINVAL)
                return fail_no_direct(h, tf, -1);
        if (fd < 0)
                return h->fail(h, -errno, "cannot open '%s': %s", tf->path,
                               strerror(errno));
        if (!direct) {
                testfile_drop_cache(fd, tf->is_device); /* fio's invalidate */
                *ret_align = 4096;
                return fd;
        }
        int r = check_direct(h, tf, fd, bs);
        if (r < 0) {
                close(fd);
                return r;
        }
        *ret_align = (unsigned)r;
        return fd;
}
