/* test_report_format.c — the JSON of a latency summary carries its histogram:
 * the non-empty buckets, whose counts add up to the sample count and whose
 * bounds hold the recorded values (what pools runs exactly); a plugin's own
 * table shows percentiles only of requests timed, and the run's outcome. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/result.h"
#include "encode/report_format.h"
#include "util/hist.h"

/* What write() writes of r. */
static char *text_of(const struct result *r, void (*write)(FILE *, const struct result *))
{
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        CHECK(f);
        write(f, r);
        CHECK(fclose(f) == 0);
        return text;
}

static char *json_of(const struct result *r)
{
        return text_of(r, report_format_json);
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

static char *layout_of(const struct result *r, const struct bw_report_line *report)
{
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        CHECK(f);
        CHECK(report_format_write(f, FORMAT_TABLE, r, report) == 0);
        CHECK(fclose(f) == 0);
        return text;
}

/* A plugin's own layout (ab's for http): its percentile block only where
 * requests were timed (a failed run's table of zeros read as requests
 * served at once), and the run's outcome last, failed or not. */
static void test_plugin_layout(void)
{
        static const struct bw_report_line report[] = {
                { .label = "Complete requests:", .show = BW_SHOW_VALUE,
                  .figure = "complete_requests" },
                { .label = "Percentage of the requests served within a certain time (ms)",
                  .show = BW_SHOW_PERCENTILES, .figure = "latency_seconds" },
                { .label = NULL },
        };
        struct bw_hist h;
        bw_hist_init(&h);
        struct result *r = result_new("web", "http");
        CHECK(r);
        CHECK(result_add(r, "benchwatch_http_complete_requests", "n", METRIC_COUNTER, NULL, 0,
                         NULL) == 0);
        CHECK(result_add(r, "benchwatch_http_latency_seconds", "latency", METRIC_SUMMARY,
                         NULL, 0, &h) == 0);
        CHECK(result_set_error(r, "no whole response from 127.0.0.1:1") == 0);
        char *text = layout_of(r, report);
        CHECK_STR_CONTAINS(text, "Complete requests:      0");
        EXPECT(!strstr(text, "Percentage of the requests") && !strstr(text, "longest"));
        CHECK_STR_CONTAINS(text, "\nRun: FAILED in 0.00s: no whole response from 127.0.0.1:1\n");
        free(text);
        result_free(r);

        bw_hist_record(&h, 2000000); /* 2 ms */
        r = result_new("web", "http");
        CHECK(r);
        r->success = true;
        r->duration = 1.5;
        CHECK(result_add(r, "benchwatch_http_latency_seconds", "latency", METRIC_SUMMARY,
                         NULL, 0, &h) == 0);
        text = layout_of(r, report);
        CHECK_STR_CONTAINS(text, "Percentage of the requests served within a certain time (ms)\n"
                                 "  50%        2");
        CHECK_STR_CONTAINS(text, "\nRun: succeeded in 1.50s\n");
        free(text);
        result_free(r);
}

/* A heading stands above the indented lines it titles only where one of
 * them prints (a gpu run with stream=no measured no device memory); an
 * empty one is a blank line before the line after it, where that prints;
 * one over lines that are not indented always stands. */
static void test_headings(void)
{
        static const struct bw_report_line report[] = {
                { .label = "Results", .show = BW_SHOW_HEADING },
                { .label = "Device memory", .show = BW_SHOW_HEADING },
                { .label = "  copy:", .show = BW_SHOW_VALUE, .figure = "copy" },
                { .label = "Host to device:", .show = BW_SHOW_VALUE, .figure = "h2d" },
                { .label = "PCIe link", .show = BW_SHOW_HEADING },
                { .label = "  lanes:", .show = BW_SHOW_VALUE, .figure = "lanes" },
                { .label = "", .show = BW_SHOW_HEADING },
                { .label = "Percentiles", .show = BW_SHOW_PERCENTILES, .figure = "latency" },
                { .label = NULL },
        };
        struct result *r = result_new("g", "gpu");
        CHECK(r);
        r->success = true;
        CHECK(result_add(r, "benchwatch_gpu_h2d", "h2d", METRIC_GAUGE, NULL, 5, NULL) == 0);
        CHECK(result_add(r, "benchwatch_gpu_lanes", "lanes", METRIC_GAUGE, NULL, 16, NULL) == 0);
        char *text = layout_of(r, report);
        EXPECT(!strstr(text, "Device memory"));
        CHECK_STR_CONTAINS(text, "Results\nHost to device:");
        CHECK_STR_CONTAINS(text, "Host to device:         5\nPCIe link\n"
                                 "  lanes:                16\n\nRun: succeeded");
        free(text);
        result_free(r);
}

/* The generic table: bytes as sysbench says them (MiB/s), the CPU-time
 * twin in the same unit, a size also in MiB, and every value in one
 * column however long a figure's name with its labels. */
static void test_table_units(void)
{
        struct result *r = result_new("m", "memory");
        CHECK(r);
        const char *copy[] = { "operation", "copy", NULL };
        const char *triad[] = { "operation", "triad", NULL };
        CHECK(result_add(r, "benchwatch_memory_bytes_per_second", "b", METRIC_GAUGE, copy,
                         100.0 * 1048576, NULL) == 0);
        CHECK(result_add(r, "benchwatch_memory_bytes_per_cpu_second", "b", METRIC_GAUGE, triad,
                         90.5 * 1048576, NULL) == 0);
        CHECK(result_add(r, "benchwatch_memory_working_set_bytes", "b", METRIC_GAUGE, NULL,
                         805306368, NULL) == 0);
        char *text = layout_of(r, NULL);
        const char *a = strstr(text, "    bytes_per_second [operation=copy]:");
        const char *b = strstr(text, "    bytes_per_cpu_second [operation=triad]:");
        CHECK(a && b);
        CHECK_STR_CONTAINS(text, "100.00 MiB/s\n");
        CHECK_STR_CONTAINS(text, "90.50 MiB per CPU second\n");
        CHECK_STR_CONTAINS(text, "805306368    (768.0 MiB)\n");
        /* the decimal points of the two rates in one column */
        EXPECT(strchr(a, '.') - a == strchr(b, '.') - b);
        free(text);
        result_free(r);
}

/* A parameter left unset says so rather than print nothing (the disk
 * probe's own test file), and a latency block's heading ends at its colon. */
static void test_table_unset(void)
{
        struct result *r = result_new("d", "disk");
        CHECK(r);
        r->success = true;
        CHECK(result_add_param(r, "path", "") == 0);
        CHECK(result_add_param(r, "size", "64M") == 0);
        struct bw_hist h;
        bw_hist_init(&h);
        bw_hist_record(&h, 50000);
        const char *read[] = { "op", "read", NULL };
        CHECK(result_add(r, "benchwatch_disk_latency_seconds", "l", METRIC_SUMMARY, read, 0,
                         &h) == 0);
        char *text = text_of(r, report_format_table);
        CHECK_STR_CONTAINS(text, "    path                 (not set)\n");
        CHECK_STR_CONTAINS(text, "    size                 64M\n");
        CHECK_STR_CONTAINS(text, "    latency_seconds [op=read]:\n");
        free(text);
        result_free(r);
}

/* The daemon's --print line: a run's figures, not its info metric. */
static void test_line(void)
{
        struct result *r = result_new("g", "gpu");
        CHECK(r);
        r->success = true;
        r->duration = 0.4;
        const char *info[] = { "gpu", "0", "name", "NVIDIA H200", NULL };
        CHECK(result_add(r, "benchwatch_gpu_info", "i", METRIC_GAUGE, info, 1, NULL) == 0);
        CHECK(result_add(r, "benchwatch_gpu_host_to_device_bytes_per_second", "b",
                         METRIC_GAUGE, NULL, 5e10, NULL) == 0);
        char *text = text_of(r, report_format_line);
        CHECK(!strcmp(text, "gpu 'g': ok in 0.4s: host_to_device_bytes_per_second=50.0G\n"));
        free(text);
        result_free(r);
}

int main(void)
{
        test_histogram();
        test_empty_histogram();
        test_plugin_layout();
        test_headings();
        test_table_units();
        test_table_unset();
        test_line();
        if (test_failures)
                fprintf(stderr, "%u check(s) failed\n", test_failures);
        return test_failures ? 1 : 0;
}
