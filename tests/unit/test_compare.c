/* test_compare.c — the side-by-side table of `run A B`: a column per probe,
 * a row per figure and op (latency as min/avg/p95/p99/max) in people's
 * units, only the parameters that differ on top, "-" where a probe has no
 * such figure (mixed plugins: the union of rows), FAILED in a failed
 * probe's column, and the JSON array of every probe's usual result. */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/compare.h"
#include "test.h"
#include "util/format.h"

static const char *const modes[] = { "randread", "randrw", NULL };
static const struct bw_param_def disk_params[] = {
        { .name = "mode", .type = BW_PARAM_ENUM, .default_value = "randread", .choices = modes,
          .help = "", .flags = BW_PARAM_LABEL },
        { .name = "path", .type = BW_PARAM_STRING, .default_value = "", .help = "" },
        { .name = "threads", .type = BW_PARAM_INT, .default_value = "1", .min = 1, .max = 1024,
          .help = "", .flags = BW_PARAM_LABEL },
        { .name = NULL },
};
static const struct bw_param_def cpu_params[] = {
        { .name = "threads", .type = BW_PARAM_INT, .default_value = "1", .min = 1, .max = 1024,
          .help = "", .flags = BW_PARAM_LABEL },
        { .name = NULL },
};
static const struct bw_plugin disk = { .name = "disk", .params = disk_params };
static const struct bw_plugin cpu = { .name = "cpu", .params = cpu_params };

/* A disk result: IOPS, bytes/s and a latency of `us` microseconds. */
static struct result *disk_result(const char *probe, const char *path, double iops,
                                  uint64_t us)
{
        static struct bw_hist h;
        const char *const labels[] = { "mode", "randread", "op", "read", "threads", "1", NULL };
        struct result *r = result_new(probe, "disk");
        CHECK(r);
        bw_hist_init(&h);
        for (int i = 0; i < 100; i++)
                bw_hist_record(&h, us * 1000 + (uint64_t)i * 10);
        CHECK(result_add(r, "benchwatch_disk_iops", "", METRIC_GAUGE, labels, iops, NULL) == 0);
        CHECK(result_add(r, "benchwatch_disk_bytes_per_second", "", METRIC_GAUGE, labels,
                         iops * 16384, NULL) == 0);
        CHECK(result_add(r, "benchwatch_disk_latency_seconds", "", METRIC_SUMMARY, labels, 0,
                         &h) == 0);
        CHECK(result_add(r, "benchwatch_disk_info", "", METRIC_GAUGE,
                         (const char *const[]){ "device", path, NULL }, 1, NULL) == 0);
        CHECK(result_add_probe_families(r) == 0);
        r->success = true;
        r->duration = 2;
        return r;
}

static char *table(struct compare_column *cols, size_t n)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        CHECK(f);
        CHECK(compare_table(f, cols, n) == 0);
        fclose(f);
        return buf;
}

static struct param_set *params(const struct bw_plugin *p, const char *kv)
{
        struct param_set *ps;
        char *why = NULL;
        CHECK(param_set_new(p->params, &ps, &why) == 0);
        CHECK(!kv || param_set_assign_kv(ps, kv, &why) == 0);
        return ps;
}

int main(void)
{
        struct param_set *pa = params(&disk, NULL), *pb = params(&disk, "path=/dev/loop0");
        struct param_set *pc = params(&cpu, NULL);
        struct result *ra = disk_result("san", "vda", 7340.44, 5450);
        struct result *rb = disk_result("local", "loop0", 200, 10200);
        struct compare_column cols[3] = {
                { "san", &disk, pa, ra }, { "local", &disk, pb, rb }, { 0 },
        };
        char *t = table(cols, 2);
        fputs(t, stdout);
        CHECK_STR_CONTAINS(t, "2 probes, one after the other");
        CHECK_STR_CONTAINS(t, "san");
        CHECK_STR_CONTAINS(t, "local");
        /* only what differs: path and the device, not mode or threads */
        CHECK_STR_CONTAINS(t, "/dev/loop0");
        CHECK_STR_CONTAINS(t, " device ");
        CHECK_STR_CONTAINS(t, "loop0");
        CHECK(!strstr(t, " mode ") && !strstr(t, " threads "));
        CHECK_STR_CONTAINS(t, " read IOPS ");
        CHECK_STR_CONTAINS(t, "7.34k");
        CHECK_STR_CONTAINS(t, " read MiB/s ");
        CHECK_STR_CONTAINS(t, "115"); /* 7340 x 16 KiB = 114.7 MiB/s */
        CHECK_STR_CONTAINS(t, "3.12"); /* 200 x 16 KiB = 3.125 */
        for (const char *s = "min\0avg\0p95\0p99\0max\0"; *s; s += 4) {
                char row[32];
                snprintf(row, sizeof(row), " read latency %s ", s);
                CHECK_STR_CONTAINS(t, row);
        }
        CHECK_STR_CONTAINS(t, "5.45 ms");
        CHECK_STR_CONTAINS(t, "10.2 ms");
        /* each latency cell is the figure the JSON gives for the same
         * result: min, mean, quantiles 0.95 and 0.99, max */
        const struct sample *ls = result_find_sample(rb, "benchwatch_disk_latency_seconds", NULL);
        CHECK(ls && ls->hist);
        const double want[] = { (double)ls->hist->min_ns, bw_hist_mean_ns(ls->hist),
                                bw_hist_quantile_ns(ls->hist, 0.95),
                                bw_hist_quantile_ns(ls->hist, 0.99), (double)ls->hist->max_ns };
        const char *const stat[] = { "min", "avg", "p95", "p99", "max" };
        for (size_t i = 0; i < 5; i++) {
                char row[32], cell[32];
                snprintf(row, sizeof(row), " read latency %s ", stat[i]);
                const char *line = strstr(t, row), *eol = line ? strchr(line, '\n') : NULL;
                CHECK(eol);
                format_quantity(want[i] / 1e9, true, cell, sizeof(cell));
                size_t n = strlen(cell);
                CHECK((size_t)(eol - line) > n && !strncmp(eol - n, cell, n)); /* last column */
        }
        CHECK(!strstr(t, "probe_success") && !strstr(t, "e+0") && !strstr(t, "FAILED"));
        free(t);

        /* a failed probe and a probe of another plugin: the union of rows */
        struct result *rc = result_new("cpu", "cpu");
        CHECK(rc && result_add(rc, "benchwatch_cpu_events_per_second", "", METRIC_GAUGE,
                               (const char *const[]){ "threads", "1", NULL }, 1234.5, NULL) == 0);
        rc->success = true;
        rb->success = false;
        CHECK(result_set_error(rb, "cannot open '/dev/loop0': No such device") == 0);
        cols[2] = (struct compare_column){ "cpu", &cpu, pc, rc };
        t = table(cols, 3);
        fputs(t, stdout);
        CHECK_STR_CONTAINS(t, " disk read IOPS ");
        CHECK_STR_CONTAINS(t, " cpu events/s ");
        CHECK_STR_CONTAINS(t, "1.23k");
        CHECK_STR_CONTAINS(t, "FAILED");
        CHECK_STR_CONTAINS(t, "disk probe 'local' FAILED: cannot open");
        /* the cpu probe has no disk rows, the disk probes no cpu row */
        const char *row = strstr(t, " cpu events/s ");
        CHECK(row);
        const char *eol = strchr(row, '\n');
        CHECK(eol && memchr(row, '-', (size_t)(eol - row)));
        free(t);

        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        CHECK(f && compare_json(f, cols, 3) == 0);
        fclose(f);
        CHECK(!strncmp(buf, "{\"results\":[", 12));
        CHECK_STR_CONTAINS(buf, "\"probe\":\"san\"");
        CHECK_STR_CONTAINS(buf, "\"probe\":\"cpu\"");
        free(buf);

        result_free(ra);
        result_free(rb);
        result_free(rc);
        param_set_free(pa);
        param_set_free(pb);
        param_set_free(pc);
        printf("test_compare: ok\n");
        return 0;
}
