/* atomicfile.h — replacing a file so that a crash leaves the old one or
 * the new one, never half of one: a temporary file beside it, fsync,
 * rename over it, fsync of the directory.  The baselines and the probes'
 * histories are written this way. */
#ifndef BENCHWATCH_ATOMICFILE_H
#define BENCHWATCH_ATOMICFILE_H

#include <stddef.h>
#include <sys/types.h>

/* Replace `path` (in directory `dir`) with data[0..len), mode `mode`.
 * 0 or -errno; no temporary file is left behind on failure. */
int atomicfile_write(const char *dir, const char *path, const void *data, size_t len,
                     mode_t mode);

/* Remove the temporary files atomicfile_write() left in dir when its
 * writer was killed before the rename (regular files NAME.tmp-XXXXXX): for
 * a directory only benchwatch writes, when nothing else writes in it.
 * How many were removed, or -errno (the first error; the others are still
 * tried). */
int atomicfile_remove_temps(const char *dir);

/* fsync(2) of a directory, so that a rename or unlink in it is durable. */
int atomicfile_fsync_dir(const char *dir);

#endif
