/* sink_textfile.h — the current figures of every probe as a .prom file for
 * node_exporter's textfile collector ([textfile] path = ...). */
#ifndef BENCHWATCH_SINK_TEXTFILE_H
#define BENCHWATCH_SINK_TEXTFILE_H

#include "sink.h"

extern const struct sink_type sink_textfile_type;

/* Replace `path` with `len` bytes of `data`: a temporary file in the same
 * directory, fsync, mode 0644, rename, so a reader sees the old or the new
 * file, never half of one.  0 or -errno; *ret_what names the failed step. */
int sink_textfile_write_atomic(const char *path, const char *data, size_t len,
                               const char **ret_what);

#endif
