/* tracker_cause.h — the daemon names the cause of each regression, with
 * its evidence, and tells the whole host slowing from one component.
 *
 * After each run the tracker hands the probe's baseline and the run here:
 * the run's evidence (cause_figures.h) joins the probe's evidence store
 * (evidence_store.h) when it counted; while a figure of the probe is in
 * regression, the evidence of the runs since its evidence began to
 * accumulate is compared with the reference's runs' (cause.h), with the
 * other probes in regression whose regressions began within the window
 * (peers: several independent probes at once is the host, one event, not
 * one per probe), and with those judged in no regression since it began
 * (what tells the component from the whole host), as with the probe's
 * other devices (gpu=all's other GPUs) that were.  The cause is read
 * again at every run, but once named it stays until the probe's
 * regression ends (an alert carries it as a label), unless stronger
 * evidence names another: the host's event, when other probes follow a
 * probe first named alone, or a cause earlier in cause.h's order while
 * the worst figure is still getting worse.  The run then carries
 * benchwatch_regression_cause{cause="<label>"} 1 (an alert routes on it),
 * the store keeps the cause for `status` and `baseline show`, and a
 * journal line for people is made when the regression is entered or its
 * cause changes:
 *   cpu events/s −14% (95% CI −15..−13%) since 14:02, against the
 *   reference of 40 runs learnt 3 Dec; cause: CPU quota, throttled in 41%
 *   of its CPU quota periods, against 0.0% in the reference
 * Nothing here logs: lines and errors come back to the tracker. */
#ifndef BENCHWATCH_TRACKER_CAUSE_H
#define BENCHWATCH_TRACKER_CAUSE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/result.h"
#include "detect/baseline.h"

/* The probes the daemon has seen run: since when each is in regression
 * (NAN: it is not), when its latest run counted and judged in no
 * regression began (NAN: none yet), and whether its runs wait on a
 * device or a server (result.io_bound: its figure is theirs, not the
 * CPU's); from: when the first run noted began (the daemon's start:
 * nothing is known of the runs before). */
struct tracker_cause_peer {
        char *probe, *plugin;
        double since, last_clean;
        bool waits;
};
struct tracker_cause_peers {
        struct tracker_cause_peer *v;
        size_t n;
        double from;
};
void tracker_cause_peers_clear(struct tracker_cause_peers *p);

struct tracker_cause_out {
        char *line;         /* for the journal, when entered or changed; else NULL */
        const char *label;  /* the cause named (static), NULL when none */
        char *error;        /* the evidence file could not be read or written */
};

/* See the top of this file.  det: the detector's settings b was judged
 * by (its other devices' figures are read with them); reference: the run
 * joined the probe's reference being learnt (its evidence is the
 * reference's); window: seconds within which other probes' regressions
 * are the same event.  0 or -ENOMEM; out's strings are malloc'd
 * (tracker_cause_out_clear). */
int tracker_cause_note(const char *state_dir, struct tracker_cause_peers *peers,
                       const struct baseline *b, const struct detector_config *det,
                       struct result *res, bool counted, bool reference, double window,
                       struct tracker_cause_out *out);
void tracker_cause_out_clear(struct tracker_cause_out *out);

/* For `verify`: the cause of series s being worse by change over the
 * fresh runs[0..n) (their evidence against the reference's, from the
 * probe's evidence store).  0 (ret->label NULL when there is no evidence
 * to compare against; cause_clear frees it), -ENOMEM. */
struct cause;
int tracker_cause_verify(const char *state_dir, const struct baseline_series *s, double change,
                         const struct result *const *runs, size_t n, struct cause *ret);

/* A series' figure as a person names it: "cpu events/s", "disklat
 * latency p50", "memory bytes/s (triad)"; the run's parameters are left
 * out.  buf returned. */
const char *tracker_cause_figure(const struct baseline_series *s, const struct result *res,
                                 char *buf, size_t size);

#endif
