/* test_prom_proto.c — the delimited protobuf encoding, decoded back with the
 * generated protobuf-c code and compared value by value. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/result.h"
#include "encode/prom_proto.h"
#include "proto/metrics.pb-c.h"
#include "util/hist.h"

typedef Io__Prometheus__Client__MetricFamily PbFamily;



static size_t get_varint(const uint8_t *p, size_t len, uint64_t *v)
{
        size_t n = 0;
        *v = 0;
        for (int shift = 0; n < len && shift < 64; shift += 7) {
                *v |= (uint64_t)(p[n] & 0x7f) << shift;
                if (!(p[n++] & 0x80))
                        return n;
        }
        return 0;
}

/* Split the buffer into messages; returns how many were decoded. */
static size_t decode(const uint8_t *buf, size_t len, PbFamily **out, size_t max)
{
        size_t n = 0, at = 0;
        while (at < len && n < max) {
                uint64_t sz;
                size_t h = get_varint(buf + at, len - at, &sz);
                assert(h > 0 && at + h + sz <= len);
                out[n] = io__prometheus__client__metric_family__unpack(NULL, sz, buf + at + h);
                assert(out[n]);
                n++;
                at += h + sz;
        }
        EXPECT(at == len);
        return n;
}

static const char *label(const Io__Prometheus__Client__Metric *m, size_t i,
                         const char **value)
{
        assert(i < m->n_label);
        *value = m->label[i]->value;
        return m->label[i]->name;
}

int main(void)
{
        struct result *r = result_new("root-disk", "disk");
        struct bw_hist h;
        const char *lab_r[] = { "op", "read", "block_size", "4096", NULL };
        const char *lab_w[] = { "op", "write", "block_size", "4096", NULL };
        assert(r);
        bw_hist_init(&h);
        for (int i = 0; i < 1000; i++)
                bw_hist_record(&h, 100000 + (uint64_t)i * 100); /* 100..200 µs */
        assert(result_add(r, "benchwatch_disk_iops", "I/O per second", METRIC_GAUGE,
                          lab_r, 5000.25, NULL) == 0);
        assert(result_add(r, "benchwatch_disk_iops", "I/O per second", METRIC_GAUGE,
                          lab_w, 1200, NULL) == 0);
        assert(result_add(r, "benchwatch_disk_errors_total", "Errors", METRIC_COUNTER,
                          NULL, 2, NULL) == 0);
        assert(result_add(r, "benchwatch_disk_latency_seconds", "Latency",
                          METRIC_SUMMARY, lab_r, 0, &h) == 0);

        uint8_t *buf;
        size_t len;
        assert(prom_proto_encode(r, &buf, &len) == 0);
        PbFamily *f[8];
        size_t n = decode(buf, len, f, 8);
        EXPECT(n == 3);
        if (n != 3)
                return 1;

        const char *v;
        EXPECT(!strcmp(f[0]->name, "benchwatch_disk_iops"));
        EXPECT(!strcmp(f[0]->help, "I/O per second"));
        EXPECT(f[0]->has_type && f[0]->type == IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE);
        EXPECT(f[0]->n_metric == 2);
        EXPECT(f[0]->metric[0]->n_label == 3);
        EXPECT(!strcmp(label(f[0]->metric[0], 0, &v), "probe") && !strcmp(v, "root-disk"));
        EXPECT(!strcmp(label(f[0]->metric[0], 1, &v), "op") && !strcmp(v, "read"));
        EXPECT(!strcmp(label(f[0]->metric[0], 2, &v), "block_size") && !strcmp(v, "4096"));
        EXPECT(f[0]->metric[0]->gauge && f[0]->metric[0]->gauge->value == 5000.25);
        EXPECT(!strcmp(label(f[0]->metric[1], 1, &v), "op") && !strcmp(v, "write"));
        EXPECT(f[0]->metric[1]->gauge && f[0]->metric[1]->gauge->value == 1200);
        EXPECT(!f[0]->metric[0]->has_timestamp_ms);

        EXPECT(f[1]->type == IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER);
        EXPECT(f[1]->n_metric == 1 && f[1]->metric[0]->counter &&
              f[1]->metric[0]->counter->value == 2);
        EXPECT(f[1]->metric[0]->n_label == 1);

        EXPECT(f[2]->type == IO__PROMETHEUS__CLIENT__METRIC_TYPE__SUMMARY);
        const Io__Prometheus__Client__Summary *s = f[2]->metric[0]->summary;
        EXPECT(s && s->sample_count == 1000);
        EXPECT(s && fabs(s->sample_sum - (double)h.sum_ns / 1e9) < 1e-12);
        EXPECT(s && s->n_quantile == result_n_quantiles);
        for (size_t i = 0; s && i < s->n_quantile; i++) {
                EXPECT(s->quantile[i]->quantile == result_quantiles[i]);
                EXPECT(s->quantile[i]->value ==
                      bw_hist_quantile_ns(&h, result_quantiles[i]) / 1e9);
        }
        EXPECT(s && s->quantile[result_n_quantiles - 1]->value == 199900e-9);
        EXPECT(s && fabs(s->quantile[0]->value - 150e-6) < 150e-6 * 0.008);

        for (size_t i = 0; i < n; i++)
                io__prometheus__client__metric_family__free_unpacked(f[i], NULL);
        free(buf);

        /* An empty result is an empty (but valid) body. */
        struct result *e = result_new("x", "y");
        assert(e && prom_proto_encode(e, &buf, &len) == 0);
        EXPECT(len == 0);
        free(buf);
        result_free(e);
        result_free(r);
        if (test_failures)
                fprintf(stderr, "%u check(s) failed\n", test_failures);
        return test_failures ? 1 : 0;
}
