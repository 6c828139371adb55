/* httpc.c — see httpc.h. */
#include "sink/httpc.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "util/strutil.h"

#define ANSWER_DEFAULT 512
/* the SONAME of the libcurl benchwatch is built against (Debian: libcurl4) */
#define LIBCURL_SONAME "libcurl.so.4"

/* libcurl, opened by httpc_open(): linked, it and what it pulls in (OpenSSL,
 * GnuTLS, Kerberos, LDAP, SSH: about 1 MiB of relocated pages) would sit in
 * every daemon, also the many that push nowhere. */
static struct {
        CURLcode (*global_init)(long flags);
        CURL *(*easy_init)(void);
        void (*easy_cleanup)(CURL *h);
        void (*easy_reset)(CURL *h);
        CURLcode (*easy_setopt)(CURL *h, CURLoption o, ...);
        CURLcode (*easy_perform)(CURL *h);
        CURLcode (*easy_getinfo)(CURL *h, CURLINFO i, ...);
        const char *(*easy_strerror)(CURLcode c);
        struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
        void (*slist_free_all)(struct curl_slist *l);
} lc;
static pthread_once_t lc_once = PTHREAD_ONCE_INIT;
static char *lc_error;

#define SYM(field, name) { (void **)&lc.field, name }
static void lc_open(void)
{
        const struct { void **p; const char *name; } syms[] = {
                SYM(global_init, "curl_global_init"), SYM(easy_init, "curl_easy_init"),
                SYM(easy_cleanup, "curl_easy_cleanup"), SYM(easy_reset, "curl_easy_reset"),
                SYM(easy_setopt, "curl_easy_setopt"), SYM(easy_perform, "curl_easy_perform"),
                SYM(easy_getinfo, "curl_easy_getinfo"),
                SYM(easy_strerror, "curl_easy_strerror"),
                SYM(slist_append, "curl_slist_append"),
                SYM(slist_free_all, "curl_slist_free_all"),
        };
        void *dl = dlopen(LIBCURL_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (!dl) {
                lc_error = str_printf("cannot load %s, which the Pushgateway and "
                                      "remote-write outputs need: %s (install libcurl4)",
                                      LIBCURL_SONAME, dlerror());
                return;
        }
        for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
                if (!(*syms[i].p = dlsym(dl, syms[i].name))) {
                        lc_error = str_printf("%s has no %s: not a usable libcurl",
                                              LIBCURL_SONAME, syms[i].name);
                        return;
                }
        if (lc.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
                lc_error = str_printf("%s: curl_global_init failed", LIBCURL_SONAME);
}
#undef SYM

CURL *httpc_open(char **ret_error)
{
        pthread_once(&lc_once, lc_open);
        if (lc_error) {
                *ret_error = strdup(lc_error);
                return NULL;
        }
        CURL *h = lc.easy_init();
        if (!h)
                *ret_error = str_printf("cannot create a libcurl handle: out of memory");
        return h;
}

void httpc_close(CURL *h)
{
        if (h)
                lc.easy_cleanup(h);
}

struct answer {
        char *text;
        size_t len, max;
};

static size_t keep_answer(char *data, size_t size, size_t nmemb, void *arg)
{
        struct answer *a = arg;
        size_t n = size * nmemb, room = a->max - a->len;

        if (a->text) {
                memcpy(a->text + a->len, data, n < room ? n : room);
                a->len += n < room ? n : room;
                a->text[a->len] = 0;
        }
        return n;
}

/* libcurl's sockets would leak into the processes that run probes. */
static curl_socket_t open_cloexec(void *arg, curlsocktype purpose,
                                  struct curl_sockaddr *a)
{
        return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

static void set_tls(CURL *h, const struct httpc_opts *o)
{
        if (o->ca_file && *o->ca_file)
                lc.easy_setopt(h, CURLOPT_CAINFO, o->ca_file);
        if (o->cert_file && *o->cert_file)
                lc.easy_setopt(h, CURLOPT_SSLCERT, o->cert_file);
        if (o->key_file && *o->key_file)
                lc.easy_setopt(h, CURLOPT_SSLKEY, o->key_file);
        if (o->insecure) {
                lc.easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
                lc.easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
        }
}

static void set_common(CURL *h, const struct httpc_opts *o, struct answer *a,
                       char *errbuf)
{
        lc.easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, open_cloexec);
        lc.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        lc.easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
        lc.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
        lc.easy_setopt(h, CURLOPT_TIMEOUT_MS, o->timeout_ms);
        lc.easy_setopt(h, CURLOPT_WRITEFUNCTION, keep_answer);
        lc.easy_setopt(h, CURLOPT_WRITEDATA, a);
        lc.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
        lc.easy_setopt(h, CURLOPT_USERAGENT, "benchwatch/" PACKAGE_VERSION);
        if ((o->username && *o->username) || o->password) {
                lc.easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
                lc.easy_setopt(h, CURLOPT_USERNAME, o->username ? o->username : "");
                lc.easy_setopt(h, CURLOPT_PASSWORD, o->password ? o->password : "");
        } else if (o->bearer) {
                lc.easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BEARER);
                lc.easy_setopt(h, CURLOPT_XOAUTH2_BEARER, o->bearer);
        }
        set_tls(h, o);
}

/* The answer as one line without its trailing blanks, or a placeholder. */
static const char *answer_text(struct answer *a)
{
        if (!a->text)
                return "(answer not kept)";
        while (a->len > 0 && (a->text[a->len - 1] == '\n' || a->text[a->len - 1] == ' '))
                a->text[--a->len] = 0;
        for (size_t i = 0; i < a->len; i++)
                if (a->text[i] == '\n' || a->text[i] == '\r')
                        a->text[i] = ' ';
        return a->len ? a->text : "(empty answer)";
}

/* The request's headers in *ret (NULL when there are none). */
static int make_headers(const char *const *headers, bool body,
                        struct curl_slist **ret)
{
        /* no "Expect: 100-continue" round trip before a body */
        const char *const expect[] = { body ? "Expect:" : NULL, NULL };
        struct curl_slist *l = NULL, *n;

        for (size_t k = 0; k < 2; k++)
                for (const char *const *p = k ? headers : expect; p && *p; p++) {
                        n = lc.slist_append(l, *p);
                        if (!n) {
                                lc.slist_free_all(l);
                                return -ENOMEM;
                        }
                        l = n;
                }
        *ret = l;
        return 0;
}

static int finish(CURL *h, CURLcode cc, const char *errbuf, struct answer *a,
                  struct httpc_reply *reply)
{
        curl_off_t ra = 0;

        if (cc != CURLE_OK) {
                reply->error = str_printf("%s", *errbuf ? errbuf : lc.easy_strerror(cc));
                return cc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT :
                       cc == CURLE_COULDNT_CONNECT ? -ECONNREFUSED : -EIO;
        }
        lc.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &reply->status);
        if (lc.easy_getinfo(h, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0)
                reply->retry_after = (double)ra;
        if (reply->status >= 200 && reply->status < 300)
                return 0;
        reply->error = str_printf("HTTP %ld: %s", reply->status, answer_text(a));
        return reply->error ? -EIO : -ENOMEM;
}

int httpc_request(CURL *h, const struct httpc_opts *o, const char *method,
                  const char *url, const char *const *headers,
                  const void *body, size_t len, struct httpc_reply *reply)
{
        char errbuf[CURL_ERROR_SIZE] = "";
        struct answer a = { .max = o->answer_max ? o->answer_max : ANSWER_DEFAULT };
        struct curl_slist *hdr = NULL;
        CURLcode cc;
        int r;

        memset(reply, 0, sizeof(*reply));
        a.text = malloc(a.max + 1);
        if (a.text)
                a.text[0] = 0;
        r = make_headers(headers, body != NULL, &hdr);
        if (r < 0) {
                free(a.text);
                return r;
        }
        lc.easy_reset(h);
        set_common(h, o, &a, errbuf);
        lc.easy_setopt(h, CURLOPT_URL, url);
        lc.easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
        lc.easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
        if (body) {
                lc.easy_setopt(h, CURLOPT_POSTFIELDS, body);
                lc.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
        }
        cc = lc.easy_perform(h);
        lc.slist_free_all(hdr);
        r = finish(h, cc, errbuf, &a, reply);
        free(a.text);
        return r;
}
