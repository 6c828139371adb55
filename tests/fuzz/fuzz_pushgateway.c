/* fuzz_pushgateway.c — libFuzzer target for what the Pushgateway sink takes
 * from outside: the gateway's answers (kept, trimmed and logged when a push
 * fails) and the [pushgateway] options that become the grouping-key URL
 * (labels = name=value,..., instance, and the probe name).
 *
 * The helpers are static, so this file includes sink_pushgateway.c and
 * httpc.c (the answer handling the Pushgateway and remote-write sinks
 * share).
 * Input byte 0 picks the mode.  Answers are fed in pieces through the curl
 * write callback; the kept text must stay inside its buffer.  Options are
 * four '\n'-separated fields (labels, instance, probe, url); an accepted set
 * must give a URL whose path holds only unreserved characters, %XX and the
 * base64 markers, and whose segments decode back to exactly the values. */
#include "sink/sink_pushgateway.c"
#include "sink/httpc.c"

#include <ctype.h>

#include "fuzz.h"

static void fuzz_answer(const uint8_t *p, size_t n)
{
        char buf[ANSWER_DEFAULT + 1] = "";
        struct answer a = { .text = buf, .len = 0, .max = ANSWER_DEFAULT };
        size_t piece = n ? (size_t)p[0] + 1 : 1;
        for (size_t i = 0; i < n; i += piece) {
                size_t k = n - i < piece ? n - i : piece;
                if (keep_answer((char *)p + i, 1, k, &a) != k)
                        abort();
                if (a.len > ANSWER_DEFAULT || a.text[a.len] != 0)
                        abort();
        }
        const char *t = answer_text(&a);
        if (strlen(t) > ANSWER_DEFAULT)
                abort();
}

static int unhex(int c)
{
        return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static char *decode_b64url(const char *s, size_t n)
{
        static const char a[] =
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        char *out = calloc(1, n + 1);
        size_t o = 0;
        unsigned bits = 0, acc = 0;
        if (n == 1 && s[0] == '=')
                return out;
        for (size_t i = 0; out && i < n && s[i] != '='; i++) {
                const char *q = strchr(a, s[i]);
                if (!q || !s[i])
                        abort();
                acc = (acc << 6) | (unsigned)(q - a);
                bits += 6;
                if (bits >= 8) {
                        bits -= 8;
                        out[o++] = (char)((acc >> bits) & 0xff);
                }
        }
        return out;
}

static char *decode_pct(const char *s, size_t n)
{
        char *out = calloc(1, n + 1);
        size_t o = 0;
        for (size_t i = 0; out && i < n; i++) {
                if (s[i] != '%') {
                        if (!strchr("-._~", s[i]) && !isalnum((unsigned char)s[i]))
                                abort();
                        out[o++] = s[i];
                        continue;
                }
                if (i + 2 >= n)
                        abort();
                int hi = unhex(s[i + 1]), lo = unhex(s[i + 2]);
                if (hi < 0 || lo < 0)
                        abort();
                out[o++] = (char)(hi * 16 + lo);
                i += 2;
        }
        return out;
}

/* Checks segment "/name/value" or "/name@base64/value" at *p. */
static void expect_segment(const char **p, const char *name, const char *value)
{
        const char *s = *p;
        size_t nl = strlen(name);
        if (*s != '/' || strncmp(s + 1, name, nl))
                abort();
        s += 1 + nl;
        bool b64 = !strncmp(s, "@base64", 7);
        s += b64 ? 7 : 0;
        if (*s++ != '/')
                abort();
        size_t n = strcspn(s, "/");
        char *v = b64 ? decode_b64url(s, n) : decode_pct(s, n);
        if (!v || strcmp(v, value))
                abort();
        free(v);
        *p = s + n;
}

static void fuzz_url(const char *text)
{
        char *f[4] = { 0 };
        char *copy = strdup(text), *s = copy;
        for (int i = 0; i < 4; i++) {
                f[i] = s ? strsep(&s, "\n") : (char *)"";
        }
        struct param_set *ps = NULL;
        char *err = NULL, *url = NULL;
        if (param_set_new(pushgateway_options, &ps, NULL) < 0)
                abort();
        if (param_set_assign(ps, "labels", f[0], &err) < 0 ||
            param_set_assign(ps, "instance", f[1], &err) < 0 ||
            param_set_assign(ps, "url", f[3], &err) < 0)
                abort(); /* free text */
        struct pg_config c;
        if (pg_config_parse(ps, &c, &err) == 0) {
                if (group_url(&c, f[2], &url) < 0)
                        abort();
                const char *p = url + strlen(c.url);
                if (strncmp(p, "/metrics/job/benchwatch", 23))
                        abort();
                p += 23;
                expect_segment(&p, "instance", c.instance);
                if (*f[2]) /* "": the host's own group, no probe segment */
                        expect_segment(&p, "probe", f[2]);
                for (size_t i = 0; i < c.labels.n; i++)
                        expect_segment(&p, c.labels.names[i], c.labels.values[i]);
                if (*p)
                        abort();
                pg_config_done(&c);
        } else if (!err) {
                abort();
        }
        free(url);
        free(err);
        param_set_free(ps);
        free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < 1)
                return 0;
        if (data[0] & 1) {
                fuzz_answer(data + 1, size - 1);
                return 0;
        }
        char *text = strndup((const char *)data + 1, size - 1);
        if (!text)
                return 0;
        fuzz_url(text);
        free(text);
        return 0;
}
