/* test_baseline.c — the baseline store: which series are tracked, that a
 * stored baseline reads back bit for bit, that no damaged or foreign file
 * is ever trusted (every truncation, every flipped byte, garbage, a future
 * format version), that a version 1 file (the per-run rule's) is read and
 * converted, reset and listing, accept and import, the verify comparison,
 * the benchwatch_baseline* / benchwatch_regression* families, and the
 * context a reference was learnt on (kept, compared, said). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "detect/baseline.h"
#include "detect/baseline_report.h"
#include "detect/baseline_store.h"



static char dir[] = "/tmp/test_baseline.XXXXXX";

/* A disk-like result: IOPS for reads and writes (op label, and the mode
 * parameter label the core adds), a latency summary, plus families that
 * must not be tracked. */
static struct result *disk_result(double iops, double lat_s, const char *odd)
{
        struct result *r = result_new("root", "disk");
        struct bw_hist h;
        bw_hist_init(&h);
        for (unsigned i = 0; i < 1000; i++)
                bw_hist_record(&h, (uint64_t)(lat_s * 1e9 * (0.5 + i / 1000.0)));
        r->success = true;
        result_add(r, "benchwatch_disk_iops", "", METRIC_GAUGE,
                   (const char *const[]){ "op", "read", "mode", odd, NULL }, iops, NULL);
        result_add(r, "benchwatch_disk_iops", "", METRIC_GAUGE,
                   (const char *const[]){ "op", "write", "mode", odd, NULL }, iops / 2, NULL);
        result_add(r, "benchwatch_disk_latency_seconds", "", METRIC_SUMMARY,
                   (const char *const[]){ "op", "read", "mode", odd, NULL }, 0, &h);
        result_add(r, "benchwatch_disk_errors_total", "", METRIC_COUNTER,
                   (const char *const[]){ "op", "read", NULL }, 3, NULL);
        result_add(r, "benchwatch_http_non_2xx_responses", "", METRIC_GAUGE, NULL, 5, NULL);
        result_add_probe_families(r);
        return r;
}

#define MODE "rand\"read\\ \n x"  /* a label value every escape applies to */
#define KEY_READ "benchwatch_disk_iops{mode=\"rand\\\"read\\\\ \\n x\",op=\"read\"}"
#define KEY_P99                                                                                    \
        "benchwatch_disk_latency_seconds{mode=\"rand\\\"read\\\\ \\n "                             \
        "x\",op=\"read\",quantile=\"0.99\"}"

static void test_directions(void)
{
        EXPECT(baseline_direction("benchwatch_disk_iops", METRIC_GAUGE) ==
               DETECTOR_HIGHER_IS_BETTER);
        EXPECT(baseline_direction("benchwatch_cpu_events_per_second", METRIC_GAUGE) ==
               DETECTOR_HIGHER_IS_BETTER);
        EXPECT(baseline_direction("benchwatch_memory_bytes_per_second", METRIC_GAUGE) ==
               DETECTOR_HIGHER_IS_BETTER);
        EXPECT(baseline_direction("benchwatch_mysql_latency_seconds", METRIC_SUMMARY) ==
               DETECTOR_LOWER_IS_BETTER);
        EXPECT(baseline_direction("benchwatch_cpu_total_time_seconds", METRIC_GAUGE) ==
               DETECTOR_NONE);
        /* memory latency mode: the figure is tracked as a latency, its context is not */
        EXPECT(baseline_direction("benchwatch_memory_load_latency_seconds", METRIC_GAUGE) ==
               DETECTOR_LOWER_IS_BETTER);
        EXPECT(baseline_direction("benchwatch_memory_huge_page_ratio", METRIC_GAUGE) ==
               DETECTOR_NONE);
        EXPECT(baseline_direction("benchwatch_memory_working_set_bytes", METRIC_GAUGE) ==
               DETECTOR_NONE);
        EXPECT(baseline_direction("benchwatch_memory_loads_total", METRIC_COUNTER) ==
               DETECTOR_NONE);
        EXPECT(baseline_direction("benchwatch_cpu_events_total", METRIC_COUNTER) == DETECTOR_NONE);
        EXPECT(baseline_direction("benchwatch_http_failed_requests", METRIC_GAUGE) ==
               DETECTOR_NONE);
        EXPECT(baseline_direction("benchwatch_probe_duration_seconds", METRIC_GAUGE) ==
               DETECTOR_NONE);
        EXPECT(baseline_direction("benchwatch_regression_ratio", METRIC_GAUGE) == DETECTOR_NONE);
        EXPECT(baseline_direction("benchwatch_baseline", METRIC_GAUGE) == DETECTOR_NONE);
}

static struct baseline *fed_baseline(unsigned runs, double iops)
{
        struct detector_config c = { 0 };
        struct baseline *b = baseline_new("root");
        detector_config_default(&c);
        for (unsigned i = 0; i < runs; i++) {
                struct result *r = disk_result(iops + i % 3, 0.001, MODE);
                EXPECT(baseline_update(b, r, &c, true) == 0);
                result_free(r);
        }
        return b;
}

static void test_tracked_series(void)
{
        struct baseline *b = fed_baseline(1, 1000);
        /* 2 IOPS + 3 latency quantiles; counters, probe_*, no-direction out. */
        EXPECT(b->n_series == 5);
        const struct baseline_series *s = baseline_find(b, KEY_READ);
        EXPECT(s && s->seen && s->direction == DETECTOR_HIGHER_IS_BETTER);
        EXPECT(s && s->n_labels == 2 && !strcmp(s->labels[0].name, "mode") &&
              !strcmp(s->labels[0].value, MODE) && !strcmp(s->metric, "benchwatch_disk_iops"));
        s = baseline_find(b, KEY_P99);
        EXPECT(s && s->direction == DETECTOR_LOWER_IS_BETTER && s->det.n_ref == 1);
        EXPECT(s && fabs(s->det.ref[0] - 0.001485) < 0.001485 * 0.01);
        for (size_t i = 0; i < b->n_series; i++)
                EXPECT(strncmp(b->series[i].key, "benchwatch_probe_", 17) &&
                      !strstr(b->series[i].key, "errors") && !strstr(b->series[i].key, "non_2xx"));
        /* A failed run changes nothing and sees nothing. */
        struct detector_config c = { 0 };
        detector_config_default(&c);
        struct result *r = disk_result(1, 1, MODE);
        r->success = false;
        EXPECT(baseline_update(b, r, &c, true) == 0);
        EXPECT(b->n_series == 5 && !b->series[0].seen && b->series[0].det.n_ref == 1);
        result_free(r);

        /* What the store reads back goes through the same key rules. */
        struct detector det;
        detector_init(&det);
        det.n_ref = 1;
        det.ref[0] = 7;
        EXPECT(baseline_add_series(b, KEY_READ, DETECTOR_HIGHER_IS_BETTER, &det) == -EEXIST);
        EXPECT(baseline_add_series(b, "m{b=\"1\",a=\"2\"}", DETECTOR_HIGHER_IS_BETTER, &det) ==
               -EINVAL);
        EXPECT(baseline_add_series(b, "m{a=\"1\",a=\"2\"}", DETECTOR_HIGHER_IS_BETTER, &det) ==
               -EINVAL);
        EXPECT(baseline_add_series(b, "m{a=\"\\x\"}", DETECTOR_HIGHER_IS_BETTER, &det) == -EINVAL);
        EXPECT(baseline_add_series(b, "m{a=1}", DETECTOR_HIGHER_IS_BETTER, &det) == -EINVAL);
        EXPECT(baseline_add_series(b, "m", DETECTOR_NONE, &det) == -EINVAL);
        det.ref[0] = -7;
        EXPECT(baseline_add_series(b, "m", DETECTOR_HIGHER_IS_BETTER, &det) == -EINVAL);
        det.ref[0] = 7;
        EXPECT(b->n_series == 5);
        EXPECT(baseline_add_series(b, "m{a=\"x\\ny\"}", DETECTOR_LOWER_IS_BETTER, &det) == 0);
        s = baseline_find(b, "m{a=\"x\\ny\"}");
        EXPECT(s && !strcmp(s->metric, "m") && s->n_labels == 1 &&
              !strcmp(s->labels[0].value, "x\ny") && s->det.ref[0] == 7);
        baseline_free(b);
}

static char *slurp(const char *path, size_t *len)
{
        FILE *f = fopen(path, "re");
        char *buf = malloc(1 << 20);
        *len = f ? fread(buf, 1, 1 << 20, f) : 0;
        if (f)
                fclose(f);
        return buf;
}

static void spit(const char *path, const char *data, size_t len)
{
        FILE *f = fopen(path, "we");
        EXPECT(f && fwrite(data, 1, len, f) == len);
        if (f)
                fclose(f);
}

/* Names in dir other than baseline-*.txt, removing them; counts the
 * *.corrupt-* ones into *corrupt. */
static unsigned sweep_others(unsigned *corrupt)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        unsigned n = 0;
        *corrupt = 0;
        while (d && (de = readdir(d))) {
                if (de->d_name[0] == '.' || (strstr(de->d_name, ".txt") &&
                    !strcmp(strstr(de->d_name, ".txt"), ".txt")))
                        continue;
                n++;
                *corrupt += strstr(de->d_name, ".txt.corrupt-") != NULL;
                char p[512];
                snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
                unlink(p);
        }
        if (d)
                closedir(d);
        return n;
}

static bool same_baseline(const struct baseline *a, const struct baseline *b)
{
        if (strcmp(a->probe, b->probe) || a->n_series != b->n_series ||
            !context_equal(&a->context, &b->context) || !context_equal(&a->seen, &b->seen))
                return false;
        for (size_t i = 0; i < a->n_series; i++) {
                const struct baseline_series *x = &a->series[i], *y = &b->series[i];
                if (strcmp(x->key, y->key) || strcmp(x->metric, y->metric) ||
                    x->direction != y->direction || x->n_labels != y->n_labels ||
                    memcmp(&x->det, &y->det, sizeof(x->det)))
                        return false;
                for (size_t k = 0; k < x->n_labels; k++)
                        if (strcmp(x->labels[k].name, y->labels[k].name) ||
                            strcmp(x->labels[k].value, y->labels[k].value))
                                return false;
        }
        return true;
}

static void test_roundtrip(void)
{
        struct baseline *b = fed_baseline(120, 1234.567), *back = NULL;
        char *err = NULL, *path = NULL;
        unsigned corrupt;

        EXPECT(b->series[0].det.pinned && b->series[0].det.n_ref == 100);
        b->series[1].det.regression = true;
        b->series[1].det.cusum = 8.5;
        b->series[1].det.shift = 1.0 / 7;
        b->series[1].det.last_z = -0.1;
        b->series[2].det.ref[0] = 1.0 / 3; /* needs all 17 digits */
        EXPECT(detector_refresh(&b->series[2].det) == 0);
        EXPECT(baseline_store_save(b, dir, &err) == 0 && !err);
        EXPECT(sweep_others(&corrupt) == 0); /* no temporary left behind */
        EXPECT(baseline_store_load(dir, "root", &back, &err) == 0 && !err);
        EXPECT(back && same_baseline(b, back));
        EXPECT(back && back->series[0].det.n_ref == 100 && back->series[0].det.n_recent == 30);
        baseline_free(back);

        /* Saving again replaces, and the file is readable by others. */
        struct stat st;
        EXPECT(baseline_store_save(b, dir, NULL) == 0);
        EXPECT(baseline_store_path(dir, "root", &path) == 0);
        EXPECT(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
        /* No file yet: an empty baseline, no error. */
        EXPECT(baseline_store_load(dir, "other", &back, &err) == 0 && back && back->n_series == 0);
        baseline_free(back);
        /* Not writable: an error naming the file. */
        EXPECT(baseline_store_save(b, "/nonexistent/dir", &err) == -ENOENT);
        EXPECT(err && strstr(err, "/nonexistent/dir/baseline-root.txt"));
        free(err);
        free(path);
        baseline_free(b);
}

/* Loading `data` as root's file must fail with `want`, set the file aside
 * as *.corrupt-*, and leave a fresh start for the next load. */
static void expect_rejected(const char *data, size_t len, int want, const char *what)
{
        struct baseline *back = NULL;
        char *err = NULL, *path;
        unsigned corrupt;
        baseline_store_path(dir, "root", &path);
        spit(path, data, len);
        int r = baseline_store_load(dir, "root", &back, &err);
        if (r != want && !(want == 0 && r < 0)) {
                fprintf(stderr, "%s: load returned %d, want %d\n", what, r, want);
                test_failures++;
        }
        EXPECT(!back);
        EXPECT(err && strstr(err, path) && strstr(err, "moved aside to"));
        EXPECT(access(path, F_OK) < 0 && errno == ENOENT);
        EXPECT(sweep_others(&corrupt) == 1 && corrupt == 1);
        EXPECT(baseline_store_load(dir, "root", &back, NULL) == 0 && back->n_series == 0);
        baseline_free(back);
        free(err);
        free(path);
}

/* Two bad files of one probe set aside within a second: both kept (the
 * second once replaced the first, both named by the same second). */
static void test_set_aside_twice(void)
{
        struct baseline *back = NULL;
        char *path;
        unsigned corrupt;
        baseline_store_path(dir, "root", &path);
        for (int i = 0; i < 2; i++) {
                spit(path, "garbage\n", 8);
                EXPECT(baseline_store_load(dir, "root", &back, NULL) == -EBADMSG && !back);
        }
        EXPECT(sweep_others(&corrupt) == 2 && corrupt == 2);
        free(path);
}

static void test_damaged_files(void)
{
        struct baseline *b = fed_baseline(8, 500);
        char *path, *good;
        size_t len;
        int n_trunc = 0, n_flip = 0;

        baseline_store_save(b, dir, NULL);
        baseline_store_path(dir, "root", &path);
        good = slurp(path, &len);
        EXPECT(len > 200 && !strncmp(good, "benchwatch-baseline 3\nprobe root\n", 33));

        /* Every truncation (a crash while writing without the rename). */
        for (size_t cut = 0; cut < len; cut++, n_trunc++)
                expect_rejected(good, cut, -EBADMSG, "truncated");
        /* Every single flipped bit of every byte's lowest bit. */
        for (size_t i = 0; i < len; i++, n_flip++) {
                good[i] ^= 1;
                expect_rejected(good, len, 0, "flipped");
                good[i] ^= 1;
        }
        printf("rejected %d truncations and %d flipped bytes\n", n_trunc, n_flip);

        const char garbage[] = "\x7f" "ELF\x02\x01\x01\0\0\0garbage";
        expect_rejected(garbage, sizeof(garbage), -EBADMSG, "garbage");
        const char text[] = "hello world\n";
        expect_rejected(text, strlen(text), -EBADMSG, "text");
        /* Another probe's intact file under root's name. */
        struct baseline *w = baseline_new("web-1");
        char *wpath, *wdata;
        size_t wlen;
        baseline_store_save(w, dir, NULL);
        baseline_store_path(dir, "web-1", &wpath);
        wdata = slurp(wpath, &wlen);
        unlink(wpath);
        expect_rejected(wdata, wlen, -EBADMSG, "another probe's");
        free(wdata);
        free(wpath);
        baseline_free(w);

        /* A future format: set aside with a message saying so. */
        const char future[] = "benchwatch-baseline 4\nprobe root\nwhatever 4 means\n";
        struct baseline *back = NULL;
        char *err = NULL;
        unsigned corrupt;
        spit(path, future, strlen(future));
        EXPECT(baseline_store_load(dir, "root", &back, &err) == -EPROTONOSUPPORT && !back);
        EXPECT(err && strstr(err, "format version 4"));
        EXPECT(sweep_others(&corrupt) == 1 && corrupt == 1);
        free(err);

        /* Bigger than any baseline (a sparse file): not ours. */
        EXPECT(truncate(path, 0) == 0 || errno == ENOENT);
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        EXPECT(fd >= 0 && ftruncate(fd, 17 << 20) == 0);
        close(fd);
        EXPECT(baseline_store_load(dir, "root", &back, &err) == -EBADMSG && !back);
        EXPECT(err && strstr(err, "larger than"));
        EXPECT(sweep_others(&corrupt) == 1 && corrupt == 1);
        free(err);
        /* Not a file at all: an error, and nothing is moved. */
        EXPECT(mkdir(path, 0755) == 0);
        EXPECT(baseline_store_load(dir, "root", &back, &err) == -EINVAL && !back);
        EXPECT(err && strstr(err, "cannot read"));
        EXPECT(rmdir(path) == 0);
        free(err);

        /* The intact file still loads (the test data was right). */
        spit(path, good, len);
        EXPECT(baseline_store_load(dir, "root", &back, NULL) == 0 && same_baseline(b, back));
        baseline_free(back);
        unlink(path);
        free(good);
        free(path);
        baseline_free(b);
}

static uint64_t fnv1a(const char *p, size_t n)
{
        uint64_t h = 0xcbf29ce484222325u;
        for (size_t i = 0; i < n; i++) {
                h ^= (unsigned char)p[i];
                h *= 0x100000001b3u;
        }
        return h;
}

/* A file with `body` after the header and a correct end line. */
static void expect_body_rejected(const char *body, unsigned n_series, int want)
{
        char buf[8192];
        int n = snprintf(buf, sizeof(buf), "benchwatch-baseline 2\nprobe root\n%s", body);
        snprintf(buf + n, sizeof(buf) - (size_t)n, "end %u %016llx\n", n_series,
                 (unsigned long long)fnv1a(buf, (size_t)n));
        expect_rejected(buf, strlen(buf), want, body);
}

#define SERIES_OK "series m{a=\"1\",b=\"x\\\"y\"}\ndirection higher\nreference 1 1764547200.5\n" \
        "values 1 2.5 3e-07 4\nrecent 2 3\nstate 1 4 8.5 3.5 0.25 1.75 -0.5\n"

static void test_strict_parser(void)
{
        struct baseline *back;
        char *path;
        char buf[8192];

        /* The well-formed hand-written file loads: the rejections below are
         * for the one thing each changes. */
        int n = snprintf(buf, sizeof(buf), "benchwatch-baseline 2\nprobe root\n%s", SERIES_OK);
        snprintf(buf + n, sizeof(buf) - (size_t)n, "end 1 %016llx\n",
                 (unsigned long long)fnv1a(buf, (size_t)n));
        baseline_store_path(dir, "root", &path);
        spit(path, buf, strlen(buf));
        EXPECT(baseline_store_load(dir, "root", &back, NULL) == 0 && back->n_series == 1);
        const struct detector *d = &back->series[0].det;
        EXPECT(d->pinned && d->pinned_at == 1764547200.5 && d->n_ref == 4 && d->ref[2] == 3e-7 &&
               d->n_recent == 2 && d->recent[1] == 3);
        EXPECT(d->regression && d->segment == 4 && d->cusum == 8.5 && d->fast == 3.5 &&
               d->clear == 0.25 && d->shift == 1.75 && d->last_z == -0.5);
        EXPECT(back->n_series == 1 && !strcmp(back->series[0].labels[1].value, "x\"y"));
        baseline_free(back);
        unlink(path);
        free(path);

        const char *tail = "values\nrecent\nstate 0 0 0 0 0 0 0\n";
        char body[512];
#define REJECT(head, rest, n_series) do { \
        snprintf(body, sizeof(body), "%s%s", head, rest); \
        expect_body_rejected(body, n_series, -EBADMSG); } while (0)
        REJECT("series m{b=\"1\",a=\"2\"}\ndirection higher\nreference 0 0\n", tail, 1);
        REJECT("series m{a=\"1\",}\ndirection higher\nreference 0 0\n", tail, 1);
        REJECT("series m{a=\"1\"\ndirection higher\nreference 0 0\n", tail, 1);
        REJECT("series m\ndirection sideways\nreference 0 0\n", tail, 1);
        REJECT("series m\ndirection higher\nreference 2 0\n", tail, 1);
        REJECT("series m\ndirection higher\nreference 0\n", tail, 1);
        REJECT("series m\ndirection higher\nreference 0 nan\n", tail, 1);
        REJECT("series m\ndirection higher\nreference 1 0\n", tail, 1); /* pinned on nothing */
        REJECT("series m\ndirection higher\nreference 0 0\n",
               "values 1 nan\nrecent\nstate 0 0 0 0 0 0 0\n", 1);
        REJECT("series m\ndirection higher\nreference 0 0\n",
               "values 1 -2\nrecent\nstate 0 0 0 0 0 0 0\n", 1);
        REJECT("series m\ndirection higher\nreference 0 0\n",
               "values 1 0\nrecent\nstate 0 0 0 0 0 0 0\n", 1);
        REJECT("series m\ndirection higher\nreference 0 0\n",
               "values 1  2\nrecent\nstate 0 0 0 0 0 0 0\n", 1);
        REJECT("series m\ndirection higher\nreference 0 0\n",
               "values\nrecent\nstate 2 0 0 0 0 0 0\n", 1);
        REJECT("series m\ndirection higher\nreference 0 0\n",
               "values\nrecent\nstate 0 0 -1 0 0 0 0\n", 1);
        REJECT("series m\ndirection higher\nreference 0 0\n", "values\nrecent\nstate 0 0 0 0 0 0\n",
               1);
        REJECT("series m\ndirection higher\nreference 0 0\n",
               "values\nrecent\nstate 0 0 0 0 0 0 0 0 0\n", 1);
        REJECT("series m\ndirection higher\nreference 0 0\n",
               "values\nrecent\nstate 0 0 0 0 0 0 0 31\n", 1);
        REJECT("series m\ndirection higher\nreference 0 0\n", "values\nstate 0 0 0 0 0 0 0\n", 1);
        REJECT("series m\nreference 0 0\ndirection higher\n", tail, 1);
        REJECT("series m\ndirection higher\nreference 0 0\n", tail, 2);
        REJECT("series m\ndirection higher\nreference 0 0\nvalues\nrecent\nstate 0 0 0 0 0 0 "
               "0\nextra\n",
               "", 1);
        REJECT("series m\ndirection higher\nreference 0 0\nvalues\nrecent\nstate 0 0 0 0 0 0 0\n"
               "series m\ndirection higher\nreference 0 0\n", tail, 2);
#undef REJECT
        char many[4096];
        size_t len = (size_t)snprintf(many, sizeof(many),
                                      "series m\ndirection higher\nreference 0 0\nvalues");
        for (int i = 0; i <= DETECTOR_REF_MAX; i++)
                len += (size_t)snprintf(many + len, sizeof(many) - len, " 1");
        snprintf(many + len, sizeof(many) - len, "\nrecent\nstate 0 0 0 0 0 0 0\n");
        expect_body_rejected(many, 1, -EBADMSG);
}

/* A version 1 file keeps its learnt baseline: a full window (20 runs) is
 * pinned at the file's time, a shorter one goes on learning, and a v1
 * regression stays one; the next save writes version 2. */
static void test_v1_conversion(void)
{
        char buf[8192], *path;
        size_t n = (size_t)snprintf(buf, sizeof(buf), "benchwatch-baseline 1\nprobe root\n"
                                    "series full\ndirection higher\nstate 1 3 0\nvalues");
        for (int i = 0; i < 20; i++)
                n += (size_t)snprintf(buf + n, sizeof(buf) - n, " %d", 1000 + i % 5);
        n += (size_t)snprintf(buf + n, sizeof(buf) - n,
                              "\nseries short\ndirection lower\nstate 0 0 2\nvalues 0.5 0.25\n");
        snprintf(buf + n, sizeof(buf) - n, "end 2 %016llx\n", (unsigned long long)fnv1a(buf, n));
        baseline_store_path(dir, "root", &path);
        spit(path, buf, strlen(buf));
        struct timespec ts[2] = { { .tv_sec = 1700000000 }, { .tv_sec = 1700000000 } };
        EXPECT(utimensat(AT_FDCWD, path, ts, 0) == 0);

        struct baseline *b = NULL, *back = NULL;
        char *err = NULL;
        EXPECT(baseline_store_load(dir, "root", &b, &err) == 0 && !err && b && b->n_series == 2);
        const struct baseline_series *f = b ? baseline_find(b, "full") : NULL;
        const struct baseline_series *s = b ? baseline_find(b, "short") : NULL;
        EXPECT(f && f->det.pinned && f->det.pinned_at == 1700000000 && f->det.n_ref == 20 &&
               f->det.regression && f->det.n_recent == 20);
        EXPECT(f && fabs(exp(f->det.rs.log_level) - 1002) < 1.5);
        EXPECT(s && !s->det.pinned && s->det.n_ref == 2 && s->det.ref[1] == 0.25 &&
               !s->det.regression && s->direction == DETECTOR_LOWER_IS_BETTER);
        /* the regression is carried on: a run at the old level drains it, no new alarm */
        struct detector_config c = { 0 };
        struct detector_verdict v;
        detector_config_default(&c);
        struct detector d = f->det;
        EXPECT(detector_update(&d, &c, DETECTOR_HIGHER_IS_BETTER, 1002, 1, true, &v) == 0);
        EXPECT(v.regression && v.transition == DETECTOR_STEADY && d.cusum <= c.alarm);
        EXPECT(b && baseline_store_save(b, dir, NULL) == 0);
        size_t len;
        char *text = slurp(path, &len);
        EXPECT(!strncmp(text, "benchwatch-baseline 3\n", 22));
        free(text);
        EXPECT(baseline_store_load(dir, "root", &back, NULL) == 0 && same_baseline(b, back));
        baseline_free(back);
        baseline_free(b);
        unlink(path);
        free(path);
}

static void test_reset_and_list(void)
{
        struct baseline *a = fed_baseline(3, 100), *b = baseline_new("web-1"), *back;
        char **probes = NULL;
        char junk[512];
        unsigned corrupt;

        EXPECT(baseline_store_save(a, dir, NULL) == 0 && baseline_store_save(b, dir, NULL) == 0);
        snprintf(junk, sizeof(junk), "%s/baseline-x.txt.corrupt-20260101T000000Z", dir);
        spit(junk, "x", 1);
        EXPECT(baseline_store_list(dir, &probes) == 0);
        EXPECT(probes && probes[0] && !strcmp(probes[0], "root") && probes[1] &&
              !strcmp(probes[1], "web-1") && !probes[2]);
        baseline_store_strv_free(probes);

        EXPECT(baseline_store_reset(dir, "root") == 0);
        EXPECT(baseline_store_reset(dir, "root") == -ENOENT);
        EXPECT(baseline_store_list(dir, &probes) == 0 && !strcmp(probes[0], "web-1") && !probes[1]);
        baseline_store_strv_free(probes);
        EXPECT(baseline_store_load(dir, "root", &back, NULL) == 0 && back->n_series == 0);
        baseline_free(back);
        EXPECT(baseline_store_load(dir, "web-1", &back, NULL) == 0);
        baseline_free(back);
        EXPECT(baseline_store_reset(dir, "web-1") == 0);
        EXPECT(baseline_store_list("/nonexistent", &probes) == 0 && !probes[0]);
        baseline_store_strv_free(probes);

        EXPECT(!baseline_new("") && !baseline_new("../etc") && !baseline_new("a/b") &&
              !baseline_new(".hidden") && !baseline_new("a\nb"));
        char *p = NULL;
        EXPECT(baseline_store_path(dir, "../x", &p) == -EINVAL && !p);
        sweep_others(&corrupt);
        baseline_free(a);
        baseline_free(b);
}

static double sample_value(const struct result *r, const char *family, const char *metric,
                           const char *op, const char *q)
{
        const struct sample *s =
                result_find_sample(r, family,
                                   (const char *const[]){ "metric", metric, "op", op,
                                                          q ? "metric_quantile" : NULL, q, NULL });
        return s ? s->value : NAN;
}

static void test_metrics(void)
{
        struct detector_config c = { 0 };
        struct baseline *b = baseline_new("root");
        detector_config_default(&c);
        c.reference_runs = 10;

        /* While learning: only the regression state and the run's count. */
        struct result *r = disk_result(1000, 0.001, "seq");
        r->started = 1764547200;
        baseline_update(b, r, &c, true);
        EXPECT(baseline_report_metrics(b, r, true) == 0);
        EXPECT(result_find(r, "benchwatch_regression") &&
              result_find(r, "benchwatch_regression")->n_samples == 5);
        EXPECT(!result_find(r, "benchwatch_baseline") && !result_find(r, "benchwatch_regression_"
                                                                         "ratio"));
        EXPECT(result_find_sample(r, "benchwatch_probe_counted", NULL)->value == 1);
        result_free(r);
        for (int i = 0; i < 9; i++) {
                r = disk_result(1000 + i % 2, 0.001, "seq");
                r->started = 1764547200 + 600 * (i + 1);
                baseline_update(b, r, &c, true);
                result_free(r);
        }
        /* IOPS halved, latency doubled: all in regression within 6 runs. */
        char *msg = NULL;
        for (int i = 0; i < 6; i++) {
                r = disk_result(500, 0.002, "seq");
                r->started = 1764547200 + 600 * (i + 10);
                baseline_update(b, r, &c, true);
                const struct baseline_series *rs = baseline_find(b, "benchwatch_disk_iops{mode="
                                                                    "\"seq\",op=\"read\"}");
                char *m = rs ? baseline_report_transition(b, rs) : NULL;
                if (m && !msg)
                        msg = m;
                else
                        free(m);
                if (i < 5)
                        result_free(r);
        }
        CHECK(msg);
        EXPECT(!strncmp(msg, "probe 'root': benchwatch_disk_iops{mode=\"seq\",op=\"read\"} entered "
                             "a regression: -50.0% vs the reference of 2025-12-01 (95% CI ", 113));
        EXPECT(strstr(msg, "this run 500, reference 1.00k (noise ") &&
               strstr(msg, "lower is worse"));
        free(msg);
        EXPECT(baseline_report_metrics(b, r, false) == 0);
        EXPECT(result_find_sample(r, "benchwatch_probe_counted", NULL)->value == 0);
        double ref = sample_value(r, "benchwatch_baseline", "benchwatch_disk_iops", "read", NULL);
        EXPECT(ref > 1000 && ref < 1001);
        EXPECT(sample_value(r, "benchwatch_baseline_timestamp_seconds", "benchwatch_disk_iops",
                            "read", NULL) == 1764547200 + 600 * 9);
        EXPECT(fabs(sample_value(r, "benchwatch_regression_ratio", "benchwatch_disk_iops", "read",
                                 NULL) -
                    500 / ref) < 1e-9);
        EXPECT(sample_value(r, "benchwatch_regression_change_ratio", "benchwatch_disk_iops", "read",
                            NULL) < -0.4);
        EXPECT(sample_value(r, "benchwatch_regression_change_low_ratio", "benchwatch_disk_iops",
                            "read",
                            NULL) < sample_value(r, "benchwatch_regression_change_high_ratio",
                                                 "benchwatch_disk_iops", "read", NULL));
        EXPECT(sample_value(r, "benchwatch_regression_evidence", "benchwatch_disk_iops", "read",
                            NULL) >= 1);
        EXPECT(sample_value(r, "benchwatch_regression", "benchwatch_disk_iops", "write", NULL) ==
               1);
        EXPECT(fabs(sample_value(r, "benchwatch_regression_ratio",
                                 "benchwatch_disk_latency_seconds", "read", "0.95") -
                    2) < 0.03);
        EXPECT(sample_value(r, "benchwatch_regression", "benchwatch_disk_latency_seconds", "read",
                            "0.5") == 1);
        const struct sample *s = result_find_sample(r, "benchwatch_baseline",
                (const char *const[]){ "metric", "benchwatch_disk_iops", "op", "read", NULL });
        EXPECT(s && s->n_labels == 3 && !strcmp(result_sample_label(s, "mode"), "seq"));
        EXPECT(result_find(r, "benchwatch_regression")->type == METRIC_GAUGE);
        result_free(r);

        /* accept: the recent level is the new reference, no regression */
        EXPECT(baseline_accept(b, &c, 1800000000) == 5);
        const struct baseline_series *rs = baseline_find(b, "benchwatch_disk_iops{mode=\"seq\",op="
                                                            "\"read\"}");
        EXPECT(rs && !rs->det.regression && rs->det.pinned_at == 1800000000 &&
               fabs(exp(rs->det.rs.log_level) - 500) < 1);
        baseline_free(b);
        b = baseline_new("fresh");
        EXPECT(baseline_accept(b, &c, 1) == -EAGAIN);
        baseline_free(b);
}

/* A context as a daemon sees it: kernel, and the disk's firmware. */
static void some_context(struct context *c, const char *kernel, const char *firmware)
{
        context_clear(c);
        EXPECT(context_set(c, "kernel_release", kernel) == 0);
        EXPECT(context_set(c, "cpu_model", "AMD EPYC 7B13 \\ 64-Core\nx") == 0);
        EXPECT(context_set(c, "disk_device", "nvme0n1") == 0);
        EXPECT(context_set(c, "disk_firmware", firmware) == 0);
        EXPECT(context_set(c, "microcode", "") == 0);
}

static void test_context(void)
{
        struct detector_config c = { 0 };
        struct context a = { 0 }, b2 = { 0 };
        struct baseline *b = baseline_new("root"), *back = NULL;
        char *change = NULL;
        detector_config_default(&c);
        c.reference_runs = 10;

        some_context(&a, "6.1.0-13-amd64", "1.2");
        some_context(&b2, "6.1.0-18-amd64", "1.4");
        EXPECT(c.reference_runs && a.n == 5 && !strcmp(a.items[0].name, "cpu_model"));
        /* learning: the reference's context follows the runs */
        for (int i = 0; i < 10; i++) {
                struct result *r = disk_result(1000 + i % 2, 0.001, "seq");
                r->started = 1764547200 + 600 * i;
                EXPECT(baseline_note_context(b, &a, &change) == 0 && !change);
                baseline_update(b, r, &c, true);
                result_free(r);
        }
        EXPECT(b->series[0].det.pinned && context_equal(&b->context, &a));
        EXPECT(!baseline_report_context_change(b));
        /* pinned: a new kernel and firmware are said, the reference keeps its own */
        EXPECT(baseline_note_context(b, &b2, &change) == 0);
        EXPECT(change && !strcmp(change, "kernel 6.1.0-13-amd64 → 6.1.0-18-amd64; "
                                         "nvme0n1 firmware 1.2 → 1.4"));
        free(change);
        EXPECT(context_equal(&b->context, &a) && context_equal(&b->seen, &b2));
        EXPECT(baseline_note_context(b, &b2, &change) == 0 && !change); /* once */
        char *since = baseline_report_context_change(b);
        EXPECT(since && strstr(since, "kernel 6.1.0-13-amd64 → 6.1.0-18-amd64"));
        free(since);
        /* kept across a save, escapes and all */
        EXPECT(baseline_store_save(b, dir, NULL) == 0);
        EXPECT(baseline_store_load(dir, "root", &back, NULL) == 0 && same_baseline(b, back));
        EXPECT(back && !strcmp(context_get(&back->context, "cpu_model"),
                               "AMD EPYC 7B13 \\ 64-Core\nx"));
        baseline_free(back);
        /* a regression entered on the new context says what changed */
        char *msg = NULL;
        for (int i = 0; i < 6 && !msg; i++) {
                struct result *r = disk_result(500, 0.002, "seq");
                r->started = 1764547200 + 600 * (i + 10);
                baseline_update(b, r, &c, true);
                const struct baseline_series *rs = baseline_find(b, "benchwatch_disk_iops{mode="
                                                                    "\"seq\",op=\"read\"}");
                msg = rs ? baseline_report_transition(b, rs) : NULL;
                result_free(r);
        }
        EXPECT(msg && strstr(msg, "entered a regression") &&
               strstr(msg, "; measured on another context than the reference: kernel "
                           "6.1.0-13-amd64"));
        free(msg);
        /* accept: the new level and its context become the reference's */
        EXPECT(baseline_accept(b, &c, 1800000000) > 0);
        EXPECT(context_equal(&b->context, &b2) && !baseline_report_context_change(b));
        /* a file without context (format 2) compares with nothing */
        context_clear(&b->context);
        EXPECT(!baseline_report_context_change(b));
        char *path;
        baseline_store_path(dir, "root", &path);
        unlink(path);
        free(path);
        context_clear(&a);
        context_clear(&b2);
        baseline_free(b);
}

static void test_import(void)
{
        struct baseline *b = baseline_new("root");
        double v[30];
        for (int i = 0; i < 30; i++)
                v[i] = 40000 + 100 * (i % 7);
        EXPECT(baseline_import(b, KEY_READ, v, 30, 1764547200) == 0);
        const struct baseline_series *s = baseline_find(b, KEY_READ);
        EXPECT(s && s->det.pinned && s->det.n_ref == 30 &&
               s->direction == DETECTOR_HIGHER_IS_BETTER);
        EXPECT(baseline_import(b, KEY_P99, v, 30, 1) == 0);
        s = baseline_find(b, KEY_P99);
        EXPECT(s && s->direction == DETECTOR_LOWER_IS_BETTER);
        EXPECT(baseline_import(b, "benchwatch_disk_errors_total", v, 30, 1) == -EDOM);
        EXPECT(baseline_import(b, "m{b=\"1\",a=\"2\"}", v, 30, 1) == -EINVAL);
        EXPECT(baseline_import(b, "benchwatch_x_iops", v, 2, 1) == -EINVAL);
        EXPECT(b->n_series == 3); /* a new series is kept, empty, when the values were bad */
        baseline_free(b);
}

static void test_verify(void)
{
        struct detector_config c = { 0 };
        detector_config_default(&c);
        c.reference_runs = 10;
        struct baseline *b = baseline_new("root");
        for (unsigned i = 0; i < 10; i++) {
                struct result *r = disk_result(1000 + 10 * (i % 3), 0.001, MODE);
                EXPECT(baseline_update(b, r, &c, true) == 0);
                result_free(r);
        }
        struct detector before = b->series[0].det;
        struct result *runs[3];

        /* 700 and 720 in the same series, a run of another mode beside
         * them: the other mode is learning (not judged), the read IOPS
         * fail, and nothing stored changes. */
        runs[0] = disk_result(700, 0.001, MODE);
        runs[1] = disk_result(720, 0.001, MODE);
        runs[2] = disk_result(710, 0.001, "another mode"); /* a new series */
        EXPECT(baseline_verify(b, (const struct result *const *)runs, 2, &c, 3, 20) ==
               DETECTOR_VERIFY_MORE);
        EXPECT(baseline_verify(b, (const struct result *const *)runs, 3, &c, 2, 20) ==
               DETECTOR_VERIFY_FAIL);
        const struct baseline_series *s = baseline_find(b, KEY_READ);
        EXPECT(s && s->seen && s->check.outcome == DETECTOR_VERIFY_FAIL &&
               s->verdict.value == 710 && s->check.runs == 2 && s->check.change < -0.25);
        EXPECT(!memcmp(&b->series[0].det, &before, sizeof(before)));
        s = baseline_find(b, "benchwatch_disk_iops{mode=\"another mode\",op=\"read\"}");
        EXPECT(s && s->seen && !s->det.pinned && s->verdict.value == 710);
        s = baseline_find(b, KEY_P99);
        EXPECT(s && s->seen && s->check.outcome == DETECTOR_VERIFY_PASS);
        for (int i = 0; i < 3; i++)
                result_free(runs[i]);

        /* only the learning series: nothing to judge */
        runs[0] = disk_result(700, 0.001, "another mode");
        EXPECT(baseline_verify(b, (const struct result *const *)runs, 1, &c, 1, 20) == -ENODATA);
        result_free(runs[0]);
        baseline_free(b);
}

/* A verdict from the tenth run comes before the reference is pinned: the
 * change says the reference is the one learnt so far, not "of ?". */
static void test_change_unpinned(void)
{
        struct baseline_series s = { 0 };
        s.verdict.reference_time = 0;
        char *t = baseline_report_change(&s, -0.029, -0.05, -0.01);
        EXPECT(t && !strcmp(t, "-2.9% vs the reference learnt so far (95% CI -5..-1%)"));
        free(t);
        s.verdict.reference_time = 1764547200; /* 2025-12-01 */
        t = baseline_report_change(&s, 0.5, 0.4, 0.6);
        EXPECT(t && !strcmp(t, "+50.0% vs the reference of 2025-12-01 (95% CI +40..+60%)"));
        free(t);
}

int main(void)
{
        if (!mkdtemp(dir)) {
                perror("mkdtemp");
                return 99;
        }
        test_directions();
        test_tracked_series();
        test_roundtrip();
        test_damaged_files();
        test_set_aside_twice();
        test_strict_parser();
        test_v1_conversion();
        test_reset_and_list();
        test_metrics();
        test_import();
        test_verify();
        test_context();
        test_change_unpinned();
        if (rmdir(dir) < 0) {
                fprintf(stderr, "%s not empty after the test\n", dir);
                test_failures++;
        }
        if (test_failures)
                fprintf(stderr, "%u check(s) failed\n", test_failures);
        return test_failures ? 1 : 0;
}
