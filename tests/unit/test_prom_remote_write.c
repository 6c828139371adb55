/* test_prom_remote_write.c — the remote-write encoding, uncompressed with snappy and
 * decoded back with protobuf-c: one series per line of the text
 * exposition of the same result (same names, label sets and values),
 * labels sorted, __name__/job/instance and the extra labels on every
 * series, empty labels left out, the run's timestamp in milliseconds. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "test.h"
#include "core/result.h"
#include "encode/prom_remote_write.h"
#include "encode/prom_text.h"
#include "proto/remote.pb-c.h"
#include "util/hist.h"
#include "util/timeutil.h"

typedef Prometheus__TimeSeries Series;

static const char *label_of(const Series *s, const char *name)
{
        for (size_t i = 0; i < s->n_labels; i++)
                if (!strcmp(s->labels[i]->name, name))
                        return s->labels[i]->value;
        return NULL;
}

static int by_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* name|k="v",k="v" (labels sorted)|value: one exposition line or series
 * in a form both can be turned into. */
static void canonical(const char *name, char **pairs, size_t n, double v,
                      char *out, size_t size)
{
        char num[40];
        size_t at;

        qsort(pairs, n, sizeof(*pairs), by_str);
        at = (size_t)snprintf(out, size, "%s|", name);
        for (size_t i = 0; i < n && at < size; i++)
                at += (size_t)snprintf(out + at, size - at, "%s%s", i ? "," : "", pairs[i]);
        if (at < size)
                snprintf(out + at, size - at, "|%s", prom_text_format_double(v, num, sizeof(num)));
}

static void canon_series(const Series *s, char *out, size_t size)
{
        char *pairs[32];
        size_t n = 0;

        for (size_t i = 0; i < s->n_labels && n < 32; i++) {
                const char *ln = s->labels[i]->name;
                if (!strcmp(ln, "__name__") || !strcmp(ln, "job") ||
                    !strcmp(ln, "instance") || !strcmp(ln, "site"))
                        continue;
                assert(asprintf(&pairs[n++], "%s=\"%s\"", ln, s->labels[i]->value) > 0);
        }
        canonical(label_of(s, "__name__"), pairs, n, s->samples[0]->value, out, size);
        for (size_t i = 0; i < n; i++)
                free(pairs[i]);
}

/* One line of the text exposition (no commas or quotes in values here). */
static void canon_line(char *line, char *out, size_t size)
{
        char *pairs[32], *sp = strrchr(line, ' '), *brace = strchr(line, '{');
        size_t n = 0;

        *sp = 0;
        if (brace) {
                *brace = 0;
                line[strlen(brace + 1) + (size_t)(brace - line)] = 0; /* the '}' */
                for (char *tok = brace + 1; *tok && n < 32; ) {
                        size_t k = strcspn(tok, ",}");
                        /* an empty label is no label: not sent */
                        if (k < 3 || strncmp(tok + k - 3, "=\"\"", 3))
                                pairs[n++] = tok;
                        if (!tok[k])
                                break;
                        tok[k] = 0;
                        tok += k + 1;
                }
        }
        canonical(line, pairs, n, strtod(sp + 1, NULL), out, size);
}

static int text_has(const char *text, const Series *s)
{
        char want[2048], got[2048], line[1024];

        canon_series(s, want, sizeof(want));
        for (const char *p = text; *p; ) {
                size_t n = strcspn(p, "\n");
                snprintf(line, sizeof(line), "%.*s", (int)n, p);
                p += n + (p[n] == '\n');
                if (line[0] == '#' || !line[0])
                        continue;
                canon_line(line, got, sizeof(got));
                if (!strcmp(want, got))
                        return 1;
        }
        fprintf(stderr, "not in the exposition: %s\n", want);
        return 0;
}

static size_t count_lines(const char *text)
{
        size_t n = 0;
        for (const char *p = text; *p; p += strcspn(p, "\n") + 1) {
                n += *p != '#';
                if (!p[strcspn(p, "\n")])
                        break;
        }
        return n;
}

/* r as it goes on the wire, snappy-uncompressed and decoded back; the
 * number of series the encoder counted in *ret_n_series. */
static Prometheus__WriteRequest *on_the_wire(const struct result *r,
                                             const struct prom_remote_write_target *t,
                                             size_t *ret_n_series)
{
        uint8_t *buf;
        size_t len, raw_len;
        assert(prom_remote_write_encode(r, NULL, t, &buf, &len, ret_n_series) == 0);
        assert(snappy_uncompressed_length((char *)buf, len, &raw_len) == SNAPPY_OK);
        char *raw = malloc(raw_len + 1);
        assert(raw && snappy_uncompress((char *)buf, len, raw, &raw_len) == SNAPPY_OK);
        Prometheus__WriteRequest *wr =
                prometheus__write_request__unpack(NULL, raw_len, (uint8_t *)raw);
        assert(wr);
        free(raw);
        free(buf);
        return wr;
}

/* The timestamp on the wire of a run started at `started`. */
static int64_t wire_ms(struct result *r, double started,
                       const struct prom_remote_write_target *t)
{
        size_t n_series;
        r->started = started;
        Prometheus__WriteRequest *wr = on_the_wire(r, t, &n_series);
        assert(wr->n_timeseries && wr->timeseries[0]->n_samples == 1);
        int64_t ms = wr->timeseries[0]->samples[0]->timestamp;
        prometheus__write_request__free_unpacked(wr, NULL);
        return ms;
}

/* A run's start as the runner takes it (now_wall_ms) is the same
 * millisecond on the wire as in the history, which writes it "%.3f".
 * Taken to the nanosecond, about 1 time in 7000 lay close enough below a
 * half millisecond that the two rounded it apart; readings a few
 * microseconds apart over a few hundred milliseconds cross such a spot. */
static void test_start_same_ms_everywhere(const struct prom_remote_write_target *t)
{
        struct result *r = result_new("c", "cpu");
        assert(r && result_add(r, "benchwatch_cpu_events_per_second", "Events",
                               METRIC_GAUGE, NULL, 1, NULL) == 0);
        unsigned apart = 0;
        for (int i = 0; i < 100000; i++) {
                double started = now_wall_ms();
                char hist[32];
                snprintf(hist, sizeof(hist), "%.3f", started);
                char *dot = strchr(hist, '.');
                assert(dot);
                memmove(dot, dot + 1, strlen(dot));
                if (strtoll(hist, NULL, 10) != wire_ms(r, started, t))
                        apart++;
        }
        EXPECT(apart == 0);
        result_free(r);
}

int main(void)
{
        struct result *r = result_new("root-disk", "disk");
        struct bw_hist h;
        const char *lab_r[] = { "op", "read", "block_size", "4096", "zz", "", NULL };
        const char *extra_n[] = { "site" }, *extra_v[] = { "fra1" };
        struct prom_remote_write_target t = { .job = "benchwatch", .instance = "host1",
                                  .label_names = extra_n, .label_values = extra_v,
                                  .n_labels = 1 };
        assert(r);
        r->started = 1764590000.123;
        bw_hist_init(&h);
        for (int i = 0; i < 1000; i++)
                bw_hist_record(&h, 100000 + (uint64_t)i * 100);
        assert(result_add(r, "benchwatch_disk_iops", "IOPS", METRIC_GAUGE,
                          lab_r, 5000.25, NULL) == 0);
        assert(result_add(r, "benchwatch_disk_latency_seconds", "Latency",
                          METRIC_SUMMARY, lab_r, 0, &h) == 0);
        assert(result_add_probe_families(r) == 0);

        size_t n_series;
        Prometheus__WriteRequest *wr = on_the_wire(r, &t, &n_series);

        char *text;
        const struct result *one = r;
        assert(prom_text_to_string(&one, 1, &text, NULL) == 0);
        EXPECT(wr->n_timeseries == n_series);
        EXPECT(wr->n_timeseries == count_lines(text));
        /* 1 gauge + 6 quantiles + _sum + _count + 3 probe families */
        EXPECT(wr->n_timeseries == 1 + result_n_quantiles + 2 + 3);
        for (size_t i = 0; i < wr->n_timeseries; i++) {
                const Series *s = wr->timeseries[i];
                for (size_t k = 1; k < s->n_labels; k++)
                        EXPECT(strcmp(s->labels[k - 1]->name, s->labels[k]->name) < 0);
                EXPECT(!strcmp(s->labels[0]->name, "__name__"));
                EXPECT(label_of(s, "job") && !strcmp(label_of(s, "job"), "benchwatch"));
                EXPECT(label_of(s, "instance") && !strcmp(label_of(s, "instance"), "host1"));
                EXPECT(label_of(s, "site") && !strcmp(label_of(s, "site"), "fra1"));
                EXPECT(label_of(s, "probe") && !strcmp(label_of(s, "probe"), "root-disk"));
                EXPECT(!label_of(s, "zz"));
                EXPECT(s->n_samples == 1 && s->samples[0]->timestamp == 1764590000123);
                EXPECT(text_has(text, s));
        }
        const Series *q = wr->timeseries[1];
        EXPECT(!strcmp(label_of(q, "__name__"), "benchwatch_disk_latency_seconds"));
        EXPECT(label_of(q, "quantile") && !strcmp(label_of(q, "quantile"), "0.5"));
        EXPECT(q->samples[0]->value == bw_hist_quantile_ns(&h, 0.5) / 1e9);

        prometheus__write_request__free_unpacked(wr, NULL);
        free(text);
        result_free(r);
        test_start_same_ms_everywhere(&t);
        if (test_failures)
                fprintf(stderr, "%u check(s) failed\n", test_failures);
        return test_failures ? 1 : 0;
}
