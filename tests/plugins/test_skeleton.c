/* test_skeleton.c — the skeleton plugin against the recording fake host,
 * the pattern a new plugin's test starts from: the figures agree with each
 * other, a count bound is exact, the parameter table and `check` refuse
 * nonsense with a message, a stop is honoured, and `cleanup` removes what
 * a run left.  Also that the fake host is as thread-safe as plugin.h
 * promises: figures emitted from several threads at once all arrive. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "../fakehost.h"
#include "core/loader.h"
#include "util/strutil.h"

extern const struct bw_plugin benchwatch_plugin;
#define P (&benchwatch_plugin)
#define PARAMS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void test_events_exact(void)
{
        struct fakehost fh;
        fakehost_init(&fh);
        CHECK(fakehost_run(&fh, P, PARAMS("events=500", "duration=0")) == 0);
        CHECK(fh.error == NULL);
        CHECK(fakehost_value(&fh, "events_total", "") == 500);
        CHECK(fh.progress == 500);
        const struct fake_metric *lat = fakehost_find(&fh, "latency_seconds", "");
        CHECK(lat && lat->kind == FAKE_LATENCY && lat->hist.count == 500);
        CHECK(fakehost_value(&fh, "events_per_second", "") > 0);
        CHECK(fakehost_value(&fh, "benchwatch_skeleton_info", "generator=xorshift64") == 1);
        fakehost_done(&fh);
}

/* The value of the last metric `name` emitted; -1 when none was. */
static double last_value(const struct fakehost *fh, const char *name)
{
        for (size_t i = fh->n_metrics; i-- > 0;)
                if (!strcmp(fh->metrics[i].name, name))
                        return fh->metrics[i].value;
        return -1;
}

/* A run leaves its generator's state; the next run continues from it
 * (different figures of work, same count), and cleanup removes it and
 * says so (bw_cleanup_report: 1 removed, then none). */
static void test_cleanup(void)
{
        struct fakehost fh;
        struct stat st;
        fakehost_init(&fh);
        char *path = str_printf("%s/skeleton-skeleton.state", fh.cache_dir);
        CHECK(path && stat(path, &st) < 0);
        CHECK(fakehost_run(&fh, P, PARAMS("events=10", "duration=0")) == 0);
        CHECK(stat(path, &st) == 0 && st.st_size > 0);
        CHECK(fakehost_run(&fh, P, PARAMS("events=10", "duration=0")) == 0);
        CHECK(fakehost_cleanup(&fh, P, PARAMS("events=10")) == 0);
        CHECK(stat(path, &st) < 0 && errno == ENOENT);
        CHECK(last_value(&fh, BW_CLEANUP_REMOVED) == 1 && last_value(&fh, BW_CLEANUP_LEFT) == 0);
        CHECK(fakehost_cleanup(&fh, P, NULL) == 0); /* nothing left: fine */
        CHECK(last_value(&fh, BW_CLEANUP_REMOVED) == 0 && last_value(&fh, BW_CLEANUP_LEFT) == 0);
        free(path);
        fakehost_done(&fh);
}

#define EMITTERS 4
#define EMITS 2000
static void *emit_many(void *arg)
{
        const struct bw_host *h = arg;
        for (int i = 0; i < EMITS; i++) {
                h->gauge(h, "g", "", (const char *const[]){ "k", "v", NULL }, i);
                if (i % 100 == 0) {
                        h->log(h, LOG_DEBUG, "emitted %d", i);
                        h->fail(h, -EIO, "failure %d", i);
                }
        }
        return NULL;
}

static void test_host_threads(void)
{
        struct fakehost fh;
        pthread_t t[EMITTERS];
        fakehost_init(&fh);
        for (int i = 0; i < EMITTERS; i++)
                CHECK(pthread_create(&t[i], NULL, emit_many, &fh.host) == 0);
        for (int i = 0; i < EMITTERS; i++)
                pthread_join(t[i], NULL);
        CHECK(fh.n_metrics == EMITTERS * EMITS);
        CHECK(fh.n_logs == EMITTERS * EMITS / 100);
        CHECK(fh.fail_code == -EIO && fh.error && !strncmp(fh.error, "failure ", 8));
        for (size_t i = 0; i < fh.n_metrics; i++)
                CHECK(!strcmp(fh.metrics[i].name, "g") && !strcmp(fh.metrics[i].labels, "k=v"));
        fakehost_done(&fh);
}

static void test_duration(void)
{
        struct fakehost fh;
        fakehost_init(&fh);
        CHECK(fakehost_run(&fh, P, PARAMS("duration=200ms", "work=100")) == 0);
        double n = fakehost_value(&fh, "events_total", "");
        double rate = fakehost_value(&fh, "events_per_second", "");
        /* rate x time = events, within the last event's time */
        CHECK(n > 10 && rate * 0.2 > 0.8 * n && rate * 0.2 < 1.2 * n);
        fakehost_done(&fh);
}

static void test_bad_inputs(void)
{
        struct fakehost fh;
        fakehost_init(&fh); /* check(): unbounded */
        CHECK(fakehost_run(&fh, P, PARAMS("duration=0", "events=0")) == -EINVAL);
        CHECK(fh.error && strstr(fh.error, "a run must be bounded"));
        fakehost_done(&fh);
        fakehost_expect_param_error(P, "work=0");
        fakehost_expect_param_error(P, "work=lots");
        fakehost_expect_param_error(P, "duration=2h");
}

static void test_stop(void)
{
        struct fakehost fh;
        fakehost_init(&fh);
        fh.stop = true;
        CHECK(fakehost_run(&fh, P, PARAMS("duration=60s")) == -ECANCELED);
        fakehost_done(&fh);
}

/* The module as built loads through the real loader: one exported
 * descriptor, the current ABI. */
static void test_module_loads(void)
{
        const struct bw_plugin *p = NULL;
        void *handle = NULL;
        char *why = NULL;
        int r = loader_load_file(SKELETON_SO, &p, &handle, &why);
        if (r < 0)
                fprintf(stderr, "%s: %s\n", SKELETON_SO, why ? why : "?");
        CHECK(r == 0 && p && !strcmp(p->name, "skeleton") && p->check && p->run);
        free(why);
}

int main(void)
{
        CHECK(!strcmp(P->name, "skeleton") && P->abi_version == BW_PLUGIN_ABI_VERSION);
        test_events_exact();
        test_duration();
        test_bad_inputs();
        test_stop();
        test_cleanup();
        test_host_threads();
        test_module_loads();
        fprintf(stderr, "test_skeleton: all passed\n");
        return 0;
}
