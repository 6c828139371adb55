/* history.h — every probe's figures over time, on the host itself.
 *
 * A host without Prometheus still has its trend: after each run the daemon
 * appends the run's tracked figures, with the reference and the verdict of
 * each, to <state_dir>/history-<probe>.txt, and `benchwatch history` prints
 * or draws them.  Text, one figure of one run a line, after a header:
 *
 *   benchwatch-history 1
 *   <UNIX time> <counted 0|1> <L learning|O ok|R regression> <value>
 *       <reference or nan> <series key>
 *
 * (one line in the file, shown on two here)
 *
 * The file is bounded: when an append would take it past max_bytes, the
 * newest lines that fit in half of it are kept (written to a temporary
 * file and renamed over it, so a crash leaves the old file or the new),
 * and the oldest are dropped.  Appends are one write(2) of whole lines
 * with O_APPEND; a crash in the middle of one leaves a last line without
 * its newline, which the next append cuts off and the reader ignores, so
 * nothing before it is lost.  A line that does not parse (someone edited
 * the file) is skipped and counted, never fatal.  Nothing here logs. */
#ifndef BENCHWATCH_HISTORY_H
#define BENCHWATCH_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define HISTORY_FORMAT_VERSION 1

enum history_state {
        HISTORY_LEARNING = 'L',
        HISTORY_OK = 'O',
        HISTORY_REGRESSION = 'R',
};

struct history_entry {
        double t;            /* UNIX time of the run */
        bool counted;        /* counted towards the reference */
        enum history_state state;
        double value;        /* the figure, in its unit */
        double reference;    /* the pinned reference; NAN while learning */
        char *key;           /* series key (baseline.h) */
};

/* Append entries (one run) to the probe's history, keeping it within
 * max_bytes.  -errno with *ret_error naming the file. */
int history_append(const char *state_dir, const char *probe,
                   const struct history_entry *e, size_t n, size_t max_bytes,
                   char **ret_error);

/* Entries at or after `since` (UNIX time; -INFINITY for all), oldest
 * first.  No file: 0 entries.  *ret_skipped counts lines that did not
 * parse and *ret_first_bad is the number of the first one (0 if none).
 * -errno with *ret_error when the file cannot be read or is not a
 * history. */
int history_read(const char *state_dir, const char *probe, double since,
                 struct history_entry **ret, size_t *ret_n, unsigned *ret_skipped,
                 unsigned *ret_first_bad, char **ret_error);

/* The same from an open history file f (its header first): what
 * history_read does once the file is open, apart so that a fuzzer feeds
 * it bytes.  -EBADMSG when the first line is not the header. */
int history_parse(FILE *f, double since, struct history_entry **ret, size_t *ret_n,
                  unsigned *ret_skipped, unsigned *ret_first_bad);

void history_entries_free(struct history_entry *e, size_t n);

/* Whether a series key's figure (its name, before any labels) is a time
 * in seconds, as a name ending in "_seconds" says. */
bool history_key_in_seconds(const char *key);

#endif
