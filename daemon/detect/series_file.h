/* series_file.h — a history of one figure, as an operator has it.
 *
 * `benchwatch replay` and `baseline import` read a series that came from
 * somewhere else (years of sysbench or fio runs, a Prometheus export):
 * one run a line, either `value` or `timestamp,value`, where the timestamp
 * is UNIX seconds or an ISO 8601 UTC time (2026-11-30, 2026-11-30T12:00Z,
 * 2026-11-30T12:00:00Z).  Blank lines and lines starting with '#' are
 * skipped, and so is a first line that is a header (`timestamp,value`).
 * Every value is a number > 0; either every line has a timestamp or none
 * has, and timestamps never go back.  Nothing here logs: a bad file comes
 * back as -EINVAL with "FILE:LINE: what is wrong". */
#ifndef BENCHWATCH_SERIES_FILE_H
#define BENCHWATCH_SERIES_FILE_H

#include <stddef.h>
#include <stdio.h>

struct series_point {
        double t;     /* UNIX time; NAN when the file has none */
        double value;
};

/* Read the series in f (its name for messages).  0 with a malloc'd array
 * (possibly empty), -EINVAL with *ret_error, -ENOMEM, or -errno of a read
 * error (with *ret_error). */
int series_file_parse(FILE *f, const char *name, struct series_point **ret,
                      size_t *ret_n, char **ret_error);

/* The same from a path ("-" is standard input); -errno of open (or
 * -EISDIR) with *ret_error naming the file. */
int series_file_read(const char *path, struct series_point **ret, size_t *ret_n,
                     char **ret_error);

#endif
