/* http.c — the http plugin: requests per second and latency of a web
 * server or proxy tier, the way ab and wrk measure it.
 *
 * It reproduces `ab -c C -n N [-k]` (closed loop: C connections, each sends
 * its next request when the previous answer is in) with ab's definitions of
 * Complete/Failed requests, Non-2xx responses, Requests per second and
 * Transfer rate, and adds a constant-rate open-loop mode (rate=) in which
 * every request has an intended send time and its latency is counted from
 * that time, so a stalling server shows as latency instead of silently as
 * fewer requests (wrk2's answer to coordinated omission).
 *
 * Client choice, by measurement (nginx, 1 worker, 2 cores, 3 s runs): a
 * libcurl multi loop with reused easy handles reached 57-59k requests/s at
 * concurrency 50 with keep-alive where wrk reached 62-70k (0.85-0.92x), and
 * 44k where wrk reached 65k at concurrency 500 (0.67x).  Plain http therefore
 * goes through a dedicated epoll HTTP/1.1 client (http_raw.c); https keeps
 * libcurl's TLS (http_curl.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <curl/curl.h>
#include <sys/resource.h>
#include <syslog.h>

#include "common/localpeer.h"
#include "core/plugin.h"
#include "http.h"
#include "util/hist.h"
#include "util/timeutil.h"

static const char *const methods[] = {
        "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", NULL,
};

enum {
        P_URL, P_TARGET, P_METHOD, P_HEADER, P_BODY, P_KEEPALIVE,
        P_CONCURRENCY, P_REQUESTS, P_DURATION, P_RATE, P_TIMEOUT,
        P_EXPECT, P_TLS_VERIFY, P_THREADS,
};

static const struct bw_param_def params[] = {
        [P_URL] = {
                .name = "url", .type = BW_PARAM_STRING,
                .default_value = "http://127.0.0.1/",
                .help = "http:// or https:// URL to request, user:password@ "
                        "for basic authentication; secret (it may hold "
                        "credentials or tokens): messages name only host:port, "
                        "figures carry target=",
                .flags = BW_PARAM_SECRET,
        },
        [P_TARGET] = {
                .name = "target", .type = BW_PARAM_STRING,
                .default_value = "",
                .help = "a name for what is measured (\"haproxy\"), put on "
                        "every figure as a label in place of the URL",
                .flags = BW_PARAM_LABEL,
        },
        [P_METHOD] = {
                .name = "method", .type = BW_PARAM_ENUM,
                .default_value = "GET", .choices = methods,
                .help = "request method",
                .flags = BW_PARAM_LABEL,
        },
        [P_HEADER] = {
                .name = "header", .type = BW_PARAM_STRING,
                .default_value = "",
                .help = "extra request header \"Name: value\"; may be "
                        "repeated; secret, so it may carry Authorization",
                .flags = BW_PARAM_MULTI | BW_PARAM_SECRET,
        },
        [P_BODY] = {
                .name = "body", .type = BW_PARAM_STRING,
                .default_value = "",
                .help = "request body (sent with Content-Length)",
        },
        [P_KEEPALIVE] = {
                .name = "keepalive", .type = BW_PARAM_BOOL,
                .default_value = "yes",
                .help = "reuse connections (ab -k); no: one connection per "
                        "request",
                .flags = BW_PARAM_LABEL,
        },
        [P_CONCURRENCY] = {
                .name = "concurrency", .type = BW_PARAM_INT,
                .default_value = "4", .min = 1, .max = 50000,
                .unit = "connections",
                .help = "connections open at once (ab -c)",
                .flags = BW_PARAM_LABEL,
        },
        [P_REQUESTS] = {
                .name = "requests", .type = BW_PARAM_INT,
                .default_value = "0", .min = 0, .max = 1e12, .unit = "requests",
                .help = "stop after this many requests (ab -n); 0: run for "
                        "duration",
        },
        [P_DURATION] = {
                .name = "duration", .type = BW_PARAM_DURATION,
                .default_value = "5s", .min = 0, .max = 86400, .unit = "s",
                .help = "how long to send requests (ab -t); with requests= and "
                        "no duration, until the requests are done",
        },
        [P_RATE] = {
                .name = "rate", .type = BW_PARAM_DOUBLE,
                .default_value = "0", .min = 0, .max = 1e7,
                .unit = "requests/s",
                .help = "constant request rate (open loop, latency from each "
                        "request's intended send time); 0: closed loop like ab",
        },
        [P_TIMEOUT] = {
                .name = "timeout", .type = BW_PARAM_DURATION,
                .default_value = "5s", .min = 0.001, .max = 3600, .unit = "s",
                .help = "a request without a whole response after this long "
                        "fails",
        },
        [P_EXPECT] = {
                .name = "expect_status", .type = BW_PARAM_STRING,
                .default_value = "",
                .help = "statuses that count as success, e.g. \"200\", "
                        "\"200,301\", \"2xx\"; others are failed requests "
                        "(reason=status), and a run with none but those fails; "
                        "empty: any status (non-2xx are still counted, as ab "
                        "does)",
        },
        [P_TLS_VERIFY] = {
                .name = "tls_verify", .type = BW_PARAM_BOOL,
                .default_value = "yes",
                .help = "https: verify the server's certificate and name",
        },
        [P_THREADS] = {
                .name = "threads", .type = BW_PARAM_INT,
                .default_value = "1", .min = 1, .max = 64, .unit = "threads",
                .help = "client threads for plain http (wrk -t), each with its "
                        "share of the connections; 1 keeps a daemon run to one "
                        "CPU",
        },
        { .name = NULL },
};

/* ---- parameters into a configuration ---------------------------------- */

static void cfg_free(struct http_cfg *cfg)
{
        free(cfg->host);
        free(cfg->port);
        free(cfg->where);
        if (cfg->auth)
                explicit_bzero(cfg->auth, strlen(cfg->auth));
        free(cfg->auth);
        if (cfg->request)
                explicit_bzero(cfg->request, cfg->request_len);
        free(cfg->request);
}

static void set_status(struct http_cfg *cfg, long lo, long hi)
{
        for (long s = lo; s <= hi; s++)
                cfg->expect[s / 8] |= (uint8_t)(1u << (s % 8));
}

/* "200", "200,301", "2xx", "2xx,304" */
static int parse_expect(struct http_cfg *cfg, const char *s)
{
        cfg->expect_any = !*s;
        while (*s) {
                size_t n = strcspn(s, ",");
                char *end;
                if (n == 3 && s[0] >= '1' && s[0] <= '5' &&
                    !strncasecmp(s + 1, "xx", 2)) {
                        set_status(cfg, (s[0] - '0') * 100, (s[0] - '0') * 100 + 99);
                } else {
                        errno = 0;
                        long v = strtol(s, &end, 10);
                        if (errno || end != s + n || n != 3 || v < 100 || v > 599)
                                return -EINVAL;
                        set_status(cfg, v, v);
                }
                s += n;
                if (*s == ',' && *++s == '\0')
                        return -EINVAL;
        }
        return 0;
}

static int url_part(CURLU *u, CURLUPart what, char **ret)
{
        char *v = NULL;
        if (curl_url_get(u, what, &v, what == CURLUPART_PORT ? CURLU_DEFAULT_PORT : 0))
                return -ENOENT;
        *ret = strdup(v);
        curl_free(v);
        return *ret ? 0 : -ENOMEM;
}

static const char b64[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *base64(const char *in, size_t n)
{
        char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
        if (!out)
                return NULL;
        for (size_t i = 0; i < n; i += 3) {
                uint32_t v = (uint32_t)(unsigned char)in[i] << 16;
                if (i + 1 < n)
                        v |= (uint32_t)(unsigned char)in[i + 1] << 8;
                if (i + 2 < n)
                        v |= (unsigned char)in[i + 2];
                *o++ = b64[v >> 18];
                *o++ = b64[(v >> 12) & 63];
                *o++ = i + 1 < n ? b64[(v >> 6) & 63] : '=';
                *o++ = i + 2 < n ? b64[v & 63] : '=';
        }
        *o = '\0';
        return out;
}

/* user:password@ in the URL: "Authorization: Basic ..." for the raw
 * client (libcurl does the same by itself). */
static int basic_auth(struct http_cfg *cfg, CURLU *u)
{
        char *user = NULL, *pass = NULL, *both = NULL, *enc = NULL;
        int r = 0;
        if (curl_url_get(u, CURLUPART_USER, &user, CURLU_URLDECODE))
                return 0;
        if (curl_url_get(u, CURLUPART_PASSWORD, &pass, CURLU_URLDECODE))
                pass = NULL;
        if (asprintf(&both, "%s:%s", user, pass ? pass : "") < 0)
                both = NULL;
        enc = both ? base64(both, strlen(both)) : NULL;
        if (!enc || asprintf(&cfg->auth, "Authorization: Basic %s", enc) < 0) {
                cfg->auth = NULL;
                r = -ENOMEM;
        }
        if (both)
                explicit_bzero(both, strlen(both));
        free(both);
        free(enc);
        curl_free(user);
        curl_free(pass);
        return r;
}

static int cfg_url(struct http_cfg *cfg, const struct bw_host *h, char **ret_target)
{
        CURLU *u = curl_url();
        char *scheme = NULL, *path = NULL, *query = NULL;
        int r = -ENOMEM;
        if (!u)
                return h->fail(h, -ENOMEM, "out of memory");
        if (curl_url_set(u, CURLUPART_URL, cfg->url, 0)) {
                r = h->fail(h, -EINVAL, "url: not a valid http:// or https:// URL "
                            "(want http://HOST[:PORT]/PATH)");
                goto out;
        }
        if (url_part(u, CURLUPART_SCHEME, &scheme) < 0 ||
            (strcmp(scheme, "http") && strcmp(scheme, "https"))) {
                r = h->fail(h, -EINVAL, "url: scheme '%s' is not supported: only "
                            "http:// and https:// are", scheme ? scheme : "?");
                goto out;
        }
        cfg->https = !strcmp(scheme, "https");
        if (url_part(u, CURLUPART_HOST, &cfg->host) < 0 ||
            url_part(u, CURLUPART_PORT, &cfg->port) < 0 ||
            url_part(u, CURLUPART_PATH, &path) < 0)
                goto out;
        url_part(u, CURLUPART_QUERY, &query);
        if (asprintf(&cfg->where, "%s:%s", cfg->host, cfg->port) < 0 ||
            asprintf(ret_target, "%s%s%s", path, query ? "?" : "", query ? query : "") < 0) {
                cfg->where = NULL;
                goto out;
        }
        r = 0;
out:
        if (r == 0)
                r = basic_auth(cfg, u);
        free(scheme);
        free(path);
        free(query);
        curl_url_cleanup(u);
        return r;
}

static int check_headers(const struct http_cfg *cfg, const struct bw_host *h)
{
        for (size_t i = 0; i < cfg->n_headers; i++) {
                const char *v = cfg->headers[i];
                const char *colon = strchr(v, ':');
                if (!colon || colon == v || strpbrk(v, "\r\n"))
                        return h->fail(h, -EINVAL, "header #%zu is not one line "
                                       "\"Name: value\"", i + 1);
        }
        return 0;
}

/* The request the raw engine sends, built once. */
static int build_request(struct http_cfg *cfg, const char *target)
{
        bool dflt = !strcmp(cfg->port, cfg->https ? "443" : "80");
        size_t blen = strlen(cfg->body);
        bool clen = blen || !strcmp(cfg->method, "POST") || !strcmp(cfg->method, "PUT") ||
                    !strcmp(cfg->method, "PATCH");
        size_t len = strlen(cfg->method) + strlen(target) + strlen(cfg->host) + 200 + blen;
        for (size_t i = 0; i < cfg->n_headers; i++)
                len += strlen(cfg->headers[i]) + 2;
        if (cfg->auth)
                len += strlen(cfg->auth) + 2;
        char *p = malloc(len);
        if (!p)
                return -ENOMEM;
        size_t at = (size_t)snprintf(p, len,
                "%s %s HTTP/1.1\r\nHost: %s%s%s\r\nUser-Agent: benchwatch/"
                PACKAGE_VERSION "\r\nAccept: */*\r\n%s", cfg->method, target,
                cfg->host, dflt ? "" : ":", dflt ? "" : cfg->port,
                cfg->keepalive ? "" : "Connection: close\r\n");
        for (size_t i = 0; i < cfg->n_headers; i++)
                at += (size_t)snprintf(p + at, len - at, "%s\r\n", cfg->headers[i]);
        if (cfg->auth)
                at += (size_t)snprintf(p + at, len - at, "%s\r\n", cfg->auth);
        if (clen)
                at += (size_t)snprintf(p + at, len - at, "Content-Length: %zu\r\n", blen);
        at += (size_t)snprintf(p + at, len - at, "\r\n");
        memcpy(p + at, cfg->body, blen);
        cfg->request = p;
        cfg->request_len = at + blen;
        return 0;
}

static int cfg_build(const struct bw_run *run, const struct bw_host *h,
                     struct http_cfg *cfg)
{
        const struct bw_param_value *v = run->values;
        char *target = NULL;
        memset(cfg, 0, sizeof(*cfg));
        cfg->url = v[P_URL].s;
        cfg->method = v[P_METHOD].s;
        cfg->head = !strcmp(cfg->method, "HEAD");
        cfg->headers = v[P_HEADER].list;
        cfg->n_headers = v[P_HEADER].n_list;
        cfg->body = v[P_BODY].s;
        cfg->keepalive = v[P_KEEPALIVE].b;
        cfg->tls_verify = v[P_TLS_VERIFY].b;
        cfg->concurrency = (unsigned)v[P_CONCURRENCY].i;
        cfg->threads = (unsigned)v[P_THREADS].i;
        cfg->requests = (uint64_t)v[P_REQUESTS].i;
        /* ab -n without -t: as long as the requests take */
        cfg->duration = cfg->requests && !v[P_DURATION].is_set ? 0 : v[P_DURATION].d;
        cfg->rate = v[P_RATE].d;
        cfg->timeout_ns = (uint64_t)(v[P_TIMEOUT].d * 1e9);
        if (parse_expect(cfg, v[P_EXPECT].s) < 0)
                return h->fail(h, -EINVAL, "expect_status: '%s' is not a list of "
                               "statuses like \"200\", \"200,301\" or \"2xx\"",
                               v[P_EXPECT].s);
        if (!cfg->requests && cfg->duration <= 0)
                return h->fail(h, -EINVAL, "give requests= or a duration above 0");
        int r = check_headers(cfg, h);
        if (r < 0)
                return r;
        r = cfg_url(cfg, h, &target);
        if (r == 0)
                r = build_request(cfg, target);
        free(target);
        if (r == -ENOMEM)
                r = h->fail(h, r, "out of memory");
        if (r < 0)
                cfg_free(cfg);
        return r;
}

/* ---- the run ----------------------------------------------------------- */

static int check(const struct bw_run *run, const struct bw_host *h)
{
        struct http_cfg cfg;
        int r = cfg_build(run, h, &cfg);
        if (r == 0)
                cfg_free(&cfg);
        return r;
}

/* One descriptor per connection plus a few: raise the soft limit. */
static int raise_nofile(const struct http_cfg *cfg, const struct bw_host *h)
{
        struct rlimit rl;
        rlim_t want = cfg->concurrency + 64;
        if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
                return 0;
        if (rl.rlim_cur >= want)
                return 0;
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
                return h->fail(h, -EMFILE, "concurrency=%u needs %llu open files, "
                               "the limit is %llu", cfg->concurrency,
                               (unsigned long long)want, (unsigned long long)rl.rlim_max);
        rl.rlim_cur = want;
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
                return h->fail(h, -errno, "cannot raise the open files limit to %llu: %s",
                               (unsigned long long)want, strerror(errno));
        return 0;
}

/* The run's window: from the first request to the last outcome (ab); an
 * open loop (rate=) that paced its requests until the run's end counts to
 * that end, as wrk2 does: at a low rate the last outcome comes right
 * after the last request, and counted to it rate=0.5 for 1 s read as
 * thousands of requests a second. */
static double time_taken(const struct http_load *l)
{
        uint64_t end = l->last_ns > l->t0_ns ? l->last_ns : now_ns();
        bool paced_to_end = l->cfg->rate > 0 &&
                            !(l->cfg->requests && l->issued >= l->cfg->requests);
        if (paced_to_end && l->end_ns > end)
                end = l->end_ns;
        return end > l->t0_ns ? (double)(end - l->t0_ns) / 1e9 : 1e-9;
}

static void emit(const struct http_load *l, const struct bw_host *h)
{
        double taken = time_taken(l);
        h->gauge(h, "requests_per_second", "Complete requests per second of the "
                 "run (ab: Requests per second)", NULL, (double)l->complete / taken);
        h->latency(h, "latency_seconds", "Time per request, from its (intended) "
                   "send time to the end of the response", NULL, &l->hist);
        h->gauge(h, "transfer_bytes_per_second", "Bytes received per second, "
                 "headers included (ab: Transfer rate)", NULL, (double)l->bytes / taken);
        h->counter(h, "complete_requests", "Requests answered with a whole "
                   "response, any status", NULL, (double)l->complete);
        for (int i = 0; i < HTTP_FAIL_MAX; i++)
                h->counter(h, "failed_requests", "Requests that failed, by reason "
                           "(connect, receive, length, timeout, status)",
                           (const char *const[]){ "reason", http_fail_names[i], NULL },
                           (double)l->failed[i]);
        h->counter(h, "non_2xx_responses", "Whole responses with a status "
                   "outside 200-299", NULL, (double)l->non_2xx);
        h->counter(h, "total_transferred_bytes", "Bytes received, headers "
                   "included (ab: Total transferred)", NULL, (double)l->bytes);
        h->gauge(h, "time_taken_seconds", "From the first request to the last "
                 "outcome (ab: Time taken for tests); with rate=, to the run's end if "
                 "later (wrk2)", NULL, taken);
}

/* A server on this host shares its CPUs with this client: say so, with
 * the client's CPU a request (common/localpeer.h says why). */
static void note_local_server(const struct http_load *l, const struct bw_host *h)
{
        const struct http_cfg *cfg = l->cfg;
        bool here = cfg->addr_len ? localpeer_addr((const struct sockaddr *)&cfg->addr)
                                  : localpeer_host(cfg->host);
        if (!here || !l->finished)
                return;
        h->log(h, LOG_NOTICE, "the server is on this host: where its CPUs are "
               "full, this client's own CPU, %.1f µs a request, counts against "
               "the requests/s (a client that needs more a request, as ab "
               "does, gets fewer)", (double)l->cpu_ns / 1e3 / (double)l->finished);
}

static int verdict(const struct http_load *l, const struct bw_host *h)
{
        const struct http_cfg *cfg = l->cfg;
        if (l->abort_err)
                return h->fail(h, l->abort_err, "%s", l->abort_msg);
        if (h->stopping(h))
                return h->fail(h, -ECANCELED, "stopped before the end of the run");
        /* every response a status expect_status rules out: not the page
         * the probe was set to measure (its requests/s would be a 404's) */
        if (l->complete && !cfg->expect_any && l->failed[HTTP_FAIL_STATUS] == l->complete)
                return h->fail(h, -EPROTO, "no response from %s had a status expect_status "
                               "allows (%llu responses, %llu of them non-2xx)", cfg->where,
                               (unsigned long long)l->complete,
                               (unsigned long long)l->non_2xx);
        if (l->complete)
                return 0;
        if (l->failed[HTTP_FAIL_TIMEOUT])
                return h->fail(h, -ETIMEDOUT, "no response from %s within %.3gs "
                               "(%llu requests timed out)", cfg->where,
                               (double)cfg->timeout_ns / 1e9,
                               (unsigned long long)l->failed[HTTP_FAIL_TIMEOUT]);
        if (l->finished)
                return h->fail(h, -EPROTO, "no whole response from %s (%llu connect, "
                               "%llu receive, %llu length failures)", cfg->where,
                               (unsigned long long)l->failed[HTTP_FAIL_CONNECT],
                               (unsigned long long)l->failed[HTTP_FAIL_RECEIVE],
                               (unsigned long long)l->failed[HTTP_FAIL_LENGTH]);
        return h->fail(h, -ETIMEDOUT, "no response from %s before the end of "
                       "the run", cfg->where);
}

static int run_http(const struct bw_run *run, const struct bw_host *h)
{
        struct http_cfg cfg;
        struct http_load *l;
        int r = cfg_build(run, h, &cfg);
        if (r < 0)
                return r;
        r = raise_nofile(&cfg, h);
        l = malloc(sizeof(*l));
        if (r == 0 && !l)
                r = h->fail(h, -ENOMEM, "out of memory");
        if (r < 0)
                goto out;
        http_load_init(l, &cfg, h, run->deadline);
        r = cfg.https ? http_curl_run(l) : http_raw_run(l, &cfg);
        if (r == 0 && !(l->abort_err && !l->finished)) {
                emit(l, h);
                r = verdict(l, h);
                if (r == 0)
                        note_local_server(l, h);
        } else if (r == 0) {
                r = h->fail(h, l->abort_err, "%s", l->abort_msg);
        }
out:
        free(l);
        cfg_free(&cfg);
        return r;
}

/* `benchwatch run http` reads like ab's summary; the figures mean what
 * ab's do (ab's "Time per request (mean)" is concurrency x time / done). */
#define LINE(l, sh, fig, ...) { .label = l, .show = sh, .figure = fig, __VA_ARGS__ }
static const struct bw_report_line ab_report[] = {
        LINE("Concurrency Level:", BW_SHOW_PARAM, "concurrency"),
        LINE("Time taken for tests:", BW_SHOW_VALUE, "time_taken_seconds",
             .unit = "seconds", .decimals = 3),
        LINE("Complete requests:", BW_SHOW_VALUE, "complete_requests"),
        LINE("Failed requests:", BW_SHOW_VALUE, "failed_requests"),
        LINE("Non-2xx responses:", BW_SHOW_VALUE, "non_2xx_responses"),
        LINE("Total transferred:", BW_SHOW_VALUE, "total_transferred_bytes", .unit = "bytes"),
        LINE("Requests per second:", BW_SHOW_VALUE, "requests_per_second",
             .unit = "[#/sec] (mean)", .decimals = 2),
        LINE("Time per request:", BW_SHOW_RECIPROCAL, "requests_per_second", .scale = 1e3,
             .times_param = "concurrency", .unit = "[ms] (mean)", .decimals = 3),
        LINE("Time per request:", BW_SHOW_RECIPROCAL, "requests_per_second", .scale = 1e3,
             .unit = "[ms] (mean, across all concurrent requests)", .decimals = 3),
        LINE("Transfer rate:", BW_SHOW_VALUE, "transfer_bytes_per_second", .scale = 1.0 / 1024,
             .unit = "[Kbytes/sec] received", .decimals = 2),
        LINE("", BW_SHOW_HEADING, NULL),
        LINE("Percentage of the requests served within a certain time (ms)",
             BW_SHOW_PERCENTILES, "latency_seconds"),
        { .label = NULL },
};
#undef LINE


BW_PLUGIN_DEFINE = {
        .abi_version = BW_PLUGIN_ABI_VERSION,
        .name = "http",
        .description = "HTTP requests per second, latency and failures through a "
                       "web server or proxy (ab/wrk; closed loop or constant rate)",
        .caps = BW_CAP_NETWORK,
        .params = params,
        .concurrency_param = "concurrency",
        .report = ab_report,
        .throughput_metric = "requests_per_second",
        .check = check,
        .run = run_http,
};
