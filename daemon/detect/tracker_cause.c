/* tracker_cause.c — see tracker_cause.h. */
#include "detect/tracker_cause.h"
#include "detect/baseline_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/cause.h"
#include "detect/cause_figures.h"
#include "detect/evidence_store.h"
#include "detect/verdict_text.h"
#include "util/parse.h"
#include "util/strutil.h"

void tracker_cause_peers_clear(struct tracker_cause_peers *p)
{
        for (size_t i = 0; i < p->n; i++) {
                free(p->v[i].probe);
                free(p->v[i].plugin);
        }
        free(p->v);
        *p = (struct tracker_cause_peers){ 0 };
}

void tracker_cause_out_clear(struct tracker_cause_out *out)
{
        free(out->line);
        free(out->error);
        *out = (struct tracker_cause_out){ 0 };
}

/* ---- the figure for people ---------------------------------------------------- */

static bool is_param(const struct result *res, const char *name)
{
        for (size_t i = 0; i < res->n_params; i++)
                if (!strcmp(res->params[i].name, name))
                        return true;
        return false;
}

/* "events_per_second" -> "events/s" and the like, into buf. */
static void what_of(const char *what, char *buf, size_t size)
{
        static const struct { const char *suffix, *said; } units[] = {
                { "_per_cpu_second", "/CPU-s" }, { "_per_second", "/s" },
                { "_seconds", "" }, { NULL, NULL },
        };
        size_t len = strlen(what);
        const char *said = "";
        for (int i = 0; units[i].suffix; i++) {
                size_t l = strlen(units[i].suffix);
                if (len > l && !strcmp(what + len - l, units[i].suffix)) {
                        len -= l;
                        said = units[i].said;
                        break;
                }
        }
        snprintf(buf, size, "%.*s%s", (int)len, what, said);
        for (char *c = buf; *c; c++)
                if (*c == '_')
                        *c = ' ';
}

const char *tracker_cause_figure(const struct baseline_series *s, const struct result *res,
                                 char *buf, size_t size)
{
        const char *m = s->metric;
        size_t pre = strlen("benchwatch_");
        char what[128], extra[128] = "", q[32] = "";
        if (!strncmp(m, "benchwatch_", pre))
                m += pre;
        size_t plen = strlen(res->plugin);
        if (!strncmp(m, res->plugin, plen) && m[plen] == '_')
                m += plen + 1;
        what_of(m, what, sizeof(what));
        for (size_t i = 0; i < s->n_labels; i++) {
                const char *n = s->labels[i].name, *v = s->labels[i].value;
                size_t at = strlen(extra);
                double qv = 0;
                if (!strcmp(n, "quantile") && parse_double(v, &qv) >= 0)
                        snprintf(q, sizeof(q), " p%g", qv * 100);
                else if (!is_param(res, n) && at < sizeof(extra))
                        snprintf(extra + at, sizeof(extra) - at, "%s%s", at ? ", " : "", v);
        }
        snprintf(buf, size, "%s %s%s%s%s%s", res->plugin, what, q, *extra ? " (" : "", extra,
                 *extra ? ")" : "");
        return buf;
}

/* ---- the probes seen run ---------------------------------------------------- */

/* Note run res: its probe is in regression since `since`, or (NAN) is
 * not; clean: the run counted and was judged in no regression. */
static int peers_note(struct tracker_cause_peers *p, const struct result *res, double since,
                      bool clean)
{
        const char *probe = res->probe, *plugin = res->plugin;
        double t = res->started;
        size_t i = 0;
        if (!p->n) /* the first run noted (probes are never forgotten) */
                p->from = t;
        while (i < p->n && strcmp(p->v[i].probe, probe))
                i++;
        if (i == p->n) {
                struct tracker_cause_peer *v = realloc(p->v, (p->n + 1) * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                p->v = v;
                v[i] = (struct tracker_cause_peer){ .probe = strdup(probe),
                                                   .plugin = strdup(plugin), .since = NAN,
                                                   .last_clean = NAN };
                if (!v[i].probe || !v[i].plugin) {
                        free(v[i].probe);
                        free(v[i].plugin);
                        return -ENOMEM;
                }
                p->n++;
        }
        struct tracker_cause_peer *e = &p->v[i];
        if (strcmp(e->plugin, plugin)) { /* a reload gave the probe another plugin */
                char *dup = strdup(plugin);
                if (!dup)
                        return -ENOMEM;
                free(e->plugin);
                e->plugin = dup;
        }
        if (isnan(since) || isnan(e->since))
                e->since = since; /* a regression keeps the time it began */
        if (clean)
                e->last_clean = t;
        e->waits = res->io_bound;
        return 0;
}

/* When probe's regression began, as noted; otherwise since. */
static double peers_began(const struct tracker_cause_peers *p, const char *probe, double since)
{
        for (size_t i = 0; i < p->n; i++)
                if (!strcmp(p->v[i].probe, probe) && !isnan(p->v[i].since))
                        return p->v[i].since;
        return since;
}

/* The plugins of the other probes whose regressions began within window
 * of this one's (at most max - 1, NULL-terminated). */
static void peers_within(const struct tracker_cause_peers *p, const char *probe, double since,
                         double window, const char **ret, size_t max)
{
        size_t n = 0;
        for (size_t i = 0; i < p->n && n + 1 < max; i++)
                if (strcmp(p->v[i].probe, probe) && !isnan(p->v[i].since) &&
                    fabs(p->v[i].since - since) <= window)
                        ret[n++] = p->v[i].plugin;
        ret[n] = NULL;
}

/* Which of the other probes' runs peers_clean_since takes. */
enum peers_kind { PEERS_ANY, PEERS_BOUND, PEERS_WAITING };

/* The plugins of the other probes of kind (bound to the CPU, waiting on
 * a device or a server, or either) in no regression whose latest run
 * counted and judged began at since or later, each plugin once (at most
 * max - 1, NULL-terminated). */
static void peers_clean_since(const struct tracker_cause_peers *p, const char *probe,
                              double since, enum peers_kind kind, const char **ret, size_t max)
{
        size_t n = 0;
        for (size_t i = 0; i < p->n && n + 1 < max; i++) {
                const struct tracker_cause_peer *e = &p->v[i];
                bool take = kind == PEERS_ANY || e->waits == (kind == PEERS_WAITING);
                for (size_t k = 0; k < n && take; k++) /* each plugin once */
                        take = strcmp(ret[k], e->plugin);
                if (take && strcmp(e->probe, probe) && isnan(e->since) && e->last_clean >= since)
                        ret[n++] = e->plugin;
        }
        ret[n] = NULL;
}

/* ---- the device a run measured ----------------------------------------------- */

/* The label by which a probe that measures several devices in turn tells
 * them apart (the gpu plugin's gpu=all: one GPU a run): each device's
 * regression is read from its own runs' evidence (evidence_store.h). */
#define DEVICE_LABEL "gpu"

/* Series s's label name, or NULL. */
static const char *label_of(const struct baseline_series *s, const char *name)
{
        for (size_t i = 0; i < s->n_labels; i++)
                if (!strcmp(s->labels[i].name, name))
                        return s->labels[i].value;
        return NULL;
}

static const char *device_of_series(const struct baseline_series *s)
{
        return label_of(s, DEVICE_LABEL);
}

static const char *device_of_run(const struct result *res)
{
        for (size_t i = 0; i < res->n_families; i++)
                for (size_t k = 0; k < res->families[i].n_samples; k++) {
                        const char *d = result_sample_label(&res->families[i].samples[k],
                                                            DEVICE_LABEL);
                        if (d)
                                return d;
                }
        return NULL;
}

/* ---- the cause -------------------------------------------------------------- */

/* Whether a series this run did not have is in regression: a run that
 * lacks a figure (a summary with no samples) says nothing of its cause. */
static bool unseen_regressed(const struct baseline *b)
{
        for (size_t i = 0; i < b->n_series; i++)
                if (!b->series[i].seen && b->series[i].det.regression)
                        return true;
        return false;
}

/* The series in regression that changed most, how many are, and how many
 * of them entered with this run (all of them: the probe's regression
 * began; some: another figure joined it). */
static const struct baseline_series *worst_of(const struct baseline *b, unsigned *ret_n,
                                              unsigned *ret_entered)
{
        const struct baseline_series *w = NULL;
        *ret_n = 0;
        *ret_entered = 0;
        for (size_t i = 0; i < b->n_series; i++) {
                const struct baseline_series *s = &b->series[i];
                if (!s->seen || !s->verdict.regression)
                        continue;
                (*ret_n)++;
                *ret_entered += s->verdict.transition == DETECTOR_ENTERED;
                if (!w || fabs(s->verdict.change) > fabs(w->verdict.change))
                        w = s;
        }
        return w;
}

struct regressed {
        const struct baseline_series *s;
        struct cause_run runs[EVIDENCE_RECENT_MAX];
        size_t n_runs;
        size_t in_store;  /* of them, the store's last (the reference is before) */
        double since;
        unsigned streak;  /* the latest runs each worse by half the change */
        double tail;      /* cause_input.tail */
};

/* Whether device d has figures in b, each judged by det in no
 * regression: its runs were judged, and judged as before. */
static bool device_clean(const struct baseline *b, const struct detector_config *det,
                         const char *d)
{
        bool any = false;
        for (size_t i = 0; i < b->n_series; i++) {
                const struct baseline_series *s = &b->series[i];
                const char *sd = device_of_series(s);
                struct detector_verdict v;
                if (!sd || strcmp(sd, d))
                        continue;
                detector_state(&s->det, det, s->direction, &v);
                if (!v.valid || v.regression)
                        return false;
                any = true;
        }
        return any;
}

/* The probe's devices other than device with a run counted at since or
 * later (the store keeps counted runs only) and clean in b, each once, in
 * the order they ran (at most max - 1, NULL-terminated). */
static void devices_clean_since(const struct evidence_store *es, const struct baseline *b,
                                const struct detector_config *det, const char *device,
                                double since, const char **ret, size_t max)
{
        size_t n = 0;
        for (size_t i = 0; i < es->n && n + 1 < max; i++) {
                const struct evidence_run *r = &es->runs[i];
                bool skip = !*r->device || !(r->t >= since) ||
                            (device && !strcmp(r->device, device));
                for (size_t k = 0; k < n && !skip; k++)
                        skip = !strcmp(ret[k], r->device);
                if (!skip && device_clean(b, det, r->device))
                        ret[n++] = r->device;
        }
        ret[n] = NULL;
}

/* The quantile s is of (0.99 for a p99), NAN where it is none. */
static double quantile_of(const struct baseline_series *s)
{
        const char *q = label_of(s, "quantile");
        double p;
        return q && parse_double(q, &p) == 0 ? p : NAN;
}

/* Whether t has s's metric and labels but the one named but (a summary's
 * other quantile: "quantile"; another device's same figure: DEVICE_LABEL). */
static bool same_but(const struct baseline_series *s, const struct baseline_series *t,
                     const char *but)
{
        if (strcmp(s->metric, t->metric) || s->n_labels != t->n_labels)
                return false;
        for (size_t i = 0; i < s->n_labels; i++) /* sorted by name */
                if (strcmp(s->labels[i].name, t->labels[i].name) ||
                    (strcmp(s->labels[i].name, but) &&
                     strcmp(s->labels[i].value, t->labels[i].value)))
                        return false;
        return true;
}

/* Between which of its device's runs series s's regression, as det
 * judges it now, began: *ret_before, the last run before its change
 * point (the CUSUM's segment), and *ret_first, the first after.  False
 * where s is in no regression or the change cannot be dated: a segment
 * of 0 (the evidence spent), or as long as the store keeps a device's
 * recent runs or longer (an older change, which would seem to span every
 * other), or runs the store lacks (reset).  The segment, not the
 * latest runs each worse by half the change (regressed_runs): one noisy
 * run in a long regression would date it as new. */
static bool change_between(const struct evidence_store *es, const struct baseline_series *s,
                           const struct detector_config *det, double *ret_before,
                           double *ret_first)
{
        struct detector_verdict v;
        const char *device = device_of_series(s);
        size_t n = s->det.segment;
        detector_state(&s->det, det, s->direction, &v);
        if (!v.valid || !v.regression || n < 1 || n >= EVIDENCE_RECENT_MAX ||
            evidence_store_last(es, device, n + 1, NULL, ret_before) < n + 1)
                return false;
        evidence_store_last(es, device, n, NULL, ret_first);
        return true;
}

/* The probe's devices other than s's whose same figure is in regression
 * too, from the same time: each device's change point lies between its
 * last run before and its first run after, and where those spans overlap
 * (they interleave: gpu=all's GPUs take turns) one event can have slowed
 * both; one that began before s's device last ran as before is its own,
 * and so is one that cannot be dated (change_between).  At most max - 1,
 * NULL-terminated. */
static void devices_regressed_with(const struct evidence_store *es, const struct baseline *b,
                                   const struct detector_config *det,
                                   const struct baseline_series *s, const char **ret,
                                   size_t max)
{
        const char *device = device_of_series(s);
        double before, first, t_before, t_first;
        size_t n = 0;
        ret[0] = NULL;
        if (!device || !change_between(es, s, det, &before, &first))
                return;
        for (size_t i = 0; i < b->n_series && n + 1 < max; i++) {
                const struct baseline_series *t = &b->series[i];
                const char *td = device_of_series(t);
                if (td && strcmp(td, device) && same_but(s, t, DEVICE_LABEL) &&
                    change_between(es, t, det, &t_before, &t_first) && before < t_first &&
                    t_before < first)
                        ret[n++] = td;
        }
        ret[n] = NULL;
}

/* cause_input.tail of s, a figure of res's probe, from the verdicts of
 * the run on b: a quantile above the median, of a probe bound to the
 * CPU, whose median was judged in no regression, nor any figure of the
 * probe but such tails (its rate: runs held up for long enough to lower
 * it lost more than their slowest events); the share above the lowest
 * such quantile of the summary in regression (a p95 and a p99: 5%). */
static double tail_of(const struct baseline *b, const struct baseline_series *s,
                      const struct result *res)
{
        double lowest = quantile_of(s);
        bool median_held = false;
        if (res->io_bound || !(lowest > 0.5 && lowest < 1))
                return 0;
        for (size_t i = 0; i < b->n_series; i++) {
                const struct baseline_series *t = &b->series[i];
                double q = quantile_of(t);
                bool summary = same_but(s, t, "quantile");
                if (!t->seen)
                        continue;
                if (summary && q == 0.5)
                        median_held = t->verdict.valid && !t->verdict.regression;
                else if (t->verdict.regression && !(q > 0.5 && q < 1))
                        return 0;
                else if (t->verdict.regression && summary && q < lowest)
                        lowest = q;
        }
        return median_held ? 1 - lowest : 0;
}

/* The cause of s's regression from the store: 0 (ret->label NULL when
 * there is no evidence to compare), -ENOMEM.  peers and b (the probe's
 * baseline as det judges it, for its other devices) may be NULL. */
static int find_cause(const struct evidence_store *es, const struct tracker_cause_peers *peers,
                      const struct baseline *b, const struct detector_config *det,
                      const struct result *res, double window, struct regressed *g,
                      struct cause *ret)
{
        struct cause_run *ref = calloc(DETECTOR_REF_MAX, sizeof(*ref));
        struct cause_reference cr;
        const char *others[17], *clean[17], *waiting[17], *devices[17], *regressed_with[17];
        if (!ref)
                return -ENOMEM;
        size_t n_ref = evidence_store_reference(es, device_of_series(g->s), g->in_store, ref,
                                                DETECTOR_REF_MAX);
        int r = n_ref ? cause_reference_of(ref, n_ref, &cr) : 0;
        free(ref);
        *ret = (struct cause){ 0 };
        if (r < 0 || !n_ref || !g->n_runs)
                return r;
        others[0] = waiting[0] = devices[0] = regressed_with[0] = NULL;
        if (b) {
                devices_clean_since(es, b, det, device_of_series(g->s), g->since, devices, 17);
                devices_regressed_with(es, b, det, g->s, regressed_with, 17);
        }
        if (peers) {
                /* a figure bound to the CPU: a clean disk or server says
                 * nothing of the host's CPUs (said apart) */
                bool bound = !res->io_bound;
                peers_within(peers, res->probe, g->since, window, others, 17);
                peers_clean_since(peers, res->probe, g->since, bound ? PEERS_BOUND : PEERS_ANY,
                                  clean, 17);
                if (bound)
                        peers_clean_since(peers, res->probe, g->since, PEERS_WAITING, waiting,
                                          17);
        }
        const struct cause_input in = {
                .runs = g->runs, .n_runs = g->n_runs, .ref = &cr,
                .direction = g->s->direction, .change = g->s->verdict.change,
                .plugin = res->plugin, .others = others, .others_window = window,
                .ran_clean = peers && g->since >= peers->from ? clean : NULL,
                .ran_clean_waiting = waiting,
                .devices_clean = devices, .devices_regressed = regressed_with,
                .tail = g->tail,
        };
        r = cause_find(&in, ret);
        return r == -EINVAL ? 0 : r;
}

/* The journal's line: the verdict, with the cause and its evidence; was:
 * the cause named before, when it changed. */
static char *line_of(const struct baseline *b, const struct regressed *g, unsigned n_regressed,
                     const struct cause *c, const char *was, const struct result *res)
{
        char fig[192], more[64] = "";
        const struct detector_verdict *v = &g->s->verdict;
        const struct verdict_text vt = {
                .figure = tracker_cause_figure(g->s, res, fig, sizeof(fig)),
                .change = v->change, .change_lo = v->change_lo, .change_hi = v->change_hi,
                .since = g->since, .reference_runs = g->s->det.n_ref,
                .reference_time = v->reference_time, .cause = c->label ? c : NULL,
                .now = res->started,
        };
        if (n_regressed > 1)
                snprintf(more, sizeof(more), "; %u figures of the probe in regression",
                         n_regressed);
        char *text = verdict_text_line(&vt);
        char *ctx = baseline_report_context_change(b);
        char *line = text ? str_printf("probe '%s': %s%s%s%s%s%s%s", b->probe, text, more,
                                       was ? " (the cause named before: " : "", was ? was : "",
                                       was ? ")" : "",
                                       ctx ? "; measured on another context than the "
                                             "reference: " : "", ctx ? ctx : "") : NULL;
        free(text);
        free(ctx);
        return line;
}

/* How many of the series' latest counted runs, newest first, are each
 * worse than its reference by half the verdict's change or more; 0 when
 * it cannot say or the change is not worse. */
static unsigned worse_streak(const struct baseline_series *s)
{
        const struct detector *d = &s->det;
        bool higher = s->direction == DETECTOR_HIGHER_IS_BETTER;
        double ref = s->verdict.reference, half = (higher ? -1 : 1) * s->verdict.change / 2;
        unsigned streak = 0;
        if (!(ref > 0) || !(half > 0) || s->direction == DETECTOR_NONE)
                return 0;
        for (unsigned i = d->n_recent; i-- > 0; streak++) {
                double rel = d->recent[i] / ref - 1;
                if (!((higher ? -rel : rel) >= half))
                        break;
        }
        return streak;
}

/* The runs since the latest change point of the probe's regressed
 * figures, from the store, and when they began.  One figure's CUSUM may
 * have risen on noise long before the step (a p99 latency with an outlier
 * among its reference runs): its segment alone would date the change too
 * early, and the runs before the step would hide the step's cause
 * (alerts.sh, 5 December: p99 +960%, its segment 21 runs long by the
 * end, read "no host counter moved" while every slowed run was throttled
 * in all its quota periods).  And within the segment, only the latest
 * runs that are each worse than the reference by half the change or more:
 * a CUSUM that noise kept above 0 for a few runs before a step counts
 * those runs too, and where they were half of the segment the step's
 * cause fell under its threshold (alerts.sh, 5 December: a CPU quota read
 * as the component, once in 5 runs). */
static void regressed_runs(const struct evidence_store *es, const struct baseline *b,
                           const struct result *res, struct regressed *g)
{
        unsigned seg = g->s->det.segment;
        for (size_t i = 0; i < b->n_series; i++) {
                const struct baseline_series *s = &b->series[i];
                if (s->seen && s->verdict.regression && s->det.segment &&
                    s->det.segment < seg)
                        seg = s->det.segment;
        }
        g->streak = worse_streak(g->s);
        if (g->streak && g->streak < seg)
                seg = g->streak;
        size_t want = seg < 1 ? 1 : seg > EVIDENCE_RECENT_MAX ? EVIDENCE_RECENT_MAX : seg;
        g->n_runs = g->in_store = evidence_store_last(es, device_of_series(g->s), want, g->runs,
                                                      &g->since);
        if (isnan(g->since))
                g->since = res->started;
}

/* Whether a figure of the run was judged against a reference (one still
 * learnt has none: its runs cannot be in regression, and say nothing). */
static bool judged(const struct baseline *b)
{
        for (size_t i = 0; i < b->n_series; i++)
                if (b->series[i].seen && b->series[i].verdict.valid)
                        return true;
        return false;
}

static int name_cause(const char *state_dir, struct tracker_cause_peers *peers,
                      const struct baseline *b, const struct detector_config *det,
                      struct result *res, bool counted, struct evidence_store *es,
                      double window, struct tracker_cause_out *out)
{
        unsigned n_regressed, n_entered;
        struct regressed g = { .s = worst_of(b, &n_regressed, &n_entered) };
        bool entered = n_entered > 0, began = n_entered == n_regressed;
        if (!g.s && unseen_regressed(b))
                return 0; /* the cause named, and when it began, stand */
        if (!g.s) {
                /* the cause goes with the regression even where the note
                 * (for other probes' evidence) cannot be kept */
                int r = evidence_store_set_cause(es, NULL, NULL);
                int rn = peers_note(peers, res, NAN, counted && judged(b));
                return r < 0 ? r : rn;
        }
        regressed_runs(es, b, res, &g);
        g.tail = tail_of(b, g.s, res);
        int r = peers_note(peers, res, g.since, false);
        g.since = peers_began(peers, res->probe, g.since);
        struct cause c = { 0 }, named = { 0 };
        if (r >= 0)
                r = find_cause(es, peers, b, det, res, window, &g, &c);
        /* Once named, a cause stays for the probe's whole regression: the
         * alert of each of its figures carries it as a label, and a cause
         * that moved resolved that alert while the figure was still
         * regressed.  It moved on runs on their way back, read as evidence
         * (alerts.sh's lift step, 5 December: in 3 of 4 runs), and when
         * another figure of the probe, worse on in the runs after the
         * step, was read again (6 December: once in 3).  Only stronger
         * evidence replaces it: the host's event, when other probes join,
         * or a cause earlier in cause.h's order while the worst figure is
         * still getting worse (not on its way back: the detector's
         * evidence of "back" is above 0, or no latest run is worse by half
         * the change).  A cause read on a tail held up stands while the
         * tail does: once the median or the rate joins, its sentence
         * ("the median one and the rate as in the reference") is no
         * longer true, and the cause is read again. */
        bool back = g.s->det.clear > 0 || !g.streak;
        bool tail_gone = es->cause_text && strstr(es->cause_text, CAUSE_TAIL_NOTE) &&
                         !(g.tail > 0);
        bool keep = r >= 0 && !began && !tail_gone &&
                    cause_of_label(es->cause_label, &named) == 0 &&
                    (!c.label || (c.kind != named.kind && c.kind != CAUSE_HOST &&
                                  (back || c.kind > named.kind)));
        if (keep) {
                cause_clear(&c);
                c = named;
                if (es->cause_text && !(c.evidence = strdup(es->cause_text)))
                        r = -ENOMEM;
        }
        const char *was = es->cause_label;
        bool changed = c.label && (!was || strcmp(was, c.label));
        if (r >= 0 && (entered || changed) && !(out->line = line_of(b, &g, n_regressed, &c,
                                                                     entered ? NULL : was,
                                                                     res)))
                r = -ENOMEM;
        if (r >= 0 && c.label) {
                const char *lv[] = { "cause", c.label, NULL };
                out->label = c.label;
                r = result_add(res, "benchwatch_regression_cause",
                               "The most likely cause of the probe's regression (1 for the "
                               "one named): host, component, cpu_quota, neighbour, clock, "
                               "heat, hypervisor, memory_errors, memory_pressure, "
                               "disk_device, disk_queue, kernel_log, inventory",
                               METRIC_GAUGE, lv, 1, NULL);
                if (r >= 0 && !keep)
                        r = evidence_store_set_cause(es, c.label, c.evidence);
        }
        cause_clear(&c);
        return r;
}

int tracker_cause_verify(const char *state_dir, const struct baseline_series *s, double change,
                         const struct result *const *runs, size_t n, struct cause *ret)
{
        struct evidence_store es = { 0 };
        struct regressed g = { .s = s, .since = NAN };
        struct baseline_series moved = *s;
        *ret = (struct cause){ 0 };
        if (!n || evidence_store_load(state_dir, runs[0]->probe, &es, NULL) == -ENOMEM)
                return n ? -ENOMEM : 0;
        moved.verdict.change = change;
        g.s = &moved;
        for (size_t i = 0; i < n && g.n_runs < EVIDENCE_RECENT_MAX; i++)
                cause_figures_of(runs[i], &g.runs[g.n_runs++]);
        int r = find_cause(&es, NULL, NULL, NULL, runs[0], 0, &g, ret);
        evidence_store_clear(&es);
        return r;
}

int tracker_cause_note(const char *state_dir, struct tracker_cause_peers *peers,
                       const struct baseline *b, const struct detector_config *det,
                       struct result *res, bool counted, bool reference, double window,
                       struct tracker_cause_out *out)
{
        struct evidence_store es = { 0 };
        struct cause_run fig;
        *out = (struct tracker_cause_out){ 0 };
        int r = evidence_store_load(state_dir, res->probe, &es, &out->error);
        bool readable = r >= 0 || r == -EBADMSG; /* a bad file: said, and started afresh */
        if (r == -ENOMEM)
                return r;
        if (!readable)
                return 0; /* said in out->error; nothing kept, nothing named */
        r = 0;
        cause_figures_of(res, &fig);
        char *was = es.cause_label ? strdup(es.cause_label) : NULL;
        if (counted)
                r = evidence_store_add(&es, res->started, reference, device_of_run(res), &fig);
        if (r >= 0)
                r = name_cause(state_dir, peers, b, det, res, counted, &es, window, out);
        bool cause_moved = (was == NULL) != (es.cause_label == NULL) ||
                           (was && strcmp(was, es.cause_label));
        if (r >= 0 && (counted || cause_moved)) {
                char *err = NULL;
                if (evidence_store_save(state_dir, res->probe, &es, &err) < 0 && !out->error)
                        out->error = err;
                else
                        free(err);
        }
        free(was);
        evidence_store_clear(&es);
        return r;
}
