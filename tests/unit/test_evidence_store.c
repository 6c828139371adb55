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
                CHECK(evidence_store_add(&s, i, true, NULL, (f = fig(i), &f)) == 0);
        CHECK(s.n == DETECTOR_REF_MAX && s.runs[0].t == 10); /* the oldest went */
        for (int i = 0; i < EVIDENCE_RECENT_MAX + 5; i++)
                CHECK(evidence_store_add(&s, 1000 + i, false, NULL, (f = fig(i), &f)) == 0);
        CHECK(s.n == DETECTOR_REF_MAX + EVIDENCE_RECENT_MAX);
        struct cause_run got[DETECTOR_REF_MAX];
        double since = 0;
        CHECK(evidence_store_reference(&s, NULL, 3, got, DETECTOR_REF_MAX) == DETECTOR_REF_MAX);
        CHECK(got[0].f[CAUSE_F_THROTTLED] == 10);
        CHECK(evidence_store_last(&s, NULL, 3, got, &since) == 3);
        CHECK(since == 1000 + EVIDENCE_RECENT_MAX + 2);
        CHECK(got[2].f[CAUSE_F_THROTTLED] == EVIDENCE_RECENT_MAX + 4);
        /* accept: the last 5 are the reference now */
        evidence_store_accept(&s, 5);
        CHECK(evidence_store_reference(&s, NULL, 0, got, DETECTOR_REF_MAX) == 5);
        CHECK(got[0].f[CAUSE_F_THROTTLED] == EVIDENCE_RECENT_MAX);
        evidence_store_clear(&s);
        /* no reference kept (learnt before evidence was): the runs before
         * the last `skip` */
        for (int i = 0; i < 8; i++)
                CHECK(evidence_store_add(&s, i, false, NULL, (f = fig(i), &f)) == 0);
        CHECK(evidence_store_reference(&s, NULL, 3, got, DETECTOR_REF_MAX) == 5);
        CHECK(got[4].f[CAUSE_F_THROTTLED] == 4);
        CHECK(evidence_store_last(&s, NULL, 20, got, &since) == 8 && since == 0);
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
        CHECK(evidence_store_add(&s, 1796400000.25, true, NULL, (f = fig(0.41), &f)) == 0);
        CHECK(evidence_store_add(&s, 1796400060.5, false, NULL, (f = fig(NAN), &f)) == 0);
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

/* A probe of several devices (gpu=all): each device's runs are read apart,
 * each keeps as many as a probe of one, accept takes each one's last n,
 * and the device goes through the file. */
static void devices(void)
{
        struct evidence_store s = { 0 }, back = { 0 };
        struct cause_run f, got[EVIDENCE_RECENT_MAX];
        double since = 0;
        for (int i = 0; i < 4 * EVIDENCE_RECENT_MAX; i++) {
                char d[8];
                snprintf(d, sizeof(d), "%d", i % 4);
                CHECK(evidence_store_add(&s, i, false, d, (f = fig(i), &f)) == 0);
        }
        CHECK(s.n == 4 * EVIDENCE_RECENT_MAX); /* none dropped: each its own limit */
        CHECK(evidence_store_add(&s, 9999, false, "3", (f = fig(-1), &f)) == 0);
        CHECK(s.n == 4 * EVIDENCE_RECENT_MAX && s.runs[0].t == 0); /* 3's oldest went */
        CHECK(evidence_store_last(&s, "3", 3, got, &since) == 3);
        CHECK(got[0].f[CAUSE_F_THROTTLED] == 4 * EVIDENCE_RECENT_MAX - 5 &&
              got[2].f[CAUSE_F_THROTTLED] == -1 && since == 4 * EVIDENCE_RECENT_MAX - 5);
        CHECK(evidence_store_last(&s, NULL, 3, got, &since) == 0 && isnan(since));
        /* no reference kept: device 1's runs before its last 2 */
        CHECK(evidence_store_reference(&s, "1", 2, got, EVIDENCE_RECENT_MAX) ==
              EVIDENCE_RECENT_MAX - 2);
        CHECK(got[0].f[CAUSE_F_THROTTLED] == 1);
        evidence_store_accept(&s, 2);
        CHECK(evidence_store_reference(&s, "0", 0, got, EVIDENCE_RECENT_MAX) == 2);
        CHECK(got[1].f[CAUSE_F_THROTTLED] == 4 * EVIDENCE_RECENT_MAX - 4);
        CHECK(evidence_store_add(&s, 1, false, "a b", &f) == -EINVAL);
        char text[] = "benchwatch-evidence 1\n";
        CHECK(evidence_store_parse(text, &back) == 0);
        char dir[] = "/tmp/test_evidence_storeXXXXXX";
        CHECK(mkdtemp(dir));
        CHECK(evidence_store_save(dir, "gpu", &s, NULL) == 0);
        CHECK(evidence_store_load(dir, "gpu", &back, NULL) == 0 && back.n == s.n);
        CHECK(!strcmp(back.runs[s.n - 1].device, "3") && !strcmp(back.runs[1].device, "1"));
        CHECK(evidence_store_reset(dir, "gpu") == 0 && rmdir(dir) == 0);
        evidence_store_clear(&back);
        evidence_store_clear(&s);
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
                "benchwatch-evidence 1\nrun 1 0 1 on=\n",      /* too few, then a device */
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
        /* after the figures, only on=<device> */
        for (int k = 0; k < 3; k++) {
                static const char *const tail[] = { " on=", " on=a/b", " gpu=1" };
                at = snprintf(line, sizeof(line), "benchwatch-evidence 1\nrun 5 1");
                for (int i = 0; i < CAUSE_N_FIGURES; i++)
                        at += snprintf(line + at, sizeof(line) - (size_t)at, " 1");
                snprintf(line + at, sizeof(line) - (size_t)at, "%s\n", tail[k]);
                CHECK(evidence_store_parse(line, &s) == -EBADMSG);
        }
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
        /* a gpu=all line of a daemon before the last figure: its device
         * read, the figure it lacks NAN; a bad device still refused */
        for (int k = 0; k < 2; k++) {
                at = snprintf(line, sizeof(line), "benchwatch-evidence 1\nrun 5 0");
                for (int i = 0; i < CAUSE_N_FIGURES - 1; i++)
                        at += snprintf(line + at, sizeof(line) - (size_t)at, " 4");
                snprintf(line + at, sizeof(line) - (size_t)at, "%s\n", k ? " on=a/b" : " on=1");
                struct evidence_store older = { 0 };
                int r = evidence_store_parse(line, &older);
                if (!k) {
                        CHECK(r == 0 && older.n == 1);
                        CHECK(!strcmp(older.runs[0].device, "1"));
                        CHECK(older.runs[0].fig.f[CAUSE_N_FIGURES - 2] == 4);
                        CHECK(isnan(older.runs[0].fig.f[CAUSE_N_FIGURES - 1]));
                } else
                        CHECK(r == -EBADMSG);
                evidence_store_clear(&older);
        }
}

int main(void)
{
        limits_and_order();
        file_round_trip();
        devices();
        bad_files();
        printf("test_evidence_store: ok\n");
        return 0;
}
