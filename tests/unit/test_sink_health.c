/* test_sink_health.c — the record the sinks report their health and their
 * own figures into: entries per sink in the order they first reported,
 * the last error's text and time, counters that add and gauges that are
 * set, one name one type, copies that outlive the record, a record
 * shared by reference, a NULL record that takes every report and keeps
 * nothing, and reports from several threads at once. */
#include <errno.h>
#include <pthread.h>

#include "test.h"
#include "sink/sink_health.h"
#include "util/timeutil.h"

static double figure(const struct result *r, const char *name)
{
        const struct sample *s = r ? result_find_sample(r, name, NULL) : NULL;
        return s ? s->value : NAN;
}

static void test_entries(void)
{
        struct sink_health *h = NULL;
        struct sink_health_entry *e = NULL;
        size_t n = 99;
        CHECK(sink_health_new(&h) == 0);
        CHECK(sink_health_entries(h, &e, &n) == 0 && !e && n == 0);
        double before = now_wall();
        sink_health_error(h, "pushgateway", "cannot push probe '%s': %s", "cpu", "refused");
        sink_health_ok(h, "textfile");
        sink_health_ok(h, "pushgateway");
        CHECK(sink_health_entries(h, &e, &n) == 0 && n == 2);
        EXPECT(!strcmp(e[0].name, "pushgateway") && !strcmp(e[1].name, "textfile"));
        EXPECT(e[0].last_error >= before && e[0].last_ok >= e[0].last_error);
        EXPECT(e[0].error && !strcmp(e[0].error, "cannot push probe 'cpu': refused"));
        EXPECT(e[1].last_ok >= before && e[1].last_error == 0 && !e[1].error);
        /* a copy: a later report does not change it */
        sink_health_error(h, "textfile", "cannot write '%s'", "/x.prom");
        EXPECT(!e[1].error);
        sink_health_entries_free(e, n);
        CHECK(sink_health_entries(h, &e, &n) == 0 && n == 2);
        EXPECT(e[1].error && !strcmp(e[1].error, "cannot write '/x.prom'"));
        sink_health_entries_free(e, n);
        /* a second reference keeps the record when the first goes */
        struct sink_health *again = sink_health_ref(h);
        EXPECT(again == h);
        sink_health_unref(h);
        CHECK(sink_health_entries(again, &e, &n) == 0 && n == 2);
        sink_health_entries_free(e, n);
        sink_health_unref(again);
}

static void test_figures(void)
{
        struct sink_health *h = NULL;
        CHECK(sink_health_new(&h) == 0);
        EXPECT(sink_health_figures(h) == NULL); /* none yet */
        EXPECT(sink_health_count(h, "benchwatch_x_total", "X.", 0) == 0);
        EXPECT(sink_health_count(h, "benchwatch_x_total", "X.", 2) == 0);
        EXPECT(sink_health_count(h, "benchwatch_x_total", "X.", 3) == 0);
        EXPECT(sink_health_gauge(h, "benchwatch_y_bytes", "Y.", 10) == 0);
        EXPECT(sink_health_gauge(h, "benchwatch_y_bytes", "Y.", 4) == 0);
        /* one name, one type */
        EXPECT(sink_health_gauge(h, "benchwatch_x_total", "X.", 1) == -EINVAL);
        EXPECT(sink_health_count(h, "benchwatch_y_bytes", "Y.", 1) == -EINVAL);
        struct result *r = sink_health_figures(h);
        CHECK(r != NULL);
        EXPECT(!strcmp(r->probe, "") && r->success);
        EXPECT(figure(r, "benchwatch_x_total") == 5);
        EXPECT(figure(r, "benchwatch_y_bytes") == 4);
        EXPECT(result_find(r, "benchwatch_x_total")->type == METRIC_COUNTER);
        EXPECT(result_find(r, "benchwatch_y_bytes")->type == METRIC_GAUGE);
        result_free(r);
        sink_health_unref(h);
}

static void test_no_record(void)
{
        struct sink_health_entry *e = (void *)1;
        size_t n = 99;
        sink_health_ok(NULL, "textfile");
        sink_health_error(NULL, "textfile", "%s", "lost");
        EXPECT(sink_health_count(NULL, "benchwatch_x_total", "X.", 1) == 0);
        EXPECT(sink_health_gauge(NULL, "benchwatch_y_bytes", "Y.", 1) == 0);
        EXPECT(sink_health_figures(NULL) == NULL);
        EXPECT(sink_health_entries(NULL, &e, &n) == 0 && !e && n == 0);
        EXPECT(sink_health_ref(NULL) == NULL);
        sink_health_unref(NULL);
}

#define THREADS 4
#define REPORTS 2000

static void *reporter(void *arg)
{
        struct sink_health *h = arg;
        for (int i = 0; i < REPORTS; i++) {
                (void)sink_health_count(h, "benchwatch_sent_total", "Sent.", 1);
                sink_health_ok(h, i % 2 ? "remote_write" : "textfile");
        }
        return NULL;
}

static void test_threads(void)
{
        struct sink_health *h = NULL;
        pthread_t t[THREADS];
        CHECK(sink_health_new(&h) == 0);
        for (int i = 0; i < THREADS; i++)
                CHECK(pthread_create(&t[i], NULL, reporter, h) == 0);
        for (int i = 0; i < THREADS; i++)
                pthread_join(t[i], NULL);
        struct result *r = sink_health_figures(h);
        EXPECT(figure(r, "benchwatch_sent_total") == THREADS * REPORTS);
        result_free(r);
        struct sink_health_entry *e = NULL;
        size_t n = 0;
        CHECK(sink_health_entries(h, &e, &n) == 0);
        EXPECT(n == 2);
        sink_health_entries_free(e, n);
        sink_health_unref(h);
}

int main(void)
{
        test_entries();
        test_figures();
        test_no_record();
        test_threads();
        if (!test_failures)
                printf("test_sink_health: ok\n");
        return test_failures != 0;
}
