/* test_report_format.c — the JSON of a latency summary carries its histogram:
 * the non-empty buckets, whose counts add up to the sample count and whose
 * bounds hold the recorded values (what pools runs exactly). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/result.h"
#include "encode/report_format.h"
#include "util/hist.h"

static char *json_of(const struct result *r)
{
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        CHECK(f);
        report_format_json(f, r);
        CHECK(fclose(f) == 0);
        return text;
}

static void test_histogram(void)
{
        struct bw_hist h;
        bw_hist_init(&h);
        for (int i = 0; i < 1000; i++)
                bw_hist_record(&h, 100000);  /* 100 us */
        for (int i = 0; i < 10; i++)
                bw_hist_record(&h, 5000000); /* 5 ms */
        struct result *r = result_new("lat", "cpu");
        CHECK(r);
        r->success = true;
        static const char *const labels[] = { "threads", "1", NULL };
        CHECK(result_add(r, "benchwatch_cpu_latency_seconds", "latency", METRIC_SUMMARY,
                         labels, 0, &h) == 0);
        char *text = json_of(r);
        const char *p = strstr(text, "\"histogram\":[");
        CHECK_STR_CONTAINS(text, "\"histogram\":[");
        p += strlen("\"histogram\":[");
        double le[4];
        unsigned long long n[4];
        int k = 0, used;
        while (k < 4 && sscanf(p, "[%lf,%llu]%n", &le[k], &n[k], &used) == 2) {
                p += used;
                k++;
                if (*p == ',')
                        p++;
        }
        EXPECT(*p == ']');
        EXPECT(k == 2);
        EXPECT(n[0] == 1000 && n[1] == 10);
        /* each bound is its bucket's top: at or above the value, within a bucket's width */
        EXPECT(le[0] >= 100e-6 && le[0] < 100e-6 * 1.01);
        EXPECT(le[1] >= 5e-3 && le[1] < 5e-3 * 1.01);
        free(text);
        result_free(r);
}

static void test_empty_histogram(void)
{
        struct result *r = result_new("lat", "cpu");
        CHECK(r);
        CHECK(result_add(r, "benchwatch_cpu_latency_seconds", "latency", METRIC_SUMMARY,
                         NULL, 0, NULL) == 0);
        char *text = json_of(r);
        CHECK_STR_CONTAINS(text, "\"histogram\":[]");
        free(text);
        result_free(r);
}

int main(void)
{
        test_histogram();
        test_empty_histogram();
        if (test_failures)
                fprintf(stderr, "%u check(s) failed\n", test_failures);
        return test_failures ? 1 : 0;
}
