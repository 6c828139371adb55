/* test_history.c — the on-disk history of a probe's figures: what is
 * appended reads back in order, `since` filters, a crash in the middle of
 * an append loses only that append (the torn line is ignored, then cut),
 * the file never grows past its bound and keeps the newest runs when it
 * is compacted, an edited line is skipped and counted, a foreign file is
 * refused; and the SVG drawing has a panel per figure with the band and
 * the regressions marked. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "cmd/history_plot.h"
#include "detect/history.h"

static char dir[] = "/tmp/test_history.XXXXXX";

static void append_run(double t, double value, enum history_state st, size_t max)
{
        struct history_entry e[2] = {
                { .t = t,
                  .counted = true,
                  .state = st,
                  .value = value,
                  .reference = 1000,
                  .key = (char *)"benchwatch_disk_iops{mode=\"rand read\",op=\"read\"}" },
                { .t = t,
                  .counted = false,
                  .state = HISTORY_LEARNING,
                  .value = 0.002,
                  .reference = NAN,
                  .key = (char *)"benchwatch_disk_latency_seconds{quantile=\"0.99\"}" },
        };
        char *err = NULL;
        EXPECT(history_append(dir, "root", e, 2, max, &err) == 0 && !err);
        free(err);
}

static size_t file_size(void)
{
        struct stat st;
        char path[512];
        snprintf(path, sizeof(path), "%s/history-root.txt", dir);
        return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

static void test_roundtrip(void)
{
        struct history_entry *e = NULL;
        size_t n = 99;
        unsigned skipped = 9, bad = 9;
        EXPECT(history_read(dir, "root", -INFINITY, &e, &n, &skipped, &bad, NULL) == 0 && n == 0);
        history_entries_free(e, n);
        for (int i = 0; i < 10; i++)
                append_run(1764547200 + 600 * i, 1000 + i, i < 8 ? HISTORY_OK : HISTORY_REGRESSION,
                           1 << 20);
        EXPECT(history_read(dir, "root", -INFINITY, &e, &n, &skipped, &bad, NULL) == 0);
        EXPECT(n == 20 && skipped == 0 && bad == 0);
        EXPECT(e[0].t == 1764547200 && e[0].value == 1000 && e[0].reference == 1000 &&
               e[0].counted && e[0].state == HISTORY_OK &&
               !strcmp(e[0].key, "benchwatch_disk_iops{mode=\"rand read\",op=\"read\"}"));
        EXPECT(isnan(e[1].reference) && !e[1].counted && e[1].state == HISTORY_LEARNING &&
               e[1].value == 0.002);
        EXPECT(e[19].state == HISTORY_LEARNING && e[18].state == HISTORY_REGRESSION &&
               e[18].value == 1009);
        history_entries_free(e, n);
        EXPECT(history_read(dir, "root", 1764547200 + 600 * 8, &e, &n, &skipped, &bad, NULL) == 0 &&
               n == 4);
        history_entries_free(e, n);
}

/* A crash in the middle of an append: the torn line is not read, the next
 * append cuts it off and what came before is intact. */
static void test_torn_tail(void)
{
        char path[512];
        struct history_entry *e = NULL;
        size_t n;
        unsigned skipped, bad;
        snprintf(path, sizeof(path), "%s/history-root.txt", dir);
        int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
        EXPECT(fd >= 0 && write(fd, "1764600000.000 1 O 10", 21) == 21);
        close(fd);
        EXPECT(history_read(dir, "root", -INFINITY, &e, &n, &skipped, &bad, NULL) == 0 && n == 20 &&
               !skipped);
        history_entries_free(e, n);
        append_run(1764700000, 777, HISTORY_OK, 1 << 20);
        EXPECT(history_read(dir, "root", -INFINITY, &e, &n, &skipped, &bad, NULL) == 0 && n == 22 &&
               !skipped);
        EXPECT(n == 22 && e[20].value == 777 && e[19].value == 0.002);
        history_entries_free(e, n);
        /* an edited line is skipped and counted, the rest kept */
        fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
        EXPECT(fd >= 0 && write(fd, "edited by hand\n", 15) == 15);
        close(fd);
        append_run(1764800000, 778, HISTORY_OK, 1 << 20);
        EXPECT(history_read(dir, "root", -INFINITY, &e, &n, &skipped, &bad, NULL) == 0);
        EXPECT(n == 24 && skipped == 1 && bad == 24);
        history_entries_free(e, n);
}

/* Bounded: never past max, the newest runs kept in order. */
static void test_bound(void)
{
        const size_t max = 64 * 1024;
        for (int i = 0; i < 3000; i++) {
                append_run(1764900000 + i, 2000 + i, HISTORY_OK, max);
                EXPECT(file_size() <= max);
        }
        struct history_entry *e = NULL;
        size_t n;
        unsigned skipped, bad;
        EXPECT(history_read(dir, "root", -INFINITY, &e, &n, &skipped, &bad, NULL) == 0);
        EXPECT(n > 200 && !skipped && e[n - 2].value == 2000 + 2999);
        for (size_t i = 1; i < n; i++)
                EXPECT(e[i].t >= e[i - 1].t);
        history_entries_free(e, n);
        /* no temporary file left behind */
        char tmp[600];
        snprintf(tmp, sizeof(tmp), "ls %s | grep -v '^history-root.txt$' | grep -q .", dir);
        EXPECT(system(tmp) != 0);
}

static void test_foreign_and_names(void)
{
        char path[512], *err = NULL;
        struct history_entry *e = NULL;
        size_t n;
        unsigned skipped, bad;
        snprintf(path, sizeof(path), "%s/history-web.txt", dir);
        FILE *f = fopen(path, "we");
        fputs("some other file\n1 2 3\n", f);
        fclose(f);
        EXPECT(history_read(dir, "web", -INFINITY, &e, &n, &skipped, &bad, &err) == -EBADMSG);
        EXPECT(err && strstr(err, path) && strstr(err, "not a benchwatch history"));
        free(err);
        /* a first line longer than the header is not one torn by a crash
         * (that reads as no entries yet): it was read as empty, silently */
        f = fopen(path, "we");
        fputs("benchwatch-history 1 (copied from host-a)\n1764600000.000 1 O 10 10 m\n", f);
        fclose(f);
        err = NULL;
        EXPECT(history_read(dir, "web", -INFINITY, &e, &n, &skipped, &bad, &err) == -EBADMSG);
        EXPECT(err && strstr(err, "not a benchwatch history"));
        free(err);
        /* torn: the file ends inside its header */
        f = fopen(path, "we");
        fputs("benchwatch-hist", f);
        fclose(f);
        EXPECT(history_read(dir, "web", -INFINITY, &e, &n, &skipped, &bad, NULL) == 0 && n == 0);
        unlink(path);
        EXPECT(history_read(dir, "../x", -INFINITY, &e, &n, &skipped, &bad, NULL) == -EINVAL);
        EXPECT(history_append(dir, "a/b", NULL, 0, 1 << 20, NULL) == -EINVAL);
        err = NULL;
        struct history_entry one = { .t = 1, .counted = true, .state = HISTORY_OK, .value = 1,
                                     .reference = 1, .key = (char *)"m" };
        EXPECT(history_append("/nonexistent/dir", "root", &one, 1, 1 << 20, &err) == -ENOENT);
        EXPECT(err && strstr(err, "/nonexistent/dir/history-root.txt"));
        free(err);
}

static void test_plot(void)
{
        struct history_entry *e = NULL;
        size_t n, len = 0;
        unsigned skipped, bad;
        char *svg = NULL;
        EXPECT(history_read(dir, "root", -INFINITY, &e, &n, &skipped, &bad, NULL) == 0);
        FILE *f = open_memstream(&svg, &len);
        EXPECT(history_plot_svg(f, "root & <co>", e, n, 0.05) == 0);
        fclose(f);
        EXPECT(svg && strstr(svg, "<svg") && strstr(svg, "</svg>"));
        EXPECT(strstr(svg, "probe root &amp; &lt;co&gt;"));
        EXPECT(strstr(svg, "benchwatch_disk_iops{mode=&quot;rand read&quot;,op=&quot;read&quot;}"));
        EXPECT(strstr(svg, "benchwatch_disk_latency_seconds{quantile=&quot;0.99&quot;}"));
        EXPECT(strstr(svg, "fill=\"#2ca02c\"")); /* the band */
        EXPECT(strstr(svg, "2.00 ms")); /* latency ticks in people's units */
        EXPECT(strstr(svg, "reference \u00b15%"));
        free(svg);
        history_entries_free(e, n);
        f = open_memstream(&svg, &len);
        EXPECT(history_plot_svg(f, "root", NULL, 0, 0.05) == -EINVAL);
        fclose(f);
        free(svg);
}

/* A key's figure is a time by its name, not by a label that says
 * "_seconds" (what `history` and the plot show in µs/ms). */
static void test_key_in_seconds(void)
{
        EXPECT(history_key_in_seconds("benchwatch_cpu_latency_seconds{quantile=\"0.5\"}"));
        EXPECT(history_key_in_seconds("benchwatch_probe_duration_seconds"));
        EXPECT(!history_key_in_seconds("benchwatch_cpu_events_per_second{threads=\"1\"}"));
        EXPECT(!history_key_in_seconds("benchwatch_x_total{unit=\"_seconds\"}"));
        EXPECT(!history_key_in_seconds("_seconds"));
}

int main(void)
{
        if (!mkdtemp(dir)) {
                perror("mkdtemp");
                return 99;
        }
        test_roundtrip();
        test_torn_tail();
        test_bound();
        test_foreign_and_names();
        test_plot();
        test_key_in_seconds();
        EXPECT(test_rm_tree(dir) == 0);
        if (test_failures)
                fprintf(stderr, "%u check(s) failed\n", test_failures);
        return test_failures ? 1 : 0;
}
