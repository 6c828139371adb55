/* fleetsim.c — a fleet of simulated benchwatch hosts, remote-written by
 * benchwatch's own encoder (daemon/encode/prom_remote_write.c, snappy)
 * and HTTP client (daemon/sink/httpc.c), for lab/fleet/fleet-sim.sh.
 *
 * The cohort rules are the fleet's second detector, and only a real
 * receiver with thousands of hosts shows what they cost and whether they
 * pick the right hosts.  Every simulated host sends what a real daemon
 * with the built-in configuration sends: the series of a textfile that
 * daemon wrote (its names and labels, grouped by probe into one run each,
 * the host's info metrics added to every request as the remote-write sink
 * does), each probe at its built-in interval (divided by --speedup) with a
 * random phase, from a window of the past up to now (sent at once: the
 * backfill) and then for --live seconds (each run sent at its own time),
 * in time order.  Before that window, --thin seconds more of the past
 * carry only the figures the cohort rules read over a day
 * (the throughput and p99 figures: thin_families), many runs of many
 * hosts per request as vmagent would batch them: a day of every series
 * of 10,000 hosts would take this 2-core VM hours to send, and what the
 * rules do not read back does not change what they find.  The runs are
 * generated as they are sent (a heap of each host's and probe's next
 * run), so the sender's memory does not grow with the hours sent.
 * The values are the textfile's, scaled by the host's
 * hardware (one of four CPU models, one of three disk models, and a
 * per-host offset of 2%), times a run-to-run noise drawn from the real
 * history the same daemon recorded (history-<probe>.txt, counted runs of
 * the per-operation median: see probe_def).  1% of hosts get disks 15% slower (IOPS and
 * bandwidth x0.85, latencies /0.85), 1% the CPU and memory speed of the
 * next slower model while labelled as their own: the injected hosts are
 * written to a file for the scoring.  Not installed, not a test. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <snappy-c.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/result.h"
#include "encode/prom_remote_write.h"
#include "sink/httpc.h"
#include "util/strutil.h"

enum kind { K_KEEP, K_RATE, K_LAT, K_TS };
enum speed { S_CPU, S_MEM, S_DISK, S_NONE };

/* The noise of a run is that of the figure a co-tenant moves least, the
 * per-operation median (DESIGN.md: "judged by what a neighbour cannot
 * move"): a throughput figure of a run on a shared machine moves with the
 * neighbours' load, which a fleet of dedicated hosts does not have.  The
 * DRAM bandwidth probe has no per-operation figure: it takes the noise of
 * the memory latency probe. */
struct probe_def {
        const char *name;
        double interval;        /* the built-in configuration's */
        enum speed speed;
        const char *noise_probe, *noise_key;
};

static const struct probe_def probes[] = {
        { "cpu", 600, S_CPU, "cpu", "_latency_seconds{" },
        { "threads", 1800, S_CPU, "threads", "_latency_seconds{" },
        { "memory", 1200, S_MEM, "memory-latency", "_load_latency_seconds{" },
        { "memory-latency", 1800, S_MEM, "memory-latency", "_load_latency_seconds{" },
        { "disk", 1800, S_DISK, "disk", "_latency_seconds{" },
};
#define N_PROBES (sizeof(probes) / sizeof(probes[0]))

/* What the rules read over a window (conf/benchwatch.rules.yml,
 * benchwatch:throughput:median_24h, latency_p99_seconds:median_24h): all
 * a thin run carries. */
static const char *const thin_families[] = {
        "benchwatch_cpu_events_per_second",
        "benchwatch_threads_events_per_second",
        "benchwatch_memory_bytes_per_second",
        "benchwatch_disk_iops",
        "benchwatch_disk_latency_seconds",
};
/* Samples per thin request (Prometheus's own remote write sends up to
 * 2,000 per request by default from 2.43, vmagent 10,000). */
#define THIN_BATCH 2000

struct model {
        const char *name;
        double speed, mem;
};

/* Ordered fastest first: a mislabelled host runs at the next one's speed. */
static const struct model cpus[] = {
        { "AMD EPYC 9654 96-Core Processor", 1.25, 1.30 },
        { "AMD EPYC 7B13 64-Core Processor", 1.00, 1.00 },
        { "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", 0.80, 0.85 },
        { "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz", 0.62, 0.70 },
};
static const struct model disks[] = {
        { "SAMSUNG MZQL23T8HCLS-00A07", 1.00, 0 },
        { "Micron_7450_MTFDKBA960TFR", 0.90, 0 },
        { "INTEL SSDPE2KX040T8", 0.75, 0 },
};
#define N_CPUS (sizeof(cpus) / sizeof(cpus[0]))
#define N_DISKS (sizeof(disks) / sizeof(disks[0]))

/* One run's template: the result, and per sample its textfile value and
 * how a host's speed changes it. */
struct tpl {
        struct result *r;
        double *base;
        enum kind *kind;
        bool *noisy;
        size_t n;
        double *noise;          /* ln(real run / their median) */
        bool *counted, all_runs;
        size_t n_noise;
        double mean, sd, iqr_sd, bw; /* of noise[] (iqr_sd: IQR / 1.349);
                                      * the smoothing's bandwidth */
        struct result thin;     /* r's thin_families, sharing its samples */
};

struct host {
        int cpu, disk;          /* labelled models */
        double speed[3];        /* S_CPU, S_MEM, S_DISK */
        char inject;            /* 0, 'd' slow disk, 'c' mislabelled CPU */
};

struct event {
        double t, interval;
        uint32_t host;
        uint8_t probe;
};

static uint64_t rng_state = 88172645463325252ULL;

static double urand(void)
{
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double nrand(void)
{
        double u = urand(), v = urand();
        return sqrt(-2.0 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

static bool ends_with(const char *s, const char *suffix)
{
        size_t a = strlen(s), b = strlen(suffix);
        return a >= b && !strcmp(s + a - b, suffix);
}

static enum kind kind_of(const char *name)
{
        if (!strcmp(name, "benchwatch_probe_last_run_timestamp_seconds"))
                return K_TS;
        if (strstr(name, "_per_second") || ends_with(name, "_iops"))
                return K_RATE;
        if (ends_with(name, "_seconds") && !ends_with(name, "_timestamp_seconds") &&
            !ends_with(name, "_time_seconds") && !ends_with(name, "_duration_seconds"))
                return K_LAT;
        return K_KEEP;
}

/* ---- the textfile --------------------------------------------------------- */

/* Parse `name{a="b",...} value` into r (the probe label picks the result;
 * "" for none).  Returns the probe's index in probes[], N_PROBES for a
 * series without probe, -1 for a line to skip. */
static int parse_line(char *line, char ***ret_lab, double *ret_value, char **ret_name)
{
        static char *lab[64];
        size_t n = 0;
        char *p = line + strcspn(line, "{ ");
        int probe = (int)N_PROBES;

        if (*line == '#' || *line == '\n' || !*line)
                return -1;
        if (*p == '{') {
                *p++ = '\0';
                while (*p && *p != '}') {
                        char *k = p, *v, *w;
                        p = strchr(p, '=');
                        if (!p || p[1] != '"' || n + 3 > 64)
                                return -1;
                        *p = '\0';
                        v = w = p + 2;
                        for (p = v; *p && *p != '"'; p++) {
                                if (*p == '\\' && p[1])
                                        p++;
                                *w++ = *p;
                        }
                        if (*p != '"')
                                return -1;
                        *w = '\0';
                        p++;
                        if (*p == ',')
                                p++;
                        if (!strcmp(k, "probe")) {
                                probe = -1;
                                for (size_t i = 0; i < N_PROBES; i++)
                                        if (!strcmp(v, probes[i].name))
                                                probe = (int)i;
                                if (probe < 0)
                                        return -1;
                                continue;
                        }
                        lab[n++] = k;
                        lab[n++] = v;
                }
                p++;
        } else {
                *p++ = '\0';
        }
        lab[n] = NULL;
        *ret_name = line;
        *ret_lab = lab;
        *ret_value = strtod(p, NULL);
        return probe;
}

static int read_textfile(const char *path, struct tpl *t)
{
        FILE *f = fopen(path, "re");
        char *line = NULL, **lab, *name;
        size_t cap = 0;
        double v;

        if (!f)
                return -errno;
        for (size_t i = 0; i <= N_PROBES; i++)
                t[i].r = result_new(i < N_PROBES ? probes[i].name : "", "sim");
        while (getline(&line, &cap, f) > 0) {
                line[strcspn(line, "\n")] = '\0';
                int p = parse_line(line, &lab, &v, &name);
                if (p < 0)
                        continue;
                if (result_add(t[p].r, name, "", METRIC_GAUGE,
                               (const char *const *)lab, v, NULL) < 0)
                        return -ENOMEM;
        }
        free(line);
        fclose(f);
        return 0;
}

/* Per sample: its base value and kind; benchwatch_baseline and the
 * regression figures follow their `metric`, without the run's noise.  A
 * simulated host's own detector is clean: the recorded daemon, whose
 * references are pinned after 4 runs, may have entered a regression, and
 * every host copying its benchwatch_regression 1 would fire
 * BenchwatchRegression (10,000 of them at 10,000 hosts). */
static int index_tpl(struct tpl *t)
{
        size_t n = 0, k = 0;

        for (size_t i = 0; i < t->r->n_families; i++)
                n += t->r->families[i].n_samples;
        t->base = calloc(n + 1, sizeof(*t->base));
        t->kind = calloc(n + 1, sizeof(*t->kind));
        t->noisy = calloc(n + 1, sizeof(*t->noisy));
        if (!t->base || !t->kind || !t->noisy)
                return -ENOMEM;
        for (size_t i = 0; i < t->r->n_families; i++) {
                const struct family *f = &t->r->families[i];
                for (size_t j = 0; j < f->n_samples; j++, k++) {
                        const char *metric = result_sample_label(&f->samples[j], "metric");
                        bool ref = !strcmp(f->name, "benchwatch_baseline");
                        t->base[k] = strcmp(f->name, "benchwatch_regression") ?
                                             f->samples[j].value : 0;
                        t->kind[k] = ref && metric ? kind_of(metric) : kind_of(f->name);
                        t->noisy[k] = !ref;
                }
        }
        t->n = n;
        return 0;
}

/* The families of r a thin run carries: shallow copies sharing r's samples
 * (fill_run's values), freed with free(thin.families) only. */
static int make_thin(struct tpl *t)
{
        t->thin = *t->r;
        t->thin.families = calloc(t->r->n_families + 1, sizeof(struct family));
        t->thin.n_families = 0;
        if (!t->thin.families)
                return -ENOMEM;
        for (size_t i = 0; i < t->r->n_families; i++)
                for (size_t j = 0; j < sizeof(thin_families) / sizeof(thin_families[0]); j++)
                        if (!strcmp(t->r->families[i].name, thin_families[j]))
                                t->thin.families[t->thin.n_families++] = t->r->families[i];
        return 0;
}

static int by_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

/* The counted real runs of the probe's per-operation median, as ln speeds:
 * ln(the median of the runs / each run). */
static void read_noise(const char *dir, const struct probe_def *d, struct tpl *t)
{
        char *path = str_printf("%s/history-%s.txt", dir, d->noise_probe);
        FILE *f = path ? fopen(path, "re") : NULL;
        char *line = NULL, key[4096] = "", k[4096];
        size_t cap = 0;
        double ts, v, ref;
        int counted;
        size_t n_counted = 0;
        char state;

        free(path);
        while (f && getline(&line, &cap, f) > 0) {
                if (sscanf(line, "%lf %d %c %lf %lf %4095s", &ts, &counted, &state,
                           &v, &ref, k) < 6 && sscanf(line, "%lf %d %c %lf - %4095s",
                                                      &ts, &counted, &state, &v, k) < 5)
                        continue;
                if (!*key && strstr(k, d->noise_key) &&
                    (strstr(k, "quantile=\"0.5\"") || !strstr(k, "quantile=")))
                        snprintf(key, sizeof(key), "%s", k);
                if (strcmp(key, k) || !(v > 0))
                        continue;
                double *n = realloc(t->noise, (t->n_noise + 1) * sizeof(*n));
                bool *c = realloc(t->counted, (t->n_noise + 1) * sizeof(*c));
                if (c)
                        t->counted = c;
                if (!n || !c) {
                        free(n);
                        break;
                }
                t->noise = n;
                t->counted[t->n_noise] = counted;
                t->noise[t->n_noise++] = v;
                n_counted += counted != 0;
        }
        free(line);
        if (f)
                fclose(f);
        /* The runs the daemon counted (its own judgement: a run with too
         * much steal or pressure is not), unless it counted fewer than 10:
         * on a VM shared with busy neighbours a probe may learn its
         * reference for minutes without counting a run (the disk probe
         * counted 2 of 19 in one 420 s recording), and all of them, their
         * disturbed runs too, say more about the noise than two. */
        if (n_counted >= 10) {
                size_t j = 0;
                for (size_t i = 0; i < t->n_noise; i++)
                        if (t->counted[i])
                                t->noise[j++] = t->noise[i];
                t->n_noise = j;
        }
        t->all_runs = n_counted < 10;
        if (!t->n_noise)
                return;
        double *s = malloc(t->n_noise * sizeof(*s));
        if (!s)
                return;
        memcpy(s, t->noise, t->n_noise * sizeof(*s));
        qsort(s, t->n_noise, sizeof(*s), by_double);
        double med = t->n_noise % 2 ? s[t->n_noise / 2]
                                    : (s[t->n_noise / 2 - 1] + s[t->n_noise / 2]) / 2;
        for (size_t i = 0; i < t->n_noise; i++)
                t->noise[i] = log(med / t->noise[i]);
        /* A smoothed bootstrap: each draw is a recorded run plus a normal
         * of Silverman's bandwidth, shrunk so that the mean and variance
         * stay the recorded ones.  Drawn from a few dozen values as they
         * are, the median of many draws would be one of them, steadier
         * than the median of real runs. */
        double m = 0, var = 0;
        for (size_t i = 0; i < t->n_noise; i++)
                m += t->noise[i] / (double)t->n_noise;
        for (size_t i = 0; i < t->n_noise; i++)
                var += (t->noise[i] - m) * (t->noise[i] - m);
        t->mean = m;
        t->sd = t->n_noise > 1 ? sqrt(var / (double)(t->n_noise - 1)) : 0;
        for (size_t i = 0; i < t->n_noise; i++)
                s[i] = t->noise[i];
        qsort(s, t->n_noise, sizeof(*s), by_double);
        double iqr = s[(3 * t->n_noise) / 4] - s[t->n_noise / 4];
        t->iqr_sd = iqr / 1.349;
        double spread = iqr / 1.34 > 0 && iqr / 1.34 < t->sd ? iqr / 1.34 : t->sd;
        t->bw = 0.9 * spread * pow((double)t->n_noise, -0.2);
        free(s);
}

/* One run's noise, as a factor on speed. */
static double draw_noise(const struct tpl *t)
{
        if (!t->n_noise)
                return 1;
        double x = t->noise[(size_t)(urand() * (double)t->n_noise)] + t->bw * nrand();
        double shrink = t->sd > 0 ? 1 / sqrt(1 + t->bw * t->bw / (t->sd * t->sd)) : 1;
        return exp(t->mean + (x - t->mean) * shrink);
}

/* ---- hosts and runs ------------------------------------------------------- */

static void make_hosts(struct host *h, size_t n, double disk_slow, FILE *inj)
{
        size_t n_inj = n / 100, *order = malloc(n * sizeof(*order));

        for (size_t i = 0; i < n; i++) {
                h[i].cpu = (int)(i % N_CPUS);
                h[i].disk = (int)((i / N_CPUS) % N_DISKS);
                h[i].speed[S_CPU] = cpus[h[i].cpu].speed * exp(0.02 * nrand());
                h[i].speed[S_MEM] = cpus[h[i].cpu].mem * exp(0.02 * nrand());
                h[i].speed[S_DISK] = disks[h[i].disk].speed * exp(0.02 * nrand());
                order[i] = i;
        }
        for (size_t i = n - 1; i > 0; i--) {
                size_t j = (size_t)(urand() * (double)(i + 1)), x = order[i];
                order[i] = order[j];
                order[j] = x;
        }
        /* the first 1% get slow disks; the next 1%, among hosts whose model
         * has a slower one, the slower model's speed */
        for (size_t i = 0, c = 0; i < n && (i < n_inj || c < n_inj); i++) {
                struct host *x = &h[order[i]];
                if (i < n_inj) {
                        x->inject = 'd';
                        x->speed[S_DISK] *= disk_slow;
                } else if ((size_t)x->cpu + 1 < N_CPUS) {
                        const struct model *m = &cpus[x->cpu], *s = &cpus[x->cpu + 1];
                        x->inject = 'c';
                        x->speed[S_CPU] *= s->speed / m->speed;
                        x->speed[S_MEM] *= s->mem / m->mem;
                        c++;
                }
                if (x->inject)
                        fprintf(inj, "host-%05zu %s\n", order[i],
                                x->inject == 'd' ? "disk" : "cpu");
        }
        free(order);
}

/* The runs to come, as a binary heap on time: one entry per host and
 * probe, its next run.  Every run from `from` to `end`, each probe at its
 * built-in interval divided by speedup, from a random phase. */
struct runs {
        struct event *e;
        size_t n;
        double end;
};

static void heap_down(struct runs *q, size_t i)
{
        for (;;) {
                size_t l = 2 * i + 1, m = i;
                if (l < q->n && q->e[l].t < q->e[m].t)
                        m = l;
                if (l + 1 < q->n && q->e[l + 1].t < q->e[m].t)
                        m = l + 1;
                if (m == i)
                        return;
                struct event x = q->e[i];
                q->e[i] = q->e[m];
                q->e[m] = x;
                i = m;
        }
}

static int runs_init(struct runs *q, size_t n_hosts, double from, double end, double speedup)
{
        q->e = calloc(n_hosts * N_PROBES, sizeof(*q->e));
        q->n = 0;
        q->end = end;
        if (!q->e)
                return -ENOMEM;
        for (size_t h = 0; h < n_hosts; h++)
                for (size_t p = 0; p < N_PROBES; p++) {
                        double iv = probes[p].interval / speedup;
                        q->e[q->n++] = (struct event){ from + urand() * iv, iv, (uint32_t)h,
                                                       (uint8_t)p };
                }
        for (size_t i = q->n / 2 + 1; i-- > 0;)
                heap_down(q, i);
        return 0;
}

/* The next run in time order; false when none is left before q->end. */
static bool runs_next(struct runs *q, struct event *ret)
{
        while (q->n) {
                *ret = q->e[0];
                q->e[0].t += q->e[0].interval;
                if (q->e[0].t > q->end)
                        q->e[0] = q->e[--q->n];
                heap_down(q, 0);
                if (ret->t <= q->end)
                        return true;
        }
        return false;
}

static void set_label(struct result *r, const char *family, const char *name,
                      const char *value)
{
        for (size_t i = 0; i < r->n_families; i++) {
                if (strcmp(r->families[i].name, family))
                        continue;
                for (size_t j = 0; j < r->families[i].n_samples; j++) {
                        struct sample *s = &r->families[i].samples[j];
                        for (size_t k = 0; k < s->n_labels; k++)
                                if (!strcmp(s->labels[k].name, name)) {
                                        free(s->labels[k].value);
                                        s->labels[k].value = strdup(value);
                                }
                }
        }
}

/* Fill the probe's template with host h's run at time t. */
static void fill_run(struct tpl *t, const struct host *h, enum speed sp, double at,
                     size_t host_no)
{
        double speed = sp == S_NONE ? 1 : h->speed[sp];
        double noise = draw_noise(t);
        size_t k = 0;
        char serial[32];

        for (size_t i = 0; i < t->r->n_families; i++)
                for (size_t j = 0; j < t->r->families[i].n_samples; j++, k++) {
                        double f = speed * (t->noisy[k] ? noise : 1), v = t->base[k];
                        switch (t->kind[k]) {
                        case K_RATE: v *= f; break;
                        case K_LAT: v /= f; break;
                        case K_TS: v = at; break;
                        case K_KEEP: break;
                        }
                        t->r->families[i].samples[j].value = v;
                }
        t->r->started = at;
        t->thin.started = at;
        if (sp == S_DISK) {
                snprintf(serial, sizeof(serial), "S%08zu", host_no);
                set_label(t->r, "benchwatch_disk_info", "model", disks[h->disk].name);
                set_label(t->r, "benchwatch_disk_info", "serial", serial);
        }
}

static const char *const rw_headers[] = {
        "Content-Encoding: snappy",
        "Content-Type: application/x-protobuf",
        "X-Prometheus-Remote-Write-Version: 0.1.0",
        NULL,
};

/* One phase's counts: the thin past (runs of the past, only what the
 * rules read over a day, batched), the backfill (runs of the past, every
 * series, one request per run, sent as fast as the receiver takes them)
 * or the live runs (each sent at its own time). */
struct stats {
        size_t requests, failed, samples, bytes;
        double started, ended, max_lag;
};
enum { P_THIN, P_BACKFILL, P_LIVE, N_PHASES };

static double now_real(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
        struct timespec ts = { .tv_sec = (time_t)t,
                               .tv_nsec = (long)((t - floor(t)) * 1e9) };
        while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

static void post(CURL *c, const char *url, const uint8_t *body, size_t len, size_t ns,
                 struct stats *st)
{
        struct httpc_opts o = { .connect_timeout_ms = 5000, .timeout_ms = 60000 };
        struct httpc_reply rep = { 0 };

        if (httpc_request(c, &o, "POST", url, rw_headers, body, len, &rep) < 0 &&
            st->failed++ < 5)
                fprintf(stderr, "fleetsim: %s: %s\n", url, rep.error ? rep.error : "failed");
        free(rep.error);
        st->requests++;
        st->samples += ns;
        st->bytes += len;
}

/* Thin runs gather here, as the uncompressed WriteRequest of all of them:
 * protobuf messages concatenated are one message whose repeated fields
 * (WriteRequest.timeseries) are the parts' together. */
struct batch {
        char *raw;
        size_t len, cap, samples;
};

static int batch_flush(CURL *c, const char *url, struct batch *b, struct stats *st)
{
        size_t out_len;
        char *out;

        if (!b->samples)
                return 0;
        out_len = snappy_max_compressed_length(b->len);
        out = malloc(out_len + 1);
        if (!out || snappy_compress(b->raw, b->len, out, &out_len) != SNAPPY_OK) {
                free(out);
                return -ENOMEM;
        }
        post(c, url, (const uint8_t *)out, out_len, b->samples, st);
        free(out);
        b->len = b->samples = 0;
        return 0;
}

static int batch_add(struct batch *b, const uint8_t *body, size_t len, size_t ns)
{
        size_t n;

        if (snappy_uncompressed_length((const char *)body, len, &n) != SNAPPY_OK)
                return -EINVAL;
        if (b->len + n > b->cap) {
                size_t cap = (b->len + n) * 2;
                char *x = realloc(b->raw, cap);
                if (!x)
                        return -ENOMEM;
                b->raw = x;
                b->cap = cap;
        }
        if (snappy_uncompress((const char *)body, len, b->raw + b->len, &n) != SNAPPY_OK)
                return -EINVAL;
        b->len += n;
        b->samples += ns;
        return 0;
}

static int send_one(CURL *c, struct tpl *t, const struct host *h, const struct event *e,
                    const char *url, struct stats *st, struct batch *thin)
{
        char inst[32];
        struct prom_remote_write_target tg = { .job = "benchwatch", .instance = inst };
        struct tpl *p = &t[e->probe];
        uint8_t *body;
        size_t len, ns;
        int r;

        if (thin && !p->thin.n_families)
                return 0;
        snprintf(inst, sizeof(inst), "host-%05u", e->host);
        fill_run(p, h, probes[e->probe].speed, e->t, e->host);
        if (thin) {
                if (prom_remote_write_encode(&p->thin, NULL, &tg, &body, &len, &ns) < 0)
                        return -ENOMEM;
                r = batch_add(thin, body, len, ns);
                free(body);
                if (r >= 0 && thin->samples >= THIN_BATCH)
                        r = batch_flush(c, url, thin, st);
                return r;
        }
        fill_run(&t[N_PROBES], h, S_NONE, e->t, e->host);
        set_label(t[N_PROBES].r, "benchwatch_host_info", "cpu_model", cpus[h->cpu].name);
        if (prom_remote_write_encode(p->r, t[N_PROBES].r, &tg, &body, &len, &ns) < 0)
                return -ENOMEM;
        post(c, url, body, len, ns, st);
        free(body);
        return 0;
}

/* Thin runs before `full`, the backfill up to `start`, live after. */
static int send_all(struct tpl *t, const struct host *hosts, struct runs *q,
                    double full, double start, const char *url, struct stats st[N_PHASES])
{
        char *err = NULL;
        CURL *c = httpc_open(&err);
        struct batch thin = { 0 };
        struct event e;
        int r = 0, ph = -1;

        if (!c) {
                fprintf(stderr, "fleetsim: %s\n", err ? err : "cannot load libcurl");
                return -EIO;
        }
        while (r >= 0 && runs_next(q, &e)) {
                int now_ph = e.t < full ? P_THIN : e.t <= start ? P_BACKFILL : P_LIVE;
                if (now_ph != ph) {
                        if (ph == P_THIN)
                                r = batch_flush(c, url, &thin, &st[ph]);
                        if (ph >= 0)
                                st[ph].ended = now_real();
                        ph = now_ph;
                        st[ph].started = ph == P_LIVE ? e.t : now_real();
                        if (ph == P_LIVE) {
                                /* lab/fleet/fleet-sim.sh starts the rules now:
                                 * a record written at now would make
                                 * Prometheus refuse the past as out of
                                 * bounds (older than its newest sample
                                 * less an hour) */
                                printf("past sent\n");
                                fflush(stdout);
                        }
                }
                if (ph == P_LIVE) {
                        sleep_until(e.t);
                        double lag = now_real() - e.t;
                        if (lag > st[ph].max_lag)
                                st[ph].max_lag = lag;
                }
                if (r >= 0)
                        r = send_one(c, t, &hosts[e.host], &e, url, &st[ph],
                                     ph == P_THIN ? &thin : NULL);
        }
        if (r >= 0 && ph == P_THIN)
                r = batch_flush(c, url, &thin, &st[ph]);
        if (ph >= 0)
                st[ph].ended = now_real();
        free(thin.raw);
        httpc_close(c);
        return r;
}

static size_t count_series(const struct result *r)
{
        size_t n = 0;
        for (size_t i = 0; i < r->n_families; i++)
                n += r->families[i].n_samples;
        return n;
}

static void print_stats(const char *phase, const struct stats *s)
{
        double secs = s->ended - s->started;

        if (!s->requests || !(secs > 0))
                return;
        printf("%s: requests=%zu failed=%zu samples=%zu bytes=%zu seconds=%.1f "
               "requests_per_s=%.0f samples_per_s=%.0f max_lag_s=%.1f\n",
               phase, s->requests, s->failed, s->samples, s->bytes, secs,
               (double)s->requests / secs, (double)s->samples / secs, s->max_lag);
}

/* The spread of the noise drawn for probe i: sd of ln(run / median). */
static double noise_sd(const struct tpl *t)
{
        return t->sd;
}

static void usage(void)
{
        fputs("usage: fleetsim --textfile FILE --history DIR --hosts N --url URL\n"
              "                [--window SECONDS] [--thin SECONDS] [--live SECONDS]\n"
              "                [--speedup K]\n"
              "                [--seed N] [--disk-slow RATIO] [--injected FILE]\n", stderr);
        exit(2);
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                { "textfile", required_argument, NULL, 't' },
                { "history", required_argument, NULL, 'H' },
                { "hosts", required_argument, NULL, 'n' },
                { "url", required_argument, NULL, 'u' },
                { "window", required_argument, NULL, 'w' },
                { "thin", required_argument, NULL, 'T' },
                { "live", required_argument, NULL, 'l' },
                { "speedup", required_argument, NULL, 'k' },
                { "seed", required_argument, NULL, 's' },
                { "disk-slow", required_argument, NULL, 'd' },
                { "injected", required_argument, NULL, 'i' },
                { NULL, 0, NULL, 0 },
        };
        const char *textfile = NULL, *hist = NULL, *url = NULL, *inj_path = "/dev/null";
        size_t n_hosts = 0, per_host = 0;
        double window = 3600, thin = 0, live = 0, speedup = 1, disk_slow = 0.85;
        struct tpl t[N_PROBES + 1];
        struct stats st[N_PHASES];
        struct runs q;
        int c;

        while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (c) {
                case 't': textfile = optarg; break;
                case 'H': hist = optarg; break;
                case 'n': n_hosts = strtoul(optarg, NULL, 10); break;
                case 'u': url = optarg; break;
                case 'w': window = strtod(optarg, NULL); break;
                case 'T': thin = strtod(optarg, NULL); break;
                case 'l': live = strtod(optarg, NULL); break;
                case 'k': speedup = strtod(optarg, NULL); break;
                case 's': rng_state ^= strtoull(optarg, NULL, 10) * 0x9E3779B97F4A7C15ULL; break;
                case 'd': disk_slow = strtod(optarg, NULL); break;
                case 'i': inj_path = optarg; break;
                default: usage();
                }
        }
        if (!textfile || !hist || !url || n_hosts < 100 || !(window > 0) ||
            !(thin >= 0) || !(live >= 0) || !(speedup >= 1))
                usage();
        memset(t, 0, sizeof(t));
        memset(st, 0, sizeof(st));
        if (read_textfile(textfile, t) < 0) {
                fprintf(stderr, "fleetsim: cannot read '%s': %m\n", textfile);
                return 1;
        }
        for (size_t i = 0; i <= N_PROBES; i++) {
                if (index_tpl(&t[i]) < 0 || make_thin(&t[i]) < 0)
                        return 1;
                if (i < N_PROBES)
                        read_noise(hist, &probes[i], &t[i]);
                per_host += count_series(t[i].r);
        }
        printf("hosts=%zu series_per_host=%zu noise (counted runs, sd of ln, IQR/1.349):",
               n_hosts, per_host);
        for (size_t i = 0; i < N_PROBES; i++)
                printf(" %s %zu%s %.3f %.3f", probes[i].name, t[i].n_noise,
                       t[i].all_runs ? " (all, too few counted)" : "", noise_sd(&t[i]),
                       t[i].iqr_sd);
        printf("\n");
        fflush(stdout);

        FILE *inj = fopen(inj_path, "we");
        struct host *hosts = calloc(n_hosts, sizeof(*hosts));
        if (!inj || !hosts)
                return 1;
        make_hosts(hosts, n_hosts, disk_slow, inj);
        fclose(inj);
        double start = floor(now_real());
        if (runs_init(&q, n_hosts, start - window - thin, start + live, speedup) < 0 ||
            send_all(t, hosts, &q, start - window, start, url, st) < 0)
                return 1;
        print_stats("thin", &st[P_THIN]);
        print_stats("backfill", &st[P_BACKFILL]);
        print_stats("live", &st[P_LIVE]);
        for (size_t i = 0; i <= N_PROBES; i++) {
                result_free(t[i].r);
                free(t[i].base);
                free(t[i].kind);
                free(t[i].noisy);
                free(t[i].noise);
                free(t[i].counted);
                free(t[i].thin.families);
        }
        free(q.e);
        free(hosts);
        return st[P_THIN].failed || st[P_BACKFILL].failed || st[P_LIVE].failed ? 1 : 0;
}
