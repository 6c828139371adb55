/* test_sink.c — the sink set and each sink against real files and
 * sockets, and (with `drive`) a small program that feeds hand-built
 * results to the configured sinks for tests/integration/pushgateway.sh.
 *
 *   test_sink                       unit tests (textfile, syslog, fields, URLs)
 *   test_sink drive SECTION.KEY=VALUE ...
 *        then on stdin:  publish PROBE VALUE [fail] | dump FILE | sleep S |
 *                        delete PROBE | quit
 *   `dump` writes the text exposition of every probe's latest published
 *   result: what the gateway and the textfile must end up holding. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "core/result.h"
#include "encode/prom_text.h"
#include "sink/sink.h"
#include "sink/sink_journal.h"
#include "sink/sink_pushgateway.h"
#include "sink/sink_remote_write.h"
#include "sink/sink_textfile.h"
#include "util/hist.h"
#include "util/timeutil.h"



/* A cpu-like result whose every figure derives from v. */
static struct result *make_result(const char *probe, double v, bool fail)
{
        struct result *r = result_new(probe, "cpu");
        const char *lab[] = { "max_prime", "10000", NULL };
        const char *odd[] = { "path", "/tmp/a \"b\"\\c\nd", NULL };
        struct bw_hist h;

        assert(r);
        bw_hist_init(&h);
        for (int i = 1; i <= 1000; i++)
                bw_hist_record(&h, (uint64_t)(1000 + i * v));
        r->success = !fail;
        r->started = 1764500000.5;
        r->duration = v / 100;
        assert(result_add_param(r, "max_prime", "10000") == 0);
        if (fail)
                assert(result_set_error(r, "cannot open '/x': No such \"file\"") == 0);
        else {
                assert(result_add(r, "benchwatch_cpu_events_per_second",
                                  "Events per second", METRIC_GAUGE, lab, v, NULL) == 0);
                assert(result_add(r, "benchwatch_cpu_events_total", "Events",
                                  METRIC_COUNTER, lab, v * 10, NULL) == 0);
                assert(result_add(r, "benchwatch_cpu_latency_seconds", "Event latency",
                                  METRIC_SUMMARY, lab, 0, &h) == 0);
                assert(result_add(r, "benchwatch_cpu_odd_label_info", "Escaping",
                                  METRIC_GAUGE, odd, 1, NULL) == 0);
        }
        assert(result_add_probe_families(r) == 0);
        return r;
}

static struct param_set *options(const char *section, const char *const *kv)
{
        const struct sink_type *t = sink_type_find(section);
        struct param_set *ps;
        char *err = NULL;

        assert(t && param_set_new(t->options, &ps, &err) == 0);
        for (size_t i = 0; kv && kv[i]; i++) {
                int r = param_set_assign_kv(ps, kv[i], &err);
                if (r < 0)
                        fprintf(stderr, "%s: %s\n", kv[i], err);
                assert(r == 0);
        }
        return ps;
}

static void test_group_url(void)
{
        const char *kv[] = { "url=http://gw:9091/", "instance=host/a",
                             "labels=dc=eu west, rack=,zone=a/b", NULL };
        struct param_set *ps = options("pushgateway", kv);
        char *url = NULL, *err = NULL;

        EXPECT(sink_pushgateway_group_url(ps, "root-disk", &url, &err) == 0);
        EXPECT(url && !strcmp(url, "http://gw:9091/metrics/job/benchwatch/"
                             "instance@base64/aG9zdC9h/probe/root-disk/dc/eu%20west/"
                             "rack@base64/=/zone@base64/YS9i"));
        free(url);
        /* "": the host's own group (its info metrics), no probe segment */
        EXPECT(sink_pushgateway_group_url(ps, "", &url, &err) == 0);
        EXPECT(url && strstr(url, "/instance@base64/aG9zdC9h/dc/") && !strstr(url, "probe"));
        free(url);
        param_set_free(ps);

        const char *bad[] = { "url=http://gw", "labels=job=x", NULL };
        ps = options("pushgateway", bad);
        EXPECT(sink_pushgateway_group_url(ps, "p", &url, &err) == -EINVAL);
        EXPECT(err && strstr(err, "'job'"));
        free(err);
        err = NULL;
        param_set_free(ps);
        const char *bad2[] = { "url=http://gw", "labels=a=1,oops", NULL };
        ps = options("pushgateway", bad2);
        EXPECT(sink_pushgateway_group_url(ps, "p", &url, &err) == -EINVAL);
        EXPECT(err && strstr(err, "'oops' is not name=value"));
        free(err);
        param_set_free(ps);
}

static void test_fields(void)
{
        struct result *r = result_new("root", "disk");
        const char *rd[] = { "op", "read", "bs", "4096", NULL };
        const char *wr[] = { "op", "write", "bs", "4096", NULL };
        struct bw_hist h;
        char **f;
        size_t n;

        assert(r);
        bw_hist_init(&h);
        for (int i = 0; i < 100; i++)
                bw_hist_record(&h, 810000); /* 0.81 ms */
        r->success = true;
        r->duration = 2.5;
        assert(result_add(r, "benchwatch_disk_iops", "", METRIC_GAUGE, rd, 5000, NULL) == 0);
        assert(result_add(r, "benchwatch_disk_iops", "", METRIC_GAUGE, wr, 1200, NULL) == 0);
        assert(result_add(r, "benchwatch_disk_latency_seconds", "", METRIC_SUMMARY, rd, 0, &h) ==
               0);
        assert(result_add_probe_families(r) == 0);
        assert(sink_journal_fields(r, &f, &n) == 0);
        const char *want[] = {
                "MESSAGE=disk probe 'root': 5000 IOPS, p95 0.81 ms",
                "PRIORITY=6", "SYSLOG_IDENTIFIER=benchwatch",
                "BENCHWATCH_PROBE=root", "BENCHWATCH_PLUGIN=disk",
                "BENCHWATCH_SUCCESS=1", "BENCHWATCH_DURATION=2.500000",
                "BENCHWATCH_DISK_IOPS_OP_READ=5000",
                "BENCHWATCH_DISK_IOPS_OP_WRITE=1200",
                "BENCHWATCH_DISK_LATENCY_SECONDS_P50=",
                "BENCHWATCH_DISK_LATENCY_SECONDS_P95=",
                "BENCHWATCH_DISK_LATENCY_SECONDS_P99=",
                "BENCHWATCH_DISK_LATENCY_SECONDS_MAX=0.00081",
        };
        EXPECT(n == sizeof(want) / sizeof(want[0]));
        for (size_t i = 0; i < n && i < sizeof(want) / sizeof(want[0]); i++) {
                bool ok = !strncmp(f[i], want[i], strlen(want[i]));
                if (!ok)
                        fprintf(stderr, "field %zu: got '%s', want '%s'\n", i, f[i], want[i]);
                EXPECT(ok);
        }
        sink_journal_fields_free(f, n);
        result_free(r);
}

/* Samples told apart by labels past the 64 characters journald takes of a
 * field name: each keeps a name of its own (the cut once gave three fields
 * BENCHWATCH_REGRESSION_METRIC_BENCHWATCH_DISK_LATENCY_SECONDS_MET). */
static void test_long_field_names(void)
{
        struct result *r = result_new("root", "disk");
        const char *q[] = { "0.5", "0.99", "1" }, *op[] = { "read", "write" };
        char **f;
        size_t n;
        assert(r);
        r->success = true;
        for (int i = 0; i < 3; i++)
                for (int k = 0; k < 2; k++) {
                        const char *l[] = { "metric", "benchwatch_disk_latency_seconds", "op",
                                            op[k], "quantile", q[i], NULL };
                        assert(result_add(r, "benchwatch_regression", "", METRIC_GAUGE, l, 0,
                                          NULL) == 0);
                }
        const char *iops[] = { "metric", "benchwatch_disk_iops", "op", "read", NULL };
        assert(result_add(r, "benchwatch_regression", "", METRIC_GAUGE, iops, 0, NULL) == 0);
        assert(sink_journal_fields(r, &f, &n) == 0);
        unsigned long_ones = 0;
        for (size_t i = 0; i < n; i++) {
                size_t len = strcspn(f[i], "=");
                EXPECT(len <= 64);
                long_ones += !strncmp(f[i], "BENCHWATCH_REGRESSION_", 22);
                for (size_t k = 0; k < i; k++)
                        EXPECT(strcspn(f[k], "=") != len || strncmp(f[k], f[i], len));
        }
        EXPECT(long_ones == 7);
        sink_journal_fields_free(f, n);
        result_free(r);
}

static char *read_file(const char *path)
{
        FILE *f = fopen(path, "re");
        char *buf = NULL;
        size_t cap = 0;

        if (!f)
                return NULL;
        if (getdelim(&buf, &cap, 0, f) < 0) {
                free(buf);
                buf = strdup("");
        }
        fclose(f);
        return buf;
}

static size_t count_entries(const char *dir)
{
        DIR *d = opendir(dir);
        struct dirent *e;
        size_t n = 0;

        while (d && (e = readdir(d)))
                n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."));
        if (d)
                closedir(d);
        return n;
}

/* Waits (5 s at most) until the set's one health entry, the textfile's,
 * has a success (ok) or a failure (!ok) reported: its worker reports after
 * the write.  Whether it came. */
static bool textfile_reported(const struct sink_set *set, bool ok)
{
        for (int i = 0; i < 50; i++) {
                struct sink_health_entry *e = NULL;
                size_t n = 0;
                bool seen = sink_health_entries(sink_set_health(set), &e, &n) == 0 && n == 1 &&
                            (ok ? e[0].last_ok : e[0].last_error) > 0;
                sink_health_entries_free(e, n);
                if (seen)
                        return true;
                usleep(100000);
        }
        return false;
}

static void test_textfile(const char *tmp)
{
        char dir[512], path[600], kv[700];
        struct sink_set *set;
        char *err = NULL;

        snprintf(dir, sizeof(dir), "%s/nd", tmp);
        snprintf(path, sizeof(path), "%s/benchwatch.prom", dir);
        snprintf(kv, sizeof(kv), "path=%s", path);
        const char *kvs[] = { kv, NULL };
        const struct param_set *opts[8] = { 0 };
        struct param_set *ps = options("textfile", kvs);
        for (size_t i = 0; sink_types[i]; i++)
                if (!strcmp(sink_types[i]->section, "textfile"))
                        opts[i] = ps;
        assert(sink_set_new(opts, NULL, NULL, &set, &err) == 0);
        EXPECT(sink_set_count(set) == 2); /* textfile + journal (default on) */

        /* The directory does not exist yet: the write fails, is retried. */
        struct result *a = make_result("a", 100, false), *b = make_result("b", 7, true);
        struct result *a2 = make_result("a", 250, false);
        EXPECT(sink_set_publish(set, a) == 0);
        EXPECT(sink_set_publish(set, b) == 0);
        EXPECT(sink_set_publish(set, a2) == 0);
        /* the worker's first write must have failed before the directory
         * appears */
        (void)textfile_reported(set, false);
        EXPECT(access(path, F_OK) < 0);
        EXPECT(mkdir(dir, 0755) == 0);
        char *text = NULL;
        for (int i = 0; i < 50 && !text; i++) {
                usleep(100000); /* the first retry is due after 1 s */
                text = read_file(path);
        }
        const struct result *latest[] = { a2, b };
        char *want = NULL;
        assert(prom_text_to_string(latest, 2, &want, NULL) == 0);
        EXPECT(text && !strcmp(text, want));
        struct stat st;
        EXPECT(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644);
        EXPECT(count_entries(dir) == 1); /* no temporary file left */
        /* what the textfile reported of itself, as the set collected it
         * (reported after the rename the test may already have seen) */
        (void)textfile_reported(set, true);
        struct sink_health_entry *e = NULL;
        size_t n = 0;
        EXPECT(sink_health_entries(sink_set_health(set), &e, &n) == 0 && n == 1);
        EXPECT(n == 1 && !strcmp(e[0].name, "textfile") && e[0].last_error > 0 &&
               e[0].last_ok >= e[0].last_error && e[0].error &&
               strstr(e[0].error, "cannot write '") && strstr(e[0].error, "its directory"));
        sink_health_entries_free(e, n);
        sink_set_free(set);
        param_set_free(ps);
        free(text);
        free(want);
        result_free(a);
        result_free(a2);
        result_free(b);
        unlink(path);
        rmdir(dir);
}

static void test_syslog_socket(const char *tmp)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char kv[600], buf[4096];
        struct sink_set *set;
        char *err = NULL;
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/log", tmp);
        assert(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
        snprintf(kv, sizeof(kv), "socket=%s", sa.sun_path);
        const char *kvs[] = { kv, "facility=local3", "ident=bwtest", NULL };
        const struct param_set *opts[8] = { 0 };
        struct param_set *ps = options("syslog", kvs);
        for (size_t i = 0; sink_types[i]; i++)
                if (!strcmp(sink_types[i]->section, "syslog"))
                        opts[i] = ps;
        assert(sink_set_new(opts, NULL, NULL, &set, &err) == 0);
        /* without journald, [journal] would log to syslog too: dropped */
        if (access("/run/systemd/journal/socket", F_OK) < 0)
                EXPECT(sink_set_count(set) == 1);
        struct result *ok = make_result("cpu", 1234.5, false);
        struct result *bad = make_result("cpu", 1, true);
        /* a probe's state that is not a run (a deferral): nothing logged */
        EXPECT(sink_set_show(set, ok) == 0);
        EXPECT(recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT) < 0 && errno == EAGAIN);
        EXPECT(sink_set_publish(set, ok) == 0);
        EXPECT(sink_set_publish(set, bad) == 0);
        ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
        EXPECT(n > 0);
        buf[n > 0 ? n : 0] = 0;
        /* local3.info = 19*8+6 */
        EXPECT(!strncmp(buf, "<158>", 5) && strstr(buf, " bwtest["));
        EXPECT(strstr(buf, "]: cpu probe 'cpu': 1234.5 events/s, p95 "));
        EXPECT(strstr(buf, " BENCHWATCH_PROBE=cpu BENCHWATCH_PLUGIN=cpu BENCHWATCH_SUCCESS=1 "));
        EXPECT(strstr(buf, " BENCHWATCH_CPU_EVENTS_PER_SECOND=1234.5 "));
        EXPECT(strstr(buf, " BENCHWATCH_CPU_EVENTS_TOTAL=12345 "));
        EXPECT(strstr(buf, " BENCHWATCH_PARAM_MAX_PRIME=10000 "));
        EXPECT(strstr(buf, " BENCHWATCH_CPU_LATENCY_SECONDS_MAX=0.0012355 "));
        n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
        EXPECT(n > 0);
        buf[n > 0 ? n : 0] = 0;
        EXPECT(!strncmp(buf, "<156>", 5)); /* local3.warning */
        EXPECT(strstr(buf, "]: cpu probe 'cpu' failed: cannot open '/x': No such \"file\" "));
        EXPECT(strstr(buf, " BENCHWATCH_SUCCESS=0 BENCHWATCH_ERROR=\"cannot open '/x': "
                          "No such \\\"file\\\"\" "));
        sink_set_free(set);
        param_set_free(ps);
        result_free(ok);
        result_free(bad);
        close(fd);
        unlink(sa.sun_path);
}

/* opts for a set of one sink, `section`'s (ps), and the journal's (j). */
static void one_sink(const struct param_set *opts[8], const char *section,
                     const struct param_set *ps, const struct param_set *j)
{
        for (size_t i = 0; sink_types[i]; i++) {
                if (!strcmp(sink_types[i]->section, section))
                        opts[i] = ps;
                if (!strcmp(sink_types[i]->section, "journal"))
                        opts[i] = j;
        }
}

/* A reload builds a new set, seeded with each probe's latest result: the
 * textfile must still hold every probe. */
static void test_reload_seed(const char *tmp)
{
        char path[600], kv[700];
        struct sink_set *old, *new;
        char *err = NULL;

        snprintf(path, sizeof(path), "%s/reload.prom", tmp);
        snprintf(kv, sizeof(kv), "path=%s", path);
        const char *kvs[] = { kv, NULL };
        const char *off[] = { "enabled=no", NULL };
        const struct param_set *opts[8] = { 0 };
        struct param_set *ps = options("textfile", kvs), *j = options("journal", off);
        one_sink(opts, "textfile", ps, j);
        assert(sink_set_new(opts, NULL, NULL, &old, &err) == 0);
        EXPECT(sink_set_count(old) == 1); /* journal: enabled = no */
        struct result *a = make_result("a", 1, false), *b = make_result("b", 2, false);
        struct result *c = make_result("c", 3, false);
        EXPECT(sink_set_publish(old, a) == 0);
        EXPECT(sink_set_publish(old, b) == 0);
        assert(sink_set_new(opts, NULL, old, &new, &err) == 0);
        /* the new set takes over what the old one's sinks reported */
        EXPECT(sink_set_health(new) && sink_set_health(new) == sink_set_health(old));
        EXPECT(sink_set_show(new, a) == 0);
        EXPECT(sink_set_show(new, b) == 0);
        sink_set_free(old);
        EXPECT(sink_set_publish(new, c) == 0);
        sink_set_free(new);
        const struct result *all[] = { a, b, c };
        char *want = NULL, *text = read_file(path);
        assert(prom_text_to_string(all, 3, &want, NULL) == 0);
        EXPECT(text && !strcmp(text, want));
        free(text);
        free(want);
        result_free(a);
        result_free(b);
        result_free(c);
        param_set_free(ps);
        param_set_free(j);
        unlink(path);
}

/* The remote-write sink's figure `name` in set's health; -1 when none. */
static double rw_figure(const struct sink_set *set, const char *name)
{
        struct result *f = sink_health_figures(sink_set_health(set));
        const struct sample *smp = f ? result_find_sample(f, name, NULL) : NULL;
        double v = smp ? smp->value : -1;

        result_free(f);
        return v;
}

static size_t count_files(const char *dir, const char *suffix)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        size_t n = 0;

        while (d && (de = readdir(d)))
                n += strlen(de->d_name) > strlen(suffix) &&
                     !strcmp(de->d_name + strlen(de->d_name) - strlen(suffix), suffix);
        if (d)
                closedir(d);
        return n;
}

/* Remote write with its spool's disk refusing (a file where the directory
 * was) and the receiver away: the runs are held in memory.  A reload that
 * moves spool_dir elsewhere must hand them to the new sink, which writes
 * them to its spool; they were lost before. */
static void test_reload_held(const char *tmp)
{
        char d1[600], d2[600], away[620], kv1[700], kv2[700];
        const char *url = "url=http://127.0.0.1:1/api/v1/write"; /* refused */
        struct sink_set *old, *new;
        const struct param_set *opts[8] = { 0 };
        char *err = NULL;

        snprintf(d1, sizeof(d1), "%s/spool1", tmp);
        snprintf(d2, sizeof(d2), "%s/spool2", tmp);
        snprintf(away, sizeof(away), "%s.away", d1);
        snprintf(kv1, sizeof(kv1), "spool_dir=%s", d1);
        snprintf(kv2, sizeof(kv2), "spool_dir=%s", d2);
        const char *kvs1[] = { url, kv1, "retry_min=10min", "timeout=1s", NULL };
        const char *kvs2[] = { url, kv2, "retry_min=10min", "timeout=1s", NULL };
        const char *off[] = { "enabled=no", NULL };
        struct param_set *rw1 = options("remote_write", kvs1);
        struct param_set *rw2 = options("remote_write", kvs2), *j = options("journal", off);
        one_sink(opts, "remote_write", rw1, j);
        assert(sink_set_new(opts, NULL, NULL, &old, &err) == 0);
        struct result *a = make_result("a", 1, false), *b = make_result("b", 2, false);
        EXPECT(sink_set_publish(old, a) == 0);
        /* spooled, and its first send refused (it read the file back) */
        for (int i = 0; i < 1000 && rw_figure(old, RW_FAILED_TOTAL) < 1; i++)
                usleep(10000);
        EXPECT(rw_figure(old, RW_SPOOL_RUNS) == 1 && count_files(d1, ".rw") == 1);
        CHECK(rename(d1, away) == 0);
        close(open(d1, O_CREAT | O_WRONLY, 0600));
        EXPECT(sink_set_publish(old, b) == 0);
        EXPECT(sink_set_publish(old, a) == 0);
        for (int i = 0; i < 1000 && rw_figure(old, RW_SPOOL_RUNS) < 3; i++)
                usleep(10000);
        EXPECT(rw_figure(old, RW_SPOOL_RUNS) == 3); /* 1 on disk, 2 in memory */
        one_sink(opts, "remote_write", rw2, j);
        assert(sink_set_new(opts, NULL, old, &new, &err) == 0);
        sink_set_free(old); /* its disk still refuses: it hands the two over */
        sink_set_free(new); /* the new one took them, and they stay spooled */
        EXPECT(count_files(d2, ".rw") == 2);
        EXPECT(count_files(away, ".rw") == 1);
        unlink(d1);
        test_rm_tree(away);
        test_rm_tree(d2);
        result_free(a);
        result_free(b);
        param_set_free(rw1);
        param_set_free(rw2);
        param_set_free(j);
}

/* stderr into a file while a test looks at what the sinks log. */
struct capture {
        char path[600];
        int saved, fd;
};

static void capture_start(struct capture *c, const char *tmp)
{
        snprintf(c->path, sizeof(c->path), "%s/stderr.txt", tmp);
        fflush(stderr);
        c->saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
        c->fd = open(c->path, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0600);
        CHECK(c->saved >= 0 && c->fd >= 0 && dup2(c->fd, STDERR_FILENO) >= 0);
}

/* Everything logged since capture_start, into buf (NUL-terminated). */
static const char *capture_read(struct capture *c, char *buf, size_t size)
{
        ssize_t n;

        fflush(stderr);
        n = pread(c->fd, buf, size - 1, 0);
        buf[n > 0 ? n : 0] = 0;
        return buf;
}

static void capture_end(struct capture *c)
{
        fflush(stderr);
        CHECK(dup2(c->saved, STDERR_FILENO) >= 0);
        close(c->saved);
        close(c->fd);
        unlink(c->path);
}

/* A run spooled on disk, the receiver away: a reload's old sink says the
 * run stays for the new sink (which keeps the spool), a stop for the next
 * start. */
static void test_reload_spooled(const char *tmp)
{
        char d[600], kv[700], said[4096], at_reload[4096], at_stop[4096];
        const char *url = "url=http://127.0.0.1:1/api/v1/write"; /* refused */
        struct sink_set *old, *new;
        const struct param_set *opts[8] = { 0 };
        char *err = NULL;

        snprintf(d, sizeof(d), "%s/spool3", tmp);
        snprintf(kv, sizeof(kv), "spool_dir=%s", d);
        const char *kvs[] = { url, kv, "retry_min=10min", "timeout=1s", NULL };
        const char *off[] = { "enabled=no", NULL };
        struct param_set *rw = options("remote_write", kvs), *j = options("journal", off);
        one_sink(opts, "remote_write", rw, j);
        assert(sink_set_new(opts, NULL, NULL, &old, &err) == 0);
        struct result *a = make_result("a", 1, false);
        EXPECT(sink_set_publish(old, a) == 0);
        for (int i = 0; i < 1000 && rw_figure(old, RW_FAILED_TOTAL) < 1; i++)
                usleep(10000);
        EXPECT(count_files(d, ".rw") == 1);
        assert(sink_set_new(opts, NULL, old, &new, &err) == 0);
        /* checked once stderr is back, so that a failure says why */
        struct capture c;
        capture_start(&c, tmp);
        sink_set_free(old);
        capture_read(&c, at_reload, sizeof(at_reload));
        /* the new sink has the spool (a stop before would leave it unread) */
        for (int i = 0; i < 1000 && !strstr(capture_read(&c, said, sizeof(said)),
                                            "sending them first"); i++)
                usleep(10000);
        sink_set_free(new);
        capture_read(&c, at_stop, sizeof(at_stop));
        capture_end(&c);
        CHECK_STR_CONTAINS(at_reload, "1 unsent run(s) stay in spool '");
        CHECK_STR_CONTAINS(at_reload, "' for the reloaded configuration's sink where it "
                           "keeps this spool, else the next start");
        CHECK_STR_CONTAINS(said, "1 unsent run(s) in spool '");
        CHECK_STR_CONTAINS(at_stop + strlen(said), "' for the next start");
        EXPECT(count_files(d, ".rw") == 1);
        test_rm_tree(d);
        result_free(a);
        param_set_free(rw);
        param_set_free(j);
}

/* ---- drive mode ------------------------------------------------------------ */

static int drive(int argc, char **argv)
{
        struct param_set *ps[8] = { 0 };
        struct sink_set *set;
        struct result *latest[64];
        size_t n_latest = 0;
        char *err = NULL, line[512];

        for (int a = 0; a < argc; a++) {
                char *dot = strchr(argv[a], '.');
                size_t i = 0;
                if (!dot)
                        return 2;
                *dot = 0;
                while (sink_types[i] && strcmp(sink_types[i]->section, argv[a]))
                        i++;
                if (!sink_types[i])
                        return 2;
                if (!ps[i] && param_set_new(sink_types[i]->options, &ps[i], &err) < 0)
                        return 1;
                if (param_set_assign_kv(ps[i], dot + 1, &err) < 0) {
                        fprintf(stderr, "%s.%s: %s\n", argv[a], dot + 1, err);
                        return 2;
                }
        }
        if (sink_set_new((const struct param_set *const *)ps, NULL, NULL, &set, &err) < 0) {
                fprintf(stderr, "drive: %s\n", err);
                return 2;
        }
        while (fgets(line, sizeof(line), stdin)) {
                char cmd[16] = "", a1[256] = "", a2[64] = "", a3[16] = "";
                if (sscanf(line, "%15s %255s %63s %15s", cmd, a1, a2, a3) < 1)
                        continue;
                if (!strcmp(cmd, "quit")) {
                        printf("ok quit\n");
                        fflush(stdout);
                        break;
                }
                if (!strcmp(cmd, "sleep")) {
                        usleep((useconds_t)(strtod(a1, NULL) * 1e6));
                } else if (!strcmp(cmd, "publish")) {
                        struct result *r = make_result(a1, strtod(a2, NULL), !strcmp(a3, "fail"));
                        size_t k = 0;
                        while (k < n_latest && strcmp(latest[k]->probe, a1))
                                k++;
                        if (k == n_latest)
                                n_latest++;
                        else
                                result_free(latest[k]);
                        latest[k] = r;
                        sink_set_publish(set, r);
                } else if (!strcmp(cmd, "delete")) {
                        const char *probes[] = { a1 };
                        size_t pg = 0;
                        while (strcmp(sink_types[pg]->section, "pushgateway"))
                                pg++;
                        if (sink_pushgateway_delete(ps[pg], probes, 1, &err) < 0) {
                                printf("error %s\n", err);
                                fflush(stdout);
                                free(err);
                                err = NULL;
                                continue;
                        }
                } else if (!strcmp(cmd, "dump")) {
                        FILE *f = fopen(a1, "we");
                        if (!f || prom_text_write(f, (const struct result *const *)latest,
                                                  n_latest) < 0)
                                return 1;
                        fclose(f);
                }
                printf("ok %s\n", cmd);
                fflush(stdout);
        }
        sink_set_free(set);
        for (size_t i = 0; i < n_latest; i++)
                result_free(latest[i]);
        for (size_t i = 0; i < 8; i++)
                param_set_free(ps[i]);
        return 0;
}

int main(int argc, char **argv)
{
        char tmp[] = "/tmp/test_sink.XXXXXX";

        if (argc > 1 && !strcmp(argv[1], "drive"))
                return drive(argc - 2, argv + 2);
        assert(mkdtemp(tmp));
        test_group_url();
        test_fields();
        test_long_field_names();
        test_syslog_socket(tmp);
        test_textfile(tmp);
        test_reload_seed(tmp);
        test_reload_held(tmp);
        test_reload_spooled(tmp);
        rmdir(tmp);
        if (test_failures)
                fprintf(stderr, "%u check(s) failed\n", test_failures);
        return test_failures ? 1 : 0;
}
