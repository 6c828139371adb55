/* test_skeleton.c — the skeleton plugin against the recording fake host,
 * the pattern a new plugin's test starts from: the figures agree with each
 * other, a count bound is exact, the parameter table and `check` refuse
 * nonsense with a message, and a stop is honoured. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../fakehost.h"
#include "core/loader.h"

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
        test_module_loads();
        fprintf(stderr, "test_skeleton: all passed\n");
        return 0;
}
