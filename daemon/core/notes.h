/* notes.h — a probe's notes said once in the journal, not at every run.
 *
 * A plugin's notice and info lines mostly describe the host or the run's
 * set-up ("this host flushes the TLB at every system call", "the server
 * is on this host"), the same at every run; said every half hour they
 * bury what changed.  So where the daemon logs to the journal, the lines
 * of a probe's run are kept in <state_dir>/notes-PROBE.txt, and a line
 * its last run said too is logged at debug level (shown with --verbose).
 * A line that changes is said again, and so is one that comes back after
 * a run without it; warnings and errors are always said; at a terminal
 * (`run`, or the daemon in the foreground) every line is, as a report. */
#ifndef BENCHWATCH_NOTES_H
#define BENCHWATCH_NOTES_H

struct notes;

/* The last run's notes of probe, read from state_dir; NULL where every
 * line is to be said (not the journal, no state_dir, no memory). */
struct notes *notes_open(const char *state_dir, const char *probe);
/* The priority to log line at (priority, or LOG_DEBUG for a notice or
 * info line the last run said too), remembering it for the next run.
 * n may be NULL.  Not thread-safe: the caller serialises. */
int notes_priority(struct notes *n, int priority, const char *line);
/* Keeps this run's notes for the next (replacing the file; a failure
 * only means they are said again) and frees n.  n may be NULL. */
void notes_close(struct notes *n);

#endif
