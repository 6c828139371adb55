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
int write_file_atomic(const char *dir, const char *path, const void *data, size_t len,
                      mode_t mode);

/* fsync(2) of a directory, so that a rename or unlink in it is durable. */
int fsync_directory(const char *dir);

#endif
