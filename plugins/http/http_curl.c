/* http_curl.c — the http plugin's client for https: libcurl's multi
 * interface, so TLS comes from the library the system already trusts.
 *
 * One easy handle per connection slot, created once and re-added for every
 * request (libcurl keeps the connection when keepalive is on, and retries a
 * request whose reused connection the server had closed, as ab does).  HTTP
 * is pinned to 1.1 so that `concurrency` means connections, as in the plain
 * http client.  libcurl's result codes are mapped onto ab's failure reasons. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

#include "http.h"
#include "util/timeutil.h"

struct slot {
        CURL *e;
        uint64_t intended;
        struct http_load *l;
        char err[CURL_ERROR_SIZE];
};

struct cengine {
        struct http_load *l;
        CURLM *m;
        struct curl_slist *hdrs;
        struct slot *slots;
        struct slot **idle;
        size_t n_idle;
        unsigned inflight;
};

static size_t count_bytes(char *p, size_t size, size_t n, void *userdata)
{
        struct slot *s = userdata;
        s->l->bytes += size * n;
        return size * n;
}

static int setup_easy(struct cengine *ce, struct slot *s)
{
        const struct http_cfg *cfg = ce->l->cfg;
        CURL *e = curl_easy_init();
        if (!e)
                return -ENOMEM;
        s->e = e;
        s->l = ce->l;
        curl_easy_setopt(e, CURLOPT_URL, cfg->url);
        curl_easy_setopt(e, CURLOPT_PRIVATE, s);
        curl_easy_setopt(e, CURLOPT_ERRORBUFFER, s->err);
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, count_bytes);
        curl_easy_setopt(e, CURLOPT_WRITEDATA, s);
        curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, count_bytes);
        curl_easy_setopt(e, CURLOPT_HEADERDATA, s);
        curl_easy_setopt(e, CURLOPT_FORBID_REUSE, cfg->keepalive ? 0L : 1L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, cfg->tls_verify ? 1L : 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, cfg->tls_verify ? 2L : 0L);
        curl_easy_setopt(e, CURLOPT_USERAGENT, "benchwatch/" PACKAGE_VERSION);
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, ce->hdrs);
        if (cfg->head)
                curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
        else if (strcmp(cfg->method, "GET"))
                curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, cfg->method);
        if (*cfg->body || !strcmp(cfg->method, "POST") || !strcmp(cfg->method, "PUT") ||
            !strcmp(cfg->method, "PATCH")) {
                curl_easy_setopt(e, CURLOPT_POSTFIELDS, cfg->body);
                curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(cfg->body));
        }
        return 0;
}

static void start(struct cengine *ce, struct slot *s, uint64_t now)
{
        uint64_t t;
        if (!http_load_next(ce->l, now, &t)) {
                ce->idle[ce->n_idle++] = s;
                return;
        }
        uint64_t deadline = t + ce->l->cfg->timeout_ns;
        long ms = deadline > now ? (long)((deadline - now + 999999) / 1000000) : 1;
        s->intended = t;
        s->err[0] = '\0';
        curl_easy_setopt(s->e, CURLOPT_TIMEOUT_MS, ms);
        curl_multi_add_handle(ce->m, s->e);
        ce->inflight++;
}

static enum http_fail reason(CURLcode rc)
{
        switch (rc) {
        case CURLE_COULDNT_CONNECT:
        case CURLE_SSL_CONNECT_ERROR:
        case CURLE_PEER_FAILED_VERIFICATION:
                return HTTP_FAIL_CONNECT;
        case CURLE_OPERATION_TIMEDOUT:
                return HTTP_FAIL_TIMEOUT;
        case CURLE_PARTIAL_FILE:
                return HTTP_FAIL_LENGTH;
        default:
                return HTTP_FAIL_RECEIVE;
        }
}

static void finished(struct cengine *ce, struct slot *s, CURLcode rc, uint64_t now)
{
        struct http_load *l = ce->l;
        long status = 0;
        curl_multi_remove_handle(ce->m, s->e);
        ce->inflight--;
        if (rc == CURLE_OK) {
                curl_easy_getinfo(s->e, CURLINFO_RESPONSE_CODE, &status);
                http_load_done(l, now, s->intended, (int)status);
        } else if (rc == CURLE_COULDNT_RESOLVE_HOST) {
                http_load_abort(l, -EHOSTUNREACH, "cannot resolve host '%s': %s",
                                l->cfg->host, *s->err ? s->err : curl_easy_strerror(rc));
                return;
        } else {
                enum http_fail why = reason(rc);
                http_load_fail(l, now, why);
                /* ab's rule: ten failed connects before any success */
                if (why == HTTP_FAIL_CONNECT && !l->complete &&
                    l->failed[HTTP_FAIL_CONNECT] >= 10)
                        http_load_abort(l, rc == CURLE_COULDNT_CONNECT ? -ECONNREFUSED
                                        : -EPROTO, "cannot connect to %s: %s",
                                        l->cfg->where, *s->err ? s->err
                                        : curl_easy_strerror(rc));
        }
        start(ce, s, now);
}

static int poll_ms(const struct cengine *ce, uint64_t now)
{
        uint64_t wake = now + 100000000ull;
        uint64_t due = ce->n_idle ? http_load_due(ce->l) : UINT64_MAX;
        if (due < wake)
                wake = due;
        if (ce->l->hard_ns < wake)
                wake = ce->l->hard_ns;
        return wake <= now ? 0 : (int)((wake - now + 999999) / 1000000);
}

static void loop(struct cengine *ce)
{
        const struct bw_host *h = ce->l->h;
        int running, q;
        for (;;) {
                uint64_t now = now_ns();
                if (now >= ce->l->hard_ns || http_load_halted(ce->l) || h->stopping(h))
                        break;
                if (!ce->inflight && !http_load_more(ce->l, now))
                        break;
                curl_multi_perform(ce->m, &running);
                CURLMsg *msg;
                now = now_ns();
                while ((msg = curl_multi_info_read(ce->m, &q))) {
                        struct slot *s;
                        if (msg->msg != CURLMSG_DONE)
                                continue;
                        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&s);
                        finished(ce, s, msg->data.result, now);
                }
                while (ce->n_idle && http_load_due(ce->l) <= now) {
                        struct slot *s = ce->idle[--ce->n_idle];
                        start(ce, s, now);
                        if (ce->n_idle && ce->idle[ce->n_idle - 1] == s)
                                break;
                }
                curl_multi_poll(ce->m, NULL, 0, poll_ms(ce, now), NULL);
        }
}

static int setup(struct cengine *ce)
{
        const struct http_cfg *cfg = ce->l->cfg;
        unsigned n = cfg->concurrency;
        if (curl_global_init(CURL_GLOBAL_DEFAULT))
                return -ENOMEM;
        ce->m = curl_multi_init();
        ce->slots = calloc(n, sizeof(*ce->slots));
        ce->idle = calloc(n, sizeof(*ce->idle));
        if (!ce->m || !ce->slots || !ce->idle)
                return -ENOMEM;
        curl_multi_setopt(ce->m, CURLMOPT_MAX_HOST_CONNECTIONS, (long)n);
        curl_multi_setopt(ce->m, CURLMOPT_MAXCONNECTS, (long)n);
        for (size_t i = 0; i < cfg->n_headers; i++) {
                struct curl_slist *x = curl_slist_append(ce->hdrs, cfg->headers[i]);
                if (!x)
                        return -ENOMEM;
                ce->hdrs = x;
        }
        for (unsigned i = 0; i < n; i++)
                if (setup_easy(ce, &ce->slots[i]) < 0)
                        return -ENOMEM;
        return 0;
}

int http_curl_run(struct http_load *l)
{
        struct cengine ce = { .l = l };
        uint64_t cpu0 = thread_cpu_ns();
        int r = setup(&ce);
        if (r < 0)
                r = l->h->fail(l->h, r, "cannot set up libcurl: out of memory");
        else {
                uint64_t now = now_ns();
                for (unsigned i = 0; i < l->cfg->concurrency; i++)
                        start(&ce, &ce.slots[i], now);
                loop(&ce);
        }
        http_load_flush(l);
        for (unsigned i = 0; ce.slots && i < l->cfg->concurrency; i++)
                if (ce.slots[i].e) {
                        if (ce.m)
                                curl_multi_remove_handle(ce.m, ce.slots[i].e);
                        curl_easy_cleanup(ce.slots[i].e);
                }
        if (ce.m)
                curl_multi_cleanup(ce.m);
        curl_slist_free_all(ce.hdrs);
        free(ce.slots);
        free(ce.idle);
        l->cpu_ns += thread_cpu_ns() - cpu0;
        return r;
}
