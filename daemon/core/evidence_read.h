/* evidence_read.h — one counter file read whole, or not at all.
 *
 * read_small_file() takes the start of a file; a counter cut short by the
 * buffer ("12345" of "1234567") would read as a wrong number, so these
 * refuse a file that fills the buffer (-EFBIG) and anything that is not
 * the counter (sysparse.h).  The readers of evidence.h and its discovery
 * (evidence_find.h) share them.  Nothing here logs. */
#ifndef BENCHWATCH_EVIDENCE_READ_H
#define BENCHWATCH_EVIDENCE_READ_H

#include <stddef.h>

/* The whole file at path, NUL-terminated, in buf: 0, -EFBIG when it
 * does not fit (size - 1 bytes or more), or -errno. */
int evidence_read_whole(const char *path, char *buf, size_t size);

/* A sysfs counter ("123\n").  0, -EFBIG, -EINVAL, -ERANGE or -errno. */
int evidence_read_counter(const char *path, double *ret);

/* A cgroup's cpu.stat: v2 (throttled_usec) or v1 (throttled_time, ns). */
struct evidence_cgroup_stat {
        double periods, throttled, throttled_us;
};
int evidence_read_cgroup_stat(const char *path, struct evidence_cgroup_stat *ret);

#endif
