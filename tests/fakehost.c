/* fakehost.c — see fakehost.h. */
#include "fakehost.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/param.h"
#include "util/timeutil.h"

/* Every callback may come from any thread of the plugin (plugin.h says
 * so, and the daemon's child.c locks the same way): the records are
 * changed under fh->lock only. */
static void add(const struct bw_host *h, enum fake_kind kind, const char *name,
                const char *const *labels, double value, const struct bw_hist *hist)
{
        struct fakehost *fh = h->ctx;
        size_t len = 1;
        for (size_t i = 0; labels && labels[i]; i++)
                len += strlen(labels[i]) + 1;
        char *text = calloc(1, len), *copy = strdup(name);
        if (!text || !copy)
                abort();
        size_t at = 0;
        for (size_t i = 0; labels && labels[i] && labels[i + 1]; i += 2)
                at += (size_t)snprintf(text + at, len - at, "%s%s=%s",
                                       i ? "," : "", labels[i], labels[i + 1]);
        pthread_mutex_lock(&fh->lock);
        /* doubling: a metric holds a whole histogram, and thousands of
         * them grown one at a time are quadratic copying (hours under ASan) */
        if (fh->n_metrics == fh->cap_metrics) {
                size_t cap = fh->cap_metrics ? 2 * fh->cap_metrics : 16;
                struct fake_metric *grown = realloc(fh->metrics, cap * sizeof(*grown));
                if (!grown)
                        abort();
                fh->metrics = grown;
                fh->cap_metrics = cap;
        }
        struct fake_metric *m = &fh->metrics[fh->n_metrics++];
        *m = (struct fake_metric){ .kind = kind, .name = copy, .labels = text,
                                   .value = value };
        if (hist)
                m->hist = *hist;
        pthread_mutex_unlock(&fh->lock);
}

static void fake_gauge(const struct bw_host *h, const char *name,
                       const char *help, const char *const *labels, double v)
{
        add(h, FAKE_GAUGE, name, labels, v, NULL);
}

static void fake_counter(const struct bw_host *h, const char *name,
                         const char *help, const char *const *labels, double v)
{
        add(h, FAKE_COUNTER, name, labels, v, NULL);
}

static void fake_latency(const struct bw_host *h, const char *name,
                         const char *help, const char *const *labels,
                         const struct bw_hist *hist)
{
        add(h, FAKE_LATENCY, name, labels, bw_hist_mean_ns(hist) / 1e9, hist);
}

static void fake_info(const struct bw_host *h, const char *family,
                      const char *help, const char *const *labels)
{
        add(h, FAKE_INFO, family, labels, 1, NULL);
}

static void fake_log(const struct bw_host *h, int prio, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void fake_log(const struct bw_host *h, int prio, const char *fmt, ...)
{
        struct fakehost *fh = h->ctx;
        char *msg;
        va_list ap;
        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) < 0)
                msg = NULL;
        va_end(ap);
        fprintf(stderr, "  plugin log <%d>: %s\n", prio, msg ? msg : fmt);
        pthread_mutex_lock(&fh->lock);
        if (msg) {
                size_t had = fh->logs ? strlen(fh->logs) : 0, n = strlen(msg);
                char *all = realloc(fh->logs, had + n + 2);
                if (all) {
                        memcpy(all + had, msg, n);
                        memcpy(all + had + n, "\n", 2);
                        fh->logs = all;
                }
        }
        free(fh->last_log);
        fh->last_log = msg;
        fh->n_logs++;
        pthread_mutex_unlock(&fh->lock);
}

static int fake_fail(const struct bw_host *h, int err, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static int fake_fail(const struct bw_host *h, int err, const char *fmt, ...)
{
        struct fakehost *fh = h->ctx;
        char *msg;
        va_list ap;
        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) < 0)
                msg = NULL;
        va_end(ap);
        pthread_mutex_lock(&fh->lock);
        bool first = !fh->error; /* the first failure wins */
        if (first) {
                fh->error = msg;
                fh->fail_code = err;
        }
        pthread_mutex_unlock(&fh->lock);
        if (first)
                fprintf(stderr, "  plugin failed: %s\n", msg ? msg : fmt);
        else
                free(msg);
        return err;
}

static void fake_progress(const struct bw_host *h, uint64_t n)
{
        struct fakehost *fh = h->ctx;
        __atomic_add_fetch(&fh->progress, n, __ATOMIC_RELAXED);
}

static bool fake_stopping(const struct bw_host *h)
{
        struct fakehost *fh = h->ctx;
        return __atomic_load_n(&fh->stop, __ATOMIC_RELAXED);
}

void fakehost_init(struct fakehost *fh)
{
        memset(fh, 0, sizeof(*fh));
        pthread_mutex_init(&fh->lock, NULL);
        fh->host = (struct bw_host){
                .ctx = fh, .gauge = fake_gauge, .counter = fake_counter,
                .latency = fake_latency, .log = fake_log, .fail = fake_fail,
                .progress = fake_progress, .stopping = fake_stopping,
                .info = fake_info,
        };
        const char *tmp = getenv("TMPDIR");
        snprintf(fh->cache_dir, sizeof(fh->cache_dir), "%s/bwtest.XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(fh->cache_dir))
                abort();
}

static int rm_entry(const char *path, const struct stat *st, int flag,
                    struct FTW *ftw)
{
        return remove(path);
}

void fakehost_done(struct fakehost *fh)
{
        for (size_t i = 0; i < fh->n_metrics; i++) {
                free(fh->metrics[i].name);
                free(fh->metrics[i].labels);
        }
        free(fh->metrics);
        free(fh->error);
        free(fh->last_log);
        free(fh->logs);
        pthread_mutex_destroy(&fh->lock);
        nftw(fh->cache_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static struct param_set *parse_or_die(const struct bw_plugin *p,
                                      const char *const *params)
{
        struct param_set *ps;
        char *why = NULL;
        if (param_set_new(p->params, &ps, &why) < 0) {
                fprintf(stderr, "plugin %s: %s\n", p->name, why);
                exit(1);
        }
        for (size_t i = 0; params && params[i]; i++)
                if (param_set_assign_kv(ps, params[i], &why) < 0) {
                        fprintf(stderr, "plugin %s: %s\n", p->name, why);
                        exit(1);
                }
        return ps;
}

char *fakehost_param_error(const struct bw_plugin *p,
                           const char *const *params)
{
        struct param_set *ps;
        char *why = NULL;
        if (param_set_new(p->params, &ps, &why) < 0)
                return why;
        for (size_t i = 0; params && params[i] && !why; i++)
                param_set_assign_kv(ps, params[i], &why);
        param_set_free(ps);
        return why;
}

void fakehost_expect_param_error(const struct bw_plugin *p, const char *param)
{
        char *why = fakehost_param_error(p, (const char *const[]){ param, NULL });
        if (!why) {
                fprintf(stderr, "%s: '%s' was accepted\n", p->name, param);
                exit(1);
        }
        free(why);
}

static int call(struct fakehost *fh, const struct bw_plugin *p,
                const char *const *params, bool cleanup)
{
        CHECK(p->abi_version == BW_PLUGIN_ABI_VERSION);
        struct param_set *ps = parse_or_die(p, params);
        struct bw_run run = {
                .probe = p->name, .values = ps->values,
                .cache_dir = fh->cache_dir, .state_dir = fh->cache_dir,
                .deadline = now_mono() + 600,
        };
        int r = 0;
        if (cleanup)
                r = p->cleanup ? p->cleanup(&run, &fh->host) : 0;
        else {
                if (p->check)
                        r = p->check(&run, &fh->host);
                if (r >= 0)
                        r = p->run(&run, &fh->host);
        }
        param_set_free(ps);
        return r;
}

int fakehost_run(struct fakehost *fh, const struct bw_plugin *p,
                 const char *const *params)
{
        return call(fh, p, params, false);
}

int fakehost_cleanup(struct fakehost *fh, const struct bw_plugin *p,
                     const char *const *params)
{
        return call(fh, p, params, true);
}

const struct fake_metric *fakehost_find(const struct fakehost *fh,
                                        const char *name, const char *labels)
{
        for (size_t i = 0; i < fh->n_metrics; i++)
                if (!strcmp(fh->metrics[i].name, name) &&
                    (!labels || !strcmp(fh->metrics[i].labels, labels)))
                        return &fh->metrics[i];
        return NULL;
}

double fakehost_value(const struct fakehost *fh, const char *name,
                      const char *labels)
{
        const struct fake_metric *m = fakehost_find(fh, name, labels);
        if (!m) {
                fprintf(stderr, "no metric %s{%s}; emitted:\n", name,
                        labels ? labels : "*");
                for (size_t i = 0; i < fh->n_metrics; i++)
                        fprintf(stderr, "  %s{%s} = %g\n", fh->metrics[i].name,
                                fh->metrics[i].labels, fh->metrics[i].value);
                exit(1);
        }
        return m->value;
}

size_t fakehost_resident_pages(const char *path)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        CHECK(fd >= 0 && fstat(fd, &st) == 0);
        size_t pages = (size_t)st.st_size / 4096, n = 0;
        unsigned char *vec = malloc(pages);
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
        CHECK(vec && m != MAP_FAILED && mincore(m, (size_t)st.st_size, vec) == 0);
        for (size_t i = 0; i < pages; i++)
                n += vec[i] & 1;
        munmap(m, (size_t)st.st_size);
        free(vec);
        close(fd);
        return n;
}

void fakehost_run_events(struct fakehost *fh, const struct bw_plugin *p,
                         const char *const *params, struct fake_events *f)
{
        fakehost_init(fh);
        CHECK(fakehost_run(fh, p, params) == 0);
        CHECK(fh->error == NULL);
        f->rate = fakehost_value(fh, "events_per_second", "");
        f->events = fakehost_value(fh, "events_total", "");
        f->seconds = fakehost_value(fh, "total_time_seconds", "");
        f->lat = fakehost_find(fh, "latency_seconds", "");
        CHECK(f->lat && f->lat->kind == FAKE_LATENCY);
}

void fakehost_check_cpu_twins(const struct bw_plugin *p)
{
        for (unsigned threads = 1; threads <= 2; threads++) {
                struct fakehost fh;
                struct fake_events f;
                char arg[32];

                snprintf(arg, sizeof(arg), "threads=%u", threads);
                fakehost_run_events(&fh, p, (const char *const[]){ "duration=300ms", arg, NULL },
                                    &f);
                double cpu_rate = fakehost_value(&fh, "events_per_cpu_second", "");
                double cpu_s = fakehost_value(&fh, "worker_cpu_seconds", "");
                fprintf(stderr, "%s threads=%u: %.0f events/s, %.0f per CPU second "
                        "(%.0f%% of the wall time on CPU)\n", p->name, threads, f.rate,
                        cpu_rate, 100 * cpu_s / (threads * f.seconds));
                CHECK(cpu_s > 0);
                CHECK(cpu_rate * cpu_s > 0.999 * f.events && cpu_rate * cpu_s < 1.001 * f.events);
                CHECK(cpu_s <= threads * f.seconds * 1.001 + 0.002);
                CHECK(cpu_rate >= 0.998 * f.rate / threads);
                fakehost_done(&fh);
        }
}
