/* test_evidence_store.c — a probe's evidence file: runs kept within their
 * limits (the reference's, and the recent ones), written and read back
 * alike (NAN figures and the cause included), `baseline accept` and
 * `reset`, the reference's runs or, before any, the runs before the
 * regressed ones; files that are not one refused, never half read. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detect/evidence_store.h"
#include "test.h"

static struct cause_run fig(double v)
{
        struct cause_run r;
        cause_run_init(&r);
        r.f[CAUSE_F_THROTTLED] = v;
        return r;
}

static void limits_and_order(void)
{
        struct evidence_store s = { 0 };
        struct cause_run f;
        for (int i = 0; i < DETECTOR_REF_MAX + 10; i++)
                CHECK(evidence_store_add(&s, i, true, (f = fig(i), &f)) == 0);
        CHECK(s.n == DETECTOR_REF_MAX && s.runs[0].t == 10); /* the oldest went */
        for (int i = 0; i < EVIDENCE_RECENT_MAX + 5; i++)
                CHECK(evidence_store_add(&s, 1000 + i, false, (f = fig(i), &f)) == 0);
        CHECK(s.n == DETECTOR_REF_MAX + EVIDENCE_RECENT_MAX);
        struct cause_run got[DETECTOR_REF_MAX];
        double since = 0;
        CHECK(evidence_store_reference(&s, 3, got, DETECTOR_REF_MAX) == DETECTOR_REF_MAX);
        CHECK(got[0].f[CAUSE_F_THROTTLED] == 10);
        CHECK(evidence_store_last(&s, 3, got, &since) == 3);
        CHECK(since == 1000 + EVIDENCE_RECENT_MAX + 2);
        CHECK(got[2].f[CAUSE_F_THROTTLED] == EVIDENCE_RECENT_MAX + 4);
        /* accept: the last 5 are the reference now */
        evidence_store_accept(&s, 5);
        CHECK(evidence_store_reference(&s, 0, got, DETECTOR_REF_MAX) == 5);
        CHECK(got[0].f[CAUSE_F_THROTTLED] == EVIDENCE_RECENT_MAX);
        evidence_store_clear(&s);
        /* no reference kept (learnt before evidence was): the runs before
         * the last `skip` */
        for (int i = 0; i < 8; i++)
                CHECK(evidence_store_add(&s, i, false, (f = fig(i), &f)) == 0);
        CHECK(evidence_store_reference(&s, 3, got, DETECTOR_REF_MAX) == 5);
        CHECK(got[4].f[CAUSE_F_THROTTLED] == 4);
        CHECK(evidence_store_last(&s, 20, got, &since) == 8 && since == 0);
        evidence_store_clear(&s);
}

static void file_round_trip(void)
{
        char dir[] = "/tmp/test_evidence_storeXXXXXX";
        CHECK(mkdtemp(dir));
        struct evidence_store s = { 0 }, back = { 0 };
        struct cause_run f;
        char *err = NULL;
        CHECK(evidence_store_load(dir, "cpu", &back, &err) == 0 && back.n == 0 && !err);
        CHECK(evidence_store_add(&s, 1796400000.25, true, (f = fig(0.41), &f)) == 0);
        CHECK(evidence_store_add(&s, 1796400060.5, false, (f = fig(NAN), &f)) == 0);
        CHECK(evidence_store_set_cause(&s, "cpu_quota", "throttled in 41%\nof periods") == 0);
        CHECK(evidence_store_save(dir, "cpu", &s, &err) == 0);
        CHECK(evidence_store_load(dir, "cpu", &back, &err) == 0);
        CHECK(back.n == 2 && back.runs[0].reference && !back.runs[1].reference);
        CHECK(back.runs[0].t == 1796400000.25 && back.runs[0].fig.f[CAUSE_F_THROTTLED] == 0.41);
        CHECK(isnan(back.runs[1].fig.f[CAUSE_F_THROTTLED]));
        CHECK(isnan(back.runs[1].fig.f[CAUSE_F_STEAL]));
        CHECK(!strcmp(back.cause_label, "cpu_quota"));
        CHECK(!strcmp(back.cause_text, "throttled in 41% of periods")); /* one line */
        evidence_store_clear(&back);
        CHECK(evidence_store_set_cause(&s, NULL, NULL) == 0 && !s.cause_label);
        evidence_store_clear(&s);
        /* reset forgets it; a second reset is no error */
        CHECK(evidence_store_reset(dir, "cpu") == 0 && evidence_store_reset(dir, "cpu") == 0);
        CHECK(evidence_store_load(dir, "cpu", &back, &err) == 0 && back.n == 0);
        CHECK(evidence_store_reset(dir, "../x") == -EINVAL);
        rmdir(dir);
}

static void bad_files(void)
{
        struct evidence_store s = { 0 };
        const char *bad[] = {
                "",
                "benchwatch-evidence 2\n",
                "benchwatch-evidence 1\nrun 1 0 1\n",              /* too few figures */
                "benchwatch-evidence 1\nrun 1 2",                 /* cut short */
                "benchwatch-evidence 1\nwhat 1\n",
                "benchwatch-evidence 1\nrun nan 0" "\n",
                "benchwatch-evidence 1\ncause \n",
                NULL,
        };
        for (int i = 0; bad[i]; i++) {
                s.n = 7;
                CHECK(evidence_store_parse(bad[i], &s) == -EBADMSG && s.n == 7);
        }
        char line[2048];
        int at = snprintf(line, sizeof(line), "benchwatch-evidence 1\nrun 5 1");
        for (int k = 0; k < CAUSE_N_FIGURES; k++)
                at += snprintf(line + at, sizeof(line) - (size_t)at, k == 3 ? " inf" : " 1");
        snprintf(line + at, sizeof(line) - (size_t)at, "\n");
        CHECK(evidence_store_parse(line, &s) == -EBADMSG); /* not finite */
        /* a line of a daemon before the GPU's figures: read, those NAN;
         * one figure fewer still is not a line */
        for (int fewer = 0; fewer < 2; fewer++) {
                at = snprintf(line, sizeof(line), "benchwatch-evidence 1\nrun 5 1");
                for (int k = 0; k < EVIDENCE_STORE_FIGURES_1 - fewer; k++)
                        at += snprintf(line + at, sizeof(line) - (size_t)at, " 2");
                snprintf(line + at, sizeof(line) - (size_t)at, "\n");
                struct evidence_store old = { 0 };
                int r = evidence_store_parse(line, &old);
                if (!fewer) {
                        CHECK(r == 0 && old.n == 1 && old.runs[0].fig.f[0] == 2);
                        CHECK(old.runs[0].fig.f[EVIDENCE_STORE_FIGURES_1 - 1] == 2);
                        CHECK(isnan(old.runs[0].fig.f[CAUSE_F_GPU_HEAT]));
                        CHECK(isnan(old.runs[0].fig.f[CAUSE_N_FIGURES - 1]));
                } else
                        CHECK(r == -EBADMSG);
                evidence_store_clear(&old);
        }
        /* a line of a daemon before the major page faults: read, they NAN */
        at = snprintf(line, sizeof(line), "benchwatch-evidence 1\nrun 5 1");
        for (int k = 0; k < CAUSE_F_MAJOR_FAULTS; k++)
                at += snprintf(line + at, sizeof(line) - (size_t)at, " 3");
        snprintf(line + at, sizeof(line) - (size_t)at, "\n");
        struct evidence_store gpu_era = { 0 };
        CHECK(evidence_store_parse(line, &gpu_era) == 0 && gpu_era.n == 1);
        CHECK(gpu_era.runs[0].fig.f[CAUSE_F_GPU_CLOCK] == 3);
        CHECK(isnan(gpu_era.runs[0].fig.f[CAUSE_F_MAJOR_FAULTS]));
        evidence_store_clear(&gpu_era);
}

int main(void)
{
        limits_and_order();
        file_round_trip();
        bad_files();
        printf("test_evidence_store: ok\n");
        return 0;
}
