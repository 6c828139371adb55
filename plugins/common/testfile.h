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

/* Refuses (h->fail, -EINVAL) a path whose filesystem cannot hold a test
 * file: a virtual one such as proc, sysfs, cgroup or debugfs.  Only looks
 * (statfs of the path, or of its nearest existing ancestor);
 * 0 when that cannot be told, so the run says what is wrong.  For a
 * plugin's `check`. */
int testfile_check_place(const struct bw_host *h, const char *path);

/* A plugin's run on its test file (`path` if non-empty, else
 * "<cache_dir>/<prefix>-<probe>.dat"): the file made complete, `size`
 * bytes (created or recreated by stop_by; a block device as is, `size`
 * capping its usable region when size_given), its device reported
 * (blockdev_report), then measured by measure; a file made by this call
 * is removed again when measure says -EOPNOTSUPP (no O_DIRECT there: it
 * would only take space).  measure's value, or the failure's. */
typedef int (*testfile_measure_fn)(const struct bw_run *run,
                                   const struct bw_host *h,
                                   const struct testfile *tf);
int testfile_run(const struct bw_run *run, const struct bw_host *h,
                 const char *prefix, const char *path, uint64_t size,
                 bool size_given, double stop_by, testfile_measure_fn measure);
/* A plugin's cleanup: the test file testfile_run() would measure,
 * removed if it carries our mark (and a stale temporary one); anything
 * else, and a block device, is left alone. */
int testfile_cleanup(const struct bw_run *run, const struct bw_host *h,
                     const char *prefix, const char *path);

/* Drop the clean cached pages of a file or device (fdatasync first). */
void testfile_drop_cache(int fd, bool is_device);

/* Opens a prepared test file or device for measurement, read-only unless
 * writable.  With direct, O_DIRECT must be accepted, block size bs aligned
 * to the device's direct I/O size, and really bypass the page cache
 * (a block read with O_DIRECT does not come back into the cache:
 * mincore); otherwise it is refused through h->fail with
 * a message that says "set direct=no".  Without direct, the file's cached
 * pages are dropped first (fio's invalidate).  Returns the fd (O_CLOEXEC)
 * and sets *ret_align to the buffer alignment the I/O needs, or -errno
 * after h->fail. */
int testfile_open(const struct bw_host *h, const struct testfile *tf,
                  bool writable, bool direct, uint64_t bs, unsigned *ret_align);

#endif
