/* evidence_store.h — the evidence of a probe's counted runs, kept beside
 * its baseline, so that a regression's cause can be named against the
 * reference's own runs.
 *
 * The baseline keeps each figure's reference and recent runs (detector.h),
 * not what the host did during them; the cause engine (cause.h) compares
 * the evidence of the runs that entered a regression with that of the
 * reference's.  So each counted run's evidence (cause_figures.h) is kept
 * here: the runs that joined the reference while it was learnt (at most
 * DETECTOR_REF_MAX, the reference's), and the last EVIDENCE_RECENT_MAX
 * runs since; and the cause last named, for `status` and `baseline show`.
 * The file, <state_dir>/evidence-<probe>.txt, replaced atomically:
 *
 *   benchwatch-evidence 1
 *   cause <label> <sentence>                 (while in regression)
 *   run <time> <ref 0|1> <figure> ... [on=<device>]   (CAUSE_N_FIGURES, "nan")
 *
 * A probe that measures several devices in turn (the gpu probe's gpu=all:
 * one GPU a run) keeps each run's device: a GPU's regression is read from
 * its own runs and reference, each device keeping as many as a probe of
 * one does (the other GPUs' runs between outvoted its heat and clocks).
 * New figures are added at the end: a line of an older daemon, with
 * fewer (at least EVIDENCE_STORE_FIGURES_1, the first version's) and
 * then its on=, reads with the rest "nan", so an upgrade keeps the runs'
 * evidence.
 * A file that is not one is refused with -EBADMSG (the caller starts
 * afresh); nothing here logs. */
#ifndef BENCHWATCH_EVIDENCE_STORE_H
#define BENCHWATCH_EVIDENCE_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "detect/cause.h"

#define EVIDENCE_STORE_VERSION 1
#define EVIDENCE_STORE_FIGURES_1 CAUSE_F_GPU_HEAT /* the figures before the GPU's */
#define EVIDENCE_RECENT_MAX DETECTOR_RECENT_MAX

#define EVIDENCE_DEVICE_MAX 32

struct evidence_run {
        double t;
        bool reference;     /* counted, and joined the reference being learnt */
        char device[EVIDENCE_DEVICE_MAX]; /* "": the probe's one */
        struct cause_run fig;
};

struct evidence_store {
        struct evidence_run *runs;   /* oldest first */
        size_t n;
        char *cause_label;           /* the cause last named; NULL: none */
        char *cause_text;
};

/* Parse the file's text (NUL-terminated): 0, -EBADMSG, -ENOMEM. */
int evidence_store_parse(const char *text, struct evidence_store *ret);
/* Load the probe's store: 0 (an empty one when there is no file),
 * -EBADMSG for a file that is not one, -errno; *ret_error (malloc'd, may
 * be NULL) names the file. */
int evidence_store_load(const char *state_dir, const char *probe, struct evidence_store *ret,
                        char **ret_error);
int evidence_store_save(const char *state_dir, const char *probe,
                        const struct evidence_store *s, char **ret_error);
/* Forget it (`baseline reset`): 0, or -errno other than -ENOENT. */
int evidence_store_reset(const char *state_dir, const char *probe);
void evidence_store_clear(struct evidence_store *s);

/* A counted run at t of device (NULL or "": the probe's one; [A-Za-z0-9._-],
 * shorter than EVIDENCE_DEVICE_MAX); reference: it joined the reference
 * being learnt.  The device's oldest runs beyond the limits above go.  0,
 * -EINVAL (a device name that cannot be kept) or -ENOMEM. */
int evidence_store_add(struct evidence_store *s, double t, bool reference, const char *device,
                       const struct cause_run *fig);
/* `baseline accept`: each device's last n runs become the reference's,
 * the others not.  */
void evidence_store_accept(struct evidence_store *s, size_t n);
/* The cause named now (NULL label: none); 0 or -ENOMEM. */
int evidence_store_set_cause(struct evidence_store *s, const char *label, const char *text);

/* Of device's runs (NULL: "", the probe's one): the reference's into ret
 * (at most max), else, where there are none (a reference learnt before the
 * evidence was kept), those before its last `skip`: how many. */
size_t evidence_store_reference(const struct evidence_store *s, const char *device, size_t skip,
                                struct cause_run *ret, size_t max);
/* Device's last n runs (fewer when there are not as many) into ret (NULL:
 * only counted), and the time of the first of them in *ret_since (NAN when
 * none): how many. */
size_t evidence_store_last(const struct evidence_store *s, const char *device, size_t n,
                           struct cause_run *ret, double *ret_since);

#endif
