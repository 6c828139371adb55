/* prom_proto.c — delimited protobuf MetricFamily messages (see prom_proto.h).
 *
 * protobuf-c messages point at their parts, so each family is built from a
 * short-lived set of arrays that borrow the strings of the result, packed,
 * appended to the output and freed before the next family. */
#include "encode/prom_proto.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "proto/metrics.pb-c.h"

typedef Io__Prometheus__Client__MetricFamily PbFamily;
typedef Io__Prometheus__Client__Metric PbMetric;
typedef Io__Prometheus__Client__LabelPair PbLabel;
typedef Io__Prometheus__Client__Gauge PbGauge;
typedef Io__Prometheus__Client__Counter PbCounter;
typedef Io__Prometheus__Client__Summary PbSummary;
typedef Io__Prometheus__Client__Quantile PbQuantile;

/* Everything one sample's Metric message points to. */
struct pb_sample {
        PbMetric m;
        PbGauge g;
        PbCounter c;
        PbSummary s;
        PbLabel *labels;
        PbLabel **label_ptrs;
        PbQuantile *q;
        PbQuantile **q_ptrs;
};

struct outbuf {
        uint8_t *data;
        size_t len;
};

static void pb_sample_done(struct pb_sample *p)
{
        free(p->labels);
        free(p->label_ptrs);
        free(p->q);
        free(p->q_ptrs);
}

static int fill_labels(struct pb_sample *p, const char *probe,
                       const struct sample *s)
{
        size_t n = 0;

        p->labels = calloc(s->n_labels + 1, sizeof(*p->labels));
        p->label_ptrs = calloc(s->n_labels + 1, sizeof(*p->label_ptrs));
        if (!p->labels || !p->label_ptrs)
                return -ENOMEM;
        if (*probe) { /* "": the host's own info metrics, no probe */
                io__prometheus__client__label_pair__init(&p->labels[n]);
                p->labels[n].name = (char *)"probe";
                p->labels[n].value = (char *)probe;
                n++;
        }
        for (size_t i = 0; i < s->n_labels; i++) {
                if (!strcmp(s->labels[i].name, "probe"))
                        continue; /* the run's probe name wins, as in prom_text.c */
                io__prometheus__client__label_pair__init(&p->labels[n]);
                p->labels[n].name = s->labels[i].name;
                p->labels[n].value = s->labels[i].value;
                n++;
        }
        for (size_t i = 0; i < n; i++)
                p->label_ptrs[i] = &p->labels[i];
        p->m.n_label = n;
        p->m.label = p->label_ptrs;
        return 0;
}

static int fill_summary(struct pb_sample *p, const struct bw_hist *h)
{
        size_t nq = result_n_quantiles;

        io__prometheus__client__summary__init(&p->s);
        p->q = calloc(nq, sizeof(*p->q));
        p->q_ptrs = calloc(nq, sizeof(*p->q_ptrs));
        if (!p->q || !p->q_ptrs)
                return -ENOMEM;
        for (size_t i = 0; i < nq; i++) {
                io__prometheus__client__quantile__init(&p->q[i]);
                p->q[i].has_quantile = p->q[i].has_value = 1;
                p->q[i].quantile = result_quantiles[i];
                p->q[i].value = h && h->count ?
                        bw_hist_quantile_ns(h, result_quantiles[i]) / 1e9 : NAN;
                p->q_ptrs[i] = &p->q[i];
        }
        p->s.n_quantile = nq;
        p->s.quantile = p->q_ptrs;
        p->s.has_sample_count = p->s.has_sample_sum = 1;
        p->s.sample_count = h ? h->count : 0;
        p->s.sample_sum = h ? (double)h->sum_ns / 1e9 : 0;
        p->m.summary = &p->s;
        return 0;
}

static int fill_sample(struct pb_sample *p, const char *probe,
                       enum metric_type type, const struct sample *s)
{
        int r;

        io__prometheus__client__metric__init(&p->m);
        r = fill_labels(p, probe, s);
        if (r < 0)
                return r;
        switch (type) {
        case METRIC_SUMMARY:
                return fill_summary(p, s->hist);
        case METRIC_COUNTER:
                io__prometheus__client__counter__init(&p->c);
                p->c.has_value = 1;
                p->c.value = s->value;
                p->m.counter = &p->c;
                return 0;
        case METRIC_GAUGE:
        default:
                io__prometheus__client__gauge__init(&p->g);
                p->g.has_value = 1;
                p->g.value = s->value;
                p->m.gauge = &p->g;
                return 0;
        }
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
        size_t n = 0;

        do {
                p[n] = (uint8_t)(v & 0x7f);
                v >>= 7;
                if (v)
                        p[n] |= 0x80;
                n++;
        } while (v);
        return n;
}

static int append_delimited(struct outbuf *out, const ProtobufCMessage *msg)
{
        size_t size = protobuf_c_message_get_packed_size(msg);
        uint8_t *d = realloc(out->data, out->len + 10 + size);

        if (!d)
                return -ENOMEM;
        out->data = d;
        out->len += put_varint(d + out->len, size);
        out->len += protobuf_c_message_pack(msg, d + out->len);
        return 0;
}

static Io__Prometheus__Client__MetricType pb_type(enum metric_type t)
{
        switch (t) {
        case METRIC_COUNTER:
                return IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER;
        case METRIC_SUMMARY:
                return IO__PROMETHEUS__CLIENT__METRIC_TYPE__SUMMARY;
        case METRIC_GAUGE:
        default:
                return IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE;
        }
}

static int encode_family(const char *probe, const struct family *fam,
                         struct outbuf *out)
{
        size_t n = fam->n_samples;
        struct pb_sample *ps = calloc(n ? n : 1, sizeof(*ps));
        PbMetric **mp = calloc(n ? n : 1, sizeof(*mp));
        PbFamily mf = IO__PROMETHEUS__CLIENT__METRIC_FAMILY__INIT;
        int r = ps && mp ? 0 : -ENOMEM;

        for (size_t i = 0; i < n && r >= 0; i++) {
                r = fill_sample(&ps[i], probe, fam->type, &fam->samples[i]);
                mp[i] = &ps[i].m;
        }
        if (r >= 0) {
                mf.name = fam->name;
                mf.help = fam->help ? fam->help : (char *)"";
                mf.has_type = 1;
                mf.type = pb_type(fam->type);
                mf.n_metric = n;
                mf.metric = mp;
                r = append_delimited(out, &mf.base);
        }
        for (size_t i = 0; ps && i < n; i++)
                pb_sample_done(&ps[i]);
        free(ps);
        free(mp);
        return r;
}

int prom_proto_encode(const struct result *res, uint8_t **ret, size_t *ret_len)
{
        struct outbuf out = { NULL, 0 };
        int r = 0;

        for (size_t i = 0; i < res->n_families && r >= 0; i++)
                if (res->families[i].n_samples > 0)
                        r = encode_family(res->probe, &res->families[i], &out);
        if (r < 0) {
                free(out.data);
                return r;
        }
        if (!out.data)
                out.data = malloc(1); /* an empty push is still a push */
        if (!out.data)
                return -ENOMEM;
        *ret = out.data;
        *ret_len = out.len;
        return 0;
}
