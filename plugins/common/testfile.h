/* testfile.h — the scratch file the disk and seqread plugins measure.
 *
 * A disk probe must measure a real device through real data, and it must
 * never touch anything it did not make.  So the test file is written once
 * with pseudo-random (non-zero, incompressible, not sparse) data, under a
 * name nobody can see until it is complete (O_TMPFILE, or a hidden
 * temporary name that is renamed), after checking the free space; it is
 * marked as ours with the extended attribute `user.benchwatch`, which lives
 * on the inode, so it follows the file through renames and truncation and
 * can never be inherited by a file someone else creates at the same path.
 * A regular file without the mark is refused; a file with the mark but the
 * wrong length (truncated, or `size` changed) is recreated.  A block device
 * is accepted as is: callers allow it for read-only work only. */
#ifndef BENCHWATCH_TESTFILE_H
#define BENCHWATCH_TESTFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/plugin.h"

#define TESTFILE_XATTR "user.benchwatch"

struct testfile {
        char *path;         /* malloc'd */
        bool is_device;     /* a block device given by the user */
        bool created;       /* made by this call (not reused) */
        uint64_t size;      /* bytes usable for I/O, from offset 0 */
        char fs[24];        /* "ext4", "tmpfs"... of the file or device */
};

/* `path` if non-empty, else "<cache_dir>/<prefix>-<probe>.dat". */
int testfile_path(const struct bw_run *run, const char *prefix,
                  const char *path, char **ret);

/* Refuses (h->fail, -EINVAL) a path whose filesystem cannot hold a test
 * file: a virtual one such as proc, sysfs, cgroup or debugfs.  Only looks
 * (statfs of the path, or of its nearest existing ancestor);
 * 0 when that cannot be told, so the run says what is wrong.  For a
 * plugin's `check`. */
int testfile_check_place(const struct bw_host *h, const char *path);

/* Make sure `path` is a complete test file of `size` bytes (creating or
 * recreating it), or a block device (then `size` only caps the usable
 * region when size_given). Fails through h->fail with a message that names
 * the path and why. */
int testfile_prepare(const struct bw_host *h, const char *path,
                     uint64_t size, bool size_given, double deadline,
                     struct testfile *ret);
void testfile_done(struct testfile *tf);

/* Remove a test file if it carries our mark (and a stale temporary one);
 * anything else is left alone. */
int testfile_remove(const struct bw_host *h, const char *path);
/* A plugin's run on its test file: testfile_path(run, prefix, path) made
 * ready (testfile_prepare, by stop_by), its device reported
 * (blockdev_report), then measured by measure; a file made by this call
 * is removed again when measure says -EOPNOTSUPP (no O_DIRECT there: it
 * would only take space).  measure's value, or the failure's. */
typedef int (*testfile_measure_fn)(const struct bw_run *run,
                                   const struct bw_host *h,
                                   const struct testfile *tf);
int testfile_run(const struct bw_run *run, const struct bw_host *h,
                 const char *prefix, const char *path, uint64_t size,
                 bool size_given, double stop_by, testfile_measure_fn measure);
/* A plugin's cleanup: the test file testfile_path(run, prefix, path)
 * names, removed as testfile_remove does; a block device is left alone. */
int testfile_cleanup(const struct bw_run *run, const struct bw_host *h,
                     const char *prefix, const char *path);

/* Name of the filesystem holding fd ("ext4", "tmpfs", or its magic). */
void testfile_fs_name(int fd, char *buf, unsigned size);

/* O_DIRECT alignment of offsets and lengths for fd (files: statx
 * STATX_DIOALIGN, falling back to st_blksize; devices: BLKSSZGET).
 * -EOPNOTSUPP when the file system says it has no direct I/O. */
int testfile_dio_align(int fd, bool is_device, unsigned *ret_align);

/* Whether O_DIRECT reads on dfd (opened with O_DIRECT) really bypass the
 * page cache: drop a block from the cache, read it with O_DIRECT and look
 * (mincore) whether it came back into the cache.  1 honoured, 0 not, or
 * -errno when the check could not be made. */
int testfile_direct_honoured(int dfd, uint64_t off, unsigned len);

/* Drop the clean cached pages of a file or device (fdatasync first). */
void testfile_drop_cache(int fd, bool is_device);

/* Opens a prepared test file or device for measurement, read-only unless
 * writable.  With direct, O_DIRECT must be accepted, block size bs aligned
 * to the device's direct I/O size, and really bypass the page cache
 * (testfile_direct_honoured); otherwise it is refused through h->fail with
 * a message that says "set direct=no".  Without direct, the file's cached
 * pages are dropped first (fio's invalidate).  Returns the fd (O_CLOEXEC)
 * and sets *ret_align to the buffer alignment the I/O needs, or -errno
 * after h->fail. */
int testfile_open(const struct bw_host *h, const struct testfile *tf,
                  bool writable, bool direct, uint64_t bs, unsigned *ret_align);

#endif
