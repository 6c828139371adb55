/* test_prom_text.c — the text exposition of hand-built results, byte for byte,
 * label values made UTF-8. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/result.h"
#include "encode/prom_text.h"
#include "util/hist.h"



static char *render(const struct result *const *rs, size_t n)
{
        char *text = NULL;
        size_t len = 0;
        int r = prom_text_to_string(rs, n, &text, &len);
        assert(r == 0);
        assert(strlen(text) == len);
        return text;
}

static void test_numbers(void)
{
        char b[40];
        EXPECT(!strcmp(prom_text_format_double(0.95, b, sizeof(b)), "0.95"));
        EXPECT(!strcmp(prom_text_format_double(1, b, sizeof(b)), "1"));
        EXPECT(!strcmp(prom_text_format_double(1234.5, b, sizeof(b)), "1234.5"));
        EXPECT(!strcmp(prom_text_format_double(0.1 + 0.2, b, sizeof(b)),
                      "0.30000000000000004"));
        EXPECT(!strcmp(prom_text_format_double(1e-7, b, sizeof(b)), "9.9999999999999995e-08") ||
              !strcmp(b, "1e-07"));
        EXPECT(!strcmp(prom_text_format_double(NAN, b, sizeof(b)), "NaN"));
        EXPECT(!strcmp(prom_text_format_double(INFINITY, b, sizeof(b)), "+Inf"));
        EXPECT(!strcmp(prom_text_format_double(-INFINITY, b, sizeof(b)), "-Inf"));
}

static void test_gauge_counter_escaping(void)
{
        struct result *r = result_new("web \"front\"", "http");
        const char *lab[] = { "url", "http://x/a\\b\n\"q\"", NULL };
        assert(r);
        assert(result_add(r, "benchwatch_http_requests_per_second",
                          "Requests per second\\sec\nline2", METRIC_GAUGE, lab,
                          1234.5, NULL) == 0);
        assert(result_add(r, "benchwatch_http_failed_requests_total",
                          "Failed requests", METRIC_COUNTER, NULL, 3, NULL) == 0);
        const struct result *rs[] = { r };
        char *t = render(rs, 1);
        const char *want =
                "# HELP benchwatch_http_requests_per_second Requests per second\\\\sec\\nline2\n"
                "# TYPE benchwatch_http_requests_per_second gauge\n"
                "benchwatch_http_requests_per_second{probe=\"web \\\"front\\\"\","
                "url=\"http://x/a\\\\b\\n\\\"q\\\"\"} 1234.5\n"
                "# HELP benchwatch_http_failed_requests_total Failed requests\n"
                "# TYPE benchwatch_http_failed_requests_total counter\n"
                "benchwatch_http_failed_requests_total{probe=\"web \\\"front\\\"\"} 3\n";
        if (strcmp(t, want))
                fprintf(stderr, "got:\n%s\nwant:\n%s\n", t, want);
        EXPECT(!strcmp(t, want));
        free(t);
        result_free(r);
}

/* A label value that is not UTF-8 (a Latin-1 byte from a configuration or
 * a device's sysfs model string) becomes U+FFFD as it enters the result:
 * promtool refused the textfile, node_exporter dropped all of it, and the
 * Pushgateway refused the push.  Well-formed sequences stay as they are;
 * overlong ones, surrogates and cut ones do not. */
static void test_label_not_utf8(void)
{
        struct result *r = result_new("h", "http");
        const char *lab[] = { "target", "caf\xe9 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 "
                              "\xc0\xaf \xed\xa0\x80 \xe2\x82", NULL };
        assert(r);
        assert(result_add(r, "benchwatch_http_requests_per_second", "rps", METRIC_GAUGE, lab,
                          1, NULL) == 0);
        const struct result *rs[] = { r };
        char *t = render(rs, 1);
        CHECK_STR_CONTAINS(t, "target=\"caf\xef\xbf\xbd \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 "
                              "\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
                              "\xef\xbf\xbd\xef\xbf\xbd\"");
        free(t);
        result_free(r);
}

static void test_summary(void)
{
        struct bw_hist h;
        struct result *r = result_new("cpu", "cpu");
        const char *lab[] = { "max_prime", "10000", NULL };
        assert(r);
        bw_hist_init(&h);
        /* 100 values 1..100 µs: p50 ~ 50 µs, max exactly 100 µs. */
        for (int i = 1; i <= 100; i++)
                bw_hist_record(&h, (uint64_t)i * 1000);
        assert(result_add(r, "benchwatch_cpu_latency_seconds", "Event latency",
                          METRIC_SUMMARY, lab, 0, &h) == 0);
        const struct result *rs[] = { r };
        char *t = render(rs, 1);
        char line[256];
        for (size_t i = 0; i < result_n_quantiles; i++) {
                char q[40], v[40];
                snprintf(line, sizeof(line),
                         "benchwatch_cpu_latency_seconds{probe=\"cpu\",max_prime=\"10000\","
                         "quantile=\"%s\"} %s\n",
                         prom_text_format_double(result_quantiles[i], q, sizeof(q)),
                         prom_text_format_double(bw_hist_quantile_ns(&h, result_quantiles[i]) /
                                                 1e9, v, sizeof(v)));
                EXPECT(strstr(t, line) != NULL);
        }
        EXPECT(strstr(t, "{probe=\"cpu\",max_prime=\"10000\",quantile=\"1\"} 0.0001\n"));
        EXPECT(strstr(t, "{probe=\"cpu\",max_prime=\"10000\",quantile=\"0.999\"} "));
        EXPECT(strstr(t, "benchwatch_cpu_latency_seconds_sum{probe=\"cpu\",max_prime=\"10000\"} "
                         "0.00505\n"));
        EXPECT(strstr(t, "benchwatch_cpu_latency_seconds_count{probe=\"cpu\",max_prime=\"10000\"} "
                         "100\n"));
        EXPECT(strstr(t, "# TYPE benchwatch_cpu_latency_seconds summary\n") == strchr(t, '\n') + 1);
        /* p50 within the histogram's 0.8% of 50 µs */
        const char *p = strstr(t, "quantile=\"0.5\"} ");
        EXPECT(p && fabs(strtod(p + 16, NULL) - 50e-6) < 50e-6 * 0.008);
        free(t);
        result_free(r);
}

/* Two probes sharing families: HELP/TYPE once, samples together. */
static void test_grouping(void)
{
        struct result *a = result_new("a", "cpu"), *b = result_new("b", "disk");
        assert(a && b);
        a->success = true;
        a->duration = 1.5;
        a->started = 1764500000.25;
        b->success = false;
        assert(result_set_error(b, "boom") == 0);
        b->duration = 2;
        assert(result_add(a, "benchwatch_cpu_events_per_second", "E", METRIC_GAUGE,
                          NULL, 10, NULL) == 0);
        assert(result_add_probe_families(a) == 0);
        assert(result_add_probe_families(b) == 0);
        assert(result_add(b, "benchwatch_disk_iops", "I", METRIC_GAUGE, NULL, 7, NULL) == 0);
        const struct result *rs[] = { a, b };
        char *t = render(rs, 2);
        const char *want = "# HELP benchwatch_cpu_events_per_second E\n"
                           "# TYPE benchwatch_cpu_events_per_second gauge\n"
                           "benchwatch_cpu_events_per_second{probe=\"a\"} 10\n"
                           "# HELP benchwatch_probe_success 1 if the probe's last run succeeded, 0 "
                           "if it failed\n"
                           "# TYPE benchwatch_probe_success gauge\n"
                           "benchwatch_probe_success{probe=\"a\"} 1\n"
                           "benchwatch_probe_success{probe=\"b\"} 0\n"
                           "# HELP benchwatch_probe_duration_seconds Wall-clock time the probe's "
                           "last run took\n"
                           "# TYPE benchwatch_probe_duration_seconds gauge\n"
                           "benchwatch_probe_duration_seconds{probe=\"a\"} 1.5\n"
                           "benchwatch_probe_duration_seconds{probe=\"b\"} 2\n"
                           "# HELP benchwatch_probe_last_run_timestamp_seconds When the probe's "
                           "last run started, seconds since the epoch\n"
                           "# TYPE benchwatch_probe_last_run_timestamp_seconds gauge\n"
                           "benchwatch_probe_last_run_timestamp_seconds{probe=\"a\"} "
                           "1764500000.25\n"
                           "benchwatch_probe_last_run_timestamp_seconds{probe=\"b\"} 0\n"
                           "# HELP benchwatch_disk_iops I\n"
                           "# TYPE benchwatch_disk_iops gauge\n"
                           "benchwatch_disk_iops{probe=\"b\"} 7\n";
        if (strcmp(t, want))
                fprintf(stderr, "got:\n%s\nwant:\n%s\n", t, want);
        EXPECT(!strcmp(t, want));
        free(t);
        result_free(a);
        result_free(b);
}

static void test_empty_summary_and_write_error(void)
{
        struct result *r = result_new("p", "x");
        assert(r);
        assert(result_add(r, "benchwatch_x_latency_seconds", "", METRIC_SUMMARY,
                          NULL, 0, NULL) == 0);
        const struct result *rs[] = { r };
        char *t = render(rs, 1);
        EXPECT(strstr(t, "benchwatch_x_latency_seconds{probe=\"p\",quantile=\"0.5\"} NaN\n"));
        EXPECT(strstr(t, "benchwatch_x_latency_seconds_count{probe=\"p\"} 0\n"));
        EXPECT(!strstr(t, "# HELP"));
        EXPECT(!strncmp(t, "# TYPE benchwatch_x_latency_seconds summary\n", 44));
        free(t);
        FILE *full = fopen("/dev/full", "we");
        if (full) {
                EXPECT(prom_text_write(full, rs, 1) < 0);
                fclose(full);
        }
        result_free(r);
}

/* The daemon's own figures (selfstats.h): a result without a probe name,
 * whose series have no probe label and, unlabelled, no braces. */
static void test_no_probe(void)
{
        struct result *r = result_new("", "benchwatch");
        const char *lab[] = { "reason", "full", NULL };
        assert(r);
        assert(result_add(r, "benchwatch_x_total", "X", METRIC_COUNTER, NULL, 3, NULL) == 0);
        assert(result_add(r, "benchwatch_y", "", METRIC_GAUGE, lab, 1, NULL) == 0);
        const struct result *rs[] = { r };
        char *t = render(rs, 1);
        const char *want =
                "# HELP benchwatch_x_total X\n"
                "# TYPE benchwatch_x_total counter\n"
                "benchwatch_x_total 3\n"
                "# TYPE benchwatch_y gauge\n"
                "benchwatch_y{reason=\"full\"} 1\n";
        if (strcmp(t, want))
                fprintf(stderr, "got:\n%s\nwant:\n%s\n", t, want);
        EXPECT(!strcmp(t, want));
        free(t);
        result_free(r);
}

int main(void)
{
        test_label_not_utf8();
        test_no_probe();
        test_numbers();
        test_gauge_counter_escaping();
        test_summary();
        test_grouping();
        test_empty_summary_and_write_error();
        if (test_failures)
                fprintf(stderr, "%u check(s) failed\n", test_failures);
        return test_failures ? 1 : 0;
}
