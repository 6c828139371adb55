/* codec.c — see codec.h.  Encoding builds the protobuf-c structs pointing
 * into the result (no string copies) and frees only the arrays; decoding
 * copies everything out and validates it. */
#include "core/codec.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "proto/run.pb-c.h"
#include "util/strutil.h"

/* ---- request ------------------------------------------------------------- */

int codec_encode_request(const struct run_request *req, uint8_t **ret,
                         size_t *ret_size)
{
        Benchwatch__RunRequest m = BENCHWATCH__RUN_REQUEST__INIT;
        Benchwatch__Param *pv = calloc(req->n_params + 1, sizeof(*pv));
        Benchwatch__Param **pp = calloc(req->n_params + 1, sizeof(*pp));
        if (!pv || !pp) {
                free(pv);
                free(pp);
                return -ENOMEM;
        }
        for (size_t i = 0; i < req->n_params; i++) {
                benchwatch__param__init(&pv[i]);
                pv[i].name = req->param_names[i];
                pv[i].value = req->param_values[i];
                pp[i] = &pv[i];
        }
        m.probe = req->probe;
        m.plugin = req->plugin;
        m.n_params = req->n_params;
        m.params = pp;
        m.plugin_dir = req->plugin_dir;
        m.cache_dir = req->cache_dir;
        m.state_dir = req->state_dir;
        m.timeout = req->timeout;
        m.has_progress = m.has_cleanup = m.has_nice = 1;
        m.has_ioprio_class = m.has_ioprio_level = m.has_cpu_policy = m.has_log_level = 1;
        m.progress = req->progress;
        m.cleanup = req->cleanup;
        m.nice = req->nice;
        m.ioprio_class = req->ioprio_class;
        m.ioprio_level = req->ioprio_level;
        m.cpu_policy = req->cpu_policy;
        m.log_level = req->log_level;
        size_t size = benchwatch__run_request__get_packed_size(&m);
        uint8_t *buf = malloc(size ? size : 1);
        if (buf)
                benchwatch__run_request__pack(&m, buf);
        free(pv);
        free(pp);
        if (!buf)
                return -ENOMEM;
        *ret = buf;
        *ret_size = size;
        return 0;
}

void codec_free_request(struct run_request *req)
{
        if (!req)
                return;
        for (size_t i = 0; i < req->n_params; i++) {
                if (req->param_values && req->param_values[i])
                        explicit_bzero(req->param_values[i], strlen(req->param_values[i]));
                if (req->param_names)
                        free(req->param_names[i]);
                if (req->param_values)
                        free(req->param_values[i]);
        }
        free(req->param_names);
        free(req->param_values);
        free(req->probe);
        free(req->plugin);
        free(req->plugin_dir);
        free(req->cache_dir);
        free(req->state_dir);
        free(req);
}

static int dup_to(char **dst, const char *src)
{
        *dst = strdup(src ? src : "");
        return *dst ? 0 : -ENOMEM;
}

int codec_decode_request(const uint8_t *buf, size_t size,
                         struct run_request **ret)
{
        Benchwatch__RunRequest *m = benchwatch__run_request__unpack(NULL, size, buf);
        if (!m)
                return -EBADMSG;
        struct run_request *req = calloc(1, sizeof(*req));
        int r = req ? 0 : -ENOMEM;
        if (r >= 0) {
                req->param_names = calloc(m->n_params + 1, sizeof(char *));
                req->param_values = calloc(m->n_params + 1, sizeof(char *));
                req->n_params = m->n_params;
                if (!req->param_names || !req->param_values)
                        r = -ENOMEM;
        }
        for (size_t i = 0; r >= 0 && i < m->n_params; i++) {
                r = dup_to(&req->param_names[i], m->params[i]->name);
                if (r >= 0)
                        r = dup_to(&req->param_values[i], m->params[i]->value);
        }
        if (r >= 0)
                r = dup_to(&req->probe, m->probe);
        if (r >= 0)
                r = dup_to(&req->plugin, m->plugin);
        if (r >= 0)
                r = dup_to(&req->plugin_dir, m->plugin_dir);
        if (r >= 0)
                r = dup_to(&req->cache_dir, m->cache_dir);
        if (r >= 0)
                r = dup_to(&req->state_dir, m->state_dir);
        if (r >= 0) {
                req->timeout = m->timeout;
                req->progress = m->progress;
                req->cleanup = m->cleanup;
                req->nice = m->nice;
                req->ioprio_class = m->ioprio_class;
                req->ioprio_level = m->ioprio_level;
                req->cpu_policy = m->cpu_policy;
                req->log_level = m->has_log_level ? m->log_level : LOG_INFO;
        }
        benchwatch__run_request__free_unpacked(m, NULL);
        if (r < 0) {
                codec_free_request(req);
                return r;
        }
        *ret = req;
        return 0;
}

/* ---- result: encode ------------------------------------------------------ */

/* Everything allocated for one encoding, freed in one place. */
struct arena {
        void **p;
        size_t n;
        bool failed;
};

static void *arena_alloc(struct arena *a, size_t n, size_t size)
{
        void **np = realloc(a->p, (a->n + 1) * sizeof(*np));
        void *mem = calloc(n ? n : 1, size);
        if (!np || !mem) {
                free(mem);
                if (np)
                        a->p = np;
                a->failed = true;
                return NULL;
        }
        a->p = np;
        a->p[a->n++] = mem;
        return mem;
}

static void arena_free(struct arena *a)
{
        for (size_t i = 0; i < a->n; i++)
                free(a->p[i]);
        free(a->p);
}

static Benchwatch__Label **enc_labels(struct arena *a, const struct label *l,
                                      size_t n)
{
        Benchwatch__Label *v = arena_alloc(a, n, sizeof(*v));
        Benchwatch__Label **pv = arena_alloc(a, n, sizeof(*pv));
        if (!v || !pv)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                benchwatch__label__init(&v[i]);
                v[i].name = l[i].name;
                v[i].value = l[i].value;
                pv[i] = &v[i];
        }
        return pv;
}

static Benchwatch__Histogram *enc_hist(struct arena *a, const struct bw_hist *h)
{
        Benchwatch__Histogram *m = arena_alloc(a, 1, sizeof(*m));
        size_t used = 0;
        for (unsigned i = 0; i < BW_HIST_BUCKETS; i++)
                used += h->buckets[i] != 0;
        uint32_t *idx = arena_alloc(a, used, sizeof(*idx));
        uint64_t *cnt = arena_alloc(a, used, sizeof(*cnt));
        if (!m || !idx || !cnt)
                return NULL;
        benchwatch__histogram__init(m);
        m->count = h->count;
        m->sum_ns = h->sum_ns;
        m->min_ns = h->min_ns;
        m->max_ns = h->max_ns;
        for (unsigned i = 0, k = 0; i < BW_HIST_BUCKETS; i++)
                if (h->buckets[i]) {
                        idx[k] = i;
                        cnt[k++] = h->buckets[i];
                }
        m->n_bucket_index = m->n_bucket_count = used;
        m->bucket_index = idx;
        m->bucket_count = cnt;
        return m;
}

static Benchwatch__Family *enc_family(struct arena *a, const struct family *f)
{
        Benchwatch__Family *m = arena_alloc(a, 1, sizeof(*m));
        Benchwatch__Sample *sv = arena_alloc(a, f->n_samples, sizeof(*sv));
        Benchwatch__Sample **sp = arena_alloc(a, f->n_samples, sizeof(*sp));
        if (!m || !sv || !sp)
                return NULL;
        benchwatch__family__init(m);
        m->name = f->name;
        m->help = f->help;
        m->type = (Benchwatch__Family__Type)f->type;
        for (size_t i = 0; i < f->n_samples; i++) {
                const struct sample *s = &f->samples[i];
                benchwatch__sample__init(&sv[i]);
                sv[i].n_labels = s->n_labels;
                sv[i].labels = enc_labels(a, s->labels, s->n_labels);
                sv[i].has_value = 1;
                sv[i].value = s->value;
                if (s->hist)
                        sv[i].hist = enc_hist(a, s->hist);
                sp[i] = &sv[i];
        }
        m->n_samples = f->n_samples;
        m->samples = sp;
        return m;
}

int codec_encode_result(const struct result *r, uint8_t **ret, size_t *ret_size)
{
        struct arena a = { 0 };
        Benchwatch__RunResult m = BENCHWATCH__RUN_RESULT__INIT;
        m.probe = r->probe;
        m.plugin = r->plugin;
        m.success = r->success;
        m.error = r->error;
        m.started = r->started;
        m.duration = r->duration;
        m.has_yielded_device = r->yielded && !strcmp(r->yielded, RESULT_YIELDED_DEVICE);
        m.yielded_device = m.has_yielded_device;
        m.n_params = r->n_params;
        m.params = enc_labels(&a, r->params, r->n_params);
        m.n_families = r->n_families;
        m.families = arena_alloc(&a, r->n_families, sizeof(*m.families));
        for (size_t i = 0; m.families && i < r->n_families; i++)
                m.families[i] = enc_family(&a, &r->families[i]);
        uint8_t *buf = NULL;
        size_t size = 0;
        if (!a.failed) {
                size = benchwatch__run_result__get_packed_size(&m);
                buf = malloc(size ? size : 1);
                if (buf)
                        benchwatch__run_result__pack(&m, buf);
        }
        arena_free(&a);
        if (!buf)
                return -ENOMEM;
        *ret = buf;
        *ret_size = size;
        return 0;
}

/* ---- result: decode ------------------------------------------------------ */

static int dec_hist(const Benchwatch__Histogram *m, struct bw_hist *h,
                    char **ret_error)
{
        bw_hist_init(h);
        if (m->n_bucket_index != m->n_bucket_count) {
                *ret_error = str_printf("histogram index/count lengths differ");
                return -EBADMSG;
        }
        uint64_t total = 0;
        for (size_t i = 0; i < m->n_bucket_index; i++) {
                if (m->bucket_index[i] >= BW_HIST_BUCKETS) {
                        *ret_error = str_printf("histogram bucket %u out of range",
                                                m->bucket_index[i]);
                        return -EBADMSG;
                }
                h->buckets[m->bucket_index[i]] += m->bucket_count[i];
                total += m->bucket_count[i];
        }
        if (total != m->count || (m->count && m->min_ns > m->max_ns)) {
                *ret_error = str_printf("histogram counts are inconsistent");
                return -EBADMSG;
        }
        h->count = m->count;
        h->sum_ns = m->sum_ns;
        h->min_ns = m->count ? m->min_ns : UINT64_MAX;
        h->max_ns = m->max_ns;
        return 0;
}

/* More labels than any plugin uses; also bounds the array below. */
#define MAX_LABELS 32

/* A Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) or, with label,
 * label name (no ':').  The encoders write names as they are, and one bad
 * name makes the Pushgateway or node_exporter refuse every figure. */
static bool name_ok(const char *s, bool label)
{
        if (!s || !*s || (*s >= '0' && *s <= '9'))
                return false;
        for (; *s; s++)
                if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                      (*s >= '0' && *s <= '9') || *s == '_' ||
                      (*s == ':' && !label)))
                        return false;
        return true;
}

/* Label names the encoders can add "probe" (and "quantile") to. */
static int check_labels(const Benchwatch__Family *f,
                        const Benchwatch__Sample *s, char **ret_error)
{
        if (s->n_labels > MAX_LABELS) {
                *ret_error = str_printf("%s: more than %d labels", f->name,
                                        MAX_LABELS);
                return -EBADMSG;
        }
        for (size_t i = 0; i < s->n_labels; i++) {
                const char *n = s->labels[i]->name;
                bool dup = false;
                for (size_t k = 0; k < i; k++)
                        dup = dup || !strcmp(n, s->labels[k]->name);
                if (!name_ok(n, true) || !strncmp(n, "__", 2) || dup ||
                    !strcmp(n, "probe") || !strcmp(n, "quantile")) {
                        *ret_error = str_printf("%s: invalid or repeated "
                                                "label name", f->name);
                        return -EBADMSG;
                }
        }
        return 0;
}

static int dec_sample(struct result *r, const Benchwatch__Family *f,
                      const Benchwatch__Sample *s, char **ret_error)
{
        int lr = check_labels(f, s, ret_error);
        if (lr < 0)
                return lr;
        const char *lv[2 * MAX_LABELS + 1];
        for (size_t i = 0; i < s->n_labels; i++) {
                lv[2 * i] = s->labels[i]->name;
                lv[2 * i + 1] = s->labels[i]->value;
        }
        lv[2 * s->n_labels] = NULL;
        struct bw_hist *h = NULL;
        if (f->type == BENCHWATCH__FAMILY__TYPE__SUMMARY) {
                if (!s->hist) {
                        *ret_error = str_printf("summary %s without histogram", f->name);
                        return -EBADMSG;
                }
                h = malloc(sizeof(*h));
                if (!h)
                        return -ENOMEM;
                int ret = dec_hist(s->hist, h, ret_error);
                if (ret < 0) {
                        free(h);
                        return ret;
                }
        }
        int ret = result_add(r, f->name, f->help, (enum metric_type)f->type, lv,
                             s->value, h);
        free(h);
        if (ret == -EINVAL)
                *ret_error = str_printf("family %s appears with two types", f->name);
        return ret;
}

int codec_decode_result(const uint8_t *buf, size_t size, struct result **ret_result,
                        char **ret_error)
{
        Benchwatch__RunResult *m = benchwatch__run_result__unpack(NULL, size, buf);
        if (!m) {
                *ret_error = str_printf("%zu bytes that are not a result message", size);
                return -EBADMSG;
        }
        struct result *r = result_new(m->probe, m->plugin);
        int ret = r ? 0 : -ENOMEM;
        if (r) {
                r->success = m->success;
                r->started = m->started;
                r->duration = m->duration;
                if (m->error)
                        ret = result_set_error(r, m->error);
                r->success = m->success;
                if (m->has_yielded_device && m->yielded_device && !m->success)
                        r->yielded = RESULT_YIELDED_DEVICE;
        }
        for (size_t i = 0; ret >= 0 && i < m->n_params; i++)
                ret = result_add_param(r, m->params[i]->name, m->params[i]->value);
        for (size_t i = 0; ret >= 0 && i < m->n_families; i++) {
                const Benchwatch__Family *f = m->families[i];
                if (!name_ok(f->name, false)) {
                        *ret_error = str_printf("invalid metric name");
                        ret = -EBADMSG;
                } else if (f->type > BENCHWATCH__FAMILY__TYPE__SUMMARY) {
                        *ret_error = str_printf("family %s has unknown type", f->name);
                        ret = -EBADMSG;
                }
                for (size_t k = 0; ret >= 0 && k < f->n_samples; k++)
                        ret = dec_sample(r, f, f->samples[k], ret_error);
        }
        benchwatch__run_result__free_unpacked(m, NULL);
        if (ret >= 0 && (!isfinite(r->duration) || r->duration < 0)) {
                *ret_error = str_printf("invalid duration");
                ret = -EBADMSG;
        }
        if (ret < 0) {
                result_free(r);
                return ret;
        }
        *ret_result = r;
        return 0;
}
