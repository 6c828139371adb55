/* evidence_read.h — one counter file read whole, or not at all, cheaply.
 *
 * fdio_read_small() takes the start of a file; a counter cut short by the
 * buffer ("12345" of "1234567") would read as a wrong number, so these
 * refuse a file that fills the buffer (-EFBIG) and anything that is not
 * the counter (sysparse.h).
 *
 * A snapshot reads the same few hundred files around every run, and on
 * sysfs opening and closing a file costs about three times reading it
 * (lab/cost/evidence-cost.sh), so a file is kept open (O_CLOEXEC: the
 * probe never inherits it) and read again from offset 0, where sysfs,
 * procfs and cgroupfs show it afresh.  A read that fails reopens the file
 * once (a cgroup recreated, a device back), so a kept descriptor never
 * pins a stale file.  Files past the host's budget of descriptors are
 * opened per read.  The readers of evidence.h and its discovery
 * (evidence_find.h) share them.  Nothing here logs. */
#ifndef BENCHWATCH_EVIDENCE_READ_H
#define BENCHWATCH_EVIDENCE_READ_H

#include <stdbool.h>
#include <stddef.h>

struct evidence_file {
        char *path;
        int fd;         /* -1 until first read */
        bool keep;      /* kept open between reads */
};

/* The file's whole text, NUL-terminated, in buf: 0, -EFBIG when it does
 * not fit (size - 1 bytes or more), or -errno. */
int evidence_read_file(struct evidence_file *f, char *buf, size_t size);
void evidence_read_close(struct evidence_file *f);

/* The same for a path, opened for this read only. */
int evidence_read_whole(const char *path, char *buf, size_t size);

/* A sysfs counter ("123\n").  0, -EFBIG, -EINVAL, -ERANGE or -errno. */
int evidence_read_counter(struct evidence_file *f, double *ret);

/* A cgroup's cpu.stat: v2 (throttled_usec) or v1 (throttled_time, ns). */
struct evidence_cgroup_stat {
        double periods, throttled, throttled_us;
};
int evidence_read_cgroup_stat(struct evidence_file *f, struct evidence_cgroup_stat *ret);

#endif
